//! The gliding assay against hostile but realistic configs (issue 43): sizes whose memory no
//! machine holds, initial conditions whose loops would never end, motor rates that would take
//! 10^5 sub-steps a step or go NaN in f32, each refused at validation, at once, naming the
//! config's field, the value and what is allowed; what is allowed still runs. CPU only.

mod gliding_common;

use gliding_common::{asset, tiny};
use petri_model::gliding::budget::{Footprint, MAX_DEVICE_BYTES};
use petri_model::gliding::init::initial_psi;
use petri_model::gliding::motors::check_substeps;
use petri_model::gliding::params::GlidingConfig;
use petri_model::gliding::MotorTables;
use std::time::{Duration, Instant};

/// The refusal of `cfg`, within a second (no loop or allocation sized by the bad value).
fn refusal(cfg: &GlidingConfig) -> String {
    let start = Instant::now();
    let e = cfg.validate().unwrap_err().to_string();
    assert!(start.elapsed() < Duration::from_secs(1), "slow: {e}");
    e
}

fn with(change: impl Fn(&mut GlidingConfig)) -> GlidingConfig {
    let mut c = tiny();
    change(&mut c);
    c
}

/// Every word of `words` in `e`.
fn says(e: &str, words: &[&str]) {
    for w in words {
        assert!(e.contains(w), "{e:?} lacks {w:?}");
    }
}

#[test]
fn sizes_are_bounded_before_anything_is_allocated() {
    for nz in [100_000_000, 1 << 40, 1 << 62, usize::MAX] {
        let e = refusal(&with(|c| c.grid.nz = nz));
        says(&e, &["grid.nz", &nz.to_string(), "4..=4096 levels"]);
    }
    let e = refusal(&with(|c| c.steps = u64::MAX));
    says(&e, &["steps = 18446744073709551615", "at most 4294967295"]);
    let e = refusal(&with(|c| c.grid.ns = 1 << 40));
    says(&e, &["grid.ns", "2..=2047"]);
    let e = refusal(&with(|c| c.grid.ntheta = 1 << 40));
    says(&e, &["grid.ntheta", "3..=4096"]);
    let e = refusal(&with(|c| (c.grid.nx, c.grid.ny) = (1 << 62, 1 << 62)));
    says(&e, &["grid.nx", "power of two in 1..=65536"]);
    let e = refusal(&with(|c| {
        (c.grid.nx, c.grid.ny, c.grid.ntheta) = (1 << 16, 1 << 16, 64)
    }));
    says(&e, &["grid.nx x grid.ny x grid.ntheta", "2^28"]);
    // An anchor's M_b block (the host's motor tables) past 2^24 values.
    let e = refusal(&with(|c| {
        (c.grid.ntheta, c.grid.ns) = (4096, 2047);
    }));
    says(
        &e,
        &[
            "grid.ntheta x grid.ns x the motor stencil",
            "4096 x 2047 x 3 x 3",
            "at most 16777216",
        ],
    );
}

