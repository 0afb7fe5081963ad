//! RDME on the GPU against the CPU reference, and on one device against several.

use petri_engine::testing::test_context;
use petri_model::rdme::cpu::CpuReference;
use petri_model::rdme::lattice::initial_lattice;
use petri_model::rdme::{Lattice, RdmeConfig, RdmeModel, RdmeSim, SimOptions, Sweeps};
use std::path::Path;

/// A 12 x 10 x 14 lattice with a membrane-shelled sphere and a box, three species, every
/// reaction order, walls, and a crowded corner that overflows.
fn busy_model() -> RdmeModel {
    crowded_model([12, 10, 14], true, 1.0)
}

/// A lattice of `shape` (12 x 10 x 14 at least) with a membrane-shelled sphere in the middle and
/// a crowded box in a corner that overflows; three species, walls, reactions of order 1 and 2
/// (one that empties sites) and, with `zeroth_order`, one of order 0. Outside the crowded box
/// there are about 0.7 particles per site, divided by `dilution`.
fn crowded_model(shape: [u32; 3], zeroth_order: bool, dilution: f64) -> RdmeModel {
    let center: Vec<f64> = shape.iter().map(|&n| n as f64 * 0.5e-8).collect();
    let radius = shape.iter().min().copied().unwrap_or(0) as f64 * 0.45e-8;
    let scale = shape.iter().map(|&n| n as f64).product::<f64>() / 1680.0 / dilution;
    let count = |n: f64| (n * scale).round() as u64;
    let mut json = serde_json::json!({
        "model": "rdme",
        "lattice": { "shape": shape, "spacing_m": 1e-8 },
        "tau_s": 1e-4,
        "steps": 10,
        "seed": 7,
        "site_types": ["outside", "inside", "membrane", "crowd"],
        "geometry": [
            { "sphere": { "center_m": center, "radius_m": radius, "site_type": "inside",
                          "shell": { "thickness_m": 1.2e-8, "site_type": "membrane" } } },
            { "box": { "min_m": [0.0, 0.0, 0.0], "max_m": [3e-8, 3e-8, 3e-8], "site_type": "crowd" } }
        ],
        "species": ["A", "B", "C"],
        "diffusion": [
            { "species": ["A", "B", "C"], "from": ["inside", "membrane"], "to": ["inside", "membrane"], "d_m2_per_s": 3e-13 },
            { "species": ["A"], "from": ["outside"], "to": ["outside"], "d_m2_per_s": 5e-13 },
            { "species": ["A", "C"], "from": ["crowd"], "to": ["crowd"], "d_m2_per_s": 4e-13 },
            { "species": ["A"], "from": ["outside"], "to": ["crowd"], "d_m2_per_s": 2e-13 }
        ],
        "reactions": [
            { "reactants": [], "products": ["A"], "rate": 20.0, "units": "1/s", "site_types": ["inside"] },
            { "reactants": ["A"], "products": ["B"], "rate": 300.0, "units": "1/s" },
            { "reactants": ["A", "B"], "products": ["C"], "rate": 1e9, "units": "1/(M s)", "site_types": ["inside", "membrane"] },
            { "reactants": ["A", "A"], "products": ["C", "C", "A"], "rate": 5e8, "units": "1/(M s)", "site_types": ["inside", "membrane"] },
            { "reactants": ["C"], "products": ["A", "B"], "rate": 200.0, "units": "1/s", "site_types": ["membrane"] },
            { "reactants": ["B"], "products": [], "rate": 100.0, "units": "1/s", "site_types": ["inside"] }
        ],
        "initial": [
            { "species": "A", "count": count(400.0), "site_types": ["inside", "membrane"] },
            { "species": "B", "count": count(200.0), "site_types": ["inside"] },
            { "species": "A", "count": count(300.0), "site_types": ["outside"] },
            { "species": "A", "count": 280, "site_types": ["crowd"] },
            { "species": "C", "count": 40, "site_types": ["crowd"] }
        ]
    });
    if !zeroth_order {
        json["reactions"].as_array_mut().unwrap().remove(0);
    }
    let cfg: RdmeConfig = serde_json::from_value(json).unwrap();
    cfg.resolve(Path::new(".")).unwrap()
}

fn first_difference(a: &Lattice, b: &Lattice) -> Option<String> {
    (0..a.sites())
        .find(|&i| a.site(i) != b.site(i))
        .map(|i| format!("site {i}: {:?} vs {:?}", a.particles(i), b.particles(i)))
}

