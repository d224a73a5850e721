//! A suite's report ([`bench_stats::suite::SuiteReport`]): one row per benchmark, then the
//! suite's summary, as terminal text or GitHub-flavoured Markdown.
//!
//! Every row says the level its interval and verdict were decided at (the suite's
//! correction sets it: `level` below alpha), so a reader never takes a 99.75% interval for
//! a 95% one.

use crate::wrap::wrap;
use bench_stats::Outcome;
use bench_stats::suite::{SuiteBenchmarkReport, SuiteReport};

/// One table row, format-neutral.
struct Row {
    benchmark: String,
    candidate: String,
    ratio: String,
    interval: String,
    level: String,
    verdict: String,
    p: String,
    p_adjusted: String,
    changed: bool,
}

fn fixed(x: f64) -> String {
    if !x.is_finite() {
        "n/a".to_owned()
    } else if x != 0.0 && (x.abs() >= 1e6 || x.abs() < 1e-3) {
        format!("{x:.3e}")
    } else {
        format!("{x:.4}")
    }
}

fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".to_owned(),
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
}

/// The verdict word of `outcome` in the direction of the data.
pub(crate) fn verdict_word(outcome: Outcome) -> String {
    if outcome == Outcome::Inconclusive {
        outcome.as_str().to_owned()
    } else {
        outcome.as_str().to_uppercase()
    }
}

