//! The scheduler's host structs against the WGSL structs they mirror (`petri_engine::layout`).

use crate::{plan::StepInfo, reduce::ReduceParams};
use petri_engine::{host_layout, layout, shaders};

#[test]
fn host_structs_match_their_wgsl_structs() {
    let checks = [
        layout::check(
            shaders::common::step::SHADER,
            "StepInfo",
            &host_layout!(StepInfo {
                step,
                seed_lo,
                seed_hi,
                parity
            }),
        ),
        layout::check(
            shaders::common::reduce::SHADER,
            "ReduceParams",
            &host_layout!(ReduceParams { len, groups_x }),
        ),
    ];
    let errors: Vec<String> = checks.into_iter().filter_map(Result::err).collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
