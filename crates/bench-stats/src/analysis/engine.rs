//! `analyze`: a [`Dataset`] in, one [`Analysis`] (`abba.analysis/1`) out.
//!
//! Per group (class, or everything in cross-class mode): descriptives of every benchmark,
//! then the significance test. Blocked data (every series has a block for every value and
//! the design is not `sequential`) are compared within complete blocks; anything else is
//! compared unpaired. The practical gate runs after the test, whatever the test was.

use std::collections::BTreeMap;

use crate::analysis::config::AnalysisConfig;
use crate::analysis::significance::{
    DefaultTest, FriedmanTest, Group, KruskalWallisTest, MannWhitneyTest, PairwiseComparison,
    SignificanceContext, SignificanceReport, SignificanceTest, check_report, dominance_effect,
};
use crate::analysis::verdict::{describe, outcome_of};
use crate::bootstrap::{BootstrapConfig, BootstrapInterval};
use crate::cliff::cliffs_delta;
use crate::dataset::{Dataset, Series};
use crate::error::StatsError;
use crate::hodges_lehmann::hodges_lehmann;
use crate::iid::iid_checks;
use crate::mann_whitney::mann_whitney_u;
use crate::model::{
    ANALYSIS_SCHEMA, Analysis, CliffsDeltaReport, Comparison, GroupAnalysis, MannWhitneyReport,
    PairedReport, ShiftReport, Verdict, Warning,
};
use crate::paired::{PairedAnalysis, PairedConfig, PairedEstimator, paired_analysis};
use crate::sample::Sample;
use crate::summary::benchmark_summary;
use crate::variance::paired_variance_components;
use crate::wilcoxon::{paired_hodges_lehmann, wilcoxon_signed_rank};

/// Analyzes `data` with abba's built-in tests.
///
/// # Errors
/// [`StatsError::InvalidParameter`] for a setting out of range,
/// [`StatsError::UnknownBaseline`] for a baseline name that no series has, [`StatsError::TooFewSamples`] when the dataset holds no values at all.
/// Degenerate comparisons (one value, all ties) are not errors: they come back as
/// `not_tested` with a reason.
///
/// # Examples
/// ```
/// use bench_stats::{AnalysisConfig, Dataset, Observation, Series, Verdict, analyze};
/// let series = |name: &str, base: f64| Series {
///     name: name.into(),
///     class: None,
///     observations: (0..12)
///         .map(|b| Observation { value: base + (b % 3) as f64, block: Some(b), position: None })
///         .collect(),
/// };
/// let data = Dataset {
///     unit: "ns".into(),
///     higher_is_better: false,
///     design: Some("random".into()),
///     series: vec![series("old", 100.0), series("new", 90.0)],
///     reference: None,
/// };
/// let analysis = analyze(&data, &AnalysisConfig::default())?;
/// assert_eq!(analysis.groups[0].comparisons[0].verdict, Verdict::Significant);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn analyze(data: &Dataset, config: &AnalysisConfig) -> Result<Analysis, StatsError> {
    analyze_with(data, config, None)
}

/// Like [`analyze`], with a custom significance test for unpaired groups (blocked data keep
/// the paired tests).
///
/// # Errors
/// As [`analyze`]; also [`StatsError::LengthMismatch`] when the custom test answers for the
/// wrong number of candidates.
pub fn analyze_with(
    data: &Dataset,
    config: &AnalysisConfig,
    test: Option<&dyn SignificanceTest>,
) -> Result<Analysis, StatsError> {
    config.validate()?;
    let mut warnings = Vec::new();
    let series: Vec<&Series> = data
        .series
        .iter()
        .filter(|s| {
            if s.observations.is_empty() {
                warnings.push(warning(
                    "no-data",
                    Some(&s.name),
                    "no values: left out".into(),
                ));
            }
            !s.observations.is_empty()
        })
        .collect();
    if series.is_empty() {
        return Err(StatsError::TooFewSamples {
            what: "analysis",
            needed: 1,
            got: 0,
        });
    }
    if let Some(name) = &config.baseline {
        if !series.iter().any(|s| &s.name == name) {
            let known: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
            return Err(StatsError::UnknownBaseline {
                name: name.clone(),
                known: known.join(", "),
            });
        }
    }
    let cross = config.grouping == crate::analysis::config::Grouping::CrossClass;
    let mut groups = Vec::new();
    for (class, members) in partition(&series, cross) {
        groups.push(analyze_group(
            data,
            config,
            test,
            class,
            &members,
            cross,
            &mut warnings,
        )?);
    }
    Ok(Analysis {
        schema: ANALYSIS_SCHEMA.to_string(),
        alpha: config.alpha,
        confidence: config.confidence,
        resamples: config.resamples,
        seed: config.seed,
        unit: data.unit.clone(),
        higher_is_better: data.higher_is_better,
        min_practical_effect: config.min_practical_effect,
        design: data.design.clone(),
        paired_estimator: Some(config.paired_estimator.as_str().to_string()),
        groups,
        controls: Vec::new(),
        warnings,
    })
}

