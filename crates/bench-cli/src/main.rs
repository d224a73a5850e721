//! `abba`: paired, blocked, layout-randomized benchmark comparisons.
//!
//! This crate only turns arguments into configs and connects the layers: `bench-sched`
//! runs, records and assembles the analysis ([`bench_sched::analyze_input`]),
//! `bench-stats` computes it, `bench-report` renders it. Its own words are the flags: a
//! remedy the libraries state as a fact is worded as the flag that applies it (`words`).

// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]

mod args;
mod cmd;
mod core;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use crate::args::{Cli, Command};
use crate::cmd::{analyze, compute, history, plan, suite};
use crate::core::exit::Exit;

fn main() -> ExitCode {
    let cli = command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .unwrap_or_else(|error| without_dash_dash_tip(error).exit());
    let result = match cli.command {
        None => cmd::compare::demo::run_demo(&cli.demo),
        Some(Command::Compute(args)) => compute::run(&args),
        Some(Command::Compare(mut args)) => {
            cmd::compare::hyperfine::adopt(&mut args).and_then(|()| cmd::compare::run(*args))
        }
        Some(Command::Analyze(args)) => analyze::run(*args),
        Some(Command::Plan(args)) => plan::run(&args),
        Some(Command::Suite(args)) => suite::run(*args),
        Some(Command::History(args)) => history::run(args),
        Some(Command::Completions { shell }) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "abba", &mut script);
            crate::core::output::write_stdout(&String::from_utf8_lossy(&script)).map(|()| 0)
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            let code = error.downcast_ref::<Exit>().map_or(2, Exit::code);
            crate::core::stdio::stderr_line(format_args!("abba: error: {error:#}"));
            ExitCode::from(u8::try_from(code).unwrap_or(2))
        }
    }
}

/// The command line's grammar: [`Cli`], where a negative number after a flag is that
/// flag's value, in every subcommand, so `--blocks -1` is refused by `--blocks`'s own
/// parser naming the flag (not "unexpected argument '-1'", issue 26, K4). No flag of
/// abba's is a digit, so nothing else is read differently.
fn command() -> clap::Command {
    fn negative_numbers(cmd: clap::Command) -> clap::Command {
        cmd.allow_negative_numbers(true)
            .mut_subcommands(negative_numbers)
    }
    negative_numbers(Cli::command())
}

/// clap's tip for an unknown flag, "to pass '-x' as a value, use '-- -x'", is wrong for
/// `abba compare` (a command is never a flag): the error keeps everything else, the
/// "similar argument" suggestions included.
fn without_dash_dash_tip(error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::UnknownArgument {
        return error;
    }
    let Some(ContextValue::StyledStrs(tips)) = error.get(ContextKind::Suggested) else {
        return error;
    };
    let kept: Vec<_> = tips
        .iter()
        .filter(|t| !t.to_string().contains("as a value, use '--"))
        .cloned()
        .collect();
    if kept.len() == tips.len() {
        return error;
    }
    let mut out = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(&Cli::command());
    for (kind, value) in error.context() {
        if kind != ContextKind::Suggested {
            out.insert(kind, value.clone());
        } else if !kept.is_empty() {
            out.insert(kind, ContextValue::StyledStrs(kept.clone()));
        }
    }
    out
}
