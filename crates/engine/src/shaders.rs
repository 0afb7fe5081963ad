//! The engine's shader registry, and the handles every crate's registry is made of.
//!
//! Each crate owns its shaders: its build script runs `petri_shader_build::Registry` on its own
//! `shaders/` folder, which embeds, validates and gives typed handles to every WGSL file there
//! (that crate's doc says how). The engine's own are the library files every model includes
//! (`common/`); the scheduler's are its primitives; the model crate's are the models'.
//!
//! Handles: a standalone file `DIR/NAME.wgsl` is the module `shaders::DIR::NAME` of its crate,
//! with `SHADER` (the file) and one [`EntryPoint`] constant per compute entry point, named as the
//! entry in upper case: `fn diffuse` of the model crate's `rdme/diffuse.wgsl` is
//! `petri_model::shaders::rdme::diffuse::DIFFUSE`. A misspelt shader or entry point is a compile
//! error; an invalid shader fails the build with naga's report naming the file and line. Each
//! crate's `shaders::ALL` lists its standalone files.
//!
//! WGSL has no imports, so a file may name library files it needs with lines of the form
//! `//!include common/rng.wgsl`; the composed source pastes each included file once, before the
//! file's own text (`petri_shader_build::compose`, which the build uses too). A crate's includes
//! resolve in its own folder and then in the folders of its search path (the engine's `common/`
//! for every model). Every file except fragments is validated with naga against the WebGPU
//! baseline (no optional capabilities): library files marked `//!fragment` use globals
//! (bindings) that each includer declares with its own group, binding and access, so they are
//! validated inside every shader that includes them.
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

use petri_shader_build::compose;

mod portability;
pub use portability::translation_failures;

include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));
include!(concat!(env!("OUT_DIR"), "/shader_handles.rs"));

/// Every file a registry's shaders can see: (path relative to its `shaders/` folder, source).
pub type Files = &'static [(&'static str, &'static str)];

/// A standalone registry file (validated at build time). Handles are the constants
/// `shaders::DIR::NAME::SHADER` of the crate that owns the file.
#[derive(Clone, Copy)]
pub struct Shader {
    /// The package whose registry holds the file.
    owner: &'static str,
    path: &'static str,
    files: Files,
}

/// Two handles are the same shader when they name the same file of the same package's registry.
impl PartialEq for Shader {
    fn eq(&self, other: &Self) -> bool {
        (self.owner, self.path) == (other.owner, other.path)
    }
}

impl Eq for Shader {}

impl std::hash::Hash for Shader {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.owner, self.path).hash(state);
    }
}

impl std::fmt::Debug for Shader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shader")
            .field("owner", &self.owner)
            .field("path", &self.path)
            .finish()
    }
}

/// A compute entry point of a registry shader: `shaders::DIR::NAME::ENTRY` (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EntryPoint {
    shader: Shader,
    name: &'static str,
}

impl Shader {
    /// The handle of file `path` of package `owner`'s registry, whose files are `files`: for
    /// the code a registry's build writes (`petri_shader_build`), which validated the file.
    #[doc(hidden)]
    pub const fn registered(owner: &'static str, path: &'static str, files: Files) -> Shader {
        Shader { owner, path, files }
    }

    /// The package whose registry holds the file, e.g. `petri-model`.
    pub fn owner(self) -> &'static str {
        self.owner
    }

    /// The handle of compute entry point `name`: for the code a registry's build writes.
    #[doc(hidden)]
    pub const fn entry(self, name: &'static str) -> EntryPoint {
        EntryPoint { shader: self, name }
    }

    fn file(self, path: &str) -> Option<&'static str> {
        self.files.iter().find(|(n, _)| *n == path).map(|(_, s)| *s)
    }

    /// Path relative to `shaders/`, e.g. `rdme/diffuse.wgsl`.
    pub fn path(self) -> &'static str {
        self.path
    }

    /// The file's own text, without includes resolved.
    pub fn raw(self) -> &'static str {
        self.file(self.path).expect("handles name embedded files")
    }

    /// The shader with its includes pasted in, ready for naga or wgpu.
    pub fn source(self) -> String {
        compose::compose(self.path, &|p| self.file(p)).expect("the build composed every shader")
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
        assert_eq!(
            common::reduce::REDUCE_MAX.to_string(),
            "common/reduce.wgsl:reduce_max"
        );
        assert_eq!(
            common::reduce::REDUCE_MAX.shader().path(),
            "common/reduce.wgsl"
        );
        assert!(ALL.contains(&common::rng::SHADER));
        assert!(
            ALL.iter().all(|s| s.path().starts_with("common/")),
            "the engine's own"
        );
        let ep = common::reduce::REDUCE_SUM;
        assert!(ep.source().contains(&format!("fn {}(", ep.name())), "{ep}");
        // A handle of another registry with the same path is another shader.
        static OTHER: Files = &[("common/rng.wgsl", "")];
        assert_ne!(
            Shader::registered("other", "common/rng.wgsl", OTHER),
            common::rng::SHADER
        );
        assert_eq!(common::rng::SHADER.owner(), "petri-engine");
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
}
