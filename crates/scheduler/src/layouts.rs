//! The scheduler's host structs against the WGSL structs they mirror (`petri_engine::layout`).

use crate::{plan::StepInfo, reduce::ReduceParams};
use petri_engine::{host_layout, layout, shaders};

#[test]
fn host_structs_match_their_wgsl_structs() {
    let step = host_layout!(StepInfo: step, seed_lo, seed_hi, parity);
    let reduce = host_layout!(ReduceParams: len, groups_x);
    layout::all([
        layout::check(shaders::common::step::SHADER, "StepInfo", &step),
        layout::check(shaders::common::reduce::SHADER, "ReduceParams", &reduce),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
}
