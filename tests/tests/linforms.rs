//! Places, counts, strides, offsets and lengths stored as a linear form of one field
//! (`tests/schemas/linforms.yaml`): the generated plain writer computes the value it needs (the
//! place it chose, the number of records, the record size, the bytes' length) and solves it for
//! the field (`header.items_at + 16`, `header.items_n - 1`, `header.item_halves * 2`,
//! `PAIR_UNIT * header.pairs_at8`, `2 * header.pair_half`, `12 + 8 * header.blob_at`,
//! `header.blob_words * 4`, `header.note_at * 16 - 4`, `header.note_len - 1`, and per item
//! `data_at + 64`,
//! `data_words * 4`), choosing each place where its form can store it; a value no field value
//! gives is `WriteError::NotRepresentable`, one past the field's width `TooLarge`. It also
//! writes ranges placed relative to the end of the file: `body`, which ends `TAIL` bytes
//! before the end (`length: len - header.body_at - TAIL`), then the `TAIL`-byte trailer at
//! `len - TAIL` right after it; and the 4-byte `stamp` (`length: 4`): a length other than the
//! schema's is `WriteError::WrongLength`. The files it writes are the ones laid out by hand
//! (`construct_blobs::linforms_file`), validate (`Error` and `Brief`), and their views give
//! back every input. A trailer whose length is a header field (`tests/schemas/sigtrail.yaml`)
//! is written the same way.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use npuschema_core::{Brief, WriteError};
use npuschema_tests::compare::schemas::linforms::{
    self, ItemData, ItemSpec, LinForms, LinFormsWriter, PairSpec,
};
use npuschema_tests::construct_blobs::linforms_file;

/// The generated validator's verdict (its error code), held to its `Brief`.
fn verdict(b: &[u8]) -> Result<(), &'static str> {
    let g = LinForms::validate(b).map(|_| ());
    let gb = LinForms::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    assert_eq!(
        g.map_err(|e| e.code),
        gb.map_err(|id| linforms::error_site(id).unwrap().code)
    );
    g.map_err(|e| e.code)
}

type Items<'a> = [(u16, &'a [u8])];

const ENDS: ([u8; 4], &[u8], [u8; 8]) = (*b"STMP", b"BODY!", *b"trailer!");

/// The writer's file for these parts (the stamp, body and trailer `ENDS`).
fn write(
    items: &Items<'_>,
    pairs: &[(u16, u16)],
    blob: &[u8],
    note: &[u8],
) -> Result<Vec<u8>, WriteError> {
    write_ends(items, pairs, blob, note, (&ENDS.0, ENDS.1, &ENDS.2))
}

/// The writer's file for these parts, with this stamp, body and trailer.
fn write_ends(
    items: &Items<'_>,
    pairs: &[(u16, u16)],
    blob: &[u8],
    note: &[u8],
    (stamp, body, tail): (&[u8], &[u8], &[u8]),
) -> Result<Vec<u8>, WriteError> {
    let items: Vec<ItemSpec<'_>> = items
        .iter()
        .map(|&(id, d)| ItemSpec {
            id,
            data: ItemData::Present(d),
        })
        .collect();
    let pairs: Vec<PairSpec> = pairs.iter().map(|&(a, b)| PairSpec { a, b }).collect();
    let w = LinFormsWriter::new()
        .items(&items)
        .pairs(&pairs)
        .blob(blob)
        .note(note)
        .stamp(stamp)
        .body(body)
        .tail(tail);
    let n = w.encoded_len()?;
    let mut out = vec![0xAAu8; n + 3];
    assert_eq!(w.write_into(&mut out)?, n);
    assert!(out[n..].iter().all(|&x| x == 0xAA), "wrote past its length");
    out.truncate(n);
    assert_eq!(w.to_vec()?, out);
    Ok(out)
}

