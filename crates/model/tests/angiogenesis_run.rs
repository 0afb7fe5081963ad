//! A whole run into a folder: every output file is written and readable, and the checkpoint it
//! leaves resumes at the right step.

mod common;

use common::config;
use petri_engine::testing::test_context;
use petri_model::angiogenesis::checkpoint::Checkpoint;
use petri_model::angiogenesis::run::{run, RunOptions};
use petri_model::angiogenesis::SimOptions;
use petri_output::RgbImage;
use std::path::Path;

/// A new run of `steps` into the empty folder `name` of the tests' scratch space.
fn options(name: &str, steps: u64, checkpoint_every: Option<u64>) -> RunOptions {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    RunOptions {
        steps: Some(steps),
        out_dir: dir,
        overwrite: false,
        sim: SimOptions::default(),
        checkpoint_every,
        resume: None,
        stop: None,
    }
}

#[test]
fn run_writes_every_output() {
    let ctx = test_context();
    let mut cfg = config(16);
    cfg.observe_every = 5;
    cfg.snapshot_every = 10;
    let opts = options("angiogenesis_run_outputs", 20, Some(10));
    let dir = opts.out_dir.clone();
    let mut seen = Vec::new();
    let manifest = run(&ctx, &cfg, &opts, |o| seen.push(o.step)).unwrap();
    // The first observation (the starting state) is shown too.
    assert_eq!(seen, vec![0, 5, 10, 15, 20]);
    assert_eq!((manifest.first_step, manifest.last_step), (0, 20));

    // CSV: header, the initial state, one row per readback.
    let csv = std::fs::read_to_string(dir.join("observables.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("step,time,total_n"));
    assert_eq!(lines.len(), 1 + 1 + 4);
    assert!(lines[5].starts_with("20,"));

    // Snapshots at 10 and 20 with a picture (frame) each, vessels, picture, manifest,
    // checkpoint.
    let files = [
        "fields_0000010.vti",
        "vessels_0000010.png",
        "fields_0000020.vti",
        "vessels_0000020.png",
        "vessels.vtp",
        "vessels.png",
        "manifest.json",
        "checkpoint.petri",
    ];
    for f in files {
        let meta = std::fs::metadata(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(meta.len() > 0, "{f} is empty");
    }
    let vti = std::fs::read(dir.join("fields_0000020.vti")).unwrap();
    let head = String::from_utf8_lossy(&vti[..600.min(vti.len())]).to_string();
    assert!(
        head.contains("ImageData") && head.contains("WholeExtent=\"0 15 0 15 0 15\""),
        "{head}"
    );
    // The pictures decode, two views of the 16^3 grid side by side; the last frame is the
    // final picture.
    let picture = decode_png(&dir.join("vessels.png"));
    assert_eq!(picture.0, 1100);
    assert!((500..700).contains(&picture.1), "{picture:?}");
    assert_eq!(decode_png(&dir.join("vessels_0000020.png")), picture);
    assert_eq!(decode_png(&dir.join("vessels_0000010.png")).0, 1100);

    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["model"], "angiogenesis");
    assert_eq!(m["seed"], cfg.seed);
    assert_eq!(m["last_step"], 20);
    assert_eq!(m["adapter"]["name"], ctx.adapter.name.as_str());
    assert!(m["dt"].as_f64().unwrap() > 0.0);
    let listed: Vec<&str> = m["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    for f in files {
        assert!(listed.contains(&f), "{f} not in {listed:?}");
    }
    assert_eq!(m["config"]["grid"], serde_json::json!([16, 16, 16]));

    let ck = Checkpoint::load(&dir.join("checkpoint.petri")).unwrap();
    assert_eq!(ck.state.step, 20);
}

#[test]
fn frames_alone_come_every_frame_every_steps() {
    let ctx = test_context();
    let mut cfg = config(16);
    cfg.frame_every = 10;
    let opts = options("angiogenesis_run_frames", 25, None);
    let dir = opts.out_dir.clone();
    let report = run(&ctx, &cfg, &opts, |_| {}).unwrap();
    // Pictures at 10, 20 and the last step; the fields only at the end.
    let frames: Vec<&str> = report
        .outputs
        .iter()
        .map(String::as_str)
        .filter(|f| f.ends_with(".png") || f.ends_with(".vti"))
        .collect();
    assert_eq!(
        frames,
        [
            "vessels_0000010.png",
            "vessels_0000020.png",
            "fields_0000025.vti",
            "vessels_0000025.png",
            "vessels.png"
        ]
    );
    for f in frames {
        assert!(dir.join(f).is_file(), "{f}");
    }
    assert_eq!(decode_png(&dir.join("vessels_0000010.png")).0, 1100);
}

/// Width, height and pixels of an 8-bit RGB PNG file.
fn decode_png(path: &Path) -> (usize, usize, Vec<[u8; 3]>) {
    let image = RgbImage::load_png(path).unwrap();
    (image.width, image.height, image.pixels)
}
