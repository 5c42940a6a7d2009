//! The one-pass loader (`Job::load*`, `load_each_as`: the generated validator's `regions`
//! hook places each region as soon as its checks pass) against the two passes it replaces
//! (`Npu1::validate`, then `Job::bind` over the validated view).
//!
//! The rule they are held to, on every input:
//! * one accepts exactly when the two passes accept, with the same command stream, count,
//!   arena use and every region in the same place;
//! * a failure of the file's own checks (the header, the table's and the stream's bounds,
//!   the checksum) is the same error, field for field;
//! * otherwise the one pass reports the same error, or a binder fault of a region it met
//!   first: the two passes check every descriptor before binding any, and bind before
//!   checking the stream's alignment; the one pass binds each descriptor after its own
//!   checks and checks the stream last. Each of them is a real fault of the input.
//!
//! And `load_as::<Brief>` names the same site as the full error; `load_each_as` hands out
//! the regions `Job::load` keeps.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use npuschema_core::{Brief, Error};
use npuschema_generated::npu1::Npu1;
use npuschema_runtime::binder::{
    BoundRegion, Identity, Job, MAX_REGIONS, error_site, load_each_as,
};
use npuschema_tests::npu1_blobs::{blob, get, mutate, placed, put, reseal, xorshift};

/// The codes only the binder reports.
const BINDER_CODES: [&str; 4] = [
    "too-many-regions",
    "misaligned-command-stream",
    "misaligned-baked-region",
    "arena-overflow",
];

/// What a loader did.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Err(Error),
    Bound {
        cmd_npu: u64,
        arena_used: usize,
        regions: Vec<BoundRegion>,
    },
}

fn of_job(r: Result<Job<'_, '_>, Error>) -> Outcome {
    match r {
        Ok(job) => Outcome::Bound {
            cmd_npu: job.cmd_npu_address(),
            arena_used: job.arena_used(),
            regions: job.regions().collect(),
        },
        Err(e) => Outcome::Err(e),
    }
}

/// The record an error belongs to, for a field of the region table.
fn record(e: &Error) -> Option<u64> {
    (e.field.table == "regions").then_some(e.field.index)
}

/// How the two outcomes relate; panics when they break the rule in the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agreement {
    BoundAlike,
    SameError,
    EarlierBinderFault,
}

fn agree(one: &Outcome, two: &Outcome, what: &str) -> Agreement {
    match (one, two) {
        (Outcome::Bound { .. }, Outcome::Bound { .. }) => {
            assert_eq!(one, two, "{what}");
            Agreement::BoundAlike
        }
        (Outcome::Err(a), Outcome::Err(b)) if a == b => Agreement::SameError,
        (Outcome::Err(a), Outcome::Err(b)) => {
            // The file's own checks come first in both.
            assert!(
                b.field.table == "regions" || BINDER_CODES.contains(&b.code),
                "{what}: a file-level error must be the same: one pass {a}, two passes {b}"
            );
            assert!(
                BINDER_CODES.contains(&a.code),
                "{what}: only a binder fault may come first: one pass {a}, two passes {b}"
            );
            // Where the one pass failed: at a record, or (the stream) after all of them.
            let at = match a.code {
                "too-many-regions" => Some(MAX_REGIONS as u64),
                "misaligned-command-stream" => None,
                _ => record(a),
            };
            match (b.code, record(b), at) {
                // A descriptor's own check in the two passes: the one pass met a binder
                // fault at an earlier record.
                (_, Some(k), Some(j)) if !BINDER_CODES.contains(&b.code) => {
                    assert!(j < k, "{what}: one pass {a} is not before two passes' {b}")
                }
                // The two passes check the count and the stream before any region.
                ("too-many-regions" | "misaligned-command-stream", _, _) => {}
                _ => panic!("{what}: one pass {a}, two passes {b}"),
            }
            Agreement::EarlierBinderFault
        }
        _ => panic!("{what}: one pass {one:?}, two passes {two:?}"),
    }
}

/// Both loaders (and the `Brief` and `load_each_as` forms of the one pass) on `bytes` at
/// `blob_misalign`, with an arena of `arena_len` bytes at `arena_misalign`.
fn check(bytes: &[u8], blob_misalign: usize, arena_len: usize, arena_misalign: usize) -> Agreement {
    let what = format!("blob at +{blob_misalign}, arena {arena_len} B at +{arena_misalign}");
    let (mut bbuf, mut abuf) = (Vec::new(), Vec::new());
    let b: &[u8] = placed(&mut bbuf, bytes, blob_misalign);
    let arena = placed(&mut abuf, &vec![0u8; arena_len], arena_misalign);

    let two = of_job(Npu1::validate(b).and_then(|v| Job::bind(v, &mut *arena)));
    let one = of_job(Job::load(b, &mut *arena));
    let agreement = agree(&one, &two, &what);

    // The size-first report names the same site.
    let brief = Job::load_as::<Brief>(b, &mut *arena).map(|_| ());
    match &one {
        Outcome::Bound { .. } => assert_eq!(brief, Ok(()), "{what}"),
        Outcome::Err(e) => {
            let s = error_site(brief.expect_err("Brief accepts").id()).unwrap();
            assert_eq!(
                (s.code, s.table, s.name),
                (e.code, e.field.table, e.field.name)
            );
        }
    }
    // The caller's-table form hands out what the job keeps.
    let mut handed = Vec::new();
    let each = load_each_as::<Error, _, _>(b, &mut *arena, &Identity, |r| handed.push(r));
    match (&one, each) {
        (
            Outcome::Bound {
                cmd_npu,
                arena_used,
                regions,
            },
            Ok((view, bound)),
        ) => {
            assert_eq!(regions, &handed);
            assert_eq!(
                (bound.cmd_npu_address, bound.arena_used, bound.region_count),
                (*cmd_npu, *arena_used, regions.len())
            );
            assert_eq!(bound.cmd_stream, view.cmd_stream());
        }
        (Outcome::Err(e), Err(f)) => assert_eq!(*e, f, "{what}"),
        (o, e) => panic!("{what}: Job::load {o:?}, load_each_as {e:?}"),
    }
    agreement
}

