//! The angiogenesis model on the GPU: buffers, the step plan (tips_move, tips_scan, tips_spawn,
//! fields), observables read back every few steps without stalling, and full-state readback.
//!
//! Occupancy is held twice: `occ`, the smallest sprout id per site (the tip passes need owners
//! for the anastomosis rule), and `occupied`, one bit per site (bit i % 32 of word i / 32), all
//! the field update needs (m = 1 at visited sites) at 1/32 of the traffic. tips_spawn sets both;
//! the bits are derived data, built from `occ` on upload and never stored.

use super::params::{AngioConfig, Coupling};
use super::state::{AngioState, Counter, Segment, Tip, COUNTERS, FREE};
use super::uniforms::AngioUniforms;
use super::walk::WalkTable;
use crate::error::{ModelError, Result};
use crate::shaders;
use petri_engine::{buffers, GpuContext, Profiler};
use petri_scheduler::{Binding, PassDesc, ReadbackRing, ReduceOp, Reduction, StepPlan};
use serde::Serialize;

/// How the plan is laid out on the GPU; results do not depend on it.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Workgroup size of the field update (x, y, z; x and y at least 3). Each z-slice of WX x WY
    /// threads updates the (WX - 2) x (WY - 2) sites inside; its outer ring of threads works out
    /// the sites around them, so larger tiles waste less.
    pub workgroup: [u32; 3],
    /// Most steps recorded into one submission.
    pub max_steps_per_batch: u32,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            workgroup: [32, 8, 1],
            max_steps_per_batch: 256,
        }
    }
}

/// What is read back every `observe_every` steps.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Observables {
    pub step: u64,
    pub time: f64,
    /// Sums over all grid nodes.
    pub total_n: f32,
    pub total_f: f32,
    pub total_c: f32,
    /// Sprouts ever created (tip slots in use).
    pub sprouts: u32,
    /// Tips still moving.
    pub tips: u32,
    pub branches: u32,
    pub anastomoses: u32,
    pub reached_tumour: u32,
    /// The network's length: the sites a sprout has occupied, times h (vessels.png's title).
    pub vessel_length: f64,
    /// The tips' path length: every tip move ever made times h, a site walked again counted
    /// again, so more than the network's length.
    pub tip_path_length: f64,
    pub segment_overflow: u32,
    pub tip_overflow: u32,
}

impl Observables {
    pub const CSV_COLUMNS: [&'static str; 14] = [
        "step",
        "time",
        "total_n",
        "total_f",
        "total_c",
        "sprouts",
        "tips",
        "branches",
        "anastomoses",
        "reached_tumour",
        "vessel_length",
        "tip_path_length",
        "segment_overflow",
        "tip_overflow",
    ];

    pub fn csv_row(&self) -> Vec<f64> {
        vec![
            self.step as f64,
            self.time,
            self.total_n as f64,
            self.total_f as f64,
            self.total_c as f64,
            self.sprouts as f64,
            self.tips as f64,
            self.branches as f64,
            self.anastomoses as f64,
            self.reached_tumour as f64,
            self.vessel_length,
            self.tip_path_length,
            self.segment_overflow as f64,
            self.tip_overflow as f64,
        ]
    }

    fn from_bytes(step: u64, k: f64, h: f64, b: &[u8]) -> Self {
        let f = |i: usize| bytemuck::pod_read_unaligned::<f32>(&b[4 * i..4 * i + 4]);
        let c = |slot: Counter| {
            bytemuck::pod_read_unaligned::<u32>(&b[16 + 4 * slot as usize..20 + 4 * slot as usize])
        };
        Self::new(step, k, h, [f(0), f(1), f(2)], c)
    }

    fn new(step: u64, k: f64, h: f64, totals: [f32; 3], c: impl Fn(Counter) -> u32) -> Self {
        let sprouts = c(Counter::Tips);
        Self {
            step,
            time: step as f64 * k,
            total_n: totals[0],
            total_f: totals[1],
            total_c: totals[2],
            sprouts,
            tips: sprouts - c(Counter::Anastomoses) - c(Counter::Reached),
            branches: c(Counter::Branches),
            anastomoses: c(Counter::Anastomoses),
            reached_tumour: c(Counter::Reached),
            vessel_length: c(Counter::Occupied) as f64 * h,
            tip_path_length: c(Counter::Segments) as f64 * h,
            segment_overflow: c(Counter::SegmentOverflow),
            tip_overflow: c(Counter::TipOverflow),
        }
    }

