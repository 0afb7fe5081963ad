//! One device's part of the lattice: a z-slab with its halo planes, its buffers and its step
//! plan (x, y, z sweeps, reactions, overflow resolution).
//!
//! Buffers: the ping-pong pair `particles` = [a, b]; at step s the state is in the current half
//! c (a when s is even) and the other half n takes the sweeps: x c->n, y n->c, z with the
//! reactions c->n (one pass: a dispatch costs more than the reactions), overflow resolution in
//! n, which then holds the state (and is current at s + 1). Each pass covers the planes
//! `shaders/rdme/region.wgsl` gives for the step. The halo planes of the state (`halo_depth`
//! deep) are refreshed from the neighbours every `halo_depth` steps or fewer by the scheduler's
//! slab decomposition (`petri_scheduler::slabs`, for which a slab is a `SlabPart`); in between
//! the slab steps them itself. The state's four word planes are the exchange's fields: only
//! the words the boundary sites use are sent (counted by rdme/halo_words.wgsl).
//!
//! The sweeps look at every site of the slab (rdme/diffuse.wgsl) or only at the sites with
//! particles in reach, found in three occupancy bitmaps (`occupancy`,
//! rdme/diffuse_occupied.wgsl; with halos, rdme/mark_halos.wgsl marks the halo planes after
//! each exchange); `Sweeps` chooses.

use super::config::RdmeModel;
use super::lattice::Lattice;
use super::options::{SimOptions, Sweeps};
use crate::error::Result;
use crate::shaders;
use petri_engine::{buffers, GpuContext, Profiler};
use petri_scheduler::slabs::{SlabExtent, SlabPart};
use petri_scheduler::{Binding, OnDemandPass, PassDesc, PassRef, StepPlan};

/// The `Lattice` uniform of `shaders/rdme/common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LatticeUniforms {
    pub nx: u32,
    pub ny: u32,
    pub planes: u32,
    pub sites: u32,
    pub z_base: u32,
    pub nz: u32,
    pub own_begin: u32,
    pub own_end: u32,
    pub n_types: u32,
    pub n_species: u32,
    pub n_reactions: u32,
    pub overflow_capacity: u32,
    pub zeroth_order: u32,
    /// Planes of halo on each side with a neighbour; steps between halo refreshes at most.
    pub halo_depth: u32,
    /// Step (low 32 bits) at which the halos were last refreshed.
    pub halo_start: u32,
    pub _pad: u32,
}

/// PART, PART_BEGIN and PART_END of `shaders/rdme/diffuse_occupied.wgsl`: which planes of its
/// step region a sweep covers.
type SweepPart = (u32, u32, u32);

/// Overflow header words (`shaders/rdme/common.wgsl`).
pub const OVERFLOW_HEADER: usize = 5;

pub struct Slab {
    pub ctx: GpuContext,
    /// The global planes this device owns and holds.
    pub extent: SlabExtent,
    pub uniforms: LatticeUniforms,
    pub plan: StepPlan,
    /// Whether the sweeps look at the occupied sites only (`Sweeps`).
    pub occupied_sweeps: bool,
    /// Threads per workgroup of the occupied sweeps (`occupied_threads`; unused without them).
    pub occupied_threads: u32,
    lattice_uniform: wgpu::Buffer,
    overflow: wgpu::Buffer,
    counts_len: usize,
    /// Counts by type and plane (`shaders/rdme/observe.wgsl`), into plan buffer "counts".
    observe: OnDemandPass,
    workgroups_all: [u32; 3],
    workgroups_own: [u32; 3],
    /// With halos: counts the word planes the boundary planes use into plan buffer
    /// "halo words" (`shaders/rdme/halo_words.wgsl`), the halo exchange's field count.
    halo_words: Option<OnDemandPass>,
    /// `shaders/rdme/mark_halos.wgsl` (a slab with halos and the occupied sweeps), and whether
    /// halos were written since it last ran.
    mark_halos: Option<OnDemandPass>,
    halos_written: bool,
    /// The variant passes of the first x and y sweeps after an exchange: x's and y's part
    /// before the exchange, then x's and y's part after it (`SimOptions::overlap_exchange` on a
    /// slab with halos and the occupied sweeps).
    head_parts: Option<[usize; 4]>,
    /// Whether the next step's head (the parts before the exchange) was submitted
    /// (`submit_head`), so the next batch starts with the other parts.
    head_submitted: bool,
}

