//! VPMN: files made by the writer with exactly one fault each, one per error code, and the
//! order in which the validator reports faults. The v2 cases need no corpus; the v1 cases
//! mutate the real v1 files (skipped without `NPUSCHEMA_CORPUS`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod vpmn_util;

use npuschema_cli::vpmn::writer::{Section, V2Spec, assemble, build_v2, reseal};
use npuschema_core::{Detail, Error};
use npuschema_generated::vpmn::Vpmn;
use vpmn_util::*;

// Section indices of `small_spec`.
const NETWORK_INFO: usize = 0;
const CHECKSUM: usize = 2;
const INPUT: usize = 3;
const NN: usize = 5;
const DYNAIO: usize = 6;
const DYNAIO_TABLE: usize = 7;
const COEF_DATA: usize = 8;

fn base() -> Vec<u8> {
    build_v2(&small_spec()).expect("the small spec is valid")
}

fn fails(b: &[u8], code: &str) -> Error {
    let e = Vpmn::validate(b).expect_err(code);
    assert_eq!(e.code, code, "got {e}");
    assert!(CODES.contains(&e.code));
    e
}

fn with(f: impl FnOnce(&mut V2Spec)) -> Vec<u8> {
    let mut s = small_spec();
    f(&mut s);
    assemble(&s).unwrap()
}

/// Change the payload of section `i` in place, then recompute every checksum, so that the
/// change is the only fault.
fn edit_payload(i: usize, at: usize, bytes: &[u8]) -> Vec<u8> {
    let mut b = base();
    let p = payload_at(&b, i) + at;
    b[p..p + bytes.len()].copy_from_slice(bytes);
    reseal(&mut b);
    b
}

#[test]
fn the_base_file_is_valid_and_fully_decoded() {
    let b = base();
    let Vpmn::V2(v) = Vpmn::validate(&b).unwrap() else {
        panic!()
    };
    assert_eq!(v.sections().count(), 9);
    assert_eq!(v.inputs().next().unwrap().dim_size(), [3, 8, 8, 1, 1, 1]);
    assert_eq!(v.checksums().count(), 2);
    assert_eq!(v.dynaio_table().count(), 2);
    assert_eq!(
        v.sections().nth(COEF_DATA).unwrap().offset() % 64,
        0,
        "aligned payload"
    );
}

#[test]
fn truncated_header() {
    let b = base();
    // Shorter than the 12-byte prefix: reported before the magic is read.
    let e = fails(&b"VPMX\0\0\x02\0\0\0"[..], "truncated-header");
    assert_eq!(
        e.detail,
        Detail::Short {
            needed: 12,
            available: 10
        }
    );
    // A v2 file shorter than its 48-byte header.
    let e = fails(&b[..40], "truncated-header");
    assert_eq!(
        e.detail,
        Detail::Short {
            needed: 48,
            available: 40
        }
    );
    // A v1 file shorter than its 92-byte prefix, then than its gated fixed part.
    let mut v1 = b"VPMN".to_vec();
    v1.extend(0x0001_0016u32.to_le_bytes());
    v1.resize(80, 0);
    let e = fails(&v1, "truncated-header");
    assert_eq!(
        e.detail,
        Detail::Short {
            needed: 92,
            available: 80
        }
    );
    v1.resize(300, 0);
    let e = fails(&v1, "truncated-header");
    assert_eq!(
        (e.field.to_string(), e.offset),
        ("fixed".to_string(), 92),
        "{e}"
    );
    assert_eq!(
        e.detail,
        Detail::Range {
            start: 92,
            len: 284,
            limit_name: "len",
            limit: 300
        }
    );
}

#[test]
fn bad_magic() {
    let mut b = base();
    b[3] = b'X';
    let e = fails(&b, "bad-magic");
    assert_eq!(
        (e.field.to_string(), e.offset),
        ("header.magic".to_string(), 0)
    );
}

#[test]
fn unsupported_version() {
    for v in [0x0003_0000u32, 0x0002_0001, 0x0000_0001, 0xFFFF_FFFF] {
        let mut b = base();
        set_word(&mut b, 4, v);
        let e = fails(&b, "unsupported-version");
        assert_eq!(
            (e.field.to_string(), e.offset),
            ("header.version".to_string(), 4)
        );
        assert_eq!(
            e.detail,
            Detail::UnknownValue {
                value: u64::from(v)
            }
        );
    }
}

#[test]
fn file_size_mismatch() {
    let mut b = base();
    b.push(0);
    let e = fails(&b, "file-size-mismatch");
    assert_eq!(
        e.detail,
        Detail::Mismatch {
            found: b.len() as u64 - 1,
            expected: b.len() as u64
        }
    );
    // The declared size is 64-bit: a nonzero high word is a different size.
    let mut b = base();
    set_word(&mut b, 0x14, 1);
    let e = fails(&b, "file-size-mismatch");
    assert_eq!(
        e.detail,
        Detail::Mismatch {
            found: (1u64 << 32) | b.len() as u64,
            expected: b.len() as u64
        }
    );
}

