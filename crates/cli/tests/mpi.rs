//! `petri sweep --mpi` under OpenMPI's mpirun (a petri built with the `mpi` feature; the test
//! scripts install OpenMPI): the same task folders and summary, byte for byte, from one
//! process, one rank and three ranks.
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mpi_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `petri ARGS`, alone (ranks = 0) or under `mpirun -np ranks`.
fn petri(ranks: usize, args: &[&str]) -> Output {
    let bin = env!("CARGO_BIN_EXE_petri");
    let mut c = match ranks {
        0 => Command::new(bin),
        n => {
            let mut c = Command::new("mpirun");
            c.args([
                "--allow-run-as-root",
                "--oversubscribe",
                "-np",
                &n.to_string(),
                bin,
            ]);
            c
        }
    };
    c.args(args)
        .output()
        .expect("run petri (mpirun: scripts/test.sh installs OpenMPI)")
}

fn same_files(a: &Path, b: &Path, names: &[String]) {
    for name in names {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            read(a) == read(b),
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

fn sweep_everywhere(name: &str, spec: &str, files: &[String]) {
    let dir = scratch(name);
    let spec_path = dir.join("spec.json");
    std::fs::write(&spec_path, spec).unwrap();
    let spec_path = spec_path.to_str().unwrap();
    let mut outs = Vec::new();
    for (ranks, mpi) in [(0, false), (1, true), (3, true)] {
        let out = dir.join(format!("out-{ranks}"));
        let mut args = vec!["sweep", spec_path, "--out", out.to_str().unwrap()];
        if mpi {
            args.push("--mpi");
        }
        let o = petri(ranks, &args);
        assert!(o.status.success(), "{ranks} ranks: {}", text(&o));
        if ranks == 3 {
            // Rank 0 reports each task as a worker rank (1 or 2) ends it.
            let t = text(&o);
            let reported = t.matches(": complete, step").count();
            assert_eq!(reported, files.len(), "{t}");
            assert!(
                t.contains("rank 1: task") || t.contains("rank 2: task"),
                "{t}"
            );
        }
        outs.push(out);
    }
    let mut names: Vec<String> = vec!["summary.csv".into()];
    names.extend(files.iter().cloned());
    same_files(&outs[0], &outs[1], &names);
    same_files(&outs[0], &outs[2], &names);
}

#[test]
fn a_network_sweep_over_ranks_writes_what_one_process_does() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/birth-death.json");
    let spec = format!(
        r#"{{"base": {:?}, "grid": {{"parameters.mu": [0.11, 0.12]}}, "seeds": [1, 2, 3],
            "options": ["--device", "cpu", "--t-end", "4", "--points", "5", "--trajectories", "40"]}}"#,
        base.display().to_string()
    );
    let files: Vec<String> = (1..=6)
        .map(|i| format!("task-{i:04}/mean_sd.csv"))
        .collect();
    sweep_everywhere("network", &spec, &files);
}

#[test]
fn a_gpu_sweep_over_ranks_writes_what_one_process_does() {
    let spec = r#"{"base": {"model": "angiogenesis", "grid": [41, 41, 1], "steps": 60,
        "observe_every": 20, "frame_every": 0, "snapshot_every": 60,
        "tips": {"branch_age": 0.05}}, "seeds": [4, 5, 6]}"#;
    let files: Vec<String> = (1..=3)
        .map(|i| format!("task-{i:04}/observables.csv"))
        .collect();
    sweep_everywhere("angiogenesis", spec, &files);
}
