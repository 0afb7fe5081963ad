//! The start of the Min oscillation on the GPU: assets/min-system.json's species, reactions,
//! rates, diffusion, particle counts and cell (a 4 um x 1 um capsule), on 96 nm sites instead of
//! 16 nm so that 30 simulated seconds run on a software adapter in a few minutes (11 x 11 x 43
//! sites against 64 x 64 x 256; tau 1.5 ms, hop probability q = 0.41, c tau = 0.16 for
//! MinE + MinD_m). The full lattice's long run is the benchmark/example (docs/models/rdme.md).
//!
//! MinD_m starts with nothing on the membrane (everything uniform in the cytoplasm), gathers at
//! one pole, then moves to the other: the first half period of the pole-to-pole oscillation
//! (at about 3 and 8 s with this seed; the full period is about 18 s on this lattice). Fixed
//! seed; thresholds are stated at each check; the run stops a few seconds after the switch.
//! Particle numbers are conserved exactly at every observation.

use petri_engine::testing::test_context;
use petri_model::rdme::analysis::pearson;
use petri_model::rdme::lattice::initial_lattice;
use petri_model::rdme::{RdmeConfig, RdmeModel, RdmeSim, SimOptions};
use std::path::Path;

const SPACING_M: f64 = 9.6e-8;
const TAU_S: f64 = 1.5e-3;
const OBSERVE_S: f64 = 1.0;
/// The run ends this many seconds after the first switch, or at SECONDS.
const AFTER_SWITCH: usize = 4;
const SECONDS: usize = 30;

/// The Min asset on the coarse lattice: the box (1.056 x 1.056 x 4.128 um) still holds the
/// capsule, centred, and the membrane is still one site thick.
fn coarse_min_model() -> RdmeModel {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/min-system.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["lattice"] = serde_json::json!({ "shape": [11, 11, 43], "spacing_m": SPACING_M });
    json["tau_s"] = serde_json::json!(TAU_S);
    let capsule = &mut json["geometry"][0]["capsule"];
    capsule["center_m"] = serde_json::json!([5.28e-7, 5.28e-7, 2.064e-6]);
    capsule["shell"]["thickness_m"] = serde_json::json!(SPACING_M);
    let cfg: RdmeConfig = serde_json::from_value(json).unwrap();
    cfg.resolve(Path::new(path).parent().unwrap()).unwrap()
}

#[test]
fn min_d_gathers_at_one_pole_then_moves_to_the_other() {
    let model = coarse_min_model();
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let cfg = &model.config;
    let id = |name: &str| cfg.species_id("test", name).unwrap() as usize;
    let (d_atp, d_adp, e, d_m, de) = (
        id("MinD_ATP"),
        id("MinD_ADP"),
        id("MinE"),
        id("MinD_m"),
        id("MinDE"),
    );
    let lat0 = initial_lattice(&model).unwrap();
    // The pole thirds of the planes that hold membrane.
    let membrane = cfg.type_id("test", "membrane").unwrap() as u8;
    let planes: Vec<usize> = lat0
        .sites_per_plane(membrane)
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(z, _)| z)
        .collect();
    let (first, last) = (planes[0], *planes.last().unwrap());
    let third = (last - first + 1) / 3;

    let mut sim = RdmeSim::new(
        vec![test_context()],
        &model,
        &lat0,
        0,
        &SimOptions::default(),
    )
    .unwrap();
    let steps = (OBSERVE_S / TAU_S).round() as u64;
    // Polarisation (L - R) / (L + R) of MinD_m between the pole thirds, each second.
    let (mut left, mut right, mut polarisation) = (Vec::new(), Vec::new(), Vec::new());
    // The first second with a polar zone (|p| >= 0.6), and the first switch after it.
    let (mut zone, mut switch) = (None::<usize>, None::<usize>);
    for second in 0..SECONDS {
        sim.advance(steps).unwrap();
        let o = sim.observe().unwrap();
        let total = |s: usize| o.species_total(s);
        assert_eq!(
            total(d_atp) + total(d_adp) + total(d_m) + total(de),
            1758 + 1758,
            "MinD at {} s",
            o.time_s
        );
        assert_eq!(total(e) + total(de), 914, "MinE at {} s", o.time_s);
        let count = |zs: std::ops::Range<usize>| zs.map(|z| o.by_plane[z][d_m]).sum::<u64>() as f64;
        let (l, r) = (
            count(first..first + third),
            count(last + 1 - third..last + 1),
        );
        left.push(l);
        right.push(r);
        // Too few on the poles (the first second) is no polarisation yet.
        polarisation.push(if l + r >= 100.0 {
            (l - r) / (l + r)
        } else {
            0.0
        });
        let p = *polarisation.last().unwrap();
        match zone {
            None if p.abs() >= 0.6 => zone = Some(second),
            Some(z) if switch.is_none() && p * polarisation[z].signum() <= -0.6 => {
                switch = Some(second)
            }
            _ => {}
        }
        if switch.is_some_and(|k| second >= k + AFTER_SWITCH) {
            break;
        }
    }
    let shown = format!("polarisation each second: {polarisation:.2?}");

    // A polar zone forms: one pole holds at least 4 times the other's MinD_m (|p| >= 0.6).
    let zone = zone.unwrap_or_else(|| panic!("no polar zone: {shown}"));
    // Then the other pole takes over, as strongly: the oscillation has started.
    let switch = switch.unwrap_or_else(|| panic!("no switch to the other pole: {shown}"));
    // And the poles are anti-correlated from the first zone on (Pearson r < -0.3).
    let r = pearson(&left[zone..], &right[zone..]).unwrap();
    assert!(r < -0.3, "pole correlation {r}: {shown}");
    eprintln!(
        "first polar zone at {} s, first switch at {} s, pole correlation {r:.2}; {shown}",
        zone + 1,
        switch + 1
    );
}
