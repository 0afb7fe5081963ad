//!include common/step.wgsl
//!include common/dispatch.wgsl
// The coupling of filaments, motors and fluid (crates/model/src/gliding/coupling.rs): the
// moments of Psi, the force on the fluid (motor force and stress divergences on the filament
// level), and the filament velocities from the fluid and the moments, with the largest Courant
// rate. Every pass is per cell; the Courant maximum is an atomic max of non-negative f32 bits
// (their order is the floats' order, and a max does not depend on the order it is taken in), so
// the bits do not depend on the workgroup size. CPU reference: coupling_cpu.rs.

override WG: u32 = 64u;

struct CouplingParams {
    nx: u32,
    ny: u32,
    ntheta: u32,
    nz: u32,
    // The filament level z0.
    level: u32,
    // The filaments' intrinsic turning rate (params.rs FilamentParams::turn_rate).
    turn_rate: f32,
    _pad1: u32,
    _pad2: u32,
    dtheta: f32,
    // 1 / (2 dx), 1 / (2 dy): central differences.
    inv_2dx: f32,
    inv_2dy: f32,
    // 1 / the filament level's width: sheet force per area to force per volume.
    inv_sheet: f32,
    v_sp: f32,
    u_t: f32,
    u_r: f32,
    sigma_f: f32,
    sigma_t: f32,
    inv_dx: f32,
    inv_dy: f32,
    inv_dtheta: f32,
}

@group(1) @binding(0) var<uniform> u: CouplingParams;
@group(1) @binding(1) var<storage, read> psi: array<f32>;
// Per cell two vec4: (c, mx, my, 0), (Dxx, Dxy, Dyy, 0).
@group(1) @binding(2) var<storage, read_write> moments: array<vec4<f32>>;
// The motor force per cell (motors.rs FORCE).
@group(1) @binding(3) var<storage, read> motor_force: array<vec2<f32>>;
// The Stokes solver's force and velocity (3, nz, ny, nx).
@group(1) @binding(4) var<storage, read_write> fluid_force: array<f32>;
@group(1) @binding(5) var<storage, read> fluid: array<f32>;
// The filaments' velocities (3, ntheta, ny, nx): Ux, Uy, Omega.
@group(1) @binding(6) var<storage, read_write> velocity: array<f32>;
// [0]: the largest Courant rate since the host last cleared it (f32 bits).
@group(1) @binding(7) var<storage, read_write> stats: array<atomic<u32>>;

fn cells() -> u32 {
    return u.nx * u.ny;
}

fn cell_at(i: u32, j: u32) -> u32 {
    return j * u.nx + i;
}

// The four neighbours' cells (x+1, x-1, y+1, y-1), periodic.
fn neighbours(cell: u32) -> vec4<u32> {
    let i = cell % u.nx;
    let j = cell / u.nx;
    return vec4<u32>(
        cell_at((i + 1u) % u.nx, j),
        cell_at((i + u.nx - 1u) % u.nx, j),
        cell_at(i, (j + 1u) % u.ny),
        cell_at(i, (j + u.ny - 1u) % u.ny),
    );
}

@compute @workgroup_size(WG)
fn moments_of_psi(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let cell = dispatch_index(gid, groups, WG);
    if cell >= cells() {
        return;
    }
    var first = vec4<f32>(0.0);
    var second = vec4<f32>(0.0);
    for (var k = 0u; k < u.ntheta; k++) {
        let th = f32(k) * u.dtheta;
        let c = cos(th);
        let s = sin(th);
        let w = psi[k * cells() + cell] * u.dtheta;
        first += vec4<f32>(w, c * w, s * w, 0.0);
        second += vec4<f32>(c * c * w, c * s * w, s * s * w, 0.0);
    }
    moments[2u * cell] = first;
    moments[2u * cell + 1u] = second;
}

fn second_moment(cell: u32) -> vec3<f32> {
    return moments[2u * cell + 1u].xyz;
}

