//! The arena binder over real NPU1 blobs (written with the generated writer, validated
//! with the generated validator): alignment by address, overflow, the 8-slot limit,
//! misaligned blobs, zero-size regions, and the arena-size guarantees.
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use npuschema_core::{Brief, Detail, FNV1A32_OFFSET_BASIS, Field, fnv1a32};
use npuschema_generated::npu1::{Accel, Npu1, Npu1Writer, RegionData, RegionSpec as WSpec, Role};
use npuschema_runtime::binder::{
    AddressMap, ArenaSize, BINDER_SITE_BASE, Identity, Job, MAX_REGIONS, RegionKind, RegionSource,
    RegionSpec, arena_size, arena_size_at, arena_size_for, bind_each, error_site, load_each_as,
};

/// NPU_OP_STOP 0xFFFF: the smallest valid stream.
const STOP: [u8; 4] = [0x00, 0x00, 0xFF, 0xFF];

fn blob(regions: &[WSpec<'_>]) -> Vec<u8> {
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(regions)
        .cmd_stream(&STOP)
        .to_vec()
        .unwrap()
}

fn runtime(size: u32) -> WSpec<'static> {
    WSpec {
        role: Role::Scratch,
        data: RegionData::Runtime(size),
    }
}

/// A buffer holding `bytes` at an address `== misalign (mod 16)`; returns it and the
/// offset of the bytes in it.
fn placed(bytes: &[u8], misalign: usize) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; bytes.len() + 32];
    let base = buf.as_ptr().addr();
    let at = (16 - base % 16 + misalign) % 16;
    buf[at..at + bytes.len()].copy_from_slice(bytes);
    (buf, at)
}

/// A sub-slice of `buf` of `len` bytes starting at an address `== misalign (mod 16)`.
fn arena_at(buf: &mut [u8], misalign: usize, len: usize) -> &mut [u8] {
    let base = buf.as_ptr().addr();
    let at = (16 - base % 16 + misalign) % 16;
    &mut buf[at..at + len]
}

fn sizes_blob() -> Vec<u8> {
    // Weights (baked 48 bytes), then runtime regions of awkward sizes.
    let w: Vec<u8> = (0..48).collect();
    blob(&[
        WSpec {
            role: Role::Weights,
            data: RegionData::Baked(&w),
        },
        runtime(10),
        WSpec {
            role: Role::Input,
            data: RegionData::Runtime(33),
        },
        runtime(0),
        WSpec {
            role: Role::Output,
            data: RegionData::Runtime(16),
        },
    ])
}

#[test]
fn baked_regions_are_used_in_place() {
    let bytes = sizes_blob();
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let mut arena = vec![0u8; 256];
    let mut job = Job::bind(view, &mut arena).unwrap();
    let r0 = job.region(0).unwrap();
    assert_eq!(r0.kind, RegionKind::Baked);
    let in_blob = view.regions().next().unwrap().data().unwrap();
    assert_eq!(
        job.region_bytes(0).unwrap().as_ptr(),
        in_blob.as_ptr(),
        "no copy"
    );
    assert_eq!(r0.cpu_address, in_blob.as_ptr().addr());
    assert_eq!(r0.npu_address, in_blob.as_ptr().addr() as u64);
    assert!(
        job.region_bytes_mut(0).is_none(),
        "baked bytes are read-only"
    );
    assert_eq!(job.cmd_stream().as_ptr(), view.cmd_stream().as_ptr());
    assert_eq!(job.cmd_npu_address() % 16, 0);
    assert_eq!(job.accel_macs(), 128);
    assert_eq!(job.region_count(), 5);
    assert_eq!(job.find_role(Role::Input.raw()), Some(2));
    assert_eq!(job.find_role(Role::Output.raw()), Some(4));
    assert!(job.region(5).is_none());
}

