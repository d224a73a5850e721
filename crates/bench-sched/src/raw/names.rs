//! The named values of a raw file (design, metric, layout, shell, counter, reference
//! placement, stop rule, end status, sequence stop, look decision) as enums, each written
//! as exactly the text abba has always written and read back by the same name: an
//! unknown name is an error at the line that holds it, never a default.

use std::fmt;
use std::str::FromStr;

use bench_stats::sequential::{LookDecision, SequenceMethod};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::counter::CounterSource;
use crate::design::{Design, ReferenceRuns};
use crate::layout::Layout;
use crate::runner::{Metric, Shell};

/// Reads a name with `parse`, or says which names are known.
fn named<'de, D: Deserializer<'de>, T>(
    d: D,
    what: &str,
    known: &str,
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<T, D::Error> {
    let text = String::deserialize(d)?;
    parse(&text).ok_or_else(|| {
        D::Error::custom(format!("unknown {what} {text:?}; expected one of: {known}"))
    })
}

/// Serde for a type written as its `Display` text and read back with its `FromStr`,
/// whose error names the value and the known ones.
macro_rules! as_text {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d)?.parse().map_err(D::Error::custom)
            }
        }
    )*};
}

as_text!(Design, Metric, Layout);

impl Serialize for Shell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        named(d, "shell", "none, sh", |s| s.parse().ok())
    }
}

impl Serialize for CounterSource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for CounterSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        named(d, "counter", "pmu, valgrind", CounterSource::from_name)
    }
}

/// An enum of plain names: `name()`, `from_name`, `Display`, `FromStr` and serde by name.
macro_rules! names {
    (
        $(#[$meta:meta])*
        pub enum $t:ident ($what:literal) {
            $($(#[$vmeta:meta])* $v:ident => $name:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $t {
            $($(#[$vmeta])* $v,)*
        }

        impl $t {
            /// Every value, in declaration order.
            pub const ALL: &'static [$t] = &[$($t::$v),*];

            /// The name the raw file records.
            pub fn name(self) -> &'static str {
                match self {
                    $($t::$v => $name,)*
                }
            }

            /// The value named `name` (as [`Self::name`] writes it).
            pub fn from_name(name: &str) -> Option<$t> {
                Self::ALL.iter().copied().find(|v| v.name() == name)
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $t {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, String> {
                $t::from_name(s).ok_or_else(|| {
                    let known: Vec<&str> = Self::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown {} {s:?}; expected one of: {}", $what, known.join(", "))
                })
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d)?.parse().map_err(D::Error::custom)
            }
        }
    };
}

names! {
    /// How an experiment's session ended, as its end line records it (`status`).
    pub enum EndStatus ("end status") {
        /// Every planned block ran, or the sequential rule stopped it.
        Complete => "complete",
        /// A run failed (or timed out) and stopped the experiment.
        Failed => "failed",
        /// Ctrl-C or a signal stopped it.
        Interrupted => "interrupted",
        /// abba was killed before it wrote an end line: a `--resume` closes the session with
        /// this status at the file's last modification.
        Killed => "killed",
        /// The session's `--time-budget` ran out: it stopped at a block boundary, before the
        /// next block would have ended past the budget; a `--resume` continues it.
        TimeBudget => "time-budget",
    }
}

names! {
    /// Where a reference workload runs, as the header records it (`reference_placement`;
    /// absent in files whose reference ran once per block).
    pub enum ReferencePlacement ("reference placement") {
        /// One reference run beside every variant run ([`ReferenceRuns::BesideEachRun`]).
        BesideEachRun => "beside-each-run",
    }
}

impl ReferencePlacement {
    /// The placement the header records for `runs` (`None`: no reference, or the legacy
    /// once-per-block placement, recorded by leaving the field out).
    pub fn of(runs: ReferenceRuns) -> Option<ReferencePlacement> {
        match runs {
            ReferenceRuns::BesideEachRun => Some(ReferencePlacement::BesideEachRun),
            ReferenceRuns::None | ReferenceRuns::PerBlock => None,
        }
    }

    /// The reference runs of a header that declares a reference (`has_reference`) with
    /// `placement` (absent: once per block, as files written before the field ran it).
    pub fn runs(has_reference: bool, placement: Option<ReferencePlacement>) -> ReferenceRuns {
        match (has_reference, placement) {
            (false, _) => ReferenceRuns::None,
            (true, Some(ReferencePlacement::BesideEachRun)) => ReferenceRuns::BesideEachRun,
            (true, None) => ReferenceRuns::PerBlock,
        }
    }
}

names! {
    /// The kind of sequential stop rule a header records (`stop_rule.rule`).
    pub enum StopRuleKind ("stop rule") {
        /// `--until decided`: look after every complete block, stop at the first look that
        /// decides.
        UntilDecided => "until-decided",
    }
}

names! {
    /// Why a sequential experiment's looks ended, as its end line records them
    /// (`sequence.stop`).
    pub enum SequenceStop ("sequence stop") {
        /// A look decided.
        Decided => "decided",
        /// The block limit came first.
        MaxBlocks => "max-blocks",
        /// Interrupted or failed before either.
        NotFinished => "not-finished",
        /// The session's `--time-budget` ran out before either (a `--resume` continues it).
        TimeBudget => "time-budget",
    }
}

/// Serde of a [`SequenceMethod`] by its name (`sign-median`, `asymptotic-mean`).
pub(crate) mod method_name {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(m: &SequenceMethod, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(m.as_str())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SequenceMethod, D::Error> {
        named(
            d,
            "sequence method",
            "sign-median, asymptotic-mean",
            SequenceMethod::from_name,
        )
    }
}

/// Serde of a [`LookDecision`] by its name (`larger`, `smaller`, `equivalent`,
/// `undecided`).
pub(crate) mod decision_name {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(d: &LookDecision, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(d.as_str())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<LookDecision, D::Error> {
        named(
            d,
            "look decision",
            "larger, smaller, equivalent, undecided",
            LookDecision::from_name,
        )
    }
}
