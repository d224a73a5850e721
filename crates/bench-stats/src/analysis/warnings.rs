//! The warnings of one group: percentiles withheld, drift and autocorrelation of each
//! series, dropped blocks, unpaired designs, and ABBA carryover. Facts only: a front end
//! words the remedies in its own terms.

use crate::analysis::blocks::BlockTable;
use crate::descriptive::Sample;
use crate::diagnostics::iid::iid_checks;
use crate::diagnostics::within_block::{BlockedRun, WITHIN_BLOCK_LEVEL, within_block_dependence};
use crate::model::dataset::{Dataset, Design, Series};
use crate::model::report::{Remedy, Warning, WarningCode};

pub(crate) fn fmt_p(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
        None => "n/a".to_string(),
    }
}

/// p99 is withheld for every member with fewer than [`crate::descriptive::P99_MIN_SAMPLES`]
/// values: one warning naming them.
pub(crate) fn p99_withheld(members: &[&Series], samples: &[Sample], warnings: &mut Vec<Warning>) {
    let min = crate::descriptive::P99_MIN_SAMPLES;
    let withheld: Vec<String> = members
        .iter()
        .zip(samples)
        .filter(|(_, sample)| sample.len() < min)
        .map(|(s, sample)| format!("{} (n = {})", s.name, sample.len()))
        .collect();
    if !withheld.is_empty() {
        warnings.push(Warning::new(
            WarningCode::P99Withheld,
            None,
            format!(
                "p99 withheld for {}: with fewer than {min} values the 99th percentile is just the maximum; median and p90 are reported instead",
                withheld.join(", ")
            ),
        ));
    }
}

/// Drift of each member's run stream, and the dependence between neighbouring runs that
/// the analysis does not remove: for blocked runs, inside blocks after each block's level
/// ([`within_block_dependence`]; a block's level is what pairing removes, and the stream's
/// lag-1 correlation, which counts it, warned on most A/A experiments of a machine whose
/// blocks differ); for runs without blocks, the stream's lag-1 correlation. Blocked runs
/// without positions are not checked for dependence (their order in a block is unknown).
pub(crate) fn iid(members: &[&Series], samples: &[Sample], warnings: &mut Vec<Warning>) {
    let blocked = members
        .iter()
        .all(|s| s.observations.iter().all(|o| o.block.is_some()));
    for (s, sample) in members.iter().zip(samples) {
        let Ok(iid) = iid_checks(sample) else {
            continue;
        };
        if iid.drift {
            warnings.push(Warning::new(
                WarningCode::Drift,
                Some(&s.name),
                format!(
                    "the first and second halves of the runs differ (split-half Mann-Whitney p = {}): the machine's state moved during the experiment",
                    fmt_p(iid.drift_p_value)
                ),
            ));
        }
        if iid.autocorrelated && !blocked {
            warnings.push(Warning::new(
                WarningCode::Autocorrelation,
                Some(&s.name),
                format!(
                    "consecutive runs are correlated (lag-1 r = {:.2}); the effective number of independent runs is about {:.0} of {}",
                    iid.lag1_autocorrelation.unwrap_or(0.0),
                    iid.effective_n.unwrap_or(0.0),
                    iid.n
                ),
            ));
        }
    }
    if blocked {
        within_blocks(members, warnings);
    }
}

/// The autocorrelation warning of blocked runs with positions: neighbours inside a block
/// that move together beyond the block's level, the variant's effect and the position's.
fn within_blocks(members: &[&Series], warnings: &mut Vec<Warning>) {
    let runs: Option<Vec<BlockedRun>> = members
        .iter()
        .enumerate()
        .flat_map(|(variant, s)| {
            s.observations.iter().map(move |o| {
                Some(BlockedRun {
                    variant,
                    block: o.block?,
                    position: o.position?,
                    value: o.value,
                })
            })
        })
        .collect();
    let Some(d) = runs
        .and_then(|r| within_block_dependence(&r))
        .filter(|d| d.dependent)
    else {
        return;
    };
    warnings.push(
        Warning::new(
            WarningCode::Autocorrelation,
            None,
            "neighbouring runs inside a block move together beyond the block's level; the verdict holds, since its tests compare whole blocks",
        )
        .with_detail(format!(
            "their correlation exceeds that of runs further apart in the block by {:.2}; exact one-sided sign-flip p = {} over {} undisturbed blocks, warned at p <= {WITHIN_BLOCK_LEVEL}",
            d.excess_lag1,
            fmt_p(Some(d.p_value)),
            d.blocks,
        ))
        .with_remedy(Remedy::ClearCarriedState),
    );
}

