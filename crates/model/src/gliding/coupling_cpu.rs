//! The coupling of filaments, motors and fluid (seed eqs. 2, 3 and 7) on the CPU, in f64: the
//! reference of `shaders/gliding/coupling.wgsl` (same operations in the same order).
//!
//! - Moments of Psi per cell: c = sum Psi dtheta, m = sum p Psi dtheta and the second moment
//!   D = sum p p Psi dtheta (the seed's D_2,z0, a 2 x 2 symmetric tensor).
//! - Filament velocities (seed eqs. 2-3 without -D grad ln Psi, which the transport adds as
//!   diffusion): x' = -V_sp p + u + U_t grad(p.D.p), theta' = p_perp.(grad u) p + U_r p_perp.D.p,
//!   with u the fluid velocity at the filament level z0, p = (cos theta, sin theta),
//!   p_perp = (-sin theta, cos theta); U_t p p : grad D = U_t grad(p.D.p) at fixed p, and
//!   D : p_perp p = p_perp.D.p (U_r > 0 turns filaments toward D's main axis: alignment).
//! - The force on the fluid (seed eq. 7's right-hand side) on the filament plane:
//!   F + sigma_f div D - sigma_t div(D.D), spread over the z level z0 as a sheet (divided by
//!   the level's width (z_{j+1} - z_{j-1}) / 2).
//!
//! Gradients and divergences by periodic central differences.

use super::fields::GlidingGrid;
use super::params::FilamentParams;

/// Values per cell of `moments`: c, mx, my, Dxx, Dxy, Dyy.
pub const MOMENTS: usize = 6;

/// (c, mx, my, Dxx, Dxy, Dyy) per cell (ny, nx) of Psi (ntheta, ny, nx).
pub fn moments(g: &GlidingGrid, psi: &[f64]) -> Vec<[f64; MOMENTS]> {
    let (cells, dth) = (g.cells(), g.dtheta());
    let mut out = vec![[0.0; MOMENTS]; cells];
    for (cell, o) in out.iter_mut().enumerate() {
        for k in 0..g.ntheta {
            let (s, c) = (k as f64 * dth).sin_cos();
            let w = psi[k * cells + cell] * dth;
            o[0] += w;
            o[1] += c * w;
            o[2] += s * w;
            o[3] += c * c * w;
            o[4] += c * s * w;
            o[5] += s * s * w;
        }
    }
    out
}

/// Periodic central differences of a per-cell quantity: (d/dx, d/dy) at cell (i, j).
fn central<F: Fn(usize) -> f64>(g: &GlidingGrid, i: usize, j: usize, f: F) -> [f64; 2] {
    let (nx, ny) = (g.nx, g.ny);
    let at = |ii: usize, jj: usize| f(jj * nx + ii);
    [
        (at((i + 1) % nx, j) - at((i + nx - 1) % nx, j)) / (2.0 * g.dx()),
        (at(i, (j + 1) % ny) - at(i, (j + ny - 1) % ny)) / (2.0 * g.dy()),
    ]
}

