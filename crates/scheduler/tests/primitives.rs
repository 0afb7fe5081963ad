//! The GPU primitives against their CPU twins (on lavapipe in CI): exact equality for integers,
//! bitwise for the segmented reduction; host and GPU lengths, lengths below and above the
//! capacity; sizes around the 256-thread and 2048-item block boundaries.

use petri_engine::{buffers, testing::test_context, GpuContext};
use petri_scheduler::primitives::{
    bench, bench::random_words, cpu_binning, cpu_exclusive_scan, cpu_radix_sort,
    cpu_segmented_reduce, Binning, Grid, Length, Primitive, RadixSort, Scan, SegmentedReduction,
};
use petri_scheduler::ReduceOp;

const SIZES: [u32; 9] = [0, 1, 2, 255, 256, 257, 1000, 4097, 100_003];
const BIG: u32 = 100_003;

fn words(n: usize, seed: u64) -> Vec<u32> {
    random_words(n, seed)
}

fn run(ctx: &GpuContext, record: impl FnOnce(&mut wgpu::CommandEncoder)) {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    record(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
}

fn read_u32(ctx: &GpuContext, b: &wgpu::Buffer, n: usize) -> Vec<u32> {
    buffers::read_vec::<u32>(ctx, b).unwrap()[..n].to_vec()
}

fn write<T: bytemuck::Pod>(ctx: &GpuContext, b: &wgpu::Buffer, data: &[T]) {
    if !data.is_empty() {
        ctx.queue.write_buffer(b, 0, bytemuck::cast_slice(data));
    }
}

/// A buffer holding a GPU length at word 1 (word 0 is a decoy).
fn gpu_len(ctx: &GpuContext) -> wgpu::Buffer {
    buffers::storage_from(ctx, "length", &[u32::MAX, 0]).unwrap()
}

fn set_gpu_len(ctx: &GpuContext, b: &wgpu::Buffer, n: u32) {
    write(ctx, b, &[7u32, n]);
}

// ---- scan ----

fn scan_input(n: usize, seed: u64) -> Vec<u32> {
    // Mostly small values (slot counts), some huge ones so that the sum wraps.
    words(n, seed)
        .into_iter()
        .map(|w| if w % 97 == 0 { w } else { w % 5 })
        .collect()
}

#[test]
fn scan_matches_twin_with_host_length() {
    let ctx = test_context();
    let input = buffers::storage_zeroed(&ctx, "in", BIG as u64 * 4).unwrap();
    let output = buffers::storage_zeroed(&ctx, "out", BIG as u64 * 4).unwrap();
    let scan = Scan::new(&ctx, &input, &output, BIG, Length::Host(0)).unwrap();
    for n in SIZES {
        let data = scan_input(n as usize, n as u64);
        write(&ctx, &input, &data);
        // A stale value just past the end must survive (the scan writes only `n` items).
        let tail = (n as usize + 1).min(BIG as usize);
        write(&ctx, &output, &vec![0xdead_beefu32; tail]);
        scan.set_len(&ctx, n).unwrap();
        run(&ctx, |e| scan.record(e));
        let (want, total) = cpu_exclusive_scan(&data);
        let got = read_u32(&ctx, &output, tail);
        assert_eq!(&got[..n as usize], &want[..], "n = {n}");
        if n < BIG {
            assert_eq!(
                got[n as usize], 0xdead_beef,
                "n = {n}: wrote past the length"
            );
        }
        assert_eq!(read_u32(&ctx, scan.total(), 1)[0], total, "total, n = {n}");
    }
}

/// A scan of capacity `cap` reading its length at word 1 of a GPU buffer, run for each
/// (length written, length expected after clamping to the capacity).
fn check_scan_gpu_length(cap: u32, cases: &[(u32, u32)], seed: u64) {
    let ctx = test_context();
    let data = scan_input(cap as usize, seed);
    let input = buffers::storage_from(&ctx, "in", &data).unwrap();
    let output = buffers::storage_zeroed(&ctx, "out", cap as u64 * 4).unwrap();
    let len = gpu_len(&ctx);
    let scan = Scan::new(
        &ctx,
        &input,
        &output,
        cap,
        Length::Gpu {
            buffer: len.clone(),
            word: 1,
        },
    )
    .unwrap();
    for &(n, effective) in cases {
        set_gpu_len(&ctx, &len, n);
        run(&ctx, |e| scan.record(e));
        let (want, total) = cpu_exclusive_scan(&data[..effective as usize]);
        assert_eq!(read_u32(&ctx, &output, effective as usize), want, "n = {n}");
        assert_eq!(read_u32(&ctx, scan.total(), 1)[0], total, "n = {n}");
    }
    assert!(scan.set_len(&ctx, 3).is_err(), "set_len on a GPU length");
}

#[test]
fn scan_reads_its_length_from_the_gpu_and_clamps_it_to_capacity() {
    let cases = [(0, 0), (1, 1), (2049, 2049), (4097, 4097), (9999, 5000)];
    check_scan_gpu_length(5000, &cases, 11);
}

#[test]
fn scan_of_three_levels_matches_twin() {
    // More than 2048^2 items: block sums of block sums; a length just past a level edge.
    let edge = 2048 * 2048 + 1;
    check_scan_gpu_length(edge + 5000, &[(edge, edge), (3, 3)], 17);
}

#[test]
fn scan_total_feeds_the_next_primitive_as_its_length() {
    // Flags -> scan -> the count of set flags is the length of a second scan, on the GPU.
    let ctx = test_context();
    let n = 3000u32;
    let flags: Vec<u32> = words(n as usize, 5).iter().map(|w| w % 2).collect();
    let input = buffers::storage_from(&ctx, "flags", &flags).unwrap();
    let slots = buffers::storage_zeroed(&ctx, "slots", n as u64 * 4).unwrap();
    let out2 = buffers::storage_zeroed(&ctx, "out2", n as u64 * 4).unwrap();
    let first = Scan::new(&ctx, &input, &slots, n, Length::Host(n)).unwrap();
    let second = Scan::new(
        &ctx,
        &input,
        &out2,
        n,
        Length::Gpu {
            buffer: first.total().clone(),
            word: 0,
        },
    )
    .unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        first.record_pass(&mut pass);
        second.record_pass(&mut pass);
    }
    ctx.queue.submit([encoder.finish()]);
    let count = flags.iter().sum::<u32>();
    let (want, total) = cpu_exclusive_scan(&flags[..count as usize]);
    assert_eq!(read_u32(&ctx, &out2, count as usize), want);
    assert_eq!(read_u32(&ctx, second.total(), 1)[0], total);
}