// D.D for a symmetric D = (xx, xy, yy).
fn squared(d: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(d.x * d.x + d.y * d.y, d.y * (d.x + d.z), d.y * d.y + d.z * d.z);
}

// div T of a symmetric T = (xx, xy, yy) from its neighbours' values.
fn divergence(xp: vec3<f32>, xm: vec3<f32>, yp: vec3<f32>, ym: vec3<f32>) -> vec2<f32> {
    let dx = (xp - xm) * u.inv_2dx;
    let dy = (yp - ym) * u.inv_2dy;
    return vec2<f32>(dx.x + dy.y, dx.y + dy.z);
}

@compute @workgroup_size(WG)
fn force_on_fluid(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let cell = dispatch_index(gid, groups, WG);
    if cell >= cells() {
        return;
    }
    let nb = neighbours(cell);
    let d = array<vec3<f32>, 4>(
        second_moment(nb.x), second_moment(nb.y), second_moment(nb.z), second_moment(nb.w)
    );
    let div_d = divergence(d[0], d[1], d[2], d[3]);
    let div_dd = divergence(squared(d[0]), squared(d[1]), squared(d[2]), squared(d[3]));
    let total = motor_force[cell] + u.sigma_f * div_d - u.sigma_t * div_dd;
    let n = cells();
    fluid_force[u.level * n + cell] = total.x * u.inv_sheet;
    fluid_force[(u.nz + u.level) * n + cell] = total.y * u.inv_sheet;
}

@compute @workgroup_size(WG)
fn filament_velocities(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let idx = dispatch_index(gid, groups, WG);
    let n = cells();
    let total = n * u.ntheta;
    if idx >= total {
        return;
    }
    let cell = idx % n;
    let k = idx / n;
    let nb = neighbours(cell);
    let plane = u.level * n;
    let vplane = (u.nz + u.level) * n;
    // Gradients of u and v: (d/dx, d/dy).
    let du = vec2<f32>(
        (fluid[plane + nb.x] - fluid[plane + nb.y]) * u.inv_2dx,
        (fluid[plane + nb.z] - fluid[plane + nb.w]) * u.inv_2dy,
    );
    let dv = vec2<f32>(
        (fluid[vplane + nb.x] - fluid[vplane + nb.y]) * u.inv_2dx,
        (fluid[vplane + nb.z] - fluid[vplane + nb.w]) * u.inv_2dy,
    );
    // Gradients of Dxx, Dxy, Dyy along x and y.
    let gx = (second_moment(nb.x) - second_moment(nb.y)) * u.inv_2dx;
    let gy = (second_moment(nb.z) - second_moment(nb.w)) * u.inv_2dy;
    let d = second_moment(cell);
    let th = f32(k) * u.dtheta;
    let c = cos(th);
    let s = sin(th);
    let steric = vec2<f32>(
        c * c * gx.x + 2.0 * c * s * gx.y + s * s * gx.z,
        c * c * gy.x + 2.0 * c * s * gy.y + s * s * gy.z,
    );
    let ux = -u.v_sp * c + fluid[plane + cell] + u.u_t * steric.x;
    let uy = -u.v_sp * s + fluid[vplane + cell] + u.u_t * steric.y;
    let gp = vec2<f32>(du.x * c + du.y * s, dv.x * c + dv.y * s);
    let jeffery = -s * gp.x + c * gp.y;
    let align = (d.z - d.x) * s * c + d.y * (c * c - s * s);
    let omega = jeffery + u.u_r * align + u.turn_rate;
    velocity[idx] = ux;
    velocity[total + idx] = uy;
    velocity[2u * total + idx] = omega;
    let rate = abs(ux) * u.inv_dx + abs(uy) * u.inv_dy + abs(omega) * u.inv_dtheta;
    // NaN would compare as nothing: make it the largest, so the host sees it.
    let bits = select(bitcast<u32>(rate), 0x7f800000u, rate != rate);
    atomicMax(&stats[0], bits);
}
