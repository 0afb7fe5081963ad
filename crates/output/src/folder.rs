//! The output folder of a run: what a run may find there before it starts.
//!
//! A folder holds one run, so its files agree with its manifest. A new run needs a missing or
//! empty folder; replacing an earlier run removes the files that run's manifest lists (and the
//! temporary files of writes it did not finish) and nothing else, so a folder that also holds
//! other files is never emptied; a resumed run continues the run of its own model in place.
//!
//! A run holds an exclusive lock on its folder ([`LOCK_FILE`], `flock` on Unix) for its whole
//! life, so a second run or an `--overwrite` is refused naming the holder while it runs; the
//! lock goes with the process however it ends, so a folder whose manifest says "running" but
//! that no process holds is an interrupted run, which a resumed run continues.

use crate::error::OutputError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The manifest's name in an output folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The checkpoint a run writes into its folder (`--checkpoint-every`).
pub const CHECKPOINT_FILE: &str = "checkpoint.petri";

/// The file a run locks in its output folder, holding the holder's pid and host. The run
/// removes it when it ends; a killed run leaves it, unlocked, and the next run reuses it.
pub const LOCK_FILE: &str = ".petri.lock";
/// Where a run writes a snapshot's, a frame's or a checkpoint's files before its manifest lists
/// them ([`publish_staged`] then moves them in): a run killed in between leaves no file its
/// manifest does not list, only this folder, which the next run removes.
pub const STAGING_DIR: &str = ".petri-staging";

