//! Compiles the C peer (`$NPUSCHEMA_CORPUS/peers/npu1_ref.c`, the reference NPU1 loader)
//! with the `cc` crate at -O2 and sets the `c_peer` cfg; compiles
//! `nostd-proof/peer/npu1_strict.c` (the peer with the generated code's extra checks, a
//! code-size reference point) always.
//!
//! The peer is found through `NPUSCHEMA_CORPUS`, else `<repo>/../shared`. When it is absent
//! the cfg is not set, a cargo warning says so, and the crate's functions return `None`.
use std::env;
use std::path::PathBuf;

fn main() {
    // The repository's own reference point (the peer plus the generated code's extra
    // checks), always compiled: it is in the repository.
    let strict = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("../../nostd-proof/peer/npu1_strict.c");
    println!("cargo::rerun-if-changed={}", strict.display());
    cc::Build::new()
        .file(&strict)
        .opt_level(2)
        .warnings(true)
        .compile("npu1_strict");
    println!("cargo::rustc-check-cfg=cfg(c_peer)");
    println!("cargo::rerun-if-env-changed=NPUSCHEMA_CORPUS");
    let shared = match env::var_os("NPUSCHEMA_CORPUS") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        // This crate is `<repo>/tests/cpeer`.
        _ => PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
            .join("../../../shared"),
    };
    let peer = shared.join("peers").join("npu1_ref.c");
    println!("cargo::rerun-if-changed={}", peer.display());
    if !peer.is_file() {
        println!(
            "cargo::warning=C peer not found at {} (set NPUSCHEMA_CORPUS): the C peer benches and fuzz comparisons are skipped",
            peer.display()
        );
        return;
    }
    cc::Build::new()
        .file(&peer)
        .opt_level(2)
        .warnings(true)
        .compile("npu1_ref");
    println!("cargo::rustc-cfg=c_peer");
}
