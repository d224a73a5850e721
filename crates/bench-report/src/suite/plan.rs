//! A suite before and beside its report: `abba suite --list` (each benchmark's command per
//! variant), `--dry-run` (the first blocks' orders) and the
//! benchmarks that could not be compared.

use bench_stats::suite::FailedBenchmark;

use super::counted;

/// `abba suite --list`: the benchmarks and the variants (the first the baseline), then each
/// benchmark with its command for each variant. Time: O(benchmarks × variants).
pub fn render_suite_listing(
    variants: &[&str],
    benchmarks: &[(String, Vec<(String, String)>)],
) -> String {
    let mut out = format!(
        "{}, variants {} (baseline {})\n",
        counted(benchmarks.len(), "benchmark"),
        variants.join(", "),
        variants.first().copied().unwrap_or("")
    );
    for (name, commands) in benchmarks {
        out.push_str(&format!("{name}\n"));
        for (variant, command) in commands {
            out.push_str(&format!("  {variant}: {command}\n"));
        }
    }
    out
}

/// `abba suite --dry-run`: the variants of each of the first blocks in run order
/// (`orders`), how many more of the `blocks` follow, the seed and the measured runs.
pub fn render_suite_dry_run(orders: &[Vec<&str>], blocks: u32, seed: u64, runs: usize) -> String {
    let mut out = String::new();
    for (b, names) in orders.iter().enumerate() {
        out.push_str(&format!("block {}: {}\n", b + 1, names.join(" ")));
    }
    let shown = orders.len() as u32;
    if blocks > shown {
        out.push_str(&format!(
            "... {} more, each in a fresh benchmark order\n",
            counted((blocks - shown) as usize, "block")
        ));
    }
    out.push_str(&format!("seed {seed}; {}\n", counted(runs, "measured run")));
    out
}

/// Why benchmarks were not compared, each with the variant whose runs failed, and what
/// became of the others (`none_left`: no benchmark could be compared).
pub fn render_suite_failures(failed: &[FailedBenchmark], none_left: bool) -> String {
    let each: Vec<String> = failed
        .iter()
        .map(|b| match b.variants.first() {
            Some(v) => format!(
                "benchmark {}: variant {} failed {} of its {} runs, so no block holds all of the benchmark's runs; not compared",
                b.name, v.name, v.failed, v.runs
            ),
            None => format!(
                "benchmark {}: no block holds all of its runs; not compared",
                b.name
            ),
        })
        .collect();
    let rest = if none_left {
        "no benchmark could be compared"
    } else {
        "the other benchmarks are reported, their exports written"
    };
    format!("{}\n{rest}", each.join("\n"))
}

/// The line `abba suite` says as its runs start: `benchmarks` x `variants`, the `blocks`
/// (at most, each benchmark `until` decided), the seed and the raw file.
pub fn render_suite_start(
    (benchmarks, variants): (usize, usize),
    blocks: u32,
    until: bool,
    seed: u64,
    raw: &std::path::Path,
) -> String {
    let blocks = counted(blocks as usize, "block");
    let blocks = if until {
        format!("each benchmark until decided, at most {blocks}")
    } else {
        blocks
    };
    format!(
        "abba suite: {} x {variants} variants, {blocks}, seed {seed}; raw runs in {}",
        counted(benchmarks, "benchmark"),
        raw.display()
    )
}

/// What `abba suite --shard K/N` (`shard`) says before its runs: the benchmarks it
/// `held` of the suite's `total`, and that its correction covers only these.
pub fn render_shard_note(shard: &str, held: &[&str], total: usize) -> String {
    format!(
        "abba suite: shard {shard} holds {} of the suite's {total}{}{}; its correction covers only these: merge every shard's raw file with abba suite --merge for the suite's verdicts",
        held.len(),
        if held.is_empty() { "" } else { ": " },
        held.join(", ")
    )
}

/// What `abba suite --resume` of a complete file (`path`) says: nothing runs, its report
/// follows, and with `--record` (`recording`) it is not recorded again.
pub fn render_complete_resume(path: &std::path::Path, recording: bool) -> String {
    format!(
        "--resume {}: the suite is complete (every planned run is in the file); nothing runs, its report follows{}",
        path.display(),
        if recording {
            " (--record: not recorded again)"
        } else {
            ""
        }
    )
}
