//! The commands of the documentation name only what exists (issue 27 item 1: examples named
//! `round5.pgn` and `games.pgn`, which the repository does not hold, and `target/release/arbiter`,
//! which `make test` does not build).
//!
//! Every fenced block marked `sh`, `shell`, `bash` or `console` in README.md and docs/*.md is
//! read as shell commands (in a `console` block, only the lines after a `$ ` prompt; `#` starts a
//! comment, `\` at the end of a line continues it) and checked:
//!
//! - every word that looks like a path of the repository (it contains `/` or ends in a known
//!   extension, it is not quoted, not a URL, not absolute, not a gRPC method name) names a file
//!   or directory of the repository, a build product of `make test` / `make run` listed in
//!   [`BUILD_PRODUCTS`], or a file an earlier command of the same document wrote (`> file`, or
//!   the last word of `cp` and `mkdir`).
//!   Words with a placeholder (a path segment in capitals such as `REGISTRY`, or `<name>`) or a
//!   shell expansion are not checked;
//! - every `arbiter` command (`bin/arbiter`, or `arbiter` alone) names a subcommand, and each of
//!   its flags appears in that subcommand's `--help` (the binary under test, `ARBITER_BIN`);
//! - every `make` target is defined in the Makefile or in mk/*.mk;
//! - a command run through a variable (`$BUF ...`) uses a variable an earlier block of the same
//!   document set (`BUF="..."`), and the words of its value are checked as above.
//!
//! The placeholders and build products are also described in docs/development.md.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    fmt,
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use arbiter_e2e::{binary, command, workspace_root};

/// Paths that `make test` or `make run` create (so a fresh clone does not hold them), each with
/// what makes it. Documents may name these; any other path must exist in the repository.
const BUILD_PRODUCTS: &[(&str, &str)] = &[
    (
        "bin/arbiter",
        "make test, make run: a link to the binary they built",
    ),
    (
        "node_modules/.bin/buf",
        "make tools (npm ci), part of make test",
    ),
    (
        "target/arbiter-image.oci.tar",
        "make image, part of make test (make image-test)",
    ),
    ("examples/web/dist", "make web-example, part of make test"),
    ("examples/web/dist/", "make web-example, part of make test"),
    (
        ".venv/deploy/bin/kubectl",
        "make deploy-venv, part of make test",
    ),
    (
        ".venv/deploy/bin/python",
        "make deploy-venv, part of make test",
    ),
];

/// Extensions that make a word without `/` a file name to check.
const FILE_EXTENSIONS: &[&str] = &[
    "pgn", "md", "yaml", "yml", "json", "proto", "txt", "epd", "rs", "py", "sh", "toml", "html",
    "svg", "png", "binpb", "mk", "lock", "ts", "css", "js", "tar",
];

/// Info strings of the fenced blocks that hold shell commands.
const SHELL_LANGUAGES: &[&str] = &["sh", "shell", "bash", "console"];

/// Longest time `arbiter <subcommand> --help` may take.
const HELP_TIMEOUT: Duration = Duration::from_secs(30);

/// One thing a document's command names that does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    /// The document, relative to the workspace root.
    file: String,
    /// The line of the document where the command starts (1-based).
    line: usize,
    /// What is wrong.
    message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// A word of a shell command: its text with quotes removed, whether any of it was quoted, and
/// whether it holds an expansion (`$`, a backquote) whose value is unknown here.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    text: String,
    quoted: bool,
    expands: bool,
}

/// A token of a command line: a word or an operator (`|`, `&&`, `;`, `>`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(Word),
    Op(String),
}

