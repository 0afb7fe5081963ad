//! The RDME model config (JSON), its validation, and the resolved model the GPU and the CPU
//! reference both run: hop probabilities per (source type, destination type, species) and
//! per-site reaction constants times tau.
//!
//! Units are SI except concentrations (molar, as rate tables in the literature give them).
//! Rate conversion to one lattice site of volume V = lambda^3 (litres: lambda^3 * 1000), the
//! molar ones by `reactions::rates`:
//! - order 0, `M/s`: c = k N_A V; `1/s`: already per site;
//! - order 1, `1/s`: c = k; `m/s` (a surface reaction, sigma): c = sigma / lambda;
//! - order 2, `1/(M s)`: c = k / (N_A V). A + A fires with propensity c n (n - 1) / 2.
//!
//! The reaction step fires at most one reaction per site with probability 1 - exp(-a tau), so
//! a tau must be small. `RdmeModel::warnings` lists every reaction whose single-pair c tau
//! exceeds 0.5 (a firing probability of 0.39 per step); above 10^6 the config is refused: a
//! rate a million times faster than a step can show is taken for a unit mistake.

use super::shape::Shape;
use crate::error::{invalid, ModelError, Result};
use crate::reactions::rates::{rescale_constant, stochastic_constant};
use crate::reactions::{sbml, Network};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Particles one site holds (16 one-byte slots in four 32-bit words).
pub const SITE_CAPACITY: usize = 16;
/// Species ids are one byte; 0 marks an empty slot.
pub const MAX_SPECIES: usize = 255;
/// Reaction site-type masks are 32-bit.
pub const MAX_SITE_TYPES: usize = 32;
/// A c tau above this draws a warning: one reaction per site per step undercounts.
pub const WARN_C_TAU: f64 = 0.5;
/// A c tau above this is refused: a rate a million times faster than a step can show is taken
/// for a unit mistake (and an infinite one turns 0 x c tau into NaN). Between `WARN_C_TAU` and
/// this, the reaction fires at nearly every step and draws a warning.
pub const MAX_C_TAU: f64 = 1e6;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatticeConfig {
    /// Sites along x, y, z. z is the long axis (kymographs and device slabs run along it).
    pub shape: [u32; 3],
    /// Lattice spacing lambda in metres.
    pub spacing_m: f64,
}

/// One diffusion rule: species in `species` hop from sites of a type in `from` to sites of a
/// type in `to` with coefficient `d_m2_per_s`. Pairs no rule names are walls (D = 0).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffusionRule {
    pub species: Vec<String>,
    pub from: Vec<String>,
    pub to: Vec<String>,
    pub d_m2_per_s: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReactionConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub reactants: Vec<String>,
    pub products: Vec<String>,
    /// Macroscopic rate constant in `units`.
    pub rate: f64,
    /// One of "M/s" or "1/s" (order 0), "1/s" or "m/s" (order 1), "1/(M s)" (order 2).
    pub units: String,
    /// Site types where the reaction happens; empty: everywhere.
    #[serde(default)]
    pub site_types: Vec<String>,
}

/// Reactions read from an SBML Level 3 file (crate::reactions): species are matched by id; each
/// rate is the stochastic constant c for the SBML compartment of `compartment_volume_l` litres
/// (or the file's compartment size), converted to one site: c_site = c (V / V_site)^(order - 1).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SbmlReactions {
    pub file: String,
    #[serde(default)]
    pub compartment_volume_l: Option<f64>,
    #[serde(default)]
    pub site_types: Vec<String>,
}

/// `count` particles of `species` placed uniformly at random over the sites of the listed
/// types (all sites if empty), within `region` if given, at most 16 per site.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub species: String,
    pub count: u64,
    #[serde(default)]
    pub site_types: Vec<String>,
    /// Sites [min, max) along x, y, z, in lattice indices.
    #[serde(default)]
    pub region: Option<[[u32; 3]; 2]>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// Steps between observations (species counts per site type, profiles along z).
    pub observe_every: u64,
    /// Species drawn in the kymograph PNG (counts along z over time).
    pub kymograph_species: Option<String>,
    /// Site type whose sites per z plane turn the kymograph PNG and the analysed profile into an
    /// occupancy (particles per site), e.g. "membrane" for MinD_m (Hallock 2014, Fig. 10):
    /// without it the capsule's tips, which have few membrane sites per plane, look empty.
    pub kymograph_site_type: Option<String>,
    /// Species written to the VTK snapshots (counts per site).
    pub snapshot_species: Vec<String>,
    /// Steps between snapshots; 0: only the final state.
    pub snapshot_every: u64,
}

