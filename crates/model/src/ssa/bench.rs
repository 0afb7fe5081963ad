//! `petri bench ssa`: (a) ensembles of a small network (the Vilar oscillator) on the GPU,
//! trajectories per second against the CPU reference timed in the same run; (b) tau-leaping of
//! one large (synthetic) network on the GPU, leaps per second against the CPU tau-leaping
//! reference in the same run. Both run through the bench harness (`petri_scheduler::bench`):
//! one warm-up run, then the timed one. (c) The CPU direct method against rebop's, an outside
//! reference, one core each.

use super::ensemble::Method;
use super::gpu_ensemble::{EnsembleOptions, GpuEnsemble};
use super::gpu_leap::{GpuLeaper, LeapOptions, LeapStats};
use super::{direct, odm, tau};
use crate::error::Result;
use crate::reactions::Network;
use petri_engine::{GpuContext, Profiler};
use petri_scheduler::bench::{measure, Case, Runs, Sample, Timing};
use std::time::Instant;

/// One ensemble size.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EnsembleRow {
    pub method: String,
    pub trajectories: u64,
    pub wall_s: f64,
    /// Sum of the GPU time of the simulation dispatches (timestamps), when available.
    pub gpu_s: Option<f64>,
    pub trajectories_per_s: f64,
    /// Single-threaded CPU reference, same method, ms per trajectory.
    pub cpu_ms_per_trajectory: f64,
    /// CPU time for the same number of trajectories (one core) over the GPU wall time.
    pub speedup_vs_one_core: f64,
}

/// The CPU reference of `method`, one trajectory, single-threaded; the direct method on
/// `tables`, built once per bench as an ensemble builds them (with its compiled events).
fn cpu_trajectory(
    net: &Network,
    method: Method,
    tables: Option<&direct::DirectTables>,
    seed: u64,
    t_end: f64,
    times: &[f64],
) {
    // Timing only: a trajectory that stops early is timed as far as it ran.
    match method {
        Method::Direct => {
            let tables = tables.expect("the direct method's tables");
            let _ = std::hint::black_box(direct::sample_direct(tables, seed, t_end, times));
        }
        Method::Odm => {
            let _ = std::hint::black_box(odm::simulate_odm(net, seed, t_end, times));
        }
        Method::Tau => {
            let _ = std::hint::black_box(tau::simulate_tau(net, seed, t_end, times));
        }
    }
}

/// Times `points` outputs over [0, t_end] for each ensemble size in `sizes` with `options`
/// (timestamps switched on), and `cpu_trajectories` trajectories of the CPU reference (at
/// least one).
#[allow(clippy::too_many_arguments)]
pub fn bench_ensemble(
    ctx: &GpuContext,
    net: &Network,
    method: Method,
    sizes: &[u64],
    t_end: f64,
    points: usize,
    cpu_trajectories: u64,
    options: &EnsembleOptions,
) -> Result<Vec<(Timing, EnsembleRow)>> {
    let times: Vec<f64> = (0..points)
        .map(|k| t_end * k as f64 / (points.max(2) - 1) as f64)
        .collect();
    let tables = (method == Method::Direct).then(|| direct::DirectTables::new(net));
    let t0 = Instant::now();
    let cpu_n = cpu_trajectories.max(1);
    for k in 0..cpu_n {
        cpu_trajectory(net, method, tables.as_ref(), 1000 + k, t_end, &times);
    }
    let cpu_ms = t0.elapsed().as_secs_f64() * 1e3 / cpu_n as f64;

    let options = EnsembleOptions {
        profile: true,
        ..options.clone()
    };
    let mut case = EnsembleCase {
        ens: GpuEnsemble::new(ctx, net, method, &options)?,
        trajectories: 0,
        times,
        wall_s: 0.0,
    };
    let mut rows = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        case.trajectories = n;
        // Warm-up once, before the first size: pipelines compiled, buffers of this shape
        // allocated once before timing.
        let runs = Runs {
            warmup: (i == 0) as u32,
            repeats: 1,
        };
        let timing = measure(&mut case, runs)?;
        let wall = case.wall_s;
        let row = EnsembleRow {
            method: method.to_string(),
            trajectories: n,
            wall_s: wall,
            gpu_s: case.ens.counters.gpu_ns.map(|ns| ns * 1e-9),
            trajectories_per_s: n as f64 / wall,
            cpu_ms_per_trajectory: cpu_ms,
            speedup_vs_one_core: cpu_ms * 1e-3 * n as f64 / wall,
        };
        rows.push((timing, row));
    }
    Ok(rows)
}

