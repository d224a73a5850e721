//! How a configuration differs from a raw file's header ([`Mismatch`]): what a resume
//! refuses (the experiment's identity, the conditions its runs had) and what a front end
//! checks itself (the direction, unit, experiment id and host it was given).

use std::fmt;

use crate::counter::CounterSource;
use crate::cpus::CpuSet;
use crate::design::Design;
use crate::layout::Layout;
use crate::raw::{RawHeader, RawHooks, RawSuiteBenchmark, RawVariant, ReferencePlacement};
use crate::runner::{Metric, Shell};

use super::ExperimentConfig;
use super::header::raw_variant;
use super::hooks::raw_hooks;

/// One way a configuration differs from the header of the file it would continue; each
/// holds the file's value and the configuration's.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Mismatch {
    /// The design.
    Design {
        /// The file's.
        file: Design,
        /// The configuration's.
        now: Design,
    },
    /// The seed.
    Seed {
        /// The file's.
        file: u64,
        /// The configuration's.
        now: u64,
    },
    /// The planned blocks (a resume that extends an ended experiment may change them).
    Blocks {
        /// The file's.
        file: u32,
        /// The configuration's.
        now: u32,
    },
    /// The variants' names and commands (a scan's parameter values are the file's).
    Variants {
        /// The file's.
        file: Vec<RawVariant>,
        /// The configuration's.
        now: Vec<RawVariant>,
    },
    /// The reference workload's command.
    Reference {
        /// The file's.
        file: Option<String>,
        /// The configuration's.
        now: Option<String>,
    },
    /// Where the reference runs (checked when the file has a reference).
    ReferencePlacement {
        /// The file's (`None`: once per block, as an older abba ran it).
        file: Option<ReferencePlacement>,
        /// The configuration's (`None`: no reference).
        now: Option<ReferencePlacement>,
    },
    /// The metric.
    Metric {
        /// The file's.
        file: Metric,
        /// The configuration's.
        now: Metric,
    },
    /// The suite's benchmarks.
    Suite {
        /// The file's.
        file: Vec<RawSuiteBenchmark>,
        /// The configuration's.
        now: Vec<RawSuiteBenchmark>,
    },
    /// The layout padding.
    Layout {
        /// The file's.
        file: Layout,
        /// The configuration's.
        now: Layout,
    },
    /// The warm-up runs before the first block.
    Warmup {
        /// The file's.
        file: u32,
        /// The configuration's.
        now: u32,
    },
    /// The pause between runs, ns.
    Settle {
        /// The file's.
        file: u64,
        /// The configuration's.
        now: u64,
    },
    /// The per-run timeout, ns (not checked for a file from an abba that recorded no
    /// shell, whose timeout is unknown).
    Timeout {
        /// The file's.
        file: Option<u64>,
        /// The configuration's.
        now: Option<u64>,
    },
    /// The shell (not checked when the file records none).
    Shell {
        /// The file's.
        file: Shell,
        /// The configuration's.
        now: Shell,
    },
    /// What counts the runs.
    Counter {
        /// The file's.
        file: Option<CounterSource>,
        /// The configuration's.
        now: Option<CounterSource>,
    },
    /// The CPUs the children are pinned to.
    Pin {
        /// The file's.
        file: Option<String>,
        /// The configuration's.
        now: Option<CpuSet>,
    },
    /// Warm-up runs at the start of every block.
    WarmupPerBlock {
        /// The file's.
        file: u32,
        /// The configuration's.
        now: u32,
    },
    /// Cycles of the design's order per block.
    Cycles {
        /// The file's.
        file: u32,
        /// The configuration's.
        now: u32,
    },
    /// The hook commands, by variant (named with the file's variant names).
    Hooks {
        /// The file's variant names, to name the hooks by.
        names: Vec<String>,
        /// The file's.
        file: Vec<RawHooks>,
        /// The configuration's.
        now: Vec<RawHooks>,
    },
    /// The direction of the metric.
    Direction {
        /// Whether the file's higher values are better.
        file: bool,
        /// The configuration's.
        now: bool,
    },
    /// The metric's unit.
    Unit {
        /// The file's.
        file: String,
        /// The configuration's.
        now: String,
    },
    /// The experiment id (checked when the configuration names one).
    Experiment {
        /// The file's (recorded, or derived).
        file: String,
        /// The configuration's.
        now: String,
    },
    /// The host's name (checked when both name one).
    Host {
        /// The file's.
        file: String,
        /// The configuration's.
        now: String,
    },
}

