//! `abba analyze` on a 10^6-row CSV: wall time and peak memory, measured through abba's
//! own runner (wait4 rusage), several repetitions, medians printed.
//!
//! Run: `cargo bench -p bench-cli --bench analyze_scale` (builds release first).

use std::io::Write;
use std::path::Path;

use bench_sched::{
    CommandSpec, InterruptFlag, OutputMode, RealRunner, RunRequest, Runner, Shell, Termination,
};

const ROWS: usize = 1_000_000;
const REPEATS: usize = 3;

fn write_csv(path: &Path, blocked: bool) -> std::io::Result<u64> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    if blocked {
        writeln!(out, "block,variant,value")?;
    } else {
        writeln!(out, "variant,value")?;
    }
    // A deterministic xorshift stream: right-skewed times around 50 ms and 51 ms.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..ROWS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        let variant = if i % 2 == 0 { "old" } else { "new" };
        let base = if i % 2 == 0 { 50.0e6 } else { 51.0e6 };
        let value = base * (1.0 - 0.2 * u.ln().max(-5.0) * 0.1);
        if blocked {
            writeln!(out, "{},{variant},{value:.0}", i / 2)?;
        } else {
            writeln!(out, "{variant},{value:.0}")?;
        }
    }
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let abba = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/abba");
    if !abba.exists() {
        eprintln!("build the release binary first: cargo build --release -p bench-cli");
        std::process::exit(2);
    }
    let dir = std::env::temp_dir().join("abba-analyze-scale");
    std::fs::create_dir_all(&dir).unwrap();
    let mut runner = RealRunner::new();
    let stop = InterruptFlag::new();
    println!("abba analyze, {ROWS} rows, {REPEATS} runs each (medians)");
    println!(
        "{:<10} {:>10} {:>12} {:>14}",
        "layout", "file MB", "wall s", "peak RSS MiB"
    );
    for blocked in [false, true] {
        let csv = dir.join(if blocked {
            "blocked.csv"
        } else {
            "unpaired.csv"
        });
        let bytes = write_csv(&csv, blocked).unwrap();
        let line = format!(
            "{} analyze {} --json --quiet",
            abba.display(),
            csv.display()
        );
        let command = CommandSpec::parse(&line, Shell::None).unwrap();
        let (mut walls, mut rss) = (Vec::new(), Vec::new());
        for _ in 0..REPEATS {
            let request = RunRequest {
                command: &command,
                env_pad: 0,
                pin: None,
                timeout: None,
                output: OutputMode::Discard,
                capture_json: false,
                stop: &stop,
            };
            let m = runner.run("analyze", &request).unwrap();
            assert_eq!(m.termination, Termination::Exited(0), "abba analyze failed");
            walls.push(m.wall_ns as f64 / 1e9);
            rss.push(m.max_rss_kib as f64 / 1024.0);
        }
        println!(
            "{:<10} {:>10.1} {:>12.2} {:>14.1}",
            if blocked { "blocked" } else { "unpaired" },
            bytes as f64 / 1e6,
            median(walls),
            median(rss)
        );
    }
}
