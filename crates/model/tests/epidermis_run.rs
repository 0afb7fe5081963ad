//! A whole epidermis run into a folder: every output file is written and readable, the
//! manifest lists them, a run resumed from its checkpoint ends bitwise where a straight run
//! does (cells.csv and observables.csv included), a division past `capacity.max_cells` stops the
//! run with an error naming it, and a bad config is refused with the field named.

use petri_engine::testing::test_context;
use petri_model::epidermis::checkpoint::Checkpoint;
use petri_model::epidermis::run::{run, RunOptions};
use petri_model::epidermis::{EpidermisConfig, SimOptions};
use petri_output::RgbImage;
use std::path::{Path, PathBuf};

/// 3 x 3 cells in a 3 x 3 box that grow one element every step whatever their Delta, so each
/// divides after 20 steps (daughters of 20 elements, 20 steps more to the next division).
fn config(max_cells: u32) -> EpidermisConfig {
    let mut v = serde_json::to_value(EpidermisConfig::default()).unwrap();
    v["steps"] = 45.into();
    v["observe_every"] = 5.into();
    v["snapshot_every"] = 0.into();
    v["frame_every"] = 0.into();
    v["box"] = serde_json::json!({"lx": 3.0, "ly": 3.0, "height": 4.0});
    v["initial"]["cells_x"] = 3.into();
    v["initial"]["cells_y"] = 3.into();
    v["initial"]["extra_elements"] = 0.into();
    v["capacity"]["max_cells"] = max_cells.into();
    v["growth"]["interval"] = 1.into();
    v["growth"]["delta_threshold"] = 1e9.into();
    serde_json::from_value(v).unwrap()
}

