//! Property-based fuzzing of every reader of user files: reaction networks (JSON, SBML), the
//! model configs (angiogenesis, rdme) and checkpoints. Each property feeds random mutations of a
//! valid file (byte flips, insertions, cuts, and "interesting" tokens such as 1e308, -1, 2^64
//! or a deep `<apply>`) or generated inputs to a reader and asserts: a clear error (naming what
//! is wrong, no serde enum jargon, no 300-digit numbers) or a valid result, never a panic, a
//! crash or a hang. A valid network is also run briefly on the CPU. Case counts are bounded so
//! the whole file runs in seconds in a debug build; proptest shrinks any failure to a small
//! input and prints it.

use petri_model::angiogenesis::params::AngioConfig;
use petri_model::rdme::config::RdmeConfig;
use petri_model::reactions::json::parse_network_json;
use petri_model::reactions::sbml::parse_sbml;
use petri_model::reactions::{dsmts_dir, Network, COUNT_LIMIT, MAX_RATE};
use petri_model::ssa::ensemble::{run_ensemble_cpu, Method};
use petri_model::ModelError;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

mod fuzz_common;
mod inputs;
use inputs::sbml_with_law;

/// Tokens that probe the limits of numeric, string and structural fields.
const TOKENS: &[&str] = &[
    "1e308",
    "-1e308",
    "1e-320",
    "-1",
    "0",
    "1",
    "2",
    "100",
    "1073741824",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "1.5",
    "NaN",
    "\"\"",
    "\"X\"",
    "null",
    "true",
    "[]",
    "{}",
    "[\"X\", \"X\", \"X\"]",
    "{\"X\": 100}",
    "\u{feff}",
    "<apply><times/>",
    "</apply>",
    "<ci> X </ci>",
    "<cn> 1e308 </cn>",
    "&amp;",
    "<!DOCTYPE x [<!ENTITY a \"aaaa\">]>",
    "\"id\"",
    ",",
    ":",
    "\"",
    "<",
    ">",
];

/// One edit of a byte string.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize, usize),
    Truncate(usize),
    /// Replaces the bytes from a position up to the next delimiter by a token.
    Token(usize, usize),
    /// Copies a chunk to another position.
    Duplicate(usize, usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<usize>();
    prop_oneof![
        (at, any::<u8>()).prop_map(|(p, b)| Edit::Flip(p, b)),
        (at, any::<u8>()).prop_map(|(p, b)| Edit::Insert(p, b)),
        (at, 1usize..16).prop_map(|(p, n)| Edit::Delete(p, n)),
        at.prop_map(Edit::Truncate),
        (at, 0..TOKENS.len()).prop_map(|(p, t)| Edit::Token(p, t)),
        (at, at, 1usize..64).prop_map(|(a, b, n)| Edit::Duplicate(a, b, n)),
    ]
}

/// `base` after `edits` (positions wrap around the current length).
fn mutate(base: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut v = base.to_vec();
    for e in edits {
        let n = v.len().max(1);
        match *e {
            Edit::Flip(p, b) if !v.is_empty() => v[p % n] ^= b | 1,
            Edit::Insert(p, b) => v.insert(p % (v.len() + 1), b),
            Edit::Delete(p, k) if !v.is_empty() => {
                let p = p % n;
                v.drain(p..(p + k).min(v.len()));
            }
            Edit::Truncate(p) => v.truncate(p % (v.len() + 1)),
            Edit::Token(p, t) => {
                let p = p % (v.len() + 1);
                let end = v[p..]
                    .iter()
                    .position(|b| b",}]<> \n".contains(b))
                    .map_or(v.len(), |k| p + k);
                v.splice(p..end, TOKENS[t].bytes());
            }
            Edit::Duplicate(a, b, k) if !v.is_empty() => {
                let a = a % n;
                let chunk = v[a..(a + k).min(v.len())].to_vec();
                let b = b % (v.len() + 1);
                v.splice(b..b, chunk);
            }
            _ => {}
        }
    }
    v
}

