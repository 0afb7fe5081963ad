//! Bad input refused, table-driven: a non-zero exit code, no panic (exit code 101 or
//! "panicked"), a message naming the field, flag or file, and no output folder left behind.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// One refused command: what it is, its arguments after `petri`, and texts the message holds.
struct Case {
    what: &'static str,
    args: Vec<String>,
    says: Vec<String>,
}

fn case(what: &'static str, args: &[&str], says: &[&str]) -> Case {
    Case {
        what,
        args: args.iter().map(|s| s.to_string()).collect(),
        says: says.iter().map(|s| s.to_string()).collect(),
    }
}

/// Runs every case; `out` is the output folder the cases name, which none may create.
fn refused(cases: &[Case], out: &Path) {
    let mut failures = Vec::new();
    for c in cases {
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
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
        for s in &c.says {
            if !t.contains(s.as_str()) {
                wrong.push(format!("no {s:?} in the message"));
            }
        }
        if out.exists() {
            wrong.push(format!("{} was created", out.display()));
            let _ = std::fs::remove_dir_all(out);
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{}: {}\n  petri {}\n  {}",
                c.what,
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

#[test]
fn bad_configs_and_flags() {
    let dir = scratch("bad_input_configs");
    let out = dir.join("out");
    let o = arg(&out);
    let angio = arg(&small_angiogenesis(&dir));
    let min = arg(&small_min_system(&dir));
    let net = "assets/birth-death.json";
    let unknown_model = variant(&dir, "gliding.json", asset("angiogenesis.json"), |c| {
        c["model"] = "gliding".into()
    });
    let colour = |c: &mut Value| c["colour"] = "red".into();
    let angio_colour = variant(
        &dir,
        "angio_colour.json",
        asset("angiogenesis.json"),
        colour,
    );
    let min_colour = variant(&dir, "min_colour.json", asset("min-system.json"), colour);
    let net_colour = variant(&dir, "net_colour.json", asset("birth-death.json"), colour);
    let angio_chi = variant(&dir, "angio_chi.json", asset("angiogenesis.json"), |c| {
        c["chi0"] = (-0.4).into()
    });
    // q = D tau / lambda^2 = 19.5 > 0.5.
    let min_d = variant(&dir, "min_d.json", asset("min-system.json"), |c| {
        c["diffusion"][0]["d_m2_per_s"] = 2.5e-10.into()
    });
    let net_rate = variant(&dir, "net_rate.json", asset("birth-death.json"), |c| {
        c["parameters"]["mu"] = (-0.11).into()
    });
    let cases = [
        case(
            "unknown model",
            &["run", &unknown_model, "--out", &o],
            &["gliding", "angiogenesis", "rdme", "network"],
        ),
        case(
            "unknown model to bench",
            &["bench", "gliding"],
            &["gliding", "angiogenesis"],
        ),
        case(
            "missing config",
            &["run", "no/such/file.json", "--out", &o],
            &["no/such/file.json"],
        ),
        case(
            "angiogenesis: unknown key",
            &["run", &angio_colour, "--out", &o],
            &["angio_colour.json", "unknown field", "colour"],
        ),
        case(
            "rdme: unknown key",
            &["run", &min_colour, "--out", &o],
            &["min_colour.json", "unknown field", "colour"],
        ),
        case(
            "network: unknown key",
            &["run", &net_colour, "--t-end", "1", "--out", &o],
            &["net_colour.json", "unknown field", "colour"],
        ),
        case(
            "angiogenesis: value out of range",
            &["run", &angio_chi, "--out", &o],
            &["chi0", "-0.4", ">= 0"],
        ),
        case(
            "rdme: value out of range",
            &["run", &min_d, "--out", &o],
            &["diffusion[0].d_m2_per_s", "<= 0.5"],
        ),
        case(
            "network: value out of range",
            &["run", &net_rate, "--t-end", "1", "--out", &o],
            &["reactions.Death.rate", "-0.11", ">= 0"],
        ),
        case(
            "angiogenesis: workgroup beyond the device",
            &[
                "run",
                &angio,
                "--steps",
                "1",
                "--workgroup",
                "1024,2,1",
                "--out",
                &o,
            ],
            &["max_compute_invocations_per_workgroup"],
        ),
        case(
            "angiogenesis: empty workgroup",
            &["run", &angio, "--workgroup", "0,1,1", "--out", &o],
            &["--workgroup", "0,1,1"],
        ),
        case(
            "angiogenesis: several devices",
            &["run", &angio, "--devices", "2", "--out", &o],
            &["--devices"],
        ),
        case(
            "rdme: no devices",
            &["run", &min, "--devices", "0", "--out", &o],
            &["devices", "0", "at least one"],
        ),
        case(
            "rdme: three-dimensional workgroup",
            &["run", &min, "--workgroup", "8,8,2", "--out", &o],
            &["--workgroup 8,8,2", "X,Y,1"],
        ),
        case(
            "network: one output time",
            &["run", net, "--t-end", "1", "--points", "1", "--out", &o],
            &["points = 1"],
        ),
        case(
            "network: no trajectories",
            &[
                "run",
                net,
                "--t-end",
                "1",
                "--trajectories",
                "0",
                "--out",
                &o,
            ],
            &["trajectories = 0"],
        ),
        case(
            "network: negative end time",
            &["run", net, "--t-end=-1", "--out", &o],
            &["t_end = -1"],
        ),
        case(
            "network: unknown method",
            &["run", net, "--t-end", "1", "--method", "fast", "--out", &o],
            &["--method", "fast"],
        ),
        case(
            "network option to another model",
            &["run", &angio, "--t-end", "5", "--out", &o],
            &["--t-end", "reaction-network runs only"],
        ),
    ];
    refused(&cases, &out);
}

/// Flips one byte in the middle of a copy of `path` (inside the arrays: the checksum must
/// catch it) and writes a copy cut in half.
fn damaged_copies(path: &Path, dir: &Path, name: &str) -> (String, String) {
    let bytes = std::fs::read(path).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x10;
    let (f, t) = (
        dir.join(format!("{name}_flipped.petri")),
        dir.join(format!("{name}_truncated.petri")),
    );
    std::fs::write(&f, flipped).unwrap();
    std::fs::write(&t, &bytes[..bytes.len() / 2]).unwrap();
    (arg(&f), arg(&t))
}

#[test]
fn bad_checkpoints_and_output_folders() {
    let dir = scratch("bad_input_checkpoints");
    let angio = arg(&small_angiogenesis(&dir));
    let min = arg(&small_min_system(&dir));
    let (a, r) = (dir.join("a"), dir.join("r"));
    petri_ok(&[
        "run",
        &angio,
        "--steps",
        "2",
        "--checkpoint-every",
        "2",
        "--out",
        &arg(&a),
    ]);
    petri_ok(&[
        "run",
        &min,
        "--steps",
        "2",
        "--checkpoint-every",
        "2",
        "--out",
        &arg(&r),
    ]);
    let (a_ck, r_ck) = (a.join("checkpoint.petri"), r.join("checkpoint.petri"));
    let (a_flipped, a_truncated) = damaged_copies(&a_ck, &dir, "angiogenesis");
    let (r_flipped, r_truncated) = damaged_copies(&r_ck, &dir, "rdme");
    let (a_ck, r_ck) = (arg(&a_ck), arg(&r_ck));
    let other_seed = variant(
        &dir,
        "other_seed.json",
        serde_json::from_str(&std::fs::read_to_string(&min).unwrap()).unwrap(),
        |c| c["seed"] = 6.into(),
    );
    let file = dir.join("a_file");
    std::fs::write(&file, "not a folder").unwrap();
    let f = arg(&file);
    let out = dir.join("out");
    let o = arg(&out);
    let net = "assets/birth-death.json";
    let cases = [
        case(
            "angiogenesis: corrupt checkpoint",
            &["run", "--resume", &a_flipped, "--out", &o],
            &[&a_flipped, "checksum does not match"],
        ),
        case(
            "rdme: corrupt checkpoint",
            &["run", &min, "--resume", &r_flipped, "--out", &o],
            &[&r_flipped, "checksum does not match"],
        ),
        case(
            "angiogenesis: truncated checkpoint",
            &["run", "--resume", &a_truncated, "--out", &o],
            &[&a_truncated, "truncated"],
        ),
        case(
            "rdme: truncated checkpoint",
            &["run", &min, "--resume", &r_truncated, "--out", &o],
            &[&r_truncated, "truncated"],
        ),
        case(
            "angiogenesis checkpoint to an rdme run",
            &["run", &min, "--resume", &a_ck, "--out", &o],
            &[&a_ck, "\"angiogenesis\"", "not of \"rdme\""],
        ),
        case(
            "rdme checkpoint without its config",
            &["run", "--resume", &r_ck, "--out", &o],
            &[&r_ck, "rdme checkpoint", "config"],
        ),
        case(
            "rdme checkpoint of another config",
            &["run", &other_seed, "--resume", &r_ck, "--out", &o],
            &[&r_ck, "seed"],
        ),
        case(
            "checkpoint to a network run",
            &["run", net, "--t-end", "1", "--resume", &a_ck, "--out", &o],
            &["--resume", "network run"],
        ),
        case(
            "a config as a checkpoint",
            &["run", "--resume", &angio, "--out", &o],
            &[&angio, "not a Petri checkpoint"],
        ),
        case(
            "missing checkpoint",
            &["run", "--resume", "no/such/checkpoint.petri", "--out", &o],
            &["no/such/checkpoint.petri"],
        ),
        case(
            "angiogenesis: --out is a file",
            &["run", &angio, "--steps", "1", "--out", &f],
            &[&f, "exists"],
        ),
        case(
            "rdme: --out is a file",
            &["run", &min, "--steps", "1", "--out", &f],
            &[&f, "exists"],
        ),
        case(
            "network: --out is a file",
            &["run", net, "--t-end", "1", "--out", &f],
            &[&f, "exists"],
        ),
    ];
    refused(&cases, &out);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder");
}
