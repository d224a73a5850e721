//! The input of an analysis: named series of observations, optionally blocked.

/// One observation of one variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    /// The measured value (time in the dataset's unit, or a throughput).
    pub value: f64,
    /// The block it was measured in, when the design is blocked (0-based).
    pub block: Option<u32>,
    /// Its 0-based position inside the block, when known (for the carryover diagnostic).
    pub position: Option<u32>,
}

/// All observations of one variant, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Variant name (unique within the dataset).
    pub name: String,
    /// Optional class: per-class mode compares only within a class.
    pub class: Option<String>,
    /// Observations in the order they were measured.
    pub observations: Vec<Observation>,
}

/// Everything an analysis needs to know about the data.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Unit of the values (`ns`, `ops/s`, ...).
    pub unit: String,
    /// `true` when larger values are better.
    pub higher_is_better: bool,
    /// The run-order design that produced the data (`abba`, `random`, `sequential`, ...).
    pub design: Option<String>,
    /// The variants, first one the default baseline.
    pub series: Vec<Series>,
    /// Values of a reference workload, one per block, when one ran (`--reference`).
    pub reference: Option<Vec<(u32, f64)>>,
}
