//! The slab decomposition's driver and halo exchange with a toy z-decomposed model
//! (`shaders/test/slab_toy.wgsl`) on one, two and three devices against its CPU twin.

mod test_shaders;

use petri_engine::{buffers, testing::test_context, EngineError, GpuContext};
use petri_scheduler::slabs::{
    equal_split, BalanceOptions, Decomposition, DecompositionOptions, FieldLayout, SlabExtent,
    SlabPart,
};
use petri_scheduler::{Binding, OnDemandPass, PassDesc, StepPlan};
use std::time::Duration;

const NX: u32 = 8;
const NY: u32 = 4;
const NZ: u32 = 13;
const FIELDS: u32 = 3;
const PLANE: usize = (NX * NY) as usize;

/// The CPU twin of `slab_toy.wgsl` over the whole lattice: [field][z][plane word].
fn cpu_steps(state: &[u32], steps: u32) -> Vec<u32> {
    let nz = NZ as usize;
    let at = |s: &[u32], f: usize, z: i64, i: usize| match z {
        z if z < 0 || z >= nz as i64 => 0,
        z => s[(f * nz + z as usize) * PLANE + i],
    };
    let mut cur = state.to_vec();
    for _ in 0..steps {
        let mut next = vec![0; cur.len()];
        for f in 0..FIELDS as usize {
            for z in 0..nz as i64 {
                for i in 0..PLANE {
                    let (b, h, a) = (
                        at(&cur, f, z - 1, i),
                        at(&cur, f, z, i),
                        at(&cur, f, z + 1, i),
                    );
                    let feed = if f > 0 { at(&cur, f - 1, z, i) >> 2 } else { 0 };
                    let mut v = b
                        .wrapping_add(h.wrapping_mul(2))
                        .wrapping_add(a)
                        .wrapping_add(feed);
                    if (b | h | a | feed) != 0 {
                        v |= 1;
                    }
                    next[(f * nz + z as usize) * PLANE + i] = v;
                }
            }
        }
        cur = next;
    }
    cur
}

/// Field 0 non-zero at about one site in four (1 to 8), the others zero: they fill from it.
fn initial_state() -> Vec<u32> {
    let mut state = vec![0u32; FIELDS as usize * NZ as usize * PLANE];
    let mut x = 12345u32;
    for w in &mut state[..NZ as usize * PLANE] {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        if x >> 30 == 0 {
            *w = 1 + (x >> 8) % 8;
        }
    }
    state
}

/// One device's part of the toy: its planes of every field in a ping-pong pair, one pass a
/// step, and (`counted`) the count of the fields its boundary planes need.
struct Toy {
    ctx: GpuContext,
    plan: StepPlan,
    extent: SlabExtent,
    count: Option<OnDemandPass>,
}

impl Toy {
    fn new(
        ctx: &GpuContext,
        whole: &[u32],
        e: &SlabExtent,
        step: u64,
        counted: bool,
    ) -> Result<Self, EngineError> {
        let planes = e.planes();
        let local: Vec<u32> = (0..FIELDS as usize)
            .flat_map(|f| {
                let from = (f * NZ as usize + e.base as usize) * PLANE;
                whole[from..from + planes as usize * PLANE].to_vec()
            })
            .collect();
        let state = buffers::storage_from(ctx, "toy", &local)?;
        let other = buffers::storage_zeroed(ctx, "toy", 4 * local.len() as u64)?;
        let mut plan = StepPlan::new(ctx, 1, 4);
        plan.step = step;
        plan.add_pair(
            "u",
            if step.is_multiple_of(2) {
                [state, other]
            } else {
                [other, state]
            },
        );
        plan.add_buffer("needed", buffers::storage_zeroed(ctx, "needed", 4)?);
        let size = [
            ("NX", NX as f64),
            ("NY", NY as f64),
            ("PLANES", planes as f64),
            ("FIELDS", FIELDS as f64),
        ];
        plan.add_pass(
            ctx,
            PassDesc {
                label: "toy step",
                entry: test_shaders::test::slab_toy::MAIN,
                bindings: vec![Binding::current("u"), Binding::next("u")],
                workgroups: [1, 1, planes],
                constants: size.to_vec(),
            },
        )?;
        let count = match counted && e.has_halos() {
            true => {
                let (begin, end) = e.own_local();
                let mut constants = size.to_vec();
                constants.extend([
                    ("OWN_BEGIN", begin as f64),
                    ("OWN_END", end as f64),
                    ("DEPTH", e.halo_depth as f64),
                ]);
                Some(plan.add_on_demand(
                    ctx,
                    PassDesc {
                        label: "toy count",
                        entry: test_shaders::test::slab_toy_count::MAIN,
                        bindings: vec![Binding::current("u"), Binding::read_write("needed")],
                        workgroups: [1, 1, 2 * e.halo_depth],
                        constants,
                    },
                )?)
            }
            false => None,
        };
        Ok(Self {
            ctx: ctx.clone(),
            plan,
            extent: *e,
            count,
        })
    }

