//! Composing and validating registry shaders. Build scripts (through [`crate::Registry`]) and the
//! engine at run time both use this module, so a shader is composed and validated alike in both.

use std::collections::HashSet;

/// `//!include PATH`: paste library file PATH (relative to a `shaders/` folder: the crate's own or
/// one on its search path) in before this file.
pub const INCLUDE: &str = "//!include ";
/// A library file that uses bindings its includers declare: validated only inside them.
pub const FRAGMENT: &str = "//!fragment";
/// Every loop of the file and its includes ends for every input (`shaders` module doc).
pub const BOUNDED_LOOPS: &str = "//!bounded-loops";
pub const GENERATED_BEGIN: &str = "//!generated begin ";
pub const GENERATED_END: &str = "//!generated end ";
/// The line `compose` writes before each file's text, and `origin` reads back.
const MARKER: (&str, &str) = ("// ---- ", " ----");

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l.trim() == line)
}

pub fn is_fragment(text: &str) -> bool {
    has_line(text, FRAGMENT)
}

pub fn has_bounded_loops(text: &str) -> bool {
    has_line(text, BOUNDED_LOOPS)
}

/// The files a file includes, in order.
pub fn includes(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(INCLUDE))
        .map(str::trim)
}

/// File `name` with its includes pasted in, each file once and before the first file that
/// includes it, each file's text after a `// ---- PATH ----` line. `raw` gives a file's text;
/// an unknown file is an error naming it (and the file that includes it).
pub fn compose<'a>(name: &str, raw: &dyn Fn(&str) -> Option<&'a str>) -> Result<String, String> {
    fn visit<'a>(
        name: &str,
        from: Option<&str>,
        raw: &dyn Fn(&str) -> Option<&'a str>,
        seen: &mut HashSet<String>,
        out: &mut String,
    ) -> Result<(), String> {
        if !seen.insert(name.to_string()) {
            return Ok(());
        }
        let text = raw(name).ok_or_else(|| match from {
            Some(f) => format!("{f} includes {name}, which is not a file under shaders/ (the crate's own or its search path)"),
            None => format!("no shader {name} under shaders/ (the crate's own or its search path)"),
        })?;
        for dep in includes(text) {
            visit(dep, Some(name), raw, seen, out)?;
        }
        out.push_str(&format!("{}{name}{}\n", MARKER.0, MARKER.1));
        out.push_str(text);
        out.push('\n');
        Ok(())
    }
    let mut out = String::new();
    visit(name, None, raw, &mut HashSet::new(), &mut out)?;
    Ok(out)
}

/// Composed text `src` with generated section `section` (between `//!generated begin NAME` and
/// `//!generated end NAME` lines) replaced by `code`.
pub fn replace_section(src: &str, section: &str, code: &str) -> Result<String, String> {
    let begin = format!("{GENERATED_BEGIN}{section}\n");
    let end = format!("{GENERATED_END}{section}\n");
    let missing = || format!("no generated section {section:?} (lines {begin:?} ... {end:?})");
    let a = src.find(&begin).ok_or_else(missing)? + begin.len();
    let b = a + src[a..].find(&end).ok_or_else(missing)?;
    Ok(format!("{}{code}\n{}", &src[..a], &src[b..]))
}

/// The file and line (1-based) that line `line` (1-based) of composed text came from.
pub fn origin(composed: &str, line: usize) -> Option<(&str, usize)> {
    let lines: Vec<&str> = composed.lines().take(line).collect();
    if lines.len() < line {
        return None;
    }
    lines.iter().enumerate().rev().find_map(|(i, l)| {
        let file = l.strip_prefix(MARKER.0)?.strip_suffix(MARKER.1)?;
        (i + 1 < line).then_some((file, line - i - 1))
    })
}

/// Parses and validates `src` with naga against the WebGPU baseline (no optional
/// capabilities). The error is naga's report; with `composed`, it starts with the file and
/// line of the registry the error points into (`origin`).
pub fn validate(
    label: &str,
    src: &str,
    composed: bool,
) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let located = |loc: Option<naga::SourceLocation>, report: String| {
        let place = loc
            .filter(|_| composed)
            .and_then(|l| {
                let (file, line) = origin(src, l.line_number as usize)?;
                Some(format!("shaders/{file}:{line}:{}: ", l.line_position))
            })
            .unwrap_or_default();
        format!("{place}{report}")
    };
    let module = naga::front::wgsl::parse_str(src)
        .map_err(|e| located(e.location(src), e.emit_to_string_with_path(src, label)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .map_err(|e| located(e.location(src), e.emit_to_string_with_path(src, label)))?;
    Ok((module, info))
}
