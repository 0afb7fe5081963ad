//! Portability without the hardware: a registry's shaders, each entry point, with the pipeline
//! constants the engine uses, translated by naga to the languages wgpu's backends feed their
//! drivers: MSL (Metal), HLSL shader model 5.1 and 6.0 (DX12), SPIR-V (Vulkan) and GLSL 4.30
//! compute (GL). Each crate's tests run it over its own `shaders::ALL`.

use naga::back::{glsl, hlsl, msl, spv, PipelineConstants};

use super::Shader;

/// Translates every entry point of `shaders` under every constant set the engine uses: the count
/// of (entry point, constant set) pairs translated, and one line per failure naming the shader,
/// the entry point, the constants and the target language.
pub fn translation_failures(shaders: &[Shader]) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut translated = 0;
    for shader in shaders {
        let (module, info) = match shader.validate() {
            Ok(x) => x,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        let name = shader.path();
        for ep in &module.entry_points {
            for constants in constant_sets(&module) {
                for err in translate(&module, &info, &ep.name, &constants) {
                    failures.push(format!(
                        "{name} entry {} constants {constants:?}: {err}",
                        ep.name
                    ));
                }
                translated += 1;
            }
        }
    }
    (translated, failures)
}

/// Override values the engine sets: the defaults declared in the shader (empty set) and the
/// workgroup sizes used by the angiogenesis SimOptions::default() (32,8,1), the determinism test
/// (64,4,1 and 8,8,4) and the test kernels (WG 64 and 256).
fn constant_sets(module: &naga::Module) -> Vec<Vec<(&'static str, f64)>> {
    let names: Vec<&str> = module
        .overrides
        .iter()
        .filter_map(|(_, o)| o.name.as_deref())
        .collect();
    let mut sets = vec![vec![]];
    if names.contains(&"WX") {
        sets.push(vec![("WX", 32.0), ("WY", 8.0), ("WZ", 1.0)]);
        sets.push(vec![("WX", 64.0), ("WY", 4.0), ("WZ", 1.0)]);
        sets.push(vec![("WX", 8.0), ("WY", 8.0), ("WZ", 4.0)]);
    }
    if names.contains(&"WG") {
        sets.push(vec![("WG", 64.0)]);
        sets.push(vec![("WG", 256.0)]);
    }
    // The RDME sweeps: one pipeline per axis.
    if names.contains(&"AXIS") {
        for axis in [1.0, 2.0] {
            sets.push(vec![("WX", 64.0), ("WY", 4.0), ("AXIS", axis)]);
        }
    }
    // 2D workgroups (the RDME passes) declare no WZ.
    for set in &mut sets {
        set.retain(|(name, _)| names.contains(name));
    }
    sets
}

fn translate(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    entry: &str,
    constants: &[(&str, f64)],
) -> Vec<String> {
    let mut errors = Vec::new();
    let mut pc = PipelineConstants::default();
    for (k, v) in constants {
        pc.insert(k.to_string(), *v);
    }
    let stage = naga::ShaderStage::Compute;
    let (module, info) = match naga::back::pipeline_constants::process_overrides(
        module,
        info,
        Some((stage, entry)),
        &pc,
    ) {
        Ok(x) => x,
        Err(e) => return vec![format!("overrides: {e}")],
    };
    // MSL (Metal 2.1, as wgpu's Metal backend on macOS 10.14+).
    let msl_options = msl::Options {
        lang_version: (2, 1),
        fake_missing_bindings: true,
        ..Default::default()
    };
    let msl_pipeline = msl::PipelineOptions {
        entry_point: Some((stage, entry.to_string())),
        ..Default::default()
    };
    if let Err(e) = msl::write_string(&module, &info, &msl_options, &msl_pipeline) {
        errors.push(format!("MSL: {e:?}"));
    }
    // HLSL for DX12: shader models 5.1 (FXC) and 6.0 (DXC).
    for model in [hlsl::ShaderModel::V5_1, hlsl::ShaderModel::V6_0] {
        let options = hlsl::Options {
            shader_model: model,
            fake_missing_bindings: true,
            ..Default::default()
        };
        let pipeline = hlsl::PipelineOptions {
            entry_point: Some((stage, entry.to_string())),
        };
        let mut out = String::new();
        if let Err(e) = hlsl::Writer::new(&mut out, &options, &pipeline).write(&module, &info, None)
        {
            errors.push(format!("HLSL {model:?}: {e:?}"));
        }
    }
    // SPIR-V for Vulkan.
    let spv_pipeline = spv::PipelineOptions {
        shader_stage: stage,
        entry_point: entry.to_string(),
    };
    if let Err(e) = spv::write_vec(
        &module,
        &info,
        &spv::Options::default(),
        Some(&spv_pipeline),
    ) {
        errors.push(format!("SPIR-V: {e:?}"));
    }
    // GLSL 4.30 compute for desktop GL (wgpu's GL backend).
    let glsl_options = glsl::Options {
        version: glsl::Version::Desktop(430),
        ..Default::default()
    };
    let glsl_pipeline = glsl::PipelineOptions {
        shader_stage: stage,
        entry_point: entry.to_string(),
        multiview: None,
    };
    let mut out = String::new();
    match glsl::Writer::new(
        &mut out,
        &module,
        &info,
        &glsl_options,
        &glsl_pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    ) {
        Ok(mut w) => {
            if let Err(e) = w.write() {
                errors.push(format!("GLSL 430: {e:?}"));
            }
        }
        Err(e) => errors.push(format!("GLSL 430: {e:?}")),
    }
    errors
}
