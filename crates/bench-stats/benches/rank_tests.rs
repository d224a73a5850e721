//! Rank tests at scale: Mann-Whitney U and Kruskal-Wallis on 10^6 values in total, and
//! the two-sample Hodges-Lehmann shift with its interval on 512 x 512 and on
//! 10^5 x 10^5 values (every one of the 10^10 differences counts; none is formed).
//!
//! `cargo bench -p bench-stats --bench rank_tests -- --warm-up-time 1 --measurement-time 2`

use bench_stats::Sample;
use bench_stats::rank::{hodges_lehmann, kruskal_wallis, mann_whitney_u};
use criterion::{Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

const TOTAL: usize = 1_000_000;

fn uniform(n: usize, offset: f64, seed: u64) -> Sample {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let v: Vec<f64> = (0..n).map(|_| offset + rng.random::<f64>()).collect();
    Sample::from_vec(v).expect("finite")
}

fn rank_tests(c: &mut Criterion) {
    let mut g = c.benchmark_group("rank_tests");
    g.sample_size(10);

    let a = uniform(TOTAL / 2, 0.0, 1);
    let b = uniform(TOTAL / 2, 0.001, 2);
    g.bench_function("mann_whitney_1e6", |bench| {
        bench.iter(|| mann_whitney_u(black_box(&a), black_box(&b)).expect("testable"));
    });

    let third = TOTAL / 3;
    let k1 = uniform(third, 0.0, 3);
    let k2 = uniform(third, 0.001, 4);
    let k3 = uniform(TOTAL - 2 * third, 0.002, 5);
    g.bench_function("kruskal_wallis_3x_1e6", |bench| {
        bench.iter(|| kruskal_wallis(black_box(&[&k1, &k2, &k3])).expect("testable"));
    });

    let h1 = uniform(512, 0.0, 6);
    let h2 = uniform(512, 0.01, 7);
    g.bench_function("hodges_lehmann_512x512", |bench| {
        bench.iter(|| hodges_lehmann(black_box(&h1), black_box(&h2), 0.95).expect("valid"));
    });

    let big1 = uniform(100_000, 0.0, 8);
    let big2 = uniform(100_000, 0.01, 9);
    g.bench_function("hodges_lehmann_1e5x1e5", |bench| {
        bench.iter(|| hodges_lehmann(black_box(&big1), black_box(&big2), 0.95).expect("valid"));
    });
    g.finish();
}

criterion_group!(benches, rank_tests);
criterion_main!(benches);