/// Steps `model` on the GPU with `sweeps` and on the CPU in rounds of 1, 1, 3 and 5 steps,
/// asserting identical lattices after each; returns the GPU's observables, the CPU reference and
/// the occupied sweeps' threads per workgroup.
fn compare_with_cpu(
    model: &RdmeModel,
    sweeps: Sweeps,
) -> (petri_model::rdme::Observables, CpuReference<'_>, u32) {
    let lat0 = initial_lattice(model).unwrap();
    let options = SimOptions {
        sweeps,
        ..SimOptions::default()
    };
    let mut sim = RdmeSim::new(vec![test_context()], model, &lat0, 0, &options).unwrap();
    assert_eq!(sim.slabs[0].occupied_sweeps, sweeps == Sweeps::Occupied);
    let mut cpu = CpuReference::new(model, lat0);
    for steps in [1u64, 1, 3, 5] {
        sim.advance(steps).unwrap();
        cpu.run(steps);
        let gpu = sim.read_lattice().unwrap();
        assert_eq!(
            first_difference(&gpu, &cpu.lattice),
            None,
            "{sweeps:?} sweeps, after step {}",
            sim.step
        );
    }
    (sim.observe().unwrap(), cpu, sim.slabs[0].occupied_threads)
}

#[test]
fn gpu_steps_match_the_cpu_reference_exactly() {
    let model = busy_model();
    compare_with_cpu(&model, Sweeps::Occupied);
    let (obs, cpu, _) = compare_with_cpu(&model, Sweeps::EverySite);
    assert_eq!(obs.overflow_moved, cpu.counts.moved);
    assert!(cpu.counts.moved > 0, "the crowded corner should overflow");
    // Counts by plane and by type agree with the lattice.
    let totals = cpu.lattice.species_totals(model.n_species_ids());
    for s in 1..model.n_species_ids() {
        assert_eq!(obs.species_total(s), totals[s]);
        assert_eq!(obs.by_plane.iter().map(|p| p[s]).sum::<u64>(), totals[s]);
    }
}

#[test]
fn occupied_sweeps_match_the_cpu_reference_over_many_workgroups() {
    // 40 x 36 x 24 = 34,560 sites: 17 workgroups of 2048 sites (rdme/diffuse_occupied.wgsl),
    // sites emptied by B -> nothing and by hops, overflow from the crowded corner resolved by
    // whichever workgroup of the z sweep finishes last. Without zeroth-order reactions only the
    // sites with particles in reach are updated; with them, the reactions visit every site. At
    // 0.55 particles per site the sweeps run 256 threads per workgroup, diluted to 0.015 (below
    // 0.02) 128.
    for (zeroth_order, dilution, threads) in
        [(false, 1.0, 256), (true, 1.0, 256), (false, 100.0, 128)]
    {
        let model = crowded_model([40, 36, 24], zeroth_order, dilution);
        let (obs, cpu, used) = compare_with_cpu(&model, Sweeps::Occupied);
        assert_eq!(used, threads, "dilution {dilution}");
        assert!(cpu.counts.moved > 0, "the crowded corner should overflow");
        assert_eq!(obs.overflow_moved, cpu.counts.moved);
    }
}

#[test]
fn one_long_advance_equals_many_short_ones() {
    // On one device an `advance` starts with a short batch and lengthens the next ones up to
    // the largest allowed: 200 steps at most 2 per batch are 100 batches, long past where
    // lengthening without the cap would overflow.
    let model = busy_model();
    let lat0 = initial_lattice(&model).unwrap();
    let ctx = test_context();
    let options = SimOptions {
        max_steps_per_batch: 2,
        ..SimOptions::default()
    };
    let mut long = RdmeSim::new(vec![ctx.clone()], &model, &lat0, 0, &options).unwrap();
    long.advance(200).unwrap();
    let mut short = RdmeSim::new(vec![ctx], &model, &lat0, 0, &SimOptions::default()).unwrap();
    for steps in [1u64, 7, 16, 17, 59, 100] {
        short.advance(steps).unwrap();
    }
    assert_eq!((long.step, short.step), (200, 200));
    assert_eq!(
        first_difference(
            &long.read_lattice().unwrap(),
            &short.read_lattice().unwrap()
        ),
        None
    );
}

