//! Embeds every WGSL file under `shaders/` into the engine: writes a table of
//! (relative path, source) pairs that `shaders.rs` includes.
use std::{env, fs, path::Path};

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

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").unwrap();
    let root = Path::new(&manifest)
        .join("../../shaders")
        .canonicalize()
        .expect("shaders/ exists");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut code = String::from("/// Every WGSL file under `shaders/`: (path relative to `shaders/`, source).\npub static FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        let abs = root.join(f);
        println!("cargo:rerun-if-changed={}", abs.display());
        code.push_str(&format!(
            "    ({f:?}, include_str!({:?})),\n",
            abs.display().to_string()
        ));
    }
    code.push_str("];\n");
    // Subdirectories too, so that adding a file re-runs this script.
    for f in &files {
        if let Some(parent) = root.join(f).parent() {
            println!("cargo:rerun-if-changed={}", parent.display());
        }
    }
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("shader_files.rs"),
        code,
    )
    .unwrap();
}
