//! Saved-data readers: raw JSONL edge cases, merging, and never panicking on any bytes.

use bench_sched::*;
use proptest::prelude::*;

const HEADER: &str = r#"{"schema":"abba.raw/1","abba_version":"0.1.0","design":"abba","seed":1,"blocks":3,"variants":[{"name":"A","command":"a"},{"name":"B","command":"b"}],"reference":null,"metric":"wall","unit":"ns","higher_is_better":false,"layout":"random","pin":null,"warmup":0,"settle_ns":0,"host":{"cpu_model":null,"cores":2,"kernel":null,"governor":null,"turbo":null,"aslr":2,"load_start":null,"load_end":null,"env_bytes":10,"argv_bytes":5,"start_time":"2026-01-01T00:00:00Z"},"future_field":true}"#;

fn run_line(block: u32, position: u32, variant: &str, wall: u64) -> String {
    format!(
        r#"{{"run":{},"block":{block},"position":{position},"variant":"{variant}","wall_ns":{wall},"user_ns":1,"sys_ns":1,"max_rss_kib":10,"exit_code":0,"timed_out":false,"env_pad":3,"metric":null}}"#,
        block * 4 + position
    )
}

fn abba_file(blocks: u32) -> String {
    let mut s = format!("{HEADER}\n");
    for b in 0..blocks {
        let order = if b % 2 == 0 {
            ["A", "B", "B", "A"]
        } else {
            ["B", "A", "A", "B"]
        };
        for (p, v) in order.iter().enumerate() {
            s.push_str(&run_line(
                b,
                p as u32,
                v,
                100 + u64::from(b) * 10 + p as u64,
            ));
            s.push('\n');
        }
    }
    s
}

#[test]
fn complete_file_converts_to_paired_dataset() {
    let data = read_raw_bytes("r.jsonl", abba_file(3).as_bytes()).unwrap();
    let loaded = data.to_dataset();
    assert!(loaded.warnings.is_empty());
    let a = &loaded.dataset.series[0];
    assert_eq!(a.name, "A");
    assert_eq!(a.observations.len(), 6);
    assert_eq!(
        (
            a.observations[0].value,
            a.observations[0].block,
            a.observations[0].position
        ),
        (100.0, Some(0), Some(0))
    );
    assert_eq!(loaded.dataset.design.map(|d| d.as_str()), Some("abba"));
}

#[test]
fn truncated_last_line_and_incomplete_block_are_dropped_with_warnings() {
    let mut text = abba_file(2);
    text.push_str(&run_line(2, 0, "A", 5));
    text.push('\n');
    let cut = run_line(2, 1, "B", 5);
    text.push_str(&cut[..cut.len() / 2]);
    let data = read_raw_bytes("r.jsonl", text.as_bytes()).unwrap();
    assert_eq!(data.runs.len(), 9);
    assert_eq!(
        data.warnings[0].to_string(),
        "r.jsonl:11: last line is incomplete (file cut short?); dropped"
    );
    let loaded = data.to_dataset();
    assert_eq!(loaded.dataset.series[1].observations.len(), 4);
    assert!(loaded.warnings.iter().any(
        |w| w.message == "block 3 (id 2 in the raw file) has 1 of 4 runs (incomplete); dropped"
    ));
}

