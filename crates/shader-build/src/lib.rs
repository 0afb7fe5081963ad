//! A crate's shader registry, made by its build script: every WGSL file under a folder of the
//! crate embedded, composed with its includes, validated by naga, and given typed handles.
//!
//! Each crate that owns shaders calls [`Registry`] from its `build.rs` on its own folder:
//!
//! ```ignore
//! // build.rs of a crate that depends on petri-engine (and petri-shader-build to build)
//! fn main() {
//!     petri_shader_build::Registry::new("shaders")
//!         .include_from("petri_engine") // `//!include common/rng.wgsl` finds the engine's files
//!         .build();
//! }
//! ```
//!
//! and includes what it writes in a module of its own:
//!
//! ```ignore
//! pub mod shaders {
//!     include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));
//!     include!(concat!(env!("OUT_DIR"), "/shader_handles.rs"));
//! }
//! ```
//!
//! - `shader_files.rs`: `FILES`, every file the crate's shaders can include, its own and those of
//!   its search path, as (path relative to its `shaders/` folder, source);
//! - `shader_handles.rs`: per standalone file `DIR/NAME.wgsl` of its own, a module `DIR::NAME`
//!   holding `SHADER` (the file) and one `EntryPoint` constant per compute entry point, named as
//!   the entry in upper case (`rdme/diffuse.wgsl`, `fn diffuse` -> `rdme::diffuse::DIFFUSE`);
//!   `ALL` lists the crate's standalone files.
//!
//! Includes cross crates through a search path: a crate exports its folder with
//! [`Registry::export`] (and `links = "NAME"` in its Cargo.toml, cargo's way of passing a build
//! script's facts to its dependents), and a dependent names it with [`Registry::include_from`].
//!
//! An invalid shader, a missing include, a fragment that nothing includes (in a crate that does
//! not export its shaders) or that declares bounded loops, a file on the search path that a file
//! of the crate shadows, or a path that is not a Rust identifier fails the build, with naga's
//! report naming the file and line.

pub mod compose;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::{env, fs, process::exit};

/// A crate's shaders, to validate and write handles for (module doc).
pub struct Registry {
    root: PathBuf,
    search: Vec<PathBuf>,
    name: String,
    engine: String,
    export: bool,
}

impl Registry {
    /// The WGSL files under `dir`, relative to the crate's manifest folder.
    pub fn new(dir: &str) -> Self {
        let manifest = env::var("CARGO_MANIFEST_DIR").expect("run from a build script");
        Registry {
            root: Path::new(&manifest).join(dir),
            search: Vec::new(),
            name: "shader".into(),
            engine: "::petri_engine::shaders".into(),
            export: false,
        }
    }

    /// Resolves includes from the folder that dependency `links` (its Cargo.toml `links` key)
    /// exported with [`Registry::export`].
    pub fn include_from(mut self, links: &str) -> Self {
        let var = format!("DEP_{}_SHADERS", links.to_uppercase().replace('-', "_"));
        match env::var(&var) {
            Ok(dir) => self.search.push(PathBuf::from(dir)),
            Err(_) => {
                eprintln!(
                    "{var} is not set: the crate must depend on the crate whose Cargo.toml says \
                     links = {links:?}, and that crate's build script must call Registry::export"
                );
                exit(1);
            }
        }
        self
    }

    /// Resolves includes from `dir` too (relative to the crate's manifest folder): e.g. a test
    /// registry that includes the crate's own library shaders.
    pub fn include_dir(mut self, dir: &str) -> Self {
        let manifest = env::var("CARGO_MANIFEST_DIR").expect("run from a build script");
        self.search.push(Path::new(&manifest).join(dir));
        self
    }

