//! Counts over time of an angiogenesis config, run with the CPU reference (`cpu::step`, the GPU's
//! twin) for a range of seeds, one after the other: the figures of docs/models/angiogenesis.md.
//!
//!     angiogenesis_counts CONFIG FIRST_SEED LAST_SEED EVERY T_END [KEY=VALUE ...]
//!
//! KEY=VALUE overrides a top-level config key or a `tips.` one with a JSON value, e.g.
//! `tumour='"sphere"'` or `tips.capture='"site"'`; `picture=PATH` draws the last seed's final
//! state there (`vessels.png`'s picture, output.rs). Prints one line per seed and time (t, sprouts,
//! live tips, loops, in tumour, the largest x of a live tip, occupied sites) and each seed's first
//! arrival at the tumour.

use petri_model::angiogenesis::output::write_picture;
use petri_model::angiogenesis::state::Counter;
use petri_model::angiogenesis::{cpu, walk::WalkTable, AngioConfig, AngioState, AngioUniforms};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(
        args.len() >= 6,
        "usage: angiogenesis_counts CONFIG FIRST_SEED LAST_SEED EVERY T_END [KEY=VALUE ...]"
    );
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&args[1])?)?;
    let mut picture = None;
    for kv in &args[6..] {
        let (key, value) = kv
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("override {kv:?} is not KEY=VALUE"))?;
        if key == "picture" {
            picture = Some(std::path::PathBuf::from(value));
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(value)?;
        match key.strip_prefix("tips.") {
            Some(k) => json["tips"][k] = value,
            None => json[key] = value,
        }
    }
    let cfg = AngioConfig::from_json(&json.to_string(), &args[1])?;
    let (first, last): (u64, u64) = (args[2].parse()?, args[3].parse()?);
    let (every, t_end): (f64, f64) = (args[4].parse()?, args[5].parse()?);
    println!("seed t sprouts live loops reached front_x occupied");
    for seed in first..=last {
        let u0 = AngioUniforms::new(&cfg, 0.0);
        let mut s = AngioState::initial(&cfg, &u0);
        let k = cfg.time_step(s.max_taxis_speed_sq(&cfg, &u0))?;
        let u = AngioUniforms::new(&cfg, k);
        let walk = WalkTable::new(u.walk_events)?;
        let mut arrival = None;
        for m in 1..=(t_end / every).round() as u32 {
            while (s.step as f64) * k < m as f64 * every {
                cpu::step(&u, &walk, seed, true, &mut s);
                if arrival.is_none() && s.counter(Counter::Reached) > 0 {
                    arrival = Some(s.step as f64 * k);
                }
            }
            let loops = s.counter(Counter::Anastomoses);
            let reached = s.counter(Counter::Reached);
            let live = s.counter(Counter::Tips) - loops - reached;
            let front = s
                .tips
                .iter()
                .filter(|t| t.alive != 0)
                .map(|t| u.coords(t.site)[0])
                .max()
                .map_or(f64::NAN, |x| {
                    x as f64 / (u.nx.max(u.ny).max(u.nz) - 1) as f64
                });
            println!(
                "{seed} {:.2} {} {live} {loops} {reached} {front:.3} {}",
                s.step as f64 * k,
                s.counter(Counter::Tips),
                s.occupied_sites()
            );
        }
        match arrival {
            Some(t) => println!("# seed {seed}: first arrival at t = {t:.2}"),
            None => println!("# seed {seed}: no arrival by t = {t_end}"),
        }
        if let (Some(path), true) = (&picture, seed == last) {
            write_picture(&[path.as_path()], &cfg, k, &s)?;
        }
    }
    Ok(())
}