#[test]
fn run_lines_out_of_block_order_give_the_dataset_of_the_file_in_block_order() {
    // The blocks grouped without a map (issue 39): lines of blocks 2, 0, 1 interleaved
    // (each block's own lines in their order) give each variant's runs block by block,
    // a block's runs in file order, and the incomplete block dropped, as in block order.
    let in_order = abba_file(3);
    let lines: Vec<&str> = in_order.lines().collect();
    let (header, runs) = (lines[0], &lines[1..]);
    let mut text = format!("{header}\n");
    for i in [8, 0, 9, 4, 1, 10, 2, 5, 11, 3, 6, 7] {
        text.push_str(runs[i]);
        text.push('\n');
    }
    text.push_str(&run_line(3, 0, "A", 5));
    text.push('\n');
    let head = in_order.replacen("\"blocks\":3", "\"blocks\":4", 1);
    let text = text.replacen("\"blocks\":3", "\"blocks\":4", 1);
    let mut ordered = head;
    ordered.push_str(&run_line(3, 0, "A", 5));
    ordered.push('\n');
    let shuffled = read_raw_bytes("r.jsonl", text.as_bytes()).unwrap();
    let ordered = read_raw_bytes("r.jsonl", ordered.as_bytes()).unwrap();
    let (a, b) = (shuffled.to_dataset(), ordered.to_dataset());
    assert_eq!(a.dataset, b.dataset);
    assert_eq!(a.warnings, b.warnings);
    assert_eq!(a.dataset.series[0].observations.len(), 6);
    let values = |e: &Experiment| {
        let mut v: Vec<(u32, u32, Option<f64>)> = e
            .runs
            .iter()
            .zip(e.analysed_values())
            .map(|(r, v)| (r.block, r.position, v))
            .collect();
        v.sort_by_key(|x| (x.0, x.1));
        v
    };
    assert_eq!(values(&shuffled), values(&ordered));
    assert_eq!(values(&shuffled).last().map(|x| x.2), Some(None));
}

fn kinds(warnings: &[ReadWarning]) -> Vec<ReadWarningKind> {
    warnings.iter().map(|w| w.kind).collect()
}

#[test]
fn a_file_cut_short_mid_run_warns_truncated() {
    // Two complete blocks, then half of block 2's first run line: the cut line is dropped.
    let mut text = abba_file(2);
    let cut = run_line(2, 0, "A", 5);
    text.push_str(&cut[..cut.len() / 2]);
    let data = read_raw_bytes("r.jsonl", text.as_bytes()).unwrap();
    assert_eq!(kinds(&data.warnings), [ReadWarningKind::Truncated]);
    assert_eq!(data.warnings[0].kind.code(), "truncated");
    assert_eq!(data.warnings[0].line, Some(10));
    // No run of block 2 survived, so no block is incomplete.
    assert_eq!(
        kinds(&data.to_dataset().warnings),
        [ReadWarningKind::Truncated]
    );

    // Cut after block 2's first run: truncated, and block 2 incomplete; one kind each.
    let mut text = abba_file(2);
    text.push_str(&run_line(2, 0, "A", 5));
    text.push('\n');
    let cut = run_line(2, 1, "B", 5);
    text.push_str(&cut[..cut.len() / 2]);
    let loaded = read_raw_bytes("r.jsonl", text.as_bytes())
        .unwrap()
        .to_dataset();
    assert_eq!(
        kinds(&loaded.warnings),
        [
            ReadWarningKind::Truncated,
            ReadWarningKind::IncompleteBlocks
        ]
    );
}

