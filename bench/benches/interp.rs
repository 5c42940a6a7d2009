//! The schema interpreter (`npuschema_codegen::interp`) against the generated validators, in
//! the same run: the real VPMN files and the NPU1 worked-example blob (and the small
//! eight-region blob, where per-check overhead dominates). `interp_check` validates only;
//! `interp_view` also builds the dynamic view `inspect --schema` prints. The figure is the
//! ratio `interp_check / generated` (goal: within 10x); the checksums are the same
//! `npuschema-core` built-ins in both.
//!
//! `cargo bench -p npuschema-bench --bench interp` (VPMN needs NPUSCHEMA_CORPUS or ../shared).
#![allow(clippy::expect_used, missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use npuschema_codegen::interp::Interp;
use npuschema_core::Error;
use std::hint::black_box;
use std::path::Path;

fn load(schema: &str) -> npuschema_codegen::Checked {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(schema);
    npuschema_codegen::load(&p).unwrap_or_else(|d| panic!("{d}"))
}

fn npu1(c: &mut Criterion) {
    let schema = load("schema/npu1.yaml");
    let it = Interp::new(&schema);
    let mut g = c.benchmark_group("interp_npu1");
    for (name, fixture) in [
        ("doc_example", npuschema_bench::doc_example_blob()),
        ("small", npuschema_bench::small_blob()),
    ] {
        let blob = fixture.bytes();
        assert!(it.check::<Error>(blob).is_ok());
        g.throughput(Throughput::Bytes(blob.len() as u64));
        g.bench_function(BenchmarkId::new("generated", name), |b| {
            b.iter(|| npuschema_generated::npu1::Npu1::validate(black_box(blob)).is_ok())
        });
        g.bench_function(BenchmarkId::new("interp_check", name), |b| {
            b.iter(|| it.check::<Error>(black_box(blob)).is_ok())
        });
        g.bench_function(BenchmarkId::new("interp_view", name), |b| {
            b.iter(|| it.validate(black_box(blob)).is_ok())
        });
    }
    g.finish();
}

fn vpmn(c: &mut Criterion) {
    let Some(files) = npuschema_bench::vpmn_files() else {
        return;
    };
    let schema = load("schema/vpmn.yaml");
    let it = Interp::new(&schema);
    let mut g = c.benchmark_group("interp_vpmn");
    for (name, bytes) in &files {
        assert!(it.check::<Error>(bytes).is_ok(), "{name}");
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(BenchmarkId::new("generated", name), |b| {
            b.iter(|| npuschema_bench::vpmn_validate(black_box(bytes)))
        });
        g.bench_function(BenchmarkId::new("interp_check", name), |b| {
            b.iter(|| it.check::<Error>(black_box(bytes)).is_ok())
        });
        g.bench_function(BenchmarkId::new("interp_view", name), |b| {
            b.iter(|| it.validate(black_box(bytes)).is_ok())
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = npu1, vpmn
}
criterion_main!(benches);
