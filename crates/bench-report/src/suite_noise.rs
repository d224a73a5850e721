//! The noise diagnosis of a suite in one line (issue 36): how many benchmarks wall time
//! could not decide for time off the CPU, and how many of them CPU time decides, read
//! from each benchmark's [`bench_stats::Analysis::noise`]. One line per suite, not per
//! row; the CLI adds the flag that applies the remedy.

use bench_stats::Outcome;
use bench_stats::model::{NoiseComparison, NoiseFinding, Remedy};
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

/// One diagnosed comparison of the suite: its benchmark's name and the diagnosis.
type Diagnosed<'a> = (&'a str, &'a NoiseComparison);

/// The comparisons of benchmark `name` in `report`.
fn comparisons_of(report: &SuiteReport, name: &str) -> usize {
    report
        .benchmarks
        .iter()
        .filter(|b| b.name == name)
        .flat_map(|b| &b.analysis.groups)
        .map(|g| g.comparisons.len())
        .sum()
}

/// How the line names a comparison: its benchmark, and the candidate when the benchmark
/// has several.
fn name_of(report: &SuiteReport, (b, c): Diagnosed<'_>) -> String {
    if comparisons_of(report, b) > 1 {
        format!("{b}/{}", c.candidate)
    } else {
        b.to_owned()
    }
}

/// `kernel-03 SLOWER +2.9%` for a change CPU time found, `None` otherwise.
fn change_words(report: &SuiteReport, d: Diagnosed<'_>) -> Option<String> {
    let v = d.1.cpu_time.as_ref()?;
    let word = if v.outcome == Outcome::Faster {
        "FASTER"
    } else if v.outcome == Outcome::Slower {
        "SLOWER"
    } else {
        return None;
    };
    let pct = v
        .ratio
        .map_or(String::new(), |r| format!(" {:+.1}%", (r - 1.0) * 100.0));
    Some(format!("{} {word}{pct}", name_of(report, d)))
}

/// `; CPU time decides 2 of the 3 CPU-bound: a SLOWER +2.9%, 1 EQUIVALENT`.
fn decided_part(report: &SuiteReport, failed: &[Diagnosed<'_>]) -> String {
    let cpu_bound = failed
        .iter()
        .filter(|(_, c)| {
            matches!(
                c.finding,
                NoiseFinding::CpuDecides | NoiseFinding::CpuCannotDecide
            )
        })
        .count();
    if cpu_bound == 0 {
        return String::new();
    }
    let decided: Vec<Diagnosed<'_>> = failed
        .iter()
        .copied()
        .filter(|(_, c)| c.finding == NoiseFinding::CpuDecides)
        .collect();
    let mut parts: Vec<String> = decided
        .iter()
        .filter_map(|&d| change_words(report, d))
        .collect();
    let equivalent = decided
        .iter()
        .filter(|(_, c)| {
            c.cpu_time
                .as_ref()
                .is_some_and(|v| v.outcome == Outcome::Equivalent)
        })
        .count();
    if equivalent > 0 {
        parts.push(format!("{equivalent} EQUIVALENT"));
    }
    let mut text = format!(
        "; CPU time decides {} of the {cpu_bound} CPU-bound",
        decided.len()
    );
    if !parts.is_empty() {
        text.push_str(&format!(": {}", parts.join(", ")));
    }
    text
}

/// The line, or `None` when wall time could decide every benchmark (or its spread was
/// mostly on the CPU). Time: O(comparisons).
pub fn suite_noise_line(report: &SuiteReport) -> Option<SuiteNoiseLine> {
    let failed: Vec<Diagnosed<'_>> = report
        .benchmarks
        .iter()
        .flat_map(|b| {
            b.analysis
                .noise
                .iter()
                .flat_map(|n| &n.comparisons)
                .map(move |c| (b.name.as_str(), c))
        })
        .filter(|(_, c)| c.finding != NoiseFinding::WallDecides)
        .collect();
    if failed.is_empty() {
        return None;
    }
    let total: usize = report
        .benchmarks
        .iter()
        .map(|b| comparisons_of(report, &b.name))
        .sum();
    let shares: Vec<f64> = failed.iter().map(|(_, c)| c.off_cpu_share).collect();
    let lo = shares.iter().copied().fold(f64::INFINITY, f64::min) * 100.0;
    let hi = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max) * 100.0;
    let range = if (hi - lo).abs() < 0.5 {
        format!("{hi:.0}%")
    } else {
        format!("{lo:.0}-{hi:.0}%")
    };
    let mut text = format!(
        "wall time cannot decide {} of {total} comparisons: {range} of their spread is time off the CPU",
        failed.len()
    );
    let not: Vec<String> = failed
        .iter()
        .filter(|(_, c)| c.finding == NoiseFinding::NotCpuBound)
        .map(|&d| name_of(report, d))
        .collect();
    if !not.is_empty() {
        text.push_str(&format!(
            "; CPU time is not offered for {} (not CPU-bound: {})",
            not.len(),
            not.join(", ")
        ));
    }
    text.push_str(&decided_part(report, &failed));
    let decides = failed
        .iter()
        .any(|(_, c)| c.finding == NoiseFinding::CpuDecides);
    Some(SuiteNoiseLine {
        text,
        remedy: decides.then_some(Remedy::DecideOnCpuTime),
    })
}
