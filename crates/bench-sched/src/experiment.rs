//! The experiment loop: warm-up, then every planned run, streamed to the raw file.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use crate::cpus::CpuSet;
use crate::design::{Design, PlannedRun, ReferenceRuns, Schedule, Target};
use crate::error::SchedError;
use crate::host::{HostFacts, load_average, rfc3339_utc};
use crate::import::Loaded;
use crate::interrupt::InterruptFlag;
use crate::layout::Layout;
use crate::raw::{
    RAW_SCHEMA, RawData, RawHeader, RawTrailer, RawVariant, RawWriter, RunRecord, read_raw,
};
use crate::runner::{
    CommandSpec, Metric, OutputMode, RunMeasurement, RunRequest, Runner, Termination,
};

/// Name recorded for reference-workload runs.
pub const REFERENCE_NAME: &str = "reference";

/// A named command to benchmark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Display name, unique within the experiment.
    pub name: String,
    /// What to run.
    pub command: CommandSpec,
}

/// What to do when a benchmarked command fails or times out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum FailurePolicy {
    /// Record the failed run and stop with an error (default).
    #[default]
    Stop,
    /// Record the failed run and go on (`--ignore-failure`); analysis leaves it out.
    Ignore,
}

/// Everything that defines an experiment.
#[derive(Debug, Clone)]
pub struct ExperimentConfig {
    /// The variants; the first is the default baseline. Default: none (must be filled).
    pub variants: Vec<Variant>,
    /// A reference workload run once per block at a seeded position. Default: none.
    pub reference: Option<CommandSpec>,
    /// Run order. Default: [`Design::Abba`].
    pub design: Design,
    /// Number of blocks. Default: 10.
    pub blocks: u32,
    /// Seed of the run order and the layout padding. Default: 1.
    pub seed: u64,
    /// Untimed runs of every variant (and the reference) before block 0. Default: 1.
    pub warmup: u32,
    /// Pause before every run after the first. Default: zero.
    pub settle: Duration,
    /// Environment padding. Default: [`Layout::Random`].
    pub layout: Layout,
    /// CPUs to pin the children to. Default: none (inherit abba's mask).
    pub pin: Option<CpuSet>,
    /// Per-run timeout. Default: none.
    pub timeout: Option<Duration>,
    /// What each run yields. Default: [`Metric::Wall`].
    pub metric: Metric,
    /// Unit override. Default: none ([`Metric::unit`]).
    pub unit: Option<String>,
    /// Direction override. Default: none ([`Metric::higher_is_better`]).
    pub higher_is_better: Option<bool>,
    /// Show or discard the children's output. Default: discard.
    pub output: OutputMode,
    /// Failure handling. Default: stop.
    pub on_failure: FailurePolicy,
    /// Version string written in the header. Default: this crate's version.
    pub abba_version: String,
    /// Stop flag (use [`InterruptFlag::from_signals`] in a binary). Default: a fresh flag.
    pub stop: InterruptFlag,
    /// Continue a previous run of the same experiment. Default: none.
    pub resume: Option<ResumePoint>,
}

impl Default for ExperimentConfig {
    fn default() -> Self {
        ExperimentConfig {
            variants: Vec::new(),
            reference: None,
            design: Design::Abba,
            blocks: 10,
            seed: 1,
            warmup: 1,
            settle: Duration::ZERO,
            layout: Layout::Random,
            pin: None,
            timeout: None,
            metric: Metric::Wall,
            unit: None,
            higher_is_better: None,
            output: OutputMode::Discard,
            on_failure: FailurePolicy::Stop,
            abba_version: env!("CARGO_PKG_VERSION").to_owned(),
            stop: InterruptFlag::new(),
            resume: None,
        }
    }
}

impl ExperimentConfig {
    /// The schedule this configuration runs (what `--dry-run` prints).
    pub fn schedule(&self) -> Schedule {
        let reference = if self.reference.is_some() {
            ReferenceRuns::PerBlock
        } else {
            ReferenceRuns::None
        };
        Schedule::plan(
            self.design,
            self.variants.len(),
            self.blocks,
            self.seed,
            reference,
        )
    }

    fn unit(&self) -> String {
        self.unit
            .clone()
            .unwrap_or_else(|| self.metric.unit().to_owned())
    }

    fn higher(&self) -> bool {
        self.higher_is_better
            .unwrap_or_else(|| self.metric.higher_is_better())
    }

