//! The figures of the README and `docs/` that a command prints, kept equal to what it
//! prints (rust-analyzer's sourcegen tests: the generator runs in the test suite and fails
//! when the committed text differs).
//!
//! A figure is marked in the Markdown file with the command that prints it:
//!
//! ````text
//! <!-- abba-figure: cargo test -p bench-stats --test integration decision_calibration::the_gate -- --nocapture -->
//! ```
//! profile      PCT  blocks |       0   PCT/2     PCT   2 PCT
//! ...
//! ```
//! <!-- /abba-figure -->
//! ````
//!
//! The body is the text between the markers (inside the code fence when there is one).
//! Two kinds of figure:
//!
//! - **checked by the tests**: the test that prints the figure builds it as a [`Figure`]
//!   and calls [`Figure::check`], which fails unless the marked body equals what the test
//!   printed. `ABBA_UPDATE_FIGURES=1` rewrites the body instead (review the diff). These
//!   are the seeded simulations and fixture analyses that finish in seconds.
//! - **slow** (`<!-- abba-figure slow: COMMAND -->`): tables that take minutes (release
//!   builds, thousands of sessions); `cargo xtask check-figures` runs each command and
//!   fails unless the body's lines appear, in order and together, in what it printed.
//!
//! `cargo test -p xtask` checks that every marker is closed and that every figure not
//! marked slow names a command some test checks ([`Figure::new`] with that command).

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The opening marker's prefix; the command follows `: ` (or ` slow: `).
pub const OPEN: &str = "<!-- abba-figure";
/// The closing marker.
pub const CLOSE: &str = "<!-- /abba-figure -->";
/// The environment variable that makes [`Figure::check`] rewrite a stale body.
pub const UPDATE_ENV: &str = "ABBA_UPDATE_FIGURES";

/// One marked figure of a Markdown file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The file, as given to [`parse`].
    pub file: PathBuf,
    /// The 1-based line of the opening marker.
    pub line: usize,
    /// The command that prints the figure.
    pub command: String,
    /// Checked by `cargo xtask check-figures` rather than by the tests.
    pub slow: bool,
    /// The figure's text: the lines between the markers, inside the code fence when the
    /// figure is one code block; without leading and trailing blank lines.
    pub body: String,
    /// The 0-based range of lines the body occupies in the file.
    body_lines: std::ops::Range<usize>,
}

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Markdown files that may hold figures: `README.md` and `docs/*.md`, sorted.
///
/// # Errors
/// When `docs/` cannot be read.
pub fn doc_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    Ok(files)
}

/// The figures marked in `text` (the contents of `file`). Time: O(lines).
///
/// # Errors
/// `FILE:LINE: ...` for a marker without a command, an opening marker inside another
/// figure, a closing marker without an opening one, or a figure left open at the end.
pub fn parse(file: &Path, text: &str) -> Result<Vec<Marked>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut open: Option<(usize, String, bool)> = None;
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim();
        let at = || format!("{}:{}", file.display(), i + 1);
        if line == CLOSE {
            let Some((start, command, slow)) = open.take() else {
                return Err(format!("{}: `{CLOSE}` without an opening marker", at()));
            };
            let range = body_range(&lines, start + 1, i);
            out.push(Marked {
                file: file.to_path_buf(),
                line: start + 1,
                command,
                slow,
                body: lines[range.clone()].join("\n"),
                body_lines: range,
            });
        } else if let Some(rest) = line.strip_prefix(OPEN) {
            if let Some((start, ..)) = &open {
                return Err(format!(
                    "{}: a figure opened inside the figure of line {}",
                    at(),
                    start + 1
                ));
            }
            let (slow, rest) = match rest.strip_prefix(" slow:") {
                Some(r) => (true, r),
                None => (false, rest.strip_prefix(':').unwrap_or(rest)),
            };
            let command = rest.trim().strip_suffix("-->").map(str::trim).unwrap_or("");
            if command.is_empty() {
                return Err(format!(
                    "{}: write the marker as `{OPEN}: COMMAND -->` (or `{OPEN} slow: COMMAND -->`)",
                    at()
                ));
            }
            open = Some((i, command.to_owned(), slow));
        }
    }
    match open {
        Some((start, ..)) => Err(format!(
            "{}:{}: the figure is not closed with `{CLOSE}`",
            file.display(),
            start + 1
        )),
        None => Ok(out),
    }
}

/// The lines of the body between the marker lines `from..to`: inside a code fence that
/// spans the whole figure, without blank lines at either end.
fn body_range(lines: &[&str], mut from: usize, mut to: usize) -> std::ops::Range<usize> {
    let blank = |i: usize| lines[i].trim().is_empty();
    while from < to && blank(from) {
        from += 1;
    }
    while to > from && blank(to - 1) {
        to -= 1;
    }
    if to - from >= 2
        && lines[from].trim_start().starts_with("```")
        && lines[to - 1].trim() == "```"
    {
        from += 1;
        to -= 1;
    }
    from..to
}

/// `text` with each line's trailing white space and the blank lines at either end
/// removed: the form bodies and printed figures are compared in.
pub fn normalize(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let first = lines.iter().position(|l| !l.is_empty());
    let last = lines.iter().rposition(|l| !l.is_empty());
    match (first, last) {
        (Some(a), Some(b)) => lines[a..=b].join("\n"),
        _ => String::new(),
    }
}

/// Whether the lines of `body` appear in `output` in order and consecutively, blank lines
/// aside (Markdown's spacing) and each line's trailing white space removed. An empty body
/// is never contained.
pub fn contained_in(body: &str, output: &str) -> bool {
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (want, have) = (lines(body), lines(output));
    !want.is_empty() && have.windows(want.len()).any(|w| w == want.as_slice())
}

