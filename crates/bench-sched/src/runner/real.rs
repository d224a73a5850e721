//! [`RealRunner`]: spawns the command with `std::process::Command` and measures it.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::{CommandSpec, OutputMode, RunMeasurement, RunRequest, Runner, Termination};
use crate::counter::Counting;
use crate::cpus::CpuSet;
use crate::error::SchedError;
use crate::layout::LAYOUT_ENV_VAR;
use crate::sys;

/// Bytes of stderr kept for failure messages.
pub const STDERR_TAIL_BYTES: u64 = 2048;

/// The longest stdout line read as a `json:` metric's object; a longer line is skipped
/// (it is not held in memory) as not being the metric's line.
pub const MAX_JSON_LINE_BYTES: usize = 1 << 20;

/// How long a stopped child (SIGSTOP, SIGTTOU) may stay stopped before abba kills it.
const STOPPED_GRACE: Duration = Duration::from_secs(1);

/// How often a quiet child is checked for being stopped.
const STOP_CHECK: Duration = Duration::from_millis(250);

/// Runs real child processes.
///
/// Each run: stdin is `/dev/null`; the child is started with `posix_spawn` (no `pre_exec`
/// hook unless `--pin` is given) in its own process group, which is killed when the run
/// ends, so background processes it started (`sleep 100 &`) do not outlive the run. The
/// group is recorded with the orphan guardian (a process forked once, in the
/// crate's `sys` module) that kills it if abba dies, even by SIGKILL; when the guardian cannot
/// start, the direct child gets `PR_SET_PDEATHSIG` instead. abba is also a child
/// subreaper (Linux), so a process that left the group (`setsid`) and lost its parent is
/// adopted by abba and ended, with its group, as the run ends (see `end_adopted`). Stderr (when not shown) and
/// stdout (when a `json:` metric reads it) come through pipes read while the child runs:
/// only the last [`STDERR_TAIL_BYTES`] of stderr and the last JSON object line of stdout
/// are kept, so memory and disk stay bounded however much the command prints. One `poll`
/// waits for the child's exit (a pidfd), its output and the timeout, which kills the
/// group on time; a child found stopped for one second (`STOPPED_GRACE`) is killed and reported as
/// [`Termination::Stopped`]. Wall time is measured with `Instant` from just before spawn
/// to the moment the child has exited; user/sys time and peak RSS come from `wait4`.
/// Nothing but that `wait4` reaps: the child is looked at with `waitid(WNOWAIT)`, always
/// with `WEXITED` (a child exiting between two looks is an exit, never ECHILD), and an
/// inherited SIGCHLD `SIG_IGN`/`SA_NOCLDWAIT` (auto-reaping) is reset before the first
/// run; should code sharing the process still reap the child (`waitpid(-1)`), the run
/// fails with an error saying so rather than a bare ECHILD.
#[derive(Debug, Default)]
pub struct RealRunner {
    counter: Option<Box<dyn Counting>>,
    /// Each program as `PATH` resolved it the first time ([`resolve_program`]): a run is
    /// spawned from that path, so it does not search `PATH` again (a failed `execve` per
    /// directory before the program's own, each copying the padded environment, inside
    /// the timed window). `None`: not found, spawned by name so the error is the system's.
    resolved: std::collections::HashMap<String, Option<PathBuf>>,
}

impl std::fmt::Debug for dyn Counting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Counting({})", self.source())
    }
}

impl RealRunner {
    /// A runner.
    pub fn new() -> Self {
        RealRunner::default()
    }

    /// Where `program` is, resolved once per runner.
    fn program_path(&mut self, program: &str) -> Option<PathBuf> {
        self.resolved
            .entry(program.to_owned())
            .or_insert_with(|| resolve_program(program))
            .clone()
    }

