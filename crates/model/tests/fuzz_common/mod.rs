//! The proptest settings of the fuzz tests: a fixed seed per test file (so a run is
//! reproducible), no failure files, and `PROPTEST_CASES` / `PROPTEST_RNG_SEED` to run more cases
//! or other seeds by hand.

use proptest::test_runner::{Config as ProptestConfig, RngSeed};

/// `cases` cases from `seed`, unless the environment says otherwise.
pub fn config(cases: u32, seed: u64) -> ProptestConfig {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
    ProptestConfig {
        cases: env("PROPTEST_CASES").map_or(cases, |c: u64| c as u32),
        rng_seed: RngSeed::Fixed(env("PROPTEST_RNG_SEED").unwrap_or(seed)),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}
