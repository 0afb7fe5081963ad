//! `petri run` of a reaction network and `petri validate dsmts`, as a user meets them: the
//! output files, and bad input refused naming the field (exit code 1, no panic).

use petri_model::ssa::output::{mean_sd_figure, PLOT_COLOURS, PLOT_SIZE};
use petri_model::ssa::stats::EnsembleStats;
use petri_output::RgbImage;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn petri(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_petri"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("run petri")
}

/// mean_sd.png in `dir` is the mean +- sd figure of its mean_sd.csv (of `n` trajectories of
/// one species), titled with the network, and its band at each output time spans mean - sd to
/// mean + sd.
fn mean_sd_png_is_the_figure_of(dir: &Path, n: u64) {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let csv = std::fs::read_to_string(dir.join("mean_sd.csv")).unwrap();
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    let stats = EnsembleStats {
        times: rows.iter().map(|r| r[0]).collect(),
        species: vec!["X".into()],
        n,
        mean: rows.iter().map(|r| vec![r[1]]).collect(),
        sd: rows.iter().map(|r| vec![r[2]]).collect(),
    };
    let name = manifest["network_id"].as_str().unwrap();
    let fig = mean_sd_figure(&stats, &[0], name).unwrap();
    assert!(fig.title.starts_with(name) && fig.title.contains(&format!("{n} trajectories")));
    let drawn = fig.render_with_layout().unwrap();
    let png = RgbImage::load_png(&dir.join("mean_sd.png")).unwrap();
    assert_eq!((png.width as u32, png.height as u32), PLOT_SIZE);
    assert!(
        png.pixels == drawn.image.pixels,
        "mean_sd.png is the figure"
    );
    // Between output times 1 and 2 (not on an edge of the plot) the band's shade (the mean
    // line over it) fills the rows from mean + sd down to mean - sd, white above and below.
    let (colour, area) = (PLOT_COLOURS[0].1, &drawn.panels[0]);
    let shade = petri_output::blend([255; 3], colour, 0.25);
    let t = 0.5 * (stats.times[1] + stats.times[2]);
    let mid = |v: &[Vec<f64>]| 0.5 * (v[1][0] + v[2][0]);
    let (m, sd) = (mid(&stats.mean), mid(&stats.sd));
    let (col, top) = area.pixel(t, m + sd);
    let (_, bottom) = area.pixel(t, (m - sd).max(0.0));
    let at = |y: i32| png.get(col as usize, y as usize).unwrap();
    let is_shade = |c: [u8; 3]| c.iter().zip(&shade).all(|(a, b)| a.abs_diff(*b) <= 2);
    let shaded = (top + 2..bottom - 1).filter(|&y| is_shade(at(y))).count() as i32;
    assert!(
        shaded > bottom - top - 10,
        "{shaded} shaded rows in {top}..{bottom}"
    );
    assert!((top + 2..bottom - 1).all(|y| at(y) != [255; 3]));
    assert!(at(top - 3) == [255; 3] && at(bottom + 3) == [255; 3]);
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ssa_cli_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn network_run_writes_the_outputs() {
    let dir = scratch("run");
    let out = dir.display().to_string();
    let args = [
        "run",
        "assets/birth-death.json",
        "--method",
        "tau",
        "--trajectories",
        "40",
        "--t-end",
        "10",
        "--points",
        "11",
        "--seed",
        "5",
        "--trajectories-csv",
        "--out",
        &out,
    ];
    let o = petri(&args);
    assert!(o.status.success(), "{}", text(&o));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["method"], "tau");
    assert_eq!(manifest["seed"], 5);
    assert_eq!(manifest["trajectories"], 40);
    assert_eq!(manifest["device"], "cpu");
    assert_eq!(manifest["network_source"], "assets/birth-death.json");
    let csv = std::fs::read_to_string(dir.join("mean_sd.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("time,X-mean,X-sd"));
    assert_eq!(lines.next(), Some("0,100,0"));
    assert_eq!(csv.lines().count(), 12);
    let rows = std::fs::read_to_string(dir.join("trajectories.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 40 * 11);
    mean_sd_png_is_the_figure_of(&dir, 40);

    // Same seed, same statistics (replacing the first run).
    let o = petri(&[&args[..], &["--overwrite"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("mean_sd.csv")).unwrap(),
        csv
    );
}

/// A run stopped after 5 of 10 output times with a checkpoint, then resumed from it (the
/// options come from the checkpoint), writes the files of a straight run byte for byte.
/// A mass-action network (the optimized direct method) and a general one (DSMTS 00019's
/// assignment rule, the CPU's direct method), each stopped at an output time with a
/// checkpoint and resumed from it.
#[test]
fn a_resumed_network_run_writes_the_files_of_a_straight_one() {
    let dir = scratch("resume");
    let rule = petri_model::reactions::dsmts_dir()
        .join("00019/00019-sbml-l3v1.xml")
        .display()
        .to_string();
    for (config, method) in [
        ("assets/birth-death.json", "odm"),
        (rule.as_str(), "direct"),
    ] {
        let run = |name: &str, extra: &[&str]| {
            let out = dir.join(method).join(name).display().to_string();
            let mut args = vec!["run", config, "--out", &out];
            args.extend(extra);
            let o = petri(&args);
            assert!(o.status.success(), "{config}: {}", text(&o));
        };
        let options = [
            "--method",
            method,
            "--device",
            "cpu",
            "--trajectories",
            "30",
            "--t-end",
            "10",
            "--points",
            "11",
            "--trajectories-csv",
        ];
        run("straight", &options);
        let mut half = options.to_vec();
        half.extend(["--steps", "5", "--checkpoint-every", "5"]);
        run("resumed", &half);
        let ck = dir.join(method).join("resumed/checkpoint.petri");
        run("resumed", &["--resume", &ck.display().to_string()]);
        for file in ["mean_sd.csv", "trajectories.csv", "mean_sd.png"] {
            let read = |run: &str| std::fs::read(dir.join(method).join(run).join(file)).unwrap();
            assert!(read("straight") == read("resumed"), "{config}: {file}");
        }
    }
}

#[test]
fn bad_network_input_names_the_field() {
    let dir = scratch("bad");
    let bad_net = dir.join("bad.json");
    std::fs::write(
        &bad_net,
        r#"{"model": "network", "species": [{"id": "A", "initial_count": 3}],
            "reactions": [{"id": "r", "reactants": {"Q": 1}, "rate": 1}]}"#,
    )
    .unwrap();
    let bad_net = bad_net.display().to_string();
    let out = dir.join("o").display().to_string();
    let net = "assets/birth-death.json";
    // Sizes are refused before a device is chosen: the adapter asked for does not exist.
    let gpu = ["--device", "gpu", "--adapter", "no-such-gpu"];
    let cases: [(Vec<&str>, &str); 11] = [
        (
            vec![net, "--t-end", "1", "--method", "fast"],
            "--method = \"fast\"",
        ),
        (vec![net], "--t-end is required"),
        (vec![net, "--t-end=-1"], "t_end = -1"),
        (
            vec![net, "--t-end", "-5"],
            "t_end = -5 is not allowed: a finite time > 0",
        ),
        (vec![net, "--t-end", "1", "--points", "1"], "points = 1"),
        (
            [vec![net, "--t-end", "1", "--points", "1"], gpu.to_vec()].concat(),
            "points = 1 is not allowed",
        ),
        (
            [
                vec![net, "--t-end", "1", "--trajectories", "0"],
                gpu.to_vec(),
            ]
            .concat(),
            "trajectories = 0 is not allowed: at least 1",
        ),
        (
            vec![net, "--t-end", "1", "--plot-species", "Y"],
            "plot_species = Y",
        ),
        (vec![&bad_net, "--t-end", "1"], "reactions[0].reactants.Q"),
        (
            vec![net, "--resume", "assets/birth-death.json"],
            "birth-death.json",
        ),
        (
            vec!["assets/angiogenesis.json", "--t-end", "5"],
            "--t-end is an option of ssa (reaction network) runs only",
        ),
    ];
    for (args, why) in cases {
        let mut all = vec!["run"];
        all.extend(args);
        all.extend(["--out", &out]);
        let o = petri(&all);
        assert_eq!(o.status.code(), Some(1), "{why}: {}", text(&o));
        assert!(text(&o).contains(why), "{why}: {}", text(&o));
        assert!(!text(&o).contains("panicked"), "{}", text(&o));
    }
}

/// Issue 22 through the CLI: explosive growth stops at the count limit naming the species (it
/// ran forever), a rate of 1e308 is refused in short form, a network without species is
/// refused at load, and a UTF-8 byte order mark is accepted.
#[test]
fn hostile_networks_stop_with_a_message() {
    let dir = scratch("hostile");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let net = |species: &str, reactions: &str| {
        format!(r#"{{"model": "network", "species": [{species}], "reactions": [{reactions}]}}"#)
    };
    let x = r#"{"id": "X", "initial_count": 1}"#;
    let grow = write(
        "grow.json",
        &net(
            x,
            r#"{"id": "g", "reactants": ["X"], "products": {"X": 100}, "rate": 1}"#,
        ),
    );
    let fast = write(
        "fast.json",
        &net(x, r#"{"id": "f", "products": ["X"], "rate": 1e308}"#),
    );
    let empty = write("empty.json", &net("", ""));
    let cases = [
        (grow.as_str(), "species \"X\" reached"),
        (fast.as_str(), "reactions.f.rate = 1e308 is not allowed"),
        (empty.as_str(), "at least one species"),
    ];
    for (file, why) in cases {
        let out = dir.join("o").display().to_string();
        let o = petri(&["run", file, "--t-end", "50", "--out", &out]);
        assert_eq!(o.status.code(), Some(1), "{why}: {}", text(&o));
        assert!(text(&o).contains(why), "{why}: {}", text(&o));
        assert!(!text(&o).contains("panicked"), "{}", text(&o));
    }
    let bom = write(
        "bom.json",
        &format!(
            "\u{feff}{}",
            net(x, r#"{"id": "d", "reactants": ["X"], "rate": 1}"#)
        ),
    );
    let out = dir.join("bom").display().to_string();
    let o = petri(&["run", &bom, "--t-end", "1", "--out", &out]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn validate_prints_passes_and_refusals() {
    let o = petri(&[
        "validate",
        "dsmts",
        "--method",
        "odm",
        "--n",
        "200",
        "--cases",
        "00001,00019",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("| 00001 | pass | 51 | 0 |"), "{out}");
    assert!(
        out.contains("| 00019 | refused: ") && out.contains("assignmentRule"),
        "{out}"
    );
    let o = petri(&["validate", "dsmts", "--cases", "00099"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("00099-settings.txt"), "{}", text(&o));
}

#[test]
fn sbml_networks_run_and_the_gpu_path_writes_the_same_files() {
    let dir = scratch("sbml");
    let out = dir.display().to_string();
    let sbml = "data/dsmts/00030/00030-sbml-l3v1.xml";
    let o = petri(&[
        "run",
        sbml,
        "--method",
        "odm",
        "--trajectories",
        "50",
        "--t-end",
        "5",
        "--points",
        "6",
        "--out",
        &out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let csv = std::fs::read_to_string(dir.join("mean_sd.csv")).unwrap();
    assert!(
        csv.starts_with("time,P-mean,P-sd,P2-mean,P2-sd\n0,100,0,0,0\n"),
        "{csv}"
    );

    // The GPU ensemble (statistics reduced on the device) through the same outputs.
    let dir = scratch("gpu");
    let out = dir.display().to_string();
    let args = [
        "run",
        "assets/birth-death.json",
        "--device",
        "gpu",
        "--trajectories",
        "256",
        "--t-end",
        "10",
        "--points",
        "11",
        "--out",
        &out,
    ];
    let o = petri(&args);
    assert!(o.status.success(), "{}", text(&o));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["device"], "gpu");
    assert!(manifest["adapter"]["name"].is_string(), "{manifest}");
    let csv = std::fs::read_to_string(dir.join("mean_sd.csv")).unwrap();
    let last: Vec<f64> = csv
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    // Mean 100 e^(-0.1) = 90.5, sd about 14: 256 trajectories put the mean within +- 3.
    assert!(last[0] == 10.0 && (last[1] - 90.5).abs() < 3.0, "{csv}");
}

/// An SBML model in moles with two compartments (examples/sbml/nuclear-transport.xml) is
/// converted to counts and runs as a mass-action network, tau-leaping included: 1 uM in 1 fL
/// is 602 molecules, each of which sits in the cytoplasm at time t with probability
/// p = 0.8 + 0.2 exp(-0.25 t) (import 0.05/s, export 0.2/s), so the count there is
/// Binomial(602, p).
#[test]
fn an_sbml_model_in_moles_over_two_compartments_runs_in_molecule_counts() {
    let dir = scratch("moles");
    let out = dir.display().to_string();
    let n = 2000;
    let o = petri(&[
        "run",
        "examples/sbml/nuclear-transport.xml",
        "--method",
        "tau",
        "--device",
        "cpu",
        "--trajectories",
        &n.to_string(),
        "--t-end",
        "12",
        "--points",
        "4",
        "--out",
        &out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let csv = std::fs::read_to_string(dir.join("mean_sd.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("time,P_cyt-mean,P_cyt-sd,P_nuc-mean,P_nuc-sd")
    );
    assert_eq!(lines.next(), Some("0,602,0,0,0"));
    for line in lines {
        let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        // Every molecule is in one place or the other.
        assert!((v[1] + v[3] - 602.0).abs() < 1e-9, "{line}");
        let p = 0.8 + 0.2 * (-0.25 * v[0]).exp();
        let (mean, sd) = (602.0 * p, (602.0 * p * (1.0 - p)).sqrt());
        // Within 4.5 standard errors, plus 1 % for tau-leaping's step.
        let se = sd / (n as f64).sqrt();
        assert!(
            (v[1] - mean).abs() < 4.5 * se + 0.01 * mean,
            "{line}: mean {mean}"
        );
        assert!((v[2] - sd).abs() < 0.1 * sd, "{line}: sd {sd}");
    }
}

/// Without --device a network run picks its device and says why: on a machine whose only
/// adapter is a software one (lavapipe in CI) that is the CPU. With a hardware GPU it is the GPU.
#[test]
fn a_run_without_device_says_which_it_took_and_why() {
    let dir = scratch("auto_device");
    let out = dir.display().to_string();
    let o = petri(&[
        "run",
        "assets/birth-death.json",
        "--trajectories",
        "10",
        "--t-end",
        "5",
        "--points",
        "6",
        "--out",
        &out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    let line = said
        .lines()
        .find(|l| l.starts_with("device: "))
        .unwrap_or_else(|| panic!("no device line in {said}"));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let adapters = petri(&["adapters"]);
    let listed = text(&adapters);
    if listed.contains("DiscreteGpu") || listed.contains("IntegratedGpu") {
        assert!(line.starts_with("device: gpu ("), "{line}");
        assert_eq!(manifest["device"], "gpu");
    } else {
        assert!(
            line.starts_with("device: cpu (only a software adapter")
                || line.starts_with("device: cpu (only software adapters")
                || line == "device: cpu (no GPU adapter)",
            "{line}"
        );
        assert_eq!(manifest["device"], "cpu");
    }
    // The manifest says why, as the run did.
    let reason = line
        .split_once(" (")
        .and_then(|(_, r)| r.strip_suffix(')'))
        .unwrap();
    assert_eq!(manifest["device_reason"], reason, "{line}");
    // A device named on the command line is taken as named.
    let o = petri(&[
        "run",
        "assets/birth-death.json",
        "--trajectories",
        "10",
        "--t-end",
        "5",
        "--points",
        "6",
        "--device",
        "cpu",
        "--overwrite",
        "--out",
        &out,
    ]);
    assert!(text(&o).contains("device: cpu (asked for)"), "{}", text(&o));
}

/// An SBML model beyond mass action (a rule, an event) runs as a general network on the CPU,
/// and without events on the GPU: the rule's value is a column of mean_sd.csv, both write
/// trajectories.csv, and what the general simulators do not yet take is refused by name.
#[test]
fn general_sbml_models_run_on_the_cpu_and_gpu_and_refuse_what_they_do_not_take() {
    let case = |c: &str| {
        petri_model::reactions::dsmts_dir()
            .join(c)
            .join(format!("{c}-sbml-l3v1.xml"))
            .display()
            .to_string()
    };
    let dir = scratch("general");
    let out = dir.display().to_string();
    let rule = case("00019");
    let common = ["--trajectories", "200", "--t-end", "10", "--points", "11"];
    for (device, method) in [("cpu", "direct"), ("gpu", "direct"), ("gpu", "odm")] {
        let flags = ["--device", device, "--method", method, "--overwrite"];
        let run = ["run", rule.as_str(), "--out", &out];
        let o = petri(&[&run[..], &common[..], &flags[..]].concat());
        assert!(o.status.success(), "{device} {method}: {}", text(&o));
        let csv = std::fs::read_to_string(dir.join("mean_sd.csv")).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("time,X-mean,X-sd,y-mean,y-sd"));
        for line in lines {
            let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            // y = 2 X in every trajectory, so in the mean and the sd.
            assert_eq!((v[3], v[4]), (2.0 * v[1], 2.0 * v[2]), "{line}");
        }
        assert!(dir.join("mean_sd.png").exists());
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(manifest["device"], device, "{manifest}");
    }

    // trajectories.csv on either device: each trajectory's species counts at every output
    // time, whose mean over the trajectories is mean_sd.csv's.
    for device in ["cpu", "gpu"] {
        let o = petri(
            &[
                &["run", rule.as_str(), "--out", &out, "--overwrite"][..],
                &common[..],
                &["--device", device, "--trajectories-csv"][..],
            ]
            .concat(),
        );
        assert!(o.status.success(), "{device}: {}", text(&o));
        let table = std::fs::read_to_string(dir.join("trajectories.csv")).unwrap();
        let mut lines = table.lines();
        assert_eq!(lines.next(), Some("trajectory,time,X,y"));
        let mut sums = vec![0.0f64; 11];
        let mut rows = 0;
        for line in lines {
            let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            // y is a species the rule y = 2 X sets.
            assert_eq!(
                (v[1], v[3]),
                ((rows % 11) as f64, 2.0 * v[2]),
                "{device}: {line}"
            );
            sums[rows % 11] += v[2];
            rows += 1;
        }
        assert_eq!(rows, 200 * 11, "{device}");
        let means = std::fs::read_to_string(dir.join("mean_sd.csv")).unwrap();
        for (line, sum) in means.lines().skip(1).zip(&sums) {
            let mean: f64 = line.split(',').nth(1).unwrap().parse().unwrap();
            assert!(
                (mean - sum / 200.0).abs() <= 1e-12 * mean.abs().max(1.0),
                "{device}: {line}"
            );
        }
    }
    // Checkpoints of a general network: the CPU writes them, the GPU not yet.
    let o = petri(
        &[
            &["run", rule.as_str(), "--out", &out, "--overwrite"][..],
            &common[..],
            &["--device", "gpu", "--checkpoint-every", "2"][..],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("checkpoint_every") && text(&o).contains("--device cpu"),
        "{}",
        text(&o)
    );

    let event = case("00033");
    // The GPU runs 00033's event (no delay); a delayed copy of it stays on the CPU.
    let o = petri(
        &[
            &["run", event.as_str(), "--out", &out, "--overwrite"][..],
            &common[..],
            &["--device", "gpu"][..],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let delayed = scratch("general-delayed").join("delayed.xml");
    let xml = std::fs::read_to_string(&event).unwrap().replace(
        "</trigger>",
        r#"</trigger><delay><math xmlns="http://www.w3.org/1998/Math/MathML"><cn>0.5</cn></math></delay>"#,
    );
    std::fs::write(&delayed, xml).unwrap();
    let delayed = delayed.display().to_string();
    for (file, flags, says) in [
        (
            &event,
            &["--method", "tau"][..],
            "tau-leaping takes mass-action laws only",
        ),
        (
            &event,
            &["--method", "odm", "--device", "cpu"][..],
            "direct or odm on the GPU",
        ),
        (
            &delayed,
            &["--device", "gpu"][..],
            "without a delay on the GPU",
        ),
    ] {
        let dir = scratch("general-refused");
        let out = dir.display().to_string();
        let o = petri(
            &[
                &["run", file.as_str(), "--out", &out][..],
                &common[..],
                flags,
            ]
            .concat(),
        );
        assert_eq!(o.status.code(), Some(1), "{flags:?}: {}", text(&o));
        assert!(
            text(&o).contains(says) && !text(&o).contains("panicked"),
            "{flags:?}: {}",
            text(&o)
        );
    }
}
