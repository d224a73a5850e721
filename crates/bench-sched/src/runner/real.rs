//! [`RealRunner`]: spawns the command with `std::process::Command` and measures it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use super::{CommandSpec, OutputMode, RunMeasurement, RunRequest, Runner, Termination};
use crate::counter::Counting;
use crate::cpus::CpuSet;
use crate::error::SchedError;
use crate::layout::LAYOUT_ENV_VAR;
use crate::sys;

/// Bytes of stderr kept for failure messages.
pub const STDERR_TAIL_BYTES: u64 = 2048;

/// Runs real child processes.
///
/// Each run: stdin is `/dev/null`; the child gets its own process group (so a timeout or
/// Ctrl-C kills everything it started) and, on Linux, dies with abba
/// (`PR_SET_PDEATHSIG`, so even a SIGKILL of abba leaves no command running); stderr goes to an unlinked temporary file that is
/// truncated before each run and whose last [`STDERR_TAIL_BYTES`] are read afterwards (no
/// extra thread, bounded memory; disk use is bounded by one run's stderr); stdout is
/// discarded unless shown or needed by a `json:` metric. Wall time is measured with
/// `Instant` from just before spawn to the moment the child has exited; user/sys time and
/// peak RSS come from `wait4`. A watchdog thread is started only when a timeout is set.
#[derive(Debug, Default)]
pub struct RealRunner {
    stderr_file: Option<File>,
    stdout_file: Option<File>,
    counter: Option<Box<dyn Counting>>,
}

impl std::fmt::Debug for dyn Counting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Counting({})", self.source())
    }
}

impl RealRunner {
    /// A runner with no scratch files yet (created on first use).
    pub fn new() -> Self {
        RealRunner::default()
    }

    /// Counts every run whose request asks for it ([`RunRequest::count`]) with `counter`:
    /// the command is spawned as the counter says (under valgrind, or as it is with the
    /// PMU's counters armed) and [`RunMeasurement::counts`] holds what it counted.
    pub fn with_counter(mut self, counter: Box<dyn Counting>) -> Self {
        self.counter = Some(counter);
        self
    }
}

static SCRATCH_COUNTER: AtomicU64 = AtomicU64::new(0);

/// An anonymous scratch file: created in the temp dir (`$TMPDIR`, else `/tmp` when
/// `$TMPDIR` cannot take a file) and unlinked at once.
fn scratch_file() -> io::Result<File> {
    let mut first_error = None;
    for dir in [std::env::temp_dir(), PathBuf::from("/tmp")] {
        let n = SCRATCH_COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("abba-scratch-{}-{n}", std::process::id()));
        match File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => {
                std::fs::remove_file(&path)?;
                return Ok(f);
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| io::Error::other("no temporary directory")))
}

/// Empties `slot`'s file (creating it first) and returns a handle for the child.
fn fresh(slot: &mut Option<File>) -> io::Result<File> {
    if slot.is_none() {
        *slot = Some(scratch_file()?);
    }
    let f = slot
        .as_mut()
        .ok_or_else(|| io::Error::other("scratch file missing"))?;
    f.set_len(0)?;
    f.seek(SeekFrom::Start(0))?;
    f.try_clone()
}

fn is_executable(p: &Path) -> bool {
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Resolves a program like `execvp` would: a name with a `/` is a path, otherwise `PATH`.
pub(crate) fn resolve_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

fn read_tail(f: &mut File, max: u64) -> io::Result<String> {
    let len = f.metadata()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(max)))?;
    let mut buf = Vec::with_capacity(max as usize);
    f.take(max).read_to_end(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

fn last_json_line(f: &mut File, echo: OutputMode) -> io::Result<Option<String>> {
    f.seek(SeekFrom::Start(0))?;
    let mut reader = BufReader::new(f);
    let mut line = Vec::new();
    let mut last = None;
    let mut out: Box<dyn Write> = match echo {
        OutputMode::ShowOnStderr => Box::new(io::stderr().lock()),
        _ => Box::new(io::stdout().lock()),
    };
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if echo.shows() {
            out.write_all(&line)?;
        }
        let text = String::from_utf8_lossy(&line);
        let t = text.trim();
        if t.starts_with('{')
            && matches!(
                serde_json::from_str::<serde_json::Value>(t),
                Ok(serde_json::Value::Object(_))
            )
        {
            last = Some(t.to_owned());
        }
    }
    out.flush()?;
    Ok(last)
}

