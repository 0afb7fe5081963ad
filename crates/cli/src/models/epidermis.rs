//! `petri run` of an epidermis config (progress bar, summary); resuming takes the run's config
//! and the checkpoint, which holds the config's hashes.

use crate::config::read_for;
use crate::models::Model;
use crate::progress;
use crate::run::RunArgs;
use anyhow::{bail, Result};
use clap::Args;
use petri_model::epidermis::{
    checkpoint,
    run::{self, RunOptions},
    EpidermisConfig, SimOptions,
};
use std::path::Path;

/// The model name an epidermis checkpoint carries.
pub(crate) const CHECKPOINT_MODEL: &str = checkpoint::MODEL;

/// The shared `petri run` flags epidermis takes.
pub(crate) const SHARED_RUN_FLAGS: &[&str] =
    &["--steps", "--checkpoint-every", "--resume", "--workgroup"];

/// The `petri run` options of epidermis alone: none so far.
#[derive(Args, Clone)]
pub(crate) struct EpidermisRunFlags {}

/// Reads an epidermis config.
fn load_config(path: &Path) -> Result<EpidermisConfig> {
    let text = read_for(path, Model::Epidermis)?;
    Ok(EpidermisConfig::from_json(
        &text,
        &path.display().to_string(),
    )?)
}

/// The simulation's options from `--workgroup N,1,1` (the default without it).
fn sim_options(workgroup: Option<[u32; 3]>) -> Result<SimOptions> {
    let mut o = SimOptions::default();
    match workgroup {
        None => {}
        Some([x, 1, 1]) => o.workgroup = x,
        Some([x, y, z]) => {
            bail!("--workgroup {x},{y},{z}: epidermis passes are one-dimensional, give N,1,1")
        }
    }
    Ok(o)
}

pub(crate) fn run(args: RunArgs) -> Result<()> {
    let config = args
        .config
        .clone()
        .expect("dispatched on the config's model");
    let cfg = load_config(&config)?;
    crate::run::check_out(&args, Model::Epidermis)?;
    let opts = RunOptions {
        steps: args.steps,
        out_dir: args.out.clone(),
        overwrite: args.overwrite,
        sim: sim_options(args.workgroup)?,
        checkpoint_every: args.checkpoint_every,
        resume: args.resume.clone(),
    };
    let ctx = args.gpu.context()?;
    let t = std::time::Instant::now();
    let sim = run::start(&ctx, &cfg, &opts)?;
    let setup = t.elapsed().as_secs_f64();
    let first = sim.step();
    let total = opts.steps.unwrap_or(cfg.steps);
    if let Some(path) = &args.resume {
        eprintln!("resuming from {} at step {first}", path.display());
    }
    eprintln!(
        "box {} x {} (height {}), {} x {} cells, capacity {} cells, dt = {}, {total} steps \
         from step {first}",
        cfg.domain.lx,
        cfg.domain.ly,
        cfg.domain.height,
        cfg.initial.cells_x,
        cfg.initial.cells_y,
        cfg.capacity.max_cells,
        cfg.dt
    );
    let bar = progress::bar(total, "steps");
    let (_, report) = run::run_sim(&ctx, sim, &cfg, &opts, setup, |o| {
        let o = &o.observables;
        bar.set_position(o.step - first);
        bar.set_message(format!(
            "cells {} (basal {}), divisions {}",
            o.cells, o.basal_cells, o.divisions
        ));
    })?;
    bar.finish();
    let o = &report.last.observables;
    let layers = o.cells_per_layer.map(|n| n.to_string()).join(", ");
    println!(
        "step {} (t = {:.3}): {} cells ({} basal, {} suprabasal; layers 1..4+: {layers}), {} \
         elements, {} divisions, {} elements added",
        o.step,
        o.time,
        o.cells,
        o.basal_cells,
        o.suprabasal_cells,
        o.elements,
        o.divisions,
        o.added
    );
    println!(
        "{:.1} steps/s over {:.2} s; outputs in {}: {}",
        report.timings.steps_per_s,
        report.timings.run_s,
        args.out.display(),
        report.outputs.join(", ")
    );
    Ok(())
}
