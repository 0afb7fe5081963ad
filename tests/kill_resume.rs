//! Kill and resume, for every model: a `petri run` with checkpoints, killed at seeded random
//! moments (SIGKILL, and SIGINT, which stops it after the batch under way), then
//! resumed from the checkpoint in its folder (or started again with `--overwrite` when the kill
//! came before the first checkpoint) until it completes, leaves the folder a straight run
//! leaves: the same files, each byte for byte (the series included: no row lost, none
//! twice), the manifest aside. Between kills, a second run into the folder is refused while
//! the first holds it, and a folder left "running" is reported as interrupted.

#![cfg(unix)]

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A small run of a model: its config (or network), the flags of its runs, the steps and the
/// checkpoint period.
struct Setup {
    config: PathBuf,
    /// The checkpoint holds the config (angiogenesis): `--resume` takes no config.
    resume_alone: bool,
    flags: Vec<&'static str>,
    steps: u64,
    checkpoint_every: u64,
}

fn setup(model: &str, dir: &Path) -> Setup {
    let (config, flags, steps, checkpoint_every) = match model {
        "angiogenesis" => (small_angiogenesis(dir), vec![], 60, 10),
        "rdme" => (small_min_system(dir), vec![], 120, 20),
        // A step is an output time.
        "network" => (
            PathBuf::from("assets/birth-death.json"),
            vec![
                "--method",
                "odm",
                "--trajectories",
                "4000",
                "--t-end",
                "50",
                "--points",
                "51",
                "--device",
                "cpu",
            ],
            50,
            7,
        ),
        // Cells divide at steps 20 and 40 (at 60 they would outgrow the capacity).
        "epidermis" => (small_epidermis(dir), vec![], 50, 10),
        "gliding" => (small_gliding(dir), vec![], 40, 10),
        other => panic!("no setup for {other}"),
    };
    Setup {
        config,
        resume_alone: model == "angiogenesis",
        flags,
        steps,
        checkpoint_every,
    }
}

/// A small counter-based generator (splitmix64): the kill times of a test are its seed's.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A whole number in lo..hi.
    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }
}

fn spawn(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_petri"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start petri")
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(ok.success());
}

fn manifest_of(out: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).ok()?).ok()
}

/// The arguments of the next run into `out`: resumed from its checkpoint for the steps left,
/// or (no checkpoint yet) a new run in place of the interrupted one.
fn next_run(s: &Setup, out: &Path) -> Vec<String> {
    let mut args = vec!["run".to_string(), arg(&s.config)];
    let checkpoint = out.join("checkpoint.petri");
    let steps = match petri_output::checkpoint::meta_of(&checkpoint) {
        Ok(meta) => {
            if s.resume_alone {
                args.pop();
            }
            args.extend(["--resume".into(), arg(&checkpoint)]);
            s.steps - meta["step"].as_u64().expect("a checkpoint's step")
        }
        Err(_) => {
            if out.exists() {
                args.push("--overwrite".into());
            }
            s.steps
        }
    };
    args.extend(s.flags.iter().map(|f| f.to_string()));
    args.extend([
        "--steps".into(),
        steps.to_string(),
        "--checkpoint-every".into(),
        s.checkpoint_every.to_string(),
        "--out".into(),
        arg(out),
    ]);
    args
}

/// A new run of one step into `out` (refused: `out` holds a run).
fn one_step(s: &Setup, out: &Path) -> Vec<String> {
    let mut args = vec!["run".to_string(), arg(&s.config)];
    args.extend(s.flags.iter().map(|f| f.to_string()));
    args.extend(["--steps".into(), "1".into(), "--out".into(), arg(out)]);
    args
}

