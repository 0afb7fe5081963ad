//! Reaction networks as JSON, and `read_network`, which reads JSON or SBML by file extension.
//!
//! ```json
//! {
//!   "model": "network",
//!   "id": "birth-death",
//!   "note": "what it is and where the numbers come from",
//!   "parameters": { "lambda": 0.1 },
//!   "species": [ { "id": "X", "initial_count": 100 } ],
//!   "reactions": [
//!     { "id": "birth", "reactants": { "X": 1 }, "products": { "X": 2 }, "rate": "lambda" },
//!     { "id": "death", "reactants": ["X"], "products": [], "rate": 0.11 }
//!   ]
//! }
//! ```
//!
//! - `rate` is the stochastic mass-action constant c (see the `reactions` module doc: `2A`
//!   fires at c A (A - 1) / 2), a number or the name of an entry of `parameters`.
//! - `reactants` and `products` are a map id -> stoichiometry or a list of ids (a repeated id
//!   adds up: `["A", "A"]` is 2A). Both may be left out for nothing.
//! - A species may have `"boundary": true` (held fixed) and a `"name"`.
//! - `plot` (optional) lists the species mean_sd.png draws unless a run names others (all when
//!   left out).
//! - `model` (if given, "network"), `note`, `provenance` and `units` are free text for people.
//!
//! Unknown keys are refused, and every value is checked with a message naming the field.

use super::{Network, Reaction, Species, COUNT_LIMIT, MAX_STOICHIOMETRY};
use crate::error::{invalid, short, without_bom, ModelError, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkFile {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    #[allow(dead_code)] // free text for people
    note: Option<serde_json::Value>,
    #[serde(default)]
    #[allow(dead_code)]
    provenance: Option<serde_json::Value>,
    #[serde(default)]
    #[allow(dead_code)]
    units: Option<serde_json::Value>,
    #[serde(default)]
    parameters: BTreeMap<String, f64>,
    /// Species ids that mean_sd.png draws by default.
    #[serde(default)]
    plot: Vec<String>,
    species: Vec<SpeciesEntry>,
    reactions: Vec<ReactionEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeciesEntry {
    id: String,
    #[serde(default)]
    name: Option<String>,
    /// Read by hand (`count`), so that a bad value names the species.
    initial_count: Value,
    #[serde(default)]
    boundary: bool,
}

/// `rate`, `reactants` and `products` are read by hand (`rate`, `side`) rather than as serde
/// enums, so that a bad value names the reaction, the field and what is allowed.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReactionEntry {
    id: String,
    #[serde(default)]
    reactants: Value,
    #[serde(default)]
    products: Value,
    rate: Value,
}

/// A short form of a JSON value for messages (long strings, arrays and objects cut).
fn show(v: &Value) -> String {
    let text = match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if !n.is_u64() && !n.is_i64() => short(x),
            _ => n.to_string(),
        },
        other => other.to_string(),
    };
    match text.chars().count() > 60 {
        true => format!("{}...", text.chars().take(57).collect::<String>()),
        false => text,
    }
}

/// `species[i].initial_count`: a whole number below `COUNT_LIMIT`.
fn count(i: usize, id: &str, v: &Value) -> Result<u64> {
    let allowed = || {
        format!(
            "a whole number of molecules below 2^30 = {COUNT_LIMIT}, the count limit of every \
             simulator (species {id:?})"
        )
    };
    match v.as_u64() {
        Some(c) if c < COUNT_LIMIT => Ok(c),
        _ => Err(invalid(
            &format!("species[{i}].initial_count"),
            show(v),
            allowed(),
        )),
    }
}

/// One side of reaction `j`: a map id -> stoichiometry or a list of ids, as (id, stoichiometry).
fn side(j: usize, id: &str, name: &str, v: &Value) -> Result<Vec<(String, u32)>> {
    let field = format!("reactions[{j}].{name}");
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(k, item)| match item {
                Value::String(s) => Ok((s.clone(), 1)),
                other => Err(invalid(
                    &format!("{field}[{k}]"),
                    show(other),
                    format!("a species id (a string) (reaction {id:?})"),
                )),
            })
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(s, nu)| match nu.as_u64() {
                Some(n) if (1..=MAX_STOICHIOMETRY as u64).contains(&n) => Ok((s.clone(), n as u32)),
                _ => Err(invalid(
                    &format!("{field}.{s}"),
                    show(nu),
                    format!(
                        "a stoichiometry, a whole number in 1..={MAX_STOICHIOMETRY} (2^30) \
                         (reaction {id:?})"
                    ),
                )),
            })
            .collect(),
        other => Err(invalid(
            &field,
            show(other),
            format!(
                "a map species id -> stoichiometry ({{\"A\": 2}}) or a list of species ids \
                 ([\"A\", \"A\"]) (reaction {id:?})"
            ),
        )),
    }
}

