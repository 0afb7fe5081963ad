//! Output files of a stochastic-kinetics run: mean and sd per species per time (CSV), the
//! individual trajectories (CSV), and a picture of mean +- sd over time (PNG).

use super::stats::EnsembleStats;
use crate::error::{invalid, Result};
use petri_output::{RgbImage, TimeSeriesWriter};
use std::path::Path;

/// `time, <species>-mean, <species>-sd, ...` (the DSMTS column names), one row per output time.
pub fn write_mean_sd_csv(path: &Path, stats: &EnsembleStats) -> Result<()> {
    let mut columns = vec!["time".to_string()];
    for s in &stats.species {
        columns.push(format!("{s}-mean"));
        columns.push(format!("{s}-sd"));
    }
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut csv = TimeSeriesWriter::create(path, &names)?;
    for (k, &t) in stats.times.iter().enumerate() {
        let mut row = vec![t];
        for s in 0..stats.species.len() {
            row.push(stats.mean[k][s]);
            row.push(stats.sd[k][s]);
        }
        csv.write_row(&row)?;
    }
    Ok(csv.flush()?)
}

/// `trajectory, time, <species>...`: `counts[trajectory][time][species]`.
pub fn write_trajectories_csv(
    path: &Path,
    species: &[String],
    times: &[f64],
    counts: &[Vec<Vec<u64>>],
) -> Result<()> {
    let mut columns = vec!["trajectory", "time"];
    columns.extend(species.iter().map(String::as_str));
    let mut csv = TimeSeriesWriter::create(path, &columns)?;
    for (i, trajectory) in counts.iter().enumerate() {
        for (k, row) in trajectory.iter().enumerate() {
            let mut values = vec![i as f64, times[k]];
            values.extend(row.iter().map(|&x| x as f64));
            csv.write_row(&values)?;
        }
    }
    Ok(csv.flush()?)
}

/// Line colours of the plot, in the order of the plotted species (then repeated).
pub const PLOT_COLOURS: [(&str, [u8; 3]); 8] = [
    ("blue", [31, 119, 180]),
    ("orange", [255, 127, 14]),
    ("green", [44, 160, 44]),
    ("red", [214, 39, 40]),
    ("purple", [148, 103, 189]),
    ("brown", [140, 86, 75]),
    ("pink", [227, 119, 194]),
    ("grey", [127, 127, 127]),
];

const PLOT_SIZE: (usize, usize) = (900, 500);
const MARGIN: usize = 40;

