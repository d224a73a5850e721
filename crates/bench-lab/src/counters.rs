//! `cargo xtask counters`: instruction counts against wall time under the noisy
//! neighbour (issue 27), the figures of `docs/metrics.md`.
//!
//! With the seeded neighbour (`cargo xtask neighbour`) running throughout, it runs
//! `--reps` A/B experiments, where B is a fixed-work kernel run with 0.5% more
//! instructions than A (`abba compute --steps S` against `--steps S_B`, S_B chosen from
//! two cachegrind counts so the whole process executes 0.5% more), and `--reps` A/A
//! experiments, each with
//!
//! 1. `abba compare --metric instructions --counter valgrind --until decided
//!    --max-blocks 10`: the verdict, the blocks it took, and (same runs, from the report's
//!    other-metrics section) the wall-time ratio under valgrind;
//! 2. `abba compare --metric wall --blocks 10` of the same two commands, natively: what
//!    wall time decides from as many blocks.
//!
//! It then prints one row per experiment, the counts of each verdict, and the valgrind
//! slowdown factor of the kernel (median run time under valgrind over the native
//! median), and counts `chains=1` against `chains=2` at equal work (same instructions,
//! about half the time). Everything is saved under `target/counters/`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use bench_stats::Outcome;
use serde_json::Value;

use crate::calibrate::Neighbour;
use crate::run::{build_abba, compute_command, stdout_of, target_dir};

/// Flags of `counters`.
#[derive(clap::Args, Debug)]
pub struct CountersArgs {
    /// Experiments of each kind (A/B and A/A).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub reps: u32,
    /// Kernel steps of A (fixed work; about 6 instructions a step).
    #[arg(long, default_value_t = 2_000_000)]
    pub steps: u64,
    /// The change of B in instructions, percent.
    #[arg(long, default_value_t = 0.5)]
    pub effect_pct: f64,
    /// The most blocks of each counted experiment (`--max-blocks`), and the blocks of the
    /// wall-time one. The default's sequence stops from 9 blocks at alpha 0.05, when every
    /// part of its shape check has an interval.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=100))]
    pub blocks: u32,
    /// Base seed of run orders and layout (experiment k uses SEED + k), and the
    /// neighbour's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The instructions cachegrind counts for `argv` (its `I refs` line).
fn cachegrind_count(argv: &[String], dir: &Path) -> Result<u64> {
    let out = Command::new("valgrind")
        .args(["--tool=cachegrind", "--cache-sim=no"])
        .arg(format!(
            "--cachegrind-out-file={}",
            dir.join("calibration.cg").display()
        ))
        .args(argv)
        .output()
        .context("starting valgrind (install it: apt-get install valgrind)")?;
    ensure!(out.status.success(), "valgrind {argv:?} failed");
    let text = String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .find(|l| l.contains("I   refs:") || l.contains("I refs:"))
        .context("no `I refs` line in cachegrind's output")?;
    let digits: String = line
        .rsplit(':')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().context("reading cachegrind's I refs")
}

/// A stripped copy of `abba` (valgrind reads a binary's debug information at start-up,
/// over a second for a release build with debuginfo), or `abba` itself when `strip`
/// is missing.
fn kernel_binary(abba: &Path, dir: &Path) -> PathBuf {
    let copy = dir.join("abba-stripped");
    let ok = Command::new("strip")
        .arg("-o")
        .arg(&copy)
        .arg(abba)
        .status()
        .is_ok_and(|s| s.success());
    if ok { copy } else { abba.to_path_buf() }
}

/// What one `abba compare --json` concluded.
#[derive(Debug, Clone)]
struct Verdict {
    outcome: Outcome,
    ratio: Option<f64>,
    ci: Option<[f64; 2]>,
    /// Blocks run: the sequence's looks (it may stop after its first decision,
    /// `decided_at`, when the shape check could not yet contradict it), else the blocks
    /// analysed.
    blocks: Option<u64>,
    /// The wall ratio of the same runs (other-metrics section), with its direction.
    wall: Option<(f64, String)>,
}

fn interval(v: &Value) -> Option<[f64; 2]> {
    Some([v.get(0)?.as_f64()?, v.get(1)?.as_f64()?])
}

fn verdict_of(json: &Value) -> Result<Verdict> {
    let c = &json["groups"][0]["comparisons"][0];
    let name = c["outcome"].as_str().context("no outcome in abba's JSON")?;
    let outcome = Outcome::from_name(name)
        .with_context(|| format!("unknown outcome {name:?} in abba's JSON"))?;
    let blocks = c["sequential"]["looks"]
        .as_u64()
        .or_else(|| c["paired"]["blocks"].as_u64());
    let wall = json["metrics"]["comparisons"][0]["metrics"]
        .as_array()
        .and_then(|ms| ms.iter().find(|m| m["metric"] == "wall"))
        .and_then(|m| Some((m["ratio"].as_f64()?, m["direction"].as_str()?.to_owned())));
    Ok(Verdict {
        outcome,
        ratio: c["ratio"].as_f64(),
        ci: interval(&c["ratio_ci"]),
        blocks,
        wall,
    })
}

/// Runs `abba compare --json ARGS`, saving its JSON as `dir/STEM.json`.
fn compare(abba: &Path, dir: &Path, stem: &str, args: &[String]) -> Result<Value> {
    let raw = dir.join(format!("{stem}.jsonl"));
    let out = stdout_of(
        Command::new(abba)
            .args([
                "compare", "--json", "--quiet", "--force", "-n", "A", "-n", "B",
            ])
            .arg("--output")
            .arg(&raw)
            .args(args),
        &format!("abba compare ({stem})"),
    )?;
    std::fs::write(dir.join(format!("{stem}.json")), &out)?;
    serde_json::from_slice(&out).with_context(|| format!("reading {stem}'s JSON"))
}

/// The median wall time (ns) of variant A's successful runs in a raw file.
fn median_wall(raw: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(raw).ok()?;
    let mut walls: Vec<f64> = text
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["variant"] == "A" && v["exit_code"] == 0)
        .filter_map(|v| v["wall_ns"].as_f64())
        .collect();
    walls.sort_by(f64::total_cmp);
    walls.get(walls.len() / 2).copied()
}

