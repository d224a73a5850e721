//! `--counter auto|pmu|valgrind`: which source counts the runs, the one line saying why
//! `auto` fell back to valgrind, and the remedies of a refused PMU in the CLI's words.

use bench_sched::{
    CountEvent, CounterChoice, CounterProbe, CounterSource, CounterUnavailable, Counting, Metric,
    Pmu, PmuRefusal, SystemProbe, Valgrind, select_counter,
};

use crate::core::exit::usage;
use crate::core::stdio::stderr_line;

/// How to install valgrind, for the error when nothing can count.
const INSTALL_VALGRIND: &str = "install valgrind (Debian/Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind; Arch: pacman -S valgrind)";

const OTHER_REFUSAL: &str =
    "check that perf_event_open works here (perf stat -e instructions:u true)";

/// What a refused PMU can do about it.
fn remedy(refusal: &PmuRefusal) -> &'static str {
    match refusal {
        PmuRefusal::NoPmu { .. } => "--counter pmu needs bare metal or a VM with a virtual PMU",
        PmuRefusal::NotPermitted { .. } => {
            "allow user-space counting with `sysctl kernel.perf_event_paranoid=2` (or lower), or in a container grant CAP_PERFMON (docker run --cap-add PERFMON) and allow perf_event_open in its seccomp profile"
        }
        PmuRefusal::Other { .. } => OTHER_REFUSAL,
        _ => OTHER_REFUSAL,
    }
}

/// The message of a counter that cannot be had, with its remedies (exit 2).
fn unavailable_text(e: &CounterUnavailable) -> String {
    match e {
        CounterUnavailable::Pmu { refusal, .. } => {
            format!(
                "--counter pmu: {e}; {}; or pass --counter valgrind",
                remedy(refusal)
            )
        }
        CounterUnavailable::NoValgrind { .. } => format!("--metric: {e}; {INSTALL_VALGRIND}"),
        CounterUnavailable::ValgrindCannotCount { refusal, .. } => match refusal {
            Some(r) => format!("--metric: {e}, and {r}; {}", remedy(r)),
            None => format!("--metric: {e}; use --counter pmu on a machine with hardware counters"),
        },
        _ => e.to_string(),
    }
}

/// The counter an experiment with `metric` and `--counter` needs: `None` when nothing is
/// counted (a time, RSS or JSON metric without `--counter`). A resumed file's counter is
/// the only one accepted (`recorded`: the header's). Prints one line when `auto` falls
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
    choose_with(metric, counter, recorded, quiet, &SystemProbe)
}

fn choose_with(
    metric: &Metric,
    counter: Option<&str>,
    recorded: Option<CounterSource>,
    quiet: bool,
    probe: &dyn CounterProbe,
) -> anyhow::Result<Option<CounterSource>> {
    let given = counter
        .map(|c| {
            c.parse::<CounterChoice>()
                .map_err(|e| usage(format!("--counter: {e}")))
        })
        .transpose()?;
    if let Some(file) = recorded {
        let recorded_choice = CounterChoice::from(file);
        if given.is_some_and(|g| g != recorded_choice && g != CounterChoice::Auto) {
            return Err(usage(format!(
                "--counter {}: the resumed file was counted with {file}; resume with the same counter, or start a new file",
                counter.unwrap_or_default()
            )));
        }
    }
    let event = metric.count_event();
    if event.is_none() && given.is_none() && recorded.is_none() {
        return Ok(None);
    }
    let choice = match recorded {
        Some(file) => CounterChoice::from(file),
        None => given.unwrap_or_default(),
    };
    let event = event.unwrap_or(CountEvent::Instructions);
    let selected = select_counter(choice, event, probe).map_err(|e| usage(unavailable_text(&e)))?;
    if selected.source == CounterSource::Valgrind && metric.count_event().is_none() {
        return Err(usage(format!(
            "--counter valgrind with --metric {metric}: under valgrind the times and memory are valgrind's, not the program's; use --metric instructions"
        )));
    }
    if let (Some(refusal), false) = (&selected.fell_back, quiet) {
        stderr_line(format_args!(
            "abba: counting {event} with valgrind (exact, much slower; the runs' times are valgrind's): {refusal}; {}",
            remedy(refusal)
        ));
    }
    Ok(Some(selected.source))
}

