//! What recording says besides what it kept.

use super::escape_terminal;

/// The warning (without `abba: warning: `) of a record whose pull request's base
/// `base_ref` (`$GITHUB_BASE_REF`) git cannot find (a shallow clone): the record has no
/// base commit, so both variants are kept as series at `commit` instead of a step. `who`
/// starts it (`--record`, `history import`). Terminal controls in the texts are escaped.
///
/// # Examples
/// ```
/// let w = bench_report::render_shallow_base("--record", "main", "0123456789abcdef");
/// assert!(w.starts_with("--record: $GITHUB_BASE_REF is main but git finds no merge base"));
/// assert!(w.contains("kept as series at 0123456789 instead of a step"));
/// ```
pub fn render_shallow_base(who: &str, base_ref: &str, commit: &str) -> String {
    let base = escape_terminal(base_ref);
    let short: String = commit.chars().take(10).collect();
    format!(
        "{who}: $GITHUB_BASE_REF is {base} but git finds no merge base of HEAD with origin/{base} (a shallow clone?), so the record has no base commit: both variants are kept as series at {} instead of a step; fetch the history (actions/checkout with fetch-depth: 0) or give --base-commit",
        escape_terminal(&short)
    )
}
