//! The multi-level section of an analysis: for each comparison of blocked variants, the
//! pooled effect, each host's own effect, the variance per level, and the heterogeneity
//! check, with the warnings they call for.

use super::bootstrap::{hierarchical_bootstrap, pooled_mean};
use super::components::nested_variance_components;
use super::heterogeneity::heterogeneity;
use super::levels::Levels;
use super::meta::pool_units;
use super::nest::{Nested, Unit, nest};
use crate::analysis::AnalysisConfig;
use crate::model::dataset::{Dataset, Series};
use crate::model::levels::{
    HeterogeneityReport, LevelVariance, LevelledComparison, LevelsReport, PooledBootstrap,
    PooledEffect, PooledMethod, UnitEffect,
};
use crate::model::report::{Analysis, Outcome, Warning, WarningCode};
use crate::special::student_t_ppf;

/// Shuffles of the heterogeneity test: p resolves to 1/500.
pub const PERMUTATIONS: u32 = 499;

/// Hosts up to which the between-host variance is called barely estimable.
pub const FEW_HOSTS: usize = 3;

/// The multi-level section of `analysis` (already computed from `data`), and the warnings
/// it raises; `None` when the dataset has no levels or only one host and one session.
/// Time: O((resamples + permutations) × blocks) per comparison.
pub fn levels_report(
    data: &Dataset,
    analysis: &Analysis,
    config: &AnalysisConfig,
) -> Option<(LevelsReport, Vec<Warning>)> {
    let levels = data.levels.as_ref().filter(|l| l.is_multilevel())?;
    let mut comparisons = Vec::new();
    let mut warnings = Vec::new();
    for group in &analysis.groups {
        let find = |name: &str, class: &Option<String>| {
            let class = class.clone().or_else(|| group.class.clone());
            data.series
                .iter()
                .find(|s| s.name == name && s.class == class)
        };
        let Some(base_row) = group.benchmarks.first() else {
            continue;
        };
        let Some(base) = find(&base_row.name, &base_row.class) else {
            continue;
        };
        for (k, _) in group.comparisons.iter().enumerate() {
            let Some(row) = group.row_of(k) else { continue };
            let Some(cand) = find(&row.name, &row.class) else {
                continue;
            };
            let Some(c) = compare(base, cand, levels, data.higher_is_better, config) else {
                continue;
            };
            warnings.extend(comparison_warnings(&c, levels, config));
            comparisons.push(LevelledComparison {
                class: group.class.clone(),
                ..c
            });
        }
    }
    let report = LevelsReport {
        hosts: levels.hosts().to_vec(),
        sessions: levels.session_count(),
        top_level: if levels.hosts().len() > 1 {
            "host"
        } else {
            "session"
        }
        .to_owned(),
        resamples: config.resamples,
        permutations: PERMUTATIONS,
        comparisons,
    };
    Some((report, warnings))
}

/// One candidate against its baseline, pooled over the levels.
fn compare(
    base: &Series,
    cand: &Series,
    levels: &Levels,
    higher_is_better: bool,
    config: &AnalysisConfig,
) -> Option<LevelledComparison> {
    let summary = config
        .paired_estimator
        .block_summary()
        .oriented(higher_is_better);
    let nested = nest(base, cand, levels, summary)?;
    let (by_host, units) = nested.units();
    let tree: Vec<Vec<Vec<f64>>> = units.iter().map(|(_, u)| u.clone()).collect();
    let k = tree.len();
    let level = config.confidence;
    let meta = pool_units(&tree);
    let at = |l: f64| meta.as_ref().and_then(|m| m.interval(l));
    // The verdict is a test at alpha: the 1 - alpha interval, whatever level is printed;
    // equivalence is two one-sided tests at alpha: the 1 - 2 alpha interval.
    let decide = at(1.0 - config.alpha);
    let tost = at(1.0 - 2.0 * config.alpha);
    let outcome = pooled_outcome(decide, tost, higher_is_better, config.equivalence_margin);
    let blocks: usize = tree.iter().flatten().map(Vec::len).sum();
    let noun = if by_host { "host" } else { "session" };
    let bootstrap =
        hierarchical_bootstrap(&tree, config.resamples, config.seed).map(|b| PooledBootstrap {
            ratio: b.estimate.exp(),
            ci: pooled_interval(b.estimate, b.standard_error, k, level)
                .map(|[lo, hi]| [lo.exp(), hi.exp()]),
            standard_error: b.standard_error,
            resamples: b.resamples,
        });
    let pooled = PooledEffect {
        ratio: meta
            .as_ref()
            .map_or_else(|| pooled_mean(&tree), |m| m.estimate)
            .exp(),
        ci: at(level).map(|[lo, hi]| [lo.exp(), hi.exp()]),
        level,
        df: k.saturating_sub(1),
        standard_error: meta.as_ref().map(|m| m.standard_error),
        outcome,
        units: k,
        blocks,
        note: claim(k, by_host),
        method: meta.as_ref().map_or(PooledMethod::TOnMeans, |m| m.method),
        tau_squared: meta.as_ref().and_then(|m| m.tau_squared),
        hksj_factor: meta.as_ref().and_then(|m| m.hksj_factor),
        bootstrap,
    };
    let per_unit = unit_effects(&units, &nested, levels, by_host, level);
    let flat: Vec<Vec<f64>> = tree.iter().map(|u| u.concat()).collect();
    let heterogeneity =
        heterogeneity(&flat, PERMUTATIONS, config.seed).map(|h| HeterogeneityReport {
            significant: h.p_value < config.alpha,
            q: h.q,
            df: h.df,
            i_squared: h.i_squared,
            tau_squared: h.tau_squared,
            p_value: h.p_value,
        });
    let mut summary = sentence(&pooled, noun, higher_is_better, config.alpha);
    if let (Outcome::Equivalent, Some([lo, hi])) = (pooled.outcome, tost) {
        summary.push_str(&format!(
            " (its {:.0}% interval [{:.3}, {:.3}] lies inside ±{:.1}%: two one-sided tests at alpha {})",
            (1.0 - 2.0 * config.alpha) * 100.0,
            lo.exp(),
            hi.exp(),
            config.equivalence_margin * 100.0,
            config.alpha
        ));
    }
    Some(LevelledComparison {
        class: None,
        baseline: base.name.clone(),
        candidate: cand.name.clone(),
        pooled,
        per_unit,
        variance: variance_table(&nested),
        heterogeneity,
        summary,
    })
}

