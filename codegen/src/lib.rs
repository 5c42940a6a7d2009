//! Schema frontend and Rust emitter: the one implementation behind build.rs, the macro and the CLI
