//! The multi-level section (an experiment over several hosts or sessions) as
//! format-neutral pieces: per comparison, the pooled verdict, the per-host table and the
//! variance per level.

use bench_stats::model::{
    LevelVariance, LevelledComparison, LevelsReport, PooledMethod, UnitEffect,
};

use crate::view::{Cell, Grid, Tone};

/// The whole section.
#[derive(Debug, Clone)]
pub(crate) struct LevelsView {
    /// `Many hosts: 5 host(s), 10 session(s)`.
    pub(crate) title: String,
    pub(crate) sections: Vec<LevelsSection>,
}

/// One comparison pooled over the levels.
#[derive(Debug, Clone)]
pub(crate) struct LevelsSection {
    /// `B vs A`.
    pub(crate) title: String,
    /// The pooled sentence.
    pub(crate) verdict: String,
    pub(crate) tone: Tone,
    /// What the verdict claims, and the heterogeneity check, in words.
    pub(crate) lines: Vec<String>,
    /// One row per host (or session).
    pub(crate) units: Grid,
    /// One row per level.
    pub(crate) variance: Grid,
}

/// The section of `report`, or `None` when there is nothing to pool.
pub(crate) fn build(report: &LevelsReport) -> Option<LevelsView> {
    if report.comparisons.is_empty() {
        return None;
    }
    let title = format!(
        "Many {}s: {} host(s), {} session(s)",
        report.top_level,
        report.hosts.len(),
        report.sessions,
    );
    let sections = report
        .comparisons
        .iter()
        .map(|c| section(c, &report.top_level, report.permutations))
        .collect();
    Some(LevelsView { title, sections })
}

fn section(c: &LevelledComparison, noun: &str, permutations: u32) -> LevelsSection {
    let mut lines = vec![
        method_line(c, noun),
        c.pooled.note.clone(),
        format!(
            "the paired verdict above pools every block as one sample: it speaks for these {noun}s; this one counts the spread between {noun}s"
        ),
    ];
    lines.push(match &c.heterogeneity {
        Some(h) => format!(
            "heterogeneity across {noun}s: Cochran's Q = {:.2} on {} df, permutation p = {:.3} ({permutations} shuffles), I² = {:.0}%, τ² = {:.2e}{}",
            h.q,
            h.df,
            h.p_value,
            h.i_squared * 100.0,
            h.tau_squared,
            if h.significant {
                ": the effect differs across them"
            } else {
                ""
            }
        ),
        None => format!(
            "heterogeneity across {noun}s: not tested (a {noun} with fewer than 2 blocks or no spread)"
        ),
    });
    let class = c
        .class
        .as_ref()
        .map(|k| format!(" [{k}]"))
        .unwrap_or_default();
    LevelsSection {
        title: format!("{} vs {}{class}", c.candidate, c.baseline),
        verdict: c.summary.clone(),
        tone: Tone::of(c.pooled.outcome),
        lines,
        units: units_grid(&c.per_unit, noun),
        variance: variance_grid(&c.variance),
    }
}

/// How the pooled interval was built, and the bootstrap's cross-check beside it.
fn method_line(c: &LevelledComparison, noun: &str) -> String {
    let p = &c.pooled;
    let how = match (p.method, p.tau_squared, p.hksj_factor) {
        (PooledMethod::RandomEffectsHksj, Some(tau2), Some(q)) => format!(
            "random effects over the {} {noun} means (DerSimonian-Laird τ² = {tau2:.2e}, Hartung-Knapp-Sidik-Jonkman q = {q:.2}, used as max(1, q)), t on {} df",
            p.units, p.df
        ),
        _ => {
            let first = c.per_unit.first().map(|u| (u.sessions, u.blocks));
            let balanced = c
                .per_unit
                .iter()
                .all(|u| Some((u.sessions, u.blocks)) == first);
            let why = if balanced {
                "balanced: the same sessions and blocks each"
            } else {
                "a unit without spread cannot be weighed"
            };
            format!(
                "Student's t on the {} {noun} means, {} df ({why})",
                p.units, p.df
            )
        }
    };
    match &p.bootstrap {
        Some(b) => format!(
            "interval: {how}; cross-check: hierarchical bootstrap {} ({} resamples; conservative, it counts the within-{noun} noise twice)",
            interval(b.ci),
            b.resamples
        ),
        None => format!("interval: {how}"),
    }
}

fn interval(ci: Option<[f64; 2]>) -> String {
    ci.map_or_else(|| "-".to_owned(), |[lo, hi]| format!("[{lo:.3}, {hi:.3}]"))
}

fn units_grid(units: &[UnitEffect], noun: &str) -> Grid {
    let header = [noun, "sessions", "blocks", "ratio", "interval"];
    Grid {
        header: header.iter().map(|h| (*h).to_owned()).collect(),
        rows: units
            .iter()
            .map(|u| {
                vec![
                    Cell::plain(u.name.clone()),
                    Cell::plain(u.sessions.to_string()),
                    Cell::plain(u.blocks.to_string()),
                    Cell::plain(format!("{:.3}", u.ratio)),
                    Cell::plain(interval(u.ci)),
                ]
            })
            .collect(),
        right_aligned: vec![false, true, true, true, true],
        priority: vec![0, 2, 1, 0, 0],
        key: vec![0],
        names: Some(0),
    }
}

fn variance_grid(levels: &[LevelVariance]) -> Grid {
    let header = ["level", "units", "variance (log)", "sd (%)", "share"];
    Grid {
        header: header.iter().map(|h| (*h).to_owned()).collect(),
        rows: levels
            .iter()
            .map(|l| {
                let (var, sd) = match l.variance {
                    Some(v) => (format!("{v:.3e}"), format!("{:.2}", v.sqrt() * 100.0)),
                    None => ("in the level above".to_owned(), "-".to_owned()),
                };
                vec![
                    Cell::plain(l.level.clone()),
                    Cell::plain(l.units.to_string()),
                    Cell::plain(var),
                    Cell::plain(sd),
                    Cell::plain(
                        l.share
                            .map_or_else(|| "-".to_owned(), |s| format!("{:.0}%", s * 100.0)),
                    ),
                ]
            })
            .collect(),
        right_aligned: vec![false, true, true, true, true],
        priority: vec![0, 1, 0, 0, 0],
        key: vec![0],
        names: None,
    }
}
