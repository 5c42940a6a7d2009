//! Every malformed-input row of the NPU1 document's section 7 table, the integer-overflow
//! attacks a u32 C loader would let through, and the error's field, offset and Display.

use npuschema_core::{Brief, Detail, FNV1A32_OFFSET_BASIS, fnv1a32};
use npuschema_generated::npu1::*;

/// A valid blob: baked weights (region 0) and a runtime scratch region (region 1).
fn blob() -> Vec<u8> {
    let weights: Vec<u8> = (0..96u8).collect();
    let stream = [0x01u8, 0x01, 0x0f, 0x00, 0x00, 0x00, 0xff, 0xff];
    let specs = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&weights),
        },
        RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(0x400),
        },
    ];
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes")
}

fn put(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Recompute the checksum so that only the intended fault remains.
fn reseal(b: &mut [u8]) {
    let sum = fnv1a32(FNV1A32_OFFSET_BASIS, &b[32..]);
    put(b, 28, sum);
}

/// The code `validate` reports, after checking that `validate_as::<Brief>` reports the same
/// check: same code, same field, and the site's offset is where the full error points
/// (relative to the descriptor for a field of the region table).
fn code(b: &[u8]) -> &'static str {
    let brief = Npu1::validate_as::<Brief>(b);
    match Npu1::validate(b) {
        Ok(_) => {
            assert!(brief.is_ok(), "Brief rejects what Error accepts: {brief:?}");
            "ok"
        }
        Err(e) => {
            let id = brief.expect_err("Brief accepts what Error rejects").id();
            let s = error_site(id).expect("a Brief names a site of the module");
            assert_eq!(
                (s.code, s.table, s.name),
                (e.code, e.field.table, e.field.name)
            );
            let base = if s.table.is_empty() {
                0
            } else {
                32 + 16 * e.field.index
            };
            assert_eq!(base + u64::from(s.offset), e.offset, "{e}");
            e.code
        }
    }
}

#[test]
fn the_reference_blob_is_valid() {
    assert_eq!(code(&blob()), "ok");
}

#[test]
fn buffer_shorter_than_32_bytes() {
    let b = blob();
    for n in [0, 1, 4, 31] {
        assert_eq!(code(&b[..n]), "truncated-header", "length {n}");
    }
    let e = Npu1::validate(&b[..31]).unwrap_err();
    assert_eq!(
        e.detail,
        Detail::Short {
            needed: 32,
            available: 31
        }
    );
}

#[test]
fn wrong_magic() {
    let mut b = blob();
    b[0] = b'X';
    assert_eq!(code(&b), "bad-magic");
    let e = Npu1::validate(&b).unwrap_err();
    assert_eq!(
        (e.field.to_string().as_str(), e.offset),
        ("header.magic", 0)
    );
}

#[test]
fn wrong_version() {
    for v in [0, 3, u32::MAX] {
        let mut b = blob();
        put(&mut b, 4, v);
        assert_eq!(code(&b), "unsupported-version", "version {v}");
    }
}

#[test]
fn total_bytes_differs_from_the_buffer_either_way() {
    let mut longer = blob();
    longer.push(0);
    assert_eq!(code(&longer), "total-bytes-mismatch");
    let b = blob();
    assert_eq!(code(&b[..b.len() - 1]), "total-bytes-mismatch");
    let mut field = blob();
    let t = get(&field, 8);
    put(&mut field, 8, t - 16);
    assert_eq!(code(&field), "total-bytes-mismatch");
}

#[test]
fn region_count_huge() {
    let mut b = blob();
    put(&mut b, 12, 1000);
    assert_eq!(code(&b), "region-table-out-of-bounds");
}

