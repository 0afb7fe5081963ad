//! `mpirun -np N petri sweep SPEC --mpi`: the sweep's tasks over the ranks of an MPI launch
//! (mpirun, srun). Rank 0 prepares the folder, hands out tasks as ranks free up, prints a line
//! per task and writes the summary; every other rank runs the tasks it is handed into the
//! folder (which every rank must reach, e.g. a shared file system), each on the GPU of its
//! node-local rank. With one rank, rank 0 runs them itself.

use crate::interrupt;
use crate::team::{gather_text, Launch};
use anyhow::Result;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use petri_engine::DeviceRequest;
use petri_model::registry::Registry;
use petri_model::sweep::{self, Status, Sweep, SweepOptions, TaskRecord};
use petri_model::team::Team;
use std::path::Path;

/// Message to rank 0: a task ended (its index) or, first, the rank is ready (-1). Message from
/// rank 0: the task to run, or -1 for none left.
const NONE: i64 = -1;
/// The sweep folder's list of the ranks of the last call: rank, host, adapter asked for.
const RANKS_FILE: &str = "ranks.json";

/// Runs the sweep as one rank of the launch; returns the records on rank 0 (None elsewhere).
/// `out` is the sweep's folder, `adapters` the `--adapters` list (one per node-local rank).
pub(crate) fn sweep(
    registry: &Registry,
    sweep: &Sweep,
    out: &Path,
    adapters: &[String],
    request: DeviceRequest,
) -> Result<Option<Vec<TaskRecord>>> {
    let launch = Launch::start()?;
    let world = SimpleCommunicator::world();
    let (rank, size) = (world.rank(), world.size());
    // An error here, or a panic later (the launch ends every rank then), would leave the
    // other ranks waiting for this one.
    let request = launch
        .device(request, adapters)
        .unwrap_or_else(|e| launch.abort(&e));
    let opts = SweepOptions {
        out: out.to_path_buf(),
        workers: vec![request.clone()],
        stop: Some(interrupt::stop_check()),
    };
    // Rank 0 prepares the folder; the others start once it has (or stop if it could not).
    let prepared = match rank {
        0 => sweep::prepare(sweep, out),
        _ => Ok(()),
    };
    let mut ok = prepared.is_ok() as i32;
    world.process_at_rank(0).broadcast_into(&mut ok);
    if ok == 0 {
        return match prepared {
            Err(e) => Err(e.into()),
            Ok(()) => Ok(None),
        };
    }
    let adapter = request.adapter.as_deref().unwrap_or("(the default)");
    eprintln!("{}: adapter {adapter}", launch.describe());
    // Every rank's host and adapter, for the folder (each task's manifest names the adapter
    // it ran on).
    let adapters = gather_text(adapter);
    if rank == 0 {
        let ranks: Vec<_> = adapters
            .iter()
            .enumerate()
            .map(|(r, a)| serde_json::json!({"rank": r, "host": launch.team.host(r), "adapter": a}))
            .collect();
        petri_output::write_json_pretty(&out.join(RANKS_FILE), &ranks)
            .unwrap_or_else(|e| launch.abort(&e.into()));
    }
    let seed_flag = sweep
        .seed_flag(registry)
        .unwrap_or_else(|e| launch.abort(&e.into()));
    if size == 1 {
        let report = |r: &TaskRecord| eprintln!("{}", r.describe());
        return Ok(Some(sweep::run_sweep(registry, sweep, &opts, &report)?));
    }
    if rank == 0 {
        hand_out(&world, sweep, &opts);
        return Ok(Some(sweep::finish(sweep, out)?));
    }
    let root = world.process_at_rank(0);
    let mut done = NONE;
    loop {
        root.send(&done);
        let (next, _) = root.receive::<i64>();
        if next < 0 {
            return Ok(None);
        }
        let task = &sweep.tasks[next as usize];
        sweep::run_task(registry, sweep, task, seed_flag, &request, &opts);
        done = next;
    }
}

/// Rank 0's part: answers each rank's message with the next task, until every rank has been
/// told there is none; after a stop (Ctrl-C, or a task stopped) it hands out no more.
fn hand_out(world: &impl Communicator, sweep: &Sweep, opts: &SweepOptions) {
    let (mut next, mut working) = (0usize, world.size() - 1);
    let mut stopped = false;
    while working > 0 {
        let (done, status) = world.any_process().receive::<i64>();
        if done >= 0 {
            match sweep::read_record(&opts.out, &sweep.tasks[done as usize]) {
                Some(r) => {
                    stopped |= r.status == Status::Stopped;
                    eprintln!("rank {}: {}", status.source_rank(), r.describe());
                }
                None => eprintln!(
                    "rank {}: task {} left no record",
                    status.source_rank(),
                    done + 1
                ),
            }
        }
        stopped |= opts.stop.as_ref().is_some_and(|s| s.requested());
        let give = if !stopped && next < sweep.tasks.len() {
            next += 1;
            next as i64 - 1
        } else {
            working -= 1;
            NONE
        };
        world.process_at_rank(status.source_rank()).send(&give);
    }
}
