//! afl binary of the `pgn_read` fuzz target (see `arbiter_fuzz_targets::pgn_read`).

fn main() {
    afl::fuzz!(|data: &[u8]| arbiter_fuzz_targets::pgn_read(data));
}
