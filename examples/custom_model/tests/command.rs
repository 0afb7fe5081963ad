//! The model through Petri's command line (`src/main.rs`: Petri's registry plus this model):
//! `gray-scott run` opens it by its config's "model" as `petri run` opens the workspace's, with
//! checkpoints and a resumed run equal to a straight one; `gray-scott bench gray-scott` times
//! it; the workspace's models run beside it; another model's flag is refused by name.

mod common;

use gray_scott::model::GrayScott;
use petri_model::registry::Registry;
use std::path::Path;
use std::process::{Command, Output};

fn gray_scott(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gray-scott"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("gray-scott runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn ok(args: &[&str]) -> String {
    let o = gray_scott(args);
    assert!(
        o.status.success(),
        "gray-scott {}: {}",
        args.join(" "),
        text(&o)
    );
    text(&o)
}

fn read(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{}: {e}", dir.join(file).display()))
}

#[test]
fn run_checkpoint_and_resume_through_the_command_line() {
    let straight = common::scratch("cmd-straight");
    let split = common::scratch("cmd-split");
    let s = straight.display().to_string();
    let p = split.display().to_string();
    let asset = "assets/gray_scott.json";
    let said = ok(&["run", asset, "--steps", "200", "--out", &s]);
    assert!(said.contains("grid 256x256"), "{said}");
    ok(&[
        "run",
        asset,
        "--steps",
        "100",
        "--checkpoint-every",
        "100",
        "--out",
        &p,
    ]);
    let ck = split.join("checkpoint.petri").display().to_string();
    let said = ok(&["run", asset, "--steps", "100", "--resume", &ck, "--out", &p]);
    assert!(said.contains("resuming from"), "{said}");
    for file in ["observables.csv", "fields_00000200.vti", "v.png"] {
        assert!(
            read(&straight, file) == read(&split, file),
            "{file} differs"
        );
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&read(&split, "manifest.json")).unwrap();
    assert_eq!(manifest["status"], "complete");
    assert_eq!(manifest["model"], "gray-scott");
}

#[test]
fn the_workspace_models_run_beside_it_and_flags_stay_with_their_models() {
    let out = common::scratch("cmd-network");
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/birth-death.json");
    let said = ok(&[
        "run",
        &net.display().to_string(),
        "--t-end",
        "5",
        "--trajectories",
        "10",
        "--device",
        "cpu",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(said.contains("10 trajectories"), "{said}");
    let o = gray_scott(&[
        "run",
        "assets/gray_scott.json",
        "--workgroup",
        "8,8,1",
        "--out",
        &common::scratch("cmd-refused").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains(
            "--workgroup is an option of angiogenesis, rdme, epidermis and gliding runs only"
        ),
        "{}",
        text(&o)
    );
}

#[test]
fn the_benchmark_is_a_petri_bench_subcommand() {
    let said = ok(&[
        "bench",
        "gray-scott",
        "--sizes",
        "32",
        "--steps",
        "10",
        "--cpu-steps",
        "2",
    ]);
    assert!(said.lines().any(|l| l.starts_with("| 32x32 |")), "{said}");
}

#[test]
fn a_registry_refuses_a_second_model_of_one_name() {
    let registry = Registry::default().with(&GrayScott).unwrap();
    assert!(registry.find("gray-scott").is_some());
    let e = registry.with(&GrayScott).err().expect("refused");
    assert!(e.to_string().contains("gray-scott"), "{e}");
}
