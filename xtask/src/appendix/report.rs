//! The report of `reproduce-appendix`: this machine beside the appendix's data and its
//! published figures, as console text, Markdown (`target/appendix/REPORT.md`) or JSON.

use std::fmt::Write as _;
use std::path::PathBuf;

use bench_stats::descriptive::{P99_MIN_SAMPLES, Summary};
use bench_stats::resample::BootstrapInterval;
use serde_json::{Value, json};

use super::fixture::{PairedTable, Published};
use super::measure::ReproduceConfig;
use super::stats::{PairedStats, Side, UnpairedStats};
use super::{CONFIDENCE, NULL_SIMULATIONS, RESAMPLES};
use crate::table::TextTable;

/// Everything one report shows.
pub(super) struct Report<'a> {
    pub(super) config: ReproduceConfig,
    pub(super) this: &'a Side,
    pub(super) appendix: &'a Side,
    pub(super) published: &'a Published,
    pub(super) raw_files: &'a [PathBuf],
    pub(super) elapsed: f64,
}

fn m1(v: f64) -> String {
    format!("{v:.1}")
}

fn interval(ci: &BootstrapInterval, decimals: usize, suffix: &str) -> String {
    format!(
        "[{:.d$}{suffix}, {:.d$}{suffix}]",
        ci.low,
        ci.high,
        d = decimals
    )
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.decimals$}"))
}

/// The appendix's layout: a `block` header row and one row per configuration.
fn block_table(t: &PairedTable) -> TextTable {
    let n = t.baseline_values.len();
    let mut table =
        TextTable::new(std::iter::once("block".to_owned()).chain((1..=n).map(|b| b.to_string())));
    table.row(std::iter::once(t.baseline.clone()).chain(t.baseline_values.iter().map(|&v| m1(v))));
    table
        .row(std::iter::once(t.candidate.clone()).chain(t.candidate_values.iter().map(|&v| m1(v))));
    table
}

fn excludes(ci: &BootstrapInterval, null: f64) -> &'static str {
    if ci.contains(null) {
        "includes"
    } else {
        "excludes"
    }
}

