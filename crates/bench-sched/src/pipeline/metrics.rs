//! Several metrics of one run, one decision (issue 27): every run records wall, user and
//! system time and peak RSS, and the counts when counted. This module re-decides saved runs
//! on another recorded metric ([`Input::on_metric`], `abba analyze --metric`), and for a
//! counted experiment puts every comparison's ratio on each other recorded metric beside
//! the verdict's ([`metrics_report`]), warns when two of them disagree in direction beyond
//! their intervals, and measures how far layout (the environment size) moves the counts.

use std::collections::BTreeMap;

use bench_stats::{Analysis, AnalysisConfig, Warning, WarningCode};

use bench_stats::model::{LayoutSpread, MetricComparison, MetricEffect, MetricsReport};

use crate::counter::{CountEvent, CounterSource};
use crate::import::Loaded;
use crate::pipeline::Input;
use crate::raw::Experiment;
use crate::runner::Metric;

/// Why a saved file cannot be re-decided on a metric.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetricUnavailable {
    /// The input is not one raw file (CSV, hyperfine JSON, or several files).
    #[error(
        "re-deciding on another metric needs one raw file (abba compare --output): CSV and hyperfine files hold one value per run"
    )]
    NotRaw,
    /// The file does not record the metric.
    #[error("the file does not record {metric} (it records: {recorded})")]
    NotRecorded {
        /// The metric asked for.
        metric: String,
        /// What the file records, comma-separated.
        recorded: String,
    },
    /// The file's times and memory were measured under valgrind.
    #[error(
        "the file was counted under valgrind, so its times and memory are valgrind's, not the program's; decide on instructions, or measure {metric} without --counter valgrind"
    )]
    UnderValgrind {
        /// The metric asked for.
        metric: String,
    },
}

/// Every metric the runs of `experiment` record, in the report's order: wall, user, sys,
/// cpu, max-rss (every run has them), the file's own JSON field, then each count some
/// successful run has.
pub fn recorded_metrics(experiment: &Experiment) -> Vec<Metric> {
    let own = experiment.header.metric.clone();
    let mut out = vec![
        Metric::Wall,
        Metric::User,
        Metric::Sys,
        Metric::Cpu,
        Metric::MaxRss,
    ];
    if let Metric::Json(_) = own {
        out.push(own);
    }
    for e in CountEvent::ALL {
        if experiment
            .runs
            .iter()
            .any(|r| r.succeeded() && r.count(e).is_some())
        {
            out.push(Metric::Count(e));
        }
    }
    out
}

fn counter_of(experiment: &Experiment) -> Option<CounterSource> {
    experiment.header.counter
}

