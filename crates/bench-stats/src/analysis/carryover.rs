//! The carryover diagnostics of a blocked `abba` group, attached to its comparisons and
//! warned about: two variants get the ABBA/BAAB diagnostic (position effect, cell means,
//! carryover that differs between the versions), 3+ variants in Williams blocks the
//! residual-effect comparison of each candidate with the baseline. Blocks are taken to
//! run back to back, as `abba compare` runs them, unless a reference run sits beside every
//! variant run (then position 0 follows a reference: separated).

use crate::analysis::blocks::BlockTable;
use crate::analysis::warnings::fmt_p;
use crate::diagnostics::carryover::{
    BlockJoin, CarryoverConfig, CarryoverFinding, CarryoverReport, CarryoverRun, carryover,
};
use crate::diagnostics::differential::{ResidualCarryover, residual_carryover};
use crate::model::dataset::{Dataset, Design, Series};
use crate::model::report::{
    CarryoverMethod, CarryoverSummary, Comparison, Outcome, Remedy, Warning, WarningCode,
};
use crate::rank::mann_whitney::Alternative;
use crate::rank::wilcoxon::{WilcoxonConfig, paired_hl_estimate, wilcoxon_signed_rank_with};

/// The carryover diagnostics of a group, computed before its comparisons are (they read
/// the runs alone) and attached to them after ([`attach`]).
pub(crate) enum Checked {
    /// Two variants: the ABBA/BAAB diagnostic and the steady-state reading.
    Two {
        report: Option<Box<CarryoverReport>>,
        steady: Option<SteadyState>,
    },
    /// 3+ variants: each candidate's residual-effect comparison with the baseline, in
    /// the order of the candidates.
    Residual {
        join: BlockJoin,
        results: Vec<Option<ResidualCarryover>>,
    },
}

/// Runs the diagnostics of the group (`order[0]` the baseline, then the candidates) on
/// the blocks of `table`; `None` when it gets none (no table; not an ABBA design; 3+
/// variants with a reference beside).
pub(crate) fn check(
    data: &Dataset,
    members: &[&Series],
    table: Option<&BlockTable>,
    order: &[usize],
) -> Option<Checked> {
    let table = table?;
    if data.design != Some(Design::Abba) || order.is_empty() {
        return None;
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
        // The steady-state reading needs blocks of one ABBA cycle run back to back, whose
        // predecessors it models. (Beside the diagnostic, on another thread, the two
        // raised the analysis's peak memory: that thread's allocator keeps what it held.)
        let report = carryover(&runs, &config).ok().map(Box::new);
        let steady = (join == BlockJoin::BackToBack && single_cycles(&runs))
            .then(|| steady_state(&runs))
            .flatten();
        Some(Checked::Two { report, steady })
    } else if !beside {
        let runs = runs_by_position(members, table, |v| v);
        let alpha = CarryoverConfig::default().alpha;
        let results = order[1..]
            .iter()
            .map(|&candidate| {
                residual_carryover(&runs, members.len(), baseline, candidate, join, alpha).ok()
            })
            .collect();
        Some(Checked::Residual { join, results })
    } else {
        None
    }
}

