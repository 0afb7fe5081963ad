//! Host structs that mirror WGSL structs, checked against the layout naga reflects: the same
//! size, and every WGSL member at the same offset as the host field of the same name.
//!
//! ```ignore
//! let host = petri_engine::host_layout!(StepInfo: step, seed_lo, seed_hi, parity);
//! layout::check(shaders::common::step::SHADER, "StepInfo", &host)?;
//! ```
//!
//! A field whose name differs from its WGSL member maps explicitly: `rust_name as wgsl_name`.
//! Padding (host fields not listed, WGSL members named `_...`) needs no counterpart: the sizes
//! and the other offsets already pin it down.

use crate::shaders::Shader;

/// A WGSL struct's layout (WGSL's rules for its address space do not differ for the structs
/// Petri uses: naga reflects the one layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructLayout {
    pub name: String,
    pub size: u32,
    pub align: u32,
    pub members: Vec<Member>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub offset: u32,
    pub size: u32,
}

/// The layout of struct `name` in `module` (None: no such struct).
pub fn struct_layout(module: &naga::Module, name: &str) -> Option<StructLayout> {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).ok()?;
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))?;
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        return None;
    };
    Some(StructLayout {
        name: name.to_string(),
        size: *span,
        align: layouter[handle].alignment * 1,
        members: members
            .iter()
            .map(|m| Member {
                name: m.name.clone().unwrap_or_default(),
                offset: m.offset,
                size: layouter[m.ty].size,
            })
            .collect(),
    })
}

/// A host struct's size and field offsets, as `host_layout!` writes them.
#[derive(Clone, Debug)]
pub struct HostLayout {
    pub name: &'static str,
    pub size: usize,
    pub fields: Vec<HostField>,
}

#[derive(Clone, Debug)]
pub struct HostField {
    pub rust: &'static str,
    /// The WGSL member it mirrors.
    pub wgsl: &'static str,
    pub offset: usize,
}

/// The layout of host struct `Type` for `check`: `host_layout!(Type: a, b, c as wgsl_c)` lists
/// the fields that mirror WGSL members (by name, or `rust as wgsl` where they differ).
#[macro_export]
macro_rules! host_layout {
    ($ty:ty: $($field:ident $(as $wgsl:ident)?),* $(,)?) => {
        $crate::layout::HostLayout {
            name: stringify!($ty),
            size: ::std::mem::size_of::<$ty>(),
            fields: vec![$($crate::layout::HostField {
                rust: stringify!($field),
                wgsl: $crate::host_layout!(@wgsl $field $(as $wgsl)?),
                offset: ::std::mem::offset_of!($ty, $field),
            }),*],
        }
    };
    (@wgsl $field:ident) => { stringify!($field) };
    (@wgsl $field:ident as $wgsl:ident) => { stringify!($wgsl) };
}

/// Compares a host layout with a WGSL one: equal sizes, every WGSL member but padding mirrored
/// by one host field at the same offset, every listed host field a WGSL member. The error lists every
/// mismatch, naming struct, field and both offsets.
pub fn compare(host: &HostLayout, wgsl: &StructLayout) -> Result<(), String> {
    let mut errors = Vec::new();
    let what = format!("{} (WGSL {})", host.name, wgsl.name);
    if host.size != wgsl.size as usize {
        errors.push(format!(
            "{what}: host size {} bytes, WGSL size {} bytes",
            host.size, wgsl.size
        ));
    }
    for m in &wgsl.members {
        let mirrors: Vec<_> = host.fields.iter().filter(|f| f.wgsl == m.name).collect();
        match mirrors.as_slice() {
            [] if m.name.starts_with('_') => {}
            [] => errors.push(format!(
                "{what}: WGSL member {} (offset {}) has no host field",
                m.name, m.offset
            )),
            [f] if f.offset != m.offset as usize => errors.push(format!(
                "{what}: field {} at host offset {}, WGSL member {} at offset {}",
                f.rust, f.offset, m.name, m.offset
            )),
            [_] => {}
            _ => errors.push(format!("{what}: WGSL member {} listed twice", m.name)),
        }
    }
    for f in &host.fields {
        if !wgsl.members.iter().any(|m| m.name == f.wgsl) {
            errors.push(format!(
                "{what}: host field {} (offset {}) names no WGSL member {}",
                f.rust, f.offset, f.wgsl
            ));
        }
    }
    match errors.is_empty() {
        true => Ok(()),
        false => Err(errors.join("\n")),
    }
}

