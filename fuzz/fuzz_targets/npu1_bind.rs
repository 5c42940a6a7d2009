//! The arena binder (`npuschema_runtime::binder::Job::bind`) on validated blobs with
//! arbitrary arenas (any length, any alignment) and blob alignments: never panics; on
//! success every region is where the document says (baked = blob + data_offset, runtime =
//! next 16-aligned address in the arena, in index order, inside the arena, disjoint) and
//! matches the reference reader's binding and the C peer's `npu1_load`; on failure the
//! reason is real.
//!
//! One deliberate difference from the document and the C peer is modelled: the binder gives
//! a zero-size runtime region the next aligned address without requiring that address to
//! lie inside the arena (it takes no room and is never dereferenced), where the document's
//! loader fails when the aligned cursor is past the end. Where that case occurs, the
//! binder's placements are checked against the document's rule with zero-size regions
//! exempted, instead of against the reference binding and the C peer.
//!
//! The one-pass loader (`Job::load`: validation and binding in one walk) is held to the two
//! passes on every input, valid or not: the same verdict, the same binding, the same error
//! for a fault of the file's own checks, and otherwise the same error or a binder fault it
//! met first (tests/tests/load_one_pass.rs states the rule in full).
//!
//! Input: `npuschema_fuzz::Npu1Input`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_cpeer as cpeer;
use npuschema_fuzz::Npu1Input;
use npuschema_generated::npu1::Npu1;
use npuschema_refreader::npu1::{self as refnpu1, Binding};
use npuschema_runtime::binder::{BoundRegion, Job, RegionKind};

