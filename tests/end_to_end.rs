//! `petri run` of every asset in assets/, made small, as a user meets it: it succeeds, and every
//! file the manifest lists is there and well formed (CSV, VTK, PNG, JSON), with nothing else in
//! the folder.

mod common;

use common::*;
use petri_model::rdme::output::KYMOGRAPH_SIZE;
use petri_model::ssa::output::PLOT_SIZE;

/// The assets this file runs; a new asset needs a test here.
const COVERED: [&str; 7] = [
    "angiogenesis.json",
    "angiogenesis_3d.json",
    "birth-death.json",
    "epidermis.json",
    "gliding.json",
    "min-system.json",
    "vilar.json",
];

#[test]
fn every_asset_has_an_end_to_end_test() {
    let covered = COVERED.iter().map(|s| s.to_string()).collect();
    assert_eq!(assets(), covered, "add a test for the new asset here");
}

/// The 2D demo (one x-y panel) and the 3D config (top and side views).
#[test]
fn angiogenesis_assets() {
    for (name, grid, width) in [
        ("angiogenesis.json", [24, 20, 1], 760),
        ("angiogenesis_3d.json", ANGIO_GRID, 1100),
    ] {
        angiogenesis_asset(name, grid, width);
    }
}

fn angiogenesis_asset(name: &str, grid: [u32; 3], width: u32) {
    let dir = scratch(&format!("e2e_{name}"));
    let config = small_angiogenesis_asset(&dir, name, grid);
    let out = dir.join("out");
    let o = petri_ok(&["run", &arg(&config), "--steps", "20", "--out", &arg(&out)]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("step 20:"));

    let m = manifest(&out, "angiogenesis");
    assert_eq!(
        (m["first_step"].as_u64(), m["last_step"].as_u64()),
        (Some(0), Some(20))
    );
    assert_eq!(m["config"]["grid"], serde_json::json!(grid));
    assert_eq!(m["final_observables"]["step"], 20);
    let (header, rows) = csv(&out.join("observables.csv"), 1);
    assert_eq!(header[0], "step");
    let steps: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(steps, [0.0, 5.0, 10.0, 15.0, 20.0]);
    let point_extent = grid.map(|n| n - 1);
    for snapshot in ["fields_0000010.vti", "fields_0000020.vti"] {
        assert_eq!(
            vti(&out.join(snapshot), point_extent),
            ["n", "f", "c", "vessel"]
        );
    }
    let (points, lines) = vtp(&out.join("vessels.vtp"));
    assert!(
        points > 0 && lines > 0,
        "{name}: the initial tips have grown"
    );
    // The picture, and a frame of it at each snapshot and at the end.
    let picture = png(&out.join("vessels.png"));
    assert_eq!(picture.0, width, "{name}");
    for frame in ["vessels_0000010.png", "vessels_0000020.png"] {
        assert_eq!(png(&out.join(frame)), picture);
    }
}