    /// Counts every run whose request asks for it ([`RunRequest::count`]) with `counter`:
    /// the command is spawned as the counter says (under valgrind, or as it is with the
    /// PMU's counters armed) and [`RunMeasurement::counts`] holds what it counted.
    pub fn with_counter(mut self, counter: Box<dyn Counting>) -> Self {
        self.counter = Some(counter);
        self
    }
}

/// The orphan guardian, started on the first run (`None`: it could not start): the write
/// end of its pipe (held open while abba lives), the groups it guards, its pid.
static GUARDIAN: OnceLock<Option<(File, sys::GuardedGroups, u32)>> = OnceLock::new();

/// The list of abba's children, when abba became a subreaper: where a command's process
/// that left its group (`setsid`) and lost its parent turns up.
static ADOPTED: OnceLock<Option<Mutex<sys::Adopted>>> = OnceLock::new();

fn guardian() -> Option<&'static (File, sys::GuardedGroups, u32)> {
    GUARDIAN
        .get_or_init(|| {
            // Once, before the first child: children abba cannot reap would lose every
            // run's status (a failure to check is left to show at the first run's wait4).
            let _ = sys::make_children_waitable();
            let guardian = sys::spawn_guardian().ok();
            // After the guardian's fork (it is abba's child, never adopted).
            ADOPTED.get_or_init(|| {
                sys::become_subreaper()
                    .then(sys::Adopted::open)
                    .flatten()
                    .map(Mutex::new)
            });
            guardian
        })
        .as_ref()
}

/// Ends every process a run left behind outside its group. abba, a subreaper, adopts
/// what a run started that left the group (`setsid`) and lost its parent. Such a child is
/// the run's when it started no earlier than the run's command (`run_start`, clock ticks
/// since boot, read from `/proc`), or when its environment carries [`LAYOUT_ENV_VAR`],
/// which every run's command and its descendants inherit (a process that outlived an
/// earlier run's end). A live one is killed with its process group and reaped; an exited
/// one (a zombie) is reaped, else they would pile up, one per run, until abba could start
/// no more processes. Their own children, adopted in turn, are looked for again (a few
/// rounds). The start time decides, not only the environment: a process in the middle of
/// `execve` or of dying shows none for a moment. Time: one `pread` when nothing was
/// adopted.
fn end_adopted(guardian_pid: Option<u32>, run_start: Option<u64>) {
    let Some(Ok(mut adopted)) = ADOPTED.get().and_then(Option::as_ref).map(Mutex::lock) else {
        return;
    };
    let since_run = |start: u64| run_start.is_some_and(|r| start >= r);
    for _ in 0..8 {
        let mut ended = false;
        for pid in adopted.pids() {
            if Some(pid) == guardian_pid {
                continue;
            }
            match sys::state_and_start(pid) {
                Some(('Z' | 'X', start)) if since_run(start) => sys::reap_exited(pid),
                Some((state, start))
                    if state != 'Z'
                        && state != 'X'
                        && (since_run(start) || sys::started_with_env(pid, LAYOUT_ENV_VAR)) =>
                {
                    sys::kill_and_reap(pid);
                }
                Some(_) | None => continue,
            }
            ended = true;
        }
        if !ended {
            return;
        }
    }
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

/// The last [`STDERR_TAIL_BYTES`] of a stream.
#[derive(Default)]
struct Tail(Vec<u8>);

impl Tail {
    fn feed(&mut self, chunk: &[u8]) {
        let keep = STDERR_TAIL_BYTES as usize;
        if chunk.len() >= keep {
            self.0.clear();
            self.0.extend_from_slice(&chunk[chunk.len() - keep..]);
            return;
        }
        self.0.extend_from_slice(chunk);
        if self.0.len() > 2 * keep {
            self.0.drain(..self.0.len() - keep);
        }
    }

    fn text(&self) -> String {
        let keep = STDERR_TAIL_BYTES as usize;
        String::from_utf8_lossy(&self.0[self.0.len().saturating_sub(keep)..]).into_owned()
    }
}

/// Splits stdout into lines as it arrives, echoing it when shown, and keeps the last line
/// that parses as a JSON object (lines over [`MAX_JSON_LINE_BYTES`] are skipped).
struct JsonLines {
    pending: Vec<u8>,
    too_long: bool,
    last: Option<String>,
    /// The first line that looked like an object (`{`) but did not parse, kept only
    /// while no object parsed: reading it again names what is wrong with it (a number out
    /// of range, a missing quote) instead of "no JSON object".
    malformed: Option<String>,
    echo: Option<OutputMode>,
}

impl JsonLines {
    fn new(output: OutputMode) -> Self {
        JsonLines {
            pending: Vec::new(),
            too_long: false,
            last: None,
            malformed: None,
            echo: output.shows().then_some(output),
        }
    }

    fn feed(&mut self, chunk: &[u8]) {
        match self.echo {
            // A closed stdout or stderr drops the echo, never the run.
            Some(OutputMode::ShowOnStderr) => {
                let _ = io::stderr().lock().write_all(chunk);
            }
            Some(_) => {
                let _ = io::stdout().lock().write_all(chunk);
            }
            None => {}
        }
        for piece in chunk.split_inclusive(|&b| b == b'\n') {
            let ends = piece.last() == Some(&b'\n');
            if !self.too_long && self.pending.len() + piece.len() > MAX_JSON_LINE_BYTES {
                self.too_long = true;
                self.pending = Vec::new();
            }
            if !self.too_long {
                self.pending.extend_from_slice(piece);
            }
            if ends {
                self.line_done();
            }
        }
    }

    fn line_done(&mut self) {
        let object = self
            .pending
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == b'{');
        if object && !self.too_long {
            let text = String::from_utf8_lossy(&self.pending);
            let t = text.trim();
            if t.starts_with('{')
                && matches!(
                    serde_json::from_str::<serde_json::Value>(t),
                    Ok(serde_json::Value::Object(_))
                )
            {
                self.last = Some(t.to_owned());
            } else if self.last.is_none() && self.malformed.is_none() {
                self.malformed = Some(t.to_owned());
            }
        }
        self.too_long = false;
        self.pending.clear();
    }

    fn finish(mut self) -> Option<String> {
        if !self.pending.is_empty() {
            self.line_done();
        }
        if self.echo.is_some() {
            let _ = io::stdout().lock().flush();
        }
        self.last.or(self.malformed)
    }
}

