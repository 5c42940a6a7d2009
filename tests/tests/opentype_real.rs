//! OpenType and TrueType fonts, a public format nobody here designed
//! (`formats/opentype.yaml`): the table directory, every table it locates inside the file and
//! 4-aligned, the records sorted by tag, each table's checksum (`sum32be`, the sum of its
//! big-endian words; the `head` table's with its checkSumAdjustment as zero, `zero:`), no two
//! tables sharing a byte (`ownership`), and the `head`, `hhea` and `maxp` tables found by
//! their tags (`records[tag == HEAD]`), checked as the crate checks them (`head`'s version and
//! magic number besides). Run on the fonts of this machine (`.ttf` and `.otf` under
//! `/usr/share/fonts`: `scripts/setup-formats` installs Debian's fonts-freefont-otf and
//! fonts-liberation2 when there are few; skipped with a message when there are none) and held
//! to the `ttf-parser` crate (`Face::parse`: the directory, and the tables every face needs,
//! `head`, `hhea` and `maxp`, read from where their records say) verdict for verdict and
//! record for record, and to the schema interpreter error for error. Then mutants of the
//! smallest font (every byte of the directory flipped, truncations, records aimed at each
//! other's tables, every byte of the `head` table's fields flipped, random mutants): no panic,
//! the generated code and the interpreter give the same error (code, field, offset, detail,
//! site), and each verdict that differs from the crate's is counted by its reason, a rule one
//! reader holds and the other does not (below); any other difference fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use npuschema_core::Brief;
use npuschema_tests::npu1_blobs::xorshift;

// The generated code, expanded once in npuschema_tests::compare (the fuzz target's too).
use npuschema_tests::compare::schemas::opentype::OpenType;

/// A table record as both readers give it: tag, checksum, offset, length.
type Rec = (u32, u32, u32, u32);

/// The fonts of this machine, smaller than 8 MiB, in path order.
fn fonts() -> Vec<(PathBuf, Vec<u8>)> {
    npuschema_tests::real_files(
        &[PathBuf::from("/usr/share/fonts")],
        &["ttf", "otf"],
        8 << 20,
        500,
    )
    .into_iter()
    .filter_map(|p| Some((p.clone(), std::fs::read(&p).ok()?)))
    .collect()
}

/// `ttf-parser`'s verdict: the face, and its table records in directory order.
fn by_crate(b: &[u8]) -> Result<Vec<Rec>, String> {
    let face = ttf_parser::Face::parse(b, 0).map_err(|e| format!("{e:?}"))?;
    Ok(face
        .raw_face()
        .table_records
        .into_iter()
        .map(|r| (r.tag.0, r.check_sum, r.offset, r.length))
        .collect())
}

/// The generated validator's verdict and records; its `Brief` names the same check.
fn by_schema(b: &[u8]) -> Result<Vec<Rec>, &'static str> {
    let brief = OpenType::validate_as::<Brief>(b).map(|_| ());
    match OpenType::validate(b) {
        Ok(v) => {
            assert_eq!(brief, Ok(()));
            Ok(v.records()
                .map(|r| (r.tag(), r.checksum(), r.offset(), r.length()))
                .collect())
        }
        Err(e) => {
            let id = brief.expect_err("Brief rejects too").id();
            let site = npuschema_tests::compare::schemas::opentype::error_site(id).unwrap();
            assert_eq!((site.code, site.name), (e.code, e.field.name));
            Err(e.code)
        }
    }
}

/// The generated code and the interpreter on one file: the same error, or both accept.
fn same_as_interpreter(b: &[u8]) {
    npuschema_tests::agree_with(
        "../formats/opentype.yaml",
        b,
        OpenType::validate(b),
        OpenType::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id()),
        |g, v| npuschema_tests::compare::opentype(b, g, v),
    );
}

