//! `cargo xtask tidy`: the binary's layers hold. `crates/bench-cli/src` is read as a graph
//! of files (an edge for every `crate::`, `super::` or child-module path a file names) and
//! checked for:
//!
//! - **no cycle** between files;
//! - **no upward arrow**: `args/` (clap types and value parsers) names nothing above it,
//!   `core/` (exit codes, output, the raw file, shared wiring) names only `args/` and
//!   itself, a command (`cmd/NAME.rs`, `cmd/NAME/`) names only `args/`,
//!   `core/` and itself: commands never import each other; only `main.rs` (dispatch)
//!   names them all.
//!
//! Edges that still break a rule are listed in [`KNOWN`] with why; the list only shrinks
//! (it is empty).
//!
//! Below the binary, the library crates keep their arrows ([`check_crates`]): each
//! `crates/*/Cargo.toml` names under `[dependencies]` only the workspace crates
//! [`CRATE_LAYERS`] allows it (`bench-report` renders `bench-stats` results and never
//! names `bench-sched`; the leaves name none), so moving code out of the binary cannot
//! bring an upward arrow back one layer down.
//!
//! This file has no dependency but `std`: `crates/bench-cli/tests/integration/layers.rs`
//! includes it with `#[path]`, so `cargo test` runs the same check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Edges that break the layers and stay for now: (from, to, why). Empty: the list only
/// shrinks.
pub const KNOWN: &[(&str, &str, &str)] = &[];

/// The files of the tree rooted at `src` (relative paths, `/`-separated) and their text,
/// with inline `#[cfg(test)] mod tests` blocks cut off (test-only imports do not count).
fn read_tree(src: &Path) -> std::io::Result<BTreeMap<String, String>> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<String, String>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, src, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(src)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                let text = std::fs::read_to_string(&path)?;
                let text = match text.find("#[cfg(test)]\nmod tests") {
                    Some(at) => text[..at].to_owned(),
                    None => text,
                };
                out.insert(rel, code_only(&text));
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out)?;
    Ok(out)
}

/// `text` without comments and string literals (their contents are not imports).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            // A char literal such as '/' or '{'.
            i += 3;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The module path of a file: `cmd/compare/mod.rs` is `[cmd, compare]`, `core/exit.rs`
/// `[core, exit]`, `main.rs` `[]`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.split('/').map(str::to_owned).collect();
    let last = parts.pop().unwrap_or_default();
    match last.as_str() {
        "mod.rs" | "main.rs" | "lib.rs" => {}
        other => parts.push(other.trim_end_matches(".rs").to_owned()),
    }
    parts
}

/// The deepest file of the tree that the module path `segments` reaches.
fn resolve(files: &BTreeMap<String, String>, segments: &[String]) -> Option<String> {
    let mut dir = String::new();
    let mut found = None;
    for seg in segments {
        let as_file = format!("{dir}{seg}.rs");
        let as_dir = format!("{dir}{seg}/mod.rs");
        if files.contains_key(&as_file) {
            found = Some(as_file);
        } else if files.contains_key(&as_dir) {
            found = Some(as_dir);
        } else {
            break;
        }
        dir = format!("{dir}{seg}/");
    }
    found
}

/// The identifier paths starting at every `prefix` of `code` (`crate::a::b`), with `use`
/// groups (`crate::{a::x, b::{c, d}}`) expanded; each as its segments after the prefix.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        out.extend(tree(rest));
    }
    out
}

/// The paths of one use tree at the start of `text`: `a::b`, `{a, b::c}`, `a::{b, c}`.
fn tree(text: &str) -> Vec<Vec<String>> {
    let (head, rest) = segments_and_rest(text);
    let Some(group) = rest.strip_prefix('{') else {
        return vec![head];
    };
    let mut depth = 1;
    let end = group
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            depth == 0
        })
        .map_or(group.len(), |(i, _)| i);
    let mut out = Vec::new();
    for item in split_top(&group[..end]) {
        for tail in tree(&item) {
            let mut path = head.clone();
            path.extend(tail);
            out.push(path);
        }
    }
    out
}