/// Fills `comparisons[k].carryover` from the group's diagnostics `checked` ([`check`] of
/// the same group; comparison `k` is `members[order[k + 1]]` against
/// `members[order[0]]`) and warns.
pub(crate) fn attach(
    checked: Option<Checked>,
    data: &Dataset,
    members: &[&Series],
    table: &BlockTable,
    order: &[usize],
    comparisons: &mut [Comparison],
    warnings: &mut Vec<Warning>,
) {
    if order.len() != comparisons.len() + 1 {
        return;
    }
    let Some(checked) = checked else {
        return;
    };
    let baseline = order[0];
    match checked {
        Checked::Two { report, steady } => {
            if let (Some(report), Some(c)) = (report, comparisons.first_mut()) {
                c.carryover = Some(two_variant_summary(&report));
                two_variant_warnings(
                    &report,
                    &c.candidate,
                    &data.unit,
                    steady.is_none(),
                    warnings,
                );
            }
            if let (Some(s), Some(c)) = (steady, comparisons.first_mut()) {
                let base = baseline_scale(members[baseline], table);
                let words = CarryoverWords {
                    baseline: &members[baseline].name,
                    unit: &data.unit,
                    scale: base,
                    higher_is_better: data.higher_is_better,
                };
                hold_direction(c, &s, &words, CarryoverConfig::default().alpha, warnings);
            }
        }
        Checked::Residual { join, results } => {
            for (r, c) in results.into_iter().zip(comparisons.iter_mut()) {
                let Some(r) = r else {
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
}

/// The members' runs of the table's blocks with positions renumbered among the variants'
/// runs (a reference run may sit in the block); `variant` maps a member index.
fn runs_by_position(
    members: &[&Series],
    table: &BlockTable,
    variant: impl Fn(usize) -> usize,
) -> Vec<CarryoverRun> {
    // Every run of the table's blocks in one list, ordered by block and recorded position,
    // a block's runs of equal position in list order (members in order, each in arrival
    // order): the order one stable sort by (block, position) gives, here by counting the
    // runs of each block (the table's blocks are its index) and placing them, then a
    // stable sort of each block's few runs by position. Memory: 24 bytes a run, 4 bytes
    // a run while placing and 4 a block.
    let index = BlockIndex::new(&table.ids);
    let mut slot: Vec<u32> = Vec::new();
    let mut starts = vec![0u32; table.ids.len() + 1];
    for o in members.iter().flat_map(|s| &s.observations) {
        if let (Some(b), Some(_)) = (o.block, o.position)
            && let Some(i) = index.of(b)
        {
            starts[i + 1] += 1;
            slot.push(i as u32);
        }
    }
    for i in 0..table.ids.len() {
        starts[i + 1] += starts[i];
    }
    let count = slot.len();
    let mut next = starts.clone();
    let mut runs = vec![
        CarryoverRun {
            variant: 0,
            block: 0,
            position: 0,
            value: 0.0,
        };
        count
    ];
    let mut k = 0;
    for (m, s) in members.iter().enumerate() {
        for o in &s.observations {
            if let (Some(block), Some(position)) = (o.block, o.position)
                && index.of(block).is_some()
            {
                let i = slot[k] as usize;
                k += 1;
                runs[next[i] as usize] = CarryoverRun {
                    variant: variant(m),
                    block,
                    position,
                    value: o.value,
                };
                next[i] += 1;
            }
        }
    }
    drop(slot);
    for w in starts.windows(2) {
        let group = &mut runs[w[0] as usize..w[1] as usize];
        group.sort_by_key(|r| r.position);
        for (position, r) in group.iter_mut().enumerate() {
            r.position = position as u32;
        }
    }
    runs
}

/// Where a block id sits among the table's ids (ascending): a table by id when the ids
/// are dense enough (at most 4 ids a block, plus 1,024), else a binary search.
struct BlockIndex<'a> {
    ids: &'a [u32],
    dense: Vec<u32>,
}

impl BlockIndex<'_> {
    fn new(ids: &[u32]) -> BlockIndex<'_> {
        let dense = match ids.last() {
            Some(&last) if (last as usize) < 4 * ids.len() + 1024 => {
                let mut dense = vec![u32::MAX; last as usize + 1];
                for (i, &id) in ids.iter().enumerate() {
                    dense[id as usize] = i as u32;
                }
                dense
            }
            _ => Vec::new(),
        };
        BlockIndex { ids, dense }
    }

    /// The index of `id` among the ids, `None` when it is not one.
    fn of(&self, id: u32) -> Option<usize> {
        if self.dense.is_empty() {
            self.ids.binary_search(&id).ok()
        } else {
            self.dense
                .get(id as usize)
                .filter(|&&i| i != u32::MAX)
                .map(|&i| i as usize)
        }
    }
}

/// The runs of each block, in ascending block order, each block's runs in list order:
/// the groups a map from block to a list of its runs gives. `runs` sorted by block (as
/// [`runs_by_position`] gives them) are read in place; others are sorted by block first
/// (stably).
fn by_block(runs: &[CarryoverRun]) -> std::borrow::Cow<'_, [CarryoverRun]> {
    if runs.is_sorted_by_key(|r| r.block) {
        std::borrow::Cow::Borrowed(runs)
    } else {
        let mut sorted = runs.to_vec();
        sorted.sort_by_key(|r| r.block);
        std::borrow::Cow::Owned(sorted)
    }
}

