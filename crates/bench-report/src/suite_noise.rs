//! The noise diagnosis of a suite in one line (issue 36): how many benchmarks wall time
//! could not decide for time off the CPU, and how many of them CPU time decides, read
//! from each benchmark's [`bench_stats::Analysis::noise`]. One line per suite, not per
//! row; the CLI adds the flag that applies the remedy.

use bench_stats::Outcome;
use bench_stats::model::{NoiseFinding, Remedy};
use bench_stats::suite::SuiteReport;

/// The suite's noise line and the remedy it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SuiteNoiseLine {
    /// The line, without the remedy's words.
    pub text: String,
    /// Deciding on CPU time, when CPU time decides at least one benchmark.
    pub remedy: Option<Remedy>,
}

/// The line, or `None` when wall time could decide every benchmark (or its spread was
/// mostly on the CPU). Time: O(comparisons).
pub fn suite_noise_line(report: &SuiteReport) -> Option<SuiteNoiseLine> {
    let all: Vec<_> = report
        .benchmarks
        .iter()
        .flat_map(|b| {
            b.analysis
                .noise
                .iter()
                .flat_map(|n| &n.comparisons)
                .map(move |c| (b.name.as_str(), c))
        })
        .collect();
    let failed: Vec<_> = all
        .iter()
        .filter(|(_, c)| c.finding != NoiseFinding::WallDecides)
        .collect();
    if failed.is_empty() {
        return None;
    }
    let total: usize = report
        .benchmarks
        .iter()
        .map(|b| b.analysis.groups.iter().map(|g| g.comparisons.len()).sum::<usize>())
        .sum();
    let shares: Vec<f64> = failed.iter().map(|(_, c)| c.off_cpu_share).collect();
    let lo = shares.iter().copied().fold(f64::INFINITY, f64::min) * 100.0;
    let hi = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max) * 100.0;
    let range = if (hi - lo).abs() < 0.5 {
        format!("{hi:.0}%")
    } else {
        format!("{lo:.0}-{hi:.0}%")
    };
    let name = |(b, c): &&(&str, &bench_stats::model::NoiseComparison)| {
        if report.benchmarks.iter().any(|r| r.name == *b && r.analysis.groups.iter().map(|g| g.comparisons.len()).sum::<usize>() > 1) {
            format!("{b}/{}", c.candidate)
        } else {
            (*b).to_owned()
        }
    };
    let decided: Vec<_> = failed
        .iter()
        .filter(|(_, c)| c.finding == NoiseFinding::CpuDecides)
        .collect();
    let mut text = format!(
        "wall time cannot decide {} of {total} comparisons: {range} of their spread is time off the CPU",
        failed.len()
    );
    let cpu_bound = failed
        .iter()
        .filter(|(_, c)| {
            matches!(
                c.finding,
                NoiseFinding::CpuDecides | NoiseFinding::CpuCannotDecide
            )
        })
        .count();
    let not: Vec<String> = failed
        .iter()
        .filter(|(_, c)| c.finding == NoiseFinding::NotCpuBound)
        .map(|d| name(&d))
        .collect();
    if !not.is_empty() {
        text.push_str(&format!(
            "; CPU time is not offered for {} (not CPU-bound: {})",
            not.len(),
            not.join(", ")
        ));
    }
    if cpu_bound > 0 {
        let moved: Vec<String> = decided
            .iter()
            .filter_map(|d| {
                let v = d.1.cpu_time.as_ref()?;
                let word = match v.outcome {
                    Outcome::Faster => "FASTER",
                    Outcome::Slower => "SLOWER",
                    _ => return None,
                };
                let pct = v.ratio.map_or(String::new(), |r| format!(" {:+.1}%", (r - 1.0) * 100.0));
                Some(format!("{} {word}{pct}", name(d)))
            })
            .collect();
        let equivalent = decided
            .iter()
            .filter(|d| d.1.cpu_time.as_ref().is_some_and(|v| v.outcome == Outcome::Equivalent))
            .count();
        let mut parts = moved;
        if equivalent > 0 {
            parts.push(format!("{equivalent} EQUIVALENT"));
        }
        text.push_str(&format!(
            "; CPU time decides {} of the {cpu_bound} CPU-bound",
            decided.len()
        ));
        if !parts.is_empty() {
            text.push_str(&format!(": {}", parts.join(", ")));
        }
    }
    Some(SuiteNoiseLine {
        text,
        remedy: (!decided.is_empty()).then_some(Remedy::DecideOnCpuTime),
    })
}
