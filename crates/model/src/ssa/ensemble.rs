//! CPU ensembles: many trajectories of one network in parallel (rayon), each seeded from the
//! ensemble seed and its index, summed exactly into `EnsembleStats`, either each to its end
//! (`run_ensemble_cpu`) or all together from one output time to the next (`CpuEnsemble`); and
//! the `Method` names shared with the GPU ensemble.

use super::direct::{DirectTables, DirectTrajectory};
use super::odm::{Odm, OdmTrajectory};
use super::stats::{Accumulator, EnsembleStats};
use super::stream::Stream;
use super::tau::{Tables, TauTrajectory};
use crate::error::{invalid, short, Result};
use crate::reactions::Network;

/// Checks that `times` are usable output times: finite, >= 0, ascending, at least one.
pub fn check_times(times: &[f64]) -> Result<()> {
    if times.is_empty() {
        return Err(invalid("times", "[]", "at least one output time"));
    }
    for (k, &t) in times.iter().enumerate() {
        if !(t.is_finite() && t >= 0.0) || (k > 0 && t < times[k - 1]) {
            let allowed = "finite times >= 0 in ascending order";
            return Err(invalid(&format!("times[{k}]"), short(t), allowed));
        }
    }
    Ok(())
}

/// A CPU or GPU simulation method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Gillespie's direct method (exact).
    Direct,
    /// The optimized direct method: frequency-ordered search, dependency graph (exact).
    Odm,
    /// Tau-leaping with Cao-Gillespie-Petzold 2006 step selection (approximate).
    Tau,
}

impl Method {
    pub const ALL: [Method; 3] = [Method::Direct, Method::Odm, Method::Tau];

