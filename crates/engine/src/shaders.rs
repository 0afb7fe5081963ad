//! The shader registry: every WGSL file under `shaders/`, embedded at build time.
//!
//! WGSL has no imports, so a file may name library files it needs with lines of the form
//! `//!include common/rng.wgsl`; `source` pastes each included file once, before the file's own
//! text. `validate` checks a composed shader with naga against the WebGPU baseline (no optional
//! capabilities), which the test suite does for every file except fragments: library files
//! marked `//!fragment` use globals (bindings) that each includer declares with its own group,
//! binding and access, so they are validated inside every shader that includes them.
//!
//! A shader may also hold a generated section, between `//!generated begin NAME` and
//! `//!generated end NAME` lines: code a launcher writes for its input (e.g. a reaction network
//! compiled into straight-line WGSL). The file keeps a small valid default there, so it
//! validates like any other; `source_generated` swaps in the launcher's code, and
//! `module_from_source` validates the result with naga before wgpu sees it.
//!
//! A standalone file may declare `//!bounded-loops`: every loop in it and in the files it
//! includes ends for every input, by a fixed bound or a counter that only moves toward its
//! bound. `module` then creates it without the counters naga adds to every loop so that a loop
//! the compiler cannot prove finite still ends (`ShaderRuntimeChecks::force_loop_bounding`);
//! bounds checks stay on. The RDME step's passes declare it: the counters cost 9% of the Min
//! system's step and 14% of a dense lattice's on the H200 (docs/BENCHMARKS.md). Fragments cannot
//! declare it: the file that includes them vouches for them.

use crate::error::{EngineError, Result};
use std::collections::HashSet;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));
}

const INCLUDE: &str = "//!include ";

const FRAGMENT: &str = "//!fragment";

const BOUNDED_LOOPS: &str = "//!bounded-loops";

/// Paths (relative to `shaders/`) of every embedded WGSL file.
pub fn names() -> impl Iterator<Item = &'static str> {
    embedded::FILES.iter().map(|(n, _)| *n)
}

/// Files that compile on their own (every file but the fragments).
pub fn standalone_names() -> impl Iterator<Item = &'static str> {
    embedded::FILES
        .iter()
        .filter(|(_, text)| !text.lines().any(|l| l.trim() == FRAGMENT))
        .map(|(n, _)| *n)
}

/// The file's own text, without includes resolved.
pub fn raw(name: &str) -> Result<&'static str> {
    embedded::FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .ok_or_else(|| EngineError::UnknownShader(name.to_string()))
}

/// Whether a file declares `//!bounded-loops` (see the module doc).
pub fn has_bounded_loops(name: &str) -> Result<bool> {
    Ok(raw(name)?.lines().any(|l| l.trim() == BOUNDED_LOOPS))
}

/// The shader with its includes pasted in, ready for naga or wgpu.
pub fn source(name: &str) -> Result<String> {
    let mut out = String::new();
    let mut seen = HashSet::new();
    compose(name, &mut seen, &mut out)?;
    Ok(out)
}

fn compose(name: &str, seen: &mut HashSet<String>, out: &mut String) -> Result<()> {
    if !seen.insert(name.to_string()) {
        return Ok(());
    }
    let text = raw(name)?;
    for line in text.lines() {
        if let Some(dep) = line.trim().strip_prefix(INCLUDE) {
            compose(dep.trim(), seen, out)?;
        }
    }
    out.push_str(&format!("// ---- {name} ----\n"));
    out.push_str(text);
    out.push('\n');
    Ok(())
}

const GENERATED_BEGIN: &str = "//!generated begin ";
const GENERATED_END: &str = "//!generated end ";

/// The shader with its includes pasted in and its generated section `section` (see the module
/// doc) replaced by `code`.
pub fn source_generated(name: &str, section: &str, code: &str) -> Result<String> {
    let src = source(name)?;
    let begin = format!("{GENERATED_BEGIN}{section}\n");
    let end = format!("{GENERATED_END}{section}\n");
    let missing = || EngineError::ShaderInvalid {
        shader: name.to_string(),
        message: format!("no generated section {section:?} (lines {begin:?} ... {end:?})"),
    };
    let a = src.find(&begin).ok_or_else(missing)? + begin.len();
    let b = a + src[a..].find(&end).ok_or_else(missing)?;
    Ok(format!("{}{code}\n{}", &src[..a], &src[b..]))
}

/// Parses and validates a composed shader with naga, with no capabilities beyond WebGPU's.
pub fn validate(name: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    validate_source(name, &source(name)?)
}

