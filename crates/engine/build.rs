//! Embeds every WGSL file under `shaders/` into the engine, validates every shader with naga
//! and writes the typed handles of `petri_engine::shaders`:
//!
//! - `shader_files.rs`: every file as (path relative to `shaders/`, source);
//! - `shader_handles.rs`: per standalone file `DIR/NAME.wgsl`, a module `DIR::NAME` holding
//!   `SHADER` (the file) and one `EntryPoint` constant per compute entry point, named as the
//!   entry in upper case (`rdme/diffuse.wgsl`, `fn diffuse` -> `rdme::diffuse::DIFFUSE`);
//!   `ALL` lists every standalone file.
//!
//! An invalid shader, a missing include, a fragment that nothing includes or that declares
//! bounded loops, or a path that is not a Rust identifier fails the build, with naga's report
//! naming the file and line.
use std::collections::{BTreeMap, HashMap};
use std::{env, fs, path::Path, process::exit};

// Shared with the engine (`shaders` module), so both compose and validate alike.
#[allow(dead_code)]
#[path = "src/shaders/compose.rs"]
mod compose;

fn collect(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read shaders dir")
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

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").unwrap();
    let root = Path::new(&manifest)
        .join("../../shaders")
        .canonicalize()
        .expect("shaders/ exists");
    // Cargo scans a directory named here for any change below it (files added too).
    println!("cargo:rerun-if-changed={}", root.display());
    println!("cargo:rerun-if-changed=src/shaders/compose.rs");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let texts: HashMap<String, String> = files
        .iter()
        .map(|f| {
            let text = fs::read_to_string(root.join(f)).expect("read shader");
            (f.clone(), text)
        })
        .collect();
    let raw = |name: &str| texts.get(name).map(String::as_str);

    let mut code = String::from(
        "/// Every WGSL file under `shaders/`: (path relative to `shaders/`, source).\n\
         static FILES: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        let abs = root.join(f);
        code.push_str(&format!(
            "    ({f:?}, include_str!({:?})),\n",
            abs.display().to_string()
        ));
    }
    code.push_str("];\n");

    let mut errors = Vec::new();
    let mut tree = Tree::default();
    let mut all = Vec::new();
    for f in &files {
        let text = &texts[f];
        if compose::is_fragment(text) {
            if compose::has_bounded_loops(text) {
                errors.push(format!(
                    "shaders/{f}: a fragment cannot declare {}: the files that include it do",
                    compose::BOUNDED_LOOPS
                ));
            }
            let included = files.iter().any(|s| {
                !compose::is_fragment(&texts[s]) && compose::includes(&texts[s]).any(|d| d == f)
            });
            if !included {
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
        for part in path.split('/') {
            match module_name(part) {
                Ok(name) => node = node.children.entry(name.to_string()).or_default(),
                Err(e) => errors.push(format!("shaders/{f}: {e}")),
            }
        }
        node.code = format!(
            "//! Handles of `shaders/{f}`.\n\
             /// The file, composed with its includes.\n\
             pub const SHADER: crate::shaders::Shader = crate::shaders::Shader {{ path: {f:?} }};\n"
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
                 pub const {name}: crate::shaders::EntryPoint = SHADER.entry({:?});\n",
                ep.name, ep.name
            ));
        }
        all.push(format!("{}::SHADER", path.replace('/', "::")));
    }
    if !errors.is_empty() {
        eprintln!("invalid shaders:\n\n{}", errors.join("\n\n"));
        exit(1);
    }
    let mut handles = String::new();
    tree.write(0, &mut handles);
    handles.push_str(&format!(
        "/// Every standalone shader (every file but the fragments).\n\
         pub static ALL: &[Shader] = &[{}];\n",
        all.join(", ")
    ));
    let out = Path::new(&env::var("OUT_DIR").unwrap()).to_owned();
    fs::write(out.join("shader_files.rs"), code).unwrap();
    fs::write(out.join("shader_handles.rs"), handles).unwrap();
}