impl Report<'_> {
    /// The statistics side by side: this machine, the appendix's data recomputed, and the
    /// appendix's published figure where it prints one.
    fn stats_table(&self) -> TextTable {
        let mut table = TextTable::new([
            "statistic",
            "this machine",
            "appendix data, recomputed",
            "appendix, published",
        ]);
        self.real_rows(&mut table);
        self.null_rows(&mut table);
        self.unpaired_rows(&mut table);
        table
    }

    /// One row of the statistics table: `f` read from both sides, then `published`.
    fn row(
        &self,
        table: &mut TextTable,
        label: &str,
        f: &dyn Fn(&Side) -> String,
        published: String,
    ) {
        table.row([label.to_owned(), f(self.this), f(self.appendix), published]);
    }

    /// The real effect's rows (chains=1 vs chains=2).
    fn real_rows(&self, table: &mut TextTable) {
        let p = self.published;
        let none = String::new;
        self.row(
            table,
            "blocks",
            &|s| s.real.analysis.blocks.to_string(),
            "12".into(),
        );
        self.row(
            table,
            "chains=1 median",
            &|s| m1(s.real.baseline.median),
            format!("{:.1}", p.real_median_baseline),
        );
        self.row(
            table,
            "chains=1 p50 / p90",
            &|s| format!("{} / {}", m1(s.real.baseline.p50), m1(s.real.baseline.p90)),
            none(),
        );
        self.row(
            table,
            "chains=2 median",
            &|s| m1(s.real.candidate.median),
            none(),
        );
        self.row(
            table,
            "chains=2 p50 / p90",
            &|s| {
                format!(
                    "{} / {}",
                    m1(s.real.candidate.p50),
                    m1(s.real.candidate.p90)
                )
            },
            none(),
        );
        self.row(
            table,
            "p99",
            &|s| match s.real.baseline.p99 {
                Ok(v) => m1(v),
                Err(w) => format!("withheld (n={} < {})", w.n, w.needed),
            },
            "not meaningful at 12".into(),
        );
        self.row(
            table,
            "mean difference (2 - 1)",
            &|s| format!("{:.2}", s.real.analysis.mean_difference),
            format!("{:.1}", p.real_mean_difference),
        );
        self.row(
            table,
            "sd of block differences",
            &|s| opt(s.real.analysis.sd_difference, 1),
            format!("{:.1}", p.real_sd_difference),
        );
        self.row(
            table,
            "difference 95% CI",
            &|s| interval(&s.real.difference_ci, 1, ""),
            format!(
                "[{:.1}, {:.1}]",
                p.real_difference_ci[0], p.real_difference_ci[1]
            ),
        );
        self.row(
            table,
            "ratio of means",
            &|s| format!("{}x", opt(s.real.analysis.ratio, 3)),
            format!("{:.2}x", p.real_ratio),
        );
        self.row(
            table,
            "ratio 95% CI",
            &|s| interval(&s.real.ratio_ci, 3, "x"),
            format!("[{:.2}x, {:.2}x]", p.real_ratio_ci[0], p.real_ratio_ci[1]),
        );
        self.row(
            table,
            "Cohen's dz (paired)",
            &|s| opt(s.real.analysis.cohens_dz, 1),
            format!("~{:.0}", p.real_cohens_dz),
        );
        self.row(
            table,
            "Cohen's d (unpaired, contrast)",
            &|s| opt(s.real.analysis.cohens_d_unpaired, 1),
            none(),
        );
    }

    /// The null pair's rows (run A vs run B) and the simulated false-positive rate.
    fn null_rows(&self, table: &mut TextTable) {
        let p = self.published;
        let none = String::new;
        self.row(
            table,
            "null: run A / run B median",
            &|s| {
                format!(
                    "{} / {}",
                    m1(s.null.baseline.median),
                    m1(s.null.candidate.median)
                )
            },
            none(),
        );
        self.row(
            table,
            "null: run A p50 / p90",
            &|s| format!("{} / {}", m1(s.null.baseline.p50), m1(s.null.baseline.p90)),
            none(),
        );
        self.row(
            table,
            "null: mean difference (B - A)",
            &|s| format!("{:.2}", s.null.analysis.mean_difference),
            none(),
        );
        self.row(
            table,
            "null: difference 95% CI",
            &|s| interval(&s.null.difference_ci, 1, ""),
            format!(
                "[{:.1}, {:.1}]",
                p.null_difference_ci[0], p.null_difference_ci[1]
            ),
        );
        self.row(
            table,
            "null: ratio 95% CI",
            &|s| interval(&s.null.ratio_ci, 4, "x"),
            format!("[{:.3}x, {:.3}x]", p.null_ratio_ci[0], p.null_ratio_ci[1]),
        );
        self.row(
            table,
            "null: Cohen's dz",
            &|s| opt(s.null.analysis.cohens_dz, 2),
            none(),
        );
        self.row(
            table,
            "null: simulated false-positive rate",
            &|s| format!("{:.1}%", 100.0 * s.null_exclusion),
            "5% nominal".into(),
        );
    }

    /// The unpaired contrast beside the paired null.
    fn unpaired_rows(&self, table: &mut TextTable) {
        let p = self.published;
        let none = String::new;
        self.row(
            table,
            "unpaired: session means",
            &|s| {
                format!(
                    "{} / {}",
                    m1(s.unpaired.first_summary.mean),
                    m1(s.unpaired.second_summary.mean)
                )
            },
            none(),
        );
        self.row(
            table,
            "unpaired: difference 95% CI",
            &|s| interval(&s.unpaired.difference_ci, 1, ""),
            "barely excluded 0 (data unpublished)".into(),
        );
        self.row(
            table,
            "paired null beside it",
            &|s| interval(&s.null.difference_ci, 1, ""),
            format!(
                "[{:.1}, {:.1}]",
                p.null_difference_ci[0], p.null_difference_ci[1]
            ),
        );
    }

    fn verdicts(&self) -> Vec<String> {
        let t = self.this;
        let r = &t.real.ratio_ci;
        vec![
            format!(
                "real effect: the ratio interval {} {} 1 and {} above 1.5 -> {}",
                interval(r, 3, "x"),
                excludes(r, 1.0),
                if r.low > 1.5 { "lies" } else { "does not lie" },
                if r.low > 1.5 {
                    "reproduced"
                } else {
                    "NOT reproduced"
                }
            ),
            format!(
                "null pair: the ratio interval {} {} 1 -> {}",
                interval(&t.null.ratio_ci, 4, "x"),
                excludes(&t.null.ratio_ci, 1.0),
                if t.null.ratio_ci.contains(1.0) {
                    "no difference found, as it should be"
                } else {
                    "a false positive (expected in about 5% of repetitions, more at few blocks)"
                }
            ),
            format!(
                "unpaired contrast: resampling runs of two sessions of the same configuration \
                 gives {} ({} 0) -> {}",
                interval(&t.unpaired.difference_ci, 1, ""),
                excludes(&t.unpaired.difference_ci, 0.0),
                if t.unpaired.difference_ci.contains(0.0) {
                    "the sessions agreed this time; a shift between sessions would have been \
                     counted as an effect, which the paired blocks cancel"
                } else {
                    "a spurious difference: the shift between the sessions is counted as an \
                     effect, while the paired null above, interleaved in blocks, cancels it"
                }
            ),
        ]
    }

    fn notes(&self) -> Vec<String> {
        vec![
            format!(
                "Intervals: block bootstrap, {RESAMPLES} resamples of the blocks, 95% percentile, \
                 mean-based (difference of block means, ratio of block means); bootstrap seed {}.",
                self.config.seed
            ),
            format!(
                "Small n: with {} runs per configuration p90 is read loosely and p99 is withheld \
                 (it needs {P99_MIN_SAMPLES}+ runs; at 12 it is little more than the maximum).",
                self.config.blocks
            ),
            format!(
                "False-positive rate: {NULL_SIMULATIONS} simulated null experiments drawn from each \
                 null table's centred block differences; a 95% interval should exclude 0 about 5% \
                 of the time, more when the percentile interval undercovers at {} blocks.",
                self.config.blocks
            ),
            "Appendix unpaired column: the appendix does not publish its two unpaired sessions, \
             so its null table's rows are resampled as runs with the blocks ignored."
                .to_owned(),
        ]
    }

    fn command(&self) -> String {
        format!(
            "abba compute --op int --threads 1 --duration {} --json (chains 1 and 2), {} blocks, \
             design random, layout random, seed {}",
            self.config.duration, self.config.blocks, self.config.seed
        )
    }

    pub(super) fn console(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Appendix F reproduced: {}", self.command());
        let _ = writeln!(
            out,
            "experiments and analysis took {:.1} s (after the build)\n",
            self.elapsed
        );
        let tables = [
            ("This machine: real effect (M ops/s)", &self.this.real.table),
            ("This machine: null pair (M ops/s)", &self.this.null.table),
            (
                "Appendix F: real effect (M ops/s)",
                &self.appendix.real.table,
            ),
            ("Appendix F: null pair (M ops/s)", &self.appendix.null.table),
        ];
        for (title, t) in tables {
            let _ = writeln!(out, "{title}\n{}", block_table(t).plain());
        }
        let _ = writeln!(
            out,
            "Statistics (M ops/s unless marked)\n{}",
            self.stats_table().plain()
        );
        for v in self.verdicts() {
            let _ = writeln!(out, "{v}");
        }
        out.push('\n');
        for n in self.notes() {
            let _ = writeln!(out, "note: {n}");
        }
        let _ = writeln!(
            out,
            "raw data: {}",
            self.raw_files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        out
    }

    pub(super) fn markdown(&self) -> String {
        let mut out = String::from("# Appendix F, reproduced\n\n");
        let _ = writeln!(
            out,
            "`cargo xtask reproduce-appendix --blocks {} --seed {} --duration {}`: {}. \
            Experiments and analysis took {:.1} s after the build.\n",
            self.config.blocks,
            self.config.seed,
            self.config.duration,
            self.command(),
            self.elapsed
        );
        let tables = [
            ("This machine: real effect", &self.this.real.table),
            ("This machine: null pair", &self.this.null.table),
            ("Appendix F: real effect", &self.appendix.real.table),
            ("Appendix F: null pair", &self.appendix.null.table),
        ];
        for (title, t) in tables {
            let _ = writeln!(out, "## {title} (M ops/s)\n\n{}", block_table(t).markdown());
        }
        let _ = writeln!(
            out,
            "## Statistics (M ops/s unless marked)\n\n{}",
            self.stats_table().markdown()
        );
        let _ = writeln!(out, "## Verdicts\n");
        for v in self.verdicts() {
            let _ = writeln!(out, "- {v}");
        }
        let _ = writeln!(out, "\n## Notes\n");
        for n in self.notes() {
            let _ = writeln!(out, "- {n}");
        }
        out
    }

    pub(super) fn json(&self) -> Value {
        json!({
            "schema": "abba.xtask.appendix/1",
            "unit": "Mops/s",
            "blocks": self.config.blocks,
            "seed": self.config.seed,
            "duration_s": self.config.duration,
            "resamples": RESAMPLES,
            "confidence": CONFIDENCE,
            "elapsed_s": self.elapsed,
            "real": paired_json(&self.this.real),
            "null": paired_json_with_rate(&self.this.null, self.this.null_exclusion),
            "unpaired": unpaired_json(&self.this.unpaired),
            "appendix": {
                "real": paired_json(&self.appendix.real),
                "null": paired_json_with_rate(&self.appendix.null, self.appendix.null_exclusion),
                "unpaired": unpaired_json(&self.appendix.unpaired),
            },
        })
    }
}

