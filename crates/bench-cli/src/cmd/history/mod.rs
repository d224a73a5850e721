//! `abba history`: its subcommands wired to `bench-history` (the store, records and
//! series), `bench-report` (the documents) and the check's words (`check`).

mod check;
mod read;

use bench_stats::suite::Correction;

use crate::args::history::{HistoryArgs, HistoryCommand, ImportArgs};
use crate::core::exit::usage;
use crate::core::record::{
    context, is_default_path, open_to_record, record_file, resolve_path, say_recorded,
};
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
    let ctx = context(
        "history import",
        "import",
        args.commit.as_deref(),
        args.base_commit.as_deref(),
        args.branch.as_deref(),
        args.bench.as_deref(),
    )?;
    let mut raws = Vec::with_capacity(args.files.len());
    for f in &args.files {
        let raw = read_raw(f).map_err(|e| usage(e.to_string()))?;
        raws.push(raw);
    }
    let path = resolve_path(args.history.as_deref());
    let mut store = open_to_record(&path, is_default_path(args.history.as_deref()))?;
    for raw in &raws {
        let config = bench_history::default_config(raw);
        let new = record_file(&mut store, raw, &config, Correction::default(), &ctx)?;
        say_recorded(&path, &raw.file, new, &ctx, false);
    }
    Ok(0)
}
