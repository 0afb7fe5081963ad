//! What a run of the gliding assay writes, from the grid and fields of one step: the observables
//! (a row of observables.csv), the fields for ParaView (the filament plane as VTK ImageData, the
//! channel's fluid velocity as a RectilinearGrid on the graded z levels) and PNG frames in the
//! style of the seed's Fig. 6 (filament density with the director; bound motors with the fluid
//! velocity). Sums run in f64 in a fixed order, so the same fields give the same bits.

use super::coupling_cpu::moments;
use super::fields::{GlidingFields, GlidingGrid};
use crate::error::{invalid, short, Result};
use petri_output::{
    blend, write_image_data, write_rectilinear_grid, Axis, ColorScale, Figure, HeatMap, Lines,
    Panel, RgbImage,
};
use serde::Serialize;
use std::path::Path;

/// The observables of one step: a row of observables.csv.
#[derive(Clone, Debug, Serialize)]
pub struct Observables {
    pub step: u64,
    pub time: f64,
    /// The integral of Psi over x, y and theta.
    pub filaments: f64,
    /// The Psi-weighted mean of |(Ux, Uy)| over the (theta, y, x) cells.
    pub mean_speed: f64,
    /// |integral of p Psi| / integral of Psi, p = (cos theta, sin theta): 1 when all filaments
    /// point one way.
    pub polar_order: f64,
    /// |integral of (cos 2 theta, sin 2 theta) Psi| / integral of Psi: 1 when all lie along one
    /// axis, either way.
    pub nematic_order: f64,
    /// Sum over cells of |m| / sum over cells of c (m, c the cell's polar moment and density):
    /// high for rings and vortices, whose global polar order is 0.
    pub local_polar_order: f64,
    /// The motors over the anchors, times dx dy: coarse bound, free, total.
    pub bound_motors: f64,
    pub free_motors: f64,
    pub total_motors: f64,
    /// 1/2 the integral of |u|^2 over the channel (trapezoid rule on the z levels).
    pub fluid_kinetic_energy: f64,
    /// The largest |(u, v)| at the filaments' level z0.
    pub max_fluid_speed: f64,
    /// The last step's Courant number: its dt times its largest Courant rate (at most
    /// courant_safety x 0.25), as the model computed it.
    pub max_courant: f64,
    /// The last step's dt (0 before the first step): the config's dt, or less where the
    /// Courant rate needs it.
    pub dt: f64,
}

/// The columns of observables.csv, in the order of [`Observables::row`].
const COLUMNS: [&str; 14] = [
    "step",
    "time",
    "filaments",
    "mean_speed",
    "polar_order",
    "nematic_order",
    "local_polar_order",
    "bound_motors",
    "free_motors",
    "total_motors",
    "fluid_kinetic_energy",
    "max_fluid_speed",
    "max_courant",
    "dt",
];

impl Observables {
    /// The observables of `fields` on `grid`, with the step's largest Courant number passed
    /// through (and the step's dt from the fields). The arrays must have the grid's lengths (as the model makes them; indexing
    /// panics on shorter ones): [`check_fields`] says which does not.
    pub fn of(grid: &GlidingGrid, fields: &GlidingFields, max_courant: f64) -> Observables {
        let (dx, dy) = (grid.dx(), grid.dy());
        let moments = cell_moments(grid, &fields.psi);
        let (mut c, mut m, mut q, mut local) = (0.0, [0.0; 2], [0.0; 2], 0.0);
        for cell in &moments {
            c += cell.c;
            m = [m[0] + cell.m[0], m[1] + cell.m[1]];
            q = [q[0] + cell.q[0], q[1] + cell.q[1]];
            local += cell.m[0].hypot(cell.m[1]);
        }
        let motors = |k: usize| fields.motors.iter().map(|a| a[k] as f64).sum::<f64>() * dx * dy;
        Observables {
            step: fields.step,
            time: fields.time,
            filaments: c * dx * dy,
            mean_speed: mean_speed(grid, fields),
            polar_order: ratio(m[0].hypot(m[1]), c),
            nematic_order: ratio(q[0].hypot(q[1]), c),
            local_polar_order: ratio(local, c),
            bound_motors: motors(1),
            free_motors: motors(2),
            total_motors: motors(0),
            fluid_kinetic_energy: kinetic_energy(grid, &fields.fluid),
            max_fluid_speed: max_plane_speed(grid, &fields.fluid),
            max_courant,
            dt: fields.dt,
        }
    }

