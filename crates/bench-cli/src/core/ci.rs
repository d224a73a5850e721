//! Where CI shows a result: the GitHub Actions job summary (appended here) and the export
//! files. The documents themselves (the PR comment, BMF, github-action-benchmark) are
//! `bench-report`'s.

use std::io::Write;
use std::path::Path;

pub use bench_report::STEP_SUMMARY_MAX;
use bench_stats::analysis::GateResult;

/// Says each gate's trips (`abba: gate: ` and [`bench_report::render_gate`]'s words) on
/// standard error; whether any tripped (the command then exits 1).
pub fn say_gates(results: impl IntoIterator<Item = GateResult>) -> bool {
    let mut tripped = false;
    for gate in results {
        tripped |= gate.tripped();
        for line in bench_report::render_gate(&gate) {
            crate::core::stdio::stderr_line(format_args!("abba: gate: {line}"));
        }
    }
    tripped
}

/// Writes an export as every export of abba is written ([`crate::core::output::export`]): `-`
/// and `/dev/stdout` to standard output, a device or pipe in place, a file atomically.
pub fn write_export(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::core::paths::export(path, bytes)
}

/// Appends `markdown` to the file `$GITHUB_STEP_SUMMARY` names, when it is set (GitHub
/// Actions sets it for every step); earlier steps' summaries stay. Nothing when unset.
///
/// # Errors
/// The file cannot be opened or written.
pub fn append_step_summary(markdown: &str) -> Result<(), String> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    // GitHub counts the summary's bytes, not its characters.
    let text: String = if markdown.len() > STEP_SUMMARY_MAX {
        let mut end = STEP_SUMMARY_MAX - 200;
        while !markdown.is_char_boundary(end) {
            end -= 1;
        }
        let mut cut = markdown[..end].to_owned();
        cut.push_str("\n\n_abba: the summary was cut to GitHub's size limit._\n");
        cut
    } else {
        markdown.to_owned()
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", Path::new(&path).display()))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.write_all(b"\n"))
        .map_err(|e| format!("{}: {e}", Path::new(&path).display()))
}
