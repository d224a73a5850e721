//! `cargo xtask chain-sweep`: the chain-count sweep with the appendix's
//! multiple-comparison discipline.
//!
//! 1. **Sweep.** Chains 1..=8 of `abba compute --op OP --threads 1`, every block running
//!    all eight in a fresh random order ([`Design::Random`]).
//! 2. **Omnibus.** Friedman's test over the blocks (do the chain counts differ at all?),
//!    and Page's L trend test across the chain counts (do they move one way as chains
//!    grow?), the same test `abba compare -P chains 1 8 --kernel 'chains={chains}'`
//!    reports; the raw file records each variant's chain count, so `abba analyze` of it
//!    prints the same trend line. A non-monotone pattern is not discarded for its shape:
//!    the post-hoc tests and the standout look at every step.
//! 3. **Post-hoc.** A two-sided Wilcoxon signed-rank test of each chain count against
//!    its lower neighbour (or, with `--post-hoc first`, against chains=1), on the per-block
//!    differences, Holm-Bonferroni corrected over the seven comparisons, beside the
//!    block-bootstrap interval of each ratio.
//! 4. **Hypothesis.** The largest relative step between neighbours (largest
//!    `|ln ratio|`) is the sweep's standout. Picked after looking at eight
//!    configurations, it is a hypothesis, not a result.
//! 5. **Confirmation.** A separate experiment afterwards, fresh seed and its own blocks,
//!    runs only the standout and its neighbour. The step is called a finding only if that
//!    experiment's paired ratio interval excludes 1 on the same side as the sweep's step.
//!
//! `--svg FILE` also draws the sweep: each chain count's median throughput with its
//! bootstrap interval ([`throughput_chart`], through `bench_report::pictures::scan_chart`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bench_kernel::Op;
use bench_report::pictures::{Chart, ScanChart, ScanPoint, scan_chart};
use bench_sched::{Design, ScanParameter};
use bench_stats::Sample;
use bench_stats::descriptive::summarize;
use bench_stats::paired::{PairedConfig, paired_analysis};
use bench_stats::rank::{
    FriedmanOutcome, PageOutcome, friedman, holm_bonferroni, page_trend, wilcoxon_signed_rank,
};
use bench_stats::resample::{BootstrapConfig, BootstrapInterval, bootstrap_statistic};

use crate::run::{BlockTable, KernelSpec, Plan, build_abba, run_plan, target_dir};
use crate::table::TextTable;

/// Significance level of the omnibus and the Holm-corrected post-hoc tests.
pub const ALPHA: f64 = 0.05;
/// Offset added to `--seed` for the confirmation experiment, so its run order and layout
/// padding are independent of the sweep's.
const CONFIRM_SEED_OFFSET: u64 = 0x00c0_ffee;

/// Which configuration each chain count is tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum PostHoc {
    /// chains=N against chains=N-1 (the step between neighbours).
    #[default]
    Neighbour,
    /// chains=N against chains=1.
    First,
}

/// Flags of `chain-sweep`.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// The operation every chain repeats: int, add or fp.
    #[arg(long, default_value = "int", value_parser = parse_op)]
    op: Op,
    /// Blocks of the sweep (each runs every chain count once, in random order).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=1000))]
    blocks: u32,
    /// Seconds per kernel run.
    #[arg(long, default_value_t = 0.2)]
    duration: f64,
    /// Seed of the sweep's run order, layout padding and bootstrap; the confirmation
    /// uses a seed derived from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest chain count of the sweep (from 1).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(3..=16))]
    max_chains: u64,
    /// What each chain count is tested against in the post-hoc tests.
    #[arg(long, value_enum, default_value_t = PostHoc::Neighbour)]
    post_hoc: PostHoc,
    /// Blocks of the confirmation experiment.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(2..=1000))]
    confirm_blocks: u32,
    /// Also write the chart of median throughput against chain count, with each median's
    /// bootstrap interval, as an SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

