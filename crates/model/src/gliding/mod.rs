//! Gliding motility assay (micro-macro kinetic theory, after Cook et al.; spec
//! `shared/MODELS.md` section 5): filaments gliding over motors anchored to the bottom of a
//! thin fluid-filled channel. This module holds so far the fluid part: the Stokes flow in the
//! channel, periodic in x and y with no-slip walls at z = 0 and z = 1, driven by a body force
//! (GPU: `stokes`, CPU reference: `stokes_cpu`, the grid and finite differences: `channel`);
//! and the transport of the filament density Psi(x, y, theta) by given velocities with
//! translational and rotational diffusion (GPU: `filaments`, CPU reference: `filaments_cpu`);
//! and the bound motors M_b(r0, x, theta, s) with the free motors and the motor force of seed
//! eq. 10 (GPU: `motors`, CPU reference: `motors_cpu`). The coupling of the three into one outer
//! step, the outputs and the bench are to come.
//! See docs/models/gliding.md.

pub mod channel;
pub mod coupling;
pub mod coupling_cpu;
pub mod cpu;
pub mod fields;
pub mod filaments;
pub mod filaments_cpu;
pub mod init;
pub mod motors;
pub mod motors_cpu;
pub mod params;
pub mod sim;
pub mod stokes;
pub mod stokes_cpu;

pub use channel::{Channel, ZGrid};
pub use fields::{GlidingFields, GlidingGrid};
pub use filaments::{FilamentConfig, FilamentTransport};
pub use motors::{BoundMotors, MotorConfig, MotorTables};
pub use stokes::StokesSolver;