#[test]
fn odd_arena_base_still_yields_aligned_regions() {
    let bytes = sizes_blob();
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let mut storage = vec![0u8; 512];
    let arena = arena_at(&mut storage, 1, 200);
    let arena_start = arena.as_ptr().addr();
    assert_eq!(arena_start % 16, 1);
    let mut job = Job::bind(view, arena).unwrap();

    let runtime: Vec<_> = job
        .regions()
        .filter(|r| r.kind == RegionKind::Runtime)
        .collect();
    assert_eq!(runtime.len(), 4);
    let mut prev_end = arena_start;
    for r in &runtime {
        assert_eq!(
            r.npu_address % 16,
            0,
            "region {} at {:#x}",
            r.index,
            r.npu_address
        );
        assert_eq!(r.cpu_address, arena_start + r.arena_offset.unwrap());
        assert!(r.cpu_address >= prev_end, "regions do not overlap");
        prev_end = r.cpu_address + r.size as usize;
    }
    // First runtime region: 15 bytes of padding from an address == 1 (mod 16).
    assert_eq!(runtime[0].arena_offset, Some(15));
    // 10 bytes, then aligned: 15 + 16 = 31; then 33 bytes -> 64, aligned 79 (address 80).
    assert_eq!(runtime[1].arena_offset, Some(31));
    assert_eq!(
        runtime[2].arena_offset,
        Some(79),
        "zero-size region at the next aligned address"
    );
    assert_eq!(runtime[2].size, 0);
    assert_eq!(
        runtime[3].arena_offset,
        Some(79),
        "a zero-size region takes no room"
    );
    assert_eq!(job.arena_used(), 79 + 16);
    assert_eq!(
        job.arena_used() as u64,
        arena_size_at(&view, arena_start as u64)
    );

    // The app writes its input through the job (the arena is borrowed by it).
    job.region_bytes_mut(2).unwrap().fill(0xAB);
    assert_eq!(job.region_bytes_mut(3).unwrap().len(), 0);
    assert_eq!(job.region_bytes(2).unwrap(), &[0xAB; 33][..]);
    assert!(job.region_bytes(1).unwrap().iter().all(|&b| b == 0));
}

#[test]
fn arena_size_is_exact_for_every_start_alignment_and_the_worst_case_is_tight() {
    let bytes = sizes_blob();
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let size = arena_size(&view);
    // F = align16(10) + align16(33) + align16(0) + 16 = 16 + 48 + 0 + 16 = 80.
    assert_eq!(
        size,
        ArenaSize {
            aligned_start: 80,
            any_start: 95
        }
    );
    let mut storage = vec![0u8; 256];
    for k in 0..16 {
        let need = {
            let a = arena_at(&mut storage, k, 0);
            arena_size_at(&view, a.as_ptr().addr() as u64)
        };
        assert_eq!(need, 80 + ((16 - k as u64) % 16), "start == {k} (mod 16)");
        assert!(need <= size.any_start);
        let exact = arena_at(&mut storage, k, need as usize);
        assert!(Job::bind(view, exact).is_ok(), "exactly enough at {k}");
        let short = arena_at(&mut storage, k, need as usize - 1);
        let e = Job::bind(view, short).unwrap_err();
        assert_eq!(e.code, "arena-overflow", "one byte short at {k}");
        // The size-first report fails at the same check, and binds the same way.
        let short = arena_at(&mut storage, k, need as usize - 1);
        let b = Job::bind_as::<Brief>(view, short).unwrap_err();
        let s = error_site(b.id()).expect("a binder site");
        assert_eq!((s.code, s.name, s.offset), ("arena-overflow", "size", 8));
        assert!(b.id() > BINDER_SITE_BASE);
        let exact = arena_at(&mut storage, k, need as usize);
        let addrs: Vec<u64> = Job::bind_as::<Brief>(view, exact)
            .unwrap()
            .regions()
            .map(|r| r.npu_address)
            .collect();
        let exact = arena_at(&mut storage, k, need as usize);
        let full: Vec<u64> = Job::bind(view, exact)
            .unwrap()
            .regions()
            .map(|r| r.npu_address)
            .collect();
        assert_eq!(addrs, full);
    }
    assert_eq!(arena_size_at(&view, 0x2000_0000), size.aligned_start);
    assert_eq!(arena_size_at(&view, 0x2000_0001), size.any_start);
}

