//! Counting what a run executes: instruction (and other hardware) counts of the benchmarked
//! process and every process it starts, from its `exec` to its exit.
//!
//! Two sources sit behind one trait, [`Counting`]:
//!
//! - [`Pmu`]: the CPU's performance-monitoring unit through `perf_event_open` (the
//!   `perf-event2` crate). The counters are opened, disabled, on the spawning thread with
//!   `inherit` and `enable_on_exec`, so the forked child inherits them, they start counting
//!   at its `exec`, follow every process and thread it creates, and fold their counts back
//!   into the counter abba holds as each exits. User space only (`exclude_kernel`,
//!   `exclude_hv`), which is what `perf_event_paranoid` = 2 allows.
//! - [`Valgrind`]: `valgrind --tool=cachegrind --cache-sim=no --trace-children=yes`, one
//!   output file per process in a directory of the run's own; the count is the sum of the
//!   files' `summary:` lines (cachegrind's `I refs`). Exact and repeatable, about 20-100x
//!   slower, so the run's times are valgrind's, not the program's.
//!
//! [`select_counter`] turns the user's [`CounterChoice`] into a source, falling back from
//! the PMU to valgrind under [`CounterChoice::Auto`] and saying why ([`PmuRefusal`]); a
//! [`CounterProbe`] answers what the machine offers, so the choice is testable without
//! either ([`FakeCounting`] stands in for a source in tests of the loop).

mod choose;
mod fake;
mod pmu;
mod valgrind;

pub use choose::{CounterError, INSTALL_VALGRIND, choose_counter, counting_for};
pub use fake::{FakeCounting, FakeProbe};
pub use pmu::{Pmu, SystemProbe};
pub use valgrind::{CachegrindError, Valgrind, parse_cachegrind_out};

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// One countable event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CountEvent {
    /// Retired instructions (valgrind: `I refs`, every instruction executed).
    Instructions,
    /// CPU cycles (PMU only).
    Cycles,
    /// Retired branch instructions (PMU only).
    Branches,
    /// Mispredicted branches (PMU only).
    BranchMisses,
    /// Last-level cache misses (PMU only).
    CacheMisses,
}

impl CountEvent {
    /// Every event, in the order the raw file and the report list them.
    pub const ALL: [CountEvent; 5] = [
        CountEvent::Instructions,
        CountEvent::Cycles,
        CountEvent::Branches,
        CountEvent::BranchMisses,
        CountEvent::CacheMisses,
    ];

    /// `instructions`, `cycles`, `branches`, `branch-misses`, `cache-misses`.
    pub fn name(self) -> &'static str {
        match self {
            CountEvent::Instructions => "instructions",
            CountEvent::Cycles => "cycles",
            CountEvent::Branches => "branches",
            CountEvent::BranchMisses => "branch-misses",
            CountEvent::CacheMisses => "cache-misses",
        }
    }

    /// The event named `name` (as [`CountEvent::name`] writes it).
    pub fn from_name(name: &str) -> Option<CountEvent> {
        CountEvent::ALL.into_iter().find(|e| e.name() == name)
    }
}

impl fmt::Display for CountEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The counts of one run; `None` for an event the source does not count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Retired instructions.
    pub instructions: Option<u64>,
    /// CPU cycles.
    pub cycles: Option<u64>,
    /// Retired branches.
    pub branches: Option<u64>,
    /// Mispredicted branches.
    pub branch_misses: Option<u64>,
    /// Last-level cache misses.
    pub cache_misses: Option<u64>,
    /// How many processes the counts cover (valgrind writes one file per process; `None`
    /// when the source cannot tell, as the PMU).
    pub processes: Option<u32>,
}

impl Counts {
    /// The count of `event`.
    pub fn get(&self, event: CountEvent) -> Option<u64> {
        match event {
            CountEvent::Instructions => self.instructions,
            CountEvent::Cycles => self.cycles,
            CountEvent::Branches => self.branches,
            CountEvent::BranchMisses => self.branch_misses,
            CountEvent::CacheMisses => self.cache_misses,
        }
    }

