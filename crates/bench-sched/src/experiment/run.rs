//! The loop: pre-flight, warm-up, then every planned run, streamed to the raw file.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use crate::design::{PlannedRun, Target};
use crate::error::SchedError;
use crate::host::{load_average, rfc3339_utc};
use crate::interrupt::InterruptFlag;
use crate::raw::{RawTrailer, RawWriter, RunRecord};
use crate::runner::{Metric, RunMeasurement, RunRequest, Runner, Termination};

use super::header::new_header;
use super::{ExperimentConfig, FailurePolicy, Observer, Outcome, REFERENCE_NAME, Variant};

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
            let (header, runs) = r.kept();
            let keep = runs.len();
            (header, runs, keep)
        }
        None => (new_header(config), Vec::new(), 0),
    };
    if !out.has_header() {
        out.write_header(&header)?;
    }
    let allowed = runner
        .allowed_cpus(config.pin.as_ref())
        .map(|c| c.to_string());
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