#[test]
fn arena_overflow_reports_region_needed_and_available_after_alignment() {
    let bytes = blob(&[runtime(64), runtime(100)]);
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let mut storage = vec![0u8; 512];
    // Start == 8 (mod 16): region 0 at +8 (64 bytes, to +72), region 1 at +72 (aligned).
    let arena = arena_at(&mut storage, 8, 150);
    let e = Job::bind(view, arena).unwrap_err();
    assert_eq!(e.code, "arena-overflow");
    assert_eq!(e.field, Field::indexed("regions", 1, "size"));
    assert_eq!(e.offset, 32 + 16 + 8, "the size field of descriptor 1");
    assert_eq!(
        e.detail,
        Detail::Short {
            needed: 100,
            available: 150 - 72
        }
    );
    assert_eq!(
        e.to_string(),
        "arena-overflow: regions[1].size at 0x38: needs 0x64 bytes, buffer has 0x4e"
    );
    // An empty arena fails on region 0, with nothing available.
    let e = Job::bind(view, &mut []).unwrap_err();
    assert_eq!(e.field, Field::indexed("regions", 0, "size"));
    assert_eq!(
        e.detail,
        Detail::Short {
            needed: 64,
            available: 0
        }
    );
}

#[test]
fn a_hostile_size_cannot_wrap_the_cursor() {
    let bytes = blob(&[runtime(u32::MAX), runtime(u32::MAX)]);
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let mut arena = vec![0u8; 64];
    let e = Job::bind(view, &mut arena).unwrap_err();
    assert_eq!(e.code, "arena-overflow");
    assert_eq!(e.field, Field::indexed("regions", 0, "size"));
    assert_eq!(
        arena_size(&view).aligned_start,
        0x1_0000_0000 + u64::from(u32::MAX) - 1 + 1
    );
}

#[test]
fn exactly_eight_regions_bind_and_nine_are_refused() {
    let eight: Vec<_> = (0..8).map(|i| runtime(i * 8)).collect();
    let bytes = blob(&eight);
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let mut arena = vec![0u8; arena_size(&view).any_start as usize];
    let job = Job::bind(view, &mut arena).unwrap();
    assert_eq!(job.region_count(), MAX_REGIONS);
    assert_eq!(
        job.regions().map(|r| r.index).collect::<Vec<_>>(),
        (0..8).collect::<Vec<u8>>()
    );

    let nine: Vec<_> = (0..9).map(|_| runtime(16)).collect();
    let bytes = blob(&nine);
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let mut arena = vec![0u8; 1024];
    let e = Job::bind(view, &mut arena).unwrap_err();
    assert_eq!(e.code, "too-many-regions");
    assert_eq!(e.field, Field::plain("header.region_count"));
    assert_eq!(e.offset, 12);
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(9),
            rhs: Some(8),
            names: &["region_count", ">", "BASEP slots"]
        }
    );
}

#[test]
fn a_blob_placed_off_alignment_is_refused_at_its_actual_address() {
    let w = [7u8; 32];
    let bytes = blob(&[
        WSpec {
            role: Role::Weights,
            data: RegionData::Baked(&w),
        },
        runtime(16),
    ]);
    for k in 0..16 {
        let (buf, at) = placed(&bytes, k);
        let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
        let mut arena = vec![0u8; 64];
        let result = Job::bind(view, &mut arena);
        if k == 0 {
            assert!(result.is_ok());
            continue;
        }
        let e = result.unwrap_err();
        assert_eq!(e.code, "misaligned-command-stream", "blob at +{k}");
        assert_eq!(e.field, Field::plain("header.cmd_offset"));
        let address = view.cmd_stream().as_ptr().addr() as u64;
        assert_eq!(address % 16, k as u64);
        assert_eq!(
            e.detail,
            Detail::Compare {
                lhs: Some(address),
                rhs: Some(k as u64),
                names: &["npu address", "% 0x10 =", ""]
            }
        );
    }
}

