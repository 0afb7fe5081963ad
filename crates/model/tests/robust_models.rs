//! The models against hostile but realistic input (issue 43). Regression tests: the
//! epidermis's time steps past the stability bounds or below f32's reach, huge potentials and
//! rates, a tiny neighbour distance, initial balls bigger than the box, a capacity whose
//! buffers the device cannot hold (on the GPU), and real checkpoints of the epidermis and of a
//! network run edited (valid checksum, impossible contents); each ends in an error naming the
//! field or the checkpoint and what is allowed. Then property-based fuzzing of what
//! `gliding_fuzz.rs` and `fuzz_readers.rs` leave out: the epidermis config (fields set to
//! values across and past their ranges), and the checkpoints of the epidermis, rdme and
//! angiogenesis (a real checkpoint, as a run writes it, with bytes flipped and cut, the
//! container's checksum recomputed half the time so that the edits reach the model's own
//! checks). Asserts: never a panic or a hang; a config validates (and then a few CPU steps keep
//! every element finite and in the box) or is refused naming a field; a checkpoint loads a
//! state that passes the state's invariants or is refused naming the file. The fuzzing is CPU
//! only; case counts from a fixed seed (`PROPTEST_CASES`, `PROPTEST_RNG_SEED` by hand).

mod common;
mod fuzz_common;

use petri_engine::testing::test_context;
use petri_model::angiogenesis::checkpoint::Checkpoint as AngioCheckpoint;
use petri_model::angiogenesis::{AngioState, AngioUniforms};
use petri_model::epidermis::checkpoint::{check_meaning, config_hashes, Checkpoint};
use petri_model::epidermis::cpu::CpuModel;
use petri_model::epidermis::run::{start, RunOptions};
use petri_model::epidermis::sim::{EpidermisSim, SimOptions};
use petri_model::epidermis::state::{EpidermisState, MAX_ELEMENTS};
use petri_model::epidermis::EpidermisConfig;
use petri_model::rdme::checkpoint::Checkpoint as RdmeCheckpoint;
use petri_model::rdme::config::{RdmeConfig, RdmeModel};
use petri_model::rdme::lattice::initial_lattice;
use petri_model::reactions::json::parse_network_json;
use petri_model::reactions::{Network, COUNT_LIMIT};
use petri_model::ssa::checkpoint::Checkpoint as SsaCheckpoint;
use petri_model::ssa::ensemble::Method;
use petri_model::ssa::run::{run_cpu, RunOptions as SsaOptions};
use petri_model::ModelError;
use proptest::prelude::*;
use serde_json::json;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Values that probe the fields' limits and types.
const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "0.5",
    "3",
    "1e-300",
    "1e300",
    "1e30",
    "-1e308",
    "1e6",
    "1e-6",
    "1000",
    "65536",
    "16777216",
    "4294967296",
    "18446744073709551615",
    "\"x\"",
    "null",
    "true",
    "[]",
    "[1, 1, 1, 1]",
    "[0, 1e30, 1e30, 16]",
];

/// This file's proptest seed.
const SEED: u64 = 0x0e9d_0043;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("model-fuzz-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small epidermis: 3 x 3 cells in a 4 x 4 box, room for 16.
fn small_epidermis() -> EpidermisConfig {
    let mut c = EpidermisConfig::default();
    c.domain.lx = 4.0;
    c.domain.ly = 4.0;
    c.domain.height = 4.0;
    c.initial.cells_x = 3;
    c.initial.cells_y = 3;
    c.capacity.max_cells = 16;
    c.validate().unwrap();
    c
}

/// Leaf paths of a JSON config ("mechanics.inter.u0", "genes.hill.bn", ...), not provenance.
fn leaf_paths(v: &Value, at: &str, out: &mut Vec<String>) {
    match v.as_object() {
        Some(m) => {
            for (k, v) in m {
                if k != "provenance" {
                    let p = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    leaf_paths(v, &p, out);
                }
            }
        }
        None => out.push(at.to_string()),
    }
}

fn slot<'a>(v: &'a mut Value, path: &str) -> &'a mut Value {
    path.split('.').fold(v, |v, k| &mut v[k])
}

/// A refusal reads as one and names a field of the config (an invalid value by its path,
/// memory by the fields that size it, the reader by the key, text by line and column).
fn assert_names_a_field(e: &ModelError, paths: &[String]) {
    let text = e.to_string();
    let top: Vec<&str> = paths.iter().map(|p| p.split('.').next().unwrap()).collect();
    let named = |s: &str| top.iter().any(|t| s.contains(t));
    let ok = match e {
        ModelError::Invalid { field, .. } => named(field),
        ModelError::OutOfMemory { what, .. } => named(what),
        ModelError::Parse { message, .. } => message.contains('`') || message.contains("line"),
        _ => false,
    };
    assert!(ok, "names no field: {text}");
    assert!(
        !text.contains(&"0".repeat(20)),
        "a number not in short form: {text}"
    );
}

