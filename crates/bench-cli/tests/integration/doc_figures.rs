//! The README's and `docs/`' figures that `abba` prints from a committed file: each
//! command is run through the binary and the lines it prints (all of them, or the ones
//! the figure quotes) are compared with the body marked `<!-- abba-figure: COMMAND -->`
//! (`bench_docs::Figure`; `ABBA_UPDATE_FIGURES=1` rewrites a stale one). Cost: one
//! `abba analyze` of a 32-run file per figure, milliseconds each.

use std::process::Command;

/// One marked figure: its document, its command (`KEY=VALUE ... abba ARGS`, run from the
/// workspace root) and which printed lines it quotes.
struct DocFigure {
    doc: &'static str,
    command: &'static str,
    quotes: fn(&str) -> bool,
}

/// The headline of each comparison (`B vs A  SLOWER  ...`): the report's first lines.
fn headline(line: &str) -> bool {
    line.starts_with("B vs A  ")
}

const FIGURES: &[DocFigure] = &[
    DocFigure {
        doc: "README.md",
        command: "abba analyze crates/bench-cli/tests/data/raw_two.jsonl --seed 1",
        quotes: headline,
    },
    DocFigure {
        doc: "docs/usage.md",
        command: "abba analyze crates/bench-cli/tests/data/raw_two.jsonl --seed 1",
        quotes: headline,
    },
];

#[test]
fn cli_figures_of_the_docs_are_what_abba_prints() {
    for f in FIGURES {
        let words: Vec<&str> = f.command.split_whitespace().collect();
        let env_len = words.iter().take_while(|w| w.contains('=')).count();
        let (env, argv) = words.split_at(env_len);
        assert_eq!(argv[0], "abba", "{}", f.command);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_abba"));
        cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .env_remove("COLUMNS")
            .env("NO_COLOR", "1")
            .args(&argv[1..]);
        for kv in env {
            let (k, v) = kv.split_once('=').unwrap();
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            f.command,
            String::from_utf8_lossy(&out.stderr)
        );
        let mut fig = bench_docs::Figure::new(f.doc, f.command);
        for line in String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| (f.quotes)(l))
        {
            fig.record(line);
        }
        fig.check();
    }
}
