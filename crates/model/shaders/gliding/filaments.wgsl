//!include common/step.wgsl
//!include common/dispatch.wgsl
//!include gliding/clock_state.wgsl
// The filament density transport's passes (crates/model/src/gliding/filaments.rs): advection
// (finite volumes, minmod-limited upwind faces, AB2), then Crank-Nicolson diffusion (spectral in
// x, y between the FFTs, a periodic tridiagonal solve in theta per mode), over the step dt_n of
// the clock (AB2 with variable steps: its ratio r = dt_n / dt_(n-1)). Fields are (theta, y,
// x), x fastest; velocity is (component, theta, y, x) with components Ux, Uy, Omega. Every pass
// is per cell or per mode, with no shared state, so the bits do not depend on the workgroup
// size. CPU reference: filaments_cpu.rs (same operations in the same order, in f64).

override WG: u32 = 64u;

struct FilamentParams {
    nx: u32,
    ny: u32,
    ntheta: u32,
    modes: u32,
    _pad3: u32,
    inv_dx: f32,
    inv_dy: f32,
    inv_dtheta: f32,
    // D_t / 2 and D_r / (2 dtheta^2): the CN weights per unit dt.
    cn_x: f32,
    cn_theta: f32,
    // 2 pi / lx and 2 pi / ly.
    kx_unit: f32,
    ky_unit: f32,
    // 1 / (nx ny): the inverse FFT is unnormalized.
    inv_n: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(1) @binding(0) var<uniform> u: FilamentParams;
@group(1) @binding(1) var<storage, read> velocity: array<f32>;
@group(1) @binding(2) var<storage, read_write> psi: array<f32>;
// The last advective rate per cell, then one flag: 1 when it is valid for this dt (AB2), 0 for
// a forward Euler step.
@group(1) @binding(3) var<storage, read_write> rate: array<f32>;
// 2 ntheta planes: Psi, then the advective increment (and the CN right-hand side).
@group(1) @binding(4) var<storage, read_write> spec: array<vec2<f32>>;
// Per (theta, mode): (Thomas factor c', Sherman-Morrison vector z).
@group(1) @binding(5) var<storage, read_write> scratch: array<vec2<f32>>;
// The step's dt_n and dt_(n-1).
@group(1) @binding(6) var<storage, read> clock: Clock;

fn cells() -> u32 {
    return u.modes * u.ntheta;
}

fn dims() -> vec3<u32> {
    return vec3<u32>(u.nx, u.ny, u.ntheta);
}

fn at(c: vec3<u32>) -> u32 {
    return (c.z * u.ny + c.y) * u.nx + c.x;
}

// c moved by s - n along `axis` (periodic): s = n - 1 is one back, n + 1 one forward.
fn moved(c: vec3<u32>, axis: u32, s: u32) -> vec3<u32> {
    let n = dims()[axis];
    var d = c;
    d[axis] = (c[axis] + s) % n;
    return d;
}

fn minmod(a: f32, b: f32) -> f32 {
    if a * b <= 0.0 {
        return 0.0;
    }
    return select(b, a, abs(a) < abs(b));
}

// The flux through the face between cell c and the next one along `axis`: the face velocity
// (mean of the two cells') times the upwind cell's limited linear extrapolation to the face.
fn face_flux(c: vec3<u32>, axis: u32) -> f32 {
    let n = dims()[axis];
    let l = at(c);
    let r = at(moved(c, axis, 1u));
    let ll = at(moved(c, axis, n - 1u));
    let rr = at(moved(c, axis, 2u));
    let off = axis * cells();
    let vel = 0.5 * (velocity[off + l] + velocity[off + r]);
    let pl = psi[l];
    let pr = psi[r];
    if vel >= 0.0 {
        return vel * (pl + 0.5 * minmod(pl - psi[ll], pr - pl));
    }
    return vel * (pr - 0.5 * minmod(pr - pl, psi[rr] - pr));
}

// -div(U Psi) - d_theta(Omega Psi) at cell c.
fn advection_rate(c: vec3<u32>) -> f32 {
    let inv_h = vec3<f32>(u.inv_dx, u.inv_dy, u.inv_dtheta);
    var r = 0.0;
    for (var axis = 0u; axis < 3u; axis++) {
        let n = dims()[axis];
        let back = moved(c, axis, n - 1u);
        r -= (face_flux(c, axis) - face_flux(back, axis)) * inv_h[axis];
    }
    return r;
}

fn cell_of(i: u32) -> vec3<u32> {
    return vec3<u32>(i % u.nx, (i / u.nx) % u.ny, i / u.modes);
}

@compute @workgroup_size(WG)
fn advect(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = dispatch_index(gid, groups, WG);
    let n = cells();
    if i >= n {
        return;
    }
    let a = advection_rate(cell_of(i));
    let ab2 = rate[n] > 0.5;
    // Variable-step AB2: dt_n ((1 + r/2) A^n - (r/2) A^(n-1)), r = dt_n / dt_(n-1).
    let half_r = select(0.0, 0.5 * clock.dt / clock.dt_prev, ab2);
    let inc = clock.dt * select(a, (1.0 + half_r) * a - half_r * rate[i], ab2);
    rate[i] = a;
    spec[i] = vec2<f32>(psi[i], 0.0);
    spec[n + i] = vec2<f32>(inc, 0.0);
}

fn wavenumber(m: u32, n: u32, unit: f32) -> f32 {
    return unit * select(f32(m), f32(m) - f32(n), m > n / 2u);
}

// Per (kx, ky) mode: (1 + b - a d2) Psi' = (1 - b + a d2) Psi + increment, with b = dt cn_x k^2,
// a = dt cn_theta and d2 the periodic second difference in theta; the cyclic tridiagonal system
// by Sherman-Morrison (Numerical Recipes' cyclic): two Thomas solves sharing one factorization.
@compute @workgroup_size(WG)
fn diffuse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let m = dispatch_index(gid, groups, WG);
    if m >= u.modes {
        return;
    }
    let n = cells();
    let nt = u.ntheta;
    let stride = u.modes;
    let kx = wavenumber(m % u.nx, u.nx, u.kx_unit);
    let ky = wavenumber(m / u.nx, u.ny, u.ky_unit);
    let b = clock.dt * u.cn_x * (kx * kx + ky * ky);
    let a = clock.dt * u.cn_theta;
    // Right-hand side into the second half.
    for (var k = 0u; k < nt; k++) {
        let p = spec[k * stride + m];
        let pb = spec[((k + nt - 1u) % nt) * stride + m];
        let pf = spec[((k + 1u) % nt) * stride + m];
        spec[n + k * stride + m] += (1.0 - b - 2.0 * a) * p + a * (pb + pf);
    }
    let diag = 1.0 + b + 2.0 * a;
    let off = -a;
    let gamma = -diag;
    var c_prev = 0.0;
    var x_prev = vec2<f32>(0.0);
    var z_prev = 0.0;
    for (var k = 0u; k < nt; k++) {
        var bb = diag;
        var uk = 0.0;
        if k == 0u {
            bb = diag - gamma;
            uk = gamma;
        }
        if k == nt - 1u {
            bb = diag - off * off / gamma;
            uk = off;
        }
        let inv = 1.0 / (bb - off * c_prev);
        let c = off * inv;
        let x = (spec[n + k * stride + m] - off * x_prev) * inv;
        let z = (uk - off * z_prev) * inv;
        scratch[k * stride + m] = vec2<f32>(c, z);
        spec[n + k * stride + m] = x;
        c_prev = c;
        x_prev = x;
        z_prev = z;
    }
    let x_last = x_prev;
    let z_last = z_prev;
    var x = x_prev;
    var z = z_prev;
    for (var k = i32(nt) - 2; k >= 0; k--) {
        let j = u32(k) * stride + m;
        let s = scratch[j];
        x = spec[n + j] - s.x * x;
        z = s.y - s.x * z;
        spec[n + j] = x;
        scratch[j] = vec2<f32>(s.x, z);
    }
    let fact = (x + off * x_last / gamma) / (1.0 + z + off * z_last / gamma);
    for (var k = 0u; k < nt; k++) {
        let j = k * stride + m;
        spec[j] = (spec[n + j] - fact * scratch[j].y) * u.inv_n;
    }
}

@compute @workgroup_size(WG)
fn store(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = dispatch_index(gid, groups, WG);
    let n = cells();
    if i >= n {
        return;
    }
    psi[i] = spec[i].x;
    if i == 0u {
        rate[n] = 1.0;
    }
}
