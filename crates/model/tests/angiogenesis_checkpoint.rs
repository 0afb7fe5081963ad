//! Angiogenesis checkpoints: exact round trip through a file, bitwise resume on the GPU (lavapipe
//! in CI), and clear errors for corrupt files.

use petri_engine::testing::test_context;
use petri_model::angiogenesis::checkpoint::Checkpoint;
use petri_model::angiogenesis::params::{Coupling, InitialTips};
use petri_model::angiogenesis::state::Counter;
use petri_model::angiogenesis::{AngioSim, AngioState, AngioUniforms, SimOptions};
use petri_model::ModelError;
use std::path::{Path, PathBuf};

mod common;
use common::config;

/// A fresh, empty directory for one test under cargo's scratch space.
fn scratch(name: &str) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("angiogenesis_checkpoint_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn assert_same_state(a: &AngioState, b: &AngioState) {
    assert_eq!(a.step, b.step, "step");
    assert_eq!(bits(&a.n), bits(&b.n), "n");
    assert_eq!(bits(&a.f), bits(&b.f), "f");
    assert_eq!(bits(&a.c), bits(&b.c), "c");
    assert_eq!(a.occ, b.occ, "occ");
    assert_eq!(a.tips, b.tips, "tips");
    assert_eq!(a.segments, b.segments, "segments");
    assert_eq!(a.counters, b.counters, "counters");
}

/// Config, k and state come back from a file bit for bit, and the write leaves no temporary file.
#[test]
fn save_load_round_trip_is_exact() {
    let mut cfg = config(6);
    cfg.grid = [7, 6, 5];
    cfg.tips.initial = InitialTips::Clusters;
    cfg.dt = Some(1.0 / 3.0);
    cfg.seed = u64::MAX - 5;
    cfg.provenance = serde_json::json!({"note": "test", "weights/x": [0.1, 0.7]});
    let u = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::initial(&cfg, &u);
    s.add_tip(u.index(3, 2, 1) as u32);
    s.c[5] = -0.0;
    s.n[9] = f32::MIN_POSITIVE / 8.0;
    s.tips[0].age = 0.123_456_79;
    s.segments = vec![[1, 2, 0, 1], [2, 3, 0, 2]];
    s.counters[Counter::Segments as usize] = 2;
    s.counters[Counter::Branches as usize] = 1;
    s.step = 2;
    // A k whose decimal form does not read back exactly, within the stability bound.
    let bound = cfg.stability_bound(AngioState::initial(&cfg, &u).max_taxis_speed_sq(&cfg, &u));
    let k = (0.1 + 0.2) * bound;
    let ck = Checkpoint {
        config: cfg,
        k,
        state: s,
    };
    let dir = scratch("round_trip");
    let path = dir.join("run.ck");
    ck.save(&path).unwrap();
    // Saving again replaces the file.
    ck.save(&path).unwrap();
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("run.ck")]);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], b"PETRI-CK");

    let back = Checkpoint::load(&path).unwrap();
    assert_eq!(back.k.to_bits(), k.to_bits());
    assert_eq!(
        serde_json::to_string(&back.config).unwrap(),
        serde_json::to_string(&ck.config).unwrap()
    );
    assert_eq!(back.config.dt.unwrap().to_bits(), (1.0f64 / 3.0).to_bits());
    assert_eq!(back.config.seed, u64::MAX - 5);
    assert_same_state(&back.state, &ck.state);
}

/// 30 steps straight equal 13 steps, a checkpoint through a file, and 17 more: fields, tips,
/// occupancy, vessels and counters bit for bit, with either coupling (the checkpoint's config
/// carries it).
#[test]
fn resumed_run_is_bitwise_identical() {
    for coupling in [Coupling::Continuous, Coupling::Discrete] {
        resume_bitwise(coupling);
    }
}

