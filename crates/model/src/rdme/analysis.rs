//! Analysis of a kymograph (counts of one species along z over time) for the Min oscillation:
//! pole-to-pole switching shows as anti-correlated counts in the two end thirds of the cell, a
//! period in the autocorrelation of their difference, and a time-averaged profile that is lowest
//! at mid-cell (Hallock 2014, Fange & Elf 2006). With the sites per plane of the species' site
//! type (the membrane for MinD_m) the profile is an occupancy, particles per site, so planes with
//! few such sites (a capsule's tips) are not mistaken for a minimum.

use serde::Serialize;

/// One kymograph row: the time in seconds and the counts in each z plane.
pub type KymographRow = (f64, Vec<u64>);

#[derive(Clone, Debug, Serialize)]
pub struct OscillationReport {
    /// Rows in the kymograph.
    pub samples: usize,
    /// Seconds discarded at the start (the transient) before the correlation, the period and
    /// the profile; 0 when the skip would leave fewer than `MIN_SAMPLES` rows.
    pub skip_s: f64,
    /// Rows used after the skip.
    pub samples_used: usize,
    /// First and last z plane that ever held a particle (None: the kymograph is empty).
    pub occupied_planes: Option<[usize; 2]>,
    /// Planes in each pole third: the left pole is the first `pole_planes` occupied planes, the
    /// right pole the last ones.
    pub pole_planes: usize,
    /// Pearson correlation of the left and right pole counts (None: either is constant).
    pub pole_correlation: Option<f64>,
    /// The poles are anti-correlated (negative correlation).
    pub anti_phase: bool,
    /// Period of the left - right difference from its autocorrelation (None: no peak).
    pub period_s: Option<f64>,
    /// Times (s) over the whole run at which the pattern changed pole: the left - right
    /// difference crossed zero and went on past half its standard deviation (over the rows
    /// used) on the other side, so noise around zero does not count. They alternate in sign.
    pub switches_s: Vec<f64>,
    /// Full periods between every other switch, `switches_s[i + 2] - switches_s[i]`: one per
    /// switch, so a start that settles slowly shows as long early periods.
    pub cycle_periods_s: Vec<f64>,
    /// Mean period from the switches at or after the skip: twice their mean spacing (None: fewer
    /// than three). A second estimate beside the autocorrelation, which weights every lag.
    pub switch_period_s: Option<f64>,
    /// Counts per z plane averaged over the rows used, per site when the sites per plane were
    /// given (0 in planes without such sites).
    pub profile: Vec<f64>,
    /// Mean profile over the middle third of the occupied planes over the mean over the two
    /// pole thirds (None: the poles are empty): well below 1 when the pattern avoids mid-cell.
    pub mid_to_pole_ratio: Option<f64>,
    /// Plane of the profile minimum over the occupied range (first one on ties).
    pub profile_min_plane: Option<usize>,
    /// The profile minimum lies in the middle third of the occupied range.
    pub lowest_at_mid_cell: bool,
    /// Polar asymmetry |L - R| / (L + R) at each row (0 when both poles are empty).
    pub time_s: Vec<f64>,
    pub asymmetry: Vec<f64>,
    pub mean_asymmetry: f64,
}

impl OscillationReport {
    /// The analysis of species `name` in a line or two.
    pub fn lines(&self, name: &str) -> Vec<String> {
        let show =
            |v: Option<f64>, unit: &str| v.map_or("none".into(), |x| format!("{x:.3}{unit}"));
        let mut lines = vec![format!(
            "{name}: pole correlation {}, period {} (autocorrelation) / {} (pole switches from \
             {:.1} s), lowest at mid-cell: {} (mid-cell / poles {})",
            show(self.pole_correlation, ""),
            show(self.period_s, " s"),
            show(self.switch_period_s, " s"),
            self.skip_s,
            if self.lowest_at_mid_cell { "yes" } else { "no" },
            show(self.mid_to_pole_ratio, "")
        )];
        if !self.cycle_periods_s.is_empty() {
            let cycles: Vec<String> = self
                .switches_s
                .iter()
                .zip(&self.cycle_periods_s)
                .map(|(t, p)| format!("{t:.1}: {p:.1}"))
                .collect();
            lines.push(format!(
                "full period from each pole switch (switch at s: period s): {}",
                cycles.join(", ")
            ));
        }
        lines
    }
}

/// Fewest rows worth a correlation or an autocorrelation.
pub const MIN_SAMPLES: usize = 4;