#[test]
fn region_count_whose_table_end_wraps_u32() {
    // 32 + 16 * 0x0FFF_FFFE = 0x1_0000_0000: zero in u32 arithmetic, so a C loader doing
    // `32 + count * 16 <= total` in u32 would accept it and walk 4 GiB of descriptors.
    let mut b = blob();
    put(&mut b, 12, 0x0FFF_FFFE);
    assert_eq!(32u32.wrapping_add(0x0FFF_FFFEu32.wrapping_mul(16)), 0);
    assert_eq!(code(&b), "region-table-out-of-bounds");
    put(&mut b, 12, u32::MAX);
    assert_eq!(code(&b), "region-table-out-of-bounds");
}

#[test]
fn empty_command_stream() {
    let mut b = blob();
    put(&mut b, 20, 0);
    assert_eq!(code(&b), "empty-command-stream");
}

#[test]
fn command_stream_past_the_end() {
    let mut b = blob();
    let total = get(&b, 8);
    put(&mut b, 16, total - 4);
    assert_eq!(code(&b), "command-stream-out-of-bounds");
}

#[test]
fn command_stream_whose_end_wraps_u32() {
    // 0xFFFF_FFF0 + 0x20 = 0x10 in u32: inside the blob to a u32 loader.
    let mut b = blob();
    put(&mut b, 16, 0xFFFF_FFF0);
    put(&mut b, 20, 0x20);
    assert!(0xFFFF_FFF0u32.wrapping_add(0x20) < get(&b, 8));
    assert_eq!(code(&b), "command-stream-out-of-bounds");
    let e = Npu1::validate(&b).unwrap_err();
    assert_eq!(
        e.detail,
        Detail::Range {
            start: 0xFFFF_FFF0,
            len: 0x20,
            limit_name: "total_bytes",
            limit: u64::from(get(&b, 8))
        }
    );
}

#[test]
fn bit_rot_in_the_payload() {
    let mut b = blob();
    let last = b.len() - 1;
    b[last] ^= 0x40;
    assert_eq!(code(&b), "checksum-mismatch");
    let e = Npu1::validate(&b).unwrap_err();
    assert_eq!(
        (e.field.to_string().as_str(), e.offset),
        ("header.checksum", 28)
    );
}

#[test]
fn unknown_region_flag() {
    let mut b = blob();
    put(&mut b, 32 + 16 + 4, 0x2);
    reseal(&mut b);
    assert_eq!(code(&b), "unknown-region-flags");
    let e = Npu1::validate(&b).unwrap_err();
    assert_eq!(e.field.to_string(), "regions[1].flags");
    assert_eq!(e.offset, 0x34);
    assert_eq!(
        e.detail,
        Detail::UnknownBits {
            value: 2,
            unknown: 2
        }
    );
}

#[test]
fn baked_region_past_the_end() {
    let mut b = blob();
    let total = get(&b, 8);
    put(&mut b, 32 + 12, total - 8);
    reseal(&mut b);
    assert_eq!(code(&b), "baked-region-out-of-bounds");
}

#[test]
fn baked_region_whose_end_wraps_u32_reads_as_documented() {
    // Region 1 made BAKED with data_offset 0xfffffff0 and size 0x20: wraps to 0x10 in u32.
    let mut b = blob();
    put(&mut b, 32 + 16 + 4, 1);
    put(&mut b, 32 + 16 + 8, 0x20);
    put(&mut b, 32 + 16 + 12, 0xFFFF_FFF0);
    reseal(&mut b);
    let e = Npu1::validate(&b).unwrap_err();
    assert_eq!(e.code, "baked-region-out-of-bounds");
    // The example prints `at 0x2c`, which is region 0's data_offset (32 + 12);
    // region 1's is at 32 + 16 + 12 = 0x3c.
    let expected = format!(
        "baked-region-out-of-bounds: regions[1].data_offset at 0x3c: 0xfffffff0 + 0x20 > total_bytes {:#x}",
        b.len()
    );
    assert_eq!(e.to_string(), expected);
}

