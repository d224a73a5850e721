//! Rank tests and rank-based effect sizes: Mann-Whitney U, Kruskal-Wallis, Friedman,
//! Wilcoxon signed-rank, Cliff's delta, Hodges-Lehmann, the Holm-Bonferroni
//! adjustment of their post-hoc p-values, and Page's L trend test.
//!
//! Each submodule cites its method and the SciPy function it is checked against; the
//! common entry points are re-exported here (`bench_stats::rank::mann_whitney_u`).
//!
//! ```
//! use bench_stats::Sample;
//! use bench_stats::rank::{Alternative, mann_whitney_u};
//! let a = Sample::new(&[10.0, 11.0, 12.0, 13.0])?;
//! let b = Sample::new(&[20.0, 21.0, 22.0, 23.0])?;
//! let outcome = mann_whitney_u(&a, &b)?;
//! assert_eq!(outcome.u, 0.0);
//! assert!(outcome.p_value < 0.05);
//! # let _ = Alternative::TwoSided;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cliff;
pub mod friedman;
pub mod hodges_lehmann;
pub mod holm;
pub mod kruskal;
pub mod mann_whitney;
pub mod page;
pub(crate) mod ranks;
pub mod wilcoxon;

pub use cliff::{CliffsDelta, Magnitude, cliffs_delta};
pub use friedman::{FriedmanOutcome, friedman};
pub use hodges_lehmann::{ShiftConfig, ShiftEstimate, hodges_lehmann, hodges_lehmann_with};
pub use holm::holm_bonferroni;
pub use kruskal::{KruskalWallisOutcome, kruskal_wallis};
pub use mann_whitney::{
    AUTO_EXACT_MAX_TOTAL, Alternative, EXACT_MAX_TOTAL, MannWhitneyConfig, MannWhitneyMethod,
    MannWhitneyMethodChoice, MannWhitneyOutcome, mann_whitney_u, mann_whitney_u_with,
};
pub use page::{
    PAGE_EXACT_MAX_TREATMENTS, PageMethod, PageMethodChoice, PageOutcome, page_trend,
    page_trend_with,
};
pub use wilcoxon::{
    ContinuityCorrection, NoChangeTest, PAIRED_HL_MAX_DIFFERENCES, PairedShift,
    WILCOXON_AUTO_EXACT_MAX, WILCOXON_EXACT_MAX, WILCOXON_PERMUTATION_MAX, WilcoxonConfig,
    WilcoxonMethod, WilcoxonMethodChoice, WilcoxonOutcome, paired_hodges_lehmann,
    paired_hodges_lehmann_pairs, signed_rank_no_change, wilcoxon_signed_rank,
    wilcoxon_signed_rank_pairs, wilcoxon_signed_rank_with,
};