/// Sites (a run of consecutive sites) each thread of a sweep looks at, as `SimOptions` asks:
/// fewer threads, so fewer rounds of workgroups wait for their few busy sites (rdme/diffuse.wgsl).
/// By default 4 on a GPU (fewer threads wait on few busy sites) and 1 on a software adapter:
/// lavapipe (Mesa 22.3) compiles a pass again at every bind when inlining its uniforms halves
/// the code (lattices 8 sites wide in x) and keeps every compile, so its memory grows without
/// bound at 4 sites per thread, and with look-first loops at 1; with one site the sweeps look
/// and queue at once (rdme/diffuse.wgsl). Later Mesa releases keep one compile per set of
/// values. Measurements: git history of this comment and docs/models/rdme.md.
pub fn sites_per_thread(ctx: &GpuContext, options: &SimOptions) -> Result<u32> {
    let sites = options
        .sites_per_thread
        .unwrap_or(if ctx.adapter.is_software() { 1 } else { 4 });
    if ![1, 2, 4, 8].contains(&sites) {
        return Err(crate::error::invalid(
            "sites_per_thread",
            sites,
            "1, 2, 4 or 8",
        ));
    }
    Ok(sites)
}

/// Workgroup shape of the sweep along `axis`, from the configured (wx, wy): as many threads, laid
/// out so that a site and its neighbours along the axis are near in a warp (32 consecutive
/// invocations). The y sweep: a warp spans 32 sites along x, each thread a run of sites along y
/// (rdme/diffuse.wgsl), so most neighbours are the thread's own. The z sweep: a warp spans 8
/// sites along x and 4 threads along z, each with a run of planes. In either, a particle's draw
/// is often made by one warp instead of three. The x sweep keeps the configured shape (a warp
/// along x), its threads' runs along z.
pub fn sweep_shape(axis: u32, [wx, wy]: [u32; 2]) -> [u32; 3] {
    let threads = wx * wy;
    if axis == 0 || threads % 32 != 0 || threads > 512 {
        return [wx, wy, 1];
    }
    match axis {
        1 => [32, threads / 32, 1],
        _ => [8, 1, threads / 8],
    }
}

/// Threads per workgroup of the occupied sweeps (2048 sites each), by particles per site at the
/// start: 128 threads on sparse lattices (below 0.02 per site), where most threads find
/// nothing; 256 on denser ones, where more threads share the queued sites (512 was slower).
fn occupied_threads(particles_per_site: f64) -> u32 {
    if particles_per_site < 0.02 {
        128
    } else {
        256
    }
}

/// Whether the sweeps of a slab (with its halos, `sites` sites holding `particles`) look at the
/// occupied sites only. `Auto` takes every site on small crowded slabs, where the occupied
/// sweeps' one thread per 8 sites leaves the GPU part idle (below 2 M sites with 0.1 particles
/// per site or more), and off Vulkan: the overflow placement of the occupied z sweep relies on `storageBarrier`
/// being a device-scope fence, which naga's SPIR-V is and which was tested there (lavapipe,
/// the H200); naga's GLSL does not mark the buffers `coherent` (the tests pass on llvmpipe's GL
/// all the same, which proves little), and Metal and DX12 were not tested.
fn occupied_sweeps(sweeps: Sweeps, vulkan: bool, sites: u64, particles: u64) -> bool {
    let crowded_and_small = sites < 1 << 21 && particles as f64 >= 0.1 * sites as f64;
    match sweeps {
        Sweeps::Auto => vulkan && !crowded_and_small,
        Sweeps::EverySite => false,
        Sweeps::Occupied => true,
    }
}