fn warning(code: &str, benchmark: Option<&str>, message: String) -> Warning {
    Warning {
        code: code.to_string(),
        benchmark: benchmark.map(str::to_string),
        message,
    }
}

/// Splits series into comparison groups, keeping first-appearance order.
fn partition<'a>(series: &[&'a Series], cross: bool) -> Vec<(Option<String>, Vec<&'a Series>)> {
    let mut out: Vec<(Option<String>, Vec<&'a Series>)> = Vec::new();
    for s in series {
        let key = if cross { None } else { s.class.clone() };
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(s),
            None => out.push((key, vec![s])),
        }
    }
    out
}

/// Block means of every member over the blocks all members share, plus the per-block
/// replicate values. `None` when the data are not blocked.
struct BlockTable {
    /// `means[b][g]`.
    means: Vec<Vec<f64>>,
    /// `replicates[g][b]`: every value of member `g` in block `b`.
    replicates: Vec<Vec<Vec<f64>>>,
    /// Block ids, ascending.
    ids: Vec<u32>,
    dropped: usize,
}

fn block_table(members: &[&Series]) -> Option<BlockTable> {
    let mut per_member: Vec<BTreeMap<u32, Vec<f64>>> = Vec::with_capacity(members.len());
    for s in members {
        let mut map: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for o in &s.observations {
            map.entry(o.block?).or_default().push(o.value);
        }
        per_member.push(map);
    }
    let all: std::collections::BTreeSet<u32> =
        per_member.iter().flat_map(|m| m.keys().copied()).collect();
    let ids: Vec<u32> = all
        .iter()
        .copied()
        .filter(|b| per_member.iter().all(|m| m.contains_key(b)))
        .collect();
    let dropped = all.len() - ids.len();
    let replicates: Vec<Vec<Vec<f64>>> = per_member
        .iter()
        .map(|m| ids.iter().map(|b| m[b].clone()).collect())
        .collect();
    let means = (0..ids.len())
        .map(|b| {
            replicates
                .iter()
                .map(|r| r[b].iter().sum::<f64>() / r[b].len() as f64)
                .collect()
        })
        .collect();
    Some(BlockTable {
        means,
        replicates,
        ids,
        dropped,
    })
}

