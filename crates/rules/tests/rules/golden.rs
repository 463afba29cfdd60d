//! Issue 12 item 2: one golden file holds the prose of every reason. The other tests assert
//! kinds, causes and articles; the sentences a user reads are all here, one per line:
//! `cause<TAB>input<TAB>sentence`. After a deliberate change of wording, regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p arbiter-rules --test rules golden::` and review the diff.

use std::fmt::Write as _;
use std::path::Path;

use arbiter_rules::{FenError, Position, Square};

use crate::rules_fide::ILLEGALITY_CASES;

/// One FEN per reason a position or its text is refused.
const INVALID_FENS: &[&str] = &[
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
    "7k/8/8/8/8/N7/NNNNN3/NNNNN2K w - - 0 1",
    "k7/8/8/8/8/P7/PPPPPPPP/QQQQQQQK w - - 0 1",
    "4k3/8/3N4/1B6/8/8/8/4R2K b - - 0 1",
    "4k3/8/8/8/8/8/8/4K2r b - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
    "4k3/8/8/8/8/8/8/3K3R w K - 0 1",
    "4k3/8/8/8/8/8/8/4K1RR w GH - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w KH - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - e4 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
    "4k3/8/8/4p3/8/8/8/r3K3 w - e6 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 10001 1",
    "8/8/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w KX - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - z9 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - x 1",
    "4k3/8/8/8/8/8/8/4K3",
    "4k3/8/8/8/8/8/8/4KX2 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
];

fn render() -> String {
    let mut text = String::new();
    for &(fen, from, to, promotion, cause, _) in ILLEGALITY_CASES {
        let position = Position::from_fen(fen).expect("a valid position");
        let square = |name| Square::from_name(name).expect("a square");
        let why = position.explain_illegal(square(from), square(to), promotion);
        let promotion = promotion.map_or(String::new(), |role| role.char().to_string());
        let _ = writeln!(text, "{cause}\t{fen} {from}{to}{promotion}\t{why}");
    }
    for fen in INVALID_FENS {
        let error = Position::from_fen(fen).expect_err("an invalid FEN");
        let cause = match &error {
            FenError::Position(error) => error.cause().to_owned(),
            FenError::Syntax(error) => format!("syntax:{:?}", error.field()),
        };
        let _ = writeln!(text, "{cause}\t{fen}\t{error}");
    }
    text
}

#[test]
fn the_sentences_of_every_reason_are_the_golden_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rules/golden/reasons.txt");
    let text = render();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).expect("golden file written");
    }
    let golden = std::fs::read_to_string(&path).expect("golden file");
    for (line, (want, got)) in golden.lines().zip(text.lines()).enumerate() {
        assert_eq!(got, want, "{}:{}", path.display(), line + 1);
    }
    assert_eq!(
        text.lines().count(),
        golden.lines().count(),
        "{}: line count",
        path.display()
    );
}
