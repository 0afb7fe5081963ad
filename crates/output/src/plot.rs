//! Figures a person reads: a title, one or more panels side by side (axes in model units with
//! their labels; a heat map behind shaded bands, line segments and points), one colour bar for
//! the heat maps and a legend of the labelled series; [`Figure::point_views`] makes views of
//! 3-D point sets (a tissue seen from the side). Drawn with `plotters` into memory and saved
//! through [`RgbImage::save_png`], so a file is complete or absent;
//! [`Figure::render_with_layout`] also says where each plot landed, to read values back.
//!
//! Text is set in DejaVu Sans, embedded in this crate (fonts/, with its licence): no system
//! font is looked up, so pictures look the same on every machine, a bare one included.

use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{check_len, OutputError};
use crate::picture::RgbImage;

/// An 8-bit RGB colour.
pub type Rgb = [u8; 3];

/// A picture of one or more panels side by side.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Size of the picture in pixels.
    pub width: u32,
    pub height: u32,
    /// Written across the top.
    pub title: String,
    pub panels: Vec<Panel>,
    /// The scale of every panel's heat map, shown as a colour bar at the right.
    pub color_scale: Option<ColorScale>,
}

/// A colour scale: `lo` maps to `map(0)`, `hi` to `map(1)`.
#[derive(Clone, Debug)]
pub struct ColorScale {
    /// Written along the colour bar.
    pub label: String,
    pub lo: f64,
    pub hi: f64,
    /// Colour of `t` in [0, 1] (e.g. [`crate::colormap_viridis`]).
    pub map: fn(f32) -> Rgb,
}

/// One axis: its label (quantity and unit) and the range shown.
#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub lo: f64,
    pub hi: f64,
}

/// One set of axes and what is drawn on them, bottom layer first: heat map, bands, lines,
/// points.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Written above the panel.
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    /// One unit is as long on both axes (for maps of space); the panel shrinks to keep it.
    pub equal_aspect: bool,
    pub heat_map: Option<HeatMap>,
    pub bands: Vec<Band>,
    pub lines: Vec<Lines>,
    pub points: Vec<Points>,
}

/// Values on a regular grid of `nx` x `ny` cells spanning `x` and `y`, coloured by the figure's
/// [`ColorScale`]. `values[i + nx * j]` fills cell `i` along x, `j` along y (`j = 0` at
/// `y.start`); the parts of cells outside the panel's axes are not drawn. NaN is drawn grey.
#[derive(Clone, Debug)]
pub struct HeatMap {
    pub values: Vec<f32>,
    pub nx: usize,
    pub ny: usize,
    pub x: Range<f64>,
    pub y: Range<f64>,
}

/// A shaded area of one colour between a lower and an upper curve (mean +- sd, a confidence
/// interval): `points` are `(x, lo, hi)`, joined by straight lines in order of x. It is drawn at
/// `opacity` over what lies below, so overlapping bands stay visible; values beyond the panel's
/// y axis are drawn at its ends.
#[derive(Clone, Debug)]
pub struct Band {
    /// Shown in the legend when given.
    pub label: Option<String>,
    pub color: Rgb,
    /// In (0, 1]; 1 hides what lies below.
    pub opacity: f64,
    pub points: Vec<(f64, f64, f64)>,
}

/// Straight line segments of one style; each segment may have its own colour.
#[derive(Clone, Debug)]
pub struct Lines {
    /// Shown in the legend when given.
    pub label: Option<String>,
    pub color: Rgb,
    /// Width in pixels.
    pub width: u32,
    pub segments: Vec<[(f64, f64); 2]>,
    /// One colour per segment in place of `color` (a shade by depth or age, say).
    pub colors: Option<Vec<Rgb>>,
}

/// Dots of one style.
#[derive(Clone, Debug)]
pub struct Points {
    /// Shown in the legend when given.
    pub label: Option<String>,
    pub color: Rgb,
    /// Radius in pixels.
    pub radius: u32,
    /// Filled dots, or rings.
    pub filled: bool,
    pub points: Vec<(f64, f64)>,
}

impl Lines {
    /// Segments of one colour, without a label.
    pub fn new(color: Rgb, width: u32, segments: Vec<[(f64, f64); 2]>) -> Self {
        Self {
            label: None,
            color,
            width,
            segments,
            colors: None,
        }
    }

    /// The polyline through `points` (a curve, a time series) as segments.
    pub fn polyline(color: Rgb, width: u32, points: &[(f64, f64)]) -> Self {
        Self::new(
            color,
            width,
            points.windows(2).map(|p| [p[0], p[1]]).collect(),
        )
    }

    /// The same, shown in the legend as `label`.
    pub fn labelled(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
}

impl Band {
    /// A band of `color` at opacity 0.25, without a label.
    pub fn new(color: Rgb, points: Vec<(f64, f64, f64)>) -> Self {
        Self {
            label: None,
            color,
            opacity: 0.25,
            points,
        }
    }

    /// The same, shown in the legend as `label`.
    pub fn labelled(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// The outline: the upper curve left to right, then the lower one back, clamped to `y`.
    fn polygon(&self, y: &Range<f64>) -> Vec<(f64, f64)> {
        let clamp = |v: f64| v.clamp(y.start, y.end);
        let upper = self.points.iter().map(|&(x, _, hi)| (x, clamp(hi)));
        let lower = self.points.iter().rev().map(|&(x, lo, _)| (x, clamp(lo)));
        upper.chain(lower).collect()
    }
}

impl Points {
    /// Filled dots of one colour, without a label.
    pub fn new(color: Rgb, radius: u32, points: Vec<(f64, f64)>) -> Self {
        Self {
            label: None,
            color,
            radius,
            filled: true,
            points,
        }
    }