fn parse_op(s: &str) -> Result<Op, String> {
    s.parse::<Op>().map_err(|e| e.to_string())
}

/// Settings of the sweep, free of clap.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepConfig {
    /// Kernel operation (default int).
    pub op: Op,
    /// Sweep blocks (default 10: with 6 no Holm-corrected post-hoc test can reach 0.05).
    pub blocks: u32,
    /// Seconds per run (default 0.2).
    pub duration: f64,
    /// Seed (default 1).
    pub seed: u64,
    /// Chain counts 1..=max_chains (default 8).
    pub max_chains: usize,
    /// Post-hoc reference (default neighbour).
    pub post_hoc: PostHoc,
    /// Confirmation blocks (default 12).
    pub confirm_blocks: u32,
    /// Where to write the throughput chart, if anywhere.
    pub svg: Option<PathBuf>,
}

impl SweepArgs {
    /// The checked configuration.
    ///
    /// # Errors
    /// A duration outside (0, 3600] seconds.
    pub fn config(&self) -> Result<SweepConfig> {
        if !(self.duration > 0.0 && self.duration <= 3600.0) {
            bail!("--duration must be in (0, 3600] seconds");
        }
        Ok(SweepConfig {
            op: self.op,
            blocks: self.blocks,
            duration: self.duration,
            seed: self.seed,
            max_chains: usize::try_from(self.max_chains)?,
            post_hoc: self.post_hoc,
            confirm_blocks: self.confirm_blocks,
            svg: self.svg.clone(),
        })
    }
}

/// One post-hoc comparison: `candidate` chains against `reference` chains.
#[derive(Debug, Clone)]
pub struct Step {
    /// Index (into the sweep's variants) of the reference.
    pub reference: usize,
    /// Index of the candidate.
    pub candidate: usize,
    /// Ratio of block means, candidate over reference.
    pub ratio: f64,
    /// Block-bootstrap interval of that ratio.
    pub ratio_ci: BootstrapInterval,
    /// Raw two-sided Wilcoxon signed-rank p of the block differences (`None` if untestable).
    pub p_value: Option<f64>,
    /// Holm-adjusted p.
    pub p_holm: Option<f64>,
}

/// The analysed sweep.
#[derive(Debug, Clone)]
pub struct SweepAnalysis {
    /// Variant names.
    pub names: Vec<String>,
    /// Median per variant (M ops/s).
    pub medians: Vec<f64>,
    /// Bootstrap percentile interval of each variant's median.
    pub median_cis: Vec<BootstrapInterval>,
    /// The omnibus test.
    pub friedman: FriedmanOutcome,
    /// Page's L trend test across the chain counts (variants in increasing chain order).
    pub trend: PageOutcome,
    /// Post-hoc comparisons, one per chain count after the first.
    pub steps: Vec<Step>,
    /// Neighbour steps' ratios (`neighbour_ratios[i]` is chains i+2 over chains i+1), from
    /// which the standout is chosen.
    pub neighbour_ratios: Vec<f64>,
    /// Index of the standout (the candidate of the largest neighbour step).
    pub standout: usize,
}

fn bootstrap(seed: u64) -> BootstrapConfig {
    BootstrapConfig {
        seed,
        ..BootstrapConfig::default()
    }
}

/// Paired ratio (candidate over reference) and its block-bootstrap interval.
fn paired_ratio(
    reference: &[f64],
    candidate: &[f64],
    seed: u64,
) -> Result<(f64, BootstrapInterval)> {
    let config = PairedConfig {
        bootstrap: bootstrap(seed),
        ..PairedConfig::default()
    };
    let p = paired_analysis(&Sample::new(reference)?, &Sample::new(candidate)?, &config)?;
    let ci = p.ratio_ci?;
    Ok((
        p.ratio
            .context("ratio undefined (a value is not positive)")?,
        ci,
    ))
}

