//! The schema language's constructs at run time, on `tests/schemas/objtab.yaml` (an
//! ELF-like section table) expanded by the macro: conditions on enum fields read the stored
//! value, a compound `assert` fails closed with its own code, and `Error` and `Brief` name
//! the same check.

use npuschema_core::{Brief, Detail};

mod objtab {
    npuschema_macro::include_schema!("schemas/objtab.yaml");
}
use objtab::{ObjTab, SectionKind};

const SECTION: usize = 24;

/// A file with `kinds.len()` sections at 16, their bytes after the table (a `nobits`
/// section gets an offset past the end: it has no bytes in the file).
fn blob(kinds: &[u32]) -> Vec<u8> {
    let data_at = 16 + SECTION * kinds.len();
    let mut out = Vec::new();
    out.extend_from_slice(&0x4A42_4F7Fu32.to_le_bytes());
    out.extend_from_slice(&40u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(kinds.len()).expect("small").to_le_bytes());
    for (i, &kind) in kinds.iter().enumerate() {
        let i = u32::try_from(i).expect("small");
        let offset = if kind == 8 {
            0xFFFF_FFF0
        } else {
            u32::try_from(data_at).expect("small") + 4 * i
        };
        for w in [i, kind, 0b010, offset, 4, 4] {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out.extend(std::iter::repeat_n(0xAB, 4 * kinds.len()));
    out
}

fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The `Error` and the `Brief` for `b` name the same check; returns the `Error`.
fn rejected(b: &[u8]) -> npuschema_core::Error {
    let e = ObjTab::validate(b).expect_err("rejected");
    let brief = ObjTab::validate_as::<Brief>(b).expect_err("rejected as Brief");
    let site = objtab::error_site(brief.id()).expect("a site");
    assert_eq!((site.code, site.table), (e.code, e.field.table));
    e
}

#[test]
fn valid_file_and_raw_enum_values() {
    let b = blob(&[1, 2, 8, 3]);
    let v = ObjTab::validate(&b).expect("valid");
    let kinds: Vec<SectionKind> = v.sections().map(|s| s.kind()).collect();
    assert_eq!(
        kinds,
        [
            SectionKind::Progbits,
            SectionKind::Symtab,
            SectionKind::Nobits,
            SectionKind::Strtab
        ]
    );
    let raws: Vec<u32> = v.sections().map(|s| s.kind_raw()).collect();
    assert_eq!(raws, [1, 2, 8, 3]);
    // `when: kind != 8`: the nobits section has no bytes, whatever its offset says.
    let present: Vec<bool> = v.sections().map(|s| s.data().is_some()).collect();
    assert_eq!(present, [true, true, false, true]);
    assert!(ObjTab::validate_as::<Brief>(&b).is_ok());
}

#[test]
fn when_on_an_enum_field_gates_the_range_check() {
    // The same out-of-file offset on a progbits section is an error.
    let mut b = blob(&[1, 2, 8, 3]);
    set_u32(&mut b, 16 + SECTION + 12, 0xFFFF_FFF0);
    let e = rejected(&b);
    assert_eq!((e.code, e.field.index), ("section-out-of-bounds", 1));
}

#[test]
fn closed_enum_unknown_value_is_an_error() {
    let mut b = blob(&[1, 2, 8, 3]);
    set_u32(&mut b, 16 + 2 * SECTION + 4, 7);
    let e = rejected(&b);
    assert_eq!((e.code, e.field.index), ("bad-section-kind", 2));
}

#[test]
fn compound_assert_fails_closed() {
    // WRITE and EXEC together: `!(flags.WRITE && flags.EXEC)` does not hold.
    let mut b = blob(&[1, 2, 8, 3]);
    set_u32(&mut b, 16 + 3 * SECTION + 8, 0b101);
    let e = rejected(&b);
    assert_eq!(
        (e.code, e.field.index, e.field.name),
        ("writable-code", 3, "flags")
    );
    assert_eq!(e.detail, Detail::None);
    // WRITE alone, or EXEC alone, is fine.
    for flags in [0b001, 0b100] {
        set_u32(&mut b, 16 + 3 * SECTION + 8, flags);
        assert!(ObjTab::validate(&b).is_ok(), "flags {flags:#b}");
    }
}

#[test]
fn arithmetic_in_asserts_fails_closed() {
    // align 0: `align - 1` would wrap; the check fails instead.
    let mut b = blob(&[1]);
    set_u32(&mut b, 16 + 20, 0);
    assert_eq!(rejected(&b).code, "bad-align");
    // align 3 is not a power of two.
    set_u32(&mut b, 16 + 20, 3);
    assert_eq!(rejected(&b).code, "bad-align");
    // align 8 and an offset that is not a multiple of it.
    set_u32(&mut b, 16 + 20, 8);
    set_u32(&mut b, 16 + 12, 16 + 24 + 4);
    assert_eq!(rejected(&b).code, "misaligned-section");
}

mod conditional {
    npuschema_macro::include_schema!("schemas/conditional.yaml");
}

/// A `conditional.yaml` file: header, then `body` bytes.
fn cond_blob(version: u32, flags: u32, notes: (u32, u32), count: u32, body: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for w in [0x444E_4F43, version, flags, notes.0, notes.1, count] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend(std::iter::repeat_n(0x11, body));
    out
}

#[test]
fn when_on_steps() {
    use conditional::Conditional as C;
    // Version 1: the count is not checked.
    assert!(C::validate(&cond_blob(1, 0, (0, 0), 0, 4)).is_ok());
    // Version 2: it is.
    let b = cond_blob(2, 0, (0, 0), 0, 4);
    let e = C::validate(&b).expect_err("count 0");
    assert_eq!(e.code, "v2-needs-count");
    let brief = C::validate_as::<Brief>(&b).expect_err("count 0");
    assert_eq!(
        conditional::error_site(brief.id()).map(|s| s.code),
        Some("v2-needs-count")
    );
    // STRICT and version 2: the count must be the body's length; STRICT alone does nothing.
    assert!(C::validate(&cond_blob(2, 0b10, (0, 0), 4, 4)).is_ok());
    assert_eq!(
        C::validate(&cond_blob(2, 0b10, (0, 0), 3, 4))
            .map(|_| ())
            .map_err(|e| e.code),
        Err("strict-length")
    );
    assert!(C::validate(&cond_blob(1, 0b10, (0, 0), 3, 4)).is_ok());
}

#[test]
fn when_on_a_file_level_range() {
    use conditional::Conditional as C;
    // No HAS_NOTES: no notes, whatever the offset fields say.
    let b = cond_blob(1, 0, (0xFFFF_0000, 9), 0, 4);
    assert_eq!(C::validate(&b).expect("valid").notes(), None);
    // HAS_NOTES: the range is checked and handed out.
    let b = cond_blob(1, 1, (24, 3), 0, 4);
    assert_eq!(
        C::validate(&b).expect("valid").notes(),
        Some(&[0x11u8; 3][..])
    );
    let e = C::validate(&cond_blob(1, 1, (24, 5), 0, 4)).expect_err("past the end");
    assert_eq!(e.code, "notes-out-of-bounds");
}

#[test]
fn named_values() {
    use conditional::Conditional as C;
    // `let body_bytes = len - HEADER_BYTES`, used by two steps.
    assert!(C::validate(&cond_blob(1, 0, (0, 0), 4, 4)).is_ok());
    let e = C::validate(&cond_blob(1, 0, (0, 0), 5, 4)).expect_err("count past the body");
    assert_eq!(e.code, "count-too-large");
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(5),
            rhs: Some(4),
            names: &["count", ">", "body_bytes"]
        }
    );
}

