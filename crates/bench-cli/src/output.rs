//! What happens after an analysis: the report or JSON on stdout, the exports, the gate.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use bench_report::{
    Charset, ColorMode, RenderOptions, TimeUnit, render_console, render_json, render_markdown,
    write_atomic,
};
use bench_sched::Input;
use bench_stats::{Analysis, Quantity};

use crate::cli::{AnalysisArgs, StyleArg, TimeUnitArg};
use crate::exit::usage;
use crate::hooks::Export;
use crate::paths::Target;

/// Prints the report (or the JSON), writes the exports, and returns the exit code the
/// gate decides (0, or 1 when `--fail-if-slower` tripped).
///
/// A failed export does not hold back the report: the exports are tried first, the report
/// is printed whatever became of them, and then a failed export is an error (exit 2)
/// naming the file, so nobody believes it was written.
pub fn emit(
    mut analysis: Analysis,
    args: &AnalysisArgs,
    extra: Vec<Export>,
    input: &Input,
) -> anyhow::Result<u8> {
    crate::words::word_remedies(&mut analysis);
    let analysis = &analysis;
    let mut failed = Vec::new();
    for e in extra {
        let written = e.content.and_then(|text| export(&e.path, text.as_bytes()));
        failed.extend(written.err().map(|m| format!("{}: {m}", e.flag)));
    }
    failed.extend(export_pictures(analysis, args, input));
    if let Some(path) = &args.export_json {
        let written = render_json(analysis)
            .map_err(|e| format!("cannot export the analysis as JSON: {e}"))
            .and_then(|json| export(path, json.as_bytes()));
        failed.extend(written.err().map(|e| format!("--export-json: {e}")));
    }
    if let Some(path) = &args.export_markdown {
        let written = export(path, render_markdown(analysis).as_bytes());
        failed.extend(written.err().map(|e| format!("--export-markdown: {e}")));
    }
    if !args.no_step_summary {
        let markdown = render_markdown(analysis);
        if let Err(e) = crate::ci::append_step_summary(&markdown) {
            failed.push(format!("$GITHUB_STEP_SUMMARY: {e}"));
        }
    }
    if args.json {
        let json = render_json(analysis).context("cannot render the analysis as JSON")?;
        write_stdout(&json)?;
    } else if crate::paths::exports_to_stdout(args) {
        // Standard output carries the export alone (`--export-markdown - >> summary.md`);
        // the report goes to stderr.
        let text = console_text(analysis, args, input);
        stderr_line(format_args!("{}", text.trim_end_matches('\n')));
    } else {
        write_stdout(&console_text(analysis, args, input))?;
    }
    let tripped = args
        .fail_if_slower
        .map(|pct| gate_failures(analysis, pct))
        .unwrap_or_default();
    let undecided = args
        .fail_if_slower
        .map(|pct| gate_undecided(analysis, pct))
        .unwrap_or_default();
    for message in &tripped {
        stderr_line(format_args!("abba: gate: {message}"));
    }
    for message in &undecided {
        stderr_line(format_args!("abba: gate: {message}"));
    }
    let tripped: Vec<String> = tripped.into_iter().chain(undecided).collect();
    if !failed.is_empty() {
        return Err(usage(failed.join("\n")));
    }
    Ok(if tripped.is_empty() { 0 } else { 1 })
}

/// The console report; for one command measured alone (one benchmark, nothing compared),
/// hyperfine's summary with the median's distribution-free interval instead.
fn console_text(analysis: &Analysis, args: &AnalysisArgs, input: &Input) -> String {
    let options = render_options(args);
    let benchmarks: Vec<_> = analysis.groups.iter().flat_map(|g| &g.benchmarks).collect();
    let compared = analysis.groups.iter().any(|g| !g.comparisons.is_empty());
    if benchmarks.len() != 1 || compared {
        return render_console(analysis, &options);
    }
    let medians: Vec<Option<[f64; 2]>> = benchmarks
        .iter()
        .map(|b| {
            let series = input
                .loaded
                .dataset
                .series
                .iter()
                .find(|s| s.name == b.name)?;
            let values: Vec<f64> = series.observations.iter().map(|o| o.value).collect();
            bench_stats::descriptive::median_interval(&values, analysis.confidence)
        })
        .collect();
    let mut text = bench_report::render_single(analysis, &medians, &options);
    text.push_str(&format!(
        "\n{}\n",
        bench_report::wrap(
            "One command, measured alone: no verdict. Give two or more commands to compare them.",
            options.width,
            "",
            "  "
        )
    ));
    text
}

