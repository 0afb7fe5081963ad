//! Tau-leaping on the CPU with the step selection of Cao, Gillespie & Petzold, J. Chem. Phys.
//! 124, 044109 (2006): the reference the GPU tau-leapers are checked against statistically.
//! Kept as a plain transcription of the paper's algorithm, one step per loop turn:
//!
//! 1. Critical reactions: those that can fire (a_j > 0) but would exhaust a reactant within
//!    fewer than `N_CRITICAL` firings (L_j = min over consumed species of x_i / |v_ij|).
//! 2. tau' from the non-critical reactions: for every species that is a reactant,
//!    tau' = min(max(eps x_i / g_i, 1) / |mu_i|, max(eps x_i / g_i, 1)^2 / sigma_i^2) with
//!    mu_i = sum_j v_ij a_j, sigma_i^2 = sum_j v_ij^2 a_j over non-critical j, eps = `EPSILON`,
//!    and g_i from the highest order of the reactions consuming i: 1 for first order, 2 for
//!    second order, 2 + 1/(x_i - 1) when species i is consumed as 2A. tau' is also bounded so
//!    that no propensity is expected to change by more than eps a0 over the leap (Gillespie &
//!    Petzold 2003; `Tables::propensity_bound`): the species bound alone lets a species below
//!    g_i / eps molecules change by one, which can switch on a fast bimolecular reaction.
//! 3. If tau' < `SSA_FACTOR` / a0 a leap would fire only a few reactions: take up to `SSA_STEPS`
//!    exact (direct-method) steps instead.
//! 4. tau'' ~ Exp(a0 of the critical reactions). The leap is tau = min(tau', tau''); when tau''
//!    is the smaller, exactly one critical reaction fires (chosen by propensity).
//! 5. Each non-critical reaction fires Poisson(a_j tau) times (normal approximation when a_j tau
//!    >= `POISSON_NORMAL_MEAN`).
//! 6. A leap that would make any count negative is rejected and retried with half the step
//!    (tau' = tau / 2, back to 3). Counts are never clamped.
//!
//! A leap never crosses an output time: it is shortened to end there (the critical firing is
//! then not taken, which the exponential's lack of memory makes exact), so every sample is the
//! state at exactly its time.

use super::stop::{check_counts, check_resolvable, fire, Stop};
use super::stream::Stream;
use crate::error::{invalid, Result};
use crate::reactions::Network;

/// Error control parameter epsilon.
pub const EPSILON: f64 = 0.03;
/// A reaction within fewer firings than this of exhausting a reactant is critical (n_c).
pub const N_CRITICAL: u64 = 10;
/// Exact steps instead of a leap when tau' < SSA_FACTOR / a0 ...
pub const SSA_FACTOR: f64 = 10.0;
/// ... this many of them (Cao, Gillespie & Petzold use 100).
pub const SSA_STEPS: u32 = 100;
/// Poisson counts with a mean at or above this are drawn as round(mean + sqrt(mean) z), z
/// standard normal, redrawn if negative (probability < 1e-7 there); below it, exactly by
/// inversion. At 30 the normal's skewness error (1/sqrt(30) = 0.18) is within what a leap with
/// eps = 0.03 already approximates, and f32 GPU code can still evaluate exp(-30).
pub const POISSON_NORMAL_MEAN: f64 = 30.0;

/// Refuses a leap condition the step selection cannot use, naming the field (the options of
/// the GPU leapers: 0 < epsilon < 1, n_critical >= 1, normal_above in 1..=1000).
pub(crate) fn check_leap_condition(epsilon: f64, n_critical: u32, normal_above: f64) -> Result<()> {
    if !(epsilon > 0.0 && epsilon < 1.0) {
        return Err(invalid("epsilon", epsilon, "0 < epsilon < 1 (CGP: 0.03)"));
    }
    if n_critical == 0 {
        return Err(invalid("n_critical", n_critical, ">= 1 (CGP: 10)"));
    }
    if !(1.0..=1000.0).contains(&normal_above) {
        return Err(invalid("normal_above", normal_above, "1..=1000"));
    }
    Ok(())
}