/// Two variants run with several ABBA cycles per block (`--runs-per-block`: `A B B A`
/// repeated, then `B A A B` repeated): only each block's first cycle (positions 0-3)
/// reaches the ABBA/BAAB diagnostic. Its first run follows the previous block's last,
/// the other variant, as the diagnostic's back-to-back model says; a later cycle's first
/// run follows its own variant, which the model does not describe. Blocks of one cycle
/// pass whole. `runs` sorted by block ([`runs_by_position`]).
fn first_cycles(mut runs: Vec<CarryoverRun>) -> Vec<CarryoverRun> {
    debug_assert!(runs.is_sorted_by_key(|r| r.block));
    let mut keep = Vec::with_capacity(runs.len());
    for group in runs.chunk_by(|a, b| a.block == b.block) {
        let n = group.len();
        keep.extend(
            group
                .iter()
                .map(|r| !(n > 4 && n % 4 == 0) || r.position < 4),
        );
    }
    let mut kept = keep.into_iter();
    runs.retain(|_| kept.next().unwrap_or(false));
    runs
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
    scaled(x, unit, 3, true)
}

/// `x` in the data's unit with `lead + 1` significant digits (a sign when `signed`), a time
/// scaled to the unit (ns to s) that puts it at 1 or more.
fn scaled(x: f64, unit: &str, lead: i32, signed: bool) -> String {
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
        (lead - value.abs().log10().floor() as i32).clamp(0, 6) as usize
    };
    let number = if signed {
        format!("{value:+.digits$}")
    } else {
        format!("{value:.digits$}")
    };
    if unit.is_empty() {
        number
    } else {
        format!("{number} {unit}")
    }
}

/// One-sided level at which the after-candidate contrast counts as a carryover that
/// cannot be ruled out: `p <= 0.25` that runs right after the candidate read more (or
/// less) in the direction that could turn the claim over.
pub(crate) const CARRYOVER_NOT_RULED_OUT: f64 = 0.25;

/// One-sided level the steady-state contrast must reach in the claimed direction for a
/// direction to stand beside a carryover that cannot be ruled out (`p <= 0.35`: the
/// steady state points the same way by about 0.4 of its standard error).
pub(crate) const STEADY_STATE_AGREES: f64 = 0.35;