/// The asset on 3 x 3 cells growing every step: every cell divides at step 20.
#[test]
fn epidermis_asset() {
    let dir = scratch("e2e_epidermis");
    let config = small_epidermis(&dir);
    let out = dir.join("out");
    let o = petri_ok(&["run", &arg(&config), "--steps", "25", "--out", &arg(&out)]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("step 25 (t = "));

    let m = manifest(&out, "epidermis");
    assert_eq!(
        (m["first_step"].as_u64(), m["last_step"].as_u64()),
        (Some(0), Some(25))
    );
    let last = &m["final_observables"];
    assert_eq!(
        (last["cells"].as_u64(), last["divisions"].as_u64()),
        (Some(18), Some(9))
    );
    let (header, rows) = csv(&out.join("observables.csv"), 1);
    assert_eq!(header[..4], ["step", "time", "cells", "elements"]);
    let steps: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(steps, [0.0, 5.0, 10.0, 15.0, 20.0, 25.0]);
    // cells.csv: one block per observation, ordered by step and cell id.
    let (header, rows) = csv(&out.join("cells.csv"), 3);
    assert_eq!(header[..5], ["step", "time", "cell", "basal", "layer"]);
    assert_eq!(rows.len(), 9 * 4 + 18 * 2);
    for snapshot in [
        "elements_0000010.vtp",
        "elements_0000020.vtp",
        "elements_0000025.vtp",
    ] {
        let (points, names) = vtp_points(&out.join(snapshot));
        assert!(points >= 9 * 20, "{snapshot}: {points} elements");
        assert_eq!(names[..4], ["cell", "adhesive", "basal", "layer"]);
        // Beside each snapshot, the top view of the square box: 700 pixels wide.
        let top = snapshot
            .replace("elements_", "tissue_top_")
            .replace(".vtp", ".png");
        let (w, h) = png(&out.join(&top));
        assert_eq!(w, 700, "{top}");
        assert!(h > 0 && h < 2 * w, "{top}: {h} pixels high");
    }
    let picture = png(&out.join("tissue.png"));
    assert_eq!(picture.0, 1200);
    // The side views end one layer above the tissue, so a frame is as wide as the final
    // picture and as tall as the tissue was then (at most four widths: the height cap).
    for frame in [
        "tissue_0000010.png",
        "tissue_0000020.png",
        "tissue_0000025.png",
    ] {
        let (w, h) = png(&out.join(frame));
        assert_eq!(w, picture.0, "{frame}");
        assert!(h > 0 && h <= 4 * w, "{frame}: {h} pixels high");
    }
}

/// The asset on 16 x 16 cells: observables with the filaments conserved and motors bound,
/// the filament plane (.vti) and the fluid (.vtr) every 10 steps, a frame every 5.
#[test]
fn gliding_asset() {
    let dir = scratch("e2e_gliding");
    let config = small_gliding(&dir);
    let out = dir.join("out");
    let o = petri_ok(&["run", &arg(&config), "--steps", "20", "--out", &arg(&out)]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("step 20 (t = 0.200, dt 0.0100)"),
        "{stdout}"
    );

    let m = manifest(&out, "gliding");
    assert_eq!(
        (m["first_step"].as_u64(), m["last_step"].as_u64()),
        (Some(0), Some(20))
    );
    assert_eq!(m["motor_offsets"].as_u64(), Some(9));
    let (header, rows) = csv(&out.join("observables.csv"), 1);
    assert_eq!(header[..4], ["step", "time", "filaments", "mean_speed"]);
    let steps: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(steps, [0.0, 5.0, 10.0, 15.0, 20.0]);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (first, last) = (&rows[0], &rows[rows.len() - 1]);
    let drift = (last[col("filaments")] / first[col("filaments")] - 1.0).abs();
    assert!(drift < 1e-5, "filaments drift {drift:e}");
    assert!(last[col("bound_motors")] > 0.0);
    // The asset's filaments take the largest step (0.01 in whole ticks) at Courant numbers
    // under courant_safety x 0.25; the time is the sum of the steps.
    assert!((last[col("dt")] / 0.01 - 1.0).abs() < 1e-7 && first[col("dt")] == 0.0);
    assert!((last[col("time")] / 0.2 - 1.0).abs() < 1e-7);
    assert!(rows[1..].iter().all(|r| r[col("max_courant")] < 0.125));
    let motors = last[col("bound_motors")] + last[col("free_motors")];
    assert!((motors / last[col("total_motors")] - 1.0).abs() < 1e-5);
    for step in ["0000010", "0000020"] {
        let names = vti(&out.join(format!("gliding_{step}.vti")), [15, 15, 0]);
        assert!(names.iter().any(|n| n == "bound_motors"), "{names:?}");
        assert!(out.join(format!("fluid_{step}.vtr")).exists());
    }
    let picture = png(&out.join("gliding.png"));
    assert_eq!(picture.0, 900);
    for frame in ["0000005", "0000010", "0000015", "0000020"] {
        assert_eq!(png(&out.join(format!("gliding_{frame}.png"))), picture);
    }
}

