//! Embedding Petri in your own wgpu program: you create the Instance, Adapter, Device and Queue
//! (here with the device's own label and limits), hand them to Petri, run the angiogenesis model
//! on a small grid, and read the observables and the fields back.
//!
//! Run: cargo run --release --example embed

use petri_engine::GpuContext;
use petri_model::angiogenesis::{run_observed, AngioConfig, AngioSim, SimOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Without a display, keep Mesa's device-select layer from printing XDG_RUNTIME_DIR
    // complaints (it sets an environment variable: before any other thread runs).
    petri_engine::headless::quiet_display_probes();
    // Your program's own device, however it likes to create it.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))?;
    let info = adapter.get_info();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("my application"),
        required_features: wgpu::Features::empty(),
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))?;

    // Petri works on that device and queue; your program can keep clones of both.
    let ctx = GpuContext::from_device(device.clone(), queue.clone(), &info);
    println!("embedded on {} ({})", ctx.adapter.name, ctx.adapter.backend);

    let mut cfg = AngioConfig {
        grid: [40, 40, 40],
        observe_every: 100,
        ..AngioConfig::default()
    };
    cfg.tips.max_tips = 1024;
    let mut sim = AngioSim::new(&ctx, &cfg, &SimOptions::default())?;
    run_observed(&ctx, &mut sim, 300, |o| {
        println!(
            "step {:4}  t = {:.3}  total n = {:.3}  tips = {}  vessel length = {:.3}",
            o.step, o.time, o.total_n, o.tips, o.vessel_length
        );
        Ok(())
    })?;
    let state = sim.read_state(&ctx)?;
    let max_c = state.c.iter().cloned().fold(0.0f32, f32::max);
    println!(
        "after {} steps: max c = {max_c:.4}, {} vessel segments",
        state.step,
        state.segments.len()
    );
    Ok(())
}