#[test]
fn sub_header_checks() {
    let mut b = base();
    set_word(&mut b, 0x20, 2);
    fails(&b, "sub-header-count");
    let mut b = base();
    set_word(&mut b, 0x20, 0);
    fails(&b, "sub-header-count");
    let mut b = base();
    set_word(&mut b, 0x1c, 16);
    fails(&b, "sub-header-size");
    let mut b = base();
    let len = b.len() as u32;
    set_word(&mut b, 0x18, len - 8);
    let e = fails(&b, "sub-header-out-of-bounds");
    assert_eq!(
        e.detail,
        Detail::Range {
            start: u64::from(len) - 8,
            len: 12,
            limit_name: "len",
            limit: u64::from(len)
        }
    );
    let mut b = base();
    set_word(&mut b, 0x18, u32::MAX);
    fails(&b, "sub-header-out-of-bounds");
}

#[test]
fn section_table_checks() {
    let mut b = base();
    set_word(&mut b, 48 + 4, 40);
    fails(&b, "section-header-size");
    let mut b = base();
    set_word(&mut b, 48 + 8, 1000);
    fails(&b, "section-table-out-of-bounds");
    let mut b = base();
    set_word(&mut b, 48, u32::MAX - 10);
    fails(&b, "section-table-out-of-bounds");
}

#[test]
fn unknown_section_type() {
    let b = with(|s| s.sections.push(Section::new(41, 1, vec![1, 2, 3])));
    let e = fails(&b, "unknown-section-type");
    assert_eq!(
        (e.field.to_string(), e.offset),
        ("sections[9].sd_type".to_string(), dir_rec(9) as u64)
    );
    assert_eq!(e.detail, Detail::UnknownValue { value: 41 });
    // Type 40 is the last one the public enum defines: a section of it is known.
    let b = with(|s| s.sections.push(Section::new(0, 1, vec![9])));
    assert!(Vpmn::validate(&b).is_ok());
}

#[test]
fn section_out_of_bounds() {
    // The 64-bit size: a high word of 1 puts the end 4 GiB past the file.
    let mut b = base();
    set_word(&mut b, dir_rec(NN) + 0x10, 1);
    let e = fails(&b, "section-out-of-bounds");
    assert_eq!(e.field.to_string(), format!("sections[{NN}].offset"));
    // The 64-bit offset, and an offset + size that would wrap 64 bits.
    let mut b = base();
    set_word(&mut b, dir_rec(NN) + 8, u32::MAX);
    fails(&b, "section-out-of-bounds");
    let mut b = base();
    set_word(&mut b, dir_rec(NN) + 8, u32::MAX);
    set_word(&mut b, dir_rec(NN) + 0x10, u32::MAX);
    fails(&b, "section-out-of-bounds");
}

#[test]
fn section_entry_size() {
    // A decoded record section whose entries are not its record's size (112 is a multiple
    // of 56, so only the record rule catches it).
    let b = with(|s| s.sections[INPUT].entry_size = 56);
    let e = fails(&b, "section-entry-size");
    assert_eq!(
        e.detail,
        Detail::Mismatch {
            found: 56,
            expected: 112
        }
    );
    assert_eq!(e.field.to_string(), format!("sections[{INPUT}].sd_entsize"));
    // A size that is not a whole number of entries.
    let b = with(|s| s.sections[COEF_DATA].entry_size = 3);
    let e = fails(&b, "section-entry-size");
    assert!(
        matches!(
            e.detail,
            Detail::Compare {
                lhs: Some(1000),
                rhs: Some(3),
                ..
            }
        ),
        "{e}"
    );
    // Zero for a decoded section is a mismatch too; for an opaque one, no entries at all.
    let b = with(|s| s.sections[CHECKSUM].entry_size = 0);
    fails(&b, "section-entry-size");
    let b = with(|s| s.sections[NN].entry_size = 0);
    assert!(Vpmn::validate(&b).is_ok());
}

