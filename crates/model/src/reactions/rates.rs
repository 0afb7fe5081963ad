//! Rate constants: a macroscopic mass-action constant k (molar units) as the stochastic constant
//! c of `Reaction::rate` in a volume V, and c for one volume as c for another. Both follow from
//! a = c * prod_i C(x_i, nu_i) (the module doc of `reactions`) with concentrations x / (N_A V):
//!
//! ```text
//! order 0, k in M/s:      c = k N_A V
//! order 1, k in 1/s:      c = k
//! order 2, k in 1/(M s):  c = k / (N_A V)     (A + A as well: a = c A (A - 1) / 2)
//! c in V -> c' in V':     c' = c (V / V')^(order - 1)
//! ```

/// Avogadro's number.
pub const AVOGADRO: f64 = 6.022_140_76e23;

/// The stochastic constant c of a reaction of `order` (0, 1 or 2) whose macroscopic constant is
/// `k` (M/s, 1/s or 1/(M s)), in a volume of `volume_l` litres. Orders above 2 are not
/// elementary reactions: the caller refuses them (`Network::validate`, rdme's config).
pub fn stochastic_constant(order: u32, k: f64, volume_l: f64) -> f64 {
    let molecules_per_molar = AVOGADRO * volume_l;
    match order {
        0 => k * molecules_per_molar,
        1 => k,
        _ => k / molecules_per_molar,
    }
}

/// A stochastic constant `c` of a reaction of `order` for a volume `from_l` as the constant for
/// a volume `to_l` (litres both): the same concentrations react at the same macroscopic rate.
pub fn rescale_constant(c: f64, order: u32, from_l: f64, to_l: f64) -> f64 {
    c * (from_l / to_l).powi(order as i32 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_macroscopic_rates() {
        // 1 fL: N_A V = 6.022e8 molecules per molar.
        let v = 1e-15;
        let nav = 602_214_076.0;
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
        assert!(close(stochastic_constant(0, 1e-6, v), 1e-6 * nav));
        assert_eq!(stochastic_constant(1, 0.3, v), 0.3);
        assert!(close(stochastic_constant(2, 1e6, v), 1e6 / nav));
        // Doubling the volume doubles a zeroth-order source, halves a bimolecular constant
        // and leaves a first-order one alone, as rescaling says.
        for order in 0..=2 {
            let k = [1e-6, 0.3, 1e6][order as usize];
            let rescaled = rescale_constant(stochastic_constant(order, k, v), order, v, 2.0 * v);
            assert!(
                close(rescaled, stochastic_constant(order, k, 2.0 * v)),
                "{order}"
            );
        }
        assert_eq!(rescale_constant(4.0, 2, 1.0, 2.0), 2.0);
        assert_eq!(rescale_constant(4.0, 1, 1.0, 2.0), 4.0);
        assert_eq!(rescale_constant(4.0, 0, 1.0, 2.0), 8.0);
    }
}
