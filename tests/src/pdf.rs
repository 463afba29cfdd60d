//! A printed PDF read back with poppler-utils (`pdfinfo`, `pdftotext`, `pdftoppm`, Debian's
//! `poppler-utils`), for the print tests (`browser_print_*`): its pages, the text of each page,
//! and a page as a PNG kept beside the browser tests' screenshots.
//!
//! `make test` installs poppler-utils when missing (mk/browser.mk) and, when it cannot, skips
//! the print tests and says so; run by hand without the tools, these functions fail and say
//! what to install, never passing silently.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
    time::Duration,
};

use crate::command;

/// Longest time one poppler command may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Runs the poppler tool `tool` (found on `PATH`) with `args`.
///
/// # Panics
///
/// When the tool is not on `PATH`, fails or takes longer than a minute.
fn poppler(tool: &str, args: &[&str]) -> Output {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(tool))
            .find(|candidate| candidate.is_file())
    });
    let Some(program) = found else {
        panic!(
            "no {tool} on PATH: this print test needs poppler-utils (apt-get install \
             poppler-utils), which `make test` installs (mk/browser.mk)"
        );
    };
    let output = command::run(Command::new(program).args(args), TIMEOUT);
    assert!(
        output.status.success(),
        "{tool} {args:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// What `pdfinfo` says of the PDF at `path`: its page count and its first page's size in
/// points (`Page size: 595.2 x 841.92 pts (A4)`, the words after the colon).
///
/// # Panics
///
/// When `pdfinfo` fails or says neither.
#[must_use]
pub fn info(path: &Path) -> (usize, String) {
    let output = poppler("pdfinfo", &[&path.display().to_string()]);
    let text = String::from_utf8_lossy(&output.stdout);
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name))
            .map(|value| value.trim().to_owned())
            .unwrap_or_else(|| panic!("pdfinfo gives no {name:?}: {text}"))
    };
    let pages = field("Pages:")
        .parse()
        .unwrap_or_else(|error| panic!("pdfinfo's page count: {error}: {text}"));
    (pages, field("Page size:"))
}

/// The text of page `page` (from 1) of the PDF at `path`, in reading order (`pdftotext -f N
/// -l N`), every run of white space made one space.
///
/// # Panics
///
/// When `pdftotext` fails.
#[must_use]
pub fn page_text(path: &Path, page: usize) -> String {
    let page = page.to_string();
    let output = poppler(
        "pdftotext",
        &["-f", &page, "-l", &page, &path.display().to_string(), "-"],
    );
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Page `page` (from 1) of the PDF at `path` as a PNG at `dpi`, kept as `name` in the browser
/// tests' artifacts directory (`pdftoppm -png -f N -l N`); returns its path.
///
/// # Panics
///
/// When `pdftoppm` fails or writes no PNG.
#[must_use]
pub fn page_png(path: &Path, page: usize, dpi: u32, name: &str) -> PathBuf {
    let dir = crate::browser::artifacts_dir();
    let stem = name.strip_suffix(".png").unwrap_or(name);
    let target = dir.join(format!("{stem}.png"));
    let _ = std::fs::remove_file(&target);
    let page = page.to_string();
    poppler(
        "pdftoppm",
        &[
            "-png",
            "-singlefile",
            "-r",
            &dpi.to_string(),
            "-f",
            &page,
            "-l",
            &page,
            &path.display().to_string(),
            &dir.join(stem).display().to_string(),
        ],
    );
    let png = std::fs::read(&target)
        .unwrap_or_else(|error| panic!("no PNG at {}: {error}", target.display()));
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is not a PNG",
        target.display()
    );
    target
}