#[test]
fn scan_refuses_bad_sizes() {
    let ctx = test_context();
    let small = buffers::storage_zeroed(&ctx, "small", 40).unwrap();
    let err = Scan::new(&ctx, &small, &small, 11, Length::Host(0))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("input") && err.contains("44 bytes"), "{err}");
    let big = buffers::storage_zeroed(&ctx, "big", 64).unwrap();
    let err = Scan::new(&ctx, &big, &big, 16, Length::Host(0))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("output") && err.contains("in place"), "{err}");
    let other = buffers::storage_zeroed(&ctx, "other", 64).unwrap();
    let err = Scan::new(&ctx, &big, &other, 16, Length::Host(17))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("length = 17") && err.contains("16"), "{err}");
    let scan = Scan::new(&ctx, &big, &other, 16, Length::Host(3)).unwrap();
    assert!(scan.set_len(&ctx, 17).is_err());
}

// ---- radix sort ----

/// Keys below 2^key_bits with many duplicates (a small alphabet) plus junk above key_bits in
/// some cases, and a payload that records the input position.
fn sort_input(n: usize, key_bits: u32, seed: u64, junk: bool) -> (Vec<u32>, Vec<u32>) {
    let mask = if key_bits == 32 {
        u32::MAX
    } else {
        (1 << key_bits) - 1
    };
    let w = words(n, seed);
    let alphabet: Vec<u32> = words(37, seed ^ 1).iter().map(|k| k & mask).collect();
    let keys = w
        .iter()
        .map(|&x| {
            let k = alphabet[(x % 37) as usize];
            if junk && key_bits < 32 {
                k | (x & !mask)
            } else {
                k
            }
        })
        .collect();
    (keys, (0..n as u32).collect())
}

