//! Bad input refused, table-driven: a non-zero exit code, no panic (exit code 101 or
//! "panicked"), a message naming the field, flag or file, and no output folder left behind.

mod common;

use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A refused command: what it is, its arguments after `petri` (split at spaces), and texts the
/// message must hold. `{name}` in either stands for the fixture `name` (a path, mostly).
type Case = (&'static str, &'static str, &'static [&'static str]);

#[rustfmt::skip]
const BAD_CONFIGS_AND_FLAGS: &[Case] = &[
    ("unknown model", "run {no_model} --out {out}", &["swarming", "angiogenesis", "rdme", "epidermis", "gliding", "network"]),
    ("unknown model to bench", "bench no-such-model", &["unrecognized subcommand 'no-such-model'"]),
    ("missing config", "run no/such/file.json --out {out}", &["no/such/file.json"]),
    ("angiogenesis: unknown key", "run {angio_colour} --out {out}", &["{angio_colour}", "unknown field", "colour"]),
    ("rdme: unknown key", "run {min_colour} --out {out}", &["{min_colour}", "unknown field", "colour"]),
    ("network: unknown key", "run {net_colour} --t-end 1 --out {out}", &["{net_colour}", "unknown field", "colour"]),
    ("angiogenesis: value out of range", "run {angio_chi} --out {out}", &["chi0", "-0.4", ">= 0"]),
    ("rdme: value out of range", "run {min_d} --out {out}", &["diffusion[0].d_m2_per_s", "<= 0.5"]),
    ("rdme: a rate that fires every step", "run {min_rate} --out {out}", &["MinD_ATP binds the membrane", "c tau", "at most 1e6"]),
    ("rdme: an infinite rate", "run {min_rate_max} --out {out}", &["MinD_ATP binds the membrane", "c tau", "inf", "at most 1e6"]),
    ("network: value out of range", "run {net_rate} --t-end 1 --out {out}", &["reactions.Death.rate", "-0.11", "[0, 1e30]"]),
    ("angiogenesis: workgroup beyond the device", "run {angio} --steps 1 --workgroup 1024,2,1 --out {out}", &["max_compute_invocations_per_workgroup"]),
    ("angiogenesis: empty workgroup", "run {angio} --workgroup 0,1,1 --out {out}", &["--workgroup", "0,1,1"]),
    ("angiogenesis: several devices", "run {angio} --devices 2 --out {out}", &["--devices"]),
    ("rdme: no devices", "run {min} --devices 0 --out {out}", &["--devices 0", "1 to lattice.shape.z"]),
    ("rdme: a lattice beyond the device's buffers", "run {min_huge} --out {out}", &["rdme particles", "max_storage_buffer_binding_size"]),
    ("rdme: more devices than planes", "run {min} --devices 100000 --out {out}", &["--devices 100000", "1 to lattice.shape.z"]),
    ("rdme: three-dimensional workgroup", "run {min} --workgroup 8,8,2 --out {out}", &["--workgroup 8,8,2", "X,Y,1"]),
    ("network: one output time", "run {net} --t-end 1 --points 1 --out {out}", &["points = 1"]),
    ("network: no trajectories", "run {net} --t-end 1 --trajectories 0 --out {out}", &["trajectories = 0"]),
    ("network: negative end time", "run {net} --t-end=-1 --out {out}", &["t_end = -1"]),
    ("network: unknown method", "run {net} --t-end 1 --method fast --out {out}", &["--method", "fast"]),
    ("network option to another model", "run {angio} --t-end 5 --out {out}", &["--t-end", "ssa (reaction network) runs only"]),
    ("angiogenesis bench: --json where no file can be made", "bench angiogenesis --json /proc/x.json", &["--json /proc/x.json", "cannot write in /proc"]),
    ("rdme bench: --json in a missing folder", "bench rdme --json {out}/no/such/rows.json", &["--json", "does not exist"]),
    ("ssa bench: --json where no file can be made", "bench ssa --json /proc/x.json", &["--json /proc/x.json", "cannot write in /proc"]),
    ("angiogenesis bench: no timed steps", "bench angiogenesis --steps 0", &["--steps", "0", "1.."]),
    ("rdme bench: no timed steps", "bench rdme --steps 0", &["--steps", "0", "1.."]),
];

