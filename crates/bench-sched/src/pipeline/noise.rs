//! The noise diagnosis of a wall-time experiment (issue 36): each run's wall time split
//! into time on the CPU (user + system) and time off it, the share of each comparison's
//! spread that time off the CPU makes, whether the command is CPU-bound, and, when wall
//! time cannot decide for time off the CPU, the same comparison decided on CPU time by the
//! same analysis ([`Input::on_metric`] and [`super::analyze_input`], as `abba analyze
//! --metric cpu` decides it). The arithmetic is `bench_stats::diagnostics::off_cpu`.

use bench_stats::diagnostics::off_cpu::{cpu_bound, finding, split_spread, undisturbed_on_cpu};
use bench_stats::model::{
    CpuBound, CpuTimeVerdict, NoiseComparison, NoiseFinding, NoiseReport, Remedy,
};
use bench_stats::sequential::dataset_log_ratios;
use bench_stats::{Analysis, AnalysisConfig, Comparison, Dataset, Outcome};

use crate::pipeline::Input;
use crate::raw::Experiment;
use crate::runner::Metric;

/// The diagnosis of `input`'s wall-time comparisons, `analysis` its analysis under
/// `config`. `None` unless the input is one experiment decided on wall time with the
/// program's own times (not under valgrind) and at least one paired comparison.
/// Time: one more analysis (on CPU time) and O(runs) besides.
pub(crate) fn noise_report(
    input: &Input,
    analysis: &Analysis,
    config: &AnalysisConfig,
) -> Option<NoiseReport> {
    let e = input.experiment.as_ref()?;
    if !diagnosed(e) {
        return None;
    }
    // The runs decided on CPU time, as `abba analyze --metric cpu` decides them (the same
    // dataset and analysis; what it adds after the comparisons, warnings and controls, is
    // not read here), without a copy of the runs.
    // Its warnings are dropped, so the checks that only warn do not run.
    let cpu = e.to_dataset_on(&Metric::Cpu).dataset;
    let verdicts_only = AnalysisConfig {
        warning_checks: false,
        ..config.clone()
    };
    let cpu_analysis = super::analyze_dataset(input, &cpu, &verdicts_only).ok();
    let comparisons = diagnose(
        e,
        &input.loaded.dataset,
        &cpu,
        analysis,
        cpu_analysis.as_ref(),
    );
    (!comparisons.is_empty()).then_some(NoiseReport { comparisons })
}

/// Whether [`noise_report`] diagnoses `e` (analysing it a second time, on CPU time): an
/// experiment decided on wall time with the program's own times (not under valgrind).
pub(crate) fn diagnosed(e: &Experiment) -> bool {
    e.header.metric == Metric::Wall && e.header.counter.is_none_or(|c| c.times_are_the_programs())
}

/// Every paired comparison of `analysis` (decided on the wall times `wall`) split into
/// time on and off the CPU, with `cpu` the same runs' CPU times and `cpu_analysis` their
/// analysis; the on-CPU fractions are read off `e`'s successful runs of each variant.
/// Comparisons whose blocks cannot be paired are left out. Time: O(runs).
pub fn diagnose(
    e: &Experiment,
    wall: &Dataset,
    cpu: &Dataset,
    analysis: &Analysis,
    cpu_analysis: Option<&Analysis>,
) -> Vec<NoiseComparison> {
    let mut out = Vec::new();
    for g in &analysis.groups {
        for c in &g.comparisons {
            let class = g.class.as_deref();
            let pair = |d: &Dataset| {
                let keep = |s: &bench_stats::Series| {
                    (s.name == g.baseline || s.name == c.candidate)
                        && (class.is_none() || s.class.as_deref() == class)
                };
                // Read in place when the pair is the whole dataset (two variants): a
                // copy of every run otherwise.
                if d.series.iter().all(keep) {
                    return dataset_log_ratios(d, Some(&g.baseline));
                }
                let mut d = d.clone();
                d.series.retain(keep);
                dataset_log_ratios(&d, Some(&g.baseline))
            };
            let (Some(w), Some(u)) = (pair(wall), pair(cpu)) else {
                continue;
            };
            let Some(split) = split_spread(&w, &u) else {
                continue;
            };
            let (Some(on_a), Some(on_b)) = (on_cpu(e, &g.baseline), on_cpu(e, &c.candidate)) else {
                continue;
            };
            let bound = cpu_bound(&[on_a, on_b]);
            let wall_decided = decided(c.outcome);
            let cpu_time = cpu_analysis
                .and_then(|a| {
                    a.groups
                        .iter()
                        .find(|h| h.class == g.class && h.baseline == g.baseline)
                })
                .and_then(|h| h.comparisons.iter().find(|d| d.candidate == c.candidate))
                .filter(|_| bound == CpuBound::Yes)
                .map(verdict_of);
            let found = finding(
                split.off_cpu_share,
                wall_decided,
                bound,
                cpu_time.as_ref().is_some_and(|v| decided(v.outcome)),
            );
            let (sentence, remedy) = sentence(
                found,
                split.off_cpu_share,
                [(&g.baseline, on_a), (&c.candidate, on_b)],
                bound,
                cpu_time.as_ref(),
            );
            out.push(NoiseComparison {
                class: g.class.clone(),
                baseline: g.baseline.clone(),
                candidate: c.candidate.clone(),
                blocks: u32::try_from(w.len()).unwrap_or(u32::MAX),
                wall_spread: split.wall_sd,
                cpu_spread: split.cpu_sd,
                off_cpu_share: split.off_cpu_share,
                on_cpu: [on_a, on_b],
                cpu_bound: bound,
                wall_decided,
                cpu_time,
                finding: found,
                sentence,
                remedy,
            });
        }
    }
    out
}