#[test]
fn cpu_radix_sort_is_stds_stable_sort_by_the_low_bits() {
    for key_bits in [1, 3, 4, 5, 8, 17, 20, 31, 32] {
        for n in [0usize, 1, 2, 257, 5000] {
            let (keys, vals) = sort_input(n, key_bits, n as u64 + key_bits as u64, true);
            let mask = if key_bits == 32 {
                u32::MAX
            } else {
                (1 << key_bits) - 1
            };
            let mut pairs: Vec<(u32, u32)> = keys.iter().copied().zip(vals.clone()).collect();
            pairs.sort_by_key(|p| p.0 & mask);
            let (k, v) = cpu_radix_sort(&keys, &vals, key_bits).unwrap();
            assert_eq!(k, pairs.iter().map(|p| p.0).collect::<Vec<_>>());
            assert_eq!(v, pairs.iter().map(|p| p.1).collect::<Vec<_>>());
        }
    }
    assert!(cpu_radix_sort(&[1], &[1], 0).is_err());
    assert!(cpu_radix_sort(&[1], &[1], 33).is_err());
    assert!(cpu_radix_sort(&[1], &[], 8).is_err());
}

fn check_sort_host(key_bits: u32, junk: bool) {
    let ctx = test_context();
    let keys = buffers::storage_zeroed(&ctx, "keys", BIG as u64 * 4).unwrap();
    let vals = buffers::storage_zeroed(&ctx, "vals", BIG as u64 * 4).unwrap();
    let sort = RadixSort::new(&ctx, &keys, &vals, BIG, key_bits, Length::Host(0)).unwrap();
    for n in SIZES {
        let (k, v) = sort_input(n as usize, key_bits, n as u64 * 3 + key_bits as u64, junk);
        write(&ctx, &keys, &k);
        write(&ctx, &vals, &v);
        sort.set_len(&ctx, n).unwrap();
        run(&ctx, |e| sort.record(e));
        let (wk, wv) = cpu_radix_sort(&k, &v, key_bits).unwrap();
        assert_eq!(read_u32(&ctx, sort.keys(), n as usize), wk, "keys, n = {n}");
        assert_eq!(read_u32(&ctx, sort.vals(), n as usize), wv, "vals, n = {n}");
        // The input is left as it was.
        assert_eq!(read_u32(&ctx, &keys, n as usize), k);
    }
}

#[test]
fn sort_matches_twin_32_bits() {
    check_sort_host(32, false);
}

#[test]
fn sort_matches_twin_20_bits_ignoring_higher_bits() {
    check_sort_host(20, true);
}

#[test]
fn sort_with_odd_pass_count_and_gpu_length() {
    // At this capacity 8 bits sort in one wide pass (result in the first buffer), 9 and 17 in
    // narrow ones (3 and 5 passes, the last 1 bit wide): both digit widths run.
    let ctx = test_context();
    let cap = 6000u32;
    let len = gpu_len(&ctx);
    for key_bits in [8, 9, 17] {
        let (k, v) = sort_input(cap as usize, key_bits, key_bits as u64, true);
        let keys = buffers::storage_from(&ctx, "keys", &k).unwrap();
        let vals = buffers::storage_from(&ctx, "vals", &v).unwrap();
        let sort = RadixSort::new(
            &ctx,
            &keys,
            &vals,
            cap,
            key_bits,
            Length::Gpu {
                buffer: len.clone(),
                word: 1,
            },
        )
        .unwrap();
        for (n, effective) in [(0u32, 0u32), (1, 1), (4097, 4097), (u32::MAX, cap)] {
            set_gpu_len(&ctx, &len, n);
            run(&ctx, |e| sort.record(e));
            let e = effective as usize;
            let (wk, wv) = cpu_radix_sort(&k[..e], &v[..e], key_bits).unwrap();
            assert_eq!(
                read_u32(&ctx, sort.keys(), e),
                wk,
                "{key_bits} bits, n = {n}"
            );
            assert_eq!(
                read_u32(&ctx, sort.vals(), e),
                wv,
                "{key_bits} bits, n = {n}"
            );
        }
    }
}

