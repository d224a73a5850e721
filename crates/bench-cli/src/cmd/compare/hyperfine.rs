//! hyperfine's habits in `abba compare`: `-N` (no shell, abba's default anyway), and every
//! hyperfine option abba does not have, refused with what abba does instead (exit 2)
//! rather than with a guess at a similarly spelled abba flag.

use crate::args::{CompareArgs, ShellArg};
use crate::core::exit::usage;

/// The exports abba writes, for the refusal of hyperfine's others.
const EXPORTS: &str = "abba writes Markdown (--export-markdown), HTML with charts (--export-html), one CSV row per command like hyperfine's --export-csv (--export-csv-summary), one per run (--export-csv) and JSON (--export-json)";

/// Applies `-N` and refuses the hyperfine options abba does not have.
///
/// # Errors
/// A usage error (exit 2) naming the hyperfine option and what abba does instead.
pub fn adopt(args: &mut CompareArgs) -> anyhow::Result<()> {
    if args.no_shell {
        args.shell = Some(ShellArg::None);
    }
    let only = &args.hyperfine_only;
    let refusal = if only.export_asciidoc.is_some() {
        Some(format!("--export-asciidoc is hyperfine's: {EXPORTS}"))
    } else if only.export_orgmode.is_some() {
        Some(format!("--export-orgmode is hyperfine's: {EXPORTS}"))
    } else if only.sort.is_some() {
        Some("--sort is hyperfine's: abba lists the variants in the order given and compares each with the baseline (the first, or --baseline NAME); each verdict says which is faster and by how much".to_owned())
    } else if only.input.is_some() {
        Some("--input is hyperfine's: abba runs every command with standard input from /dev/null; to feed a file, make it part of the command (--shell sh 'prog < input.txt')".to_owned())
    } else if only.debug_mode {
        Some("--debug-mode is hyperfine's: abba has no mock runs; --dry-run prints the schedule without running anything".to_owned())
    } else {
        args.output
            .as_deref()
            .and_then(|p| p.to_str())
            .filter(|p| matches!(*p, "null" | "pipe" | "inherit"))
            .map(|p| format!("--output {p}: abba's --output is the raw file of runs (FILE.jsonl), not hyperfine's destination of the commands' output; abba discards that output (--show-output shows it); to name a raw file `{p}`, write ./{p}"))
    };
    refusal.map_or(Ok(()), |text| Err(usage(text)))
}