/// Analyses a sweep table (`values[v][b]`, variant `v` = chains `v + 1`).
/// Time: O(k n log n) for the tests plus 2k block bootstraps of 2000 resamples.
///
/// # Errors
/// Fewer than 3 variants or 2 blocks, or values that break the statistics.
pub fn analyse(table: &BlockTable, post_hoc: PostHoc, seed: u64) -> Result<SweepAnalysis> {
    let k = table.values.len();
    if k < 3 {
        bail!("a sweep needs at least 3 configurations");
    }
    let n = table.values[0].len();
    let by_block: Vec<Vec<f64>> = (0..n)
        .map(|b| table.values.iter().map(|v| v[b]).collect())
        .collect();
    let friedman = friedman(&by_block)?;
    let trend = page_trend(&by_block)?;
    let mut medians = Vec::with_capacity(k);
    let mut median_cis = Vec::with_capacity(k);
    for v in &table.values {
        let s = Sample::new(v)?;
        medians.push(summarize(&s).median);
        let values = v.clone();
        let median = move |idx: &[usize]| {
            let picked = Sample::from_vec(idx.iter().map(|&i| values[i]).collect()).ok()?;
            Some(summarize(&picked).median)
        };
        median_cis.push(bootstrap_statistic(v.len(), median, &bootstrap(seed))?);
    }
    let mut steps = Vec::with_capacity(k - 1);
    for candidate in 1..k {
        let reference = match post_hoc {
            PostHoc::Neighbour => candidate - 1,
            PostHoc::First => 0,
        };
        let (r, c) = (&table.values[reference], &table.values[candidate]);
        let diffs: Vec<f64> = r.iter().zip(c).map(|(r, c)| c - r).collect();
        let (ratio, ratio_ci) = paired_ratio(r, c, seed)?;
        steps.push(Step {
            reference,
            candidate,
            ratio,
            ratio_ci,
            p_value: wilcoxon_signed_rank(&diffs).ok().map(|w| w.p_value),
            p_holm: None,
        });
    }
    let adjusted = holm_bonferroni(&steps.iter().map(|s| s.p_value).collect::<Vec<_>>());
    for (s, p) in steps.iter_mut().zip(adjusted) {
        s.p_holm = p;
    }
    let neighbour_ratios: Vec<f64> = (1..k)
        .map(|c| {
            let (r, v) = (&table.values[c - 1], &table.values[c]);
            v.iter().sum::<f64>() / r.iter().sum::<f64>()
        })
        .collect();
    let standout = neighbour_ratios
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.ln().abs().total_cmp(&b.1.ln().abs()))
        .map(|(i, _)| i + 1)
        .context("no neighbour steps")?;
    Ok(SweepAnalysis {
        names: table.names.clone(),
        medians,
        median_cis,
        friedman,
        trend,
        steps,
        neighbour_ratios,
        standout,
    })
}

/// Smallest attainable two-sided exact Wilcoxon p with `n` blocks (all differences of
/// one sign): `2 / 2^n`.
fn min_wilcoxon_p(n: u32) -> f64 {
    2.0 * 0.5f64.powi(i32::try_from(n).unwrap_or(i32::MAX))
}

/// The verdict of the confirmation experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// The interval excludes 1 on the sweep's side: a finding.
    Confirmed,
    /// The interval includes 1: the hypothesis is not confirmed.
    Inconclusive,
    /// The interval excludes 1 on the other side.
    Reversed,
}

/// Judges a confirmation interval against the sweep's direction (`sweep_ratio`).
pub fn judge(sweep_ratio: f64, ci: &BootstrapInterval) -> Confirmation {
    if ci.contains(1.0) {
        Confirmation::Inconclusive
    } else if (ci.low > 1.0) == (sweep_ratio > 1.0) {
        Confirmation::Confirmed
    } else {
        Confirmation::Reversed
    }
}

fn ratio_text(ci: &BootstrapInterval) -> String {
    format!("[{:.3}x, {:.3}x]", ci.low, ci.high)
}

