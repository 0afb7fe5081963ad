//! Why a CPU trajectory stops before its time, and the error it becomes. The CPU simulators
//! (`direct`, `odm`, `tau`) return a `Stop` instead of panicking or running forever: a count
//! that reaches `COUNT_LIMIT` (the GPU ensemble's limit), a total propensity that is not
//! finite, or a clock that cannot reach the next output time event by event (`MAX_EVENTS`).

use crate::error::{short, ModelError};
use crate::reactions::{Network, COUNT_LIMIT};

/// The most events, a0 x t, an exact step sequence may need to reach an output time t: 2^52.
/// Past it the mean step 1/a0 is below the resolution of f64 times near t (t x 2^-52), so the
/// clock would stop moving, and the run could not finish anyway. The bound depends only on
/// the state and the output time, never on a draw, so it stops no legitimate run by chance.
pub const MAX_EVENTS: f64 = 4_503_599_627_370_496.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    /// A count reached `COUNT_LIMIT` (or more) at time `t`.
    CountLimit { species: usize, count: u64, t: f64 },
    /// The total propensity `a0` is infinite or NaN at time `t`.
    InfinitePropensity { a0: f64, t: f64 },
    /// At time `t` the total propensity `a0` of event-by-event steps asks for more than
    /// `MAX_EVENTS` events before the output time `stop`.
    Stalled { a0: f64, t: f64, stop: f64 },
}

impl Stop {
    /// The error of this stop in `net`, naming the trajectory when known.
    pub fn error(&self, net: &Network, trajectory: Option<u64>) -> ModelError {
        let which = match trajectory {
            Some(i) => format!("trajectory {i}"),
            None => "the trajectory".to_string(),
        };
        match *self {
            Stop::CountLimit { species, count, t } => ModelError::Overflow {
                message: format!(
                    "species {:?} reached {count}, at or past the count limit 2^30 = \
                     {COUNT_LIMIT} of the simulators, in {which} at t = {}: the network grows \
                     without bound, or its counts are too large for a stochastic simulation",
                    net.species.get(species).map_or("?", |s| s.id.as_str()),
                    short(t)
                ),
            },
            Stop::InfinitePropensity { a0, t } => ModelError::Overflow {
                message: format!(
                    "the total propensity a0 = {a0} in {which} at t = {}: a rate constant or a \
                     count too large",
                    short(t)
                ),
            },
            Stop::Stalled { a0, t, stop } => ModelError::Stalled {
                message: format!(
                    "in {which} at t = {} the total propensity a0 = {} asks for about a0 x t = \
                     {} events to reach the output time t = {}, more than 2^52 (the resolution \
                     of the clock): rates too large for an event-by-event simulation",
                    short(t),
                    short(a0),
                    short(a0 * stop),
                    short(stop)
                ),
            },
        }
    }
}

/// Applies the net change `delta` of one firing at time `t`; counts must stay below
/// `COUNT_LIMIT`. A count cannot go negative: a reaction fires only when its reactants are
/// there (a negative result would be a bug, and is reported as a stop rather than a panic).
pub(crate) fn fire(counts: &mut [u64], delta: &[(usize, i64)], t: f64) -> Result<(), Stop> {
    for &(s, d) in delta {
        fire_one(counts, s, d, t)?;
    }
    Ok(())
}

/// Changes the count of species `s` by `d` (one entry of `fire`'s delta), returning the new
/// count.
#[inline]
pub(crate) fn fire_one(counts: &mut [u64], s: usize, d: i64, t: f64) -> Result<u64, Stop> {
    match counts[s].checked_add_signed(d) {
        Some(c) if c < COUNT_LIMIT => {
            counts[s] = c;
            Ok(c)
        }
        other => Err(Stop::CountLimit {
            species: s,
            count: other.unwrap_or(if d > 0 { u64::MAX } else { 0 }),
            t,
        }),
    }
}

/// Checks that every count is below `COUNT_LIMIT` (after a leap, or for restored counts).
pub(crate) fn check_counts(counts: &[u64], t: f64) -> Result<(), Stop> {
    match counts.iter().position(|&c| c >= COUNT_LIMIT) {
        Some(s) => Err(Stop::CountLimit {
            species: s,
            count: counts[s],
            t,
        }),
        None => Ok(()),
    }
}

/// The time of the next event after `t` for a total propensity `a0`: t + Exp(a0) from the
/// uniform in [0, 1) that `uniform` draws (only when a0 > 0), infinite when a0 = 0.
pub(crate) fn next_event_time(t: f64, a0: f64, uniform: impl FnOnce() -> f64) -> Result<f64, Stop> {
    // -(ln(1 - u)) / a0 = -(ln(1 - u) / a0) and t + -y = t - y exactly: the bits of
    // t - ln(1 - u) / a0.
    next_event_after(t, a0, || -(1.0 - uniform()).ln())
}

/// `next_event_time` with Exp(1) drawn by `exp1` (the direct method's ziggurat): t + e / a0.
#[inline]
pub(crate) fn next_event_after(t: f64, a0: f64, exp1: impl FnOnce() -> f64) -> Result<f64, Stop> {
    if !a0.is_finite() {
        return Err(Stop::InfinitePropensity { a0, t });
    }
    if a0 <= 0.0 {
        return Ok(f64::INFINITY);
    }
    Ok(t + exp1() / a0)
}

/// Checks, before an event at time `t`, that event-by-event steps with total propensity `a0`
/// can reach the output time `stop` (`MAX_EVENTS`).
pub(crate) fn check_resolvable(a0: f64, t: f64, stop: f64) -> Result<(), Stop> {
    match a0 * stop > MAX_EVENTS {
        true => Err(Stop::Stalled { a0, t, stop }),
        false => Ok(()),
    }
}
