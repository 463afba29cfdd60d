//! A position drawn as an SVG board diagram.
//!
//! The board is 8 × [`SQUARE`] units with a margin for the coordinates on the left and at the
//! bottom, and one on the right for the side-to-move mark. Each piece is a `<g class="piece
//! COLOR ROLE" transform="translate(X Y)">` of the shape of its kind, defined once in `<defs>`;
//! (X, Y) is the top left corner of its square ([`square_origin`]).

use std::fmt::Write as _;

use arbiter_rules::{Color, Position, Square};

/// The side of a square, in SVG user units.
pub const SQUARE: u32 = 45;

/// Room for the coordinates, left of and below the board.
const MARGIN: u32 = 18;

/// Room right of the board for the side-to-move mark.
const SIDE: u32 = 16;

/// Light and dark squares, the last move's squares, and the checked king's square.
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const LAST_MOVE: &str = "rgba(205,210,60,0.55)";
const CHECK: &str = "rgba(220,20,20,0.75)";

/// What to draw: a position, seen from White's side unless `flipped`, with its last move marked.
#[derive(Clone, Copy, Debug)]
pub struct Diagram<'a> {
    /// The position.
    pub position: &'a Position,
    /// The squares the last move went from and to (for castling, the king's), marked.
    pub last_move: Option<(Square, Square)>,
    /// Black's side at the bottom.
    pub flipped: bool,
}

impl<'a> Diagram<'a> {
    /// The position seen from White's side, no move marked.
    #[must_use]
    pub fn new(position: &'a Position) -> Diagram<'a> {
        Diagram {
            position,
            last_move: None,
            flipped: false,
        }
    }
}

/// The top left corner of `square` in the diagram, in SVG user units: files run left to right
/// and ranks bottom to top from White's side (the other way round when `flipped`).
#[must_use]
pub fn square_origin(square: Square, flipped: bool) -> (u32, u32) {
    let (file, rank) = (square.file().index(), square.rank().index());
    let (column, row) = if flipped {
        (7 - file, rank)
    } else {
        (file, 7 - rank)
    };
    (MARGIN + column * SQUARE, row * SQUARE)
}

/// The diagram of `diagram.position` as one SVG document (UTF-8 text, about 7 KB): the squares,
/// file letters and rank numbers, the last move's two squares tinted, the king in check on a red
/// disc, the pieces, and a disc of the side to move's colour beside its edge of the board. The
/// `<title>` holds the position's FEN, for screen readers and tooltips.
#[must_use]
pub fn board_svg(diagram: &Diagram<'_>) -> String {
    draw(diagram, true)
}

/// The diagram of [`board_svg`] without the shapes it uses (pieces, squares, coordinates), for
/// an HTML document that holds many boards: about 3 KB instead of 7. The document must contain
/// [`shared_defs_svg`] once, before or after the boards: the boards' `<use href="#wK">`
/// references resolve across the inline SVGs of one HTML document.
#[must_use]
pub fn board_svg_fragment(diagram: &Diagram<'_>) -> String {
    draw(diagram, false)
}

/// The shapes [`board_svg_fragment`] refers to, as a hidden SVG element to include once in an
/// HTML document (`aria-hidden`, no size).
#[must_use]
pub fn shared_defs_svg() -> String {
    let mut svg = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board-defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" style=\"position:absolute\">",
    );
    defs(&mut svg);
    svg.push_str("</svg>\n");
    svg
}

/// The shapes of a diagram, as one `<defs>`: the piece shapes ([`PIECE_DEFS`]), the squares as
/// a pattern (a light square at the top left, from either side), and the coordinates from each
/// side (`coords-white`, `coords-black`).
fn defs(svg: &mut String) {
    svg.push_str("<defs>");
    svg.push_str(PIECE_DEFS);
    let double = 2 * SQUARE;
    let _ = write!(
        svg,
        "<pattern id=\"squares\" x=\"{MARGIN}\" y=\"0\" width=\"{double}\" height=\"{double}\" patternUnits=\"userSpaceOnUse\"><rect width=\"{double}\" height=\"{double}\" fill=\"{LIGHT}\"/><rect x=\"{SQUARE}\" width=\"{SQUARE}\" height=\"{SQUARE}\" fill=\"{DARK}\"/><rect y=\"{SQUARE}\" width=\"{SQUARE}\" height=\"{SQUARE}\" fill=\"{DARK}\"/></pattern>"
    );
    coordinates(svg, false);
    coordinates(svg, true);
    svg.push_str("</defs>");
}

