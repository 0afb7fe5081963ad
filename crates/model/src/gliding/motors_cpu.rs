//! The CPU reference of the bound motors (`motors.rs`), in f64: the same sub-steps, the same
//! Superbee-limited walk, the same SSP-RK2 stages, the same coarse integrals (line sums in s
//! order, then the same pairwise tree) and the same gather for the motor force of seed eq. 10.
//! Arrays: M_b (r0, d, theta, s) with s innermost (d over `MotorTables::offsets`); per-anchor
//! values (ny, nx); Psi (theta, y, x) as the filaments'; the force (ny, nx) of (Fx, Fy).

use super::motors::{check_bound, check_values, psi_index, MotorConfig, MotorTables};
use crate::error::Result;

/// The Superbee-limited slope from the backward and forward differences a, b.
pub fn superbee(a: f64, b: f64) -> f64 {
    if a * b <= 0.0 {
        return 0.0;
    }
    let s = a.abs().min(2.0 * b.abs()).max((2.0 * a.abs()).min(b.abs()));
    if a > 0.0 {
        s
    } else {
        -s
    }
}

/// The pairwise tree the GPU uses: values padded with zeros to a power of two, then
/// a[j] += a[j + half] for half = n/2, n/4, .., 1.
pub fn tree_sum(values: &[f64]) -> f64 {
    let n = values.len().next_power_of_two();
    let mut a = values.to_vec();
    a.resize(n, 0.0);
    let mut half = n / 2;
    while half > 0 {
        for j in 0..half {
            a[j] += a[j + half];
        }
        half /= 2;
    }
    a[0]
}

/// The bound motors and their stepper.
#[derive(Clone, Debug)]
pub struct MotorsCpu {
    pub config: MotorConfig,
    pub tables: MotorTables,
    /// M_b (r0, d, theta, s).
    pub bound: Vec<f64>,
    /// Per anchor: the total M, the coarse bound M_b,coarse, the free M_f = M - coarse and the
    /// Psi-weighted amount that walked off the plus ends since the start.
    pub total: Vec<f64>,
    pub coarse: Vec<f64>,
    pub free: Vec<f64>,
    pub walked: Vec<f64>,
    /// Psi (theta, y, x).
    pub psi: Vec<f64>,
}

impl MotorsCpu {
    /// No bound motors; `total` M(r0) (ny, nx), `psi` (theta, y, x), all finite and >= 0.
    pub fn new(config: &MotorConfig, total: Vec<f64>, psi: Vec<f64>) -> Result<Self> {
        let tables = MotorTables::new(config)?;
        let c = config;
        c.check_len("motors total", total.len(), c.anchors(), "ny x nx")?;
        c.check_len("psi", psi.len(), c.anchors() * c.ntheta, "ntheta x ny x nx")?;
        check_values("motors total", &total)?;
        check_values("psi", &psi)?;
        let n = c.anchors();
        Ok(Self {
            bound: vec![0.0; n * tables.block(c)],
            coarse: vec![0.0; n],
            free: total.clone(),
            walked: vec![0.0; n],
            total,
            psi,
            tables,
            config: config.clone(),
        })
    }

    /// Sets M_b (r0, d, theta, s): finite, >= 0 and 0 outside the capture disc; the coarse and
    /// free densities follow at the next step.
    pub fn set_bound(&mut self, bound: Vec<f64>) -> Result<()> {
        check_bound(&self.config, &self.tables, &bound)?;
        self.bound = bound;
        Ok(())
    }

    fn psi_at(&self, r0: usize, d: [i32; 2], t: usize) -> f64 {
        self.psi[psi_index(&self.config, r0, d, t)]
    }

    /// The rate of one line at a given M_f, and the end face's value (the outflow).
    fn rate(&self, y: &[f64], mask: &[f64], mf: f64, out: &mut [f64]) {
        let c = &self.config;
        let ns = c.ns;
        let walk = c.speed / c.ds();
        let mut back = 0.0; // the face below cell k (none walks in at the minus end)
        let mut prev = 0.0;
        for k in 0..ns {
            let face = if k + 1 == ns {
                y[k]
            } else {
                y[k] + 0.5 * superbee(y[k] - prev, y[k + 1] - y[k])
            };
            out[k] = mask[k] * (-(face - back) * walk - c.k_off * y[k] + c.k_on * mf);
            back = face;
            prev = y[k];
        }
    }

    /// One outer step of dt (all anchors).
    pub fn step(&mut self, dt: f64) -> Result<()> {
        for r0 in 0..self.config.anchors() {
            let w = self.weight(r0);
            self.config.check_dt(dt, w)?;
        }
        for r0 in 0..self.config.anchors() {
            self.evolve(r0, dt);
        }
        Ok(())
    }

    /// W(r0) = sum 1_D Psi dV, the binding rate's Psi weight (the equilibrium has
    /// M_b,coarse / M_f = k_on W / k_off with no walking).
    pub fn weight(&self, r0: usize) -> f64 {
        self.coarse_of(r0, &self.tables.mask)
    }

