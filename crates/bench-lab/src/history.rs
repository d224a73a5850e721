//! `cargo xtask history-demo` and `cargo xtask history-scale`: the history store shown on
//! a toy repository measured on this machine, and its query speed on a large store.
//!
//! - `history-demo` makes a git repository of 30 commits whose benchmark is a fixed amount
//!   of work (`abba compute --steps N`, `N` read from the commit's `work` file), raised by
//!   2% at commit 15 and by 0.3% at commit 25. At every commit from the second on, as CI
//!   would, it runs `abba compare --record --base-commit HEAD~1` of the parent's work
//!   against the commit's (a paired step, and each side's level), then prints
//!   `abba history show` and `abba history check` and says whether the change point is at
//!   commit 15 (within one commit), whether any other was found, and whether the chain of
//!   paired steps holds the cumulative change.
//! - `history-scale` writes synthetic raw files (benchmarks x commits experiments of
//!   `--runs` runs each; 50 x 200 x 100 = 10,000 experiments, 1,000,000 runs by
//!   default), records them with `abba history import`, and times `abba history show`
//!   and `abba history list` on the store (each run as its own process, five times), with
//!   the store's size per 1,000 runs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{Value, json};

use crate::run::{build_abba, target_dir};

/// Flags of `history-demo`.
#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Commits of the toy repository.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(26..=500))]
    pub commits: u32,
    /// Blocks of each commit-vs-parent comparison.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub blocks: u32,
    /// Kernel steps of the first commit's work.
    #[arg(long, default_value_t = 12_000_000)]
    pub steps: u64,
    /// Seed of the comparisons (commit k uses seed + k).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The metric measured (`abba compare --metric`): `wall`, or `instructions` with
    /// `--counter valgrind` (exact counts, for a machine too loaded for times).
    #[arg(long, default_value = "wall")]
    pub metric: String,
    /// `abba compare --counter` (with a count metric).
    #[arg(long)]
    pub counter: Option<String>,
    /// Untimed warm-up runs of each variant (`abba compare --warmup`).
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
}