/// A run's exclusive hold on its output folder, released (and its file removed) when
/// dropped, or released by the system when the process ends however it ends.
#[derive(Debug)]
pub struct FolderLock {
    file: File,
    path: PathBuf,
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still locked: a run that opened the file meanwhile sees, once it
        // holds it, that the path no longer names it, and takes a new one.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// Takes the lock of `dir` (which must exist), or refuses naming the run that holds it.
pub fn lock_output_folder(dir: &Path) -> Result<FolderLock, OutputError> {
    let path = dir.join(LOCK_FILE);
    loop {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(OutputError::io(&path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(in_use(dir, &holder_of(&path))),
            Err(TryLockError::Error(e)) => return Err(OutputError::io(&path)(e)),
        }
        if !still_names(&path, &file) {
            continue; // removed by the run that held it, between our open and our lock
        }
        let me = format!("pid {} on {}\n", std::process::id(), host_name());
        file.set_len(0)
            .and_then(|()| file.write_all(me.as_bytes()))
            .map_err(OutputError::io(&path))?;
        return Ok(FolderLock { file, path });
    }
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn still_names(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether `path` still names the open `file` (Windows does not remove an open file).
#[cfg(not(unix))]
fn still_names(path: &Path, _file: &File) -> bool {
    path.is_file()
}

/// Who holds the lock of `dir` now ("pid N on HOST"), if anyone does.
pub fn lock_holder(dir: &Path) -> Option<String> {
    let path = dir.join(LOCK_FILE);
    let file = File::open(&path).ok()?;
    match file.try_lock() {
        Ok(()) => None,
        Err(TryLockError::WouldBlock) => Some(holder_of(&path)),
        Err(TryLockError::Error(_)) => None,
    }
}

/// What the lock file at `path` says of its holder.
fn holder_of(path: &Path) -> String {
    match std::fs::read_to_string(path) {
        Ok(text) if !text.trim().is_empty() => text.trim().to_string(),
        _ => "a process that has not yet written its pid".to_string(),
    }
}

fn in_use(dir: &Path, holder: &str) -> OutputError {
    OutputError::Folder {
        path: dir.to_path_buf(),
        message: format!(
            "is in use by a running petri run ({holder}): wait for it to end or stop it, or \
             give another folder"
        ),
    }
}

/// This machine's name, for the lock file (runs on shared file systems).
fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this host".to_string())
}

/// How a run may use its output folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderUse {
    /// A new run: the folder must be missing or empty.
    Fresh,
    /// A new run in place of an earlier one (`--overwrite`): the earlier run's files go first.
    Overwrite,
    /// A run resumed from a checkpoint continues the run in the folder (of the same model).
    Continue,
}

/// Makes `dir` ready for a run of `model` used as `how` says: creates it when missing, locks
/// it, removes an earlier run's files for [`FolderUse::Overwrite`], and refuses, changing
/// nothing, a path that is not a folder, a folder another run holds, a folder that holds a run
/// of another kind than `how` allows, or files no run's manifest lists. Returns the lock, to
/// hold for the life of the run, and the names of the files removed.
pub fn prepare_output_folder(
    dir: &Path,
    how: FolderUse,
    model: &str,
) -> Result<(FolderLock, Vec<String>), OutputError> {
    check_output_folder(dir, how, model)?;
    std::fs::create_dir_all(dir).map_err(OutputError::io(dir))?;
    let lock = lock_output_folder(dir)?;
    // Checked again under the lock: another run may have come and gone meanwhile.
    let remove = check_contents(dir, how, model)?;
    for name in &remove {
        let path = dir.join(name);
        match name == STAGING_DIR {
            true => std::fs::remove_dir_all(&path),
            false => std::fs::remove_file(&path),
        }
        .map_err(OutputError::io(&path))?;
    }
    Ok((lock, remove))
}

/// The staging folder of `dir`, emptied: where the next files to publish are written.
pub fn staging_folder(dir: &Path) -> Result<std::path::PathBuf, OutputError> {
    let staging = dir.join(STAGING_DIR);
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(OutputError::io(&staging))?;
    }
    std::fs::create_dir(&staging).map_err(OutputError::io(&staging))?;
    Ok(staging)
}

/// Moves the files `names` from `dir`'s staging folder into `dir` (each rename atomic, a file
/// of the same name replaced), then removes the staging folder. Call it once the manifest
/// lists them.
pub fn publish_staged(dir: &Path, names: &[String]) -> Result<(), OutputError> {
    let staging = dir.join(STAGING_DIR);
    for name in names {
        let (from, to) = (staging.join(name), dir.join(name));
        std::fs::rename(&from, &to).map_err(OutputError::io(&from))?;
    }
    std::fs::remove_dir_all(&staging).map_err(OutputError::io(&staging))
}

/// What [`prepare_output_folder`] would do, without doing it: the error it would return, or the
/// files it would remove. Lets a caller refuse a folder before any work starts.
pub fn check_output_folder(
    dir: &Path,
    how: FolderUse,
    model: &str,
) -> Result<Vec<String>, OutputError> {
    let refuse = |message: String| OutputError::Folder {
        path: dir.to_path_buf(),
        message,
    };
    if dir.exists() && !dir.is_dir() {
        return Err(refuse("is a file, not a folder".into()));
    }
    if !dir.exists() {
        return Ok(Vec::new());
    }
    if let Some(holder) = lock_holder(dir) {
        return Err(in_use(dir, &holder));
    }
    check_contents(dir, how, model)
}

/// [`check_output_folder`] of the folder's contents alone (its lock left aside).
fn check_contents(dir: &Path, how: FolderUse, model: &str) -> Result<Vec<String>, OutputError> {
    let refuse = |message: String| OutputError::Folder {
        path: dir.to_path_buf(),
        message,
    };
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let entries = entries(dir)?;
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let earlier = EarlierRun::read(dir);
    // A run killed before its first manifest was in place leaves only its unfinished writes:
    // the folder is as good as empty, whatever the use, and they go.
    if earlier.is_none() && entries.iter().all(|n| unfinished(n)) {
        return Ok(entries);
    }
    match how {
        FolderUse::Fresh => Err(refuse(match &earlier {
            // No process holds the folder, so that run was killed before it could say so.
            Some(run) if run.status == "running" => format!(
                "holds an interrupted {} run (its {MANIFEST_FILE} says \"running\", last step {}, \
                 but no process holds the folder): {}give --overwrite to replace it, or another \
                 folder",
                run.model,
                run.last_step,
                match dir.join(CHECKPOINT_FILE).is_file() {
                    true => format!(
                        "resume it (--resume {} --out {}), or ",
                        dir.join(CHECKPOINT_FILE).display(),
                        dir.display()
                    ),
                    false => "it has no checkpoint to resume from; ".to_string(),
                }
            ),
            _ => format!(
                "holds {} ({}){}: give --overwrite to replace that run, or another folder",
                count(entries.len(), "entry", "entries"),
                sample(&entries),
                match &earlier {
                    Some(run) => format!(" of an earlier {} run", run.model),
                    None => String::new(),
                }
            ),
        })),
        FolderUse::Continue => match earlier {
            Some(run) if run.model != model => Err(refuse(format!(
                "holds a {} run; a resumed {model} run continues only a run of its own model: \
                 give another folder",
                run.model
            ))),
            // What a killed run's unfinished writes left goes (no run holds the folder).
            _ => Ok(entries.into_iter().filter(|n| unfinished(n)).collect()),
        },
        FolderUse::Overwrite => {
            let Some(run) = earlier else {
                return Err(refuse(format!(
                    "holds {} ({}) but no {MANIFEST_FILE} of a petri run, so --overwrite would not \
                     know what to remove: give an empty or new folder",
                    count(entries.len(), "entry", "entries"),
                    sample(&entries)
                )));
            };
            let foreign: Vec<String> = entries
                .iter()
                .filter(|name| {
                    !run.owns(name) || !(dir.join(name).is_file() || *name == STAGING_DIR)
                })
                .cloned()
                .collect();
            if !foreign.is_empty() {
                return Err(refuse(format!(
                    "holds {} that the earlier run's {MANIFEST_FILE} does not list ({}): \
                     --overwrite removes only that run's files; move them or give another folder",
                    count(foreign.len(), "entry", "entries"),
                    sample(&foreign)
                )));
            }
            Ok(entries)
        }
    }
}

/// The files of the run in `dir` that its manifest lists and that are still there (the
/// manifest itself left out); none without a readable manifest.
pub fn listed_outputs(dir: &Path) -> Vec<String> {
    EarlierRun::read(dir)
        .map(|run| run.outputs)
        .unwrap_or_default()
        .into_iter()
        .filter(|name| name != MANIFEST_FILE && dir.join(name).is_file())
        .collect()
}

/// What a folder's manifest says of the run that wrote it.
struct EarlierRun {
    model: String,
    outputs: Vec<String>,
    /// "running", "stopped" or "complete".
    status: String,
    last_step: u64,
}

impl EarlierRun {
    /// The run whose manifest is in `dir`, if it reads as one.
    fn read(dir: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(dir.join(MANIFEST_FILE)).ok()?;
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        let model = json.get("model")?.as_str()?.to_string();
        let outputs = json
            .get("outputs")?
            .as_array()?
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        let status = json.get("status").and_then(|v| v.as_str()).unwrap_or("");
        let last_step = json.get("last_step").and_then(|v| v.as_u64()).unwrap_or(0);
        Some(Self {
            model,
            outputs,
            status: status.to_string(),
            last_step,
        })
    }