/// `a::x, b::{c, d}` split at top-level commas.
fn split_top(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The leading `a::b::c` identifiers of `text`.
fn segments(text: &str) -> Vec<String> {
    segments_and_rest(text).0
}

/// The leading `a::b::c` identifiers of `text` and what follows the last `::` (or the
/// last identifier).
fn segments_and_rest(text: &str) -> (Vec<String>, &str) {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    loop {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        out.push(rest[..end].to_owned());
        match rest[end..].strip_prefix("::") {
            Some(next) => rest = next,
            None => {
                rest = &rest[end..];
                break;
            }
        }
    }
    (out, rest)
}

/// The child modules a file declares (`mod x;`, `pub mod x;`, `pub(crate) mod x;`).
fn children(code: &str) -> Vec<String> {
    code.lines()
        .map(str::trim)
        .filter_map(|l| {
            let l = l
                .strip_prefix("pub(crate) ")
                .or_else(|| l.strip_prefix("pub "))
                .unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(|n| n.trim().to_owned())
        })
        .collect()
}

/// The aliases `main.rs` gives modules (`use crate::core::exit;`,
/// `use crate::args as cli;`): name -> module path.
fn aliases(files: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let Some(main) = files.get("main.rs") else {
        return out;
    };
    for line in main.lines().map(str::trim) {
        let Some(rest) = line
            .strip_prefix("use crate::")
            .and_then(|l| l.strip_suffix(';'))
        else {
            continue;
        };
        if rest.contains('{') {
            continue;
        }
        let (path, name) = match rest.split_once(" as ") {
            Some((p, n)) => (p.trim(), n.trim().to_owned()),
            None => (rest, rest.rsplit("::").next().unwrap_or(rest).to_owned()),
        };
        let segs = segments(path);
        if resolve(files, &segs).is_some() {
            out.insert(name, segs);
        }
    }
    out
}

/// The import graph: node -> the nodes it names (self-loops left out).
pub fn graph(src: &Path) -> std::io::Result<BTreeMap<String, BTreeSet<String>>> {
    let files = read_tree(src)?;
    let aliases = aliases(&files);
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, code) in &files {
        let here = module_of(file);
        let mut targets = Vec::new();
        for mut segs in paths_after(code, "crate::") {
            if let Some(real) = segs.first().and_then(|s| aliases.get(s)) {
                segs.splice(0..1, real.iter().cloned());
            }
            targets.extend(resolve(&files, &segs));
        }
        for segs in paths_after(code, "super::") {
            let mut full: Vec<String> = here[..here.len().saturating_sub(1)].to_vec();
            full.extend(segs);
            targets.extend(resolve(&files, &full));
        }
        let own = if file.ends_with("mod.rs") || file == "main.rs" {
            here.clone()
        } else {
            let mut m = here.clone();
            m.pop();
            m.push(here.last().cloned().unwrap_or_default());
            m
        };
        for child in children(code) {
            for segs in paths_after(code, &format!("{child}::")) {
                let mut full = own.clone();
                full.push(child.clone());
                full.extend(segs);
                targets.extend(resolve(&files, &full));
            }
        }
        let from = file.clone();
        let entry = out.entry(from.clone()).or_default();
        for t in targets {
            if t != from {
                entry.insert(t);
            }
        }
    }
    Ok(out)
}

/// The layer of a node: 0 `args/`, 1 `core/`, 2 a command, 3 `main.rs` and test-only
/// files at the root.
fn layer(node: &str) -> u8 {
    if node.starts_with("args/") {
        0
    } else if node.starts_with("core/") {
        1
    } else if node.starts_with("cmd/") {
        2
    } else {
        3
    }
}

/// The command a layer-2 node belongs to: `cmd/compare/hooks.rs` -> `compare`.
fn command(node: &str) -> &str {
    match node.strip_prefix("cmd/") {
        Some(rest) => rest
            .split('/')
            .next()
            .unwrap_or(rest)
            .trim_end_matches(".rs"),
        None => node,
    }
}