    /// Sets the count of `event`.
    pub fn set(&mut self, event: CountEvent, value: Option<u64>) {
        let slot = match event {
            CountEvent::Instructions => &mut self.instructions,
            CountEvent::Cycles => &mut self.cycles,
            CountEvent::Branches => &mut self.branches,
            CountEvent::BranchMisses => &mut self.branch_misses,
            CountEvent::CacheMisses => &mut self.cache_misses,
        };
        *slot = value;
    }
}

/// Where counts come from; the raw header records it (`counter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CounterSource {
    /// The CPU's performance counters (`perf_event_open`).
    Pmu,
    /// Valgrind's cachegrind (instructions only; times are valgrind's).
    Valgrind,
}

impl CounterSource {
    /// `pmu` or `valgrind`.
    pub fn name(self) -> &'static str {
        match self {
            CounterSource::Pmu => "pmu",
            CounterSource::Valgrind => "valgrind",
        }
    }

    /// The source named `name`.
    pub fn from_name(name: &str) -> Option<CounterSource> {
        match name {
            "pmu" => Some(CounterSource::Pmu),
            "valgrind" => Some(CounterSource::Valgrind),
            _ => None,
        }
    }

    /// Whether it can count `event` (valgrind counts only instructions).
    pub fn counts(self, event: CountEvent) -> bool {
        match self {
            CounterSource::Pmu => true,
            CounterSource::Valgrind => event == CountEvent::Instructions,
        }
    }

    /// Whether the run's wall, user and system times and peak RSS are the program's own
    /// (not under valgrind, whose translation makes every run many times slower and
    /// larger).
    pub fn times_are_the_programs(self) -> bool {
        self == CounterSource::Pmu
    }
}

impl fmt::Display for CounterSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the user asked to count with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CounterChoice {
    /// The PMU where the kernel offers it, else valgrind (saying why).
    #[default]
    Auto,
    /// The PMU or nothing.
    Pmu,
    /// Valgrind or nothing.
    Valgrind,
}

impl From<CounterSource> for CounterChoice {
    /// The choice that selects `source` and nothing else.
    fn from(source: CounterSource) -> CounterChoice {
        match source {
            CounterSource::Pmu => CounterChoice::Pmu,
            CounterSource::Valgrind => CounterChoice::Valgrind,
        }
    }
}

/// A counter choice that is not `auto`, `pmu` or `valgrind`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown counter {given:?}; expected one of: auto, pmu, valgrind")]
pub struct CounterParseError {
    /// The rejected text.
    pub given: String,
}

impl FromStr for CounterChoice {
    type Err = CounterParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(CounterChoice::Auto),
            "pmu" => Ok(CounterChoice::Pmu),
            "valgrind" => Ok(CounterChoice::Valgrind),
            _ => Err(CounterParseError {
                given: s.to_owned(),
            }),
        }
    }
}

/// Why the kernel refused a hardware counter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PmuRefusal {
    /// `ENOENT`/`EOPNOTSUPP`/`ENODEV`: no PMU, or it lacks this event (most VMs, GitHub's
    /// hosted runners).
    NoPmu {
        /// The `perf_event_open` error text.
        error: String,
    },
    /// `EACCES`/`EPERM`: not permitted (`perf_event_paranoid` above 2, or a container
    /// without `CAP_PERFMON`/a seccomp profile that blocks `perf_event_open`).
    NotPermitted {
        /// `/proc/sys/kernel/perf_event_paranoid`, when readable.
        paranoid: Option<i32>,
        /// The `perf_event_open` error text.
        error: String,
    },
    /// Any other error.
    Other {
        /// The `perf_event_open` error text.
        error: String,
    },
}

impl fmt::Display for PmuRefusal {
    /// The reason, without a remedy (the CLI words remedies).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PmuRefusal::NoPmu { error } => write!(
                f,
                "the kernel offers no hardware counters here (perf_event_open: {error}); virtual machines and hosted CI runners usually have no PMU"
            ),
            PmuRefusal::NotPermitted { paranoid, error } => {
                write!(f, "perf_event_open is not permitted ({error}")?;
                if let Some(p) = paranoid {
                    write!(f, ", kernel.perf_event_paranoid = {p}")?;
                }
                f.write_str(")")
            }
            PmuRefusal::Other { error } => write!(f, "perf_event_open failed: {error}"),
        }
    }
}

