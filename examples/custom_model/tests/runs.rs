//! Runs through Petri's runtime: the files a run writes, and a run resumed from a checkpoint
//! against the straight run.

mod common;

use gray_scott::{sim, GrayScottConfig, GrayScottSim, Observables, RunOptions};
use petri_model::runtime::{self, ArrayData, Simulation, CHECKPOINT_FILE};
use std::path::Path;

fn options(
    dir: &Path,
    steps: u64,
    checkpoint_every: Option<u64>,
    resumed: bool,
) -> runtime::RunOptions {
    runtime::RunOptions {
        steps: Some(steps),
        out_dir: dir.to_path_buf(),
        checkpoint_every,
        resumed,
        overwrite: false,
        setup_s: 0.0,
        stop: None,
    }
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn a_run_writes_its_series_snapshots_and_manifest() {
    let ctx = common::ctx();
    let cfg = GrayScottConfig {
        snapshot_every: 100,
        ..common::small(32)
    };
    let dir = common::scratch("run");
    let opts = RunOptions {
        steps: None,
        out_dir: dir.clone(),
        overwrite: false,
        sim: (),
        checkpoint_every: None,
        resume: None,
        stop: None,
    };
    let mut seen = Vec::new();
    let report = sim::run(&ctx, &cfg, &opts, |o| seen.push(o.step)).unwrap();
    assert_eq!(seen, [0, 50, 100, 150, 200]);
    assert_eq!((report.first_step, report.last_step), (0, 200));

    let csv = std::fs::read_to_string(dir.join("observables.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), Observables::COLUMNS.join(","));
    let steps: Vec<&str> = lines.map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(steps, ["0", "50", "100", "150", "200"]);

    let m = manifest(&dir);
    assert_eq!(m["status"], "complete");
    assert_eq!(m["model"], "gray-scott");
    assert_eq!(m["last_step"], 200);
    assert_eq!(m["final_observables"]["step"], 200);
    assert_eq!(m["config"]["F"], 0.04);
    let listed: Vec<&str> = m["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for file in [
        "observables.csv",
        "fields_00000100.vti",
        "v_0000100.png",
        "fields_00000200.vti",
        "v.png",
        "manifest.json",
    ] {
        assert!(listed.contains(&file), "{file} not in {listed:?}");
        assert!(dir.join(file).is_file(), "{file} not written");
    }
}

#[test]
fn state_arrays_are_u_and_v_as_rows_of_x() {
    let ctx = common::ctx();
    let cfg = GrayScottConfig {
        grid: [40, 24],
        ..common::small(40)
    };
    let mut sim = GrayScottSim::new(&ctx, &cfg).unwrap();
    let arrays = sim.state_arrays().unwrap();
    let state = sim.read_state().unwrap();
    assert_eq!(arrays.len(), 2);
    for (a, name, values) in [(&arrays[0], "u", &state.u), (&arrays[1], "v", &state.v)] {
        assert_eq!(
            (a.name.as_str(), a.shape.as_slice()),
            (name, &[24usize, 40][..])
        );
        assert_eq!(a.data, ArrayData::F32(values.clone()));
    }
}

/// A run of 2N steps, and a run of N steps checkpointed at its end then resumed for N more into
/// the same folder: the series files are byte for byte the same, and so are the final fields.
#[test]
fn a_resumed_run_equals_the_straight_run_bitwise() {
    let ctx = common::ctx();
    let cfg = common::small(48);
    let n = 150;

    let straight_dir = common::scratch("straight");
    let mut straight = GrayScottSim::new(&ctx, &cfg).unwrap();
    runtime::run(
        &mut straight,
        &options(&straight_dir, 2 * n, None, false),
        |_| {},
    )
    .unwrap();

    let dir = common::scratch("resumed");
    let mut first = GrayScottSim::new(&ctx, &cfg).unwrap();
    runtime::run(&mut first, &options(&dir, n, Some(n), false), |_| {}).unwrap();
    drop(first);
    let mut resumed = GrayScottSim::resume(&ctx, &cfg, &dir.join(CHECKPOINT_FILE)).unwrap();
    assert_eq!(resumed.step(), n);
    runtime::run(&mut resumed, &options(&dir, n, None, true), |_| {}).unwrap();

    let (a, b) = (
        straight.read_state().unwrap(),
        resumed.read_state().unwrap(),
    );
    assert_eq!(a.step, 2 * n);
    assert!(
        a.u.iter()
            .zip(&b.u)
            .all(|(x, y)| x.to_bits() == y.to_bits()),
        "u differs"
    );
    assert!(
        a.v.iter()
            .zip(&b.v)
            .all(|(x, y)| x.to_bits() == y.to_bits()),
        "v differs"
    );
    for file in ["observables.csv", "fields_00000300.vti"] {
        assert_eq!(
            std::fs::read(straight_dir.join(file)).unwrap(),
            std::fs::read(dir.join(file)).unwrap(),
            "{file}"
        );
    }
    let m = manifest(&dir);
    assert_eq!(
        (m["status"].as_str(), m["first_step"].as_u64()),
        (Some("complete"), Some(n))
    );
}

/// A checkpoint resumes only under its run's config: a changed coefficient is refused by name,
/// a changed step count is not.
#[test]
fn a_checkpoint_refuses_another_config() {
    let ctx = common::ctx();
    let cfg = common::small(32);
    let path = common::scratch("refuse").with_extension("petri");
    let mut sim = GrayScottSim::new(&ctx, &cfg).unwrap();
    sim.run_steps(10);
    sim.save_checkpoint(&path).unwrap();

    let other = GrayScottConfig {
        feed: 0.05,
        kill: 0.062,
        ..cfg.clone()
    };
    let e = GrayScottSim::resume(&ctx, &other, &path)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains(&path.display().to_string()), "{e}");
    assert!(e.contains("another config: F, k differ"), "{e}");
    let e = GrayScottSim::resume(&ctx, &common::small(40), &path)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("grid") && e.contains("length"), "{e}");

    let longer = GrayScottConfig {
        steps: 5000,
        ..cfg.clone()
    };
    let back = GrayScottSim::resume(&ctx, &longer, &path).unwrap();
    assert_eq!(back.step(), 10);
    assert_eq!(back.read_state().unwrap(), sim.read_state().unwrap());
    let _ = std::fs::remove_file(&path);
}
