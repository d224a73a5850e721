//! Checks of flag values that warn rather than refuse.

use crate::core::stdio::stderr_line;

/// Whether `unit` names a rate (`ops/s`, `req/sec`, `MB/s`, `Hz`, `qps`): a quantity where
/// more is usually better.
pub(crate) fn is_rate_unit(unit: &str) -> bool {
    let u = unit.trim().to_ascii_lowercase();
    let per = [
        "/s", "/sec", "/second", "/ms", "/min", "/minute", "/h", "/hour",
    ];
    per.iter().any(|p| u.ends_with(p))
        || u.contains(" per ")
        || matches!(
            u.as_str(),
            "hz" | "khz"
                | "mhz"
                | "ghz"
                | "qps"
                | "rps"
                | "tps"
                | "fps"
                | "iops"
                | "ops"
                | "bps"
                | "kbps"
                | "mbps"
                | "gbps"
        )
}

/// Warns (M11 of issue 26) when a rate unit is given without `--higher-is-better`: the
/// values are then read as lower is better, which a throughput rarely is. Shown under
/// `-q` too: it is about the verdict's direction.
pub(crate) fn warn_rate_unit(unit: Option<&str>, higher_is_better: bool) {
    warn_rate_unit_of(unit, higher_is_better, "--unit", "--higher-is-better", "");
}

/// [`warn_rate_unit`] worded for where the unit was given: `given` names it (`--unit`,
/// `benchmark "a": unit`), `direction` the setting that turns the direction
/// (`--higher-is-better`, `higher-is-better = true`), and `place` where to add it (empty, or
/// ` to the benchmark in the suite file`).
pub(crate) fn warn_rate_unit_of(
    unit: Option<&str>,
    higher_is_better: bool,
    given: &str,
    direction: &str,
    place: &str,
) {
    let Some(unit) = unit.filter(|u| is_rate_unit(u)) else {
        return;
    };
    if higher_is_better {
        return;
    }
    stderr_line(format_args!(
        "abba: warning: {given} {unit} looks like a rate, but without {direction} lower values count as better; add {direction}{place} if more {unit} is better"
    ));
}

/// Why an input has no value to analyze: for runs of which some succeeded, that no block
/// is complete (M19 of issue 26: a block counts only when every run in it succeeded);
/// otherwise that nothing succeeded.
pub(crate) fn nothing_to_analyze(input: &bench_sched::Input) -> String {
    let Some(e) = &input.experiment else {
        return "no successful runs or values to analyze".to_owned();
    };
    let ok = e.runs.iter().filter(|r| r.succeeded()).count();
    if ok == 0 {
        return "no successful runs or values to analyze".to_owned();
    }
    format!(
        "no complete block to analyze: {ok} of {} runs succeeded, but every block has a failed or missing run (a block counts only when all its runs succeeded)",
        e.runs.len()
    )
}
