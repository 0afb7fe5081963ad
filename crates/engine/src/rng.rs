//! CPU twin of `shaders/common/rng.wgsl`: Philox4x32-10, keyed by (seed, step, index, stream).
//! CPU references call these to draw exactly the numbers the GPU draws.

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

    #[test]
    fn unit_is_in_half_open_interval() {
        assert_eq!(unit(0), 0.0);
        assert!(unit(u32::MAX) < 1.0);
    }

    #[test]
    fn uniform_mean_and_variance() {
        // 100k draws: mean 1/2 +- 5 sigma (sigma = sqrt(1/12/n)), variance 1/12 within 2%.
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|i| unit(u32x4(7, 3, i, 0)[0]) as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(
            (mean - 0.5).abs() < 5.0 * (1.0 / 12.0 / n as f64).sqrt(),
            "mean {mean}"
        );
        assert!((var - 1.0 / 12.0).abs() < 0.02 / 12.0, "variance {var}");
    }
}
