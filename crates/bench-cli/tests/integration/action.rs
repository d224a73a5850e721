//! The GitHub Action at the repository root (`action.yml`) and the comment action
//! (`comment/action.yml`) run for real: their `run:` steps, in order, each with its `env:`
//! and `working-directory:` evaluated as the runner would, in bash as GitHub runs it
//! (`bash --noprofile --norc -eo pipefail`), on a throwaway git repository with a base
//! and a head commit of a small program and a fake GitHub environment
//! (`GITHUB_ACTION_PATH` = this checkout, `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`,
//! `GITHUB_EVENT_PATH` with a pull-request event, `GITHUB_BASE_REF`, `RUNNER_*`). The
//! `uses:` steps (actions/cache, actions/upload-artifact) are skipped: the cache is the
//! tool-cache folder kept between two runs. `cargo` and `gh` are fakes on the PATH that
//! log their arguments; everything else (git, jq, abba, curl for `file://`) is real.
//!
//! Beside them: the GitLab example's note step with a fake `curl`, every install
//! command of the examples, the README and the action run against this checkout, and
//! the README's workflow kept equal to the linted example.
//!
//! The expressions the harness evaluates are the ones the actions use (`inputs.*`,
//! `steps.*.outputs.*`, `github.*`, `runner.*`); any other makes the test fail, so a new
//! one is noticed here.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use yaml_rust2::{Yaml, YamlLoader};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn yaml_file(path: &Path) -> Yaml {
    let text = std::fs::read_to_string(path).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

