//! A run of a general network (`reactions::general`) into an output folder, as `run::SsaRun`
//! runs a mass-action one: mean_sd.csv of the species and the rules' values, mean_sd.png and
//! manifest.json, a step per output time. On the CPU the ensemble of
//! `general::GeneralTrajectory` is held in memory and moved from one output time to the next;
//! on the GPU (`GpuEnsemble::new_general`: events without delays) the whole ensemble runs when the run
//! starts and the rows are handed out step by step. trajectories.csv (each trajectory's
//! species counts at every output time) is kept on both. The CPU also writes checkpoints and
//! resumes from them (`checkpoint`: each trajectory's `general::SavedTrajectory`), which the
//! GPU refuses by name; tau-leaping is refused.

use super::checkpoint::{general_header, general_parts, Checkpoint};
use super::ensemble::Method;
use super::general::{GeneralTables, GeneralTrajectory};
use super::gpu_ensemble::{EnsembleOptions, GpuEnsemble, RECORDED_CHUNK};
use super::output::write_trajectories_csv;
use super::run::{checkpoint_header, Rows, RunOptions, MAX_RESIDENT_BYTES};
use super::run::{write_ensemble_files, Details, MeanSdRow};
use super::stats::Accumulator;
use super::stats::EnsembleStats;
use crate::error::{invalid, ModelError, Result};
use crate::reactions::general::GeneralNetwork;
use crate::runtime::{self, ArrayData, RunReport, Simulation, StateArray};
use petri_engine::{AdapterSummary, GpuContext};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Runs the ensemble of a general network on the CPU through the runtime, calling `progress`
/// with the row of every output time.
pub fn run_general(
    net: &GeneralNetwork,
    opts: &RunOptions,
    progress: impl FnMut(&MeanSdRow),
) -> Result<RunReport<MeanSdRow>> {
    let start = Instant::now();
    let mut sim = GeneralRun::new(net, opts)?;
    let options = super::run::runtime_options(opts, start);
    runtime::run(&mut sim, &options, progress)
}

/// An ensemble of a general network at an output time.
pub struct GeneralRun {
    tables: Arc<GeneralTables>,
    opts: RunOptions,
    plot: Vec<usize>,
    backend: Backend,
    rows: Rows,
    /// With `keep_trajectories` (CPU): `kept[trajectory][time][species]` so far.
    kept: Option<Vec<Vec<Vec<u64>>>>,
    run_s: f64,
    /// The checkpoint the run resumed from.
    resumed_from: Option<String>,
}

enum Backend {
    Cpu(Vec<GeneralTrajectory>),
    /// Every output time's statistics, worked out at the start.
    Gpu(Box<GpuRows>),
}

struct GpuRows {
    stats: EnsembleStats,
    adapter: AdapterSummary,
}