    /// The name of the first total that is not finite, if any.
    pub fn non_finite(&self) -> Option<&'static str> {
        [
            ("n", self.total_n),
            ("f", self.total_f),
            ("c", self.total_c),
        ]
        .into_iter()
        .find(|(_, v)| !v.is_finite())
        .map(|(name, _)| name)
    }
}

const OBS_BYTES: u64 = 16 + 4 * COUNTERS as u64;

pub struct AngioSim {
    pub cfg: AngioConfig,
    pub uniforms: AngioUniforms,
    /// Time step k.
    pub k: f64,
    plan: StepPlan,
    /// Sums of n, f, c for each parity of the ping-pong pairs.
    sums: [[Reduction; 3]; 2],
    ring: ReadbackRing,
}

impl AngioSim {
    /// The model from its config, with the initial conditions of MODELS.md and the stable step.
    pub fn new(ctx: &GpuContext, cfg: &AngioConfig, options: &SimOptions) -> Result<Self> {
        cfg.validate()?;
        check_limits(ctx, cfg)?;
        let u0 = AngioUniforms::new(cfg, 0.0);
        let state = AngioState::initial(cfg, &u0);
        let k = cfg.time_step(state.max_taxis_speed_sq(cfg, &u0))?;
        Self::from_state(ctx, cfg, k, &state, options)
    }

