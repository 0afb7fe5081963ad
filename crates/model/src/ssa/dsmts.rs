//! The DSMTS checks: the SBML stochastic test suite's cases (settings, analytic mean and sd)
//! and its pass rule, applied to any simulator's `EnsembleStats`.
//!
//! # Pass rule (MODELS.md, the suite's own guide)
//!
//! With n trajectories, at every output time and for every variable with sigma > 0:
//! Z = sqrt(n) (mean - mu) / sigma in (-3, 3) and Y = sqrt(n/2) (s^2 / sigma^2 - 1) in (-5, 5),
//! where s^2 = (1/n) sum (x - mu)^2 is taken around the analytic mean mu. A variable with
//! sigma = 0 (the start, a fixed species) must match mu exactly with sd 0.

use super::ensemble::{run_ensemble_cpu, Method};
use super::stats::EnsembleStats;
use crate::error::{ModelError, Result};
use crate::reactions::general::GeneralNetwork;
use crate::reactions::{dsmts_dir, sbml, Network};
use std::path::{Path, PathBuf};

/// DSMTS settings (`<case>-settings.txt`): output times and the variables checked.
#[derive(Clone, Debug, PartialEq)]
pub struct DsmtsSettings {
    pub start: f64,
    pub duration: f64,
    pub steps: u32,
    /// Species ids whose mean and sd are given.
    pub variables: Vec<String>,
}

/// One DSMTS case: its settings, the analytic results and where its SBML model is.
#[derive(Clone, Debug, PartialEq)]
pub struct DsmtsCase {
    /// "00001" .. "00039".
    pub case: String,
    pub settings: DsmtsSettings,
    /// start + k duration / steps, k = 0..=steps (the rows of the results file).
    pub times: Vec<f64>,
    /// `mu[time][variable]`, variables as in `settings.variables`.
    pub mu: Vec<Vec<f64>>,
    /// `sigma[time][variable]`.
    pub sigma: Vec<Vec<f64>>,
    pub sbml: PathBuf,
}

/// Z and Y of one variable at one output time.
#[derive(Clone, Debug, PartialEq)]
pub struct DsmtsScore {
    pub variable: String,
    pub t: f64,
    pub mean: f64,
    pub sd: f64,
    pub z: f64,
    pub y: f64,
}

impl DsmtsScore {
    /// |Z| < 3 (the mean).
    pub fn z_passes(&self) -> bool {
        self.z.abs() < Z_BOUND
    }

    /// |Z| < 3 and |Y| < 5; NaN fails.
    pub fn passes(&self) -> bool {
        self.z_passes() && self.y.abs() < Y_BOUND
    }

    pub fn describe(&self, case: &str) -> String {
        let (id, t) = (&self.variable, self.t);
        match self.z.is_infinite() && self.y.is_infinite() {
            true => format!(
                "{case} {id} t={t}: mean {}, sd {}; exact values expected (sigma = 0)",
                self.mean, self.sd
            ),
            false => format!("{case} {id} t={t}: Z = {:.2}, Y = {:.2}", self.z, self.y),
        }
    }
}

/// The Z and Y bounds of the pass rule.
pub const Z_BOUND: f64 = 3.0;
pub const Y_BOUND: f64 = 5.0;

/// The case `case` ("00001") from `dsmts_dir()`.
pub fn dsmts_case(case: &str) -> Result<DsmtsCase> {
    dsmts_case_in(&dsmts_dir(), case)
}

