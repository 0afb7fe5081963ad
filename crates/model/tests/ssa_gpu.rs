//! Stochastic kinetics on the GPU: the ensemble kernel against its CPU mirror (same random
//! numbers, same trajectories), against the DSMTS analytic results, and for reproducibility.

use petri_engine::testing::test_context;
use petri_model::network::gpu_ensemble::{EnsembleOptions, GpuEnsemble, NetTables};
use petri_model::network::gpu_mirror::direct_f32;
use petri_model::network::stats::{dsmts_case, Method};
use petri_model::network::{Network, Reaction, Species};
use std::time::Instant;

fn species(id: &str, count: u64, boundary: bool) -> Species {
    Species {
        id: id.into(),
        name: None,
        initial_count: count,
        boundary,
    }
}

fn reaction(
    id: &str,
    reactants: &[(usize, u32)],
    products: &[(usize, u32)],
    rate: f64,
) -> Reaction {
    Reaction {
        id: id.into(),
        reactants: reactants.to_vec(),
        products: products.to_vec(),
        rate,
    }
}

/// Every reaction order: a fixed source S -> A, decay, A + B <-> C, birth of B, 2B -> B.
fn small_network() -> Network {
    Network {
        id: "small".into(),
        species: vec![
            species("A", 50, false),
            species("B", 30, false),
            species("C", 0, false),
            species("S", 10, true),
        ],
        reactions: vec![
            reaction("source", &[(3, 1)], &[(3, 1), (0, 1)], 0.5),
            reaction("decay", &[(0, 1)], &[], 0.1),
            reaction("bind", &[(0, 1), (1, 1)], &[(2, 1)], 0.01),
            reaction("unbind", &[(2, 1)], &[(0, 1), (1, 1)], 0.2),
            reaction("birth", &[], &[(1, 1)], 1.0),
            reaction("pair", &[(1, 2)], &[(1, 1)], 0.005),
        ],
        compartment_volume: None,
    }
}

fn grid(t_end: f64, points: usize) -> Vec<f64> {
    (0..points)
        .map(|k| t_end * k as f64 / (points - 1) as f64)
        .collect()
}

/// The GPU direct method and its CPU mirror draw the same numbers and take the same events.
/// Only `ln` may differ in its last bits between the GPU and Rust, which moves event times by
/// a few ulps; a sample may then differ only where an event lies within 1e-5 (relative) of
/// the output time, and such near-ties are counted and must be rare.
#[test]
fn direct_method_follows_its_cpu_mirror_event_for_event() {
    let ctx = test_context();
    let net = small_network();
    let times = grid(20.0, 41);
    let seed = 0x005e_eda1_1ce5_u64;
    let n = 64u32;
    let mut gpu =
        GpuEnsemble::new(&ctx, &net, Method::Direct, &EnsembleOptions::default()).unwrap();
    let runs = gpu.run_trajectories(n as u64, seed, &times).unwrap();
    let tables = NetTables::new(&net).unwrap();
    let (mut compared, mut near_ties, mut events) = (0, 0, 0u64);
    for i in 0..n {
        let cpu = direct_f32(&tables, seed, i, &times, u64::MAX);
        events += *cpu.events.last().unwrap() as u64;
        for (k, &t) in times.iter().enumerate() {
            let (g, c) = (&runs.counts[i as usize][k], &cpu.counts[k]);
            let (ge, ce) = (runs.events[i as usize][k], cpu.events[k]);
            compared += 1;
            if g == c && ge == ce {
                continue;
            }
            // Explained only by an event time within rounding of the output time.
            let near = cpu
                .event_times
                .iter()
                .any(|&e| (e - t).abs() <= 1e-5 * t.max(1.0));
            assert!(
                near && ge.abs_diff(ce) == 1,
                "trajectory {i} t={t}: GPU {g:?} after {ge} events, CPU {c:?} after {ce}"
            );
            near_ties += 1;
        }
    }
    println!("{compared} samples, {events} events compared, {near_ties} near-ties");
    assert!(events > 10_000, "too few events to mean anything: {events}");
    assert!(near_ties <= 2, "{near_ties} near-ties");
}

