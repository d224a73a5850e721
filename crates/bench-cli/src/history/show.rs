//! `abba history list`, `show` and `check`: the series as tables, and the CI check.

use std::fmt::Write as _;

use bench_report::format_value;
use bench_stats::Outcome;

use super::series::{Detect, Filter, Point, Series};
use super::stats::ChangePointConfig;
use super::store::{Store, resolve_path};
use super::{CheckArgs, ReadArgs, ShowArgs};
use crate::exit::usage;
use crate::output::write_stdout;

impl ReadArgs {
    pub(super) fn filter(&self) -> Filter {
        Filter {
            machine: self.machine.clone(),
            branch: self.branch.clone(),
            since: self.since.clone(),
            metric: self.metric.clone(),
        }
    }

    pub(super) fn detect(&self) -> Detect {
        let mut change_points = ChangePointConfig::default();
        if let Some(m) = self.min_segment {
            change_points.min_segment = m as usize;
        }
        if let Some(t) = self.threshold {
            change_points.alpha = t;
        }
        Detect {
            change_points,
            confidence: self.confidence,
        }
    }

    pub(super) fn open(&self) -> anyhow::Result<Store> {
        Store::open_existing(&resolve_path(self.history.as_deref()))
    }
}

/// Every series of the benchmarks named (all when `None`), filtered.
pub(super) fn all_series(
    store: &Store,
    bench: Option<&str>,
    read: &ReadArgs,
) -> anyhow::Result<Vec<Series>> {
    let filter = read.filter();
    let benchmarks = store.benchmarks(bench, &filter)?;
    if let Some(name) = bench {
        if benchmarks.is_empty() {
            let known: Vec<String> = store
                .benchmarks(None, &Filter::default())?
                .into_iter()
                .map(|b| b.name)
                .collect();
            return Err(usage(format!(
                "{}: no benchmark {name}{} in the history (it has: {})",
                store.path.display(),
                read.metric
                    .as_deref()
                    .map(|m| format!(" of metric {m}"))
                    .unwrap_or_default(),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        }
    }
    let detect = read.detect();
    let mut out = Vec::new();
    for b in &benchmarks {
        out.extend(store.series(b, &filter, &detect)?);
    }
    Ok(out)
}

/// `abba history list`.
pub(super) fn list(read: &ReadArgs) -> anyhow::Result<u8> {
    let store = read.open()?;
    let filter = read.filter();
    let (experiments, runs) = store.counts()?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {experiments} experiments, {runs} runs",
        store.path.display()
    );
    let _ = writeln!(out, "\nmachines:");
    for m in store.machines(&filter)? {
        let _ = writeln!(
            out,
            "  {:<20} {}  {}, {} cores, kernel {}",
            m.name,
            m.fingerprint,
            m.cpu_model.as_deref().unwrap_or("unknown CPU"),
            m.cores.map_or("?".to_owned(), |c| c.to_string()),
            m.kernel.as_deref().unwrap_or("?")
        );
    }
    let _ = writeln!(out, "\nbenchmarks:");
    let detect = read.detect();
    for b in store.benchmarks(None, &filter)? {
        let series = store.series(&b, &filter, &detect)?;
        let commits: usize = series.iter().map(|s| s.points.len()).sum();
        if series.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "  {:<24} {} ({}, {}), {} commits on {} machine{}",
            b.name,
            b.metric,
            b.unit,
            if b.higher_is_better {
                "higher is better"
            } else {
                "lower is better"
            },
            commits,
            series.len(),
            if series.len() == 1 { "" } else { "s" }
        );
    }
    write_stdout(&out)?;
    Ok(0)
}

fn percent(ratio: f64) -> String {
    let p = (ratio - 1.0) * 100.0;
    if p.abs() < 0.005 {
        "+0.00%".into()
    } else {
        format!("{p:+.2}%")
    }
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('~');
    s
}

/// Whether a ratio (after / before) is a slowdown for this benchmark.
pub(super) fn is_worse(ratio: f64, higher_is_better: bool) -> bool {
    if higher_is_better {
        ratio < 1.0
    } else {
        ratio > 1.0
    }
}

fn direction_word(ratio: f64, higher_is_better: bool) -> &'static str {
    if ratio == 1.0 {
        "no change"
    } else if is_worse(ratio, higher_is_better) {
        "slower"
    } else {
        "faster"
    }
}

