//! The coupled gliding assay (`petri_model::gliding::sim`): the GPU outer step against the CPU
//! reference on a tiny grid, conservation, determinism across workgroup sizes and batch
//! lengths, resume, gliding at the motor speed, diffusion alone, bad input.

use petri_engine::testing::test_context;
use petri_model::gliding::cpu::GlidingCpu;
use petri_model::gliding::params::GlidingConfig;
use petri_model::gliding::sim::{GlidingSim, SimOptions};

fn asset() -> GlidingConfig {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/gliding.json"
    ))
    .unwrap();
    GlidingConfig::from_json(&text, "assets/gliding.json").unwrap()
}

/// The asset on a tiny grid: 8 x 8 cells of 0.5, 6 angles, 4 arc cells, 8 levels.
fn tiny() -> GlidingConfig {
    let mut c = asset();
    c.grid.nx = 8;
    c.grid.ny = 8;
    c.grid.lx = 4.0;
    c.grid.ly = 4.0;
    c.grid.ntheta = 6;
    c.grid.ns = 4;
    c.grid.nz = 8;
    c.grid.z0 = 0.1;
    c.initial.ring_radius = 1.0;
    c.initial.ring_spacing = 4.0;
    c.initial.ring_width = 0.5;
    c.validate().unwrap();
    c
}

fn max_abs(v: impl IntoIterator<Item = f64>) -> f64 {
    v.into_iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// Largest |a - b| relative to the largest |b|.
fn rel(a: &[f32], b: &[f32]) -> f64 {
    let scale = max_abs(b.iter().map(|&x| f64::from(x))).max(1e-30);
    max_abs(a.iter().zip(b).map(|(&x, &y)| f64::from(x) - f64::from(y))) / scale
}

#[test]
fn gpu_outer_step_matches_the_cpu_reference() {
    let ctx = test_context();
    let cfg = tiny();
    let mut gpu = GlidingSim::new(&ctx, &cfg, SimOptions::default()).unwrap();
    let mut cpu = GlidingCpu::new(&cfg).unwrap();
    for _ in 0..5 {
        cpu.step().unwrap();
    }
    gpu.advance(&ctx, 5);
    let g = gpu.read_fields(&ctx).unwrap();
    let c = cpu.fields();
    let psi = rel(&g.psi, &c.psi);
    let vel = rel(&g.velocity, &c.velocity);
    let fluid = rel(&g.fluid, &c.fluid);
    let motors: Vec<f32> = g.motors.iter().flatten().copied().collect();
    let motors_cpu: Vec<f32> = c.motors.iter().flatten().copied().collect();
    let mot = rel(&motors, &motors_cpu);
    let force: Vec<f32> = g.motor_force.iter().flatten().copied().collect();
    let force_cpu: Vec<f32> = c.motor_force.iter().flatten().copied().collect();
    let frc = rel(&force, &force_cpu);
    println!("GPU vs CPU after 5 steps: psi {psi:.1e}, velocity {vel:.1e}, fluid {fluid:.1e}, motors {mot:.1e}, force {frc:.1e}");
    for (what, e) in [
        ("psi", psi),
        ("velocity", vel),
        ("fluid", fluid),
        ("motors", mot),
        ("force", frc),
    ] {
        assert!(e < 1e-4, "{what}: GPU vs CPU {e:.2e}");
    }
    let gpu_rate = gpu.take_max_courant(&ctx).unwrap();
    assert!(
        (gpu_rate - cpu.max_courant).abs() < 1e-4 * cpu.max_courant,
        "{gpu_rate} vs {}",
        cpu.max_courant
    );
}
