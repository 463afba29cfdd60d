//! Issue 28 item 4: `arbiter adjudicate` reads compressed rounds (zstd, gzip with one member or
//! many, bzip2, zip) from files and from standard input, told apart by their first bytes; the
//! records are those of the PGN file, byte for byte (a zip's name their member); corrupt or cut
//! input is an error with its place and exit status 1, never a silent partial result. The
//! fixtures are made by tests/data/adjudicate/compressed/make.py from round.pgn.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use arbiter_e2e::{binary, command, data_dir};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

const CLI_TIMEOUT: Duration = Duration::from_secs(120);

/// The first game of round.pgn's second half (games 6-10), the zip fixtures' round-b.pgn.
const SECOND_HALF_LINE: usize = 56;

fn fixture(name: &str) -> PathBuf {
    data_dir().join("adjudicate/compressed").join(name)
}

fn round() -> PathBuf {
    data_dir().join("adjudicate/round.pgn")
}

/// Runs `arbiter adjudicate FILE ARGS...`.
fn cli(file: &Path, args: &[&str]) -> Output {
    command::run(
        Command::new(binary::arbiter())
            .arg("adjudicate")
            .arg(file)
            .args(args),
        CLI_TIMEOUT,
    )
}

/// Runs `arbiter adjudicate - ARGS...` with `input` written to its standard input (a pipe).
fn cli_stdin(input: &[u8], args: &[&str]) -> Output {
    let mut child = Command::new(binary::arbiter())
        .arg("adjudicate")
        .arg("-")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arbiter");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // The reader may stop early (an error): a closed pipe is no failure of the test.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("arbiter runs");
    writer.join().expect("writer");
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

fn records(output: &Output) -> Vec<Value> {
    text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON record"))
        .collect()
}

/// A temporary directory of its own, removed when the value is dropped (a failing test too).
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("arbiter-e2e-{name}-"))
        .tempdir()
        .expect("scratch directory")
}

/// round.pgn's first and second halves (games 1-5 and 6-10), as the zip fixtures hold them.
fn halves() -> (String, String) {
    let round = std::fs::read_to_string(round()).expect("round.pgn");
    let at = round
        .split_inclusive('\n')
        .take(SECOND_HALF_LINE - 1)
        .map(str::len)
        .sum();
    let (a, b) = round.split_at(at);
    assert!(b.starts_with("[Event "), "{b:.40}");
    (a.to_owned(), b.to_owned())
}

/// The JSON records of a PGN text, as `arbiter adjudicate` writes them for a file.
fn records_of_text(dir: &Path, name: &str, pgn: &str, args: &[&str]) -> Vec<Value> {
    let path = dir.join(name);
    std::fs::write(&path, pgn).expect("write");
    records(&cli(&path, args))
}

/// Issue 28 item 4: each compressed form of the round (zstd, gzip, a gzip of two members,
/// bzip2) gives the JSON lines and the table of round.pgn byte for byte, with the same exit
/// status, at -j 1 and -j 2, from the file and from standard input.
#[test]
fn compressed_rounds_give_the_records_of_the_pgn_file_byte_for_byte() {
    for format in ["jsonl", "table"] {
        let args = ["--format", format, "--analysis", "fast"];
        let plain = cli(&round(), &args);
        assert_eq!(plain.status.code(), Some(2), "the round has findings");
        assert!(plain.stdout.len() > 500);
        for name in [
            "round.pgn.zst",
            "round.pgn.gz",
            "round-two-members.pgn.gz",
            "round.pgn.bz2",
        ] {
            for jobs in ["1", "2"] {
                let mut with_jobs = args.to_vec();
                with_jobs.extend(["-j", jobs]);
                let output = cli(&fixture(name), &with_jobs);
                assert_eq!(
                    text(&output.stdout),
                    text(&plain.stdout),
                    "{name} -j {jobs} --format {format}"
                );
                assert_eq!(output.status.code(), plain.status.code(), "{name}");
                assert_eq!(text(&output.stderr), text(&plain.stderr), "{name}");
            }
            let bytes = std::fs::read(fixture(name)).expect("fixture");
            let output = cli_stdin(&bytes, &args);
            assert_eq!(
                text(&output.stdout),
                text(&plain.stdout),
                "{name} from standard input"
            );
            assert_eq!(output.status.code(), plain.status.code(), "{name}");
        }
    }
}