/// The table of one series.
pub(super) fn render_series(s: &Series) -> String {
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
                direction_word(c.ratio, b.higher_is_better)
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
                "chain of {} paired steps #{} -> #{}: {} [{}, {}] ({}); largest steps: {}",
                ch.steps.len(),
                ch.from + 1,
                ch.to + 1,
                percent(ch.chain.ratio),
                percent(ch.chain.interval[0]),
                percent(ch.chain.interval[1]),
                chain_word(ch.chain.interval, b.higher_is_better),
                largest.join(", ")
            );
        }
        None => {
            let _ = writeln!(out, "chain of paired steps: none reaches the newest commit");
        }
    }
}

fn chain_word(interval: [f64; 2], higher_is_better: bool) -> &'static str {
    if interval[0] > 1.0 || interval[1] < 1.0 {
        if is_worse(interval[0], higher_is_better) && is_worse(interval[1], higher_is_better) {
            "slower"
        } else {
            "faster"
        }
    } else {
        "interval holds 1: no cumulative change shown"
    }
}

/// What a recorded paired comparison across a change point said.
pub(super) fn confirmation(s: &Series, index: usize) -> Option<&super::series::StepRow> {
    let p: &Point = s.points.get(index)?;
    p.step.as_ref().filter(|st| st.from + 1 == index)
}

