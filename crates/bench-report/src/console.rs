//! The terminal report: tabled tables, optional colour.

use std::fmt::Write as _;

use bench_stats::Analysis;
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Color, Style};

use crate::levels_view::LevelsView;
use crate::options::{Charset, ColorMode, RenderOptions, Symbols};
use crate::view::{self, BlockTable, Grid, Tone};
use crate::wrap::wrap;

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
        Charset::Ascii | Charset::Plain => Symbols::ASCII,
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
    let width = options.width;
    let mut out = String::new();
    // The answer first: one line per comparison.
    verdicts(&mut out, &report, width, verbose, color);
    for g in &report.groups {
        group(&mut out, g, &draw, verbose, color);
    }
    noise_section(&mut out, analysis, width);
    out.push('\n');
    for line in &report.header {
        prose(&mut out, line, width, "", "  ");
    }
    if let Some(levels) = &report.levels {
        levels_section(&mut out, levels, &draw, color);
    }
    if let Some(m) = &analysis.metrics {
        let lines = crate::metrics_view::lines(m);
        if !lines.is_empty() {
            let _ = writeln!(out, "\n{}", crate::metrics_view::title(m));
            // Wrapped at the width like the rest: one comparison's metrics run to 300
            // columns (issue 38, K4).
            for l in lines {
                prose(&mut out, &l, width, "  ", "    ");
            }
        }
    }
    if verbose && !report.controls.is_empty() {
        out.push_str("\nControls:\n");
        for c in &report.controls {
            prose(&mut out, c, width, "  ", "    ");
        }
    }
    // The compact report names the controls only where they change what to do: a
    // comparison left undecided, or a warning.
    let undecided = report
        .groups
        .iter()
        .flat_map(|g| &g.verdicts)
        .any(|v| v.undecided);
    let warned = report.warnings.iter().any(|w| !w.informational);
    if let (false, Some(brief), true) = (verbose, &report.controls_brief, undecided || warned) {
        let hint = options
            .full_report_hint
            .map(|h| format!(" {} {h} for details", sym.dash))
            .unwrap_or_default();
        // One line (wrapped to the width): the brief, then what the user can fix.
        let mut line = format!("controls: {brief}");
        for c in &report.controls_fixable_brief {
            let _ = write!(line, "; {c}");
        }
        line.push_str(&hint);
        out.push('\n');
        prose(&mut out, &line, width, "", "  ");
    }
    // The compact report says each warning; the full one adds its figures.
    let warnings: Vec<String> = report
        .warnings
        .iter()
        .filter(|w| verbose || !w.informational)
        .map(|w| if verbose { w.full() } else { w.text.clone() })
        .collect();
    if !warnings.is_empty() {
        out.push_str("\nWarnings:\n");
        for w in &warnings {
            prose(&mut out, w, width, "  ", "    ");
        }
    }
    if let Some(c) = &analysis.confirmation {
        out.push('\n');
        prose(
            &mut out,
            &format!(
                "=== Confirmation run: an independent experiment with a fresh seed ({}) ===",
                c.seed
            ),
            width,
            "",
            "    ",
        );
        out.push('\n');
        out.push_str(&render_console(c, options));
    }
    if options.charset == Charset::Unicode {
        out = micro(&out);
    }
    out
}

/// The noise diagnosis, one line per comparison wall time could not decide for time off
/// the CPU (issue 36).
fn noise_section(out: &mut String, analysis: &Analysis, width: Option<usize>) {
    let Some(n) = &analysis.noise else {
        return;
    };
    let lines = crate::noise_view::lines(n);
    if !lines.is_empty() {
        out.push('\n');
    }
    for l in lines {
        prose(out, &l, width, "", "  ");
    }
}

