//! A table at the end of the file, written by the generated plain writer: `tailtab.yaml`'s
//! index at `len - header.count * 12` (its size: whatever the number of records given) and
//! `tailfix.yaml`'s four slots at `len - SLOT_BYTES` (a constant: the records given must take
//! exactly those bytes, `WriteError::WrongLength` otherwise). Each is placed last, right after
//! what precedes it, so the file ends with it; the files are the ones laid out by hand
//! (`construct_blobs`), validate (`Error` and `Brief`), and their views give back every input.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    missing_docs
)]

use npuschema_core::{Brief, WriteError};
use npuschema_tests::compare::schemas::{tailfix, tailtab};
use npuschema_tests::construct_blobs::{tailfix_file, tailtab_file};

fn tailtab_verdict(b: &[u8]) -> Result<(), &'static str> {
    let g = tailtab::TailTab::validate(b).map(|_| ());
    let gb = tailtab::TailTab::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    assert_eq!(
        g.map_err(|e| e.code),
        gb.map_err(|id| tailtab::error_site(id).unwrap().code)
    );
    g.map_err(|e| e.code)
}

fn tailfix_verdict(b: &[u8]) -> Result<(), &'static str> {
    let g = tailfix::TailFix::validate(b).map(|_| ());
    let gb = tailfix::TailFix::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    assert_eq!(
        g.map_err(|e| e.code),
        gb.map_err(|id| tailfix::error_site(id).unwrap().code)
    );
    g.map_err(|e| e.code)
}

/// The index is the file's last `count * 12` bytes, right after the last blob (not aligned),
/// `count` set to the number of records; each blob 4-byte aligned, its place and size set.
#[test]
fn an_index_of_the_size_its_count_gives_ends_the_file() {
    use tailtab::{EntryBlob, EntrySpec, TailTab, TailTabWriter};
    let specs = [
        EntrySpec {
            id: 0x11,
            blob: EntryBlob::Present(b"abcde"),
        },
        EntrySpec {
            id: 0x22,
            blob: EntryBlob::Present(b"xy"),
        },
    ];
    let b = TailTabWriter::new().index(&specs).to_vec().unwrap();
    #[rustfmt::skip]
    let want: Vec<u8> = [
        &[0x54, 0x41, 0x49, 0x4C][..], // magic
        &[2, 0, 0, 0],                 // count
        b"abcde", &[0; 3],             // the first blob at 8, the next aligned to 16
        b"xy",                         // the second at 16; the index right after it, at 18
        &[0x11, 0, 0, 0], &[8, 0, 0, 0], &[5, 0, 0, 0],
        &[0x22, 0, 0, 0], &[16, 0, 0, 0], &[2, 0, 0, 0],
    ]
    .concat();
    assert_eq!(b, want);
    assert_eq!(b.len(), 18 + 24);
    assert_eq!(tailtab_verdict(&b), Ok(()));
    let v = TailTab::validate(&b).unwrap();
    let got: Vec<(u32, Option<&[u8]>)> = v.index().map(|r| (r.id(), r.blob())).collect();
    assert_eq!(got, [(0x11, Some(&b"abcde"[..])), (0x22, Some(&b"xy"[..]))]);
    // No records: the file is the header, the index empty at its end.
    let b = TailTabWriter::new().index(&[]).to_vec().unwrap();
    assert_eq!(b, tailtab_file(&[]));
    assert_eq!(b.len(), 8);
    assert_eq!(tailtab_verdict(&b), Ok(()));
    // A blob not stored: only its length is recorded, the index still ends the file.
    let specs = [EntrySpec {
        id: 5,
        blob: EntryBlob::Absent(9),
    }];
    let b = TailTabWriter::new().index(&specs).to_vec().unwrap();
    assert_eq!(b.len(), 8 + 12);
    // Its offset left 0 and its length 9: the bytes it names are the header's, which this
    // schema (no `when` on `blob`) does not tell from a stored blob.
    assert_eq!(tailtab_verdict(&b), Ok(()));
    let v = TailTab::validate(&b).unwrap();
    let r = v.index().next().unwrap();
    assert_eq!((r.id(), r.at(), r.size()), (5, 0, 9));
    // `encoded_len` agrees with `write_into`, and a short buffer is refused.
    let specs = [EntrySpec {
        id: 1,
        blob: EntryBlob::Present(b"0123456789"),
    }];
    let w = TailTabWriter::new().index(&specs);
    let n = w.encoded_len().unwrap();
    let mut out = vec![0u8; n];
    assert_eq!(w.write_into(&mut out), Ok(n));
    assert_eq!(out, tailtab_file(&[(1, b"0123456789")]));
    assert!(w.write_into(&mut out[..n - 1]).is_err());
}

/// Four 8-byte slots `SLOT_BYTES` (32) before the end: right after the body, `slots_n` set to
/// 4; three or five slots cannot take those 32 bytes, `WrongLength`.
#[test]
fn slots_a_constant_distance_from_the_end_end_the_file() {
    use tailfix::{SlotSpec, TailFix, TailFixWriter};
    let slots = [(1, 10), (2, 20), (3, 30), (4, 40)].map(|(key, value)| SlotSpec { key, value });
    let b = TailFixWriter::new()
        .body(b"BODY!")
        .slots(&slots)
        .to_vec()
        .unwrap();
    assert_eq!(
        b,
        tailfix_file(b"BODY!", [(1, 10), (2, 20), (3, 30), (4, 40)])
    );
    assert_eq!(b.len(), 12 + 5 + 32);
    assert_eq!(&b[8..12], &[4, 0, 0, 0]);
    assert_eq!(tailfix_verdict(&b), Ok(()));
    let v = TailFix::validate(&b).unwrap();
    assert_eq!(v.body(), b"BODY!");
    let got: Vec<(u32, u32)> = v.slots().map(|s| (s.key(), s.value())).collect();
    assert_eq!(got, [(1, 10), (2, 20), (3, 30), (4, 40)]);
    for n in [0, 3, 5] {
        let few: Vec<SlotSpec> = (0..n).map(|k| SlotSpec { key: k, value: k }).collect();
        assert_eq!(
            TailFixWriter::new().body(b"x").slots(&few).to_vec(),
            Err(WriteError::WrongLength {
                range: "slots",
                expected: 32,
                given: u64::from(n) * 8
            }),
            "{n} slots"
        );
    }
}
