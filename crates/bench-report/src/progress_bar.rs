//! The progress bars on stderr (indicatif, feature `progress`): [`RunBar`] while an
//! experiment runs (block i of N, the variant running, elapsed and ETA, and for two
//! variants a provisional estimate after a few blocks: the ratio and its interval so far,
//! marked provisional, not a decision; computed by `bench_stats::paired::RunningEstimate`,
//! worded by [`crate::provisional_text`]); [`AnalysisBar`] while a long analysis runs.
//! Both are off when stderr is not a terminal or when quiet.

use std::io::IsTerminal;
use std::time::Duration;

use bench_stats::paired::RunningEstimate;
use bench_stats::sequential::{Look, SequentialRule};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::progress::{look_text, provisional_text};

/// A bar over an experiment's measured runs, told of each by its runner's observer.
#[derive(Debug)]
pub struct RunBar {
    bar: Option<ProgressBar>,
    blocks: u32,
    /// The last look of a sequential experiment, in words (empty otherwise).
    look: String,
    /// The running estimate of a two-variant experiment.
    running: Option<Running>,
}

impl RunBar {
    /// A bar over `total_runs` runs in `blocks` blocks; hidden when `quiet` or when stderr
    /// is not a terminal. `names`: the variants, baseline first; with exactly two the line
    /// shows the running estimate.
    pub fn new(total_runs: u64, blocks: u32, quiet: bool, names: &[String]) -> RunBar {
        if quiet || !std::io::stderr().is_terminal() {
            return RunBar {
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
        RunBar {
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

    /// A variant's warm-up starts.
    pub fn warmup(&mut self, variant: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("warm-up: {variant}"));
        }
    }

    /// A measured run of `variant` starts in `block` (from 0).
    pub fn run_start(&mut self, block: u32, variant: &str) {
        if let Some(bar) = &self.bar {
            // A sequential experiment shows its look; the others the running estimate.
            let estimate = match (&self.running, self.look.is_empty()) {
                (Some(r), true) => r.text().map(|t| format!("  | {t}")).unwrap_or_default(),
                _ => String::new(),
            };
            bar.set_message(format!(
                "block {} of {}: {variant}{}{estimate}",
                block + 1,
                self.blocks,
                self.look
            ));
        }
    }

    /// A sequential experiment's look.
    pub fn look(&mut self, look: &Look, rule: &SequentialRule) {
        self.look = format!("  | {}", look_text(look, rule));
    }

    /// A measured run of `variant` in `block` ended; `value` is its value (the metric,
    /// else the wall time) when it succeeded and is not a reference run.
    pub fn run_end(&mut self, block: u32, variant: &str, value: Option<f64>) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        if let (Some(r), Some(value)) = (&mut self.running, value) {
            r.record(block, variant, value);
        }
    }

    /// `block` ended.
    pub fn block_end(&mut self, block: u32) {
        if let Some(r) = &mut self.running {
            r.estimate.block_end(block);
        }
    }
}

/// The running estimate of two variants ([`RunningEstimate`]), with their names.
#[derive(Debug)]
struct Running {
    baseline: String,
    candidate: String,
    estimate: RunningEstimate,
}

impl Running {
    /// `None` unless there are exactly two variants (the first the baseline).
    fn new(names: &[String]) -> Option<Running> {
        let [baseline, candidate] = names else {
            return None;
        };
        Some(Running {
            baseline: baseline.clone(),
            candidate: candidate.clone(),
            estimate: RunningEstimate::default(),
        })
    }

    fn record(&mut self, block: u32, variant: &str, value: f64) {
        let side = if variant == self.baseline {
            0
        } else if variant == self.candidate {
            1
        } else {
            return;
        };
        self.estimate.add(block, side, value);
    }

    fn text(&self) -> Option<String> {
        let p = self.estimate.estimate()?;
        Some(provisional_text(&p, &self.baseline, &self.candidate))
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

impl std::fmt::Debug for AnalysisBar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisBar")
            .field("after", &self.after)
            .finish_non_exhaustive()
    }
}

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
