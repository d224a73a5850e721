//! A dependency-chain CPU kernel: the workload behind `abba compute`.
//!
//! Each thread runs `chains` independent dependency chains of one operation ([`Op`]).
//! With one chain every step waits for the previous one, so throughput is set by the
//! operation's latency; with more chains the core overlaps them until it runs out of
//! execution units. The difference between `chains=1` and `chains=2` is a large, real,
//! reproducible effect, which makes it a good known-answer workload for a benchmark
//! harness. The `Codegen` section of the crate README shows the compiled hot loops and
//! how the chains are kept scalar (no cross-chain vectorization).
//!
//! [`KernelConfig::from_spec`] reads a kernel written as one spec
//! (`op=fp,chains=4,threads=1,duration=0.1`, as `abba compare --kernel` takes it),
//! refusing with a [`SpecError`].
//!
//! ```
//! use bench_kernel::{Kernel, KernelConfig, Op};
//!
//! let kernel = Kernel::new(KernelConfig {
//!     op: Op::Int,
//!     chains: 2,
//!     threads: 1,
//!     duration: std::time::Duration::from_millis(10),
//! })?;
//! let result = kernel.run();
//! assert_eq!(result.ops, result.per_thread[0].steps * 2);
//! # Ok::<(), bench_kernel::KernelError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]

mod chains;
mod config;
mod op;
#[cfg(test)]
mod reference;
mod run;
mod spec;

pub use config::{KernelConfig, KernelError, MAX_DURATION_S, MAX_THREADS, duration_from_secs};
pub use op::{Op, ParseOpError};
pub use run::{Kernel, KernelResult, ThreadResult};
pub use spec::SpecError;

/// The largest supported number of chains per thread (16).
pub const MAX_CHAINS: usize = chains::MAX_CHAINS;
