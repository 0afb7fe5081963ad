//! The epidermis gene network, growth and division: CPU reference properties, and the GPU
//! passes (`genes_gpu`, `growth_gpu`) against the CPU reference on the software adapter.

use petri_model::epidermis::genes::{
    self, cell_centre, gene_step, neighbour_sums, stage, update_centres, GeneParams, GeneUniforms,
};
use petri_model::epidermis::growth::{
    active_list, divide, grow, growth_event, spindle_axis, GrowthParams, GrowthUniforms,
};
use petri_model::epidermis::state::{
    EpidermisState, Species, ADHESIVE, DAUGHTER_ELEMENTS, MAX_ELEMENTS, PLAIN,
};

const L: f32 = 6.0;

/// A small deterministic generator (the tests need varied positions, not statistics).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
}

/// Adds a cell of `n` elements in a ball of radius 0.5 around `at` (x, y wrapped into the
/// box), its `adhesive` lowest-numbered elements at z = 0.36 and ADHESIVE, genes from the
/// defaults with Delta `delta`.
fn add_cell(
    s: &mut EpidermisState,
    rng: &mut Lcg,
    at: [f32; 3],
    n: usize,
    adhesive: usize,
    delta: f32,
) -> usize {
    let c = s.cells as usize;
    for k in 0..n {
        let (mut p, mut r2) = ([0.0f32; 3], 2.0);
        while r2 > 1.0 {
            p = [0, 1, 2].map(|_| 2.0 * rng.next() - 1.0);
            r2 = p.iter().map(|v| v * v).sum();
        }
        let wrap = |x: f32| x.rem_euclid(L);
        let mut e = [
            wrap(at[0] + 0.5 * p[0]),
            wrap(at[1] + 0.5 * p[1]),
            (at[2] + 0.5 * p[2]).max(0.0),
            PLAIN,
        ];
        if k < adhesive {
            e[2] = 0.36;
            e[3] = ADHESIVE;
        }
        s.pos[c * MAX_ELEMENTS + k] = e;
    }
    s.counts[c] = n as u32;
    s.genes[c] = GeneParams::default().initial_genes(0.0);
    s.genes[c][Species::Delta as usize] = delta;
    s.cells += 1;
    c
}

fn gene_uniforms(dt: f64, max_cells: u32) -> GeneUniforms {
    GeneUniforms::new(
        &GeneParams::default(),
        dt,
        L as f64,
        L as f64,
        L as f64,
        max_cells,
    )
}

fn growth_uniforms(max_cells: u32) -> GrowthUniforms {
    GrowthUniforms::new(&GrowthParams::default(), 1, L as f64, L as f64, max_cells)
}

/// Gene steps on fixed positions.
fn run_genes(u: &GeneUniforms, s: &mut EpidermisState, steps: usize) {
    for _ in 0..steps {
        genes::step_genes(u, s);
    }
}

fn gene(s: &EpidermisState, c: usize, sp: Species) -> f32 {
    s.genes[c][sp as usize]
}

#[test]
fn basal_cells_stay_basal_and_detached_cells_switch_within_1000_steps() {
    let threshold = GrowthParams::default().delta_threshold as f32;
    for (dt, steps) in [(0.002, 1000), (0.005, 1000), (0.01, 1000)] {
        let mut s = EpidermisState::empty(8);
        let mut rng = Lcg(7);
        // Cell 0: basal and alone; 1..4: a detached cluster (neighbours of each other); 5:
        // detached and alone; 6: basal next to the detached cluster.
        let basal = add_cell(&mut s, &mut rng, [1.0, 1.0, 0.5], 20, 4, 0.002);
        let cluster: Vec<usize> = [[3.5, 3.5], [4.5, 3.5], [3.5, 4.5], [4.5, 4.5]]
            .iter()
            .map(|&[x, y]| add_cell(&mut s, &mut rng, [x, y, 2.0], 20, 0, 0.002))
            .collect();
        let alone = add_cell(&mut s, &mut rng, [1.0, 4.0, 3.0], 20, 0, 0.002);
        let basal_near = add_cell(&mut s, &mut rng, [4.0, 4.0, 0.6], 20, 4, 0.002);
        // The start state is the basal one: the detached cells must leave it.
        let u = gene_uniforms(dt, 8);
        run_genes(&u, &mut s, steps);
        for c in [basal, basal_near] {
            assert!(gene(&s, c, Species::Adhesion) > 1.0);
            assert!(
                gene(&s, c, Species::Ovol2) > 2.0,
                "dt {dt} cell {c}: {:?}",
                s.genes[c]
            );
            assert!(
                gene(&s, c, Species::Ovol1) < 0.1,
                "dt {dt} cell {c}: {:?}",
                s.genes[c]
            );
            assert!(
                gene(&s, c, Species::Delta) < threshold,
                "dt {dt}: {:?}",
                s.genes[c]
            );
        }
        for &c in cluster.iter().chain([alone].iter()) {
            let g = s.genes[c];
            assert_eq!(gene(&s, c, Species::Adhesion), 0.0);
            assert!(gene(&s, c, Species::Ovol1) > 2.0, "dt {dt} cell {c}: {g:?}");
            assert!(gene(&s, c, Species::Ovol2) < 0.5, "dt {dt} cell {c}: {g:?}");
            assert!(gene(&s, c, Species::Notch) > 0.2, "dt {dt} cell {c}: {g:?}");
        }
        // The lone detached cell receives no Delta: its Notch stays free and makes Delta.
        assert!(
            gene(&s, alone, Species::Delta) > threshold,
            "dt {dt}: {:?}",
            s.genes[alone]
        );
        // The cluster's Notch signalling is on (bound Notch), the lone cell's is off.
        assert!(gene(&s, cluster[0], Species::Bound) > 0.1);
        assert_eq!(gene(&s, alone, Species::Bound), 0.0);
    }
}

