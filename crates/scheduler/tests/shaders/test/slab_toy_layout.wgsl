//!fragment
// The toy z-decomposed model's state (crates/scheduler/tests/slabs.rs): FIELDS field planes of
// PLANES z planes of NX * NY u32 words, read from `current`.

override NX: u32 = 8u;
override NY: u32 = 4u;
override PLANES: u32 = 1u;
override FIELDS: u32 = 3u;

@group(1) @binding(0) var<storage, read> current: array<u32>;

// Word i of plane z of field f; zero past the local planes.
fn word(f: u32, i: u32, z: i32) -> u32 {
    if z < 0 || u32(z) >= PLANES {
        return 0u;
    }
    return current[(f * PLANES + u32(z)) * NX * NY + i];
}
