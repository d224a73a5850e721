//! The plain-words sentence of each comparison: what the data support, and what they do
//! not.

use crate::PairedEstimator;
use crate::analysis::config::AnalysisConfig;
use crate::analysis::decision::{Equivalence, Rule};
use crate::analysis::reach::TestFloor;
use crate::model::dataset::Quantity;
use crate::model::report::{DecisionReport, Outcome, Verdict};
use crate::paired::shape::{PartMove, PartStatistic, QuantileShift, ShapeAnalysis};

/// What [`describe`] needs to know.
pub(crate) struct Facts<'a> {
    pub candidate: &'a str,
    pub baseline: &'a str,
    pub outcome: Outcome,
    pub verdict: Verdict,
    pub ratio: Option<f64>,
    pub ratio_ci: Option<[f64; 2]>,
    /// What the values measure (the word of "time ratio", "4.0% more memory").
    pub quantity: &'a Quantity,
    /// The one value every run of both variants gave, when they all gave the same.
    pub constant: Option<f64>,
    /// Every value of both is above zero (a ratio that is still absent overflowed).
    pub positive: bool,
    /// Blocks, when paired.
    pub blocks: Option<usize>,
    /// Runs of (baseline, candidate).
    pub runs: (usize, usize),
    /// The deciding test and its p.
    pub decision: &'a DecisionReport,
    pub rule: Rule,
    pub equivalence: &'a Equivalence,
    /// `(blocks, needed)` when a paired comparison has too few blocks to be tested.
    pub too_few_blocks: Option<(usize, usize)>,
    /// `(informative, blocks, needed)` when enough blocks were run but too few of them
    /// differ (log-ratio not exactly zero) for the signed-rank test to reach alpha.
    pub too_few_informative: Option<(usize, usize, usize)>,
    /// `(what, value)` of the practical value that failed the gate, if one did.
    pub downgraded: Option<(&'a str, f64)>,
    pub config: &'a AnalysisConfig,
    /// The fewest blocks (or runs) with which the deciding test can reach alpha (after
    /// Holm's correction, with 3+ variants): the floor of every advice to run more.
    pub floor: Option<TestFloor>,
    /// The paired estimator, when paired: the sentence names what it is about.
    pub estimator: Option<PairedEstimator>,
    /// Larger values are better (throughput): the fast runs are the high quantiles.
    pub higher_is_better: bool,
}

/// " in the fastest run of each block" for the estimators that are not the typical run:
/// every sentence says what its ratio is about.
fn estimand_clause(f: &Facts<'_>) -> String {
    let speed = matches!(f.quantity, Quantity::Time | Quantity::Throughput);
    match f.estimator {
        Some(PairedEstimator::HodgesLehmannMinLogRatio) if !speed => {
            " in the best run of each block".to_owned()
        }
        Some(e) if e != PairedEstimator::TypicalRun => format!(" in {}", e.estimand()),
        _ => String::new(),
    }
}

/// A ratio for reading: three decimals, scientific notation when extreme.
fn num(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:.3e}")
    } else {
        format!("{x:.3}")
    }
}

/// Decimals that show how far `r` is from 1 (two significant digits of `r - 1`): three,
/// more for a change under 0.1% (counts resolve 0.01%, and `1.000x` would hide it), at
/// most six.
fn ratio_decimals(r: f64) -> usize {
    let d = (r - 1.0).abs();
    if d == 0.0 || !d.is_finite() || d >= 1e-3 {
        return 3;
    }
    ((-d.log10()).floor() as usize + 2).clamp(3, 6)
}

fn ratio_text(r: f64, ci: Option<[f64; 2]>) -> String {
    if !(1e-3..1e6).contains(&r.abs()) {
        return match ci {
            Some([lo, hi]) => format!("{}x [{}, {}]", num(r), num(lo), num(hi)),
            None => format!("{}x (no interval)", num(r)),
        };
    }
    let k = ratio_decimals(r);
    match ci {
        Some([lo, hi]) => format!("{r:.k$}x [{lo:.k$}, {hi:.k$}]"),
        None => format!("{r:.k$}x (no interval)"),
    }
}

fn p_text(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.3}")
    }
}

/// How much of a change a ratio means, as "4.8% less time" style words.
fn percent_change(r: f64, quantity: &Quantity) -> String {
    let pct = (r - 1.0).abs() * 100.0;
    let dir = match (r > 1.0, quantity.is_count()) {
        (true, _) => "more",
        (false, true) => "fewer",
        (false, false) => "less",
    };
    if pct >= 1e6 {
        return format!("{} times the {quantity}", num(r));
    }
    if pct > 0.0 && pct < 0.1 {
        // A change counts can resolve: two significant digits, not "0.0%".
        let k = ((-pct.log10()).floor() as usize + 2).min(6);
        return format!("{pct:.k$}% {dir} {quantity}");
    }
    format!("{pct:.1}% {dir} {quantity}")
}

