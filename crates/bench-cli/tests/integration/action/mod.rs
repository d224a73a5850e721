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

mod comment;
mod install;
mod suite;

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