/// Why the two readers' verdicts on `b` may differ: a rule one of them holds and the other
/// does not. `None` for any other difference (the test fails).
fn one_reader_rule(
    ours: &Result<Vec<Rec>, &'static str>,
    theirs: &Result<Vec<Rec>, String>,
) -> Option<&'static str> {
    match (ours, theirs) {
        (Err(code), Ok(_)) => match *code {
            // The crate reads neither the checksums nor where tables lie against each other,
            // and skips the binary search fields (it binary-searches the records itself).
            "checksum-mismatch" | "bad-font-checksum" => {
                Some("checksums (the crate does not check them)")
            }
            "tables-overlap" => Some("overlapping tables (the crate does not check)"),
            "bad-search-range" | "bad-range-shift" => {
                Some("binary search fields (the crate skips them)")
            }
            "misaligned-table" => Some("tables on 4-byte boundaries (the crate does not check)"),
            "bad-head-version" | "bad-head-magic" => {
                Some("the head table's version and magic number (the crate skips them)")
            }
            // A table the face does not need, outside the file: the crate leaves it out.
            "table-out-of-bounds" => Some("a table outside the file that no face needs"),
            // Records out of order or a tag twice: the crate finds the tables it needs by a
            // binary search, which may still find them.
            "not-sorted" => {
                Some("records not sorted by tag (the crate's search still finds its tables)")
            }
            _ => None,
        },
        // The tables every face needs are found and checked by both (`no-head-table`,
        // `bad-units-per-em`, ...): a file only the crate refuses is a difference.
        _ => None,
    }
}

/// `m` sealed as its maker would seal it, `head`'s checkSumAdjustment set so that the whole
/// font sums to 0xB1B0AFBA (`construct_blobs::opentype_seal`): decided by the other rules (an
/// unsealed one fails `bad-font-checksum` after them).
fn sealed(m: &[u8]) -> Vec<u8> {
    let mut b = m.to_vec();
    npuschema_tests::construct_blobs::opentype_seal(&mut b);
    b
}

#[test]
fn real_fonts_agree_with_ttf_parser() {
    let files = fonts();
    if files.is_empty() {
        eprintln!(
            "opentype_real: no .ttf or .otf file under /usr/share/fonts (scripts/setup-formats installs fonts-freefont-otf and fonts-liberation2); skipped"
        );
        return;
    }
    assert_eq!(
        npuschema_tests::interp("../formats/opentype.yaml").sites(),
        &npuschema_tests::compare::schemas::opentype::ERROR_SITES[..]
    );
    let (mut accepted, mut tables, mut cff) = (0usize, 0usize, 0usize);
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    for (p, b) in &files {
        let ours = by_schema(b);
        let theirs = by_crate(b);
        match (&ours, &theirs) {
            (Ok(a), Ok(t)) => {
                assert_eq!(a, t, "{}: the table records differ", p.display());
                accepted += 1;
                tables += a.len();
                cff += usize::from(b.starts_with(b"OTTO"));
            }
            (Err(code), Err(_)) => *refused.entry(code).or_default() += 1,
            _ => panic!(
                "{}: schema {:?} / ttf-parser {:?}",
                p.display(),
                ours.as_ref().map(Vec::len),
                theirs.as_ref().map(Vec::len)
            ),
        }
        same_as_interpreter(b);
    }
    eprintln!(
        "opentype_real: {} fonts, {accepted} accepted by both ({cff} with CFF outlines; {tables} tables, every table's checksum verified, the head table's with its checkSumAdjustment as zero, and the whole font's sum), refused by both {refused:?}",
        files.len()
    );
    assert!(accepted > 0, "no font both readers accept");
}

