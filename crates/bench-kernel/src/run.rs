//! Running the chains: duration-bounded or for a fixed step count, on one or more
//! threads.

use std::time::{Duration, Instant};

use crate::chains::{Lanes, fold_checksum};
use crate::config::{KernelConfig, KernelError};
use crate::op::Op;

/// Steps per chain of the first chunk of a duration-bounded run, timed to size the rest.
const CALIBRATION_STEPS: u64 = 1 << 12;
/// The wall time one chunk aims at: the clock is read once per chunk, so its cost
/// (tens of nanoseconds) stays near 0.03% of the work.
const TARGET_CHUNK: Duration = Duration::from_micros(100);
/// Bounds on the chunk size, in steps per chain.
const MIN_CHUNK_STEPS: u64 = 1 << 10;
const MAX_CHUNK_STEPS: u64 = 1 << 24;
/// Chunk size of fixed-count runs (no clock reads happen inside them).
const FIXED_CHUNK_STEPS: u64 = 1 << 20;

/// A validated kernel, ready to run any number of times.
///
/// # Examples
///
/// ```
/// use bench_kernel::{Kernel, KernelConfig, Op};
///
/// let config = KernelConfig { op: Op::Add, chains: 2, ..KernelConfig::default() };
/// let kernel = Kernel::new(config)?;
/// let result = kernel.run_steps(1000)?;
/// assert_eq!(result.ops, 2000);
/// # Ok::<(), bench_kernel::KernelError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kernel {
    config: KernelConfig,
}

/// What one thread did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThreadResult {
    /// Steps taken by each of this thread's chains.
    pub steps: u64,
    /// Operations: `steps × chains`.
    pub ops: u64,
    /// This thread's own running time, in seconds.
    pub elapsed_s: f64,
    /// Checksum of this thread's final chain states, folded in chain order.
    pub checksum: u64,
}

/// The outcome of a kernel run.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelResult {
    /// The operation run.
    pub op: Op,
    /// Chains per thread.
    pub chains: usize,
    /// Threads.
    pub threads: usize,
    /// The requested duration in seconds for a duration-bounded run ([`Kernel::run`]);
    /// `None` for a fixed-count run ([`Kernel::run_steps`]).
    pub duration_s: Option<f64>,
    /// Total operations over all chains and threads (the sum of the per-thread `ops`).
    pub ops: u64,
    /// Wall time from the first thread's start to the last thread's end, in seconds.
    pub elapsed_s: f64,
    /// `ops / elapsed_s`; `None` if the elapsed time was too short to measure (zero).
    pub ops_per_sec: Option<f64>,
    /// Checksum of all final chain states: the per-thread checksums folded in thread
    /// order. Depends only on op, chains, threads and each thread's step count.
    pub checksum: u64,
    /// Per-thread details, in thread order.
    pub per_thread: Vec<ThreadResult>,
}

impl std::fmt::Display for KernelResult {
    /// One line: `int chains=2 threads=1: 1329.9M ops/s (399.0M ops in 0.300 s)` (`n/a`
    /// for a rate too fast to measure).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rate = self
            .ops_per_sec
            .map_or_else(|| "n/a".to_owned(), |v| format!("{:.1}M", v / 1e6));
        #[allow(clippy::cast_precision_loss)]
        let ops = self.ops as f64 / 1e6;
        write!(
            f,
            "{} chains={} threads={}: {rate} ops/s ({ops:.1}M ops in {:.3} s)",
            self.op, self.chains, self.threads, self.elapsed_s
        )
    }
}

/// How a worker decides how many steps to run.
#[derive(Debug, Clone, Copy)]
enum Budget {
    /// Run for this long from the worker's own start (so no worker's elapsed time can fall
    /// short of the duration, however late its thread started).
    For(Duration),
    Steps(u64),
}

/// One worker's record: its chains' final state and its own start and end times.
struct Worker {
    lanes: Lanes,
    start: Instant,
    end: Instant,
}

impl Kernel {
    /// Validates `config`.
    ///
    /// # Errors
    ///
    /// [`KernelError`] naming the first field out of range (see
    /// [`KernelConfig::validate`]).
    pub fn new(config: KernelConfig) -> Result<Self, KernelError> {
        config.validate()?;
        Ok(Kernel { config })
    }

    /// The validated configuration.
    pub fn config(&self) -> &KernelConfig {
        &self.config
    }