    /// Whether `name` is the run's: a listed output, the manifest, or the temporary file of a
    /// write that did not finish (`write_atomically`'s `.NAME.tmp-PID-N`, a series'
    /// `.NAME.partial`), which a killed run leaves before it can list the file.
    fn owns(&self, name: &str) -> bool {
        name == MANIFEST_FILE || self.outputs.iter().any(|o| o == name) || unfinished(name)
    }
}

/// Whether `name` is the temporary file of a write that did not finish (`write_atomically`'s
/// `.NAME.tmp-PID-N`, an earlier version's series `.NAME.partial`).
fn unfinished(name: &str) -> bool {
    if name == STAGING_DIR {
        return true;
    }
    let Some(hidden) = name.strip_prefix('.') else {
        return false;
    };
    let numbers = |s: &str| {
        s.split('-')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
    };
    hidden.ends_with(".partial")
        || hidden
            .rsplit_once(".tmp-")
            .is_some_and(|(_, tail)| numbers(tail))
}

/// The names in `dir` but the lock file, sorted.
fn entries(dir: &Path) -> Result<Vec<String>, OutputError> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(OutputError::io(dir))? {
        let entry = entry.map_err(OutputError::io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != LOCK_FILE {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The first few names, for a message.
fn sample(names: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut s = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        s.push_str(", ...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(dir: &Path, model: &str, outputs: &[&str]) {
        let json = serde_json::json!({ "model": model, "outputs": outputs });
        std::fs::write(dir.join(MANIFEST_FILE), json.to_string()).unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        entries(dir).unwrap()
    }

    #[test]
    fn a_new_run_takes_a_missing_or_empty_folder_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        assert!(check_output_folder(&dir, FolderUse::Fresh, "m")
            .unwrap()
            .is_empty());
        assert!(!dir.exists());
        assert!(prepare_output_folder(&dir, FolderUse::Fresh, "m")
            .unwrap()
            .1
            .is_empty());
        assert!(dir.is_dir());
        assert!(prepare_output_folder(&dir, FolderUse::Fresh, "m").is_ok());
        manifest(&dir, "rdme", &["observables.csv"]);
        std::fs::write(dir.join("observables.csv"), "x").unwrap();
        let e = prepare_output_folder(&dir, FolderUse::Fresh, "m")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("2 entries (manifest.json, observables.csv) of an earlier rdme run"),
            "{e}"
        );
        assert!(e.contains("--overwrite"), "{e}");
        assert_eq!(names(&dir).len(), 2);
    }

    #[test]
    fn a_file_is_not_a_folder() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("f");
        std::fs::write(&file, "x").unwrap();
        for how in [FolderUse::Fresh, FolderUse::Overwrite, FolderUse::Continue] {
            let e = prepare_output_folder(&file, how, "m")
                .unwrap_err()
                .to_string();
            assert!(e.ends_with("is a file, not a folder"), "{e}");
        }
        assert_eq!(std::fs::read(&file).unwrap(), b"x");
    }

    /// Files a run writes aside appear in the folder only once the manifest lists them; what a
    /// killed run left in the staging folder goes with --overwrite and with a resume.
    #[test]
    fn staged_files_are_published_once_listed_and_leftovers_removed() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        manifest(dir, "angiogenesis", &["observables.csv"]);
        std::fs::write(dir.join("observables.csv"), "x").unwrap();
        let staging = staging_folder(dir).unwrap();
        std::fs::write(staging.join("fields_0000010.vti"), "f").unwrap();
        assert!(!dir.join("fields_0000010.vti").exists());
        // Killed here: the staged file is not the run's yet, and nothing refuses the folder.
        for how in [FolderUse::Continue, FolderUse::Overwrite] {
            assert!(
                check_output_folder(dir, how, "angiogenesis").is_ok(),
                "{how:?}"
            );
        }
        publish_staged(dir, &["fields_0000010.vti".to_string()]).unwrap();
        assert_eq!(std::fs::read(dir.join("fields_0000010.vti")).unwrap(), b"f");
        assert!(!staging.exists());

        let staging = staging_folder(dir).unwrap();
        std::fs::write(staging.join("fields_0000020.vti"), "g").unwrap();
        let (_lock, removed) =
            prepare_output_folder(dir, FolderUse::Continue, "angiogenesis").unwrap();
        assert_eq!(removed, [STAGING_DIR]);
        assert!(!staging.exists());
    }