impl Default for OutputConfig {
    fn default() -> Self {
        Self {
            observe_every: 1000,
            kymograph_species: None,
            kymograph_site_type: None,
            snapshot_species: Vec::new(),
            snapshot_every: 0,
        }
    }
}

/// The model config, as read from `assets/min-system.json` and friends.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdmeConfig {
    /// Must be "rdme".
    pub model: String,
    pub lattice: LatticeConfig,
    /// Time step tau in seconds.
    pub tau_s: f64,
    /// Steps to run.
    pub steps: u64,
    pub seed: u64,
    /// Names of the site types; index 0 is what the lattice starts as.
    pub site_types: Vec<String>,
    /// Shapes painted over the lattice in order.
    #[serde(default)]
    pub geometry: Vec<Shape>,
    /// Species names; ids 1.. in this order (0 is an empty slot).
    pub species: Vec<String>,
    #[serde(default)]
    pub diffusion: Vec<DiffusionRule>,
    #[serde(default)]
    pub reactions: Vec<ReactionConfig>,
    #[serde(default)]
    pub reactions_sbml: Option<SbmlReactions>,
    #[serde(default)]
    pub initial: Vec<Placement>,
    #[serde(default)]
    pub output: OutputConfig,
    /// Where each value comes from (free text, kept in the run manifest).
    #[serde(default)]
    pub provenance: serde_json::Map<String, serde_json::Value>,
}

/// A reaction as the GPU runs it (`Reaction` of `shaders/rdme/reaction.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SiteReaction {
    /// Reactant species ids (0: none). `a == b` is A + A.
    pub reactant_a: u32,
    pub reactant_b: u32,
    /// Products packed one byte each, low byte first (0: none), at most 4.
    pub products: u32,
    /// Bit t set: the reaction happens in sites of type t.
    pub type_mask: u32,
    /// Per-site stochastic constant times tau.
    pub c_tau: f32,
    pub order: u32,
    pub _pad: [u32; 2],
}

/// The validated, resolved model.
#[derive(Clone, Debug)]
pub struct RdmeModel {
    pub config: RdmeConfig,
    /// Hop probability per direction, q = D tau / lambda^2, indexed
    /// `(src_type * n_types + dst_type) * n_species_ids + species_id`.
    pub hop: Vec<f32>,
    pub reactions: Vec<SiteReaction>,
    /// Reaction names (config name, SBML id or "A + B -> C").
    pub reaction_names: Vec<String>,
    pub warnings: Vec<String>,
}

