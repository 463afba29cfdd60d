//! afl binary of the `pgn_adjudicate_full` fuzz target (see `arbiter_fuzz_targets::pgn_adjudicate_full`).

fn main() {
    afl::fuzz!(|data: &[u8]| arbiter_fuzz_targets::pgn_adjudicate_full(data));
}
