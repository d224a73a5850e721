//! The history documents (`abba history show`, `list`, `export`) of one hand-written
//! series, pinned whole: a level change at the third commit, a paired step across it,
//! a step from an earlier commit, and the chain of steps to the newest commit.

use bench_report::{
    HistoryOverview, ListedBenchmark, render_gate, render_history_bmf, render_history_check,
    render_history_csv, render_history_json, render_history_list, render_history_series,
};
use bench_stats::history::{
    Chain, ChainSpan, ChangePoint, Commit, Level, PairedStep, Point, Series, SeriesBenchmark,
    SeriesMachine,
};

fn commit(k: usize, subject: &str) -> Commit {
    Commit {
        sha: format!("{k:02}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        parent: (k > 1).then(|| format!("{:02}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", k - 1)),
        time: Some(1_780_000_000 + k as i64 * 60),
        subject: Some(subject.to_owned()),
    }
}

fn level(median: f64) -> Option<Level> {
    Some(Level {
        median,
        low: median * 0.99,
        high: median * 1.01,
        n: 20,
        experiments: 1,
    })
}

fn step(from: usize, ratio: f64, outcome: &str) -> Option<PairedStep> {
    Some(PairedStep {
        from,
        ratio,
        low: ratio - 0.01,
        high: ratio + 0.01,
        confidence: 0.95,
        outcome: outcome.into(),
        verdict: "significant".into(),
        p_value: Some(0.004),
        estimator: "paired-bootstrap:typical-run".into(),
    })
}

fn series() -> Series {
    Series {
        benchmark: SeriesBenchmark {
            name: "parse".into(),
            metric: "wall".into(),
            unit: "ns".into(),
            higher_is_better: false,
            command: Some("./parse input, with a comma".into()),
        },
        machine: SeriesMachine {
            fingerprint: "b60115a9178e0c1a".into(),
            name: "ci-3".into(),
            cpu_model: Some("Xeon".into()),
            cores: Some(2),
            kernel: Some("6.1".into()),
        },
        points: vec![
            Point {
                commit: commit(1, "start"),
                level: level(10_000_000.0),
                step: None,
            },
            Point {
                commit: commit(2, "a subject much longer than thirty-two characters"),
                level: level(10_010_000.0),
                step: step(0, 1.001, "inconclusive"),
            },
            Point {
                commit: commit(3, "slower \"parse\""),
                level: level(10_500_000.0),
                step: step(1, 1.049, "slower"),
            },
            Point {
                commit: commit(4, "cleanup"),
                level: None,
                step: step(1, 1.05, "slower"),
            },
        ],
        change_points: vec![ChangePoint {
            index: 2,
            p_value: 0.005,
            before: 10_005_000.0,
            after: 10_500_000.0,
            ratio: 1.0495,
            statistic: 3.5,
        }],
        chain: Some(ChainSpan {
            from: 0,
            to: 3,
            steps: vec![1, 3],
            chain: Chain {
                ratio: 1.051,
                interval: [1.04, 1.062],
                largest_steps: vec![1],
                log_ratio: 1.051f64.ln(),
                std_error: 0.005,
            },
        }),
    }
}

fn snap(name: &str, text: String) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    let name = format!("history__{name}");
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn the_series_table_marks_the_change_and_names_the_chain() {
    snap("series_table", render_history_series(&series()));
}

#[test]
fn a_chain_that_trips_the_gate_is_said_in_the_one_gates_words() {
    let s = series();
    // The chain [1.04, 1.062] excludes no change and reaches 3%: it trips the gate.
    let check = bench_stats::history::check_series(&s, 10, Some(0.03));
    let gate = &check
        .chain
        .as_ref()
        .expect("a chain under a threshold")
        .gate;
    assert!(gate.tripped() && gate.timed && gate.counted.is_none());
    let text = render_history_check(&[(&s, check.clone())], 10);
    let line = "parse (wall) on ci-3: #4 04aaaaaaaa is significantly slower than #1 01aaaaaaaa in its chain of 2 paired steps and may be 3.00% slower or more (ratio 1.0510, interval [1.0400, 1.0620])";
    assert!(text.lines().any(|l| l == line), "{text}");
    // The same words as compare's and suite's gates: render_gate's, under the series' label.
    let mut labelled = gate.clone();
    labelled.benchmark = Some("parse (wall) on ci-3".into());
    assert_eq!(render_gate(&labelled), vec![line.to_owned()]);
    assert!(
        text.ends_with("abba history check: 1 series, 2 failing\n"),
        "{text}"
    );
    // Within 10%: not tripped, said with its interval.
    let within = bench_stats::history::check_series(&s, 10, Some(0.10));
    assert!(!within.chain.as_ref().unwrap().gate.tripped());
    let text = render_history_check(&[(&s, within)], 10);
    assert!(text.contains("within --fail-if-slower +10.00%"), "{text}");
}

#[test]
fn csv_json_and_bmf_of_one_series() {
    let s = [series()];
    snap("csv", render_history_csv(&s));
    snap("json", render_history_json(&s));
    snap("bmf", render_history_bmf(&s));
}

#[test]
fn the_list_counts_commits_and_machines() {
    let s = series();
    let overview = HistoryOverview {
        store: ".abba/history.db".into(),
        experiments: 4,
        runs: 160,
        machines: vec![s.machine.clone()],
        benchmarks: vec![ListedBenchmark {
            benchmark: s.benchmark,
            commits: 4,
            machines: 1,
        }],
    };
    snap("list", render_history_list(&overview));
}

#[cfg(feature = "html")]
#[test]
fn the_page_holds_each_series_table_escaped() {
    let page = bench_report::render_history_page(&[series()]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<h2>parse on ci-3</h2>"));
    assert!(page.contains("slower &quot;parse&quot;"));
    assert!(!page.contains("<script"));
}