/// What a tau-leaping run did, for diagnostics and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TauCounters {
    /// Accepted leaps.
    pub leaps: u64,
    /// Leaps rejected because a count would have gone negative.
    pub rejected: u64,
    /// Exact single-reaction steps taken instead of leaps.
    pub ssa_steps: u64,
}

/// The per-network tables of the step selection, built once for all the trajectories of an
/// ensemble.
pub struct Tables {
    changes: Vec<Vec<(usize, i64)>>,
    /// Per species: 0 if no reaction consumes it as a reactant, else the highest order of
    /// such a reaction.
    highest_order: Vec<u32>,
    /// Per species: consumed as 2A by some second-order reaction.
    pair: Vec<bool>,
    /// Per reaction: its rate constant and reactants (species, stoichiometry), for the
    /// propensity bound.
    kinetics: Vec<(f64, Vec<(usize, u32)>)>,
}

impl Tables {
    pub fn new(net: &Network) -> Self {
        let mut highest_order = vec![0; net.species.len()];
        let mut pair = vec![false; net.species.len()];
        for r in &net.reactions {
            for &(s, nu) in &r.reactants {
                if net.species[s].boundary {
                    continue;
                }
                highest_order[s] = highest_order[s].max(r.order());
                pair[s] |= nu == 2;
            }
        }
        Tables {
            changes: net.state_changes(),
            highest_order,
            pair,
            kinetics: net
                .reactions
                .iter()
                .map(|r| (r.rate, r.reactants.clone()))
                .collect(),
        }
    }

    /// g_i of CGP 2006 eq. (27) for orders up to 2.
    fn g(&self, s: usize, x: u64) -> f64 {
        match self.highest_order[s] {
            1 => 1.0,
            _ if self.pair[s] && x >= 2 => 2.0 + 1.0 / (x - 1) as f64,
            _ => 2.0,
        }
    }

    /// L_j: how many times reaction j can fire before a reactant runs out (u64::MAX if it
    /// consumes nothing).
    fn firings_left(&self, j: usize, counts: &[u64]) -> u64 {
        self.changes[j]
            .iter()
            .filter(|&&(_, d)| d < 0)
            .map(|&(s, d)| counts[s] / d.unsigned_abs())
            .min()
            .unwrap_or(u64::MAX)
    }

    /// The state after a leap of `tau`: Poisson(a_j tau) firings of every non-critical reaction
    /// and one of `critical_firing`, if given. None if a count would end negative (the sum
    /// over all firings is checked, not each in turn); a count past u64 is u64::MAX (the
    /// caller stops at the count limit).
    fn leap(
        &self,
        counts: &[u64],
        a: &[f64],
        critical: &[bool],
        tau: f64,
        critical_firing: Option<usize>,
        draws: &mut Draws,
    ) -> Option<Vec<u64>> {
        let mut next: Vec<i128> = counts.iter().map(|&x| x as i128).collect();
        for j in (0..a.len()).filter(|&j| !critical[j] && a[j] > 0.0) {
            let k = draws.poisson(a[j] * tau) as i128;
            for &(s, d) in &self.changes[j] {
                next[s] += d as i128 * k;
            }
        }
        for &(s, d) in critical_firing.map_or(&[][..], |j| &self.changes[j]) {
            next[s] += d as i128;
        }
        next.into_iter()
            .map(|x| (x >= 0).then(|| u64::try_from(x).unwrap_or(u64::MAX)))
            .collect()
    }

