//! Ensemble statistics: mean and sd of every species at every output time.
//!
//! Sums are exact: counts are whole numbers, so sum x and sum x^2 are kept as `u128` and the
//! mean and variance are formed once at the end. The result then does not depend on the order
//! in which trajectories are added (threads, GPU workgroups), and two runs with the same seed
//! give bitwise the same statistics.

/// Mean and sd of each species at each output time over `n` trajectories.
#[derive(Clone, Debug, PartialEq)]
pub struct EnsembleStats {
    pub times: Vec<f64>,
    /// Species ids, in the network's order.
    pub species: Vec<String>,
    /// Number of trajectories.
    pub n: u64,
    /// `mean[time][species]`.
    pub mean: Vec<Vec<f64>>,
    /// Sample standard deviation (denominator n - 1; 0 when n = 1), `sd[time][species]`.
    pub sd: Vec<Vec<f64>>,
}

/// Exact running sums of x and x^2 per (time, species), for building `EnsembleStats`.
#[derive(Clone, Debug, PartialEq)]
pub struct Accumulator {
    pub times: Vec<f64>,
    pub species: Vec<String>,
    pub n: u64,
    /// `sum[time][species]` of the counts.
    pub sum: Vec<Vec<u128>>,
    /// `sum_sq[time][species]` of the squared counts.
    pub sum_sq: Vec<Vec<u128>>,
}

impl Accumulator {
    pub fn new(times: &[f64], species: Vec<String>) -> Self {
        let zeros = vec![vec![0u128; species.len()]; times.len()];
        Self {
            times: times.to_vec(),
            species,
            n: 0,
            sum: zeros.clone(),
            sum_sq: zeros,
        }
    }

    /// Adds one trajectory: `samples[time][species]` counts.
    pub fn add(&mut self, samples: &[Vec<u64>]) {
        assert_eq!(
            samples.len(),
            self.times.len(),
            "one sample per output time"
        );
        for (k, counts) in samples.iter().enumerate() {
            self.add_row(k, counts);
        }
        self.n += 1;
    }

    /// Adds one trajectory to an accumulator of one output time: `counts[species]`.
    pub fn add_counts(&mut self, counts: &[u64]) {
        assert_eq!(self.times.len(), 1, "an accumulator of one output time");
        self.add_row(0, counts);
        self.n += 1;
    }

    fn add_row(&mut self, k: usize, counts: &[u64]) {
        assert_eq!(counts.len(), self.species.len(), "one count per species");
        for (s, &x) in counts.iter().enumerate() {
            self.sum[k][s] += x as u128;
            self.sum_sq[k][s] += x as u128 * x as u128;
        }
    }

    /// Adds the sums of another accumulator over the same times and species.
    pub fn merge(mut self, other: &Accumulator) -> Self {
        assert!(self.times == other.times && self.species == other.species);
        for (k, row) in other.sum.iter().enumerate() {
            for (s, &v) in row.iter().enumerate() {
                self.sum[k][s] += v;
                self.sum_sq[k][s] += other.sum_sq[k][s];
            }
        }
        self.n += other.n;
        self
    }

    /// Mean and sample sd. The numerator of the variance, n sum x^2 - (sum x)^2, is formed
    /// exactly in integers (it cannot go negative through rounding).
    pub fn finish(&self) -> EnsembleStats {
        let (mean, sd) = (0..self.times.len()).map(|k| self.row(k)).unzip();
        EnsembleStats {
            times: self.times.clone(),
            species: self.species.clone(),
            n: self.n,
            mean,
            sd,
        }
    }

