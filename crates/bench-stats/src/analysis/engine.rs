//! `analyze`: a [`Dataset`] in, one [`Analysis`] (`abba.analysis/1`) out.
//!
//! Per group (class, or everything in cross-class mode): descriptives of every benchmark,
//! then the significance test. Blocked data (every series has a block for every value and
//! the design is not `sequential`) are compared within complete blocks; anything else is
//! compared unpaired. The practical gate runs after the test, whatever the test was.

use crate::analysis::blocks::{BlockTable, block_table};
use crate::analysis::comparison::{CandidateInput, build_comparison};
use crate::analysis::config::{AnalysisConfig, Grouping};
use crate::analysis::paired_verdict::{paired_bootstrap_report, typical_run_omnibus};
use crate::analysis::significance::{
    DefaultTest, FriedmanTest, Group, SignificanceContext, SignificanceReport, SignificanceTest,
    check_report,
};
use crate::analysis::{carryover, exact, trend, warnings};
use crate::descriptive::Sample;
use crate::descriptive::summary::benchmark_summary;
use crate::error::StatsError;
use crate::model::dataset::{Dataset, Quantity, Series};
use crate::model::report::{
    ANALYSIS_SCHEMA, Analysis, BenchmarkSummary, GroupAnalysis, VerdictBasis, Warning, WarningCode,
};
use crate::paired::estimators::PairedEstimator;
use crate::paired::estimators::{PairedAnalysis, PairedConfig, paired_analysis_of_runs};
use crate::resample::bootstrap::BootstrapConfig;

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
/// use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, Verdict, analyze};
/// let series = |name: &str, base: f64| {
///     Series::new(name, (0..12).map(|b| Observation::in_block(base + f64::from(b % 3), b)))
/// };
/// let data = Dataset::new("ns", vec![series("old", 100.0), series("new", 90.0)])
///     .with_design(Design::Random);
/// let analysis = analyze(&data, &AnalysisConfig::default())?;
/// assert_eq!(analysis.groups[0].comparisons[0].verdict, Verdict::Significant);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn analyze(data: &Dataset, config: &AnalysisConfig) -> Result<Analysis, StatsError> {
    analyze_with(data, config, None)
}

/// Like [`analyze`], with a custom significance test deciding every group's verdicts, on
/// unpaired and blocked data alike (on blocked data the test sees the per-block values in
/// [`SignificanceContext::blocks`]). What the test returns for each candidate (p-value,
/// effect, shift) is reported in [`crate::Comparison::custom_test`]; the practical gate
/// applies to its effect's practical value.
///
/// # Errors
/// As [`analyze`]; also [`StatsError::LengthMismatch`] when the custom test answers for the
/// wrong number of candidates.
pub fn analyze_with(
    data: &Dataset,
    config: &AnalysisConfig,
    test: Option<&dyn SignificanceTest>,
) -> Result<Analysis, StatsError> {
    crate::analysis::progress::with_hook(config.progress.as_ref(), || {
        analyze_inner(data, config, test)
    })
}

/// [`analyze_with`], with the config's progress hook in place.
fn analyze_inner(
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
                warnings.push(Warning::new(
                    WarningCode::NoData,
                    Some(&s.name),
                    "no values: left out",
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
    let cross = config.grouping == Grouping::CrossClass;
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
        quantity: Some(data.quantity())
            .filter(|q| *q != Quantity::by_direction(data.higher_is_better)),
        min_practical_effect: config.min_practical_effect,
        equivalence_margin: config.equivalence_margin,
        practical: config.practical.to_text(),
        design: data.design,
        paired_estimator: Some(config.paired_estimator),
        grouping: config.grouping,
        groups,
        controls: Vec::new(),
        warnings,
        confirmation: None,
        levels: None,
        metrics: None,
        noise: None,
        native_time: None,
    })
    .map(|mut analysis| {
        if let Some((levels, more)) = crate::hierarchy::levels_report(data, &analysis, config) {
            analysis.levels = Some(levels);
            analysis.warnings.extend(more);
        }
        analysis
    })
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

/// One group's analysis: descriptives, warnings, the deciding test, one comparison per
/// candidate. Time: O(n log n) in the group's values plus the bootstrap's resamples.
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
        .collect::<Result<_, _>>()?;
    let baseline = config
        .baseline
        .as_ref()
        .and_then(|name| members.iter().position(|s| &s.name == name))
        .unwrap_or(0);
    // Baseline first, then the candidates in group order: comparison k is row k + 1.
    let mut order: Vec<usize> = vec![baseline];
    order.extend((0..members.len()).filter(|&i| i != baseline));
    let benchmarks = summaries(members, &samples, &order, cross);
    warning_checks(config, members, &samples, warnings);
    let table = pairing_table(data, members);
    let checked = carryover::check(data, members, table.as_ref(), &order);
    warnings::pairing(data, members.len(), table.as_ref(), warnings);
    let paired = paired_analyses(
        config,
        table.as_ref(),
        baseline,
        members.len(),
        data.higher_is_better,
    );

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
    let (report, basis) = decide(custom, &ctx, table.as_ref(), &paired, config)?;

    // One answer per candidate, matched by position (names may repeat across classes in
    // cross-class mode); `check_report` guarantees there is one for each.
    let mut comparisons: Vec<crate::model::report::Comparison> = order
        .iter()
        .skip(1)
        .zip(&report.pairwise)
        .map(|(&i, pw)| {
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
            build_comparison(&input, pw, &basis, warnings)
        })
        .collect();
    if data.quantity().is_count() {
        let side = |i: usize| exact::Side {
            name: &members[i].name,
            value: exact::constant(&samples[i]).unwrap_or(0.0),
            runs: samples[i].len(),
        };
        let base = side(baseline);
        for (c, &i) in comparisons.iter_mut().zip(order.iter().skip(1)) {
            let cand = side(i);
            if base.value > 0.0 && cand.value > 0.0 {
                exact::decide(
                    c,
                    &data.quantity(),
                    &base,
                    &cand,
                    config.equivalence_margin,
                    data.higher_is_better,
                    warnings,
                );
            }
        }
    }
    if let Some(t) = &table {
        carryover::attach(
            checked,
            data,
            members,
            t,
            &order,
            &mut comparisons,
            warnings,
        );
    }
    let group = GroupAnalysis {
        class: if cross { None } else { class },
        baseline: members[baseline].name.clone(),
        benchmarks,
        omnibus: report.omnibus,
        comparisons,
        trend: trend::trend(members, table.as_ref(), config.alpha),
    };
    warnings.extend(warnings::standout(&group));
    Ok(group)
}

