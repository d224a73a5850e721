//! Stopping an experiment cleanly: SIGINT/SIGTERM or a programmatic request.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::sys;

/// SIGINT's number, used by [`InterruptFlag::request_stop`].
pub const SIGINT: i32 = libc::SIGINT;
/// SIGTERM's number.
pub const SIGTERM: i32 = libc::SIGTERM;
/// SIGHUP's number (the terminal or SSH session closed), handled as SIGTERM is.
pub const SIGHUP: i32 = libc::SIGHUP;

#[derive(Debug, Default)]
struct Local {
    signal: AtomicI32,
    child_pgid: AtomicI32,
}

#[derive(Debug, Clone)]
enum Source {
    /// Wired to the process-wide signal handlers.
    Signals,
    /// Private to its clones (tests, embedding).
    Local(Arc<Local>),
}

/// A stop request shared between the experiment loop and whoever wants it to stop.
///
/// When stop is requested the process group of the running child is killed at once and
/// [`crate::run_experiment`] returns [`crate::SchedError::Interrupted`] without recording
/// the cut-off run. Cloning shares the flag.
#[derive(Debug, Clone)]
pub struct InterruptFlag(Source);

impl Default for InterruptFlag {
    fn default() -> Self {
        InterruptFlag::new()
    }
}

impl InterruptFlag {
    /// A flag raised only by [`InterruptFlag::request_stop`].
    pub fn new() -> Self {
        InterruptFlag(Source::Local(Arc::default()))
    }

    /// Installs SIGINT, SIGTERM and SIGHUP handlers for the whole process and returns the
    /// flag they raise. Call once, early, from the binary.
    ///
    /// # Errors
    /// [`crate::SchedError::Signals`] when `sigaction` fails.
    pub fn from_signals() -> Result<Self, crate::SchedError> {
        sys::install_handlers().map_err(crate::SchedError::Signals)?;
        Ok(InterruptFlag(Source::Signals))
    }

    fn cells(&self) -> (&AtomicI32, &AtomicI32) {
        match &self.0 {
            Source::Signals => (&sys::SIGNAL_RECEIVED, &sys::SIGNAL_CHILD_PGID),
            Source::Local(l) => (&l.signal, &l.child_pgid),
        }
    }

    /// Requests a stop as if SIGINT had arrived, killing the running child's group.
    pub fn request_stop(&self) {
        self.request_stop_with(SIGINT);
    }

    /// Requests a stop on behalf of `signal`, killing the running child's group.
    pub fn request_stop_with(&self, signal: i32) {
        let (sig, pgid) = self.cells();
        sig.store(signal.max(1), Ordering::SeqCst);
        sys::kill_group(pgid.load(Ordering::SeqCst));
    }

    /// The signal that requested a stop, if any.
    pub fn stop_requested(&self) -> Option<i32> {
        match self.cells().0.load(Ordering::SeqCst) {
            0 => None,
            s => Some(s),
        }
    }

    /// Registers the running child's process group so a stop kills it; if a stop was
    /// already requested the group is killed immediately.
    pub(crate) fn set_child(&self, pgid: u32) {
        let (_, cell) = self.cells();
        cell.store(i32::try_from(pgid).unwrap_or(0), Ordering::SeqCst);
        if self.stop_requested().is_some() {
            sys::kill_group(i32::try_from(pgid).unwrap_or(0));
        }
    }

    /// Forgets the child (call after it exited and before it is reaped).
    pub(crate) fn clear_child(&self) {
        self.cells().1.store(0, Ordering::SeqCst);
    }
}
