//! The gliding motility assay: `petri run` of a gliding config and `petri bench gliding` (in
//! `bench`).

pub(crate) mod bench;

use crate::config::read_for;
use crate::models::Model;
use crate::progress;
use crate::run::RunArgs;
use anyhow::Result;
use clap::Args;
use petri_model::gliding::checkpoint;
use petri_model::gliding::params::GlidingConfig;
use petri_model::gliding::run::{self, RunOptions};
use petri_model::gliding::sim::SimOptions;
use std::path::Path;

pub(crate) const CHECKPOINT_MODEL: &str = checkpoint::MODEL;

pub(crate) const SHARED_RUN_FLAGS: &[&str] =
    &["--steps", "--checkpoint-every", "--resume", "--workgroup"];

#[derive(Args, Clone)]
pub(crate) struct GlidingRunFlags {}

fn load_config(path: &Path) -> Result<GlidingConfig> {
    let text = read_for(path, Model::Gliding)?;
    Ok(GlidingConfig::from_json(
        &text,
        &path.display().to_string(),
    )?)
}

pub(crate) fn sim_options(workgroup: Option<[u32; 3]>) -> Result<SimOptions> {
    let mut o = SimOptions::default();
    if let Some(x) = crate::models::one_dimensional_workgroup("gliding", workgroup)? {
        o.workgroup = x;
    }
    Ok(o)
}

pub(crate) fn run(args: RunArgs) -> Result<()> {
    let config = args
        .config
        .clone()
        .expect("dispatched on the config's model");
    let cfg = load_config(&config)?;
    crate::run::check_out(&args, Model::Gliding)?;
    let opts = RunOptions {
        steps: args.steps,
        out_dir: args.out.clone(),
        overwrite: args.overwrite,
        sim: sim_options(args.workgroup)?,
        checkpoint_every: args.checkpoint_every,
        resume: args.resume.clone(),
        stop: Some(crate::interrupt::stop_check()),
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
    let g = &cfg.grid;
    eprintln!(
        "{} x {} cells over {} x {}, {} angles, {} arc cells, {} z levels (filaments at z = {:.4}), \
         {} motor offsets, dt at most {} (courant_safety {}), {total} steps from step {first}",
        g.nx,
        g.ny,
        g.lx,
        g.ly,
        g.ntheta,
        g.ns,
        g.nz,
        sim.grid().z[sim.grid().z0_level],
        sim.tables().offsets.len(),
        cfg.dt,
        cfg.courant_safety
    );
    let bar = progress::bar(total, "steps");
    let (_, report) = run::run_sim(&ctx, sim, &cfg, &opts, setup, |o| {
        bar.set_position(o.step - first);
        bar.set_message(format!(
            "speed {:.3}, polar {:.3}, nematic {:.3}",
            o.mean_speed, o.polar_order, o.nematic_order
        ));
    })?;
    bar.finish();
    let o = &report.last;
    println!(
        "step {} (t = {:.3}, dt {:.4}): mean gliding speed {:.4}, polar order {:.3} (local \
         {:.3}), nematic order {:.3}; motors bound {:.4}, free {:.4} of {:.4}; fluid kinetic \
         energy {:.3e}",
        o.step,
        o.time,
        o.dt,
        o.mean_speed,
        o.polar_order,
        o.local_polar_order,
        o.nematic_order,
        o.bound_motors,
        o.free_motors,
        o.total_motors,
        o.fluid_kinetic_energy
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