impl Runner for RealRunner {
    fn preflight(&mut self, variant: &str, command: &CommandSpec) -> Result<(), SchedError> {
        match resolve_program(command.program()) {
            Some(_) => Ok(()),
            None => Err(SchedError::ProgramNotFound {
                variant: variant.to_owned(),
                program: command.program().to_owned(),
            }),
        }
    }

    fn run(&mut self, variant: &str, req: &RunRequest<'_>) -> Result<RunMeasurement, SchedError> {
        let spawn_err = |source: io::Error| SchedError::Spawn {
            variant: variant.to_owned(),
            source,
        };
        let counted = match (req.count, self.counter.as_mut()) {
            (true, Some(c)) => Some(
                c.start(req.command.argv())
                    .map_err(|e| spawn_err(io::Error::other(e.to_string())))?,
            ),
            _ => None,
        };
        let argv = counted.as_ref().map_or(req.command.argv(), |c| c.argv());
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .env(LAYOUT_ENV_VAR, "x".repeat(req.env_pad))
            .stdin(Stdio::null())
            .process_group(0);
        sys::die_with_parent(&mut cmd);
        if let Some(pin) = req.pin {
            sys::pin_child(&mut cmd, pin.cpus());
        }
        match req.output {
            OutputMode::Show | OutputMode::ShowOnStderr => {
                cmd.stderr(Stdio::inherit());
            }
            OutputMode::Discard => {
                cmd.stderr(fresh(&mut self.stderr_file).map_err(spawn_err)?);
            }
        }
        if req.capture_json {
            cmd.stdout(fresh(&mut self.stdout_file).map_err(spawn_err)?);
        } else if req.output == OutputMode::Show {
            cmd.stdout(Stdio::inherit());
        } else if req.output == OutputMode::ShowOnStderr {
            let fd = io::stderr()
                .as_fd()
                .try_clone_to_owned()
                .map_err(spawn_err)?;
            cmd.stdout(Stdio::from(fd));
        } else {
            cmd.stdout(Stdio::null());
        }

        let start = Instant::now();
        let child = cmd.spawn().map_err(spawn_err)?;
        let pid = child.id();
        req.stop.set_child(pid);
        let watchdog = req.timeout.map(|t| {
            let (tx, rx) = mpsc::channel::<()>();
            let handle = std::thread::spawn(move || match rx.recv_timeout(t) {
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    sys::kill_group(i32::try_from(pid).unwrap_or(0));
                    true
                }
                _ => false,
            });
            (tx, handle)
        });
        let waited = sys::wait_exited_nowait(pid);
        let wall = start.elapsed();
        req.stop.clear_child();
        // The child is exited but not reaped: joining the watchdog before reaping means it
        // can never kill a recycled pid.
        let timed_out = watchdog.is_some_and(|(tx, handle)| {
            drop(tx);
            handle.join().unwrap_or(false)
        });
        waited.map_err(spawn_err)?;
        let reaped = sys::reap(pid).map_err(spawn_err)?;
        drop(child);

        let termination = if req.stop.stop_requested().is_some() {
            Termination::Interrupted
        } else if timed_out {
            Termination::TimedOut
        } else if let Some(code) = reaped.exit_code() {
            Termination::Exited(code)
        } else {
            Termination::Signaled(reaped.signal().unwrap_or(0))
        };
        let stderr_tail = match (req.output, self.stderr_file.as_mut()) {
            (OutputMode::Discard, Some(f)) => read_tail(f, STDERR_TAIL_BYTES).map_err(spawn_err)?,
            _ => String::new(),
        };
        let last_json = match (req.capture_json, self.stdout_file.as_mut()) {
            (true, Some(f)) => last_json_line(f, req.output).map_err(spawn_err)?,
            _ => None,
        };
        let counts = counted.map(|c| c.finish().map_err(|e| e.to_string()));
        Ok(RunMeasurement {
            counts,
            wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
            user_ns: reaped.user_ns,
            sys_ns: reaped.sys_ns,
            max_rss_kib: reaped.max_rss_kib,
            termination,
            last_json,
            stderr_tail,
        })
    }

    fn allowed_cpus(&mut self, pin: Option<&CpuSet>) -> Option<CpuSet> {
        match pin {
            Some(p) => Some(p.clone()),
            None => sys::current_affinity()
                .ok()
                .and_then(|c| CpuSet::from_cpus(c).ok()),
        }
    }
}
