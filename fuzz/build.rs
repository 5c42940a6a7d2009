//! Compiles the C peer (`$NPUSCHEMA_CORPUS/peers/npu1_ref.c`, the reference NPU1 loader)
//! with the `cc` crate at -O2, so fuzz targets can hold the Rust code against it.
//!
//! The peer is found through `NPUSCHEMA_CORPUS`, else `<workspace>/../shared`. When it is
//! absent the `c_peer` cfg is not set and the C comparisons are left out.
use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(c_peer)");
    println!("cargo::rerun-if-env-changed=NPUSCHEMA_CORPUS");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let shared = match env::var_os("NPUSCHEMA_CORPUS") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => manifest.join("..").join("..").join("shared"),
    };
    let peer = shared.join("peers").join("npu1_ref.c");
    println!("cargo::rerun-if-changed={}", peer.display());
    if !peer.is_file() {
        println!(
            "cargo::warning=C peer not found at {} (set NPUSCHEMA_CORPUS): C peer comparisons in fuzz targets skipped",
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
