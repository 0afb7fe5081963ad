//! The gliding assay as a [`Model`]: it opens from its config (and a checkpoint checked
//! against it), and `petri bench gliding` times the outer step of the coupled assay at outer x
//! inner resolutions, split by stage, with each size's stencil and bound-motor cells; a
//! Markdown table.

use super::bench::{self, Size, STAGES};
use super::params::GlidingConfig;
use super::run::{start, GlidingRun, RunOptions};
use super::sim::SimOptions;
use crate::command::{cell, check_json, command_of, GpuArgs, Rows};
use crate::error::Result;
use crate::model::{Model, OpenRequest, Opened};
use anyhow::bail;
use clap::{Args, FromArgMatches};
use petri_scheduler::bench::{Meta, Table};
use std::path::PathBuf;

/// The model.
pub struct Gliding;

impl Model for Gliding {
    fn name(&self) -> &'static str {
        "gliding"
    }
    fn about(&self) -> &'static str {
        "The gliding assay's outer step by outer x inner resolution, split by stage"
    }

    fn open(&self, request: &OpenRequest) -> Result<Opened> {
        let (text, origin) = request.config(self.name())?.json()?;
        let cfg = GlidingConfig::from_json(text, origin)?;
        let opts = RunOptions::resuming(sim_options(request.workgroup)?, request.resume);
        request.on_one_device(&Gliding, |ctx| {
            let state = start(ctx, &cfg, &opts)?;
            Ok(Box::new(GlidingRun::new(ctx, state, &cfg)))
        })
    }

    fn bench_command(&self) -> Option<clap::Command> {
        Some(command_of::<BenchArgs>(self.name(), self.about()))
    }
    fn bench(&self, args: &clap::ArgMatches) -> anyhow::Result<()> {
        bench_tables(BenchArgs::from_arg_matches(args)?)
    }
}

/// The target: at most this many ms per outer step at 256^2 x 32^2 on one GPU (the
/// seed: 780 ms on four Tesla M2075).
const TARGET_MS: f64 = 200.0;
const TARGET_SIZE: Size = Size::new(256, 32);

/// `petri bench gliding`.
#[derive(Args)]
struct BenchArgs {
    /// Sizes OUTERxINNER: an OUTER^2 grid (nx = ny) by INNER^2 (ntheta = ns), e.g. 256x32. The
    /// default suits a software adapter; the sizes are
    /// 64x16,128x16,128x32,256x32,512x32
    #[arg(long, value_delimiter = ',', default_values = ["32x8"])]
    sizes: Vec<String>,
    /// Timed outer steps per repeat (1 or more)
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    steps: u32,
    /// Untimed warm-up iterations of 5 outer steps per size
    #[arg(long, default_value_t = 2)]
    warmup: u32,
    /// Timed repeats per size; the figure is their median (1 or more)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeats: u32,
    /// Workgroup size of the per-cell and per-mode passes, N,1,1
    #[arg(long, value_parser = crate::command::parse_triple)]
    workgroup: Option<[u32; 3]>,
    /// Config to take parameters from (its grid is replaced by each size's)
    #[arg(long, default_value = "assets/gliding.json")]
    config: PathBuf,
    /// Also write the rows as JSON here
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
}

fn bench_tables(args: BenchArgs) -> anyhow::Result<()> {
    check_json(args.json.as_deref())?;
    let base = GlidingConfig::from_file(&args.config)?;
    let sim = sim_options(args.workgroup)?;
    let sizes = args
        .sizes
        .iter()
        .map(|s| Size::parse(s).map_err(|e| anyhow::anyhow!("--sizes: {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let ctx = args.gpu.context()?;
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; times are wall clock");
    }
    let opts = bench::BenchOptions {
        steps: args.steps,
        warmup: args.warmup,
        repeats: args.repeats,
        sim,
    };
    let mut rows = Rows::new(Meta::of(&ctx), "gliding");
    println!(
        "Outer step by size ({}, its lengths and dt scaled with the cell; ms per outer step, \
         median of {} x {} steps):",
        args.config.display(),
        args.repeats,
        args.steps
    );
    let mut headers = vec!["outer x inner", "stencil", "motor cells", "dt", "ms/step"];
    headers.extend(STAGES);
    headers.push("Courant");
    let table = Table::print(&headers);
    let mut notes = Vec::new();
    let mut refused = 0;
    for &size in &sizes {
        let (timing, r) = match bench::bench_size(&ctx, &base, size, &opts) {
            Ok(x) => x,
            // A size the config or the adapter cannot take: said in its row, the others run.
            Err(e) => {
                let mut cells = vec![size.label(), format!("refused: {e}")];
                cells.resize(headers.len(), "-".into());
                table.row(&cells);
                refused += 1;
                continue;
            }
        };
        let mut cells = vec![
            size.label(),
            match r.motor_chunks {
                1 => format!("{}x{} ({} offsets)", r.stencil[0], r.stencil[1], r.offsets),
                n => format!(
                    "{}x{} ({} offsets, M_b in {n} bindings)",
                    r.stencil[0], r.stencil[1], r.offsets
                ),
            },
            r.motor_cells.to_string(),
            format!("{}", r.dt),
            format!("{:.3}", r.step_ms),
        ];
        cells.extend(
            STAGES
                .iter()
                .map(|s| cell(r.split_ms.get(*s).copied(), 3, "")),
        );
        cells.push(format!("{:.3}", r.courant));
        table.row(&cells);
        if let Some(n) = &r.stencil_note {
            notes.push(format!("{}: {n}", size.label()));
        }
        if size == TARGET_SIZE {
            let met = if r.step_ms <= TARGET_MS {
                "met"
            } else {
                "not met"
            };
            let stencil = match r.stencil_note {
                Some(_) => format!(" (on {} motor offsets, not the config's)", r.offsets),
                None => String::new(),
            };
            notes.push(format!(
                "{}: {:.1} ms per outer step, target at most {TARGET_MS} ms: {met}{stencil}",
                size.label(),
                r.step_ms
            ));
        }
        rows.push(("outer step", r.motor_cells, "step"), &timing, &r)?;
    }
    if refused == sizes.len() {
        bail!("every size was refused ({refused} of {refused}): nothing was measured");
    }

    for n in notes {
        println!("{n}");
    }
    rows.write(args.json.as_deref())
}

/// The simulation's options from `--workgroup N,1,1` (the default without it).
fn sim_options(workgroup: Option<[u32; 3]>) -> Result<SimOptions> {
    let mut o = SimOptions::default();
    if let Some(x) = crate::command::one_dimensional_workgroup("gliding", workgroup)? {
        o.workgroup = x;
    }
    Ok(o)
}
