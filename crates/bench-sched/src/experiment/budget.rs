//! How many blocks a run count or a time budget asks for; a budget's pilot block.

use std::time::{Duration, Instant};

use crate::design::Target;
use crate::error::SchedError;
use crate::interrupt::InterruptFlag;
use crate::raw::RawWriter;
use crate::runner::Runner;

use super::{ExperimentConfig, NoopObserver, run_experiment};

/// What a time budget's pilot block found ([`ExperimentConfig::fit_budget`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct BudgetFit {
    /// How long the pilot block took (warm-ups and hooks included).
    pub pilot: Duration,
    /// What is left of the budget after it.
    pub remaining: Duration,
    /// The blocks that fit in what is left ([`ExperimentConfig::blocks_within`]; at least
    /// 1, so more than the budget when the pilot alone overran it).
    pub blocks: u32,
}

impl ExperimentConfig {
    /// Measured runs of each variant in one block of this design (2 for two variants in
    /// ABBA/BAAB; the sequential design's "block" is one repetition: 1). Time: O(variants).
    pub fn runs_per_variant_per_block(&self) -> u32 {
        let one = ExperimentConfig {
            blocks: 1,
            resume: None,
            ..self.clone()
        };
        let runs = one.schedule().runs;
        let n = runs
            .iter()
            .filter(|r| r.target == Target::Variant(0))
            .count();
        u32::try_from(n.max(1)).unwrap_or(u32::MAX)
    }

    /// The blocks that give at least `runs` measured runs of every variant: `runs` over
    /// [`Self::runs_per_variant_per_block`], rounded up, at least 1.
    pub fn blocks_for_runs(&self, runs: u32) -> u32 {
        runs.div_ceil(self.runs_per_variant_per_block()).max(1)
    }

    /// Runs one block of this experiment as a pilot (warm-ups, hooks and all; not
    /// recorded, not resumed) through `runner` and says how many blocks fit into what is
    /// left of `budget` at its pace (`--time-budget`). Time: one block's runs.
    ///
    /// # Errors
    /// As [`run_experiment`]: the pilot's configuration, programs, runs or interruption.
    pub fn fit_budget(
        &self,
        budget: Duration,
        stop: &InterruptFlag,
        runner: &mut dyn Runner,
    ) -> Result<BudgetFit, SchedError> {
        let pilot = ExperimentConfig {
            blocks: 1,
            resume: None,
            until: None,
            ..self.clone()
        };
        let started = Instant::now();
        run_experiment(
            &pilot,
            stop,
            runner,
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )?;
        let took = started.elapsed();
        let remaining = budget.saturating_sub(took);
        Ok(BudgetFit {
            pilot: took,
            remaining,
            blocks: ExperimentConfig::blocks_within(remaining, took),
        })
    }

    /// The blocks that fit into `remaining` when one block (warm-ups and hooks included)
    /// took `pilot`: `remaining / pilot`, rounded down, at least 1.
    pub fn blocks_within(remaining: Duration, pilot: Duration) -> u32 {
        let pilot = pilot.as_secs_f64().max(1e-9);
        let n = (remaining.as_secs_f64() / pilot).floor();
        if n >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            (n as u32).max(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CommandSpec, Design, Shell, Variant};

    fn config(n: usize, design: Design) -> ExperimentConfig {
        ExperimentConfig {
            variants: (0..n)
                .map(|i| Variant {
                    name: format!("v{i}"),
                    command: CommandSpec::parse("prog", Shell::None).unwrap(),
                })
                .collect(),
            design,
            ..ExperimentConfig::default()
        }
    }

    #[test]
    fn runs_choose_blocks_by_the_designs_runs_per_block() {
        let abba = config(2, Design::Abba);
        assert_eq!(abba.runs_per_variant_per_block(), 2);
        assert_eq!(abba.blocks_for_runs(40), 20);
        assert_eq!(abba.blocks_for_runs(41), 21);
        assert_eq!(abba.blocks_for_runs(0), 1);
        assert_eq!(config(2, Design::Sequential).blocks_for_runs(10), 10);
        let three = config(3, Design::Abba);
        let per = three.runs_per_variant_per_block();
        assert_eq!(three.blocks_for_runs(10), 10u32.div_ceil(per));
    }

    #[test]
    fn a_budget_fits_whole_blocks() {
        let s = Duration::from_secs;
        assert_eq!(ExperimentConfig::blocks_within(s(10), s(3)), 3);
        assert_eq!(ExperimentConfig::blocks_within(s(1), s(3)), 1);
        assert_eq!(
            ExperimentConfig::blocks_within(s(10), Duration::ZERO),
            u32::MAX
        );
    }
}