    /// The same, shown in the legend as `label`.
    pub fn labelled(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
}

impl Panel {
    /// A panel with these axes and nothing on them yet.
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Self {
        Self {
            title: title.into(),
            x,
            y,
            equal_aspect: false,
            heat_map: None,
            bands: Vec::new(),
            lines: Vec::new(),
            points: Vec::new(),
        }
    }
}

impl Axis {
    pub fn new(label: impl Into<String>, lo: f64, hi: f64) -> Self {
        Self {
            label: label.into(),
            lo,
            hi,
        }
    }
}

/// A labelled set of points in 3-D, drawn as filled discs of one colour by [`Figure::point_views`].
#[derive(Clone, Debug)]
pub struct PointSet {
    /// Shown in the legend.
    pub label: String,
    pub color: Rgb,
    pub points: Vec<[f64; 3]>,
}

/// One view of [`Figure::point_views`]: the coordinates drawn across and up (0, 1, 2 for x, y,
/// z) and their axes.
#[derive(Clone, Debug)]
pub struct View {
    pub title: String,
    pub across: (usize, Axis),
    pub up: (usize, Axis),
}

impl Figure {
    /// Points in 3-D seen along coordinate axes: one panel per view (one model unit as long
    /// across as up), each set drawn as discs of `disc_radius` model units (1 pixel at least)
    /// in its colour and named in the legend by its label. The height fits the panels. A side view of a tissue (x across, z up) is one such view.
    pub fn point_views(
        title: impl Into<String>,
        width: u32,
        views: &[View],
        sets: &[PointSet],
        disc_radius: f64,
    ) -> Result<Figure, OutputError> {
        if let Some(bad) = views.iter().find(|v| v.across.0 > 2 || v.up.0 > 2) {
            return Err(OutputError::InvalidArgument(format!(
                "view '{}' draws coordinate {} across and {} up; coordinates are 0, 1, 2",
                bad.title, bad.across.0, bad.up.0
            )));
        }
        let cell = width / views.len().max(1) as u32;
        let plot_width = cell.saturating_sub(2 * MARGIN + Y_LABEL_AREA) as f64;
        let panels = views
            .iter()
            .map(|v| {
                let (a, b) = (v.across.0, v.up.0);
                let mut panel = Panel::new(v.title.clone(), v.across.1.clone(), v.up.1.clone());
                panel.equal_aspect = true;
                let per_unit = plot_width / (panel.x.hi - panel.x.lo);
                let radius = (disc_radius * per_unit).round().max(1.0) as u32;
                for set in sets {
                    let at = set.points.iter().map(|p| (p[a], p[b])).collect();
                    panel
                        .points
                        .push(Points::new(set.color, radius, at).labelled(set.label.clone()));
                }
                panel
            })
            .collect();
        let mut figure = Figure {
            width,
            height: 0,
            title: title.into(),
            panels,
            color_scale: None,
        };
        figure.height = figure.fitted_height();
        Ok(figure)
    }
}

// Layout in pixels.
const TITLE_HEIGHT: u32 = 40;
const TITLE_FONT: f64 = 22.0;
const PANEL_TITLE_HEIGHT: u32 = 26;
const PANEL_TITLE_FONT: f64 = 17.0;
/// Height of one row of the legend.
const LEGEND_HEIGHT: u32 = 34;
const LABEL_FONT: f64 = 15.0;
const TICK_FONT: f64 = 13.0;
const MARGIN: u32 = 12;
const X_LABEL_AREA: u32 = 46;
const Y_LABEL_AREA: u32 = 60;
const BAR_WIDTH: u32 = 110;
const BAR_TICKS_AREA: u32 = 70;
const FRAME: RGBColor = RGBColor(40, 40, 40);
/// Largest radius of a dot in the legend.
const LEGEND_DOT: u32 = 7;

/// The family name the embedded font is registered under.
const FAMILY: &str = "sans-serif";
const DEJAVU_SANS: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// Registers the embedded font with plotters once per process.
fn font_ready() -> Result<(), OutputError> {
    static READY: OnceLock<bool> = OnceLock::new();
    let ok = *READY.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| OutputError::Plot("the embedded font DejaVu Sans does not load".into()))
}

fn text_style(size: f64) -> TextStyle<'static> {
    TextStyle::from((FAMILY, size).into_font()).color(&BLACK)
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

fn plot_err(e: impl std::fmt::Display) -> OutputError {
    OutputError::Plot(e.to_string())
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// A legend entry: the label and how its sample is drawn.
enum Sample {
    Line(Rgb, u32),
    Dot(Rgb, u32, bool),
    /// A filled square of a colour at an opacity (a band).
    Patch(Rgb, f64),
}

/// Where a panel's plotting area (or the colour bar's, x from 0 to 1 across it) landed in a
/// rendered picture, for reading values back from it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotArea {
    /// Pixel columns and rows, the frame included.
    pub cols: Range<i32>,
    pub rows: Range<i32>,
    /// The axes' ranges.
    pub x: Range<f64>,
    pub y: Range<f64>,
}

impl PlotArea {
    /// The pixel (column, row) at which the figure draws the point `(x, y)`: the same mapping
    /// as plotters', so a test can look up the colour of a data point.
    pub fn pixel(&self, x: f64, y: f64) -> (i32, i32) {
        use plotters::coord::types::RangedCoordf64;
        let coord: Cartesian2d<RangedCoordf64, RangedCoordf64> = Cartesian2d::new(
            self.x.clone(),
            self.y.clone(),
            pixel_ranges(&self.cols, &self.rows),
        );
        coord.translate(&(x, y))
    }
}

/// The screen ranges plotters maps an area's axes onto: the last column and row are the
/// ends, and y runs upwards.
fn pixel_ranges(cols: &Range<i32>, rows: &Range<i32>) -> (Range<i32>, Range<i32>) {
    (cols.start..cols.end - 1, rows.end - 1..rows.start)
}

/// A rendered figure and where its plots landed.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub image: RgbImage,
    /// One per panel, in order.
    pub panels: Vec<PlotArea>,
    /// The colour bar (its x spans 0 to 1, its y the colour scale), when the figure has one.
    pub color_bar: Option<PlotArea>,
}

impl Figure {
    /// Draws the figure into a picture.
    pub fn render(&self) -> Result<RgbImage, OutputError> {
        Ok(self.render_with_layout()?.image)
    }

