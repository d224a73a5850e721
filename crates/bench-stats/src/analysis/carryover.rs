//! The carryover diagnostics of a blocked `abba` group, attached to its comparisons and
//! warned about: two variants get the ABBA/BAAB diagnostic (position effect, cell means,
//! carryover that differs between the versions), 3+ variants in Williams blocks the
//! residual-effect comparison of each candidate with the baseline. Blocks are taken to
//! run back to back, as `abba compare` runs them, unless a reference run sits beside every
//! variant run (then position 0 follows a reference: separated).

use std::collections::BTreeMap;

use crate::analysis::blocks::BlockTable;
use crate::analysis::warnings::fmt_p;
use crate::diagnostics::carryover::{
    BlockJoin, CarryoverConfig, CarryoverFinding, CarryoverReport, CarryoverRun, carryover,
};
use crate::diagnostics::differential::residual_carryover;
use crate::model::dataset::{Dataset, Design, Series};
use crate::model::report::{
    CarryoverMethod, CarryoverSummary, Comparison, Remedy, Warning, WarningCode,
};

/// Runs the diagnostics for the group and fills `comparisons[k].carryover` (comparison `k`
/// is `members[order[k + 1]]` against `members[order[0]]`).
pub(crate) fn attach(
    data: &Dataset,
    members: &[&Series],
    table: &BlockTable,
    order: &[usize],
    comparisons: &mut [Comparison],
    warnings: &mut Vec<Warning>,
) {
    if data.design != Some(Design::Abba) || order.len() != comparisons.len() + 1 {
        return;
    }
    let beside = !data.reference_beside.is_empty();
    let join = if beside {
        BlockJoin::Separated
    } else {
        BlockJoin::BackToBack
    };
    let baseline = order[0];
    if members.len() == 2 {
        let runs = first_cycles(runs_by_position(members, table, |v| {
            usize::from(v != baseline)
        }));
        let config = CarryoverConfig {
            join,
            ..CarryoverConfig::default()
        };
        if let (Ok(report), Some(c)) = (carryover(&runs, &config), comparisons.first_mut()) {
            c.carryover = Some(two_variant_summary(&report));
            two_variant_warnings(&report, &c.candidate, &data.unit, warnings);
        }
    } else if !beside {
        let runs = runs_by_position(members, table, |v| v);
        for (&candidate, c) in order[1..].iter().zip(comparisons.iter_mut()) {
            let alpha = CarryoverConfig::default().alpha;
            let Ok(r) = residual_carryover(&runs, members.len(), baseline, candidate, join, alpha)
            else {
                continue;
            };
            c.carryover = Some(CarryoverSummary {
                join,
                method: CarryoverMethod::ResidualEffects,
                blocks: table.ids.len(),
                baseline_position_means: None,
                candidate_position_means: None,
                position_effect: None,
                position_p: None,
                differential: Some(r.estimate),
                version_bias: Some(r.version_bias),
                differential_p: Some(r.p_value),
            });
            if r.detected {
                warnings.push(differential_warning(
                    &c.candidate,
                    r.estimate,
                    r.version_bias,
                    r.p_value,
                    ("run right after it reads", &data.unit),
                ));
            }
        }
    }
}

/// The members' runs of the table's blocks with positions renumbered among the variants'
/// runs (a reference run may sit in the block); `variant` maps a member index.
fn runs_by_position(
    members: &[&Series],
    table: &BlockTable,
    variant: impl Fn(usize) -> usize,
) -> Vec<CarryoverRun> {
    let mut by_block: BTreeMap<u32, Vec<(u32, usize, f64)>> = BTreeMap::new();
    for (m, s) in members.iter().enumerate() {
        for o in &s.observations {
            if let (Some(b), Some(p)) = (o.block, o.position) {
                if table.ids.binary_search(&b).is_ok() {
                    by_block
                        .entry(b)
                        .or_default()
                        .push((p, variant(m), o.value));
                }
            }
        }
    }
    let mut runs = Vec::new();
    for (block, mut cells) in by_block {
        cells.sort_by_key(|c| c.0);
        for (position, (_, variant, value)) in cells.into_iter().enumerate() {
            runs.push(CarryoverRun {
                variant,
                block,
                position: position as u32,
                value,
            });
        }
    }
    runs
}

/// Two variants run with several ABBA cycles per block (`--runs-per-block`: `A B B A`
/// repeated, then `B A A B` repeated): only each block's first cycle (positions 0-3)
/// reaches the ABBA/BAAB diagnostic. Its first run follows the previous block's last,
/// the other variant, as the diagnostic's back-to-back model says; a later cycle's first
/// run follows its own variant, which the model does not describe. Blocks of one cycle
/// pass whole.
fn first_cycles(runs: Vec<CarryoverRun>) -> Vec<CarryoverRun> {
    let mut len: BTreeMap<u32, u32> = BTreeMap::new();
    for r in &runs {
        *len.entry(r.block).or_default() += 1;
    }
    runs.into_iter()
        .filter(|r| {
            let n = len[&r.block];
            !(n > 4 && n % 4 == 0) || r.position < 4
        })
        .collect()
}