mod floats {
    npuschema_macro::include_schema!("schemas/floats.yaml");
}

#[test]
fn floats_read_written_and_compared_bitwise() {
    use floats::{Floats, FloatsWriter, SampleSpec};
    let samples = [
        SampleSpec {
            value: 1.5,
            weight: -0.25,
        },
        SampleSpec {
            value: f32::MIN_POSITIVE,
            weight: f64::INFINITY,
        },
    ];
    let w = FloatsWriter::new()
        .scale(-0.0)
        .bias(1e300)
        .samples(&samples);
    let mut buf = [0u8; 64];
    let n = w.write_into(&mut buf).expect("fits");
    assert_eq!(n, 24 + 2 * 12);
    let v = Floats::validate(&buf[..n]).expect("the writer's output validates");
    // -0.0 is not +0.0 bitwise, so `scale != 0` holds.
    assert_eq!(v.header().scale().to_bits(), (-0.0f32).to_bits());
    assert_eq!(v.header().bias(), 1e300);
    let read: Vec<(f32, f64)> = v.samples().map(|s| (s.value(), s.weight())).collect();
    assert_eq!(read, [(1.5, -0.25), (f32::MIN_POSITIVE, f64::INFINITY)]);
    // +0.0 scale: rejected.
    let mut b = buf[..n].to_vec();
    b[4..8].copy_from_slice(&0.0f32.to_le_bytes());
    assert_eq!(
        Floats::validate(&b).map(|_| ()).map_err(|e| e.code),
        Err("zero-scale")
    );
    // The canonical NaN weight is rejected; another NaN (other bits) is a different value.
    let mut b = buf[..n].to_vec();
    b[24 + 12 + 4..24 + 24].copy_from_slice(&f64::from_bits(0x7FF8_0000_0000_0000).to_le_bytes());
    let e = Floats::validate(&b).expect_err("canonical NaN");
    assert_eq!((e.code, e.field.index), ("nan-weight", 1));
    b[24 + 12 + 4..24 + 24].copy_from_slice(&f64::from_bits(0x7FF8_0000_0000_0001).to_le_bytes());
    assert!(Floats::validate(&b).is_ok());
}

