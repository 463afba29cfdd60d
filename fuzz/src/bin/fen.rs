//! afl binary of the `fen` fuzz target (see `arbiter_fuzz_targets::fen`).

fn main() {
    afl::fuzz!(|data: &[u8]| arbiter_fuzz_targets::fen(data));
}
