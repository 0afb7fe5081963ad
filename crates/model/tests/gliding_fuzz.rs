//! Property-based fuzzing of the gliding assay's readers: its config (fields of the tiny
//! config set to values across and past their ranges and of other JSON types, and byte
//! mutations of its text) and its checkpoint (byte flips and cuts, the container's checksum
//! recomputed half the time so that they reach the model's own checks). Asserts: never a
//! panic or a hang; a config validates (and then its initial Psi, motor tables and, where
//! small, a CPU step run to a result or a clear error) or is refused naming a field of the
//! config; a checkpoint loads a state of the config or is refused naming the file. Case counts
//! from a fixed seed, as in fuzz_readers.rs (`PROPTEST_CASES`, `PROPTEST_RNG_SEED` by hand).

mod fuzz_common;
mod gliding_common;

use gliding_common::tiny;
use petri_model::gliding::checkpoint;
use petri_model::gliding::clock::Clock;
use petri_model::gliding::cpu::GlidingCpu;
use petri_model::gliding::init::initial_psi;
use petri_model::gliding::params::GlidingConfig;
use petri_model::gliding::state::GlidingState;
use petri_model::gliding::MotorTables;
use petri_model::ModelError;
use proptest::prelude::*;
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
    "-1e308",
    "1e6",
    "1e-6",
    "4096",
    "65536",
    "4611686018427387904",
    "18446744073709551615",
    "\"rings\"",
    "\"x\"",
    "null",
    "true",
    "[]",
];

/// This file's proptest seed.
const SEED: u64 = 0x611d_0043;

/// The tiny config as JSON, and the paths of its fields ("grid.nx", "dt", ...).
fn base() -> (Value, Vec<String>) {
    let json = serde_json::to_value(tiny()).unwrap();
    let mut paths = Vec::new();
    for (key, v) in json.as_object().unwrap() {
        match v.as_object() {
            Some(m) if key != "provenance" => {
                paths.extend(m.keys().map(|k| format!("{key}.{k}")));
            }
            _ => paths.push(key.clone()),
        }
    }
    (json, paths)
}

/// A refusal names a field of the config: an invalid value by its path, memory by the fields
/// that size it, the JSON reader by the key (unknown, missing, a value of the wrong type); text
/// that is not JSON by its line and column.
fn assert_names_a_field(e: &ModelError, paths: &[String]) {
    let text = e.to_string();
    let named = |s: &str| paths.iter().any(|p| s.contains(p.as_str()));
    let ok = match e {
        ModelError::Invalid { field, .. } => named(field),
        ModelError::OutOfMemory { what, .. } => named(what),
        ModelError::Parse { message, .. } => match ["invalid type", "invalid value"]
            .iter()
            .any(|w| message.contains(w))
        {
            // The whole document of the wrong type has no field to name.
            true => message.contains("(field `") || message.contains("struct GlidingConfig"),
            false => message.contains('`') || message.contains("line"),
        },
        _ => false,
    };
    assert!(ok, "names no field: {text}");
    assert!(
        !text.contains(&"0".repeat(20)),
        "a number not in short form: {text}"
    );
    assert!(!text.contains("18446744073709551615 cells"), "{text}");
}

/// What a config that validates must allow: its initial Psi, its motor tables and, on a small
/// grid, two CPU steps (a result or a clear error: a run may go unstable, not panic).
fn exercise(cfg: &GlidingConfig, paths: &[String]) {
    let g = &cfg.grid;
    let m = cfg.motor_config();
    if g.nx * g.ny * g.ntheta > 1 << 12 || m.box_block() > 1 << 12 {
        return;
    }
    let psi = initial_psi(cfg);
    assert!(psi.iter().all(|v| v.is_finite() && *v >= 0.0));
    MotorTables::new(&m).unwrap();
    if g.nx * g.ny > 64 || g.nz > 16 {
        return;
    }
    let mut sim = GlidingCpu::new(cfg).unwrap();
    for _ in 0..2 {
        if let Err(e) = sim.step() {
            let text = e.to_string();
            assert!(
                matches!(e, ModelError::NonFinite { .. } | ModelError::Stalled { .. })
                    || paths.iter().any(|p| text.contains(p.as_str())),
                "{text}"
            );
            break;
        }
    }
}

