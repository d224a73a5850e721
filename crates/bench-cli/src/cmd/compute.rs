//! `abba compute`: the dependency-chain kernel as a command (the appendix's
//! `cyclelab compute`).
//!
//! Turns the flags into a [`KernelConfig`], runs [`Kernel::run`] and prints one line, or
//! one JSON object with `--json`. In that object `checksum` is an unsigned 64-bit integer
//! written exactly (serde_json prints `u64` without going through `f64`), so it may exceed
//! 2^53: readers that parse numbers as doubles will round it.

use std::fmt;
use std::io::Write;

use bench_kernel::{Kernel, KernelConfig, KernelError, KernelResult, duration_from_secs};

pub use crate::args::compute::ComputeArgs;

/// Why `abba compute` failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ComputeError {
    /// A flag out of range (bad usage: exit code 2).
    Invalid(KernelError),
    /// Writing the result to stdout failed.
    Write(std::io::Error),
}

impl fmt::Display for ComputeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComputeError::Invalid(e) => write!(f, "{e}"),
            ComputeError::Write(e) => write!(f, "cannot write the result: {e}"),
        }
    }
}

impl std::error::Error for ComputeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ComputeError::Invalid(e) => Some(e),
            ComputeError::Write(e) => Some(e),
        }
    }
}

impl ComputeArgs {
    /// The kernel configuration these flags describe (the duration checked, the rest
    /// checked by [`Kernel::new`]).
    ///
    /// # Errors
    ///
    /// [`KernelError::Duration`] unless `--duration` is in (0, 3600] seconds.
    pub fn config(&self) -> Result<KernelConfig, KernelError> {
        Ok(KernelConfig {
            op: self.op,
            chains: self.chains,
            threads: self.threads,
            duration: duration_from_secs(self.duration)?,
        })
    }
}

/// Validates the flags, runs the kernel for `--duration` seconds (or `--steps` steps per
/// chain) and prints the result.
///
/// # Errors
///
/// [`ComputeError::Invalid`] before anything runs if a flag is out of range;
/// [`ComputeError::Write`] if stdout cannot be written.
pub fn run(args: &ComputeArgs) -> Result<(), ComputeError> {
    let kernel = args
        .config()
        .and_then(Kernel::new)
        .map_err(ComputeError::Invalid)?;
    let result = match args.steps {
        Some(steps) => kernel.run_steps(steps).map_err(ComputeError::Invalid)?,
        None => kernel.run(),
    };
    let line = if args.json {
        json_line(&result)
    } else {
        result.to_string()
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").map_err(ComputeError::Write)
}

/// One JSON object; numbers are plain JSON numbers, `null` when not computable.
fn json_line(r: &KernelResult) -> String {
    serde_json::json!({
        "op": r.op.name(),
        "chains": r.chains,
        "threads": r.threads,
        "duration_s": r.duration_s,
        "ops": r.ops,
        "elapsed_s": r.elapsed_s,
        "ops_per_sec": r.ops_per_sec,
        "checksum": r.checksum,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_a_large_checksum_exact() {
        let result = |checksum, ops_per_sec| KernelResult {
            op: bench_kernel::Op::Int,
            chains: 2,
            threads: 1,
            duration_s: Some(0.3),
            ops: 399_000_000,
            elapsed_s: 0.3,
            ops_per_sec,
            checksum,
            per_thread: Vec::new(),
        };
        let line = json_line(&result(u64::MAX, Some(1.5e9)));
        assert!(line.contains("\"checksum\":18446744073709551615"), "{line}");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["checksum"].as_u64(), Some(u64::MAX));
        assert_eq!(v["op"], "int");
        assert_eq!(v["chains"], 2);
        assert_eq!(v["threads"], 1);
        assert_eq!(v["duration_s"], 0.3);
        assert_eq!(v["ops"], 399_000_000u64);
        assert_eq!(v["elapsed_s"], 0.3);
        assert_eq!(v["ops_per_sec"], 1.5e9);
        assert_eq!(v.as_object().unwrap().len(), 8);
        let none = json_line(&result(1, None));
        assert!(none.contains("\"ops_per_sec\":null"), "{none}");
    }
}