/// The filament velocities (3, ntheta, ny, nx): Ux, Uy, Omega, from the moments and the fluid
/// velocity `fluid` (u, v) at the filament level, (2, ny, nx).
pub fn filament_velocities(
    g: &GlidingGrid,
    f: &FilamentParams,
    moments: &[[f64; MOMENTS]],
    fluid: &[f64],
) -> Vec<f64> {
    let (cells, nx) = (g.cells(), g.nx);
    let n = cells * g.ntheta;
    let mut out = vec![0.0; 3 * n];
    for j in 0..g.ny {
        for i in 0..nx {
            let cell = j * nx + i;
            let du = central(g, i, j, |q| fluid[q]);
            let dv = central(g, i, j, |q| fluid[cells + q]);
            let dxx = central(g, i, j, |q| moments[q][3]);
            let dxy = central(g, i, j, |q| moments[q][4]);
            let dyy = central(g, i, j, |q| moments[q][5]);
            let [_, _, _, mxx, mxy, myy] = moments[cell];
            for k in 0..g.ntheta {
                let (s, c) = (k as f64 * g.dtheta()).sin_cos();
                let idx = k * cells + cell;
                // grad(p.D.p) at fixed p.
                let steric = [
                    c * c * dxx[0] + 2.0 * c * s * dxy[0] + s * s * dyy[0],
                    c * c * dxx[1] + 2.0 * c * s * dxy[1] + s * s * dyy[1],
                ];
                out[idx] = -f.v_sp * c + fluid[cell] + f.u_t * steric[0];
                out[n + idx] = -f.v_sp * s + fluid[cells + cell] + f.u_t * steric[1];
                // (grad u) p, then p_perp . it; p_perp . D p.
                let gp = [du[0] * c + du[1] * s, dv[0] * c + dv[1] * s];
                let jeffery = -s * gp[0] + c * gp[1];
                let align = (myy - mxx) * s * c + mxy * (c * c - s * s);
                out[2 * n + idx] = jeffery + f.u_r * align + f.turn_rate;
            }
        }
    }
    out
}

/// The largest Courant rate |Ux|/dx + |Uy|/dy + |Omega|/dtheta over the cells of `velocity`
/// (3, ntheta, ny, nx): AB2 with the limited upwind faces needs dt times it <= 0.25.
pub fn courant_rate(g: &GlidingGrid, velocity: &[f64]) -> f64 {
    let n = g.cells() * g.ntheta;
    (0..n)
        .map(|i| {
            velocity[i].abs() / g.dx()
                + velocity[n + i].abs() / g.dy()
                + velocity[2 * n + i].abs() / g.dtheta()
        })
        .fold(0.0, f64::max)
}

/// The width of level j's control volume, (z_{j+1} - z_{j-1}) / 2: a sheet force per area on
/// level j is this force per volume divided by it.
pub fn sheet_width(z: &[f64], j: usize) -> f64 {
    0.5 * (z[j + 1] - z[j - 1])
}

/// The body force on the fluid (3, nz, ny, nx): the motor force `motor_force` (ny, nx) and the
/// stress divergences on the filament level, zero elsewhere.
pub fn fluid_force(
    g: &GlidingGrid,
    f: &FilamentParams,
    moments: &[[f64; MOMENTS]],
    motor_force: &[[f64; 2]],
) -> Vec<f64> {
    let (cells, nx, nz) = (g.cells(), g.nx, g.nz());
    let inv_h = 1.0 / sheet_width(&g.z, g.z0_level);
    let mut out = vec![0.0; 3 * nz * cells];
    // D.D for a symmetric D: [[xx^2 + xy^2, xy (xx + yy)], [., xy^2 + yy^2]].
    let dd = |q: usize, a: usize| -> f64 {
        let [_, _, _, xx, xy, yy] = moments[q];
        match a {
            0 => xx * xx + xy * xy,
            1 => xy * (xx + yy),
            _ => xy * xy + yy * yy,
        }
    };
    for j in 0..g.ny {
        for i in 0..nx {
            let cell = j * nx + i;
            // div T for a symmetric T (xx, xy, yy): (d_x T_xx + d_y T_xy, d_x T_xy + d_y T_yy).
            let div = |t: &dyn Fn(usize, usize) -> f64| -> [f64; 2] {
                let xx = central(g, i, j, |q| t(q, 0));
                let xy = central(g, i, j, |q| t(q, 1));
                let yy = central(g, i, j, |q| t(q, 2));
                [xx[0] + xy[1], xy[0] + yy[1]]
            };
            let div_d = div(&|q, a| moments[q][3 + a]);
            let div_dd = div(&dd);
            for a in 0..2 {
                let total = motor_force[cell][a] + f.sigma_f * div_d[a] - f.sigma_t * div_dd[a];
                out[(a * nz + g.z0_level) * cells + cell] = total * inv_h;
            }
        }
    }
    out
}