/// One ensemble run of `trajectories`: its GPU time from timestamps (the simulation
/// dispatches), the wall clock without them.
struct EnsembleCase {
    ens: GpuEnsemble,
    trajectories: u64,
    times: Vec<f64>,
    /// Wall seconds of the last timed run.
    wall_s: f64,
}

impl Case for EnsembleCase {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.ens.run(64, 7, &self.times).map(|_| ())
    }

    fn timed(&mut self) -> Result<Sample> {
        // Pipelines and buffers for this size built before the clock starts.
        self.ens.prepare(self.trajectories, &self.times, false)?;
        let t0 = Instant::now();
        self.ens.run(self.trajectories, 42, &self.times)?;
        let wall = Sample::wall_since(t0, 1.0);
        self.wall_s = wall.ns * 1e-9;
        Ok(match self.ens.counters.gpu_ns {
            Some(ns) => Sample::gpu(ns),
            None => wall,
        })
    }
}

/// Tau-leaping of one network.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LeapRow {
    pub reactions: usize,
    pub species: usize,
    /// Leap attempts timed on the GPU (accepted, rejected or exact steps).
    pub gpu_attempts: u64,
    pub gpu_leaps: u64,
    pub gpu_wall_s: f64,
    /// GPU time per attempt from timestamps (sum of the seven passes), when available.
    pub gpu_us_per_attempt: Option<f64>,
    pub gpu_attempts_per_s: f64,
    /// CPU tau-leaping reference (`tau.rs`, one core) over a similar stretch of time.
    pub cpu_attempts: u64,
    pub cpu_attempts_per_s: f64,
    pub speedup: f64,
}

/// Times `attempts` GPU leap attempts and about `cpu_attempts` CPU ones on `net`.
pub fn bench_leap(
    ctx: &GpuContext,
    net: &Network,
    attempts: u64,
    cpu_attempts: u64,
) -> Result<(Timing, LeapRow)> {
    let mut case = LeapCase {
        leaper: GpuLeaper::new(ctx, net, 11, &LeapOptions::default())?,
        attempts,
        before: None,
        after: None,
    };
    let timing = measure(
        &mut case,
        Runs {
            warmup: 1,
            repeats: 1,
        },
    )?;
    let (before, after) = (case.before.unwrap(), case.after.unwrap());
    let mut leaper = case.leaper;
    let wall = timing.samples_ns[0] * 1e-9;
    let done = after.attempts - before.attempts;

    // GPU time per attempt: one profiled run (the query set holds 2048 passes).
    let mut gpu_us = None;
    if ctx.has_timestamps() {
        let n = (2048 / leaper.passes_per_attempt()).min(attempts.max(1) as u32);
        let mut profiler = Profiler::new(ctx, n * leaper.passes_per_attempt());
        leaper.advance_leaps_profiled(n, &mut profiler)?;
        gpu_us = Some(profiler.collect(ctx)?.busy_ns() / 1e3 / n as f64);
    }

    // The CPU runs for the simulated time the GPU covered per attempt, scaled to cpu_attempts.
    let dt_per_attempt = (after.t - before.t) / done.max(1) as f64;
    let t_end = (dt_per_attempt * cpu_attempts as f64).max(f64::MIN_POSITIVE);
    let t0 = Instant::now();
    let (_, counters) = tau::simulate_tau_counted(net, 5, t_end, &[t_end])?;
    let cpu_wall = t0.elapsed().as_secs_f64();
    let cpu_done = counters.leaps + counters.rejected + counters.ssa_steps;
    let gpu_rate = done as f64 / wall;
    let cpu_rate = cpu_done as f64 / cpu_wall;
    let row = LeapRow {
        reactions: net.reactions.len(),
        species: net.species.len(),
        gpu_attempts: done,
        gpu_leaps: after.leaps - before.leaps,
        gpu_wall_s: wall,
        gpu_us_per_attempt: gpu_us,
        gpu_attempts_per_s: gpu_rate,
        cpu_attempts: cpu_done,
        cpu_attempts_per_s: cpu_rate,
        speedup: gpu_rate / cpu_rate,
    };
    Ok((timing, row))
}