/// Issue 28 item 4: a zip's `.pgn` members are read in order, each record naming its member
/// (`member`, `request_index` the member's number, `game_index` and `line` in the member,
/// `index` across the archive), otherwise equal to the records of the member's own file; the
/// README member is skipped and named in the summary. The same from standard input, at -j 2,
/// and for the zip whose members carry data descriptors read as a file.
#[test]
fn zip_members_are_read_in_order_and_named_in_each_record() {
    let scratch_dir = scratch("zip-members");
    let dir = scratch_dir.path();
    let args = ["--format", "jsonl", "--analysis", "fast"];
    let (a, b) = halves();
    let mut expected = Vec::new();
    for (number, (member, pgn)) in [("round-a.pgn", &a), ("round-b.pgn", &b)]
        .into_iter()
        .enumerate()
    {
        for mut record in records_of_text(dir, member, pgn, &args) {
            record["index"] = Value::from(expected.len());
            record["request_index"] = Value::from(number);
            record["member"] = Value::from(member);
            expected.push(record);
        }
    }
    assert_eq!(expected.len(), 10);
    assert_eq!(expected[5]["game_index"], 0);
    assert_eq!(expected[5]["line"], 1);
    let zip = std::fs::read(fixture("rounds.zip")).expect("fixture");
    for (how, output) in [
        ("file", cli(&fixture("rounds.zip"), &args)),
        (
            "file, -j 2",
            cli(&fixture("rounds.zip"), &[&args[..], &["-j", "2"]].concat()),
        ),
        ("standard input", cli_stdin(&zip, &args)),
        (
            "file with data descriptors",
            cli(&fixture("rounds-data-descriptor.zip"), &args),
        ),
    ] {
        assert_eq!(records(&output), expected, "{how}");
        assert_eq!(output.status.code(), Some(2), "{how}");
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("; 1 zip member skipped\n")
                && stderr.contains("\nskipped: zip member README (not a .pgn file)\n"),
            "{how}: {stderr}"
        );
    }
    // The single-member zip of the whole round: round.pgn's records, each naming the member.
    let plain = records(&cli(&round(), &args));
    let zipped = records(&cli(&fixture("round.zip"), &args));
    assert_eq!(zipped.len(), plain.len());
    for (mut zipped, plain) in zipped.into_iter().zip(plain) {
        assert_eq!(zipped["member"], "round.pgn");
        zipped["member"] = Value::from("");
        assert_eq!(zipped, plain);
    }
    // The table has a member column, PGN output an ArbiterMember tag.
    let table = text(&cli(&fixture("rounds.zip"), &["--analysis", "fast"]).stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[1].starts_with("game   member               event "),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("5.1    round-a.pgn          Fixture Open "),
        "{}",
        lines[2]
    );
    assert!(
        lines[7].starts_with("5.6    round-b.pgn          Fixture Open "),
        "{}",
        lines[7]
    );
    let pgn = text(
        &cli(
            &fixture("rounds.zip"),
            &["--format", "pgn", "--analysis", "fast"],
        )
        .stdout,
    );
    assert_eq!(pgn.matches("[ArbiterMember \"round-a.pgn\"]").count(), 5);
    assert!(pgn.matches("[ArbiterMember \"round-b.pgn\"]").count() >= 4);
}