    fn validate(&self) -> Result<(), SchedError> {
        if self.variants.is_empty() {
            return Err(SchedError::Config("no variants to run".into()));
        }
        if self.blocks == 0 {
            return Err(SchedError::Config("blocks must be at least 1".into()));
        }
        for (i, v) in self.variants.iter().enumerate() {
            if self.variants[..i].iter().any(|w| w.name == v.name) {
                return Err(SchedError::Config(format!(
                    "variant name {:?} is used twice",
                    v.name
                )));
            }
            if self.reference.is_some() && v.name == REFERENCE_NAME {
                return Err(SchedError::Config(format!(
                    "variant name {REFERENCE_NAME:?} is reserved for the reference workload"
                )));
            }
        }
        Ok(())
    }
}

/// A previous raw file to continue (`--resume`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResumePoint {
    data: RawData,
    path: std::path::PathBuf,
}

impl ResumePoint {
    /// Reads the raw file to continue.
    ///
    /// # Errors
    /// [`SchedError::ResumeInput`] when it cannot be read.
    pub fn load(path: &Path) -> Result<ResumePoint, SchedError> {
        Ok(ResumePoint {
            data: read_raw(path)?,
            path: path.to_owned(),
        })
    }

    /// Runs already done that will be kept (complete blocks; all runs for sequential).
    pub fn completed_runs(&self) -> usize {
        self.data.complete_prefix()
    }

    /// Checks the file belongs to `config`'s experiment (design, seed, blocks, variants,
    /// reference and metric must match).
    ///
    /// # Errors
    /// [`SchedError::ResumeMismatch`] naming the first difference.
    pub fn check(&self, config: &ExperimentConfig) -> Result<(), SchedError> {
        let h = &self.data.header;
        let mismatch = |what: &str, file: String, now: String| SchedError::ResumeMismatch {
            path: self.path.clone(),
            message: format!("{what} differs: the file has {file}, this run has {now}"),
        };
        if h.design != config.design.name() {
            return Err(mismatch(
                "design",
                h.design.clone(),
                config.design.to_string(),
            ));
        }
        if h.seed != config.seed {
            return Err(mismatch(
                "seed",
                h.seed.to_string(),
                config.seed.to_string(),
            ));
        }
        if h.blocks != config.blocks {
            return Err(mismatch(
                "block count",
                h.blocks.to_string(),
                config.blocks.to_string(),
            ));
        }
        let now: Vec<RawVariant> = config.variants.iter().map(raw_variant).collect();
        if h.variants != now {
            let show = |v: &[RawVariant]| {
                v.iter()
                    .map(|v| format!("{}={:?}", v.name, v.command))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(mismatch("variants", show(&h.variants), show(&now)));
        }
        let reference = config.reference.as_ref().map(|c| c.text().to_owned());
        if h.reference != reference {
            return Err(mismatch(
                "reference",
                format!("{:?}", h.reference),
                format!("{reference:?}"),
            ));
        }
        if h.metric != config.metric.to_string() {
            return Err(mismatch(
                "metric",
                h.metric.clone(),
                config.metric.to_string(),
            ));
        }
        Ok(())
    }

    /// Checks the file against `config`, then cuts it after the last complete block and
    /// opens it for appending.
    ///
    /// # Errors
    /// [`SchedError::ResumeMismatch`] (the file is left untouched) or
    /// [`SchedError::Output`].
    pub fn open_writer(&self, config: &ExperimentConfig) -> Result<RawWriter, SchedError> {
        self.check(config)?;
        RawWriter::append_after(&self.path, self.data.bytes_through(self.completed_runs()))
    }
}

fn raw_variant(v: &Variant) -> RawVariant {
    RawVariant {
        name: v.name.clone(),
        command: v.command.text().to_owned(),
    }
}

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
}

/// An [`Observer`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopObserver;

impl Observer for NoopObserver {}

/// The result of a completed experiment.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Outcome {
    /// The header as written (for a resume: the original one).
    pub header: RawHeader,
    /// Every measured run, resumed ones first.
    pub runs: Vec<RunRecord>,
    /// Load averages at the end.
    pub load_end: Option<[f64; 3]>,
}

impl Outcome {
    /// The runs as a dataset, exactly as [`crate::read_raw`] + [`RawData::to_dataset`]
    /// would give from the file.
    pub fn to_dataset(&self) -> Loaded {
        RawData {
            file: "(this run)".into(),
            header: self.header.clone(),
            runs: self.runs.clone(),
            trailer: None,
            warnings: Vec::new(),
            run_ends: Vec::new(),
            header_end: 0,
        }
        .to_dataset()
    }
}

