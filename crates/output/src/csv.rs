//! CSV time series: one header line, then one row of numbers per call.
//!
//! The rows go to a temporary file beside the target (`.NAME.partial`), which replaces the
//! target when the writer finishes or is dropped: a reader never sees a file cut mid-row, and
//! an earlier file at the same path stays whole until the new one is complete. A run that
//! stops early still finishes its series, so the rows up to the stop are kept.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{check_len, OutputError};

/// Writes a CSV file with a fixed set of numeric columns, e.g. `step,time,total_oxygen`.
///
/// Rows are buffered; call [`finish`](Self::finish) to put the file in place and see any
/// I/O error (dropping the writer also puts it in place, but ignores errors).
pub struct TimeSeriesWriter {
    path: PathBuf,
    partial: PathBuf,
    out: Option<BufWriter<File>>,
    columns: usize,
}

/// The temporary name of a series being written to `path`.
pub fn partial_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.partial"))
}

impl TimeSeriesWriter {
    /// Starts a new file for `path` (replacing it once finished) with the header line.
    pub fn create(path: &Path, columns: &[&str]) -> Result<Self, OutputError> {
        if columns.is_empty() {
            return Err(OutputError::InvalidArgument(
                "a time series needs at least one column".to_string(),
            ));
        }
        let header: Vec<String> = columns.iter().map(|c| quote(c)).collect();
        let partial = partial_path(path);
        let file = File::create(&partial).map_err(OutputError::io(&partial))?;
        let mut out = BufWriter::new(file);
        writeln!(out, "{}", header.join(",")).map_err(OutputError::io(&partial))?;
        Ok(Self {
            path: path.to_path_buf(),
            partial,
            out: Some(out),
            columns: columns.len(),
        })
    }

    /// Starts a file like [`create`](Self::create), first copying the rows of an earlier file
    /// at `path` that `keep` accepts, up to the first it does not: a run resumed into its own
    /// folder then leaves one file for the whole run. No earlier rows are kept when the file is
    /// missing, has another header (another config) or a row that does not read as numbers.
    /// Returns the kept rows too. Values read back exactly: rows print the shortest text that
    /// reads back to the same number.
    pub fn create_continued(
        path: &Path,
        columns: &[&str],
        keep: impl Fn(&[f64]) -> bool,
    ) -> Result<(Self, Vec<Vec<f64>>), OutputError> {
        let earlier = earlier_rows(path, columns, keep);
        let mut w = Self::create(path, columns)?;
        for row in &earlier {
            w.write_row(row)?;
        }
        Ok((w, earlier))
    }

    /// Number of columns in the header; every row must have exactly this many values.
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// Appends one row. `{}` formatting of `f64` prints the shortest text that
    /// reads back to the identical number, so no precision is lost.
    pub fn write_row(&mut self, values: &[f64]) -> Result<(), OutputError> {
        check_len("row", self.columns, values.len())?;
        let line: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let (path, partial) = (&self.path, &self.partial);
        let out = self.out.as_mut().ok_or_else(|| finished(path))?;
        writeln!(out, "{}", line.join(",")).map_err(OutputError::io(partial))
    }

    /// Writes buffered rows to the temporary file.
    pub fn flush(&mut self) -> Result<(), OutputError> {
        let (path, partial) = (&self.path, &self.partial);
        let out = self.out.as_mut().ok_or_else(|| finished(path))?;
        out.flush().map_err(OutputError::io(partial))
    }

    /// Writes the buffered rows, syncs the file and puts it in place of `path`.
    pub fn finish(&mut self) -> Result<(), OutputError> {
        let Some(out) = self.out.take() else {
            return Ok(());
        };
        let file = out
            .into_inner()
            .map_err(|e| OutputError::io(&self.partial)(e.into_error()))?;
        file.sync_all().map_err(OutputError::io(&self.partial))?;
        std::fs::rename(&self.partial, &self.path).map_err(OutputError::io(&self.path))?;
        crate::atomic::sync_dir_of(&self.path)
    }
}

fn finished(path: &Path) -> OutputError {
    OutputError::InvalidArgument(format!("{} is already finished", path.display()))
}

