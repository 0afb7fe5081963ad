//! `petri sweep --mpi` and `petri run --mpi` under OpenMPI's mpirun (a petri built with the
//! `mpi` feature; the test scripts install OpenMPI): the same task folders and summary, byte
//! for byte, from one process, one rank and three ranks; a network ensemble over 2 and 3 ranks
//! writes the files of one process, bitwise, and its checkpoints resume on another number of
//! ranks; a rank that fails takes the run down, naming itself.
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
            // The folder names every rank's host and adapter.
            let text = std::fs::read_to_string(out.join("ranks.json")).unwrap();
            let listed: serde_json::Value = serde_json::from_str(&text).unwrap();
            let listed = listed.as_array().unwrap();
            assert_eq!(listed.len(), 3);
            for (r, entry) in listed.iter().enumerate() {
                assert_eq!(entry["rank"], r);
                assert!(!entry["host"].as_str().unwrap().is_empty());
                assert!(entry["adapter"].is_string());
            }
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

fn asset(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets")
        .join(name);
    path.to_str().unwrap().to_string()
}

fn manifest(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `petri run NET ARGS --out DIR` on `ranks` (0: one process without MPI); asserts success.
fn ensemble(ranks: usize, net: &str, out: &Path, args: &[&str]) -> String {
    let mut all = vec!["run", net, "--out", out.to_str().unwrap()];
    all.extend(args);
    if ranks > 0 {
        all.push("--mpi");
    }
    let o = petri(ranks, &all);
    assert!(o.status.success(), "{ranks} ranks: {}", text(&o));
    text(&o)
}

/// The flags of an ensemble on `device` by `method` of [trajectories, t_end, points, seed],
/// with trajectories.csv.
fn ensemble_args(device: &str, method: &str, [n, t_end, points, seed]: [u32; 4]) -> Vec<String> {
    let mut args: Vec<String> = ["--device", device, "--method", method]
        .map(String::from)
        .into();
    for (flag, v) in [
        ("--trajectories", n),
        ("--t-end", t_end),
        ("--points", points),
        ("--seed", seed),
    ] {
        args.extend([flag.to_string(), v.to_string()]);
    }
    args.push("--trajectories-csv".into());
    args
}

const ENSEMBLE_FILES: [&str; 3] = ["mean_sd.csv", "trajectories.csv", "mean_sd.png"];

/// Vilar's oscillator, 41 trajectories by each CPU method: one process, 2 and 3 ranks write
/// the same mean_sd.csv, trajectories.csv and mean_sd.png, byte for byte; the manifest names
/// every rank, its host and its trajectories, which cover the ensemble in order.
#[test]
fn a_cpu_ensemble_over_ranks_is_bitwise_one_process() {
    let dir = scratch("ensemble_cpu");
    let net = asset("vilar.json");
    for method in ["direct", "odm", "tau"] {
        let owned = ensemble_args("cpu", method, [41, 6, 7, 5]);
        let args: Vec<&str> = owned.iter().map(String::as_str).collect();
        let one = dir.join(format!("{method}-1"));
        ensemble(0, &net, &one, &args);
        for ranks in [2, 3] {
            let out = dir.join(format!("{method}-{ranks}"));
            let said = ensemble(ranks, &net, &out, &args);
            assert!(said.contains(&format!("over {ranks} ranks")), "{said}");
            let names: Vec<String> = ENSEMBLE_FILES.iter().map(|s| s.to_string()).collect();
            same_files(&one, &out, &names);
            let m = manifest(&out);
            assert_eq!(m["status"], "complete");
            let listed = m["ranks"].as_array().unwrap();
            assert_eq!(listed.len(), ranks);
            let mut next = 0;
            for (r, entry) in listed.iter().enumerate() {
                assert_eq!(entry["rank"], r);
                assert!(!entry["host"].as_str().unwrap().is_empty());
                assert!(entry["device"].as_str().unwrap().starts_with("cpu"));
                assert_eq!(entry["share"][0], next);
                next = entry["share"][1].as_u64().unwrap();
            }
            assert_eq!(next, 41);
        }
        assert!(manifest(&one).get("ranks").is_none());
    }
}

/// The GPU ensemble (the software adapter, ODM: the method with the most state per thread):
/// 2 ranks write what one process does. Its checkpoint, written by 2 ranks, is the one
/// process's and resumes on 3 ranks to a straight run's files.
#[test]
fn a_gpu_ensemble_over_ranks_is_bitwise_one_process_and_resumes_on_others() {
    let dir = scratch("ensemble_gpu");
    let net = asset("vilar.json");
    let owned = ensemble_args("gpu", "odm", [7, 1, 5, 2]);
    let args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let names: Vec<String> = ENSEMBLE_FILES.iter().map(|s| s.to_string()).collect();
    let one = dir.join("one");
    ensemble(0, &net, &one, &args);
    let out = dir.join("ranks-2");
    ensemble(2, &net, &out, &args);
    same_files(&one, &out, &names);
    let m = manifest(&out);
    assert_eq!(m["device"], "gpu");
    assert_eq!(m["ranks"].as_array().unwrap().len(), 2);
    resume_on_other_ranks(&dir, &net, &args, (2, 3), &one);
}

/// Runs `args` with checkpoints every 2 output times, stopped after 2, on one process and on
/// `first` ranks (the same checkpoint, byte for byte), then the rest on `then` ranks into the
/// same folder: the files of `straight`.
fn resume_on_other_ranks(
    dir: &Path,
    net: &str,
    args: &[&str],
    (first, then): (usize, usize),
    straight: &Path,
) {
    let mut half = args.to_vec();
    half.extend(["--checkpoint-every", "2", "--steps", "2"]);
    let single = dir.join(format!("half-{first}-{then}"));
    ensemble(0, net, &single, &half);
    let out = dir.join(format!("ranks-{first}-then-{then}"));
    ensemble(first, net, &out, &half);
    same_files(&single, &out, &["checkpoint.petri".to_string()]);
    let ck = out.join("checkpoint.petri");
    let mut rest = args.to_vec();
    rest.extend(["--resume", ck.to_str().unwrap()]);
    let said = ensemble(then, net, &out, &rest);
    assert!(said.contains("resuming from"), "{said}");
    let names: Vec<String> = ENSEMBLE_FILES.iter().map(|s| s.to_string()).collect();
    same_files(straight, &out, &names);
    assert_eq!(manifest(&out)["status"], "complete");
}

/// CPU checkpoints over ranks are the checkpoint of one process, byte for byte, and resume on
/// another number of ranks or on one process to the files of a straight run: ODM 3 -> 2
/// ranks, the direct method 2 ranks -> one process.
#[test]
fn a_cpu_ensemble_checkpoint_resumes_on_another_number_of_ranks() {
    let dir = scratch("ensemble_resume");
    let net = asset("vilar.json");
    for (method, ranks) in [("odm", (3, 2)), ("direct", (2, 0))] {
        let owned = ensemble_args("cpu", method, [19, 4, 5, 7]);
        let args: Vec<&str> = owned.iter().map(String::as_str).collect();
        let straight = dir.join(format!("{method}-straight"));
        ensemble(0, &net, &straight, &args);
        resume_on_other_ranks(&dir, &net, &args, ranks, &straight);
    }
}

/// A trajectory in rank 2's share reaches the count limit: the run stops with an error that
/// names rank 2 and its host and the trajectory (one process names the same trajectory), and
/// the folder's manifest says "stopped". A model whose runs do not split is refused.
#[test]
fn a_failing_rank_takes_the_run_down_naming_itself() {
    let dir = scratch("ensemble_fails");
    // X sits one below the count limit 2^30; a rare jump (a = 0.032 per unit time) takes it
    // there. With seed 21, trajectory 25 jumps before t = 1 and none of 0..20 does (20
    // trajectories run through), so only rank 2 (20..30 of 3 ranks) fails.
    let net = dir.join("edge.json");
    std::fs::write(
        &net,
        r#"{"species": [{"id": "X", "initial_count": 1073741823}],
            "reactions": [{"id": "jump", "reactants": ["X"], "products": ["X", "X"], "rate": 3e-11}]}"#,
    )
    .unwrap();
    let net = net.to_str().unwrap();
    let args = [
        "run",
        net,
        "--device",
        "cpu",
        "--trajectories",
        "30",
        "--t-end",
        "1",
        "--points",
        "3",
        "--seed",
        "21",
    ];
    let one = dir.join("one");
    let mut a = args.to_vec();
    a.extend(["--out", one.to_str().unwrap()]);
    let o = petri(0, &a);
    assert!(!o.status.success());
    let alone = text(&o);
    let trajectory = alone
        .split("in trajectory ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .unwrap_or_else(|| panic!("{alone}"))
        .parse::<u64>()
        .unwrap();
    assert_eq!(trajectory, 25, "{alone}");
    // The first 20 trajectories (the shares of ranks 0 and 1) run through.
    let mut first = args.to_vec();
    first[5] = "20";
    let first_out = dir.join("first-20");
    first.extend(["--out", first_out.to_str().unwrap()]);
    let o = petri(0, &first);
    assert!(o.status.success(), "{}", text(&o));

    let out = dir.join("ranks");
    let mut a = args.to_vec();
    a.extend(["--out", out.to_str().unwrap(), "--mpi"]);
    let o = petri(3, &a);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("rank 2 of 3 on "), "{t}");
    assert!(t.contains(&format!("in trajectory {trajectory} ")), "{t}");
    let m = manifest(&out);
    assert_eq!(m["status"], "stopped", "{m}");
    assert!(m["error"].as_str().unwrap().contains("rank 2 of 3"), "{m}");

    let o = petri(
        2,
        &[
            "run",
            &asset("angiogenesis.json"),
            "--out",
            dir.join("a").to_str().unwrap(),
            "--mpi",
        ],
    );
    let t = text(&o);
    assert!(
        !o.status.success() && t.contains("do not split over ranks"),
        "{t}"
    );

    // A share too large for a rank's memory is refused on every rank, before any folder.
    let huge = dir.join("huge");
    let o = petri(
        2,
        &[
            "run",
            &asset("vilar.json"),
            "--device",
            "cpu",
            "--trajectories",
            "1000000000000",
            "--t-end",
            "1",
            "--out",
            huge.to_str().unwrap(),
            "--mpi",
        ],
    );
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("trajectories = 1000000000000") && t.contains("a share per rank"),
        "{t}"
    );
    assert!(!huge.exists(), "{t}");
}

