//!fragment
// Appending to the overflow list, for RDME passes that declare `lat` and `overflow`.

// Records one particle that did not fit; past the list's capacity it is counted as lost (the
// run then stops, crates/model/src/rdme/sim.rs).
fn push_overflow(global_site: u32, tag: u32) {
    let k = atomicAdd(&overflow[OVERFLOW_COUNT], 1u);
    atomicOr(&overflow[OVERFLOW_DONE], OVERFLOW_PENDING);
    if k < lat.overflow_capacity {
        atomicStore(&overflow[OVERFLOW_HEADER + 2u * k], global_site);
        atomicStore(&overflow[OVERFLOW_HEADER + 2u * k + 1u], tag);
    } else {
        atomicAdd(&overflow[OVERFLOW_LOST], 1u);
    }
}