/// The deciding test and its p, as the sentences quote it: `signed-rank p = 0.021`.
fn deciding_p(d: &DecisionReport) -> String {
    match (d.p_value, d.p_value_adjusted) {
        (Some(p), Some(adj)) => format!(
            "{} p = {}, Holm-adjusted {}",
            d.test,
            p_text(p),
            p_text(adj)
        ),
        (Some(p), None) => format!("{} p = {}", d.test, p_text(p)),
        _ => d.test.clone(),
    }
}

/// The sentence the report prints for one comparison.
pub(crate) fn describe(f: &Facts<'_>) -> String {
    let (cand, base) = (f.candidate, f.baseline);
    let scope = match f.blocks {
        Some(b) => format!("paired over {b} blocks"),
        None => format!("unpaired, {} vs {} runs", f.runs.0, f.runs.1),
    };
    let Some(r) = f.ratio else {
        return without_ratio(f, &scope);
    };
    let measure = f.quantity.as_str();
    // The interval beside a verdict is at 1 - alpha unless another level was asked for
    // (--confidence): then say so, as it may not agree with the verdict.
    let level = f.config.confidence;
    let rt = if f.ratio_ci.is_some() && (1.0 - level - f.config.alpha).abs() > 1e-9 {
        format!(
            "{} at {}, not the verdict's {}",
            ratio_text(r, f.ratio_ci),
            level_text(level),
            level_text(1.0 - f.config.alpha)
        )
    } else {
        ratio_text(r, f.ratio_ci)
    };
    let m = f.config.equivalence_margin * 100.0;
    let tost = tost_text(f);
    let of = estimand_clause(f);
    match f.outcome {
        Outcome::Faster | Outcome::Slower if f.quantity.is_count() => {
            // A count is said as a count: "executes 27.0% more instructions than".
            let verb = f.quantity.count_verb().unwrap_or("executes");
            format!(
                "{cand} {verb} {} than {base}{of}: {measure} ratio {rt}, {scope}.",
                percent_change(r, f.quantity)
            )
        }
        Outcome::Faster | Outcome::Slower => {
            let better = f.outcome == Outcome::Faster;
            let verb = match f.quantity {
                Quantity::Time | Quantity::Throughput if better => "is faster than",
                Quantity::Time | Quantity::Throughput => "is slower than",
                Quantity::Memory if r < 1.0 => "uses less memory than",
                Quantity::Memory => "uses more memory than",
                Quantity::Named(_) if better => "is better than",
                Quantity::Named(_) => "is worse than",
            };
            format!(
                "{cand} {verb} {base}{of}: {measure} ratio {rt} ({}), {scope}.",
                percent_change(r, f.quantity)
            )
        }
        // A ratio of exactly 1 is never called a real change (it cannot be significant
        // under the signed-rank rule; a bootstrap estimator's point may still round to 1).
        Outcome::Equivalent if f.verdict == Verdict::Significant && r != 1.0 => format!(
            "{cand} differs from {base} by less than the ±{m:.1}% margin{of}: {measure} ratio {rt} ({}), a real change but {tost}, {scope}.",
            percent_change(r, f.quantity)
        ),
        Outcome::Equivalent => {
            format!("{cand} and {base} are equivalent within ±{m:.1}%{of}: {tost}, {scope}.")
        }
        Outcome::Inconclusive | Outcome::Mixed => inconclusive(f, &rt, measure, &scope),
    }
}

/// "95%", "99.9%": a confidence level as a percentage, one decimal only when needed.
fn level_text(level: f64) -> String {
    let pct = level * 100.0;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{pct:.0}%")
    } else {
        format!("{pct:.1}%")
    }
}

/// "the 90% interval [0.995, 1.004] lies inside the margin (two one-sided tests)".
fn tost_text(f: &Facts<'_>) -> String {
    let level = (1.0 - 2.0 * f.config.alpha) * 100.0;
    match f.equivalence.interval() {
        Some([lo, hi]) => {
            // Three decimals, more when both bounds lie within 0.1% of 1 (a steady 0.05%
            // change is not [1.000, 1.000]).
            let k = ratio_decimals(lo).min(ratio_decimals(hi));
            format!(
                "its {level:.0}% interval [{lo:.k$}, {hi:.k$}] lies inside the margin (two one-sided tests at alpha {})",
                f.config.alpha
            )
        }
        None => "inside the margin".to_owned(),
    }
}

/// "not tested: only 5 of 39 blocks differ ..." for a comparison whose test is
/// conditional on too few informative blocks; `ratio` is " Ratio 1.000x [...]" or empty.
fn too_few_informative_text(f: &Facts<'_>, ratio: &str) -> Option<String> {
    let (informative, blocks, need) = f.too_few_informative?;
    let (need, holm) = holm_need(f, need);
    Some(format!(
        "{} vs {}: not tested: only {informative} of {blocks} blocks differ (the other {} gave identical values), too few for the signed-rank test, which is conditional on the blocks that differ, to reach alpha = {} (it needs at least {need} that differ{holm}).{ratio} Run more blocks, or measure at a finer resolution.",
        f.candidate,
        f.baseline,
        blocks - informative,
        f.config.alpha
    ))
}

