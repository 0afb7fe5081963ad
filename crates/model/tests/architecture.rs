//! The import rules of `crates/model`, checked on its source:
//!
//! (a) a model module (`angiogenesis`, `rdme`, `ssa`, and any top-level module not in `SHARED`)
//!     refers to no other model module, and a shared module refers to no model module: models
//!     share code through the shared modules only;
//! (b) there is no import cycle, neither between the files of one top-level module nor between
//!     top-level modules.
//!
//! A failure names the file, the line and the offending text.
//!
//! The parser is deliberately simple, line by line, and has these limits:
//! - it reads `use` statements (also grouped `use super::{a, b::{c, d}}` over several lines,
//!   `self` in a group, `as` renames) and, elsewhere, paths written from `crate::`, `super::` or
//!   `self::`. A name brought in by `use` and then used bare is covered by its `use` line;
//!   macros expanding to paths, `#[path]` attributes and `include!` are not seen;
//! - `//` comments are dropped up to the end of the line (also inside a string literal, which
//!   can only hide a reference, never invent one); `/* */` comments are not understood;
//! - braces are counted per line to find where `mod name { .. }` and `#[cfg(test)]` items end:
//!   a string with unbalanced braces would confuse it;
//! - `pub use` in a `mod.rs` (or `lib.rs`, or `name.rs` beside its folder `name/`) of names from
//!   inside that module is a re-export: a
//!   reference to the re-exported name counts as a reference to the file that defines it, and
//!   the re-export itself is not an import of the `mod.rs`;
//! - code under `#[cfg(test)]` counts for (a) but not for (b): a unit test may check one method
//!   against another of the same model.
//!
//! A new shared module (one that models may import) goes into `SHARED`; the registry (the list
//! of models a program opens by config) may refer to every model and only the programs over it
//! (`OVER_CATALOGUE`: the sweep) refer to it, never to a model directly;
//! anything else at the top of `crates/model/src` is treated as a model.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules every model may import. They must not import a model.
const SHARED: &[&str] = &[
    "budget",
    "checkpoint",
    "command",
    "error",
    "model",
    "reactions",
    "runtime",
    // The crate's shader registry: each model names only its own folder's shaders there
    // (`a_model_names_only_its_own_shaders`).
    "shaders",
    "team",
];
/// The module above the models: it may refer to any of them; no other module refers to it.
const CATALOGUE: &str = "registry";
/// Programs over the registry (they open models through it, never a model directly); only
/// they refer to the registry, and nothing refers to them.
const OVER_CATALOGUE: &[&str] = &["sweep"];

/// One source file: its path relative to `src/` ("rdme/sim.rs") and its text.
struct Source {
    path: String,
    text: String,
}

/// A reference from one file to a module path (absolute from the crate root).
#[derive(Clone, Debug)]
struct Reference {
    line: usize,
    text: String,
    target: Vec<String>,
    in_test: bool,
    /// A `pub use` of a `mod.rs` or `lib.rs`: a re-export, not an import.
    re_export: Option<String>,
}

/// The module path of a file: "lib.rs" -> [], "rdme/mod.rs" -> ["rdme"], "rdme/sim.rs" ->
/// ["rdme", "sim"].
fn module_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn is_dir_module(path: &str) -> bool {
    path == "lib.rs" || path.ends_with("/mod.rs") || path == "mod.rs"
}

/// `a::{b, c::{d, self}}` -> ["a::b", "a::c::d", "a::c"]; renames (`x as y`) keep `x`.
fn expand_use_tree(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or("").replace(' ', "");
        return if path.is_empty() { vec![] } else { vec![path] };
    };
    let close = tree.rfind('}').unwrap_or(tree.len());
    let prefix = tree[..open].replace(' ', "");
    let inner = &tree[open + 1..close.max(open + 1)];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    let mut out = Vec::new();
    for part in parts {
        for p in expand_use_tree(part) {
            if p == "self" {
                out.push(prefix.trim_end_matches("::").to_string());
            } else {
                out.push(format!("{prefix}{p}"));
            }
        }
    }
    out
}