fn summary_json(s: &Summary) -> Value {
    json!({
        "n": s.n, "mean": s.mean, "median": s.median, "p50": s.p50, "p90": s.p90,
        "p99": s.p99.ok(), "stddev": s.stddev, "min": s.min, "max": s.max,
    })
}

fn paired_json(s: &PairedStats) -> Value {
    let a = &s.analysis;
    json!({
        "blocks": a.blocks,
        "table": s.table,
        "baseline_summary": summary_json(&s.baseline),
        "candidate_summary": summary_json(&s.candidate),
        "mean_difference": a.mean_difference,
        "sd_difference": a.sd_difference,
        "difference_ci": s.difference_ci.bounds(),
        "ratio": a.ratio,
        "ratio_ci": s.ratio_ci.bounds(),
        "cohens_dz": a.cohens_dz,
        "cohens_d_unpaired": a.cohens_d_unpaired,
    })
}

fn paired_json_with_rate(s: &PairedStats, rate: f64) -> Value {
    let mut v = paired_json(s);
    v["interval_includes_null"] = json!(s.difference_ci.contains(0.0));
    v["simulated_false_positive_rate"] = json!(rate);
    v
}

fn unpaired_json(u: &UnpairedStats) -> Value {
    json!({
        "source": u.source,
        "first": u.first,
        "second": u.second,
        "first_summary": summary_json(&u.first_summary),
        "second_summary": summary_json(&u.second_summary),
        "mean_difference": u.difference_ci.estimate,
        "difference_ci": u.difference_ci.bounds(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::appendix::fixture::Fixture;
    use crate::run::workspace_root;

    #[test]
    fn appendix_side_has_the_published_shape() {
        let root = workspace_root();
        let side = Side::appendix(&Fixture::load(&root).unwrap(), 1).unwrap();
        let report = Report {
            config: ReproduceConfig::default(),
            this: &side,
            appendix: &side,
            published: &Fixture::load(&root).unwrap().published,
            raw_files: &[],
            elapsed: 0.0,
        };
        let md = report.markdown();
        assert!(md.contains("| block | 1 | 2 |"), "{md}");
        assert!(md.contains("| chains=1 | 725.4 | 720.8 |"), "{md}");
        assert!(md.contains("withheld (n=12 < 100)"), "{md}");
        let j = report.json();
        assert_eq!(j["real"]["blocks"], 12);
        assert_eq!(j["null"]["table"]["baseline"], "run A");
        assert!(j["unpaired"]["difference_ci"].is_array());
    }
}
