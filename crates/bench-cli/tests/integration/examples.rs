//! The fan-out recipes under `examples/` (GitHub Actions matrix, Slurm job array,
//! Kubernetes Indexed Job, the suite workflows) parse, and every abba command in them is
//! accepted by the real command-line parser (the binary, in an empty folder: its error, if
//! any, is abba's own about the missing programs or files, never clap's about the words):
//! `compare` with `--experiment` and an `--output` named by host and index, then
//! `analyze results/*.jsonl`.

use assert_cmd::Command;
use yaml_rust2::{Yaml, YamlLoader};

use super::kubernetes::logical_lines;

fn example(path: &str) -> String {
    let full = format!("{}/../../examples/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

fn yaml(path: &str) -> Vec<Yaml> {
    YamlLoader::load_from_str(&example(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Replaces what the engine or the shell would expand (`${{ x }}`, `${X}`, `$(X)`, `$X`)
/// with `V`, so the line can be split and parsed.
fn expand(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let end = if let Some(t) = tail.strip_prefix("{{") {
            t.find("}}").map(|j| j + 4)
        } else if tail.starts_with('{') {
            tail.find('}').map(|j| j + 1)
        } else if tail.starts_with('(') {
            tail.find(')').map(|j| j + 1)
        } else {
            Some(
                tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(tail.len()),
            )
        };
        let end = end.unwrap_or(tail.len());
        out.push('V');
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The abba command lines of a shell script.
fn abba_lines(script: &str) -> Vec<String> {
    logical_lines(script)
        .into_iter()
        .filter(|l| l.starts_with("abba "))
        .collect()
}

/// An abba command line as the real parser accepted it: its words after `abba`.
struct Parsed {
    words: Vec<String>,
}

impl Parsed {
    fn subcommand(&self) -> &str {
        &self.words[0]
    }

    fn value(&self, flag: &str) -> Option<&str> {
        let i = self.words.iter().position(|w| w == flag)?;
        self.words.get(i + 1).map(String::as_str)
    }

    /// The words that are neither a flag nor a flag's value (`--quiet` takes none).
    fn positionals(&self) -> Vec<&str> {
        let flag_with_value = |w: &str| w.starts_with("--") && w != "--quiet";
        (1..self.words.len())
            .filter(|&i| !self.words[i].starts_with('-') && !flag_with_value(&self.words[i - 1]))
            .map(|i| self.words[i].as_str())
            .collect()
    }
}

/// Parses an abba command line (variables expanded) with the real parser.
fn parse(line: &str) -> Parsed {
    let argv = shell_words::split(&expand(line)).unwrap_or_else(|e| panic!("{line}: {e}"));
    parse_argv(argv, line)
}

/// `argv` as the real parser takes it: abba's words after `abba`, once the parser accepted
/// them.
fn parse_argv(argv: Vec<String>, what: &str) -> Parsed {
    assert_eq!(argv.first().map(String::as_str), Some("abba"), "{what}");
    let words = argv[1..].to_vec();
    if let Err(refusal) = accepted(&words) {
        panic!("{what}: the parser refused it:\n{refusal}");
    }
    Parsed { words }
}

/// Runs abba with `words` (`--dry-run` added where the command has it) in an empty
/// folder: the parser accepted them when abba, not clap, has the last word.
fn accepted(words: &[String]) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::cargo_bin("abba").unwrap();
    cmd.current_dir(dir.path()).args(words);
    if matches!(words.first().map(String::as_str), Some("compare" | "suite")) {
        cmd.arg("--dry-run");
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() || stderr.starts_with("abba: error:") {
        Ok(())
    } else {
        Err(stderr.into_owned())
    }
}

#[test]
fn the_parser_check_refuses_a_misspelled_flag() {
    let words = |s: &str| shell_words::split(s).unwrap();
    assert!(accepted(&words("compare --experimnet x ./a ./b")).is_err());
    assert!(accepted(&words("analyze --force-unpaired results/*.jsonl")).is_ok());
}

/// A compare with an experiment id and one raw file per host and index.
fn check_compare(args: &Parsed, raw_output: &str, what: &str) {
    assert_eq!(args.subcommand(), "compare", "{what}: not abba compare");
    assert!(
        args.value("--experiment").is_some(),
        "{what}: no --experiment"
    );
    assert!(args.value("--output").is_some(), "{what}: no --output");
    assert!(
        args.positionals().len() >= 2,
        "{what}: fewer than two commands"
    );
    assert!(
        raw_output.starts_with("results/")
            && raw_output.contains("HOST")
            && raw_output.contains("INDEX")
            && raw_output.ends_with(".jsonl"),
        "{what}: --output {raw_output} is not results/$HOST-$INDEX.jsonl"
    );
}

/// An analyze of every raw file in results/.
fn check_analyze(args: &Parsed, what: &str) {
    assert_eq!(args.subcommand(), "analyze", "{what}: not abba analyze");
    assert_eq!(args.positionals(), ["results/*.jsonl"], "{what}");
    assert!(
        !args.words.iter().any(|w| w == "--force-unpaired"),
        "{what}: one experiment needs no --force-unpaired"
    );
}

/// The value after `flag` in an unexpanded shell line.
fn flag_value(line: &str, flag: &str) -> String {
    let words = shell_words::split(line).unwrap();
    let i = words.iter().position(|w| w == flag).unwrap();
    words[i + 1].clone()
}

#[test]
fn github_actions_matrix_runs_compare_per_runner_then_analyze() {
    let docs = yaml("github-actions/abba-fleet.yml");
    let jobs = &docs[0]["jobs"];
    let matrix = jobs["measure"]["strategy"]["matrix"]["index"]
        .as_vec()
        .unwrap();
    assert!(matrix.len() >= 2, "a matrix of several runners");
    assert_eq!(jobs["analyze"]["needs"].as_str(), Some("measure"));
    let runs = |job: &str| -> Vec<String> {
        jobs[job]["steps"]
            .as_vec()
            .unwrap()
            .iter()
            .filter_map(|s| s["run"].as_str())
            .flat_map(abba_lines)
            .collect()
    };
    let compares = runs("measure");
    assert_eq!(compares.len(), 1, "{compares:?}");
    let out = flag_value(&compares[0], "--output");
    check_compare(&parse(&compares[0]), &out, "github measure");
    let analyses = runs("analyze");
    assert_eq!(analyses.len(), 1);
    check_analyze(&parse(&analyses[0]), "github analyze");
    assert!(docs[0]["env"]["EXPERIMENT"].as_str().is_some());
}

#[test]
fn slurm_job_array_runs_compare_per_task_then_analyze() {
    let script = example("slurm/abba-array.sbatch");
    let array = script
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --array="))
        .expect("an #SBATCH --array line");
    let (lo, hi) = array.split_once('-').expect("a range N-M");
    let (lo, hi): (u32, u32) = (lo.parse().unwrap(), hi.parse().unwrap());
    assert!(hi > lo, "--array={array}");
    let compares = abba_lines(&script);
    assert_eq!(compares.len(), 1, "{compares:?}");
    let out = flag_value(&compares[0], "--output");
    check_compare(&parse(&compares[0]), &out, "slurm task");
    let submit = example("slurm/submit.sh");
    let line = logical_lines(&submit)
        .into_iter()
        .find(|l| l.contains("--wrap"))
        .expect("the dependent analysis");
    assert!(line.contains("--dependency=afterok:"), "{line}");
    check_analyze(&parse(&flag_value(&line, "--wrap")), "slurm analyze");
    assert!(submit.contains("sbatch --parsable abba-array.sbatch"));
}

#[test]
fn kubernetes_indexed_job_runs_compare_per_pod_then_analyze() {
    let docs = yaml("kubernetes/abba-indexed-job.yaml");
    let spec = &docs[0]["spec"];
    assert_eq!(docs[0]["kind"].as_str(), Some("Job"));
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    assert!(spec["completions"].as_i64().unwrap() >= 2);
    let pod = &spec["template"]["spec"];
    let anti =
        &pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
    assert_eq!(
        anti[0]["topologyKey"].as_str(),
        Some("kubernetes.io/hostname")
    );
    let container = &pod["containers"][0];
    let mut argv: Vec<String> = container["command"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let args: Vec<String> = container["args"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let out_at = args.iter().position(|a| a == "--output").unwrap();
    let out = args[out_at + 1].clone();
    argv.extend(args.iter().map(|a| expand(a)));
    check_compare(&parse_argv(argv, "kubernetes pod"), &out, "kubernetes pod");
    let analyze = yaml("kubernetes/abba-analyze-job.yaml");
    let c = &analyze[0]["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["command"][1].as_str(), Some("-c"));
    check_analyze(&parse(c["args"][0].as_str().unwrap()), "kubernetes analyze");
}

#[test]
fn expansion_leaves_no_variable() {
    assert_eq!(
        expand("a ${{ matrix.i }} $HOST-${X}.$(INDEX) b"),
        "a V V-V.V b"
    );
}

/// An `abba suite` line: the suite file, a PR comment with its id, and a gate.
fn check_suite(line: &str, what: &str) -> Parsed {
    let args = parse(line);
    assert_eq!(args.subcommand(), "suite", "{what}: not abba suite");
    assert!(
        args.value("--export-pr-comment").is_some(),
        "{what}: no --export-pr-comment"
    );
    assert!(args.value("--fail-if-slower").is_some(), "{what}: no gate");
    args
}

#[test]
fn github_actions_suite_measures_in_pull_request_and_comments_from_workflow_run() {
    let docs = yaml("github-actions/abba-suite.yml");
    assert_eq!(docs.len(), 2, "the measuring and the commenting workflow");
    let measure = &docs[0];
    assert!(!measure["on"]["pull_request"].is_badvalue());
    assert_eq!(measure["permissions"]["contents"].as_str(), Some("read"));
    let steps = measure["jobs"]["measure"]["steps"].as_vec().unwrap();
    let lines: Vec<String> = steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .flat_map(abba_lines)
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let args = check_suite(&lines[0], "github suite");
    let id = args
        .value("--comment-id")
        .expect("a fixed --comment-id the comment step finds");
    let script: String = steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        script.contains("git worktree add ../base"),
        "the base in a worktree"
    );
    let comment = &docs[1];
    assert_eq!(
        comment["on"]["workflow_run"]["workflows"][0].as_str(),
        measure["name"].as_str()
    );
    assert_eq!(
        comment["permissions"]["pull-requests"].as_str(),
        Some("write")
    );
    let post: String = comment["jobs"]["comment"]["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    assert!(post.contains(&bench_report::comment_marker(id)), "{post}");
    assert!(post.contains("gh api --method PATCH") && post.contains("gh api --method POST"));
}

#[test]
fn gitlab_suite_posts_the_comment_as_a_merge_request_note() {
    let docs = yaml("gitlab/abba-suite.gitlab-ci.yml");
    let job = &docs[0]["abba-suite"];
    let script: Vec<String> = job["script"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    let lines: Vec<String> = script
        .iter()
        .flat_map(|l| abba_lines(l))
        .map(|l| l.split(" || ").next().unwrap().to_owned())
        .collect();
    assert_eq!(lines.len(), 1, "{script:?}");
    check_suite(&lines[0], "gitlab suite");
    assert!(
        script
            .iter()
            .any(|l| l.contains("merge_requests/$CI_MERGE_REQUEST_IID/notes"))
    );
    assert_eq!(job["artifacts"]["when"].as_str(), Some("always"));
}

#[test]
fn the_demo_suite_reads_with_ten_benchmarks_two_of_them_changed() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/suite/abba.toml");
    let spec = bench_sched::SuiteSpec::read(&path).unwrap();
    let file = spec.file();
    assert_eq!(file.benchmark.len(), 10);
    let changed = file
        .benchmark
        .iter()
        .filter(|b| !b.get_ref().command.get_ref().ends_with("* 0))"))
        .count();
    assert_eq!(changed, 2);
}

#[test]
fn github_actions_shards_run_one_shard_per_matrix_job_then_merge_them_with_the_gate() {
    let docs = yaml("github-actions/abba-suite-shards.yml");
    let workflow = &docs[0];
    let jobs = &workflow["jobs"];
    let shards: Vec<i64> = jobs["shard"]["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let count = workflow["env"]["SHARDS"].as_i64().unwrap();
    assert_eq!(
        shards,
        (1..=count).collect::<Vec<_>>(),
        "the matrix lists 1..SHARDS"
    );
    assert_eq!(jobs["merge"]["needs"].as_str(), Some("shard"));
    let runs = |job: &str| -> Vec<String> {
        jobs[job]["steps"]
            .as_vec()
            .unwrap()
            .iter()
            .filter_map(|s| s["run"].as_str())
            .flat_map(abba_lines)
            .collect()
    };
    let shard_lines = runs("shard");
    assert_eq!(shard_lines.len(), 1, "{shard_lines:?}");
    for k in &shards {
        let line = shard_lines[0]
            .replace("$SHARD/$SHARDS", &format!("{k}/{count}"))
            .replace("\"$SEED\"", "1");
        let args = parse(&line);
        assert_eq!(args.subcommand(), "suite", "not abba suite: {line}");
        assert_eq!(
            args.value("--shard"),
            Some(format!("{k}/{count}").as_str()),
            "{line}"
        );
        assert!(
            args.value("--seed").is_some()
                && args.value("--output").is_some()
                && args.words.iter().any(|w| w == "--no-step-summary"),
            "{line}"
        );
    }
    let merges = runs("merge");
    assert_eq!(merges.len(), 1, "{merges:?}");
    let args = check_suite(&merges[0], "github merge");
    assert_eq!(args.value("--merge"), Some("shards/*.jsonl"));
    assert!(
        !args.words.iter().any(|w| w == "--no-step-summary"),
        "the merge writes the step summary"
    );
}
