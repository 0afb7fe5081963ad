//! The fluid's domain: a channel periodic in x and y on an (nx, ny) grid, walls at z = 0 and
//! z = 1 with nz levels on a graded grid, and the second-order finite differences in z on that
//! grid that the Stokes solvers (GPU and CPU) share.

use super::ranges::{check_range, EPS, MU, PERIODS};
use crate::error::{invalid, Result};

/// The z levels z_0 = 0 < z_1 < ... < z_{nz-1} = 1, with s_j = j / (nz - 1).
#[derive(Clone, Debug, PartialEq)]
pub enum ZGrid {
    /// z_j = s_j.
    Uniform(usize),
    /// z_j = (1 - cos(pi s_j)) / 2: clustered toward both walls.
    Chebyshev(usize),
    /// z_j = 1 - cos(pi s_j / 2): clustered toward the bottom wall, where the motors act.
    Bottom(usize),
    /// The levels as given.
    Nodes(Vec<f64>),
}

impl ZGrid {
    /// The number of levels.
    pub fn len(&self) -> usize {
        match self {
            ZGrid::Uniform(nz) | ZGrid::Chebyshev(nz) | ZGrid::Bottom(nz) => *nz,
            ZGrid::Nodes(z) => z.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The levels (not yet checked).
    pub fn nodes(&self) -> Vec<f64> {
        use std::f64::consts::PI;
        let map = |nz: usize, f: &dyn Fn(f64) -> f64| -> Vec<f64> {
            // The walls exactly: 1 - cos(pi / 2) rounds below 1.
            let last = nz.max(2) - 1;
            (0..nz)
                .map(|j| match j {
                    0 => 0.0,
                    j if j == last => 1.0,
                    j => f(j as f64 / last as f64),
                })
                .collect()
        };
        match self {
            ZGrid::Uniform(nz) => map(*nz, &|s| s),
            ZGrid::Chebyshev(nz) => map(*nz, &|s| (1.0 - (PI * s).cos()) / 2.0),
            ZGrid::Bottom(nz) => map(*nz, &|s| 1.0 - (PI * s / 2.0).cos()),
            ZGrid::Nodes(z) => z.clone(),
        }
    }
}

/// A checked channel: grid sizes, periods, z levels, viscosity mu and aspect ratio eps (the
/// seed's anisotropic viscous operator mu (lap_2 + eps^-2 d_zz); eps < 1 is a gap thinner than
/// the horizontal unit).
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    pub nx: usize,
    pub ny: usize,
    pub lx: f64,
    pub ly: f64,
    pub z: Vec<f64>,
    pub mu: f64,
    pub eps: f64,
}

/// The most grid points along x or y (the GPU FFT's longest axis).
pub const MAX_AXIS: usize = 1 << 16;
/// The most z levels: each Fourier mode's z problem is one thread's sequential solve, and the
/// levels are built on the host before anything else is checked.
pub const MAX_NZ: usize = 4096;

impl Channel {
    /// A channel of (nx, ny) points over periods (lx, ly), levels `z`, viscosity `mu`, eps = 1
    /// (isotropic); errors name the config's field, the value and what is allowed.
    pub fn new(nx: usize, ny: usize, lx: f64, ly: f64, z: ZGrid, mu: f64) -> Result<Self> {
        // Before the levels are built: nz sizes a host allocation.
        if z.len() > MAX_NZ {
            return Err(invalid("grid.nz", z.len(), format!("4..={MAX_NZ} levels")));
        }
        let c = Channel {
            nx,
            ny,
            lx,
            ly,
            z: z.nodes(),
            mu,
            eps: 1.0,
        };
        c.check()?;
        Ok(c)
    }

    /// The same channel with aspect ratio `eps` (finite, > 0).
    pub fn with_eps(self, eps: f64) -> Result<Self> {
        let c = Channel { eps, ..self };
        c.check()?;
        Ok(c)
    }