#[test]
fn a_block_missing_a_variant_warns_incomplete_blocks() {
    // Every line whole, but block 1 lost both runs of B.
    let text: String = abba_file(3)
        .lines()
        .filter(|l| !(l.contains(r#""block":1,"#) && l.contains(r#""variant":"B""#)))
        .map(|l| format!("{l}\n"))
        .collect();
    let data = read_raw_bytes("r.jsonl", text.as_bytes()).unwrap();
    assert_eq!(data.runs.len(), 10);
    assert!(data.warnings.is_empty(), "{:?}", data.warnings);
    let loaded = data.to_dataset();
    assert_eq!(kinds(&loaded.warnings), [ReadWarningKind::IncompleteBlocks]);
    assert_eq!(loaded.warnings[0].kind.code(), "incomplete-blocks");
    assert_eq!(
        loaded.warnings[0].message,
        "block 2 (id 1 in the raw file) has 2 of 4 runs (incomplete); dropped"
    );
    assert_eq!(loaded.dataset.series[1].observations.len(), 4);
}

#[test]
fn bad_lines_in_the_middle_are_errors_with_location() {
    let mut lines: Vec<String> = abba_file(2).lines().map(str::to_owned).collect();
    lines[3] = r#"{"block": 0, "position": oops}"#.to_owned();
    let e = read_raw_bytes("r.jsonl", lines.join("\n").as_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("r.jsonl:4:"), "{e}");
    assert!(e.contains("invalid JSON"), "{e}");

    let mut lines: Vec<String> = abba_file(2).lines().map(str::to_owned).collect();
    lines[2] = lines[2].replace("\"env_pad\"", "\"env_padd\"");
    let e = read_raw_bytes("r.jsonl", lines.join("\n").as_bytes())
        .unwrap_err()
        .to_string();
    // A misspelt required field is still an error (the field it should be is missing).
    assert!(
        e.starts_with("r.jsonl:3: bad run line: missing field `env_pad`"),
        "{e}"
    );

    let mut lines: Vec<String> = abba_file(1).lines().map(str::to_owned).collect();
    lines[2] = lines[2].replace("\"B\"", "\"C\"");
    let e = read_raw_bytes("r.jsonl", lines.join("\n").as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("r.jsonl:3: variant \"C\" is not declared"),
        "{e}"
    );
}

/// A newer writer may add fields to run lines within `abba.raw/1`: they are read and
/// ignored, and the run's known fields kept.
#[test]
fn run_lines_with_unknown_fields_are_read() {
    let mut lines: Vec<String> = abba_file(2).lines().map(str::to_owned).collect();
    for line in lines.iter_mut().skip(1) {
        *line = line.replace(
            "\"env_pad\":3",
            "\"env_pad\":3,\"gpu_clock_mhz\":1410,\"tags\":{\"x\":[1,2]}",
        );
    }
    let data = read_raw_bytes("r.jsonl", lines.join("\n").as_bytes()).unwrap();
    assert_eq!(data.runs.len(), 8);
    assert_eq!(data.runs.at(0).env_pad, 3);
    assert_eq!(data.to_dataset().dataset.series[0].observations.len(), 4);
}

#[test]
fn wrong_or_missing_schema_is_refused() {
    let e = read_raw_bytes("x.jsonl", b"{\"schema\":\"abba.raw/2\"}\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("x.jsonl:1: schema is \"abba.raw/2\": major version 2 of the raw format, which this abba does not read"),
        "{e}"
    );
    let e = read_raw_bytes("x.jsonl", b"{\"schema\":\"hyperfine/1\"}\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "x.jsonl:1: schema is \"hyperfine/1\", expected \"abba.raw/1\""
    );
    let e = read_raw_bytes("x.jsonl", b"{\"a\":1}\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.jsonl:1: missing \"schema\""), "{e}");
    assert!(read_raw_bytes("x.jsonl", b"").is_err());
}

#[test]
fn several_files_merge_unpaired_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (p1, p2, p3) = (
        dir.path().join("one.jsonl"),
        dir.path().join("two.jsonl"),
        dir.path().join("three.csv"),
    );
    std::fs::write(&p1, abba_file(2)).unwrap();
    std::fs::write(&p2, abba_file(1)).unwrap();
    std::fs::write(&p3, "variant,value\nA,1\n").unwrap();
    let loaded = load_files(&[&p1, &p2], &CsvOptions::default()).unwrap();
    assert_eq!(loaded.dataset.series[0].observations.len(), 6);
    assert!(
        loaded
            .dataset
            .series
            .iter()
            .flat_map(|s| &s.observations)
            .all(|o| o.block.is_none())
    );
    let merged: Vec<&ReadWarning> = loaded
        .warnings
        .iter()
        .filter(|w| w.kind == ReadWarningKind::UnpairedSessions)
        .collect();
    assert_eq!(merged.len(), 1, "{:?}", loaded.warnings);
    assert!(merged[0].message.contains("unpaired across sessions"));
    // A CSV of another unit cannot be merged with nanoseconds.
    let e = load_files(&[&p1, &p3], &CsvOptions::default()).unwrap_err();
    assert!(matches!(e, InputError::Incompatible { .. }), "{e}");
    let ok = load_files(
        &[&p1, &p3],
        &CsvOptions {
            unit: "ns".into(),
            higher_is_better: false,
        },
    )
    .unwrap();
    assert_eq!(ok.dataset.series[0].observations.len(), 5);
}