/// Detached cells (no adhesive element) of 20 elements at height 2 in the 6 x 6 box, at the
/// points `at`, all in the detached state (O1 = 4, O2 = 0.17, M = 1) with N = 0.5, B = 0 and
/// Delta 0.5 times (1 + up to 0.5% noise): nearly equal starts.
fn detached_cells(at: &[[f32; 2]], seed: u64) -> EpidermisState {
    let mut s = EpidermisState::empty(at.len() as u32);
    let mut rng = Lcg(seed);
    for &[x, y] in at {
        let delta = 0.5 * (1.0 + 0.01 * (rng.next() - 0.5));
        let c = add_cell(&mut s, &mut rng, [x, y, 2.0], 20, 0, delta);
        for (sp, v) in [
            (Species::Notch, 0.5),
            (Species::Bound, 0.0),
            (Species::Ovol1, 4.0),
            (Species::Ovol2, 0.17),
            (Species::Myc, 1.0),
        ] {
            s.genes[c][sp as usize] = v;
        }
    }
    s
}

/// The 6 x 6 sheet of spacing 1 filling the periodic box: with the neighbour distance 1.2
/// every cell has its 4 side neighbours.
fn detached_sheet(seed: u64) -> (EpidermisState, Vec<[f32; 2]>) {
    let at: Vec<[f32; 2]> = (0..36)
        .map(|k| [(k % 6) as f32 + 0.5, (k / 6) as f32 + 0.5])
        .collect();
    (detached_cells(&at, seed), at)
}

/// Lateral inhibition's pattern on the sheet: every cell high (Delta > 1) or low (< 0.1), no
/// two side neighbours both high, every low cell next to a high one, and at least a quarter
/// of the cells on each side. Returns which cells are high.
fn assert_lateral_inhibition_pattern(s: &EpidermisState, at: &[[f32; 2]], what: &str) -> Vec<bool> {
    let delta: Vec<f32> = (0..at.len()).map(|c| gene(s, c, Species::Delta)).collect();
    let high: Vec<bool> = delta.iter().map(|&d| d > 1.0).collect();
    for (c, &d) in delta.iter().enumerate() {
        assert!(
            d.is_finite() && !(0.1..=1.0).contains(&d),
            "{what}: cell {c} Delta {d} undecided: {delta:?}"
        );
    }
    let side = |a: [f32; 2], b: [f32; 2]| {
        let dx = genes::min_image(a[0] - b[0], L).abs();
        let dy = genes::min_image(a[1] - b[1], L).abs();
        (dx + dy - 1.0).abs() < 1e-3
    };
    for c in 0..at.len() {
        let neighbours: Vec<usize> = (0..at.len()).filter(|&j| side(at[c], at[j])).collect();
        assert_eq!(neighbours.len(), 4);
        if high[c] {
            for &j in &neighbours {
                assert!(
                    !high[j],
                    "{what}: neighbours {c} and {j} both high: {delta:?}"
                );
            }
        } else {
            assert!(
                neighbours.iter().any(|&j| high[j]),
                "{what}: low cell {c} has no high neighbour: {delta:?}"
            );
        }
    }
    let n_high = high.iter().filter(|&&h| h).count();
    assert!((9..=27).contains(&n_high), "{what}: {n_high} of 36 high");
    high
}

#[test]
fn two_detached_neighbours_split_into_high_and_low_delta() {
    let u = gene_uniforms(0.01, 2);
    for seed in [1, 2, 3] {
        let mut s = detached_cells(&[[2.0, 3.0], [3.0, 3.0]], seed);
        let start = [0, 1].map(|c| gene(&s, c, Species::Delta));
        assert!((start[0] - start[1]).abs() < 0.01 * start[0]);
        run_genes(&u, &mut s, 2000);
        let d = [0, 1].map(|c| gene(&s, c, Species::Delta));
        let (hi, lo) = if d[0] > d[1] { (0, 1) } else { (1, 0) };
        assert!(d[hi] > 1.0 && d[lo] < 0.1, "seed {seed}: {:?}", s.genes);
        // The cell that started higher wins, and the loser's Notch is bound by the winner's
        // Delta.
        assert!(start[hi] > start[lo], "seed {seed}: {start:?}");
        assert!(gene(&s, lo, Species::Bound) > gene(&s, hi, Species::Bound));
    }
}

#[test]
fn a_detached_sheet_forms_the_lateral_inhibition_pattern() {
    let u = gene_uniforms(0.01, 36);
    for seed in [4, 5] {
        let (mut s, at) = detached_sheet(seed);
        run_genes(&u, &mut s, 2000);
        assert_lateral_inhibition_pattern(&s, &at, &format!("seed {seed}"));
    }
}

