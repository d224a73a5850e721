//! A suite's report ([`bench_stats::suite::SuiteReport`]): one row per benchmark, then the
//! suite's summary, as terminal text or GitHub-flavoured Markdown.
//!
//! Every row says the level its interval and verdict were decided at (the suite's
//! correction sets it: `level` below alpha), so a reader never takes a 99.75% interval for
//! a 95% one.

mod bmf;
mod console;
mod documents;
mod github;
mod json;
mod markdown;
mod plan;

pub use bmf::{bmf_measure, render_suite_bmf};
pub use console::render_suite_console;
pub use documents::{SuiteDocuments, SuiteFormat};
pub use github::render_suite_github_benchmark;
pub use json::{SUITE_SCHEMA, render_suite_json};
pub use markdown::{
    PR_COMMENT_MAX, STEP_SUMMARY_MAX, SuiteMarkdown, check_comment_id, comment_marker,
    render_suite_markdown, render_suite_pr_comment,
};
pub use plan::{
    render_complete_resume, render_shard_note, render_suite_dry_run, render_suite_failures,
    render_suite_listing, render_suite_start,
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

/// A comparison's tag in the suite's documents: the report's own (MORE/FEWER for a value
/// that is not a time, a claim on the fast or slow runs alone named), with ` (mean run)`
/// when the mean run decided.
fn suite_tag(a: &bench_stats::Analysis, c: &bench_stats::Comparison) -> String {
    if c.outcome == Outcome::Inconclusive {
        return verdict_word(c.outcome);
    }
    let mut tag = crate::view::outcome_tag(a, c);
    let part = c.decision.as_ref().and_then(|d| d.part.as_deref());
    if c.outcome.is_change() && part == Some("mean-run") {
        tag.push_str(" (mean run)");
    }
    tag
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
            // A change another part than the typical run decided shows that part's ratio
            // and interval, and names it, as compare's headline does: the verdict never
            // stands beside an interval it does not rest on.
            let decided_by = c
                .decision
                .as_ref()
                .filter(|_| c.outcome.is_change())
                .and_then(|d| Some((d.part.as_deref()?, d.ratio?, d.interval)))
                .filter(|(part, _, _)| *part != "typical-run");
            let (ratio, interval) = match decided_by {
                Some((_, r, ci)) => (Some(r), ci),
                None => (c.ratio, c.ratio_ci),
            };
            let verdict = suite_tag(&b.analysis, c);
            Row {
                benchmark: if several {
                    format!("{} ({candidate})", b.name)
                } else {
                    b.name.clone()
                },
                candidate,
                ratio: ratio.map_or_else(|| "-".to_owned(), fixed),
                interval: interval.map_or_else(
                    || "-".to_owned(),
                    |[lo, hi]| format!("[{}, {}]", fixed(lo), fixed(hi)),
                ),
                level: level_text(1.0 - level),
                verdict,
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
    if let Some(stop) = &report.stop {
        out.push(stop_line(report, stop));
    }
    if let Some(g) = &report.geometric_mean {
        let what = if g.as_cost {
            "geometric mean of the ratios as costs (above 1 is worse)"
        } else {
            "geometric mean of the ratios"
        };
        out.push(match g.ci {
            Some(ci) => format!(
                "Suite: {what} {} [{}, {}] ({}% block bootstrap, {} resamples, {}).",
                fixed(g.ratio),
                fixed(ci[0]),
                fixed(ci[1]),
                g.confidence * 100.0,
                g.resamples,
                counted(g.benchmarks, "benchmark")
            ),
            // Too few blocks to resample: the point alone, said to be one.
            None => format!(
                "Suite: {what} {} ({}; no interval: {} too few to resample, it needs at least {}).",
                fixed(g.ratio),
                counted(g.benchmarks, "benchmark"),
                if g.blocks == 1 {
                    "1 block is".to_owned()
                } else {
                    format!("{} blocks are", g.blocks)
                },
                g.min_blocks
            ),
        });
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
                    .map(move |c| format!("{} ({})", b.name, suite_tag(&b.analysis, c)))
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

/// The line saying how a suite under `--until decided` or `--time-budget` ended: each
/// benchmark's level, and whether every benchmark was decided, the limit or the budget
/// came first.
fn stop_line(report: &SuiteReport, stop: &bench_stats::suite::SuiteStop) -> String {
    let budget = stop
        .time_budget_s
        .map(|s| format!("--time-budget {}", seconds(s)));
    let undecided = report.counts.inconclusive + report.counts.mixed;
    let of = format!("{} of at most {} blocks", stop.blocks, stop.planned_blocks);
    match stop.sequential_level {
        Some(level) => {
            let rule = if (level - report.alpha).abs() < 1e-15 {
                format!(
                    "Sequential (--until decided): each benchmark looked after every block at alpha {}",
                    report.alpha
                )
            } else {
                format!(
                    "Sequential (--until decided): each benchmark looked after every block at level {} (alpha {} over {}, Bonferroni: any false claim in the suite at most {})",
                    fixed_level(level),
                    report.alpha,
                    counted(report.benchmarks.len(), "benchmark"),
                    report.alpha
                )
            };
            let end = match (stop.stop.as_str(), &budget) {
                ("decided", _) => format!("every benchmark decided within {} blocks", stop.blocks),
                ("max-blocks", _) => format!(
                    "{} undecided at the limit of {} blocks",
                    counted(undecided, "benchmark"),
                    stop.planned_blocks
                ),
                ("time-budget", Some(b)) => format!(
                    "{b} ran out after {of}: {} undecided (abba suite --resume continues them)",
                    counted(undecided, "benchmark")
                ),
                _ => format!(
                    "stopped after {of} with {} undecided",
                    counted(undecided, "benchmark")
                ),
            };
            format!("{rule}; {end}.")
        }
        None => match (stop.stop.as_str(), &budget) {
            ("time-budget", Some(b)) => format!(
                "{b} ran out after {} of {} planned blocks: every benchmark is judged on the blocks it has (abba suite --resume continues it).",
                stop.blocks, stop.planned_blocks
            ),
            (_, Some(b)) => format!(
                "{} of {} planned blocks ran within {b}.",
                stop.blocks, stop.planned_blocks
            ),
            (_, None) => format!(
                "{} of {} planned blocks ran.",
                stop.blocks, stop.planned_blocks
            ),
        },
    }
}

/// A level as a report prints it (`0.01`, `0.0125`).
fn fixed_level(x: f64) -> String {
    let s = format!("{x:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Seconds as a duration flag takes them (`90s`, `2min`, `1.5s`).
fn seconds(s: f64) -> String {
    if s >= 60.0 && s % 60.0 == 0.0 {
        format!("{}min", s / 60.0)
    } else {
        format!("{}s", fixed_level(s))
    }
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
///
/// # Examples
/// ```
/// assert_eq!(bench_report::counted(1, "block"), "1 block");
/// assert_eq!(bench_report::counted(3, "block"), "3 blocks");
/// ```
pub fn counted(n: usize, noun: &str) -> String {
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
