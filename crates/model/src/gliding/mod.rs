//! Gliding motility assay (micro-macro kinetic theory, after Cook et al.; spec
//! docs/MODELS.md section 5): filaments gliding over motors anchored to the bottom of a
//! thin fluid-filled channel. The coupled model (`sim`, CPU reference `cpu`; config `params`,
//! initial state `init`, coupling passes `coupling` and `coupling_cpu`) steps three parts on
//! one plan: the Stokes flow in the channel, periodic in x and y with no-slip walls at z = 0
//! and z = 1 (`stokes`, `stokes_cpu`, grid and finite differences `channel`); the transport
//! of the filament density Psi(x, y, theta) (`filaments`, `filaments_cpu`); the bound motors
//! M_b(r0, x, theta, s), the free motors and the motor force of seed eq. 10 (`motors`,
//! `motors_cpu`); the outer step's adaptive dt and its time (`clock`). What a run writes from
//! the fields of a step (`fields`): observables, VTK files and PNG frames (`output`); the run
//! itself: `run`, its state `state`, `checkpoint`; the bench: `bench`; the memory a config
//! asks for before anything is allocated: `budget`.
//! See docs/models/gliding.md.

pub mod bench;
pub mod budget;
pub mod channel;
pub mod checkpoint;
pub mod clock;
pub mod coupling;
pub mod coupling_cpu;
pub mod cpu;
pub mod fields;
pub mod filaments;
pub mod filaments_cpu;
pub mod init;
pub mod model;
pub mod motors;
pub mod motors_cpu;
pub mod output;
pub mod params;
pub mod ranges;
pub mod run;
pub mod sim;
pub mod state;
pub mod stokes;
pub mod stokes_cpu;

pub use channel::{Channel, ZGrid};
pub use fields::{GlidingFields, GlidingGrid};
pub use filaments::{FilamentConfig, FilamentTransport};
pub use motors::{BoundMotors, MotorConfig, MotorTables};
pub use stokes::StokesSolver;
