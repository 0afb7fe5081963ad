//! CPU ensembles: many trajectories of one network in parallel (rayon), each seeded from the
//! ensemble seed and its index, summed exactly into `EnsembleStats`; and the `Method` names
//! shared with the GPU ensemble.

use super::stats::{Accumulator, EnsembleStats};
use crate::error::{invalid, Result};
use crate::reactions::Network;

/// Checks that `times` are usable output times: finite, >= 0, ascending, at least one.
pub fn check_times(times: &[f64]) -> Result<()> {
    if times.is_empty() {
        return Err(invalid("times", "[]", "at least one output time"));
    }
    for (k, &t) in times.iter().enumerate() {
        if !(t.is_finite() && t >= 0.0) || (k > 0 && t < times[k - 1]) {
            let allowed = "finite times >= 0 in ascending order";
            return Err(invalid(&format!("times[{k}]"), t, allowed));
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
/// worker threads, in no fixed order): for progress bars and trajectory files.
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
    // The ODM search order and dependency graph are built once for all trajectories.
    let odm = (method == Method::Odm).then(|| super::odm::Odm::new(net, t_end));
    let species: Vec<String> = net.species.iter().map(|s| s.id.clone()).collect();
    let empty = || Accumulator::new(times, species.clone());
    let total = (0..n)
        .into_par_iter()
        .fold(empty, |mut acc, i| {
            let s = trajectory_seed(seed, i);
            let samples = match (&odm, method) {
                (Some(odm), _) => odm.simulate(net, s, t_end, times),
                (None, Method::Tau) => super::tau::simulate_tau(net, s, t_end, times),
                (None, _) => super::direct::simulate_direct(net, s, t_end, times),
            };
            on_trajectory(i, &samples);
            acc.add(&samples);
            acc
        })
        .reduce(empty, |a, b| a.merge(&b));
    Ok(total.finish())
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
