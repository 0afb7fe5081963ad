// Poisson(mean) from one counter-based draw `r` (common/rng.wgsl): inversion by sequential
// search below `normal_above`, else the normal approximation round(mean + sqrt(mean) z)
// (Box-Muller), which is below zero only for z < -sqrt(mean) (< -5.4 sigma at the default
// threshold 30). The search takes k + 1 steps for a result k (callers that bound their work
// count them). Used by the tau-leaping of shaders/ssa/ensemble.wgsl and shaders/ssa/leap.wgsl.
//!include common/rng.wgsl

fn poisson_sample(mean: f32, normal_above: f32, r: vec4<u32>) -> u32 {
    if mean <= 0.0 {
        return 0u;
    }
    if mean < normal_above {
        let u = rng_unit(r.x);
        var pk = exp(-mean);
        var cdf = pk;
        var k = 0u;
        // f32 rounding can leave the cdf just below u near 1: cap the search far in the tail.
        let k_max = u32(mean + 12.0 * sqrt(mean) + 24.0);
        loop {
            if u < cdf || k >= k_max {
                break;
            }
            k++;
            pk = pk * mean / f32(k);
            cdf = cdf + pk;
        }
        return k;
    }
    let u1 = 1.0 - rng_unit(r.x);
    let u2 = rng_unit(r.y);
    let z = sqrt(-2.0 * log(u1)) * cos(6.2831853 * u2);
    return u32(max(round(mean + sqrt(mean) * z), 0.0));
}
