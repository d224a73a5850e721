//! Why a configuration cannot run ([`ConfigError`]): every invariant
//! [`ExperimentConfig::validate`] checks, each a variant a front end can word as its own
//! flags.

use std::time::Duration;

use crate::counter::{CountEvent, CounterSource};
use crate::design::Design;
use crate::runner::Metric;

use super::{ExperimentConfig, REFERENCE_NAME, Until};

/// An experiment configuration that cannot run, or a setting that cannot be turned into
/// one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// [`ExperimentConfig::variants`] is empty.
    #[error("no variants to run")]
    NoVariants,
    /// [`ExperimentConfig::blocks`] is 0 (with a stop rule: its max blocks).
    #[error("blocks must be at least 1")]
    NoBlocks,
    /// Hooks are given, but not one per variant.
    #[error("hooks are given for {hooks} variants but there are {variants}")]
    HooksPerVariant {
        /// Hooks given.
        hooks: usize,
        /// Variants.
        variants: usize,
    },
    /// Warm-ups per block with the sequential design, which has no blocks to warm.
    #[error(
        "warm-up runs per block need a blocked design (the sequential design runs each variant in one session)"
    )]
    WarmupPerBlockUnblocked,
    /// [`ExperimentConfig::cycles`] is 0.
    #[error("cycles per block must be at least 1")]
    NoCycles,
    /// More than one cycle per block (or a runs-per-block count) with the sequential design.
    #[error(
        "more runs per block need a blocked design (the sequential design runs each variant in one session)"
    )]
    CyclesUnblocked,
    /// A runs-per-block count that is not a positive multiple of one cycle's runs of each
    /// variant ([`ExperimentConfig::cycles_for_runs_per_block`]).
    #[error(
        "{runs} runs per block: must be a positive multiple of {per_cycle}, the runs of each variant in one cycle of the {design} design with {variants} variants"
    )]
    RunsPerBlock {
        /// The runs of each variant asked for per block.
        runs: u32,
        /// The runs of each variant in one cycle of the design.
        per_cycle: u32,
        /// The design.
        design: Design,
        /// How many variants.
        variants: usize,
    },
    /// A per-run timeout of zero: every run would time out.
    #[error("the per-run timeout must be longer than 0")]
    ZeroTimeout,
    /// A stop rule with other than two variants.
    #[error("a sequential stop rule compares two variants; there are {variants}")]
    UntilVariants {
        /// How many variants.
        variants: usize,
    },
    /// A suite's stop rule with a benchmark of other than two variants.
    #[error(
        "a sequential stop rule compares two variants per benchmark; benchmark {benchmark:?} has {variants}"
    )]
    UntilSuiteVariants {
        /// The benchmark.
        benchmark: String,
        /// How many variants it has.
        variants: usize,
    },
    /// A stop rule with the sequential design.
    #[error("a sequential stop rule needs a blocked design (abba or random)")]
    UntilUnblocked,
    /// A stop rule whose min blocks are above its max blocks.
    #[error("the stop rule's min blocks ({min}) are above its max blocks ({max})")]
    UntilMinAboveMax {
        /// Min blocks.
        min: u32,
        /// Max blocks.
        max: u32,
    },
    /// A stop rule whose max blocks are fewer than its sequence needs to decide anything at
    /// its alpha: it could only stop inconclusive (a gate would pass whatever the data).
    #[error(
        "the stop rule's max blocks ({max}) are below the {needed} blocks its sequence needs to decide at alpha {alpha}: it could never decide"
    )]
    UntilCannotDecide {
        /// Max blocks.
        max: u32,
        /// The fewest blocks after which the sequence can decide.
        needed: u32,
        /// The rule's alpha.
        alpha: f64,
    },
    /// A stop rule whose max blocks are not the planned blocks.
    #[error("the stop rule's blocks ({min} to {max}) must end at the planned blocks ({blocks})")]
    UntilBlocks {
        /// Min blocks.
        min: u32,
        /// Max blocks.
        max: u32,
        /// Planned blocks.
        blocks: u32,
    },
    /// A count metric without a counter.
    #[error("the metric {event} needs a counter (the PMU or valgrind)")]
    CountWithoutCounter {
        /// The event counted.
        event: CountEvent,
    },
    /// A counter that cannot count the metric's event.
    #[error("{counter} cannot count {event}; it counts only instructions")]
    CounterCannotCount {
        /// The counter.
        counter: CounterSource,
        /// The event.
        event: CountEvent,
    },
    /// A time or memory metric measured under a counter whose times are its own.
    #[error(
        "the metric {metric} would be measured under {counter}, whose times and memory are its own, not the program's; decide on instructions"
    )]
    MetricUnderCounter {
        /// The metric.
        metric: Metric,
        /// The counter.
        counter: CounterSource,
    },
    /// A scanned parameter without one value per variant.
    #[error("parameter {name:?} has {values} values for {variants} variants")]
    ParameterValues {
        /// The parameter's name.
        name: String,
        /// Values given.
        values: usize,
        /// Variants.
        variants: usize,
    },
    /// Two variants of one name.
    #[error("variant name {name:?} is used twice")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// A variant named as the reference workload is recorded.
    #[error("variant name {REFERENCE_NAME:?} is reserved for the reference workload")]
    ReservedName,
    /// A shell name that is not `none` or `sh`.
    #[error("unknown shell {given:?}; expected one of: none, sh")]
    UnknownShell {
        /// The rejected text.
        given: String,
    },
    /// A CPU list that cannot be read (a header's `pin`).
    #[error("CPU list {given:?}: {message}")]
    CpuList {
        /// The rejected text.
        given: String,
        /// Why.
        message: String,
    },
    /// A suite benchmark naming a variant the experiment lacks (a header's `suite`).
    #[error("{0}")]
    SuiteVariant(String),
    /// The schedule planned a reference run but the experiment has no reference (a
    /// schedule built for another configuration).
    #[error("reference run without a reference")]
    ReferenceRunWithoutReference,
}

