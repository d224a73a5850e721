//! `abba history check`: the library's check of each series
//! (`bench_stats::history::check_series`, its chain through the one `Gate`) in
//! `bench-report`'s words.

use bench_stats::history::check_series;

use super::read::all_series;
use crate::args::history::CheckArgs;
use crate::core::output::write_stdout;

/// `abba history check`.
pub(super) fn check(args: &CheckArgs) -> anyhow::Result<u8> {
    let store = args.read.open()?;
    let series = all_series(&store, args.bench.as_deref(), &args.read)?;
    if series.is_empty() {
        // Nothing checked is not a pass: an empty store, or filters that match nothing.
        let (experiments, _) = store.counts().map_err(crate::core::record::word)?;
        return Err(crate::core::exit::usage(if experiments == 0 {
            format!(
                "history check: {} holds no experiment, so nothing can be checked (record one with --record first)",
                store.path().display()
            )
        } else {
            "history check: no series matches the filters (--machine, --branch, --since, --metric, BENCH), so nothing was checked; see `abba history list`".to_owned()
        }));
    }
    let checked: Vec<_> = series
        .iter()
        .map(|s| (s, check_series(s, args.recent, args.fail_if_slower)))
        .collect();
    write_stdout(&bench_report::render_history_check(&checked, args.recent))?;
    let failing = checked.iter().any(|(_, c)| c.failures() > 0);
    Ok(u8::from(failing))
}
