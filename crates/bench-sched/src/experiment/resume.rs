//! The resume point: a previous raw file of the same experiment, to continue.

use std::path::Path;

use crate::error::SchedError;
use crate::raw::{
    EndStatus, Experiment, RawExtension, RawHeader, RawStopRule, RawTrailer, RawWriter, RunRecord,
    Runs, SequenceStop, read_raw,
};

use super::{ExperimentConfig, Mismatch};

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

    /// The configuration that continues this file: [`ExperimentConfig::resumed`] of its
    /// header, resuming it (what `abba compare --resume FILE` runs when no flag changes
    /// it).
    ///
    /// # Errors
    /// As [`ExperimentConfig::resumed`].
    pub fn config(&self) -> Result<ExperimentConfig, SchedError> {
        Ok(ExperimentConfig {
            resume: Some(self.clone()),
            ..ExperimentConfig::resumed(self.header())?
        })
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
    /// pinning, hooks and warm-ups per block must match; a shell or timeout the file does
    /// not record, from an older abba, is not checked): the first of
    /// [`ExperimentConfig::differences`] that [`Mismatch::refuses_resume`], the block count
    /// aside when `config` extends the ended experiment ([`Self::extends`]).
    ///
    /// # Errors
    /// [`SchedError::ResumeMismatch`] naming the first difference.
    pub fn check(&self, config: &ExperimentConfig) -> Result<(), SchedError> {
        let extends = self.extends(config);
        let refused = config
            .differences(&self.data.header)
            .into_iter()
            .find(|m| m.refuses_resume() && !(extends && matches!(m, Mismatch::Blocks { .. })));
        match refused {
            Some(m) => Err(SchedError::ResumeMismatch {
                path: self.path.clone(),
                message: m.to_string(),
            }),
            None => Ok(()),
        }
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
    pub(super) fn kept(&self, config: &ExperimentConfig) -> (RawHeader, Runs) {
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
        (header, self.data.runs.slice(0..keep))
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
            .map(|r| r.session)
            .chain(ended.map(|r| r.session))
            .map(|s| s + 1)
            .max()
            .unwrap_or(0)
    }

    /// The runs after the last complete block: measured by the session that stopped, and
    /// measured again (their block from its start) by the resume.
    pub fn superseded_runs(&self) -> Vec<RunRecord> {
        self.data
            .runs
            .iter()
            .skip(self.completed_runs())
            .map(|r| r.to_record())
            .collect()
    }

    /// The end line that closes the stopped session before the resumed runs: its own end
    /// line (or, when abba was killed before writing one, `killed` at the file's last
    /// modification) with the runs of its unfinished block ([`RawTrailer::superseded`]);
    /// `None` when nothing follows the last complete block.
    fn session_end(&self) -> Option<RawTrailer> {
        let superseded = self.superseded_runs();
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
                time_budget_ns: None,
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
