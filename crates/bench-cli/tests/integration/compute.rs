//! `abba compute`'s flags through the binary (moved from the command's unit tests): both
//! spellings of every flag give the same kernel, the defaults are the kernel's, and a flag
//! out of range is refused with the kernel's words, exit 2, before anything runs.

use assert_cmd::Command;
use serde_json::Value;

/// `abba compute ARGS --steps 1000 --json`: the kernel the flags describe, as JSON.
fn kernel(args: &[&str]) -> Value {
    let out = Command::cargo_bin("abba")
        .unwrap()
        .arg("compute")
        .args(args)
        .args(["--steps", "1000", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keep = ["op", "chains", "threads", "ops", "checksum"];
    keep.iter()
        .map(|k| ((*k).to_owned(), v[*k].clone()))
        .collect()
}

#[test]
fn compute_defaults_are_the_kernels_and_both_flag_spellings_agree() {
    let default = kernel(&[]);
    assert_eq!(
        (&default["op"], &default["chains"], &default["threads"]),
        (&"int".into(), &1.into(), &1.into())
    );
    let a = kernel(&["--chains", "2", "--op=fp", "--threads", "3"]);
    let b = kernel(&["--chains=2", "--op", "fp", "--threads=3"]);
    assert_eq!(a, b);
    assert_eq!(
        (&a["op"], &a["chains"], &a["threads"]),
        (&"fp".into(), &2.into(), &3.into())
    );
    assert_eq!(a["ops"], 2 * 3 * 1000);
}

#[test]
fn compute_flags_out_of_range_are_refused_with_the_kernels_words() {
    for (argv, message) in [
        (
            &["--chains", "0"][..],
            "abba: error: --chains must be between 1 and 16, got 0",
        ),
        (
            &["--chains", "17"][..],
            "abba: error: --chains must be between 1 and 16, got 17",
        ),
        (
            &["--threads", "0"][..],
            "abba: error: --threads must be between 1 and 1024, got 0",
        ),
        (&["--duration", "-1"][..], "abba: error: --duration must be"),
        (
            &["--duration", "nan"][..],
            "abba: error: --duration must be",
        ),
        (&["--op", "mul"][..], "expected one of int, add, fp"),
    ] {
        let out = Command::cargo_bin("abba")
            .unwrap()
            .arg("compute")
            .args(argv)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {stderr}");
        assert!(stderr.contains(message), "{argv:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{argv:?}: nothing runs");
    }
}

/// `cargo run -p bench-cli` (the demo) reports kernel speeds without a debug-build
/// warning only because the dev profile builds `bench-kernel` as release does.
#[test]
fn dev_profile_builds_the_kernel_as_release_does() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let manifest = std::fs::read_to_string(root).unwrap();
    let section = manifest
        .split("[profile.dev.package.bench-kernel]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .unwrap_or_default();
    for setting in ["opt-level = 3", "codegen-units = 1"] {
        assert!(
            section.lines().any(|l| l.trim() == setting),
            "[profile.dev.package.bench-kernel] lacks `{setting}`"
        );
    }
}
