//! `cargo xtask scale`: `abba analyze` of synthetic raw ABBA files of 10^4, 10^5 and 10^6
//! runs (4 runs a block, B 1% slower), the default (`typical-run`) and
//! `--estimator hl-min-log-ratio` side by side: wall and CPU time, CPU per run and peak
//! memory (`/usr/bin/time`), then the rank tests against SciPy ([`crate::scipy_timing`]),
//! all in one run.
//!
//! The files are written once by a seeded generator to `target/scale/` (about 230 bytes a
//! run) and reused while their size matches; the release binary is built first.
//!
//! With `--base BINARY` (another build of abba, say main's: `cp target/release/abba
//! /tmp/abba-base` before a change) each file is analysed by both binaries, one after the
//! other, and the peak memory (max RSS) and CPU of both are printed side by side with
//! whether `abba analyze FILE --json` prints the same bytes, for both estimators: the
//! check that keeps a memory figure (issue 39: 10^6 runs in at most ~300 MB).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, ensure};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// `cargo xtask scale` arguments.
#[derive(clap::Args, Debug)]
pub struct ScaleArgs {
    /// The run counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
    pub runs: Vec<usize>,
    /// Timed analyses of each file and estimator (the median is printed).
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    /// Leave out the SciPy comparison of the rank tests.
    #[arg(long)]
    pub no_scipy: bool,
    /// Another abba binary to run beside this one on the same files: peak memory and CPU
    /// side by side, and whether `--json` prints the same bytes (both estimators).
    #[arg(long, value_name = "BINARY")]
    pub base: Option<PathBuf>,
    /// The base is known to print other numbers (a change of the arrangements drawn, say):
    /// say which files differ instead of failing.
    #[arg(long, requires = "base")]
    pub other_bytes: bool,
}

/// One timed analysis.
#[derive(Debug, Clone, Copy)]
struct Timing {
    wall: f64,
    cpu: f64,
    peak_mib: f64,
}

/// Runs the task from the workspace root `root`.
///
/// # Errors
/// When the build, a file or an analysis fails, or `/usr/bin/time` prints no figures.
pub fn run(root: &Path, args: &ScaleArgs) -> Result<()> {
    let abba = crate::run::build_abba(root)?;
    let dir = crate::run::target_dir(root).join("scale");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    println!(
        "scale: `abba analyze FILE -q` on synthetic raw ABBA files (4 runs a block, B 1% slower); \
         median of {} (wall, CPU = user + sys, peak = max RSS)",
        args.repeat
    );
    println!(
        "{:>9}  {:>28}  {:>28}  {:>9}",
        "runs", "default (typical-run)", "hl-min-log-ratio", "CPU ratio"
    );
    let mut rows = Vec::new();
    for &runs in &args.runs {
        let file = raw_file(&dir, runs)?;
        let default = timed(&abba, &file, None, args.repeat)?;
        let fastest = timed(&abba, &file, Some("hl-min-log-ratio"), args.repeat)?;
        let cell =
            |t: Timing| format!("{:.2} s, {:.2} s CPU, {:.0} MiB", t.wall, t.cpu, t.peak_mib);
        println!(
            "{runs:>9}  {:>28}  {:>28}  {:>8.2}x",
            cell(default),
            cell(fastest),
            default.cpu / fastest.cpu
        );
        rows.push((runs, default, fastest));
    }
    println!("CPU per run (µs):");
    for (runs, default, fastest) in &rows {
        println!(
            "{runs:>9}  {:>10.2} default  {:>10.2} hl-min-log-ratio",
            default.cpu / *runs as f64 * 1e6,
            fastest.cpu / *runs as f64 * 1e6
        );
    }
    if let (Some(first), Some(last)) = (rows.first(), rows.last())
        && last.0 > first.0
    {
        let per_run = |t: &Timing, runs: usize| t.cpu / runs as f64;
        println!(
            "growth of the CPU per run from {} to {} runs: {:.2}x default, {:.2}x hl-min-log-ratio \
             (1x: linear)",
            first.0,
            last.0,
            per_run(&last.1, last.0) / per_run(&first.1, first.0),
            per_run(&last.2, last.0) / per_run(&first.2, first.0)
        );
    }
    if let Some(base) = &args.base {
        beside_base(&abba, base, &dir, &args.runs, args.other_bytes)?;
    }
    if !args.no_scipy {
        crate::scipy_timing::run(root)?;
    }
    Ok(())
}

/// `abba analyze FILE --json [--estimator E]` of `base` and of `abba` on each file, one
/// after the other: peak memory (max RSS) and CPU side by side, and whether the two print
/// the same bytes. Fails when they do not, unless `other_bytes` (then it says which).
fn beside_base(
    abba: &Path,
    base: &Path,
    dir: &Path,
    runs: &[usize],
    other_bytes: bool,
) -> Result<()> {
    ensure!(base.is_file(), "--base {}: no such file", base.display());
    println!(
        "beside {}: `abba analyze FILE --json [--estimator E]`, peak = max RSS (MiB), CPU = user + sys",
        base.display()
    );
    println!(
        "{:>9}  {:>18}  {:>20}  {:>20}  {:>10}  same bytes",
        "runs", "estimator", "peak base -> this", "CPU base -> this", "peak ratio"
    );
    let mut differ = Vec::new();
    for &n in runs {
        let file = raw_file(dir, n)?;
        for estimator in [None, Some("hl-min-log-ratio")] {
            let (b, b_out) = analyze_under_time(base, &file, estimator, "--json")?;
            let (t, t_out) = analyze_under_time(abba, &file, estimator, "--json")?;
            let same = b_out == t_out;
            let name = estimator.unwrap_or("default");
            println!(
                "{n:>9}  {name:>18}  {:>20}  {:>20}  {:>9.2}x  {}",
                format!("{:.0} -> {:.0}", b.peak_mib, t.peak_mib),
                format!("{:.2} -> {:.2} s", b.cpu, t.cpu),
                t.peak_mib / b.peak_mib,
                if same { "yes" } else { "NO" }
            );
            if !same {
                differ.push(format!("{n} runs, {name}"));
            }
        }
    }
    if other_bytes && !differ.is_empty() {
        println!(
            "other bytes than the base, as expected (--other-bytes): {}",
            differ.join("; ")
        );
        return Ok(());
    }
    ensure!(
        differ.is_empty(),
        "`abba analyze --json` printed other bytes than the base binary: {} (--other-bytes \
         when the change is on purpose)",
        differ.join("; ")
    );
    Ok(())
}

