//!fragment
// The planes a pass updates, for RDME passes that declare `lat`.

// Local planes [begin, end) a pass updates at `step`: k steps after the last halo refresh every
// plane in [k, planes - k) is still exact (on sides with a neighbour), so the x and y sweeps
// (`shrink` 0) cover those and the z sweep and the reactions, which read the planes on either
// side, (`shrink` 1) one plane fewer on each side. At k = halo_depth - 1 that is the owned planes.
fn step_region(step: u32, shrink: u32) -> vec2<u32> {
    let k = (step - lat.halo_start) % lat.halo_depth + shrink;
    let begin = select(0u, k, lat.z_base > 0u);
    let end = select(lat.planes, lat.planes - k, lat.z_base + lat.planes < lat.nz);
    return vec2<u32>(begin, end);
}
