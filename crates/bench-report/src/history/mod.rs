//! The documents of a benchmark's history (`abba history show`, `list`, `export`), one
//! file per document: the series table ([`table`]), the overview of a store ([`list`]),
//! CSV ([`csv`]), JSON ([`json`]), Bencher Metric Format ([`bmf`]) and, behind the `html`
//! feature, the self-contained HTML page ([`html`]). Each reads the plain
//! `bench_stats::history::Series`.

mod bmf;
mod csv;
#[cfg(feature = "html")]
mod html;
mod json;
mod list;
mod table;

pub use bmf::render_history_bmf;
pub use csv::{HISTORY_CSV_COLUMNS, render_history_csv};
#[cfg(feature = "html")]
pub use html::render_history_page;
pub use json::render_history_json;
pub use list::{HistoryOverview, ListedBenchmark, render_history_list};
pub use table::render_history_series;

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

/// Whether a ratio (after / before) is a slowdown for a benchmark where higher is better
/// or not.
fn is_worse(ratio: f64, higher_is_better: bool) -> bool {
    if higher_is_better {
        ratio < 1.0
    } else {
        ratio > 1.0
    }
}
