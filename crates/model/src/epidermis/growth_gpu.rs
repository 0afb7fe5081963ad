//! The growth passes (`shaders/epidermis/{grow,divide,active}.wgsl`), added to the model's
//! `StepPlan` after the mechanics and run after the mechanics of every step s with
//! (s + 1) % interval == 0: grow (flags the cells that reach 40 elements), the exclusive scan
//! of the flags (each dividing cell's rank: its new cell's id is cells + rank), divide, commit
//! (Cells, Divisions or Overflow), the exclusive scan of the counts, the active-slot list
//! (and Elements). CPU reference: `growth.rs`.

use super::genes_gpu::cell_groups;
use super::growth::GrowthUniforms;
use super::state::Counter;
use crate::error::{invalid, Result};
use crate::shaders::epidermis::{active, divide, grow};
use petri_engine::{buffers, GpuContext};
use petri_scheduler::primitives::{Length, Scan};
use petri_scheduler::{Binding, Every, PassDesc, PassSchedule, StepPlan};

/// The plan buffer holding `GrowthUniforms` (registered by `add_passes`).
pub const GROWTH_PARAMS: &str = "growth_params";
/// Buffers `add_passes` registers: per cell 1 if it divides, its rank among the dividing
/// cells, their number (one u32); per cell the first entry of its slots in "active", and the
/// element count (one u32).
pub const DIVISION_FLAGS: &str = "division_flags";
pub const DIVISION_RANKS: &str = "division_ranks";
pub const DIVISION_TOTAL: &str = "division_total";
pub const ACTIVE_OFFSETS: &str = "active_offsets";
pub const ACTIVE_TOTAL: &str = "active_total";

/// Appends the growth passes to `plan`, run at the steps s with (s + 1) % interval == 0, with
/// workgroups of `workgroup` threads.
///
/// Needs the plan buffers "counters", "genes", "pos", "counts", "active" (u32, max_cells * 40).
/// Bindings: grow: growth_params, counters, genes (read), pos, counts, division_flags.
/// divide and commit: growth_params, counters, division_flags, division_ranks, division_total
/// (read), pos, counts, genes. active: growth_params, counters, counts, active_offsets,
/// active_total (read), active.
pub fn add_passes(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    uniforms: &GrowthUniforms,
    interval: u32,
    workgroup: u32,
) -> Result<()> {
    if interval == 0 {
        return Err(invalid("growth.interval", 0, ">= 1 (steps)"));
    }
    ctx.check_workgroup_size("the epidermis growth passes (workgroup)", [workgroup, 1, 1])?;
    let max_cells = uniforms.max_cells;
    plan.add_buffer(
        GROWTH_PARAMS,
        buffers::uniform_from(ctx, GROWTH_PARAMS, uniforms),
    );
    let cells = || Length::Gpu {
        buffer: plan.buffer("counters").clone(),
        word: Counter::Cells as u32,
    };
    let flags = buffers::storage_zeroed(ctx, DIVISION_FLAGS, max_cells as u64 * 4)?;
    let ranks = buffers::storage_zeroed(ctx, DIVISION_RANKS, max_cells as u64 * 4)?;
    let offsets = buffers::storage_zeroed(ctx, ACTIVE_OFFSETS, max_cells as u64 * 4)?;
    let rank_scan = Scan::new(ctx, &flags, &ranks, max_cells, cells())?;
    let count_scan = Scan::new(ctx, plan.buffer("counts"), &offsets, max_cells, cells())?;
    plan.add_buffer(DIVISION_TOTAL, rank_scan.total().clone());
    plan.add_buffer(ACTIVE_TOTAL, count_scan.total().clone());
    plan.add_buffer(DIVISION_FLAGS, flags);
    plan.add_buffer(DIVISION_RANKS, ranks);
    plan.add_buffer(ACTIVE_OFFSETS, offsets);

    let every = Every {
        k: interval,
        phase: interval - 1,
    };
    let schedule = PassSchedule::default().every(every.k, every.phase);
    let groups = cell_groups(ctx, max_cells, workgroup);
    let add = |plan: &mut StepPlan, label, entry, bindings, per_cell: bool| {
        let desc = PassDesc {
            label,
            entry,
            bindings,
            workgroups: if per_cell { groups } else { [1, 1, 1] },
            constants: if per_cell {
                vec![("WG", workgroup as f64)]
            } else {
                vec![]
            },
        };
        plan.add_pass_with(ctx, desc, schedule.clone())
    };
    let grow_bindings = vec![
        Binding::uniform(GROWTH_PARAMS),
        Binding::read_write("counters"),
        Binding::read("genes"),
        Binding::read_write("pos"),
        Binding::read_write("counts"),
        Binding::read_write(DIVISION_FLAGS),
    ];
    add(plan, "epidermis grow", grow::MAIN, grow_bindings, true)?;
    plan.add_recorded("epidermis division ranks", rank_scan, every)?;
    let divide_bindings = vec![
        Binding::uniform(GROWTH_PARAMS),
        Binding::read_write("counters"),
        Binding::read(DIVISION_FLAGS),
        Binding::read(DIVISION_RANKS),
        Binding::read(DIVISION_TOTAL),
        Binding::read_write("pos"),
        Binding::read_write("counts"),
        Binding::read_write("genes"),
    ];
    let label = "epidermis divide";
    add(plan, label, divide::DIVIDE, divide_bindings.clone(), true)?;
    let label = "epidermis divide commit";
    add(plan, label, divide::COMMIT, divide_bindings, false)?;
    plan.add_recorded("epidermis count offsets", count_scan, every)?;
    let active_bindings = vec![
        Binding::uniform(GROWTH_PARAMS),
        Binding::read_write("counters"),
        Binding::read("counts"),
        Binding::read(ACTIVE_OFFSETS),
        Binding::read(ACTIVE_TOTAL),
        Binding::read_write("active"),
    ];
    add(
        plan,
        "epidermis active list",
        active::MAIN,
        active_bindings,
        true,
    )?;
    Ok(())
}
