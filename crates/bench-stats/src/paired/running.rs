//! The running estimate of two variants while their experiment runs: per complete block
//! the log-ratio of the candidate's median run to the baseline's (the typical run of the
//! block, the block value the default's sequence reads), and their Hodges-Lehmann
//! estimate with its 95% signed-rank interval. Provisional: not a decision.

use crate::paired::BlockSummary;

/// Blocks before a [`RunningEstimate`] gives an estimate.
pub const PROVISIONAL_AFTER: usize = 3;

/// The block-median log-ratios so far of a candidate (side 1) against a baseline (side 0).
#[derive(Debug, Clone, Default)]
pub struct RunningEstimate {
    /// The current block's values of the baseline and of the candidate.
    block: Option<(u32, [Vec<f64>; 2])>,
    log_ratios: Vec<f64>,
}

/// A [`RunningEstimate`]'s ratio (candidate over baseline) and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Provisional {
    /// Complete blocks behind it.
    pub blocks: usize,
    /// The Hodges-Lehmann estimate of the ratio.
    pub ratio: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

impl RunningEstimate {
    /// A measured value of `block`: side 0 the baseline, 1 the candidate; a value that is
    /// not finite and positive is left out.
    pub fn add(&mut self, block: u32, side: usize, value: f64) {
        if !value.is_finite() || value <= 0.0 || side > 1 {
            return;
        }
        let (b, values) = self.block.get_or_insert((block, [Vec::new(), Vec::new()]));
        if *b != block {
            *b = block;
            *values = [Vec::new(), Vec::new()];
        }
        values[side].push(value);
    }

    /// Every run of `block` is in: its log-ratio joins the estimate (a block missing a
    /// side adds nothing).
    pub fn block_end(&mut self, block: u32) {
        if let Some((b, [base, cand])) = self.block.take() {
            let median = |v: &[f64]| BlockSummary::Median.of(v);
            if let (true, Some(base), Some(cand)) = (b == block, median(&base), median(&cand)) {
                self.log_ratios.push((cand / base).ln());
            }
        }
    }

    /// The estimate; `None` before [`PROVISIONAL_AFTER`] blocks or without a finite
    /// interval. Time: O(n² log n) in the blocks (the Walsh averages).
    #[must_use]
    pub fn estimate(&self) -> Option<Provisional> {
        let blocks = self.log_ratios.len();
        if blocks < PROVISIONAL_AFTER {
            return None;
        }
        let hl = crate::rank::paired_hodges_lehmann(&self.log_ratios, 0.95).ok()?;
        let (ratio, low, high) = (hl.estimate.exp(), hl.ci_low.exp(), hl.ci_high.exp());
        (ratio.is_finite() && low.is_finite() && high.is_finite()).then_some(Provisional {
            blocks,
            ratio,
            low,
            high,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_running_estimate_is_the_hl_of_block_median_log_ratios_after_three_blocks() {
        let mut r = RunningEstimate::default();
        // Block medians (of two runs, their mean): A 120 in every block; B the mean of
        // its fast and slow run.
        let blocks = [
            (110.0, 130.0),
            (105.0, 150.0),
            (120.0, 121.0),
            (108.0, 200.0),
        ];
        for (b, (fast, slow)) in (0u32..).zip(blocks) {
            r.add(b, 0, 100.0);
            r.add(b, 0, 140.0);
            r.add(b, 1, slow);
            r.add(b, 1, fast);
            r.block_end(b);
            if b < 2 {
                assert_eq!(r.estimate(), None, "block {b}");
            }
        }
        let logs: Vec<f64> = blocks
            .iter()
            .map(|(f, s)| ((f + s) / 2.0 / 120.0_f64).ln())
            .collect();
        let hl = crate::rank::paired_hodges_lehmann(&logs, 0.95).unwrap();
        let got = r.estimate().unwrap();
        assert_eq!(got.blocks, 4);
        assert_eq!(
            [got.ratio, got.low, got.high],
            [hl.estimate.exp(), hl.ci_low.exp(), hl.ci_high.exp()]
        );
        // Walsh averages of the four log-ratios; their median is between 1.0x and 1.2x.
        assert!((1.0..1.2).contains(&got.ratio), "{got:?}");
    }

    #[test]
    fn a_block_missing_a_variant_adds_nothing() {
        let mut r = RunningEstimate::default();
        for b in 0..5 {
            r.add(b, 0, 100.0);
            r.block_end(b);
        }
        assert_eq!(r.estimate(), None);
    }
}
