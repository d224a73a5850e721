//! Where the files of one command go, in the flags' words: the checks are
//! [`bench_report::paths`]' (an export written where its path names, none replacing the
//! raw runs, an input, or another export), refused here with exit 2.

use std::path::Path;

use crate::args::AnalysisArgs;
use crate::core::exit::usage;
pub use bench_report::paths::{
    Kept, Target, resolve_link, same_file, step_summary_fed_by, target, write_export as export,
};

/// [`bench_report::paths::check_not_kept`], refused with exit 2.
pub fn check_not_kept(
    flag: &str,
    path: &Path,
    what: &str,
    kept: &[Kept<'_>],
) -> anyhow::Result<()> {
    bench_report::paths::check_not_kept(flag, path, what, kept).map_err(|e| usage(e.to_string()))
}

/// Every export of `args` with its flag (the SVG directory included).
pub fn exports(args: &AnalysisArgs) -> Vec<(&'static str, &Path)> {
    [
        ("--export-json", &args.export_json),
        ("--export-markdown", &args.export_markdown),
        ("--export-html", &args.export_html),
        ("--export-csv", &args.csv.export_csv),
        ("--export-csv-summary", &args.csv.export_csv_summary),
        ("--export-svg", &args.export_svg),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p)))
    .collect()
}

/// Whether an export goes to standard output (the console report then goes to stderr).
pub fn exports_to_stdout(args: &AnalysisArgs) -> bool {
    exports(args)
        .iter()
        .any(|(_, p)| target(p) == Target::Stdout)
}

/// Refuses, before anything runs or is read, an export that would replace a `kept` file
/// (the raw runs, the resumed file, an input) or another, one to standard output beside
/// `--json`, and `$GITHUB_STEP_SUMMARY` as an export ([`check_step_summary`]).
///
/// # Errors
/// A usage error (exit 2) naming both flags and the path.
pub fn check_export_targets(args: &AnalysisArgs, kept: &[Kept<'_>]) -> anyhow::Result<()> {
    check_targets(&exports(args), args.json, kept)?;
    if !args.no_step_summary {
        check_step_summary(&exports(args), kept)?;
    }
    Ok(())
}

/// [`bench_report::paths::check_targets`], refused with exit 2.
pub fn check_targets(
    exports: &[(&str, &Path)],
    json: bool,
    kept: &[Kept<'_>],
) -> anyhow::Result<()> {
    bench_report::paths::check_targets(exports, json, kept).map_err(|e| usage(e.to_string()))
}

/// [`bench_report::paths::check_step_summary`], refused with exit 2.
pub fn check_step_summary(exports: &[(&str, &Path)], kept: &[Kept<'_>]) -> anyhow::Result<()> {
    bench_report::paths::check_step_summary(exports, kept).map_err(|e| usage(e.to_string()))
}
