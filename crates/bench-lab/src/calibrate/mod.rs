//! `cargo xtask calibrate`: how often `abba compare` says "significant" on this machine,
//! with real child processes, when nothing differs and when a small known difference
//! exists.
//!
//! The workload is fixed work, `abba compute --steps N --chains 1` (default 40,000,000
//! steps, about 48 ms on a quiet 2-core machine), so a busy machine slows it as it slows a
//! real benchmarked command (a fixed-duration run would barely change). Two scenarios, each
//! repeated `--reps` times with a fresh seed (`--seed + rep`):
//!
//! - **A/A**: the command compared with itself. Every "significant" verdict is a false
//!   positive, so the rate estimates the false-positive rate (size) of the test.
//! - **A/B**: the command against one doing `--effect-pct` percent more steps (default 2).
//!   A "significant" verdict with outcome `slower` is a detection; significant-but-`faster`
//!   is counted apart as a wrong-direction call.
//!
//! Without `--noise`, each scenario runs through `abba compare` twice per repetition: with
//! the default design (ABBA blocks, paired) and with `--design sequential` (all of A, then
//! all of B: unpaired), both with the same number of measured runs (checked on
//! bench-sched's schedule, which `--dry-run` prints, and again on the runs each analysis
//! JSON counts). Each saved raw file is then re-analyzed with `abba analyze
//! --min-practical-effect 0`, which shows what the practical-effect gate costs in power.
//!
//! With `--noise` ([`noise`]), a seeded noisy neighbour (`cargo xtask neighbour`) loads the
//! machine for the whole run, and the table puts abba's default beside what a sequential
//! tool would conclude from the same number of runs: `--design sequential` runs analysed
//! with Welch's t and Mann-Whitney, and hyperfine itself when it is installed.
//!
//! Rates carry Wilson score intervals (Wilson 1927), the Monte-Carlo error of a finite
//! number of repetitions. The table goes to stdout and to `target/calibrate/REPORT.md`;
//! every raw run file and analysis JSON stays under `target/calibrate/` so any row can be
//! re-analyzed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use bench_sched::{ReferenceRuns, Schedule};
use bench_stats::{ANALYSIS_SCHEMA, Analysis, Outcome, Verdict, Warning, WarningCode};

use crate::run::stdout_of;
use crate::table::{Align, TextTable};

mod noise;

pub(crate) use noise::Neighbour;
mod rates;
mod side;

use rates::{Rate, Z95, quantile, rate_text, sorted_finite, wilson};

/// Flags of `calibrate`.
#[derive(clap::Args, Debug)]
pub struct CalibrateArgs {
    /// Repetitions of every (scenario, design) cell; each uses the seed `--seed + rep`.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub reps: u32,
    /// ABBA blocks per comparison (4 runs each, so 30 blocks = 120 runs); the sequential
    /// design gets as many runs.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub blocks: u32,
    /// Base seed of run orders, layout padding and bootstrap (and of the neighbour's
    /// schedule with `--noise`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Steps per chain of the A command (`abba compute --steps`): fixed work, about
    /// 48 ms at the default on a quiet 2-core machine.
    #[arg(long, default_value_t = 40_000_000, value_parser = clap::value_parser!(u64).range(1_000..=1_000_000_000_000))]
    pub steps: u64,
    /// The known difference of the A/B scenario: B does this many percent more steps.
    #[arg(long, default_value_t = 2.0, value_parser = parse_effect_pct)]
    pub effect_pct: f64,
    /// Run a seeded noisy neighbour (`cargo xtask neighbour`) for the whole calibration and
    /// print abba's default beside sequential runs with Welch's t and Mann-Whitney, and
    /// beside hyperfine when it is on PATH.
    #[arg(long)]
    pub noise: bool,
    /// Measure with this `abba` binary instead of building the workspace's in release mode.
    #[arg(long, value_name = "PATH")]
    pub abba: Option<PathBuf>,
}

fn parse_effect_pct(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1000.0 => Ok(v),
        _ => Err(format!("`{text}` is not a percentage in (0, 1000]")),
    }
}

impl CalibrateArgs {
    /// Steps of the B command: `--steps` raised by `--effect-pct`, rounded.
    fn steps_b(&self) -> u64 {
        (self.steps as f64 * (1.0 + self.effect_pct / 100.0)).round() as u64
    }

    /// The command line that reproduces this run.
    fn command_line(&self) -> String {
        format!(
            "cargo xtask calibrate{} --reps {} --blocks {} --seed {} --steps {} --effect-pct {}",
            if self.noise { " --noise" } else { "" },
            self.reps,
            self.blocks,
            self.seed,
            self.steps,
            self.effect_pct
        )
    }
}

/// What every calibration needs before it measures: the binary, the output directory,
/// the two commands, and the number of measured runs per experiment.
#[derive(Debug, Clone)]
struct Setup {
    abba: PathBuf,
    out_dir: PathBuf,
    /// The A and the B command lines.
    cmds: [String; 2],
    /// Measured runs per experiment (the same for every design).
    runs: u32,
}

