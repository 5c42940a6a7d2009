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
use std::time::{Duration, Instant};

use npuschema_bench::{
    DOC_SCRATCH_BYTES, SMALL_ARENA_BYTES, VPMN_VALIDATOR, bare_fnv1a, doc_example_blob, small_blob,
    vpmn_validate,
};
use npuschema_core::Brief;
use npuschema_generated::npu1::Npu1;
use npuschema_runtime::binder::{Identity, Job, MAX_REGIONS, load_each_as};

/// Time `iters` calls of `f`, per call.
fn time<F: FnMut() -> u64>(f: &mut F, iters: u32) -> Duration {
    let start = Instant::now();
    let mut acc = 0u64;
    for _ in 0..iters {
        acc = acc.wrapping_add(f());
    }
    black_box(acc);
    start.elapsed() / iters
}

/// Iterations so that one sample of `f` takes about `target`.
fn calibrate<F: FnMut() -> u64>(f: &mut F, target: Duration) -> u32 {
    let mut n = 1u32;
    loop {
        let t = time(f, n) * n;
        if t >= target / 4 || n >= 1 << 28 {
            let per = t.as_secs_f64() / f64::from(n);
            return ((target.as_secs_f64() / per.max(1e-12)) as u32).clamp(1, 1 << 28);
        }
        n *= 4;
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Outcome {
    /// Fastest round of A (the least disturbed by other work on the machine).
    a: f64,
    /// Fastest round of B.
    b: f64,
    /// b / a: above 1 means A is faster.
    speed: f64,
    /// Median over rounds of t_b / t_a (agrees with `speed` on a quiet machine).
    median_speed: f64,
}

/// Interleaved comparison of `a` (ours) and `b` (the reference side).
fn compare<A: FnMut() -> u64, B: FnMut() -> u64>(mut a: A, mut b: B, rounds: usize) -> Outcome {
    let target = if rounds == 1 {
        Duration::from_micros(200)
    } else {
        Duration::from_millis(15)
    };
    let (na, nb) = (calibrate(&mut a, target), calibrate(&mut b, target));
    let (mut ta, mut tb, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..rounds {
        let (x, y) = if i % 2 == 0 {
            let x = time(&mut a, na);
            (x, time(&mut b, nb))
        } else {
            let y = time(&mut b, nb);
            (time(&mut a, na), y)
        };
        ta.push(x.as_secs_f64());
        tb.push(y.as_secs_f64());
        r.push(y.as_secs_f64() / x.as_secs_f64());
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (a, b) = (min(&ta), min(&tb));
    Outcome {
        a,
        b,
        speed: b / a,
        median_speed: median(&mut r),
    }
}

fn fmt_time(s: f64) -> String {
    if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.2} us", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

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
    // `cargo bench` passes --bench; without it (`cargo test --all-targets`) this is a smoke
    // run: one short round per comparison, every fixture and equality still checked.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let rounds = if smoke {
        1
    } else {
        std::env::var("RATIO_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(31)
    };
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
