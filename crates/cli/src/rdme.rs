//! `petri run` of an rdme config (progress bar, summary), and `petri bench rdme`, which prints
//! Markdown tables (docs/BENCHMARKS.md takes them as they are).

use crate::{BenchArgs, RunArgs};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use petri_engine::{DeviceRequest, GpuContext};
use petri_model::angiogenesis::bench::parse_size;
use petri_model::rdme::analysis::OscillationReport;
use petri_model::rdme::bench::{bench_devices, bench_model, uniform_model, DeviceRow};
use petri_model::rdme::run::{reanalyze, RunOptions};
use petri_model::rdme::{checkpoint, RdmeConfig, SimOptions};
use std::path::{Path, PathBuf};

/// Whether `path` starts like an rdme checkpoint.
pub fn is_checkpoint(path: &Path) -> bool {
    petri_output::checkpoint::model_of(path).is_ok_and(|model| model == checkpoint::MODEL)
}

/// The lattice passes' workgroup from `--workgroup X,Y,1` (the default without it).
fn workgroup(arg: Option<[u32; 3]>) -> Result<[u32; 2]> {
    match arg {
        None => Ok(SimOptions::default().workgroup),
        Some([x, y, 1]) => Ok([x, y]),
        Some([x, y, z]) => {
            bail!("--workgroup {x},{y},{z}: rdme workgroups are two-dimensional, give X,Y,1")
        }
    }
}

pub fn run(args: RunArgs) -> Result<()> {
    let config = args
        .config
        .clone()
        .expect("dispatched on the config's model");
    let cfg = RdmeConfig::load(&config)?;
    let base = config.parent().map(Path::to_path_buf).unwrap_or_default();
    let model = cfg.resolve(&base)?;
    for w in &model.warnings {
        eprintln!("warning: {w}");
    }
    let sim = SimOptions {
        workgroup: workgroup(args.workgroup)?,
        sweeps: args.sweeps,
        ..SimOptions::default()
    };
    let contexts = if args.devices == 1 {
        vec![args.gpu.context()?]
    } else {
        let request = DeviceRequest::from_env()
            .with_overrides(args.gpu.backend.clone(), args.gpu.adapter.clone());
        let contexts = GpuContext::new_many(&request, args.devices)?;
        for (k, c) in contexts.iter().enumerate() {
            eprintln!(
                "device {k}: {} ({}, {})",
                c.adapter.name, c.adapter.backend, c.adapter.device_type
            );
        }
        contexts
    };
    let opts = RunOptions {
        steps: args.steps,
        out_dir: args.out.clone(),
        sim,
        checkpoint_every: args.checkpoint_every,
        resume: args.resume.clone(),
    };
    let total = opts.steps.unwrap_or(cfg.steps);
    let [nx, ny, nz] = cfg.lattice.shape;
    eprintln!(
        "lattice {nx}x{ny}x{nz} at {:.3e} m, tau = {:.3e} s, {total} steps ({:.3e} s simulated) on {} device(s)",
        cfg.lattice.spacing_m,
        cfg.tau_s,
        total as f64 * cfg.tau_s,
        args.devices
    );
    if let Some(path) = &args.resume {
        eprintln!("resuming from {}", path.display());
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {per_sec}  eta {eta}  {msg}")
            .expect("valid template"),
    );
    // The first observation is the starting state, at the resumed step when resuming.
    let mut first = None;
    let kymo = match &cfg.output.kymograph_species {
        Some(k) => Some((k, cfg.species_id("output.kymograph_species", k)? as usize)),
        None => None,
    };
    let manifest = petri_model::rdme::run::run(contexts, &model, &opts, |o| {
        let first = *first.get_or_insert(o.step);
        bar.set_position(o.step - first);
        let mut msg = format!("t = {:.3} s", o.time_s);
        if let Some((name, id)) = kymo {
            msg += &format!(", {name} {}", o.species_total(id));
        }
        bar.set_message(msg);
    })?;
    bar.finish();

    let totals: Vec<String> = cfg
        .species
        .iter()
        .map(|s| format!("{s} {}", manifest.details.final_totals[s]))
        .collect();
    println!(
        "step {} (t = {:.4} s): {}; overflow moved {}",
        manifest.last_step,
        manifest.last_step as f64 * cfg.tau_s,
        totals.join(", "),
        manifest.details.overflow_moved
    );
    println!(
        "{:.1} steps/s, {:.3e} simulated s per wall hour over {:.2} s; outputs in {}: {}",
        manifest.timings.steps_per_s,
        manifest
            .timings
            .simulated_s_per_wall_hour
            .unwrap_or_default(),
        manifest.timings.run_s,
        args.out.display(),
        manifest.outputs.join(", ")
    );
    if let (Some(a), Some(name)) = (&manifest.analysis, &cfg.output.kymograph_species) {
        print_analysis(name, a);
    }
    Ok(())
}

