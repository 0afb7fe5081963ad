//! The lattice state on the CPU: site types and particle words, laid out as the GPU holds them
//! (`shaders/rdme/common.wgsl`): word w of site i at `w * sites + i`, species ids one byte
//! each, packed from slot 0. Also the initial placement of particles.

use super::config::{RdmeModel, SITE_CAPACITY};
use super::geometry;
use crate::error::{invalid, Result};
use petri_engine::rng;

/// Bytes of GPU memory per site: two particle buffers of 16 B and one type byte.
pub const BYTES_PER_SITE: u64 = 2 * 16 + 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lattice {
    pub shape: [u32; 3],
    pub types: Vec<u8>,
    pub words: Vec<u32>,
}

impl Lattice {
    pub fn empty(shape: [u32; 3], types: Vec<u8>) -> Self {
        let sites = shape.iter().map(|&n| n as usize).product::<usize>();
        assert_eq!(types.len(), sites);
        Self {
            shape,
            types,
            words: vec![0; 4 * sites],
        }
    }

    pub fn sites(&self) -> usize {
        self.types.len()
    }

    pub fn plane_sites(&self) -> usize {
        (self.shape[0] * self.shape[1]) as usize
    }

    pub fn index(&self, x: u32, y: u32, z: u32) -> usize {
        (x + self.shape[0] * (y + self.shape[1] * z)) as usize
    }

    pub fn site(&self, i: usize) -> [u32; 4] {
        let s = self.sites();
        [
            self.words[i],
            self.words[s + i],
            self.words[2 * s + i],
            self.words[3 * s + i],
        ]
    }

    pub fn set_site(&mut self, i: usize, w: [u32; 4]) {
        let s = self.sites();
        for (k, v) in w.into_iter().enumerate() {
            self.words[k * s + i] = v;
        }
    }

    /// Species ids in site `i`, in slot order.
    pub fn particles(&self, i: usize) -> Vec<u8> {
        unpack(self.site(i))
    }

    /// Sites of type `t` in each z plane.
    pub fn sites_per_plane(&self, t: u8) -> Vec<u64> {
        let plane = (self.shape[0] * self.shape[1]) as usize;
        self.types
            .chunks(plane)
            .map(|p| p.iter().filter(|&&x| x == t).count() as u64)
            .collect()
    }

    pub fn count(&self, i: usize) -> usize {
        count(self.site(i))
    }

    /// Adds a particle; false when the site is full.
    pub fn push(&mut self, i: usize, species: u8) -> bool {
        let mut w = self.site(i);
        let n = count(w);
        if n >= SITE_CAPACITY {
            return false;
        }
        w[n / 4] |= (species as u32) << (8 * (n % 4));
        self.set_site(i, w);
        true
    }

    /// Total particles of each species id (index 0 unused).
    pub fn species_totals(&self, n_species_ids: usize) -> Vec<u64> {
        let mut t = vec![0u64; n_species_ids];
        for i in 0..self.sites() {
            for s in self.particles(i) {
                t[s as usize] += 1;
            }
        }
        t
    }

    /// The planes [z0, z1) as a lattice of their own.
    pub fn slab(&self, z0: u32, z1: u32) -> Lattice {
        let p = self.plane_sites();
        let (a, b) = (z0 as usize * p, z1 as usize * p);
        let mut out = Lattice::empty(
            [self.shape[0], self.shape[1], z1 - z0],
            self.types[a..b].to_vec(),
        );
        let s = self.sites();
        let n = b - a;
        for w in 0..4 {
            out.words[w * n..(w + 1) * n].copy_from_slice(&self.words[w * s + a..w * s + b]);
        }
        out
    }

