//! The flags of `abba compute`.

use bench_kernel::Op;

/// Flags of `abba compute`.
#[derive(clap::Args, Debug)]
pub struct ComputeArgs {
    /// How long to run: seconds (`0.3`) or with a unit (`300ms`, `1.5s`); greater than 0,
    /// at most 3600 s.
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true, value_parser = seconds)]
    pub duration: f64,
    /// Threads, each running its own chains (1 to 1024).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// The operation every chain repeats: int (multiply-add), add, or fp (f64 multiply then add).
    #[arg(long, default_value = "int")]
    pub op: Op,
    /// Independent dependency chains per thread (1 to 16).
    #[arg(long, default_value_t = 1)]
    pub chains: usize,
    /// Run a fixed amount of work instead of a fixed time: this many steps per chain
    /// (`--duration` is then ignored). A fixed-work run takes longer when the machine is
    /// busy, as a real benchmarked command does; a fixed-time run does not.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub steps: Option<u64>,
    /// Print one JSON object (op, chains, threads, duration_s, ops, elapsed_s,
    /// ops_per_sec, checksum) instead of the one-line summary.
    #[arg(long)]
    pub json: bool,
}

/// A plain number of seconds (range-checked later by the kernel's validation, so `-1`
/// and `nan` get its message), or a duration with a unit.
fn seconds(text: &str) -> Result<f64, bench_sched::DurationParseError> {
    text.trim()
        .parse::<f64>()
        .or_else(|_| bench_sched::parse_duration(text).map(|d| d.as_secs_f64()))
}