/// Blocks dropped because a member did not run in them, and comparisons that are unpaired
/// (by design, or because the data carry no blocks).
pub(crate) fn pairing(
    data: &Dataset,
    members: usize,
    table: Option<&BlockTable>,
    warnings: &mut Vec<Warning>,
) {
    if let Some(t) = table.filter(|t| t.dropped > 0) {
        warnings.push(Warning::new(
            WarningCode::IncompleteBlocks,
            None,
            format!(
                "{} incomplete block(s) dropped: only blocks in which every variant ran are compared",
                t.dropped
            ),
        ));
    }
    if members < 2 {
        return;
    }
    if data.design == Some(Design::Sequential) {
        warnings.push(
            Warning::new(
                WarningCode::UnpairedDesign,
                None,
                "sequential design: all runs of one variant, then the next; the comparison is unpaired, so drift between the sessions counts as an effect",
            )
            .with_remedy(Remedy::PairInBlocks),
        );
    } else if table.is_none() {
        let ids: std::collections::BTreeSet<u32> = data
            .series
            .iter()
            .flat_map(|s| s.observations.iter().filter_map(|o| o.block))
            .collect();
        let blocked = data
            .series
            .iter()
            .all(|s| s.observations.iter().all(|o| o.block.is_some()));
        if blocked && ids.len() == 1 {
            warnings.push(Warning::new(
                WarningCode::UnpairedDesign,
                None,
                "the data carry only one block (pairing needs at least two), so the variants are compared unpaired within it (every run against every run)",
            ));
            return;
        }
        warnings.push(Warning::new(
            WarningCode::UnpairedDesign,
            None,
            "the data carry no blocks, so the variants are compared unpaired (every run against every run): whatever drifted between the times each variant was measured counts as an effect. `abba compare` measures them in blocks",
        ));
    }
}

/// The gate's downgrade of a significant verdict whose practical value (`what`, e.g.
/// |Cliff's delta|) is below the minimum.
pub(crate) fn practical_gate(candidate: &str, what: &str, value: f64, minimum: f64) -> Warning {
    Warning::new(
        WarningCode::PracticalGate,
        Some(candidate),
        format!(
            "significant, but {what} = {value:.3} is below the minimum {minimum:.3}: the two overlap too much to call it a difference, so it is reported as not significant"
        ),
    )
    .with_remedy(Remedy::DisablePracticalGate)
}

/// A reference workload whose own noise biases the ratio of ratios (`cv` its own
/// coefficient of variation, `bias` = cv² / blocks; see `paired::reference`).
pub(crate) fn noisy_reference(candidate: &str, cv: f64, bias: f64, blocks: usize) -> Warning {
    Warning::new(
        WarningCode::NoisyReference,
        Some(candidate),
        format!(
            "the reference's own noise is {:.1}% (from the two reference values of each block), which biases the ratio of ratios upward by about {:.2}% over {blocks} blocks (CV² / blocks); judge it against the block values",
            cv * 100.0,
            bias * 100.0
        ),
    )
}

/// The standout of a group of several candidates, as a hypothesis to confirm.
pub(crate) fn standout(group: &crate::model::report::GroupAnalysis) -> Option<Warning> {
    let c = group.standout()?;
    let (what, ratio) = c.largest_change()?;
    Some(
        Warning::new(
            WarningCode::Standout,
            Some(&c.candidate),
            format!(
                "{} stands out among {} candidates ({what} {ratio:.3}x against {}): the largest of several comparisons tends to overstate its size (its verdict stands), so confirm how large it is with an independent run",
                c.candidate,
                group.comparisons.len(),
                group.baseline
            ),
        )
        .with_remedy(Remedy::ConfirmStandout),
    )
}