    /// The columns of observables.csv.
    pub fn columns() -> Vec<&'static str> {
        COLUMNS.to_vec()
    }

    /// The row of observables.csv, in the order of [`Observables::columns`].
    pub fn row(&self) -> Vec<f64> {
        vec![
            self.step as f64,
            self.time,
            self.filaments,
            self.mean_speed,
            self.polar_order,
            self.nematic_order,
            self.local_polar_order,
            self.bound_motors,
            self.free_motors,
            self.total_motors,
            self.fluid_kinetic_energy,
            self.max_fluid_speed,
            self.max_courant,
            self.dt,
        ]
    }

    /// The column of the first value that is not finite.
    pub fn non_finite(&self) -> Option<&'static str> {
        let row = self.row();
        COLUMNS
            .iter()
            .zip(row)
            .find(|(_, v)| !v.is_finite())
            .map(|(name, _)| *name)
    }
}

/// Refuses fields whose arrays do not have the lengths `grid` gives them, naming the array.
pub fn check_fields(grid: &GlidingGrid, fields: &GlidingFields) -> Result<()> {
    let (nx, ny, nt, nz) = (grid.nx, grid.ny, grid.ntheta, grid.nz());
    if nx == 0 || ny == 0 || nt == 0 {
        let size = format!("{nx} x {ny} x {nt}");
        return Err(invalid(
            "grid.nx x grid.ny x grid.ntheta",
            size,
            "at least 1 each",
        ));
    }
    if !(grid.lx > 0.0 && grid.ly > 0.0 && grid.lx.is_finite() && grid.ly.is_finite()) {
        let periods = format!("{} x {}", grid.lx, grid.ly);
        return Err(invalid("grid.lx x grid.ly", periods, "finite and > 0"));
    }
    if nz < 2 || grid.z0_level >= nz {
        let level = format!("{} of {nz} levels", grid.z0_level);
        return Err(invalid(
            "grid.z0",
            level,
            "the level of a grid of at least 2",
        ));
    }
    let cells = grid.cells();
    let lengths = [
        ("psi", fields.psi.len(), nt * cells, "ntheta ny nx"),
        (
            "velocity",
            fields.velocity.len(),
            3 * nt * cells,
            "3 ntheta ny nx",
        ),
        ("fluid", fields.fluid.len(), 3 * nz * cells, "3 nz ny nx"),
        ("motors", fields.motors.len(), cells, "ny nx"),
        ("motor_force", fields.motor_force.len(), cells, "ny nx"),
    ];
    for (name, len, expected, shape) in lengths {
        if len != expected {
            let field = format!("{name} length");
            return Err(invalid(&field, len, format!("{expected} ({shape})")));
        }
    }
    Ok(())
}

/// The orientation moments of Psi in one cell (x, y), sums over theta times dtheta.
#[derive(Clone, Copy, Debug, Default)]
struct Moments {
    /// Density: sum of Psi.
    c: f64,
    /// Polar: sum of (cos theta, sin theta) Psi.
    m: [f64; 2],
    /// Nematic: sum of (cos 2 theta, sin 2 theta) Psi.
    q: [f64; 2],
}

impl Moments {
    /// The local nematic order |q| / c (0 where there are no filaments).
    fn order(&self) -> f64 {
        ratio(self.q[0].hypot(self.q[1]), self.c)
    }

    /// The director's angle in (-pi/2, pi/2]: half the angle of q.
    fn director(&self) -> f64 {
        0.5 * self.q[1].atan2(self.q[0])
    }
}

/// `a / b`, or 0 where `b <= 0` (no filaments); NaN stays NaN, so `non_finite` sees it.
fn ratio(a: f64, b: f64) -> f64 {
    match b <= 0.0 {
        true => 0.0,
        false => a / b,
    }
}

/// The moments of every cell, x fastest; each a sum over theta in order.
fn cell_moments(grid: &GlidingGrid, psi: &[f32]) -> Vec<Moments> {
    let wide: Vec<f64> = psi.iter().map(|&v| f64::from(v)).collect();
    // (cos 2 theta, sin 2 theta) = (cos^2 - sin^2, 2 cos sin): from the second moment D.
    moments(grid, &wide)
        .into_iter()
        .map(|[c, mx, my, xx, xy, yy]| Moments {
            c,
            m: [mx, my],
            q: [xx - yy, 2.0 * xy],
        })
        .collect()
}

