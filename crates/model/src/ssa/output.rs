//! Output files of a stochastic-kinetics run: mean and sd per species per time (CSV), the
//! individual trajectories (CSV), and a figure of mean +- sd over time (PNG).

use super::stats::EnsembleStats;
use crate::error::{invalid, Result};
use petri_output::{Axis, Band, Figure, Lines, Panel, TimeSeriesWriter};
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

/// `trajectory, time, <species>...`: `counts[trajectory][time][species]` at each of `times`
/// (samples a trajectory holds past the last of them, e.g. a GPU run's of times not yet run
/// through, are left out).
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
        for (row, &t) in trajectory.iter().zip(times) {
            let mut values = vec![i as f64, t];
            values.extend(row.iter().map(|&x| x as f64));
            csv.write_row(&values)?;
        }
    }
    Ok(csv.flush()?)
}

/// Line colours of the plot (matplotlib's tab10), in the order of the plotted species (then
/// repeated: pick at most ten species with `--species` to keep them apart).
pub const PLOT_COLOURS: [(&str, [u8; 3]); 10] = [
    ("blue", [31, 119, 180]),
    ("orange", [255, 127, 14]),
    ("green", [44, 160, 44]),
    ("red", [214, 39, 40]),
    ("purple", [148, 103, 189]),
    ("brown", [140, 86, 75]),
    ("pink", [227, 119, 194]),
    ("grey", [127, 127, 127]),
    ("olive", [188, 189, 34]),
    ("cyan", [23, 190, 207]),
];

/// The time axis's label: a network's rate constants are per unit time, in a unit the network
/// chooses (Vilar's: hours, DSMTS's: seconds), so time is in the inverse of their unit.
pub const TIME_LABEL: &str = "time (in the unit the rates are per)";

/// Size of mean_sd.png in pixels.
pub const PLOT_SIZE: (u32, u32) = (1000, 560);

/// Mean (line) and mean +- sd (shaded band, cut at 0: counts are not negative) of `species`
/// (indices into `stats.species`) against time, in the colours `PLOT_COLOURS` in order; the
/// legend names the species, the title the model (`name`, when not empty), the time span and
/// the number of trajectories. The molecule axis runs from 0 to a little above the largest
/// mean + sd shown.
pub fn mean_sd_figure(stats: &EnsembleStats, species: &[usize], name: &str) -> Result<Figure> {
    if species.is_empty() {
        return Err(invalid("plot species", "[]", "at least one species"));
    }
    let (Some(&t0), Some(&t1)) = (stats.times.first(), stats.times.last()) else {
        return Err(invalid("output times", 0, "at least one"));
    };
    // One output time still gets a time axis of some length.
    let t_hi = if t1 > t0 { t1 } else { t0 + 1.0 };
    let top = species
        .iter()
        .flat_map(|&s| (0..stats.times.len()).map(move |k| stats.mean[k][s] + stats.sd[k][s]))
        .fold(1.0f64, f64::max);
    let mut panel = Panel::new(
        "lines: mean; bands: mean ± sd",
        Axis::new(TIME_LABEL, t0, t_hi),
        Axis::new("molecules", 0.0, 1.05 * top),
    );
    for (i, &s) in species.iter().enumerate() {
        let colour = PLOT_COLOURS[i % PLOT_COLOURS.len()].1;
        let at = |k: usize| (stats.times[k], stats.mean[k][s], stats.sd[k][s]);
        let band = (0..stats.times.len())
            .map(at)
            .map(|(t, m, sd)| (t, (m - sd).max(0.0), m + sd));
        panel.bands.push(Band::new(colour, band.collect()));
        let mean: Vec<(f64, f64)> = (0..stats.times.len())
            .map(at)
            .map(|(t, m, _)| (t, m))
            .collect();
        panel
            .lines
            .push(Lines::polyline(colour, 2, &mean).labelled(stats.species[s].clone()));
    }
    let model = match name {
        "" => "Stochastic kinetics".to_string(),
        name => name.to_string(),
    };
    Ok(Figure {
        width: PLOT_SIZE.0,
        height: PLOT_SIZE.1,
        title: format!(
            "{model}: mean ± sd of {} trajector{}, t = {} to {}",
            stats.n,
            if stats.n == 1 { "y" } else { "ies" },
            crate::error::short(t0),
            crate::error::short(t1)
        ),
        panels: vec![panel],
        color_scale: None,
    })
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

    /// Each channel within 2 of the other's.
    fn near(a: [u8; 3], b: [u8; 3]) -> bool {
        a.iter().zip(&b).all(|(p, q)| p.abs_diff(*q) <= 2)
    }

    #[test]
    fn the_figure_shows_each_species_mean_and_band() {
        let fig = mean_sd_figure(&stats(), &[0, 1], "decay").unwrap();
        assert_eq!((fig.width, fig.height), PLOT_SIZE);
        assert_eq!(fig.title, "decay: mean ± sd of 4 trajectories, t = 0 to 2");
        let panel = &fig.panels[0];
        assert_eq!(
            (panel.x.label.as_str(), panel.y.label.as_str()),
            (TIME_LABEL, "molecules")
        );
        // The molecule axis reaches above A's 10 at t = 0.
        assert_eq!((panel.x.lo, panel.x.hi, panel.y.lo), (0.0, 2.0, 0.0));
        assert!(panel.y.hi > 10.0 && panel.y.hi < 11.0, "{}", panel.y.hi);
        let labels: Vec<_> = panel.lines.iter().map(|l| l.label.as_deref()).collect();
        assert_eq!(labels, [Some("A"), Some("B")]);
        let drawn = fig.render_with_layout().unwrap();
        let (img, area) = (&drawn.image, &drawn.panels[0]);
        // At t = 0.5 A's mean is 7.5 and its sd 0.75: its shade covers 6.75 to 8.25, with the
        // mean line in between; B's (1 +- 0.5) lies lower.
        for (i, lo, mean, hi) in [(0, 6.75, 7.5, 8.25), (1, 0.5, 1.0, 1.5)] {
            let colour = PLOT_COLOURS[i].1;
            let shade = petri_output::blend([255; 3], colour, 0.25);
            let (col, top) = area.pixel(0.5, hi);
            let (_, bottom) = area.pixel(0.5, lo);
            let shaded: Vec<i32> = (area.rows.start..area.rows.end)
                .filter(|&y| near(img.get(col as usize, y as usize).unwrap(), shade))
                .collect();
            let (first, last) = (shaded[0], shaded[shaded.len() - 1]);
            assert!(
                (first - top).abs() <= 1 && (last - bottom).abs() <= 1,
                "species {i}: shaded rows {first}..{last}, mean - sd..mean + sd at {bottom}..{top}"
            );
            let (_, line) = area.pixel(0.5, mean);
            assert!(
                (line - 1..=line + 1).any(|y| img.get(col as usize, y as usize) == Some(colour))
            );
        }
        // The legend below the plot shows both colours.
        let below = area.rows.end as usize + 30..img.height;
        for (_, c) in &PLOT_COLOURS[..2] {
            assert!(below
                .clone()
                .flat_map(|y| (0..img.width).map(move |x| (x, y)))
                .any(|(x, y)| img.get(x, y) == Some(*c)));
        }
        assert!(mean_sd_figure(&stats(), &[], "").is_err());
        let unnamed = mean_sd_figure(&stats(), &[1], "").unwrap();
        assert!(unnamed.title.starts_with("Stochastic kinetics: "));
    }
}
