//! A generated validator for a 1,000-record table against a hand-written one with the same
//! checks, in the same binary: `tests/schemas/objtab.yaml` (an ELF-like section table whose
//! per-record range has a `when` on a closed-enum field, with `enum_known`, `flags_known`,
//! three asserts (one compound) and a `range_fits` per record, then `unique` names and
//! `no_overlap` of the sections' bytes across the records; the hand-written one does all
//! of it in one loop). The goal is at most 1.2x the hand-written
//! time, with the full `Error` and with `Brief`.
//!
//! `cargo bench -p npuschema-bench --bench table` (criterion's three timings, then the
//! ratios measured interleaved; `RATIO_ROUNDS` sets the rounds, default 200)
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use criterion::{Criterion, Throughput, criterion_group};
use npuschema_core::Brief;
use std::hint::black_box;
use std::time::Instant;

mod objtab {
    npuschema_macro::include_schema!("../tests/schemas/objtab.yaml");
}

const RECORDS: u32 = 1000;

/// A valid file: the header, 1,000 section records, then their bytes (every fourth section
/// is `nobits`, with a size and no bytes).
fn blob() -> Vec<u8> {
    let table_at = 16u32;
    let data_at = table_at + 24 * RECORDS;
    let mut records = Vec::new();
    let mut data = Vec::new();
    for i in 0..RECORDS {
        let kind = [1u32, 2, 3, 8][(i % 4) as usize];
        let align = [1u32, 4, 8, 16][(i % 4) as usize];
        while !(data_at as usize + data.len()).is_multiple_of(align as usize) {
            data.push(0);
        }
        let offset = data_at + data.len() as u32;
        let size = 8 + i % 24;
        if kind != 8 {
            data.extend(std::iter::repeat_n(i as u8, size as usize));
        }
        for w in [i * 7, kind, 0b010 | (i & 1), offset, size, align] {
            records.extend_from_slice(&w.to_le_bytes());
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(&0x4A42_4F7Fu32.to_le_bytes());
    out.extend_from_slice(&40u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&table_at.to_le_bytes());
    out.extend_from_slice(&RECORDS.to_le_bytes());
    out.extend(records);
    out.extend(data);
    out
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(*b.get(at..)?.first_chunk::<4>()?))
}

/// The same checks, in the same order, written by hand: the first failure's check number
/// and record index.
fn hand_validate(buf: &[u8]) -> Result<u32, (u8, u32)> {
    let len = buf.len() as u64;
    let Some(h) = buf.first_chunk::<16>() else {
        return Err((1, 0));
    };
    if u32::from_le_bytes([h[0], h[1], h[2], h[3]]) != 0x4A42_4F7F {
        return Err((2, 0));
    }
    if u16::from_le_bytes([h[6], h[7]]) != 1 {
        return Err((3, 0));
    }
    let at = u64::from(u32::from_le_bytes([h[8], h[9], h[10], h[11]]));
    let count = u64::from(u32::from_le_bytes([h[12], h[13], h[14], h[15]]));
    let end = count.checked_mul(24).and_then(|n| n.checked_add(at));
    let table = match end {
        Some(e) if e <= len => &buf[at as usize..e as usize],
        _ => return Err((4, 0)),
    };
    let mut sum = 0u32;
    let mut prev_name: Option<u32> = None;
    let mut prev_end = 0u64;
    for (i, r) in table.chunks_exact(24).enumerate() {
        let i = i as u32;
        let kind = u32_at(r, 4).unwrap_or(0);
        if !matches!(kind, 0 | 1 | 2 | 3 | 8) {
            return Err((5, i));
        }
        let flags = u32_at(r, 8).unwrap_or(0);
        if flags & !0b111 != 0 {
            return Err((6, i));
        }
        if flags & 0b101 == 0b101 {
            return Err((7, i));
        }
        let offset = u64::from(u32_at(r, 12).unwrap_or(0));
        let size = u64::from(u32_at(r, 16).unwrap_or(0));
        let align = u64::from(u32_at(r, 20).unwrap_or(0));
        match align.checked_sub(1) {
            Some(m) if align & m == 0 => {}
            _ => return Err((8, i)),
        }
        if offset % if align == 0 { 1 } else { align } != 0 {
            return Err((9, i));
        }
        if kind != 8 && offset.checked_add(size).is_none_or(|e| e > len) {
            return Err((10, i));
        }
        let name = u32_at(r, 0).unwrap_or(0);
        if prev_name.is_some_and(|p| name <= p) {
            return Err((11, i));
        }
        prev_name = Some(name);
        if kind != 8 {
            if offset < prev_end {
                return Err((12, i));
            }
            prev_end = offset + size;
        }
        sum = sum.wrapping_add(i);
    }
    Ok(sum)
}

fn table(c: &mut Criterion) {
    let blob = blob();
    let view = objtab::ObjTab::validate(&blob).expect("the generated validator accepts it");
    assert_eq!(view.sections().len(), RECORDS as usize);
    assert_eq!(view.sections().filter(|s| s.data().is_some()).count(), 750);
    assert!(hand_validate(&blob).is_ok());
    // Both reject the same mutant at the same check and record.
    let mut bad = blob.clone();
    bad[16 + 24 * 500 + 20] = 3; // record 500: align 3
    assert_eq!(hand_validate(&bad), Err((8, 500)));
    let e = objtab::ObjTab::validate(&bad).expect_err("rejected");
    assert_eq!(
        (e.code(), e.field.table, e.field.index),
        ("bad-align", "sections", 500)
    );

    let mut g = c.benchmark_group("table_1000");
    g.throughput(Throughput::Elements(u64::from(RECORDS)));
    g.bench_function("hand_written", |b| {
        b.iter(|| hand_validate(black_box(&blob)).is_ok())
    });
    g.bench_function("generated_error", |b| {
        b.iter(|| objtab::ObjTab::validate(black_box(&blob)).is_ok())
    });
    g.bench_function("generated_brief", |b| {
        b.iter(|| objtab::ObjTab::validate_as::<Brief>(black_box(&blob)).is_ok())
    });
    g.finish();
}

/// The ratios, measured interleaved (hand, generated, Brief, then the next round) and taken
/// from each side's fastest round, so that other work on the machine, which only ever adds
/// time, lands on all three sides alike.
fn interleaved_ratios() {
    let blob = blob();
    let rounds: u32 = std::env::var("RATIO_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let iters = 200u32;
    let time = |f: &dyn Fn() -> bool| {
        let start = Instant::now();
        for _ in 0..iters {
            black_box(f());
        }
        start.elapsed().as_secs_f64() / f64::from(iters)
    };
    let hand = || hand_validate(black_box(&blob)).is_ok();
    let full = || objtab::ObjTab::validate(black_box(&blob)).is_ok();
    let brief = || objtab::ObjTab::validate_as::<Brief>(black_box(&blob)).is_ok();
    let mut best = [f64::MAX; 3];
    for _ in 0..rounds {
        for (k, f) in [&hand as &dyn Fn() -> bool, &full, &brief]
            .iter()
            .enumerate()
        {
            best[k] = best[k].min(time(*f));
        }
    }
    println!(
        "table_1000 interleaved, fastest of {rounds} rounds: hand-written {:.2} us, generated (Error) {:.2} us = {:.2}x, generated (Brief) {:.2} us = {:.2}x",
        best[0] * 1e6,
        best[1] * 1e6,
        best[1] / best[0],
        best[2] * 1e6,
        best[2] / best[0]
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = table
}

fn main() {
    benches();
    interleaved_ratios();
    Criterion::default().configure_from_args().final_summary();
}