/// The noise diagnosis of every benchmark of a suite's raw file `e` that is decided on
/// wall time, `wall` the suite's analysis under `config`: the suite is analysed again with
/// those benchmarks on CPU time (the others as they were, so the correction across the
/// suite covers the same family), and each wall-time benchmark's comparisons are
/// diagnosed against its CPU-time analysis. One entry per benchmark of `wall`, `None` for
/// the benchmarks not decided on wall time. Time: one more suite analysis.
pub fn suite_noise(
    e: &Experiment,
    wall: &bench_stats::suite::SuiteReport,
    config: &bench_stats::suite::SuiteConfig,
) -> Vec<Option<NoiseReport>> {
    let none = || vec![None; wall.benchmarks.len()];
    let Some(suite) = e.suite() else {
        return none();
    };
    if e.header
        .counter
        .is_some_and(|c| !c.times_are_the_programs())
    {
        return none();
    }
    let on_wall = |name: &str| {
        suite.benchmarks.iter().any(|b| {
            b.name == name && *b.metric.as_ref().unwrap_or(&e.header.metric) == Metric::Wall
        })
    };
    let Some(cpu) = Input::from_experiment(e.clone())
        .on_metric(&Metric::Cpu)
        .ok()
        .and_then(|i| i.experiment)
    else {
        return none();
    };
    let walls = e.suite_datasets();
    let cpus = cpu.suite_datasets();
    let list: Vec<(String, Dataset)> = walls
        .iter()
        .zip(&cpus)
        .map(|(w, c)| {
            let data = if on_wall(&w.name) {
                &c.loaded
            } else {
                &w.loaded
            };
            (w.name.clone(), data.dataset.clone())
        })
        .collect();
    let Ok(cpu_report) = bench_stats::suite::analyze_suite(&list, config) else {
        return none();
    };
    wall.benchmarks
        .iter()
        .map(|b| {
            if !on_wall(&b.name) {
                return None;
            }
            let w = walls.iter().find(|d| d.name == b.name)?;
            let c = cpus.iter().find(|d| d.name == b.name)?;
            let ca = cpu_report.benchmarks.iter().find(|d| d.name == b.name)?;
            let comparisons = diagnose(
                e,
                &w.loaded.dataset,
                &c.loaded.dataset,
                &b.analysis,
                Some(&ca.analysis),
            );
            (!comparisons.is_empty()).then_some(NoiseReport { comparisons })
        })
        .collect()
}

/// A direction or equivalence (a mixed outcome found something too).
fn decided(o: Outcome) -> bool {
    matches!(
        o,
        Outcome::Faster | Outcome::Slower | Outcome::Equivalent | Outcome::Mixed
    )
}

fn verdict_of(c: &Comparison) -> CpuTimeVerdict {
    CpuTimeVerdict {
        verdict: c.verdict,
        outcome: c.outcome,
        ratio: c.ratio,
        ratio_ci: c.ratio_ci,
    }
}

/// CPU time over wall time in the least-disturbed successful runs of `variant`, the time
/// a run waited for a CPU taken out of its wall time where the run recorded it: on a
/// machine busy all along no run is undisturbed, and only that wait tells waiting for
/// the CPU from sleeping.
fn on_cpu(e: &Experiment, variant: &str) -> Option<f64> {
    let (cpu, wall): (Vec<f64>, Vec<f64>) = e
        .runs
        .iter()
        .filter(|r| r.succeeded() && !r.is_reference && r.variant == variant)
        .map(|r| {
            let waited = r.run_delay_ns.unwrap_or(0).min(r.wall_ns);
            (
                r.user_ns.saturating_add(r.sys_ns) as f64,
                (r.wall_ns - waited) as f64,
            )
        })
        .unzip();
    undisturbed_on_cpu(&cpu, &wall)
}

/// `+1.6%`, `-0.05%`: a ratio as a signed percentage change.
fn pct(ratio: f64) -> String {
    let p = (ratio - 1.0) * 100.0;
    if p.abs() < 0.1 {
        format!("{p:+.2}%")
    } else {
        format!("{p:+.1}%")
    }
}

