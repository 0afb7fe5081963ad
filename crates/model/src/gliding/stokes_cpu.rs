//! The CPU reference of the Stokes solver (`stokes.rs`), in f64: a plain DFT in x and y (small
//! grids only: O(nx ny (nx + ny)) per level), the same per-mode z solve as the GPU kernel
//! (`shaders/gliding/stokes.wgsl`), an inverse DFT. Also the discrete divergence the
//! solver makes vanish. Arrays are (component, z, y, x), x fastest, components (u, v, w).

use super::channel::{Channel, ZOperators};
use crate::error::{invalid, Result};
use std::ops::{Add, Mul, Neg, Sub};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complex {
    pub re: f64,
    pub im: f64,
}

impl Complex {
    pub const ZERO: Complex = Complex { re: 0.0, im: 0.0 };

    pub fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }

    /// i times self.
    pub fn times_i(self) -> Self {
        Self::new(-self.im, self.re)
    }

    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
}

impl Add for Complex {
    type Output = Complex;
    fn add(self, o: Complex) -> Complex {
        Complex::new(self.re + o.re, self.im + o.im)
    }
}

impl Sub for Complex {
    type Output = Complex;
    fn sub(self, o: Complex) -> Complex {
        Complex::new(self.re - o.re, self.im - o.im)
    }
}

impl Neg for Complex {
    type Output = Complex;
    fn neg(self) -> Complex {
        Complex::new(-self.re, -self.im)
    }
}

impl Mul<f64> for Complex {
    type Output = Complex;
    fn mul(self, s: f64) -> Complex {
        Complex::new(self.re * s, self.im * s)
    }
}

