//! The documents of a benchmark's history (`abba history show`, `list`, `export`), one
//! file per document: the series table ([`table`]), the CI check ([`check`]), the overview of a store ([`list`]),
//! CSV ([`csv`]), JSON ([`json`]), Bencher Metric Format ([`bmf`]) and, behind the `html`
//! feature, the self-contained HTML page ([`html`]). Each reads the plain
//! `bench_stats::history::Series`.

mod bmf;
mod check;
mod csv;
#[cfg(feature = "html")]
mod html;
mod json;
mod list;
mod record;
mod table;

pub use bmf::render_history_bmf;
pub use check::render_history_check;
pub use csv::{HISTORY_CSV_COLUMNS, render_history_csv};
#[cfg(feature = "html")]
pub use html::render_history_page;
pub use json::render_history_json;
pub use list::{HistoryOverview, ListedBenchmark, render_history_list};
pub use record::render_shallow_base;
pub use table::{render_history_series, render_history_show};

use bench_stats::history::Series;

/// `text` with every control character (a newline, a tab, the escape that starts a
/// terminal sequence) written as its Rust escape (`\n`, `\u{1b}`): stored names, labels
/// and subjects are shown as text, never acted on by the terminal.
///
/// # Examples
/// ```
/// use bench_report::escape_terminal;
/// assert_eq!(escape_terminal("a\nb\u{1b}[31m"), "a\\nb\\u{1b}[31m");
/// assert_eq!(escape_terminal("parse/small"), "parse/small");
/// ```
pub fn escape_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A copy of `s` with every stored text escaped ([`escape_terminal`]) for a terminal
/// document: names, metric, unit, machine facts, commits and subjects.
pub(crate) fn printable(s: &Series) -> Series {
    let e = |t: &str| escape_terminal(t).into_owned();
    let o = |t: &Option<String>| t.as_deref().map(e);
    let mut p = s.clone();
    p.benchmark.name = e(&s.benchmark.name);
    p.benchmark.metric = e(&s.benchmark.metric);
    p.benchmark.unit = e(&s.benchmark.unit);
    p.benchmark.command = o(&s.benchmark.command);
    p.machine.name = e(&s.machine.name);
    p.machine.fingerprint = e(&s.machine.fingerprint);
    p.machine.cpu_model = o(&s.machine.cpu_model);
    p.machine.kernel = o(&s.machine.kernel);
    for point in &mut p.points {
        point.commit.sha = e(&point.commit.sha);
        point.commit.parent = o(&point.commit.parent);
        point.commit.subject = o(&point.commit.subject);
        if let Some(step) = &mut point.step {
            step.outcome = e(&step.outcome);
            step.verdict = e(&step.verdict);
            step.estimator = e(&step.estimator);
        }
    }
    p
}

/// A ratio as a signed percent change with two decimals (`+2.00%`); a change under
/// 0.005% is `+0.00%` (never `-0.00%`).
///
/// # Examples
/// ```
/// use bench_report::percent_change;
/// assert_eq!(percent_change(1.02), "+2.00%");
/// assert_eq!(percent_change(0.99999), "+0.00%");
/// assert_eq!(percent_change(0.95), "-5.00%");
/// ```
pub fn percent_change(ratio: f64) -> String {
    let p = (ratio - 1.0) * 100.0;
    if p.abs() < 0.005 {
        "+0.00%".into()
    } else {
        format!("{p:+.2}%")
    }
}

/// The direction of a ratio (after / before) in words for a benchmark where higher is
/// better or not: `no change`, `slower` or `faster`.
pub fn change_word(ratio: f64, higher_is_better: bool) -> &'static str {
    if ratio == 1.0 {
        "no change"
    } else if is_worse(ratio, higher_is_better) {
        "slower"
    } else {
        "faster"
    }
}

/// [`change_word`] in the words of `benchmark`'s metric: `more` or `fewer` for a count
/// (instructions, cycles, ...: never a time word), `slower` or `faster` otherwise.
pub fn series_change_word(
    ratio: f64,
    benchmark: &bench_stats::history::SeriesBenchmark,
) -> &'static str {
    if !is_counted(benchmark) {
        return change_word(ratio, benchmark.higher_is_better);
    }
    match change_word(ratio, benchmark.higher_is_better) {
        "no change" => "no change",
        _ if ratio > 1.0 => "more",
        _ => "fewer",
    }
}

/// `chain of 3 paired steps #2 -> #5: +1.20% [+0.40%, +2.00%]`: a chain of paired steps
/// with its ratio and interval, as `history show` and `history check` say it.
pub(crate) fn chain_span_text(ch: &bench_stats::history::ChainSpan) -> String {
    format!(
        "chain of {} paired steps #{} -> #{}: {} [{}, {}]",
        ch.steps.len(),
        ch.from + 1,
        ch.to + 1,
        percent_change(ch.chain.ratio),
        percent_change(ch.chain.interval[0]),
        percent_change(ch.chain.interval[1])
    )
}

/// Whether `benchmark`'s values are counts (its metric names a counted event).
pub(crate) fn is_counted(benchmark: &bench_stats::history::SeriesBenchmark) -> bool {
    bench_stats::Quantity::from(benchmark.metric.clone()).is_count()
}

/// Whether a ratio (after / before) is a slowdown for a benchmark where higher is better
/// or not.
fn is_worse(ratio: f64, higher_is_better: bool) -> bool {
    if higher_is_better {
        ratio < 1.0
    } else {
        ratio > 1.0
    }
}
