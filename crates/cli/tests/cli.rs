//! The `petri` binary as a user meets it: listing adapters, a short run with outputs and a
//! checkpoint, resuming it, and bad input refused with a clear message (exit code 1, no panic).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn petri(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_petri"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("run petri")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_{name}"));
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

fn write_config(dir: &Path, body: &str) -> String {
    let path = dir.join("cfg.json");
    std::fs::write(&path, body).unwrap();
    path.display().to_string()
}

#[test]
fn adapters_are_listed() {
    let o = petri(&["adapters"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with("[0] ") && out.contains("max storage binding"),
        "{out}"
    );
}

/// Without a desktop login (no XDG_RUNTIME_DIR, as in containers, cron and CI) a run prints
/// what is for the user only: no complaint of the windowing stack while adapters are probed
/// (libwayland's, through Mesa's device-select layer) and no EGL chatter from the GL probe.
#[test]
fn a_run_without_a_desktop_session_prints_no_windowing_noise() {
    let dir = scratch("quiet");
    let out = dir.join("o").display().to_string();
    let headless = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_petri"))
            .args(args)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("NODEVICE_SELECT")
            .env_remove("RUST_LOG")
            .output()
            .expect("run petri")
    };
    let runs = [
        headless(&["adapters"]),
        headless(&[
            "run",
            "assets/birth-death.json",
            "--device",
            "gpu",
            "--trajectories",
            "64",
            "--t-end",
            "2",
            "--points",
            "3",
            "--out",
            &out,
        ]),
    ];
    for o in &runs {
        let t = text(o);
        assert!(o.status.success(), "{t}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        for noise in ["XDG_RUNTIME_DIR", "wgpu_hal", "EGL"] {
            assert!(!stderr.contains(noise), "{noise} in stderr: {stderr}");
        }
    }
}

#[test]
fn short_run_writes_outputs_and_resumes() {
    let dir = scratch("run");
    let cfg = write_config(
        &dir,
        r#"{"model": "angiogenesis", "grid": [16, 16, 16], "steps": 40, "observe_every": 10,
            "snapshot_every": 10, "tips": {"max_tips": 256, "max_segments": 65536}}"#,
    );
    let out = dir.join("a").display().to_string();
    let o = petri(&[
        "run",
        &cfg,
        "--steps",
        "20",
        "--out",
        &out,
        "--checkpoint-every",
        "20",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("step 20:"),
        "{}",
        text(&o)
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("a/manifest.json")).unwrap()).unwrap();
    let listed: Vec<String> = serde_json::from_value(manifest["outputs"].clone()).unwrap();
    for f in [
        "manifest.json",
        "observables.csv",
        "fields_0000010.vti",
        "vessels_0000010.png",
        "fields_0000020.vti",
        "vessels_0000020.png",
        "vessels.vtp",
        "vessels.png",
        "checkpoint.petri",
    ] {
        assert!(dir.join("a").join(f).exists(), "missing {f}");
        assert!(
            listed.contains(&f.to_string()),
            "{f} not listed in {listed:?}"
        );
    }
    let ck = dir.join("a/checkpoint.petri").display().to_string();
    let out2 = dir.join("b").display().to_string();
    let o = petri(&["run", "--resume", &ck, "--steps", "20", "--out", &out2]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("step 40:"),
        "{}",
        text(&o)
    );
    // Resumed in its own folder, the run keeps the earlier frames and adds its own.
    let o = petri(&["run", "--resume", &ck, "--steps", "20", "--out", &out]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("a/manifest.json")).unwrap()).unwrap();
    let listed: Vec<String> = serde_json::from_value(manifest["outputs"].clone()).unwrap();
    for step in [10, 20, 30, 40] {
        let f = format!("vessels_{step:07}.png");
        assert!(dir.join("a").join(&f).exists(), "missing {f}");
        assert!(listed.contains(&f), "{f} not listed in {listed:?}");
    }
}

