//! Statistical checks of the RDME model on the GPU: diffusion (MSD = 6 D t, conservation,
//! walls), birth-death steady state (Poisson), and a well-mixed A + B <-> C against an exact
//! SSA. Fixed seeds; tolerances are stated with each check.

use petri_engine::testing::test_context;
use petri_model::rdme::lattice::initial_lattice;
use petri_model::rdme::{Lattice, RdmeConfig, RdmeModel, RdmeSim, SimOptions};
use petri_model::reactions::{Network, Reaction, Species};
use petri_model::ssa::direct::simulate_direct;
use std::path::Path;

fn model(json: serde_json::Value) -> RdmeModel {
    let cfg: RdmeConfig = serde_json::from_value(json).unwrap();
    cfg.resolve(Path::new(".")).unwrap()
}

fn run(model: &RdmeModel, steps: u64) -> (Lattice, RdmeSim) {
    let lat0 = initial_lattice(model).unwrap();
    let mut sim = RdmeSim::new(
        vec![test_context()],
        model,
        &lat0,
        0,
        &SimOptions::default(),
    )
    .unwrap();
    sim.advance(steps).unwrap();
    (lat0, sim)
}

/// Positions (x, y, z) of every particle of species id `s`.
fn positions(lat: &Lattice, s: u8) -> Vec<[f64; 3]> {
    let [nx, ny, _] = lat.shape;
    let mut out = Vec::new();
    for i in 0..lat.sites() {
        let p = [
            (i as u32 % nx) as f64,
            (i as u32 / nx % ny) as f64,
            (i as u32 / (nx * ny)) as f64,
        ];
        for &sp in &lat.particles(i) {
            if sp == s {
                out.push(p);
            }
        }
    }
    out
}

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0),
    )
}

#[test]
fn msd_is_6_d_t_and_particles_are_conserved_for_q_up_to_one_half() {
    let (lambda, tau, steps) = (1e-8, 1e-4, 25u64);
    for q in [0.1, 0.3, 0.5] {
        let d = q * lambda * lambda / tau;
        let m = model(serde_json::json!({
            "model": "rdme", "lattice": { "shape": [48, 48, 48], "spacing_m": lambda },
            "tau_s": tau, "steps": steps, "seed": 11, "site_types": ["space"], "species": ["A"],
            "diffusion": [{ "species": ["A"], "from": ["space"], "to": ["space"], "d_m2_per_s": d }],
            "initial": [{ "species": "A", "count": 3000, "region": [[20, 20, 20], [28, 28, 28]] }]
        }));
        let (lat0, sim) = run(&m, steps);
        let lat = sim.read_lattice().unwrap();
        let (p0, p1) = (positions(&lat0, 1), positions(&lat, 1));
        assert_eq!(p1.len(), 3000, "q = {q}: particles are conserved");
        let n = p1.len() as f64;
        let mut msd = 0.0;
        let mut msd_var = 0.0;
        for axis in 0..3 {
            let (m0, v0) = mean_var(&p0.iter().map(|p| p[axis]).collect::<Vec<_>>());
            let (m1, v1) = mean_var(&p1.iter().map(|p| p[axis]).collect::<Vec<_>>());
            // The mean does not drift: within 4 standard errors.
            assert!(
                (m1 - m0).abs() < 4.0 * (v1 / n).sqrt(),
                "q = {q} axis {axis}: mean {m0} -> {m1}"
            );
            msd += v1 - v0;
            msd_var += 2.0 * v1 * v1 / (n - 1.0);
        }
        // 6 D t / lambda^2 = 6 q steps, within 4 standard errors of the variance estimate.
        let expect = 6.0 * q * steps as f64;
        assert!(
            (msd - expect).abs() < 4.0 * msd_var.sqrt(),
            "q = {q}: MSD {msd:.2} sites^2, expected {expect:.2} +- {:.2}",
            4.0 * msd_var.sqrt()
        );
    }
}