/// GPU leap attempts timed by the wall clock, after a warm-up of 8 attempts. (The GPU time per
/// attempt comes from a separate profiled run: timestamps around every pass would slow the
/// timed one.)
struct LeapCase {
    leaper: GpuLeaper,
    attempts: u64,
    /// Counters before and after the last timed run.
    before: Option<LeapStats>,
    after: Option<LeapStats>,
}

impl Case for LeapCase {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.leaper.advance_leaps(8).map(|_| ())
    }

    fn timed(&mut self) -> Result<Sample> {
        let before = self.leaper.stats()?;
        let t0 = Instant::now();
        let after = self.leaper.advance_leaps(self.attempts)?;
        let wall = Sample::wall_since(t0, 1.0);
        (self.before, self.after) = (Some(before), Some(after));
        Ok(wall)
    }
}

/// Our CPU direct method against rebop's, one thread, the same network, end time and output
/// times: rebop's run-time `Gillespie` API (any network), and for the Vilar oscillator also its
/// `define_system!` macro (the network compiled into the program, rebop's fastest form).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RebopRow {
    pub trajectories: u64,
    pub ours_ms_per_trajectory: f64,
    pub rebop_ms_per_trajectory: f64,
    /// Ours over rebop's time: below 1 means ours is faster.
    pub ratio: f64,
    /// rebop's `define_system!` Vilar, when the network is Vilar's (`vilar_compiled`).
    pub rebop_compiled_ms_per_trajectory: Option<f64>,
    /// Ours over the compiled rebop's time.
    pub ratio_compiled: Option<f64>,
    /// Mean over the trajectories of the summed counts at t_end, ours and rebop's: a check
    /// that both simulate the same network (they draw different numbers).
    pub ours_mean_final: f64,
    pub rebop_mean_final: f64,
}

/// `net` as a rebop problem. rebop's mass action is c' * x (x - 1) ... (falling factorials),
/// ours c * C(x, nu), so c' = c / nu! per reactant.
fn rebop_problem(net: &Network) -> rebop::gillespie::Gillespie {
    use rebop::gillespie::{Gillespie, Rate};
    let initial: Vec<isize> = net.initial_counts().iter().map(|&c| c as isize).collect();
    let mut problem = Gillespie::new(initial, true);
    for (r, delta) in net.reactions.iter().zip(net.state_changes()) {
        let factorials: f64 = r
            .reactants
            .iter()
            .map(|&(_, nu)| (1..=nu).product::<u32>() as f64)
            .product();
        let reactants: Vec<(u32, u32)> =
            r.reactants.iter().map(|&(s, nu)| (s as u32, nu)).collect();
        let mut jump = vec![0isize; net.species.len()];
        for (s, d) in delta {
            jump[s] = d as isize;
        }
        problem.add_reaction(Rate::lma_sparse(r.rate / factorials, reactants), jump);
    }
    problem
}

/// rebop's Vilar oscillator compiled by its `define_system!` (its generated constructor takes
/// one argument per rate constant).
#[allow(clippy::too_many_arguments)]
mod compiled {
    use crate::reactions::Network;

    rebop::define_system! {
        k0 k1 k2 k3 k4 k5 k6 k7 k8 k9 k10 k11 k12 k13 k14 k15;
        RebopVilar { DA, DAp, DR, DRp, MA, MR, A, R, C }
        binding_A_DA: A + DA => DAp @ k0
        unbinding_A_DA: DAp => A + DA @ k1
        binding_A_DR: A + DR => DRp @ k2
        unbinding_A_DR: DRp => A + DR @ k3
        transcription_A: DA => DA + MA @ k4
        transcription_A_bound: DAp => DAp + MA @ k5
        transcription_R: DR => DR + MR @ k6
        transcription_R_bound: DRp => DRp + MR @ k7
        translation_A: MA => MA + A @ k8
        translation_R: MR => MR + R @ k9
        complex: A + R => C @ k10
        complex_decay: C => R @ k11
        decay_A: A => @ k12
        decay_R: R => @ k13
        decay_MA: MA => @ k14
        decay_MR: MR => @ k15
    }