/// Analyses `rows` (time-ordered, equal lengths), discarding the first `skip_s` seconds (from
/// the first row's time) for the correlation, the period and the profile. `sites_per_plane`
/// (one per z plane) turns the profile into an occupancy; planes without sites are left out.
pub fn analyze(
    rows: &[KymographRow],
    skip_s: f64,
    sites_per_plane: Option<&[u64]>,
) -> OscillationReport {
    let planes = rows.first().map_or(0, |r| r.1.len());
    let has_sites = |z: usize| sites_per_plane.is_none_or(|s| s.get(z).copied().unwrap_or(0) > 0);
    let occupied: Vec<usize> = (0..planes)
        .filter(|&z| has_sites(z) && rows.iter().any(|r| r.1.get(z).copied().unwrap_or(0) > 0))
        .collect();
    let occupied_planes = occupied.first().zip(occupied.last()).map(|(&a, &b)| [a, b]);
    let span = occupied_planes.map_or(0, |[a, b]| b - a + 1);
    let pole_planes = (span / 3).max(1).min(span);

    // Pole signals over every row.
    let (left, right): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .map(|(_, counts)| match occupied_planes {
            Some([a, b]) => (
                sum(&counts[a..a + pole_planes]),
                sum(&counts[b + 1 - pole_planes..=b]),
            ),
            None => (0.0, 0.0),
        })
        .unzip();
    let asymmetry: Vec<f64> = left
        .iter()
        .zip(&right)
        .map(|(l, r)| {
            if l + r > 0.0 {
                (l - r).abs() / (l + r)
            } else {
                0.0
            }
        })
        .collect();

    // Skip the transient unless that leaves too little.
    let t0 = rows.first().map_or(0.0, |r| r.0);
    let mut from = rows
        .iter()
        .position(|r| r.0 - t0 >= skip_s)
        .unwrap_or(rows.len());
    if rows.len() - from < MIN_SAMPLES {
        from = 0;
    }
    let used = &rows[from..];
    let (l, r) = (&left[from..], &right[from..]);

    let pole_correlation = pearson(l, r);
    // The pole difference over every row; the period and the switch band from the rows used.
    let all_diff: Vec<f64> = left.iter().zip(&right).map(|(a, b)| a - b).collect();
    let diff = &all_diff[from..];
    let period_s = first_period_lag(diff).map(|lag| lag * median_spacing(used));
    let times: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let switches_s = pole_switches(&times, &all_diff, 0.5 * std_dev(diff));
    let cycle_periods_s: Vec<f64> = switches_s.windows(3).map(|w| w[2] - w[0]).collect();
    let start = used.first().map_or(t0, |r| r.0);
    let settled: Vec<f64> = switches_s.iter().copied().filter(|&t| t >= start).collect();
    let switch_period_s = (settled.len() >= 3)
        .then(|| 2.0 * (settled[settled.len() - 1] - settled[0]) / (settled.len() - 1) as f64);

    let mut profile = vec![0.0; planes];
    for (_, counts) in used {
        for (p, &c) in profile.iter_mut().zip(counts) {
            *p += c as f64 / used.len() as f64;
        }
    }
    if let Some(sites) = sites_per_plane {
        for (p, &n) in profile.iter_mut().zip(sites) {
            *p = if n > 0 { *p / n as f64 } else { 0.0 };
        }
    }
    let profile_min_plane = occupied_planes.map(|[a, b]| {
        (a..=b).fold(
            a,
            |best, z| if profile[z] < profile[best] { z } else { best },
        )
    });
    let lowest_at_mid_cell = match (occupied_planes, profile_min_plane) {
        (Some([a, b]), Some(z)) => span >= 3 && z >= a + pole_planes && z + pole_planes <= b,
        _ => false,
    };
    let mid_to_pole_ratio = occupied_planes.and_then(|[a, b]| {
        if span < 3 {
            return None;
        }
        let mean = |r: std::ops::Range<usize>| {
            let n = r.len() as f64;
            profile[r].iter().sum::<f64>() / n
        };
        let poles = 0.5 * (mean(a..a + pole_planes) + mean(b + 1 - pole_planes..b + 1));
        (poles > 0.0).then(|| mean(a + pole_planes..b + 1 - pole_planes) / poles)
    });
    let mean_asymmetry = if asymmetry.is_empty() {
        0.0
    } else {
        asymmetry.iter().sum::<f64>() / asymmetry.len() as f64
    };
    OscillationReport {
        samples: rows.len(),
        skip_s: used.first().map_or(0.0, |r| r.0 - t0),
        samples_used: used.len(),
        occupied_planes,
        pole_planes,
        anti_phase: pole_correlation.is_some_and(|c| c < 0.0),
        pole_correlation,
        period_s,
        switches_s,
        cycle_periods_s,
        switch_period_s,
        profile,
        mid_to_pole_ratio,
        profile_min_plane,
        lowest_at_mid_cell,
        time_s: times,
        asymmetry,
        mean_asymmetry,
    }
}

