//! Files a biologist opens: VTK image data of n, f, c (ParaView), the vessel network as VTK
//! polydata, PNG pictures of the vessels over the TAF field (the final state and one frame per
//! snapshot), and a CSV of the observables.

use super::params::{AngioConfig, Tumour};
use super::state::{AngioState, Counter, FREE};
use super::uniforms::AngioUniforms;
use crate::error::Result;
use petri_output::{
    blend, colormap_viridis, write_image_data, write_polylines, Axis, ColorScale, Figure, HeatMap,
    Lines, Panel, Points,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// n, f, c and the vessel indicator (1 where a sprout has been) as point data on the grid.
pub fn write_fields(path: &Path, cfg: &AngioConfig, s: &AngioState) -> Result<()> {
    let h = cfg.h();
    let vessel: Vec<f32> = s
        .occ
        .iter()
        .map(|&o| if o == FREE { 0.0 } else { 1.0 })
        .collect();
    write_image_data(
        path,
        cfg.grid.map(|n| n as usize),
        [h; 3],
        [0.0; 3],
        &[("n", &s.n), ("f", &s.f), ("c", &s.c), ("vessel", &vessel)],
    )?;
    Ok(())
}

/// The vessel network: one line per tip move, with the sprout id and step of each.
pub fn write_vessels(path: &Path, cfg: &AngioConfig, s: &AngioState) -> Result<()> {
    let u = AngioUniforms::new(cfg, 0.0);
    let h = cfg.h() as f32;
    let mut index: HashMap<u32, u32> = HashMap::new();
    let mut points = Vec::new();
    let mut point_of = |site: u32| -> u32 {
        *index.entry(site).or_insert_with(|| {
            let [x, y, z] = u.coords(site);
            points.push([x as f32 * h, y as f32 * h, z as f32 * h]);
            points.len() as u32 - 1
        })
    };
    let lines: Vec<[u32; 2]> = s
        .segments
        .iter()
        .map(|g| [point_of(g[0]), point_of(g[1])])
        .collect();
    let sprout: Vec<u32> = s.segments.iter().map(|g| g[2]).collect();
    let step: Vec<u32> = s.segments.iter().map(|g| g[3]).collect();
    write_polylines(
        path,
        &points,
        &lines,
        &[("sprout", &sprout), ("step", &step)],
    )?;
    Ok(())
}

/// Width of the vessel pictures in pixels: two views of a 3-D grid, one of a 2-D grid.
const PICTURE_WIDTH: [u32; 2] = [760, 1100];
/// Vessels: near-black lines, clear over the pale colour map of c.
const VESSEL: [u8; 3] = [20, 20, 30];
const TIP: [u8; 3] = [220, 20, 60];
const TUMOUR: [u8; 3] = [200, 0, 160];
const JOINED: [u8; 3] = [30, 90, 230];

/// c's colour map: viridis faded halfway to white, so dark vessel lines stay visible over it.
fn pale_viridis(t: f32) -> [u8; 3] {
    blend(colormap_viridis(t), [255; 3], 0.45)
}

/// One view of the grid: the axes drawn across and up, and the axis averaged over.
struct View {
    across: usize,
    up: usize,
    depth: usize,
    title: &'static str,
}

/// Lengths are in units of L, the distance from the parent vessel to the tumour (the grid's
/// longest side is 1).
const AXIS_NAMES: [&str; 3] = ["x / L", "y / L", "z / L"];

/// The picture of the vessel network at the state's step (`vessels.png` and the frames): the
/// vessels as lines (one per tip move) over the TAF c, live tips as dots, tips stopped by
/// anastomosis as rings, the tumour, the time
/// t = step x k in the title. A 3-D grid is shown in two views, top (x-y, c averaged over z)
/// and side (x-z, c averaged over y); a 2-D grid (nz = 1) in one. Axes in model units (the
/// longest side is 1). The legend's counts are the run's counters, as observables.csv gives
/// them; a tip that anastomosed on the tumour's plane is counted but drawn as one that reached
/// it. The title gives the network's length: the sites vessels occupy, times h.
pub fn vessel_figure(cfg: &AngioConfig, k: f64, s: &AngioState) -> Figure {
    let u = AngioUniforms::new(cfg, k);
    let h = cfg.h();
    let lengths = cfg.lengths();
    let views: &[View] = if u.nz == 1 {
        &[View {
            across: 0,
            up: 1,
            depth: 2,
            title: "x-y plane",
        }]
    } else {
        &[
            View {
                across: 0,
                up: 1,
                depth: 2,
                title: "top view (x-y), c averaged over z",
            },
            View {
                across: 0,
                up: 2,
                depth: 1,
                title: "side view (x-z), c averaged over y",
            },
        ]
    };
    let dims = [u.nx as usize, u.ny as usize, u.nz as usize];
    let sites: Vec<[f64; 3]> = s
        .segments
        .iter()
        .flat_map(|g| [g[0], g[1]])
        .map(|site| u.coords(site).map(|i| i as f64 * h))
        .collect();
    let position = |site: u32| u.coords(site).map(|i| i as f64 * h);
    let tips: Vec<[f64; 3]> = s
        .tips
        .iter()
        .filter(|t| t.alive != 0)
        .map(|t| position(t.site))
        .collect();
    // A tip stops by anastomosis, or on reaching the last x plane (the tumour).
    let joined: Vec<[f64; 3]> = s
        .tips
        .iter()
        .filter(|t| t.alive == 0 && u.coords(t.site)[0] + 1 < u.nx)
        .map(|t| position(t.site))
        .collect();
    // As observables.csv counts them (sim.rs, `Observables`).
    let live_tips =
        s.counter(Counter::Tips) - s.counter(Counter::Anastomoses) - s.counter(Counter::Reached);
    let network_length = s.occupied_sites() as f64 * h;
    let c_hi = s.c.iter().cloned().fold(1f32, f32::max) as f64;
    // Thinner lines where cells are smaller than two pixels.
    let line_width = if dims[0] <= 200 { 2 } else { 1 };
    let panels = views
        .iter()
        .map(|v| {
            let axis = |a: usize| Axis::new(AXIS_NAMES[a], 0.0, lengths[a]);
            let mut panel = Panel::new(v.title, axis(v.across), axis(v.up));
            panel.equal_aspect = true;
            panel.heat_map = Some(mean_c(&u, s, dims, v, h));
            let at = |p: &[f64; 3]| (p[v.across], p[v.up]);
            let segments = sites.chunks_exact(2).map(|p| [at(&p[0]), at(&p[1])]);
            panel
                .lines
                .push(Lines::new(VESSEL, line_width, segments.collect()).labelled("vessels"));
            panel.lines.push(tumour(cfg, v).labelled("tumour"));
            let mut rings = Points::new(JOINED, 4, joined.iter().map(at).collect());
            rings.filled = false;
            let label = format!("anastomoses ({})", s.counter(Counter::Anastomoses));
            panel.points.push(rings.labelled(label));
            let live = format!("live tips ({})", live_tips);
            panel
                .points
                .push(Points::new(TIP, 3, tips.iter().map(at).collect()).labelled(live));
            panel
        })
        .collect();
    let mut figure = Figure {
        width: PICTURE_WIDTH[views.len() - 1],
        height: 0,
        title: format!(
            "Angiogenesis   t = {:.3} (step {}, dt = {:.4})   {} sprout{}, network {:.2} L",
            s.step as f64 * k,
            s.step,
            k,
            s.tips.len(),
            if s.tips.len() == 1 { "" } else { "s" },
            network_length
        ),
        panels,
        color_scale: Some(ColorScale {
            label: "TAF c (1 at the tumour)".into(),
            lo: 0.0,
            hi: c_hi,
            map: pale_viridis,
        }),
    };
    figure.height = figure.fitted_height();
    figure
}

/// c averaged along the view's depth axis, one cell per grid node.
fn mean_c(u: &AngioUniforms, s: &AngioState, dims: [usize; 3], v: &View, h: f64) -> HeatMap {
    let (na, nb, nd) = (dims[v.across], dims[v.up], dims[v.depth]);
    let mut values = vec![0f32; na * nb];
    for (i, &c) in s.c.iter().enumerate() {
        let p = u.coords(i as u32).map(|q| q as usize);
        values[p[v.across] + na * p[v.up]] += c / nd as f32;
    }
    // Node i sits at i h, in the middle of its cell.
    let extent = |n: usize| -0.5 * h..(n as f64 - 0.5) * h;
    HeatMap {
        values,
        nx: na,
        ny: nb,
        x: extent(na),
        y: extent(nb),
    }
}

/// Where the TAF comes from, as the view sees it: the face x = Lx, or the sphere's outline.
fn tumour(cfg: &AngioConfig, v: &View) -> Lines {
    let l = cfg.lengths();
    match cfg.tumour {
        Tumour::Face => Lines::new(TUMOUR, 4, vec![[(l[0], 0.0), (l[0], l[v.up])]]),
        Tumour::Sphere => {
            let centre = [l[0], l[1] / 2.0, l[2] / 2.0];
            let outline: Vec<(f64, f64)> = (0..=64)
                .map(|i| i as f64 * std::f64::consts::TAU / 64.0)
                .map(|a| (centre[0] + 0.1 * a.cos(), centre[v.up] + 0.1 * a.sin()))
                .filter(|p| p.0 <= l[0])
                .collect();
            Lines::polyline(TUMOUR, 3, &outline)
        }
    }
}

/// Saves [`vessel_figure`] as PNG at each of `paths`.
pub fn write_picture(paths: &[&Path], cfg: &AngioConfig, k: f64, s: &AngioState) -> Result<()> {
    let image = vessel_figure(cfg, k, s).render()?;
    for path in paths {
        image.save_png(path)?;
    }
    Ok(())
}

/// File name of the field snapshot at `step`.
pub fn fields_file(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("fields_{step:07}.vti"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use petri_output::RgbImage;

    /// A state on `grid` with c rising along x, one sprout that ran straight along x from
    /// x = 1/4 to 3/4 through the middle of the other axes, and its live tip at the end.
    fn straight_sprout(grid: [u32; 3]) -> (AngioConfig, AngioState) {
        let cfg = AngioConfig {
            grid,
            ..AngioConfig::default()
        };
        let u = AngioUniforms::new(&cfg, 0.01);
        let mut s = AngioState::uniform(&u, 0.0, 0.0, 0.0);
        for (i, c) in s.c.iter_mut().enumerate() {
            *c = u.coords(i as u32)[0] as f32 / (u.nx - 1) as f32;
        }
        let (y, z) = (u.ny / 2, u.nz / 2);
        let (from, to) = (u.nx / 4, 3 * u.nx / 4);
        for x in from..to {
            let site = |x| u.index(x, y, z) as u32;
            s.segments.push([site(x), site(x + 1), 0, x - from + 1]);
        }
        s.add_tip(u.index(to, y, z) as u32);
        // A second sprout that stopped by anastomosis, a quarter of the way up y.
        s.add_tip(u.index(u.nx / 2, u.ny / 4, z) as u32);
        s.tips[1].alive = 0;
        s.counters[Counter::Anastomoses as usize] = 1;
        s.step = 40;
        (cfg, s)
    }

    /// (column, row) of every pixel of colour `rgb` above the legend.
    fn pixels_of(img: &RgbImage, rgb: [u8; 3]) -> Vec<(usize, usize)> {
        (0..img.height - 40)
            .flat_map(|y| (0..img.width).map(move |x| (x, y)))
            .filter(|&(x, y)| img.get(x, y) == Some(rgb))
            .collect()
    }

    #[test]
    fn a_straight_vessel_is_a_straight_line_of_the_vessel_colour() {
        let (cfg, s) = straight_sprout([33, 33, 1]);
        let path = std::env::temp_dir().join(format!("petri-vessels-{}.png", std::process::id()));
        write_picture(&[&path], &cfg, 0.01, &s).unwrap();
        let img = RgbImage::load_png(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(img.width, 760);
        let vessel = pixels_of(&img, VESSEL);
        assert!(!vessel.is_empty());
        // One horizontal band, two pixels thick, half the plot wide.
        let rows: Vec<usize> = vessel.iter().map(|p| p.1).collect();
        let (top, bottom) = (*rows.iter().min().unwrap(), *rows.iter().max().unwrap());
        assert!(bottom - top <= 2, "vessel rows {top}..={bottom}");
        let cols: Vec<usize> = vessel.iter().map(|p| p.0).collect();
        let (left, right) = (*cols.iter().min().unwrap(), *cols.iter().max().unwrap());
        assert!((250..350).contains(&(right - left)), "{left}..{right}");
        // Every pixel of the band between its ends is vessel; above and below it none is.
        let mid = (top + bottom) / 2;
        assert!((left..=right).all(|x| img.get(x, mid) == Some(VESSEL)));
        for x in left..=right {
            for y in [top - 4, bottom + 4] {
                assert_ne!(img.get(x, y), Some(VESSEL), "({x}, {y})");
            }
        }
        // The live tip sits at the right end.
        let tip = pixels_of(&img, TIP);
        assert!(!tip.is_empty());
        assert!(tip
            .iter()
            .all(|p| p.0.abs_diff(right) <= 8 && p.1.abs_diff(mid) <= 4));
        // The stopped tip is a ring below the vessel's middle (at y = 1/4, the vessel at 1/2).
        let ring = pixels_of(&img, JOINED);
        assert!(!ring.is_empty());
        let centre = (left + right) / 2;
        assert!(ring
            .iter()
            .all(|p| p.0.abs_diff(centre) <= 8 && p.1 > mid + 100));
    }

    /// The legend counts as observables.csv does (the counters), also a tip that anastomosed on
    /// the tumour's plane; the title gives the occupied sites times h; axes carry their unit.
    #[test]
    fn the_legend_counts_what_observables_csv_counts() {
        let (cfg, mut s) = straight_sprout([33, 33, 1]);
        let u = AngioUniforms::new(&cfg, 0.01);
        s.add_tip(u.index(u.nx - 1, u.ny / 2, 0) as u32);
        s.tips[2].alive = 0;
        s.counters[Counter::Anastomoses as usize] = 2;
        let fig = vessel_figure(&cfg, 0.01, &s);
        let panel = &fig.panels[0];
        let labels: Vec<_> = panel
            .points
            .iter()
            .filter_map(|p| p.label.clone())
            .collect();
        assert_eq!(labels, ["anastomoses (2)", "live tips (1)"]);
        // Three sites occupied (the tips' own; the test's segments mark none), h = 1/32.
        assert!(fig.title.ends_with("network 0.09 L"), "{}", fig.title);
        assert_eq!(
            (panel.x.label.as_str(), panel.y.label.as_str()),
            ("x / L", "y / L")
        );
    }

    #[test]
    fn the_colour_bar_runs_through_the_scale_of_c() {
        let (cfg, s) = straight_sprout([33, 33, 1]);
        let img = vessel_figure(&cfg, 0.01, &s).render().unwrap();
        let pale: Vec<[u8; 3]> = (0..=512).map(|k| pale_viridis(k as f32 / 512.0)).collect();
        let mid = img.height / 2;
        let bar_x = (0..img.width)
            .rev()
            .find(|&x| pale.contains(&img.get(x, mid).unwrap()))
            .unwrap();
        assert!(bar_x > img.width - 110, "bar at column {bar_x}");
        // Top to bottom, c falls: green (rising along viridis) falls.
        let greens: Vec<u8> = (0..img.height)
            .map(|y| img.get(bar_x, y).unwrap())
            .filter(|c| pale.contains(c))
            .map(|c| c[1])
            .collect();
        assert!(greens.len() > 300, "a bar of {} px", greens.len());
        assert!(greens.windows(2).all(|w| w[0] >= w[1]));
        assert!(greens[0] > greens[greens.len() - 1] + 100);
    }

    #[test]
    fn a_3d_grid_is_shown_from_the_top_and_the_side() {
        let (cfg, s) = straight_sprout([17, 17, 17]);
        let img = vessel_figure(&cfg, 0.01, &s).render().unwrap();
        assert_eq!(img.width, 1100);
        // The vessel runs along x in the middle of y and z: a line in each view, level.
        let vessel = pixels_of(&img, VESSEL);
        let half = img.width / 2;
        let left: Vec<_> = vessel.iter().filter(|p| p.0 < half).collect();
        let right: Vec<_> = vessel.iter().filter(|p| p.0 >= half).collect();
        assert!(left.len() > 200 && right.len() > 200);
        let rows = |v: &[&(usize, usize)]| {
            let r: Vec<usize> = v.iter().map(|p| p.1).collect();
            (*r.iter().min().unwrap(), *r.iter().max().unwrap())
        };
        assert_eq!(rows(&left), rows(&right));
    }
}