    /// The model from an explicit state (tests, resumed checkpoints).
    pub fn from_state(
        ctx: &GpuContext,
        cfg: &AngioConfig,
        k: f64,
        state: &AngioState,
        options: &SimOptions,
    ) -> Result<Self> {
        cfg.validate()?;
        check_limits(ctx, cfg)?;
        ctx.check_workgroup_size("the field update (--workgroup)", options.workgroup)?;
        check_fields_workgroup(&ctx.adapter.name, &ctx.limits(), options.workgroup)?;
        let u = AngioUniforms::new(cfg, k);
        let cells = u.ncells as u64;
        let field_pair = |name: &str, data: &[f32]| -> Result<[wgpu::Buffer; 2]> {
            let (a, b) = (
                buffers::storage_from(ctx, name, data)?,
                buffers::storage_zeroed(ctx, name, cells * 4)?,
            );
            // The state lives in the half that is current at `state.step`.
            Ok(if state.step.is_multiple_of(2) {
                [a, b]
            } else {
                [b, a]
            })
        };
        let mut plan = StepPlan::new(ctx, cfg.seed, options.max_steps_per_batch);
        plan.step = state.step;
        plan.add_pair("n", field_pair("n", &state.n)?);
        plan.add_pair("f", field_pair("f", &state.f)?);
        plan.add_pair("c", field_pair("c", &state.c)?);
        plan.add_buffer(
            "params",
            buffers::uniform_from(ctx, "angiogenesis params", &u),
        );
        plan.add_buffer("occ", buffers::storage_from(ctx, "occupancy", &state.occ)?);
        plan.add_buffer(
            "occupied",
            buffers::storage_from(ctx, "occupancy bits", &occupied_bits(&state.occ))?,
        );
        let mut tips = state.tips.clone();
        tips.resize(
            cfg.tips.max_tips as usize,
            Tip {
                site: 0,
                age: 0.0,
                alive: 0,
                parent: 0,
            },
        );
        plan.add_buffer("tips", buffers::storage_from(ctx, "tips", &tips)?);
        // Branch wishes, their ranks, per-workgroup totals and offsets, the count before the
        // step, and each tip's start site and number of moves of the step (layout in
        // shaders/angiogenesis/tips_move.wgsl).
        let tip_groups = cfg.tips.max_tips.div_ceil(64) as u64;
        plan.add_buffer(
            "branch",
            buffers::storage_zeroed(
                ctx,
                "branch wishes",
                (4 * cfg.tips.max_tips as u64 + 2 * tip_groups + 1) * 4,
            )?,
        );
        let mut segments = state.segments.clone();
        segments.resize(cfg.tips.max_segments as usize, [0; 4]);
        plan.add_buffer(
            "segments",
            buffers::storage_from(ctx, "segments", &segments)?,
        );
        plan.add_buffer(
            "counters",
            buffers::storage_from(ctx, "counters", &state.counters)?,
        );

        if cfg.tips.enabled {
            // The Poisson thresholds of the tips' walk (walk.rs).
            let walk = WalkTable::new(u.walk_events)?;
            plan.add_buffer(
                "walk_table",
                buffers::storage_from(ctx, "walk table", walk.thresholds())?,
            );
            let tip_pass = |label, entry, bindings, workgroups| PassDesc {
                label,
                entry,
                bindings,
                workgroups: [workgroups, 1, 1],
                constants: vec![],
            };
            let slot_groups = cfg.tips.max_tips.div_ceil(64);
            plan.add_pass(
                ctx,
                tip_pass(
                    "tips_move",
                    shaders::angiogenesis::tips_move::MAIN,
                    vec![
                        Binding::uniform("params"),
                        Binding::current("c"),
                        Binding::current("f"),
                        Binding::read("occ"),
                        Binding::read_write("tips"),
                        Binding::read_write("branch"),
                        Binding::read_write("segments"),
                        Binding::read_write("counters"),
                        Binding::read("walk_table"),
                    ],
                    slot_groups,
                ),
            )?;
            plan.add_pass(
                ctx,
                tip_pass(
                    "tips_scan",
                    shaders::angiogenesis::tips_scan::MAIN,
                    vec![
                        Binding::uniform("params"),
                        Binding::read_write("branch"),
                        Binding::read_write("counters"),
                    ],
                    1,
                ),
            )?;
            plan.add_pass(
                ctx,
                tip_pass(
                    "tips_spawn",
                    shaders::angiogenesis::tips_spawn::MAIN,
                    vec![
                        Binding::uniform("params"),
                        Binding::read_write("tips"),
                        Binding::read("branch"),
                        Binding::read_write("occ"),
                        Binding::read_write("occupied"),
                        Binding::current("c"),
                        Binding::current("f"),
                        Binding::read("walk_table"),
                        Binding::read_write("counters"),
                    ],
                    slot_groups,
                ),
            )?;
        }
        let fields = match cfg.coupling {
            Coupling::Continuous => continuous_fields_pass(&u, options.workgroup),
            Coupling::Discrete => discrete_fields_pass(&u),
        };
        plan.add_pass(ctx, fields)?;
        let sums_for = |parity: usize| -> Result<[Reduction; 3]> {
            let r =
                |name: &str| Reduction::new(ctx, ReduceOp::Sum, &plan.pair(name)[parity], u.ncells);
            Ok([r("n")?, r("f")?, r("c")?])
        };
        let sums = [sums_for(0)?, sums_for(1)?];
        Ok(Self {
            cfg: cfg.clone(),
            uniforms: u,
            k,
            ring: ReadbackRing::new(ctx, OBS_BYTES, 4),
            plan,
            sums,
        })
    }

    /// Steps done so far.
    pub fn step(&self) -> u64 {
        self.plan.step
    }

    /// Most steps recorded into one submission (`SimOptions::max_steps_per_batch`).
    pub fn steps_per_batch(&self) -> u64 {
        self.plan.max_steps_per_batch as u64
    }

    pub fn h(&self) -> f64 {
        self.cfg.h()
    }

    /// Records and submits `steps` steps; observables are not read.
    pub fn advance(&mut self, ctx: &GpuContext, steps: u64) {
        self.plan.run(ctx, steps);
    }

    /// Waits until the GPU has done every batch but the latest (`StepPlan::pace`).
    pub fn pace(&mut self, ctx: &GpuContext) -> Result<()> {
        Ok(self.plan.pace(ctx)?)
    }

