//! The few system calls std does not offer: `wait4` with resource usage, `waitid` without
//! reaping (exited or stopped), a pidfd and `poll` to wait for a child and its output at
//! once, CPU affinity, killing a process group, the orphan guardian (a forked process that
//! kills the recorded process groups when abba dies), children that die with abba
//! (`PR_SET_PDEATHSIG`, only when the guardian cannot start), an exclusive lock on the raw
//! file (`flock`), and SIGINT/SIGTERM/SIGHUP handlers.
//!
//! This is the only module allowed to use `unsafe`; every block states why it is sound.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};

/// Exit information and resource usage of a reaped child.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reaped {
    /// Raw wait status.
    pub status: i32,
    pub user_ns: u64,
    pub sys_ns: u64,
    pub max_rss_kib: u64,
    /// Time the child's main thread spent runnable but waiting for a CPU, ns (the second
    /// field of `/proc/PID/schedstat`, read from the zombie before it is reaped); `None`
    /// where the kernel does not keep it.
    pub run_delay_ns: Option<u64>,
}

impl Reaped {
    /// `Some(code)` when the child exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        libc::WIFEXITED(self.status).then(|| libc::WEXITSTATUS(self.status))
    }

    /// `Some(signal)` when the child was killed by a signal.
    pub fn signal(&self) -> Option<i32> {
        libc::WIFSIGNALED(self.status).then(|| libc::WTERMSIG(self.status))
    }
}

/// The time task `pid` spent runnable but waiting for a CPU, ns: the second field of
/// `/proc/PID/schedstat` (`sum_exec_runtime run_delay timeslices`). The main thread only;
/// an exited child that is not yet reaped still has it. `None` when the file is missing
/// (no `CONFIG_SCHED_INFO`) or does not parse.
pub(crate) fn run_delay_ns(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
    text.split_ascii_whitespace().nth(1)?.parse().ok()
}

fn timeval_ns(tv: libc::timeval) -> u64 {
    (tv.tv_sec.max(0) as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add((tv.tv_usec.max(0) as u64) * 1000)
}

/// What a child is doing now, as `waitid` sees it without waiting, reaping or consuming
/// the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChildState {
    /// Running (or not yet reported as anything else).
    Running,
    /// Terminated (a zombie, still to be reaped).
    Exited,
    /// Stopped by this signal (SIGSTOP, SIGTTOU, ...) or trapped.
    Stopped(i32),
}

/// The state of child `pid` (`waitid(WEXITED | WSTOPPED | WNOHANG | WNOWAIT)`).
///
/// `WEXITED` is always asked for, also when only a stop is of interest: Linux answers a
/// `waitid` without `WEXITED` on a child that has just become a zombie with ECHILD (the
/// zombie is not a candidate, so "no child"), which turned a command exiting between two
/// checks into a runner failure ("No child processes (os error 10)").
pub(crate) fn child_state(pid: u32) -> io::Result<ChildState> {
    Ok(match waitid_nohang(pid, libc::WEXITED | libc::WSTOPPED)? {
        None => ChildState::Running,
        Some((code, status)) if code == libc::CLD_STOPPED || code == libc::CLD_TRAPPED => {
            ChildState::Stopped(status)
        }
        Some(_) => ChildState::Exited,
    })
}