    /// The compiled system with the rates and initial counts of a network.
    pub(super) struct Vilar(RebopVilar);

    impl RebopVilar {
        /// The counts in the order of `net.species`.
        fn counts(&self) -> [isize; 9] {
            [
                self.DA, self.DAp, self.DR, self.DRp, self.MA, self.MR, self.A, self.R, self.C,
            ]
        }
    }

    /// rebop's compiled Vilar oscillator with the rates and initial counts of `net`, when `net` is
    /// Vilar's (assets/vilar.json): checked by its giving the same trajectory as the run-time
    /// problem for one seed (both draw the same numbers from the same generator, by the same
    /// algorithm), which another network cannot do.
    pub(super) fn vilar_compiled(
        net: &Network,
        problem: &rebop::gillespie::Gillespie,
        times: &[f64],
    ) -> Option<Vilar> {
        if net.species.len() != 9 || net.reactions.len() != 16 {
            return None;
        }
        let k: Vec<f64> = net.reactions.iter().map(|r| r.rate).collect();
        let mut vilar = RebopVilar::with_parameters(
            k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10], k[11], k[12], k[13],
            k[14], k[15],
        );
        let c: Vec<isize> = net.initial_counts().iter().map(|&c| c as isize).collect();
        [
            vilar.DA, vilar.DAp, vilar.DR, vilar.DRp, vilar.MA, vilar.MR, vilar.A, vilar.R, vilar.C,
        ] = [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]];
        let (mut compiled, mut runtime) = (vilar.clone(), problem.clone());
        compiled.seed(1);
        runtime.seed(1);
        let same = times.iter().all(|&t| {
            compiled.advance_until(t);
            runtime.advance_until(t);
            (0..9).all(|s| compiled.counts()[s] == runtime.get_species(s))
        });
        same.then_some(Vilar(vilar))
    }

    /// One trajectory of `vilar` seeded by `seed` to the last of `times`, sampled at each: the
    /// sum of its counts at the end.
    pub(super) fn run(vilar: &Vilar, seed: u64, times: &[f64]) -> u64 {
        let mut p = vilar.0.clone();
        p.seed(seed);
        let samples: Vec<[isize; 9]> = times
            .iter()
            .map(|&t| {
                p.advance_until(t);
                p.counts()
            })
            .collect();
        samples.last().map_or(0, |c| c.iter().sum::<isize>() as u64)
    }
}

