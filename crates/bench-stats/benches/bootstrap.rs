//! Bootstrap engine throughput.
//!
//! - `block_bootstrap/12_blocks_2000`: the appendix's case, 2000 block resamples of 12
//!   blocks, mean difference, percentile interval.
//! - `bootstrap_mean/100k_values_10000`: 10,000 resamples of 10^5 values (mean),
//!   i.e. 10^9 index draws.
//!
//! Run: `cargo bench -p bench-stats --bench bootstrap -- --warm-up-time 1 --measurement-time 2`
//!
//! Medians measured on the shared 2-core development machine (rayon on both cores, other
//! builds running at the same time, so read them as orders of magnitude):
//!
//! | benchmark | median |
//! | --- | --- |
//! | `block_bootstrap/12_blocks_2000` | 0.38 ms (0.46 ms on a second run) |
//! | `bootstrap_mean/100k_values_10000` | 5.4 s (5.7 s before reusing index buffers) |
//!
//! (load average ~5.8 on the 2 cores while measuring.)

use std::hint::black_box;

use bench_stats::paired::block_bootstrap;
use bench_stats::resample::{BootstrapConfig, bootstrap_mean};
use bench_stats::{PairedEstimator, Sample};
use criterion::{Criterion, criterion_group, criterion_main};

fn blocks(c: &mut Criterion) {
    let base = Sample::new(&[
        725.4, 720.8, 726.0, 671.8, 719.2, 722.7, 723.6, 721.3, 713.5, 716.5, 718.9, 716.2,
    ])
    .unwrap();
    let cand = Sample::new(&[
        1356.3, 1338.7, 1314.4, 1329.9, 1328.3, 1332.6, 1327.8, 1327.7, 1318.9, 1319.3, 1300.0,
        1313.0,
    ])
    .unwrap();
    let config = BootstrapConfig::default();
    c.bench_function("block_bootstrap/12_blocks_2000", |b| {
        b.iter(|| {
            block_bootstrap(
                black_box(&base),
                black_box(&cand),
                PairedEstimator::MeanDifference,
                &config,
            )
            .unwrap()
        })
    });
}

fn large_mean(c: &mut Criterion) {
    // Deterministic, mildly skewed values without a random generator.
    let values: Vec<f64> = (0..100_000u64)
        .map(|i| 1000.0 + ((i.wrapping_mul(2_654_435_761) % 1000) as f64).powf(1.3))
        .collect();
    let sample = Sample::new(&values).unwrap();
    let config = BootstrapConfig {
        resamples: 10_000,
        ..BootstrapConfig::default()
    };
    let mut group = c.benchmark_group("bootstrap_mean");
    group.sample_size(10);
    group.bench_function("100k_values_10000", |b| {
        b.iter(|| bootstrap_mean(black_box(&sample), &config).unwrap())
    });
    group.finish();
}

criterion_group!(benches, blocks, large_mean);
criterion_main!(benches);
