//! abba's own lines on stderr, wrapped to the terminal, and the width reports fit.

use std::io::{IsTerminal, Write};

/// Writes one line to stderr. Every message of abba goes through here: stderr closed, a
/// broken pipe or a full disk loses the message but never panics (`eprintln!` would, with
/// exit 101), so the exit code still tells what happened. Long lines are wrapped at word
/// boundaries (continuation lines indented by two) to `COLUMNS` or stderr's terminal.
pub fn stderr_line(message: std::fmt::Arguments<'_>) {
    let text = bench_report::wrap(&message.to_string(), stderr_width(), "", "  ");
    let mut err = std::io::stderr().lock();
    let _ = err
        .write_all(text.as_bytes())
        .and_then(|()| err.write_all(b"\n"))
        .and_then(|()| err.flush());
}

/// The width a report piped to a file or program fits when `COLUMNS` is not set.
pub const PIPED_WIDTH: usize = 100;

/// The width the analysis report is wrapped to without `--width`: `COLUMNS` when set to a
/// number, else the terminal's width when stdout is one; piped to a file or a program,
/// nothing is wrapped (one line per verdict to grep), as hyperfine does.
pub fn report_width() -> Option<usize> {
    if let Some(n) = columns() {
        return Some(n);
    }
    let stdout = std::io::stdout();
    if !stdout.is_terminal() {
        return None;
    }
    terminal_size::terminal_size_of(&stdout)
        .map(|(w, _)| usize::from(w.0))
        .or(Some(PIPED_WIDTH))
}

/// The width every report line must fit: `COLUMNS` when set to a number, else the
/// terminal's width when stdout is one, else [`PIPED_WIDTH`].
pub fn terminal_width() -> Option<usize> {
    if let Some(n) = columns() {
        return Some(n);
    }
    let stdout = std::io::stdout();
    if !stdout.is_terminal() {
        return Some(PIPED_WIDTH);
    }
    terminal_size::terminal_size_of(&stdout)
        .map(|(w, _)| usize::from(w.0))
        .or(Some(PIPED_WIDTH))
}

/// The width notes, warnings and errors on stderr are wrapped to: `COLUMNS` when set, else
/// the terminal's width when stderr is one; piped to a log, they stay one line each.
fn stderr_width() -> Option<usize> {
    columns().or_else(|| {
        let stderr = std::io::stderr();
        if stderr.is_terminal() {
            terminal_size::terminal_size_of(&stderr).map(|(w, _)| usize::from(w.0))
        } else {
            None
        }
    })
}

/// `COLUMNS`, when set to a positive number.
fn columns() -> Option<usize> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}
