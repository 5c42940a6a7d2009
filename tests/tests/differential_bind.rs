//! Differential: the arena binder (`npuschema_runtime::binder::Job::bind`) against the
//! binrw reference reader's binding (`refreader::npu1::bind`, the document's step 8), over
//! blobs made by the generated writer, arenas of many lengths and every start alignment.
//!
//! One deliberate difference is modelled: a zero-size runtime region gets the next aligned
//! address even when that lies past the arena's end (the binder: it takes no room and is
//! never dereferenced), where the document's loader and the C peer reject it. The
//! regression below is the input on which fuzz/npu1_bind first met that case.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

use npuschema_core::Brief;
use npuschema_generated::npu1::{Accel, Npu1, Npu1Writer, RegionData, RegionSpec, Role};
use npuschema_runtime::binder::{Identity, Job, RegionKind, bind_each_as, error_site};
use npuschema_tests::refreader::npu1::{self as refnpu1, Binding};

/// `len` bytes at an address `misalign` past a 16-byte boundary, inside `buf`.
fn at_alignment(buf: &mut Vec<u8>, len: usize, misalign: usize) -> &mut [u8] {
    buf.clear();
    buf.resize(len + 32, 0);
    let start = buf.as_ptr().align_offset(16) + misalign;
    &mut buf[start..start + len]
}

fn write(specs: &[RegionSpec<'_>], cmd: &[u8]) -> Vec<u8> {
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(specs)
        .cmd_stream(cmd)
        .to_vec()
        .unwrap()
}

/// Bind `blob` (copied to a 16-aligned buffer) into an arena of `arena_len` bytes at
/// `misalign`, with both binders; compare.
fn compare(blob: &[u8], arena_len: usize, misalign: usize) -> bool {
    let mut bbuf = Vec::new();
    let b = at_alignment(&mut bbuf, blob.len(), 0);
    b.copy_from_slice(blob);
    let b: &[u8] = b;
    let mut abuf = Vec::new();
    let arena = at_alignment(&mut abuf, arena_len, misalign);
    let arena_addr = arena.as_ptr() as u64;
    let view = Npu1::validate(b).unwrap();
    let reference = refnpu1::read(b).unwrap();
    let expected = refnpu1::bind(&reference, arena_addr, arena_len as u64);
    let zero_size_runtime = reference.regions.iter().any(|d| !d.baked() && d.size == 0);
    // The size-first binder (`bind_each_as::<Brief>`) places the same regions, or fails at
    // the same check.
    let mut brief_regions = Vec::new();
    let brief = bind_each_as::<Brief, _, _>(view, arena, &Identity, |r| brief_regions.push(r))
        .map_err(|e| error_site(e.id()).map(|s| s.code));
    let full = Job::bind(view, arena);
    match (&full, &brief) {
        (Ok(job), Ok(_)) => assert_eq!(job.regions().collect::<Vec<_>>(), brief_regions),
        (Err(e), Err(code)) => assert_eq!(Some(e.code), *code),
        _ => panic!("Job::bind gives {full:?}, bind_each_as::<Brief> {brief:?}"),
    }
    match (full, expected) {
        (Ok(job), Ok(bindings)) => {
            assert_eq!(job.region_count(), bindings.len());
            for (i, want) in bindings.iter().enumerate() {
                let r = job.region(i).unwrap();
                match *want {
                    Binding::Blob { offset, size } => {
                        assert_eq!(
                            (r.kind, r.npu_address, r.size),
                            (RegionKind::Baked, b.as_ptr() as u64 + offset, size)
                        );
                    }
                    Binding::Arena { offset, size } => {
                        assert_eq!(
                            (r.kind, r.npu_address, r.size),
                            (RegionKind::Runtime, arena_addr + offset, size)
                        );
                    }
                }
            }
            assert!(job.arena_used() <= arena_len);
            true
        }
        (Err(e), Err(r)) => {
            assert_eq!((e.code, r.rule()), ("arena-overflow", "arena"));
            false
        }
        (Ok(job), Err(r)) => {
            assert!(
                zero_size_runtime,
                "binder binds where the document's loader fails ({r}) without a zero-size region"
            );
            assert!(job.arena_used() <= arena_len);
            true
        }
        (Err(e), Ok(_)) => panic!("binder fails ({e}) where the document's loader binds"),
    }
}

#[test]
fn binder_places_regions_as_the_document_does() {
    let w: Vec<u8> = (0..48u8).collect();
    let cases: Vec<Vec<RegionSpec<'_>>> = vec![
        vec![],
        vec![RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(1),
        }],
        vec![
            RegionSpec {
                role: Role::Weights,
                data: RegionData::Baked(&w),
            },
            RegionSpec {
                role: Role::Scratch,
                data: RegionData::Runtime(100),
            },
            RegionSpec {
                role: Role::Input,
                data: RegionData::Runtime(17),
            },
            RegionSpec {
                role: Role::Output,
                data: RegionData::Runtime(16),
            },
        ],
        (0..8)
            .map(|i| {
                if i % 3 == 0 {
                    RegionSpec {
                        role: Role::Weights,
                        data: RegionData::Baked(&w[..i * 5]),
                    }
                } else {
                    RegionSpec {
                        role: Role::Scratch,
                        data: RegionData::Runtime(i as u32 * 9 + 1),
                    }
                }
            })
            .collect(),
    ];
    let (mut bound, mut refused) = (0, 0);
    for specs in &cases {
        let blob = write(specs, &[0u8; 8]);
        for misalign in 0..16 {
            for arena_len in (0..200).chain([255, 256, 257, 1000]) {
                if compare(&blob, arena_len, misalign) {
                    bound += 1;
                } else {
                    refused += 1;
                }
            }
        }
    }
    // Both outcomes must have been exercised, many times.
    assert!(
        bound > 1000 && refused > 1000,
        "bound {bound}, refused {refused}"
    );
}

