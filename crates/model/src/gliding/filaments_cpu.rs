//! The CPU reference of the filament density transport (`filaments.rs`), in f64: the same
//! finite-volume advection (minmod-limited upwind faces, AB2), the same Crank-Nicolson
//! diffusion (a plain DFT in x and y, tiny grids only, and the same cyclic tridiagonal solve in
//! theta). Also `gliding_velocities`, the simplest physical U and Omega (seed eqs. 2-3).
//! Arrays are (theta, y, x), x fastest; velocities (3, theta, y, x): Ux, Uy, Omega.

use super::filaments::FilamentConfig;
use super::stokes_cpu::{dft2, Complex};
use crate::error::{invalid, Result};

fn minmod(a: f64, b: f64) -> f64 {
    if a * b <= 0.0 {
        0.0
    } else if a.abs() < b.abs() {
        a
    } else {
        b
    }
}

/// The filament density and its stepper.
#[derive(Clone, Debug)]
pub struct FilamentsCpu {
    pub config: FilamentConfig,
    /// Psi (ntheta, ny, nx).
    pub psi: Vec<f64>,
    velocity: Vec<f64>,
    bound: f64,
    /// The last step's dt and advective rate (AB2's history).
    history: Option<(f64, Vec<f64>)>,
}

impl FilamentsCpu {
    /// Zero velocities; `psi` (ntheta, ny, nx).
    pub fn new(config: &FilamentConfig, psi: Vec<f64>) -> Result<Self> {
        config.check()?;
        config.check_len("psi", psi.len(), 1)?;
        Ok(Self {
            config: config.clone(),
            psi,
            velocity: vec![0.0; 3 * config.cells()],
            bound: f64::INFINITY,
            history: None,
        })
    }

    /// Sets the velocities (3, ntheta, ny, nx) and the dt bound; keeps AB2's history.
    pub fn set_velocities(&mut self, velocity: &[f64]) -> Result<()> {
        self.config.check_len("velocity", velocity.len(), 3)?;
        if let Some(v) = velocity.iter().find(|v| !v.is_finite()) {
            return Err(invalid("velocity", v, "finite values"));
        }
        self.velocity = velocity.to_vec();
        self.bound = self.config.max_stable_dt_of(velocity);
        Ok(())
    }

    pub fn max_dt(&self) -> f64 {
        self.bound
    }

    /// Sets Psi and restarts AB2.
    pub fn set_psi(&mut self, psi: Vec<f64>) -> Result<()> {
        self.config.check_len("psi", psi.len(), 1)?;
        self.psi = psi;
        self.history = None;
        Ok(())
    }

    fn face_flux(&self, c: [usize; 3], axis: usize) -> f64 {
        let cfg = &self.config;
        let n = [cfg.nx, cfg.ny, cfg.ntheta][axis];
        let idx = |s: usize| {
            let mut d = c;
            d[axis] = (c[axis] + s) % n;
            cfg.index(d[0], d[1], d[2])
        };
        let (l, r, ll, rr) = (idx(0), idx(1), idx(n - 1), idx(2));
        let off = axis * cfg.cells();
        let vel = 0.5 * (self.velocity[off + l] + self.velocity[off + r]);
        let (pl, pr) = (self.psi[l], self.psi[r]);
        if vel >= 0.0 {
            vel * (pl + 0.5 * minmod(pl - self.psi[ll], pr - pl))
        } else {
            vel * (pr - 0.5 * minmod(pr - pl, self.psi[rr] - pr))
        }
    }

    /// -div(U Psi) - d_theta(Omega Psi) at every cell.
    pub fn advection_rate(&self) -> Vec<f64> {
        let cfg = &self.config;
        let inv_h = [1.0 / cfg.dx(), 1.0 / cfg.dy(), 1.0 / cfg.dtheta()];
        let mut out = Vec::with_capacity(cfg.cells());
        for k in 0..cfg.ntheta {
            for j in 0..cfg.ny {
                for i in 0..cfg.nx {
                    let c = [i, j, k];
                    let mut r = 0.0;
                    for (axis, h) in inv_h.iter().enumerate() {
                        let n = [cfg.nx, cfg.ny, cfg.ntheta][axis];
                        let mut back = c;
                        back[axis] = (c[axis] + n - 1) % n;
                        r -= (self.face_flux(c, axis) - self.face_flux(back, axis)) * h;
                    }
                    out.push(r);
                }
            }
        }
        out
    }