    /// The owned planes of every field: [field][owned plane][plane word].
    fn owned(&self) -> Vec<u32> {
        let all: Vec<u32> = buffers::read_vec(&self.ctx, self.plan.current("u")).unwrap();
        let (begin, end) = self.extent.own_local();
        let planes = self.extent.planes() as usize;
        (0..FIELDS as usize)
            .flat_map(|f| {
                all[(f * planes + begin as usize) * PLANE..(f * planes + end as usize) * PLANE]
                    .to_vec()
            })
            .collect()
    }
}

impl SlabPart for Toy {
    type Error = EngineError;
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
        self.plan.encode(&self.ctx, steps, None)
    }
    fn state(&self) -> &wgpu::Buffer {
        self.plan.current("u")
    }
    fn field_counter(&self) -> Option<&wgpu::Buffer> {
        self.count.map(|_| self.plan.buffer("needed"))
    }
    fn record_field_count(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(count) = self.count {
            self.plan.record_on_demand(&self.ctx, encoder, count);
        }
    }
    // The toy's halo planes read zero past the buffer: nothing to restart.
    fn halos_written(&mut self, _step: u64) {}
}

/// The whole lattice from the parts' owned planes.
fn assemble(parts: &[Toy]) -> Vec<u32> {
    let mut whole = vec![0u32; FIELDS as usize * NZ as usize * PLANE];
    for p in parts {
        let owned = p.owned();
        let n = p.extent.owned_planes() as usize * PLANE;
        for f in 0..FIELDS as usize {
            let to = (f * NZ as usize + p.extent.own.0 as usize) * PLANE;
            whole[to..to + n].copy_from_slice(&owned[f * n..(f + 1) * n]);
        }
    }
    whole
}

fn options(halo_depth: u32, every: u64) -> DecompositionOptions {
    DecompositionOptions {
        halo_depth,
        balance: BalanceOptions {
            every,
            threshold: 0.0,
            move_cost: Some(Duration::ZERO),
        },
    }
}

fn decomposition(
    contexts: &[GpuContext],
    split: &[u32],
    options: DecompositionOptions,
    counted: bool,
) -> Decomposition<Toy> {
    let layout = FieldLayout {
        plane_words: NX * NY,
        fields: FIELDS,
        first_fields: 1,
    };
    let whole = initial_state();
    Decomposition::new(contexts, split, layout, options, |ctx, e| {
        Toy::new(ctx, &whole, e, 0, counted)
    })
    .unwrap()
}

/// Rebuilds the parts for new slabs from the old parts' owned planes.
fn rebuild(
    counted: bool,
) -> impl FnMut(&[Toy], &[SlabExtent], u64) -> Result<Vec<Toy>, EngineError> {
    move |old, extents, step| {
        let whole = assemble(old);
        old.iter()
            .zip(extents)
            .map(|(p, e)| Toy::new(&p.ctx, &whole, e, step, counted))
            .collect()
    }
}