/// Splits one logical command line into words and operators, as a POSIX shell would, far
/// enough for documentation: quotes, backslash escapes, comments, pipes, lists, redirections.
fn tokenize(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word: Option<Word> = None;
    let mut chars = line.chars().peekable();
    let finish = |word: &mut Option<Word>, tokens: &mut Vec<Token>| {
        if let Some(word) = word.take() {
            tokens.push(Token::Word(word));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => finish(&mut word, &mut tokens),
            '#' if word.is_none() => break,
            '\'' => {
                let word = word.get_or_insert_with(empty_word);
                word.quoted = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.text.push(c);
                }
            }
            '"' => {
                let word = word.get_or_insert_with(empty_word);
                word.quoted = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.text.extend(chars.next()),
                        '$' | '`' => {
                            word.expands = true;
                            word.text.push(c);
                        }
                        _ => word.text.push(c),
                    }
                }
            }
            '\\' => word
                .get_or_insert_with(empty_word)
                .text
                .extend(chars.next()),
            '|' | '&' | ';' | '<' | '>' => {
                // A file descriptor number glued to a redirection (`2>`) belongs to it.
                if matches!(c, '<' | '>')
                    && word
                        .as_ref()
                        .is_some_and(|w| !w.quoted && w.text.chars().all(|d| d.is_ascii_digit()))
                {
                    word = None;
                }
                finish(&mut word, &mut tokens);
                let mut op = c.to_string();
                if let Some(&next) = chars.peek()
                    && (next == c || (c == '>' && next == '&') || (c == '&' && next == '>'))
                {
                    op.push(next);
                    chars.next();
                }
                tokens.push(Token::Op(op));
            }
            '$' | '`' => {
                let word = word.get_or_insert_with(empty_word);
                word.expands = true;
                word.text.push(c);
            }
            _ => word.get_or_insert_with(empty_word).text.push(c),
        }
    }
    finish(&mut word, &mut tokens);
    tokens
}

fn empty_word() -> Word {
    Word {
        text: String::new(),
        quoted: false,
        expands: false,
    }
}

/// The commands of one fenced block: each logical line (continuations joined) with the line of
/// the document it starts on. `first_line` is the document line of the block's first line.
fn block_commands(language: &str, body: &[&str], first_line: usize) -> Vec<(usize, String)> {
    let console = language == "console";
    let mut commands = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (offset, raw) in body.iter().enumerate() {
        let line_number = first_line + offset;
        let text = match (&current, console) {
            (Some(_), _) => *raw,
            (None, true) => match raw.trim_start().strip_prefix("$ ") {
                Some(command) => command,
                None => continue, // output
            },
            (None, false) => raw,
        };
        let (text, continues) = match text.trim_end().strip_suffix('\\') {
            Some(text) => (text, true),
            None => (text.trim_end(), false),
        };
        let entry = current.get_or_insert_with(|| (line_number, String::new()));
        entry.1.push_str(text);
        entry.1.push(' ');
        if !continues {
            commands.extend(current.take());
        }
    }
    commands.extend(current.take());
    commands
}

/// The fenced shell blocks of a Markdown document: `(language, first body line, body lines)`.
/// A fence is a run of three or more backquotes or tildes; the block ends at a line holding
/// only a run of the same character at least as long.
fn shell_blocks(text: &str) -> Vec<(String, usize, Vec<&str>)> {
    let mut blocks = Vec::new();
    // The open fence, the block's language, its first body line and its body.
    let mut open: Option<(String, String, usize, Vec<&str>)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        let fence_char = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'));
        let fence: String = fence_char.map_or_else(String::new, |c| {
            trimmed.chars().take_while(|&d| d == c).collect()
        });
        if let Some((open_fence, _, _, body)) = &mut open {
            if fence.len() >= open_fence.len()
                && fence.starts_with(open_fence.as_str())
                && trimmed == fence
            {
                let (_, language, first, body) = open.take().expect("a block is open");
                if SHELL_LANGUAGES.contains(&language.as_str()) {
                    blocks.push((language, first, body));
                }
            } else {
                body.push(line);
            }
        } else if fence.len() >= 3 {
            let language = trimmed[fence.len()..]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            open = Some((fence, language, index + 2, Vec::new()));
        }
    }
    blocks
}

/// What the checker knows of the repository and the binary, and what each document has set.
struct Checker {
    root: PathBuf,
    arbiter: PathBuf,
    make_targets: BTreeSet<String>,
    /// The flags of each subcommand's `--help` (`None`: no such subcommand), cached.
    help: HashMap<String, Option<BTreeSet<String>>>,
    /// How many `arbiter` and `make` commands were checked, so that a test can tell that the
    /// blocks were read at all.
    checked_arbiter: usize,
    checked_make: usize,
}

/// What one document has set so far: its variables and the files its commands wrote.
#[derive(Default)]
struct DocumentState {
    variables: BTreeMap<String, String>,
    written: BTreeSet<String>,
}

