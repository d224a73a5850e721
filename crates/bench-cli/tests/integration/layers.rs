//! The binary's layers (`args/` <- `core/` <- one module per command <- `main.rs`): no
//! import cycle between files, no upward arrow, no command naming another. The check is
//! xtask's (`cargo xtask tidy`), included here so `cargo test` runs it.

#[path = "../../../../xtask/src/tidy.rs"]
#[allow(dead_code)]
mod tidy;

#[test]
fn the_binary_has_no_import_cycle_and_no_upward_arrow() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = tidy::check(&src).unwrap();
    assert!(
        problems.is_empty(),
        "crates/bench-cli/src breaks its layers (see xtask/src/tidy.rs):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_sees_every_command_and_no_stale_known_edge() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = tidy::graph(&src).unwrap();
    // Dispatch names every command; the check would be vacuous if it read no edge.
    let main = &graph["main.rs"];
    for command in [
        "cmd/compare/mod.rs",
        "cmd/suite.rs",
        "cmd/analyze.rs",
        "cmd/history/mod.rs",
    ] {
        assert!(main.contains(command), "main.rs -> {command}: {main:?}");
    }
    // Each known edge still exists (a stale entry is removed from the list).
    for (from, to, why) in tidy::KNOWN {
        assert!(
            graph.get(*from).is_some_and(|t| t.contains(*to)),
            "KNOWN lists {from} -> {to} ({why}), which no longer exists: remove it"
        );
    }
}

#[test]
fn the_library_crates_depend_only_on_the_crates_below_them() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let problems = tidy::check_crates(&root).unwrap();
    assert!(
        problems.is_empty(),
        "a library crate names a crate above it (see xtask/src/tidy.rs CRATE_LAYERS):\n{}",
        problems.join("\n")
    );
}
