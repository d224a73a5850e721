//! bench-cli's integration tests, one binary (one link instead of one per file; the
//! ripgrep layout: `autotests = false` and `[[test]] integration` in Cargo.toml). Each
//! module is one former test file and runs the `abba` binary
//! (`CARGO_BIN_EXE_abba`); the CLI snapshots stay in `tests/snapshots/`.

mod action;
mod browser;
mod cli;
mod coherence;
mod compute;
mod counting;
mod doc_figures;
mod examples;
mod faults;
mod faults_attack;
mod faults_flags;
mod faults_history;
mod faults_suite;
mod first_contact;
mod history;
mod history_holds;
mod hosts;
mod hyperfine_options;
mod inputs;
mod kubernetes;
mod layers;
mod metrics;
mod noise;
mod one_command;
mod outputs_hold;
mod pipeline;
mod progress;
mod record_once;
mod scan;
mod sequential;
mod slurm;
mod snapshots;
mod suite;
mod suite_holds;
mod suite_shards;
mod suite_until;
mod support;
mod verdicts;
mod width;
mod words;