/// `waitid(P_PID, pid, flags | WNOHANG | WNOWAIT)`: `Some((si_code, si_status))` when the
/// child has a state change of that kind to report.
fn waitid_nohang(pid: u32, flags: libc::c_int) -> io::Result<Option<(i32, i32)>> {
    loop {
        // SAFETY: siginfo_t is a plain C struct for which all-zero bytes are valid.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid, writable siginfo_t; the call only writes into it.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                flags | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            // SAFETY: waitid filled `info` (or left it zeroed: si_pid 0 means nothing to
            // report); the accessors read the union fields waitid sets for SIGCHLD.
            let (child, status) = unsafe { (info.si_pid(), info.si_status()) };
            return Ok((child != 0).then_some((info.si_code, status)));
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// A pidfd of child `pid` (`pidfd_open`, Linux 5.3 and later): readable once the child has
/// terminated, so one `poll` waits for its exit and its output together.
pub(crate) fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel just returned this descriptor; nothing else owns it.
        Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

/// Waits up to `timeout_ms` for any of `fds` to be readable (or closed): bit `i` of the
/// result is set when `fds[i]` is. An interrupted wait (a signal) returns 0.
pub(crate) fn poll_readable(fds: &[RawFd], timeout_ms: i32) -> io::Result<u32> {
    let mut polled = [libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    }; 4];
    let n = fds.len().min(polled.len());
    for (p, &fd) in polled.iter_mut().zip(fds) {
        p.fd = fd;
        p.events = libc::POLLIN;
    }
    // SAFETY: `polled` holds `n` initialised pollfd entries and outlives the call.
    let rc = unsafe { libc::poll(polled.as_mut_ptr(), n as libc::nfds_t, timeout_ms) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(0)
        } else {
            Err(e)
        };
    }
    Ok(polled[..n]
        .iter()
        .enumerate()
        .filter(|(_, p)| p.revents != 0)
        .fold(0, |bits, (i, _)| bits | (1 << i)))
}

/// A pipe, both ends close-on-exec: `(read end, write end)`.
pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [-1 as libc::c_int; 2];
    // SAFETY: `fds` is a valid, writable array of two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 just returned these two descriptors; nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Makes reads of `fd` return `WouldBlock` instead of waiting.
pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller holds open; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The process groups the orphan guardian kills when abba dies: slots in a page shared
/// with it (`MAP_SHARED`), so recording a group is a store to memory, not a message that
/// wakes the guardian inside a run's timed window (a pipe message per run cost about 40 us
/// of a 0.7 ms command on 2 cores, `cargo bench -p bench-sched --bench overhead`).
#[derive(Debug)]
pub(crate) struct GuardedGroups {
    slots: &'static [AtomicI32; GUARDED_GROUPS],
}

/// How many groups the guardian can hold at once (abba runs one command at a time).
const GUARDED_GROUPS: usize = 64;

impl GuardedGroups {
    /// A zeroed page of slots, shared with every process forked after it.
    fn new() -> io::Result<GuardedGroups> {
        const SIZE: usize = std::mem::size_of::<[AtomicI32; GUARDED_GROUPS]>();
        // SAFETY: an anonymous shared mapping with no address hint; the result is checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the mapping is SIZE bytes, page-aligned, zero-filled by the kernel (a
        // valid array of AtomicI32 zeros), and never unmapped: it lives as long as abba.
        let slots = unsafe { &*ptr.cast::<[AtomicI32; GUARDED_GROUPS]>() };
        Ok(GuardedGroups { slots })
    }

    /// Records `group` (a positive process group id); dropped when every slot is taken.
    pub(crate) fn record(&self, group: i32) {
        let _ = self.slots.iter().any(|s| {
            s.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        });
    }

    /// Forgets `group`.
    pub(crate) fn forget(&self, group: i32) {
        for s in self.slots {
            let _ = s.compare_exchange(group, 0, Ordering::SeqCst, Ordering::SeqCst);
        }
    }
}

/// Starts the orphan guardian: a process forked from abba, in its own process group and
/// deaf to SIGINT/SIGTERM/SIGHUP, that waits on a pipe nothing is written to and, when the
/// pipe's write end closes (abba exited or was killed, even by SIGKILL), kills every group
/// recorded in the [`GuardedGroups`] it shares with abba, and exits. Returns the write end
/// (close-on-exec, so no command inherits it; abba keeps it open for its whole life), the
/// groups and the guardian's pid.
///
/// No exec: the child runs only async-signal-safe calls (`setpgid`, `signal`, `chdir`,
/// `dup2`, `close`, `read`, `kill`, `_exit`) and atomic loads, on memory on its own stack
/// or the shared page, so forking a threaded abba is sound.
pub(crate) fn spawn_guardian() -> io::Result<(File, GuardedGroups, u32)> {
    let groups = GuardedGroups::new()?;
    let (reader, writer) = pipe()?;
    let read_fd = reader.as_raw_fd();
    // SAFETY: see above: between fork and _exit the child calls only async-signal-safe
    // functions, allocates nothing and touches no lock; the parent only closes its copy of
    // the read end.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: async-signal-safe calls only (see above); never returns.
        unsafe { guardian_child(read_fd, groups.slots) }
    }
    drop(reader);
    Ok((File::from(writer), groups, pid as u32))
}

