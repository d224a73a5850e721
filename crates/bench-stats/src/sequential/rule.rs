//! The stop rule: what a look decides, and the replay of every look over recorded blocks.

use super::boundary::SignBoundary;
use super::sequence::{ConfidenceSequence, SequenceMethod};

/// `--until decided`: look after every block, stop at the first look that decides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SequentialRule {
    /// Error rate of the whole sequence (every look together). Default 0.05.
    pub alpha: f64,
    /// Relative equivalence margin (`0.01` = ±1%). Default 0.01.
    pub margin: f64,
    /// No look decides before this many blocks. Default: the fewest blocks at which the
    /// sequence can exclude anything ([`SequentialRule::needed_blocks`], 7 at 0.05).
    pub min_blocks: u32,
    /// The experiment stops here undecided (INCONCLUSIVE). Default 200.
    pub max_blocks: u32,
    /// Which sequence. Default [`SequenceMethod::SignMedian`].
    pub method: SequenceMethod,
}

impl Default for SequentialRule {
    fn default() -> Self {
        SequentialRule::new(0.05, 0.01)
    }
}

impl SequentialRule {
    /// The default rule at `alpha` and `margin`: min blocks what alpha needs, max 200.
    pub fn new(alpha: f64, margin: f64) -> SequentialRule {
        SequentialRule {
            alpha,
            margin,
            min_blocks: SequentialRule::needed_blocks(alpha),
            max_blocks: 200,
            method: SequenceMethod::SignMedian,
        }
    }

    /// The fewest blocks after which the sign sequence at `alpha` can decide (7 at 0.05).
    pub fn needed_blocks(alpha: f64) -> u32 {
        u32::try_from(SignBoundary::new(alpha).min_blocks()).unwrap_or(u32::MAX)
    }

    /// What the sequence's interval `[lo, hi]` (log-ratio scale) decides after `blocks`.
    pub fn decide(&self, blocks: u32, interval: [f64; 2]) -> LookDecision {
        if blocks < self.min_blocks {
            return LookDecision::Undecided;
        }
        let [lo, hi] = interval;
        let within = lo >= (1.0 - self.margin).ln() && hi <= (1.0 + self.margin).ln();
        if within {
            LookDecision::Equivalent
        } else if lo > 0.0 {
            LookDecision::Larger
        } else if hi < 0.0 {
            LookDecision::Smaller
        } else {
            LookDecision::Undecided
        }
    }
}

/// What one look says about the candidate against the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LookDecision {
    /// The whole interval lies above ratio 1 (and not inside the margin).
    Larger,
    /// The whole interval lies below ratio 1 (and not inside the margin).
    Smaller,
    /// The whole interval lies inside `1 ± margin`.
    Equivalent,
    /// Neither yet.
    Undecided,
}

impl LookDecision {
    /// Whether the look stops the experiment.
    pub fn decided(self) -> bool {
        self != LookDecision::Undecided
    }

    /// `larger`, `smaller`, `equivalent` or `undecided` (as a raw file's trailer records
    /// each look).
    pub fn as_str(self) -> &'static str {
        match self {
            LookDecision::Larger => "larger",
            LookDecision::Smaller => "smaller",
            LookDecision::Equivalent => "equivalent",
            LookDecision::Undecided => "undecided",
        }
    }

    /// Parses [`Self::as_str`]'s names.
    pub fn from_name(name: &str) -> Option<LookDecision> {
        [
            LookDecision::Larger,
            LookDecision::Smaller,
            LookDecision::Equivalent,
            LookDecision::Undecided,
        ]
        .into_iter()
        .find(|d| d.as_str() == name)
    }
}

/// One look: the blocks seen, the interval of the ratio and what it decides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// Blocks seen at this look.
    pub blocks: u32,
    /// The interval of the ratio candidate / baseline (`exp` of the log-ratio interval;
    /// `0` and infinity while too few blocks bound it).
    pub ratio_interval: [f64; 2],
    /// The median block ratio so far: which way the sequence is heading.
    pub median_ratio: f64,
    /// What it decides under the rule.
    pub decision: LookDecision,
    /// The anytime-valid p of "no change" (sign sequence).
    pub p_value: Option<f64>,
}

/// Every look of a recorded sequence.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// One look per block, in order.
    pub looks: Vec<Look>,
    /// Index (into `looks`) of the first look that decided, if any.
    pub first_decision: Option<usize>,
}

impl Replay {
    /// The last look (what the data as a whole say now), if any block was seen.
    pub fn last(&self) -> Option<&Look> {
        self.looks.last()
    }

    /// The smallest anytime-valid p over the looks (valid for the whole sequence).
    pub fn p_value(&self) -> Option<f64> {
        self.looks.iter().filter_map(|l| l.p_value).reduce(f64::min)
    }
}

/// Replays the rule over `log_ratios` in block order: one look per block. Time: O(t^2)
/// worst case for the sorted inserts (t <= a few thousand blocks).
pub fn replay(log_ratios: &[f64], rule: &SequentialRule) -> Replay {
    let mut cs = ConfidenceSequence::new(rule.method, rule.alpha);
    let mut looks = Vec::with_capacity(log_ratios.len());
    let mut first_decision = None;
    for (i, &d) in log_ratios.iter().enumerate() {
        cs.push(d);
        let blocks = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let interval = cs.interval();
        let decision = rule.decide(blocks, interval);
        if decision.decided() && first_decision.is_none() {
            first_decision = Some(i);
        }
        looks.push(Look {
            blocks,
            ratio_interval: [interval[0].exp(), interval[1].exp()],
            median_ratio: cs.median().exp(),
            decision,
            p_value: cs.p_value(),
        });
    }
    Replay {
        looks,
        first_decision,
    }
}

/// The per-block log-ratios `ln(candidate / baseline)` a sequential rule watches, from
/// the block values the default paired estimator summarizes (`[baseline, candidate]` per
/// block, in block order). `None` when a value is not positive. One function, so the
/// runner's looks and `abba analyze`'s replay read the same numbers.
pub fn block_log_ratios(block_values: &[[f64; 2]]) -> Option<Vec<f64>> {
    block_values
        .iter()
        .map(|v| (v[0] > 0.0 && v[1] > 0.0).then(|| (v[1] / v[0]).ln()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_effect_is_decided_at_the_first_look_allowed() {
        let rule = SequentialRule::default();
        let logs = vec![0.1; 20];
        let r = replay(&logs, &rule);
        assert_eq!(r.first_decision, Some(6));
        assert_eq!(r.looks[6].decision, LookDecision::Larger);
        assert!(r.looks[5].ratio_interval[1].is_infinite());
    }

    #[test]
    fn tiny_differences_are_equivalent() {
        let rule = SequentialRule::default();
        let logs: Vec<f64> = (0..40).map(|i| 0.001 * f64::from(i % 5) - 0.002).collect();
        let r = replay(&logs, &rule);
        assert_eq!(
            r.looks[r.first_decision.unwrap()].decision,
            LookDecision::Equivalent
        );
    }

    #[test]
    fn min_blocks_holds_the_decision_back() {
        let rule = SequentialRule {
            min_blocks: 10,
            ..SequentialRule::default()
        };
        assert_eq!(replay(&[0.1; 20], &rule).first_decision, Some(9));
    }

    #[test]
    fn log_ratios_need_positive_values() {
        assert_eq!(block_log_ratios(&[[1.0, 2.0]]).unwrap(), vec![2f64.ln()]);
        assert!(block_log_ratios(&[[1.0, 0.0]]).is_none());
    }
}
