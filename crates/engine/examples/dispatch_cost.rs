//! What one dependent dispatch costs on this adapter: 8000 dispatches of a pass that does
//! (almost) nothing, in one compute pass and one submission, wall clock per dispatch (best of
//! three). The passes bind what an RDME sweep binds (the step info at a dynamic offset, a
//! uniform and five storage buffers, two of them read-write, so wgpu puts a barrier between
//! dispatches) and vary one thing at a time: the grid, switching pipelines, reading the
//! uniforms, the sweeps' workgroup queue, a store per thread, and many registers.
//! `cargo run --release -p petri-engine --example dispatch_cost`; past figures are in the git history of docs/BENCHMARKS.md.

use petri_engine::kernel::{self, Access};
use petri_engine::{DeviceRequest, GpuContext};
use std::time::Instant;

const SHADER: &str = r#"
struct StepInfo { step: u32, seed_lo: u32, seed_hi: u32, parity: u32 }
struct Lat { nx: u32, ny: u32, planes: u32, sites: u32 }
@group(0) @binding(0) var<uniform> step_info: StepInfo;
@group(1) @binding(0) var<uniform> lat: Lat;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read_write> dst: array<u32>;
@group(1) @binding(3) var<storage, read> types: array<u32>;
@group(1) @binding(4) var<storage, read> hop: array<f32>;
@group(1) @binding(5) var<storage, read_write> overflow: array<atomic<u32>>;

// Distinct values give distinct pipelines of one entry point.
override K: u32 = 0u;

fn never(g: u32) -> bool {
    return g == 0xFFFFFFF0u + K;
}

// Every binding is used (behind a condition that never holds), so the layouts match.
fn touch(g: u32) {
    dst[g] = particles[g] + types[0] + u32(hop[0]) + lat.nx + step_info.step;
    atomicAdd(&overflow[0], 1u);
}

@compute @workgroup_size(256)
fn idle(@builtin(global_invocation_id) g: vec3<u32>) {
    if never(g.x) { touch(g.x); }
}

@compute @workgroup_size(256)
fn reads_uniforms(@builtin(global_invocation_id) g: vec3<u32>) {
    if step_info.step == 0xFFFFFFFFu && lat.nx == 7u { touch(g.x); }
}

@compute @workgroup_size(256)
fn store(@builtin(global_invocation_id) g: vec3<u32>) {
    dst[g.x] = 0u;
    if never(g.x) { touch(g.x); }
}

var<workgroup> queue: array<u32, 1024>;
var<workgroup> queued: atomic<u32>;

// The sweeps' start: clear the queue count, barrier, classify (nothing is queued), barrier.
@compute @workgroup_size(256)
fn with_queue(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if lid == 0u { atomicStore(&queued, 0u); }
    workgroupBarrier();
    if never(g.x) { queue[atomicAdd(&queued, 1u)] = g.x; }
    workgroupBarrier();
    if atomicLoad(&queued) > 5000u { touch(queue[lid]); }
}

// Returns at once too, but holds a long computation the compiler must give many registers.
@compute @workgroup_size(256)
fn heavy(@builtin(global_invocation_id) g: vec3<u32>) {
    if never(g.x) {
        var v: array<vec4<u32>, 24>;
        for (var i = 0u; i < 24u; i++) {
            v[i] = vec4<u32>(particles[g.x + i], particles[g.x + 2u * i], particles[i], types[i]);
        }
        for (var r = 0u; r < 20u; r++) {
            for (var i = 0u; i < 23u; i++) { v[i] = v[i] * 0x9E3779B9u + (v[i + 1u] >> vec4<u32>(r)); }
        }
        var acc = vec4<u32>(0u);
        for (var i = 0u; i < 24u; i++) { acc ^= v[i]; }
        dst[g.x] = acc.x + acc.y + acc.z + acc.w;
        touch(g.x);
    }
}
"#;

