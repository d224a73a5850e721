//! The kernel for a fixed step count: int, add and fp at 1, 2 and 8 chains, one thread.
//! Throughput is reported in operations (steps × chains), so the chain counts compare
//! directly.

use std::hint::black_box;

use bench_kernel::{Kernel, KernelConfig, Op};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const STEPS: u64 = 1 << 16;

fn kernel(c: &mut Criterion) {
    for op in Op::ALL {
        let mut group = c.benchmark_group(format!("kernel/{op}"));
        for chains in [1usize, 2, 8] {
            let config = KernelConfig {
                op,
                chains,
                ..KernelConfig::default()
            };
            let Ok(kernel) = Kernel::new(config) else {
                continue;
            };
            group.throughput(Throughput::Elements(STEPS * chains as u64));
            group.bench_with_input(BenchmarkId::new("chains", chains), &kernel, |b, k| {
                b.iter(|| k.run_steps(black_box(STEPS)).map(|r| r.checksum))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernel);
criterion_main!(benches);
