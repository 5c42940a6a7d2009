//! Record streams whose `size` is a form of one header field (`tests/schemas/sizeforms.yaml`):
//! the generated stream writers solve each record's size for its field (`words * WORD`,
//! `total - 2` over the whole record, `2 * half + 1`), refuse a size no value of the field
//! gives (`WriteError::NotRepresentable`) or one past the field's width (`TooLarge`), and the
//! plain writer places the range at a constant offset that runs to the end of the file. The
//! files they write validate, read back with the sizes solved, and they and their mutants get
//! the same verdict, `Error` and `Brief` from the generated code and the interpreter.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use std::path::Path;

use npuschema_core::{Brief, WriteError};

mod sizeforms {
    npuschema_macro::include_schema!("schemas/sizeforms.yaml");
}
use sizeforms::{
    LessSpec, LessWriter, SizeForms, SizeFormsWriter, TaggedSpec, TaggedWriter, WordsSpec,
    WordsWriter,
};

fn interp() -> &'static npuschema_codegen::interp::Interp<'static> {
    static I: std::sync::OnceLock<npuschema_codegen::interp::Interp<'static>> =
        std::sync::OnceLock::new();
    I.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/sizeforms.yaml");
        let c = npuschema_codegen::load(&path).unwrap_or_else(|d| panic!("{d}"));
        let c: &'static npuschema_codegen::Checked = Box::leak(Box::new(c));
        npuschema_codegen::interp::Interp::new(c)
    })
}

/// The generated validator's verdict (its error code), held to its `Brief` and to the
/// interpreter's `Error` and `Brief`.
fn verdict(b: &[u8]) -> Result<(), &'static str> {
    let g = SizeForms::validate(b).map(|_| ());
    let gb = SizeForms::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    let it = interp();
    assert_eq!(gb, it.check::<Brief>(b).map_err(|e| e.id()));
    assert_eq!(
        g.map_err(|e| e.code),
        gb.map_err(|id| sizeforms::error_site(id).unwrap().code)
    );
    match (&g, it.validate(b)) {
        (Err(ge), Err(ie)) => assert_eq!(*ge, ie),
        (Ok(()), Ok(_)) => {}
        (g, i) => panic!("generated {g:?}, interpreter {:?}", i.map(|_| ())),
    }
    g.map_err(|e| e.code)
}

/// The bytes of one stream, by its writer.
macro_rules! stream {
    ($w:ident, $specs:expr) => {{
        let w = $w::new($specs);
        let n = w.encoded_len()?;
        let mut out = vec![0xAAu8; n];
        assert_eq!(w.write_into(&mut out)?, n);
        out
    }};
}

/// A file with these records in its three streams.
fn file(
    words: &[(u8, &[u8])],
    less: &[(u16, &[u8])],
    tagged: &[(u8, &[u8])],
) -> Result<Vec<u8>, WriteError> {
    let w: Vec<WordsSpec<'_>> = words
        .iter()
        .map(|&(kind, body)| WordsSpec { kind, body })
        .collect();
    let l: Vec<LessSpec<'_>> = less
        .iter()
        .map(|&(kind, body)| LessSpec { kind, body })
        .collect();
    let t: Vec<TaggedSpec<'_>> = tagged
        .iter()
        .map(|&(tag, body)| TaggedSpec { tag, body })
        .collect();
    let file = SizeFormsWriter::new()
        .words(&w)
        .less(&l)
        .tagged(&t)
        .to_vec()?;
    // Each stream's bytes in the file are what its own writer writes.
    if let Ok(v) = SizeForms::validate(&file) {
        assert_eq!(v.words_area(), &stream!(WordsWriter, &w)[..]);
        assert_eq!(v.less_area(), &stream!(LessWriter, &l)[..]);
        assert_eq!(v.tagged_area(), &stream!(TaggedWriter, &t)[..]);
    }
    Ok(file)
}