fn without_ratio(f: &Facts<'_>, scope: &str) -> String {
    let (cand, base) = (f.candidate, f.baseline);
    if let Some((have, need)) = f.too_few_blocks {
        let (need, holm) = holm_need(f, need);
        return format!(
            "{cand} vs {base}: not tested: {have} blocks are too few for a paired test to reach alpha = {} (it needs at least {need}{holm}); run more blocks.",
            f.config.alpha
        );
    }
    if let Some(text) = too_few_informative_text(f, "") {
        return text;
    }
    match f.verdict {
        Verdict::NotTested => match f.constant {
            Some(v) => format!(
                "{cand} vs {base}: not tested ({scope}): every value of both is {v}, so nothing varies and there is no difference to test; no ratio, since ratios need positive values."
            ),
            None => format!(
                "{cand} vs {base}: not tested ({scope}); too few values, or with 3+ variants an omnibus test that found no difference."
            ),
        },
        verdict @ (Verdict::Significant | Verdict::NotSignificant) => {
            let words = if verdict == Verdict::Significant {
                "a significant difference"
            } else {
                "no significant difference"
            };
            // Paired tests work on the block differences; the unpaired rank test on the
            // values themselves (any sign).
            let on = if f.blocks.is_some() {
                "on the block differences"
            } else {
                "on the ranks of the values"
            };
            // Positive values without a ratio: the values span more than a 64-bit float
            // holds (1e-300 against 1e300), not a sign the ratio cannot take.
            let why = if f.positive {
                "the ratio of these values is beyond what a 64-bit float holds"
            } else {
                "ratios need positive values"
            };
            format!(
                "{cand} vs {base}: no ratio, since {why}; {on} {} finds {words}, {scope}.",
                deciding_p(f.decision)
            )
        }
    }
}

fn inconclusive(f: &Facts<'_>, rt: &str, measure: &str, scope: &str) -> String {
    let (cand, base) = (f.candidate, f.baseline);
    if let Some((what, value)) = f.downgraded {
        let threshold = match f.rule {
            Rule::Cliff(x) | Rule::Custom(x) => x,
            Rule::Ratio => 0.0,
        };
        return format!(
            "{cand} differs from {base} ({measure} ratio {rt}, {}), but the two overlap too much to call it a difference ({what} {value:.3} < {threshold:.3}), {scope}. {}",
            deciding_p(f.decision),
            more_data_hint(f)
        );
    }
    if let Some((have, need)) = f.too_few_blocks {
        let (need, holm) = holm_need(f, need);
        return format!(
            "{cand} vs {base}: not tested: {have} blocks are too few for a paired test to reach alpha = {} (it needs at least {need}{holm}). Ratio {rt}; run more blocks.",
            f.config.alpha
        );
    }
    if let Some(text) = too_few_informative_text(f, &format!(" Ratio {rt}.")) {
        return text;
    }
    if f.verdict == Verdict::NotTested {
        if let Equivalence::Untestable(why) = f.equivalence {
            if why.starts_with("identical") || why.starts_with("every value") {
                return format!("{cand} vs {base}: not tested ({scope}): {why}. Ratio {rt}.");
            }
        }
        return format!(
            "{cand} vs {base}: not tested ({scope}); too few values, or with 3+ variants an omnibus test that found no difference, so no pairwise claim is made. Ratio {rt}."
        );
    }
    let includes = f.ratio_ci.is_none_or(|[lo, hi]| lo <= 1.0 && 1.0 <= hi);
    if includes {
        format!(
            "The data cannot tell {cand} from {base}{}: {measure} ratio {rt} includes no-change ({}), {scope}. {}",
            estimand_clause(f),
            deciding_p(f.decision),
            more_data_hint(f)
        )
    } else {
        format!(
            "Borderline: the {measure} ratio{} {rt} excludes no-change, but the deciding test ({}) is not below alpha = {}, {scope}. {}",
            estimand_clause(f),
            deciding_p(f.decision),
            f.config.alpha,
            more_data_hint(f)
        )
    }
}

/// The blocks a too-few-blocks sentence names: at least the deciding test's floor with
/// Holm's correction (3+ variants), and the words saying so (empty without Holm).
fn holm_need(f: &Facts<'_>, need: usize) -> (usize, String) {
    match f.floor {
        Some(floor) if floor.holm > 1 && floor.count > need => (
            floor.count,
            format!(
                " to reach alpha/{} = {}, the first step of Holm's correction over {} comparisons",
                floor.holm,
                crate::analysis::reach::short(floor.level),
                floor.holm
            ),
        ),
        _ => (need, String::new()),
    }
}

