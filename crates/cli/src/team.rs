//! The ranks of an MPI launch (mpirun, srun) as petri_model's `Team`, over rsmpi: each rank's
//! host, its node-local rank (from the shared-memory communicator) and the GPU that gives it,
//! and messages of words between ranks. `petri run --mpi` and `petri sweep --mpi` start here.

use anyhow::{anyhow, Result};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use petri_engine::{list_adapters, DeviceRequest};
use petri_model::team::Team;
use std::mem::ManuallyDrop;
use std::sync::Arc;

/// The longest host name (or other text of `gather_text`) kept (MPI_MAX_PROCESSOR_NAME is 256 in OpenMPI and MPICH).
const HOST_BYTES: usize = 256;

/// MPI started for this process; it ends (MPI_Finalize) when the launch is dropped, or, when
/// dropped by a panic, the whole launch ends (MPI_Abort): MPI_Finalize waits for every rank,
/// and the others would wait for this one.
pub(crate) struct Launch {
    pub(crate) team: Arc<MpiTeam>,
    /// The rank's place among the ranks of its node.
    pub(crate) local_rank: usize,
    universe: ManuallyDrop<Universe>,
}

impl Drop for Launch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("petri: {} panicked; ending every rank", self.describe());
            SimpleCommunicator::world().abort(101);
        }
        // SAFETY: dropped once, here; nothing uses the universe after.
        unsafe { ManuallyDrop::drop(&mut self.universe) }
    }
}

impl Launch {
    pub(crate) fn start() -> Result<Self> {
        let universe = mpi::initialize().ok_or_else(|| anyhow!("MPI was started twice"))?;
        let world = universe.world();
        let host = mpi::environment::processor_name().unwrap_or_else(|_| "?".into());
        let hosts = gather_text(&host);
        let local_rank = world.split_shared(world.rank()).rank() as usize;
        Ok(Self {
            team: Arc::new(MpiTeam {
                rank: world.rank() as usize,
                size: world.size() as usize,
                hosts,
            }),
            local_rank,
            universe: ManuallyDrop::new(universe),
        })
    }

    /// Rank 0, which writes the outputs.
    pub(crate) fn is_lead(&self) -> bool {
        self.team.rank == 0
    }

    /// Ends every rank of the launch after an error that leaves the others waiting for this
    /// one (outside the exchanges that report errors to rank 0), naming this rank.
    pub(crate) fn abort(&self, e: &anyhow::Error) -> ! {
        eprintln!("error: {}: {e:#}; ending every rank", self.describe());
        SimpleCommunicator::world().abort(1)
    }

    /// "rank R of N on HOST".
    pub(crate) fn describe(&self) -> String {
        let t = &self.team;
        format!("rank {} of {} on {}", t.rank, t.size, t.hosts[t.rank])
    }

    /// The device of this rank: `adapters`' entry for its node-local rank; else the
    /// `--adapter` asked for; else, on a node with several hardware GPUs, the one at its
    /// node-local rank (round robin), so that the ranks of a node share its GPUs out.
    pub(crate) fn device(
        &self,
        request: DeviceRequest,
        adapters: &[String],
    ) -> Result<DeviceRequest> {
        let local = self.local_rank;
        if !adapters.is_empty() {
            let a = adapters[local % adapters.len()].clone();
            return Ok(request.with_overrides(None, Some(a)));
        }
        if request.adapter.is_some() {
            return Ok(request);
        }
        let hardware = list_adapters(request.backend.as_deref())?
            .iter()
            .filter(|a| !a.is_software())
            .count();
        Ok(match hardware > 1 {
            // Hardware adapters come first in the list.
            true => request.with_overrides(None, Some((local % hardware).to_string())),
            false => request,
        })
    }
}

/// Every rank's `text` (cut at 256 bytes), in rank order, on every rank: a collective call.
pub(crate) fn gather_text(text: &str) -> Vec<String> {
    let world = SimpleCommunicator::world();
    let mut mine = [0u8; HOST_BYTES];
    let n = text.len().min(HOST_BYTES);
    mine[..n].copy_from_slice(&text.as_bytes()[..n]);
    let mut all = vec![0u8; HOST_BYTES * world.size() as usize];
    world.all_gather_into(&mine[..], &mut all[..]);
    all.chunks(HOST_BYTES)
        .map(|c| {
            let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
            String::from_utf8_lossy(&c[..end]).into_owned()
        })
        .collect()
}

/// The world communicator's ranks. MPI runs single-threaded here: only the main thread calls
/// it.
pub(crate) struct MpiTeam {
    rank: usize,
    size: usize,
    hosts: Vec<String>,
}

impl Team for MpiTeam {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn host(&self, rank: usize) -> String {
        self.hosts.get(rank).cloned().unwrap_or_else(|| "?".into())
    }
    fn send(&self, to: usize, words: &[u64]) {
        SimpleCommunicator::world()
            .process_at_rank(to as i32)
            .send(words);
    }
    fn receive(&self, from: usize) -> Vec<u64> {
        SimpleCommunicator::world()
            .process_at_rank(from as i32)
            .receive_vec::<u64>()
            .0
    }
}
