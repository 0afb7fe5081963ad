//! The gliding assay's outputs (`petri_model::gliding::output`) on constructed fields with known
//! answers, CPU only: the observables (filament integral, polar, nematic and local polar order,
//! Psi-weighted speed, motor totals, the fluid's kinetic energy against Poiseuille's exact
//! integral, the fastest flow at z0), the column of the first non-finite value, the VTK files
//! (headers, extents, byte counts, values read back) and the PNG frame (size, colours where the
//! fields say).

use petri_model::gliding::output::{
    check_fields, frame_figures, write_fields, write_frame, Observables,
};
use petri_model::gliding::{GlidingFields, GlidingGrid, ZGrid};
use petri_output::RgbImage;
use std::f64::consts::{PI, TAU};
use std::path::PathBuf;

/// A grid of nx x ny cells, ntheta angles, periods lx x ly and the channel's levels `z`.
fn grid(nx: usize, ny: usize, ntheta: usize, lx: f64, ly: f64, z: Vec<f64>) -> GlidingGrid {
    GlidingGrid {
        nx,
        ny,
        ntheta,
        lx,
        ly,
        z,
        z0_level: 1,
    }
}

/// Fields of zeros (Psi included) of the grid's lengths, at step 100, t = 1.25, dt 0.0125.
fn zeros(g: &GlidingGrid) -> GlidingFields {
    let (cells, n) = (g.cells(), g.ntheta * g.cells());
    GlidingFields {
        step: 100,
        time: 1.25,
        dt: 0.0125,
        psi: vec![0.0; n],
        velocity: vec![0.0; 3 * n],
        fluid: vec![0.0; 3 * g.nz() * cells],
        motors: vec![[0.0; 4]; cells],
        motor_force: vec![[0.0; 2]; cells],
    }
}

