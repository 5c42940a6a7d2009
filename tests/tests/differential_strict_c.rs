//! `nostd-proof/peer/npu1_strict.c` is the C peer extended with the checks the generated
//! validator and the binder make and the peer does not; `scripts/code-size` prints its size
//! next to ours as "the same checks in C". That figure means something only if the C file
//! really makes the same checks: here it is held against `Npu1::validate` + `bind_each` on
//! every single fault (same code), on arenas of every alignment and many lengths (same
//! addresses, or the same overflow), and on thousands of resealed byte mutations (same
//! verdict and, when both accept, the same binding).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use npuschema_core::Error;
use npuschema_cpeer::{self as cpeer, strict};
use npuschema_generated::npu1::Npu1;
use npuschema_runtime::binder::{Identity, MAX_REGIONS, bind_each};
use npuschema_tests::npu1_blobs::{blob, get, mutate, placed, put, reseal, xorshift};

/// What one loader did: a code, or the command stream and each region's (address, size).
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Err(&'static str),
    Bound {
        cmd: (usize, u32),
        regions: Vec<(usize, u32)>,
    },
}

fn ours(blob: &[u8], arena: &mut [u8]) -> Outcome {
    let view = match Npu1::validate_as::<Error>(blob) {
        Ok(v) => v,
        Err(e) => return Outcome::Err(e.code),
    };
    let mut regions = Vec::new();
    match bind_each(view, arena, &Identity, |r| {
        regions.push((r.npu_address as usize, r.size as u32));
    }) {
        Ok(b) => Outcome::Bound {
            cmd: (b.cmd_stream.as_ptr() as usize, b.cmd_stream.len() as u32),
            regions,
        },
        Err(e) => Outcome::Err(e.code),
    }
}

fn c_strict(blob: &[u8], arena: &mut [u8]) -> Outcome {
    let mut job = cpeer::Job::default();
    match cpeer::load_strict(blob, arena, &mut job) {
        0 => Outcome::Bound {
            cmd: (job.cmd as usize, job.cmd_bytes),
            regions: (0..job.count as usize)
                .map(|i| (job.base[i], job.size[i]))
                .collect(),
        },
        rc => Outcome::Err(strict::code(rc)),
    }
}

/// Both loaders on `bytes` placed at `blob_misalign`, with an arena of `arena_len` bytes at
/// `arena_misalign`.
fn both(
    bytes: &[u8],
    blob_misalign: usize,
    arena_len: usize,
    arena_misalign: usize,
) -> (Outcome, Outcome) {
    let (mut bbuf, mut abuf) = (Vec::new(), Vec::new());
    let b = placed(&mut bbuf, bytes, blob_misalign);
    let arena = placed(&mut abuf, &vec![0u8; arena_len], arena_misalign);
    let o = ours(b, arena);
    let c = c_strict(b, arena);
    (o, c)
}

fn same(bytes: &[u8], blob_misalign: usize, arena_len: usize, arena_misalign: usize) -> Outcome {
    let (o, c) = both(bytes, blob_misalign, arena_len, arena_misalign);
    assert_eq!(
        o, c,
        "blob at +{blob_misalign}, arena {arena_len} B at +{arena_misalign}"
    );
    o
}

#[test]
fn every_single_fault_gets_the_same_code() {
    let good = blob(4);
    assert!(matches!(same(&good, 0, 512, 0), Outcome::Bound { .. }));
    let mut faults: Vec<(&str, Vec<u8>, usize, usize)> = Vec::new();
    faults.push(("truncated-header", good[..31].to_vec(), 0, 512));
    let mut edit = |name: &'static str, f: &dyn Fn(&mut Vec<u8>), reseal_it: bool| {
        let mut b = good.clone();
        f(&mut b);
        if reseal_it {
            reseal(&mut b);
        }
        faults.push((name, b, 0, 512));
    };
    edit("bad-magic", &|b| put(b, 0, 0x3155_504F), false);
    edit("unsupported-version", &|b| put(b, 4, 3), false);
    edit("total-bytes-mismatch", &|b| b.push(0), false);
    edit(
        "region-table-out-of-bounds",
        &|b| put(b, 12, 0x0FFF_FFFE),
        false,
    );
    edit("empty-command-stream", &|b| put(b, 20, 0), false);
    edit(
        "command-stream-out-of-bounds",
        &|b| put(b, 16, 0xFFFF_FFF0),
        false,
    );
    edit(
        "checksum-mismatch",
        &|b| {
            let l = b.len();
            b[l - 1] ^= 1;
        },
        false,
    );
    edit("unknown-region-flags", &|b| put(b, 32 + 16 + 4, 0x2), true);
    edit(
        "baked-region-out-of-bounds",
        &|b| put(b, 32 + 12, 0xFFFF_FFF0),
        true,
    );
    edit(
        "misaligned-baked-region",
        &|b| {
            let o = get(b, 32 + 12);
            put(b, 32 + 12, o + 4);
            put(b, 32 + 8, 32);
        },
        true,
    );
    faults.push(("too-many-regions", blob(MAX_REGIONS + 1), 0, 4096));
    faults.push(("misaligned-command-stream", good.clone(), 4, 512));
    faults.push(("arena-overflow", good.clone(), 0, 100));
    assert_eq!(faults.len(), strict::CODES.len(), "every code is provoked");
    for (name, bytes, blob_misalign, arena_len) in &faults {
        let got = same(bytes, *blob_misalign, *arena_len, 0);
        assert_eq!(got, Outcome::Err(name), "{name}");
    }
}

#[test]
fn arenas_of_every_alignment_and_many_lengths_bind_the_same() {
    let mut bound = 0;
    let mut overflow = 0;
    for regions in [1, 2, 3, 4, MAX_REGIONS] {
        let bytes = blob(regions);
        for misalign in 0..16 {
            for len in 0..=260 {
                match same(&bytes, 0, len, misalign) {
                    Outcome::Bound { .. } => bound += 1,
                    Outcome::Err(code) => {
                        assert_eq!(code, "arena-overflow");
                        overflow += 1;
                    }
                }
            }
        }
    }
    println!("arena sweep: {bound} bound, {overflow} arena-overflow");
    assert!(bound > 1000 && overflow > 1000);
}

#[test]
fn resealed_mutations_reach_the_same_verdict() {
    let good = blob(4);
    let table_end = 32 + 16 * 4;
    let mut next = xorshift(0x1234_5678);
    let (mut same_ok, mut same_err, mut codes_differ) = (0, 0, 0);
    for _ in 0..20_000 {
        let mut b = good.clone();
        mutate(&mut b, table_end, &mut next);
        let (o, c) = both(&b, 0, 512, (next() % 16) as usize);
        match (&o, &c) {
            (Outcome::Bound { .. }, _) | (_, Outcome::Bound { .. }) => {
                assert_eq!(o, c, "mutant {b:02x?}");
                same_ok += 1;
            }
            (Outcome::Err(x), Outcome::Err(y)) => {
                // With several faults the two may name different ones (the C file checks
                // descriptors in its binding loop); each must be a real code.
                assert!(strict::CODES.iter().any(|(_, s)| s == y), "{y}");
                if x == y {
                    same_err += 1
                } else {
                    codes_differ += 1
                }
            }
        }
    }
    println!(
        "mutations: {same_ok} bound alike, {same_err} same error, {codes_differ} different errors"
    );
    assert!(same_ok > 100 && same_err > 1000);
}
