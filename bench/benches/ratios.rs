//! The ratio table: every comparison the project quotes, measured in one run with the two
//! sides interleaved (A, B, B, A, ... in alternating order, so machine noise lands on both)
//! and summarised by medians. `scripts/bench-summary` runs this.
//!
//! `cargo bench -p npuschema-bench --bench ratios` (set NPUSCHEMA_CORPUS for the C peer and
//! the VPMN files; `RATIO_ROUNDS` overrides the number of rounds, default 31).
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_precision_loss,
    missing_docs
)]

use std::hint::black_box;

use npuschema_bench::ratio::{Outcome, compare, fmt_time, rounds};
use npuschema_bench::{
    DOC_SCRATCH_BYTES, SMALL_ARENA_BYTES, VPMN_VALIDATOR, bare_fnv1a, doc_example_blob, small_blob,
    vpmn_validate,
};
use npuschema_core::Brief;
use npuschema_generated::npu1::Npu1;
use npuschema_runtime::binder::{Identity, Job, MAX_REGIONS, load_each_as};

fn fmt_side(s: f64, bytes: Option<usize>) -> String {
    match bytes {
        Some(n) => format!("{} ({:.0} MB/s)", fmt_time(s), n as f64 / s / 1e6),
        None => fmt_time(s),
    }
}

fn row(what: &str, ours: &str, peer: &str, o: &Outcome, bytes: Option<usize>, goal: &str) {
    println!(
        "| {what} | {ours}: {} | {peer}: {} | {:.3}x | {:.3}x | {goal} |",
        fmt_side(o.a, bytes),
        fmt_side(o.b, bytes),
        o.speed,
        o.median_speed
    );
}

