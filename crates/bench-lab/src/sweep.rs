//! `cargo xtask chain-sweep`: the chain-count sweep with the appendix's
//! multiple-comparison discipline, run through the same library calls as
//! `abba compare -P chains 1 8 --kernel 'chains={chains}' --confirm`.
//!
//! 1. **Sweep.** Chains 1..=8 of `abba compute --op OP --threads 1`, every block running
//!    all eight in a fresh random order ([`Design::Random`]), run by
//!    [`bench_sched::run_experiment`] with the chain counts as the scanned parameter.
//! 2. **Analysis.** [`bench_sched::analyze_input`], abba's own analysis of the experiment:
//!    Friedman's test over the blocks (do the chain counts differ at all?), Page's L trend
//!    test across the chain counts, and each chain count against chains=1 (the baseline)
//!    by abba's deciding test, Holm-adjusted and gated by the omnibus, with its ratio and
//!    interval. The raw file records each variant's chain count, so `abba analyze` of it
//!    prints the same numbers.
//! 3. **Hypothesis.** The standout ([`bench_stats::GroupAnalysis::standout`]): the
//!    significant comparison with the largest change. Picked after looking at seven
//!    comparisons, it is a hypothesis, not a result.
//! 4. **Confirmation.** [`Confirmation`], `--confirm`'s rerun: a separate experiment
//!    afterwards, a fresh seed and its own blocks, runs only the standout and the baseline,
//!    analysed on its own. The change is called a finding only if that analysis finds it
//!    faster or slower the same way as the sweep.
//!
//! `--svg FILE` also draws the sweep: each chain count's median throughput with its
//! bootstrap interval ([`throughput_chart`], through `bench_report::pictures::scan_chart`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bench_kernel::Op;
use bench_report::pictures::{Chart, ScanChart, ScanPoint, scan_chart};
use bench_sched::{
    Beside, ConfirmError, Confirmation, Design, Input, InterruptFlag, RawWriter, RealRunner,
    ScanParameter, analyze_input,
};
use bench_stats::descriptive::summarize;
use bench_stats::resample::{BootstrapConfig, BootstrapInterval, bootstrap_statistic};
use bench_stats::{Analysis, AnalysisConfig, Comparison, GroupAnalysis, Outcome, Sample, Verdict};

use crate::run::{
    BlockTable, KernelSpec, Plan, Progress, block_table, build_abba, run_config, target_dir,
};
use crate::table::TextTable;

/// Offset added to `--seed` for the confirmation experiment, so its run order and layout
/// padding are independent of the sweep's.
const CONFIRM_SEED_OFFSET: u64 = 0x00c0_ffee;

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
    /// Seed of the sweep's run order, layout padding and analysis; the confirmation
    /// uses a seed derived from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest chain count of the sweep (from 1).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(3..=16))]
    max_chains: u64,
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
            confirm_blocks: self.confirm_blocks,
            svg: self.svg.clone(),
        })
    }
}

/// The analysed sweep: abba's analysis of it, and each chain count's median with a
/// bootstrap interval for the table and the chart.
#[derive(Debug, Clone)]
pub struct SweepAnalysis {
    /// [`analyze_input`] of the sweep: one group, chains=1 its baseline.
    pub analysis: Analysis,
    /// Variant names.
    pub names: Vec<String>,
    /// Median per variant (M ops/s).
    pub medians: Vec<f64>,
    /// Bootstrap percentile interval of each variant's median (M ops/s).
    pub median_cis: Vec<BootstrapInterval>,
}

impl SweepAnalysis {
    /// The sweep's one group.
    fn group(&self) -> &GroupAnalysis {
        &self.analysis.groups[0]
    }
}

/// The analysis settings of the sweep and of its confirmation: abba's defaults under the
/// sweep's seed.
fn analysis_config(seed: u64) -> AnalysisConfig {
    AnalysisConfig {
        seed,
        ..AnalysisConfig::default()
    }
}

