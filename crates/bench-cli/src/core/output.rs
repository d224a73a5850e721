//! What happens after an analysis: the report or JSON on stdout, the exports, the gate.

use std::io::{IsTerminal, Write};

use anyhow::Context;
use bench_report::{
    Charset, ColorMode, RenderOptions, TimeUnit, render_gate, render_json, render_markdown,
};
use bench_sched::Input;
use bench_stats::Analysis;
use bench_stats::analysis::Gate;

use crate::args::{AnalysisArgs, StyleArg, TimeUnitArg};
use crate::core::exit::usage;
use crate::core::exports::Export;
pub use crate::core::paths::export;
pub use crate::core::stdio::{report_width, stderr_line};

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
    crate::core::words::word_remedies(&mut analysis);
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
    if !args.no_step_summary
        && !crate::core::paths::step_summary_fed_by(&crate::core::paths::exports(args))
    {
        let markdown = render_markdown(analysis);
        if let Err(e) = crate::core::ci::append_step_summary(&markdown) {
            failed.push(format!("$GITHUB_STEP_SUMMARY: {e}"));
        }
    }
    if args.json {
        let json = render_json(analysis).context("cannot render the analysis as JSON")?;
        write_stdout(&json)?;
    } else if crate::core::paths::exports_to_stdout(args) {
        // Standard output carries the export alone (`--export-markdown - >> summary.md`);
        // the report goes to stderr.
        let text = console_text(analysis, args, input);
        stderr_line(format_args!("{}", text.trim_end_matches('\n')));
    } else {
        write_stdout(&console_text(analysis, args, input))?;
    }
    let gate = args
        .fail_if_slower
        .map(|pct| Gate::new(pct).check(analysis));
    for line in gate.iter().flat_map(render_gate) {
        stderr_line(format_args!("abba: gate: {line}"));
    }
    if !failed.is_empty() {
        return Err(usage(failed.join("\n")));
    }
    Ok(u8::from(gate.is_some_and(|g| g.tripped())))
}

/// The console report ([`bench_report::render_measured`]: hyperfine's summary for one
/// command measured alone).
fn console_text(analysis: &Analysis, args: &AnalysisArgs, input: &Input) -> String {
    bench_report::render_measured(analysis, &input.loaded.dataset, &render_options(args))
}

/// `--export-html` and `--export-svg`; the failures, worded with their flag.
fn export_pictures(analysis: &Analysis, args: &AnalysisArgs, input: &Input) -> Vec<String> {
    if args.export_html.is_none() && args.export_svg.is_none() {
        return Vec::new();
    }
    let runs = crate::core::pictures::run_trace(input);
    let sequences = bench_report::pictures::confidence_sequences(analysis);
    let mut failed = Vec::new();
    if let Some(path) = &args.export_html {
        let html = crate::core::pictures::html(analysis, Some(&runs), &sequences);
        let written = export(path, html.as_bytes());
        failed.extend(written.err().map(|e| format!("--export-html: {e}")));
    }
    if let Some(dir) = &args.export_svg {
        let written = crate::core::pictures::write_svgs(dir, analysis, Some(&runs), &sequences);
        failed.extend(written.err().map(|e| format!("--export-svg: {e}")));
    }
    failed
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

/// Refuses an export path that cannot be written, before any run is spent on it
/// ([`bench_report::paths::check_writable`], [`bench_report::paths::check_directory`]).
pub fn check_export_paths(args: &AnalysisArgs) -> anyhow::Result<()> {
    for (flag, path) in crate::core::paths::exports(args) {
        if flag == "--export-svg" {
            bench_report::paths::check_directory(flag, path)
        } else {
            bench_report::paths::check_writable(flag, path)
        }
        .map_err(|e| usage(e.to_string()))?;
    }
    Ok(())
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
