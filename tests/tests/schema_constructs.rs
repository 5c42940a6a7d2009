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
fn the_writer_writes_a_range_with_when_and_sets_its_flag_bit() {
    use conditional::{Conditional as C, ConditionalWriter, HeaderFlags};
    // Given: placed after the header, its offset and length set, HAS_NOTES set over the
    // flags given (STRICT kept).
    let b = ConditionalWriter::new()
        .version(2)
        .flags(HeaderFlags::STRICT)
        .count(8)
        .notes(b"notes!!!")
        .to_vec()
        .expect("writes");
    let v = C::validate(&b).expect("valid");
    assert_eq!(v.notes(), Some(&b"notes!!!"[..]));
    assert_eq!(
        v.header().flags(),
        HeaderFlags::STRICT.union(HeaderFlags::HAS_NOTES)
    );
    assert_eq!(
        (v.header().notes_offset(), v.header().notes_size(), b.len()),
        (24, 8, 32)
    );
    // Not given: left out, its fields zero and HAS_NOTES cleared although the flags given
    // had it.
    let b = ConditionalWriter::new()
        .version(1)
        .flags(HeaderFlags::HAS_NOTES)
        .to_vec()
        .expect("writes");
    let v = C::validate(&b).expect("valid");
    assert_eq!(v.notes(), None);
    assert_eq!(v.header().flags().bits(), 0);
    assert_eq!(
        (v.header().notes_offset(), v.header().notes_size(), b.len()),
        (0, 0, 24)
    );
    // Encoded length and write_into agree; a short buffer is refused.
    let w = ConditionalWriter::new().version(1).notes(b"abc");
    let n = w.encoded_len().expect("fits");
    assert_eq!(n, 27);
    let mut buf = vec![0u8; n];
    assert_eq!(w.write_into(&mut buf), Ok(n));
    assert_eq!(C::validate(&buf).expect("valid").notes(), Some(&b"abc"[..]));
    assert!(w.write_into(&mut buf[..n - 1]).is_err());
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

mod sumstream {
    npuschema_macro::include_schema!("schemas/sumstream.yaml");
}

#[test]
fn the_stream_writer_computes_each_records_checksum() {
    use sumstream::{RecordsSpec, RecordsWriter, SumStream, SumStreamWriter};
    // The `crc` given is written over: the writer stores the CRC-32 of each body.
    let specs = [
        RecordsSpec {
            kind: 1,
            crc: 0xDEAD_BEEF,
            body: b"hello",
        },
        RecordsSpec {
            kind: 2,
            crc: 0,
            body: b"",
        },
        // A packed record (`when: "kind != KIND_PACKED"`): its `crc` is kept as given.
        RecordsSpec {
            kind: sumstream::KIND_PACKED,
            crc: 0x1234_5678,
            body: b"zz",
        },
    ];
    let w = RecordsWriter::new(&specs);
    let n = w.encoded_len().expect("fits");
    assert_eq!(
        n,
        8 + 5 + 3 + 8 + 8 + 2,
        "headers, bodies, padding to 4 between records"
    );
    let mut body = vec![0xAAu8; n];
    assert_eq!(w.write_into(&mut body), Ok(n));
    assert_eq!(body[4..8], npuschema_core::crc32(0, b"hello").to_le_bytes());
    assert_eq!(body[13..16], [0, 0, 0], "the padding is zeroed");
    assert_eq!(body[20..24], npuschema_core::crc32(0, b"").to_le_bytes());
    assert_eq!(body[28..32], 0x1234_5678u32.to_le_bytes(), "not computed");
    let file = SumStreamWriter::new()
        .records(&specs)
        .to_vec()
        .expect("writes");
    assert_eq!(file.get(8..8 + n), Some(&body[..]), "the stream's bytes");
    let v = SumStream::validate(&file).expect("valid");
    assert!(SumStream::validate_as::<Brief>(&file).is_ok());
    let recs: Vec<_> = v
        .records()
        .map(|r| (r.header().kind(), r.header().crc(), r.body()))
        .collect();
    assert_eq!(
        recs,
        [
            (1, npuschema_core::crc32(0, b"hello"), &b"hello"[..]),
            (2, 0, &b""[..]),
            (sumstream::KIND_PACKED, 0x1234_5678, &b"zz"[..])
        ]
    );
    // The packed record's body changed: its checksum is not checked.
    let mut packed = file.clone();
    packed[8 + 24 + 8] ^= 1;
    assert!(SumStream::validate(&packed).is_ok());
    // A body byte changed after writing: the validator names the record's checksum.
    let mut bad = file.clone();
    bad[8 + 8] ^= 1;
    assert_eq!(
        SumStream::validate(&bad).map(|_| ()).map_err(|e| e.code),
        Err("bad-crc")
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
    use bigend::{BigEnd, BigEndWriter, ChunkData, ChunkFlags, ChunkKind, ChunkSpec};
    let text = b"hello";
    let chunks = [
        ChunkSpec {
            kind: ChunkKind::Text,
            flags: ChunkFlags::FINAL,
            tag: 0x0102_0304,
            data: ChunkData::Stored(text),
        },
        ChunkSpec {
            kind: ChunkKind::Blob,
            // STORED given, but the chunk has no bytes: the writer clears it.
            flags: ChunkFlags::STORED,
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
    // The flags: the spec's FINAL kept, STORED set by the writer for the chunk with bytes
    // and cleared for the one without.
    assert_eq!((&b[26..28], &b[42..44]), (&[0x09, 0][..], &[0, 0][..]));
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

mod strtab {
    npuschema_macro::include_schema!("schemas/strtab.yaml");
}

/// A `strtab.yaml` file: four sections at 16 (null, the names, a progbits section linked
/// to the names, a nobits one), the names at 80, four data bytes, then the title (a `u16`
/// length and its bytes).
fn strtab_blob() -> Vec<u8> {
    let names = b"\0.names\0.data\0.bss\0";
    let names_at = 16 + 4 * 16;
    let data_at = names_at + names.len();
    let title_at = data_at + 4;
    let mut out = Vec::new();
    out.extend_from_slice(&0x3152_5453u32.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(title_at).expect("small").to_le_bytes());
    let u = |x: usize| u32::try_from(x).expect("small");
    for (name, kind, link, offset, size) in [
        (0u32, 0u16, 0u16, 0u32, 0u32),
        (1, 3, 0, u(names_at), u(names.len())),
        (8, 1, 1, u(data_at), 4),
        (14, 8, 0, 0xFFFF_FF00, 64),
    ] {
        out.extend_from_slice(&name.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&link.to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
    }
    out.extend_from_slice(names);
    out.extend_from_slice(&[1, 2, 3, 4]);
    out.extend_from_slice(&5u16.to_le_bytes());
    out.extend_from_slice(b"title");
    out
}

/// The `Error` and the `Brief` for `b` name the same check; returns the `Error`.
fn strtab_rejected(b: &[u8]) -> npuschema_core::Error {
    let e = strtab::StrTab::validate(b).expect_err("rejected");
    let brief = strtab::StrTab::validate_as::<Brief>(b).expect_err("rejected as Brief");
    let site = strtab::error_site(brief.id()).expect("a site");
    assert_eq!(
        (site.code, site.table, site.name),
        (e.code, e.field.table, e.field.name)
    );
    e
}

#[test]
fn computed_index_reads_a_record() {
    use strtab::StrTab;
    let b = strtab_blob();
    let v = StrTab::validate(&b).expect("valid");
    // `names` is located by `sections[header.names_index]`: section 1's bytes.
    assert_eq!(v.names(), &b"\0.names\0.data\0.bss\0"[..]);
    // Another section as the names: `sections[header.names_index].kind` must be strtab.
    let mut bad = b.clone();
    bad[6..8].copy_from_slice(&2u16.to_le_bytes());
    let e = strtab_rejected(&bad);
    assert_eq!(
        (e.code, e.field.name, e.offset),
        ("bad-names-index", "header.names_index", 6)
    );
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(1),
            rhs: Some(3),
            names: &["", "!=", "strtab"]
        }
    );
    // An index past the table fails closed with the same code: no record, no value.
    for past in [4u16, 5, 0xFFFF] {
        bad[6..8].copy_from_slice(&past.to_le_bytes());
        let e = strtab_rejected(&bad);
        assert_eq!(
            (e.code, e.field.name),
            ("bad-names-index", "header.names_index")
        );
        assert!(
            matches!(
                e.detail,
                Detail::Compare {
                    lhs: None,
                    rhs: Some(3),
                    ..
                }
            ),
            "{:?}",
            e.detail
        );
    }
    // A record's `link` names another record by a computed index: past the table, or not
    // a string table, is rejected at that record.
    for link in [4u16, 2, 0xFFFF] {
        let mut bad = b.clone();
        bad[16 + 2 * 16 + 6..16 + 2 * 16 + 8].copy_from_slice(&link.to_le_bytes());
        let e = strtab_rejected(&bad);
        assert_eq!(
            (e.code, e.field.table, e.field.index, e.field.name, e.offset),
            ("bad-link", "sections", 2, "link", 16 + 2 * 16 + 6)
        );
    }
}

#[test]
fn strings_in_a_string_table_and_length_prefixed() {
    use strtab::StrTab;
    let b = strtab_blob();
    let v = StrTab::validate(&b).expect("valid");
    // Each section's name: NUL-terminated in the names section, read at its offset.
    let names: Vec<&[u8]> = v.sections().map(|s| v.name(&s)).collect();
    assert_eq!(names, [&b""[..], b".names", b".data", b".bss"]);
    let text: Vec<&str> = v
        .sections()
        .map(|s| v.name_str(&s).expect("UTF-8"))
        .collect();
    assert_eq!(text, ["", ".names", ".data", ".bss"]);
    // The title: a u16 length, then its bytes.
    assert_eq!((v.title(), v.title_str()), (&b"title"[..], Ok("title")));
    assert!(StrTab::validate_as::<Brief>(&b).is_ok());
    let names_at = 80u64;
    let names_len = 19u64;
    // A name offset past the names section, and one whose string runs to the end of the
    // section without a NUL: each rejected at its record, with the offset and the room.
    let mut bad = b.clone();
    let at = 16 + 3 * 16;
    bad[at..at + 4].copy_from_slice(&19u32.to_le_bytes());
    let e = strtab_rejected(&bad);
    assert_eq!(
        (e.code, e.field.index, e.field.name, e.offset),
        ("bad-name", 3, "name_offset", at as u64)
    );
    assert_eq!(
        e.detail,
        Detail::Range {
            start: 19,
            len: 0,
            limit_name: "names",
            limit: names_len
        }
    );
    // The last NUL moved out of the section: `.bss` has no terminator inside it.
    let mut bad = b.clone();
    bad[16 + 16 + 12..16 + 16 + 16].copy_from_slice(&18u32.to_le_bytes());
    let e = strtab_rejected(&bad);
    assert_eq!((e.code, e.field.index), ("bad-name", 3));
    assert_eq!(
        e.detail,
        Detail::Range {
            start: 14,
            len: 4,
            limit_name: "names",
            limit: 18
        }
    );
    // A name that is not UTF-8: found, but refused by `string_utf8`.
    let mut bad = b.clone();
    bad[(names_at + 9) as usize] = 0xFF;
    let e = strtab_rejected(&bad);
    assert_eq!((e.code, e.field.index), ("name-not-utf8", 2));
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(1),
            rhs: Some(5),
            names: &["valid_utf8", "<", "length"]
        }
    );
    // A title longer than the file, and a title that is not UTF-8.
    let n = b.len();
    let mut bad = b.clone();
    bad[n - 7..n - 5].copy_from_slice(&6u16.to_le_bytes());
    let e = strtab_rejected(&bad);
    assert_eq!(
        (e.code, e.field.name, e.offset),
        ("bad-title", "header.title_offset", 12)
    );
    assert_eq!(
        e.detail,
        Detail::Range {
            start: n as u64 - 7,
            len: 8,
            limit_name: "len",
            limit: n as u64
        }
    );
    let mut bad = b.clone();
    bad[n - 1] = 0xC3;
    assert_eq!(strtab_rejected(&bad).code, "title-not-utf8");
    // A title offset past the file: the length word is not there.
    let mut bad = b.clone();
    bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = strtab_rejected(&bad);
    assert_eq!(e.code, "bad-title");
    assert_eq!(
        e.detail,
        Detail::Range {
            start: u64::from(u32::MAX),
            len: 2,
            limit_name: "len",
            limit: n as u64
        }
    );
}

mod titled {
    npuschema_macro::include_schema!("schemas/titled.yaml");
}

#[test]
fn the_writer_places_strings_and_sets_their_offsets() {
    use titled::{Titled, TitledWriter};
    let w = TitledWriter::new()
        .title("größe")
        .comment(b"no NUL here")
        .values(&[
            titled::ValueSpec { value: 7 },
            titled::ValueSpec { value: 9 },
        ]);
    let mut buf = [0u8; 128];
    let n = w.write_into(&mut buf).expect("fits");
    let b = &buf[..n];
    assert_eq!(Some(n), w.encoded_len().ok());
    // Header 16, two values, then the title (aligned to 4) with its big-endian u16 length,
    // then the comment with its NUL.
    let title_at = 16 + 8;
    assert_eq!(&b[8..12], &[0, 0, 0, 0x18]);
    assert_eq!(&b[title_at..title_at + 2], &[0, 7]);
    let comment_at = (title_at + 2 + 7).next_multiple_of(4);
    assert_eq!(
        &b[12..16],
        &u32::try_from(comment_at).expect("small").to_be_bytes()
    );
    assert_eq!(&b[comment_at..], b"no NUL here\0");
    let v = Titled::validate(b).expect("the writer's output validates");
    assert_eq!(v.title_str(), Ok("größe"));
    assert_eq!(v.comment(), b"no NUL here");
    assert_eq!(v.values().map(|x| x.value()).collect::<Vec<_>>(), [7, 9]);
    // Unset strings are empty, and still there.
    let n = TitledWriter::new().write_into(&mut buf).expect("fits");
    let v = Titled::validate(&buf[..n]).expect("valid");
    assert_eq!((v.title(), v.comment()), (&b""[..], &b""[..]));
    // A comment holding a NUL would read back shorter: refused.
    assert!(matches!(
        TitledWriter::new().comment(b"a\0b").write_into(&mut buf),
        Err(npuschema_core::WriteError::Layout { item: "comment" })
    ));
    // A title longer than its u16 length can say: refused.
    let long = "x".repeat(70_000);
    assert!(matches!(
        TitledWriter::new()
            .title(&long)
            .encoded_len()
            .and_then(|_| {
                let mut big = vec![0u8; 80_000];
                TitledWriter::new().title(&long).write_into(&mut big)
            }),
        Err(npuschema_core::WriteError::TooLarge { field: "title", .. })
    ));
}

mod namedtab {
    npuschema_macro::include_schema!("schemas/namedtab.yaml");
}

/// String tables the writer builds: `names` from the label and each item's name (its
/// offset and size set), each item's note placed by `writer.order` at an offset from the
/// file's start, every offset field set; the validator accepts the bytes and the views
/// give back every string and value.
#[test]
fn the_writer_builds_string_tables() {
    use namedtab::{ItemSpec, NamedTab, NamedTabWriter};
    let items = [
        ItemSpec {
            name: "größe",
            note: b"first note",
            value: 7,
        },
        ItemSpec {
            name: "",
            note: b"",
            value: 8,
        },
        ItemSpec {
            name: "third",
            note: b"\0 a NUL inside a length-prefixed note is fine",
            value: 9,
        },
    ];
    let w = NamedTabWriter::new()
        .flags(0x55AA)
        .label(b"LBL")
        .items(&items);
    let b = w.to_vec().expect("writes");
    assert_eq!(w.encoded_len(), Ok(b.len()));
    // Header 20, three items of 12, then `names` (at 56): the label after its u8 length,
    // then each name with its NUL; then the notes (aligned to 4), each after its
    // big-endian u16 length.
    let names: &[u8] = b"\x03LBLgr\xc3\xb6\xc3\x9fe\0\0third\0";
    assert_eq!(&b[56..56 + names.len()], names);
    assert_eq!(&b[8..12], &56u32.to_le_bytes());
    assert_eq!(
        &b[12..16],
        &u32::try_from(names.len()).unwrap().to_le_bytes()
    );
    assert_eq!(&b[16..18], &0u16.to_le_bytes());
    let notes_at = (56 + names.len()).next_multiple_of(4);
    assert_eq!(&b[notes_at..notes_at + 12], b"\0\x0afirst note");

    let v = NamedTab::validate(&b).expect("the writer's output validates");
    assert!(NamedTab::validate_as::<npuschema_core::Brief>(&b).is_ok());
    assert_eq!(v.label(), b"LBL");
    assert_eq!(v.header().flags(), 0x55AA);
    assert_eq!(v.names(), names);
    let got: Vec<(&str, &[u8], u32)> = v
        .items()
        .map(|it| (v.name_str(&it).expect("UTF-8"), v.note(&it), it.value()))
        .collect();
    let want: Vec<(&str, &[u8], u32)> = items.iter().map(|i| (i.name, i.note, i.value)).collect();
    assert_eq!(got, want);
    // The offsets the writer set: names from the table's start, notes from the file's.
    let offs: Vec<(u32, u32)> = v
        .items()
        .map(|it| (it.name_offset(), it.note_offset()))
        .collect();
    assert_eq!(
        offs,
        [
            (4, u32::try_from(notes_at).unwrap()),
            (12, u32::try_from(notes_at + 12).unwrap()),
            (13, u32::try_from(notes_at + 14).unwrap())
        ]
    );
    // Nothing set: an empty label, no items; still valid.
    let empty = NamedTabWriter::new().to_vec().expect("writes");
    let v = NamedTab::validate(&empty).expect("valid");
    assert_eq!(
        (v.label(), v.items().len(), v.names()),
        (&b""[..], 0, &b"\0"[..])
    );
    // A NUL-terminated name holding a NUL would read back shorter: refused.
    let bad = [ItemSpec {
        name: "a\0b",
        note: b"",
        value: 0,
    }];
    assert!(matches!(
        NamedTabWriter::new().items(&bad).to_vec(),
        Err(npuschema_core::WriteError::Layout { item: "name" })
    ));
    // A label longer than its u8 length can say: refused.
    let long = [b'x'; 300];
    assert!(matches!(
        NamedTabWriter::new().label(&long).to_vec(),
        Err(npuschema_core::WriteError::TooLarge { field: "label", .. })
    ));
    // Too small a buffer.
    let mut small = [0u8; 40];
    assert!(matches!(
        w.write_into(&mut small),
        Err(npuschema_core::WriteError::BufferTooSmall { available: 40, .. })
    ));
}

mod dirnotes {
    npuschema_macro::include_schema!("schemas/dirnotes.yaml");
}

/// A directory writer for a file that also has file-level ranges: `notes` before the
/// directory and `trailer` after the payloads, placed where `writer.order` names them,
/// their offset and size fields set; the validator accepts the bytes and the views give
/// back every input.
#[test]
fn the_directory_writer_places_other_ranges() {
    use dirnotes::{DirNotes, DirNotesSpec, Kind, SectionSpec};
    let sections = [
        SectionSpec {
            kind: Kind::Code,
            entsize: 4,
            payload: b"code bytes",
        },
        SectionSpec {
            kind: Kind::Empty,
            entsize: 0,
            payload: b"",
        },
        SectionSpec {
            kind: Kind::Data,
            entsize: 1,
            payload: b"xyz",
        },
    ];
    let spec = DirNotesSpec {
        flags: 0xA5,
        notes: b"some notes",
        trailer: b"THE END",
        title: "tïtle",
        sections: &sections,
    };
    let n = spec.encoded_len().expect("fits");
    let mut buf = vec![0xEEu8; n + 5];
    assert_eq!(spec.write_into(&mut buf), Ok(n));
    let written = buf[..n].to_vec();
    let b = &written[..];
    // Header 36, the notes at 36 (10 bytes), the directory at 48 (3 x 12), the payloads
    // from 84 (each at a multiple of 4), the trailer at 100, the title at 108 with its NUL;
    // the CRC-32 of every byte after the header at 28.
    assert_eq!(&b[36..46], b"some notes");
    assert_eq!(&b[12..20], &[36, 0, 0, 0, 10, 0, 0, 0]);
    assert_eq!(&b[8..12], &48u32.to_le_bytes());
    assert_eq!(&b[84..94], b"code bytes");
    assert_eq!(&b[96..99], b"xyz");
    assert_eq!(&b[20..28], &[100, 0, 0, 0, 7, 0, 0, 0]);
    assert_eq!(&b[100..107], b"THE END");
    assert_eq!(&b[32..36], &108u32.to_le_bytes());
    assert_eq!(&b[108..], "tïtle\0".as_bytes());
    assert_eq!(
        &b[28..32],
        &npuschema_core::crc32(0, &b[36..]).to_le_bytes()
    );
    let v = DirNotes::validate(b).expect("the writer's output validates");
    assert!(DirNotes::validate_as::<npuschema_core::Brief>(b).is_ok());
    assert_eq!(v.header().flags(), 0xA5);
    assert_eq!(
        (v.notes(), v.trailer()),
        (&b"some notes"[..], &b"THE END"[..])
    );
    assert_eq!(v.title_str(), Ok("tïtle"));
    let got: Vec<(Kind, u16, &[u8])> = v
        .sections()
        .map(|s| (s.kind(), s.entsize(), s.payload().unwrap_or_default()))
        .collect();
    let want: Vec<(Kind, u16, &[u8])> = sections
        .iter()
        .map(|s| (s.kind, s.entsize, s.payload))
        .collect();
    assert_eq!(got, want);
    // Empty ranges are still placed (and valid); a short buffer fails closed.
    let bare = DirNotesSpec {
        flags: 0,
        notes: b"",
        trailer: b"",
        title: "",
        sections: &[],
    };
    let e = bare.to_vec().expect("writes");
    assert_eq!(e.len(), 37);
    assert!(DirNotes::validate(&e).is_ok());
    assert!(matches!(
        spec.write_into(&mut buf[..n - 1]),
        Err(npuschema_core::WriteError::BufferTooSmall { .. })
    ));
    // A title holding a NUL would read back shorter: refused.
    assert!(matches!(
        DirNotesSpec {
            title: "a\0b",
            ..spec
        }
        .to_vec(),
        Err(npuschema_core::WriteError::Layout { item: "title" })
    ));
    // `seal` recomputes the file checksum after an edit.
    let mut edited = b.to_vec();
    edited[37] = b'O';
    assert_eq!(
        DirNotes::validate(&edited).map(|_| ()).map_err(|e| e.code),
        Err("bad-crc")
    );
    let placed: Vec<(u64, u64, u64)> = v
        .sections()
        .map(|s| {
            (
                u64::from(s.kind().raw()),
                u64::from(s.offset()),
                u64::from(s.size()),
            )
        })
        .collect();
    DirNotesSpec::seal(&mut edited, placed.iter().copied()).expect("in bounds");
    assert_eq!(
        DirNotes::validate(&edited).map(|v| v.notes()),
        Ok(&b"sOme notes"[..])
    );
}

mod dirmix {
    npuschema_macro::include_schema!("schemas/dirmix.yaml");
}

/// A directory writer for a file that also has another table (located by a located
/// record), a string table with the table's names and the file's title, a length-prefixed
/// label per record outside any range, per-record bytes and a record stream: each placed
/// where `writer.order` names it, every place, count, stride, size and offset field
/// derived; the validator accepts the bytes and the views give back every input.
#[test]
fn the_directory_writer_places_tables_streams_and_string_tables() {
    use dirmix::{DirMix, DirMixSpec, EntriesSpec, Kind, SectionSpec, SymbolBlob, SymbolSpec};
    let sections = [
        SectionSpec {
            kind: Kind::Code,
            entsize: 0,
            payload: b"CODE!",
        },
        SectionSpec {
            kind: Kind::Data,
            entsize: 4,
            payload: b"dd",
        },
    ];
    let symbols = [
        SymbolSpec {
            value: -5,
            blob: SymbolBlob::Present(b"AB"),
            name: "f",
            label: b"L1",
        },
        SymbolSpec {
            value: 9,
            blob: SymbolBlob::Present(b""),
            name: "gé",
            label: b"",
        },
    ];
    let entries = [
        EntriesSpec {
            tag: 1,
            body: b"xyz",
        },
        EntriesSpec { tag: 2, body: b"" },
    ];
    let spec = DirMixSpec {
        flags: 0x11,
        info_version: 2,
        extra_base: 0xB0B1_B2B3,
        extra_added: 0xA0A1_A2A3,
        extra_old: 0xC0C1,
        extra_tail: 0x50,
        symbols: &symbols,
        title: "T",
        entries: &entries,
        sections: &sections,
    };
    let n = spec.encoded_len().expect("fits");
    assert_eq!(n, 175);
    let mut buf = vec![0xEEu8; n + 3];
    assert_eq!(spec.write_into(&mut buf), Ok(n));
    let b = &buf[..n];
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    // The header (40), `info` at 40, the directory at 60, the symbols at 84, the string
    // table at 124 ("f\0gé\0T\0"), the log at 132 (7 bytes, padding to 8, 4 bytes), the
    // payloads at 144 and 152, the blobs at 156 and 160, the labels at 160 and 163, and
    // `extra` at 164 in its version-2 layout (base, added, old, tail: 11 bytes).
    let header: Vec<u32> = (8..36).step_by(4).map(word).collect();
    assert_eq!(header, [60, 40, 132, 12, 124, 8, 6]);
    let info: Vec<u32> = (40..60).step_by(4).map(word).collect();
    assert_eq!(info, [84, 2, 20, 2, 164]);
    assert_eq!(&b[124..132], "f\0gé\0T\0".as_bytes());
    assert_eq!(&b[132..144], b"\x01\x00\x03\x00xyz\0\x02\x00\x00\x00");
    assert_eq!(&b[144..154], b"CODE!\0\0\0dd");
    assert_eq!(&b[156..158], b"AB");
    assert_eq!(&b[160..164], b"\x02L1\x00");
    assert_eq!(
        &b[164..175],
        b"\xB3\xB2\xB1\xB0\xA3\xA2\xA1\xA0\xC1\xC0\x50"
    );
    // Symbol 0: name at 0, label at 160, value -5, blob at 156 (2 bytes); symbol 1: name at
    // 2, label at 163, value 9, blob at 160 (0 bytes).
    let syms: Vec<u32> = (84..124).step_by(4).map(word).collect();
    assert_eq!(syms, [0, 160, (-5i32) as u32, 156, 2, 2, 163, 9, 160, 0]);
    assert_eq!(word(36), npuschema_core::crc32(0, &b[40..]));
    let v = DirMix::validate(b).expect("the writer's output validates");
    assert!(DirMix::validate_as::<npuschema_core::Brief>(b).is_ok());
    assert_eq!(v.header().flags(), 0x11);
    assert_eq!(v.info().version(), 2);
    let x = v.extra();
    assert_eq!(
        (x.base(), x.added(), x.old(), x.tail()),
        (0xB0B1_B2B3, Some(0xA0A1_A2A3), Some(0xC0C1), 0x50)
    );
    assert_eq!(v.title_str(), Ok("T"));
    let got: Vec<(Kind, u16, &[u8])> = v
        .sections()
        .map(|s| (s.kind(), s.entsize(), s.payload().unwrap_or_default()))
        .collect();
    let want: Vec<(Kind, u16, &[u8])> = sections
        .iter()
        .map(|s| (s.kind, s.entsize, s.payload))
        .collect();
    assert_eq!(got, want);
    let got: Vec<(i32, &[u8], &str, &[u8])> = v
        .symbols()
        .map(|s| {
            (
                s.value(),
                s.blob().unwrap_or_default(),
                v.name_str(&s).unwrap_or_default(),
                v.label(&s),
            )
        })
        .collect();
    let want: Vec<(i32, &[u8], &str, &[u8])> = symbols
        .iter()
        .map(|s| {
            let SymbolBlob::Present(blob) = s.blob else {
                unreachable!()
            };
            (s.value, blob, s.name, s.label)
        })
        .collect();
    assert_eq!(got, want);
    let got: Vec<(u16, &[u8])> = v.entries().map(|r| (r.header().tag(), r.body())).collect();
    assert_eq!(got, [(1, &b"xyz"[..]), (2, &b""[..])]);
    // Nothing to write but the header, `info` and `extra`: every item still placed and valid
    // (the string table holds the title's NUL at 60; the empty log at 64, aligned; `extra`
    // at 64 in its version-0 layout: base, old, tail, without `added`).
    let bare = DirMixSpec {
        flags: 0,
        info_version: 0,
        extra_base: 1,
        extra_added: 2,
        extra_old: 3,
        extra_tail: 4,
        symbols: &[],
        title: "",
        entries: &[],
        sections: &[],
    };
    let e = bare.to_vec().expect("writes");
    assert_eq!(e.len(), 71);
    assert_eq!(&e[64..71], b"\x01\0\0\0\x03\0\x04");
    let x = DirMix::validate(&e).expect("valid").extra();
    assert_eq!(
        (x.base(), x.added(), x.old(), x.tail()),
        (1, None, Some(3), 4)
    );
    // From version 3 `old` is gone.
    let e = DirMixSpec {
        info_version: 3,
        ..bare
    }
    .to_vec()
    .expect("writes");
    assert_eq!(&e[64..], b"\x01\0\0\0\x02\0\0\0\x04");
    let x = DirMix::validate(&e).expect("valid").extra();
    assert_eq!(
        (x.base(), x.added(), x.old(), x.tail()),
        (1, Some(2), None, 4)
    );
    // A short buffer, a name with a NUL and a label too long for its u8 length fail closed.
    assert!(matches!(
        spec.write_into(&mut buf[..n - 1]),
        Err(npuschema_core::WriteError::BufferTooSmall { .. })
    ));
    let nul = [SymbolSpec {
        name: "a\0b",
        ..symbols[0]
    }];
    assert!(matches!(
        DirMixSpec {
            symbols: &nul,
            ..spec
        }
        .write_into(&mut buf),
        Err(npuschema_core::WriteError::Layout { item: "name" })
    ));
    let long = [b'x'; 256];
    let long = [SymbolSpec {
        label: &long,
        ..symbols[0]
    }];
    assert!(matches!(
        DirMixSpec {
            symbols: &long,
            ..spec
        }
        .to_vec(),
        Err(npuschema_core::WriteError::TooLarge { field: "label", .. })
    ));
}

mod tlv {
    npuschema_macro::include_schema!("schemas/tlv.yaml");
}
use tlv::Tlv;

/// A TLV file: the 12-byte header, then each `(kind, body)` as a 4-byte record header, the
/// body and zeros up to a multiple of 4 (none after the last record).
fn tlv_blob(records: &[(u16, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, (kind, b)) in records.iter().enumerate() {
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&u16::try_from(b.len()).expect("small").to_le_bytes());
        body.extend_from_slice(b);
        if i + 1 < records.len() {
            while body.len() % 4 != 0 {
                body.push(0);
            }
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(&0x3156_4C54u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(body.len()).expect("small").to_le_bytes());
    out.extend_from_slice(&u32::try_from(records.len()).expect("small").to_le_bytes());
    out.extend(body);
    out
}

/// A note (lang 7, 5 bytes of text), a point (-3, 9), an unknown type 0x7003 and the end.
fn tlv_sample() -> Vec<u8> {
    let mut point = Vec::new();
    point.extend_from_slice(&(-3i32).to_le_bytes());
    point.extend_from_slice(&9i32.to_le_bytes());
    tlv_blob(&[
        (1, &[7, 0, 5, 0, b'h', b'e', b'l', b'l', b'o']),
        (2, &point),
        (0x7003, &[1, 2, 3]),
        (0x7FFF, &[]),
        (0, &[]),
    ])
}

/// The `Error` and the `Brief` for `b` name the same check; returns the `Error`.
fn tlv_rejected(b: &[u8]) -> npuschema_core::Error {
    let e = Tlv::validate(b).expect_err("rejected");
    let brief = Tlv::validate_as::<Brief>(b).expect_err("rejected as Brief");
    let site = tlv::error_site(brief.id()).expect("a site");
    assert_eq!(
        (site.code, site.table, site.name),
        (e.code, e.field.table, e.field.name)
    );
    e
}

#[test]
fn record_stream_iterates_headers_bodies_and_layouts() {
    let b = tlv_sample();
    let v = Tlv::validate(&b).expect("valid");
    assert!(Tlv::validate_as::<Brief>(&b).is_ok());
    let recs: Vec<_> = v.records().collect();
    let kinds: Vec<u16> = recs.iter().map(|r| r.header().kind_raw()).collect();
    assert_eq!(kinds, [1, 2, 0x7003, 0x7FFF, 0]);
    // Unknown types are kept (an open enum): the value and its raw number.
    assert_eq!(recs[3].header().kind(), tlv::Kind::Unknown(0x7FFF));
    let offsets: Vec<u64> = recs.iter().map(|r| r.offset()).collect();
    // 12 + (4 + 9 -> 16) + (4 + 8) + (4 + 3 -> 8) + 4.
    assert_eq!(offsets, [12, 28, 40, 48, 52]);
    assert_eq!(recs[0].body(), &[7, 0, 5, 0, b'h', b'e', b'l', b'l', b'o']);
    assert_eq!(recs[0].body_offset(), 16);
    assert_eq!(recs[2].body(), &[1, 2, 3]);
    assert!(recs[4].body().is_empty());
    let note = recs[0].as_notes().expect("a note");
    assert_eq!((note.lang(), note.text_len()), (7, 5));
    assert!(recs[0].as_points().is_none());
    assert!(recs[2].as_notes().is_none() && recs[2].as_points().is_none());
    let p = recs[1].as_points().expect("a point");
    assert_eq!((p.x(), p.y()), (-3, 9));
    // The collections: every body of one type, typed.
    assert_eq!(v.notes().count(), 1);
    let pts: Vec<(i32, i32)> = v.points().map(|p| (p.x(), p.y())).collect();
    assert_eq!(pts, [(-3, 9)]);
    // The stream and the collections come back the same from a second walk.
    assert_eq!(v.records().count(), 5);
}

#[test]
fn record_stream_errors_name_the_record() {
    let b = tlv_sample();
    // A body length that runs past the range: `bad-record` at record 2, its offset.
    let mut bad = b.clone();
    bad[40 + 2] = 0xF0;
    let e = tlv_rejected(&bad);
    assert_eq!(
        (e.code, e.field.table, e.field.index, e.field.name, e.offset),
        ("bad-record", "records", 2, "length", 42)
    );
    assert!(matches!(e.detail, Detail::Range { start: 40, .. }));
    // A note body shorter than the `Note` layout.
    let short = tlv_blob(&[(1, &[1, 0]), (0, &[])]);
    let e = tlv_rejected(&short);
    assert_eq!(
        (e.code, e.field.index, e.field.name),
        ("bad-record", 0, "notes")
    );
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(2),
            rhs: Some(4),
            names: &["body bytes", "<", "Note"]
        }
    );
    // No terminator: the range ends first.
    let open = tlv_blob(&[(0x7003, &[1, 2, 3, 4])]);
    let e = tlv_rejected(&open);
    assert_eq!(
        (e.code, e.field.name, e.field.index),
        ("bad-record", "end", 1)
    );
    // Bytes after the terminator (past its padding).
    let mut trailing = tlv_blob(&[(0, &[]), (0x7003, &[])]);
    trailing[8] = 1;
    let e = tlv_rejected(&trailing);
    assert_eq!((e.code, e.field.name, e.offset), ("bad-record", "end", 16));
    // A header cut by the range's end: 2 bytes left.
    let mut cut = tlv_blob(&[(0x7003, &[]), (0, &[])]);
    cut.truncate(cut.len() - 2);
    cut[4] = 6;
    let e = tlv_rejected(&cut);
    assert_eq!(
        (e.code, e.field.name, e.offset),
        ("bad-record", "header", 16)
    );
    // count(records) includes the terminator; the header says otherwise.
    let mut miscount = b.clone();
    miscount[8] = 4;
    assert_eq!(tlv_rejected(&miscount).code, "count-mismatch");
    // for_each over the stream: the terminator must be empty.
    let mut nonempty = tlv_blob(&[(0, &[0, 0, 0, 0])]);
    nonempty[8] = 1;
    let e = tlv_rejected(&nonempty);
    assert_eq!(
        (e.code, e.field.table, e.field.index, e.offset),
        ("terminator-not-empty", "records", 0, 14)
    );
    // for_each over a collection: record-context steps on the typed body.
    let long = tlv_blob(&[(1, &[0, 0, 65, 0]), (0, &[])]);
    let e = tlv_rejected(&long);
    assert_eq!(
        (e.code, e.field.table, e.field.index, e.field.name, e.offset),
        ("note-text-too-long", "notes", 0, "text_len", 18)
    );
    // count() of a collection.
    let nine: Vec<(u16, &[u8])> = std::iter::repeat_n((2u16, &[0u8; 8][..]), 9)
        .chain([(0u16, &[][..])])
        .collect();
    assert_eq!(tlv_rejected(&tlv_blob(&nine)).code, "too-many-points");
}

#[test]
fn record_stream_never_panics_on_mutants() {
    let b = tlv_sample();
    for i in 0..b.len() {
        for x in [0x01u8, 0x80, 0xFF] {
            let mut m = b.clone();
            m[i] ^= x;
            if let Ok(v) = Tlv::validate(&m) {
                // A view that validated walks to its end.
                assert!(v.records().count() >= 1);
            }
        }
    }
    for n in 0..b.len() {
        assert!(Tlv::validate(&b[..n]).is_err(), "truncated to {n}");
    }
}

#[test]
fn record_stream_writer_round_trips() {
    use tlv::{Kind, RecordsSpec, RecordsWriter, TlvWriter};
    let mut point = [0u8; 8];
    point[..4].copy_from_slice(&(-3i32).to_le_bytes());
    point[4..].copy_from_slice(&9i32.to_le_bytes());
    let specs = [
        RecordsSpec {
            kind: Kind::Note,
            body: &[7, 0, 5, 0, b'h', b'e', b'l', b'l', b'o'],
        },
        RecordsSpec {
            kind: Kind::Point,
            body: &point,
        },
        RecordsSpec {
            kind: Kind::from_raw(0x7FFF),
            body: &[1, 2, 3],
        },
        RecordsSpec {
            kind: Kind::End,
            body: &[],
        },
    ];
    let w = RecordsWriter::new(&specs);
    // 4 + 9 (+3 padding) + 4 + 8 + 4 + 3 (+1) + 4.
    assert_eq!(w.encoded_len(), Ok(40));
    let mut body = [0xEEu8; 40];
    assert_eq!(w.write_into(&mut body), Ok(40));
    // The padding is written as zeros.
    assert_eq!(&body[13..16], &[0, 0, 0]);
    let fw = TlvWriter::new().record_count(4).records(&specs);
    let mut file = vec![0u8; fw.encoded_len().expect("len")];
    fw.write_into(&mut file).expect("written");
    // The same bytes as the hand-built fixture, and every record read back.
    let mut hand_point = Vec::new();
    hand_point.extend_from_slice(&point);
    assert_eq!(
        file,
        tlv_blob(&[
            (1, &[7, 0, 5, 0, b'h', b'e', b'l', b'l', b'o']),
            (2, &hand_point),
            (0x7FFF, &[1, 2, 3]),
            (0, &[]),
        ])
    );
    let v = Tlv::validate(&file).expect("valid");
    let back: Vec<(Kind, &[u8])> = v.records().map(|r| (r.header().kind(), r.body())).collect();
    let want: Vec<(Kind, &[u8])> = specs.iter().map(|s| (s.kind, s.body)).collect();
    assert_eq!(back, want);
    // The terminator must be last, and only last.
    let early = [specs[3], specs[0]];
    assert!(matches!(
        RecordsWriter::new(&early).write_into(&mut [0u8; 64]),
        Err(npuschema_core::WriteError::Layout { item: "records" })
    ));
    assert!(matches!(
        RecordsWriter::new(&specs[..3]).write_into(&mut [0u8; 64]),
        Err(npuschema_core::WriteError::Layout { .. })
    ));
    // A body too long for the u16 size field.
    let big = vec![0u8; 70_000];
    let huge = [
        RecordsSpec {
            kind: Kind::Blob,
            body: &big,
        },
        specs[3],
    ];
    assert!(matches!(
        RecordsWriter::new(&huge).encoded_len(),
        Err(npuschema_core::WriteError::TooLarge {
            field: "records[].length",
            ..
        })
    ));
    // An output buffer too small.
    assert!(matches!(
        w.write_into(&mut [0u8; 39]),
        Err(npuschema_core::WriteError::BufferTooSmall {
            needed: 40,
            available: 39
        })
    ));
}

mod scoped {
    npuschema_macro::include_schema!("schemas/scoped.yaml");
}
use scoped::Scoped;

/// A `scoped.yaml` file: the header, `entries` after it, then `extras` (the flag says
/// whether the table is there), then 16 bytes of data the entries point into.
fn scoped_blob(version: u32, flags: u32, entries: &[(u32, u32)], extras: &[(u16, u16)]) -> Vec<u8> {
    let extras_at = 24 + 8 * entries.len();
    let mut out = Vec::new();
    for w in [
        0x504F_4353,
        version,
        flags,
        u32::try_from(entries.len()).expect("small"),
        u32::try_from(extras_at).expect("small"),
        u32::try_from(extras.len()).expect("small"),
    ] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for (o, s) in entries {
        out.extend_from_slice(&o.to_le_bytes());
        out.extend_from_slice(&s.to_le_bytes());
    }
    for (t, l) in extras {
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&l.to_le_bytes());
    }
    out.extend([0u8; 16]);
    out
}

fn scoped_rejected(b: &[u8]) -> npuschema_core::Error {
    let e = Scoped::validate(b).expect_err("rejected");
    let brief = Scoped::validate_as::<Brief>(b).expect_err("rejected as Brief");
    let site = scoped::error_site(brief.id()).expect("a site");
    assert_eq!(
        (site.code, site.table, site.name),
        (e.code, e.field.table, e.field.name)
    );
    e
}

#[test]
fn when_on_table_fits_and_for_each() {
    // Flag set: the extras are checked and readable.
    let b = scoped_blob(2, 1, &[(0, 4)], &[(1, 3), (2, 32)]);
    let v = Scoped::validate(&b).expect("valid");
    assert_eq!(v.extras().map(|x| x.level()).collect::<Vec<_>>(), [3, 32]);
    // Flag clear: the table is not checked (its place is nonsense) and has no records.
    let mut off = scoped_blob(2, 0, &[(0, 4)], &[]);
    off[16..20].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    off[20..24].copy_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
    let v = Scoped::validate(&off).expect("valid without extras");
    assert_eq!(v.extras().len(), 0);
    // The same place with the flag set fails the table's check.
    off[8] = 1;
    assert_eq!(scoped_rejected(&off).code, "extras-out-of-bounds");
    // `for_each` with `when`: version 1 skips the extras' checks, version 2 runs them.
    let heavy = scoped_blob(1, 1, &[], &[(1, 33)]);
    assert!(Scoped::validate(&heavy).is_ok());
    let heavy = scoped_blob(2, 1, &[], &[(1, 33)]);
    let e = scoped_rejected(&heavy);
    assert_eq!(
        (e.code, e.field.table, e.field.index, e.field.name),
        ("extra-too-heavy", "extras", 0, "level")
    );
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(66),
            rhs: Some(64),
            names: &["weight", ">", ""]
        }
    );
    assert_eq!(
        scoped_rejected(&scoped_blob(2, 1, &[], &[(1, 3), (0, 3)])).code,
        "extra-untagged"
    );
}

