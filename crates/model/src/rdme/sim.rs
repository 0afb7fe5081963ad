//! The RDME simulation on one or more devices: the lattice split into z-slabs, one per device,
//! by the scheduler's slab decomposition (`petri_scheduler::slabs`: halos `halo_depth` planes
//! deep exchanged through host memory every `halo_depth` steps, each device stepping its halo
//! planes in between, see `shaders/rdme/region.wgsl`; load balancing that moves slab boundaries
//! toward the faster device when that saves more time than the move costs). Each slab is a
//! `slab::Slab`; a move reads the lattice back and builds new slabs.
//!
//! Random numbers are keyed by global site, step and substep, and overflow is resolved within a
//! z plane, so the lattice after any number of steps is bitwise the same on 1 or N devices and
//! for any split.

use super::config::RdmeModel;
use super::lattice::Lattice;
use super::options::SimOptions;
use super::slab::Slab;
use crate::error::{ModelError, Result};
use petri_engine::{BatchTimes, GpuContext, Profiler};
use petri_scheduler::slabs::{
    check_split, equal_split, BalanceOptions, Decomposition, DecompositionOptions, FieldLayout,
    Rebuild, SlabExtent,
};

/// Word planes of the lattice state: the fields of the halo exchange.
const WORD_PLANES: u32 = 4;

/// Counts at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Observables {
    pub step: u64,
    pub time_s: f64,
    /// [type][species id] particle counts.
    pub by_type: Vec<Vec<u64>>,
    /// [z plane][species id] particle counts.
    pub by_plane: Vec<Vec<u64>>,
    /// Overflow particles moved to another site so far.
    pub overflow_moved: u64,
}

impl Observables {
    pub fn species_total(&self, id: usize) -> u64 {
        self.by_type.iter().map(|t| t[id]).sum()
    }
}

pub struct RdmeSim {
    pub model: RdmeModel,
    /// The slabs, one per device, and how they are stepped, exchanged and balanced.
    pub slabs: Decomposition<Slab>,
    /// Steps recorded so far.
    pub step: u64,
    options: SimOptions,
    /// Overflow moves counted by slabs since replaced (their counters start at zero).
    moved_before: u64,
    /// Site types of the whole lattice (fixed; kept to assemble read-backs).
    types: Vec<u8>,
}

impl RdmeSim {
    /// A simulation of `lattice` at `step` over the given devices (one slab each).
    pub fn new(
        contexts: Vec<GpuContext>,
        model: &RdmeModel,
        lattice: &Lattice,
        step: u64,
        options: &SimOptions,
    ) -> Result<Self> {
        let [nx, ny, nz] = lattice.shape;
        if contexts.is_empty() {
            return Err(ModelError::Invalid {
                field: "devices".into(),
                value: "0".into(),
                allowed: "at least one device".into(),
            });
        }
        if contexts.len() as u32 > nz {
            return Err(crate::error::invalid(
                "devices",
                contexts.len(),
                format!("at most lattice.shape.z = {nz} devices (one z plane each at least)"),
            ));
        }
        let split = match &options.split {
            Some(s) => {
                check_split(s, contexts.len(), nz)
                    .map_err(|allowed| crate::error::invalid("split", format!("{s:?}"), allowed))?;
                s.clone()
            }
            None => equal_split(nz, contexts.len()),
        };
        let decomposition = DecompositionOptions {
            halo_depth: options.halo_depth,
            balance: BalanceOptions {
                every: options.balance_every,
                threshold: options.balance_threshold,
                move_cost: options.move_cost,
            },
        };
        // The occupied words of a site come first: most boundary sites use one or two.
        let layout = FieldLayout {
            plane_words: nx * ny,
            fields: WORD_PLANES,
            first_fields: 2,
        };
        let slabs = Decomposition::new(&contexts, &split, layout, decomposition, |ctx, e| {
            Slab::new(ctx.clone(), model, lattice, e, step, options)
        })?;
        Ok(Self {
            model: model.clone(),
            slabs,
            step,
            options: options.clone(),
            moved_before: 0,
            types: lattice.types.clone(),
        })
    }

    /// Steps between halo exchanges (1 on a single device).
    pub fn halo_depth(&self) -> u32 {
        self.slabs.halo_depth()
    }

    pub fn split(&self) -> Vec<u32> {
        self.slabs.split()
    }

    pub fn time_s(&self) -> f64 {
        self.step as f64 * self.model.config.tau_s
    }

    /// Most steps one GPU submission holds (`SimOptions::max_steps_per_batch`).
    pub fn steps_per_batch(&self) -> u64 {
        self.options.max_steps_per_batch as u64
    }

    /// Advances `steps` steps. Stops with an error if particles could not be placed.
    pub fn advance(&mut self, steps: u64) -> Result<()> {
        let start = self.step;
        let rebuild = rebuild(
            &self.model,
            &self.options,
            &self.types,
            &mut self.moved_before,
        );
        let done = self.slabs.advance(steps, rebuild);
        self.step = self.slabs.step();
        done?;
        self.check_overflow(start)
    }

