//! NPU1: validation of the worked-example-shaped blob against the bare FNV-1a loop over the
//! same payload bytes and against the C peer's `npu1_load`; per-call costs on a small blob.
//!
//! `cargo bench -p npuschema-bench --bench npu1`
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use npuschema_bench::{DOC_SCRATCH_BYTES, bare_fnv1a, doc_example_parts};
use npuschema_tests::refreader::npu1::{self as refnpu1, BuildRegion};
use std::hint::black_box;

fn doc_blob() -> Vec<u8> {
    let (weights, cmd) = doc_example_parts();
    let regions = [
        BuildRegion::Baked(0, &weights),
        BuildRegion::Runtime(1, DOC_SCRATCH_BYTES),
    ];
    refnpu1::build(0, &regions, &cmd, None).expect("example fits")
}

fn validate(c: &mut Criterion) {
    let blob = doc_blob();
    let payload = &blob[32..];
    let mut arena = vec![0u8; DOC_SCRATCH_BYTES as usize + 16];
    let mut g = c.benchmark_group("npu1_validate");
    g.throughput(Throughput::Bytes(payload.len() as u64));
    g.bench_function("bare_fnv_loop", |b| {
        b.iter(|| bare_fnv1a(black_box(payload)))
    });
    g.bench_function("refreader_binrw", |b| {
        b.iter(|| refnpu1::read(black_box(&blob)).is_ok())
    });
    #[cfg(c_peer)]
    {
        let mut job = npuschema_bench::peer::Job::default();
        assert_eq!(npuschema_bench::peer::load(&blob, &mut arena, &mut job), 0);
        g.bench_function("c_npu1_load", |b| {
            b.iter(|| npuschema_bench::peer::load(black_box(&blob), &mut arena, &mut job))
        });
    }
    #[cfg(not(c_peer))]
    eprintln!("skipping npu1_validate/c_npu1_load: C peer not compiled (NPUSCHEMA_CORPUS not set)");
    let _ = &mut arena;
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = validate
}
criterion_main!(benches);