/// Serializes rewrites of one file by tests of one binary running in parallel.
static REWRITE: Mutex<()> = Mutex::new(());

/// A figure a test prints: built line by line ([`Figure::line`] prints each line as it
/// goes, so `--nocapture` shows it), then compared with the body marked with the same
/// command in `doc` ([`Figure::check`]).
#[derive(Debug)]
pub struct Figure {
    doc: &'static str,
    command: &'static str,
    text: String,
}

impl Figure {
    /// A figure of `doc` (a path from the workspace root, e.g. `docs/calibration.md`)
    /// marked with `command`, the command that prints it.
    pub fn new(doc: &'static str, command: &'static str) -> Figure {
        Figure {
            doc,
            command,
            text: String::new(),
        }
    }

    /// Prints `line` and adds it to the figure.
    pub fn line(&mut self, line: impl Display) {
        let line = line.to_string();
        println!("{line}");
        self.text.push_str(&line);
        self.text.push('\n');
    }

    /// Adds `line` to the figure without printing it (for a line already printed).
    pub fn record(&mut self, line: impl Display) {
        self.text.push_str(&line.to_string());
        self.text.push('\n');
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Compares the figure with the body marked with its command in its document.
    ///
    /// # Panics
    /// When the document has no figure, or more than one, marked with this command, or
    /// when the body differs from the printed text (unless `ABBA_UPDATE_FIGURES` is set,
    /// in which case the body is rewritten).
    #[track_caller]
    pub fn check(self) {
        if let Err(e) = self.compare(std::env::var_os(UPDATE_ENV).is_some()) {
            panic!("{e}");
        }
    }

    fn compare(&self, update: bool) -> Result<(), String> {
        let _guard = REWRITE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let path = workspace_root().join(self.doc);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let marked: Vec<Marked> = parse(Path::new(self.doc), &text)?
            .into_iter()
            .filter(|m| m.command == self.command)
            .collect();
        let [m] = marked.as_slice() else {
            return Err(format!(
                "{} has {} figures marked `{OPEN}: {} -->`; exactly one is needed",
                self.doc,
                marked.len(),
                self.command
            ));
        };
        let printed = normalize(&self.text);
        if normalize(&m.body) == printed {
            return Ok(());
        }
        if !update {
            return Err(format!(
                "the figure at {}:{} is stale: `{}` now prints\n\n{printed}\n\nwhere the file has\n\n{}\n\n\
                 Rewrite it with {UPDATE_ENV}=1 and the same test, then review the diff and the prose around it.",
                self.doc, m.line, self.command, m.body
            ));
        }
        let mut lines: Vec<&str> = text.lines().collect();
        lines.splice(m.body_lines.clone(), printed.lines());
        let mut new = lines.join("\n");
        new.push('\n');
        std::fs::write(&path, new).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "intro\n<!-- abba-figure: cargo test x -->\n```\na  1\nb  2\n```\n<!-- /abba-figure -->\n\n<!-- abba-figure slow: cargo xtask y -->\n| t |\n| 3 |\n<!-- /abba-figure -->\n";

    #[test]
    fn parses_fenced_and_bare_figures() {
        let m = parse(Path::new("d.md"), DOC).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(
            (m[0].line, m[0].command.as_str(), m[0].slow),
            (2, "cargo test x", false)
        );
        assert_eq!(m[0].body, "a  1\nb  2");
        assert_eq!((m[1].command.as_str(), m[1].slow), ("cargo xtask y", true));
        assert_eq!(m[1].body, "| t |\n| 3 |");
    }

    #[test]
    fn malformed_markers_are_named_by_file_and_line() {
        let open = parse(Path::new("d.md"), "x\n<!-- abba-figure: c -->\nbody\n").unwrap_err();
        assert!(open.starts_with("d.md:2:"), "{open}");
        let nested = parse(
            Path::new("d.md"),
            "<!-- abba-figure: c -->\n<!-- abba-figure: d -->\n<!-- /abba-figure -->\n",
        )
        .unwrap_err();
        assert!(nested.starts_with("d.md:2:"), "{nested}");
        let close = parse(Path::new("d.md"), "<!-- /abba-figure -->\n").unwrap_err();
        assert!(close.starts_with("d.md:1:"), "{close}");
        let empty = parse(Path::new("d.md"), "<!-- abba-figure: -->\n").unwrap_err();
        assert!(empty.contains("COMMAND"), "{empty}");
    }

    #[test]
    fn containment_is_of_consecutive_lines() {
        let out = "noise\na  1   \n\nb  2\nmore\n";
        assert!(contained_in("a  1\nb  2", out));
        assert!(contained_in("a  1\n\n\nb  2\n", out));
        assert!(!contained_in("a  1\nmore", out));
        assert!(!contained_in("", out));
        assert!(!contained_in("b  2\na  1", out));
    }

    #[test]
    fn a_stale_body_is_reported_and_rewritten_in_place() {
        let dir = std::env::temp_dir().join(format!("bench-docs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.md");
        std::fs::write(&path, DOC).unwrap();
        // The figure's doc is a path from the workspace root; reach the temporary file
        // through an absolute path (`join` keeps it).
        let doc: &'static str = Box::leak(path.display().to_string().into_boxed_str());
        let mut f = Figure::new(doc, "cargo test x");
        f.line("a  1");
        f.line("b  3");
        let err = f.compare(false).unwrap_err();
        assert!(err.contains(":2 is stale") && err.contains("b  3"), "{err}");
        f.compare(true).unwrap();
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(after, DOC.replace("b  2", "b  3"));
        f.compare(false).unwrap();
        let mut missing = Figure::new(doc, "cargo test z");
        missing.line("x");
        assert!(missing.compare(false).unwrap_err().contains("0 figures"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