/// The hierarchical bootstrap's cross-check interval:
/// `estimate ± t(1 - (1 - level)/2, k - 1) · se · sqrt(k / (k - 1))` on the log scale;
/// `None` for fewer than 2 units. The factor undoes the `(k - 1) / k` shrinkage of a
/// with-replacement resample of `k` unit means.
pub fn pooled_interval(estimate: f64, se: f64, k: usize, level: f64) -> Option<[f64; 2]> {
    if k < 2 || !se.is_finite() {
        return None;
    }
    let kf = k as f64;
    let t = student_t_ppf(1.0 - (1.0 - level) / 2.0, kf - 1.0)?;
    let half = t * se * (kf / (kf - 1.0)).sqrt();
    Some([estimate - half, estimate + half])
}

/// Equivalent when the whole `1 - 2 alpha` interval (`tost`, two one-sided tests at alpha)
/// lies within the margin, else faster or slower when the `1 - alpha` interval `ci`
/// excludes no change, else inconclusive.
fn pooled_outcome(
    ci: Option<[f64; 2]>,
    tost: Option<[f64; 2]>,
    higher_is_better: bool,
    margin: f64,
) -> Outcome {
    let (Some([lo, hi]), Some([tost_lo, tost_hi])) = (ci, tost) else {
        return Outcome::Inconclusive;
    };
    if tost_lo >= (1.0 - margin).ln() && tost_hi <= (1.0 + margin).ln() {
        Outcome::Equivalent
    } else if hi < 0.0 || lo > 0.0 {
        if (lo > 0.0) == higher_is_better {
            Outcome::Faster
        } else {
            Outcome::Slower
        }
    } else {
        Outcome::Inconclusive
    }
}

/// What the pooled verdict can claim with `k` units.
fn claim(k: usize, by_host: bool) -> String {
    if !by_host {
        return format!(
            "one host: pooled over {k} sessions, the claim is about this host, not about other machines"
        );
    }
    if k <= FEW_HOSTS {
        format!(
            "with {k} hosts the between-host variance is barely estimable: the interval uses Student's t with {} degree(s) of freedom, so it is wide; more hosts narrow it",
            k - 1
        )
    } else {
        format!(
            "the claim is about hosts like these {k}, drawn the same way (the interval counts the spread between hosts)"
        )
    }
}

/// The pooled sentence: `pooled over 5 hosts (10 sessions, 200 blocks): ratio 0.952
/// [0.931, 0.974] at 95%: faster`; an interval at another level than the verdict's
/// `1 - alpha` (`--confidence`) says so.
fn sentence(p: &PooledEffect, noun: &str, higher_is_better: bool, alpha: f64) -> String {
    let interval = match p.ci {
        Some([lo, hi]) if (1.0 - p.level - alpha).abs() > 1e-9 => format!(
            " [{lo:.3}, {hi:.3}] at {}, not the verdict's {}",
            percent(p.level),
            percent(1.0 - alpha)
        ),
        Some([lo, hi]) => format!(" [{lo:.3}, {hi:.3}] at {}", percent(p.level)),
        None => String::new(),
    };
    let word = match p.outcome {
        Outcome::Faster if higher_is_better => "better",
        Outcome::Faster => "faster",
        Outcome::Slower if higher_is_better => "worse",
        Outcome::Slower => "slower",
        Outcome::Equivalent => "equivalent",
        Outcome::Inconclusive | Outcome::Mixed => "inconclusive",
    };
    format!(
        "pooled over {} {noun}s ({} blocks): ratio {:.3}{interval}: {word}",
        p.units, p.blocks, p.ratio
    )
}