fn main() {
    let (rounds, smoke) = rounds(31);
    if smoke {
        println!("(smoke run: use `cargo bench -p npuschema-bench --bench ratios` for figures)");
    }
    println!(
        "ratio = (peer time) / (our time), each side's fastest of {rounds} interleaved rounds; > 1 means ours is faster."
    );
    println!(
        "median = the median over rounds of the per-round ratio (close to ratio on a quiet machine)."
    );
    println!();
    println!("| comparison | ours | peer | ratio | median | goal |");
    println!("|---|---|---|---|---|---|");

    let fixture = doc_example_blob();
    let blob = fixture.bytes();
    let payload = &blob[32..];
    assert_eq!(
        npuschema_bench::fnv::fnv1a32_bitsliced(npuschema_core::FNV1A32_OFFSET_BASIS, payload),
        bare_fnv1a(payload)
    );
    let mut arena = vec![0u8; DOC_SCRATCH_BYTES as usize + 16];
    assert!(Job::bind(Npu1::validate(blob).expect("valid"), &mut arena).is_ok());
    let n = Some(payload.len());

    let o = compare(
        || u64::from(Npu1::validate(black_box(blob)).is_ok()),
        || u64::from(bare_fnv1a(black_box(payload))),
        rounds,
    );
    row(
        "NPU1 validate, 1.18 MB example",
        "Npu1::validate",
        "bare FNV-1a loop",
        &o,
        n,
        ">= 0.95x",
    );
    let o = compare(
        || {
            u64::from(npuschema_core::fnv1a32(
                npuschema_core::FNV1A32_OFFSET_BASIS,
                black_box(payload),
            ))
        },
        || u64::from(bare_fnv1a(black_box(payload))),
        rounds,
    );
    row(
        "FNV-1a over the payload",
        "npuschema_core::fnv1a32",
        "bare FNV-1a loop",
        &o,
        n,
        "(info)",
    );
    let o = compare(
        || {
            u64::from(npuschema_bench::fnv::fnv1a32_bitsliced(
                npuschema_core::FNV1A32_OFFSET_BASIS,
                black_box(payload),
            ))
        },
        || u64::from(bare_fnv1a(black_box(payload))),
        rounds,
    );
    row(
        "FNV-1a, same result, no byte-serial chain",
        "bench::fnv::fnv1a32_bitsliced",
        "bare FNV-1a loop",
        &o,
        n,
        "(info)",
    );
    let o = compare(
        || u64::from(npuschema_bench::fnv::imul_chain(black_box(payload.len()))),
        || u64::from(bare_fnv1a(black_box(payload))),
        rounds,
    );
    row(
        "FNV-1a loop vs its multiplies alone (latency bound: 4/3 = 1.333x)",
        "dependent imul chain, same length",
        "bare FNV-1a loop",
        &o,
        n,
        "(info)",
    );

    // The panic-free table CRC-32 (`crc32` on the firmware targets) against crc32fast (`crc32`
    // on this host: SIMD when the host has it), over 1 MiB.
    let mib = npuschema_bench::noise(1 << 20, 0x9E37_79B9_7F4A_7C15);
    assert_eq!(npuschema_core::crc32_table(0, &mib), crc32fast::hash(&mib));
    let o = compare(
        || u64::from(npuschema_core::crc32_table(0, black_box(&mib))),
        || u64::from(crc32fast::hash(black_box(&mib))),
        rounds,
    );
    row(
        "CRC-32 over 1 MiB, slicing-by-8 (firmware) vs crc32fast (host)",
        "npuschema_core::crc32_table",
        "crc32fast::hash",
        &o,
        Some(mib.len()),
        "(info)",
    );

    if npuschema_cpeer::available() {
        use npuschema_cpeer as peer;
        let mut job = peer::Job::default();
        let mut c_arena = vec![0u8; DOC_SCRATCH_BYTES as usize + 16];
        assert_eq!(peer::load(blob, &mut c_arena, &mut job), Some(peer::OK));
        let o = compare(
            || u64::from(Npu1::validate(black_box(blob)).is_ok()),
            || u64::from(peer::load(black_box(blob), &mut c_arena, &mut job) == Some(peer::OK)),
            rounds,
        );
        row(
            "NPU1 validate-only vs C load (checksum path)",
            "Npu1::validate",
            "C npu1_load",
            &o,
            n,
            ">= 1.0x",
        );
        let o = compare(
            || {
                Npu1::validate(black_box(blob))
                    .ok()
                    .and_then(|v| Job::bind(v, &mut arena).ok())
                    .map_or(0, |j| j.arena_used() as u64)
            },
            || u64::from(peer::load(black_box(blob), &mut c_arena, &mut job) == Some(peer::OK)),
            rounds,
        );
        row(
            "NPU1 validate+bind, 1.18 MB example",
            "validate + Job::bind",
            "C npu1_load",
            &o,
            n,
            ">= 1.0x",
        );
        let o = compare(
            || {
                u64::from(npuschema_core::fnv1a32(
                    npuschema_core::FNV1A32_OFFSET_BASIS,
                    black_box(payload),
                ))
            },
            || peer::fnv1a(black_box(payload)).map_or(0, u64::from),
            rounds,
        );
        row(
            "FNV-1a over the payload",
            "npuschema_core::fnv1a32",
            "C npu1_fnv1a (-O2)",
            &o,
            n,
            "(info)",
        );

        let small = small_blob();
        let sb = small.bytes();
        let mut sarena = vec![0u8; SMALL_ARENA_BYTES];
        let mut carena = vec![0u8; SMALL_ARENA_BYTES];
        assert_eq!(peer::load(sb, &mut carena, &mut job), Some(peer::OK));
        let o = compare(
            || {
                Npu1::validate(black_box(sb))
                    .ok()
                    .and_then(|v| Job::bind(v, &mut sarena).ok())
                    .map_or(0, |j| j.arena_used() as u64)
            },
            || u64::from(peer::load(black_box(sb), &mut carena, &mut job) == Some(peer::OK)),
            rounds,
        );
        row(
            &format!("NPU1 validate+bind, 8 regions, {} B blob", sb.len()),
            "validate + Job::bind",
            "C npu1_load",
            &o,
            None,
            ">= 1.0x",
        );
        // One pass: each descriptor bound as soon as its checks pass.
        let o = compare(
            || Job::load(black_box(sb), &mut sarena).map_or(0, |j| j.arena_used() as u64),
            || u64::from(peer::load(black_box(sb), &mut carena, &mut job) == Some(peer::OK)),
            rounds,
        );
        row(
            &format!("NPU1 load (one pass), 8 regions, {} B blob", sb.len()),
            "Job::load",
            "C npu1_load",
            &o,
            None,
            ">= 1.0x",
        );
        // The C peer's shape: Brief errors, one pass, each region written into a caller's
        // table as it is placed (no Job built).
        let mut table = [(0u64, 0u64); MAX_REGIONS];
        let o = compare(
            || {
                let bound =
                    load_each_as::<Brief, _, _>(black_box(sb), &mut sarena, &Identity, |r| {
                        if let Some(slot) = table.get_mut(usize::from(r.index)) {
                            *slot = (r.npu_address, r.size);
                        }
                    });
                bound.map_or(0, |(_, b)| b.arena_used as u64 ^ black_box(&table)[0].0)
            },
            || u64::from(peer::load(black_box(sb), &mut carena, &mut job) == Some(peer::OK)),
            rounds,
        );
        row(
            &format!(
                "NPU1 load (one pass), 8 regions, {} B blob, C-style",
                sb.len()
            ),
            "load_each_as::<Brief>",
            "C npu1_load",
            &o,
            None,
            "(info)",
        );
        let view = Npu1::validate(sb).expect("valid");
        let o = compare(
            || Job::bind(black_box(view), &mut sarena).map_or(0, |j| j.arena_used() as u64),
            || u64::from(peer::load(black_box(sb), &mut carena, &mut job) == Some(peer::OK)),
            rounds,
        );
        row(
            "NPU1 bind only (8 regions) vs whole C load",
            "Job::bind",
            "C npu1_load",
            &o,
            None,
            "(info)",
        );
        let o = compare(
            || {
                let h = black_box(&view).header();
                u64::from(h.magic() ^ h.version() ^ h.total_bytes() ^ h.region_count())
                    ^ u64::from(h.cmd_offset() ^ h.cmd_bytes() ^ h.accel().raw() ^ h.checksum())
            },
            || u64::from(peer::load(black_box(sb), &mut carena, &mut job) == Some(peer::OK)),
            rounds,
        );
        row(
            "NPU1 all 8 header fields vs whole C load",
            "Header accessors",
            "C npu1_load",
            &o,
            None,
            "(info)",
        );
    } else {
        println!(
            "| C peer comparisons | skipped: C peer not compiled (NPUSCHEMA_CORPUS not set) | | | |"
        );
    }

    match npuschema_bench::vpmn_files() {
        Some(files) => {
            for (name, bytes) in files
                .iter()
                .filter(|(_, b)| b.get(4..8) == Some(&[0, 0, 2, 0][..]))
            {
                assert!(vpmn_validate(bytes), "{name} must validate");
                let o = compare(
                    || u64::from(vpmn_validate(black_box(bytes))),
                    || u64::from(crc32fast::hash(black_box(bytes))),
                    rounds,
                );
                row(
                    &format!("VPMN validate {name}"),
                    VPMN_VALIDATOR,
                    "one crc32fast pass",
                    &o,
                    Some(bytes.len()),
                    ">= 0.9x",
                );
                let o = compare(
                    || u64::from(npuschema_refreader::vpmn::read(black_box(bytes)).is_ok()),
                    || u64::from(crc32fast::hash(black_box(bytes))),
                    rounds,
                );
                row(
                    &format!("VPMN binrw reference reader {name}"),
                    "refreader::vpmn::read",
                    "one crc32fast pass",
                    &o,
                    Some(bytes.len()),
                    "(info)",
                );
            }
        }
        None => println!("| VPMN | skipped: NPUSCHEMA_CORPUS not set | | | | |"),
    }
}