/// DSMTS cases run on the GPU ensemble with n = 4000, with every method that applies (tau-leaping
/// too: these cases are within its accuracy at epsilon = 0.03). Pass rule (MODELS.md): Z in
/// (-3, 3), Y in (-5, 5) at every output time. A correct simulator misses ~0.3% of the Z checks
/// and a few Y checks, but checks at neighbouring times share trajectories, so misses come in
/// runs: one 3-sigma fluctuation of one ensemble can miss ~10 consecutive times (seen with the
/// ODM on 00011 at one seed; 24 seeds showed Z at t = 40 with mean -0.1 and variance 1.4, no
/// bias). The fixed budget is therefore 16 misses over the whole test (18 runs, 1,377 checks),
/// and misses in at most 2 runs; a real bias misses in many runs.
#[test]
fn dsmts_cases_pass_on_the_gpu_ensemble() {
    let ctx = test_context();
    let n = 4000;
    let (mut all, mut checks, mut runs_missing) = (Vec::new(), 0, 0);
    for case in ["00001", "00011", "00020", "00024", "00030", "00037"] {
        let c = dsmts_case(case).unwrap();
        let net = c.network().unwrap();
        for method in [Method::Direct, Method::Odm, Method::Tau] {
            let t0 = Instant::now();
            let mut ens =
                GpuEnsemble::new(&ctx, &net, method, &EnsembleOptions::default()).unwrap();
            let seed = 0xD5A7_0000 + 4 * case.parse::<u64>().unwrap() + method as u64;
            let stats = ens.run(n, seed, &c.times).unwrap();
            let misses = c.misses(&stats);
            println!(
                "{case} {method:?}: {} misses of {} checks, {:.2} s, {:?}",
                misses.len(),
                c.checks(),
                t0.elapsed().as_secs_f64(),
                ens.counters
            );
            checks += c.checks();
            if !misses.is_empty() {
                runs_missing += 1;
            }
            all.extend(misses);
        }
    }
    println!(
        "{} misses of {checks} checks in {runs_missing} runs",
        all.len()
    );
    assert!(all.len() <= 16 && runs_missing <= 2, "{all:#?}");
}

/// Same seed: bitwise the same sums; a different workgroup size, chunk size and event budget
/// (so different dispatch splits) change nothing either.
#[test]
fn same_seed_same_statistics_whatever_the_launch_shape() {
    let ctx = test_context();
    let net = small_network();
    let times = grid(10.0, 11);
    for method in [Method::Direct, Method::Odm, Method::Tau] {
        let a_opts = EnsembleOptions::default();
        let b_opts = EnsembleOptions {
            workgroup_size: 32,
            chunk: 300,
            event_budget: 7,
            dispatches_per_submit: 3,
            ..EnsembleOptions::default()
        };
        let mut a = GpuEnsemble::new(&ctx, &net, method, &a_opts).unwrap();
        let mut b = GpuEnsemble::new(&ctx, &net, method, &b_opts).unwrap();
        let sa = a.run_sums(1000, 42, &times).unwrap();
        assert_eq!(
            sa,
            a.run_sums(1000, 42, &times).unwrap(),
            "{method:?} repeat"
        );
        assert_eq!(
            sa,
            b.run_sums(1000, 42, &times).unwrap(),
            "{method:?} other shape"
        );
        assert!(
            b.counters.chunks == 4 && b.counters.submissions > 4,
            "{:?}",
            b.counters
        );
        assert_ne!(
            sa,
            a.run_sums(1000, 43, &times).unwrap(),
            "{method:?} other seed"
        );
    }
}

#[test]
fn too_big_networks_and_bad_options_are_refused() {
    let ctx = test_context();
    let mut net = small_network();
    net.species = (0..65)
        .map(|i| species(&format!("X{i}"), 1, false))
        .collect();
    net.reactions.truncate(1);
    let e = GpuEnsemble::new(&ctx, &net, Method::Direct, &EnsembleOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("network.species") && e.contains("65") && e.contains("64"),
        "{e}"
    );
    let bad = EnsembleOptions {
        epsilon: 2.0,
        ..EnsembleOptions::default()
    };
    let e = GpuEnsemble::new(&ctx, &small_network(), Method::Tau, &bad)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("epsilon"), "{e}");
    let mut ens = GpuEnsemble::new(
        &ctx,
        &small_network(),
        Method::Direct,
        &EnsembleOptions::default(),
    )
    .unwrap();
    let e = ens.run(10, 1, &[1.0, 0.5]).unwrap_err().to_string();
    assert!(e.contains("times[1]"), "{e}");
}
