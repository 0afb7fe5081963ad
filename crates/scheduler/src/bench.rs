//! The bench harness of every model and of the primitives: a case is set up once, warmed up by
//! a fixed count of untimed iterations (so every run does the same work before the clock
//! starts, not "as much as fits in half a second"), then timed `repeats` times; the harness
//! reduces the samples to statistics and makes one JSON row per case and Markdown tables.
//!
//! It lives in the scheduler because every model and the primitives depend on the scheduler
//! and the scheduler only on the engine (whose `Profiler` and `BatchTimer` give the GPU times):
//! a model never imports another to share it.
//!
//! What a timed iteration covers stays with the case (its timed region); it reports one
//! [`Sample`] per iteration, labelled by the clock it came from: GPU timestamp queries where
//! the adapter has them, wall clock otherwise (or where the case's figure is wall time by
//! design, such as rdme's simulated seconds per wall hour).

use petri_engine::{EngineError, GpuContext, PassTimes, Profiler};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// The clock a time comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// GPU timestamp queries (`Profiler`, `BatchTimer`).
    Gpu,
    /// Host wall clock, the GPU work waited for.
    Wall,
}

impl Clock {
    /// The GPU's clock where `ctx` has timestamp queries, else the wall clock.
    pub fn of(ctx: &GpuContext) -> Clock {
        match ctx.has_timestamps() {
            true => Clock::Gpu,
            false => Clock::Wall,
        }
    }

    /// The name in tables and notes.
    pub fn label(self) -> &'static str {
        match self {
            Clock::Gpu => "GPU timestamps",
            Clock::Wall => "wall clock",
        }
    }
}

/// The time of one timed iteration, in nanoseconds per unit of the case (a step, a run, ...).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub clock: Clock,
    pub ns: f64,
}

impl Sample {
    pub fn gpu(ns: f64) -> Sample {
        Sample {
            clock: Clock::Gpu,
            ns,
        }
    }

    pub fn wall(ns: f64) -> Sample {
        Sample {
            clock: Clock::Wall,
            ns,
        }
    }

    /// Wall time since `start`, divided over `units`.
    pub fn wall_since(start: Instant, units: f64) -> Sample {
        Sample::wall(start.elapsed().as_secs_f64() * 1e9 / units)
    }
}

/// How often a case runs: `warmup` untimed iterations, then `repeats` timed ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Runs {
    pub warmup: u32,
    pub repeats: u32,
}

/// A benchmark case, set up by its constructor.
pub trait Case {
    type Error;
    /// One untimed iteration before the timed ones (pipelines compiled, caches filled, GPU
    /// clocks up). Returns once the GPU has finished it.
    fn warm_up(&mut self) -> Result<(), Self::Error>;
    /// One timed iteration: the case's timed region and its time.
    fn timed(&mut self) -> Result<Sample, Self::Error>;
}

/// The samples of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub clock: Clock,
    pub warmup: u32,
    /// Nanoseconds per unit, one per timed iteration, in the order they ran.
    pub samples_ns: Vec<f64>,
}

impl Timing {
    pub fn stats(&self) -> Stats {
        Stats::of(&self.samples_ns)
    }
}

/// Runs `case`: `runs.warmup` warm-up iterations, then `runs.repeats` (at least one) timed ones.
pub fn measure<C: Case>(case: &mut C, runs: Runs) -> Result<Timing, C::Error> {
    for _ in 0..runs.warmup {
        case.warm_up()?;
    }
    let mut clock = None;
    let mut samples_ns = Vec::new();
    for _ in 0..runs.repeats.max(1) {
        let s = case.timed()?;
        // A case reads one clock: timestamps do not come and go within a run.
        debug_assert!(
            clock.is_none_or(|c| c == s.clock),
            "clocks mixed in one case"
        );
        clock = Some(s.clock);
        samples_ns.push(s.ns);
    }
    Ok(Timing {
        clock: clock.expect("at least one timed iteration"),
        warmup: runs.warmup,
        samples_ns,
    })
}