#[allow(clippy::too_many_arguments)]
fn analyze_group(
    data: &Dataset,
    config: &AnalysisConfig,
    custom: Option<&dyn SignificanceTest>,
    class: Option<String>,
    members: &[&Series],
    cross: bool,
    warnings: &mut Vec<Warning>,
) -> Result<GroupAnalysis, StatsError> {
    let samples: Vec<Sample> = members
        .iter()
        .map(|s| Sample::from_vec(s.observations.iter().map(|o| o.value).collect()))
        .collect::<Result<_, _>>()
        .map_err(|e| StatsError::InvalidParameter {
            name: "value",
            value: match e {
                crate::sample::SampleError::NonFinite { value, .. } => value,
                _ => 0.0,
            },
            reason: "every value must be a finite number",
        })?;
    let baseline = config
        .baseline
        .as_ref()
        .and_then(|name| members.iter().position(|s| &s.name == name))
        .unwrap_or(0);

    // Descriptives, baseline first.
    let mut order: Vec<usize> = vec![baseline];
    order.extend((0..members.len()).filter(|&i| i != baseline));
    let benchmarks = order
        .iter()
        .map(|&i| {
            let mut b = benchmark_summary(&members[i].name, &samples[i]);
            if cross {
                b.class = members[i].class.clone();
            }
            b
        })
        .collect::<Vec<_>>();
    let withheld: Vec<String> = members
        .iter()
        .zip(&samples)
        .filter(|(_, sample)| sample.len() < 100)
        .map(|(s, sample)| format!("{} (n = {})", s.name, sample.len()))
        .collect();
    if !withheld.is_empty() {
        warnings.push(warning(
            "p99-withheld",
            None,
            format!(
                "p99 withheld for {}: with fewer than 100 values the 99th percentile is just the maximum; median and p90 are reported instead",
                withheld.join(", ")
            ),
        ));
    }
    for (s, sample) in members.iter().zip(&samples) {
        if let Ok(iid) = iid_checks(sample) {
            if iid.drift {
                warnings.push(warning(
                    "drift",
                    Some(&s.name),
                    format!(
                        "the first and second halves of the runs differ (split-half Mann-Whitney p = {}): the machine's state moved during the experiment",
                        fmt_p(iid.drift_p_value)
                    ),
                ));
            }
            if iid.autocorrelated {
                warnings.push(warning(
                    "autocorrelation",
                    Some(&s.name),
                    format!(
                        "consecutive runs are correlated (lag-1 r = {:.2}); the effective number of independent runs is about {:.0} of {}",
                        iid.lag1_autocorrelation.unwrap_or(0.0),
                        iid.effective_n.unwrap_or(0.0),
                        iid.n
                    ),
                ));
            }
        }
    }

    // Blocked or not.
    let design_unpaired = data.design.as_deref() == Some("sequential");
    let table = if design_unpaired || members.len() < 2 {
        None
    } else {
        block_table(members)
    };
    let table = table.filter(|t| t.ids.len() >= 2);
    if let Some(t) = &table {
        if t.dropped > 0 {
            warnings.push(warning(
                "incomplete-blocks",
                None,
                format!(
                    "{} incomplete block(s) dropped: only blocks in which every variant ran are compared",
                    t.dropped
                ),
            ));
        }
    }
    if design_unpaired && members.len() >= 2 {
        warnings.push(warning(
            "unpaired-design",
            None,
            "sequential design: all runs of one variant, then the next; the comparison is unpaired, so drift between the sessions counts as an effect. Use --design abba to pair them".into(),
        ));
    } else if table.is_none() && members.len() >= 2 {
        warnings.push(warning(
            "unpaired-design",
            None,
            "the data carry no blocks, so the variants are compared unpaired (every run against every run): whatever drifted between the times each variant was measured counts as an effect. `abba compare` measures them in blocks".into(),
        ));
    }

    let groups: Vec<Group<'_>> = members
        .iter()
        .zip(&samples)
        .map(|(s, sample)| Group {
            name: &s.name,
            sample,
        })
        .collect();
    let ctx = SignificanceContext {
        groups: &groups,
        baseline,
        alpha: config.alpha,
        blocks: table.as_ref().map(|t| t.means.as_slice()),
    };
    let boot = BootstrapConfig {
        resamples: config.resamples,
        confidence: config.confidence,
        seed: config.seed,
        method: config.interval,
    };
    let paired_config = PairedConfig {
        bootstrap: boot,
        estimator: config.paired_estimator,
    };

    // Paired analysis of every candidate (when blocked).
    let mut paired: Vec<Option<PairedAnalysis>> = vec![None; members.len()];
    if let Some(t) = &table {
        let base_col: Vec<f64> = t.means.iter().map(|row| row[baseline]).collect();
        let base_sample = Sample::from_vec(base_col).ok();
        for (i, slot) in paired.iter_mut().enumerate() {
            if i == baseline {
                continue;
            }
            let cand = Sample::from_vec(t.means.iter().map(|row| row[i]).collect()).ok();
            if let (Some(b), Some(c)) = (&base_sample, &cand) {
                *slot = paired_analysis(b, c, &paired_config).ok();
            }
        }
    }

    let (report, basis): (SignificanceReport, String) = match (custom, &table) {
        (Some(test), None) => {
            let r = test.analyze(&ctx);
            check_report(&ctx, &r)?;
            (r, test.name().to_string())
        }
        (_, Some(_)) if members.len() >= 3 => {
            (FriedmanTest.analyze(&ctx), FriedmanTest.name().to_string())
        }
        (_, Some(_)) => (
            paired_bootstrap_report(&ctx, &paired, config),
            paired_basis(config.paired_estimator),
        ),
        (None, None) => {
            let name = if members.len() >= 3 {
                KruskalWallisTest.name()
            } else {
                MannWhitneyTest.name()
            };
            (DefaultTest.analyze(&ctx), name.to_string())
        }
    };

    let mut comparisons = Vec::new();
    // One answer per candidate, in group order (names may repeat across classes in
    // cross-class mode, so answers are matched by position, not by name).
    for (k, &i) in order.iter().skip(1).enumerate() {
        let Some(pw) = report.pairwise.get(k) else {
            continue;
        };
        let input = CandidateInput {
            data,
            config,
            members,
            samples: &samples,
            baseline,
            candidate: i,
            paired: paired[i].as_ref(),
            table: table.as_ref(),
        };
        comparisons.push(build_comparison(&input, pw, &basis, warnings));
    }
    if let Some(t) = &table {
        if members.len() == 2 {
            carryover_warnings(data, members, t, warnings);
        }
    }
    Ok(GroupAnalysis {
        class: if cross { None } else { class },
        baseline: members[baseline].name.clone(),
        benchmarks,
        omnibus: report.omnibus,
        comparisons,
    })
}

