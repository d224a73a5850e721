//! `cargo xtask reproduce-appendix`: Appendix F ("Statistical Reasoning for Benchmarks")
//! measured again on this machine through abba's own scheduler and kernel, and its
//! published figures recomputed from its own tables.
//!
//! Three experiments run, each `abba compute --op int --threads 1 --duration S --json` as
//! child processes with seeded layout padding:
//!
//! 1. the real effect, `chains=1` vs `chains=2`, one run of each per block in a fresh
//!    random order per block ([`Design::Random`]);
//! 2. the null pair, `chains=1` twice per block under the names `run A` / `run B`, same
//!    design;
//! 3. the unpaired contrast: two sessions of `chains=1`, one after the other, analysed by
//!    resampling individual runs ([`unpaired_bootstrap_difference`]).
//!
//! The paired statistics are the appendix's: mean-based block bootstrap (2000 resamples,
//! 95 % percentile interval) of the difference and of the ratio of means, and Cohen's
//! dz ([`paired_analysis`]). `--check` recomputes them from `fixtures/appendix/` and
//! compares them with the published figures within the tolerances the fixture states.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bench_kernel::Op;
use bench_sched::{CsvOptions, Design, read_csv};
use bench_stats::{
    BootstrapConfig, BootstrapInterval, IntervalMethod, P99_MIN_SAMPLES, PairedAnalysis,
    PairedConfig, PairedEstimator, Sample, Summary, bootstrap_mean, paired_analysis, summarize,
    unpaired_bootstrap_difference,
};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::run::{BlockTable, KernelSpec, Plan, build_abba, run_plan, target_dir};
use crate::table::TextTable;

/// Resamples of every bootstrap interval (the appendix's 2000).
pub const RESAMPLES: u32 = 2000;
/// Confidence of every interval (the appendix's 95 %).
pub const CONFIDENCE: f64 = 0.95;
/// Simulated repetitions behind the null false-positive rate.
const NULL_SIMULATIONS: u32 = 400;

/// One paired table: block `i` holds `baseline_values[i]` and `candidate_values[i]`
/// (M ops/s). The same shape as the fixture's `real_effect` / `null_effect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedTable {
    /// Name of the baseline row (`chains=1`, `run A`).
    pub baseline: String,
    /// Name of the candidate row (`chains=2`, `run B`).
    pub candidate: String,
    /// Baseline value per block.
    pub baseline_values: Vec<f64>,
    /// Candidate value per block.
    pub candidate_values: Vec<f64>,
}

impl PairedTable {
    fn from_blocks(t: &BlockTable) -> Result<Self> {
        let [b, c] = [0, 1].map(|i| t.names.get(i).zip(t.values.get(i)));
        let ((bn, bv), (cn, cv)) = b.zip(c).context("a paired table needs two variants")?;
        Ok(PairedTable {
            baseline: bn.clone(),
            candidate: cn.clone(),
            baseline_values: bv.clone(),
            candidate_values: cv.clone(),
        })
    }
}

/// The appendix's published figures (`fixtures/appendix/appendix_f.json`, `published`).
#[derive(Debug, Clone, Deserialize)]
pub struct Published {
    real_median_baseline: f64,
    real_mean_difference: f64,
    real_sd_difference: f64,
    real_cohens_dz: f64,
    real_ratio: f64,
    real_difference_ci: [f64; 2],
    real_ratio_ci: [f64; 2],
    null_difference_ci: [f64; 2],
    null_ratio_ci: [f64; 2],
}

/// NumPy's exact values of the deterministic statistics of one table.
#[derive(Debug, Clone, Deserialize)]
struct Exact {
    median_baseline: f64,
    mean_difference: f64,
    sd_difference: f64,
    cohens_dz: f64,
    ratio_of_means: f64,
    cohens_d_unpaired: f64,
}

/// Monte Carlo mean and sd of one bootstrap endpoint under the appendix's procedure.
#[derive(Debug, Clone, Copy, Deserialize)]
struct Spread {
    mean: f64,
    sd: f64,
}

/// The four endpoints' spreads of one table.
#[derive(Debug, Clone, Deserialize)]
struct Endpoints {
    difference_low: Spread,
    difference_high: Spread,
    ratio_low: Spread,
    ratio_high: Spread,
}

#[derive(Debug, Clone, Deserialize)]
struct PerTable<T> {
    real: T,
    null: T,
}

#[derive(Debug, Clone, Deserialize)]
struct MonteCarlo {
    seeds: u32,
    real: Endpoints,
    null: Endpoints,
}

/// `fixtures/appendix/appendix_f.json`: the appendix's tables and figures.
#[derive(Debug, Clone, Deserialize)]
pub struct Fixture {
    real_effect: PairedTable,
    null_effect: PairedTable,
    published: Published,
    numpy_exact: PerTable<Exact>,
    monte_carlo: MonteCarlo,
}

