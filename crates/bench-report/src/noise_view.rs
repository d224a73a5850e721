//! The noise diagnosis ([`bench_stats::Analysis::noise`]) as lines: one per comparison
//! whose wall time could not decide for time off the CPU, saying whether CPU time decides
//! it. The comparison is named only when there are several such lines.

use bench_stats::model::NoiseReport;

/// The lines to print after the verdicts: empty when wall time decided every comparison
/// or its spread was mostly on the CPU.
pub(crate) fn lines(report: &NoiseReport) -> Vec<String> {
    let said: Vec<_> = report
        .comparisons
        .iter()
        .filter_map(|c| c.sentence.as_ref().map(|s| (c, s)))
        .collect();
    let many = said.len() > 1;
    said.into_iter()
        .map(|(c, s)| {
            if many {
                let class = c
                    .class
                    .as_deref()
                    .map(|k| format!("[{k}] "))
                    .unwrap_or_default();
                format!("{class}{} vs {}: {s}", c.candidate, c.baseline)
            } else {
                s.clone()
            }
        })
        .collect()
}