/// The guardian's life (in the forked child).
///
/// # Safety
/// Only to be called in the child of `fork`, with `read_fd` the pipe's read end.
unsafe fn guardian_child(read_fd: RawFd, slots: &[AtomicI32; GUARDED_GROUPS]) -> ! {
    // SAFETY (whole body): every call is async-signal-safe and gets valid arguments.
    unsafe {
        libc::setpgid(0, 0);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
        libc::chdir(c"/".as_ptr());
        if libc::dup2(read_fd, 0) < 0 {
            libc::_exit(1);
        }
        for fd in 1..1024 {
            libc::close(fd);
        }
        // Nothing is written: a read returns only at the end of file (abba is gone).
        let mut buf = [0u8; 16];
        loop {
            let n = libc::read(0, buf.as_mut_ptr().cast(), buf.len());
            if n == 0 {
                break;
            }
            if n < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                break;
            }
        }
        for slot in slots {
            let g = slot.load(Ordering::SeqCst);
            if g > 0 {
                libc::kill(-g, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }
}

/// Makes abba a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): a process a command
/// started that loses its parent (`setsid sleep 100 &` after `sh` exits) is adopted by
/// abba instead of init, so [`Adopted`] can find and end it. `false` when the kernel
/// refuses (not Linux, or before 3.4).
pub(crate) fn become_subreaper() -> bool {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer flag and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) == 0 }
}

/// The children the kernel gives abba's main thread, read from
/// `/proc/self/task/PID/children` (kept open: one `pread` a look). Orphans adopted by a
/// subreaper go to its first live thread, the main one.
#[derive(Debug)]
pub(crate) struct Adopted {
    children: File,
    buf: Vec<u8>,
}

impl Adopted {
    /// Opens the list (`None` without `CONFIG_PROC_CHILDREN`).
    pub(crate) fn open() -> Option<Adopted> {
        let pid = std::process::id();
        let children = File::open(format!("/proc/self/task/{pid}/children")).ok()?;
        Some(Adopted {
            children,
            buf: vec![0u8; 4096],
        })
    }

    /// The pids in the list now, however long it is. Time: one `pread` (more only for a
    /// list over 4 KiB).
    pub(crate) fn pids(&mut self) -> Vec<u32> {
        use std::os::unix::fs::FileExt;
        let n = loop {
            let n = self.children.read_at(&mut self.buf, 0).unwrap_or(0);
            if n < self.buf.len() {
                break n;
            }
            let longer = self.buf.len() * 2;
            self.buf.resize(longer, 0);
        };
        std::str::from_utf8(&self.buf[..n])
            .unwrap_or("")
            .split_ascii_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    }
}

/// The state letter and start time (clock ticks since boot) of `pid`, from
/// `/proc/PID/stat` (fields 3 and 22; the name in field 2 may hold spaces and parentheses).
/// `None` once it is gone.
pub(crate) fn state_and_start(pid: u32) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    // Fields 4 to 21 lie between the state and the start time.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

/// Whether the live process `pid` was started with `key=` in its environment (read from
/// `/proc/PID/environ`). `false` for a zombie, a process abba may not read, and, for a
/// moment, one in the middle of `execve` or of dying: the check is exact only for a
/// process at rest.
pub(crate) fn started_with_env(pid: u32, key: &str) -> bool {
    let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    env.split(|&b| b == 0)
        .any(|kv| kv.starts_with(key.as_bytes()) && kv.get(key.len()) == Some(&b'='))
}

