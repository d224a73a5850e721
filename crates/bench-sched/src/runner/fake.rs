//! [`FakeRunner`]: scripted measurements, no processes, for testing designs and the loop.

use std::collections::{HashSet, VecDeque};

use super::{CommandSpec, RunMeasurement, RunRequest, Runner, Termination};
use crate::cpus::CpuSet;
use crate::error::SchedError;

/// One request the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeCall {
    /// The variant name passed by the caller.
    pub variant: String,
    /// The command text.
    pub command: String,
    /// The layout padding requested.
    pub env_pad: usize,
    /// The pinned CPUs, if any.
    pub pin: Option<CpuSet>,
}

type Script = Box<dyn FnMut(&FakeCall, usize) -> RunMeasurement>;

/// A [`Runner`] that records what it was asked to run and answers from a script.
///
/// Without a script every run succeeds with `wall_ns` = 1000 × (call number + 1).
///
/// ```
/// use bench_sched::{FakeRunner, RunMeasurement, Termination};
/// let mut fake = FakeRunner::new().with_queue([RunMeasurement {
///     wall_ns: 5, user_ns: 0, sys_ns: 0, max_rss_kib: 0, run_delay_ns: None,
///     termination: Termination::Exited(1), last_json: None, stderr_tail: "boom".into(),
///     counts: None,
/// }]);
/// # let _ = &mut fake;
/// ```
pub struct FakeRunner {
    calls: Vec<FakeCall>,
    queue: VecDeque<RunMeasurement>,
    script: Option<Script>,
    missing: HashSet<String>,
}

impl std::fmt::Debug for FakeRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeRunner")
            .field("calls", &self.calls.len())
            .field("queued", &self.queue.len())
            .finish()
    }
}

impl Default for FakeRunner {
    fn default() -> Self {
        FakeRunner::new()
    }
}

/// A successful measurement: the given wall time, half of it user, a quarter sys, 1 MiB.
fn ok_measurement(wall_ns: u64) -> RunMeasurement {
    RunMeasurement {
        wall_ns,
        user_ns: wall_ns / 2,
        sys_ns: wall_ns / 4,
        max_rss_kib: 1024,
        run_delay_ns: None,
        termination: Termination::Exited(0),
        last_json: None,
        stderr_tail: String::new(),
        counts: None,
    }
}

impl FakeRunner {
    /// A fake whose runs all succeed.
    pub fn new() -> Self {
        FakeRunner {
            calls: Vec::new(),
            queue: VecDeque::new(),
            script: None,
            missing: HashSet::new(),
        }
    }

    /// Answers the next calls with these measurements, in order (then falls back to the
    /// script or the default).
    pub fn with_queue(mut self, measurements: impl IntoIterator<Item = RunMeasurement>) -> Self {
        self.queue.extend(measurements);
        self
    }

    /// Answers with `script(call, call_number)` once the queue is empty.
    pub fn with_script(
        mut self,
        script: impl FnMut(&FakeCall, usize) -> RunMeasurement + 'static,
    ) -> Self {
        self.script = Some(Box::new(script));
        self
    }

    /// Makes [`Runner::preflight`] report `program` as missing.
    pub fn with_missing(mut self, program: &str) -> Self {
        self.missing.insert(program.to_owned());
        self
    }

    /// A successful measurement (exit 0) with this wall time, half of it user time and a
    /// quarter system time, 1024 KiB peak RSS: a building block for scripts.
    pub fn success(wall_ns: u64) -> RunMeasurement {
        ok_measurement(wall_ns)
    }

    /// Every call received so far, warm-up runs included.
    pub fn calls(&self) -> &[FakeCall] {
        &self.calls
    }
}

impl Runner for FakeRunner {
    fn preflight(&mut self, variant: &str, command: &CommandSpec) -> Result<(), SchedError> {
        if self.missing.contains(command.program()) {
            return Err(SchedError::ProgramNotFound {
                variant: variant.to_owned(),
                program: command.program().to_owned(),
            });
        }
        Ok(())
    }

    fn run(&mut self, variant: &str, req: &RunRequest<'_>) -> Result<RunMeasurement, SchedError> {
        let call = FakeCall {
            variant: variant.to_owned(),
            command: req.command.text().to_owned(),
            env_pad: req.env_pad,
            pin: req.pin.cloned(),
        };
        let n = self.calls.len();
        self.calls.push(call.clone());
        Ok(match self.queue.pop_front() {
            Some(m) => m,
            None => match self.script.as_mut() {
                Some(s) => s(&call, n),
                None => ok_measurement(1000 * (n as u64 + 1)),
            },
        })
    }

    fn allowed_cpus(&mut self, pin: Option<&CpuSet>) -> Option<CpuSet> {
        pin.cloned().or_else(|| CpuSet::from_cpus([0, 1]).ok())
    }
}