/// The memory a run takes, from the config alone: the fluid's part grows with nz, the motors'
/// with the stencil; past the most one GPU holds the run is refused naming the part's fields.
#[test]
fn the_memory_of_a_run_is_computed_and_refused_past_the_limit() {
    let small = Footprint::of(&tiny());
    let deep = Footprint::of(&with(|c| c.grid.nz = 64));
    assert!(deep.device() > small.device() && deep.host() > small.host());
    // The tiny grid: 8 x 8 x 6 angles x 4 arc cells on a 3 x 3 stencil, 8 levels.
    let (n, cells, nz, block) = (64.0, 384.0, 8.0, 9.0 * 24.0);
    let bound = 4.0 * n * (2.0 * block + 2.0 * 64.0);
    assert_eq!(
        small.device(),
        76.0 * cells + 56.0 * n + 144.0 * nz * n + bound
    );
    assert!(small.host() < small.device());

    // 8192^2 cells x 4 angles x 4096 levels: 36 TiB of fluid.
    let big = with(|c| {
        c.initial.kind = "isotropic".into();
        (c.grid.nx, c.grid.ny, c.grid.lx, c.grid.ly) = (8192, 8192, 4096.0, 4096.0);
        (c.grid.ntheta, c.grid.nz) = (4, 4096);
    });
    assert!(Footprint::of(&big).device() > MAX_DEVICE_BYTES);
    let e = refusal(&big);
    says(
        &e,
        &[
            "out of device memory",
            "the fluid: grid.nx x grid.ny x grid.nz = 8192 x 8192 x 4096",
            "the most a config may ask is 192.0 GiB",
        ],
    );
    // 4096^2 anchors x 16 x 64 on 3 x 3 offsets: 1.2 TiB of bound motors.
    let motors = with(|c| {
        c.initial.kind = "isotropic".into();
        (c.grid.nx, c.grid.ny, c.grid.lx, c.grid.ly) = (4096, 4096, 2048.0, 2048.0);
        (c.grid.ntheta, c.grid.ns) = (16, 64);
    });
    let e = refusal(&motors);
    says(
        &e,
        &[
            "the bound motors: grid.nx x grid.ny x grid.ntheta x grid.ns",
            "4096 x 4096 x 16 x 64 x 9",
        ],
    );
    // The asset fits.
    assert!(Footprint::of(&asset()).device() < 1e9);
}

/// The ring start visits only the rings that reach a cell: a tiny spacing over a huge period
/// is refused at once, naming the spacing and the least allowed; a huge period with a normal
/// spacing runs, and the rings that are visited give the sum over all of them.
#[test]
fn the_ring_start_is_bounded_by_its_work() {
    let e = refusal(&with(|c| {
        (c.grid.lx, c.grid.ly) = (1e6, 1e6);
        c.initial.ring_spacing = 1e-6;
    }));
    says(
        &e,
        &[
            "initial.ring_spacing = 0.000001",
            "at least about",
            "ring terms in all",
        ],
    );
    let e = refusal(&with(|c| {
        (c.grid.lx, c.grid.ly) = (1e6, 1e6);
        (c.initial.ring_radius, c.initial.ring_spacing) = (1e5, 1.0);
    }));
    says(&e, &["initial.ring_spacing"]);

    // 125,000 x 125,000 rings over a period of 1e6: only those near a cell are visited.
    let huge = with(|c| {
        (c.grid.lx, c.grid.ly) = (1e6, 1e6);
        (c.motors.capture_radius, c.initial.ring_spacing) = (0.4, 8.0);
    });
    huge.validate().unwrap();
    let start = Instant::now();
    let psi = initial_psi(&huge);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(psi.iter().all(|v| v.is_finite() && *v >= 0.0));

    // Overlapping rings on the tiny grid (each cell reached by many, some from beyond the
    // period): the density sum_theta Psi dtheta = density (background + sum of every ring's
    // weight), summed here over the whole lattice.
    // 16 x 16 rings over a period of 16, each reaching 3.75: a window of 10 of them.
    let dense = with(|c| {
        (c.grid.lx, c.grid.ly) = (16.0, 16.0);
        (
            c.initial.ring_radius,
            c.initial.ring_spacing,
            c.initial.ring_width,
        ) = (1.5, 1.0, 0.3);
        c.initial.noise = 0.0;
    });
    dense.validate().unwrap();
    let psi = initial_psi(&dense);
    let (g, i) = (&dense.grid, &dense.initial);
    let wrap = |d: f64| d - 16.0 * (d / 16.0).round();
    let dtheta = std::f64::consts::TAU / g.ntheta as f64;
    for cell in 0..64 {
        let (x, y) = ((cell % 8) as f64 * 2.0, (cell / 8) as f64 * 2.0);
        let mut weight = 0.0;
        for q in 0..16 {
            for p in 0..16 {
                let r = wrap(x - (p as f64 + 0.5)).hypot(wrap(y - (q as f64 + 0.5)));
                let w = (-(r - i.ring_radius).powi(2) / (2.0 * i.ring_width.powi(2))).exp();
                weight += if w < 1e-12 { 0.0 } else { w };
            }
        }
        let c: f64 = (0..g.ntheta).map(|k| psi[k * 64 + cell]).sum::<f64>() * dtheta;
        let want = i.density * (i.background + weight);
        assert!(
            (c - want).abs() < 1e-12 * want,
            "cell {cell}: {c} against {want}"
        );
    }
}