/// Runs the calibration and prints (and saves) the table.
///
/// Cost: `4 * reps` real experiments of `4 * blocks` runs each, plus `4 * reps` cheap
/// re-analyses; about 30 s per repetition with the defaults on a 2-core machine (with
/// `--noise` also `2 * reps` hyperfine runs, and everything is slower under the load).
///
/// # Errors
/// When abba cannot be built or started, a benchmarked command fails, the two designs
/// would make different numbers of runs, or abba's JSON lacks a field this reads.
pub fn run(root: &Path, args: &CalibrateArgs) -> Result<()> {
    let abba = match &args.abba {
        Some(path) => {
            ensure!(path.is_file(), "{} is not a file", path.display());
            path.clone()
        }
        None => crate::run::build_abba(root)?,
    };
    let out_dir = root.join("target").join("calibrate");
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;

    let cmd_a = compute_command(&abba, args.steps)?;
    let cmd_b = compute_command(&abba, args.steps_b())?;
    let designs = [Design::Abba, Design::Sequential];
    let runs = matched_runs(args.blocks, &designs)?;
    if args.noise {
        let setup = Setup {
            abba,
            out_dir,
            cmds: [cmd_a, cmd_b],
            runs,
        };
        return noise::run(&setup, args);
    }

    let load_start = load_average();
    let started = Instant::now();
    let cells = run_cells(&abba, &out_dir, args, [&cmd_a, &cmd_b], &designs)?;
    let elapsed = started.elapsed().as_secs_f64();
    let load_end = load_average();

    let table = render_table(&cells, runs);
    let facts = render_facts(&cells, args, runs);
    let command = args.command_line();
    println!("{table}\n{facts}");
    println!(
        "{} experiments in {elapsed:.0} s ({:.1} min)",
        4 * args.reps,
        elapsed / 60.0
    );

    let runtime = Runtime {
        elapsed,
        load_start,
        load_end,
    };
    let report = report(args, &command, runs, &runtime, &format!("{table}\n{facts}"))?;
    write_report(&out_dir, &format!("{report}{LEGEND}\n"))
}

/// Writes `OUT_DIR/REPORT.md` and says so.
///
/// # Errors
/// When the file cannot be written.
fn write_report(out_dir: &Path, text: &str) -> Result<()> {
    let path = out_dir.join("REPORT.md");
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("wrote {} (raw runs and analyses beside it)", path.display());
    Ok(())
}

/// Runs every (scenario, design) cell `--reps` times, repetition `rep` with seed
/// `--seed + rep`, and returns the cells with their observations.
///
/// # Errors
/// When an experiment fails (see [`experiment`]).
fn run_cells(
    abba: &Path,
    out_dir: &Path,
    args: &CalibrateArgs,
    [cmd_a, cmd_b]: [&str; 2],
    designs: &[Design],
) -> Result<Vec<Cell>> {
    let mut cells: Vec<Cell> = Vec::new();
    for scenario in [Scenario::Null, Scenario::Shift] {
        for &design in designs {
            cells.push(Cell::new(scenario, design));
        }
    }
    for rep in 0..args.reps {
        let seed = args.seed.wrapping_add(u64::from(rep));
        // Rotate the order of the four experiments so slow drift of the machine does not
        // always fall on the same cell.
        let order: Vec<usize> = (0..cells.len())
            .map(|i| (i + rep as usize) % cells.len())
            .collect();
        for i in order {
            let cell = &mut cells[i];
            let cand = match cell.scenario {
                Scenario::Null => cmd_a,
                Scenario::Shift => cmd_b,
            };
            let stem = format!("{}-{}-seed{seed}", cell.scenario.slug(), cell.design.flag());
            let t0 = Instant::now();
            let obs = experiment(
                abba,
                out_dir,
                &stem,
                [cmd_a, cand],
                cell.design,
                cell.design.blocks(args.blocks),
                seed,
            )?;
            eprintln!(
                "rep {}/{} {} {}: {} (gate off: {}; cpu: {}), ratio {} ({:.1} s)",
                rep + 1,
                args.reps,
                cell.scenario.label(),
                cell.design.flag(),
                obs.default.call.text(),
                obs.gate_off.text(),
                obs.cpu.text(),
                obs.default
                    .ratio
                    .map_or("-".to_owned(), |r| format!("{r:.4}")),
                t0.elapsed().as_secs_f64()
            );
            cell.push(obs);
        }
    }
    Ok(cells)
}

/// When and under what load the experiments ran.
#[derive(Debug, Clone, Copy)]
struct Runtime {
    /// Seconds from the first experiment to the last.
    elapsed: f64,
    /// 1-minute load average before the first experiment.
    load_start: Option<f64>,
    /// 1-minute load average after the last.
    load_end: Option<f64>,
}