#[test]
fn runtime_regions_are_not_bounded_by_the_blob() {
    // A runtime region's data_offset is unused and its size is the arena's business.
    let mut b = blob();
    put(&mut b, 32 + 16 + 8, u32::MAX);
    put(&mut b, 32 + 16 + 12, u32::MAX);
    reseal(&mut b);
    assert_eq!(code(&b), "ok");
}

#[test]
fn unknown_role_and_accel_are_kept() {
    let mut b = blob();
    put(&mut b, 32, 99);
    put(&mut b, 24, 96);
    reseal(&mut b);
    let v = Npu1::validate(&b).expect("valid");
    assert_eq!(
        v.regions().next().map(|r| r.role()),
        Some(Role::Unknown(99))
    );
    assert_eq!(v.header().accel(), Accel::Unknown(96));
    assert_eq!(Role::Unknown(99).name(), None);
}

#[test]
fn overlapping_baked_regions_are_legal() {
    let mut b = blob();
    // Region 1 baked over the same bytes as region 0.
    let (off, size) = (get(&b, 32 + 12), get(&b, 32 + 8));
    put(&mut b, 32 + 16 + 4, 1);
    put(&mut b, 32 + 16 + 8, size);
    put(&mut b, 32 + 16 + 12, off);
    reseal(&mut b);
    let v = Npu1::validate(&b).expect("valid");
    let r: Vec<_> = v.regions().collect();
    assert_eq!(r[0].data(), r[1].data());
}

#[test]
fn several_faults_report_the_first_in_check_order() {
    let mut b = blob();
    b[0] = 0;
    put(&mut b, 4, 7);
    assert_eq!(code(&b), "bad-magic");
    let mut b = blob();
    put(&mut b, 4, 7);
    put(&mut b, 20, 0);
    assert_eq!(code(&b), "unsupported-version");
    let mut b = blob();
    put(&mut b, 20, 0);
    b[40] ^= 1;
    assert_eq!(code(&b), "empty-command-stream");
    let mut b = blob();
    put(&mut b, 32 + 4, 0x8);
    put(&mut b, 32 + 16 + 4, 0x8);
    reseal(&mut b);
    let e = Npu1::validate(&b).unwrap_err();
    assert_eq!(
        (e.code, e.field.to_string().as_str()),
        ("unknown-region-flags", "regions[0].flags")
    );
}

#[test]
fn views_borrow_the_blob() {
    let b = blob();
    let v = Npu1::validate(&b).expect("valid");
    let w = v.regions().next().and_then(|r| r.data()).expect("baked");
    let range = b.as_ptr_range();
    assert!(
        range.contains(&w.as_ptr()),
        "baked bytes are in place, not copied"
    );
    assert!(range.contains(&v.cmd_stream().as_ptr()));
    assert_eq!(v.regions().len(), 2);
}

/// A caller's own `Report`: just the code and the absolute byte offset (what a firmware log
/// line might keep), built from the site and the run-time base the validator passes.
#[derive(Debug, PartialEq, Eq)]
struct CodeAt {
    code: &'static str,
    offset: u64,
}

impl npuschema_core::Report for CodeAt {
    fn at(
        _: u16,
        site: &'static npuschema_core::ErrorSite,
        base: u64,
        _: u64,
        _: u64,
        _: u64,
        _: usize,
    ) -> Self {
        Self {
            code: site.code,
            offset: base.saturating_add(u64::from(site.offset)),
        }
    }
}

#[test]
fn a_callers_own_report_gets_the_code_and_the_absolute_offset() {
    let mut b = blob();
    put(&mut b, 32 + 16 + 4, 1);
    put(&mut b, 32 + 16 + 8, 0x20);
    put(&mut b, 32 + 16 + 12, 0xFFFF_FFF0);
    reseal(&mut b);
    let full = Npu1::validate(&b).unwrap_err();
    let mine = Npu1::validate_as::<CodeAt>(&b).unwrap_err();
    assert_eq!(
        mine,
        CodeAt {
            code: full.code,
            offset: full.offset
        }
    );
    assert_eq!(mine.offset, 0x3c);
}