#[test]
fn the_lattice_does_not_depend_on_the_workgroup_size_or_the_sites_per_thread() {
    // 64x4 (the default: y and z sweeps as 32x8 and 8x1x32), 16x2 (32x1, 8x1x4), 8x8 and 5x3
    // (not a multiple of a warp: every sweep 5x3), each thread looking at a run of 1, 2, 4 or 8
    // sites (along y in the y sweep, along z in the others);
    // the busy sites of a workgroup are queued and taken up in another order each time
    // (rdme/diffuse.wgsl).
    let model = busy_model();
    let lat0 = initial_lattice(&model).unwrap();
    let ctx = test_context();
    let options = |workgroup: [u32; 2], sites: u32| SimOptions {
        workgroup,
        sites_per_thread: Some(sites),
        sweeps: Sweeps::EverySite,
        ..SimOptions::default()
    };
    let run = |options: SimOptions| {
        let mut sim = RdmeSim::new(vec![ctx.clone()], &model, &lat0, 0, &options).unwrap();
        sim.advance(9).unwrap();
        sim.read_lattice().unwrap()
    };
    let reference = run(options([64, 4], 1));
    assert_ne!(reference, lat0);
    for (workgroup, sites) in [
        ([64, 4], 4),
        ([16, 2], 2),
        ([8, 8], 8),
        ([5, 3], 4),
        ([5, 3], 1),
    ] {
        assert_eq!(
            first_difference(&run(options(workgroup, sites)), &reference),
            None,
            "workgroup {workgroup:?}, {sites} sites per thread"
        );
    }
    // More queued sites than the sweeps' queue holds (1024), or another number of sites per
    // thread, is refused naming the field.
    for (workgroup, sites, field) in [([64, 4], 8, "workgroup"), ([8, 8], 3, "sites_per_thread")] {
        let err = RdmeSim::new(
            vec![ctx.clone()],
            &model,
            &lat0,
            0,
            &options(workgroup, sites),
        )
        .err()
        .expect("refused")
        .to_string();
        assert!(err.contains(field), "{err}");
    }
}

#[test]
fn one_two_and_three_devices_give_bitwise_identical_lattices() {
    let model = busy_model();
    let lat0 = initial_lattice(&model).unwrap();
    let ctx = test_context();
    // Sweeps::Auto takes every site on this small crowded lattice.
    let auto = RdmeSim::new(vec![ctx.clone()], &model, &lat0, 0, &SimOptions::default()).unwrap();
    assert!(!auto.slabs[0].occupied_sweeps);
    let occupied = SimOptions {
        sweeps: Sweeps::Occupied,
        ..SimOptions::default()
    };
    let mut one = RdmeSim::new(vec![ctx.clone()], &model, &lat0, 0, &occupied).unwrap();
    one.advance(12).unwrap();
    let reference = one.read_lattice().unwrap();

    // Both kinds of sweep on several devices: with the occupied ones each slab's maps cover its
    // halos too, the sweeps keep the bits outside their step region, and after each exchange
    // the halo planes are marked anew (rdme/mark_halos.wgsl); with `overlap_exchange` the
    // first x and y sweeps after an exchange run in two parts around it.
    for (sweeps, overlap_exchange) in [
        (Sweeps::EverySite, false),
        (Sweeps::Occupied, false),
        (Sweeps::Occupied, true),
    ] {
        let case = format!("{sweeps:?}, overlap_exchange {overlap_exchange}");
        let two_devices = vec![test_context(), test_context()];
        let options = SimOptions {
            sweeps,
            overlap_exchange,
            ..SimOptions::default()
        };
        let mut two = RdmeSim::new(two_devices, &model, &lat0, 0, &options).unwrap();
        assert!(two
            .slabs
            .iter()
            .all(|s| s.occupied_sweeps == (sweeps == Sweeps::Occupied)));
        two.advance(12).unwrap();
        assert_eq!(
            first_difference(&two.read_lattice().unwrap(), &reference),
            None,
            "{case}"
        );
        // Halos carry only the word planes the boundary sites use; the crowded corner needs
        // all four at some exchange, more than the two copied at first: a second round trip.
        assert!(two.slabs.halo_refetches() > 0);

        // Two devices exchange 7-plane halos every 7 steps (12 = 7 + 5: a short last batch).
        // Uneven split (halos 2 deep), rebalanced by hand mid-run (halos 1 deep) and by the
        // balancer every 3 steps.
        let options = SimOptions {
            split: Some(vec![2, 9, 3]),
            balance_every: 3,
            balance_threshold: 0.0,
            move_cost: Some(std::time::Duration::ZERO),
            sweeps,
            overlap_exchange,
            ..SimOptions::default()
        };
        let mut three = RdmeSim::new(
            vec![ctx.clone(), ctx.clone(), ctx.clone()],
            &model,
            &lat0,
            0,
            &options,
        )
        .unwrap();
        three.advance(5).unwrap();
        three.rebalance(&[6, 1, 7]).unwrap();
        three.advance(7).unwrap();
        assert_eq!(
            first_difference(&three.read_lattice().unwrap(), &reference),
            None,
            "{case}"
        );
        assert_eq!(three.observe().unwrap(), one.observe().unwrap());
    }
}

