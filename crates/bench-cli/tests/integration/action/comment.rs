//! The comment from `workflow_run`: the comment action and the hand-written workflow
//! against a fake `gh` (create, update the one comment, hostile artifacts), and the
//! GitLab example's note step against a fake `curl`.

use super::*;

/// The GitHub API as the fake `gh` serves it: pull requests by number with their head,
/// the comments of #7, and the artifact (absent when `None`).
fn serve(m: &Machine, artifact: Option<&[(&str, &str)]>, pulls: &[(u32, &str)], comments: Value) {
    let gh = m.path("gh");
    let _ = std::fs::remove_dir_all(&gh);
    let _ = std::fs::remove_file(m.path("gh.log"));
    std::fs::create_dir_all(gh.join("pulls")).unwrap();
    for (n, sha) in pulls {
        let pr = json!({"number": n, "head": {"sha": sha}});
        std::fs::write(gh.join(format!("pulls/{n}.json")), pr.to_string()).unwrap();
    }
    std::fs::write(gh.join("comments.json"), comments.to_string()).unwrap();
    if let Some(files) = artifact {
        std::fs::create_dir_all(gh.join("artifact")).unwrap();
        for (name, text) in files {
            std::fs::write(gh.join("artifact").join(name), text).unwrap();
        }
    }
}

/// The `gh` calls after `run download`, and the body posted if any.
fn gh_calls(m: &Machine) -> (Vec<String>, Option<String>) {
    let log = std::fs::read_to_string(m.path("gh.log")).unwrap_or_default();
    let calls = log
        .lines()
        .filter(|l| !l.starts_with("run download"))
        .map(str::to_owned)
        .collect();
    (calls, std::fs::read_to_string(m.path("gh/posted.md")).ok())
}

fn workflow_run_event(m: &Machine) -> Value {
    json!({"workflow_run": {"id": 99, "head_sha": m.head, "event": "pull_request"}})
}

/// The comment action, and the comment step of the workflow written out by hand
/// (`examples/github-actions/abba-suite.yml`, second document), as runners.
fn comment_runners(m: &Machine) -> Vec<(&'static str, Runner)> {
    let text =
        std::fs::read_to_string(root().join("examples/github-actions/abba-suite.yml")).unwrap();
    let docs = YamlLoader::load_from_str(&text).unwrap();
    let steps = docs[1]["jobs"]["comment"]["steps"]
        .as_vec()
        .unwrap()
        .clone();
    vec![
        (
            "comment/action.yml",
            m.runner("comment/action.yml", workflow_run_event(m)),
        ),
        (
            "abba-suite.yml",
            m.runner_of(Yaml::Null, steps, "action.yml", workflow_run_event(m)),
        ),
    ]
}

fn body(marker: &str) -> String {
    format!("<!-- abba:{marker} -->\n## abba suite\n\nChanged: parse (SLOWER).\n")
}

