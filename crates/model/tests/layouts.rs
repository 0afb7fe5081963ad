//! Every host struct of the models that mirrors a WGSL struct, against the layout naga reflects
//! from the shader (`petri_engine::layout`): same size, every member at the same offset.

use petri_engine::{host_layout, layout, shaders};
use petri_model::angiogenesis::{bench::Grid, state::Tip, uniforms::AngioUniforms};
use petri_model::epidermis::uniforms::{EpiUniforms, MorseForce};
use petri_model::epidermis::{genes::GeneUniforms, growth::GrowthUniforms};
use petri_model::gliding::clock::{Clock, ClockParams};
use petri_model::gliding::filaments::FilamentUniforms;
use petri_model::gliding::motors::{MotorChunkUniforms, MotorUniforms};
use petri_model::gliding::stokes::StokesUniforms;
use petri_model::rdme::{config::SiteReaction, slab::LatticeUniforms};
use petri_model::ssa::{
    gpu_ensemble::EnsembleParams,
    gpu_leap::{LeapControl, LeapParams},
};

#[test]
fn host_structs_match_their_wgsl_structs() {
    let angio = host_layout!(AngioUniforms:
        nx, ny, nz, ncells, k, d, inv_h2, chi0, alpha, rho, beta, gamma, eta, branch_age,
        max_tips, max_segments, branching, anastomosis, dims, branch_density, trials_per_age, tumour,
        h, walk_events, discrete);
    let tip = host_layout!(Tip: site, age, alive, parent);
    let epi = host_layout!(EpiUniforms:
        lx, ly, inv_lx, inv_ly, dt, half_dt, inter_range2, max_cells, intra, inter, membrane,
        bins_x, bins_y, bins_z, intra_range2);
    let morse = host_layout!(MorseForce: a, inv_xi1, b, inv_xi2);
    let grid = host_layout!(Grid: nx, ny, nz, r);
    let lattice = host_layout!(LatticeUniforms:
        nx, ny, planes, sites, z_base, nz, own_begin, own_end, n_types, n_species, n_reactions,
        overflow_capacity, zeroth_order, halo_depth, halo_start);
    let reaction = host_layout!(SiteReaction:
        reactant_a, reactant_b, products, type_mask, c_tau, order);
    let ensemble = host_layout!(EnsembleParams:
        n_species, n_reactions, n_out, chunk_len, traj_offset, seed_lo, seed_hi, method,
        event_budget, record, n_critical, odm_refresh, epsilon, normal_above, off_changes,
        off_deps, off_species, off_order, off_times, off_counts, off_props, off_scratch,
        work_limit, out_stop);
    let leap = host_layout!(LeapParams:
        n_species, n_reactions, n_blocks_rx, n_blocks_sp, seed_lo, seed_hi, n_critical, epsilon,
        normal_above, ssa_factor, off_cons, off_rate, off_sp_start, off_sp_entries, off_kinds,
        off_xnew, off_k, off_ac, off_blk_a, off_blk_ac, off_blk_tau);
    let leap_control = host_layout!(LeapControl:
        mode, attempt, leaps, rejected, ssa_steps, pick, t, stop, tau, scale, a0, a0c, tau1,
        extinct, reached, stopped);
    let genes = host_layout!(GeneUniforms:
        ka, kd, tgf_beta, dt, decay, hill, lx, ly, neighbour_distance2, max_cells, bins, bin_z);
    let growth = host_layout!(GrowthUniforms: lx, ly, delta_threshold, max_cells, normal, _pad);
    let stokes = host_layout!(StokesUniforms:
        nx, ny, nz, modes, mu, inv_n, kx_unit, ky_unit, bottom, top, eps2, _pad0, _pad1, _pad2);
    let filaments = host_layout!(FilamentUniforms:
        nx, ny, ntheta, modes, _pad3, inv_dx, inv_dy, inv_dtheta, cn_x, cn_theta, kx_unit,
        ky_unit, inv_n, _pad0, _pad1, _pad2);
    let motors = host_layout!(MotorUniforms:
        nx, ny, ntheta, ns, lines, lines_pow2, block, anchors, n_heads, mask_at, p_at, heads_at,
        start_at, items_at, _pad0, _pad1, _pad2, walk, k_on, k_off, rate_base, volume, area,
        force_scale, n_rows, rows_at, _pad3, _pad4);
    let motor_chunk = host_layout!(MotorChunkUniforms: first, count, last, _pad);
    let clock = host_layout!(Clock:
        dt, dt_prev, rate, failure, ticks_lo, ticks_hi, failed_step, failed_rate);
    let clock_params = host_layout!(ClockParams: max_ticks, min_ticks, tick, courant_ticks);
    layout::all([
        layout::check(shaders::angiogenesis::common::SHADER, "AngioParams", &angio),
        layout::check(shaders::angiogenesis::common::SHADER, "Tip", &tip),
        // epidermis/common.wgsl is a fragment: reflected inside a shader that includes it.
        layout::check(shaders::epidermis::forces::SHADER, "EpiParams", &epi),
        layout::check(shaders::epidermis::forces::SHADER, "MorseForce", &morse),
        layout::check(shaders::bench::diffusion7::SHADER, "Grid", &grid),
        layout::check(shaders::rdme::common::SHADER, "Lattice", &lattice),
        // rdme/reaction.wgsl is a fragment: reflected inside a shader that includes it.
        layout::check(shaders::rdme::diffuse::SHADER, "Reaction", &reaction),
        layout::check(shaders::ssa::ensemble::SHADER, "EnsembleParams", &ensemble),
        layout::check(shaders::ssa::leap::SHADER, "LeapParams", &leap),
        layout::check(shaders::ssa::leap::SHADER, "LeapControl", &leap_control),
        layout::check(shaders::epidermis::genes::SHADER, "GeneUniforms", &genes),
        layout::check(shaders::epidermis::grow::SHADER, "GrowthUniforms", &growth),
        layout::check(shaders::gliding::stokes::SHADER, "StokesParams", &stokes),
        layout::check(
            shaders::gliding::filaments::SHADER,
            "FilamentParams",
            &filaments,
        ),
        layout::check(shaders::gliding::motors::SHADER, "MotorParams", &motors),
        layout::check(shaders::gliding::clock::SHADER, "Clock", &clock),
        layout::check(
            shaders::gliding::clock::SHADER,
            "ClockParams",
            &clock_params,
        ),
        layout::check(shaders::gliding::motors::SHADER, "MotorChunk", &motor_chunk),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
}