impl Drop for TimeSeriesWriter {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// The rows of the CSV at `path` that `keep` accepts (see `create_continued`).
fn earlier_rows(path: &Path, columns: &[&str], keep: impl Fn(&[f64]) -> bool) -> Vec<Vec<f64>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let header: Vec<String> = columns.iter().map(|c| quote(c)).collect();
    let mut lines = text.lines();
    if lines.next() != Some(header.join(",").as_str()) {
        return Vec::new();
    }
    let mut rows = Vec::new();
    for line in lines {
        let row: Option<Vec<f64>> = line.split(',').map(|v| v.parse().ok()).collect();
        match row {
            Some(r) if r.len() == columns.len() => {
                if !keep(&r) {
                    break;
                }
                rows.push(r);
            }
            _ => return Vec::new(),
        }
    }
    rows
}

/// Quotes a header cell only when CSV requires it (comma, quote or newline inside).
fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("series.csv");
        let rows = [
            [0.0, 0.0, 1.0 / 3.0],
            [1.0, 0.1 + 0.2, -1.2345678901234567e-300],
            [2.0, 1e20, f64::MAX],
        ];
        let mut w = TimeSeriesWriter::create(&path, &["step", "time", "total oxygen"]).unwrap();
        assert_eq!(w.columns(), 3);
        for r in &rows {
            w.write_row(r).unwrap();
        }
        w.finish().unwrap();

        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("step,time,total oxygen"));
        let parsed: Vec<Vec<f64>> = lines
            .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
            .collect();
        assert_eq!(parsed, rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>());
    }

    #[test]
    fn wrong_row_length_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("series.csv");
        let mut w = TimeSeriesWriter::create(&path, &["a", "b"]).unwrap();
        let err = w.write_row(&[1.0, 2.0, 3.0]).unwrap_err();
        assert!(matches!(
            err,
            OutputError::LengthMismatch {
                expected: 2,
                actual: 3,
                ..
            }
        ));
        w.write_row(&[1.0, 2.0]).unwrap();
        w.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n1,2\n");
        assert!(TimeSeriesWriter::create(&path, &[]).is_err());
    }

    #[test]
    fn a_continued_series_keeps_the_earlier_rows_before_the_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("series.csv");
        let mut w = TimeSeriesWriter::create(&path, &["step", "x"]).unwrap();
        for s in 0..5 {
            w.write_row(&[s as f64, 0.1 * s as f64]).unwrap();
        }
        w.finish().unwrap();
        drop(w);
        let (mut w, kept) =
            TimeSeriesWriter::create_continued(&path, &["step", "x"], |r| r[0] < 3.0).unwrap();
        assert_eq!(kept, vec![vec![0.0, 0.0], vec![1.0, 0.1], vec![2.0, 0.2]]);
        w.write_row(&[3.0, 7.0]).unwrap();
        w.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "step,x\n0,0\n1,0.1\n2,0.2\n3,7\n");
        // Another header (another config): nothing is kept.
        let (_, kept) =
            TimeSeriesWriter::create_continued(&path, &["step", "y"], |_| true).unwrap();
        assert!(kept.is_empty());
        // No earlier file: nothing is kept.
        let other = dir.path().join("new.csv");
        let (_, kept) = TimeSeriesWriter::create_continued(&other, &["a"], |_| true).unwrap();
        assert!(kept.is_empty());
    }

    /// Until the writer finishes, the rows live in the partial file and an earlier file at the
    /// path stays whole; dropping the writer puts the rows written so far in place.
    #[test]
    fn the_file_is_replaced_only_when_the_series_is_finished_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("series.csv");
        std::fs::write(&path, "a\n1\n2\n").unwrap();
        let mut w = TimeSeriesWriter::create(&path, &["a"]).unwrap();
        w.write_row(&[5.0]).unwrap();
        w.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n1\n2\n");
        assert_eq!(
            std::fs::read_to_string(partial_path(&path)).unwrap(),
            "a\n5\n"
        );
        drop(w);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n5\n");
        assert!(!partial_path(&path).exists());
        let mut w = TimeSeriesWriter::create(&path, &["a"]).unwrap();
        w.finish().unwrap();
        assert!(w.write_row(&[1.0]).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n");
    }

    #[test]
    fn header_cells_are_quoted_when_needed() {
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