/// The Psi-weighted mean of |(Ux, Uy)| over the (theta, y, x) cells.
fn mean_speed(grid: &GlidingGrid, fields: &GlidingFields) -> f64 {
    let n = grid.ntheta * grid.cells();
    let (ux, uy) = (&fields.velocity[..n], &fields.velocity[n..2 * n]);
    let (mut weight, mut sum) = (0.0, 0.0);
    for ((&psi, &a), &b) in fields.psi[..n].iter().zip(ux).zip(uy) {
        weight += psi as f64;
        sum += psi as f64 * (a as f64).hypot(b as f64);
    }
    ratio(sum, weight)
}

/// 1/2 the integral of u^2 + v^2 + w^2 over the channel: dx dy per cell, the trapezoid rule
/// on the (graded) z levels.
fn kinetic_energy(grid: &GlidingGrid, fluid: &[f32]) -> f64 {
    let (cells, z) = (grid.cells(), &grid.z);
    let nz = z.len();
    let mut energy = 0.0;
    for j in 0..nz {
        // Half of the two intervals beside the level (one at a wall).
        let weight = 0.5 * (z[(j + 1).min(nz - 1)] - z[j.saturating_sub(1)]);
        let mut level = 0.0;
        for component in 0..3 {
            let at = (component * nz + j) * cells;
            level += fluid[at..at + cells]
                .iter()
                .map(|&u| (u as f64) * (u as f64))
                .sum::<f64>();
        }
        energy += weight * level;
    }
    0.5 * energy * grid.dx() * grid.dy()
}

/// The largest |(u, v)| at z0; NaN if any is (`f64::max` would skip it).
fn max_plane_speed(grid: &GlidingGrid, fluid: &[f32]) -> f64 {
    let (u, v) = grid.filament_plane(fluid);
    let speeds = u.iter().zip(v).map(|(&a, &b)| (a as f64).hypot(b as f64));
    speeds.fold(0.0, |max, s| if s > max || s.is_nan() { s } else { max })
}

/// The file names of a step's fields: the filament plane and the fluid.
fn field_files(step: u64) -> [String; 2] {
    [
        format!("gliding_{step:07}.vti"),
        format!("fluid_{step:07}.vtr"),
    ]
}

/// Writes the fields of a step into `dir` and returns the file names:
///
/// - `gliding_NNNNNNN.vti`, the filament plane (nx x ny nodes at (i dx, j dy)): density `c`,
///   polar moment `mx`, `my`, nematic order `nematic_order` and the director's angle `director`
///   (radians from x, in (-pi/2, pi/2]), `bound_motors` (coarse) and `free_motors` per anchor,
///   the fluid velocity `u`, `v` at z0 and the motor force `force_x`, `force_y`;
/// - `fluid_NNNNNNN.vtr`, the fluid velocity `u`, `v`, `w` on the channel's x, y and graded z
///   nodes.
pub fn write_fields(dir: &Path, grid: &GlidingGrid, fields: &GlidingFields) -> Result<Vec<String>> {
    check_fields(grid, fields)?;
    let [plane, fluid] = field_files(fields.step);
    let moments = cell_moments(grid, &fields.psi);
    let of =
        |f: &dyn Fn(&Moments) -> f64| -> Vec<f32> { moments.iter().map(|m| f(m) as f32).collect() };
    let motor = |k: usize| -> Vec<f32> { fields.motors.iter().map(|a| a[k]).collect() };
    let force = |k: usize| -> Vec<f32> { fields.motor_force.iter().map(|f| f[k]).collect() };
    let (u, v) = grid.filament_plane(&fields.fluid);
    write_image_data(
        &dir.join(&plane),
        [grid.nx, grid.ny, 1],
        [grid.dx(), grid.dy(), 1.0],
        [0.0; 3],
        &[
            ("c", &of(&|m| m.c)),
            ("mx", &of(&|m| m.m[0])),
            ("my", &of(&|m| m.m[1])),
            ("nematic_order", &of(&Moments::order)),
            ("director", &of(&Moments::director)),
            ("bound_motors", &motor(1)),
            ("free_motors", &motor(2)),
            ("u", u),
            ("v", v),
            ("force_x", &force(0)),
            ("force_y", &force(1)),
        ],
    )?;

    let n = grid.nz() * grid.cells();
    let axis = |cells: usize, h: f64| -> Vec<f64> { (0..cells).map(|i| i as f64 * h).collect() };
    let (x, y) = (axis(grid.nx, grid.dx()), axis(grid.ny, grid.dy()));
    let component = |k: usize| &fields.fluid[k * n..(k + 1) * n];
    write_rectilinear_grid(
        &dir.join(&fluid),
        [&x, &y, &grid.z],
        &[
            ("u", component(0)),
            ("v", component(1)),
            ("w", component(2)),
        ],
    )?;
    Ok(vec![plane, fluid])
}