/// Every broken rule of the tree at `src`: cycles, upward arrows, commands naming each
/// other (minus [`KNOWN`]). Empty when the layers hold.
///
/// # Errors
/// The tree cannot be read.
pub fn check(src: &Path) -> std::io::Result<Vec<String>> {
    let mut g = graph(src)?;
    // The known edges are left out of the cycle check too: they are the ones to remove.
    for (from, to, _) in KNOWN {
        if let Some(tos) = g.get_mut(*from) {
            tos.remove(*to);
        }
    }
    let mut problems = Vec::new();
    for (from, tos) in &g {
        for to in tos {
            let (lf, lt) = (layer(from), layer(to));
            if lt > lf {
                problems.push(format!("upward arrow: {from} names {to}"));
            } else if lf == 2 && lt == 2 && command(from) != command(to) {
                problems.push(format!(
                    "a command names another: {from} names {to} (share it through core/)"
                ));
            }
        }
    }
    problems.extend(
        cycles(&g)
            .into_iter()
            .map(|c| format!("cycle: {}", c.join(" -> "))),
    );
    Ok(problems)
}

/// The workspace crates each library crate may depend on (`[dependencies]`); a crate not
/// listed (the binary, the lab) may depend on any.
pub const CRATE_LAYERS: &[(&str, &[&str])] = &[
    ("bench-kernel", &[]),
    ("bench-stats", &[]),
    ("bench-docs", &[]),
    ("bench-sched", &["bench-stats"]),
    ("bench-report", &["bench-stats"]),
    ("bench-history", &["bench-sched", "bench-stats"]),
];

/// The workspace crates (`bench-*`) a manifest's `[dependencies]` table names.
fn bench_dependencies(manifest: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && line.starts_with("bench-") {
            let name = line
                .split(|c: char| c == '.' || c == '=' || c.is_whitespace())
                .next()
                .unwrap_or_default();
            out.push(name.to_owned());
        }
    }
    out
}

/// Every dependency of a library crate under `root/crates` that [`CRATE_LAYERS`] does not
/// allow (`bench-report depends on bench-sched`), and every allowed crate whose manifest is
/// missing. Empty when the crates keep their layers.
///
/// # Errors
/// A manifest cannot be read.
pub fn check_crates(root: &Path) -> std::io::Result<Vec<String>> {
    let mut problems = Vec::new();
    for (name, allowed) in CRATE_LAYERS {
        let manifest = root.join("crates").join(name).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest)?;
        for dep in bench_dependencies(&text) {
            if !allowed.contains(&dep.as_str()) {
                problems.push(format!(
                    "upward arrow: {name} depends on {dep} (allowed: {})",
                    if allowed.is_empty() {
                        "no workspace crate".to_owned()
                    } else {
                        allowed.join(", ")
                    }
                ));
            }
        }
    }
    Ok(problems)
}

/// The cycles of `g` (one per strongly connected component of more than one node).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Tarjan's algorithm, iterative enough for a few dozen files.
    struct State<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        if let Some(tos) = s.g.get(v) {
            for w in tos {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(lw));
                } else if s.on.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(iw));
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The source tree of the binary, from the workspace root.
pub fn cli_src(root: &Path) -> PathBuf {
    root.join("crates/bench-cli/src")
}

