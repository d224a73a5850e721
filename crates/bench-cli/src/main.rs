//! `abba`: paired, blocked, layout-randomized benchmark comparisons.
//!
//! This crate only turns arguments into configs and connects the layers: `bench-sched`
//! runs, records and assembles the analysis ([`bench_sched::analyze_input`]),
//! `bench-stats` computes it, `bench-report` renders it. Its own words are the flags: a
//! remedy the libraries state as a fact is worded as the flag that applies it (`words`).

mod analyze;
mod cli;
mod compare;
mod compute;
mod counting;
mod exit;
mod hooks;
mod kernel_spec;
mod output;
mod parse;
mod pictures;
mod plan;
mod progress;
mod scan;
mod words;

#[cfg(test)]
mod examples_check;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::cli::{Cli, Command};
use crate::exit::Exit;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => compare::run_demo(&cli.demo),
        Some(Command::Compute(args)) => compute::run(&args)
            .map(|()| 0)
            .map_err(|e| exit::usage(e.to_string())),
        Some(Command::Compare(args)) => compare::run(*args),
        Some(Command::Analyze(args)) => analyze::run(*args),
        Some(Command::Plan(args)) => plan::run(&args),
        Some(Command::Completions { shell }) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "abba", &mut script);
            output::write_stdout(&String::from_utf8_lossy(&script)).map(|()| 0)
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            let code = error.downcast_ref::<Exit>().map_or(2, Exit::code);
            output::stderr_line(format_args!("abba: error: {error:#}"));
            ExitCode::from(u8::try_from(code).unwrap_or(2))
        }
    }
}
