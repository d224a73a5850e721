//! The measuring action end to end: the suite between the two worktrees, the outputs,
//! the summary and the comment body, the cache reused by a second run, the comment modes
//! and bad inputs, and the release asset checked by its sha256.

use super::*;

/// The whole action on a pull request whose head is 10% slower in one benchmark: the
/// builds in two worktrees, the suite, the job summary, the outputs, the comment body
/// and its pull-request number and head; then a second run on the same tool cache (the
/// cache restored) installs nothing.
#[test]
fn action_runs_the_suite_between_base_and_head_and_a_second_run_reuses_the_binary() {
    let m = Machine::new(110);
    let mut first = m
        .runner("action.yml", m.event())
        .input("build", BUILD)
        .input("fail-if-slower", "2%")
        .input("args", "--seed 3");
    let ran = first.run(None);
    let names: Vec<&str> = ran.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "abba install key",
            "abba install",
            "abba build base and head",
            "abba suite",
            "abba verdict"
        ],
        "{ran:#?}"
    );
    for s in &ran[..4] {
        assert_eq!(s.code, 0, "{s:#?}");
    }
    // The gate tripped: the last step fails the job, after the artifact's upload.
    assert_eq!(ran[4].code, 1, "{:#?}", ran[4]);
    let dir = first.outputs["key"]["dir"].clone();
    assert!(
        dir.starts_with(&m.path("tool-cache").display().to_string()),
        "{dir}"
    );
    assert_eq!(
        m.cargo_log(),
        [format!(
            "install --locked --path {}/crates/bench-cli --root {dir}",
            root().display()
        )]
    );
    assert_eq!(first.outputs["install"]["how"], "built");
    assert_eq!(first.outputs["build"]["base-sha"], m.base);
    assert_eq!(first.outputs["build"]["head-sha"], m.head);
    assert_eq!(first.output("outcome"), "slower");
    assert_eq!(first.output("changed"), "changed");
    let out = m.repo.join("abba-out");
    assert_eq!(first.output("report"), "abba-out/report.md");
    assert_eq!(first.output("comment"), "abba-out/comment.md");
    let report = read(&out.join("report.md"));
    assert!(report.contains("| changed |"), "{report}");
    let summary = read(&m.path("summary.md"));
    assert!(
        summary.contains("MORE") && !summary.contains("SLOWER") && summary.contains("same"),
        "{summary}"
    );
    let body = read(&out.join("comment.md"));
    assert_eq!(body.lines().next(), Some("<!-- abba:abba -->"));
    // The suite decides on a JSON field, not a time: MORE, never SLOWER.
    assert!(body.contains("**MORE**"), "{body}");
    assert_eq!(read(&out.join("pr-number")), "7\n");
    assert_eq!(read(&out.join("head-sha")), format!("{}\n", m.head));
    assert_eq!(read(&out.join("create-comment")), "yes\n");
    let json: Value = serde_json::from_str(&read(&out.join("suite.json"))).unwrap();
    assert_eq!(json["counts"]["slower"], 1);
    // Both builds came from their own commits' worktrees.
    assert!(read(&m.path("abba-base/out/prog")).contains("b=100;"));
    assert!(read(&m.path("abba-head/out/prog")).contains("b=110;"));

    let mut second = m
        .runner("action.yml", m.event())
        .input("build", BUILD)
        .input("args", "--seed 4");
    let ran = second.run(None);
    assert!(ran.iter().all(|s| s.code == 0), "{ran:#?}");
    assert_eq!(second.outputs["key"]["dir"], dir, "the same cache key");
    assert_eq!(second.outputs["install"]["how"], "cached");
    assert_eq!(m.cargo_log().len(), 1, "the second run compiled nothing");
    assert_eq!(second.output("outcome"), "pass", "no gate this time");
    assert!(step(&ran, "abba install").log.contains("(cached)"));
}

