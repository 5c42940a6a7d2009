//! A section directory's writer placing parts without a field (`tests/schemas/dirtail.yaml`:
//! a range at a constant offset of a constant length, a body that ends `SIG` bytes before the
//! end of the file, the `SIG`-byte trailer at `len - SIG`), a located record at the end of
//! the file (`dirfoot.yaml`) and another table at the end of the file, of the size its count
//! gives (`dirindex.yaml`). Each end-of-file part is the last of `writer.order`, right after
//! what precedes it; a constant length is checked (`WriteError::WrongLength`). The files are
//! the ones laid out by hand (`construct_blobs`), validate (`Error` and `Brief`), and their
//! views give back every input.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    missing_docs
)]

use npuschema_core::{Brief, WriteError};
use npuschema_tests::compare::schemas::{dirfoot, dirindex, dirtail};
use npuschema_tests::construct_blobs::{dirfoot_file, dirindex_file, dirtail_file};

macro_rules! verdict {
    ($m:ident, $t:ident, $b:expr) => {{
        let b: &[u8] = $b;
        let g = $m::$t::validate(b).map(|_| ());
        let gb = $m::$t::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id());
        assert_eq!(
            g.map_err(|e| e.code),
            gb.map_err(|id| $m::error_site(id).unwrap().code)
        );
        g.map_err(|e| e.code)
    }};
}

/// The note at 16, the directory at 24, the payloads, the body 4-aligned, the signature right
/// after it; a note or signature of another length is refused.
#[test]
fn a_directory_writer_places_ranges_without_fields() {
    use dirtail::{DirTail, DirTailSpec, SectionSpec};
    let sections = [
        SectionSpec {
            kind: 0x7000_0003,
            entsize: 0,
            payload: b"code!",
        },
        SectionSpec {
            kind: 1,
            entsize: 0,
            payload: b"",
        },
        SectionSpec {
            kind: 2,
            entsize: 4,
            payload: b"data1234",
        },
    ];
    let spec = DirTailSpec {
        level: 3,
        note: b"NOTE8BYT",
        body: b"the body",
        sig: b"SIGNED",
        sections: &sections,
    };
    let b = spec.to_vec().unwrap();
    let by_hand: Vec<(u32, u32, &[u8])> = sections
        .iter()
        .map(|s| (s.kind, s.entsize, s.payload))
        .collect();
    assert_eq!(
        b,
        dirtail_file(3, b"NOTE8BYT", &by_hand, b"the body", b"SIGNED")
    );
    assert_eq!(&b[16..24], b"NOTE8BYT");
    assert!(b.ends_with(b"the bodySIGNED"));
    assert_eq!(verdict!(dirtail, DirTail, &b), Ok(()));
    let v = DirTail::validate(&b).unwrap();
    assert_eq!(
        (v.note(), v.body(), v.sig()),
        (&b"NOTE8BYT"[..], &b"the body"[..], &b"SIGNED"[..])
    );
    let got: Vec<(u32, Option<&[u8]>)> = v.sections().map(|s| (s.kind(), s.payload())).collect();
    assert_eq!(
        got,
        [
            (0x7000_0003, Some(&b"code!"[..])),
            (1, Some(&b""[..])),
            (2, Some(&b"data1234"[..]))
        ]
    );
    // No sections, an empty body.
    let b = DirTailSpec {
        sections: &[],
        body: b"",
        ..spec
    }
    .to_vec()
    .unwrap();
    assert_eq!(b, dirtail_file(3, b"NOTE8BYT", &[], b"", b"SIGNED"));
    assert_eq!(verdict!(dirtail, DirTail, &b), Ok(()));
    assert_eq!(
        DirTailSpec {
            note: b"short",
            ..spec
        }
        .to_vec(),
        Err(WriteError::WrongLength {
            range: "note",
            expected: 8,
            given: 5
        })
    );
    assert_eq!(
        DirTailSpec {
            sig: b"a longer signature",
            ..spec
        }
        .to_vec(),
        Err(WriteError::WrongLength {
            range: "sig",
            expected: 6,
            given: 18
        })
    );
}

/// The footer right after the last payload, unaligned, holding where the directory is and
/// its count; and an index of the size its count gives, the same way.
#[test]
fn a_directory_writer_ends_the_file_with_a_record_or_a_table() {
    use dirfoot::{DirFoot, DirFootSpec};
    let sections = [
        dirfoot::SectionSpec {
            kind: 9,
            entsize: 0,
            payload: b"abc",
        },
        dirfoot::SectionSpec {
            kind: 0xFFFF_FFFF,
            entsize: 0,
            payload: b"defgh",
        },
    ];
    let b = DirFootSpec {
        level: 1,
        footer_stamp: 0xABCD,
        sections: &sections,
    }
    .to_vec()
    .unwrap();
    let by_hand: Vec<(u32, u32, &[u8])> = sections
        .iter()
        .map(|s| (s.kind, s.entsize, s.payload))
        .collect();
    assert_eq!(b, dirfoot_file(1, 0xABCD, &by_hand));
    assert_eq!(b.len(), 8 + 32 + 4 + 5 + 12);
    assert_eq!(verdict!(dirfoot, DirFoot, &b), Ok(()));
    let v = DirFoot::validate(&b).unwrap();
    let f = v.footer();
    assert_eq!((f.dir_at(), f.count(), f.stamp()), (8, 2, 0xABCD));
    assert_eq!(
        v.sections().filter_map(|s| s.payload()).collect::<Vec<_>>(),
        [&b"abc"[..], b"defgh"]
    );
    let b = DirFootSpec {
        level: 0,
        footer_stamp: 0,
        sections: &[],
    }
    .to_vec()
    .unwrap();
    assert_eq!(b, dirfoot_file(0, 0, &[]));
    assert_eq!(verdict!(dirfoot, DirFoot, &b), Ok(()));

    use dirindex::{DirIndex, DirIndexSpec, MarkSpec};
    let sections = [dirindex::SectionSpec {
        kind: 4,
        entsize: 0,
        payload: b"xyz",
    }];
    let marks = [
        MarkSpec {
            section: 0,
            value: 7,
        },
        MarkSpec {
            section: 0,
            value: 8,
        },
    ];
    let b = DirIndexSpec {
        index: &marks,
        sections: &sections,
    }
    .to_vec()
    .unwrap();
    assert_eq!(b, dirindex_file(&[(4, 0, b"xyz")], &[(0, 7), (0, 8)]));
    assert_eq!(b.len(), 16 + 16 + 3 + 16);
    assert_eq!(verdict!(dirindex, DirIndex, &b), Ok(()));
    let v = DirIndex::validate(&b).unwrap();
    assert_eq!(
        v.index()
            .map(|m| (m.section(), m.value()))
            .collect::<Vec<_>>(),
        [(0, 7), (0, 8)]
    );
    let b = DirIndexSpec {
        index: &[],
        sections: &[],
    }
    .to_vec()
    .unwrap();
    assert_eq!(b, dirindex_file(&[], &[]));
    assert_eq!(verdict!(dirindex, DirIndex, &b), Ok(()));
}