/// Paths written from `crate::`, `super::` or `self::` in a line of code (not a `use`).
fn inline_paths(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    let mut out = Vec::new();
    for head in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(head).map(|i| i + from) {
            from = i + head.len();
            if i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == b':') {
                continue; // `$crate::`, `Self::`, `a::self::`
            }
            let end = code[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| e + i);
            out.push(code[i..end].trim_end_matches(':').to_string());
        }
    }
    out
}

/// Every reference of one file, with the module path each one names (not yet resolved to a
/// file: `resolve` does that).
fn references(src: &Source, modules: &BTreeSet<Vec<String>>) -> Vec<Reference> {
    let file_module = module_of(&src.path);
    // `mod.rs`, `lib.rs`, or `name.rs` beside a folder `name/` of its submodules.
    let dir_module = is_dir_module(&src.path)
        || modules
            .iter()
            .any(|m| m.len() > file_module.len() && m.starts_with(&file_module));
    let mut out = Vec::new();
    let mut depth: i64 = 0;
    // Inline modules (`mod tests {`) open at a depth: `super` inside them is one level deeper.
    let mut inline: Vec<(String, i64)> = Vec::new();
    // `#[cfg(test)]` seen, item not yet opened / the depth at which the test item ends.
    let mut test_pending = false;
    let mut test_until: Option<i64> = None;
    let mut pending_use: Option<(usize, String)> = None;
    for (n, raw) in src.text.lines().enumerate() {
        let code = raw.split("//").next().unwrap_or("");
        let trimmed = code.trim();
        let line = n + 1;
        let before = depth;
        depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;

        let in_test = test_pending || test_until.is_some();
        if trimmed.starts_with("#[cfg(test)]") {
            test_pending = true;
        } else if test_pending && !trimmed.is_empty() && !trimmed.starts_with("#[") {
            if depth > before {
                test_pending = false;
                test_until = Some(before);
            } else if trimmed.ends_with(';') || trimmed.ends_with('}') {
                test_pending = false;
            }
        } else if test_until.is_some_and(|d| depth <= d) {
            test_until = None;
        }

        let mut current = file_module.clone();
        current.extend(inline.iter().map(|(name, _)| name.clone()));
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        let mod_pos = words.iter().position(|w| *w == "mod");
        if let Some(p) = mod_pos {
            if depth > before && words.get(p + 1).is_some() {
                let name = words[p + 1].trim_end_matches('{').to_string();
                inline.push((name, before));
            }
        }
        inline.retain(|(_, d)| depth > *d);

        // `use` statements, possibly over several lines.
        let statement = match pending_use.take() {
            Some((first, mut text)) => {
                text.push(' ');
                text.push_str(trimmed);
                Some((first, text))
            }
            None => {
                let after_vis = trimmed
                    .strip_prefix("pub(crate) ")
                    .or_else(|| trimmed.strip_prefix("pub(super) "))
                    .or_else(|| trimmed.strip_prefix("pub "))
                    .unwrap_or(trimmed);
                after_vis
                    .starts_with("use ")
                    .then(|| (line, trimmed.to_string()))
            }
        };
        if let Some((first, text)) = statement {
            if !text.contains(';') {
                pending_use = Some((first, text));
                continue;
            }
            let public = text.starts_with("pub");
            let tree = text[text.find("use ").unwrap() + 4..]
                .trim_end()
                .trim_end_matches(';');
            for path in expand_use_tree(tree) {
                let alias = tree_alias(tree, &path);
                let Some(target) = absolute(&path, &current, modules) else {
                    continue;
                };
                let re_export = (public && dir_module && target.starts_with(&file_module))
                    .then(|| alias.unwrap_or_else(|| target.last().cloned().unwrap_or_default()));
                out.push(Reference {
                    line: first,
                    text: text.clone(),
                    target,
                    in_test,
                    re_export,
                });
            }
            continue;
        }
        for path in inline_paths(code) {
            if let Some(target) = absolute(&path, &current, modules) {
                out.push(Reference {
                    line,
                    text: trimmed.to_string(),
                    target,
                    in_test,
                    re_export: None,
                });
            }
        }
    }
    out
}

