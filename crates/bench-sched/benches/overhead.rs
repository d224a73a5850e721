//! Harness overhead: wall time per run of `true` through `RealRunner`, side by side
//! with `hyperfine -N` when it is installed. A benchmark, not a test: it prints figures.
//!
//! Run: `cargo bench -p bench-sched --bench overhead -- [RUNS] [--rounds R]`.
//! RUNS (default 1000) is the run count of each side in each round. With `--rounds 1` (the
//! default) abba's runner goes first, then hyperfine, as before. With an even R > 1 the
//! rounds go in ABBA order, so a trend in the machine's load (falling or rising) does not
//! favour one side: round 1 is abba then hyperfine, round 2 hyperfine then abba, round 3
//! abba then hyperfine, and so on; rounds 2k-1 and 2k form block k. Each round prints its
//! median-wall ratio; the summary is the median over blocks of the block ratio, the mean
//! of the block's two abba medians over the mean of its two hyperfine medians. Cost: R x 2
//! x RUNS runs of `true`, about 1 ms each on a loaded 2-core machine.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use bench_sched::{CommandSpec, InterruptFlag, OutputMode, RealRunner, RunRequest, Runner, Shell};

/// The bench's command line: runs per side per round and the number of rounds.
struct BenchConfig {
    runs: usize,
    rounds: usize,
}

/// Which side runs first in a round.
#[derive(Clone, Copy)]
enum RoundOrder {
    AbbaFirst,
    HyperfineFirst,
}

/// One side's figures for one round, in nanoseconds.
struct SideSample {
    runs: usize,
    mean_ns: f64,
    median_ns: f64,
}

/// abba's runner in one round: its measured walls and the loop time around them.
struct AbbaSample {
    wall: SideSample,
    outer_per_run_ns: f64,
}

/// One round: both sides, or abba alone when hyperfine is missing or failed.
struct RoundResult {
    abba: AbbaSample,
    hyperfine: Option<SideSample>,
}

fn parse_config() -> BenchConfig {
    let mut runs = 1000;
    let mut rounds = 1;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--rounds" {
            match args.next().and_then(|v| v.parse::<usize>().ok()) {
                Some(r) if r == 1 || (r >= 2 && r % 2 == 0) => rounds = r,
                _ => {
                    eprintln!(
                        "error: --rounds takes 1 or an even count (ABBA blocks of two rounds)"
                    );
                    std::process::exit(2);
                }
            }
        } else if let Ok(n) = arg.parse::<usize>() {
            if n == 0 {
                eprintln!("error: the run count must be at least 1");
                std::process::exit(2);
            }
            runs = n;
        }
        // Other arguments (cargo bench passes `--bench`) are ignored.
    }
    BenchConfig { runs, rounds }
}

/// Median of a non-empty slice, sorting it (the mean of the two middle values when even).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn run_abba(runner: &mut RealRunner, request: &RunRequest<'_>, runs: usize) -> AbbaSample {
    for _ in 0..20 {
        runner.run("true", request).expect("warm-up run of `true`");
    }
    let outer = Instant::now();
    let mut walls = Vec::with_capacity(runs);
    for _ in 0..runs {
        walls.push(runner.run("true", request).expect("run of `true`").wall_ns as f64);
    }
    let outer_per_run_ns = outer.elapsed().as_nanos() as f64 / runs as f64;
    let mean_ns = walls.iter().sum::<f64>() / runs as f64;
    walls.sort_by(f64::total_cmp);
    AbbaSample {
        wall: SideSample {
            runs,
            mean_ns,
            // The upper middle value, as in the single-round output before rounds existed.
            median_ns: walls[runs / 2],
        },
        outer_per_run_ns,
    }
}

fn run_hyperfine(runs: usize, export: &Path) -> Option<SideSample> {
    let status = Command::new("hyperfine")
        .args([
            "-N",
            "--warmup",
            "20",
            "--runs",
            &runs.to_string(),
            "--style",
            "none",
            "--export-json",
        ])
        .arg(export)
        .arg("true")
        .status();
    match status {
        Ok(s) if s.success() => {
            let loaded = bench_sched::read_hyperfine(export).expect("hyperfine export parses");
            let obs = &loaded.dataset.series[0].observations;
            let mean_ns = obs.iter().map(|o| o.value).sum::<f64>() / obs.len() as f64;
            let mut sorted: Vec<f64> = obs.iter().map(|o| o.value).collect();
            sorted.sort_by(f64::total_cmp);
            Some(SideSample {
                runs: obs.len(),
                mean_ns,
                median_ns: sorted[sorted.len() / 2],
            })
        }
        _ => None,
    }
}

