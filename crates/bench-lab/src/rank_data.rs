//! The data of `bench-lab scipy-timing` (and of `examples/rank_driver.rs`, which times the
//! rank tests on it alone): a fixed SplitMix64 stream of uniform doubles.

/// Values in all: Mann-Whitney's two halves, and again Kruskal-Wallis's three thirds.
pub const TOTAL: usize = 1_000_000;

/// The stream's seed.
pub const SEED: u64 = 0x5eed_ab0a;

/// SplitMix64 (Steele, Lea & Flood 2014) from `seed`, each draw's top 53 bits as a uniform
/// double in `[0, 1)`.
pub fn uniform_stream(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1_u64 << 53) as f64
    }
}

/// Two halves for Mann-Whitney (the second 0.001 higher) and three thirds for
/// Kruskal-Wallis (each 0.001 above the one before), uniform on `[0, 1)` from [`SEED`].
pub fn scipy_timing_data() -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
    let mut next = uniform_stream(SEED);
    let half = TOTAL / 2;
    let a: Vec<f64> = (0..half).map(|_| next()).collect();
    let b: Vec<f64> = (half..TOTAL).map(|_| 0.001 + next()).collect();
    let third = TOTAL / 3;
    let sizes = [third, third, TOTAL - 2 * third];
    let groups = sizes
        .iter()
        .enumerate()
        .map(|(g, &n)| (0..n).map(|_| 0.001 * g as f64 + next()).collect())
        .collect();
    (a, b, groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_splitmix64() {
        // SplitMix64 from seed 0 draws 0xe220a8397b1dcdaf first (Vigna's reference).
        let mut next = uniform_stream(0);
        assert_eq!(
            next(),
            (0xe220_a839_7b1d_cdaf_u64 >> 11) as f64 / (1_u64 << 53) as f64
        );
        let (a, b, groups) = scipy_timing_data();
        assert_eq!(a.len() + b.len(), TOTAL);
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), TOTAL);
    }
}