/// What a valid config must allow: three CPU steps from its initial state keep every element
/// in use finite, in the periodic box and on or above the membrane, every gene value finite
/// and >= 0 (the stability bounds at work). Only small tissues (the CPU is the reference).
fn exercise(cfg: &EpidermisConfig) {
    if cfg.capacity.max_cells > 256
        || cfg.initial_cells() > 64
        || cfg.mechanics_grid().cells() > 1 << 14
    {
        return;
    }
    let cpu = CpuModel::new(cfg);
    let mut s = EpidermisState::initial(cfg);
    for _ in 0..3 {
        if cpu.step(&mut s) > 0 {
            break;
        }
    }
    let (lx, ly) = (cfg.domain.lx as f32, cfg.domain.ly as f32);
    for c in 0..s.cells as usize {
        for k in s.slots(c) {
            let p = s.pos[k];
            assert!(p.iter().all(|v| v.is_finite()), "slot {k}: {p:?}");
            assert!(
                (0.0..lx).contains(&p[0]) && (0.0..ly).contains(&p[1]) && p[2] >= 0.0,
                "slot {k}: {p:?}"
            );
        }
        assert!(
            s.genes[c].iter().all(|g| g.is_finite() && *g >= 0.0),
            "{:?}",
            s.genes[c]
        );
    }
}

/// `bytes` with the container's trailing XXH64 recomputed.
fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    if let Some(n) = bytes.len().checked_sub(8) {
        let sum = petri_output::checksum::xxh64(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_le_bytes());
    }
    bytes
}

/// `base` with bytes flipped, then cut, then its checksum fixed where asked.
fn mutated(base: &[u8], flips: &[(usize, u8)], cut: Option<usize>, fix: bool) -> Vec<u8> {
    let mut bytes = base.to_vec();
    for &(at, b) in flips {
        let n = bytes.len();
        bytes[at % n] ^= b | 1;
    }
    if let Some(at) = cut {
        let n = bytes.len();
        bytes.truncate(at % n);
    }
    if fix {
        with_checksum(bytes)
    } else {
        bytes
    }
}

fn assert_names_the_file(e: &ModelError, path: &Path) {
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("checkpoint {}: ", path.display())),
        "{text}"
    );
    assert!(!text.contains(&"0".repeat(20)), "{text}");
}

/// The small epidermis after 3 CPU steps, saved as a run saves it.
fn epidermis_checkpoint() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let cfg = small_epidermis();
        let mut s = EpidermisState::initial(&cfg);
        let cpu = CpuModel::new(&cfg);
        for _ in 0..3 {
            cpu.step(&mut s);
        }
        let path = scratch("epi-base").join("k.petri");
        Checkpoint::new(config_hashes(&cfg), s).save(&path).unwrap();
        std::fs::read(&path).unwrap()
    })
}

fn rdme_model() -> RdmeModel {
    let cfg =
        RdmeConfig::from_json(include_str!("data/rdme-small.json"), "rdme-small.json").unwrap();
    cfg.resolve(Path::new(".")).unwrap()
}

fn rdme_checkpoint() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let m = rdme_model();
        let lattice = initial_lattice(&m).unwrap();
        let path = scratch("rdme-base").join("k.petri");
        RdmeCheckpoint::new(&m, 5, &lattice, 0).save(&path).unwrap();
        std::fs::read(&path).unwrap()
    })
}

fn angio_checkpoint() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let cfg = common::config(6);
        let u = AngioUniforms::new(&cfg, 0.0);
        let state = AngioState::initial(&cfg, &u);
        let ck = AngioCheckpoint {
            k: cfg.time_step(state.max_taxis_speed_sq(&cfg, &u)).unwrap(),
            state,
            config: cfg,
        };
        let path = scratch("angio-base").join("k.petri");
        ck.save(&path).unwrap();
        std::fs::read(&path).unwrap()
    })
}

/// The asset's defaults with `edit` merged in, read as a config file is.
fn refusal(edit: serde_json::Value) -> String {
    let mut v = serde_json::to_value(EpidermisConfig::default()).unwrap();
    merge(&mut v, &edit);
    let e = EpidermisConfig::from_json(&v.to_string(), "e.json").unwrap_err();
    e.to_string()
}