impl Until {
    /// Checks the rule's own invariants: at least one block, min blocks not above max
    /// blocks, and max blocks enough for the sequence to decide at its alpha
    /// ([`ExperimentConfig::validate`] checks them too, with the rest).
    ///
    /// # Errors
    /// [`ConfigError::NoBlocks`], [`ConfigError::UntilMinAboveMax`] or
    /// [`ConfigError::UntilCannotDecide`].
    pub fn validate(&self) -> Result<(), ConfigError> {
        let (min, max) = (self.rule.min_blocks, self.rule.max_blocks);
        if max == 0 {
            return Err(ConfigError::NoBlocks);
        }
        if min > max {
            return Err(ConfigError::UntilMinAboveMax { min, max });
        }
        let needed = bench_stats::sequential::SequentialRule::needed_blocks(self.rule.alpha);
        if max < needed {
            return Err(ConfigError::UntilCannotDecide {
                max,
                needed,
                alpha: self.rule.alpha,
            });
        }
        Ok(())
    }
}

impl ExperimentConfig {
    /// Checks every invariant of the configuration, in this order: variants, blocks,
    /// hooks, warm-ups per block, cycles, timeout, stop rule, counter, scanned parameter,
    /// variant names. [`crate::run_experiment`] and [`Self::preflight`] call it; a front end
    /// calls it to refuse a configuration before anything runs. Time: O(variants²).
    ///
    /// # Errors
    /// The first [`ConfigError`] found.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let variants = self.variants.len();
        // A shard of a suite may hold no benchmark: it runs nothing and records so.
        if variants == 0 && self.shard.is_none() {
            return Err(ConfigError::NoVariants);
        }
        if self.blocks == 0 {
            return Err(ConfigError::NoBlocks);
        }
        if !self.hooks.is_empty() && self.hooks.len() != variants {
            return Err(ConfigError::HooksPerVariant {
                hooks: self.hooks.len(),
                variants,
            });
        }
        let blocked = self.design != Design::Sequential;
        if self.warmup_per_block > 0 && !blocked {
            return Err(ConfigError::WarmupPerBlockUnblocked);
        }
        if self.cycles == 0 {
            return Err(ConfigError::NoCycles);
        }
        if self.cycles > 1 && !blocked {
            return Err(ConfigError::CyclesUnblocked);
        }
        if self.timeout == Some(Duration::ZERO) {
            return Err(ConfigError::ZeroTimeout);
        }
        self.validate_until()?;
        self.validate_counter()?;
        if let Some(p) = &self.parameter {
            if p.values.len() != variants {
                return Err(ConfigError::ParameterValues {
                    name: p.name.clone(),
                    values: p.values.len(),
                    variants,
                });
            }
        }
        for (i, v) in self.variants.iter().enumerate() {
            if self.variants[..i].iter().any(|w| w.name == v.name) {
                return Err(ConfigError::DuplicateName {
                    name: v.name.clone(),
                });
            }
            if self.reference.is_some() && v.name == REFERENCE_NAME {
                return Err(ConfigError::ReservedName);
            }
        }
        Ok(())
    }

    fn validate_until(&self) -> Result<(), ConfigError> {
        let Some(u) = &self.until else {
            return Ok(());
        };
        match &self.suite {
            // A suite's rule decides each benchmark: two variants each.
            Some(suite) => {
                if let Some(b) = suite.benchmarks.iter().find(|b| b.variants.len() != 2) {
                    return Err(ConfigError::UntilSuiteVariants {
                        benchmark: b.name.clone(),
                        variants: b.variants.len(),
                    });
                }
            }
            None if self.variants.len() != 2 => {
                return Err(ConfigError::UntilVariants {
                    variants: self.variants.len(),
                });
            }
            None => {}
        }
        if self.design == Design::Sequential {
            return Err(ConfigError::UntilUnblocked);
        }
        u.validate()?;
        let (min, max) = (u.rule.min_blocks, u.rule.max_blocks);
        if max != self.blocks {
            return Err(ConfigError::UntilBlocks {
                min,
                max,
                blocks: self.blocks,
            });
        }
        Ok(())
    }

    /// A count metric needs a counter that counts its event; under valgrind nothing but
    /// a count may decide.
    fn validate_counter(&self) -> Result<(), ConfigError> {
        match (self.metric.count_event(), self.counter) {
            (Some(event), None) => Err(ConfigError::CountWithoutCounter { event }),
            (Some(event), Some(counter)) if !counter.counts(event) => {
                Err(ConfigError::CounterCannotCount { counter, event })
            }
            (None, Some(counter)) if !counter.times_are_the_programs() => {
                Err(ConfigError::MetricUnderCounter {
                    metric: self.metric.clone(),
                    counter,
                })
            }
            (Some(_) | None, Some(_) | None) => Ok(()),
        }
    }

    /// The cycles of the design's order per block that give `runs` runs of each variant
    /// in every block (`--runs-per-block`): `runs` over one cycle's runs of each variant
    /// (2 for two variants in ABBA, 1 otherwise).
    ///
    /// # Errors
    /// [`ConfigError::CyclesUnblocked`] for the sequential design (whatever `runs`), and
    /// [`ConfigError::RunsPerBlock`] when `runs` is not a positive multiple of one cycle's.
    pub fn cycles_for_runs_per_block(&self, runs: u32) -> Result<u32, ConfigError> {
        if self.design == Design::Sequential {
            return Err(ConfigError::CyclesUnblocked);
        }
        let per_cycle = ExperimentConfig {
            cycles: 1,
            resume: None,
            ..self.clone()
        }
        .runs_per_variant_per_block();
        if runs == 0 || runs % per_cycle != 0 {
            return Err(ConfigError::RunsPerBlock {
                runs,
                per_cycle,
                design: self.design,
                variants: self.variants.len(),
            });
        }
        Ok(runs / per_cycle)
    }
}
