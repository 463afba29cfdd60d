//! The server crate's module structure (ARCHITECTURE.md, "Invariants"): the command line parses
//! flags into plain configuration values that the modules below it take, so no module below it
//! imports it, and the modules import each other without a circle.
//!
//! The imports are read from the sources (`src/*.rs` and the files of each module's folder):
//! every `crate::NAME` path in code, `use crate::{a, b::c}` groups included, test modules
//! included; comment lines are left out, so a doc link to a module is no import.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

/// The command line: `cli` (the flags, and their conversion into configuration values) and
/// `adjudicate_cli` (`arbiter adjudicate`'s front end, which takes its flags). The binary's
/// entry, `main.rs`, is above them; every other module is below them.
const COMMAND_LINE: [&str; 2] = ["cli", "adjudicate_cli"];

/// Each top-level module of the library (`lib.rs` left out) and the top-level modules its code
/// names through `crate::`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("src/") {
        let path = entry.expect("an entry of src/").path();
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .expect("a UTF-8 name")
            .to_owned();
        if name == "lib" || name == "main" {
            continue;
        }
        let mut paths = Vec::new();
        collect_rust_files(&path, &mut paths);
        files.entry(name).or_default().extend(paths);
    }
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    files
        .into_iter()
        .map(|(module, paths)| {
            let mut named = BTreeSet::new();
            for path in paths {
                let text = std::fs::read_to_string(&path).expect("a readable source file");
                for name in crate_paths(&code_lines(&text)) {
                    if name != module && modules.contains(&name) {
                        named.insert(name);
                    }
                }
            }
            (module, named)
        })
        .collect()
}

/// `path` itself if it is a `.rs` file, else the `.rs` files under it.
fn collect_rust_files(path: &Path, into: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).expect("a module folder") {
            collect_rust_files(&entry.expect("an entry").path(), into);
        }
    } else if path.extension().is_some_and(|extension| extension == "rs") {
        into.push(path.to_owned());
    }
}

/// The text without its comment lines (`//`, `///`, `//!`).
fn code_lines(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first name of every `crate::` path in `code`; for a group (`crate::{a, b::{c, d}}`) the
/// first name of each of its items.
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item_start = true;
            for (index, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        rest = &group[index..];
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        names.push(identifier(&group[index..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            names.push(identifier(rest));
        }
    }
    names
}

fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// A circle of imports, as the modules along it (the first one repeated at the end), if any.
fn circle(imports: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    /// Where a module is in the depth-first search.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Seen {
        OnPath,
        Done,
    }
    fn visit(
        module: &str,
        imports: &BTreeMap<String, BTreeSet<String>>,
        seen: &mut BTreeMap<String, Seen>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        seen.insert(module.to_owned(), Seen::OnPath);
        path.push(module.to_owned());
        for next in imports.get(module).into_iter().flatten() {
            match seen.get(next) {
                Some(Seen::OnPath) => {
                    let start = path.iter().position(|m| m == next).unwrap_or(0);
                    let mut circle = path[start..].to_vec();
                    circle.push(next.clone());
                    return Some(circle);
                }
                Some(Seen::Done) => {}
                None => {
                    if let Some(circle) = visit(next, imports, seen, path) {
                        return Some(circle);
                    }
                }
            }
        }
        path.pop();
        seen.insert(module.to_owned(), Seen::Done);
        None
    }
    let mut seen = BTreeMap::new();
    for module in imports.keys() {
        if !seen.contains_key(module)
            && let Some(circle) = visit(module, imports, &mut seen, &mut Vec::new())
        {
            return Some(circle);
        }
    }
    None
}

/// The scan sees what the sources say: without this, an empty scan would pass the tests below.
#[test]
fn the_scan_finds_the_imports_the_sources_have() {
    let imports = imports();
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs");
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("pub mod ")?.strip_suffix(';'))
        .map(str::to_owned)
        .collect();
    assert_eq!(imports.keys().cloned().collect::<BTreeSet<_>>(), declared);
    let named = |module: &str| imports.get(module).cloned().unwrap_or_default();
    // A `use crate::{...}` group over several lines, and a plain path.
    assert!(named("serve").contains("transport"), "{:?}", named("serve"));
    assert!(named("serve").contains("health"), "{:?}", named("serve"));
    assert!(named("cli").contains("serve"), "{:?}", named("cli"));
    assert_eq!(
        crate_paths("use crate::{a::{B, C}, d,\n e::F};\nlet x = crate::g::h();"),
        ["a", "d", "e", "g"]
    );
    assert_eq!(
        circle(&BTreeMap::from([
            ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
            ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
        ])),
        Some(vec!["a".to_owned(), "b".to_owned(), "a".to_owned()])
    );
}

/// Issue 27 item 10: `cli.rs` was imported by `limits.rs`, `logging.rs`, `serve.rs` and
/// `health_check.rs`, and imported them in turn. The command line now makes plain values
/// (`serve::ServeConfig`, `health_check::Probe`, `logging::LogFormat`) that those modules take.
#[test]
fn r_no_module_below_the_command_line_imports_it() {
    let offenders: BTreeMap<String, Vec<&str>> = imports()
        .into_iter()
        .filter(|(module, _)| !COMMAND_LINE.contains(&module.as_str()))
        .filter_map(|(module, named)| {
            let above: Vec<&str> = COMMAND_LINE
                .into_iter()
                .filter(|command_line| named.contains(*command_line))
                .collect();
            (!above.is_empty()).then_some((module, above))
        })
        .collect();
    assert_eq!(
        offenders,
        BTreeMap::new(),
        "modules that import the command line"
    );
}

/// Issue 27 item 10: ten modules (cli, limits, logging, serve, metrics, guard, service,
/// adjudicate, grpc_web, health) were one circle of imports, and overload and workers another.
#[test]
fn r_the_modules_import_each_other_without_a_circle() {
    assert_eq!(circle(&imports()), None);
}
