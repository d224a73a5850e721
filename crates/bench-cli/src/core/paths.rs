//! Where the files of one command go, in the flags' words: an export written where its
//! path names ([`bench_report::paths::target`]), and no export replacing the raw runs, an
//! input, or another export ([`bench_report::paths::same_file`]).

use std::path::{Path, PathBuf};

use crate::args::AnalysisArgs;
use crate::core::exit::usage;
pub use bench_report::paths::{Target, resolve_link, same_file, target};
use bench_report::write_atomic;
use std::io::Write;

/// Writes one export: to standard output or error for `-`, `/dev/stdout`, `/dev/stderr`
/// (through the stream abba has, so `>> FILE` appends); in place to another descriptor,
/// a device or a pipe (opened for appending, never truncated or replaced); otherwise
/// atomically, through a symbolic link (the file it points to is replaced, the link stays).
pub fn export(path: &Path, bytes: &[u8]) -> Result<(), String> {
    match target(path) {
        Target::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(|e| format!("{}: cannot write to standard output: {e}", path.display()))
        }
        Target::Stderr => {
            let mut err = std::io::stderr().lock();
            err.write_all(bytes)
                .and_then(|()| err.flush())
                .map_err(|e| format!("{}: cannot write to standard error: {e}", path.display()))
        }
        Target::InPlace(dest) => std::fs::OpenOptions::new()
            .append(true)
            .open(&dest)
            .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
            .map_err(|e| format!("{}: {e}", path.display())),
        Target::File(dest) => write_atomic(dest, bytes).map_err(|e| e.to_string()),
    }
}

/// A file the command reads or records (the raw runs, an input) that no export may
/// replace: the flag that names it and its path.
pub struct Kept<'a> {
    /// How the user named it (`--output`, `--resume`, `input`, `--confirm's raw file`,
    /// `--history`).
    pub role: &'a str,
    /// Its path.
    pub path: &'a Path,
}

/// Refuses `flag path` (an export, or the raw runs' file) when it names one of the `kept`
/// files (the raw runs, an input, the history database) under any spelling: device and
/// inode, or the place it will have. `what` is what would be written there.
///
/// # Errors
/// A usage error (exit 2) naming both flags and the paths.
pub fn check_not_kept(
    flag: &str,
    path: &Path,
    what: &str,
    kept: &[Kept<'_>],
) -> anyhow::Result<()> {
    if let Some(k) = kept.iter().find(|k| same_file(path, k.path)) {
        return Err(usage(format!(
            "{flag} {} is the same file as {} {}: {what} would replace it; choose another file",
            path.display(),
            k.role,
            k.path.display()
        )));
    }
    Ok(())
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
/// (the raw runs, the resumed file, an input), two exports to one file, an export to
/// standard output beside `--json` or another one there, and `--export-svg -`; and
/// `$GITHUB_STEP_SUMMARY` as an export ([`check_step_summary`]).
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

/// [`check_export_targets`] of any command's `exports` (each with its flag): none may
/// replace a `kept` file or another export, nor go to standard output beside `json`.
///
/// # Errors
/// A usage error (exit 2) naming both flags and the path.
pub fn check_targets(
    exports: &[(&str, &Path)],
    json: bool,
    kept: &[Kept<'_>],
) -> anyhow::Result<()> {
    for (i, (flag, path)) in exports.iter().enumerate() {
        let shown = path.display();
        if *flag == "--export-svg" && target(path) == Target::Stdout {
            return Err(usage(format!(
                "--export-svg {shown}: the charts are several files and need a directory, not standard output"
            )));
        }
        check_not_kept(flag, path, "the export", kept)?;
        if let Some((other, _)) = exports[..i].iter().find(|(_, p)| same_file(path, p)) {
            let what = if target(path) == Target::Stdout {
                "both would go to standard output".to_owned()
            } else {
                "one would replace the other".to_owned()
            };
            return Err(usage(format!(
                "{other} and {flag} name the same file ({shown}): {what}; give each its own file"
            )));
        }
        if json && target(path) == Target::Stdout {
            return Err(usage(format!(
                "{flag} {shown} writes to standard output, where --json prints the analysis; give the export a file, or leave out --json"
            )));
        }
    }
    Ok(())
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
    exports
        .iter()
        .any(|(_, p)| !matches!(target(p), Target::File(_)) && inode(p) == Some(summary))
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
pub fn check_step_summary(exports: &[(&str, &Path)], kept: &[Kept<'_>]) -> anyhow::Result<()> {
    let Some(path) = step_summary_path() else {
        return Ok(());
    };
    let shown = path.display();
    let refuse = |why: String| Err(usage(format!("$GITHUB_STEP_SUMMARY {shown}: {why}")));
    if let Some(k) = kept.iter().find(|k| same_file(&path, k.path)) {
        return refuse(format!(
            "is the same file as {} {}: the report would be appended into it; point the summary elsewhere, or pass --no-step-summary",
            k.role,
            k.path.display()
        ));
    }
    if let Some((flag, p)) = exports
        .iter()
        .find(|(_, p)| matches!(target(p), Target::File(_)) && same_file(&path, p))
    {
        return refuse(format!(
            "is the same file as {flag} {}: the export would replace what earlier steps wrote there (abba appends its report to the summary itself); give the export another file",
            p.display()
        ));
    }
    match target(&path) {
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
