//! Every host struct of the models that mirrors a WGSL struct, against the layout naga reflects
//! from the shader (`petri_engine::layout`): same size, every member at the same offset.

use petri_engine::{host_layout, layout};
use petri_model::angiogenesis::{bench::Grid, state::Tip, uniforms::AngioUniforms};
use petri_model::epidermis::uniforms::{EpiUniforms, MorseForce};
use petri_model::epidermis::{genes::GeneUniforms, growth::GrowthUniforms};
use petri_model::gliding::clock::{Clock, ClockParams};
use petri_model::gliding::coupling::CouplingUniforms;
use petri_model::gliding::filaments::FilamentUniforms;
use petri_model::gliding::motors::{MotorChunkUniforms, MotorUniforms};
use petri_model::gliding::stokes::StokesUniforms;
use petri_model::rdme::{config::SiteReaction, slab::LatticeUniforms};
use petri_model::shaders;
use petri_model::ssa::{
    gpu_ensemble::EnsembleParams,
    gpu_leap::{LeapControl, LeapParams},
};

#[test]
fn host_structs_match_their_wgsl_structs() {
    let angio = host_layout!(AngioUniforms:
        nx, ny, nz, ncells, k, d, inv_h2, chi0, alpha, rho, beta, gamma, eta, branch_age,
        max_tips, max_segments, branching, anastomosis, dims, branch_density, trials_per_age, tumour,
        h, walk_events, discrete, capture);
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
    let growth = host_layout!(GrowthUniforms: lx, ly, delta_threshold, max_cells, normal,
        restriction_point, seed, spindle, _pad);
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
    let coupling = host_layout!(CouplingUniforms:
        nx, ny, ntheta, nz, level, turn_rate, dtheta, inv_2dx, inv_2dy, inv_sheet, v_sp, u_t,
        u_r, sigma_f, sigma_t, inv_dx, inv_dy, inv_dtheta);
    layout::all([
        layout::check(
            shaders::gliding::coupling::SHADER,
            "CouplingParams",
            &coupling,
        ),
        layout::check(shaders::angiogenesis::common::SHADER, "AngioParams", &angio),
        layout::check(shaders::angiogenesis::common::SHADER, "Tip", &tip),
        // epidermis/common.wgsl is a fragment: reflected inside a shader that includes it.
        layout::check(shaders::epidermis::forces::SHADER, "EpiParams", &epi),
        layout::check(shaders::epidermis::forces::SHADER, "MorseForce", &morse),
        layout::check(
            shaders::angiogenesis::bench_diffusion7::SHADER,
            "Grid",
            &grid,
        ),
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

/// Every `#[repr(C)]` struct that derives `bytemuck::Pod` in the workspace's crates (and the
/// model outside it) is a host mirror of a WGSL struct, and each one is checked by a
/// `host_layout!` somewhere (here, or next to a private struct in its own file): a new mirror
/// without a check fails here, so no list of them has to be kept by hand.
#[test]
fn every_pod_struct_has_its_layout_checked() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["crates", "examples/custom_model"] {
        rust_files(&root.join(dir), &mut files);
    }
    let (mut pods, mut checked) = (Vec::new(), std::collections::BTreeSet::new());
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            // `#[derive(.., Pod, ..)]` then, before the next blank line, `struct Name`.
            if line.trim_start().starts_with("#[derive(") && line.contains("Pod") {
                let name = lines[i + 1..]
                    .iter()
                    .take_while(|l| !l.trim().is_empty())
                    .find_map(|l| l.split("struct ").nth(1))
                    .and_then(|rest| rest.split([' ', '{', '<', '(', ';']).next());
                if let Some(name) = name {
                    pods.push((name.to_string(), path.display().to_string()));
                }
            }
            // `host_layout!(path::Name: fields)`: the type's last path segment.
            for use_ in line.split("host_layout!(").skip(1) {
                let path: String = use_
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let path = path.trim_end_matches(':');
                checked.insert(path.rsplit("::").next().unwrap_or(path).to_string());
            }
        }
    }
    assert!(pods.len() > 20, "found only {} Pod structs", pods.len());
    let unchecked: Vec<String> = pods
        .iter()
        .filter(|(name, _)| !checked.contains(name))
        .map(|(name, path)| format!("{name} ({path})"))
        .collect();
    assert!(
        unchecked.is_empty(),
        "Pod structs whose layout no host_layout! checks: {}",
        unchecked.join(", ")
    );
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("target") {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