    /// "direct", "odm" or "tau".
    pub fn name(self) -> &'static str {
        match self {
            Method::Direct => "direct",
            Method::Odm => "odm",
            Method::Tau => "tau",
        }
    }

    /// Parses a name; `field` labels the error.
    pub fn parse(field: &str, name: &str) -> Result<Method> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| invalid(field, format!("{name:?}"), "direct, odm or tau"))
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The seed of trajectory `index` of an ensemble seeded with `seed`: splitmix64 of the pair,
/// so neighbouring seeds and indices give unrelated streams.
pub fn trajectory_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0xbf58_476d_1ce4_e5b9)
        .wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `n` CPU trajectories of `net` by `method`, sampled at `times` (ascending, >= 0; the last is
/// the end time), in parallel over trajectories (rayon). Trajectory i is seeded with
/// `trajectory_seed(seed, i)`; the sums are exact, so the result does not depend on threads.
pub fn run_ensemble_cpu(
    net: &Network,
    method: Method,
    n: u64,
    seed: u64,
    times: &[f64],
) -> Result<EnsembleStats> {
    run_ensemble_cpu_with(net, method, n, seed, times, &|_, _| {})
}

/// `run_ensemble_cpu`, calling `on_trajectory(i, samples)` for each finished trajectory (from
/// worker threads, in no fixed order): for progress bars and trajectory files. A trajectory
/// that stops (`super::stop`: count limit, infinite propensity, a clock that cannot move) ends
/// the ensemble with an error naming it; the others stop as soon as rayon can tell them.
pub fn run_ensemble_cpu_with(
    net: &Network,
    method: Method,
    n: u64,
    seed: u64,
    times: &[f64],
    on_trajectory: &(dyn Fn(u64, &[Vec<u64>]) + Sync),
) -> Result<EnsembleStats> {
    use rayon::prelude::*;
    net.validate()?;
    check_times(times)?;
    if n == 0 {
        return Err(invalid("trajectories", 0, "at least 1"));
    }
    let t_end = *times.last().expect("checked non-empty");
    // The ODM search order and dependency graph, and the direct method's tables, are built
    // once for all trajectories.
    let odm = (method == Method::Odm).then(|| super::odm::Odm::new(net, t_end));
    let direct = (method == Method::Direct).then(|| DirectTables::new(net));
    let species: Vec<String> = net.species.iter().map(|s| s.id.clone()).collect();
    let empty = || Accumulator::new(times, species.clone());
    let total = (0..n)
        .into_par_iter()
        .try_fold(empty, |mut acc, i| {
            let s = trajectory_seed(seed, i);
            let samples = match (&odm, &direct) {
                (Some(odm), _) => odm.simulate(net, s, t_end, times),
                (_, Some(tables)) => super::direct::sample_direct(tables, s, t_end, times),
                (None, None) => super::tau::sample_tau(net, s, t_end, times).map(|r| r.0),
            }
            .map_err(|stop| stop.error(net, Some(i)))?;
            on_trajectory(i, &samples);
            acc.add(&samples);
            Ok::<_, crate::error::ModelError>(acc)
        })
        .try_reduce(empty, |a, b| Ok(a.merge(&b)))?;
    Ok(total.finish())
}

/// One CPU trajectory of an ensemble, paused at an output time.
#[derive(Clone, Debug)]
pub enum Trajectory {
    Direct(DirectTrajectory),
    Odm(OdmTrajectory),
    Tau(TauTrajectory),
}

impl Trajectory {
    pub fn counts(&self) -> &[u64] {
        match self {
            Trajectory::Direct(t) => &t.counts,
            Trajectory::Odm(t) => &t.counts,
            Trajectory::Tau(t) => &t.counts,
        }
    }
}

/// What a method builds once for all the trajectories of an ensemble.
enum Plan {
    Direct(DirectTables),
    Odm(Odm),
    Tau(Tables),
}

/// A whole CPU ensemble held in memory, moved from one output time to the next together (so
/// a run can observe, and checkpoint, between output times). Trajectory i is seeded with
/// `trajectory_seed(seed, i)` and draws the same numbers as in `run_ensemble_cpu`, so both give
/// the same trajectories.
pub struct CpuEnsemble {
    net: Network,
    plan: Plan,
    pub trajectories: Vec<Trajectory>,
    /// The index of `trajectories[0]` in the whole ensemble (a rank's share starts past 0).
    pub first: u64,
}

impl CpuEnsemble {
    /// `n` trajectories of `net` by `method` at time 0, seeded from `seed`; `t_end` is the last
    /// output time (the ODM presimulation runs to it). `net` is expected to be valid.
    pub fn new(net: &Network, method: Method, n: u64, seed: u64, t_end: f64) -> Self {
        Self::share(net, method, 0..n, seed, t_end)
    }

    /// The trajectories `range` of an ensemble seeded from `seed` (a rank's share): each
    /// seeded by its index in the whole ensemble, as in [`CpuEnsemble::new`].
    pub fn share(
        net: &Network,
        method: Method,
        range: std::ops::Range<u64>,
        seed: u64,
        t_end: f64,
    ) -> Self {
        let mut ensemble = Self::empty(net, method, t_end);
        ensemble.first = range.start;
        ensemble.trajectories = range
            .map(|i| ensemble.start(net, Stream::new(trajectory_seed(seed, i))))
            .collect();
        ensemble
    }

    /// An ensemble of `trajectories` (e.g. restored from a checkpoint) of `net` by `method`.
    pub fn with_trajectories(
        net: &Network,
        method: Method,
        t_end: f64,
        trajectories: Vec<Trajectory>,
    ) -> Self {
        let mut ensemble = Self::empty(net, method, t_end);
        ensemble.trajectories = trajectories;
        ensemble
    }

    fn empty(net: &Network, method: Method, t_end: f64) -> Self {
        let plan = match method {
            Method::Direct => Plan::Direct(DirectTables::new(net)),
            Method::Odm => Plan::Odm(Odm::new(net, t_end)),
            Method::Tau => Plan::Tau(Tables::new(net)),
        };
        Self {
            net: net.clone(),
            plan,
            trajectories: Vec::new(),
            first: 0,
        }
    }

    /// A trajectory at time 0 drawing from `stream`.
    pub fn start(&self, net: &Network, stream: Stream) -> Trajectory {
        match &self.plan {
            Plan::Direct(tables) => Trajectory::Direct(DirectTrajectory::new(tables, stream)),
            Plan::Odm(odm) => Trajectory::Odm(odm.start(net, stream)),
            Plan::Tau(_) => Trajectory::Tau(TauTrajectory::new(net, stream)),
        }
    }

    /// Moves every trajectory to time `t` (in parallel) and returns the exact sums of the
    /// counts there, as one output time of an `Accumulator` (species named `species`). A
    /// trajectory that stops (`super::stop`) is an error naming it; the ensemble is then
    /// left partly moved and is not to be advanced further.
    pub fn advance_to(&mut self, t: f64, species: &[String]) -> Result<Accumulator> {
        use rayon::prelude::*;
        let (net, plan, first) = (&self.net, &self.plan, self.first);
        let empty = || Accumulator::new(&[t], species.to_vec());
        self.trajectories
            .par_iter_mut()
            .enumerate()
            .try_fold(empty, |mut acc, (i, trajectory)| {
                match (plan, &mut *trajectory) {
                    (Plan::Direct(tables), Trajectory::Direct(tr)) => tr.advance_to(tables, t),
                    (Plan::Odm(odm), Trajectory::Odm(tr)) => odm.advance_to(net, tr, t),
                    (Plan::Tau(tables), Trajectory::Tau(tr)) => tr.advance_to(net, tables, t),
                    _ => unreachable!("every trajectory is of the ensemble's method"),
                }
                .map_err(|stop| stop.error(net, Some(first + i as u64)))?;
                acc.add_counts(trajectory.counts());
                Ok(acc)
            })
            .try_reduce(empty, |a, b| Ok(a.merge(&b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa::dsmts::dsmts_case;

    /// The same seed gives bitwise the same statistics on one thread and on several, and
    /// trajectory seeds differ between neighbouring indices and seeds.
    #[test]
    fn ensembles_do_not_depend_on_threads() {
        let net = dsmts_case("00030").unwrap().network().unwrap();
        let times = [0.0, 5.0, 10.0];
        let run = |threads: usize, method: Method| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| run_ensemble_cpu(&net, method, 300, 9, &times).unwrap())
        };
        for method in Method::ALL {
            let one = run(1, method);
            assert_eq!(one, run(3, method), "{method}");
            assert_eq!(one.n, 300);
        }
        assert_ne!(trajectory_seed(1, 0), trajectory_seed(1, 1));
        assert_ne!(trajectory_seed(1, 0), trajectory_seed(2, 0));
        assert_ne!(trajectory_seed(0, 1), trajectory_seed(1, 0));
        let e = run_ensemble_cpu(&net, Method::Tau, 0, 1, &times).unwrap_err();
        assert!(e.to_string().contains("trajectories = 0"), "{e}");
        let e = run_ensemble_cpu(&net, Method::Tau, 1, 1, &[1.0, 0.5]).unwrap_err();
        assert!(e.to_string().contains("times[1] = 0.5"), "{e}");
        assert_eq!(Method::parse("m", "odm").unwrap(), Method::Odm);
        assert!(Method::parse("m", "exact")
            .unwrap_err()
            .to_string()
            .contains("m = \"exact\""));
    }
}