fn draw(diagram: &Diagram<'_>, standalone: bool) -> String {
    let Diagram {
        position,
        last_move,
        flipped,
    } = *diagram;
    let width = MARGIN + 8 * SQUARE + SIDE;
    let height = 8 * SQUARE + MARGIN;
    let mut svg = String::with_capacity(if standalone { 6 * 1024 } else { 3 * 1024 });
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" class=\"board\">"
    );
    let _ = write!(svg, "<title>{}</title>", escape(&position.to_fen()));
    if standalone {
        defs(&mut svg);
    }
    let side = 8 * SQUARE;
    let _ = write!(
        svg,
        "<rect class=\"squares\" x=\"{MARGIN}\" y=\"0\" width=\"{side}\" height=\"{side}\" fill=\"url(#squares)\"/>"
    );
    if let Some((from, to)) = last_move {
        for square in [from, to] {
            let (x, y) = square_origin(square, flipped);
            let _ = write!(
                svg,
                "<rect class=\"last-move\" x=\"{x}\" y=\"{y}\" width=\"{SQUARE}\" height=\"{SQUARE}\" fill=\"{LAST_MOVE}\"/>"
            );
        }
    }
    if position.is_check()
        && let Some(king) = position.king_square(position.side_to_move())
    {
        let (x, y) = square_origin(king, flipped);
        let (cx, cy, r) = (x + SQUARE / 2, y + SQUARE / 2, SQUARE * 9 / 20);
        let _ = write!(
            svg,
            "<circle class=\"check\" cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" fill=\"{CHECK}\"/>"
        );
    }
    for square in Square::all() {
        if let Some(piece) = position.piece_at(square) {
            let (x, y) = square_origin(square, flipped);
            let (color, role) = (piece.color.name(), piece.role.name());
            let _ = write!(
                svg,
                "<g class=\"piece {color} {role}\" transform=\"translate({x} {y})\"><use href=\"#{}{}\"/></g>",
                piece.color.char(),
                piece.role.upper_char()
            );
        }
    }
    let _ = write!(
        svg,
        "<use href=\"#coords-{}\"/>",
        if flipped { "black" } else { "white" }
    );
    // The side to move: a disc at its own edge of the board.
    let mover = position.side_to_move();
    let at_bottom = (mover == Color::White) != flipped;
    let cy = if at_bottom { 8 * SQUARE - 10 } else { 10 };
    let (fill, name) = match mover {
        Color::White => ("#fff", "White"),
        Color::Black => ("#000", "Black"),
    };
    let _ = write!(
        svg,
        "<circle class=\"to-move {}\" cx=\"{}\" cy=\"{cy}\" r=\"6\" fill=\"{fill}\" stroke=\"#000\" stroke-width=\"1.5\"><title>{name} to move</title></circle>",
        mover.name(),
        MARGIN + 8 * SQUARE + SIDE / 2
    );
    svg.push_str("</svg>\n");
    svg
}

/// File letters under the board and rank numbers left of it, as the group `coords-white` (seen
/// from White's side) or `coords-black`.
fn coordinates(svg: &mut String, flipped: bool) {
    let _ = write!(
        svg,
        "<g id=\"coords-{}\" class=\"coordinates\" font-family",
        if flipped { "black" } else { "white" }
    );
    svg.push_str("=\"sans-serif\" font-size=\"12\" fill=\"#555\" text-anchor=\"middle\">");
    for i in 0..8u32 {
        let file = if flipped { 7 - i } else { i };
        let rank = if flipped { i + 1 } else { 8 - i };
        let letter = char::from(b'a' + u8::try_from(file).unwrap_or(0));
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\">{letter}</text><text x=\"{}\" y=\"{}\">{rank}</text>",
            MARGIN + i * SQUARE + SQUARE / 2,
            8 * SQUARE + MARGIN - 4,
            MARGIN / 2,
            i * SQUARE + SQUARE / 2 + 4
        );
    }
    svg.push_str("</g>");
}

