//! The one warning, before the runs, of a fixed block count too small for a paired verdict:
//! `abba compare`'s and `abba suite`'s words (the runs go ahead: a pilot, a smoke test).

/// What the warning of too few blocks says: `blocks` planned below the `needed` fewest with
/// which the paired test can reach `alpha` at all; below `min_paired` the report says
/// "not tested". The other fields add clauses only the caller knows to be true.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TooFewBlocks {
    /// The blocks planned.
    pub blocks: usize,
    /// The fewest blocks at which the paired test can reach `alpha`.
    pub needed: usize,
    /// The fewest blocks at which a paired comparison is tested at all.
    pub min_paired: usize,
    /// The significance level.
    pub alpha: f64,
    /// Comparisons with the baseline corrected by Holm (more than one names `alpha/k`).
    pub holm_comparisons: usize,
    /// Runs of each variant in a block, when more runs per variant are the other remedy
    /// (`--runs`); `None` names only `--blocks`.
    pub runs_per_block: Option<usize>,
    /// The metric is a count, decided exactly when identical in every run.
    pub exact_counts: bool,
    /// A `--fail-if-slower` gate is set (it fails when a slowdown cannot be ruled out).
    pub gated: bool,
}

impl TooFewBlocks {
    /// The warning (without the `abba: warning: ` prefix), or `None` when there are enough
    /// blocks. Time: O(1).
    pub fn render(&self) -> Option<String> {
        let &TooFewBlocks {
            blocks,
            needed,
            min_paired,
            alpha,
            holm_comparisons: k,
            runs_per_block,
            exact_counts,
            gated,
        } = self;
        if blocks >= needed {
            return None;
        }
        let holm = if k > 1 {
            format!(
                ", its smallest p below alpha/{k} for each of the {k} Holm-corrected comparisons with the baseline"
            )
        } else {
            String::new()
        };
        let runs =
            runs_per_block.map_or(String::new(), |per| format!(", or --runs {}", needed * per));
        let says = if blocks < min_paired {
            "the report will say \"not tested\""
        } else {
            "no comparison can be significant, whatever the data"
        };
        // Counts identical in every run are decided exactly, at any block count.
        let unless = if exact_counts {
            ", unless the counts are identical in every run of each variant (then the difference is exact)"
        } else {
            ""
        };
        let gate = if gated {
            "; --fail-if-slower then fails (exit 1), as it cannot rule a slowdown out"
        } else {
            ""
        };
        let count = if blocks == 1 {
            "1 block is".to_owned()
        } else {
            format!("{blocks} blocks are")
        };
        Some(format!(
            "{count} too few for a verdict: the paired test needs at least {needed} blocks at alpha {alpha}{holm} (--blocks {needed}{runs}); {says}{unless}{gate}"
        ))
    }
}

/// The suite's warning of too few blocks ([`TooFewBlocks`] with the suite's clauses:
/// `--blocks` alone, no Holm clause, and the gate when `gated`).
pub fn render_too_few_blocks(
    blocks: usize,
    needed: usize,
    min_paired: usize,
    alpha: f64,
    gated: bool,
) -> Option<String> {
    TooFewBlocks {
        blocks,
        needed,
        min_paired,
        alpha,
        holm_comparisons: 0,
        runs_per_block: None,
        exact_counts: false,
        gated,
    }
    .render()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compare(blocks: usize) -> TooFewBlocks {
        TooFewBlocks {
            blocks,
            needed: 7,
            min_paired: 6,
            alpha: 0.05,
            holm_comparisons: 2,
            runs_per_block: Some(2),
            exact_counts: false,
            gated: false,
        }
    }

    #[test]
    fn enough_blocks_say_nothing() {
        assert_eq!(compare(7).render(), None);
        assert_eq!(render_too_few_blocks(6, 6, 6, 0.05, true), None);
    }

    #[test]
    fn compare_names_holm_and_runs() {
        assert_eq!(
            compare(6).render().unwrap(),
            "6 blocks are too few for a verdict: the paired test needs at least 7 blocks at alpha 0.05, its smallest p below alpha/2 for each of the 2 Holm-corrected comparisons with the baseline (--blocks 7, or --runs 14); no comparison can be significant, whatever the data"
        );
        let one = TooFewBlocks {
            exact_counts: true,
            ..compare(1)
        };
        assert_eq!(
            one.render().unwrap(),
            "1 block is too few for a verdict: the paired test needs at least 7 blocks at alpha 0.05, its smallest p below alpha/2 for each of the 2 Holm-corrected comparisons with the baseline (--blocks 7, or --runs 14); the report will say \"not tested\", unless the counts are identical in every run of each variant (then the difference is exact)"
        );
    }

    #[test]
    fn suite_names_blocks_and_gate() {
        assert_eq!(
            render_too_few_blocks(3, 6, 6, 0.05, true).unwrap(),
            "3 blocks are too few for a verdict: the paired test needs at least 6 blocks at alpha 0.05 (--blocks 6); the report will say \"not tested\"; --fail-if-slower then fails (exit 1), as it cannot rule a slowdown out"
        );
    }
}