/// `REPORT.md` without its legend: the command, the settings and the machine, and `body`
/// (table and facts).
///
/// # Errors
/// When the report's command lines cannot be written.
fn report(
    args: &CalibrateArgs,
    command: &str,
    runs: u32,
    runtime: &Runtime,
    body: &str,
) -> Result<String> {
    let Runtime {
        elapsed,
        load_start,
        load_end,
    } = *runtime;
    let mut report = String::new();
    let _ = writeln!(report, "# abba calibration\n");
    let _ = writeln!(report, "Command: `{command}`\n");
    let _ = writeln!(
        report,
        "A = `{}`, B = `{}`; {} repetitions of each cell, {runs} measured runs per experiment, \
         seeds {}..={}. Runtime {elapsed:.0} s. Cores: {}; 1-minute load {} at the start, {} at the end.\n",
        compute_command(Path::new("abba"), args.steps)?,
        compute_command(Path::new("abba"), args.steps_b())?,
        args.reps,
        args.seed,
        args.seed.wrapping_add(u64::from(args.reps) - 1),
        std::thread::available_parallelism().map_or(0, usize::from),
        load_start.map_or("?".to_owned(), |l| format!("{l:.2}")),
        load_end.map_or("?".to_owned(), |l| format!("{l:.2}")),
    );
    let _ = writeln!(report, "{body}");
    Ok(report)
}

const LEGEND: &str = "\
Rate: the share of repetitions called significant (A/A: in either direction, the \
false-positive rate; A/B: significant and slower, the detection rate), with its Wilson \
95% interval. slower/faster: significant calls by direction. Gate off: the same raw runs \
re-analyzed with `--min-practical-effect 0`. Gated: significant calls the practical-effect \
gate turned into not significant. --metric cpu: the same raw runs re-decided on their CPU time (user + sys). Ratio: B/A as reported (median of block log-ratios when \
paired, ratio of medians when not); IQR over the repetitions. CI width: mean width of the \
95% ratio interval, in percent.";

/// Which pair of commands is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    /// The command against itself: no true difference.
    Null,
    /// The command against one doing `--effect-pct` percent more steps.
    Shift,
}

impl Scenario {
    fn slug(self) -> &'static str {
        match self {
            Scenario::Null => "aa",
            Scenario::Shift => "ab",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Scenario::Null => "A/A",
            Scenario::Shift => "A/B",
        }
    }
}

/// The run order `abba compare` is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Design {
    /// abba's default: ABBA/BAAB blocks, 4 runs per block for two variants.
    Abba,
    /// All of A, then all of B: 2 runs per "block" for two variants.
    Sequential,
}

impl Design {
    fn flag(self) -> &'static str {
        match self {
            Design::Abba => "abba",
            Design::Sequential => "sequential",
        }
    }

    /// The design as bench-sched plans it.
    fn sched(self) -> bench_sched::Design {
        match self {
            Design::Abba => bench_sched::Design::Abba,
            Design::Sequential => bench_sched::Design::Sequential,
        }
    }

    /// The `--blocks` that gives this design as many runs as `abba_blocks` ABBA blocks.
    fn blocks(self, abba_blocks: u32) -> u32 {
        match self {
            Design::Abba => abba_blocks,
            Design::Sequential => abba_blocks.saturating_mul(2),
        }
    }
}

/// What one comparison concluded, direction included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    /// Significant, candidate slower.
    Slower,
    /// Significant, candidate faster.
    Faster,
    /// Significant, but the point ratio is exactly 1 (no direction).
    Undirected,
    /// Not significant.
    NotSignificant,
    /// No test was possible.
    NotTested,
}

impl Call {
    fn text(self) -> &'static str {
        match self {
            Call::Slower => "significant slower",
            Call::Faster => "significant faster",
            Call::Undirected => "significant (no direction)",
            Call::NotSignificant => "not significant",
            Call::NotTested => "not tested",
        }
    }
}

/// The fields this task reads from one `abba.analysis/1` document (first group, first
/// comparison).
#[derive(Debug, Clone, PartialEq)]
struct Reading {
    call: Call,
    ratio: Option<f64>,
    ratio_ci: Option<[f64; 2]>,
    /// The practical-effect gate downgraded a significant test result.
    gated: bool,
    /// Per-run coefficient of variation of the baseline (stddev / mean).
    baseline_cv: Option<f64>,
    /// Means of baseline and candidate.
    means: Option<[f64; 2]>,
    /// Medians of baseline and candidate.
    medians: Option<[f64; 2]>,
    /// Two-sided p of the Mann-Whitney U test on the pooled runs, as the analysis reports it.
    mann_whitney_p: Option<f64>,
    /// The analysis' significance level.
    alpha: f64,
    /// What decided the verdict (`verdict_basis`, e.g. `paired-signed-rank:hl-log-ratio`).
    basis: String,
    /// Runs the analysis counted over both variants (`benchmarks[].n`).
    runs: usize,
}

