//! Compiles `proto/e2.proto` without a system `protoc`: `protox` parses it
//! into a FileDescriptorSet in pure Rust and `tonic-prost-build` generates
//! the messages, clients and servers from that set.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/e2.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
