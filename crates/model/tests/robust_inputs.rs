//! Regression tests for the hostile inputs of issue 22 that reach the network readers and the
//! CPU stochastic simulators: each input, and the kind of error it must give (a field named at
//! load, or a stop naming the species, trajectory and limit at run time), where it used to
//! panic, overflow the stack or run forever.

use petri_model::angiogenesis::params::AngioConfig;
use petri_model::rdme::config::RdmeConfig;
use petri_model::reactions::json::parse_network_json;
use petri_model::reactions::sbml::parse_sbml;
use petri_model::reactions::{Network, COUNT_LIMIT};
use petri_model::ssa::direct::simulate_direct;
use petri_model::ssa::ensemble::{run_ensemble_cpu, CpuEnsemble, Method};
use petri_model::ssa::odm::simulate_odm;
use petri_model::ssa::tau::simulate_tau;
use petri_model::ModelError;

mod inputs;
use inputs::sbml_with_law;

fn network(species: &str, reactions: &str) -> String {
    format!(r#"{{"model": "network", "species": [{species}], "reactions": [{reactions}]}}"#)
}

fn refusal(json: &str) -> String {
    let e = parse_network_json(json, "t.json").unwrap_err();
    assert!(matches!(e, ModelError::Invalid { .. }), "{e:?}");
    e.to_string()
}

/// A network read from JSON, then edited in code past what the readers accept, as an
/// embedding program may: `edit` gets the network of X (count 5) with `reactions`.
fn edited(reactions: &str, edit: impl FnOnce(&mut Network)) -> Network {
    let json = network(r#"{"id": "X", "initial_count": 5}"#, reactions);
    let mut net = parse_network_json(&json, "t.json").unwrap();
    edit(&mut net);
    net
}

/// Initial counts near 2^64 (direct and ODM panicked on the first firing): refused at load
/// with the species and the limit named.
#[test]
fn initial_counts_past_the_limit_are_refused_at_load() {
    for count in [u64::MAX - 5, COUNT_LIMIT] {
        let e = refusal(&network(
            &format!(r#"{{"id": "X", "initial_count": {count}}}"#),
            r#"{"id": "d", "reactants": ["X"], "rate": 1}"#,
        ));
        assert!(
            e.contains(&format!("species[0].initial_count = {count}"))
                && e.contains("2^30")
                && e.contains("\"X\""),
            "{e}"
        );
    }
    // 2^64 and past it is not a u64 at all: the same field is named.
    let e = refusal(&network(
        r#"{"id": "X", "initial_count": 18446744073709551616}"#,
        "",
    ));
    assert!(
        e.contains("species[0].initial_count = 1.8446744073709552e19"),
        "{e}"
    );
}

/// The same counts in a network built in code: the simulators stop with the count limit named
/// instead of panicking, whatever the method.
#[test]
fn huge_counts_stop_the_simulators_with_an_error() {
    let n = edited(r#"{"id": "d", "reactants": ["X"], "rate": 1}"#, |n| {
        n.species[0].initial_count = u64::MAX - 5
    });
    for result in [
        simulate_direct(&n, 1, 1.0, &[0.0, 1.0]),
        simulate_odm(&n, 1, 1.0, &[0.0, 1.0]),
        simulate_tau(&n, 1, 1.0, &[0.0, 1.0]),
    ] {
        let e = result.unwrap_err();
        assert!(matches!(e, ModelError::Overflow { .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("species \"X\"") && e.contains("2^30"), "{e}");
    }
    // The ensemble validates first: the field is named.
    let e = run_ensemble_cpu(&n, Method::Direct, 2, 1, &[0.0, 1.0]).unwrap_err();
    assert!(e.to_string().contains("species.X.initial_count"), "{e}");
}

/// Explosive growth (X -> 100 X; X -> 10^6 X) ran forever on the CPU; tau with products
/// {"X": 100} panicked. Every method now stops at the count limit, as the GPU does, naming the
/// species, the trajectory and the time.
#[test]
fn explosive_growth_stops_at_the_count_limit() {
    for gain in [100u32, 1_000_000] {
        let json = network(
            r#"{"id": "X", "initial_count": 1}"#,
            &format!(
                r#"{{"id": "grow", "reactants": {{"X": 1}}, "products": {{"X": {gain}}}, "rate": 1}}"#
            ),
        );
        let n = parse_network_json(&json, "grow.json").unwrap();
        for method in Method::ALL {
            let e = run_ensemble_cpu(&n, method, 3, 1, &[0.0, 100.0]).unwrap_err();
            assert!(matches!(e, ModelError::Overflow { .. }), "{method}: {e:?}");
            let e = e.to_string();
            assert!(
                e.contains("species \"X\"")
                    && e.contains("2^30 = 1073741824")
                    && e.contains("trajectory ")
                    && e.contains(" at t = "),
                "{method} x{gain}: {e}"
            );
        }
        // The resident ensemble of `petri run` stops the same way.
        let mut ensemble = CpuEnsemble::new(&n, Method::Tau, 2, 1, 100.0);
        let e = ensemble.advance_to(100.0, &["X".into()]).unwrap_err();
        assert!(e.to_string().contains("species \"X\""), "{e}");
    }
    // Large counts with a large product stoichiometry, the tau case of the issue.
    let n = parse_network_json(
        &network(
            r#"{"id": "X", "initial_count": 1000000}"#,
            r#"{"id": "grow", "reactants": ["X"], "products": {"X": 100}, "rate": 1}"#,
        ),
        "t.json",
    )
    .unwrap();
    let e = run_ensemble_cpu(&n, Method::Tau, 2, 1, &[0.0, 1.0]).unwrap_err();
    assert!(e.to_string().contains("species \"X\""), "{e}");
}

/// A rate of 1e308 ran forever (the clock could not move): refused at load, printed short.
#[test]
fn huge_rates_are_refused_at_load_in_short_form() {
    for rate in ["1e308", "1e31"] {
        let e = refusal(&network(
            r#"{"id": "X", "initial_count": 1}"#,
            &format!(r#"{{"id": "fast", "products": ["X"], "rate": {rate}}}"#),
        ));
        assert!(
            e.contains(&format!("reactions.fast.rate = {rate}")) && e.contains("[0, 1e30]"),
            "{e}"
        );
    }
    // In code, past the readers: infinite propensities and a clock that cannot move stop.
    let n = edited(
        r#"{"id": "g", "reactants": ["X"], "products": {"X": 2}, "rate": 1}"#,
        |n| n.reactions[0].rate = f64::INFINITY,
    );
    let e = simulate_direct(&n, 1, 1.0, &[1.0]).unwrap_err();
    assert!(matches!(e, ModelError::Overflow { .. }), "{e:?}");
    let n = edited(
        r#"{"id": "d", "reactants": ["X"], "rate": 1}, {"id": "b", "products": ["X"], "rate": 1}"#,
        |n| n.reactions.iter_mut().for_each(|r| r.rate = 1e300),
    );
    for result in [
        simulate_direct(&n, 1, 1.0, &[1.0]),
        simulate_odm(&n, 1, 1.0, &[1.0]),
        simulate_tau(&n, 1, 1.0, &[1.0]),
    ] {
        let e = result.unwrap_err();
        assert!(matches!(e, ModelError::Stalled { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("a0 = 6") && e.contains("e300") && e.contains("2^52"),
            "{e}"
        );
    }
}

/// Stoichiometries past u32 or past the limit, and sums that overflowed u32.
#[test]
fn stoichiometry_limits_are_named() {
    let e = refusal(&network(
        r#"{"id": "X", "initial_count": 1}"#,
        r#"{"id": "r", "products": {"X": 4294967296}, "rate": 1}"#,
    ));
    assert!(e.contains("reactions[0].products.X = 4294967296"), "{e}");
    let e = refusal(&network(
        r#"{"id": "X", "initial_count": 1}, {"id": "Y", "initial_count": 1}"#,
        r#"{"id": "r", "reactants": {"X": 1073741824, "Y": 1073741824}, "rate": 1}"#,
    ));
    assert!(e.contains("reactions.r.order"), "{e}");
}

/// "data did not match any variant of untagged enum Rate/Side": now the reaction, the field
/// and what is allowed.
#[test]
fn bad_rates_and_sides_name_the_reaction_and_the_field() {
    let cases = [
        (
            r#""rate": true"#,
            "reactions[0].rate = true",
            "a number or the name of an entry of \"parameters\" (reaction \"r\"",
        ),
        (
            r#""rate": [1]"#,
            "reactions[0].rate = [1]",
            "reaction \"r\"",
        ),
        (
            r#""rate": 1, "reactants": 5"#,
            "reactions[0].reactants = 5",
            "a map species id -> stoichiometry",
        ),
        (
            r#""rate": 1, "reactants": [1]"#,
            "reactions[0].reactants[0] = 1",
            "a species id",
        ),
        (
            r#""rate": 1, "reactants": {"X": 1.5}"#,
            "reactions[0].reactants.X = 1.5",
            "a stoichiometry",
        ),
        (
            r#""rate": 1, "products": {"X": "2"}"#,
            "reactions[0].products.X = \"2\"",
            "a stoichiometry",
        ),
    ];
    for (fields, field, allowed) in cases {
        let e = refusal(&network(
            r#"{"id": "X", "initial_count": 1}"#,
            &format!(r#"{{"id": "r", {fields}}}"#),
        ));
        assert!(!e.contains("untagged"), "{e}");
        assert!(e.contains(field) && e.contains(allowed), "{field}: {e}");
    }
}

/// 0 species was reported at the end of a run as "plot species = [] is not allowed".
#[test]
fn a_network_without_species_is_refused_at_load() {
    let e = refusal(&network("", ""));
    assert!(
        e.contains("species = [] (none)") && e.contains("at least one species"),
        "{e}"
    );
    let sbml = r#"<?xml version="1.0"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version1/core" level="3" version="1">
  <model id="empty"/>
</sbml>"#;
    let e = parse_sbml(sbml, "empty.xml").unwrap_err().to_string();
    assert!(e.contains("at least one species"), "{e}");
}

/// A UTF-8 byte order mark was "expected value at line 1 column 1": it is skipped by every
/// JSON reader (network, angiogenesis and rdme configs) and by the SBML reader.
#[test]
fn a_byte_order_mark_is_accepted() {
    let bom = |text: &str| format!("\u{feff}{text}");
    let json = network(
        r#"{"id": "X", "initial_count": 1}"#,
        r#"{"id": "d", "reactants": ["X"], "rate": 1}"#,
    );
    assert_eq!(
        parse_network_json(&bom(&json), "bom.json").unwrap(),
        parse_network_json(&json, "t.json").unwrap()
    );
    let angio = include_str!("../../../assets/angiogenesis.json");
    AngioConfig::from_json(&bom(angio), "bom.json").unwrap();
    let rdme = include_str!("../../../assets/min-system.json");
    RdmeConfig::from_json(&bom(rdme), "bom.json").unwrap();
    let sbml = std::fs::read_to_string(
        petri_model::reactions::dsmts_dir().join("00001/00001-sbml-l3v1.xml"),
    )
    .unwrap();
    assert_eq!(
        parse_sbml(&bom(&sbml), "bom.xml").unwrap(),
        parse_sbml(&sbml, "t.xml").unwrap()
    );
}

/// A kinetic law nested 20,000+ `<apply>` deep overflowed the stack (SIGABRT): refused with
/// the depth cap named. Run on a thread with a small stack, so a recursion that is not capped
/// would still fail here.
#[test]
fn deeply_nested_kinetic_laws_are_refused_with_the_cap() {
    let depth = 25_000;
    let law = format!(
        "{}<ci> k </ci><ci> X </ci>{}",
        "<apply><times/>".repeat(depth),
        "</apply>".repeat(depth)
    );
    let text = sbml_with_law(&law);
    let e = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || parse_sbml(&text, "deep.xml").unwrap_err().to_string())
        .unwrap()
        .join()
        .unwrap();
    assert!(
        e.contains("<reaction id=\"R\">")
            && e.contains("nested more than 64 deep")
            && e.contains("depth cap"),
        "{e}"
    );
    // An expansion past degree 4 (here (X + k)^8 written as a product) is refused too, before
    // it grows.
    let factor = "<apply><plus/><ci> X </ci><ci> k </ci></apply>";
    let law = format!("<apply><times/>{}</apply>", factor.repeat(8));
    let e = parse_sbml(&sbml_with_law(&law), "wide.xml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("expands past degree 4"), "{e}");
}

/// Entity expansion ("billion laughs") is refused by roxmltree before it grows, as XML that is
/// not well-formed, never read into memory.
#[test]
fn entity_expansion_is_refused() {
    let mut dtd = String::from("<!ENTITY l0 \"lol\">");
    for k in 1..10 {
        let refs = format!("&l{};", k - 1).repeat(10);
        dtd.push_str(&format!("<!ENTITY l{k} \"{refs}\">"));
    }
    let text = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE sbml [{dtd}]><sbml xmlns=\"http://www.sbml.org/sbml/level3/version1/core\" level=\"3\" version=\"1\"><model id=\"&l9;\"/></sbml>"
    );
    let e = parse_sbml(&text, "laughs.xml").unwrap_err();
    assert!(matches!(e, ModelError::Parse { .. }), "{e:?}");
    assert!(e.to_string().contains("not well-formed XML"), "{e}");
}