    pub fn check(&self) -> Result<()> {
        for (field, n) in [("grid.nx", self.nx), ("grid.ny", self.ny)] {
            if !n.is_power_of_two() || n > MAX_AXIS {
                return Err(invalid(
                    field,
                    n,
                    format!("a power of two in 1..={MAX_AXIS} (the FFT's axes)"),
                ));
            }
        }
        for (field, l) in [("grid.lx", self.lx), ("grid.ly", self.ly)] {
            check_range(field, l, PERIODS, "a period")?;
        }
        check_range("fluid.mu", self.mu, MU, "a viscosity")?;
        check_range("fluid.eps", self.eps, EPS, "an aspect ratio")?;
        let z = &self.z;
        if !(4..=MAX_NZ).contains(&z.len()) {
            return Err(invalid(
                "grid.nz",
                z.len(),
                format!(
                    "4..={MAX_NZ} levels (w = dw/dz = 0 at both walls needs two interior levels)"
                ),
            ));
        }
        // NaN fails the comparison too.
        let increasing = z.windows(2).all(|p| p[1] > p[0]);
        if z[0] != 0.0 || z[z.len() - 1] != 1.0 || !increasing {
            let shown: Vec<String> = z.iter().map(|v| crate::error::short(*v)).collect();
            return Err(invalid(
                "grid.z_grid",
                format!("[{}]", shown.join(", ")),
                "levels strictly increasing from z = 0 to z = 1",
            ));
        }
        Ok(())
    }

    pub fn nz(&self) -> usize {
        self.z.len()
    }

    /// Fourier modes of one level (nx * ny).
    pub fn modes(&self) -> usize {
        self.nx * self.ny
    }

    /// The wavenumbers of FFT mode (mx, my): (2 pi m / L) with m signed (m - n past n / 2), or
    /// None for a Nyquist mode (m = n / 2, n > 1), which the solvers set to zero: its sign is
    /// ambiguous, and the odd terms (i k) would make the velocity complex.
    pub fn wavenumbers(&self, mx: usize, my: usize) -> Option<[f64; 2]> {
        let signed = |m: usize, n: usize, l: f64| {
            let s = if m > n / 2 {
                m as f64 - n as f64
            } else {
                m as f64
            };
            match n > 1 && m == n / 2 {
                true => None,
                false => Some(2.0 * std::f64::consts::PI * s / l),
            }
        };
        Some([signed(mx, self.nx, self.lx)?, signed(my, self.ny, self.ly)?])
    }

