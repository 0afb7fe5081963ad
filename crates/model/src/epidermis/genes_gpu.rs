//! The gene network's passes of a step (`shaders/epidermis/{centres,genes}.wgsl`), added to
//! the model's `StepPlan` in the order of the spec: centres and A, the centres' binning, the
//! neighbour sums, RK2 stage 1, RK2 stage 2. Every pass covers `max_cells` threads and stops
//! past `counters[Cells]`, so the cell count can change on the GPU (division) without the host.
//! CPU reference: `genes.rs`.

use super::genes::GeneUniforms;
use super::state::Counter;
use crate::error::Result;
use crate::shaders::epidermis::{centres, genes};
use petri_engine::{buffers, GpuContext};
use petri_scheduler::primitives::{Binning, Grid, Length};
use petri_scheduler::{dispatch_args, Binding, Every, PassDesc, StepPlan};

/// The plan buffer holding `GeneUniforms` (registered by `add_passes`).
pub const GENE_PARAMS: &str = "gene_params";

/// Buffers `add_passes` registers for the centre binning: bin of each cell, CSR offsets of
/// the bins, cells in bin order.
pub const CENTRE_BIN_OF: &str = "centre_bin_of";
pub const CENTRE_BIN_OFFSETS: &str = "centre_bin_offsets";
pub const CENTRE_BIN_CELLS: &str = "centre_bin_cells";

/// Workgroups covering `max_cells` threads of `workgroup` (2D past the device's per-axis
/// limit; the kernels find their cell with `dispatch_index`).
pub(crate) fn cell_groups(ctx: &GpuContext, max_cells: u32, workgroup: u32) -> [u32; 3] {
    dispatch_args(
        max_cells,
        workgroup,
        ctx.limits().max_compute_workgroups_per_dimension,
    )
}

/// Appends the gene passes to `plan`, with workgroups of `workgroup` threads.
///
/// Needs the plan buffers "counters" (u32, `Counter`), "pos" (vec4, max_cells * 40),
/// "counts" (u32, max_cells), "genes" and "genes_mid" (vec4, 2 max_cells), "centres" and
/// "neighbours" (vec4, max_cells). Registers `GENE_PARAMS` (a uniform holding `uniforms`; write
/// it to change dt) and the centre binning's buffers.
///
/// Bindings: centres pass: gene_params, counters (read), pos (read), counts (read), centres,
/// genes. Neighbour sums and both stages: gene_params, counters (read), centres (read),
/// centre_bin_of, centre_bin_offsets, centre_bin_cells (read), neighbours, genes, genes_mid.
pub fn add_passes(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    uniforms: &GeneUniforms,
    workgroup: u32,
) -> Result<()> {
    ctx.check_workgroup_size("the epidermis gene passes (workgroup)", [workgroup, 1, 1])?;
    let max_cells = uniforms.max_cells;
    plan.add_buffer(
        GENE_PARAMS,
        buffers::uniform_from(ctx, GENE_PARAMS, uniforms),
    );
    let [bx, by, _] = uniforms.bins;
    let grid = Grid {
        origin: [0.0; 3],
        cell_size: [
            uniforms.lx / bx as f32,
            uniforms.ly / by as f32,
            uniforms.bin_z,
        ],
        dims: uniforms.bins,
        periodic: [true, true, false],
    };
    let cells = Length::Gpu {
        buffer: plan.buffer("counters").clone(),
        word: Counter::Cells as u32,
    };
    let binning = Binning::new(ctx, plan.buffer("centres"), max_cells, grid, cells)?;
    plan.add_buffer(CENTRE_BIN_OF, binning.cell_of().clone());
    plan.add_buffer(CENTRE_BIN_OFFSETS, binning.cell_offsets().clone());
    plan.add_buffer(CENTRE_BIN_CELLS, binning.sorted_indices().clone());

    let groups = cell_groups(ctx, max_cells, workgroup);
    let pass = |label, entry, bindings| PassDesc {
        label,
        entry,
        bindings,
        workgroups: groups,
        constants: vec![("WG", workgroup as f64)],
    };
    plan.add_pass(
        ctx,
        pass(
            "epidermis centres",
            centres::MAIN,
            vec![
                Binding::uniform(GENE_PARAMS),
                Binding::read("counters"),
                Binding::read("pos"),
                Binding::read("counts"),
                Binding::read_write("centres"),
                Binding::read_write("genes"),
            ],
        ),
    )?;
    plan.add_recorded("epidermis centre binning", binning, Every::STEP)?;
    let gene_bindings = || {
        vec![
            Binding::uniform(GENE_PARAMS),
            Binding::read("counters"),
            Binding::read("centres"),
            Binding::read(CENTRE_BIN_OF),
            Binding::read(CENTRE_BIN_OFFSETS),
            Binding::read(CENTRE_BIN_CELLS),
            Binding::read_write("neighbours"),
            Binding::read_write("genes"),
            Binding::read_write("genes_mid"),
        ]
    };
    for (label, entry) in [
        ("epidermis neighbour sums", genes::NEIGHBOUR_SUMS),
        ("epidermis genes stage 1", genes::STAGE1),
        ("epidermis genes stage 2", genes::STAGE2),
    ] {
        plan.add_pass(ctx, pass(label, entry, gene_bindings()))?;
    }
    Ok(())
}