/// Reads what `pipe` holds now, at most `reads` buffers, into `sink` (a bound, so a
/// command that writes as fast as abba reads cannot keep abba from its timeout); `false`
/// once the pipe is at its end (or broken).
fn drain(pipe: &mut File, buf: &mut [u8], reads: usize, mut sink: impl FnMut(&[u8])) -> bool {
    for _ in 0..reads {
        match pipe.read(buf) {
            Ok(0) => return false,
            Ok(n) => sink(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

/// A pipe whose read end does not block, for a child's stdout or stderr.
fn child_pipe() -> io::Result<(File, Stdio)> {
    let (r, w) = sys::pipe()?;
    sys::set_nonblocking(r.as_raw_fd())?;
    Ok((File::from(r), Stdio::from(w)))
}

/// The child's captured output: the pipes still open and what they gave so far.
struct Pipes {
    /// Its stdout, when a `json:` metric reads it.
    out: Option<File>,
    /// Its stderr, when discarded (its tail names a failure).
    err: Option<File>,
    tail: Tail,
    json: JsonLines,
    buf: Vec<u8>,
}

impl Pipes {
    /// Reads what the pipes flagged in `ready` (bit 1: stdout, bit 2: stderr) hold, at
    /// most `reads` reads each; a pipe at its end of file is closed.
    fn drain(&mut self, ready: u32, reads: usize) {
        let Pipes {
            out,
            err,
            tail,
            json,
            buf,
        } = self;
        if ready & 0b010 != 0 {
            if let Some(p) = out.as_mut() {
                if !drain(p, buf, reads, |c| json.feed(c)) {
                    *out = None;
                }
            }
        }
        if ready & 0b100 != 0 {
            if let Some(p) = err.as_mut() {
                if !drain(p, buf, reads, |c| tail.feed(c)) {
                    *err = None;
                }
            }
        }
    }
}

/// The command of one run: `argv` with the layout padding, no stdin, its own process
/// group, tied to abba's life (`die_with_parent`, unless a guardian does it), pinned, and
/// its stdout and stderr shown, captured or discarded as `req` asks.
fn command(
    argv: &[String],
    program: Option<&Path>,
    req: &RunRequest<'_>,
    die_with_parent: bool,
) -> io::Result<(Command, Pipes)> {
    // From the resolved path, with the name as given as its argv[0] (what execvp passes).
    let mut cmd = match program {
        Some(path) => {
            let mut cmd = Command::new(path);
            cmd.arg0(&argv[0]);
            cmd
        }
        None => Command::new(&argv[0]),
    };
    cmd.args(&argv[1..])
        .env(LAYOUT_ENV_VAR, "x".repeat(req.env_pad))
        .stdin(Stdio::null())
        .process_group(0);
    if die_with_parent {
        sys::die_with_parent(&mut cmd);
    }
    if let Some(pin) = req.pin {
        sys::pin_child(&mut cmd, pin.cpus());
    }
    let mut err = None;
    match req.output {
        OutputMode::Show | OutputMode::ShowOnStderr => {
            cmd.stderr(Stdio::inherit());
        }
        OutputMode::Discard => {
            let (r, w) = child_pipe()?;
            err = Some(r);
            cmd.stderr(w);
        }
    }
    let mut out = None;
    if req.capture_json {
        let (r, w) = child_pipe()?;
        out = Some(r);
        cmd.stdout(w);
    } else if req.output == OutputMode::Show {
        cmd.stdout(Stdio::inherit());
    } else if req.output == OutputMode::ShowOnStderr {
        let fd = io::stderr().as_fd().try_clone_to_owned()?;
        cmd.stdout(Stdio::from(fd));
    } else {
        cmd.stdout(Stdio::null());
    }
    let pipes = Pipes {
        out,
        err,
        tail: Tail::default(),
        json: JsonLines::new(req.output),
        buf: vec![0u8; 64 * 1024],
    };
    Ok((cmd, pipes))
}

/// A running child being waited for: its timeout, and whether it was killed for it or
/// for staying stopped.
struct Watch {
    pid: u32,
    group: i32,
    /// Its pidfd (`None` on an old kernel: the exit is polled for).
    pidfd: Option<std::os::fd::OwnedFd>,
    deadline: Option<Instant>,
    timed_out: bool,
    /// The signal that stopped it for longer than [`STOPPED_GRACE`].
    stopped: Option<i32>,
}

impl Watch {
    /// Waits for the child to exit, reading its pipes meanwhile; kills its group at the
    /// deadline, or when it stays stopped (SIGSTOP, SIGTSTP, ...) beyond the grace.
    fn wait(&mut self, start: Instant, pipes: &mut Pipes) -> io::Result<()> {
        let (mut last_check, mut stopped_since) = (start, None::<Instant>);
        loop {
            let now = Instant::now();
            if self.deadline.is_some_and(|d| now >= d) && !self.timed_out && self.stopped.is_none()
            {
                sys::kill_group(self.group);
                self.timed_out = true;
            }
            // Without a pidfd (an old kernel) the exit is polled for every few ms.
            let mut wait = if self.pidfd.is_some() {
                STOP_CHECK
            } else {
                Duration::from_millis(2)
            };
            if let Some(d) = self.deadline.filter(|_| !self.timed_out) {
                wait = wait.min(d.saturating_duration_since(now));
            }
            let mut fds = [-1; 3];
            if let Some(p) = &self.pidfd {
                fds[0] = p.as_raw_fd();
            }
            if let Some(p) = &pipes.out {
                fds[1] = p.as_raw_fd();
            }
            if let Some(p) = &pipes.err {
                fds[2] = p.as_raw_fd();
            }
            let ms = i32::try_from(wait.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
            let ready = sys::poll_readable(&fds, ms)?;
            pipes.drain(ready, 1);
            let exited = if self.pidfd.is_some() {
                ready & 0b001 != 0
            } else {
                sys::child_state(self.pid)? == sys::ChildState::Exited
            };
            if exited {
                return Ok(());
            }
            if last_check.elapsed() >= STOP_CHECK && self.stopped.is_none() && !self.timed_out {
                last_check = Instant::now();
                // The child may have exited since the poll (its pipes close before its
                // pidfd is readable): that is its end, never an error.
                match sys::child_state(self.pid)? {
                    sys::ChildState::Exited => return Ok(()),
                    sys::ChildState::Stopped(signal) => {
                        if stopped_since.get_or_insert(last_check).elapsed() >= STOPPED_GRACE {
                            sys::kill_group(self.group);
                            self.stopped = Some(signal);
                        }
                    }
                    sys::ChildState::Running => stopped_since = None,
                }
            }
        }
    }
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
        let guardian = guardian();
        let program = self.program_path(&argv[0]);
        let (mut cmd, mut pipes) =
            command(argv, program.as_deref(), req, guardian.is_none()).map_err(spawn_err)?;

        let start = Instant::now();
        let child = cmd.spawn();
        // The write ends now belong to the child alone: their end of file is its (and its
        // group's) end.
        drop(cmd);
        let child = child.map_err(spawn_err)?;
        let pid = child.id();
        let group = i32::try_from(pid).unwrap_or(0);
        req.stop.set_child(pid);
        if let Some((_, g, _)) = guardian {
            g.record(group);
        }
        let mut watch = Watch {
            pid,
            group,
            pidfd: sys::pidfd_open(pid).ok(),
            deadline: req.timeout.map(|t| start + t),
            timed_out: false,
            stopped: None,
        };
        let waited = watch.wait(start, &mut pipes);
        let wall = start.elapsed();
        req.stop.clear_child();
        // The run is over: what it left running in its group goes with it. The child is
        // exited but not reaped, so its pid (the group id) cannot have been reused.
        sys::kill_group(group);
        if let Some((_, g, _)) = guardian {
            g.forget(group);
        }
        // What the pipes still hold (a process that escaped the group, `setsid`, may write
        // on: bounded).
        pipes.drain(0b110, 64);
        waited.map_err(spawn_err)?;
        // Read while the child is a zombie (its /proc entry stays until it is reaped).
        let run_start = sys::state_and_start(pid).map(|(_, start)| start);
        let reaped = sys::reap(pid).map_err(spawn_err)?;
        drop(child);
        // What left the group (`setsid`) and lost its parent was adopted by abba: it ends
        // with the run too.
        end_adopted(guardian.map(|(_, _, p)| *p), run_start);

        let termination = if req.stop.stop_requested().is_some() {
            Termination::Interrupted
        } else if watch.timed_out {
            Termination::TimedOut
        } else if let Some(signal) = watch.stopped {
            Termination::Stopped(signal)
        } else if let Some(code) = reaped.exit_code() {
            Termination::Exited(code)
        } else {
            Termination::Signaled(reaped.signal().unwrap_or(0))
        };
        let stderr_tail = if req.output == OutputMode::Discard {
            pipes.tail.text()
        } else {
            String::new()
        };
        let last_json = pipes.json.finish().filter(|_| req.capture_json);
        let counts = counted.map(|c| c.finish().map_err(|e| e.to_string()));
        Ok(RunMeasurement {
            counts,
            wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
            user_ns: reaped.user_ns,
            sys_ns: reaped.sys_ns,
            max_rss_kib: reaped.max_rss_kib,
            run_delay_ns: reaped.run_delay_ns,
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