fn sleep_unless_stopped(d: Duration, stop: &InterruptFlag) {
    let until = Instant::now() + d;
    while stop.stop_requested().is_none() {
        let now = Instant::now();
        if now >= until {
            break;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(20)));
    }
}

/// Reads numeric `field` from the last JSON object line.
fn json_field(line: Option<&str>, field: &str) -> Result<f64, String> {
    let line = line.ok_or_else(|| {
        format!("the command printed no JSON object on stdout (metric json:{field})")
    })?;
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("bad JSON on stdout: {e}"))?;
    match value.get(field) {
        None => Err(format!(
            "the last JSON object on stdout has no field {field:?}"
        )),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("field {field:?} is {v}, not a finite number")),
    }
}

fn status_text(t: Termination) -> String {
    match t {
        Termination::Exited(c) => format!("exit code {c}"),
        Termination::Signaled(s) => format!("killed by signal {s}"),
        Termination::TimedOut => "timed out".into(),
        Termination::Interrupted => "interrupted".into(),
    }
}

/// Runs the experiment: pre-flight, warm-up, then the schedule, writing each run to `out`
/// as it ends.
///
/// Before the first run every program is resolved (a missing one stops everything). A run
/// that fails (non-zero exit, signal, timeout, unreadable `json:` metric) is recorded and,
/// under [`FailurePolicy::Stop`], ends the experiment with an error naming the variant,
/// block and stderr tail. When the stop flag is raised the running child's process group
/// is killed, the cut-off run is not recorded, a trailer line is written, and
/// [`SchedError::Interrupted`] is returned; the file stays readable.
///
/// # Errors
/// [`SchedError`]: configuration, missing program, spawn, run failure, timeout, metric,
/// output, resume mismatch or interruption.
///
/// # Examples
/// ```
/// use bench_sched::*;
/// let config = ExperimentConfig {
///     variants: vec![
///         Variant { name: "A".into(), command: CommandSpec::parse("prog-a", Shell::None)? },
///         Variant { name: "B".into(), command: CommandSpec::parse("prog-b", Shell::None)? },
///     ],
///     blocks: 2,
///     ..ExperimentConfig::default()
/// };
/// let mut runner = FakeRunner::new();
/// let outcome = run_experiment(&config, &mut runner, &mut RawWriter::discard(), &mut NoopObserver)?;
/// assert_eq!(outcome.runs.len(), 8); // ABBA + BAAB
/// assert_eq!(runner.calls().len(), 10); // plus one warm-up run per variant
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_experiment(
    config: &ExperimentConfig,
    runner: &mut dyn Runner,
    out: &mut RawWriter,
    observer: &mut dyn Observer,
) -> Result<Outcome, SchedError> {
    config.validate()?;
    if let Some(r) = &config.resume {
        r.check(config)?;
    }
    for v in &config.variants {
        runner.preflight(&v.name, &v.command)?;
    }
    let reference = config.reference.as_ref().map(|c| Variant {
        name: REFERENCE_NAME.to_owned(),
        command: c.clone(),
    });
    if let Some(r) = &reference {
        runner.preflight(&r.name, &r.command)?;
    }
    let schedule = config.schedule();
    let (header, mut runs, skip) = match &config.resume {
        Some(r) => {
            let keep = r.completed_runs();
            (r.data.header.clone(), r.data.runs[..keep].to_vec(), keep)
        }
        None => (new_header(config), Vec::new(), 0),
    };
    if !out.has_header() {
        out.write_header(&header)?;
    }
    let allowed = runner
        .allowed_cpus(config.pin.as_ref())
        .map(|c| c.to_string());
    let stop = &config.stop;
    let request = |command, env_pad| RunRequest {
        command,
        env_pad,
        pin: config.pin.as_ref(),
        timeout: config.timeout,
        output: config.output,
        capture_json: config.metric.needs_stdout(),
        stop,
    };
    let finish = |out: &mut RawWriter, status: &str| {
        out.write_trailer(&RawTrailer {
            status: status.to_owned(),
            load_end: load_average(),
            end_time: rfc3339_utc(SystemTime::now()),
        })
    };
    let interrupted = |out: &mut RawWriter, signal: i32| -> SchedError {
        match finish(out, "interrupted") {
            Ok(()) => SchedError::Interrupted { signal },
            Err(e) => e,
        }
    };

    // Warm-up: untimed, unrecorded; failures still count as failures.
    let warm: Vec<&Variant> = config.variants.iter().chain(reference.as_ref()).collect();
    for w in 0..config.warmup {
        for (i, v) in warm.iter().enumerate() {
            if let Some(sig) = stop.stop_requested() {
                return Err(interrupted(out, sig));
            }
            observer.on_warmup(v);
            let fake_run = PlannedRun {
                run_index: 0,
                block: u32::MAX - w,
                position: i as u32,
                target: Target::Variant(i),
            };
            let m = runner.run(
                &v.name,
                &request(&v.command, config.layout.pad_for(config.seed, &fake_run)),
            )?;
            if let Some(sig) = stop.stop_requested() {
                return Err(interrupted(out, sig));
            }
            if config.on_failure == FailurePolicy::Stop {
                check_termination(config, &v.name, 0, &m).inspect_err(|_| {
                    let _ = finish(out, "failed");
                })?;
            }
        }
    }

    let mut left_in_block: HashMap<u32, usize> = HashMap::new();
    for r in &schedule.runs[skip..] {
        *left_in_block.entry(r.block).or_default() += 1;
    }
    for (n, planned) in schedule.runs.iter().enumerate().skip(skip) {
        if n > skip || config.warmup > 0 {
            sleep_unless_stopped(config.settle, stop);
        }
        if let Some(sig) = stop.stop_requested() {
            return Err(interrupted(out, sig));
        }
        let variant = match planned.target {
            Target::Variant(i) => &config.variants[i],
            Target::Reference => reference
                .as_ref()
                .ok_or_else(|| SchedError::Config("reference run without a reference".into()))?,
        };
        observer.on_run_start(planned, variant);
        let env_pad = config.layout.pad_for(config.seed, planned);
        let m = runner.run(&variant.name, &request(&variant.command, env_pad))?;
        if let Some(sig) = stop.stop_requested() {
            return Err(interrupted(out, sig));
        }
        let (metric, metric_error) = match &config.metric {
            Metric::Json(field) if m.termination == Termination::Exited(0) => {
                match json_field(m.last_json.as_deref(), field) {
                    Ok(v) => (Some(v), None),
                    Err(e) => (None, Some(e)),
                }
            }
            Metric::MaxRss => (Some(m.max_rss_kib as f64), None),
            _ => (None, None),
        };
        let record = RunRecord {
            run: planned.run_index,
            block: planned.block,
            position: planned.position,
            variant: variant.name.clone(),
            is_reference: planned.target == Target::Reference,
            wall_ns: m.wall_ns,
            user_ns: m.user_ns,
            sys_ns: m.sys_ns,
            max_rss_kib: m.max_rss_kib,
            exit_code: match m.termination {
                Termination::Exited(c) => Some(c),
                _ => None,
            },
            signal: match m.termination {
                Termination::Signaled(s) => Some(s),
                _ => None,
            },
            timed_out: m.termination == Termination::TimedOut,
            env_pad,
            metric,
            allowed_cpus: allowed.clone(),
        };
        out.write_run(&record)?;
        observer.on_run_end(&record);
        runs.push(record);
        if config.on_failure == FailurePolicy::Stop {
            let failed =
                check_termination(config, &variant.name, planned.block, &m).and_then(|()| {
                    match metric_error {
                        Some(message) => Err(SchedError::Metric {
                            variant: variant.name.clone(),
                            block: planned.block,
                            message,
                        }),
                        None => Ok(()),
                    }
                });
            if let Err(e) = failed {
                finish(out, "failed")?;
                return Err(e);
            }
        }
        if let Some(left) = left_in_block.get_mut(&planned.block) {
            *left -= 1;
            if *left == 0 {
                observer.on_block_end(planned.block);
            }
        }
    }
    finish(out, "complete")?;
    Ok(Outcome {
        header,
        runs,
        load_end: load_average(),
    })
}