    /// Draws the figure into a picture and says where each panel's plot and the colour bar
    /// landed.
    pub fn render_with_layout(&self) -> Result<Rendered, OutputError> {
        self.check()?;
        font_ready()?;
        let (w, h) = (self.width, self.height);
        let mut buf = vec![255u8; w as usize * h as usize * 3];
        let mut areas = Vec::new();
        let mut bar_area = None;
        {
            let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            let (top, rest) = root.split_vertically(TITLE_HEIGHT);
            centered_text(&top, &self.title, TITLE_FONT)?;
            let legend = self.legend();
            let rows = legend_rows(&legend, w);
            let (body, bottom) = if legend.is_empty() {
                (rest, None)
            } else {
                let (_, rest_h) = rest.dim_in_pixel();
                let height = LEGEND_HEIGHT * rows.len() as u32;
                let (body, bottom) = rest.split_vertically(rest_h.saturating_sub(height));
                (body, Some(bottom))
            };
            let (body_w, _) = body.dim_in_pixel();
            let (panels, bar) = match &self.color_scale {
                Some(_) => {
                    let (p, b) = body.split_horizontally(body_w.saturating_sub(BAR_WIDTH));
                    (p, Some(b))
                }
                None => (body, None),
            };
            let cells = panels.split_evenly((1, self.panels.len()));
            for (panel, cell) in self.panels.iter().zip(&cells) {
                areas.push(panel.draw(cell, self.color_scale.as_ref())?);
            }
            if let (Some(scale), Some(bar)) = (&self.color_scale, bar) {
                bar_area = Some(color_bar(&bar, scale, areas[0].rows.clone())?);
            }
            if let Some(bottom) = bottom {
                draw_legend(&bottom, &legend, &rows)?;
            }
            root.present().map_err(plot_err)?;
        }
        let pixels = buf.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
        let image = RgbImage {
            width: w as usize,
            height: h as usize,
            pixels,
        };
        Ok(Rendered {
            image,
            panels: areas,
            color_bar: bar_area,
        })
    }

    /// The height at which the panels fill their share of the width, keeping the tallest
    /// panel's ratio of axis lengths: no empty band above or below panels of equal aspect.
    pub fn fitted_height(&self) -> u32 {
        let bar = if self.color_scale.is_some() {
            BAR_WIDTH
        } else {
            0
        };
        let cell = self.width.saturating_sub(bar) / self.panels.len().max(1) as u32;
        let plot_width = cell.saturating_sub(2 * MARGIN + Y_LABEL_AREA) as f64;
        let ratio = self
            .panels
            .iter()
            .map(|p| (p.y.hi - p.y.lo) / (p.x.hi - p.x.lo))
            .filter(|r| r.is_finite())
            .fold(0.0, f64::max);
        let legend = LEGEND_HEIGHT * legend_rows(&self.legend(), self.width).len() as u32;
        let frame = TITLE_HEIGHT + legend + PANEL_TITLE_HEIGHT + 2 * MARGIN + X_LABEL_AREA;
        frame + (plot_width * ratio).round() as u32
    }

    /// Draws the figure and saves it as a PNG file.
    pub fn save_png(&self, path: &Path) -> Result<(), OutputError> {
        self.render()?.save_png(path)
    }

    /// Refuses what cannot be drawn, naming it.
    fn check(&self) -> Result<(), OutputError> {
        let bad = |what: String| Err(OutputError::InvalidArgument(what));
        if self.panels.is_empty() {
            return bad("a figure needs at least one panel".into());
        }
        let min_w = BAR_WIDTH + self.panels.len() as u32 * (Y_LABEL_AREA + 2 * MARGIN + 20);
        let min_h = TITLE_HEIGHT + LEGEND_HEIGHT + PANEL_TITLE_HEIGHT + X_LABEL_AREA + 60;
        if self.width < min_w || self.height < min_h {
            return bad(format!(
                "a figure of {} panels needs at least {min_w}x{min_h} pixels, got {}x{}",
                self.panels.len(),
                self.width,
                self.height
            ));
        }
        let range = |name: &str, lo: f64, hi: f64| {
            if lo.is_finite() && hi.is_finite() && lo < hi {
                Ok(())
            } else {
                bad(format!(
                    "{name} must be finite with lo < hi, got {lo}..{hi}"
                ))
            }
        };
        if let Some(s) = &self.color_scale {
            range("colour scale", s.lo, s.hi)?;
        }
        for p in &self.panels {
            range(&format!("panel '{}' x axis", p.title), p.x.lo, p.x.hi)?;
            range(&format!("panel '{}' y axis", p.title), p.y.lo, p.y.hi)?;
            if let Some(m) = &p.heat_map {
                if self.color_scale.is_none() {
                    return bad(format!(
                        "panel '{}' has a heat map but the figure no colour scale",
                        p.title
                    ));
                }
                check_len("heat map values", m.nx.saturating_mul(m.ny), m.values.len())?;
                range("heat map x", m.x.start, m.x.end)?;
                range("heat map y", m.y.start, m.y.end)?;
            }
            for b in &p.bands {
                if !(b.opacity > 0.0 && b.opacity <= 1.0) {
                    return bad(format!(
                        "panel '{}': a band's opacity must be in (0, 1], got {}",
                        p.title, b.opacity
                    ));
                }
            }
            for l in &p.lines {
                if let Some(c) = &l.colors {
                    check_len("line segment colours", l.segments.len(), c.len())?;
                }
            }
        }
        Ok(())
    }