/// Whether `warning` says the practical-effect gate downgraded `candidate`'s result (a
/// warning without a benchmark concerns every comparison).
fn gated(warning: &Warning, candidate: &str) -> bool {
    warning.code == WarningCode::PracticalGate
        && warning
            .benchmark
            .as_deref()
            .is_none_or(|name| name == candidate)
}

/// Reads analysis JSON text as the `abba.analysis/1` model and takes its [`Reading`].
fn parse_analysis(text: &str) -> Result<Reading> {
    let analysis: Analysis =
        serde_json::from_str(text).context("analysis output is not an abba.analysis/1 document")?;
    ensure!(
        analysis.schema == ANALYSIS_SCHEMA,
        "unexpected analysis schema {}",
        analysis.schema
    );
    reading(&analysis)
}

/// The [`Reading`] of the first comparison of the first group.
fn reading(analysis: &Analysis) -> Result<Reading> {
    let group = analysis
        .groups
        .first()
        .context("the analysis has no group")?;
    let cmp = group
        .comparisons
        .first()
        .context("groups[0] has no comparison")?;
    let call = match (cmp.verdict, cmp.outcome) {
        (Verdict::Significant, Outcome::Slower) => Call::Slower,
        (Verdict::Significant, Outcome::Faster) => Call::Faster,
        (Verdict::Significant, _) => Call::Undirected,
        (Verdict::NotSignificant, _) => Call::NotSignificant,
        // Not tested, and any verdict a later version adds.
        _ => Call::NotTested,
    };
    let summary = |name: &str| group.benchmarks.iter().find(|b| b.name == name);
    let base = summary(&group.baseline);
    let cand = summary(&cmp.candidate);
    let baseline_cv = base.and_then(|b| {
        let sd = b.stddev?;
        (b.mean > 0.0).then(|| sd / b.mean)
    });
    Ok(Reading {
        call,
        ratio: cmp.ratio,
        ratio_ci: cmp.ratio_ci,
        gated: analysis.warnings.iter().any(|w| gated(w, &cmp.candidate)),
        baseline_cv,
        means: base.zip(cand).map(|(a, b)| [a.mean, b.mean]),
        medians: base.zip(cand).map(|(a, b)| [a.median, b.median]),
        mann_whitney_p: cmp.mann_whitney.as_ref().map(|m| m.p_value),
        alpha: analysis.alpha,
        basis: cmp.verdict_basis.to_string(),
        runs: group.benchmarks.iter().map(|b| b.n).sum(),
    })
}

/// One experiment: the default analysis, and the re-analyses of its raw runs with the gate
/// off and on CPU time (user + sys, `--metric cpu`, issue 36).
#[derive(Debug, Clone, PartialEq)]
struct Observation {
    default: Reading,
    gate_off: Call,
    cpu: Call,
}

/// Counts of calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    slower: u32,
    faster: u32,
    undirected: u32,
    not_significant: u32,
    not_tested: u32,
}

impl Tally {
    fn add(&mut self, call: Call) {
        match call {
            Call::Slower => self.slower += 1,
            Call::Faster => self.faster += 1,
            Call::Undirected => self.undirected += 1,
            Call::NotSignificant => self.not_significant += 1,
            Call::NotTested => self.not_tested += 1,
        }
    }

    fn total(&self) -> u32 {
        self.slower + self.faster + self.undirected + self.not_significant + self.not_tested
    }

    /// Calls that count toward `scenario`'s rate.
    fn hits(&self, scenario: Scenario) -> u32 {
        match scenario {
            Scenario::Null => self.slower + self.faster + self.undirected,
            Scenario::Shift => self.slower,
        }
    }
}

/// All repetitions of one (scenario, design) pair.
#[derive(Debug, Clone)]
struct Cell {
    scenario: Scenario,
    design: Design,
    observations: Vec<Observation>,
}

/// What the table shows of a [`Cell`].
#[derive(Debug, Clone, PartialEq)]
struct CellSummary {
    default: Tally,
    gate_off: Tally,
    cpu: Tally,
    gated: u32,
    rate: Option<Rate>,
    rate_gate_off: Option<Rate>,
    rate_cpu: Option<Rate>,
    median_ratio: Option<f64>,
    ratio_iqr: Option<[f64; 2]>,
    /// Mean width of the ratio interval.
    mean_ci_width: Option<f64>,
}

impl Cell {
    fn new(scenario: Scenario, design: Design) -> Self {
        Cell {
            scenario,
            design,
            observations: Vec::new(),
        }
    }

    fn push(&mut self, obs: Observation) {
        self.observations.push(obs);
    }

