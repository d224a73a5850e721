//! The equivalence margin a metric's verdict gets by default.

use bench_stats::AnalysisConfig;

use super::Metric;

impl Metric {
    /// The equivalence margin a verdict on this metric gets when none is given:
    /// [`AnalysisConfig::COUNT_EQUIVALENCE_MARGIN`] for a count (instructions, cycles, ...),
    /// whose runs barely vary, else [`AnalysisConfig::DEFAULT_EQUIVALENCE_MARGIN`].
    ///
    /// # Examples
    /// ```
    /// use bench_sched::Metric;
    /// use bench_stats::AnalysisConfig;
    /// let count: Metric = "instructions".parse()?;
    /// assert_eq!(count.default_equivalence_margin(), AnalysisConfig::COUNT_EQUIVALENCE_MARGIN);
    /// assert_eq!(Metric::Wall.default_equivalence_margin(), AnalysisConfig::DEFAULT_EQUIVALENCE_MARGIN);
    /// # Ok::<(), bench_sched::MetricParseError>(())
    /// ```
    pub fn default_equivalence_margin(&self) -> f64 {
        match self {
            Metric::Count(_) => AnalysisConfig::COUNT_EQUIVALENCE_MARGIN,
            Metric::Wall
            | Metric::User
            | Metric::Sys
            | Metric::Cpu
            | Metric::MaxRss
            | Metric::Json(_) => AnalysisConfig::DEFAULT_EQUIVALENCE_MARGIN,
        }
    }
}
