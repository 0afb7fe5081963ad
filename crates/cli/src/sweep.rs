//! `petri sweep SWEEP.json`: a parameter sweep (petri_model::sweep) on this machine's GPUs, a
//! line per task as it ends, and an exit status that says whether every task completed.

use crate::interrupt;
use anyhow::{bail, Result};
use clap::Args;
use petri_model::command::GpuArgs;
use petri_model::registry::Registry;
use petri_model::sweep::{run_sweep, Status, Sweep, SweepOptions, TaskRecord, SUMMARY_FILE};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Args)]
pub(crate) struct SweepArgs {
    /// The sweep: a base config, a grid or list of overrides by field path, seeds and run
    /// options (docs/SWEEPS.md)
    pub(crate) spec: PathBuf,
    /// Output folder: each task's run folder (task-NNNN/) and record (task-NNNN.json),
    /// summary.csv, sweep.json. Run the same spec into it again to finish what is left
    #[arg(long, default_value = "out/sweep")]
    pub(crate) out: PathBuf,
    /// Tasks run at once on the adapter chosen (--adapter), each on a device of its own
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(crate) workers: u32,
    /// One worker per adapter listed, by name or index in `petri adapters` (e.g. 0,1,2,3 for
    /// four GPUs); instead of --adapter and --workers
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["adapter", "workers"])]
    pub(crate) adapters: Vec<String>,
    /// Hand the tasks to the ranks of an MPI launch (mpirun -np N petri sweep ... --mpi): rank 0
    /// hands them out and writes the summary, each rank runs one at a time on the GPU of its
    /// node-local rank (or its entry of --adapters); needs a petri built with `--features mpi`
    #[arg(long)]
    pub(crate) mpi: bool,
    #[command(flatten)]
    gpu: GpuArgs,
}

pub(crate) fn sweep(registry: &Registry, args: SweepArgs) -> Result<()> {
    let sweep = Sweep::read(&args.spec)?;
    let request = args.gpu.request();
    if args.mpi {
        return over_ranks(registry, &sweep, &args, request);
    }
    let workers = match args.adapters.is_empty() {
        true => vec![request; args.workers as usize],
        false => args
            .adapters
            .iter()
            .map(|a| request.clone().with_overrides(None, Some(a.clone())))
            .collect(),
    };
    let total = sweep.tasks.len();
    eprintln!(
        "{total} tasks from {} on {} worker{} into {}",
        sweep.origin,
        workers.len(),
        if workers.len() == 1 { "" } else { "s" },
        args.out.display()
    );
    let ended = AtomicUsize::new(0);
    let report = |r: &TaskRecord| {
        let n = ended.fetch_add(1, Ordering::Relaxed) + 1;
        eprintln!("[{n}/{total}] {}", r.describe());
    };
    let opts = SweepOptions {
        out: args.out.clone(),
        workers,
        stop: Some(interrupt::stop_check()),
    };
    let records = run_sweep(registry, &sweep, &opts, &report)?;
    conclude(&sweep, &args, &records)
}

/// The sweep over the ranks of an MPI launch; rank 0 reports.
#[cfg(feature = "mpi")]
fn over_ranks(
    registry: &Registry,
    sweep: &Sweep,
    args: &SweepArgs,
    request: petri_engine::DeviceRequest,
) -> Result<()> {
    if args.workers != 1 {
        bail!(
            "--workers {} with --mpi: each rank runs one task at a time; launch more ranks \
             (mpirun -np N)",
            args.workers
        );
    }
    match crate::ranks::sweep(registry, sweep, &args.out, &args.adapters, request)? {
        Some(records) => conclude(sweep, args, &records),
        None => Ok(()),
    }
}

#[cfg(not(feature = "mpi"))]
fn over_ranks(
    _: &Registry,
    _: &Sweep,
    _: &SweepArgs,
    _: petri_engine::DeviceRequest,
) -> Result<()> {
    bail!(
        "--mpi: this petri was built without MPI; build it with `cargo build --release -p \
         petri-cli --features mpi` (Debian: openmpi-bin, libopenmpi-dev, libclang-dev)"
    )
}

/// The closing line and the exit status: 130 when stopped, 1 when a task failed.
fn conclude(sweep: &Sweep, args: &SweepArgs, records: &[TaskRecord]) -> Result<()> {
    let total = sweep.tasks.len();
    let count = |s: Status| records.iter().filter(|r| r.status == s).count();
    let skipped = records.iter().filter(|r| r.skipped).count();
    let summary = args.out.join(SUMMARY_FILE);
    println!(
        "{} of {total} tasks complete ({skipped} from an earlier call), {} failed; {}",
        count(Status::Complete),
        count(Status::Failed),
        summary.display()
    );
    if count(Status::Stopped) > 0 || records.len() < total {
        eprintln!(
            "the sweep stopped: `petri sweep {} --out {}` again finishes it",
            args.spec.display(),
            args.out.display()
        );
        std::process::exit(interrupt::EXIT_STATUS);
    }
    if count(Status::Failed) > 0 {
        bail!(
            "{} tasks failed (their errors are in {})",
            count(Status::Failed),
            summary.display()
        );
    }
    Ok(())
}