#[test]
fn occupied_sweeps_on_several_devices_match_one_device_over_many_workgroups() {
    // 40 x 36 x 24: 17 workgroups of 2048 sites on one device, 4-10 per slab on three; no
    // zeroth-order reactions, so every pass finds its sites in the maps (the halo planes' bits
    // come from mark_halos.wgsl after each exchange); the crowded corner's overflow is placed
    // by whichever workgroup finishes last on each device. Halos 4 deep (exchanges at steps 4
    // and 8 of 10), then 2 deep after a rebalance (capped by the smallest slab). Also with the
    // first x sweep after each exchange in two parts around it (`overlap_exchange`).
    let model = crowded_model([40, 36, 24], false, 1.0);
    let lat0 = initial_lattice(&model).unwrap();
    let occupied = SimOptions {
        sweeps: Sweeps::Occupied,
        ..SimOptions::default()
    };
    let mut one = RdmeSim::new(vec![test_context()], &model, &lat0, 0, &occupied).unwrap();
    one.advance(10).unwrap();
    let mut one_later = None;
    // Without and with the first x sweep after each exchange split around it.
    for overlap_exchange in [false, true] {
        let options = SimOptions {
            split: Some(vec![10, 4, 10]),
            halo_depth: 4,
            balance_every: 0,
            overlap_exchange,
            ..occupied.clone()
        };
        let ctx = test_context();
        let mut three = RdmeSim::new(
            vec![ctx.clone(), ctx.clone(), ctx],
            &model,
            &lat0,
            0,
            &options,
        )
        .unwrap();
        assert!(three.slabs.iter().all(|s| s.occupied_sweeps));
        three.advance(10).unwrap();
        assert_eq!(
            first_difference(&three.read_lattice().unwrap(), &one.read_lattice().unwrap()),
            None,
            "overlap_exchange {overlap_exchange}"
        );
        assert!(
            one.observe().unwrap().overflow_moved > 0,
            "the crowded corner should overflow"
        );
        assert_eq!(three.observe().unwrap(), one.observe().unwrap());
        three.rebalance(&[2, 20, 2]).unwrap();
        assert_eq!(three.halo_depth(), 2);
        let later = one_later.get_or_insert_with(|| {
            let mut later =
                RdmeSim::new(vec![test_context()], &model, &lat0, 0, &occupied).unwrap();
            later.advance(17).unwrap();
            later
        });
        three.advance(7).unwrap();
        assert_eq!(
            first_difference(
                &three.read_lattice().unwrap(),
                &later.read_lattice().unwrap()
            ),
            None,
            "overlap_exchange {overlap_exchange}, after the rebalance"
        );
        assert_eq!(three.observe().unwrap(), later.observe().unwrap());
    }
}

#[test]
fn timing_batches_on_several_devices_times_every_batch_without_changing_the_lattice() {
    // Two slabs, halos 4 deep, the exchange overlapped: 10 steps are batches of 4, 4 and 2,
    // with a head after each of the first two: 5 timed batches per device and `advance`. A
    // move of the slab boundary between the two advances rebuilds the slabs; the first
    // slabs' times carry over.
    let model = crowded_model([12, 10, 14], false, 1.0);
    let lat0 = initial_lattice(&model).unwrap();
    let options = SimOptions {
        sweeps: Sweeps::Occupied,
        halo_depth: 4,
        balance_every: 0,
        overlap_exchange: true,
        ..SimOptions::default()
    };
    let ctx = test_context();
    let devices = vec![ctx.clone(), ctx.clone()];
    let mut plain = RdmeSim::new(devices.clone(), &model, &lat0, 0, &options).unwrap();
    let mut timed = RdmeSim::new(devices, &model, &lat0, 0, &options).unwrap();
    timed.time_batches();
    for sim in [&mut plain, &mut timed] {
        sim.advance(10).unwrap();
        sim.rebalance(&[5, 9]).unwrap();
        sim.advance(10).unwrap();
    }
    assert_eq!(
        first_difference(
            &timed.read_lattice().unwrap(),
            &plain.read_lattice().unwrap()
        ),
        None
    );
    let times = timed.batch_times().unwrap();
    if !ctx.has_timestamps() {
        assert!(times.is_empty());
        return;
    }
    assert_eq!(times.len(), 2);
    for (k, t) in times.iter().enumerate() {
        assert_eq!((t.batches, t.untimed), (10, 0), "device {k}");
        assert!(
            t.busy_ns > 0.0 && t.span_ns >= t.busy_ns,
            "device {k}: {t:?}"
        );
        // The first batch (before the rebuild) is one of the ten.
        assert!(
            t.first_ns > 0.0 && t.first_ns < t.busy_ns,
            "device {k}: {t:?}"
        );
    }
    assert!(plain.batch_times().unwrap().is_empty());
}