/// `comment: on-change` writes the body but asks for no new comment when nothing
/// changed (an existing one is still updated); `never` writes none; a bad mode or
/// comment id stops the step before abba runs.
#[test]
fn action_comment_modes_and_bad_inputs() {
    let m = Machine::new(100);
    let mut r = m
        .runner("action.yml", m.event())
        .input("build", BUILD)
        .input("comment", "on-change");
    let ran = r.run(None);
    assert!(ran.iter().all(|s| s.code == 0), "{ran:#?}");
    assert_eq!(r.output("changed"), "");
    let out = m.repo.join("abba-out");
    assert_eq!(read(&out.join("create-comment")), "no\n");
    assert!(out.join("comment.md").is_file());

    let mut r = m
        .runner("action.yml", m.event())
        .input("build", BUILD)
        .input("comment", "never");
    let ran = r.run(None);
    assert!(ran.iter().all(|s| s.code == 0), "{ran:#?}");
    assert_eq!(r.output("comment"), "");
    assert!(!out.join("comment.md").exists() && !out.join("pr-number").exists());

    for (input, value, says) in [
        (
            "comment",
            "sometimes",
            "comment must be never, on-change or always",
        ),
        ("comment-id", "a b", "comment-id may hold"),
        ("install", "brew", "install must be auto or cargo"),
    ] {
        let mut r = m.runner("action.yml", m.event()).input(input, value);
        let ran = r.run(None);
        let last = ran.last().unwrap();
        assert_eq!(last.code, 1, "{input}={value}: {ran:#?}");
        assert!(last.log.contains(says), "{input}={value}: {}", last.log);
    }

    // The metric input reaches `abba suite --metric`: a metric abba does not know is its
    // error, named by the flag, and the job fails.
    let mut r = m
        .runner("action.yml", m.event())
        .input("build", BUILD)
        .input("metric", "no-such-metric");
    let ran = r.run(None);
    assert!(
        ran.iter().any(|s| s
            .log
            .contains("--metric: unknown metric \"no-such-metric\"")),
        "{ran:#?}"
    );
    assert_ne!(ran.last().unwrap().code, 0, "{ran:#?}");

    // The time-budget input reaches `abba suite --time-budget`: a budget of nothing is
    // abba's own error, named by the flag, and the job fails.
    let mut r = m
        .runner("action.yml", m.event())
        .input("build", BUILD)
        .input("time-budget", "0s");
    let ran = r.run(None);
    assert!(
        ran.iter()
            .any(|s| s.log.contains("--time-budget must be longer than 0")),
        "{ran:#?}"
    );
    assert_ne!(ran.last().unwrap().code, 0, "{ran:#?}");
}

/// A release asset as `cargo xtask dist` lays it out (`abba-TARGET.tar.gz` holding
/// `abba`, and `NAME.sha256`) under a `file://` URL standing for the release's: the
/// action installs it when its sha256 matches (no cargo), and refuses it when it does
/// not; without an asset it builds.
#[test]
fn action_installs_a_release_asset_only_when_its_sha256_matches() {
    let m = Machine::new(110);
    let release = m.path("release");
    std::fs::create_dir_all(&release).unwrap();
    // A stand-in for the binary (abba's debug build is over 100 MB to pack): the
    // install step runs `abba --version`.
    let stand_in = "#!/bin/sh\necho 'abba 0.1.0 (release asset)'\n";
    write_exe(&release.join("abba"), stand_in);
    let name = "abba-x86_64-unknown-linux-gnu.tar.gz";
    let tar = Command::new("tar")
        .args(["-czf", name, "abba"])
        .current_dir(&release)
        .status()
        .unwrap();
    assert!(tar.success());
    let sum = Command::new("sha256sum")
        .arg(name)
        .current_dir(&release)
        .output()
        .unwrap();
    let good = String::from_utf8(sum.stdout).unwrap();
    let url = format!("file://{}", release.display());

    let install = |checksum: &str| {
        let _ = std::fs::remove_dir_all(m.path("tool-cache"));
        std::fs::write(release.join(format!("{name}.sha256")), checksum).unwrap();
        let mut r = m.runner("action.yml", m.event());
        r.env.insert("ABBA_RELEASE_URL".to_owned(), url.clone());
        let ran = r.run(Some("abba install"));
        (r, ran)
    };
    let (r, ran) = install(&good);
    assert!(ran.iter().all(|s| s.code == 0), "{ran:#?}");
    assert_eq!(r.outputs["install"]["how"], "prebuilt");
    assert!(m.cargo_log().is_empty(), "nothing built");
    let bin = PathBuf::from(&r.outputs["install"]["abba"]);
    assert_eq!(read(&bin), stand_in);
    assert!(ran.last().unwrap().log.contains("(release asset)"));

    let bad = format!("{}{}", "0".repeat(64), &good[64..]);
    let (r, ran) = install(&bad);
    let last = ran.last().unwrap();
    assert_eq!(last.code, 1, "{ran:#?}");
    assert!(last.log.contains("the release says"), "{}", last.log);
    assert!(
        !Path::new(&r.outputs["key"]["dir"])
            .join("bin/abba")
            .exists()
    );
    assert!(m.cargo_log().is_empty());

    std::fs::remove_file(release.join(name)).unwrap();
    let (r, ran) = install(&good);
    assert!(ran.iter().all(|s| s.code == 0), "{ran:#?}");
    assert_eq!(r.outputs["install"]["how"], "built");
    assert_eq!(m.cargo_log().len(), 1);
}