/// Kills the adopted child `pid` and its process group (unless that is abba's own), then
/// reaps it.
pub(crate) fn kill_and_reap(pid: u32) {
    let Ok(p) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: getpgid, getpgrp, kill and waitpid have no memory-safety preconditions
    // beyond a valid status pointer.
    unsafe {
        let group = libc::getpgid(p);
        if group > 0 && group != libc::getpgrp() {
            libc::kill(-group, libc::SIGKILL);
        }
        libc::kill(p, libc::SIGKILL);
        let mut status = 0;
        while libc::waitpid(p, &mut status, 0) < 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
        {}
    }
}

/// Reaps the exited child `pid` (a zombie) without waiting.
pub(crate) fn reap_exited(pid: u32) {
    let Ok(p) = libc::pid_t::try_from(pid) else {
        return;
    };
    let mut status = 0;
    // SAFETY: waitpid has no memory-safety preconditions beyond a valid status pointer.
    unsafe {
        libc::waitpid(p, &mut status, libc::WNOHANG);
    }
}

/// Reaps child `pid` with `wait4`, returning its status and resource usage.
pub(crate) fn reap(pid: u32) -> io::Result<Reaped> {
    let run_delay_ns = run_delay_ns(pid);
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: rusage is a plain C struct for which all-zero bytes are valid.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are valid and writable for the duration of the call.
        let rc = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if rc == pid as libc::pid_t {
            return Ok(Reaped {
                status,
                user_ns: timeval_ns(usage.ru_utime),
                sys_ns: timeval_ns(usage.ru_stime),
                // Linux reports ru_maxrss in KiB.
                max_rss_kib: usage.ru_maxrss.max(0) as u64,
                run_delay_ns,
            });
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::ECHILD) {
            // abba waits for its own child by pid alone and never ignores SIGCHLD
            // (`make_children_waitable`), so only code sharing this process that reaps
            // what it did not start (`waitpid(-1)`) can take the status: say so.
            return Err(io::Error::new(
                e.kind(),
                format!(
                    "{e}: the run's exit status was taken by another waiter in this process \
                     (SIGCHLD ignored or a waitpid(-1) elsewhere), so abba cannot measure it"
                ),
            ));
        }
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Makes sure children become zombies abba can reap: a SIGCHLD disposition of `SIG_IGN`
/// or the `SA_NOCLDWAIT` flag is inherited through `exec` from whoever started abba (a
/// daemon, a CI agent, `signal.signal(SIGCHLD, SIG_IGN)` then `exec`), and with it the
/// kernel reaps every child itself: `wait4` then finds no child (ECHILD) and the exit
/// status and resource usage of the run are lost. Such a disposition is reset to the
/// default (SIGCHLD is then ignored without auto-reaping); a handler someone installed
/// is left as it is.
pub(crate) fn make_children_waitable() -> io::Result<()> {
    // SAFETY: sigaction is a plain C struct; zeroed is a valid value to be filled in.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a null new action only reads the current one into `old`.
    if unsafe { libc::sigaction(libc::SIGCHLD, std::ptr::null(), &mut old) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if old.sa_sigaction != libc::SIG_IGN && old.sa_flags & libc::SA_NOCLDWAIT == 0 {
        return Ok(());
    }
    // SAFETY: zeroed is SIG_DFL, no flags, and the mask is emptied below.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = libc::SIG_DFL;
    if old.sa_sigaction != libc::SIG_IGN {
        // Keep the handler, drop only the auto-reaping flag.
        action.sa_sigaction = old.sa_sigaction;
        action.sa_flags = old.sa_flags & !libc::SA_NOCLDWAIT;
        action.sa_mask = old.sa_mask;
    } else {
        // SAFETY: `action.sa_mask` is a valid sigset_t.
        unsafe { libc::sigemptyset(&mut action.sa_mask) };
    }
    // SAFETY: `action` is fully initialised; SIG_DFL or the handler already installed.
    if unsafe { libc::sigaction(libc::SIGCHLD, &action, std::ptr::null_mut()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sends SIGKILL to every process of group `pgid` (errors such as "no such group" ignored).
/// Async-signal-safe.
pub(crate) fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: kill has no memory-safety preconditions; a negative pid names a group.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Arranges for the child to restrict itself to `cpus` right after fork.
pub(crate) fn pin_child(cmd: &mut Command, cpus: &[usize]) {
    // SAFETY: cpu_set_t is a plain bit array; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        // SAFETY: callers pass CPUs <= MAX_CPU (1023) < CPU_SETSIZE, checked by CpuSet.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: the closure only calls sched_setaffinity (async-signal-safe) on a set built
    // before fork and copied into the closure: no allocation, no locks in the child.
    unsafe {
        cmd.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Arranges for the child to be killed (SIGKILL) when abba dies, even by SIGKILL, so no
/// benchmarked command outlives the experiment that measures it.
///
/// Linux delivers the signal when the *thread* that spawned the child exits, not only the
/// process: abba spawns every run from the thread that runs the experiment loop (the main
/// thread of the binary), which lives as long as abba does. Only the direct child is
/// covered; what it starts in its own process group is killed by abba's group kill on a
/// timeout or signal, not by this. Elsewhere than Linux this does nothing.
pub(crate) fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: the closure calls only prctl and getppid (both async-signal-safe) and
        // builds its errors from raw OS codes, which allocates nothing; it captures one
        // integer by copy. No locks, no allocation in the forked child.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // abba died between fork and prctl: the signal will never come, so do not
                // start the command at all.
                if libc::getppid() != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// Takes an exclusive advisory lock on `file` without waiting (`flock(LOCK_EX | LOCK_NB)`).
/// The lock lasts until every descriptor of the open file is closed. Returns `Ok(false)`
/// when another open file (another abba) holds it.
pub(crate) fn try_lock_exclusive(file: &File) -> io::Result<bool> {
    loop {
        // SAFETY: flock has no memory-safety preconditions; the descriptor is valid for as
        // long as `file` is borrowed.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EWOULDBLOCK) => return Ok(false),
            Some(libc::EINTR) => continue,
            _ => return Err(e),
        }
    }
}

/// Whether every process that took the `flock` held on `file` is gone or dying (killed,
/// exiting, a zombie), read from `/proc/locks` and each holder's `/proc/PID/stat` and
/// `status`: its lock is then stale and ends within moments. A SIGKILLed abba keeps its
/// descriptors until the kernel has torn it down (after `kill` returns, and after its
/// memory is unmapped), and a child it forked keeps a copy until it `exec`s; a resume in
/// that window must wait, not call the file taken. `Some(false)` when a holder lives,
/// `None` when it cannot be told (no `/proc`, or no holder listed: the caller tries the lock again).
/// Time: O(size of `/proc/locks`).
pub(crate) fn lock_holders_dying(file: &File) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let dev = meta.dev();
    // glibc's `major`/`minor` of a `dev_t`; /proc/locks prints them in hex.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let id = format!("{major:02x}:{minor:02x}:{}", meta.ino());
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    // `1: FLOCK  ADVISORY  WRITE 4242 fd:01:123456 0 EOF` (a waiter's line has `->`).
    let holders: Vec<u32> = locks
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.get(1) == Some(&"FLOCK") && f.get(5) == Some(&id.as_str()))
        .filter_map(|f| f.get(4)?.parse().ok())
        .collect();
    if holders.is_empty() {
        return None;
    }
    Some(holders.into_iter().all(process_dying))
}

/// Whether process `pid` is gone, a zombie, exiting (`PF_EXITING`) or has a SIGKILL
/// pending.
fn process_dying(pid: u32) -> bool {
    const PF_EXITING: u64 = 0x4;
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return true;
    };
    // After the command name's closing parenthesis: state, then 5 fields, then flags.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return false;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    if matches!(fields.first(), Some(&("Z" | "X" | "x"))) {
        return true;
    }
    if fields
        .get(6)
        .and_then(|f| f.parse::<u64>().ok())
        .is_some_and(|flags| flags & PF_EXITING != 0)
    {
        return true;
    }
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return true;
    };
    let sigkill = 1u64 << (libc::SIGKILL - 1);
    status.lines().any(|l| {
        let pending = l
            .strip_prefix("SigPnd:")
            .or_else(|| l.strip_prefix("ShdPnd:"));
        pending
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            .is_some_and(|mask| mask & sigkill != 0)
    })
}

/// Whether another open file (another abba writing it) holds a lock on `file`: a shared
/// lock is tried without waiting and released at once.
pub(crate) fn is_locked(file: &File) -> io::Result<bool> {
    loop {
        // SAFETY: flock has no memory-safety preconditions; the descriptor is valid for as
        // long as `file` is borrowed.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) };
        if rc == 0 {
            // SAFETY: as above.
            unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) };
            return Ok(false);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EWOULDBLOCK) => return Ok(true),
            Some(libc::EINTR) => continue,
            _ => return Err(e),
        }
    }
}