/// Two variants in ABBA/BAAB blocks of one cycle each (4 runs), read for the state that
/// each version leaves behind, on the log scale. Back to back (`… A | B A A B | A B B A |
/// B …`), the candidate `B` follows `A` in 3 of its 4 runs and itself in 1 (the ABBA
/// block's position 2), `A` follows `B` in 3 and itself in 1 (the BAAB block's position
/// 2). With `c(X→Y)` the extra log-time of a `Y` run right after an `X` run:
///
/// - the measured block difference `m` (mean of `B`'s runs less `A`'s) is
///   `δ + ¾ c(A→B) + ¼ c(B→B) − ¾ c(B→A) − ¼ c(A→A)`;
/// - the steady state, each version run after itself, is `δ + c(B→B) − c(A→A)`;
/// - the after-candidate contrast `d` (ABBA: position 2 less 1, `B` after `B` less `B`
///   after `A`; BAAB: position 1 less 2, `A` after `B` less `A` after `A`) has mean
///   `(c(B→B) − c(A→B) + c(B→A) − c(A→A)) / 2`, and the steady state is exactly
///   `m + 1.5 d`: per block `s = (−y0 − 2 y1 + 4 y2 − y3) / 2` (ABBA) or its negative
///   (BAAB), whose weights sum to 0 (the block level cancels). A position effect enters
///   ABBA and BAAB blocks with opposite signs and cancels between them.
///
/// A carryover any switch of version causes (symmetric) leaves `d` at 0 and `m`
/// unbiased. One that `B` leaves behind (every run after `B` 5% slower, `B` unchanged)
/// gives `d = 5%`, `m = −2.5%` and a steady state of `+5%`: ABBA says faster what is
/// slower run by itself. `s` has `√5.5` times the spread of `m`'s block values, so the
/// steady state is read only to keep a direction it contradicts from being claimed
/// ([`hold_direction`]), never to claim one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SteadyState {
    /// Blocks read.
    pub(crate) blocks: usize,
    /// Hodges-Lehmann estimate of `d` (log scale).
    pub(crate) after: f64,
    /// Two-sided signed-rank p of `d = 0`.
    pub(crate) after_p: f64,
    /// One-sided signed-rank p of `d > 0`, `d < 0`.
    pub(crate) after_one_sided: [f64; 2],
    /// Hodges-Lehmann estimate of the steady state `s` (log scale).
    pub(crate) steady: f64,
    /// One-sided signed-rank p of `s > 0`, `s < 0`.
    pub(crate) steady_one_sided: [f64; 2],
    /// Hodges-Lehmann estimate of `m` (log scale), the measured difference of these blocks.
    pub(crate) measured: f64,
}

/// Every block holds 4 runs (one ABBA cycle): the predecessors [`steady_state`] models.
fn single_cycles(runs: &[CarryoverRun]) -> bool {
    by_block(runs)
        .chunk_by(|a, b| a.block == b.block)
        .all(|g| g.len() == 4)
}

/// The steady-state reading of [`SteadyState`]; `None` with fewer than 6 complete
/// ABBA/BAAB blocks, without both kinds of block, or with a run that is not positive.
/// Time: `O(b²)` for `b` blocks (the Hodges-Lehmann estimates; the signed-rank tests are
/// exact up to 50 blocks, normal beyond).
pub(crate) fn steady_state(runs: &[CarryoverRun]) -> Option<SteadyState> {
    let grouped = by_block(runs);
    let (mut m, mut d, mut s) = (Vec::new(), Vec::new(), Vec::new());
    let mut kinds = [0usize; 2];
    for block in grouped.chunk_by(|a, b| a.block == b.block) {
        let mut cells: [Option<(usize, f64)>; 4] = [None; 4];
        for r in block {
            let slot = cells.get_mut(r.position as usize)?;
            *slot = Some((r.variant, r.value));
        }
        let [Some(c0), Some(c1), Some(c2), Some(c3)] = cells else {
            continue;
        };
        let v = [c0, c1, c2, c3];
        if v.iter().any(|c| !(c.1 > 0.0 && c.1.is_finite())) {
            return None;
        }
        let y = v.map(|c| c.1.ln());
        // `sign` turns a BAAB block's contrasts into the ABBA block's (B less A).
        let sign = match v.map(|c| c.0) {
            [0, 1, 1, 0] => 1.0,
            [1, 0, 0, 1] => -1.0,
            _ => continue,
        };
        kinds[usize::from(sign < 0.0)] += 1;
        m.push(sign * (y[1] + y[2] - y[0] - y[3]) / 2.0);
        d.push(sign * (y[2] - y[1]));
        s.push(sign * (-y[0] - 2.0 * y[1] + 4.0 * y[2] - y[3]) / 2.0);
    }
    if m.len() < 6 || kinds.contains(&0) {
        return None;
    }
    let one_sided = |x: &[f64]| -> Option<[f64; 2]> {
        let p = |alternative| {
            let config = WilcoxonConfig {
                alternative,
                ..WilcoxonConfig::default()
            };
            wilcoxon_signed_rank_with(x, &config)
                .ok()
                .map(|o| o.p_value)
        };
        Some([p(Alternative::Greater)?, p(Alternative::Less)?])
    };
    let after_one_sided = one_sided(&d)?;
    Some(SteadyState {
        blocks: m.len(),
        after: paired_hl_estimate(&d)?,
        after_p: (2.0 * after_one_sided[0].min(after_one_sided[1])).min(1.0),
        after_one_sided,
        steady: paired_hl_estimate(&s)?,
        steady_one_sided: one_sided(&s)?,
        measured: paired_hl_estimate(&m)?,
    })
}