/// What the machine offers for counting; [`SystemProbe`] asks the kernel and `PATH`.
pub trait CounterProbe {
    /// `Ok` when a user-space instruction counter can be opened.
    ///
    /// # Errors
    /// Why it cannot.
    fn pmu(&self) -> Result<(), PmuRefusal>;
    /// The valgrind executable, if one is on `PATH`.
    fn valgrind(&self) -> Option<PathBuf>;
}

/// The source [`select_counter`] chose, and why it is not the PMU when `auto` fell back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectedCounter {
    /// The source.
    pub source: CounterSource,
    /// Under `auto`: why the PMU was not used (the fallback to valgrind).
    pub fell_back: Option<PmuRefusal>,
    /// The valgrind executable (for [`CounterSource::Valgrind`]).
    pub valgrind: Option<PathBuf>,
}

/// Why no counter can count `event` here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CounterUnavailable {
    /// The PMU was required (or the event needs it) and the kernel refused it.
    #[error("{event} cannot be counted: {refusal}")]
    Pmu {
        /// The event asked for.
        event: CountEvent,
        /// The kernel's refusal.
        refusal: PmuRefusal,
    },
    /// Valgrind was required (or the fallback) and is not installed.
    #[error("{event} cannot be counted: {}valgrind is not installed (not on PATH)", refusal.as_ref().map(|r| format!("{r}, and ")).unwrap_or_default())]
    NoValgrind {
        /// The event asked for.
        event: CountEvent,
        /// Why the PMU was not used, when it was tried first.
        refusal: Option<PmuRefusal>,
    },
    /// Valgrind counts only instructions.
    #[error("{event} cannot be counted by valgrind, which counts only instructions")]
    ValgrindCannotCount {
        /// The event asked for.
        event: CountEvent,
        /// Why the PMU was not used, when it was tried first.
        refusal: Option<PmuRefusal>,
    },
}

/// Chooses the source that counts `event` under `choice`.
///
/// `Pmu`: the PMU or an error. `Valgrind`: valgrind or an error (and only for
/// instructions). `Auto`: the PMU when [`CounterProbe::pmu`] succeeds, else valgrind with
/// the refusal in [`SelectedCounter::fell_back`].
///
/// # Errors
/// [`CounterUnavailable`] saying which source is missing and why.
pub fn select_counter(
    choice: CounterChoice,
    event: CountEvent,
    probe: &dyn CounterProbe,
) -> Result<SelectedCounter, CounterUnavailable> {
    let valgrind = |refusal: Option<PmuRefusal>| {
        if !CounterSource::Valgrind.counts(event) {
            return Err(CounterUnavailable::ValgrindCannotCount { event, refusal });
        }
        match probe.valgrind() {
            Some(path) => Ok(SelectedCounter {
                source: CounterSource::Valgrind,
                fell_back: refusal,
                valgrind: Some(path),
            }),
            None => Err(CounterUnavailable::NoValgrind { event, refusal }),
        }
    };
    match choice {
        CounterChoice::Valgrind => valgrind(None),
        CounterChoice::Pmu | CounterChoice::Auto => match probe.pmu() {
            Ok(()) => Ok(SelectedCounter {
                source: CounterSource::Pmu,
                fell_back: None,
                valgrind: None,
            }),
            Err(refusal) if choice == CounterChoice::Auto => valgrind(Some(refusal)),
            Err(refusal) => Err(CounterUnavailable::Pmu { event, refusal }),
        },
    }
}