/// The verdict basis of a two-variant paired comparison: `paired-signed-rank:hl-log-ratio`
/// for the default, `paired-bootstrap:<estimator>` for the bootstrap estimators.
fn paired_basis(estimator: PairedEstimator) -> String {
    match estimator {
        PairedEstimator::HodgesLehmannLogRatio => {
            format!("paired-signed-rank:{}", estimator.as_str())
        }
        _ => format!("paired-bootstrap:{}", estimator.as_str()),
    }
}

/// The fewest blocks with which a two-sided paired test can reach `alpha` at all: the
/// smallest exact sign or signed-rank p-value with `n` blocks is `2 / 2^n`, so
/// `n >= log2(2 / alpha)` (6 blocks at alpha = 0.05).
pub(crate) fn min_paired_blocks(alpha: f64) -> usize {
    (2.0 / alpha).log2().ceil().max(2.0) as usize
}

/// The two-variant paired verdict: the configured estimator's interval (block bootstrap,
/// or signed-rank inversion for the default) excludes "no difference". Its practical value is the paired dominance over blocks.
fn paired_bootstrap_report(
    ctx: &SignificanceContext<'_>,
    paired: &[Option<PairedAnalysis>],
    config: &AnalysisConfig,
) -> SignificanceReport {
    let pairwise = ctx
        .candidates()
        .map(|i| {
            let name = ctx.groups[i].name.to_string();
            let Some(pa) = &paired[i] else {
                return PairwiseComparison {
                    candidate: name,
                    p_value: None,
                    p_value_adjusted: None,
                    verdict: Verdict::NotTested,
                    effect: None,
                    shift: None,
                };
            };
            let (point, interval) = pa.primary();
            let null = config.paired_estimator.null_value();
            // Too few blocks: no paired test can reach alpha, and an interval formed anyway
            // would cover less than it claims (the signed-rank one falls back to min..max).
            let enough = pa.blocks >= min_paired_blocks(config.alpha)
                && interval
                    .as_ref()
                    .is_ok_and(|ci| ci.confidence + 1e-9 >= config.confidence);
            let verdict = match (point, interval) {
                _ if !enough => Verdict::NotTested,
                (Some(_), Ok(ci)) if ci.low > null || ci.high < null => Verdict::Significant,
                (Some(_), Ok(_)) => Verdict::NotSignificant,
                _ => Verdict::NotTested,
            };
            let base: Vec<f64> = pa.block_values.iter().map(|v| v[0]).collect();
            let cand: Vec<f64> = pa.block_values.iter().map(|v| v[1]).collect();
            let diffs: Vec<f64> = cand.iter().zip(&base).map(|(c, b)| c - b).collect();
            PairwiseComparison {
                candidate: name,
                p_value: wilcoxon_signed_rank(&diffs).ok().map(|w| w.p_value),
                p_value_adjusted: None,
                verdict,
                effect: dominance_effect(&base, &cand),
                shift: None,
            }
        })
        .collect();
    SignificanceReport {
        pairwise,
        omnibus: None,
    }
}