/// Issue 28 item 4: from standard input, which cannot seek, a zip member is read through its
/// local header, which must carry its sizes: a member with a data descriptor is an error that
/// names it and says to pass the file instead; exit status 1, nothing adjudicated. A zip cut in
/// a member is an error naming the member, after the games of the members before it.
#[test]
fn zip_from_standard_input_with_data_descriptors_names_the_member_and_the_remedy() {
    let zip = std::fs::read(fixture("rounds-data-descriptor.zip")).expect("fixture");
    let output = cli_stdin(&zip, &["--format", "jsonl"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "cannot read standard input: zip member round-a.pgn uses a data descriptor (its sizes follow its data, so it cannot be read as a stream): pass the file, not standard input\n"
        ),
        "{stderr}"
    );
    assert!(stderr.starts_with("summary: 0 games; "), "{stderr}");
    assert!(stderr.contains("the input was not read whole"), "{stderr}");
    // A zip cut in its second member: the first member's games, then the error.
    let zip = std::fs::read(fixture("rounds.zip")).expect("fixture");
    let output = cli_stdin(&zip[..800], &["--format", "jsonl", "--analysis", "fast"]);
    assert_eq!(output.status.code(), Some(1));
    let read = records(&output);
    assert!(
        read[..5]
            .iter()
            .all(|record| record["member"] == "round-a.pgn" && record.get("verdict").is_some()),
        "{read:?}"
    );
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("\narbiter: cannot read standard input: zip member round-b.pgn: cut short (")
            // Reading stops at the member that was cut: one error, not one more for the rest.
            && stderr.ends_with("the output covers only the games read before the input error\n"),
        "{stderr}"
    );
}

/// Issue 28 item 4: a zstd file cut in the middle of its second frame gives the records of the
/// games before the cut (those of round.pgn), then an error record for the game it cut, and exit
/// status 1 with the offset where the input ends and how much PGN was read; the summary says
/// the input was not read whole.
#[test]
fn a_cut_zstd_file_is_an_input_error_naming_its_offset_with_exit_status_1() {
    let args = ["--format", "jsonl", "--analysis", "fast"];
    let plain = records(&cli(&round(), &args));
    for jobs in ["1", "2"] {
        let output = cli(
            &fixture("round-cut.pgn.zst"),
            &[&args[..], &["-j", jobs]].concat(),
        );
        assert_eq!(output.status.code(), Some(1), "-j {jobs}");
        let cut = records(&output);
        let last = cut.last().expect("a record");
        let reason = last["error"]["description"].as_str().expect("an error");
        // The first frame (games 1-5, 1,032 bytes) was read whole; the cut is in the second.
        let cut_at = std::fs::metadata(fixture("round-cut.pgn.zst"))
            .expect("fixture")
            .len();
        let message = format!(
            "the zstd data is cut short: the input ends at byte {cut_at} in the middle of it (incomplete frame), after 1032 bytes of PGN"
        );
        assert_eq!(reason, format!("line 56:1: I/O error: {message}"));
        assert_eq!(last["error"]["reason"], "INVALID_PGN");
        // The five games before the cut are round.pgn's, then the game the cut met.
        assert_eq!(cut.len(), 6);
        assert_eq!(cut[..5], plain[..5], "-j {jobs}");
        assert_eq!(last["index"], 5);
        let stderr = text(&output.stderr);
        assert!(
            stderr.starts_with("summary: 6 games; ")
                && stderr.contains(
                    "; the input was not read whole: the games after the input error are missing\n"
                )
                && stderr.contains(&format!("\ninput error: {message}\n"))
                && stderr.ends_with(&format!(
                    "cannot read {}: {message}\narbiter: the output covers only the games read before the input error\n",
                    fixture("round-cut.pgn.zst").display()
                )),
            "{stderr}"
        );
    }
    // The report heads the record with the line of the error (it said "line 0": a fresh
    // user's finding).
    let report = text(
        &cli(
            &fixture("round-cut.pgn.zst"),
            &["--format", "html", "--analysis", "fast"],
        )
        .stdout,
    );
    assert!(
        report.contains("</a>: ? – ? <span class=\"line\">(line 56)</span></h3>"),
        "{report}"
    );
}

