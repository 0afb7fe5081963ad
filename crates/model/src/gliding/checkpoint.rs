//! Checkpoints of a gliding run: the whole [`GlidingState`] (Psi, AB2's last rates and flag,
//! the bound motors M_b, the per-anchor motor state and force, the fluid and filament
//! velocities of the last step, the clock: the last two steps' dt, the time in ticks, the last
//! Courant rate; the step). Nothing else carries over from one outer
//! step to the next (the moments, the Stokes force and the spectra are rebuilt every step), so
//! resuming gives bitwise the same run as not stopping, on the same adapter.
//!
//! The file does not hold the config; resuming needs the same config again. It holds hashes of
//! the config fields that shape the run, so a different config is refused with the fields that
//! differ named. `steps`, the output periods, `output` and `provenance` are left out: they do
//! not change the trajectory, so a run may be extended or observed differently.
//!
//! The file is a `petri_output::checkpoint` container of model `gliding`, format version
//! [`VERSION`]:
//!
//! | part | content |
//! |------|---------|
//! | metadata | `step`, `config_hash` (FNV-1a 64 over the field hashes), `fields` (a list of [config field, FNV-1a 64 of its JSON]) |
//! | `psi` | f32, (ntheta, ny, nx) |
//! | `rate` | f32, the last advective rate per Psi cell, then AB2's flag (0 or 1) |
//! | `bound` | f32, M_b (r0, d, theta, s) |
//! | `motors` | f32, four per anchor: total, coarse bound, free, walked off |
//! | `motor_force` | f32, two per anchor |
//! | `fluid` | f32, (3, nz, ny, nx) |
//! | `velocity` | f32, (3, ntheta, ny, nx) |
//! | `clock` | f32, three values: dt, dt_prev (both in [0, the config's dt]), rate (the last step's Courant rate) |
//! | `ticks` | u32, two values: the time in ticks (`clock.rs`), low and high words |
//!
//! [`load`] checks the container (checksum, lengths), the config's hashes, the step (at most
//! [`crate::checkpoint::MAX_STEP`]), every array's length against the config's grid, and every
//! value (finite; M_b >= 0 and 0 outside the capture disc; the AB2 flag 0 or 1; the clock's).
//! So a corrupt, truncated, edited or foreign file is an error naming the path, never a panic.
//! Version 2 replaced version 1's `max_courant` with `clock` and `ticks` (the adaptive dt): a
//! version 1 file is refused by its version.

use super::clock::Clock;
use super::params::GlidingConfig;
use super::state::{check_state, GlidingState, Shape};
use crate::checkpoint::{
    self as container, combined_hash, config_field_hashes, differing_fields, model_error, refuse,
    take,
};
use crate::error::{ModelError, Result};
use petri_output::checkpoint::{CheckpointFile, CheckpointWriter};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format version of the gliding part (metadata and arrays), written and read.
pub const VERSION: u32 = 2;
/// Model name in the container.
pub const MODEL: &str = "gliding";
/// The metadata: everything but the arrays.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    step: u64,
    config_hash: u64,
    fields: Vec<(String, u64)>,
}

/// The hashes of the config fields that shape a run (all but the run settings, `crate::checkpoint::RUN_SETTINGS`).
pub fn config_hashes(cfg: &GlidingConfig) -> Vec<(String, u64)> {
    config_field_hashes(cfg, &crate::checkpoint::RUN_SETTINGS)
}

/// Writes `state`, a state of a run of `cfg`, to `path`, replacing any file there atomically
/// and durably. A state that does not fit `cfg` (or holds values no run reaches) is refused.
pub fn save(path: &Path, cfg: &GlidingConfig, state: &GlidingState) -> Result<()> {
    let error = |message| ModelError::Checkpoint {
        path: path.display().to_string(),
        message,
    };
    let shape = Shape::of(cfg)?;
    check_state(&shape, state).map_err(error)?;
    writer(cfg, state).save(path).map_err(model_error)
}

/// Reads the checkpoint at `path`, refused unless it was written by a run of `cfg` (the fields
/// that differ are named) and holds a state that fits it.
pub fn load(path: &Path, cfg: &GlidingConfig) -> Result<GlidingState> {
    from_file(container::load(path, MODEL, VERSION)?, cfg)
}

fn writer<'a>(cfg: &GlidingConfig, s: &'a GlidingState) -> CheckpointWriter<'a> {
    let fields = config_hashes(cfg);
    let header = Header {
        step: s.step,
        config_hash: combined_hash(&fields),
        fields,
    };
    CheckpointWriter::new(MODEL, VERSION)
        .meta(serde_json::to_value(header).expect("the header serializes"))
        .array("psi", &s.psi)
        .array("rate", &s.rate)
        .array("bound", &s.bound)
        .array::<f32>("motors", bytemuck::cast_slice(&s.motors))
        .array::<f32>("motor_force", bytemuck::cast_slice(&s.motor_force))
        .array("fluid", &s.fluid)
        .array("velocity", &s.velocity)
        .array::<f32>("clock", &clock_words(&s.clock)[..3])
        .array::<u32>("ticks", bytemuck::cast_slice(&clock_words(&s.clock)[4..6]))
}

