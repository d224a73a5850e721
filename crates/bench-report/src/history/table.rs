//! `abba history show`: one series as a table, its change points and its chain.

use std::fmt::Write as _;

use bench_stats::history::Series;

use super::{is_counted, is_worse, percent_change as percent, series_change_word};
use crate::units::format_value;

/// `abba history show BENCH`: the table of each series of `bench` ([`render_history_series`]),
/// a blank line between them, or a line saying no data matches the filters.
pub fn render_history_show(series: &[Series], bench: &str) -> String {
    if series.is_empty() {
        return format!("{bench}: no data matches the filters\n");
    }
    let tables: Vec<String> = series.iter().map(render_history_series).collect();
    tables.join("\n")
}

/// The table of one series: a title line, one row per commit (its number, hash, subject,
/// level and interval, the step arriving at it with its interval and outcome, and a
/// change point's mark), then a line per change point and the chain's line.
pub fn render_history_series(s: &Series) -> String {
    let s = &super::printable(s);
    let mut out = String::new();
    let b = &s.benchmark;
    let _ = writeln!(
        out,
        "{} ({}, {}) on {} [{}]: {} commits",
        b.name,
        b.metric,
        if b.higher_is_better {
            "higher is better"
        } else {
            "lower is better"
        },
        s.machine.name,
        s.machine.fingerprint,
        s.points.len()
    );
    let header = [
        "#",
        "commit",
        "subject",
        "level",
        "interval",
        "step",
        "step interval",
        "verdict",
        "",
    ];
    out.push_str(&table(header, &series_rows(s)));
    change_point_lines(&mut out, s);
    chain_line(&mut out, s);
    out
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('~');
    s
}

/// One row per point of `s`: its commit, level, step and verdict, and a change point's mark.
fn series_rows(s: &Series) -> Vec<[String; 9]> {
    let b = &s.benchmark;
    let mut rows: Vec<[String; 9]> = Vec::new();
    for (k, p) in s.points.iter().enumerate() {
        let (level, interval) = match &p.level {
            Some(l) => (
                format_value(l.median, &b.unit),
                format!(
                    "[{}, {}]",
                    format_value(l.low, &b.unit),
                    format_value(l.high, &b.unit)
                ),
            ),
            None => ("-".into(), String::new()),
        };
        let (step, step_interval, verdict) = match &p.step {
            Some(st) => (
                percent(st.ratio),
                format!("[{}, {}]", percent(st.low), percent(st.high)),
                if st.from + 1 == k {
                    st.outcome.clone()
                } else {
                    format!("{} (vs #{})", st.outcome, st.from + 1)
                },
            ),
            None => ("-".into(), String::new(), String::new()),
        };
        let mark = match s.change_points.iter().find(|c| c.index == k) {
            Some(c) => format!(
                "<< change {} (p {:.3}, {})",
                percent(c.ratio),
                c.p_value,
                series_change_word(c.ratio, b)
            ),
            None => String::new(),
        };
        rows.push([
            (k + 1).to_string(),
            p.commit.short().to_owned(),
            truncate(p.commit.subject.as_deref().unwrap_or(""), 32),
            level,
            interval,
            step,
            step_interval,
            verdict,
            mark,
        ]);
    }
    rows
}

/// `header` and `rows` as aligned columns (the first right-aligned), trailing blanks cut.
fn table(header: [&str; 9], rows: &[[String; 9]]) -> String {
    let mut out = String::new();
    let mut widths = header.map(|h| h.chars().count());
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r.iter()) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(c.chars().count());
            if i == 0 {
                let _ = write!(l, "{}{c}", " ".repeat(pad));
            } else {
                let _ = write!(l, "  {c}{}", " ".repeat(pad));
            }
        }
        l.trim_end().to_owned()
    };
    let head: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let _ = writeln!(out, "{}", line(&head));
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
    out
}

/// One line per change point of `s` (or that there is none).
fn change_point_lines(out: &mut String, s: &Series) {
    let b = &s.benchmark;
    if s.change_points.is_empty() {
        let _ = writeln!(out, "change points: none");
    } else {
        for c in &s.change_points {
            let p = &s.points[c.index];
            let _ = writeln!(
                out,
                "change point at #{} {} {:?}: {} -> {} ({}, p {:.3}){}",
                c.index + 1,
                p.commit.short(),
                p.commit.subject.as_deref().unwrap_or(""),
                format_value(c.before, &b.unit),
                format_value(c.after, &b.unit),
                percent(c.ratio),
                c.p_value,
                confirmation_note(s, c.index)
            );
        }
    }
}

/// The chain of paired steps to the newest commit, with its largest steps.
fn chain_line(out: &mut String, s: &Series) {
    let b = &s.benchmark;
    match &s.chain {
        Some(ch) => {
            let largest: Vec<String> = ch
                .chain
                .largest_steps
                .iter()
                .filter_map(|&i| ch.steps.get(i))
                .filter_map(|&k| {
                    let st = s.points[k].step.as_ref()?;
                    Some(format!(
                        "#{} {} {}",
                        k + 1,
                        s.points[k].commit.short(),
                        percent(st.ratio)
                    ))
                })
                .collect();
            let _ = writeln!(
                out,
                "{} ({}); largest steps: {}",
                super::chain_span_text(ch),
                chain_word(ch.chain.interval, b.higher_is_better, is_counted(b)),
                largest.join(", ")
            );
        }
        None => {
            let _ = writeln!(out, "chain of paired steps: none reaches the newest commit");
        }
    }
}

fn chain_word(interval: [f64; 2], higher_is_better: bool, counted: bool) -> &'static str {
    if interval[0] > 1.0 || interval[1] < 1.0 {
        let worse =
            is_worse(interval[0], higher_is_better) && is_worse(interval[1], higher_is_better);
        match (counted, worse) {
            (true, _) if interval[0] > 1.0 => "more",
            (true, _) => "fewer",
            (false, true) => "slower",
            (false, false) => "faster",
        }
    } else {
        "interval holds 1: no cumulative change shown"
    }
}

fn confirmation_note(s: &Series, index: usize) -> String {
    match s.confirmation(index) {
        Some(st) => format!(
            "; paired step from #{}: {} {} [{}, {}]",
            st.from + 1,
            st.outcome,
            percent(st.ratio),
            percent(st.low),
            percent(st.high)
        ),
        None => String::new(),
    }
}