#[test]
fn every_field_is_solved_for_the_value_it_stores() {
    let d0 = [1u8, 2, 3, 4, 5, 6, 7, 8];
    let d1 = [9u8, 10, 11, 12];
    let b = write(
        &[(0x11, &d0), (0x22, &d1)],
        &[(1, 2), (3, 4), (5, 6), (7, 8)],
        b"blobBLOB",
        b"hey",
    )
    .unwrap();
    // Every byte, laid out by hand: header (32), items at 32 (`items_at` 16), a gap to 48
    // (`pairs_at8` 6), pairs to 64, the first item's data at 64 (at least 64: `data_at` 0),
    // the second's at 72 (`data_at` 8), blob at 76 (12 past a multiple of 8: `blob_at` 8), a
    // gap to the note at 92 (4 before a multiple of 16: `note_at` 6), the stamp at 96, the body
    // at 100, the trailer right after it at 105 (the file ends 8 bytes later).
    #[rustfmt::skip]
    let want: Vec<u8> = [
        &[0x46, 0x4F, 0x52, 0x4D][..],  // magic
        &[16, 0], &[3], &[3],           // items_at = 32 - 16, items_n = 2 + 1, item_halves = 6 / 2
        &[6, 0], &[2, 0],               // pairs_at8 = 48 / 8, pair_half = 4 / 2
        &[8, 0, 0, 0], &[2, 0],         // blob_at = (76 - 12) / 8, blob_words = 8 / 4
        &[4, 0], &[6, 0, 0, 0],         // note_len = 3 + 1, note_at = (92 + 4) / 16
        &[96, 0, 0, 0], &[100, 0, 0, 0], // stamp_at, body_at
        &[0x11, 0, 0, 0, 2, 0],         // items[0]: id, data_at = 64 - 64, data_words = 2
        &[0x22, 0, 8, 0, 1, 0],         // items[1]: data_at = 72 - 64, data_words = 1
        &[0; 4],                        // to 48
        &[1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0],
        &d0, &d1, b"blobBLOB", &[0; 8], b"hey", &[0], b"STMP", b"BODY!", b"trailer!",
    ]
    .concat();
    assert_eq!(b, want);
    assert_eq!(
        b,
        linforms_file(
            &[(0x11, &d0), (0x22, &d1)],
            &[(1, 2), (3, 4), (5, 6), (7, 8)],
            b"blobBLOB",
            b"hey",
            ENDS
        )
    );
    assert_eq!(verdict(&b), Ok(()));
    // The views give back every input.
    let v = LinForms::validate(&b).unwrap();
    let items: Vec<(u16, Vec<u8>)> = v
        .items()
        .map(|r| (r.id(), r.data().unwrap().to_vec()))
        .collect();
    assert_eq!(items, [(0x11, d0.to_vec()), (0x22, d1.to_vec())]);
    let pairs: Vec<(u16, u16)> = v.pairs().map(|p| (p.a(), p.b())).collect();
    assert_eq!(pairs, [(1, 2), (3, 4), (5, 6), (7, 8)]);
    assert_eq!(v.blob(), b"blobBLOB");
    assert_eq!(v.note(), b"hey");
    assert_eq!(
        (v.stamp(), v.body(), v.tail()),
        (&b"STMP"[..], &b"BODY!"[..], &b"trailer!"[..])
    );
}

#[test]
fn other_shapes_match_the_layout_by_hand() {
    let big = [0x5Au8; 40];
    for (items, pairs, blob, note) in [
        (&[][..], &[][..], &[][..], &[][..]),
        (
            &[(7, &[][..])][..],
            &[(9, 9), (8, 8)][..],
            &[1u8, 2, 3, 4][..],
            &b"n"[..],
        ),
        (
            &[(1, &big[..]), (2, &big[..8]), (3, &big[..4])][..],
            &[(1, 1), (2, 2)][..],
            &big[..12],
            &big[..5],
        ),
    ] {
        let items: &Items<'_> = items;
        let b = write(items, pairs, blob, note).unwrap();
        assert_eq!(b, linforms_file(items, pairs, blob, note, ENDS));
        assert_eq!(verdict(&b), Ok(()));
        let v = LinForms::validate(&b).unwrap();
        assert_eq!(v.items().count(), items.len());
        for (r, (id, d)) in v.items().zip(items) {
            assert_eq!((r.id(), r.data().unwrap()), (*id, *d));
        }
        assert_eq!(v.pairs().count(), pairs.len());
        assert_eq!((v.blob(), v.note()), (blob, note));
        assert_eq!((v.body(), v.tail()), (ENDS.1, &ENDS.2[..]));
    }
    // An empty body: the trailer right after the stamp; a body of any length.
    for body in [&b""[..], b"x", b"xyzzy and more"] {
        let b = write_ends(&[], &[], b"", b"", (b"1234", body, b"87654321")).unwrap();
        assert_eq!(
            b,
            linforms_file(&[], &[], b"", b"", (*b"1234", body, *b"87654321"))
        );
        assert_eq!(verdict(&b), Ok(()));
        let v = LinForms::validate(&b).unwrap();
        assert_eq!(
            (v.stamp(), v.body(), v.tail()),
            (&b"1234"[..], body, &b"87654321"[..])
        );
    }
    // A data item left out still records its length, solved for its field (the record's
    // bytes 4..6; its offset field stays 0).
    let items = [ItemSpec {
        id: 4,
        data: ItemData::Absent(12),
    }];
    let b = LinFormsWriter::new()
        .items(&items)
        .blob(b"")
        .note(b"")
        .stamp(b"stmp")
        .body(b"")
        .tail(b"12345678")
        .to_vec()
        .unwrap();
    assert_eq!(b[32..38], [4, 0, 0, 0, 3, 0]);
}