    fn summary(&self) -> CellSummary {
        let mut default = Tally::default();
        let mut gate_off = Tally::default();
        let mut cpu = Tally::default();
        for o in &self.observations {
            default.add(o.default.call);
            gate_off.add(o.gate_off);
            cpu.add(o.cpu);
        }
        let ratios = sorted_finite(self.observations.iter().filter_map(|o| o.default.ratio));
        let widths = sorted_finite(
            self.observations
                .iter()
                .filter_map(|o| o.default.ratio_ci.map(|[lo, hi]| hi - lo)),
        );
        let mean_ci_width =
            (!widths.is_empty()).then(|| widths.iter().sum::<f64>() / widths.len() as f64);
        CellSummary {
            default,
            gate_off,
            cpu,
            gated: self.observations.iter().filter(|o| o.default.gated).count() as u32,
            rate: wilson(default.hits(self.scenario), default.total(), Z95),
            rate_gate_off: wilson(gate_off.hits(self.scenario), gate_off.total(), Z95),
            rate_cpu: wilson(cpu.hits(self.scenario), cpu.total(), Z95),
            median_ratio: quantile(&ratios, 0.5),
            ratio_iqr: quantile(&ratios, 0.25)
                .zip(quantile(&ratios, 0.75))
                .map(|(a, b)| [a, b]),
            mean_ci_width,
        }
    }
}

/// The side-by-side table, as GitHub Markdown (also readable on a terminal).
fn render_table(cells: &[Cell], runs: u32) -> String {
    let header = [
        "scenario",
        "design",
        "runs",
        "rate [95% CI]",
        "slower/faster",
        "gate off: rate [95% CI]",
        "gated",
        "--metric cpu: rate [95% CI]",
        "cpu slower/faster",
        "median ratio",
        "ratio IQR",
        "CI width",
    ];
    let mut table = TextTable::new(header);
    table.align = vec![Align::Left; header.len()];
    for cell in cells {
        let s = cell.summary();
        table.row([
            match cell.scenario {
                Scenario::Null => "A/A (false positives)".to_owned(),
                Scenario::Shift => "A/B (detections)".to_owned(),
            },
            cell.design.flag().to_owned(),
            runs.to_string(),
            rate_text(s.rate),
            format!("{}/{}", s.default.slower, s.default.faster),
            rate_text(s.rate_gate_off),
            s.gated.to_string(),
            rate_text(s.rate_cpu),
            format!("{}/{}", s.cpu.slower, s.cpu.faster),
            s.median_ratio.map_or("-".to_owned(), |r| format!("{r:.4}")),
            s.ratio_iqr
                .map_or("-".to_owned(), |[a, b]| format!("{a:.4}-{b:.4}")),
            s.mean_ci_width
                .map_or("-".to_owned(), |w| format!("{:.1}%", 100.0 * w)),
        ]);
    }
    table.markdown_padded()
}

/// The noise and the realized effect, measured from the experiments themselves.
fn render_facts(cells: &[Cell], args: &CalibrateArgs, runs: u32) -> String {
    let cvs = sorted_finite(
        cells
            .iter()
            .flat_map(|c| &c.observations)
            .filter_map(|o| o.default.baseline_cv),
    );
    let shifts = sorted_finite(
        cells
            .iter()
            .filter(|c| c.scenario == Scenario::Shift)
            .flat_map(|c| &c.observations)
            .filter_map(|o| o.default.means.map(|[a, b]| b / a)),
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Known difference: B does {}% more steps than A's {}; mean(B)/mean(A) over the A/B \
         experiments: median {}.",
        args.effect_pct,
        args.steps,
        quantile(&shifts, 0.5).map_or("-".to_owned(), |r| format!("{r:.4}"))
    );
    let _ = writeln!(
        out,
        "Noise: per-run SD of A as a share of its mean, median over all experiments {} \
         (range {}-{}); {runs} runs per experiment.",
        quantile(&cvs, 0.5).map_or("-".to_owned(), |c| format!("{:.1}%", 100.0 * c)),
        quantile(&cvs, 0.0).map_or("-".to_owned(), |c| format!("{:.1}%", 100.0 * c)),
        quantile(&cvs, 1.0).map_or("-".to_owned(), |c| format!("{:.1}%", 100.0 * c)),
    );
    out
}

/// `abba compute --steps STEPS --chains 1` as a command line for `abba compare`
/// ([`crate::run::compute_command`] quotes the path).
fn compute_command(abba: &Path, steps: u64) -> Result<String> {
    let args = [
        "--steps".to_owned(),
        steps.to_string(),
        "--chains".to_owned(),
        "1".to_owned(),
    ];
    crate::run::compute_command(abba, &args)
}