/// Microseconds as hyperfine prints them: every number's ` us` becomes ` µs` (one
/// column either way, so tables stay aligned). Names and other words are left alone.
fn micro(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, _) in text.match_indices(" us") {
        let after = bytes.get(i + 3).copied();
        let number_before = i > 0 && bytes[i - 1].is_ascii_digit();
        let word_ends = after.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'));
        if number_before && word_ends {
            out.push_str(&text[last..i]);
            out.push_str(" µs");
            last = i + 3;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// `text` wrapped to `width` (first line after `indent`, further lines after `hang`) and a
/// newline.
fn prose(out: &mut String, text: &str, width: Option<usize>, indent: &str, hang: &str) {
    out.push_str(&wrap(text, width, indent, hang));
    out.push('\n');
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
        prose(
            &mut out,
            &format!("{short} = {full}"),
            Some(width),
            "  ",
            "    ",
        );
    }
    if !left.is_empty() {
        left.sort_unstable();
        let names: Vec<&str> = left.iter().map(|&c| grid.header[c].as_str()).collect();
        let text = format!("(not shown at {width} columns: {})", names.join(", "));
        prose(&mut out, &text, Some(width), "  ", "   ");
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
    let width = draw.width;
    out.push('\n');
    prose(out, &g.title, width, "", "  ");
    // The compact report keeps the table to two stacked parts; the full one stacks
    // as many as the width needs.
    let parts = if verbose { usize::MAX } else { 2 };
    out.push_str(&fitted(&g.table, draw, parts, color));
    // The p99 note and the omnibus line change nothing the reader does: the full report
    // has them (the note among the warnings).
    if !verbose {
        return;
    }
    if let Some(o) = &g.omnibus {
        prose(out, o, width, "", "  ");
    }
    for d in &g.details {
        out.push('\n');
        prose(out, &format!("{}:", d.title), width, "", "  ");
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
            // Indented lines (the alternatives) keep their indent, and hang below it.
            let inner = line.len() - line.trim_start().len();
            let indent = " ".repeat(2 + inner);
            let hang = " ".repeat(4 + inner);
            prose(out, line.trim_start(), width, &indent, &hang);
        }
    }
}

/// One line per comparison, every group's: `B vs A  SLOWER  +4.8% [...] · 8 blocks`, the
/// names and tags in aligned columns; with `verbose`, each followed by its sentence (the
/// parts, the family levels) and the deciding test with its p.
fn verdicts(
    out: &mut String,
    report: &view::ReportView,
    width: Option<usize>,
    verbose: bool,
    color: bool,
) {
    let all: Vec<&view::VerdictLine> = report.groups.iter().flat_map(|g| &g.verdicts).collect();
    let name_w = all
        .iter()
        .map(|v| v.name.chars().count())
        .max()
        .unwrap_or(0);
    let tag_w = all.iter().map(|v| v.tag.chars().count()).max().unwrap_or(0);
    for v in all {
        let pad = |text: &str, w: usize| {
            let n = text.chars().count();
            format!("{text}{}", " ".repeat(w.saturating_sub(n)))
        };
        let name = pad(&v.name, name_w);
        let tag = pad(&v.tag, tag_w);
        // Wrapped (only at a given width) with the tag's colour added after.
        let line = wrap(&format!("{name}  {tag}  {}", v.headline), width, "", "    ");
        let painted = match line.find(&tag) {
            Some(at) if color => format!(
                "{}{}{}",
                &line[..at],
                paint(&tag, v.tone, true),
                &line[at + tag.len()..]
            ),
            _ => line,
        };
        out.push_str(&painted);
        out.push('\n');
        if verbose {
            prose(out, &v.summary, width, "    ", "      ");
            prose(out, &v.detail, width, "    ", "      ");
        }
    }
}

/// The pooled verdicts, the per-host tables and the variance per level.
fn levels_section(out: &mut String, v: &LevelsView, draw: &Draw, color: bool) {
    let width = draw.width;
    out.push('\n');
    prose(out, &v.title, width, "", "  ");
    for s in &v.sections {
        out.push('\n');
        prose(out, &s.title, width, "", "  ");
        let verdict = wrap(&s.verdict, width, "  ", "    ");
        let _ = writeln!(out, "{}", paint(&verdict, s.tone, color));
        for line in &s.lines {
            prose(out, line, width, "  ", "    ");
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
        Charset::Plain => t.with(Style::blank()),
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

#[cfg(test)]
mod tests {
    #[test]
    fn microseconds_after_a_number_only() {
        assert_eq!(
            super::micro("+941.0 us [1 us, 2.5 us]; used 3 user 4 us."),
            "+941.0 µs [1 µs, 2.5 µs]; used 3 user 4 µs."
        );
        assert_eq!(super::micro("values in us, shown"), "values in us, shown");
    }
}