impl RdmeConfig {
    pub fn from_json(text: &str, path: &str) -> Result<Self> {
        serde_json::from_str(crate::error::without_bom(text))
            .map_err(|e| crate::error::json_error(&e, path))
    }

    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_json(&text, &path.display().to_string())
    }

    pub fn sites(&self) -> u64 {
        self.lattice.shape.iter().map(|&n| n as u64).product()
    }

    /// Site volume in litres.
    pub fn site_volume_l(&self) -> f64 {
        self.lattice.spacing_m.powi(3) * 1000.0
    }

    /// Ids used in the hop table: species count + 1 (id 0 is empty).
    pub fn n_species_ids(&self) -> usize {
        self.species.len() + 1
    }

    pub fn species_id(&self, field: &str, name: &str) -> Result<u32> {
        self.species
            .iter()
            .position(|s| s == name)
            .map(|i| i as u32 + 1)
            .ok_or_else(|| {
                invalid(
                    field,
                    name,
                    format!("one of the species {:?}", self.species),
                )
            })
    }

    pub fn type_id(&self, field: &str, name: &str) -> Result<u32> {
        self.site_types
            .iter()
            .position(|s| s == name)
            .map(|i| i as u32)
            .ok_or_else(|| {
                invalid(
                    field,
                    name,
                    format!("one of the site types {:?}", self.site_types),
                )
            })
    }

    /// A bit mask of the listed types (all types when empty).
    pub fn type_mask(&self, field: &str, names: &[String]) -> Result<u32> {
        if names.is_empty() {
            return Ok(((1u64 << self.site_types.len()) - 1) as u32);
        }
        let mut mask = 0u32;
        for n in names {
            mask |= 1 << self.type_id(field, n)?;
        }
        Ok(mask)
    }

    /// Checks every field and resolves names, rates and hop probabilities. `base` is the folder
    /// relative paths (the SBML file) are read from.
    pub fn resolve(&self, base: &Path) -> Result<RdmeModel> {
        if self.model != "rdme" {
            return Err(invalid("model", &self.model, "\"rdme\""));
        }
        let [nx, ny, nz] = self.lattice.shape;
        for (axis, n) in ["x", "y", "z"].iter().zip([nx, ny, nz]) {
            if !(1..=65536).contains(&n) {
                return Err(invalid(&format!("lattice.shape.{axis}"), n, "1 ..= 65536"));
            }
        }
        if self.sites() > u32::MAX as u64 / 2 {
            return Err(invalid(
                "lattice.shape",
                format!("{nx}x{ny}x{nz} = {} sites", self.sites()),
                format!("at most {} sites", u32::MAX / 2),
            ));
        }
        let lambda = self.lattice.spacing_m;
        // Below an atom's size a site is no RDME site, and D tau / spacing^2 leaves f64.
        if !(lambda.is_finite() && (1e-10..1e-3).contains(&lambda)) {
            return Err(invalid(
                "lattice.spacing_m",
                lambda,
                "1e-10 <= spacing_m < 1e-3 (metres: from an atom's size to a millimetre)",
            ));
        }
        if !(self.tau_s.is_finite() && self.tau_s > 0.0) {
            return Err(invalid("tau_s", self.tau_s, "a positive number of seconds"));
        }
        if self.site_types.is_empty() || self.site_types.len() > MAX_SITE_TYPES {
            return Err(invalid(
                "site_types",
                self.site_types.len(),
                format!("1 ..= {MAX_SITE_TYPES} names"),
            ));
        }
        if self.species.is_empty() || self.species.len() > MAX_SPECIES {
            return Err(invalid(
                "species",
                self.species.len(),
                format!("1 ..= {MAX_SPECIES} names"),
            ));
        }
        for (list, field) in [(&self.site_types, "site_types"), (&self.species, "species")] {
            for (i, n) in list.iter().enumerate() {
                if list[..i].contains(n) {
                    return Err(invalid(field, n, "unique names"));
                }
            }
        }
        for (i, shape) in self.geometry.iter().enumerate() {
            shape.validate(&format!("geometry[{i}]"), |f, n| self.type_id(f, n))?;
        }

        // Hop probabilities.
        let nt = self.site_types.len();
        let ns = self.n_species_ids();
        let mut hop = vec![0f32; nt * nt * ns];
        for (i, rule) in self.diffusion.iter().enumerate() {
            let field = format!("diffusion[{i}]");
            let d = rule.d_m2_per_s;
            if !(d.is_finite() && d >= 0.0) {
                return Err(invalid(&format!("{field}.d_m2_per_s"), d, "D >= 0 (m^2/s)"));
            }
            let q = d * self.tau_s / (lambda * lambda);
            if q > 0.5 {
                return Err(invalid(
                    &format!("{field}.d_m2_per_s"),
                    d,
                    format!(
                        "q = D tau / lambda^2 = {} must be <= 0.5: D <= {:.4e} at tau = {} s \
                         and lambda = {} m (or lower tau_s to <= {:.4e} s)",
                        match q < 1e6 {
                            true => format!("{q:.4}"),
                            false => crate::error::short(q),
                        },
                        0.5 * lambda * lambda / self.tau_s,
                        crate::error::short(self.tau_s),
                        crate::error::short(lambda),
                        0.5 * lambda * lambda / d
                    ),
                ));
            }
            for sp in &rule.species {
                let s = self.species_id(&format!("{field}.species"), sp)? as usize;
                for from in &rule.from {
                    let a = self.type_id(&format!("{field}.from"), from)? as usize;
                    for to in &rule.to {
                        let b = self.type_id(&format!("{field}.to"), to)? as usize;
                        hop[(a * nt + b) * ns + s] = q as f32;
                    }
                }
            }
        }

        let mut reactions = Vec::new();
        let mut names = Vec::new();
        for (i, r) in self.reactions.iter().enumerate() {
            let field = format!("reactions[{i}]");
            let reactants = r
                .reactants
                .iter()
                .map(|s| self.species_id(&format!("{field}.reactants"), s))
                .collect::<Result<Vec<_>>>()?;
            let products = r
                .products
                .iter()
                .map(|s| self.species_id(&format!("{field}.products"), s))
                .collect::<Result<Vec<_>>>()?;
            let c = self.site_constant(&field, reactants.len(), r.rate, &r.units)?;
            let mask = self.type_mask(&format!("{field}.site_types"), &r.site_types)?;
            reactions.push(self.site_reaction(&field, &reactants, &products, c, mask)?);
            names.push(r.name.clone().unwrap_or_else(|| {
                format!(
                    "{} -> {}",
                    join_or_empty(&r.reactants),
                    join_or_empty(&r.products)
                )
            }));
        }
        if let Some(sbml) = &self.reactions_sbml {
            let path = base.join(&sbml.file);
            let net = sbml::read_sbml(&path)?;
            let (r, n) = self.sbml_reactions(sbml, &net)?;
            reactions.extend(r);
            names.extend(n);
        }

        for (i, p) in self.initial.iter().enumerate() {
            let field = format!("initial[{i}]");
            self.species_id(&format!("{field}.species"), &p.species)?;
            self.type_mask(&format!("{field}.site_types"), &p.site_types)?;
            if let Some([lo, hi]) = p.region {
                for a in 0..3 {
                    if !(lo[a] < hi[a] && hi[a] <= self.lattice.shape[a]) {
                        return Err(invalid(
                            &format!("{field}.region"),
                            format!("{lo:?}..{hi:?}"),
                            format!(
                                "min < max <= lattice.shape {:?} on every axis",
                                self.lattice.shape
                            ),
                        ));
                    }
                }
            }
        }
        let out = &self.output;
        if out.observe_every == 0 {
            return Err(invalid("output.observe_every", 0, ">= 1 step"));
        }
        if let Some(k) = &out.kymograph_species {
            self.species_id("output.kymograph_species", k)?;
        }
        if let Some(t) = &out.kymograph_site_type {
            self.type_id("output.kymograph_site_type", t)?;
        }
        for s in &out.snapshot_species {
            self.species_id("output.snapshot_species", s)?;
        }

        let mut warnings = Vec::new();
        for (r, name) in reactions.iter().zip(&names) {
            let c_tau = r.c_tau as f64;
            if c_tau.is_nan() || c_tau > MAX_C_TAU {
                return Err(invalid(
                    &format!("reaction {name:?}: c tau"),
                    format!("{:.3e}", r.c_tau),
                    format!(
                        "at most {MAX_C_TAU:e} for a single reactant pair (a rate that much \
                         faster than a step is taken for a unit mistake): check the rate's \
                         units, or lower tau_s"
                    ),
                ));
            }
            if r.c_tau as f64 > WARN_C_TAU {
                warnings.push(format!(
                    "reaction {name:?}: c tau = {:.3} > {WARN_C_TAU} for a single reactant pair; \
                     at most one reaction fires per site per step, so its rate is undercounted; \
                     lower tau_s",
                    r.c_tau
                ));
            }
        }
        Ok(RdmeModel {
            config: self.clone(),
            hop,
            reactions,
            reaction_names: names,
            warnings,
        })
    }

    /// Converts a macroscopic rate constant into the per-site stochastic constant c.
    fn site_constant(&self, field: &str, order: usize, rate: f64, units: &str) -> Result<f64> {
        if !(rate.is_finite() && rate >= 0.0) {
            return Err(invalid(&format!("{field}.rate"), rate, "a rate >= 0"));
        }
        let lambda = self.lattice.spacing_m;
        let c = match (order, units) {
            (0, "M/s") | (1, "1/s") | (2, "1/(M s)") => {
                stochastic_constant(order as u32, rate, self.site_volume_l())
            }
            (0, "1/s") => rate,
            (1, "m/s") => rate / lambda,
            (0..=2, _) => {
                let allowed = ["\"M/s\" or \"1/s\"", "\"1/s\" or \"m/s\"", "\"1/(M s)\""];
                return Err(invalid(
                    &format!("{field}.units"),
                    units,
                    format!("for order {order}: {}", allowed[order]),
                ));
            }
            _ => {
                return Err(invalid(
                    &format!("{field}.reactants"),
                    order,
                    "0, 1 or 2 reactants",
                ))
            }
        };
        Ok(c)
    }

    fn site_reaction(
        &self,
        field: &str,
        reactants: &[u32],
        products: &[u32],
        c: f64,
        type_mask: u32,
    ) -> Result<SiteReaction> {
        if products.len() > 4 {
            return Err(invalid(
                &format!("{field}.products"),
                products.len(),
                "at most 4 products",
            ));
        }
        if reactants.len() > 2 {
            return Err(invalid(
                &format!("{field}.reactants"),
                reactants.len(),
                "0, 1 or 2 reactants",
            ));
        }
        let packed = products
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &p)| acc | (p << (8 * i)));
        Ok(SiteReaction {
            reactant_a: reactants.first().copied().unwrap_or(0),
            reactant_b: reactants.get(1).copied().unwrap_or(0),
            products: packed,
            type_mask,
            c_tau: (c * self.tau_s) as f32,
            order: reactants.len() as u32,
            _pad: [0; 2],
        })
    }

    fn sbml_reactions(
        &self,
        sbml: &SbmlReactions,
        net: &Network,
    ) -> Result<(Vec<SiteReaction>, Vec<String>)> {
        let volume = sbml
            .compartment_volume_l
            .or(net.compartment_volume)
            .ok_or_else(|| {
                invalid(
                    "reactions_sbml.compartment_volume_l",
                    "missing",
                    "the compartment volume in litres (the SBML file gives no compartment size)",
                )
            })?;
        if !(volume.is_finite() && volume > 0.0) {
            return Err(invalid(
                "reactions_sbml.compartment_volume_l",
                volume,
                "> 0 litres",
            ));
        }
        let mask = self.type_mask("reactions_sbml.site_types", &sbml.site_types)?;
        let mut out = Vec::new();
        let mut names = Vec::new();
        for r in &net.reactions {
            let field = format!("reactions_sbml reaction {:?}", r.id);
            let expand = |list: &[(usize, u32)]| -> Result<Vec<u32>> {
                let mut ids = Vec::new();
                for &(s, n) in list {
                    let id = &net.species[s].id;
                    let sid = self.species_id(&format!("{field} species"), id)?;
                    ids.extend(std::iter::repeat_n(sid, n as usize));
                }
                Ok(ids)
            };
            let reactants = expand(&r.reactants)?;
            let products = expand(&r.products)?;
            let order = reactants.len() as u32;
            let c = rescale_constant(r.rate, order, volume, self.site_volume_l());
            out.push(self.site_reaction(&field, &reactants, &products, c, mask)?);
            names.push(r.id.clone());
        }
        Ok((out, names))
    }
}

fn join_or_empty(list: &[String]) -> String {
    if list.is_empty() {
        "0".into()
    } else {
        list.join(" + ")
    }
}

impl RdmeModel {
    pub fn n_types(&self) -> usize {
        self.config.site_types.len()
    }

    pub fn n_species_ids(&self) -> usize {
        self.config.n_species_ids()
    }

    pub fn hop_q(&self, src_type: u32, dst_type: u32, species: u32) -> f32 {
        let nt = self.n_types();
        self.hop
            [(src_type as usize * nt + dst_type as usize) * self.n_species_ids() + species as usize]
    }
}