/// Runs `steps` steps with per-pass timestamps and sums their pass times: in batches of at most
/// `max_steps_per_batch` steps that fit one `Profiler`'s queries at `passes_per_step` passes a
/// step. `advance(n, profiler)` records and submits `n` steps into the profiler.
pub fn profiled_steps<E: From<EngineError>>(
    ctx: &GpuContext,
    steps: u32,
    passes_per_step: u32,
    max_steps_per_batch: u32,
    mut advance: impl FnMut(u32, &mut Profiler) -> Result<(), E>,
) -> Result<PassTimes, E> {
    let mut profiler = Profiler::new(ctx, 4096 / 2);
    let per_batch = (profiler.room() / passes_per_step.max(1))
        .min(max_steps_per_batch)
        .max(1);
    let mut times = PassTimes::default();
    let mut left = steps;
    while left > 0 {
        let n = left.min(per_batch);
        advance(n, &mut profiler)?;
        times.add(&profiler.collect(ctx)?);
        left -= n;
    }
    Ok(times)
}

/// Warm-up iterations of `per_iteration` units of work each that add up to about `work` units
/// (e.g. cell updates), within `min..=max`: deterministic for a case, and about the same time
/// on the GPU whatever the case's size.
pub fn warmup_iterations(work: f64, per_iteration: f64, min: u32, max: u32) -> u32 {
    let n = (work / per_iteration.max(1.0)).ceil();
    (n.min(max as f64) as u32).clamp(min, max)
}

/// Statistics of a case's samples (same unit as the samples).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// (max - min) / median: 0 for one sample.
    pub spread: f64,
}

impl Stats {
    /// The statistics of `samples` (not empty).
    pub fn of(samples: &[f64]) -> Stats {
        assert!(!samples.is_empty(), "statistics of no samples");
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = match n % 2 {
            1 => s[n / 2],
            _ => 0.5 * (s[n / 2 - 1] + s[n / 2]),
        };
        let (min, max) = (s[0], s[n - 1]);
        Stats {
            median,
            min,
            max,
            mean: s.iter().sum::<f64>() / n as f64,
            spread: if median > 0.0 {
                (max - min) / median
            } else {
                0.0
            },
        }
    }
}

/// Where the figures were taken: the adapter, its backend and the commit when known.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Meta {
    pub adapter: String,
    pub backend: String,
    pub commit: Option<String>,
}

impl Meta {
    /// `ctx`'s adapter; the commit from `PETRI_COMMIT`, else `git rev-parse --short HEAD` in
    /// the working directory, else unknown.
    pub fn of(ctx: &GpuContext) -> Meta {
        Meta {
            adapter: ctx.adapter.name.clone(),
            backend: ctx.adapter.backend.to_string(),
            commit: commit(),
        }
    }
}

fn commit() -> Option<String> {
    if let Ok(c) = std::env::var("PETRI_COMMIT") {
        return Some(c).filter(|c| !c.is_empty());
    }
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let c = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !c.is_empty()).then_some(c)
}

/// One JSON row: every benchmark writes these, a list of them under "rows". `F` holds the
/// case's own figures (throughput, CPU reference, per-pass times, ...), a struct or map whose
/// fields join the row's.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row<F: Serialize = ()> {
    /// "angiogenesis", "rdme", "ssa", "primitives".
    pub model: String,
    /// What was timed, e.g. "field update", "Min system", "sort".
    pub case: String,
    /// The problem's size in its own unit (cells, sites, trajectories, reactions, elements).
    pub size: u64,
    #[serde(flatten)]
    pub meta: Meta,
    /// What one figure covers: "step", "run", "attempt", ...
    pub per: String,
    pub clock: Clock,
    /// Median ms per unit by GPU timestamps (with `clock` "gpu").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_ms: Option<f64>,
    /// Median ms per unit by the wall clock (with `clock` "wall").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<f64>,
    pub min_ms: f64,
    pub mean_ms: f64,
    pub spread: f64,
    pub warmup: u32,
    pub repeats: u32,
    #[serde(flatten)]
    pub fields: F,
}