/// Everything [`build_comparison`] reads about one candidate.
struct CandidateInput<'a> {
    data: &'a Dataset,
    config: &'a AnalysisConfig,
    members: &'a [&'a Series],
    samples: &'a [Sample],
    baseline: usize,
    candidate: usize,
    paired: Option<&'a PairedAnalysis>,
    table: Option<&'a BlockTable>,
}

fn interval_bounds(ci: &Result<BootstrapInterval, StatsError>) -> Option<[f64; 2]> {
    ci.as_ref().ok().map(BootstrapInterval::bounds)
}

fn build_comparison(
    input: &CandidateInput<'_>,
    pw: &PairwiseComparison,
    basis: &str,
    warnings: &mut Vec<Warning>,
) -> Comparison {
    let config = input.config;
    let base = &input.samples[input.baseline];
    let cand = &input.samples[input.candidate];
    let name = &input.members[input.candidate].name;

    let mw = mann_whitney_u(base, cand).ok();
    let cliff = cliffs_delta(base, cand);
    let hl = hodges_lehmann(base, cand, config.confidence)
        .ok()
        .map(|s| ShiftReport {
            shift: s.shift,
            ci_low: Some(s.ci_low),
            ci_high: Some(s.ci_high),
        });

    // The ratio the report leads with: the paired estimator's, else the ratio of medians.
    let (ratio, ratio_ci) = match input.paired {
        Some(pa) => {
            let (point, ci) = match config.paired_estimator {
                PairedEstimator::MedianLogRatio => (pa.median_ratio, &pa.median_ratio_ci),
                PairedEstimator::HodgesLehmannLogRatio => (pa.hl_ratio, &pa.hl_ratio_ci),
                _ => (pa.ratio, &pa.ratio_ci),
            };
            (point, interval_bounds(ci))
        }
        None => median_ratio(base, cand, config),
    };

    let paired = input.paired.map(|pa| paired_report(pa, input, config));
    let reference = input
        .table
        .and_then(|t| reference_report(input.data, t, input, config, warnings));

    // The practical gate, applied to whatever the test said.
    let mut verdict = pw.verdict;
    let practical = pw.effect.as_ref().and_then(|e| e.practical_value);
    let mut downgraded = None;
    if verdict == Verdict::Significant && config.min_practical_effect > 0.0 {
        if let Some(value) = practical {
            if value < config.min_practical_effect {
                verdict = Verdict::NotSignificant;
                downgraded = Some(value);
                warnings.push(warning(
                    "practical-gate",
                    Some(name),
                    format!(
                        "significant, but the practical effect {} = {:.3} is below the minimum {:.3}: reported as not significant (--min-practical-effect 0 turns the gate off)",
                        pw.effect.as_ref().map_or("", |e| e.metric.as_str()),
                        value,
                        config.min_practical_effect
                    ),
                ));
            }
        }
    }
    let outcome = outcome_of(
        verdict,
        ratio,
        ratio_ci,
        input.data.higher_is_better,
        config,
    );
    let summary = describe(&crate::analysis::verdict::Facts {
        candidate: name,
        baseline: &input.members[input.baseline].name,
        outcome,
        verdict,
        ratio,
        ratio_ci,
        higher_is_better: input.data.higher_is_better,
        blocks: input.paired.map(|p| p.blocks),
        runs: (base.len(), cand.len()),
        basis,
        too_few_blocks: input
            .paired
            .map(|p| p.blocks)
            .filter(|&b| b < min_paired_blocks(config.alpha))
            .map(|b| (b, min_paired_blocks(config.alpha))),
        downgraded,
        effect: pw.effect.as_ref(),
        config,
    });

    Comparison {
        candidate: name.clone(),
        verdict,
        verdict_basis: basis.to_string(),
        outcome,
        summary,
        ratio,
        ratio_ci,
        mann_whitney: mw.map(|m| MannWhitneyReport {
            u: m.u,
            p_value: m.p_value,
            method: m.method.as_str().to_string(),
        }),
        p_value_adjusted: pw.p_value_adjusted,
        cliffs_delta: Some(CliffsDeltaReport {
            value: cliff.delta,
            magnitude: if downgraded.is_some() {
                "negligible".to_string()
            } else {
                cliff.magnitude.as_str().to_string()
            },
        }),
        hodges_lehmann: hl,
        paired,
        reference,
    }
}

