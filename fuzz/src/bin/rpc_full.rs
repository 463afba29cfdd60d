//! afl binary of the `rpc_full` fuzz target (see `arbiter_fuzz_targets::rpc_full`).

fn main() {
    afl::fuzz!(|data: &[u8]| arbiter_fuzz_targets::rpc_full(data));
}