/// Each variant's median (M ops/s) and the bootstrap percentile interval of it.
///
/// # Errors
/// A variant without values.
fn medians(table: &BlockTable, seed: u64) -> Result<(Vec<f64>, Vec<BootstrapInterval>)> {
    let boot = BootstrapConfig {
        seed,
        ..BootstrapConfig::default()
    };
    let mut medians = Vec::with_capacity(table.values.len());
    let mut median_cis = Vec::with_capacity(table.values.len());
    for v in &table.values {
        medians.push(summarize(&Sample::new(v)?).median);
        let values = v.clone();
        let median = move |idx: &[usize]| {
            let picked = Sample::from_vec(idx.iter().map(|&i| values[i]).collect()).ok()?;
            Some(summarize(&picked).median)
        };
        median_cis.push(bootstrap_statistic(v.len(), median, &boot)?);
    }
    Ok((medians, median_cis))
}

/// Analyses a sweep: `input` through [`analyze_input`], `table` (its values in M ops/s)
/// for the medians. Time: the analysis's, plus k bootstraps of 2000 resamples.
///
/// # Errors
/// Fewer than 3 variants, or data the analysis refuses.
pub fn analyse(input: &Input, table: &BlockTable, seed: u64) -> Result<SweepAnalysis> {
    if table.values.len() < 3 {
        bail!("a sweep needs at least 3 configurations");
    }
    let analysis = analyze_input(input, &analysis_config(seed))?;
    if analysis.groups.len() != 1 {
        bail!(
            "the sweep's analysis has {} groups, not one",
            analysis.groups.len()
        );
    }
    let (medians, median_cis) = medians(table, seed)?;
    Ok(SweepAnalysis {
        analysis,
        names: table.names.clone(),
        medians,
        median_cis,
    })
}

/// The verdict of the confirmation experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// The rerun's analysis finds the same change (faster or slower): a finding.
    Confirmed,
    /// The rerun's analysis does not find a change either way.
    Inconclusive,
    /// The rerun's analysis finds the change the other way.
    Reversed,
}

/// Judges the rerun's comparison against the sweep's standout by their outcomes (abba's
/// decision of each).
pub fn judge(standout: &Comparison, rerun: &Comparison) -> Judgement {
    match (standout.outcome, rerun.outcome) {
        (a, b) if a == b && matches!(a, Outcome::Faster | Outcome::Slower) => Judgement::Confirmed,
        (Outcome::Faster, Outcome::Slower) | (Outcome::Slower, Outcome::Faster) => {
            Judgement::Reversed
        }
        _ => Judgement::Inconclusive,
    }
}

