//! Blocks to a decision under `--until decided`, by replaying the confidence sequence on
//! experiments resampled from a pilot.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::sequential::{
    ConfidenceSequence, LookDecision, SequenceMethod, SequentialRule, SignBoundary,
};

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

/// At most this many blocks are drawn over all of one ratio's experiments: with a large
/// `max_blocks` the experiments are fewer (but at least [`MIN_STOP_REPS`]), so a plan for
/// `--max-blocks 100000` takes seconds, not hours.
pub const STOP_DRAW_BUDGET: usize = 4_000_000;

/// The fewest experiments per ratio however large `max_blocks` is.
pub const MIN_STOP_REPS: u32 = 50;

/// The experiments [`expected_stop`] replays for `reps` asked with `max_blocks`.
pub fn stop_reps(reps: u32, max_blocks: u32) -> u32 {
    let fit = u32::try_from(STOP_DRAW_BUDGET / (max_blocks as usize).max(1)).unwrap_or(u32::MAX);
    reps.min(fit.max(MIN_STOP_REPS))
}

/// Replays `rule` on [`stop_reps`]`(reps, rule.max_blocks)` experiments of up to
/// `rule.max_blocks` blocks drawn from `noise` shifted by `ln ratio`. Time:
/// O(reps max_blocks log m) for `m` noise values (the sign sequence's order statistics
/// are counted over the noise values' ranks).
pub fn expected_stop(
    noise: &[f64],
    ratio: f64,
    rule: &SequentialRule,
    reps: u32,
    seed: u64,
) -> ExpectedStop {
    let reps = stop_reps(reps, rule.max_blocks);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut d = Vec::new();
    let mut stops = Vec::with_capacity(reps as usize);
    let (mut changed, mut equivalent) = (0u32, 0u32);
    let max = rule.max_blocks as usize;
    let mut signs = (rule.method == SequenceMethod::SignMedian && !noise.is_empty())
        .then(|| SignReplay::new(noise, rule.alpha));
    for _ in 0..reps {
        let decided = match signs.as_mut() {
            Some(replay) => replay.first_decision(&mut rng, ratio.ln(), rule, max),
            None => {
                draw(&mut rng, noise, ratio.ln(), &mut d, max);
                first_decision(&d, rule)
            }
        };
        match decided {
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

/// The sign sequence replayed on draws from a finite pilot: the blocks seen are counted
/// per rank of the pilot's values (a Fenwick tree), so its order statistics cost
/// O(log m) a block instead of an insertion into a sorted list, and the boundary's
/// `k(t)` is computed once per block count for all experiments. The same draws and the
/// same decisions as [`ConfidenceSequence`].
struct SignReplay<'a> {
    noise: &'a [f64],
    /// The noise values in increasing order.
    sorted: Vec<f64>,
    /// Per index into `noise`, its rank in `sorted`.
    rank: Vec<usize>,
    /// Counts per rank (Fenwick tree, 1-based).
    tree: Vec<u32>,
    boundary: SignBoundary,
    /// `k(t)` per `t` (index), as far as computed.
    ks: Vec<Option<u64>>,
}

impl<'a> SignReplay<'a> {
    fn new(noise: &'a [f64], alpha: f64) -> SignReplay<'a> {
        let mut order: Vec<usize> = (0..noise.len()).collect();
        order.sort_by(|&a, &b| noise[a].total_cmp(&noise[b]));
        let mut rank = vec![0; noise.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        SignReplay {
            noise,
            sorted: order.iter().map(|&i| noise[i]).collect(),
            rank,
            tree: vec![0; noise.len() + 1],
            boundary: SignBoundary::new(alpha),
            ks: vec![None],
        }
    }

    /// `k(t)` of the boundary ([`SignBoundary::k`]), computed once per `t` for all
    /// experiments.
    fn k(&mut self, t: usize) -> Option<u64> {
        while self.ks.len() <= t {
            let next = self.boundary.k(self.ks.len() as u64);
            self.ks.push(next);
        }
        self.ks[t]
    }

    fn add(&mut self, rank: usize) {
        let mut i = rank + 1;
        while i < self.tree.len() {
            self.tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }

    /// The value of 0-based order statistic `k` of the blocks seen.
    fn kth(&self, k: u64) -> f64 {
        let n = self.tree.len() - 1;
        let mut pos = 0;
        let mut rest = k + 1;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && u64::from(self.tree[next]) < rest {
                pos = next;
                rest -= u64::from(self.tree[next]);
            }
            step /= 2;
        }
        self.sorted[pos.min(n - 1)]
    }

    /// One experiment: draws `max` blocks (as [`draw`] does, so the random stream is
    /// the same) and returns the first look that decides.
    fn first_decision(
        &mut self,
        rng: &mut Xoshiro256PlusPlus,
        shift: f64,
        rule: &SequentialRule,
        max: usize,
    ) -> Option<(usize, LookDecision)> {
        self.tree.iter_mut().for_each(|c| *c = 0);
        let draws: Vec<usize> = (0..max)
            .map(|_| rng.random_range(0..self.noise.len()))
            .collect();
        for (i, &j) in draws.iter().enumerate() {
            if !(self.noise[j] + shift).is_finite() {
                continue;
            }
            self.add(self.rank[j]);
            let t = i + 1;
            let interval = match self.k(t) {
                Some(k) => [self.kth(k) + shift, self.kth(t as u64 - 1 - k) + shift],
                None => [f64::NEG_INFINITY, f64::INFINITY],
            };
            let blocks = u32::try_from(t).unwrap_or(u32::MAX);
            let decision = rule.decide(blocks, interval);
            if decision.decided() {
                return Some((t, decision));
            }
        }
        None
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counted_replay_decides_as_the_confidence_sequence() {
        let noise: Vec<f64> = (0..37)
            .map(|i| ((f64::from(i) * 0.618).fract() - 0.45) * 0.05)
            .collect();
        let rule = SequentialRule {
            max_blocks: 400,
            ..SequentialRule::new(0.05, 0.01)
        };
        for ratio in [1.0f64, 1.01, 1.03] {
            let mut replay = SignReplay::new(&noise, rule.alpha);
            let mut a = Xoshiro256PlusPlus::seed_from_u64(7);
            let mut b = Xoshiro256PlusPlus::seed_from_u64(7);
            let mut d = Vec::new();
            for _ in 0..50 {
                let fast = replay.first_decision(&mut a, ratio.ln(), &rule, 400);
                draw(&mut b, &noise, ratio.ln(), &mut d, 400);
                assert_eq!(fast, first_decision(&d, &rule), "ratio {ratio}");
            }
        }
        let boundary = SignBoundary::new(0.05);
        let mut replay = SignReplay::new(&noise, 0.05);
        for t in 1..3000 {
            assert_eq!(replay.k(t), boundary.k(t as u64), "t {t}");
        }
    }
}