fn resume_bitwise(coupling: Coupling) {
    let ctx = test_context();
    let mut cfg = config(20);
    cfg.coupling = coupling;
    cfg.tips.branch_age = 0.0;
    cfg.tips.branch_density = 1.5;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::initial(&cfg, &u0);
    // Tips where c is high (Pb = 1), so branching follows a tip's first move (~0.2 per tip in
    // 30 steps here).
    for x in [13, 14, 15] {
        for y in [6, 10, 14] {
            for z in [6, 10, 14] {
                s.add_tip(u0.index(x, y, z) as u32);
            }
        }
    }
    let k = cfg.time_step(s.max_taxis_speed_sq(&cfg, &u0)).unwrap();
    let options = SimOptions::default();

    let mut straight = AngioSim::from_state(&ctx, &cfg, k, &s, &options).unwrap();
    straight.advance(&ctx, 30);
    let straight = straight.read_state(&ctx).unwrap();

    let mut first = AngioSim::from_state(&ctx, &cfg, k, &s, &options).unwrap();
    first.advance(&ctx, 13);
    let path = scratch("resume").join("step13.ck");
    Checkpoint::from_sim(&ctx, &first)
        .unwrap()
        .save(&path)
        .unwrap();
    drop(first);
    let loaded = Checkpoint::load(&path).unwrap();
    assert_eq!(loaded.state.step, 13);
    assert_eq!(loaded.k.to_bits(), k.to_bits());
    assert_eq!(loaded.config.coupling, coupling);
    let mut resumed = loaded.into_sim(&ctx, &options).unwrap();
    assert_eq!(resumed.step(), 13);
    resumed.advance(&ctx, 17);
    let resumed = resumed.read_state(&ctx).unwrap();

    assert_eq!(straight.step, 30);
    assert_same_state(&resumed, &straight);
    assert!(
        straight.counter(Counter::Branches) > 0,
        "test should exercise branching"
    );
    assert!(
        straight.segments.iter().any(|seg| seg[3] >= 13),
        "tips should move after the checkpoint"
    );
}

/// Truncated, flipped, old-format and missing files are errors naming the path, not panics.
#[test]
fn corrupt_checkpoints_are_errors_naming_the_path() {
    let cfg = config(8);
    let u = AngioUniforms::new(&cfg, 0.0);
    let state = AngioState::initial(&cfg, &u);
    let ck = Checkpoint {
        k: cfg.time_step(state.max_taxis_speed_sq(&cfg, &u)).unwrap(),
        state,
        config: cfg,
    };
    let dir = scratch("corrupt");
    let good = dir.join("good.ck");
    ck.save(&good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    // Magic, container version, model name, model version: 8 + 4 + 4 + 12 + 4 bytes.
    let meta_at = 32 + 8;
    let meta_len = u64::from_le_bytes(bytes[32..meta_at].try_into().unwrap()) as usize;

    let expect_error = |name: &str, data: &[u8], want: &str| {
        let path = dir.join(name);
        std::fs::write(&path, data).unwrap();
        let err = Checkpoint::load(&path).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, ModelError::Checkpoint { .. }),
            "{name}: {text}"
        );
        assert!(
            text.contains(&path.display().to_string()) && text.contains(want),
            "{name}: {text}"
        );
    };
    expect_error("empty.ck", &[], "too short");
    expect_error("magic_only.ck", &bytes[..8], "truncated");
    expect_error(
        "half_header.ck",
        &bytes[..meta_at + meta_len / 2],
        "truncated",
    );
    expect_error("no_arrays.ck", &bytes[..meta_at + meta_len], "truncated");
    expect_error("short_by_one.ck", &bytes[..bytes.len() - 1], "truncated");
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 4;
    expect_error("flipped.ck", &flipped, "checksum does not match");
    let mut bad_magic = bytes.clone();
    bad_magic[..8].copy_from_slice(b"PETRICK2");
    expect_error("bad_magic.ck", &bad_magic, "not a Petri checkpoint");
    let mut old = bytes.clone();
    old[..8].copy_from_slice(b"PETRICK1");
    expect_error("old.ck", &old, "older Petri");
    expect_error(
        "text.ck",
        b"{\"model\": \"angiogenesis\"}",
        "not a Petri checkpoint",
    );
    let mut trailing = bytes.clone();
    trailing.extend([0u8; 4]);
    expect_error("trailing.ck", &trailing, "trailing bytes");

    let missing = dir.join("missing.ck");
    let err = Checkpoint::load(&missing).unwrap_err();
    assert!(matches!(err, ModelError::Io { .. }), "{err}");
    assert!(err.to_string().contains("missing.ck"), "{err}");
    // Saving into a directory that does not exist is an io error too, and leaves nothing behind.
    let err = ck.save(&dir.join("no_such_dir").join("x.ck")).unwrap_err();
    assert!(matches!(err, ModelError::Io { .. }), "{err}");
    assert!(err.to_string().contains("x.ck"), "{err}");
}