#[test]
fn formats_are_detected_from_content() {
    assert_eq!(detect_format(abba_file(1).as_bytes()), InputFormat::Raw);
    assert_eq!(
        detect_format(b"{\n  \"results\": []\n}"),
        InputFormat::Hyperfine
    );
    assert_eq!(detect_format(b"variant,value\nA,1\n"), InputFormat::Csv);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn readers_never_panic_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read_raw_bytes("f", &bytes);
        let _ = read_csv_bytes("f", &bytes, &CsvOptions::default());
        let _ = read_hyperfine_bytes("f", &bytes);
    }

    #[test]
    fn raw_reader_never_panics_on_mangled_files(cut in 0usize..2000, flip in 0usize..2000, byte in any::<u8>()) {
        let original = abba_file(2).into_bytes();
        let mut bytes = original.clone();
        let n = bytes.len();
        let (flip, cut) = (flip % n, cut % (n + 1));
        bytes[flip] = byte;
        bytes.truncate(cut);
        // Cut anywhere after the header line, without a change to what is left: only the
        // cut-off last line may go, so reading must succeed.
        let header_end = original.iter().position(|&b| b == b'\n').unwrap() + 1;
        let intact = cut >= header_end && (flip >= cut || original[flip] == byte);
        match read_raw_bytes("f", &bytes) {
            Ok(data) => {
                let loaded = data.to_dataset();
                for s in &loaded.dataset.series {
                    prop_assert!(s.observations.iter().all(|o| o.value.is_finite()));
                }
            }
            Err(e) => {
                prop_assert!(!intact, "an intact prefix was refused: {}", e);
                prop_assert!(
                    matches!(&e, InputError::Invalid { file, .. } if file == "f"),
                    "{:?}", e
                );
            }
        }
    }

    #[test]
    fn csv_reader_handles_valid_ish_rows(rows in proptest::collection::vec(
        ("[AB\"x, ]{0,3}", prop_oneof![Just("1".to_owned()), Just("NaN".to_owned()), Just("-2.5e3".to_owned()), "[0-9a-z.\"-]{0,5}"], "-?[0-9]{0,2}"),
        0..12,
    )) {
        let mut text = String::from("block,variant,value\n");
        for (v, x, b) in &rows {
            text.push_str(&format!("{b},{v},{x}\n"));
        }
        match read_csv_bytes("f.csv", text.as_bytes(), &CsvOptions::default()) {
            Ok(l) => prop_assert!(l.dataset.series.iter().flat_map(|s| &s.observations).all(|o| o.value.is_finite() && o.block.is_some())),
            // Every refusal names the file and a line of it (the header is line 1).
            Err(e) => prop_assert!(
                matches!(&e, InputError::Invalid { file, line: Some(l), .. } if file == "f.csv" && (1..=rows.len() + 1).contains(l)),
                "{:?}", e
            ),
        }
    }

    #[test]
    fn csv_round_trips_finite_values(values in proptest::collection::vec(-1e12f64..1e12, 1..20)) {
        let mut text = String::from("variant,value\n");
        for v in &values {
            text.push_str(&format!("A,{v}\n"));
        }
        let l = read_csv_bytes("f.csv", text.as_bytes(), &CsvOptions::default()).unwrap();
        let got: Vec<f64> = l.dataset.series[0].observations.iter().map(|o| o.value).collect();
        prop_assert_eq!(got, values);
    }
}