/// The number of measured runs of every design, from the schedule `abba compare` runs
/// (bench-sched's plan, as `--dry-run` prints it), checked equal across designs.
fn matched_runs(blocks: u32, designs: &[Design]) -> Result<u32> {
    let counts: Vec<(Design, u32)> = designs
        .iter()
        .map(|&d| {
            let plan = Schedule::plan(d.sched(), 2, d.blocks(blocks), 1, ReferenceRuns::None);
            (d, plan.runs.len() as u32)
        })
        .collect();
    let first = counts.first().map_or(0, |c| c.1);
    if counts.iter().any(|c| c.1 != first) {
        let list: Vec<String> = counts
            .iter()
            .map(|(d, n)| format!("{}: {n}", d.flag()))
            .collect();
        bail!(
            "the designs would make different numbers of runs ({})",
            list.join(", ")
        );
    }
    Ok(first)
}

/// Runs one `abba compare`, saves its raw runs and analysis under `dir/STEM.*`, and
/// re-analyzes the raw runs with the practical gate off.
fn experiment(
    abba: &Path,
    dir: &Path,
    stem: &str,
    cmds: [&str; 2],
    design: Design,
    blocks: u32,
    seed: u64,
) -> Result<Observation> {
    let raw = dir.join(format!("{stem}.jsonl"));
    let out = stdout_of(
        Command::new(abba)
            .args([
                "compare", "--json", "--quiet", "--force", "-n", "A", "-n", "B",
            ])
            .args(["--design", design.flag()])
            .args(["--blocks", &blocks.to_string()])
            .args(["--seed", &seed.to_string()])
            .arg("--output")
            .arg(&raw)
            .args(cmds),
        &format!("abba compare ({stem})"),
    )?;
    let text = String::from_utf8(out).context("abba compare printed non-UTF-8")?;
    let json_path = dir.join(format!("{stem}.json"));
    std::fs::write(&json_path, &text)
        .with_context(|| format!("writing {}", json_path.display()))?;
    let default = parse_analysis(&text).with_context(|| format!("reading {stem}'s analysis"))?;
    let planned = Schedule::plan(design.sched(), 2, blocks, seed, ReferenceRuns::None);
    ensure!(
        default.runs == planned.runs.len(),
        "{stem}: the analysis counts {} runs, the {} schedule plans {}",
        default.runs,
        design.flag(),
        planned.runs.len()
    );

    let gate_off = reanalyse(abba, &raw, &["--min-practical-effect", "0"])?.call;
    let cpu = reanalyse(abba, &raw, &["--metric", "cpu"])?.call;
    Ok(Observation {
        default,
        gate_off,
        cpu,
    })
}

/// `abba analyze --json --quiet EXTRA RAW`, read as a [`Reading`].
fn reanalyse(abba: &Path, raw: &Path, extra: &[&str]) -> Result<Reading> {
    let out = stdout_of(
        Command::new(abba)
            .args(["analyze", "--json", "--quiet"])
            .args(extra)
            .arg(raw),
        &format!("abba analyze {} {}", extra.join(" "), raw.display()),
    )?;
    parse_analysis(&String::from_utf8_lossy(&out)).with_context(|| {
        format!(
            "reading the analysis of {} with {}",
            raw.display(),
            extra.join(" ")
        )
    })
}

