//! The loop: pre-flight, warm-up, then every planned run, streamed to the raw file.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use crate::counter::Counts;
use crate::design::{PlannedRun, Target};
use crate::error::SchedError;
use crate::host::{load_average, rfc3339_utc};
use crate::interrupt::InterruptFlag;
use crate::raw::{
    EndStatus, Experiment, RawHeader, RawSequence, RawTrailer, RawWriter, RunRecord, Runs,
    SequenceStop,
};
use crate::runner::{CommandSpec, Metric, RunMeasurement, RunRequest, Runner, Termination};

use super::{
    ConfigError, ExperimentConfig, FailurePolicy, HookKind, Observer, REFERENCE_NAME, Variant,
};

/// One hook's run: its wall time and, if it failed, how (`exit code 1`).
struct HookRun {
    wall_ns: u64,
    failure: Option<String>,
    stderr_tail: String,
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

fn signal_name(s: i32) -> Option<&'static str> {
    Some(match s {
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGTTIN => "SIGTTIN",
        libc::SIGTTOU => "SIGTTOU",
        libc::SIGTRAP => "SIGTRAP",
        _ => return None,
    })
}

/// How a failed run ended, with the counter's reason when counting failed too (valgrind
/// that cannot run the program kills it: its SIGILL is valgrind's, not the program's).
fn failure_status(t: Termination, m: &RunMeasurement) -> String {
    match &m.counts {
        Some(Err(why)) => format!("{}; {why}", status_text(t)),
        _ => status_text(t),
    }
}

fn status_text(t: Termination) -> String {
    match t {
        Termination::Exited(c) => format!("exit code {c}"),
        Termination::Signaled(s) => format!("killed by signal {s}"),
        Termination::TimedOut => "timed out".into(),
        Termination::Interrupted => "interrupted".into(),
        Termination::Stopped(s) => format!(
            "stopped by signal {s}{} and still stopped after 1 s; abba killed it",
            signal_name(s).map_or_else(String::new, |n| format!(" ({n})"))
        ),
    }
}

/// Runs the experiment: pre-flight, warm-up, then the schedule, writing each run to `out`
/// as it ends.
///
/// Before the first run every program is resolved (a missing one stops everything). A run
/// that fails (non-zero exit, signal, timeout, unreadable `json:` metric) is recorded and,
/// under [`FailurePolicy::Stop`], ends the experiment with an error naming the variant,
/// block and stderr tail. When `stop` is raised (use [`InterruptFlag::from_signals`] in a
/// binary, a fresh [`InterruptFlag::new`] otherwise) the running child's process group
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
/// let outcome = run_experiment(
///     &config,
///     &InterruptFlag::new(),
///     &mut runner,
///     &mut RawWriter::discard(),
///     &mut NoopObserver,
/// )?;
/// assert_eq!(outcome.runs.len(), 8); // ABBA + BAAB
/// assert_eq!(runner.calls().len(), 10); // plus one warm-up run per variant
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_experiment(
    config: &ExperimentConfig,
    stop: &InterruptFlag,
    runner: &mut dyn Runner,
    out: &mut RawWriter,
    observer: &mut dyn Observer,
) -> Result<Experiment, SchedError> {
    let reference = preflight(config, runner)?;
    let (header, mut runs, skip) = starting_point(config);
    if !out.has_header() {
        out.write_header(&header)?;
    }
    let allowed = runner
        .allowed_cpus(config.pin.as_ref())
        .map(|c| c.to_string());
    let mut session = Session {
        config,
        stop,
        runner,
        out,
        observer,
        reference: reference.as_ref(),
        allowed,
        session: config
            .resume
            .as_ref()
            .map_or(0, super::resume::ResumePoint::next_session),
        set_up: vec![false; config.variants.len()],
        header: &header,
        sequence: None,
        started: Instant::now(),
        done: Vec::new(),
        cleaned: vec![false; config.variants.len()],
    };
    session.warm_up(config.warmup, None)?;
    let status = session.measure(skip, &mut runs)?;
    let end = session.finish(status)?;
    Ok(Experiment::new(header, runs, "(this run)").with_end(end))
}