#[test]
fn named_values_inside_for_each_are_per_record() {
    // entry_end = offset + size, computed for each record.
    let b = scoped_blob(2, 0, &[(0, 4), (10, 20), (4, 4)], &[]);
    assert!(Scoped::validate(&b).is_ok());
    // Two entries: the file is 24 + 16 + 16 = 56 bytes; the second ends at 57.
    let e = scoped_rejected(&scoped_blob(2, 0, &[(0, 4), (56, 1)], &[]));
    assert_eq!(
        (e.code, e.field.index, e.field.name, e.offset),
        ("entry-past-end", 1, "size", 36)
    );
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(57),
            rhs: Some(56),
            names: &["entry_end", ">", "len"]
        }
    );
    // An overflowing named value fails every check that uses it.
    let e = scoped_rejected(&scoped_blob(2, 0, &[(u32::MAX, u32::MAX)], &[]));
    assert_eq!((e.code, e.field.index), ("entry-past-end", 0));
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
    fn the_directory_writer_lays_out_what_the_validator_reads() {
        use super::opendir::{OpenDirSpec, SectionSpec};
        use npuschema_core::WriteError;
        let secs = sections();
        let specs: Vec<SectionSpec<'_>> = secs
            .iter()
            .map(|s| SectionSpec {
                sh_type: SecType::from_raw(s.ty),
                entsize: s.entsize,
                info: 0,
                payload: &s.payload,
            })
            .collect();
        let spec = OpenDirSpec { sections: &specs };
        let n = spec.encoded_len().expect("fits");
        let mut buf = vec![0xAAu8; n + 3];
        assert_eq!(spec.write_into(&mut buf), Ok(n));
        // Byte for byte what the hand-made builder writes: header, directory at 16, each
        // payload at a 4-byte boundary, the checksum records and crc_sum computed.
        assert!(buf[..n] == file(&secs)[..]);
        assert_eq!(verdict(&buf[..n]), Ok(()));
        let good = buf[..n].to_vec();
        let v = OpenDir::validate(&good).expect("valid");
        assert_eq!(v.crcs().count(), 3);
        assert_eq!(v.header().section_offset(), HEADER as u32);
        // Fails closed: a short buffer, a section count its u16 field cannot hold.
        assert!(matches!(
            spec.write_into(&mut buf[..n - 1]),
            Err(WriteError::BufferTooSmall { .. })
        ));
        let many = vec![specs[0]; 70_000];
        let big = OpenDirSpec { sections: &many };
        let mut out = vec![0u8; big.encoded_len().expect("the size fits")];
        assert_eq!(
            big.write_into(&mut out),
            Err(WriteError::TooLarge {
                field: "header.section_count",
                value: 70_000
            })
        );
        // `seal` recomputes the sums of bytes laid out as a directory says.
        let mut b = good.clone();
        b[12..16].fill(0);
        let placed: Vec<(u64, u64, u64)> = v
            .sections()
            .map(|s| {
                (
                    u64::from(s.sh_type().raw()),
                    u64::from(s.offset()),
                    u64::from(s.size()),
                )
            })
            .collect();
        OpenDirSpec::seal(&mut b, placed.iter().copied()).expect("in bounds");
        assert!(b == good);
        assert_eq!(
            OpenDirSpec::file_crc(&b, placed.iter().copied()),
            v.header().crc_sum()
        );
        let _ = (SECTION, seal, ty::EMPTY);
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

mod padded {
    npuschema_macro::include_schema!("schemas/padded.yaml");
}
use padded::Padded;

/// A `padded.yaml` file: 4 zero bytes, a blob using 3 of its 6 data bytes (3 of 0xFF), a
/// record of another type, an empty blob, and 2 tail bytes of 0xEE.
fn padded_sample() -> Vec<u8> {
    let mut body = Vec::new();
    for (kind, b) in [
        (1u16, &[3, 0, b'a', b'b', b'c', 0xFF, 0xFF, 0xFF][..]),
        (2, &[9, 9][..]),
        (1, &[0, 0][..]),
    ] {
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&u16::try_from(b.len()).expect("small").to_le_bytes());
        body.extend_from_slice(b);
    }
    let mut out = Vec::new();
    let body_len = u32::try_from(body.len()).expect("small");
    for w in [0x5344_4150u32, 4, body_len, 2] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&[0; 4]);
    out.extend(body);
    out.extend_from_slice(&[0xEE; 2]);
    out
}