    /// Mean and sample sd of every species at output time `k` (as in [`Self::finish`]).
    pub fn row(&self, k: usize) -> (Vec<f64>, Vec<f64>) {
        let n = self.n;
        let cell = |s: usize| -> (f64, f64) {
            if n == 0 {
                return (f64::NAN, f64::NAN);
            }
            let (sx, sxx) = (self.sum[k][s], self.sum_sq[k][s]);
            let mean = sx as f64 / n as f64;
            if n == 1 {
                return (mean, 0.0);
            }
            let numerator = n as u128 * sxx - sx * sx;
            let var = numerator as f64 / (n as f64 * (n - 1) as f64);
            (mean, var.sqrt())
        };
        (0..self.species.len()).map(cell).unzip()
    }
}

impl EnsembleStats {
    /// (1/n) sum (x - mu)^2 from the mean and sample sd: the population variance plus the
    /// squared offset of the mean from mu.
    pub(crate) fn mean_square_around(&self, k: usize, s: usize, mu: f64) -> f64 {
        let n = self.n as f64;
        let population_var = self.sd[k][s].powi(2) * (n - 1.0) / n;
        population_var + (self.mean[k][s] - mu).powi(2)
    }

    /// The two-sample z statistic of every mean against `other`'s (same times and species),
    /// (m - m') / sqrt(sd^2 / n + sd'^2 / n'), as `z[time][species]`; 0 where both ensembles
    /// agree exactly (no spread, same mean), infinite where they differ without spread.
    pub fn z_scores(&self, other: &EnsembleStats) -> Vec<Vec<f64>> {
        assert!(
            self.times == other.times && self.species == other.species,
            "z scores compare ensembles of the same times and species"
        );
        let (n, m) = (self.n as f64, other.n as f64);
        (0..self.times.len())
            .map(|k| {
                (0..self.species.len())
                    .map(|s| {
                        let d = self.mean[k][s] - other.mean[k][s];
                        let se = (self.sd[k][s].powi(2) / n + other.sd[k][s].powi(2) / m).sqrt();
                        if d == 0.0 {
                            0.0
                        } else {
                            d / se
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sums_give_mean_and_sample_sd() {
        let mut acc = Accumulator::new(&[0.0, 1.0], vec!["A".into(), "B".into()]);
        for x in [2u64, 4, 4, 4, 5, 5, 7, 9] {
            acc.add(&[vec![x, 3], vec![x * 1_000_000_000_000, 0]]);
        }
        let st = acc.finish();
        assert_eq!(st.n, 8);
        assert_eq!(st.mean[0], vec![5.0, 3.0]);
        // Sum of squared deviations 32 over n - 1 = 7.
        assert_eq!(st.sd[0][0], (32.0f64 / 7.0).sqrt());
        assert_eq!(st.sd[0][1], 0.0);
        // Large counts: no cancellation, the same sd scaled.
        assert_eq!(st.mean[1][0], 5e12);
        assert!((st.sd[1][0] / 1e12 - (32.0f64 / 7.0).sqrt()).abs() < 1e-15);

        // Merging halves gives the same as adding all.
        let mut a = Accumulator::new(&[0.0], vec!["A".into()]);
        let mut b = a.clone();
        a.add(&[vec![1]]);
        b.add(&[vec![2]]);
        b.add(&[vec![6]]);
        let st = a.merge(&b).finish();
        assert_eq!((st.n, st.mean[0][0], st.sd[0][0]), (3, 3.0, 7f64.sqrt()));

        // z of means 3 and 5 with sd sqrt(7) and sqrt(26/3) over 3 and 4 trajectories.
        let mut c = Accumulator::new(&[0.0], vec!["A".into()]);
        for x in [2u64, 3, 7, 8] {
            c.add(&[vec![x]]);
        }
        let other = c.finish();
        assert_eq!(other.sd[0][0], (26f64 / 3.0).sqrt());
        let z = st.z_scores(&other)[0][0];
        let expected = -2.0 / (7.0f64 / 3.0 + 26.0 / 12.0).sqrt();
        assert!((z - expected).abs() < 1e-12, "{z} {expected}");
        assert_eq!(st.z_scores(&st), vec![vec![0.0]]);
    }
}
