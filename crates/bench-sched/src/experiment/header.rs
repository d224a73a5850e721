//! The raw file's header line, built from an experiment's configuration.

use bench_stats::Parameter;

use crate::host::HostFacts;
use crate::raw::{RAW_SCHEMA, RawHeader, RawStopRule, RawVariant, ReferencePlacement};

use super::{ExperimentConfig, Variant};

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