fn mutated(base: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(edit(), 1..6).prop_map(move |edits| mutate(base, &edits))
}

/// A refusal reads as one: no serde enum jargon, no number printed in full (a huge or tiny
/// f64 printed by `{}` has a run of zeros; echoed input has not, short of a file full of them).
fn assert_clear(e: &ModelError) {
    let text = e.to_string();
    assert!(!text.contains("untagged"), "unclear: {text}");
    assert!(!text.contains("panicked"), "{text}");
    assert!(
        !text.contains(&"0".repeat(20)),
        "a number not in short form: {text}"
    );
    assert!(text.len() < 4000, "too long: {text}");
}

/// What a network that read must satisfy, and a short CPU run of it: a result or a clear
/// error (count limit, a clock that cannot move), never a panic or a hang.
fn check_network(net: &Network) {
    net.validate().unwrap();
    assert!(!net.species.is_empty());
    assert!(net.species.iter().all(|s| s.initial_count < COUNT_LIMIT));
    assert!(net
        .reactions
        .iter()
        .all(|r| (0.0..=MAX_RATE).contains(&r.rate)));
    // Bound the work: about a0 * t_end events per trajectory (growth stops at the count limit).
    let counts = net.initial_counts();
    let a0: f64 = net.reactions.iter().map(|r| r.propensity(&counts)).sum();
    let t_end = (1e3 / a0.max(1e-300)).min(1.0);
    for method in [Method::Direct, Method::Tau] {
        if let Err(e) = run_ensemble_cpu(net, method, 1, 7, &[0.0, t_end]) {
            assert_clear(&e);
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// This file's proptest seed, so that CI runs the same inputs every time; a longer or different
/// campaign by hand with `PROPTEST_CASES` and `PROPTEST_RNG_SEED` (fuzz_common).
const SEED: u64 = 0x5eed_0022;

const BIRTH_DEATH: &[u8] = include_bytes!("../../../assets/birth-death.json");
const VILAR: &[u8] = include_bytes!("../../../assets/vilar.json");
const ANGIOGENESIS: &[u8] = include_bytes!("../../../assets/angiogenesis.json");

/// A small rdme config (16 x 16 x 32 sites), resolvable in milliseconds (also the CLI tests').
const RDME: &str = include_str!("data/rdme-small.json");

fn dsmts(case: &str) -> &'static [u8] {
    let path = dsmts_dir().join(format!("{case}/{case}-sbml-l3v1.xml"));
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("the DSMTS corpus is needed: {}: {e}", path.display()));
    Box::leak(bytes.into_boxed_slice())
}

/// MathML expressions over X, Y, k and numbers, operators in and out of the subset.
fn mathml() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("<ci> X </ci>".to_string()),
        Just("<ci> Y </ci>".to_string()),
        Just("<ci> k </ci>".to_string()),
        Just("<ci> nope </ci>".to_string()),
        prop::sample::select(vec!["0", "1", "2", "-1", "0.5", "1e308", "1e-308", "x"])
            .prop_map(|v| format!("<cn> {v} </cn>")),
    ];
    leaf.prop_recursive(8, 64, 4, |inner| {
        (
            prop::sample::select(vec![
                "times", "plus", "minus", "divide", "power", "ln", "exp", "ci",
            ]),
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(op, args)| {
                let head = match op {
                    "ci" => "<ci> f </ci>".to_string(),
                    op => format!("<{op}/>"),
                };
                format!("<apply>{head}{}</apply>", args.concat())
            })
    })
}

/// A scratch folder for checkpoint files.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

proptest! {
    #![proptest_config(fuzz_common::config(10000, SEED))]

    #[test]
    fn network_json_mutations(bytes in prop_oneof![mutated(BIRTH_DEATH), mutated(VILAR)]) {
        match parse_network_json(&text(&bytes), "fuzz.json") {
            Ok(net) => check_network(&net),
            Err(e) => assert_clear(&e),
        }
    }
}

