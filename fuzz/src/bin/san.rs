//! afl binary of the `san` fuzz target (see `arbiter_fuzz_targets::san`).

fn main() {
    afl::fuzz!(|data: &[u8]| arbiter_fuzz_targets::san(data));
}