/// Issue 28 item 4: corrupt compressed data (a byte changed in the middle of a gzip member, a
/// zip member's data changed so its CRC fails) is an input error naming where, exit status 1;
/// a zip member that cannot be read does not cost the members before it.
#[test]
fn corrupt_compressed_data_is_an_input_error_naming_where_it_broke() {
    let scratch_dir = scratch("corrupt");
    let dir = scratch_dir.path();
    let mut gz = std::fs::read(fixture("round.pgn.gz")).expect("fixture");
    let middle = gz.len() / 2;
    gz[middle] ^= 0xFF;
    let path = dir.join("bad.pgn.gz");
    std::fs::write(&path, &gz).expect("write");
    let output = cli(&path, &["--format", "jsonl"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("cannot read ") && stderr.contains(": corrupt gzip data at byte ")
            || stderr.contains(": the gzip data is cut short"),
        "{stderr}"
    );
    // rounds.zip with a byte of round-b.pgn's deflated data changed.
    let mut zip = std::fs::read(fixture("rounds.zip")).expect("fixture");
    let at = zip
        .windows(11)
        .position(|w| w == b"round-b.pgn")
        .expect("round-b.pgn's local header")
        + 11
        + 40;
    zip[at] ^= 0x55;
    let path = dir.join("bad.zip");
    std::fs::write(&path, &zip).expect("write");
    let output = cli(&path, &["--format", "jsonl", "--analysis", "fast"]);
    assert_eq!(output.status.code(), Some(1));
    let read = records(&output);
    assert!(
        read[..5]
            .iter()
            .all(|record| record["member"] == "round-a.pgn" && record.get("verdict").is_some()),
        "{read:?}"
    );
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(": zip member round-b.pgn: corrupt (")
            && stderr.contains(" bytes of its PGN\n"),
        "{stderr}"
    );
}

/// Issue 28 item 4: every bound of compressed input is a flag, and input beyond one is an
/// error naming it: the zip's entries (--max-zip-members, the README counts), its central
/// directory (--max-zip-directory-bytes), a zstd frame's window (--max-zstd-window-bytes:
/// the 2 KB round's frame needs a 2 KiB window).
#[test]
fn compressed_input_beyond_a_bound_is_an_error_naming_the_flag() {
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "rounds.zip",
            &["--max-zip-members", "2"],
            "its zip central directory lists 3 entries, more than --max-zip-members 2",
        ),
        (
            "rounds.zip",
            &["--max-zip-directory-bytes", "100"],
            // 46 bytes for each of its 3 entries and their names (11 + 6 + 11 bytes).
            "its zip central directory is 166 bytes, more than --max-zip-directory-bytes 100",
        ),
        (
            "round.pgn.zst",
            &["--max-zstd-window-bytes", "1024"],
            // Not "corrupt" (a fresh user's finding): a bound, named with its flag.
            "cannot read ROUND: the zstd data at byte 0 of the input cannot be read within the bounds (",
        ),
        (
            "rounds-data-descriptor.zip",
            &["--max-zip-members", "1"],
            "lists 3 entries, more than --max-zip-members 1",
        ),
    ];
    for (name, flags, message) in cases {
        let output = cli(&fixture(name), &[&["--format", "jsonl"], flags].concat());
        assert_eq!(output.status.code(), Some(1), "{name} {flags:?}");
        let stderr = text(&output.stderr);
        let message = message.replace("ROUND", &fixture(name).display().to_string());
        assert!(stderr.contains(&message), "{name} {flags:?}: {stderr}");
    }
    let output = cli(
        &fixture("round.pgn.zst"),
        &["--max-zstd-window-bytes", "1024"],
    );
    assert!(
        text(&output.stderr).contains(
            "the frame needs a window larger than --max-zstd-window-bytes 1024 (raise it to read this file)), after 0 bytes of PGN\n"
        ),
        "{}",
        text(&output.stderr)
    );
    // From standard input the members are counted as they come.
    let zip = std::fs::read(fixture("rounds.zip")).expect("fixture");
    let output = cli_stdin(&zip, &["--format", "jsonl", "--max-zip-members", "2"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("lists 3 entries, more than --max-zip-members 2"),
        "{stderr}"
    );
    // The bound's values are checked: 512 bytes is below the zstd window's 1 KiB.
    let output = cli(
        &fixture("round.pgn.zst"),
        &["--max-zstd-window-bytes", "512"],
    );
    assert_eq!(output.status.code(), Some(64));
}