/// The three occupancy bitmaps of rdme/diffuse_occupied.wgsl for a slab whose state is `words`:
/// map 0 (the x sweep's source) from the state, maps 1 and 2 empty (the other half of the pair
/// starts empty).
fn occupancy_maps(words: &[u32], sites: usize) -> Vec<u32> {
    let n = sites.div_ceil(32);
    let mut maps = vec![0u32; 3 * n];
    for (i, &w) in words[..sites].iter().enumerate() {
        if w != 0 {
            maps[i / 32] |= 1 << (i % 32);
        }
    }
    maps
}

impl Slab {
    /// Builds the slab of `extent` of `lattice` (which holds the whole lattice).
    pub fn new(
        ctx: GpuContext,
        model: &RdmeModel,
        lattice: &Lattice,
        extent: &SlabExtent,
        step: u64,
        options: &SimOptions,
    ) -> Result<Self> {
        let SimOptions {
            workgroup,
            overflow_capacity,
            max_steps_per_batch,
            ..
        } = *options;
        let [nx, ny, nz] = lattice.shape;
        let SlabExtent {
            own,
            base,
            end,
            halo_depth,
        } = *extent;
        let local = lattice.slab(base, end);
        let planes = end - base;
        let sites = local.sites() as u32;
        let has_halos = extent.has_halos();
        // Counting takes a pass over the slab: only when the kind of sweep may depend on it (a
        // slab is rebuilt at every boundary move).
        let particles: u64 = match options.sweeps {
            Sweeps::EverySite => 0,
            _ => local.species_totals(model.n_species_ids()).iter().sum(),
        };
        let occupied = occupied_sweeps(
            options.sweeps,
            ctx.adapter.backend == "Vulkan",
            sites as u64,
            particles,
        );
        let occupied_threads = occupied_threads(particles as f64 / sites as f64);
        let uniforms = LatticeUniforms {
            nx,
            ny,
            planes,
            sites,
            z_base: base,
            nz,
            own_begin: own.0 - base,
            own_end: own.1 - base,
            n_types: model.n_types() as u32,
            n_species: model.n_species_ids() as u32,
            n_reactions: model.reactions.len() as u32,
            overflow_capacity,
            zeroth_order: model.reactions.iter().filter(|r| r.order == 0).count() as u32,
            halo_depth,
            halo_start: step as u32,
            _pad: 0,
        };
        let [wx, wy] = workgroup;
        let sites_per_thread = sites_per_thread(&ctx, options)?;
        // The sweeps queue busy sites in a workgroup array of 1024 (rdme/diffuse.wgsl).
        if wx * wy * sites_per_thread > 1024 {
            return Err(crate::error::invalid(
                "workgroup",
                format!("{wx}x{wy}"),
                format!(
                    "at most {} threads per workgroup with {sites_per_thread} sites per thread",
                    1024 / sites_per_thread
                ),
            ));
        }
        ctx.check_workgroup_size("rdme passes", [wx, wy, 1])?;
        for axis in 1..3 {
            ctx.check_workgroup_size("rdme sweeps", sweep_shape(axis, workgroup))?;
        }
        let u = buffers::uniform_from(&ctx, "rdme lattice", &uniforms);
        // The state goes into the half that is current at `step` (a when it is even).
        let state = buffers::storage_from(&ctx, "rdme particles", &local.words)?;
        let other = buffers::storage_zeroed(&ctx, "rdme particles", 16 * sites as u64)?;
        let [a, b] = match step % 2 {
            0 => [state, other],
            _ => [other, state],
        };
        let types = buffers::storage_from(&ctx, "rdme site types", &local.packed_types())?;
        let hop = buffers::storage_from(&ctx, "rdme hop probabilities", &model.hop)?;
        // A binding needs one whole element even when there are no reactions.
        let mut table = model.reactions.clone();
        if table.is_empty() {
            table.push(bytemuck::Zeroable::zeroed());
        }
        let reactions = buffers::storage_from(&ctx, "rdme reactions", &table)?;
        let overflow = buffers::storage_zeroed(
            &ctx,
            "rdme overflow",
            4 * (OVERFLOW_HEADER as u64 + 2 * overflow_capacity as u64),
        )?;
        let counts_len = model.n_species_ids() * (model.n_types() + nz as usize);
        let counts = buffers::storage_zeroed(&ctx, "rdme counts", 4 * counts_len as u64)?;
        let halo_words = buffers::storage_zeroed(&ctx, "rdme halo words", 4)?;

        let mut plan = StepPlan::new(&ctx, model.config.seed, max_steps_per_batch);
        plan.step = step;
        plan.add_pair("particles", [a.clone(), b.clone()]);
        for (name, buf) in [
            ("lattice", u.clone()),
            ("types", types.clone()),
            ("hop", hop),
            ("reactions", reactions),
            ("overflow", overflow.clone()),
            ("counts", counts),
            ("halo words", halo_words),
        ] {
            plan.add_buffer(name, buf);
        }
        if occupied {
            let maps = occupancy_maps(&local.words, sites as usize);
            plan.add_buffer(
                "occupancy",
                buffers::storage_from(&ctx, "rdme occupancy", &maps)?,
            );
        }
        let gx = nx.div_ceil(wx);
        let gy = ny.div_ceil(wy);
        // Every pass is dispatched over all local planes and skips those outside its region.
        let workgroups_all = [gx, gy, planes];
        let workgroups_own = [gx, gy, own.1 - own.0];
        let wg = vec![("WX", wx as f64), ("WY", wy as f64)];
        // Part 0: the whole step region; 1: planes [begin, end); 2: the rest (PART in
        // rdme/diffuse_occupied.wgsl).
        let sweep = |label, axis: u32, react: bool, part: SweepPart, from: Binding, to: Binding| {
            let mut bindings = vec![
                Binding::uniform("lattice"),
                from,
                to,
                Binding::read("types"),
                Binding::read("hop"),
                Binding::read_write("overflow"),
                Binding::read("reactions"),
            ];
            let flags = [("AXIS", axis as f64), ("REACT", react as u8 as f64)];
            if occupied {
                // 2048 sites (64 bitmap words) per workgroup.
                let groups = sites.div_ceil(2048);
                let gx = groups.min(32768);
                bindings.push(Binding::read_write("occupancy"));
                let mut constants = flags.to_vec();
                constants.push(("THREADS", occupied_threads as f64));
                constants.push(("HALOS", has_halos as u8 as f64));
                constants.push(("PART", part.0 as f64));
                constants.push(("PART_BEGIN", part.1 as f64));
                constants.push(("PART_END", part.2 as f64));
                for (name, value) in [
                    ("NX", uniforms.nx),
                    ("NY", uniforms.ny),
                    ("NZ", uniforms.nz),
                    ("PLANES", uniforms.planes),
                    ("Z_BASE", uniforms.z_base),
                    ("OWN_BEGIN", uniforms.own_begin),
                    ("OWN_END", uniforms.own_end),
                    ("HALO_DEPTH", uniforms.halo_depth),
                    ("N_TYPES", uniforms.n_types),
                    ("N_SPECIES", uniforms.n_species),
                    ("N_REACTIONS", uniforms.n_reactions),
                    ("OVERFLOW_CAPACITY", uniforms.overflow_capacity),
                    ("ZEROTH_ORDER", uniforms.zeroth_order),
                ] {
                    constants.push((name, value as f64));
                }
                return PassDesc {
                    label,
                    entry: shaders::rdme::diffuse_occupied::DIFFUSE_OCCUPIED,
                    bindings,
                    workgroups: [gx, groups.div_ceil(gx), 1],
                    constants,
                };
            }
            let [sx, sy, sz] = sweep_shape(axis, workgroup);
            let mut constants = vec![
                ("WX", sx as f64),
                ("WY", sy as f64),
                ("WZ", sz as f64),
                ("SITES", sites_per_thread as f64),
            ];
            constants.extend(flags);
            PassDesc {
                label,
                entry: shaders::rdme::diffuse::DIFFUSE,
                bindings,
                workgroups: match axis {
                    1 => [
                        nx.div_ceil(sx),
                        ny.div_ceil(sy * sites_per_thread),
                        planes.div_ceil(sz),
                    ],
                    _ => [
                        nx.div_ceil(sx),
                        ny.div_ceil(sy),
                        planes.div_ceil(sz * sites_per_thread),
                    ],
                },
                constants,
            }
        };
        let (cur, next) = (Binding::current("particles"), Binding::next("particles"));
        for desc in [
            sweep("diffuse x", 0, false, (0, 0, 0), cur.clone(), next.clone()),
            sweep(
                "diffuse y",
                1,
                false,
                (0, 0, 0),
                next.clone().read_only(),
                cur.clone().writable(),
            ),
            sweep(
                "diffuse z + react",
                2,
                true,
                (0, 0, 0),
                cur.clone(),
                next.clone(),
            ),
        ] {
            plan.add_pass(&ctx, desc)?;
        }
        // The first x and y sweeps after an exchange in two parts (SimOptions::overlap_exchange):
        // while the host exchanges, x on the owned planes (it reads no halo plane and writes
        // the other half of the pair) and y on the owned planes the exchange does not read
        // (the halo stage's blocks stay as they were in the half y writes); the rest after.
        let head_parts = match occupied && has_halos && options.overlap_exchange {
            true => {
                let (own_begin, own_end) = (own.0 - base, own.1 - base);
                let inner_begin = own_begin + halo_depth;
                let inner = (
                    inner_begin,
                    own_end.saturating_sub(halo_depth).max(inner_begin),
                );
                let y = |part| {
                    sweep(
                        "diffuse y",
                        1,
                        false,
                        part,
                        next.clone().read_only(),
                        cur.clone().writable(),
                    )
                };
                let x = |part| sweep("diffuse x", 0, false, part, cur.clone(), next.clone());
                Some([
                    plan.add_variant(&ctx, x((1, own_begin, own_end)))?,
                    plan.add_variant(&ctx, y((1, inner.0, inner.1)))?,
                    plan.add_variant(&ctx, x((2, own_begin, own_end)))?,
                    plan.add_variant(&ctx, y((2, inner.0, inner.1)))?,
                ])
            }
            false => None,
        };
        // The occupied sweeps resolve the overflow at the end of the z sweep.
        if !occupied {
            plan.add_pass(
                &ctx,
                PassDesc {
                    label: "resolve overflow",
                    entry: shaders::rdme::resolve::RESOLVE,
                    bindings: vec![
                        Binding::uniform("lattice"),
                        next,
                        Binding::read("types"),
                        Binding::read_write("overflow"),
                    ],
                    workgroups: [1, 1, 1],
                    constants: vec![],
                },
            )?;
        }

        // The one-off passes, recorded on demand: each reads the lattice and the state.
        let on_demand = |plan: &mut StepPlan,
                         (label, entry): (&str, petri_engine::shaders::EntryPoint),
                         more: &[Binding],
                         workgroups: [u32; 3],
                         constants: &[(&str, f64)]| {
            let mut bindings = vec![Binding::uniform("lattice"), Binding::current("particles")];
            bindings.extend_from_slice(more);
            plan.add_on_demand(
                &ctx,
                PassDesc {
                    label,
                    entry,
                    bindings,
                    workgroups,
                    constants: constants.to_vec(),
                },
            )
        };
        let observe = on_demand(
            &mut plan,
            ("rdme observe", shaders::rdme::observe::OBSERVE),
            &[Binding::read("types"), Binding::read_write("counts")],
            workgroups_own,
            &wg,
        )?;
        let halo_words = has_halos
            .then(|| {
                on_demand(
                    &mut plan,
                    ("rdme halo words", shaders::rdme::halo_words::HALO_WORDS),
                    &[Binding::read_write("halo words")],
                    [gx, gy, 2 * halo_depth],
                    &wg,
                )
            })
            .transpose()?;
        // With the occupied sweeps, after each halo refresh: the halo planes' bits in map 0.
        let words = sites.div_ceil(32);
        let x = words.div_ceil(64).min(65535);
        let mark_halos = (occupied && has_halos)
            .then(|| {
                on_demand(
                    &mut plan,
                    ("rdme mark halos", shaders::rdme::mark_halos::MARK_HALOS),
                    &[Binding::read_write("occupancy")],
                    [x, words.div_ceil(64).div_ceil(x), 1],
                    &[],
                )
            })
            .transpose()?;
        Ok(Self {
            ctx,
            extent: *extent,
            uniforms,
            plan,
            occupied_sweeps: occupied,
            occupied_threads,
            lattice_uniform: u,
            overflow,
            counts_len,
            observe,
            workgroups_all,
            workgroups_own,
            halo_words,
            mark_halos,
            halos_written: false,
            head_parts,
            head_submitted: false,
        })
    }

