//! The CLI's words for what the libraries state as facts: each [`Remedy`] a warning or a
//! control carries becomes the flag that applies it.

use bench_stats::Analysis;
use bench_stats::model::Remedy;

/// The text appended to a warning's message or a control's detail for `remedy`.
pub(crate) fn remedy_text(remedy: Remedy) -> &'static str {
    match remedy {
        Remedy::DisablePracticalGate => " (--min-practical-effect 0 turns the gate off)",
        Remedy::PairInBlocks => ". Use --design abba to pair them",
        Remedy::SettleBetweenRuns => ", but consider --settle",
        Remedy::ClearCarriedState => {
            ". If a run leaves a state the next one picks up (a cache, a file, heat), --settle (a pause between runs) lets it clear"
        }
        Remedy::PinCpus => " (use --pin to hold this fixed)",
        Remedy::ConfirmStandout => {
            " (abba compare --confirm reruns it against the baseline with a fresh seed)"
        }
        Remedy::RandomizeLayout => " (--layout random randomizes it per run)",
        Remedy::DecideOnCpuTime => " (--metric cpu)",
        Remedy::BreakCarryover => {
            ". Consider --settle (a pause lets the state clear between runs) or --design random (each version then follows both about equally often)"
        }
        _ => "",
    }
}

/// Words every remedy of `analysis` as the flag that applies it. The remedy stays (the
/// report puts a control the user can fix on its own line); wording twice adds nothing.
pub fn word_remedies(analysis: &mut Analysis) {
    if let Some(c) = &mut analysis.confirmation {
        word_remedies(c);
    }
    for w in &mut analysis.warnings {
        if let Some(r) = w.remedy.take() {
            w.message.push_str(remedy_text(r));
        }
    }
    if let Some(n) = &mut analysis.noise {
        for c in &mut n.comparisons {
            if let (Some(r), Some(s)) = (c.remedy.take(), c.sentence.as_mut()) {
                s.push_str(remedy_text(r));
            }
        }
    }
    for c in &mut analysis.controls {
        if let Some(r) = c.remedy {
            let text = remedy_text(r);
            if !c.detail.ends_with(text) {
                c.detail.push_str(text);
            }
        }
    }
}

/// A scheduler error in the CLI's words: the shell-syntax refusal names `--shell sh`.
/// Every other error reads as its own message, a new one included.
#[allow(clippy::wildcard_enum_match_arm)]
pub fn sched_error_text(e: &bench_sched::SchedError) -> String {
    match e {
        bench_sched::SchedError::ShellSyntaxWithoutShell { .. } => {
            format!("{e}: pass `--shell sh`")
        }
        _ => e.to_string(),
    }
}

/// A scan input ([`bench_sched::ScanInput`]) as the flag that gives it (hyperfine's
/// spelling, which abba's flags keep).
pub(crate) fn scan_flag(input: bench_sched::ScanInput) -> &'static str {
    use bench_sched::ScanInput;
    match input {
        ScanInput::Range => "-P/--parameter-scan",
        ScanInput::Step => "-D/--parameter-step-size",
        ScanInput::List => "-L/--parameter-list",
        ScanInput::Name => "--name",
        ScanInput::Kernel => "--kernel",
        _ => "a scan flag",
    }
}
