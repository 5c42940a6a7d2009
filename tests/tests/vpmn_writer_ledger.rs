//! VPMN host side: the v2 writer reproduces real files from their sections, the DYNAIO A/B
//! edit recomputes every checksum and is reversible, the byte-ownership ledger gives every
//! byte one owner and re-emits each file exactly, and the image refuses changes made
//! outside the writer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod vpmn_util;

use npuschema_cli::vpmn::ledger::{Class, Image, Ledger, LedgerError};
use npuschema_cli::vpmn::writer::{Section, WriteError, build_v2, edit_dynaio_entry, spec_of};
use npuschema_cli::vpmn::{inspect, sha256_hex};
use npuschema_generated::vpmn::Vpmn;
use vpmn_util::*;

#[test]
fn writer_reproduces_every_v2_corpus_file() {
    let Some(files) = corpus() else { return };
    let mut n = 0;
    for (name, b) in &files {
        let Ok(spec) = spec_of(b) else {
            assert!(
                matches!(Vpmn::validate(b), Ok(Vpmn::V1(_))),
                "{name}: only v1 files have no v2 spec"
            );
            continue;
        };
        let out = build_v2(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            out == *b,
            "{name}: rebuilt from its sections, byte for byte"
        );
        n += 1;
    }
    assert_eq!(n, 3);
}

#[test]
fn writer_builds_valid_files_and_refuses_invalid_specs() {
    let b = build_v2(&small_spec()).unwrap();
    let Vpmn::V2(v) = Vpmn::validate(&b).unwrap() else {
        panic!()
    };
    assert_eq!(v.header().total_size(), b.len() as u64);
    // Every CHECKSUM value computed: the records equal the CRC of their sections.
    for c in v.checksums() {
        let p = v
            .sections()
            .find(|s| s.sd_type().raw() == c.sd_type())
            .unwrap()
            .payload()
            .unwrap();
        assert_eq!(c.checksum_value(), npuschema_core::crc32(0, p));
    }
    let mut bad = small_spec();
    bad.sections.push(Section::new(7, 192, vec![0; 192]));
    match build_v2(&bad) {
        Err(WriteError::Invalid(e)) => assert_eq!(e.code, "section-checksum-missing"),
        other => panic!("{other:?}"),
    }
    // spec_of inverts the writer: the same sections, with the CHECKSUM values filled in.
    let back = spec_of(&b).unwrap();
    assert!(build_v2(&back).unwrap() == b);
    let mut want = small_spec();
    want.sections[2].payload = back.sections[2].payload.clone();
    assert!(back == want);
    assert_ne!(
        back.sections[2].payload,
        small_spec().sections[2].payload,
        "values were computed"
    );
}

#[test]
fn dynaio_ab_edit_recomputes_the_checksums_and_reverts_exactly() {
    let a = build_v2(&small_spec()).unwrap();
    // The field map's controlled edit: source [0,1,2,3] becomes [0,1,2,4] through entry 0.
    let b = edit_dynaio_entry(&a, 0, &[0, 1, 2, 4]).unwrap();
    assert_eq!(b.len(), a.len());
    let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    let slot = payload_at(&a, 6) + 3;
    assert!(diff.contains(&slot), "the changed byte");
    assert!(
        diff.iter().all(|&i| i == slot || (0x0c..0x10).contains(&i)),
        "only the byte and the header crc_sum change: {diff:?}"
    );
    assert_ne!(word(&a, 0x0c), word(&b, 0x0c));
    assert!(Vpmn::validate(&b).is_ok());
    // Undoing the edit restores every byte.
    let back = edit_dynaio_entry(&b, 0, &[0, 1, 2, 3]).unwrap();
    assert_eq!(sha256_hex(&back), sha256_hex(&a));
    // The edit is in place: a length change, or a slot that does not exist, is refused.
    assert_eq!(
        edit_dynaio_entry(&a, 0, &[1, 2]),
        Err(WriteError::SizeMismatch { entry: 4, given: 2 })
    );
    assert_eq!(
        edit_dynaio_entry(&a, 2, &[1]),
        Err(WriteError::NoSuchEntry(2))
    );
}

#[test]
fn dynaio_edit_on_the_real_file() {
    let Some(a) = file("a733_face_blendshapes_int16.nb") else {
        return;
    };
    let Vpmn::V2(v) = Vpmn::validate(&a).unwrap() else {
        panic!()
    };
    let region = v.sections().find(|s| s.sd_type().raw() == 20).unwrap();
    let at = region.offset() as usize;
    let old = a[at..at + 4].to_vec();
    let mut new = old.clone();
    new[3] ^= 0x01;
    let b = edit_dynaio_entry(&a, 0, &new).unwrap();
    assert_eq!(&b[at..at + 4], &new[..]);
    let jb = inspect::json(&b).unwrap();
    assert_eq!(jb["file_checksum"]["matches"], true);
    assert_ne!(
        jb["file_checksum"]["recorded_crc32"],
        inspect::json(&a).unwrap()["file_checksum"]["recorded_crc32"]
    );
    let back = edit_dynaio_entry(&b, 0, &old).unwrap();
    assert!(back == a, "A -> B -> A reproduces the original bytes");
}