/// "95%", "99.9%": a level as a percentage, one decimal only when needed.
fn percent(level: f64) -> String {
    let pct = level * 100.0;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{pct:.0}%")
    } else {
        format!("{pct:.1}%")
    }
}

/// Each unit's own mean block log-ratio with its Student t interval.
fn unit_effects(
    units: &[Unit],
    nested: &Nested,
    levels: &Levels,
    by_host: bool,
    level: f64,
) -> Vec<UnitEffect> {
    units
        .iter()
        .map(|(id, sessions)| {
            let d = sessions.concat();
            let n = d.len();
            let m = d.iter().sum::<f64>() / n as f64;
            let se = (n >= 2).then(|| {
                let s2 = d.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64;
                (s2 / n as f64).sqrt()
            });
            let ci = se.and_then(|se| {
                let t = student_t_ppf(1.0 - (1.0 - level) / 2.0, (n - 1) as f64)?;
                Some([(m - t * se).exp(), (m + t * se).exp()])
            });
            let name = if by_host {
                levels.hosts().get(*id).cloned().unwrap_or_default()
            } else {
                let host = levels.host_of_session(*id).unwrap_or(0);
                let name = levels.hosts().get(host).cloned().unwrap_or_default();
                format!("{name}/session {}", id + 1)
            };
            let sessions_n = if by_host {
                nested.hosts.get(id).map_or(0, |s| s.len())
            } else {
                1
            };
            UnitEffect {
                name,
                sessions: sessions_n,
                blocks: n,
                ratio: m.exp(),
                ci,
                standard_error: se,
            }
        })
        .collect()
}

/// The variance components of the log values by level, with each one's share.
fn variance_table(nested: &Nested) -> Vec<LevelVariance> {
    let Some(c) = nested_variance_components(&nested.run_ids, &nested.run_residuals) else {
        return Vec::new();
    };
    let total: f64 = c.variance.iter().flatten().sum();
    ["host", "session", "block", "run"]
        .iter()
        .enumerate()
        .map(|(l, name)| LevelVariance {
            level: (*name).to_owned(),
            units: c.units[l],
            variance: c.variance[l],
            share: c.variance[l].filter(|_| total > 0.0).map(|v| v / total),
        })
        .collect()
}

/// The heterogeneity and few-hosts warnings of one comparison.
fn comparison_warnings(
    c: &LevelledComparison,
    levels: &Levels,
    config: &AnalysisConfig,
) -> Vec<Warning> {
    let mut out = Vec::new();
    let noun = if levels.hosts().len() > 1 {
        "hosts"
    } else {
        "sessions"
    };
    if let Some(h) = c.heterogeneity.as_ref().filter(|h| h.significant) {
        out.push(Warning::new(
            WarningCode::HostHeterogeneity,
            Some(&c.candidate),
            format!(
                "the effect differs across {noun} more than their blocks explain (Cochran's Q = {:.2} on {} df, permutation p = {:.3} < alpha = {}, I² = {:.0}%): the pooled ratio averages unlike {noun}; read each one's own ratio",
                h.q,
                h.df,
                h.p_value,
                config.alpha,
                h.i_squared * 100.0
            ),
        ));
    }
    let hosts = levels.hosts().len();
    if (2..=FEW_HOSTS).contains(&hosts) && c.pooled.units == hosts {
        out.push(Warning::new(
            WarningCode::FewHosts,
            Some(&c.candidate),
            format!(
                "{hosts} hosts: the between-host variance is barely estimable, so the pooled interval is wide and the verdict speaks for hosts like these only"
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tost_tests {
    use super::*;

    /// Equivalence is two one-sided tests at alpha, read off the `1 - 2 alpha` interval:
    /// with 5 hosts and a pooled log-ratio of 0 whose 95% interval reaches past ±1% but
    /// whose 90% interval does not, the pooled verdict is equivalent.
    #[test]
    fn pooled_equivalence_is_a_tost_at_one_minus_two_alpha() {
        let se = 0.0037;
        let ci = pooled_interval(0.0, se, 5, 0.95);
        let tost = pooled_interval(0.0, se, 5, 0.90);
        let margin = 0.01_f64;
        assert!(ci.unwrap()[1] > (1.0 + margin).ln());
        assert!(tost.unwrap()[1] < (1.0 + margin).ln());
        assert_eq!(pooled_outcome(ci, tost, false, margin), Outcome::Equivalent);
        assert_eq!(pooled_outcome(ci, ci, false, margin), Outcome::Inconclusive);
    }
}