/// Checks the configuration (and a resume file against it) and resolves every program
/// before anything runs; returns the reference workload as a variant.
pub(super) fn preflight(
    config: &ExperimentConfig,
    runner: &mut dyn Runner,
) -> Result<Option<Variant>, SchedError> {
    config.validate()?;
    if let Some(r) = &config.resume {
        r.check(config)?;
    }
    for (i, v) in config.variants.iter().enumerate() {
        runner.preflight(&v.name, &v.command)?;
        if let Some(hooks) = config.hooks_of(i) {
            for kind in HookKind::ALL {
                if let Some(hook) = hooks.get(kind) {
                    // A missing hook program is named as the hook it is.
                    runner.preflight(&format!("{}, its {kind} hook", v.name), hook)?;
                }
            }
        }
    }
    let reference = config.reference.as_ref().map(|c| Variant {
        name: REFERENCE_NAME.to_owned(),
        command: c.clone(),
    });
    if let Some(r) = &reference {
        runner.preflight(&r.name, &r.command)?;
    }
    Ok(reference)
}

/// The header, the runs already done and how many planned runs to skip: a resume keeps the
/// file's header and its complete blocks, a fresh experiment starts from nothing. A suite
/// under a stop rule ran only its undecided benchmarks in later blocks: it skips the
/// planned runs of every kept block.
fn starting_point(config: &ExperimentConfig) -> (RawHeader, Runs, usize) {
    match &config.resume {
        Some(r) => {
            let (header, runs) = r.kept(config);
            let keep = match (&config.suite, &config.until, runs.last()) {
                (Some(_), Some(_), Some(last)) => {
                    let next = last.block.saturating_add(1);
                    config
                        .schedule()
                        .runs
                        .iter()
                        .position(|p| p.block >= next)
                        .unwrap_or(usize::MAX)
                }
                _ => runs.len(),
            };
            (header, runs, keep)
        }
        None => (RawHeader::from_config(config), Runs::new(), 0),
    }
}

/// What one run asks of the runner.
fn request<'a>(
    config: &'a ExperimentConfig,
    stop: &'a InterruptFlag,
    command: &'a CommandSpec,
    env_pad: usize,
    variant: Option<usize>,
) -> RunRequest<'a> {
    RunRequest {
        command,
        env_pad,
        pin: config.pin.as_ref(),
        timeout: config.timeout_of(variant),
        output: config.output,
        capture_json: config.metric_of(variant).needs_stdout(),
        stop,
        count: config.counter.is_some(),
    }
}

/// An experiment under way: the caller's configuration, stop flag, runner, output and
/// observer, borrowed for the length of the loop.
struct Session<'a> {
    config: &'a ExperimentConfig,
    stop: &'a InterruptFlag,
    runner: &'a mut dyn Runner,
    out: &'a mut RawWriter,
    observer: &'a mut dyn Observer,
    reference: Option<&'a Variant>,
    /// The CPUs the children may use, recorded in every run line.
    allowed: Option<String>,
    /// This session's number (0 unless resumed), recorded in every run line.
    session: u32,
    /// Whether each variant's setup hook has run in this session.
    set_up: Vec<bool>,
    /// The header written (the looks read the runs through it).
    header: &'a RawHeader,
    /// The looks of a sequential experiment so far, for the trailer.
    sequence: Option<RawSequence>,
    /// When the session started (the clock of [`ExperimentConfig::time_budget`]).
    started: Instant,
    /// In a suite under a stop rule: each benchmark's decision so far (decided benchmarks
    /// run in no further block). Empty otherwise.
    done: Vec<bool>,
    /// Whether each variant's cleanup hook has run before its last planned run (it
    /// stopped early).
    cleaned: Vec<bool>,
}

