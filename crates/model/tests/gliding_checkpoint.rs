//! Checkpoints of the coupled gliding assay (`petri_model::gliding::checkpoint`) on the GPU: a
//! run stopped, saved, loaded and resumed equals bit for bit a run that did not stop; a
//! corrupted, truncated or foreign file and a checkpoint of another config are refused with a
//! message naming the file and what is wrong.

mod gliding_common;

use gliding_common::{adaptive, tiny};
use petri_engine::testing::test_context;
use petri_model::gliding::checkpoint;
use petri_model::gliding::fields::GlidingFields;
use petri_model::gliding::sim::{GlidingSim, SimOptions};
use petri_model::gliding::state::GlidingState;
use petri_model::gliding::MotorTables;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gliding_checkpoint_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every field's bits, in one list per field.
fn bits(f: &GlidingFields) -> Vec<(&'static str, Vec<u32>)> {
    let flat = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    vec![
        ("psi", flat(&f.psi)),
        ("velocity", flat(&f.velocity)),
        ("fluid", flat(&f.fluid)),
        ("motors", flat(f.motors.as_flattened())),
        ("motor_force", flat(f.motor_force.as_flattened())),
    ]
}

/// The message of an error that should be a refusal of the checkpoint at `path`.
fn refused(e: petri_model::error::ModelError, path: &Path) -> String {
    let e = e.to_string();
    assert!(
        e.starts_with(&format!("checkpoint {}: ", path.display())),
        "{e}"
    );
    e
}

/// With the adaptive dt (it changes every step): the clock (dt, dt_prev, the time) is state.
#[test]
fn a_resumed_run_equals_the_straight_run_bit_for_bit() {
    let ctx = test_context();
    let cfg = adaptive();
    let dir = scratch("resume");
    let path = dir.join("k.petri");
    let (n, k) = (9, 4);
    let mut straight = GlidingSim::new(&ctx, &cfg, SimOptions::default()).unwrap();
    straight.advance(&ctx, n);
    let want = straight.read_fields(&ctx).unwrap();

    let mut first = GlidingSim::new(&ctx, &cfg, SimOptions::default()).unwrap();
    let start = first.read_fields(&ctx).unwrap();
    first.advance(&ctx, k);
    let saved = first.read_state(&ctx).unwrap();
    checkpoint::save(&path, &cfg, &saved).unwrap();
    let state = checkpoint::load(&path, &cfg).unwrap();
    assert_eq!(state, saved);
    assert_eq!(state.step, k);
    // Another batch length after the resume: the steps do not depend on it.
    let options = SimOptions {
        max_steps_per_batch: 3,
        ..SimOptions::default()
    };
    let mut resumed = GlidingSim::from_state(&ctx, &cfg, &state, options).unwrap();
    resumed.advance(&ctx, n - k);
    let got = resumed.read_fields(&ctx).unwrap();
    assert_eq!(
        (got.step, got.time, got.dt),
        (want.step, want.time, want.dt)
    );
    assert!(saved.clock.dt != saved.clock.dt_prev && saved.clock.dt < cfg.dt as f32);
    assert_eq!(
        resumed.read_state(&ctx).unwrap().clock,
        straight.read_state(&ctx).unwrap().clock
    );
    for ((name, a), (_, b)) in bits(&got).into_iter().zip(bits(&want)) {
        assert!(a == b, "{name} differs after the resume");
    }
    // Psi moved: the check is not of a still state.
    assert_ne!(bits(&want)[0].1, bits(&start)[0].1);
}

/// A checkpoint of a run with M_b split over three bindings (read back chunk by chunk) resumes
/// into a run split in two and into one unsplit (uploaded chunk by chunk), each equal to the
/// straight unsplit run bit for bit.
#[test]
fn a_checkpoint_of_a_split_run_resumes_split_or_not() {
    let ctx = test_context();
    let cfg = tiny();
    let dir = scratch("resume-split");
    let path = dir.join("k.petri");
    let (n, k) = (7, 3);
    let per_anchor = {
        let m = cfg.motor_config();
        4 * MotorTables::new(&m).unwrap().stage_block(&m) as u64
    };
    let split = |anchors: u64| SimOptions {
        max_motor_binding: Some(anchors * per_anchor),
        ..SimOptions::default()
    };
    let mut straight = GlidingSim::new(&ctx, &cfg, SimOptions::default()).unwrap();
    straight.advance(&ctx, n);
    let want = straight.read_fields(&ctx).unwrap();

    let mut first = GlidingSim::new(&ctx, &cfg, split(27)).unwrap();
    assert_eq!(first.motor_chunks().len(), 3);
    first.advance(&ctx, k);
    let saved = first.read_state(&ctx).unwrap();
    assert!(saved.bound.iter().any(|&b| b > 0.0), "motors bound");
    checkpoint::save(&path, &cfg, &saved).unwrap();
    let state = checkpoint::load(&path, &cfg).unwrap();
    assert_eq!(state, saved);
    for (options, chunks) in [(split(40), 2), (SimOptions::default(), 1)] {
        let mut resumed = GlidingSim::from_state(&ctx, &cfg, &state, options).unwrap();
        assert_eq!(resumed.motor_chunks().len(), chunks);
        assert_eq!(
            resumed.read_state(&ctx).unwrap(),
            saved,
            "{chunks} chunks: as saved"
        );
        resumed.advance(&ctx, n - k);
        let got = resumed.read_fields(&ctx).unwrap();
        for ((name, a), (_, b)) in bits(&got).into_iter().zip(bits(&want)) {
            assert!(
                a == b,
                "{name} differs after the resume into {chunks} chunks"
            );
        }
    }
}