/// Flags of `history-scale`.
#[derive(clap::Args, Debug)]
pub struct ScaleArgs {
    /// Benchmarks.
    #[arg(long, default_value_t = 50)]
    pub benchmarks: usize,
    /// Commits (each benchmark has one experiment per commit after the first).
    #[arg(long, default_value_t = 201)]
    pub commits: usize,
    /// Runs per experiment (a multiple of 4: ABBA blocks of two variants).
    #[arg(long, default_value_t = 100)]
    pub runs: usize,
    /// Seed of the synthetic values.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn git(repo: &Path, args: &[&str], when: i64) -> Result<String> {
    let date = format!("{when} +0000");
    let out = Command::new("git")
        .current_dir(repo)
        .args([
            "-c",
            "user.email=toy@example.invalid",
            "-c",
            "user.name=toy",
        ])
        .args(args)
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .output()
        .context("starting git")?;
    ensure!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn abba_output(abba: &Path, cwd: &Path, args: &[String]) -> Result<(i32, String, String)> {
    let out = Command::new(abba)
        .current_dir(cwd)
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_BASE_REF")
        .env_remove("ABBA_HISTORY")
        .output()
        .with_context(|| format!("starting {}", abba.display()))?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The work of commit `k` (1-based): `steps`, times 1.02 from commit 15 on, times 1.003
/// more from commit 25 on.
fn work(steps: u64, k: u32) -> u64 {
    let mut w = steps as f64;
    if k >= 15 {
        w *= 1.02;
    }
    if k >= 25 {
        w *= 1.003;
    }
    w.round() as u64
}

/// `cargo xtask history-demo`.
pub fn demo(root: &Path, args: &DemoArgs) -> Result<()> {
    let abba = build_abba(root)?;
    let dir = target_dir(root).join("history-demo");
    let _ = std::fs::remove_dir_all(&dir);
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo)?;
    let db = dir.join("history.db");
    let db_s = db.display().to_string();
    let t0: i64 = 1_780_000_000;
    git(&repo, &["init", "-q", "."], t0)?;
    eprintln!(
        "history-demo: {} commits in {}, work {} steps (+2% at commit 15, +0.3% at commit 25), {} blocks per commit-vs-parent comparison, metric {}",
        args.commits,
        repo.display(),
        args.steps,
        args.blocks,
        args.metric
    );
    let start = Instant::now();
    for k in 1..=args.commits {
        commit_and_compare(&abba, &repo, &db_s, args, k, t0)?;
    }
    eprintln!(
        "recorded {} comparisons in {:.0} s",
        args.commits - 1,
        start.elapsed().as_secs_f64()
    );
    show_and_check(&abba, &repo, &db_s, &dir.join("toy.html"), args)
}

/// Commit `k` of the toy repository (its work file, at time `t0 + 60 k`), and CI at it
/// from commit 2 on: the parent's build against this one's, recorded in the history.
fn commit_and_compare(
    abba: &Path,
    repo: &Path,
    db_s: &str,
    args: &DemoArgs,
    k: u32,
    t0: i64,
) -> Result<()> {
    let compute = |n: u64| -> Result<String> {
        crate::run::compute_command(abba, &["--steps".to_owned(), n.to_string()])
    };
    let n = work(args.steps, k);
    std::fs::write(repo.join("work"), format!("{n}\n"))?;
    let when = t0 + 60 * i64::from(k);
    git(repo, &["add", "work"], when)?;
    let subject = match k {
        15 => format!("commit {k}: work +2% ({n})"),
        25 => format!("commit {k}: work +0.3% ({n})"),
        _ => format!("commit {k}: work {n}"),
    };
    git(
        repo,
        &["commit", "-q", "--allow-empty", "-m", &subject],
        when,
    )?;
    if k == 1 {
        return Ok(());
    }
    // CI at commit k: the parent's build against this one's, paired, recorded.
    let parent: u64 = git(repo, &["show", "HEAD~1:work"], when)?
        .parse()
        .context("the parent's work file")?;
    let cmd: Vec<String> = [
        "compare",
        "--record",
        "--history",
        db_s,
        "--bench",
        "toy",
        "--base-commit",
        "HEAD~1",
        "-n",
        "parent",
        "-n",
        "commit",
        "--blocks",
        &args.blocks.to_string(),
        "--seed",
        &(args.seed + u64::from(k)).to_string(),
        "--quiet",
        "--no-step-summary",
        "--json",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain(["--metric".to_owned(), args.metric.clone()])
    .chain(["--warmup".to_owned(), args.warmup.to_string()])
    .chain(
        args.counter
            .iter()
            .flat_map(|c| ["--counter".to_owned(), c.clone()]),
    )
    .chain([compute(parent)?, compute(n)?])
    .collect();
    let (code, stdout, stderr) = abba_output(abba, repo, &cmd)?;
    ensure!(
        code == 0,
        "abba compare at commit {k} exited {code}: {stderr}"
    );
    let doc: Value = serde_json::from_str(&stdout).context("the comparison's JSON")?;
    let c = &doc["groups"][0]["comparisons"][0];
    eprintln!(
        "  commit {k:>2}: step {:.4}x [{:.4}, {:.4}] {}",
        c["ratio"].as_f64().unwrap_or(f64::NAN),
        c["ratio_ci"][0].as_f64().unwrap_or(f64::NAN),
        c["ratio_ci"][1].as_f64().unwrap_or(f64::NAN),
        c["outcome"].as_str().unwrap_or("?")
    );
    Ok(())
}

/// `abba history show` (saving the trend chart as `html`) and `abba history check`,
/// printed, and whether the series showed what it should.
fn show_and_check(
    abba: &Path,
    repo: &Path,
    db_s: &str,
    html: &Path,
    args: &DemoArgs,
) -> Result<()> {
    let show: Vec<String> = [
        "history",
        "show",
        "toy",
        "--history",
        db_s,
        "--export-html",
        &html.display().to_string(),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let (code, table, stderr) = abba_output(abba, repo, &show)?;
    ensure!(code == 0, "abba history show: {stderr}");
    println!("$ abba history show toy\n{table}");
    let json_args: Vec<String> = ["history", "show", "toy", "--history", db_s, "--json"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let (_, json_text, _) = abba_output(abba, repo, &json_args)?;
    let doc: Value = serde_json::from_str(&json_text)?;
    let check: Vec<String> = [
        "history",
        "check",
        "--history",
        db_s,
        "--fail-if-slower",
        "1%",
        "--recent",
        "20",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let (code, out, _) = abba_output(abba, repo, &check)?;
    println!("$ abba history check --fail-if-slower 1% --recent 20   # exit {code}\n{out}");
    verdict(&doc["series"][0], args)?;
    println!("trend chart: {}", html.display());
    Ok(())
}

/// Whether the demo showed what it should, in words.
fn verdict(series: &Value, args: &DemoArgs) -> Result<()> {
    let cps: Vec<usize> = series["change_points"]
        .as_array()
        .context("no series")?
        .iter()
        .filter_map(|c| c["index"].as_u64().map(|i| i as usize + 1))
        .collect();
    let at_15 = cps.iter().any(|&c| (14..=16).contains(&c));
    let at_25 = cps.iter().any(|&c| (24..=26).contains(&c));
    let other: Vec<usize> = cps
        .iter()
        .copied()
        .filter(|c| !(14..=16).contains(c) && !(24..=26).contains(c))
        .collect();
    println!("change points (commit numbers): {cps:?}");
    println!(
        "  the +2% change at commit 15 (within one commit): {}",
        if at_15 { "FOUND" } else { "NOT FOUND" }
    );
    println!(
        "  the +0.3% change at commit 25: {}",
        if at_25 {
            "found"
        } else {
            "not found (below what the levels resolve here)"
        }
    );
    println!(
        "  false change points elsewhere: {}",
        if other.is_empty() {
            "none".to_owned()
        } else {
            format!("{other:?}")
        }
    );
    // The reference: the newest level against the first (the metric's own change: an
    // instruction count also holds the process's fixed start-up, so it moves less than the
    // work); the work's change is said beside it.
    let level = |p: &Value| p["level"]["median"].as_f64();
    let points = series["points"].as_array().context("no points")?;
    let expected = match (
        points.first().and_then(level),
        points.last().and_then(level),
    ) {
        (Some(a), Some(b)) if a > 0.0 => b / a,
        _ => f64::NAN,
    };
    let work_change = work(args.steps, args.commits) as f64 / work(args.steps, 1) as f64;
    let chain = &series["chain"];
    let r = chain["ratio"].as_f64().unwrap_or(f64::NAN);
    let lo = chain["interval"][0].as_f64().unwrap_or(f64::NAN);
    let hi = chain["interval"][1].as_f64().unwrap_or(f64::NAN);
    println!(
        "  chain of paired steps: {:+.2}% [{:+.2}%, {:+.2}%] against the levels' first-to-last {:+.2}% (the work's {:+.2}%): {}{}",
        (r - 1.0) * 100.0,
        (lo - 1.0) * 100.0,
        (hi - 1.0) * 100.0,
        (expected - 1.0) * 100.0,
        (work_change - 1.0) * 100.0,
        if lo > 1.0 {
            "a cumulative slowdown shown"
        } else {
            "no cumulative change shown"
        },
        if lo <= expected && expected <= hi {
            ", the interval holds the levels' change"
        } else {
            ", the interval misses the levels' change"
        }
    );
    Ok(())
}

/// A raw header of two variants `BASE` and `BASE~new` (a fixed host, design abba).
fn header(name: &str, seed: u64, blocks: usize) -> Value {
    json!({
        "schema": "abba.raw/1", "abba_version": env!("CARGO_PKG_VERSION"), "design": "abba",
        "seed": seed, "blocks": blocks,
        "variants": [
            { "name": name, "command": format!("./build-base/{name}") },
            { "name": format!("{name}~new"), "command": format!("./build-new/{name}") }
        ],
        "reference": null, "metric": "wall", "unit": "ns", "higher_is_better": false,
        "layout": "random", "pin": null, "warmup": 1, "settle_ns": 0, "shell": "none",
        "timeout_ns": null,
        "host": { "cpu_model": "synthetic", "cores": 2, "kernel": "synthetic", "governor": null,
                  "turbo": null, "aslr": 2, "load_start": null, "load_end": null,
                  "env_bytes": 0, "argv_bytes": 0, "start_time": "2026-12-02T00:00:00Z",
                  "hostname": "scale" }
    })
}

/// `cargo xtask history-scale`.
pub fn scale(root: &Path, args: &ScaleArgs) -> Result<()> {
    if args.runs % 4 != 0 || args.runs == 0 {
        bail!("--runs must be a positive multiple of 4");
    }
    let abba = build_abba(root)?;
    let dir = target_dir(root).join("history-scale");
    let _ = std::fs::remove_dir_all(&dir);
    let raw_dir = dir.join("raw");
    std::fs::create_dir_all(&raw_dir)?;
    let db = dir.join("history.db");
    let db_s = db.display().to_string();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let blocks = args.runs / 4;
    let experiments = args.benchmarks * (args.commits - 1);
    eprintln!(
        "history-scale: {} benchmarks x {} commits = {experiments} experiments of {} runs",
        args.benchmarks,
        args.commits - 1,
        args.runs
    );
    let start = Instant::now();
    let mut level: Vec<f64> = (0..args.benchmarks)
        .map(|b| 1e6 * (1.0 + b as f64 / 10.0))
        .collect();
    for k in 1..args.commits {
        let mut files: Vec<PathBuf> = Vec::with_capacity(args.benchmarks);
        for (b, lvl) in level.iter_mut().enumerate() {
            let name = format!("b{b:03}");
            let before = *lvl;
            // One benchmark in ten takes a real step at commit 100.
            if k == 100 && b % 10 == 0 {
                *lvl *= 1.05;
            }
            let seed = (k * 1000 + b) as u64;
            let text = raw_text(&name, seed, blocks, [before, *lvl], &mut rng)?;
            let f = raw_dir.join(format!("c{k:04}-{name}.jsonl"));
            std::fs::write(&f, text)?;
            files.push(f);
        }
        import_commit(&abba, &dir, &db_s, k, &files)?;
        if k % 20 == 0 {
            eprintln!(
                "  {} of {} commits recorded ({:.0} s)",
                k,
                args.commits - 1,
                start.elapsed().as_secs_f64()
            );
        }
    }
    let build = start.elapsed().as_secs_f64();
    let size = std::fs::metadata(&db)?.len();
    let runs = experiments * args.runs;
    println!(
        "store: {experiments} experiments, {runs} runs, {:.1} MB ({:.1} KB per 1,000 runs; built in {build:.0} s)",
        size as f64 / 1e6,
        size as f64 / 1e3 / (runs as f64 / 1000.0)
    );
    time_queries(&abba, &dir, &db_s)
}

/// A raw file of benchmark `name` at one commit: `blocks` ABBA blocks of the old and new
/// build, whose runs are `levels` (before, after) times uniform noise of up to 2%.
fn raw_text(
    name: &str,
    seed: u64,
    blocks: usize,
    [before, after]: [f64; 2],
    rng: &mut Xoshiro256PlusPlus,
) -> Result<String> {
    let mut text = serde_json::to_string(&header(name, seed, blocks))?;
    text.push('\n');
    let mut run = 0usize;
    for block in 0..blocks {
        let order: [usize; 4] = if block % 2 == 0 {
            [0, 1, 1, 0]
        } else {
            [1, 0, 0, 1]
        };
        for (pos, v) in order.iter().enumerate() {
            let base = if *v == 0 { before } else { after };
            let wall = (base * (1.0 + 0.02 * rng.random::<f64>())).round() as u64;
            let variant = if *v == 0 {
                name.to_owned()
            } else {
                format!("{name}~new")
            };
            let line = json!({
                "run": run, "block": block, "position": pos, "variant": variant,
                "is_reference": false, "wall_ns": wall, "user_ns": wall / 2, "sys_ns": 0,
                "max_rss_kib": 4000, "exit_code": 0, "signal": null, "timed_out": false,
                "env_pad": run % 4096
            });
            text.push_str(&serde_json::to_string(&line)?);
            text.push('\n');
            run += 1;
        }
    }
    Ok(text)
}

/// `abba history import` of commit `k`'s raw files (against commit `k - 1`), which are
/// then removed.
fn import_commit(abba: &Path, dir: &Path, db_s: &str, k: usize, files: &[PathBuf]) -> Result<()> {
    let mut cmd = Command::new(abba);
    cmd.current_dir(dir)
        .args(["history", "import", "--history", db_s])
        .args(["--commit", &format!("c{k:04}")])
        .args(["--base-commit", &format!("c{:04}", k - 1)])
        .args(files)
        .env_remove("ABBA_HISTORY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let status = cmd.status().context("starting abba history import")?;
    ensure!(status.success(), "abba history import at commit {k} failed");
    for f in files {
        let _ = std::fs::remove_file(f);
    }
    Ok(())
}

/// Times `history show` of two benchmarks and `history list` on the store, 5 processes
/// each, and prints the medians (and the end of the first show).
fn time_queries(abba: &Path, dir: &Path, db_s: &str) -> Result<()> {
    for (label, a) in [
        ("history show b000", vec!["history", "show", "b000"]),
        ("history show b007", vec!["history", "show", "b007"]),
        ("history list", vec!["history", "list"]),
    ] {
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..5 {
            let t = Instant::now();
            let out = Command::new(abba)
                .current_dir(dir)
                .args(&a)
                .args(["--history", db_s])
                .output()?;
            times.push(t.elapsed().as_secs_f64());
            ensure!(
                out.status.success(),
                "{label}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            last = Some(out);
        }
        if label == "history show b000" {
            if let Some(out) = last.as_ref() {
                let text = String::from_utf8_lossy(&out.stdout);
                let lines: Vec<&str> = text.lines().collect();
                for l in &lines[lines.len().saturating_sub(3)..] {
                    println!("  | {l}");
                }
            }
        }
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "{label}: median {:.3} s of 5 runs (each a process; {})",
            sorted[2],
            times
                .iter()
                .map(|t| format!("{t:.3}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}