    /// The labelled series of all panels, each label once, in order.
    fn legend(&self) -> Vec<(String, Sample)> {
        let mut entries: Vec<(String, Sample)> = Vec::new();
        for p in &self.panels {
            let bands = p.bands.iter().filter_map(|b| {
                let sample = Sample::Patch(b.color, b.opacity);
                b.label.clone().map(|s| (s, sample))
            });
            let lines = p.lines.iter().filter_map(|l| {
                let sample = Sample::Line(l.color, l.width.max(2));
                l.label.clone().map(|s| (s, sample))
            });
            let points = p.points.iter().filter_map(|d| {
                // A sample of big discs (model-sized) stays the size of the text.
                let sample = Sample::Dot(d.color, d.radius.clamp(3, LEGEND_DOT), d.filled);
                d.label.clone().map(|s| (s, sample))
            });
            for (label, sample) in bands.chain(lines).chain(points) {
                if !entries.iter().any(|(l, _)| *l == label) {
                    entries.push((label, sample));
                }
            }
        }
        entries
    }
}

impl Panel {
    /// Draws the panel into `cell`; returns where its plotting area landed.
    fn draw(&self, cell: &Area, scale: Option<&ColorScale>) -> Result<PlotArea, OutputError> {
        let (title, area) = cell.split_vertically(PANEL_TITLE_HEIGHT);
        centered_text(&title, &self.title, PANEL_TITLE_FONT)?;
        let area = if self.equal_aspect {
            self.fit_aspect(area)
        } else {
            area
        };
        let (x, y) = (self.x.lo..self.x.hi, self.y.lo..self.y.hi);
        let mut chart = ChartBuilder::on(&area)
            .margin(MARGIN)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(Y_LABEL_AREA)
            .build_cartesian_2d(x.clone(), y.clone())
            .map_err(plot_err)?;
        if let (Some(map), Some(scale)) = (&self.heat_map, scale) {
            let span = (scale.hi - scale.lo) as f32;
            let (dx, dy) = (
                (map.x.end - map.x.start) / map.nx as f64,
                (map.y.end - map.y.start) / map.ny as f64,
            );
            let cells = (0..map.ny).flat_map(|j| (0..map.nx).map(move |i| (i, j)));
            let rects = cells.filter_map(|(i, j)| {
                let x0 = (map.x.start + i as f64 * dx).max(x.start);
                let x1 = (map.x.start + (i + 1) as f64 * dx).min(x.end);
                let y0 = (map.y.start + j as f64 * dy).max(y.start);
                let y1 = (map.y.start + (j + 1) as f64 * dy).min(y.end);
                if x0 >= x1 || y0 >= y1 {
                    return None;
                }
                let v = map.values[i + map.nx * j];
                let colour = if v.is_nan() {
                    crate::NAN_COLOR
                } else {
                    (scale.map)((v - scale.lo as f32) / span)
                };
                Some(Rectangle::new([(x0, y0), (x1, y1)], rgb(colour).filled()))
            });
            chart.draw_series(rects).map_err(plot_err)?;
        }
        for b in &self.bands {
            let style = rgb(b.color).mix(b.opacity).filled();
            let outline = Polygon::new(b.polygon(&y), style);
            chart.draw_series([outline]).map_err(plot_err)?;
        }
        for l in &self.lines {
            let colour = |k: usize| l.colors.as_ref().map_or(l.color, |c| c[k]);
            let paths =
                l.segments.iter().enumerate().map(|(k, s)| {
                    PathElement::new(s.to_vec(), rgb(colour(k)).stroke_width(l.width))
                });
            chart.draw_series(paths).map_err(plot_err)?;
        }
        for d in &self.points {
            let style = match d.filled {
                true => rgb(d.color).filled(),
                false => rgb(d.color).stroke_width(2),
            };
            let dots = d.points.iter().map(|&p| Circle::new(p, d.radius, style));
            chart.draw_series(dots).map_err(plot_err)?;
        }
        chart
            .configure_mesh()
            .disable_mesh()
            .axis_style(FRAME)
            .x_labels(6)
            .y_labels(6)
            .label_style(text_style(TICK_FONT))
            .axis_desc_style(text_style(LABEL_FONT))
            .x_desc(self.x.label.as_str())
            .y_desc(self.y.label.as_str())
            .draw()
            .map_err(plot_err)?;
        let plot = chart.plotting_area();
        let (cols, rows) = plot.get_pixel_range();
        // Frame the plot on all four sides (the axes draw only the left and bottom).
        let frame = Rectangle::new(
            [(cols.start, rows.start), (cols.end - 1, rows.end - 1)],
            FRAME.stroke_width(1),
        );
        cell.use_screen_coord().draw(&frame).map_err(plot_err)?;
        Ok(PlotArea { cols, rows, x, y })
    }

    /// The part of `area` whose plotting area has the axes' ratio of lengths: as wide as it
    /// can be, centred across and at the top.
    fn fit_aspect<'a>(&self, area: Area<'a>) -> Area<'a> {
        let (w, h) = area.dim_in_pixel();
        let (frame_w, frame_h) = (2 * MARGIN + Y_LABEL_AREA, 2 * MARGIN + X_LABEL_AREA);
        let (pw, ph) = (
            w.saturating_sub(frame_w) as f64,
            h.saturating_sub(frame_h) as f64,
        );
        let ratio = (self.y.hi - self.y.lo) / (self.x.hi - self.x.lo);
        let (fw, fh) = if ph > pw * ratio {
            (pw, pw * ratio)
        } else {
            (ph / ratio, ph)
        };
        let (nw, nh) = (fw.round() as u32 + frame_w, fh.round() as u32 + frame_h);
        area.shrink(((w.saturating_sub(nw) / 2), 0), (nw.min(w), nh.min(h)))
    }
}

