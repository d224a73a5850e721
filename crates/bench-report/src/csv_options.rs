//! The CSV reading options that data of another format ignore.

use bench_stats::Dataset;

/// The warnings (without `abba: warning: `) of CSV options that had no effect on `data`:
/// a `unit` other than the default `ns` and `higher_is_better`, which describe CSV values,
/// when the data read record their own (a raw or hyperfine file) and differ. Time: O(1).
///
/// # Examples
/// ```
/// use bench_report::render_ignored_csv_options;
/// use bench_stats::{Dataset, Observation, Series};
/// let data = Dataset::new("ns", vec![Series::new("a", [Observation::new(1.0)])]);
/// let said = render_ignored_csv_options("ms", true, &data);
/// assert_eq!(said.len(), 2);
/// assert!(said[0].starts_with("--unit ms applies to CSV values only"));
/// assert!(render_ignored_csv_options("ns", false, &data).is_empty());
/// ```
pub fn render_ignored_csv_options(
    unit: &str,
    higher_is_better: bool,
    data: &Dataset,
) -> Vec<String> {
    let unit_ignored = unit != "ns" && data.unit != unit;
    let direction_ignored = higher_is_better && !data.higher_is_better;
    [
        (
            unit_ignored,
            format!("--unit {unit}"),
            format!("its unit ({})", data.unit),
        ),
        (
            direction_ignored,
            "--higher-is-better".to_owned(),
            "which way is better".to_owned(),
        ),
    ]
    .into_iter()
    .filter(|(ignored, ..)| *ignored)
    .map(|(_, flag, records)| {
        format!(
            "{flag} applies to CSV values only and was ignored: the raw or hyperfine data record {records}"
        )
    })
    .collect()
}