fn check_termination(
    config: &ExperimentConfig,
    variant: &str,
    block: u32,
    m: &RunMeasurement,
) -> Result<(), SchedError> {
    match m.termination {
        Termination::Exited(0) => Ok(()),
        Termination::TimedOut => Err(SchedError::TimedOut {
            variant: variant.to_owned(),
            block,
            timeout_ms: config.timeout.map_or(0, |t| t.as_millis()),
            stderr_tail: m.stderr_tail.clone(),
        }),
        t => Err(SchedError::RunFailed {
            variant: variant.to_owned(),
            block,
            status: status_text(t),
            stderr_tail: m.stderr_tail.clone(),
        }),
    }
}

fn new_header(config: &ExperimentConfig) -> RawHeader {
    RawHeader {
        schema: RAW_SCHEMA.to_owned(),
        abba_version: config.abba_version.clone(),
        design: config.design.name().to_owned(),
        seed: config.seed,
        blocks: config.blocks,
        variants: config.variants.iter().map(raw_variant).collect(),
        reference: config.reference.as_ref().map(|c| c.text().to_owned()),
        metric: config.metric.to_string(),
        unit: config.unit(),
        higher_is_better: config.higher(),
        layout: config.layout.to_string(),
        pin: config.pin.as_ref().map(ToString::to_string),
        warmup: config.warmup,
        settle_ns: u64::try_from(config.settle.as_nanos()).unwrap_or(u64::MAX),
        shell: config
            .variants
            .first()
            .map(|v| v.command.shell().to_string()),
        timeout_ns: config
            .timeout
            .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)),
        host: HostFacts::collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::read_raw_bytes;
    use crate::runner::{FakeRunner, Shell};
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn variants(names: &[&str]) -> Vec<Variant> {
        names
            .iter()
            .map(|n| Variant {
                name: (*n).into(),
                command: CommandSpec::parse(&format!("prog-{n}"), Shell::None).unwrap(),
            })
            .collect()
    }

    fn failing(code: i32, stderr: &str) -> RunMeasurement {
        RunMeasurement {
            wall_ns: 1,
            user_ns: 0,
            sys_ns: 0,
            max_rss_kib: 0,
            termination: Termination::Exited(code),
            last_json: None,
            stderr_tail: stderr.into(),
        }
    }

    #[derive(Default)]
    struct Recorder {
        events: Vec<String>,
    }

    impl Observer for Recorder {
        fn on_warmup(&mut self, v: &Variant) {
            self.events.push(format!("warm {}", v.name));
        }
        fn on_run_start(&mut self, r: &PlannedRun, v: &Variant) {
            self.events.push(format!("start {} {}", r.block, v.name));
        }
        fn on_block_end(&mut self, b: u32) {
            self.events.push(format!("end {b}"));
        }
    }

    #[test]
    fn runs_follow_the_schedule_with_warmup_and_pads() {
        let config = ExperimentConfig {
            variants: variants(&["A", "B"]),
            blocks: 3,
            warmup: 2,
            seed: 5,
            ..ExperimentConfig::default()
        };
        let mut fake = FakeRunner::new();
        let mut obs = Recorder::default();
        let outcome =
            run_experiment(&config, &mut fake, &mut RawWriter::discard(), &mut obs).unwrap();
        let order: Vec<&str> = fake.calls().iter().map(|c| c.variant.as_str()).collect();
        assert_eq!(
            order,
            [
                "A", "B", "A", "B", "A", "B", "B", "A", "B", "A", "A", "B", "A", "B", "B", "A"
            ]
        );
        let schedule = config.schedule();
        for (call, (planned, rec)) in fake.calls()[4..]
            .iter()
            .zip(schedule.runs.iter().zip(&outcome.runs))
        {
            assert_eq!(call.env_pad, Layout::Random.pad_for(5, planned));
            assert_eq!(rec.env_pad, call.env_pad);
            assert_eq!(
                (rec.block, rec.position, rec.run),
                (planned.block, planned.position, planned.run_index)
            );
        }
        assert_eq!(obs.events[..2], ["warm A", "warm B"]);
        assert_eq!(
            obs.events
                .iter()
                .filter(|e| e.starts_with("end"))
                .cloned()
                .collect::<Vec<_>>(),
            ["end 0", "end 1", "end 2"]
        );
        assert_eq!(obs.events.iter().position(|e| e == "end 0"), Some(8));
    }

    #[test]
    fn same_seed_same_pads_different_seed_differs() {
        let pads = |seed| {
            let config = ExperimentConfig {
                variants: variants(&["A", "B", "C"]),
                design: Design::Random,
                blocks: 5,
                warmup: 0,
                seed,
                ..ExperimentConfig::default()
            };
            let mut fake = FakeRunner::new();
            run_experiment(
                &config,
                &mut fake,
                &mut RawWriter::discard(),
                &mut NoopObserver,
            )
            .unwrap();
            fake.calls()
                .iter()
                .map(|c| (c.variant.clone(), c.env_pad))
                .collect::<Vec<_>>()
        };
        assert_eq!(pads(1), pads(1));
        assert_ne!(pads(1), pads(2));
    }

    #[test]
    fn failure_stops_with_variant_block_and_stderr_unless_ignored() {
        let config = ExperimentConfig {
            variants: variants(&["A", "B"]),
            blocks: 3,
            warmup: 0,
            ..ExperimentConfig::default()
        };
        // Runs: block 0 = A B B A, block 1 = B A A B; call 5 is A in block 1.
        let script = |_: &crate::runner::FakeCall, n: usize| {
            if n == 5 {
                failing(7, "segfault-ish")
            } else {
                FakeRunner::success(100)
            }
        };
        let mut fake = FakeRunner::new().with_script(script);
        let buf = Shared::default();
        let mut w = RawWriter::to_writer(buf.clone(), "mem");
        let err = run_experiment(&config, &mut fake, &mut w, &mut NoopObserver).unwrap_err();
        drop(w);
        assert_eq!(
            err.to_string(),
            "variant A failed in block 1 (exit code 7); stderr ends with:\nsegfault-ish"
        );
        let data = read_raw_bytes("mem", &buf.0.lock().unwrap()).unwrap();
        assert_eq!(data.runs.len(), 6);
        assert_eq!(data.runs[5].exit_code, Some(7));

        let ignore = ExperimentConfig {
            on_failure: FailurePolicy::Ignore,
            ..config
        };
        let mut fake = FakeRunner::new().with_script(script);
        let outcome = run_experiment(
            &ignore,
            &mut fake,
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap();
        assert_eq!(outcome.runs.len(), 12);
        let loaded = outcome.to_dataset();
        assert_eq!(
            loaded.dataset.series[0].observations.len(),
            4,
            "block 1 dropped"
        );
        assert!(
            loaded
                .warnings
                .iter()
                .any(|w| w.message.contains("block 1 has a failed run"))
        );
    }

    #[test]
    fn json_metric_reads_the_field_or_fails() {
        let mut config = ExperimentConfig {
            variants: variants(&["A", "B"]),
            blocks: 1,
            warmup: 0,
            metric: Metric::Json("ops".into()),
            ..ExperimentConfig::default()
        };
        let with_json = |json: &'static str| {
            move |_: &crate::runner::FakeCall, _: usize| RunMeasurement {
                last_json: Some(json.into()),
                ..FakeRunner::success(5)
            }
        };
        let outcome = run_experiment(
            &config,
            &mut FakeRunner::new().with_script(with_json(r#"{"ops": 3.5}"#)),
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap();
        assert!(outcome.runs.iter().all(|r| r.metric == Some(3.5)));
        assert_eq!(outcome.header.unit, "value");
        let d = outcome.to_dataset().dataset;
        assert_eq!(d.series[0].observations[0].value, 3.5);
        for bad in [r#"{"ops": "fast"}"#, r#"{"other": 1}"#] {
            let err = run_experiment(
                &config,
                &mut FakeRunner::new().with_script(with_json(bad)),
                &mut RawWriter::discard(),
                &mut NoopObserver,
            )
            .unwrap_err();
            assert!(matches!(err, SchedError::Metric { block: 0, .. }), "{err}");
        }
        // The file of such a failed experiment still reads; the block without values is
        // dropped with a warning.
        let buf = Shared::default();
        let mut w = RawWriter::to_writer(buf.clone(), "mem");
        let script = with_json(r#"{"other": 1}"#);
        run_experiment(
            &config,
            &mut FakeRunner::new().with_script(script),
            &mut w,
            &mut NoopObserver,
        )
        .unwrap_err();
        drop(w);
        let data = read_raw_bytes("mem", &buf.0.lock().unwrap()).unwrap();
        assert_eq!(data.runs[0].metric, None);
        assert_eq!(
            data.trailer.as_ref().map(|t| t.status.as_str()),
            Some("failed")
        );
        assert!(data.to_dataset().dataset.series[0].observations.is_empty());
        config.higher_is_better = Some(true);
        let err = run_experiment(
            &config,
            &mut FakeRunner::new(),
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap_err();
        assert!(err.to_string().contains("printed no JSON object"));
    }

    #[test]
    fn stop_request_is_not_recorded_and_reports_the_signal() {
        let flag = InterruptFlag::new();
        let f2 = flag.clone();
        let config = ExperimentConfig {
            variants: variants(&["A", "B"]),
            blocks: 4,
            warmup: 0,
            stop: flag,
            ..ExperimentConfig::default()
        };
        let mut fake = FakeRunner::new().with_script(move |_, n| {
            if n == 6 {
                f2.request_stop_with(SIGTERM_NUM);
            }
            FakeRunner::success(10)
        });
        let buf = Shared::default();
        let mut w = RawWriter::to_writer(buf.clone(), "mem");
        let err = run_experiment(&config, &mut fake, &mut w, &mut NoopObserver).unwrap_err();
        drop(w);
        assert!(matches!(
            err,
            SchedError::Interrupted {
                signal: SIGTERM_NUM
            }
        ));
        assert_eq!(fake.calls().len(), 7);
        let data = read_raw_bytes("mem", &buf.0.lock().unwrap()).unwrap();
        assert_eq!(data.runs.len(), 6);
        let loaded = data.to_dataset();
        assert_eq!(loaded.dataset.series[0].observations.len(), 2);
        assert!(
            loaded
                .warnings
                .iter()
                .any(|w| w.message.contains("block 1 has 2 of 4"))
        );
    }

    const SIGTERM_NUM: i32 = 15;

    #[test]
    fn preflight_and_config_errors_come_before_any_run() {
        let config = ExperimentConfig {
            variants: variants(&["A", "B"]),
            ..ExperimentConfig::default()
        };
        let mut fake = FakeRunner::new().with_missing("prog-B");
        let err = run_experiment(
            &config,
            &mut fake,
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "program \"prog-B\" (variant B) was not found or is not executable"
        );
        assert!(fake.calls().is_empty());
        let dup = ExperimentConfig {
            variants: variants(&["A", "A"]),
            ..ExperimentConfig::default()
        };
        assert!(matches!(
            run_experiment(
                &dup,
                &mut FakeRunner::new(),
                &mut RawWriter::discard(),
                &mut NoopObserver
            ),
            Err(SchedError::Config(_))
        ));
        let zero = ExperimentConfig {
            variants: variants(&["A"]),
            blocks: 0,
            ..ExperimentConfig::default()
        };
        assert!(
            run_experiment(
                &zero,
                &mut FakeRunner::new(),
                &mut RawWriter::discard(),
                &mut NoopObserver
            )
            .is_err()
        );
    }

    #[test]
    fn reference_runs_once_per_block_into_dataset_reference() {
        let config = ExperimentConfig {
            variants: variants(&["A", "B"]),
            reference: Some(CommandSpec::parse("ref", Shell::None).unwrap()),
            blocks: 3,
            warmup: 1,
            ..ExperimentConfig::default()
        };
        let mut fake = FakeRunner::new();
        let outcome = run_experiment(
            &config,
            &mut fake,
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap();
        assert_eq!(
            fake.calls().iter().filter(|c| c.command == "ref").count(),
            4
        );
        assert_eq!(outcome.runs.iter().filter(|r| r.is_reference).count(), 3);
        let d = outcome.to_dataset().dataset;
        assert_eq!(
            d.reference
                .as_ref()
                .map(|r| r.iter().map(|x| x.0).collect::<Vec<_>>()),
            Some(vec![0, 1, 2])
        );
        assert_eq!(d.series[0].observations.len(), 6);
    }

    #[test]
    fn sequential_yields_unpaired_observations() {
        let config = ExperimentConfig {
            variants: variants(&["A", "B"]),
            design: Design::Sequential,
            blocks: 3,
            warmup: 0,
            ..ExperimentConfig::default()
        };
        let mut fake = FakeRunner::new();
        let outcome = run_experiment(
            &config,
            &mut fake,
            &mut RawWriter::discard(),
            &mut NoopObserver,
        )
        .unwrap();
        let order: Vec<&str> = fake.calls().iter().map(|c| c.variant.as_str()).collect();
        assert_eq!(order, ["A", "A", "A", "B", "B", "B"]);
        let d = outcome.to_dataset().dataset;
        assert_eq!(d.design.as_deref(), Some("sequential"));
        assert!(
            d.series
                .iter()
                .flat_map(|s| &s.observations)
                .all(|o| o.block.is_none())
        );
    }
}
