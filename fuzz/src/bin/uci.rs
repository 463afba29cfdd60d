//! afl binary of the `uci` fuzz target (see `arbiter_fuzz_targets::uci`).

fn main() {
    afl::fuzz!(|data: &[u8]| arbiter_fuzz_targets::uci(data));
}