/// A good artifact: the comment is created when there is none, and the bot's one comment
/// with the marker is updated (another user's comment with the same marker is left
/// alone), by the action and by the workflow written out by hand.
#[test]
fn comment_creates_then_updates_the_one_comment_found_by_its_marker() {
    let m = Machine::new(110);
    for (marker, runner) in [("abba", 0), ("suite", 1)] {
        let good = body(marker);
        let artifact: &[(&str, &str)] = &[
            ("comment.md", &good),
            ("pr-number", "7\n"),
            ("create-comment", "yes\n"),
        ];
        serve(&m, Some(artifact), &[(7, &m.head)], json!([]));
        let (what, mut r) = comment_runners(&m).remove(runner);
        let ran = r.run(None);
        assert!(ran.iter().all(|s| s.code == 0), "{what}: {ran:#?}");
        let (calls, posted) = gh_calls(&m);
        assert_eq!(
            calls.last().unwrap().split(' ').take(3).collect::<Vec<_>>(),
            ["api", "--method", "POST"],
            "{what}: {calls:?}"
        );
        assert!(
            calls
                .last()
                .unwrap()
                .contains("repos/owner/repo/issues/7/comments")
        );
        assert_eq!(posted.as_deref(), Some(good.as_str()), "{what}");

        let comments = json!([
            {"id": 41, "user": {"login": "someone"}, "body": format!("<!-- abba:{marker} --> mine")},
            {"id": 42, "user": {"login": "github-actions[bot]"}, "body": format!("<!-- abba:{marker} -->\nold")},
        ]);
        serve(&m, Some(artifact), &[(7, &m.head)], comments);
        let (what, mut r) = comment_runners(&m).remove(runner);
        let ran = r.run(None);
        assert!(ran.iter().all(|s| s.code == 0), "{what}: {ran:#?}");
        let (calls, posted) = gh_calls(&m);
        let last = calls.last().unwrap();
        assert!(
            last.starts_with("api --method PATCH repos/owner/repo/issues/comments/42 "),
            "{what}: {calls:?}"
        );
        assert_eq!(posted.as_deref(), Some(good.as_str()));
    }
    // on-change with nothing changed: an existing comment is updated, none created.
    let quiet = body("abba");
    let artifact: &[(&str, &str)] = &[
        ("comment.md", &quiet),
        ("pr-number", "7"),
        ("create-comment", "no"),
    ];
    serve(&m, Some(artifact), &[(7, &m.head)], json!([]));
    let mut r = m.runner("comment/action.yml", workflow_run_event(&m));
    let ran = r.run(None);
    assert!(ran.iter().all(|s| s.code == 0), "{ran:#?}");
    assert!(gh_calls(&m).1.is_none(), "nothing posted");
    assert!(ran[0].log.contains("none created"), "{}", ran[0].log);
}

/// Hostile artifacts (the measuring job ran the pull request's code, which may write
/// anything): a pull-request number that is not digits, one naming a pull request whose
/// head is not the measured commit, a body without the marker. None gets a comment, and
/// nothing from the artifact is run; a missing artifact (the measuring job failed early)
/// is no error.
#[test]
fn comment_refuses_hostile_artifacts() {
    let m = Machine::new(110);
    let other = "f".repeat(40);
    let good = body("abba");
    let injected = format!("7$(touch {})", m.path("pwned").display());
    let cases: [(&str, &str); 5] = [
        ("a command", &injected),
        ("a path", "../../8"),
        ("empty", ""),
        ("too long", "12345678901"),
        ("another PR", "8"),
    ];
    for (what, number) in cases {
        for (runner, (who, mut r)) in comment_runners(&m).into_iter().enumerate() {
            // The workflow written out by hand looks for `<!-- abba:suite -->`.
            let text = if runner == 0 {
                good.as_str()
            } else {
                "<!-- abba:suite -->\nbody\n"
            };
            let files = [
                ("comment.md", text),
                ("pr-number", number),
                ("create-comment", "yes"),
            ];
            serve(&m, Some(&files), &[(7, &m.head), (8, &other)], json!([]));
            let ran = r.run(None);
            let (calls, posted) = gh_calls(&m);
            assert!(posted.is_none(), "{who}, {what}: posted; {calls:?}");
            assert!(
                calls
                    .iter()
                    .all(|c| !c.contains("POST") && !c.contains("PATCH")),
                "{who}, {what}: {calls:?}"
            );
            if what == "another PR" {
                // Not an attack by itself (a later push moves the head): a warning.
                assert_eq!(
                    calls,
                    ["api repos/owner/repo/pulls/8 --jq .head.sha"],
                    "{who}"
                );
                assert!(ran[0].log.contains("no comment"), "{who}: {}", ran[0].log);
                assert_eq!(ran[0].code, 0, "{who}");
            } else {
                assert!(calls.is_empty(), "{who}, {what}: asked the API: {calls:?}");
                assert_eq!(ran[0].code, 1, "{who}, {what}: {ran:#?}");
            }
        }
    }
    assert!(!m.path("pwned").exists(), "a command from the artifact ran");

    // The action also checks the body's first line and size.
    for bad in [
        "no marker\n".to_owned(),
        "<!-- abba:x y -->\n".to_owned(),
        body("abba") + &"x".repeat(65_536),
    ] {
        let files: &[(&str, &str)] = &[
            ("comment.md", &bad),
            ("pr-number", "7"),
            ("create-comment", "yes"),
        ];
        serve(&m, Some(files), &[(7, &m.head)], json!([]));
        let mut r = m.runner("comment/action.yml", workflow_run_event(&m));
        let ran = r.run(None);
        assert_eq!(ran[0].code, 1, "{ran:#?}");
        assert!(gh_calls(&m).1.is_none());
    }

    for (who, mut r) in comment_runners(&m) {
        serve(&m, None, &[(7, &m.head)], json!([]));
        let ran = r.run(None);
        assert_eq!(ran[0].code, 0, "{who}: {ran:#?}");
        assert!(gh_calls(&m).0.is_empty(), "{who}");
    }
}