/// Motor rates: each outer step takes dt (2 speed/ds + k_off + k_on W) sub-steps; a config past
/// 1024 is refused naming the largest term's field and its largest allowed value, which is
/// then accepted.
#[test]
fn motor_sub_steps_are_bounded_naming_the_largest_allowed() {
    let base = asset();
    let mut fast = base.clone();
    fast.motors.speed = 1e6;
    let e = refusal(&fast);
    // dt 0.01, ds 1/16, k_off 1, k_on 5 x W = 0.503: (1024 / 0.01 - 3.51) / 32 = 3199.9.
    says(
        &e,
        &[
            "motors.speed = 1000000",
            "at most 3190:",
            "at most 1024",
            "ds = motors.arc / grid.ns = 0.0625",
        ],
    );
    fast.motors.speed = 3190.0;
    fast.validate().unwrap();
    fast.motors.speed = 3300.0;
    assert!(refusal(&fast).contains("motors.speed = 3300"));

    let mut binding = base.clone();
    binding.motors.k_on = 1e6;
    says(&refusal(&binding), &["motors.k_on = 1000000", "at most"]);
    let mut unbinding = base.clone();
    unbinding.motors.k_off = 5e5;
    says(
        &refusal(&unbinding),
        &["motors.k_off = 500000", "at most 102000"],
    );
}

/// In a run, a Psi that crowds into the capture discs raises the motors' sub-steps past what
/// the GPU takes: the observation stops the run, naming the step and what to lower.
#[test]
fn crowded_filaments_stop_the_run_when_the_motors_need_too_many_sub_steps() {
    let cfg = tiny();
    let m = cfg.motor_config();
    let tables = MotorTables::new(&m).unwrap();
    let cells = cfg.grid.nx * cfg.grid.ny * cfg.grid.ntheta;
    let calm = vec![0.2f32; cells];
    check_substeps(&m, &tables, &calm, cfg.dt, 40).unwrap();
    let mut crowded = calm.clone();
    crowded[9] = 1e9;
    let e = check_substeps(&m, &tables, &crowded, cfg.dt, 40)
        .unwrap_err()
        .to_string();
    says(
        &e,
        &[
            "at step 40 the bound motors need",
            "more than the 65536 the GPU takes",
            "motors.k_on",
        ],
    );
}

/// Values that are finite in f64 but not in f32 (or 0 there) are refused at validation, naming
/// the field: the GPU would turn them into NaN a minute into the run.
#[test]
fn values_past_f32_are_refused_naming_the_field() {
    type Change = fn(&mut GlidingConfig, f64);
    let cases: [(&str, Change); 14] = [
        ("motors.speed", |c, v| c.motors.speed = v),
        ("motors.k_on", |c, v| c.motors.k_on = v),
        ("motors.k_off", |c, v| c.motors.k_off = v),
        ("motors.force", |c, v| c.motors.force = v),
        ("motors.length", |c, v| c.motors.length = v),
        ("motors.arc", |c, v| c.motors.arc = v),
        ("motors.capture_radius", |c, v| c.motors.capture_radius = v),
        ("fluid.mu", |c, v| c.fluid.mu = v),
        ("fluid.eps", |c, v| c.fluid.eps = v),
        ("filaments.d_t", |c, v| c.filaments.d_t = v),
        ("filaments.d_r", |c, v| c.filaments.d_r = v),
        ("grid.lx", |c, v| c.grid.lx = v),
        ("grid.ly", |c, v| c.grid.ly = v),
        ("initial.ring_width", |c, v| c.initial.ring_width = v),
    ];
    for (field, change) in cases {
        for v in [1e300, -1e300, f64::NAN] {
            let e = refusal(&with(|c| change(c, v)));
            assert!(
                e.starts_with(&format!("config: {field} = ")),
                "{field} {v}: {e}"
            );
            assert!(e.contains(" in ["), "{field} {v}: {e}");
        }
    }
    let e = refusal(&with(|c| c.fluid.mu = 1e-300));
    says(&e, &["fluid.mu = 1e-300", "a viscosity in [1e-6, 1e6]"]);
}