/// Width of a frame in pixels.
const FRAME_WIDTH: u32 = 900;
/// Density: white to dark blue; the director in red over it (the seed's Fig. 6).
const DENSITY: [u8; 3] = [8, 48, 107];
const DIRECTOR: [u8; 3] = [215, 25, 28];
/// Bound motors: white to dark red; the fluid's arrows in black over them.
const MOTORS: [u8; 3] = [153, 0, 13];
const ARROW: [u8; 3] = [0, 0, 0];
/// Axes and colour bars in the model's units (the filament length l, the motor speed V, the
/// time l/V): filaments and motors per l^2 of the surface.
pub const X_LABEL: &str = "x (filament lengths l)";
pub const Y_LABEL: &str = "y (filament lengths l)";
pub const DENSITY_LABEL: &str = "filament density c (per l²)";
pub const MOTORS_LABEL: &str = "bound motors n_b (per l²)";
/// The longest segment or arrow, as a fraction of the spacing of those drawn.
const GLYPH: f64 = 0.8;

fn blues(t: f32) -> [u8; 3] {
    blend([255; 3], DENSITY, t)
}

fn reds(t: f32) -> [u8; 3] {
    blend([255; 3], MOTORS, t)
}

/// The two figures of a frame, one above the other (the seed's Fig. 6, top and bottom rows):
/// the filament density c with the nematic director every `every`-th cell (length
/// proportional to the local order, centred on the cell), and the coarse bound motors with the
/// fluid velocity at z0 as arrows every `every`-th cell (the longest as long as the director at
/// order 1). Axes, times and colour bars in the model's units ([`X_LABEL`]); cell (i, j) is centred at (i dx, j dy). `every` >= 1.
pub fn frame_figures(
    grid: &GlidingGrid,
    fields: &GlidingFields,
    every: usize,
) -> Result<[Figure; 2]> {
    check_fields(grid, fields)?;
    if every == 0 {
        return Err(invalid(
            "output.arrow_every",
            every,
            "at least 1 (cells between glyphs)",
        ));
    }
    let (dx, dy) = (grid.dx(), grid.dy());
    let moments = cell_moments(grid, &fields.psi);
    // Glyphs at every `every`-th cell, starting half a spacing in.
    let glyphs: Vec<(usize, f64, f64)> = (every / 2..grid.ny)
        .step_by(every)
        .flat_map(|j| (every / 2..grid.nx).step_by(every).map(move |i| (i, j)))
        .map(|(i, j)| (i + grid.nx * j, i as f64 * dx, j as f64 * dy))
        .collect();
    let longest = GLYPH * every as f64 * dx.min(dy);
    let time = time_label(fields.time);

    // Segments under a hundredth of the longest are left out: an isotropic film's order is
    // round-off, and its angle noise.
    let director = glyphs.iter().filter_map(|&(cell, x, y)| {
        let order = moments[cell].order().min(1.0);
        let half = 0.5 * longest * order;
        let (s, c) = moments[cell].director().sin_cos();
        (order >= 0.01).then_some([(x - half * c, y - half * s), (x + half * c, y + half * s)])
    });
    let density: Vec<f32> = moments.iter().map(|m| m.c as f32).collect();
    let mut top = frame_panel(grid, format!("filament density, t = {time} l/V"), density);
    top.lines.push(
        Lines::new(DIRECTOR, 2, director.collect())
            .labelled("nematic director (length: local order S)"),
    );

    let (u, v) = grid.filament_plane(&fields.fluid);
    let fastest = glyphs
        .iter()
        .map(|&(k, _, _)| (u[k] as f64).hypot(v[k] as f64))
        .filter(|s| s.is_finite())
        .fold(0.0, f64::max);
    let arrows = glyphs
        .iter()
        .filter(|_| fastest > 0.0)
        .flat_map(|&(k, x, y)| {
            let scale = longest / fastest;
            arrow((x, y), (u[k] as f64 * scale, v[k] as f64 * scale))
        });
    let bound: Vec<f32> = fields.motors.iter().map(|a| a[1]).collect();
    let title = format!("bound motors and fluid velocity at z0, t = {time} l/V");
    let mut bottom = frame_panel(grid, title, bound);
    let label = format!("fluid velocity at z0 (longest |u| = {fastest:.3e} V)");
    bottom
        .lines
        .push(Lines::new(ARROW, 2, arrows.collect()).labelled(label));

    let title = format!("Gliding assay, step {}", fields.step);
    Ok([
        frame_figure(title, top, DENSITY_LABEL, blues),
        frame_figure(String::new(), bottom, MOTORS_LABEL, reds),
    ])
}