fn merge(v: &mut serde_json::Value, edit: &serde_json::Value) {
    match (v.as_object_mut(), edit.as_object()) {
        (Some(m), Some(e)) => {
            for (k, x) in e {
                merge(m.entry(k.clone()).or_insert(json!(null)), x);
            }
        }
        _ => *v = edit.clone(),
    }
}

#[track_caller]
fn has(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "{p:?} not in: {text}");
    }
}

#[test]
fn unstable_frozen_and_overflowing_configs_are_refused_naming_the_field() {
    // dt = 1000 sent elements to z = 1808; now the RK2 bound of the stiffest pair.
    has(
        &refusal(json!({"dt": 1000.0})),
        &["dt = 1000", "at most 0.057", "mechanics.intra"],
    );
    // dt = 1e-300 is 0 in f32: nothing moved.
    has(
        &refusal(json!({"dt": 1e-300})),
        &["dt = 1e-300", "at least 1.7", "f32"],
    );
    // Morse u0 of 1e30 scrambled positions; a huge intercellular u0 ended in a figure error.
    has(
        &refusal(json!({"mechanics": {"intra": {"u0": 1e30}}})),
        &["mechanics.intra.u0", "contact force u0 / xi1"],
    );
    has(
        &refusal(json!({"mechanics": {"inter": {"u0": 1e6}}})),
        &["dt = 0.005", "mechanics.inter", "RK2 stability"],
    );
    // Rates far past the RK2 bound were clamped at 0 and quietly ignored.
    has(
        &refusal(json!({"genes": {"decay": {"myc": 1e5}}})),
        &["genes.decay.myc = 100000", "at most 2 / dt = 400"],
    );
    has(
        &refusal(
            json!({"genes": {"hill": {"av": [0.0, 1.0, 10.0, 4.0], "ov": [0.0, 12.0, 1e3, 2.0]}}}),
        ),
        &["dt = 0.005", "genes.hill.ov", "Gershgorin"],
    );
    // A tiny neighbour distance was reported as "binning grid dims".
    let e = refusal(json!({"genes": {"neighbour_distance": 1e-30}}));
    // (serde_json reads 1e-30 as 9.999999999999999e-31.)
    has(
        &e,
        &["genes.neighbour_distance = ", "e-31", "at least 0.0231"],
    );
    assert!(!e.contains("grid dims"), "{e}");
    // An initial radius of 1e6 made a final picture of a terabyte.
    has(
        &refusal(json!({"initial": {"radius": 1e6}})),
        &["initial.radius = 1000000", "at most half", "box.height"],
    );
}

#[test]
fn the_asset_and_the_defaults_stay_valid() {
    let asset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/epidermis.json");
    EpidermisConfig::from_file(&asset).unwrap();
    EpidermisConfig::default().validate().unwrap();
}

/// The process's peak resident memory in bytes (Linux: VmHWM).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

/// `capacity.max_cells` = 2^24 passes the config's budget (70 GB of device memory, within the
/// largest GPUs) but its position buffer (10.7 GB) is past a device's per-buffer limit: refused
/// naming the field before the host allocates the 11 GB initial state.
#[test]
fn a_capacity_past_the_device_buffer_limit_is_refused_before_the_host_allocates() {
    let ctx = test_context();
    let mut cfg = EpidermisConfig::default();
    cfg.capacity.max_cells = 1 << 24;
    cfg.validate().unwrap();
    let before = peak_rss();
    let e = match EpidermisSim::new(&ctx, &cfg, &SimOptions::default()) {
        Ok(_) => panic!("a 10.7 GB position buffer was accepted"),
        Err(e) => e.to_string(),
    };
    has(
        &e,
        &[
            "capacity.max_cells",
            "16777216 cells",
            "max_storage_buffer_binding_size",
        ],
    );
    assert!(
        peak_rss() < before + (1 << 30),
        "{} -> {}",
        before,
        peak_rss()
    );
}

fn fresh(name: &str) -> PathBuf {
    let dir = scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A real checkpoint of the small config after 5 CPU steps, edited by `edit` and written again
/// (so its checksum is right), then read as a resumed run reads it.
fn resume_edited(name: &str, edit: impl Fn(&mut EpidermisState)) -> Result<EpidermisState, String> {
    let cfg = small_epidermis();
    let path = fresh(name).join("checkpoint.petri");
    let mut s = EpidermisState::initial(&cfg);
    let cpu = CpuModel::new(&cfg);
    for _ in 0..5 {
        cpu.step(&mut s);
    }
    Checkpoint::new(config_hashes(&cfg), s).save(&path).unwrap();
    let mut ck = Checkpoint::load(&path).unwrap();
    edit(&mut ck.state);
    ck.save(&path).map_err(|e| e.to_string())?;
    let read = Checkpoint::load(&path)
        .and_then(|ck| ck.restore(&config_hashes(&cfg), cfg.capacity.max_cells, &path))
        .and_then(|s| check_meaning(&cfg, &s, &path).map(|_| s));
    read.map_err(|e| {
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("checkpoint {}: ", path.display())),
            "{text}"
        );
        text
    })
}

