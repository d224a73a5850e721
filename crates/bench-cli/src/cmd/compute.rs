//! `abba compute`: the dependency-chain kernel as a command (the appendix's
//! `cyclelab compute`).
//!
//! Turns the flags into a [`KernelConfig`], runs [`Kernel::run`] and prints one line, or
//! one JSON object with `--json`. In that object `checksum` is an unsigned 64-bit integer
//! written exactly (serde_json prints `u64` without going through `f64`), so it may exceed
//! 2^53: readers that parse numbers as doubles will round it.

use std::io::Write;

use bench_kernel::{Kernel, KernelConfig, KernelResult, duration_from_secs};

pub use crate::args::compute::ComputeArgs;
use crate::core::exit::usage;

/// Checks the flags (the duration here, the rest by [`Kernel::new`]), runs the kernel for
/// `--duration` seconds (or `--steps` steps per chain) and prints the result.
///
/// # Errors
///
/// A usage error (exit 2) before anything runs if a flag is out of range, or if stdout
/// cannot be written.
pub fn run(args: &ComputeArgs) -> anyhow::Result<u8> {
    let invalid = |e: bench_kernel::KernelError| usage(e.to_string());
    let config = KernelConfig {
        op: args.op,
        chains: args.chains,
        threads: args.threads,
        duration: duration_from_secs(args.duration).map_err(invalid)?,
    };
    let kernel = Kernel::new(config).map_err(invalid)?;
    let result = match args.steps {
        Some(steps) => kernel.run_steps(steps).map_err(invalid)?,
        None => kernel.run(),
    };
    let line = if args.json {
        json_line(&result)
    } else {
        result.to_string()
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").map_err(|e| usage(format!("cannot write the result: {e}")))?;
    Ok(0)
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