fn ratio_text(ci: Option<[f64; 2]>) -> String {
    ci.map_or_else(
        || "-".to_owned(),
        |[lo, hi]| format!("[{lo:.3}x, {hi:.3}x]"),
    )
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
    let experiment_config = sweep_plan.experiment_config(&abba)?;
    let experiment = run_config(&experiment_config, &sweep_plan)?;
    let input = Input::from_experiment(experiment);
    let table = block_table(&sweep_plan, &input.loaded)?;
    let a = analyse(&input, &table, config.seed)?;

    println!(
        "Chain sweep: abba compute --op {} --threads 1 --duration {} --json, chains 1..{}, \
         {} blocks, design random, seed {}\n",
        config.op, config.duration, config.max_chains, config.blocks, config.seed
    );
    print!("{}", sweep_table(&a).plain());
    if let Some(path) = &config.svg {
        let chart = throughput_chart(&a, config);
        bench_report::write_atomic(path, chart.svg.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        println!("\nchart: {}", path.display());
    }
    print_tests(&a);
    let Some(standout) = a.group().standout() else {
        println!(
            "\nNo chain count differs significantly from {}: nothing stands out, nothing to confirm.",
            a.group().baseline
        );
        println!("raw data: {}", sweep_plan.raw.display());
        return Ok(());
    };
    print_hypothesis(&a, standout);
    let seed = config.seed.wrapping_add(CONFIRM_SEED_OFFSET);
    let mut rerun = Confirmation::plan(&experiment_config, &a.analysis, seed)
        .context("the standout is not a variant of the sweep")?;
    rerun.config.blocks = config.confirm_blocks;
    let raw = dir.join("confirmation.jsonl");
    let confirmed = confirm(&rerun, &raw, seed)?;
    print_confirmation(&rerun, standout, &confirmed)?;
    println!("raw data: {}, {}", sweep_plan.raw.display(), raw.display());
    Ok(())
}

/// Runs `rerun` ([`Beside::run`]: the experiment, then its analysis under `seed`),
/// its raw runs in `raw`.
///
/// # Errors
/// The run's, or the analysis's.
fn confirm(rerun: &Confirmation, raw: &Path, seed: u64) -> Result<Analysis> {
    let mut out = RawWriter::create(raw)?;
    let mut progress = Progress {
        label: "confirmation",
        blocks: rerun.config.blocks,
    };
    let beside = Beside {
        stop: &InterruptFlag::new(),
        runner: &mut RealRunner::new(),
        out: &mut out,
        observer: &mut progress,
    };
    let analysed = beside.run(
        &rerun.config,
        &rerun.analysis_config(&analysis_config(seed)),
    );
    match analysed {
        Ok(a) => Ok(a),
        Err(ConfirmError::Run(e)) => {
            Err(anyhow::Error::new(e)
                .context(format!("confirmation (raw data: {})", raw.display())))
        }
        Err(e) => Err(anyhow::Error::new(e)),
    }
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

/// One row per chain count: median and its interval, then its comparison with the
/// baseline.
fn sweep_table(a: &SweepAnalysis) -> TextTable {
    let g = a.group();
    let level = (a.analysis.confidence * 100.0).round();
    let mut t = TextTable::new([
        "chains".to_owned(),
        "median M ops/s".to_owned(),
        "95% CI of median".to_owned(),
        format!("ratio vs {}", g.baseline),
        format!("{level:.0}% CI"),
        "p".to_owned(),
        "Holm p".to_owned(),
    ]);
    for (i, name) in a.names.iter().enumerate() {
        let ci = &a.median_cis[i];
        let mut row = vec![
            name.clone(),
            format!("{:.1}", a.medians[i]),
            format!("[{:.1}, {:.1}]", ci.low, ci.high),
        ];
        match g.comparisons.iter().find(|c| &c.candidate == name) {
            Some(c) => row.extend([
                c.ratio
                    .map_or_else(|| "-".to_owned(), |r| format!("{r:.3}x")),
                ratio_text(c.ratio_ci),
                p_text(c.decision.as_ref().and_then(|d| d.p_value)),
                p_text(c.p_value_adjusted),
            ]),
            None => row.extend(["-", "-", "-", "-"].map(String::from)),
        }
        t.row(row);
    }
    t
}

/// The omnibus line, the trend line and the post-hoc line, from the analysis.
fn print_tests(a: &SweepAnalysis) {
    let g = a.group();
    let alpha = a.analysis.alpha;
    if let Some(f) = &g.omnibus {
        println!(
            "\nFriedman omnibus over {} blocks: chi2 = {:.2}, df = {}, p = {} -> {}",
            a.blocks(),
            f.statistic,
            f.df,
            p_text(Some(f.p_value)),
            if f.significant {
                "the chain counts differ"
            } else {
                "no difference detected among the chain counts"
            }
        );
    }
    if let Some(line) = trend_line(g) {
        println!("{line}");
    }
    let m = g.comparisons.len();
    let test = g
        .comparisons
        .iter()
        .find_map(|c| c.decision.as_ref())
        .map_or("the deciding test", |d| d.test.as_str());
    let significant: Vec<String> = g
        .comparisons
        .iter()
        .filter(|c| c.verdict == Verdict::Significant)
        .map(|c| format!("{} vs {}", c.candidate, g.baseline))
        .collect();
    println!(
        "Post-hoc: {test} of each chain count vs {}, Holm over {m} comparisons, alpha {alpha}, \
         gated by the omnibus: significant: {}",
        g.baseline,
        if significant.is_empty() {
            "none".to_owned()
        } else {
            significant.join(", ")
        }
    );
}

impl SweepAnalysis {
    /// Blocks analysed (every variant has one value per block).
    fn blocks(&self) -> usize {
        self.group().benchmarks.first().map_or(0, |b| b.n)
    }
}

/// The trend line, worded as the report of `abba compare` / `abba analyze` words it.
fn trend_line(g: &GroupAnalysis) -> Option<String> {
    let t = g.trend.as_ref()?;
    let way = if t.z > 0.0 {
        ", values rise with chains"
    } else if t.z < 0.0 {
        ", values fall with chains"
    } else {
        ""
    };
    let (lo, hi) = (t.values.first()?, t.values.last()?);
    Some(format!(
        "Trend across {} ({lo} to {hi}, {} values): Page's L = {:.2}, z = {:.2}, p = {} ({}, two-sided) -> {}{way}",
        t.parameter,
        t.values.len(),
        t.statistic,
        t.z,
        p_text(Some(t.p_value)),
        t.method,
        if t.significant {
            "significant"
        } else {
            "not significant"
        }
    ))
}

/// The sweep's standout, stated as a hypothesis.
fn print_hypothesis(a: &SweepAnalysis, standout: &Comparison) {
    println!(
        "\nHYPOTHESIS (from the sweep, not a result): the largest significant change against {} \
         is {}, ratio {}. It was picked after looking at {} comparisons, so it needs an \
         independent confirmation.",
        a.group().baseline,
        standout.candidate,
        standout
            .ratio
            .map_or_else(|| "-".to_owned(), |r| format!("{r:.3}x")),
        a.group().comparisons.len()
    );
}

/// The confirmation's ratio and interval, and the verdict on the sweep's standout.
///
/// # Errors
/// A confirmation analysis without its comparison.
fn print_confirmation(
    rerun: &Confirmation,
    standout: &Comparison,
    confirmed: &Analysis,
) -> Result<()> {
    let c = confirmed
        .groups
        .first()
        .and_then(|g| g.comparisons.first())
        .context("the confirmation's analysis has no comparison")?;
    let ratio = c
        .ratio
        .map_or_else(|| "-".to_owned(), |r| format!("{r:.3}x"));
    println!(
        "Confirmation: {} vs {} alone, {} fresh blocks, design random, seed {}: \
         ratio {ratio}, {:.0}% interval {}: {}",
        rerun.candidate,
        rerun.baseline,
        rerun.config.blocks,
        rerun.config.seed,
        confirmed.confidence * 100.0,
        ratio_text(c.ratio_ci),
        c.outcome.as_str()
    );
    match judge(standout, c) {
        Judgement::Confirmed => println!(
            "FINDING: {} differs from {} by {ratio}, confirmed by an independent experiment \
             (its analysis finds it {} too).",
            rerun.candidate,
            rerun.baseline,
            c.outcome.as_str()
        ),
        Judgement::Inconclusive => println!(
            "NOT CONFIRMED: the independent experiment does not find a change; the sweep's \
             standout stays a hypothesis."
        ),
        Judgement::Reversed => println!(
            "CONTRADICTED: the independent experiment finds the change the other way; the \
             sweep's standout was not reproducible."
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::MEGA;
    use bench_sched::Loaded;
    use bench_stats::{Dataset, Observation, Series};

    /// Ten blocks of four configurations with a big 3 -> 4 step and small noise, as the
    /// table (M ops/s) and as the experiment's dataset (ops/s, chains the parameter). Not
    /// monotone (3 falls back below 2): a monotone scan's end is not a standout.
    fn synthetic() -> (Input, BlockTable) {
        let level = [100.0, 110.0, 105.0, 205.0];
        let noise = [0.0, 1.0, -1.0, 0.5, -0.5, 0.25, -0.25, 0.75, -0.75, 0.1];
        let values: Vec<Vec<f64>> = level
            .iter()
            .enumerate()
            .map(|(v, l)| {
                noise
                    .iter()
                    .enumerate()
                    .map(|(b, e)| l + e * (1.0 + v as f64) + b as f64 * 0.1)
                    .collect()
            })
            .collect();
        let names: Vec<String> = (1..=values.len()).map(|c| format!("chains={c}")).collect();
        let series = values
            .iter()
            .enumerate()
            .map(|(v, row)| {
                Series::new(
                    names[v].clone(),
                    row.iter()
                        .enumerate()
                        .map(|(b, &x)| Observation::in_block(x * MEGA, b as u32)),
                )
                .with_parameter("chains", (v + 1) as f64)
            })
            .collect();
        let dataset = Dataset::new("ops/s", series)
            .with_higher_is_better(true)
            .with_design(bench_stats::Design::Random);
        let input = Input {
            loaded: Loaded {
                dataset,
                warnings: Vec::new(),
            },
            experiment: None,
        };
        (input, BlockTable { names, values })
    }

    fn analysed() -> SweepAnalysis {
        let (input, table) = synthetic();
        analyse(&input, &table, 1).unwrap()
    }

    #[test]
    fn the_standout_is_the_analysis_largest_significant_change() {
        let a = analysed();
        let g = a.group();
        assert_eq!(g.baseline, "chains=1");
        assert_eq!(g.comparisons.len(), 3);
        assert!(g.omnibus.as_ref().unwrap().significant);
        let standout = g.standout().unwrap();
        assert_eq!(standout.candidate, "chains=4");
        assert!((standout.ratio.unwrap() - 2.05).abs() < 0.02);
        for c in &g.comparisons {
            let d = c.decision.as_ref().unwrap();
            assert!(c.p_value_adjusted.unwrap() >= d.p_value.unwrap());
        }
        assert_eq!(a.blocks(), 10);
    }

    #[test]
    fn the_trend_line_words_the_analysis_trend() {
        let a = analysed();
        let t = a.group().trend.as_ref().unwrap();
        assert!(t.z > 0.0);
        let line = trend_line(a.group()).unwrap();
        assert!(
            line.starts_with("Trend across chains (1 to 4, 4 values): Page's L = "),
            "{line}"
        );
        assert!(
            line.ends_with("significant, values rise with chains"),
            "{line}"
        );
    }

    #[test]
    fn sweep_table_has_a_row_per_chain_count() {
        let text = sweep_table(&analysed()).plain();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2 + 4, "{text}");
        assert!(lines[0].contains("ratio vs chains=1"), "{text}");
        assert!(
            lines[2].starts_with("chains=1") && lines[2].ends_with('-'),
            "{text}"
        );
        // chains=3 against chains=1: levels 105 over 100.
        assert!(
            lines[4].starts_with("chains=3") && lines[4].contains("1.05"),
            "{text}"
        );
    }

    #[test]
    fn throughput_chart_has_a_point_and_an_interval_per_chain_count() {
        let config = SweepConfig {
            op: Op::Int,
            blocks: 10,
            duration: 0.2,
            seed: 1,
            max_chains: 4,
            confirm_blocks: 12,
            svg: None,
        };
        let svg = throughput_chart(&analysed(), &config).svg;
        let bars = svg.split("class=\"error-bars\"").next().unwrap();
        assert_eq!(bars[bars.rfind("<path").unwrap()..].matches('V').count(), 4);
        assert!(svg.contains(">median throughput (M ops/s)</text>"));
        assert!(svg.contains(">independent dependency chains (count)</text>"));
        assert!(svg.contains("95% bootstrap interval of the median"));
    }

    #[test]
    fn confirmation_needs_the_same_outcome() {
        let a = analysed();
        let standout = a.group().standout().unwrap().clone();
        assert_eq!(standout.outcome, Outcome::Faster);
        let with = |outcome| Comparison {
            outcome,
            ..standout.clone()
        };
        assert_eq!(
            judge(&standout, &with(Outcome::Faster)),
            Judgement::Confirmed
        );
        assert_eq!(
            judge(&standout, &with(Outcome::Inconclusive)),
            Judgement::Inconclusive
        );
        assert_eq!(
            judge(&standout, &with(Outcome::Equivalent)),
            Judgement::Inconclusive
        );
        assert_eq!(
            judge(&standout, &with(Outcome::Slower)),
            Judgement::Reversed
        );
    }

    #[test]
    fn too_few_configurations_are_refused() {
        let (input, mut table) = synthetic();
        table.values.truncate(2);
        assert!(analyse(&input, &table, 1).is_err());
    }
}
