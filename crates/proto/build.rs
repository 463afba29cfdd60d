//! Generates the arbiter.v1 code from `proto/` without protoc: protox parses the files, the
//! encoded descriptor set is kept for server reflection, and tonic-prost-build emits the Rust code.

use std::{env, fs, path::PathBuf};

use prost::Message as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=../../proto");

    let fds = protox::compile(["arbiter/v1/arbiter.proto"], ["../../proto"])?;

    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out_dir.join("arbiter_descriptor.bin"), fds.encode_to_vec())?;

    tonic_prost_build::configure()
        .btree_map(".")
        .compile_fds(fds)?;
    Ok(())
}
