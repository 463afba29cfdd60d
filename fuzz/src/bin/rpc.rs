//! afl binary of the `rpc` fuzz target (see `arbiter_fuzz_targets::rpc`).

fn main() {
    afl::fuzz!(|data: &[u8]| arbiter_fuzz_targets::rpc(data));
}
