//! What the coupled gliding model hands to its observables and outputs: the grid and the
//! fields read back from the GPU (or taken from the CPU reference) at one step.

/// The grid of the coupled model.
#[derive(Clone, Debug, PartialEq)]
pub struct GlidingGrid {
    pub nx: usize,
    pub ny: usize,
    pub ntheta: usize,
    /// Periods in x and y.
    pub lx: f64,
    pub ly: f64,
    /// The channel's z levels, 0 to 1 (graded).
    pub z: Vec<f64>,
    /// The level the filaments and motors lie on (z0).
    pub z0_level: usize,
}

impl GlidingGrid {
    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }
    pub fn dx(&self) -> f64 {
        self.lx / self.nx as f64
    }
    pub fn dy(&self) -> f64 {
        self.ly / self.ny as f64
    }
    pub fn dtheta(&self) -> f64 {
        std::f64::consts::TAU / self.ntheta as f64
    }
    pub fn nz(&self) -> usize {
        self.z.len()
    }

    /// The u and v planes at the filament level of a fluid velocity (3, nz, ny, nx).
    pub fn filament_plane<'a, T>(&self, fluid: &'a [T]) -> (&'a [T], &'a [T]) {
        let cells = self.cells();
        let u = self.z0_level * cells;
        let v = (self.nz() + self.z0_level) * cells;
        (&fluid[u..u + cells], &fluid[v..v + cells])
    }
}

/// The state at one step, x fastest in every array.
#[derive(Clone, Debug, PartialEq)]
pub struct GlidingFields {
    pub step: u64,
    /// The time reached and the last step's dt (0 before the first step).
    pub time: f64,
    pub dt: f64,
    /// Filament density Psi (ntheta, ny, nx).
    pub psi: Vec<f32>,
    /// The filament velocities of the last step (3, ntheta, ny, nx): Ux, Uy, Omega.
    pub velocity: Vec<f32>,
    /// The fluid velocity of the last step (3, nz, ny, nx): u, v, w.
    pub fluid: Vec<f32>,
    /// Per anchor r0 (ny, nx): total motors M, coarse bound M_b,coarse, free M_f, walked off.
    pub motors: Vec<[f32; 4]>,
    /// The motor force F (ny, nx) of seed eq. 10.
    pub motor_force: Vec<[f32; 2]>,
}
