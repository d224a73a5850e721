//! Which counter an experiment needs ([`choose_counter`]): none for a time, RSS or JSON
//! metric unless one is asked for, the one a resumed file recorded, else
//! [`select_counter`]'s choice; and what a refused PMU can do about it
//! ([`PmuRefusal::remedy`]).

use super::{
    CountEvent, CounterChoice, CounterProbe, CounterSource, CounterUnavailable, PmuRefusal,
    SelectedCounter, select_counter,
};
use crate::runner::Metric;

/// How to install valgrind, for the error when nothing can count.
pub const INSTALL_VALGRIND: &str = "install valgrind (Debian/Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind; Arch: pacman -S valgrind)";

impl PmuRefusal {
    /// What the user can do about the refusal.
    pub fn remedy(&self) -> &'static str {
        match self {
            PmuRefusal::NoPmu { .. } => "--counter pmu needs bare metal or a VM with a virtual PMU",
            PmuRefusal::NotPermitted { .. } => {
                "allow user-space counting with `sysctl kernel.perf_event_paranoid=2` (or lower), or in a container grant CAP_PERFMON (docker run --cap-add PERFMON) and allow perf_event_open in its seccomp profile"
            }
            PmuRefusal::Other { .. } => {
                "check that perf_event_open works here (perf stat -e instructions:u true)"
            }
        }
    }
}

/// Why an experiment's counter cannot be had ([`choose_counter`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CounterError {
    /// A counter other than the one the resumed file was counted with.
    #[error(
        "the resumed file was counted with {recorded}; resume with the same counter, or start a new file"
    )]
    NotRecorded {
        /// The resumed file's counter.
        recorded: CounterSource,
    },
    /// No source can count the event here.
    #[error(transparent)]
    Unavailable(#[from] CounterUnavailable),
    /// Valgrind with a metric that is not a count: its times and memory are valgrind's.
    #[error(
        "under valgrind the times and memory are valgrind's, not the program's; use --metric instructions"
    )]
    TimeUnderValgrind,
}

/// The counter an experiment on `metric` needs: `None` when nothing is counted (a time,
/// RSS or JSON metric, no `given` choice, no `recorded` counter); a resumed file's
/// `recorded` counter is the only one accepted; else [`select_counter`] (`Auto` by
/// default), whose `fell_back` says why `Auto` fell back to valgrind.
///
/// # Errors
/// [`CounterError`]: another counter than the recorded one, nothing that can count, or
/// valgrind asked for a metric that is not a count.
pub fn choose_counter(
    metric: &Metric,
    given: Option<CounterChoice>,
    recorded: Option<CounterSource>,
    probe: &dyn CounterProbe,
) -> Result<Option<SelectedCounter>, CounterError> {
    if let Some(file) = recorded {
        if given.is_some_and(|g| g != CounterChoice::from(file) && g != CounterChoice::Auto) {
            return Err(CounterError::NotRecorded { recorded: file });
        }
    }
    let event = metric.count_event();
    if event.is_none() && given.is_none() && recorded.is_none() {
        return Ok(None);
    }
    let choice = recorded.map_or(given.unwrap_or_default(), CounterChoice::from);
    let selected = select_counter(choice, event.unwrap_or(CountEvent::Instructions), probe)?;
    if selected.source == CounterSource::Valgrind && event.is_none() {
        return Err(CounterError::TimeUnderValgrind);
    }
    Ok(Some(selected))
}

/// The counting source a runner uses for `source`, counting `metric`'s event
/// (instructions for a metric that is not a count); `None` when valgrind has gone from
/// `PATH` since it was chosen.
pub fn counting_for(source: CounterSource, metric: &Metric) -> Option<Box<dyn super::Counting>> {
    let event = metric.count_event().unwrap_or(CountEvent::Instructions);
    match source {
        CounterSource::Valgrind => super::SystemProbe
            .valgrind()
            .map(|path| Box::new(super::Valgrind::new(path)) as Box<dyn super::Counting>),
        CounterSource::Pmu => Some(Box::new(super::Pmu::new(event))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::FakeProbe as Machine;

    fn vm(valgrind: bool) -> Machine {
        Machine {
            pmu: Err(PmuRefusal::NoPmu {
                error: "No such file or directory (os error 2)".into(),
            }),
            valgrind,
        }
    }

    #[test]
    fn time_metrics_count_nothing_unless_asked_and_never_under_valgrind() {
        let m = Metric::Wall;
        assert_eq!(choose_counter(&m, None, None, &vm(true)), Ok(None));
        let e = choose_counter(&m, Some(CounterChoice::Valgrind), None, &vm(true));
        assert_eq!(e, Err(CounterError::TimeUnderValgrind));
    }

    #[test]
    fn no_pmu_and_no_valgrind_is_unavailable_with_both_reasons() {
        let m = Metric::Count(CountEvent::Instructions);
        let e = choose_counter(&m, None, None, &vm(false)).unwrap_err();
        assert!(
            matches!(
                &e,
                CounterError::Unavailable(CounterUnavailable::NoValgrind {
                    refusal: Some(_),
                    ..
                })
            ),
            "{e:?}"
        );
        let e = choose_counter(&m, Some(CounterChoice::Pmu), None, &vm(true)).unwrap_err();
        assert!(
            matches!(e, CounterError::Unavailable(CounterUnavailable::Pmu { .. })),
            "{e:?}"
        );
        let cycles = Metric::Count(CountEvent::Cycles);
        let e = choose_counter(&cycles, None, None, &vm(true)).unwrap_err();
        assert!(e.to_string().contains("only instructions"), "{e}");
        let denied = PmuRefusal::NotPermitted {
            paranoid: Some(4),
            error: "Permission denied (os error 13)".into(),
        };
        assert!(denied.remedy().contains("perf_event_paranoid=2"));
    }

    #[test]
    fn a_resumed_file_keeps_its_counter() {
        let m = Metric::Count(CountEvent::Instructions);
        let both = Machine {
            pmu: Ok(()),
            valgrind: true,
        };
        // auto on a machine with a PMU would pick it; the file says valgrind.
        let chosen = choose_counter(&m, None, Some(CounterSource::Valgrind), &both).unwrap();
        assert_eq!(chosen.map(|c| c.source), Some(CounterSource::Valgrind));
        let e = choose_counter(
            &m,
            Some(CounterChoice::Pmu),
            Some(CounterSource::Valgrind),
            &both,
        );
        assert_eq!(
            e,
            Err(CounterError::NotRecorded {
                recorded: CounterSource::Valgrind
            })
        );
    }
}
