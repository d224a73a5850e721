//! A suite's report ([`bench_stats::suite::SuiteReport`]): one row per benchmark, then the
//! suite's summary, as terminal text or GitHub-flavoured Markdown.
//!
//! Every row says the level its interval and verdict were decided at (the suite's
//! correction sets it: `level` below alpha), so a reader never takes a 99.75% interval for
//! a 95% one.

mod bmf;
mod console;
mod github;
mod json;
mod markdown;

pub use bmf::{bmf_measure, render_suite_bmf};
pub use console::render_suite_console;
pub use github::render_suite_github_benchmark;
pub use json::{SUITE_SCHEMA, render_suite_json};
pub use markdown::{
    PR_COMMENT_MAX, STEP_SUMMARY_MAX, SuiteMarkdown, comment_marker, render_suite_markdown,
    render_suite_pr_comment,
};

use crate::units::{fixed, level_text, p_text};
use bench_stats::Outcome;
use bench_stats::suite::{SuiteBenchmarkReport, SuiteReport};

/// One table row, format-neutral.
pub(crate) struct Row {
    pub(crate) benchmark: String,
    pub(crate) candidate: String,
    pub(crate) ratio: String,
    pub(crate) interval: String,
    pub(crate) level: String,
    pub(crate) verdict: String,
    pub(crate) p: String,
    pub(crate) p_adjusted: String,
    pub(crate) changed: bool,
}

/// The verdict word of `outcome` in the direction of the data.
pub(crate) fn verdict_word(outcome: Outcome) -> String {
    if outcome == Outcome::Inconclusive {
        outcome.as_str().to_owned()
    } else {
        outcome.as_str().to_uppercase()
    }
}

pub(crate) fn rows_of(b: &SuiteBenchmarkReport) -> Vec<Row> {
    let comparisons = b.analysis.groups.iter().flat_map(|g| &g.comparisons);
    let several = b
        .analysis
        .groups
        .iter()
        .map(|g| g.comparisons.len())
        .sum::<usize>()
        > 1;
    comparisons
        .enumerate()
        .map(|(k, c)| {
            let candidate = c
                .candidate
                .rsplit_once('/')
                .map_or(c.candidate.as_str(), |(_, v)| v)
                .to_owned();
            let level = b.levels.get(k).copied().unwrap_or(b.analysis.alpha);
            Row {
                benchmark: if several {
                    format!("{} ({candidate})", b.name)
                } else {
                    b.name.clone()
                },
                candidate,
                ratio: c.ratio.map_or_else(|| "-".to_owned(), fixed),
                interval: c.ratio_ci.map_or_else(
                    || "-".to_owned(),
                    |[lo, hi]| format!("[{}, {}]", fixed(lo), fixed(hi)),
                ),
                level: level_text(1.0 - level),
                // The report's own tag: a claim on the fast or slow runs alone says so.
                verdict: if c.outcome == Outcome::Inconclusive {
                    verdict_word(c.outcome)
                } else {
                    crate::view::outcome_tag(&b.analysis, c)
                },
                p: p_text(b.p_values.get(k).copied().flatten()),
                p_adjusted: p_text(b.p_values_adjusted.get(k).copied().flatten()),
                changed: c.outcome.is_change(),
            }
        })
        .collect()
}

/// The baseline and candidate names of the suite (from its first benchmark).
fn variants(report: &SuiteReport) -> (String, Vec<String>) {
    let Some(b) = report.benchmarks.first() else {
        return (String::new(), Vec::new());
    };
    let short = |n: &str| n.rsplit_once('/').map_or(n, |(_, v)| v).to_owned();
    let group = b.analysis.groups.first();
    let baseline = group.map(|g| short(&g.baseline)).unwrap_or_default();
    let candidates = group
        .map(|g| g.comparisons.iter().map(|c| short(&c.candidate)).collect())
        .unwrap_or_default();
    (baseline, candidates)
}

