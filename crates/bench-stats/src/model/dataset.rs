//! The input of an analysis: named series of observations, optionally blocked.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// The run-order design that produced a dataset. It decides whether blocks pair the
/// variants: every design but [`Design::Sequential`] and [`Design::Unpaired`] compares
/// within blocks when the data carry them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub enum Design {
    /// ABBA on even blocks, BAAB on odd ones (a Williams square for 3+ variants).
    #[cfg_attr(feature = "serde", serde(rename = "abba"))]
    Abba,
    /// A fresh random order in every block.
    #[cfg_attr(feature = "serde", serde(rename = "random"))]
    Random,
    /// All runs of one variant, then the next: unpaired by construction.
    #[cfg_attr(feature = "serde", serde(rename = "sequential"))]
    Sequential,
    /// Imported data with a block column: paired by those blocks, order unknown.
    #[cfg_attr(feature = "serde", serde(rename = "blocks from file"))]
    BlocksFromFile,
    /// Imported data without blocks: compared unpaired.
    #[cfg_attr(feature = "serde", serde(rename = "unpaired (no blocks)"))]
    Unpaired,
}

impl Design {
    /// The serialized name (`abba`, `random`, `sequential`, `blocks from file`,
    /// `unpaired (no blocks)`).
    pub fn as_str(self) -> &'static str {
        match self {
            Design::Abba => "abba",
            Design::Random => "random",
            Design::Sequential => "sequential",
            Design::BlocksFromFile => "blocks from file",
            Design::Unpaired => "unpaired (no blocks)",
        }
    }

    /// `false` for the designs whose runs must never be paired by block.
    pub fn pairs_blocks(self) -> bool {
        !matches!(self, Design::Sequential | Design::Unpaired)
    }
}

impl std::str::FromStr for Design {
    type Err = crate::StatsError;

    /// Parses the names of [`Design::as_str`].
    fn from_str(s: &str) -> Result<Design, crate::StatsError> {
        [
            Design::Abba,
            Design::Random,
            Design::Sequential,
            Design::BlocksFromFile,
            Design::Unpaired,
        ]
        .into_iter()
        .find(|d| d.as_str() == s)
        .ok_or(crate::StatsError::UnknownName {
            what: "design",
            name: s.to_owned(),
        })
    }
}

impl std::fmt::Display for Design {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the values measure, for the words of the sentences: "time ratio 1.04x (4.0% more
/// time)", "memory ratio ...", "v ratio ... (4.0% more v)".
///
/// Serialized as its word (`time`, `memory`, `throughput`, or the name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(from = "String", into = "String"))]
#[non_exhaustive]
pub enum Quantity {
    /// A duration (wall, user, sys or CPU time).
    Time,
    /// An amount of memory (peak resident set size, bytes).
    Memory,
    /// Work per unit of time (higher is better).
    Throughput,
    /// Anything else, by its name (a JSON field's name, ...).
    Named(String),
}

impl Quantity {
    /// The word the sentences use: `time`, `memory`, `throughput`, or the name.
    pub fn as_str(&self) -> &str {
        match self {
            Quantity::Time => "time",
            Quantity::Memory => "memory",
            Quantity::Throughput => "throughput",
            Quantity::Named(name) => name,
        }
    }

    /// Whether the values are counts of events a run executed (`instructions`, `cycles`,
    /// `branches`, `branch-misses`, `cache-misses`, as abba's counters name them): a count
    /// is said as a count ("executes 27.0% more instructions"), never as time.
    ///
    /// # Examples
    /// ```
    /// use bench_stats::Quantity;
    /// assert!(Quantity::Named("instructions".into()).is_count());
    /// assert!(!Quantity::Named("score".into()).is_count() && !Quantity::Time.is_count());
    /// ```
    pub fn is_count(&self) -> bool {
        matches!(self, Quantity::Named(n) if COUNTED.contains(&n.as_str()))
    }

    /// The verb a count's sentence uses: "executes" (instructions, branches), "takes"
    /// (cycles), "has" (misses); `None` for a quantity that is not a count.
    pub fn count_verb(&self) -> Option<&'static str> {
        let Quantity::Named(n) = self else {
            return None;
        };
        self.is_count().then_some(match n.as_str() {
            "cycles" => "takes",
            "branch-misses" | "cache-misses" => "has",
            _ => "executes",
        })
    }

    /// What values are taken to measure when nothing else is known: throughput when
    /// higher is better, time otherwise.
    pub fn by_direction(higher_is_better: bool) -> Quantity {
        if higher_is_better {
            Quantity::Throughput
        } else {
            Quantity::Time
        }
    }