fn write_exe(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// What the runner knows while it runs an action: its inputs, the `github` and `runner`
/// contexts, the steps' outputs so far, and the process environment of every step.
struct Runner {
    /// The action's metadata (inputs, outputs), `Null` for a workflow's job.
    action: Yaml,
    steps: Vec<Yaml>,
    inputs: BTreeMap<String, String>,
    github: BTreeMap<String, String>,
    event: Value,
    env: BTreeMap<String, String>,
    workspace: PathBuf,
    outputs: BTreeMap<String, BTreeMap<String, String>>,
    scratch: PathBuf,
}

/// One step as it ran.
#[derive(Debug)]
struct StepRun {
    name: String,
    code: i32,
    log: String,
}

impl Runner {
    fn new(
        action: Yaml,
        steps: Vec<Yaml>,
        scratch: &Path,
        workspace: &Path,
        event: Value,
    ) -> Runner {
        Runner {
            action,
            steps,
            inputs: BTreeMap::new(),
            github: BTreeMap::new(),
            event,
            env: BTreeMap::new(),
            workspace: workspace.to_path_buf(),
            outputs: BTreeMap::new(),
            scratch: scratch.to_path_buf(),
        }
    }

    fn input(mut self, name: &str, value: &str) -> Runner {
        assert!(
            !self.action["inputs"][name].is_badvalue(),
            "the action has no input {name}"
        );
        self.inputs.insert(name.to_owned(), value.to_owned());
        self
    }

    /// The value of one `${{ }}` expression, or a panic naming what it does not know.
    fn value(&self, expr: &str) -> String {
        let expr = expr.trim();
        let parts: Vec<&str> = expr.split('.').collect();
        match parts.as_slice() {
            ["inputs", name] => match self.inputs.get(*name) {
                Some(v) => v.clone(),
                None => {
                    let default = &self.action["inputs"][*name]["default"];
                    let text = default.as_str().map(str::to_owned).unwrap_or_default();
                    assert!(
                        !self.action["inputs"][*name].is_badvalue(),
                        "no input {name}"
                    );
                    self.expand(&text)
                }
            },
            ["steps", id, "outputs", name] => self
                .outputs
                .get(*id)
                .and_then(|o| o.get(*name))
                .cloned()
                .unwrap_or_default(),
            ["github", "event", path @ ..] => {
                let mut v = &self.event;
                for p in path {
                    v = &v[*p];
                }
                match v {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                }
            }
            ["github", name] => self
                .github
                .get(*name)
                .cloned()
                .unwrap_or_else(|| panic!("github.{name} is not set in the fake environment")),
            ["runner", "os"] => self.env["RUNNER_OS"].clone(),
            ["runner", "temp"] => self.env["RUNNER_TEMP"].clone(),
            _ => panic!("the harness does not evaluate ${{{{ {expr} }}}}"),
        }
    }

    /// A string with its `${{ }}` expressions replaced.
    fn expand(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find("${{") {
            out.push_str(&rest[..i]);
            let end = rest[i..].find("}}").expect("an unclosed ${{") + i;
            out.push_str(&self.value(&rest[i + 3..end]));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// Runs the steps in order up to and including the one named `last` (all when
    /// `None`). After a failure only `if: always()` steps run, as on GitHub.
    fn run(&mut self, last: Option<&str>) -> Vec<StepRun> {
        let steps = self.steps.clone();
        let mut ran = Vec::new();
        let mut failed = false;
        for (i, step) in steps.iter().enumerate() {
            let name = step["name"].as_str().unwrap_or("").to_owned();
            let condition = step["if"].as_str();
            if step["run"].is_badvalue() {
                assert!(
                    step["uses"].as_str().is_some(),
                    "step {i}: neither run nor uses"
                );
            } else {
                assert!(
                    matches!(condition, None | Some("always()")),
                    "{name}: the harness evaluates no `if: {condition:?}` on a run step"
                );
                if !failed || condition == Some("always()") {
                    let run = self.run_step(step, &name);
                    failed |= run.code != 0;
                    ran.push(run);
                }
            }
            if last == Some(name.as_str()) {
                break;
            }
        }
        ran
    }

    fn run_step(&mut self, step: &Yaml, name: &str) -> StepRun {
        // `shell: bash` runs as `bash --noprofile --norc -eo pipefail {0}`; a workflow
        // step without `shell:` as `bash -e {0}`.
        let flags: &[&str] = match step["shell"].as_str() {
            Some("bash") => &["--noprofile", "--norc", "-eo", "pipefail"],
            None => &["-e"],
            Some(other) => panic!("{name}: shell {other}"),
        };
        let script = step["run"].as_str().unwrap();
        assert!(
            !script.contains("${{"),
            "{name}: an expression inside a script (inputs go through env:)"
        );
        let id = step["id"].as_str().unwrap_or("").to_owned();
        let file = self
            .scratch
            .join(format!("step-{}.sh", name.replace(' ', "-")));
        std::fs::write(&file, script).unwrap();
        let output = self
            .scratch
            .join(format!("output-{}", name.replace(' ', "-")));
        std::fs::write(&output, "").unwrap();
        let dir = match step["working-directory"].as_str() {
            Some(d) => self.workspace.join(self.expand(d)),
            None => self.workspace.clone(),
        };
        let mut cmd = Command::new("bash");
        cmd.args(flags)
            .arg(&file)
            .current_dir(dir)
            .env_clear()
            .envs(&self.env)
            .env("GITHUB_OUTPUT", &output);
        if let Some(env) = step["env"].as_hash() {
            for (k, v) in env {
                cmd.env(k.as_str().unwrap(), self.expand(v.as_str().unwrap_or("")));
            }
        }
        let out = cmd.output().unwrap();
        let mut outputs = BTreeMap::new();
        for line in std::fs::read_to_string(&output).unwrap().lines() {
            assert!(
                !line.contains("<<"),
                "{name}: multi-line outputs are not parsed here"
            );
            let (k, v) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("{name}: {line}"));
            outputs.insert(k.to_owned(), v.to_owned());
        }
        if !id.is_empty() {
            self.outputs.insert(id, outputs);
        }
        StepRun {
            name: name.to_owned(),
            code: out.status.code().unwrap_or(-1),
            log: format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }

    /// The action's output `name` (its `value:` evaluated).
    fn output(&self, name: &str) -> String {
        let value = self.action["outputs"][name]["value"].as_str().unwrap();
        self.expand(value)
    }
}

/// A program printing `{"v": X}`: 100 for `same`, and for `changed` 100 at the base and
/// 110 at the head, plus a spread of a few percent from the process id, so the verdicts
/// are known whatever the machine does.
fn program(level: u32) -> String {
    format!(
        "#!/bin/sh\nif [ \"$1\" = changed ]; then b={level}; n=$(( $$ % 5 )); else b=100; n=0; fi\n\
         awk -v b=\"$b\" -v n=\"$n\" 'BEGIN {{ printf \"{{\\\"v\\\": %f}}\\n\", b + n }}'\n"
    )
}

const SUITE: &str = "[variants]\nbase = \"../abba-base/out\"\nhead = \"../abba-head/out\"\n\n\
[settings]\nmetric = \"json:v\"\nblocks = 8\nwarmup = 0\n\n\
[[benchmark]]\nname = \"changed\"\ncommand = \"{variant}/prog changed\"\n\n\
[[benchmark]]\nname = \"same\"\ncommand = \"{variant}/prog same\"\n";

const BUILD: &str = "mkdir -p out && cp prog.sh out/prog && chmod +x out/prog";

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// The fake machine: a repository with a base commit and a head commit (`head_level` is
/// what the head's `changed` benchmark prints), the event of its pull request #7, and
/// fake `cargo` and `gh` first on the PATH.
struct Machine {
    dir: tempfile::TempDir,
    repo: PathBuf,
    base: String,
    head: String,
}

impl Machine {
    fn new(head_level: u32) -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q"]);
        write_exe(&repo.join("prog.sh"), &program(100));
        std::fs::write(repo.join("abba.toml"), SUITE).unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        let base = git(&repo, &["rev-parse", "HEAD"]);
        write_exe(
            &repo.join("prog.sh"),
            &(program(head_level) + "# the head\n"),
        );
        git(&repo, &["commit", "-q", "-am", "head"]);
        let head = git(&repo, &["rev-parse", "HEAD"]);
        let bin = dir.path().join("fakebin");
        std::fs::create_dir_all(&bin).unwrap();
        // `cargo install ... --root DIR`: logs its arguments and installs the abba built
        // for these tests, as the real command would install the one it builds.
        write_exe(
            &bin.join("cargo"),
            &format!(
                "#!/bin/bash\necho \"$*\" >> \"$FAKE/cargo.log\"\nroot=\"\"\nwhile [ $# -gt 0 ]; do \
                 [ \"$1\" = --root ] && root=$2; shift; done\nmkdir -p \"$root/bin\"\n\
                 cp {} \"$root/bin/abba\"\n",
                env!("CARGO_BIN_EXE_abba")
            ),
        );
        write_exe(&bin.join("gh"), FAKE_GH);
        std::fs::create_dir_all(dir.path().join("tool-cache")).unwrap();
        Machine {
            dir,
            repo,
            base,
            head,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn event(&self) -> Value {
        json!({
            "action": "synchronize",
            "number": 7,
            "pull_request": {
                "number": 7,
                "base": {"ref": "main", "sha": self.base},
                "head": {"ref": "feature", "sha": self.head},
            }
        })
    }

    /// The runner of `action` (relative to this checkout) in this machine's environment.
    fn runner(&self, action: &str, event: Value) -> Runner {
        let meta = yaml_file(&root().join(action));
        let steps = meta["runs"]["steps"].as_vec().unwrap().clone();
        self.runner_of(meta, steps, action, event)
    }

    /// The runner of a workflow job's steps (`ACTION_PATH` is then unused).
    fn runner_of(&self, meta: Yaml, steps: Vec<Yaml>, action: &str, event: Value) -> Runner {
        let scratch = tempfile::tempdir_in(self.dir.path()).unwrap().keep();
        let event_path = scratch.join("event.json");
        std::fs::write(&event_path, event.to_string()).unwrap();
        let action_path = root().join(action);
        let mut r = Runner::new(meta, steps, &scratch, &self.repo, event);
        let path = format!(
            "{}:{}",
            self.path("fakebin").display(),
            std::env::var("PATH").unwrap()
        );
        let action_dir = action_path.parent().unwrap().display().to_string();
        for (k, v) in [
            ("PATH", path),
            ("HOME", self.dir.path().display().to_string()),
            ("NO_COLOR", "1".to_owned()),
            ("FAKE", self.dir.path().display().to_string()),
            ("GITHUB_ACTIONS", "true".to_owned()),
            ("GITHUB_ACTION_PATH", action_dir.clone()),
            ("GITHUB_WORKSPACE", self.repo.display().to_string()),
            ("GITHUB_EVENT_PATH", event_path.display().to_string()),
            ("GITHUB_EVENT_NAME", "pull_request".to_owned()),
            ("GITHUB_BASE_REF", "main".to_owned()),
            ("GITHUB_HEAD_REF", "feature".to_owned()),
            ("GITHUB_REPOSITORY", "owner/repo".to_owned()),
            (
                "GITHUB_STEP_SUMMARY",
                self.path("summary.md").display().to_string(),
            ),
            ("RUNNER_OS", "Linux".to_owned()),
            ("RUNNER_ARCH", "X64".to_owned()),
            ("RUNNER_TEMP", scratch.display().to_string()),
            (
                "RUNNER_TOOL_CACHE",
                self.path("tool-cache").display().to_string(),
            ),
        ] {
            r.env.insert(k.to_owned(), v);
        }
        r.github.insert("action_path".to_owned(), action_dir);
        r.github
            .insert("action_repository".to_owned(), String::new());
        r.github.insert("action_ref".to_owned(), String::new());
        r.github.insert("token".to_owned(), "fake-token".to_owned());
        r.github
            .insert("repository".to_owned(), "owner/repo".to_owned());
        r
    }

    fn cargo_log(&self) -> Vec<String> {
        std::fs::read_to_string(self.path("cargo.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

fn step<'a>(ran: &'a [StepRun], name: &str) -> &'a StepRun {
    ran.iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("step {name} did not run: {ran:#?}"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

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
        summary.contains("SLOWER") && summary.contains("same"),
        "{summary}"
    );
    let body = read(&out.join("comment.md"));
    assert_eq!(body.lines().next(), Some("<!-- abba:abba -->"));
    assert!(body.contains("**SLOWER**"), "{body}");
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
}

/// A fake `gh`: `run download` copies `$FAKE/gh/artifact/` (fails when absent), `api`
/// answers `pulls/N` from `$FAKE/gh/pulls/N.json` and the comments from
/// `$FAKE/gh/comments.json`, and a PATCH or POST keeps the body it was given in
/// `$FAKE/gh/posted.md`; `--jq` goes through the real jq; every call is logged.
const FAKE_GH: &str = r#"#!/bin/bash
echo "$*" >> "$FAKE/gh.log"
if [ "$1" = run ] && [ "$2" = download ]; then
  while [ $# -gt 0 ]; do [ "$1" = --dir ] && dir=$2; shift; done
  [ -d "$FAKE/gh/artifact" ] || { echo "no artifact" >&2; exit 1; }
  cp -R "$FAKE/gh/artifact/." "$dir/"
  exit 0
fi
shift
method=GET; expr=""; body=""; path=""
while [ $# -gt 0 ]; do
  case "$1" in
    --jq) expr=$2; shift ;;
    --method) method=$2; shift ;;
    -F) body=${2#body=@}; shift ;;
    --paginate) ;;
    *) path=$1 ;;
  esac
  shift
done
case "$method $path" in
  "GET repos/owner/repo/pulls/"*) out=$(cat "$FAKE/gh/pulls/${path##*/}.json") || exit 1 ;;
  "GET repos/owner/repo/issues/"*/comments) out=$(cat "$FAKE/gh/comments.json") ;;
  "PATCH "* | "POST "*) cp "$body" "$FAKE/gh/posted.md"; out='{"id": 555}' ;;
  *) echo "fake gh: $method $path" >&2; exit 1 ;;