/// Psi(x, y, theta) sampled at the cells (i dx, j dy, k dtheta).
fn sample(g: &GlidingGrid, f: impl Fn(f64, f64, f64) -> f64) -> Vec<f32> {
    let (dx, dy, dt) = (g.dx(), g.dy(), g.dtheta());
    let mut psi = Vec::with_capacity(g.ntheta * g.cells());
    for k in 0..g.ntheta {
        for j in 0..g.ny {
            for i in 0..g.nx {
                psi.push(f(i as f64 * dx, j as f64 * dy, k as f64 * dt) as f32);
            }
        }
    }
    psi
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("petri-gliding-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn uniform_isotropic_psi_has_no_order_and_integrates_to_c0_area_2pi() {
    let g = grid(8, 4, 12, 2.0, 1.5, ZGrid::Uniform(5).nodes());
    let mut f = zeros(&g);
    let c0 = 0.75;
    f.psi = vec![c0 as f32; f.psi.len()];
    let o = Observables::of(&g, &f, 0.3);
    assert!(
        close(o.filaments, c0 * 2.0 * 1.5 * TAU, 1e-12),
        "{}",
        o.filaments
    );
    assert!(o.polar_order < 1e-12, "{}", o.polar_order);
    assert!(o.nematic_order < 1e-12, "{}", o.nematic_order);
    assert!(o.local_polar_order < 1e-12, "{}", o.local_polar_order);
    assert_eq!(
        (o.step, o.time, o.max_courant, o.dt),
        (100, 1.25, 0.3, 0.0125)
    );
    assert_eq!(o.non_finite(), None);
}

#[test]
fn filaments_all_at_theta_zero_are_fully_polar_and_nematic() {
    let g = grid(4, 4, 8, 1.0, 1.0, ZGrid::Uniform(4).nodes());
    let mut f = zeros(&g);
    f.psi = sample(&g, |x, y, th| match th == 0.0 {
        true => 1.0 + x + 2.0 * y,
        false => 0.0,
    });
    let o = Observables::of(&g, &f, 0.0);
    for (name, v) in [
        ("polar", o.polar_order),
        ("nematic", o.nematic_order),
        ("local polar", o.local_polar_order),
    ] {
        assert!(close(v, 1.0, 1e-12), "{name} {v}");
    }
    // Half pointing at theta = 0 and half at pi: no polar order, full nematic order.
    f.psi = sample(&g, |_, _, th| (th == 0.0 || th == PI) as u8 as f64);
    let o = Observables::of(&g, &f, 0.0);
    assert!(o.polar_order < 1e-12, "{}", o.polar_order);
    assert!(close(o.nematic_order, 1.0, 1e-12), "{}", o.nematic_order);
}

#[test]
fn a_vortex_has_no_global_but_full_local_polar_order() {
    // Every cell's filaments point along the circle about the domain's centre (between cells,
    // so each cell has a mirror cell whose filaments point the opposite way).
    let g = grid(16, 16, 16, 1.0, 1.0, ZGrid::Uniform(4).nodes());
    let centre = 7.5 / 16.0;
    let dt = g.dtheta();
    let mut f = zeros(&g);
    f.psi = sample(&g, |x, y, th| {
        let tangent = (y - centre).atan2(x - centre) + PI / 2.0;
        let k = (tangent / dt).round().rem_euclid(16.0);
        ((th / dt).round() == k) as u8 as f64
    });
    let o = Observables::of(&g, &f, 0.0);
    assert!(
        o.polar_order < 1e-12,
        "global polar order {}",
        o.polar_order
    );
    assert!(
        close(o.local_polar_order, 1.0, 1e-12),
        "local polar order {}",
        o.local_polar_order
    );
}

#[test]
fn mean_speed_is_weighted_by_psi() {
    let g = grid(4, 2, 6, 1.0, 1.0, ZGrid::Uniform(4).nodes());
    let n = g.ntheta * g.cells();
    let mut f = zeros(&g);
    f.psi = sample(&g, |x, y, th| 0.5 + x + y * th);
    // A uniform (0.3, -0.4): speed 0.5 whatever the weights.
    f.velocity[..n].fill(0.3);
    f.velocity[n..2 * n].fill(-0.4);
    f.velocity[2 * n..].fill(7.0); // Omega is no speed.
    let o = Observables::of(&g, &f, 0.0);
    assert!(close(o.mean_speed, 0.5, 1e-7), "{}", o.mean_speed);
    // Speed 1 where there are filaments and 3 where there are none: the mean is 1.
    f.psi = sample(&g, |x, _, _| (x < 0.5) as u8 as f64 * (1.0 + x));
    for (i, psi) in f.psi.clone().iter().enumerate() {
        f.velocity[i] = if *psi > 0.0 { 1.0 } else { 3.0 };
        f.velocity[n + i] = 0.0;
    }
    let o = Observables::of(&g, &f, 0.0);
    assert_eq!(o.mean_speed, 1.0);
}

#[test]
fn motor_totals_are_sums_over_anchors_times_the_cell_area() {
    let g = grid(4, 2, 3, 2.0, 0.5, ZGrid::Uniform(4).nodes());
    let mut f = zeros(&g);
    for (k, a) in f.motors.iter_mut().enumerate() {
        let bound = 0.25 * k as f32;
        *a = [4.0, bound, 4.0 - bound, 9.0];
    }
    let o = Observables::of(&g, &f, 0.0);
    let area = g.dx() * g.dy();
    // 8 anchors: bound 0.25 (0 + 1 + ... + 7) = 7, total 32.
    assert!(close(o.bound_motors, 7.0 * area, 1e-12));
    assert!(close(o.free_motors, 25.0 * area, 1e-12));
    assert!(close(o.total_motors, 32.0 * area, 1e-12));
}

/// The Poiseuille profile z (1 - z) / 2 in one velocity component everywhere.
fn poiseuille(g: &GlidingGrid, component: usize) -> GlidingFields {
    let mut f = zeros(g);
    let (cells, nz) = (g.cells(), g.nz());
    for (j, &z) in g.z.iter().enumerate() {
        let at = (component * nz + j) * cells;
        f.fluid[at..at + cells].fill((z * (1.0 - z) / 2.0) as f32);
    }
    f
}

#[test]
fn kinetic_energy_of_poiseuille_flow_within_the_trapezoid_error() {
    // 1/2 Lx Ly integral of (z (1 - z) / 2)^2 dz = Lx Ly / 240. The trapezoid rule errs by at
    // most h_max^2 / 12 max |f''| = h_max^2 / 24 per unit of z (f = u^2, |f''| <= 1/2).
    let (lx, ly) = (2.0, 0.5);
    let exact = lx * ly / 240.0;
    let mut errors = Vec::new();
    for nz in [9, 17, 33] {
        let g = grid(4, 2, 3, lx, ly, ZGrid::Bottom(nz).nodes());
        let h = g.z.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        let bound = 0.5 * lx * ly * h * h / 24.0;
        for component in 0..3 {
            let e = Observables::of(&g, &poiseuille(&g, component), 0.0).fluid_kinetic_energy;
            // f32 values: 1e-6 relative beyond the rule's error.
            assert!(
                (e - exact).abs() <= bound + 1e-6 * exact,
                "nz {nz} component {component}: {e} vs {exact} (bound {bound})"
            );
            if component == 0 {
                errors.push((e - exact).abs());
            }
        }
    }
    // A graded grid is not exact for a quartic: the error is there and falls with h.
    assert!(
        errors[0] > 1e-6 * exact && errors[1] < errors[0] / 3.0,
        "{errors:?}"
    );
}

#[test]
fn the_fastest_flow_is_read_at_the_filament_level() {
    let g = grid(4, 2, 3, 1.0, 1.0, ZGrid::Uniform(4).nodes());
    let (cells, nz) = (g.cells(), g.nz());
    let mut f = zeros(&g);
    // At z0 (level 1): (3, 4) in cell 5, (1, 0) elsewhere; 10 at level 2 does not count.
    f.fluid[cells..2 * cells].fill(1.0);
    f.fluid[cells + 5] = 3.0;
    f.fluid[(nz + 1) * cells + 5] = 4.0;
    f.fluid[2 * cells..3 * cells].fill(10.0);
    let o = Observables::of(&g, &f, 0.0);
    assert_eq!(o.max_fluid_speed, 5.0);
}

#[test]
fn non_finite_names_the_first_bad_column() {
    let g = grid(4, 2, 3, 1.0, 1.0, ZGrid::Uniform(4).nodes());
    let mut good = zeros(&g);
    good.psi.fill(1.0);
    let cells = g.cells();
    type Spoil = Box<dyn Fn(&mut GlidingFields)>;
    let cases: Vec<(&str, Spoil)> = vec![
        ("filaments", Box::new(|f| f.psi[7] = f32::NAN)),
        ("mean_speed", Box::new(|f| f.velocity[3] = f32::INFINITY)),
        ("bound_motors", Box::new(|f| f.motors[2][1] = f32::NAN)),
        ("free_motors", Box::new(|f| f.motors[2][2] = f32::NAN)),
        ("total_motors", Box::new(|f| f.motors[0][0] = f32::NAN)),
        // Above z0 (level 3) and at z0: the energy is the first column to see either.
        (
            "fluid_kinetic_energy",
            Box::new(move |f| f.fluid[3 * cells] = f32::NAN),
        ),
        (
            "fluid_kinetic_energy",
            Box::new(move |f| f.fluid[cells + 1] = f32::NAN),
        ),
    ];
    for (name, spoil) in cases {
        let mut f = good.clone();
        spoil(&mut f);
        assert_eq!(Observables::of(&g, &f, 0.0).non_finite(), Some(name));
    }
    let o = Observables::of(&g, &good, 0.0);
    assert_eq!(o.non_finite(), None);
    let mut fast = o.clone();
    fast.max_fluid_speed = f64::NAN;
    assert_eq!(fast.non_finite(), Some("max_fluid_speed"));
    // A NaN at z0 reaches the fastest flow too (a max that skipped NaN would hide it).
    let mut f = good.clone();
    f.fluid[cells + 1] = f32::NAN;
    assert!(Observables::of(&g, &f, 0.0).max_fluid_speed.is_nan());
    assert_eq!(
        Observables::of(&g, &good, f64::INFINITY).non_finite(),
        Some("max_courant")
    );
}

#[test]
fn columns_rows_and_json_agree() {
    let g = grid(4, 2, 3, 1.0, 1.0, ZGrid::Uniform(4).nodes());
    let mut f = zeros(&g);
    f.psi = sample(&g, |x, y, th| 1.0 + x + y + th);
    f.motors.fill([3.0, 1.0, 2.0, 0.0]);
    let o = Observables::of(&g, &poiseuille(&g, 0), 0.5);
    let (columns, row) = (Observables::columns(), o.row());
    assert_eq!(columns.len(), row.len());
    let json = serde_json::to_value(&o).unwrap();
    let object = json.as_object().unwrap();
    assert_eq!(object.len(), columns.len());
    for (name, value) in columns.iter().zip(&row) {
        assert_eq!(object[*name].as_f64(), Some(*value), "{name}");
    }
}

/// The XML of a VTK file up to its appended block (closed so it parses), and the raw bytes
/// after the block's `_`.
fn split_appended(bytes: &[u8]) -> (String, &[u8]) {
    let marker = b"<AppendedData encoding=\"raw\">";
    let start = bytes
        .windows(marker.len())
        .position(|w| w == marker)
        .unwrap()
        + marker.len();
    let underscore = start + bytes[start..].iter().position(|&b| b == b'_').unwrap();
    let mut xml = String::from_utf8(bytes[..start].to_vec()).unwrap();
    xml.push_str("</AppendedData></VTKFile>");
    (xml, &bytes[underscore + 1..])
}

/// The named Float32 point arrays of a VTK file with an appended block, checking each block's
/// byte count is `n` values.
fn point_arrays(bytes: &[u8], n: usize) -> (String, Vec<(String, Vec<f32>)>) {
    let (xml, raw) = split_appended(bytes);
    let trailer = b"\n  </AppendedData>\n</VTKFile>\n";
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let arrays: Vec<(String, Vec<f32>)> = doc
        .descendants()
        .filter(|a| a.has_tag_name("DataArray") && a.parent().unwrap().has_tag_name("PointData"))
        .map(|a| {
            let offset: usize = a.attribute("offset").unwrap().parse().unwrap();
            let count = u64::from_le_bytes(raw[offset..offset + 8].try_into().unwrap());
            assert_eq!(count as usize, 4 * n);
            let values = raw[offset + 8..offset + 8 + 4 * n]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            (a.attribute("Name").unwrap().to_string(), values)
        })
        .collect();
    assert_eq!(raw.len(), arrays.len() * (8 + 4 * n) + trailer.len());
    (xml, arrays)
}

#[test]
fn vtk_files_hold_the_plane_and_the_graded_fluid() {
    let g = grid(4, 2, 8, 2.0, 0.5, ZGrid::Bottom(5).nodes());
    let cells = g.cells();
    let mut f = zeros(&g);
    // All filaments of cell 3 at theta = pi/4 (director pi/4, order 1); elsewhere isotropic.
    f.psi = sample(&g, |_, _, _| 0.5);
    for k in 0..g.ntheta {
        f.psi[k * cells + 3] = if k == 1 { 2.0 } else { 0.0 };
    }
    for (k, v) in f.fluid.iter_mut().enumerate() {
        *v = k as f32 * 0.01;
    }
    f.motors.fill([3.0, 1.0, 2.0, 0.0]);
    f.motor_force[6] = [0.5, -0.25];
    let dir = scratch("vtk");
    let names = write_fields(&dir, &g, &f).unwrap();
    assert_eq!(names, ["gliding_0000100.vti", "fluid_0000100.vtr"]);

    let (xml, plane) = point_arrays(&std::fs::read(dir.join(&names[0])).unwrap(), cells);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let image = doc
        .descendants()
        .find(|n| n.has_tag_name("ImageData"))
        .unwrap();
    assert_eq!(image.attribute("WholeExtent"), Some("0 3 0 1 0 0"));
    assert_eq!(image.attribute("Spacing"), Some("0.5 0.25 1"));
    let named: Vec<&str> = plane.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        named,
        [
            "c",
            "mx",
            "my",
            "nematic_order",
            "director",
            "bound_motors",
            "free_motors",
            "u",
            "v",
            "force_x",
            "force_y"
        ]
    );
    let field = |name: &str| &plane.iter().find(|(n, _)| n == name).unwrap().1;
    let dt = g.dtheta() as f32;
    assert!((field("c")[0] - 0.5 * TAU as f32).abs() < 1e-5);
    assert!((field("c")[3] - 2.0 * dt).abs() < 1e-6);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    assert!((field("mx")[3] - 2.0 * dt * s).abs() < 1e-6);
    assert!((field("my")[3] - 2.0 * dt * s).abs() < 1e-6);
    assert!((field("nematic_order")[3] - 1.0).abs() < 1e-6);
    assert!(field("nematic_order")[0].abs() < 1e-6);
    assert!((field("director")[3] - std::f32::consts::FRAC_PI_4).abs() < 1e-6);
    assert_eq!(
        (field("bound_motors")[2], field("free_motors")[2]),
        (1.0, 2.0)
    );
    // u and v at z0 = level 1 of (3, nz, ny, nx).
    let nz = g.nz();
    assert_eq!(field("u")[2], f.fluid[cells + 2]);
    assert_eq!(field("v")[2], f.fluid[(nz + 1) * cells + 2]);
    assert_eq!((field("force_x")[6], field("force_y")[6]), (0.5, -0.25));

    let (xml, fluid) = point_arrays(&std::fs::read(dir.join(&names[1])).unwrap(), nz * cells);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let rect = doc
        .descendants()
        .find(|n| n.has_tag_name("RectilinearGrid"))
        .unwrap();
    assert_eq!(rect.attribute("WholeExtent"), Some("0 3 0 1 0 4"));
    let coordinates: Vec<Vec<f64>> = doc
        .descendants()
        .filter(|n| n.has_tag_name("DataArray") && n.parent().unwrap().has_tag_name("Coordinates"))
        .map(|n| {
            let text = n.text().unwrap();
            text.split_whitespace()
                .map(|v| v.parse().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        coordinates,
        [vec![0.0, 0.5, 1.0, 1.5], vec![0.0, 0.25], g.z.clone()]
    );
    let n = nz * cells;
    for (k, (name, values)) in fluid.iter().enumerate() {
        assert_eq!(name, ["u", "v", "w"][k]);
        assert_eq!(values[..], f.fluid[k * n..(k + 1) * n]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fields_of_the_wrong_shape_are_refused_by_name() {
    let g = grid(4, 2, 3, 1.0, 1.0, ZGrid::Uniform(4).nodes());
    let good = zeros(&g);
    assert!(check_fields(&g, &good).is_ok());
    let dir = scratch("bad");
    let mut f = good.clone();
    f.fluid.pop();
    let e = write_fields(&dir, &g, &f).unwrap_err().to_string();
    assert!(
        e.contains("fluid") && e.contains("95") && e.contains("96"),
        "{e}"
    );
    let mut f = good.clone();
    f.motor_force.push([0.0; 2]);
    let e = check_fields(&g, &f).unwrap_err().to_string();
    assert!(e.contains("motor_force"), "{e}");
    let mut high = g.clone();
    high.z0_level = 4;
    let e = check_fields(&high, &good).unwrap_err().to_string();
    assert!(e.contains("grid.z0 = 4 of"), "{e}");
    let e = write_frame(&[&dir.join("f.png")], &g, &good, 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("output.arrow_every"), "{e}");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing written"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_frame_shows_density_director_motors_and_flow_where_they_are() {
    // 32 x 16 cells on 2 x 1: dense aligned filaments (theta = 0) in the left half, a sparse
    // isotropic film in the right; bound motors rising along y; a shear flow u = y at z0.
    let g = grid(32, 16, 8, 2.0, 1.0, ZGrid::Bottom(6).nodes());
    let cells = g.cells();
    let mut f = zeros(&g);
    f.psi = sample(&g, |x, _, th| match x < 1.0 {
        true => (th == 0.0) as u8 as f64 * 4.0,
        false => 0.1,
    });
    for (k, a) in f.motors.iter_mut().enumerate() {
        let bound = (k / g.nx) as f32 / 16.0;
        *a = [1.0, bound, 1.0 - bound, 0.0];
    }
    for (k, u) in f.fluid[cells..2 * cells].iter_mut().enumerate() {
        *u = (k / g.nx) as f32 / 16.0;
    }
    let figures = frame_figures(&g, &f, 8).unwrap();
    assert_eq!(figures[0].panels[0].title, "filament density, t = 1.25 l/V");
    // Every axis and colour bar names its unit.
    for figure in &figures {
        let panel = &figure.panels[0];
        assert_eq!(
            (panel.x.label.as_str(), panel.y.label.as_str()),
            ("x (filament lengths l)", "y (filament lengths l)")
        );
        assert!(panel.title.ends_with("t = 1.25 l/V"), "{}", panel.title);
    }
    let bars = figures
        .each_ref()
        .map(|f| f.color_scale.as_ref().unwrap().label.clone());
    assert_eq!(
        bars,
        ["filament density c (per l²)", "bound motors n_b (per l²)"]
    );
    assert!(figures[1].panels[0].lines[0]
        .label
        .as_deref()
        .unwrap()
        .ends_with(" V)"));
    // Glyphs at cells 4, 12, 20, 28 across and 4, 12 up: director segments in the left half
    // only (4; the right is isotropic), lying along x; 8 arrows of 3 strokes.
    let director = &figures[0].panels[0].lines[0].segments;
    assert_eq!(director.len(), 4);
    assert!(director.iter().all(|s| s[0].1 == s[1].1 && s[1].0 < 1.0));
    let arrows = &figures[1].panels[0].lines[0].segments;
    assert_eq!(arrows.len(), 8 * 3);
    // Shafts point along +x, centred on their cells, the longest (u = 0.75 at y = 0.75) 0.8 of
    // the 8 cells between glyphs (0.4) and those at y = 0.25 (u = 0.25) a third of it.
    for shaft in arrows.iter().step_by(3) {
        let [(x0, y0), (x1, y1)] = *shaft;
        let length = if y0 == 0.75 { 0.4 } else { 0.4 / 3.0 };
        assert!(y0 == y1 && (x1 - x0 - length).abs() < 1e-12, "{shaft:?}");
        assert!(
            (0.5 * (x0 + x1) * 16.0 - 4.0).rem_euclid(8.0) < 1e-9,
            "{shaft:?}"
        );
    }

    let path = scratch("frame").join("gliding_0000100.png");
    write_frame(&[&path], &g, &f, 8).unwrap();
    let png = RgbImage::load_png(&path).unwrap();
    let (top, bottom) = (
        figures[0].render_with_layout().unwrap(),
        figures[1].render_with_layout().unwrap(),
    );
    assert_eq!(png.width, 900);
    assert_eq!(png.height, top.image.height + bottom.image.height);
    // The saved picture is the two renders one above the other.
    let rows = top.image.height;
    assert_eq!(png.pixels[..top.image.pixels.len()], top.image.pixels[..]);
    assert_eq!(
        png.pixels[top.image.pixels.len()..],
        bottom.image.pixels[..]
    );

    // Top: the dense half is darker than the sparse half (away from the segments).
    let at = |r: &petri_output::Rendered, x: f64, y: f64, below: usize| {
        let (col, row) = r.panels[0].pixel(x, y);
        png.get(col as usize, row as usize + below).unwrap()
    };
    let darkness = |c: [u8; 3]| 765 - c.iter().map(|&v| v as i32).sum::<i32>();
    let (dense, sparse) = (at(&top, 0.5, 0.5, 0), at(&top, 1.5, 0.5, 0));
    assert!(
        darkness(dense) > darkness(sparse) + 200,
        "{dense:?} {sparse:?}"
    );
    // The director's red lies on the segment through cell (4, 4) at (0.25, 0.25).
    let red = at(&top, 0.25 + 0.05, 0.25, 0);
    assert!(red[0] > 150 && red[1] < 80 && red[2] < 80, "{red:?}");
    // Bottom: motors rise along y, so the top row is darker than the bottom one, and the
    // arrows (black) lie along the line of cell 12 up, where u = 0.75.
    let (low, high) = (at(&bottom, 1.0, 0.05, rows), at(&bottom, 1.0, 0.9, rows));
    assert!(darkness(high) > darkness(low) + 200, "{low:?} {high:?}");
    for x in [0.1, 0.25, 0.4] {
        assert_eq!(at(&bottom, x, 0.75, rows), [0, 0, 0], "x = {x}");
    }
    assert_ne!(at(&bottom, 0.25, 0.85, rows), [0, 0, 0]);
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}