/// All 39 case names, "00001" ..= "00039".
pub fn dsmts_case_names() -> Vec<String> {
    (1..=39).map(|n| format!("{n:05}")).collect()
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ModelError + '_ {
    move |source| ModelError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn parse_error(path: &Path, message: String) -> ModelError {
    ModelError::Parse {
        path: path.display().to_string(),
        message,
    }
}

/// Reads `<dir>/<case>/<case>-settings.txt` and `<case>-results.csv`.
pub fn dsmts_case_in(dir: &Path, case: &str) -> Result<DsmtsCase> {
    let base = dir.join(case);
    let settings_path = base.join(format!("{case}-settings.txt"));
    let text = std::fs::read_to_string(&settings_path).map_err(io_error(&settings_path))?;
    let settings = parse_settings(&text, &settings_path)?;

    let results_path = base.join(format!("{case}-results.csv"));
    let text = std::fs::read_to_string(&results_path).map_err(io_error(&results_path))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| parse_error(&results_path, "empty file".into()))?
        .split(',')
        .map(str::trim)
        .collect();
    let column = |name: String| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| parse_error(&results_path, format!("no column {name:?} in {header:?}")))
    };
    let columns: Vec<(usize, usize)> = settings
        .variables
        .iter()
        .map(|v| Ok((column(format!("{v}-mean"))?, column(format!("{v}-sd"))?)))
        .collect::<Result<_>>()?;
    let times: Vec<f64> = (0..=settings.steps)
        .map(|k| settings.start + settings.duration * k as f64 / settings.steps as f64)
        .collect();
    let (mut mu, mut sigma) = (Vec::new(), Vec::new());
    for (k, line) in lines.enumerate() {
        let row: Vec<f64> = line
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| parse_error(&results_path, format!("row {}: {e}", k + 1)))?;
        match (times.get(k), row.len() == header.len()) {
            (Some(&t), true) if (row[0] - t).abs() <= 1e-9 * t.abs().max(1.0) => {}
            _ => {
                let why = format!("row {}: {line:?} is not time {:?}", k + 1, times.get(k));
                return Err(parse_error(&results_path, why));
            }
        }
        mu.push(columns.iter().map(|&(m, _)| row[m]).collect());
        sigma.push(columns.iter().map(|&(_, s)| row[s]).collect());
    }
    if mu.len() != times.len() {
        let why = format!("{} rows for {} output times", mu.len(), times.len());
        return Err(parse_error(&results_path, why));
    }
    Ok(DsmtsCase {
        case: case.to_string(),
        settings,
        times,
        mu,
        sigma,
        sbml: base.join(format!("{case}-sbml-l3v1.xml")),
    })
}

fn parse_settings(text: &str, path: &Path) -> Result<DsmtsSettings> {
    let value = |key: &str| -> Option<&str> {
        text.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim())
    };
    let number = |key: &str| -> Result<f64> {
        let v = value(key).unwrap_or("");
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| parse_error(path, format!("{key}: {v:?} is not a number")))
    };
    let list = |key: &str| -> Vec<String> {
        value(key)
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    let steps = number("steps")?;
    if !(steps >= 1.0 && steps.fract() == 0.0 && steps <= 1e6) {
        return Err(parse_error(path, format!("steps: {steps} is not 1..=10^6")));
    }
    let duration = number("duration")?;
    if duration <= 0.0 {
        return Err(parse_error(
            path,
            format!("duration: {duration} is not > 0"),
        ));
    }
    // The simulators report counts; concentration outputs would need the volume.
    if !list("concentration").is_empty() {
        let why = "concentration outputs are not supported (amounts only)".to_string();
        return Err(parse_error(path, why));
    }
    let variables = list("variables");
    if variables.is_empty() {
        return Err(parse_error(path, "variables: none listed".into()));
    }
    Ok(DsmtsSettings {
        start: number("start")?,
        duration,
        steps: steps as u32,
        variables,
    })
}

impl DsmtsCase {
    /// The case's network through the SBML reader; refused cases give the reader's message.
    pub fn network(&self) -> Result<Network> {
        sbml::read_sbml(&self.sbml)
    }

    /// The case's network with general laws, rules and events (every case of the suite).
    pub fn general_network(&self) -> Result<GeneralNetwork> {
        sbml::read_sbml_general(&self.sbml)
    }

    /// The end time of the run.
    pub fn t_end(&self) -> f64 {
        *self.times.last().expect("at least two output times")
    }