/// The `as` name a use tree gives `path`, if any (only for a path written whole).
fn tree_alias(tree: &str, path: &str) -> Option<String> {
    let last = path.rsplit("::").next()?;
    let flat: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let key = format!("{last} as ");
    let i = flat.find(&key)?;
    let alias: String = flat[i + key.len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    Some(alias)
}

/// `path` as seen from module `current`, from the crate root; None for another crate's path.
fn absolute(
    path: &str,
    current: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let segments: Vec<&str> = path
        .split("::")
        .filter(|s| !s.is_empty() && *s != "*")
        .collect();
    let first = *segments.first()?;
    let mut base: Vec<String>;
    let mut rest = &segments[..];
    match first {
        "crate" => {
            base = Vec::new();
            rest = &rest[1..];
        }
        "self" => {
            base = current.to_vec();
            rest = &rest[1..];
        }
        "super" => {
            base = current.to_vec();
            while rest.first() == Some(&"super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        // Uniform paths: a child module of the current one (`pub use sim::RdmeSim` in mod.rs).
        name => {
            let mut child = current.to_vec();
            child.push(name.to_string());
            if !modules.contains(&child) {
                return None;
            }
            base = current.to_vec();
        }
    }
    base.extend(rest.iter().map(|s| s.to_string()));
    Some(base)
}

/// The module graph: for each file, the files it refers to, with the first reference.
struct Graph {
    /// Module path -> file path.
    files: BTreeMap<Vec<String>, String>,
    /// (from file, to file) -> (reference, in test code only).
    edges: BTreeMap<(String, String), (Reference, bool)>,
}

fn top_level(path: &str) -> Option<String> {
    module_of(path).first().cloned()
}

fn graph(sources: &[Source]) -> Graph {
    let files: BTreeMap<Vec<String>, String> = sources
        .iter()
        .map(|s| (module_of(&s.path), s.path.clone()))
        .collect();
    let modules: BTreeSet<Vec<String>> = files.keys().cloned().collect();
    let refs: Vec<(String, Vec<Reference>)> = sources
        .iter()
        .map(|s| (s.path.clone(), references(s, &modules)))
        .collect();
    // Re-exports of each directory module: name -> absolute path.
    let mut re_exports: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    for (path, list) in &refs {
        for r in list {
            if let Some(name) = &r.re_export {
                re_exports.insert((module_of(path), name.clone()), r.target.clone());
            }
        }
    }
    let resolve = |target: &[String]| -> Option<String> {
        let mut target = target.to_vec();
        for _ in 0..8 {
            let k = (0..=target.len())
                .rev()
                .find(|&k| files.contains_key(&target[..k]))?;
            let module = target[..k].to_vec();
            match target
                .get(k)
                .and_then(|n| re_exports.get(&(module.clone(), n.clone())))
            {
                Some(to) => {
                    let mut next = to.clone();
                    next.extend_from_slice(&target[k + 1..]);
                    target = next;
                }
                None => return files.get(&module).cloned(),
            }
        }
        None
    };
    let mut edges: BTreeMap<(String, String), (Reference, bool)> = BTreeMap::new();
    for (from, list) in &refs {
        for r in list.iter().filter(|r| r.re_export.is_none()) {
            let Some(to) = resolve(&r.target) else {
                continue;
            };
            if &to == from || to == "lib.rs" {
                continue;
            }
            let key = (from.clone(), to);
            match edges.get_mut(&key) {
                // Keep the first non-test reference as the witness; test-only if all are.
                Some((first, only_test)) => {
                    if *only_test && !r.in_test {
                        *first = r.clone();
                        *only_test = false;
                    }
                }
                None => {
                    edges.insert(key, (r.clone(), r.in_test));
                }
            }
        }
    }
    Graph { files, edges }
}

/// Nodes of the strongly connected components with more than one node (Tarjan).
fn cycles(nodes: &BTreeSet<String>, edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeSet<(String, String)>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on_stack: BTreeSet<String>,
        out: Vec<Vec<String>>,
    }
    fn visit(s: &mut State, v: &str) {
        let i = s.index.len();
        s.index.insert(v.to_string(), i);
        s.low.insert(v.to_string(), i);
        s.stack.push(v.to_string());
        s.on_stack.insert(v.to_string());
        let next: Vec<String> = s
            .edges
            .iter()
            .filter(|(a, _)| a == v)
            .map(|(_, b)| b.clone())
            .collect();
        for w in next {
            if !s.index.contains_key(&w) {
                visit(s, &w);
                let low = s.low[v].min(s.low[&w]);
                s.low.insert(v.to_string(), low);
            } else if s.on_stack.contains(&w) {
                let low = s.low[v].min(s.index[&w]);
                s.low.insert(v.to_string(), low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(&w);
                let done = w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// One cycle through `start` within `component`, as a node list that ends at `start` again.
fn cycle_through(
    start: &str,
    component: &[String],
    edges: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let mut previous: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.to_string()]);
    while let Some(v) = queue.pop_front() {
        for (_, w) in edges
            .iter()
            .filter(|(a, b)| a == &v && component.contains(b))
        {
            if w == start {
                let mut path = vec![start.to_string(), v.clone()];
                let mut at = v.clone();
                while let Some(p) = previous.get(&at) {
                    path.push(p.clone());
                    at = p.clone();
                }
                path.reverse();
                return path;
            }
            if !previous.contains_key(w) && w != start {
                previous.insert(w.clone(), v.clone());
                queue.push_back(w.clone());
            }
        }
    }
    vec![start.to_string()]
}

/// Every broken rule, one message each (empty: the sources follow the rules).
fn check(sources: &[Source]) -> Vec<String> {
    let g = graph(sources);
    let is_model =
        |top: &str| !SHARED.contains(&top) && top != CATALOGUE && !OVER_CATALOGUE.contains(&top);
    let mut errors = Vec::new();
    let witness = |from: &str, r: &Reference| format!("{from}:{}: `{}`", r.line, r.text);

    // (a) models import shared modules only; shared modules import no model.
    for ((from, to), (r, _)) in &g.edges {
        let (Some(a), Some(b)) = (top_level(from), top_level(to)) else {
            continue;
        };
        if a != b && OVER_CATALOGUE.contains(&b.as_str()) {
            errors.push(format!(
                "{}: `{a}` refers to `{b}` ({to}), a program over the registry; nothing may \
                 refer to it",
                witness(from, r)
            ));
            continue;
        }
        if a != b && b == CATALOGUE && !OVER_CATALOGUE.contains(&a.as_str()) {
            errors.push(format!(
                "{}: `{a}` refers to the registry ({to}); the registry lists the models, nothing \
                 below it may refer to it",
                witness(from, r)
            ));
            continue;
        }
        if a != b && a != CATALOGUE && is_model(&b) {
            let kind = if is_model(&a) {
                "model"
            } else {
                "shared module"
            };
            errors.push(format!(
                "{}: {kind} `{a}` refers to model `{b}` ({to}); models share code through {SHARED:?} only",
                witness(from, r)
            ));
        }
    }

    errors.extend(cycle_errors(&g));
    errors
}

/// (b) for any crate: no cycle between the files of one top-level module (test code left out)
/// nor between top-level modules.
fn cycle_errors(g: &Graph) -> Vec<String> {
    let mut errors = Vec::new();
    let witness = |from: &str, r: &Reference| format!("{from}:{}: `{}`", r.line, r.text);
    let nodes: BTreeSet<String> = g.files.values().cloned().collect();
    let file_edges: BTreeSet<(String, String)> = g
        .edges
        .iter()
        .filter(|((a, b), (_, only_test))| !only_test && top_level(a) == top_level(b))
        .map(|(k, _)| k.clone())
        .collect();
    for component in cycles(&nodes, &file_edges) {
        let path = cycle_through(&component[0], &component, &file_edges);
        let mut message = format!("import cycle between files: {}", path.join(" -> "));
        if component.len() + 1 > path.len() {
            message.push_str(&format!(" (and more among {})", component.join(", ")));
        }
        for pair in path.windows(2) {
            let (r, _) = &g.edges[&(pair[0].clone(), pair[1].clone())];
            message.push_str(&format!("\n    {}", witness(&pair[0], r)));
        }
        errors.push(message);
    }

    // ... nor between top-level modules.
    let mut module_edges: BTreeMap<(String, String), (String, Reference)> = BTreeMap::new();
    for ((from, to), (r, _)) in &g.edges {
        if let (Some(a), Some(b)) = (top_level(from), top_level(to)) {
            if a != b {
                module_edges
                    .entry((a, b))
                    .or_insert_with(|| (from.clone(), r.clone()));
            }
        }
    }
    let tops: BTreeSet<String> = nodes.iter().filter_map(|f| top_level(f)).collect();
    let keys: BTreeSet<(String, String)> = module_edges.keys().cloned().collect();
    for component in cycles(&tops, &keys) {
        let path = cycle_through(&component[0], &component, &keys);
        let mut message = format!("import cycle between modules: {}", path.join(" -> "));
        for pair in path.windows(2) {
            let (from, r) = &module_edges[&(pair[0].clone(), pair[1].clone())];
            message.push_str(&format!("\n    {}", witness(from, r)));
        }
        errors.push(message);
    }
    errors
}

fn read_sources(dir: &Path, root: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy();
            out.push(Source {
                path: rel.replace('\\', "/"),
                text: std::fs::read_to_string(&path).unwrap(),
            });
        }
    }
}

/// The sources of the workspace crate in `crates/<name>/src`.
fn crate_sources(name: &str) -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src");
    let mut sources = Vec::new();
    read_sources(&root, &root, &mut sources);
    sources
}

fn model_crate_sources() -> Vec<Source> {
    crate_sources("model")
}

/// The other crates have no models, but no import loop either: between their files, nor
/// between their top-level modules.
#[test]
fn no_crate_imports_in_a_loop() {
    for name in ["engine", "scheduler", "output", "cli"] {
        let sources = crate_sources(name);
        assert!(
            sources.len() > 3,
            "crates/{name}/src: {} files",
            sources.len()
        );
        let errors = cycle_errors(&graph(&sources));
        assert!(
            errors.is_empty(),
            "crates/{name}/src imports in a loop (tests/architecture.rs):\n{}",
            errors.join("\n")
        );
    }
}

#[test]
fn models_import_no_other_model_and_no_module_imports_in_a_loop() {
    let sources = model_crate_sources();
    let errors = check(&sources);
    assert!(
        errors.is_empty(),
        "crates/model/src breaks its import rules (tests/architecture.rs):\n{}",
        errors.join("\n")
    );
}

/// Where a source names shader folder `dir` of the crate's registry (`shaders::DIR::`), that
/// folder must be its own model's: the WGSL of a model lives in `crates/model/shaders/MODEL/`
/// and no other model, nor a shared module, uses it.
fn shader_errors(sources: &[Source], folders: &BTreeSet<String>) -> Vec<String> {
    let mut errors = Vec::new();
    for src in sources {
        let owner = top_level(&src.path);
        for (i, line) in src.text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (at, _) in code.match_indices("shaders::") {
                let rest = &code[at + "shaders::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if folders.contains(&name) && owner.as_deref() != Some(name.as_str()) {
                    errors.push(format!(
                        "{}:{}: `{}` uses the shaders of model `{name}`",
                        src.path,
                        i + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    errors
}

#[test]
fn a_model_names_only_its_own_shaders() {
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let folders: BTreeSet<String> = std::fs::read_dir(&shaders)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for m in ["angiogenesis", "epidermis", "gliding", "rdme", "ssa"] {
        assert!(folders.contains(m), "no shader folder {m} in {folders:?}");
    }
    let errors = shader_errors(&model_crate_sources(), &folders);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The check reports a borrowed folder, and reads the crate's real references.
    let borrowed = sources(&[(
        "gliding/sim.rs",
        "use crate::shaders;\nlet e = shaders::rdme::diffuse::DIFFUSE;\n",
    )]);
    let found = shader_errors(&borrowed, &folders);
    assert!(
        found.len() == 1 && found[0].contains("gliding/sim.rs:2") && found[0].contains("`rdme`"),
        "{found:?}"
    );
    let real = model_crate_sources();
    assert!(real
        .iter()
        .any(|s| s.path == "rdme/slab.rs" && s.text.contains("shaders::rdme::")));
}

#[test]
fn the_checker_sees_the_crates_real_imports() {
    // Guards against a checker that passes because it reads nothing.
    let g = graph(&model_crate_sources());
    let tops: BTreeSet<String> = g.files.values().filter_map(|f| top_level(f)).collect();
    for m in ["angiogenesis", "error", "rdme", "reactions", "ssa"] {
        assert!(tops.contains(m), "module {m} not found in {tops:?}");
    }
    for (from, to) in [
        ("rdme/config.rs", "reactions/mod.rs"),
        ("rdme/config.rs", "reactions/rates.rs"),
        ("ssa/gpu_ensemble.rs", "ssa/gpu_tables.rs"),
        ("rdme/sim.rs", "rdme/slab.rs"),
        ("angiogenesis/run.rs", "error.rs"),
    ] {
        assert!(
            g.edges.contains_key(&(from.into(), to.into())),
            "no edge {from} -> {to}"
        );
    }
    assert!(g.edges.len() > 100, "{} edges", g.edges.len());
    // ... and those of the CLI and the scheduler.
    let cli = graph(&crate_sources("cli"));
    assert!(cli
        .edges
        .contains_key(&("run.rs".into(), "progress.rs".into())));
    let scheduler = graph(&crate_sources("scheduler"));
    assert!(
        scheduler.edges.len() > 20,
        "{} edges",
        scheduler.edges.len()
    );
}

fn sources(files: &[(&str, &str)]) -> Vec<Source> {
    files
        .iter()
        .map(|(path, text)| Source {
            path: path.to_string(),
            text: text.to_string(),
        })
        .collect()
}

#[test]
fn a_cycle_between_files_is_reported_with_its_lines() {
    let errors = check(&sources(&[
        ("lib.rs", "pub mod m;\n"),
        ("m/mod.rs", "pub mod x;\npub mod y;\n"),
        ("m/x.rs", "use super::y::Y;\npub struct X;\n"),
        (
            "m/y.rs",
            "// a comment\nuse super::{x::X, z};\npub struct Y;\n",
        ),
    ]));
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(e.contains("import cycle between files"), "{e}");
    assert!(e.contains("m/x.rs:1: `use super::y::Y;`"), "{e}");
    assert!(e.contains("m/y.rs:2: `use super::{x::X, z};`"), "{e}");
}

#[test]
fn a_model_importing_another_model_is_reported() {
    let errors = check(&sources(&[
        (
            "lib.rs",
            "pub mod error;\npub mod a;\npub mod b;\npub mod reactions;\n",
        ),
        ("error.rs", "pub struct E;\n"),
        (
            "reactions/mod.rs",
            "use crate::error::E;\npub struct Network;\n",
        ),
        ("a/mod.rs", "pub mod run;\n"),
        (
            "a/run.rs",
            "use crate::reactions::Network;\nfn f() {\n    let n = crate::b::sim::step();\n}\n",
        ),
        ("b/mod.rs", "pub mod sim;\n"),
        (
            "b/sim.rs",
            "use crate::{error::E, reactions::Network};\npub fn step() {}\n",
        ),
    ]));
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(
        e.contains("a/run.rs:3: `let n = crate::b::sim::step();`")
            && e.contains("model `a` refers to model `b`"),
        "{e}"
    );
}

#[test]
fn the_registry_may_list_every_model_but_no_model_may_refer_to_it() {
    let errors = check(&sources(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod registry;\n"),
        ("a/mod.rs", "pub struct A;\n"),
        ("b/mod.rs", "use crate::registry::open;\npub struct B;\n"),
        (
            "registry.rs",
            "use crate::a::A;\nuse crate::b::B;\npub fn open() {}\n",
        ),
    ]));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("b/mod.rs:1: `use crate::registry::open;`")
                && e.contains("`b` refers to the registry")),
        "{errors:?}"
    );
    // ... and the edge back makes a cycle between b and the registry.
    assert!(errors.iter().any(|e| e.contains("cycle")), "{errors:?}");
}

#[test]
fn the_sweep_may_use_the_registry_but_nothing_may_use_the_sweep() {
    let errors = check(&sources(&[
        ("lib.rs", "pub mod a;\npub mod registry;\npub mod sweep;\n"),
        ("a/mod.rs", "use crate::sweep::run;\npub struct A;\n"),
        ("registry.rs", "use crate::a::A;\npub fn open() {}\n"),
        ("sweep.rs", "use crate::registry::open;\npub fn run() {}\n"),
    ]));
    assert!(
        errors
            .iter()
            .any(|e| e.contains("a/mod.rs:1: `use crate::sweep::run;`")
                && e.contains("`a` refers to `sweep`")),
        "{errors:?}"
    );
    assert!(
        !errors.iter().any(|e| e.starts_with("sweep.rs:1")),
        "the sweep may use the registry: {errors:?}"
    );
}

#[test]
fn a_shared_module_importing_a_model_is_reported_even_in_tests() {
    let errors = check(&sources(&[
        ("lib.rs", "pub mod a;\npub mod reactions;\n"),
        ("a/mod.rs", "pub use self::sim::Sim;\npub mod sim;\n"),
        (
            "a/sim.rs",
            "use crate::reactions::Network;\npub struct Sim;\n",
        ),
        (
            "reactions/mod.rs",
            "pub struct Network;\n#[cfg(test)]\nmod tests {\n    use crate::a::Sim;\n}\n",
        ),
    ]));
    // The cycle reactions -> a -> reactions is reported too.
    assert!(
        errors
            .iter()
            .any(|e| e.contains("reactions/mod.rs:4: `use crate::a::Sim;`")
                && e.contains("shared module `reactions` refers to model `a` (a/sim.rs)")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("import cycle between modules: a -> reactions -> a")),
        "{errors:?}"
    );
}

#[test]
fn test_code_and_re_exports_make_no_cycle() {
    // y uses x, x's unit tests use y: no cycle (tests are left out of (b)). `super::X` in y
    // names x's struct through the re-export in mod.rs: an edge y -> x, not y -> mod.rs.
    let files = [
        ("lib.rs", "pub mod m;\npub use m::X;\n"),
        ("m/mod.rs", "pub mod x;\npub mod y;\npub use x::X;\n"),
        (
            "m/x.rs",
            "pub struct X;\n\n#[cfg(test)]\nmod tests {\n    use super::super::y::{\n        Y,\n    };\n    use super::*;\n}\n",
        ),
        ("m/y.rs", "use super::X;\npub struct Y;\nfn f(x: crate::X) -> crate::X { x }\n"),
    ];
    assert_eq!(check(&sources(&files)), Vec::<String>::new());
    let g = graph(&sources(&files));
    let edges: Vec<_> = g.edges.keys().cloned().collect();
    assert_eq!(
        edges,
        [
            ("m/x.rs".to_string(), "m/y.rs".to_string()),
            ("m/y.rs".to_string(), "m/x.rs".to_string())
        ]
    );
    assert!(g.edges[&("m/x.rs".into(), "m/y.rs".into())].1, "test only");
    assert!(!g.edges[&("m/y.rs".into(), "m/x.rs".into())].1);
}

#[test]
fn use_trees_expand() {
    assert_eq!(
        expand_use_tree("super::{a, b::{c, self}, d as e}"),
        ["super::a", "super::b::c", "super::b", "super::d"]
    );
    assert_eq!(expand_use_tree("crate::x::Y"), ["crate::x::Y"]);
    assert_eq!(
        inline_paths("let a = crate::m::f(super::g(), $crate::h, Self::k, x::self::y);"),
        ["crate::m::f", "super::g"]
    );
}
