//! [`Pmu`]: hardware counters through `perf_event_open`, inherited by the child and
//! enabled at its `exec`; [`SystemProbe`]: what this machine offers.

use std::io;
use std::path::PathBuf;

use perf_event::events::Hardware;
#[cfg(test)]
use perf_event::events::Software;
use perf_event::{Builder, Counter};

use super::{
    CountError, CountEvent, CountedRun, CounterProbe, CounterSource, Counting, Counts, PmuRefusal,
};

/// What a [`Pmu`] opens for each event: the hardware event, or (only in this crate's tests,
/// on machines without a PMU) a software event that exercises the same inheritance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Hardware,
    #[cfg(test)]
    SoftwareStandIn,
}

/// Counts with the CPU's performance counters.
///
/// For each run, [`Counting::start`] opens one counter per event on the calling thread
/// (the one about to spawn the child), disabled, with `inherit` (the child and everything
/// it starts get copies) and `enable_on_exec` (a copy starts counting when its task calls
/// `exec`; abba never does, so its own count stays zero). User space only. The copies add
/// their counts into abba's counter as each task exits, so once the child is reaped the
/// counter holds the whole tree's count from `exec` to exit. A count the kernel had to
/// multiplex (running less than enabled) is scaled by enabled/running, as `perf stat`
/// does. The deciding event must open; the others are recorded where the PMU has them.
#[derive(Debug, Clone)]
pub struct Pmu {
    required: CountEvent,
    kind: Kind,
    /// The optional events that opened on the first run (`None` before it).
    extra: Option<Vec<CountEvent>>,
}

impl Pmu {
    /// A PMU source whose runs must count `required` (and count the other events of
    /// [`CountEvent::ALL`] where they open).
    pub fn new(required: CountEvent) -> Pmu {
        Pmu {
            required,
            kind: Kind::Hardware,
            extra: None,
        }
    }

    #[cfg(test)]
    fn software_stand_in(required: CountEvent) -> Pmu {
        Pmu {
            kind: Kind::SoftwareStandIn,
            ..Pmu::new(required)
        }
    }
}

fn builder(event: CountEvent, kind: Kind) -> Builder<'static> {
    let mut b = match kind {
        Kind::Hardware => Builder::new(match event {
            CountEvent::Instructions => Hardware::INSTRUCTIONS,
            CountEvent::Cycles => Hardware::CPU_CYCLES,
            CountEvent::Branches => Hardware::BRANCH_INSTRUCTIONS,
            CountEvent::BranchMisses => Hardware::BRANCH_MISSES,
            CountEvent::CacheMisses => Hardware::CACHE_MISSES,
        }),
        #[cfg(test)]
        Kind::SoftwareStandIn => Builder::new(match event {
            CountEvent::Instructions => Software::PAGE_FAULTS,
            CountEvent::Cycles
            | CountEvent::Branches
            | CountEvent::BranchMisses
            | CountEvent::CacheMisses => Software::TASK_CLOCK,
        }),
    };
    b.observe_self()
        .any_cpu()
        .enabled(false)
        .inherit(true)
        .enable_on_exec(true)
        .exclude_kernel(true)
        .exclude_hv(true);
    b
}

impl Counting for Pmu {
    fn source(&self) -> CounterSource {
        CounterSource::Pmu
    }

    fn start(&mut self, argv: &[String]) -> Result<Box<dyn CountedRun>, CountError> {
        let mut counters = vec![(self.required, builder(self.required, self.kind).build()?)];
        let kind = self.kind;
        let required = self.required;
        let extra = self.extra.get_or_insert_with(|| {
            CountEvent::ALL
                .into_iter()
                .filter(|&e| e != required && builder(e, kind).build().is_ok())
                .collect()
        });
        for &e in extra.iter() {
            if let Ok(c) = builder(e, kind).build() {
                counters.push((e, c));
            }
        }
        Ok(Box::new(PmuRun {
            argv: argv.to_vec(),
            counters,
        }))
    }
}