impl Row {
    /// The row of `timing`, without case fields.
    pub fn new(meta: &Meta, model: &str, case: &str, size: u64, per: &str, timing: &Timing) -> Row {
        let s = timing.stats();
        let median = Some(s.median * 1e-6);
        Row {
            model: model.into(),
            case: case.into(),
            size,
            meta: meta.clone(),
            per: per.into(),
            clock: timing.clock,
            gpu_ms: median.filter(|_| timing.clock == Clock::Gpu),
            wall_ms: median.filter(|_| timing.clock == Clock::Wall),
            min_ms: s.min * 1e-6,
            mean_ms: s.mean * 1e-6,
            spread: s.spread,
            warmup: timing.warmup,
            repeats: timing.samples_ns.len() as u32,
            fields: (),
        }
    }

    /// The row with the case's own figures `fields` (a struct or map) added.
    pub fn with<F: Serialize>(self, fields: F) -> Row<F> {
        Row {
            model: self.model,
            case: self.case,
            size: self.size,
            meta: self.meta,
            per: self.per,
            clock: self.clock,
            gpu_ms: self.gpu_ms,
            wall_ms: self.wall_ms,
            min_ms: self.min_ms,
            mean_ms: self.mean_ms,
            spread: self.spread,
            warmup: self.warmup,
            repeats: self.repeats,
            fields,
        }
    }
}

impl<F: Serialize> Row<F> {
    /// The median in ms by the row's clock.
    pub fn median_ms(&self) -> f64 {
        self.gpu_ms.or(self.wall_ms).unwrap_or(0.0)
    }
}

/// Checks, before a benchmark runs, that its `--json` file can be written: the parent folder
/// exists and takes a new file, and the path is not a folder. (Found out only after a long
/// benchmark, the figures would be lost.) Returns the message to show otherwise.
pub fn check_json_path(path: &Path) -> Result<(), String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!("--json {shown}: is a folder; give a file name"));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!(
            "--json {shown}: the folder {} does not exist",
            parent.display()
        ));
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let probe = parent.join(format!(
        ".{}.{}.probe",
        name.unwrap_or_default(),
        std::process::id()
    ));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(format!(
            "--json {shown}: cannot write in {}: {e}",
            parent.display()
        )),
    }
}

/// A Markdown table, printed as it grows (a long benchmark shows each row when it is done).
pub struct Table {
    columns: usize,
}

impl Table {
    /// Prints the header line and the separator.
    pub fn print(headers: &[&str]) -> Table {
        println!("{}", markdown_row(headers));
        println!("|{}", "---|".repeat(headers.len()));
        Table {
            columns: headers.len(),
        }
    }

    /// Prints one row of as many cells as the header has.
    pub fn row<S: AsRef<str>>(&self, cells: &[S]) {
        assert_eq!(cells.len(), self.columns, "a row of another table");
        println!("{}", markdown_row(cells));
    }
}