fn two_variant_summary(r: &CarryoverReport) -> CarryoverSummary {
    CarryoverSummary {
        join: r.join,
        method: CarryoverMethod::AbbaBaab,
        blocks: r.blocks_used,
        baseline_position_means: Some(r.position_means[0]),
        candidate_position_means: Some(r.position_means[1]),
        position_effect: Some(r.position_effect),
        position_p: Some(r.p_value),
        differential: r.differential.map(|d| d.estimate),
        version_bias: r.differential.map(|d| d.version_bias),
        differential_p: r.differential.map(|d| d.p_value),
    }
}

/// `-649.4 us`, `+0.1667 value`: a difference in the data's unit with four significant
/// digits, a time scaled to the unit (ns to s) that puts it at 1 or more.
fn in_unit(x: f64, unit: &str) -> String {
    let (value, unit) = match crate::model::dataset::nanos_per_time_unit(unit) {
        Some(per) => {
            let ns = x * per;
            [("s", 1e9), ("ms", 1e6), ("us", 1e3), ("ns", 1.0)]
                .into_iter()
                .find(|(_, k)| ns.abs() >= *k)
                .map_or((ns, "ns"), |(u, k)| (ns / k, u))
        }
        None => (x, unit),
    };
    let digits = if value == 0.0 || !value.is_finite() {
        0
    } else {
        (3 - value.abs().log10().floor() as i32).clamp(0, 6) as usize
    };
    let number = format!("{value:+.digits$}");
    if unit.is_empty() {
        number
    } else {
        format!("{number} {unit}")
    }
}

fn two_variant_warnings(
    r: &CarryoverReport,
    candidate: &str,
    unit: &str,
    warnings: &mut Vec<Warning>,
) {
    let join = match r.join {
        BlockJoin::BackToBack => " (blocks back to back: the block contrast sees 3/4 of it)",
        BlockJoin::Separated => "",
    };
    match r.finding {
        CarryoverFinding::NotDetected => {}
        CarryoverFinding::PositionDominates => warnings.push(Warning::new(
            WarningCode::Carryover,
            None,
            format!(
                "runs that follow the other variant differ by {} on average{join} (sign test p = {}), as much as the version effect itself; the result may reflect run order, not the change",
                in_unit(r.position_effect, unit),
                fmt_p(Some(r.p_value))
            ),
        )),
        CarryoverFinding::Detected => warnings.push(
            Warning::new(
                WarningCode::Carryover,
                None,
                format!(
                    "runs that follow the other variant differ by {} on average{join} (sign test p = {}); ABBA order cancels a symmetric carryover",
                    in_unit(r.position_effect, unit),
                    fmt_p(Some(r.p_value))
                ),
            )
            .with_remedy(Remedy::SettleBetweenRuns),
        ),
    }
    if let Some(d) = r.differential.filter(|d| d.detected) {
        warnings.push(differential_warning(
            candidate,
            d.estimate,
            d.version_bias,
            d.p_value,
            ("run right after the baseline reads", unit),
        ));
    }
}

fn differential_warning(
    candidate: &str,
    estimate: f64,
    bias: f64,
    p: f64,
    (what, unit): (&str, &str),
) -> Warning {
    Warning::new(
        WarningCode::DifferentialCarryover,
        Some(candidate),
        format!(
            "carryover differs between the versions: a {candidate} {what} {} more than the reverse (p = {}), which ABBA does not cancel; it shifts the measured difference by about {}",
            in_unit(estimate, unit),
            fmt_p(Some(p)),
            in_unit(bias, unit)
        ),
    )
    .with_remedy(Remedy::SettleBetweenRuns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(block: u32, order: &[usize]) -> Vec<CarryoverRun> {
        order
            .iter()
            .enumerate()
            .map(|(p, &variant)| CarryoverRun {
                variant,
                block,
                position: p as u32,
                value: 1.0 + p as f64,
            })
            .collect()
    }

    #[test]
    fn differences_read_in_the_unit_with_four_significant_digits() {
        assert_eq!(in_unit(-649_433.333_3, "ns"), "-649.4 us");
        assert_eq!(in_unit(0.166_67, "value"), "+0.1667 value");
        assert_eq!(in_unit(-4_780_267.133_3, "ns"), "-4.780 ms");
        assert_eq!(in_unit(12.5, ""), "+12.50");
        assert_eq!(in_unit(0.0, "ns"), "+0 ns");
    }

    #[test]
    fn only_the_first_cycle_of_a_longer_block_is_read() {
        let runs = [
            block(0, &[0, 1, 1, 0, 0, 1, 1, 0]),
            block(1, &[1, 0, 0, 1]),
            block(2, &[1, 0, 0, 1, 1, 0]),
        ]
        .concat();
        let kept = first_cycles(runs.clone());
        let of = |b: u32| kept.iter().filter(|r| r.block == b).count();
        assert_eq!((of(0), of(1), of(2)), (4, 4, 6));
        assert!(kept.iter().filter(|r| r.block == 0).all(|r| r.position < 4));
        // One cycle per block: nothing changes.
        let single = [block(0, &[0, 1, 1, 0]), block(1, &[1, 0, 0, 1])].concat();
        assert_eq!(first_cycles(single.clone()), single);
    }
}
