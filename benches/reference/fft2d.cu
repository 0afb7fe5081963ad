// cuFFT reference for the FFT primitive's bench (`petri bench primitives`, the "fft 2D forward"
// table): a forward single-precision complex 2D transform (C2C, in place) of each shape, as
// crates/scheduler/src/primitives/bench.rs (bench_fft) times shaders/scheduler/fft.wgsl. The
// data are zeros, as there (an FFT's time does not depend on the values). One plan per shape
// (cufftPlanMany: batch grids of ny x nx, row-major, contiguous), 5 warm-up executions, then
// 21 executions each timed with CUDA events; the median is printed.
//
// Arguments: shapes as BATCHxNYxNX (default 1x256x256 1x512x512 1x1024x1024 32x256x256).
// Output: one JSON line per shape, {"batch":..,"ny":..,"nx":..,"ms":..,"gflops":..}, GFLOP/s at
// 5 N log2 N per transform of N = ny nx points (the bench's count). `petri bench primitives
// --cuda-reference ./fft2d` runs it on its own shapes and prints cuFFT's time beside the WGSL.
//
// Build and run (on the H100/H200 machine):
//   nvcc -O3 -arch=sm_90 benches/reference/fft2d.cu -lcufft -o fft2d && ./fft2d
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cufft.h>
#include <vector>

#define CUDA_CHECK(call)                                                                         \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define CUFFT_CHECK(call)                                                                        \
    do {                                                                                         \
        cufftResult r_ = (call);                                                                 \
        if (r_ != CUFFT_SUCCESS) {                                                               \
            fprintf(stderr, "%s:%d: %s: cufftResult %d\n", __FILE__, __LINE__, #call, (int)r_);   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

struct Shape {
    int batch, ny, nx;
};

static const int WARMUP = 5;
static const int REPEATS = 21;

// Median ms of one forward transform of `s`.
static float time_shape(Shape s) {
    size_t points = (size_t)s.batch * s.ny * s.nx;
    cufftComplex* data;
    CUDA_CHECK(cudaMalloc(&data, points * sizeof(cufftComplex)));
    CUDA_CHECK(cudaMemset(data, 0, points * sizeof(cufftComplex)));
    cufftHandle plan;
    int n[2] = {s.ny, s.nx};
    // NULL embeddings: the default contiguous layout, each grid ny*nx points after the last.
    CUFFT_CHECK(cufftPlanMany(&plan, 2, n, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, s.batch));
    for (int w = 0; w < WARMUP; w++) CUFFT_CHECK(cufftExecC2C(plan, data, data, CUFFT_FORWARD));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    std::vector<float> ms(REPEATS);
    for (int r = 0; r < REPEATS; r++) {
        CUDA_CHECK(cudaEventRecord(e0));
        CUFFT_CHECK(cufftExecC2C(plan, data, data, CUFFT_FORWARD));
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        CUDA_CHECK(cudaEventElapsedTime(&ms[r], e0, e1));
    }
    std::sort(ms.begin(), ms.end());
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaFree(data));
    return ms[REPEATS / 2];
}

int main(int argc, char** argv) {
    std::vector<Shape> shapes;
    for (int a = 1; a < argc; a++) {
        Shape s;
        if (sscanf(argv[a], "%dx%dx%d", &s.batch, &s.ny, &s.nx) != 3 || s.batch < 1 || s.ny < 1 || s.nx < 1) {
            fprintf(stderr, "%s: expected BATCHxNYxNX, e.g. 32x256x256\n", argv[a]);
            return 1;
        }
        shapes.push_back(s);
    }
    if (shapes.empty()) shapes = {{1, 256, 256}, {1, 512, 512}, {1, 1024, 1024}, {32, 256, 256}};
    for (const Shape& s : shapes) {
        float ms = time_shape(s);
        double n = (double)s.ny * s.nx;
        double gflops = 5.0 * n * std::log2(n) * s.batch / (ms * 1e6);
        printf("{\"batch\":%d,\"ny\":%d,\"nx\":%d,\"ms\":%.5f,\"gflops\":%.1f}\n", s.batch, s.ny, s.nx, ms, gflops);
    }
    return 0;
}