fn paired_report(
    pa: &PairedAnalysis,
    input: &CandidateInput<'_>,
    config: &AnalysisConfig,
) -> PairedReport {
    let diffs: Vec<f64> = pa.block_values.iter().map(|v| v[1] - v[0]).collect();
    let mut report = pa.to_report();
    report.wilcoxon_p = wilcoxon_signed_rank(&diffs).ok().map(|w| w.p_value);
    report.hodges_lehmann = paired_hodges_lehmann(&diffs, config.confidence)
        .ok()
        .map(|s| ShiftReport {
            shift: s.estimate,
            ci_low: Some(s.ci_low),
            ci_high: Some(s.ci_high),
        });
    // Variance components need replicates: ABBA gives two runs of each variant per block.
    report.variance_components = input.table.and_then(|t| {
        let (base, cand) = (
            &t.replicates[input.baseline],
            &t.replicates[input.candidate],
        );
        let replicated = base.iter().chain(cand.iter()).any(|r| r.len() > 1);
        replicated
            .then(|| paired_variance_components(base, cand).ok())
            .flatten()
            .map(|vc| vc.to_report())
    });
    report
}

fn fmt_p(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
        None => "n/a".to_string(),
    }
}

/// Ratio of the candidate's median to the baseline's, each sample resampled on its own.
struct MedianRatioStat<'a> {
    baseline: &'a [f64],
    candidate: &'a [f64],
}

impl crate::bootstrap::Statistic for MedianRatioStat<'_> {
    fn sizes(&self) -> Vec<usize> {
        vec![self.baseline.len(), self.candidate.len()]
    }

    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let pick = |data: &[f64], ix: &[usize]| -> f64 {
            crate::summary::median(&ix.iter().map(|&i| data[i]).collect::<Vec<_>>())
        };
        let b = pick(self.baseline, &idx[0]);
        let c = pick(self.candidate, &idx[1]);
        let r = c / b;
        (b > 0.0 && r.is_finite()).then_some(r)
    }
}

/// Above this many values in all, the unpaired median-ratio interval comes from order
/// statistics instead of the bootstrap (same coverage asymptotically, O(n log n) instead of
/// O(resamples n)).
const MEDIAN_RATIO_BOOTSTRAP_MAX: usize = 20_000;

/// Unpaired ratio of medians with a two-sample bootstrap interval (order-statistic interval
/// for large samples); `None` when a median is not positive.
fn median_ratio(
    base: &Sample,
    cand: &Sample,
    config: &AnalysisConfig,
) -> (Option<f64>, Option<[f64; 2]>) {
    if base.len() + cand.len() > MEDIAN_RATIO_BOOTSTRAP_MAX {
        return median_ratio_large(base, cand, config.confidence);
    }
    let stat = MedianRatioStat {
        baseline: base.values(),
        candidate: cand.values(),
    };
    let boot = BootstrapConfig {
        resamples: config.resamples,
        confidence: config.confidence,
        seed: config.seed,
        method: crate::bootstrap::IntervalMethod::Percentile,
    };
    let identity = [
        (0..base.len()).collect::<Vec<_>>(),
        (0..cand.len()).collect::<Vec<_>>(),
    ];
    let point = crate::bootstrap::Statistic::value(&stat, &identity);
    let ci = if base.len() >= 2 && cand.len() >= 2 && point.is_some() {
        crate::bootstrap::run(&stat, &boot).ok().map(|i| i.bounds())
    } else {
        None
    };
    (point, ci)
}

/// Ratio of medians with a distribution-free interval for large samples: each median's
/// order-statistic interval (ranks n/2 -+ z sqrt(n)/2) gives the standard error of its log,
/// and the two combine on the log scale. Needs every value positive.
fn median_ratio_large(
    base: &Sample,
    cand: &Sample,
    confidence: f64,
) -> (Option<f64>, Option<[f64; 2]>) {
    let z = crate::special::normal_ppf(0.5 + confidence / 2.0).unwrap_or(1.96);
    let log_median_and_se = |s: &Sample| -> Option<(f64, f64)> {
        let sorted = s.sorted();
        if sorted[0] <= 0.0 {
            return None;
        }
        let med = crate::summary::quantile_sorted(&sorted, 0.5);
        let (lo, hi) = crate::summary::median_interval_sorted(&sorted, z);
        Some((med.ln(), (hi.ln() - lo.ln()) / (2.0 * z)))
    };
    let (Some((mb, sb)), Some((mc, sc))) = (log_median_and_se(base), log_median_and_se(cand))
    else {
        return (None, None);
    };
    let log_ratio = mc - mb;
    let se = (sb * sb + sc * sc).sqrt();
    let ci = [(log_ratio - z * se).exp(), (log_ratio + z * se).exp()];
    (
        Some(log_ratio.exp()),
        ci.iter().all(|v| v.is_finite()).then_some(ci),
    )
}