esac
if [ -n "$expr" ]; then printf '%s' "$out" | jq -r "$expr"; else printf '%s\n' "$out"; fi
"#;

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

/// The install commands the examples, the README and the action give, one per line.
fn install_commands() -> Vec<(String, String)> {
    let root = root();
    let mut found = Vec::new();
    let mut scan = |what: String, text: &str| {
        for line in text.lines() {
            let line = line
                .trim()
                .trim_start_matches("- ")
                .trim_start_matches("run: ");
            if let Some(i) = line.find("cargo install ") {
                let command = line[i..]
                    .split(['`', '#'])
                    .next()
                    .unwrap()
                    .trim()
                    .to_owned();
                found.push((what.clone(), command));
            }
        }
    };
    let mut files = vec![
        root.join("README.md"),
        root.join("action.yml"),
        root.join("examples/gitlab/abba-suite.gitlab-ci.yml"),
    ];
    for entry in std::fs::read_dir(root.join("examples/github-actions")).unwrap() {
        files.push(entry.unwrap().path());
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        scan(
            file.strip_prefix(&root).unwrap().display().to_string(),
            &text,
        );
    }
    found
}

/// The forms abba is installed by: from its repository by `--git` (the examples), from a
/// checkout by `--path` (the README), and the action's from its own source.
const GIT_FORM: &str =
    "cargo install --locked --git https://github.com/OWNER/abba --tag v1 bench-cli";