#[test]
fn a_value_no_field_value_gives_is_refused() {
    let odd = |field: &'static str, value: u64| WriteError::NotRepresentable { field, value };
    // Pairs are stored as half their count.
    assert_eq!(
        write(&[], &[(1, 1), (2, 2), (3, 3)], b"", b""),
        Err(odd("header.pair_half", 3))
    );
    // Lengths in 4-byte words.
    assert_eq!(
        write(&[], &[], b"abcde", b""),
        Err(odd("header.blob_words", 5))
    );
    assert_eq!(
        write(&[(1, b"abc")], &[], b"", b""),
        Err(odd("items[].data_words", 3))
    );
    let items = [ItemSpec {
        id: 4,
        data: ItemData::Absent(6),
    }];
    assert_eq!(
        LinFormsWriter::new()
            .items(&items)
            .blob(b"")
            .note(b"")
            .stamp(b"stmp")
            .body(b"")
            .tail(b"12345678")
            .to_vec(),
        Err(odd("items[].data_words", 6))
    );
    // Past the field's width: a u8 count stored plus one, a u16 length stored plus one, a u16
    // count of words. The error gives the value the field would have to hold (255 records
    // stored plus one: 256, which a u8 cannot hold), as the directory writer's does.
    let many: Vec<(u16, &[u8])> = (0..255).map(|i| (i, &b""[..])).collect();
    assert_eq!(
        write(&many, &[], b"", b""),
        Err(WriteError::TooLarge {
            field: "header.items_n",
            value: 256
        })
    );
    let b = write(&many[..254], &[], b"", b"").unwrap();
    assert_eq!(verdict(&b), Ok(()));
    assert_eq!(LinForms::validate(&b).unwrap().header().items_n(), 255);
    let long = vec![0u8; 0xFFFF];
    assert_eq!(
        write(&[], &[], b"", &long),
        Err(WriteError::TooLarge {
            field: "header.note_len",
            value: 0x1_0000
        })
    );
    assert_eq!(
        verdict(&write(&[], &[], b"", &long[..0xFFFE]).unwrap()),
        Ok(())
    );
    let words = vec![0u8; 4 << 16];
    assert_eq!(
        write(&[], &[], &words, b""),
        Err(WriteError::TooLarge {
            field: "header.blob_words",
            value: 1 << 16
        })
    );
    // A stamp or trailer of another length than the schema's.
    let wrong = |range: &'static str, expected: u64, given: u64| WriteError::WrongLength {
        range,
        expected,
        given,
    };
    let ends = |stamp: &'static [u8], tail: &'static [u8]| (stamp, &b"b"[..], tail);
    assert_eq!(
        write_ends(&[], &[], b"", b"", ends(b"abc", b"12345678")),
        Err(wrong("stamp", 4, 3))
    );
    assert_eq!(
        wrong("stamp", 4, 3).to_string(),
        "wrong-length: stamp has 4 bytes, 3 given"
    );
    assert_eq!(
        write_ends(&[], &[], b"", b"", ends(b"abcde", b"12345678")),
        Err(wrong("stamp", 4, 5))
    );
    assert_eq!(
        write_ends(&[], &[], b"", b"", ends(b"abcd", b"1234567")),
        Err(wrong("tail", 8, 7))
    );
    assert_eq!(
        write_ends(&[], &[], b"", b"", ends(b"abcd", b"")),
        Err(wrong("tail", 8, 0))
    );
    // A short buffer: header 32, the blob at 36 (empty), the note at 44, the stamp at 48, the
    // body at 52, the trailer at 53.
    let w = LinFormsWriter::new()
        .blob(b"")
        .note(b"x")
        .stamp(b"abcd")
        .body(b"b")
        .tail(b"12345678");
    assert_eq!(
        w.write_into(&mut [0u8; 10]),
        Err(WriteError::BufferTooSmall {
            needed: 61,
            available: 10
        })
    );
}

