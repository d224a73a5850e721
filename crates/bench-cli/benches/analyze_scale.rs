//! `abba analyze` on a 10^6-row CSV, and on 100 hosts' raw files of 10,000 runs each
//! (10^6 runs, one experiment analysed with the host as a level): wall time and peak
//! memory, measured through abba's own runner (wait4 rusage), several repetitions,
//! medians printed.
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

/// Host files of the many-hosts case.
const HOSTS: u32 = 100;
/// Runs per host file: 2,500 ABBA blocks of 4 runs.
const RUNS_PER_HOST: u32 = 10_000;

/// Writes one raw file per host, each with 2 sessions, a host offset, a block offset and a
/// 2% faster candidate; returns the paths and the total bytes.
fn write_hosts(dir: &Path) -> std::io::Result<(Vec<std::path::PathBuf>, u64)> {
    let blocks = RUNS_PER_HOST / 4;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut uniform = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut paths, mut bytes) = (Vec::new(), 0);
    for h in 0..HOSTS {
        let path = dir.join(format!("node-{h:03}-{h}.jsonl"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        writeln!(
            out,
            r#"{{"schema":"abba.raw/1","abba_version":"0.1.0","design":"abba","seed":1,"blocks":{blocks},"variants":[{{"name":"old","command":"./old"}},{{"name":"new","command":"./new"}}],"reference":null,"metric":"wall","unit":"ns","higher_is_better":false,"layout":"random","pin":null,"warmup":1,"settle_ns":0,"host":{{"cpu_model":null,"cores":2,"kernel":null,"governor":null,"turbo":null,"aslr":2,"load_start":null,"load_end":null,"env_bytes":10,"argv_bytes":5,"start_time":"2026-12-01T00:00:00Z","hostname":"node-{h:03}"}},"experiment":"scale"}}"#
        )?;
        let host = 1.0 + 0.05 * (uniform() - 0.5);
        for b in 0..blocks {
            let session = u32::from(b >= blocks / 2);
            let block = host * (1.0 + 0.01 * (uniform() - 0.5));
            let order = if b % 2 == 0 {
                ["old", "new", "new", "old"]
            } else {
                ["new", "old", "old", "new"]
            };
            for (p, v) in order.iter().enumerate() {
                let effect = if *v == "new" { 0.98 } else { 1.0 };
                let wall = (50.0e6 * block * effect * (1.0 + 0.02 * uniform())) as u64;
                writeln!(
                    out,
                    r#"{{"run":{},"block":{b},"position":{p},"variant":"{v}","wall_ns":{wall},"user_ns":{wall},"sys_ns":0,"max_rss_kib":1000,"exit_code":0,"timed_out":false,"env_pad":{},"metric":null,"session":{session}}}"#,
                    b * 4 + p as u32,
                    (b * 7 + p as u32) % 4096
                )?;
            }
        }
        out.flush()?;
        bytes += std::fs::metadata(&path)?.len();
        paths.push(path);
    }
    Ok((paths, bytes))
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
    // CPU time (user + sys, all threads) beside the wall time: on a busy machine the wall
    // time counts the waits for a core, the CPU time does not.
    println!(
        "{:<10} {:>10} {:>12} {:>12} {:>14}",
        "layout", "file MB", "wall s", "cpu s", "peak RSS MiB"
    );
    for case in ["unpaired", "blocked", "100 hosts"] {
        let (files, bytes) = match case {
            "100 hosts" => {
                let hosts = dir.join("hosts");
                std::fs::create_dir_all(&hosts).unwrap();
                write_hosts(&hosts).unwrap()
            }
            _ => {
                let csv = dir.join(format!("{case}.csv"));
                let bytes = write_csv(&csv, case == "blocked").unwrap();
                (vec![csv], bytes)
            }
        };
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let line = format!(
            "{} analyze {} --json --quiet",
            abba.display(),
            names.join(" ")
        );
        let command = CommandSpec::parse(&line, Shell::None).unwrap();
        let (mut walls, mut cpus, mut rss) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..REPEATS {
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
            let m = runner.run("analyze", &request).unwrap();
            assert_eq!(m.termination, Termination::Exited(0), "abba analyze failed");
            walls.push(m.wall_ns as f64 / 1e9);
            cpus.push((m.user_ns + m.sys_ns) as f64 / 1e9);
            rss.push(m.max_rss_kib as f64 / 1024.0);
        }
        println!(
            "{:<10} {:>10.1} {:>12.2} {:>12.2} {:>14.1}",
            case,
            bytes as f64 / 1e6,
            median(walls),
            median(cpus),
            median(rss)
        );
    }
}