    /// Copies the particle words of consecutive planes starting at `z0` (four word planes of
    /// `words.len() / 4` sites, as `slab` lays them out).
    pub fn put_slab_words(&mut self, z0: u32, words: &[u32]) {
        let a = z0 as usize * self.plane_sites();
        let n = words.len() / 4;
        let s = self.sites();
        for w in 0..4 {
            self.words[w * s + a..w * s + a + n].copy_from_slice(&words[w * n..(w + 1) * n]);
        }
    }

    /// Zeroes the words past each site's last particle. The GPU leaves stale data there (it
    /// reads and writes only the words in use, `shaders/rdme/common.wgsl`).
    pub fn clear_unused_words(&mut self) {
        let s = self.sites();
        for i in 0..s {
            for w in 1..4 {
                if self.words[(w - 1) * s + i] >> 24 == 0 {
                    for v in w..4 {
                        self.words[v * s + i] = 0;
                    }
                    break;
                }
            }
        }
    }

    /// Site types packed four per u32, as the shaders read them.
    pub fn packed_types(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.sites().div_ceil(4)];
        for (i, &t) in self.types.iter().enumerate() {
            out[i / 4] |= (t as u32) << (8 * (i % 4));
        }
        out
    }
}

pub fn count(w: [u32; 4]) -> usize {
    w.iter()
        .map(|v| (0..4).filter(|b| (v >> (8 * b)) & 0xFF != 0).count())
        .sum()
}

pub fn unpack(w: [u32; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    for j in 0..SITE_CAPACITY {
        let s = ((w[j / 4] >> (8 * (j % 4))) & 0xFF) as u8;
        if s == 0 {
            break;
        }
        out.push(s);
    }
    out
}

pub fn pack(species: &[u8]) -> [u32; 4] {
    let mut w = [0u32; 4];
    for (j, &s) in species.iter().enumerate().take(SITE_CAPACITY) {
        w[j / 4] |= (s as u32) << (8 * (j % 4));
    }
    w
}

/// The initial lattice: geometry, then each placement's particles at uniformly random sites of
/// its types with room. Draws are Philox keyed by (seed, placement, draw), so the lattice
/// depends only on the config.
pub fn initial_lattice(model: &RdmeModel) -> Result<Lattice> {
    let cfg = &model.config;
    let mut lat = Lattice::empty(cfg.lattice.shape, geometry::site_types(cfg));
    for (p, place) in cfg.initial.iter().enumerate() {
        let field = format!("initial[{p}]");
        let species = cfg.species_id(&format!("{field}.species"), &place.species)? as u8;
        let mask = cfg.type_mask(&format!("{field}.site_types"), &place.site_types)?;
        let [nx, ny, _] = lat.shape;
        let inside = |i: usize| {
            let (x, y, z) = (i as u32 % nx, i as u32 / nx % ny, i as u32 / (nx * ny));
            place.region.is_none_or(|[lo, hi]| {
                (lo[0]..hi[0]).contains(&x)
                    && (lo[1]..hi[1]).contains(&y)
                    && (lo[2]..hi[2]).contains(&z)
            })
        };
        let eligible: Vec<usize> = (0..lat.sites())
            .filter(|&i| mask & (1 << lat.types[i]) != 0 && inside(i))
            .collect();
        let room: u64 = eligible
            .iter()
            .map(|&i| (SITE_CAPACITY - lat.count(i)) as u64)
            .sum();
        if place.count > room {
            return Err(invalid(
                &format!("{field}.count"),
                place.count,
                format!(
                    "at most {room}: the free slots in the {} sites of types {:?}",
                    eligible.len(),
                    place.site_types
                ),
            ));
        }
        let mut draw = 0u32;
        let mut placed = 0u64;
        while placed < place.count {
            let r = rng::u32x4(cfg.seed, u32::MAX - p as u32, draw, 0x1A77_1CE5);
            draw = draw.wrapping_add(1);
            let pick = ((r[0] as u64) << 32 | r[1] as u64) % eligible.len() as u64;
            if lat.push(eligible[pick as usize], species) {
                placed += 1;
            }
        }
    }
    Ok(lat)
}
