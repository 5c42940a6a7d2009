//! The plain writer and a version-gated located record (`tests/schemas/gatedw.yaml`): `meta`,
//! laid out by `header.version`, holds the places and lengths of the body, of `notes` (a
//! range with `when` on a header flag bit, its fields only in the layouts from version 2), of
//! `extra` (a range with `when: header.version >= 1`) and of `log` (a range holding a record
//! stream); a CRC-32 over the body reads its span from `meta`; the table `marks` and the
//! record `stamp` are placed by its fields. The writer sets every one of
//! those fields in the layout of the version given, writes `notes` only in a layout that has
//! its fields (`WriteError::NotInLayout`), checks `extra`'s condition on the header it wrote
//! (`WhenDisagrees`) and computes the CRC over `meta` as written. The files are the ones laid
//! out by hand (`construct_blobs::gatedw_file`), validate (`Error` and `Brief`), and their
//! views give back every input. A section directory's writer does the same with
//! `tests/schemas/dirgatew.yaml` (`meta` holds the directory's count, the title's place and,
//! from version 2, the optional `extra`'s place and length).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    missing_docs
)]

use npuschema_core::{Brief, WriteError};
use npuschema_tests::compare::schemas::gatedw::{self, GatedW, GatedWWriter, HeaderFlags};
use npuschema_tests::construct_blobs::{GatedWParts, gatedw_file};

fn verdict(b: &[u8]) -> Result<(), &'static str> {
    let g = GatedW::validate(b).map(|_| ());
    let gb = GatedW::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    assert_eq!(
        g.map_err(|e| e.code),
        gb.map_err(|id| gatedw::error_site(id).unwrap().code)
    );
    g.map_err(|e| e.code)
}

/// Two log records, the second aligned to 2: kind 1 with 3 bytes, kind 2 empty.
const LOG: &[u8] = &[1, 0, 3, 0, b'a', b'b', b'c', 0, 2, 0, 0, 0];

/// The records of `log` (`LOG` or none), as the writer takes them (it writes the stream
/// into `log`).
fn log_entries(log: &[u8]) -> Vec<gatedw::EntriesSpec<'static>> {
    if log.is_empty() {
        return Vec::new();
    }
    assert_eq!(log, LOG, "the tests write LOG's records or none");
    vec![
        gatedw::EntriesSpec {
            kind: 1,
            body: b"abc",
        },
        gatedw::EntriesSpec { kind: 2, body: b"" },
    ]
}

fn write(p: &GatedWParts<'_>) -> Result<Vec<u8>, WriteError> {
    let marks: Vec<gatedw::MarkSpec> = p
        .marks
        .iter()
        .map(|&word| gatedw::MarkSpec { word })
        .collect();
    let entries = log_entries(p.log);
    let mut w = GatedWWriter::new()
        .version(p.version)
        .flags(HeaderFlags::from_bits_retain(p.flags))
        .meta_legacy(p.legacy)
        .stamp_when(p.stamp)
        .title(p.title)
        .marks(&marks)
        .body(p.body)
        .entries(&entries);
    if let Some(n) = p.notes {
        w = w.notes(n);
    }
    if let Some(e) = p.extra {
        w = w.extra(e);
    }
    w.to_vec()
}

/// Every version's layout, with and without `notes`: the bytes laid out by hand, valid, and
/// read back.
#[test]
fn every_layout_of_the_gated_record_is_written() {
    for version in [0u16, 1, 2, 3, 7] {
        for notes in [None, Some(&b"some notes"[..]), Some(&b""[..])] {
            if version < 2 && notes.is_some() {
                continue;
            }
            let p = GatedWParts {
                version,
                flags: 2,
                legacy: 0x5A5A,
                body: b"the body!",
                notes,
                extra: (version >= 1).then_some(&b"EXTRA"[..]),
                log: LOG,
                marks: &[7, 8, 9],
                stamp: u64::from(version) << 40,
                title: b"a title",
            };
            let b = write(&p).unwrap();
            assert_eq!(b, gatedw_file(&p), "version {version}, notes {notes:?}");
            assert_eq!(verdict(&b), Ok(()), "version {version}");
            let v = GatedW::validate(&b).unwrap();
            let h = v.header();
            assert_eq!(h.version(), version);
            assert!(h.flags().contains(HeaderFlags::SIGNED));
            assert_eq!(h.flags().contains(HeaderFlags::HAS_NOTES), notes.is_some());
            assert_eq!(h.body_crc(), npuschema_core::crc32(0, b"the body!"));
            assert_eq!(v.body(), b"the body!");
            assert_eq!(v.notes(), notes);
            assert_eq!(v.extra(), p.extra);
            assert_eq!(v.log(), LOG);
            let m = v.meta();
            assert_eq!(m.legacy(), (version < 3).then_some(0x5A5A));
            assert_eq!(m.notes_at().is_some(), version >= 2);
            assert_eq!(v.marks().map(|m| m.word()).collect::<Vec<_>>(), [7, 8, 9]);
            assert_eq!(v.stamp().when(), u64::from(version) << 40);
            assert_eq!(v.title(), b"a title");
            let e: Vec<(u16, &[u8])> = v.entries().map(|r| (r.header().kind(), r.body())).collect();
            assert_eq!(e, [(1, &b"abc"[..]), (2, &b""[..])]);
        }
    }
}

