//! Gray-Scott as a Petri [`Model`]: the one file that makes the model a citizen of `petri run`,
//! `petri bench` and every other program that opens models through a registry. Its name
//! ("gray-scott", the config's "model"), how it opens (new from the config, or resumed from a
//! checkpoint checked against it), and its benchmark's options and table.

use crate::bench::{bench, BenchOptions};
use crate::{GrayScottConfig, GrayScottSim, MODEL};
use clap::{Args, FromArgMatches};
use petri_model::command::{command_of, read_config, GpuArgs};
use petri_model::error::Result;
use petri_model::model::{Model, OpenRequest, Opened, SharedFlag};
use petri_scheduler::bench::{Meta, Table};
use std::path::PathBuf;

/// The model.
pub struct GrayScott;

impl Model for GrayScott {
    fn name(&self) -> &'static str {
        MODEL
    }
    fn about(&self) -> &'static str {
        "Gray-Scott reaction-diffusion (Pearson 1993): GPU and CPU ms per step by grid size"
    }
    /// One kernel of 16 x 16 threads: no workgroup choice to offer.
    fn shared_flags(&self) -> &'static [SharedFlag] {
        &[
            SharedFlag::Steps,
            SharedFlag::CheckpointEvery,
            SharedFlag::Resume,
        ]
    }

    fn open(&self, request: &OpenRequest) -> Result<Opened> {
        let (text, origin) = request.config(MODEL)?.json()?;
        let cfg = GrayScottConfig::from_json(text, origin)?;
        request.on_one_device(&GrayScott, |ctx| {
            Ok(Box::new(match request.resume {
                Some(path) => GrayScottSim::resume(ctx, &cfg, path)?,
                None => GrayScottSim::new(ctx, &cfg)?,
            }))
        })
    }

    fn bench_command(&self) -> Option<clap::Command> {
        Some(command_of::<BenchArgs>(MODEL, self.about()))
    }
    fn bench(&self, args: &clap::ArgMatches) -> anyhow::Result<()> {
        let args = BenchArgs::from_arg_matches(args)?;
        let base = match &args.config {
            Some(path) => {
                GrayScottConfig::from_json(&read_config(path, MODEL)?, &path.display().to_string())?
            }
            None => GrayScottConfig::default(),
        };
        let ctx = args.gpu.context()?;
        let opts = BenchOptions {
            sizes: args.sizes,
            steps: args.steps,
            cpu_steps: args.cpu_steps,
            ..BenchOptions::default()
        };
        let meta = Meta::of(&ctx);
        println!(
            "{} ({}), commit {}",
            meta.adapter,
            meta.backend,
            meta.commit.as_deref().unwrap_or("unknown")
        );
        let table = Table::print(&["grid", "GPU ms/step", "clock", "CPU ms/step", "speedup"]);
        bench(&ctx, &base, &opts, |r| {
            let or_dash = |x: Option<f64>, f: fn(f64) -> String| x.map_or("-".into(), f);
            table.row(&[
                format!("{}x{}", r.grid[0], r.grid[1]),
                format!("{:.4}", r.gpu_ms_per_step),
                r.clock.label().to_string(),
                or_dash(r.cpu_ms_per_step, |x| format!("{x:.4}")),
                or_dash(r.speedup, |x| format!("{x:.1}x")),
            ]);
        })?;
        Ok(())
    }
}

/// `petri bench gray-scott`.
#[derive(Args)]
struct BenchArgs {
    /// The config whose parameters are timed (default: Pearson's)
    #[arg(long)]
    config: Option<PathBuf>,
    /// Grid sides, comma separated
    #[arg(long, value_delimiter = ',', default_value = "64,128,256")]
    sizes: Vec<u32>,
    /// GPU steps per timed repeat
    #[arg(long, default_value_t = 500)]
    steps: u32,
    /// CPU steps per timed repeat (0: no CPU figure)
    #[arg(long, default_value_t = 50)]
    cpu_steps: u32,
    #[command(flatten)]
    gpu: GpuArgs,
}