/// fuzz/regressions/npu1_bind/zero-size-runtime-region-past-short-misaligned-arena: a
/// baked region and a zero-size runtime region, a 0-byte arena 4 bytes past a 16-byte
/// boundary. The document's loader fails (the aligned cursor is 12 bytes past the end);
/// the binder places the empty region there and uses none of the arena.
#[test]
fn zero_size_runtime_region_past_the_end_of_a_short_arena() {
    let w = [0x5au8; 16];
    let blob = write(
        &[
            RegionSpec {
                role: Role::Weights,
                data: RegionData::Baked(&w),
            },
            RegionSpec {
                role: Role::Scratch,
                data: RegionData::Runtime(0),
            },
        ],
        &[0u8; 8],
    );
    let mut bbuf = Vec::new();
    let b = at_alignment(&mut bbuf, blob.len(), 0);
    b.copy_from_slice(&blob);
    let b: &[u8] = b;
    let mut abuf = Vec::new();
    let arena = at_alignment(&mut abuf, 0, 4);
    let arena_addr = arena.as_ptr() as u64;

    let reference = refnpu1::read(b).unwrap();
    assert_eq!(
        refnpu1::bind(&reference, arena_addr, 0).unwrap_err().rule(),
        "arena"
    );

    let job = Job::bind(Npu1::validate(b).unwrap(), arena).unwrap();
    let r = job.region(1).unwrap();
    assert_eq!(
        (r.kind, r.size, r.npu_address),
        (RegionKind::Runtime, 0, arena_addr + 12)
    );
    assert_eq!(job.arena_used(), 0);
    assert!(compare(&blob, 0, 4));
}

/// fuzz/regressions/npu1_bind/zero-size-region-past-end-then-overflow: with the same empty,
/// misaligned arena, a zero-size runtime region followed by a non-empty one. The document's
/// loader fails at region 0; the binder passes region 0 (no room taken) and reports the
/// overflow at region 1, the first region that needs bytes.
#[test]
fn overflow_after_a_zero_size_region_is_reported_at_the_region_that_needs_bytes() {
    let blob = write(
        &[
            RegionSpec {
                role: Role::Scratch,
                data: RegionData::Runtime(0),
            },
            RegionSpec {
                role: Role::Scratch,
                data: RegionData::Runtime(1),
            },
        ],
        &[0u8; 8],
    );
    let mut bbuf = Vec::new();
    let b = at_alignment(&mut bbuf, blob.len(), 0);
    b.copy_from_slice(&blob);
    let b: &[u8] = b;
    let mut abuf = Vec::new();
    let arena = at_alignment(&mut abuf, 0, 4);
    let arena_addr = arena.as_ptr() as u64;
    let reference = refnpu1::read(b).unwrap();
    let mut first = reference.clone();
    first.regions.truncate(1);
    assert!(
        refnpu1::bind(&first, arena_addr, 0).is_err(),
        "the document fails at region 0"
    );
    let e = Job::bind(Npu1::validate(b).unwrap(), arena).unwrap_err();
    assert_eq!((e.code, e.field.index), ("arena-overflow", 1));
}
