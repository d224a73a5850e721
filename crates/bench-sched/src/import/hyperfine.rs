//! hyperfine `--export-json` import: each result becomes one unpaired variant, in ns.

use std::path::Path;

use bench_stats::{Dataset, Observation, Quantity};
use serde::Deserialize;

use super::{HYPERFINE_SHAPE, Loaded, empty_series};
use crate::error::{InputError, ReadWarning, ReadWarningKind};

#[derive(Deserialize)]
struct Export {
    results: Vec<ResultEntry>,
}

#[derive(Deserialize)]
struct ResultEntry {
    command: String,
    times: Option<Vec<f64>>,
    /// Exit code of each run (hyperfine writes `null` for a run killed by a signal).
    #[serde(default)]
    exit_codes: Option<Vec<Option<i64>>>,
}

/// Reads a hyperfine JSON export; see [`read_hyperfine_bytes`].
///
/// # Errors
/// As [`read_hyperfine_bytes`], or [`InputError::Io`].
pub fn read_hyperfine(path: &Path) -> Result<Loaded, InputError> {
    let name = path.display().to_string();
    let bytes = super::read_path(path)?;
    read_hyperfine_bytes(&name, &bytes)
}

/// Parses hyperfine's `--export-json` output: `results[].command` names a variant and
/// `results[].times` (seconds) become its observations in ns, unpaired, lower is better.
/// A command that appears twice gets a ` #2` suffix (with a warning). Never panics.
///
/// # Errors
/// [`InputError::Invalid`] naming the file and serde's line and column for malformed JSON,
/// and for no results, a result without `times`, or a negative or non-finite time.
pub fn read_hyperfine_bytes(file: &str, bytes: &[u8]) -> Result<Loaded, InputError> {
    let export = parse_export(file, bytes)?;
    let mut dataset = Dataset::new("ns", Vec::new()).with_quantity(Quantity::Time);
    let mut warnings = Vec::new();
    for (i, r) in export.results.into_iter().enumerate() {
        let Some(times) = r.times else {
            return Err(InputError::at(
                file,
                None,
                None,
                format!("results[{i}] ({:?}) has no \"times\" array", r.command),
            ));
        };
        if times.is_empty() {
            return Err(InputError::at(
                file,
                None,
                None,
                format!("results[{i}] ({:?}) has no times", r.command),
            ));
        }
        let name = unique_name(&dataset, &r.command);
        if name != r.command {
            warnings.push(ReadWarning {
                kind: ReadWarningKind::Input,
                file: file.to_owned(),
                line: None,
                message: format!(
                    "command {:?} appears more than once; renamed {name:?}",
                    r.command
                ),
            });
        }
        if let Some(codes) = &r.exit_codes {
            let failed = codes.iter().filter(|c| **c != Some(0)).count();
            if failed > 0 {
                warnings.push(ReadWarning {
                    kind: ReadWarningKind::Input,
                    file: file.to_owned(),
                    line: None,
                    message: format!(
                        "{failed} of {} runs of {name:?} failed (a non-zero exit code: \
                         hyperfine -i recorded them){}",
                        codes.len(),
                        if failed == codes.len() {
                            "; every run failed, so its times measure the failure, not the \
                             command"
                        } else {
                            "; their times are analysed with the others"
                        }
                    ),
                });
            }
        }
        let mut series = empty_series(&name, None);
        for (j, t) in times.into_iter().enumerate() {
            let ns = t * 1e9;
            if !ns.is_finite() || ns < 0.0 {
                return Err(InputError::at(
                    file,
                    None,
                    None,
                    format!("results[{i}].times[{j}] = {t} is not a valid duration"),
                ));
            }
            series.observations.push(Observation::new(ns));
        }
        dataset.series.push(series);
    }
    Ok(Loaded { dataset, warnings })
}

/// `command`, or `command #2`, `#3`, ... when a series of that name exists already.
fn unique_name(dataset: &Dataset, command: &str) -> String {
    let mut name = command.to_owned();
    let mut n = 2;
    while dataset.series.iter().any(|s| s.name == name) {
        name = format!("{command} #{n}");
        n += 1;
    }
    name
}

/// The export's shape, checked first so that a JSON array or another object is named as
/// such; the typed parse then gives serde's line and column for a wrong field.
fn parse_export(file: &str, bytes: &[u8]) -> Result<Export, InputError> {
    let shape = |what: &str| {
        InputError::at(
            file,
            None,
            None,
            format!("{what}: a hyperfine --export-json file is {HYPERFINE_SHAPE}"),
        )
    };
    if bytes.trim_ascii().is_empty() {
        return Err(shape("empty file"));
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        InputError::at(
            file,
            Some(e.line()),
            Some(e.column()),
            format!("not valid JSON (expected a hyperfine JSON export): {e}"),
        )
    })?;
    match &value {
        serde_json::Value::Array(_) => {
            return Err(shape("a JSON array is not a hyperfine export"));
        }
        serde_json::Value::Object(o) if !o.contains_key("results") => {
            return Err(shape(
                "a JSON object without \"results\" is not a hyperfine export",
            ));
        }
        serde_json::Value::Object(_) => {}
        serde_json::Value::Null
        | serde_json::Value::Bool(_)
        | serde_json::Value::Number(_)
        | serde_json::Value::String(_) => return Err(shape("not a hyperfine export")),
    }
    let export: Export = serde_json::from_slice(bytes).map_err(|e| {
        InputError::at(
            file,
            Some(e.line()),
            Some(e.column()),
            format!("not a hyperfine JSON export: {e}"),
        )
    })?;
    if export.results.is_empty() {
        return Err(InputError::at(
            file,
            None,
            None,
            "hyperfine export has no results",
        ));
    }
    Ok(export)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_seconds_to_ns() {
        let json = br#"{"results":[{"command":"sleep 0.1","mean":0.1,"times":[0.1,0.2]},{"command":"true","times":[0.001]}]}"#;
        let l = read_hyperfine_bytes("h.json", json).unwrap();
        assert_eq!(l.dataset.series[0].name, "sleep 0.1");
        assert!((l.dataset.series[0].observations[1].value - 2e8).abs() < 1e-3);
        assert_eq!(l.dataset.unit, "ns");
    }

    #[test]
    fn malformed_names_file_and_location() {
        let e = read_hyperfine_bytes("h.json", b"{\n  \"results\": [ {\"command\": 3} ]\n}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("h.json:2:"), "{e}");
        assert!(read_hyperfine_bytes("h.json", br#"{"results":[]}"#).is_err());
        assert!(
            read_hyperfine_bytes("h.json", br#"{"results":[{"command":"a","times":[-1.0]}]}"#)
                .is_err()
        );
        assert!(read_hyperfine_bytes("h.json", br#"{"results":[{"command":"a"}]}"#).is_err());
    }
}
