//! GitHub-flavoured Markdown for a pull-request comment: pipe tables, no colour.

use std::fmt::Write as _;

use bench_stats::Analysis;

use crate::options::Symbols;
use crate::view::{self, BlockTable, Grid};

/// Renders the analysis as GitHub-flavoured Markdown with the same content as
/// [`render_console`](crate::render_console): pipe tables, bullet lists, no colour.
/// Time: O(cells of every table).
pub fn render_markdown(analysis: &Analysis) -> String {
    let report = view::build(analysis, &Symbols::MARKDOWN);
    let mut out = String::from("## abba benchmark report\n\n");
    // The answer first, one line per comparison; how each was decided one click away.
    let lines: Vec<&view::VerdictLine> = report.groups.iter().flat_map(|g| &g.verdicts).collect();
    for v in &lines {
        let _ = writeln!(
            out,
            "- **{}** {}: {}",
            escape(&v.tag),
            escape(&v.name),
            escape(&v.headline)
        );
    }
    if !lines.is_empty() {
        out.push_str("\n<details><summary>How each verdict was decided: the parts of the distribution, the test and its p</summary>\n\n");
        for v in &lines {
            let _ = writeln!(
                out,
                "- {}: {}  \n  {}",
                escape(&v.name),
                escape(&v.summary),
                escape(&v.detail)
            );
        }
        out.push_str("\n</details>\n\n");
    }
    let _ = writeln!(out, "{}", report.header.join("  \n"));
    for g in &report.groups {
        group(&mut out, g);
    }
    if let Some(n) = &analysis.noise {
        for l in crate::noise_view::lines(n) {
            let _ = writeln!(out, "\n**Noise:** {}", escape(&l));
        }
    }
    if let Some(levels) = &report.levels {
        let _ = writeln!(out, "\n### {}", escape(&levels.title));
        for s in &levels.sections {
            let _ = writeln!(out, "\n#### {}\n", escape(&s.title));
            let _ = writeln!(out, "**{}**\n", escape(&s.verdict));
            for line in &s.lines {
                let _ = writeln!(out, "- {}", escape(line));
            }
            out.push('\n');
            out.push_str(&table(&s.units));
            out.push('\n');
            out.push_str(&table(&s.variance));
        }
    }
    if let Some(m) = &analysis.metrics {
        let lines = crate::metrics_view::lines(m);
        if !lines.is_empty() {
            let _ = writeln!(out, "\n{}\n", escape(&crate::metrics_view::title(m)));
            for l in lines {
                let _ = writeln!(out, "- {}", escape(&l));
            }
        }
    }
    if let Some(brief) = &report.controls_brief {
        // One line to read, the whole list one click away.
        let _ = writeln!(
            out,
            "\n<details><summary>Controls: {}</summary>\n",
            escape(brief)
        );
        for item in &report.controls {
            let _ = writeln!(out, "- {}", escape(item));
        }
        out.push_str("\n</details>\n");
        for item in &report.controls_fixable {
            let _ = writeln!(out, "\n**Can be controlled:** {}", escape(item));
        }
    }
    // A document read at leisure: each warning with its figures.
    let warnings: Vec<String> = report
        .warnings
        .iter()
        .filter(|w| !w.informational)
        .map(view::WarningLine::full)
        .collect();
    if !warnings.is_empty() {
        out.push_str("\n### Warnings\n\n");
        for item in &warnings {
            let _ = writeln!(out, "- {}", escape(item));
        }
    }
    if let Some(c) = &analysis.confirmation {
        let _ = writeln!(
            out,
            "\n## Confirmation run\n\nAn independent experiment with a fresh seed ({}).\n",
            c.seed
        );
        let nested = render_markdown(c);
        out.push_str(nested.trim_start_matches("## abba benchmark report\n\n"));
    }
    out
}

/// One group: its title, table, notes, omnibus line, verdicts and per-comparison details.
fn group(out: &mut String, g: &view::GroupView) {
    let _ = writeln!(out, "\n### {}\n", escape(&g.title));
    out.push_str(&table(&g.table));
    for note in &g.notes {
        let _ = writeln!(out, "\n<sub>Note: {}</sub>", escape(note));
    }
    if let Some(o) = &g.omnibus {
        let _ = writeln!(out, "\n{}", escape(o));
    }
    for d in &g.details {
        detail(out, d);
    }
}

/// One comparison's detail: its block table (or that it is omitted) and its lines.
fn detail(out: &mut String, d: &view::Detail) {
    let _ = writeln!(out, "\n#### {}\n", escape(&d.title));
    match &d.blocks {
        BlockTable::Shown(grid) => {
            out.push_str(&table(grid));
            out.push('\n');
        }
        BlockTable::Omitted(n) => {
            let _ = writeln!(out, "({n} blocks, table omitted)\n");
        }
        BlockTable::Absent => {}
    }
    for line in &d.lines {
        // An indented line belongs to the one before it: a nested item.
        match line.strip_prefix("  ") {
            Some(nested) => {
                let _ = writeln!(out, "  - {}", escape(nested.trim_start()));
            }
            None => {
                let _ = writeln!(out, "- {}", escape(line));
            }
        }
    }
}

/// Escapes the characters that would break a table cell or start unwanted markup, and an
/// `&` that could start an entity (`a&lt;b` would read `a<b`; `&&` stays as typed). The
/// one Markdown escaper: the suite's documents use it too.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        let entity = ch == '&'
            && chars
                .peek()
                .is_some_and(|n| n.is_alphanumeric() || *n == '#');
        if entity || matches!(ch, '|' | '*' | '_' | '`' | '<' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

fn table(grid: &Grid) -> String {
    let mut out = String::new();
    let row = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    out.push_str(&row(grid.header.iter().map(|h| escape(h)).collect()));
    out.push_str(&row(grid
        .right_aligned
        .iter()
        .map(|r| if *r { "---:" } else { ":---" }.to_owned())
        .collect()));
    for cells in &grid.rows {
        // A cell's second line (the Ratio's part) reads on the same line.
        out.push_str(&row(cells
            .iter()
            .map(|c| escape(&c.text.replace('\n', " ")))
            .collect()));
    }
    out
}