/// Move descriptor `index`'s baked bytes 8 bytes later (shrinking the region by 8) and fix
/// the checksum: a valid blob whose baked data is not 16-aligned in the file.
fn shift_baked(bytes: &mut [u8], index: usize) {
    let desc = 32 + 16 * index;
    let rd = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let size = rd(bytes, desc + 8);
    let offset = rd(bytes, desc + 12);
    bytes[desc + 8..desc + 12].copy_from_slice(&(size - 8).to_le_bytes());
    bytes[desc + 12..desc + 16].copy_from_slice(&(offset + 8).to_le_bytes());
    let sum = fnv1a32(FNV1A32_OFFSET_BASIS, &bytes[32..]);
    bytes[28..32].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn misaligned_baked_region_is_refused_by_its_address() {
    let w0 = [1u8; 32];
    let w1 = [2u8; 32];
    let mut bytes = blob(&[
        WSpec {
            role: Role::Weights,
            data: RegionData::Baked(&w0),
        },
        WSpec {
            role: Role::Weights,
            data: RegionData::Baked(&w1),
        },
    ]);
    shift_baked(&mut bytes, 1);
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).expect("still a valid NPU1 blob");
    let address = view
        .regions()
        .nth(1)
        .unwrap()
        .data()
        .unwrap()
        .as_ptr()
        .addr() as u64;
    assert_eq!(address % 16, 8);
    let mut arena = [0u8; 0];
    let e = Job::bind(view, &mut arena).unwrap_err();
    assert_eq!(e.code, "misaligned-baked-region");
    assert_eq!(e.field, Field::indexed("regions", 1, "data_offset"));
    assert_eq!(e.offset, 32 + 16 + 12);
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(address),
            rhs: Some(8),
            names: &["npu address", "% 0x10 =", ""]
        }
    );
}

/// An NPU that sees SRAM through an alias window 0x1000_0008 bytes away: CPU-aligned
/// buffers are NPU-misaligned by 8.
struct Alias;

#[allow(unsafe_code)]
// SAFETY: test-only: jobs bound with it are inspected, never run.
unsafe impl AddressMap for Alias {
    fn npu_address(&self, cpu: usize) -> u64 {
        cpu as u64 + 0x1000_0008
    }
}

#[test]
fn alignment_is_applied_to_the_npu_address() {
    // Baked regions and the stream are checked by their NPU address...
    let w = [1u8; 16];
    let bytes = blob(&[WSpec {
        role: Role::Weights,
        data: RegionData::Baked(&w),
    }]);
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let e = Job::bind_with(view, &mut [], &Alias).unwrap_err();
    assert_eq!(e.code, "misaligned-command-stream");

    // ... and runtime regions are carved at aligned NPU addresses.
    let mut storage = vec![0u8; 128];
    let arena = arena_at(&mut storage, 0, 100);
    let cpu = arena.as_ptr().addr();
    // The stream at an address == 8 (mod 16), which the alias makes NPU-aligned.
    let (stream, at) = placed(&STOP, 8);
    let job = Job::bind_parts(
        &stream[at..at + 4],
        0,
        [RegionSpec {
            role: 1,
            source: RegionSource::Runtime(16),
        }],
        arena,
        &Alias,
    )
    .unwrap();
    let r = job.region(0).unwrap();
    assert_eq!(r.npu_address % 16, 0);
    assert_eq!(r.arena_offset, Some(8));
    assert_eq!(r.npu_address, cpu as u64 + 8 + 0x1000_0008);
}

