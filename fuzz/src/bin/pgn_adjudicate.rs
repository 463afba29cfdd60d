//! afl binary of the `pgn_adjudicate` fuzz target (see `arbiter_fuzz_targets::pgn_adjudicate`).

fn main() {
    afl::fuzz!(|data: &[u8]| arbiter_fuzz_targets::pgn_adjudicate(data));
}
