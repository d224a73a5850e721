//! The install commands of the examples, the README and the action, run against this
//! checkout, and the README's workflow kept equal to the linted example.

use super::*;

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
