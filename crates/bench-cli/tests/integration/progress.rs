//! The analysis's progress bar: on a terminal once the analysis runs long enough, never
//! when stderr is piped. `ABBA_PROGRESS_AFTER_MS=0` draws it from the first report, so a
//! short analysis shows it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A raw ABBA file of `blocks` blocks of 2 + 2 runs, B 1% slower: 2000 random
/// arrangements in the typical run's randomization test.
fn raw_file(dir: &Path, blocks: usize) -> PathBuf {
    let mut text = String::from(
        r#"{"schema":"abba.raw/1","abba_version":"0.1.0","design":"abba","seed":11,"blocks":BLOCKS,"variants":[{"name":"A","command":"a"},{"name":"B","command":"b"}],"reference":null,"metric":"wall","unit":"ns","higher_is_better":false,"layout":"random","pin":null,"warmup":0,"settle_ns":0,"shell":"none","timeout_ns":null,"host":{"cpu_model":"x","cores":2,"kernel":"k","governor":null,"turbo":null,"aslr":2,"load_start":null,"load_end":null,"env_bytes":0,"argv_bytes":0,"start_time":"2026-12-01T08:09:17Z"}}"#,
    )
    .replace("BLOCKS", &blocks.to_string());
    text.push('\n');
    let mut run = 0;
    for block in 0..blocks {
        let order = if block % 2 == 0 { "ABBA" } else { "BAAB" };
        for (position, variant) in order.chars().enumerate() {
            let slower = if variant == 'B' { 1.01 } else { 1.0 };
            let noise = 1.0 + 0.02 * ((run * 7919 % 101) as f64 / 101.0);
            let wall = (50e6 * slower * noise) as u64;
            text.push_str(&format!(
                r#"{{"run":{run},"block":{block},"position":{position},"variant":"{variant}","is_reference":false,"wall_ns":{wall},"user_ns":{wall},"sys_ns":0,"max_rss_kib":3000,"exit_code":0,"signal":null,"timed_out":false,"env_pad":0,"metric":null,"allowed_cpus":"0-1"}}"#
            ));
            text.push('\n');
            run += 1;
        }
    }
    let path = dir.join("runs.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn no_progress_bar_when_stderr_is_piped() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_file(dir.path(), 40);
    let out = Command::new(env!("CARGO_BIN_EXE_abba"))
        .args(["analyze", raw.to_str().unwrap()])
        .env("ABBA_PROGRESS_AFTER_MS", "0")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("arrangements"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("SLOWER"));
}

#[test]
fn a_progress_bar_on_a_terminal() {
    // util-linux `script` gives the command a pseudo-terminal; without it, nothing to
    // check here (the hook's own test covers the bar's life).
    if Command::new("script").arg("--version").output().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_file(dir.path(), 40);
    let command = format!("{} analyze {}", env!("CARGO_BIN_EXE_abba"), raw.display());
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("ABBA_PROGRESS_AFTER_MS", "0")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let seen = String::from_utf8_lossy(&out.stdout);
    assert!(seen.contains("arrangements"), "{seen}");
    assert!(seen.contains("SLOWER"), "{seen}");
    // --quiet: none.
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &format!("{command} --quiet"), "/dev/null"])
        .env("ABBA_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("arrangements"));
}