    /// Records `steps` (at most the batch size) with per-pass timestamps into `profiler`.
    pub fn advance_profiled(&mut self, ctx: &GpuContext, steps: u32, profiler: &mut Profiler) {
        let mut encoder = self.plan.encode(ctx, steps, Some(profiler));
        profiler.resolve(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
    }

    pub fn passes_per_step(&self) -> usize {
        self.plan.pass_count()
    }

    /// Advances `steps` steps and queues a readback of the observables at the end, without
    /// waiting; returns the observables that have arrived meanwhile (oldest first).
    pub fn advance_observed(&mut self, ctx: &GpuContext, steps: u64) -> Result<Vec<Observables>> {
        let batch = self.plan.max_steps_per_batch as u64;
        let head = steps.saturating_sub(1) / batch * batch;
        self.plan.run(ctx, head);
        let mut encoder = self.plan.encode(ctx, (steps - head) as u32, None);
        let parity = (self.plan.step % 2) as usize;
        for r in &self.sums[parity] {
            r.record(&mut encoder);
        }
        let slot = self.ring.begin(ctx, self.plan.step)?;
        for (i, r) in self.sums[parity].iter().enumerate() {
            encoder.copy_buffer_to_buffer(&r.output, 0, slot, 4 * i as u64, 4);
        }
        encoder.copy_buffer_to_buffer(
            self.plan.buffer("counters"),
            0,
            slot,
            16,
            4 * COUNTERS as u64,
        );
        self.plan.submit(ctx, encoder);
        self.ring.submitted();
        let ready = self.ring.poll(ctx)?;
        Ok(self.decode(ready))
    }

    /// The observables of the current state, read back now through the same GPU reductions as
    /// during a run (no full-state readback). Waits for the GPU; observations still in flight are
    /// waited for and dropped, so call it between runs.
    pub fn observe(&mut self, ctx: &GpuContext) -> Result<Observables> {
        let mut all = self.advance_observed(ctx, 0)?;
        all.extend(self.finish(ctx)?);
        all.pop().ok_or_else(|| {
            ModelError::Engine(petri_engine::EngineError::Readback(
                "no observables arrived".into(),
            ))
        })
    }

    /// Waits for all queued observables.
    pub fn finish(&mut self, ctx: &GpuContext) -> Result<Vec<Observables>> {
        let ready = self.ring.finish(ctx)?;
        Ok(self.decode(ready))
    }

    fn decode(&self, ready: Vec<petri_scheduler::Readout>) -> Vec<Observables> {
        ready
            .into_iter()
            .map(|r| Observables::from_bytes(r.tag, self.k, self.h(), &r.bytes))
            .collect()
    }

    /// The field update's occupancy bits, read back (waits for the GPU); equal to
    /// `occupied_bits(&read_state(ctx)?.occ)` whenever the tip passes keep both in step.
    pub fn read_occupied_bits(&self, ctx: &GpuContext) -> Result<Vec<u32>> {
        let mut bits: Vec<u32> = buffers::read_vec(ctx, self.plan.buffer("occupied"))?;
        bits.truncate((self.uniforms.ncells as usize).div_ceil(32));
        Ok(bits)
    }

    /// The whole state, read back (waits for the GPU). Segments are sorted by (step, sprout) so
    /// the output does not depend on the order in which GPU threads appended them.
    pub fn read_state(&self, ctx: &GpuContext) -> Result<AngioState> {
        let counters: Vec<u32> = buffers::read_vec(ctx, self.plan.buffer("counters"))?;
        let counters: [u32; COUNTERS] = counters[..COUNTERS]
            .try_into()
            .expect("counter buffer size");
        let mut tips: Vec<Tip> = buffers::read_vec(ctx, self.plan.buffer("tips"))?;
        tips.truncate(counters[Counter::Tips as usize] as usize);
        let mut segments: Vec<Segment> = buffers::read_vec(ctx, self.plan.buffer("segments"))?;
        segments.truncate(
            (counters[Counter::Segments as usize]).min(self.cfg.tips.max_segments) as usize,
        );
        segments.sort_by_key(|s| (s[3], s[2], s[0], s[1]));
        let cells = self.uniforms.ncells as usize;
        let field = |name: &str| -> Result<Vec<f32>> {
            let mut v: Vec<f32> = buffers::read_vec(ctx, self.plan.current(name))?;
            v.truncate(cells);
            Ok(v)
        };
        Ok(AngioState {
            n: field("n")?,
            f: field("f")?,
            c: field("c")?,
            occ: buffers::read_vec(ctx, self.plan.buffer("occ"))?[..cells].to_vec(),
            tips,
            segments,
            counters,
            step: self.plan.step,
        })
    }
}

/// The continuous model's field pass (fields.wgsl): n, f, c of Darbyshire 2015's scheme, each
/// workgroup a stack of WX x WY slices walking up chunks of planes.
fn continuous_fields_pass(u: &AngioUniforms, [wx, wy, wz]: [u32; 3]) -> PassDesc<'static> {
    // Each slice's tile is its threads less the ring of threads around it.
    let (tiles_x, tiles_y) = (u.nx.div_ceil(wx - 2), u.ny.div_ceil(wy - 2));
    let zchunk = fields_zchunk(u.nz, tiles_x * tiles_y, wz);
    fields_pass(
        shaders::angiogenesis::fields::MAIN,
        &["n", "f", "c"],
        [tiles_x, tiles_y, u.nz.div_ceil(wz * zchunk)],
        [("WX", wx), ("WY", wy), ("WZ", wz), ("ZCHUNK", zchunk)].to_vec(),
    )
}