/// The counting source the runner uses for `source`, deciding on `metric`.
///
/// # Errors
/// Exit 2 when valgrind has gone from `PATH` since it was chosen.
pub fn counting(source: CounterSource, metric: &Metric) -> anyhow::Result<Box<dyn Counting>> {
    let event = metric.count_event().unwrap_or(CountEvent::Instructions);
    Ok(match source {
        CounterSource::Valgrind => {
            Box::new(Valgrind::new(SystemProbe.valgrind().ok_or_else(|| {
                usage(format!("valgrind is not on PATH; {INSTALL_VALGRIND}"))
            })?))
        }
        CounterSource::Pmu => Box::new(Pmu::new(event)),
        _ => Box::new(Pmu::new(event)),
    })
}

#[cfg(test)]
mod tests {
    use bench_sched::FakeProbe as Machine;

    use super::*;

    fn vm(valgrind: bool) -> Machine {
        Machine {
            pmu: Err(PmuRefusal::NoPmu {
                error: "No such file or directory (os error 2)".into(),
            }),
            valgrind,
        }
    }

    fn text(e: anyhow::Error) -> String {
        e.to_string()
    }

    #[test]
    fn time_metrics_count_nothing_unless_asked() {
        let m = Metric::Wall;
        assert_eq!(choose_with(&m, None, None, true, &vm(true)).unwrap(), None);
        // Under valgrind a time is valgrind's: refused, naming both flags.
        let e = text(choose_with(&m, Some("valgrind"), None, true, &vm(true)).unwrap_err());
        assert!(
            e.starts_with("--counter valgrind with --metric wall"),
            "{e}"
        );
    }

    #[test]
    fn no_pmu_and_no_valgrind_is_one_line_with_the_install_command() {
        let m = Metric::Count(CountEvent::Instructions);
        let e = text(choose_with(&m, None, None, true, &vm(false)).unwrap_err());
        assert!(!e.contains('\n'), "{e}");
        assert!(
            e.contains("no hardware counters") && e.contains("apt-get install valgrind"),
            "{e}"
        );
        let e = text(choose_with(&m, Some("pmu"), None, true, &vm(true)).unwrap_err());
        assert!(
            e.starts_with("--counter pmu:") && e.contains("--counter valgrind"),
            "{e}"
        );
        let e = text(choose_with(&m, Some("perf"), None, true, &vm(true)).unwrap_err());
        assert!(e.starts_with("--counter: unknown counter"), "{e}");
        let cycles = Metric::Count(CountEvent::Cycles);
        let e = text(choose_with(&cycles, None, None, true, &vm(true)).unwrap_err());
        assert!(e.contains("only instructions"), "{e}");
        let denied = Machine {
            pmu: Err(PmuRefusal::NotPermitted {
                paranoid: Some(4),
                error: "Permission denied (os error 13)".into(),
            }),
            valgrind: false,
        };
        let e = text(choose_with(&m, None, None, true, &denied).unwrap_err());
        assert!(e.contains("perf_event_paranoid = 4"), "{e}");
    }

    #[test]
    fn a_resumed_file_keeps_its_counter() {
        let m = Metric::Count(CountEvent::Instructions);
        let both = Machine {
            pmu: Ok(()),
            valgrind: true,
        };
        // auto on a machine with a PMU would pick it; the file says valgrind.
        assert_eq!(
            choose_with(&m, None, Some(CounterSource::Valgrind), true, &both).unwrap(),
            Some(CounterSource::Valgrind)
        );
        let e = text(
            choose_with(&m, Some("pmu"), Some(CounterSource::Valgrind), true, &both).unwrap_err(),
        );
        assert!(e.contains("counted with valgrind"), "{e}");
    }
}
