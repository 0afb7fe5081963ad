//! Geometry builders: the config's shapes (`shape::Shape`) painted over the lattice in order,
//! each setting the site type of the sites whose centres fall inside it (or, for a shell, within
//! its thickness of the surface).

use super::config::RdmeConfig;
use super::shape::Shape;

/// The site type of every site (x fastest), from a validated config.
pub fn site_types(cfg: &RdmeConfig) -> Vec<u8> {
    let [nx, ny, nz] = cfg.lattice.shape.map(|n| n as usize);
    let h = cfg.lattice.spacing_m;
    let mut types = vec![0u8; nx * ny * nz];
    for shape in &cfg.geometry {
        let (inner, shell) = match shape {
            Shape::Box { site_type, .. } => (site_type, None),
            Shape::Sphere {
                site_type, shell, ..
            }
            | Shape::Capsule {
                site_type, shell, ..
            } => (site_type, shell.as_ref()),
        };
        let inner = cfg.type_id("", inner).expect("validated") as u8;
        let shell = shell.map(|s| {
            (
                s.thickness_m,
                cfg.type_id("", &s.site_type).expect("validated") as u8,
            )
        });
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let p = [
                        (x as f64 + 0.5) * h,
                        (y as f64 + 0.5) * h,
                        (z as f64 + 0.5) * h,
                    ];
                    let d = shape.distance(p);
                    if d < 0.0 {
                        let i = x + nx * (y + ny * z);
                        types[i] = match shell {
                            Some((t, s)) if d >= -t => s,
                            _ => inner,
                        };
                    }
                }
            }
        }
    }
    types
}