const PATH_FORM: &str = "cargo install --locked --path crates/bench-cli";
const ACTION_FORM: &str =
    "cargo install --locked --path \"$ACTION_PATH/crates/bench-cli\" --root \"$DIR\"";

/// Every install command in the examples, the README and the action is one of three
/// forms, and they install abba from this checkout: the `--path` form runs for real as a
/// user types it (the release profile, into this workspace's `target/release`, which no
/// other test uses; on a fresh machine this is one release build), and the installed
/// abba runs. The `--git` form builds the same package from the committed tree, which
/// is checked without a second build: in a clone of HEAD (what `--git` fetches) the
/// workspace has `bench-cli` with its `abba` binary and the committed lockfile resolves
/// unchanged (`cargo tree --locked --offline`).
/// (`--debug` would reuse the tests' build but overwrite `target/debug/abba` while other
/// tests run it.)
#[test]
fn every_install_command_is_a_form_that_installs_abba_from_this_checkout() {
    let commands = install_commands();
    for (file, command) in &commands {
        assert!(
            [GIT_FORM, PATH_FORM, ACTION_FORM].contains(&command.as_str()),
            "{file}: `{command}` is none of the forms tested here"
        );
    }
    let files: std::collections::BTreeSet<&str> =
        commands.iter().map(|(f, _)| f.as_str()).collect();
    for example in [
        "examples/github-actions/abba-suite.yml",
        "examples/github-actions/abba-fleet.yml",
        "examples/gitlab/abba-suite.gitlab-ci.yml",
        "README.md",
        "action.yml",
    ] {
        assert!(
            files.contains(example),
            "{example} installs abba: {commands:?}"
        );
    }
    let root = root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());

    let dir = tempfile::tempdir().unwrap();
    let words: Vec<&str> = PATH_FORM.split(' ').collect();
    let out = Command::new(&cargo)
        .args(&words[1..])
        .arg("--root")
        .arg(dir.path())
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{PATH_FORM}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let abba = Command::new(dir.path().join("bin/abba"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(
        abba.status.success() && abba.stdout.starts_with(b"abba "),
        "{abba:?}"
    );

    let clone = dir.path().join("clone");
    git(
        dir.path(),
        &["clone", "-q", &root.display().to_string(), "clone"],
    );
    let meta = Command::new(&cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(&clone)
        .output()
        .unwrap();
    assert!(
        meta.status.success(),
        "{}",
        String::from_utf8_lossy(&meta.stderr)
    );
    let meta: Value = serde_json::from_slice(&meta.stdout).unwrap();
    // The committed lockfile resolves as it is (`--locked`), without the network.
    let tree = Command::new(&cargo)
        .args([
            "tree",
            "--locked",
            "--offline",
            "-p",
            "bench-cli",
            "--depth",
            "0",
        ])
        .current_dir(&clone)
        .output()
        .unwrap();
    assert!(
        tree.status.success() && tree.stdout.starts_with(b"bench-cli v"),
        "{}",
        String::from_utf8_lossy(&tree.stderr)
    );
    let package = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "bench-cli")
        .expect("bench-cli in the committed workspace");
    assert!(
        package["targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "abba" && t["kind"][0] == "bin"),
        "{package}"
    );
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

/// The README's workflow is the linted example (`examples/github-actions/abba-action.yml`
/// below its comment lines), and every `with:` of abba's actions in the examples names
/// an input the action has.
#[test]
fn readme_workflow_is_the_linted_example_and_examples_use_real_inputs() {
    let root = root();
    let example = read(&root.join("examples/github-actions/abba-action.yml"));
    let body: String = example
        .lines()
        .skip_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let readme = read(&root.join("README.md"));
    let at = readme
        .find("<!-- the same as examples/github-actions/abba-action.yml")
        .expect("the README's workflow");
    let block = &readme[at..];
    let start = block.find("```yaml\n").unwrap() + 8;
    let end = block[start..].find("```").unwrap() + start;
    assert_eq!(&block[start..end], body);

    for (uses, action) in [
        ("OWNER/abba@", "action.yml"),
        ("OWNER/abba/comment@", "comment/action.yml"),
    ] {
        let inputs = yaml_file(&root.join(action))["inputs"].clone();
        let mut used = 0;
        for entry in std::fs::read_dir(root.join("examples/github-actions")).unwrap() {
            let text = read(&entry.unwrap().path());
            for doc in YamlLoader::load_from_str(&text).unwrap() {
                for (_, job) in doc["jobs"].as_hash().into_iter().flatten() {
                    for step in job["steps"].as_vec().into_iter().flatten() {
                        if !step["uses"].as_str().is_some_and(|u| u.starts_with(uses)) {
                            continue;
                        }
                        used += 1;
                        for (key, _) in step["with"].as_hash().into_iter().flatten() {
                            let key = key.as_str().unwrap();
                            assert!(!inputs[key].is_badvalue(), "{uses}: no input {key}");
                        }
                    }
                }
            }
        }
        assert!(used > 0, "no example uses {uses}");
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
