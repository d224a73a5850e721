//! Where CI shows a result: the GitHub Actions job summary (appended here) and the export
//! files. The documents themselves (the PR comment, BMF, github-action-benchmark) are
//! `bench-report`'s.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::core::exit::usage;
use crate::core::paths::Target;

pub use bench_report::STEP_SUMMARY_MAX;

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
    let text: String = if markdown.chars().count() > STEP_SUMMARY_MAX {
        let mut cut: String = markdown.chars().take(STEP_SUMMARY_MAX - 200).collect();
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

/// The file `$GITHUB_STEP_SUMMARY` names, when it is set (and not empty).
fn step_summary_path() -> Option<PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// The file behind a path written in place (`-` is standard output): device and inode.
fn inode(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let path = if path == Path::new("-") {
        Path::new("/dev/stdout")
    } else {
        path
    };
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Whether one of `exports` streams into the step summary's file itself (the README's
/// `--export-markdown /dev/stdout >> "$GITHUB_STEP_SUMMARY"`): the export then is the
/// summary, and abba does not append its report a second time.
pub fn step_summary_fed_by(exports: &[(&str, &Path)]) -> bool {
    let Some(summary) = step_summary_path().as_deref().and_then(inode) else {
        return false;
    };
    exports.iter().any(|(_, p)| {
        !matches!(crate::core::paths::target(p), Target::File(_)) && inode(p) == Some(summary)
    })
}

/// Checks `$GITHUB_STEP_SUMMARY` (when set and the summary is on) before anything runs,
/// as every export is checked: it must not be a directory nor in a directory that does not
/// exist, an existing file must open for appending, and it must not be one of the `kept`
/// files (the raw runs, an input, the suite file, the history: Markdown appended there
/// would break them) nor the file an export replaces (that would wipe what earlier steps
/// wrote). An export streaming into it (`>> "$GITHUB_STEP_SUMMARY"`) is allowed: it is
/// then the summary ([`step_summary_fed_by`]).
///
/// # Errors
/// A usage error (exit 2) naming `$GITHUB_STEP_SUMMARY`, its path and the other flag.
pub fn check_step_summary(
    exports: &[(&str, &Path)],
    kept: &[crate::core::paths::Kept<'_>],
) -> anyhow::Result<()> {
    let Some(path) = step_summary_path() else {
        return Ok(());
    };
    let shown = path.display();
    let refuse = |why: String| Err(usage(format!("$GITHUB_STEP_SUMMARY {shown}: {why}")));
    if let Some(k) = kept
        .iter()
        .find(|k| crate::core::paths::same_file(&path, k.path))
    {
        return refuse(format!(
            "is the same file as {} {}: the report would be appended into it; point the summary elsewhere, or pass --no-step-summary",
            k.role,
            k.path.display()
        ));
    }
    if let Some((flag, p)) = exports.iter().find(|(_, p)| {
        matches!(crate::core::paths::target(p), Target::File(_))
            && crate::core::paths::same_file(&path, p)
    }) {
        return refuse(format!(
            "is the same file as {flag} {}: the export would replace what earlier steps wrote there (abba appends its report to the summary itself); give the export another file",
            p.display()
        ));
    }
    match crate::core::paths::target(&path) {
        Target::File(file) => {
            if file.is_dir() {
                return refuse("is a directory, not a file the report can be appended to".into());
            }
            let dir = file.parent().filter(|d| !d.as_os_str().is_empty());
            if let Some(dir) = dir.filter(|d| !d.is_dir()) {
                return refuse(format!("the directory {} does not exist", dir.display()));
            }
            if file.exists() {
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(&file)
                    .map_err(|e| usage(format!("$GITHUB_STEP_SUMMARY {shown}: {e}")))?;
            }
            Ok(())
        }
        // Standard output or error, a descriptor, a device or a pipe: written in place.
        Target::Stdout | Target::Stderr | Target::InPlace(_) => Ok(()),
    }
}
