//! One rank test in a loop on the data of `bench-lab scipy-timing` (the same SplitMix64
//! stream), for `perf stat` and for comparing the tests on each other's data:
//!
//! `cargo build --release -p bench-lab --example rank_driver`, then
//! `perf stat -e task-clock,page-faults,cache-misses target/release/examples/rank_driver MODE [CALLS]`
//!
//! MODE: `mw` (Mann-Whitney on its 2 x 500,000), `kw` (Kruskal-Wallis on its 3 x 333,333),
//! `kw-on-mw` (Kruskal-Wallis, 2 groups, on Mann-Whitney's a and b), `mw-on-kw`
//! (Mann-Whitney on Kruskal-Wallis's 10^6 values cut in two halves), `mw-runs` (Mann-Whitney
//! on 2 x 500,000 run times like a benchmark's: 1.234 ms, 2% noise, 1% outliers 2-10x
//! slower, B 0.1% slower, rounded to the nanosecond: ties), `wilcoxon` (signed-rank of
//! `b - a` of Mann-Whitney's data) and `wilcoxon-runs` (of the run times' differences).
//! Prints the median CPU time of a call (this thread's, `clock_gettime`).

// The one use of `unsafe` here: a call of `clock_gettime`.
#![allow(unsafe_code)]

use bench_lab::rank_data::{TOTAL, scipy_timing_data as data, uniform_stream};
use bench_stats::Sample;
use bench_stats::rank::{kruskal_wallis, mann_whitney_u, wilcoxon_signed_rank};

/// This thread's CPU time in seconds.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut ts) };
    assert_eq!(rc, 0, "clock_gettime failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// `n` run times in seconds: 1.234 ms times `scale`, a bell of +-3% (2% in standard
/// deviation-ish), 1% of them 2 to 10 times slower, rounded to the nanosecond.
fn run_times(seed: u64, n: usize, scale: f64) -> Vec<f64> {
    let mut next = uniform_stream(seed);
    (0..n)
        .map(|_| {
            let bell = next() + next() + next() - 1.5;
            let outlier = if next() < 0.01 {
                2.0 + 8.0 * next()
            } else {
                1.0
            };
            (1.234e-3 * scale * (1.0 + 0.02 * bell) * outlier * 1e9).round() / 1e9
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "mw".to_string());
    let calls: usize = args.next().map_or(Ok(50), |s| s.parse())?;
    let (a, b, kw) = data();
    let a = Sample::from_vec(a)?;
    let b = Sample::from_vec(b)?;
    let kw: Vec<Sample> = kw
        .into_iter()
        .map(Sample::from_vec)
        .collect::<Result<_, _>>()?;
    let pooled: Vec<f64> = kw.iter().flat_map(|g| g.values().iter().copied()).collect();
    let (h1, h2) = pooled.split_at(TOTAL / 2);
    let (h1, h2) = (Sample::new(h1)?, Sample::new(h2)?);
    let ra = Sample::from_vec(run_times(1, TOTAL / 2, 1.0))?;
    let rb = Sample::from_vec(run_times(2, TOTAL / 2, 1.001))?;
    let d: Vec<f64> = b
        .values()
        .iter()
        .zip(a.values())
        .map(|(y, x)| y - x)
        .collect();
    let rd: Vec<f64> = rb
        .values()
        .iter()
        .zip(ra.values())
        .map(|(y, x)| y - x)
        .collect();
    let mut run: Box<dyn FnMut() -> f64> = match mode.as_str() {
        "mw-runs" => Box::new(|| mann_whitney_u(&ra, &rb).map_or(f64::NAN, |r| r.p_value)),
        "wilcoxon" => Box::new(|| wilcoxon_signed_rank(&d).map_or(f64::NAN, |r| r.p_value)),
        "wilcoxon-runs" => Box::new(|| wilcoxon_signed_rank(&rd).map_or(f64::NAN, |r| r.p_value)),
        "mw" => Box::new(|| mann_whitney_u(&a, &b).map_or(f64::NAN, |r| r.p_value)),
        "kw" => {
            Box::new(|| kruskal_wallis(&[&kw[0], &kw[1], &kw[2]]).map_or(f64::NAN, |r| r.p_value))
        }
        "kw-on-mw" => Box::new(|| kruskal_wallis(&[&a, &b]).map_or(f64::NAN, |r| r.p_value)),
        "mw-on-kw" => Box::new(|| mann_whitney_u(&h1, &h2).map_or(f64::NAN, |r| r.p_value)),
        other => return Err(format!("unknown mode {other:?}").into()),
    };
    let mut times = Vec::with_capacity(calls);
    let mut p = 0.0;
    for _ in 0..calls {
        let t = thread_cpu();
        p = run();
        times.push(thread_cpu() - t);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{mode}: {calls} calls, median {:.2} ms, min {:.2} ms, p {p:.6e}",
        times[calls / 2] * 1e3,
        times[0] * 1e3
    );
    Ok(())
}
