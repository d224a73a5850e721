//! `cargo xtask`: the chores of the abba workspace.
//!
//! - `reproduce-appendix`: Appendix F's experiments re-run on this machine beside the
//!   appendix's own figures ([`appendix`]); `--check` recomputes the published figures
//!   from the fixtures (also run by `cargo test`).
//! - `browser-check`: the demo's HTML report in headless Chromium, and the size and
//!   render time of a 10,000-run report ([`browser`]).
//! - `check-figures`: re-runs the commands of the figures marked in the README and
//!   `docs/` and fails on a stale one ([`figures`]; the fast ones are checked by the tests).
//! - `dist`: the stripped release binary and its tarball with a sha256 ([`dist`]).
//! - `lint-workflows`: actionlint, zizmor and shellcheck over the example workflows and
//!   the actions ([`workflows`]).
//! - `tidy`: the layers of the `abba` binary: no import cycle, no upward arrow ([`tidy`]).
//!
//! Any other command is one of the research drivers of `crates/bench-lab` (decision-grid,
//! estimator-grid, calibrate, sequential, replay, plan-check, counters, ...): xtask
//! forwards it to `cargo run -p bench-lab -- <command>` ([`lab`]), so the commands beside
//! the figures of the docs keep working.

// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]

mod appendix;
mod browser;
mod dist;
mod figures;
mod lab;
mod tidy;
mod workflows;

// The chores name the harness they share with the lab as `crate::run` and `crate::table`.
use bench_lab::{run, table};

use std::ffi::OsString;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Project tasks of the abba workspace (run as `cargo xtask <TASK>`).
#[derive(Parser, Debug)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand, Debug)]
enum Task {
    /// Re-run Appendix F (chains=1 vs chains=2, a null pair, an unpaired contrast) through
    /// abba's scheduler and kernel, and print it beside the appendix's own figures.
    ///
    /// Builds `abba` in release mode, runs `abba compute --op int --threads 1 --json`
    /// as child processes in randomized blocks, and writes `target/appendix/REPORT.md`
    /// plus the raw JSONL of every experiment under `target/appendix/`.
    #[command(
        after_help = "Example: cargo xtask reproduce-appendix --blocks 12 --seed 1 --duration 0.3 (or --check)"
    )]
    ReproduceAppendix(AppendixArgs),
    /// Run the demo with --export-html, load the report in headless Chromium (screenshot,
    /// console, chart sizes), and time a 10,000-run report; `--update-docs` refreshes
    /// docs/demo-report.png.
    #[command(
        after_help = "Example: cargo xtask browser-check --blocks 12 --width 900 --update-docs"
    )]
    BrowserCheck(browser::BrowserArgs),
    /// Re-run the commands that print the figures marked in the README and docs/
    /// (`<!-- abba-figure: COMMAND -->`) and fail unless each figure appears in what its
    /// command printed; by default the slow ones, which the tests do not run.
    #[command(
        after_help = "Example: cargo xtask check-figures --only autocorrelation-grid (or --list)"
    )]
    CheckFigures(figures::FiguresArgs),
    /// The release asset of this platform: `abba` built with the `dist` profile
    /// (stripped, no debug info, fat LTO) in `target/dist/`, packed as
    /// `abba-TARGET.tar.gz` with its `.sha256`, as the action's install step downloads it.
    #[command(after_help = "Example: cargo xtask dist")]
    Dist,
    /// actionlint, zizmor and shellcheck over the example workflows and the two actions
    /// (`action.yml`, `comment/action.yml`); `.ci/run` installs them from PyPI.
    #[command(after_help = "Example: cargo xtask lint-workflows")]
    LintWorkflows,
    /// Any other command: one of bench-lab's research drivers (`cargo run -p bench-lab --
    /// help` lists them), run with the arguments given.
    #[command(
        external_subcommand,
        after_help = "Example: cargo xtask decision-grid --reps 100 --only default,oracle"
    )]
    Lab(Vec<OsString>),
    /// Check the layers of the `abba` binary (`crates/bench-cli/src`): no import cycle
    /// between files, no upward arrow (args <- core <- commands <- main), no command
    /// naming another. The same check runs in `cargo test` (bench-cli's `layers` test).
    /// Also: the library crates' arrows, and `cargo doc --workspace --no-deps` with no
    /// rustdoc warning (a broken or private intra-doc link).
    #[command(after_help = "Example: cargo xtask tidy")]
    Tidy,
}

