//! The progress bar of a run, counting `unit`s (steps, trajectories) on stderr.

use indicatif::{ProgressBar, ProgressStyle};

pub(crate) fn bar(total: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {unit}  {{per_sec}}  eta {{eta}}  {{msg}}"
        ))
        .expect("valid template"),
    );
    bar
}
