//! `abba history`: its subcommands wired to `bench-history` (the store, records and
//! series), `bench-report` (the documents) and the check's words (`check`).

mod check;
mod read;

use bench_stats::suite::Correction;

use crate::args::history::{HistoryArgs, HistoryCommand, ImportArgs};
use crate::core::exit::usage;
use crate::core::record::{context, open_to_record, say_recorded, word};
use bench_history::Labels;
use bench_sched::read_raw;

/// `abba history ...`.
pub fn run(args: HistoryArgs) -> anyhow::Result<u8> {
    match args.command {
        HistoryCommand::Import(a) => import(&a),
        HistoryCommand::List(a) => read::list(&a),
        HistoryCommand::Show(a) => read::show(&a),
        HistoryCommand::Check(a) => check::check(&a),
        HistoryCommand::Export(a) => read::export(&a),
    }
}

/// `abba history import`: every file read and checked before the store is touched, each
/// analysed with the library's defaults and its own seed, as `abba analyze` (or `abba
/// suite`, for a suite's file) would by default.
fn import(args: &ImportArgs) -> anyhow::Result<u8> {
    let labels = Labels {
        commit: args.commit.as_deref(),
        base_commit: args.base_commit.as_deref(),
        branch: args.branch.as_deref(),
        bench: args.bench.as_deref(),
    };
    let ctx = context("history import", "import", labels)?;
    let mut raws = Vec::with_capacity(args.files.len());
    for f in &args.files {
        let raw = read_raw(f).map_err(|e| usage(e.to_string()))?;
        raws.push(raw);
    }
    let (mut store, path) = open_to_record(args.history.as_deref())?;
    for raw in &raws {
        let config = bench_history::default_config(raw);
        let recorded = store
            .record_file(raw, &config, Correction::default(), &ctx)
            .map_err(word)?;
        say_recorded(&path, &raw.file, recorded, &ctx, false);
    }
    Ok(0)
}