impl Mismatch {
    /// Whether a resume of the file refuses it ([`super::ResumePoint::check`]): every kind
    /// but the direction, unit, experiment id and host, which the file's header keeps
    /// whatever the configuration says.
    pub fn refuses_resume(&self) -> bool {
        !matches!(
            self,
            Mismatch::Direction { .. }
                | Mismatch::Unit { .. }
                | Mismatch::Experiment { .. }
                | Mismatch::Host { .. }
        )
    }

    /// Whether it is one of the conditions the file's runs had (layout, warm-up, ...),
    /// rather than what defines the experiment.
    fn is_condition(&self) -> bool {
        matches!(
            self,
            Mismatch::Layout { .. }
                | Mismatch::Warmup { .. }
                | Mismatch::Settle { .. }
                | Mismatch::Timeout { .. }
                | Mismatch::Shell { .. }
                | Mismatch::Counter { .. }
                | Mismatch::Pin { .. }
                | Mismatch::WarmupPerBlock { .. }
                | Mismatch::Cycles { .. }
                | Mismatch::Hooks { .. }
        )
    }

    /// What differs and both values, in words: (`layout`, `random`, `fixed:0`).
    fn parts(&self) -> (&'static str, String, String) {
        let none_or = |v: Option<String>, none: &str| v.unwrap_or_else(|| none.to_owned());
        match self {
            Mismatch::Design { file, now } => ("design", file.to_string(), now.to_string()),
            Mismatch::Seed { file, now } => ("seed", file.to_string(), now.to_string()),
            Mismatch::Blocks { file, now } => ("block count", file.to_string(), now.to_string()),
            Mismatch::Variants { file, now } => {
                let (file, now) = differing_variants(file, now);
                ("variants", file, now)
            }
            Mismatch::Reference { file, now } => {
                // The command as written (quoted, as the variants are), never Rust's
                // `Some(..)` (issue 26, K3).
                let show = |c: &Option<String>| {
                    c.as_ref()
                        .map_or_else(|| "no reference".to_owned(), |c| format!("{c:?}"))
                };
                ("reference", show(file), show(now))
            }
            Mismatch::ReferencePlacement { file, now } => (
                "reference placement",
                none_or(
                    file.map(|p| p.to_string()),
                    "once per block (an older abba)",
                ),
                none_or(now.map(|p| p.to_string()), "none"),
            ),
            Mismatch::Metric { file, now } => ("metric", file.to_string(), now.to_string()),
            Mismatch::Suite { file, now } => ("suite", suite(file), suite(now)),
            Mismatch::Layout { file, now } => ("layout", file.to_string(), now.to_string()),
            Mismatch::Warmup { file, now } => ("warmup", file.to_string(), now.to_string()),
            Mismatch::Settle { file, now } => ("settle", ns_text(*file), ns_text(*now)),
            Mismatch::Timeout { file, now } => {
                let show = |t: &Option<u64>| t.map_or_else(|| "no timeout".to_owned(), ns_text);
                ("timeout", show(file), show(now))
            }
            Mismatch::Shell { file, now } => ("shell", file.to_string(), now.to_string()),
            Mismatch::Counter { file, now } => {
                let show =
                    |c: &Option<CounterSource>| none_or(c.map(|c| c.to_string()), "no counter");
                ("counter", show(file), show(now))
            }
            Mismatch::Pin { file, now } => (
                "pin",
                none_or(file.clone(), "no pinning"),
                none_or(now.as_ref().map(ToString::to_string), "no pinning"),
            ),
            Mismatch::WarmupPerBlock { file, now } => {
                ("warmup-per-block", file.to_string(), now.to_string())
            }
            Mismatch::Cycles { file, now } => (
                "runs-per-block",
                format!("{file} cycle(s) of the design per block"),
                format!("{now} cycle(s)"),
            ),
            Mismatch::Hooks { names, file, now } => {
                ("hooks", hooks(names, file), hooks(names, now))
            }
            Mismatch::Direction { file, now } => ("direction", direction(*file), direction(*now)),
            Mismatch::Unit { file, now } => ("unit", file.clone(), now.clone()),
            Mismatch::Experiment { file, now } => ("experiment", file.clone(), now.clone()),
            Mismatch::Host { file, now } => ("host", file.clone(), now.clone()),
        }
    }

