//! Progress on stderr while an experiment runs: the runner's [`Observer`] told to
//! [`bench_report::RunBar`] (off when stderr is not a terminal or with `--quiet`).

use bench_sched::{Observer, PlannedRun, RunRecord, Variant};
use bench_stats::sequential::{Look, SequentialRule};

pub use bench_report::AnalysisBar;

/// An [`Observer`] drawing [`bench_report::RunBar`] over the measured runs.
#[derive(Debug)]
pub struct Progress(bench_report::RunBar);

impl Progress {
    /// See [`bench_report::RunBar::new`].
    pub fn new(total_runs: u64, blocks: u32, quiet: bool, names: &[String]) -> Progress {
        Progress(bench_report::RunBar::new(total_runs, blocks, quiet, names))
    }

    /// Removes the bar before the report prints.
    pub fn finish(&self) {
        self.0.finish();
    }
}

impl Observer for Progress {
    fn on_warmup(&mut self, variant: &Variant) {
        self.0.warmup(&variant.name);
    }

    fn on_run_start(&mut self, run: &PlannedRun, variant: &Variant) {
        self.0.run_start(run.block, &variant.name);
    }

    fn on_look(&mut self, look: &Look, rule: &SequentialRule) {
        self.0.look(look, rule);
    }

    fn on_run_end(&mut self, record: &RunRecord) {
        #[allow(clippy::cast_precision_loss)]
        let value = (!record.is_reference && record.succeeded())
            .then(|| record.metric.unwrap_or(record.wall_ns as f64));
        self.0.run_end(record.block, &record.variant, value);
    }

    fn on_block_end(&mut self, block: u32) {
        self.0.block_end(block);
    }
}
