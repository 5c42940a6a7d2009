//! NPU1: validation of the worked-example-shaped blob (made by the generated writer)
//! against the bare FNV-1a loop over the same payload bytes and against the C peer's
//! `npu1_load`; per-call costs (header access, binding) on a small eight-region blob.
//!
//! `cargo bench -p npuschema-bench --bench npu1`
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use npuschema_bench::{
    DOC_SCRATCH_BYTES, SMALL_ARENA_BYTES, bare_fnv1a, doc_example_blob, small_blob,
};
use npuschema_generated::npu1::Npu1;
use npuschema_refreader::npu1 as refnpu1;
use npuschema_runtime::binder::Job;
use std::hint::black_box;

fn validate(c: &mut Criterion) {
    let fixture = doc_example_blob();
    let blob = fixture.bytes();
    let payload = &blob[32..];
    let mut arena = vec![0u8; DOC_SCRATCH_BYTES as usize + 16];
    assert!(Job::bind(Npu1::validate(blob).expect("valid"), &mut arena).is_ok());
    let mut g = c.benchmark_group("npu1_validate");
    g.throughput(Throughput::Bytes(payload.len() as u64));
    g.bench_function("bare_fnv_loop", |b| {
        b.iter(|| bare_fnv1a(black_box(payload)))
    });
    rust_validate(&mut g, blob, &mut arena);
    g.bench_function("refreader_binrw", |b| {
        b.iter(|| refnpu1::read(black_box(blob)).is_ok())
    });
    if npuschema_cpeer::available() {
        c_load(&mut g, blob, &mut arena);
    } else {
        eprintln!(
            "skipping npu1_validate/c_npu1_load: C peer not compiled (NPUSCHEMA_CORPUS not set)"
        );
    }
    g.finish();
}

fn per_call(c: &mut Criterion) {
    let fixture = small_blob();
    let blob = fixture.bytes();
    let mut arena = vec![0u8; SMALL_ARENA_BYTES];
    let view = Npu1::validate(blob).expect("valid");
    assert_eq!(
        Job::bind(view, &mut arena).expect("binds").region_count(),
        8
    );
    let mut g = c.benchmark_group("npu1_per_call");
    g.bench_function("rust_header_fields", |b| {
        b.iter(|| {
            let h = black_box(&view).header();
            h.magic()
                ^ h.version()
                ^ h.total_bytes()
                ^ h.region_count()
                ^ h.cmd_offset()
                ^ h.cmd_bytes()
                ^ h.accel().raw()
                ^ h.checksum()
        })
    });
    g.bench_function("rust_bind", |b| {
        b.iter(|| {
            Job::bind(black_box(view), &mut arena)
                .map(|j| j.arena_used())
                .ok()
        })
    });
    rust_validate(&mut g, blob, &mut arena);
    if npuschema_cpeer::available() {
        c_load(&mut g, blob, &mut arena);
    }
    g.finish();
}

/// `Npu1::validate` alone and followed by `Job::bind` on `blob`, as `rust_validate` and
/// `rust_validate_bind` in `g`.
fn rust_validate(g: &mut BenchmarkGroup<'_, WallTime>, blob: &[u8], arena: &mut [u8]) {
    g.bench_function("rust_validate", |b| {
        b.iter(|| Npu1::validate(black_box(blob)).is_ok())
    });
    g.bench_function("rust_validate_bind", |b| {
        b.iter(|| {
            Npu1::validate(black_box(blob))
                .ok()
                .and_then(|v| Job::bind(v, arena).ok())
                .map(|j| j.arena_used())
        })
    });
}

/// The C peer's `npu1_load` on `blob` (which it must accept), as `c_npu1_load` in `g`.
fn c_load(g: &mut BenchmarkGroup<'_, WallTime>, blob: &[u8], arena: &mut [u8]) {
    let mut job = npuschema_cpeer::Job::default();
    assert_eq!(
        npuschema_cpeer::load(blob, arena, &mut job),
        Some(npuschema_cpeer::OK)
    );
    g.bench_function("c_npu1_load", |b| {
        b.iter(|| npuschema_cpeer::load(black_box(blob), arena, &mut job))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = validate, per_call
}
criterion_main!(benches);