fn sum(counts: &[u64]) -> f64 {
    counts.iter().sum::<u64>() as f64
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn std_dev(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    let m = mean(x);
    (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64).sqrt()
}

/// Times at which `x` changes sign for good: after it has been beyond `-band` (or `+band`) it
/// must reach past the other side's band; the switch is its last zero crossing before that,
/// interpolated linearly between samples. The band keeps chatter around zero from counting.
pub fn pole_switches(t: &[f64], x: &[f64], band: f64) -> Vec<f64> {
    let mut switches = Vec::new();
    if band <= 0.0 {
        return switches;
    }
    // The side the signal was last seen beyond its band (0: not yet).
    let mut side = 0.0;
    for i in 0..x.len() {
        let now = if x[i] > band {
            1.0
        } else if x[i] < -band {
            -1.0
        } else {
            continue;
        };
        if side != 0.0 && now != side {
            // Walk back to the last sample still on the old side (or at zero).
            let mut j = i;
            while j > 0 && x[j - 1] * now > 0.0 {
                j -= 1;
            }
            let (a, b) = (x[j - 1], x[j]);
            switches.push(t[j - 1] + (t[j] - t[j - 1]) * a / (a - b));
        }
        side = now;
    }
    switches
}

/// Pearson correlation; None with too few samples or a constant signal.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < MIN_SAMPLES {
        return None;
    }
    let (mx, my) = (mean(x), mean(y));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The lag (in samples, refined between samples by a parabola) of the first local maximum of
/// the autocorrelation after its first zero crossing. The peak must stand above 3 / sqrt(n),
/// about three standard deviations of the autocorrelation of white noise, so that noise
/// alone does not give a period.
pub fn first_period_lag(x: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < MIN_SAMPLES {
        return None;
    }
    let m = mean(x);
    let d: Vec<f64> = x.iter().map(|v| v - m).collect();
    let var: f64 = d.iter().map(|v| v * v).sum();
    if var <= 0.0 {
        return None;
    }
    // The biased estimate (divided by the lag-0 sum) tapers with the lag, which keeps long
    // lags, averaged over few pairs, from showing spurious peaks.
    let max_lag = n / 2;
    let ac: Vec<f64> = (0..=max_lag)
        .map(|k| {
            d[..n - k]
                .iter()
                .zip(&d[k..])
                .map(|(a, b)| a * b)
                .sum::<f64>()
                / var
        })
        .collect();
    let zero = ac.iter().position(|&a| a <= 0.0)?;
    let peak = (zero.max(1)..max_lag).find(|&k| ac[k] > ac[k - 1] && ac[k] >= ac[k + 1])?;
    if ac[peak] < 3.0 / (n as f64).sqrt() {
        return None;
    }
    let (a, b, c) = (ac[peak - 1], ac[peak], ac[peak + 1]);
    let curvature = a - 2.0 * b + c;
    let shift = if curvature < 0.0 {
        0.5 * (a - c) / curvature
    } else {
        0.0
    };
    Some(peak as f64 + shift)
}