#[test]
fn checkpoints_with_a_valid_checksum_but_impossible_contents_are_refused() {
    let unedited = resume_edited("unedited", |_| {}).unwrap();
    assert_eq!(unedited.step, 5);
    let refused =
        |name: &str, edit: &dyn Fn(&mut EpidermisState)| resume_edited(name, edit).unwrap_err();
    has(
        &refused("x", &|s| s.pos[3][0] = 1e30),
        &["element slot 3 of cell 0", "outside the box"],
    );
    has(
        &refused("z", &|s| s.pos[45][2] = 1e30),
        &["element slot 45 of cell 1", "above z = "],
    );
    has(
        &refused("y", &|s| s.pos[0][1] = -0.5),
        &["element slot 0 of cell 0", "[0, 4)"],
    );
    has(
        &refused("divisions", &|s| s.divisions += 1),
        &["9 cells after 1 divisions", "starts with 9"],
    );
    has(
        &refused("added", &|s| s.added += 3),
        &["after 3 added by growth", "the config starts with"],
    );
    // A cell more, its elements well placed: the counters no longer add up.
    has(
        &refused("cells", &|s| {
            s.cells = 10;
            s.counts[9] = 20;
            for k in 0..20 {
                s.pos[9 * 40 + k] = [1.0, 1.0, 0.5, 0.0];
            }
        }),
        &["10 cells after 0 divisions"],
    );
    // The step counter past the largest step is refused when writing and when reading.
    let e = refused("step", &|s| s.step = u64::MAX);
    has(&e, &["is past 4294967295"]);
}

/// The edited checkpoint is refused through the resume path a run takes (`run::start`).
#[test]
fn a_resumed_run_refuses_an_absurd_checkpoint() {
    let ctx = test_context();
    let cfg = small_epidermis();
    let path = fresh("start").join("checkpoint.petri");
    let mut s = EpidermisState::initial(&cfg);
    s.pos[2][2] = 3e30;
    Checkpoint::new(config_hashes(&cfg), s).save(&path).unwrap();
    let opts = RunOptions::resuming(SimOptions::default(), Some(&path));
    let e = match start(&ctx, &cfg, &opts) {
        Ok(_) => panic!("resumed an element at z = 3e30"),
        Err(e) => e.to_string(),
    };
    has(
        &e,
        &["checkpoint ", "element slot 2 of cell 0", "above z = "],
    );
}

/// A network run's checkpoint (ODM, birth-death, 5 trajectories), as the run wrote it.
fn ssa_checkpoint(dir: &Path) -> (Network, PathBuf) {
    let net =
        parse_network_json(include_str!("../../../assets/birth-death.json"), "bd.json").unwrap();
    let opts = SsaOptions {
        method: Method::Odm,
        trajectories: 5,
        t_end: 2.0,
        points: 5,
        seed: 3,
        keep_trajectories: true,
        plot_species: Vec::new(),
        device_reason: String::new(),
        stop: None,
        out_dir: dir.join("out"),
        overwrite: false,
        source: "bd.json".into(),
        steps: Some(2),
        checkpoint_every: Some(1),
        resume: None,
    };
    run_cpu(&net, &opts, |_| {}).unwrap();
    (net, opts.out_dir.join("checkpoint.petri"))
}