fn ratio_text(v: &Verdict) -> String {
    match (v.ratio, v.ci) {
        (Some(r), Some([lo, hi])) => format!("{r:.4}x [{lo:.4}, {hi:.4}]"),
        (Some(r), None) => format!("{r:.4}x"),
        _ => "-".to_owned(),
    }
}

/// One row of the table: the counted verdict and the wall-time views of it.
struct Row {
    kind: &'static str,
    seed: u64,
    counted: Verdict,
    native: Verdict,
}

fn decided(outcome: Outcome) -> bool {
    matches!(outcome, Outcome::Slower | Outcome::Faster)
}

/// `KERNEL compute --chains CHAINS --steps STEPS`.
fn kernel_argv(kernel: &Path, steps: u64, chains: u32) -> Vec<String> {
    vec![
        kernel.display().to_string(),
        "compute".into(),
        "--chains".into(),
        chains.to_string(),
        "--steps".into(),
        steps.to_string(),
    ]
}

/// `abba compute` of `--steps STEPS` with `--chains CHAINS`, as a command line.
fn kernel_command(kernel: &Path, steps: u64, chains: u32) -> Result<String> {
    compute_command(kernel, &kernel_argv(kernel, steps, chains)[2..])
}

/// The A/B pair: A runs `--steps`, B as many more steps as make `--effect-pct` more
/// instructions, by the slope of two cachegrind counts.
struct Pair {
    a_cmd: String,
    b_cmd: String,
}

/// Counts the kernel at `--steps` and twice that, sizes B, and prints what it found.
fn size_pair(kernel: &Path, dir: &Path, args: &CountersArgs) -> Result<Pair> {
    // Instructions per step and the fixed cost, from two counts.
    let (s, s2) = (args.steps, 2 * args.steps);
    let c1 = cachegrind_count(&kernel_argv(kernel, s, 1), dir)?;
    let c2 = cachegrind_count(&kernel_argv(kernel, s2, 1), dir)?;
    let per_step = (c2 as f64 - c1 as f64) / s as f64;
    ensure!(
        per_step > 0.0,
        "the kernel's count did not grow with its steps"
    );
    let steps_b = s + (args.effect_pct / 100.0 * c1 as f64 / per_step).round() as u64;
    let a_cmd = kernel_command(kernel, s, 1)?;
    let b_cmd = kernel_command(kernel, steps_b, 1)?;
    println!(
        "Kernel: {a_cmd} counts {c1} instructions ({per_step:.3} a step); B runs --steps {steps_b} (+{:.3}% instructions by the same slope)\n",
        (steps_b - s) as f64 * per_step / c1 as f64 * 100.0
    );
    Ok(Pair { a_cmd, b_cmd })
}