/// The `Error` and the `Brief` for `b` name the same check; returns the `Error`.
fn padded_rejected(b: &[u8]) -> npuschema_core::Error {
    let e = Padded::validate(b).expect_err("rejected");
    let brief = Padded::validate_as::<Brief>(b).expect_err("rejected as Brief");
    let site = padded::error_site(brief.id()).expect("a site");
    assert_eq!(
        (site.code, site.table, site.name),
        (e.code, e.field.table, e.field.name)
    );
    e
}

#[test]
fn fill_steps_accept_their_bytes_and_blame_the_first_other_one() {
    let b = padded_sample();
    let v = Padded::validate(&b).expect("valid");
    assert!(Padded::validate_as::<Brief>(&b).is_ok());
    assert_eq!(v.reserved(), &[0; 4]);
    let used: Vec<u16> = v.blobs().map(|x| x.used()).collect();
    assert_eq!(used, [3, 0]);

    // The reserved range (a named range): the first non-zero byte, as a Mismatch.
    let mut m = b.clone();
    m[17] = 5;
    m[19] = 6;
    let e = padded_rejected(&m);
    assert_eq!((e.code, e.offset), ("reserved-not-zero", 17));
    assert_eq!(e.field.to_string(), "reserved");
    assert_eq!(
        e.detail,
        Detail::Mismatch {
            found: 5,
            expected: 0
        }
    );

    // A blob's padding (a span from `record.body_offset` to `record.end`), in its record.
    let mut m = b.clone();
    m[30] = 0;
    let e = padded_rejected(&m);
    assert_eq!((e.code, e.offset), ("bad-padding", 30));
    assert_eq!(e.field.to_string(), "blobs[0].padding");

    // The tail: a byte, then a span past the buffer's end (a Range, at the span's start).
    let mut m = b.clone();
    m[45] = 1;
    assert_eq!(padded_rejected(&m).offset, 45);
    let mut m = b.clone();
    m[12] = 9;
    let e = padded_rejected(&m);
    assert_eq!((e.code, e.offset), ("bad-tail", 44));
    assert_eq!(
        e.detail,
        Detail::Range {
            start: 44,
            len: 9,
            limit_name: "len",
            limit: 46
        }
    );
}

#[test]
fn record_positions_are_the_current_records() {
    let b = padded_sample();
    // `used + 2 <= record.body_len`: 6 bytes used in a body of 8 leave no padding; 7 do not
    // fit.
    let mut m = b.clone();
    m[24] = 6;
    assert!(Padded::validate(&m).is_ok());
    let mut m = b.clone();
    m[24] = 7;
    let e = padded_rejected(&m);
    assert_eq!((e.code, e.offset), ("used-too-long", 24));
    assert_eq!(
        e.detail,
        Detail::Compare {
            lhs: Some(9),
            rhs: Some(8),
            names: &["", ">", "body_len"]
        }
    );
    // The padding starts at `record.body_offset + 2 + used`: with 4 bytes used, byte 29 is
    // data and byte 30 the first of the padding.
    let mut m = b.clone();
    m[24] = 4;
    m[29] = b'd';
    assert!(Padded::validate(&m).is_ok());
    m[30] = b'e';
    assert_eq!(padded_rejected(&m).offset, 30);
}

// ----- record positions in a stream: first(collection) -----------------------------------

mod positions {
    use npuschema_core::{Brief, Detail};

    mod wav {
        npuschema_macro::include_schema!("../formats/wav.yaml");
    }
    mod png {
        npuschema_macro::include_schema!("../formats/png.yaml");
    }

    /// A RIFF/WAVE file of the chunks `(id, body)`, each padded to an even length.
    fn riff(cs: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let mut body = b"WAVE".to_vec();
        for (id, data) in cs {
            body.extend_from_slice(*id);
            body.extend_from_slice(&u32::try_from(data.len()).expect("small").to_le_bytes());
            body.extend_from_slice(data);
            if data.len() % 2 == 1 {
                body.push(0);
            }
        }
        let mut out = b"RIFF".to_vec();
        out.extend_from_slice(&u32::try_from(body.len()).expect("small").to_le_bytes());
        out.extend(body);
        out
    }

    /// 8 kHz mono 16-bit PCM.
    const FMT: [u8; 16] = [1, 0, 1, 0, 0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0];

    /// The `Error` and the `Brief` name the same check; returns the `Error`.
    fn wav_rejected(b: &[u8]) -> npuschema_core::Error {
        let e = wav::Wav::validate(b).expect_err("rejected");
        let brief = wav::Wav::validate_as::<Brief>(b).expect_err("rejected as Brief");
        let site = wav::error_site(brief.id()).expect("a site");
        assert_eq!((site.code, site.name), (e.code, e.field.name));
        e
    }

