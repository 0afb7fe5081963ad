//! The random stream of one CPU trajectory: PCG64 seeded from the trajectory's seed, counting
//! its draws, so a checkpoint holds the stream as (seed, draws) and a resumed trajectory jumps
//! straight to where it stopped (PCG's `advance`) and draws the same numbers on. Every 64-bit
//! output counts as one draw, whatever it is made into (a uniform, or part of an exponential).

use rand_pcg::rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64;
use std::convert::Infallible;

#[derive(Clone, Debug)]
pub struct Stream {
    rng: Pcg64,
    draws: u64,
}

impl Stream {
    /// The stream of `seed` from its start.
    pub fn new(seed: u64) -> Self {
        Self::at(seed, 0)
    }

    /// The stream of `seed` after `draws` draws.
    pub fn at(seed: u64, draws: u64) -> Self {
        let mut rng = Pcg64::seed_from_u64(seed);
        rng.advance(draws as u128);
        Self { rng, draws }
    }

    /// Draws taken so far.
    pub fn draws(&self) -> u64 {
        self.draws
    }

    /// Uniform in [0, 1) from the top 53 bits of one draw.
    pub fn uniform(&mut self) -> f64 {
        self.draws += 1;
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exp(1) by rand_distr's `Exp1` (the ZIGNOR ziggurat): one draw about 99% of the time,
    /// more (each counted) when it rejects. Same stream, same numbers (rand_distr is pinned by
    /// Cargo.lock; its tables are constants).
    #[inline]
    pub fn exponential(&mut self) -> f64 {
        rand_distr::Distribution::<f64>::sample(&rand_distr::Exp1, self)
    }
}

/// rand_core 0.10's interface (rand_distr's) to the counted stream.
impl rand_core_010::TryRng for Stream {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.try_next_u64()? as u32)
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.draws += 1;
        Ok(self.rng.next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let bytes = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_resumed_at_its_draw_count_draws_the_same_numbers() {
        let mut a = Stream::new(42);
        let first: Vec<f64> = (0..7).map(|_| a.uniform()).collect();
        let rest: Vec<f64> = (0..5).map(|_| a.uniform()).collect();
        let mut b = Stream::at(42, 7);
        assert_eq!((0..5).map(|_| b.uniform()).collect::<Vec<_>>(), rest);
        assert_eq!(b.draws(), 12);
        assert!(first.iter().all(|u| (0.0..1.0).contains(u)));
        // The same numbers as PCG64 used directly (the streams of earlier versions).
        let mut rng = Pcg64::seed_from_u64(42);
        let direct = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        assert_eq!(direct, first[0]);
    }

    #[test]
    fn exponential_draws_have_mean_and_variance_one_and_are_counted() {
        let mut s = Stream::new(3);
        let n = 1_000_000;
        let (mut m, mut m2) = (0.0, 0.0);
        for _ in 0..n {
            let x = s.exponential();
            (m, m2) = (m + x, m2 + x * x);
        }
        let mean = m / n as f64;
        let var = m2 / n as f64 - mean * mean;
        // Standard errors: 1 / sqrt(n) for the mean, sqrt(8 / n) for the variance.
        assert!((mean - 1.0).abs() < 5e-3, "mean {mean}");
        assert!(
            (var - 1.0).abs() < 5.0 * (8.0 / n as f64).sqrt(),
            "variance {var}"
        );
        // Rejections take more draws (about 3% more), each counted, so a resumed stream
        // draws the same numbers on.
        assert!(
            s.draws() > n && s.draws() < n + n / 10,
            "{} draws",
            s.draws()
        );
        let mut resumed = Stream::at(3, s.draws());
        assert_eq!(resumed.exponential(), s.exponential());
    }
}
