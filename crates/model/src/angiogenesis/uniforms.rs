//! The parameters as the shaders see them (`shaders/angiogenesis/common.wgsl`, AngioParams).

use super::params::{AngioConfig, Capture, Coupling, Tumour};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AngioUniforms {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    pub ncells: u32,
    pub k: f32,
    pub d: f32,
    pub inv_h2: f32,
    pub chi0: f32,
    pub alpha: f32,
    pub rho: f32,
    pub beta: f32,
    pub gamma: f32,
    pub eta: f32,
    pub branch_age: f32,
    pub max_tips: u32,
    pub max_segments: u32,
    pub branching: u32,
    pub anastomosis: u32,
    /// 2 for the 2D model (nz = 1), else 3: the stay weight is 1 - 2 dims r.
    pub dims: u32,
    /// n_b of the density condition (0: off).
    pub branch_density: f32,
    /// 1/psi (0 when psi = 0: a branching trial every step).
    pub trials_per_age: f32,
    /// 0: tumour face at x = Lx; 1: sphere of radius 0.1 at (Lx, Ly/2, Lz/2).
    pub tumour: u32,
    /// Grid spacing.
    pub h: f32,
    /// L, the mean number of events per tip per step of the tips' walk (walk.rs).
    pub walk_events: f32,
    /// 1: A&C's discrete coupling (f and c change only at occupied sites, n is the occupancy);
    /// 0: the continuous n drives them (the field pass is chosen on it: fields_discrete.wgsl or
    /// fields.wgsl).
    pub discrete: u32,
    /// 0: a tip meets another sprout only on the site it steps onto; 1: also on the face
    /// neighbours of that site (`tips.capture`).
    pub capture: u32,
}

impl AngioUniforms {
    /// Maps a validated config and its time step `k` into the uniform block.
    pub fn new(cfg: &AngioConfig, k: f64) -> Self {
        let h = cfg.h();
        Self {
            nx: cfg.grid[0],
            ny: cfg.grid[1],
            nz: cfg.grid[2],
            ncells: cfg.cells() as u32,
            k: k as f32,
            d: cfg.d as f32,
            inv_h2: (1.0 / (h * h)) as f32,
            chi0: cfg.chi0 as f32,
            alpha: cfg.alpha as f32,
            rho: cfg.rho as f32,
            beta: cfg.beta as f32,
            gamma: cfg.gamma as f32,
            eta: cfg.eta as f32,
            branch_age: cfg.tips.branch_age as f32,
            max_tips: cfg.tips.max_tips,
            max_segments: cfg.tips.max_segments,
            branching: cfg.tips.branching as u32,
            anastomosis: cfg.tips.anastomosis as u32,
            dims: cfg.dims(),
            branch_density: cfg.tips.branch_density as f32,
            trials_per_age: if cfg.tips.branch_age > 0.0 {
                (1.0 / cfg.tips.branch_age) as f32
            } else {
                0.0
            },
            tumour: match cfg.tumour {
                Tumour::Face => 0,
                Tumour::Sphere => 1,
            },
            h: h as f32,
            walk_events: cfg.walk_events(k) as f32,
            discrete: (cfg.coupling == Coupling::Discrete) as u32,
            capture: (cfg.capture() == Capture::Faces) as u32,
        }
    }

    pub fn index(&self, x: u32, y: u32, z: u32) -> usize {
        (x + self.nx * (y + self.ny * z)) as usize
    }

    pub fn coords(&self, i: u32) -> [u32; 3] {
        let x = i % self.nx;
        let yz = i / self.nx;
        [x, yz % self.ny, yz / self.ny]
    }

    /// Whether site i lies in the tumour: the x = Lx face, or the sphere of radius 0.1
    /// (`in_tumour` of common.wgsl, same f32 operations).
    pub fn in_tumour(&self, i: u32) -> bool {
        let [x, y, z] = self.coords(i);
        if self.tumour == 0 {
            return x + 1 == self.nx;
        }
        let dx = (self.nx - 1 - x) as f32 * self.h;
        let dy = (2 * y) as f32 - (self.ny - 1) as f32;
        let dz = (2 * z) as f32 - (self.nz - 1) as f32;
        let (dy, dz) = (0.5 * self.h * dy, 0.5 * self.h * dz);
        dx * dx + dy * dy + dz * dz <= 0.01
    }

    /// Whether a tip whose sprout age went from `before` to `after` this step has a branching
    /// trial: its age passed a multiple of psi (every step when psi = 0). `branch_trial` of
    /// tips_move.wgsl: multiplications, which WGSL rounds exactly as the CPU does.
    pub fn branch_trial(&self, before: f32, after: f32) -> bool {
        self.branch_age <= 0.0
            || (after * self.trials_per_age).floor() > (before * self.trials_per_age).floor()
    }

    /// A branching parent's age, and its new sprout's, after a trial during the step that took
    /// it to `age`: the time since the multiple of psi it passed, so the next trial comes psi
    /// after the branching moment (0 when psi = 0). `branch_restart` of tips_spawn.wgsl.
    pub fn branch_restart(&self, age: f32) -> f32 {
        if self.branch_age <= 0.0 {
            return 0.0;
        }
        (age - (age * self.trials_per_age).floor() * self.branch_age).max(0.0)
    }
}