#[rustfmt::skip]
const BAD_CHECKPOINTS_AND_FOLDERS: &[Case] = &[
    ("angiogenesis: corrupt checkpoint", "run --resume {angio_flipped} --out {out}", &["{angio_flipped}", "checksum does not match"]),
    ("rdme: corrupt checkpoint", "run {min} --resume {rdme_flipped} --out {out}", &["{rdme_flipped}", "checksum does not match"]),
    ("angiogenesis: truncated checkpoint", "run --resume {angio_truncated} --out {out}", &["{angio_truncated}", "truncated"]),
    ("rdme: truncated checkpoint", "run {min} --resume {rdme_truncated} --out {out}", &["{rdme_truncated}", "truncated"]),
    ("angiogenesis checkpoint to an rdme run", "run {min} --resume {angio_ck} --out {out}", &["{angio_ck}", "\"angiogenesis\"", "not of \"rdme\""]),
    ("rdme checkpoint without its config", "run --resume {rdme_ck} --out {out}", &["{rdme_ck}", "rdme checkpoint", "config"]),
    ("rdme checkpoint of another config", "run {other_seed} --resume {rdme_ck} --out {out}", &["{rdme_ck}", "seed"]),
    ("angiogenesis checkpoint to a network run", "run {net} --t-end 1 --resume {angio_ck} --out {out}", &["{angio_ck}", "\"angiogenesis\"", "not of \"network\""]),
    ("a config as a checkpoint", "run --resume {angio} --out {out}", &["{angio}", "not a Petri checkpoint"]),
    ("missing checkpoint", "run --resume no/such/checkpoint.petri --out {out}", &["no/such/checkpoint.petri"]),
    ("angiogenesis: --out is a file", "run {angio} --steps 1 --out {file}", &["--out", "{file}", "is a file, not a folder"]),
    ("rdme: --out is a file", "run {min} --steps 1 --out {file}", &["--out", "{file}", "is a file, not a folder"]),
    ("network: --out is a file", "run {net} --t-end 1 --out {file}", &["--out", "{file}", "is a file, not a folder"]),
    ("angiogenesis: --out holds a run", "run {angio} --steps 1 --out {angio_run}", &["--out", "{angio_run}", "of an earlier angiogenesis run", "--overwrite"]),
    ("rdme: --out holds a run", "run {min} --steps 1 --out {min_run}", &["--out", "{min_run}", "of an earlier rdme run", "--overwrite"]),
    ("network: --out holds a run", "run {net} --t-end 1 --out {angio_run}", &["--out", "{angio_run}", "of an earlier angiogenesis run"]),
    ("--overwrite of a folder that is no run's", "run {angio} --steps 1 --overwrite --out {notes}", &["--out", "{notes}", "no manifest.json"]),
    ("--overwrite with --resume", "run --resume {angio_ck} --overwrite --out {out}", &["--overwrite", "--resume"]),
    ("a resumed run into another model's run", "run --resume {angio_ck} --out {min_run}", &["{min_run}", "holds a rdme run", "angiogenesis"]),
];

/// `text` with every `{name}` replaced by the fixture `name`.
fn expand(text: &str, fixtures: &BTreeMap<&str, String>) -> String {
    fixtures.iter().fold(text.to_string(), |t, (name, value)| {
        t.replace(&format!("{{{name}}}"), value)
    })
}