#[test]
fn each_size_is_solved_for_its_field_and_reads_back() {
    let b = file(
        &[(1, &[7u8; 8]), (2, &[]), (3, &[9u8; 4])],
        &[(5, b"abc"), (6, b"")],
        &[(3, b"x"), (4, b"123"), (0, b"zzzzz")],
    )
    .unwrap();
    assert_eq!(verdict(&b), Ok(()));
    let v = SizeForms::validate(&b).unwrap();
    // words * 4 = the body's length.
    let words: Vec<(u8, u8, usize)> = v
        .words()
        .map(|r| (r.header().kind(), r.header().words(), r.body().len()))
        .collect();
    assert_eq!(words, [(1, 2, 8), (2, 0, 0), (3, 1, 4)]);
    // total - 2 = the record's length, header included.
    let less: Vec<(u16, u16, usize)> = v
        .less()
        .map(|r| (r.header().kind(), r.header().total(), r.body().len()))
        .collect();
    assert_eq!(less, [(5, 9, 3), (6, 6, 0)]);
    // 2 * half + 1 = the body's length; the terminator last.
    let tagged: Vec<(u8, u8, Vec<u8>)> = v
        .tagged()
        .map(|r| (r.header().tag(), r.header().half(), r.body().to_vec()))
        .collect();
    assert_eq!(
        tagged,
        [
            (3, 0, b"x".to_vec()),
            (4, 1, b"123".to_vec()),
            (0, 2, b"zzzzz".to_vec())
        ]
    );
    // The range at its constant offset (64), zeros between what precedes it and there,
    // and running to the end of the file.
    let h = v.header();
    let less_end = (h.less_offset() + h.less_bytes()) as usize;
    assert!(less_end <= 64);
    assert!(b[less_end..64].iter().all(|&x| x == 0));
    assert_eq!(b.len(), 64 + 2 + 1 + 2 + 3 + 2 + 5);
}

#[test]
fn a_size_no_field_value_gives_is_refused() {
    // Not a multiple of WORD.
    let e = WriteError::NotRepresentable {
        field: "words[].words",
        value: 3,
    };
    assert_eq!(file(&[(1, b"abc")], &[], &[(0, b"z")]), Err(e));
    assert_eq!(
        WordsWriter::new(&[WordsSpec {
            kind: 1,
            body: b"abc"
        }])
        .write_into(&mut [0u8; 64]),
        Err(e)
    );
    // 256 words do not fit a u8.
    let big = vec![0u8; 1024];
    assert_eq!(
        file(&[(1, &big)], &[], &[(0, b"z")]),
        Err(WriteError::TooLarge {
            field: "words[].words",
            value: 1024
        })
    );
    // total = 4 + body + 2 past a u16.
    let big = vec![0u8; 65530];
    assert_eq!(
        file(&[], &[(1, &big)], &[(0, b"z")]),
        Err(WriteError::TooLarge {
            field: "less[].total",
            value: 65534
        })
    );
    // 2 * half + 1: an empty body is below the constant, an even one off the factor.
    for (body, size) in [(&b""[..], 0u64), (&b"ab"[..], 2)] {
        assert_eq!(
            file(&[], &[], &[(0, body)]),
            Err(WriteError::NotRepresentable {
                field: "tagged[].half",
                value: size
            })
        );
    }
    // The terminator last, and only there.
    assert_eq!(
        file(&[], &[], &[(0, b"z"), (1, b"z")]),
        Err(WriteError::Layout { item: "tagged" })
    );
}

#[test]
fn a_range_at_a_constant_offset_cannot_be_placed_after_it() {
    // The words and less areas end past 64: the tagged area cannot start there.
    let body = [0u8; 48];
    assert_eq!(
        file(&[(1, &body)], &[], &[(0, b"z")]),
        Err(WriteError::Layout {
            item: "tagged_area"
        })
    );
    // Up to 64 it fits.
    let body = [0u8; 44];
    let b = file(&[(1, &body)], &[], &[(0, b"z")]).unwrap();
    assert_eq!(verdict(&b), Ok(()));
}

#[test]
fn writer_built_files_and_their_mutants_agree_with_the_interpreter() {
    let mut codes = std::collections::BTreeMap::<&str, usize>::new();
    for b in [
        file(
            &[(1, &[7u8; 8]), (2, &[])],
            &[(5, b"abc"), (6, b"")],
            &[(3, b"x"), (0, b"zzz")],
        )
        .unwrap(),
        file(&[], &[], &[(0, b"z")]).unwrap(),
    ] {
        assert_eq!(verdict(&b), Ok(()));
        let mut mutants = Vec::new();
        for at in 0..b.len() {
            for x in [0x01u8, 0x02, 0x80, 0xFF] {
                let mut m = b.clone();
                m[at] ^= x;
                mutants.push(m);
            }
        }
        for len in 0..b.len() {
            mutants.push(b[..len].to_vec());
        }
        for m in &mutants {
            let code = verdict(m).err().unwrap_or("ok");
            *codes.entry(code).or_default() += 1;
        }
    }
    eprintln!("sizeforms mutants: {codes:?}");
    for code in [
        "truncated-header",
        "bad-magic",
        "words-out-of-bounds",
        "less-out-of-bounds",
        "tagged-out-of-bounds",
        "bad-word-record",
        "bad-less-record",
        "bad-tagged-record",
    ] {
        assert!(
            codes.contains_key(code),
            "no mutant reached {code}: {codes:?}"
        );
    }
}
