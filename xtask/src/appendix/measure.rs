//! The measuring of `reproduce-appendix`: the four experiments (real effect, null pair,
//! two unpaired sessions) run as `abba compute` child processes, analysed like the
//! appendix's tables, and reported.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bench_kernel::Op;
use bench_sched::Design;

use super::NULL_SIMULATIONS;
use super::fixture::{Fixture, PairedTable};
use super::report::Report;
use super::stats::{PairedStats, Side, UnpairedStats, null_exclusion_rate};
use crate::run::{BlockTable, KernelSpec, Plan, build_abba, run_plan, target_dir};

/// Settings of `cargo xtask reproduce-appendix`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReproduceConfig {
    /// Blocks of each paired experiment and runs of each unpaired session (default 12).
    pub blocks: u32,
    /// Seed of run orders, layout padding and bootstraps (default 1).
    pub seed: u64,
    /// Seconds per kernel run (default 0.3).
    pub duration: f64,
    /// Console report or one JSON object.
    pub output: OutputFormat,
}

impl Default for ReproduceConfig {
    fn default() -> Self {
        ReproduceConfig {
            blocks: 12,
            seed: 1,
            duration: 0.3,
            output: OutputFormat::Console,
        }
    }
}

/// What `reproduce-appendix` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// The side-by-side report.
    #[default]
    Console,
    /// One JSON object.
    Json,
}

/// The measured experiments of this machine.
struct Measured {
    real: BlockTable,
    null: BlockTable,
    first_session: BlockTable,
    second_session: BlockTable,
    raw_files: Vec<PathBuf>,
}

fn measure(abba: &Path, dir: &Path, config: &ReproduceConfig) -> Result<Measured> {
    let kernel = |chains| KernelSpec {
        op: Op::Int,
        chains,
        duration: config.duration,
    };
    let plan = |label: &str, file: &str, variants: Vec<(&str, usize)>, seed: u64| Plan {
        label: label.to_owned(),
        variants: variants
            .into_iter()
            .map(|(n, c)| (n.to_owned(), kernel(c)))
            .collect(),
        design: Design::Random,
        blocks: config.blocks,
        seed,
        raw: dir.join(file),
        parameter: None,
    };
    let s = config.seed;
    let plans = [
        plan(
            "real effect",
            "real.jsonl",
            vec![("chains=1", 1), ("chains=2", 2)],
            s,
        ),
        plan(
            "null pair",
            "null.jsonl",
            vec![("run A", 1), ("run B", 1)],
            s.wrapping_add(1),
        ),
        plan(
            "session 1",
            "session1.jsonl",
            vec![("session 1", 1)],
            s.wrapping_add(2),
        ),
        plan(
            "session 2",
            "session2.jsonl",
            vec![("session 2", 1)],
            s.wrapping_add(3),
        ),
    ];
    let mut tables = Vec::new();
    for p in &plans {
        tables.push(run_plan(abba, p)?);
    }
    let mut it = tables.into_iter();
    let mut next = || it.next().context("missing experiment");
    Ok(Measured {
        real: next()?,
        null: next()?,
        first_session: next()?,
        second_session: next()?,
        raw_files: plans.iter().map(|p| p.raw.clone()).collect(),
    })
}

/// `cargo xtask reproduce-appendix`: builds abba, runs the three experiments, prints
/// the report (or JSON) and writes `target/appendix/REPORT.md`.
///
/// # Errors
/// Build, run, fixture or statistics failures.
pub fn reproduce(root: &Path, config: &ReproduceConfig) -> Result<()> {
    if config.blocks < 2 {
        bail!("--blocks must be at least 2");
    }
    if !(config.duration > 0.0 && config.duration <= 3600.0) {
        bail!("--duration must be in (0, 3600] seconds");
    }
    let fixture = Fixture::load(root)?;
    let appendix = Side::appendix(&fixture, config.seed)?;
    let abba = build_abba(root)?;
    let dir = target_dir(root).join("appendix");
    let started = std::time::Instant::now();
    let m = measure(&abba, &dir, config)?;
    let this = this_machine(&m, config.seed)?;
    let elapsed = started.elapsed().as_secs_f64();
    let report = Report {
        config: *config,
        this: &this,
        appendix: &appendix,
        published: &fixture.published,
        raw_files: &m.raw_files,
        elapsed,
    };
    write_report(&report, &dir, config.output)
}

/// This machine's side: the measured tables analysed like the appendix's.
///
/// # Errors
/// An experiment without values, or values that break the statistics.
fn this_machine(m: &Measured, seed: u64) -> Result<Side> {
    let null = PairedStats::compute(PairedTable::from_blocks(&m.null)?, seed)?;
    let null_exclusion = null_exclusion_rate(&null.differences(), NULL_SIMULATIONS, seed)?;
    let first = m
        .first_session
        .values
        .first()
        .cloned()
        .context("session 1 is empty")?;
    let second = m
        .second_session
        .values
        .first()
        .cloned()
        .context("session 2 is empty")?;
    Ok(Side {
        real: PairedStats::compute(PairedTable::from_blocks(&m.real)?, seed)?,
        null,
        unpaired: UnpairedStats::compute(
            "two sessions of chains=1 run one after the other",
            first,
            second,
            seed,
        )?,
        null_exclusion,
    })
}

/// Writes `DIR/REPORT.md` and prints the report (or its JSON) on stdout.
///
/// # Errors
/// When the directory or the file cannot be written.
fn write_report(report: &Report<'_>, dir: &Path, output: OutputFormat) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let md_path = dir.join("REPORT.md");
    std::fs::write(&md_path, report.markdown())
        .with_context(|| format!("writing {}", md_path.display()))?;
    match output {
        OutputFormat::Console => {
            print!("{}", report.console());
            println!("Markdown report: {}", md_path.display());
        }
        OutputFormat::Json => {
            println!("{}", serde_json::to_string_pretty(&report.json())?);
        }
    }
    Ok(())
}
