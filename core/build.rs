//! With the `grpc` feature: the gRPC binding's Rust code, generated from `proto/a2a.proto`
//! (the A2A specification's, package `lf.a2a.v1`) into `OUT_DIR`: prost messages, tonic's
//! client and server stubs (without tonic's transport: the crates that serve or call pick
//! it), and pbjson's ProtoJSON serde impls. `protox` compiles the files in Rust, so the
//! build needs no `protoc`. Without the feature it does nothing.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    #[cfg(feature = "grpc")]
    grpc()?;
    Ok(())
}

#[cfg(feature = "grpc")]
fn grpc() -> Result<(), Box<dyn std::error::Error>> {
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    println!("cargo::rerun-if-changed=proto");
    let mut compiler = protox::Compiler::new(["proto"])?;
    compiler.include_imports(true).include_source_info(true);
    compiler.open_files(["a2a.proto"])?;
    let descriptors = compiler.encode_file_descriptor_set();
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .build_transport(false)
        .emit_rerun_if_changed(false)
        // Struct, Value, Timestamp and Empty with ProtoJSON serde impls.
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .out_dir(&out_dir)
        .compile_fds(compiler.file_descriptor_set())?;
    pbjson_build::Builder::new()
        .out_dir(&out_dir)
        .register_descriptors(&descriptors)?
        // A member this version does not know is ignored (specification §5.7), as the
        // JSON bindings' parsers do.
        .ignore_unknown_fields()
        .build(&[".lf.a2a.v1"])?;
    Ok(())
}
