//! Progress on stderr while an experiment runs: block i of N, the variant running,
//! elapsed and ETA. Off when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use bench_sched::{Observer, PlannedRun, RunRecord, Variant};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// An [`Observer`] drawing an indicatif bar over the measured runs.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    blocks: u32,
}

impl Progress {
    /// A bar over `total_runs` runs in `blocks` blocks; hidden when `quiet` or when stderr
    /// is not a terminal.
    pub fn new(total_runs: u64, blocks: u32, quiet: bool) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None, blocks };
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
            bar.set_message(format!(
                "block {} of {}: {}",
                run.block + 1,
                self.blocks,
                variant.name
            ));
        }
    }

    fn on_run_end(&mut self, _record: &RunRecord) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }
}
