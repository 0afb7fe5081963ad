//! The epidermis as a [`Model`]: it opens from its config (and a checkpoint checked against
//! it), and `petri bench epidermis` times the seed's run, the RK2 step by element count split
//! by pass, memory per element, the multithreaded CPU reference and (with
//! `--cuda-reference`) the hand-written CUDA force pass on the same tissue; Markdown tables.

use super::bench::{self, CudaRow};
use super::run::{start, EpidermisRun, RunOptions};
use super::{EpidermisConfig, SimOptions};
use crate::command::{
    cell, check_json, command_of, read_config, run_cuda_reference, GpuArgs, Rows,
};
use crate::error::{defaults_used, Result};
use crate::model::{Model, OpenRequest, Opened};
use anyhow::bail;
use clap::{Args, FromArgMatches};
use petri_scheduler::bench::{Meta, Table};
use std::path::{Path, PathBuf};

/// The model.
pub struct Epidermis;

impl Model for Epidermis {
    fn name(&self) -> &'static str {
        "epidermis"
    }
    fn about(&self) -> &'static str {
        "The seed's run, RK2 step time by element count and pass, memory per element, the \
         multithreaded CPU reference and the CUDA force pass"
    }

    fn open(&self, request: &OpenRequest) -> Result<Opened> {
        let (text, origin) = request.config(self.name())?.json()?;
        let cfg = EpidermisConfig::from_json(text, origin)?;
        if let Some(line) = defaults_used(text, &cfg) {
            log::warn!("{origin}: {line}");
        }
        let opts = RunOptions::resuming(sim_options(request.workgroup)?, request.resume);
        request.on_one_device(&Epidermis, |ctx| {
            let state = start(ctx, &cfg, &opts)?;
            Ok(Box::new(EpidermisRun::new(ctx, state, &cfg)))
        })
    }

    fn bench_command(&self) -> Option<clap::Command> {
        Some(command_of::<BenchArgs>(self.name(), self.about()))
    }
    fn bench(&self, args: &clap::ArgMatches) -> anyhow::Result<()> {
        bench_tables(BenchArgs::from_arg_matches(args)?)
    }
}

/// Reads an epidermis config.
fn load_config(path: &Path) -> anyhow::Result<EpidermisConfig> {
    let text = read_config(path, "epidermis")?;
    let config = EpidermisConfig::from_json(&text, &path.display().to_string())?;
    if let Some(line) = defaults_used(&text, &config) {
        eprintln!("{}: {line}", path.display());
    }
    Ok(config)
}

/// The simulation's options from `--workgroup N,1,1` (the default without it).
fn sim_options(workgroup: Option<[u32; 3]>) -> Result<SimOptions> {
    let mut o = SimOptions::default();
    if let Some(x) = crate::command::one_dimensional_workgroup("epidermis", workgroup)? {
        o.workgroup = x;
    }
    Ok(o)
}

/// `petri bench epidermis`.
#[derive(Args)]
struct BenchArgs {
    /// Element counts of the per-step case (whole cells of the config's elements per cell;
    /// 1e6 notation allowed)
    #[arg(long, value_delimiter = ',', default_values = ["1e4", "1e5", "1e6", "1e7"])]
    sizes: Vec<String>,
    /// Timed steps per size (1 or more)
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    steps: u32,
    /// Steps of the seed's run (5000 cells); 0 leaves it out
    #[arg(long, default_value_t = bench::SEED_STEPS)]
    seed_steps: u32,
    /// Box height of the per-step sizes: the bench tissue is one layer of cells, and the
    /// neighbour grid spans the height (elements above share its top layer), so a low box keeps
    /// the bins within the model's limit at large sizes
    #[arg(long, default_value_t = 2.0)]
    height: f64,
    /// Largest size (elements) on which the multithreaded CPU reference is timed and its force
    /// checksum computed
    #[arg(long, default_value_t = 1_000_000)]
    cpu_max_elements: u64,
    /// CPU reference steps timed per size
    #[arg(long, default_value_t = 3)]
    cpu_steps: u32,
    /// Untimed warm-up batches of 50 steps per size [default: about 1e9 element updates]
    #[arg(long)]
    warmup: Option<u32>,
    /// Workgroup size of the element passes, N,1,1
    #[arg(long, value_parser = crate::command::parse_triple)]
    workgroup: Option<[u32; 3]>,
    /// The built CUDA reference (nvcc -O3 -arch=sm_90 benches/reference/sem_forces.cu -o
    /// sem_forces): its force pass timed on the state each size's WGSL steps ended at
    #[arg(long)]
    cuda_reference: Option<PathBuf>,
    /// Config to take parameters from
    #[arg(long, default_value = "assets/epidermis.json")]
    config: PathBuf,
    /// Also write the rows as JSON here
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// An element count: "10000" or "1e4".
fn parse_size(s: &str) -> anyhow::Result<u64> {
    let t = s.trim();
    if let Ok(n) = t.parse::<u64>() {
        if n > 0 {
            return Ok(n);
        }
    }
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 1.0 && x == x.floor() && x < 2f64.powi(53) => Ok(x as u64),
        _ => bail!("--sizes {s:?}: expected a whole number of elements like 100000 or 1e5"),
    }
}