#[test]
fn arena_size_for_a_layout_without_runtime_regions_is_zero() {
    let w = [0u8; 16];
    let specs = [RegionSpec {
        role: 0,
        source: RegionSource::Baked(&w),
    }];
    assert_eq!(
        arena_size_for(specs),
        Some(ArenaSize {
            aligned_start: 0,
            any_start: 0
        })
    );
    let specs = [RegionSpec {
        role: 1,
        source: RegionSource::Runtime(0),
    }];
    assert_eq!(
        arena_size_for(specs),
        Some(ArenaSize {
            aligned_start: 0,
            any_start: 0
        }),
        "a zero-size runtime region takes no room"
    );
    // It binds even into an empty arena at an odd address, as an empty slice.
    let mut storage = [0u8; 32];
    let arena = arena_at(&mut storage, 3, 0);
    let (stream, at) = placed(&STOP, 0);
    let job = Job::bind_parts(
        &stream[at..at + 4],
        0,
        specs,
        arena,
        &npuschema_runtime::binder::Identity,
    )
    .unwrap();
    assert_eq!(job.region(0).unwrap().npu_address % 16, 0);
    assert_eq!(job.region_bytes(0), Some(&[][..]));
    assert_eq!(job.arena_used(), 0);
    let specs = [RegionSpec {
        role: 1,
        source: RegionSource::Runtime(u64::MAX),
    }];
    assert_eq!(
        arena_size_for(specs),
        None,
        "overflow is reported, not wrapped"
    );
}

/// `bind_each` is the same binder as `Job::bind_with`: the regions it hands out are the job's,
/// in order, and so are the stream, the arena use and every error.
#[test]
fn bind_each_hands_out_what_the_job_keeps() {
    let bytes = sizes_blob();
    let (buf, at) = placed(&bytes, 0);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let mut storage = vec![0u8; 512];
    for k in [0, 1, 8, 15] {
        let arena = arena_at(&mut storage, k, 200);
        let mut seen = Vec::new();
        let bound = bind_each(view, arena, &Identity, |r| seen.push(r)).unwrap();
        let job = Job::bind(view, arena).unwrap();
        assert_eq!(seen, job.regions().collect::<Vec<_>>(), "arena at +{k}");
        assert_eq!(bound.region_count, job.region_count());
        assert_eq!(bound.arena_used, job.arena_used());
        assert_eq!(bound.cmd_stream.as_ptr(), job.cmd_stream().as_ptr());
        assert_eq!(bound.cmd_npu_address, job.cmd_npu_address());
        assert_eq!(bound.accel_macs, job.accel_macs());
    }
    // Too small an arena: the same error, after the regions that fit.
    let arena = arena_at(&mut storage, 1, 40);
    let mut seen = 0;
    let e = bind_each(view, arena, &Identity, |_| seen += 1).unwrap_err();
    assert_eq!(Job::bind(view, arena).unwrap_err(), e);
    assert_eq!(e.code, "arena-overflow");
    assert_eq!(e.field, Field::indexed("regions", 2, "size"));
    assert_eq!(seen, 2, "regions 0 and 1 were placed");
    // A misaligned blob: the same error, nothing handed out.
    let (buf, at) = placed(&bytes, 4);
    let view = Npu1::validate(&buf[at..at + bytes.len()]).unwrap();
    let mut arena = vec![0u8; 256];
    let e = bind_each(view, &mut arena, &Identity, |_| panic!("nothing is bound")).unwrap_err();
    assert_eq!(e.code, "misaligned-command-stream");
    assert_eq!(Job::bind(view, &mut arena).unwrap_err(), e);
}

