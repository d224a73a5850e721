//! Interleaved chain-count sweep of the kernel, in process.
//!
//! Every round runs each (op, chains) pair once, chains 1..=8 for int, add and fp, in a
//! freshly shuffled order (seeded, printed), so slow drifts of the machine spread over
//! all configurations instead of landing on one. Prints the median M ops/s of each pair
//! and, per op, the median of the per-round ratio chains=2 / chains=1.
//!
//! Usage: `cargo run --release -p bench-kernel --example sweep -- [ROUNDS] [SECONDS] [SEED]`
//! (defaults: 10 rounds, 0.1 s per run, seed 1).

use bench_kernel::{Kernel, KernelConfig, Op};

const MAX_SWEEP_CHAINS: usize = 8;

/// SplitMix64 step, for a seeded shuffle without extra dependencies.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().map_or(Ok(10), |s| s.parse())?;
    let seconds: f64 = args.get(1).map_or(Ok(0.1), |s| s.parse())?;
    let mut rng: u64 = args.get(2).map_or(Ok(1), |s| s.parse())?;
    println!(
        "sweep: {rounds} rounds, {seconds} s per run, seed {rng}, chains 1..={MAX_SWEEP_CHAINS}"
    );

    let mut pairs: Vec<(usize, usize)> = (0..Op::ALL.len())
        .flat_map(|o| (1..=MAX_SWEEP_CHAINS).map(move |c| (o, c)))
        .collect();
    // rates[op][chains - 1][round], in M ops/s
    let mut rates = vec![vec![Vec::<f64>::new(); MAX_SWEEP_CHAINS]; Op::ALL.len()];
    for _ in 0..rounds {
        for i in (1..pairs.len()).rev() {
            let j = (next(&mut rng) % (i as u64 + 1)) as usize;
            pairs.swap(i, j);
        }
        for &(o, chains) in &pairs {
            let kernel = Kernel::new(KernelConfig {
                op: Op::ALL[o],
                chains,
                threads: 1,
                duration: std::time::Duration::from_secs_f64(seconds),
            })?;
            let r = kernel.run();
            rates[o][chains - 1].push(r.ops_per_sec.unwrap_or(0.0) / 1e6);
        }
    }

    print!("{:>4}", "op");
    for c in 1..=MAX_SWEEP_CHAINS {
        print!(" {:>8}", format!("c={c}"));
    }
    println!(" {:>8}", "c2/c1");
    for (o, op) in Op::ALL.iter().enumerate() {
        let mut ratios: Vec<f64> = rates[o][1]
            .iter()
            .zip(&rates[o][0])
            .map(|(two, one)| two / one)
            .collect();
        print!("{:>4}", op.name());
        for per_round in &mut rates[o] {
            print!(" {:>8.1}", median(per_round));
        }
        println!(" {:>7.2}x", median(&mut ratios));
    }
    println!("(median M ops/s per chain count; c2/c1 = median of per-round ratios)");
    Ok(())
}
