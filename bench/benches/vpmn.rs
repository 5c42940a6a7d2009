//! VPMN validation of the real files against one bare `crc32fast` pass over the whole file
//! (the least work any checksum-verifying validator must do).
//!
//! `cargo bench -p npuschema-bench --bench vpmn` (needs NPUSCHEMA_CORPUS or ../shared).
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn vpmn(c: &mut Criterion) {
    let Some(files) = npuschema_bench::vpmn_files() else {
        return;
    };
    let mut g = c.benchmark_group("vpmn_validate");
    for (name, bytes) in files
        .iter()
        .filter(|(_, b)| b.get(4..8) == Some(&[0, 0, 2, 0][..]))
    {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(BenchmarkId::new("bare_crc32fast", name), |b| {
            b.iter(|| crc32fast::hash(black_box(bytes)))
        });
        g.bench_function(BenchmarkId::new("validate", name), |b| {
            b.iter(|| npuschema_bench::vpmn_validate(black_box(bytes)))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2));
    targets = vpmn
}
criterion_main!(benches);
