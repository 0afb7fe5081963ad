//! Parameter sweeps (`sweep.rs`): tasks run as ordinary runs would, failures recorded without
//! stopping the sweep, a second call finishing only what is left, and the same folders
//! whatever the number of workers.

use petri_engine::DeviceRequest;
use petri_model::model::{Config, Requested};
use petri_model::registry::Registry;
use petri_model::runtime::RunOptions;
use petri_model::sweep::{
    record_path, run_sweep, task_dir, Status, Sweep, SweepOptions, TaskRecord, SUMMARY_FILE,
};
use serde_json::json;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("petri-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets")
}

fn run(sweep: &Sweep, out: &Path, workers: usize) -> Vec<TaskRecord> {
    let opts = SweepOptions {
        out: out.to_path_buf(),
        workers: vec![DeviceRequest::from_env(); workers],
        stop: None,
    };
    run_sweep(&Registry::default(), sweep, &opts, &|_| {}).unwrap()
}

const NETWORK_OPTIONS: [&str; 8] = [
    "--device",
    "cpu",
    "--t-end",
    "5",
    "--points",
    "6",
    "--trajectories",
    "50",
];

/// A birth-death network over two birth rates, two death rates (one negative, which the
/// network refuses) and two seeds: the four valid tasks complete, the four others are recorded
/// as failed with the network's own message and the sweep goes on; a task's folder is what
/// `petri run` of its config writes; the summary has a row per task; a second call runs only
/// the failed tasks again; another spec into the same folder is refused.
#[test]
fn a_network_sweep_records_failures_and_finishes_what_is_left() {
    let dir = scratch("network");
    let spec = json!({
        "base": assets().join("birth-death.json"),
        "list": [{"parameters.mu": 0.11}, {"parameters.mu": -1}],
        "grid": {"parameters.lambda": [0.1, 0.2]},
        "seeds": [1, 2],
        "options": NETWORK_OPTIONS,
    });
    let sweep = Sweep::parse(&spec.to_string(), "bd-sweep.json", &dir).unwrap();
    assert_eq!(sweep.tasks.len(), 8);
    let out = dir.join("out");
    let records = run(&sweep, &out, 1);
    let status: Vec<Status> = records.iter().map(|r| r.status).collect();
    use Status::{Complete as C, Failed as F};
    assert_eq!(status, [C, C, C, C, F, F, F, F]);
    for r in &records[4..] {
        let e = r.error.as_deref().unwrap();
        assert!(e.contains("mu"), "{e}");
    }
    assert_eq!(records[0].columns[..2], ["time", "X-mean"]);
    assert_eq!(records[0].last_step, 5);

    // Task 3 (lambda 0.2, seed 1) against an ordinary run of the same config.
    let task = &sweep.tasks[2];
    assert_eq!(task.seed, Some(1));
    let config = sweep.config_of(task, false).unwrap();
    assert_eq!(config["parameters"]["lambda"], json!(0.2));
    let alone = dir.join("alone");
    let mut flags: Vec<String> = NETWORK_OPTIONS.iter().map(|s| s.to_string()).collect();
    flags.extend(["--seed".into(), "1".into()]);
    let config = Config::Json {
        text: config.to_string(),
        origin: "task 3".into(),
        base: dir.clone(),
    };
    let mut sim = Registry::default()
        .open(
            Some(&config),
            None,
            &flags,
            &Requested(DeviceRequest::from_env()),
            None,
        )
        .unwrap()
        .sim;
    sim.run_into(
        &RunOptions {
            steps: None,
            out_dir: alone.clone(),
            checkpoint_every: None,
            resumed: false,
            overwrite: false,
            setup_s: 0.0,
            stop: None,
        },
        &mut |_, _| {},
    )
    .unwrap();
    let csv = |d: &Path| std::fs::read(d.join("mean_sd.csv")).unwrap();
    assert_eq!(csv(&task_dir(&out, 2)), csv(&alone));
    assert_ne!(
        csv(&task_dir(&out, 2)),
        csv(&task_dir(&out, 3)),
        "seeds differ"
    );

    let summary = std::fs::read_to_string(out.join(SUMMARY_FILE)).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(lines.len(), 9);
    assert!(
        lines[0].starts_with(
            "task,status,seed,parameters.mu,parameters.lambda,last_step,final_time,final_X-mean"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[3].starts_with("3,complete,1,0.11,0.2,5,5,"),
        "{}",
        lines[3]
    );
    assert!(lines[5].starts_with("5,failed,1,-1,0.1,,"), "{}", lines[5]);

    // Again: the complete tasks are skipped (their records as they were), the failed run again.
    let before = std::fs::read(record_path(&out, 0)).unwrap();
    let again = run(&sweep, &out, 2);
    let skipped: Vec<bool> = again.iter().map(|r| r.skipped).collect();
    assert_eq!(
        skipped,
        [true, true, true, true, false, false, false, false]
    );
    assert_eq!(std::fs::read(record_path(&out, 0)).unwrap(), before);
    for (a, r) in again[..4].iter().zip(&records[..4]) {
        assert_eq!(
            (&a.task, a.status, &a.columns, a.last_step),
            (&r.task, r.status, &r.columns, r.last_step)
        );
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.last), bits(&r.last));
    }
    assert_eq!(
        std::fs::read_to_string(out.join(SUMMARY_FILE)).unwrap(),
        summary
    );

    // Another spec into the same folder.
    let mut other = spec.clone();
    other["seeds"] = json!([3]);
    let other = Sweep::parse(&other.to_string(), "other.json", &dir).unwrap();
    let opts = SweepOptions {
        out: out.clone(),
        workers: vec![DeviceRequest::from_env()],
        stop: None,
    };
    let e = run_sweep(&Registry::default(), &other, &opts, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("holds another sweep"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small 2D angiogenesis sweep over the density threshold and two seeds (the seed in the
/// config), on the GPU: with one worker and with three (three devices on one adapter), every
/// task folder's observables are the same bytes.
#[test]
fn a_gpu_sweep_gives_the_same_folders_whatever_the_workers() {
    let dir = scratch("angio");
    let spec = json!({
        "base": {
            "model": "angiogenesis", "grid": [41, 41, 1], "steps": 60, "observe_every": 20,
            "frame_every": 0, "snapshot_every": 60, "tips": {"branch_age": 0.05}
        },
        "grid": {"tips.branch_density": [0.5, 2.5]},
        "seeds": [4, 5],
    });
    let sweep = Sweep::parse(&spec.to_string(), "angio-sweep.json", &dir).unwrap();
    let one = dir.join("one");
    let three = dir.join("three");
    let a = run(&sweep, &one, 1);
    let b = run(&sweep, &three, 3);
    assert!(a.iter().all(|r| r.status == Status::Complete), "{a:?}");
    assert_eq!(a, b);
    for i in 0..4 {
        let obs = |d: &Path| std::fs::read(task_dir(d, i).join("observables.csv")).unwrap();
        assert_eq!(obs(&one), obs(&three), "task {}", i + 1);
    }
    for (i, seed) in [4, 5, 4, 5].into_iter().enumerate() {
        let manifest = std::fs::read_to_string(task_dir(&one, i).join("manifest.json")).unwrap();
        assert!(
            manifest.contains(&format!("\"seed\": {seed}")),
            "task {}",
            i + 1
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The example sweeps read, their tasks' configs built.
#[test]
fn the_example_sweeps_read() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sweeps");
    for (name, tasks) in [("angiogenesis.json", 12), ("vilar.json", 6)] {
        let sweep = Sweep::read(&dir.join(name)).unwrap();
        assert_eq!(sweep.tasks.len(), tasks, "{name}");
    }
}
