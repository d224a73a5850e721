//! The statistics of a benchmark's history by commit: change points in the series of
//! per-commit levels, and the chain of paired commit-vs-parent steps.
//!
//! - **Levels** ([`e_divisive`]): the per-commit level of one benchmark on one machine
//!   (measured alone, commit after commit). Change points are found by e-divisive means
//!   (Matteson & James 2014, with exponent 1, as MongoDB's `signal-processing-algorithms`
//!   and Otava/Hunter use it): divisive bisection at the split that maximises the energy
//!   statistic, each split kept only if a seeded permutation test finds it significant,
//!   recursion until no significant split remains.
//! - **A commit's level** ([`Level`]): one experiment's median run with its
//!   distribution-free interval, several experiments of a commit pooled.
//! - **Paired steps** ([`chain`]): each recorded comparison of a commit with its parent
//!   is a [`Step`] (log ratio and its standard error from the paired interval); a chain of
//!   steps gives the cumulative change with an interval whose log-scale variances add
//!   (independent experiments), and names the steps that carried most of it.
//! - **A series** ([`Series::analyse`]): one benchmark's points on one machine (a commit,
//!   its level, the step arriving at it), with the change points of the levels and the
//!   chain of steps to the newest commit; `bench-history` reads it from its store and
//!   `bench-report` renders it.
//!
//! ```
//! use bench_stats::history::{ChangePointConfig, Step, chain, e_divisive};
//! // 30 commits at 100, then 30 at 102 (a 2% regression at commit 30).
//! let series: Vec<f64> = (0..60)
//!     .map(|i| if i < 30 { 100.0 } else { 102.0 } + [0.3, -0.2, 0.1, -0.3, 0.2][i % 5])
//!     .collect();
//! let found = e_divisive(&series, &ChangePointConfig::default());
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].index, 30);
//! assert!((found[0].ratio - 1.02).abs() < 0.002);
//!
//! // Three paired steps of +1% each, every one with a standard error of 0.5% (log scale).
//! let steps = vec![Step { log_ratio: 0.01f64.ln_1p(), std_error: 0.005 }; 3];
//! let c = chain(&steps, 0.95).unwrap();
//! assert!((c.ratio - 1.01f64.powi(3)).abs() < 1e-12);
//! assert!(c.interval[0] > 1.0); // the sum is significant though no step alone is clearly so
//! ```

mod chain;
mod check;
mod edivisive;
mod level;
mod series;

pub use chain::{Chain, Step, chain};
pub use check::{ChainCheck, ChangeState, RecentChange, SeriesCheck, check_series};
pub use edivisive::{
    ChangePoint, ChangePointConfig, e_divisive, energy_split_statistics, try_e_divisive,
};
pub use level::Level;
pub use series::{
    ChainSpan, Commit, PairedStep, Point, Series, SeriesBenchmark, SeriesConfig, SeriesMachine,
};