mod bigend {
    npuschema_macro::include_schema!("schemas/bigend.yaml");
}

#[test]
fn byte_order_schema_struct_and_field() {
    use bigend::{BigEnd, BigEndWriter, ChunkData, ChunkKind, ChunkSpec};
    let text = b"hello";
    let chunks = [
        ChunkSpec {
            kind: ChunkKind::Text,
            tag: 0x0102_0304,
            data: ChunkData::Stored(text),
        },
        ChunkSpec {
            kind: ChunkKind::Blob,
            tag: 0xA0B0_C0D0,
            data: ChunkData::Reserved(9),
        },
    ];
    let w = BigEndWriter::new()
        .host_word(0x1234)
        .gain(-2.5)
        .chunks(&chunks);
    let mut buf = [0u8; 128];
    let n = w.write_into(&mut buf).expect("fits");
    let b = &buf[..n];
    // Header, big-endian by the schema: magic `BE01`, the chunk count, the gain.
    assert_eq!(&b[0..4], b"BE01");
    assert_eq!(&b[8..10], &[0, 2]);
    assert_eq!(&b[16..24], &(-2.5f64).to_be_bytes());
    // One field little-endian by its own `byte_order`.
    assert_eq!(&b[10..12], &[0x34, 0x12]);
    // The chunk struct is little-endian, but its `tag` field is big-endian.
    assert_eq!(&b[24..26], &[1, 0]);
    assert_eq!(&b[36..40], &[1, 2, 3, 4]);
    // The views read every field in its order; the checksum (stored big-endian) holds.
    let v = BigEnd::validate(b).expect("the writer's output validates");
    assert_eq!(v.header().magic(), 0x4245_3031);
    assert_eq!(v.header().host_word(), 0x1234);
    assert_eq!(v.header().gain(), -2.5);
    let read: Vec<(ChunkKind, u32, Option<&[u8]>)> =
        v.chunks().map(|c| (c.kind(), c.tag(), c.data())).collect();
    assert_eq!(
        read,
        [
            (ChunkKind::Text, 0x0102_0304, Some(&text[..])),
            (ChunkKind::Blob, 0xA0B0_C0D0, None)
        ]
    );
    assert_eq!(v.chunks().nth(1).map(|c| c.size()), Some(9));
    // The enum check reads the little-endian kind: 0x0100 is no kind.
    let mut bad = b.to_vec();
    bad[24..26].copy_from_slice(&[0, 1]);
    assert_eq!(
        BigEnd::validate(&bad).map(|_| ()).map_err(|e| e.code),
        Err("bad-kind")
    );
    // A flipped byte in the body fails the big-endian stored CRC.
    let mut bad = b.to_vec();
    bad[n - 1] ^= 1;
    assert_eq!(
        BigEnd::validate(&bad).map(|_| ()).map_err(|e| e.code),
        Err("bad-checksum")
    );
}

