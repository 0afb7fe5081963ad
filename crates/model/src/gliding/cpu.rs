//! The coupled gliding assay on the CPU, in f64: the reference of `sim.rs`, step for step (the
//! same order of the same operations, tiny grids only: the Stokes and filament references use
//! a plain DFT).

use super::channel::Channel;
use super::coupling_cpu::{courant_rate, filament_velocities, fluid_force, moments};
use super::fields::{GlidingFields, GlidingGrid};
use super::filaments_cpu::FilamentsCpu;
use super::init::initial_psi;
use super::motors_cpu::MotorsCpu;
use super::params::GlidingConfig;
use super::stokes_cpu;
use crate::error::Result;

pub struct GlidingCpu {
    pub cfg: GlidingConfig,
    pub grid: GlidingGrid,
    channel: Channel,
    pub filaments: FilamentsCpu,
    pub motors: MotorsCpu,
    pub motor_force: Vec<[f64; 2]>,
    /// The fluid velocity (3, nz, ny, nx) and filament velocities (3, ntheta, ny, nx) of the last
    /// step.
    pub fluid: Vec<f64>,
    pub velocity: Vec<f64>,
    pub step: u64,
    /// The time reached, the last step's dt and its Courant rate (`clock.rs`'s rule in f64).
    pub time: f64,
    pub dt: f64,
    pub rate: f64,
}

impl GlidingCpu {
    pub fn new(cfg: &GlidingConfig) -> Result<Self> {
        cfg.validate()?;
        let grid = cfg.grid()?;
        let psi = initial_psi(cfg);
        let cells = grid.cells();
        let filaments = FilamentsCpu::new(&cfg.filament_config(), psi.clone())?;
        let motors = MotorsCpu::new(&cfg.motor_config(), vec![cfg.motors.density; cells], psi)?;
        Ok(Self {
            channel: cfg.channel()?,
            motor_force: vec![[0.0; 2]; cells],
            fluid: vec![0.0; 3 * grid.nz() * cells],
            velocity: vec![0.0; 3 * grid.ntheta * cells],
            cfg: cfg.clone(),
            grid,
            filaments,
            motors,
            step: 0,
            time: 0.0,
            dt: 0.0,
            rate: 0.0,
        })
    }

    /// One outer step (sim.rs's order).
    pub fn step(&mut self) -> Result<()> {
        let g = &self.grid;
        let m = moments(g, &self.filaments.psi);
        let force = fluid_force(g, &self.cfg.filaments, &m, &self.motor_force);
        self.fluid = stokes_cpu::solve(&self.channel, &force)?;
        let (u, v) = g.filament_plane(&self.fluid);
        let at_z0 = [u, v].concat();
        self.velocity = filament_velocities(g, &self.cfg.filaments, &m, &at_z0);
        self.rate = courant_rate(g, &self.velocity);
        self.dt = self.cfg.dt_rule().next_dt(self.rate, self.step)?;
        self.filaments.set_velocities(&self.velocity)?;
        self.filaments.step(self.dt)?;
        self.motors.psi.clone_from(&self.filaments.psi);
        self.motors.step(self.dt)?;
        self.motor_force = self.motors.force();
        self.time += self.dt;
        self.step += 1;
        Ok(())
    }

    /// The state as the GPU simulation reports it (f32).
    pub fn fields(&self) -> GlidingFields {
        let narrow = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
        let m = &self.motors;
        GlidingFields {
            step: self.step,
            time: self.time,
            dt: self.dt,
            psi: narrow(&self.filaments.psi),
            velocity: narrow(&self.velocity),
            fluid: narrow(&self.fluid),
            motors: (0..self.grid.cells())
                .map(|r| [m.total[r], m.coarse[r], m.free[r], m.walked[r]].map(|v| v as f32))
                .collect(),
            motor_force: self
                .motor_force
                .iter()
                .map(|f| f.map(|v| v as f32))
                .collect(),
        }
    }
}