/// The experiments' rows, and the valgrind slowdowns of the pairs whose wall times were
/// both read.
struct Experiments {
    rows: Vec<Row>,
    slowdowns: Vec<f64>,
}

/// Runs `--reps` A/B and A/A experiments, each counted under valgrind and timed natively.
fn run_experiments(
    abba: &Path,
    dir: &Path,
    args: &CountersArgs,
    pair: &Pair,
    started: Instant,
) -> Result<Experiments> {
    let a_cmd = &pair.a_cmd;
    let mut rows = Vec::new();
    let mut slowdowns = Vec::new();
    for rep in 0..args.reps {
        let seed = args.seed.wrapping_add(u64::from(rep));
        for (kind, b) in [("A/B +0.5%", &pair.b_cmd), ("A/A", a_cmd)] {
            let tag = if kind == "A/A" { "aa" } else { "ab" };
            let counted_args = vec![
                "--metric".into(),
                "instructions".into(),
                "--counter".into(),
                "valgrind".into(),
                "--until".into(),
                "decided".into(),
                "--max-blocks".into(),
                args.blocks.to_string(),
                "--seed".into(),
                seed.to_string(),
                a_cmd.clone(),
                b.clone(),
            ];
            let counted = verdict_of(&compare(
                abba,
                dir,
                &format!("{tag}-{rep}-instructions"),
                &counted_args,
            )?)?;
            let wall_args = vec![
                "--blocks".into(),
                args.blocks.to_string(),
                "--seed".into(),
                seed.to_string(),
                a_cmd.clone(),
                b.clone(),
            ];
            let native = verdict_of(&compare(
                abba,
                dir,
                &format!("{tag}-{rep}-wall"),
                &wall_args,
            )?)?;
            if let (Some(v), Some(n)) = (
                median_wall(&dir.join(format!("{tag}-{rep}-instructions.jsonl"))),
                median_wall(&dir.join(format!("{tag}-{rep}-wall.jsonl"))),
            ) {
                slowdowns.push(v / n);
            }
            eprintln!(
                "{kind} #{rep}: instructions {} in {:?} blocks; wall {} ({:.0} s so far)",
                counted.outcome.as_str(),
                counted.blocks,
                native.outcome.as_str(),
                started.elapsed().as_secs_f64()
            );
            rows.push(Row {
                kind,
                seed,
                counted,
                native,
            });
        }
    }
    Ok(Experiments { rows, slowdowns })
}

/// chains=1 against chains=2 at the same work (2N steps of one chain, N of two):
/// counted, and timed natively at 10x the steps.
fn run_chains(
    abba: &Path,
    dir: &Path,
    kernel: &Path,
    args: &CountersArgs,
) -> Result<(Verdict, Verdict)> {
    let (s, s2) = (args.steps, 2 * args.steps);
    let chains_counted = verdict_of(&compare(
        abba,
        dir,
        "chains-instructions",
        &[
            "--metric".into(),
            "instructions".into(),
            "--counter".into(),
            "valgrind".into(),
            "--blocks".into(),
            "6".into(),
            "--seed".into(),
            args.seed.to_string(),
            kernel_command(kernel, s2, 1)?,
            kernel_command(kernel, s, 2)?,
        ],
    )?)?;
    let chains_wall = verdict_of(&compare(
        abba,
        dir,
        "chains-wall",
        &[
            "--blocks".into(),
            "10".into(),
            "--seed".into(),
            args.seed.to_string(),
            kernel_command(kernel, 10 * s2, 1)?,
            kernel_command(kernel, 10 * s, 2)?,
        ],
    )?)?;
    Ok((chains_counted, chains_wall))
}

