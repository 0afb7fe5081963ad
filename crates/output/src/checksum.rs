//! XXH64, the 64-bit xxHash of Yann Collet (seed 0), fed incrementally.
//!
//! Checkpoints carry it over every byte. It reads eight bytes per multiply in four independent
//! lanes, so it keeps up with the disk on lattices of gigabytes, where FNV-1a (one multiply per
//! byte) does not. Each lane's round is a bijection of the lane for a fixed input word and of the
//! word for a fixed lane, so any change confined to one 8-byte word always changes the sum.
//! Written here (some forty lines, checked against the reference test vectors) rather than taken
//! from a crate, as the output crate needs nothing else of one.

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

fn round(acc: u64, word: u64) -> u64 {
    acc.wrapping_add(word.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

fn merge(h: u64, lane: u64) -> u64 {
    (h ^ round(0, lane)).wrapping_mul(P1).wrapping_add(P4)
}

fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// Running XXH64 of the bytes given to [`Xxh64::update`].
#[derive(Clone, Debug)]
pub struct Xxh64 {
    lanes: [u64; 4],
    /// Bytes of an incomplete 32-byte stripe.
    pending: [u8; 32],
    pending_len: usize,
    total: u64,
}

impl Default for Xxh64 {
    fn default() -> Self {
        Self {
            lanes: [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)],
            pending: [0; 32],
            pending_len: 0,
            total: 0,
        }
    }
}

impl Xxh64 {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn update(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.pending_len > 0 {
            let take = bytes.len().min(32 - self.pending_len);
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 32 {
                return;
            }
            let stripe = self.pending;
            self.stripe(&stripe);
            self.pending_len = 0;
        }
        let mut stripes = bytes.chunks_exact(32);
        for stripe in &mut stripes {
            self.stripe(stripe);
        }
        let rest = stripes.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    fn stripe(&mut self, s: &[u8]) {
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            *lane = round(*lane, word(&s[8 * i..]));
        }
    }

    /// The hash of everything given so far.
    pub fn finish(&self) -> u64 {
        let [v1, v2, v3, v4] = self.lanes;
        let mut h = if self.total >= 32 {
            let h = v1
                .rotate_left(1)
                .wrapping_add(v2.rotate_left(7))
                .wrapping_add(v3.rotate_left(12))
                .wrapping_add(v4.rotate_left(18));
            [v1, v2, v3, v4].into_iter().fold(h, merge)
        } else {
            P5
        };
        h = h.wrapping_add(self.total);
        let mut rest = &self.pending[..self.pending_len];
        while rest.len() >= 8 {
            h = (h ^ round(0, word(rest)))
                .rotate_left(27)
                .wrapping_mul(P1)
                .wrapping_add(P4);
            rest = &rest[8..];
        }
        if rest.len() >= 4 {
            let w = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as u64;
            h = (h ^ w.wrapping_mul(P1))
                .rotate_left(23)
                .wrapping_mul(P2)
                .wrapping_add(P3);
            rest = &rest[4..];
        }
        for &b in rest {
            h = (h ^ (b as u64).wrapping_mul(P5))
                .rotate_left(11)
                .wrapping_mul(P1);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(P2);
        h ^= h >> 29;
        h = h.wrapping_mul(P3);
        h ^ (h >> 32)
    }
}

/// XXH64 of `bytes` in one go.
pub fn xxh64(bytes: &[u8]) -> u64 {
    let mut h = Xxh64::new();
    h.update(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values of XXH64 with seed 0 (xxhsum -H64), for inputs shorter than a stripe,
    /// exactly one, and one with a byte over.
    #[test]
    fn matches_the_reference_vectors() {
        let cases: [(&[u8], u64); 7] = [
            (b"", 0xEF46_DB37_51D8_E999),
            (b"a", 0xD24E_C4F1_A98C_6E5B),
            (b"abc", 0x44BC_2CF5_AD77_0999),
            (b"xxhash", 0x32DD_3895_2C4B_C720),
            (b"abcdefghijklmnopqrstuvwxyz12345", 0x4676_0590_1B01_D6F6),
            (b"abcdefghijklmnopqrstuvwxyz123456", 0x0022_EE3B_5A18_531B),
            (b"abcdefghijklmnopqrstuvwxyz1234567", 0x23BB_D16D_2935_3C5F),
        ];
        for (input, want) in cases {
            assert_eq!(xxh64(input), want, "{}", input.escape_ascii());
        }
    }

    /// Feeding the bytes in pieces of any size gives the one-shot hash.
    #[test]
    fn incremental_equals_one_shot() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for len in [0, 1, 31, 32, 33, 64, 95, 300] {
            let whole = xxh64(&data[..len]);
            for piece in [1, 3, 8, 31, 32, 33, 100] {
                let mut h = Xxh64::new();
                data[..len].chunks(piece).for_each(|c| h.update(c));
                assert_eq!(h.finish(), whole, "len {len}, pieces of {piece}");
            }
        }
    }

    /// Every single flipped bit of a 100-byte input changes the hash.
    #[test]
    fn every_flipped_bit_changes_the_hash() {
        let data: Vec<u8> = (0..100u8).collect();
        let sum = xxh64(&data);
        for i in 0..data.len() * 8 {
            let mut d = data.clone();
            d[i / 8] ^= 1 << (i % 8);
            assert_ne!(xxh64(&d), sum, "bit {i}");
        }
    }
}