fn main() {
    let ctx = GpuContext::new(&DeviceRequest::from_env()).expect("a GPU adapter");
    println!("adapter: {} ({})", ctx.adapter.name, ctx.adapter.backend);
    let dev = &ctx.device;
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("dispatch cost"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let step_layout = kernel::bind_group_layout(&ctx, "step", &[Access::UniformDynamic]);
    let pass_layout = kernel::bind_group_layout(
        &ctx,
        "pass",
        &[
            Access::Uniform,
            Access::ReadOnly,
            Access::ReadWrite,
            Access::ReadOnly,
            Access::ReadOnly,
            Access::ReadWrite,
        ],
    );
    let layout = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&step_layout), Some(&pass_layout)],
        immediate_size: 0,
    });
    let pipeline = |entry: &str, k: f64| {
        dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&layout),
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &[("K", k)],
                ..Default::default()
            },
            cache: None,
        })
    };
    let buffer = |size: u64, usage: wgpu::BufferUsages| {
        dev.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let (uniform, storage) = (wgpu::BufferUsages::UNIFORM, wgpu::BufferUsages::STORAGE);
    const STEPS: u64 = 1024;
    let step_buffer = buffer(256 * STEPS, uniform);
    let step_group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &step_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &step_buffer,
                offset: 0,
                size: wgpu::BufferSize::new(16),
            }),
        }],
    });
    let lat = buffer(256, uniform);
    let (a, b) = (buffer(1 << 24, storage), buffer(1 << 24, storage));
    let (types, hop, overflow) = (
        buffer(1 << 20, storage),
        buffer(256, storage),
        buffer(256, storage),
    );
    // Two groups with the particle halves swapped, as a step plan alternates them.
    let groups = [[&a, &b], [&b, &a]].map(|[src, dst]| {
        kernel::bind_group(
            &ctx,
            "pass",
            &pass_layout,
            &[&lat, src, dst, &types, &hop, &overflow],
        )
    });

    let time = |label: &str, pipelines: &[&wgpu::ComputePipeline], workgroups: u32| {
        let n = 8000u64;
        let mut best = f64::MAX;
        for _ in 0..3 {
            let mut encoder = dev.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                for i in 0..n {
                    pass.set_pipeline(pipelines[i as usize % pipelines.len()]);
                    pass.set_bind_group(0, &step_group, &[((i % STEPS) * 256) as u32]);
                    pass.set_bind_group(1, &groups[(i % 2) as usize], &[]);
                    pass.dispatch_workgroups(workgroups, 1, 1);
                }
            }
            let commands = encoder.finish();
            let t0 = Instant::now();
            ctx.queue.submit([commands]);
            dev.poll(wgpu::PollType::wait_indefinitely())
                .expect("the GPU finishes");
            best = best.min(t0.elapsed().as_secs_f64() * 1e6 / n as f64);
        }
        println!("| {label} | {workgroups} | {best:.2} |");
    };
    let idle: Vec<_> = (0..3).map(|k| pipeline("idle", k as f64)).collect();
    let reads = pipeline("reads_uniforms", 0.0);
    let store = pipeline("store", 0.0);
    let queue = pipeline("with_queue", 0.0);
    let heavy = pipeline("heavy", 0.0);
    println!("| pass (256 threads per workgroup) | workgroups | us per dispatch |");
    println!("|---|---|---|");
    for wg in [1, 132, 1024, 2048, 4096] {
        time("returns at once", &[&idle[0]], wg);
    }
    time(
        "returns at once, three pipelines in turn",
        &idle.iter().collect::<Vec<_>>(),
        1024,
    );
    time(
        "reads the step info and the lattice uniform",
        &[&reads],
        1024,
    );
    time(
        "the sweeps' queue set-up (4 KiB, two barriers)",
        &[&queue],
        1024,
    );
    time("one store per thread", &[&store], 1024);
    for wg in [1, 1024] {
        time("returns at once, many registers", &[&heavy], wg);
    }
}