/// The one-pass loader binds as validate + bind does, for the job and the caller's table,
/// and fails at the same check when there is one fault (run under Miri too).
#[test]
fn load_in_one_pass_binds_as_validate_then_bind() {
    let bytes = sizes_blob();
    let (buf, at) = placed(&bytes, 0);
    let b = &buf[at..at + bytes.len()];
    let view = Npu1::validate(b).unwrap();
    let mut storage = vec![0u8; 512];
    for k in [0, 1, 8, 15] {
        let arena = arena_at(&mut storage, k, 200);
        let two: Vec<_> = Job::bind(view, arena).unwrap().regions().collect();
        let job = Job::load(b, arena).unwrap();
        assert_eq!(job.regions().collect::<Vec<_>>(), two, "arena at +{k}");
        assert_eq!(job.cmd_stream().as_ptr(), view.cmd_stream().as_ptr());
        let arena = arena_at(&mut storage, k, 200);
        let mut seen = Vec::new();
        let (v, bound) =
            load_each_as::<Brief, _, _>(b, arena, &Identity, |r| seen.push(r)).unwrap();
        assert_eq!(seen, two);
        assert_eq!((bound.region_count, v.regions().len()), (5, 5));
    }
    // One fault each: the same error.
    let arena = arena_at(&mut storage, 1, 40);
    let e = Job::load(b, arena).unwrap_err();
    assert_eq!(Job::bind(view, arena).unwrap_err(), e);
    assert_eq!(e.field, Field::indexed("regions", 2, "size"));
    let brief = Job::load_as::<Brief>(b, arena).unwrap_err();
    assert_eq!(
        error_site(brief.id()).map(|s| s.code),
        Some("arena-overflow")
    );
    let mut arena = vec![0u8; 256];
    assert_eq!(
        Job::load(&b[..b.len() - 1], &mut arena).unwrap_err().code,
        "total-bytes-mismatch"
    );
    let (buf, at) = placed(&bytes, 4);
    let e = Job::load(&buf[at..at + bytes.len()], &mut arena).unwrap_err();
    // The blob's baked bytes sit off alignment too: the one pass meets them first.
    assert_eq!((e.code, e.field.index), ("misaligned-baked-region", 0));
}

/// A job stays small: one slot per region, nothing per slot that can be derived, and the
/// validated view (its slices: 104 bytes on 64-bit targets) from which NPU1 version 2's
/// tensors and compiled-for words are read (`runtime/src/tensors.rs`).
#[test]
fn a_job_stays_small() {
    assert!(
        std::mem::size_of::<Job<'_, '_>>() <= 480,
        "{}",
        std::mem::size_of::<Job<'_, '_>>()
    );
}

/// Site numbers: the generated tables are numbered 1, 2, ... in order, the binder's from
/// `BINDER_SITE_BASE + 1`, and the two ranges are disjoint, so one `Brief` number from a
/// whole load (validation, then binding) names one check.
#[test]
fn site_numbers_name_one_check_of_a_load() {
    use npuschema_generated::{npu1, vpmn};
    for (k, s) in npu1::ERROR_SITES.iter().enumerate() {
        assert_eq!(usize::from(s.id), k + 1, "{}", s.code);
        assert!(core::ptr::eq(npu1::error_site(s.id).unwrap(), s));
        assert!(core::ptr::eq(error_site(s.id).unwrap(), s));
        assert!(s.id < BINDER_SITE_BASE);
    }
    for (k, s) in vpmn::ERROR_SITES.iter().enumerate() {
        assert_eq!(usize::from(s.id), k + 1, "{}", s.code);
        assert!(core::ptr::eq(vpmn::error_site(s.id).unwrap(), s));
    }
    let binder_sites = npuschema_runtime::binder::ERROR_SITES
        .iter()
        .chain(npuschema_runtime::binder::BUFFER_ERROR_SITES.iter());
    for (k, s) in binder_sites.enumerate() {
        assert_eq!(
            usize::from(s.id),
            usize::from(BINDER_SITE_BASE) + k + 1,
            "{}",
            s.code
        );
        assert!(core::ptr::eq(error_site(s.id).unwrap(), s));
        // Fits a Thumb `movs` immediate: the size the base was chosen for.
        assert!(s.id <= 0xFF, "{:#x}", s.id);
    }
    let n = u16::try_from(npu1::ERROR_SITES.len()).unwrap();
    let past = BINDER_SITE_BASE
        + u16::try_from(
            npuschema_runtime::binder::ERROR_SITES.len()
                + npuschema_runtime::binder::BUFFER_ERROR_SITES.len(),
        )
        .unwrap()
        + 1;
    for unknown in [0, n + 1, BINDER_SITE_BASE, past, u16::MAX] {
        assert!(error_site(unknown).is_none(), "{unknown:#x}");
    }
    assert!(npu1::error_site(0).is_none() && vpmn::error_site(0).is_none());
}
