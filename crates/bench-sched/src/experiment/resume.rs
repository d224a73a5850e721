//! The resume point: a previous raw file of the same experiment, to continue.

use std::path::Path;

use crate::error::SchedError;
use crate::raw::{
    EndStatus, Experiment, RawExtension, RawHeader, RawHooks, RawStopRule, RawTrailer, RawVariant,
    RawWriter, ReferencePlacement, RunRecord, SequenceStop, read_raw,
};

use super::ExperimentConfig;
use super::header::raw_variant;
use super::hooks::raw_hooks;

/// A previous raw file to continue (`--resume`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResumePoint {
    data: Experiment,
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

    /// The header of the file: the experiment to continue (commands, names, blocks,
    /// design, seed and run conditions).
    pub fn header(&self) -> &RawHeader {
        &self.data.header
    }

    /// The raw file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs already done that will be kept (complete blocks; all runs for sequential).
    pub fn completed_runs(&self) -> usize {
        self.data.complete_prefix()
    }

    /// Checks the file belongs to `config`'s experiment (design, seed, blocks, variants,
    /// reference and metric must match) and that the resumed blocks run under the
    /// conditions the header describes (layout, warm-up, settle, timeout, shell, CPU
    /// pinning, hooks and warm-ups per block must match; a shell or timeout the file does not record, from an older
    /// abba, is not checked).
    ///
    /// # Errors
    /// [`SchedError::ResumeMismatch`] naming the first difference.
    pub fn check(&self, config: &ExperimentConfig) -> Result<(), SchedError> {
        let h = &self.data.header;
        let mismatch = |what: &str, file: String, now: String| SchedError::ResumeMismatch {
            path: self.path.clone(),
            message: format!("{what} differs: the file has {file}, this run has {now}"),
        };
        if h.design != config.design {
            return Err(mismatch(
                "design",
                h.design.to_string(),
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
        if h.blocks != config.blocks && !self.extends(config) {
            return Err(mismatch(
                "block count",
                h.blocks.to_string(),
                config.blocks.to_string(),
            ));
        }
        // Names and commands must match; a scan's parameter values come from the header.
        let now: Vec<RawVariant> = config.variants.iter().map(raw_variant).collect();
        let recorded: Vec<RawVariant> = h
            .variants
            .iter()
            .map(|v| RawVariant {
                parameter: None,
                ..v.clone()
            })
            .collect();
        if recorded != now {
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
        let placement = ReferencePlacement::of(config.reference_runs());
        if h.reference.is_some() && h.reference_placement != placement {
            return Err(mismatch(
                "reference placement",
                h.reference_placement.map_or_else(
                    || "once per block (an older abba)".to_owned(),
                    |p| p.to_string(),
                ),
                placement.map_or_else(|| "none".to_owned(), |p| p.to_string()),
            ));
        }
        if h.metric != config.metric {
            return Err(mismatch(
                "metric",
                h.metric.to_string(),
                config.metric.to_string(),
            ));
        }
        let suite = config
            .suite
            .as_ref()
            .map(|s| s.to_raw(&config.variants))
            .unwrap_or_default();
        if h.suite != suite {
            let show = |s: &[crate::raw::RawSuiteBenchmark]| {
                if s.is_empty() {
                    return "no suite".to_owned();
                }
                serde_json::to_string(s).unwrap_or_default()
            };
            return Err(mismatch("suite", show(&h.suite), show(&suite)));
        }
        self.check_conditions(config)
    }

    /// The run conditions of [`Self::check`]: what the header says every run had.
    fn check_conditions(&self, config: &ExperimentConfig) -> Result<(), SchedError> {
        let h = &self.data.header;
        let mismatch = |what: &str, file: String, now: String| SchedError::ResumeMismatch {
            path: self.path.clone(),
            message: format!(
                "{what} differs: the file's runs had {file}, this run would use {now} (resume with the file's setting, or start a new file)"
            ),
        };
        if h.layout != config.layout {
            return Err(mismatch(
                "layout",
                h.layout.to_string(),
                config.layout.to_string(),
            ));
        }
        if h.warmup != config.warmup {
            return Err(mismatch(
                "warmup",
                h.warmup.to_string(),
                config.warmup.to_string(),
            ));
        }
        let settle_ns = u64::try_from(config.settle.as_nanos()).unwrap_or(u64::MAX);
        if h.settle_ns != settle_ns {
            return Err(mismatch("settle", ns_text(h.settle_ns), ns_text(settle_ns)));
        }
        let timeout_ns = config
            .timeout
            .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX));
        // Files from before the header recorded the shell have neither field; their
        // timeout is unknown rather than "none".
        if h.shell.is_some() && h.timeout_ns != timeout_ns {
            let show = |t: Option<u64>| t.map_or_else(|| "no timeout".to_owned(), ns_text);
            return Err(mismatch("timeout", show(h.timeout_ns), show(timeout_ns)));
        }
        let shell = config.variants.first().map(|v| v.command.shell());
        if let (Some(file), Some(now)) = (h.shell, shell) {
            if file != now {
                return Err(mismatch("shell", file.to_string(), now.to_string()));
            }
        }
        if h.counter != config.counter {
            let show = |c: Option<crate::CounterSource>| {
                c.map_or_else(|| "no counter".to_owned(), |c| c.to_string())
            };
            return Err(mismatch("counter", show(h.counter), show(config.counter)));
        }
        let pin = config.pin.as_ref().map(ToString::to_string);
        if h.pin != pin {
            let show = |p: &Option<String>| p.clone().unwrap_or_else(|| "no pinning".to_owned());
            return Err(mismatch("pin", show(&h.pin), show(&pin)));
        }
        if h.warmup_per_block != config.warmup_per_block {
            return Err(mismatch(
                "warmup-per-block",
                h.warmup_per_block.to_string(),
                config.warmup_per_block.to_string(),
            ));
        }
        if h.cycles != config.cycles.max(1) {
            return Err(mismatch(
                "runs-per-block",
                format!("{} cycle(s) of the design per block", h.cycles),
                format!("{} cycle(s)", config.cycles.max(1)),
            ));
        }
        let hooks = raw_hooks(&config.hooks);
        if h.hooks != hooks {
            let show = |hooks: &[RawHooks]| {
                if hooks.is_empty() {
                    return "no hooks".to_owned();
                }
                let names = self.data.header.variants.iter().map(|v| v.name.as_str());
                names
                    .zip(hooks)
                    .map(|(name, h)| {
                        let parts: Vec<String> = [
                            ("setup", &h.setup),
                            ("prepare", &h.prepare),
                            ("conclude", &h.conclude),
                            ("cleanup", &h.cleanup),
                        ]
                        .iter()
                        .filter_map(|(k, c)| c.as_ref().map(|c| format!("{k} {c:?}")))
                        .collect();
                        format!(
                            "{name}: {}",
                            if parts.is_empty() {
                                "none".to_owned()
                            } else {
                                parts.join(", ")
                            }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            return Err(mismatch("hooks", show(&h.hooks), show(&hooks)));
        }
        Ok(())
    }

    /// Blocks at the look that decided, when the file is a sequential experiment whose
    /// rule decided (its trailer says so).
    pub fn decided_at(&self) -> Option<u32> {
        let seq = self.data.end.as_ref()?.sequence.as_ref()?;
        (seq.stop == SequenceStop::Decided)
            .then_some(seq.decided_at)
            .flatten()
    }

    /// Whether `config` extends the file's experiment: it had ended (its end line says
    /// `complete`: every planned block, or its sequential rule stopped it), and `config`
    /// plans more blocks, in a paired design (whose schedule keeps its first blocks when
    /// it grows). An interrupted experiment is continued, not extended.
    pub fn extends(&self, config: &ExperimentConfig) -> bool {
        let ended = self
            .data
            .end
            .as_ref()
            .is_some_and(|t| t.status == EndStatus::Complete);
        ended
            && config.blocks > self.data.header.blocks
            && config.design.pairing() == crate::design::Pairing::Paired
    }

    /// The header of the file and the runs a resume keeps (see [`Self::completed_runs`]).
    /// An extension plans the new block count, records the extension and the stop rule's
    /// new limit: every block it adds is a further look.
    pub(super) fn kept(&self, config: &ExperimentConfig) -> (RawHeader, Vec<RunRecord>) {
        let keep = self.completed_runs();
        let mut header = self.data.header.clone();
        if self.extends(config) {
            header
                .extended
                .push(RawExtension::new(header.blocks, config.blocks));
            header.blocks = config.blocks;
            header.stop_rule = match (&config.until, header.stop_rule.take()) {
                (Some(u), _) => Some(RawStopRule::from_rule(&u.rule)),
                (None, Some(mut r)) => {
                    r.max_blocks = config.blocks;
                    Some(r)
                }
                (None, None) => None,
            };
        }
        (header, self.data.runs[..keep].to_vec())
    }

    /// What reading the file dropped (a cut-off last line), said before it is resumed.
    pub fn read_warnings(&self) -> &[crate::error::ReadWarning] {
        &self.data.warnings
    }

    /// The session number the resumed runs get: one more than any in the file (kept,
    /// superseded or unfinished runs alike).
    pub fn next_session(&self) -> u32 {
        let ended = self.data.session_ends.iter().flat_map(|t| &t.superseded);
        self.data
            .runs
            .iter()
            .chain(ended)
            .map(|r| r.session + 1)
            .max()
            .unwrap_or(0)
    }

    /// The runs after the last complete block: measured by the session that stopped, and
    /// measured again (their block from its start) by the resume.
    pub fn superseded_runs(&self) -> &[RunRecord] {
        &self.data.runs[self.completed_runs()..]
    }

    /// The end line that closes the stopped session before the resumed runs: its own end
    /// line (or, when abba was killed before writing one, `killed` at the file's last
    /// modification) with the runs of its unfinished block ([`RawTrailer::superseded`]);
    /// `None` when nothing follows the last complete block.
    fn session_end(&self) -> Option<RawTrailer> {
        let superseded = self.superseded_runs().to_vec();
        if superseded.is_empty() && self.data.end.is_none() {
            return None;
        }
        let mut end = self.data.end.clone().unwrap_or_else(|| {
            let modified = std::fs::metadata(&self.path).and_then(|m| m.modified());
            RawTrailer {
                status: EndStatus::Killed,
                load_end: None,
                end_time: modified.map(crate::host::rfc3339_utc).unwrap_or_default(),
                sequence: None,
                superseded: Vec::new(),
            }
        });
        end.superseded = superseded;
        Some(end)
    }

    /// Checks the file against `config`, then opens it for appending after its last
    /// complete block. What followed that block (the unfinished block's runs and the end
    /// line) becomes one end line of the stopped session that keeps those runs
    /// ([`RawTrailer::superseded`]); only a cut-off last line (`warnings`) is dropped.
    ///
    /// # Errors
    /// [`SchedError::ResumeMismatch`] (the file is left untouched) or
    /// [`SchedError::Output`].
    pub fn open_writer(&self, config: &ExperimentConfig) -> Result<RawWriter, SchedError> {
        self.check(config)?;
        let keep = self.data.bytes_through(self.completed_runs());
        let end = match self.session_end() {
            Some(t) => RawWriter::trailer_bytes(&t).map_err(|source| SchedError::Output {
                path: self.path.clone(),
                source,
            })?,
            None => Vec::new(),
        };
        if self.extends(config) {
            let (header, _) = self.kept(config);
            return RawWriter::rewrite_header(
                &self.path,
                &header,
                self.data.offsets.header_end,
                keep,
                &end,
            );
        }
        RawWriter::append_after(&self.path, keep, &end)
    }
}

/// A duration in ns as people write it (`200ms`, `1.5s`, `0s`).
fn ns_text(ns: u64) -> String {
    let d = std::time::Duration::from_nanos(ns);
    if ns == 0 {
        "0s".to_owned()
    } else if ns % 1_000_000_000 == 0 {
        format!("{}s", d.as_secs())
    } else if ns % 1_000_000 == 0 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{d:?}")
    }
}