#[test]
fn min_system_asset() {
    let dir = scratch("e2e_min_system");
    let config = small_min_system(&dir);
    let out = dir.join("out");
    petri_ok(&["run", &arg(&config), "--steps", "40", "--out", &arg(&out)]);

    let m = manifest(&out, "rdme");
    assert_eq!(
        (m["first_step"].as_u64(), m["last_step"].as_u64()),
        (Some(0), Some(40))
    );
    // Particles are conserved: MinD in all its forms, MinE free or bound.
    let t = &m["final_totals"];
    let count = |s: &str| t[s].as_u64().unwrap_or_else(|| panic!("{s}: {t}"));
    let mind = count("MinD_ATP") + count("MinD_ADP") + count("MinD_m") + count("MinDE");
    assert_eq!((mind, count("MinE") + count("MinDE")), (28, 7), "{t}");

    let (header, rows) = csv(&out.join("observables.csv"), 1);
    assert_eq!(header[..2], ["step", "time_s"]);
    assert_eq!(
        rows.iter().map(|r| r[0]).collect::<Vec<_>>(),
        [0.0, 10.0, 20.0, 30.0, 40.0]
    );
    let (header, rows) = csv(&out.join("kymograph.csv"), 1);
    assert_eq!(
        header.len(),
        1 + MIN_LATTICE[2] as usize,
        "time, then one per plane"
    );
    assert_eq!(rows.len(), 5);
    for snapshot in ["lattice_000000020.vti", "lattice_000000040.vti"] {
        assert_eq!(
            vti(&out.join(snapshot), MIN_LATTICE),
            ["MinD_m", "MinDE", "site_type"]
        );
    }
    assert_eq!(png(&out.join("kymograph.png")), KYMOGRAPH_SIZE);
    let analysis: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("analysis.json")).unwrap()).unwrap();
    assert_eq!(
        analysis["profile"].as_array().map(Vec::len),
        Some(MIN_LATTICE[2] as usize),
        "{analysis}"
    );
}

/// A network run on the CPU: mean_sd.csv at `points` times from 0 to `t_end`, the picture and
/// the manifest, and trajectories.csv when asked for.
fn network_asset(asset: &str, trajectories: u64, t_end: f64, points: usize, all: bool) {
    let dir = scratch(&format!("e2e_{asset}"));
    let out = dir.join("out");
    let config = format!("assets/{asset}");
    let (n, t, p) = (
        trajectories.to_string(),
        t_end.to_string(),
        points.to_string(),
    );
    let mut args = vec![
        "run",
        &config,
        "--trajectories",
        &n,
        "--t-end",
        &t,
        "--points",
        &p,
    ];
    if all {
        args.push("--trajectories-csv");
    }
    args.extend(["--out", out.to_str().unwrap()]);
    petri_ok(&args);

    let m = manifest(&out, "network");
    assert_eq!(
        (m["trajectories"].as_u64(), m["points"].as_u64()),
        (Some(trajectories), Some(points as u64))
    );
    let species = asset_species(asset);
    let (header, rows) = csv(&out.join("mean_sd.csv"), 1);
    let mut want = vec!["time".to_string()];
    for s in &species {
        want.extend([format!("{s}-mean"), format!("{s}-sd")]);
    }
    assert_eq!(header, want);
    assert_eq!(rows.len(), points);
    assert_eq!((rows[0][0], rows[points - 1][0]), (0.0, t_end));
    assert!(
        rows.iter().all(|r| r[1..].iter().all(|&v| v >= 0.0)),
        "counts and sds are >= 0"
    );
    if all {
        let (header, rows) = csv(&out.join("trajectories.csv"), 2);
        assert_eq!(header[..2], ["trajectory", "time"]);
        assert_eq!(header.len(), 2 + species.len());
        assert_eq!(rows.len(), trajectories as usize * points);
    }
    assert_eq!(png(&out.join("mean_sd.png")), PLOT_SIZE);
}

/// The species ids of a network asset, in order.
fn asset_species(name: &str) -> Vec<String> {
    asset(name)["species"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn birth_death_asset() {
    network_asset("birth-death.json", 40, 10.0, 11, true);
}

#[test]
fn vilar_asset() {
    network_asset("vilar.json", 20, 5.0, 6, false);
}