    /// The quantity a unit names, if it names one: a duration ([`nanos_per_time_unit`],
    /// any case) is time, an amount of memory (`B`, `KB`, `KiB`, `MB`, `MiB`, `GB`, `GiB`,
    /// `bytes`, ...) is memory, a rate (anything ending in `/s`, `/sec`) is throughput.
    /// Case matters only for `B`/`b` (bytes vs bits: bits are not memory). Time: O(len).
    pub fn of_unit(unit: &str) -> Option<Quantity> {
        let u = unit.trim();
        let lower = u.to_ascii_lowercase();
        if lower.len() > 2 && (lower.ends_with("/s") || lower.ends_with("/sec")) {
            return Some(Quantity::Throughput);
        }
        if nanos_per_time_unit(&lower).is_some() {
            return Some(Quantity::Time);
        }
        match lower.as_str() {
            "bytes" | "byte" | "kb" | "kib" | "mb" | "mib" | "gb" | "gib" | "tb" | "tib" => {
                return Some(Quantity::Memory);
            }
            _ => {}
        }
        (u == "B").then_some(Quantity::Memory)
    }

    /// The quantity of values in `unit`: what [`Quantity::of_unit`] says, else
    /// [`Quantity::by_direction`]. CSV and hyperfine imports use this.
    pub fn infer(unit: &str, higher_is_better: bool) -> Quantity {
        Quantity::of_unit(unit).unwrap_or_else(|| Quantity::by_direction(higher_is_better))
    }
}

/// Nanoseconds in one `unit` of time, for the names of time abba reads anywhere (a
/// dataset's unit, a raw file's unit, a duration flag, a display scale): `ns`; `us`, `µs`
/// (micro sign) and `μs` (Greek mu); `ms`; `s`, `sec`, `secs`, `seconds`; `min`; `h`,
/// `hr`. Case-sensitive (`Ms` is not `ms`); `None` for anything else. The crate's one
/// list of time units.
///
/// # Examples
/// ```
/// use bench_stats::model::nanos_per_time_unit;
/// assert_eq!(nanos_per_time_unit("ms"), Some(1e6));
/// assert_eq!(nanos_per_time_unit("min"), Some(60e9));
/// assert_eq!(nanos_per_time_unit("ops/s"), None);
/// ```
pub fn nanos_per_time_unit(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1.0,
        "us" | "µs" | "μs" => 1e3,
        "ms" => 1e6,
        "s" | "sec" | "secs" | "seconds" => 1e9,
        "min" => 60e9,
        "h" | "hr" => 3600e9,
        _ => return None,
    })
}

/// The names of the counted events ([`Quantity::is_count`]).
const COUNTED: [&str; 5] = [
    "instructions",
    "cycles",
    "branches",
    "branch-misses",
    "cache-misses",
];

impl From<String> for Quantity {
    fn from(s: String) -> Quantity {
        match s.as_str() {
            "time" => Quantity::Time,
            "memory" => Quantity::Memory,
            "throughput" => Quantity::Throughput,
            _ => Quantity::Named(s),
        }
    }
}

impl From<Quantity> for String {
    fn from(q: Quantity) -> String {
        q.as_str().to_owned()
    }
}

impl std::fmt::Display for Quantity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One observation of one variant. Build it with [`Observation::new`] or
/// [`Observation::in_block`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Observation {
    /// The measured value (time in the dataset's unit, or a throughput).
    pub value: f64,
    /// The block it was measured in, when the design is blocked (0-based).
    pub block: Option<u32>,
    /// Its 0-based position inside the block, when known (for the carryover diagnostic).
    pub position: Option<u32>,
}

/// All observations of one variant, in arrival order. Build it with [`Series::new`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Series {
    /// Variant name (unique within the dataset).
    pub name: String,
    /// Optional class: per-class mode compares only within a class.
    pub class: Option<String>,
    /// Observations in the order they were measured.
    pub observations: Vec<Observation>,
    /// The numeric parameter value the variant was measured at (a scan), when there is
    /// one: series sharing a parameter name get a trend test ([`crate::TrendReport`]).
    pub parameter: Option<Parameter>,
}

/// A named numeric parameter value (`chains = 4`): what a parameter scan varied.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Parameter {
    /// The parameter's name.
    pub name: String,
    /// Its value for this series.
    pub value: f64,
}

/// Everything an analysis needs to know about the data. Build it with [`Dataset::new`]
/// and the `with_*` methods.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Dataset {
    /// Unit of the values (`ns`, `ops/s`, ...).
    pub unit: String,
    /// `true` when larger values are better.
    pub higher_is_better: bool,
    /// What the values measure, when known; `None`: [`Quantity::infer`] from the unit and
    /// direction (see [`Dataset::quantity`]).
    pub quantity: Option<Quantity>,
    /// The run-order design that produced the data, when known.
    pub design: Option<Design>,
    /// The variants, first one the default baseline.
    pub series: Vec<Series>,
    /// Values of a reference workload, one per block, when one ran (`--reference`).
    pub reference: Option<Vec<(u32, f64)>>,
    /// Reference runs measured beside a variant's runs (`--reference` since the reference
    /// runs next to every variant run), each naming its variant; empty when the reference
    /// ran once per block or not at all. When present, the ratio of ratios divides each
    /// variant by its own reference ([`crate::paired::reference`]).
    pub reference_beside: Vec<ReferenceRun>,
    /// The sessions and hosts the blocks were measured in, when the data come from
    /// several (see [`crate::hierarchy`]).
    pub levels: Option<crate::hierarchy::Levels>,
}