/// The baseline's median run in the blocks compared: the scale that turns the log-scale
/// carryover into the metric's unit.
fn baseline_scale(baseline: &Series, table: &BlockTable) -> Option<f64> {
    let mut v: Vec<f64> = baseline
        .observations
        .iter()
        .filter(|o| o.block.is_some_and(|b| table.ids.binary_search(&b).is_ok()))
        .map(|o| o.value)
        .filter(|x| x.is_finite())
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(crate::descriptive::summary::quantile_sorted(&v, 0.5)).filter(|x| x.is_finite())
}

/// What the carryover sentences need beside the comparison.
struct CarryoverWords<'a> {
    baseline: &'a str,
    unit: &'a str,
    /// The baseline's median run ([`baseline_scale`]).
    scale: Option<f64>,
    higher_is_better: bool,
}

impl CarryoverWords<'_> {
    /// A log-scale difference as an amount of the metric and a percentage: `4.8 ms
    /// (5.0%)`, two significant digits in the unit (the report's scaling of times), or
    /// the percentage alone without a scale.
    fn amount(&self, log: f64) -> String {
        let frac = log.abs().exp_m1();
        match self.scale {
            Some(base) if base > 0.0 => format!(
                "{} ({:.1}%)",
                unsigned_in_unit(base * frac, self.unit),
                100.0 * frac
            ),
            _ => format!("{:.1}%", 100.0 * frac),
        }
    }
}

/// A signed percentage of a log-scale ratio: `+5.1%`, `-2.4%`.
fn percent(log: f64) -> String {
    format!("{:+.1}%", 100.0 * log.exp_m1())
}

/// `4.8 ms`, `12 KiB`, `0.17 value`: a positive amount in the data's unit with two
/// significant digits, a time scaled to the unit (ns to s) that puts it at 1 or more.
fn unsigned_in_unit(x: f64, unit: &str) -> String {
    scaled(x, unit, 1, false)
}