impl Checker {
    fn new(root: &Path, arbiter: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            arbiter: arbiter.to_path_buf(),
            make_targets: make_targets(root),
            help: HashMap::new(),
            checked_arbiter: 0,
            checked_make: 0,
        }
    }

    /// Checks every shell block of a Markdown text; `file` names it in the findings.
    fn check_document(&mut self, file: &str, text: &str) -> Vec<Finding> {
        let mut state = DocumentState::default();
        let mut findings = Vec::new();
        for (language, first_line, body) in shell_blocks(text) {
            for (line, command) in block_commands(&language, &body, first_line) {
                for message in self.check_line(&command, &mut state) {
                    findings.push(Finding {
                        file: file.to_string(),
                        line,
                        message,
                    });
                }
            }
        }
        findings
    }

    /// Checks one logical command line; returns what is wrong with it.
    fn check_line(&mut self, line: &str, state: &mut DocumentState) -> Vec<String> {
        let mut messages = Vec::new();
        let mut simple: Vec<Word> = Vec::new();
        let mut redirect: Option<String> = None;
        let tokens = tokenize(line);
        for token in tokens.into_iter().chain([Token::Op(";".to_string())]) {
            match token {
                Token::Word(word) => {
                    if let Some(op) = redirect.take() {
                        if op.starts_with('<') {
                            self.check_path_word(&word, state, &mut messages);
                        } else if !word.expands {
                            state.written.insert(word.text);
                        }
                    } else {
                        simple.push(word);
                    }
                }
                Token::Op(op) => {
                    if matches!(op.as_str(), ">" | ">>" | "<" | ">&" | "&>") {
                        redirect = Some(op);
                    } else {
                        let words = std::mem::take(&mut simple);
                        self.check_simple(words, state, &mut messages);
                    }
                }
            }
        }
        messages
    }

    /// Checks one simple command (no operators).
    fn check_simple(
        &mut self,
        mut words: Vec<Word>,
        state: &mut DocumentState,
        messages: &mut Vec<String>,
    ) {
        // Assignments before the command; alone, they set variables of the document.
        let mut assignments = 0;
        while words
            .get(assignments)
            .is_some_and(|w| is_assignment(&w.text))
        {
            assignments += 1;
        }
        if assignments == words.len() {
            for word in &words {
                if let Some((name, value)) = word.text.split_once('=') {
                    state.variables.insert(name.to_string(), value.to_string());
                }
            }
            return;
        }
        words.drain(..assignments);
        while words
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), "sudo" | "env" | "time" | "exec" | "nohup"))
        {
            words.remove(0);
        }
        // A command run through a variable: its value's words take its place.
        if let Some(first) = words.first()
            && first.expands
            && !first.quoted
        {
            let name = first
                .text
                .trim_start_matches('$')
                .trim_start_matches('{')
                .trim_end_matches('}');
            match state.variables.get(name) {
                Some(value) => {
                    let expanded: Vec<Word> = tokenize(value)
                        .into_iter()
                        .filter_map(|t| match t {
                            Token::Word(w) => Some(w),
                            Token::Op(_) => None,
                        })
                        .collect();
                    words.splice(0..1, expanded);
                }
                None => {
                    messages.push(format!(
                        "runs {}, which no earlier command of this document sets",
                        first.text
                    ));
                    return;
                }
            }
        }
        let Some(program) = words.first().cloned() else {
            return;
        };
        // `cp SOURCE... DEST` and `mkdir DIR` make their last word: later commands may name it.
        if matches!(program.text.as_str(), "cp" | "mkdir")
            && let Some(made) = words.last().filter(|w| words.len() > 1 && !w.expands)
        {
            state
                .written
                .insert(made.text.trim_end_matches('/').to_string());
        }
        for word in &words {
            self.check_path_word(word, state, messages);
        }
        if program.text == "arbiter" || program.text.ends_with("/arbiter") {
            self.check_arbiter(&words[1..], messages);
        } else if program.text == "make" {
            self.check_make(&words[1..], messages);
        }
    }

    /// Checks a word that may name a path of the repository.
    fn check_path_word(&self, word: &Word, state: &DocumentState, messages: &mut Vec<String>) {
        if word.quoted || word.expands {
            return;
        }
        // `--flag=path`, `KEY=path`: the value.
        let text = match word.text.split_once('=') {
            Some((_, value)) => value,
            None => word.text.as_str(),
        };
        if !looks_like_repository_path(text)
            || state.written.iter().any(|made| {
                text == made
                    || text
                        .strip_prefix(made.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        {
            return;
        }
        if BUILD_PRODUCTS.iter().any(|(product, _)| *product == text) {
            return;
        }
        if !self.root.join(text).exists() {
            messages.push(format!(
                "names {text}, which is neither in the repository nor a build product of make test or make run"
            ));
        }
    }

    /// Checks the subcommand and flags of an `arbiter` command.
    fn check_arbiter(&mut self, args: &[Word], messages: &mut Vec<String>) {
        self.checked_arbiter += 1;
        let Some(subcommand) = args.iter().find(|w| !w.text.starts_with('-')) else {
            return;
        };
        let Some(flags) = self.flags_of(&subcommand.text) else {
            messages.push(format!("arbiter has no subcommand {}", subcommand.text));
            return;
        };
        for arg in args {
            if let Some(flag) = flag_name(&arg.text)
                && !flags.contains(flag)
            {
                messages.push(format!(
                    "arbiter {} has no flag {flag} (not in `arbiter {} --help`)",
                    subcommand.text, subcommand.text
                ));
            }
        }
    }

    /// The flags `arbiter <subcommand> --help` lists, or `None` when there is no such subcommand.
    fn flags_of(&mut self, subcommand: &str) -> Option<BTreeSet<String>> {
        if let Some(flags) = self.help.get(subcommand) {
            return flags.clone();
        }
        let output = command::run(
            Command::new(&self.arbiter).args([subcommand, "--help"]),
            HELP_TIMEOUT,
        );
        let flags = output
            .status
            .success()
            .then(|| help_flags(&String::from_utf8_lossy(&output.stdout)));
        self.help.insert(subcommand.to_string(), flags.clone());
        flags
    }

    /// Checks the targets of a `make` command.
    fn check_make(&mut self, args: &[Word], messages: &mut Vec<String>) {
        self.checked_make += 1;
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let text = arg.text.as_str();
            if matches!(text, "-f" | "-C" | "-j" | "-l" | "-o" | "-W" | "-I") {
                args.next(); // its value (a path given to -f was checked as a path)
            } else if text.starts_with('-') || is_assignment(text) || arg.expands {
                continue;
            } else if !self.make_targets.contains(text) {
                messages.push(format!(
                    "make has no target {text} (not in the Makefile nor mk/*.mk)"
                ));
            }
        }
    }
}

/// `NAME=value`, NAME a shell variable name.
fn is_assignment(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The flag a command-line word passes (`--format` of `--format=jsonl`), if it is one.
fn flag_name(text: &str) -> Option<&str> {
    let name = text.split_once('=').map_or(text, |(name, _)| name);
    let is_flag = name.len() >= 2
        && name.starts_with('-')
        && !name[1..].starts_with(|c: char| c.is_ascii_digit());
    is_flag.then_some(name)
}

/// Whether a word reads as a relative path of the repository: it contains `/` or ends in a known
/// extension, is made of path characters, is no URL, absolute path, gRPC method or placeholder.
fn looks_like_repository_path(text: &str) -> bool {
    if text.is_empty()
        || text.contains("://")
        || text.starts_with('/')
        || text.starts_with('-')
        || !text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+' | '@'))
    {
        return false;
    }
    // A placeholder: a segment in capitals (`REGISTRY/arbiter`, `FILE.pgn`).
    let placeholder = text.split(['/', '.', ':', '@']).any(|segment| {
        segment.len() >= 2
            && segment
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && segment.chars().any(|c| c.is_ascii_uppercase())
    });
    // A gRPC method: `package.Service/Method`.
    let method = text.split_once('/').is_some_and(|(service, method)| {
        service.contains('.')
            && !service.contains('/')
            && !method.contains('/')
            && method.starts_with(|c: char| c.is_ascii_uppercase())
    });
    if placeholder || method {
        return false;
    }
    text.contains('/')
        || text.rsplit_once('.').is_some_and(|(stem, extension)| {
            !stem.is_empty() && FILE_EXTENSIONS.contains(&extension)
        })
}

/// The flags a clap `--help` text lists (`-j`, `--jobs`, `--format`, ...).
fn help_flags(help: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for line in help.lines() {
        let line = line.trim_start();
        if !line.starts_with('-') {
            continue;
        }
        for word in line.split_whitespace() {
            let word = word.trim_end_matches(',');
            if !word.starts_with('-') {
                break;
            }
            flags.insert(word.to_string());
        }
    }
    flags
}

/// The targets the Makefile and mk/*.mk define: the names before `:` of rule lines (not
/// variable assignments, not targets built from variables or patterns, not `.PHONY`).
fn make_targets(root: &Path) -> BTreeSet<String> {
    let mut files = vec![root.join("Makefile")];
    let mut mk: Vec<PathBuf> = std::fs::read_dir(root.join("mk"))
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "mk"))
                .collect()
        })
        .unwrap_or_default();
    mk.sort();
    files.extend(mk);
    let mut targets = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", file.display()));
        let mut in_define = false;
        for line in text.lines() {
            if line.starts_with("define ") {
                in_define = true;
            } else if line.starts_with("endef") {
                in_define = false;
            }
            if in_define || line.starts_with(['\t', ' ', '#', '.']) {
                continue;
            }
            let Some((names, rest)) = line.split_once(':') else {
                continue;
            };
            if rest.starts_with('=') || names.contains('=') {
                continue; // `X := ...`, `X = a:b`
            }
            targets.extend(
                names
                    .split_whitespace()
                    .filter(|name| !name.contains(['$', '%']))
                    .map(str::to_string),
            );
        }
    }
    targets
}