/// Draws [`frame_figures`] one above the other (once) and saves the picture as PNG at each of
/// `paths`.
pub fn write_frame(
    paths: &[&Path],
    grid: &GlidingGrid,
    fields: &GlidingFields,
    every: usize,
) -> Result<()> {
    let [top, bottom] = frame_figures(grid, fields, every)?;
    let (top, bottom) = (top.render()?, bottom.render()?);
    // Both are FRAME_WIDTH wide, so the rows of one follow the rows of the other.
    let picture = RgbImage {
        width: top.width,
        height: top.height + bottom.height,
        pixels: [top.pixels, bottom.pixels].concat(),
    };
    for path in paths {
        picture.save_png(path)?;
    }
    Ok(())
}

/// A panel of the periodic plane (one unit as long on both axes) with `values` per cell as its
/// heat map; the window spans the cells' whole width, from -dx/2 to Lx - dx/2.
fn frame_panel(grid: &GlidingGrid, title: String, values: Vec<f32>) -> Panel {
    let (dx, dy) = (grid.dx(), grid.dy());
    let (x, y) = (-0.5 * dx..grid.lx - 0.5 * dx, -0.5 * dy..grid.ly - 0.5 * dy);
    let mut panel = Panel::new(
        title,
        Axis::new(X_LABEL, x.start, x.end),
        Axis::new(Y_LABEL, y.start, y.end),
    );
    panel.equal_aspect = true;
    panel.heat_map = Some(HeatMap {
        values,
        nx: grid.nx,
        ny: grid.ny,
        x,
        y,
    });
    panel
}

/// A figure of one panel whose colour scale spans its heat map's finite values (from 0, or
/// the lowest if negative: Psi need not stay positive).
fn frame_figure(title: String, panel: Panel, label: &str, map: fn(f32) -> [u8; 3]) -> Figure {
    let values = panel.heat_map.as_ref().map_or(&[][..], |m| &m.values[..]);
    let finite = values.iter().filter(|v| v.is_finite()).map(|&v| v as f64);
    let (lo, hi) = finite.fold((0.0, f64::MIN), |(lo, hi), v| (v.min(lo), v.max(hi)));
    let hi = if hi > lo { hi } else { lo + 1.0 };
    let mut figure = Figure {
        width: FRAME_WIDTH,
        height: 0,
        title,
        panels: vec![panel],
        color_scale: Some(ColorScale {
            label: label.into(),
            lo,
            hi,
            map,
        }),
    };
    figure.height = figure.fitted_height();
    figure
}

/// An arrow of vector `a` centred on `at`: the shaft and two barbs at the tip.
fn arrow(at: (f64, f64), a: (f64, f64)) -> Vec<[(f64, f64); 2]> {
    let tail = (at.0 - 0.5 * a.0, at.1 - 0.5 * a.1);
    let tip = (at.0 + 0.5 * a.0, at.1 + 0.5 * a.1);
    // Barbs a third of the shaft long, 25 degrees off it.
    let (s, c) = 25f64.to_radians().sin_cos();
    let back = (-a.0 / 3.0, -a.1 / 3.0);
    let barb = |s: f64| {
        (
            tip.0 + c * back.0 - s * back.1,
            tip.1 + s * back.0 + c * back.1,
        )
    };
    vec![[tail, tip], [tip, barb(s)], [tip, barb(-s)]]
}

/// A time for a title: six significant digits at most, without float noise (0.3, not
/// 0.30000000000000004).
fn time_label(t: f64) -> String {
    short(format!("{t:.5e}").parse().unwrap_or(t))
}
