//! A whole RDME run into a folder: every output file is written and consistent, a resumed run
//! is bitwise the straight one, and bad checkpoints are refused.

use petri_engine::testing::test_context;
use petri_model::error::ModelError;
use petri_model::rdme::checkpoint::Checkpoint;
use petri_model::rdme::lattice::initial_lattice;
use petri_model::rdme::output::{kymograph_figure, read_kymograph, KYMOGRAPH_SIZE};
use petri_model::rdme::run::{reanalyze, run, Manifest, RunOptions, ANALYSIS_SKIP_FRACTION};
use petri_model::rdme::{RdmeConfig, RdmeModel, RdmeSim, SimOptions};
use petri_output::RgbImage;
use std::path::{Path, PathBuf};

/// A 16 x 16 x 32 lattice holding a capsule with a membrane shell; A and B inter-convert (so
/// A + B stays 800) and stay inside the cell (no diffusion rule reaches the outside).
fn model() -> RdmeModel {
    let h = 1.6e-8;
    let cfg: RdmeConfig = serde_json::from_value(serde_json::json!({
        "model": "rdme",
        "lattice": { "shape": [16, 16, 32], "spacing_m": h },
        "tau_s": 1e-5,
        "steps": 200,
        "seed": 11,
        "site_types": ["extracellular", "cytoplasm", "membrane"],
        "geometry": [{ "capsule": {
            "center_m": [8.0 * h, 8.0 * h, 16.0 * h], "length_m": 30.0 * h, "radius_m": 7.0 * h,
            "site_type": "cytoplasm", "shell": { "thickness_m": h, "site_type": "membrane" } } }],
        "species": ["A", "B"],
        "diffusion": [{ "species": ["A", "B"], "from": ["cytoplasm", "membrane"],
                        "to": ["cytoplasm", "membrane"], "d_m2_per_s": 2.5e-12 }],
        "reactions": [
            { "reactants": ["A"], "products": ["B"], "rate": 200.0, "units": "1/s", "site_types": ["membrane"] },
            { "reactants": ["B"], "products": ["A"], "rate": 100.0, "units": "1/s", "site_types": ["cytoplasm"] },
            { "reactants": ["A", "B"], "products": ["B", "B"], "rate": 1e7, "units": "1/(M s)", "site_types": ["membrane"] }
        ],
        "initial": [
            { "species": "A", "count": 600, "site_types": ["cytoplasm"] },
            { "species": "B", "count": 200, "site_types": ["cytoplasm"] }
        ],
        "output": { "observe_every": 20, "kymograph_species": "B",
                    "snapshot_species": ["A", "B"], "snapshot_every": 100 }
    }))
    .unwrap();
    cfg.resolve(Path::new(".")).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("petri-rdme-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn options(dir: &Path, steps: u64, resume: Option<PathBuf>) -> RunOptions {
    RunOptions {
        steps: Some(steps),
        out_dir: dir.to_path_buf(),
        overwrite: false,
        sim: SimOptions::default(),
        checkpoint_every: Some(100),
        resume,
        stop: None,
    }
}

/// The header and the rows of a CSV of numbers.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[1..4], b"PNG");
    let be = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

fn run_into(dir: &Path, steps: u64, resume: Option<PathBuf>, devices: usize) -> Manifest {
    let contexts = (0..devices).map(|_| test_context()).collect();
    run(contexts, &model(), &options(dir, steps, resume), |_| {}).unwrap()
}

#[test]
fn run_writes_every_output() {
    let dir = scratch("outputs");
    let model = model();
    let ctx = test_context();
    let mut seen = Vec::new();
    let manifest = run(vec![ctx.clone()], &model, &options(&dir, 200, None), |o| {
        seen.push(o.step)
    })
    .unwrap();
    assert_eq!(seen, (0..=200).step_by(20).collect::<Vec<u64>>());

    // Observables: step, time, 3 types x 2 species, overflow; the initial state and 10 more.
    let (header, rows) = read_csv(&dir.join("observables.csv"));
    assert_eq!(
        header,
        [
            "step",
            "time_s",
            "extracellular:A",
            "extracellular:B",
            "cytoplasm:A",
            "cytoplasm:B",
            "membrane:A",
            "membrane:B",
            "overflow_moved"
        ]
    );
    assert_eq!(rows.len(), 11);
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(r.len(), 9);
        assert_eq!(r[0], 20.0 * k as f64);
        assert!((r[1] - r[0] * 1e-5).abs() < 1e-12);
        assert_eq!((r[2], r[3]), (0.0, 0.0), "nothing leaves the cell");
        assert_eq!(r[4] + r[5] + r[6] + r[7], 800.0, "A + B is conserved");
    }
    assert_eq!((rows[0][4], rows[0][5]), (600.0, 200.0));
    assert!(
        rows[10][6] + rows[10][7] > 0.0,
        "particles reach the membrane"
    );

    // Kymograph of B: one column per plane, rows summing to the B counts.
    let (header, kymo) = read_csv(&dir.join("kymograph.csv"));
    assert_eq!(header.len(), 1 + 32);
    assert_eq!((header[0].as_str(), header[32].as_str()), ("time_s", "z31"));
    assert_eq!(kymo.len(), 11);
    for (k, r) in kymo.iter().zip(&rows) {
        assert_eq!(k[0], r[1]);
        assert_eq!(k[1..].iter().sum::<f64>(), r[3] + r[5] + r[7]);
        assert_eq!(
            (k[1], k[32]),
            (0.0, 0.0),
            "the end planes are outside the capsule"
        );
    }
    // The kymograph figure: time across, z up (32 planes of 16 nm); its file is the figure
    // drawn from kymograph.csv, and the largest count shows in the colour bar's top colour.
    assert_eq!(png_size(&dir.join("kymograph.png")), KYMOGRAPH_SIZE);
    let kymo_rows = read_kymograph(&dir.join("kymograph.csv"), &model.config).unwrap();
    let drawn = kymograph_figure(&model.config, &kymo_rows, None)
        .unwrap()
        .render_with_layout()
        .unwrap();
    let png = RgbImage::load_png(&dir.join("kymograph.png")).unwrap();
    assert!(
        png.pixels == drawn.image.pixels,
        "kymograph.png is the figure"
    );
    let (t, z, most) = kymo_rows
        .iter()
        .flat_map(|(t, c)| c.iter().enumerate().map(move |(z, &n)| (*t, z, n)))
        .max_by_key(|r| r.2)
        .unwrap();
    // Plane z is centred at (z + 0.5) x 16 nm; observations are 0.2 ms apart, the first and
    // last at the axis' ends: look a quarter interval inside.
    let inside = t + 0.5e-4 * (1e-3 - t).signum();
    let (x, y) = drawn.panels[0].pixel(inside, (z as f64 + 0.5) * 0.016);
    let bar = drawn.color_bar.as_ref().unwrap();
    let (bx, by) = bar.pixel(0.5, 0.999 * most as f64);
    let top = drawn.image.get(bx as usize, by as usize).unwrap();
    let at = png.get(x as usize, y as usize).unwrap();
    assert!(
        at.iter().zip(&top).all(|(a, b)| a.abs_diff(*b) <= 2),
        "largest count at t = {t} s, plane {z}: {at:?}, bar top {top:?}"
    );

    // Snapshots at 100 and 200: one cell per site.
    for step in [100, 200] {
        let vti = std::fs::read(dir.join(format!("lattice_{step:09}.vti"))).unwrap();
        let head = String::from_utf8_lossy(&vti[..1000.min(vti.len())]).to_string();
        assert!(head.contains("WholeExtent=\"0 16 0 16 0 32\""), "{head}");
        for name in [
            "Name=\"A\"",
            "Name=\"B\"",
            "Name=\"site_type\"",
            "<CellData",
        ] {
            assert!(head.contains(name), "{name} in {head}");
        }
        // Three arrays of 8192 sites, each after a u64 length.
        assert!(vti.len() > 3 * (8 + 8192));
    }

    let analysis: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("analysis.json")).unwrap()).unwrap();
    assert_eq!(analysis["samples"], 11);
    assert_eq!(analysis["profile"].as_array().unwrap().len(), 32);
    // Analysed again from kymograph.csv: the run's own skip gives the run's own report, a
    // later start uses fewer rows (0.45 of 2 ms: the rows from 1 ms on).
    let again = reanalyze(&model, &dir, ANALYSIS_SKIP_FRACTION).unwrap();
    assert_eq!(
        serde_json::to_value(&again).unwrap(),
        serde_json::to_value(manifest.analysis.as_ref().unwrap()).unwrap()
    );
    let later = reanalyze(&model, &dir, 0.45).unwrap();
    assert_eq!((later.samples, later.samples_used), (11, 6));

    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["model"], "rdme");
    assert_eq!(m["seed"], 11);
    assert_eq!(m["tau_s"], 1e-5);
    assert_eq!(
        (m["first_step"].as_u64(), m["last_step"].as_u64()),
        (Some(0), Some(200))
    );
    assert_eq!(m["devices"][0]["name"], ctx.adapter.name.as_str());
    assert_eq!(
        m["config"]["lattice"]["shape"],
        serde_json::json!([16, 16, 32])
    );
    let a = m["final_totals"]["A"].as_u64().unwrap();
    let b = m["final_totals"]["B"].as_u64().unwrap();
    assert_eq!(a + b, 800);
    assert_eq!(b as f64, rows[10][3] + rows[10][5] + rows[10][7]);
    assert!(m["timings"]["simulated_s_per_wall_hour"].as_f64().unwrap() > 0.0);
    assert_eq!(m["warnings"], serde_json::json!([]));
    let outputs: Vec<&str> = m["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    for f in [
        "observables.csv",
        "kymograph.csv",
        "kymograph.png",
        "analysis.json",
        "lattice_000000100.vti",
        "lattice_000000200.vti",
        "checkpoint.petri",
        "manifest.json",
    ] {
        assert!(outputs.contains(&f), "{f} in {outputs:?}");
        assert!(dir.join(f).exists(), "{f} written");
    }
    assert_eq!(manifest.last_step, 200);
    assert_eq!(
        Checkpoint::load(&dir.join("checkpoint.petri"))
            .unwrap()
            .step,
        200
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Analysing a run again refuses a skip outside [0, 1), a folder without kymograph.csv and a
/// kymograph written for another lattice, naming what is wrong.
#[test]
fn reanalysis_refuses_bad_input() {
    let model = model();
    let err = reanalyze(&model, Path::new("."), 1.0).unwrap_err();
    assert!(
        matches!(&err, ModelError::Invalid { field, .. } if field == "skip_fraction"),
        "{err}"
    );
    let dir = scratch("reanalysis");
    std::fs::create_dir_all(&dir).unwrap();
    let err = reanalyze(&model, &dir, 0.2).unwrap_err();
    assert!(
        matches!(&err, ModelError::Io { path, .. } if path.ends_with("kymograph.csv")),
        "{err}"
    );
    std::fs::write(dir.join("kymograph.csv"), "time_s,z0,z1\n0,1,2\n").unwrap();
    let err = reanalyze(&model, &dir, 0.2).unwrap_err();
    assert!(err.to_string().contains("32 planes"), "{err}");
    let header: Vec<String> = (0..32).map(|z| format!("z{z}")).collect();
    let text = format!(
        "time_s,{}\n0,{}\n1,oops\n",
        header.join(","),
        vec!["0"; 32].join(",")
    );
    std::fs::write(dir.join("kymograph.csv"), text).unwrap();
    let err = reanalyze(&model, &dir, 0.2).unwrap_err();
    assert!(err.to_string().contains("line 3"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resumed_simulation_is_bitwise_the_straight_one() {
    let model = model();
    let lat0 = initial_lattice(&model).unwrap();
    let opts = SimOptions::default();
    let mut straight = RdmeSim::new(vec![test_context()], &model, &lat0, 0, &opts).unwrap();
    straight.advance(200).unwrap();

    let mut half = RdmeSim::new(vec![test_context()], &model, &lat0, 0, &opts).unwrap();
    half.advance(100).unwrap();
    let dir = scratch("resume-sim");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("checkpoint.petri");
    let moved = half.observe().unwrap().overflow_moved;
    Checkpoint::new(&model, half.step, &half.read_lattice().unwrap(), moved)
        .save(&path)
        .unwrap();
    drop(half);

    let ck = Checkpoint::load(&path).unwrap();
    let lattice = ck.restore(&model, &path).unwrap();
    let mut resumed = RdmeSim::new(vec![test_context()], &model, &lattice, ck.step, &opts).unwrap();
    resumed.advance(100).unwrap();
    assert_eq!(resumed.step, 200);
    assert!(resumed.read_lattice().unwrap() == straight.read_lattice().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resumed_run_is_bitwise_the_straight_one_on_two_devices_too() {
    let (a, b, c) = (
        scratch("straight"),
        scratch("first-half"),
        scratch("second-half"),
    );
    run_into(&a, 200, None, 1);
    run_into(&b, 100, None, 1);
    let m = run_into(&c, 100, Some(b.join("checkpoint.petri")), 2);
    assert_eq!(
        (m.first_step, m.last_step, m.details.devices.len()),
        (100, 200, 2)
    );

    let straight = Checkpoint::load(&a.join("checkpoint.petri")).unwrap();
    let resumed = Checkpoint::load(&c.join("checkpoint.petri")).unwrap();
    assert!(straight == resumed, "the lattices at step 200 differ");
    // The observables after the resume are those of the straight run, row for row.
    let (_, rows_a) = read_csv(&a.join("observables.csv"));
    let (_, rows_c) = read_csv(&c.join("observables.csv"));
    assert_eq!(rows_c, rows_a[5..]);

    // Resumed into its own folder, the run carries its time series on: the files and the
    // analysis are the straight run's, byte for byte.
    run_into(&b, 100, Some(b.join("checkpoint.petri")), 1);
    for f in ["observables.csv", "kymograph.csv", "analysis.json"] {
        let (straight, chained) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(straight == chained, "{f} differs");
    }
    for d in [a, b, c] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn bad_checkpoints_are_refused() {
    let dir = scratch("bad");
    run_into(&dir, 20, None, 1);
    let good = std::fs::read(dir.join("checkpoint.petri")).unwrap();
    let resume = |bytes: &[u8], model: &RdmeModel| -> String {
        let path = dir.join("edited.petri");
        std::fs::write(&path, bytes).unwrap();
        let opts = options(&dir.join("out"), 10, Some(path));
        match run(vec![test_context()], model, &opts, |_| {}) {
            Err(e @ ModelError::Checkpoint { .. }) => e.to_string(),
            Err(e) => panic!("expected a checkpoint error, got {e}"),
            Ok(_) => panic!("resumed from a bad checkpoint"),
        }
    };
    let e = resume(&good[..good.len() / 2], &model());
    assert!(e.contains("edited.petri") && e.contains("truncated"), "{e}");
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 1;
    assert!(resume(&flipped, &model()).contains("checksum"));
    assert!(resume(b"not a checkpoint", &model()).contains("not a Petri checkpoint"));

    let mut other = model().config;
    other.diffusion[0].d_m2_per_s = 1e-12;
    let e = resume(&good, &other.resolve(Path::new(".")).unwrap());
    assert!(e.contains("diffusion, resolved hop probabilities"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
