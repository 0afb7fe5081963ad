//!include common/dispatch.wgsl
// Dispatch sizes from a length held on the GPU: one thread reads the length (clamped to the
// launcher's capacity) and writes, for each slot of the table, the slot's length and the
// indirect-dispatch arguments (groups, 1, 1) that cover it. A slot's length is either the
// length itself or an earlier slot's group count, times `mul` plus `add`. CPU twin:
// crates/scheduler/src/primitives/dispatch.rs (DispatchTable::cpu_eval).

const DISPATCH_MAX_SLOTS: u32 = 8u;
const DISPATCH_FROM_LENGTH: u32 = 0xffffffffu;

struct DispatchCfg {
    slots: u32,
    capacity: u32,
    word: u32,
    _pad: u32,
    // Per slot: (from, mul, add, per_group), then (min_groups, 0, 0, 0).
    slot: array<vec4<u32>, 16>,
}

@group(0) @binding(0) var<uniform> dc: DispatchCfg;
@group(0) @binding(1) var<storage, read> d_len: array<u32>;
@group(0) @binding(2) var<storage, read_write> d_args: array<u32>;
@group(0) @binding(3) var<storage, read_write> d_lens: array<u32>;

@compute @workgroup_size(1)
fn setup() {
    let n = min(d_len[dc.word], dc.capacity);
    for (var k = 0u; k < min(dc.slots, DISPATCH_MAX_SLOTS); k++) {
        let s = dc.slot[2u * k];
        let min_groups = dc.slot[2u * k + 1u].x;
        var base = n;
        if s.x != DISPATCH_FROM_LENGTH {
            base = d_args[3u * s.x];
        }
        let len = base * s.y + s.z;
        d_lens[k] = len;
        d_args[3u * k] = max(div_ceil_u32(len, s.w), min_groups);
        d_args[3u * k + 1u] = 1u;
        d_args[3u * k + 2u] = 1u;
    }
}