    /// --overwrite removes the earlier run's listed files, its manifest and its unfinished
    /// temporary files, and refuses (removing nothing) when anything else is there.
    #[test]
    fn overwrite_removes_only_the_earlier_runs_files() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        manifest(
            dir,
            "angiogenesis",
            &["observables.csv", "fields_0000020.vti"],
        );
        for f in [
            "observables.csv",
            "fields_0000020.vti",
            ".observables.csv.partial",
            ".fields_0000040.vti.tmp-12-3",
        ] {
            std::fs::write(dir.join(f), "x").unwrap();
        }
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let e = prepare_output_folder(dir, FolderUse::Overwrite, "angiogenesis")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("1 entry that the earlier run's manifest.json does not list (notes.txt)"),
            "{e}"
        );
        assert_eq!(names(dir).len(), 6);
        std::fs::remove_file(dir.join("notes.txt")).unwrap();
        // The check alone removes nothing.
        assert_eq!(
            check_output_folder(dir, FolderUse::Overwrite, "rdme")
                .unwrap()
                .len(),
            5
        );
        assert_eq!(names(dir).len(), 5);
        let (_, removed) = prepare_output_folder(dir, FolderUse::Overwrite, "rdme").unwrap();
        assert_eq!(removed.len(), 5);
        assert!(names(dir).is_empty());
    }

    #[test]
    fn overwrite_refuses_a_folder_without_a_manifest_or_with_a_subfolder() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        std::fs::write(dir.join("data.csv"), "x").unwrap();
        let e = prepare_output_folder(dir, FolderUse::Overwrite, "m")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no manifest.json of a petri run"), "{e}");
        std::fs::remove_file(dir.join("data.csv")).unwrap();
        manifest(dir, "m", &["sub"]);
        std::fs::create_dir(dir.join("sub")).unwrap();
        let e = prepare_output_folder(dir, FolderUse::Overwrite, "m")
            .unwrap_err()
            .to_string();
        assert!(e.contains("(sub)"), "{e}");
        assert!(dir.join("sub").is_dir());
    }

    #[test]
    fn a_run_killed_before_its_first_manifest_leaves_a_folder_to_reuse() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        for how in [FolderUse::Fresh, FolderUse::Overwrite, FolderUse::Continue] {
            std::fs::write(dir.join(".manifest.json.tmp-2789-0"), "{").unwrap();
            let (_lock, removed) = prepare_output_folder(dir, how, "m").unwrap();
            assert_eq!(removed, [".manifest.json.tmp-2789-0"], "{how:?}");
            assert!(names(dir).is_empty(), "{how:?}");
        }
        // A file of someone else's beside the leftover: still refused, and nothing removed.
        std::fs::write(dir.join(".manifest.json.tmp-2789-0"), "{").unwrap();
        std::fs::write(dir.join("notes.txt"), "x").unwrap();
        assert!(prepare_output_folder(dir, FolderUse::Overwrite, "m").is_err());
        assert!(prepare_output_folder(dir, FolderUse::Fresh, "m").is_err());
        assert_eq!(names(dir).len(), 2);
    }

    #[test]
    fn a_resumed_run_continues_a_run_of_its_own_model_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        manifest(dir, "rdme", &["observables.csv"]);
        std::fs::write(dir.join("observables.csv"), "x").unwrap();
        std::fs::write(dir.join(".fields_0000040.vti.tmp-12-3"), "x").unwrap();
        assert_eq!(
            prepare_output_folder(dir, FolderUse::Continue, "rdme")
                .unwrap()
                .1,
            [".fields_0000040.vti.tmp-12-3"]
        );
        assert_eq!(listed_outputs(dir), ["observables.csv"]);
        assert_eq!(names(dir).len(), 2);
        let e = prepare_output_folder(dir, FolderUse::Continue, "angiogenesis")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("holds a rdme run; a resumed angiogenesis run"),
            "{e}"
        );
    }

    /// While a run holds the folder, another run, an --overwrite and a resume are refused
    /// naming it; once it is gone, a manifest still saying "running" is an interrupted run,
    /// which a new run is told to resume or replace and a resumed run continues.
    #[test]
    fn a_held_folder_is_refused_and_a_dead_running_one_is_interrupted() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        let (lock, _) = prepare_output_folder(dir, FolderUse::Fresh, "rdme").unwrap();
        let json = serde_json::json!({
            "model": "rdme", "status": "running", "last_step": 40,
            "outputs": ["observables.csv", "checkpoint.petri"]
        });
        std::fs::write(dir.join(MANIFEST_FILE), json.to_string()).unwrap();
        std::fs::write(dir.join("observables.csv"), "x").unwrap();
        let holder = lock_holder(dir).unwrap();
        assert_eq!(
            holder,
            format!("pid {} on {}", std::process::id(), host_name())
        );
        for how in [FolderUse::Fresh, FolderUse::Overwrite, FolderUse::Continue] {
            let e = prepare_output_folder(dir, how, "rdme")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("is in use by a running petri run ({holder})")),
                "{e}"
            );
        }
        assert_eq!(names(dir), ["manifest.json", "observables.csv"]);
        drop(lock);
        assert_eq!(lock_holder(dir), None);
        let e = check_output_folder(dir, FolderUse::Fresh, "rdme")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "holds an interrupted rdme run (its manifest.json says \"running\", last step 40"
            ),
            "{e}"
        );
        assert!(e.contains("no checkpoint to resume from"), "{e}");
        std::fs::write(dir.join(CHECKPOINT_FILE), "c").unwrap();
        let e = check_output_folder(dir, FolderUse::Fresh, "rdme")
            .unwrap_err()
            .to_string();
        assert!(e.contains("resume it (--resume "), "{e}");
        let (lock, removed) = prepare_output_folder(dir, FolderUse::Continue, "rdme").unwrap();
        assert!(removed.is_empty());
        assert!(lock_holder(dir).is_some());
        // The lock file goes with the run; one a killed run left is taken over.
        drop(lock);
        assert!(!dir.join(LOCK_FILE).exists());
        std::fs::write(dir.join(LOCK_FILE), "pid 1 on elsewhere\n").unwrap();
        assert_eq!(lock_holder(dir), None);
        let lock = lock_output_folder(dir).unwrap();
        assert!(lock_holder(dir).unwrap().starts_with("pid "));
        assert!(!lock_holder(dir).unwrap().contains("elsewhere"));
        drop(lock);
    }
}
