//! Progress of a long analysis, told to whoever asked for the analysis.
//!
//! An analysis of a million runs takes seconds, most of them in the typical run's
//! randomization test; a caller that shows progress (the `abba` binary draws a bar on a
//! terminal) puts a [`ProgressHook`] in [`crate::AnalysisConfig::progress`]. The hook never
//! changes a result: any two hooks are equal (a config with one still differs from one
//! without).

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

/// What a step of reported work is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Stage {
    /// Arrangements of a comparison's randomization test (the typical run's shape check).
    Randomization,
}

/// Told how far a long analysis has come. Called on the thread that called
/// [`crate::analyze`], at most every few milliseconds of work.
pub trait Progress: Send + Sync {
    /// `done` of `total` steps of `stage` are finished, for the comparison in progress
    /// (`done` starts again from 0 for the next one).
    fn advance(&self, stage: Stage, done: u64, total: u64);
}

/// A shared [`Progress`] in an [`crate::AnalysisConfig`].
///
/// # Examples
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::Arc;
/// use bench_stats::analysis::{Progress, ProgressHook, Stage};
/// struct Count(AtomicU64);
/// impl Progress for Count {
///     fn advance(&self, _: Stage, done: u64, _: u64) {
///         self.0.store(done, Ordering::Relaxed);
///     }
/// }
/// let count = Arc::new(Count(AtomicU64::new(0)));
/// let config = bench_stats::AnalysisConfig {
///     progress: Some(ProgressHook::new(count.clone())),
///     ..Default::default()
/// };
/// // Any two hooks are equal: the hook never changes a result.
/// let other = bench_stats::AnalysisConfig {
///     progress: Some(ProgressHook::new(Arc::new(Count(AtomicU64::new(0))))),
///     ..Default::default()
/// };
/// assert_eq!(config, other);
/// ```
#[derive(Clone)]
pub struct ProgressHook(Arc<dyn Progress>);

impl ProgressHook {
    /// The hook of `progress`.
    pub fn new(progress: Arc<dyn Progress>) -> ProgressHook {
        ProgressHook(progress)
    }
}

impl fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressHook")
    }
}

/// Progress never changes a result: every hook is equal to every other.
impl PartialEq for ProgressHook {
    fn eq(&self, _: &ProgressHook) -> bool {
        true
    }
}

thread_local! {
    /// The hook of the analysis running on this thread.
    static CURRENT: RefCell<Option<ProgressHook>> = const { RefCell::new(None) };
}

/// Runs `f` with `hook` as this thread's analysis progress (the estimators deep below the
/// engine report through [`report`] without a hook in every config on the way), and
/// restores the previous one after.
pub(crate) fn with_hook<T>(hook: Option<&ProgressHook>, f: impl FnOnce() -> T) -> T {
    let Some(hook) = hook else { return f() };
    let previous = CURRENT.with(|c| c.replace(Some(hook.clone())));
    struct Restore(Option<ProgressHook>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(previous);
    f()
}

/// Tells this thread's hook, if any, that `done` of `total` steps of `stage` are done.
pub(crate) fn report(stage: Stage, done: u64, total: u64) {
    CURRENT.with(|c| {
        if let Some(hook) = c.borrow().as_ref() {
            hook.0.advance(stage, done, total);
        }
    });
}