    /// Byte offset in the particle buffer of word plane `w` at global plane `global_plane`.
    fn word_offset(&self, w: u64, global_plane: u32) -> u64 {
        let u = &self.uniforms;
        let local = (global_plane - self.extent.base) as u64;
        (w * u.sites as u64 + local * (u.nx * u.ny) as u64) * 4
    }

    /// The half of the particle pair that holds the state after the steps recorded so far.
    fn state(&self) -> &wgpu::Buffer {
        self.plan.current("particles")
    }

    /// The kind of sweep, as the bench tables name it.
    pub fn sweep_kind(&self) -> &'static str {
        match self.occupied_sweeps {
            true => "occupied",
            false => "every-site",
        }
    }

    pub fn owned_planes(&self) -> u32 {
        self.extent.owned_planes()
    }

    /// Records `steps` steps.
    pub fn encode(&mut self, steps: u32, profiler: Option<&mut Profiler>) -> wgpu::CommandEncoder {
        if let (true, Some(mark_halos)) = (self.halos_written, self.mark_halos) {
            // Before the steps (the halo writes precede every later submission).
            let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
            self.plan
                .record_on_demand(&self.ctx, &mut encoder, mark_halos);
            self.ctx.queue.submit([encoder.finish()]);
            self.halos_written = false;
        }
        // After `submit_head`, the first step's x and y sweeps are their parts after the exchange.
        let first_step: Option<Vec<PassRef>> = match (self.head_submitted, self.head_parts) {
            (true, Some([_, _, x_after, y_after])) => Some(
                (0..self.plan.pass_count())
                    .map(|i| match i {
                        0 => PassRef::Variant(x_after),
                        1 => PassRef::Variant(y_after),
                        _ => PassRef::Step(i),
                    })
                    .collect(),
            ),
            _ => None,
        };
        self.head_submitted = false;
        self.plan
            .encode_with_first_step(&self.ctx, steps, profiler, first_step.as_deref())
    }

    /// Submits the next step's head (on a slab with `head_parts`): the x sweep on the owned
    /// planes and the y sweep on those the halo stage does not hold, which read no halo plane,
    /// so the GPU works on them while the host exchanges the halos. The y part writes the half
    /// that holds the state: until the next `encode` (which starts with the other parts, after
    /// the halos are written) nothing may read the lattice or record other work.
    pub fn submit_head(&mut self) {
        if let Some([x_before, y_before, _, _]) = self.head_parts {
            let encoder = self.plan.encode_head(
                &self.ctx,
                &[PassRef::Variant(x_before), PassRef::Variant(y_before)],
            );
            self.ctx.queue.submit([encoder.finish()]);
            self.head_submitted = true;
        }
    }

    /// Marks the halos as refreshed at `step`: the step regions start over from the full slab.
    pub fn set_halo_start(&mut self, step: u64) {
        self.halos_written = true;
        self.uniforms.halo_start = step as u32;
        self.ctx
            .queue
            .write_buffer(&self.lattice_uniform, 0, bytemuck::bytes_of(&self.uniforms));
    }

    pub fn halo_depth(&self) -> u32 {
        self.uniforms.halo_depth
    }

    /// The overflow counters: (lost, unresolved, moved) so far.
    pub fn overflow_counts(&self) -> Result<[u32; 3]> {
        let stage = buffers::staging(&self.ctx, "rdme overflow header", 16);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&self.overflow, 0, &stage, 0, 16);
        self.ctx.queue.submit([enc.finish()]);
        let h: Vec<u32> = buffers::map_and_read(&self.ctx, &stage)?;
        Ok([h[1], h[2], h[3]])
    }

    /// Particle counts by (type, species id), then by (global plane, species id), over the
    /// owned planes.
    pub fn counts(&self) -> Result<Vec<u32>> {
        let counts = self.plan.buffer("counts");
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        enc.clear_buffer(counts, 0, None);
        self.plan
            .record_on_demand(&self.ctx, &mut enc, self.observe);
        let stage = buffers::staging(&self.ctx, "rdme counts", 4 * self.counts_len as u64);
        enc.copy_buffer_to_buffer(counts, 0, &stage, 0, 4 * self.counts_len as u64);
        self.ctx.queue.submit([enc.finish()]);
        Ok(buffers::map_and_read(&self.ctx, &stage)?)
    }

    /// The owned planes' particle words, four word planes of `owned_planes * nx * ny` words.
    pub fn read_owned(&self) -> Result<Vec<u32>> {
        let u = &self.uniforms;
        let plane_sites = (u.nx * u.ny) as u64;
        let n = self.owned_planes() as u64 * plane_sites;
        let stage = buffers::staging(&self.ctx, "rdme lattice", 16 * n);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        for w in 0..4 {
            let src = self.word_offset(w, self.extent.own.0);
            enc.copy_buffer_to_buffer(self.state(), src, &stage, w * n * 4, n * 4);
        }
        self.ctx.queue.submit([enc.finish()]);
        Ok(buffers::map_and_read(&self.ctx, &stage)?)
    }

    pub fn workgroups(&self) -> ([u32; 3], [u32; 3]) {
        (self.workgroups_all, self.workgroups_own)
    }
}

/// The scheduler's slab decomposition steps, exchanges and balances the slabs.
impl SlabPart for Slab {
    type Error = crate::error::ModelError;

    fn context(&self) -> &GpuContext {
        &self.ctx
    }

    fn plan(&self) -> &StepPlan {
        &self.plan
    }

    fn plan_mut(&mut self) -> &mut StepPlan {
        &mut self.plan
    }

    fn record_steps(&mut self, steps: u32) -> wgpu::CommandEncoder {
        self.encode(steps, None)
    }

    fn state(&self) -> &wgpu::Buffer {
        self.state()
    }

    fn field_counter(&self) -> Option<&wgpu::Buffer> {
        self.halo_words.map(|_| self.plan.buffer("halo words"))
    }

    fn record_field_count(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(pass) = self.halo_words {
            self.plan.record_on_demand(&self.ctx, encoder, pass);
        }
    }

    fn submit_head(&mut self) {
        self.submit_head()
    }

    fn halos_written(&mut self, step: u64) {
        self.set_halo_start(step)
    }
}
