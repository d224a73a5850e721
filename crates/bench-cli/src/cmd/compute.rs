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
        human_line(&result)
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").map_err(ComputeError::Write)
}

/// `int chains=2 threads=1: 1329.9M ops/s (399.0M ops in 0.300 s)`.
fn human_line(r: &KernelResult) -> String {
    let rate = r
        .ops_per_sec
        .map_or_else(|| "n/a".to_owned(), |v| format!("{:.1}M", v / 1e6));
    format!(
        "{} chains={} threads={}: {rate} ops/s ({:.1}M ops in {:.3} s)",
        r.op,
        r.chains,
        r.threads,
        r.ops as f64 / 1e6,
        r.elapsed_s
    )
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
    use bench_kernel::Op;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Wrapper {
        #[command(flatten)]
        args: ComputeArgs,
    }

    fn parse(argv: &[&str]) -> Result<ComputeArgs, clap::Error> {
        Wrapper::try_parse_from(std::iter::once("compute").chain(argv.iter().copied()))
            .map(|w| w.args)
    }

    fn result(checksum: u64, ops_per_sec: Option<f64>) -> KernelResult {
        KernelResult {
            op: Op::Int,
            chains: 2,
            threads: 1,
            duration_s: Some(0.3),
            ops: 399_000_000,
            elapsed_s: 0.3,
            ops_per_sec,
            checksum,
            per_thread: Vec::new(),
        }
    }

    #[test]
    fn defaults() {
        let a = parse(&[]).unwrap();
        assert_eq!(a.config(), Ok(KernelConfig::default()));
        assert!(!a.json);
    }

    #[test]
    fn both_flag_spellings() {
        let a = parse(&[
            "--chains",
            "2",
            "--op=fp",
            "--duration=0.5",
            "--threads",
            "3",
        ])
        .unwrap();
        let b = parse(&[
            "--chains=2",
            "--op",
            "fp",
            "--duration",
            "0.5",
            "--threads=3",
        ])
        .unwrap();
        assert_eq!(a.config(), b.config());
        assert_eq!(
            a.config(),
            Ok(KernelConfig {
                op: Op::Fp,
                chains: 2,
                threads: 3,
                duration: std::time::Duration::from_millis(500),
            })
        );
    }

    #[test]
    fn unknown_op_is_rejected_with_the_list() {
        let err = parse(&["--op", "mul"]).unwrap_err().to_string();
        assert!(err.contains("expected one of int, add, fp"), "{err}");
    }

    #[test]
    fn out_of_range_flags_are_usage_errors() {
        for (argv, message) in [
            (
                &["--chains", "0"][..],
                "--chains must be between 1 and 16, got 0",
            ),
            (
                &["--chains", "17"][..],
                "--chains must be between 1 and 16, got 17",
            ),
            (
                &["--threads", "0"][..],
                "--threads must be between 1 and 1024, got 0",
            ),
            (&["--duration", "-1"][..], "--duration must be"),
            (&["--duration", "nan"][..], "--duration must be"),
        ] {
            let err = run(&parse(argv).unwrap()).unwrap_err();
            assert!(matches!(err, ComputeError::Invalid(_)));
            assert!(err.to_string().starts_with(message), "{err}");
        }
    }

    #[test]
    fn human_line_format() {
        assert_eq!(
            human_line(&result(7, Some(1_329_900_000.0))),
            "int chains=2 threads=1: 1329.9M ops/s (399.0M ops in 0.300 s)"
        );
        assert_eq!(
            human_line(&result(7, None)),
            "int chains=2 threads=1: n/a ops/s (399.0M ops in 0.300 s)"
        );
    }

    #[test]
    fn json_keeps_a_large_checksum_exact() {
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