/// An epidermis run as a user starts it: outputs, a checkpoint, resuming it with its config in
/// its own folder; a checkpoint without its config, a bad value and a --workgroup of the wrong
/// shape are refused with what to do.
#[test]
fn epidermis_runs_and_resumes_with_its_config() {
    let dir = scratch("epidermis");
    let cfg = write_config(
        &dir,
        r#"{"model": "epidermis", "steps": 10, "observe_every": 5, "snapshot_every": 10,
            "box": {"lx": 3.0, "ly": 3.0, "height": 4.0}, "capacity": {"max_cells": 64},
            "initial": {"cells_x": 3, "cells_y": 3, "elements_per_cell": 20, "radius": 0.5,
                        "adhesive_per_cell": 5}}"#,
    );
    let out = dir.join("a").display().to_string();
    let o = petri(&["run", &cfg, "--out", &out, "--checkpoint-every", "10"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("step 10 (t = "),
        "{}",
        text(&o)
    );
    for f in [
        "observables.csv",
        "cells.csv",
        "elements_0000010.vtp",
        "tissue_top_0000010.png",
        "tissue_0000010.png",
        "tissue.png",
        "checkpoint.petri",
        "manifest.json",
    ] {
        assert!(dir.join("a").join(f).is_file(), "missing {f}");
    }
    let ck = dir.join("a/checkpoint.petri").display().to_string();
    let o = petri(&["run", &cfg, "--resume", &ck, "--out", &out]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("a/manifest.json")).unwrap()).unwrap();
    assert_eq!(
        (
            manifest["first_step"].as_u64(),
            manifest["last_step"].as_u64()
        ),
        (Some(10), Some(20))
    );
    let cells = std::fs::read_to_string(dir.join("a/cells.csv")).unwrap();
    // Nine cells at steps 0, 5, 10 (kept from the first run), 15 and 20.
    assert_eq!(cells.lines().count(), 1 + 9 * 5);

    assert_refused(
        &petri(&["run", "--resume", &ck, "--out", &out]),
        &["an epidermis checkpoint", "give the run's config too"],
    );
    let out = dir.join("b").display().to_string();
    assert_refused(
        &petri(&["run", &cfg, "--out", &out, "--workgroup", "8,8,1"]),
        &["--workgroup 8,8,1", "N,1,1"],
    );
    let bad = write_config(&dir, r#"{"model": "epidermis", "dt": -1.0}"#);
    assert_refused(&petri(&["run", &bad, "--out", &out]), &["dt", "-1"]);
}