/// The clock's words: dt, dt_prev, rate (f32), failure, ticks_lo, ticks_hi, ... What a
/// checkpoint keeps of it are words 0..3 and 4..6 (a state's has no failed step).
fn clock_words(c: &Clock) -> &[f32] {
    bytemuck::cast_slice(std::slice::from_ref(c))
}

fn from_file(mut file: CheckpointFile, cfg: &GlidingConfig) -> Result<GlidingState> {
    let h: Header = container::header(&file)?;
    if combined_hash(&h.fields) != h.config_hash {
        return Err(refuse(
            &file,
            "config_hash does not match the field hashes".into(),
        ));
    }
    let now = config_hashes(cfg);
    if combined_hash(&now) != h.config_hash {
        return Err(refuse(
            &file,
            format!(
                "the config differs from the one the checkpoint was written with, in: {}",
                differing_fields(&now, &h.fields).join(", ")
            ),
        ));
    }
    let shape = Shape::of(cfg)?;
    let mut f32s = |name: &str| take::<f32>(&mut file, name);
    let (psi, rate, bound) = (f32s("psi")?, f32s("rate")?, f32s("bound")?);
    let (motors, force) = (f32s("motors")?, f32s("motor_force")?);
    let (fluid, velocity) = (f32s("fluid")?, f32s("velocity")?);
    let clock = f32s("clock")?;
    let &[dt, dt_prev, courant_rate] = clock.as_slice() else {
        return Err(refuse(
            &file,
            format!("clock holds {} numbers, not 3", clock.len()),
        ));
    };
    let ticks = take::<u32>(&mut file, "ticks")?;
    let &[ticks_lo, ticks_hi] = ticks.as_slice() else {
        return Err(refuse(
            &file,
            format!("ticks holds {} numbers, not 2", ticks.len()),
        ));
    };
    if motors.len() % 4 != 0 || force.len() % 2 != 0 {
        return Err(refuse(
            &file,
            format!(
                "motors holds {} numbers and motor_force {}: not whole vectors of 4 and 2",
                motors.len(),
                force.len()
            ),
        ));
    }
    let state = GlidingState {
        step: h.step,
        psi,
        rate,
        bound,
        motors: motors
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect(),
        motor_force: force.chunks_exact(2).map(|c| [c[0], c[1]]).collect(),
        fluid,
        velocity,
        clock: Clock {
            dt,
            dt_prev,
            rate: courant_rate,
            ticks_lo,
            ticks_hi,
            ..Clock::default()
        },
    };
    check_state(&shape, &state).map_err(|m| refuse(&file, m))?;
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::testing;

    /// The asset on a 4 x 4 grid of cells of 0.5 (stencil 3 x 3), 3 angles, 2 arc cells.
    fn tiny() -> GlidingConfig {
        let mut c: GlidingConfig =
            serde_json::from_str(include_str!("../../../../assets/gliding.json")).unwrap();
        (c.grid.nx, c.grid.ny, c.grid.lx, c.grid.ly) = (4, 4, 2.0, 2.0);
        (c.grid.ntheta, c.grid.ns, c.grid.nz, c.grid.z0) = (3, 2, 6, 0.15);
        c.validate().unwrap();
        c
    }

    fn sample(cfg: &GlidingConfig) -> GlidingState {
        let shape = Shape::of(cfg).unwrap();
        let (cells, nt, nz) = (shape.cells, shape.ntheta, shape.nz);
        let block = shape.tables.block(&shape.motors);
        let mut rate: Vec<f32> = (0..nt * cells).map(|i| i as f32 * 0.5).collect();
        rate.push(1.0);
        GlidingState {
            step: 41,
            psi: (0..nt * cells).map(|i| 1.0 + i as f32 / 8.0).collect(),
            rate,
            bound: (0..cells * block)
                .map(|i| shape.tables.mask[i % block] as f32 * (i % 5) as f32)
                .collect(),
            motors: (0..cells).map(|i| [1.0, 0.25, 0.75, i as f32]).collect(),
            motor_force: (0..cells).map(|i| [i as f32, -0.5]).collect(),
            fluid: (0..3 * nz * cells).map(|i| i as f32 * 1e-3).collect(),
            velocity: (0..3 * nt * cells).map(|i| -(i as f32)).collect(),
            clock: Clock {
                dt: (0.75 * cfg.dt) as f32,
                dt_prev: cfg.dt as f32,
                rate: 2.5,
                // 41 steps of about 0.9 dt (dt = 2^23 x 1.28 ticks).
                ticks_lo: 41 * 9_000_000,
                ticks_hi: 0,
                ..Clock::default()
            },
        }
    }

    fn encode(cfg: &GlidingConfig, s: &GlidingState) -> Vec<u8> {
        writer(cfg, s).to_bytes().unwrap()
    }

    fn decode(b: &[u8], cfg: &GlidingConfig) -> Result<GlidingState> {
        testing::decode(b, "mem", (MODEL, VERSION), |f| from_file(f, cfg))
    }

    fn refused(b: &[u8], cfg: &GlidingConfig) -> String {
        testing::refused(decode(b, cfg), "mem")
    }

    #[test]
    fn round_trips_bitwise() {
        let cfg = tiny();
        let s = sample(&cfg);
        assert_eq!(decode(&encode(&cfg, &s), &cfg).unwrap(), s);
        // Fields left out of the hashes do not change them.
        let mut longer = cfg.clone();
        longer.steps += 1000;
        longer.observe_every = 7;
        assert_eq!(decode(&encode(&cfg, &s), &longer).unwrap(), s);
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error() {
        let cfg = tiny();
        let bytes = encode(&cfg, &sample(&cfg));
        for len in (0..bytes.len()).step_by(7) {
            refused(&bytes[..len], &cfg);
        }
        for i in (0..bytes.len()).step_by(5) {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            refused(&b, &cfg);
        }
    }

    /// A well-formed file (checksum right) with a state that cannot be is refused, saying what.
    #[test]
    fn edited_states_are_refused_with_the_reason() {
        let cfg = tiny();
        let edit = |f: &dyn Fn(&mut GlidingState)| {
            let mut s = sample(&cfg);
            f(&mut s);
            refused(&encode(&cfg, &s), &cfg)
        };
        let e = edit(&|s| s.psi[3] = f32::NAN);
        assert!(e.contains("psi value 3 is NaN"), "{e}");
        let e = edit(&|s| s.bound[0] = -1.0);
        assert!(e.contains("bound value 0 is -1"), "{e}");
        let e = edit(&|s| *s.rate.last_mut().unwrap() = 0.5);
        assert!(e.contains("AB2's flag"), "{e}");
        let e = edit(&|s| s.clock.dt = 3.0 * cfg.dt as f32);
        assert!(e.contains("the clock's dt is 0.03 at step 41"), "{e}");
        // A dt of 0 after a step: AB2's ratio dt / dt_prev would be infinite at the next.
        let e = edit(&|s| s.clock.dt = 0.0);
        assert!(
            e.contains("the clock's dt is 0 at step 41") && e.contains("a step in ["),
            "{e}"
        );
        let e = edit(&|s| s.clock.ticks_hi = 7);
        assert!(e.contains("41 steps take"), "{e}");
        let e = edit(&|s| s.psi[5] = -0.5);
        assert!(
            e.contains("psi value 5 is -0.5: a filament density >= 0"),
            "{e}"
        );
        let e = edit(&|s| s.motors[2][2] = -0.25);
        assert!(
            e.contains("motors of anchor 2") && e.contains("free = total - bound"),
            "{e}"
        );
        let e = edit(&|s| s.motors[3] = [5.0, 1.0, 4.0, 0.0]);
        assert!(e.contains("the total is motors.density = 1"), "{e}");
        let e = edit(&|s| s.motors[0][3] = -1.0);
        assert!(e.contains("walked off -1"), "{e}");
        let e = edit(&|s| *s.rate.last_mut().unwrap() = 0.0);
        assert!(e.contains("AB2's flag) is 0 at step 41"), "{e}");
        let e = edit(&|s| s.clock.rate = f32::NAN);
        assert!(e.contains("the clock's rate is NaN"), "{e}");
        let e = edit(&|s| {
            s.fluid.pop();
        });
        assert!(
            e.contains("fluid holds 287 numbers") && e.contains("3 x nz x ny x nx = 288"),
            "{e}"
        );
        let e = edit(&|s| s.step = u64::MAX);
        assert!(e.contains("is past 4294967295"), "{e}");
        let other = CheckpointWriter::new("epidermis", 1).to_bytes().unwrap();
        assert!(refused(&other, &cfg).contains("model \"epidermis\", not of \"gliding\""));
        // save refuses what load would.
        let mut s = sample(&cfg);
        s.velocity[0] = f32::INFINITY;
        let path = std::env::temp_dir().join(format!("gliding-ck-{}.petri", std::process::id()));
        let e = save(&path, &cfg, &s).unwrap_err().to_string();
        assert!(
            e.contains("velocity value 0 is inf") && !path.exists(),
            "{e}"
        );
    }

    #[test]
    fn another_config_is_refused_with_the_fields_named() {
        let cfg = tiny();
        let bytes = encode(&cfg, &sample(&cfg));
        let mut other = cfg.clone();
        other.motors.k_on *= 2.0;
        other.seed += 1;
        let e = refused(&bytes, &other);
        assert!(e.contains("the config differs"), "{e}");
        assert!(e.contains("seed") && e.contains("motors"), "{e}");
        assert!(!e.contains("grid"), "{e}");
    }
}