/// `petri analyze` of an rdme run: its kymograph analysed again with `skip_fraction`.
pub fn analyze(config: &Path, out: &Path, skip_fraction: f64, json: Option<&Path>) -> Result<()> {
    let cfg = RdmeConfig::load(config)?;
    let base = config.parent().map(Path::to_path_buf).unwrap_or_default();
    let model = cfg.resolve(&base)?;
    let report = reanalyze(&model, out, skip_fraction)?;
    let name = cfg.output.kymograph_species.as_deref().unwrap_or_default();
    println!(
        "{}: {} rows, {} used from {:.4} s",
        out.join("kymograph.csv").display(),
        report.samples,
        report.samples_used,
        report.skip_s
    );
    print_analysis(name, &report);
    if let Some(path) = json {
        petri_output::write_json_pretty(path, &report)?;
    }
    Ok(())
}

/// The oscillation analysis of `name` in a line or two.
fn print_analysis(name: &str, a: &OscillationReport) {
    let show = |v: Option<f64>, unit: &str| v.map_or("none".into(), |x| format!("{x:.3}{unit}"));
    println!(
        "{name}: pole correlation {}, period {} (autocorrelation) / {} (pole switches from \
             {:.1} s), lowest at mid-cell: {} (mid-cell / poles {})",
        show(a.pole_correlation, ""),
        show(a.period_s, " s"),
        show(a.switch_period_s, " s"),
        a.skip_s,
        if a.lowest_at_mid_cell { "yes" } else { "no" },
        show(a.mid_to_pole_ratio, "")
    );
    if !a.cycle_periods_s.is_empty() {
        let cycles: Vec<String> = a
            .switches_s
            .iter()
            .zip(&a.cycle_periods_s)
            .map(|(t, p)| format!("{t:.1}: {p:.1}"))
            .collect();
        println!(
            "full period from each pole switch (switch at s: period s): {}",
            cycles.join(", ")
        );
    }
}