    /// The file's value and the configuration's, in words (`random`, `fixed:0`).
    pub fn values(&self) -> (String, String) {
        let (_, file, now) = self.parts();
        (file, now)
    }
}

impl fmt::Display for Mismatch {
    /// `design differs: the file has abba, this run has random`; for a run condition,
    /// `layout differs: the file's runs had random, this run would use fixed:0 (resume with
    /// the file's setting, or start a new file)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, file, now) = self.parts();
        if self.is_condition() {
            write!(
                f,
                "{what} differs: the file's runs had {file}, this run would use {now} (resume with the file's setting, or start a new file)"
            )
        } else {
            write!(f, "{what} differs: the file has {file}, this run has {now}")
        }
    }
}

fn direction(higher: bool) -> String {
    if higher {
        "higher is better".to_owned()
    } else {
        "lower is better".to_owned()
    }
}

fn variants<'a>(v: impl IntoIterator<Item = &'a RawVariant>) -> String {
    v.into_iter()
        .map(|v| format!("{}={:?}", v.name, v.command))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The variants that differ, in words: with as many variants on both sides, only those
/// whose name or command changed (a suite of many benchmarks names the one that differs,
/// not every command twice); otherwise both lists whole.
fn differing_variants(file: &[RawVariant], now: &[RawVariant]) -> (String, String) {
    if file.len() != now.len() {
        return (variants(file), variants(now));
    }
    let differ: Vec<(&RawVariant, &RawVariant)> = file
        .iter()
        .zip(now)
        .filter(|(f, n)| f.name != n.name || f.command != n.command)
        .collect();
    if differ.is_empty() {
        return (variants(file), variants(now));
    }
    (
        variants(differ.iter().map(|d| d.0)),
        variants(differ.iter().map(|d| d.1)),
    )
}

/// A suite in words: its benchmarks' names (`no suite` for none), never the raw JSON.
fn suite(s: &[RawSuiteBenchmark]) -> String {
    if s.is_empty() {
        return "no suite".to_owned();
    }
    let names: Vec<String> = s
        .iter()
        .map(|b| {
            let mut text = format!("{} ({}", b.name, b.variants.join(" "));
            if b.cycles != 1 {
                text.push_str(&format!(", {} cycles", b.cycles));
            }
            if let Some(m) = &b.metric {
                text.push_str(&format!(", metric {m}"));
            }
            text.push(')');
            text
        })
        .collect();
    format!("the suite {}", names.join(", "))
}

fn hooks(names: &[String], hooks: &[RawHooks]) -> String {
    if hooks.is_empty() {
        return "no hooks".to_owned();
    }
    names
        .iter()
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
            let parts = if parts.is_empty() {
                "none".to_owned()
            } else {
                parts.join(", ")
            };
            format!("{name}: {parts}")
        })
        .collect::<Vec<_>>()
        .join("; ")
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

fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl ExperimentConfig {
    /// Every way this configuration differs from `header`, the file it would continue, in
    /// the order a resume checks them: what defines the experiment (design, seed, blocks,
    /// variants, reference, metric, suite), then the conditions its runs had (layout,
    /// warm-up, settle, timeout, shell, counter, pin, warm-ups per block, cycles, hooks),
    /// then the direction, unit, experiment id and host. A shell or timeout the file does
    /// not record (an older abba) is not compared; nor is an experiment id or host the
    /// configuration leaves to the file. Time: O(variants + header text).
    pub fn differences(&self, header: &RawHeader) -> Vec<Mismatch> {
        let mut out = self.identity_differences(header);
        out.extend(self.condition_differences(header));
        out.extend(self.recorded_differences(header));
        out
    }

    /// What defines the experiment.
    fn identity_differences(&self, h: &RawHeader) -> Vec<Mismatch> {
        let mut out = Vec::new();
        if h.design != self.design {
            out.push(Mismatch::Design {
                file: h.design,
                now: self.design,
            });
        }
        if h.seed != self.seed {
            out.push(Mismatch::Seed {
                file: h.seed,
                now: self.seed,
            });
        }
        if h.blocks != self.blocks {
            out.push(Mismatch::Blocks {
                file: h.blocks,
                now: self.blocks,
            });
        }
        let now: Vec<RawVariant> = self.variants.iter().map(raw_variant).collect();
        let recorded: Vec<RawVariant> = h
            .variants
            .iter()
            .map(|v| RawVariant {
                parameter: None,
                ..v.clone()
            })
            .collect();
        if recorded != now {
            out.push(Mismatch::Variants {
                file: h.variants.clone(),
                now,
            });
        }
        let reference = self.reference.as_ref().map(|c| c.text().to_owned());
        if h.reference != reference {
            out.push(Mismatch::Reference {
                file: h.reference.clone(),
                now: reference,
            });
        }
        let placement = ReferencePlacement::of(self.reference_runs());
        if h.reference.is_some() && h.reference_placement != placement {
            out.push(Mismatch::ReferencePlacement {
                file: h.reference_placement,
                now: placement,
            });
        }
        if h.metric != self.metric {
            out.push(Mismatch::Metric {
                file: h.metric.clone(),
                now: self.metric.clone(),
            });
        }
        let suite = self
            .suite
            .as_ref()
            .map(|s| s.to_raw(&self.variants))
            .unwrap_or_default();
        if h.suite != suite {
            out.push(Mismatch::Suite {
                file: h.suite.clone(),
                now: suite,
            });
        }
        out
    }

    /// The conditions the file's runs had.
    fn condition_differences(&self, h: &RawHeader) -> Vec<Mismatch> {
        let mut out = Vec::new();
        if h.layout != self.layout {
            out.push(Mismatch::Layout {
                file: h.layout,
                now: self.layout,
            });
        }
        if h.warmup != self.warmup {
            out.push(Mismatch::Warmup {
                file: h.warmup,
                now: self.warmup,
            });
        }
        let settle = nanos(self.settle);
        if h.settle_ns != settle {
            out.push(Mismatch::Settle {
                file: h.settle_ns,
                now: settle,
            });
        }
        let timeout = self.timeout.map(nanos);
        // Files from before the header recorded the shell have neither field; their
        // timeout is unknown rather than "none".
        if h.shell.is_some() && h.timeout_ns != timeout {
            out.push(Mismatch::Timeout {
                file: h.timeout_ns,
                now: timeout,
            });
        }
        let shell = self.variants.first().map(|v| v.command.shell());
        if let (Some(file), Some(now)) = (h.shell, shell) {
            if file != now {
                out.push(Mismatch::Shell { file, now });
            }
        }
        if h.counter != self.counter {
            out.push(Mismatch::Counter {
                file: h.counter,
                now: self.counter,
            });
        }
        if h.pin != self.pin.as_ref().map(ToString::to_string) {
            out.push(Mismatch::Pin {
                file: h.pin.clone(),
                now: self.pin.clone(),
            });
        }
        if h.warmup_per_block != self.warmup_per_block {
            out.push(Mismatch::WarmupPerBlock {
                file: h.warmup_per_block,
                now: self.warmup_per_block,
            });
        }
        if h.cycles != self.cycles.max(1) {
            out.push(Mismatch::Cycles {
                file: h.cycles,
                now: self.cycles.max(1),
            });
        }
        let hooks = raw_hooks(&self.hooks);
        if h.hooks != hooks {
            out.push(Mismatch::Hooks {
                names: h.variants.iter().map(|v| v.name.clone()).collect(),
                file: h.hooks.clone(),
                now: hooks,
            });
        }
        out
    }

    /// What the header records about the values, and whose they are.
    fn recorded_differences(&self, h: &RawHeader) -> Vec<Mismatch> {
        let mut out = Vec::new();
        if h.higher_is_better != self.higher() {
            out.push(Mismatch::Direction {
                file: h.higher_is_better,
                now: self.higher(),
            });
        }
        if h.unit != self.unit() {
            out.push(Mismatch::Unit {
                file: h.unit.clone(),
                now: self.unit(),
            });
        }
        let id = h.experiment_id();
        if let Some(now) = self.identity.experiment.as_ref().filter(|e| **e != id) {
            out.push(Mismatch::Experiment {
                file: id,
                now: now.clone(),
            });
        }
        if let (Some(now), Some(file)) = (&self.identity.host, h.host_name()) {
            if now != file {
                out.push(Mismatch::Host {
                    file: file.to_owned(),
                    now: now.clone(),
                });
            }
        }
        out
    }
}