#[test]
fn the_min_asset_resolves_with_its_documented_numbers() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/min-system.json");
    let cfg = RdmeConfig::load(Path::new(path)).unwrap();
    let model = cfg.resolve(Path::new(path).parent().unwrap()).unwrap();
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let c_tau: Vec<f32> = model.reactions.iter().map(|r| r.c_tau).collect();
    // sigma_d / lambda tau, 9e6 / (N_A lambda^3) tau, 5.56e7 / (N_A lambda^3) tau, 0.7 tau, 0.5 tau.
    let expect = [1.5625e-5, 0.072974, 0.450820, 1.4e-5, 1e-5];
    for (c, e) in c_tau.iter().zip(expect) {
        assert!(((*c as f64) - e).abs() < 1e-4 * e, "{c_tau:?}");
    }
    assert!((model.hop_q(1, 2, 1) - 0.1953125).abs() < 1e-7);
    let lat = initial_lattice(&model).unwrap();
    let membrane = lat.types.iter().filter(|&&t| t == 2).count();
    let cytoplasm = lat.types.iter().filter(|&&t| t == 1).count();
    // A 4 um x 1 um capsule has 3.14 um^3 (1.2e6 sites of 16 nm) and 12.6 um^2 of surface.
    assert!(
        (600_000..800_000).contains(&(membrane + cytoplasm)),
        "{membrane} + {cytoplasm}"
    );
    assert!((35_000..60_000).contains(&membrane), "{membrane}");
    assert_eq!(lat.species_totals(6)[1..], [1758, 1758, 914, 0, 0]);
}

#[test]
fn reactions_can_come_from_an_sbml_file() {
    // DSMTS 00001 (birth-death: X -> 2X at 0.1, X -> 0 at 0.11, first order, so the
    // compartment volume does not change the per-site constants).
    let file = petri_model::reactions::dsmts_dir().join("00001/00001-sbml-l3v1.xml");
    assert!(
        file.exists(),
        "the DSMTS corpus is missing at {}",
        file.display()
    );
    let json = serde_json::json!({
        "model": "rdme", "lattice": { "shape": [4, 4, 4], "spacing_m": 1e-8 },
        "tau_s": 1e-3, "steps": 1, "seed": 1, "site_types": ["space"], "species": ["X"],
        "reactions_sbml": { "file": file, "compartment_volume_l": 6.4e-20 }
    });
    let cfg: RdmeConfig = serde_json::from_value(json.clone()).unwrap();
    let model = cfg.resolve(Path::new(".")).unwrap();
    assert_eq!(model.reaction_names, ["Birth", "Death"]);
    let [birth, death] = [model.reactions[0], model.reactions[1]];
    assert_eq!(
        (birth.order, birth.reactant_a, birth.products),
        (1, 1, 1 | 1 << 8)
    );
    assert_eq!((death.order, death.reactant_a, death.products), (1, 1, 0));
    assert!((birth.c_tau - 1e-4).abs() < 1e-10 && (death.c_tau - 1.1e-4).abs() < 1e-10);
    // A species the lattice does not declare is refused, naming it.
    let mut bad = json;
    bad["species"] = serde_json::json!(["Y"]);
    let cfg: RdmeConfig = serde_json::from_value(bad).unwrap();
    let err = cfg.resolve(Path::new(".")).unwrap_err().to_string();
    assert!(err.contains("reactions_sbml") && err.contains("X"), "{err}");
}
