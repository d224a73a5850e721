//! Harness overhead: mean wall time per run of `true` through `RealRunner`, side by side
//! with `hyperfine -N` when it is installed. A benchmark, not a test: it prints figures.
//!
//! Run: `cargo bench -p bench-sched --bench overhead` (optional argument: run count).

use std::process::Command;
use std::time::Instant;

use bench_sched::{CommandSpec, InterruptFlag, OutputMode, RealRunner, RunRequest, Runner, Shell};

fn main() {
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
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
    for _ in 0..20 {
        runner.run("true", &request).expect("warm-up run of `true`");
    }
    let outer = Instant::now();
    let mut walls = Vec::with_capacity(runs);
    for _ in 0..runs {
        walls.push(runner.run("true", &request).expect("run of `true`").wall_ns as f64);
    }
    let outer_ns = outer.elapsed().as_nanos() as f64 / runs as f64;
    let ours = walls.iter().sum::<f64>() / runs as f64;
    walls.sort_by(f64::total_cmp);
    println!("RealRunner: {runs} runs of `true`");
    println!("  mean measured wall per run : {:>9.1} us", ours / 1e3);
    println!(
        "  median measured wall       : {:>9.1} us",
        walls[runs / 2] / 1e3
    );
    println!(
        "  loop time per run (outer)  : {:>9.1} us  (harness cost = outer - measured: {:.1} us)",
        outer_ns / 1e3,
        (outer_ns - ours) / 1e3
    );

    let dir = std::env::temp_dir().join(format!("abba-overhead-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let export = dir.join("hyperfine.json");
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
        .arg(&export)
        .arg("true")
        .status();
    match status {
        Ok(s) if s.success() => {
            let loaded = bench_sched::read_hyperfine(&export).expect("hyperfine export parses");
            let obs = &loaded.dataset.series[0].observations;
            let theirs = obs.iter().map(|o| o.value).sum::<f64>() / obs.len() as f64;
            let mut sorted: Vec<f64> = obs.iter().map(|o| o.value).collect();
            sorted.sort_by(f64::total_cmp);
            let their_median = sorted[sorted.len() / 2];
            println!("hyperfine -N: {} runs of `true`", obs.len());
            println!("  mean wall per run          : {:>9.1} us", theirs / 1e3);
            println!(
                "  median wall                : {:>9.1} us",
                their_median / 1e3
            );
            println!(
                "ratio RealRunner / hyperfine: mean {:.3}, median {:.3}",
                ours / theirs,
                walls[runs / 2] / their_median
            );
        }
        _ => println!("hyperfine not installed or failed: no comparison"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