/// The rustdoc warnings in the standard error of `cargo doc` (a broken or private
/// intra-doc link, an unclosed HTML tag), each as `FILE:LINE:COL: MESSAGE`; cargo's
/// closing counts ("generated 2 warnings") are left out.
pub fn doc_warnings(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(message) = line.strip_prefix("warning: ") else {
            continue;
        };
        if message.starts_with('`') && message.contains(" generated ") {
            continue;
        }
        let place = lines[i + 1..]
            .iter()
            .take(3)
            .find_map(|l| l.trim_start().strip_prefix("--> "));
        out.push(match place {
            Some(p) => format!("{p}: {message}"),
            None => message.to_owned(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A throwaway tree of `files` (path, text) under the system's temporary directory.
    fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("abba-tidy-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    const LAYERED: &[(&str, &str)] = &[
        (
            "main.rs",
            "mod args;\nmod cmd;\nmod core;\nfn main() { cmd::a::run(); }\n",
        ),
        ("args/mod.rs", "pub struct A;\n"),
        ("core/mod.rs", "pub mod exit;\n"),
        ("core/exit.rs", "use crate::args::A;\n"),
        ("cmd/mod.rs", "pub mod a;\npub mod b;\n"),
        (
            "cmd/a.rs",
            "use crate::core::exit;\n// crate::cmd::b is only named in a comment\n",
        ),
        ("cmd/b/mod.rs", "mod inner;\nfn f() { inner::g(); }\n"),
        ("cmd/b/inner.rs", "use crate::core::exit;\npub fn g() {}\n"),
    ];

    #[test]
    fn a_library_crate_naming_a_crate_above_it_is_an_upward_arrow() {
        let manifest = "[package]\nname = \"x\"\n\n[dependencies]\nbench-stats = { workspace = true }\nbench-sched.workspace = true\nserde.workspace = true\n\n[dev-dependencies]\nbench-docs.workspace = true\n";
        assert_eq!(bench_dependencies(manifest), ["bench-stats", "bench-sched"]);
        let root = std::env::temp_dir().join(format!("tidy-crates-{}", std::process::id()));
        for (name, _) in CRATE_LAYERS {
            let dir = root.join("crates").join(name);
            std::fs::create_dir_all(&dir).unwrap();
            let text = if *name == "bench-report" {
                manifest
            } else {
                "[dependencies]\n"
            };
            std::fs::write(dir.join("Cargo.toml"), text).unwrap();
        }
        let problems = check_crates(&root).unwrap();
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(
            problems,
            ["upward arrow: bench-report depends on bench-sched (allowed: bench-stats)"]
        );
    }

    #[test]
    fn a_layered_tree_passes() {
        let dir = tree("ok", LAYERED);
        assert_eq!(check(&dir).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn an_upward_arrow_a_cross_command_import_and_a_cycle_are_each_found() {
        let mut files = LAYERED.to_vec();
        files.push(("core/up.rs", "use crate::cmd::a::run;\n"));
        files.push(("cmd/c.rs", "use crate::cmd::b::thing;\n"));
        files.push(("core/x.rs", "use crate::core::y::Y;\n"));
        files.push(("core/y.rs", "use super::x::X;\n"));
        files[2] = (
            "core/mod.rs",
            "pub mod exit;\npub mod up;\npub mod x;\npub mod y;\n",
        );
        let dir = tree("bad", &files);
        let problems = check(&dir).unwrap();
        assert!(
            problems.contains(&"upward arrow: core/up.rs names cmd/a.rs".to_owned()),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("a command names another: cmd/c.rs")),
            "{problems:?}"
        );
        assert!(
            problems.contains(&"cycle: core/x.rs -> core/y.rs".to_owned()),
            "{problems:?}"
        );
        assert_eq!(problems.len(), 3, "{problems:?}");
    }

    #[test]
    fn use_groups_and_aliases_are_followed() {
        let code = "use crate::{core::exit, args::{A, B}};";
        assert_eq!(
            paths_after(code, "crate::"),
            [vec!["core", "exit"], vec!["args", "A"], vec!["args", "B"]]
        );
        let mut files = LAYERED.to_vec();
        files[0] = (
            "main.rs",
            "mod args;\nmod cmd;\nmod core;\nuse crate::core::exit as quit;\n",
        );
        files.push(("args/bad.rs", "use crate::quit::usage;\n"));
        let dir = tree("alias", &files);
        assert_eq!(
            check(&dir).unwrap(),
            ["upward arrow: args/bad.rs names core/exit.rs"]
        );
    }

    #[test]
    fn doc_warnings_are_named_by_place_without_the_counts() {
        let stderr = "\
 Documenting bench-sched v0.1.0 (/w/crates/bench-sched)
warning: unresolved link to `crate::Outcome`
  --> crates/bench-sched/src/host.rs:27:68
   |
27 |     /// Load averages at the end ([`crate::Outcome`]).
   |
warning: `bench-sched` (lib doc) generated 1 warning
warning: `bench-stats` (lib doc) generated 2 warnings
    Finished `dev` profile
";
        assert_eq!(
            doc_warnings(stderr),
            ["crates/bench-sched/src/host.rs:27:68: unresolved link to `crate::Outcome`"]
        );
        assert!(doc_warnings("    Finished `dev` profile\n").is_empty());
    }
}