/// "| a | b |".
pub fn markdown_row<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<&str> = cells.iter().map(|c| c.as_ref()).collect();
    format!("| {} |", cells.join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts its iterations; its samples are 1, 2, 3, ... ns by the wall clock.
    #[derive(Default)]
    struct Counter {
        warm: u32,
        timed: u32,
    }

    impl Case for Counter {
        type Error = String;
        fn warm_up(&mut self) -> Result<(), String> {
            assert_eq!(self.timed, 0, "warm-up after a timed iteration");
            self.warm += 1;
            Ok(())
        }
        fn timed(&mut self) -> Result<Sample, String> {
            self.timed += 1;
            Ok(Sample::wall(self.timed as f64))
        }
    }

    #[test]
    fn warms_up_a_fixed_count_then_times_the_repeats() {
        for (warmup, repeats) in [(0, 1), (3, 5), (7, 2)] {
            let mut c = Counter::default();
            let t = measure(&mut c, Runs { warmup, repeats }).unwrap();
            assert_eq!((c.warm, c.timed), (warmup, repeats));
            assert_eq!(t.warmup, warmup);
            assert_eq!(t.samples_ns.len(), repeats as usize);
            assert_eq!(t.clock, Clock::Wall);
        }
        // At least one timed iteration.
        let mut c = Counter::default();
        measure(
            &mut c,
            Runs {
                warmup: 1,
                repeats: 0,
            },
        )
        .unwrap();
        assert_eq!(c.timed, 1);
    }

    #[test]
    fn an_error_stops_the_case() {
        struct Fails;
        impl Case for Fails {
            type Error = String;
            fn warm_up(&mut self) -> Result<(), String> {
                Err("no device".into())
            }
            fn timed(&mut self) -> Result<Sample, String> {
                unreachable!("never timed after a failed warm-up")
            }
        }
        let e = measure(
            &mut Fails,
            Runs {
                warmup: 1,
                repeats: 3,
            },
        )
        .unwrap_err();
        assert_eq!(e, "no device");
    }

    #[test]
    fn statistics() {
        let s = Stats::of(&[4.0, 1.0, 3.0]);
        assert_eq!((s.median, s.min, s.max, s.mean), (3.0, 1.0, 4.0, 8.0 / 3.0));
        assert_eq!(s.spread, 1.0);
        let s = Stats::of(&[2.0, 8.0, 4.0, 6.0]);
        assert_eq!((s.median, s.min, s.max, s.mean), (5.0, 2.0, 8.0, 5.0));
        assert_eq!(s.spread, 6.0 / 5.0);
        let s = Stats::of(&[7.5]);
        assert_eq!((s.median, s.min, s.max, s.spread), (7.5, 7.5, 7.5, 0.0));
        assert_eq!(Stats::of(&[0.0, 0.0]).spread, 0.0);
    }

    #[test]
    fn warmup_iterations_cover_the_work_within_bounds() {
        assert_eq!(warmup_iterations(1000.0, 100.0, 1, 50), 10);
        assert_eq!(warmup_iterations(1001.0, 100.0, 1, 50), 11);
        assert_eq!(warmup_iterations(1e12, 1.0, 1, 50), 50);
        assert_eq!(warmup_iterations(10.0, 1e9, 2, 50), 2);
        assert_eq!(warmup_iterations(10.0, 0.0, 2, 50), 10);
    }

    #[test]
    fn a_row_has_the_shared_fields_and_the_case_fields() {
        let meta = Meta {
            adapter: "llvmpipe".into(),
            backend: "Vulkan".into(),
            commit: Some("abc1234".into()),
        };
        let timing = Timing {
            clock: Clock::Gpu,
            warmup: 2,
            samples_ns: vec![3e6, 1e6, 2e6],
        };
        #[derive(Serialize)]
        struct Extra {
            key_bits: u32,
        }
        let row = Row::new(&meta, "primitives", "sort", 1000, "run", &timing)
            .with(Extra { key_bits: 20 });
        assert_eq!(row.median_ms(), 2.0);
        let v = serde_json::to_value(&row).unwrap();
        let want = serde_json::json!({
            "model": "primitives", "case": "sort", "size": 1000,
            "adapter": "llvmpipe", "backend": "Vulkan", "commit": "abc1234",
            "per": "run", "clock": "gpu", "gpu_ms": 2.0, "min_ms": 1.0, "mean_ms": 2.0,
            "spread": 1.0, "warmup": 2, "repeats": 3, "key_bits": 20
        });
        assert_eq!(v, want);
        // By the wall clock the median is wall_ms, and there is no gpu_ms.
        let wall = Timing {
            clock: Clock::Wall,
            ..timing
        };
        let v = serde_json::to_value(Row::new(&meta, "m", "c", 1, "step", &wall)).unwrap();
        assert_eq!((v["wall_ms"].as_f64(), v.get("gpu_ms")), (Some(2.0), None));
        assert_eq!(v["clock"], "wall");
    }

    #[test]
    fn the_json_path_is_checked_before_the_bench() {
        let dir = std::env::temp_dir().join(format!("petri-bench-json-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(check_json_path(&dir.join("rows.json")), Ok(()));
        // The probe leaves nothing behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let e = check_json_path(&dir.join("no/such/rows.json")).unwrap_err();
        assert!(e.contains("--json") && e.contains("does not exist"), "{e}");
        let e = check_json_path(&dir).unwrap_err();
        assert!(e.contains("is a folder"), "{e}");
        // A folder that takes no new files (issue 22: `--json /proc/x.json`).
        #[cfg(target_os = "linux")]
        {
            let e = check_json_path(Path::new("/proc/x.json")).unwrap_err();
            assert!(e.contains("cannot write in /proc"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn markdown_rows() {
        assert_eq!(markdown_row(&["a", "b c"]), "| a | b c |");
    }
}