/// Runs every case; none may create the folder `fixtures["out"]`.
fn refused(cases: &[Case], fixtures: &BTreeMap<&str, String>) {
    let out = Path::new(&fixtures["out"]);
    let mut failures = Vec::new();
    for (what, args, says) in cases {
        let args: Vec<String> = args.split(' ').map(|a| expand(a, fixtures)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = petri(&args);
        let t = text(&o);
        let mut wrong = Vec::new();
        match o.status.code() {
            Some(0) => wrong.push("it succeeded".to_string()),
            Some(101) | None => wrong.push(format!("it crashed ({:?})", o.status)),
            Some(_) => {}
        }
        if t.contains("panicked") {
            wrong.push("it panicked".into());
        }
        for s in says.iter().map(|s| expand(s, fixtures)) {
            if !t.contains(&s) {
                wrong.push(format!("no {s:?} in the message"));
            }
        }
        if out.exists() {
            wrong.push(format!("{} was created", out.display()));
            let _ = std::fs::remove_dir_all(out);
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{what}: {}\n  petri {}\n  {}",
                wrong.join("; "),
                args.join(" "),
                t.trim().replace('\n', "\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// `value` with `edit` applied, written as `dir/name`; returns the path.
fn variant(dir: &Path, name: &str, mut value: Value, edit: impl FnOnce(&mut Value)) -> String {
    edit(&mut value);
    arg(&write_config(dir, name, &value))
}

/// The small configs every table names, and the output folder no case may create.
fn fixtures(dir: &Path) -> BTreeMap<&'static str, String> {
    BTreeMap::from([
        ("out", arg(&dir.join("out"))),
        ("angio", arg(&small_angiogenesis(dir))),
        ("min", arg(&small_min_system(dir))),
        ("net", "assets/birth-death.json".to_string()),
    ])
}

#[test]
fn bad_configs_and_flags() {
    let dir = scratch("bad_input_configs");
    let mut f = fixtures(&dir);
    let colour = |c: &mut Value| c["colour"] = "red".into();
    let angio = || asset("angiogenesis.json");
    let min = || asset("min-system.json");
    let net = || asset("birth-death.json");
    f.extend([
        (
            "no_model",
            variant(&dir, "swarming.json", angio(), |c| {
                c["model"] = "swarming".into()
            }),
        ),
        (
            "angio_colour",
            variant(&dir, "angio_colour.json", angio(), colour),
        ),
        (
            "min_colour",
            variant(&dir, "min_colour.json", min(), colour),
        ),
        (
            "net_colour",
            variant(&dir, "net_colour.json", net(), colour),
        ),
        (
            "angio_chi",
            variant(&dir, "angio_chi.json", angio(), |c| {
                c["chi0"] = (-0.4).into()
            }),
        ),
        // q = D tau / lambda^2 = 19.5 > 0.5.
        (
            "min_d",
            variant(&dir, "min_d.json", min(), |c| {
                c["diffusion"][0]["d_m2_per_s"] = 2.5e-10.into()
            }),
        ),
        // 16 GiB of particle words: refused before the lattice is built.
        (
            "min_huge",
            variant(&dir, "min_huge.json", min(), |c| {
                c["lattice"]["shape"] = serde_json::json!([1024, 1024, 1024])
            }),
        ),
        (
            "min_rate",
            variant(&dir, "min_rate.json", min(), |c| {
                c["reactions"][0]["rate"] = 1e30.into()
            }),
        ),
        (
            "min_rate_max",
            variant(&dir, "min_rate_max.json", min(), |c| {
                c["reactions"][0]["rate"] = 1e308.into()
            }),
        ),
        (
            "net_rate",
            variant(&dir, "net_rate.json", net(), |c| {
                c["parameters"]["mu"] = (-0.11).into()
            }),
        ),
    ]);
    refused(BAD_CONFIGS_AND_FLAGS, &f);
}

/// Writes two damaged copies of the checkpoint at `path`: one with a byte flipped in the middle
/// (inside the arrays, so the checksum must catch it) and one cut in half.
fn damaged_copies(path: &Path, dir: &Path, model: &str) -> [String; 2] {
    let bytes = std::fs::read(path).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x10;
    let copy = |kind: &str, b: &[u8]| {
        let p = dir.join(format!("{model}_{kind}.petri"));
        std::fs::write(&p, b).unwrap();
        arg(&p)
    };
    [
        copy("flipped", &flipped),
        copy("truncated", &bytes[..bytes.len() / 2]),
    ]
}

#[test]
fn bad_checkpoints_and_output_folders() {
    let dir = scratch("bad_input_checkpoints");
    let mut f = fixtures(&dir);
    let runs = [
        ("angio", ["angio_ck", "angio_flipped", "angio_truncated"]),
        ("min", ["rdme_ck", "rdme_flipped", "rdme_truncated"]),
    ];
    for (config, [ck_name, flipped_name, truncated_name]) in runs {
        let out = dir.join(ck_name);
        petri_ok(&[
            "run",
            &f[config],
            "--steps",
            "2",
            "--checkpoint-every",
            "2",
            "--out",
            &arg(&out),
        ]);
        let ck = out.join("checkpoint.petri");
        let [flipped, truncated] = damaged_copies(&ck, &dir, config);
        f.extend([
            (ck_name, arg(&ck)),
            (flipped_name, flipped),
            (truncated_name, truncated),
        ]);
    }
    let min: Value = serde_json::from_str(&std::fs::read_to_string(&f["min"]).unwrap()).unwrap();
    f.insert(
        "other_seed",
        variant(&dir, "other_seed.json", min, |c| c["seed"] = 6.into()),
    );
    let file = dir.join("a_file");
    std::fs::write(&file, "not a folder").unwrap();
    f.insert("file", arg(&file));
    let notes = dir.join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("notes.txt"), "mine").unwrap();
    f.insert("notes", arg(&notes));
    f.insert("angio_run", arg(&dir.join("angio_ck")));
    f.insert("min_run", arg(&dir.join("rdme_ck")));
    let before: Vec<_> = ["angio_ck", "rdme_ck", "notes"]
        .iter()
        .map(|d| folder_bytes(&dir.join(d)))
        .collect();
    refused(BAD_CHECKPOINTS_AND_FOLDERS, &f);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder");
    for (d, was) in ["angio_ck", "rdme_ck", "notes"].iter().zip(before) {
        assert!(folder_bytes(&dir.join(d)) == was, "{d} changed");
    }
}

/// Every file of `dir` with its bytes, by name.
fn folder_bytes(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let bytes = std::fs::read(e.path()).unwrap();
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

/// `--overwrite` replaces the earlier run: its files go (a checkpoint the new run does not
/// write included), and the folder's manifest lists exactly the files there.
#[test]
fn overwrite_replaces_the_earlier_run_and_the_manifest_lists_the_folder() {
    let dir = scratch("overwrite");
    let f = fixtures(&dir);
    let out = dir.join("run");
    let out_arg = arg(&out);
    let run = ["run", &f["angio"], "--steps", "2", "--out", &out_arg];
    petri_ok(&[&run[..], &["--checkpoint-every", "2"]].concat());
    assert!(out.join("checkpoint.petri").exists());
    petri_ok(&[&run[..], &["--overwrite"]].concat());
    assert!(!out.join("checkpoint.petri").exists());
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["status"], "complete");
    let mut listed: Vec<String> = manifest["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    listed.sort();
    let files: Vec<String> = folder_bytes(&out).into_keys().collect();
    assert_eq!(listed, files);
}