/// The fixture directory under the workspace root.
pub fn fixture_dir(root: &Path) -> PathBuf {
    root.join("fixtures").join("appendix")
}

impl Fixture {
    /// Reads `fixtures/appendix/appendix_f.json` under `root`.
    ///
    /// # Errors
    /// When the file is missing or not the expected JSON.
    pub fn load(root: &Path) -> Result<Fixture> {
        let path = fixture_dir(root).join("appendix_f.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}

/// The bootstrap settings of every interval here: the appendix's procedure.
fn bootstrap(seed: u64) -> BootstrapConfig {
    BootstrapConfig {
        resamples: RESAMPLES,
        confidence: CONFIDENCE,
        seed,
        method: IntervalMethod::Percentile,
    }
}

/// Everything computed from one paired table.
#[derive(Debug, Clone)]
pub struct PairedStats {
    /// The data.
    pub table: PairedTable,
    /// Descriptives of the baseline row.
    pub baseline: Summary,
    /// Descriptives of the candidate row.
    pub candidate: Summary,
    /// Mean difference, dz, unpaired d, ...
    pub analysis: PairedAnalysis,
    /// Block-bootstrap interval of the mean difference.
    pub difference_ci: BootstrapInterval,
    /// Block-bootstrap interval of the ratio of means.
    pub ratio_ci: BootstrapInterval,
}

impl PairedStats {
    /// Computes the paired statistics of `table` with bootstrap seed `seed`.
    /// Time: two block bootstraps of 2000 resamples, O(2000 n).
    ///
    /// # Errors
    /// Non-finite or non-positive values, fewer than 2 blocks, unequal rows, or a
    /// degenerate interval.
    pub fn compute(table: PairedTable, seed: u64) -> Result<PairedStats> {
        let b = Sample::new(&table.baseline_values)
            .with_context(|| format!("the {} row", table.baseline))?;
        let c = Sample::new(&table.candidate_values)
            .with_context(|| format!("the {} row", table.candidate))?;
        let config = PairedConfig {
            bootstrap: bootstrap(seed),
            estimator: PairedEstimator::MeanDifference,
        };
        let analysis = paired_analysis(&b, &c, &config)?;
        let difference_ci = analysis.difference_ci.clone()?;
        let ratio_ci = analysis.ratio_ci.clone()?;
        Ok(PairedStats {
            baseline: summarize(&b),
            candidate: summarize(&c),
            analysis,
            difference_ci,
            ratio_ci,
            table,
        })
    }

    /// Per-block differences, candidate minus baseline.
    fn differences(&self) -> Vec<f64> {
        let t = &self.table;
        t.baseline_values
            .iter()
            .zip(&t.candidate_values)
            .map(|(b, c)| c - b)
            .collect()
    }
}

/// The unpaired contrast: two independently collected sessions compared by resampling
/// individual runs.
#[derive(Debug, Clone)]
pub struct UnpairedStats {
    /// Where the two samples came from.
    pub source: String,
    /// First session's values (M ops/s).
    pub first: Vec<f64>,
    /// Second session's values (M ops/s).
    pub second: Vec<f64>,
    /// Descriptives of the first session.
    pub first_summary: Summary,
    /// Descriptives of the second session.
    pub second_summary: Summary,
    /// Unpaired bootstrap interval of mean(second) - mean(first).
    pub difference_ci: BootstrapInterval,
}

impl UnpairedStats {
    /// Resamples runs of each session separately ([`unpaired_bootstrap_difference`]).
    ///
    /// # Errors
    /// Empty or non-finite samples.
    pub fn compute(source: &str, first: Vec<f64>, second: Vec<f64>, seed: u64) -> Result<Self> {
        let a = Sample::new(&first)?;
        let b = Sample::new(&second)?;
        let difference_ci = unpaired_bootstrap_difference(&a, &b, &bootstrap(seed))?;
        Ok(UnpairedStats {
            source: source.to_owned(),
            first_summary: summarize(&a),
            second_summary: summarize(&b),
            first,
            second,
            difference_ci,
        })
    }
}

/// The three analyses of one data source (this machine, or the appendix's tables).
#[derive(Debug, Clone)]
pub struct Side {
    /// Real effect, chains=1 vs chains=2.
    pub real: PairedStats,
    /// Null pair, run A vs run B.
    pub null: PairedStats,
    /// Unpaired contrast.
    pub unpaired: UnpairedStats,
    /// Share of simulated null repetitions whose 95 % interval excluded 0 (see
    /// [`null_exclusion_rate`]).
    pub null_exclusion: f64,
}

impl Side {
    /// The appendix's own tables. Its unpaired sessions are not published, so the
    /// unpaired contrast resamples the runs of its null table with the blocks ignored.
    ///
    /// # Errors
    /// As [`PairedStats::compute`].
    pub fn appendix(fixture: &Fixture, seed: u64) -> Result<Side> {
        let null = PairedStats::compute(fixture.null_effect.clone(), seed)?;
        let unpaired = UnpairedStats::compute(
            "the null table's run A and run B rows, blocks ignored (the appendix does not \
             publish its unpaired sessions)",
            null.table.baseline_values.clone(),
            null.table.candidate_values.clone(),
            seed,
        )?;
        let null_exclusion = null_exclusion_rate(&null.differences(), NULL_SIMULATIONS, seed)?;
        Ok(Side {
            real: PairedStats::compute(fixture.real_effect.clone(), seed)?,
            null,
            unpaired,
            null_exclusion,
        })
    }
}

/// How often a 95 % block-bootstrap interval of the mean difference excludes 0 when the
/// true difference is 0: `reps` simulated experiments, each drawing `n` block differences
/// with replacement from `differences` shifted to mean 0, each analysed with the
/// appendix's 2000-resample percentile interval. By construction about 5 %; more when
/// the percentile interval undercovers at small `n`. Time: O(reps × 2000 × n).
///
/// # Errors
/// Fewer than 2 differences or a degenerate bootstrap.
pub fn null_exclusion_rate(differences: &[f64], reps: u32, seed: u64) -> Result<f64> {
    let n = differences.len();
    if n < 2 || reps == 0 {
        bail!("the null simulation needs at least 2 blocks and 1 repetition");
    }
    let mean = differences.iter().sum::<f64>() / n as f64;
    let centered: Vec<f64> = differences.iter().map(|d| d - mean).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6e75_6c6c);
    let mut excluded = 0u32;
    for rep in 0..reps {
        let draw: Vec<f64> = (0..n).map(|_| centered[rng.random_range(0..n)]).collect();
        let ci = bootstrap_mean(
            &Sample::new(&draw)?,
            &bootstrap(seed.wrapping_add(u64::from(rep))),
        )?;
        if !ci.contains(0.0) {
            excluded += 1;
        }
    }
    Ok(f64::from(excluded) / f64::from(reps))
}

// ---------------------------------------------------------------------------------------
// --check
// ---------------------------------------------------------------------------------------

/// One comparison of a computed statistic with a reference value.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckItem {
    /// What was compared.
    pub name: String,
    /// Computed vs expected, with the tolerance and its basis.
    pub detail: String,
    /// Whether it matched.
    pub passed: bool,
}

fn near(name: &str, value: f64, expected: f64, tolerance: f64, basis: &str) -> CheckItem {
    CheckItem {
        name: name.to_owned(),
        detail: format!(
            "{value:.6} vs {expected} (|diff| {:.2e} <= {tolerance:.2e}: {basis})",
            (value - expected).abs()
        ),
        passed: (value - expected).abs() <= tolerance,
    }
}

fn holds(name: &str, passed: bool, what: String) -> CheckItem {
    CheckItem {
        name: name.to_owned(),
        detail: what,
        passed,
    }
}

/// Relative tolerance against NumPy's exact values (the fixture README's 1e-9).
const NUMPY_RELATIVE: f64 = 1e-9;

/// Rounding error of a figure printed with `decimals` decimals: `0.5 × 10^-decimals`.
fn rounding(decimals: i32) -> f64 {
    0.5 * 10f64.powi(-decimals)
}

/// Every check of `--check`: the appendix's statistics recomputed from its own tables
/// (bootstrap seed `seed`) against NumPy's exact values, the published figures and the
/// Monte Carlo spread of the bootstrap endpoints, plus the CSV copies of the tables.
///
/// Tolerances, as `fixtures/appendix/README.md` states them: NumPy values to 1e-9
/// relative; a published figure printed with `d` decimals to `0.5 × 10^-d`; a published
/// bootstrap endpoint to `rounding + 4 √2 sd` (two independent 2000-resample draws differ
/// with sd `√2 sd`, `sd` from the fixture's 200-seed Monte Carlo: 0.25 to 0.38 M ops/s for
/// the real difference, so endpoints legitimately move by 1-2 units between seeds). Our
/// draw is also held to the Monte Carlo mean within `4 sd √(1 + 1/seeds)`.
///
/// # Errors
/// When the statistics cannot be computed at all (bad fixture data).
pub fn check(root: &Path, fixture: &Fixture, seed: u64) -> Result<Vec<CheckItem>> {
    let real = PairedStats::compute(fixture.real_effect.clone(), seed)?;
    let null = PairedStats::compute(fixture.null_effect.clone(), seed)?;
    let mut items = Vec::new();

    for (label, stats, exact) in [
        ("real", &real, &fixture.numpy_exact.real),
        ("null", &null, &fixture.numpy_exact.null),
    ] {
        let a = &stats.analysis;
        let computed = [
            ("median_baseline", Some(stats.baseline.median)),
            ("mean_difference", Some(a.mean_difference)),
            ("sd_difference", a.sd_difference),
            ("cohens_dz", a.cohens_dz),
            ("ratio_of_means", a.ratio),
            ("cohens_d_unpaired", a.cohens_d_unpaired),
        ];
        let expected = [
            exact.median_baseline,
            exact.mean_difference,
            exact.sd_difference,
            exact.cohens_dz,
            exact.ratio_of_means,
            exact.cohens_d_unpaired,
        ];
        for ((what, value), want) in computed.into_iter().zip(expected) {
            let name = format!("{label} {what} = NumPy");
            match value {
                Some(v) => items.push(near(
                    &name,
                    v,
                    want,
                    NUMPY_RELATIVE * want.abs().max(1.0),
                    "1e-9 relative",
                )),
                None => items.push(holds(&name, false, "not computable".into())),
            }
        }
    }

    let p = &fixture.published;
    let a = &real.analysis;
    let rounded = |name: &str, value: Option<f64>, published: f64, decimals: i32| match value {
        Some(v) => near(
            &format!("{name} = published"),
            v,
            published,
            rounding(decimals) + NUMPY_RELATIVE * published.abs(),
            &format!("printed with {decimals} decimals"),
        ),
        None => holds(name, false, "not computable".into()),
    };
    // Decimals as the appendix prints them: "720.0M", "609.3M", "20.0M", "dz ≈ 30",
    // "1.85x".
    items.push(rounded(
        "real median chains=1",
        Some(real.baseline.median),
        p.real_median_baseline,
        1,
    ));
    items.push(rounded(
        "real mean difference",
        Some(a.mean_difference),
        p.real_mean_difference,
        1,
    ));
    items.push(rounded(
        "real sd of differences",
        a.sd_difference,
        p.real_sd_difference,
        1,
    ));
    items.push(rounded("real Cohen's dz", a.cohens_dz, p.real_cohens_dz, 0));
    items.push(rounded("real ratio of means", a.ratio, p.real_ratio, 2));

    // Bootstrap endpoints: "[599.1M, 621.4M]", "[1.83x, 1.88x]", "[-1.6M, 3.5M]",
    // "[0.998x, 1.005x]".
    let mc = &fixture.monte_carlo;
    let inflate = (1.0 + 1.0 / f64::from(mc.seeds.max(1))).sqrt();
    let endpoints = [
        (
            "real difference CI",
            &real.difference_ci,
            p.real_difference_ci,
            1,
            [mc.real.difference_low, mc.real.difference_high],
        ),
        (
            "real ratio CI",
            &real.ratio_ci,
            p.real_ratio_ci,
            2,
            [mc.real.ratio_low, mc.real.ratio_high],
        ),
        (
            "null difference CI",
            &null.difference_ci,
            p.null_difference_ci,
            1,
            [mc.null.difference_low, mc.null.difference_high],
        ),
        (
            "null ratio CI",
            &null.ratio_ci,
            p.null_ratio_ci,
            3,
            [mc.null.ratio_low, mc.null.ratio_high],
        ),
    ];
    for (name, ci, published, decimals, spread) in endpoints {
        for (end, value, published, s) in [
            ("low", ci.low, published[0], spread[0]),
            ("high", ci.high, published[1], spread[1]),
        ] {
            items.push(near(
                &format!("{name} {end} = published"),
                value,
                published,
                rounding(decimals) + 4.0 * std::f64::consts::SQRT_2 * s.sd,
                "rounding + 4 sqrt(2) sd",
            ));
            items.push(near(
                &format!("{name} {end} = Monte Carlo mean"),
                value,
                s.mean,
                4.0 * s.sd * inflate,
                "4 sd",
            ));
        }
    }

    items.push(holds(
        "real difference CI excludes 0",
        real.difference_ci.low > 0.0,
        format!(
            "[{:.1}, {:.1}]",
            real.difference_ci.low, real.difference_ci.high
        ),
    ));
    items.push(holds(
        "real ratio CI excludes 1",
        real.ratio_ci.low > 1.0,
        format!("[{:.3}, {:.3}]", real.ratio_ci.low, real.ratio_ci.high),
    ));
    items.push(holds(
        "null difference CI includes 0",
        null.difference_ci.contains(0.0),
        format!(
            "[{:.2}, {:.2}]",
            null.difference_ci.low, null.difference_ci.high
        ),
    ));
    items.push(holds(
        "null ratio CI includes 1",
        null.ratio_ci.contains(1.0),
        format!("[{:.4}, {:.4}]", null.ratio_ci.low, null.ratio_ci.high),
    ));
    items.push(holds(
        "p99 withheld at 12 runs",
        real.baseline.p99.is_err() && real.baseline.n < P99_MIN_SAMPLES,
        format!("n = {}, p99 needs {P99_MIN_SAMPLES}", real.baseline.n),
    ));

    for (file, table) in [
        ("appendix_f_real.csv", &fixture.real_effect),
        ("appendix_f_null.csv", &fixture.null_effect),
    ] {
        items.push(csv_matches(&fixture_dir(root).join(file), table));
    }
    Ok(items)
}

/// Whether the CSV copy of a table holds the same values, block by block.
fn csv_matches(path: &Path, table: &PairedTable) -> CheckItem {
    let name = format!(
        "{} = appendix_f.json",
        path.file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
    );
    let loaded = match read_csv(path, &CsvOptions::default()) {
        Ok(l) => l,
        Err(e) => return holds(&name, false, format!("cannot read: {e}")),
    };
    let row = |variant: &str| -> Option<Vec<f64>> {
        let series = loaded.dataset.series.iter().find(|s| s.name == variant)?;
        let mut obs: Vec<(u32, f64)> = series
            .observations
            .iter()
            .map(|o| (o.block.unwrap_or(u32::MAX), o.value))
            .collect();
        obs.sort_by_key(|&(b, _)| b);
        Some(obs.into_iter().map(|(_, v)| v).collect())
    };
    let same = row(&table.baseline).as_deref() == Some(&table.baseline_values[..])
        && row(&table.candidate).as_deref() == Some(&table.candidate_values[..]);
    holds(&name, same, "same values in the same blocks".into())
}

/// `cargo xtask reproduce-appendix --check`: prints every check and fails listing the
/// mismatches.
///
/// # Errors
/// When any check fails or the fixture cannot be read.
pub fn run_check(root: &Path, seed: u64) -> Result<()> {
    let fixture = Fixture::load(root)?;
    let items = check(root, &fixture, seed)?;
    for item in &items {
        let mark = if item.passed { "ok  " } else { "FAIL" };
        println!("{mark} {}: {}", item.name, item.detail);
    }
    let failed: Vec<&CheckItem> = items.iter().filter(|i| !i.passed).collect();
    if failed.is_empty() {
        println!(
            "appendix check: all {} checks passed (bootstrap seed {seed}, {RESAMPLES} resamples)",
            items.len()
        );
        Ok(())
    } else {
        let list: Vec<String> = failed
            .iter()
            .map(|i| format!("  {}: {}", i.name, i.detail))
            .collect();
        bail!(
            "{} of {} appendix checks failed:\n{}",
            failed.len(),
            items.len(),
            list.join("\n")
        )
    }
}

// ---------------------------------------------------------------------------------------
// The reproduction
// ---------------------------------------------------------------------------------------

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
    let null = PairedStats::compute(PairedTable::from_blocks(&m.null)?, config.seed)?;
    let null_exclusion = null_exclusion_rate(&null.differences(), NULL_SIMULATIONS, config.seed)?;
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
    let this = Side {
        real: PairedStats::compute(PairedTable::from_blocks(&m.real)?, config.seed)?,
        null,
        unpaired: UnpairedStats::compute(
            "two sessions of chains=1 run one after the other",
            first,
            second,
            config.seed,
        )?,
        null_exclusion,
    };
    let elapsed = started.elapsed().as_secs_f64();
    let report = Report {
        config: *config,
        this: &this,
        appendix: &appendix,
        published: &fixture.published,
        raw_files: &m.raw_files,
        elapsed,
    };
    std::fs::create_dir_all(&dir)?;
    let md_path = dir.join("REPORT.md");
    std::fs::write(&md_path, report.markdown())
        .with_context(|| format!("writing {}", md_path.display()))?;
    match config.output {
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

// ---------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------

/// Everything one report shows.
struct Report<'a> {
    config: ReproduceConfig,
    this: &'a Side,
    appendix: &'a Side,
    published: &'a Published,
    raw_files: &'a [PathBuf],
    elapsed: f64,
}

fn m1(v: f64) -> String {
    format!("{v:.1}")
}

fn interval(ci: &BootstrapInterval, decimals: usize, suffix: &str) -> String {
    format!(
        "[{:.d$}{suffix}, {:.d$}{suffix}]",
        ci.low,
        ci.high,
        d = decimals
    )
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.decimals$}"))
}

