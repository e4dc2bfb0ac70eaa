//! Generates the mafia.v1 code with a vendored protoc, so a fresh machine
//! needs no protoc installed.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    // tonic-build runs protoc via prost-build, which reads PROTOC.
    std::env::set_var("PROTOC", protoc);
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let files = [
        root.join("mafia/v1/referee.proto"),
        root.join("mafia/v1/tournament.proto"),
    ];
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    tonic_build::configure()
        // Small per-stream buffers (src/codec.rs).
        .codec_path("crate::codec::SmallBuffers")
        .file_descriptor_set_path(out.join("mafia_v1_descriptor.bin"))
        .compile_protos(&files, &[root])?;
    Ok(())
}