    /// Z and Y at every output time of every variable, or why they cannot be formed
    /// (statistics over other times, a variable missing). For sigma = 0 (the start, a fixed
    /// species) the statistics must be exact: Z = Y = 0 if they are, infinite if not.
    pub fn scores(&self, stats: &EnsembleStats) -> std::result::Result<Vec<DsmtsScore>, String> {
        let case = &self.case;
        let same_times = stats.times.len() == self.times.len()
            && stats
                .times
                .iter()
                .zip(&self.times)
                .all(|(a, b)| (a - b).abs() <= 1e-9 * b.abs().max(1.0));
        if !same_times {
            return Err(format!(
                "{case}: statistics at {} times, the case has {} from {} to {}",
                stats.times.len(),
                self.times.len(),
                self.settings.start,
                self.t_end()
            ));
        }
        let n = stats.n as f64;
        let mut scores = Vec::new();
        for (v, id) in self.settings.variables.iter().enumerate() {
            let Some(s) = stats.species.iter().position(|x| x == id) else {
                return Err(format!("{case}: no statistics for {id}"));
            };
            for (k, &t) in self.times.iter().enumerate() {
                let (mu, sigma) = (self.mu[k][v], self.sigma[k][v]);
                let (mean, sd) = (stats.mean[k][s], stats.sd[k][s]);
                let (z, y) = if sigma == 0.0 {
                    let exact = mean == mu && sd == 0.0;
                    let score = if exact { 0.0 } else { f64::INFINITY };
                    (score, score)
                } else {
                    let s2 = stats.mean_square_around(k, s, mu);
                    (
                        n.sqrt() * (mean - mu) / sigma,
                        (n / 2.0).sqrt() * (s2 / (sigma * sigma) - 1.0),
                    )
                };
                scores.push(DsmtsScore {
                    variable: id.clone(),
                    t,
                    mean,
                    sd,
                    z,
                    y,
                });
            }
        }
        Ok(scores)
    }

    /// The pass rule at every output time and variable; one line per miss (empty: passed).
    /// Statistics over other times or without a variable are misses too, so a run cannot pass
    /// by leaving something out.
    pub fn misses(&self, stats: &EnsembleStats) -> Vec<String> {
        match self.scores(stats) {
            Err(why) => vec![why],
            Ok(scores) => scores
                .iter()
                .filter(|s| !s.passes())
                .map(|s| s.describe(&self.case))
                .collect(),
        }
    }

    /// The number of (time, variable) checks.
    pub fn checks(&self) -> usize {
        self.times.len() * self.settings.variables.len()
    }
}

/// The outcome of one DSMTS case with one method.
#[derive(Clone, Debug, PartialEq)]
pub enum DsmtsOutcome {
    /// The SBML reader refused the model (outside the supported subset): its message.
    Refused(String),
    /// Ran: Z and Y per output time and variable, and the misses of the pass rule.
    Ran {
        scores: Vec<DsmtsScore>,
        misses: Vec<String>,
    },
}

/// Runs DSMTS case `case` with `n` CPU trajectories of `method`. A case beyond mass action
/// (rules, events, general laws) runs with the direct method as a general network
/// (`ssa::general`), and is refused by the other methods. Errors are reading errors of the case
/// files; a refused model is an outcome, not an error.
pub fn run_dsmts_cpu(case: &str, method: Method, n: u64, seed: u64) -> Result<DsmtsOutcome> {
    if method == Method::Direct {
        let general = run_dsmts_general(
            case,
            |_| None,
            |net, times| super::general::run_general_cpu(net, n, seed, times),
        )?;
        if let Some(outcome) = general {
            return Ok(outcome);
        }
    }
    run_dsmts_with(case, |net, times| {
        run_ensemble_cpu(net, method, n, seed, times)
    })
}

/// Runs DSMTS case `case` as a general network when it is beyond mass action (None when it is
/// mass action): `refuse(network)` says why the simulator cannot take it (the GPU and events,
/// for one), else `ensemble(network, output times)` gives the statistics of the species and
/// the rules' values.
pub fn run_dsmts_general(
    case: &str,
    refuse: impl FnOnce(&GeneralNetwork) -> Option<String>,
    ensemble: impl FnOnce(&GeneralNetwork, &[f64]) -> Result<EnsembleStats>,
) -> Result<Option<DsmtsOutcome>> {
    let c = dsmts_case(case)?;
    if c.network().is_ok() {
        return Ok(None);
    }
    let net = match c.general_network() {
        Ok(net) => net,
        Err(e) => return Ok(Some(DsmtsOutcome::Refused(e.to_string()))),
    };
    if let Some(why) = refuse(&net) {
        return Ok(Some(DsmtsOutcome::Refused(why)));
    }
    let stats = ensemble(&net, &c.times)?;
    Ok(Some(DsmtsOutcome::Ran {
        scores: c.scores(&stats).unwrap_or_default(),
        misses: c.misses(&stats),
    }))
}

