//! How the planes of a z-decomposed lattice are split over devices, and the halo each slab
//! keeps of its neighbours.

/// One device's slab: the global z planes it owns and the planes it holds (owned plus halos).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlabExtent {
    /// Global planes owned, [begin, end).
    pub own: (u32, u32),
    /// Global plane of local plane 0: `own.0` less the halo below (none at the lattice's start).
    pub base: u32,
    /// Global plane after the last local plane: `own.1` plus the halo above (none at the end).
    pub end: u32,
    /// Halo planes on each side with a neighbour.
    pub halo_depth: u32,
}

impl SlabExtent {
    /// Local planes: owned and halos.
    pub fn planes(&self) -> u32 {
        self.end - self.base
    }

    pub fn owned_planes(&self) -> u32 {
        self.own.1 - self.own.0
    }

    /// The owned planes in local numbering, [begin, end).
    pub fn own_local(&self) -> (u32, u32) {
        (self.own.0 - self.base, self.own.1 - self.base)
    }

    /// Whether the slab has a neighbour (and so halo planes) on either side.
    pub fn has_halos(&self) -> bool {
        self.base < self.own.0 || self.end > self.own.1
    }
}

/// `n` planes over `k` devices as evenly as possible (the first ones get the remainder).
pub fn equal_split(n: u32, k: usize) -> Vec<u32> {
    let k = k as u32;
    (0..k).map(|i| n / k + u32::from(i < n % k)).collect()
}

/// Planes in proportion to `speed`, at least one each, summing to `n` (at least one per entry).
pub fn proportional_split(n: u32, speed: &[f64]) -> Vec<u32> {
    let total: f64 = speed.iter().sum();
    let mut out: Vec<u32> = speed
        .iter()
        .map(|s| ((s / total) * n as f64).floor().max(1.0) as u32)
        .collect();
    // Hand out (or take back) the rounding remainder, fastest first.
    let mut order: Vec<usize> = (0..speed.len()).collect();
    order.sort_by(|&a, &b| speed[b].total_cmp(&speed[a]));
    let mut sum: i64 = out.iter().map(|&p| p as i64).sum();
    let mut k = 0;
    while sum != n as i64 {
        let i = order[k % order.len()];
        if sum < n as i64 {
            out[i] += 1;
            sum += 1;
        } else if out[i] > 1 {
            out[i] -= 1;
            sum -= 1;
        }
        k += 1;
    }
    out
}

/// Whether `split` gives each of `devices` devices a positive number of planes, `planes` in
/// all; Err says what is allowed.
pub fn check_split(split: &[u32], devices: usize, planes: u32) -> Result<(), String> {
    if split.len() != devices || split.iter().sum::<u32>() != planes || split.contains(&0) {
        return Err(format!(
            "{devices} positive plane counts summing to {planes}"
        ));
    }
    Ok(())
}

/// The halo depth of a split when `requested` is asked for: 1 on one device (no halos, but the
/// steps between exchanges are counted in halo depths), else `requested` capped by the smallest
/// slab, since a neighbour's halo must come from one slab, and at least 1.
pub fn halo_depth(requested: u32, split: &[u32]) -> u32 {
    match split.len() {
        1 => 1,
        _ => requested.min(*split.iter().min().unwrap_or(&1)).max(1),
    }
}

/// The slabs of `split` with halos `halo_depth` deep (fewer at the lattice's ends).
pub fn extents(split: &[u32], halo_depth: u32) -> Vec<SlabExtent> {
    let nz: u32 = split.iter().sum();
    let mut z = 0;
    split
        .iter()
        .map(|&planes| {
            let own = (z, z + planes);
            z += planes;
            SlabExtent {
                own,
                base: own.0.saturating_sub(halo_depth),
                end: (own.1 + halo_depth).min(nz),
                halo_depth,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_split_hands_the_remainder_to_the_first() {
        assert_eq!(equal_split(10, 3), vec![4, 3, 3]);
        assert_eq!(equal_split(11, 3), vec![4, 4, 3]);
        assert_eq!(equal_split(7, 1), vec![7]);
        assert_eq!(equal_split(3, 3), vec![1, 1, 1]);
    }

    #[test]
    fn proportional_split_follows_speed_with_one_plane_at_least() {
        assert_eq!(proportional_split(12, &[1.0, 2.0, 3.0]), vec![2, 4, 6]);
        // Rounding remainder to the fastest first: 10 * (1/3, 2/3) = 3.3, 6.7 -> 3, 6 + 1.
        assert_eq!(proportional_split(10, &[1.0, 2.0]), vec![3, 7]);
        // A very slow device keeps one plane.
        assert_eq!(proportional_split(10, &[1e-9, 1.0, 1.0]), vec![1, 5, 4]);
        for speed in [[0.3, 0.3, 0.4], [5.0, 1.0, 1.0], [1.0, 1.0, 1e6]] {
            let s = proportional_split(7, &speed);
            assert_eq!(s.iter().sum::<u32>(), 7, "{speed:?}");
            assert!(s.iter().all(|&p| p >= 1), "{speed:?}: {s:?}");
        }
    }

    #[test]
    fn halo_depth_is_capped_by_the_smallest_slab() {
        assert_eq!(halo_depth(16, &[24]), 1);
        assert_eq!(halo_depth(16, &[10, 4, 10]), 4);
        assert_eq!(halo_depth(3, &[10, 4, 10]), 3);
        assert_eq!(halo_depth(0, &[5, 5]), 1);
    }

    #[test]
    fn extents_hold_the_owned_planes_and_halos_inside_the_lattice() {
        let e = extents(&[2, 9, 3], 2);
        assert_eq!(
            e,
            vec![
                SlabExtent {
                    own: (0, 2),
                    base: 0,
                    end: 4,
                    halo_depth: 2
                },
                SlabExtent {
                    own: (2, 11),
                    base: 0,
                    end: 13,
                    halo_depth: 2
                },
                SlabExtent {
                    own: (11, 14),
                    base: 9,
                    end: 14,
                    halo_depth: 2
                },
            ]
        );
        assert_eq!(e[1].own_local(), (2, 11));
        assert_eq!(e[1].planes(), 13);
        assert!(e.iter().all(SlabExtent::has_halos));
        let one = extents(&[14], 1);
        assert_eq!(
            (one[0].base, one[0].end, one[0].has_halos()),
            (0, 14, false)
        );
    }

    #[test]
    fn check_split_refuses_wrong_counts_sums_and_empty_slabs() {
        assert!(check_split(&[2, 9, 3], 3, 14).is_ok());
        for bad in [&[2, 12][..], &[2, 9, 4], &[0, 11, 3]] {
            let e = check_split(bad, 3, 14).unwrap_err();
            assert!(e.contains("3 positive plane counts summing to 14"), "{e}");
        }
    }
}