    /// Runs every thread's chains until the configured duration has passed.
    ///
    /// Work proceeds in chunks sized (from a first timed chunk of 4096 steps) to about
    /// 100 µs; the clock is read only between chunks, so the run overshoots the deadline
    /// by at most one chunk and the result counts exactly the steps done. Thread 0 runs
    /// on the calling thread, the others on scoped threads sharing one deadline.
    ///
    /// Time: the configured duration (plus at most one chunk and the thread start-up).
    pub fn run(&self) -> KernelResult {
        self.run_with(
            Budget::For(self.config.duration),
            Some(self.config.duration.as_secs_f64()),
        )
    }

    /// Runs exactly `steps` steps on every chain of every thread, ignoring the duration.
    /// The checksum depends only on the configuration and `steps`, never on timing.
    ///
    /// Time: O(`steps × chains × threads`) operations.
    ///
    /// # Errors
    ///
    /// [`KernelError::TooManySteps`] if `steps × chains × threads` overflows a `u64`.
    pub fn run_steps(&self, steps: u64) -> Result<KernelResult, KernelError> {
        steps
            .checked_mul(self.config.chains as u64)
            .and_then(|ops| ops.checked_mul(self.config.threads as u64))
            .ok_or(KernelError::TooManySteps { steps })?;
        Ok(self.run_with(Budget::Steps(steps), None))
    }

    fn run_with(&self, budget: Budget, duration_s: Option<f64>) -> KernelResult {
        let KernelConfig {
            op,
            chains,
            threads,
            ..
        } = self.config;
        let workers: Vec<Worker> = std::thread::scope(|scope| {
            let handles: Vec<_> = (1..threads)
                .map(|t| scope.spawn(move || work(op, chains, t, budget)))
                .collect();
            let mut workers = vec![work(op, chains, 0, budget)];
            // A worker cannot panic (it only runs arithmetic and reads the clock), so
            // `join` fails only if the thread was killed; its result is then omitted.
            workers.extend(handles.into_iter().filter_map(|h| h.join().ok()));
            workers
        });
        let per_thread: Vec<ThreadResult> = workers
            .iter()
            .map(|w| {
                let steps = w.lanes.steps();
                ThreadResult {
                    steps,
                    ops: steps.saturating_mul(chains as u64),
                    elapsed_s: (w.end - w.start).as_secs_f64(),
                    checksum: w.lanes.checksum(),
                }
            })
            .collect();
        let first_start = workers.iter().map(|w| w.start).min();
        let last_end = workers.iter().map(|w| w.end).max();
        let elapsed_s = match (first_start, last_end) {
            (Some(s), Some(e)) => e.saturating_duration_since(s).as_secs_f64(),
            _ => 0.0,
        };
        let ops = per_thread
            .iter()
            .fold(0u64, |acc, t| acc.saturating_add(t.ops));
        KernelResult {
            op,
            chains,
            threads,
            duration_s,
            ops,
            elapsed_s,
            ops_per_sec: (elapsed_s > 0.0).then(|| ops as f64 / elapsed_s),
            checksum: fold_checksum(per_thread.iter().map(|t| t.checksum)),
            per_thread,
        }
    }
}

/// One thread's work: fresh chains for `thread`, advanced within `budget`.
fn work(op: Op, chains: usize, thread: usize, budget: Budget) -> Worker {
    let mut lanes = Lanes::new(op, chains, thread);
    let start = Instant::now();
    match budget {
        Budget::Steps(mut left) => {
            while left > 0 {
                let n = left.min(FIXED_CHUNK_STEPS);
                lanes.advance(n);
                left -= n;
            }
        }
        Budget::For(duration) => {
            let deadline = start + duration;
            lanes.advance(CALIBRATION_STEPS);
            let first = start.elapsed();
            let chunk = chunk_steps(first);
            while Instant::now() < deadline {
                lanes.advance(chunk);
            }
        }
    }
    Worker {
        lanes,
        start,
        end: Instant::now(),
    }
}