/// `--export-html` and `--export-svg`; the failures, worded with their flag.
fn export_pictures(analysis: &Analysis, args: &AnalysisArgs, input: &Input) -> Vec<String> {
    if args.export_html.is_none() && args.export_svg.is_none() {
        return Vec::new();
    }
    let runs = crate::pictures::run_trace(input);
    let sequences = bench_report::pictures::confidence_sequences(analysis);
    let mut failed = Vec::new();
    if let Some(path) = &args.export_html {
        let html = crate::pictures::html(analysis, Some(&runs), &sequences);
        let written = export(path, html.as_bytes());
        failed.extend(written.err().map(|e| format!("--export-html: {e}")));
    }
    if let Some(dir) = &args.export_svg {
        let written = crate::pictures::write_svgs(dir, analysis, Some(&runs), &sequences);
        failed.extend(written.err().map(|e| format!("--export-svg: {e}")));
    }
    failed
}

/// Writes one export: to standard output or error for `-`, `/dev/stdout`, `/dev/stderr`
/// (through the stream abba has, so `>> FILE` appends); in place to another descriptor,
/// a device or a pipe (opened for appending, never truncated or replaced); otherwise
/// atomically, through a symbolic link (the file it points to is replaced, the link stays).
pub fn export(path: &Path, bytes: &[u8]) -> Result<(), String> {
    match crate::paths::target(path) {
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

/// The file a symbolic link points to (followed to the end, a dangling link included);
/// any other path as it is. Exports write through links rather than replace them.
pub fn resolve_link(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    // A bounded walk: a loop of links ends in an error from the write, not a hang here.
    for _ in 0..40 {
        let is_link = std::fs::symlink_metadata(&current).is_ok_and(|m| m.is_symlink());
        if !is_link {
            break;
        }
        let Ok(target) = std::fs::read_link(&current) else {
            break;
        };
        current = match current.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    current
}

/// Writes to stdout; a reader that went away (`| head`) ends the output quietly, any other
/// failure (a full disk) is an error naming stdout.
pub fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(usage(format!("cannot write to stdout: {e}"))),
    }
}

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

/// Refuses an export path that cannot be written, before any run is spent on it: its
/// directory must exist and take a new file (one is created and removed there), and the
/// path must not be a directory. An existing device or pipe is left to the write.
pub fn check_export_paths(args: &AnalysisArgs) -> anyhow::Result<()> {
    if let Some(given) = &args.export_svg {
        check_svg_dir(given)?;
    }
    for (flag, path) in [
        ("--export-json", &args.export_json),
        ("--export-markdown", &args.export_markdown),
        ("--export-html", &args.export_html),
        ("--export-csv", &args.csv.export_csv),
        ("--export-csv-summary", &args.csv.export_csv_summary),
    ] {
        let Some(given) = path else { continue };
        let Target::File(path) = crate::paths::target(given) else {
            // Standard output, a descriptor, a device or a pipe: written in place.
            continue;
        };
        if path.is_dir() {
            return Err(usage(format!("{flag} {}: is a directory", given.display())));
        }
        if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
            continue;
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(usage(format!(
                "{flag} {}: the directory {} does not exist",
                given.display(),
                dir.display()
            )));
        }
        let probe = dir.join(format!(".abba-write-check.{}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
        {
            Ok(_) => {
                let _ = std::fs::remove_file(&probe);
            }
            // Another abba's probe: the directory takes files.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(usage(format!(
                    "{flag} {}: cannot create a file in {}: {e}",
                    given.display(),
                    dir.display()
                )));
            }
        }
    }
    Ok(())
}

/// `--export-svg DIR`: a directory, or a path whose parent directory exists (DIR is
/// created then).
fn check_svg_dir(given: &Path) -> anyhow::Result<()> {
    let dir = resolve_link(given);
    if dir.is_dir() {
        return Ok(());
    }
    if dir.exists() {
        return Err(usage(format!(
            "--export-svg {}: exists and is not a directory",
            given.display()
        )));
    }
    match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() && !p.is_dir() => Err(usage(format!(
            "--export-svg {}: the directory {} does not exist",
            given.display(),
            p.display()
        ))),
        _ => Ok(()),
    }
}

/// Colour on stdout only for a terminal, and never with `NO_COLOR` set.
fn use_color() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
}

