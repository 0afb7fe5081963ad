//! `petri`: run a model from its config file, sweep its parameters, list adapters, benchmark. Model logic lives in
//! petri-model, each model behind its `Model` (its flags, how it opens, its benchmark); this
//! crate parses arguments, shows progress and prints results, for whichever models it is given.
//! `petri` itself runs the workspace's models; a program built on Petri passes its own too
//! ([`main_with`]).

use anyhow::{anyhow, bail, Result};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use petri_engine::list_adapters;
use petri_model::registry::Registry;

mod interrupt;
mod primitives;
mod progress;
#[cfg(feature = "mpi")]
mod ranks;
mod run;
mod sweep;
#[cfg(feature = "mpi")]
mod team;

/// `petri adapters`.
#[derive(Args)]
struct AdaptersArgs {
    /// Only this backend: vulkan, metal, dx12, gl or all
    #[arg(long, env = "PETRI_BACKEND")]
    backend: Option<String>,
}

/// The command line of a program running the models of `registry`: `run` takes every model's
/// flags, `bench` has a subcommand per model with a benchmark (and `primitives`), and each
/// model's own commands sit at the top.
pub fn command(registry: &Registry) -> Command {
    let mut bench = Command::new("bench")
        .about("Benchmark a model or the scheduler's primitives (GPU timestamps, CPU reference ratio).")
        .subcommand_required(true)
        .arg_required_else_help(true);
    for model in registry.models() {
        if let Some(c) = model.bench_command() {
            bench = bench.subcommand(c);
        }
    }
    bench = bench.subcommand(primitives::BenchArgs::augment_args(
        Command::new("primitives").about(
            "The scheduler's GPU primitives: scan, radix sort (32 and 20 key bits), binning",
        ),
    ));
    let mut cli = Command::new("petri")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Portable GPU engine for biological simulation")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(AdaptersArgs::augment_args(Command::new("adapters").about(
            "List the GPU adapters wgpu can see, best first, with the limits the models need.",
        )))
        .subcommand(run::command(registry))
        .subcommand(sweep::SweepArgs::augment_args(Command::new("sweep").about(
            "Run a parameter sweep: a base config with overrides by field path and seeds, each \
             task an ordinary run folder, a summary table of all (docs/SWEEPS.md).",
        )))
        .subcommand(bench);
    for model in registry.models() {
        for c in model.commands() {
            cli = cli.subcommand(c);
        }
    }
    cli
}

/// Runs the command line of `std::env::args` over the models of `registry`, and exits.
pub fn main_with(registry: Registry) -> ! {
    // Before any thread starts: it may set an environment variable.
    petri_engine::headless::quiet_display_probes();
    // EGL's complaints while wgpu probes the GL backend (a DRI driver missing on a machine
    // without a GPU, before Mesa falls back to software) are not the user's; RUST_LOG shows them.
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal::gles::egl=off"),
    )
    .init();
    let matches = command(&registry).get_matches();
    if let Err(e) = dispatch(&registry, &matches) {
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
    std::process::exit(0)
}

fn dispatch(registry: &Registry, matches: &ArgMatches) -> Result<()> {
    let (name, m) = matches.subcommand().expect("a subcommand is required");
    match name {
        "adapters" => adapters(AdaptersArgs::from_arg_matches(m)?.backend),
        "run" => run::run(registry, m),
        "sweep" => sweep::sweep(registry, sweep::SweepArgs::from_arg_matches(m)?),
        "bench" => {
            let (which, b) = m.subcommand().expect("a bench subcommand is required");
            if which == "primitives" {
                return primitives::bench(primitives::BenchArgs::from_arg_matches(b)?);
            }
            let model = registry
                .models()
                .iter()
                .find(|model| model.bench_command().is_some_and(|c| c.get_name() == which))
                .ok_or_else(|| anyhow!("no benchmark {which}"))?;
            model.bench(b)
        }
        other => {
            let model = registry
                .models()
                .iter()
                .find(|model| model.commands().iter().any(|c| c.get_name() == other))
                .ok_or_else(|| anyhow!("no command {other}"))?;
            model.command(other, m)
        }
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

    #[test]
    fn the_command_line_is_well_formed() {
        command(&Registry::default()).debug_assert();
    }
}