pub fn bench(args: BenchArgs) -> Result<()> {
    let ctx = args.gpu.context()?;
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; only wall-clock times are shown");
    }
    let config = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from("assets/min-system.json"));
    let cfg = RdmeConfig::load(&config)?;
    let base = config.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    let min = cfg.resolve(&base)?;
    let sizes: Vec<[u32; 3]> = if args.sizes.is_empty() {
        vec![[64; 3], [128; 3], [256; 3], [256, 256, 1024]]
    } else {
        args.sizes
            .iter()
            .map(|s| parse_size(s).with_context(|| format!("size {s:?}: expected N or NXxNYxNZ")))
            .collect::<Result<_>>()?
    };
    let steps = args.steps as u64;
    let cpu_steps = args.cpu_steps as u64;
    let workgroup = workgroup(args.workgroup)?;
    let cpu_max = args.cpu_max_cells as u64;
    let mut rows = Vec::new();
    let print = |r: &petri_model::rdme::bench::BenchRow| {
        println!(
            "| {} | {}x{}x{} | {} | {} | {} | {} | {:.1} | {:.3e} | {:.0} | {} | {} |",
            r.label,
            r.shape[0],
            r.shape[1],
            r.shape[2],
            r.sites,
            r.particles,
            r.steps,
            match (r.gpu_us_per_step, r.gpu_idle_us_per_step) {
                (Some(busy), Some(idle)) => format!("{busy:.1} / {idle:.1}"),
                _ => "-".into(),
            },
            r.wall_us_per_step,
            r.site_updates_per_s,
            r.simulated_s_per_wall_hour,
            r.cpu_us_per_step
                .map(|c| format!("{c:.0}"))
                .unwrap_or("-".into()),
            r.speedup_vs_cpu
                .map(|s| format!("{s:.0}x"))
                .unwrap_or("-".into()),
        )
    };
    if !args.scaling_only {
        println!("| case | lattice | sites | particles | steps | GPU busy / idle us/step | wall us/step | site updates/s | simulated s per wall hour | CPU us/step | GPU/CPU |");
        println!("|---|---|---|---|---|---|---|---|---|---|---|");
        let r = bench_model(
            &ctx,
            "Min system",
            &min,
            workgroup,
            args.sweeps,
            steps,
            cpu_steps,
        )?;
        print(&r);
        let passes: Vec<String> = r
            .pass_us
            .iter()
            .map(|(k, us)| format!("{k} {us:.1}"))
            .collect();
        eprintln!(
            "Min system, GPU us/step by pass (per-pass timestamps, a second run): {}",
            passes.join(", ")
        );
        eprintln!(
            "Min system, CPU us/step recording and submitting: {:.1}",
            r.record_us_per_step
        );
        rows.push(r);
        for &shape in &sizes {
            let sites: u64 = shape.iter().map(|&n| n as u64).product();
            let model = uniform_model(shape, 0.5, 1)?;
            let cpu = if sites <= cpu_max { cpu_steps } else { 0 };
            let r = bench_model(
                &ctx,
                "uniform, 0.5 per site",
                &model,
                workgroup,
                args.sweeps,
                steps,
                cpu,
            )?;
            print(&r);
            rows.push(r);
        }
        let shape = sizes[sizes.len().min(2) - 1];
        for &d in &args.densities {
            let model = uniform_model(shape, d, 1)?;
            let r = bench_model(
                &ctx,
                &format!("uniform, {d} per site"),
                &model,
                workgroup,
                args.sweeps,
                steps,
                0,
            )?;
            print(&r);
            rows.push(r);
        }
    }
    let mut device_rows = Vec::new();
    if args.devices > 1 {
        let large = parse_size(&args.large).context("--large: expected N or NXxNYxNZ")?;
        let request = DeviceRequest::from_env()
            .with_overrides(args.gpu.backend.clone(), args.gpu.adapter.clone());
        let contexts = GpuContext::new_many(&request, args.devices)?;
        for (k, c) in contexts.iter().enumerate() {
            eprintln!("device {k}: {} ({})", c.adapter.name, c.adapter.backend);
        }
        let options = SimOptions {
            sweeps: args.sweeps,
            halo_depth: args.halo_depth,
            balance_every: args.balance_every,
            overlap_exchange: !args.no_overlap_exchange,
            ..SimOptions::default()
        };
        let large_model = uniform_model(large, 0.5, 1)?;
        println!();
        println!("| case | devices | lattice | steps | wall ms/step | of which stepping / halo writes / balancing | speedup | parallel efficiency | planes per device | halo depth | rebalances | sweeps | identical to 1 device | GPU busy / idle ms/step per device | first batch (steps): GPU ms per device |");
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (label, model, n) in [
            ("uniform, 0.5 per site", &large_model, steps.min(500)),
            ("Min system", &min, steps),
        ] {
            for r in bench_devices(&contexts, model, n, &options)? {
                println!(
                    "| {label} | {} | {}x{}x{} | {} | {:.3} | {:.3} / {:.3} / {:.3} | {:.2}x | {:.0}% | {:?} | {} | {} | {} | {} | {} | {} |",
                    r.devices,
                    r.shape[0],
                    r.shape[1],
                    r.shape[2],
                    r.steps,
                    r.wall_ms_per_step,
                    r.stepping_ms_per_step,
                    r.exchange_ms_per_step,
                    r.balancing_ms_per_step,
                    r.speedup,
                    100.0 * r.parallel_efficiency,
                    r.final_split,
                    r.halo_depth,
                    r.rebalances,
                    r.sweeps,
                    if r.identical_to_one_device {
                        "yes"
                    } else {
                        "NO"
                    },
                    gpu_columns(&r),
                    first_batch_column(&r)
                );
                device_rows.push(r);
            }
        }
    }
    if let Some(path) = args.json {
        petri_output::write_json_pretty(
            &path,
            &serde_json::json!({ "rows": rows, "devices": device_rows }),
        )?;
    }
    Ok(())
}

/// "(16) a, b": each device's GPU time for the simulation's first batch of 16 steps, to set
/// against its busy time per step; "-" without timestamps.
fn first_batch_column(r: &DeviceRow) -> String {
    if r.first_batch_ms.is_empty() {
        return "-".into();
    }
    let ms: Vec<String> = r.first_batch_ms.iter().map(|t| format!("{t:.1}")).collect();
    format!("({}) {}", r.first_batch_steps, ms.join(", "))
}

/// "a / b, c / d": each device's GPU busy / idle ms per step in the timed run (two timestamps
/// per batch); "-" without timestamps.
fn gpu_columns(r: &DeviceRow) -> String {
    if r.gpu_busy_ms_per_step.is_empty() {
        return "-".into();
    }
    r.gpu_busy_ms_per_step
        .iter()
        .zip(&r.gpu_idle_ms_per_step)
        .map(|(busy, idle)| format!("{busy:.3} / {idle:.3}"))
        .collect::<Vec<_>>()
        .join(", ")
}