/// The documents to check: README.md and every docs/*.md, relative to the workspace root.
fn documents(root: &Path) -> Vec<String> {
    let mut documents: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    documents.sort();
    documents.insert(0, "README.md".to_string());
    documents
}

fn checker() -> Checker {
    Checker::new(&workspace_root(), binary::arbiter())
}

/// Checks a block given as Markdown text, as if it were a document of its own.
fn check(markdown: &str) -> Vec<String> {
    checker()
        .check_document("block.md", markdown)
        .into_iter()
        .map(|finding| finding.to_string())
        .collect()
}

#[test]
fn every_command_block_of_the_readme_and_docs_names_only_existing_files_flags_and_targets() {
    // issue 27: the README's examples named files that do not exist and a binary that `make
    // test` does not build, so they failed as pasted.
    let root = workspace_root();
    let mut checker = checker();
    let mut findings = Vec::new();
    let mut commands_by_document = BTreeMap::new();
    for document in documents(&root) {
        let text = std::fs::read_to_string(root.join(&document)).unwrap();
        let before = checker.checked_arbiter + checker.checked_make;
        findings.extend(checker.check_document(&document, &text));
        commands_by_document.insert(
            document,
            checker.checked_arbiter + checker.checked_make - before,
        );
    }
    let findings: Vec<String> = findings.iter().map(Finding::to_string).collect();
    assert!(findings.is_empty(), "{}", findings.join("\n"));
    // The blocks were read: the README and the CLI and adjudication references run arbiter or
    // make in their blocks.
    for document in ["README.md", "docs/cli.md", "docs/adjudication.md"] {
        assert!(
            commands_by_document[document] > 0,
            "no arbiter or make command found in {document}: {commands_by_document:?}"
        );
    }
}