/// How many blocks (or runs) would settle it, honestly: the count with which the interval
/// would resolve the equivalence margin if the change is what it now looks like
/// ([`crate::analysis::decision::blocks_to_resolve`]: always more than were run, and
/// never fewer than the deciding test needs to reach its level at all, [`TestFloor`],
/// said when it decides the count or Holm applies); then a warning that extending this
/// experiment and testing again is another look.
fn more_data_hint(f: &Facts<'_>) -> String {
    let unit = if f.blocks.is_some() {
        "blocks"
    } else {
        "runs per variant"
    };
    let n = f.blocks.unwrap_or(f.runs.0.min(f.runs.1)).max(1);
    let floor = f.floor.filter(|fl| fl.count > 0);
    let m = f.config.equivalence_margin * 100.0;
    let needed = f.ratio.and_then(|r| {
        crate::analysis::decision::blocks_to_resolve(
            n,
            r,
            (
                f.ratio_ci.map(|i| (i, f.config.confidence)),
                f.equivalence
                    .interval()
                    .map(|i| (i, 1.0 - 2.0 * f.config.alpha)),
            ),
            f.config.equivalence_margin,
            floor.map_or(0, |fl| fl.count),
        )
    });
    let plan = match (needed, floor) {
        (_, Some(fl)) if fl.count > n && needed.is_none_or(|k| k <= fl.count) => format!(
            "At least {} {unit} in all are needed (now {n}): {}.",
            fl.count,
            fl.words(f.config.alpha)
        ),
        (None, _) => format!("More {unit} are needed before any interval can be formed."),
        (Some(k), _) if k > 1_000_000 => format!(
            "The spread is too large for more {unit} to settle a ±{m:.1}% question; reduce noise first."
        ),
        (Some(k), Some(fl)) if fl.holm > 1 => format!(
            "About {k} {unit} in all would give 80% power to resolve the ±{m:.1}% margin if the change is what it now looks like (now {n}), tested at alpha/{} = {} (the first step of Holm's correction over {} comparisons).",
            fl.holm,
            crate::analysis::reach::short(fl.level),
            fl.holm
        ),
        (Some(k), _) => format!(
            "About {k} {unit} in all would give 80% power to resolve the ±{m:.1}% margin if the change is what it now looks like (now {n})."
        ),
    };
    format!(
        "{plan} Extending this experiment and testing again is another look at the data and raises the false-positive rate unless corrected for it."
    )
}

fn part_ratio(q: &QuantileShift) -> String {
    ratio_text(q.ratio, q.interval)
}

/// "its typical and slow runs": the parts named in a list.
fn joined(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The sentence of a typical-run comparison: which parts of the distribution moved, by how
/// much, and what stayed put.
pub(crate) fn describe_shape(f: &Facts<'_>, s: &ShapeAnalysis) -> String {
    let words = ShapeWords { f, s };
    match f.outcome {
        Outcome::Faster => words.moved_sentence(PartMove::Faster),
        Outcome::Slower => words.moved_sentence(PartMove::Slower),
        Outcome::Mixed => words.mixed_sentence(),
        Outcome::Equivalent => words.equivalent_sentence(),
        Outcome::Inconclusive => words.inconclusive_sentence(),
    }
}

/// The pieces [`describe_shape`]'s sentences are made of: one comparison's facts and its
/// shape check.
struct ShapeWords<'a> {
    f: &'a Facts<'a>,
    s: &'a ShapeAnalysis,
}