    /// tau' from the non-critical reactions (infinite if none can fire): the smaller of the
    /// species bound of CGP 2006 and the propensity bound of Gillespie & Petzold 2003.
    fn tau_prime(&self, counts: &[u64], a: &[f64], critical: &[bool]) -> f64 {
        let n = counts.len();
        let (mut mu, mut var) = (vec![0.0; n], vec![0.0; n]);
        for (j, delta) in self.changes.iter().enumerate() {
            if critical[j] || a[j] == 0.0 {
                continue;
            }
            for &(s, d) in delta {
                mu[s] += d as f64 * a[j];
                var[s] += (d * d) as f64 * a[j];
            }
        }
        let mut tau = f64::INFINITY;
        for s in (0..n).filter(|&s| self.highest_order[s] > 0) {
            let bound = (EPSILON * counts[s] as f64 / self.g(s, counts[s])).max(1.0);
            if mu[s] != 0.0 {
                tau = tau.min(bound / mu[s].abs());
            }
            if var[s] != 0.0 {
                tau = tau.min(bound * bound / var[s]);
            }
        }
        let a0: f64 = a.iter().sum();
        tau.min(self.propensity_bound(counts, a0, &mu, &var))
    }

    /// The largest leap over which no propensity is expected to change by more than
    /// `EPSILON` a0 (Gillespie & Petzold, J. Chem. Phys. 119, 8229 (2003)), from the species'
    /// drifts `mu` and variances `var` over the leap's reactions. Every reaction is bounded,
    /// those with a = 0 or critical too: the species bound lets a count below g / eps change
    /// by one molecule, which is harmless alone but, for A + R -> C with R = 0 and A = 1000,
    /// turns on a propensity of c A = 2000 within the leap (Vilar's sequestration): the leap
    /// then carries R molecules to its end that the exact process binds within 1 / (c A).
    /// d a_j / d x_i is taken as the change from one more molecule, c C(x_k, nu_k) times
    /// 1 (nu_i = 1) or x_i (nu_i = 2); the standard deviation of the change of a_j is bounded
    /// by sum_i |d a_j / d x_i| sigma_i (covariances between reactants included).
    fn propensity_bound(&self, counts: &[u64], a0: f64, mu: &[f64], var: &[f64]) -> f64 {
        let allowed = EPSILON * a0;
        let mut tau = f64::INFINITY;
        for (rate, reactants) in &self.kinetics {
            let (mut drift, mut sd) = (0.0, 0.0);
            for (i, &(s, nu)) in reactants.iter().enumerate() {
                let step = if nu == 1 { 1.0 } else { counts[s] as f64 };
                let others = reactants
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| k != i)
                    .fold(*rate, |p, (_, &(t, mu_t))| p * binomial(counts[t], mu_t));
                let partial = step * others;
                drift += partial * mu[s];
                sd += partial * var[s].sqrt();
            }
            if drift != 0.0 {
                tau = tau.min(allowed / drift.abs());
            }
            if sd != 0.0 {
                tau = tau.min(allowed * allowed / (sd * sd));
            }
        }
        tau
    }
}

/// C(x, nu) for nu = 1 or 2 (like `Reaction::propensity`).
fn binomial(x: u64, nu: u32) -> f64 {
    let x = x as f64;
    match nu {
        1 => x,
        _ => x * (x - 1.0).max(0.0) / 2.0,
    }
}

/// Uniform doubles in [0, 1) and the draws built on them.
struct Draws<'a>(&'a mut Stream);