/// Why one counted run yielded no counts.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CountError {
    /// Setting up or reading the counters failed.
    #[error("counting failed: {0}")]
    Io(#[from] std::io::Error),
    /// Valgrind's output could not be read.
    #[error("{0}")]
    Cachegrind(#[from] CachegrindError),
}

/// A counting source: prepares each counted run and reads its counts afterwards.
///
/// [`Counting::start`] is called on the thread that spawns the child, just before it does;
/// the returned [`CountedRun`] says what to spawn and, once the child has been reaped,
/// yields the counts.
pub trait Counting: Send {
    /// The source (recorded in the raw header).
    fn source(&self) -> CounterSource;

    /// Prepares one run of `argv`.
    ///
    /// # Errors
    /// When the counters cannot be set up (the run is then not started).
    fn start(&mut self, argv: &[String]) -> Result<Box<dyn CountedRun>, CountError>;
}

/// One counted run under way.
pub trait CountedRun {
    /// The program and arguments to spawn (the command itself, or it under valgrind).
    fn argv(&self) -> &[String];

    /// The counts, after the child has been reaped.
    ///
    /// # Errors
    /// When nothing could be read (for valgrind: no output file, e.g. after a `SIGKILL`).
    fn finish(self: Box<Self>) -> Result<Counts, CountError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    type Machine = FakeProbe;

    fn no_pmu() -> PmuRefusal {
        PmuRefusal::NoPmu {
            error: "No such file or directory (os error 2)".into(),
        }
    }

    #[test]
    fn auto_prefers_the_pmu_and_falls_back_to_valgrind_saying_why() {
        let both = Machine {
            pmu: Ok(()),
            valgrind: true,
        };
        let s = select_counter(CounterChoice::Auto, CountEvent::Instructions, &both).unwrap();
        assert_eq!((s.source, s.fell_back), (CounterSource::Pmu, None));
        let vm = Machine {
            pmu: Err(no_pmu()),
            valgrind: true,
        };
        let s = select_counter(CounterChoice::Auto, CountEvent::Instructions, &vm).unwrap();
        assert_eq!(s.source, CounterSource::Valgrind);
        assert_eq!(s.fell_back, Some(no_pmu()));
        assert_eq!(s.valgrind.unwrap(), PathBuf::from("/usr/bin/valgrind"));
        // Explicit choices do not fall back.
        let e = select_counter(CounterChoice::Pmu, CountEvent::Instructions, &vm).unwrap_err();
        assert!(matches!(e, CounterUnavailable::Pmu { .. }), "{e}");
        let s = select_counter(CounterChoice::Valgrind, CountEvent::Instructions, &both).unwrap();
        assert_eq!((s.source, s.fell_back), (CounterSource::Valgrind, None));
    }

    #[test]
    fn nothing_to_count_with_names_both_reasons() {
        let bare = Machine {
            pmu: Err(PmuRefusal::NotPermitted {
                paranoid: Some(3),
                error: "Permission denied (os error 13)".into(),
            }),
            valgrind: false,
        };
        let e = select_counter(CounterChoice::Auto, CountEvent::Instructions, &bare).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("perf_event_paranoid = 3"), "{text}");
        assert!(text.contains("valgrind is not installed"), "{text}");
        let e = select_counter(CounterChoice::Auto, CountEvent::Cycles, &bare).unwrap_err();
        assert!(matches!(e, CounterUnavailable::ValgrindCannotCount { .. }));
        assert!(e.to_string().contains("only instructions"));
    }

    #[test]
    fn names_round_trip() {
        for e in CountEvent::ALL {
            assert_eq!(CountEvent::from_name(e.name()), Some(e));
        }
        for s in [CounterSource::Pmu, CounterSource::Valgrind] {
            assert_eq!(CounterSource::from_name(s.name()), Some(s));
        }
        assert_eq!("auto".parse::<CounterChoice>(), Ok(CounterChoice::Auto));
        assert!("perf".parse::<CounterChoice>().is_err());
        let mut c = Counts::default();
        for (i, e) in CountEvent::ALL.into_iter().enumerate() {
            c.set(e, Some(i as u64));
        }
        for (i, e) in CountEvent::ALL.into_iter().enumerate() {
            assert_eq!(c.get(e), Some(i as u64));
        }
    }
}