impl GeneralRun {
    /// The ensemble of `opts` at the first output time (after the events that fire at 0), or
    /// with `opts.resume` at the output time of that checkpoint.
    pub fn new(net: &GeneralNetwork, opts: &RunOptions) -> Result<Self> {
        let times = check_options(net, opts, false)?;
        let plot = plotted(net, opts)?;
        let start = Instant::now();
        let tables = GeneralTables::new(net.clone());
        if let Some(path) = &opts.resume {
            let ck = Checkpoint::load(path)?;
            let run = (opts.seed, opts.trajectories);
            let trajectories =
                ck.restore_general(&tables, run, &times, opts.keep_trajectories, path)?;
            let mut sim = Self {
                tables,
                opts: opts.clone(),
                plot,
                backend: Backend::Cpu(trajectories),
                kept: ck.kept_samples(),
                rows: Rows::new(times, net.outputs(), opts.trajectories),
                run_s: 0.0,
                resumed_from: Some(path.display().to_string()),
            };
            sim.rows.restore(&ck);
            sim.run_s = start.elapsed().as_secs_f64();
            return Ok(sim);
        }
        let trajectories = (0..opts.trajectories)
            .into_par_iter()
            .map(|i| {
                GeneralTrajectory::new(&tables, super::ensemble::trajectory_seed(opts.seed, i))
                    .map_err(|why| stopped(i, why))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut sim = Self {
            tables,
            opts: opts.clone(),
            plot,
            backend: Backend::Cpu(trajectories),
            kept: opts
                .keep_trajectories
                .then(|| vec![Vec::with_capacity(times.len()); opts.trajectories as usize]),
            rows: Rows::new(times, net.outputs(), opts.trajectories),
            run_s: 0.0,
            resumed_from: None,
        };
        sim.record();
        sim.run_s = start.elapsed().as_secs_f64();
        Ok(sim)
    }

    /// The ensemble of `opts` on the GPU of `ctx`, run to the last output time at once;
    /// `opts.stop` is asked between its batches (a stop ends it with
    /// `ModelError::Interrupted` at step 0).
    pub fn new_gpu(
        ctx: &GpuContext,
        net: &GeneralNetwork,
        opts: &RunOptions,
        options: &EnsembleOptions,
    ) -> Result<Self> {
        let times = check_options(net, opts, true)?;
        let plot = plotted(net, opts)?;
        let start = Instant::now();
        // Kept samples come from the device chunk by chunk, as the rules' values do.
        let mut options = options.clone();
        if opts.keep_trajectories {
            options.chunk = options.chunk.min(RECORDED_CHUNK);
        }
        let mut ensemble = GpuEnsemble::new_general(ctx, net, opts.method, &options)?;
        ensemble.set_stop(opts.stop.clone());
        let (stats, kept) = ensemble.run_general_keeping(
            opts.trajectories,
            opts.seed,
            &times,
            opts.keep_trajectories,
        )?;
        let mut sim = Self {
            tables: GeneralTables::new(net.clone()),
            opts: opts.clone(),
            plot,
            backend: Backend::Gpu(Box::new(GpuRows {
                stats,
                adapter: ctx.adapter.clone(),
            })),
            rows: Rows::new(times, net.outputs(), opts.trajectories),
            // Every output time's, from the start: rows.len() of them are the run's so far.
            kept,
            run_s: 0.0,
            resumed_from: None,
        };
        sim.record();
        sim.run_s = start.elapsed().as_secs_f64();
        Ok(sim)
    }

    /// The row of the trajectories' present state: exact sums of the counts; the rules' values
    /// summed in trajectory order.
    fn record(&mut self) {
        let trajectories = match &self.backend {
            Backend::Cpu(t) => t,
            Backend::Gpu(gpu) => {
                let k = self.rows.len();
                let row = (gpu.stats.mean[k].clone(), gpu.stats.sd[k].clone());
                self.rows.push(row);
                return;
            }
        };
        let net = self.tables.network();
        let species: Vec<String> = net.network.species.iter().map(|s| s.id.clone()).collect();
        let mut acc = Accumulator::new(&[0.0], species);
        let mut sums = vec![[0.0f64; 2]; net.rule_values().count()];
        for (i, traj) in trajectories.iter().enumerate() {
            let (counts, values) = traj.outputs();
            acc.add_counts(&counts);
            if let Some(kept) = &mut self.kept {
                kept[i].push(counts);
            }
            for (s, v) in sums.iter_mut().zip(values) {
                s[0] += v;
                s[1] += v * v;
            }
        }
        let (mut mean, mut sd) = acc.row(0);
        let n = self.opts.trajectories as f64;
        for [sx, sxx] in sums {
            mean.push(sx / n);
            let var = match self.opts.trajectories {
                1 => 0.0,
                _ => ((sxx - sx * sx / n) / (n - 1.0)).max(0.0),
            };
            sd.push(var.sqrt());
        }
        self.rows.push((mean, sd));
    }

    fn move_to_next_time(&mut self) -> Result<()> {
        let t = self.rows.times[self.rows.len()];
        if let Backend::Cpu(trajectories) = &mut self.backend {
            trajectories
                .par_iter_mut()
                .enumerate()
                .try_for_each(|(i, traj)| {
                    traj.advance_to(t).map_err(|why| stopped(i as u64, why))
                })?;
        }
        self.record();
        Ok(())
    }
}

fn stopped(trajectory: u64, why: String) -> ModelError {
    ModelError::Stalled {
        message: format!("trajectory {trajectory}: {why}"),
    }
}

/// Why checkpoints and resuming are refused on the GPU.
const NOT_ON_GPU: &str = "not yet on the GPU for a network with general laws, rules or events \
                          (the CPU's direct method writes and resumes them: --device cpu)";

/// The options a general network takes on the CPU or the `gpu`; returns the output times.
pub fn check_options(net: &GeneralNetwork, opts: &RunOptions, gpu: bool) -> Result<Vec<f64>> {
    net.validate()?;
    match (opts.method, gpu) {
        (Method::Direct, _) | (Method::Odm, true) => {}
        (Method::Odm, false) => {
            let allowed = "direct on the CPU, direct or odm on the GPU (a network with general \
                           laws, rules or events)";
            return Err(invalid("method", opts.method.name(), allowed));
        }
        (Method::Tau, _) => return Err(tau_refusal(net)),
    }
    let times = opts.check_sizes()?;
    if let (Some(every), true) = (opts.checkpoint_every, gpu) {
        return Err(invalid("checkpoint_every", every, NOT_ON_GPU));
    }
    if let (Some(path), true) = (&opts.resume, gpu) {
        return Err(invalid("resume", path.display(), NOT_ON_GPU));
    }
    // Counts, values, propensities, triggers and the stream of every trajectory, generously,
    // and the samples trajectories.csv keeps.
    let s = net.network.species.len();
    let mut per = 64 * (s + net.values.len() + 2 * net.laws.len() + net.events.len()) + 512;
    if opts.keep_trajectories {
        per += times.len() * (8 * s + 24);
    }
    let bytes = per as u128 * opts.trajectories as u128;
    if bytes > MAX_RESIDENT_BYTES as u128 {
        let allowed = format!(
            "an ensemble that fits in {} GiB (this one needs about {} GiB)",
            MAX_RESIDENT_BYTES >> 30,
            bytes >> 30
        );
        return Err(invalid("trajectories", opts.trajectories, allowed));
    }
    Ok(times)
}

/// Tau-leaping's refusal of a general network, naming its first element beyond mass action:
/// the leap condition (Cao, Gillespie and Petzold 2006) bounds each propensity's change through
/// the mass-action orders of the reactants, which a general law does not have.
pub fn tau_refusal(net: &GeneralNetwork) -> ModelError {
    let law = net.laws.iter().position(Option::is_some);
    let element = match (law, net.rules.first(), net.events.first()) {
        (Some(r), _, _) => format!(
            "the kinetic law of <reaction id=\"{}\">",
            net.network.reactions[r].id
        ),
        (None, Some(rule), _) => rule.origin.clone(),
        (None, None, Some(e)) => e.origin.clone(),
        (None, None, None) => match net.initial_assignments.first() {
            Some(a) => a.origin.clone(),
            None => "the model".into(),
        },
    };
    invalid(
        "method",
        "tau",
        format!(
            "the direct method (CPU, GPU) or odm (GPU) for {element}: tau-leaping takes \
             mass-action laws only, without rules or events (docs/models/sbml-subset.md)"
        ),
    )
}

/// The plotted species (species only: a rule's value has no colour of its own yet).
fn plotted(net: &GeneralNetwork, opts: &RunOptions) -> Result<Vec<usize>> {
    let species = &net.network.species;
    match opts.plot_species.is_empty() {
        true => Ok((0..species.len()).collect()),
        false => opts
            .plot_species
            .iter()
            .map(|id| {
                net.network.species_index(id).ok_or_else(|| {
                    let ids: Vec<&str> = species.iter().map(|s| s.id.as_str()).collect();
                    invalid(
                        "plot_species",
                        id,
                        format!("species of the network: {}", ids.join(", ")),
                    )
                })
            })
            .collect(),
    }
}

impl Simulation for GeneralRun {
    type Observation = MeanSdRow;
    type Details = Details;

    super::run::output_time_steps!();
    fn describe(&self) -> String {
        let net = self.tables.network();
        let extra = format!(", {} rules, {} events", net.rules.len(), net.events.len());
        let device = match self.backend {
            Backend::Cpu(_) => "cpu",
            Backend::Gpu(_) => "gpu",
        };
        super::run::ensemble_description(&net.network, &self.opts, device, &extra)
    }
    /// trajectories.csv (when kept: the species' counts, not the rules' values) and
    /// mean_sd.png.
    fn write_final_state(&mut self, dir: &Path) -> Result<Vec<String>> {
        let stats = self.rows.stats(self.rows.len());
        let network = &self.tables.network().network;
        let mut outputs = Vec::new();
        if let Some(kept) = &self.kept {
            let species: Vec<String> = network.species.iter().map(|s| s.id.clone()).collect();
            let path = dir.join("trajectories.csv");
            write_trajectories_csv(&path, &species, &stats.times, kept)?;
            outputs.push("trajectories.csv".to_string());
        }
        outputs.extend(write_ensemble_files(
            dir,
            &stats,
            None,
            &self.plot,
            &network.id,
        )?);
        Ok(outputs)
    }
    fn plan_run(&mut self, steps: u64, checkpoint_every: Option<u64>) -> Result<()> {
        super::run::check_steps_left(self.schedule().steps, self.step(), steps)?;
        match (checkpoint_every, &self.backend) {
            (Some(every), Backend::Gpu(_)) => Err(invalid("checkpoint_every", every, NOT_ON_GPU)),
            _ => Ok(()),
        }
    }
    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        let Backend::Cpu(trajectories) = &self.backend else {
            return Err(invalid("checkpoint_every", "set", NOT_ON_GPU));
        };
        let net = self.tables.network();
        let mut header = checkpoint_header(&net.network, &self.opts, self.step(), None);
        header.network = general_parts(net);
        header.general = Some(general_header(net));
        let saved: Vec<_> = trajectories.iter().map(GeneralTrajectory::saved).collect();
        let (mean, sd) = self.rows.flat(self.rows.len());
        let kept = match &self.kept {
            Some(kept) => kept.iter().flatten().flatten().copied().collect(),
            None => Vec::new(),
        };
        Checkpoint::new_general(header, &saved, mean, sd, kept).save(path)
    }
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        // Shaped by the species, not by the outputs (species and rules' values) of the rows.
        let mut arrays = self.rows.arrays(self.step(), None, None);
        let s = self.tables.network().network.species.len();
        // The GPU's trajectories stay on the device: statistics only.
        if let Backend::Cpu(trajectories) = &self.backend {
            let counts = trajectories.iter().flat_map(|t| t.outputs().0).collect();
            let n = trajectories.len();
            arrays.push(StateArray::new("counts", &[n, s], ArrayData::U64(counts)));
        }
        if let Some(kept) = &self.kept {
            let rows = self.step() as usize + 1;
            let samples = kept.iter().flat_map(|t| t[..rows].concat()).collect();
            let shape = [kept.len(), rows, s];
            arrays.push(StateArray::new(
                "trajectories",
                &shape,
                ArrayData::U64(samples),
            ));
        }
        Ok(arrays)
    }
    fn manifest_details(&self, _first_step: u64, _last: &MeanSdRow) -> Result<Details> {
        let mut d = Details::new(
            &self.tables.network().network,
            &self.opts,
            &self.plot,
            self.run_s,
        );
        if let Backend::Gpu(gpu) = &self.backend {
            d.device = "gpu";
            d.adapter = Some(gpu.adapter.clone());
            d.cpu_threads = None;
        }
        d.resumed_from = self.resumed_from.clone();
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reactions::sbml::parse_sbml_general;
    use crate::runtime::CHECKPOINT_FILE;
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("petri-general-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// Births at 20 per unit time, deaths X / 2, the rule y = 2 X, and an event that, 0.7
    /// after X reaches 30, sets X to its value at the trigger time less 25
    /// (useValuesFromTriggerTime): about a fifth of the trajectories have an execution pending
    /// at any time.
    fn network() -> GeneralNetwork {
        let m = |inner: &str| {
            format!(r#"<math xmlns="http://www.w3.org/1998/Math/MathML">{inner}</math>"#)
        };
        let text = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
  <model id="pulses">
    <listOfCompartments><compartment id="cell" size="1" spatialDimensions="3" constant="true"/></listOfCompartments>
    <listOfSpecies><species id="X" compartment="cell" initialAmount="10" hasOnlySubstanceUnits="true"
      boundaryCondition="false" constant="false"/></listOfSpecies>
    <listOfParameters><parameter id="y" constant="false"/></listOfParameters>
    <listOfRules><assignmentRule variable="y">{}</assignmentRule></listOfRules>
    <listOfReactions>
      <reaction id="make" reversible="false"><listOfProducts><speciesReference species="X"
        stoichiometry="1" constant="true"/></listOfProducts><kineticLaw>{}</kineticLaw></reaction>
      <reaction id="decay" reversible="false"><listOfReactants><speciesReference species="X"
        stoichiometry="1" constant="true"/></listOfReactants><kineticLaw>{}</kineticLaw></reaction>
    </listOfReactions>
    <listOfEvents><event id="cut" useValuesFromTriggerTime="true">
      <trigger initialValue="false" persistent="true">{}</trigger><delay>{}</delay>
      <listOfEventAssignments><eventAssignment variable="X">{}</eventAssignment></listOfEventAssignments>
    </event></listOfEvents>
  </model>
</sbml>"#,
            m("<apply><times/><cn>2</cn><ci>X</ci></apply>"),
            m("<apply><divide/><cn>40</cn><cn>2</cn></apply>"),
            m("<apply><divide/><ci>X</ci><cn>2</cn></apply>"),
            m("<apply><geq/><ci>X</ci><cn>30</cn></apply>"),
            m("<cn>0.7</cn>"),
            m("<apply><max/><cn>0</cn><apply><minus/><ci>X</ci><cn>25</cn></apply></apply>"),
        );
        parse_sbml_general(&text, "pulses.xml").unwrap()
    }

    fn options(dir: &Path) -> RunOptions {
        RunOptions {
            method: Method::Direct,
            trajectories: 40,
            t_end: 8.0,
            points: 17,
            seed: 5,
            keep_trajectories: true,
            plot_species: Vec::new(),
            device_reason: String::new(),
            stop: None,
            out_dir: dir.to_path_buf(),
            overwrite: false,
            source: "pulses.xml".into(),
            steps: None,
            checkpoint_every: None,
            resume: None,
        }
    }

    fn read(dir: &Path, file: &str) -> Vec<u8> {
        std::fs::read(dir.join(file)).unwrap()
    }

    /// A run stopped at an output time with executions pending, checkpointed and resumed,
    /// writes bitwise the files of a straight run; a checkpoint of another network, another
    /// seed or a mass-action run is refused naming what differs.
    #[test]
    fn a_resumed_general_run_continues_bitwise() {
        let net = network();
        let straight = scratch("straight");
        run_general(&net, &options(&straight), |_| {}).unwrap();

        let dir = scratch("resumed");
        let mut half = options(&dir);
        half.checkpoint_every = Some(3);
        half.steps = Some(9);
        run_general(&net, &half, |_| {}).unwrap();
        let path = dir.join(CHECKPOINT_FILE);
        let ck = Checkpoint::load(&path).unwrap();
        assert_eq!(ck.header.step, 9);
        let pending: u64 = ck.general.pending.iter().sum();
        assert!(pending > 0, "no execution pending at the checkpoint");
        assert_eq!(ck.general.pending_values.len() as u64, pending);

        let mut rest = half.clone();
        rest.steps = None;
        rest.resume = Some(path.clone());
        let mut seen = Vec::new();
        run_general(&net, &rest, |o| seen.push(o.step)).unwrap();
        assert_eq!(seen, (9..=16).collect::<Vec<_>>());
        for file in ["mean_sd.csv", "trajectories.csv", "mean_sd.png"] {
            assert!(read(&straight, file) == read(&dir, file), "{file}");
        }

        let refusal = |net: &GeneralNetwork, opts: &RunOptions| match GeneralRun::new(net, opts) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        };
        let mut other = net.clone();
        other.events[0].delay = Some(crate::reactions::math::Expr::Num(0.8));
        let e = refusal(&other, &rest);
        assert!(e.contains("differs") && e.contains("events"), "{e}");
        let mut o = rest.clone();
        o.seed = 6;
        assert!(refusal(&net, &o).contains("seed = 5, this run has 6"));
        // The mass-action reader's network of the same species is another kind of run.
        let e = super::super::run::SsaRun::resume(&net.network, &rest, &path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("of a general network's run"), "{e}");
        std::fs::remove_dir_all(&straight).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
