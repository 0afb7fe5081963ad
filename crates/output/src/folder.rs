//! The output folder of a run: what a run may find there before it starts.
//!
//! A folder holds one run, so its files agree with its manifest. A new run needs a missing or
//! empty folder; replacing an earlier run removes the files that run's manifest lists (and the
//! temporary files of writes it did not finish) and nothing else, so a folder that also holds
//! other files is never emptied; a resumed run continues the run of its own model in place.

use crate::error::OutputError;
use std::path::Path;

/// The manifest's name in an output folder.
pub const MANIFEST_FILE: &str = "manifest.json";

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

/// Makes `dir` ready for a run of `model` used as `how` says: creates it when missing, removes
/// an earlier run's files for [`FolderUse::Overwrite`], and refuses, changing nothing, a path
/// that is not a folder, a folder that holds a run of another kind than `how` allows, or files
/// no run's manifest lists. Returns the names of the files removed.
pub fn prepare_output_folder(
    dir: &Path,
    how: FolderUse,
    model: &str,
) -> Result<Vec<String>, OutputError> {
    let remove = check_output_folder(dir, how, model)?;
    std::fs::create_dir_all(dir).map_err(OutputError::io(dir))?;
    for name in &remove {
        let path = dir.join(name);
        std::fs::remove_file(&path).map_err(OutputError::io(&path))?;
    }
    Ok(remove)
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
    let entries = entries(dir)?;
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let earlier = EarlierRun::read(dir);
    match how {
        FolderUse::Fresh => Err(refuse(format!(
            "holds {} ({}){}: give --overwrite to replace that run, or another folder",
            count(entries.len(), "entry", "entries"),
            sample(&entries),
            match &earlier {
                Some(run) => format!(" of an earlier {} run", run.model),
                None => String::new(),
            }
        ))),
        FolderUse::Continue => match earlier {
            Some(run) if run.model != model => Err(refuse(format!(
                "holds a {} run; a resumed {model} run continues only a run of its own model: \
                 give another folder",
                run.model
            ))),
            _ => Ok(Vec::new()),
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
                .filter(|name| !run.owns(name) || !dir.join(name).is_file())
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
        Some(Self { model, outputs })
    }

    /// Whether `name` is the run's: a listed output, the manifest, or the temporary file of a
    /// write that did not finish (`write_atomically`'s `.NAME.tmp-PID-N`, a series'
    /// `.NAME.partial`), which a killed run leaves before it can list the file.
    fn owns(&self, name: &str) -> bool {
        if name == MANIFEST_FILE || self.outputs.iter().any(|o| o == name) {
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
}

/// The names in `dir`, sorted.
fn entries(dir: &Path) -> Result<Vec<String>, OutputError> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(OutputError::io(dir))? {
        let entry = entry.map_err(OutputError::io(dir))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
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
        let removed = prepare_output_folder(dir, FolderUse::Overwrite, "rdme").unwrap();
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
    fn a_resumed_run_continues_a_run_of_its_own_model_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        manifest(dir, "rdme", &["observables.csv"]);
        std::fs::write(dir.join("observables.csv"), "x").unwrap();
        assert!(prepare_output_folder(dir, FolderUse::Continue, "rdme")
            .unwrap()
            .is_empty());
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
}
