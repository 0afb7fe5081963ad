//! The CPU twin of gray_scott.wgsl: the same f32 operations in the same order, one cell after
//! another, so its results can be compared with the GPU's value for value. Single-threaded: it is
//! a reference, and the benchmark's CPU figure.

use crate::params::Params;
use crate::state::GrayScottState;

/// Sum of the four neighbours minus four times the centre, as `laplacian` in the shader.
pub fn laplacian(w: f32, e: f32, s: f32, n: f32, c: f32) -> f32 {
    ((w + e) + (s + n)) - 4.0 * c
}

/// One step from `(u, v)` into `(u_out, v_out)`, every cell as the shader's `gray_scott_step`.
pub fn step_into(p: &Params, u: &[f32], v: &[f32], u_out: &mut [f32], v_out: &mut [f32]) {
    let (nx, ny) = (p.nx as usize, p.ny as usize);
    for y in 0..ny {
        let ys = if y == 0 { ny - 1 } else { y - 1 };
        let yn = if y + 1 == ny { 0 } else { y + 1 };
        for x in 0..nx {
            let xw = if x == 0 { nx - 1 } else { x - 1 };
            let xe = if x + 1 == nx { 0 } else { x + 1 };
            let i = y * nx + x;
            let (iw, ie, is, in_) = (y * nx + xw, y * nx + xe, ys * nx + x, yn * nx + x);
            let (uc, vc) = (u[i], v[i]);
            let lap_u = laplacian(u[iw], u[ie], u[is], u[in_], uc);
            let lap_v = laplacian(v[iw], v[ie], v[is], v[in_], vc);
            let uvv = (uc * vc) * vc;
            let du = (p.du_h2 * lap_u - uvv) + p.feed * (1.0 - uc);
            let dv = (p.dv_h2 * lap_v + uvv) - p.decay_v * vc;
            u_out[i] = uc + p.dt * du;
            v_out[i] = vc + p.dt * dv;
        }
    }
}

/// The model on the CPU: a state and the buffers of the next one.
pub struct CpuGrayScott {
    pub params: Params,
    pub state: GrayScottState,
    u_next: Vec<f32>,
    v_next: Vec<f32>,
}

impl CpuGrayScott {
    pub fn new(params: Params, state: GrayScottState) -> Self {
        let cells = params.cells();
        assert_eq!(state.wrong_length(cells), None, "the state fits the grid");
        Self {
            params,
            state,
            u_next: vec![0.0; cells],
            v_next: vec![0.0; cells],
        }
    }

    pub fn advance(&mut self, steps: u64) {
        for _ in 0..steps {
            let s = &mut self.state;
            step_into(&self.params, &s.u, &s.v, &mut self.u_next, &mut self.v_next);
            std::mem::swap(&mut s.u, &mut self.u_next);
            std::mem::swap(&mut s.v, &mut self.v_next);
            s.step += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pure diffusion of u (v = 0, no feed, no decay) at the default grid's D/h^2.
    fn diffusion(nx: u32, ny: u32) -> Params {
        Params {
            nx,
            ny,
            du_h2: 0.2097152,
            dv_h2: 0.1048576,
            feed: 0.0,
            decay_v: 0.0,
            dt: 1.0,
            _pad: 0,
        }
    }

    #[test]
    fn the_stencil_is_five_points_and_wraps_around_the_edges() {
        // A unit spike in the corner: -4 there, 1 at its four neighbours, two of them across
        // the periodic edges, 0 elsewhere.
        let p = Params {
            du_h2: 1.0,
            ..diffusion(5, 4)
        };
        let mut u = vec![0.0f32; 20];
        u[0] = 1.0;
        let v = vec![0.0f32; 20];
        let (mut u1, mut v1) = (vec![0.0; 20], vec![0.0; 20]);
        step_into(&p, &u, &v, &mut u1, &mut v1);
        let lap: Vec<f32> = u1.iter().zip(&u).map(|(a, b)| a - b).collect();
        let mut expected = vec![0.0f32; 20];
        expected[0] = -4.0;
        for i in [1, 4, 5, 15] {
            expected[i] = 1.0;
        }
        assert_eq!(lap, expected);
        assert!(v1.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn pure_diffusion_conserves_the_total() {
        // Random positive field, 200 steps: the periodic stencil moves mass and creates none;
        // f32 rounding of each cell's update is all that changes the sum.
        let (nx, ny) = (32, 24);
        let p = diffusion(nx, ny);
        let cells = (nx * ny) as usize;
        let u: Vec<f32> = (0..cells)
            .map(|i| petri_engine::rng::unit(petri_engine::rng::u32x4(5, 0, i as u32, 0)[0]))
            .collect();
        let total = |f: &[f32]| f.iter().map(|&x| x as f64).sum::<f64>();
        let before = total(&u);
        let state = GrayScottState {
            step: 0,
            u,
            v: vec![0.0; cells],
        };
        let mut cpu = CpuGrayScott::new(p, state);
        cpu.advance(200);
        let after = total(&cpu.state.u);
        assert!(
            ((after - before) / before).abs() < 1e-5,
            "sum of u went from {before} to {after}"
        );
        // ... while the field did spread: its spread shrank.
        let max = cpu.state.u.iter().cloned().fold(0.0f32, f32::max);
        assert!(max < 0.9, "max {max}");
    }

    #[test]
    fn a_constant_field_has_no_laplacian() {
        for c in [0.0f32, 1.0, 0.3, 1e-7, 123.456] {
            assert_eq!(laplacian(c, c, c, c, c), 0.0, "{c}");
        }
    }
}