/// The CPU-time verdict in a few words: `SLOWER +1.6% [+0.9%, +2.2%]`.
#[allow(clippy::wildcard_enum_match_arm)]
fn cpu_words(v: &CpuTimeVerdict) -> String {
    let tag = match v.outcome {
        Outcome::Faster => "FASTER ",
        Outcome::Slower => "SLOWER ",
        Outcome::Equivalent => "EQUIVALENT ",
        Outcome::Mixed => "MIXED ",
        _ => "",
    };
    let value = match (v.ratio, v.ratio_ci) {
        (Some(r), Some([lo, hi])) => format!("{} [{}, {}]", pct(r), pct(lo), pct(hi)),
        (Some(r), None) => format!("{} (no interval)", pct(r)),
        _ => "no ratio".to_owned(),
    };
    format!("{tag}{value}")
}

/// The one line for `found`, and the remedy it carries (deciding on CPU time).
fn sentence(
    found: NoiseFinding,
    share: f64,
    on: [(&String, f64); 2],
    bound: CpuBound,
    cpu: Option<&CpuTimeVerdict>,
) -> (Option<String>, Option<Remedy>) {
    let head = format!(
        "wall time cannot decide: {:.0}% of its spread is time off the CPU",
        share * 100.0
    );
    match (found, cpu) {
        (NoiseFinding::CpuDecides, Some(v)) => (
            Some(format!(
                "{head} (other tenants); CPU time decides: {}",
                cpu_words(v)
            )),
            Some(Remedy::DecideOnCpuTime),
        ),
        (NoiseFinding::CpuCannotDecide, Some(v)) => (
            Some(format!(
                "{head} (other tenants); CPU time cannot decide either: {}",
                cpu_words(v)
            )),
            Some(Remedy::DecideOnCpuTime),
        ),
        (NoiseFinding::NotCpuBound, _) => {
            let why = if bound == CpuBound::Threads {
                let (name, f) = if on[0].1 >= on[1].1 { on[0] } else { on[1] };
                format!(
                    "{name} uses {f:.1}x its wall time in CPU time (several threads or processes at once), so CPU time adds up their work, not the time to finish"
                )
            } else {
                let (name, f) = if on[0].1 <= on[1].1 { on[0] } else { on[1] };
                format!(
                    "{name} is on the CPU for {:.0}% of its wall time even in its least-disturbed runs (it sleeps, waits for I/O or for other processes), time that CPU time leaves out",
                    f * 100.0
                )
            };
            (
                Some(format!("{head}, but CPU time is not offered: {why}")),
                None,
            )
        }
        _ => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_stats::Verdict;

    #[test]
    fn percentages_are_signed_with_the_decimals_that_show() {
        assert_eq!(pct(1.016), "+1.6%");
        assert_eq!(pct(0.925), "-7.5%");
        assert_eq!(pct(1.0005), "+0.05%");
        let v = CpuTimeVerdict {
            verdict: Verdict::Significant,
            outcome: Outcome::Slower,
            ratio: Some(1.016),
            ratio_ci: Some([1.009, 1.022]),
        };
        assert_eq!(cpu_words(&v), "SLOWER +1.6% [+0.9%, +2.2%]");
    }

    #[test]
    fn the_sentence_offers_cpu_time_only_to_a_cpu_bound_command() {
        let (a, b) = ("A".to_owned(), "B".to_owned());
        let v = CpuTimeVerdict {
            verdict: Verdict::Significant,
            outcome: Outcome::Slower,
            ratio: Some(1.016),
            ratio_ci: Some([1.009, 1.022]),
        };
        let (s, r) = sentence(
            NoiseFinding::CpuDecides,
            0.83,
            [(&a, 0.99), (&b, 0.98)],
            CpuBound::Yes,
            Some(&v),
        );
        assert_eq!(
            s.unwrap(),
            "wall time cannot decide: 83% of its spread is time off the CPU (other tenants); CPU time decides: SLOWER +1.6% [+0.9%, +2.2%]"
        );
        assert_eq!(r, Some(Remedy::DecideOnCpuTime));
        let (s, r) = sentence(
            NoiseFinding::NotCpuBound,
            0.9,
            [(&a, 0.04), (&b, 0.05)],
            CpuBound::OffCpu,
            None,
        );
        let s = s.unwrap();
        assert!(
            s.contains("CPU time is not offered: A is on the CPU for 4%"),
            "{s}"
        );
        assert_eq!(r, None);
        let (s, _) = sentence(
            NoiseFinding::NotCpuBound,
            0.9,
            [(&a, 1.9), (&b, 1.8)],
            CpuBound::Threads,
            None,
        );
        assert!(s.unwrap().contains("A uses 1.9x its wall time in CPU time"));
        assert_eq!(
            sentence(
                NoiseFinding::WallDecides,
                0.9,
                [(&a, 1.0), (&b, 1.0)],
                CpuBound::Yes,
                Some(&v)
            ),
            (None, None)
        );
    }
}