/// The colour bar of `scale`, its plotting area spanning `rows` (those of the panels); returns
/// where its plotting area landed.
fn color_bar(area: &Area, scale: &ColorScale, rows: Range<i32>) -> Result<PlotArea, OutputError> {
    let (_, top) = area.get_base_pixel();
    let (_, h) = area.dim_in_pixel();
    let above = (rows.start - top).max(0) as u32;
    let below = (top + h as i32 - rows.end).max(0) as u32;
    let mut chart = ChartBuilder::on(area)
        .margin_top(above)
        .margin_bottom(below)
        .margin_left(MARGIN)
        .margin_right(4)
        .right_y_label_area_size(BAR_TICKS_AREA)
        .build_cartesian_2d(0f64..1f64, scale.lo..scale.hi)
        .map_err(plot_err)?;
    const STEPS: usize = 256;
    let dv = (scale.hi - scale.lo) / STEPS as f64;
    let strips = (0..STEPS).map(|k| {
        let t = (k as f32 + 0.5) / STEPS as f32;
        let v0 = scale.lo + k as f64 * dv;
        Rectangle::new([(0.0, v0), (1.0, v0 + dv)], rgb((scale.map)(t)).filled())
    });
    chart.draw_series(strips).map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .axis_style(FRAME)
        .y_labels(6)
        .label_style(text_style(TICK_FONT))
        .draw()
        .map_err(plot_err)?;
    let (cols, rows) = chart.plotting_area().get_pixel_range();
    let frame = Rectangle::new(
        [(cols.start, rows.start), (cols.end - 1, rows.end - 1)],
        FRAME.stroke_width(1),
    );
    let screen = area.use_screen_coord();
    screen.draw(&frame).map_err(plot_err)?;
    // The label above the bar, level, where the panels have their titles.
    let at = (
        (cols.start + cols.end) / 2,
        rows.start - PANEL_TITLE_HEIGHT as i32 / 2,
    );
    let style = text_style(LABEL_FONT).pos(Pos::new(HPos::Center, VPos::Center));
    screen
        .draw(&Text::new(scale.label.as_str(), at, style))
        .map_err(plot_err)?;
    Ok(PlotArea {
        cols,
        rows,
        x: 0.0..1.0,
        y: scale.lo..scale.hi,
    })
}

/// Width of a legend entry's sample and the gaps beside it.
const LEGEND_SAMPLE: i32 = 28;
const LEGEND_GAP: i32 = 28;

/// The legend's entries in rows that fit `width` pixels, in order: each row the entries'
/// indices and widths (an entry wider than the figure gets a row of its own). No rows for no
/// entries.
fn legend_rows(entries: &[(String, Sample)], width: u32) -> Vec<Vec<(usize, i32)>> {
    let font = text_style(LABEL_FONT).font;
    let mut rows: Vec<Vec<(usize, i32)>> = Vec::new();
    let mut used = 0;
    for (i, (label, _)) in entries.iter().enumerate() {
        let (w, _) = font.box_size(label).unwrap_or((0, 0));
        let entry = LEGEND_SAMPLE + 6 + w as i32;
        match rows.last_mut() {
            Some(row) if used + LEGEND_GAP + entry <= width as i32 - 2 * MARGIN as i32 => {
                row.push((i, entry));
                used += LEGEND_GAP + entry;
            }
            _ => {
                rows.push(vec![(i, entry)]);
                used = entry;
            }
        }
    }
    rows
}

/// The legend in `rows` (of [`legend_rows`]), each row centred: a sample of each series and
/// its label.
fn draw_legend(
    area: &Area,
    entries: &[(String, Sample)],
    rows: &[Vec<(usize, i32)>],
) -> Result<(), OutputError> {
    const SAMPLE: i32 = LEGEND_SAMPLE;
    let style = text_style(LABEL_FONT);
    let (w, _) = area.dim_in_pixel();
    for (r, row) in rows.iter().enumerate() {
        let total: i32 =
            row.iter().map(|&(_, width)| width).sum::<i32>() + LEGEND_GAP * (row.len() as i32 - 1);
        let mut x = (w as i32 - total).max(0) / 2;
        let y = (LEGEND_HEIGHT as i32) * r as i32 + LEGEND_HEIGHT as i32 / 2;
        for &(i, width) in row {
            let (label, sample) = &entries[i];
            match *sample {
                Sample::Line(c, width) => area
                    .draw(&PathElement::new(
                        vec![(x, y), (x + SAMPLE, y)],
                        rgb(c).stroke_width(width),
                    ))
                    .map_err(plot_err)?,
                Sample::Dot(c, r, filled) => {
                    let style = match filled {
                        true => rgb(c).filled(),
                        false => rgb(c).stroke_width(2),
                    };
                    area.draw(&Circle::new((x + SAMPLE / 2, y), r, style))
                        .map_err(plot_err)?
                }
                Sample::Patch(c, opacity) => {
                    let half = LEGEND_DOT as i32;
                    let square = [
                        (x + SAMPLE / 2 - half, y - half),
                        (x + SAMPLE / 2 + half, y + half),
                    ];
                    area.draw(&Rectangle::new(square, rgb(c).mix(opacity).filled()))
                        .map_err(plot_err)?
                }
            }
            let text = Text::new(
                label.clone(),
                (x + SAMPLE + 6, y),
                style.pos(Pos::new(HPos::Left, VPos::Center)),
            );
            area.draw(&text).map_err(plot_err)?;
            x += width + LEGEND_GAP;
        }
    }
    Ok(())
}