/// Writes `text` to `name` in a fresh directory and loads it as `abba analyze` does.
fn load_named(name: &str, text: &str) -> Result<Input, InputError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    Input::load(&[&path], &CsvOptions::default())
}

/// The message of a load error, without the temporary directory.
fn load_error(name: &str, text: &str) -> String {
    match load_named(name, text) {
        Ok(_) => panic!("{name} was accepted"),
        Err(InputError::Invalid { message, .. }) => message,
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn an_empty_file_is_named_by_its_extension() {
    assert_eq!(
        load_error("r.jsonl", ""),
        "empty file: a raw JSONL file starts with an abba.raw/1 header line"
    );
    assert_eq!(
        load_error("r.jsonl", "\n  \n"),
        "empty file: a raw JSONL file starts with an abba.raw/1 header line"
    );
    let json = load_error("h.json", "");
    assert!(
        json.starts_with(
            "empty file: a hyperfine --export-json file is a JSON object {\"results\""
        ),
        "{json}"
    );
    assert!(
        load_error("d.csv", "").starts_with("empty file: a CSV file starts with a header row"),
        "csv"
    );
    let other = load_error("data.txt", "");
    assert!(
        other.starts_with("empty input: expected raw JSONL"),
        "{other}"
    );
}

#[test]
fn run_lines_without_the_header_line_say_the_header_is_missing() {
    let body: String = abba_file(1)
        .lines()
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect();
    for name in ["r.jsonl", "r.json", "runs"] {
        let e = load_error(name, &body);
        assert!(
            e.starts_with("the header line is missing: line 1 is a run line"),
            "{name}: {e}"
        );
    }
    // A lone object that is neither a header nor a run: hyperfine JSON unless it is a .jsonl.
    assert_eq!(detect_format(b"{\"a\":1}\n"), InputFormat::Hyperfine);
    assert!(load_error("x.jsonl", "{\"a\":1}\n").starts_with("missing \"schema\""));
    assert_eq!(detect_format(b"{\"a\":1}\n{\"b\":2}\n"), InputFormat::Raw);
}

#[test]
fn a_json_array_is_not_a_hyperfine_export() {
    assert_eq!(
        detect_format(b"[{\"command\":\"a\"}]"),
        InputFormat::Hyperfine
    );
    for name in ["h.json", "h"] {
        let e = load_error(name, "[{\"command\": \"a\", \"times\": [1.0]}]\n");
        assert_eq!(
            e,
            "a JSON array is not a hyperfine export: a hyperfine --export-json file is a JSON \
             object {\"results\": [{\"command\": \"...\", \"times\": [seconds, ...]}, ...]}",
            "{name}"
        );
    }
    let e = load_error("h.json", "{\n  \"mean\": 1\n}\n");
    assert!(
        e.starts_with("a JSON object without \"results\" is not a hyperfine export"),
        "{e}"
    );
}

#[test]
fn a_duplicated_run_line_is_named_with_its_line() {
    // The 3rd run line (line 4: block 0, position 2, B) appended again as line 14.
    let mut text = abba_file(3);
    let third = text.lines().nth(3).unwrap().to_owned();
    text.push_str(&format!("{third}\n"));
    let e = read_raw_bytes("r.jsonl", text.as_bytes())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "r.jsonl:14: duplicate run line: run 2 (block 1, variant \"B\") was already read at line 4"
    );
    // Another run number, but the same block, position and variant.
    let renumbered = third.replace("\"run\":2,", "\"run\":99,");
    let mut text = abba_file(3);
    text.push_str(&format!("{renumbered}\n"));
    let e = read_raw_bytes("r.jsonl", text.as_bytes())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "r.jsonl:14: duplicate run line: the same place in the block (block 1, variant \"B\", \
         position 2) was already measured at line 4"
    );
}

