//! Progress on stderr while an experiment runs: block i of N, the variant running,
//! elapsed and ETA, and for two variants a provisional estimate after a few blocks (the
//! ratio and its interval so far, marked provisional: not a decision). Off when stderr is
//! not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use bench_sched::{Observer, PlannedRun, RunRecord, Variant};
use bench_stats::sequential::{Look, LookDecision, SequentialRule};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// An [`Observer`] drawing an indicatif bar over the measured runs.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    blocks: u32,
    /// The last look of a sequential experiment, in words (empty otherwise).
    look: String,
    /// The running estimate of a two-variant experiment.
    running: Option<Running>,
}

impl Progress {
    /// A bar over `total_runs` runs in `blocks` blocks; hidden when `quiet` or when stderr
    /// is not a terminal.
    /// `names`: the variants, baseline first; with exactly two the line shows the running
    /// estimate.
    pub fn new(total_runs: u64, blocks: u32, quiet: bool, names: &[String]) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress {
                bar: None,
                blocks,
                look: String::new(),
                running: None,
            };
        }
        let bar = ProgressBar::with_draw_target(Some(total_runs), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs  {msg}  (ETA {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar: Some(bar),
            blocks,
            look: String::new(),
            running: Running::new(names),
        }
    }

    /// Removes the bar before the report prints.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Progress {
    fn on_warmup(&mut self, variant: &Variant) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("warm-up: {}", variant.name));
        }
    }

    fn on_run_start(&mut self, run: &PlannedRun, variant: &Variant) {
        if let Some(bar) = &self.bar {
            // A sequential experiment shows its look; the others the running estimate.
            let estimate = match (&self.running, self.look.is_empty()) {
                (Some(r), true) => r.text().map(|t| format!("  | {t}")).unwrap_or_default(),
                _ => String::new(),
            };
            bar.set_message(format!(
                "block {} of {}: {}{}{estimate}",
                run.block + 1,
                self.blocks,
                variant.name,
                self.look
            ));
        }
    }

    fn on_look(&mut self, look: &Look, rule: &SequentialRule) {
        self.look = format!("  | {}", look_text(look, rule));
    }

    fn on_run_end(&mut self, record: &RunRecord) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        if let Some(r) = &mut self.running {
            r.record(record);
        }
    }

    fn on_block_end(&mut self, block: u32) {
        if let Some(r) = &mut self.running {
            r.block_end(block);
        }
    }
}

/// Blocks before the progress line shows an estimate.
pub const PROVISIONAL_AFTER: usize = 3;

/// The running estimate of two variants: per complete block the log-ratio of the
/// candidate's median run to the baseline's (the typical run of the block, the block value
/// the default's sequence reads), and their Hodges-Lehmann estimate with its 95%
/// signed-rank interval.
#[derive(Debug)]
pub struct Running {
    baseline: String,
    candidate: String,
    /// The current block's values of the baseline and of the candidate.
    block: Option<(u32, [Vec<f64>; 2])>,
    log_ratios: Vec<f64>,
}

impl Running {
    /// `None` unless there are exactly two variants (the first the baseline).
    pub fn new(names: &[String]) -> Option<Running> {
        let [baseline, candidate] = names else {
            return None;
        };
        Some(Running {
            baseline: baseline.clone(),
            candidate: candidate.clone(),
            block: None,
            log_ratios: Vec::new(),
        })
    }

    /// A measured run: its value (the metric, else the wall time) if it succeeded.
    pub fn record(&mut self, run: &RunRecord) {
        if run.is_reference || !run.succeeded() {
            return;
        }
        let side = if run.variant == self.baseline {
            0
        } else if run.variant == self.candidate {
            1
        } else {
            return;
        };
        #[allow(clippy::cast_precision_loss)]
        let value = run.metric.unwrap_or(run.wall_ns as f64);
        self.add(run.block, side, value);
    }

    fn add(&mut self, block: u32, side: usize, value: f64) {
        if !value.is_finite() || value <= 0.0 {
            return;
        }
        let (b, values) = self.block.get_or_insert((block, [Vec::new(), Vec::new()]));
        if *b != block {
            *b = block;
            *values = [Vec::new(), Vec::new()];
        }
        values[side].push(value);
    }