    /// One outer step of `dt` (refused above `max_dt`): AB2 with variable steps,
    /// dt ((1 + r/2) A^n - (r/2) A^(n-1)) with r = dt / the last step's dt; forward Euler on
    /// the first step.
    pub fn step(&mut self, dt: f64) -> Result<()> {
        let cfg = self.config.clone();
        cfg.check_dt(dt, self.bound)?;
        let a = self.advection_rate();
        let increment: Vec<f64> = match &self.history {
            Some((last, prev)) => {
                let half_r = 0.5 * dt / last;
                a.iter()
                    .zip(prev)
                    .map(|(a, p)| dt * ((1.0 + half_r) * a - half_r * p))
                    .collect()
            }
            None => a.iter().map(|a| dt * a).collect(),
        };
        let (modes, nt) = (cfg.modes(), cfg.ntheta);
        let plane = |v: &[f64], k: usize| -> Vec<Complex> {
            let mut p: Vec<Complex> = v[k * modes..(k + 1) * modes]
                .iter()
                .map(|&x| Complex::new(x, 0.0))
                .collect();
            dft2(&mut p, cfg.nx, cfg.ny, false);
            p
        };
        let psi_hat: Vec<Vec<Complex>> = (0..nt).map(|k| plane(&self.psi, k)).collect();
        let inc_hat: Vec<Vec<Complex>> = (0..nt).map(|k| plane(&increment, k)).collect();
        let tau = std::f64::consts::TAU;
        let cn_theta = 0.5 * dt * cfg.d_r / (cfg.dtheta() * cfg.dtheta());
        let mut out = vec![vec![Complex::ZERO; modes]; nt];
        for m in 0..modes {
            let kx = wavenumber(m % cfg.nx, cfg.nx, tau / cfg.lx);
            let ky = wavenumber(m / cfg.nx, cfg.ny, tau / cfg.ly);
            let b = 0.5 * dt * cfg.d_t * (kx * kx + ky * ky);
            let column: Vec<Complex> = (0..nt).map(|k| psi_hat[k][m]).collect();
            let mut rhs: Vec<Complex> = (0..nt)
                .map(|k| {
                    let (p, pb, pf) = (column[k], column[(k + nt - 1) % nt], column[(k + 1) % nt]);
                    inc_hat[k][m] + (p * (1.0 - b - 2.0 * cn_theta) + (pb + pf) * cn_theta)
                })
                .collect();
            cyclic_solve(1.0 + b + 2.0 * cn_theta, -cn_theta, &mut rhs);
            for (k, v) in rhs.into_iter().enumerate() {
                out[k][m] = v;
            }
        }
        for (k, mut p) in out.into_iter().enumerate() {
            dft2(&mut p, cfg.nx, cfg.ny, true);
            for (dst, v) in self.psi[k * modes..(k + 1) * modes].iter_mut().zip(p) {
                *dst = v.re;
            }
        }
        self.history = Some((dt, a));
        Ok(())
    }

    /// The integral of Psi over x, y and theta (sum times dx dy dtheta).
    pub fn integral(&self) -> f64 {
        integral(&self.config, self.psi.iter().copied())
    }
}

/// The integral of a (theta, y, x) field: its sum times dx dy dtheta.
pub fn integral(config: &FilamentConfig, psi: impl IntoIterator<Item = f64>) -> f64 {
    psi.into_iter().sum::<f64>() * config.dx() * config.dy() * config.dtheta()
}

fn wavenumber(m: usize, n: usize, unit: f64) -> f64 {
    unit * if m > n / 2 {
        m as f64 - n as f64
    } else {
        m as f64
    }
}