#[test]
fn walls_confine_cytosolic_and_membrane_species() {
    let m = model(serde_json::json!({
        "model": "rdme", "lattice": { "shape": [16, 16, 40], "spacing_m": 1e-8 },
        "tau_s": 1e-4, "steps": 100, "seed": 3,
        "site_types": ["outside", "cytoplasm", "membrane"],
        "geometry": [{ "capsule": { "center_m": [8e-8, 8e-8, 2e-7], "length_m": 3.6e-7, "radius_m": 7e-8,
                        "site_type": "cytoplasm", "shell": { "thickness_m": 1.5e-8, "site_type": "membrane" } } }],
        "species": ["In", "Mem"],
        "diffusion": [
            { "species": ["In"], "from": ["cytoplasm"], "to": ["cytoplasm"], "d_m2_per_s": 5e-13 },
            { "species": ["Mem"], "from": ["membrane"], "to": ["membrane"], "d_m2_per_s": 5e-13 }
        ],
        "initial": [
            { "species": "In", "count": 800, "site_types": ["cytoplasm"] },
            { "species": "Mem", "count": 800, "site_types": ["membrane"] }
        ]
    }));
    let (lat0, sim) = run(&m, 100);
    let lat = sim.read_lattice().unwrap();
    assert_ne!(lat, lat0, "particles moved");
    for i in 0..lat.sites() {
        for &s in &lat.particles(i) {
            assert_eq!(
                lat.types[i], s,
                "species {s} found in a site of type {}",
                lat.types[i]
            );
        }
    }
    assert_eq!(lat.species_totals(3), vec![0, 800, 800]);
}

#[test]
fn birth_death_total_is_poisson_at_steady_state() {
    // 0 -> A at k0 per site, A -> 0 at k1: the total is Poisson(512 k0 / k1) = Poisson(51.2).
    let (k0, k1, tau) = (0.2, 2.0, 5e-3);
    let m = model(serde_json::json!({
        "model": "rdme", "lattice": { "shape": [8, 8, 8], "spacing_m": 1e-8 },
        "tau_s": tau, "steps": 1, "seed": 5, "site_types": ["space"], "species": ["A"],
        "diffusion": [{ "species": ["A"], "from": ["space"], "to": ["space"], "d_m2_per_s": 5e-15 }],
        "reactions": [
            { "reactants": [], "products": ["A"], "rate": k0, "units": "1/s" },
            { "reactants": ["A"], "products": [], "rate": k1, "units": "1/s" }
        ]
    }));
    let lat0 = initial_lattice(&m).unwrap();
    let mut sim = RdmeSim::new(vec![test_context()], &m, &lat0, 0, &SimOptions::default()).unwrap();
    // Samples 2 relaxation times (1 / k1 = 100 steps) apart: correlation exp(-2) = 0.14.
    sim.advance(600).unwrap();
    let mut samples = Vec::new();
    for _ in 0..400 {
        sim.advance(200).unwrap();
        samples.push(sim.observe().unwrap().species_total(1) as f64);
    }
    let (mean, var) = mean_var(&samples);
    let lambda = 512.0 * k0 / k1;
    let rho = (-2.0f64).exp();
    let n_eff = samples.len() as f64 * (1.0 - rho) / (1.0 + rho);
    // Mean within 4 standard errors (effective sample size), dispersion var/mean within 0.3 of 1
    // (its standard error is sqrt(2 / n_eff) = 0.08).
    assert!(
        (mean - lambda).abs() < 4.0 * (lambda / n_eff).sqrt(),
        "mean {mean}, expected {lambda}"
    );
    assert!((var / mean - 1.0).abs() < 0.3, "var/mean = {}", var / mean);
}

