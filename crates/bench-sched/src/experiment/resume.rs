//! The resume point: a previous raw file of the same experiment, to continue.

use std::path::Path;

use crate::error::SchedError;
use crate::raw::{RawData, RawHeader, RawVariant, RawWriter, RunRecord, read_raw};

use super::ExperimentConfig;
use super::header::raw_variant;

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

    /// The header of the file and the runs a resume keeps (see [`Self::completed_runs`]).
    pub(super) fn kept(&self) -> (RawHeader, Vec<RunRecord>) {
        let keep = self.completed_runs();
        (self.data.header.clone(), self.data.runs[..keep].to_vec())
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
