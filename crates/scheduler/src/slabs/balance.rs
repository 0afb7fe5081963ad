//! Load balancing of a slab decomposition: slab boundaries move toward the faster devices when
//! that saves more time than the move costs.

use super::split::proportional_split;
use std::time::Duration;

/// When and how readily the balancer moves slab boundaries.
#[derive(Clone, Debug, PartialEq)]
pub struct BalanceOptions {
    /// Steps between decisions; 0: never rebalance.
    pub every: u64,
    /// Smallest relative imbalance of busy times (slowest / fastest - 1) that moves a boundary.
    pub threshold: f64,
    /// Time a move must save to be made; None: what the last rebuild cost (measured).
    pub move_cost: Option<Duration>,
}

/// What the balancer decided, and why.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Busy times within the threshold of each other (or not measured).
    Balanced,
    /// Planes in proportion to speed give the split there is.
    Unchanged,
    /// The new split would save less time over the horizon than a move costs.
    NotWorthIt {
        split: Vec<u32>,
        saving: Duration,
        cost: Duration,
    },
    /// Move to this split.
    Move(Vec<u32>),
}

/// Busy time per device since the last decision, and the decision rule: each device gets planes
/// in proportion to its measured speed (planes per second of busy time), when the slowest and
/// fastest differ by more than the threshold and the time the new split would save over the
/// horizon (the steps left in the current advance, at least one balancing interval) exceeds
/// the move cost.
#[derive(Clone, Debug)]
pub struct Balancer {
    pub options: BalanceOptions,
    busy: Vec<Duration>,
    steps: u64,
    /// Wall time of the last rebuild (the price of a move when `move_cost` is None).
    pub rebuild_cost: Duration,
}

impl Balancer {
    pub fn new(options: BalanceOptions, devices: usize) -> Self {
        Self {
            options,
            busy: vec![Duration::ZERO; devices],
            steps: 0,
            rebuild_cost: Duration::ZERO,
        }
    }

    /// Whether a decision is due after `steps` more steps.
    pub fn due_after(&self, steps: u32) -> bool {
        self.options.every > 0 && self.steps + steps as u64 >= self.options.every
    }

    /// Adds each device's busy time over `steps` steps.
    pub fn record(&mut self, busy: &[Duration], steps: u32) {
        for (total, b) in self.busy.iter_mut().zip(busy) {
            *total += *b;
        }
        self.steps += steps as u64;
    }

    /// Decides on `split` from the busy times since the last decision (which start over), with
    /// `steps_left` steps to go in the current advance.
    pub fn decide(&mut self, split: &[u32], steps_left: u64) -> Decision {
        let window = self.steps.max(1);
        let times: Vec<f64> = self.busy.iter().map(|d| d.as_secs_f64()).collect();
        self.busy.iter_mut().for_each(|d| *d = Duration::ZERO);
        self.steps = 0;
        let (lo, hi) = times
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &t| (lo.min(t), hi.max(t)));
        if lo <= 0.0 || hi / lo - 1.0 < self.options.threshold {
            return Decision::Balanced;
        }
        let speed: Vec<f64> = split
            .iter()
            .zip(&times)
            .map(|(&p, &t)| p as f64 / t)
            .collect();
        let planes: u32 = split.iter().sum();
        let new = proportional_split(planes, &speed);
        if new == split {
            return Decision::Unchanged;
        }
        // Devices run in parallel: a step lasts as long as the slowest; balanced, all take
        // planes / (sum of speeds).
        let balanced = planes as f64 / speed.iter().sum::<f64>();
        let horizon = steps_left.max(self.options.every) as f64 / window as f64;
        let saving = (hi - balanced) * horizon;
        let cost = self.options.move_cost.unwrap_or(self.rebuild_cost);
        if saving <= cost.as_secs_f64() {
            return Decision::NotWorthIt {
                split: new,
                saving: Duration::from_secs_f64(saving.max(0.0)),
                cost,
            };
        }
        Decision::Move(new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(m: u64) -> Duration {
        Duration::from_millis(m)
    }

    fn balancer(every: u64, threshold: f64, move_cost: Option<Duration>) -> Balancer {
        let options = BalanceOptions {
            every,
            threshold,
            move_cost,
        };
        Balancer::new(options, 2)
    }

    #[test]
    fn a_decision_is_due_every_so_many_steps_and_never_at_zero() {
        let mut b = balancer(10, 0.05, None);
        assert!(!b.due_after(9));
        assert!(b.due_after(10));
        b.record(&[ms(1), ms(1)], 6);
        assert!(b.due_after(4));
        assert!(!b.due_after(3));
        assert!(!balancer(0, 0.05, None).due_after(1000));
    }

    #[test]
    fn the_slower_device_gives_planes_in_proportion_to_speed() {
        // Device 0 takes 3 times as long for the same planes: speeds 1 : 3.
        let mut b = balancer(10, 0.05, Some(Duration::ZERO));
        b.record(&[ms(30), ms(10)], 10);
        assert_eq!(b.decide(&[8, 8], 100), Decision::Move(vec![4, 12]));
        // The window starts over: nothing measured since.
        assert_eq!(b.decide(&[4, 12], 100), Decision::Balanced);
    }

    #[test]
    fn imbalance_within_the_threshold_or_an_unchanged_split_moves_nothing() {
        let mut b = balancer(10, 0.05, Some(Duration::ZERO));
        b.record(&[ms(104), ms(100)], 10);
        assert_eq!(b.decide(&[8, 8], 100), Decision::Balanced);
        // 6% apart, but planes in proportion (4.2 and 11.8) round to the same split.
        b.record(&[ms(100), ms(106)], 10);
        assert_eq!(b.decide(&[4, 12], 100), Decision::Unchanged);
    }

    #[test]
    fn a_move_must_save_more_than_it_costs_over_the_horizon() {
        // Speeds 8/0.030 and 8/0.010 planes per s: balanced, a window of 10 steps takes
        // 16 / (1066.7 / s) = 15 ms instead of 30 ms: 1.5 ms per step saved.
        let decide = |steps_left, cost| {
            let mut b = balancer(10, 0.05, Some(cost));
            b.record(&[ms(30), ms(10)], 10);
            b.decide(&[8, 8], steps_left)
        };
        // 100 steps left: 150 ms saved.
        assert_eq!(decide(100, ms(140)), Decision::Move(vec![4, 12]));
        match decide(100, ms(160)) {
            Decision::NotWorthIt {
                split,
                saving,
                cost,
            } => {
                assert_eq!(split, vec![4, 12]);
                assert!((saving.as_secs_f64() - 0.150).abs() < 1e-9, "{saving:?}");
                assert_eq!(cost, ms(160));
            }
            other => panic!("{other:?}"),
        }
        // Fewer steps left than a balancing interval: the horizon is one interval (15 ms).
        assert_eq!(decide(3, ms(14)), Decision::Move(vec![4, 12]));
        assert!(matches!(decide(3, ms(16)), Decision::NotWorthIt { .. }));
    }

    #[test]
    fn without_a_move_cost_the_last_rebuild_is_the_price() {
        let mut b = balancer(10, 0.05, None);
        b.rebuild_cost = ms(200);
        b.record(&[ms(30), ms(10)], 10);
        assert!(matches!(
            b.decide(&[8, 8], 100),
            Decision::NotWorthIt { .. }
        ));
        b.rebuild_cost = ms(100);
        b.record(&[ms(30), ms(10)], 10);
        assert_eq!(b.decide(&[8, 8], 100), Decision::Move(vec![4, 12]));
    }
}
