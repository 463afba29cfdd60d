//! The integration tests of arbiter-pgn, in one test binary: the reader, the replay, the
//! writer and the real-games corpus. Run one part with `cargo test -p arbiter-pgn --test pgn reader::`.

mod corpus;
mod lenient;
mod never_silent;
mod reader;
mod replay;
mod resync;
mod writer;
