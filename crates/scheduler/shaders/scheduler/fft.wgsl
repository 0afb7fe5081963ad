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
// `fft_shared`: a block of lines (block_outer x n x block_inner, at most FFT_POINTS points,
// one thread per 16 of them) is transformed in workgroup memory and written back in place. The
// radix-4 stages go two at a time as radix-16 passes held in registers (`radix16`: a thread's
// 16 points n/16 apart, both stages' twiddles from the table, so the same operations as the
// stages one by one), and what is left (radix 8 = 4 then 2, 4 or 2) is the last pass. The first
// pass reads global memory straight into registers and the last writes its outputs straight
// back (they land on the very points it read); between passes, workgroup memory with one
// barrier after each write and one between a middle pass's reads and its writes. No array is
// indexed by a runtime value: the 16 points are written out (constant indices only).
// `fft_global`: one stage over the whole array, from `f_a` to `f_b` (ping-pong), for lines
// longer than a workgroup holds. Workgroups form a 2D grid (groups_x per row).
// CPU twin: primitives/fft.rs (cpu_fft).

override FFT_WG: u32 = 256u;
// Points in workgroup memory: at most FFT_WG * 16 (a thread per radix-16 group).
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

// Table twiddle t: e^(-2 pi i t / n), conjugated for the inverse.
fn tw(t: u32) -> vec2<f32> {
    let w = f_tw[fp.tw_off + t];
    return select(w, vec2<f32>(w.x, -w.y), fp.inverse == 1u);
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

// A radix-4 butterfly: inputs 1..3 times their twiddles, then the 4-point DFT.
fn bfly4(
    v0: vec2<f32>,
    v1: vec2<f32>,
    v2: vec2<f32>,
    v3: vec2<f32>,
    w1: vec2<f32>,
    w2: vec2<f32>,
    w3: vec2<f32>
) -> array<vec2<f32>, 4> {
    return dft4(v0, cmul(v1, w1), cmul(v2, w2), cmul(v3, w3));
}

// The radix-4 butterfly whose twiddles are w^(r*e) for table index e (w^r at r*e).
fn bfly4_at(v0: vec2<f32>, v1: vec2<f32>, v2: vec2<f32>, v3: vec2<f32>, e: u32) -> array<vec2<f32>, 4> {
    return bfly4(v0, v1, v2, v3, tw(e), tw(2u * e), tw(3u * e));
}

// Two radix-4 Stockham stages (sub-lengths ns, then 4ns) in registers, for the 16 points
// x[m] = line[j + m*n/16] (j < n/16, jm = j mod ns). Stage 1's butterflies j + s*n/16 (s < 4)
// take x[s + 4r], r < 4, all with twiddles w1^(r*jm), and leave output r at exactly where
// stage 2's butterfly (j/ns)*4ns + jm + r*ns takes its input s; that butterfly's twiddles are
// w2^(s*(jm + r*ns)) and its output t goes to (j/ns)*16ns + jm + (r + 4t)*ns: slot r + 4t of
// the result. Same operations, in the same order, as the two stages one at a time (cpu_fft).
fn radix16(x: array<vec2<f32>, 16>, jm: u32, ns: u32) -> array<vec2<f32>, 16> {
    let l = log2_of(ns);
    let e1 = jm * (fp.n >> (l + 2u));
    let w1 = tw(e1);
    let w2 = tw(2u * e1);
    let w3 = tw(3u * e1);
    let y0 = bfly4(x[0], x[4], x[8], x[12], w1, w2, w3);
    let y1 = bfly4(x[1], x[5], x[9], x[13], w1, w2, w3);
    let y2 = bfly4(x[2], x[6], x[10], x[14], w1, w2, w3);
    let y3 = bfly4(x[3], x[7], x[11], x[15], w1, w2, w3);
    // (jm + r*ns) * n/(16ns) = e2 + r*n/16.
    let e2 = jm * (fp.n >> (l + 4u));
    let q = fp.n >> 4u;
    let z0 = bfly4_at(y0[0], y1[0], y2[0], y3[0], e2);
    let z1 = bfly4_at(y0[1], y1[1], y2[1], y3[1], e2 + q);
    let z2 = bfly4_at(y0[2], y1[2], y2[2], y3[2], e2 + 2u * q);
    let z3 = bfly4_at(y0[3], y1[3], y2[3], y3[3], e2 + 3u * q);
    return array<vec2<f32>, 16>(
        z0[0], z1[0], z2[0], z3[0],
        z0[1], z1[1], z2[1], z3[1],
        z0[2], z1[2], z2[2], z3[2],
        z0[3], z1[3], z2[3], z3[3],
    );
}

// As radix16 for a radix-4 stage then a radix-2 one (sub-lengths ns, 4ns): x[m] =
// line[j + m*n/8], stage 1 on x[s + 2r], stage 2's butterfly r on its outputs r, output t
// in slot r + 4t (at (j/ns)*8ns + jm + (r + 4t)*ns).
fn radix8(x: array<vec2<f32>, 8>, jm: u32, ns: u32) -> array<vec2<f32>, 8> {
    let l = log2_of(ns);
    let e1 = jm * (fp.n >> (l + 2u));
    let w1 = tw(e1);
    let w2 = tw(2u * e1);
    let w3 = tw(3u * e1);
    let y0 = bfly4(x[0], x[2], x[4], x[6], w1, w2, w3);
    let y1 = bfly4(x[1], x[3], x[5], x[7], w1, w2, w3);
    let e2 = jm * (fp.n >> (l + 3u));
    let q = fp.n >> 3u;
    let b0 = cmul(y1[0], tw(e2));
    let b1 = cmul(y1[1], tw(e2 + q));
    let b2 = cmul(y1[2], tw(e2 + 2u * q));
    let b3 = cmul(y1[3], tw(e2 + 3u * q));
    return array<vec2<f32>, 8>(
        y0[0] + b0, y0[1] + b1, y0[2] + b2, y0[3] + b3,
        y0[0] - b0, y0[1] - b1, y0[2] - b2, y0[3] - b3,
    );
}

// Input r of butterfly j times its twiddle w^(r*(j mod ns)), w = e^(-2 pi i / (ns*radix)); the
// table's stride for that w is n / (ns*radix).
fn twiddled(v: vec2<f32>, r: u32, j: u32, ns: u32, stride: u32) -> vec2<f32> {
    if r == 0u {
        return v;
    }
    return cmul(v, tw(r * (j & (ns - 1u)) * stride));
}

// Where butterfly j's output 0 goes (Stockham's expand(j, ns, radix)).
fn fft_dest(j: u32, ns: u32, radix: u32) -> u32 {
    return (j & ~(ns - 1u)) * radix + (j & (ns - 1u));
}

// Global index of the block's point e (e in the block's own order: outer, n, inner).
fn block_offset(e: u32) -> u32 {
    let bi = fp.block_inner;
    return (e >> log2_of(bi)) * fp.inner + (e & (bi - 1u));
}

// Workgroup-memory slot of block index i: the low 4 bits XORed with the next 4, so that
// 16 threads writing 16 apart (the first pass's outputs of a row) hit 16 different banks,
// while 16 consecutive indices stay 16 different slots of their own aligned 16.
fn sw(i: u32) -> u32 {
    return i ^ ((i >> 4u) & 15u);
}

fn sh(i: u32) -> vec2<f32> {
    return f_shared[sw(i)];
}

fn load16_shared(at: u32, step: u32) -> array<vec2<f32>, 16> {
    return array<vec2<f32>, 16>(
        sh(at), sh(at + step), sh(at + 2u * step), sh(at + 3u * step),
        sh(at + 4u * step), sh(at + 5u * step), sh(at + 6u * step), sh(at + 7u * step),
        sh(at + 8u * step), sh(at + 9u * step), sh(at + 10u * step), sh(at + 11u * step),
        sh(at + 12u * step), sh(at + 13u * step), sh(at + 14u * step), sh(at + 15u * step),
    );
}

fn store16_shared(at: u32, step: u32, v: array<vec2<f32>, 16>) {
    f_shared[sw(at)] = v[0];
    f_shared[sw(at + step)] = v[1];
    f_shared[sw(at + 2u * step)] = v[2];
    f_shared[sw(at + 3u * step)] = v[3];
    f_shared[sw(at + 4u * step)] = v[4];
    f_shared[sw(at + 5u * step)] = v[5];
    f_shared[sw(at + 6u * step)] = v[6];
    f_shared[sw(at + 7u * step)] = v[7];
    f_shared[sw(at + 8u * step)] = v[8];
    f_shared[sw(at + 9u * step)] = v[9];
    f_shared[sw(at + 10u * step)] = v[10];
    f_shared[sw(at + 11u * step)] = v[11];
    f_shared[sw(at + 12u * step)] = v[12];
    f_shared[sw(at + 13u * step)] = v[13];
    f_shared[sw(at + 14u * step)] = v[14];
    f_shared[sw(at + 15u * step)] = v[15];
}

fn load16_global(at: u32, step: u32) -> array<vec2<f32>, 16> {
    return array<vec2<f32>, 16>(
        f_a[at], f_a[at + step], f_a[at + 2u * step], f_a[at + 3u * step],
        f_a[at + 4u * step], f_a[at + 5u * step], f_a[at + 6u * step], f_a[at + 7u * step],
        f_a[at + 8u * step], f_a[at + 9u * step], f_a[at + 10u * step], f_a[at + 11u * step],
        f_a[at + 12u * step], f_a[at + 13u * step], f_a[at + 14u * step], f_a[at + 15u * step],
    );
}

fn store16_global(at: u32, step: u32, v: array<vec2<f32>, 16>) {
    f_a[at] = v[0];
    f_a[at + step] = v[1];
    f_a[at + 2u * step] = v[2];
    f_a[at + 3u * step] = v[3];
    f_a[at + 4u * step] = v[4];
    f_a[at + 5u * step] = v[5];
    f_a[at + 6u * step] = v[6];
    f_a[at + 7u * step] = v[7];
    f_a[at + 8u * step] = v[8];
    f_a[at + 9u * step] = v[9];
    f_a[at + 10u * step] = v[10];
    f_a[at + 11u * step] = v[11];
    f_a[at + 12u * step] = v[12];
    f_a[at + 13u * step] = v[13];
    f_a[at + 14u * step] = v[14];
    f_a[at + 15u * step] = v[15];
}

// Group g of a pass whose groups are `part` per line: its index j in the line, and the
// workgroup-memory (before `sw`) and global indices of its line's point 0 (point p: plus
// p*block_inner, p*inner). Consecutive g run along the block's inner lines first, then j,
// so that consecutive threads touch consecutive addresses.
struct Group {
    j: u32,
    s: u32,
    g: u32,
}

fn group(g: u32, part: u32, base: u32) -> Group {
    let bi = fp.block_inner;
    let ic = g & (bi - 1u);
    let t = g >> log2_of(bi);
    let co = t >> log2_of(part);
    return Group(t & (part - 1u), co * fp.n * bi + ic, base + co * fp.n * fp.inner + ic);
}

// The last pass (radix 16, 8, 4 or 2, ns = n / radix) from workgroup memory to global memory.
// Its groups' outputs land on the very points they read (j + k*n/radix), so each group writes
// its own points back. A thread takes 16 / radix groups, FFT_WG apart.
fn last_pass(lid: u32, points: u32, base: u32, radix: u32) {
    let part = fp.n / radix;
    let bi = fp.block_inner;
    for (var k = 0u; k < 16u / radix; k++) {
        let gi = k * FFT_WG + lid;
        if gi < points / radix {
            let gr = group(gi, part, base);
            let s = gr.s + gr.j * bi;
            let ss = part * bi;
            let g = gr.g + gr.j * fp.inner;
            let gs = part * fp.inner;
            if radix == 16u {
                store16_global(g, gs, radix16(load16_shared(s, ss), gr.j, part));
            } else if radix == 8u {
                let x = array<vec2<f32>, 8>(
                    sh(s), sh(s + ss), sh(s + 2u * ss), sh(s + 3u * ss),
                    sh(s + 4u * ss), sh(s + 5u * ss), sh(s + 6u * ss), sh(s + 7u * ss),
                );
                let y = radix8(x, gr.j, part);
                f_a[g] = y[0];
                f_a[g + gs] = y[1];
                f_a[g + 2u * gs] = y[2];
                f_a[g + 3u * gs] = y[3];
                f_a[g + 4u * gs] = y[4];
                f_a[g + 5u * gs] = y[5];
                f_a[g + 6u * gs] = y[6];
                f_a[g + 7u * gs] = y[7];
            } else if radix == 4u {
                let y = bfly4_at(sh(s), sh(s + ss), sh(s + 2u * ss), sh(s + 3u * ss), gr.j);
                f_a[g] = y[0];
                f_a[g + gs] = y[1];
                f_a[g + 2u * gs] = y[2];
                f_a[g + 3u * gs] = y[3];
            } else {
                let x0 = sh(s);
                let x1 = cmul(sh(s + ss), tw(gr.j));
                f_a[g] = x0 + x1;
                f_a[g + gs] = x0 - x1;
            }
        }
    }
}

@compute @workgroup_size(FFT_WG)
fn fft_shared(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let k = wid.x + wid.y * fp.groups_x;
    // An idle workgroup still meets every barrier, with no points.
    let points = select(0u, fp.block_outer * fp.n * fp.block_inner, k < fp.items);
    let across = fp.inner >> log2_of(fp.block_inner);
    let base = (k >> log2_of(across)) * fp.block_outer * fp.n * fp.inner
        + (k & (across - 1u)) * fp.block_inner;
    // Pairs of radix-4 stages as radix-16 passes, then what is left (radix 8, 4 or 2) as the
    // last pass, or the last radix-16 pass if nothing is.
    let sixteens = log2_of(fp.n) / 4u;
    let rest = fp.n >> (4u * sixteens);
    let passes = sixteens + select(0u, 1u, rest > 1u);
    let last = select(16u, rest, rest > 1u);
    let bi = fp.block_inner;
    let q = fp.n >> 4u;
    if passes == 1u {
        // n <= 16: the block into workgroup memory, then its single pass.
        for (var e = lid; e < points; e += FFT_WG) {
            f_shared[sw(e)] = f_a[base + block_offset(e)];
        }
        workgroupBarrier();
    } else {
        // The first radix-16 pass (ns = 1) straight from global memory: thread lid takes
        // group lid (points / 16 <= FFT_WG), 16 points n/16 apart, and writes its outputs
        // 16*j + k (k < 16) to workgroup memory.
        let gr = group(lid, q, base);
        let busy = lid < points / 16u;
        if busy {
            let x = load16_global(gr.g + gr.j * fp.inner, q * fp.inner);
            store16_shared(gr.s + 16u * gr.j * bi, bi, radix16(x, 0u, 1u));
        }
        workgroupBarrier();
        // Middle radix-16 passes: read all, barrier, write all, barrier.
        var ns = 16u;
        for (var p = 2u; p < passes; p++) {
            var y: array<vec2<f32>, 16>;
            let jm = gr.j & (ns - 1u);
            if busy {
                y = radix16(load16_shared(gr.s + gr.j * bi, q * bi), jm, ns);
            }
            workgroupBarrier();
            if busy {
                let d = (gr.j >> log2_of(ns)) * 16u * ns + jm;
                store16_shared(gr.s + d * bi, ns * bi, y);
            }
            workgroupBarrier();
            ns *= 16u;
        }
    }
    last_pass(lid, points, base, last);
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
