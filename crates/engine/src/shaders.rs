//! The shader registry: every WGSL file under `shaders/`, embedded, validated and given typed
//! handles at build time (`build.rs`).
//!
//! Handles: a standalone file `DIR/NAME.wgsl` is the module `shaders::DIR::NAME`, with `SHADER`
//! (the file) and one [`EntryPoint`] constant per compute entry point, named as the entry in
//! upper case: `fn diffuse` of `rdme/diffuse.wgsl` is `shaders::rdme::diffuse::DIFFUSE`. A
//! misspelt shader or entry point is a compile error; an invalid shader fails the build with
//! naga's report naming the file and line. [`ALL`] lists every standalone file.
//!
//! WGSL has no imports, so a file may name library files it needs with lines of the form
//! `//!include common/rng.wgsl`; the composed source pastes each included file once, before the
//! file's own text (`compose.rs`, shared with `build.rs`). Every file except fragments is
//! validated with naga against the WebGPU baseline (no optional capabilities): library files
//! marked `//!fragment` use globals (bindings) that each includer declares with its own group,
//! binding and access, so they are validated inside every shader that includes them.
//!
//! A shader may also hold a generated section, between `//!generated begin NAME` and
//! `//!generated end NAME` lines: code a launcher writes for its input (e.g. a reaction network
//! compiled into straight-line WGSL). The file keeps a small valid default there, so it
//! validates (and gets handles) like any other; [`Shader::source_generated`] swaps in the
//! launcher's code, and [`module_from_source`] validates the result with naga before wgpu sees
//! it.
//!
//! A standalone file may declare `//!bounded-loops`: every loop in it and in the files it
//! includes ends for every input, by a fixed bound or a counter that only moves toward its
//! bound. [`module`] then creates it without the counters naga adds to every loop so that a loop
//! the compiler cannot prove finite still ends (`ShaderRuntimeChecks::force_loop_bounding`);
//! bounds checks stay on. The RDME step's passes and the angiogenesis field update declare it:
//! the counters made the RDME steps about a tenth slower. Fragments cannot declare it: the file that includes them vouches for them.

use crate::error::{EngineError, Result};

// Also build.rs's: some items only it uses.
#[allow(dead_code)]
mod compose;

include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));
include!(concat!(env!("OUT_DIR"), "/shader_handles.rs"));

/// A standalone registry file (validated at build time). Handles are the constants
/// `shaders::DIR::NAME::SHADER`; there is no other way to make one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shader {
    path: &'static str,
}

/// A compute entry point of a registry shader: `shaders::DIR::NAME::ENTRY` (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EntryPoint {
    shader: Shader,
    name: &'static str,
}

fn raw(path: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == path).map(|(_, s)| *s)
}

impl Shader {
    const fn entry(self, name: &'static str) -> EntryPoint {
        EntryPoint { shader: self, name }
    }

    /// Path relative to `shaders/`, e.g. `rdme/diffuse.wgsl`.
    pub fn path(self) -> &'static str {
        self.path
    }

    /// The file's own text, without includes resolved.
    pub fn raw(self) -> &'static str {
        raw(self.path).expect("handles name embedded files")
    }

    /// The shader with its includes pasted in, ready for naga or wgpu.
    pub fn source(self) -> String {
        compose::compose(self.path, &raw).expect("the build composed every shader")
    }

    /// Whether the file declares `//!bounded-loops` (module doc).
    pub fn bounded_loops(self) -> bool {
        compose::has_bounded_loops(self.raw())
    }

    /// The composed shader with its generated section `section` (module doc) replaced by `code`.
    pub fn source_generated(self, section: &str, code: &str) -> Result<String> {
        compose::replace_section(&self.source(), section, code).map_err(|message| {
            EngineError::ShaderInvalid {
                shader: self.path.to_string(),
                message,
            }
        })
    }

    /// The composed shader parsed and validated by naga (e.g. to reflect its layouts).
    pub fn validate(self) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
        let src = self.source();
        compose::validate(self.path, &src, true).map_err(|message| EngineError::ShaderInvalid {
            shader: self.path.to_string(),
            message,
        })
    }
}

impl EntryPoint {
    pub fn shader(self) -> Shader {
        self.shader
    }

    /// The entry point's name in WGSL.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// The composed source of its shader.
    pub fn source(self) -> String {
        self.shader.source()
    }

    /// Whether its shader declares `//!bounded-loops`.
    pub fn bounded_loops(self) -> bool {
        self.shader.bounded_loops()
    }
}

impl std::fmt::Display for EntryPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.shader.path, self.name)
    }
}

