//! The history's faults, through the binary: no export, raw file or history output ever
//! replaces the history database (any spelling of its path, the default one included),
//! and `--record`'s commit and history are checked before anything runs; each refused
//! command leaves the database byte for byte and runs no benchmark (every run of a
//! benchmark appends to a marker file).

use std::path::{Path, PathBuf};

use super::support::{abba_in as abba, refused_in, run, text};

/// A directory with `bench.sh` (each run appends a line to `ran.log`), `abba.toml` (a suite
/// of one benchmark running it), an empty directory `sub` and `hh.db`, a history holding
/// one experiment at `v1`.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let sh = dir.path().join("bench.sh");
        let log = dir.path().join("ran.log");
        std::fs::write(&sh, format!("#!/bin/sh\necho x >> '{}'\n", log.display())).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&sh, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(
            dir.path().join("abba.toml"),
            format!(
                "[variants]\nbase = \"a\"\nhead = \"b\"\n\n[settings]\nblocks = 2\nwarmup = 0\n\n[[benchmark]]\nname = \"m\"\ncommand = \"{} {{variant}}\"\n",
                sh.display()
            ),
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let s = Setup { dir };
        let out = run(
            s.path(),
            &[
                "compare",
                "-q",
                "--blocks",
                "2",
                "--record",
                "--commit",
                "v1",
                "--history",
                "hh.db",
                "true",
                "true",
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        s
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn db(&self) -> PathBuf {
        self.path().join("hh.db")
    }

    fn bench(&self) -> String {
        self.path().join("bench.sh").display().to_string()
    }

    /// How many benchmark runs happened.
    fn runs(&self) -> usize {
        std::fs::read_to_string(self.path().join("ran.log")).map_or(0, |t| t.lines().count())
    }

    /// Runs `args`, expects exit 2 with every one of `says` in stderr, no benchmark run,
    /// and `kept` byte for byte as it was.
    fn refused(&self, args: &[&str], says: &[&str], kept: &Path) {
        let before = std::fs::read(kept).unwrap();
        let err = refused_in(self.path(), args, 2, says[0]);
        for s in &says[1..] {
            assert!(err.contains(s), "{args:?}: {s:?} not in: {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(self.runs(), 0, "{args:?}: a benchmark ran");
        assert_eq!(
            std::fs::read(kept).unwrap(),
            before,
            "{args:?}: {} changed",
            kept.display()
        );
    }
}

/// Every spelling of `hh.db` in `dir`: relative, dotted, through `..`, absolute, a hard
/// link and a symbolic link.
fn spellings(dir: &Path) -> Vec<String> {
    std::fs::hard_link(dir.join("hh.db"), dir.join("hard.db")).unwrap();
    std::os::unix::fs::symlink(dir.join("hh.db"), dir.join("soft.db")).unwrap();
    vec![
        "hh.db".into(),
        "./hh.db".into(),
        "sub/../hh.db".into(),
        dir.join("hh.db").display().to_string(),
        "hard.db".into(),
        "soft.db".into(),
    ]
}

#[test]
fn h1_compare_export_into_the_history_is_refused_before_any_run() {
    let s = Setup::new();
    let bench = s.bench();
    for spelling in spellings(s.path()) {
        for flag in [
            "--export-json",
            "--export-markdown",
            "--export-html",
            "--export-csv",
            "--export-csv-summary",
        ] {
            s.refused(
                &[
                    "compare",
                    "-q",
                    "--blocks",
                    "2",
                    "--record",
                    "--commit",
                    "v5",
                    "--history",
                    "hh.db",
                    flag,
                    &spelling,
                    &bench,
                    &bench,
                ],
                &[&format!("{flag} {spelling} is the same file as --history")],
                &s.db(),
            );
        }
    }
    // The raw runs may not replace it either, even with --force.
    s.refused(
        &[
            "compare",
            "-q",
            "--blocks",
            "2",
            "--record",
            "--commit",
            "v5",
            "--history",
            "hh.db",
            "--force",
            "--output",
            "./hh.db",
            &bench,
            &bench,
        ],
        &["--output ./hh.db is the same file as --history hh.db"],
        &s.db(),
    );
}

#[test]
fn h1_analyze_and_suite_export_into_the_history_is_refused_before_any_run() {
    let s = Setup::new();
    let raw = s.path().join("raw.jsonl");
    let out = run(
        s.path(),
        &[
            "compare",
            "-q",
            "--blocks",
            "2",
            "-o",
            "raw.jsonl",
            "true",
            "true",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    s.refused(
        &[
            "analyze",
            "raw.jsonl",
            "--record",
            "--commit",
            "v5",
            "--history",
            "hh.db",
            "--export-markdown",
            "./hh.db",
        ],
        &["--export-markdown ./hh.db is the same file as --history hh.db"],
        &s.db(),
    );
    assert!(raw.exists());
    for flag in ["--export-json", "--export-markdown", "--export-bmf"] {
        s.refused(
            &[
                "suite",
                "-q",
                "--record",
                "--commit",
                "v5",
                "--history",
                "hh.db",
                flag,
                "sub/../hh.db",
                "abba.toml",
            ],
            &[&format!(
                "{flag} sub/../hh.db is the same file as --history hh.db"
            )],
            &s.db(),
        );
    }
    s.refused(
        &[
            "suite",
            "-q",
            "--record",
            "--commit",
            "v5",
            "--history",
            "hh.db",
            "--force",
            "--output",
            "hh.db",
            "abba.toml",
        ],
        &["--output hh.db is the same file as --history hh.db"],
        &s.db(),
    );
}

#[test]
fn h1_the_default_history_is_kept_from_an_export_too() {
    let s = Setup::new();
    let bench = s.bench();
    // Outside git the default history is .abba/history.db in the current directory.
    let out = run(
        s.path(),
        &[
            "compare", "-q", "--blocks", "2", "--record", "--commit", "v1", "true", "true",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let default = s.path().join(".abba/history.db");
    assert!(default.exists());
    s.refused(
        &[
            "compare",
            "-q",
            "--blocks",
            "2",
            "--record",
            "--commit",
            "v2",
            "--export-json",
            ".abba/history.db",
            &bench,
            &bench,
        ],
        &["--export-json .abba/history.db is the same file as the history of --record"],
        &default,
    );
    // $ABBA_HISTORY names it as well.
    let before = std::fs::read(s.db()).unwrap();
    let out = abba(s.path())
        .env("ABBA_HISTORY", "hh.db")
        .args([
            "suite",
            "-q",
            "--record",
            "--commit",
            "v2",
            "--export-json",
            "./hh.db",
            "abba.toml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is the same file as the history of --record"));
    assert_eq!(std::fs::read(s.db()).unwrap(), before);
    assert_eq!(s.runs(), 0);
}

#[test]
fn h2_history_outputs_never_replace_the_history() {
    let s = Setup::new();
    for spelling in spellings(s.path()) {
        for format in ["csv", "json", "bmf"] {
            s.refused(
                &[
                    "history",
                    "export",
                    "--history",
                    "hh.db",
                    "--format",
                    format,
                    "--output",
                    &spelling,
                ],
                &[&format!(
                    "--output {spelling} is the same file as --history hh.db"
                )],
                &s.db(),
            );
        }
        s.refused(
            &[
                "history",
                "show",
                "true",
                "--history",
                "hh.db",
                "--export-html",
                &spelling,
            ],
            &[&format!(
                "--export-html {spelling} is the same file as --history hh.db"
            )],
            &s.db(),
        );
    }
    // The default history too.
    let out = run(
        s.path(),
        &[
            "compare", "-q", "--blocks", "2", "--record", "--commit", "v1", "true", "true",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    s.refused(
        &["history", "export", "-o", "./.abba/history.db"],
        &["--output ./.abba/history.db is the same file as the history"],
        &s.path().join(".abba/history.db"),
    );
    // Another file is still written.
    let out = run(
        s.path(),
        &[
            "history",
            "export",
            "--history",
            "hh.db",
            "--output",
            "h.csv",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        std::fs::read_to_string(s.path().join("h.csv"))
            .unwrap()
            .starts_with("benchmark,")
    );
}

#[test]
fn h3_record_without_a_commit_outside_git_is_refused_before_any_run() {
    let s = Setup::new();
    let bench = s.bench();
    let db = s.db();
    let says = ["--record: no git commit here", "give --commit"];
    s.refused(
        &[
            "compare",
            "-q",
            "--blocks",
            "2",
            "--record",
            "--history",
            "hh.db",
            &bench,
            &bench,
        ],
        &says,
        &db,
    );
    s.refused(
        &["suite", "-q", "--record", "--history", "hh.db", "abba.toml"],
        &says,
        &db,
    );
    // No history is created either.
    s.refused(
        &[
            "compare", "-q", "--blocks", "2", "--record", "-o", "r.jsonl", &bench, &bench,
        ],
        &says,
        &db,
    );
    assert!(!s.path().join(".abba").exists());
    assert!(!s.path().join("r.jsonl").exists(), "a raw file was created");
    let out = run(
        s.path(),
        &[
            "compare",
            "-q",
            "--blocks",
            "2",
            "-o",
            "raw.jsonl",
            "true",
            "true",
        ],
    );
    assert!(out.status.success());
    let out = run(
        s.path(),
        &[
            "analyze",
            "raw.jsonl",
            "--record",
            "--export-json",
            "a.json",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(says[0]), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "a report was printed");
    assert!(!s.path().join("a.json").exists(), "an export was written");
}

#[test]
fn h3_a_history_that_is_not_abba_s_is_refused_before_any_run() {
    let s = Setup::new();
    let bench = s.bench();
    let notes = s.path().join("notes.db");
    std::fs::write(&notes, "my notes, not a database\n".repeat(40)).unwrap();
    let foreign = s.path().join("foreign.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .unwrap();
    }
    let out = run(
        s.path(),
        &[
            "compare",
            "-q",
            "--blocks",
            "2",
            "-o",
            "raw.jsonl",
            "true",
            "true",
        ],
    );
    assert!(out.status.success());
    for (file, why) in [
        (&notes, "not an SQLite database"),
        (&foreign, "another program"),
    ] {
        let name = file.file_name().unwrap().to_str().unwrap();
        let says = [format!("--history {name}: "), why.to_owned()];
        let says: Vec<&str> = says.iter().map(String::as_str).collect();
        s.refused(
            &[
                "compare",
                "-q",
                "--blocks",
                "2",
                "--record",
                "--commit",
                "v2",
                "--history",
                name,
                "-o",
                "r.jsonl",
                &bench,
                &bench,
            ],
            &says,
            file,
        );
        assert!(!s.path().join("r.jsonl").exists(), "a raw file was created");
        s.refused(
            &[
                "suite",
                "-q",
                "--record",
                "--commit",
                "v2",
                "--history",
                name,
                "abba.toml",
            ],
            &says,
            file,
        );
        let out = run(
            s.path(),
            &[
                "analyze",
                "raw.jsonl",
                "--record",
                "--commit",
                "v2",
                "--history",
                name,
                "--export-json",
                "a.json",
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(says[0]), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "a report was printed");
        assert!(!s.path().join("a.json").exists(), "an export was written");
    }
}

#[test]
fn h3_a_directory_is_no_history_file() {
    let s = Setup::new();
    let bench = s.bench();
    s.refused(
        &[
            "compare",
            "-q",
            "--blocks",
            "2",
            "--record",
            "--commit",
            "v2",
            "--history",
            "sub",
            &bench,
            &bench,
        ],
        &["--history sub: is a directory"],
        &s.db(),
    );
}

#[test]
fn h4_history_import_without_a_commit_names_its_own_flag() {
    let s = Setup::new();
    let out = run(
        s.path(),
        &[
            "compare",
            "-q",
            "--blocks",
            "2",
            "-o",
            "raw.jsonl",
            "true",
            "true",
        ],
    );
    assert!(out.status.success());
    let before = std::fs::read(s.db()).unwrap();
    let import = ["history", "import", "--history", "hh.db", "raw.jsonl"];
    let err = refused_in(s.path(), &import, 2, "history import: no git commit here");
    assert!(err.contains("give --commit"), "{err}");
    assert!(!err.contains("--record"), "{err}");
    assert_eq!(std::fs::read(s.db()).unwrap(), before);
}
