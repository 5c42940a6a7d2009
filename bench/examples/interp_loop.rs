//! A loop for `perf stat` / `perf record`: validate one file `N` times with the schema
//! interpreter (`interp`, the default), or with the generated VPMN / NPU1 validator
//! (`generated`), so that the CPU time per call is `(time(N) - time(0)) / N`.
//!
//! `cargo build --release -p npuschema-bench --example interp_loop`, then
//! `perf stat -e task-clock target/release/examples/interp_loop SCHEMA FILE N [generated]`.
#![allow(clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::path::Path;

use npuschema_codegen::interp::Interp;
use npuschema_core::Error;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, schema, file, n, rest @ ..] = args.as_slice() else {
        eprintln!("usage: interp_loop SCHEMA.yaml FILE N [generated]");
        std::process::exit(2);
    };
    let n: u64 = n.parse().expect("N");
    let bytes = std::fs::read(file).expect("FILE");
    let checked = npuschema_codegen::load(Path::new(schema)).unwrap_or_else(|d| panic!("{d}"));
    let it = Interp::new(&checked);
    let generated = rest.first().is_some_and(|x| x == "generated");
    let npu1 = checked_is_npu1(schema);
    let mut ok = 0u64;
    for _ in 0..n {
        let b = black_box(bytes.as_slice());
        let good = match (generated, npu1) {
            (false, _) => it.check::<Error>(b).is_ok(),
            (true, true) => npuschema_generated::npu1::Npu1::validate(b).is_ok(),
            (true, false) => npuschema_bench::vpmn_validate(b),
        };
        ok += u64::from(good);
    }
    println!("{ok} of {n} accepted");
}

fn checked_is_npu1(schema: &str) -> bool {
    schema.ends_with("npu1.yaml")
}