#[test]
fn ledger_owns_every_byte_once_and_reemits_each_file() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        let l = Ledger::of(b).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(l.is_exclusive(), "{name}: owners tile the file");
        assert_eq!(l.owners.first().unwrap().start, 0);
        assert_eq!(l.owners.last().unwrap().end, b.len() as u64);
        let total: u64 = l.owners.iter().map(|o| o.end - o.start).sum();
        assert_eq!(total, b.len() as u64, "{name}: every byte exactly once");
        let out = l.reemit(b);
        assert_eq!(
            sha256_hex(&out),
            sha256_hex(b),
            "{name}: re-emitted byte for byte"
        );
        // Headers and directories are decoded records; nothing is left unnamed.
        assert_eq!(l.owners[0].class, Class::DecodedRecord);
        assert!(l.owners.iter().all(|o| !o.what.is_empty()));
        // The final 512 bytes: a section reaches the end in every real file, so the tail
        // is a non-owning view over them.
        let v = l
            .views
            .iter()
            .find(|v| v.what == "connection-region")
            .unwrap_or_else(|| panic!("{name}: tail view"));
        assert_eq!(
            (v.start, v.end, v.kind),
            (b.len() as u64 - 512, b.len() as u64, "section-covered-view")
        );
        assert!(l.owners.iter().all(|o| o.class != Class::ConnectionTail));
    }
    // v2: the only non-payload gaps are the COEF_DATA and PPU_INSTR alignment (48 and 64
    // bytes in blendshapes), and the DYNAIO padding is 60 bytes.
    let b = file("a733_face_blendshapes_int16.nb").unwrap();
    let l = Ledger::of(&b).unwrap();
    let totals = l.totals();
    let get = |k: &str| totals.iter().find(|t| t.0 == k).map_or(0, |t| t.1);
    assert_eq!(get("alignment"), 48 + 64);
    assert_eq!(get("padding"), 60);
    assert_eq!(
        get("decoded-record") + get("alignment") + get("padding") + get("preserved-opaque"),
        b.len() as u64
    );
}

#[test]
fn ledger_tail_owner_when_no_section_reaches_the_end() {
    // A valid file with 600 bytes after the last payload: nothing owns the end, so the
    // final 512 bytes are the connection tail and the 88 before them padding.
    let mut b = build_v2(&small_spec()).unwrap();
    let end = b.len() as u64;
    b.extend((0..600u32).map(|i| (i % 251) as u8));
    let len = b.len() as u32;
    set_word(&mut b, 0x10, len);
    npuschema_cli::vpmn::writer::reseal(&mut b);
    assert!(Vpmn::validate(&b).is_ok());
    let l = Ledger::of(&b).unwrap();
    assert!(l.is_exclusive());
    assert!(l.views.is_empty(), "no section covers the tail");
    let n = l.owners.len();
    let (pad, tail) = (&l.owners[n - 2], &l.owners[n - 1]);
    assert_eq!(
        (pad.start, pad.end, pad.class),
        (end, end + 88, Class::Padding)
    );
    assert_eq!(
        (tail.start, tail.end, tail.class),
        (end + 88, end + 600, Class::ConnectionTail)
    );
    assert_eq!(l.reemit(&b), b);
    let j = inspect::json(&b).unwrap();
    assert_eq!(j["connection_tail"]["ownership"], "connection-tail");
    assert_eq!(
        j["connection_tail"]["sha256"].as_str().unwrap(),
        sha256_hex(&b[b.len() - 512..])
    );
}

#[test]
fn image_refuses_changes_outside_the_writer() {
    let a = build_v2(&small_spec()).unwrap();
    let mut img = Image::open(a.clone()).unwrap();
    assert_eq!(img.emit(), a);
    // Writing the same bytes is not a change.
    img.replace(100, &a[100..110]).unwrap();
    // Any change is refused and names the owner.
    let at = payload_at(&a, 6) as u64;
    match img.replace(at, &[9]) {
        Err(LedgerError::Refused { at: p, owner }) => {
            assert_eq!(p, at);
            assert!(
                owner.contains("preserved-opaque") && owner.contains("slot 0"),
                "{owner}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(img.replace(0x0c, &[0]), Err(LedgerError::Refused { owner, .. }) if owner.contains("format-header"))
    );
    assert_eq!(img.emit(), a, "nothing changed");
    // Through the writer the same change is made, with every checksum recomputed.
    let edited = img.edit_dynaio_entry(0, &[9, 1, 2, 3]).unwrap();
    assert_eq!(edited.emit()[at as usize], 9);
    assert!(Vpmn::validate(&edited.emit()).is_ok());
    // An invalid file has no image.
    let mut bad = a.clone();
    bad[0x0c] ^= 1;
    assert!(
        matches!(Image::open(bad), Err(LedgerError::Invalid(e)) if e.code == "file-checksum-mismatch")
    );
}