#[test]
fn mutants_of_a_real_font_agree_with_ttf_parser() {
    let Some((_, good)) = fonts()
        .into_iter()
        .filter(|(_, b)| by_crate(b).is_ok() && by_schema(b).is_ok())
        .min_by_key(|(_, b)| b.len())
    else {
        eprintln!("opentype_real: no font here; skipped");
        return;
    };
    let n = usize::from(u16::from_be_bytes([good[4], good[5]]));
    let dir = 12 + 16 * n;
    let mut verdicts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut apart: BTreeMap<&str, usize> = BTreeMap::new();
    let mut compared = 0usize;
    // Each mutant sealed (`sealed`), unless `seal` is false.
    let mut check = |raw: &[u8], seal: bool| {
        let sealed = if seal { sealed(raw) } else { raw.to_vec() };
        let m = &sealed[..];
        let ours = by_schema(m);
        *verdicts
            .entry(ours.as_ref().err().copied().unwrap_or("ok"))
            .or_default() += 1;
        let theirs = by_crate(m);
        match (&ours, &theirs) {
            (Ok(a), Ok(t)) => assert_eq!(a, t),
            (Err(_), Err(_)) => {}
            _ => match one_reader_rule(&ours, &theirs) {
                Some(why) => *apart.entry(why).or_default() += 1,
                None => panic!("schema {ours:?} / ttf-parser {theirs:?}"),
            },
        }
        same_as_interpreter(m);
        compared += 1;
    };
    // Every byte of the directory flipped three ways.
    let mut m = good.clone();
    for at in 0..dir {
        for x in [0x01u8, 0x80, 0xFF] {
            m[at] ^= x;
            check(&m, true);
            m[at] = good[at];
        }
    }
    // Truncations: inside the directory, then every 997 bytes of the tables.
    for len in (0..dir + 8).chain((dir..good.len()).step_by(997)) {
        check(&good[..len], true);
    }
    // Each record aimed at every other record's table (two tables sharing bytes).
    for i in 0..n {
        for j in 0..n {
            let (ri, rj) = (12 + 16 * i, 12 + 16 * j);
            let mut b = good.clone();
            b.copy_within(rj + 8..rj + 12, ri + 8);
            check(&b, true);
        }
    }
    // A table's byte changed (its checksum no longer holds).
    for i in 0..n {
        let r = 12 + 16 * i;
        let off = u32::from_be_bytes(good[r + 8..r + 12].try_into().unwrap()) as usize;
        let len = u32::from_be_bytes(good[r + 12..r + 16].try_into().unwrap()) as usize;
        if len > 0 {
            let mut b = good.clone();
            b[off + len / 2] ^= 0x10;
            check(&b, true);
        }
    }
    // Every byte of the `head` table's fields flipped, every table's checksum computed again
    // (the `head` table's with its checkSumAdjustment as zero, as the schema's `zero:` says)
    // and the font sealed (`construct_blobs::opentype_reseal`), so that the schema and the
    // crate decide by what the table says.
    let head = (0..n)
        .map(|i| 12 + 16 * i)
        .find(|&r| good[r..r + 4] == *b"head")
        .map(|r| u32::from_be_bytes(good[r + 8..r + 12].try_into().unwrap()) as usize)
        .expect("a font both readers accept has a head table");
    for at in head..head + 54 {
        for x in [0x01u8, 0x80, 0xFF] {
            let mut b = good.clone();
            b[at] ^= x;
            npuschema_tests::construct_blobs::opentype_reseal(&mut b);
            check(&b, true);
        }
    }
    // checkSumAdjustment flipped and left so: the whole font's sum is wrong.
    for at in head + 8..head + 12 {
        let mut b = good.clone();
        b[at] ^= 0x08;
        check(&b, false);
    }
    let mut next = xorshift(0x0771);
    for _ in 0..3_000 {
        for _ in 0..=(next() % 4) {
            let at = next() as usize % dir;
            m[at] = next() as u8;
        }
        check(&m, true);
        m.copy_from_slice(&good);
    }
    eprintln!(
        "opentype_real mutants: {compared} of a {}-byte font with {n} tables, each with ttf-parser's verdict and the interpreter's error; verdicts {verdicts:?}; verdicts apart, by the rule one reader holds: {apart:?}",
        good.len()
    );
    for code in [
        "too-short",
        "bad-version",
        "records-out-of-bounds",
        "table-out-of-bounds",
        "misaligned-table",
        "checksum-mismatch",
        "not-sorted",
        "tables-overlap",
        "bad-search-range",
        "no-head-table",
        "bad-head-version",
        "bad-head-magic",
        "bad-units-per-em",
        "bad-loca-format",
        "bad-font-checksum",
        "ok",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}