/// Times `trajectories` trajectories (at least one, after one warm-up of each) of ours and of
/// rebop's direct method on one thread, `points` outputs over [0, t_end]. Trajectory k has seed
/// 1000 + k in both (different streams: each draws with its own generator).
pub fn bench_cpu_vs_rebop(
    net: &Network,
    trajectories: u64,
    t_end: f64,
    points: usize,
) -> Result<RebopRow> {
    let times = super::run::output_times(t_end, points)?;
    let n = trajectories.max(1);
    // Built once, as rebop's problem (cloned per trajectory) and as an ensemble's tables.
    let tables = direct::DirectTables::new(net);
    let ours = |seed: u64| -> Result<u64> {
        let samples = direct::sample_direct(&tables, seed, t_end, &times)
            .map_err(|stop| stop.error(net, None))?;
        Ok(samples.last().map_or(0, |c| c.iter().sum()))
    };
    let problem = rebop_problem(net);
    let rebop = |seed: u64| -> u64 {
        let mut p = problem.clone();
        p.seed(seed);
        let samples: Vec<Vec<isize>> = times
            .iter()
            .map(|&t| {
                p.advance_until(t);
                (0..p.nb_species()).map(|s| p.get_species(s)).collect()
            })
            .collect();
        samples.last().map_or(0, |c| c.iter().sum::<isize>() as u64)
    };
    let compiled = compiled::vilar_compiled(net, &problem, &times);
    std::hint::black_box(ours(0)?);
    std::hint::black_box(rebop(0));
    // Alternating trajectories, so that a change in the machine's load hits both alike.
    let (mut ours_s, mut rebop_s, mut ours_sum, mut rebop_sum) = (0.0, 0.0, 0, 0);
    let mut compiled_s = 0.0;
    for k in 0..n {
        if let Some(vilar) = &compiled {
            let t0 = Instant::now();
            std::hint::black_box(compiled::run(vilar, 1000 + k, &times));
            compiled_s += t0.elapsed().as_secs_f64();
        }
        let t0 = Instant::now();
        ours_sum += std::hint::black_box(ours(1000 + k)?);
        ours_s += t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        rebop_sum += std::hint::black_box(rebop(1000 + k));
        rebop_s += t0.elapsed().as_secs_f64();
    }
    let ms = |s: f64| s * 1e3 / n as f64;
    let (ours_ms, rebop_ms) = (ms(ours_s), ms(rebop_s));
    let compiled_ms = compiled.as_ref().map(|_| ms(compiled_s));
    Ok(RebopRow {
        trajectories: n,
        ours_ms_per_trajectory: ours_ms,
        rebop_ms_per_trajectory: rebop_ms,
        ratio: ours_ms / rebop_ms,
        rebop_compiled_ms_per_trajectory: compiled_ms,
        ratio_compiled: compiled_ms.map(|c| ours_ms / c),
        ours_mean_final: ours_sum as f64 / n as f64,
        rebop_mean_final: rebop_sum as f64 / n as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_and_rebop_run_the_vilar_oscillator_alike() {
        let vilar = crate::reactions::json::read_network(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/vilar.json"),
        )
        .unwrap();
        let row = bench_cpu_vs_rebop(&vilar, 2, 5.0, 6).unwrap();
        assert_eq!(row.trajectories, 2);
        assert!(
            row.rebop_compiled_ms_per_trajectory.is_some(),
            "the compiled Vilar reproduces the run-time one"
        );
        assert!(row.ours_ms_per_trajectory > 0.0 && row.rebop_ms_per_trajectory > 0.0);
        assert!(
            row.ours_mean_final > 0.0 && row.rebop_mean_final > 0.0,
            "{row:?}"
        );
    }

    #[test]
    fn rebop_gets_our_propensities() {
        // 2A -> B, c = 0.001, A = 1000 at t = 0: dA/dt = -c A^2, so A + B is about 500 + 250
        // at t = 1 (667 if rebop were given c itself, twice the propensity).
        use crate::reactions::{Reaction, Species};
        let species = |id: &str, count| Species {
            id: id.into(),
            name: None,
            initial_count: count,
            boundary: false,
        };
        let net = Network {
            id: "dimers".into(),
            species: vec![species("A", 1000), species("B", 0)],
            reactions: vec![Reaction {
                id: "pair".into(),
                reactants: vec![(0, 2)],
                products: vec![(1, 1)],
                rate: 0.001,
            }],
            compartment_volume: None,
            plot: Vec::new(),
        };
        let row = bench_cpu_vs_rebop(&net, 20, 1.0, 2).unwrap();
        assert_eq!(
            row.rebop_compiled_ms_per_trajectory, None,
            "not Vilar's network"
        );
        for mean in [row.ours_mean_final, row.rebop_mean_final] {
            assert!((mean - 750.0).abs() < 15.0, "{row:?}");
        }
    }
}

/// One ensemble of the kinetic-law comparison (`bench_laws`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LawRow {
    /// "mass action", "Michaelis-Menten" or "Michaelis-Menten with 2 events".
    pub law: String,
    pub trajectories: u64,
    pub wall_s: f64,
    pub gpu_s: Option<f64>,
    /// Events per trajectory, expected: at stationarity births and deaths each come at rate
    /// lambda, so 2 lambda t_end.
    pub events_per_trajectory: f64,
    /// GPU time (wall without timestamps) per event.
    pub ns_per_event: f64,
}

/// Birth 0 -> X at 8 and death of X, by mass action (8 X / 60) or by Michaelis-Menten
/// (10 X / (15 + X), a general law on the GPU), both with the stationary mean 60 and started
/// there: the same events per unit time, so the time per event compares the kernels; and the
/// Michaelis-Menten network with two SBML events (the cost of their triggers).
pub fn bench_laws(
    ctx: &GpuContext,
    sizes: &[u64],
    t_end: f64,
    points: usize,
    options: &EnsembleOptions,
) -> Result<Vec<(Timing, LawRow)>> {
    use crate::reactions::general::{Assignment, Event, GeneralNetwork, Target};
    use crate::reactions::math::{Expr, Op};
    use crate::reactions::{Reaction, Species};
    let (lambda, vmax, km) = (8.0, 10.0, 15.0);
    let mean = lambda * km / (vmax - lambda);
    let reaction = |id: &str, reactants: Vec<(usize, u32)>, products, rate| Reaction {
        id: id.into(),
        reactants,
        products,
        rate,
    };
    let mass_action = Network {
        id: "birth-death".into(),
        species: vec![Species {
            id: "X".into(),
            name: None,
            initial_count: mean as u64,
            boundary: false,
        }],
        reactions: vec![
            reaction("make", vec![], vec![(0, 1)], lambda),
            reaction("degrade", vec![(0, 1)], vec![], lambda / mean),
        ],
        compartment_volume: None,
        plot: Vec::new(),
    };
    let x = Expr::Species {
        index: 0,
        scale: 1.0,
    };
    let law = Expr::Apply(
        Op::Divide,
        vec![
            Expr::Apply(Op::Times, vec![Expr::Num(vmax), x.clone()]),
            Expr::Apply(Op::Plus, vec![Expr::Num(km), x.clone()]),
        ],
    );
    let michaelis_menten = GeneralNetwork {
        network: mass_action.clone(),
        laws: vec![None, Some(law)],
        values: Vec::new(),
        initial_assignments: Vec::new(),
        rules: Vec::new(),
        events: Vec::new(),
    };
    // The same with two events that leave the rate of reactions as it is: X reset to its mean
    // at t_end / 2, and a state trigger (X > 200, 18 sd above the mean) evaluated after every
    // reaction.
    let reset = |id: &str, trigger: Expr| Event {
        id: id.into(),
        trigger,
        initial_value: false,
        persistent: true,
        delay: None,
        priority: None,
        use_values_from_trigger_time: false,
        assignments: vec![Assignment {
            target: Target::Species(0),
            expr: Expr::Num(mean),
            origin: format!("the assignment of {id}"),
        }],
        origin: format!("event {id}"),
    };
    let with_events = GeneralNetwork {
        events: vec![
            reset(
                "halfway",
                Expr::Apply(Op::Geq, vec![Expr::Time, Expr::Num(t_end / 2.0)]),
            ),
            reset(
                "burst",
                Expr::Apply(Op::Gt, vec![x.clone(), Expr::Num(200.0)]),
            ),
        ],
        ..michaelis_menten.clone()
    };
    let times: Vec<f64> = (0..points)
        .map(|k| t_end * k as f64 / (points.max(2) - 1) as f64)
        .collect();
    let options = EnsembleOptions {
        profile: true,
        ..options.clone()
    };
    let events = 2.0 * lambda * t_end;
    let mut rows = Vec::new();
    for (name, ens) in [
        (
            "mass action",
            GpuEnsemble::new(ctx, &mass_action, Method::Direct, &options)?,
        ),
        (
            "Michaelis-Menten",
            GpuEnsemble::new_general(ctx, &michaelis_menten, Method::Direct, &options)?,
        ),
        (
            "Michaelis-Menten with 2 events",
            GpuEnsemble::new_general(ctx, &with_events, Method::Direct, &options)?,
        ),
    ] {
        let mut case = EnsembleCase {
            ens,
            trajectories: 0,
            times: times.clone(),
            wall_s: 0.0,
        };
        for (i, &n) in sizes.iter().enumerate() {
            case.trajectories = n;
            let runs = Runs {
                warmup: (i == 0) as u32,
                repeats: 1,
            };
            let timing = measure(&mut case, runs)?;
            let gpu_s = case.ens.counters.gpu_ns.map(|ns| ns * 1e-9);
            let busy = gpu_s.unwrap_or(case.wall_s);
            let row = LawRow {
                law: name.into(),
                trajectories: n,
                wall_s: case.wall_s,
                gpu_s,
                events_per_trajectory: events,
                ns_per_event: busy * 1e9 / (events * n as f64),
            };
            rows.push((timing, row));
        }
    }
    Ok(rows)
}
