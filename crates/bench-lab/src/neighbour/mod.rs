//! `cargo xtask neighbour`: a seeded noisy neighbour, the load `calibrate --noise`
//! measures under.
//!
//! For as long as it runs it walks the phases of [`schedule::Schedule`] (1-4 s each, 0-3
//! busy threads, short bursts up to 3 threads) with [`MAX_THREADS`] worker threads that
//! either spin on integer arithmetic or sleep, as the current phase says. It prints its
//! seed and a summary of the schedule when it starts, and stops when `--duration` has
//! passed, on SIGTERM or SIGKILL (the default actions), or within about 50 ms of its parent
//! dying (it watches its parent process id).

pub mod schedule;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use schedule::{MAX_THREADS, Schedule, summarize};

/// How often the controller looks at its parent while it waits.
const POLL: Duration = Duration::from_millis(50);
/// How long an idle worker sleeps before it looks at the load again.
const IDLE: Duration = Duration::from_millis(2);

/// Flags of `neighbour`.
#[derive(clap::Args, Debug)]
pub struct NeighbourArgs {
    /// Seed of the schedule (phase lengths, busy threads, bursts).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How long to run: seconds, or a number with `s`, `m` or `h` (`90s`, `10m`, `2h`).
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    pub duration: Duration,
}

/// Parses `90`, `90s`, `1.5m` or `2h` into a duration of at least 1 ms.
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let (number, scale) = match t.char_indices().last() {
        Some((i, 's')) => (&t[..i], 1.0),
        Some((i, 'm')) => (&t[..i], 60.0),
        Some((i, 'h')) => (&t[..i], 3600.0),
        _ => (t, 1.0),
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v * scale >= 0.001 && v * scale <= 1e7 => {
            Ok(Duration::from_secs_f64(v * scale))
        }
        _ => Err(format!(
            "`{text}` is not a duration (seconds, or a number with s, m or h: 90s, 10m)"
        )),
    }
}

/// Runs the neighbour until `--duration` has passed or the parent process is gone.
///
/// # Errors
/// When a worker thread cannot be started.
pub fn run(args: &NeighbourArgs) -> Result<()> {
    let parent = std::os::unix::process::parent_id();
    let duration_ms = u64::try_from(args.duration.as_millis()).unwrap_or(u64::MAX);
    eprintln!(
        "neighbour: seed {}, {:.0} s: {}",
        args.seed,
        args.duration.as_secs_f64(),
        summarize(args.seed, duration_ms)
    );
    let level = Arc::new(AtomicU8::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for index in 0..MAX_THREADS {
        let (level, stop) = (Arc::clone(&level), Arc::clone(&stop));
        let handle = std::thread::Builder::new()
            .name(format!("busy-{index}"))
            .spawn(move || worker(index, &level, &stop))
            .context("starting a busy thread")?;
        workers.push(handle);
    }
    let start = Instant::now();
    let end = start + args.duration;
    let parent_gone = || std::os::unix::process::parent_id() != parent;
    'phases: for phase in Schedule::new(args.seed) {
        for seg in phase.segments() {
            level.store(seg.threads, Ordering::Relaxed);
            let until = (start + Duration::from_millis(phase.start_ms + seg.to_ms)).min(end);
            if !wait_until(until, parent_gone) || until >= end {
                break 'phases;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}

/// Sleeps until `until` in steps of [`POLL`]; `false` as soon as `gone()` says to stop.
fn wait_until(until: Instant, gone: impl Fn() -> bool) -> bool {
    loop {
        if gone() {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(POLL));
    }
}

/// Worker `index`: busy while `index < level`, asleep otherwise, until `stop`.
fn worker(index: u8, level: &AtomicU8, stop: &AtomicBool) {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64 ^ u64::from(index);
    while !stop.load(Ordering::Relaxed) {
        if index < level.load(Ordering::Relaxed) {
            state = spin(state);
        } else {
            std::thread::sleep(IDLE);
        }
    }
    std::hint::black_box(state);
}

/// About a tenth of a millisecond of integer work (a 64-bit LCG with a xorshift).
fn spin(mut x: u64) -> u64 {
    for _ in 0..20_000 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x ^= x >> 29;
    }
    std::hint::black_box(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration::from_secs(5400)));
        for bad in ["", "m", "-1s", "0", "tenm", "1e9h", "nan"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("is not a duration"), "{bad}: {err}");
        }
    }

    #[test]
    fn waiting_stops_when_the_parent_is_gone() {
        let far = Instant::now() + Duration::from_secs(3600);
        assert!(!wait_until(far, || true));
        assert!(wait_until(Instant::now(), || false));
    }

    #[test]
    fn workers_stop_on_the_flag() {
        let (level, stop) = (AtomicU8::new(3), AtomicBool::new(true));
        // With stop already set the worker returns without spinning forever.
        worker(0, &level, &stop);
        assert_ne!(spin(1), spin(2));
    }
}