proptest! {
    #![proptest_config(fuzz_common::config(10000, SEED))]

    /// Generated networks: counts, stoichiometries and rates across their whole ranges and
    /// past them, sides and rates of every JSON type.
    #[test]
    fn network_json_generated(
        counts in prop::collection::vec(
            prop_oneof![0u64..200, Just(COUNT_LIMIT - 1), Just(COUNT_LIMIT), Just(u64::MAX)],
            0..4,
        ),
        reactions in prop::collection::vec(
            (
                prop::collection::vec((0usize..5, prop_oneof![0u64..4, Just(1u64 << 40)]), 0..3),
                prop::collection::vec((0usize..5, prop_oneof![0u64..4, Just(100u64), Just(1_000_000u64), Just(1u64 << 31)]), 0..3),
                prop_oneof![
                    (0.0f64..10.0).prop_map(|r| r.to_string()),
                    Just("1e308".to_string()),
                    Just("1e30".to_string()),
                    Just("-1".to_string()),
                    Just("\"k\"".to_string()),
                    Just("\"nope\"".to_string()),
                    Just("true".to_string()),
                    Just("[1]".to_string()),
                ],
                any::<bool>(),
            ),
            0..4,
        ),
    ) {
        let id = |s: usize| format!("S{s}");
        let species: Vec<String> = counts
            .iter()
            .enumerate()
            .map(|(i, c)| format!(r#"{{"id": "{}", "initial_count": {c}}}"#, id(i)))
            .collect();
        let side = |list: &[(usize, u64)], as_map: bool| {
            let items: Vec<String> = list
                .iter()
                .map(|(s, nu)| match as_map {
                    true => format!(r#""{}": {nu}"#, id(*s)),
                    false => format!(r#""{}""#, id(*s)),
                })
                .collect();
            match as_map {
                true => format!("{{{}}}", items.join(", ")),
                false => format!("[{}]", items.join(", ")),
            }
        };
        let reactions: Vec<String> = reactions
            .iter()
            .enumerate()
            .map(|(j, (r, p, rate, as_map))| {
                format!(
                    r#"{{"id": "r{j}", "reactants": {}, "products": {}, "rate": {rate}}}"#,
                    side(r, *as_map),
                    side(p, true)
                )
            })
            .collect();
        let json = format!(
            r#"{{"parameters": {{"k": 2.5}}, "species": [{}], "reactions": [{}]}}"#,
            species.join(", "),
            reactions.join(", ")
        );
        match parse_network_json(&json, "gen.json") {
            Ok(net) => check_network(&net),
            Err(e) => assert_clear(&e),
        }
    }
}

proptest! {
    #![proptest_config(fuzz_common::config(5000, SEED))]

    #[test]
    fn sbml_mutations(bytes in prop_oneof![mutated(dsmts("00001")), mutated(dsmts("00030"))]) {
        match parse_sbml(&text(&bytes), "fuzz.xml") {
            Ok(net) => check_network(&net),
            Err(e) => assert_clear(&e),
        }
    }

    #[test]
    fn sbml_generated_kinetic_laws(math in mathml()) {
        match parse_sbml(&sbml_with_law(&math), "law.xml") {
            Ok(net) => check_network(&net),
            Err(e) => assert_clear(&e),
        }
    }

    /// Nesting depth: read up to the cap, refused past it with the cap named, never a crash.
    #[test]
    fn sbml_nesting_depth(depth in 0usize..200) {
        let law = format!(
            "{}<ci> k </ci><ci> X </ci>{}",
            "<apply><times/>".repeat(depth + 1),
            "</apply>".repeat(depth + 1)
        );
        match parse_sbml(&sbml_with_law(&law), "deep.xml") {
            Ok(net) => {
                prop_assert!(depth < petri_model::reactions::sbml::MAX_MATH_DEPTH);
                prop_assert_eq!(net.reactions[0].rate, 0.5);
            }
            Err(e) => {
                prop_assert!(depth >= petri_model::reactions::sbml::MAX_MATH_DEPTH - 1, "{e}");
                prop_assert!(e.to_string().contains("depth cap"), "{e}");
            }
        }
    }
}

proptest! {
    #![proptest_config(fuzz_common::config(5000, SEED))]

    #[test]
    fn angiogenesis_config_mutations(bytes in mutated(ANGIOGENESIS)) {
        if let Err(e) = AngioConfig::from_json(&text(&bytes), "fuzz.json") {
            assert_clear(&e);
        }
    }

    #[test]
    fn rdme_config_mutations(bytes in mutated(RDME.as_bytes())) {
        match RdmeConfig::from_json(&text(&bytes), "fuzz.json") {
            // Resolving allocates the lattice: only small ones (a large one is refused by
            // its own limit, checked in the rdme tests).
            Ok(cfg) if cfg.sites() <= 1 << 16 => {
                if let Err(e) = cfg.resolve(Path::new(".")) {
                    assert_clear(&e);
                }
            }
            Ok(_) => {}
            Err(e) => assert_clear(&e),
        }
    }
}

/// A valid network checkpoint (a CPU run of a small network), its bytes.
fn ssa_checkpoint() -> &'static [u8] {
    use petri_model::ssa::run::{run_cpu, RunOptions};
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let dir = scratch("ssa-run");
        let net = parse_network_json(std::str::from_utf8(BIRTH_DEATH).unwrap(), "bd.json").unwrap();
        let opts = RunOptions {
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
        let _ = std::fs::remove_dir_all(&opts.out_dir);
        run_cpu(&net, &opts, |_| {}).unwrap();
        std::fs::read(opts.out_dir.join("checkpoint.petri")).unwrap()
    })
}

/// `bytes` with the container's trailing XXH64 recomputed, so that a mutation reaches the
/// model's own checks instead of stopping at the checksum.
fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= 8 {
        let n = bytes.len() - 8;
        let sum = petri_output::checksum::xxh64(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_le_bytes());
    }
    bytes
}

/// Every model's checkpoint loader on `bytes` (written to a file, as they read files), and a
/// loaded network checkpoint restored and resumed for one output time.
fn load_every_model(bytes: &[u8], dir: &Path) {
    let path = dir.join("fuzz.petri");
    std::fs::write(&path, bytes).unwrap();
    if let Err(e) = petri_model::angiogenesis::checkpoint::Checkpoint::load(&path) {
        assert_clear(&e);
    }
    if let Err(e) = petri_model::rdme::checkpoint::Checkpoint::load(&path) {
        assert_clear(&e);
    }
    match petri_model::ssa::checkpoint::Checkpoint::load(&path) {
        Ok(ck) => {
            let net =
                parse_network_json(std::str::from_utf8(BIRTH_DEATH).unwrap(), "bd.json").unwrap();
            let times = [0.0, 0.5, 1.0, 1.5, 2.0];
            match ck.restore(&net, (Method::Odm, 3, 5), &times, true, &path) {
                Ok(trajectories) => {
                    let mut ensemble = petri_model::ssa::ensemble::CpuEnsemble::with_trajectories(
                        &net,
                        Method::Odm,
                        2.0,
                        trajectories,
                    );
                    if let Err(e) = ensemble.advance_to(2.0, &["X".to_string()]) {
                        assert_clear(&e);
                    }
                }
                Err(e) => assert_clear(&e),
            }
        }
        Err(e) => assert_clear(&e),
    }
}

proptest! {
    #![proptest_config(fuzz_common::config(5000, SEED))]

    #[test]
    fn checkpoint_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512), magic in any::<bool>()) {
        let mut bytes = bytes;
        if magic {
            // Past the magic, into the lengths and the header.
            bytes.splice(0..0, *b"PETRI-CK\x01\x00\x00\x00");
        }
        load_every_model(&bytes, &scratch("random"));
    }

    #[test]
    fn checkpoint_mutations(bytes in mutated(ssa_checkpoint()), fix_checksum in any::<bool>()) {
        let bytes = if fix_checksum { with_checksum(bytes) } else { bytes };
        load_every_model(&bytes, &scratch("mutated"));
    }
}