#[test]
fn sort_refuses_bad_key_bits_and_capacities() {
    let ctx = test_context();
    let b = buffers::storage_zeroed(&ctx, "b", 64).unwrap();
    for bits in [0, 33] {
        let err = RadixSort::new(&ctx, &b, &b, 4, bits, Length::Host(0))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("key_bits") && err.contains("1..=32"), "{err}");
    }
    // A capacity past the device's buffer or workgroup limits is an error, not a panic.
    let huge = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("huge"),
        size: 1 << 30,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let cap = u32::MAX;
    assert!(huge.size() < cap as u64 * 4);
    assert!(RadixSort::new(&ctx, &huge, &huge, cap, 32, Length::Host(0)).is_err());
}

// ---- binning ----

fn grid(dims: [u32; 3], periodic: [bool; 3]) -> Grid {
    Grid {
        origin: [-1.0, 0.5, 2.0],
        cell_size: [0.25, 0.5, 0.125],
        dims,
        periodic,
    }
}

/// Points in and around the grid (so that clamping and wrapping happen), a quarter of them on
/// cell faces exactly.
fn points(g: &Grid, n: usize, seed: u64) -> Vec<[f32; 4]> {
    let w = words(3 * n, seed);
    (0..n)
        .map(|i| {
            let mut p = [0.0f32; 4];
            for a in 0..3 {
                let r = w[3 * i + a];
                let extent = g.dims[a] as f32 * g.cell_size[a];
                p[a] = if i % 4 == 0 {
                    // A face: origin + k * cell_size, k from -2 to dims + 2.
                    let k = (r % (g.dims[a] + 5)) as f32 - 2.0;
                    g.origin[a] + k * g.cell_size[a]
                } else {
                    let u = (r >> 8) as f32 / (1u32 << 24) as f32;
                    g.origin[a] + (1.5 * u - 0.25) * extent
                };
            }
            p[3] = i as f32;
            p
        })
        .collect()
}

#[test]
fn grid_cells_of_faces_wraps_and_clamps() {
    let g = grid([4, 3, 2], [true, false, true]);
    // On faces: the cell above (origin + 1 * cell size -> cell 1).
    assert_eq!(g.cell_of([-0.75, 0.5, 2.0]), 1);
    assert_eq!(g.cell_of([-1.0, 1.0, 2.125]), 4 + 12);
    // x periodic: -1 wraps to 3, 4 to 0; y clamped: below -> 0, above -> 2.
    assert_eq!(g.cell_of([-1.1, 0.0, 2.0]), 3);
    assert_eq!(g.cell_of([0.0, 99.0, 2.0]), 2 * 4);
    // z periodic with 2 cells: -1 -> 1, 2 -> 0.
    assert_eq!(g.cell_of([-1.0, 0.5, 1.9]), 12);
    assert_eq!(g.cell_of([-1.0, 0.5, 2.25]), 0);
    assert_eq!(g.key_bits(), 5);
}

#[test]
fn cpu_binning_offsets_delimit_each_cells_points() {
    let g = grid([5, 4, 3], [true, false, false]);
    let p = points(&g, 700, 3);
    let r = cpu_binning(&g, &p).unwrap();
    assert_eq!(r.cell_offsets.len(), 61);
    assert_eq!(*r.cell_offsets.last().unwrap(), 700);
    for c in 0..60usize {
        let (a, b) = (r.cell_offsets[c] as usize, r.cell_offsets[c + 1] as usize);
        assert!(a <= b);
        for s in a..b {
            let i = r.sorted_indices[s] as usize;
            assert_eq!(r.cell_of[i], c as u32);
            assert_eq!(g.cell_of([p[i][0], p[i][1], p[i][2]]), c as u32);
        }
        // Stable: indices rise within a cell.
        assert!(r.sorted_indices[a..b].windows(2).all(|w| w[0] < w[1]));
    }
}

fn check_binning(ctx: &GpuContext, b: &Binning, g: &Grid, p: &[[f32; 4]], n: usize) {
    let want = cpu_binning(g, &p[..n]).unwrap();
    let cells = g.cells() as usize;
    assert_eq!(
        read_u32(ctx, b.cell_of(), n),
        want.cell_of,
        "cells, n = {n}"
    );
    assert_eq!(
        read_u32(ctx, b.sorted_cells(), n),
        want.sorted_cells,
        "n = {n}"
    );
    assert_eq!(
        read_u32(ctx, b.sorted_indices(), n),
        want.sorted_indices,
        "n = {n}"
    );
    assert_eq!(
        read_u32(ctx, b.cell_offsets(), cells + 1),
        want.cell_offsets,
        "n = {n}"
    );
}