    #[test]
    fn first_orders_records_of_different_types() {
        // Unknown chunks before and between: `fmt ` is record 1, `data` record 3.
        let good = riff(&[
            (b"bext", b"INFOab"),
            (b"fmt ", &FMT),
            (b"junk", b"odd"),
            (b"data", &[1, 0, 2, 0]),
        ]);
        let v = wav::Wav::validate(&good).expect("valid");
        assert!(wav::Wav::validate_as::<Brief>(&good).is_ok());
        let ids: Vec<u32> = v.chunks().map(|c| c.header().id()).collect();
        assert_eq!(
            ids,
            [0x7478_6562, wav::CHUNK_FMT, 0x6B6E_756A, wav::CHUNK_DATA]
        );
        // The odd-sized chunk's pad byte is skipped: `data` starts on an even offset.
        let data = v.chunks().nth(3).expect("data");
        assert_eq!(
            (data.offset(), data.body()),
            (12 + 14 + 24 + 12, &[1, 0, 2, 0][..])
        );
        let f = v.fmts().next().expect("fmt");
        assert_eq!(
            (f.channels(), f.sample_rate(), f.block_align()),
            (1, 8000, 2)
        );

        // `data` before `fmt `: the positions, compared, name the rule.
        let swapped = riff(&[
            (b"data", &[1, 0, 2, 0]),
            (b"bext", b"INFOab"),
            (b"fmt ", &FMT),
        ]);
        let e = wav_rejected(&swapped);
        assert_eq!(
            (e.code, e.field.name, e.offset),
            ("fmt-after-data", "header.riff_size", 4)
        );
        assert_eq!(
            e.detail,
            Detail::Compare {
                lhs: Some(2),
                rhs: Some(0),
                names: &["first(fmts)", ">=", "first(datas)"],
            }
        );
        // Counts still come first: two `fmt ` chunks, or none.
        let twice = riff(&[(b"fmt ", &FMT), (b"fmt ", &FMT), (b"data", &[])]);
        assert_eq!(wav_rejected(&twice).code, "one-fmt");
        assert_eq!(wav_rejected(&riff(&[(b"data", &[])])).code, "one-fmt");
    }

    /// A PNG of the chunks `(type, data)` with their CRCs, then IEND.
    fn png_file(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
        for (ty, data) in chunks.iter().chain([&(b"IEND", &[][..])]) {
            out.extend_from_slice(&u32::try_from(data.len()).expect("small").to_be_bytes());
            let mut covered = ty.to_vec();
            covered.extend_from_slice(data);
            out.extend_from_slice(&covered);
            out.extend_from_slice(&npuschema_core::crc32(0, &covered).to_be_bytes());
        }
        out
    }

    #[test]
    fn first_of_an_empty_collection_fails_closed() {
        let ihdr: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0];
        assert!(png::Png::validate(&png_file(&[(b"IHDR", ihdr), (b"IDAT", b"x")])).is_ok());
        // IHDR second: its position is 1.
        let late = png_file(&[(b"tEXt", b"a\0b"), (b"IHDR", ihdr)]);
        let e = png::Png::validate(&late).expect_err("rejected");
        assert_eq!(
            (e.code, e.field.name, e.offset),
            ("ihdr-not-first", "header.magic", 0)
        );
        assert_eq!(
            e.detail,
            Detail::Compare {
                lhs: Some(1),
                rhs: Some(0),
                names: &["first(ihdrs)", "!=", ""],
            }
        );
        // No IHDR: there is no first record, so the check fails with its own code and no
        // left value (as a record read at an index past a table's end does).
        let none = png_file(&[(b"tEXt", b"a\0b")]);
        let e = png::Png::validate(&none).expect_err("rejected");
        assert_eq!(e.code, "ihdr-not-first");
        assert_eq!(
            e.detail,
            Detail::Compare {
                lhs: None,
                rhs: Some(0),
                names: &["first(ihdrs)", "!=", ""],
            }
        );
        let brief = png::Png::validate_as::<Brief>(&none).expect_err("rejected as Brief");
        assert_eq!(
            png::error_site(brief.id()).expect("a site").code,
            "ihdr-not-first"
        );
    }
}

// ----- structs inside structs and fixed arrays of structs (nested.yaml) ---------------------

mod nested {
    npuschema_macro::include_schema!("schemas/nested.yaml");
}

mod nested_structs {
    use super::nested::{self, Nested, StampKind};
    use npuschema_core::{Brief, Detail};

    use npuschema_tests::nested_blobs::HEADER;

    fn file(points: &[(i16, i16)]) -> Vec<u8> {
        npuschema_tests::nested_blobs::file(points, 2)
    }

    /// The `Error` and the `Brief` name the same check.
    fn rejected(b: &[u8]) -> npuschema_core::Error {
        let e = Nested::validate(b).expect_err("rejected");
        let brief = Nested::validate_as::<Brief>(b).expect_err("rejected as Brief");
        let site = nested::error_site(brief.id()).expect("a site");
        assert_eq!(
            (site.code, site.table, site.name),
            (e.code, e.field.table, e.field.name)
        );
        e
    }

    #[test]
    fn views_of_structs_inside_structs() {
        let b = file(&[(5, 3), (1000, 7)]);
        let v = Nested::validate(&b).expect("valid");
        assert!(Nested::validate_as::<Brief>(&b).is_ok());
        let h = v.header();
        assert_eq!((h.version().major(), h.version().minor()), (1, 3));
        // The array: an iterator over every element and one element by index.
        let slices: Vec<(u32, u32)> = h.slices().map(|s| (s.offset(), s.length())).collect();
        assert_eq!(slices, [(102, 6), (108, 1), (0, 0), (0, 0)]);
        assert_eq!(h.slices_at(1).map(|s| s.offset()), Some(108));
        assert!(h.slices_at(4).is_none());
        assert!(h.slices_at(usize::MAX).is_none());
        // Each element is a view over its own 8 bytes of the header, nothing copied.
        let s2 = h.slices_at(2).expect("element 2");
        assert!(std::ptr::eq(
            s2.as_bytes().as_ptr(),
            h.as_bytes()[24..].as_ptr()
        ));
        // The big-endian stamp, and the version inside it in its own (little) order.
        assert_eq!(h.stamp().time(), 0x0102_0304_0506_0708);
        assert_eq!(h.stamp().kind(), StampKind::Tooled);
        assert_eq!((h.stamp().tool().major(), h.stamp().tool().minor()), (2, 7));
        // The file-level range located by `header.slices[0]`.
        assert_eq!(v.payload(), b"PAYLD!");
        // The records' structs, and the per-record range located by `span`.
        type Row<'a> = (u32, i16, i16, u32, Option<&'a [u8]>);
        let entries: Vec<Row<'_>> = v
            .entries()
            .map(|e| (e.id(), e.at().x(), e.at().y(), e.span().length(), e.blob()))
            .collect();
        assert_eq!(
            entries,
            [
                (10, 5, 3, 2, Some(&[0xB0, 0xB0][..])),
                (11, 1000, 7, 2, Some(&[0xB1, 0xB1][..]))
            ]
        );
        // `Debug` shows the structs inside, the array as a list.
        let dbg = format!("{:?}", h);
        assert!(
            dbg.contains("slices: [Slice { offset: 102, length: 6 }, Slice { offset: 108"),
            "{dbg}"
        );
        assert!(
            dbg.contains("tool: Version { major: 2, minor: 7 }"),
            "{dbg}"
        );
        // A record's array of structs.
        let e = v.entries().next().expect("entry 0");
        let dims: Vec<(u8, u8)> = e.dims().map(|d| (d.lo(), d.hi())).collect();
        assert_eq!(dims, [(1, 2), (3, 4)]);
        assert_eq!(e.dims_at(1).map(|d| d.hi()), Some(4));
    }

    #[test]
    fn checks_read_fields_inside_structs() {
        let good = file(&[(5, 3)]);
        // `header.version.minor` (at 6) past 9.
        let mut b = good.clone();
        b[6] = 10;
        let e = rejected(&b);
        assert_eq!(
            (e.code, e.field.name, e.offset),
            ("bad-version", "header.version.minor", 6)
        );
        // `header.slices[1]` starting inside the payload (`let payload_end`).
        let mut b = good.clone();
        b[16] = 80;
        let e = rejected(&b);
        assert_eq!(
            (e.code, e.field.name, e.offset),
            ("slices-overlap", "header.slices[1].offset", 16)
        );
        // ... which is fine when that slice is empty.
        b[20] = 0;
        assert!(Nested::validate(&b).is_ok());
        // `when: header.stamp.kind == tooled`: the tool's major (at 50) below the version's.
        let mut b = good.clone();
        b[50] = 0;
        let e = rejected(&b);
        assert_eq!(
            (e.code, e.field.name, e.offset),
            ("bad-tool", "header.stamp.tool.major", 50)
        );
        assert_eq!(
            e.detail,
            Detail::Compare {
                lhs: Some(0),
                rhs: Some(1),
                names: &["major", "<", "major"]
            }
        );
        // `bad-tool` is not checked for a plain stamp.
        b[48] = 1;
        assert!(Nested::validate(&b).is_ok());
        // A flag bit inside (`when: header.stamp.level.SEALED`, at 49) gates an `expect`
        // on the tool's minor version (at 52).
        let mut b = good.clone();
        b[52] = 8;
        assert!(Nested::validate(&b).is_ok());
        b[49] = 1;
        let e = rejected(&b);
        assert_eq!(
            (e.code, e.field.name, e.offset),
            ("bad-seal", "header.stamp.tool.minor", 52)
        );
        assert_eq!(
            e.detail,
            Detail::Mismatch {
                found: 8,
                expected: 7
            }
        );
        let mut b = good.clone();
        b[49] = 2;
        assert_eq!(rejected(&b).code, "bad-level");
        // The payload range from `header.slices[0]` past the end.
        let mut b = good.clone();
        b[12] = 0xFF;
        let e = rejected(&b);
        assert_eq!(e.code, "payload-out-of-bounds");
        // A record's point, inside its struct: `at.y` of entry 0 (at 62 + 6).
        let mut b = good.clone();
        b[HEADER + 6..HEADER + 8].copy_from_slice(&1001i16.to_le_bytes());
        let e = rejected(&b);
        assert_eq!(
            (e.code, e.field.table, e.field.index, e.field.name, e.offset),
            ("bad-point", "entries", 0, "at.y", 68)
        );
        // A negative coordinate is no `u64`: the comparison fails closed.
        b[HEADER + 6..HEADER + 8].copy_from_slice(&(-1i16).to_le_bytes());
        assert_eq!(rejected(&b).code, "bad-point");
        // A record's own array, named bare in its scope: `dims[1].hi` (at 62 + 19) below
        // `dims[1].lo`.
        let mut b = good.clone();
        b[HEADER + 19] = 0;
        let e = rejected(&b);
        assert_eq!(
            (e.code, e.field.table, e.field.index, e.field.name, e.offset),
            ("bad-dims", "entries", 0, "dims[1].hi", 81)
        );
        // A record's blob range from its `span`, past the end.
        let mut b = good.clone();
        b[HEADER + 12] = 0xFF;
        assert_eq!(rejected(&b).code, "blob-out-of-bounds");
        // ... and no blob when `span.length` is 0.
        let mut b = good.clone();
        b[HEADER + 12..HEADER + 16].fill(0);
        let v = Nested::validate(&b).expect("valid");
        assert_eq!(v.entries().next().and_then(|e| e.blob()), None);
    }

    /// The writer takes struct-typed fields as values (`VersionValue`, `[SliceValue; 4]`,
    /// a big-endian `StampValue` holding a little-endian `VersionValue`) and writes over
    /// the fields inside them that the rules derive: `slices[0]` (the payload's place) and
    /// each record's `span` (its blob's place). The validator accepts the bytes and the
    /// views give back every input.
    #[test]
    fn the_writer_writes_structs_inside_structs() {
        use super::nested::{
            DimValue, EntryBlob, EntrySpec, Level, NestedWriter, PointValue, SliceValue,
            StampValue, VersionValue,
        };
        let version = VersionValue { major: 1, minor: 4 };
        // `slices[0]` is derived: what is given there is written over.
        let slices = [
            SliceValue {
                offset: 0xDEAD,
                length: 0xBEEF,
            },
            SliceValue::ZERO,
            SliceValue {
                offset: 5,
                length: 6,
            },
            SliceValue {
                offset: 0xFFFF_FFFF,
                length: 1,
            },
        ];
        let stamp = StampValue {
            time: 0x1122_3344_5566_7788,
            kind: StampKind::Tooled,
            level: Level::SEALED,
            tool: VersionValue { major: 2, minor: 7 },
        };
        let entries = [
            EntrySpec {
                id: 7,
                at: PointValue { x: 3, y: 1000 },
                span: SliceValue::ZERO,
                dims: [DimValue { lo: 1, hi: 2 }, DimValue { lo: 0, hi: 0 }],
                blob: EntryBlob::Present(b"abc"),
            },
            EntrySpec {
                id: 8,
                at: PointValue { x: 0, y: 7 },
                span: SliceValue {
                    offset: 77,
                    length: 99,
                },
                dims: [DimValue { lo: 3, hi: 3 }, DimValue { lo: 9, hi: 200 }],
                blob: EntryBlob::Absent(0),
            },
        ];
        let w = NestedWriter::new()
            .version(version)
            .slices(slices)
            .stamp(stamp)
            .entries(&entries)
            .payload(b"PAYLOAD");
        let b = w.to_vec().expect("writes");
        assert_eq!(w.encoded_len(), Ok(b.len()));
        // Header 62, two entries of 20 (at 62, as the table says), the payload at 102 (2
        // aligned), the first blob after it at 110.
        assert_eq!(b.len(), 62 + 40 + 8 + 3);
        assert_eq!(&b[62 + 40..62 + 47], b"PAYLOAD");
        assert_eq!(&b[110..], b"abc");
        // The stamp's time big-endian (at 40), its tool version little-endian (at 50).
        assert_eq!(&b[40..48], &0x1122_3344_5566_7788u64.to_be_bytes());
        assert_eq!(&b[50..54], &[2, 0, 7, 0]);

        let v = Nested::validate(&b).expect("the writer's output validates");
        assert!(Nested::validate_as::<Brief>(&b).is_ok());
        let h = v.header();
        assert_eq!(VersionValue::from(h.version()), version);
        let got: Vec<SliceValue> = h.slices().map(SliceValue::from).collect();
        assert_eq!(
            got,
            [
                SliceValue {
                    offset: 102,
                    length: 7
                },
                slices[1],
                slices[2],
                slices[3]
            ]
        );
        assert_eq!(StampValue::from(h.stamp()), stamp);
        assert_eq!(v.payload(), b"PAYLOAD");
        assert_eq!((h.entry_count(), h.total_bytes()), (2, 113));
        let e: Vec<_> = v.entries().collect();
        assert_eq!(e.len(), 2);
        for (got, want) in e.iter().zip(&entries) {
            assert_eq!(got.id(), want.id);
            assert_eq!(PointValue::from(got.at()), want.at);
            let dims: Vec<DimValue> = got.dims().map(DimValue::from).collect();
            assert_eq!(dims, want.dims);
        }
        // Each record's `span` locates its blob; an absent blob's length is the one given,
        // its offset the value given.
        assert_eq!(
            SliceValue::from(e[0].span()),
            SliceValue {
                offset: 110,
                length: 3
            }
        );
        assert_eq!(e[0].blob(), Some(&b"abc"[..]));
        assert_eq!(
            SliceValue::from(e[1].span()),
            SliceValue {
                offset: 77,
                length: 0
            }
        );
        assert_eq!(e[1].blob(), None);
        // A value reads back from its bytes, and lays them out again.
        assert_eq!(StampValue::from_bytes(&stamp.to_bytes()), stamp);
        assert_eq!(&stamp.to_bytes()[..8], &b[40..48]);
        // Too small a buffer: an error, nothing written past it.
        let mut small = [0u8; 100];
        assert!(matches!(
            w.write_into(&mut small),
            Err(npuschema_core::WriteError::BufferTooSmall {
                needed: 113,
                available: 100
            })
        ));
        // An absent blob whose recorded length is not zero: `when: "span.length != 0"` then
        // holds on the record as written, so a reader would see a blob there. The writer
        // refuses it (before, it wrote a file the validator rejects, blob-out-of-bounds);
        // so it does a given blob that is empty.
        let long = EntrySpec {
            blob: EntryBlob::Absent(u32::MAX),
            ..entries[1]
        };
        let lw = NestedWriter::new()
            .version(version)
            .entries(std::slice::from_ref(&long))
            .payload(b"");
        assert_eq!(
            lw.to_vec(),
            Err(npuschema_core::WriteError::RecordWhenDisagrees {
                part: "entries[].blob",
                index: 0,
                given: false
            })
        );
        let empty = EntrySpec {
            blob: EntryBlob::Present(b""),
            ..entries[1]
        };
        assert_eq!(
            NestedWriter::new()
                .version(version)
                .entries(&[entries[1], empty])
                .payload(b"")
                .to_vec()
                .map_err(|e| e.to_string()),
            Err(
                "when-disagrees: record 1 is given entries[].blob but its condition is false"
                    .to_string()
            )
        );
    }
}

// ----- two section directories in one writer (twodirs.yaml) ---------------------------------

mod twodirs {
    npuschema_macro::include_schema!("schemas/twodirs.yaml");
}