/// Issue 28 item 4: the HTML report's SHA-256 is that of the file as given, compressed bytes
/// (read once more for a zip, whose members are read through its directory), and the head says
/// so.
#[test]
fn the_reports_sha256_is_the_compressed_files_and_says_so() {
    for (name, compression) in [("round.pgn.zst", "zstd"), ("rounds.zip", "zip")] {
        let bytes = std::fs::read(fixture(name)).expect("fixture");
        let sha256: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        for output in [
            cli(
                &fixture(name),
                &["--format", "html", "--report-date", "today"],
            ),
            cli_stdin(&bytes, &["--format", "html", "--report-date", "today"]),
        ] {
            let page = text(&output.stdout);
            assert!(
                page.contains(&format!("<dd id=\"sha256\">{sha256}</dd>")),
                "{name}"
            );
            assert!(
                page.contains(&format!(
                    "<dd id=\"compression\">{compression}-compressed: the SHA-256 is that of the compressed file, as given</dd>"
                )),
                "{name}"
            );
        }
    }
    let plain = text(&cli(&round(), &["--format", "html", "--report-date", "today"]).stdout);
    assert!(!plain.contains("id=\"compression\""));
}

/// Issue 28 item 4: a compressed format that is not read (xz, 7z, ...) is named and refused at
/// once, whatever the file's name, rather than read as movetext.
#[test]
fn an_xz_file_is_refused_by_name_before_any_work() {
    let scratch_dir = scratch("xz");
    let dir = scratch_dir.path();
    let path = dir.join("round.pgn");
    std::fs::write(&path, b"\xFD7zXZ\x00\x00\x04\xE6\xD6\xB4\x46").expect("write");
    let output = cli(&path, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert_eq!(
        text(&output.stderr),
        format!(
            "arbiter: cannot read {}: it is xz-compressed, which is not read: decompress it first and pass the PGN file (or pipe it to `arbiter adjudicate -`)\n",
            path.display()
        )
    );
}

/// Issue 28 (a fresh user's finding): a binary file given as a round (the arbiter executable
/// itself) was read as "UTF-32" text and gave hundreds of error records. Binary data is refused
/// as a whole, named, with exit status 1, from a file and from standard input; in a zip, the
/// binary member is named and the PGN members around it are read.
#[test]
fn binary_data_is_refused_as_not_text_naming_what_it_is() {
    let executable = binary::arbiter().to_path_buf();
    let output = cli(&executable, &["--format", "jsonl"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = text(&output.stderr);
    let refusal = "it is not PGN text but an ELF executable: arbiter reads PGN as UTF-8 or Windows-1252 text, plain or compressed (zstd, gzip, bzip2, zip)";
    assert!(
        stderr.contains(&format!(
            "arbiter: cannot read {}: {refusal}\n",
            executable.display()
        )) && stderr.contains(&format!("\ninput error: {refusal}\n")),
        "{stderr}"
    );
    assert!(
        stderr.starts_with("summary: 0 games; "),
        "no game record: {stderr}"
    );
    // Random bytes from standard input: control characters.
    let noise: Vec<u8> = (0..3000u32).map(|i| (i * 7919 % 251) as u8).collect();
    let output = cli_stdin(&noise, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr)
            .contains("arbiter: cannot read standard input: it is not PGN text but binary data: "),
        "{}",
        text(&output.stderr)
    );
    // A zip's image member among its rounds.
    let output = cli(&fixture("rounds-with-image.zip"), &["--analysis", "fast"]);
    assert_eq!(output.status.code(), Some(1));
    let table = text(&output.stdout);
    let games = table.lines().filter(|row| row.starts_with("5.")).count();
    assert_eq!(games, 10, "{table}");
    assert!(
        table.contains("; the input was not read whole: the zip members the input errors name are missing, or cut where the error is\ninput error: zip member photo.pgn: it is not PGN text but a PNG image: "),
        "{table}"
    );
    assert!(
        text(&output.stderr).ends_with(
            "\narbiter: the output leaves out the zip members the input errors name, or what follows the error in them; the others were read\n"
        ),
        "{}",
        text(&output.stderr)
    );
    // The report says so above all, and that the other members were read.
    let report = text(
        &cli(
            &fixture("rounds-with-image.zip"),
            &["--format", "html", "--analysis", "fast"],
        )
        .stdout,
    );
    assert!(
        report.contains("<strong>Incomplete:</strong> the input could not be read whole: zip member photo.pgn: it is not PGN text but a PNG image: arbiter reads PGN as UTF-8 or Windows-1252 text, plain or compressed (zstd, gzip, bzip2, zip). This report leaves out those zip members, or what follows the error in them; the others were read.</p>"),
        "{report}"
    );
}

/// A fresh user's finding on issue 28: an encrypted zip gave the zip library's words and then
/// "the zip archive holds no .pgn member (it has no member)", which is false. The member is
/// named as encrypted with the remedy, once, from a file and from standard input.
#[test]
fn an_encrypted_zip_member_is_named_as_encrypted_not_as_no_member() {
    let zip = fixture("round-encrypted.zip");
    let remedy = "it is encrypted (password-protected): decrypt it first (e.g. `unzip FILE`, which asks for the password) and pass the PGN";
    let output = cli(&zip, &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr,
        format!(
            "arbiter: cannot read {}: zip member round.pgn: {remedy}\narbiter: the output leaves out the zip members the input errors name, or what follows the error in them; the others were read\n",
            zip.display()
        )
    );
    let output = cli_stdin(&std::fs::read(&zip).expect("fixture"), &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "arbiter: cannot read standard input: it starts as a zip archive but cannot be read as one: {remedy} (after "
        )) && !stderr.contains("no .pgn member"),
        "{stderr}"
    );
}