#[test]
fn binning_offsets_span_long_empty_runs_of_cells() {
    // A tissue-like case: a few points low in a tall grid (2^20 cells, almost all empty, the
    // whole top empty) and clusters far apart; every offset as the twin's.
    let ctx = test_context();
    let g = grid([128, 128, 64], [true, true, false]);
    let mut p: Vec<[f32; 4]> = points(&g, 600, 21)
        .into_iter()
        .map(|mut q| {
            q[2] = g.origin[2] + (q[2] - g.origin[2]).rem_euclid(2.0 * g.cell_size[2]);
            q
        })
        .collect();
    p.push([
        g.origin[0],
        g.origin[1],
        g.origin[2] + 40.0 * g.cell_size[2],
        0.0,
    ]);
    let n = p.len() as u32;
    let positions = buffers::storage_from(&ctx, "positions", &p).unwrap();
    let b = Binning::new(&ctx, &positions, n, g, Length::Host(n)).unwrap();
    run(&ctx, |e| b.record(e));
    check_binning(&ctx, &b, &g, &p, n as usize);
}

#[test]
fn binning_matches_twin_periodic_and_clamped() {
    let ctx = test_context();
    for (dims, periodic) in [
        ([32, 16, 16], [true, false, true]),
        ([7, 1, 300], [false, true, false]),
    ] {
        let g = grid(dims, periodic);
        let p = points(&g, BIG as usize, 9);
        let positions = buffers::storage_from(&ctx, "positions", &p).unwrap();
        let b = Binning::new(&ctx, &positions, BIG, g, Length::Host(0)).unwrap();
        for n in SIZES {
            b.set_len(&ctx, n).unwrap();
            run(&ctx, |e| b.record(e));
            check_binning(&ctx, &b, &g, &p, n as usize);
        }
    }
}

#[test]
fn binning_orders_crowded_cells_by_index() {
    // A cell of over 5,000 points (clamped into it) and one of 17 beside cells of a few:
    // every cell's points in rising index order, as the twin's stable sort, over repeated
    // binnings of the same buffers (the counts start from zero each time).
    let ctx = test_context();
    let g = grid([4, 4, 2], [false, false, false]);
    let spread = points(&g, 3000, 5);
    let mut p = Vec::new();
    for i in 0..8000usize {
        p.push(match i % 8 {
            // Far below the grid: clamped into cell 0.
            0..=4 => [-50.0, -50.0, -50.0, 0.0],
            _ => spread[i % spread.len()],
        });
    }
    let at = |c: [f32; 3]| [c[0], c[1], c[2], 0.0];
    let inside = [-1.0 + 2.5 * 0.25, 0.5 + 1.5 * 0.5, 2.0 + 0.5 * 0.125];
    p.extend(std::iter::repeat_n(at(inside), 17));
    let n = p.len() as u32;
    let positions = buffers::storage_from(&ctx, "positions", &p).unwrap();
    let b = Binning::new(&ctx, &positions, n, g, Length::Host(n)).unwrap();
    for _ in 0..2 {
        run(&ctx, |e| b.record(e));
        check_binning(&ctx, &b, &g, &p, n as usize);
    }
    let offsets = read_u32(&ctx, b.cell_offsets(), g.cells() as usize + 1);
    let largest = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    assert!(largest >= 5000, "largest cell {largest}");
}

#[test]
fn binning_reads_its_length_from_the_gpu() {
    let ctx = test_context();
    let g = grid([3, 3, 3], [true, true, true]);
    let cap = 3000u32;
    let p = points(&g, cap as usize, 4);
    let positions = buffers::storage_from(&ctx, "positions", &p).unwrap();
    let len = gpu_len(&ctx);
    let b = Binning::new(
        &ctx,
        &positions,
        cap,
        g,
        Length::Gpu {
            buffer: len.clone(),
            word: 1,
        },
    )
    .unwrap();
    for (n, effective) in [
        (0u32, 0usize),
        (1, 1),
        (2048, 2048),
        (2500, 2500),
        (3001, 3000),
    ] {
        set_gpu_len(&ctx, &len, n);
        run(&ctx, |e| b.record(e));
        check_binning(&ctx, &b, &g, &p, effective);
    }
}

