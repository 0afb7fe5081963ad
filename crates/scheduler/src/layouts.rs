//! The scheduler's host structs against the WGSL structs they mirror (`petri_engine::layout`).

use crate::{plan::StepInfo, primitives::FftPass, reduce::ReduceParams};
use petri_engine::{host_layout, layout, shaders};

#[test]
fn host_structs_match_their_wgsl_structs() {
    let step = host_layout!(StepInfo: step, seed_lo, seed_hi, parity);
    let reduce = host_layout!(ReduceParams: len, groups_x);
    let fft = host_layout!(FftPass: n, inner, tw_off, inverse, block_outer, block_inner, radix, ns,
        items, groups_x, _p0, _p1);
    layout::all([
        layout::check(shaders::common::step::SHADER, "StepInfo", &step),
        layout::check(shaders::common::reduce::SHADER, "ReduceParams", &reduce),
        layout::check(crate::shaders::scheduler::fft::SHADER, "FftPass", &fft),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
}