/// A&C's discrete model's field pass (fields_discrete.wgsl): one thread per site, f and c
/// changed at occupied sites only, n the occupancy. Its workgroup is fixed (64 x 4): no
/// neighbour is read, so `--workgroup` (the continuous pass's slices) does not apply.
fn discrete_fields_pass(u: &AngioUniforms) -> PassDesc<'static> {
    const WX: u32 = 64;
    const WY: u32 = 4;
    fields_pass(
        shaders::angiogenesis::fields_discrete::MAIN,
        &["f", "c"],
        [u.nx.div_ceil(WX), u.ny.div_ceil(WY), u.nz],
        vec![("WX", WX), ("WY", WY)],
    )
}

/// A field pass: the parameters, the current `inputs`, the occupancy bits, then the next n, f
/// and c (the bindings of both field shaders, in that order).
fn fields_pass(
    entry: petri_engine::shaders::EntryPoint,
    inputs: &[&'static str],
    workgroups: [u32; 3],
    constants: Vec<(&'static str, u32)>,
) -> PassDesc<'static> {
    let mut bindings = vec![Binding::uniform("params")];
    bindings.extend(inputs.iter().map(|&name| Binding::current(name)));
    bindings.push(Binding::read("occupied"));
    bindings.extend(["n", "f", "c"].map(Binding::next));
    PassDesc {
        label: "fields",
        entry,
        bindings,
        workgroups,
        constants: constants.into_iter().map(|(k, v)| (k, v as f64)).collect(),
    }
}

/// Planes each slice of a field-update workgroup walks up in z (`ZCHUNK` in
/// shaders/angiogenesis/fields.wgsl), for a grid of `nz` planes cut into `tiles` columns of
/// workgroups with `wz` slices each. The sites of the plane below and above a chunk are worked
/// out twice, so taller chunks are leaner, but fewer workgroups keep fewer processors busy:
/// chunks of at most 40 planes, no more of them than chunks of 16 would need, and otherwise as
/// few as keep FIELDS_MIN_WORKGROUPS workgroups (at 32x8x1: 400x400x140 in 4 chunks of 35
/// planes, 200^3 in 7 of 29, 100^3 in 7 of 15; a 2D grid walks its one plane).
pub fn fields_zchunk(nz: u32, tiles: u32, wz: u32) -> u32 {
    let fewest = nz.div_ceil(40);
    let most = nz.div_ceil(16);
    let for_workgroups = (FIELDS_MIN_WORKGROUPS * wz).div_ceil(tiles.max(1));
    let chunks = for_workgroups.clamp(fewest, most);
    nz.div_ceil(chunks)
}

/// Workgroups below which the field update cuts its columns into more chunks (`fields_zchunk`).
pub const FIELDS_MIN_WORKGROUPS: u32 = 1536;

/// Workgroup memory of the field update: what each thread's site sends to its four neighbours
/// in the plane, for two planes (fields.wgsl, `sent`).
pub fn fields_workgroup_bytes(workgroup: [u32; 3]) -> u64 {
    let [wx, wy, wz] = workgroup.map(|n| n as u64);
    2 * 4 * 4 * wx * wy * wz
}

/// Fails when the field update cannot run at this workgroup size: fewer than 3 threads in x or
/// y leave no site inside the ring, or its workgroup memory exceeds `limits`'.
pub fn check_fields_workgroup(
    adapter: &str,
    limits: &wgpu::Limits,
    workgroup: [u32; 3],
) -> Result<()> {
    if workgroup[0] < 3 || workgroup[1] < 3 {
        return Err(crate::error::invalid(
            "--workgroup",
            format!("{workgroup:?}"),
            "at least 3 threads in x and in y for the field update \
             (its outer ring of threads only sends; e.g. 32,8,1)",
        ));
    }
    let asked = fields_workgroup_bytes(workgroup);
    let limit = limits.max_compute_workgroup_storage_size as u64;
    if asked > limit {
        return Err(petri_engine::EngineError::LimitExceeded {
            adapter: adapter.to_string(),
            what: format!(
                "workgroup memory for the field update at --workgroup {workgroup:?} \
                 (32 WX WY WZ bytes, max_compute_workgroup_storage_size; \
                 a smaller workgroup needs less)"
            ),
            asked,
            limit,
        }
        .into());
    }
    Ok(())
}

/// One bit per site, set where a sprout has been (`occ` not FREE): bit i % 32 of word i / 32.
pub fn occupied_bits(occ: &[u32]) -> Vec<u32> {
    let mut bits = vec![0u32; occ.len().div_ceil(32)];
    for (i, _) in occ.iter().enumerate().filter(|(_, &o)| o != FREE) {
        bits[i / 32] |= 1 << (i % 32);
    }
    bits
}

/// Fails before anything is allocated when a buffer would exceed the adapter's limits.
pub fn check_limits(ctx: &GpuContext, cfg: &AngioConfig) -> Result<()> {
    let cells = cfg.cells() as u64;
    ctx.check_storage_buffer(&format!("one field of the {:?} grid", cfg.grid), cells * 4)?;
    ctx.check_storage_buffer(
        "the tip table (tips.max_tips)",
        cfg.tips.max_tips as u64 * 16,
    )?;
    ctx.check_storage_buffer(
        "the vessel segments (tips.max_segments)",
        cfg.tips.max_segments as u64 * 16,
    )?;
    Ok(())
}

/// Runs `steps` steps, reading observables every `cfg.observe_every` steps and handing each to
/// `on_observe` as it arrives. Stops with an error naming the step range when a total goes
/// non-finite.
pub fn run_observed(
    ctx: &GpuContext,
    sim: &mut AngioSim,
    steps: u64,
    mut on_observe: impl FnMut(&Observables) -> Result<()>,
) -> Result<()> {
    let every = sim.cfg.observe_every as u64;
    let end = sim.step() + steps;
    let mut last_ok = sim.step();
    let mut check = |obs: Vec<Observables>, last_ok: &mut u64| -> Result<()> {
        for o in obs {
            if let Some(what) = o.non_finite() {
                return Err(ModelError::NonFinite {
                    what: what.to_string(),
                    after: *last_ok,
                    at: o.step,
                });
            }
            *last_ok = o.step;
            on_observe(&o)?;
        }
        Ok(())
    };
    while sim.step() < end {
        let n = every.min(end - sim.step());
        let obs = sim.advance_observed(ctx, n)?;
        check(obs, &mut last_ok)?;
    }
    let obs = sim.finish(ctx)?;
    check(obs, &mut last_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunks cover the grid's planes, none empty, none taller than 40 planes, no more than
    /// 16-plane chunks would be, and no more than keep the workgroups asked for.
    #[test]
    fn field_chunks_cover_the_grid() {
        for nz in [1, 2, 15, 16, 17, 37, 40, 41, 100, 140, 200, 512, 2048] {
            for tiles in [1, 2, 68, 238, 938, 5000, 100_000] {
                for wz in [1, 2, 4] {
                    let h = fields_zchunk(nz, tiles, wz);
                    let chunks = nz.div_ceil(h);
                    let case = format!("nz {nz}, tiles {tiles}, wz {wz}: {chunks} chunks of {h}");
                    assert!((1..=40).contains(&h), "{case}");
                    assert!((chunks - 1) * h < nz, "{case}: an empty chunk");
                    assert!(chunks <= nz.div_ceil(16), "{case}");
                    // More chunks than 40-plane ones only while one fewer would leave fewer
                    // slices than the workgroups asked for.
                    if chunks > nz.div_ceil(40) {
                        assert!(tiles * (chunks - 1) < FIELDS_MIN_WORKGROUPS * wz, "{case}");
                    }
                }
            }
        }
        assert_eq!(fields_zchunk(140, 14 * 67, 1), 35);
        assert_eq!(fields_zchunk(100, 4 * 17, 1), 15);
        assert_eq!(fields_zchunk(1, 4 * 17, 1), 1);
    }
}
