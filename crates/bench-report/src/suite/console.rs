//! The suite report as terminal text.

use bench_stats::suite::SuiteReport;

use super::{Row, rows_of, summary_lines};
use crate::wrap::wrap;

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
