//! The terminal report: tabled tables, optional colour.

use std::fmt::Write as _;

use bench_stats::Analysis;
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Color, Style};

use crate::levels_view::LevelsView;
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
    let mut sym = match options.charset {
        Charset::Unicode => Symbols::UNICODE,
        _ => Symbols::ASCII,
    };
    sym.time_unit = options.time_unit;
    let color = options.color == ColorMode::Always;
    let verbose = options.verbose;
    let draw = Draw {
        charset: options.charset,
        width: options.width,
        ellipsis: sym.ellipsis,
    };
    let report = view::build(analysis, &sym);
    let mut out = String::new();
    for line in &report.header {
        out.push_str(line);
        out.push('\n');
    }
    for g in &report.groups {
        group(&mut out, g, &draw, verbose, color);
    }
    if let Some(levels) = &report.levels {
        levels_section(&mut out, levels, &draw, color);
    }
    if let Some(m) = &analysis.metrics {
        let lines = crate::metrics_view::lines(m);
        if !lines.is_empty() {
            let _ = writeln!(out, "\n{}", crate::metrics_view::title(m));
            for l in lines {
                let _ = writeln!(out, "  {l}");
            }
        }
    }
    if verbose && !report.controls.is_empty() {
        out.push_str("\nControls:\n");
        for c in &report.controls {
            let _ = writeln!(out, "  {c}");
        }
    }
    if let (false, Some(brief)) = (verbose, &report.controls_brief) {
        let hint = options
            .full_report_hint
            .map(|h| format!(" {} {h} for details", sym.dash))
            .unwrap_or_default();
        let _ = writeln!(out, "\ncontrols: {brief}{hint}");
        for c in &report.controls_fixable {
            let _ = writeln!(out, "  {c}");
        }
    }
    let warnings: Vec<&str> = report
        .warnings
        .iter()
        .filter(|w| verbose || !w.informational)
        .map(|w| w.text.as_str())
        .collect();
    if !warnings.is_empty() {
        out.push_str("\nWarnings:\n");
        for w in warnings {
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

/// How tables are drawn: the character set and the width they must fit.
struct Draw {
    charset: Charset,
    width: Option<usize>,
    ellipsis: &'static str,
}

/// `grid` drawn to fit `draw.width`: as it is when it fits; else long names shortened in
/// the middle (full names in a legend below), then the columns of lowest priority moved
/// into up to `parts - 1` further tables (each repeating the key columns) or, past that,
/// left out and named. Every table ends with a newline. Time: O(columns^2 x cells).
fn fitted(grid: &Grid, draw: &Draw, parts: usize, color: bool) -> String {
    let all: Vec<usize> = (0..grid.header.len()).collect();
    let Some(width) = draw.width else {
        return format!("{}\n", table(grid, &all, draw.charset, color));
    };
    let fits =
        |g: &Grid, cols: &[usize]| table_width(&table(g, cols, draw.charset, false)) <= width;
    if fits(grid, &all) {
        return format!("{}\n", table(grid, &all, draw.charset, color));
    }
    // Names up to a third of the width; shorter still when the essential columns need it.
    let essential: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&c| grid.key.contains(&c) || grid.priority[c] == 0)
        .collect();
    let mut max = (width / 3).max(12);
    let (grid, legend) = loop {
        let (shortened, legend) = shorten_names(grid, max, draw.ellipsis);
        let over =
            table_width(&table(&shortened, &essential, draw.charset, false)).saturating_sub(width);
        if over == 0 || max <= 8 {
            break (shortened, legend);
        }
        max = max.saturating_sub(over).max(8);
    };
    let grid = &grid;
    let mut order: Vec<usize> = all
        .iter()
        .copied()
        .filter(|c| !grid.key.contains(c))
        .collect();
    order.sort_by_key(|&c| grid.priority[c]);
    let mut left = order;
    let mut tables = Vec::new();
    while !left.is_empty() && tables.len() < parts {
        let mut cols = grid.key.clone();
        if tables.is_empty() {
            // The first table always holds the essential columns.
            cols.extend(left.iter().copied().filter(|&c| grid.priority[c] == 0));
            left.retain(|&c| grid.priority[c] != 0);
        }
        let before = cols.len();
        let mut rest = Vec::new();
        for &c in &left {
            let mut trial = cols.clone();
            trial.push(c);
            trial.sort_unstable();
            if fits(grid, &trial) {
                cols = trial;
            } else {
                rest.push(c);
            }
        }
        cols.sort_unstable();
        if cols.len() == before && !tables.is_empty() {
            break;
        }
        tables.push(table(grid, &cols, draw.charset, color));
        left = rest;
    }
    let mut out = tables.join("\n");
    out.push('\n');
    for (short, full) in legend {
        let _ = writeln!(out, "  {short} = {full}");
    }
    if !left.is_empty() {
        left.sort_unstable();
        let names: Vec<&str> = left.iter().map(|&c| grid.header[c].as_str()).collect();
        let _ = writeln!(
            out,
            "  (not shown at {width} columns: {})",
            names.join(", ")
        );
    }
    out
}

/// The widest line of a drawn table, in characters.
fn table_width(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// `text` cut to `max` characters by replacing its middle with `ellipsis`.
fn middle(text: &str, max: usize, ellipsis: &str) -> String {
    let n = text.chars().count();
    let e = ellipsis.chars().count();
    if n <= max || max <= e + 1 {
        return text.to_owned();
    }
    let keep = max - e;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let chars: Vec<char> = text.chars().collect();
    let mut out: String = chars[..head].iter().collect();
    out.push_str(ellipsis);
    out.extend(&chars[n - tail..]);
    out
}

/// The grid with its names cut in the middle to `max` characters (longer when two names
/// would read alike), and the legend of the names cut.
fn shorten_names(grid: &Grid, max: usize, ellipsis: &str) -> (Grid, Vec<(String, String)>) {
    let Some(col) = grid.names else {
        return (grid.clone(), Vec::new());
    };
    let names: Vec<&str> = grid.rows.iter().map(|r| r[col].text.as_str()).collect();
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut max = max;
    let shortened = loop {
        let short: Vec<String> = names.iter().map(|n| middle(n, max, ellipsis)).collect();
        let mut unique = short.clone();
        unique.sort();
        unique.dedup();
        if unique.len() == short.len() || max >= longest {
            break short;
        }
        max += 4;
    };
    let mut out = grid.clone();
    let mut legend = Vec::new();
    for (row, short) in out.rows.iter_mut().zip(shortened) {
        if short != row[col].text {
            legend.push((short.clone(), row[col].text.clone()));
            row[col].text = short;
        }
    }
    legend.dedup();
    (out, legend)
}

/// One group: its title, table (fitted to the width), notes, omnibus line, headlines and
/// verdict sentences, and with `verbose` the paired and reference details.
fn group(out: &mut String, g: &view::GroupView, draw: &Draw, verbose: bool, color: bool) {
    let _ = writeln!(out, "\n{}", g.title);
    // The compact report keeps the table to two stacked parts; the full one stacks
    // as many as the width needs.
    let parts = if verbose { usize::MAX } else { 2 };
    out.push_str(&fitted(&g.table, draw, parts, color));
    if !verbose {
        for note in &g.notes {
            let _ = writeln!(out, "  note: {note}");
        }
    }
    if let Some(o) = &g.omnibus {
        out.push_str(o);
        out.push('\n');
    }
    if !g.verdicts.is_empty() {
        out.push('\n');
    }
    for v in &g.verdicts {
        let tag = paint(&format!("{:<12}", v.tag), v.tone, color);
        let _ = writeln!(out, "{tag} {}", v.headline);
        let _ = writeln!(out, "{:12} {}", "", v.summary);
        if verbose {
            let _ = writeln!(out, "{:12} {}", "", v.detail);
        }
    }
    if !verbose {
        return;
    }
    for d in &g.details {
        let _ = writeln!(out, "\n{}:", d.title);
        match &d.blocks {
            BlockTable::Shown(grid) => {
                out.push_str(&fitted(grid, draw, usize::MAX, false));
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

/// The pooled verdicts, the per-host tables and the variance per level.
fn levels_section(out: &mut String, v: &LevelsView, draw: &Draw, color: bool) {
    let _ = writeln!(out, "\n{}", v.title);
    for s in &v.sections {
        let _ = writeln!(out, "\n{}", s.title);
        let _ = writeln!(out, "  {}", paint(&s.verdict, s.tone, color));
        for line in &s.lines {
            let _ = writeln!(out, "  {line}");
        }
        out.push_str(&fitted(&s.units, draw, usize::MAX, false));
        out.push_str(&fitted(&s.variance, draw, usize::MAX, false));
    }
}

fn paint(text: &str, tone: Tone, color: bool) -> String {
    match (tone, color) {
        (Tone::Better, true) => format!("\u{1b}[32m{text}\u{1b}[39m"),
        (Tone::Worse, true) => format!("\u{1b}[31m{text}\u{1b}[39m"),
        _ => text.to_owned(),
    }
}

/// The columns `cols` of `grid` as one table.
fn table(grid: &Grid, cols: &[usize], charset: Charset, color: bool) -> String {
    let mut builder = Builder::default();
    builder.push_record(cols.iter().map(|&c| grid.header[c].clone()));
    for row in &grid.rows {
        builder.push_record(cols.iter().map(|&c| row[c].text.clone()));
    }
    let mut t = builder.build();
    match charset {
        Charset::Unicode => t.with(Style::rounded()),
        Charset::Ascii => t.with(Style::ascii()),
        _ => t.with(Style::blank()),
    };
    for (i, &c) in cols.iter().enumerate() {
        if grid.right_aligned[c] {
            t.modify(Columns::one(i), Alignment::right());
        }
    }
    if color {
        for (r, row) in grid.rows.iter().enumerate() {
            for (i, &c) in cols.iter().enumerate() {
                match row[c].tone {
                    Tone::Better => {
                        t.modify((r + 1, i), Color::FG_GREEN);
                    }
                    Tone::Worse => {
                        t.modify((r + 1, i), Color::FG_RED);
                    }
                    Tone::Plain => {}
                }
            }
        }
    }
    if charset == Charset::Plain {
        // Borderless columns are padded with spaces: none at the ends of lines.
        return t
            .to_string()
            .lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n");
    }
    t.to_string()
}