fn confirmation_note(s: &Series, index: usize) -> String {
    match confirmation(s, index) {
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

/// `abba history show BENCH`.
pub(super) fn show(args: &ShowArgs) -> anyhow::Result<u8> {
    super::check_output_not_history("--export-html", args.export_html.as_deref(), &args.read)?;
    let store = args.read.open()?;
    let series = all_series(&store, Some(&args.bench), &args.read)?;
    if let Some(path) = &args.export_html {
        let html = super::export::html(&series);
        crate::output::export(path, html.as_bytes())
            .map_err(|e| usage(format!("--export-html {}: {e}", path.display())))?;
    }
    if args.json {
        write_stdout(&super::export::json(&series))?;
        return Ok(0);
    }
    let mut out = String::new();
    if series.is_empty() {
        let _ = writeln!(out, "{}: no data matches the filters", args.bench);
    }
    for (k, s) in series.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        out.push_str(&render_series(s));
    }
    write_stdout(&out)?;
    Ok(0)
}

/// The `abba compare` that confirms a change point: the commit before it against it,
/// paired, recorded.
fn confirm_command(s: &Series, index: usize) -> String {
    let before = &s.points[index - 1].commit;
    let after = &s.points[index].commit;
    let cmd = s.benchmark.command.as_deref().unwrap_or("CMD");
    let q = |t: &str| shell_words::quote(t).into_owned();
    format!(
        "abba compare --record --bench {} --base-commit {} --commit {} -n {} -n {} {} {}",
        q(&s.benchmark.name),
        before.sha,
        after.sha,
        before.short(),
        after.short(),
        q(cmd),
        q(cmd),
    )
}

/// The recent change points of `s` (within `--recent`), each with its state; whether any
/// was said, and how many fail.
fn check_change_points(
    args: &CheckArgs,
    s: &Series,
    label: &str,
    out: &mut String,
) -> (bool, usize) {
    let b = &s.benchmark;
    let n = s.points.len();
    let (mut said, mut failures) = (false, 0usize);
    for c in &s.change_points {
        if c.index + args.recent < n {
            continue;
        }
        said = true;
        let p = &s.points[c.index];
        let worse = is_worse(c.ratio, b.higher_is_better);
        // The paired comparison across the change, if one was recorded: its outcome read
        // back through the enum (an unknown name, from a newer abba, confirms nothing).
        let confirmed = confirmation(s, c.index).map(|st| Outcome::from_name(&st.outcome));
        let state = match (worse, confirmed) {
            (false, _) => "faster: not a failure",
            (true, Some(Some(Outcome::Slower))) => "SLOWER, confirmed by the paired comparison",
            (true, Some(Some(Outcome::Faster))) => {
                "not confirmed: the paired comparison finds it faster"
            }
            (true, Some(Some(Outcome::Inconclusive))) => {
                "not confirmed: the paired comparison across it is inconclusive (rerun it with more blocks)"
            }
            (true, Some(Some(Outcome::Mixed))) => {
                "not confirmed: the paired comparison finds parts of the distribution moved in opposite directions"
            }
            (true, Some(Some(Outcome::Equivalent))) => {
                "refuted: the paired comparison finds it equivalent"
            }
            (true, Some(_)) => {
                "not confirmed: the paired comparison's outcome is unknown to this abba"
            }
            (true, None) => "SLOWER, to confirm",
        };
        let fails = worse && confirmed.is_none_or(|o| o == Some(Outcome::Slower));
        if fails {
            failures += 1;
        }
        let _ = writeln!(
            out,
            "{label}: change point at #{} {} {:?}: {} ({}, p {:.3}) - {state}",
            c.index + 1,
            p.commit.short(),
            p.commit.subject.as_deref().unwrap_or(""),
            percent(c.ratio),
            direction_word(c.ratio, b.higher_is_better),
            c.p_value,
        );
        if confirmed.is_none() && c.index > 0 {
            let _ = writeln!(out, "  confirm: {}", confirm_command(s, c.index));
            let _ = writeln!(
                out,
                "    (the first command run from a build of {}, the second from a build of {})",
                s.points[c.index - 1].commit.short(),
                p.commit.short()
            );
        }
    }
    (said, failures)
}

/// `--fail-if-slower`: the chain of paired steps of `s` against the threshold; whether it
/// was said, and whether it fails (1) or not (0).
fn check_chain(args: &CheckArgs, s: &Series, label: &str, out: &mut String) -> (bool, usize) {
    let b = &s.benchmark;
    let (mut said, mut failures) = (false, 0usize);
    if let (Some(pct), Some(ch)) = (args.fail_if_slower, &s.chain) {
        let [lo, hi] = ch.chain.interval;
        let (significant, reaches) = if b.higher_is_better {
            (hi < 1.0, lo <= 1.0 - pct)
        } else {
            (lo > 1.0, hi >= 1.0 + pct)
        };
        said = true;
        if significant && reaches {
            failures += 1;
            let _ = writeln!(
                out,
                "{label}: SLOWER by {} [{}, {}] over {} paired steps #{} -> #{}, reaching --fail-if-slower {}",
                percent(ch.chain.ratio),
                percent(lo),
                percent(hi),
                ch.steps.len(),
                ch.from + 1,
                ch.to + 1,
                percent(1.0 + pct)
            );
        } else {
            let _ = writeln!(
                out,
                "{label}: chain of {} paired steps #{} -> #{}: {} [{}, {}], within --fail-if-slower {}",
                ch.steps.len(),
                ch.from + 1,
                ch.to + 1,
                percent(ch.chain.ratio),
                percent(lo),
                percent(hi),
                percent(1.0 + pct)
            );
        }
    }
    (said, failures)
}

/// `abba history check`.
pub(super) fn check(args: &CheckArgs) -> anyhow::Result<u8> {
    let store = args.read.open()?;
    let series = all_series(&store, args.bench.as_deref(), &args.read)?;
    let mut out = String::new();
    let mut failures = 0usize;
    for s in &series {
        let b = &s.benchmark;
        let n = s.points.len();
        let label = format!("{} ({}) on {}", b.name, b.metric, s.machine.name);
        let (points_said, point_failures) = check_change_points(args, s, &label, &mut out);
        let (chain_said, chain_failures) = check_chain(args, s, &label, &mut out);
        failures += point_failures + chain_failures;
        let said = points_said || chain_said;
        if !said {
            let _ = writeln!(
                out,
                "{label}: no change point in the newest {} of {n} commits",
                args.recent.min(n)
            );
        }
    }
    if series.is_empty() {
        let _ = writeln!(out, "abba history check: no series matches the filters");
    }
    let _ = writeln!(
        out,
        "abba history check: {} series, {failures} failing",
        series.len()
    );
    write_stdout(&out)?;
    Ok(u8::from(failures > 0))
}