/// `notes` in a layout without its fields, `extra` against its condition, and a body the
/// CRC covers edited after the fact.
#[test]
fn what_the_gated_writer_refuses() {
    let p = GatedWParts {
        version: 1,
        flags: 0,
        legacy: 1,
        body: b"b",
        notes: Some(b"n"),
        extra: Some(b"x"),
        log: b"",
        marks: &[],
        stamp: 0,
        title: b"",
    };
    assert_eq!(
        write(&p),
        Err(WriteError::NotInLayout {
            field: "meta.notes_at",
            gate: 1
        })
    );
    assert_eq!(
        write(&GatedWParts {
            version: 0,
            notes: None,
            ..p
        }),
        Err(WriteError::WhenDisagrees {
            part: "extra",
            given: true
        })
    );
    assert_eq!(
        write(&GatedWParts {
            version: 2,
            extra: None,
            ..p
        }),
        Err(WriteError::WhenDisagrees {
            part: "extra",
            given: false
        })
    );
    // The CRC covers the body where `meta` says it is: one byte changed fails it.
    let mut b = write(&GatedWParts { version: 2, ..p }).unwrap();
    assert_eq!(verdict(&b), Ok(()));
    let body_at = usize::try_from(GatedW::validate(&b).unwrap().meta().body_at()).unwrap();
    b[body_at] ^= 1;
    assert_eq!(verdict(&b), Err("bad-body-crc"));
}

/// The directory writer: every layout of `meta`, `extra` given where its fields are and left
/// out anywhere, the title placed by `meta`, the CRC from the title computed over `meta` read
/// back in its gate's layout; `extra` in a layout without its fields refused.
#[test]
fn a_directory_writer_writes_every_layout_of_a_gated_record() {
    use npuschema_tests::compare::schemas::dirgatew::{
        self, DirGateW, DirGateWSpec, HeaderFlags as F, SectionSpec,
    };
    use npuschema_tests::construct_blobs::dirgatew_file;
    let sections = [
        SectionSpec {
            kind: 1,
            entsize: 0,
            payload: b"code",
        },
        SectionSpec {
            kind: 0x7000_0001,
            entsize: 0,
            payload: b"more!",
        },
    ];
    let by_hand: Vec<(u32, u32, &[u8])> = sections
        .iter()
        .map(|s| (s.kind, s.entsize, s.payload))
        .collect();
    for version in [0u16, 1, 2, 3, 9] {
        for extra in [None, Some(&b"EXTRA BYTES"[..])] {
            if version < 2 && extra.is_some() {
                continue;
            }
            let spec = DirGateWSpec {
                version,
                flags: F::SIGNED,
                meta_legacy: 0x3C3C,
                extra,
                title: b"gated dir",
                sections: &sections,
            };
            let b = spec.to_vec().unwrap();
            assert_eq!(
                b,
                dirgatew_file(version, 2, 0x3C3C, &by_hand, extra, b"gated dir"),
                "version {version}"
            );
            let g = DirGateW::validate(&b).map(|_| ());
            let gb = DirGateW::validate_as::<Brief>(&b)
                .map(|_| ())
                .map_err(|e| e.id());
            assert_eq!(
                g.map_err(|e| e.code),
                gb.map_err(|id| dirgatew::error_site(id).unwrap().code)
            );
            assert_eq!(g.map_err(|e| e.code), Ok(()));
            let v = DirGateW::validate(&b).unwrap();
            assert_eq!(v.extra(), extra);
            assert_eq!(v.title(), b"gated dir");
            assert_eq!(v.meta().count(), 2);
            assert_eq!(v.meta().extra_at().is_some(), version >= 2);
            assert_eq!(v.header().flags().contains(F::HAS_EXTRA), extra.is_some());
            // The CRC from the title (where `meta` says) to the end, read back by `seal`.
            let title_at = usize::try_from(v.meta().title_at()).unwrap();
            assert_eq!(v.header().crc(), npuschema_core::crc32(0, &b[title_at..]));
        }
    }
    let spec = DirGateWSpec {
        version: 1,
        flags: F::empty(),
        meta_legacy: 0,
        extra: Some(b"x"),
        title: b"",
        sections: &[],
    };
    assert_eq!(
        spec.to_vec(),
        Err(WriteError::NotInLayout {
            field: "meta.extra_at",
            gate: 1
        })
    );
}