/// Validates shader text (`label` names it in errors) as the build validates a registry shader.
pub fn validate_source(label: &str, src: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    compose::validate(label, src, false).map_err(|message| EngineError::ShaderInvalid {
        shader: label.to_string(),
        message,
    })
}

/// Creates a wgpu shader module from a registry shader (validated by the build).
pub fn module(device: &wgpu::Device, shader: Shader) -> wgpu::ShaderModule {
    create_module(device, shader.path, shader.source(), shader.bounded_loops())
}

/// Creates a wgpu shader module from shader text (e.g. from `Shader::source_generated`),
/// validated by naga first, so errors name the line rather than surfacing as a device error.
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
    fn handles_name_files_and_entry_points() {
        assert_eq!(rdme::diffuse::DIFFUSE.shader().path(), "rdme/diffuse.wgsl");
        assert_eq!(rdme::diffuse::DIFFUSE.name(), "diffuse");
        assert_eq!(
            common::reduce::REDUCE_MAX.to_string(),
            "common/reduce.wgsl:reduce_max"
        );
        assert!(ALL.contains(&common::rng::SHADER));
        assert!(
            !ALL.iter().any(|s| s.path() == "rdme/gather.wgsl"),
            "a fragment"
        );
        // Every handle's entry point is in its composed source.
        for ep in [ssa::leap::LEAP_FINISH, ssa::ensemble_compiled::RUN_COMPILED] {
            assert!(ep.source().contains(&format!("fn {}(", ep.name())), "{ep}");
        }
    }

    #[test]
    fn includes_resolve_once_before_the_includer() {
        let src = rdme::diffuse::SHADER.source();
        let at = |name: &str| {
            let marker = format!("// ---- {name} ----");
            assert_eq!(src.matches(&marker).count(), 1, "{name}");
            src.find(&marker).unwrap()
        };
        assert!(at("common/rng.wgsl") < at("rdme/gather.wgsl"));
        assert!(at("rdme/gather.wgsl") < at("rdme/diffuse.wgsl"));
    }

    #[test]
    fn bounded_loops_are_declared_where_the_counters_cost_most() {
        // The RDME step's passes (module doc).
        assert!(rdme::diffuse::SHADER.bounded_loops());
        assert!(rdme::resolve::RESOLVE.bounded_loops());
        assert!(angiogenesis::fields::MAIN.bounded_loops());
        assert!(!rdme::observe::SHADER.bounded_loops());
    }

    #[test]
    fn every_shader_validates_at_run_time_too() {
        // The build validated them; the naga in the engine must agree.
        for shader in ALL {
            shader.validate().unwrap_or_else(|e| panic!("{e}"));
        }
    }

    #[test]
    fn errors_name_the_file_and_line_they_come_from() {
        // Line 3 of c.wgsl, composed after b.wgsl and before a.wgsl.
        let files = |name: &str| match name {
            "a.wgsl" => Some("//!include b.wgsl\n//!include c.wgsl\nfn a() {}"),
            "b.wgsl" => Some("fn b() {}\n"),
            "c.wgsl" => Some("fn c() {}\n\nfn broken( {}"),
            _ => None,
        };
        let src = compose::compose("a.wgsl", &files).unwrap();
        let err = compose::validate("a.wgsl", &src, true).unwrap_err();
        assert!(err.starts_with("shaders/c.wgsl:3:"), "{err}");
        let err = compose::compose("c.wgsl", &|_| None).unwrap_err();
        assert!(err.contains("c.wgsl"), "{err}");
        let err = compose::compose("a.wgsl", &|n| {
            (n == "a.wgsl").then_some("//!include b.wgsl")
        })
        .unwrap_err();
        assert!(err.contains("a.wgsl includes b.wgsl"), "{err}");
    }

    #[test]
    fn generated_sections_are_replaced_and_checked() {
        // ssa/ensemble_compiled.wgsl has a `network` section with a default body.
        let shader = ssa::ensemble_compiled::SHADER;
        let default = shader.source();
        let swapped = shader
            .source_generated("network", "// nothing here")
            .unwrap();
        assert!(default.contains("//!generated begin network"));
        assert!(swapped.contains("// nothing here") && swapped.len() < default.len());
        validate_source("swapped", &swapped).unwrap();
        // Bad generated code is refused by naga, with the label named.
        let bad = shader
            .source_generated("network", "fn f() -> u32 { return nowhere; }")
            .unwrap();
        let err = validate_source("bad", &bad).unwrap_err().to_string();
        assert!(err.contains("bad") && err.contains("nowhere"), "{err}");
        assert!(shader.source_generated("nope", "").is_err());
    }
}
