//! FNV-1a over a byte slice: `npuschema_core::fnv1a32` against the plain byte loop and the C
//! peer's loop, on the worked example's payload size (1,179,648 + 800 + table bytes).
//!
//! `cargo bench -p npuschema-bench --bench fnv`
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use npuschema_bench::fnv::{fnv1a32_bitsliced, imul_chain};
use npuschema_bench::{DOC_WEIGHT_BYTES, bare_fnv1a, noise};
use std::hint::black_box;

fn fnv(c: &mut Criterion) {
    let weights = noise(DOC_WEIGHT_BYTES, 0x2545_F491_4F6C_DD1D);
    let mut g = c.benchmark_group("fnv1a");
    g.throughput(Throughput::Bytes(weights.len() as u64));
    let want = bare_fnv1a(&weights);
    assert_eq!(
        npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, &weights),
        want
    );
    g.bench_function(BenchmarkId::new("bare_loop", weights.len()), |b| {
        b.iter(|| bare_fnv1a(black_box(&weights)))
    });
    g.bench_function(BenchmarkId::new("core_fnv1a32", weights.len()), |b| {
        b.iter(|| {
            npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, black_box(&weights))
        })
    });
    assert_eq!(
        fnv1a32_bitsliced(npuschema_core::FNV1A32_OFFSET_BASIS, &weights),
        want
    );
    g.bench_function(BenchmarkId::new("bitsliced", weights.len()), |b| {
        b.iter(|| fnv1a32_bitsliced(npuschema_core::FNV1A32_OFFSET_BASIS, black_box(&weights)))
    });
    g.bench_function(BenchmarkId::new("imul_chain_only", weights.len()), |b| {
        b.iter(|| imul_chain(black_box(weights.len())))
    });
    if npuschema_cpeer::available() {
        assert_eq!(npuschema_cpeer::fnv1a(&weights), Some(want));
        g.bench_function(BenchmarkId::new("c_peer_loop", weights.len()), |b| {
            b.iter(|| npuschema_cpeer::fnv1a(black_box(&weights)))
        });
    } else {
        eprintln!("skipping fnv1a/c_peer_loop: C peer not compiled (NPUSCHEMA_CORPUS not set)");
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = fnv
}
criterion_main!(benches);
