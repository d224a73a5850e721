//! The suite's analysis as JSON (`abba.suite/1`).

use bench_stats::suite::SuiteReport;
use serde_json::{Map, Value};

/// The schema of the suite's analysis JSON.
pub const SUITE_SCHEMA: &str = "abba.suite/1";

/// The suite's analysis JSON (`abba.suite/1`): the report with its schema first, pretty
/// printed, ending in a newline.
///
/// # Errors
/// A value that JSON cannot hold (never expected: the analysis has no NaN).
pub fn render_suite_json(report: &SuiteReport) -> Result<String, serde_json::Error> {
    let mut value = serde_json::to_value(report)?;
    if let Value::Object(map) = &mut value {
        let mut with_schema = Map::new();
        with_schema.insert("schema".into(), Value::String(SUITE_SCHEMA.into()));
        with_schema.extend(std::mem::take(map));
        *map = with_schema;
    }
    let mut text = serde_json::to_string_pretty(&value)?;
    text.push('\n');
    Ok(text)
}