fn rows_of(b: &SuiteBenchmarkReport) -> Vec<Row> {
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
fn summary_lines(report: &SuiteReport) -> Vec<String> {
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
    let changed = report.changed();
    if changed.is_empty() {
        out.push("No benchmark changed.".to_owned());
    } else {
        let list: Vec<String> = changed
            .iter()
            .map(|(b, _, o)| format!("{b} ({})", verdict_word(*o)))
            .collect();
        out.push(format!("Changed: {}.", list.join(", ")));
    }
    out
}

/// `n noun`, the noun plural unless `n` is 1 (`1 benchmark`, `3 benchmarks`).
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The suite report as terminal text: the table, then the summary, every line within
/// `width` characters (`None`: no limit). Names are shortened (to no fewer than 9
/// characters, marked `~`) to fit the table; prose is wrapped at spaces
/// ([`crate::wrap`]); a table row that still does not fit (a width below about 62) is
/// wrapped too, its continuation indented.
pub fn render_suite_console(report: &SuiteReport, width: Option<usize>) -> String {
    let rows: Vec<Row> = report.benchmarks.iter().flat_map(rows_of).collect();
    let widest = |header: &str, cell: fn(&Row) -> &str| {
        rows.iter()
            .map(|r| cell(r).chars().count())
            .chain([header.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let ratio_w = widest("ratio", |r| &r.ratio).max(7);
    let interval_w = widest("interval", |r| &r.interval).max(19);
    let verdict_w = widest("verdict", |r| &r.verdict).max(12);
    let p_w = widest("p adj", |r| &r.p_adjusted).max(7);
    let rest = 2 + ratio_w + 2 + interval_w + 2 + verdict_w + 2 + p_w;
    let natural = rows
        .iter()
        .map(|r| r.benchmark.chars().count())
        .max()
        .unwrap_or(9)
        .clamp(9, 28);
    let name_w = width.map_or(natural, |w| natural.min(w.saturating_sub(rest)).max(9));
    let cut = |s: &str| -> String {
        if s.chars().count() <= name_w {
            s.to_owned()
        } else {
            let keep: String = s.chars().take(name_w - 1).collect();
            format!("{keep}~")
        }
    };
    let mut lines = Vec::new();
    let mut row = |name: &str, ratio: &str, interval: &str, verdict: &str, p: &str| {
        let line = format!(
            "{name:<name_w$}  {ratio:>ratio_w$}  {interval:<interval_w$}  {verdict:<verdict_w$}  {p:>p_w$}"
        );
        lines.push(wrap(line.trim_end(), width, "", "  "));
    };
    row("benchmark", "ratio", "interval", "verdict", "p adj");
    for r in &rows {
        row(
            &cut(&r.benchmark),
            &r.ratio,
            &r.interval,
            &r.verdict,
            &r.p_adjusted,
        );
    }
    let levels: Vec<&str> = {
        let mut l: Vec<&str> = rows.iter().map(|r| r.level.as_str()).collect();
        l.sort_unstable();
        l.dedup();
        l
    };
    lines.push(wrap(
        &format!(
            "(intervals at the level each benchmark was decided at: {}; p adj is the p after the suite's correction)",
            levels.join(", ")
        ),
        width,
        "",
        " ",
    ));
    lines.push(String::new());
    for line in summary_lines(report) {
        lines.push(wrap(&line, width, "", "  "));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn md_table(rows: &[&Row]) -> String {
    let mut out = String::from(
        "| benchmark | candidate | ratio | interval | level | verdict | p | p adj |\n| --- | --- | ---: | --- | ---: | --- | ---: | ---: |\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            md_escape(&r.benchmark),
            md_escape(&r.candidate),
            r.ratio,
            r.interval,
            r.level,
            if r.changed {
                format!("**{}**", r.verdict)
            } else {
                r.verdict.clone()
            },
            r.p,
            r.p_adjusted
        ));
    }
    out
}

/// Options of [`render_suite_markdown`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SuiteMarkdown {
    /// A first line (e.g. a hidden `<!-- abba:ID -->` marker), written as given.
    pub marker: Option<String>,
    /// The most characters the document may hold; the unchanged benchmarks' table is
    /// folded first, then cut with a note. `None`: no limit.
    pub max_chars: Option<usize>,
    /// A title line (`## abba suite`); `None`: a default title.
    pub title: Option<String>,
}

impl SuiteMarkdown {
    /// Options with a marker line, a size limit and the default title.
    pub fn new(marker: Option<String>, max_chars: Option<usize>) -> SuiteMarkdown {
        SuiteMarkdown {
            marker,
            max_chars,
            title: None,
        }
    }
}

/// The suite report as Markdown for a pull-request comment or a job summary: the summary,
/// the changed benchmarks' table, and the others folded in a `<details>` block. Within
/// `options.max_chars` characters (the unchanged table is dropped, then the changed one
/// cut, each with a note saying so).
pub fn render_suite_markdown(report: &SuiteReport, options: &SuiteMarkdown) -> String {
    let rows: Vec<Row> = report.benchmarks.iter().flat_map(rows_of).collect();
    let changed: Vec<&Row> = rows.iter().filter(|r| r.changed).collect();
    let rest: Vec<&Row> = rows.iter().filter(|r| !r.changed).collect();
    let mut head = String::new();
    if let Some(marker) = &options.marker {
        head.push_str(marker);
        head.push('\n');
    }
    head.push_str(options.title.as_deref().unwrap_or("## abba suite"));
    head.push_str("\n\n");
    for line in summary_lines(report) {
        head.push_str(&md_escape(&line));
        head.push_str("  \n");
    }
    head.push('\n');
    let changed_md = if changed.is_empty() {
        String::new()
    } else {
        format!("### Changed\n\n{}\n", md_table(&changed))
    };
    let rest_md = if rest.is_empty() {
        String::new()
    } else {
        format!(
            "<details><summary>{} unchanged benchmark(s)</summary>\n\n{}\n</details>\n",
            rest.len(),
            md_table(&rest)
        )
    };
    let note = "\nIntervals are at each benchmark's decision level (the suite's correction sets it); p adj is the p after the correction.\n";
    let full = format!("{head}{changed_md}{rest_md}{note}");
    let Some(max) = options.max_chars else {
        return full;
    };
    if full.chars().count() <= max {
        return full;
    }
    let folded = format!(
        "{head}{changed_md}\n_{} unchanged benchmark(s) left out to fit the size limit; the full report is in the job's files._\n{note}",
        rest.len()
    );
    if folded.chars().count() <= max {
        return folded;
    }
    let tail =
        "\n_The table was cut to fit the size limit; the full report is in the job's files._\n";
    let budget = max.saturating_sub(tail.chars().count());
    let mut cut: String = folded.chars().take(budget).collect();
    if let Some(end) = cut.rfind('\n') {
        cut.truncate(end + 1);
    }
    cut.push_str(tail);
    cut
}

/// "95%", "97.5%", "99.75%", "98.3%": a confidence level with as few decimals as it needs
/// (at most two; a level like 1 - 0.05/3 shows one).
fn level_text(level: f64) -> String {
    let pct = level * 100.0;
    for decimals in 0..=2 {
        let scale = 10f64.powi(decimals);
        if ((pct * scale).round() - pct * scale).abs() < 1e-6 {
            return format!("{pct:.*}%", decimals as usize);
        }
    }
    format!("{pct:.1}%")
}