/// A writer for a file with two section directories: each directory's table and payloads
/// placed where `writer.order` names them (both tables, then the code payloads, then the
/// asset payloads), each payload at its record's `align`, both counts derived, the `sums`
/// records' CRC-32s and both payload checksums computed by `seal` over each directory's own
/// sections; an unknown type of the open asset type is kept. The validator accepts the
/// bytes, the views give back every input, and a changed byte in either directory's
/// payloads is caught by that directory's checksum.
#[test]
fn the_directory_writer_writes_two_directories() {
    use npuschema_core::{Brief, WriteError};
    use twodirs::{AssetEntrySpec, AssetKind, CodeEntrySpec, CodeKind, TwoDirs, TwoDirsSpec};
    // Two sums records naming `text` (1) and `rodata` (2), their CRCs left zero.
    let sums = [1u8, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
    let code = [
        CodeEntrySpec {
            kind: CodeKind::Text,
            entsize: 0,
            align: 16,
            code_bytes: &[1, 2, 3, 4, 5],
        },
        CodeEntrySpec {
            kind: CodeKind::Rodata,
            entsize: 0,
            align: 0,
            code_bytes: b"hello world",
        },
        CodeEntrySpec {
            kind: CodeKind::Sums,
            entsize: 8,
            align: 4,
            code_bytes: &sums,
        },
    ];
    let glyphs = [
        0x41u8, 0, 0, 0, 8, 0, 12, 0, // 'A', 8 x 12
        0xE9, 0, 0, 0, 7, 0, 12, 0, // 'é', 7 x 12
    ];
    let assets = [
        AssetEntrySpec {
            kind: AssetKind::Image,
            align: 8,
            entsize: 0,
            asset_bytes: b"PIXELS",
        },
        AssetEntrySpec {
            kind: AssetKind::Font,
            align: 0,
            entsize: 8,
            asset_bytes: &glyphs,
        },
        AssetEntrySpec {
            kind: AssetKind::VendorBlob,
            align: 4,
            entsize: 0,
            asset_bytes: b"VB",
        },
        AssetEntrySpec {
            kind: AssetKind::Unknown(0x7FFF_0000),
            align: 0,
            entsize: 0,
            asset_bytes: b"??",
        },
    ];
    let spec = TwoDirsSpec {
        code: &code,
        assets: &assets,
    };
    let n = spec.encoded_len().expect("fits");
    // The header (24), the code table at 24 (3 x 16), the asset table at 72 (4 x 20), the
    // code payloads at 160 (align 16), 168 and 180, the asset payloads at 200 (align 8),
    // 208, 224 and 228.
    assert_eq!(n, 230);
    let mut buf = vec![0xEEu8; n + 5];
    assert_eq!(spec.write_into(&mut buf), Ok(n));
    let b = &buf[..n];
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let half = |at: usize| u16::from_le_bytes(b[at..at + 2].try_into().unwrap());
    assert_eq!(word(0), twodirs::MAGIC);
    assert_eq!((half(4), half(6), word(8), word(12)), (3, 4, 24, 72));
    let code_recs: Vec<(u16, u16, u32, u32, u32)> = (0..3)
        .map(|i| 24 + 16 * i)
        .map(|at| {
            (
                half(at),
                half(at + 2),
                word(at + 4),
                word(at + 8),
                word(at + 12),
            )
        })
        .collect();
    assert_eq!(
        code_recs,
        [(1, 0, 160, 5, 16), (2, 0, 168, 11, 0), (3, 8, 180, 16, 4)]
    );
    let asset_recs: Vec<[u32; 5]> = (0..4)
        .map(|i| 72 + 20 * i)
        .map(|at| {
            [
                word(at),
                word(at + 4),
                word(at + 8),
                word(at + 12),
                word(at + 16),
            ]
        })
        .collect();
    assert_eq!(
        asset_recs,
        [
            [1, 8, 200, 6, 0],
            [2, 0, 208, 16, 8],
            [0x7000_0001, 4, 224, 2, 0],
            [0x7FFF_0000, 0, 228, 2, 0]
        ]
    );
    assert_eq!(&b[160..165], &[1, 2, 3, 4, 5]);
    assert_eq!(&b[168..179], b"hello world");
    assert_eq!(&b[200..206], b"PIXELS");
    assert_eq!(&b[224..226], b"VB");
    assert_eq!(&b[228..230], b"??");
    // Gaps are zero, not the buffer's old bytes.
    assert!(b[152..160].iter().chain(&b[165..168]).all(|&x| x == 0));
    // The sums records hold each named section's CRC-32; the header both payload sums.
    assert_eq!(word(184), npuschema_core::crc32(0, &b[160..165]));
    assert_eq!(word(192), npuschema_core::crc32(0, &b[168..179]));
    let mut zeroed = b[180..196].to_vec();
    zeroed[4..8].fill(0);
    zeroed[12..16].fill(0);
    let code_sum = [&b[160..165], &b[168..179], &zeroed[..]]
        .iter()
        .fold(0, |s, p| npuschema_core::crc32(s, p));
    assert_eq!(word(16), code_sum);
    let asset_sum = [&b[200..206], &b[208..224], &b[224..226], &b[228..230]]
        .iter()
        .fold(0, |s, p| npuschema_core::crc32(s, p));
    assert_eq!(word(20), asset_sum);
    let v = TwoDirs::validate(b).expect("the writer's output validates");
    assert!(TwoDirs::validate_as::<Brief>(b).is_ok());
    let got: Vec<(CodeKind, u16, u32, &[u8])> = v
        .code()
        .map(|s| (s.kind(), s.entsize(), s.align(), s.code_bytes().unwrap()))
        .collect();
    // The sums section as given, but for the CRCs `seal` wrote into it.
    let want: Vec<(CodeKind, u16, u32, &[u8])> = code
        .iter()
        .map(|s| (s.kind, s.entsize, s.align, s.code_bytes))
        .collect();
    assert_eq!(got[..2], want[..2]);
    assert_eq!(zeroed, sums);
    assert_eq!(got[2].3, &b[180..196]);
    let got: Vec<(AssetKind, u32, u32, &[u8])> = v
        .assets()
        .map(|s| (s.kind(), s.align(), s.entsize(), s.asset_bytes().unwrap()))
        .collect();
    let want: Vec<(AssetKind, u32, u32, &[u8])> = assets
        .iter()
        .map(|s| (s.kind, s.align, s.entsize, s.asset_bytes))
        .collect();
    assert_eq!(got, want);
    let g: Vec<(u32, u16, u16)> = v
        .glyphs()
        .map(|g| (g.code_point(), g.width(), g.height()))
        .collect();
    assert_eq!(g, [(0x41, 8, 12), (0xE9, 7, 12)]);
    let s: Vec<(u16, u32)> = v.sums().map(|r| (r.target(), r.crc())).collect();
    assert_eq!(s, [(1, word(184)), (2, word(192))]);
    // A changed byte in each directory's payloads, each caught by its own checksum.
    for (at, code) in [
        (162, "section-crc-mismatch"),
        (175, "section-crc-mismatch"),
        // A sums record's reserved half: only the code payloads' CRC covers it.
        (190, "code-crc-mismatch"),
        (203, "asset-sum-mismatch"),
        (229, "asset-sum-mismatch"),
    ] {
        let mut m = b.to_vec();
        m[at] ^= 0x20;
        assert_eq!(
            TwoDirs::validate(&m).map(|_| ()).map_err(|e| e.code),
            Err(code),
            "byte {at}"
        );
    }
    // The same code checksum after a sums record's CRC changes (it is hashed as zero):
    // the records checksum catches it.
    let mut m = b.to_vec();
    m[185] ^= 1;
    assert_eq!(
        TwoDirs::validate(&m).map(|_| ()).map_err(|e| e.code),
        Err("section-crc-mismatch")
    );
    // `seal` recomputes every checksum of both directories in place.
    let mut m = b.to_vec();
    m[16..24].fill(0);
    m[184..188].fill(0);
    let code_placed = [(1, 160, 5), (2, 168, 11), (3, 180, 16)];
    let asset_placed = [
        (1, 200, 6),
        (2, 208, 16),
        (0x7000_0001, 224, 2),
        (0x7FFF_0000, 228, 2),
    ];
    TwoDirsSpec::seal(
        &mut m,
        code_placed.iter().copied(),
        asset_placed.iter().copied(),
    )
    .unwrap();
    assert_eq!(m, b);
    // No sections at all: the header and two empty tables, valid.
    let bare = TwoDirsSpec {
        code: &[],
        assets: &[],
    };
    let mut e = vec![0u8; bare.encoded_len().unwrap()];
    assert_eq!(e.len(), 24);
    bare.write_into(&mut e).unwrap();
    // Both counts zero, both tables at the end of the header.
    assert_eq!(&e[4..16], &[0, 0, 0, 0, 24, 0, 0, 0, 24, 0, 0, 0]);
    let ev = TwoDirs::validate(&e).expect("empty directories validate");
    assert_eq!((ev.code().len(), ev.assets().len()), (0, 0));
    // Failures: a short buffer, a count that does not fit its u16 field.
    assert_eq!(
        spec.write_into(&mut vec![0u8; n - 1]),
        Err(WriteError::BufferTooSmall {
            needed: n as u64,
            available: n as u64 - 1
        })
    );
    let many = vec![
        AssetEntrySpec {
            kind: AssetKind::Image,
            align: 0,
            entsize: 0,
            asset_bytes: b"",
        };
        0x1_0000
    ];
    let too_many = TwoDirsSpec {
        code: &[],
        assets: &many,
    };
    let mut big = vec![0u8; too_many.encoded_len().unwrap()];
    assert!(matches!(
        too_many.write_into(&mut big),
        Err(WriteError::TooLarge {
            field: "header.asset_count",
            value: 0x1_0000
        })
    ));
}

// ----- a per-record range flagged inside a struct-typed field (nestflag.yaml) ---------------

mod nestflag {
    npuschema_macro::include_schema!("schemas/nestflag.yaml");
}

/// The writer sets the flag bit inside each record's `tag` (a struct-typed field) that says
/// the record carries `data` bytes, and clears it for a record that does not, keeping the
/// field's other bits as the `TagValue` gives them (a `HAS_DATA` given for an absent record
/// is cleared, one left out for a present record is set); the validator accepts the bytes
/// and the views give back every input.
#[test]
fn the_writer_sets_a_flag_bit_inside_a_struct_typed_field() {
    use nestflag::{EntryData, EntrySpec, Marks, NestFlag, NestFlagWriter, SpanValue, TagValue};
    let tag = |kind: u16, marks: Marks| TagValue {
        kind,
        marks,
        level: 9,
    };
    // The span's fields are derived: whatever is given is overwritten.
    let span = SpanValue {
        offset: 0xFFFF,
        length: 0xFFFF,
    };
    let entries = [
        EntrySpec {
            tag: tag(1, Marks::HIDDEN),
            span,
            value: 10,
            data: EntryData::Present(b"abc"),
        },
        EntrySpec {
            tag: tag(
                2,
                Marks::from_bits_retain(Marks::HAS_DATA.bits() | Marks::HIDDEN.bits()),
            ),
            span: SpanValue {
                offset: 0,
                length: 7,
            },
            value: 20,
            data: EntryData::Absent(0),
        },
        EntrySpec {
            tag: tag(3, Marks::HAS_DATA),
            span,
            value: 30,
            data: EntryData::Present(b"de"),
        },
    ];
    // The table goes after the header, `entries_at` set to where.
    let w = NestFlagWriter::new().entries(&entries);
    let b = w.to_vec().expect("writes");
    // The header (12), three entries at 12 (48 bytes), `abc` at 60, `de` at 64.
    assert_eq!(b.len(), 66);
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    // Each entry's tag: kind, marks (HAS_DATA set for 0 and 2, cleared for 1; HIDDEN kept), level.
    assert_eq!(&b[12..16], &[1, 0, 0b1001, 9]);
    assert_eq!(&b[28..32], &[2, 0, 0b1000, 9]);
    assert_eq!(&b[44..48], &[3, 0, 0b0001, 9]);
    assert_eq!((word(16), word(20)), (60, 3));
    // An absent record's span: its length as `Absent` gives it, its offset as the value gave it.
    assert_eq!((word(32), word(36)), (0, 0));
    assert_eq!((word(48), word(52)), (64, 2));
    assert_eq!(&b[60..66], b"abc\0de");
    let v = NestFlag::validate(&b).expect("the writer's output validates");
    assert!(NestFlag::validate_as::<npuschema_core::Brief>(&b).is_ok());
    let got: Vec<(u16, u8, u32, Option<&[u8]>)> = v
        .entries()
        .map(|e| (e.tag().kind(), e.tag().marks().bits(), e.value(), e.data()))
        .collect();
    assert_eq!(
        got,
        [
            (1, 0b1001, 10, Some(&b"abc"[..])),
            (2, 0b1000, 20, None),
            (3, 0b0001, 30, Some(&b"de"[..]))
        ]
    );
    // The bit is what the validator reads: set by hand on entry 1, its empty span is an
    // `empty-data` error; cleared on entry 0, its bytes are no longer handed out.
    let mut m = b.clone();
    m[30] |= 1;
    assert_eq!(
        NestFlag::validate(&m).map(|_| ()).map_err(|e| e.code),
        Err("empty-data")
    );
    let mut m = b.clone();
    m[14] &= !1;
    let v = NestFlag::validate(&m).expect("valid without entry 0's data");
    assert_eq!(v.entries().next().map(|e| e.data()), Some(None));
}

mod whenw {
    npuschema_macro::include_schema!("schemas/whenw.yaml");
}

#[test]
fn the_writer_checks_the_conditions_of_its_optional_parts() {
    use npuschema_core::WriteError;
    use whenw::{Kind, MarkSpec, TagSpec, WFlags, WhenW, WhenWWriter};
    let tags = [TagSpec { id: 7, value: 70 }, TagSpec { id: 8, value: 80 }];
    // Every condition true: version 3 (tags, ext), an `ext` file with HAS_EXTRA (extra);
    // HAS_NOTES is set by the writer because notes are given.
    let b = WhenWWriter::new()
        .version(3)
        .kind(Kind::Ext)
        .flags(WFlags::HAS_EXTRA)
        .tags(&tags)
        .ext(b"ext!!")
        .extra(b"xy")
        .notes(b"n")
        .to_vec()
        .expect("writes");
    let v = WhenW::validate(&b).expect("valid");
    assert!(WhenW::validate_as::<Brief>(&b).is_ok());
    let h = v.header();
    assert_eq!((h.version(), h.kind(), h.tag_count()), (3, Kind::Ext, 2));
    assert_eq!(h.flags(), WFlags::HAS_EXTRA.union(WFlags::HAS_NOTES));
    let got: Vec<(u32, u32)> = v.tags().map(|t| (t.id(), t.value())).collect();
    assert_eq!(got, [(7, 70), (8, 80)]);
    assert_eq!(v.ext(), Some(&b"ext!!"[..]));
    assert_eq!(v.extra(), Some(&b"xy"[..]));
    assert_eq!(v.notes(), Some(&b"n"[..]));
    // Laid out after the header (36) and the tags (16), each range aligned to 4.
    assert_eq!((h.ext_offset(), h.ext_size()), (52, 5));
    assert_eq!((h.extra_offset(), h.extra_size()), (60, 2));
    assert_eq!((h.notes_offset(), h.notes_size()), (64, 1));
    assert_eq!(b.len(), 65);
    // Encoded length and write_into agree.
    let w = WhenWWriter::new().version(2).ext(b"e");
    let n = w.encoded_len().expect("fits");
    let mut buf = vec![0u8; n];
    assert_eq!(w.write_into(&mut buf), Ok(n));
    assert_eq!(WhenW::validate(&buf).expect("valid").ext(), Some(&b"e"[..]));

    // The marks table's condition is one flag bit: the writer sets HAS_MARKS when the marks
    // are given (at 68, the ranges after them), and clears it when they are not.
    let marks = [MarkSpec { code: 0xA }, MarkSpec { code: 0xB }];
    let b = WhenWWriter::new()
        .version(2)
        .marks(&marks)
        .ext(b"e")
        .to_vec()
        .expect("writes");
    let v = WhenW::validate(&b).expect("valid");
    assert!(WhenW::validate_as::<Brief>(&b).is_ok());
    assert_eq!(v.header().flags(), WFlags::HAS_MARKS);
    assert_eq!(v.header().mark_count(), 2);
    let got: Vec<u32> = v.marks().map(|m| m.code()).collect();
    assert_eq!(got, [0xA, 0xB]);
    assert_eq!(
        v.marks().next().map(|m| m.as_bytes().as_ptr()),
        Some(b[68..].as_ptr())
    );
    assert_eq!((v.header().ext_offset(), v.ext()), (76, Some(&b"e"[..])));
    // More tags than fit before the marks: the marks cannot be placed.
    let five = [tags[0]; 5];
    assert_eq!(
        WhenWWriter::new()
            .version(3)
            .tags(&five)
            .marks(&marks)
            .ext(b"")
            .to_vec(),
        Err(WriteError::Layout { item: "marks" })
    );

    // Every condition false: version 1, a `base` file; nothing optional given, so the parts
    // take no bytes and their fields are zero (HAS_EXTRA given is kept: `kind` is base;
    // HAS_NOTES and HAS_MARKS given are cleared).
    let b = WhenWWriter::new()
        .version(1)
        .flags(
            WFlags::HAS_EXTRA
                .union(WFlags::HAS_NOTES)
                .union(WFlags::HAS_MARKS),
        )
        .to_vec()
        .expect("writes");
    let v = WhenW::validate(&b).expect("valid");
    assert!(WhenW::validate_as::<Brief>(&b).is_ok());
    let h = v.header();
    assert_eq!(b.len(), 36);
    assert_eq!(h.flags(), WFlags::HAS_EXTRA);
    assert_eq!(
        (
            h.tag_count(),
            h.mark_count(),
            h.ext_offset(),
            h.ext_size(),
            h.extra_size()
        ),
        (0, 0, 0, 0, 0)
    );
    assert_eq!(v.marks().count(), 0);
    assert_eq!((v.ext(), v.extra(), v.notes()), (None, None, None));
    // Version 3 with no tags given at all is a disagreement, with the empty list is not.
    let e = WhenWWriter::new().version(3).ext(b"e").to_vec();
    assert_eq!(
        e,
        Err(WriteError::WhenDisagrees {
            part: "tags",
            given: false
        })
    );
    let b = WhenWWriter::new()
        .version(3)
        .tags(&[])
        .ext(b"e")
        .to_vec()
        .expect("writes");
    assert_eq!(WhenW::validate(&b).expect("valid").tags().count(), 0);

    // Each disagreement, given and left out.
    let cases: [(WhenWWriter<'_>, &str, bool); 6] = [
        (
            WhenWWriter::new().version(2).tags(&tags).ext(b"e"),
            "tags",
            true,
        ),
        (WhenWWriter::new().version(1).ext(b"e"), "ext", true),
        (WhenWWriter::new().version(2), "ext", false),
        (
            WhenWWriter::new().version(1).kind(Kind::Ext).extra(b"x"),
            "extra",
            true,
        ),
        (
            WhenWWriter::new()
                .version(1)
                .flags(WFlags::HAS_EXTRA)
                .extra(b"x"),
            "extra",
            true,
        ),
        (
            WhenWWriter::new()
                .version(1)
                .kind(Kind::Ext)
                .flags(WFlags::HAS_EXTRA),
            "extra",
            false,
        ),
    ];
    for (w, part, given) in cases {
        let want = Err(WriteError::WhenDisagrees { part, given });
        assert_eq!(w.to_vec(), want, "{part} given {given}");
        let mut buf = vec![0u8; w.encoded_len().expect("sized")];
        assert_eq!(
            w.write_into(&mut buf).map(|_| ()),
            want.map(|_: Vec<u8>| ())
        );
    }
    assert_eq!(
        WriteError::WhenDisagrees {
            part: "ext",
            given: false
        }
        .to_string(),
        "when-disagrees: ext is left out but its condition is true"
    );
}

// ----- strides and fixed counts in the writer (strided.yaml) --------------------------------

mod strided {
    npuschema_macro::include_schema!("schemas/strided.yaml");
}

/// A table's `stride` that is a header field is set to the record's size, and a `count` the
/// schema fixes is checked against the records given (`WriteError::WrongCount`). (Before, the
/// stride field was an input the writer ignored, and any number of records was written for a
/// fixed count: files the validator rejected.)
#[test]
fn the_writer_honours_strides_and_fixed_counts() {
    use npuschema_core::WriteError;
    use strided::{ItemSpec, SlotSpec, Strided, StridedWriter};
    let items = [
        ItemSpec { id: 1, weight: 10 },
        ItemSpec { id: 2, weight: 20 },
    ];
    let slots = [
        SlotSpec { base: 0, limit: 4 },
        SlotSpec { base: 8, limit: 8 },
        SlotSpec {
            base: 1,
            limit: 0xFFFF,
        },
    ];
    let b = StridedWriter::new()
        .items(&items)
        .slots(&slots)
        .to_vec()
        .expect("writes");
    // The header (20), the items at 20 (2 x 8), the slots at 36 (3 x 8).
    assert_eq!(b.len(), 60);
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!(&b[4..8], &[2, 0, 8, 0]);
    assert_eq!((word(8), word(12), word(16)), (20, 36, 60));
    assert_eq!(
        (20..36).step_by(4).map(word).collect::<Vec<_>>(),
        [1, 10, 2, 20]
    );
    let slot_words: Vec<u32> = (36..60).step_by(4).map(word).collect();
    assert_eq!(slot_words, [0, 4, 8, 8, 1, 0xFFFF]);
    let v = Strided::validate(&b).expect("the writer's output validates");
    assert!(Strided::validate_as::<npuschema_core::Brief>(&b).is_ok());
    let got: Vec<(u32, u32)> = v.slots().map(|s| (s.base(), s.limit())).collect();
    assert_eq!(got, [(0, 4), (8, 8), (1, 0xFFFF)]);
    let got: Vec<(u32, u32)> = v.items().map(|s| (s.id(), s.weight())).collect();
    assert_eq!(got, [(1, 10), (2, 20)]);
    // Two slots where the schema fixes three.
    assert_eq!(
        StridedWriter::new()
            .items(&items)
            .slots(&slots[..2])
            .to_vec(),
        Err(WriteError::WrongCount {
            table: "slots",
            expected: 3,
            given: 2
        })
    );
    assert_eq!(
        WriteError::WrongCount {
            table: "slots",
            expected: 3,
            given: 2
        }
        .to_string(),
        "wrong-count: slots has 3 records, 2 given"
    );
}

mod plainloc {
    npuschema_macro::include_schema!("schemas/plainloc.yaml");
}

/// The plain writer (no section directory) places located records where `writer.order`
/// names them, as the directory writer does: `info` (its place in the header's
/// `info_offset`) and the version-gated `extra` (its place in `info.extra_offset`, laid out
/// by `info.version`); every place, count and length field derived, `info.kind` set to the
/// value its `expect` fixes, the CRC-32 patched. The bytes are the ones laid out by hand
/// (`construct_blobs::plainloc_file`), both validators accept them, the views give back
/// every input, and the failures fail closed.
#[test]
fn the_plain_writer_places_located_records() {
    use npuschema_tests::construct_blobs::plainloc_file;
    use plainloc::{ItemSpec, PlainLoc, PlainLocWriter};
    let items = [ItemSpec { id: 1, value: -2 }, ItemSpec { id: 3, value: 4 }];
    let w = PlainLocWriter::new()
        .flags(0x11)
        .level(3)
        .info_version(2)
        .extra_base(0xB0B1_B2B3)
        .extra_added(0xA0A1_A2A3)
        .extra_old(0xC0C1)
        .extra_tail(0x50)
        .items(&items)
        .body(b"hello");
    let n = w.encoded_len().expect("fits");
    // The header (16), the items at 16..32, `info` at 32..52, the body at 52..57, `extra` at
    // 60 in its version-2 layout (base, added, old, tail: 11 bytes).
    assert_eq!(n, 71);
    let mut buf = vec![0xEEu8; n + 5];
    assert_eq!(w.write_into(&mut buf), Ok(n));
    let b = &buf[..n];
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!(word(4), 32, "header.info_offset");
    assert_eq!(
        &b[32..36],
        b"\x07\x00\x02\x00",
        "info.kind, info.item_count"
    );
    let info: Vec<u32> = (36..52).step_by(4).map(word).collect();
    assert_eq!(info, [2, 60, 52, 5]);
    assert_eq!(&b[52..60], b"hello\0\0\0");
    assert_eq!(&b[60..71], b"\xB3\xB2\xB1\xB0\xA3\xA2\xA1\xA0\xC1\xC0\x50");
    assert_eq!(word(12), npuschema_core::crc32(0, &b[16..]));
    let by_hand = plainloc_file(
        (0x11, 3),
        2,
        &[(1, -2), (3, 4)],
        b"hello",
        (0xB0B1_B2B3, 0xA0A1_A2A3, 0xC0C1, 0x50),
    );
    assert_eq!(b, &by_hand[..]);
    let v = PlainLoc::validate(b).expect("the writer's output validates");
    assert!(PlainLoc::validate_as::<npuschema_core::Brief>(b).is_ok());
    let h = v.header();
    assert_eq!((h.flags(), h.level()), (0x11, 3));
    assert_eq!(v.info().version(), 2);
    let x = v.extra();
    assert_eq!(
        (x.base(), x.added(), x.old(), x.tail()),
        (0xB0B1_B2B3, Some(0xA0A1_A2A3), Some(0xC0C1), 0x50)
    );
    let got: Vec<(u32, i32)> = v.items().map(|r| (r.id(), r.value())).collect();
    assert_eq!(got, [(1, -2), (3, 4)]);
    assert_eq!(v.body(), b"hello");
    // Each layout of `extra`: without `added` (version 0), without `old` (version 3); with
    // no items and an empty body, `info` follows the header and `extra` follows `info`.
    for (version, tail) in [
        (0u32, &b"\x01\0\0\0\x03\0\x04"[..]),
        (3, b"\x01\0\0\0\x02\0\0\0\x04"),
    ] {
        let e = PlainLocWriter::new()
            .info_version(version)
            .extra_base(1)
            .extra_added(2)
            .extra_old(3)
            .extra_tail(4)
            .body(b"")
            .to_vec()
            .expect("writes");
        assert_eq!(&e[4..8], &16u32.to_le_bytes(), "header.info_offset");
        assert_eq!(
            &e[24..32],
            b"\x24\0\0\0\x24\0\0\0",
            "info.extra_offset, info.body_offset"
        );
        assert_eq!(&e[36..], tail);
        assert_eq!(e, plainloc_file((0, 0), version, &[], b"", (1, 2, 3, 4)));
        let x = PlainLoc::validate(&e).expect("valid").extra();
        assert_eq!(x.added().is_some(), version >= 2);
        assert_eq!(x.old().is_some(), version < 3);
    }
    // The gate is computed from the input: `info.version & 0xFFFF`, so version 0x0001_0003
    // lays `extra` out as version 3 does (without `old`).
    let e = PlainLocWriter::new()
        .info_version(0x0001_0003)
        .extra_base(1)
        .extra_added(2)
        .extra_old(3)
        .extra_tail(4)
        .body(b"")
        .to_vec()
        .expect("writes");
    assert_eq!(&e[36..], b"\x01\0\0\0\x02\0\0\0\x04");
    let x = PlainLoc::validate(&e).expect("valid").extra();
    assert_eq!((x.added(), x.old()), (Some(2), None));
    // A short buffer, and more items than `info.item_count` (a u16) holds, fail closed.
    assert_eq!(
        w.write_into(&mut buf[..n - 1]),
        Err(npuschema_core::WriteError::BufferTooSmall {
            needed: 71,
            available: 70
        })
    );
    let many = vec![ItemSpec { id: 0, value: 0 }; 65_536];
    assert!(matches!(
        w.items(&many).to_vec(),
        Err(npuschema_core::WriteError::TooLarge {
            field: "info.item_count",
            value: 65_536
        })
    ));
}

mod dirgate {
    npuschema_macro::include_schema!("schemas/dirgate.yaml");
}

/// Next to a directory, a version-gated record whose gate is computed from the spec's values
/// (`(header.version >> 16) - 1`): the writer computes it with checked arithmetic and lays
/// the record out by it; and each section's name in the string table `names`, which the
/// writer builds from the `&str` each `SectionSpec` gives, setting each `name_offset`. The
/// bytes are the ones laid out by hand (`construct_blobs::dirgate_file`), both validators
/// accept them and the views give back every input; a version whose gate underflows is
/// refused, as are a name with a NUL and a short buffer.
#[test]
fn the_directory_writer_computes_a_version_gate_and_names_its_sections() {
    use dirgate::{DirGate, DirGateSpec, Kind, SectionSpec};
    use npuschema_tests::construct_blobs::dirgate_file;
    let sections = [
        SectionSpec {
            kind: Kind::Code,
            entsize: 0,
            name: "text",
            payload: b"CODE!",
        },
        SectionSpec {
            kind: Kind::Data,
            entsize: 4,
            name: "dät",
            payload: b"dd",
        },
    ];
    let spec = DirGateSpec {
        version: 0x0002_0005,
        fixed_base: 0xB0B1_B2B3,
        fixed_added: 0xC0C1,
        fixed_tail: 0x50,
        sections: &sections,
    };
    // The header (28), the directory at 28..60, `fixed` at 60 in the layout of gate 1
    // (base, added, tail: 7 bytes), the names at 68 ("text\0dät\0", 10 bytes), the payloads
    // at 80 and 88.
    let n = spec.encoded_len().expect("fits");
    assert_eq!(n, 90);
    let mut buf = vec![0xEEu8; n + 1];
    assert_eq!(spec.write_into(&mut buf), Ok(n));
    let b = &buf[..n];
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!((word(16), word(20), word(24)), (60, 68, 10), "fixed, names");
    assert_eq!((word(40), word(56)), (0, 5), "each section's name_offset");
    assert_eq!(&b[60..67], b"\xB3\xB2\xB1\xB0\xC1\xC0\x50");
    assert_eq!(&b[68..78], "text\0dät\0".as_bytes());
    assert_eq!(&b[80..85], b"CODE!");
    assert_eq!(&b[88..90], b"dd");
    let hand = [
        (1u16, 0u16, &b"text"[..], &b"CODE!"[..]),
        (2, 4, "dät".as_bytes(), b"dd"),
    ];
    assert_eq!(
        b,
        &dirgate_file(0x0002_0005, &hand, (0xB0B1_B2B3, 0xC0C1, 0x50))[..]
    );
    let v = DirGate::validate(b).expect("the writer's output validates");
    assert!(DirGate::validate_as::<npuschema_core::Brief>(b).is_ok());
    let x = v.fixed();
    assert_eq!(
        (x.gate(), x.base(), x.added(), x.tail()),
        (1, 0xB0B1_B2B3, Some(0xC0C1), 0x50)
    );
    assert_eq!(v.header().version(), 0x0002_0005);
    let got: Vec<(Kind, u16, &str, &[u8])> = v
        .sections()
        .map(|s| {
            (
                s.kind(),
                s.entsize(),
                v.name_str(&s).unwrap_or_default(),
                s.payload().unwrap_or_default(),
            )
        })
        .collect();
    let want: Vec<(Kind, u16, &str, &[u8])> = sections
        .iter()
        .map(|s| (s.kind, s.entsize, s.name, s.payload))
        .collect();
    assert_eq!(got, want);
    // Major version 1: gate 0, `fixed` without `added` (5 bytes at 60).
    let e = DirGateSpec {
        version: 0x0001_FFFF,
        ..spec
    }
    .to_vec()
    .expect("writes");
    assert_eq!(&e[60..65], b"\xB3\xB2\xB1\xB0\x50");
    assert_eq!(
        e,
        dirgate_file(0x0001_FFFF, &hand, (0xB0B1_B2B3, 0xC0C1, 0x50))
    );
    let x = DirGate::validate(&e).expect("valid").fixed();
    assert_eq!((x.gate(), x.added()), (0, None));
    // Major version 0: the gate `0 - 1` underflows; the writer refuses (the validator
    // would reject any file it wrote).
    let zero = DirGateSpec {
        version: 0x0000_FFFF,
        ..spec
    };
    let err = Err(npuschema_core::WriteError::TooLarge {
        field: "fixed.gate",
        value: u64::MAX,
    });
    assert_eq!(zero.encoded_len(), err);
    assert_eq!(zero.write_into(&mut buf), err);
    assert!(DirGate::validate(&dirgate_file(0x0000_FFFF, &[], (1, 2, 3))).is_err());
    let nul = [SectionSpec {
        name: "a\0b",
        ..sections[0]
    }];
    assert_eq!(
        DirGateSpec {
            sections: &nul,
            ..spec
        }
        .to_vec(),
        Err(npuschema_core::WriteError::Layout { item: "name" })
    );
    assert!(matches!(
        spec.write_into(&mut buf[..n - 1]),
        Err(npuschema_core::WriteError::BufferTooSmall { .. })
    ));
}

// ----- a directory's records' strings outside a string table (dirlabel.yaml) -----------------

mod dirlabel {
    npuschema_macro::include_schema!("schemas/dirlabel.yaml");
}

/// A string of each directory record outside any string table: the directory writer takes
/// it in the record's spec, places every record's string back to back where `writer.order`
/// names the string (each with its NUL) and sets each record's offset field; the validator
/// accepts the bytes and the views give every label back. A NUL inside a label is refused.
#[test]
fn the_directory_writer_places_its_records_strings() {
    use dirlabel::{DirLabel, DirLabelSpec, Kind, SectionSpec};
    let sections = [
        SectionSpec {
            kind: Kind::Code,
            entsize: 0,
            label: "text",
            payload: b"CODE!",
        },
        SectionSpec {
            kind: Kind::Unknown(9),
            entsize: 0,
            label: "",
            payload: b"",
        },
        SectionSpec {
            kind: Kind::Data,
            entsize: 0,
            label: "dätä",
            payload: b"dd",
        },
    ];
    let spec = DirLabelSpec {
        sections: &sections,
    };
    let b = spec.to_vec().expect("writes");
    // The header (12), the directory at 12 (3 x 16), the payloads at 60 and 68 (the empty one
    // at 68 too), the labels at 72: "text\0", "\0", "dätä\0".
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!((word(4), word(8)), (3, 12));
    let labels: Vec<u32> = (0..3).map(|i| word(12 + 16 * i + 12)).collect();
    assert_eq!(labels, [72, 77, 78]);
    assert_eq!(&b[72..], "text\0\0dätä\0".as_bytes());
    let v = DirLabel::validate(&b).expect("the writer's output validates");
    assert!(DirLabel::validate_as::<npuschema_core::Brief>(&b).is_ok());
    let got: Vec<(Kind, &str, &[u8])> = v
        .sections()
        .map(|s| {
            (
                s.kind(),
                v.label_str(&s).unwrap(),
                s.payload().unwrap_or_default(),
            )
        })
        .collect();
    let want: Vec<(Kind, &str, &[u8])> = sections
        .iter()
        .map(|s| (s.kind, s.label, s.payload))
        .collect();
    assert_eq!(got, want);
    let bad = [SectionSpec {
        kind: Kind::Code,
        entsize: 0,
        label: "a\0b",
        payload: b"",
    }];
    assert!(DirLabelSpec { sections: &bad }.to_vec().is_err());
}

// ----- a table placed by a field of a located record (loctable.yaml) -------------------------

mod loctable {
    npuschema_macro::include_schema!("schemas/loctable.yaml");
}

/// The plain writer places a table whose `at` is a field of a located record at the cursor
/// (aligned) and sets that field, as it does for a table placed by a header field; it also
/// sets the record's count and record-size fields, and the place of a string whose offset is
/// another of its fields; a record at `len - <its size>` is placed last, ending the file. The
/// bytes equal a file laid out by hand; the validator accepts them
/// and the views give every input back.
#[test]
fn the_plain_writer_places_a_table_by_a_located_records_field() {
    use loctable::{EntrySpec, LocTable, LocTableWriter, NoteSpec};
    let entries = [
        EntrySpec { id: 1, value: -2 },
        EntrySpec { id: 3, value: 4 },
        EntrySpec {
            id: 0xFFFF_FFFF,
            value: i32::MIN,
        },
    ];
    let notes = [NoteSpec { word: 0x0102_0304 }];
    let w = LocTableWriter::new()
        .level(5)
        .index_owner(0xDEAD_BEEF)
        .entries(&entries)
        .notes(&notes)
        .title("Tafel");
    let n = w.encoded_len().expect("fits");
    // The header (20), `notes` at 24..28 (aligned to 8), `index` at 32..48, `entries` at
    // 48..72, the title at 72..78 with its NUL, `footer` right after it, at 78..86.
    assert_eq!(n, 86);
    let mut buf = vec![0xEEu8; n + 3];
    assert_eq!(w.write_into(&mut buf), Ok(n));
    let b = &buf[..n];
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let half = |at: usize| u16::from_le_bytes(b[at..at + 2].try_into().unwrap());
    assert_eq!((word(4), word(8), half(12), half(14)), (32, 24, 1, 5));
    assert_eq!(word(24), 0x0102_0304);
    assert_eq!(&b[28..32], &[0; 4], "padding before `index`");
    assert_eq!(
        (word(32), half(36), half(38), word(40), word(44)),
        (48, 3, 8, 0xDEAD_BEEF, 72),
        "index: entries_at, entry_count, entry_size, owner, title_at"
    );
    assert_eq!(&b[72..78], b"Tafel\0");
    assert_eq!(
        (word(78), word(82)),
        (0x444E_4521, 86),
        "footer: end_magic, total"
    );
    // The CRC-32 over the entries, its span read from `index` as written.
    assert_eq!(word(16), npuschema_core::crc32(0, &b[48..72]));
    assert_eq!(
        b,
        npuschema_tests::construct_blobs::loctable_file(
            5,
            0xDEAD_BEEF,
            &[(1, -2), (3, 4), (0xFFFF_FFFF, i32::MIN)],
            &[0x0102_0304],
            "Tafel"
        )
    );
    let got: Vec<(u32, i32)> = (0..3)
        .map(|k| (word(48 + 8 * k), word(52 + 8 * k) as i32))
        .collect();
    assert_eq!(got, [(1, -2), (3, 4), (0xFFFF_FFFF, i32::MIN)]);
    let v = LocTable::validate(b).expect("the writer's output validates");
    assert!(LocTable::validate_as::<npuschema_core::Brief>(b).is_ok());
    let x = v.index();
    assert_eq!(
        (x.entries_at(), x.entry_count(), x.entry_size(), x.owner()),
        (48, 3, 8, 0xDEAD_BEEF)
    );
    assert_eq!(v.entries_crc_computed(), v.header().entries_crc());
    let back: Vec<(u32, i32)> = v.entries().map(|r| (r.id(), r.value())).collect();
    assert_eq!(back, [(1, -2), (3, 4), (0xFFFF_FFFF, i32::MIN)]);
    assert_eq!(
        v.notes().map(|r| r.word()).collect::<Vec<_>>(),
        [0x0102_0304]
    );
    // No entries: the table is placed after `index` all the same, empty; an empty title is
    // its NUL.
    let e = LocTableWriter::new().title("").to_vec().expect("writes");
    assert_eq!(e.len(), 49);
    assert_eq!(&e[41..], b"!END\x31\0\0\0", "footer at len - 8");
    assert_eq!(&e[24..28], &40u32.to_le_bytes(), "index.entries_at");
    assert_eq!(&e[28..30], &0u16.to_le_bytes(), "index.entry_count");
    assert_eq!(&e[36..40], &40u32.to_le_bytes(), "index.title_at");
    assert_eq!(&e[16..20], &npuschema_core::crc32(0, b"").to_le_bytes());
    assert!(LocTable::validate(&e).is_ok());
    // A count past the field's u16: refused, nothing written.
    let many = vec![EntrySpec { id: 1, value: 0 }; 65_536];
    assert!(matches!(
        LocTableWriter::new().entries(&many).to_vec(),
        Err(npuschema_core::WriteError::TooLarge {
            field: "index.entry_count",
            value: 65_536
        })
    ));
    // A NUL inside the title: refused.
    assert!(LocTableWriter::new().title("a\0b").to_vec().is_err());
    // A buffer one byte short: refused.
    let mut short = vec![0u8; n - 1];
    assert!(matches!(
        w.write_into(&mut short),
        Err(npuschema_core::WriteError::BufferTooSmall { .. })
    ));
}

// ----- a second per-record range of a directory table (dirrel.yaml) --------------------------

mod dirrel {
    npuschema_macro::include_schema!("schemas/dirrel.yaml");
}

/// A directory table with a second per-record range besides its payloads: each section's
/// spec gives its relocation bytes (or the length recorded without them); the directory
/// writer places them after the payloads where `writer.order` names the range, sets each
/// record's offset, length and `HAS_RELOCS` flag, and `seal` computes the CRC-32 over the
/// payloads alone. The bytes equal a file laid out by hand; the validator accepts them and
/// the views give every input back.
#[test]
fn the_directory_writer_writes_a_second_per_record_range() {
    use dirrel::{DirRel, DirRelSpec, Kind, SectionFlags, SectionRelocs, SectionSpec};
    use npuschema_tests::construct_blobs::dirrel_file;
    let sections = [
        SectionSpec {
            kind: Kind::Code,
            flags: SectionFlags::WRITABLE,
            entsize: 0,
            relocs: SectionRelocs::Present(b"RELOC001RELOC002"),
            payload: b"CODE!",
        },
        SectionSpec {
            kind: Kind::Data,
            // Its HAS_RELOCS given but it has none: the writer clears it.
            flags: SectionFlags::WRITABLE.union(SectionFlags::HAS_RELOCS),
            entsize: 0,
            relocs: SectionRelocs::Absent(0),
            payload: b"dd",
        },
        SectionSpec {
            kind: Kind::Note,
            flags: SectionFlags::empty(),
            entsize: 0,
            relocs: SectionRelocs::Present(b"RELOC003"),
            payload: b"",
        },
    ];
    let spec = DirRelSpec {
        info_build: 0xB1D,
        title: b"rel",
        sections: &sections,
    };
    let n = spec.encoded_len().expect("fits");
    // The header (20), `info` at 20, the directory at 28 (3 x 24), the payloads at 100 and
    // 108 (the empty one at 112), the relocations at 112 and 128, the title at 136.
    assert_eq!(n, 140);
    let b = spec.to_vec().expect("writes");
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let half = |at: usize| u16::from_le_bytes(b[at..at + 2].try_into().unwrap());
    let recs: Vec<(u16, u16, u32, u32, u32, u32)> = (0..3)
        .map(|i| {
            let r = 28 + 24 * i;
            (
                half(r),
                half(r + 2),
                word(r + 4),
                word(r + 8),
                word(r + 12),
                word(r + 16),
            )
        })
        .collect();
    assert_eq!(
        recs,
        [
            (1, 0x11, 100, 5, 112, 16),
            (2, 0x10, 108, 2, 0, 0),
            (3, 1, 112, 0, 128, 8)
        ]
    );
    assert_eq!(&b[112..140], b"RELOC001RELOC002RELOC003rel\0");
    assert_eq!(
        (word(16), word(20), word(24)),
        (20, 0xB1D, 136),
        "info_at, info"
    );
    assert_eq!(
        word(12),
        npuschema_core::crc32(npuschema_core::crc32(0, b"CODE!"), b"dd")
    );
    assert_eq!(
        b,
        dirrel_file(
            0xB1D,
            &[
                (1, 0x10, 0, b"CODE!", Ok(b"RELOC001RELOC002")),
                (2, 0x10, 0, b"dd", Err(0)),
                (3, 0, 0, b"", Ok(b"RELOC003")),
            ],
            "rel"
        )
    );
    let v = DirRel::validate(&b).expect("the writer's output validates");
    assert!(DirRel::validate_as::<npuschema_core::Brief>(&b).is_ok());
    type Got<'a> = (Kind, SectionFlags, &'a [u8], Option<&'a [u8]>);
    let got: Vec<Got> = v
        .sections()
        .map(|s| {
            (
                s.kind(),
                s.flags(),
                s.payload().unwrap_or_default(),
                s.relocs(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                Kind::Code,
                SectionFlags::HAS_RELOCS.union(SectionFlags::WRITABLE),
                &b"CODE!"[..],
                Some(&b"RELOC001RELOC002"[..])
            ),
            (Kind::Data, SectionFlags::WRITABLE, &b"dd"[..], None),
            (
                Kind::Note,
                SectionFlags::HAS_RELOCS,
                &b""[..],
                Some(&b"RELOC003"[..])
            ),
        ]
    );
    // Relocations whose size is not a multiple of 8: written as given, and the validator's
    // `bad-relocs` rejects them (the writer does not check a rule it cannot derive).
    let odd = [SectionSpec {
        kind: Kind::Code,
        flags: SectionFlags::empty(),
        entsize: 0,
        relocs: SectionRelocs::Present(b"xyz"),
        payload: b"p",
    }];
    let e = DirRelSpec {
        info_build: 0,
        title: b"",
        sections: &odd,
    }
    .to_vec()
    .expect("writes");
    assert_eq!(
        DirRel::validate(&e).map(|_| ()).map_err(|e| e.code()),
        Err("bad-relocs")
    );
    assert_eq!(v.info().build(), 0xB1D);
    assert_eq!(v.title(), b"rel");
    // A buffer one byte short: refused.
    let mut short = vec![0u8; n - 1];
    assert!(matches!(
        spec.write_into(&mut short),
        Err(npuschema_core::WriteError::BufferTooSmall { .. })
    ));
}

mod dirwhen {
    npuschema_macro::include_schema!("schemas/dirwhen.yaml");
}

/// `dirwhen.yaml`: a directory writer's optional parts. A section's payload is there only
/// when its kind is not `nobits` (checked on each record written), a blob's only when its
/// HAS_DATA bit is set (set or cleared by the writer from whether the payload is given); a
/// range there from version 2 on, one behind a header flag bit, a table there from version 3
/// on, one behind a header flag bit. Written with every part and with none, both validators
/// accept the bytes, the views give back every input (a part left out takes no bytes and its
/// offset, size and count fields are zero), and each disagreement is its `WriteError`.
#[test]
fn the_directory_writer_writes_optional_parts() {
    use dirwhen::{
        BFlags, BlobSpec, DirWhen, DirWhenSpec, HFlags, Kind, MarkSpec, SectionSpec, TagSpec,
    };
    use npuschema_core::WriteError;
    let sections = [
        SectionSpec {
            kind: Kind::Code,
            entsize: 0,
            data: Some(b"abcde"),
        },
        SectionSpec {
            kind: Kind::Nobits,
            entsize: 0,
            data: None,
        },
        SectionSpec {
            kind: Kind::Data,
            entsize: 2,
            data: Some(b"xy"),
        },
    ];
    // HAS_DATA given on a blob without bytes is cleared; KEEP is kept.
    let blobs = [
        BlobSpec {
            id: 0x7000_0001,
            flags: BFlags::KEEP,
            entsize: 0,
            blob_bytes: Some(b"BLOB"),
        },
        BlobSpec {
            id: 5,
            flags: BFlags::HAS_DATA.union(BFlags::KEEP),
            entsize: 0,
            blob_bytes: None,
        },
    ];
    let marks = [MarkSpec { code: 0xA }, MarkSpec { code: 0xB }];
    let tags = [TagSpec { id: 7, value: 70 }];
    let all = DirWhenSpec {
        version: 3,
        flags: HFlags::empty(),
        marks: Some(&marks),
        tags: Some(&tags),
        ext: Some(b"ext"),
        notes: Some(b"n"),
        sections: &sections,
        blobs: &blobs,
    };
    let b = all.to_vec().expect("writes");
    let n = all.encoded_len().expect("sized");
    let mut buf = vec![0u8; n];
    assert_eq!(all.write_into(&mut buf), Ok(n));
    assert_eq!(buf, b);
    let v = DirWhen::validate(&b).expect("valid");
    assert!(DirWhen::validate_as::<Brief>(&b).is_ok());
    let h = v.header();
    // The header flag bits of the given `notes` and `tags` are set by the writer.
    assert_eq!(h.flags(), HFlags::HAS_NOTES.union(HFlags::HAS_TAGS));
    assert_eq!(
        (
            h.version(),
            h.section_count(),
            h.blob_count(),
            h.mark_count(),
            h.tag_count()
        ),
        (3, 3, 2, 2, 1)
    );
    // Header 52, sections 52..88, blobs 88..120, marks 120..128, tags 128..136, then the
    // payloads (the nobits section takes none), the blob bytes, ext and notes, each at 4.
    assert_eq!(
        (h.section_at(), h.blob_at(), h.marks_at(), h.tags_at()),
        (52, 88, 120, 128)
    );
    let got: Vec<_> = v
        .sections()
        .map(|s| (s.kind(), s.entsize(), s.offset(), s.size(), s.data()))
        .collect();
    assert_eq!(
        got,
        [
            (Kind::Code, 0, 136, 5, Some(&b"abcde"[..])),
            (Kind::Nobits, 0, 0, 0, None),
            (Kind::Data, 2, 144, 2, Some(&b"xy"[..])),
        ]
    );
    let got: Vec<_> = v
        .blobs()
        .map(|s| (s.id(), s.flags(), s.offset(), s.size(), s.blob_bytes()))
        .collect();
    assert_eq!(
        got,
        [
            (
                0x7000_0001,
                BFlags::KEEP.union(BFlags::HAS_DATA),
                148,
                4,
                Some(&b"BLOB"[..])
            ),
            (5, BFlags::KEEP, 0, 0, None),
        ]
    );
    assert_eq!(v.marks().map(|m| m.code()).collect::<Vec<_>>(), [0xA, 0xB]);
    assert_eq!(
        v.tags().map(|t| (t.id(), t.value())).collect::<Vec<_>>(),
        [(7, 70)]
    );
    assert_eq!((v.ext(), v.notes()), (Some(&b"ext"[..]), Some(&b"n"[..])));
    assert_eq!((h.ext_offset(), h.ext_size()), (152, 3));
    assert_eq!((h.notes_offset(), h.notes_size()), (156, 1));
    assert_eq!(b.len(), 157);
    // `seal` recomputes the file CRC after an edit; a section without a payload is
    // `(type, 0, 0)`.
    let mut e = b.clone();
    e[153] ^= 0x20;
    assert_eq!(
        DirWhen::validate(&e).map(|_| ()).map_err(|x| x.code),
        Err("bad-crc")
    );
    DirWhenSpec::seal(
        &mut e,
        [(1u64, 136u64, 5u64), (8, 0, 0), (2, 144, 2)].into_iter(),
        [(0x7000_0001u64, 148u64, 4u64), (5, 0, 0)].into_iter(),
    )
    .expect("sealed");
    assert_eq!(
        DirWhen::validate(&e).expect("valid").ext(),
        Some(&b"eXt"[..])
    );

    // No optional part: version 1, no marks, tags, ext or notes (their flag bits given are
    // cleared), no payloads; they take no bytes and their fields are zero.
    let none_s = [SectionSpec {
        kind: Kind::Nobits,
        entsize: 4,
        data: None,
    }];
    let none_b = [BlobSpec {
        id: 1,
        flags: BFlags::HAS_DATA,
        entsize: 0,
        blob_bytes: None,
    }];
    let none = DirWhenSpec {
        version: 1,
        flags: HFlags::HAS_NOTES.union(HFlags::HAS_TAGS),
        marks: None,
        tags: None,
        ext: None,
        notes: None,
        sections: &none_s,
        blobs: &none_b,
    };
    let b = none.to_vec().expect("writes");
    let v = DirWhen::validate(&b).expect("valid");
    assert!(DirWhen::validate_as::<Brief>(&b).is_ok());
    let h = v.header();
    assert_eq!(b.len(), 52 + 12 + 16);
    assert_eq!(h.flags(), HFlags::empty());
    assert_eq!(
        (
            h.mark_count(),
            h.tag_count(),
            h.marks_at(),
            h.tags_at(),
            h.ext_offset(),
            h.ext_size(),
            h.notes_offset(),
            h.notes_size()
        ),
        (0, 0, 0, 0, 0, 0, 0, 0)
    );
    assert_eq!((v.ext(), v.notes()), (None, None));
    assert_eq!(v.marks().count() + v.tags().count(), 0);
    let s = v.sections().next().expect("one section");
    assert_eq!(
        (s.entsize(), s.offset(), s.size(), s.data()),
        (4, 0, 0, None)
    );
    let s = v.blobs().next().expect("one blob");
    assert_eq!(
        (s.flags(), s.offset(), s.size(), s.blob_bytes()),
        (BFlags::empty(), 0, 0, None)
    );
    // Version 3 with an empty list of marks is not a disagreement.
    let b = DirWhenSpec {
        version: 3,
        marks: Some(&[]),
        ext: Some(b""),
        ..none
    }
    .to_vec()
    .expect("writes");
    assert_eq!(DirWhen::validate(&b).expect("valid").marks().count(), 0);

    // Each disagreement, given and left out: on the header (`marks`, `ext`) and on a
    // section's record (`sections[i]`).
    let code_none = [
        sections[0],
        SectionSpec {
            kind: Kind::Code,
            entsize: 0,
            data: None,
        },
    ];
    let nobits_some = [SectionSpec {
        kind: Kind::Nobits,
        entsize: 0,
        data: Some(b"z"),
    }];
    let cases: [(DirWhenSpec<'_>, WriteError); 6] = [
        (
            DirWhenSpec {
                version: 2,
                marks: Some(&marks),
                ext: Some(b"e"),
                ..none
            },
            WriteError::WhenDisagrees {
                part: "marks",
                given: true,
            },
        ),
        (
            DirWhenSpec {
                version: 3,
                ext: Some(b"e"),
                ..none
            },
            WriteError::WhenDisagrees {
                part: "marks",
                given: false,
            },
        ),
        (
            DirWhenSpec {
                ext: Some(b"e"),
                ..none
            },
            WriteError::WhenDisagrees {
                part: "ext",
                given: true,
            },
        ),
        (
            DirWhenSpec { version: 2, ..none },
            WriteError::WhenDisagrees {
                part: "ext",
                given: false,
            },
        ),
        (
            DirWhenSpec {
                sections: &code_none,
                ..none
            },
            WriteError::SectionWhenDisagrees {
                table: "sections",
                index: 1,
                given: false,
            },
        ),
        (
            DirWhenSpec {
                sections: &nobits_some,
                ..none
            },
            WriteError::SectionWhenDisagrees {
                table: "sections",
                index: 0,
                given: true,
            },
        ),
    ];
    for (w, e) in cases {
        assert_eq!(w.to_vec(), Err(e), "{e}");
        let mut buf = vec![0u8; w.encoded_len().expect("sized")];
        assert_eq!(w.write_into(&mut buf), Err(e), "{e}");
    }
    // A short buffer.
    let mut short = [0u8; 60];
    assert!(matches!(
        all.write_into(&mut short),
        Err(WriteError::BufferTooSmall { needed: 157, .. })
    ));
}

mod diropt {
    npuschema_macro::include_schema!("schemas/diropt.yaml");
}

/// `diropt.yaml`: what a directory writer writes beyond `dirwhen.yaml`. An optional table
/// (`tags`, behind a header flag bit) whose records carry their own bytes (`blob`), a name
/// in the string table and a u8-prefixed label: given, all placed as for an ungated table;
/// left out, none of it takes a byte. A section's payload with `when: "flags.HAS_DATA &&
/// size != 0"` (reading the payload's own size), checked on each record as written, its
/// size set. A CRC whose span starts where the located record `info` says, computed by
/// `seal` over `info` read back. Both validators accept both files, the views give back
/// every input, and each disagreement is its `WriteError`.
#[test]
fn the_directory_writer_writes_optional_tables_with_bytes_and_strings() {
    use diropt::{DirOpt, DirOptSpec, HFlags, Kind, SFlags, SectionSpec, TagBlob, TagSpec};
    use npuschema_core::WriteError;
    let sections = [
        SectionSpec {
            kind: Kind::Code,
            flags: SFlags::HAS_DATA.union(SFlags::KEEP),
            entsize: 0,
            data: Some(b"abcde"),
        },
        // No payload with HAS_DATA given: its size is 0, so the condition is false, as it
        // must be for a section left without one.
        SectionSpec {
            kind: Kind::Data,
            flags: SFlags::HAS_DATA,
            entsize: 0,
            data: None,
        },
        SectionSpec {
            kind: Kind::Data,
            flags: SFlags::HAS_DATA,
            entsize: 2,
            data: Some(b"xy"),
        },
    ];
    let tags = [
        TagSpec {
            id: 7,
            blob: TagBlob::Present(b"BLOB!"),
            name: "first",
            label: b"L1",
        },
        TagSpec {
            id: 8,
            blob: TagBlob::Present(b""),
            name: "",
            label: b"",
        },
    ];
    let all = DirOptSpec {
        flags: HFlags::FINAL,
        version: 9,
        info_crc_from: 40,
        info_note: 0x1234,
        tags: Some(&tags),
        title: "diropt",
        sections: &sections,
    };
    let b = all.to_vec().expect("writes");
    let n = all.encoded_len().expect("sized");
    let mut buf = vec![0u8; n];
    assert_eq!(all.write_into(&mut buf), Ok(n));
    assert_eq!(buf, b);
    let v = DirOpt::validate(&b).expect("valid");
    assert!(DirOpt::validate_as::<Brief>(&b).is_ok());
    let h = v.header();
    // HAS_TAGS set by the writer, FINAL kept.
    assert_eq!(h.flags(), HFlags::HAS_TAGS.union(HFlags::FINAL));
    // Header 0..40, info 40..48, sections 48..96, tags 96..136, names 136..150 ("first",
    // "", "diropt", each with its NUL), the payloads at 152 and 160, the blobs at 164 and
    // 172 (empty), the labels 172..176.
    assert_eq!(
        (
            h.version(),
            h.info_at(),
            h.section_at(),
            h.section_count(),
            h.tags_at(),
            h.tag_count(),
            h.names_offset(),
            h.names_size(),
            h.title_offset()
        ),
        (9, 40, 48, 3, 96, 2, 136, 14, 7)
    );
    assert_eq!((v.info().crc_from(), v.info().note()), (40, 0x1234));
    assert_eq!(v.title_str(), Ok("diropt"));
    let got: Vec<_> = v
        .sections()
        .map(|s| (s.kind(), s.flags(), s.offset(), s.size(), s.data()))
        .collect();
    assert_eq!(
        got,
        [
            (
                Kind::Code,
                SFlags::HAS_DATA.union(SFlags::KEEP),
                152,
                5,
                Some(&b"abcde"[..])
            ),
            (Kind::Data, SFlags::HAS_DATA, 0, 0, None),
            (Kind::Data, SFlags::HAS_DATA, 160, 2, Some(&b"xy"[..])),
        ]
    );
    let got: Vec<_> = v
        .tags()
        .map(|t| {
            (
                t.id(),
                t.blob_offset(),
                t.blob(),
                v.name_str(&t),
                t.label_offset(),
                v.label(&t),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (7, 164, Some(&b"BLOB!"[..]), Ok("first"), 172, &b"L1"[..]),
            (8, 172, Some(&b""[..]), Ok(""), 175, &b""[..]),
        ]
    );
    assert_eq!(b.len(), 176);
    assert_eq!(v.body_crc_computed(), h.crc());
    assert_eq!(h.crc(), npuschema_core::crc32(0, &b[40..]));
    // `seal` after an edit: the CRC again, over `info` as the bytes hold it.
    let mut e = b.clone();
    e[154] ^= 0x20;
    assert_eq!(
        DirOpt::validate(&e).map(|_| ()).map_err(|x| x.code),
        Err("bad-crc")
    );
    DirOptSpec::seal(
        &mut e,
        [(1u64, 152u64, 5u64), (2, 0, 0), (2, 160, 2)].into_iter(),
    )
    .expect("sealed");
    assert_eq!(
        DirOpt::validate(&e)
            .expect("valid")
            .sections()
            .next()
            .and_then(|s| s.data()),
        Some(&b"abCde"[..])
    );
    // `info` moved past the end: `seal` cannot find it.
    let mut e = b.clone();
    e[20..24].copy_from_slice(&200u32.to_le_bytes());
    assert_eq!(
        DirOptSpec::seal(&mut e, core::iter::empty()),
        Err(WriteError::Layout { item: "info" })
    );
    // A span starting later covers less: the CRC follows `info.crc_from`.
    let later = DirOptSpec {
        info_crc_from: 152,
        ..all
    };
    let b2 = later.to_vec().expect("writes");
    let v2 = DirOpt::validate(&b2).expect("valid");
    assert_eq!(v2.header().crc(), npuschema_core::crc32(0, &b2[152..]));

    // Left out: the tags, their bytes, names and labels take no byte, their count and place
    // are zero, HAS_TAGS given is cleared.
    let none = DirOptSpec {
        flags: HFlags::HAS_TAGS,
        tags: None,
        ..all
    };
    let b = none.to_vec().expect("writes");
    let v = DirOpt::validate(&b).expect("valid");
    assert!(DirOpt::validate_as::<Brief>(&b).is_ok());
    let h = v.header();
    assert_eq!(h.flags(), HFlags::empty());
    assert_eq!((h.tag_count(), h.tags_at()), (0, 0));
    // Header, info, sections 48..96, names 96..103 (the title), payloads at 104 and 112.
    assert_eq!(
        (h.names_offset(), h.names_size(), h.title_offset()),
        (96, 7, 0)
    );
    assert_eq!(v.tags().count(), 0);
    assert_eq!(
        v.sections().map(|s| s.offset()).collect::<Vec<_>>(),
        [104, 0, 112]
    );
    assert_eq!(b.len(), 116);
    // An empty list given is given: HAS_TAGS set, no records, no bytes.
    let b = DirOptSpec {
        tags: Some(&[]),
        ..none
    }
    .to_vec()
    .expect("writes");
    let v = DirOpt::validate(&b).expect("valid");
    assert_eq!(v.header().flags(), HFlags::HAS_TAGS);
    assert_eq!(v.tags().count(), 0);
    assert_eq!(b.len(), 116);

    // Each disagreement: a payload given without HAS_DATA, an empty payload given (its size
    // is 0, the condition reads it); a NUL in a name of the given table.
    let no_flag = [SectionSpec {
        flags: SFlags::KEEP,
        ..sections[0]
    }];
    let empty = [
        sections[0],
        SectionSpec {
            data: Some(b""),
            ..sections[2]
        },
    ];
    let nul = [TagSpec {
        name: "a\0b",
        ..tags[0]
    }];
    let cases: [(DirOptSpec<'_>, WriteError); 3] = [
        (
            DirOptSpec {
                sections: &no_flag,
                ..all
            },
            WriteError::SectionWhenDisagrees {
                table: "sections",
                index: 0,
                given: true,
            },
        ),
        (
            DirOptSpec {
                sections: &empty,
                ..all
            },
            WriteError::SectionWhenDisagrees {
                table: "sections",
                index: 1,
                given: true,
            },
        ),
        (
            DirOptSpec {
                tags: Some(&nul),
                ..all
            },
            WriteError::Layout { item: "name" },
        ),
    ];
    for (spec, err) in cases {
        assert_eq!(spec.to_vec(), Err(err));
        let mut big = vec![0u8; 4096];
        assert_eq!(spec.write_into(&mut big), Err(err));
    }
    // A buffer too small.
    let mut short = vec![0u8; 175];
    assert!(matches!(
        all.write_into(&mut short),
        Err(WriteError::BufferTooSmall { needed: 176, .. })
    ));
}

mod zeroed {
    npuschema_macro::include_schema!("schemas/zeroed.yaml");
}

/// `zero:` on a checksum (`tests/schemas/zeroed.yaml`): a CRC-32 over the whole file with
/// its own field, the FNV-1a's and the trailer's sum as zero; an FNV-1a with its own field
/// and the trailer's sum as zero; a word sum with the trailer's field (placed by the header)
/// as zero. A file whose sums are right is accepted; every byte flipped is refused by the
/// generated code and the interpreter alike (the same code, field, offset and site): a
/// stored field flipped by its own check only (the checks before it count it as zero), any
/// other byte by the first check.
#[test]
fn checksums_count_their_zero_fields_as_zero() {
    use npuschema_core::{FNV1A32_OFFSET_BASIS, crc32_zeroed, fnv1a32, sum32_be_zeroed};
    const SCHEMA: &str = "schemas/zeroed.yaml";
    let total = 44usize;
    let trailer = 32usize;
    let mut b = vec![0u8; total];
    b[0..4].copy_from_slice(&0x5A45_524Fu32.to_le_bytes());
    b[4..8].copy_from_slice(&(total as u32).to_le_bytes());
    b[8..12].copy_from_slice(&(trailer as u32).to_le_bytes());
    for (i, x) in b.iter_mut().enumerate().skip(20).take(12) {
        *x = i as u8;
    }
    b[trailer..trailer + 4].copy_from_slice(b"TRLR");
    // Each sum over the bytes with its zero fields cleared, filled in the order that makes
    // each right: the CRC (which reads none of the three), the FNV-1a (which reads the CRC),
    // the word sum (which reads both).
    let crc = crc32_zeroed(&b, 0, &[(12, 4), (16, 4), (trailer as u64 + 4, 4)]);
    b[12..16].copy_from_slice(&crc.to_le_bytes());
    let mut f = b.clone();
    f[16..20].fill(0);
    f[trailer + 4..trailer + 8].fill(0);
    b[16..20].copy_from_slice(&fnv1a32(FNV1A32_OFFSET_BASIS, &f).to_le_bytes());
    let sum = sum32_be_zeroed(&b, 0, &[(trailer as u64 + 4, 4)]);
    b[trailer + 4..trailer + 8].copy_from_slice(&sum.to_le_bytes());
    let check = |m: &[u8]| {
        npuschema_tests::agree_with(
            SCHEMA,
            m,
            zeroed::Zeroed::validate(m),
            zeroed::Zeroed::validate_as::<Brief>(m)
                .map(|_| ())
                .map_err(|e| e.id()),
            |g, v| {
                // Each sum the view recomputes (with its zero fields as zero) is the stored
                // value, in the generated view and the interpreter's.
                let h = g.header();
                let sums = [
                    ("crc", h.crc(), g.crc_computed()),
                    ("fnv", h.fnv(), g.fnv_computed()),
                    ("sum", g.trailer().sum(), g.sum_computed()),
                ];
                for (name, stored, computed) in sums {
                    assert_eq!(computed, stored, "{name}");
                    let k = v.checksums.iter().find(|k| k.name == name).expect(name);
                    assert_eq!(
                        (k.stored, k.computed),
                        (u64::from(stored), u64::from(computed))
                    );
                }
            },
        )
    };
    assert_eq!(check(&b), "ok");
    for at in 0..total {
        let mut m = b.clone();
        m[at] ^= 0x40;
        let code = check(&m);
        let want = match at {
            4..=11 => None, // the length and the trailer's place: another check, or a sum
            16..=19 => Some("bad-fnv"),
            36..=39 => Some("bad-sum"),
            _ => Some("bad-crc"),
        };
        if let Some(w) = want {
            assert_eq!(code, w, "byte {at} flipped");
        } else {
            assert_ne!(code, "ok", "byte {at} flipped");
        }
    }
}

mod walked {
    npuschema_macro::include_schema!("schemas/walked.yaml");
}

/// A stream's record read at file level, by its index (`items[0].kind`, `items[count -
/// 1].kind`) and by its key (`items[kind == END].size`, and where it lies,
/// `.record.offset`): generated code and the interpreter walk the stream to the same record,
/// and a record that is not there (an index past the last, no key that matches) fails the
/// check that reads it, with its code.
#[test]
fn a_streams_record_by_index_and_by_key_at_file_level() {
    const SCHEMA: &str = "schemas/walked.yaml";
    let blob = |items: &[(u16, &[u8])], count: Option<u32>| {
        let mut b = Vec::new();
        b.extend_from_slice(&walked::MAGIC.to_le_bytes());
        let n = count.unwrap_or(u32::try_from(items.len()).unwrap());
        b.extend_from_slice(&n.to_le_bytes());
        for (kind, body) in items {
            b.extend_from_slice(&kind.to_le_bytes());
            b.extend_from_slice(&u16::try_from(body.len()).unwrap().to_le_bytes());
            b.extend_from_slice(body);
        }
        b
    };
    let check = |b: &[u8]| {
        npuschema_tests::agree_with(
            SCHEMA,
            b,
            walked::Walked::validate(b),
            walked::Walked::validate_as::<Brief>(b)
                .map(|_| ())
                .map_err(|e| e.id()),
            |g, v| {
                let items = v.groups.iter().find(|x| x.name == "items").expect("items");
                assert_eq!(g.items().count() as u64, items.total);
            },
        )
    };
    let good = blob(&[(1, b"hi"), (3, b"abc"), (9, b"")], None);
    assert_eq!(check(&good), "ok");
    // The index: the first item is not the title; the count names an item past the last
    // (there is none: the index reads nothing and fails).
    assert_eq!(check(&blob(&[(3, b"abc"), (9, b"")], None)), "no-title");
    assert_eq!(check(&blob(&[(1, b"hi"), (3, b"")], None)), "end-not-last");
    assert_eq!(check(&blob(&[], None)), "no-title");
    // The key: the first end item is not the last item; an end item with a body.
    assert_eq!(
        check(&blob(&[(1, b""), (9, b""), (9, b"")], None)),
        "early-end"
    );
    assert_eq!(check(&blob(&[(1, b""), (9, b"x")], None)), "end-not-empty");
    // Every byte flipped: the two engines agree on each.
    for at in 0..good.len() {
        let mut m = good.clone();
        m[at] ^= 0x11;
        check(&m);
        check(&good[..at]);
    }
}