fn assert_refused(o: &Output, needles: &[&str]) {
    let t = text(o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(!t.contains("panicked"), "{t}");
    for n in needles {
        assert!(t.contains(n), "expected {n:?} in: {t}");
    }
}

#[test]
fn bad_input_is_refused_with_the_field_named() {
    let dir = scratch("bad");
    let cfg = write_config(&dir, r#"{"model": "angiogenesis", "chi0": -0.4}"#);
    assert_refused(
        &petri(&["run", &cfg, "--out", &dir.join("out").display().to_string()]),
        &["chi0", "-0.4", ">= 0"],
    );
    let cfg = write_config(&dir, r#"{"model": "angiogenesis", "colour": "red"}"#);
    assert_refused(&petri(&["run", &cfg]), &["unknown field", "colour"]);
    let cfg = write_config(
        &dir,
        r#"{"model": "angiogenesis", "grid": [16, 16, 16], "dt": 10.0}"#,
    );
    assert_refused(&petri(&["run", &cfg]), &["dt", "at most"]);
    let cfg = write_config(&dir, r#"{"model": "swarming"}"#);
    assert_refused(
        &petri(&["run", &cfg]),
        &["model = \"swarming\" is not allowed", "angiogenesis, rdme"],
    );
    let cfg = write_config(&dir, r#"{"model": "gliding"}"#);
    assert_refused(&petri(&["run", &cfg]), &["missing field `seed`"]);
    assert_refused(
        &petri(&["run", "no/such/file.json"]),
        &["no/such/file.json"],
    );
    let fresh = dir.join("fresh").display().to_string();
    assert_refused(
        &petri(&[
            "run",
            "assets/angiogenesis.json",
            "--backend",
            "glide",
            "--out",
            &fresh,
        ]),
        &["glide", "vulkan"],
    );
    let o = Command::new(env!("CARGO_BIN_EXE_petri"))
        .arg("adapters")
        .env("PETRI_BACKEND", "bogus")
        .output()
        .expect("run petri");
    assert_refused(&o, &["bogus", "vulkan"]);
    assert_refused(
        &petri(&[
            "run",
            "assets/angiogenesis.json",
            "--adapter",
            "no-such-gpu",
        ]),
        &[
            "no GPU adapter",
            "no-such-gpu",
            "the adapters present: [0] ",
        ],
    );
    assert_refused(
        &petri(&["bench", "angiogenesis", "--sizes", "12q"]),
        &["12q"],
    );
    assert_refused(
        &petri(&["run", "assets/angiogenesis.json", "--resume", "ck.petri"]),
        &["--resume", "leave out the config"],
    );
}

/// A small cell for the rdme model: a capsule with a membrane shell in a 16 x 16 x 32 lattice,
/// A turning into B on the membrane and back in the cytoplasm (shared with the readers' fuzz
/// test of petri-model).
const RDME_CONFIG: &str = include_str!("../../model/tests/data/rdme-small.json");

#[test]
fn rdme_run_writes_outputs_and_resumes() {
    let dir = scratch("rdme");
    let cfg = write_config(&dir, RDME_CONFIG);
    let out = dir.join("a").display().to_string();
    let o = petri(&[
        "run",
        &cfg,
        "--steps",
        "40",
        "--out",
        &out,
        "--checkpoint-every",
        "20",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("step 40 (t = 0.0004 s): A "),
        "{}",
        text(&o)
    );
    for f in [
        "manifest.json",
        "observables.csv",
        "kymograph.csv",
        "kymograph.png",
        "analysis.json",
        "lattice_000000020.vti",
        "lattice_000000040.vti",
        "checkpoint.petri",
    ] {
        assert!(dir.join("a").join(f).exists(), "missing {f}");
    }
    let csv = std::fs::read_to_string(dir.join("a/observables.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 5, "{csv}");
    // The analysed profile is B per membrane site: at most 16, and 0 where no plane has membrane.
    let a: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("a/analysis.json")).unwrap()).unwrap();
    let profile: Vec<f64> = a["profile"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(profile.len(), 32);
    assert!(
        profile.iter().all(|&p| (0.0..=16.0).contains(&p)),
        "{profile:?}"
    );
    assert!(profile.iter().any(|&p| p > 0.0), "{profile:?}");
    assert!(a["mid_to_pole_ratio"].is_number(), "{a}");

    // The kymograph analysed again: the same profile with the run's own skip (0.2 of the
    // 0.4 ms between the 5 rows: from the second row on); none skipped with 0; with 0.5 too
    // few rows would be left, so all are used; a JSON copy on request; bad input refused.
    let json = dir.join("again.json").display().to_string();
    let o = petri(&["analyze", &cfg, "--out", &out, "--json", &json]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("5 rows, 4 used from 0.0001 s"),
        "{}",
        text(&o)
    );
    let again: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("again.json")).unwrap()).unwrap();
    assert_eq!(again["profile"], a["profile"]);
    for skip in ["0", "0.5"] {
        let o = petri(&["analyze", &cfg, "--out", &out, "--skip-fraction", skip]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("5 rows, 5 used from 0.0000 s"),
            "{}",
            text(&o)
        );
    }
    assert_refused(
        &petri(&["analyze", &cfg, "--out", &out, "--skip-fraction", "1"]),
        &["skip_fraction", "0 <= skip_fraction < 1"],
    );
    assert_refused(
        &petri(&["analyze", &cfg, "--out", &dir.display().to_string()]),
        &["kymograph.csv"],
    );
    assert_refused(
        &petri(&["analyze", "assets/angiogenesis.json"]),
        &["angiogenesis", "only rdme"],
    );

    // Resuming needs the config as well; on two devices the run carries on the same.
    let ck = dir.join("a/checkpoint.petri").display().to_string();
    let out2 = dir.join("b").display().to_string();
    let o = petri(&[
        "run",
        &cfg,
        "--resume",
        &ck,
        "--steps",
        "20",
        "--out",
        &out2,
        "--devices",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("step 60 "),
        "{}",
        text(&o)
    );
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("b/manifest.json")).unwrap()).unwrap();
    assert_eq!(
        (m["first_step"].as_u64(), m["last_step"].as_u64()),
        (Some(40), Some(60))
    );
    assert_eq!(m["devices"].as_array().unwrap().len(), 2);
    assert_refused(
        &petri(&["run", "--resume", &ck]),
        &["rdme checkpoint", "config too"],
    );
}

#[test]
fn bad_rdme_config_is_refused_with_the_field_named() {
    let dir = scratch("rdme_bad");
    let out = dir.join("out").display().to_string();
    // q = D tau / lambda^2 = 9.8 > 0.5.
    let cfg = write_config(&dir, &RDME_CONFIG.replace("2.5e-12", "2.5e-10"));
    assert_refused(
        &petri(&["run", &cfg, "--out", &out]),
        &["diffusion[0].d_m2_per_s", "must be <= 0.5"],
    );
    let cfg = write_config(
        &dir,
        &RDME_CONFIG.replace(r#""products": ["B"]"#, r#""products": ["C"]"#),
    );
    assert_refused(
        &petri(&["run", &cfg, "--out", &out]),
        &["reactions[0].products", "C", "one of the species"],
    );
    let cfg = write_config(
        &dir,
        &RDME_CONFIG.replace(r#""seed": 5"#, r#""seed": 5, "colour": 1"#),
    );
    assert_refused(
        &petri(&["run", &cfg, "--out", &out]),
        &["unknown field", "colour"],
    );
    let cfg = write_config(
        &dir,
        &RDME_CONFIG.replace(
            r#""kymograph_site_type": "membrane""#,
            r#""kymograph_site_type": "wall""#,
        ),
    );
    assert_refused(
        &petri(&["run", &cfg, "--out", &out]),
        &["output.kymograph_site_type", "wall"],
    );
    assert!(
        !dir.join("out").exists(),
        "nothing is written for a refused config"
    );
}

#[test]
fn workgroup_beyond_the_device_is_refused() {
    assert_refused(
        &petri(&[
            "run",
            "assets/angiogenesis.json",
            "--steps",
            "1",
            "--workgroup",
            "1024,2,1",
        ]),
        &["max_compute_invocations_per_workgroup", "2048"],
    );
}

/// The long flags a `--help` text lists.
fn help_flags(args: &[&str]) -> Vec<String> {
    let o = petri(args);
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .filter(|w| w.starts_with("--"))
        .map(|w| w.trim_end_matches(',').to_string())
        .collect()
}

#[test]
fn each_bench_lists_only_its_own_options() {
    // Options that only one benchmark has.
    let own: [(&str, &[&str]); 6] = [
        ("angiogenesis", &["--no-tips"]),
        ("gliding", &["--repeats"]),
        (
            "epidermis",
            &["--seed-steps", "--height", "--cpu-max-elements"],
        ),
        (
            "rdme",
            &[
                "--devices",
                "--scaling-only",
                "--halo-depth",
                "--balance-every",
                "--no-overlap-exchange",
                "--large",
                "--densities",
                "--sweeps",
            ],
        ),
        (
            "ssa",
            &[
                "--methods",
                "--t-end",
                "--points",
                "--cpu-trajectories",
                "--reactions",
                "--leaps",
                "--cpu-leaps",
                "--event-budget",
                "--table-kernel",
            ],
        ),
        ("primitives", &["--fft"]),
    ];
    for (model, mine) in own {
        let listed = help_flags(&["bench", model, "--help"]);
        for f in mine {
            assert!(
                listed.iter().any(|l| l == f),
                "bench {model} lacks {f}: {listed:?}"
            );
        }
        for (other, theirs) in own.iter().filter(|(m, _)| *m != model) {
            for f in *theirs {
                assert!(
                    !listed.iter().any(|l| l == f),
                    "bench {model} lists {f} of bench {other}: {listed:?}"
                );
            }
        }
    }
    // ssa takes ensemble sizes, not steps or grids; primitives only sizes, FFT shapes, the cuFFT
    // program, --json and the GPU.
    let ssa = help_flags(&["bench", "ssa", "--help"]);
    for f in ["--steps", "--cpu-max-cells", "--cpu-steps", "--workgroup"] {
        assert!(!ssa.iter().any(|l| l == f), "bench ssa lists {f}: {ssa:?}");
    }
    let mut primitives = help_flags(&["bench", "primitives", "--help"]);
    primitives.sort();
    assert_eq!(
        primitives,
        [
            "--adapter",
            "--backend",
            "--cuda-reference",
            "--fft",
            "--help",
            "--json",
            "--sizes"
        ],
        "{primitives:?}"
    );
}

/// Every `petri run` flag of one model given to another is refused before any device is
/// opened (the adapter named cannot be found, and is never looked for), naming the flag, the
/// model it belongs to and the config's model; nothing is written.
#[test]
fn flags_of_another_model_are_refused() {
    let dir = scratch("wrong_model");
    let out = dir.join("out").display().to_string();
    let angio = "assets/angiogenesis.json";
    let min = "assets/min-system.json";
    let net = "assets/vilar.json";
    let sbml = "data/dsmts/00001/00001-sbml-l3v1.xml";
    let cases: &[(&[&str], &[&str])] = &[
        (
            &[angio, "--sweeps", "occupied"],
            &["--sweeps", "of rdme runs", "model angiogenesis"],
        ),
        (
            &[angio, "--devices", "2"],
            &["--devices", "of rdme runs", "model angiogenesis"],
        ),
        (&[angio, "--devices", "1"], &["--devices", "of rdme runs"]),
        (
            &[angio, "--method", "tau"],
            &["--method", "of ssa (reaction network) runs"],
        ),
        (
            &[angio, "--t-end", "5"],
            &["--t-end", "of ssa (reaction network) runs"],
        ),
        (
            &[angio, "--trajectories-csv"],
            &["--trajectories-csv", "of ssa"],
        ),
        (
            &[min, "--trajectories", "10"],
            &["--trajectories", "of ssa", "model rdme"],
        ),
        (
            &[min, "--plot-species", "A"],
            &["--plot-species", "of ssa", "model rdme"],
        ),
        (&[min, "--seed", "3"], &["--seed", "of ssa", "model rdme"]),
        (
            &[min, "--device", "gpu"],
            &["--device", "of ssa", "model rdme"],
        ),
        (
            &[min, "--points", "3"],
            &["--points", "of ssa", "model rdme"],
        ),
        (
            &[net, "--t-end", "1", "--sweeps", "occupied"],
            &["--sweeps", "of rdme runs", "model ssa"],
        ),
        (
            &[net, "--t-end", "1", "--devices", "2"],
            &["--devices", "of rdme runs"],
        ),
        (
            &[sbml, "--t-end", "1", "--workgroup", "8,8,1"],
            &["--workgroup", "model ssa"],
        ),
        // A network run takes --resume: the missing checkpoint is named.
        (
            &[net, "--t-end", "1", "--resume", "ck.petri"],
            &["ck.petri"],
        ),
        (
            &[net, "--t-end", "1", "--workgroup", "8,8,1"],
            &[
                "--workgroup",
                "of angiogenesis, rdme, epidermis and gliding runs",
            ],
        ),
        // Without a config the checkpoint names the model: a missing one is named first.
        (&["--resume", "ck.petri", "--method", "tau"], &["ck.petri"]),
        // All wrong flags at once are named together.
        (
            &[angio, "--sweeps", "occupied", "--t-end", "3"],
            &[
                "--sweeps is an option of rdme",
                "--t-end is an option of ssa",
            ],
        ),
    ];
    for (args, words) in cases {
        let mut all = vec!["run"];
        all.extend(*args);
        all.extend(["--out", &out, "--adapter", "no-such-gpu"]);
        let o = petri(&all);
        assert_refused(&o, words);
        assert!(
            !text(&o).contains("no GPU adapter"),
            "{args:?}: {}",
            text(&o)
        );
    }
    assert!(
        !dir.join("out").exists(),
        "nothing is written for refused flags"
    );
}

#[test]
fn checkpoint_every_zero_is_refused() {
    for config in ["assets/angiogenesis.json", "assets/min-system.json"] {
        let o = petri(&["run", config, "--checkpoint-every", "0", "--steps", "1"]);
        let t = text(&o);
        assert!(!o.status.success() && !t.contains("panicked"), "{t}");
        assert!(
            t.contains("--checkpoint-every") && t.contains("1 or more"),
            "{t}"
        );
    }
}

#[test]
fn epidermis_bench_writes_its_rows() {
    let dir = scratch("epidermis-bench");
    let json = dir.join("e.json").display().to_string();
    let o = petri(&[
        "bench",
        "epidermis",
        "--sizes",
        "320",
        "--steps",
        "2",
        "--seed-steps",
        "0",
        "--warmup",
        "1",
        "--cpu-steps",
        "1",
        "--json",
        &json,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("| 320 | 16 | 8x8x5 |"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    let r = &rows[0];
    assert_eq!(
        (r["model"].as_str(), r["case"].as_str()),
        (Some("epidermis"), Some("RK2 step"))
    );
    assert_eq!(
        (r["size"].as_u64(), r["cells"].as_u64()),
        (Some(320), Some(16))
    );
    assert!(r["step_ms"].as_f64().unwrap() > 0.0, "{r}");
    assert!(r["cpu_ms"].as_f64().unwrap() > 0.0, "{r}");
    assert!(
        r["gpu_checksum"]["sum_abs_f"].as_f64().unwrap() > 0.0,
        "{r}"
    );
    // Sizes and heights the bench cannot take are refused before a device opens.
    for (args, needles) in [
        (
            &["--sizes", "330"][..],
            &["--sizes 330", "elements_per_cell"][..],
        ),
        (&["--height", "0"][..], &["--height 0", "> 0"][..]),
    ] {
        let mut all = vec!["bench", "epidermis", "--adapter", "no-such-gpu"];
        all.extend_from_slice(args);
        assert_refused(&petri(&all), needles);
    }
}

/// A bench whose every size is refused measures nothing and says so with a failure (it used
/// to exit 0).
#[test]
fn a_gliding_bench_of_refused_sizes_only_fails() {
    let o = petri(&["bench", "gliding", "--sizes", "2048x32", "--steps", "1"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("every size was refused (1 of 1)"),
        "{}",
        text(&o)
    );
}

#[test]
fn gliding_bench_writes_its_rows_and_refuses_what_does_not_fit() {
    let dir = scratch("gliding-bench");
    let json = dir.join("g.json").display().to_string();
    let o = petri(&[
        "bench",
        "gliding",
        "--sizes",
        "16x4,2048x32",
        "--steps",
        "2",
        "--warmup",
        "1",
        "--repeats",
        "2",
        "--json",
        &json,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // 16^2 anchors x 5 offsets (with 4 angles no head reaches the diagonal cells) x 4 angles x
    // 4 arc cells; dt 0.01 scaled by the cell (x4).
    assert!(
        out.contains("| 16^2 x 4^2 | 3x3 (5 offsets) | 20480 | 0.04 |"),
        "{out}"
    );
    // 2048^2 x 32^2's motors are over the device's max_buffer_size even on the 1x1 stencil
    // (on a software adapter: 2 GiB): its row says so before anything is allocated, no panic.
    assert!(
        out.contains("| 2048^2 x 32^2 | refused: out of device memory")
            && out.contains("max_buffer_size"),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    let r = &rows[0];
    assert_eq!(
        (r["model"].as_str(), r["case"].as_str(), r["size"].as_u64()),
        (Some("gliding"), Some("outer step"), Some(20480))
    );
    assert_eq!(
        (r["outer"].as_u64(), r["inner"].as_u64()),
        (Some(16), Some(4))
    );
    assert_eq!(r["stencil"], serde_json::json!([3, 3]), "{r}");
    assert_eq!(r["repeats"].as_u64(), Some(2), "{r}");
    assert!(r["step_ms"].as_f64().unwrap() > 0.0, "{r}");
    assert!(r["courant"].as_f64().unwrap() < 0.5, "{r}");
    if r["timestamps"].as_bool() == Some(true) {
        let split = r["split_ms"].as_object().unwrap();
        let stages: Vec<&str> = split.keys().map(String::as_str).collect();
        assert_eq!(
            stages,
            [
                "coupling",
                "filaments",
                "motors evolve",
                "motors force",
                "stokes"
            ],
            "{r}"
        );
    }
    // Sizes that are no OUTERxINNER are refused before a device opens.
    assert_refused(
        &petri(&[
            "bench",
            "gliding",
            "--sizes",
            "64",
            "--adapter",
            "no-such-gpu",
        ]),
        &["--sizes", "\"64\"", "OUTERxINNER"],
    );
}

#[test]
fn primitives_bench_prints_its_four_rows_and_the_fft() {
    let dir = scratch("primitives");
    let json = dir.join("p.json").display().to_string();
    let o = petri(&[
        "bench",
        "primitives",
        "--sizes",
        "1000",
        "--fft",
        "16x8",
        "--json",
        &json,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with('|')).collect();
    assert!(
        rows[0].starts_with("| primitive | key bits | size |"),
        "{out}"
    );
    // The primitives' table, then the FFT's: a header, a rule and one row (16 x 8 points).
    assert_eq!(rows.len(), 2 + 4 + 3, "{out}");
    assert!(rows[6].starts_with("| fft 2D forward |"), "{out}");
    assert!(rows[8].starts_with("| 16x8 | 128 | 10 |"), "{out}");
    let body: Vec<&str> = rows[2..6].to_vec();
    for (row, start) in body.iter().zip([
        "| scan | - | 1000 | 10 |",
        "| sort | 32 | 1000 | 10 |",
        "| sort | 20 | 1000 | 10 |",
        "| binning | ",
    ]) {
        assert!(
            row.starts_with(start),
            "{row:?} should start with {start:?}"
        );
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("p.json")).unwrap()).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "{doc}");
    assert_eq!(rows[4]["case"], "fft2d", "{doc}");
    for (r, case) in rows[..4].iter().zip(["scan", "sort", "sort", "binning"]) {
        assert_eq!(
            (&r["model"], &r["case"]),
            (&"primitives".into(), &case.into()),
            "{r}"
        );
        assert_eq!(
            (&r["size"], &r["repeats"], &r["warmup"]),
            (&1000.into(), &10.into(), &2.into()),
            "{r}"
        );
        let (mean, min) = (
            r["mean_ms"].as_f64().unwrap(),
            r["min_ms"].as_f64().unwrap(),
        );
        assert!(min > 0.0 && min <= mean, "{r}");
        // The median by the clock the row names.
        let median = match r["clock"].as_str().unwrap() {
            "gpu" => r["gpu_ms"].as_f64(),
            _ => r["wall_ms"].as_f64(),
        };
        assert!(median.is_some_and(|m| min <= m), "{r}");
    }
    // A --json file that cannot be written is refused before the benchmark opens a device.
    assert_refused(
        &petri(&[
            "bench",
            "primitives",
            "--json",
            &dir.join("no/such/folder/p.json").display().to_string(),
            "--adapter",
            "no-such-gpu",
        ]),
        &["--json", "does not exist"],
    );
    assert_refused(
        &petri(&[
            "bench",
            "primitives",
            "--sizes",
            "1000",
            "--adapter",
            "no-such-gpu",
        ]),
        &["no GPU adapter", "no-such-gpu"],
    );
}

/// A config that leaves fields out runs on their defaults and says which (issue 22: a config
/// without a grid ran 100^3 without a word).
#[test]
fn the_defaults_a_config_leaves_to_the_run_are_named() {
    let dir = scratch("defaults");
    let cfg = write_config(&dir, r#"{"model": "angiogenesis", "grid": [16, 16, 16]}"#);
    let out = dir.join("out").display().to_string();
    let o = petri(&["run", &cfg, "--steps", "1", "--out", &out]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("defaults used for D = 0.00035"), "{t}");
    assert!(t.contains("seed = 42") && !t.contains("grid = "), "{t}");
}

/// `petri sweep`: a line per task, a failing task recorded while the others complete (exit 1,
/// naming the summary), and the same call again running only what failed.
#[test]
fn a_sweep_runs_its_tasks_and_finishes_them_on_a_second_call() {
    let dir = scratch("sweep");
    let spec = dir.join("bd.json");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/birth-death.json");
    std::fs::write(
        &spec,
        format!(
            r#"{{"base": {:?}, "grid": {{"parameters.mu": [0.11, -1]}}, "seeds": [1, 2],
                "options": ["--device", "cpu", "--t-end", "4", "--points", "5", "--trajectories", "20"]}}"#,
            base.display().to_string()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let args = [
        "sweep",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--workers",
        "2",
    ];
    let o = petri(&args);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("4 tasks") && t.contains("2 of 4 tasks complete"),
        "{t}"
    );
    assert!(
        t.contains("task 1 (parameters.mu = 0.11, seed 1): complete, step 4"),
        "{t}"
    );
    assert!(
        t.contains("task 3 (parameters.mu = -1, seed 1): failed"),
        "{t}"
    );
    assert!(
        t.contains("2 tasks failed") && t.contains("summary.csv"),
        "{t}"
    );
    assert!(out.join("task-0002").join("mean_sd.csv").exists());
    let o = petri(&args);
    let t = text(&o);
    assert!(t.contains("2 from an earlier call"), "{t}");
    assert!(
        t.contains("task 2 (parameters.mu = 0.11, seed 2): complete before"),
        "{t}"
    );
}

#[test]
fn ssa_bench_compares_kinetic_laws_and_events() {
    let o = petri(&[
        "bench", "ssa", "--laws", "--t-end", "0", "--leaps", "0", "--sizes", "200",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("| ")).collect();
    for (row, law) in rows[1..].iter().zip([
        "mass action",
        "Michaelis-Menten",
        "Michaelis-Menten with 2 events",
    ]) {
        assert!(
            row.starts_with(&format!("| {law} | 200 | ")) && row.contains("| 800 |"),
            "{out}"
        );
    }
    assert_eq!(rows.len(), 4, "{out}");
}