/// Validates shader text (`label` names it in errors), as `validate` does a registry shader.
pub fn validate_source(label: &str, src: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let name = label;
    let module = naga::front::wgsl::parse_str(src).map_err(|e| EngineError::ShaderInvalid {
        shader: name.to_string(),
        message: e.emit_to_string(src),
    })?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .map_err(|e| EngineError::ShaderInvalid {
        shader: name.to_string(),
        message: e.emit_to_string(src),
    })?;
    Ok((module, info))
}

/// Creates a wgpu shader module from a registry shader (validated by naga first, so errors name
/// the file and line rather than surfacing as a device error).
pub fn module(device: &wgpu::Device, name: &str) -> Result<wgpu::ShaderModule> {
    let src = source(name)?;
    validate_source(name, &src)?;
    Ok(create_module(device, name, src, has_bounded_loops(name)?))
}

/// Creates a wgpu shader module from shader text (e.g. from `source_generated`), validated by
/// naga first.
pub fn module_from_source(
    device: &wgpu::Device,
    label: &str,
    src: String,
) -> Result<wgpu::ShaderModule> {
    validate_source(label, &src)?;
    Ok(create_module(device, label, src, false))
}

fn create_module(
    device: &wgpu::Device,
    label: &str,
    src: String,
    bounded_loops: bool,
) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(src.into()),
    };
    if !bounded_loops {
        return device.create_shader_module(desc);
    }
    let mut checks = wgpu::ShaderRuntimeChecks::checked();
    checks.force_loop_bounding = false;
    // SAFETY: wgpu asks that such a shader have no infinite loop, which `//!bounded-loops`
    // declares (module doc); bounds checks stay on.
    unsafe { device.create_shader_module_trusted(desc, checks) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_not_empty_and_includes_resolve() {
        assert!(names().any(|n| n == "common/rng.wgsl"));
        for name in names() {
            let src = source(name).unwrap();
            assert!(src.contains(&format!("// ---- {name} ----")));
        }
    }

    #[test]
    fn bounded_loops_are_declared_by_standalone_shaders_only() {
        let standalone: Vec<&str> = standalone_names().collect();
        for name in names() {
            if has_bounded_loops(name).unwrap() {
                assert!(
                    standalone.contains(&name),
                    "fragment {name} declares {BOUNDED_LOOPS}; the files that include it must"
                );
            }
        }
        // The RDME step's passes, where the loop counters cost most (module doc).
        for name in ["rdme/diffuse.wgsl", "rdme/resolve.wgsl"] {
            assert!(has_bounded_loops(name).unwrap(), "{name}");
        }
        assert!(!has_bounded_loops("rdme/observe.wgsl").unwrap());
    }

    #[test]
    fn every_fragment_is_included_by_a_standalone_shader() {
        let standalone: Vec<&str> = standalone_names().collect();
        for name in names().filter(|n| !standalone.contains(n)) {
            let line = format!("{INCLUDE}{name}");
            assert!(
                standalone
                    .iter()
                    .any(|s| raw(s).unwrap().lines().any(|l| l.trim() == line)),
                "fragment {name} is included by no shader, so nothing validates it"
            );
        }
    }

    #[test]
    fn every_shader_validates_against_webgpu_baseline() {
        let mut failures = Vec::new();
        for name in standalone_names() {
            if let Err(e) = validate(name) {
                failures.push(e.to_string());
            }
        }
        assert!(
            failures.is_empty(),
            "invalid shaders:\n{}",
            failures.join("\n")
        );
    }

    #[test]
    fn generated_sections_are_replaced_and_checked() {
        // ssa/ensemble_compiled.wgsl has a `network` section with a default body.
        let name = "ssa/ensemble_compiled.wgsl";
        let default = source(name).unwrap();
        let swapped = source_generated(name, "network", "// nothing here").unwrap();
        assert!(default.contains("//!generated begin network"));
        assert!(swapped.contains("// nothing here") && swapped.len() < default.len());
        validate_source("swapped", &swapped).unwrap();
        // Bad generated code is refused by naga, with the label named.
        let bad = source_generated(name, "network", "fn f() -> u32 { return nowhere; }").unwrap();
        let err = validate_source("bad", &bad).unwrap_err().to_string();
        assert!(err.contains("bad") && err.contains("nowhere"), "{err}");
        assert!(source_generated(name, "nope", "").is_err());
    }

    #[test]
    fn unknown_shader_is_an_error() {
        assert!(matches!(
            source("nope.wgsl"),
            Err(EngineError::UnknownShader(_))
        ));
    }
}
