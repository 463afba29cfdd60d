//! # arbiter-report
//!
//! What people look at rather than machines: [`board_svg`] draws a position as a self-contained
//! SVG board diagram (coordinates, side to move, the last move and a check marked), with the
//! pieces as SVG paths of this crate's own design, so that a diagram looks the same on every
//! machine (no image files, no font glyphs); [`html`] writes the HTML report of a round that
//! `arbiter adjudicate --format html` gives, with such boards for the games that need a look.
//!
//! ```
//! use arbiter_report::{Diagram, board_svg};
//! use arbiter_rules::{Position, Square};
//!
//! let position = Position::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").unwrap();
//! let svg = board_svg(&Diagram {
//!     last_move: Some((Square::from_name("e7").unwrap(), Square::from_name("e5").unwrap())),
//!     ..Diagram::new(&position)
//! });
//! assert!(svg.starts_with("<svg"));
//! assert_eq!(svg.matches("class=\"piece ").count(), 32);
//! ```

mod board;

pub use board::{Diagram, SQUARE, board_svg, board_svg_fragment, shared_defs_svg, square_origin};
pub mod html;