#[test]
fn valid_blobs_bind_alike_in_every_arena() {
    let mut tally = [0usize; 2];
    for regions in [0, 1, 2, 4, MAX_REGIONS] {
        let bytes = blob(regions);
        for arena_misalign in [0, 1, 4, 15] {
            for arena_len in (0..=300).step_by(7) {
                match check(&bytes, 0, arena_len, arena_misalign) {
                    Agreement::BoundAlike => tally[0] += 1,
                    Agreement::SameError => tally[1] += 1,
                    Agreement::EarlierBinderFault => unreachable!("a valid blob has no fault"),
                }
            }
        }
    }
    println!(
        "arenas: {} bound alike, {} same arena-overflow",
        tally[0], tally[1]
    );
    assert!(tally[0] > 300 && tally[1] > 200, "{tally:?}");
}

#[test]
fn each_single_fault_is_the_same_error() {
    let good = blob(4);
    let mut cases: Vec<(&str, Vec<u8>, usize, usize)> = vec![
        ("truncated-header", good[..31].to_vec(), 0, 512),
        ("too-many-regions", blob(MAX_REGIONS + 1), 0, 4096),
        // No baked region, whose bytes a misaligned blob would misalign too.
        ("misaligned-command-stream", blob(0), 4, 512),
        ("arena-overflow", good.clone(), 0, 100),
    ];
    let mut edit = |code: &'static str, at: usize, v: u32, seal: bool| {
        let mut b = good.clone();
        put(&mut b, at, v);
        if seal {
            reseal(&mut b);
        }
        cases.push((code, b, 0, 512));
    };
    edit("bad-magic", 0, 0x3155_504F, false);
    edit("unsupported-version", 4, 3, false);
    edit("total-bytes-mismatch", 8, 1, false);
    edit("region-table-out-of-bounds", 12, 0x0FFF_FFFE, false);
    edit("command-stream-out-of-bounds", 16, 0xFFFF_FFF0, false);
    edit("empty-command-stream", 20, 0, false);
    edit("checksum-mismatch", 28, get(&good, 28) ^ 1, false);
    edit("unknown-region-flags", 32 + 16 + 4, 2, true);
    edit("baked-region-out-of-bounds", 32 + 12, 0xFFFF_FFF0, true);
    // regions[0]: 4 bytes further on, and short enough to stay inside the blob.
    let mut b = good.clone();
    put(&mut b, 32 + 8, 32);
    put(&mut b, 32 + 12, get(&good, 32 + 12) + 4);
    reseal(&mut b);
    cases.push(("misaligned-baked-region", b, 0, 512));
    for (code, bytes, blob_misalign, arena_len) in &cases {
        assert_eq!(
            check(bytes, *blob_misalign, *arena_len, 0),
            Agreement::SameError,
            "{code}"
        );
        let (mut bbuf, mut abuf) = (Vec::new(), Vec::new());
        let b: &[u8] = placed(&mut bbuf, bytes, *blob_misalign);
        let arena = placed(&mut abuf, &vec![0u8; *arena_len], 0);
        assert_eq!(Job::load(b, arena).unwrap_err().code, *code);
    }
}

/// Several faults at once: the one pass may name a binder fault of an earlier region (an
/// arena too small for region 1 before region 3's unknown flags), which the rule allows and
/// this test requires to happen.
#[test]
fn with_several_faults_a_binder_fault_may_come_first() {
    let mut b = blob(MAX_REGIONS);
    put(&mut b, 32 + 3 * 16 + 4, 2); // regions[3].flags: an undefined bit
    reseal(&mut b);
    // An arena too small for regions[1] (100 bytes).
    assert_eq!(check(&b, 0, 50, 0), Agreement::EarlierBinderFault);
    let (mut bbuf, mut abuf) = (Vec::new(), Vec::new());
    let bb: &[u8] = placed(&mut bbuf, &b, 0);
    let arena = placed(&mut abuf, &[0u8; 50], 0);
    let one = Job::load(bb, &mut *arena).unwrap_err();
    let two = Npu1::validate(bb).unwrap_err();
    assert_eq!((one.code, one.field.index), ("arena-overflow", 1));
    assert_eq!((two.code, two.field.index), ("unknown-region-flags", 3));
}

#[test]
fn resealed_mutants_follow_the_rule() {
    let mut next = xorshift(0x9e37_79b9);
    let mut tally = [0usize; 3];
    for n in 0..20_000 {
        let regions = [1, 4, MAX_REGIONS, MAX_REGIONS + 1][n % 4];
        let mut b = blob(regions);
        mutate(&mut b, 32 + 16 * regions, &mut next);
        let arena_len = [0, 64, 160, 512, 4096][(next() % 5) as usize];
        let blob_misalign = [0, 0, 0, 4][(next() % 4) as usize];
        let agreement = check(&b, blob_misalign, arena_len, (next() % 16) as usize);
        tally[agreement as usize] += 1;
    }
    println!(
        "mutants: {} bound alike, {} same error, {} an earlier binder fault",
        tally[0], tally[1], tally[2]
    );
    assert!(
        tally[0] > 100 && tally[1] > 1000 && tally[2] > 10,
        "{tally:?}"
    );
}