/// Mean (line) +- sd (shaded band) of `species` (indices into `stats.species`) against time,
/// on a white background with the axes at time 0 and count 0; the count axis runs to the
/// largest mean + sd shown. The colours are `PLOT_COLOURS` in order (the manifest names them:
/// the picture has no text).
pub fn plot_mean_sd(stats: &EnsembleStats, species: &[usize]) -> Result<RgbImage> {
    if species.is_empty() {
        return Err(invalid("plot species", "[]", "at least one species"));
    }
    let (w, h) = PLOT_SIZE;
    let mut img = RgbImage::new(w, h);
    img.pixels.fill([255, 255, 255]);
    let t_max = stats
        .times
        .last()
        .copied()
        .unwrap_or(0.0)
        .max(f64::MIN_POSITIVE);
    let y_max = species
        .iter()
        .flat_map(|&s| (0..stats.times.len()).map(move |k| (k, s)))
        .map(|(k, s)| stats.mean[k][s] + stats.sd[k][s])
        .fold(1.0f64, f64::max);
    let (plot_w, plot_h) = ((w - 2 * MARGIN) as f64, (h - 2 * MARGIN) as f64);
    let px = |t: f64| MARGIN as f64 + t / t_max * plot_w;
    let py = |y: f64| (h - MARGIN) as f64 - y.clamp(0.0, y_max) / y_max * plot_h;
    let put = |img: &mut RgbImage, x: f64, y: f64, c: [u8; 3]| {
        let (x, y) = (x.round(), y.round());
        if x >= 0.0 && y >= 0.0 && (x as usize) < w && (y as usize) < h {
            img.pixels[x as usize + w * y as usize] = c;
        }
    };
    for (i, &s) in species.iter().enumerate() {
        let colour = PLOT_COLOURS[i % PLOT_COLOURS.len()].1;
        let tint = colour.map(|c| 255 - (255 - c) / 4);
        // The band, one pixel column at a time, linearly interpolated between output times.
        for k in 1..stats.times.len() {
            let (t0, t1) = (stats.times[k - 1], stats.times[k]);
            let (x0, x1) = (px(t0).round() as i64, px(t1).round() as i64);
            for x in x0..=x1 {
                let f = if x1 > x0 {
                    (x - x0) as f64 / (x1 - x0) as f64
                } else {
                    0.0
                };
                let lerp = |a: f64, b: f64| a + (b - a) * f;
                let m = lerp(stats.mean[k - 1][s], stats.mean[k][s]);
                let sd = lerp(stats.sd[k - 1][s], stats.sd[k][s]);
                let (top, bottom) = (py(m + sd).round() as i64, py(m - sd).round() as i64);
                for y in top..=bottom {
                    let (xu, yu) = (x as usize, y as usize);
                    if x >= 0 && y >= 0 && xu < w && yu < h && img.pixels[xu + w * yu] == [255; 3] {
                        img.pixels[xu + w * yu] = tint;
                    }
                }
            }
        }
    }
    // Mean lines over the bands, 2 px thick, sampled finely enough to be continuous.
    for (i, &s) in species.iter().enumerate() {
        let colour = PLOT_COLOURS[i % PLOT_COLOURS.len()].1;
        for k in 1..stats.times.len() {
            let (x0, y0) = (px(stats.times[k - 1]), py(stats.mean[k - 1][s]));
            let (x1, y1) = (px(stats.times[k]), py(stats.mean[k][s]));
            let steps = ((x1 - x0).abs().max((y1 - y0).abs()) * 2.0).ceil().max(1.0) as usize;
            for q in 0..=steps {
                let f = q as f64 / steps as f64;
                let (x, y) = (x0 + (x1 - x0) * f, y0 + (y1 - y0) * f);
                put(&mut img, x, y, colour);
                put(&mut img, x, y + 1.0, colour);
            }
        }
    }
    // Axes: time along the bottom, count up the left.
    for x in MARGIN..w - MARGIN {
        img.pixels[x + w * (h - MARGIN)] = [0; 3];
    }
    for y in MARGIN..=h - MARGIN {
        img.pixels[MARGIN + w * y] = [0; 3];
    }
    Ok(img)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats() -> EnsembleStats {
        EnsembleStats {
            times: vec![0.0, 1.0, 2.0],
            species: vec!["A".into(), "B".into()],
            n: 4,
            mean: vec![vec![10.0, 0.0], vec![5.0, 2.0], vec![2.5, 3.0]],
            sd: vec![vec![0.0, 0.0], vec![1.5, 1.0], vec![1.0, 1.0]],
        }
    }

    #[test]
    fn csv_files_have_the_documented_columns() {
        let dir = std::env::temp_dir().join(format!("petri-ssa-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mean_sd.csv");
        write_mean_sd_csv(&path, &stats()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "time,A-mean,A-sd,B-mean,B-sd\n0,10,0,0,0\n1,5,1.5,2,1\n2,2.5,1,3,1\n"
        );
        let path = dir.join("trajectories.csv");
        let counts = vec![vec![vec![1, 2]], vec![vec![3, 4]]];
        write_trajectories_csv(&path, &stats().species, &[0.5], &counts).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "trajectory,time,A,B\n0,0.5,1,2\n1,0.5,3,4\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn plot_draws_lines_bands_and_axes() {
        let img = plot_mean_sd(&stats(), &[0, 1]).unwrap();
        assert_eq!((img.width, img.height), PLOT_SIZE);
        let count = |c: [u8; 3]| img.pixels.iter().filter(|&&p| p == c).count();
        assert!(count(PLOT_COLOURS[0].1) > 500, "species A's line");
        assert!(count(PLOT_COLOURS[1].1) > 500, "species B's line");
        let tint = PLOT_COLOURS[0].1.map(|c| 255 - (255 - c) / 4);
        assert!(count(tint) > 1000, "species A's band");
        // A starts at the top of the axis (y max = 10 = its mean at t = 0).
        assert_eq!(img.get(MARGIN, MARGIN), Some([0; 3]), "axis");
        assert_eq!(img.get(MARGIN + 1, MARGIN), Some(PLOT_COLOURS[0].1));
        assert!(plot_mean_sd(&stats(), &[]).is_err());
    }
}
