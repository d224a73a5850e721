//! The words of the regression gate ([`bench_stats::analysis::GateResult`]): one line per
//! comparison that trips it, the same for compare, suite and history.

use bench_stats::analysis::{GateResult, TripReason};

/// One line per comparison that trips the gate (without the `abba: gate: ` prefix). In a
/// suite the line starts with the benchmark, names the variants without it and says the
/// verdict is corrected across the suite.
pub fn render_gate(result: &GateResult) -> Vec<String> {
    let worse = if result.timed { "slower" } else { "worse" };
    let pct = result.threshold * 100.0;
    let prefix = result
        .benchmark
        .as_ref()
        .map_or_else(String::new, |b| format!("{b}: "));
    let name = |n: &str| -> String {
        if result.benchmark.is_some() {
            n.rsplit_once('/').map_or(n, |x| x.1).to_owned()
        } else {
            n.to_owned()
        }
    };
    let corrected = if result.suite_corrected {
        " after the suite's correction"
    } else {
        ""
    };
    result
        .trips
        .iter()
        .map(|t| match t {
            TripReason::Regression(r) => {
                // The typical run's gate names the part of the distribution that tripped it.
                // A value that is not a time has low and high runs, not fast and slow ones.
                let part = r.part.as_ref().map_or_else(String::new, |p| {
                    let p = match r.quantile {
                        Some(q) if !result.timed && (q - 0.5).abs() > 1e-9 => format!(
                            "{} runs (p{:.0})",
                            if q < 0.5 { "low" } else { "high" },
                            q * 100.0
                        ),
                        _ => p.clone(),
                    };
                    format!(" in its {p}")
                });
                // A count's regression is said as a count, never as time.
                let (lead, may) = match &result.counted {
                    Some(event) => {
                        let q = bench_stats::Quantity::from(event.clone());
                        let verb = q.count_verb().unwrap_or("executes");
                        (
                            format!("{verb} significantly more {event}"),
                            format!("reach {pct:.2}% more {event}"),
                        )
                    }
                    None => (
                        format!("is significantly {worse}"),
                        format!("be {pct:.2}% {worse}"),
                    ),
                };
                format!(
                    "{prefix}{} {lead} than {}{part}{corrected} and may {may} or more (ratio {:.4}, interval [{:.4}, {:.4}])",
                    name(&r.candidate),
                    name(&r.baseline),
                    r.ratio,
                    r.ratio_ci[0],
                    r.ratio_ci[1]
                )
            }
            TripReason::Undecided {
                baseline,
                candidate,
            } => format!(
                "{prefix}--fail-if-slower {pct}% cannot decide {} vs {}: no test could run (too few blocks or runs for any test to reach alpha), so a slowdown of that size is not ruled out; failing (exit 1): measure more blocks",
                name(candidate),
                name(baseline)
            ),
        })
        .collect()
}