fn check_config_text(text: &str, paths: &[String]) {
    match GlidingConfig::from_json(text, "fuzz.json") {
        Ok(cfg) => exercise(&cfg, paths),
        Err(e) => assert_names_a_field(&e, paths),
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

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gliding-fuzz-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A checkpoint of the tiny config at its start, as a run writes it.
fn checkpoint_bytes() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let cfg = tiny();
        let (g, density) = (&cfg.grid, cfg.motors.density as f32);
        let (n, cells) = (g.nx * g.ny, g.nx * g.ny * g.ntheta);
        let m = cfg.motor_config();
        let block = MotorTables::new(&m).unwrap().block(&m);
        let state = GlidingState {
            step: 0,
            psi: initial_psi(&cfg).iter().map(|&v| v as f32).collect(),
            rate: vec![0.0; cells + 1],
            bound: vec![0.0; n * block],
            motors: vec![[density, 0.0, density, 0.0]; n],
            motor_force: vec![[0.0; 2]; n],
            fluid: vec![0.0; 3 * g.nz * n],
            velocity: vec![0.0; 3 * cells],
            clock: Clock::default(),
        };
        let path = scratch("base").join("k.petri");
        checkpoint::save(&path, &cfg, &state).unwrap();
        std::fs::read(&path).unwrap()
    })
}

proptest! {
    #![proptest_config(fuzz_common::config(400, SEED))]

    /// Up to four fields set to probing values.
    #[test]
    fn config_field_edits(edits in prop::collection::vec((any::<prop::sample::Index>(), 0..VALUES.len()), 1..5)) {
        let (mut json, paths) = base();
        for (at, v) in &edits {
            let path = at.get(&paths);
            let slot = match path.split_once('.') {
                Some((section, key)) => &mut json[section][key],
                None => &mut json[path.as_str()],
            };
            *slot = serde_json::from_str(VALUES[*v]).unwrap();
        }
        check_config_text(&json.to_string(), &paths);
    }

    /// Byte flips, cuts and insertions of the config's text.
    #[test]
    fn config_text_mutations(edits in prop::collection::vec((any::<usize>(), any::<u8>(), 0..3u8), 1..6)) {
        let (json, paths) = base();
        let mut bytes = serde_json::to_vec_pretty(&json).unwrap();
        for &(at, b, kind) in &edits {
            let at = at % bytes.len().max(1);
            match kind {
                0 if !bytes.is_empty() => bytes[at] ^= b | 1,
                1 => bytes.insert(at, b),
                _ => bytes.truncate(at.max(1)),
            }
        }
        check_config_text(&String::from_utf8_lossy(&bytes), &paths);
    }

    /// Byte flips and cuts of a checkpoint: a state of the config or a refusal naming the file.
    #[test]
    fn checkpoint_mutations(
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in prop::option::of(any::<usize>()),
        fix_checksum in any::<bool>(),
    ) {
        let mut bytes = checkpoint_bytes().to_vec();
        for &(at, b) in &flips {
            let n = bytes.len();
            bytes[at % n] ^= b | 1;
        }
        if let Some(at) = cut {
            let n = bytes.len();
            bytes.truncate(at % n);
        }
        let bytes = if fix_checksum { with_checksum(bytes) } else { bytes };
        let path = scratch("mutated").join("k.petri");
        std::fs::write(&path, &bytes).unwrap();
        let cfg = tiny();
        match checkpoint::load(&path, &cfg) {
            Ok(state) => {
                prop_assert!(state.psi.iter().all(|v| v.is_finite()));
                prop_assert!(state.motors.iter().all(|m| m.iter().all(|v| *v >= 0.0)));
                prop_assert!(state.step == 0 || state.clock.dt > 0.0);
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert!(text.starts_with(&format!("checkpoint {}: ", path.display())), "{}", text);
                prop_assert!(!text.contains(&"0".repeat(20)), "{}", text);
            }
        }
    }
}
