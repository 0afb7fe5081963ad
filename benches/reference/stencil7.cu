// Hand-written CUDA reference for the angiogenesis bandwidth target: the plain 7-point diffusion
// update of one f32 field with no-flux walls, timed with CUDA events. Counted as 8 bytes per cell
// (read u, write u), as the target in MODELS.md is. The WGSL twin is shaders/bench/diffusion7.wgsl.
// Build and run (on the H200 machine): nvcc -O3 -arch=sm_90 stencil7.cu -o stencil7 && ./stencil7
#include <cstdio>
#include <cuda_runtime.h>

__global__ void step(const float* __restrict__ a, float* __restrict__ b, int nx, int ny, int nz, float r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    size_t sy = nx, sz = (size_t)nx * ny;
    size_t i = x + sy * y + sz * z;
    float c = a[i];
    float xm = x > 0 ? a[i - 1] : c, xp = x + 1 < nx ? a[i + 1] : c;
    float ym = y > 0 ? a[i - sy] : c, yp = y + 1 < ny ? a[i + sy] : c;
    float zm = z > 0 ? a[i - sz] : c, zp = z + 1 < nz ? a[i + sz] : c;
    b[i] = c + r * ((xm + xp) + (ym + yp) + (zm + zp) - 6.0f * c);
}

int main() {
    int sizes[][3] = {{128, 128, 128}, {256, 256, 256}, {400, 400, 140}, {512, 512, 512}};
    int blocks[][3] = {{32, 4, 2}, {64, 4, 1}, {128, 2, 1}, {32, 8, 1}, {256, 1, 1}};
    const int steps = 200;
    printf("| grid | best block | ms/step | Gcell/s | GB/s @8B |\n|---|---|---|---|---|\n");
    for (auto& s : sizes) {
        size_t n = (size_t)s[0] * s[1] * s[2];
        float *a, *b;
        cudaMalloc(&a, n * 4);
        cudaMalloc(&b, n * 4);
        cudaMemset(a, 0, n * 4);
        cudaMemset(b, 0, n * 4);
        float best = 1e30f;
        int bi = 0;
        for (int k = 0; k < 5; k++) {
            dim3 blk(blocks[k][0], blocks[k][1], blocks[k][2]);
            dim3 grd((s[0] + blk.x - 1) / blk.x, (s[1] + blk.y - 1) / blk.y, (s[2] + blk.z - 1) / blk.z);
            for (int w = 0; w < 10; w++) step<<<grd, blk>>>(a, b, s[0], s[1], s[2], 0.1f);
            cudaEvent_t e0, e1;
            cudaEventCreate(&e0);
            cudaEventCreate(&e1);
            cudaEventRecord(e0);
            for (int t = 0; t < steps; t++) {
                step<<<grd, blk>>>(a, b, s[0], s[1], s[2], 0.1f);
                float* tmp = a; a = b; b = tmp;
            }
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (ms / steps < best) { best = ms / steps; bi = k; }
        }
        double cells = (double)n / (best * 1e-3);
        printf("| %dx%dx%d | %dx%dx%d | %.4f | %.1f | %.0f |\n", s[0], s[1], s[2], blocks[bi][0], blocks[bi][1],
               blocks[bi][2], best, cells * 1e-9, cells * 8e-9);
        cudaFree(a);
        cudaFree(b);
    }
    return 0;
}