impl Session<'_> {
    /// Writes the trailer line with `status` and returns it.
    fn finish(&mut self, status: EndStatus) -> Result<RawTrailer, SchedError> {
        let end = RawTrailer {
            status,
            load_end: load_average(),
            end_time: rfc3339_utc(SystemTime::now()),
            sequence: self.sequence.clone(),
            superseded: Vec::new(),
            time_budget_ns: self
                .config
                .time_budget
                .filter(|_| status == EndStatus::TimeBudget)
                .map(|b| u64::try_from(b.as_nanos()).unwrap_or(u64::MAX)),
        };
        self.out.write_trailer(&end)?;
        Ok(end)
    }

    /// Once a stop is requested: writes the `interrupted` trailer and returns
    /// [`SchedError::Interrupted`] (or the error writing the trailer).
    fn check_stop(&mut self) -> Result<(), SchedError> {
        match self.stop.stop_requested() {
            None => Ok(()),
            Some(signal) => Err(match self.finish(EndStatus::Interrupted) {
                Ok(_) => SchedError::Interrupted { signal },
                Err(e) => e,
            }),
        }
    }

    /// Untimed, unrecorded runs of every variant and the reference, with their prepare and
    /// conclude hooks; failures still count as failures. `rounds` runs of each before
    /// `block` (`None`: before the first block).
    fn warm_up(&mut self, rounds: u32, block: Option<u32>) -> Result<(), SchedError> {
        let config = self.config;
        let warm: Vec<&Variant> = config.variants.iter().chain(self.reference).collect();
        for w in 0..rounds {
            for (i, v) in warm.iter().enumerate() {
                self.check_stop()?;
                self.observer.on_warmup(v);
                let fake_run = PlannedRun {
                    run_index: 0,
                    block: match block {
                        None => u32::MAX - w,
                        // Pads of per-block warm-ups: a range no measured run or initial
                        // warm-up uses.
                        Some(b) => (u32::MAX / 2)
                            .wrapping_add(b.wrapping_mul(64))
                            .wrapping_add(w),
                    },
                    position: i as u32,
                    beside: None,
                    target: Target::Variant(i),
                };
                let env_pad = config.layout.pad_for(config.seed, &fake_run);
                let is_variant = i < config.variants.len();
                if is_variant {
                    self.hook_or_stop(i, HookKind::Setup, None)?;
                    self.hook_or_stop(i, HookKind::Prepare, None)?;
                }
                let m = self.runner.run(
                    &v.name,
                    &request(
                        config,
                        self.stop,
                        &v.command,
                        env_pad,
                        is_variant.then_some(i),
                    ),
                )?;
                self.check_stop()?;
                if config.on_failure == FailurePolicy::Stop
                    && m.termination != Termination::Exited(0)
                {
                    let _ = self.finish(EndStatus::Failed);
                    return Err(SchedError::WarmupFailed {
                        variant: v.name.clone(),
                        status: match m.termination {
                            Termination::TimedOut => "timed out".to_owned(),
                            t @ (Termination::Exited(_)
                            | Termination::Signaled(_)
                            | Termination::Interrupted
                            | Termination::Stopped(_)) => failure_status(t, &m),
                        },
                        stderr_tail: m.stderr_tail,
                    });
                }
                if is_variant {
                    self.hook_or_stop(i, HookKind::Conclude, None)?;
                }
            }
        }
        Ok(())
    }

    /// Runs hook `kind` of variant `i` if it has one (its setup only once per session):
    /// `None` when nothing ran, else its wall time and, if it failed, how.
    fn hook(&mut self, i: usize, kind: HookKind) -> Result<Option<HookRun>, SchedError> {
        let config = self.config;
        let Some(command) = config.hooks_of(i).and_then(|h| h.get(kind)) else {
            return Ok(None);
        };
        if kind == HookKind::Setup {
            if self.set_up[i] {
                return Ok(None);
            }
            self.set_up[i] = true;
        }
        let name = &config.variants[i].name;
        let req = RunRequest {
            capture_json: false,
            count: false,
            ..request(config, self.stop, command, 0, Some(i))
        };
        let m = self.runner.run(name, &req)?;
        self.check_stop()?;
        let failure = match m.termination {
            Termination::Exited(0) => None,
            t @ (Termination::Exited(_)
            | Termination::Signaled(_)
            | Termination::TimedOut
            | Termination::Interrupted
            | Termination::Stopped(_)) => Some(status_text(t)),
        };
        Ok(Some(HookRun {
            wall_ns: m.wall_ns,
            failure,
            stderr_tail: m.stderr_tail,
        }))
    }

    /// [`Self::hook`], then under [`FailurePolicy::Stop`] a failed hook ends the experiment
    /// (after the `failed` trailer). `block`: the measured run's block, `None` in a warm-up.
    fn hook_or_stop(
        &mut self,
        i: usize,
        kind: HookKind,
        block: Option<u32>,
    ) -> Result<Option<HookRun>, SchedError> {
        let run = self.hook(i, kind)?;
        if let Some(e) = run
            .as_ref()
            .and_then(|r| self.hook_error(i, kind, block, r))
        {
            self.finish(EndStatus::Failed)?;
            return Err(e);
        }
        Ok(run)
    }

    /// The error a failed hook is under [`FailurePolicy::Stop`] (`None` if it succeeded or
    /// failures are ignored).
    fn hook_error(
        &self,
        i: usize,
        kind: HookKind,
        block: Option<u32>,
        run: &HookRun,
    ) -> Option<SchedError> {
        if self.config.on_failure != FailurePolicy::Stop {
            return None;
        }
        let status = run.failure.clone()?;
        Some(SchedError::HookFailed {
            hook: kind,
            variant: self.config.variants[i].name.clone(),
            place: block.map_or_else(|| "in a warm-up".to_owned(), |b| format!("in block {b}")),
            status,
            stderr_tail: run.stderr_tail.clone(),
        })
    }

    /// Runs the schedule from planned run `skip` on, settling before each run, appending
    /// each record to `runs` and telling the observer when a block is complete. Returns how
    /// the measuring ended: `complete` (every planned block, or the stop rule decided) or
    /// `time-budget`.
    fn measure(&mut self, skip: usize, runs: &mut Runs) -> Result<EndStatus, SchedError> {
        let config = self.config;
        let schedule = config.schedule();
        let pads = config.pads(&schedule);
        let mut left_in_block: HashMap<u32, usize> = HashMap::new();
        for r in schedule.runs.iter().skip(skip) {
            *left_in_block.entry(r.block).or_default() += 1;
        }
        // Each variant's last measured run: its cleanup hook follows it.
        let mut last_of: HashMap<usize, usize> = HashMap::new();
        for (n, r) in schedule.runs.iter().enumerate().skip(skip) {
            if let Target::Variant(i) = r.target {
                last_of.insert(i, n);
            }
        }
        if let (Some(suite), Some(until)) = (&config.suite, &config.until) {
            self.done = if runs.is_empty() {
                vec![false; suite.benchmarks.len()]
            } else {
                crate::suite::until::decided(self.header, runs, until)
            };
        }
        let mut block_started: Option<u32> = None;
        let mut block_began = Instant::now();
        for (n, planned) in schedule.runs.iter().enumerate().skip(skip) {
            let dropped = self.decided_benchmark(planned.target);
            if !dropped {
                if config.warmup_per_block > 0 && block_started != Some(planned.block) {
                    block_started = Some(planned.block);
                    self.warm_up(config.warmup_per_block, Some(planned.block))?;
                }
                if n > skip || config.warmup > 0 {
                    sleep_unless_stopped(config.settle, self.stop);
                }
                self.check_stop()?;
                runs.push(self.run_planned(planned, pads[n])?);
                if let Target::Variant(i) = planned.target {
                    if last_of.get(&i) == Some(&n) {
                        self.cleaned[i] = true;
                        self.hook_or_stop(i, HookKind::Cleanup, Some(planned.block))?;
                    }
                }
            }
            let Some(left) = left_in_block.get_mut(&planned.block) else {
                continue;
            };
            *left -= 1;
            if *left > 0 {
                continue;
            }
            self.observer.on_block_end(planned.block);
            let ahead = |i: &usize| last_of.get(i).is_some_and(|&last| last > n);
            let all_decided = self.look(runs);
            // Decided (the experiment, or some of a suite's benchmarks): the variants
            // whose last planned run is still ahead get their cleanup hook now.
            let stopped = |i: &usize| all_decided || self.decided_benchmark(Target::Variant(*i));
            let now_clean: Vec<usize> = (0..config.variants.len())
                .filter(|i| stopped(i) && ahead(i))
                .collect();
            self.clean_up(&now_clean, planned.block)?;
            if all_decided {
                return Ok(EndStatus::Complete);
            }
            let more = schedule.runs.len() > n + 1;
            let now = Instant::now();
            if let Some(budget) = config.time_budget.filter(|_| more) {
                // One more block at the last one's pace would end past the budget.
                if now.duration_since(self.started) + now.duration_since(block_began) > budget {
                    if let Some(seq) = self.sequence.as_mut() {
                        if seq.stop == SequenceStop::NotFinished {
                            seq.stop = SequenceStop::TimeBudget;
                        }
                    }
                    let rest: Vec<usize> =
                        (0..config.variants.len()).filter(|i| ahead(i)).collect();
                    self.clean_up(&rest, planned.block)?;
                    return Ok(EndStatus::TimeBudget);
                }
            }
            block_began = now;
        }
        Ok(EndStatus::Complete)
    }

    /// Whether `target` belongs to a suite benchmark already decided (its runs are
    /// dropped from the blocks that follow).
    fn decided_benchmark(&self, target: Target) -> bool {
        let (Target::Variant(i), Some(suite)) = (target, &self.config.suite) else {
            return false;
        };
        suite
            .benchmarks
            .iter()
            .position(|b| b.variants.contains(&i))
            .is_some_and(|k| self.done.get(k).copied().unwrap_or(false))
    }

    /// Runs the cleanup hook of each of `variants` (whose last planned run is still
    /// ahead) that has not run yet, after `block`.
    fn clean_up(&mut self, variants: &[usize], block: u32) -> Result<(), SchedError> {
        for &i in variants {
            if !self.cleaned[i] {
                self.cleaned[i] = true;
                self.hook_or_stop(i, HookKind::Cleanup, Some(block))?;
            }
        }
        Ok(())
    }

    /// After a complete block of a sequential experiment: the look, told to the observer
    /// and kept for the trailer. `true` when it decided (the experiment stops). In a suite,
    /// each benchmark still running looks at its own sequence; a decided one runs in no
    /// further block (its cleanup hooks run now), and the suite stops when all are.
    fn look(&mut self, runs: &Runs) -> bool {
        let Some(until) = &self.config.until else {
            return false;
        };
        if let Some(suite) = &self.config.suite {
            let now = crate::suite::until::decided(self.header, runs, until);
            for (d, n) in self.done.iter_mut().zip(now) {
                *d |= n;
            }
            debug_assert_eq!(self.done.len(), suite.benchmarks.len());
            return self.done.iter().all(|&d| d);
        }
        let Some((replay, agrees)) = super::stop::looks(self.header, runs, until) else {
            return false;
        };
        self.sequence = Some(super::stop::record(&replay, until));
        match replay.last() {
            Some(last) => {
                self.observer.on_look(last, &until.rule);
                last.decision.decided() && agrees
            }
            None => false,
        }
    }

    /// One measured run: runs it, writes its record, and under [`FailurePolicy::Stop`]
    /// ends the experiment (after the `failed` trailer) when it failed.
    fn run_planned(
        &mut self,
        planned: &PlannedRun,
        env_pad: usize,
    ) -> Result<RunRecord, SchedError> {
        let config = self.config;
        let variant = match planned.target {
            Target::Variant(i) => &config.variants[i],
            Target::Reference => self.reference.ok_or(SchedError::Config(
                ConfigError::ReferenceRunWithoutReference,
            ))?,
        };
        let index = match planned.target {
            Target::Variant(i) => Some(i),
            Target::Reference => None,
        };
        let block = Some(planned.block);
        let prepare = match index {
            Some(i) => {
                self.hook_or_stop(i, HookKind::Setup, block)?;
                self.hook_or_stop(i, HookKind::Prepare, block)?
            }
            None => None,
        };
        self.observer.on_run_start(planned, variant);
        let m = self.runner.run(
            &variant.name,
            &request(config, self.stop, &variant.command, env_pad, index),
        )?;
        self.check_stop()?;
        let conclude = match index {
            Some(i) => self.hook(i, HookKind::Conclude)?,
            None => None,
        };
        let metric = metric_value(config.metric_of(index), &m);
        let measured = Measured {
            planned,
            variant: &variant.name,
            index,
            env_pad,
            metric: metric.as_ref().ok().copied().flatten(),
            prepare: prepare.as_ref(),
            conclude: conclude.as_ref(),
        };
        let record = self.record(&measured, &m);
        self.out.write_run(&record)?;
        self.observer.on_run_end(&record);
        if let (Some(i), Some(run)) = (index, &conclude) {
            if let Some(e) = self.hook_error(i, HookKind::Conclude, block, run) {
                self.finish(EndStatus::Failed)?;
                return Err(e);
            }
        }
        if config.on_failure == FailurePolicy::Stop {
            let failed =
                check_termination(config, &variant.name, planned.block, &m).and_then(|()| {
                    match metric {
                        Err(message) => Err(SchedError::Metric {
                            variant: variant.name.clone(),
                            block: planned.block,
                            message,
                        }),
                        Ok(_) => Ok(()),
                    }
                });
            if let Err(e) = failed {
                self.finish(EndStatus::Failed)?;
                return Err(e);
            }
        }
        Ok(record)
    }
}

