//! Headless Chromium without the DevTools protocol: a page's screenshot, its console
//! messages, and the rendered size of each chart.
//!
//! Shared by the browser test (`crates/bench-cli/tests/integration/browser.rs`) and
//! `cargo xtask browser-check` (included by path, so neither depends on the other).
//!
//! - Console: Chromium started with `--enable-logging=stderr --v=0` writes every console
//!   message (errors and uncaught exceptions included) to stderr as `...:CONSOLE:...`
//!   lines; any such line is a failure, since the report has no script to log anything.
//! - Sizes: a copy of the page with one added script, which writes each chart's
//!   `getBoundingClientRect()` into a `data-chart-sizes` attribute, is loaded with
//!   `--dump-dom`; the attribute is read back from the dumped DOM. The page under test
//!   itself is screenshotted unmodified.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the browser made of a page.
#[derive(Debug)]
pub struct PageCheck {
    /// Console messages from either load (none expected).
    pub console: Vec<String>,
    /// Rendered width and height of each `figure svg`, in CSS px.
    pub chart_sizes: Vec<(f64, f64)>,
    /// Width and height of the screenshot, px (from the PNG header).
    pub screenshot_size: (u32, u32),
    /// Whether the dumped DOM holds the report's heading (the page loaded).
    pub loaded: bool,
    /// Wall time of the screenshot run (browser start included).
    pub screenshot_time: Duration,
}

/// The browser: `$ABBA_CHROMIUM`, else `chromium`, `chromium-browser` or
/// `google-chrome` on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ABBA_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// Whether the environment demands the browser check (`ABBA_REQUIRE_BROWSER` set to
/// anything but empty or `0`).
pub fn browser_required() -> bool {
    std::env::var("ABBA_REQUIRE_BROWSER").is_ok_and(|v| !v.is_empty() && v != "0")
}

const PROBE: &str = r#"<script>document.body.setAttribute("data-chart-sizes",Array.from(document.querySelectorAll("figure svg")).map(function(s){var r=s.getBoundingClientRect();return r.width+"x"+r.height}).join(" "));document.body.setAttribute("data-page-height",String(document.documentElement.scrollHeight))</script>"#;

/// Loads `html` in headless Chromium: first a DOM dump of a probed copy (chart sizes,
/// page height), then a screenshot of the page itself to `png`, `window.0` px wide and
/// `window.1` px tall, or as tall as the whole page when `window.1` is 0. `work` holds
/// the browser profile and the probed copy.
///
/// # Errors
/// The browser cannot start, times out, or leaves no screenshot.
pub fn check_page(
    chromium: &Path,
    html: &Path,
    png: &Path,
    window: (u32, u32),
    work: &Path,
) -> Result<PageCheck, String> {
    let html = html
        .canonicalize()
        .map_err(|e| format!("{}: {e}", html.display()))?;
    let text = std::fs::read_to_string(&html).map_err(|e| e.to_string())?;
    let probed = work.join("probed.html");
    let with_probe = match text.rfind("</body>") {
        Some(at) => format!("{}{PROBE}{}", &text[..at], &text[at..]),
        None => format!("{text}{PROBE}"),
    };
    std::fs::write(&probed, with_probe).map_err(|e| e.to_string())?;
    let probe_window = (window.0, window.1.max(800));
    let dump = run(
        chromium,
        work,
        probe_window,
        &["--dump-dom".to_owned()],
        &probed,
    )?;
    let height = match window.1 {
        0 => attribute(&dump.0, "data-page-height")
            .and_then(|h| h.parse::<u32>().ok())
            .unwrap_or(2000)
            .max(600),
        h => h,
    };
    let started = Instant::now();
    let shot = run(
        chromium,
        work,
        (window.0, height),
        &[format!("--screenshot={}", png.display())],
        &html,
    )?;
    let screenshot_time = started.elapsed();
    let mut console = console_lines(&dump.1);
    console.extend(console_lines(&shot.1));
    Ok(PageCheck {
        console,
        chart_sizes: chart_sizes(&dump.0),
        screenshot_size: png_size(png)?,
        loaded: dump.0.contains("<h1>abba report</h1>"),
        screenshot_time,
    })
}

/// The value of the first `name="..."` attribute in `dom`.
fn attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("{name}=\"");
    let rest = &dom[dom.find(&key)? + key.len()..];
    Some(&rest[..rest.find('"')?])
}

/// One headless run; returns (stdout, stderr). Killed after 120 s.
fn run(
    chromium: &Path,
    work: &Path,
    window: (u32, u32),
    extra: &[String],
    page: &Path,
) -> Result<(String, String), String> {
    let out = work.join("chromium.out");
    let err = work.join("chromium.err");
    let file = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!(
            "--user-data-dir={}",
            work.join("profile").display()
        ))
        .arg(format!("--window-size={},{}", window.0, window.1))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(file(&out)?)
        .stderr(file(&err)?)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", chromium.display()))?;
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{} did not finish within 120 s",
                chromium.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let (stdout, stderr) = (read(&out), read(&err));
    if !status.success() {
        return Err(format!(
            "{} exited with {status}: {stderr}",
            chromium.display()
        ));
    }
    Ok((stdout, stderr))
}

/// The console messages in Chromium's log.
pub fn console_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_owned)
        .collect()
}

/// The sizes the probe wrote into the dumped DOM.
pub fn chart_sizes(dom: &str) -> Vec<(f64, f64)> {
    attribute(dom, "data-chart-sizes")
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|wh| {
            let (w, h) = wh.split_once('x')?;
            Some((w.parse().ok()?, h.parse().ok()?))
        })
        .collect()
}

/// Width and height from a PNG's header.
pub fn png_size(png: &Path) -> Result<(u32, u32), String> {
    let bytes = std::fs::read(png).map_err(|e| format!("no screenshot {}: {e}", png.display()))?;
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" {
        return Err(format!("{} is not a PNG", png.display()));
    }
    let be =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Ok((be(16), be(20)))
}