/// One run of the reference workload measured right beside a run of `variant`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReferenceRun {
    /// The variant whose run it sat beside.
    pub variant: String,
    /// The block (0-based).
    pub block: u32,
    /// The reference's measured value.
    pub value: f64,
}

impl ReferenceRun {
    /// A reference value measured in `block` beside a run of `variant`.
    pub fn new(variant: impl Into<String>, block: u32, value: f64) -> ReferenceRun {
        ReferenceRun {
            variant: variant.into(),
            block,
            value,
        }
    }
}

impl Observation {
    /// A value measured outside any block (unpaired data).
    pub fn new(value: f64) -> Observation {
        Observation {
            value,
            block: None,
            position: None,
        }
    }

    /// A value measured in block `block` (0-based).
    pub fn in_block(value: f64, block: u32) -> Observation {
        Observation {
            value,
            block: Some(block),
            position: None,
        }
    }

    /// The same observation at 0-based `position` inside its block.
    pub fn at_position(mut self, position: u32) -> Observation {
        self.position = Some(position);
        self
    }
}

impl Series {
    /// The observations of the variant called `name`, in the order they were measured.
    pub fn new(
        name: impl Into<String>,
        observations: impl IntoIterator<Item = Observation>,
    ) -> Series {
        Series {
            name: name.into(),
            class: None,
            observations: observations.into_iter().collect(),
            parameter: None,
        }
    }

    /// The same series measured at `name = value` (a parameter scan); series of one group
    /// that share `name`, with 3+ distinct values in blocked data, get a trend test.
    pub fn with_parameter(mut self, name: impl Into<String>, value: f64) -> Series {
        self.parameter = Some(Parameter {
            name: name.into(),
            value,
        });
        self
    }

    /// The same series in class `class` (per-class mode compares only within a class).
    pub fn with_class(mut self, class: impl Into<String>) -> Series {
        self.class = Some(class.into());
        self
    }
}

impl Dataset {
    /// Series of values in `unit` where lower is better (times), design unknown, no
    /// reference workload. The first series is the default baseline.
    pub fn new(unit: impl Into<String>, series: Vec<Series>) -> Dataset {
        Dataset {
            unit: unit.into(),
            higher_is_better: false,
            quantity: None,
            design: None,
            series,
            reference: None,
            reference_beside: Vec::new(),
            levels: None,
        }
    }

    /// The same data with larger values better (throughput) when `yes`.
    pub fn with_higher_is_better(mut self, yes: bool) -> Dataset {
        self.higher_is_better = yes;
        self
    }

    /// The same data measuring `quantity` (the words of the sentences: "memory ratio",
    /// "4.0% more v").
    pub fn with_quantity(mut self, quantity: Quantity) -> Dataset {
        self.quantity = Some(quantity);
        self
    }

    /// What the values measure: the one set with [`Dataset::with_quantity`], else what
    /// the unit names, else throughput when higher is better and time otherwise.
    pub fn quantity(&self) -> Quantity {
        self.quantity
            .clone()
            .unwrap_or_else(|| Quantity::infer(&self.unit, self.higher_is_better))
    }

    /// The same data with the design that produced it.
    pub fn with_design(mut self, design: Design) -> Dataset {
        self.design = Some(design);
        self
    }

    /// The same data measured in the sessions and on the hosts `levels` names: the
    /// analysis adds [`crate::Analysis::levels`] when there are several.
    pub fn with_levels(mut self, levels: crate::hierarchy::Levels) -> Dataset {
        self.levels = Some(levels);
        self
    }

    /// The same data with a reference workload's value per block: `(block, value)`.
    pub fn with_reference(mut self, values: Vec<(u32, f64)>) -> Dataset {
        self.reference = Some(values);
        self
    }

    /// The same data with reference runs measured beside the variants' runs (also sets
    /// [`Dataset::reference`] to all their values, so older readers see a reference).
    pub fn with_reference_beside(mut self, runs: Vec<ReferenceRun>) -> Dataset {
        self.reference = Some(runs.iter().map(|r| (r.block, r.value)).collect());
        self.reference_beside = runs;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_name_their_quantity_and_the_direction_decides_the_rest() {
        for (unit, q) in [
            ("ns", Some(Quantity::Time)),
            ("ms", Some(Quantity::Time)),
            ("KiB", Some(Quantity::Memory)),
            ("MiB", Some(Quantity::Memory)),
            ("B", Some(Quantity::Memory)),
            ("ops/s", Some(Quantity::Throughput)),
            ("value", None),
            ("b", None),
        ] {
            assert_eq!(Quantity::of_unit(unit), q, "{unit}");
        }
        assert_eq!(Quantity::infer("value", true), Quantity::Throughput);
        assert_eq!(Quantity::infer("value", false), Quantity::Time);
        let d = Dataset::new("KiB", vec![]);
        assert_eq!(d.quantity(), Quantity::Memory);
        let named = d.with_quantity(Quantity::Named("v".into()));
        assert_eq!(named.quantity().as_str(), "v");
    }
}