    /// Every run of `block` is in: its log-ratio joins the estimate.
    pub fn block_end(&mut self, block: u32) {
        if let Some((b, [base, cand])) = self.block.take() {
            let median = |v: &[f64]| bench_stats::paired::BlockSummary::Median.of(v);
            if let (true, Some(base), Some(cand)) = (b == block, median(&base), median(&cand)) {
                self.log_ratios.push((cand / base).ln());
            }
        }
    }

    /// `provisional after 5 blocks: B/A 1.043x [0.981, 1.102], not a verdict` (`ratio`
    /// for `B/A` when the names are long); `None`
    /// before [`PROVISIONAL_AFTER`] blocks or without an interval.
    pub fn text(&self) -> Option<String> {
        let n = self.log_ratios.len();
        if n < PROVISIONAL_AFTER {
            return None;
        }
        let hl = bench_stats::rank::paired_hodges_lehmann(&self.log_ratios, 0.95).ok()?;
        let (r, lo, hi) = (hl.estimate.exp(), hl.ci_low.exp(), hl.ci_high.exp());
        if !(r.is_finite() && lo.is_finite() && hi.is_finite()) {
            return None;
        }
        // Short names say which ratio; long ones would push the line past the terminal.
        let what = if self.candidate.chars().count() + self.baseline.chars().count() <= 24 {
            format!("{}/{}", self.candidate, self.baseline)
        } else {
            "ratio".to_owned()
        };
        Some(format!(
            "provisional after {n} blocks: {what} {r:.3}x [{lo:.3}, {hi:.3}], not a verdict"
        ))
    }
}

/// One look in words: the interval so far, where it is heading and what it still needs,
/// e.g. `look 9: ratio in [0.981, 1.032], median 1.012 heading up; needs it off 1 or
/// inside ±1%`.
pub fn look_text(look: &Look, rule: &SequentialRule) -> String {
    let undecided =
        |rule: &SequentialRule| format!("needs it off 1 or inside ±{:.1}%", rule.margin * 100.0);
    let [lo, hi] = look.ratio_interval;
    let interval = if lo.is_finite() && hi.is_finite() && lo > 0.0 {
        format!("ratio in [{lo:.3}, {hi:.3}]")
    } else {
        "ratio not bounded yet".to_owned()
    };
    let heading = if look.median_ratio > 1.0 {
        "up"
    } else if look.median_ratio < 1.0 {
        "down"
    } else {
        "nowhere"
    };
    let state = match look.decision {
        LookDecision::Larger => "decided: above 1".to_owned(),
        LookDecision::Smaller => "decided: below 1".to_owned(),
        LookDecision::Equivalent => format!("decided: inside ±{:.1}%", rule.margin * 100.0),
        LookDecision::Undecided if look.blocks < rule.min_blocks => {
            format!("no decision before block {}", rule.min_blocks)
        }
        LookDecision::Undecided => undecided(rule),
        _ => undecided(rule),
    };
    format!(
        "look {}: {interval}, median {:.3} heading {heading}; {state}",
        look.blocks, look.median_ratio
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_stats::sequential::replay;

    #[test]
    fn the_running_estimate_is_the_hl_of_block_median_log_ratios_after_three_blocks() {
        let names = ["A".to_owned(), "B".to_owned()];
        let mut r = Running::new(&names).unwrap();
        assert!(Running::new(&names[..1]).is_none());
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
                assert_eq!(r.text(), None, "block {b}");
            }
        }
        let logs: Vec<f64> = blocks
            .iter()
            .map(|(f, s)| ((f + s) / 2.0 / 120.0_f64).ln())
            .collect();
        let hl = bench_stats::rank::paired_hodges_lehmann(&logs, 0.95).unwrap();
        let text = r.text().unwrap();
        let want = format!(
            "provisional after 4 blocks: B/A {:.3}x [{:.3}, {:.3}], not a verdict",
            hl.estimate.exp(),
            hl.ci_low.exp(),
            hl.ci_high.exp()
        );
        assert_eq!(text, want);
        // Walsh averages of the four log-ratios; their median is between 1.0x and 1.2x.
        assert!(
            text.contains("B/A 1.0") || text.contains("B/A 1.1"),
            "{text}"
        );
    }

    #[test]
    fn a_block_missing_a_variant_adds_nothing() {
        let names = ["A".to_owned(), "B".to_owned()];
        let mut r = Running::new(&names).unwrap();
        for b in 0..5 {
            r.add(b, 0, 100.0);
            r.block_end(b);
        }
        assert_eq!(r.text(), None);
    }

    #[test]
    fn a_look_says_where_the_sequence_is_heading() {
        let rule = SequentialRule::default();
        let r = replay(
            &[0.01, 0.02, -0.01, 0.015, 0.005, 0.03, -0.002, 0.01],
            &rule,
        );
        let text = look_text(r.last().unwrap(), &rule);
        assert!(text.starts_with("look 8: ratio in ["), "{text}");
        assert!(text.contains("heading up"), "{text}");
        assert!(text.contains("needs it off 1 or inside ±1.0%"), "{text}");
        let early = look_text(&r.looks[2], &rule);
        assert!(
            early.contains("ratio not bounded yet") && early.contains("no decision before block 7"),
            "{early}"
        );
    }
}