#[test]
fn bad_io_record() {
    for count in [0u32, 7] {
        let b = edit_payload(INPUT, 0, &count.to_le_bytes());
        let e = fails(&b, "bad-io-record");
        assert_eq!(e.field.to_string(), "inputs[0].dim_count");
        assert_eq!(e.offset, payload_at(&b, INPUT) as u64);
    }
    // The second of four dimensions is zero.
    let b = edit_payload(INPUT, 8, &0u32.to_le_bytes());
    let e = fails(&b, "bad-io-record");
    assert_eq!(e.field.to_string(), "inputs[0].dim_size");
    assert_eq!(
        e.offset,
        payload_at(&b, INPUT) as u64 + 8,
        "points at the zero dimension"
    );
    // A zero past dim_count is not a dimension.
    let b = edit_payload(INPUT, 4 + 4 * 5, &0u32.to_le_bytes());
    assert!(Vpmn::validate(&b).is_ok());
    // Outputs are checked the same way.
    let b = edit_payload(INPUT + 1, 4, &0u32.to_le_bytes());
    assert_eq!(
        fails(&b, "bad-io-record").field.to_string(),
        "outputs[0].dim_size"
    );
}

#[test]
fn metadata_count_mismatch() {
    let b = edit_payload(NETWORK_INFO, 0x40, &2u32.to_le_bytes());
    let e = fails(&b, "metadata-count-mismatch");
    assert_eq!(e.field.to_string(), "network_info[0].input_count");
    assert!(
        matches!(
            e.detail,
            Detail::Compare {
                lhs: Some(2),
                rhs: Some(1),
                ..
            }
        ),
        "{e}"
    );
    let b = edit_payload(NETWORK_INFO, 0x44, &0u32.to_le_bytes());
    assert_eq!(
        fails(&b, "metadata-count-mismatch").field.to_string(),
        "network_info[0].output_count"
    );
}

#[test]
fn section_checksum_missing_duplicate_mismatch() {
    // A record naming TP (8), which is absent; and one naming a type past the enum.
    for t in [8u32, 99] {
        let b = with(|s| s.sections[CHECKSUM].payload = u32s(&[7, 0, t, 0]));
        let e = fails(&b, "section-checksum-missing");
        assert_eq!(e.field.to_string(), "checksums[1].sd_type");
    }
    // A record naming a type present twice is missing its one section.
    let b = with(|s| s.sections.push(Section::new(7, 192, vec![0; 192])));
    fails(&b, "section-checksum-missing");
    let b = with(|s| s.sections[CHECKSUM].payload = u32s(&[7, 0, 7, 0]));
    let e = fails(&b, "section-checksum-duplicate");
    assert_eq!(e.field.to_string(), "checksums[1].sd_type");
    // A wrong value word: the file checksum counts value words as zero, so it still holds.
    let mut b = base();
    let at = payload_at(&b, CHECKSUM) + 4;
    b[at] ^= 1;
    let e = fails(&b, "section-checksum-mismatch");
    assert_eq!(
        (e.field.to_string(), e.offset),
        ("checksums[0].checksum_value".to_string(), at as u64)
    );
    // A changed covered payload with only the file checksum recomputed.
    let mut b = base();
    let at = payload_at(&b, NN) + 5;
    b[at] ^= 0x80;
    let keep = b[payload_at(&b, CHECKSUM)..payload_at(&b, CHECKSUM) + 16].to_vec();
    reseal(&mut b);
    let ck = payload_at(&b, CHECKSUM);
    b[ck..ck + 16].copy_from_slice(&keep);
    fails(&b, "section-checksum-mismatch");
}

#[test]
fn file_checksum_mismatch() {
    let mut b = base();
    b[0x0c] ^= 1;
    let e = fails(&b, "file-checksum-mismatch");
    assert_eq!(
        (e.field.to_string(), e.offset),
        ("header.crc_sum".to_string(), 0x0c)
    );
    // A payload byte no CHECKSUM record covers.
    let mut b = base();
    let at = payload_at(&b, INPUT) + 0x40;
    b[at] ^= 1;
    fails(&b, "file-checksum-mismatch");
    // An alignment gap is outside the scope: changing it leaves the file valid.
    let mut b = base();
    let gap = payload_at(&b, COEF_DATA) - 1;
    assert_eq!(b[gap], 0);
    b[gap] = 0x55;
    assert!(
        Vpmn::validate(&b).is_ok(),
        "gaps are excluded from the file checksum"
    );
}

#[test]
fn dynaio_unpaired() {
    let b = with(|s| {
        s.sections.remove(DYNAIO_TABLE);
    });
    let e = fails(&b, "dynaio-unpaired");
    assert_eq!(e.field.to_string(), format!("sections[{DYNAIO}].sd_type"));
    let b = with(|s| {
        s.sections.remove(DYNAIO);
    });
    fails(&b, "dynaio-unpaired");
    let b = with(|s| s.sections.push(Section::new(20, 1, vec![0; 64])));
    fails(&b, "dynaio-unpaired");
    // Neither is fine.
    let b = with(|s| {
        s.sections.remove(DYNAIO_TABLE);
        s.sections.remove(DYNAIO);
    });
    assert!(Vpmn::validate(&b).is_ok());
}