struct PmuRun {
    argv: Vec<String>,
    counters: Vec<(CountEvent, Counter)>,
}

impl CountedRun for PmuRun {
    fn argv(&self) -> &[String] {
        &self.argv
    }

    fn finish(mut self: Box<Self>) -> Result<Counts, CountError> {
        let mut counts = Counts::default();
        for (event, counter) in &mut self.counters {
            let read = counter.read_count_and_time()?;
            let value = if read.time_running == 0 || read.time_running >= read.time_enabled {
                read.count
            } else {
                let scaled =
                    read.count as f64 * read.time_enabled as f64 / read.time_running as f64;
                scaled.round() as u64
            };
            counts.set(*event, Some(value));
        }
        Ok(counts)
    }
}

/// Asks this machine: opens (and closes) a disabled user-space instruction counter, and
/// looks for `valgrind` on `PATH`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemProbe;

/// The refusal an error of `perf_event_open` means.
fn refusal(e: &io::Error) -> PmuRefusal {
    let error = e.to_string();
    match e.raw_os_error() {
        Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV | libc::ENOSYS) => {
            PmuRefusal::NoPmu { error }
        }
        Some(libc::EACCES | libc::EPERM) => PmuRefusal::NotPermitted {
            paranoid: std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                .ok()
                .and_then(|t| t.trim().parse().ok()),
            error,
        },
        _ => PmuRefusal::Other { error },
    }
}

impl CounterProbe for SystemProbe {
    fn pmu(&self) -> Result<(), PmuRefusal> {
        builder(CountEvent::Instructions, Kind::Hardware)
            .build()
            .map(drop)
            .map_err(|e| refusal(&e))
    }

    fn valgrind(&self) -> Option<PathBuf> {
        crate::runner::resolve_program("valgrind")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn errors_of_perf_event_open_name_their_reason() {
        let e = |n| io::Error::from_raw_os_error(n);
        assert!(matches!(
            refusal(&e(libc::ENOENT)),
            PmuRefusal::NoPmu { .. }
        ));
        assert!(matches!(
            refusal(&e(libc::EOPNOTSUPP)),
            PmuRefusal::NoPmu { .. }
        ));
        assert!(matches!(
            refusal(&e(libc::EACCES)),
            PmuRefusal::NotPermitted { .. }
        ));
        assert!(matches!(
            refusal(&e(libc::EINVAL)),
            PmuRefusal::Other { .. }
        ));
    }

    /// The inheritance the PMU path relies on, run for real with a software event (task
    /// faults) in place of the hardware one, which this machine may lack: a counter opened
    /// on this thread before the spawn stays at zero for abba, counts the child and its
    /// own children from their `exec`, and holds their sum after the reap.
    #[test]
    fn counters_opened_before_spawn_count_the_child_tree_from_exec() {
        let mut pmu = Pmu::software_stand_in(CountEvent::Instructions);
        let mut spin = |argv: &[&str]| {
            let argv: Vec<String> = argv.iter().map(|s| (*s).to_owned()).collect();
            let run = pmu.start(&argv).unwrap();
            let status = Command::new(&run.argv()[0])
                .args(&run.argv()[1..])
                .status()
                .unwrap();
            assert!(status.success());
            run.finish().unwrap().instructions.unwrap()
        };
        // Busy loops in the shell: one process, then the same loop in two children.
        let one = spin(&[
            "sh",
            "-c",
            "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
        ]);
        let two = spin(&[
            "sh",
            "-c",
            "for k in 1 2; do sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' & done; wait",
        ]);
        assert!(one > 0, "the child's page faults were counted");
        assert!(
            two as f64 > 1.5 * one as f64,
            "both children were counted: {two} page faults vs {one} for one"
        );
        // Nothing runs between start and finish: zero, abba itself is not counted.
        let idle = pmu.start(&["x".to_owned()]).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(idle.finish().unwrap().instructions, Some(0));
    }
}