#[test]
fn stages_clamp_at_zero() {
    let p = GeneParams {
        ka: 100.0,
        ..Default::default()
    };
    let u = GeneUniforms::new(&p, 0.05, 6.0, 6.0, 6.0, 1);
    let y = [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    // <D> = 5: Notch is consumed at 500 per time, far more than there is.
    let nb = [0.0, 5.0, 0.0];
    let unclamped = y[0] + 0.025 * genes::rates(&u, &y, nb)[0];
    assert!(unclamped < 0.0);
    let mid = stage(&u, &y, &y, nb, 0.025);
    assert_eq!(mid[Species::Notch as usize], 0.0);
    assert!(mid.iter().all(|&v| v >= 0.0));
    // A whole step stays non-negative too.
    let mut g = vec![y];
    gene_step(&u, &mut g, &[[0.0, 5.0, 0.0, 1.0]], 1);
    assert!(g[0].iter().all(|&v| v >= 0.0), "{:?}", g[0]);
}

#[test]
fn centres_of_a_cell_across_the_periodic_boundary() {
    let u = gene_uniforms(0.005, 2);
    let mut s = EpidermisState::empty(2);
    let mut rng = Lcg(3);
    // The same cell twice: at x = 0 (half of it wraps to x near 6) and shifted by L / 2.
    add_cell(&mut s, &mut rng, [0.05, 3.0, 1.0], 20, 3, 0.0);
    for k in 0..20 {
        let mut e = s.pos[k];
        e[0] = (e[0] + L / 2.0).rem_euclid(L);
        s.pos[MAX_ELEMENTS + k] = e;
    }
    s.counts[1] = 20;
    s.cells = 2;
    assert!(s.pos[..20].iter().any(|e| e[0] > 5.0) && s.pos[..20].iter().any(|e| e[0] < 1.0));
    let mut centres = vec![[0.0; 4]; 2];
    update_centres(&u, &s.pos, &s.counts, 2, &mut centres, &mut s.genes);
    let shifted = centres[1][0] - L / 2.0;
    let d = genes::min_image(centres[0][0] - shifted, L);
    assert!(d.abs() < 1e-5, "{centres:?}");
    assert!((0.0..L).contains(&centres[0][0]));
    assert_eq!(centres[0][1], centres[1][1]);
    assert_eq!(centres[0][2], centres[1][2]);
    assert!((gene(&s, 0, Species::Adhesion) - 3.0 * 0.36).abs() < 1e-6);
    // Centres of cells across the boundary are neighbours (minimum image).
    assert!(genes::are_neighbours(
        &u,
        [0.1, 1.0, 1.0, 0.0],
        [5.9, 1.0, 1.0, 0.0]
    ));
    assert!(!genes::are_neighbours(
        &u,
        [0.1, 1.0, 1.0, 0.0],
        [3.0, 1.0, 1.0, 0.0]
    ));
}

/// A state with `cells` cells of varied sizes and Delta on a 4 x 4 lattice.
fn mixed_state(max_cells: u32, cells: usize, full_every: usize, seed: u64) -> EpidermisState {
    let mut s = EpidermisState::empty(max_cells);
    let mut rng = Lcg(seed);
    for c in 0..cells {
        let at = [
            0.75 + 1.5 * (c % 4) as f32,
            0.75 + 1.5 * ((c / 4) % 4) as f32,
            0.5 + (c / 16) as f32,
        ];
        // Some high-Delta cells (c % 3 == 2) at 20 elements: below any restriction point.
        let n = if c % full_every == 0 {
            39
        } else if c % 6 == 5 {
            20
        } else {
            20 + (c * 7) % 19
        };
        let delta = if c % 3 == 2 { 0.9 } else { 0.01 };
        add_cell(&mut s, &mut rng, at, n, 3 * (c % 2), delta);
        s.genes[c][Species::Ovol1 as usize] = 0.1 * c as f32;
    }
    s
}

#[test]
fn growth_adds_one_element_at_the_centre_of_each_eligible_cell() {
    let u = growth_uniforms(64);
    let before = mixed_state(64, 24, 5, 11);
    let mut s = before.clone();
    let added = grow(&u, &mut s);
    let eligible: Vec<usize> = (0..24)
        .filter(|&c| {
            let n = before.counts[c];
            let low = before.genes[c][Species::Delta as usize] < u.delta_threshold;
            n < MAX_ELEMENTS as u32 && (low || n >= u.restriction_point)
        })
        .collect();
    // The mix holds high-Delta cells on both sides of the restriction point.
    let high = |c: &usize| before.genes[*c][Species::Delta as usize] >= u.delta_threshold;
    assert!(eligible.iter().any(high));
    assert!((0..24).filter(high).any(|c| !eligible.contains(&c)));
    assert_eq!(added as usize, eligible.len());
    assert_eq!(s.added, added);
    assert_eq!(s.elements(), before.elements() + added as u64);
    for c in 0..24 {
        let n = before.counts[c] as usize;
        let first = c * MAX_ELEMENTS;
        assert_eq!(s.pos[first..first + n], before.pos[first..first + n]);
        if eligible.contains(&c) {
            assert_eq!(s.counts[c] as usize, n + 1);
            let centre = cell_centre(&before.pos[first..first + n], L, L);
            assert_eq!(s.pos[first + n], [centre[0], centre[1], centre[2], PLAIN]);
        } else {
            assert_eq!(s.counts[c], before.counts[c]);
        }
    }
}

#[test]
fn notch_signalling_decides_entry_into_the_cycle_not_its_completion() {
    // Two detached cells at high Delta: one just before the restriction point never grows,
    // one at it grows at every event and divides 40 - n events later; a low-Delta cell grows
    // from 20 elements.
    let u = growth_uniforms(8);
    let rp = u.restriction_point as usize;
    assert!((21..40).contains(&rp), "{rp}");
    let mut s = EpidermisState::empty(8);
    let mut rng = Lcg(5);
    let waiting = add_cell(&mut s, &mut rng, [1.0, 1.0, 2.0], rp - 1, 0, 1.5);
    let committed = add_cell(&mut s, &mut rng, [4.0, 1.0, 2.0], rp, 0, 1.5);
    let low = add_cell(&mut s, &mut rng, [1.0, 4.0, 2.0], 20, 0, 0.01);
    for event in 1..=MAX_ELEMENTS - rp {
        growth_event(&u, &mut s);
        assert_eq!(s.counts[waiting] as usize, rp - 1, "event {event}");
        assert_eq!(s.counts[low] as usize, 20 + event, "event {event}");
        let want = if event < MAX_ELEMENTS - rp {
            rp + event
        } else {
            20
        };
        assert_eq!(s.counts[committed] as usize, want, "event {event}");
    }
    assert_eq!((s.cells, s.divisions), (4, 1));
    // The daughters, at 20 elements with the mother's high Delta halved (still high), wait
    // for low Delta again.
    growth_event(&u, &mut s);
    assert_eq!((s.counts[committed], s.counts[3]), (20, 20));
}

#[test]
fn division_splits_20_20_by_rank_and_halves_the_genes() {
    let u = growth_uniforms(64);
    let mut before = mixed_state(64, 24, 5, 12);
    let added = grow(&u, &mut before);
    assert!(added > 0);
    let mut s = before.clone();
    let (divided, refused) = divide(&u, &mut s);
    assert_eq!(refused, 0);
    let dividing: Vec<usize> = (0..24)
        .filter(|&c| before.counts[c] == MAX_ELEMENTS as u32)
        .collect();
    assert!(dividing.len() >= 3, "{dividing:?}");
    assert_eq!(divided as usize, dividing.len());
    assert_eq!(s.cells, 24 + divided);
    assert_eq!(s.divisions, divided);
    assert_eq!(s.elements(), before.elements());
    for (r, &c) in dividing.iter().enumerate() {
        let d = 24 + r;
        let first = c * MAX_ELEMENTS;
        // Elements by z (ties by slot): the lower 20 stay in rank order, the upper 20 move.
        let mut order: Vec<usize> = (0..MAX_ELEMENTS).collect();
        order.sort_by(|&i, &j| {
            let (zi, zj) = (before.pos[first + i][2], before.pos[first + j][2]);
            zi.partial_cmp(&zj).unwrap().then(i.cmp(&j))
        });
        assert_eq!((s.counts[c], s.counts[d]), (20, 20));
        // The lower daughter keeps the basement membrane: as many adhesive elements as the
        // mother had, its lowest ones, wherever the mother's adhesive elements were.
        let attached = before
            .slots(c)
            .filter(|&k| before.pos[k][3] == ADHESIVE)
            .count();
        for (rank, &k) in order.iter().enumerate() {
            let e = before.pos[first + k];
            if rank < DAUGHTER_ELEMENTS {
                let kind = if rank < attached { ADHESIVE } else { PLAIN };
                assert_eq!(
                    s.pos[first + rank],
                    [e[0], e[1], e[2], kind],
                    "lower daughter"
                );
            } else {
                let got = s.pos[d * MAX_ELEMENTS + rank - DAUGHTER_ELEMENTS];
                assert_eq!(got, [e[0], e[1], e[2], PLAIN], "daughter all PLAIN");
            }
        }
        assert!(s.pos[first + 20..first + 40].iter().all(|e| *e == [0.0; 4]));
        for k in 0..Species::Adhesion as usize {
            let half = before.genes[c][k] * 0.5;
            assert_eq!((s.genes[c][k], s.genes[d][k]), (half, half));
        }
        assert_eq!(s.genes[d][Species::Adhesion as usize], 0.0);
        let adhesive = |cell: usize| s.slots(cell).filter(|&k| s.pos[k][3] == ADHESIVE).count();
        assert_eq!(adhesive(c), 3 * (c % 2));
        assert_eq!(adhesive(d), 0);
    }
    // Cells that did not divide are untouched.
    for c in (0..24).filter(|c| !dividing.contains(c)) {
        assert_eq!(
            s.slots(c).map(|k| s.pos[k]).collect::<Vec<_>>(),
            before.slots(c).map(|k| before.pos[k]).collect::<Vec<_>>()
        );
        assert_eq!(s.genes[c], before.genes[c]);
    }
    // The active list: every slot in use, cell by cell.
    let active = active_list(&s);
    assert_eq!(active.len() as u64, s.elements());
    assert_eq!(
        active[..s.counts[0] as usize],
        (0..s.counts[0]).collect::<Vec<_>>()[..]
    );
}

#[test]
fn spindle_division_splits_in_half_and_one_half_keeps_the_adhesive_elements() {
    let u = GrowthUniforms {
        spindle: 1,
        ..growth_uniforms(64)
    };
    let mut before = mixed_state(64, 24, 5, 13);
    before.step = 1999;
    grow(&u, &mut before);
    let mut s = before.clone();
    let (divided, _) = divide(&u, &mut s);
    assert!(divided >= 3);
    let dividing = (0..24).filter(|&c| before.counts[c] == MAX_ELEMENTS as u32);
    for (r, c) in dividing.enumerate() {
        let d = 24 + r;
        let axis = spindle_axis(&u, 1999, c as u32);
        // Positions unchanged: the daughters' elements are the mother's.
        let key = |e: &[f32; 4]| [e[0], e[1], e[2]].map(f32::to_bits);
        let mut was: Vec<_> = before.slots(c).map(|k| key(&before.pos[k])).collect();
        let mut now: Vec<_> = s
            .slots(c)
            .chain(s.slots(d))
            .map(|k| key(&s.pos[k]))
            .collect();
        was.sort();
        now.sort();
        assert_eq!(was, now);
        // Halves by the spindle: every element of c lies below every element of d along it.
        let x0 = before.pos[c * MAX_ELEMENTS];
        let proj = |e: [f32; 4]| {
            let dx = genes::min_image(e[0] - x0[0], L);
            let dy = genes::min_image(e[1] - x0[1], L);
            axis[0] * dx + axis[1] * dy + axis[2] * (e[2] - x0[2])
        };
        let top = s.slots(c).map(|k| proj(s.pos[k])).fold(f32::MIN, f32::max);
        let bottom = s.slots(d).map(|k| proj(s.pos[k])).fold(f32::MAX, f32::min);
        assert!(top <= bottom, "cell {c}: {top} {bottom}");
        // The half with more adhesive elements keeps them, in place; the other is plain.
        let adhesive = |st: &EpidermisState, cell| {
            st.slots(cell).filter(|&k| st.pos[k][3] == ADHESIVE).count()
        };
        let (a, ac, ad) = (adhesive(&before, c), adhesive(&s, c), adhesive(&s, d));
        assert!(ac == 0 || ad == 0, "cell {c}: {ac} {ad}");
        assert!(
            ac + ad <= a && 2 * (ac + ad) >= a,
            "cell {c}: {a} -> {ac} + {ad}"
        );
        assert_eq!(s.genes[d][Species::Adhesion as usize], 0.0);
    }
    // The draws are uniform over directions: mean cosine with z near 0, mean |cosine| near
    // 1/2, and different cells and steps get different spindles.
    let cosines: Vec<f32> = (0..4000)
        .map(|i| {
            let v = spindle_axis(&u, i / 40, i % 40);
            v[2] / v.iter().map(|x| x * x).sum::<f32>().sqrt()
        })
        .collect();
    let mean = cosines.iter().sum::<f32>() / 4000.0;
    let mean_abs = cosines.iter().map(|c| c.abs()).sum::<f32>() / 4000.0;
    assert!(
        mean.abs() < 0.03 && (mean_abs - 0.5).abs() < 0.02,
        "{mean} {mean_abs}"
    );
    assert_ne!(spindle_axis(&u, 7, 0), spindle_axis(&u, 7, 1));
    assert_ne!(spindle_axis(&u, 7, 0), spindle_axis(&u, 8, 0));
}

#[test]
fn division_along_x_uses_minimum_image_offsets() {
    // A full cell across the periodic boundary split along x: the 20 elements left of the
    // median (in minimum-image offsets from its first element) stay, whatever side of x = 0
    // they lie on.
    let mut s = EpidermisState::empty(2);
    let mut rng = Lcg(41);
    add_cell(&mut s, &mut rng, [0.0, 3.0, 1.0], 40, 2, 0.5);
    let before = s.clone();
    let u = GrowthUniforms {
        normal: [1.0, 0.0, 0.0],
        ..growth_uniforms(2)
    };
    assert_eq!(divide(&u, &mut s), (1, 0));
    let x0 = before.pos[0][0];
    let offset = |e: [f32; 4]| genes::min_image(e[0] - x0, L);
    let left = s
        .slots(0)
        .map(|k| offset(s.pos[k]))
        .fold(f32::MIN, f32::max);
    let right = s
        .slots(1)
        .map(|k| offset(s.pos[k]))
        .fold(f32::MAX, f32::min);
    assert!(left <= right, "{left} {right}");
    // The cell does straddle the boundary (raw x would rank its left side, just below x = 6,
    // last).
    let high = before.slots(0).filter(|&k| before.pos[k][0] > 3.0).count();
    assert!((5..=35).contains(&high), "{high}");
}

#[test]
fn growth_event_conserves_elements() {
    let u = growth_uniforms(64);
    let mut s = mixed_state(64, 24, 4, 13);
    let before = s.elements();
    let cells = s.cells;
    let counts = growth_event(&u, &mut s);
    assert!(counts.added > 0 && counts.divided > 0);
    assert_eq!(s.elements(), before + counts.added as u64);
    assert_eq!(s.cells, cells + counts.divided);
    assert_eq!(counts.overflow, 0);
}

#[test]
fn capacity_overflow_refuses_every_division_of_the_step() {
    let mut s = mixed_state(26, 24, 5, 14);
    grow(&growth_uniforms(26), &mut s);
    let dividing = s.counts.iter().filter(|&&n| n == 40).count() as u32;
    assert!(dividing > 2);
    let before = s.clone();
    let (divided, refused) = divide(&growth_uniforms(26), &mut s);
    assert_eq!((divided, refused), (0, dividing));
    assert_eq!(s, before);
    // With exactly enough room they all divide.
    let mut s = before.clone();
    let room = 24 + dividing;
    s.max_cells = room;
    let mut u = growth_uniforms(room);
    u.max_cells = room;
    s.counts.resize(room as usize, 0);
    s.genes.resize(room as usize, [0.0; 8]);
    s.pos.resize(room as usize * MAX_ELEMENTS, [0.0; 4]);
    assert_eq!(divide(&u, &mut s), (dividing, 0));
}

#[test]
fn neighbour_sums_count_each_neighbour_once_across_the_boundary() {
    // A 6 x 6 lattice of spacing 1 filling the periodic 6 x 6 box: within 1.5 are the 4 side
    // and the 4 diagonal cells (1.41), the cells 2 apart are out; those at the box's edge find
    // theirs through the boundary.
    let p = GeneParams {
        neighbour_distance: 1.5,
        ..Default::default()
    };
    let u = GeneUniforms::new(&p, 0.005, L as f64, L as f64, L as f64, 36);
    let centres: Vec<[f32; 4]> = (0..36)
        .map(|c| [0.5 + (c % 6) as f32, 0.5 + (c / 6) as f32, 1.0, 0.0])
        .collect();
    let g: Vec<[f32; 8]> = (0..36)
        .map(|c| [c as f32, 1.0, 0.5 * c as f32, 0.0, 0.0, 0.0, 0.0, 0.0])
        .collect();
    let mut sums = vec![[0.0; 4]; 36];
    neighbour_sums(&u, &centres, &g, 36, &mut sums);
    for c in 0..36i32 {
        let (x, y) = (c % 6, c / 6);
        let mut expected = 0.0;
        for dy in -1..=1 {
            for dx in -1..=1 {
                if (dx, dy) != (0, 0) {
                    expected += ((x + dx).rem_euclid(6) + 6 * (y + dy).rem_euclid(6)) as f32;
                }
            }
        }
        let got = sums[c as usize];
        assert_eq!(got[3], 8.0, "cell {c}");
        assert_eq!(got[1], 8.0);
        assert_eq!((got[0], got[2]), (expected, 0.5 * expected), "cell {c}");
    }
}

// ---- GPU passes against the CPU reference (software adapter) ----

mod gpu {
    use super::*;
    use petri_engine::testing::test_context;
    use petri_engine::{buffers, GpuContext};
    use petri_model::epidermis::state::{Counter, COUNTERS};
    use petri_model::epidermis::{genes_gpu, growth_gpu};
    use petri_scheduler::StepPlan;

    /// What a test plan holds: the gene passes, the growth passes every `interval` steps, or
    /// both (genes first, as in a step).
    struct Setup<'a> {
        genes: Option<&'a GeneUniforms>,
        growth: Option<(&'a GrowthUniforms, u32)>,
        workgroup: u32,
    }

    /// A plan over the spec's buffers holding state `s`.
    fn plan_for(ctx: &GpuContext, s: &EpidermisState, setup: &Setup) -> StepPlan {
        let m = s.max_cells as u64;
        let mut plan = StepPlan::new(ctx, 1, 8);
        let storage = |name: &str, bytes: &[u8]| buffers::storage_from(ctx, name, bytes).unwrap();
        let zeroed = |name: &str, bytes: u64| buffers::storage_zeroed(ctx, name, bytes).unwrap();
        plan.add_buffer("pos", storage("pos", bytemuck::cast_slice(&s.pos)));
        plan.add_buffer("counts", storage("counts", bytemuck::cast_slice(&s.counts)));
        plan.add_buffer("genes", storage("genes", bytemuck::cast_slice(&s.genes)));
        plan.add_buffer("genes_mid", zeroed("genes_mid", m * 32));
        plan.add_buffer("centres", zeroed("centres", m * 16));
        plan.add_buffer("neighbours", zeroed("neighbours", m * 16));
        let mut counters = [0u32; COUNTERS];
        counters[Counter::Cells as usize] = s.cells;
        counters[Counter::Elements as usize] = s.elements() as u32;
        counters[Counter::Divisions as usize] = s.divisions;
        counters[Counter::Added as usize] = s.added;
        plan.add_buffer(
            "counters",
            storage("counters", bytemuck::cast_slice(&counters)),
        );
        let mut active = active_list(s);
        active.resize(s.pos.len(), 0);
        plan.add_buffer("active", storage("active", bytemuck::cast_slice(&active)));
        if let Some(u) = setup.genes {
            genes_gpu::add_passes(ctx, &mut plan, u, setup.workgroup).unwrap();
        }
        if let Some((u, interval)) = setup.growth {
            growth_gpu::add_passes(ctx, &mut plan, u, interval, setup.workgroup).unwrap();
        }
        plan
    }

    fn read<T: bytemuck::Pod>(ctx: &GpuContext, plan: &StepPlan, name: &str) -> Vec<T> {
        buffers::read_vec::<T>(ctx, plan.buffer(name)).unwrap()
    }

    /// The state on the GPU, and its counters.
    fn read_state(ctx: &GpuContext, plan: &StepPlan, max_cells: u32) -> (EpidermisState, Vec<u32>) {
        ctx.wait().unwrap();
        let counters: Vec<u32> = read(ctx, plan, "counters");
        let mut s = EpidermisState::empty(max_cells);
        s.step = plan.step;
        s.cells = counters[Counter::Cells as usize];
        s.divisions = counters[Counter::Divisions as usize];
        s.added = counters[Counter::Added as usize];
        s.counts = read(ctx, plan, "counts");
        s.pos = read(ctx, plan, "pos");
        s.genes = read(ctx, plan, "genes");
        (s, counters)
    }

    /// Cells in a lattice of spacing 1.5 plus two cells across the periodic boundary, some
    /// basal, some in a detached cluster.
    fn gene_state() -> EpidermisState {
        let mut s = mixed_state(32, 20, 5, 21);
        let mut rng = Lcg(22);
        add_cell(&mut s, &mut rng, [0.02, 5.98, 2.5], 20, 0, 0.5);
        add_cell(&mut s, &mut rng, [5.9, 3.0, 1.2], 26, 2, 0.5);
        s
    }

    /// A neighbour distance away from the lattice's (1.5 between sides, 2.1 across
    /// diagonals), so that no pair sits at the distance where rounding decides.
    fn gene_uniforms_gpu(dt: f64) -> GeneUniforms {
        let p = GeneParams {
            neighbour_distance: 1.8,
            ..Default::default()
        };
        GeneUniforms::new(&p, dt, L as f64, L as f64, L as f64, 32)
    }

    /// A plan of the gene passes alone.
    fn gene_plan(ctx: &GpuContext, s: &EpidermisState, u: &GeneUniforms) -> StepPlan {
        let setup = Setup {
            genes: Some(u),
            growth: None,
            workgroup: 64,
        };
        plan_for(ctx, s, &setup)
    }

    fn assert_close(got: &[[f32; 8]], want: &[[f32; 8]], what: &str) {
        for (c, (g, w)) in got.iter().zip(want).enumerate() {
            for k in 0..8 {
                let tol = 1e-5 * g[k].abs().max(w[k].abs()).max(1e-3);
                assert!(
                    (g[k] - w[k]).abs() <= tol,
                    "{what}: cell {c} species {k}: GPU {} CPU {}",
                    g[k],
                    w[k]
                );
            }
        }
    }

    #[test]
    fn gene_steps_match_the_cpu_reference() {
        let ctx = test_context();
        let u = gene_uniforms_gpu(0.01);
        let mut cpu = gene_state();
        let mut plan = gene_plan(&ctx, &cpu, &u);
        plan.run(&ctx, 1);
        let centres = genes::step_genes(&u, &mut cpu);
        let (gpu, _) = read_state(&ctx, &plan, 32);
        // Centres: the same operations in the same order.
        let got_centres: Vec<[f32; 4]> = read(&ctx, &plan, "centres");
        assert_eq!(got_centres[..22], centres[..22]);
        // Neighbour sets: the binned search finds the all-pairs ones.
        let mut sums = vec![[0.0; 4]; 32];
        let mut start = gene_state();
        update_centres(
            &u,
            &start.pos,
            &start.counts,
            22,
            &mut vec![[0.0; 4]; 32],
            &mut start.genes,
        );
        neighbour_sums(&u, &centres, &start.genes, 22, &mut sums);
        let got_sums: Vec<[f32; 4]> = read(&ctx, &plan, "neighbours");
        for c in 0..22 {
            assert_eq!(got_sums[c][3], sums[c][3], "cell {c}");
            for k in 0..3 {
                assert!((got_sums[c][k] - sums[c][k]).abs() <= 1e-5 * sums[c][k].abs().max(1e-3));
            }
        }
        assert!(sums.iter().filter(|s| s[3] > 0.0).count() >= 15);
        // Across the boundary: cells 20 (x ~ 0) and 21 (x ~ 5.9) find lattice cells beyond it.
        assert!(
            sums[20][3] > 0.0 && sums[21][3] > 0.0,
            "{:?}",
            &sums[20..22]
        );
        assert_close(&gpu.genes, &cpu.genes, "after 1 step");
        // More steps: still within the tolerance (the GPU state continues on its own).
        plan.run(&ctx, 9);
        for _ in 0..9 {
            genes::step_genes(&u, &mut cpu);
        }
        let (gpu, _) = read_state(&ctx, &plan, 32);
        assert_close(&gpu.genes, &cpu.genes, "after 10 steps");
        assert_eq!(gpu.pos, cpu.pos);
    }

    #[test]
    fn gene_stages_clamp_at_zero_on_the_gpu_as_on_the_cpu() {
        let ctx = test_context();
        let p = GeneParams {
            neighbour_distance: 1.8,
            ka: 100.0,
            ..Default::default()
        };
        let u = GeneUniforms::new(&p, 0.05, L as f64, L as f64, L as f64, 32);
        let mut cpu = gene_state();
        for g in cpu.genes.iter_mut() {
            g[Species::Notch as usize] = 1.0;
            g[Species::Delta as usize] = 1.0;
        }
        let mut plan = gene_plan(&ctx, &cpu, &u);
        plan.run(&ctx, 1);
        genes::step_genes(&u, &mut cpu);
        let mid: Vec<[f32; 8]> = read(&ctx, &plan, "genes_mid");
        // Cells with neighbours lose all their Notch in the first stage.
        let sums: Vec<[f32; 4]> = read(&ctx, &plan, "neighbours");
        let bound = (0..22).filter(|&c| sums[c][3] > 0.0).count();
        assert!(bound > 10);
        for c in (0..22).filter(|&c| sums[c][3] > 0.0) {
            assert_eq!(mid[c][Species::Notch as usize], 0.0, "cell {c}");
        }
        let (gpu, _) = read_state(&ctx, &plan, 32);
        assert!(gpu.genes.iter().flatten().all(|&v| v >= 0.0));
        assert_close(&gpu.genes, &cpu.genes, "clamped step");
    }

    #[test]
    fn a_detached_sheet_forms_the_same_pattern_on_the_gpu() {
        let ctx = test_context();
        let u = gene_uniforms(0.01, 36);
        let (mut cpu, at) = detached_sheet(4);
        let mut plan = gene_plan(&ctx, &cpu, &u);
        plan.run(&ctx, 2000);
        run_genes(&u, &mut cpu, 2000);
        let (gpu, _) = read_state(&ctx, &plan, 36);
        let want = assert_lateral_inhibition_pattern(&cpu, &at, "CPU");
        let got = assert_lateral_inhibition_pattern(&gpu, &at, "GPU");
        assert_eq!(got, want);
        // Two neighbours from nearly equal starts, on the GPU.
        let mut pair = detached_cells(&[[2.0, 3.0], [3.0, 3.0]], 1);
        let u2 = gene_uniforms(0.01, 2);
        let mut plan = gene_plan(&ctx, &pair, &u2);
        plan.run(&ctx, 2000);
        run_genes(&u2, &mut pair, 2000);
        let (gpu, _) = read_state(&ctx, &plan, 2);
        for c in 0..2 {
            let (g, w) = (
                gene(&gpu, c, Species::Delta),
                gene(&pair, c, Species::Delta),
            );
            assert!(
                (g - w).abs() <= 1e-3 * w.max(0.01),
                "cell {c}: GPU {g} CPU {w}"
            );
        }
        assert!(gene(&gpu, 0, Species::Delta).max(gene(&gpu, 1, Species::Delta)) > 1.0);
        assert!(gene(&gpu, 0, Species::Delta).min(gene(&gpu, 1, Species::Delta)) < 0.1);
    }

    /// A plan of the growth passes alone, run after every step.
    fn growth_plan(ctx: &GpuContext, s: &EpidermisState, u: &GrowthUniforms) -> StepPlan {
        let setup = Setup {
            genes: None,
            growth: Some((u, 1)),
            workgroup: 64,
        };
        plan_for(ctx, s, &setup)
    }

    #[test]
    fn growth_and_division_match_the_cpu_bitwise() {
        let ctx = test_context();
        let plane = |normal| (normal, 0);
        let spindle = ([0.0, 0.0, 1.0], 1);
        for (normal, spindle) in [
            plane([0.0, 0.0, 1.0]),
            plane([1.0, 0.0, 0.0]),
            plane([0.3, -0.5, 0.8]),
            spindle,
        ] {
            let u = GrowthUniforms {
                normal,
                spindle,
                ..growth_uniforms(64)
            };
            let mut cpu = mixed_state(64, 24, 5, 31);
            // A full-to-be cell across the periodic boundary in x.
            let mut rng = Lcg(32);
            let straddling = add_cell(&mut cpu, &mut rng, [0.02, 3.0, 1.0], 39, 2, 0.01);
            let mut plan = growth_plan(&ctx, &cpu, &u);
            for step in 1..=3 {
                plan.run(&ctx, 1);
                let before = cpu.elements();
                let counts = growth_event(&u, &mut cpu);
                if step == 1 {
                    assert!(counts.divided >= 4 && counts.added > 10, "{counts:?}");
                    assert_eq!(cpu.counts[straddling], 20);
                }
                assert_eq!(cpu.elements(), before + counts.added as u64);
                cpu.step += 1;
                let (gpu, counters) = read_state(&ctx, &plan, 64);
                let at = format!("normal {normal:?} spindle {spindle} step {step}");
                assert_eq!(gpu.cells, cpu.cells, "{at}");
                assert_eq!(gpu.counts, cpu.counts, "{at}");
                assert!(gpu.pos == cpu.pos, "{at}: positions differ");
                assert!(gpu.genes == cpu.genes, "{at}: genes differ");
                assert_eq!((gpu.divisions, gpu.added), (cpu.divisions, cpu.added));
                assert_eq!(counters[Counter::Overflow as usize], 0);
                assert_eq!(counters[Counter::Elements as usize] as u64, cpu.elements());
                let active: Vec<u32> = read(&ctx, &plan, "active");
                let want = active_list(&cpu);
                assert_eq!(active[..want.len()], want[..], "{at}");
            }
        }
    }

    #[test]
    fn capacity_overflow_refuses_the_step_and_counts_on_the_gpu() {
        let ctx = test_context();
        let u = growth_uniforms(26);
        let mut cpu = mixed_state(26, 24, 5, 14);
        let mut plan = growth_plan(&ctx, &cpu, &u);
        plan.run(&ctx, 1);
        let counts = growth_event(&u, &mut cpu);
        assert!(counts.overflow > 2 && counts.divided == 0, "{counts:?}");
        let (gpu, counters) = read_state(&ctx, &plan, 26);
        assert_eq!(counters[Counter::Overflow as usize], counts.overflow);
        assert_eq!(gpu.cells, 24);
        assert_eq!(gpu.divisions, 0);
        assert_eq!(gpu.counts, cpu.counts);
        assert!(gpu.pos == cpu.pos);
        assert!(gpu.genes == cpu.genes);
    }

    #[test]
    fn genes_and_growth_are_deterministic_across_workgroup_sizes() {
        let ctx = test_context();
        let gu = gene_uniforms_gpu(0.01);
        // Spindles: draws keyed by the step, the same whatever the batch.
        let wu = GrowthUniforms {
            spindle: 1,
            ..growth_uniforms(32)
        };
        let start = gene_state();
        let mut runs = Vec::new();
        // Workgroup sizes, and batch lengths: 2 + 7 steps (in batches of at most 8), or one
        // step per batch.
        for (wg, one_by_one) in [
            (1, false),
            (32, false),
            (64, false),
            (256, false),
            (64, true),
        ] {
            let setup = Setup {
                genes: Some(&gu),
                growth: Some((&wu, 3)),
                workgroup: wg,
            };
            let mut plan = plan_for(&ctx, &start, &setup);
            plan.run(&ctx, 2);
            let (s, _) = read_state(&ctx, &plan, 32);
            // Growth runs after steps 2, 5, 8 (0-based), not before.
            assert_eq!((s.added, s.cells), (0, 22));
            for _ in 0..if one_by_one { 7 } else { 1 } {
                plan.run(&ctx, if one_by_one { 1 } else { 7 });
            }
            let (s, counters) = read_state(&ctx, &plan, 32);
            assert!(
                s.added > 0 && s.divisions > 0,
                "{} {}",
                s.added,
                s.divisions
            );
            runs.push((s, counters));
        }
        for r in &runs[1..] {
            assert!(r.0 == runs[0].0, "states differ between workgroup sizes");
            assert_eq!(r.1, runs[0].1);
        }
    }
}