/// Text for an XML element or attribute.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The twelve piece shapes, in a square of 45 units, drawn for this crate: a body in the piece's
/// colour outlined in black, and details (eye, mitre slit, cross) in the other colour. Ids are
/// the colour's letter and the piece's FEN letter (`wK`, `bn`, ...).
const PIECE_DEFS: &str = concat!(
    "<g id=\"shapeP\"><circle cx=\"22.5\" cy=\"15\" r=\"5.5\"/><path d=\"M16 35C16 28 19 24 22.5 22C26 24 29 28 29 35Z\"/><rect x=\"12\" y=\"34\" width=\"21\" height=\"5\" rx=\"2\"/></g>",
    "<g id=\"shapeN\"><path d=\"M14 35C14 29 17 25 20 22C16 22 12 24 11 21C10 18 14 13 18 11L18 7L21 9C28 9 33 15 33 25L33 35Z\"/><rect x=\"11\" y=\"34\" width=\"23\" height=\"5\" rx=\"2\"/></g>",
    "<g id=\"shapeB\"><circle cx=\"22.5\" cy=\"8\" r=\"2.8\"/><path d=\"M22.5 10.5C15 16 15 25 17.5 30L27.5 30C30 25 30 16 22.5 10.5Z\"/><path d=\"M15 30H30L31 34H14Z\"/><rect x=\"11\" y=\"34\" width=\"23\" height=\"5\" rx=\"2\"/></g>",
    "<g id=\"shapeR\"><path d=\"M11 10H15V13H19.5V10H25.5V13H30V10H34V18H11Z\"/><path d=\"M14 18H31L32 34H13Z\"/><rect x=\"10\" y=\"34\" width=\"25\" height=\"5\" rx=\"2\"/></g>",
    "<g id=\"shapeQ\"><circle cx=\"8.5\" cy=\"13\" r=\"2.5\"/><circle cx=\"16.5\" cy=\"9.5\" r=\"2.5\"/><circle cx=\"28.5\" cy=\"9.5\" r=\"2.5\"/><circle cx=\"36.5\" cy=\"13\" r=\"2.5\"/><circle cx=\"22.5\" cy=\"8\" r=\"2.5\"/><path d=\"M11 33L8.5 15.5L15 25L16.5 12L22.5 24L28.5 12L30 25L36.5 15.5L34 33Z\"/><rect x=\"10\" y=\"33\" width=\"25\" height=\"6\" rx=\"2\"/></g>",
    "<g id=\"shapeK\"><path d=\"M12 33C9 25 13 19 22.5 21.5C32 19 36 25 33 33Z\"/><rect x=\"20.5\" y=\"6\" width=\"4\" height=\"14\"/><rect x=\"17.5\" y=\"9\" width=\"10\" height=\"4\"/><rect x=\"10\" y=\"33\" width=\"25\" height=\"6\" rx=\"2\"/></g>",
    "<g id=\"wP\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeP\"/></g>",
    "<g id=\"wN\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeN\"/><circle cx=\"20\" cy=\"15\" r=\"1.3\" fill=\"#000\"/></g>",
    "<g id=\"wB\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeB\"/><path d=\"M20 22L25.5 16.5\" fill=\"none\"/></g>",
    "<g id=\"wR\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeR\"/></g>",
    "<g id=\"wQ\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeQ\"/></g>",
    "<g id=\"wK\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeK\"/></g>",
    "<g id=\"bP\" fill=\"#000\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeP\"/></g>",
    "<g id=\"bN\" fill=\"#000\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeN\"/><circle cx=\"20\" cy=\"15\" r=\"1.3\" fill=\"#fff\" stroke=\"none\"/></g>",
    "<g id=\"bB\" fill=\"#000\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeB\"/><path d=\"M20 22L25.5 16.5\" fill=\"none\" stroke=\"#fff\"/></g>",
    "<g id=\"bR\" fill=\"#000\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeR\"/><path d=\"M14 21H31\" stroke=\"#fff\" stroke-width=\"1\"/></g>",
    "<g id=\"bQ\" fill=\"#000\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeQ\"/><path d=\"M12 30H33\" stroke=\"#fff\" stroke-width=\"1\"/></g>",
    "<g id=\"bK\" fill=\"#000\" stroke=\"#000\" stroke-width=\"1.5\"><use href=\"#shapeK\"/><path d=\"M13 30H32\" stroke=\"#fff\" stroke-width=\"1\"/></g>",
);

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_rules::Piece;

    fn position(fen: &str) -> Position {
        Position::from_fen_detecting_mode(fen, arbiter_rules::Validation::default()).expect(fen)
    }

    /// The square whose top left corner is (x, y) in the diagram.
    fn square_at(x: u32, y: u32, flipped: bool) -> Option<Square> {
        Square::all().find(|&square| square_origin(square, flipped) == (x, y))
    }

    /// Each piece drawn, read back from the SVG: where its group is translated to, and its
    /// colour and kind from its class and the shape it uses.
    fn drawn_pieces(svg: &str, flipped: bool) -> Vec<(Square, Piece)> {
        let document = roxmltree::Document::parse(svg).expect("well-formed SVG");
        let mut pieces = Vec::new();
        for group in document.descendants().filter(|node| {
            node.has_tag_name("g")
                && node
                    .attribute("class")
                    .is_some_and(|class| class.starts_with("piece "))
        }) {
            let transform = group.attribute("transform").unwrap();
            let numbers: Vec<u32> = transform
                .trim_start_matches("translate(")
                .trim_end_matches(')')
                .split(' ')
                .map(|n| n.parse().unwrap())
                .collect();
            let square = square_at(numbers[0], numbers[1], flipped)
                .unwrap_or_else(|| panic!("{transform} is no square's corner"));
            let shape = group
                .children()
                .find_map(|child| child.attribute("href"))
                .unwrap();
            let letters: Vec<char> = shape.trim_start_matches('#').chars().collect();
            let color = if letters[0] == 'w' {
                Color::White
            } else {
                Color::Black
            };
            let role = arbiter_rules::Role::from_char(letters[1].to_ascii_lowercase()).unwrap();
            assert_eq!(
                group.attribute("class"),
                Some(format!("piece {} {}", color.name(), role.name()).as_str())
            );
            assert!(
                document
                    .descendants()
                    .any(|node| node.attribute("id") == Some(&shape[1..])),
                "{shape} is defined"
            );
            pieces.push((square, Piece { color, role }));
        }
        pieces
    }

    /// Issue 14: every piece stands on its square, from either side, in the start position, a
    /// Chess960 position, after a promotion and with an en passant capture possible.
    #[test]
    fn every_piece_is_drawn_on_its_square() {
        for fen in [
            arbiter_rules::STARTING_FEN,
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "1Q2k3/8/8/8/8/8/8/4K3 b - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ] {
            let position = position(fen);
            let mut expected: Vec<(Square, Piece)> = Square::all()
                .filter_map(|square| position.piece_at(square).map(|piece| (square, piece)))
                .collect();
            expected.sort_by_key(|(square, _)| square.index());
            for flipped in [false, true] {
                let svg = board_svg(&Diagram {
                    flipped,
                    ..Diagram::new(&position)
                });
                let mut drawn = drawn_pieces(&svg, flipped);
                drawn.sort_by_key(|(square, _)| square.index());
                assert_eq!(drawn, expected, "{fen}, flipped: {flipped}");
            }
        }
    }

    /// The corners: a1 bottom left and h8 top right from White's side, the other way round from
    /// Black's.
    #[test]
    fn a1_is_bottom_left_from_whites_side_and_top_right_from_blacks() {
        let a1 = Square::from_name("a1").unwrap();
        let h8 = Square::from_name("h8").unwrap();
        assert_eq!(square_origin(a1, false), (MARGIN, 7 * SQUARE));
        assert_eq!(square_origin(h8, false), (MARGIN + 7 * SQUARE, 0));
        assert_eq!(square_origin(a1, true), (MARGIN + 7 * SQUARE, 0));
        assert_eq!(square_origin(h8, true), (MARGIN, 7 * SQUARE));
    }

    /// The marks: the last move's two squares, the checked king's square, the side to move.
    #[test]
    fn the_last_move_the_check_and_the_side_to_move_are_marked() {
        // 1. f3 e5 2. g4 Qh4#: White is checkmated.
        let position = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        let (d8, h4) = (
            Square::from_name("d8").unwrap(),
            Square::from_name("h4").unwrap(),
        );
        let svg = board_svg(&Diagram {
            last_move: Some((d8, h4)),
            ..Diagram::new(&position)
        });
        let document = roxmltree::Document::parse(&svg).unwrap();
        let with_class = |class: &str| -> Vec<(u32, u32)> {
            document
                .descendants()
                .filter(|node| node.attribute("class") == Some(class))
                .map(|node| {
                    let number = |name| node.attribute(name).unwrap().parse::<u32>().unwrap();
                    if node.has_tag_name("circle") {
                        (number("cx") - SQUARE / 2, number("cy") - SQUARE / 2)
                    } else {
                        (number("x"), number("y"))
                    }
                })
                .collect()
        };
        assert_eq!(
            with_class("last-move"),
            [square_origin(d8, false), square_origin(h4, false)]
        );
        let e1 = Square::from_name("e1").unwrap();
        assert_eq!(with_class("check"), [square_origin(e1, false)]);
        let to_move: Vec<_> = document
            .descendants()
            .filter(|node| node.attribute("class") == Some("to-move white"))
            .collect();
        assert_eq!(to_move.len(), 1, "White to move, at the bottom");
        assert!(to_move[0].attribute("cy").unwrap().parse::<u32>().unwrap() > 4 * SQUARE);
        assert!(
            document.descendants().any(|node| node.has_tag_name("title")
                && node.text() == Some(position.to_fen().as_str()))
        );
    }
}
