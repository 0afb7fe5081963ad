//! `petri`: run a model from its config file, list adapters, benchmark. Model logic lives in
//! petri-model; this crate parses arguments, opens the GPU, shows progress and prints results.
//! Each model's options and calls live in its module under `models/`.

use anyhow::{bail, Result};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use petri_engine::{list_adapters, DeviceRequest, GpuContext};

mod config;
mod interrupt;
mod models;
mod primitives;
mod progress;
mod run;
mod table;

#[derive(Parser)]
#[command(
    name = "petri",
    version,
    about = "Portable GPU engine for biological simulation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The adapter to open; every command that uses the GPU takes these.
#[derive(Args, Clone)]
pub(crate) struct GpuArgs {
    /// Backend: vulkan, metal, dx12, gl or all [env: PETRI_BACKEND]
    #[arg(long)]
    pub(crate) backend: Option<String>,
    /// Use the adapter whose name contains this text, e.g. "H200" or "llvmpipe", or the one at
    /// this index of `petri adapters`, e.g. 2 (GPUs of one name) [env: PETRI_ADAPTER]
    #[arg(long)]
    pub(crate) adapter: Option<String>,
}

impl GpuArgs {
    pub(crate) fn request(&self) -> DeviceRequest {
        DeviceRequest::from_env().with_overrides(self.backend.clone(), self.adapter.clone())
    }

    pub(crate) fn context(&self) -> Result<GpuContext> {
        let ctx = GpuContext::new(&self.request())?;
        eprintln!(
            "adapter: {} ({}, {}, {})",
            ctx.adapter.name, ctx.adapter.backend, ctx.adapter.device_type, ctx.adapter.driver_info
        );
        Ok(ctx)
    }

    /// `n` devices, adapters in turn (several per adapter when there are fewer).
    pub(crate) fn contexts(&self, n: usize) -> Result<Vec<GpuContext>> {
        Ok(GpuContext::new_many(&self.request(), n)?)
    }
}

#[derive(Subcommand)]
enum Command {
    /// List the GPU adapters wgpu can see, best first, with the limits the models need.
    Adapters {
        /// Only this backend: vulkan, metal, dx12, gl or all
        #[arg(long, env = "PETRI_BACKEND")]
        backend: Option<String>,
    },
    /// Run a model from its config (the model is the config's "model"; a reaction network runs
    /// as an ssa ensemble) and write its outputs.
    Run(run::RunArgs),
    /// Benchmark a model or the scheduler's primitives (GPU timestamps, CPU reference ratio).
    #[command(subcommand)]
    Bench(Bench),
    /// Check the stochastic simulators against a test suite: petri validate dsmts --method tau
    Validate(models::ssa::ValidateArgs),
    /// rdme: analyse a finished run's kymograph again, e.g. skipping more of its start
    Analyze(models::rdme::AnalyzeArgs),
}

/// `petri bench MODEL`: each model's benchmark with its own options.
#[derive(Subcommand)]
enum Bench {
    /// Field update and tip cells at several grid sizes, against the multithreaded CPU reference
    Angiogenesis(models::angiogenesis::BenchArgs),
    /// The seed's run, RK2 step time by element count and pass, memory per element, the
    /// multithreaded CPU reference and the CUDA force pass
    Epidermis(models::epidermis::BenchArgs),
    /// The gliding assay's outer step by outer x inner resolution, split by stage
    Gliding(models::gliding::bench::BenchArgs),
    /// The Min system and uniform lattices, particle-count and multi-device scaling
    Rdme(models::rdme::BenchArgs),
    /// GPU ensembles of a reaction network and GPU tau-leaping of synthetic networks
    Ssa(models::ssa::bench::BenchArgs),
    /// The scheduler's GPU primitives: scan, radix sort (32 and 20 key bits), binning
    Primitives(primitives::BenchArgs),
}

/// Three positive integers `X,Y,Z` (a workgroup size).
pub(crate) fn parse_triple(s: &str) -> std::result::Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>().map_err(|e| format!("{p:?}: {e}")))
        .collect::<std::result::Result<_, _>>()?;
    match v.as_slice() {
        [x, y, z] if x * y * z > 0 => Ok([*x, *y, *z]),
        _ => Err(format!(
            "expected three positive integers like 64,4,1, got {s:?}"
        )),
    }
}

fn adapters(backend: Option<String>) -> Result<()> {
    let list = list_adapters(backend.as_deref())?;
    if list.is_empty() {
        bail!(petri_engine::EngineError::NoAdapter {
            filter: String::new()
        });
    }
    for (i, a) in list.iter().enumerate() {
        println!("[{i}] {} ({}, {})", a.name, a.backend, a.device_type);
        println!("    driver: {} {}", a.driver, a.driver_info);
        println!(
            "    max buffer {} MiB, max storage binding {} MiB, {} storage buffers/stage, workgroup storage {} KiB, {} invocations/workgroup",
            a.max_buffer_size >> 20,
            a.max_storage_buffer_binding_size >> 20,
            a.max_storage_buffers_per_shader_stage,
            a.max_compute_workgroup_storage_size >> 10,
            a.max_compute_invocations_per_workgroup
        );
        println!(
            "    compute shaders {} ({}), timestamps {}, subgroups {}, f64 {}, f16 {}",
            yes(a.compute_shaders),
            a.shading_language,
            yes(a.timestamp_query),
            yes(a.subgroups),
            yes(a.shader_f64),
            yes(a.shader_f16)
        );
    }
    Ok(())
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn main() {
    // Before any thread starts: it may set an environment variable.
    petri_engine::headless::quiet_display_probes();
    // EGL's complaints while wgpu probes the GL backend (a DRI driver missing on a machine
    // without a GPU, before Mesa falls back to software) are not the user's; RUST_LOG shows them.
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal::gles::egl=off"),
    )
    .init();
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Adapters { backend } => adapters(backend),
        Command::Run(args) => {
            let given = run::given_flags(
                matches
                    .subcommand_matches("run")
                    .expect("the run subcommand was parsed"),
            );
            run::run(args, &given)
        }
        Command::Bench(Bench::Angiogenesis(a)) => models::angiogenesis::bench(a),
        Command::Bench(Bench::Epidermis(a)) => models::epidermis::bench(a),
        Command::Bench(Bench::Gliding(a)) => models::gliding::bench::bench(a),
        Command::Bench(Bench::Rdme(a)) => models::rdme::bench(a),
        Command::Bench(Bench::Ssa(a)) => models::ssa::bench::bench(a),
        Command::Bench(Bench::Primitives(a)) => primitives::bench(a),
        Command::Validate(a) => models::ssa::validate(a),
        Command::Analyze(a) => models::rdme::analyze(a),
    };
    if let Err(e) = result {
        eprintln!("error: {}", error_chain(&e));
        let interrupted = e.chain().any(|c| {
            matches!(
                c.downcast_ref::<petri_model::ModelError>(),
                Some(petri_model::ModelError::Interrupted { .. })
            )
        });
        std::process::exit(match interrupted {
            true => interrupt::EXIT_STATUS,
            false => 1,
        });
    }
}

/// The error and its causes joined by ": ", leaving out a cause whose text the message before
/// it already holds (many errors print their source in their own message).
fn error_chain(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_in_the_message_is_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::AlreadyExists, "File exists");
        let e = anyhow::Error::new(petri_output::OutputError::Io {
            path: "out".into(),
            source: io,
        })
        .context("--out");
        assert_eq!(error_chain(&e), "--out: I/O error on out: File exists");
    }
}