    /// Rebuilds the slabs with the given planes per device.
    pub fn rebalance(&mut self, split: &[u32]) -> Result<()> {
        let rebuild = rebuild(
            &self.model,
            &self.options,
            &self.types,
            &mut self.moved_before,
        );
        self.slabs.rebalance(split, rebuild)
    }

    fn check_overflow(&self, start: u64) -> Result<()> {
        for (k, slab) in self.slabs.parts().iter().enumerate() {
            let [lost, unresolved, _] = slab.overflow_counts()?;
            if lost > 0 || unresolved > 0 {
                return Err(ModelError::Overflow {
                    message: format!(
                        "between step {start} and step {}: device {k} lost {lost} particles past \
                         the overflow list capacity of {} and found no room for {unresolved} in \
                         their z plane; use a finer lattice or fewer particles",
                        self.step, self.options.overflow_capacity
                    ),
                });
            }
        }
        Ok(())
    }

    /// Counts by type and plane, summed over devices.
    pub fn observe(&self) -> Result<Observables> {
        let nt = self.model.n_types();
        let ns = self.model.n_species_ids();
        let nz = self.model.config.lattice.shape[2] as usize;
        let mut by_type = vec![vec![0u64; ns]; nt];
        let mut by_plane = vec![vec![0u64; ns]; nz];
        let mut moved = self.moved_before;
        for slab in self.slabs.parts() {
            let c = slab.counts()?;
            for t in 0..nt {
                for s in 0..ns {
                    by_type[t][s] += c[t * ns + s] as u64;
                }
            }
            for z in 0..nz {
                for s in 0..ns {
                    by_plane[z][s] += c[nt * ns + z * ns + s] as u64;
                }
            }
            moved += slab.overflow_counts()?[2] as u64;
        }
        Ok(Observables {
            step: self.step,
            time_s: self.time_s(),
            by_type,
            by_plane,
            overflow_moved: moved,
        })
    }

    /// The whole lattice, assembled from the owned planes of every device.
    pub fn read_lattice(&self) -> Result<Lattice> {
        assemble_lattice(self.slabs.parts(), &self.model, &self.types)
    }

    /// From now on, times every batch of steps on each device with two timestamps
    /// (`BatchTimer`: no waits, no extra passes, so the timed run itself is measured); the
    /// counts start over. Up to 2048 batches per device and slab layout; later ones count as
    /// untimed. Without timestamp queries `batch_times` stays empty.
    pub fn time_batches(&mut self) {
        self.slabs.time_batches()
    }

    /// Each device's GPU time since `time_batches` (waits for the GPU); empty when batches are
    /// not timed or the devices have no timestamp queries. Over a load-balancing move the
    /// spans of the old and the new slabs add up, leaving out the rebuild between them.
    pub fn batch_times(&self) -> Result<Vec<BatchTimes>> {
        Ok(self.slabs.batch_times()?)
    }

    /// Records `steps` steps (single device) with per-pass timestamps.
    pub fn advance_profiled(&mut self, steps: u32, profiler: &mut Profiler) -> Result<()> {
        let start = self.step;
        let slab = &mut self.slabs.parts_mut()[0];
        let mut enc = slab.encode(steps, Some(profiler));
        profiler.resolve(&mut enc);
        slab.ctx.queue.submit([enc.finish()]);
        self.step += steps as u64;
        self.check_overflow(start)
    }

    /// Waits until every device has finished its work.
    pub fn wait(&self) -> Result<()> {
        Ok(self.slabs.wait()?)
    }
}

/// The whole lattice from the owned planes of `slabs`.
fn assemble_lattice(slabs: &[Slab], model: &RdmeModel, types: &[u8]) -> Result<Lattice> {
    let mut lat = Lattice::empty(model.config.lattice.shape, types.to_vec());
    for slab in slabs {
        lat.put_slab_words(slab.extent.own.0, &slab.read_owned()?);
    }
    lat.clear_unused_words();
    Ok(lat)
}

/// How a boundary move rebuilds the slabs: reads the lattice and the overflow moves from the
/// old ones, builds the new ones on the same devices.
fn rebuild<'a>(
    model: &'a RdmeModel,
    options: &'a SimOptions,
    types: &'a [u8],
    moved_before: &'a mut u64,
) -> impl Rebuild<Slab> + 'a {
    move |old: &[Slab], extents: &[SlabExtent], step: u64| {
        let lattice = assemble_lattice(old, model, types)?;
        for slab in old {
            *moved_before += slab.overflow_counts()?[2] as u64;
        }
        old.iter()
            .zip(extents)
            .map(|(slab, e)| Slab::new(slab.ctx.clone(), model, &lattice, e, step, options))
            .collect()
    }
}