#[test]
fn order_across_records() {
    // Names strictly increase (0, 1, 2, 3); sections lie one after another.
    let b = blob(&[1, 2, 8, 3]);
    assert!(ObjTab::validate(&b).is_ok());
    // A repeated name: `unique` fails at the second of the two.
    let mut bad = b.clone();
    set_u32(&mut bad, 16 + 2 * SECTION, 1);
    let e = rejected(&bad);
    assert_eq!(
        (e.code, e.field.index, e.field.name),
        ("names-not-unique", 2, "name_offset")
    );
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(1),
            rhs: Some(1),
            names: &["name_offset", "<=", "previous"]
        }
    );
    // Section 3's bytes start inside section 1's: overlap (section 2 is nobits, skipped).
    let mut bad = b.clone();
    let s1 = u32::from_le_bytes(
        b[16 + SECTION + 12..16 + SECTION + 16]
            .try_into()
            .expect("4"),
    );
    set_u32(&mut bad, 16 + 3 * SECTION + 12, s1);
    let e = rejected(&bad);
    assert_eq!((e.code, e.field.index), ("sections-overlap", 3));
    // Touching is not overlapping: section 3 right after section 1.
    let mut ok = b.clone();
    set_u32(&mut ok, 16 + 3 * SECTION + 12, s1 + 4);
    assert!(ObjTab::validate(&ok).is_ok());
}

// ----- a directory over an open 32-bit type space (opendir.yaml, big-endian) -----------------

mod opendir {
    npuschema_macro::include_schema!("schemas/opendir.yaml");
}

mod open_dir {
    use super::opendir::{OpenDir, SecType};
    use npuschema_core::Brief;
    use npuschema_tests::opendir_blobs::{HEADER, SECTION, Sec, file, seal, sections, ty};

    fn verdict(b: &[u8]) -> Result<(), (&'static str, &'static str, u64, &'static str)> {
        let e = match OpenDir::validate(b) {
            Ok(_) => {
                assert!(OpenDir::validate_as::<Brief>(b).is_ok(), "Brief agrees");
                return Ok(());
            }
            Err(e) => e,
        };
        let brief = OpenDir::validate_as::<Brief>(b).expect_err("rejected as Brief");
        let site = super::opendir::error_site(brief.id()).expect("a site");
        assert_eq!((site.code, site.table), (e.code, e.field.table));
        Err((e.code, e.field.table, e.field.index, e.field.name))
    }

