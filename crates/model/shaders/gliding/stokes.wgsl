//!include common/step.wgsl
//!include common/dispatch.wgsl
// The Stokes solver's passes (crates/model/src/gliding/stokes.rs): the force into the spectrum
// buffer, the z problem of every Fourier mode (one thread per mode, no shared state, so the
// bits do not depend on the workgroup size), the velocity out of it. Arrays are (component,
// z, y, x), x fastest; the spectrum is complex (re, im). CPU reference: stokes_cpu.rs.

override WG: u32 = 64u;

struct StokesParams {
    nx: u32,
    ny: u32,
    nz: u32,
    modes: u32,
    mu: f32,
    // 1 / (nx ny): the inverse FFT is unnormalized.
    inv_n: f32,
    // 2 pi / lx and 2 pi / ly.
    kx_unit: f32,
    ky_unit: f32,
    // Wall slopes of a function vanishing at the wall (channel.rs, ZOperators):
    // f'(0) = bottom.x f_1 + bottom.y f_2 + bottom.z f_3, f'(1) likewise with top and
    // f_{nz-2}, f_{nz-3}, f_{nz-4}.
    bottom: vec4<f32>,
    top: vec4<f32>,
    // eps^2, eps the channel's aspect ratio: the viscous operator is mu (D2 / eps^2 - k^2).
    eps2: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

@group(1) @binding(0) var<uniform> u: StokesParams;
// Per level j: coef[2j] = (D2 lower, D2 upper, 0, 0), coef[2j+1] = D1's three weights.
@group(1) @binding(1) var<storage, read> coef: array<vec4<f32>>;
@group(1) @binding(2) var<storage, read> force: array<f32>;
@group(1) @binding(3) var<storage, read_write> spec: array<vec2<f32>>;
@group(1) @binding(4) var<storage, read_write> scratch: array<vec2<f32>>;
@group(1) @binding(5) var<storage, read_write> velocity: array<f32>;

// Scratch slots, each (nz, modes) so that neighbouring modes are neighbours in memory.
const PERP = 0u;
const PART = 1u;
const HOM_A = 2u;
const HOM_B = 3u;
// Thomas factors (c', 1 / pivot) per level of (D2 - eps^2 k^2) (the viscous operator) and of
// (D2 - k^2) (the pressure's, in the w problem).
const PIVOT_Z = 4u;
const PIVOT_K = 5u;

fn at(slot: u32, j: u32, m: u32) -> u32 {
    return (slot * u.nz + j) * u.modes + m;
}

fn times_i(z: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(-z.y, z.x);
}

fn wavenumber(m: u32, n: u32, unit: f32) -> f32 {
    return unit * select(f32(m), f32(m) - f32(n), m > n / 2u);
}

// D1 at interior level j of a scratch slot, and of w (spectrum component 2).
fn d1_slot(slot: u32, j: u32, m: u32) -> vec2<f32> {
    let c = coef[2u * j + 1u];
    return c.x * scratch[at(slot, j - 1u, m)] + c.y * scratch[at(slot, j, m)]
        + c.z * scratch[at(slot, j + 1u, m)];
}

fn d1_w(j: u32, m: u32) -> vec2<f32> {
    let c = coef[2u * j + 1u];
    return c.x * spec[at(2u, j - 1u, m)] + c.y * spec[at(2u, j, m)]
        + c.z * spec[at(2u, j + 1u, m)];
}

// The Thomas factors of (D2 - k2) into slot `pivot`.
fn factor(pivot: u32, m: u32, k2: f32) {
    var prev = 0.0;
    for (var j = 1u; j + 1u < u.nz; j++) {
        let c = coef[2u * j];
        let inv = 1.0 / (-(c.x + c.y) - k2 - c.x * prev);
        prev = c.y * inv;
        scratch[at(pivot, j, m)] = vec2<f32>(prev, inv);
    }
}

// Solves (D2 - k2) x = r at the interior levels in place (stokes_cpu.rs, tridiagonal), k2
// that of the factors in slot `pivot`: on entry the slot holds the wall values at j = 0 and
// nz - 1 and r between.
fn tridiagonal(slot: u32, pivot: u32, m: u32) {
    let last = u.nz - 2u;
    scratch[at(slot, 1u, m)] -= coef[2u].x * scratch[at(slot, 0u, m)];
    scratch[at(slot, last, m)] -= coef[2u * last].y * scratch[at(slot, last + 1u, m)];
    var x = vec2<f32>(0.0);
    for (var j = 1u; j <= last; j++) {
        x = (scratch[at(slot, j, m)] - coef[2u * j].x * x) * scratch[at(pivot, j, m)].y;
        scratch[at(slot, j, m)] = x;
    }
    for (var j = last - 1u; j >= 1u; j--) {
        x = scratch[at(slot, j, m)] - scratch[at(pivot, j, m)].x * x;
        scratch[at(slot, j, m)] = x;
    }
}

// psi from (D2 - eps^2 k^2) psi = r with its wall values, then w from (D2 - k^2) w = psi,
// w = 0 at the walls.
fn w_of_psi(slot: u32, m: u32) {
    tridiagonal(slot, PIVOT_Z, m);
    scratch[at(slot, 0u, m)] = vec2<f32>(0.0);
    scratch[at(slot, u.nz - 1u, m)] = vec2<f32>(0.0);
    tridiagonal(slot, PIVOT_K, m);
}

// Wall slopes (bottom, top) of slot `slot`.
fn slopes(slot: u32, m: u32) -> array<vec2<f32>, 2> {
    let n = u.nz;
    return array<vec2<f32>, 2>(
        u.bottom.x * scratch[at(slot, 1u, m)] + u.bottom.y * scratch[at(slot, 2u, m)]
            + u.bottom.z * scratch[at(slot, 3u, m)],
        u.top.x * scratch[at(slot, n - 2u, m)] + u.top.y * scratch[at(slot, n - 3u, m)]
            + u.top.z * scratch[at(slot, n - 4u, m)],
    );
}

@compute @workgroup_size(WG)
fn load_force(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = dispatch_index(gid, groups, WG);
    if i >= 3u * u.nz * u.modes {
        return;
    }
    spec[i] = vec2<f32>(force[i] * u.inv_n, 0.0);
}

@compute @workgroup_size(WG)
fn store_velocity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = dispatch_index(gid, groups, WG);
    if i >= 3u * u.nz * u.modes {
        return;
    }
    velocity[i] = spec[i].x;
}