fn reference_report(
    data: &Dataset,
    table: &BlockTable,
    input: &CandidateInput<'_>,
    config: &AnalysisConfig,
    warnings: &mut Vec<Warning>,
) -> Option<crate::model::ReferenceReport> {
    let reference = data.reference.as_ref()?;
    let by_block: BTreeMap<u32, f64> = reference.iter().copied().collect();
    let mut rows = Vec::new();
    for (b, id) in table.ids.iter().enumerate() {
        if let Some(&r) = by_block.get(id) {
            rows.push((
                table.means[b][input.baseline],
                table.means[b][input.candidate],
                r,
            ));
        }
    }
    let sample =
        |f: fn(&(f64, f64, f64)) -> f64| Sample::from_vec(rows.iter().map(f).collect()).ok();
    let (b, c, r) = (sample(|x| x.0)?, sample(|x| x.1)?, sample(|x| x.2)?);
    let boot = BootstrapConfig {
        resamples: config.resamples,
        confidence: config.confidence,
        seed: config.seed,
        method: config.interval,
    };
    let ror = crate::reference::ratio_of_ratios(&b, &c, &r, &boot).ok()?;
    if ror.noisy {
        warnings.push(warning(
            "noisy-reference",
            Some(&input.members[input.candidate].name),
            format!(
                "the reference varies by {:.1}% from block to block, enough to bias the ratio of ratios by about {:.2}%; judge it against the block values",
                ror.reference_cv.unwrap_or(0.0) * 100.0,
                ror.approximate_bias.unwrap_or(0.0) * 100.0
            ),
        ));
    }
    Some(ror.to_report())
}

/// The ABBA carryover diagnostic for a two-variant blocked group: warns when the values
/// follow position (who ran just before) rather than version.
fn carryover_warnings(
    data: &Dataset,
    members: &[&Series],
    table: &BlockTable,
    warnings: &mut Vec<Warning>,
) {
    use crate::carryover::{CarryoverConfig, CarryoverFinding, CarryoverRun, carryover};
    if data.design.as_deref() != Some("abba") {
        return;
    }
    // Positions among the two variants' runs only (a reference run may sit in the block).
    let mut by_block: BTreeMap<u32, Vec<(u32, usize, f64)>> = BTreeMap::new();
    for (variant, s) in members.iter().enumerate() {
        for o in &s.observations {
            if let (Some(b), Some(p)) = (o.block, o.position) {
                if table.ids.binary_search(&b).is_ok() {
                    by_block.entry(b).or_default().push((p, variant, o.value));
                }
            }
        }
    }
    let mut runs = Vec::new();
    for (block, mut cells) in by_block {
        cells.sort_by_key(|c| c.0);
        for (position, (_, variant, value)) in cells.into_iter().enumerate() {
            runs.push(CarryoverRun {
                variant,
                block,
                position: position as u32,
                value,
            });
        }
    }
    let Ok(report) = carryover(&runs, &CarryoverConfig::default()) else {
        return;
    };
    let message = match report.finding {
        CarryoverFinding::NotDetected => return,
        CarryoverFinding::PositionDominates => format!(
            "carryover: runs that follow the other variant differ by {:+.4} on average (sign test p = {}), as much as the version effect itself; the result may reflect run order, not the change",
            report.position_effect,
            fmt_p(Some(report.p_value))
        ),
        _ => format!(
            "carryover: runs that follow the other variant differ by {:+.4} on average (sign test p = {}); ABBA order cancels a symmetric carryover, but consider --settle",
            report.position_effect,
            fmt_p(Some(report.p_value))
        ),
    };
    warnings.push(warning("carryover", None, message));
}
