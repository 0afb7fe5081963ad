//! Atomic, durable file replacement: a reader of `path` sees either the old file or the whole new
//! one, never part of it, even if the process or the machine stops mid-write.
//!
//! The new contents go to a temporary file in the same directory (so the rename cannot cross
//! file systems), which is synced, renamed over the target, and then the directory is synced so
//! the rename itself survives a power cut. On any error the temporary file is removed and the old
//! file stays as it was.

use crate::error::OutputError;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Replaces `path` with what `write` writes, atomically and durably (see the module doc).
/// `write` sees a buffered writer; an error it returns aborts the replacement.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    let name = path.file_name().ok_or_else(|| {
        OutputError::InvalidArgument(format!("{} does not name a file", path.display()))
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Unique within the process too, so two threads saving the same name do not collide.
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}.tmp-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    ));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(OutputError::io(&tmp))?;
    let written = fill(file, write)
        .map_err(OutputError::io(&tmp))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(OutputError::io(path)));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(&dir)
}

fn fill(
    file: File,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut w = BufWriter::with_capacity(1 << 20, file);
    write(&mut w)?;
    w.flush()?;
    let file = w.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

/// Makes a rename in `dir` durable. Only Unix lets a directory be opened and synced; elsewhere
/// the rename is as durable as the platform makes it.
fn sync_dir(dir: &Path) -> Result<(), OutputError> {
    if cfg!(unix) {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(OutputError::io(dir))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// A write replaces the file; a failing one leaves the old file intact; neither leaves a
    /// temporary file.
    #[test]
    fn replaces_the_file_or_leaves_it_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        write_atomically(&path, |w| w.write_all(b"first")).unwrap();
        write_atomically(&path, |w| w.write_all(b"old")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let e = write_atomically(&path, |w| {
            w.write_all(&[7u8; 3 << 20])?; // past the buffer, so bytes reached the file
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(matches!(e, OutputError::Io { .. }), "{e}");
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(dir.path()), ["a.bin"]);
    }

    /// A rename that fails (the target is a non-empty directory) leaves the target and no
    /// temporary file; so does a directory that does not exist.
    #[test]
    fn a_failing_rename_or_missing_directory_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("taken");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), b"x").unwrap();
        let e = write_atomically(&target, |w| w.write_all(b"new")).unwrap_err();
        assert!(e.to_string().contains("taken"), "{e}");
        assert_eq!(names(dir.path()), ["taken"]);
        assert_eq!(names(&target), ["inside"]);

        let e = write_atomically(&dir.path().join("no/such/dir.bin"), |_| Ok(())).unwrap_err();
        assert!(matches!(e, OutputError::Io { .. }), "{e}");
        assert!(e.to_string().contains("dir.bin"), "{e}");
        let e = write_atomically(Path::new("/"), |_| Ok(())).unwrap_err();
        assert!(matches!(e, OutputError::InvalidArgument(_)), "{e}");
    }
}