/// A fresh user's finding on issue 28: a gzip file whose data decodes but fails its checksum
/// (stored blocks, a result changed inside them) gave its games as verdicts and then "the games
/// after the input error are missing", as if those read were sound. The error now says that
/// the games read before it came from the data that failed its checksum.
#[test]
fn a_checksum_failure_says_the_games_read_before_it_are_suspect() {
    let output = cli(
        &fixture("round-bad-checksum.pgn.gz"),
        &["--format", "jsonl"],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("(corrupt gzip stream does not have a matching checksum), after ")
            && stderr.contains(" bytes of PGN; the games read before the error came from the data that failed its checksum: check them against another copy of the file\n"),
        "{stderr}"
    );
}

/// A second fresh user's finding on issue 28: a zip without a `.pgn` member was said to be
/// "partly missing" (`the games after the input error are missing`), when it holds no game to
/// read. The error names its members, exit status 1, and nothing claims games after it.
#[test]
fn a_zip_without_a_pgn_member_names_its_members_and_claims_no_games_after() {
    let zip = fixture("readme-only.zip");
    let output = cli(&zip, &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "arbiter: cannot read {}: the zip archive holds no .pgn member (its members: README)\n",
            zip.display()
        )) && !stderr.contains("games read before")
            && !text(&output.stdout).contains("games after the input error"),
        "{stderr}"
    );
}