/// `petri ARGS`, finished.
fn petri_with(args: &[String]) -> std::process::Output {
    petri(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn kill_and_resume(model: &str, seed: u64) {
    let dir = scratch(&format!("kill_{model}"));
    let s = setup(model, &dir);
    let straight = dir.join("straight");
    let t = Instant::now();
    let args = next_run(&s, &straight);
    let o = petri_with(&args);
    assert!(o.status.success(), "{model}: {}", text(&o));
    // Kills land anywhere in a run: before the device opens, between checkpoints, while
    // files are written.
    let whole_ms = (t.elapsed().as_millis() as u64).max(50);

    let out = dir.join("killed");
    let mut draws = Draws(seed);
    let (mut kills, mut interrupts) = (0, 0);
    for attempt in 0.. {
        assert!(attempt < 40, "{model}: no end after {attempt} runs");
        let args = next_run(&s, &out);
        let mut child = spawn(&args);
        let last = kills + interrupts >= 6;
        if !last {
            std::thread::sleep(Duration::from_millis(
                draws.between(whole_ms / 20, whole_ms),
            ));
            if child.try_wait().unwrap().is_none() {
                // While it runs, the folder is its own.
                if petri_output::lock_holder(&out).is_some() {
                    let again = petri_with(&one_step(&s, &out));
                    let e = text(&again);
                    assert!(!again.status.success(), "{model}: a second run: {e}");
                    // Still held now, so held all along: the run lets go of its lock as it
                    // ends, a moment before its process exits, and never takes it again.
                    if petri_output::lock_holder(&out).is_some() {
                        assert!(e.contains("is in use by a running petri run (pid "), "{e}");
                    }
                }
                let sigint = draws.between(0, 3) == 0;
                // (Unless it ended meanwhile: try_wait has then reaped it.)
                if child.try_wait().unwrap().is_none() {
                    match sigint {
                        true => interrupts += 1,
                        false => kills += 1,
                    }
                    signal(&child, if sigint { "INT" } else { "KILL" });
                }
            }
        }
        let status = child.wait().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        if status.success() {
            if kills + interrupts > 0 {
                break;
            }
            // Done before any kill: again from the start.
            std::fs::remove_dir_all(&out).unwrap();
            continue;
        }
        let m = manifest_of(&out);
        match status.code() {
            // Ctrl-C: the manifest says where it stopped.
            Some(130) => {
                let m = m.unwrap_or_else(|| panic!("{model}: no manifest after SIGINT"));
                assert_eq!(m["status"], "stopped", "{model}: {stderr}");
                assert!(m["error"]
                    .as_str()
                    .unwrap()
                    .starts_with("interrupted at step"));
            }
            None => {
                // Killed: a folder left "running" is an interrupted run to resume.
                if m.as_ref().is_some_and(|m| m["status"] == "running") {
                    let e = text(&petri_with(&one_step(&s, &out)));
                    assert!(e.contains(&format!("holds an interrupted {model}")), "{e}");
                }
            }
            Some(code) => panic!("{model}: petri exited with {code}: {stderr}"),
        }
    }
    eprintln!("{model}: {kills} SIGKILL, {interrupts} SIGINT");
    let m = manifest_of(&out).unwrap();
    assert_eq!(m["status"], "complete");
    assert_eq!(m["last_step"].as_u64(), Some(s.steps));

    let files = files_in(&straight);
    assert_eq!(
        files_in(&out),
        files,
        "{model}: the same files as a straight run"
    );
    for f in files.iter().filter(|f| *f != "manifest.json") {
        let (a, b) = (
            std::fs::read(straight.join(f)).unwrap(),
            std::fs::read(out.join(f)).unwrap(),
        );
        assert!(a == b, "{model}: {f} differs from a straight run's");
    }
}

#[test]
fn angiogenesis() {
    kill_and_resume("angiogenesis", 1);
}

#[test]
fn rdme() {
    kill_and_resume("rdme", 2);
}

#[test]
fn network() {
    kill_and_resume("network", 3);
}

#[test]
fn epidermis() {
    kill_and_resume("epidermis", 4);
}

#[test]
fn gliding() {
    kill_and_resume("gliding", 5);
}
