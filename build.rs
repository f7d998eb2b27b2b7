//! Compiles `proto/` without a system `protoc`: `protox` parses the files into a
//! descriptor set, tonic's builder generates the Rust code from it, and the encoded set
//! is written to `OUT_DIR` for gRPC server reflection.

use prost::Message;
use std::{env, fs, path::PathBuf};

const PROTOS: &[&str] = &[
    "forms/v1/common.proto",
    "forms/v1/forms.proto",
    "forms/v1/responses.proto",
    "forms/v1/webhooks.proto",
    "forms/v1/usage.proto",
    "forms/v1/gateway.proto",
    "forms/v1/admin.proto",
    "forms/v1/hosted.proto",
    "forms/v1/dashboard.proto",
    "forms/v1/audit.proto",
    "forms/v1/archive.proto",
    "forms/v1/members.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(PROTOS, ["proto"])?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out_dir.join("forms_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;
    Ok(())
}