/// The process of `rank` among the children of the mpirun `parent` (OpenMPI sets
/// OMPI_COMM_WORLD_RANK in each rank's environment).
fn rank_pid(parent: u32, rank: usize) -> Option<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The parent's pid is the second field after the command's closing parenthesis.
            let ppid: u32 = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
            let has = env.split(|&b| b == 0).any(|v| v == want.as_bytes());
            (ppid == parent && has).then_some(pid)
        })
}

/// Starts `petri ARGS` on `ranks` ranks, waits until `started` exists, kills `rank` with
/// SIGKILL and returns mpirun's output: the launch must end (not wait for the dead rank).
fn kill_a_rank(ranks: usize, args: &[&str], started: &Path, rank: usize) -> Output {
    use std::process::Stdio;
    let child = Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            &ranks.to_string(),
        ])
        .arg(env!("CARGO_BIN_EXE_petri"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun");
    let id = child.id();
    // Generous bounds: the run lasts minutes, and a launch that waits is the failure.
    let mut victim = None;
    for _ in 0..1200 {
        victim = victim.or_else(|| rank_pid(id, rank));
        if victim.is_some() && started.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let victim = victim.expect("the rank's process");
    assert!(started.exists(), "{} never appeared", started.display());
    let killed = Command::new("kill")
        .args(["-9", &victim.to_string()])
        .status();
    assert!(killed.unwrap().success());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()).ok());
    match rx.recv_timeout(std::time::Duration::from_secs(120)) {
        Ok(o) => o.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &id.to_string()]).status();
            panic!("mpirun still waits 120 s after rank {rank} died");
        }
    }
}