/// Counts past the limit, propensities that are not those of the counts, a negative total
/// propensity or a negative sd in a network checkpoint with a right checksum: refused naming
/// the checkpoint and what is wrong.
#[test]
fn network_checkpoints_with_impossible_values_are_refused() {
    let times = [0.0, 0.5, 1.0, 1.5, 2.0];
    let read = |name: &str, edit: &dyn Fn(&mut SsaCheckpoint)| -> Result<(), String> {
        let (net, path) = ssa_checkpoint(&fresh(name));
        let mut ck = SsaCheckpoint::load(&path).unwrap();
        edit(&mut ck);
        ck.save(&path).unwrap();
        let ck = SsaCheckpoint::load(&path).map_err(|e| e.to_string())?;
        ck.restore(&net, (Method::Odm, 3, 5), &times, true, &path)
            .map(|_| ())
            .map_err(|e| {
                let text = e.to_string();
                assert!(
                    text.starts_with(&format!("checkpoint {}: ", path.display())),
                    "{text}"
                );
                text
            })
    };
    read("ssa-unedited", &|_| {}).unwrap();
    has(
        &read("ssa-count", &|c| c.counts[2] = COUNT_LIMIT + 1).unwrap_err(),
        &["count 2 of the state", "past the count limit"],
    );
    has(
        &read("ssa-a", &|c| c.a[1] = 1e30).unwrap_err(),
        &[
            "trajectory 0 has propensity 1e30 for reaction 1",
            "its counts give",
        ],
    );
    has(
        &read("ssa-a0", &|c| c.a0[3] = -1.0).unwrap_err(),
        &["trajectory 3 has a total propensity of -1"],
    );
    has(
        &read("ssa-sd", &|c| c.sd[0] = -2.0).unwrap_err(),
        &["row 0 of mean_sd", "negative sd"],
    );
}

proptest! {
    #![proptest_config(fuzz_common::config(300, SEED))]

    /// Up to four fields of the small epidermis set to probing values.
    #[test]
    fn epidermis_config_field_edits(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..VALUES.len()), 1..5)
    ) {
        let mut json = serde_json::to_value(small_epidermis()).unwrap();
        let mut paths = Vec::new();
        leaf_paths(&json, "", &mut paths);
        for (at, v) in &edits {
            let path: &String = at.get(&paths);
            *slot(&mut json, path) = serde_json::from_str(VALUES[*v]).unwrap();
        }
        match EpidermisConfig::from_json(&json.to_string(), "fuzz.json") {
            Ok(cfg) => exercise(&cfg),
            Err(e) => assert_names_a_field(&e, &paths),
        }
    }

    /// A checkpoint loads, restores against its config and passes the meaning checks with a
    /// state of the config, or is refused naming the file.
    #[test]
    fn epidermis_checkpoint_mutations(
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in prop::option::of(any::<usize>()),
        fix in any::<bool>(),
    ) {
        let path = scratch("epi-mutated").join("k.petri");
        std::fs::write(&path, mutated(epidermis_checkpoint(), &flips, cut, fix)).unwrap();
        let cfg = small_epidermis();
        let read = Checkpoint::load(&path)
            .and_then(|ck| ck.restore(&config_hashes(&cfg), cfg.capacity.max_cells, &path))
            .and_then(|s| check_meaning(&cfg, &s, &path).map(|_| s));
        match read {
            Ok(s) => {
                prop_assert!(s.cells <= s.max_cells);
                for c in 0..s.cells as usize {
                    prop_assert!((1..=MAX_ELEMENTS as u32).contains(&s.counts[c]));
                    for k in s.slots(c) {
                        let p = s.pos[k];
                        prop_assert!(p[0] >= 0.0 && p[0] < 4.0 && p[1] >= 0.0 && p[1] < 4.0 && p[2] >= 0.0, "{:?}", p);
                    }
                }
            }
            Err(e) => assert_names_the_file(&e, &path),
        }
    }

    #[test]
    fn rdme_checkpoint_mutations(
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in prop::option::of(any::<usize>()),
        fix in any::<bool>(),
    ) {
        let path = scratch("rdme-mutated").join("k.petri");
        std::fs::write(&path, mutated(rdme_checkpoint(), &flips, cut, fix)).unwrap();
        let m = rdme_model();
        match RdmeCheckpoint::load(&path).and_then(|ck| ck.restore(&m, &path)) {
            Ok(lattice) => {
                let n = m.config.species.len() as u8;
                for i in 0..lattice.sites() {
                    prop_assert!(lattice.particles(i).iter().all(|&s| (1..=n).contains(&s)));
                }
            }
            Err(e) => assert_names_the_file(&e, &path),
        }
    }

    #[test]
    fn angiogenesis_checkpoint_mutations(
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in prop::option::of(any::<usize>()),
        fix in any::<bool>(),
    ) {
        let path = scratch("angio-mutated").join("k.petri");
        std::fs::write(&path, mutated(angio_checkpoint(), &flips, cut, fix)).unwrap();
        match AngioCheckpoint::load(&path) {
            Ok(ck) => {
                let s = &ck.state;
                let cells = ck.config.cells();
                prop_assert!(s.n.iter().chain(&s.f).chain(&s.c).all(|v| v.is_finite()));
                prop_assert!(s.segments.iter().all(|g| (g[0] as usize) < cells && (g[1] as usize) < cells), "{:?}", s.segments);
            }
            Err(e) => assert_names_the_file(&e, &path),
        }
    }
}