/// Runs DSMTS case `case` with any simulator: `ensemble(network, output times)` returns the
/// statistics (the GPU ensemble, for one).
pub fn run_dsmts_with(
    case: &str,
    ensemble: impl FnOnce(&Network, &[f64]) -> Result<EnsembleStats>,
) -> Result<DsmtsOutcome> {
    let c = dsmts_case(case)?;
    let net = match c.network() {
        Ok(net) => net,
        Err(e) => {
            let general = match c.general_network() {
                Ok(_) => {
                    "; it is read as a general network, which the direct method on the \
                          CPU runs"
                }
                Err(_) => "",
            };
            return Ok(DsmtsOutcome::Refused(format!("{e}{general}")));
        }
    };
    let stats = ensemble(&net, &c.times)?;
    Ok(DsmtsOutcome::Ran {
        scores: c.scores(&stats).unwrap_or_default(),
        misses: c.misses(&stats),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsmts_case_reads_settings_and_results() {
        let c = dsmts_case("00024").unwrap();
        assert_eq!(c.settings.variables, ["X", "Source", "Sink"]);
        assert_eq!(c.times.len(), 51);
        assert_eq!((c.times[0], c.t_end()), (0.0, 50.0));
        assert_eq!(c.mu[1], vec![9.51626, 0.0, 0.0]);
        assert_eq!(c.sigma[1][0], 3.084843594);
        assert_eq!(c.checks(), 153);
        assert!(dsmts_case("00099").is_err());
        let e = parse_settings("start: 0\nduration: 5\nsteps: 0\n", Path::new("s.txt"));
        assert!(e.unwrap_err().to_string().contains("steps: 0"));
    }

    #[test]
    fn misses_follow_the_pass_rule() {
        let c = dsmts_case("00001").unwrap();
        // Statistics equal to the analytic values pass (Y = -sqrt(n/2)/n-ish, tiny).
        let stats = |shift_mean: f64, scale_sd: f64, n: u64| EnsembleStats {
            times: c.times.clone(),
            species: vec!["X".into()],
            n,
            mean: (0..c.times.len())
                .map(|k| vec![c.mu[k][0] + shift_mean * c.sigma[k][0]])
                .collect(),
            sd: (0..c.times.len())
                .map(|k| vec![c.sigma[k][0] * scale_sd])
                .collect(),
        };
        assert!(c.misses(&stats(0.0, 1.0, 10_000)).is_empty());
        // A mean off by 0.05 sigma at n = 10^4 is Z = 5 at every time but t = 0.
        let m = c.misses(&stats(0.05, 1.0, 10_000));
        assert_eq!(m.len(), 50, "{m:?}");
        assert!(m[0].contains("00001 X t=1: Z = 5.00"), "{}", m[0]);
        // An sd 10 % high: s^2/sigma^2 - 1 = 0.21, Y = 70 * 0.21 = 14.8.
        assert_eq!(c.misses(&stats(0.0, 1.1, 10_000)).len(), 50);
        // The start has sigma = 0 and must be exact.
        let mut s = stats(0.0, 1.0, 10_000);
        s.mean[0][0] = 100.5;
        assert!(c.misses(&s)[0].contains("t=0: mean 100.5, sd 0; exact"));
        // Missing species or other times are misses, not passes.
        let mut s = stats(0.0, 1.0, 10);
        s.species = vec!["Y".into()];
        assert_eq!(c.misses(&s), ["00001: no statistics for X"]);
        let mut s = stats(0.0, 1.0, 10);
        s.times.pop();
        assert!(c.misses(&s)[0].contains("statistics at 50 times"));
    }
}