/// The step after the decision: a direction the steady state may contradict is not
/// claimed. When the comparison claims FASTER or SLOWER, the after-candidate contrast
/// points the way that could turn the claim over (one-sided `p <= 0.25`,
/// [`CARRYOVER_NOT_RULED_OUT`]) and the steady state ([`SteadyState`]) does not support
/// the claimed direction at one-sided `p <= 0.35` ([`STEADY_STATE_AGREES`]), the outcome
/// becomes INCONCLUSIVE and its sentence says why. The differential-carryover warning
/// (its size in the metric's unit and in percent, with the steady state beside the
/// measured difference) is given whenever the contrast is significant at `alpha` or the
/// direction was withheld. The verdict on the measured difference stands: the blocks did
/// differ; what is withheld is the claim about the versions.
fn hold_direction(
    c: &mut Comparison,
    s: &SteadyState,
    w: &CarryoverWords<'_>,
    alpha: f64,
    warnings: &mut Vec<Warning>,
) {
    // The sign of the claimed move on the log scale of the metric (B less A).
    let claimed = match (c.outcome, w.higher_is_better) {
        (Outcome::Faster, false) | (Outcome::Slower, true) => Some(-1.0),
        (Outcome::Slower, false) | (Outcome::Faster, true) => Some(1.0),
        _ => None,
    };
    let withheld = claimed.is_some_and(|sign: f64| {
        // A claim downward is turned over by a carryover that raises the runs after B.
        let (against, along) = if sign < 0.0 { (0, 1) } else { (1, 0) };
        s.after_one_sided[against] <= CARRYOVER_NOT_RULED_OUT
            && s.steady_one_sided[along] > STEADY_STATE_AGREES
    });
    if !(withheld || s.after_p <= alpha) {
        return;
    }
    let cand = c.candidate.clone();
    let more = if s.after >= 0.0 { "more" } else { "less" };
    let facts = format!(
        "a run right after {cand} reads {} {more} than a run right after {} (signed-rank p = {} over {} blocks), a carryover that ABBA order does not cancel; runs that follow their own version put {cand} at {} against {} (the steady state), where the blocks measure {}",
        w.amount(s.after),
        w.baseline,
        fmt_p(Some(s.after_p)),
        s.blocks,
        percent(s.steady),
        w.baseline,
        percent(s.measured),
    );
    let tail = if withheld {
        "; the direction the blocks measure is not claimed"
    } else {
        ""
    };
    warnings.push(
        Warning::new(
            WarningCode::DifferentialCarryover,
            Some(&cand),
            format!("{facts}{tail}"),
        )
        .with_remedy(Remedy::BreakCarryover),
    );
    if let (true, Some(sign)) = (withheld, claimed) {
        let opposite = if sign < 0.0 { 0 } else { 1 };
        let steady = if s.steady_one_sided[opposite] <= alpha / 2.0 {
            format!("point the other way ({})", percent(s.steady))
        } else {
            format!(
                "do not confirm it ({}; too few blocks to tell the two apart)",
                percent(s.steady)
            )
        };
        c.outcome = Outcome::Inconclusive;
        c.summary = format!(
            "{cand} vs {}: no direction is claimed. A run right after {cand} reads {} {more} than a run right after {}, a carryover ABBA order does not cancel: the blocks measure {}, but runs that follow their own version {steady}. Let the state clear between runs (a pause), or run the versions in an order that gives each the same predecessors, and measure again.",
            w.baseline,
            w.amount(s.after),
            w.baseline,
            percent(s.measured),
        );
    }
}

fn two_variant_warnings(
    r: &CarryoverReport,
    candidate: &str,
    unit: &str,
    differential: bool,
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
    if let Some(d) = r.differential.filter(|d| d.detected && differential) {
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

    #[test]
    fn the_steady_state_reads_the_same_from_runs_in_any_order() {
        // 8 ABBA/BAAB blocks with a carryover that B leaves behind.
        let mut runs = Vec::new();
        for b in 0..8u32 {
            let order = if b % 2 == 0 {
                [0, 1, 1, 0]
            } else {
                [1, 0, 0, 1]
            };
            for (p, &v) in order.iter().enumerate() {
                let after_b = p > 0 && order[p - 1] == 1;
                runs.push(CarryoverRun {
                    variant: v,
                    block: b,
                    position: p as u32,
                    value: 100.0 + f64::from(b) + if after_b { 5.0 } else { 0.0 } + p as f64 * 0.1,
                });
            }
        }
        let sorted = steady_state(&runs).expect("8 blocks of both kinds");
        assert!(single_cycles(&runs));
        let mut shuffled = runs.clone();
        shuffled.reverse();
        shuffled.rotate_left(5);
        assert_eq!(steady_state(&shuffled), Some(sorted));
        assert!(single_cycles(&shuffled));
        // A block of 3 runs: not single cycles, in any order.
        shuffled.retain(|r| !(r.block == 2 && r.position == 3));
        assert!(!single_cycles(&shuffled));
    }
}