impl Draws<'_> {
    fn uniform(&mut self) -> f64 {
        self.0.uniform()
    }

    /// Exponential with rate `rate` (> 0).
    fn exponential(&mut self, rate: f64) -> f64 {
        -(1.0 - self.uniform()).ln() / rate
    }

    /// Standard normal by Box-Muller (one of the pair).
    fn normal(&mut self) -> f64 {
        let r = (-2.0 * (1.0 - self.uniform()).ln()).sqrt();
        r * (std::f64::consts::TAU * self.uniform()).cos()
    }

    /// Poisson with mean `mean` (see `POISSON_NORMAL_MEAN`); u64::MAX for an infinite mean
    /// (the caller stops at the count limit).
    fn poisson(&mut self, mean: f64) -> u64 {
        if mean <= 0.0 || mean.is_nan() {
            return 0;
        }
        if mean == f64::INFINITY {
            return u64::MAX;
        }
        if mean >= POISSON_NORMAL_MEAN {
            loop {
                let k = (mean + mean.sqrt() * self.normal()).round();
                if k >= 0.0 {
                    return k as u64;
                }
            }
        }
        // Inversion: the smallest k with P(K <= k) > u. Stops when the terms underflow, so a
        // u above the rounded total still ends.
        let u = self.uniform();
        let (mut k, mut p) = (0u64, (-mean).exp());
        let mut cdf = p;
        while u >= cdf && p > 0.0 {
            k += 1;
            p *= mean / k as f64;
            cdf += p;
        }
        k
    }

    /// The index whose cumulative weight first passes u * total, over entries with `take`.
    fn pick(&mut self, a: &[f64], take: impl Fn(usize) -> bool, total: f64) -> usize {
        let target = self.uniform() * total;
        let (mut cumulative, mut last) = (0.0, None);
        for (j, &w) in a.iter().enumerate() {
            if w > 0.0 && take(j) {
                cumulative += w;
                last = Some(j);
                if cumulative > target {
                    break;
                }
            }
        }
        last.expect("a positive total has an entry")
    }
}

/// One tau-leaping trajectory: the counts at each of `sample_times` (ascending within
/// [0, t_end]), like `ssa::simulate_direct`. A count that reaches the count limit, or a run
/// that cannot advance, is an error (`super::stop`).
pub fn simulate_tau(
    net: &Network,
    seed: u64,
    t_end: f64,
    sample_times: &[f64],
) -> Result<Vec<Vec<u64>>> {
    Ok(simulate_tau_counted(net, seed, t_end, sample_times)?.0)
}

/// `simulate_tau` and what it did.
pub fn simulate_tau_counted(
    net: &Network,
    seed: u64,
    t_end: f64,
    sample_times: &[f64],
) -> Result<(Vec<Vec<u64>>, TauCounters)> {
    sample_tau(net, seed, t_end, sample_times).map_err(|stop| stop.error(net, None))
}

/// `simulate_tau_counted`, stopping with the `Stop` (the ensemble names the trajectory).
pub(crate) fn sample_tau(
    net: &Network,
    seed: u64,
    t_end: f64,
    sample_times: &[f64],
) -> std::result::Result<(Vec<Vec<u64>>, TauCounters), Stop> {
    assert!(
        sample_times.windows(2).all(|w| w[0] <= w[1])
            && sample_times.iter().all(|&t| (0.0..=t_end).contains(&t)),
        "sample times must be ascending within [0, t_end = {t_end}]"
    );
    let tables = Tables::new(net);
    let mut trajectory = TauTrajectory::new(net, Stream::new(seed));
    let samples = sample_times
        .iter()
        .map(|&t| {
            trajectory.advance_to(net, &tables, t)?;
            Ok(trajectory.counts.clone())
        })
        .collect::<std::result::Result<_, Stop>>()?;
    Ok((samples, trajectory.counters))
}

/// A tau-leaping trajectory at a sample time: counts, time and random stream are its whole
/// state (a leap never crosses a sample time), so a copy continues bitwise.
#[derive(Clone, Debug)]
pub struct TauTrajectory {
    pub counts: Vec<u64>,
    pub t: f64,
    pub stream: Stream,
    pub counters: TauCounters,
}

impl TauTrajectory {
    /// The trajectory at time 0 from the initial counts.
    pub fn new(net: &Network, stream: Stream) -> Self {
        Self {
            counts: net.initial_counts(),
            t: 0.0,
            stream,
            counters: TauCounters::default(),
        }
    }