#[test]
fn one_device_steps_in_growing_batches_like_the_cpu_twin() {
    let ctx = test_context();
    let mut one = decomposition(&[ctx], &[NZ], options(4, 0), true);
    assert_eq!(one.halo_depth(), 1);
    // 30 steps: batches of 4 (the plan's most), over several submissions.
    one.advance(30, rebuild(true)).unwrap();
    assert_eq!(one.step(), 30);
    assert_eq!(assemble(one.parts()), cpu_steps(&initial_state(), 30));
    assert_eq!(one.halo_refetches(), 0);
}

#[test]
fn two_devices_exchange_only_the_counted_fields_and_fetch_more_when_needed() {
    // Halos 3 deep: exchanges every 3 steps, the last round short (11 = 3 + 3 + 3 + 2).
    // Fields 1 and 2 fill from field 0 after a few steps: the first exchange stages one field,
    // a later one needs more than the last did, a second round trip.
    let contexts = [test_context(), test_context()];
    let mut two = decomposition(&contexts, &equal_split(NZ, 2), options(3, 0), true);
    assert_eq!((two.split(), two.halo_depth()), (vec![7, 6], 3));
    two.advance(11, rebuild(true)).unwrap();
    assert_eq!(assemble(two.parts()), cpu_steps(&initial_state(), 11));
    assert!(two.halo_refetches() > 0);
    assert_eq!(two.rebalances, 0);
    let cpu = cpu_steps(&initial_state(), 11);
    assert!(
        cpu[2 * NZ as usize * PLANE..].iter().any(|&w| w != 0),
        "field 2 should have filled"
    );
}

#[test]
fn three_devices_match_the_cpu_twin_across_moves_by_hand_and_by_the_balancer() {
    // Every field exchanged (no counter). An uneven split (halos 2 deep), a move by hand
    // (halos 1 deep), then the balancer deciding every 2 steps with no threshold and no
    // cost, so that it moves whenever the measured speeds round to another split.
    let ctx = test_context();
    let contexts = [ctx.clone(), test_context(), ctx];
    let mut three = decomposition(&contexts, &[2, 6, 5], options(4, 0), false);
    assert_eq!(three.halo_depth(), 2);
    three.advance(5, rebuild(false)).unwrap();
    assert_eq!(assemble(three.parts()), cpu_steps(&initial_state(), 5));
    three.rebalance(&[6, 1, 6], rebuild(false)).unwrap();
    assert_eq!(
        (three.split(), three.halo_depth(), three.step()),
        (vec![6, 1, 6], 1, 5)
    );
    three.advance(4, rebuild(false)).unwrap();
    assert_eq!(assemble(three.parts()), cpu_steps(&initial_state(), 9));
    assert_eq!(three.rebalances, 1);

    let mut balanced = decomposition(&contexts, &[1, 11, 1], options(1, 2), false);
    balanced.advance(12, rebuild(false)).unwrap();
    assert_eq!(assemble(balanced.parts()), cpu_steps(&initial_state(), 12));
    assert_eq!(balanced.split().iter().sum::<u32>(), NZ);
}

#[test]
fn a_split_that_does_not_cover_the_lattice_is_refused() {
    let contexts = [test_context(), test_context()];
    let mut two = decomposition(&contexts, &[6, 7], options(2, 0), false);
    let err = two.rebalance(&[6, 6], rebuild(false)).expect_err("refused");
    assert!(
        err.to_string()
            .contains("2 positive plane counts summing to 13"),
        "{err}"
    );
    let err = two
        .rebalance(&[13, 0], rebuild(false))
        .expect_err("refused");
    assert!(err.to_string().contains("[13, 0]"), "{err}");
    assert_eq!(two.split(), vec![6, 7]);
}
