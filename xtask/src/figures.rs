//! `cargo xtask check-figures`: re-runs the commands that print the figures of the README
//! and `docs/`, and fails unless every marked figure appears in what its command printed
//! (rust-analyzer's sourcegen check, for prose). The markers and the in-test check are
//! `bench_docs`; the tests already check the fast figures on every `cargo test`, so by
//! default this runs the slow ones (`<!-- abba-figure slow: COMMAND -->`: release builds,
//! thousands of simulated sessions); `--all` runs every command.
//!
//! A command is run from the workspace root without a shell: split like a POSIX shell,
//! leading `NAME=VALUE` words set the environment, and `cargo` is `$CARGO`. `cargo test`
//! output is read without the harness's `test NAME ... ` prefixes.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use bench_docs::Marked;

/// Flags of `check-figures`.
#[derive(clap::Args, Debug)]
pub struct FiguresArgs {
    /// Also re-run the figures the tests check (every marked command).
    #[arg(long)]
    all: bool,
    /// Only the figures whose command contains this text.
    #[arg(long, value_name = "TEXT")]
    only: Option<String>,
    /// List the marked figures and their commands; run nothing.
    #[arg(long)]
    list: bool,
}

/// Every marked figure of the README and `docs/`, in file order.
///
/// # Errors
/// When a file cannot be read or holds a malformed marker (named by file and line).
pub fn marked(root: &Path) -> Result<Vec<Marked>> {
    let mut out = Vec::new();
    for path in bench_docs::doc_files(root).context("listing docs/")? {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let rel = path.strip_prefix(root).unwrap_or(&path);
        out.extend(bench_docs::parse(rel, &text).map_err(anyhow::Error::msg)?);
    }
    Ok(out)
}

/// Runs `command` from `root` and returns its stdout, `cargo test`'s harness prefixes
/// removed.
fn run_command(root: &Path, command: &str) -> Result<String> {
    let words = shell_words::split(command).with_context(|| format!("splitting `{command}`"))?;
    let env_len = words
        .iter()
        .take_while(|w| {
            w.split_once('=')
                .is_some_and(|(k, _)| !k.is_empty() && !k.contains('/'))
        })
        .count();
    let (env, argv) = words.split_at(env_len);
    let Some((program, args)) = argv.split_first() else {
        bail!("`{command}` names no program");
    };
    let program = match program.as_str() {
        "cargo" => std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()),
        p => p.to_owned(),
    };
    let mut cmd = Command::new(&program);
    cmd.args(args).current_dir(root);
    for kv in env {
        if let Some((k, v)) = kv.split_once('=') {
            cmd.env(k, v);
        }
    }
    let out = cmd
        .output()
        .with_context(|| format!("starting `{command}`"))?;
    if !out.status.success() {
        bail!(
            "`{command}` failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(strip_harness(&String::from_utf8_lossy(&out.stdout)))
}

/// `cargo test --nocapture` output without the harness's own words: a test's first printed
/// line follows `test NAME ... ` on the same line, `ok` ends it, and a slow test's
/// `test NAME has been running for over 60 seconds` can fall between any two lines.
fn strip_harness(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| {
            !(l.starts_with("test ") && l.ends_with(" has been running for over 60 seconds"))
        })
        .map(|l| match l.strip_prefix("test ") {
            Some(rest) => rest.split_once(" ... ").map_or(l, |(_, printed)| printed),
            None => l,
        })
        .filter(|l| *l != "ok")
        .collect::<Vec<_>>()
        .join("\n")
}

/// `cargo xtask check-figures`.
///
/// # Errors
/// When a command fails, or a figure does not appear in what its command printed (each
/// named by file and line).
pub fn run(root: &Path, args: &FiguresArgs) -> Result<()> {
    let figures: Vec<Marked> = marked(root)?
        .into_iter()
        .filter(|m| args.all || m.slow)
        .filter(|m| args.only.as_deref().is_none_or(|o| m.command.contains(o)))
        .collect();
    if args.list {
        for m in &figures {
            let kind = if m.slow { "slow" } else { "test" };
            println!("{}:{} [{kind}] {}", m.file.display(), m.line, m.command);
        }
        return Ok(());
    }
    let mut commands: Vec<&str> = figures.iter().map(|m| m.command.as_str()).collect();
    commands.dedup();
    commands.sort_unstable();
    commands.dedup();
    let mut stale = Vec::new();
    for command in commands {
        eprintln!("running {command}");
        let output = run_command(root, command)?;
        for m in figures.iter().filter(|m| m.command == command) {
            if bench_docs::contained_in(&m.body, &output) {
                eprintln!("  {}:{} matches", m.file.display(), m.line);
            } else {
                eprintln!("  {}:{} is stale", m.file.display(), m.line);
                stale.push(format!(
                    "{}:{}: `{command}` no longer prints this figure; it printed\n{output}",
                    m.file.display(),
                    m.line
                ));
            }
        }
    }
    if !stale.is_empty() {
        bail!("{} stale figure(s):\n\n{}", stale.len(), stale.join("\n\n"));
    }
    eprintln!("{} figure(s) match their commands", figures.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `.rs` file of the workspace's crates and of xtask.
    fn sources(root: &Path) -> Vec<String> {
        fn walk(dir: &Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(std::fs::read_to_string(&p).unwrap_or_default());
                }
            }
        }
        let mut out = Vec::new();
        walk(&root.join("crates"), &mut out);
        walk(&root.join("xtask/src"), &mut out);
        out
    }

    /// The markers are well formed, and every figure not marked slow is checked by a test:
    /// its command is the `bench_docs::Figure` of some test (written as one string literal).
    #[test]
    fn every_figure_is_marked_well_and_checked() {
        let root = crate::run::workspace_root();
        let figures = marked(&root).unwrap();
        assert!(
            !figures.is_empty(),
            "no marked figure in the README or docs/"
        );
        let sources = sources(&root);
        for m in &figures {
            assert!(
                !bench_docs::normalize(&m.body).is_empty(),
                "{}:{}: an empty figure",
                m.file.display(),
                m.line
            );
            let literal = format!("\"{}\"", m.command);
            assert!(
                m.slow || sources.iter().any(|s| s.contains(&literal)),
                "{}:{}: no test checks `{}` (a bench_docs::Figure with that command); mark it \
                 `<!-- abba-figure slow: ... -->` if only `cargo xtask check-figures` can",
                m.file.display(),
                m.line,
                m.command
            );
        }
    }

    #[test]
    fn the_harness_prefix_is_removed() {
        let out = "running 1 test\ntest a_b ... first line\ntest a_b has been running for over 60 seconds\nsecond\nok\n\ntest result: ok.";
        assert_eq!(
            strip_harness(out),
            "running 1 test\nfirst line\nsecond\n\ntest result: ok."
        );
    }
}
