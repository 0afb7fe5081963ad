//! CPU twin of `shaders/common/rng.wgsl`: Philox4x32-10 and Threefry4x32-20 (Salmon et al.,
//! SC'11, "Random123"), keyed by (seed, step, index, stream). CPU references call these to draw
//! exactly the numbers the GPU draws.
//!
//! Both are the Random123 defaults, with a margin over the rounds the paper found to pass
//! TestU01's BigCrush. Threefry uses only 32-bit adds, rotations and xors; Philox needs the high half of a
//! 32x32-bit product, which WGSL lacks, so the shaders build it from four 16-bit products and
//! Philox costs about twice as many instructions there. Passes that draw in their inner loop
//! (the RDME sweeps) use Threefry.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// Philox4x32 with 10 rounds.
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    for _ in 0..10 {
        let (hi0, lo0) = mulhilo(M0, c[0]);
        let (hi1, lo1) = mulhilo(M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// Splits a 64-bit seed into the two key words the shaders take.
pub fn seed_key(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// Four draws for one (seed, step, index, stream), as `rng_u32x4` in WGSL.
pub fn u32x4(seed: u64, step: u32, index: u32, stream: u32) -> [u32; 4] {
    philox4x32_10([index, step, stream, 0], seed_key(seed))
}

/// Rotation constants of Threefry4x32 (Random123's R_32x4).
const ROTATIONS: [[u32; 2]; 8] = [
    [10, 26],
    [11, 21],
    [13, 27],
    [23, 5],
    [6, 20],
    [17, 11],
    [25, 10],
    [18, 20],
];
const SKEIN_PARITY: u32 = 0x1BD1_1BDA;

/// Threefry4x32 with 20 rounds (a key injection every 4).
pub fn threefry4x32_20(counter: [u32; 4], key: [u32; 4]) -> [u32; 4] {
    let ks = [
        key[0],
        key[1],
        key[2],
        key[3],
        SKEIN_PARITY ^ key[0] ^ key[1] ^ key[2] ^ key[3],
    ];
    let mut x = [0u32; 4];
    for i in 0..4 {
        x[i] = counter[i].wrapping_add(ks[i]);
    }
    for round in 0..20 {
        let [r0, r1] = ROTATIONS[round % 8];
        // Even rounds mix (0, 1) and (2, 3), odd rounds (0, 3) and (2, 1).
        let (a, b) = if round % 2 == 0 { (1, 3) } else { (3, 1) };
        x[0] = x[0].wrapping_add(x[a]);
        x[a] = x[a].rotate_left(r0) ^ x[0];
        x[2] = x[2].wrapping_add(x[b]);
        x[b] = x[b].rotate_left(r1) ^ x[2];
        if round % 4 == 3 {
            let j = round / 4 + 1;
            for i in 0..4 {
                x[i] = x[i].wrapping_add(ks[(j + i) % 5]);
            }
            x[3] = x[3].wrapping_add(j as u32);
        }
    }
    x
}

/// Four Threefry draws for one (seed, step, index, stream), as `threefry_u32x4` in WGSL.
pub fn threefry_u32x4(seed: u64, step: u32, index: u32, stream: u32) -> [u32; 4] {
    let [lo, hi] = seed_key(seed);
    threefry4x32_20([index, step, stream, 0], [lo, hi, 0, 0])
}

/// A uniform float in [0, 1), as `rng_unit` in WGSL.
pub fn unit(x: u32) -> f32 {
    (x >> 8) as f32 * (1.0 / 16_777_216.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Known-answer vectors of Random123's kat_vectors for philox4x32_10.
    #[test]
    fn philox_known_answers() {
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    // Known-answer vectors of Random123's kat_vectors for threefry4x32_20.
    #[test]
    fn threefry_known_answers() {
        assert_eq!(
            threefry4x32_20([0; 4], [0; 4]),
            [0x9c6c_a96a, 0xe17e_ae66, 0xfc10_ecd4, 0x5256_a7d8]
        );
        assert_eq!(
            threefry4x32_20([u32::MAX; 4], [u32::MAX; 4]),
            [0x2a88_1696, 0x5701_2287, 0xf6c7_446e, 0xa16a_6732]
        );
        assert_eq!(
            threefry4x32_20(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0, 0x082e_fa98, 0xec4e_6c89]
            ),
            [0x59cd_1dbb, 0xb887_9579, 0x86b5_d00c, 0xac8b_6d84]
        );
    }

    #[test]
    fn unit_is_in_half_open_interval() {
        assert_eq!(unit(0), 0.0);
        assert!(unit(u32::MAX) < 1.0);
    }

    #[test]
    fn uniform_mean_and_variance() {
        // 100k draws: mean 1/2 +- 5 sigma (sigma = sqrt(1/12/n)), variance 1/12 within 2%.
        let n = 100_000;
        for draw in [u32x4, threefry_u32x4] {
            let xs: Vec<f64> = (0..n).map(|i| unit(draw(7, 3, i, 0)[0]) as f64).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
            assert!(
                (mean - 0.5).abs() < 5.0 * (1.0 / 12.0 / n as f64).sqrt(),
                "mean {mean}"
            );
            assert!((var - 1.0 / 12.0).abs() < 0.02 / 12.0, "variance {var}");
        }
    }
}
