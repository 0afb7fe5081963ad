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
//! - `model` (if given, "network"), `note`, `provenance` and `units` are free text for people.
//!
//! Unknown keys are refused, and every value is checked with a message naming the field.

use super::{Network, Reaction, Species};
use crate::error::{invalid, ModelError, Result};
use serde::Deserialize;
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
    species: Vec<SpeciesEntry>,
    reactions: Vec<ReactionEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeciesEntry {
    id: String,
    #[serde(default)]
    name: Option<String>,
    initial_count: u64,
    #[serde(default)]
    boundary: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReactionEntry {
    id: String,
    #[serde(default)]
    reactants: Side,
    #[serde(default)]
    products: Side,
    rate: Rate,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Side {
    Map(BTreeMap<String, u32>),
    List(Vec<String>),
}

impl Default for Side {
    fn default() -> Self {
        Side::List(Vec::new())
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Rate {
    Value(f64),
    Parameter(String),
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

/// Parses the JSON format; `path_for_errors` labels the messages.
pub fn parse_network_json(text: &str, path_for_errors: &str) -> Result<Network> {
    let file: NetworkFile = serde_json::from_str(text).map_err(|e| ModelError::Parse {
        path: path_for_errors.to_string(),
        message: e.to_string(),
    })?;
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
        .map(|s| Species {
            id: s.id,
            name: s.name,
            initial_count: s.initial_count,
            boundary: s.boundary,
        })
        .collect();
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
        for (k, (name, side)) in [("reactants", r.reactants), ("products", r.products)]
            .into_iter()
            .enumerate()
        {
            let list = &mut sides[k];
            let entries: Vec<(String, u32)> = match side {
                Side::Map(m) => m.into_iter().collect(),
                Side::List(l) => l.into_iter().map(|id| (id, 1)).collect(),
            };
            for (id, nu) in entries {
                let field = format!("reactions[{j}].{name}.{id}");
                let s = index(&field, &id)?;
                if nu == 0 {
                    return Err(invalid(&field, 0, "a stoichiometry >= 1"));
                }
                match list.iter_mut().find(|(t, _): &&mut (usize, u32)| *t == s) {
                    Some((_, total)) => *total += nu,
                    None => list.push((s, nu)),
                }
            }
        }
        let rate = match r.rate {
            Rate::Value(v) => v,
            Rate::Parameter(p) => *file.parameters.get(&p).ok_or_else(|| {
                invalid(
                    &format!("reactions[{j}].rate"),
                    format!("{p:?}"),
                    "a number or the name of an entry of \"parameters\"",
                )
            })?,
        };
        let [reactants, products] = sides;
        reactions.push(Reaction {
            id: r.id,
            reactants,
            products,
            rate,
        });
    }
    let net = Network {
        id: file.id.unwrap_or_else(|| "network".into()),
        species,
        reactions,
        compartment_volume: None,
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
                "invalid value: integer `-1`",
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
    }
}