/// A period of 1e-300 is refused as itself, not as a capture radius spanning 2^64 - 1 cells;
/// a capture radius over half the period says how many cells it spans of which grid.
#[test]
fn periods_and_the_capture_disc_are_reported_as_the_config_has_them() {
    let e = refusal(&with(|c| c.grid.lx = 1e-300));
    says(&e, &["grid.lx = 1e-300", "a period in [1e-6, 1e6]"]);
    let e = refusal(&with(|c| c.grid.lx = 1e-6));
    says(
        &e,
        &[
            "motors.capture_radius = 0.4",
            "grid.nx x grid.ny = 8 x 8",
            "grid.lx x grid.ly = 0.000001 x 4",
        ],
    );
    assert!(!e.contains("18446744073709551615"), "{e}");
    // A disc that holds no cell centre: refused at validation, not when the run is built.
    let e = refusal(&with(|c| c.motors.capture_radius = 1e-6));
    says(
        &e,
        &[
            "motors.capture_radius = 0.000001",
            "holds at least one (x, theta, s) cell",
        ],
    );
    let e = refusal(&with(|c| c.motors.capture_radius = 3.0));
    says(
        &e,
        &[
            "motors.capture_radius + motors.length/2 = 3.5 under half a period",
            "spans 15 x 15 cells",
        ],
    );
}

/// Every numeric field at values a user may type by mistake (of the wrong sign, size or type):
/// accepted, or refused naming that field (or the field the message says must change with it).
#[test]
fn every_field_names_itself_when_refused() {
    let base = serde_json::to_value(tiny()).unwrap();
    let mut leaves = Vec::new();
    for (section, v) in base.as_object().unwrap() {
        match v {
            serde_json::Value::Object(m) => {
                let numbers = m.iter().filter(|(_, v)| v.is_number());
                leaves.extend(numbers.map(|(k, _)| format!("{section}.{k}")));
            }
            serde_json::Value::Number(_) => leaves.push(section.clone()),
            _ => {}
        }
    }
    for leaf in leaves.iter().filter(|l| !l.starts_with("provenance")) {
        let (section, key) = leaf.split_once('.').unwrap_or((leaf, ""));
        let integer = match key {
            "" => base[section].is_u64(),
            key => base[section][key].is_u64(),
        };
        let values = match integer {
            true => vec!["0", "1", "-1", "4611686018427387904", "1e30", "\"x\""],
            false => vec!["0", "-1", "1e-300", "1e300", "1e6", "\"x\"", "null"],
        };
        for v in values {
            let mut json = base.clone();
            let slot = match key {
                "" => &mut json[section],
                key => &mut json[section][key],
            };
            *slot = serde_json::from_str(v).unwrap();
            let e = match GlidingConfig::from_json(&json.to_string(), "edited.json") {
                Ok(_) => continue,
                Err(e) => e.to_string(),
            };
            // Refused as this field, or as another whose message names this one; a value of
            // the wrong type by the JSON reader, with the field's path.
            assert!(e.contains(leaf.as_str()), "{leaf} = {v}: {e}");
        }
    }
}