/// Solves the periodic tridiagonal system with `diag` on the diagonal and `off` on both
/// off-diagonals and in both corners, in place (Sherman-Morrison over one Thomas factorization;
/// the shader's `diffuse` does the same operations in the same order).
pub fn cyclic_solve(diag: f64, off: f64, x: &mut [Complex]) {
    let nt = x.len();
    let gamma = -diag;
    let mut c = vec![0.0; nt];
    let mut z = vec![0.0; nt];
    let (mut c_prev, mut x_prev, mut z_prev) = (0.0, Complex::ZERO, 0.0);
    for k in 0..nt {
        let (mut bb, mut uk) = (diag, 0.0);
        if k == 0 {
            bb = diag - gamma;
            uk = gamma;
        }
        if k == nt - 1 {
            bb = diag - off * off / gamma;
            uk = off;
        }
        let inv = 1.0 / (bb - off * c_prev);
        c[k] = off * inv;
        x[k] = (x[k] - x_prev * off) * inv;
        z[k] = (uk - off * z_prev) * inv;
        (c_prev, x_prev, z_prev) = (c[k], x[k], z[k]);
    }
    let (x_last, z_last) = (x_prev, z_prev);
    for k in (0..nt - 1).rev() {
        x[k] = x[k] - x[k + 1] * c[k];
        z[k] -= c[k] * z[k + 1];
    }
    let fact = (x[0] + x_last * (off / gamma)) * (1.0 / (1.0 + z[0] + off * z_last / gamma));
    for k in 0..nt {
        x[k] = x[k] - fact * z[k];
    }
}

/// The simplest physical velocities (seed eqs. 2-3 without the motor-stress terms
/// U_t p p : grad D and U_r D : p_perp p, and without -D grad ln Psi, which is the diffusion the
/// transport adds itself): a filament of orientation p = (cos theta, sin theta) glides at
/// -v_sp p (seed eq. 2's -V_sp p_2: it moves opposite to p, its plus end pointing back) and is
/// carried by the fluid, x' = -v_sp p + u(x, y), and rotated by the fluid's gradient as a
/// slender rod (Jeffery): theta' = p_perp . (grad u) p, p_perp = (-sin theta, cos theta),
/// (grad u)_ab = d u_a / d x_b (seed eq. 3's grad_2 u_2 term). `fluid` is u (2, ny, nx) at the
/// grid points; its gradient by periodic central differences. Returns (3, ntheta, ny, nx):
/// Ux, Uy, Omega.
pub fn gliding_velocities(config: &FilamentConfig, v_sp: f64, fluid: &[f64]) -> Result<Vec<f64>> {
    let (nx, ny, modes) = (config.nx, config.ny, config.modes());
    if fluid.len() != 2 * modes {
        return Err(invalid(
            "fluid",
            format!("{} values", fluid.len()),
            format!("2 x ny x nx = {}", 2 * modes),
        ));
    }
    if !v_sp.is_finite() {
        return Err(invalid("filaments.v_sp", v_sp, "a finite speed"));
    }
    let (dx, dy) = (config.dx(), config.dy());
    let at = |c: usize, i: usize, j: usize| fluid[c * modes + j * nx + i];
    // grad[c][b]: d u_c / d x_b at each point.
    let grad = |c: usize, b: usize, i: usize, j: usize| -> f64 {
        match b {
            0 => (at(c, (i + 1) % nx, j) - at(c, (i + nx - 1) % nx, j)) / (2.0 * dx),
            _ => (at(c, i, (j + 1) % ny) - at(c, i, (j + ny - 1) % ny)) / (2.0 * dy),
        }
    };
    let n = config.cells();
    let mut out = vec![0.0; 3 * n];
    for k in 0..config.ntheta {
        let (s, c) = (k as f64 * config.dtheta()).sin_cos();
        for j in 0..ny {
            for i in 0..nx {
                let idx = config.index(i, j, k);
                out[idx] = -v_sp * c + at(0, i, j);
                out[n + idx] = -v_sp * s + at(1, i, j);
                let gp = [
                    grad(0, 0, i, j) * c + grad(0, 1, i, j) * s,
                    grad(1, 0, i, j) * c + grad(1, 1, i, j) * s,
                ];
                out[2 * n + idx] = -s * gp[0] + c * gp[1];
            }
        }
    }
    Ok(out)
}