    fn coarse_of(&self, r0: usize, block: &[f64]) -> f64 {
        let c = &self.config;
        let mut parts = Vec::with_capacity(self.tables.lines(c));
        for (o, &d) in self.tables.offsets.iter().enumerate() {
            for th in 0..c.ntheta {
                let line = (o * c.ntheta + th) * c.ns;
                let m: f64 = block[line..line + c.ns].iter().sum();
                parts.push(m * (self.psi_at(r0, d, th) * c.volume()));
            }
        }
        tree_sum(&parts)
    }

    fn evolve(&mut self, r0: usize, dt: f64) {
        let c = self.config.clone();
        let ns = c.ns;
        let size = self.tables.block(&c);
        let w = self.weight(r0);
        let n = c.substeps(dt, w);
        let h = dt / n;
        let m = self.total[r0];
        let mut y: Vec<f64> = self.bound[r0 * size..(r0 + 1) * size].to_vec();
        let mut y1 = vec![0.0; size];
        let mut r = vec![0.0; ns];
        let mut bound = self.coarse_of(r0, &y);
        if bound > m {
            let f = m / bound;
            y.iter_mut().for_each(|v| *v *= f);
            bound = m;
        }
        let area = c.dx() * c.dy() * c.dtheta() * c.speed;
        let lines = self.tables.lines(&c);
        let mut walked = Vec::with_capacity(lines);
        for _ in 0..n as u64 {
            let mf0 = m - bound;
            for l in 0..lines {
                let a = l * ns;
                self.rate(&y[a..a + ns], &self.tables.mask[a..a + ns], mf0, &mut r);
                for k in 0..ns {
                    y1[a + k] = y[a + k] + h * r[k];
                }
            }
            let mf1 = m - self.coarse_of(r0, &y1);
            walked.clear();
            for (o, &d) in self.tables.offsets.iter().enumerate() {
                for th in 0..c.ntheta {
                    let a = (o * c.ntheta + th) * ns;
                    let out = 0.5 * h * (y[a + ns - 1] + y1[a + ns - 1]);
                    walked.push(out * (self.psi_at(r0, d, th) * area));
                    self.rate(&y1[a..a + ns], &self.tables.mask[a..a + ns], mf1, &mut r);
                    for k in 0..ns {
                        y[a + k] = 0.5 * (y[a + k] + (y1[a + k] + h * r[k]));
                    }
                }
            }
            self.walked[r0] += tree_sum(&walked);
            bound = self.coarse_of(r0, &y);
            if bound > m {
                let f = m / bound;
                y.iter_mut().for_each(|v| *v *= f);
                bound = m;
            }
        }
        self.bound[r0 * size..(r0 + 1) * size].copy_from_slice(&y);
        self.coarse[r0] = bound;
        self.free[r0] = m - bound;
    }

    /// The bound motors' coarse integral now (recomputed from M_b), per anchor.
    pub fn coarse_now(&self) -> Vec<f64> {
        let size = self.tables.block(&self.config);
        (0..self.config.anchors())
            .map(|r0| self.coarse_of(r0, &self.bound[r0 * size..(r0 + 1) * size]))
            .collect()
    }

    /// The motor force of seed eq. 10 per cell (ny, nx): F sum p(theta) Psi M_b dV over the
    /// (r0, d, theta, s) whose head x + (l/L) s p lands in the cell.
    pub fn force(&self) -> Vec<[f64; 2]> {
        motor_force(&self.config, &self.tables, &self.bound, &self.psi)
    }
}

/// The gather of seed eq. 10 (one output cell at a time, in the table's order).
pub fn motor_force(c: &MotorConfig, t: &MotorTables, bound: &[f64], psi: &[f64]) -> Vec<[f64; 2]> {
    let size = t.block(c);
    let per_offset = c.ntheta * c.ns;
    let (nx, ny) = (c.nx as i64, c.ny as i64);
    let mut out = vec![[0.0; 2]; c.anchors()];
    for (x, f) in out.iter_mut().enumerate() {
        let (i, j) = ((x % c.nx) as i64, (x / c.nx) as i64);
        let mut sum = [0.0; 2];
        for (e, head) in t.heads.iter().enumerate() {
            let i0 = ((i - head[0] as i64) % nx + nx) % nx;
            let j0 = ((j - head[1] as i64) % ny + ny) % ny;
            let r0 = (j0 * nx + i0) as usize;
            for &item in &t.items[t.start[e] as usize..t.start[e + 1] as usize] {
                let item = item as usize;
                let o = item / per_offset;
                let th = (item / c.ns) % c.ntheta;
                let v = bound[r0 * size + item] * psi[psi_index(c, r0, t.offsets[o], th)];
                sum[0] += t.p[th][0] * v;
                sum[1] += t.p[th][1] * v;
            }
        }
        let scale = c.force * c.volume();
        *f = [scale * sum[0], scale * sum[1]];
    }
    out
}