    /// The finite differences on the levels.
    pub fn operators(&self) -> ZOperators {
        ZOperators::new(&self.z)
    }
}

/// Three-point finite differences on the nonuniform levels, each exact for quadratics:
/// at an interior level j (spacings h- = z_j - z_{j-1}, h+ = z_{j+1} - z_j),
///
///   (D2 f)_j = lower_j f_{j-1} - (lower_j + upper_j) f_j + upper_j f_{j+1},
///     lower = 2 / (h- (h- + h+)), upper = 2 / (h+ (h- + h+));
///   (D1 f)_j = d1[j][0] f_{j-1} + d1[j][1] f_j + d1[j][2] f_{j+1};
///
/// and one-sided first derivatives at the walls for a function that vanishes there, exact for
/// cubics: f'(0) = sum_i bottom[i] f_{1+i}, f'(1) = sum_i top[i] f_{nz-2-i}, i < 3. The cubic
/// (not the quadratic) matters: near a no-slip wall w ~ z^2, so a quadratic's O(h^3) error would
/// be an O(h) relative error in the w = dw/dz = 0 conditions and degrade the whole solve.
/// On a smoothly graded grid all are second-order accurate. Entries at j = 0 and nz - 1 are 0.
#[derive(Clone, Debug)]
pub struct ZOperators {
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    pub d1: Vec<[f64; 3]>,
    pub bottom: [f64; 3],
    pub top: [f64; 3],
}

impl ZOperators {
    pub fn new(z: &[f64]) -> Self {
        let n = z.len();
        let (mut lower, mut upper, mut d1) = (vec![0.0; n], vec![0.0; n], vec![[0.0; 3]; n]);
        for j in 1..n - 1 {
            let (a, b) = (z[j] - z[j - 1], z[j + 1] - z[j]);
            lower[j] = 2.0 / (a * (a + b));
            upper[j] = 2.0 / (b * (a + b));
            d1[j] = [-b / (a * (a + b)), (b - a) / (a * b), a / (b * (a + b))];
        }
        // Derivative at the wall (distance 0) of the cubic through (0, 0) and (d_i, f_i):
        // Lagrange weights prod_{m != i} d_m / (d_i prod_{m != i} (d_i - d_m)).
        let wall = |d: [f64; 3]| {
            [0, 1, 2].map(|i| {
                let others = [0, 1, 2].into_iter().filter(|&m| m != i);
                others.fold(1.0 / d[i], |w, m| w * d[m] / (d[m] - d[i]))
            })
        };
        let bottom = wall([z[1], z[2], z[3]]);
        // Distances from the top wall; d/dz = -d/d(distance).
        let t = wall([1.0 - z[n - 2], 1.0 - z[n - 3], 1.0 - z[n - 4]]);
        Self {
            lower,
            upper,
            d1,
            bottom,
            top: t.map(|v| -v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_are_exact_for_quadratics_and_wall_slopes_for_cubics() {
        let z = ZGrid::Bottom(9).nodes();
        let ops = ZOperators::new(&z);
        let f = |z: f64| 3.0 * z * z - 2.0 * z + 0.5;
        let g = |z: f64| z * (1.0 - z) * 4.0 + z * z * z; // vanishes at z = 0 only
        for j in 1..z.len() - 1 {
            let d2 = ops.lower[j] * f(z[j - 1]) - (ops.lower[j] + ops.upper[j]) * f(z[j])
                + ops.upper[j] * f(z[j + 1]);
            assert!((d2 - 6.0).abs() < 1e-9, "D2 at {j}: {d2}");
            let d1: f64 = (0..3).map(|i| ops.d1[j][i] * f(z[j + i - 1])).sum();
            assert!((d1 - (6.0 * z[j] - 2.0)).abs() < 1e-9, "D1 at {j}: {d1}");
        }
        let b: f64 = (0..3).map(|i| ops.bottom[i] * g(z[1 + i])).sum();
        assert!((b - 4.0).abs() < 1e-9, "f'(0) = {b}");
        // h(z) = (1 - z)(2 + z^2) vanishes at z = 1 with h'(1) = -3.
        let h = |z: f64| (1.0 - z) * (2.0 + z * z);
        let n = z.len();
        let t: f64 = (0..3).map(|i| ops.top[i] * h(z[n - 2 - i])).sum();
        assert!((t + 3.0).abs() < 1e-9, "f'(1) = {t}");
    }

    #[test]
    fn graded_grids_run_from_wall_to_wall() {
        for g in [ZGrid::Uniform(5), ZGrid::Chebyshev(5), ZGrid::Bottom(5)] {
            let z = g.nodes();
            assert_eq!((z[0], z[4]), (0.0, 1.0), "{g:?}");
            assert!(z.windows(2).all(|p| p[1] > p[0]), "{g:?}");
        }
        let z = ZGrid::Bottom(5).nodes();
        assert!(z[1] - z[0] < z[4] - z[3], "bottom-clustered: {z:?}");
    }

    #[test]
    fn nyquist_modes_have_no_wavenumber() {
        let c = Channel::new(8, 4, 2.0, 1.0, ZGrid::Uniform(5), 1.0).unwrap();
        assert_eq!(c.wavenumbers(4, 0), None);
        assert_eq!(c.wavenumbers(0, 2), None);
        let k = c.wavenumbers(7, 1).unwrap();
        assert!(
            (k[0] + std::f64::consts::PI).abs() < 1e-12
                && (k[1] - std::f64::consts::TAU).abs() < 1e-12
        );
    }
}