/// The 1-minute load average, where the system reports one.
fn load_average() -> Option<f64> {
    bench_sched::load_average().map(|l| l[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    use bench_stats::model::{BenchmarkSummary, OutlierCounts};
    use bench_stats::{Comparison, GroupAnalysis, Grouping, VerdictBasis};

    fn summary(name: &str, mean: f64, stddev: f64) -> BenchmarkSummary {
        BenchmarkSummary {
            name: name.into(),
            class: None,
            n: 60,
            mean,
            median: mean,
            stddev: Some(stddev),
            mad: stddev,
            min: mean - stddev,
            max: mean + stddev,
            p50: mean,
            p90: mean + stddev,
            p99: None,
            outliers: OutlierCounts::default(),
            user_mean: None,
            sys_mean: None,
        }
    }

    /// One A/B analysis as `abba compare --json` prints it.
    fn analysis(verdict: Verdict, outcome: Outcome, gate_warning: bool) -> String {
        let warning = if gate_warning {
            Warning::new(WarningCode::PracticalGate, Some("B"), "below the minimum")
        } else {
            Warning::new(WarningCode::P99Withheld, Some("A"), "n < 100")
        };
        let analysis = Analysis {
            schema: ANALYSIS_SCHEMA.into(),
            alpha: 0.05,
            confidence: 0.95,
            resamples: 2000,
            seed: 1,
            unit: "ns".into(),
            higher_is_better: false,
            quantity: None,
            min_practical_effect: 0.01,
            equivalence_margin: 0.01,
            practical: "auto".into(),
            design: Some(bench_stats::Design::Abba),
            paired_estimator: None,
            grouping: Grouping::PerClass,
            groups: vec![GroupAnalysis {
                class: None,
                baseline: "A".into(),
                benchmarks: vec![summary("A", 50.0, 12.0), summary("B", 51.0, 11.0)],
                omnibus: None,
                comparisons: vec![Comparison {
                    candidate: "B".into(),
                    verdict,
                    verdict_basis: VerdictBasis::MannWhitney,
                    outcome,
                    summary: String::new(),
                    ratio: Some(1.02),
                    ratio_ci: Some([1.005, 1.035]),
                    decision: None,
                    mann_whitney: Some(bench_stats::model::MannWhitneyReport {
                        u: 1234.0,
                        p_value: 0.012,
                        method: "asymptotic".into(),
                    }),
                    p_value_adjusted: None,
                    cliffs_delta: None,
                    hodges_lehmann: None,
                    paired: None,
                    reference: None,
                    carryover: None,
                    custom_test: None,
                    sequential: None,
                    distribution: None,
                    interval_distribution: None,
                }],
                trend: None,
            }],
            controls: vec![],
            warnings: vec![warning],
            confirmation: None,
            levels: None,
            metrics: None,
            noise: None,
            native_time: None,
        };
        serde_json::to_string_pretty(&analysis).unwrap()
    }

    #[test]
    fn analysis_fields_are_extracted() {
        let r = parse_analysis(&analysis(Verdict::Significant, Outcome::Slower, false)).unwrap();
        assert_eq!(r.call, Call::Slower);
        assert_eq!(r.ratio, Some(1.02));
        assert_eq!(r.ratio_ci, Some([1.005, 1.035]));
        assert!(!r.gated);
        assert_eq!(r.baseline_cv, Some(12.0 / 50.0));
        assert_eq!(r.means, Some([50.0, 51.0]));
        assert_eq!(r.medians, Some([50.0, 51.0]));
        assert_eq!(r.mann_whitney_p, Some(0.012));
        assert_eq!((r.alpha, r.basis.as_str()), (0.05, "mann-whitney"));
        assert_eq!(r.runs, 120);
    }

    #[test]
    fn verdicts_map_to_calls_and_the_gate_warning_is_seen() {
        use Outcome::{Equivalent, Faster, Inconclusive};
        use Verdict::{NotSignificant, NotTested, Significant};
        let cases = [
            (Significant, Faster, false, Call::Faster, false),
            (Significant, Inconclusive, false, Call::Undirected, false),
            (
                NotSignificant,
                Inconclusive,
                true,
                Call::NotSignificant,
                true,
            ),
            (
                NotSignificant,
                Equivalent,
                false,
                Call::NotSignificant,
                false,
            ),
            (NotTested, Inconclusive, false, Call::NotTested, false),
        ];
        for (verdict, outcome, gate, call, gated) in cases {
            let r = parse_analysis(&analysis(verdict, outcome, gate)).unwrap();
            assert_eq!((r.call, r.gated), (call, gated), "{verdict:?}/{outcome:?}");
        }
    }

    #[test]
    fn malformed_analysis_is_an_error() {
        let good = analysis(Verdict::Significant, Outcome::Slower, false);
        assert!(parse_analysis("not json").is_err());
        assert!(parse_analysis(r#"{"schema": "other/1"}"#).is_err());
        let other_schema = good.replace(ANALYSIS_SCHEMA, "abba.analysis/2");
        assert!(parse_analysis(&other_schema).is_err());
        let unknown_verdict = good.replace(r#""significant""#, r#""maybe""#);
        assert!(parse_analysis(&unknown_verdict).is_err());
        let no_ci = good
            .replace(r#""ratio": 1.02"#, r#""ratio": null"#)
            .replace(
                r#""ratio_ci": [
            1.005,
            1.035
          ]"#,
                r#""ratio_ci": null"#,
            );
        let r = parse_analysis(&no_ci).unwrap();
        assert_eq!((r.ratio, r.ratio_ci), (None, None));
    }

    #[test]
    fn wilson_matches_r_prop_test() {
        // R: prop.test(3, 10, correct = FALSE)$conf.int = 0.1077913 0.6032219
        let r = wilson(3, 10, Z95).unwrap();
        assert!((r.low - 0.107_791_3).abs() < 1e-6, "{}", r.low);
        assert!((r.high - 0.603_221_9).abs() < 1e-6, "{}", r.high);
        // R: prop.test(0, 20, correct = FALSE)$conf.int = 0.0000000 0.1611252
        let r = wilson(0, 20, Z95).unwrap();
        assert_eq!(r.low, 0.0);
        assert!((r.high - 0.161_125_2).abs() < 1e-6, "{}", r.high);
        // Symmetry: k of n and n-k of n mirror around one half.
        let (a, b) = (wilson(7, 40, Z95).unwrap(), wilson(33, 40, Z95).unwrap());
        assert!((a.low - (1.0 - b.high)).abs() < 1e-12);
        assert!(wilson(0, 0, Z95).is_none());
        assert!(wilson(5, 4, Z95).is_none());
    }

    #[test]
    fn tally_counts_by_scenario() {
        let mut t = Tally::default();
        for call in [
            Call::Slower,
            Call::Slower,
            Call::Faster,
            Call::Undirected,
            Call::NotSignificant,
            Call::NotTested,
        ] {
            t.add(call);
        }
        assert_eq!(t.total(), 6);
        assert_eq!(t.hits(Scenario::Null), 4);
        assert_eq!(t.hits(Scenario::Shift), 2);
    }

    fn reading(call: Call, ratio: f64, width: f64, gated: bool) -> Reading {
        Reading {
            call,
            ratio: Some(ratio),
            ratio_ci: Some([ratio - width / 2.0, ratio + width / 2.0]),
            gated,
            baseline_cv: Some(0.2),
            means: Some([1.0, ratio]),
            medians: Some([1.0, ratio]),
            mann_whitney_p: None,
            alpha: 0.05,
            basis: "mann-whitney".into(),
            runs: 120,
        }
    }

    #[test]
    fn cell_summary_tallies_both_analyses() {
        let mut cell = Cell::new(Scenario::Shift, Design::Abba);
        let (slower, faster, no) = (Call::Slower, Call::Faster, Call::NotSignificant);
        let obs = [
            (slower, slower, slower, 1.03, 0.02, false),
            (no, slower, slower, 1.01, 0.04, true),
            (no, no, slower, 1.00, 0.06, false),
            (faster, faster, no, 0.98, 0.04, false),
        ];
        for (call, off, cpu, ratio, width, gated) in obs {
            cell.push(Observation {
                default: reading(call, ratio, width, gated),
                gate_off: off,
                cpu,
            });
        }
        let s = cell.summary();
        assert_eq!(s.rate.map(|r| (r.hits, r.n)), Some((1, 4)));
        assert_eq!(s.rate_gate_off.map(|r| (r.hits, r.n)), Some((2, 4)));
        assert_eq!(s.rate_cpu.map(|r| (r.hits, r.n)), Some((3, 4)));
        assert_eq!((s.cpu.slower, s.cpu.faster), (3, 0));
        assert_eq!(s.gated, 1);
        assert_eq!((s.default.slower, s.default.faster), (1, 1));
        // Ratios sorted 0.98, 1.00, 1.01, 1.03: median 1.005, type-7 quartiles 0.995, 1.015.
        assert!((s.median_ratio.unwrap() - 1.005).abs() < 1e-12);
        let [q1, q3] = s.ratio_iqr.unwrap();
        assert!((q1 - 0.995).abs() < 1e-12 && (q3 - 1.015).abs() < 1e-12);
        assert!((s.mean_ci_width.unwrap() - 0.04).abs() < 1e-12);

        let table = render_table(&[cell], 120);
        assert!(table.contains("| A/B (detections) | abba"), "{table}");
        assert!(table.contains("1/4 = 25%"), "{table}");
        assert!(table.contains("2/4 = 50%"), "{table}");
        assert!(table.contains("3/4 = 75%"), "{table}");
    }

    #[test]
    fn report_names_the_commands_seeds_and_load() {
        let args = CalibrateArgs {
            reps: 3,
            blocks: 30,
            seed: 5,
            steps: 40_000_000,
            effect_pct: 2.0,
            noise: false,
            abba: None,
        };
        let runtime = Runtime {
            elapsed: 61.0,
            load_start: Some(0.5),
            load_end: None,
        };
        let text = report(&args, "cargo xtask calibrate", 120, &runtime, "TABLE").unwrap();
        assert!(text.starts_with("# abba calibration\n\nCommand: `cargo xtask calibrate`\n"));
        assert!(
            text.contains(
                "A = `abba compute --steps 40000000 --chains 1`, \
                 B = `abba compute --steps 40800000 --chains 1`; 3 repetitions"
            ),
            "{text}"
        );
        assert!(text.contains("seeds 5..=7. Runtime 61 s."), "{text}");
        assert!(
            text.contains("load 0.50 at the start, ? at the end.\n\nTABLE\n"),
            "{text}"
        );
    }

    #[test]
    fn both_designs_plan_the_same_runs() {
        // Two variants: an ABBA block is 4 runs, a sequential repetition 2.
        assert_eq!(
            matched_runs(30, &[Design::Abba, Design::Sequential]).unwrap(),
            120
        );
    }

    #[test]
    fn sequential_gets_the_runs_of_abba() {
        // Two variants: an ABBA block is 4 runs, a sequential repetition 2.
        assert_eq!(
            4 * Design::Abba.blocks(30),
            2 * Design::Sequential.blocks(30)
        );
    }

    #[test]
    fn commands_are_quoted_only_when_needed() {
        assert_eq!(
            compute_command(Path::new("/t/release/abba"), 40_800_000).unwrap(),
            "/t/release/abba compute --steps 40800000 --chains 1"
        );
        assert_eq!(
            compute_command(Path::new("/a b/it's"), 7).unwrap(),
            r"'/a b/it'\''s' compute --steps 7 --chains 1"
        );
    }
}