/// The median time between rows (observations are evenly spaced except perhaps at the ends).
fn median_spacing(rows: &[KymographRow]) -> f64 {
    let mut dt: Vec<f64> = rows.windows(2).map(|w| w[1].0 - w[0].0).collect();
    if dt.is_empty() {
        return 0.0;
    }
    dt.sort_by(f64::total_cmp);
    dt[dt.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts along 32 planes, empty in the first and last two (as the membrane caps of a
    /// cell), switching between the poles with phase `phase(t)` (radians), sampled every `dt_s`,
    /// plus `noise(plane)` added to each count.
    fn pattern(
        phase: impl Fn(f64) -> f64,
        dt_s: f64,
        samples: usize,
        mut noise: impl FnMut() -> u64,
    ) -> Vec<KymographRow> {
        (0..samples)
            .map(|i| {
                let t = i as f64 * dt_s;
                let phase = phase(t).cos();
                let counts = (0..32)
                    .map(|z| {
                        if !(2..30).contains(&z) {
                            return 0;
                        }
                        // x: -1 at the left pole, +1 at the right; nothing at mid-cell.
                        let x = (z as f64 - 15.5) / 13.5;
                        (100.0 * x * x * (1.0 + x * phase)).round() as u64 + noise()
                    })
                    .collect();
                (t, counts)
            })
            .collect()
    }

    fn pole_to_pole(period_s: f64, dt_s: f64, samples: usize) -> Vec<KymographRow> {
        let omega = 2.0 * std::f64::consts::PI / period_s;
        pattern(|t| omega * t, dt_s, samples, || 0)
    }

    /// A fixed linear congruential sequence of integers in 0..n.
    fn lcg(n: u64) -> impl FnMut() -> u64 {
        let mut state = 12345u64;
        move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        }
    }

    #[test]
    fn a_pole_to_pole_pattern_gives_its_period_anti_phase_and_a_mid_cell_minimum() {
        for period in [40.0, 63.0] {
            let r = analyze(&pole_to_pole(period, 0.5, 800), 20.0, None);
            assert_eq!(r.occupied_planes, Some([2, 29]));
            assert_eq!(r.pole_planes, 9);
            assert!(
                r.pole_correlation.unwrap() < -0.5,
                "{:?}",
                r.pole_correlation
            );
            assert!(r.anti_phase);
            let p = r.period_s.unwrap();
            assert!(
                (p - period).abs() < 0.05 * period,
                "period {p}, expected {period}"
            );
            // 400 s: a switch every half period from the first one at a quarter period.
            let expected = ((400.0 - period / 4.0) / (period / 2.0)).floor() as usize + 1;
            assert_eq!(r.switches_s.len(), expected, "{:?}", r.switches_s);
            assert!((r.switches_s[0] - period / 4.0).abs() < 0.01 * period);
            let q = r.switch_period_s.unwrap();
            assert!((q - period).abs() < 0.01 * period, "{q}, expected {period}");
            for c in &r.cycle_periods_s {
                assert!(
                    (c - period).abs() < 0.01 * period,
                    "{:?}",
                    r.cycle_periods_s
                );
            }
            assert!(r.lowest_at_mid_cell, "{:?}", r.profile);
            assert_eq!(r.samples_used, 760);
            assert!(r.mean_asymmetry > 0.3, "{}", r.mean_asymmetry);
        }
    }

    /// A start that settles slowly: the period shortens from 45 s to 30 s over the first 120 s,
    /// then stays at 30 s; counts carry noise that makes the pole difference chatter around zero.
    /// The cycle periods show the shortening, one switch is counted per real switch, and past
    /// the transient both estimates give 30 s.
    #[test]
    fn cycle_periods_follow_a_settling_period_and_ignore_chatter() {
        use std::f64::consts::PI;
        let phase = |t: f64| {
            // Period 45 - t / 8 up to 120 s: the phase is the integral of 2 pi / period.
            let early = |t: f64| -16.0 * PI * ((45.0 - t / 8.0) / 45.0).ln();
            if t < 120.0 {
                early(t)
            } else {
                early(120.0) + 2.0 * PI * (t - 120.0) / 30.0
            }
        };
        let rows = pattern(phase, 0.2, 2000, lcg(60));
        let r = analyze(&rows, 150.0, None);
        // The noise does make the raw difference chatter: it changes sign far more often than
        // the pattern switches.
        let diff: Vec<f64> = rows
            .iter()
            .map(|(_, c)| sum(&c[2..11]) - sum(&c[21..30]))
            .collect();
        let sign_changes = diff.windows(2).filter(|w| w[0] * w[1] < 0.0).count();
        assert!(sign_changes > 2 * r.switches_s.len(), "{sign_changes}");
        // The switches are where the phase passes pi/2 + k pi.
        let mut expected = Vec::new();
        let mut k = 0.0;
        for i in 1..4000 {
            let (a, b) = (phase((i - 1) as f64 * 0.1), phase(i as f64 * 0.1));
            if a < PI / 2.0 + k * PI && b >= PI / 2.0 + k * PI {
                expected.push(i as f64 * 0.1);
                k += 1.0;
            }
        }
        assert_eq!(r.switches_s.len(), expected.len(), "{:?}", r.switches_s);
        // The noise on the difference (standard deviation about 70) over its slope at a switch
        // (about 110 per s at the 45 s period) moves a switch by about 0.7 s.
        for (got, want) in r.switches_s.iter().zip(&expected) {
            assert!((got - want).abs() < 2.0, "{got} vs {want}");
        }
        let cycles = &r.cycle_periods_s;
        assert!(cycles[0] > 40.0 && cycles[0] < 45.0, "{cycles:?}");
        assert!((cycles[cycles.len() - 1] - 30.0).abs() < 1.0, "{cycles:?}");
        let q = r.switch_period_s.unwrap();
        assert!((q - 30.0).abs() < 0.3, "{q}");
        let p = r.period_s.unwrap();
        assert!((p - 30.0).abs() < 0.6, "{p}");
    }

    /// A capsule's tips have few membrane sites per plane: in counts the pattern below is lowest
    /// at the tips, in particles per site it is lowest at mid-cell.
    #[test]
    fn occupancy_per_site_finds_the_mid_cell_minimum_that_counts_hide() {
        let sites: Vec<u64> = (0..30)
            .map(|z| match z {
                0 | 29 => 0,
                1 | 28 => 4,
                2 | 27 => 20,
                _ => 60,
            })
            .collect();
        // Three per site at the poles, one per site in the middle.
        let per_site = |z: usize| if !(10..20).contains(&z) { 3 } else { 1 };
        let rows: Vec<KymographRow> = (0..50)
            .map(|i| {
                let counts = (0..30).map(|z| sites[z] * per_site(z)).collect();
                (i as f64, counts)
            })
            .collect();
        let counts_only = analyze(&rows, 0.0, None);
        assert_eq!(counts_only.profile_min_plane, Some(1));
        assert!(!counts_only.lowest_at_mid_cell);
        let r = analyze(&rows, 0.0, Some(&sites));
        assert_eq!(r.occupied_planes, Some([1, 28]));
        assert!(r.lowest_at_mid_cell, "{:?}", r.profile);
        assert!((r.profile[15] - 1.0).abs() < 1e-12, "{:?}", r.profile);
        assert!((r.profile[1] - 3.0).abs() < 1e-12, "{:?}", r.profile);
        assert!(
            r.mid_to_pole_ratio.unwrap() < 0.5,
            "{:?}",
            r.mid_to_pole_ratio
        );
    }

    #[test]
    fn a_constant_uniform_pattern_has_no_period() {
        let rows: Vec<KymographRow> = (0..200).map(|i| (i as f64 * 0.5, vec![5; 32])).collect();
        let r = analyze(&rows, 10.0, None);
        assert_eq!(r.period_s, None);
        assert!(r.switches_s.is_empty() && r.switch_period_s.is_none());
        assert_eq!(r.pole_correlation, None);
        assert!(!r.anti_phase);
        assert!(!r.lowest_at_mid_cell);
        assert_eq!(r.mean_asymmetry, 0.0);
    }

    #[test]
    fn noise_without_an_oscillation_has_no_period() {
        // Uniform counts with independent noise.
        let mut next = lcg(7);
        let rows: Vec<KymographRow> = (0..400)
            .map(|i| (i as f64, (0..30).map(|_| 3 + next()).collect()))
            .collect();
        let r = analyze(&rows, 0.0, None);
        assert_eq!(r.period_s, None);
        assert!(r.pole_correlation.unwrap().abs() < 0.3);
        // Noise crosses the band now and then, but gives no regular switching.
        assert!(
            r.switch_period_s.is_none_or(|q| q < 10.0),
            "{:?}",
            r.switches_s
        );
    }

    #[test]
    fn empty_and_short_kymographs_give_an_empty_report() {
        let r = analyze(&[], 1.0, None);
        assert_eq!((r.samples, r.occupied_planes, r.period_s), (0, None, None));
        let r = analyze(&[(0.0, vec![0, 0, 0]), (1.0, vec![0, 0, 0])], 0.0, None);
        assert_eq!(r.occupied_planes, None);
        assert!(!r.lowest_at_mid_cell);
        let r = analyze(&[(0.0, vec![0, 4, 0]), (1.0, vec![0, 2, 0])], 0.0, None);
        assert_eq!((r.occupied_planes, r.pole_planes), (Some([1, 1]), 1));
        assert_eq!(r.asymmetry, vec![0.0, 0.0]);
    }
}