impl ShapeWords<'_> {
    /// The margin, in percent.
    fn margin(&self) -> f64 {
        self.f.config.equivalence_margin * 100.0
    }

    /// What the intervals rest on: the blocks, and the parts checked at once; a note when
    /// `--confidence` put their level elsewhere than the deciding tests'.
    fn scope(&self) -> String {
        let s = self.s;
        let family = self.f.config.confidence * 100.0;
        let decision = 100.0 * (1.0 - self.f.config.alpha);
        let other = if (family - decision).abs() > 1e-9 {
            format!(", not the decision's {decision:.1}%")
        } else {
            String::new()
        };
        let parts = s.parts().count();
        if parts == 1 {
            let at = if other.is_empty() {
                String::new()
            } else {
                format!("; interval at {:.1}%{other}", s.confidence * 100.0)
            };
            format!(
                "paired over {} blocks, one run of each variant per block, so {} cannot be checked{at}",
                s.blocks,
                if self.speed() {
                    "the fast and slow runs"
                } else {
                    "the low and high ends"
                }
            )
        } else {
            format!(
                "paired over {} blocks; the {parts} parts' intervals together at {family:.1}%{other} (each at its share: typical run {:.1}%)",
                s.blocks,
                s.confidence * 100.0
            )
        }
    }

    fn name(&self, q: &QuantileShift) -> String {
        part_label(q, self.f.higher_is_better, self.speed())
    }

    /// Times and throughputs have fast and slow runs; memory and other quantities have
    /// low and high ends.
    fn speed(&self) -> bool {
        matches!(self.f.quantity, Quantity::Time | Quantity::Throughput)
    }

    /// A part's move in the quantity's words: slower or faster for times and throughputs,
    /// larger or smaller for memory, worse or better for anything else.
    fn word(&self, which: PartMove) -> &'static str {
        let better = which == PartMove::Faster;
        if self.f.quantity.is_count() {
            // A count went up or down, whichever way is better.
            return if better == self.f.higher_is_better {
                "more"
            } else {
                "fewer"
            };
        }
        match self.f.quantity {
            Quantity::Time | Quantity::Throughput if better => "faster",
            Quantity::Time | Quantity::Throughput => "slower",
            Quantity::Memory if better => "smaller",
            Quantity::Memory => "larger",
            Quantity::Named(_) if better => "better",
            Quantity::Named(_) => "worse",
        }
    }

    /// The lead of a directional sentence: "is slower than", "uses more memory than".
    fn verb(&self, which: PartMove) -> String {
        if let Some(verb) = self.f.quantity.count_verb() {
            return format!("{verb} {} {} than", self.word(which), self.f.quantity);
        }
        match self.f.quantity {
            Quantity::Memory if which == PartMove::Faster => "uses less memory than".to_owned(),
            Quantity::Memory => "uses more memory than".to_owned(),
            Quantity::Time | Quantity::Throughput | Quantity::Named(_) => {
                format!("is {} than", self.word(which))
            }
        }
    }

    /// "slow runs (p90) 1.05x [1.02, 1.08] (5.0% slower)".
    fn detail(&self, q: &QuantileShift) -> String {
        format!(
            "{} {} ({})",
            self.name(q),
            part_ratio(q),
            percent_change(q.ratio, self.f.quantity)
        )
    }

    /// The parts that moved the way `which` says.
    fn moved(&self, which: PartMove) -> Vec<&QuantileShift> {
        self.s.parts().filter(|q| q.part == which).collect()
    }

    /// "; typical run (p50) within ±1.0% (...)": the parts not in `skip`, each with how it
    /// moved, or nothing when every part is in `skip`.
    fn rest(&self, skip: &[&QuantileShift]) -> String {
        let m = self.margin();
        let others: Vec<String> = self
            .s
            .parts()
            .filter(|q| !skip.iter().any(|k| std::ptr::eq(*k, *q)))
            .map(|q| {
                let how = match q.part {
                    PartMove::Negligible | PartMove::Equivalent => format!("within ±{m:.1}%"),
                    PartMove::Slower | PartMove::Faster => self.word(q.part).to_owned(),
                    PartMove::Unclear => "not distinguishable".to_owned(),
                };
                format!("{} {how} ({})", self.name(q), part_ratio(q))
            })
            .collect();
        if others.is_empty() {
            String::new()
        } else {
            format!("; {}", others.join(", "))
        }
    }

    /// The equivalence test's words: the level of its intervals and its alpha.
    fn tost(&self) -> String {
        format!(
            "each {:.0}% interval inside its margin (two one-sided tests at alpha {})",
            self.s.equivalence_confidence * 100.0,
            self.f.config.alpha
        )
    }

    /// The parts' [`Self::detail`]s, comma-separated.
    fn list(&self, parts: &[&QuantileShift]) -> String {
        parts
            .iter()
            .map(|q| self.detail(q))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Faster or slower (`which`): where in the distribution, and by how much.
    fn moved_sentence(&self, which: PartMove) -> String {
        let (cand, base, s) = (self.f.candidate, self.f.baseline, self.s);
        let parts = self.moved(which);
        let verb = self.verb(which);
        let where_ = if s.parts().count() == 1 {
            "in its typical run".to_owned()
        } else if parts.len() == s.parts().count() {
            "across its distribution".to_owned()
        } else {
            let names: Vec<String> = parts
                .iter()
                .map(|q| {
                    self.name(q)
                        .split(" (")
                        .next()
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect();
            format!("in its {}", joined(&names))
        };
        format!(
            "{cand} {verb} {base} {where_}: {}{}; {}.",
            self.list(&parts),
            self.rest(&parts),
            self.scope()
        )
    }

    /// Slower in some parts and faster in others, or a tail alone beyond the margin with
    /// the typical and the mean run inside it (a change of spread): whether the candidate's
    /// runs moved apart (more variable) or together (less variable), and each part.
    fn mixed_sentence(&self) -> String {
        let (cand, base) = (self.f.candidate, self.f.baseline);
        let slower = self.moved(PartMove::Slower);
        let faster = self.moved(PartMove::Faster);
        let mut both = slower.clone();
        both.extend(faster.iter().copied());
        let better = self.word(PartMove::Faster);
        let worse = self.word(PartMove::Slower);
        let lead = match crate::analysis::decision::spread_direction(
            self.s,
            self.f.higher_is_better,
        ) {
            Some(true) => format!(
                "{cand}'s runs are more variable than {base}'s (they moved apart), so neither {better} nor {worse} describes it"
            ),
            Some(false) => format!(
                "{cand}'s runs are less variable than {base}'s (they moved together), so neither {better} nor {worse} describes it"
            ),
            None => format!(
                "{cand}'s runs moved one way in some parts and the other way in others against {base}'s, so neither {better} nor {worse} describes it"
            ),
        };
        let mut moves = Vec::new();
        if !slower.is_empty() {
            moves.push(format!("{worse} in {}", self.list(&slower)));
        }
        if !faster.is_empty() {
            moves.push(format!("{better} in {}", self.list(&faster)));
        }
        format!(
            "{lead}: {}{}; {}.",
            moves.join(", "),
            self.rest(&both),
            self.scope(),
        )
    }

    /// Equivalent: the typical run within the margin, the mean run and the tails within
    /// theirs (the slow runs, when their own interval is wider, held by the mean run, or
    /// with unequal counts by the mean of all runs).
    fn equivalent_sentence(&self) -> String {
        let (cand, base, s, m) = (self.f.candidate, self.f.baseline, self.s, self.margin());
        let margin = self.f.config.equivalence_margin;
        let mut by_mean = false;
        let all: Vec<String> = s
            .parts()
            .map(|q| {
                let ci = q.equivalence_interval.unwrap_or([q.ratio, q.ratio]);
                let own = crate::analysis::decision::part_margin(q, margin) * 100.0;
                let held = crate::analysis::decision::held_by_all_runs(
                    q,
                    s,
                    margin,
                    self.f.higher_is_better,
                );
                by_mean |= held;
                let wider = if held && s.mean.is_some() {
                    format!(" (wider than ±{own:.1}%, held by the mean run)")
                } else if held {
                    format!(" (wider than ±{own:.1}%, held by the mean of all runs)")
                } else if (own - m).abs() > 1e-9 {
                    format!(" (inside ±{own:.1}%)")
                } else {
                    String::new()
                };
                format!("{} {}{wider}", self.name(q), ratio_text(q.ratio, Some(ci)))
            })
            .collect();
        let mut all = all;
        // Held by the mean of all runs where the mean run is not a part (its entry is
        // already there when it is).
        if let (true, Some(a)) = (by_mean, s.all_runs) {
            let ci = a.equivalence_interval.unwrap_or([a.ratio, a.ratio]);
            all.push(format!(
                "mean of all runs {} (inside ±{:.1}%)",
                ratio_text(a.ratio, Some(ci)),
                m * crate::analysis::decision::ALL_RUNS_MARGIN_FACTOR
            ));
        }
        let lead = if self.f.verdict == Verdict::Significant {
            format!("{cand} differs from {base} by less than the ±{m:.1}% margin")
        } else {
            format!("{cand} and {base} are equivalent within ±{m:.1}%")
        };
        let tails = m * crate::analysis::decision::TAIL_MARGIN_FACTOR;
        format!(
            "{lead} {}: {}, {}, paired over {} blocks.",
            if s.parts().count() == 1 {
                "in its typical run".to_owned()
            } else if s.mean.is_some() {
                format!(
                    "in its typical run, its mean run within ±{:.1}% and its tails within ±{tails:.1}%",
                    m * crate::analysis::decision::ALL_RUNS_MARGIN_FACTOR
                )
            } else {
                format!("in its typical run, its tails within ±{tails:.1}%")
            },
            all.join(", "),
            self.tost(),
            s.blocks
        )
    }

    /// Why a shape check whose own p is below alpha did not decide: the practical rule
    /// downgraded it, or Holm's correction over the candidates (or the omnibus test) held
    /// it back; `None` when the shape check's own p is not below alpha.
    fn held_back(&self) -> Option<String> {
        let f = self.f;
        let alpha = f.config.alpha;
        if f.verdict == Verdict::Significant || self.s.p_value >= alpha {
            return None;
        }
        if let Some((what, value)) = f.downgraded {
            return Some(format!(
                "{what} = {value:.2} is below the practical threshold"
            ));
        }
        let holm = f.floor.map_or(1, |fl| fl.holm);
        Some(match f.decision.p_value_adjusted {
            Some(adj) if holm > 1 => format!(
                "Holm's correction over the {holm} comparisons with the baseline puts its p at {}, not below alpha {alpha}",
                p_text(adj)
            ),
            _ if holm > 1 => "the omnibus test across the variants is not significant, so no comparison with the baseline is".to_owned(),
            _ => format!("the comparison's p is not below alpha {alpha}"),
        })
    }

    /// Why part `q` stands in the way of EQUIVALENT, in a few words, without its
    /// subject: `(true, "is slower (1.05x [1.02, 1.08])")` for a part that moved, else
    /// `(false, "90% interval [0.85, 1.21] is not inside ±3.0%, nor is the mean of all
    /// runs' [0.98, 1.03] inside ±2.0%")`.
    fn unpinned(&self, q: &QuantileShift) -> (bool, String) {
        let f = self.f;
        let margin = f.config.equivalence_margin;
        if matches!(q.part, PartMove::Slower | PartMove::Faster) {
            return (
                true,
                format!("is {} ({})", self.word(q.part), part_ratio(q)),
            );
        }
        let level = self.s.equivalence_confidence * 100.0;
        let own = crate::analysis::decision::part_margin(q, margin) * 100.0;
        let interval = |i: Option<[f64; 2]>| match i {
            Some([lo, hi]) => {
                let k = ratio_decimals(lo).min(ratio_decimals(hi));
                format!("[{lo:.k$}, {hi:.k$}]")
            }
            None => "(none yet)".to_owned(),
        };
        let mut text = format!(
            "{level:.0}% interval {} is not inside ±{own:.1}%",
            interval(q.equivalence_interval)
        );
        let slow = crate::analysis::decision::is_slow_runs(q, f.higher_is_better);
        if let (true, Some(a)) = (slow, self.s.all_runs) {
            text.push_str(&format!(
                ", nor is the mean of all runs' {} inside ±{:.1}%",
                interval(a.equivalence_interval),
                margin * 100.0 * crate::analysis::decision::ALL_RUNS_MARGIN_FACTOR
            ));
        }
        (false, text)
    }

    /// The sentence on the parts in the way of EQUIVALENT (`names` their short names):
    /// with the typical run `pinned`, which part keeps it from EQUIVALENT and why, else
    /// which parts must be inside which margin; empty when none is in the way.
    fn in_the_way(&self, blockers: &[&QuantileShift], names: &[String], pinned: bool) -> String {
        let (f, s, m) = (self.f, self.s, self.margin());
        let plural = names.len() != 1 || names[0].ends_with('s');
        if names.is_empty() {
            return String::new();
        }
        if pinned {
            // The typical run is pinned: one sentence on what keeps it from EQUIVALENT.
            let typical = s.typical();
            let why: Vec<String> = blockers
                .iter()
                .zip(names)
                .map(|(q, name)| {
                    let (moved, rest) = self.unpinned(q);
                    match (moved, blockers.len() == 1) {
                        (true, true) if plural => {
                            format!("they {}", rest.replacen("is ", "are ", 1))
                        }
                        (true, true) => format!("it {rest}"),
                        (true, false) => format!("the {name} {rest}"),
                        (false, true) if plural => format!("their {rest}"),
                        (false, true) => format!("its {rest}"),
                        (false, false) if name.ends_with('s') => format!("the {name}' {rest}"),
                        (false, false) => format!("the {name}'s {rest}"),
                    }
                })
                .collect();
            return format!(
                "The typical run is pinned within ±{m:.1}% ({}); the {} {} it from EQUIVALENT: {}. ",
                ratio_text(
                    typical.ratio,
                    typical.equivalence_interval.or(typical.interval)
                ),
                joined(names),
                if plural { "keep" } else { "keeps" },
                why.join("; ")
            );
        }
        // The slow runs may also be held by the mean of all runs: said when they block.
        let slow = blockers.iter().any(|q| {
            crate::analysis::decision::is_slow_runs(q, f.higher_is_better)
                && !matches!(q.part, PartMove::Slower | PartMove::Faster)
        });
        let by_mean = if slow && s.all_runs.is_some() {
            format!(
                "; or, for the slow runs, the mean of all runs inside ±{:.1}%",
                m * crate::analysis::decision::ALL_RUNS_MARGIN_FACTOR
            )
        } else {
            String::new()
        };
        let mean = if s.mean.is_some() {
            format!(
                ", ±{:.1}% for the mean run",
                m * crate::analysis::decision::ALL_RUNS_MARGIN_FACTOR
            )
        } else {
            String::new()
        };
        // With one run of each variant per block only the typical run is checked.
        let margins = if s.parts().count() == 1 {
            format!("±{m:.1}%")
        } else {
            format!(
                "±{m:.1}% for the typical run{mean}, ±{:.1}% for the tails{by_mean}",
                m * crate::analysis::decision::TAIL_MARGIN_FACTOR
            )
        };
        format!(
            "Not equivalent until the {} {} inside the margin ({margins}). ",
            joined(names),
            if plural { "are" } else { "is" },
        )
    }

    /// What an undecided comparison needs: the parts that stand in the way of EQUIVALENT
    /// and the blocks with which the slowest of them would resolve its margin
    /// ([`crate::analysis::decision::shape_needs`]), never fewer than were run nor than
    /// the test can decide with.
    fn needs(&self) -> String {
        let (f, s) = (self.f, self.s);
        let floor = f.floor.map_or(0, |fl| fl.count);
        let (blockers, needed) = crate::analysis::decision::shape_needs(
            s,
            f.config.equivalence_margin,
            floor,
            f.higher_is_better,
        );
        let short = |q: &QuantileShift| {
            self.name(q)
                .split(" (")
                .next()
                .unwrap_or_default()
                .to_owned()
        };
        let names: Vec<String> = blockers.iter().map(|q| short(q)).collect();
        let typical = s.typical();
        let pinned = s.parts().count() > 1
            && !blockers.is_empty()
            && !blockers.iter().any(|q| std::ptr::eq(*q, typical));
        let what = self.in_the_way(&blockers, &names, pinned);
        let plan = match needed {
            Some(k) if k > 1_000_000 => {
                "The spread is too large for more blocks to settle it; reduce noise first."
                    .to_owned()
            }
            // Only a test that has not reached alpha is said to be unable to: a part can be
            // significant below the floor's count (more runs per block give its
            // randomization test more arrangements than the floor assumes), while the
            // parts with no interval yet still need the floor's blocks.
            Some(k)
                if floor > s.blocks
                    && k == floor
                    && f.decision.p_value.is_some_and(|p| p <= f.config.alpha) =>
            {
                format!(
                    "At least {k} blocks in all are needed (now {}) for every part to have an interval at its share of alpha.",
                    s.blocks
                )
            }
            Some(k) if floor > s.blocks && k == floor => {
                format!(
                    "At least {k} blocks in all are needed (now {}): the test cannot reach alpha with fewer.",
                    s.blocks
                )
            }
            Some(k) => format!(
                "About {k} blocks in all would give 80% power to resolve it if the change is what it now looks like (now {}).",
                s.blocks
            ),
            None => "More blocks are needed before every part has an interval.".to_owned(),
        };
        format!(
            "{what}{plan} Extending this experiment and testing again is another look at the data and raises the false-positive rate unless corrected for it."
        )
    }

    /// Not resolved: the p, what moved if anything did, and how much more data would help.
    fn inconclusive_sentence(&self) -> String {
        let (f, s, m) = (self.f, self.s, self.margin());
        let (cand, base, scope) = (f.candidate, f.baseline, self.scope());
        let typical = s.typical();
        let parts = s.parts().count();
        let p = if parts == 1 {
            format!("randomization p = {}", p_text(s.p_value))
        } else {
            format!(
                "randomization p = {} (smallest adjusted over {parts} parts)",
                p_text(s.p_value)
            )
        };
        let hint = self.needs();
        let tail: Vec<&QuantileShift> = s
            .parts()
            .filter(|q| matches!(q.part, PartMove::Slower | PartMove::Faster))
            .collect();
        if let (Some(_), Some(why)) = (tail.first(), self.held_back()) {
            let (word, against) = match (
                tail.iter().any(|q| q.part == PartMove::Slower),
                tail.iter().any(|q| q.part == PartMove::Faster),
            ) {
                (true, true) => ("moved", "apart from"),
                (true, false) => (self.word(PartMove::Slower), "than"),
                _ => (self.word(PartMove::Faster), "than"),
            };
            return format!(
                "The shape check alone finds {cand} {word} {against} {base} in {}{}, but {why}: the data do not show {cand} {word}; {p}, {scope}. {hint}",
                self.list(&tail),
                self.rest(&tail)
            );
        }
        match tail.first() {
            Some(first) => {
                let word = self.word(first.part);
                let verb = self.verb(first.part);
                format!(
                    "{cand} {verb} {base} only in {}, and the other parts are not resolved ({}), so they could have moved the other way beyond ±{m:.1}%: the data do not show {cand} {word} overall; {p}, {scope}. {hint}",
                    self.list(&tail),
                    self.rest(&tail).trim_start_matches("; ")
                )
            }
            None => format!(
                "The data cannot tell {cand} from {base}: {}{}; {p}, {scope}. {hint}",
                self.detail(typical),
                self.rest(&[typical])
            ),
        }
    }
}

/// A part's name in the quantity's words: `fast runs (p10)`, `typical run (p50)`, `mean
/// run` for times and throughputs ([`QuantileShift::part_name`]); `low end (p10)` and
/// `high end (p90)` for memory and anything else, whose values are not runs' speeds.
pub(crate) fn part_label(q: &QuantileShift, higher_is_better: bool, speed: bool) -> String {
    let tail = q.statistic != PartStatistic::Mean && (q.quantile - 0.5).abs() > 1e-9;
    if speed || !tail {
        return q.part_name(higher_is_better);
    }
    let end = if q.quantile < 0.5 { "low" } else { "high" };
    format!("{end} end (p{:.0})", (q.quantile * 100.0).round())
}

/// "fast runs (p10) 1.02x [0.99, 1.05] at 99.1%, typical run (p50) ..., mean run ...":
/// every part with its interval's level, named as [`part_label`] names it (`speed`: the
/// values are times or throughputs).
pub(crate) fn shape_parts(s: &ShapeAnalysis, higher_is_better: bool, speed: bool) -> String {
    let parts: Vec<String> = s
        .parts()
        .map(|q| {
            format!(
                "{} {} at {:.1}%",
                part_label(q, higher_is_better, speed),
                part_ratio(q),
                q.confidence * 100.0
            )
        })
        .collect();
    parts.join(", ")
}
