//! Recording what a command printed of a raw file it read once (`abba analyze --record`):
//! the analysis it reported is kept as it is, from the experiment in memory, and the file
//! is not read again ([`Recording::record_printed`]).

use std::path::Path;

use bench_sched::{Experiment, Metric, SuiteAnalysis};
use bench_stats::suite::Correction;
use bench_stats::{Analysis, AnalysisConfig, Dataset};

use crate::{Analysed, HistoryError, Recorded, Recording};

/// What a command reported of an experiment it read: the analysis to keep.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Printed<'a> {
    /// The analysis of the whole (non-suite) experiment's data on `metric` (`None`: the
    /// file's own metric).
    Experiment {
        /// The data analysed.
        dataset: &'a Dataset,
        /// The analysis reported.
        analysis: &'a Analysis,
        /// The metric decided on, when the command chose another than the file's.
        metric: Option<&'a Metric>,
    },
    /// A suite's analysis as reported, each benchmark once, on `metric` (`None`: each
    /// benchmark's own).
    Suite {
        /// The suite's analysis ([`bench_sched::analyze_suite_experiment`]).
        analysed: &'a SuiteAnalysis,
        /// The metric every benchmark was decided on, when the command chose it.
        metric: Option<&'a Metric>,
    },
    /// No analysis of each benchmark (a suite's one cross-class table): each is analysed
    /// once, here, from the runs in memory ([`Recording::record_analysing`]).
    NotPerBenchmark,
}

impl Recording {
    /// Keeps `experiment` (read from `raw_path`) with the analysis its command printed
    /// (`printed`): nothing is read back, and nothing already reported is analysed again.
    /// On the file's own metric, a wall-time experiment or suite benchmark also keeps its
    /// CPU-time series ([`crate::cpu_twin`], [`crate::suite_cpu_twins`] under `config`
    /// and `correction`); on a metric the command chose, that series alone is kept,
    /// under the metric's name.
    ///
    /// # Errors
    /// [`HistoryError`]: an analysis that fails ([`Printed::NotPerBenchmark`]), the
    /// store's.
    pub fn record_printed(
        &self,
        experiment: &mut Experiment,
        raw_path: &Path,
        printed: Printed<'_>,
        (config, correction): (&AnalysisConfig, Correction),
        hook: Option<fn(usize)>,
    ) -> Result<Recorded, HistoryError> {
        let settings = (config, correction);
        match printed {
            Printed::Experiment {
                dataset,
                analysis,
                metric,
            } => {
                let own = &experiment.header.metric;
                let name = metric.filter(|m| *m != own).map(ToString::to_string);
                let unit = Analysed::experiment(dataset, analysis);
                let twin = match name {
                    Some(_) => None,
                    None => crate::cpu_twin(experiment, config),
                };
                let mut units = vec![match &name {
                    Some(m) => unit.on_metric(m),
                    None => unit,
                }];
                units.extend(twin.as_ref().map(crate::AnalysedBenchmark::as_analysed));
                self.record(experiment, raw_path, &units, hook)
            }
            Printed::Suite {
                analysed,
                metric: Some(m),
            } => {
                let name = m.to_string();
                let units: Vec<Analysed<'_>> = analysed
                    .report
                    .benchmarks
                    .iter()
                    .zip(&analysed.datasets)
                    .map(|(b, (n, d))| {
                        Analysed::suite_benchmark(n, d, &b.analysis).on_metric(&name)
                    })
                    .collect();
                self.record(experiment, raw_path, &units, hook)
            }
            Printed::Suite {
                analysed,
                metric: None,
            } => self.record_suite(experiment, raw_path, analysed, settings, hook),
            Printed::NotPerBenchmark => self.record_analysing(experiment, raw_path, settings, hook),
        }
    }
}