    /// Steps to time `stop` (no step crosses it); nothing when already there.
    pub fn advance_to(
        &mut self,
        net: &Network,
        tables: &Tables,
        stop: f64,
    ) -> std::result::Result<(), Stop> {
        check_counts(&self.counts, self.t)?;
        let mut draws = Draws(&mut self.stream);
        let (counts, counters) = (&mut self.counts, &mut self.counters);
        let mut t = self.t;
        let mut a = vec![0.0; net.reactions.len()];
        let mut critical = vec![false; net.reactions.len()];
        while t < stop {
            for (j, r) in net.reactions.iter().enumerate() {
                a[j] = r.propensity(counts);
                critical[j] = a[j] > 0.0 && tables.firings_left(j, counts) < N_CRITICAL;
            }
            let a0: f64 = a.iter().sum();
            if !a0.is_finite() {
                self.t = t;
                return Err(Stop::InfinitePropensity { a0, t });
            }
            if a0 == 0.0 {
                t = stop;
                continue;
            }
            let mut tau_prime = tables.tau_prime(counts, &a, &critical);
            loop {
                if tau_prime < SSA_FACTOR / a0 {
                    // A few exact steps, propensities recomputed after each.
                    if let Err(e) = check_resolvable(a0, t, stop) {
                        self.t = t;
                        return Err(e);
                    }
                    for _ in 0..SSA_STEPS {
                        let total: f64 =
                            net.reactions
                                .iter()
                                .zip(a.iter_mut())
                                .fold(0.0, |sum, (r, a)| {
                                    *a = r.propensity(counts);
                                    sum + *a
                                });
                        let dt = match total > 0.0 {
                            true => draws.exponential(total),
                            false => f64::INFINITY,
                        };
                        if t + dt >= stop {
                            t = stop;
                            break;
                        }
                        let j = draws.pick(&a, |_| true, total);
                        if let Err(e) = fire(counts, &tables.changes[j], t + dt) {
                            self.t = t;
                            return Err(e);
                        }
                        t += dt;
                        counters.ssa_steps += 1;
                    }
                    break;
                }
                let a0_critical: f64 = (0..a.len()).filter(|&j| critical[j]).map(|j| a[j]).sum();
                // Critical reactions fire one at a time, like exact steps.
                if let Err(e) = check_resolvable(a0_critical, t, stop) {
                    self.t = t;
                    return Err(e);
                }
                let tau_critical = match a0_critical > 0.0 {
                    true => draws.exponential(a0_critical),
                    false => f64::INFINITY,
                };
                let mut tau = tau_prime.min(tau_critical);
                let mut fire_critical = tau_critical <= tau_prime;
                let shortened = t + tau >= stop;
                if shortened {
                    tau = stop - t;
                    fire_critical = false;
                }
                let critical_firing =
                    fire_critical.then(|| draws.pick(&a, |j| critical[j], a0_critical));
                let Some(next) =
                    tables.leap(counts, &a, &critical, tau, critical_firing, &mut draws)
                else {
                    counters.rejected += 1;
                    tau_prime = tau / 2.0;
                    continue;
                };
                let t_next = if shortened { stop } else { t + tau };
                if let Err(e) = check_counts(&next, t_next) {
                    self.t = t;
                    return Err(e);
                }
                if t_next == t && !fire_critical {
                    // A leap of tau' too short to move the clock (a critical firing at the
                    // same time is a legitimate event).
                    self.t = t;
                    return Err(Stop::Stalled { a0, t, stop });
                }
                *counts = next;
                t = t_next;
                counters.leaps += 1;
                break;
            }
        }
        self.t = t;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reactions::{Reaction, Species};

    type Side = Vec<(usize, u32)>;

    fn net(species: Vec<(&str, u64)>, reactions: Vec<(Side, Side, f64)>) -> Network {
        Network {
            id: "t".into(),
            species: species
                .into_iter()
                .map(|(id, c)| Species {
                    id: id.into(),
                    name: None,
                    initial_count: c,
                    boundary: false,
                })
                .collect(),
            reactions: reactions
                .into_iter()
                .enumerate()
                .map(|(j, (reactants, products, rate))| Reaction {
                    id: format!("r{j}"),
                    reactants,
                    products,
                    rate,
                })
                .collect(),
            compartment_volume: None,
            plot: Vec::new(),
        }
    }

    #[test]
    fn step_selection_follows_cao_gillespie_petzold() {
        // A -> 0 (c = 1), 2A -> B (c = 0.001), 0 -> A (c = 10).
        let n = net(
            vec![("A", 1000), ("B", 0)],
            vec![
                (vec![(0, 1)], vec![], 1.0),
                (vec![(0, 2)], vec![(1, 1)], 0.001),
                (vec![], vec![(0, 1)], 10.0),
            ],
        );
        let tables = Tables::new(&n);
        assert_eq!(tables.highest_order, vec![2, 0]);
        assert!(tables.pair[0]);
        assert_eq!(tables.g(0, 1000), 2.0 + 1.0 / 999.0);
        assert_eq!(tables.firings_left(0, &[1000, 0]), 1000);
        assert_eq!(tables.firings_left(1, &[1000, 0]), 500);
        assert_eq!(tables.firings_left(2, &[1000, 0]), u64::MAX);
        let counts = [1000, 0];
        let a: Vec<f64> = n.reactions.iter().map(|r| r.propensity(&counts)).collect();
        // mu_A = -1000 - 2 * 499.5 + 10, sigma^2_A = 1000 + 4 * 499.5 + 10.
        let (mu, var) = (-1989.0f64, 3008.0f64);
        let bound = EPSILON * 1000.0 / (2.0 + 1.0 / 999.0);
        let expected = (bound / mu.abs()).min(bound * bound / var);
        let tau = tables.tau_prime(&counts, &a, &[false; 3]);
        assert!(
            (tau - expected).abs() < 1e-15 * expected,
            "{tau} {expected}"
        );
        // With every reaction critical there is no bound.
        assert_eq!(tables.tau_prime(&counts, &a, &[true; 3]), f64::INFINITY);
    }

    #[test]
    fn a_leap_is_judged_by_its_total_change() {
        // A -> 0 at c = 1 and 0 -> A at c = 20, from A = 5.
        let n = net(
            vec![("A", 5)],
            vec![(vec![(0, 1)], vec![], 1.0), (vec![], vec![(0, 1)], 20.0)],
        );
        let tables = Tables::new(&n);
        let mut stream = Stream::new(1);
        let mut d = Draws(&mut stream);
        let a = [5.0, 20.0];
        // Only the decay over tau = 10: about 50 firings from 5 molecules, rejected.
        assert_eq!(
            tables.leap(&[5], &a, &[false, true], 10.0, None, &mut d),
            None
        );
        // Both: the decay alone would go below zero, the immigration makes up for it.
        let next = tables
            .leap(&[5], &a, &[false; 2], 10.0, None, &mut d)
            .unwrap();
        assert!((100..300).contains(&next[0]), "{next:?}");
        // A critical firing counts too: one decay from 0 is negative.
        assert_eq!(
            tables.leap(&[0], &[0.0, 0.0], &[true, false], 1.0, Some(0), &mut d),
            None
        );
        assert_eq!(
            tables.leap(&[1], &[0.0, 0.0], &[true, false], 1.0, Some(0), &mut d),
            Some(vec![0])
        );
    }

    #[test]
    fn poisson_draws_have_the_right_mean_and_variance() {
        let mut stream = Stream::new(5);
        let mut d = Draws(&mut stream);
        for mean in [0.3, 4.0, 29.0, 30.0, 500.0] {
            let n = 200_000;
            let xs: Vec<f64> = (0..n).map(|_| d.poisson(mean) as f64).collect();
            let m = xs.iter().sum::<f64>() / n as f64;
            let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64;
            // 5 standard errors of the mean and of the variance (var of s^2 ~ 2 mean^2 / n
            // + mean / n for a Poisson).
            let se_v = ((2.0 * mean * mean + mean) / n as f64).sqrt();
            assert!(
                (m - mean).abs() < 5.0 * (mean / n as f64).sqrt(),
                "{mean}: mean {m}"
            );
            // The normal branch rounds: its variance is mean + 1/12.
            let extra = if mean >= POISSON_NORMAL_MEAN {
                1.0 / 12.0
            } else {
                0.0
            };
            assert!(
                (v - mean - extra).abs() < 5.0 * se_v,
                "{mean}: variance {v}"
            );
        }
    }

    #[test]
    fn leaps_happen_and_counts_stay_valid() {
        // Large birth-death: leaps rather than exact steps; X stays near 10^4.
        let n = net(
            vec![("X", 10_000)],
            vec![(vec![], vec![(0, 1)], 1000.0), (vec![(0, 1)], vec![], 0.1)],
        );
        let times: Vec<f64> = (0..=10).map(|k| k as f64).collect();
        let (a, c) = simulate_tau_counted(&n, 9, 10.0, &times).unwrap();
        assert_eq!(a.len(), 11);
        // Near equilibrium the drift is small and tau' long: leaps end at the output times.
        assert!(c.leaps >= 10 && c.ssa_steps == 0, "{c:?}");
        assert!(a.iter().all(|x| (9_000..11_000).contains(&x[0])), "{a:?}");
        assert_eq!(
            a,
            simulate_tau(&n, 9, 10.0, &times).unwrap(),
            "same seed, same run"
        );
        // From 1000 towards 10^4 the drift bounds the leaps: many short ones.
        let mut low = n.clone();
        low.species[0].initial_count = 1000;
        let (a, c) = simulate_tau_counted(&low, 9, 10.0, &times).unwrap();
        assert!(c.leaps > 50 && c.ssa_steps < 1000, "{c:?}");
        // The mean is 10^4 - 9000 e^(-t/10): 6689 at t = 10, sd about 80.
        assert!((6_300..7_100).contains(&a[10][0]), "{a:?}");

        // Dimerisation down to the last molecules: critical reactions and exact steps keep
        // every count valid (a negative count would panic in `fire` or be rejected).
        let n = net(
            vec![("P", 200), ("P2", 0)],
            vec![(vec![(0, 2)], vec![(1, 1)], 0.01)],
        );
        let (a, c) = simulate_tau_counted(&n, 1, 50.0, &[0.0, 50.0]).unwrap();
        assert_eq!(a[1][0] + 2 * a[1][1], 200, "{a:?} {c:?}");
        assert!(a[1][0] < 100, "most paired by t = 50: {a:?}");
        assert!(c.ssa_steps > 0);
    }

    /// On a stiff network (tests/data/sequestration.json: R made at 10 per hour once a gene is
    /// on and bound by A ~ 1000 at 200 per hour and molecule) tau-leaping agrees with the
    /// exact method: every mean at t = 0.25..1 within 4 standard errors over 4000
    /// trajectories each (fixed seeds). The species bound alone let leaps carry the R made
    /// in them to their end: mean R 0.28 against 0.032 at t = 1 (z = 26).
    #[test]
    fn tau_leaping_matches_the_exact_method_on_a_stiff_sequestration() {
        use crate::ssa::ensemble::{run_ensemble_cpu, Method};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sequestration.json");
        let n = crate::reactions::json::read_network(std::path::Path::new(path)).unwrap();
        let times = [0.0, 0.25, 0.5, 0.75, 1.0];
        let exact = run_ensemble_cpu(&n, Method::Direct, 4000, 11, &times).unwrap();
        let tau = run_ensemble_cpu(&n, Method::Tau, 4000, 12, &times).unwrap();
        let z = tau.z_scores(&exact);
        println!("R: tau {:?}, exact {:?}, z {z:?}", tau.mean, exact.mean);
        assert!(z.iter().flatten().all(|z| z.abs() < 4.0), "{z:?}");
        // Tau-leaping still leaps on it (over A's birth-death before the gene is on).
        let mut leaps = 0;
        for seed in 0..20 {
            leaps += simulate_tau_counted(&n, seed, 1.0, &times).unwrap().1.leaps;
        }
        assert!(leaps > 20, "{leaps} leaps in 20 trajectories");
    }
}