impl Input {
    /// The same saved runs decided on `metric`, a metric the file records (see
    /// [`recorded_metrics`]); the input itself when it already is.
    ///
    /// # Errors
    /// [`MetricUnavailable`]: the input is not one raw file, does not record `metric`,
    /// or was counted under valgrind and `metric` is a time or memory.
    pub fn on_metric(&self, metric: &Metric) -> Result<Input, MetricUnavailable> {
        let Some(e) = &self.experiment else {
            return Err(MetricUnavailable::NotRaw);
        };
        if *metric == e.header.metric {
            return Ok(self.clone());
        }
        let recorded = recorded_metrics(e);
        if !recorded.contains(metric) {
            return Err(MetricUnavailable::NotRecorded {
                metric: metric.to_string(),
                recorded: recorded
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        if metric.count_event().is_none()
            && counter_of(e).is_some_and(|c| !c.times_are_the_programs())
        {
            return Err(MetricUnavailable::UnderValgrind {
                metric: metric.to_string(),
            });
        }
        let mut loaded = e.to_dataset_on(metric);
        // The reader's remarks about the file itself (cut lines, ...) still hold.
        for w in &self.loaded.warnings {
            if !loaded.warnings.iter().any(|n| n.message == w.message) {
                loaded.warnings.push(w.clone());
            }
        }
        let mut experiment = e.clone();
        experiment.header.metric = metric.clone();
        experiment.header.unit = metric.unit().to_owned();
        experiment.header.higher_is_better = metric.higher_is_better();
        // A run's `metric` holds the file's own non-time value (JSON field, max-rss):
        // another metric reads its own field.
        experiment.runs.update(|r| r.metric = None);
        Ok(Input {
            loaded: Loaded {
                dataset: loaded.dataset,
                warnings: loaded.warnings,
            },
            experiment: Some(experiment),
        })
    }
}

/// Metrics that measure what a change costs, whose disagreement deserves a warning.
fn is_cost(metric: &Metric) -> bool {
    matches!(
        metric,
        Metric::Wall
            | Metric::User
            | Metric::Count(CountEvent::Instructions)
            | Metric::Count(CountEvent::Cycles)
    )
}

/// "executes 2.1% fewer instructions", "takes 3.4% more time".
fn change_words(metric: &Metric, ratio: f64) -> String {
    let pct = (ratio - 1.0).abs() * 100.0;
    let pct = if pct < 0.1 {
        format!("{pct:.3}%")
    } else {
        format!("{pct:.1}%")
    };
    let more = ratio > 1.0;
    let (fewer, less) = if more {
        ("more", "more")
    } else {
        ("fewer", "less")
    };
    match metric {
        Metric::Wall => format!("takes {pct} {less} time"),
        Metric::User => format!("uses {pct} {less} user CPU time"),
        Metric::Sys => format!("uses {pct} {less} system CPU time"),
        Metric::Cpu => format!("uses {pct} {less} CPU time"),
        Metric::MaxRss => format!("uses {pct} {less} memory"),
        Metric::Count(CountEvent::Cycles) => format!("takes {pct} {fewer} cycles"),
        Metric::Count(CountEvent::BranchMisses) => {
            format!("mispredicts {pct} {fewer} branches")
        }
        Metric::Count(CountEvent::CacheMisses) => format!("has {pct} {fewer} cache misses"),
        Metric::Count(e) => format!("executes {pct} {fewer} {e}"),
        Metric::Json(field) => format!("has {pct} {less} {field}"),
    }
}

fn direction(ci: Option<[f64; 2]>) -> &'static str {
    match ci {
        Some([lo, _]) if lo > 1.0 => "larger",
        Some([_, hi]) if hi < 1.0 => "smaller",
        _ => "unclear",
    }
}

/// A comparison's ratio and its interval.
type Ratio = (Option<f64>, Option<[f64; 2]>);

/// One metric's ratio of one comparison.
type Effect = (Metric, Option<f64>, Option<[f64; 2]>);

/// Each comparison's (class, candidate) → (ratio, interval) in `analysis`.
fn ratios(analysis: &Analysis) -> BTreeMap<(Option<String>, String), Ratio> {
    analysis
        .groups
        .iter()
        .flat_map(|g| {
            g.comparisons.iter().map(move |c| {
                (
                    (g.class.clone(), c.candidate.clone()),
                    (c.ratio, c.ratio_ci),
                )
            })
        })
        .collect()
}

/// For a counted experiment (its header names a counter): every comparison's ratio and
/// interval on each other recorded metric, the warnings where two cost metrics (wall,
/// user, instructions, cycles) disagree in direction beyond their intervals, and the
/// spread layout causes in the counts. `None` without a counter or an experiment.
/// Time: one analysis per recorded metric.
pub fn metrics_report(
    input: &Input,
    analysis: &Analysis,
    config: &AnalysisConfig,
) -> Option<(MetricsReport, Vec<Warning>)> {
    let e = input.experiment.as_ref()?;
    let counter = counter_of(e)?;
    let own = e.header.metric.clone();
    let programs = counter.times_are_the_programs();
    let others: Vec<Metric> = recorded_metrics(e)
        .into_iter()
        .filter(|m| *m != own && *m != Metric::Cpu && !matches!(m, Metric::Json(_)))
        .collect();
    // Only each metric's ratio and interval are read: the checks that only warn are skipped.
    let plain = AnalysisConfig {
        sequential: None,
        warning_checks: false,
        ..config.clone()
    };
    let mut per_metric: Vec<(Metric, BTreeMap<_, _>)> = vec![(own.clone(), ratios(analysis))];
    for m in &others {
        let loaded = e.to_dataset_on(m);
        if let Ok(a) = bench_stats::analyze(&loaded.dataset, &plain) {
            per_metric.push((m.clone(), ratios(&a)));
        }
    }
    let the_programs = |m: &Metric| programs || m.count_event().is_some();
    let mut comparisons = Vec::new();
    let mut warnings = Vec::new();
    for g in &analysis.groups {
        for c in &g.comparisons {
            let key = (g.class.clone(), c.candidate.clone());
            let effects: Vec<Effect> = per_metric
                .iter()
                .filter_map(|(m, r)| r.get(&key).map(|&(ratio, ci)| (m.clone(), ratio, ci)))
                .collect();
            // Disagreements among the cost metrics that are the program's own.
            let decided: Vec<&Effect> = effects
                .iter()
                .filter(|(m, r, ci)| {
                    is_cost(m) && the_programs(m) && r.is_some() && direction(*ci) != "unclear"
                })
                .collect();
            for (i, a) in decided.iter().enumerate() {
                for b in &decided[i + 1..] {
                    if direction(a.2) != direction(b.2) {
                        let (ra, rb) = (a.1.unwrap_or(1.0), b.1.unwrap_or(1.0));
                        // The count first: "B executes 2.1% fewer instructions but takes
                        // 3.4% more time".
                        let (first, second) =
                            if b.0.count_event().is_some() && a.0.count_event().is_none() {
                                ((&b.0, rb), (&a.0, ra))
                            } else {
                                ((&a.0, ra), (&b.0, rb))
                            };
                        warnings.push(Warning::new(
                            WarningCode::MetricsDisagree,
                            Some(c.candidate.as_str()),
                            format!(
                                "{} {} but {} than {} (both beyond their intervals): a count is not a time; decide on the one that matters to you",
                                c.candidate,
                                change_words(first.0, first.1),
                                change_words(second.0, second.1),
                                g.baseline
                            ),
                        ));
                    }
                }
            }
            comparisons.push(MetricComparison {
                class: g.class.clone(),
                baseline: g.baseline.clone(),
                candidate: c.candidate.clone(),
                metrics: effects
                    .into_iter()
                    .filter(|(m, _, _)| *m != own)
                    .map(|(m, ratio, ci)| MetricEffect {
                        the_programs: the_programs(&m),
                        direction: direction(ci).to_owned(),
                        quantity: e.quantity(&m),
                        metric: m.to_string(),
                        ratio,
                        ratio_ci: ci,
                    })
                    .collect(),
            });
        }
    }
    let report = MetricsReport {
        decided_on: own.to_string(),
        counter: counter.name().to_owned(),
        times_are_the_programs: programs,
        comparisons,
        layout: layout_spread(e, own.count_event().unwrap_or(CountEvent::Instructions)),
    };
    Some((report, warnings))
}

/// How far the environment size moves each variant's `event` count: the median of its
/// successful runs at each padding, half the range of those medians. Empty when the runs
/// have one padding (`--layout fixed`) or no such count.
fn layout_spread(e: &Experiment, event: CountEvent) -> Vec<LayoutSpread> {
    let mut by_variant: BTreeMap<(usize, &str), BTreeMap<usize, Vec<f64>>> = BTreeMap::new();
    let order = |name: &str| {
        e.header
            .variants
            .iter()
            .position(|v| v.name == name)
            .unwrap_or(usize::MAX)
    };
    for r in e.runs.iter().filter(|r| r.succeeded() && !r.is_reference) {
        if let Some(v) = r.count(event) {
            by_variant
                .entry((order(r.variant), r.variant))
                .or_default()
                .entry(r.env_pad)
                .or_default()
                .push(v as f64);
        }
    }
    let median = |v: &mut Vec<f64>| bench_stats::descriptive::median_of(v).unwrap_or(0.0);
    by_variant
        .into_iter()
        .filter(|(_, pads)| pads.len() >= 2)
        .map(|((_, name), pads)| {
            let mut all: Vec<f64> = pads.values().flatten().copied().collect();
            let overall = median(&mut all);
            let medians: Vec<f64> = pads.into_values().map(|mut v| median(&mut v)).collect();
            let lo = medians.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let half_range = (hi - lo) / 2.0;
            LayoutSpread {
                benchmark: name.to_owned(),
                metric: event.name().to_owned(),
                sizes: u32::try_from(medians.len()).unwrap_or(u32::MAX),
                half_range,
                relative: if overall > 0.0 {
                    half_range / overall
                } else {
                    0.0
                },
            }
        })
        .collect()
}