impl Mul for Complex {
    type Output = Complex;
    fn mul(self, o: Complex) -> Complex {
        Complex::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

/// Solves (D2 - k2) x = r at the interior levels with x given at the walls, in place: on entry
/// x[0] and x[n-1] hold the wall values and x[1..n-1] the right-hand side; on return x is the
/// solution. Thomas algorithm; the matrix is diagonally dominant (k2 >= 0), so no pivoting.
pub fn tridiagonal(ops: &ZOperators, k2: f64, x: &mut [Complex]) {
    let n = x.len();
    let (lo, hi) = (ops.lower.as_slice(), ops.upper.as_slice());
    x[1] = x[1] - x[0] * lo[1];
    x[n - 2] = x[n - 2] - x[n - 1] * hi[n - 2];
    let mut cp = vec![0.0; n];
    let mut prev = 0.0;
    for j in 1..n - 1 {
        let pivot = -(lo[j] + hi[j]) - k2 - lo[j] * prev;
        cp[j] = hi[j] / pivot;
        let back = if j > 1 { x[j - 1] } else { Complex::ZERO };
        x[j] = (x[j] - back * lo[j]) * (1.0 / pivot);
        prev = cp[j];
    }
    for j in (1..n - 2).rev() {
        x[j] = x[j] - x[j + 1] * cp[j];
    }
}

/// The three-point first derivative at interior level j.
fn d1(ops: &ZOperators, x: &[Complex], j: usize) -> Complex {
    let c = ops.d1[j];
    x[j - 1] * c[0] + x[j] * c[1] + x[j + 1] * c[2]
}

/// The z problem of one Fourier mode: `f[j]` the force's coefficients (x, y, z) at level j,
/// `k` the wavenumbers (None: a Nyquist mode, set to zero), viscosity `mu`, aspect ratio `eps`.
/// Returns the velocity's coefficients (u, v, w) per level. See docs/models/gliding.md for the
/// formulation: with kz2 = eps^2 |k|^2, the viscous operator mu (D2 / eps^2 - |k|^2) is
/// (mu / eps^2) (D2 - kz2), and the pressure adds (D2 - |k|^2) to the fourth-order w problem.
pub fn solve_mode(
    ops: &ZOperators,
    mu: f64,
    eps: f64,
    k: Option<[f64; 2]>,
    f: &[[Complex; 3]],
) -> Vec<[Complex; 3]> {
    let n = f.len();
    let mut out = vec![[Complex::ZERO; 3]; n];
    let Some([kx, ky]) = k else {
        return out;
    };
    let k2 = kx * kx + ky * ky;
    let eps2 = eps * eps;
    let kz2 = eps2 * k2;
    // A right-hand side at the interior levels, zero at the walls.
    let interior = |g: &dyn Fn(usize) -> Complex| -> Vec<Complex> {
        (0..n)
            .map(|j| match j > 0 && j < n - 1 {
                true => g(j),
                false => Complex::ZERO,
            })
            .collect()
    };
    if k2 == 0.0 {
        // The mean flow: (mu / eps^2) D2 u = -f, no vertical mean velocity.
        for c in 0..2 {
            let mut u = interior(&|j| -f[j][c] * eps2 * (1.0 / mu));
            tridiagonal(ops, 0.0, &mut u);
            for j in 0..n {
                out[j][c] = u[j];
            }
        }
        return out;
    }
    let kk = k2.sqrt();
    let (ex, ey) = (kx / kk, ky / kk);
    let along: Vec<Complex> = f.iter().map(|v| v[0] * ex + v[1] * ey).collect();
    // Across k: (mu / eps^2) (D2 - kz2) u_perp = -f_perp.
    let mut perp = interior(&|j| -(f[j][1] * ex - f[j][0] * ey) * eps2 * (1.0 / mu));
    tridiagonal(ops, kz2, &mut perp);
    // Along k and vertical: (mu / eps^2) (D2 - kz2) (D2 - k^2) w = k^2 f_z + i |k| D f_par,
    // split as (D2 - kz2) psi = eps^2 rhs / mu and (D2 - k^2) w = psi with w = 0 at the walls;
    // psi's wall values a, b are chosen so that dw/dz = 0 at the walls too (influence matrix).
    let mut wp =
        interior(&|j| (f[j][2] * k2 + d1(ops, &along, j).times_i() * kk) * eps2 * (1.0 / mu));
    let w_of_psi = |psi: &mut Vec<Complex>| {
        tridiagonal(ops, kz2, psi);
        psi[0] = Complex::ZERO;
        psi[n - 1] = Complex::ZERO;
        tridiagonal(ops, k2, psi);
    };
    w_of_psi(&mut wp);
    let mut wa = vec![Complex::ZERO; n];
    wa[0] = Complex::new(1.0, 0.0);
    w_of_psi(&mut wa);
    let mut wb = vec![Complex::ZERO; n];
    wb[n - 1] = Complex::new(1.0, 0.0);
    w_of_psi(&mut wb);
    let slope = |w: &[Complex]| {
        let (b, t) = (ops.bottom, ops.top);
        [
            w[1] * b[0] + w[2] * b[1] + w[3] * b[2],
            w[n - 2] * t[0] + w[n - 3] * t[1] + w[n - 4] * t[2],
        ]
    };
    let (sp, sa, sb) = (slope(&wp), slope(&wa), slope(&wb));
    // [sa0 sb0; sa1 sb1] (a, b) = -sp; the homogeneous slopes are real.
    let det = sa[0].re * sb[1].re - sb[0].re * sa[1].re;
    let a = (sp[1] * sb[0].re - sp[0] * sb[1].re) * (1.0 / det);
    let b = (sp[0] * sa[1].re - sp[1] * sa[0].re) * (1.0 / det);
    let w: Vec<Complex> = (0..n).map(|j| wp[j] + wa[j] * a + wb[j] * b).collect();
    // Continuity, i |k| u_par + D1 w = 0, holds exactly at every interior level.
    for j in 1..n - 1 {
        let par = d1(ops, &w, j).times_i() * (1.0 / kk);
        out[j] = [par * ex - perp[j] * ey, par * ey + perp[j] * ex, w[j]];
    }
    out
}

/// The 2D DFT of one (ny, nx) level in place: forward e^(-i...), inverse e^(+i...) / (nx ny).
pub fn dft2(data: &mut [Complex], nx: usize, ny: usize, inverse: bool) {
    let sign = if inverse { 1.0 } else { -1.0 };
    let line = |v: &[Complex]| -> Vec<Complex> {
        let n = v.len();
        (0..n)
            .map(|k| {
                v.iter().enumerate().fold(Complex::ZERO, |acc, (m, x)| {
                    let t = sign * 2.0 * std::f64::consts::PI * ((k * m) % n) as f64 / n as f64;
                    acc + *x * Complex::new(t.cos(), t.sin())
                })
            })
            .collect()
    };
    for y in 0..ny {
        let row = line(&data[y * nx..(y + 1) * nx]);
        data[y * nx..(y + 1) * nx].copy_from_slice(&row);
    }
    for x in 0..nx {
        let col: Vec<Complex> = (0..ny).map(|y| data[y * nx + x]).collect();
        for (y, v) in line(&col).into_iter().enumerate() {
            data[y * nx + x] = v;
        }
    }
    if inverse {
        let s = 1.0 / (nx * ny) as f64;
        data.iter_mut().for_each(|v| *v = *v * s);
    }
}

fn check_len(channel: &Channel, field: &str, data: &[f64]) -> Result<()> {
    let want = 3 * channel.nz() * channel.modes();
    match data.len() == want {
        true => Ok(()),
        false => Err(invalid(
            field,
            format!("{} values", data.len()),
            format!("3 x nz x ny x nx = {want}"),
        )),
    }
}

/// The (component, level) planes of `data`, each transformed by the 2D DFT.
fn spectrum(channel: &Channel, data: &[f64]) -> Vec<Vec<Complex>> {
    let (nx, ny) = (channel.nx, channel.ny);
    data.chunks(channel.modes())
        .map(|plane| {
            let mut p: Vec<Complex> = plane.iter().map(|&v| Complex::new(v, 0.0)).collect();
            dft2(&mut p, nx, ny, false);
            p
        })
        .collect()
}

/// The velocity (u, v, w) of the force `force`, both (3, nz, ny, nx).
pub fn solve(channel: &Channel, force: &[f64]) -> Result<Vec<f64>> {
    channel.check()?;
    check_len(channel, "force", force)?;
    let (nx, ny, nz) = (channel.nx, channel.ny, channel.nz());
    let ops = channel.operators();
    let fhat = spectrum(channel, force);
    let mut uhat = vec![vec![Complex::ZERO; nx * ny]; 3 * nz];
    for my in 0..ny {
        for mx in 0..nx {
            let m = my * nx + mx;
            let f: Vec<[Complex; 3]> = (0..nz)
                .map(|j| [0, 1, 2].map(|c| fhat[c * nz + j][m]))
                .collect();
            let k = channel.wavenumbers(mx, my);
            let u = solve_mode(&ops, channel.mu, channel.eps, k, &f);
            for (j, v) in u.iter().enumerate() {
                for c in 0..3 {
                    uhat[c * nz + j][m] = v[c];
                }
            }
        }
    }
    Ok(uhat
        .into_iter()
        .flat_map(|mut p| {
            dft2(&mut p, nx, ny, true);
            p.into_iter().map(|v| v.re)
        })
        .collect())
}

/// The discrete divergence the solver makes vanish, (nz, ny, nx): d/dx and d/dy spectral (the
/// Nyquist modes dropped, as the solver drops them), d/dz the three-point D1 at interior
/// levels; 0 at the walls, where the velocity is zero.
pub fn divergence(channel: &Channel, velocity: &[f64]) -> Result<Vec<f64>> {
    channel.check()?;
    check_len(channel, "fluid", velocity)?;
    let (nx, ny, nz) = (channel.nx, channel.ny, channel.nz());
    let ops = channel.operators();
    let uhat = spectrum(channel, velocity);
    let mut out = Vec::with_capacity(nz * nx * ny);
    for j in 0..nz {
        let mut p = vec![Complex::ZERO; nx * ny];
        if j > 0 && j < nz - 1 {
            for my in 0..ny {
                for mx in 0..nx {
                    let m = my * nx + mx;
                    let Some([kx, ky]) = channel.wavenumbers(mx, my) else {
                        continue;
                    };
                    let col: Vec<Complex> = (0..nz).map(|l| uhat[2 * nz + l][m]).collect();
                    p[m] = (uhat[j][m] * kx + uhat[nz + j][m] * ky).times_i() + d1(&ops, &col, j);
                }
            }
        }
        dft2(&mut p, nx, ny, true);
        out.extend(p.into_iter().map(|v| v.re));
    }
    Ok(out)
}