@compute @workgroup_size(WG)
fn solve(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let m = dispatch_index(gid, groups, WG);
    if m >= u.modes {
        return;
    }
    let n = u.nz;
    let mx = m % u.nx;
    let my = m / u.nx;
    // Nyquist modes are dropped (channel.rs, wavenumbers).
    if (u.nx > 1u && mx == u.nx / 2u) || (u.ny > 1u && my == u.ny / 2u) {
        for (var i = 0u; i < 3u * n; i++) {
            spec[i * u.modes + m] = vec2<f32>(0.0);
        }
        return;
    }
    let kx = wavenumber(mx, u.nx, u.kx_unit);
    let ky = wavenumber(my, u.ny, u.ky_unit);
    let k2 = kx * kx + ky * ky;
    factor(PIVOT_Z, m, u.eps2 * k2);
    if k2 == 0.0 {
        // The mean flow: (mu / eps^2) D2 u = -f, no vertical mean velocity.
        for (var c = 0u; c < 2u; c++) {
            for (var j = 0u; j < n; j++) {
                let wall = j == 0u || j == n - 1u;
                let r = -spec[at(c, j, m)] * u.eps2 / u.mu;
                scratch[at(PERP, j, m)] = select(r, vec2<f32>(0.0), wall);
            }
            tridiagonal(PERP, PIVOT_Z, m);
            for (var j = 0u; j < n; j++) {
                spec[at(c, j, m)] = scratch[at(PERP, j, m)];
            }
        }
        for (var j = 0u; j < n; j++) {
            spec[at(2u, j, m)] = vec2<f32>(0.0);
        }
        return;
    }
    factor(PIVOT_K, m, k2);
    let kk = sqrt(k2);
    let ex = kx / kk;
    let ey = ky / kk;
    // The force along k (kept in HOM_A until the homogeneous solutions need it) and across k.
    for (var j = 0u; j < n; j++) {
        let fx = spec[at(0u, j, m)];
        let fy = spec[at(1u, j, m)];
        let wall = j == 0u || j == n - 1u;
        scratch[at(HOM_A, j, m)] = ex * fx + ey * fy;
        let r = -(ex * fy - ey * fx) * u.eps2 / u.mu;
        scratch[at(PERP, j, m)] = select(r, vec2<f32>(0.0), wall);
    }
    // (mu / eps^2) (D2 - eps^2 k^2) (D2 - k^2) w = k^2 f_z + i |k| D1 f_par, as
    // (D2 - eps^2 k^2) psi = eps^2 rhs / mu and (D2 - k^2) w = psi.
    for (var j = 0u; j < n; j++) {
        var rhs = vec2<f32>(0.0);
        if j > 0u && j < n - 1u {
            let f = k2 * spec[at(2u, j, m)] + kk * times_i(d1_slot(HOM_A, j, m));
            rhs = f * u.eps2 / u.mu;
        }
        scratch[at(PART, j, m)] = rhs;
    }
    tridiagonal(PERP, PIVOT_Z, m);
    w_of_psi(PART, m);
    // The homogeneous solutions: psi = 1 at one wall, 0 at the other, no right-hand side.
    for (var j = 0u; j < n; j++) {
        scratch[at(HOM_A, j, m)] = vec2<f32>(select(0.0, 1.0, j == 0u), 0.0);
        scratch[at(HOM_B, j, m)] = vec2<f32>(select(0.0, 1.0, j == n - 1u), 0.0);
    }
    w_of_psi(HOM_A, m);
    w_of_psi(HOM_B, m);
    // psi's wall values (a, b) that make dw/dz vanish at both walls (influence matrix; the
    // homogeneous slopes are real).
    let sp = slopes(PART, m);
    let sa = slopes(HOM_A, m);
    let sb = slopes(HOM_B, m);
    let det = sa[0].x * sb[1].x - sb[0].x * sa[1].x;
    let a = (sp[1] * sb[0].x - sp[0] * sb[1].x) / det;
    let b = (sp[0] * sa[1].x - sp[1] * sa[0].x) / det;
    for (var j = 0u; j < n; j++) {
        // The homogeneous solutions are real: scale by their .x (a * vec2 would be per lane).
        spec[at(2u, j, m)] = scratch[at(PART, j, m)] + a * scratch[at(HOM_A, j, m)].x
            + b * scratch[at(HOM_B, j, m)].x;
    }
    // Continuity, i |k| u_par + D1 w = 0, exactly at every interior level.
    for (var j = 0u; j < n; j++) {
        var uv = vec4<f32>(0.0);
        if j > 0u && j < n - 1u {
            let par = times_i(d1_w(j, m)) / kk;
            let perp = scratch[at(PERP, j, m)];
            uv = vec4<f32>(ex * par - ey * perp, ey * par + ex * perp);
        }
        spec[at(0u, j, m)] = uv.xy;
        spec[at(1u, j, m)] = uv.zw;
    }
}
