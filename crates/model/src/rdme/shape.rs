//! The shapes of the config's `geometry`, which `geometry::site_types` paints over the lattice
//! in order, each setting the site type of the sites whose centres fall inside it. A sphere or
//! capsule can also carry a shell: sites inside the shape within `shell_m` of its surface get
//! `shell_type` (a membrane).

// `!(a < b)` also refuses NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::error::{invalid, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum Shape {
    /// An axis-aligned box [min_m, max_m).
    Box {
        min_m: [f64; 3],
        max_m: [f64; 3],
        site_type: String,
    },
    Sphere {
        center_m: [f64; 3],
        radius_m: f64,
        site_type: String,
        #[serde(default)]
        shell: Option<Shell>,
    },
    /// A cylinder with hemispherical caps along z: `length_m` from tip to tip.
    Capsule {
        center_m: [f64; 3],
        length_m: f64,
        radius_m: f64,
        site_type: String,
        #[serde(default)]
        shell: Option<Shell>,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shell {
    pub thickness_m: f64,
    pub site_type: String,
}

impl Shape {
    /// Checks the sizes; `type_id(field, name)` resolves a site type name (the config's
    /// `RdmeConfig::type_id`, which names the allowed types when it refuses one).
    pub fn validate(&self, field: &str, type_id: impl Fn(&str, &str) -> Result<u32>) -> Result<()> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(invalid(&format!("{field}.{name}"), v, "> 0 (metres)"))
            }
        };
        match self {
            Shape::Box {
                min_m,
                max_m,
                site_type,
            } => {
                type_id(&format!("{field}.site_type"), site_type)?;
                for a in 0..3 {
                    if !(min_m[a] < max_m[a]) {
                        return Err(invalid(
                            &format!("{field}.max_m[{a}]"),
                            max_m[a],
                            format!("> min_m[{a}] = {}", min_m[a]),
                        ));
                    }
                }
            }
            Shape::Sphere {
                radius_m,
                site_type,
                shell,
                ..
            } => {
                positive("radius_m", *radius_m)?;
                type_id(&format!("{field}.site_type"), site_type)?;
                if let Some(s) = shell {
                    positive("shell.thickness_m", s.thickness_m)?;
                    type_id(&format!("{field}.shell.site_type"), &s.site_type)?;
                }
            }
            Shape::Capsule {
                length_m,
                radius_m,
                site_type,
                shell,
                ..
            } => {
                positive("radius_m", *radius_m)?;
                if !(*length_m >= 2.0 * radius_m) {
                    return Err(invalid(
                        &format!("{field}.length_m"),
                        length_m,
                        format!(">= 2 radius_m = {}", 2.0 * radius_m),
                    ));
                }
                type_id(&format!("{field}.site_type"), site_type)?;
                if let Some(s) = shell {
                    positive("shell.thickness_m", s.thickness_m)?;
                    type_id(&format!("{field}.shell.site_type"), &s.site_type)?;
                }
            }
        }
        Ok(())
    }

    /// Signed distance from `p` to the surface (negative inside).
    pub(super) fn distance(&self, p: [f64; 3]) -> f64 {
        match self {
            Shape::Box { min_m, max_m, .. } => {
                let mut d = f64::NEG_INFINITY;
                for a in 0..3 {
                    d = d.max(min_m[a] - p[a]).max(p[a] - max_m[a]);
                }
                d
            }
            Shape::Sphere {
                center_m, radius_m, ..
            } => dist(p, *center_m) - radius_m,
            Shape::Capsule {
                center_m,
                length_m,
                radius_m,
                ..
            } => {
                let half = length_m / 2.0 - radius_m;
                let z = (p[2] - center_m[2]).clamp(-half, half);
                dist(p, [center_m[0], center_m[1], center_m[2] + z]) - radius_m
            }
        }
    }
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}
