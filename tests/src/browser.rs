//! Headless Chromium for the browser tests (`browser_*`): loading a page, reading the DOM it
//! ends with, keeping a screenshot.
//!
//! [`print_to_pdf`] prints a page as a person does, on A4 or Letter ([`crate::pdf`] reads the
//! PDF back).
//!
//! The browser is `ARBITER_CHROMIUM` (set by `make test` to the `chromium` it found or installed,
//! mk/browser.mk). The browser tests are `#[ignore]`d so that a bare `cargo test` does not need
//! one; run without `ARBITER_CHROMIUM` they fail and say why, never passing silently.
//! Screenshots go to `BROWSER_ARTIFACTS` (default `target/browser-artifacts`).

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use crate::command;

/// Longest time one browser run may take (start, load, scripts, dump or screenshot).
pub const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

/// The Chromium binary the browser tests run.
///
/// # Panics
///
/// When `ARBITER_CHROMIUM` is not set: the test was asked to run (`--include-ignored`) without a
/// browser, which `make test` reports as not run instead.
#[must_use]
pub fn chromium() -> PathBuf {
    match std::env::var_os("ARBITER_CHROMIUM") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => panic!(
            "this browser test needs headless Chromium: set ARBITER_CHROMIUM=/usr/bin/chromium, \
             or run `make test`, which installs Debian's chromium (mk/browser.mk)"
        ),
    }
}

/// The directory where browser tests keep their screenshots (created).
///
/// # Panics
///
/// When the directory cannot be created.
#[must_use]
pub fn artifacts_dir() -> PathBuf {
    let dir = std::env::var_os("BROWSER_ARTIFACTS")
        .filter(|dir| !dir.is_empty())
        .map_or_else(
            || crate::workspace_root().join("target/browser-artifacts"),
            PathBuf::from,
        );
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|error| panic!("cannot create {}: {error}", dir.display()));
    dir
}

/// A headless Chromium command with the flags every run needs: no sandbox (CI runs as root), no
/// GPU, a profile of its own in `profile` (so that runs in parallel do not share one), and
/// `budget` of virtual time for the page's scripts and fetches before the DOM is read.
fn headless(profile: &Path, budget: Duration) -> Command {
    let mut command = Command::new(chromium());
    command
        .arg("--headless")
        .arg("--no-sandbox")
        .arg("--disable-gpu")
        .arg("--disable-dev-shm-usage")
        .arg("--no-first-run")
        .arg("--hide-scrollbars")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--virtual-time-budget={}", budget.as_millis()));
    command
}

/// Loads `url` and returns the DOM serialized after its scripts ran for at most `budget` of
/// virtual time (`--dump-dom`).
///
/// # Panics
///
/// When the browser cannot be started, fails, or takes longer than [`BROWSER_TIMEOUT`].
#[must_use]
pub fn dump_dom(url: &str, budget: Duration) -> String {
    let profile = profile_dir();
    let output = command::run(
        headless(&profile, budget).arg("--dump-dom").arg(url),
        BROWSER_TIMEOUT,
    );
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        output.status.success(),
        "chromium --dump-dom {url} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the DOM is UTF-8")
}

/// Loads `url` in a `width` × `height` window and saves a PNG screenshot of it as `name` in
/// [`artifacts_dir`]; returns the screenshot's path.
///
/// # Panics
///
/// When the browser cannot be started, fails, takes longer than [`BROWSER_TIMEOUT`], or writes
/// no PNG.
#[must_use]
pub fn screenshot(url: &str, name: &str, (width, height): (u32, u32), budget: Duration) -> PathBuf {
    let profile = profile_dir();
    let path = artifacts_dir().join(name);
    let _ = std::fs::remove_file(&path);
    let output = command::run(
        headless(&profile, budget)
            .arg(format!("--screenshot={}", path.display()))
            .arg(format!("--window-size={width},{height}"))
            .arg(url),
        BROWSER_TIMEOUT,
    );
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        output.status.success(),
        "chromium --screenshot {url} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let png = std::fs::read(&path)
        .unwrap_or_else(|error| panic!("no screenshot at {}: {error}", path.display()));
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is not a PNG",
        path.display()
    );
    path
}

/// The paper a page is printed on, as a person picks it in the print dialog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    /// ISO A4, 210 × 297 mm.
    A4,
    /// US Letter, 8.5 × 11 in.
    Letter,
}

impl Paper {
    /// The CSS `@page` size keyword.
    #[must_use]
    pub fn css(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "letter",
        }
    }
}

/// Prints the HTML page `html` on `paper` with headless Chromium (`--print-to-pdf`, as a person
/// prints it: Chromium's own header and footer are left on, for the page to replace) to `name` in [`artifacts_dir`], and returns the PDF's
/// path. The page sets no paper size (a person chooses it when printing), so a copy of it with
/// `@page { size: ... }` added at the end of its head is what is printed: the page's own
/// `@page` rules (margins, footers) still apply.
///
/// # Panics
///
/// When the browser cannot be started, fails, takes longer than [`BROWSER_TIMEOUT`], or
/// writes no PDF.
#[must_use]
pub fn print_to_pdf(html: &str, name: &str, paper: Paper) -> PathBuf {
    let profile = profile_dir();
    let page = profile.join("page.html");
    let sized = html.replacen(
        "</head>",
        &format!("<style>@page{{size:{}}}</style></head>", paper.css()),
        1,
    );
    std::fs::write(&page, sized)
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", page.display()));
    let path = artifacts_dir().join(name);
    let _ = std::fs::remove_file(&path);
    let url = format!("file://{}", page.display());
    let output = command::run(
        headless(&profile, Duration::from_secs(5))
            .arg(format!("--print-to-pdf={}", path.display()))
            .arg(&url),
        BROWSER_TIMEOUT,
    );
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        output.status.success(),
        "chromium --print-to-pdf {url} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let pdf = std::fs::read(&path)
        .unwrap_or_else(|error| panic!("no PDF at {}: {error}", path.display()));
    assert!(pdf.starts_with(b"%PDF-"), "{} is not a PDF", path.display());
    path
}

/// A fresh, empty browser profile directory under the system's temporary directory.
fn profile_dir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "arbiter-chromium-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|error| panic!("cannot create {}: {error}", dir.display()));
    dir
}