fn p_text(p: Option<f64>) -> String {
    match p {
        None => "n/a".to_owned(),
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
}

/// The sweep's picture: each chain count's median throughput with its bootstrap
/// interval.
pub fn throughput_chart(a: &SweepAnalysis, config: &SweepConfig) -> Chart {
    let confidence = a.median_cis.first().map_or(0.95, |ci| ci.confidence);
    scan_chart(&ScanChart {
        title: format!(
            "Throughput against chain count (--op {}, {} blocks)",
            config.op, config.blocks
        ),
        x_label: "independent dependency chains (count)".into(),
        y_label: "median throughput (M ops/s)".into(),
        interval_label: format!(
            "{:.0}% bootstrap interval of the median",
            confidence * 100.0
        ),
        points: (0..a.medians.len())
            .map(|i| ScanPoint {
                x: (i + 1) as f64,
                estimate: a.medians[i],
                low: a.median_cis[i].low,
                high: a.median_cis[i].high,
            })
            .collect(),
    })
}

/// `cargo xtask chain-sweep`: runs the sweep, analyses it, prints the table, then runs
/// and judges the confirmation experiment.
///
/// # Errors
/// Build, run or statistics failures.
pub fn run(root: &Path, config: &SweepConfig) -> Result<()> {
    let abba = build_abba(root)?;
    let dir = target_dir(root).join("chain-sweep");
    let sweep_plan = sweep_plan(config, &dir);
    let table = run_plan(&abba, &sweep_plan)?;
    let a = analyse(&table, config.post_hoc, config.seed)?;

    println!(
        "Chain sweep: abba compute --op {} --threads 1 --duration {} --json, chains 1..{}, \
         {} blocks, design random, seed {}\n",
        config.op, config.duration, config.max_chains, config.blocks, config.seed
    );
    print!("{}", sweep_table(&a, config.post_hoc).plain());
    if let Some(path) = &config.svg {
        let chart = throughput_chart(&a, config);
        bench_report::write_atomic(path, chart.svg.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        println!("\nchart: {}", path.display());
    }
    print_tests(&a, config);
    print_hypothesis(&a);

    let confirm_plan = confirmation_plan(config, &sweep_plan, a.standout, &dir);
    let confirm = run_plan(&abba, &confirm_plan)?;
    print_confirmation(&a, config, &confirm_plan, &confirm)?;
    println!(
        "raw data: {}, {}",
        sweep_plan.raw.display(),
        confirm_plan.raw.display()
    );
    Ok(())
}

/// The sweep: chains 1..=max_chains in random order per block, raw runs in
/// `DIR/sweep.jsonl`.
fn sweep_plan(config: &SweepConfig, dir: &Path) -> Plan {
    let kernel = |chains| KernelSpec {
        op: config.op,
        chains,
        duration: config.duration,
    };
    Plan {
        label: "sweep".into(),
        variants: (1..=config.max_chains)
            .map(|c| (kernel(c).name(), kernel(c)))
            .collect(),
        design: Design::Random,
        blocks: config.blocks,
        seed: config.seed,
        raw: dir.join("sweep.jsonl"),
        parameter: Some(ScanParameter {
            name: "chains".into(),
            values: (1..=config.max_chains).map(|c| c as f64).collect(),
        }),
    }
}

/// What the post-hoc tests compare each chain count with, as the table and text say it.
fn against(post_hoc: PostHoc) -> &'static str {
    match post_hoc {
        PostHoc::Neighbour => "previous",
        PostHoc::First => "chains=1",
    }
}

/// One row per chain count: median and its interval, then the post-hoc comparison.
fn sweep_table(a: &SweepAnalysis, post_hoc: PostHoc) -> TextTable {
    let mut t = TextTable::new([
        "chains".to_owned(),
        "median M ops/s".to_owned(),
        "95% CI of median".to_owned(),
        format!("ratio vs {}", against(post_hoc)),
        "95% CI (blocks)".to_owned(),
        "Wilcoxon p".to_owned(),
        "Holm p".to_owned(),
    ]);
    for (i, name) in a.names.iter().enumerate() {
        let ci = &a.median_cis[i];
        let mut row = vec![
            name.clone(),
            format!("{:.1}", a.medians[i]),
            format!("[{:.1}, {:.1}]", ci.low, ci.high),
        ];
        match a.steps.iter().find(|s| s.candidate == i) {
            Some(s) => row.extend([
                format!("{:.3}x", s.ratio),
                ratio_text(&s.ratio_ci),
                p_text(s.p_value),
                p_text(s.p_holm),
            ]),
            None => row.extend(["-", "-", "-", "-"].map(String::from)),
        }
        t.row(row);
    }
    t
}

/// The omnibus line, the Holm-corrected post-hoc line and, when the blocks are too few
/// for any post-hoc test to reject, a note saying how many would do.
fn print_tests(a: &SweepAnalysis, config: &SweepConfig) {
    let against = against(config.post_hoc);
    let f = &a.friedman;
    println!(
        "\nFriedman omnibus over {} blocks: chi2 = {:.2}, df = {}, p = {} -> {}",
        f.blocks,
        f.statistic,
        f.df,
        p_text(Some(f.p_value)),
        if f.p_value < ALPHA {
            "the chain counts differ"
        } else {
            "no difference detected among the chain counts"
        }
    );
    println!("{}", trend_line(a));
    let m = a.steps.iter().filter(|s| s.p_value.is_some()).count();
    let significant: Vec<String> = a
        .steps
        .iter()
        .filter(|s| f.p_value < ALPHA && s.p_holm.is_some_and(|p| p < ALPHA))
        .map(|s| format!("{} vs {}", a.names[s.candidate], a.names[s.reference]))
        .collect();
    println!(
        "Post-hoc: two-sided Wilcoxon signed-rank of each chain count vs {against}, Holm over {m} \
         comparisons, alpha {ALPHA}, gated by the omnibus: significant: {}",
        if significant.is_empty() {
            "none".to_owned()
        } else {
            significant.join(", ")
        }
    );
    let floor = m as f64 * min_wilcoxon_p(config.blocks);
    if floor >= ALPHA {
        let needed = (2..=64)
            .find(|&n| m as f64 * min_wilcoxon_p(n) < ALPHA)
            .unwrap_or(64);
        println!(
            "  note: with {} blocks the smallest two-sided exact Wilcoxon p is {:.4}, so after \
             Holm over {m} comparisons none can fall below {ALPHA} ({floor:.3} at best); \
             --blocks {needed} or more makes the post-hoc tests able to reject. Read the \
             block-bootstrap ratio intervals instead.",
            config.blocks,
            min_wilcoxon_p(config.blocks)
        );
    }
}

/// The trend line, worded as the report of `abba compare` / `abba analyze` words it.
fn trend_line(a: &SweepAnalysis) -> String {
    let t = &a.trend;
    let way = if t.z > 0.0 {
        ", values rise with chains"
    } else if t.z < 0.0 {
        ", values fall with chains"
    } else {
        ""
    };
    format!(
        "Trend across chains (1 to {}, {} values): Page's L = {:.2}, z = {:.2}, p = {} ({}, two-sided) -> {}{way}",
        a.names.len(),
        a.names.len(),
        t.statistic,
        t.z,
        p_text(Some(t.p_value)),
        t.method.as_str(),
        if t.p_value < ALPHA {
            "significant"
        } else {
            "not significant"
        }
    )
}

/// The sweep's standout, stated as a hypothesis.
fn print_hypothesis(a: &SweepAnalysis) {
    let s = a.standout;
    println!(
        "\nHYPOTHESIS (from the sweep, not a result): the largest relative step between \
         neighbours is {} -> {}, ratio {:.3}x. It was picked after looking at {} steps, so it \
         needs an independent confirmation.",
        a.names[s - 1],
        a.names[s],
        a.neighbour_ratios[s - 1],
        a.neighbour_ratios.len()
    );
}

/// The confirmation: only the standout and its lower neighbour, fresh seed and blocks,
/// raw runs in `DIR/confirmation.jsonl`.
fn confirmation_plan(config: &SweepConfig, sweep: &Plan, standout: usize, dir: &Path) -> Plan {
    Plan {
        label: "confirmation".into(),
        variants: vec![
            sweep.variants[standout - 1].clone(),
            sweep.variants[standout].clone(),
        ],
        design: Design::Random,
        blocks: config.confirm_blocks,
        seed: config.seed.wrapping_add(CONFIRM_SEED_OFFSET),
        raw: dir.join("confirmation.jsonl"),
        parameter: None,
    }
}

/// The confirmation's ratio and interval, and the verdict on the sweep's standout.
///
/// # Errors
/// Values that break the paired ratio.
fn print_confirmation(
    a: &SweepAnalysis,
    config: &SweepConfig,
    plan: &Plan,
    confirm: &BlockTable,
) -> Result<()> {
    let s = a.standout;
    let (ratio, ci) = paired_ratio(&confirm.values[0], &confirm.values[1], plan.seed)?;
    println!(
        "Confirmation: {} vs {} alone, {} fresh blocks, design random, seed {}: \
         ratio {ratio:.3}x, 95% block-bootstrap interval {}",
        a.names[s - 1],
        a.names[s],
        config.confirm_blocks,
        plan.seed,
        ratio_text(&ci)
    );
    match judge(a.neighbour_ratios[s - 1], &ci) {
        Confirmation::Confirmed => println!(
            "FINDING: {} differs from {} by {ratio:.3}x, confirmed by an independent experiment \
             (interval excludes 1 on the sweep's side).",
            a.names[s],
            a.names[s - 1]
        ),
        Confirmation::Inconclusive => println!(
            "NOT CONFIRMED: the independent interval includes 1; the sweep's standout stays a \
             hypothesis."
        ),
        Confirmation::Reversed => println!(
            "CONTRADICTED: the independent interval excludes 1 on the other side; the sweep's \
             standout was not reproducible."
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(values: Vec<Vec<f64>>) -> BlockTable {
        BlockTable {
            names: (1..=values.len()).map(|c| format!("chains={c}")).collect(),
            values,
        }
    }

    /// Six blocks of four configurations with a big 2 -> 3 step and small noise.
    fn synthetic() -> BlockTable {
        let level = [100.0, 110.0, 200.0, 205.0];
        let noise = [0.0, 1.0, -1.0, 0.5, -0.5, 0.25];
        table(
            level
                .iter()
                .enumerate()
                .map(|(v, l)| {
                    noise
                        .iter()
                        .enumerate()
                        .map(|(b, e)| l + e * (1.0 + v as f64) + b as f64 * 0.1)
                        .collect()
                })
                .collect(),
        )
    }

    #[test]
    fn standout_is_the_largest_neighbour_step() {
        let a = analyse(&synthetic(), PostHoc::Neighbour, 1).unwrap();
        assert_eq!(a.standout, 2);
        assert!((a.neighbour_ratios[1] - 200.0 / 110.0).abs() < 0.01);
        assert_eq!(a.steps.len(), 3);
        assert_eq!(a.steps[1].reference, 1);
        assert!(a.friedman.p_value < ALPHA);
        for s in &a.steps {
            assert!(s.p_holm.unwrap() >= s.p_value.unwrap());
        }
        // Six blocks, all of one sign: exact p = 2/64, and Holm over 3 keeps it above 0.05.
        assert!((a.steps[1].p_value.unwrap() - 2.0 / 64.0).abs() < 1e-12);
    }

    /// The sweep's trend is the one the analysis engine reports for the same data with
    /// the chain counts as the scanned parameter (what `abba analyze sweep.jsonl` prints).
    #[test]
    fn trend_is_the_engines_trend_for_a_chains_scan() {
        use bench_stats::{AnalysisConfig, Dataset, Observation, Series, analyze};
        let t = synthetic();
        let a = analyse(&t, PostHoc::Neighbour, 1).unwrap();
        let series = t
            .values
            .iter()
            .enumerate()
            .map(|(v, row)| {
                Series::new(
                    t.names[v].clone(),
                    row.iter()
                        .enumerate()
                        .map(|(b, &x)| Observation::in_block(x, b as u32)),
                )
                .with_parameter("chains", (v + 1) as f64)
            })
            .collect();
        let data = Dataset::new("ops/s", series)
            .with_higher_is_better(true)
            .with_design(bench_stats::Design::Random);
        let engine = analyze(&data, &AnalysisConfig::default()).unwrap();
        let e = engine.groups[0].trend.as_ref().unwrap();
        assert_eq!(e.statistic, a.trend.statistic);
        assert_eq!(e.p_value, a.trend.p_value);
        assert!(a.trend.z > 0.0);
        assert!(
            trend_line(&a).starts_with("Trend across chains (1 to 4, 4 values): Page's L = "),
            "{}",
            trend_line(&a)
        );
    }

    #[test]
    fn sweep_table_has_a_row_per_chain_count() {
        let a = analyse(&synthetic(), PostHoc::Neighbour, 1).unwrap();
        let text = sweep_table(&a, PostHoc::Neighbour).plain();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2 + 4, "{text}");
        assert!(lines[0].contains("ratio vs previous"), "{text}");
        assert!(
            lines[2].starts_with("chains=1") && lines[2].ends_with('-'),
            "{text}"
        );
        assert!(lines[4].contains("1.8"), "{text}");
    }

    #[test]
    fn throughput_chart_has_a_point_and_an_interval_per_chain_count() {
        let a = analyse(&synthetic(), PostHoc::Neighbour, 1).unwrap();
        let config = SweepConfig {
            op: Op::Int,
            blocks: 6,
            duration: 0.2,
            seed: 1,
            max_chains: 4,
            post_hoc: PostHoc::Neighbour,
            confirm_blocks: 12,
            svg: None,
        };
        let svg = throughput_chart(&a, &config).svg;
        let bars = svg.split("class=\"error-bars\"").next().unwrap();
        assert_eq!(bars[bars.rfind("<path").unwrap()..].matches('V').count(), 4);
        assert!(svg.contains(">median throughput (M ops/s)</text>"));
        assert!(svg.contains(">independent dependency chains (count)</text>"));
        assert!(svg.contains("95% bootstrap interval of the median"));
    }

    #[test]
    fn post_hoc_first_compares_against_chains_1() {
        let a = analyse(&synthetic(), PostHoc::First, 1).unwrap();
        assert!(a.steps.iter().all(|s| s.reference == 0));
        assert!((a.steps[2].ratio - 2.05).abs() < 0.02);
    }

    #[test]
    fn confirmation_needs_the_same_side() {
        let ci = |low, high| BootstrapInterval {
            estimate: (low + high) / 2.0,
            low,
            high,
            standard_error: 0.0,
            method: bench_stats::resample::IntervalMethod::Percentile,
            confidence: 0.95,
            resamples: 2000,
            skipped: 0,
            seed: 1,
        };
        assert_eq!(judge(1.8, &ci(1.7, 1.9)), Confirmation::Confirmed);
        assert_eq!(judge(0.8, &ci(0.7, 0.9)), Confirmation::Confirmed);
        assert_eq!(judge(1.8, &ci(0.99, 1.2)), Confirmation::Inconclusive);
        assert_eq!(judge(1.2, &ci(0.8, 0.9)), Confirmation::Reversed);
    }

    #[test]
    fn too_few_configurations_are_refused() {
        assert!(
            analyse(
                &table(vec![vec![1.0, 2.0], vec![2.0, 3.0]]),
                PostHoc::Neighbour,
                1
            )
            .is_err()
        );
        assert_eq!(min_wilcoxon_p(6), 2.0 / 64.0);
    }
}