/// The console report's options from `--style`, `--time-unit`, `--verbose` and the
/// terminal's width.
pub fn render_options(args: &AnalysisArgs) -> RenderOptions {
    let mut options = RenderOptions::default();
    let (charset, color) = match args.style {
        StyleArg::Auto => (Charset::Unicode, use_color()),
        StyleArg::Basic => (Charset::Ascii, false),
        StyleArg::Full | StyleArg::Color => (Charset::Unicode, true),
        StyleArg::Nocolor => (Charset::Unicode, false),
        StyleArg::None => (Charset::Plain, false),
    };
    options.charset = charset;
    options.color = ColorMode::from(color);
    options.verbose = args.verbose;
    options.time_unit = args.time_unit.map(|t| match t {
        TimeUnitArg::S => TimeUnit::Second,
        TimeUnitArg::Ms => TimeUnit::Millisecond,
        TimeUnitArg::Us => TimeUnit::Microsecond,
        TimeUnitArg::Ns => TimeUnit::Nanosecond,
    });
    options.width = args.width.filter(|&n| n > 0).or_else(report_width);
    options.full_report_hint = Some("--verbose");
    options
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

/// The comparisons `--fail-if-slower` cannot decide (M2 of issue 26): no test ran on them
/// (too few blocks or runs for any test to reach alpha), and no omnibus test of their group
/// said the variants do not differ. Such a gate fails (exit 1) rather than pass silently.
pub fn gate_undecided(analysis: &Analysis, pct: f64) -> Vec<String> {
    let mut out = Vec::new();
    for group in &analysis.groups {
        if group.omnibus.is_some_and(|o| !o.significant) {
            continue;
        }
        for c in &group.comparisons {
            if c.verdict != bench_stats::Verdict::NotTested {
                continue;
            }
            out.push(format!(
                "--fail-if-slower {}% cannot decide {} vs {}: no test could run (too few blocks or runs for any test to reach alpha), so a slowdown of that size is not ruled out; failing (exit 1): measure more blocks",
                pct * 100.0,
                c.candidate,
                group.baseline
            ));
        }
    }
    out
}

/// The `--fail-if-slower PCT` rule ([`bench_stats::analysis::regressions`]): a candidate
/// trips it when its verdict is significant, it is worse than the baseline, and its ratio
/// interval reaches a slowdown of PCT (times: upper end >= 1 + PCT; throughput: lower end
/// <= 1 - PCT).
pub fn gate_failures(analysis: &Analysis, pct: f64) -> Vec<String> {
    // Memory or a named quantity is worse, not slower.
    let worse = match &analysis.quantity {
        None | Some(Quantity::Time | Quantity::Throughput) => "slower",
        Some(_) => "worse",
    };
    bench_stats::analysis::regressions(analysis, pct)
        .into_iter()
        .map(|r| {
            // The typical run's gate names the part of the distribution that tripped it.
            let part = r
                .part
                .as_ref()
                .map_or_else(String::new, |p| format!(" in its {p}"));
            format!(
                "{} is significantly {worse} than {}{part} and may be {:.2}% {worse} or more (ratio {:.4}, interval [{:.4}, {:.4}])",
                r.candidate,
                r.baseline,
                pct * 100.0,
                r.ratio,
                r.ratio_ci[0],
                r.ratio_ci[1]
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};

    fn analysis(base: f64, cand: f64, higher: bool) -> Analysis {
        let series = |name: &str, v: f64| {
            Series::new(
                name,
                (0..12).map(|b| Observation::in_block(v + f64::from(b % 4) * 0.1, b)),
            )
        };
        let data = Dataset::new("ns", vec![series("a", base), series("b", cand)])
            .with_higher_is_better(higher)
            .with_design(Design::Abba);
        analyze(&data, &AnalysisConfig::default()).unwrap()
    }

    #[test]
    fn gate_trips_only_on_a_significant_regression_past_the_threshold() {
        assert_eq!(gate_failures(&analysis(100.0, 105.0, false), 0.02).len(), 1);
        assert!(gate_failures(&analysis(100.0, 101.0, false), 0.02).is_empty());
        assert!(gate_failures(&analysis(100.0, 95.0, false), 0.02).is_empty());
        // Throughput: lower is the regression.
        assert_eq!(gate_failures(&analysis(100.0, 95.0, true), 0.02).len(), 1);
        assert!(gate_failures(&analysis(100.0, 105.0, true), 0.02).is_empty());
    }
}
