//! Progress hooks called by the loop.

use bench_stats::sequential::{Look, SequentialRule};

use crate::design::PlannedRun;
use crate::raw::RunRecord;

use super::Variant;

/// Hooks for progress display; every method defaults to doing nothing.
pub trait Observer {
    /// An untimed warm-up run of `variant` starts.
    fn on_warmup(&mut self, _variant: &Variant) {}
    /// A measured run starts.
    fn on_run_start(&mut self, _run: &PlannedRun, _variant: &Variant) {}
    /// A measured run ended and was recorded.
    fn on_run_end(&mut self, _record: &RunRecord) {}
    /// Every run of `block` has been recorded.
    fn on_block_end(&mut self, _block: u32) {}
    /// A sequential experiment looked at its confidence sequence after a block.
    fn on_look(&mut self, _look: &Look, _rule: &SequentialRule) {}
}

/// An [`Observer`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopObserver;

impl Observer for NoopObserver {}