/// A file written before the reference ran beside every run: one reference run per block
/// (`is_reference`, no `beside`, no `reference_placement` in the header) is still read,
/// its blocks are complete at 5 runs, and the analysis computes the once-per-block ratio of
/// ratios.
#[test]
fn old_once_per_block_reference_file_is_read_and_analysed_that_way() {
    let header = HEADER
        .replace(r#""reference":null"#, r#""reference":"ref""#)
        .replace(r#""blocks":3"#, r#""blocks":8"#);
    let mut s = format!("{header}\n");
    let mut run = 0;
    for b in 0..8u32 {
        let order = if b % 2 == 0 {
            ["A", "B", "B", "A"]
        } else {
            ["B", "A", "A", "B"]
        };
        let mut cells: Vec<(&str, bool)> = order.iter().map(|v| (*v, false)).collect();
        cells.insert((b % 5) as usize, ("reference", true));
        for (p, (v, is_ref)) in cells.iter().enumerate() {
            let wall = match *v {
                "A" => 1000 + u64::from(b),
                "B" => 1100 + u64::from(b),
                _ => 500 + 3 * u64::from(b),
            };
            s.push_str(&format!(
                r#"{{"run":{run},"block":{b},"position":{p},"variant":"{v}","is_reference":{is_ref},"wall_ns":{wall},"user_ns":1,"sys_ns":1,"max_rss_kib":10,"exit_code":0,"timed_out":false,"env_pad":3,"metric":null}}"#
            ));
            s.push('\n');
            run += 1;
        }
    }
    let data = read_raw_bytes("old.jsonl", s.as_bytes()).unwrap();
    let loaded = data.to_dataset();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert!(loaded.dataset.reference_beside.is_empty());
    assert_eq!(loaded.dataset.reference.as_ref().map(Vec::len), Some(8));
    let config = bench_stats::AnalysisConfig {
        resamples: 200,
        ..bench_stats::AnalysisConfig::default()
    };
    let a = bench_stats::analyze(&loaded.dataset, &config).unwrap();
    let r = a.groups[0].comparisons[0].reference.as_ref().unwrap();
    assert_eq!(
        r.placement,
        Some(bench_stats::model::ReferencePlacement::OncePerBlock)
    );
    assert_eq!(r.reference_own_cv, None);
    assert_eq!(r.reference_block_values.len(), 8);
}

/// The named values of one generated header and end line, as text.
#[derive(Debug, Clone)]
struct Names {
    design: &'static str,
    metric: String,
    layout: String,
    shell: Option<&'static str>,
    reference: bool,
    placement: bool,
    counter: Option<&'static str>,
    stop_rule: Option<(&'static str, f64, u32)>,
    cycles: u32,
    suite_metric: Option<String>,
    status: &'static str,
    sequence: Option<(&'static str, Vec<&'static str>)>,
}

fn names() -> impl Strategy<Value = Names> {
    let metric = prop_oneof![
        prop::sample::select(vec![
            "wall",
            "user",
            "sys",
            "cpu",
            "max-rss",
            "instructions",
            "cycles",
            "branches",
            "branch-misses",
            "cache-misses",
        ])
        .prop_map(str::to_owned),
        "[a-z_]{1,8}".prop_map(|f| format!("json:{f}")),
    ];
    let layout = prop_oneof![
        Just("random".to_owned()),
        (0usize..5000).prop_map(|n| format!("fixed:{n}")),
    ];
    let decisions = prop::collection::vec(
        prop::sample::select(vec!["larger", "smaller", "equivalent", "undecided"]),
        0..4,
    );
    (
        (
            prop::sample::select(vec!["abba", "random", "sequential"]),
            metric.clone(),
            layout,
            prop::option::of(prop::sample::select(vec!["none", "sh"])),
            any::<(bool, bool)>(),
            prop::option::of(prop::sample::select(vec!["pmu", "valgrind"])),
        ),
        (
            prop::option::of((
                prop::sample::select(vec!["sign-median", "asymptotic-mean"]),
                prop::sample::select(vec![0.05, 0.01, 0.001]),
                1u32..50,
            )),
            1u32..4,
            prop::option::of(prop::option::of(metric)),
            prop::sample::select(vec!["complete", "failed", "interrupted", "killed"]),
            prop::option::of((
                prop::sample::select(vec!["decided", "max-blocks", "not-finished"]),
                decisions,
            )),
        ),
    )
        .prop_map(
            |(
                (design, metric, layout, shell, (reference, placement), counter),
                (stop_rule, cycles, suite, status, sequence),
            )| Names {
                design,
                metric,
                layout,
                shell,
                reference,
                placement,
                counter,
                stop_rule,
                cycles,
                suite_metric: suite.map(Option::unwrap_or_default),
                status,
                sequence,
            },
        )
}

impl Names {
    /// The header line as abba's writer lays it out: every field in the order it writes
    /// them, the optional ones left out as it leaves them out.
    fn header(&self) -> String {
        let host = r#"{"cpu_model":null,"cores":2,"kernel":"6.1","governor":null,"turbo":null,"aslr":2,"load_start":[0.5,0.25,1.0],"load_end":null,"env_bytes":10,"argv_bytes":5,"start_time":"2026-01-01T00:00:00Z"}"#;
        let reference = if self.reference { r#""ref""# } else { "null" };
        let shell = self.shell.map_or("null".to_owned(), |s| format!("{s:?}"));
        let mut s = format!(
            r#"{{"schema":"abba.raw/1","abba_version":"0.1.0","design":"{}","seed":7,"blocks":60,"variants":[{{"name":"A","command":"a"}},{{"name":"B","command":"b"}}],"reference":{reference},"metric":"{}","unit":"ns","higher_is_better":false,"layout":"{}","pin":null,"warmup":1,"settle_ns":0,"shell":{shell},"timeout_ns":null,"host":{host}"#,
            self.design, self.metric, self.layout
        );
        if self.cycles != 1 {
            s.push_str(&format!(r#","cycles":{}"#, self.cycles));
        }
        if self.placement {
            s.push_str(r#","reference_placement":"beside-each-run""#);
        }
        if let Some((method, alpha, min)) = self.stop_rule {
            s.push_str(&format!(
                r#","stop_rule":{{"rule":"until-decided","method":"{method}","alpha":{alpha},"margin":0.01,"min_blocks":{min},"max_blocks":60}}"#
            ));
        }
        if let Some(m) = &self.suite_metric {
            let metric = if m.is_empty() {
                String::new()
            } else {
                format!(r#","metric":"{m}""#)
            };
            s.push_str(&format!(
                r#","suite":[{{"name":"s","variants":["A","B"]{metric}}}]"#
            ));
        }
        if let Some(c) = self.counter {
            s.push_str(&format!(r#","counter":"{c}""#));
        }
        s.push('}');
        s
    }

    /// The end line as the writer lays it out.
    fn end(&self) -> String {
        let sequence = match &self.sequence {
            None => String::new(),
            Some((stop, looks)) => {
                let looks: Vec<String> = looks
                    .iter()
                    .enumerate()
                    .map(|(i, d)| {
                        format!(
                            r#"{{"blocks":{},"low":null,"high":1.5,"decision":"{d}"}}"#,
                            i + 1
                        )
                    })
                    .collect();
                format!(
                    r#","sequence":{{"stop":"{stop}","decided_at":null,"looks":[{}]}}"#,
                    looks.join(",")
                )
            }
        };
        format!(
            r#"{{"end":{{"status":"{}","load_end":[1.0,0.5,0.25],"end_time":"2026-01-01T00:01:00Z"{sequence}}}}}"#,
            self.status
        )
    }
}

/// FNV-1a 64 over NUL-ended fields, computed here from the texts themselves.
fn fnv_of(fields: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in fields {
        for &b in f.as_bytes().iter().chain(&[0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("auto-{h:016x}")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every header and end line abba writes reads back into its types and writes out as
    /// exactly the same bytes, and the derived experiment id hashes the same texts.
    #[test]
    fn header_and_end_lines_round_trip_byte_for_byte(n in names()) {
        let (header, end) = (n.header(), n.end());
        let file = format!("{header}\n{end}\n");
        let data = read_raw_bytes("r.jsonl", file.as_bytes())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{file}")))?;
        prop_assert_eq!(serde_json::to_string(&data.header).unwrap(), header);
        let end_again = format!(r#"{{"end":{}}}"#, serde_json::to_string(&data.end).unwrap());
        prop_assert_eq!(end_again, end);
        let cycles = format!("cycles={}", n.cycles);
        let mut fields = vec![n.design, n.metric.as_str()];
        if n.cycles > 1 {
            fields.push(&cycles);
        }
        fields.extend(["A", "a", "B", "b"]);
        prop_assert_eq!(data.header.experiment_id(), fnv_of(&fields));
    }

    /// A named value abba does not know is refused when the file is read, naming the file
    /// and the line that holds it: never read as a default.
    #[test]
    fn an_unknown_name_is_refused_at_its_line(n in names(), pick in 0usize..8) {
        let (mut header, mut end) = (n.header(), n.end());
        let swap = |text: &mut String, from: &str, to: &str| {
            let was = text.clone();
            *text = text.replacen(from, to, 1);
            was != *text
        };
        let (changed, line) = match pick {
            0 => (swap(&mut header, &format!(r#""design":"{}""#, n.design), r#""design":"counterbalanced""#), 1),
            1 => (swap(&mut header, &format!(r#""metric":"{}""#, n.metric), r#""metric":"speed""#), 1),
            2 => (swap(&mut header, &format!(r#""layout":"{}""#, n.layout), r#""layout":"fixed:x""#), 1),
            3 => (swap(&mut header, r#""shell":"#, r#""shell":"bash","was":"#), 1),
            4 if n.placement => (swap(&mut header, "beside-each-run", "once"), 1),
            4 => (swap(&mut header, r#""schema""#, r#""reference_placement":"once","schema""#), 1),
            5 => (swap(&mut header, r#""method":""#, r#""method":"x"#), 1),
            6 => (swap(&mut end, &format!(r#""status":"{}""#, n.status), r#""status":"done""#), 2),
            _ => (swap(&mut end, r#""decision":""#, r#""decision":"maybe"#), 2),
        };
        prop_assume!(changed);
        let file = format!("{header}\n{end}\n");
        match read_raw_bytes("r.jsonl", file.as_bytes()) {
            Ok(_) => prop_assert!(false, "read an unknown name: {}", file),
            Err(e) => {
                prop_assert!(
                    matches!(&e, InputError::Invalid { file, line: Some(l), .. } if file == "r.jsonl" && *l == line),
                    "{:?}", e
                );
                prop_assert!(e.to_string().contains("unknown"), "{}", e);
            }
        }
    }
}

/// The raw files committed as test data read and write back line for line: the header
/// and end lines through their types, unchanged to the byte.
#[test]
fn committed_raw_files_write_back_byte_for_byte() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-cli/tests/data");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let data = read_raw(&path).unwrap();
        let first = text.lines().next().unwrap();
        assert_eq!(
            serde_json::to_string(&data.header).unwrap(),
            first,
            "{path:?}"
        );
        if let Some(end) = &data.end {
            let line = format!(r#"{{"end":{}}}"#, serde_json::to_string(end).unwrap());
            assert!(text.lines().any(|l| l == line), "{path:?}: {line}");
        }
        checked += 1;
    }
    assert!(checked >= 4, "{checked} files under {dir:?}");
}
