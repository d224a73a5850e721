//! `--counter auto|pmu|valgrind`: the library's choice ([`bench_sched::choose_counter`])
//! in the flags' words, and the one line saying why `auto` fell back to valgrind.

use bench_sched::{
    CounterChoice, CounterError, CounterSource, CounterUnavailable, Counting, INSTALL_VALGRIND,
    Metric, SystemProbe, choose_counter,
};

use crate::core::exit::usage;
use crate::core::stdio::stderr_line;

/// The message of a counter that cannot be had, with its remedies (exit 2).
fn counter_text(e: &CounterError, metric: &Metric, counter: Option<&str>) -> String {
    let CounterError::Unavailable(u) = e else {
        return match e {
            CounterError::TimeUnderValgrind => {
                format!("--counter valgrind with --metric {metric}: {e}")
            }
            CounterError::NotRecorded { .. } | CounterError::Unavailable(_) | _ => {
                format!("--counter {}: {e}", counter.unwrap_or_default())
            }
        };
    };
    match u {
        CounterUnavailable::Pmu { refusal, .. } => {
            format!(
                "--counter pmu: {u}; {}; or pass --counter valgrind",
                refusal.remedy()
            )
        }
        CounterUnavailable::NoValgrind { .. } => format!("--metric: {u}; {INSTALL_VALGRIND}"),
        CounterUnavailable::ValgrindCannotCount { refusal, .. } => match refusal {
            Some(r) => format!("--metric: {u}, and {r}; {}", r.remedy()),
            None => format!("--metric: {u}; use --counter pmu on a machine with hardware counters"),
        },
        _ => u.to_string(),
    }
}

/// The counter an experiment with `metric` and `--counter` needs
/// ([`bench_sched::choose_counter`] on this machine); prints one line when `auto` falls
/// back to valgrind (unless `quiet`).
///
/// # Errors
/// Exit 2: an unknown `--counter`, a counter that cannot count the metric, no PMU and no
/// valgrind, or a `--counter` other than the resumed file's.
pub fn choose(
    metric: &Metric,
    counter: Option<&str>,
    recorded: Option<CounterSource>,
    quiet: bool,
) -> anyhow::Result<Option<CounterSource>> {
    let given = counter
        .map(|c| {
            c.parse::<CounterChoice>()
                .map_err(|e| usage(format!("--counter: {e}")))
        })
        .transpose()?;
    let Some(selected) = choose_counter(metric, given, recorded, &SystemProbe)
        .map_err(|e| usage(counter_text(&e, metric, counter)))?
    else {
        return Ok(None);
    };
    if let (Some(refusal), false) = (&selected.fell_back, quiet) {
        let event = metric
            .count_event()
            .unwrap_or(bench_sched::CountEvent::Instructions);
        stderr_line(format_args!(
            "abba: counting {event} with valgrind (exact, much slower; the runs' times are valgrind's): {refusal}; {}",
            refusal.remedy()
        ));
    }
    Ok(Some(selected.source))
}

/// The counting source the runner uses for `source`, deciding on `metric`.
///
/// # Errors
/// Exit 2 when valgrind has gone from `PATH` since it was chosen.
pub fn counting(source: CounterSource, metric: &Metric) -> anyhow::Result<Box<dyn Counting>> {
    bench_sched::counting_for(source, metric)
        .ok_or_else(|| usage(format!("valgrind is not on PATH; {INSTALL_VALGRIND}")))
}
