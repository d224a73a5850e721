//! What `abba compare` says of its plan before the runs: too few blocks for a verdict.

/// A fixed block count and what a paired verdict of it needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockShortfall {
    /// The blocks planned.
    pub blocks: usize,
    /// The fewest blocks with which every comparison's paired test can reach `alpha`
    /// ([`bench_stats::AnalysisConfig::min_paired_blocks_for`]).
    pub needed: usize,
    /// The fewest blocks a paired comparison is tested with at all
    /// ([`bench_stats::AnalysisConfig::min_paired_blocks`]).
    pub min_paired: usize,
    /// The runs of each variant in one block.
    pub runs_per_block: usize,
    /// The candidates compared with the baseline (Holm-corrected when more than one).
    pub candidates: usize,
    /// Whether the verdict decides on a count (identical counts are decided exactly).
    pub counts: bool,
    /// The significance level.
    pub alpha: f64,
}

/// The warning (without `abba: warning: `) of `s.blocks` below `s.needed`: the runs go
/// ahead (a pilot, a smoke test), and the report will say "not tested" or nothing
/// significant; it names the `--blocks` and `--runs` that would do. `None` with enough
/// blocks.
///
/// # Examples
/// ```
/// use bench_report::{BlockShortfall, render_compare_too_few_blocks};
/// let mut s = BlockShortfall {
///     blocks: 4, needed: 6, min_paired: 6, runs_per_block: 2, candidates: 1,
///     counts: false, alpha: 0.05,
/// };
/// let w = render_compare_too_few_blocks(&s).unwrap();
/// assert!(w.starts_with("4 blocks are too few for a verdict"));
/// assert!(w.contains("(--blocks 6, or --runs 12)"));
/// s.blocks = 6;
/// assert!(render_compare_too_few_blocks(&s).is_none());
/// ```
pub fn render_compare_too_few_blocks(s: &BlockShortfall) -> Option<String> {
    let (blocks, needed) = (s.blocks, s.needed);
    if blocks >= needed {
        return None;
    }
    let runs = needed * s.runs_per_block;
    let candidates = s.candidates;
    let holm = if candidates > 1 {
        format!(
            ", its smallest p below alpha/{candidates} for each of the {candidates} Holm-corrected comparisons with the baseline"
        )
    } else {
        String::new()
    };
    let says = if blocks < s.min_paired {
        "\"not tested\""
    } else {
        "no comparison significant, whatever the data"
    };
    // Counts identical in every run are decided exactly, at any block count.
    let unless = if s.counts {
        ", unless the counts are identical in every run of each variant (then the difference is exact)"
    } else {
        ""
    };
    let are = if blocks == 1 {
        "1 block is".to_owned()
    } else {
        format!("{blocks} blocks are")
    };
    Some(format!(
        "{are} too few for a verdict: the paired test needs at least {needed} blocks at alpha {}{holm} (--blocks {needed}, or --runs {runs}); the report will say {says}{unless}",
        s.alpha
    ))
}