#[test]
fn dynaio_entry_invalid() {
    let cases: [(&[u32], &str); 5] = [
        (&[0, 0, 64, 128], "dynaio_table[0].size"),   // zero size
        (&[3, 4, 64, 128], "dynaio_table[0].offset"), // not 64-aligned
        (&[64, 4, 0, 4], "dynaio_table[1].offset"),   // decreasing
        (&[0, 100, 64, 4], "dynaio_table[1].offset"), // overlapping
        (&[0, 4, 128, 128], "dynaio_table[1].size"),  // past the region
    ];
    for (table, field) in cases {
        let b = edit_payload(DYNAIO_TABLE, 0, &u32s(table));
        let e = fails(&b, "dynaio-entry-invalid");
        assert_eq!(e.field.to_string(), field, "{table:?}: {e}");
    }
}

#[test]
fn dynaio_padding_nonzero() {
    let b = edit_payload(DYNAIO, 10, &[7]);
    let e = fails(&b, "dynaio-padding-nonzero");
    assert_eq!(
        e.offset,
        payload_at(&b, DYNAIO) as u64 + 10,
        "the first nonzero byte"
    );
    assert_eq!(
        e.detail,
        Detail::Mismatch {
            found: 7,
            expected: 0
        }
    );
    // Trailing padding after the last slot.
    let b = with(|s| {
        s.sections[DYNAIO].payload.extend([0; 63]);
        s.sections[DYNAIO].payload.push(1);
    });
    let e = fails(&b, "dynaio-padding-nonzero");
    assert_eq!(e.offset, payload_at(&b, DYNAIO) as u64 + 255);
}

#[test]
fn faults_are_reported_in_the_documented_order() {
    // Unknown type and out of bounds in one record: the type first.
    let mut b = with(|s| s.sections.push(Section::new(41, 1, vec![1])));
    set_word(&mut b, dir_rec(9) + 0x10, 1);
    fails(&b, "unknown-section-type");
    // A bad section value and a bad header checksum: the section's first.
    let mut b = base();
    let at = payload_at(&b, CHECKSUM) + 4;
    b[at] ^= 1;
    b[0x0c] ^= 1;
    fails(&b, "section-checksum-mismatch");
    // A file checksum mismatch before any DYNAIO fault.
    let mut b = edit_payload(DYNAIO, 10, &[7]);
    b[0x0c] ^= 1;
    fails(&b, "file-checksum-mismatch");
    // Missing before duplicate, across records.
    let b = with(|s| s.sections[CHECKSUM].payload = u32s(&[7, 0, 7, 0, 8, 0]));
    fails(&b, "section-checksum-missing");
    // Bad magic before the version; the size before the sub-header.
    let mut b = base();
    b[0] = 0;
    set_word(&mut b, 4, 9);
    fails(&b, "bad-magic");
    let mut b = base();
    b.push(0);
    set_word(&mut b, 0x20, 3);
    fails(&b, "file-size-mismatch");
}

#[test]
fn v1_faults_on_the_real_files() {
    let Some(orig) = file("radxa_lenet_v10016.nb") else {
        return;
    };
    assert!(Vpmn::validate(&orig).is_ok());
    let entry = |k: usize| 376 + 8 * k;
    // The gated fixed part (284 bytes at 92 for this version) must be there.
    fails(&orig[..300], "truncated-header");
    // The input table located past the end.
    let mut b = orig.clone();
    let len = b.len() as u32;
    set_word(&mut b, entry(0), len);
    let e = fails(&b, "section-out-of-bounds");
    assert_eq!(e.field.to_string(), "entries[0].offset");
    // Any located table, not just the decoded ones.
    let mut b = orig.clone();
    set_word(&mut b, entry(9) + 4, u32::MAX);
    fails(&b, "section-out-of-bounds");
    // An input table that is not whole 116-byte records.
    let mut b = orig.clone();
    set_word(&mut b, entry(0) + 4, 100);
    fails(&b, "section-entry-size");
    // The prefix's counts against the tables.
    let mut b = orig.clone();
    set_word(&mut b, 0x54, 2);
    fails(&b, "metadata-count-mismatch");
    // A decoded v1 I/O record with no dimensions.
    let mut b = orig.clone();
    set_word(&mut b, word(&orig, entry(0)) as usize, 0);
    assert_eq!(
        fails(&b, "bad-io-record").field.to_string(),
        "inputs[0].dim_count"
    );
    // v1 has no file checksum rule: a changed opaque byte still validates.
    let mut b = orig.clone();
    let nn = word(&orig, entry(6)) as usize;
    b[nn] ^= 0xFF;
    assert!(Vpmn::validate(&b).is_ok());
}
