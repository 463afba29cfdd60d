//! Generates the arbiter.v1 code from `proto/` without protoc: protox parses the files, the
//! encoded descriptor set is kept for server reflection, tonic-prost-build emits the Rust code and
//! pbjson-build its proto3 JSON (serde) implementations.

use std::{env, fs, path::PathBuf};

use prost::Message as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=../../proto");

    let fds = protox::compile(["arbiter/v1/arbiter.proto"], ["../../proto"])?;

    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    let descriptor_set = fds.encode_to_vec();
    fs::write(out_dir.join("arbiter_descriptor.bin"), &descriptor_set)?;

    tonic_prost_build::configure()
        .btree_map(".")
        .compile_fds(fds)?;

    // proto3 JSON (serde) for every message, the JSON lines of `arbiter adjudicate`: proto field
    // names as written in the .proto file (snake_case, not lowerCamelCase) and every field
    // written, defaults included (`"disagreement": false` stays). Readers accept both spellings.
    pbjson_build::Builder::new()
        .register_descriptors(&descriptor_set)?
        .btree_map(["."])
        .preserve_proto_field_names()
        .emit_fields()
        .build(&[".arbiter.v1"])?;
    Ok(())
}