/// One `abba analyze FILE FLAG [--estimator E]` under `/usr/bin/time`: its figures and
/// what it printed (`FLAG` is `--json` for the byte check, `-q` for the timings alone).
fn analyze_under_time(
    abba: &Path,
    file: &Path,
    estimator: Option<&str>,
    flag: &str,
) -> Result<(Timing, Vec<u8>)> {
    let mut cmd = Command::new("/usr/bin/time");
    cmd.args(["-f", "SCALE %e %U %S %M"])
        .arg(abba)
        .arg("analyze")
        .arg(file)
        .arg(flag);
    if let Some(e) = estimator {
        cmd.args(["--estimator", e]);
    }
    let out = cmd
        .output()
        .context("running /usr/bin/time (GNU time) around abba")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let timing = parse_timing(&stderr)?;
    ensure!(
        out.status.success(),
        "{} analyze {} {flag} failed: {stderr}",
        abba.display(),
        file.display()
    );
    Ok((timing, out.stdout))
}

/// The figures `/usr/bin/time -f 'SCALE %e %U %S %M'` printed on `stderr`.
fn parse_timing(stderr: &str) -> Result<Timing> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("SCALE "))
        .with_context(|| format!("no timing from /usr/bin/time: {stderr}"))?;
    let v: Vec<f64> = line
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .with_context(|| format!("bad timing line {line:?}"))?;
    ensure!(v.len() == 4, "bad timing line {line:?}");
    Ok(Timing {
        wall: v[0],
        cpu: v[1] + v[2],
        peak_mib: v[3] / 1024.0,
    })
}

/// `target/scale/abba-N.jsonl`: `runs / 4` ABBA/BAAB blocks, each with a session level
/// (up to 5%), every run 0-2% noisy, B 1% slower; seeded, so the same file every time.
fn raw_file(dir: &Path, runs: usize) -> Result<PathBuf> {
    let path = dir.join(format!("abba-{runs}.jsonl"));
    let blocks = runs / 4;
    let header = format!(
        r#"{{"schema":"abba.raw/1","abba_version":"0.1.0","design":"abba","seed":11,"blocks":{blocks},"variants":[{{"name":"A","command":"a"}},{{"name":"B","command":"b"}}],"reference":null,"metric":"wall","unit":"ns","higher_is_better":false,"layout":"random","pin":null,"warmup":0,"settle_ns":0,"shell":"none","timeout_ns":null,"host":{{"cpu_model":"synthetic","cores":2,"kernel":"synthetic","governor":null,"turbo":null,"aslr":2,"load_start":null,"load_end":null,"env_bytes":0,"argv_bytes":0,"start_time":"2026-12-05T00:00:00Z"}}}}"#
    );
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(runs as u64);
    let mut text = Vec::with_capacity(runs * 240);
    writeln!(text, "{header}")?;
    let mut run = 0;
    for block in 0..blocks {
        let order = if block % 2 == 0 { "ABBA" } else { "BAAB" };
        let session = 1.0 + 0.05 * rng.random::<f64>();
        for (position, variant) in order.chars().enumerate() {
            let slower = if variant == 'B' { 1.01 } else { 1.0 };
            let wall = 50e6 * session * slower * (1.0 + 0.02 * rng.random::<f64>());
            let (wall, user) = (wall as u64, (wall * 0.99) as u64);
            writeln!(
                text,
                r#"{{"run":{run},"block":{block},"position":{position},"variant":"{variant}","is_reference":false,"wall_ns":{wall},"user_ns":{user},"sys_ns":0,"max_rss_kib":3000,"exit_code":0,"signal":null,"timed_out":false,"env_pad":0,"metric":null,"allowed_cpus":"0-1"}}"#
            )?;
            run += 1;
        }
    }
    let current = std::fs::metadata(&path).map(|m| m.len()).ok();
    if current != Some(text.len() as u64) {
        std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(path)
}

/// The median (by CPU time) of `repeat` runs of `abba analyze FILE -q [--estimator E]`
/// under `/usr/bin/time`.
fn timed(abba: &Path, file: &Path, estimator: Option<&str>, repeat: usize) -> Result<Timing> {
    let mut all = Vec::new();
    for _ in 0..repeat.max(1) {
        let (timing, _) = analyze_under_time(abba, file, estimator, "-q")?;
        all.push(timing);
    }
    all.sort_by(|a, b| a.cpu.total_cmp(&b.cpu));
    Ok(all[all.len() / 2])
}