/// Steps per chunk so that a chunk lasts about [`TARGET_CHUNK`], given that
/// [`CALIBRATION_STEPS`] took `calibration`.
fn chunk_steps(calibration: Duration) -> u64 {
    let ns = calibration.as_nanos().max(1);
    let steps = u128::from(CALIBRATION_STEPS) * TARGET_CHUNK.as_nanos() / ns;
    u64::try_from(steps)
        .unwrap_or(MAX_CHUNK_STEPS)
        .clamp(MIN_CHUNK_STEPS, MAX_CHUNK_STEPS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(op: Op, chains: usize, threads: usize, duration_s: f64) -> Kernel {
        Kernel::new(KernelConfig {
            op,
            chains,
            threads,
            duration: Duration::from_secs_f64(duration_s),
        })
        .unwrap()
    }

    #[test]
    fn new_rejects_invalid_configs() {
        let bad = KernelConfig {
            chains: 17,
            ..KernelConfig::default()
        };
        assert_eq!(Kernel::new(bad), Err(KernelError::Chains { got: 17 }));
    }

    #[test]
    fn fixed_run_counts_ops_per_thread() {
        let r = kernel(Op::Int, 3, 4, 0.3).run_steps(500).unwrap();
        assert_eq!(r.per_thread.len(), 4);
        for t in &r.per_thread {
            assert_eq!((t.steps, t.ops), (500, 1500));
        }
        assert_eq!(r.ops, 4 * 1500);
        assert_eq!((r.op, r.chains, r.threads), (Op::Int, 3, 4));
    }

    #[test]
    fn fixed_run_is_deterministic() {
        let k = kernel(Op::Add, 5, 3, 0.3);
        let a = k.run_steps(4321).unwrap();
        let b = k.run_steps(4321).unwrap();
        assert_eq!(a.checksum, b.checksum);
        let thread_sums: Vec<u64> = a.per_thread.iter().map(|t| t.checksum).collect();
        assert_eq!(a.checksum, fold_checksum(thread_sums));
    }

    #[test]
    fn duration_run_aggregates_threads() {
        for threads in [1, 2, 3] {
            let r = kernel(Op::Fp, 2, threads, 0.02).run();
            assert_eq!(r.per_thread.len(), threads);
            assert_eq!(r.ops, r.per_thread.iter().map(|t| t.ops).sum::<u64>());
            for t in &r.per_thread {
                assert_eq!(t.ops, t.steps * 2);
                assert!(t.steps >= CALIBRATION_STEPS);
            }
            assert_eq!(r.duration_s, Some(0.02));
            let rate = r.ops_per_sec.unwrap();
            assert!(rate.is_finite() && rate > 0.0);
            // The checksum is a function of the step counts alone.
            let steps = r.per_thread[0].steps;
            if r.per_thread.iter().all(|t| t.steps == steps) {
                let again = kernel(Op::Fp, 2, threads, 0.02).run_steps(steps).unwrap();
                assert_eq!(again.checksum, r.checksum);
            }
        }
    }

    #[test]
    fn duration_run_reaches_the_deadline() {
        // Not a speed assertion: the run may not stop before its duration.
        let r = kernel(Op::Int, 1, 1, 0.01).run();
        assert!(r.elapsed_s >= 0.01, "{}", r.elapsed_s);
    }

    #[test]
    fn too_many_steps_is_an_error() {
        let k = kernel(Op::Int, 16, 2, 0.3);
        assert_eq!(
            k.run_steps(u64::MAX / 8),
            Err(KernelError::TooManySteps {
                steps: u64::MAX / 8
            })
        );
    }

    #[test]
    fn chunk_size_is_clamped() {
        assert_eq!(chunk_steps(Duration::ZERO), MAX_CHUNK_STEPS);
        assert_eq!(chunk_steps(Duration::from_secs(1)), MIN_CHUNK_STEPS);
        // 4096 steps in 10 µs: 100 µs is 40960 steps.
        assert_eq!(chunk_steps(Duration::from_micros(10)), 40960);
    }

    #[test]
    fn the_result_line_gives_rate_ops_and_time() {
        let r = |ops_per_sec| KernelResult {
            op: Op::Int,
            chains: 2,
            threads: 1,
            duration_s: Some(0.3),
            ops: 399_000_000,
            elapsed_s: 0.3,
            ops_per_sec,
            checksum: 7,
            per_thread: Vec::new(),
        };
        assert_eq!(
            r(Some(1_329_900_000.0)).to_string(),
            "int chains=2 threads=1: 1329.9M ops/s (399.0M ops in 0.300 s)"
        );
        assert_eq!(
            r(None).to_string(),
            "int chains=2 threads=1: n/a ops/s (399.0M ops in 0.300 s)"
        );
    }
}