/// A fake `curl` for the GitLab API: `/user` is `abba-bot`, the notes come from
/// `$FAKE/notes.json`, and a PUT or POST keeps its body (`--data-urlencode body@FILE`) in
/// `$FAKE/note.md`; every call's method and URL is logged.
const FAKE_CURL: &str = r#"#!/bin/bash
method=GET; url=""; body=""
while [ $# -gt 0 ]; do
  case "$1" in
    --request) method=$2; shift ;;
    --header) shift ;;
    --data-urlencode) body=${2#body@}; shift ;;
    --*) ;;
    *) url=$1 ;;
  esac
  shift
done
echo "$method $url" >> "$FAKE/curl.log"
case "$method $url" in
  "GET "*/user) echo '{"username": "abba-bot"}' ;;
  "GET "*/notes\?*) cat "$FAKE/notes.json" ;;
  "PUT "* | "POST "*) cp "$body" "$FAKE/note.md"; echo '{"id": 9}' ;;
  *) exit 22 ;;
esac
"#;

/// The GitLab example's note step: it creates the note when the merge request has none
/// of abba's, and updates the token user's one note found by the marker (another
/// user's note with the marker is left alone).
#[test]
fn gitlab_example_updates_the_one_note_found_by_its_marker() {
    let m = Machine::new(110);
    write_exe(&m.path("fakebin/curl"), FAKE_CURL);
    let text = read(&root().join("examples/gitlab/abba-suite.gitlab-ci.yml"));
    let doc = YamlLoader::load_from_str(&text).unwrap().remove(0);
    let script = doc["abba-suite"]["script"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(Yaml::as_str)
        .find(|s| s.contains("/notes"))
        .unwrap()
        .to_owned();
    let work = m.path("mr");
    std::fs::create_dir_all(work.join("abba-out")).unwrap();
    let body = body("suite");
    std::fs::write(work.join("abba-out/comment.md"), &body).unwrap();
    let api = "https://gitlab.example/api/v4/projects/5/merge_requests/3/notes";
    let run = |notes: Value| {
        std::fs::write(m.path("notes.json"), notes.to_string()).unwrap();
        let _ = std::fs::remove_file(m.path("curl.log"));
        let _ = std::fs::remove_file(m.path("note.md"));
        let path = format!(
            "{}:{}",
            m.path("fakebin").display(),
            std::env::var("PATH").unwrap()
        );
        let out = Command::new("bash")
            .args(["-e", "-c", &script])
            .current_dir(&work)
            .env("PATH", path)
            .env("FAKE", m.dir.path())
            .env("CI_API_V4_URL", "https://gitlab.example/api/v4")
            .env("CI_PROJECT_ID", "5")
            .env("CI_MERGE_REQUEST_IID", "3")
            .env("ABBA_NOTE_TOKEN", "t")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(read(&m.path("note.md")), body);
        let log = read(&m.path("curl.log"));
        log.lines().last().unwrap().to_owned()
    };
    assert_eq!(run(json!([])), format!("POST {api}"));
    let notes = json!([
        {"id": 1, "author": {"username": "someone"}, "body": "<!-- abba:suite --> mine"},
        {"id": 2, "author": {"username": "abba-bot"}, "body": "<!-- abba:suite -->\nold"},
    ]);
    assert_eq!(run(notes), format!("PUT {api}/2"));
}
