//! The tips' walk within one step, sampled exactly (uniformization).
//!
//! A tip moves along direction d at rate R_d = w_d / k, where w_d are A&C's move coefficients
//! r -+ a T clipped at 0 (common.wgsl, clip_moves). This continuous-time walk is the limit of
//! A&C's one-draw-per-step walk as k -> 0, and its law over a time t does not depend on k; the
//! per-step walk does wherever its weights saturate (next to the trails, where T is large).
//! With the fields held over the step, the walk takes a Poisson(L) number of events, L = Lambda k
//! (`AngioConfig::walk_events`) for a rate Lambda at least the total R at any site; at each event
//! it moves along d with probability w_d / L, else stays. A move changes the weights it reads.
//! The stays between moves are geometric, so they are drawn at once (`stays_before_move`): a
//! step costs two draws per move and one more, not one per event.
//! L's Poisson distribution is a table of 32-bit thresholds worked out here in f64 and read by
//! the CPU reference and the shaders alike, so both draw the same count from the same bits.

use crate::error::{invalid, Result};

/// The largest L (events per tip per step) a run may need; the table then has ~1400 entries.
pub const MAX_WALK_EVENTS: f64 = 1000.0;

/// Thresholds of the Poisson(L) distribution function: entry j is floor(2^32 P(N <= j)), up to
/// the first j where that reaches 2^32 - 1, which is the largest count drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkTable {
    thresholds: Vec<u32>,
}

impl WalkTable {
    /// The table for L = `events` (as the shaders see it, an f32), or an error naming dt when L
    /// is not a finite number in [0, MAX_WALK_EVENTS].
    pub fn new(events: f32) -> Result<Self> {
        let mean = events as f64;
        if !(0.0..=MAX_WALK_EVENTS).contains(&mean) {
            return Err(invalid(
                "dt",
                format!("a step with {mean:e} walk events per tip"),
                format!(
                    "a step whose tips' walk needs at most {MAX_WALK_EVENTS} events (L = k x the \
                     largest move rate; see docs/models/angiogenesis.md): a smaller dt"
                ),
            ));
        }
        // Weights relative to the mode, summed outward until they stop adding to the total: no
        // exp(-L) underflow for large L.
        let mode = mean.floor() as usize;
        let mut weights = vec![1.0f64];
        let mut w = 1.0;
        for j in (1..=mode).rev() {
            w *= j as f64 / mean;
            weights.push(w);
            if w < 1e-30 {
                break;
            }
        }
        weights.reverse();
        let below = weights.len() - 1; // entries before the mode
        let first = mode - below;
        let mut w = 1.0;
        let mut j = mode;
        loop {
            j += 1;
            w *= mean / j as f64;
            if w < 1e-30 {
                break;
            }
            weights.push(w);
        }
        let total: f64 = weights.iter().sum();
        let scale = 4294967296.0;
        let mut thresholds = vec![0u32; first];
        let mut cumulative = 0.0;
        for w in weights {
            cumulative += w / total;
            let t = (cumulative * scale).floor().min(u32::MAX as f64) as u32;
            thresholds.push(t);
            if t == u32::MAX {
                break;
            }
        }
        Ok(Self { thresholds })
    }

    /// The thresholds, as the shaders read them.
    pub fn thresholds(&self) -> &[u32] {
        &self.thresholds
    }

    /// The number of events for a uniform 32-bit draw: how many thresholds before the last are
    /// <= x (a binary search, `walk_count` of walk.wgsl).
    pub fn count(&self, x: u32) -> u32 {
        let (mut lo, mut hi) = (0u32, self.thresholds.len() as u32 - 1);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if x >= self.thresholds[mid as usize] {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// The stays before the next move when each event moves with probability `e0`: the largest m
/// with 1 - (1 - e0)^m < u, for u uniform in (0, 1], so P(m >= j) = (1 - e0)^j; at most 2047,
/// more than any step's events (L <= MAX_WALK_EVENTS). Binary descent over
/// e_i = 1 - (1 - e0)^(2^i), kept as complements so that a small e0 keeps its digits, with the
/// f32 operations of `stays_before_move` in walk.wgsl.
pub fn stays_before_move(e0: f32, u: f32) -> u32 {
    let mut e = [0f32; 11];
    e[0] = e0;
    for i in 1..11 {
        e[i] = e[i - 1] * (2.0 - e[i - 1]);
    }
    let (mut a, mut m) = (0f32, 0u32);
    for i in (0..11).rev() {
        let c = a + e[i] * (1.0 - a);
        if c < u {
            a = c;
            m += 1 << i;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// For u on a fine even grid of (0, 1], the fraction of stays >= j is (1 - e0)^j to 1e-5
    /// (plus the grid's 1/n), for move chances from 1e-4 to 1; e0 = 0 never moves.
    #[test]
    fn stays_are_geometric() {
        let n = 1 << 20;
        for e0 in [1e-4f32, 0.003, 0.1, 0.5, 0.97, 1.0] {
            let stays: Vec<u32> = (1..=n)
                .map(|i| stays_before_move(e0, i as f32 / n as f32))
                .collect();
            for j in [1u32, 2, 5, 20, 100, 1000] {
                let at_least = stays.iter().filter(|&&m| m >= j).count() as f64 / n as f64;
                let exact = (1.0 - e0 as f64).powi(j as i32);
                assert!(
                    (at_least - exact).abs() <= 1e-5 * exact.max(1e-3) * j as f64 + 2.0 / n as f64,
                    "e0 {e0}, j {j}: {at_least} against {exact}"
                );
            }
        }
        assert_eq!(stays_before_move(0.0, 1e-7), 2047);
        assert_eq!(stays_before_move(1.0, 1e-7), 0);
    }

    /// The count's distribution over all 2^32 draws (exactly: each threshold interval's width)
    /// has the Poisson mean and variance L, to 1e-6 relative, for small and large L.
    #[test]
    fn counts_are_poisson() {
        for mean in [0.0f32, 0.05, 1.0, 7.5, 53.4, 140.0, 999.0] {
            let table = WalkTable::new(mean).unwrap();
            let t = table.thresholds();
            let (mut m1, mut m2, mut below) = (0.0f64, 0.0f64, 0u64);
            for j in 0..t.len() {
                let above = if j + 1 == t.len() {
                    1 << 32
                } else {
                    t[j] as u64
                };
                let p = (above - below) as f64 / 4294967296.0;
                below = above;
                m1 += p * j as f64;
                m2 += p * (j * j) as f64;
            }
            let var = m2 - m1 * m1;
            let l = mean as f64;
            assert!((m1 - l).abs() <= 1e-6 * l.max(1.0), "L {l}: mean {m1}");
            assert!(
                (var - l).abs() <= 1e-6 * l.max(1.0),
                "L {l}: variance {var}"
            );
            // The search gives the count whose interval holds the draw.
            assert_eq!(
                table.count(0),
                t.iter().filter(|&&th| th == 0).count() as u32
            );
            assert_eq!(table.count(u32::MAX), t.len() as u32 - 1);
            for (j, &th) in t.iter().enumerate() {
                if th > 0 && (j == 0 || t[j - 1] < th) {
                    assert_eq!(table.count(th - 1), j as u32, "L {l}, j {j}");
                }
            }
        }
    }

    #[test]
    fn too_many_events_name_dt() {
        for bad in [f32::NAN, f32::INFINITY, -1.0, 1e4] {
            let e = WalkTable::new(bad).unwrap_err().to_string();
            assert!(e.contains("dt") && e.contains("smaller dt"), "{e}");
        }
    }
}