#[test]
fn a_missing_file_an_unknown_flag_and_an_unknown_make_target_are_each_named_with_their_line() {
    // issue 27: `round5.pgn` and `target/release/arbiter` were the README's examples.
    let findings = check(
        "text\n\
         ```sh\n\
         bin/arbiter adjudicate round5.pgn --formt jsonl   # a comment: games.pgn\n\
         target/release/arbiter perft --depth 3\n\
         make tset\n\
         bin/arbiter adjudicate tests/data/adjudicate/round.pgn --format jsonl -j 2\n\
         ```\n",
    );
    assert_eq!(
        findings,
        [
            "block.md:3: names round5.pgn, which is neither in the repository nor a build product of make test or make run",
            "block.md:3: arbiter adjudicate has no flag --formt (not in `arbiter adjudicate --help`)",
            "block.md:4: names target/release/arbiter, which is neither in the repository nor a build product of make test or make run",
            "block.md:5: make has no target tset (not in the Makefile nor mk/*.mk)",
        ]
    );
}

#[test]
fn a_flag_of_another_subcommand_and_an_unknown_subcommand_are_refused() {
    // issue 27: a flag is checked against its own subcommand's --help.
    let findings = check(
        "```bash\n\
         bin/arbiter board startpos --format html > board.html\n\
         bin/arbiter adjudicat tests/data/adjudicate/round.pgn\n\
         ```\n",
    );
    assert_eq!(
        findings,
        [
            "block.md:2: arbiter board has no flag --format (not in `arbiter board --help`)",
            "block.md:3: arbiter has no subcommand adjudicat",
        ]
    );
}

