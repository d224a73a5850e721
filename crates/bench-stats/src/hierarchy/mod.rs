//! One experiment over many hosts: the levels above the blocks (host, then session) and
//! the analysis that treats each as a random level.
//!
//! A [`Dataset`](crate::Dataset) carries [`Levels`] when its blocks came from several
//! sessions or hosts (`abba analyze` of several raw files of one experiment). The
//! analysis then adds [`Analysis::levels`](crate::Analysis::levels): for every candidate,
//!
//! - the **pooled effect** over hosts of each host's mean block log-ratio ([`pool_units`]):
//!   a Student t interval on the hosts' means when the hosts are balanced (the same
//!   sessions and blocks), else a random-effects meta-analysis of them (DerSimonian-Laird
//!   `τ²`, the Hartung-Knapp-Sidik-Jonkman variance with its `max(1, q)` modification),
//!   `hosts - 1` degrees of freedom either way; the [`hierarchical_bootstrap`] (hosts, then
//!   sessions, then blocks) beside it as a conservative cross-check ([`pooled_interval`]);
//! - **each host's own effect** with its t interval over its blocks;
//! - the **variance of the log values per level** (host, session, block, run) by the
//!   nested ANOVA method of moments ([`nested_variance_components`]);
//! - a **heterogeneity check**: Cochran's Q of the hosts' effects with a permutation
//!   p-value ([`heterogeneity`]), warned about when significant.
//!
//! With one host and several sessions, the sessions take the hosts' place.
//!
//! ```
//! use bench_stats::hierarchy::Levels;
//! use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};
//! // 4 hosts, 1 session each, 6 blocks per host; B is 10% faster everywhere.
//! let mut levels = Levels::new((0..4).map(|h| format!("host-{h}")).collect());
//! let (mut a, mut b) = (Vec::new(), Vec::new());
//! for h in 0..4u32 {
//!     let s = levels.add_session(h as usize).unwrap();
//!     for j in 0..6u32 {
//!         let block = h * 6 + j;
//!         levels.assign(block, s).unwrap();
//!         let level = 100.0 * (1.0 + 0.05 * f64::from(h)) + f64::from(j % 3);
//!         a.push(Observation::in_block(level, block));
//!         b.push(Observation::in_block(0.9 * level * (1.0 + 0.001 * f64::from(j)), block));
//!     }
//! }
//! let data = Dataset::new("ns", vec![Series::new("A", a), Series::new("B", b)])
//!     .with_design(Design::Abba)
//!     .with_levels(levels);
//! let analysis = analyze(&data, &AnalysisConfig::default())?;
//! let levels = analysis.levels.expect("four hosts");
//! let pooled = &levels.comparisons[0].pooled;
//! assert_eq!(levels.hosts.len(), 4);
//! assert!((pooled.ratio - 0.902).abs() < 0.01);
//! # Ok::<(), bench_stats::StatsError>(())
//! ```

mod bootstrap;
mod components;
mod heterogeneity;
mod levels;
mod meta;
mod nest;
mod report;

pub use bootstrap::{HierarchicalBootstrap, hierarchical_bootstrap, pooled_mean};
pub use components::{NestedComponents, nested_variance_components};
pub use heterogeneity::{Heterogeneity, heterogeneity};
pub use levels::{Levels, UnknownLevel};
pub use meta::{PooledMeans, UnitMean, pool_units, random_effects_hksj, t_on_means, unit_means};
pub use report::{FEW_HOSTS, PERMUTATIONS, levels_report, pooled_interval};