#[test]
fn binning_refuses_bad_grids() {
    let ctx = test_context();
    let positions = buffers::storage_zeroed(&ctx, "positions", 64).unwrap();
    let mut g = grid([0, 2, 2], [false; 3]);
    let err = Binning::new(&ctx, &positions, 4, g, Length::Host(0))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("grid dims") && err.contains("[0, 2, 2]"),
        "{err}"
    );
    g.dims = [2, 2, 2];
    g.cell_size[1] = 0.0;
    assert!(Binning::new(&ctx, &positions, 4, g, Length::Host(0)).is_err());
    g.cell_size[1] = f32::NAN;
    assert!(cpu_binning(&g, &[]).is_err());
    g.cell_size[1] = 1.0;
    g.dims = [1 << 16, 1 << 16, 1];
    assert!(cpu_binning(&g, &[]).is_err(), "2^32 cells");
    // 2^31 cells: the offsets buffer is past the device's storage buffer limit.
    g.dims = [1 << 15, 1 << 15, 2];
    let err = Binning::new(&ctx, &positions, 4, g, Length::Host(0))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("cell offsets") && err.contains("max_storage"),
        "{err}"
    );
    // Too few positions for the capacity.
    g.dims = [2, 2, 2];
    let err = Binning::new(&ctx, &positions, 5, g, Length::Host(0))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("positions"), "{err}");
}

// ---- segmented reduction ----

/// Offsets of `segments` segments of 0 to 12 values (many empty), and the values.
fn segments(segments: usize, seed: u64) -> (Vec<u32>, Vec<f32>) {
    let w = words(segments, seed);
    let mut offsets = vec![0u32];
    for x in &w {
        let len = if x % 3 == 0 { 0 } else { x % 13 };
        offsets.push(offsets.last().unwrap() + len);
    }
    let values = words(*offsets.last().unwrap() as usize, seed ^ 7)
        .iter()
        // Nonzero, of mixed sign and magnitude, so the order of the sums matters.
        .map(|&x| (1.0 + (x >> 9) as f32 / 1024.0) * if x & 1 == 0 { 1.0 } else { -1.0e-3 })
        .collect();
    (offsets, values)
}

#[test]
fn cpu_segmented_reduce_sums_in_order_and_checks_offsets() {
    let r = cpu_segmented_reduce(ReduceOp::Sum, &[0, 2, 2, 3], &[1.0, 2.0, 4.0]).unwrap();
    assert_eq!(r, vec![3.0, 0.0, 4.0]);
    let r = cpu_segmented_reduce(ReduceOp::Min, &[0, 0, 1], &[5.0]).unwrap();
    assert_eq!(r, vec![f32::MAX, 5.0]);
    assert_eq!(
        cpu_segmented_reduce(ReduceOp::Max, &[0], &[]).unwrap(),
        vec![]
    );
    assert!(cpu_segmented_reduce(ReduceOp::Sum, &[0, 2, 1], &[1.0, 2.0]).is_err());
    assert!(cpu_segmented_reduce(ReduceOp::Sum, &[0, 3], &[1.0]).is_err());
}

/// The first `want.len()` f32 of `out` have the bits of `want`.
fn assert_bitwise(ctx: &GpuContext, out: &wgpu::Buffer, want: &[f32], what: &str) {
    let got = buffers::read_vec::<f32>(ctx, out).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got[..want.len()]), bits(want), "{what}");
}