#[test]
fn continued_lines_pipes_and_redirections_are_checked_as_commands_of_their_first_line() {
    // issue 27: a command split over lines, after a pipe or reading a redirected file.
    let findings = check(
        "```sh\n\
         cat tests/data/adjudicate/round.pgn | bin/arbiter adjudicate - \\\n\
           --format html --report-dat x > round.html\n\
         bin/arbiter adjudicate - < tests/data/adjudicate/round5.pgn\n\
         ls round.html && make tets\n\
         ```\n",
    );
    assert_eq!(
        findings,
        [
            "block.md:2: arbiter adjudicate has no flag --report-dat (not in `arbiter adjudicate --help`)",
            "block.md:4: names tests/data/adjudicate/round5.pgn, which is neither in the repository nor a build product of make test or make run",
            "block.md:5: make has no target tets (not in the Makefile nor mk/*.mk)",
        ]
    );
}

#[test]
fn a_command_run_through_a_variable_is_checked_with_its_value_and_an_unset_one_is_refused() {
    // issue 27: `$BUF` stood for a buf that blocks of another section defined.
    let findings = check(
        "```sh\n\
         $BUF --list-methods http://127.0.0.1:50051\n\
         ```\n\
         ```sh\n\
         BUF=\"node_modules/.bin/bfu curl --protocol grpc\"\n\
         $BUF --list-methods http://127.0.0.1:50051\n\
         ```\n",
    );
    assert_eq!(
        findings,
        [
            "block.md:2: runs $BUF, which no earlier command of this document sets",
            "block.md:6: names node_modules/.bin/bfu, which is neither in the repository nor a build product of make test or make run",
        ]
    );
}

#[test]
fn quoted_words_urls_placeholders_methods_outputs_and_other_languages_are_not_paths() {
    // issue 27: FENs, JSON, URLs, `REGISTRY/arbiter` and console output are not files to check.
    let findings = check(
        "```sh\n\
         bin/arbiter board \"8/8/8/8/8/8/8/K6k w - - 0 1\" > diagram.svg\n\
         ls diagram.svg\n\
         helm install arbiter helm/arbiter --set image.repository=REGISTRY/arbiter\n\
         grpcurl -plaintext 127.0.0.1:50051 arbiter.v1.ArbiterService/ApplyMove\n\
         curl -s http://127.0.0.1:9090/metrics | jq -c '.a/b'\n\
         make -f mk/deploy.mk deploy-check SERVE_ARGS='--x y/z'\n\
         ```\n\
         ```console\n\
         $ node_modules/.bin/buf --version\n\
         missing/output.pgn\n\
         ```\n\
         ```json\n\
         {\"file\": \"missing/file.pgn\"}\n\
         ```\n",
    );
    assert_eq!(findings, Vec::<String>::new());
}

#[test]
fn help_flags_are_read_from_clap_lines_with_short_and_long_names() {
    let flags = help_flags(
        "Usage: arbiter adjudicate [OPTIONS] <FILE>\n\nOptions:\n      --format <FORMAT>\n          Output [default: table]\n  -j, --jobs <JOBS>\n          Threads\n  -h, --help\n          Print help\n",
    );
    assert_eq!(
        flags.into_iter().collect::<Vec<_>>(),
        ["--format", "--help", "--jobs", "-h", "-j"]
    );
}

#[test]
fn make_targets_are_the_rules_of_the_makefile_and_mk_not_its_variables() {
    let targets = make_targets(&workspace_root());
    for target in ["test", "run", "deploy-check", "web-example", "fuzz"] {
        assert!(
            targets.contains(target),
            "{target} missing from {targets:?}"
        );
    }
    for variable in ["CARGO", "TEST_STEPS", "BUF", "GRPC_ADDR", ".PHONY"] {
        assert!(!targets.contains(variable), "{variable} read as a target");
    }
}