fn options(name: &str, steps: u64, checkpoint_every: Option<u64>) -> RunOptions {
    RunOptions {
        steps: Some(steps),
        out_dir: scratch(name),
        overwrite: false,
        sim: SimOptions::default(),
        checkpoint_every,
        resume: None,
        stop: None,
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_run_writes_every_output_and_its_cells_divide() {
    let ctx = test_context();
    let mut cfg = config(64);
    cfg.snapshot_every = 20;
    cfg.frame_every = 10;
    let opts = options("epidermis_run_outputs", 45, Some(40));
    let dir = opts.out_dir.clone();
    let mut seen = Vec::new();
    let report = run(&ctx, &cfg, &opts, |o| seen.push(o.observables.step)).unwrap();
    assert_eq!(seen, [0, 5, 10, 15, 20, 25, 30, 35, 40, 45]);
    assert_eq!((report.first_step, report.last_step), (0, 45));
    let last = &report.last.observables;
    // Two rounds of divisions: 9 -> 18 -> 36 cells, each of 20 elements again after dividing
    // and 5 grown since.
    assert_eq!((last.cells, last.divisions), (36, 27));
    assert_eq!(last.elements, 36 * 25);
    assert_eq!(last.elements, 9 * 20 + last.added as u64);
    assert_eq!(last.basal_cells + last.suprabasal_cells, 36);
    assert_eq!(last.cells_per_layer.iter().sum::<u32>(), 36);

    // observables.csv: the header and one row per observation.
    let csv = read(&dir.join("observables.csv"));
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("step,time,cells,elements,basal,suprabasal,layer_1,"));
    assert_eq!(lines.len(), 1 + 10);
    assert!(lines[10].starts_with("45,"));
    // cells.csv: one block of rows (every cell) per observation.
    let cells = read(&dir.join("cells.csv"));
    let rows: Vec<Vec<f64>> = cells
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(cells.starts_with("step,time,cell,basal,layer,x,y,z,elements,notch,"));
    let at = |step: f64| rows.iter().filter(|r| r[0] == step).count();
    assert_eq!((at(0.0), at(20.0), at(45.0)), (9, 18, 36));
    assert_eq!(rows.len(), 9 * 4 + 18 * 4 + 36 * 2);

    let files = [
        "elements_0000020.vtp",
        "tissue_0000010.png",
        "tissue_0000020.png",
        "tissue_0000030.png",
        "elements_0000040.vtp",
        "tissue_0000040.png",
        "elements_0000045.vtp",
        "tissue_0000045.png",
        "tissue.png",
        "cells.csv",
        "observables.csv",
        "checkpoint.petri",
        "manifest.json",
    ];
    for f in files {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let vtp = read(&dir.join("elements_0000045.vtp"));
    assert!(vtp.contains(&format!("NumberOfPoints=\"{}\"", 36 * 25)));
    let picture = RgbImage::load_png(&dir.join("tissue.png")).unwrap();
    assert_eq!(picture.width, 1200);
    let frame = RgbImage::load_png(&dir.join("tissue_0000045.png")).unwrap();
    assert_eq!(frame.pixels, picture.pixels);

    let m: serde_json::Value = serde_json::from_str(&read(&dir.join("manifest.json"))).unwrap();
    assert_eq!(m["model"], "epidermis");
    assert_eq!(m["status"], "complete");
    assert_eq!(m["last_step"], 45);
    assert_eq!(m["seed"], cfg.seed);
    assert_eq!(m["final_observables"]["cells"], 36);
    assert_eq!(m["adapter"]["name"], ctx.adapter.name.as_str());
    let listed: Vec<&str> = m["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    for f in files {
        assert!(listed.contains(&f), "{f} not in {listed:?}");
    }
    let ck = Checkpoint::load(&dir.join("checkpoint.petri")).unwrap();
    assert_eq!((ck.state.step, ck.state.cells), (45, 36));
}

/// 45 steps straight, or 25 then 20 more from the checkpoint at step 25 in the same folder:
/// the same final state bit for bit, and the same series files.
#[test]
fn a_resumed_run_ends_bitwise_where_a_straight_one_does() {
    let ctx = test_context();
    let cfg = config(64);
    let straight = options("epidermis_run_straight", 45, Some(45));
    run(&ctx, &cfg, &straight, |_| {}).unwrap();

    let mut first = options("epidermis_run_resumed", 25, Some(25));
    run(&ctx, &cfg, &first, |_| {}).unwrap();
    first.steps = Some(20);
    first.resume = Some(first.out_dir.join("checkpoint.petri"));
    let report = run(&ctx, &cfg, &first, |_| {}).unwrap();
    assert_eq!((report.first_step, report.last_step), (25, 45));

    let state = |dir: &Path| {
        Checkpoint::load(&dir.join("checkpoint.petri"))
            .unwrap()
            .state
    };
    let (a, b) = (state(&straight.out_dir), state(&first.out_dir));
    let bits = |s: &petri_model::epidermis::EpidermisState| -> Vec<u32> {
        s.pos
            .iter()
            .flatten()
            .chain(s.genes.iter().flatten())
            .map(|v| v.to_bits())
            .collect()
    };
    assert_eq!(a.step, 45);
    assert_eq!((a.cells, &a.counts), (b.cells, &b.counts));
    assert_eq!((a.divisions, a.added), (b.divisions, b.added));
    assert!(bits(&a) == bits(&b), "positions or genes differ");
    for f in ["observables.csv", "cells.csv"] {
        assert_eq!(
            read(&straight.out_dir.join(f)),
            read(&first.out_dir.join(f)),
            "{f}"
        );
    }

    // A checkpoint resumed under another config is refused, the field named.
    let mut other = cfg.clone();
    other.dt *= 2.0;
    let mut again = options("epidermis_run_other", 10, None);
    again.resume = first.resume.clone();
    let e = run(&ctx, &other, &again, |_| {}).unwrap_err().to_string();
    assert!(e.contains("differs") && e.contains("dt"), "{e}");
}

#[test]
fn a_division_past_the_capacity_stops_the_run_naming_it() {
    let ctx = test_context();
    let cfg = config(9);
    let opts = options("epidermis_run_overflow", 45, None);
    let e = run(&ctx, &cfg, &opts, |_| {}).unwrap_err().to_string();
    assert!(e.contains("capacity.max_cells") && e.contains('9'), "{e}");
    // The folder keeps the run up to the stop; its manifest says why.
    let m: serde_json::Value =
        serde_json::from_str(&read(&opts.out_dir.join("manifest.json"))).unwrap();
    assert_eq!(m["status"], "stopped");
    assert!(m["error"].as_str().unwrap().contains("capacity.max_cells"));
}

#[test]
fn a_bad_config_is_refused_with_the_field_named() {
    let mut v = serde_json::to_value(config(64)).unwrap();
    v["output"]["layer_thickness"] = (-1.0).into();
    let e = EpidermisConfig::from_json(&v.to_string(), "cfg.json").unwrap_err();
    assert!(e.to_string().contains("output.layer_thickness"), "{e}");
    let mut v = serde_json::to_value(config(64)).unwrap();
    v["capacity"]["max_cells"] = 4.into();
    let e = EpidermisConfig::from_json(&v.to_string(), "cfg.json").unwrap_err();
    assert!(e.to_string().contains("capacity.max_cells"), "{e}");
    let mut v = serde_json::to_value(config(64)).unwrap();
    v["colour"] = "red".into();
    let e = EpidermisConfig::from_json(&v.to_string(), "cfg.json").unwrap_err();
    assert!(e.to_string().contains("colour"), "{e}");
}

#[test]
fn a_basal_layer_stratifies() {
    // 3 x 3 basal cells of 36 elements growing every 10th step divide once (after step 39)
    // across a horizontal plane: each basal mother leaves one daughter on the membrane and one
    // above it, so the basal layer keeps its 9 cells and the 9 new ones, given 190 steps to
    // rise, form a second layer on top of it (the next division would come after step 239).
    let ctx = test_context();
    let mut cfg = config(64);
    cfg.steps = 230;
    cfg.observe_every = 10;
    cfg.initial.elements_per_cell = 36;
    cfg.growth.interval = 10;
    let mut seen = Vec::new();
    let opts = options("epidermis_run_stratifies", 230, None);
    let dir = opts.out_dir.clone();
    run(&ctx, &cfg, &opts, |o| seen.push(o.observables.clone())).unwrap();
    let first = &seen[0];
    assert_eq!((first.cells, first.basal_cells), (9, 9));
    assert_eq!(
        first.cells_per_layer,
        [9, 0, 0, 0],
        "one layer at the start"
    );
    let last = seen.last().unwrap();
    assert_eq!((last.cells, last.divisions), (18, 9));
    assert_eq!((last.basal_cells, last.suprabasal_cells), (9, 9));
    let above: u32 = last.cells_per_layer[1..].iter().sum();
    assert!(
        above >= 1,
        "no cell above layer 1: {:?}",
        last.cells_per_layer
    );
    // Centre heights in the last block of cells.csv (columns step, .., basal, layer, x, y, z):
    // every suprabasal cell above the highest basal centre, by 0.3 (near a cell radius) on
    // average.
    let csv = read(&dir.join("cells.csv"));
    let (mut basal, mut upper) = (Vec::new(), Vec::new());
    for line in csv.lines().skip(1).filter(|l| l.starts_with("230,")) {
        let f: Vec<&str> = line.split(',').collect();
        let z: f64 = f[7].parse().unwrap();
        if f[3] == "1" {
            basal.push(z)
        } else {
            upper.push(z)
        }
    }
    assert_eq!((basal.len(), upper.len()), (9, 9));
    let top_basal = basal.iter().cloned().fold(f64::MIN, f64::max);
    let low_upper = upper.iter().cloned().fold(f64::MAX, f64::min);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(
        low_upper > top_basal,
        "basal up to {top_basal}, suprabasal from {low_upper}"
    );
    assert!(
        mean(&upper) - mean(&basal) > 0.3,
        "{} vs {}",
        mean(&upper),
        mean(&basal)
    );
}