/// Runs the experiments and prints the table.
///
/// # Errors
/// When abba cannot be built, valgrind is missing, or an experiment fails.
pub fn run(root: &Path, args: &CountersArgs) -> Result<()> {
    let abba = build_abba(root)?;
    let dir = target_dir(root).join("counters");
    std::fs::create_dir_all(&dir)?;
    let kernel = kernel_binary(&abba, &dir);
    let pair = size_pair(&kernel, &dir, args)?;

    let started = Instant::now();
    let neighbour = Neighbour::start(args.seed)?;
    let mut experiments = run_experiments(&abba, &dir, args, &pair, started)?;
    let stayed = neighbour.stop();
    let chains = run_chains(&abba, &dir, &kernel, args)?;

    let mut out = String::new();
    write_rows(&mut out, args, &experiments.rows);
    write_counts(&mut out, args, &experiments.rows);
    let slowdowns = &mut experiments.slowdowns;
    slowdowns.sort_by(f64::total_cmp);
    if let Some(m) = slowdowns.get(slowdowns.len() / 2) {
        let _ = writeln!(
            out,
            "Valgrind slowdown of the kernel run (median wall under cachegrind / median native wall, A's runs, per experiment pair): median {m:.0}x (range {:.0}x-{:.0}x).",
            slowdowns[0],
            slowdowns[slowdowns.len() - 1]
        );
    }
    let (chains_counted, chains_wall) = chains;
    let _ = writeln!(
        out,
        "chains=1 (--steps {}) vs chains=2 (--steps {}), equal work: instructions {} {}; native wall time (10x the steps) {} {}.",
        2 * args.steps,
        args.steps,
        chains_counted.outcome.as_str(),
        ratio_text(&chains_counted),
        chains_wall.outcome.as_str(),
        ratio_text(&chains_wall)
    );
    let _ = writeln!(
        out,
        "Neighbour: `cargo xtask neighbour --seed {}` for {:.0} s{}.",
        args.seed,
        started.elapsed().as_secs_f64(),
        if stayed {
            ""
        } else {
            " (it exited early: part of the runs had no load)"
        }
    );
    print!("{out}");
    std::fs::write(dir.join("REPORT.md"), &out)?;
    eprintln!("saved: {}", dir.join("REPORT.md").display());
    Ok(())
}

/// The table: one row per experiment.
fn write_rows(out: &mut String, args: &CountersArgs, rows: &[Row]) {
    let _ = writeln!(
        out,
        "| experiment | seed | instructions (valgrind): verdict | blocks | ratio [95% CI] | wall under valgrind, same runs | wall, native {} blocks | native wall ratio [95% CI] |",
        args.blocks
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for r in rows {
        let vw = r
            .counted
            .wall
            .as_ref()
            .map_or("-".to_owned(), |(x, d)| format!("{x:.3}x ({d})"));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {vw} | {} | {} |",
            r.kind,
            r.seed,
            r.counted.outcome.as_str(),
            r.counted.blocks.map_or("-".to_owned(), |b| b.to_string()),
            ratio_text(&r.counted),
            r.native.outcome.as_str(),
            ratio_text(&r.native)
        );
    }
}

/// How often each kind of experiment decided, counted and natively.
fn write_counts(out: &mut String, args: &CountersArgs, rows: &[Row]) {
    let count = |kind: &str, f: &dyn Fn(&Row) -> bool| {
        rows.iter().filter(|r| r.kind == kind && f(r)).count()
    };
    let reps = args.reps;
    let ab = "A/B +0.5%";
    let _ = writeln!(
        out,
        "\nA/B +{}% instructions: instructions SLOWER in {}/{reps} (within {} blocks: {}/{reps}); native wall time SLOWER in {}/{reps}.",
        args.effect_pct,
        count(ab, &|r| r.counted.outcome == Outcome::Slower),
        args.blocks,
        count(ab, &|r| r.counted.outcome == Outcome::Slower
            && r.counted
                .blocks
                .is_some_and(|b| b <= u64::from(args.blocks))),
        count(ab, &|r| r.native.outcome == Outcome::Slower),
    );
    let _ = writeln!(
        out,
        "A/A: instructions FASTER or SLOWER in {}/{reps} (EQUIVALENT {}/{reps}); native wall time FASTER or SLOWER in {}/{reps}.",
        count("A/A", &|r| decided(r.counted.outcome)),
        count("A/A", &|r| r.counted.outcome == Outcome::Equivalent),
        count("A/A", &|r| decided(r.native.outcome)),
    );
}
