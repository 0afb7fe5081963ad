// Complex FFT (vec2<f32> = re, im) along one axis of a power-of-two length n, for every line of
// an array laid out as (outer, n, inner): point p of line (o, i) is at o*n*inner + p*inner + i
// (rows: inner = 1; columns of (batch, ny, nx): outer = batch, n = ny, inner = nx).
//
// Stockham auto-sort (no bit reversal): a stage of radix R (4, or 2 for the last odd factor)
// on sub-transforms of length ns takes butterfly j's R inputs at j + r*n/R, multiplies input r
// by w^(r*(j mod ns)) with w = e^(-2 pi i / (ns*R)) (conjugated for the inverse), does an R-point
// DFT and writes output r at (j / ns)*ns*R + (j mod ns) + r*ns. After log_R(n) stages the
// result is in natural order. Twiddles come from a table of e^(-2 pi i t / n), t < n, made in
// f64 on the CPU (`f_tw` from `tw_off`), so no angle is rounded on the GPU.
//
// `fft_shared`: a block of lines (block_outer x n x block_inner, at most FFT_POINTS points) is
// loaded into workgroup memory, every stage runs there, and the block is written back in place.
// `fft_global`: one stage over the whole array, from `f_a` to `f_b` (ping-pong), for lines
// longer than a workgroup holds. Workgroups form a 2D grid (groups_x per row).
// CPU twin: primitives/fft.rs (cpu_fft).

const FFT_ITEMS: u32 = 16u;
override FFT_WG: u32 = 256u;
// Points in workgroup memory: at most FFT_WG * FFT_ITEMS.
override FFT_POINTS: u32 = 4096u;

struct FftPass {
    n: u32,
    inner: u32,
    // Offset of this axis's table in f_tw.
    tw_off: u32,
    // 1: inverse (conjugated twiddles).
    inverse: u32,
    // fft_shared: the block's lines along outer and inner.
    block_outer: u32,
    block_inner: u32,
    // fft_global: this stage's radix and sub-transform length.
    radix: u32,
    ns: u32,
    // Blocks (fft_shared) or butterflies (fft_global): later workgroups of the grid idle.
    items: u32,
    groups_x: u32,
    _p0: u32,
    _p1: u32,
}

@group(0) @binding(0) var<uniform> fp: FftPass;
@group(0) @binding(1) var<storage, read> f_tw: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> f_a: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> f_b: array<vec2<f32>>;