    /// Names the generated files `OUT_DIR/NAME_files.rs` and `NAME_handles.rs` ("shader" unless
    /// set), so one build script can write several registries (a library's and its tests').
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }

    /// The path of the engine's `shaders` module in the generated code: `::petri_engine::shaders`
    /// unless set (the engine's own build script says `crate::shaders`).
    pub fn engine_path(mut self, path: &str) -> Self {
        self.engine = path.into();
        self
    }

    /// Exports the folder to the crate's dependents (`cargo:shaders=DIR`; module doc). Fragments
    /// of an exported folder may be included only by dependents, which validate them.
    pub fn export(mut self) -> Self {
        self.export = true;
        self
    }

    /// Validates every shader and writes the registry; on any error prints them all and exits 1.
    pub fn build(self) {
        let root = match self.root.canonicalize() {
            Ok(r) => r,
            Err(e) => {
                eprintln!("shader folder {}: {e}", self.root.display());
                exit(1);
            }
        };
        // Cargo scans a directory named here for any change below it (files added too).
        println!("cargo:rerun-if-changed={}", root.display());
        for dir in &self.search {
            println!("cargo:rerun-if-changed={}", dir.display());
        }
        if self.export {
            println!("cargo:shaders={}", root.display());
        }
        let out = PathBuf::from(env::var("OUT_DIR").expect("run from a build script"));
        match self.generate(&root) {
            Ok((files, handles)) => {
                fs::write(out.join(format!("{}_files.rs", self.name)), files).unwrap();
                fs::write(out.join(format!("{}_handles.rs", self.name)), handles).unwrap();
            }
            Err(errors) => {
                eprintln!("invalid shaders:\n\n{}", errors.join("\n\n"));
                exit(1);
            }
        }
    }

    fn generate(&self, root: &Path) -> Result<(String, String), Vec<String>> {
        let mut errors = Vec::new();
        let own = wgsl_files(root);
        // Every file the crate's shaders may include: its own, then the search path's.
        let mut texts: HashMap<String, String> = HashMap::new();
        let mut abs: BTreeMap<String, PathBuf> = BTreeMap::new();
        for f in &own {
            abs.insert(f.clone(), root.join(f));
        }
        for dir in &self.search {
            for f in wgsl_files(dir) {
                if own.contains(&f) {
                    errors.push(format!(
                        "shaders/{f}: shadows {f} of the search path ({})",
                        dir.display()
                    ));
                }
                abs.entry(f.clone()).or_insert_with(|| dir.join(&f));
            }
        }
        for (f, path) in &abs {
            let text = fs::read_to_string(path).expect("read shader");
            texts.insert(f.clone(), text);
        }
        let raw = |name: &str| texts.get(name).map(String::as_str);

        let mut files = String::from(
            "/// Every WGSL file this crate's shaders can see: (path relative to its `shaders/`\n\
             /// folder, source), the crate's own and its search path's.\n\
             static FILES: &[(&str, &str)] = &[\n",
        );
        for (f, path) in &abs {
            files.push_str(&format!(
                "    ({f:?}, include_str!({:?})),\n",
                path.display().to_string()
            ));
        }
        files.push_str("];\n");

        let mut tree = Tree::default();
        let mut all = Vec::new();
        for f in &own {
            let text = &texts[f];
            if compose::is_fragment(text) {
                if compose::has_bounded_loops(text) {
                    errors.push(format!(
                        "shaders/{f}: a fragment cannot declare {}: the files that include it do",
                        compose::BOUNDED_LOOPS
                    ));
                }
                let included = own.iter().any(|s| {
                    !compose::is_fragment(&texts[s]) && compose::includes(&texts[s]).any(|d| d == f)
                });
                if !included && !self.export {
                    errors.push(format!(
                        "shaders/{f}: fragment included by no shader, so nothing validates it"
                    ));
                }
                continue;
            }
            let src = match compose::compose(f, &raw) {
                Ok(src) => src,
                Err(e) => {
                    errors.push(format!("shaders/{f}: {e}"));
                    continue;
                }
            };
            let module = match compose::validate(&format!("shaders/{f} (composed)"), &src, true) {
                Ok((module, _)) => module,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let path = f.trim_end_matches(".wgsl");
            let mut node = &mut tree;
            let mut depth = 0;
            for part in path.split('/') {
                match module_name(part) {
                    Ok(name) => node = node.children.entry(name.to_string()).or_default(),
                    Err(e) => errors.push(format!("shaders/{f}: {e}")),
                }
                depth += 1;
            }
            // The handles sit `depth` modules below the one that includes both files.
            let files_path = format!("{}FILES", "super::".repeat(depth));
            let engine = &self.engine;
            let owner = env::var("CARGO_PKG_NAME").expect("run from a build script");
            node.code = format!(
                "//! Handles of `shaders/{f}`.\n\
                 /// The file, composed with its includes.\n\
                 pub const SHADER: {engine}::Shader = {engine}::Shader::registered({owner:?}, {f:?}, {files_path});\n"
            );
            for ep in &module.entry_points {
                if ep.stage != naga::ShaderStage::Compute {
                    continue;
                }
                let name = ep.name.to_uppercase();
                if name == "SHADER" {
                    errors.push(format!(
                        "shaders/{f}: an entry point cannot be named `shader`"
                    ));
                }
                node.code.push_str(&format!(
                    "/// Compute entry point `{}`.\n\
                     pub const {name}: {engine}::EntryPoint = SHADER.entry({:?});\n",
                    ep.name, ep.name
                ));
            }
            all.push(format!("{}::SHADER", path.replace('/', "::")));
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut handles = String::new();
        tree.write(0, &mut handles);
        handles.push_str(&format!(
            "/// Every standalone shader of this crate (every file of its own but the fragments).\n\
             pub static ALL: &[{}::Shader] = &[{}];\n",
            self.engine,
            all.join(", ")
        ));
        Ok((files, handles))
    }
}

/// Every `.wgsl` file under `root`, as paths relative to it with `/` separators, sorted.
fn wgsl_files(root: &Path) -> Vec<String> {
    fn collect(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("read shader folder {}: {e}", dir.display()))
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            if p.is_dir() {
                collect(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "wgsl") {
                out.push(
                    p.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    let mut out = Vec::new();
    collect(root, root, &mut out);
    out
}

/// A module name for a path component: lower-case Rust identifier, not a keyword.
fn module_name(part: &str) -> Result<&str, String> {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
        "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final",
        "gen", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
    ];
    let ident = part.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && part
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ident || KEYWORDS.contains(&part) {
        return Err(format!(
            "{part:?} cannot name a Rust module: use lower case letters, digits and _ (not a keyword)"
        ));
    }
    Ok(part)
}

/// A tree of modules: sub-modules by name, and the code of the leaf (a shader's handles).
#[derive(Default)]
struct Tree {
    children: BTreeMap<String, Tree>,
    code: String,
}

impl Tree {
    fn write(&self, depth: usize, out: &mut String) {
        let pad = "    ".repeat(depth);
        for line in self.code.lines() {
            out.push_str(&format!("{pad}{line}\n"));
        }
        for (name, child) in &self.children {
            out.push_str(&format!("{pad}pub mod {name} {{\n"));
            child.write(depth + 1, out);
            out.push_str(&format!("{pad}}}\n"));
        }
    }
}