/// The appendix's layout: a `block` header row and one row per configuration.
fn block_table(t: &PairedTable) -> TextTable {
    let n = t.baseline_values.len();
    let mut table =
        TextTable::new(std::iter::once("block".to_owned()).chain((1..=n).map(|b| b.to_string())));
    table.row(std::iter::once(t.baseline.clone()).chain(t.baseline_values.iter().map(|&v| m1(v))));
    table
        .row(std::iter::once(t.candidate.clone()).chain(t.candidate_values.iter().map(|&v| m1(v))));
    table
}

fn excludes(ci: &BootstrapInterval, null: f64) -> &'static str {
    if ci.contains(null) {
        "includes"
    } else {
        "excludes"
    }
}

impl Report<'_> {
    fn stats_table(&self) -> TextTable {
        let (t, a, p) = (self.this, self.appendix, self.published);
        let mut table = TextTable::new([
            "statistic",
            "this machine",
            "appendix data, recomputed",
            "appendix, published",
        ]);
        let mut row = |label: &str, f: &dyn Fn(&Side) -> String, published: String| {
            table.row([label.to_owned(), f(t), f(a), published]);
        };
        let none = String::new;
        row(
            "blocks",
            &|s| s.real.analysis.blocks.to_string(),
            "12".into(),
        );
        row(
            "chains=1 median",
            &|s| m1(s.real.baseline.median),
            format!("{:.1}", p.real_median_baseline),
        );
        row(
            "chains=1 p50 / p90",
            &|s| format!("{} / {}", m1(s.real.baseline.p50), m1(s.real.baseline.p90)),
            none(),
        );
        row("chains=2 median", &|s| m1(s.real.candidate.median), none());
        row(
            "chains=2 p50 / p90",
            &|s| {
                format!(
                    "{} / {}",
                    m1(s.real.candidate.p50),
                    m1(s.real.candidate.p90)
                )
            },
            none(),
        );
        row(
            "p99",
            &|s| match s.real.baseline.p99 {
                Ok(v) => m1(v),
                Err(w) => format!("withheld (n={} < {})", w.n, w.needed),
            },
            "not meaningful at 12".into(),
        );
        row(
            "mean difference (2 - 1)",
            &|s| format!("{:.2}", s.real.analysis.mean_difference),
            format!("{:.1}", p.real_mean_difference),
        );
        row(
            "sd of block differences",
            &|s| opt(s.real.analysis.sd_difference, 1),
            format!("{:.1}", p.real_sd_difference),
        );
        row(
            "difference 95% CI",
            &|s| interval(&s.real.difference_ci, 1, ""),
            format!(
                "[{:.1}, {:.1}]",
                p.real_difference_ci[0], p.real_difference_ci[1]
            ),
        );
        row(
            "ratio of means",
            &|s| format!("{}x", opt(s.real.analysis.ratio, 3)),
            format!("{:.2}x", p.real_ratio),
        );
        row(
            "ratio 95% CI",
            &|s| interval(&s.real.ratio_ci, 3, "x"),
            format!("[{:.2}x, {:.2}x]", p.real_ratio_ci[0], p.real_ratio_ci[1]),
        );
        row(
            "Cohen's dz (paired)",
            &|s| opt(s.real.analysis.cohens_dz, 1),
            format!("~{:.0}", p.real_cohens_dz),
        );
        row(
            "Cohen's d (unpaired, contrast)",
            &|s| opt(s.real.analysis.cohens_d_unpaired, 1),
            none(),
        );
        row(
            "null: run A / run B median",
            &|s| {
                format!(
                    "{} / {}",
                    m1(s.null.baseline.median),
                    m1(s.null.candidate.median)
                )
            },
            none(),
        );
        row(
            "null: run A p50 / p90",
            &|s| format!("{} / {}", m1(s.null.baseline.p50), m1(s.null.baseline.p90)),
            none(),
        );
        row(
            "null: mean difference (B - A)",
            &|s| format!("{:.2}", s.null.analysis.mean_difference),
            none(),
        );
        row(
            "null: difference 95% CI",
            &|s| interval(&s.null.difference_ci, 1, ""),
            format!(
                "[{:.1}, {:.1}]",
                p.null_difference_ci[0], p.null_difference_ci[1]
            ),
        );
        row(
            "null: ratio 95% CI",
            &|s| interval(&s.null.ratio_ci, 4, "x"),
            format!("[{:.3}x, {:.3}x]", p.null_ratio_ci[0], p.null_ratio_ci[1]),
        );
        row(
            "null: Cohen's dz",
            &|s| opt(s.null.analysis.cohens_dz, 2),
            none(),
        );
        row(
            "null: simulated false-positive rate",
            &|s| format!("{:.1}%", 100.0 * s.null_exclusion),
            "5% nominal".into(),
        );
        row(
            "unpaired: session means",
            &|s| {
                format!(
                    "{} / {}",
                    m1(s.unpaired.first_summary.mean),
                    m1(s.unpaired.second_summary.mean)
                )
            },
            none(),
        );
        row(
            "unpaired: difference 95% CI",
            &|s| interval(&s.unpaired.difference_ci, 1, ""),
            "barely excluded 0 (data unpublished)".into(),
        );
        row(
            "paired null beside it",
            &|s| interval(&s.null.difference_ci, 1, ""),
            format!(
                "[{:.1}, {:.1}]",
                p.null_difference_ci[0], p.null_difference_ci[1]
            ),
        );
        table
    }

    fn verdicts(&self) -> Vec<String> {
        let t = self.this;
        let r = &t.real.ratio_ci;
        vec![
            format!(
                "real effect: the ratio interval {} {} 1 and {} above 1.5 -> {}",
                interval(r, 3, "x"),
                excludes(r, 1.0),
                if r.low > 1.5 { "lies" } else { "does not lie" },
                if r.low > 1.5 {
                    "reproduced"
                } else {
                    "NOT reproduced"
                }
            ),
            format!(
                "null pair: the ratio interval {} {} 1 -> {}",
                interval(&t.null.ratio_ci, 4, "x"),
                excludes(&t.null.ratio_ci, 1.0),
                if t.null.ratio_ci.contains(1.0) {
                    "no difference found, as it should be"
                } else {
                    "a false positive (expected in about 5% of repetitions, more at few blocks)"
                }
            ),
            format!(
                "unpaired contrast: resampling runs of two sessions of the same configuration \
                 gives {} ({} 0) -> {}",
                interval(&t.unpaired.difference_ci, 1, ""),
                excludes(&t.unpaired.difference_ci, 0.0),
                if t.unpaired.difference_ci.contains(0.0) {
                    "the sessions agreed this time; a shift between sessions would have been \
                     counted as an effect, which the paired blocks cancel"
                } else {
                    "a spurious difference: the shift between the sessions is counted as an \
                     effect, while the paired null above, interleaved in blocks, cancels it"
                }
            ),
        ]
    }

    fn notes(&self) -> Vec<String> {
        vec![
            format!(
                "Intervals: block bootstrap, {RESAMPLES} resamples of the blocks, 95% percentile, \
                 mean-based (difference of block means, ratio of block means); bootstrap seed {}.",
                self.config.seed
            ),
            format!(
                "Small n: with {} runs per configuration p90 is read loosely and p99 is withheld \
                 (it needs {P99_MIN_SAMPLES}+ runs; at 12 it is little more than the maximum).",
                self.config.blocks
            ),
            format!(
                "False-positive rate: {NULL_SIMULATIONS} simulated null experiments drawn from each \
                 null table's centred block differences; a 95% interval should exclude 0 about 5% \
                 of the time, more when the percentile interval undercovers at {} blocks.",
                self.config.blocks
            ),
            "Appendix unpaired column: the appendix does not publish its two unpaired sessions, \
             so its null table's rows are resampled as runs with the blocks ignored."
                .to_owned(),
        ]
    }

    fn command(&self) -> String {
        format!(
            "abba compute --op int --threads 1 --duration {} --json (chains 1 and 2), {} blocks, \
             design random, layout random, seed {}",
            self.config.duration, self.config.blocks, self.config.seed
        )
    }

    fn console(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Appendix F reproduced: {}", self.command());
        let _ = writeln!(
            out,
            "experiments and analysis took {:.1} s (after the build)\n",
            self.elapsed
        );
        let tables = [
            ("This machine: real effect (M ops/s)", &self.this.real.table),
            ("This machine: null pair (M ops/s)", &self.this.null.table),
            (
                "Appendix F: real effect (M ops/s)",
                &self.appendix.real.table,
            ),
            ("Appendix F: null pair (M ops/s)", &self.appendix.null.table),
        ];
        for (title, t) in tables {
            let _ = writeln!(out, "{title}\n{}", block_table(t).plain());
        }
        let _ = writeln!(
            out,
            "Statistics (M ops/s unless marked)\n{}",
            self.stats_table().plain()
        );
        for v in self.verdicts() {
            let _ = writeln!(out, "{v}");
        }
        out.push('\n');
        for n in self.notes() {
            let _ = writeln!(out, "note: {n}");
        }
        let _ = writeln!(
            out,
            "raw data: {}",
            self.raw_files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        out
    }

    fn markdown(&self) -> String {
        let mut out = String::from("# Appendix F, reproduced\n\n");
        let _ = writeln!(
            out,
            "`cargo xtask reproduce-appendix --blocks {} --seed {} --duration {}`: {}. \
            Experiments and analysis took {:.1} s after the build.\n",
            self.config.blocks,
            self.config.seed,
            self.config.duration,
            self.command(),
            self.elapsed
        );
        let tables = [
            ("This machine: real effect", &self.this.real.table),
            ("This machine: null pair", &self.this.null.table),
            ("Appendix F: real effect", &self.appendix.real.table),
            ("Appendix F: null pair", &self.appendix.null.table),
        ];
        for (title, t) in tables {
            let _ = writeln!(out, "## {title} (M ops/s)\n\n{}", block_table(t).markdown());
        }
        let _ = writeln!(
            out,
            "## Statistics (M ops/s unless marked)\n\n{}",
            self.stats_table().markdown()
        );
        let _ = writeln!(out, "## Verdicts\n");
        for v in self.verdicts() {
            let _ = writeln!(out, "- {v}");
        }
        let _ = writeln!(out, "\n## Notes\n");
        for n in self.notes() {
            let _ = writeln!(out, "- {n}");
        }
        out
    }

    fn json(&self) -> Value {
        json!({
            "schema": "abba.xtask.appendix/1",
            "unit": "Mops/s",
            "blocks": self.config.blocks,
            "seed": self.config.seed,
            "duration_s": self.config.duration,
            "resamples": RESAMPLES,
            "confidence": CONFIDENCE,
            "elapsed_s": self.elapsed,
            "real": paired_json(&self.this.real),
            "null": paired_json_with_rate(&self.this.null, self.this.null_exclusion),
            "unpaired": unpaired_json(&self.this.unpaired),
            "appendix": {
                "real": paired_json(&self.appendix.real),
                "null": paired_json_with_rate(&self.appendix.null, self.appendix.null_exclusion),
                "unpaired": unpaired_json(&self.appendix.unpaired),
            },
        })
    }
}