var<workgroup> f_shared: array<vec2<f32>, FFT_POINTS>;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Sizes are powers of two, so divisions and remainders by them are shifts and masks (integer
// division is slow on GPUs): log2 of a power of two is its count of trailing zeros.
fn log2_of(x: u32) -> u32 {
    return countTrailingZeros(x);
}

// Input r of butterfly j times its twiddle w^(r*(j mod ns)), w = e^(-2 pi i / (ns*radix)); the
// table's stride for that w is n / (ns*radix).
fn twiddled(v: vec2<f32>, r: u32, j: u32, ns: u32, stride: u32) -> vec2<f32> {
    if r == 0u {
        return v;
    }
    var w = f_tw[fp.tw_off + r * (j & (ns - 1u)) * stride];
    if fp.inverse == 1u {
        w.y = -w.y;
    }
    return cmul(v, w);
}

// v * (-i) forward, v * i inverse: the 4-point DFT's w^1.
fn rot(v: vec2<f32>) -> vec2<f32> {
    if fp.inverse == 1u {
        return vec2<f32>(-v.y, v.x);
    }
    return vec2<f32>(v.y, -v.x);
}

fn dft4(v0: vec2<f32>, v1: vec2<f32>, v2: vec2<f32>, v3: vec2<f32>) -> array<vec2<f32>, 4> {
    let a0 = v0 + v2;
    let a1 = v0 - v2;
    let a2 = v1 + v3;
    let a3 = rot(v1 - v3);
    return array<vec2<f32>, 4>(a0 + a2, a1 + a3, a0 - a2, a1 - a3);
}

// Where butterfly j's output 0 goes (Stockham's expand(j, ns, radix)).
fn fft_dest(j: u32, ns: u32, radix: u32) -> u32 {
    return (j & ~(ns - 1u)) * radix + (j & (ns - 1u));
}

// Workgroup-memory index of point p of the block's line c (points ordered as in global memory).
fn shared_index(c: u32, p: u32) -> u32 {
    let bi = fp.block_inner;
    return (((c >> log2_of(bi)) * fp.n + p) * bi) + (c & (bi - 1u));
}

// One radix-4 stage on the block in workgroup memory (`points` points, lines of n).
fn shared_stage4(lid: u32, points: u32, ns: u32) {
    let quarter = fp.n / 4u;
    let quarter_log = log2_of(quarter);
    let stride = fp.n >> (log2_of(ns) + 2u);
    var v: array<vec2<f32>, FFT_ITEMS>;
    for (var q = 0u; q < FFT_ITEMS / 4u; q++) {
        let b = q * FFT_WG + lid;
        if b < points / 4u {
            let c = b >> quarter_log;
            let j = b & (quarter - 1u);
            var x: array<vec2<f32>, 4>;
            for (var r = 0u; r < 4u; r++) {
                x[r] = twiddled(f_shared[shared_index(c, j + r * quarter)], r, j, ns, stride);
            }
            var y = dft4(x[0], x[1], x[2], x[3]);
            for (var r = 0u; r < 4u; r++) {
                v[4u * q + r] = y[r];
            }
        }
    }
    workgroupBarrier();
    for (var q = 0u; q < FFT_ITEMS / 4u; q++) {
        let b = q * FFT_WG + lid;
        if b < points / 4u {
            let c = b >> quarter_log;
            let j = b & (quarter - 1u);
            let d = fft_dest(j, ns, 4u);
            for (var r = 0u; r < 4u; r++) {
                f_shared[shared_index(c, d + r * ns)] = v[4u * q + r];
            }
        }
    }
    workgroupBarrier();
}

// One radix-2 stage on the block in workgroup memory.
fn shared_stage2(lid: u32, points: u32, ns: u32) {
    let half = fp.n / 2u;
    let half_log = log2_of(half);
    let stride = fp.n >> (log2_of(ns) + 1u);
    var v: array<vec2<f32>, FFT_ITEMS>;
    for (var q = 0u; q < FFT_ITEMS / 2u; q++) {
        let b = q * FFT_WG + lid;
        if b < points / 2u {
            let c = b >> half_log;
            let j = b & (half - 1u);
            let x0 = f_shared[shared_index(c, j)];
            let x1 = twiddled(f_shared[shared_index(c, j + half)], 1u, j, ns, stride);
            v[2u * q] = x0 + x1;
            v[2u * q + 1u] = x0 - x1;
        }
    }
    workgroupBarrier();
    for (var q = 0u; q < FFT_ITEMS / 2u; q++) {
        let b = q * FFT_WG + lid;
        if b < points / 2u {
            let c = b >> half_log;
            let d = fft_dest(b & (half - 1u), ns, 2u);
            f_shared[shared_index(c, d)] = v[2u * q];
            f_shared[shared_index(c, d + ns)] = v[2u * q + 1u];
        }
    }
    workgroupBarrier();
}

// Global index of the block's point e (e in the block's own order: outer, n, inner).
fn block_offset(e: u32) -> u32 {
    let bi = fp.block_inner;
    return (e >> log2_of(bi)) * fp.inner + (e & (bi - 1u));
}

@compute @workgroup_size(FFT_WG)
fn fft_shared(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let k = wid.x + wid.y * fp.groups_x;
    // An idle workgroup still meets every barrier, with no points.
    let points = select(0u, fp.block_outer * fp.n * fp.block_inner, k < fp.items);
    let across = fp.inner >> log2_of(fp.block_inner);
    let base = (k >> log2_of(across)) * fp.block_outer * fp.n * fp.inner
        + (k & (across - 1u)) * fp.block_inner;
    for (var q = 0u; q < FFT_ITEMS; q++) {
        let e = q * FFT_WG + lid;
        if e < points {
            f_shared[e] = f_a[base + block_offset(e)];
        }
    }
    workgroupBarrier();
    var ns = 1u;
    while ns * 4u <= fp.n {
        shared_stage4(lid, points, ns);
        ns *= 4u;
    }
    if ns < fp.n {
        shared_stage2(lid, points, ns);
    }
    for (var q = 0u; q < FFT_ITEMS; q++) {
        let e = q * FFT_WG + lid;
        if e < points {
            f_a[base + block_offset(e)] = f_shared[e];
        }
    }
}

@compute @workgroup_size(FFT_WG)
fn fft_global(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = (wid.x + wid.y * fp.groups_x) * FFT_WG + lid;
    if b >= fp.items {
        return;
    }
    let radix = fp.radix;
    let ns = fp.ns;
    let part = fp.n / radix;
    let inner_log = log2_of(fp.inner);
    let i = b & (fp.inner - 1u);
    let j = (b >> inner_log) & (part - 1u);
    let line = (b >> (inner_log + log2_of(part))) * fp.n * fp.inner + i;
    let d = fft_dest(j, ns, radix);
    let stride = fp.n >> (log2_of(ns) + log2_of(radix));
    if radix == 4u {
        var x: array<vec2<f32>, 4>;
        for (var r = 0u; r < 4u; r++) {
            x[r] = twiddled(f_a[line + (j + r * part) * fp.inner], r, j, ns, stride);
        }
        var y = dft4(x[0], x[1], x[2], x[3]);
        for (var r = 0u; r < 4u; r++) {
            f_b[line + (d + r * ns) * fp.inner] = y[r];
        }
    } else {
        let x0 = f_a[line + j * fp.inner];
        let x1 = twiddled(f_a[line + (j + part) * fp.inner], 1u, j, ns, stride);
        f_b[line + d * fp.inner] = x0 + x1;
        f_b[line + (d + ns) * fp.inner] = x0 - x1;
    }
}
