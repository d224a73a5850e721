//! The demo's HTML report in a real browser: headless Chromium loads it, takes a
//! screenshot, and the test checks the page loaded with no console message and every
//! chart has a non-zero rendered size.
//!
//! Skipped (with a message) only when no Chromium is found and `ABBA_REQUIRE_BROWSER`
//! is unset; `.ci/run` installs Debian's `chromium` and sets it, so CI always runs this.

#[path = "../support/browser.rs"]
mod headless;

use assert_cmd::Command;

#[test]
fn demo_report_renders_in_headless_chromium() {
    let Some(chromium) = headless::find_chromium() else {
        assert!(
            !headless::browser_required(),
            "ABBA_REQUIRE_BROWSER is set but no chromium was found (apt-get install -y chromium)"
        );
        println!(
            "SKIPPED demo_report_renders_in_headless_chromium: no chromium on PATH (apt-get install -y chromium, or set ABBA_CHROMIUM; ABBA_REQUIRE_BROWSER=1 makes this an error)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("demo.html");
    // The demo itself, made short: 3 blocks of 20 ms runs (paired effect, run order,
    // distributions, uncertainty, and the shape of the change of the default typical run).
    Command::cargo_bin("abba")
        .unwrap()
        .args([
            "--demo-blocks",
            "3",
            "--demo-duration",
            "0.02",
            "--export-html",
        ])
        .arg(&html)
        .assert()
        .success();
    let png = dir.path().join("demo.png");
    let check = headless::check_page(&chromium, &html, &png, (900, 2600), dir.path())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(check.loaded, "the page did not load: no heading in the DOM");
    assert!(
        check.console.is_empty(),
        "console messages: {:?}",
        check.console
    );
    assert_eq!(check.screenshot_size, (900, 2600));
    assert_eq!(
        check.chart_sizes.len(),
        5,
        "charts: {:?}",
        check.chart_sizes
    );
    for (w, h) in &check.chart_sizes {
        assert!(*w > 100.0 && *h > 100.0, "a chart rendered at {w}x{h}");
    }
}