/// A rank killed in the middle (SIGKILL: no word to rank 0) ends the launch: mpirun names the
/// rank, the exit status is not 0, and the folder does not say complete; likewise for a sweep.
#[test]
fn a_killed_rank_ends_the_launch() {
    let dir = scratch("killed");
    let out = dir.join("ensemble");
    let args = [
        "run",
        &asset("vilar.json"),
        "--device",
        "cpu",
        "--trajectories",
        "300",
        "--t-end",
        "100000",
        "--points",
        "3",
        "--out",
        out.to_str().unwrap(),
        "--mpi",
    ];
    let o = kill_a_rank(3, &args, &out.join("manifest.json"), 2);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("process rank 2"), "{t}");
    assert_ne!(manifest(&out)["status"], "complete");

    let spec = dir.join("spec.json");
    std::fs::write(
        &spec,
        format!(
            r#"{{"base": {:?}, "seeds": [1, 2, 3, 4],
                "options": ["--device", "cpu", "--t-end", "100000", "--points", "3", "--trajectories", "100"]}}"#,
            asset("vilar.json")
        ),
    )
    .unwrap();
    let out = dir.join("sweep");
    let args = [
        "sweep",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--mpi",
    ];
    let o = kill_a_rank(2, &args, &out.join("task-0001").join("manifest.json"), 1);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("process rank 1"), "{t}");
    assert!(!out.join("summary.csv").exists(), "{t}");
}
