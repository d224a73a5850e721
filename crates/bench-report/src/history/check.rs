//! `abba history check` as text: each series' recent change points with what the paired
//! comparison across them said (and the `abba compare` that confirms an unconfirmed one),
//! the chain of paired steps against the one gate (in `render_gate`'s words), and one
//! closing line.

use std::fmt::Write as _;

use bench_stats::history::{ChainCheck, ChangeState, RecentChange, Series, SeriesCheck};

use super::{escape_terminal, percent_change as percent, series_change_word};

/// The check of every series (`checked`: each series with its
/// [`bench_stats::history::check_series`] over the newest `recent` commits), one line per
/// finding and the closing `abba history check: N series, F failing`. Stored names and
/// subjects are escaped ([`escape_terminal`]). Time: O(series + change points).
pub fn render_history_check(checked: &[(&Series, SeriesCheck)], recent: usize) -> String {
    let mut out = String::new();
    let mut failures = 0usize;
    for (s, check) in checked {
        let b = &s.benchmark;
        let n = s.points.len();
        let label = format!("{} ({}) on {}", b.name, b.metric, s.machine.name);
        let label = escape_terminal(&label).into_owned();
        for r in &check.recent {
            change_lines(s, r, &label, &mut out);
        }
        if let Some(c) = &check.chain {
            chain_line(s, c, &label, &mut out);
        }
        failures += check.failures();
        if check.recent.is_empty() && check.chain.is_none() {
            let _ = writeln!(
                out,
                "{label}: no change point in the newest {} of {n} commits",
                recent.min(n)
            );
        }
    }
    let _ = writeln!(
        out,
        "abba history check: {} series, {failures} failing",
        checked.len()
    );
    out
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

fn state_words(state: ChangeState) -> &'static str {
    match state {
        ChangeState::Faster => "faster: not a failure",
        ChangeState::SlowerConfirmed => "SLOWER, confirmed by the paired comparison",
        ChangeState::NotConfirmedFaster => "not confirmed: the paired comparison finds it faster",
        ChangeState::NotConfirmedInconclusive => {
            "not confirmed: the paired comparison across it is inconclusive (rerun it with more blocks)"
        }
        ChangeState::NotConfirmedMixed => {
            "not confirmed: the paired comparison finds parts of the distribution moved in opposite directions"
        }
        ChangeState::Refuted => "refuted: the paired comparison finds it equivalent",
        ChangeState::SlowerToConfirm => "SLOWER, to confirm",
        ChangeState::UnknownOutcome | _ => {
            "not confirmed: the paired comparison's outcome is unknown to this abba"
        }
    }
}

/// One recent change point of `s` with its state, and the command that confirms it.
fn change_lines(s: &Series, r: &RecentChange, label: &str, out: &mut String) {
    let c = &s.change_points[r.change_point];
    let p = &s.points[c.index];
    let _ = writeln!(
        out,
        "{label}: change point at #{} {} {:?}: {} ({}, p {:.3}) - {}",
        c.index + 1,
        escape_terminal(p.commit.short()),
        p.commit.subject.as_deref().unwrap_or(""),
        percent(c.ratio),
        series_change_word(c.ratio, &s.benchmark),
        c.p_value,
        state_words(r.state),
    );
    if s.confirmation(c.index).is_none() && c.index > 0 {
        let _ = writeln!(
            out,
            "  confirm: {}",
            escape_terminal(&confirm_command(s, c.index))
        );
        let _ = writeln!(
            out,
            "    (the first command run from a build of {}, the second from a build of {})",
            escape_terminal(s.points[c.index - 1].commit.short()),
            escape_terminal(p.commit.short())
        );
    }
}

/// `--fail-if-slower`: the chain of paired steps of `s` against the one gate: a chain that
/// trips it is said in the gate's words ([`crate::render_gate`], as compare's and suite's
/// are), one that does not by its interval and the threshold it stays within.
fn chain_line(s: &Series, c: &ChainCheck, label: &str, out: &mut String) {
    let Some(ch) = &s.chain else { return };
    if c.fails() {
        let mut gate = c.gate.clone();
        gate.benchmark = Some(label.to_owned());
        for line in crate::render_gate(&gate) {
            let _ = writeln!(out, "{}", escape_terminal(&line));
        }
    } else {
        let _ = writeln!(
            out,
            "{label}: {}, within --fail-if-slower {}",
            super::chain_span_text(ch),
            percent(1.0 + c.threshold)
        );
    }
}