#[test]
fn well_mixed_a_plus_b_matches_an_exact_ssa() {
    // 256 isolated 4x4x4 boxes (alternating site types, no hops between types), each starting
    // with 12 A and 12 B. Per site A + B -> C at c = 1 /s, C -> A + B at 0.5 /s; well mixed,
    // a box is one SSA system with c = 1/64 /s.
    let (boxes, lambda, tau) = (256u32, 1e-8, 1e-2);
    let nav = 6.022_140_76e23 * lambda * lambda * lambda * 1000.0;
    let q_d = 0.499 * lambda * lambda / tau;
    let mut geometry = Vec::new();
    for b in (1..boxes).step_by(2) {
        let z0 = (4 * b) as f64 * lambda;
        geometry.push(serde_json::json!({ "box": { "min_m": [0.0, 0.0, z0], "max_m": [4.0 * lambda, 4.0 * lambda, z0 + 4.0 * lambda], "site_type": "odd" } }));
    }
    let mut initial = Vec::new();
    for b in 0..boxes {
        for s in ["A", "B"] {
            initial.push(serde_json::json!({ "species": s, "count": 12, "region": [[0, 0, 4 * b], [4, 4, 4 * b + 4]] }));
        }
    }
    let m = model(serde_json::json!({
        "model": "rdme", "lattice": { "shape": [4, 4, 4 * boxes], "spacing_m": lambda },
        "tau_s": tau, "steps": 1, "seed": 17, "site_types": ["even", "odd"], "geometry": geometry,
        "species": ["A", "B", "C"],
        "diffusion": [
            { "species": ["A", "B", "C"], "from": ["even"], "to": ["even"], "d_m2_per_s": q_d },
            { "species": ["A", "B", "C"], "from": ["odd"], "to": ["odd"], "d_m2_per_s": q_d }
        ],
        "reactions": [
            { "reactants": ["A", "B"], "products": ["C"], "rate": 1.0 * nav, "units": "1/(M s)" },
            { "reactants": ["C"], "products": ["A", "B"], "rate": 0.5, "units": "1/s" }
        ],
        "initial": initial
    }));
    let lat0 = initial_lattice(&m).unwrap();
    let mut sim = RdmeSim::new(vec![test_context()], &m, &lat0, 0, &SimOptions::default()).unwrap();

    let species = |id: &str, n| Species {
        id: id.into(),
        name: None,
        initial_count: n,
        boundary: false,
    };
    let net = Network {
        id: "AB".into(),
        species: vec![species("A", 12), species("B", 12), species("C", 0)],
        reactions: vec![
            Reaction {
                id: "bind".into(),
                reactants: vec![(0, 1), (1, 1)],
                products: vec![(2, 1)],
                rate: 1.0 / 64.0,
            },
            Reaction {
                id: "unbind".into(),
                reactants: vec![(2, 1)],
                products: vec![(0, 1), (1, 1)],
                rate: 0.5,
            },
        ],
        compartment_volume: None,
        plot: Vec::new(),
    };
    let times = [1.0, 2.0, 4.0, 8.0];
    let runs = 4000;
    let ssa: Vec<Vec<Vec<u64>>> = (0..runs)
        .map(|k| simulate_direct(&net, 1000 + k, 8.0, &times).unwrap())
        .collect();
    let mut step = 0u64;
    for (ti, &t) in times.iter().enumerate() {
        let target = (t / tau).round() as u64;
        sim.advance(target - step).unwrap();
        step = target;
        let obs = sim.observe().unwrap();
        let c: Vec<f64> = (0..boxes as usize)
            .map(|b| (4 * b..4 * b + 4).map(|z| obs.by_plane[z][3] as f64).sum())
            .collect();
        let (m_rdme, v_rdme) = mean_var(&c);
        let exact: Vec<f64> = ssa.iter().map(|traj| traj[ti][2] as f64).collect();
        let (m_ssa, v_ssa) = mean_var(&exact);
        // Means within 4 standard errors of their difference; variances within 35% (the
        // standard error of a variance from 256 samples is 9%).
        let se = (v_rdme / boxes as f64 + v_ssa / runs as f64).sqrt();
        assert!(
            (m_rdme - m_ssa).abs() < 4.0 * se,
            "t = {t}: mean C {m_rdme:.3} vs SSA {m_ssa:.3} (se {se:.3})"
        );
        assert!(
            (v_rdme / v_ssa - 1.0).abs() < 0.35,
            "t = {t}: var C {v_rdme:.3} vs SSA {v_ssa:.3}"
        );
    }
}
