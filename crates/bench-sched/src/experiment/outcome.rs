//! What a completed experiment returns.

use crate::import::Loaded;
use crate::raw::{RawData, RawHeader, RunRecord};

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
            session_ends: Vec::new(),
            warnings: Vec::new(),
            run_ends: Vec::new(),
            header_end: 0,
        }
        .to_dataset()
    }
}