#[test]
fn corrupt_truncated_and_foreign_checkpoints_are_refused() {
    let ctx = test_context();
    let cfg = tiny();
    let dir = scratch("refused");
    let path = dir.join("k.petri");
    let mut sim = GlidingSim::new(&ctx, &cfg, SimOptions::default()).unwrap();
    sim.advance(&ctx, 2);
    checkpoint::save(&path, &cfg, &sim.read_state(&ctx).unwrap()).unwrap();
    let bytes = std::fs::read(&path).unwrap();

    // One byte flipped in the middle of the arrays.
    let flipped = dir.join("flipped.petri");
    let mut b = bytes.clone();
    let i = b.len() / 2;
    b[i] ^= 0x01;
    std::fs::write(&flipped, &b).unwrap();
    let e = refused(checkpoint::load(&flipped, &cfg).unwrap_err(), &flipped);
    assert!(e.contains("checksum does not match"), "{e}");

    // Truncated: the last array runs past the end.
    let short = dir.join("short.petri");
    std::fs::write(&short, &bytes[..bytes.len() - 100]).unwrap();
    let e = refused(checkpoint::load(&short, &cfg).unwrap_err(), &short);
    assert!(e.contains("truncated"), "{e}");

    // Another config: the fields that differ are named.
    let mut other = cfg.clone();
    other.filaments.v_sp = 2.0;
    let e = refused(checkpoint::load(&path, &other).unwrap_err(), &path);
    assert!(
        e.contains("the config differs") && e.ends_with("in: filaments"),
        "{e}"
    );
    // A longer run of the same config resumes.
    let mut longer = cfg.clone();
    longer.steps *= 3;
    assert!(checkpoint::load(&path, &longer).is_ok());

    // Not a checkpoint at all.
    let text = dir.join("text.petri");
    std::fs::write(&text, "{\"model\": \"gliding\"}").unwrap();
    refused(checkpoint::load(&text, &cfg).unwrap_err(), &text);
}

/// A state a run reached passes the state's checks; the same state edited to what no run
/// reaches is refused before anything is stepped, saying what: a clock dt of 0 after a step
/// (the next AB2 ratio would be infinite: NaN velocities), negative filaments or motors.
#[test]
fn a_state_no_run_reaches_is_refused_before_it_is_stepped() {
    let ctx = test_context();
    let cfg = adaptive();
    let mut sim = GlidingSim::new(&ctx, &cfg, SimOptions::default()).unwrap();
    sim.advance(&ctx, 3);
    let state = sim.read_state(&ctx).unwrap();
    GlidingSim::from_state(&ctx, &cfg, &state, SimOptions::default()).unwrap();
    type Edit = fn(&mut GlidingState);
    let cases: [(Edit, &str); 4] = [
        (|s| s.clock.dt = 0.0, "the clock's dt is 0 at step 3"),
        (
            |s| s.psi[7] = -1.0,
            "psi value 7 is -1: a filament density >= 0",
        ),
        (|s| s.motors[5][1] = -0.5, "motors of anchor 5"),
        // A step counter edited back: the clock says two more steps were taken.
        (|s| s.step = 1, "at step 1: 0 before step 2"),
    ];
    for (edit, says) in cases {
        let mut s = state.clone();
        edit(&mut s);
        let e = GlidingSim::from_state(&ctx, &cfg, &s, SimOptions::default())
            .err()
            .expect("refused")
            .to_string();
        assert!(
            e.contains("not a state of a run of this config") && e.contains(says),
            "{e}"
        );
    }
}