/// The checks of a group whose only product is a warning (p99 withheld, drift,
/// autocorrelation), unless the config turns them off.
fn warning_checks(
    config: &AnalysisConfig,
    members: &[&Series],
    samples: &[Sample],
    warnings: &mut Vec<Warning>,
) {
    if config.warning_checks {
        warnings::p99_withheld(members, samples, warnings);
        warnings::iid(members, samples, warnings);
    }
}

/// Descriptive rows in `order`; in cross-class mode each row names its class.
fn summaries(
    members: &[&Series],
    samples: &[Sample],
    order: &[usize],
    cross: bool,
) -> Vec<BenchmarkSummary> {
    order
        .iter()
        .map(|&i| {
            let mut b = benchmark_summary(&members[i].name, &samples[i]);
            if cross {
                b.class = members[i].class.clone();
            }
            b
        })
        .collect()
}

/// The block table when the members are compared paired: the design pairs blocks, there
/// are 2+ members, and they share at least two blocks.
fn pairing_table(data: &Dataset, members: &[&Series]) -> Option<BlockTable> {
    let pairs = data.design.is_none_or(|d| d.pairs_blocks());
    if !pairs || members.len() < 2 {
        return None;
    }
    block_table(members).filter(|t| t.ids.len() >= 2)
}

/// The paired analysis of every candidate against the baseline, when blocked.
fn paired_analyses(
    config: &AnalysisConfig,
    table: Option<&BlockTable>,
    baseline: usize,
    members: usize,
    higher_is_better: bool,
) -> Vec<Option<PairedAnalysis>> {
    let mut paired: Vec<Option<PairedAnalysis>> = vec![None; members];
    let Some(t) = table else {
        return paired;
    };
    let paired_config = PairedConfig {
        bootstrap: BootstrapConfig {
            resamples: config.resamples,
            confidence: config.confidence,
            seed: config.seed,
            method: config.interval,
        },
        estimator: config.paired_estimator,
        higher_is_better,
        alpha: config.alpha,
        margin: config.equivalence_margin,
    };
    let base = &t.replicates[baseline];
    for (i, slot) in paired.iter_mut().enumerate() {
        if i != baseline {
            *slot = paired_analysis_of_runs(base, &t.replicates[i], &paired_config).ok();
        }
    }
    paired
}

/// Runs the test that decides: a custom test when given (with the blocks when the data
/// are blocked), else Friedman for 3+ blocked variants, the paired estimator for two, and
/// Kruskal-Wallis or Mann-Whitney for unpaired data.
fn decide(
    custom: Option<&dyn SignificanceTest>,
    ctx: &SignificanceContext<'_>,
    table: Option<&BlockTable>,
    paired: &[Option<PairedAnalysis>],
    config: &AnalysisConfig,
) -> Result<(SignificanceReport, VerdictBasis), StatsError> {
    let k = ctx.groups.len();
    let decided = match (custom, ctx.blocks.is_some()) {
        (Some(test), _) => (
            test.analyze(ctx),
            VerdictBasis::Custom(test.name().to_string()),
        ),
        (None, true) if k >= 3 => match table {
            Some(t) if config.paired_estimator == PairedEstimator::TypicalRun => (
                typical_run_omnibus(ctx, &t.replicates, paired, config),
                VerdictBasis::Friedman,
            ),
            _ => (FriedmanTest.analyze(ctx), VerdictBasis::Friedman),
        },
        (None, true) => (
            paired_bootstrap_report(ctx, paired, config),
            VerdictBasis::paired(config.paired_estimator),
        ),
        (None, false) if k >= 3 => (DefaultTest.analyze(ctx), VerdictBasis::KruskalWallis),
        (None, false) => (DefaultTest.analyze(ctx), VerdictBasis::MannWhitney),
    };
    check_report(ctx, &decided.0)?;
    Ok(decided)
}