/// The CPUs the calling thread may run on.
pub(crate) fn current_affinity() -> io::Result<Vec<usize>> {
    // SAFETY: zeroed cpu_set_t is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is valid and writable, its size is passed exactly.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `set` is initialised and the index is below CPU_SETSIZE.
    Ok((0..crate::cpus::MAX_CPU + 1)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// Signal number received (0 = none) and the process group of the running child (0 =
/// none), shared with the signal handler; statics because a handler can reach nothing else.
pub(crate) static SIGNAL_RECEIVED: AtomicI32 = AtomicI32::new(0);
pub(crate) static SIGNAL_CHILD_PGID: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    // Only atomics and kill(2): both async-signal-safe.
    SIGNAL_RECEIVED.store(signal, Ordering::SeqCst);
    kill_group(SIGNAL_CHILD_PGID.load(Ordering::SeqCst));
}

/// Installs `on_signal` for SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH
/// session stops the experiment as Ctrl-C does; no SA_RESTART, so blocking waits return
/// EINTR and are retried by the loops above).
pub(crate) fn install_handlers() -> io::Result<()> {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: sigaction is a plain C struct; zeroed means no flags and an empty mask.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: `action.sa_mask` is a valid sigset_t.
        unsafe { libc::sigemptyset(&mut action.sa_mask) };
        // SAFETY: the handler only touches atomics and calls kill, which is async-signal-safe.
        if unsafe { libc::sigaction(sig, &action, std::ptr::null_mut()) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
// The children are reaped by `reap` (wait4 by pid), which is what is tested, not `wait()`.
#[allow(clippy::zombie_processes)]
mod tests {
    use super::*;

    /// Waits (bounded) until `pid` has terminated, without reaping it, as the runner's
    /// `poll` on a pidfd does.
    fn until_zombie(pid: u32) {
        let fd = pidfd_open(pid).unwrap();
        assert_eq!(poll_readable(&[fd.as_raw_fd()], 10_000).unwrap(), 1);
    }

    #[test]
    fn a_child_that_exited_since_the_last_look_is_exited_not_an_error() {
        // The race behind "cannot run variant B: No child processes (os error 10)": the
        // command exits between the runner's poll and its stop check. Made deterministic
        // here: the check runs on a zombie (waitid without WEXITED gave ECHILD).
        let child = Command::new("sh").args(["-c", "exit 7"]).spawn().unwrap();
        let pid = child.id();
        until_zombie(pid);
        assert_eq!(child_state(pid).unwrap(), ChildState::Exited);
        // Looking did not reap it: its status is still there, once.
        assert_eq!(child_state(pid).unwrap(), ChildState::Exited);
        assert_eq!(reap(pid).unwrap().exit_code(), Some(7));
    }

    #[test]
    fn a_running_then_stopped_child_is_seen_as_such() {
        let child = Command::new("sleep").arg("5").spawn().unwrap();
        let pid = child.id();
        assert_eq!(child_state(pid).unwrap(), ChildState::Running);
        // SAFETY: kill has no memory-safety preconditions; `pid` is our unreaped child.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGSTOP) };
        let t = std::time::Instant::now();
        while child_state(pid).unwrap() == ChildState::Running {
            assert!(t.elapsed().as_secs() < 10, "the stop was never reported");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(
            child_state(pid).unwrap(),
            ChildState::Stopped(libc::SIGSTOP)
        );
        // SAFETY: as above.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        until_zombie(pid);
        assert_eq!(child_state(pid).unwrap(), ChildState::Exited);
        assert_eq!(reap(pid).unwrap().signal(), Some(libc::SIGKILL));
    }
}