/// `sigtrail.yaml`: a trailer whose length is a header field, `offset: len - header.sig_len`,
/// written right after a body that ends `sig_len` bytes before the end (`sig_len` set to the
/// signature's length, the body 8-byte aligned, the signature not).
#[test]
fn a_trailer_of_a_length_the_header_gives_ends_the_file() {
    use npuschema_tests::compare::schemas::sigtrail::{self, SigTrail, SigTrailWriter};
    use npuschema_tests::construct_blobs::sigtrail_file;
    let verdict = |b: &[u8]| {
        let g = SigTrail::validate(b).map(|_| ());
        let gb = SigTrail::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id());
        assert_eq!(
            g.map_err(|e| e.code),
            gb.map_err(|id| sigtrail::error_site(id).unwrap().code)
        );
        g.map_err(|e| e.code)
    };
    let b = SigTrailWriter::new()
        .kind(0x0102)
        .body(b"BODY!")
        .sig(b"sig")
        .to_vec()
        .unwrap();
    #[rustfmt::skip]
    let want: Vec<u8> = [
        &[0x53, 0x53, 0x49, 0x47][..],  // magic
        &[16, 0, 0, 0],                 // body_at: 12 aligned to 8
        &[3, 0], &[2, 1],               // sig_len, kind
        &[0; 4],                        // to 16
        b"BODY!", b"sig",               // the signature right after the body, the file's end
    ]
    .concat();
    assert_eq!(b, want);
    assert_eq!(verdict(&b), Ok(()));
    let v = SigTrail::validate(&b).unwrap();
    assert_eq!((v.body(), v.sig()), (&b"BODY!"[..], &b"sig"[..]));
    for (body, sig) in [
        (&b""[..], &b""[..]),
        (b"1234567", b"x"),
        (b"", b"only a signature"),
    ] {
        let b = SigTrailWriter::new().body(body).sig(sig).to_vec().unwrap();
        assert_eq!(b, sigtrail_file(0, body, sig));
        assert_eq!(verdict(&b), Ok(()));
        let v = SigTrail::validate(&b).unwrap();
        assert_eq!((v.body(), v.sig()), (body, sig));
    }
    // A signature past `sig_len`'s u16.
    let long = vec![0u8; 0x1_0000];
    assert_eq!(
        SigTrailWriter::new().body(b"").sig(&long).to_vec(),
        Err(WriteError::TooLarge {
            field: "header.sig_len",
            value: 0x1_0000
        })
    );
}

// ----- the directory writer (tests/schemas/dirlin.yaml) -------------------------------------

mod dir {
    use npuschema_core::{Brief, WriteError};
    use npuschema_tests::compare::schemas::dirlin::{
        self, DirLin, DirLinSpec, Kind, MarkData, MarkSpec, SectionSpec,
    };
    use npuschema_tests::construct_blobs::{DirLinSection, dirlin_file};