/// Flags of `reproduce-appendix`.
#[derive(clap::Args, Debug)]
struct AppendixArgs {
    /// Run no kernel: recompute every statistic from fixtures/appendix/ and fail (listing
    /// each mismatch) unless each matches the published figure within its tolerance.
    #[arg(long)]
    check: bool,
    /// Print one JSON object (`real`, `null`, `unpaired`, `appendix`) instead of the report.
    #[arg(long, conflicts_with = "check")]
    json: bool,
    /// Blocks of each paired experiment, and runs of each unpaired session.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(2..=1000))]
    blocks: u32,
    /// Seed of the run orders, layout padding and bootstrap resampling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds per kernel run.
    #[arg(long, default_value_t = 0.3)]
    duration: f64,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let root = run::workspace_root();
    match cli.task {
        Task::ReproduceAppendix(a) if a.check => appendix::run_check(&root, a.seed),
        Task::ReproduceAppendix(a) => appendix::reproduce(
            &root,
            &appendix::ReproduceConfig {
                blocks: a.blocks,
                seed: a.seed,
                duration: a.duration,
                output: if a.json {
                    appendix::OutputFormat::Json
                } else {
                    appendix::OutputFormat::Console
                },
            },
        ),
        Task::BrowserCheck(a) => browser::run(&root, &a),
        Task::CheckFigures(a) => figures::run(&root, &a),
        Task::Dist => dist::run(&root),
        Task::LintWorkflows => workflows::run(&root),
        Task::Lab(args) => lab::forward(&root, &args),
        Task::Tidy => tidy_run(&root),
    }
}

/// `cargo xtask tidy`: prints every broken layer rule and fails if there is one.
fn tidy_run(root: &std::path::Path) -> anyhow::Result<()> {
    let mut problems = tidy::check(&tidy::cli_src(root))?;
    problems.extend(tidy::check_crates(root)?);
    for p in &problems {
        println!("{p}");
    }
    // Warm, cargo replays its cached rustdoc messages in under a second; after a change
    // to bench-stats, which every crate documents again, about a minute on 2 cores.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let doc = std::process::Command::new(cargo)
        .args(["doc", "--workspace", "--no-deps"])
        .current_dir(root)
        .output()?;
    anyhow::ensure!(
        doc.status.success(),
        "cargo doc --workspace --no-deps failed:\n{}",
        String::from_utf8_lossy(&doc.stderr)
    );
    let warnings = tidy::doc_warnings(&String::from_utf8_lossy(&doc.stderr));
    for w in &warnings {
        println!("{w}");
    }
    anyhow::ensure!(
        problems.is_empty() && warnings.is_empty(),
        "{} broken layer rule(s) in crates/bench-cli/src or the library crates, {} rustdoc \
         warning(s) in cargo doc --workspace --no-deps",
        problems.len(),
        warnings.len()
    );
    println!("crates/bench-cli/src: no cycle, no upward arrow, no command naming another");
    println!("library crates: each depends only on the workspace crates below it");
    println!("cargo doc --workspace --no-deps: no warning");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn check_and_json_conflict() {
        assert!(Cli::try_parse_from(["xtask", "reproduce-appendix", "--check", "--json"]).is_err());
        assert!(Cli::try_parse_from(["xtask", "reproduce-appendix", "--blocks", "1"]).is_err());
    }

    /// Every chore's help ends with one example that parses, flags included (and the
    /// alternative after "(or", when there is one).
    #[test]
    fn every_chore_shows_an_example_that_parses() {
        let cli = Cli::command();
        for sub in cli.get_subcommands().filter(|c| c.get_name() != "help") {
            let name = sub.get_name();
            let help = sub.get_after_help().map(ToString::to_string);
            let example = help
                .as_deref()
                .and_then(|h| h.strip_prefix("Example: cargo xtask "))
                .unwrap_or_else(|| panic!("{name}: no `Example: cargo xtask ...` after its help"));
            let mut lines = example.split(" (or ");
            let main = lines.next().unwrap();
            let argv: Vec<&str> = std::iter::once("xtask")
                .chain(main.split_whitespace())
                .collect();
            if let Err(e) = Cli::try_parse_from(&argv) {
                panic!("{name}: {main}: {e}");
            }
            if let Some(alt) = lines.next() {
                let argv: Vec<&str> = ["xtask", main.split_whitespace().next().unwrap()]
                    .into_iter()
                    .chain(alt.trim_end_matches(')').split_whitespace())
                    .collect();
                assert!(Cli::try_parse_from(&argv).is_ok(), "{name}: {alt}");
            }
        }
    }

    #[test]
    fn research_commands_are_forwarded_with_their_arguments() {
        let cli = Cli::try_parse_from(["xtask", "decision-grid", "--reps", "20"]).unwrap();
        let Task::Lab(args) = cli.task else {
            panic!("not forwarded: {:?}", cli.task);
        };
        assert_eq!(args, ["decision-grid", "--reps", "20"]);
    }
}