/// ms per step of each part, "binning 0.12, forces 0.30, ...".
fn split(parts: &std::collections::BTreeMap<String, f64>) -> String {
    let v: Vec<String> = parts.iter().map(|(k, ms)| format!("{k} {ms:.4}")).collect();
    v.join(", ")
}

/// Runs the CUDA reference on the state of one size (written to a temporary file); its row.
fn run_cuda(path: &Path, size: &bench::SizeResult) -> anyhow::Result<Option<CudaRow>> {
    let tissue = std::env::temp_dir().join(format!(
        "petri-epidermis-{}-{}.bin",
        std::process::id(),
        size.row.elements
    ));
    bench::write_tissue(&tissue, &size.cfg, &size.state)?;
    let mut args = bench::cuda_reference_args(&size.cfg, size.cfg.seed as u32);
    args.extend(["--tissue".to_string(), tissue.display().to_string()]);
    let text = run_cuda_reference(path, &args);
    let _ = std::fs::remove_file(&tissue);
    let text = text?;
    for line in text.lines().filter(|l| l.contains("skipped")) {
        eprintln!("CUDA reference: {line}");
    }
    Ok(bench::parse_cuda_output(&text).into_iter().next())
}

fn bench_tables(args: BenchArgs) -> anyhow::Result<()> {
    check_json(args.json.as_deref())?;
    let base = load_config(&args.config)?;
    let sim = sim_options(args.workgroup)?;
    if !(args.height.is_finite() && args.height > 0.0) {
        bail!("--height {}: expected a box height > 0", args.height);
    }
    let sizes = args
        .sizes
        .iter()
        .map(|s| parse_size(s))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let per = base.initial.elements_per_cell;
    if let Some(n) = sizes.iter().find(|&&n| bench::lattice(n, per).is_none()) {
        bail!("--sizes {n}: not a whole number of cells of initial.elements_per_cell = {per}");
    }
    let ctx = args.gpu.context()?;
    let opts = bench::BenchOptions {
        sizes: sizes.clone(),
        steps: args.steps,
        height: Some(args.height),
        cpu_max_elements: args.cpu_max_elements,
        cpu_steps: args.cpu_steps,
        sim,
        warmup: args.warmup,
        repeats: 1,
    };
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; GPU times are wall clock");
    }
    let mut rows = Rows::new(Meta::of(&ctx), "epidermis");

    if args.seed_steps > 0 {
        println!(
            "Seed's run ({} cells x {} elements, full model):",
            bench::SEED_CELLS,
            base.initial.elements_per_cell
        );
        let table = Table::print(&[
            "cells",
            "elements",
            "steps",
            "GPU s",
            "wall s",
            "ms/step",
            "cells at end",
        ]);
        let (timing, r) =
            bench::bench_seed_run(&ctx, &base, bench::SEED_CELLS, args.seed_steps, &opts)?;
        table.row(&[
            r.cells.to_string(),
            r.elements.to_string(),
            r.steps.to_string(),
            format!("{:.3}", r.gpu_s),
            format!("{:.3}", r.wall_s),
            format!("{:.4}", r.gpu_s * 1e3 / r.steps as f64),
            r.cells_end.to_string(),
        ]);
        if !r.split_ms.is_empty() {
            println!("ms/step by part: {}", split(&r.split_ms));
        }
        rows.push(("seed run", r.elements, "run"), &timing, &r)?;
        println!();
    }

    println!(
        "RK2 step by size (bench tissue, box height {}):",
        args.height
    );
    // rayon's pool in petri-model has one thread per available core.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpu_column = format!("CPU ms/step ({threads} thr)");
    let table = Table::print(&[
        "elements",
        "cells",
        "bins",
        "ms/step",
        "binning",
        "forces",
        "genes",
        "growth",
        "force eval ms",
        "B/element",
        &cpu_column,
        "GPU/CPU speedup (mechanics)",
    ]);
    let mut done = Vec::new();
    let mut refused = 0;
    for &n in &sizes {
        let size = match bench::bench_size(&ctx, &base, n, &opts) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("size {n}: skipped: {e}");
                refused += 1;
                continue;
            }
        };
        // The CUDA force pass on the state the WGSL steps ended at.
        let cuda = match &args.cuda_reference {
            Some(path) => run_cuda(path, &size)?,
            None => None,
        };
        let (timing, r) = (&size.timing, &size.row);
        let part = |k: &str| cell(r.split_ms.get(k).copied(), 4, "");
        table.row(&[
            r.elements.to_string(),
            r.cells.to_string(),
            format!("{}x{}x{}", r.bins[0], r.bins[1], r.bins[2]),
            format!("{:.4}", r.step_ms),
            part("binning"),
            part("forces"),
            part("genes"),
            part("growth"),
            cell(r.force_eval_ms, 4, ""),
            cell(r.bytes_per_element, 0, ""),
            cell(r.cpu_ms, 2, ""),
            cell(r.gpu_over_cpu, 1, "x"),
        ]);
        rows.push(("RK2 step", r.elements, "step"), timing, r)?;
        done.push((size.row, cuda));
    }
    if refused == sizes.len() {
        bail!("every size was skipped ({refused} of {refused}): nothing was measured");
    }

    for (r, _) in &done {
        if !r.pass_ms.is_empty() {
            println!(
                "{} elements, ms/step by pass: {}",
                r.elements,
                split(&r.pass_ms)
            );
        }
    }

    println!();
    println!(
        "Force evaluation on the state after the timed steps, WGSL against the CUDA reference \
         (benches/reference/sem_forces.cu, --cuda-reference); speed = CUDA ms / WGSL ms; \
         checksum = sum |F|:"
    );
    let table = Table::print(&[
        "elements",
        "WGSL ms",
        "CUDA ms",
        "CUDA block",
        "WGSL / CUDA speed",
        "checksum WGSL",
        "checksum CPU",
        "checksum CUDA",
    ]);
    for (r, c) in &done {
        let ratio = match (r.force_eval_ms, c) {
            (Some(w), Some(c)) if w > 0.0 => Some(c.ms / w),
            _ => None,
        };
        table.row(&[
            r.elements.to_string(),
            cell(r.force_eval_ms, 4, ""),
            cell(c.as_ref().map(|c| c.ms), 4, ""),
            c.as_ref().map_or("-".into(), |c| c.block.to_string()),
            cell(ratio, 2, ""),
            format!("{:.6e}", r.gpu_checksum.sum_abs_f),
            r.cpu_checksum
                .map_or("-".into(), |s| format!("{:.6e}", s.sum_abs_f)),
            c.as_ref()
                .map_or("-".into(), |c| format!("{:.6e}", c.checksum.sum_abs_f)),
        ]);
        if let Some(c) = c {
            #[derive(serde::Serialize)]
            struct CudaFields<'a> {
                block: u32,
                checksum: &'a bench::Checksum,
                max_rel_err: f64,
                wgsl_over_cuda_speed: Option<f64>,
            }
            let timing = petri_scheduler::bench::Timing {
                clock: petri_scheduler::bench::Clock::Gpu,
                warmup: 0,
                samples_ns: vec![c.ms * 1e6],
            };
            let fields = CudaFields {
                block: c.block,
                checksum: &c.checksum,
                max_rel_err: c.max_rel_err,
                wgsl_over_cuda_speed: ratio,
            };
            rows.push(
                ("CUDA force pass", c.elements, "evaluation"),
                &timing,
                fields,
            )?;
        }
    }
    rows.write(args.json.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_plain_and_power_of_ten_notation() {
        assert_eq!(parse_size("10000").unwrap(), 10_000);
        assert_eq!(parse_size("1e6").unwrap(), 1_000_000);
        assert_eq!(parse_size(" 2.5e4 ").unwrap(), 25_000);
        for bad in ["0", "-5", "1.5", "x", "1e30"] {
            let e = parse_size(bad).unwrap_err().to_string();
            assert!(e.contains("--sizes") && e.contains(bad.trim()), "{e}");
        }
    }
}
