//! The terminal report: tabled tables, optional colour.

use std::fmt::Write as _;

use bench_stats::Analysis;
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Color, Style};

use crate::options::{Charset, ColorMode, RenderOptions, Symbols};
use crate::view::{self, BlockTable, Grid, Tone};

/// Renders the analysis as console text: a header, one table per group, omnibus line,
/// one verdict per candidate, the paired and reference details, controls and warnings.
///
/// Colour (green for a better candidate, red for a worse one) is added only with
/// [`ColorMode::Always`]. Time: O(cells of every table).
///
/// # Examples
///
/// See the crate overview for a complete [`Analysis`] rendered this way.
pub fn render_console(analysis: &Analysis, options: &RenderOptions) -> String {
    let sym = match options.charset {
        Charset::Ascii => Symbols::ASCII,
        Charset::Unicode => Symbols::UNICODE,
    };
    let color = options.color == ColorMode::Always;
    let report = view::build(analysis, &sym);
    let mut out = String::new();
    for line in &report.header {
        out.push_str(line);
        out.push('\n');
    }
    for g in &report.groups {
        let _ = writeln!(out, "\n{}", g.title);
        out.push_str(&table(&g.table, options.charset, color));
        out.push('\n');
        if let Some(o) = &g.omnibus {
            out.push_str(o);
            out.push('\n');
        }
        if !g.verdicts.is_empty() {
            out.push('\n');
        }
        for v in &g.verdicts {
            let tag = paint(&format!("{:<12}", v.tag), v.tone, color);
            let _ = writeln!(out, "{tag} {}", v.summary);
            let _ = writeln!(out, "{:12} {}", "", v.detail);
        }
        for d in &g.details {
            let _ = writeln!(out, "\n{}:", d.title);
            match &d.blocks {
                BlockTable::Shown(grid) => {
                    out.push_str(&table(grid, options.charset, false));
                    out.push('\n');
                }
                BlockTable::Omitted(n) => {
                    let _ = writeln!(out, "  ({n} blocks, table omitted)");
                }
                BlockTable::Absent => {}
            }
            for line in &d.lines {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    if !report.controls.is_empty() {
        out.push_str("\nControls:\n");
        for c in &report.controls {
            let _ = writeln!(out, "  {c}");
        }
    }
    if !report.warnings.is_empty() {
        out.push_str("\nWarnings:\n");
        for w in &report.warnings {
            let _ = writeln!(out, "  {w}");
        }
    }
    if let Some(c) = &analysis.confirmation {
        let _ = writeln!(
            out,
            "\n=== Confirmation run: an independent experiment with a fresh seed ({}) ===\n",
            c.seed
        );
        out.push_str(&render_console(c, options));
    }
    out
}

fn paint(text: &str, tone: Tone, color: bool) -> String {
    match (tone, color) {
        (Tone::Better, true) => format!("\u{1b}[32m{text}\u{1b}[39m"),
        (Tone::Worse, true) => format!("\u{1b}[31m{text}\u{1b}[39m"),
        _ => text.to_owned(),
    }
}

fn table(grid: &Grid, charset: Charset, color: bool) -> String {
    let mut builder = Builder::default();
    builder.push_record(grid.header.iter().cloned());
    for row in &grid.rows {
        builder.push_record(row.iter().map(|c| c.text.clone()));
    }
    let mut t = builder.build();
    match charset {
        Charset::Unicode => t.with(Style::rounded()),
        Charset::Ascii => t.with(Style::ascii()),
    };
    for (i, right) in grid.right_aligned.iter().enumerate() {
        if *right {
            t.modify(Columns::one(i), Alignment::right());
        }
    }
    if color {
        for (r, row) in grid.rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                match cell.tone {
                    Tone::Better => {
                        t.modify((r + 1, c), Color::FG_GREEN);
                    }
                    Tone::Worse => {
                        t.modify((r + 1, c), Color::FG_RED);
                    }
                    Tone::Plain => {}
                }
            }
        }
    }
    t.to_string()
}