/// The analysis's progress ([`bench_stats::analysis::Progress`]) as a bar on stderr: drawn
/// once a comparison's randomization test has run longer than [`ANALYSIS_BAR_AFTER`] (or
/// `ABBA_PROGRESS_AFTER_MS`), never when stderr is not a terminal or with `--quiet`, and
/// cleared when it is done (before the report prints).
pub struct AnalysisBar {
    after: Duration,
    target: fn() -> ProgressDrawTarget,
    state: std::sync::Mutex<BarState>,
}

/// The comparison in progress: when it first reported, and its bar once drawn.
#[derive(Default)]
struct BarState {
    since: Option<std::time::Instant>,
    bar: Option<ProgressBar>,
}

/// How long a comparison's analysis runs before its bar is drawn.
pub const ANALYSIS_BAR_AFTER: Duration = Duration::from_secs(1);

impl AnalysisBar {
    /// The hook for an analysis config: `None` when `quiet` or stderr is not a terminal.
    pub fn hook(quiet: bool) -> Option<bench_stats::analysis::ProgressHook> {
        if quiet || !std::io::stderr().is_terminal() {
            return None;
        }
        let after = std::env::var("ABBA_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(ANALYSIS_BAR_AFTER, Duration::from_millis);
        let bar = AnalysisBar::new(after, ProgressDrawTarget::stderr);
        Some(bench_stats::analysis::ProgressHook::new(
            std::sync::Arc::new(bar),
        ))
    }

    fn new(after: Duration, target: fn() -> ProgressDrawTarget) -> AnalysisBar {
        AnalysisBar {
            after,
            target,
            state: std::sync::Mutex::new(BarState::default()),
        }
    }

    /// The bar now drawn, if any.
    #[cfg(test)]
    fn drawn(&self) -> bool {
        self.state.lock().is_ok_and(|s| s.bar.is_some())
    }
}

impl bench_stats::analysis::Progress for AnalysisBar {
    fn advance(&self, _stage: bench_stats::analysis::Stage, done: u64, total: u64) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let since = *state.since.get_or_insert_with(std::time::Instant::now);
        if state.bar.is_none() && done < total && since.elapsed() >= self.after {
            let bar = ProgressBar::with_draw_target(Some(total), (self.target)());
            let style = ProgressStyle::with_template(
                "{spinner} analysing [{elapsed_precise}] {bar:30} {pos}/{len} arrangements (ETA {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            state.bar = Some(bar);
        }
        if let Some(bar) = &state.bar {
            bar.set_length(total);
            bar.set_position(done);
        }
        if done >= total {
            if let Some(bar) = state.bar.take() {
                bar.finish_and_clear();
            }
            state.since = None;
        }
    }
}

#[cfg(test)]
mod analysis_bar_tests {
    use super::*;
    use bench_stats::analysis::{Progress, Stage};

    #[test]
    fn the_bar_appears_only_after_its_delay_and_is_cleared_at_the_end() {
        let late = AnalysisBar::new(Duration::from_secs(3600), ProgressDrawTarget::hidden);
        late.advance(Stage::Randomization, 64, 2000);
        late.advance(Stage::Randomization, 128, 2000);
        assert!(!late.drawn());
        let bar = AnalysisBar::new(Duration::ZERO, ProgressDrawTarget::hidden);
        bar.advance(Stage::Randomization, 64, 2000);
        assert!(bar.drawn());
        bar.advance(Stage::Randomization, 2000, 2000);
        assert!(!bar.drawn());
    }
}