/// What one measured run was, besides its measurement: what [`Session::record`] writes.
struct Measured<'a> {
    planned: &'a PlannedRun,
    /// The variant's name (`reference` for a reference run).
    variant: &'a str,
    /// The variant's index (`None`: the reference).
    index: Option<usize>,
    env_pad: usize,
    /// The value the run line records in `metric`.
    metric: Option<f64>,
    prepare: Option<&'a HookRun>,
    conclude: Option<&'a HookRun>,
}

impl Session<'_> {
    /// The run line of `run`, measured as `m`: its place, times, exit, hooks and counts.
    fn record(&self, run: &Measured<'_>, m: &RunMeasurement) -> RunRecord {
        let config = self.config;
        let (planned, index) = (run.planned, run.index);
        let hook_failure = [
            (HookKind::Prepare, run.prepare),
            (HookKind::Conclude, run.conclude),
        ]
        .into_iter()
        .find_map(|(kind, hook)| {
            let failed = hook?.failure.as_ref()?;
            Some(format!("{kind}: {failed}"))
        });
        let record = RunRecord {
            run: planned.run_index,
            block: planned.block,
            position: planned.position,
            variant: run.variant.to_owned(),
            is_reference: planned.target == Target::Reference,
            beside: planned.beside.map(|v| config.variants[v].name.clone()),
            wall_ns: m.wall_ns,
            user_ns: m.user_ns,
            sys_ns: m.sys_ns,
            max_rss_kib: m.max_rss_kib,
            exit_code: match m.termination {
                Termination::Exited(c) => Some(c),
                Termination::Signaled(_)
                | Termination::TimedOut
                | Termination::Interrupted
                | Termination::Stopped(_) => None,
            },
            signal: match m.termination {
                Termination::Signaled(s) => Some(s),
                Termination::Stopped(_) => Some(libc::SIGKILL),
                Termination::Exited(_) | Termination::TimedOut | Termination::Interrupted => None,
            },
            timed_out: m.termination == Termination::TimedOut,
            env_pad: run.env_pad,
            metric: run.metric,
            allowed_cpus: self.allowed.clone(),
            session: self.session,
            prepare_ns: run.prepare.map(|h| h.wall_ns),
            conclude_ns: run.conclude.map(|h| h.wall_ns),
            hook_failure,
            benchmark: config
                .suite
                .as_ref()
                .zip(index)
                .and_then(|(s, i)| s.benchmark_of(i))
                .map(|b| b.name.clone()),
            instructions: None,
            cycles: None,
            branches: None,
            branch_misses: None,
            cache_misses: None,
            counted_processes: None,
            count_error: None,
            run_delay_ns: m.run_delay_ns,
        };
        with_counts(record, m.counts.as_ref())
    }
}

