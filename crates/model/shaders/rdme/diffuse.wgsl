// One MPD diffusion sweep along AXIS (0 = x, 1 = y, 2 = z), gathered per destination site.
// Each particle in a site with type t hops + with probability q(t, t+, species) (u < q+) and -
// with probability q(t, t-, species) (u >= 1 - q-), from one uniform u keyed by (seed, step,
// 4 * AXIS + slot / 4, global site; Threefry, common/rng.wgsl) so the source and both
// neighbours draw the same decision.
// q = 0 (a wall, or no neighbour at the lattice edge) never hops. Arrivals are packed in the
// order: from the - neighbour, stayers, from the + neighbour; past 16 they go to the overflow
// list. Each sweep covers its `step_region` of the local planes (halos included, redundantly
// with the neighbouring device).
// Each thread looks at a run of SITES sites: along y in the y sweep, along z in the others (see
// Run), so in the y and z sweeps the run's sites share their neighbours' loads. A site with no
// particle in reach becomes empty at once. The others are queued in workgroup memory and taken
// up by consecutive threads, so that the few sites of a sparse lattice with work run in whole
// warps instead of one busy lane per warp, and (several sites per thread) in fewer rounds of
// workgroups.
// Every loop here and in the includes runs to a fixed bound (4 words, 16 slots, SITES, the
// reactions) or to the queue's count, or clears one bit of a 12-bit mask per round:
//!bounded-loops
//!include common/step.wgsl
//!include common/rng.wgsl
//!include rdme/common.wgsl
//!include rdme/particles.wgsl
//!include rdme/region.wgsl
//!include rdme/overflow.wgsl
//!include rdme/hop.wgsl
//!include rdme/reaction.wgsl
//!include rdme/gather.wgsl

override AXIS: u32 = 0u;
// The z sweep (AXIS 2) and then the reaction substep of each site in one pass: a site's
// reactions need only its own particles after the z sweep, so that result never goes to memory.
override REACT: bool = false;
override WX: u32 = 64u;
override WY: u32 = 4u;
override WZ: u32 = 1u;

@group(1) @binding(0) var<uniform> lat: Lattice;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read_write> dst: array<u32>;
@group(1) @binding(3) var<storage, read> types: array<u32>;
@group(1) @binding(4) var<storage, read> hop: array<f32>;
@group(1) @binding(5) var<storage, read_write> overflow: array<atomic<u32>>;
// Used with REACT only.
@group(1) @binding(6) var<storage, read> reactions: array<Reaction>;

// Sites per thread (workgroup threads x SITES <= QUEUE, checked on the host).
override SITES: u32 = 4u;
const QUEUE: u32 = 1024u;

// Local indices of this workgroup's sites with particles in reach, and how many there are.
var<workgroup> busy_sites: array<u32, QUEUE>;
var<workgroup> busy_count: atomic<u32>;

// Whether site i (at x, y, local plane) or a neighbour along AXIS holds particles.
fn particles_in_reach(x: u32, y: u32, plane: u32, i: u32) -> bool {
    let a = along_axis(x, y, plane);
    let stride = a.z;
    let near = particles[i] | select(0u, particles[i - stride], a.x > 0u)
        | select(0u, particles[i + stride], a.x + 1u < a.y);
    return near != 0u;
}

// A thread's SITES sites: a run of consecutive sites along y in the y sweep, along z in the x
// and z sweeps, from (x, y, local plane) here.
struct Run {
    x: u32,
    y: u32,
    plane: u32,
}

fn thread_run(gid: vec3<u32>) -> Run {
    if AXIS == 1u {
        return Run(gid.x, gid.y * SITES, gid.z);
    }
    return Run(gid.x, gid.y, gid.z * SITES);
}

// Site k of the run as (x, y, local plane); k = 0xFFFFFFFF is the site before it, which before
// the lattice's or the slab's start wraps to a coordinate no check lets through.
fn run_site(run: Run, k: u32) -> vec3<u32> {
    if AXIS == 1u {
        return vec3<u32>(run.x, run.y + k, run.plane);
    }
    return vec3<u32>(run.x, run.y, run.plane + k);
}

fn local_index(c: vec3<u32>) -> u32 {
    return c.x + lat.nx * (c.y + lat.ny * c.z);
}

// Whether this pass updates the site: in the lattice and in the step's region of local planes.
fn updated(c: vec3<u32>, region: vec2<u32>) -> bool {
    return c.x < lat.nx && c.y < lat.ny && c.z >= region.x && c.z < region.y;
}

// Word 0 of a site, 0 outside the lattice or the slab's local planes.
fn word0(c: vec3<u32>) -> u32 {
    if c.x < lat.nx && c.y < lat.ny && c.z < lat.planes {
        return particles[local_index(c)];
    }
    return 0u;
}

// Queues the run's sites that have work and empties the others: all the run's sites are looked
// at first (bit k: site k has work), then queued, so the loads go out together instead of each
// after the previous site's queueing.
fn queue_run(run: Run, region: vec2<u32>, all_busy: bool) {
    var busy_bits = 0u;
    if AXIS == 0u {
        for (var k = 0u; k < SITES; k++) {
            let c = run_site(run, k);
            if updated(c, region) && particles_in_reach(c.x, c.y, c.z, local_index(c)) {
                busy_bits |= 1u << k;
            }
        }
    } else {
        // Along the axis the run's sites share their neighbours: SITES + 2 loads, not 3 SITES.
        var before = word0(run_site(run, 0xFFFFFFFFu));
        var here = word0(run_site(run, 0u));
        for (var k = 0u; k < SITES; k++) {
            let after = word0(run_site(run, k + 1u));
            if updated(run_site(run, k), region) && (before | here | after) != 0u {
                busy_bits |= 1u << k;
            }
            before = here;
            here = after;
        }
    }
    for (var k = 0u; k < SITES; k++) {
        let c = run_site(run, k);
        if updated(c, region) {
            let i = local_index(c);
            if (busy_bits & (1u << k)) != 0u || all_busy {
                busy_sites[atomicAdd(&busy_count, 1u)] = i;
            } else {
                dst[i] = 0u;
            }
        }
    }
}

// The sweep over this workgroup's sites, followed by each site's reactions with REACT: the
// empty ones at once, then the queued ones (see the top of this file).
@compute @workgroup_size(WX, WY, WZ)
fn diffuse(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if lid == 0u {
        atomicStore(&busy_count, 0u);
    }
    workgroupBarrier();
    let region = step_region(step_info.step, select(0u, 1u, AXIS == 2u));
    let run = thread_run(gid);
    // Zeroth-order reactions fire in empty sites too.
    let all_busy = REACT && lat.zeroth_order != 0u;
    if SITES == 1u {
        // One site: look and queue at once. (queue_run's two loops, with one site, made lavapipe
        // 22.3's memory grow without bound on lattices 8 sites wide; slab::sites_per_thread.)
        let c = run_site(run, 0u);
        if updated(c, region) {
            let i = local_index(c);
            if particles_in_reach(c.x, c.y, c.z, i) || all_busy {
                busy_sites[atomicAdd(&busy_count, 1u)] = i;
            } else {
                dst[i] = 0u;
            }
        }
    } else {
        queue_run(run, region, all_busy);
    }
    workgroupBarrier();
    let busy = atomicLoad(&busy_count);
    for (var k = lid; k < busy; k += WX * WY * WZ) {
        update_site(busy_sites[k]);
    }
}