    /// Sections, notes, marks and a name.
    type Case<'a> = (
        &'a [DirLinSection<'a>],
        &'a [u8],
        &'a [(u32, &'a [u8])],
        &'a [u8],
    );

    /// The generated validator's verdict (its error code), held to its `Brief`.
    fn verdict(b: &[u8]) -> Result<(), &'static str> {
        let g = DirLin::validate(b).map(|_| ());
        let gb = DirLin::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id());
        assert_eq!(
            g.map_err(|e| e.code),
            gb.map_err(|id| dirlin::error_site(id).unwrap().code)
        );
        g.map_err(|e| e.code)
    }

    /// The directory writer's file for these parts (`write_into` and `to_vec` agreeing).
    fn write(
        sections: &[DirLinSection<'_>],
        notes: &[u8],
        marks: &[(u32, &[u8])],
        name: &[u8],
    ) -> Result<Vec<u8>, WriteError> {
        let secs: Vec<SectionSpec<'_>> = sections
            .iter()
            .map(|&(k, entsize, payload)| SectionSpec {
                kind: Kind::from_raw(k).unwrap(),
                entsize,
                payload: (k != 8).then_some(payload),
            })
            .collect();
        let ms: Vec<MarkSpec<'_>> = marks
            .iter()
            .map(|&(id, d)| MarkSpec {
                id,
                data: MarkData::Present(d),
            })
            .collect();
        let spec = DirLinSpec {
            notes,
            marks: &ms,
            name,
            sections: &secs,
        };
        let n = spec.encoded_len()?;
        let mut out = vec![0xAAu8; n + 3];
        assert_eq!(spec.write_into(&mut out)?, n);
        assert!(out[n..].iter().all(|&x| x == 0xAA), "wrote past its length");
        out.truncate(n);
        assert_eq!(spec.to_vec()?, out);
        Ok(out)
    }

    /// The views give back every input.
    fn read_back(
        b: &[u8],
        sections: &[DirLinSection<'_>],
        notes: &[u8],
        marks: &[(u32, &[u8])],
        name: &[u8],
    ) {
        let v = DirLin::validate(b).unwrap();
        let got: Vec<(u16, u16, Option<&[u8]>)> = v
            .sections()
            .map(|s| (s.kind_raw(), s.entsize(), s.payload()))
            .collect();
        let want: Vec<(u16, u16, Option<&[u8]>)> = sections
            .iter()
            .map(|&(k, e, p)| (k, e, (k != 8).then_some(p)))
            .collect();
        assert_eq!(got, want);
        let got: Vec<(u32, &[u8])> = v.marks().map(|m| (m.id(), m.data().unwrap())).collect();
        assert_eq!(got, marks);
        assert_eq!((v.notes(), v.name()), (notes, name));
    }

    #[test]
    fn the_directory_writer_solves_every_linear_form() {
        let sections: [DirLinSection<'_>; 2] = [(1, 0, b"CODE"), (2, 2, b"data!!")];
        let marks: [(u32, &[u8]); 1] = [(7, b"mark")];
        let b = write(&sections, b"hey", &marks, b"dl").unwrap();
        // Every byte, laid out by hand: header (24), `sub` at 28 (at least 28: `sub_at` 0),
        // the directory at 48 (a multiple of 16: `dir_at16` 3, `count1` 3), the payloads at 72
        // and 80 (multiples of 8: `offset` 9 and 10; `size2` 2 and 3), the notes at 88
        // (`notes_words` 22, `notes_len` 3 + 2), the marks at 92 (`marks_at` 46), the mark's
        // bytes at 104 (`data_at` 104 + 16), the name at 108 (`name_at` 107).
        #[rustfmt::skip]
        let want: Vec<u8> = [
            &[0x44, 0x4C, 0x49, 0x4E][..],            // magic
            &[0, 0, 0, 0], &[22, 0, 0, 0],            // sub_at = 28 - 28, notes_words = 88 / 4
            &[107, 0, 0, 0], &[46, 0, 0, 0],          // name_at = 108 - 1, marks_at = 92 / 2
            &[5, 0], &[1, 0],                         // notes_len = 3 + 2, marks_n = 1 + 0
            &[0; 4],                                  // to 28
            &[3, 0, 0, 0], &[3, 0, 0, 0],             // sub: dir_at16 = 48 / 16, count1 = 2 + 1
            &[0; 12],                                 // to 48
            &[1, 0, 0, 0], &[9, 0, 0, 0], &[2, 0, 0, 0],  // kind, entsize, 72 / 8, 4 / 2
            &[2, 0, 2, 0], &[10, 0, 0, 0], &[3, 0, 0, 0], // kind, entsize, 80 / 8, 6 / 2
            b"CODE", &[0; 4], b"data!!", &[0; 2], b"hey", &[0],
            &[7, 0, 0, 0], &[120, 0, 0, 0], &[4, 0, 0, 0], // mark: id, 104 + 16, 4 + 0
            b"mark", b"dl", &[0],
        ]
        .concat();
        assert_eq!(b, want);
        assert_eq!(b, dirlin_file(&sections, b"hey", &marks, b"dl"));
        assert_eq!(verdict(&b), Ok(()));
        read_back(&b, &sections, b"hey", &marks, b"dl");
    }

    #[test]
    fn other_directory_shapes_match_the_layout_by_hand() {
        let big = [0x5Au8; 40];
        let cases: [Case<'_>; 4] = [
            (&[], b"", &[], b""),
            (&[(2, 0, b"")], b"n", &[(1, b"")], b"x"),
            (
                &[(1, 0, &big[..2]), (2, 4, &big[..8]), (1, 0, &big[..40])],
                &big[..5],
                &[(1, &big[..3]), (2, &big[..1]), (3, &big[..7])],
                b"a longer name",
            ),
            (&[(2, 0, &big[..14])], &big[..33], &[], b"n"),
        ];
        // A `bss` section between two with payloads: no bytes, offset and size zero.
        let with_bss: [DirLinSection<'_>; 3] = [(1, 0, &big[..2]), (8, 0, b""), (2, 0, &big[..4])];
        let b = write(&with_bss, b"", &[], b"").unwrap();
        assert_eq!(b, dirlin_file(&with_bss, b"", &[], b""));
        assert_eq!(&b[48 + 12..48 + 24], &[8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(verdict(&b), Ok(()));
        read_back(&b, &with_bss, b"", &[], b"");
        for (sections, notes, marks, name) in cases {
            let b = write(sections, notes, marks, name).unwrap();
            assert_eq!(b, dirlin_file(sections, notes, marks, name));
            assert_eq!(verdict(&b), Ok(()));
            read_back(&b, sections, notes, marks, name);
        }
    }

    #[test]
    fn each_value_no_field_gives_is_a_write_error() {
        // An odd payload length: `size2 * 2` stores even lengths only.
        assert_eq!(
            write(&[(1, 0, b"odd")], b"", &[], b""),
            Err(WriteError::NotRepresentable {
                field: "sections[].size2",
                value: 3
            })
        );
        // Notes of 65,534 bytes: `notes_len` (a `u16`) would be 65,536.
        let long = vec![b'n'; 65_534];
        assert_eq!(
            write(&[], &long, &[], b""),
            Err(WriteError::TooLarge {
                field: "header.notes_len",
                value: 65_536
            })
        );
        assert!(write(&[], &long[..65_533], &[], b"").is_ok());
        // 65,536 marks: `marks_n + 0` in a `u16`.
        let marks = vec![(1u32, &b""[..]); 65_536];
        assert_eq!(
            write(&[], b"", &marks, b""),
            Err(WriteError::TooLarge {
                field: "header.marks_n",
                value: 65_536
            })
        );
        // A payload given to a `bss` section, or none to a `code` one: the condition
        // `kind != Kind.bss`, checked on the record as written, disagrees.
        for (kind, payload, given) in [
            (Kind::Bss, Some(&b"xx"[..]), true),
            (Kind::Code, None, false),
        ] {
            let secs = [SectionSpec {
                kind,
                entsize: 0,
                payload,
            }];
            let spec = DirLinSpec {
                notes: b"",
                marks: &[],
                name: b"",
                sections: &secs,
            };
            assert_eq!(
                spec.to_vec(),
                Err(WriteError::SectionWhenDisagrees {
                    table: "sections",
                    index: 0,
                    given
                })
            );
        }
        // A NUL inside the name, and a buffer one byte short.
        assert_eq!(
            write(&[], b"", &[], b"a\0b"),
            Err(WriteError::Layout { item: "name" })
        );
        let spec = DirLinSpec {
            notes: b"",
            marks: &[],
            name: b"n",
            sections: &[],
        };
        let n = spec.encoded_len().unwrap();
        let mut out = vec![0u8; n - 1];
        assert_eq!(
            spec.write_into(&mut out),
            Err(WriteError::BufferTooSmall {
                needed: n as u64,
                available: n as u64 - 1
            })
        );
    }
}

// ----- the plain writer, into a located record (tests/schemas/loclin.yaml) ------------------

mod located {
    use npuschema_core::{Brief, WriteError};
    use npuschema_tests::compare::schemas::loclin::{self, ItemSpec, LocLin, LocLinWriter};
    use npuschema_tests::construct_blobs::loclin_file;

    /// The generated validator's verdict (its error code), held to its `Brief`.
    fn verdict(b: &[u8]) -> Result<(), &'static str> {
        let g = LocLin::validate(b).map(|_| ());
        let gb = LocLin::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id());
        assert_eq!(
            g.map_err(|e| e.code),
            gb.map_err(|id| loclin::error_site(id).unwrap().code)
        );
        g.map_err(|e| e.code)
    }

    /// The plain writer's file (`write_into` and `to_vec` agreeing).
    fn write(items: &[(u16, u32)], blob: &[u8], stamp: u32) -> Result<Vec<u8>, WriteError> {
        let specs: Vec<ItemSpec> = items
            .iter()
            .map(|&(id, value)| ItemSpec { id, value })
            .collect();
        let w = LocLinWriter::new()
            .info_stamp(stamp)
            .items(&specs)
            .blob(blob);
        let n = w.encoded_len()?;
        let mut out = vec![0xAAu8; n + 3];
        assert_eq!(w.write_into(&mut out)?, n);
        assert!(out[n..].iter().all(|&x| x == 0xAA), "wrote past its length");
        out.truncate(n);
        assert_eq!(w.to_vec()?, out);
        Ok(out)
    }

    #[test]
    fn the_plain_writer_solves_forms_of_a_located_records_fields() {
        let b = write(&[(1, 0x11), (2, 0x22)], b"blob!!", 9).unwrap();
        // Every byte: header (8), `info` at 8, the items at 24 (`items_at4` 6, `items_n1` 3),
        // the blob at 36 (`blob_at` 36 - 16, `blob_len2` 3).
        #[rustfmt::skip]
        let want: Vec<u8> = [
            &[0x4C, 0x43, 0x4C, 0x4E][..], &[8, 0, 0, 0],   // magic, info_at
            &[6, 0, 0, 0], &[3, 0], &[3, 0],                // items_at4, items_n1, blob_len2
            &[20, 0, 0, 0], &[9, 0, 0, 0],                  // blob_at, stamp
            &[1, 0, 0x11, 0, 0, 0], &[2, 0, 0x22, 0, 0, 0], // items
            b"blob!!",
        ]
        .concat();
        assert_eq!(b, want);
        assert_eq!(b, loclin_file(&[(1, 0x11), (2, 0x22)], b"blob!!", 9));
        assert_eq!(verdict(&b), Ok(()));
        let v = LocLin::validate(&b).unwrap();
        let items: Vec<(u16, u32)> = v.items().map(|r| (r.id(), r.value())).collect();
        assert_eq!(items, [(1, 0x11), (2, 0x22)]);
        assert_eq!((v.blob(), v.info().stamp()), (&b"blob!!"[..], 9));
        // Other shapes: no items (the blob at 24, at least 16), one, many; an empty blob.
        for (items, blob) in [
            (&[][..], &b""[..]),
            (&[(7, 7)][..], &b"xy"[..]),
            (
                &[(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)][..],
                &[0x5A; 40][..],
            ),
        ] {
            let b = write(items, blob, 0).unwrap();
            assert_eq!(b, loclin_file(items, blob, 0));
            assert_eq!(verdict(&b), Ok(()));
            let v = LocLin::validate(&b).unwrap();
            assert_eq!(v.items().count(), items.len());
            assert_eq!(v.blob(), blob);
        }
    }

    #[test]
    fn each_value_no_located_field_gives_is_a_write_error() {
        assert_eq!(
            write(&[], b"odd", 0),
            Err(WriteError::NotRepresentable {
                field: "info.blob_len2",
                value: 3
            })
        );
        // 65,535 items: `items_n1` (a `u16`) would be 65,536.
        let items = vec![(0u16, 0u32); 65_535];
        assert_eq!(
            write(&items, b"", 0),
            Err(WriteError::TooLarge {
                field: "info.items_n1",
                value: 65_536
            })
        );
        assert!(write(&items[..65_534], b"", 0).is_ok());
    }
}