/// `text` centred in `area`.
fn centered_text(area: &Area, text: &str, size: f64) -> Result<(), OutputError> {
    let (w, h) = area.dim_in_pixel();
    let style = text_style(size).pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new(text, (w as i32 / 2, h as i32 / 2), style))
        .map_err(plot_err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{blend, colormap_viridis};

    fn figure(panels: Vec<Panel>) -> Figure {
        Figure {
            width: 800,
            height: 460,
            title: "test".into(),
            panels,
            color_scale: Some(ColorScale {
                label: "c".into(),
                lo: 0.0,
                hi: 1.0,
                map: colormap_viridis,
            }),
        }
    }

    fn unit_panel() -> Panel {
        let mut p = Panel::new("xy", Axis::new("x", 0.0, 1.0), Axis::new("y", 0.0, 1.0));
        p.equal_aspect = true;
        p
    }

    /// The first and last columns of the panels' frames on row `y` (the colour bar left out).
    fn frame_columns(img: &RgbImage, y: usize) -> (usize, usize) {
        let frame = [FRAME.0, FRAME.1, FRAME.2];
        let cols: Vec<usize> = (0..img.width - BAR_WIDTH as usize)
            .filter(|&x| img.get(x, y) == Some(frame))
            .collect();
        (cols[0], cols[cols.len() - 1])
    }

    fn is_viridis(c: Rgb) -> bool {
        (0..=512).any(|k| colormap_viridis(k as f32 / 512.0) == c)
    }

    #[test]
    fn a_heat_map_fills_the_plot_and_the_bar_shows_the_scale() {
        // c rises along x: the left of the plot is dark purple, the right yellow.
        let mut p = unit_panel();
        p.heat_map = Some(HeatMap {
            values: (0..100).map(|i| (i % 10) as f32 / 9.0).collect(),
            nx: 10,
            ny: 10,
            x: 0.0..1.0,
            y: 0.0..1.0,
        });
        let img = figure(vec![p]).render().unwrap();
        assert_eq!((img.width, img.height), (800, 460));
        let mid = img.height / 2;
        // Inside the frame the row runs from the first colour to the last, one band per cell.
        let (left, right) = frame_columns(&img, mid);
        let row: Vec<Rgb> = (left + 2..right - 1)
            .map(|x| img.get(x, mid).unwrap())
            .collect();
        assert_eq!(row[0], colormap_viridis(0.0));
        assert_eq!(row[row.len() - 1], colormap_viridis(1.0));
        let mut bands = row.clone();
        bands.dedup();
        assert_eq!(bands.len(), 10);
        // The colour bar: the rightmost column of viridis colours; top to bottom its green
        // falls monotonically (viridis's green rises with t).
        let bar_x = (0..img.width)
            .rev()
            .find(|&x| is_viridis(img.get(x, mid).unwrap()))
            .expect("a column of the bar");
        assert!(bar_x > img.width - BAR_WIDTH as usize);
        let greens: Vec<u8> = (0..img.height)
            .map(|y| img.get(bar_x, y).unwrap())
            .filter(|&c| is_viridis(c))
            .map(|c| c[1])
            .collect();
        assert!(greens.len() > 200, "bar of {} pixels", greens.len());
        assert!(greens.windows(2).all(|w| w[0] >= w[1]));
        assert!(greens[0] > 200 && *greens.last().unwrap() < 10);
    }

    #[test]
    fn lines_and_points_land_where_their_coordinates_say() {
        let mut p = unit_panel();
        p.lines
            .push(Lines::new([255, 0, 0], 1, vec![[(0.5, 0.0), (0.5, 1.0)]]));
        p.points
            .push(Points::new([0, 0, 255], 4, vec![(0.25, 0.25)]));
        let img = figure(vec![p]).render().unwrap();
        // The plotting area is the box inside the frame of the first panel.
        let mid = img.height / 2;
        let (left, right) = frame_columns(&img, mid);
        let red: Vec<usize> = (0..img.width)
            .filter(|&x| img.get(x, mid) == Some([255, 0, 0]))
            .collect();
        assert!(!red.is_empty());
        let centre = (left + right) as f64 / 2.0;
        assert!(
            red.iter().all(|&x| (x as f64 - centre).abs() <= 1.0),
            "{red:?}"
        );
        assert!(img.pixels.contains(&[0, 0, 255]));
    }

    #[test]
    fn the_legend_names_labelled_series_once() {
        let mut a = unit_panel();
        a.lines
            .push(Lines::new([1, 2, 3], 2, vec![[(0.1, 0.1), (0.2, 0.2)]]).labelled("vessels"));
        let b = a.clone();
        let fig = figure(vec![a, b]);
        let legend = fig.legend();
        assert_eq!(legend.len(), 1);
        assert_eq!(legend[0].0, "vessels");
        // The legend's line sample lies in the bottom strip.
        let img = fig.render().unwrap();
        let strip = img.height - LEGEND_HEIGHT as usize..img.height;
        assert!(strip
            .flat_map(|y| (0..img.width).map(move |x| (x, y)))
            .any(|(x, y)| img.get(x, y) == Some([1, 2, 3])));
    }

    #[test]
    fn equal_aspect_keeps_one_unit_as_long_on_both_axes() {
        let mut p = Panel::new("xz", Axis::new("x", 0.0, 1.0), Axis::new("z", 0.0, 0.35));
        p.equal_aspect = true;
        p.lines.push(Lines::new(
            [255, 0, 0],
            1,
            vec![[(0.0, 0.1), (1.0, 0.1)], [(0.1, 0.0), (0.1, 0.35)]],
        ));
        let img = figure(vec![p]).render().unwrap();
        let red: Vec<(usize, usize)> = (0..img.height)
            .flat_map(|y| (0..img.width).map(move |x| (x, y)))
            .filter(|&(x, y)| img.get(x, y) == Some([255, 0, 0]))
            .collect();
        let span = |v: Vec<usize>| v.iter().max().unwrap() - v.iter().min().unwrap();
        let across = span(red.iter().map(|p| p.0).collect());
        let up = span(red.iter().map(|p| p.1).collect());
        let ratio = up as f64 / across as f64;
        assert!((ratio - 0.35).abs() < 0.02, "ratio {ratio}");
    }

    #[test]
    fn a_fitted_height_leaves_no_empty_band() {
        let mut fig = figure(vec![unit_panel(), unit_panel()]);
        fig.height = fig.fitted_height();
        let img = fig.render().unwrap();
        // The frames' bottom edge lies just above the tick labels and the legend.
        let (left, _) = frame_columns(&img, img.height / 2);
        let frame = [FRAME.0, FRAME.1, FRAME.2];
        let bottom = (0..img.height)
            .rev()
            .find(|&y| img.get(left + 5, y) == Some(frame))
            .unwrap();
        let below = img.height - 1 - bottom;
        assert!(
            below <= (MARGIN + X_LABEL_AREA + 2) as usize,
            "{below} px below"
        );
    }

    #[test]
    fn point_views_draw_each_set_where_its_coordinates_say() {
        let red = [200, 30, 30];
        let blue = [30, 60, 200];
        // A low row of red points (z = 0.5) and one blue point high up (z = 3).
        let low: Vec<[f64; 3]> = (0..8).map(|i| [1.0 + i as f64, 2.0, 0.5]).collect();
        let sets = [
            PointSet {
                label: "basal".into(),
                color: red,
                points: low,
            },
            PointSet {
                label: "suprabasal".into(),
                color: blue,
                points: vec![[5.0, 7.0, 3.0]],
            },
        ];
        let views = [
            View {
                title: "x-z".into(),
                across: (0, Axis::new("x", 0.0, 10.0)),
                up: (2, Axis::new("z", 0.0, 4.0)),
            },
            View {
                title: "y-z".into(),
                across: (1, Axis::new("y", 0.0, 10.0)),
                up: (2, Axis::new("z", 0.0, 4.0)),
            },
        ];
        let fig = Figure::point_views("tissue", 1000, &views, &sets, 0.2).unwrap();
        let legend: Vec<String> = fig.legend().into_iter().map(|e| e.0).collect();
        assert_eq!(legend, ["basal", "suprabasal"]);
        let img = fig.render().unwrap();
        assert_eq!(img.width, 1000);
        assert!(img.height > 200 && img.height < 600, "{}", img.height);
        let body = img.height - LEGEND_HEIGHT as usize;
        let of = |c: Rgb| -> Vec<(usize, usize)> {
            (0..body)
                .flat_map(|y| (0..img.width).map(move |x| (x, y)))
                .filter(|&(x, y)| img.get(x, y) == Some(c))
                .collect()
        };
        let (reds, blues) = (of(red), of(blue));
        let half = img.width / 2;
        // In both panels the blue disc lies above the red row; the discs have some pixels.
        for side in [0..half, half..img.width] {
            let r: Vec<_> = reds.iter().filter(|p| side.contains(&p.0)).collect();
            let b: Vec<_> = blues.iter().filter(|p| side.contains(&p.0)).collect();
            assert!(
                r.len() > 8 * 20 && b.len() > 20,
                "{} red, {} blue",
                r.len(),
                b.len()
            );
            let lowest_blue = b.iter().map(|p| p.1).max().unwrap();
            let highest_red = r.iter().map(|p| p.1).min().unwrap();
            assert!(lowest_blue < highest_red, "{lowest_blue} vs {highest_red}");
        }
        // Seen along y the red row spreads across; seen along x it is one disc wide.
        let spread = |v: Vec<usize>| v.iter().max().unwrap() - v.iter().min().unwrap();
        let left = spread(reds.iter().filter(|p| p.0 < half).map(|p| p.0).collect());
        let right = spread(reds.iter().filter(|p| p.0 >= half).map(|p| p.0).collect());
        assert!(left > 200 && right < 20, "{left} {right}");
        // The legend strip shows both colours.
        let strip = body..img.height;
        for c in [red, blue] {
            assert!(strip
                .clone()
                .flat_map(|y| (0..img.width).map(move |x| (x, y)))
                .any(|(x, y)| img.get(x, y) == Some(c)));
        }
        let bad = View {
            title: "w".into(),
            across: (3, Axis::new("w", 0.0, 1.0)),
            up: (2, Axis::new("z", 0.0, 1.0)),
        };
        assert!(Figure::point_views("t", 800, &[bad], &sets, 0.1).is_err());
    }

    /// Each channel within `tol` of the other's.
    fn near(a: Rgb, b: Rgb, tol: u8) -> bool {
        a.iter().zip(&b).all(|(p, q)| p.abs_diff(*q) <= tol)
    }

    #[test]
    fn a_heat_map_cell_has_the_scale_colour_of_its_value() {
        // Values 0, 0.1, ..., 1.1 on a 4 x 3 grid; 1.1 lies above the scale and takes its top.
        let mut p = Panel::new("m", Axis::new("x", 0.0, 4.0), Axis::new("y", 0.0, 3.0));
        let values: Vec<f32> = (0..12).map(|k| k as f32 / 10.0).collect();
        p.heat_map = Some(HeatMap {
            values: values.clone(),
            nx: 4,
            ny: 3,
            x: 0.0..4.0,
            y: 0.0..3.0,
        });
        let drawn = figure(vec![p]).render_with_layout().unwrap();
        let (img, area) = (&drawn.image, &drawn.panels[0]);
        for (k, &v) in values.iter().enumerate() {
            let (i, j) = ((k % 4) as f64, (k / 4) as f64);
            let (x, y) = area.pixel(i + 0.5, j + 0.5);
            let got = img.get(x as usize, y as usize).unwrap();
            assert_eq!(got, colormap_viridis(v), "cell ({i}, {j}) of {v}");
        }
        // The bar, right of the panel, shows each value in its colour (inside the frame).
        let bar = drawn.color_bar.as_ref().expect("a colour bar");
        assert!(bar.cols.start > area.cols.end && bar.cols.end <= img.width as i32);
        let at = |v: f64| {
            let (x, y) = bar.pixel(0.5, v);
            img.get(x as usize, y as usize).unwrap()
        };
        for v in [0.02, 0.3, 0.7, 0.98] {
            assert!(near(at(v), colormap_viridis(v as f32), 2), "bar at {v}");
        }
    }

    #[test]
    fn a_band_covers_lo_to_hi_and_is_named_in_the_legend() {
        // lo = 0.2 + 0.2 x, hi = 0.6 + 0.2 x, given at x = 0, 0.5, 1.
        let colour = [200, 40, 40];
        let band = Band::new(
            colour,
            (0..3)
                .map(|k| {
                    let x = k as f64 / 2.0;
                    (x, 0.2 + 0.2 * x, 0.6 + 0.2 * x)
                })
                .collect(),
        )
        .labelled("mean ± sd");
        let mut p = Panel::new("b", Axis::new("x", 0.0, 1.0), Axis::new("y", 0.0, 1.0));
        p.bands.push(band);
        let mut fig = figure(vec![p]);
        fig.color_scale = None;
        let drawn = fig.render_with_layout().unwrap();
        let (img, area) = (&drawn.image, &drawn.panels[0]);
        // Over white the band is its colour at a quarter's opacity.
        let shade = blend([255; 3], colour, 0.25);
        for x in [0.1, 0.25, 0.5, 0.8] {
            let (col, top) = area.pixel(x, 0.6 + 0.2 * x);
            let (_, bottom) = area.pixel(x, 0.2 + 0.2 * x);
            let shaded: Vec<i32> = (area.rows.start + 1..area.rows.end - 1)
                .filter(|&y| near(img.get(col as usize, y as usize).unwrap(), shade, 2))
                .collect();
            let (first, last) = (shaded[0], shaded[shaded.len() - 1]);
            assert!(
                (first - top).abs() <= 1 && (last - bottom).abs() <= 1,
                "x = {x}: shaded rows {first}..{last}, expected {top}..{bottom}"
            );
            assert_eq!(shaded.len() as i32, last - first + 1, "no gap in the band");
        }
        let legend: Vec<String> = fig.legend().into_iter().map(|e| e.0).collect();
        assert_eq!(legend, ["mean ± sd"]);
        let strip = img.height - LEGEND_HEIGHT as usize..img.height;
        assert!(strip
            .flat_map(|y| (0..img.width).map(move |x| (x, y)))
            .any(|(x, y)| near(img.get(x, y).unwrap(), shade, 2)));
        // A band beyond the axis is drawn at its ends; an opacity of 0 is refused.
        let mut tall = unit_panel();
        tall.bands
            .push(Band::new(colour, vec![(0.0, -5.0, 5.0), (1.0, -5.0, 5.0)]));
        let drawn = figure(vec![tall.clone()]).render_with_layout().unwrap();
        let (col, row) = drawn.panels[0].pixel(0.5, 0.5);
        assert!(near(
            drawn.image.get(col as usize, row as usize).unwrap(),
            shade,
            2
        ));
        tall.bands[0].opacity = 0.0;
        let e = figure(vec![tall]).render().unwrap_err().to_string();
        assert!(e.contains("opacity"), "{e}");
    }

    #[test]
    fn a_long_legend_wraps_into_rows_that_fit_and_shows_every_entry() {
        // Twelve long labels cannot share one row of an 800-pixel figure.
        let mut p = unit_panel();
        let colours: Vec<Rgb> = (0..12u8).map(|k| [20 * k, 250 - 20 * k, 90]).collect();
        for (k, &c) in colours.iter().enumerate() {
            let line = Lines::polyline(c, 2, &[(0.0, 0.1), (1.0, 0.1)]);
            p.lines
                .push(line.labelled(format!("species number {k} (long name)")));
        }
        let mut fig = figure(vec![p]);
        fig.color_scale = None;
        let rows = legend_rows(&fig.legend(), fig.width);
        assert!(rows.len() >= 2, "{} rows", rows.len());
        let margin = 2 * MARGIN as i32;
        for row in &rows {
            let width: i32 =
                row.iter().map(|e| e.1).sum::<i32>() + LEGEND_GAP * (row.len() as i32 - 1);
            assert!(width <= fig.width as i32 - margin, "a row of {width} px");
        }
        let order: Vec<usize> = rows.iter().flatten().map(|e| e.0).collect();
        assert_eq!(order, (0..12).collect::<Vec<_>>());
        // Each row's strip shows the samples of its entries, and the panel keeps its height
        // above the legend.
        let drawn = fig.render_with_layout().unwrap();
        let img = &drawn.image;
        let top = img.height - LEGEND_HEIGHT as usize * rows.len();
        assert!(drawn.panels[0].rows.end as usize <= top);
        for (r, row) in rows.iter().enumerate() {
            let strip = top + r * LEGEND_HEIGHT as usize..top + (r + 1) * LEGEND_HEIGHT as usize;
            for &(k, _) in row {
                let seen = strip
                    .clone()
                    .flat_map(|y| (0..img.width).map(move |x| (x, y)))
                    .any(|(x, y)| img.get(x, y).unwrap() == colours[k]);
                assert!(seen, "entry {k} in legend row {r}");
            }
        }
        // One short entry stays one row.
        assert_eq!(legend_rows(&fig.legend()[..1], fig.width).len(), 1);
        assert!(legend_rows(&[], fig.width).is_empty());
    }

    #[test]
    fn bad_figures_are_refused_with_a_reason() {
        let mut p = unit_panel();
        p.heat_map = Some(HeatMap {
            values: vec![0.0; 3],
            nx: 2,
            ny: 2,
            x: 0.0..1.0,
            y: 0.0..1.0,
        });
        assert!(matches!(
            figure(vec![p]).render(),
            Err(OutputError::LengthMismatch { .. })
        ));
        let mut p = unit_panel();
        p.x.hi = p.x.lo;
        let e = figure(vec![p]).render().unwrap_err().to_string();
        assert!(e.contains("x axis"), "{e}");
        assert!(figure(vec![]).render().is_err());
        let mut small = figure(vec![unit_panel()]);
        small.width = 50;
        assert!(small.render().unwrap_err().to_string().contains("pixels"));
        let mut colours = unit_panel();
        let mut l = Lines::new([0; 3], 1, vec![[(0.0, 0.0), (1.0, 1.0)]]);
        l.colors = Some(vec![]);
        colours.lines.push(l);
        assert!(figure(vec![colours]).render().is_err());
    }
}