/// The rate of reaction `j`: a number or the name of a parameter.
fn rate(j: usize, id: &str, v: &Value, parameters: &BTreeMap<String, f64>) -> Result<f64> {
    let found = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(p) => parameters.get(p).copied(),
        _ => None,
    };
    found.ok_or_else(|| {
        invalid(
            &format!("reactions[{j}].rate"),
            show(v),
            format!(
                "a number or the name of an entry of \"parameters\" (reaction {id:?}; \
                 parameters: {})",
                match parameters.is_empty() {
                    true => "none".to_string(),
                    false => parameters.keys().cloned().collect::<Vec<_>>().join(", "),
                }
            ),
        )
    })
}

/// Reads a network: `.json` in the format above, `.xml` or `.sbml` through the SBML reader.
pub fn read_network(path: &Path) -> Result<Network> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext.to_ascii_lowercase().as_str() {
        "json" => {
            let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
                path: path.display().to_string(),
                source,
            })?;
            parse_network_json(&text, &path.display().to_string())
        }
        "xml" | "sbml" => super::sbml::read_sbml(path),
        _ => Err(invalid(
            "network file",
            path.display(),
            "a .json network or an SBML .xml/.sbml file",
        )),
    }
}

/// Parses the JSON format (a leading UTF-8 byte order mark is skipped); `path_for_errors`
/// labels the messages.
pub fn parse_network_json(text: &str, path_for_errors: &str) -> Result<Network> {
    let file: NetworkFile = serde_json::from_str(without_bom(text))
        .map_err(|e| crate::error::json_error(&e, path_for_errors))?;
    if let Some(m) = file.model.as_deref().filter(|m| *m != "network") {
        return Err(invalid(
            "model",
            format!("{m:?}"),
            "\"network\" (or leave it out)",
        ));
    }
    for (name, &v) in &file.parameters {
        if !v.is_finite() {
            return Err(invalid(&format!("parameters.{name}"), v, "a finite number"));
        }
    }
    let species: Vec<Species> = file
        .species
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            Ok(Species {
                initial_count: count(i, &s.id, &s.initial_count)?,
                id: s.id,
                name: s.name,
                boundary: s.boundary,
            })
        })
        .collect::<Result<_>>()?;
    let index = |field: &str, id: &str| {
        species.iter().position(|s| s.id == id).ok_or_else(|| {
            invalid(
                field,
                format!("{id:?}"),
                "the id of a species in \"species\"",
            )
        })
    };
    let mut reactions = Vec::new();
    for (j, r) in file.reactions.into_iter().enumerate() {
        let mut sides = [Vec::new(), Vec::new()];
        for (k, (name, v)) in [("reactants", &r.reactants), ("products", &r.products)]
            .into_iter()
            .enumerate()
        {
            let list = &mut sides[k];
            for (id, nu) in side(j, &r.id, name, v)? {
                let field = format!("reactions[{j}].{name}.{id}");
                let s = index(&field, &id)?;
                match list.iter_mut().find(|(t, _): &&mut (usize, u32)| *t == s) {
                    // Saturating: a total past the limit is refused by `Network::validate`.
                    Some((_, total)) => *total = total.saturating_add(nu),
                    None => list.push((s, nu)),
                }
            }
        }
        let rate = rate(j, &r.id, &r.rate, &file.parameters)?;
        let [reactants, products] = sides;
        reactions.push(Reaction {
            id: r.id,
            reactants,
            products,
            rate,
        });
    }
    let plot = file
        .plot
        .iter()
        .enumerate()
        .map(|(k, id)| index(&format!("plot[{k}]"), id))
        .collect::<Result<_>>()?;
    let net = Network {
        id: file.id.unwrap_or_else(|| "network".into()),
        species,
        reactions,
        compartment_volume: None,
        plot,
    };
    net.validate()?;
    Ok(net)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assets() -> std::path::PathBuf {
        std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets"))
    }

    #[test]
    fn both_side_forms_and_parameters() {
        let net = parse_network_json(
            r#"{"id": "t", "parameters": {"k": 0.5},
                "species": [{"id": "A", "initial_count": 10}, {"id": "B", "initial_count": 0,
                             "boundary": true, "name": "bee"}],
                "reactions": [{"id": "pair", "reactants": ["A", "A"], "products": {"B": 1},
                               "rate": "k"},
                              {"id": "make", "products": ["A"], "rate": 2}]}"#,
            "t.json",
        )
        .unwrap();
        assert_eq!(net.id, "t");
        assert_eq!(net.reactions[0].reactants, vec![(0, 2)]);
        assert_eq!(net.reactions[0].products, vec![(1, 1)]);
        assert_eq!(net.reactions[0].rate, 0.5);
        assert_eq!(net.reactions[1].reactants, vec![]);
        assert_eq!(net.reactions[1].rate, 2.0);
        assert!(net.species[1].boundary);
        assert_eq!(net.species[1].name.as_deref(), Some("bee"));
    }

    #[test]
    fn bad_input_names_the_field() {
        let base = r#"{"species": [{"id": "A", "initial_count": 10}],
                       "reactions": [{"id": "r", "reactants": {"A": 1}, "rate": 1.0}]}"#;
        let cases = [
            (
                r#""rate": 1.0"#,
                r#""rate": "nope""#,
                "reactions[0].rate = \"nope\"",
            ),
            (r#""rate": 1.0"#, r#""rate": -1.0"#, "reactions.r.rate = -1"),
            (
                r#"{"A": 1}"#,
                r#"{"Q": 1}"#,
                "reactions[0].reactants.Q = \"Q\"",
            ),
            (r#"{"A": 1}"#, r#"{"A": 0}"#, "reactions[0].reactants.A = 0"),
            (r#"{"A": 1}"#, r#"{"A": 3}"#, "reactions.r.order = 3"),
            (
                r#""initial_count": 10"#,
                r#""initial_count": -1"#,
                "species[0].initial_count = -1 is not allowed: a whole number",
            ),
            (
                r#""initial_count": 10"#,
                r#""initial_count": 10, "colour": 1"#,
                "unknown field `colour`",
            ),
            (
                r#"{"species""#,
                r#"{"model": "rdme", "species""#,
                "model = \"rdme\"",
            ),
        ];
        for (from, to, why) in cases {
            assert!(base.contains(from), "{from}");
            let e = parse_network_json(&base.replacen(from, to, 1), "t.json")
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{why}: {e}");
        }
        let e = read_network(Path::new("net.txt")).unwrap_err().to_string();
        assert!(e.contains("network file = net.txt"), "{e}");
    }

    /// The JSON birth-death example is DSMTS 00001 as read from its SBML.
    #[test]
    fn birth_death_json_is_dsmts_00001() {
        let json = read_network(&assets().join("birth-death.json")).unwrap();
        let sbml =
            read_network(&crate::reactions::dsmts_corpus().join("00001/00001-sbml-l3v1.xml"))
                .unwrap();
        assert_eq!(json.species[0].initial_count, sbml.species[0].initial_count);
        for (a, b) in json.reactions.iter().zip(&sbml.reactions) {
            assert_eq!(
                (&a.reactants, &a.products, a.rate),
                (&b.reactants, &b.products, b.rate)
            );
        }
    }

    #[test]
    fn vilar_oscillator_has_9_species_and_16_reactions() {
        let net = read_network(&assets().join("vilar.json")).unwrap();
        assert_eq!((net.species.len(), net.reactions.len()), (9, 16));
        let count = |id: &str| net.species[net.species_index(id).unwrap()].initial_count;
        assert_eq!(
            (count("DA"), count("DR"), count("A"), count("C")),
            (1, 1, 0, 0)
        );
        let rate = |id: &str| net.reactions.iter().find(|r| r.id == id).unwrap().rate;
        assert_eq!(
            (rate("transcription_A_bound"), rate("decay_MR")),
            (500.0, 0.5)
        );
        assert_eq!(net.reactions.iter().map(|r| r.order()).max(), Some(2));
        let plotted: Vec<&str> = net
            .plot
            .iter()
            .map(|&s| net.species[s].id.as_str())
            .collect();
        assert_eq!(plotted, ["A", "R"]);
    }

    /// `plot` becomes species indices in its order; an id that is not a species names
    /// `plot[k]`; left out, nothing is singled out.
    #[test]
    fn plot_names_species() {
        let text = |plot: &str| {
            format!(
                r#"{{"species": [{{"id": "X", "initial_count": 1}}, {{"id": "Y", "initial_count": 2}}],
                    "reactions": [], {plot} "id": "p"}}"#
            )
        };
        let net = parse_network_json(&text(r#""plot": ["Y", "X"],"#), "p.json").unwrap();
        assert_eq!(net.plot, [1, 0]);
        assert!(parse_network_json(&text(""), "p.json")
            .unwrap()
            .plot
            .is_empty());
        let e = parse_network_json(&text(r#""plot": ["X", "Z"],"#), "p.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("plot[1]") && e.contains("\"Z\""), "{e}");
    }
}
