//! Exit codes and the errors that carry them.

use std::fmt;

/// Why abba stopped, with the exit code the contract gives it.
#[derive(Debug)]
pub enum Exit {
    /// Bad usage or bad input: exit 2, nothing written half-way.
    Usage(String),
    /// A benchmarked command failed or timed out: exit 3, raw data kept.
    CommandFailed(String),
    /// Interrupted by SIGINT (130), SIGTERM (143) or SIGHUP (129): raw data kept.
    Interrupted {
        /// The signal number.
        signal: i32,
        /// What was kept.
        message: String,
    },
}

impl Exit {
    /// The process exit code.
    pub fn code(&self) -> i32 {
        match self {
            Exit::Usage(_) => 2,
            Exit::CommandFailed(_) => 3,
            Exit::Interrupted { signal, .. } => 128 + signal,
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Usage(m) | Exit::CommandFailed(m) => f.write_str(m),
            Exit::Interrupted { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for Exit {}

/// Shorthand for a usage error.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit::Usage(message.into()))
}

/// Whether a stop signal now ends abba at once (see [`exit_on_signal_from_now`]).
static ARMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// After the runs, a signal must still stop abba (the analysis of a large experiment can
/// take a while): from now on a stop request (SIGINT, SIGTERM, SIGHUP) prints `message`
/// and exits with 128 + the signal, within 20 ms. The handlers only raise `stop`'s flag,
/// so a thread watches it; [`hold_signals`] pauses this while another experiment runs
/// (`--confirm`), which stops itself cleanly.
pub fn exit_on_signal_from_now(stop: &bench_sched::InterruptFlag, message: String) {
    use std::sync::atomic::Ordering;
    ARMED.store(true, Ordering::SeqCst);
    let stop = stop.clone();
    std::thread::spawn(move || {
        loop {
            if let (true, Some(signal)) = (ARMED.load(Ordering::SeqCst), stop.stop_requested()) {
                crate::core::stdio::stderr_line(format_args!(
                    "abba: interrupted by signal {signal} during the analysis; {message}"
                ));
                std::process::exit(128 + signal);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    });
}

/// Pauses (`true`) or resumes (`false`) [`exit_on_signal_from_now`].
pub fn hold_signals(hold: bool) {
    ARMED.store(!hold, std::sync::atomic::Ordering::SeqCst);
}