    fn set(b: &mut [u8], at: usize, v: u32) {
        b[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }

    /// The payload offset of section `i`.
    fn payload_at(b: &[u8], i: usize) -> usize {
        let r = HEADER + SECTION * i + 4;
        u32::from_be_bytes(b[r..r + 4].try_into().expect("4")) as usize
    }

    #[test]
    fn sparse_large_types_are_kept_and_their_collections_read() {
        let b = file(&sections());
        assert_eq!(&b[..4], b"ODIR", "big-endian magic");
        assert_eq!(verdict(&b), Ok(()));
        let v = OpenDir::validate(&b).expect("valid");
        let types: Vec<SecType> = v.sections().map(|s| s.sh_type()).collect();
        assert_eq!(
            types,
            [
                SecType::Empty,
                SecType::Symbols,
                // A layout by constant, a layout by number, a slot region and a type
                // nobody names: all kept, reported as types the enum does not name.
                SecType::Unknown(ty::ARM_ATTRIBUTES),
                SecType::Unknown(ty::SLOT_TABLE),
                SecType::Unknown(ty::BLOBS),
                SecType::Unknown(ty::UNNAMED),
                SecType::ArmExidx,
                SecType::Checksums,
            ]
        );
        let unnamed = v.sections().nth(5).expect("six sections");
        assert_eq!(unnamed.payload(), Some(&[9u8, 8, 7][..]));
        let syms: Vec<(u32, u32)> = v.symbols().map(|s| (s.name(), s.value())).collect();
        assert_eq!(syms, [(1, 16), (2, 40)]);
        let attrs: Vec<(u32, u32)> = v.attributes().map(|a| (a.tag(), a.value())).collect();
        assert_eq!(attrs, [(5, 0x10), (6, 0)]);
        let slots: Vec<(u32, u32)> = v.slot_table().map(|s| (s.offset(), s.size())).collect();
        assert_eq!(slots, [(0, 4), (8, 4)]);
        assert_eq!(
            v.crcs().map(|c| c.target()).collect::<Vec<_>>(),
            [ty::SYMBOLS, ty::ARM_ATTRIBUTES, ty::BLOBS]
        );
        // Types in any order, a layout's section more than once: still found (its
        // checksum record now names another type, since it must name exactly one section).
        let mut secs = sections();
        secs.swap(1, 6);
        secs[7].payload = [ty::SYMBOLS, 0, ty::ARM_EXIDX, 0, ty::BLOBS, 0]
            .iter()
            .flat_map(|w| w.to_be_bytes())
            .collect();
        secs.push(Sec {
            ty: ty::ARM_ATTRIBUTES,
            entsize: 8,
            payload: [7u32, 1].iter().flat_map(|w| w.to_be_bytes()).collect(),
        });
        let b = file(&secs);
        assert_eq!(verdict(&b), Ok(()));
        let v = OpenDir::validate(&b).expect("valid");
        assert_eq!(
            v.attributes().map(|a| a.tag()).collect::<Vec<_>>(),
            [5, 6, 7]
        );
        assert_eq!(v.symbols().count(), 2);
    }

    #[test]
    fn steps_on_large_types_fail_closed() {
        let good = file(&sections());
        // The ARM_ATTRIBUTES layout (0x70000003) has 8-byte entries: 4 is refused.
        let mut b = good.clone();
        set(&mut b, HEADER + 2 * SECTION + 12, 4);
        assert_eq!(
            verdict(&b),
            Err(("section-entry-size", "sections", 2, "entsize"))
        );
        // A step over the collection of a constant-named type: tag 0 in the second record.
        let mut b = good.clone();
        let at = payload_at(&b, 2);
        set(&mut b, at + 8, 0);
        seal(&mut b);
        assert_eq!(verdict(&b), Err(("bad-attribute", "attributes", 1, "tag")));
        // A slot (a record of the number-named layout) off its 4-byte alignment.
        let mut b = good.clone();
        let at = payload_at(&b, 3);
        set(&mut b, at + 8, 6);
        seal(&mut b);
        assert_eq!(
            verdict(&b),
            Err(("slot-invalid", "slot_table", 1, "offset"))
        );
        // A nonzero byte between the slots of the 0xFFFFFFFE region.
        let mut b = good.clone();
        let at = payload_at(&b, 4);
        b[at + 5] = 1;
        seal(&mut b);
        assert_eq!(
            verdict(&b),
            Err(("slot-padding-nonzero", "sections", 4, "payload"))
        );
        // A changed payload byte: the checksum record of its section no longer matches.
        let mut b = good.clone();
        let at = payload_at(&b, 2);
        b[at + 15] ^= 1;
        assert_eq!(
            verdict(&b),
            Err(("section-checksum-mismatch", "crcs", 1, "value"))
        );
        // Two records naming the same (large) type.
        let mut b = good.clone();
        let at = payload_at(&b, 7);
        set(&mut b, at + 16, ty::ARM_ATTRIBUTES);
        seal(&mut b);
        assert_eq!(
            verdict(&b),
            Err(("section-checksum-duplicate", "crcs", 2, "target"))
        );
        // A record naming a type present once but that the schema does not name: the
        // bookkeeping has no slot for it, so it is reported missing (see the README).
        let mut b = good.clone();
        set(&mut b, at + 16, ty::UNNAMED);
        seal(&mut b);
        assert_eq!(
            verdict(&b),
            Err(("section-checksum-missing", "crcs", 2, "target"))
        );
        // The header's CRC over every payload, checksum values as zero.
        let mut b = good.clone();
        b[12] ^= 0x80;
        assert_eq!(
            verdict(&b),
            Err(("file-checksum-mismatch", "", 0, "header.crc_sum"))
        );
    }
}
