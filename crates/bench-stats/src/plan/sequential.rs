//! Blocks to a decision under `--until decided`, by replaying the confidence sequence on
//! experiments resampled from a pilot.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::sequential::{ConfidenceSequence, LookDecision, SequentialRule};

use super::power::draw;

/// What `--until decided` is expected to do against one true ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExpectedStop {
    /// The true ratio candidate / baseline.
    pub ratio: f64,
    /// Median blocks to the stop (a decision or the limit).
    pub median_blocks: f64,
    /// Mean blocks to the stop.
    pub mean_blocks: f64,
    /// Share of experiments that stopped larger / smaller (the interval off 1).
    pub changed: f64,
    /// Share that stopped equivalent.
    pub equivalent: f64,
    /// Share that reached the limit undecided.
    pub inconclusive: f64,
}

impl ExpectedStop {
    /// Whether `other` (another ratio) stops after the same blocks (median and mean) as
    /// this one. The sign sequence decides FASTER/SLOWER from the signs of the blocks
    /// alone, so two ratios stop alike when no pilot block lies between `-ln` of one and
    /// of the other: a pilot too coarse to tell them apart.
    pub fn same_stops(&self, other: &ExpectedStop) -> bool {
        (self.median_blocks, self.mean_blocks) == (other.median_blocks, other.mean_blocks)
    }
}

/// Replays `rule` on `reps` experiments of up to `rule.max_blocks` blocks drawn from
/// `noise` shifted by `ln ratio`. Time: O(reps max_blocks^2) worst case.
pub fn expected_stop(
    noise: &[f64],
    ratio: f64,
    rule: &SequentialRule,
    reps: u32,
    seed: u64,
) -> ExpectedStop {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut d = Vec::new();
    let mut stops = Vec::with_capacity(reps as usize);
    let (mut changed, mut equivalent) = (0u32, 0u32);
    let max = rule.max_blocks as usize;
    for _ in 0..reps {
        draw(&mut rng, noise, ratio.ln(), &mut d, max);
        match first_decision(&d, rule) {
            Some((blocks, decision)) => {
                stops.push(blocks as f64);
                match decision {
                    LookDecision::Equivalent => equivalent += 1,
                    LookDecision::Larger | LookDecision::Smaller | LookDecision::Undecided => {
                        changed += 1
                    }
                }
            }
            None => stops.push(max as f64),
        }
    }
    stops.sort_by(f64::total_cmp);
    let n = f64::from(reps.max(1));
    let median = stops.get(stops.len() / 2).copied().unwrap_or(f64::NAN);
    ExpectedStop {
        ratio,
        median_blocks: median,
        mean_blocks: stops.iter().sum::<f64>() / n,
        changed: f64::from(changed) / n,
        equivalent: f64::from(equivalent) / n,
        inconclusive: 1.0 - f64::from(changed + equivalent) / n,
    }
}

/// The first look that decides, stopping there (what the runner does).
fn first_decision(d: &[f64], rule: &SequentialRule) -> Option<(usize, LookDecision)> {
    let mut cs = ConfidenceSequence::new(rule.method, rule.alpha);
    for (i, &x) in d.iter().enumerate() {
        cs.push(x);
        let blocks = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let decision = rule.decide(blocks, cs.interval());
        if decision.decided() {
            return Some((i + 1, decision));
        }
    }
    None
}