/// The lines of the suite's summary: what was compared, under which correction, the
/// geometric mean and the counts.
pub(crate) fn summary_lines(report: &SuiteReport) -> Vec<String> {
    let (baseline, candidates) = variants(report);
    let mut out = vec![format!(
        "{}, {} against {baseline}; significance across the suite: {} at alpha {}.",
        counted(report.benchmarks.len(), "benchmark"),
        candidates.join(", "),
        report.correction.describe(),
        report.alpha
    )];
    if let Some(g) = &report.geometric_mean {
        let what = if g.as_cost {
            "geometric mean of the ratios as costs (above 1 is worse)"
        } else {
            "geometric mean of the ratios"
        };
        out.push(format!(
            "Suite: {what} {} [{}, {}] ({}% block bootstrap, {} resamples, {}).",
            fixed(g.ratio),
            fixed(g.ci[0]),
            fixed(g.ci[1]),
            g.confidence * 100.0,
            g.resamples,
            counted(g.benchmarks, "benchmark")
        ));
    }
    let c = report.counts;
    out.push(format!(
        "{} faster, {} slower, {} equivalent, {} inconclusive.",
        c.faster, c.slower, c.equivalent, c.inconclusive
    ));
    // Each changed benchmark with the same tag as its row (MORE for a count, a tail-only
    // claim named), so the summary and the table tell one story.
    let list: Vec<String> = report
        .benchmarks
        .iter()
        .flat_map(|b| {
            b.analysis.groups.iter().flat_map(move |g| {
                g.comparisons
                    .iter()
                    .filter(|c| c.outcome.is_change())
                    .map(move |c| {
                        format!("{} ({})", b.name, crate::view::outcome_tag(&b.analysis, c))
                    })
            })
        })
        .collect();
    if list.is_empty() {
        out.push("No benchmark changed.".to_owned());
    } else {
        out.push(format!("Changed: {}.", list.join(", ")));
    }
    if !report.failed.is_empty() {
        out.push(format!(
            "Not compared (failed): {}.",
            report
                .failed
                .iter()
                .map(failed_text)
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    out
}

/// A benchmark that was not compared, and whose runs failed: `small (head: 10 of 10 runs
/// failed)`.
fn failed_text(b: &bench_stats::suite::FailedBenchmark) -> String {
    if b.variants.is_empty() {
        return format!("{} (no block holds all of its runs)", b.name);
    }
    let short = |n: &str| n.rsplit_once('/').map_or(n, |(_, v)| v).to_owned();
    let each: Vec<String> = b
        .variants
        .iter()
        .map(|v| format!("{}: {} of {} runs failed", short(&v.name), v.failed, v.runs))
        .collect();
    format!("{} ({})", b.name, each.join(", "))
}

/// `n noun`, the noun plural unless `n` is 1 (`1 benchmark`, `3 benchmarks`).
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// One (benchmark, candidate) of the CI formats.
pub(crate) struct Candidate<'a> {
    /// The benchmark's name, or `benchmark/variant` when it has several candidates.
    pub(crate) key: String,
    /// The candidate's median run and its interval.
    pub(crate) median: &'a bench_stats::suite::VariantMedian,
    /// The benchmark's analysis.
    pub(crate) analysis: &'a bench_stats::Analysis,
    /// The candidate's place among the benchmark's comparisons.
    pub(crate) index: usize,
}

/// Each (benchmark, candidate) with its key.
pub(crate) fn candidates(report: &SuiteReport) -> Vec<Candidate<'_>> {
    let mut out = Vec::new();
    for b in &report.benchmarks {
        let baseline = b
            .analysis
            .groups
            .first()
            .map(|g| g.baseline.clone())
            .unwrap_or_default();
        let cands: Vec<_> = b.medians.iter().filter(|m| m.name != baseline).collect();
        let several = cands.len() > 1;
        for (index, median) in cands.into_iter().enumerate() {
            let key = if several {
                format!(
                    "{}/{}",
                    b.name,
                    median
                        .name
                        .rsplit_once('/')
                        .map_or(median.name.as_str(), |x| x.1)
                )
            } else {
                b.name.clone()
            };
            out.push(Candidate {
                key,
                median,
                analysis: &b.analysis,
                index,
            });
        }
    }
    out
}