fn summary_json(s: &Summary) -> Value {
    json!({
        "n": s.n, "mean": s.mean, "median": s.median, "p50": s.p50, "p90": s.p90,
        "p99": s.p99.ok(), "stddev": s.stddev, "min": s.min, "max": s.max,
    })
}

fn paired_json(s: &PairedStats) -> Value {
    let a = &s.analysis;
    json!({
        "blocks": a.blocks,
        "table": s.table,
        "baseline_summary": summary_json(&s.baseline),
        "candidate_summary": summary_json(&s.candidate),
        "mean_difference": a.mean_difference,
        "sd_difference": a.sd_difference,
        "difference_ci": s.difference_ci.bounds(),
        "ratio": a.ratio,
        "ratio_ci": s.ratio_ci.bounds(),
        "cohens_dz": a.cohens_dz,
        "cohens_d_unpaired": a.cohens_d_unpaired,
    })
}

fn paired_json_with_rate(s: &PairedStats, rate: f64) -> Value {
    let mut v = paired_json(s);
    v["interval_includes_null"] = json!(s.difference_ci.contains(0.0));
    v["simulated_false_positive_rate"] = json!(rate);
    v
}

fn unpaired_json(u: &UnpairedStats) -> Value {
    json!({
        "source": u.source,
        "first": u.first,
        "second": u.second,
        "first_summary": summary_json(&u.first_summary),
        "second_summary": summary_json(&u.second_summary),
        "mean_difference": u.difference_ci.estimate,
        "difference_ci": u.difference_ci.bounds(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::workspace_root;

    /// The `--check` of `cargo xtask reproduce-appendix`, under `cargo test`.
    #[test]
    fn appendix_f_figures_match_the_published_ones() {
        let root = workspace_root();
        let fixture = Fixture::load(&root).unwrap();
        let items = check(&root, &fixture, 1).unwrap();
        let failed: Vec<_> = items.iter().filter(|i| !i.passed).collect();
        assert!(failed.is_empty(), "{failed:#?}");
        assert!(items.len() > 30);
        run_check(&root, 1).unwrap();
    }

    #[test]
    fn check_fails_on_a_changed_table() {
        let root = workspace_root();
        let mut fixture = Fixture::load(&root).unwrap();
        fixture.real_effect.candidate_values[0] += 30.0;
        let items = check(&root, &fixture, 1).unwrap();
        let failed: Vec<&str> = items
            .iter()
            .filter(|i| !i.passed)
            .map(|i| i.name.as_str())
            .collect();
        assert!(
            failed.contains(&"real mean_difference = NumPy"),
            "{failed:?}"
        );
        assert!(
            failed.contains(&"appendix_f_real.csv = appendix_f.json"),
            "{failed:?}"
        );
    }

    #[test]
    fn null_simulation_rejects_about_five_percent() {
        // Centred differences with no effect: the rate is a proportion near 5 %.
        let d = [
            1.0, -2.0, 0.5, 3.0, -1.5, 2.5, -0.5, 1.5, -3.0, 0.0, 2.0, -1.0,
        ];
        let rate = null_exclusion_rate(&d, 200, 7).unwrap();
        assert!((0.0..=0.2).contains(&rate), "{rate}");
        assert!(null_exclusion_rate(&d[..1], 10, 7).is_err());
    }

    #[test]
    fn appendix_side_has_the_published_shape() {
        let root = workspace_root();
        let side = Side::appendix(&Fixture::load(&root).unwrap(), 1).unwrap();
        let report = Report {
            config: ReproduceConfig::default(),
            this: &side,
            appendix: &side,
            published: &Fixture::load(&root).unwrap().published,
            raw_files: &[],
            elapsed: 0.0,
        };
        let md = report.markdown();
        assert!(md.contains("| block | 1 | 2 |"), "{md}");
        assert!(md.contains("| chains=1 | 725.4 | 720.8 |"), "{md}");
        assert!(md.contains("withheld (n=12 < 100)"), "{md}");
        let j = report.json();
        assert_eq!(j["real"]["blocks"], 12);
        assert_eq!(j["null"]["table"]["baseline"], "run A");
        assert!(j["unpaired"]["difference_ci"].is_array());
    }
}