#[test]
fn segmented_reduction_matches_twin_bitwise() {
    let ctx = test_context();
    let (offsets, values) = segments(BIG as usize, 21);
    let off = buffers::storage_from(&ctx, "offsets", &offsets).unwrap();
    let val = buffers::storage_from(&ctx, "values", &values).unwrap();
    let out = buffers::storage_zeroed(&ctx, "out", BIG as u64 * 4).unwrap();
    let len = gpu_len(&ctx);
    for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
        let host =
            SegmentedReduction::new(&ctx, op, &off, &val, &out, BIG, Length::Host(0)).unwrap();
        for n in SIZES {
            host.set_len(&ctx, n).unwrap();
            run(&ctx, |e| host.record(e));
            let n = n as usize;
            let want = cpu_segmented_reduce(op, &offsets[..n + 1], &values).unwrap();
            assert_bitwise(&ctx, &out, &want, &format!("{op:?}, n = {n}"));
        }
        let gpu = SegmentedReduction::new(
            &ctx,
            op,
            &off,
            &val,
            &out,
            5000,
            Length::Gpu {
                buffer: len.clone(),
                word: 1,
            },
        )
        .unwrap();
        for (n, effective) in [(0u32, 0usize), (1, 1), (4097, 4097), (6000, 5000)] {
            set_gpu_len(&ctx, &len, n);
            run(&ctx, |e| gpu.record(e));
            let want = cpu_segmented_reduce(op, &offsets[..effective + 1], &values).unwrap();
            assert_bitwise(&ctx, &out, &want, &format!("{op:?}, gpu n = {n}"));
        }
    }
}

#[test]
fn segmented_reduction_over_binned_cells() {
    // The binning's offsets are segments: the sum of w over each cell's sorted points.
    let ctx = test_context();
    let g = grid([6, 5, 4], [true, true, false]);
    let n = 2000u32;
    let p = points(&g, n as usize, 13);
    let positions = buffers::storage_from(&ctx, "positions", &p).unwrap();
    let b = Binning::new(&ctx, &positions, n, g, Length::Host(n)).unwrap();
    run(&ctx, |e| b.record(e));
    let sorted = read_u32(&ctx, b.sorted_indices(), n as usize);
    let w: Vec<f32> = sorted.iter().map(|&i| p[i as usize][3]).collect();
    let values = buffers::storage_from(&ctx, "w", &w).unwrap();
    let cells = g.cells() as u32;
    let out = buffers::storage_zeroed(&ctx, "out", cells as u64 * 4).unwrap();
    let s = SegmentedReduction::new(
        &ctx,
        ReduceOp::Sum,
        b.cell_offsets(),
        &values,
        &out,
        cells,
        Length::Host(cells),
    )
    .unwrap();
    run(&ctx, |e| s.record(e));
    let got = buffers::read_vec::<f32>(&ctx, &out).unwrap();
    let mut want = vec![0.0f32; cells as usize];
    for (i, q) in p.iter().enumerate() {
        let c = g.cell_of([q[0], q[1], q[2]]) as usize;
        want[c] += i as f32;
    }
    // Indices below 2^24 summed in increasing order: exact, whatever the order.
    assert_eq!(&got[..cells as usize], &want[..]);
}

// ---- bench ----

#[test]
fn bench_times_every_primitive_once_on_a_tiny_size() {
    let ctx = test_context();
    let rows = bench(&ctx, &[3000]).unwrap();
    let names: Vec<_> = rows.iter().map(|r| (r.primitive, r.key_bits)).collect();
    assert_eq!(
        names,
        vec![("scan", 0), ("sort", 32), ("sort", 20), ("binning", 10)]
    );
    for r in rows {
        assert_eq!(r.size, 3000);
        assert_eq!(r.timing.samples_ns.len(), 10, "{r:?}");
        let s = r.timing.stats();
        assert!(s.min > 0.0 && s.mean >= s.min, "{r:?}");
    }
}

/// A primitive runs as a pass of a step plan (the plan's ordering of recorded passes is
/// tested in plan_schedule.rs).
#[test]
fn a_scan_runs_as_a_pass_of_a_step_plan() {
    use petri_scheduler::{Every, StepPlan};
    let ctx = test_context();
    let n = 1000u32;
    let input = buffers::storage_zeroed(&ctx, "in", n as u64 * 4).unwrap();
    let output = buffers::storage_zeroed(&ctx, "out", n as u64 * 4).unwrap();
    let data = scan_input(n as usize, 7);
    write(&ctx, &input, &data);
    let scan = Scan::new(&ctx, &input, &output, n, Length::Host(n)).unwrap();
    let mut plan = StepPlan::new(&ctx, 1, 4);
    plan.add_recorded("scan", scan, Every::STEP).unwrap();
    plan.run(&ctx, 3);
    ctx.wait().unwrap();
    assert_eq!(
        read_u32(&ctx, &output, n as usize),
        cpu_exclusive_scan(&data).0
    );
}
