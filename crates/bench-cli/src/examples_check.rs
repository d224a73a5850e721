//! The fan-out recipes under `examples/` (GitHub Actions matrix, Slurm job array,
//! Kubernetes Indexed Job) parse, and every abba command in them is accepted by the real
//! command-line parser: `compare` with `--experiment` and an `--output` named by host and
//! index, then `analyze results/*.jsonl`.

use clap::Parser;
use yaml_rust2::{Yaml, YamlLoader};

use crate::args::{Cli, Command};

fn example(path: &str) -> String {
    let full = format!("{}/../../examples/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

fn yaml(path: &str) -> Vec<Yaml> {
    YamlLoader::load_from_str(&example(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Shell lines with their `\` continuations joined.
fn logical_lines(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in script.lines() {
        match line.trim_end().strip_suffix('\\') {
            Some(head) => cur.push_str(head),
            None => {
                cur.push_str(line);
                out.push(std::mem::take(&mut cur).trim().to_owned());
            }
        }
    }
    out
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

/// Parses an abba command line (variables expanded) with the real parser.
fn parse(line: &str) -> Command {
    let argv = shell_words::split(&expand(line)).unwrap_or_else(|e| panic!("{line}: {e}"));
    parse_argv(argv, line)
}

fn parse_argv(argv: Vec<String>, what: &str) -> Command {
    let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{what}:\n{e}"));
    cli.command
        .unwrap_or_else(|| panic!("{what}: no subcommand"))
}

/// A compare with an experiment id and one raw file per host and index.
fn check_compare(command: Command, raw_output: &str, what: &str) {
    let Command::Compare(args) = command else {
        panic!("{what}: not abba compare");
    };
    assert!(args.experiment.is_some(), "{what}: no --experiment");
    assert!(args.output.is_some(), "{what}: no --output");
    assert!(args.commands.len() >= 2, "{what}: fewer than two commands");
    assert!(
        raw_output.starts_with("results/")
            && raw_output.contains("HOST")
            && raw_output.contains("INDEX")
            && raw_output.ends_with(".jsonl"),
        "{what}: --output {raw_output} is not results/$HOST-$INDEX.jsonl"
    );
}

/// An analyze of every raw file in results/.
fn check_analyze(command: Command, what: &str) {
    let Command::Analyze(args) = command else {
        panic!("{what}: not abba analyze");
    };
    let files: Vec<String> = args.files.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(files, ["results/*.jsonl"], "{what}");
    assert!(
        !args.force_unpaired,
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
    check_compare(parse(&compares[0]), &out, "github measure");
    let analyses = runs("analyze");
    assert_eq!(analyses.len(), 1);
    check_analyze(parse(&analyses[0]), "github analyze");
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
    check_compare(parse(&compares[0]), &out, "slurm task");
    let submit = example("slurm/submit.sh");
    let line = logical_lines(&submit)
        .into_iter()
        .find(|l| l.contains("--wrap"))
        .expect("the dependent analysis");
    assert!(line.contains("--dependency=afterok:"), "{line}");
    check_analyze(parse(&flag_value(&line, "--wrap")), "slurm analyze");
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
    check_compare(parse_argv(argv, "kubernetes pod"), &out, "kubernetes pod");
    let analyze = yaml("kubernetes/abba-analyze-job.yaml");
    let c = &analyze[0]["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["command"][1].as_str(), Some("-c"));
    check_analyze(parse(c["args"][0].as_str().unwrap()), "kubernetes analyze");
}

#[test]
fn expansion_leaves_no_variable() {
    assert_eq!(
        expand("a ${{ matrix.i }} $HOST-${X}.$(INDEX) b"),
        "a V V-V.V b"
    );
}

/// An `abba suite` line: the suite file, a PR comment with its id, and a gate.
fn check_suite(line: &str, what: &str) -> crate::args::suite::SuiteArgs {
    let Command::Suite(args) = parse(line) else {
        panic!("{what}: not abba suite");
    };
    assert!(
        args.export_pr_comment.is_some(),
        "{what}: no --export-pr-comment"
    );
    assert!(!args.fail_if_slower.is_empty(), "{what}: no gate");
    *args
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
        .comment_id
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
    assert!(post.contains(&bench_report::comment_marker(&id)), "{post}");
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
        let Command::Suite(args) = parse(&line) else {
            panic!("not abba suite: {line}");
        };
        assert_eq!(args.shard.map(|s| s.index()), Some(*k as u32));
        assert!(args.seed.is_some() && args.output.is_some() && args.no_step_summary);
    }
    let merges = runs("merge");
    assert_eq!(merges.len(), 1, "{merges:?}");
    let args = check_suite(&merges[0], "github merge");
    let files: Vec<String> = args.merge.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(files, ["shards/*.jsonl"]);
    assert!(!args.no_step_summary, "the merge writes the step summary");
}
