//! The few system calls std does not offer: `wait4` with resource usage, `waitid` without
//! reaping, CPU affinity, killing a process group, children that die with abba
//! (`PR_SET_PDEATHSIG`), an exclusive lock on the raw file (`flock`), and SIGINT/SIGTERM
//! handlers.
//!
//! This is the only module allowed to use `unsafe`; every block states why it is sound.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
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

fn timeval_ns(tv: libc::timeval) -> u64 {
    (tv.tv_sec.max(0) as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add((tv.tv_usec.max(0) as u64) * 1000)
}

/// Blocks until child `pid` has terminated, without reaping it (`waitid(WNOWAIT)`), so its
/// pid cannot be reused while a timeout or signal may still kill its group.
pub(crate) fn wait_exited_nowait(pid: u32) -> io::Result<()> {
    loop {
        // SAFETY: siginfo_t is a plain C struct for which all-zero bytes are valid.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid, writable siginfo_t; the call only writes into it.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Reaps child `pid` with `wait4`, returning its status and resource usage.
pub(crate) fn reap(pid: u32) -> io::Result<Reaped> {
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
            });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
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