#[test]
fn a_directory_an_earlier_cp_or_mkdir_made_and_its_files_may_be_named_and_others_may_not() {
    // issue 27: the production overlay's image component is copied from image.example first.
    let findings = check(
        "text\n\
         ```sh\n\
         cp -r deploy/kustomize/overlays/production/image.example deploy/kustomize/overlays/production/image\n\
         ls deploy/kustomize/overlays/production/image/kustomization.yaml deploy/kustomize/overlays/production/image\n\
         ls deploy/kustomize/overlays/staging/image\n\
         ```\n",
    );
    assert_eq!(
        findings,
        [
            "block.md:5: names deploy/kustomize/overlays/staging/image, which is neither in the repository nor a build product of make test or make run",
        ]
    );
}

/// The anchor GitHub gives a heading: lower case; letters, digits, `-` and `_` kept, spaces
/// made `-`, everything else (punctuation, backticks) dropped; a repeated heading gets `-1`,
/// `-2`, ... (counted in `seen`).
fn heading_anchor(heading: &str, seen: &mut BTreeMap<String, usize>) -> String {
    let slug: String = heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect();
    let count = seen.entry(slug.clone()).or_insert(0);
    let anchor = if *count == 0 {
        slug
    } else {
        format!("{slug}-{count}")
    };
    *count += 1;
    anchor
}

/// The lines of a Markdown text outside fenced code blocks, with their 1-based numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push((i + 1, line));
        }
    }
    lines
}

/// The anchors of a Markdown text's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeMap::new();
    prose_lines(text)
        .into_iter()
        .filter_map(|(_, line)| {
            let level = line.chars().take_while(|c| *c == '#').count();
            (1..=6)
                .contains(&level)
                .then(|| line[level..].strip_prefix(' '))
                .flatten()
        })
        .map(|heading| heading_anchor(heading, &mut seen))
        .collect()
}

/// The targets of the inline links `[text](target)` of a Markdown text, outside code blocks and
/// code spans, with their line numbers.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut targets = Vec::new();
    for (number, line) in prose_lines(text) {
        // Code spans hold text, not links: keep the parts between backtick pairs.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push((number, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    targets
}

#[test]
fn every_link_of_the_readme_and_docs_reaches_a_file_and_heading_that_exist() {
    // issue 27 fresh-user finding: docs/operations.md linked cli.md#durations-and-addresses, a
    // section a merge had dropped; the command-block check does not read links.
    let root = workspace_root();
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in documents(&root) {
        let text = std::fs::read_to_string(root.join(&document)).unwrap();
        let dir = Path::new(&document).parent().unwrap_or(Path::new(""));
        for (line, target) in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if path.is_empty() {
                PathBuf::from(&document)
            } else {
                dir.join(path)
            };
            checked += 1;
            let Ok(linked) = std::fs::read_to_string(root.join(&file)) else {
                if !root.join(&file).exists() {
                    broken.push(format!(
                        "{document}:{line}: {target}: no file {}",
                        file.display()
                    ));
                }
                continue; // a directory or a file that is not text
            };
            if !anchor.is_empty()
                && file.extension().is_some_and(|e| e == "md")
                && !anchors(&linked).contains(anchor)
            {
                broken.push(format!(
                    "{document}:{line}: {target}: {} has no heading #{anchor}",
                    file.display()
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    assert!(checked > 50, "only {checked} links read");
}

#[test]
fn a_link_to_a_missing_heading_is_found_and_anchors_follow_github() {
    let mut seen = BTreeMap::new();
    assert_eq!(
        heading_anchor(
            "ApplyMoves (the first illegal ply is pinpointed)",
            &mut seen
        ),
        "applymoves-the-first-illegal-ply-is-pinpointed"
    );
    assert_eq!(
        heading_anchor("gRPC-Web (browsers)", &mut seen),
        "grpc-web-browsers"
    );
    assert_eq!(
        heading_anchor("`arbiter serve`", &mut seen),
        "arbiter-serve"
    );
    assert_eq!(
        heading_anchor("arbiter serve", &mut seen),
        "arbiter-serve-1"
    );
    let text = "# Title\n\nSee [there](#nowhere) and [here](#title), `[not](#a-link)`.\n\
                ```\n[in a block](#nor-this)\n```\n";
    assert_eq!(
        link_targets(text),
        [(3, "#nowhere".to_string()), (3, "#title".to_string())]
    );
    assert_eq!(anchors(text), BTreeSet::from(["title".to_string()]));
}