/// Every error of `checks`, one a line (for a test that lists its structs' checks).
pub fn all(checks: impl IntoIterator<Item = Result<(), String>>) -> Result<(), String> {
    let errors: Vec<String> = checks.into_iter().filter_map(Result::err).collect();
    match errors.is_empty() {
        true => Ok(()),
        false => Err(errors.join("\n")),
    }
}

/// Checks `host` against struct `wgsl_struct` of `shader` (`compare`).
pub fn check(shader: Shader, wgsl_struct: &str, host: &HostLayout) -> Result<(), String> {
    let (module, _) = shader.validate().map_err(|e| e.to_string())?;
    let layout = struct_layout(&module, wgsl_struct)
        .ok_or_else(|| format!("{} has no struct {wgsl_struct}", shader.path()))?;
    compare(host, &layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shaders;

    fn module(src: &str) -> naga::Module {
        shaders::validate_source("test", src).unwrap().0
    }

    #[test]
    fn reflects_size_alignment_and_offsets() {
        let m = module("struct S { a: u32, b: vec3<f32>, c: f32, d: vec2<u32> }");
        let s = struct_layout(&m, "S").unwrap();
        let offsets: Vec<_> = s
            .members
            .iter()
            .map(|m| (m.name.as_str(), m.offset))
            .collect();
        assert_eq!(offsets, [("a", 0), ("b", 16), ("c", 28), ("d", 32)]);
        assert_eq!((s.size, s.align), (48, 16));
        assert_eq!(s.members[1].size, 12);
        assert!(struct_layout(&m, "T").is_none());
    }

    #[repr(C)]
    struct Good {
        a: u32,
        _pad: [u32; 3],
        b: [f32; 3],
        c_host: f32,
        d: [u32; 2],
        _pad2: [u32; 2],
    }

    #[repr(C)]
    struct Bad {
        a: u32,
        b: [f32; 3],
        c: f32,
        d: [u32; 2],
    }

    #[test]
    fn matching_layout_passes_and_a_wrong_one_is_named() {
        let m = module("struct S { a: u32, b: vec3<f32>, c: f32, d: vec2<u32> }");
        let s = struct_layout(&m, "S").unwrap();
        compare(&crate::host_layout!(Good: a, b, c_host as c, d), &s).unwrap();
        // Forgotten padding: b, c and d sit early, and the struct is short.
        let bad = compare(&crate::host_layout!(Bad: a, b, c, d), &s).unwrap_err();
        // A WGSL member left out, and a host field naming no member.
        let unnamed = compare(&crate::host_layout!(Good: a, b, c_host, d), &s).unwrap_err();
        for (err, expected) in [
            (&bad, "Bad (WGSL S): host size 28 bytes, WGSL size 48"),
            (&bad, "field b at host offset 4, WGSL member b at offset 16"),
            (
                &bad,
                "field d at host offset 20, WGSL member d at offset 32",
            ),
            (&unnamed, "WGSL member c (offset 28) has no host field"),
            (
                &unnamed,
                "host field c_host (offset 28) names no WGSL member",
            ),
        ] {
            assert!(err.contains(expected), "{err}");
        }
    }

    #[test]
    fn check_reflects_a_registry_shader() {
        #[repr(C)]
        struct Ticks {
            lo: u32,
        }
        let err = check(
            shaders::common::step::SHADER,
            "Nope",
            &crate::host_layout!(Ticks: lo),
        )
        .unwrap_err();
        assert!(err.contains("common/step.wgsl has no struct Nope"), "{err}");
    }
}