/// The value a run line records in `metric`: the `json:` field of a successful run, the
/// max RSS, or none (time metrics are read from the time fields). `Err` says why a `json:`
/// field could not be read.
fn metric_value(metric: &Metric, m: &RunMeasurement) -> Result<Option<f64>, String> {
    match metric {
        Metric::Json(field) if m.termination == Termination::Exited(0) => {
            json_field(m.last_json.as_deref(), field).map(Some)
        }
        Metric::MaxRss => Ok(Some(m.max_rss_kib as f64)),
        Metric::Count(e) if m.termination == Termination::Exited(0) => match &m.counts {
            Some(Ok(c)) => c
                .get(*e)
                .map(|v| Some(v as f64))
                .ok_or_else(|| format!("the counter gave no {e} count")),
            Some(Err(message)) => Err(message.clone()),
            None => Err(format!("the run was not counted (metric {e})")),
        },
        // Times come from the measurement itself; a failed run has no JSON field or count.
        Metric::Wall
        | Metric::User
        | Metric::Sys
        | Metric::Cpu
        | Metric::Json(_)
        | Metric::Count(_) => Ok(None),
    }
}

/// `record` with the counts (or the counting error) of its run.
fn with_counts(record: RunRecord, counts: Option<&Result<Counts, String>>) -> RunRecord {
    match counts {
        None => record,
        Some(Err(message)) => RunRecord {
            count_error: Some(message.clone()),
            ..record
        },
        Some(Ok(c)) => RunRecord {
            instructions: c.instructions,
            cycles: c.cycles,
            branches: c.branches,
            branch_misses: c.branch_misses,
            cache_misses: c.cache_misses,
            counted_processes: c.processes,
            ..record
        },
    }
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
        t @ (Termination::Exited(_)
        | Termination::Signaled(_)
        | Termination::Interrupted
        | Termination::Stopped(_)) => Err(SchedError::RunFailed {
            variant: variant.to_owned(),
            block,
            status: failure_status(t, m),
            stderr_tail: m.stderr_tail.clone(),
        }),
    }
}