fn print_round(result: &RoundResult) {
    let abba = &result.abba;
    println!("RealRunner: {} runs of `true`", abba.wall.runs);
    println!(
        "  mean measured wall per run : {:>9.1} us",
        abba.wall.mean_ns / 1e3
    );
    println!(
        "  median measured wall       : {:>9.1} us",
        abba.wall.median_ns / 1e3
    );
    println!(
        "  loop time per run (outer)  : {:>9.1} us  (harness cost = outer - measured: {:.1} us)",
        abba.outer_per_run_ns / 1e3,
        (abba.outer_per_run_ns - abba.wall.mean_ns) / 1e3
    );
    match &result.hyperfine {
        Some(theirs) => {
            println!("hyperfine -N: {} runs of `true`", theirs.runs);
            println!(
                "  mean wall per run          : {:>9.1} us",
                theirs.mean_ns / 1e3
            );
            println!(
                "  median wall                : {:>9.1} us",
                theirs.median_ns / 1e3
            );
            println!(
                "ratio RealRunner / hyperfine: mean {:.3}, median {:.3}",
                abba.wall.mean_ns / theirs.mean_ns,
                abba.wall.median_ns / theirs.median_ns
            );
        }
        None => println!("hyperfine not installed or failed: no comparison"),
    }
}

fn main() {
    let config = parse_config();
    let command = CommandSpec::parse("true", Shell::None).expect("`true` parses");
    let stop = InterruptFlag::new();
    let mut runner = RealRunner::new();
    let request = RunRequest {
        command: &command,
        env_pad: 0,
        pin: None,
        timeout: None,
        output: OutputMode::Discard,
        capture_json: false,
        stop: &stop,
        count: false,
    };
    let dir = std::env::temp_dir().join(format!("abba-overhead-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let export = dir.join("hyperfine.json");

    let mut results = Vec::with_capacity(config.rounds);
    for round in 0..config.rounds {
        let order = if round % 2 == 0 {
            RoundOrder::AbbaFirst
        } else {
            RoundOrder::HyperfineFirst
        };
        if config.rounds > 1 {
            let first = match order {
                RoundOrder::AbbaFirst => "abba first",
                RoundOrder::HyperfineFirst => "hyperfine first",
            };
            println!("round {} of {} ({first}):", round + 1, config.rounds);
        }
        let result = match order {
            RoundOrder::AbbaFirst => {
                let abba = run_abba(&mut runner, &request, config.runs);
                let hyperfine = run_hyperfine(config.runs, &export);
                RoundResult { abba, hyperfine }
            }
            RoundOrder::HyperfineFirst => {
                let hyperfine = run_hyperfine(config.runs, &export);
                let abba = run_abba(&mut runner, &request, config.runs);
                RoundResult { abba, hyperfine }
            }
        };
        print_round(&result);
        let no_hyperfine = result.hyperfine.is_none();
        results.push(result);
        if no_hyperfine {
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if config.rounds > 1 && results.len() == config.rounds {
        summarize(&results);
    }
}

/// The ABBA summary: per-round median ratios and, per block of two rounds, the mean of the
/// two abba medians over the mean of the two hyperfine medians; then the median over blocks.
fn summarize(results: &[RoundResult]) {
    let round_ratios: Vec<f64> = results
        .iter()
        .filter_map(|r| {
            r.hyperfine
                .as_ref()
                .map(|h| r.abba.wall.median_ns / h.median_ns)
        })
        .collect();
    let listed: Vec<String> = round_ratios.iter().map(|r| format!("{r:.3}")).collect();
    println!(
        "ABBA rounds: median-wall ratio per round: {}",
        listed.join(", ")
    );
    let mut block_ratios = Vec::with_capacity(results.len() / 2);
    let mut harness: Vec<f64> = results
        .iter()
        .map(|r| (r.abba.outer_per_run_ns - r.abba.wall.mean_ns) / 1e3)
        .collect();
    for (k, pair) in results.chunks_exact(2).enumerate() {
        let (Some(h0), Some(h1)) = (&pair[0].hyperfine, &pair[1].hyperfine) else {
            return;
        };
        let abba_mean = (pair[0].abba.wall.median_ns + pair[1].abba.wall.median_ns) / 2.0;
        let theirs_mean = (h0.median_ns + h1.median_ns) / 2.0;
        let ratio = abba_mean / theirs_mean;
        println!(
            "  block {}: abba {:.1} us, hyperfine {:.1} us (means of the two rounds' medians): ratio {ratio:.3}",
            k + 1,
            abba_mean / 1e3,
            theirs_mean / 1e3
        );
        block_ratios.push(ratio);
    }
    let mut sorted = block_ratios.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "median over {} blocks of the block ratio (mean of abba medians / mean of hyperfine medians): {:.3} (range {:.3}-{:.3}); median of the round ratios {:.3}; harness cost outside the window, median {:.1} us",
        block_ratios.len(),
        median(&mut block_ratios),
        sorted[0],
        sorted[sorted.len() - 1],
        median(&mut round_ratios.clone()),
        median(&mut harness)
    );
}
