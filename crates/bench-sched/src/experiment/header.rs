//! The raw file's header line and an experiment's configuration, each from the other:
//! [`RawHeader::from_config`] for a fresh experiment, [`ExperimentConfig::resumed`] to
//! continue a file.

use std::time::Duration;

use bench_stats::Parameter;

use crate::error::SchedError;
use crate::host::HostFacts;
use crate::raw::{RAW_SCHEMA, RawHeader, RawHooks, RawStopRule, RawVariant, ReferencePlacement};
use crate::runner::{CommandSpec, Shell};
use crate::suite::Suite;

use super::{ConfigError, ExperimentConfig, Hooks, Identity, ScanParameter, Until, Variant};

pub(super) fn raw_variant(v: &Variant) -> RawVariant {
    RawVariant {
        name: v.name.clone(),
        command: v.command.text().to_owned(),
        parameter: None,
    }
}

/// The header's variants: name, command, and the scanned parameter's value.
pub(super) fn raw_variants(config: &ExperimentConfig) -> Vec<RawVariant> {
    config
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| RawVariant {
            parameter: config.parameter.as_ref().and_then(|p| {
                p.values.get(i).map(|&value| Parameter {
                    name: p.name.clone(),
                    value,
                })
            }),
            ..raw_variant(v)
        })
        .collect()
}

impl RawHeader {
    /// The header a fresh experiment of `config` writes: its design, seed, variants and
    /// every setting, the experiment id (`config.identity`'s, else derived) and this
    /// machine's facts (read now: its load, CPU, kernel, ...; the host name
    /// `config.identity` gives replaces the machine's). [`ExperimentConfig::resumed`] reads
    /// a header back into the configuration that continues it.
    pub fn from_config(config: &ExperimentConfig) -> RawHeader {
        new_header(config)
    }
}

fn new_header(config: &ExperimentConfig) -> RawHeader {
    let mut header = RawHeader {
        schema: RAW_SCHEMA.to_owned(),
        abba_version: config.abba_version.clone(),
        design: config.design,
        seed: config.seed,
        blocks: config.blocks,
        variants: raw_variants(config),
        reference: config.reference.as_ref().map(|c| c.text().to_owned()),
        metric: config.metric.clone(),
        unit: config.unit(),
        higher_is_better: config.higher(),
        layout: config.layout,
        pin: config.pin.as_ref().map(ToString::to_string),
        warmup: config.warmup,
        settle_ns: u64::try_from(config.settle.as_nanos()).unwrap_or(u64::MAX),
        shell: config.variants.first().map(|v| v.command.shell()),
        timeout_ns: config
            .timeout
            .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)),
        host: HostFacts::collect(),
        hooks: super::hooks::raw_hooks(&config.hooks),
        warmup_per_block: config.warmup_per_block,
        cycles: config.cycles.max(1),
        reference_placement: ReferencePlacement::of(config.reference_runs()),
        stop_rule: config
            .until
            .as_ref()
            .map(|u| RawStopRule::from_rule(&u.rule)),
        extended: Vec::new(),
        experiment: None,
        suite: config
            .suite
            .as_ref()
            .map(|s| s.to_raw(&config.variants))
            .unwrap_or_default(),
        counter: config.counter,
        shard: config.shard.clone(),
    };
    header.experiment = Some(
        config
            .identity
            .experiment
            .clone()
            .unwrap_or_else(|| crate::raw::derived_experiment_id(&header)),
    );
    if let Some(host) = &config.identity.host {
        header.host.hostname = Some(host.clone());
    }
    header
}

impl ExperimentConfig {
    /// The configuration that continues the experiment `header` records: its variants
    /// (parsed with its shell), reference, design, blocks, seed, warm-ups, settle, layout,
    /// pinning, timeout, metric, unit and direction, hooks, cycles, scanned parameter,
    /// stop rule (its baseline the first variant), identity, suite and counter. What the
    /// header does not record keeps its default (output discarded, failures stop the
    /// experiment, this abba's version); `resume` is left to the caller
    /// ([`super::ResumePoint::config`] sets it). [`RawHeader::from_config`] of the result
    /// writes the same header (host facts and version aside), and
    /// [`Self::differences`] against `header` is empty.
    ///
    /// # Errors
    /// [`SchedError::CommandSyntax`] or [`SchedError::ShellSyntaxWithoutShell`] for a
    /// command (or hook) the header's shell cannot run, [`SchedError::Config`] for a CPU
    /// list or suite it cannot read.
    pub fn resumed(header: &RawHeader) -> Result<ExperimentConfig, SchedError> {
        let h = header;
        let shell = h.shell.unwrap_or_default();
        let command = |text: &str| CommandSpec::parse(text, shell);
        let variants = h
            .variants
            .iter()
            .map(|v| {
                Ok(Variant {
                    name: v.name.clone(),
                    command: command(&v.command)?,
                })
            })
            .collect::<Result<Vec<_>, SchedError>>()?;
        let pin = h
            .pin
            .as_deref()
            .map(|p| {
                p.parse()
                    .map_err(|e: crate::cpus::CpuListError| ConfigError::CpuList {
                        given: p.to_owned(),
                        message: e.to_string(),
                    })
            })
            .transpose()?;
        Ok(ExperimentConfig {
            variants,
            reference: h.reference.as_deref().map(command).transpose()?,
            design: h.design,
            blocks: h.blocks,
            seed: h.seed,
            warmup: h.warmup,
            settle: Duration::from_nanos(h.settle_ns),
            layout: h.layout,
            pin,
            timeout: h.timeout_ns.map(Duration::from_nanos),
            metric: h.metric.clone(),
            unit: Some(h.unit.clone()),
            higher_is_better: Some(h.higher_is_better),
            hooks: h
                .hooks
                .iter()
                .map(|r| hooks_of(r, shell))
                .collect::<Result<_, _>>()?,
            warmup_per_block: h.warmup_per_block,
            cycles: h.cycles,
            parameter: scanned(&h.variants),
            until: h.stop_rule.as_ref().map(|r| Until {
                rule: r.to_rule(),
                baseline: None,
            }),
            identity: Identity {
                experiment: h.experiment.clone(),
                host: h.host_name().map(str::to_owned),
            },
            suite: Suite::from_raw(h).map_err(ConfigError::SuiteVariant)?,
            counter: h.counter,
            shard: h.shard.clone(),
            ..ExperimentConfig::default()
        })
    }
}

/// One variant's hooks from the header's texts.
fn hooks_of(raw: &RawHooks, shell: Shell) -> Result<Hooks, SchedError> {
    let parse = |text: &Option<String>| {
        text.as_deref()
            .map(|t| CommandSpec::parse(t, shell))
            .transpose()
    };
    Ok(Hooks {
        setup: parse(&raw.setup)?,
        prepare: parse(&raw.prepare)?,
        conclude: parse(&raw.conclude)?,
        cleanup: parse(&raw.cleanup)?,
    })
}

/// The parameter a scan gave every variant, when each has one of the same name.
fn scanned(variants: &[RawVariant]) -> Option<ScanParameter> {
    let first = variants.first()?.parameter.as_ref()?;
    let values = variants
        .iter()
        .map(|v| {
            v.parameter
                .as_ref()
                .filter(|p| p.name == first.name)
                .map(|p| p.value)
        })
        .collect::<Option<Vec<f64>>>()?;
    Some(ScanParameter {
        name: first.name.clone(),
        values,
    })
}