fuzz_target!(|data: &[u8]| {
    let Some(mut input) = Npu1Input::parse(data) else {
        return;
    };
    let (blob, arena) = input.parts();
    one_pass_agrees(blob, arena);
    let Ok(view) = Npu1::validate(blob) else {
        return;
    };
    // The reference reader and the C peer read version 1 only.
    if npuschema_fuzz::is_npu1_v2(blob) {
        return;
    }
    let blob_addr = blob.as_ptr() as u64;
    let arena_addr = arena.as_ptr() as u64;
    let arena_len = arena.len();
    let reference = refnpu1::read(blob).expect("generated accepts, so the reference reader must");
    let ref_bind = refnpu1::bind(&reference, arena_addr, arena_len as u64);
    let count = reference.regions.len();

    // The C peer's code and job, when it was compiled.
    let c_peer = {
        let mut job = cpeer::Job::default();
        cpeer::load(blob, arena, &mut job).map(|rc| (rc, job))
    };

    let exempt = exempt_placement(&reference, arena_addr, arena_len as u64);

    match Job::bind(view, arena) {
        Ok(mut job) => {
            assert!(count <= 8);
            assert_eq!(job.region_count(), count);
            assert_eq!(
                job.cmd_npu_address(),
                blob_addr + u64::from(reference.header.cmd_offset)
            );
            assert_eq!(job.cmd_npu_address() % 16, 0);
            let (expected, zero_past_end) =
                exempt.expect("binder succeeds, so the exempt placement must");
            match &ref_bind {
                Ok(b) => assert_eq!(b, &expected, "document placement"),
                Err(_) => assert!(
                    zero_past_end,
                    "binder succeeds, reference fails, and no zero-size region explains it"
                ),
            }
            let mut arena_end = 0u64;
            for (i, b) in expected.iter().enumerate() {
                let r = job.region(i).expect("bound region");
                assert_eq!(r.index as usize, i);
                assert_eq!(r.npu_address % 16, 0, "regions[{i}] NPU address aligned");
                match *b {
                    Binding::Blob { offset, size } => {
                        assert_eq!(r.kind, RegionKind::Baked);
                        assert_eq!((r.npu_address, r.size), (blob_addr + offset, size));
                    }
                    Binding::Arena { offset, size } => {
                        assert_eq!(r.kind, RegionKind::Runtime);
                        assert_eq!((r.npu_address, r.size), (arena_addr + offset, size));
                        assert_eq!(r.arena_offset, Some(offset as usize));
                        if size > 0 {
                            assert!(offset >= arena_end, "runtime regions in order and disjoint");
                            arena_end = offset + size;
                            assert!(arena_end <= arena_len as u64);
                            let bytes = job.region_bytes_mut(i).expect("runtime bytes");
                            assert_eq!(bytes.len() as u64, size);
                            bytes.fill(0xA5);
                        }
                    }
                }
            }
            assert_eq!(job.arena_used() as u64, arena_end);
            if let Some((c_rc, c_job)) = &c_peer
                && !zero_past_end
            {
                assert_eq!(*c_rc, cpeer::OK, "binder succeeds, C peer fails");
                assert_eq!(c_job.count as usize, count);
                for i in 0..count {
                    let r = job.region(i).expect("bound region");
                    assert_eq!(
                        (c_job.base[i] as u64, u64::from(c_job.size[i])),
                        (r.npu_address, r.size)
                    );
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
            match e.code {
                "too-many-regions" => {
                    assert!(count > 8);
                    if let Some((c_rc, _)) = c_peer {
                        assert_eq!(c_rc, cpeer::E_TOO_MANY);
                    }
                }
                "misaligned-command-stream" => {
                    assert!(count <= 8);
                    assert_ne!((blob_addr + u64::from(reference.header.cmd_offset)) % 16, 0);
                }
                "misaligned-baked-region" => {
                    let d = reference.regions[e.field.index as usize];
                    assert!(d.baked());
                    assert_ne!((blob_addr + u64::from(d.data_offset)) % 16, 0);
                }
                "arena-overflow" => {
                    // The document's placement (zero-size regions exempt) fails at the same
                    // region; without the exemption the document fails there or earlier.
                    let i = e.field.index as usize;
                    assert!(!reference.regions[i].baked());
                    assert_eq!(
                        exempt.err(),
                        Some(i),
                        "binder and exempt placement fail at the same region"
                    );
                    assert!(ref_bind.is_err());
                    if let Some((c_rc, _)) = c_peer {
                        assert_eq!(c_rc, cpeer::E_ARENA);
                    }
                }
                other => panic!("unexpected binder error {other}: {e}"),
            }
        }
    }
});

/// The document's step-8 placement with the binder's one exemption (a zero-size runtime
/// region is placed at the aligned cursor even past the arena's end, and takes no room):
/// the bindings and whether the exemption was used, or the index of the first region that
/// does not fit.
fn exempt_placement(
    reference: &refnpu1::Npu1,
    arena_addr: u64,
    arena_len: u64,
) -> Result<(Vec<Binding>, bool), usize> {
    let end = arena_addr + arena_len;
    let mut cursor = arena_addr;
    let mut zero_past_end = false;
    let mut out = Vec::new();
    for (i, d) in reference.regions.iter().enumerate() {
        let size = u64::from(d.size);
        if d.baked() {
            out.push(Binding::Blob {
                offset: u64::from(d.data_offset),
                size,
            });
            continue;
        }
        let a = cursor.div_ceil(16) * 16;
        if size == 0 {
            zero_past_end |= a > end;
        } else if a > end || end - a < size {
            return Err(i);
        } else {
            cursor = a + size;
        }
        out.push(Binding::Arena {
            offset: a - arena_addr,
            size,
        });
    }
    Ok((out, zero_past_end))
}

/// `Job::load` against `Npu1::validate` then `Job::bind`.
fn one_pass_agrees(blob: &[u8], arena: &mut [u8]) {
    type Seen = (u64, usize, Vec<BoundRegion>);
    let seen =
        |j: Job<'_, '_>| -> Seen { (j.cmd_npu_address(), j.arena_used(), j.regions().collect()) };
    let two = Npu1::validate(blob)
        .and_then(|v| Job::bind(v, &mut *arena))
        .map(seen);
    let one = Job::load(blob, &mut *arena).map(seen);
    const BINDER: [&str; 4] = [
        "too-many-regions",
        "misaligned-command-stream",
        "misaligned-baked-region",
        "arena-overflow",
    ];
    match (&one, &two) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) if a == b => {}
        (Err(a), Err(b)) => {
            assert!(BINDER.contains(&a.code), "one pass {a}, two passes {b}");
            assert!(
                b.field.table == "regions" || BINDER.contains(&b.code),
                "a file-level error must be the same: one pass {a}, two passes {b}"
            );
        }
        _ => panic!("one pass {one:?}, two passes {two:?}"),
    }
}
