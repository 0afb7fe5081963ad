//! CSV time series: one header line, then one row of numbers per call.
//!
//! The file is in place from the start: the header (and, for a continued series, the rows kept
//! from an earlier run) replace it atomically, then rows are appended. [`flush`] hands the
//! buffered rows to the operating system, so a killed process keeps them; [`sync`] also makes
//! them durable (a run syncs its series before every checkpoint, so the series always holds
//! every row up to the checkpoint's step). A kill may leave the last row cut short: a reader of
//! an earlier run's rows ([`TimeSeriesWriter::create_continued`]) drops a last line with no
//! line end.
//!
//! [`flush`]: TimeSeriesWriter::flush
//! [`sync`]: TimeSeriesWriter::sync

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{check_len, OutputError};

/// Writes a CSV file with a fixed set of numeric columns, e.g. `step,time,total_oxygen`.
///
/// Rows are buffered; [`flush`](Self::flush) or [`sync`](Self::sync) write them out, and
/// [`finish`](Self::finish) syncs the file and reports any I/O error (dropping the writer
/// flushes too, but ignores errors).
pub struct TimeSeriesWriter {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    columns: usize,
}

impl TimeSeriesWriter {
    /// Starts a new file at `path` (replacing any file there) with the header line.
    pub fn create(path: &Path, columns: &[&str]) -> Result<Self, OutputError> {
        Self::start(path, columns, &[])
    }

    /// Puts the header and `rows` in place of `path` atomically, then opens it for appending.
    fn start(path: &Path, columns: &[&str], rows: &[Vec<f64>]) -> Result<Self, OutputError> {
        if columns.is_empty() {
            return Err(OutputError::InvalidArgument(
                "a time series needs at least one column".to_string(),
            ));
        }
        for row in rows {
            check_len("row", columns.len(), row.len())?;
        }
        let header: Vec<String> = columns.iter().map(|c| quote(c)).collect();
        crate::write_atomically(path, |out| {
            writeln!(out, "{}", header.join(","))?;
            rows.iter().try_for_each(|row| write_line(out, row))
        })?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(OutputError::io(path))?;
        Ok(Self {
            path: path.to_path_buf(),
            out: Some(BufWriter::new(file)),
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
        let w = Self::start(path, columns, &earlier)?;
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
        let path = &self.path;
        let out = self.out.as_mut().ok_or_else(|| finished(path))?;
        write_line(out, values).map_err(OutputError::io(path))
    }

    /// Hands the buffered rows to the operating system: they outlive the process. (A
    /// finished series has nothing left to flush.)
    pub fn flush(&mut self) -> Result<(), OutputError> {
        match self.out.as_mut() {
            Some(out) => out.flush().map_err(OutputError::io(&self.path)),
            None => Ok(()),
        }
    }

    /// Flushes and syncs the file: the rows outlive the machine too.
    pub fn sync(&mut self) -> Result<(), OutputError> {
        self.flush()?;
        match self.out.as_mut() {
            Some(out) => out
                .get_ref()
                .sync_data()
                .map_err(OutputError::io(&self.path)),
            None => Ok(()),
        }
    }

    /// Syncs the file; later rows are refused.
    pub fn finish(&mut self) -> Result<(), OutputError> {
        if self.out.is_none() {
            return Ok(());
        }
        let synced = self.sync();
        self.out = None;
        synced
    }
}

/// One row: `{}` formatting of `f64` prints the shortest text that reads back to it.
fn write_line(out: &mut impl Write, values: &[f64]) -> std::io::Result<()> {
    let line: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    writeln!(out, "{}", line.join(","))
}

fn finished(path: &Path) -> OutputError {
    OutputError::InvalidArgument(format!("{} is already finished", path.display()))
}

impl Drop for TimeSeriesWriter {
    fn drop(&mut self) {
        if let Some(out) = self.out.as_mut() {
            let _ = out.flush();
        }
    }
}

/// The rows of the CSV at `path` that `keep` accepts (see `create_continued`).
fn earlier_rows(path: &Path, columns: &[&str], keep: impl Fn(&[f64]) -> bool) -> Vec<Vec<f64>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let header: Vec<String> = columns.iter().map(|c| quote(c)).collect();
    // A last line with no line end was cut short by a kill: it is not a row.
    let whole = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    let mut lines = whole.lines();
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

    /// Flushed rows are in the file at once (a killed process keeps them); a row cut short by
    /// a kill is dropped when the series is continued, and the kept rows replace the file whole.
    #[test]
    fn flushed_rows_are_in_place_and_a_cut_row_is_dropped_on_continuing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("series.csv");
        std::fs::write(&path, "a\n1\n2\n").unwrap();
        let mut w = TimeSeriesWriter::create(&path, &["a"]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n");
        w.write_row(&[5.0]).unwrap();
        w.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n5\n");
        w.write_row(&[6.0]).unwrap();
        // A kill (the writer forgotten, not dropped) loses only the rows not yet flushed.
        std::mem::forget(w);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n5\n");
        // A kill mid-row leaves a last line with no line end: not a row.
        std::fs::write(&path, "a,b\n1,2\n3,4\n5,").unwrap();
        let (mut w, kept) =
            TimeSeriesWriter::create_continued(&path, &["a", "b"], |_| true).unwrap();
        assert_eq!(kept, vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n1,2\n3,4\n");
        w.write_row(&[5.0, 6.0]).unwrap();
        drop(w);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "a,b\n1,2\n3,4\n5,6\n"
        );
        let mut w = TimeSeriesWriter::create(&path, &["a"]).unwrap();
        w.finish().unwrap();
        assert!(w.write_row(&[1.0]).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

    #[test]
    fn header_cells_are_quoted_when_needed() {
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
