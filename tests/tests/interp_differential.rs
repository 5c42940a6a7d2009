//! One semantics, two engines: the schema interpreter (`npuschema_codegen::interp`) and the
//! generated code must agree on every input, for every shipped schema and every test schema
//! that describes a file (expanded by the macro in `npuschema_tests::compare`, which holds the
//! per-schema comparisons; `isa.yaml` and `regblock.yaml` describe an instruction set and a
//! register block, with no bytes to interpret).
//!
//! Agreement means: the same error site table (`ERROR_SITES`, entry for entry); accept or
//! reject alike; the same `Error` (code, field path with index, byte offset, detail values);
//! the same `Brief` number; and, on success, every field value the generated view exposes
//! equal to the interpreter's view (raw words, enum names, composed values, bit ranges,
//! strings, byte ranges, checksums).
//!
//! Inputs: the real VPMN files (`$NPUSCHEMA_CORPUS/corpus/vpmn`; skipped with a message when
//! absent), the NPU1 fixtures and Vela-packed blobs, writer-built VPMN files, and mutation
//! sweeps of all of them (`npu1_blobs::mutate`, the VPMN sweep's offsets), plus regressions;
//! for the test schemas, fixtures with every byte flipped, every truncation and random
//! mutants, and each check made to fail on purpose.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::type_complexity,
    missing_docs
)]

mod vpmn_util;

use std::path::Path;

use npuschema_core::Brief;
use npuschema_generated::{ethos_u_cop1, ethos_u_cop2, npu1, vpmn};
use npuschema_tests::compare::{range, record, record_count, span};
use npuschema_tests::npu1_blobs::{blob, mutate, xorshift};
use npuschema_tests::same_fields;

use npuschema_tests::{agree_with, interp};

const NPU1: &str = "../schema/npu1.yaml";
const VPMN: &str = "../schema/vpmn.yaml";
const NPU1_V2: &str = "schemas/npu1_v2.yaml";
const BLOBPACK: &str = "schemas/blobpack.yaml";
const OBJTAB: &str = "schemas/objtab.yaml";
const CONDITIONAL: &str = "schemas/conditional.yaml";
const FLOATS: &str = "schemas/floats.yaml";
const BIGEND: &str = "schemas/bigend.yaml";
const ORDERED: &str = "schemas/ordered.yaml";
const PADDED: &str = "schemas/padded.yaml";
const OPENDIR: &str = "schemas/opendir.yaml";
const TLV: &str = "schemas/tlv.yaml";
const SCOPED: &str = "schemas/scoped.yaml";
const NESTED: &str = "schemas/nested.yaml";
const NAMEDTAB: &str = "schemas/namedtab.yaml";
const DIRNOTES: &str = "schemas/dirnotes.yaml";
const DIRMIX: &str = "schemas/dirmix.yaml";
const SUMSTREAM: &str = "schemas/sumstream.yaml";
const TWODIRS: &str = "schemas/twodirs.yaml";
const NESTFLAG: &str = "schemas/nestflag.yaml";
const WHENW: &str = "schemas/whenw.yaml";
const STRIDED: &str = "schemas/strided.yaml";
const PLAINLOC: &str = "schemas/plainloc.yaml";
const DIRGATE: &str = "schemas/dirgate.yaml";
const DIRLABEL: &str = "schemas/dirlabel.yaml";
const LOCTABLE: &str = "schemas/loctable.yaml";
const DIRREL: &str = "schemas/dirrel.yaml";
const DIRWHEN: &str = "schemas/dirwhen.yaml";
const LINFORMS: &str = "schemas/linforms.yaml";
const SIGTRAIL: &str = "schemas/sigtrail.yaml";
const TAILTAB: &str = "schemas/tailtab.yaml";
const TAILFIX: &str = "schemas/tailfix.yaml";
const GATEDW: &str = "schemas/gatedw.yaml";
const DIRTAIL: &str = "schemas/dirtail.yaml";
const DIRFOOT: &str = "schemas/dirfoot.yaml";
const DIRINDEX: &str = "schemas/dirindex.yaml";
const DIROPT: &str = "schemas/diropt.yaml";
const DIRLIN: &str = "schemas/dirlin.yaml";
const LOCLIN: &str = "schemas/loclin.yaml";
const DIRGATEW: &str = "schemas/dirgatew.yaml";
const COP1: &str = "../schema/ethos_u_cop1.yaml";
const COP2: &str = "../schema/ethos_u_cop2.yaml";

// The schema-language test schemas (tests/tests/schema_constructs.rs), expanded by the macro
// in npuschema_tests::compare, which also holds the comparison of each with the interpreter.
use npuschema_tests::compare::schemas::{
    bigend, blobpack, conditional, dirmix, dirnotes, floats, namedtab, nested, nestflag, npu1_v2,
    objtab, opendir, ordered, padded, scoped, strided, strtab, sumstream, titled, tlv, twodirs,
    wav, whenw,
};
use npuschema_tests::compare::schemas::{
    dirfoot, dirgatew, dirindex, diropt, dirtail, gatedw, tailfix, tailtab,
};
use npuschema_tests::compare::schemas::{
    dirgate, dirlabel, dirlin, dirrel, dirwhen, linforms, loclin, loctable, plainloc, sigtrail,
};
use npuschema_tests::construct_blobs::{
    blobpack_file, blobpack_reseal, dirnotes_file, namedtab_file, nestflag_file, npu1_v2_file,
    npu1_v2_reseal, twodirs_file, twodirs_reseal,
};

// ----- NPU1 ----------------------------------------------------------------------------------

/// Run both engines on `b`; panic on any disagreement. Returns the verdict's code (`ok`).
fn npu1_agree(b: &[u8]) -> &'static str {
    let it = interp(NPU1);
    let g = npu1::Npu1::validate(b);
    let gb = npu1::Npu1::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    let iv = it.validate(b);
    let ib = it.check::<Brief>(b).map_err(|e| e.id());
    assert_eq!(gb, ib, "Brief numbers differ on {b:02x?}");
    match (g, iv) {
        (Err(ge), Err(ie)) => {
            assert_eq!(
                ge, ie,
                "errors differ: generated `{ge}`, interpreter `{ie}`"
            );
            assert_eq!(ge.to_string(), ie.to_string());
            ge.code
        }
        (Ok(g), Ok(v)) => {
            npuschema_tests::compare::npu1(b, &g, &v);
            "ok"
        }
        (g, i) => panic!(
            "verdicts differ: generated {:?}, interpreter {:?}",
            g.map(|_| ()),
            i.map(|_| ())
        ),
    }
}

fn npu1_v2_agree(b: &[u8]) -> &'static str {
    let g = npu1_v2::Npu1::validate(b);
    let gb = npu1_v2::Npu1::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(NPU1_V2, b, g, gb, |g, v| {
        npuschema_tests::compare::npu1_v2(b, g, v)
    })
}

#[test]
fn the_site_tables_are_the_generated_ones() {
    assert_eq!(interp(NPU1).sites(), &npu1::ERROR_SITES[..]);
    assert_eq!(interp(VPMN).sites(), &vpmn::ERROR_SITES[..]);
    assert_eq!(interp(NPU1_V2).sites(), &npu1_v2::ERROR_SITES[..]);
    assert_eq!(interp(BLOBPACK).sites(), &blobpack::ERROR_SITES[..]);
    assert_eq!(interp(OBJTAB).sites(), &objtab::ERROR_SITES[..]);
    assert_eq!(interp(CONDITIONAL).sites(), &conditional::ERROR_SITES[..]);
    assert_eq!(interp(FLOATS).sites(), &floats::ERROR_SITES[..]);
    assert_eq!(interp(BIGEND).sites(), &bigend::ERROR_SITES[..]);
    assert_eq!(interp(ORDERED).sites(), &ordered::ERROR_SITES[..]);
    assert_eq!(interp(PADDED).sites(), &padded::ERROR_SITES[..]);
    assert_eq!(interp(OPENDIR).sites(), &opendir::ERROR_SITES[..]);
    assert_eq!(interp(TLV).sites(), &tlv::ERROR_SITES[..]);
    assert_eq!(interp(SCOPED).sites(), &scoped::ERROR_SITES[..]);
    assert_eq!(interp(NESTED).sites(), &nested::ERROR_SITES[..]);
    assert_eq!(interp(COP1).sites(), &ethos_u_cop1::ERROR_SITES[..]);
    assert_eq!(interp(COP2).sites(), &ethos_u_cop2::ERROR_SITES[..]);
}

fn npu1_fixtures() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = (0..=6).map(blob).collect();
    if let Some(dir) = npuschema_tests::vela::out_dir() {
        for p in npuschema_tests::vela::outputs(&dir).into_iter().take(4) {
            let Ok(m) = npuschema_cli::pack::load(&p) else {
                continue;
            };
            if let Ok(packed) =
                npuschema_cli::pack::pack_model(&m, npuschema_cli::pack::AccelChoice::Auto)
            {
                out.push(packed.bytes);
            }
        }
    }
    out
}

#[test]
fn npu1_fixtures_and_their_mutants_agree() {
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (k, good) in npu1_fixtures().iter().enumerate() {
        assert_eq!(npu1_agree(good), "ok", "fixture {k} is valid");
        let table_end = (32 + 16 * npu1_blobs_region_count(good)).min(good.len());
        let mut next = xorshift(0x9E37_79B9 ^ k as u32);
        for _ in 0..3000 {
            let mut m = good.clone();
            mutate(&mut m, table_end, &mut next);
            *verdicts.entry(npu1_agree(&m)).or_default() += 1;
        }
        // Every truncation, and every length past the end.
        for len in 0..good.len().min(600) {
            npu1_agree(&good[..len]);
        }
        let mut longer = good.clone();
        longer.push(0);
        npu1_agree(&longer);
    }
    eprintln!("npu1 verdicts: {verdicts:?}");
    assert!(
        verdicts.len() > 6,
        "the sweep reaches many checks: {verdicts:?}"
    );
}

fn npu1_blobs_region_count(b: &[u8]) -> usize {
    npuschema_tests::npu1_blobs::get(b, 12) as usize
}

#[test]
fn npu1_v2_test_schema_agrees() {
    let it = interp(NPU1_V2);
    let weights = [5u8; 40];
    let stream = [1u8, 2, 3, 4];
    let specs = [
        npu1_v2::RegionSpec {
            role: npu1_v2::Role::Weights,
            data: npu1_v2::RegionData::Baked(&weights),
        },
        npu1_v2::RegionSpec {
            role: npu1_v2::Role::Scratch,
            data: npu1_v2::RegionData::Runtime(64),
        },
    ];
    let good = npu1_v2::Npu1Writer::new()
        .model_id(0xC0FFEE)
        .regions(&specs)
        .cmd_stream(&stream);
    let mut good = vec![0u8; good.encoded_len().unwrap()];
    npu1_v2::Npu1Writer::new()
        .model_id(0xC0FFEE)
        .regions(&specs)
        .cmd_stream(&stream)
        .write_into(&mut good)
        .unwrap();
    assert_eq!(npu1_v2_agree(&good), "ok");
    assert!(it.validate(&good).is_ok());
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let mut next = xorshift(7);
    for _ in 0..3000 {
        let mut m = good.clone();
        // The v2 header is 36 bytes: mutate it and the two descriptors; reseal at 36.
        for _ in 0..=(next() % 3) {
            let at = (next() as usize) % (36 + 32);
            m[at] = next() as u8;
        }
        // The checksum is at 28 (`model_id` at 32).
        if !next().is_multiple_of(4) {
            npu1_v2_reseal(&mut m);
        }
        *verdicts.entry(npu1_v2_agree(&m)).or_default() += 1;
    }
    eprintln!("npu1_v2 verdicts: {verdicts:?}");
    // Resealed mutants of the descriptors reach the checks behind the checksum.
    assert_reached(
        "npu1_v2",
        &verdicts,
        &[
            "bad-magic",
            "checksum-mismatch",
            "unknown-region-flags",
            "baked-region-out-of-bounds",
            "ok",
        ],
    );
    // The byte-by-byte file of the fuzz seeds (tests/src/construct_blobs.rs) is valid too.
    let hand = npu1_v2_file(&[(0, Ok(&[5; 40])), (1, Err(64))], &[1, 2, 3, 4], 0xC0FFEE);
    assert_eq!(npu1_v2_agree(&hand), "ok");
    // A version-1 blob is refused by the v2 schema, by both engines alike.
    assert_eq!(npu1_v2_agree(&blob(2)), "unsupported-version");
}

// ----- blobpack: the constructs the shipped formats do not use --------------------------------

fn blobpack_agree(b: &[u8]) -> &'static str {
    let g = blobpack::Blobpack::validate(b);
    let gb = blobpack::Blobpack::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(BLOBPACK, b, g, gb, |g, v| {
        npuschema_tests::compare::blobpack(b, g, v)
    })
}

#[test]
fn blobpack_and_its_mutants_agree() {
    let good = blobpack_file();
    assert_eq!(blobpack_agree(&good), "ok");
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    // Every byte with several values, resealed, and every truncation.
    let mut m = good.clone();
    for at in 0..good.len() {
        for x in [0x01u8, 0x02, 0x80, 0xFF, 0x7F] {
            m[at] ^= x;
            if !(16..20).contains(&at) {
                blobpack_reseal(&mut m);
            }
            *verdicts.entry(blobpack_agree(&m)).or_default() += 1;
            m.copy_from_slice(&good);
        }
    }
    for len in 0..good.len() {
        blobpack_agree(&good[..len]);
    }
    // Random multi-byte mutants.
    let mut next = xorshift(0xB10B);
    for _ in 0..20_000 {
        let mut m = good.clone();
        for _ in 0..=(next() % 4) {
            let at = (next() as usize) % m.len();
            m[at] = next() as u8;
        }
        if !next().is_multiple_of(4) {
            blobpack_reseal(&mut m);
        }
        *verdicts.entry(blobpack_agree(&m)).or_default() += 1;
    }
    eprintln!("blobpack verdicts: {verdicts:?}");
    for code in [
        "bad-magic",
        "size-mismatch",
        "too-many",
        "bad-delta",
        "bad-pad",
        "bad-level",
        "table-out-of-bounds",
        "bad-crc",
        "unknown-kind",
        "unknown-flags",
        "entry-out-of-bounds",
        "bad-weights",
        "bad-skew",
        "bad-tag",
        "ok",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}

// ----- the schema-language constructs: objtab, conditional, floats, bigend --------------------

/// Every byte flipped with several masks (resealed by `reseal` unless the byte is in
/// `sealed`), every truncation, and `random` random multi-byte mutants; returns how often
/// each verdict came.
fn sweep(
    good: &[u8],
    agree: &dyn Fn(&[u8]) -> &'static str,
    reseal: &dyn Fn(&mut [u8]),
    sealed: std::ops::Range<usize>,
    random: usize,
    seed: u32,
) -> std::collections::BTreeMap<&'static str, usize> {
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let mut m = good.to_vec();
    for at in 0..good.len() {
        for x in [0x01u8, 0x02, 0x80, 0xFF, 0x7F] {
            m[at] ^= x;
            if !sealed.contains(&at) {
                reseal(&mut m);
            }
            *verdicts.entry(agree(&m)).or_default() += 1;
            m.copy_from_slice(good);
        }
    }
    for len in 0..good.len() {
        *verdicts.entry(agree(&good[..len])).or_default() += 1;
    }
    let mut next = xorshift(seed);
    for _ in 0..random {
        let mut m = good.to_vec();
        for _ in 0..=(next() % 4) {
            let at = (next() as usize) % m.len();
            m[at] = next() as u8;
        }
        if !next().is_multiple_of(4) {
            reseal(&mut m);
        }
        *verdicts.entry(agree(&m)).or_default() += 1;
    }
    verdicts
}

fn assert_reached(what: &str, verdicts: &std::collections::BTreeMap<&str, usize>, codes: &[&str]) {
    for code in codes {
        assert!(
            verdicts.contains_key(code),
            "{what}: no input reached {code}: {verdicts:?}"
        );
    }
}

/// An `objtab.yaml` file (as schema_constructs.rs builds it): sections at 16, their bytes
/// after the table; a `nobits` (8) section gets an offset past the end.
fn objtab_file(kinds: &[u32]) -> Vec<u8> {
    let data_at = 16 + 24 * kinds.len();
    let mut out = Vec::new();
    out.extend_from_slice(&0x4A42_4F7Fu32.to_le_bytes());
    out.extend_from_slice(&40u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&(kinds.len() as u32).to_le_bytes());
    for (i, &kind) in kinds.iter().enumerate() {
        let i = i as u32;
        let offset = if kind == 8 {
            0xFFFF_FFF0
        } else {
            data_at as u32 + 4 * i
        };
        for w in [i, kind, 0b010, offset, 4, 4] {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out.extend(std::iter::repeat_n(0xAB, 4 * kinds.len()));
    out
}

fn objtab_agree(b: &[u8]) -> &'static str {
    let g = objtab::ObjTab::validate(b);
    let gb = objtab::ObjTab::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(OBJTAB, b, g, gb, |g, v| {
        npuschema_tests::compare::objtab(b, g, v)
    })
}

#[test]
fn objtab_and_its_mutants_agree() {
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for kinds in [&[1u32, 2, 8, 3][..], &[], &[3], &[8, 8, 1]] {
        let good = objtab_file(kinds);
        assert_eq!(objtab_agree(&good), "ok");
        for (k, n) in sweep(&good, &objtab_agree, &|_| {}, 0..0, 5_000, 0x0B7A) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // The order checks and the compound assert, each made to fail on purpose.
    let good = objtab_file(&[1, 2, 8, 3]);
    let mut b = good.clone();
    b[16 + 2 * 24..16 + 2 * 24 + 4].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(objtab_agree(&b), "names-not-unique");
    let mut b = good.clone();
    let s1 = u32::from_le_bytes(good[16 + 24 + 12..16 + 24 + 16].try_into().unwrap());
    b[16 + 3 * 24 + 12..16 + 3 * 24 + 16].copy_from_slice(&s1.to_le_bytes());
    assert_eq!(objtab_agree(&b), "sections-overlap");
    let mut b = good.clone();
    b[16 + 8..16 + 12].copy_from_slice(&0b101u32.to_le_bytes());
    assert_eq!(objtab_agree(&b), "writable-code");
    eprintln!("objtab verdicts: {verdicts:?}");
    assert_reached(
        "objtab",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-version",
            "sections-out-of-bounds",
            "bad-section-kind",
            "bad-section-flags",
            "writable-code",
            "bad-align",
            "misaligned-section",
            "section-out-of-bounds",
            "names-not-unique",
            "sections-overlap",
            "ok",
        ],
    );
}

/// A `conditional.yaml` file: header, then `body` bytes.
fn conditional_file(
    version: u32,
    flags: u32,
    notes: (u32, u32),
    count: u32,
    body: usize,
) -> Vec<u8> {
    let mut out = Vec::new();
    for w in [0x444E_4F43, version, flags, notes.0, notes.1, count] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend(std::iter::repeat_n(0x11, body));
    out
}

fn conditional_agree(b: &[u8]) -> &'static str {
    let g = conditional::Conditional::validate(b);
    let gb = conditional::Conditional::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(CONDITIONAL, b, g, gb, |g, v| {
        npuschema_tests::compare::conditional(b, g, v)
    })
}

#[test]
fn conditional_and_its_mutants_agree() {
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in [
        conditional_file(1, 0, (0xFFFF_0000, 9), 0, 4),
        conditional_file(1, 1, (24, 3), 0, 4),
        conditional_file(2, 0b10, (0, 0), 4, 4),
        conditional_file(2, 0b11, (26, 2), 4, 4),
        // Built by the generated writer: a range with `when`, given and left out.
        conditional::ConditionalWriter::new()
            .version(2)
            .flags(conditional::HeaderFlags::STRICT)
            .count(4)
            .notes(b"note")
            .to_vec()
            .unwrap(),
        conditional::ConditionalWriter::new()
            .version(1)
            .flags(conditional::HeaderFlags::HAS_NOTES)
            .to_vec()
            .unwrap(),
    ] {
        assert_eq!(conditional_agree(&good), "ok");
        for (k, n) in sweep(&good, &conditional_agree, &|_| {}, 0..0, 5_000, 0xC0D) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // A `let` that overflows (len < HEADER_BYTES cannot pass the header check, so the
    // overflow is the count's): count past the body.
    assert_eq!(
        conditional_agree(&conditional_file(1, 0, (0, 0), 5, 4)),
        "count-too-large"
    );
    eprintln!("conditional verdicts: {verdicts:?}");
    assert_reached(
        "conditional",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-flags",
            "v2-needs-count",
            "strict-length",
            "count-too-large",
            "notes-out-of-bounds",
            "ok",
        ],
    );
}

/// A `floats.yaml` file: the header, then the samples.
fn floats_file(scale: f32, bias: f64, samples: &[(f32, f64)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0x5441_4C46u32.to_le_bytes());
    b.extend_from_slice(&scale.to_le_bytes());
    b.extend_from_slice(&bias.to_le_bytes());
    b.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    for (v, w) in samples {
        b.extend_from_slice(&v.to_le_bytes());
        b.extend_from_slice(&w.to_le_bytes());
    }
    b
}

fn floats_agree(b: &[u8]) -> &'static str {
    let g = floats::Floats::validate(b);
    let gb = floats::Floats::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(FLOATS, b, g, gb, |g, v| {
        npuschema_tests::compare::floats(b, g, v)
    })
}

#[test]
fn floats_and_their_mutants_agree() {
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in [
        floats_file(
            -0.0,
            1e300,
            &[(1.5, -0.25), (f32::MIN_POSITIVE, f64::INFINITY)],
        ),
        floats_file(2.0, f64::NAN, &[]),
    ] {
        assert_eq!(floats_agree(&good), "ok");
        for (k, n) in sweep(&good, &floats_agree, &|_| {}, 0..0, 5_000, 0xF10A) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // +0.0 scale, the canonical NaN weight, another NaN.
    assert_eq!(floats_agree(&floats_file(0.0, 1.0, &[])), "zero-scale");
    let nan = f64::from_bits(0x7FF8_0000_0000_0000);
    assert_eq!(
        floats_agree(&floats_file(1.0, 1.0, &[(0.0, 1.0), (0.0, nan)])),
        "nan-weight"
    );
    let other = f64::from_bits(0x7FF8_0000_0000_0001);
    assert_eq!(floats_agree(&floats_file(1.0, 1.0, &[(0.0, other)])), "ok");
    eprintln!("floats verdicts: {verdicts:?}");
    assert_reached(
        "floats",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "reserved-nonzero",
            "samples-out-of-bounds",
            "ok",
        ],
    );
}

fn bigend_file() -> Vec<u8> {
    use bigend::{BigEndWriter, ChunkData, ChunkFlags, ChunkKind, ChunkSpec};
    let chunks = [
        ChunkSpec {
            kind: ChunkKind::Text,
            flags: ChunkFlags::empty(),
            tag: 0x0102_0304,
            data: ChunkData::Stored(b"hello"),
        },
        ChunkSpec {
            kind: ChunkKind::Blob,
            flags: ChunkFlags::FINAL,
            tag: 0xA0B0_C0D0,
            data: ChunkData::Reserved(9),
        },
        ChunkSpec {
            kind: ChunkKind::Blob,
            flags: ChunkFlags::FINAL,
            tag: 7,
            data: ChunkData::Stored(b"\x01\x02\x03"),
        },
    ];
    let w = BigEndWriter::new()
        .host_word(0x1234)
        .gain(-2.5)
        .chunks(&chunks);
    let mut buf = [0u8; 256];
    let n = w.write_into(&mut buf).expect("fits");
    buf[..n].to_vec()
}

/// The stored CRC (big-endian, at 12) over the body, when the header is there.
fn bigend_reseal(b: &mut [u8]) {
    if b.len() >= 24 {
        let crc = npuschema_core::crc32(0, &b[24..]);
        b[12..16].copy_from_slice(&crc.to_be_bytes());
    }
}

fn bigend_agree(b: &[u8]) -> &'static str {
    let g = bigend::BigEnd::validate(b);
    let gb = bigend::BigEnd::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(BIGEND, b, g, gb, |g, v| {
        npuschema_tests::compare::bigend(b, g, v)
    })
}

#[test]
fn bigend_and_its_mutants_agree() {
    let good = bigend_file();
    assert_eq!(bigend_agree(&good), "ok");
    let verdicts = sweep(&good, &bigend_agree, &bigend_reseal, 12..16, 10_000, 0xBE01);
    eprintln!("bigend verdicts: {verdicts:?}");
    assert_reached(
        "bigend",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-total",
            "chunks-out-of-bounds",
            "bad-kind",
            "bad-flags",
            "data-out-of-bounds",
            "bad-checksum",
            "ok",
        ],
    );
}

/// An `ordered.yaml` file: a big-endian header, little-endian spans `(kind, rank, offset,
/// size)`, then `body` bytes; the FNV-1a checksum sealed.
fn ordered_file(
    flags: u16,
    limit: u32,
    reserve: u32,
    spans: &[(u16, u16, u32, u32)],
    body: usize,
) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0x4F52_4431u32.to_be_bytes());
    b.extend_from_slice(&(spans.len() as u16).to_be_bytes());
    b.extend_from_slice(&flags.to_be_bytes());
    b.extend_from_slice(&limit.to_be_bytes());
    b.extend_from_slice(&reserve.to_be_bytes());
    b.extend_from_slice(&[0; 4]);
    for (kind, rank, offset, size) in spans {
        b.extend_from_slice(&kind.to_le_bytes());
        b.extend_from_slice(&rank.to_le_bytes());
        b.extend_from_slice(&offset.to_le_bytes());
        b.extend_from_slice(&size.to_le_bytes());
    }
    b.extend(std::iter::repeat_n(0x5A, body));
    ordered_reseal(&mut b);
    b
}

/// The stored FNV-1a (big-endian, at 16) over everything after the header.
fn ordered_reseal(b: &mut [u8]) {
    if b.len() >= 20 {
        let sum = npuschema_core::fnv1a32(0x811C_9DC5, &b[20..]);
        b[16..20].copy_from_slice(&sum.to_be_bytes());
    }
}

fn ordered_agree(b: &[u8]) -> &'static str {
    let g = ordered::Ordered::validate(b);
    let gb = ordered::Ordered::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(ORDERED, b, g, gb, |g, v| {
        npuschema_tests::compare::ordered(b, g, v)
    })
}

#[test]
fn ordered_top_level_order_checks_and_their_mutants_agree() {
    // Spans after the 20-byte header and three 12-byte records: body at 56.
    let spans = [(1, 1, 56, 4), (2, 1, 60, 2), (1, 3, 60, 4)];
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in [
        ordered_file(1, 64, 0, &spans, 8),
        ordered_file(0, 100, 32, &spans, 8),
        ordered_file(1, 64, 0, &[], 0),
    ] {
        assert_eq!(ordered_agree(&good), "ok");
        for (k, n) in sweep(
            &good,
            &ordered_agree,
            &ordered_reseal,
            16..20,
            10_000,
            0x0D3,
        ) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // Each order check and the overflowing named value, on purpose (two spans: body at 44).
    let fail = |spans: &[(u16, u16, u32, u32)], limit: u32, reserve: u32| {
        ordered_agree(&ordered_file(1, limit, reserve, spans, 8))
    };
    assert_eq!(
        fail(&[(1, 2, 44, 4), (1, 1, 48, 4)], 64, 0),
        "ranks-unsorted"
    );
    assert_eq!(
        fail(&[(1, 1, 44, 4), (2, 1, 44, 4)], 64, 0),
        "ends-not-unique"
    );
    assert_eq!(
        fail(&[(1, 1, 44, u32::MAX), (2, 1, 44, 4)], 64, 0),
        "span-out-of-bounds"
    );
    assert_eq!(
        fail(&[(2, 1, 44, u32::MAX), (1, 1, 44, 4)], 64, 0),
        "ends-not-unique"
    );
    // A key that does not compute (a hole at 0 of size 0: `offset + size - 1` underflows).
    assert_eq!(
        fail(&[(2, 1, 0, 0), (1, 1, 44, 4)], 64, 0),
        "ends-not-unique"
    );
    assert_eq!(
        fail(&[(1, 1, 46, 4), (1, 2, 44, 8)], 64, 0),
        "spans-overlap"
    );
    assert_eq!(fail(&[], 10, 20), "too-long");
    assert_eq!(fail(&[], 100, 2), "bad-limits");
    eprintln!("ordered verdicts: {verdicts:?}");
    assert_reached(
        "ordered",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-flags",
            "too-long",
            "bad-limits",
            "spans-out-of-bounds",
            "bad-kind",
            "span-out-of-bounds",
            "ranks-unsorted",
            "ends-not-unique",
            "spans-overlap",
            "bad-checksum",
            "ok",
        ],
    );
}

// ----- record streams: tlv -------------------------------------------------------------------

/// A `tlv.yaml` file: the 12-byte header, then each `(kind, body)` as a 4-byte record header,
/// the body and zeros up to a multiple of 4 (none after the last record).
fn tlv_file(records: &[(u16, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, (kind, b)) in records.iter().enumerate() {
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&(b.len() as u16).to_le_bytes());
        body.extend_from_slice(b);
        if i + 1 < records.len() {
            while !body.len().is_multiple_of(4) {
                body.push(0);
            }
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(&0x3156_4C54u32.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

fn tlv_agree(b: &[u8]) -> &'static str {
    let g = tlv::Tlv::validate(b);
    let gb = tlv::Tlv::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(TLV, b, g, gb, |g, v| npuschema_tests::compare::tlv(b, g, v))
}

#[test]
fn tlv_record_streams_and_their_mutants_agree() {
    let mut point = Vec::new();
    point.extend_from_slice(&(-3i32).to_le_bytes());
    point.extend_from_slice(&9i32.to_le_bytes());
    let note: &[u8] = &[7, 0, 5, 0, b'h', b'e', b'l', b'l', b'o'];
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in [
        tlv_file(&[
            (1, note),
            (2, &point),
            (0x7003, &[1, 2, 3]),
            (0x7FFF, &[]),
            (0, &[]),
        ]),
        tlv_file(&[(0, &[])]),
        tlv_file(&[(2, &point), (2, &point), (1, &[0, 0, 0, 0]), (0, &[])]),
    ] {
        assert_eq!(tlv_agree(&good), "ok");
        for (k, n) in sweep(&good, &tlv_agree, &|_| {}, 0..0, 10_000, 0x71F) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // Each failure of the walk on purpose.
    assert_eq!(
        tlv_agree(&tlv_file(&[(1, &[1, 0]), (0, &[])])),
        "bad-record"
    );
    assert_eq!(
        tlv_agree(&tlv_file(&[(0x7003, &[1, 2, 3, 4])])),
        "bad-record"
    );
    let mut trailing = tlv_file(&[(0, &[]), (0x7003, &[])]);
    trailing[8] = 1;
    assert_eq!(tlv_agree(&trailing), "bad-record");
    let mut cut = tlv_file(&[(0x7003, &[]), (0, &[])]);
    cut.truncate(cut.len() - 2);
    cut[4] = 6;
    assert_eq!(tlv_agree(&cut), "bad-record");
    let nine: Vec<(u16, &[u8])> = std::iter::repeat_n((2u16, &point[..]), 9)
        .chain([(0u16, &[][..])])
        .collect();
    assert_eq!(tlv_agree(&tlv_file(&nine)), "too-many-points");
    let nonempty_end = tlv_agree(&tlv_file(&[(0, &[0, 0, 0, 0])]));
    assert_eq!(nonempty_end, "terminator-not-empty");
    *verdicts.entry(nonempty_end).or_default() += 1;
    eprintln!("tlv verdicts: {verdicts:?}");
    assert_reached(
        "tlv",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "body-out-of-bounds",
            "bad-record",
            "count-mismatch",
            "terminator-not-empty",
            "note-text-too-long",
            "ok",
        ],
    );
}

// ----- fill bytes and record positions: padded -------------------------------------------------

/// A `padded.yaml` file: `reserved` zero bytes, the records (`(kind, body)`), `tail` 0xEE
/// bytes.
fn padded_file(reserved: usize, records: &[(u16, Vec<u8>)], tail: usize) -> Vec<u8> {
    let mut body = Vec::new();
    for (kind, b) in records {
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&(b.len() as u16).to_le_bytes());
        body.extend_from_slice(b);
    }
    let mut out = Vec::new();
    for w in [0x5344_4150, reserved as u32, body.len() as u32, tail as u32] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.resize(out.len() + reserved, 0);
    out.extend(body);
    out.resize(out.len() + tail, 0xEE);
    out
}

/// A blob body: `used`, the data, `pad` bytes of 0xFF.
fn padded_blob(data: &[u8], pad: usize) -> Vec<u8> {
    let mut b = (data.len() as u16).to_le_bytes().to_vec();
    b.extend_from_slice(data);
    b.resize(b.len() + pad, 0xFF);
    b
}

fn padded_agree(b: &[u8]) -> &'static str {
    let g = padded::Padded::validate(b);
    let gb = padded::Padded::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(PADDED, b, g, gb, |g, v| {
        npuschema_tests::compare::padded(b, g, v)
    })
}

#[test]
fn padded_fill_bytes_record_positions_and_their_mutants_agree() {
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in [
        padded_file(
            4,
            &[
                (1, padded_blob(b"abc", 3)),
                (2, vec![9, 9]),
                (1, padded_blob(&[], 0)),
            ],
            2,
        ),
        padded_file(0, &[], 0),
        padded_file(3, &[(1, padded_blob(&[7; 20], 9))], 5),
    ] {
        assert_eq!(padded_agree(&good), "ok");
        for (k, n) in sweep(&good, &padded_agree, &|_| {}, 0..0, 10_000, 0xF111) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // Each check made to fail on purpose, with the error where it must be.
    let base = padded_file(4, &[(1, padded_blob(b"abc", 3))], 2);
    let err = |b: &[u8]| padded::Padded::validate(b).unwrap_err();
    let mut m = base.clone();
    m[18] = 1;
    assert_eq!(padded_agree(&m), "reserved-not-zero");
    assert_eq!((err(&m).offset, err(&m).field.name), (18, "reserved"));
    let mut m = base.clone();
    m[31] = 0xFE;
    assert_eq!(padded_agree(&m), "bad-padding");
    let e = err(&m);
    assert_eq!(
        (e.offset, e.field.to_string()),
        (31, "blobs[0].padding".into())
    );
    assert_eq!(
        e.detail,
        npuschema_core::Detail::Mismatch {
            found: 0xFE,
            expected: 0xFF
        }
    );
    let mut m = base.clone();
    m[24] = 7;
    assert_eq!(padded_agree(&m), "used-too-long");
    let mut m = base.clone();
    m[33] = 0;
    assert_eq!(padded_agree(&m), "bad-tail");
    assert_eq!(err(&m).offset, 33);
    // A tail that runs past the buffer: the span is not in it.
    let mut m = base.clone();
    m[12] = 3;
    assert_eq!(padded_agree(&m), "bad-tail");
    assert!(matches!(
        err(&m).detail,
        npuschema_core::Detail::Range {
            start: 32,
            len: 3,
            limit: 34,
            ..
        }
    ));
    let mut m = base.clone();
    m.push(0xEE);
    assert_eq!(padded_agree(&m), "trailing-bytes");
    let long = padded_file(0, &[(2, vec![0; 61])], 0);
    assert_eq!(padded_agree(&long), "record-too-long");
    assert_eq!(padded_agree(&padded_file(0, &[(2, vec![0; 60])], 0)), "ok");
    eprintln!("padded verdicts: {verdicts:?}");
    assert_reached(
        "padded",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "reserved-out-of-bounds",
            "reserved-not-zero",
            "body-out-of-bounds",
            "bad-record",
            "used-too-long",
            "bad-padding",
            "bad-tail",
            "trailing-bytes",
            "ok",
        ],
    );
}

// ----- when on table_fits and for_each, let inside for_each: scoped ---------------------------

fn scoped_file(version: u32, flags: u32, entries: &[(u32, u32)], extras: &[(u16, u16)]) -> Vec<u8> {
    let extras_at = 24 + 8 * entries.len();
    let mut out = Vec::new();
    for w in [
        0x504F_4353,
        version,
        flags,
        entries.len() as u32,
        extras_at as u32,
        extras.len() as u32,
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

fn scoped_agree(b: &[u8]) -> &'static str {
    let g = scoped::Scoped::validate(b);
    let gb = scoped::Scoped::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(SCOPED, b, g, gb, |g, v| {
        npuschema_tests::compare::scoped(b, g, v)
    })
}

#[test]
fn scoped_conditional_tables_and_record_lets_agree() {
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in [
        scoped_file(2, 1, &[(0, 4), (10, 20)], &[(1, 3), (2, 32)]),
        scoped_file(1, 1, &[(4, 4)], &[(0, 40)]),
        scoped_file(2, 0, &[(0, 4)], &[]),
    ] {
        assert_eq!(scoped_agree(&good), "ok");
        for (k, n) in sweep(&good, &scoped_agree, &|_| {}, 0..0, 10_000, 0x5C0) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    let mut off = scoped_file(2, 0, &[(0, 4)], &[]);
    off[16..24].copy_from_slice(&[0xF0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert_eq!(scoped_agree(&off), "ok");
    off[8] = 1;
    assert_eq!(scoped_agree(&off), "extras-out-of-bounds");
    assert_eq!(
        scoped_agree(&scoped_file(2, 0, &[(u32::MAX, u32::MAX)], &[])),
        "entry-past-end"
    );
    eprintln!("scoped verdicts: {verdicts:?}");
    assert_reached(
        "scoped",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-flags",
            "entries-out-of-bounds",
            "extras-out-of-bounds",
            "entry-past-end",
            "extra-too-heavy",
            "extra-untagged",
            "ok",
        ],
    );
}

// ----- VPMN ----------------------------------------------------------------------------------

fn vpmn_agree(b: &[u8]) -> &'static str {
    let it = interp(VPMN);
    let g = vpmn::Vpmn::validate(b);
    let gb = vpmn::Vpmn::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    let ib = it.check::<Brief>(b).map_err(|e| e.id());
    assert_eq!(gb, ib, "Brief numbers differ");
    match (g, it.validate(b)) {
        (Err(ge), Err(ie)) => {
            assert_eq!(
                ge, ie,
                "errors differ: generated `{ge}`, interpreter `{ie}`"
            );
            ge.code
        }
        (Ok(vpmn::Vpmn::V2(g)), Ok(v)) => {
            assert_eq!(v.variant.as_deref(), Some("v2"));
            npuschema_tests::compare::vpmn_v2(b, &g, &v);
            "ok"
        }
        (Ok(vpmn::Vpmn::V1(g)), Ok(v)) => {
            assert_eq!(v.variant.as_deref(), Some("v1"));
            npuschema_tests::compare::vpmn_v1(b, &g, &v);
            "ok"
        }
        (g, i) => panic!(
            "verdicts differ: generated {:?}, interpreter {:?}",
            g.map(|_| ()),
            i.map(|_| ())
        ),
    }
}

/// The VPMN sweep's offsets: the first 4096 bytes, both sides of every directory boundary,
/// and a stride through the rest.
fn vpmn_offsets(b: &[u8], stride: usize) -> Vec<usize> {
    vpmn_util::sweep_offsets(b, stride)
}

/// Mutate every `every`-th offset of the sweep with each of `values`, then truncate.
fn vpmn_sweep(
    name: &str,
    b: &[u8],
    stride: usize,
    every: usize,
    values: &[u8],
) -> std::collections::BTreeMap<&'static str, usize> {
    let mut verdicts = std::collections::BTreeMap::new();
    assert_eq!(vpmn_agree(b), "ok", "{name} is valid");
    let mut m = b.to_vec();
    for at in vpmn_offsets(b, stride).into_iter().step_by(every) {
        for &x in values {
            let old = m[at];
            m[at] ^= x;
            *verdicts.entry(vpmn_agree(&m)).or_default() += 1;
            m[at] = old;
        }
    }
    for len in (0..b.len().min(1024)).chain((1024..b.len()).step_by(stride)) {
        vpmn_agree(&b[..len]);
    }
    verdicts
}

#[test]
fn vpmn_writer_built_files_and_their_mutants_agree() {
    let b = npuschema_cli::vpmn::writer::build_v2(&vpmn_util::small_spec()).unwrap();
    let verdicts = vpmn_sweep("small", &b, 1, 1, &[0x01, 0x80, 0xFF]);
    eprintln!("small: {verdicts:?}");
    assert!(verdicts.len() > 8, "{verdicts:?}");
}

#[test]
fn vpmn_real_files_and_their_mutants_agree() {
    let Some(files) = npuschema_tests::refreader::vpmn_corpus("interpreter differential") else {
        return;
    };
    assert!(!files.is_empty());
    for (name, b) in &files {
        // Each real file is validated once per mutant by both engines in a debug build:
        // every fifth offset of the sweep, one value (the full sweep takes minutes).
        let verdicts = vpmn_sweep(name, b, 4093, 5, &[0xFF]);
        eprintln!("{name}: {verdicts:?}");
    }
}

/// Inputs on which the two engines once disagreed, or that reach a corner: kept so that
/// they stay agreed.
#[test]
fn regressions() {
    // Empty and tiny buffers.
    for b in [&[][..], b"NPU1", b"VPMN", &[0u8; 12][..]] {
        npu1_agree(b);
        vpmn_agree(b);
    }
}

// ----- strtab: `table[expr].field` -------------------------------------------------------------

const STRTAB: &str = "schemas/strtab.yaml";

/// A `strtab.yaml` file (as schema_constructs.rs builds it): `sections` (name offset, kind,
/// link, offset, size) at 16, the names at 80, four data bytes, then the title.
fn strtab_file(sections: &[(u32, u16, u16)], names: &[u8], title: &[u8]) -> Vec<u8> {
    let names_at = 16 + 16 * sections.len();
    let data_at = names_at + names.len();
    let title_at = data_at + 4;
    let mut out = Vec::new();
    out.extend_from_slice(&0x3152_5453u32.to_le_bytes());
    out.extend_from_slice(&(sections.len() as u16).to_le_bytes());
    // The names section: the first string table.
    let names_index = sections.iter().position(|s| s.1 == 3).unwrap_or(0);
    out.extend_from_slice(&(names_index as u16).to_le_bytes());
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&(title_at as u32).to_le_bytes());
    for &(name, kind, link) in sections {
        let (offset, size) = match kind {
            3 => (names_at as u32, names.len() as u32),
            1 => (data_at as u32, 4),
            8 => (0xFFFF_FF00, 64),
            _ => (0, 0),
        };
        out.extend_from_slice(&name.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&link.to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
    }
    out.extend_from_slice(names);
    out.extend_from_slice(&[1, 2, 3, 4]);
    out.extend_from_slice(&(title.len() as u16).to_le_bytes());
    out.extend_from_slice(title);
    out
}

fn strtab_agree(b: &[u8]) -> &'static str {
    let g = strtab::StrTab::validate(b);
    let gb = strtab::StrTab::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(STRTAB, b, g, gb, |g, v| {
        npuschema_tests::compare::strtab(b, g, v)
    })
}

#[test]
fn strtab_and_its_mutants_agree() {
    assert_eq!(interp(STRTAB).sites(), &strtab::ERROR_SITES[..]);
    let names = b"\0.names\0.data\0.bss\0";
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (sections, title) in [
        (
            &[(0u32, 0u16, 0u16), (1, 3, 0), (8, 1, 1), (14, 8, 0)][..],
            &b"title"[..],
        ),
        (&[(1, 3, 0)][..], &b""[..]),
        (&[(8, 1, 1), (1, 3, 1)][..], &b"a longer title"[..]),
    ] {
        let good = strtab_file(sections, names, title);
        assert_eq!(strtab_agree(&good), "ok");
        for (k, n) in sweep(&good, &strtab_agree, &|_| {}, 0..0, 5_000, 0x57AB) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // The computed indices past the table, on purpose.
    let good = strtab_file(&[(1, 3, 0), (8, 1, 1)], names, b"t");
    let mut b = good.clone();
    b[6..8].copy_from_slice(&2u16.to_le_bytes());
    assert_eq!(strtab_agree(&b), "bad-names-index");
    let mut b = good.clone();
    b[16 + 16 + 6..16 + 16 + 8].copy_from_slice(&0xFFFFu16.to_le_bytes());
    assert_eq!(strtab_agree(&b), "bad-link");
    // A name that is not UTF-8, and a title that is not.
    let mut b = good.clone();
    b[16 + 32 + 2] = 0xFF;
    assert_eq!(strtab_agree(&b), "name-not-utf8");
    let mut b = good.clone();
    let n = b.len();
    b[n - 1] = 0x80;
    assert_eq!(strtab_agree(&b), "title-not-utf8");
    eprintln!("strtab verdicts: {verdicts:?}");
    assert_reached(
        "strtab",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "sections-out-of-bounds",
            "bad-names-index",
            "names-out-of-bounds",
            "bad-title",
            "title-not-utf8",
            "section-out-of-bounds",
            "bad-link",
            "bad-name",
            "name-not-utf8",
            "ok",
        ],
    );
}

// ----- titled: strings the writer places ------------------------------------------------------

const TITLED: &str = "schemas/titled.yaml";

fn titled_agree(b: &[u8]) -> &'static str {
    let g = titled::Titled::validate(b);
    let gb = titled::Titled::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(TITLED, b, g, gb, |g, v| {
        npuschema_tests::compare::titled(b, g, v)
    })
}

#[test]
fn titled_writer_built_files_and_their_mutants_agree() {
    assert_eq!(interp(TITLED).sites(), &titled::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (title, comment, values) in [
        ("größe", &b"a comment"[..], &[1u32, 2][..]),
        ("", &b""[..], &[][..]),
        ("t", &b"\xff\xfe"[..], &[5][..]),
    ] {
        let specs: Vec<titled::ValueSpec> = values
            .iter()
            .map(|&value| titled::ValueSpec { value })
            .collect();
        let good = titled::TitledWriter::new()
            .title(title)
            .comment(comment)
            .values(&specs)
            .to_vec()
            .unwrap();
        assert_eq!(titled_agree(&good), "ok");
        for (k, n) in sweep(&good, &titled_agree, &|_| {}, 0..0, 5_000, 0x717E) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    eprintln!("titled verdicts: {verdicts:?}");
    assert_reached(
        "titled",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "values-out-of-bounds",
            "bad-title",
            "title-not-utf8",
            "bad-comment",
            "ok",
        ],
    );
}

// ----- opendir: a big-endian directory over an open, sparse 32-bit type space ----------------

fn opendir_agree(b: &[u8]) -> &'static str {
    let g = opendir::OpenDir::validate(b);
    let gb = opendir::OpenDir::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(OPENDIR, b, g, gb, |g, v| {
        npuschema_tests::compare::opendir(b, g, v)
    })
}

/// The generated directory writer's files (and the bytes `OpenDirSpec::seal` reseals):
/// the same as the byte-by-byte builder's, and the interpreter agrees with the generated
/// validator on them and on their mutants resealed by the generated `seal`.
#[test]
fn opendir_writer_built_files_and_their_mutants_agree() {
    use npuschema_tests::opendir_blobs::{Sec, file, sections, ty};
    fn write(secs: &[Sec]) -> Vec<u8> {
        let specs: Vec<opendir::SectionSpec<'_>> = secs
            .iter()
            .map(|s| opendir::SectionSpec {
                sh_type: opendir::SecType::from_raw(s.ty),
                entsize: s.entsize,
                info: s.ty.rotate_left(3),
                payload: &s.payload,
            })
            .collect();
        opendir::OpenDirSpec { sections: &specs }.to_vec().unwrap()
    }
    /// `(type, offset, size)` of each section, as far as the bytes allow (big-endian).
    fn placed(b: &[u8]) -> Vec<(u64, u64, u64)> {
        let w = |at: usize| {
            b.get(at..at + 4)
                .map(|x| u64::from(u32::from_be_bytes(x.try_into().unwrap())))
        };
        let n = b
            .get(6..8)
            .map_or(0, |c| usize::from(u16::from_be_bytes([c[0], c[1]])));
        let Some(dir) = w(8) else { return Vec::new() };
        (0..n)
            .map_while(|i| {
                let r = usize::try_from(dir).ok()? + 20 * i;
                Some((w(r)?, w(r + 4)?, w(r + 8)?))
            })
            .collect()
    }
    let seal = |b: &mut [u8]| {
        let p = placed(b);
        let _ = opendir::OpenDirSpec::seal(b, p.iter().copied());
    };
    let good = write(&sections());
    // The builder writes `info` 0: the writer's input goes where the builder's zero is.
    let mut zeroed = good.clone();
    for i in 0..sections().len() {
        zeroed[16 + 20 * i + 16..16 + 20 * i + 20].fill(0);
    }
    assert!(
        zeroed == file(&sections()),
        "laid out as the byte-by-byte builder does"
    );
    assert_eq!(opendir_agree(&good), "ok");
    let mut two_syms = sections();
    two_syms.push(Sec {
        ty: ty::SYMBOLS,
        entsize: 8,
        payload: [3u32, 8].iter().flat_map(|w| w.to_be_bytes()).collect(),
    });
    assert_eq!(opendir_agree(&write(&two_syms)), "section-checksum-missing");
    let verdicts = sweep(&good, &opendir_agree, &seal, 12..16, 300, 0x0D1F);
    eprintln!("opendir writer verdicts: {verdicts:?}");
    assert!(verdicts.len() >= 8, "{verdicts:?}");
}

#[test]
fn opendir_big_endian_sparse_types_and_their_mutants_agree() {
    use npuschema_tests::opendir_blobs::{Sec, file, seal, sections, ty};
    let good = file(&sections());
    assert_eq!(opendir_agree(&good), "ok");
    let mut verdicts = sweep(&good, &opendir_agree, &seal, 12..16, 1_000, 0x0D1E);
    // Variants, agreed on as they are: types reordered, a checksum record naming a type the
    // schema does not name, two records naming one type, two sections of one type.
    let mut reordered = sections();
    reordered.swap(1, 6);
    reordered.swap(2, 5);
    let retarget = |at: usize, t: u32| {
        let mut s = sections();
        s[7].payload[at..at + 4].copy_from_slice(&t.to_be_bytes());
        s
    };
    let mut two_syms = sections();
    two_syms.insert(
        3,
        Sec {
            ty: ty::SYMBOLS,
            entsize: 8,
            payload: [3u32, 8].iter().flat_map(|w| w.to_be_bytes()).collect(),
        },
    );
    for secs in [
        reordered,
        retarget(8, ty::UNNAMED),
        retarget(16, ty::ARM_ATTRIBUTES),
        two_syms,
    ] {
        *verdicts.entry(opendir_agree(&file(&secs))).or_default() += 1;
    }
    eprintln!("opendir verdicts: {verdicts:?}");
    assert_reached(
        "opendir",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-version",
            "sections-out-of-bounds",
            "section-out-of-bounds",
            "section-entry-size",
            "bad-symbol",
            "bad-attribute",
            "slots-unpaired",
            "slot-invalid",
            "slot-padding-nonzero",
            "section-checksum-mismatch",
            "section-checksum-missing",
            "section-checksum-duplicate",
            "file-checksum-mismatch",
            "ok",
        ],
    );
}

// ----- Vela's COP1 driver actions: ethos_u_cop1 (a shipped schema) ----------------------------

/// The COP1 payloads of the Vela outputs in `vela-out/` (the custom operator's first buffer:
/// a flatbuffer byte vector, its `u32` length just before the "COP1" magic).
fn cop1_payloads() -> Vec<(String, Vec<u8>)> {
    cop_payloads(b"COP1")
}

/// The payloads of the Vela outputs in `vela-out/` that start with `magic`.
fn cop_payloads(magic: &[u8; 4]) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vela-out");
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd {
            let p = e.unwrap().path();
            let name = p.to_string_lossy().to_string();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with("_vela.tflite") {
                let b = std::fs::read(&p).unwrap();
                if let Some(at) = b.windows(4).position(|w| w == magic)
                    && at >= 4
                {
                    let n = u32::from_le_bytes(b[at - 4..at].try_into().unwrap()) as usize;
                    out.push((name, b[at..at + n].to_vec()));
                }
            }
        }
    }
    out
}

fn cop1_agree(b: &[u8]) -> &'static str {
    let g = ethos_u_cop1::Cop1::validate(b);
    let gb = ethos_u_cop1::Cop1::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(COP1, b, g, gb, |g, v| {
        same_fields!(v, "header", g.header(), [magic]);
        assert_eq!(range(v, "actions"), Some(span(b, g.actions())));
        assert_eq!(g.records().count(), record_count(v, "records"));
        for r in g.records() {
            let p = format!("records[{}]", r.index());
            assert_eq!(record(v, &p).offset, r.offset());
            same_fields!(v, &p, r.header(), [id, reserved, param]);
            assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
        }
        assert_eq!(g.configs().count(), record_count(v, "configs"));
        for (k, c) in g.configs().enumerate() {
            same_fields!(v, &format!("configs[{k}]"), c, [config, id]);
        }
        assert_eq!(g.streams().count(), record_count(v, "streams"));
        for (k, s) in g.streams().enumerate() {
            same_fields!(v, &format!("streams[{k}]"), s, [first_word]);
        }
    })
}

/// A COP1 payload as Vela lays it out: "COP1", OPTIMIZER_CONFIG, three NOPs, COMMAND_STREAM.
fn cop1_file(stream: &[u32]) -> Vec<u8> {
    let n = stream.len() as u32;
    let mut w = vec![
        0x3150_4F43,
        0x0010_0001,
        0x1807,
        0x1006_6001,
        5,
        5,
        5,
        2 | (n << 16),
    ];
    w.extend_from_slice(stream);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn cop1_real_payloads_and_their_mutants_agree() {
    let mut goods: Vec<(String, Vec<u8>)> = cop1_payloads();
    if goods.is_empty() {
        eprintln!("skipping the real payloads: no COP1 output in vela-out/ (scripts/setup-vela)");
    }
    goods.push(("built".into(), cop1_file(&[0x0001_010f, 0xffff_0000])));
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (name, good) in &goods {
        assert_eq!(cop1_agree(good), "ok", "{name}");
        let random = if good.len() > 1024 { 500 } else { 2_000 };
        for (k, n) in sweep(good, &cop1_agree, &|_| {}, 0..0, random, 0xC0F1) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // Each check made to fail on purpose.
    let base = cop1_file(&[0xffff_0000]);
    let mut m = base.clone();
    m.extend_from_slice(&[0, 0, 1, 0]);
    assert_eq!(cop1_agree(&m), "cop-bad-padding");
    let mut m = base.clone();
    m.extend_from_slice(&[9, 0, 0, 0]);
    assert_eq!(cop1_agree(&m), "cop-unknown-action");
    let mut m = base.clone();
    m.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(cop1_agree(&m), "cop-duplicate-action");
    let mut m = base.clone();
    m.extend_from_slice(&[2, 0, 1, 0, 0, 0, 0, 0]);
    assert_eq!(cop1_agree(&m), "cop-duplicate-action");
    let mut m = base.clone();
    m[4] = 5;
    m[8..16].copy_from_slice(&[5, 0, 0, 0, 5, 0, 0, 0]);
    assert_eq!(cop1_agree(&m), "cop-missing-config");
    let mut m = base.clone();
    m[28] = 5;
    m[30] = 0;
    m[32..36].copy_from_slice(&[5, 0, 0, 0]);
    assert_eq!(cop1_agree(&m), "cop-missing-stream");
    let mut m = base;
    m[29] = 1;
    assert_eq!(cop1_agree(&m), "cop-stream-out-of-bounds");
    assert_eq!(cop1_agree(b"COP"), "truncated");
    eprintln!("cop1 verdicts: {verdicts:?}");
    assert_reached(
        "cop1",
        &verdicts,
        &[
            "truncated",
            "cop-bad-magic",
            "cop-stream-out-of-bounds",
            "cop-unknown-action",
            "ok",
        ],
    );
}

// ----- Vela's COP2 driver actions: ethos_u_cop2 (a shipped schema) ----------------------------

fn cop2_agree(b: &[u8]) -> &'static str {
    let g = ethos_u_cop2::Cop2::validate(b);
    let gb = ethos_u_cop2::Cop2::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(COP2, b, g, gb, |g, v| {
        same_fields!(v, "header", g.header(), [magic, major, minor, actions_len]);
        assert_eq!(range(v, "actions"), Some(span(b, g.actions())));
        assert_eq!(g.records().count(), record_count(v, "records"));
        for r in g.records() {
            let p = format!("records[{}]", r.index());
            assert_eq!(record(v, &p).offset, r.offset());
            same_fields!(v, &p, r.header(), [kind, length]);
            assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
        }
        assert_eq!(g.streams().count(), record_count(v, "streams"));
        for (k, s) in g.streams().enumerate() {
            same_fields!(
                v,
                &format!("streams[{k}]"),
                s,
                [meta_size, magic, version, words_len, config, id]
            );
        }
    })
}

/// A COP2 payload as Vela lays it out (see `cli/src/pack/cop.rs`).
fn cop2_file(stream: &[u32]) -> Vec<u8> {
    let body = 40 + 4 * stream.len() as u32;
    let mut w = vec![0x3250_4F43, 1, body + 8, 0, 1, body];
    w.extend_from_slice(&[
        36,
        0x4D55_4556,
        1,
        20,
        0x3008,
        0x1006_6001,
        2,
        0x20,
        0,
        u32::MAX,
    ]);
    w.extend_from_slice(stream);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn cop2_real_payloads_and_their_mutants_agree() {
    let mut goods = cop_payloads(b"COP2");
    if goods.is_empty() {
        eprintln!("skipping the real payloads: no COP2 output in vela-out/ (scripts/setup-vela)");
    }
    goods.push(("built".into(), cop2_file(&[0x0001_010f, 0xffff_0000])));
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (name, good) in &goods {
        assert_eq!(cop2_agree(good), "ok", "{name}");
        let random = if good.len() > 1024 { 500 } else { 2_000 };
        for (k, n) in sweep(good, &cop2_agree, &|_| {}, 0..0, random, 0xC0F2) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    let base = cop2_file(&[0xffff_0000]);
    let mut m = base.clone();
    m[16] = 9;
    assert_eq!(cop2_agree(&m), "cop-unknown-action");
    let mut m = base.clone();
    m[36] = 3;
    assert_eq!(cop2_agree(&m), "cop2-bad-metadata");
    let mut m = base.clone();
    m.extend_from_slice(&[1, 0, 0, 0, 24, 0, 0, 0]);
    m.extend_from_slice(&base[24..48]);
    m[8] += 32;
    assert_eq!(cop2_agree(&m), "cop-duplicate-action");
    let mut m = base.clone();
    m[8] = 0;
    assert_eq!(cop2_agree(&m), "cop-missing-stream");
    // The checks moved from cli/src/pack/cop.rs into the schema (`fill`, `record.<part>`).
    let mut m = base.clone();
    m.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(cop2_agree(&m), "ok");
    m.push(1);
    assert_eq!(cop2_agree(&m), "cop-trailing-data");
    let mut m = base.clone();
    m[24] = 0x40;
    assert_eq!(cop2_agree(&m), "cop2-bad-metadata");
    let mut m = base.clone();
    m[24] = 41;
    assert_eq!(cop2_agree(&m), "cop-missing-stream");
    let mut m = base.clone();
    m[62] = 0;
    assert_eq!(cop2_agree(&m), "cop2-bad-padding");
    assert_eq!(cop2_agree(&cop2_file(&[])), "cop-empty-stream");
    let mut m = base;
    m.extend_from_slice(&[0, 0]);
    m[8] += 2;
    m[20] += 2;
    assert_eq!(cop2_agree(&m), "cop-stream-not-words");
    eprintln!("cop2 verdicts: {verdicts:?}");
    assert_reached(
        "cop2",
        &verdicts,
        &[
            "truncated",
            "cop-bad-magic",
            "cop2-unsupported-version",
            "cop2-actions-out-of-bounds",
            "cop2-action-out-of-bounds",
            "cop-unknown-action",
            "cop2-bad-metadata",
            "ok",
        ],
    );
}

// ----- RIFF/WAVE (wav.yaml): record positions (`first()`), real files --------------------------

const WAV: &str = "../formats/wav.yaml";

/// A RIFF/WAVE file of the chunks `(id, body)`, each padded to an even length.
fn wav_file(cs: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let mut body = b"WAVE".to_vec();
    for (id, data) in cs {
        body.extend_from_slice(*id);
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(data);
        if data.len() % 2 == 1 {
            body.push(0);
        }
    }
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

fn wav_agree(b: &[u8]) -> &'static str {
    let g = wav::Wav::validate(b);
    let gb = wav::Wav::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(WAV, b, g, gb, |g, v| npuschema_tests::compare::wav(b, g, v))
}

/// Up to `max` of the smallest `.wav` files under /usr/share (none when there are none).
fn small_wavs(max: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from("/usr/share/sounds")];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in rd.flatten().map(|e| e.path()) {
            let Ok(md) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if md.is_dir() {
                stack.push(p);
            } else if md.is_file()
                && md.len() < 16 * 1024
                && p.extension().is_some_and(|e| e == "wav")
            {
                out.push(std::fs::read(&p).unwrap());
            }
        }
    }
    out.sort_by_key(|b| (b.len(), b.clone()));
    out.truncate(max);
    out
}

#[test]
fn wav_chunk_streams_real_files_and_their_mutants_agree() {
    assert_eq!(interp(WAV).sites(), &wav::ERROR_SITES[..]);
    let fmt: &[u8] = &[1, 0, 2, 0, 0x44, 0xAC, 0, 0, 0x10, 0xB1, 2, 0, 4, 0, 16, 0];
    let mut goods = vec![
        wav_file(&[(b"fmt ", fmt), (b"data", &[1, 0, 2, 0, 3, 0, 4, 0])]),
        wav_file(&[
            (b"LIST", b"INFOISFT\x03\0\0\0ab\0"),
            (b"fmt ", fmt),
            (b"fact", &[2, 0, 0, 0]),
            (b"data", &[9, 0, 8, 0, 7, 0, 6, 0]),
            (b"junk", b"odd"),
        ]),
        // LISTs nested two deep (records nested in the stream's records), sub-chunks of
        // odd size at a LIST's end without their pad byte, the inner LIST padded.
        wav_file(&[
            (b"fmt ", fmt),
            (
                b"LIST",
                b"adtlLIST\x13\0\0\0INFOISFT\x07\0\0\0deeper!\0note\x01\0\0\0x",
            ),
            (b"data", &[1, 0, 2, 0, 3, 0, 4, 0]),
        ]),
    ];
    // The format chunk as WAVEFORMATEX (`cbSize` 0) and as WAVEFORMATEXTENSIBLE (its
    // fields, located records present only when the chunk has them).
    let mut ex = fmt.to_vec();
    ex.extend_from_slice(&[0, 0]);
    let mut ext = fmt.to_vec();
    ext[..2].copy_from_slice(&0xFFFEu16.to_le_bytes());
    ext.extend_from_slice(&[22, 0, 16, 0, 3, 0, 0, 0]);
    ext.extend_from_slice(&[
        1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71,
    ]);
    for f in [&ex, &ext] {
        goods.push(wav_file(&[
            (b"fmt ", f),
            (b"data", &[1, 0, 2, 0, 3, 0, 4, 0]),
        ]));
    }
    let real = small_wavs(2);
    if real.is_empty() {
        eprintln!(
            "interp_differential: no .wav under /usr/share/sounds; the WAV sweep runs on made-up files only"
        );
    }
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in &real {
        assert_eq!(wav_agree(good), "ok");
        // Every byte before the samples flipped, every truncation there, on the whole file.
        for at in 0..64 {
            for x in [0x01u8, 0x80, 0xFF] {
                let mut m = good.clone();
                m[at] ^= x;
                *verdicts.entry(wav_agree(&m)).or_default() += 1;
            }
            *verdicts.entry(wav_agree(&good[..at])).or_default() += 1;
        }
        // Its chunks with the samples cut to 16 bytes: small enough to sweep whole.
        let mut chunks: Vec<([u8; 4], Vec<u8>)> = Vec::new();
        let mut at = 12;
        while at + 8 <= good.len() {
            let id: [u8; 4] = good[at..at + 4].try_into().unwrap();
            let n = u32::from_le_bytes(good[at + 4..at + 8].try_into().unwrap()) as usize;
            let body = &good[at + 8..(at + 8 + n).min(good.len())];
            chunks.push((id, body[..body.len().min(16)].to_vec()));
            at += 8 + n + (n & 1);
        }
        let cs: Vec<(&[u8; 4], &[u8])> = chunks.iter().map(|(i, b)| (i, b.as_slice())).collect();
        goods.push(wav_file(&cs));
    }
    for (i, good) in goods.iter().enumerate() {
        assert_eq!(wav_agree(good), "ok");
        for (k, n) in sweep(good, &wav_agree, &|_| {}, 0..0, 3000, 0x3A7 + i as u32) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // `first()` on purpose: data before fmt, with an unknown chunk between.
    let late = wav_file(&[(b"data", &[]), (b"LIST", b"INFO"), (b"fmt ", fmt)]);
    assert_eq!(wav_agree(&late), "fmt-after-data");
    *verdicts.entry("fmt-after-data").or_default() += 1;
    eprintln!("wav verdicts: {verdicts:?}");
    assert_reached(
        "wav",
        &verdicts,
        &[
            "truncated-header",
            "not-riff",
            "not-wave",
            "chunks-out-of-bounds",
            "bad-chunk",
            "one-fmt",
            "one-data",
            "no-channels",
            "bad-bits-per-sample",
            "bad-block-align",
            "bad-byte-rate",
            "extension-past-chunk",
            "bad-valid-bits",
            "ok",
        ],
    );
}

// ----- structs inside structs and fixed arrays of structs (nested.yaml) ---------------------

use npuschema_tests::nested_blobs::file as nested_file;

fn nested_agree(b: &[u8]) -> &'static str {
    let g = nested::Nested::validate(b);
    let gb = nested::Nested::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(NESTED, b, g, gb, |g, v| {
        npuschema_tests::compare::nested(b, g, v)
    })
}

#[test]
fn nested_structs_and_their_mutants_agree() {
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in [
        nested_file(&[(5, 3), (1000, 7)], 2),
        nested_file(&[(0, 0)], 1),
        nested_file(&[], 2),
    ] {
        assert_eq!(nested_agree(&good), "ok");
        // A flag bit inside (`header.stamp.level.SEALED`) gating an `expect` inside.
        let mut sealed = good.clone();
        sealed[49] = 1;
        assert_eq!(nested_agree(&sealed), "ok");
        sealed[52] = 8;
        assert_eq!(nested_agree(&sealed), "bad-seal");
        for (k, n) in sweep(&good, &nested_agree, &|_| {}, 0..0, 10_000, 0x4E57) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    eprintln!("nested verdicts: {verdicts:?}");
    assert_reached(
        "nested",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-total",
            "bad-version",
            "bad-level",
            "payload-out-of-bounds",
            "slices-overlap",
            "bad-tool",
            "entries-out-of-bounds",
            "bad-point",
            "bad-dims",
            "blob-out-of-bounds",
            "ok",
        ],
    );
}

/// Files the generated writer builds from struct values (`nested.yaml`'s `writer`: the
/// payload's place written into `header.slices[0]`, each blob's into its record's `span`):
/// the generated validator and the interpreter accept them and read the same values, and
/// agree on their mutants.
#[test]
fn nested_writer_built_files_and_their_mutants_agree() {
    use nested::{
        DimValue, EntryBlob, EntrySpec, Level, NestedWriter, PointValue, SliceValue, StampKind,
        StampValue, VersionValue,
    };
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (n, kind, level) in [
        (3usize, StampKind::Tooled, Level::SEALED),
        (0, StampKind::Plain, Level::empty()),
        (1, StampKind::Unknown(9), Level::empty()),
    ] {
        let entries: Vec<EntrySpec> = (0..n)
            .map(|i| EntrySpec {
                id: 100 + i as u32,
                at: PointValue {
                    x: i as i16,
                    y: 2 * i as i16,
                },
                span: SliceValue::ZERO,
                dims: [DimValue { lo: 1, hi: 2 }, DimValue { lo: i as u8, hi: 9 }],
                blob: if i == 1 {
                    EntryBlob::Absent(0)
                } else {
                    EntryBlob::Present(&b"blob-bytes"[..i + 1])
                },
            })
            .collect();
        let good = NestedWriter::new()
            .version(VersionValue { major: 1, minor: 9 })
            .slices([
                SliceValue::ZERO,
                SliceValue::ZERO,
                SliceValue {
                    offset: 3,
                    length: 4,
                },
                SliceValue::ZERO,
            ])
            .stamp(StampValue {
                time: 0xA1B2_C3D4,
                kind,
                level,
                tool: VersionValue { major: 1, minor: 7 },
            })
            .entries(&entries)
            .payload(b"the payload")
            .to_vec()
            .unwrap();
        assert_eq!(nested_agree(&good), "ok");
        for (k, c) in sweep(&good, &nested_agree, &|_| {}, 0..0, 5_000, 0x3E57) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("nested writer verdicts: {verdicts:?}");
    assert_reached(
        "nested writer",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-total",
            "bad-version",
            "bad-level",
            "bad-seal",
            "payload-out-of-bounds",
            "bad-tool",
            "entries-out-of-bounds",
            "bad-point",
            "bad-dims",
            "blob-out-of-bounds",
            "ok",
        ],
    );
}

// ----- string tables the writer builds (namedtab.yaml) ----------------------------------------

fn namedtab_agree(b: &[u8]) -> &'static str {
    let g = namedtab::NamedTab::validate(b);
    let gb = namedtab::NamedTab::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(NAMEDTAB, b, g, gb, |g, v| {
        npuschema_tests::compare::namedtab(b, g, v)
    })
}

/// Files whose string tables the generated writer built (the names range from the label
/// and the items' names, the notes placed in the file): the generated validator and the
/// interpreter accept them, read the same strings, and agree on their mutants.
#[test]
fn namedtab_writer_built_string_tables_and_their_mutants_agree() {
    use namedtab::{ItemSpec, NamedTabWriter};
    assert_eq!(interp(NAMEDTAB).sites(), &namedtab::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (label, names) in [
        (&b"label"[..], &["alpha", "", "größe", "δ"][..]),
        (&b""[..], &[][..]),
        (&b"x"[..], &["only"][..]),
    ] {
        let items: Vec<ItemSpec> = names
            .iter()
            .enumerate()
            .map(|(i, &name)| ItemSpec {
                name,
                note: &b"a note, then more"[..i * 3],
                value: i as u32,
            })
            .collect();
        let good = NamedTabWriter::new()
            .label(label)
            .flags(3)
            .items(&items)
            .to_vec()
            .unwrap();
        assert_eq!(namedtab_agree(&good), "ok");
        for (k, n) in sweep(&good, &namedtab_agree, &|_| {}, 0..0, 5_000, 0x57AB) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    // The byte-by-byte files of the fuzz seeds (tests/src/construct_blobs.rs) are valid too.
    let hand = namedtab_file(b"label", &[(b"alpha", b"a note", 1), (b"", b"", 2)]);
    assert_eq!(namedtab_agree(&hand), "ok");
    assert_eq!(namedtab_agree(&namedtab_file(b"", &[])), "ok");
    eprintln!("namedtab verdicts: {verdicts:?}");
    assert_reached(
        "namedtab",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "items-out-of-bounds",
            "names-out-of-bounds",
            "bad-label",
            "bad-name",
            "name-not-utf8",
            "bad-note",
            "ok",
        ],
    );
}

// ----- a directory writer that also places file-level ranges (dirnotes.yaml) ---------------

fn dirnotes_agree(b: &[u8]) -> &'static str {
    let g = dirnotes::DirNotes::validate(b);
    let gb = dirnotes::DirNotes::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRNOTES, b, g, gb, |g, v| {
        npuschema_tests::compare::dirnotes(b, g, v)
    })
}

/// Files the generated directory writer built with file-level ranges around the directory
/// (`notes` before it, `trailer` after the payloads): the generated validator and the
/// interpreter accept them, read the same values, and agree on their mutants.
#[test]
fn dirnotes_writer_built_files_and_their_mutants_agree() {
    use dirnotes::{DirNotesSpec, Kind, SectionSpec};
    assert_eq!(interp(DIRNOTES).sites(), &dirnotes::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let kinds = [Kind::Data, Kind::Code, Kind::Empty, Kind::Data];
    for (n, notes, trailer) in [
        (3usize, &b"notes!"[..], &b"tail"[..]),
        (0, &b""[..], &b""[..]),
        (4, &b"n"[..], &b"a longer trailer"[..]),
    ] {
        let sections: Vec<SectionSpec> = (0..n)
            .map(|i| SectionSpec {
                kind: kinds[i],
                entsize: i as u16,
                payload: &b"payload bytes"[..i * 4],
            })
            .collect();
        let good = DirNotesSpec {
            flags: 9,
            notes,
            trailer,
            title: if n == 0 { "" } else { "ünïcode" },
            sections: &sections,
        }
        .to_vec()
        .unwrap();
        assert_eq!(dirnotes_agree(&good), "ok");
        // Mutants resealed (the CRC recomputed) unless the CRC's own bytes were hit.
        let reseal = |m: &mut [u8]| {
            if m.len() >= 36 {
                let sum = npuschema_core::crc32(0, &m[36..]);
                m[28..32].copy_from_slice(&sum.to_le_bytes());
            }
        };
        for (k, c) in sweep(&good, &dirnotes_agree, &reseal, 28..32, 5_000, 0xD1A0) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    // The byte-by-byte files of the fuzz seeds (tests/src/construct_blobs.rs) are valid too.
    let hand = dirnotes_file(
        &[(2, 0, b"data"), (1, 4, b"code bytes"), (3, 0, b"")],
        b"notes!",
        b"tail",
        "ünïcode".as_bytes(),
    );
    assert_eq!(dirnotes_agree(&hand), "ok");
    assert_eq!(dirnotes_agree(&dirnotes_file(&[], b"", b"", b"")), "ok");
    eprintln!("dirnotes verdicts: {verdicts:?}");
    assert_reached(
        "dirnotes",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "sections-out-of-bounds",
            "bad-kind",
            "section-out-of-bounds",
            "notes-out-of-bounds",
            "trailer-out-of-bounds",
            "bad-title",
            "title-not-utf8",
            "bad-crc",
            "ok",
        ],
    );
}

// ----- a directory writer with another table, a string table and a stream (dirmix.yaml) ----

fn dirmix_agree(b: &[u8]) -> &'static str {
    let g = dirmix::DirMix::validate(b);
    let gb = dirmix::DirMix::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRMIX, b, g, gb, |g, v| {
        npuschema_tests::compare::dirmix(b, g, v)
    })
}

/// Files the generated directory writer built with another table (`symbols`, located by a
/// located record, each symbol with a name in the string table `names`, a length-prefixed
/// label and bytes of its own), a record stream (`entries` in `log`) and the file's title in
/// the string table: the generated validator and the interpreter accept them, read the same
/// values, and agree on their mutants.
#[test]
fn dirmix_writer_built_files_and_their_mutants_agree() {
    use dirmix::{DirMixSpec, EntriesSpec, Kind, SectionSpec, SymbolBlob, SymbolSpec};
    assert_eq!(interp(DIRMIX).sites(), &dirmix::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let names = ["main", "ünï", "", "x"];
    for n in [3usize, 0, 1] {
        let sections: Vec<SectionSpec> = (0..n)
            .map(|i| SectionSpec {
                kind: if i % 2 == 0 { Kind::Code } else { Kind::Data },
                entsize: i as u16,
                payload: &b"payload bytes"[..i * 3],
            })
            .collect();
        let symbols: Vec<SymbolSpec> = (0..n + 1)
            .map(|i| SymbolSpec {
                value: -(i as i32) * 7,
                blob: SymbolBlob::Present(&b"blob!"[..i.min(5)]),
                name: names[i % names.len()],
                label: &b"lbl"[..i % 4],
            })
            .collect();
        let entries: Vec<EntriesSpec> = (0..n)
            .map(|i| EntriesSpec {
                tag: i as u16 + 1,
                body: &b"entry body"[..i * 2 + 1],
            })
            .collect();
        let good = DirMixSpec {
            flags: 3,
            // `extra`'s layout: everything (2), without `added` (1), without `old` (3).
            info_version: [3, 1, 2][n % 3],
            extra_base: 0x0102_0304,
            extra_added: 0x0506_0708,
            extra_old: 0x090A,
            extra_tail: 0x0B,
            symbols: &symbols,
            title: if n == 0 { "" } else { "tïtle" },
            entries: &entries,
            sections: &sections,
        }
        .to_vec()
        .unwrap();
        assert_eq!(dirmix_agree(&good), "ok");
        let reseal = |m: &mut [u8]| {
            if m.len() >= 40 {
                let sum = npuschema_core::crc32(0, &m[40..]);
                m[36..40].copy_from_slice(&sum.to_le_bytes());
            }
        };
        for (k, c) in sweep(&good, &dirmix_agree, &reseal, 36..40, 5_000, 0xD1A1) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("dirmix verdicts: {verdicts:?}");
    assert_reached(
        "dirmix",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "info-out-of-bounds",
            "extra-out-of-bounds",
            "bad-tail",
            "sections-out-of-bounds",
            "bad-stride",
            "symbols-out-of-bounds",
            "bad-kind",
            "section-out-of-bounds",
            "log-out-of-bounds",
            "bad-entry",
            "names-out-of-bounds",
            "bad-title",
            "title-not-utf8",
            "blob-out-of-bounds",
            "bad-name",
            "name-not-utf8",
            "bad-label",
            "bad-crc",
            "ok",
        ],
    );
}

fn sumstream_agree(b: &[u8]) -> &'static str {
    let g = sumstream::SumStream::validate(b);
    let gb = sumstream::SumStream::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(SUMSTREAM, b, g, gb, |g, v| {
        npuschema_tests::compare::sumstream(b, g, v)
    })
}

/// A record stream with a CRC-32 in every record, written by the generated stream writer
/// (which computes each record's checksum), and its mutants.
#[test]
fn sumstream_writer_built_record_checksums_and_their_mutants_agree() {
    use sumstream::{RecordsSpec, SumStreamWriter};
    assert_eq!(interp(SUMSTREAM).sites(), &sumstream::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for bodies in [
        &[&b"hello"[..], b"", b"a longer body"][..],
        &[][..],
        &[&b"x"[..]][..],
    ] {
        let specs: Vec<RecordsSpec> = bodies
            .iter()
            .enumerate()
            .map(|(i, body)| RecordsSpec {
                // The third record is packed: its checksum is not checked (`when`).
                kind: if i == 2 {
                    sumstream::KIND_PACKED
                } else {
                    i as u16
                },
                crc: 0xDEAD_BEEF,
                body,
            })
            .collect();
        let good = SumStreamWriter::new().records(&specs).to_vec().unwrap();
        assert_eq!(sumstream_agree(&good), "ok");
        for (k, n) in sweep(&good, &sumstream_agree, &|_| {}, 0..0, 5_000, 0x5C5) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    eprintln!("sumstream verdicts: {verdicts:?}");
    assert_reached(
        "sumstream",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "body-out-of-bounds",
            "bad-record",
            "bad-crc",
        ],
    );
}

// ----- two section directories in one writer (twodirs.yaml) ----------------------------------

fn twodirs_agree(b: &[u8]) -> &'static str {
    let g = twodirs::TwoDirs::validate(b);
    let gb = twodirs::TwoDirs::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(TWODIRS, b, g, gb, |g, v| {
        npuschema_tests::compare::twodirs(b, g, v)
    })
}

/// Files the generated writer built with two section directories (code sections with their
/// CRC records, assets of an open type with glyph records), and the same layout built byte by
/// byte: the generated validator and the interpreter accept them, read the same values, and
/// agree on their mutants (resealed by hand, so mutations reach the checks behind the
/// checksums).
#[test]
fn twodirs_writer_built_files_and_their_mutants_agree() {
    use twodirs::{AssetEntrySpec, AssetKind, CodeEntrySpec, CodeKind, TwoDirsSpec};
    assert_eq!(interp(TWODIRS).sites(), &twodirs::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let sums = [1u8, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
    let glyphs = [0x41u8, 0, 0, 0, 8, 0, 12, 0, 0x42, 0, 0, 0, 6, 0, 10, 0];
    for n in [3usize, 1, 0] {
        let kinds = [CodeKind::Text, CodeKind::Rodata, CodeKind::Sums];
        let code: Vec<CodeEntrySpec> = (0..n)
            .map(|i| CodeEntrySpec {
                kind: kinds[i],
                entsize: if i == 2 { 8 } else { 0 },
                align: [16, 0, 4][i],
                code_bytes: if i == 2 {
                    &sums[..]
                } else {
                    &b"code and rodata"[..5 + i * 3]
                },
            })
            .collect();
        let akinds = [
            AssetKind::Font,
            AssetKind::Unknown(0x7123_4567),
            AssetKind::Image,
            AssetKind::VendorBlob,
        ];
        let assets: Vec<AssetEntrySpec> = (0..n + 1)
            .map(|i| AssetEntrySpec {
                kind: akinds[i],
                align: [0, 8, 4, 32][i],
                entsize: if i == 0 { 8 } else { 0 },
                asset_bytes: if i == 0 {
                    &glyphs[..]
                } else {
                    &b"asset!"[..i * 2]
                },
            })
            .collect();
        let good = TwoDirsSpec {
            code: &code,
            assets: &assets,
        }
        .to_vec()
        .unwrap();
        assert_eq!(twodirs_agree(&good), "ok");
        // The writer's bytes are the hand-built layout's.
        let code_t: Vec<(u16, u16, u32, &[u8])> = code
            .iter()
            .map(|s| (s.kind.raw(), s.entsize, s.align, s.code_bytes))
            .collect();
        let asset_t: Vec<(u32, u32, u32, &[u8])> = assets
            .iter()
            .map(|s| (s.kind.raw(), s.align, s.entsize, s.asset_bytes))
            .collect();
        assert_eq!(good, twodirs_file(&code_t, &asset_t));
        for (k, c) in sweep(
            &good,
            &twodirs_agree,
            &twodirs_reseal,
            16..24,
            5_000,
            0xD1A2,
        ) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("twodirs verdicts: {verdicts:?}");
    assert_reached(
        "twodirs",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "code-out-of-bounds",
            "assets-out-of-bounds",
            "bad-code-kind",
            "code-section-out-of-bounds",
            "code-entry-size",
            "asset-out-of-bounds",
            "asset-entry-size",
            "empty-glyph",
            "section-crc-mismatch",
            "section-crc-missing",
            "code-crc-mismatch",
            "asset-sum-mismatch",
            "ok",
        ],
    );
}

// ----- a per-record range flagged inside a struct-typed field (nestflag.yaml) ----------------

fn nestflag_agree(b: &[u8]) -> &'static str {
    let g = nestflag::NestFlag::validate(b);
    let gb = nestflag::NestFlag::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(NESTFLAG, b, g, gb, |g, v| {
        npuschema_tests::compare::nestflag(b, g, v)
    })
}

/// Files the generated writer built (the flag bit inside each entry's `tag` set or cleared
/// by the writer), the same files built byte by byte, and their mutants: the generated
/// validator and the interpreter agree on each.
#[test]
fn nestflag_writer_built_files_and_their_mutants_agree() {
    use nestflag::{EntryData, EntrySpec, Marks, NestFlagWriter, SpanValue, TagValue};
    assert_eq!(interp(NESTFLAG).sites(), &nestflag::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let bodies: [&[u8]; 4] = [b"first", b"", b"xy", b"fourth!"];
    for n in [4usize, 1, 0] {
        let entries: Vec<EntrySpec> = (0..n)
            .map(|i| EntrySpec {
                tag: TagValue {
                    kind: i as u16,
                    marks: if i % 2 == 0 {
                        Marks::HIDDEN
                    } else {
                        Marks::empty()
                    },
                    level: 7,
                },
                span: SpanValue {
                    offset: 0,
                    length: 0,
                },
                value: 100 + i as u32,
                data: if bodies[i].is_empty() {
                    EntryData::Absent(0)
                } else {
                    EntryData::Present(bodies[i])
                },
            })
            .collect();
        let good = NestFlagWriter::new().entries(&entries).to_vec().unwrap();
        assert_eq!(nestflag_agree(&good), "ok");
        let hand: Vec<(u16, u8, u8, u32, &[u8])> = (0..n)
            .map(|i| {
                let marks = if i % 2 == 0 { 8 } else { 0 } | u8::from(!bodies[i].is_empty());
                (i as u16, marks, 7, 100 + i as u32, bodies[i])
            })
            .collect();
        assert_eq!(good, nestflag_file(&hand));
        for (k, c) in sweep(&good, &nestflag_agree, &|_| {}, 0..0, 5_000, 0xD1A3) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("nestflag verdicts: {verdicts:?}");
    assert_reached(
        "nestflag",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "entries-out-of-bounds",
            "data-out-of-bounds",
            "empty-data",
            "ok",
        ],
    );
}

const PNG: &str = "../formats/png.yaml";

fn png_agree(b: &[u8]) -> &'static str {
    use npuschema_tests::compare::schemas::png;
    let g = png::Png::validate(b);
    let gb = png::Png::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(PNG, b, g, gb, |g, v| npuschema_tests::compare::png(b, g, v))
}

/// Recompute the CRC of every chunk that the lengths still lay out inside the file, so a
/// mutant reaches the checks after `bad-chunk-crc`.
fn png_reseal(m: &mut [u8]) {
    let mut at = 8usize;
    while let Some(h) = m.get(at..at + 8) {
        let n = u32::from_be_bytes(h[..4].try_into().unwrap()) as usize;
        let Some(end) = (at + 8).checked_add(n).filter(|&e| e + 4 <= m.len()) else {
            return;
        };
        let crc = npuschema_core::crc32(0, &m[at + 4..end]);
        m[end..end + 4].copy_from_slice(&crc.to_be_bytes());
        at = end + 4;
    }
}

/// PNG files written by the generated writers (`ChunksWriter` solves `size: length + 4`
/// for each chunk's `length` and computes its CRC; `PngWriter` writes the signature and the
/// chunks' range, which runs to the end of the file), and their mutants (CRCs recomputed
/// for most, so they reach the checks past the CRC): generated code and interpreter agree.
/// (`chunk-too-long` needs a length above 2^31 - 1 inside the file: not reached here.)
#[test]
fn png_writer_built_files_and_their_mutants_agree() {
    use npuschema_tests::compare::schemas::png::{ChunksSpec, ERROR_SITES, PngWriter};
    assert_eq!(interp(PNG).sites(), &ERROR_SITES[..]);
    let ty = |t: &[u8; 4]| u32::from_be_bytes(*t);
    let ihdr = [0, 0, 0, 2, 0, 0, 0, 1, 8, 0, 0, 0, 0];
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for chunks in [
        vec![
            (ty(b"IHDR"), &ihdr[..]),
            (ty(b"tEXt"), &b"Title\0two pixels"[..]),
            (ty(b"IDAT"), &[0x78, 0x9C, 0x63, 0x60, 0x00, 0x00][..]),
            (ty(b"IEND"), &[][..]),
        ],
        vec![(ty(b"IHDR"), &ihdr[..]), (ty(b"IEND"), &[][..])],
        vec![
            (ty(b"IHDR"), &ihdr[..]),
            (ty(b"IHDR"), &ihdr[..]),
            (ty(b"IEND"), &[][..]),
        ],
        vec![(ty(b"IEND"), &[][..])],
        // The image data split, with a chunk between its two IDATs.
        vec![
            (ty(b"IHDR"), &ihdr[..]),
            (ty(b"IDAT"), &[0x78, 0x9C, 0x63][..]),
            (ty(b"tEXt"), &b"k\0v"[..]),
            (ty(b"IDAT"), &[0x60, 0x00, 0x00][..]),
            (ty(b"IEND"), &[][..]),
        ],
    ] {
        let bodies: Vec<Vec<u8>> = chunks
            .iter()
            .map(|(_, d)| d.iter().copied().chain([0u8; 4]).collect())
            .collect();
        let specs: Vec<ChunksSpec> = chunks
            .iter()
            .zip(&bodies)
            .map(|((t, _), body)| ChunksSpec {
                chunk_type: *t,
                body,
            })
            .collect();
        let good = PngWriter::new().chunks(&specs).to_vec().unwrap();
        let ihdrs = chunks.iter().filter(|c| c.0 == ty(b"IHDR")).count();
        let idats: Vec<usize> = (0..chunks.len())
            .filter(|&i| chunks[i].0 == ty(b"IDAT"))
            .collect();
        let want = match (ihdrs, idats.as_slice()) {
            (0, _) => "ihdr-not-first",
            (2, _) => "one-ihdr",
            (_, []) => "no-idat",
            (_, [a, .., b]) if b - a + 1 != idats.len() => "idat-not-consecutive",
            _ => "ok",
        };
        assert_eq!(png_agree(&good), want);
        for (k, n) in sweep(&good, &png_agree, &png_reseal, 0..8, 5_000, 0x96E) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    eprintln!("png verdicts: {verdicts:?}");
    assert_reached(
        "png",
        &verdicts,
        &[
            "ok",
            "truncated-signature",
            "bad-signature",
            "bad-chunk",
            "ihdr-not-first",
            "one-ihdr",
            "no-idat",
            "idat-not-consecutive",
            "bad-ihdr-size",
            "bad-compression",
            "bad-chunk-crc",
        ],
    );
}

fn whenw_agree(b: &[u8]) -> &'static str {
    let g = whenw::WhenW::validate(b);
    let gb = whenw::WhenW::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(WHENW, b, g, gb, |g, v| {
        npuschema_tests::compare::whenw(b, g, v)
    })
}

/// Files whose optional parts the writer checked against their conditions (each condition
/// true, each false), the same files built byte by byte (the fuzz seeds), and their mutants.
#[test]
fn whenw_writer_built_files_and_their_mutants_agree() {
    use npuschema_tests::construct_blobs::whenw_file;
    use whenw::{Kind, MarkSpec, TagSpec, WFlags, WhenWWriter};
    assert_eq!(interp(WHENW).sites(), &whenw::ERROR_SITES[..]);
    let specs = [TagSpec { id: 7, value: 70 }, TagSpec { id: 8, value: 80 }];
    let marks = [
        MarkSpec { code: 0xA },
        MarkSpec { code: 0xB },
        MarkSpec { code: 0xC },
    ];
    let all = WhenWWriter::new()
        .version(3)
        .kind(Kind::Ext)
        .flags(WFlags::HAS_EXTRA)
        .tags(&specs)
        .marks(&marks)
        .ext(b"ext!!")
        .extra(b"xy")
        .notes(b"n")
        .to_vec()
        .unwrap();
    let none = WhenWWriter::new()
        .version(1)
        .flags(WFlags::HAS_EXTRA)
        .to_vec()
        .unwrap();
    let v2 = WhenWWriter::new()
        .version(2)
        .kind(Kind::Ext)
        .marks(&[])
        .ext(b"")
        .notes(b"notes")
        .to_vec()
        .unwrap();
    // The byte-by-byte files of the fuzz seeds are the writer's, byte for byte.
    assert_eq!(
        all,
        whenw_file(
            (3, 1, 0b10),
            &[(7, 70), (8, 80)],
            Some(&[0xA, 0xB, 0xC]),
            Some(b"ext!!"),
            Some(b"xy"),
            Some(b"n")
        )
    );
    assert_eq!(none, whenw_file((1, 0, 0b10), &[], None, None, None, None));
    assert_eq!(
        v2,
        whenw_file((2, 1, 0), &[], Some(&[]), Some(b""), None, Some(b"notes"))
    );
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for good in [all, none, v2] {
        assert_eq!(whenw_agree(&good), "ok");
        for (k, n) in sweep(&good, &whenw_agree, &|_| {}, 0..0, 5_000, 0x3E3) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    eprintln!("whenw verdicts: {verdicts:?}");
    assert_reached(
        "whenw",
        &verdicts,
        &[
            "ok",
            "truncated-header",
            "bad-magic",
            "bad-kind",
            "bad-flags",
            "tags-out-of-bounds",
            "no-tags-before-v3",
            "marks-out-of-bounds",
            "ext-out-of-bounds",
            "extra-out-of-bounds",
            "notes-out-of-bounds",
        ],
    );
}

// ----- a stride field and a fixed count in the writer (strided.yaml) -------------------------

fn strided_agree(b: &[u8]) -> &'static str {
    let g = strided::Strided::validate(b);
    let gb = strided::Strided::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(STRIDED, b, g, gb, |g, v| {
        npuschema_tests::compare::strided(b, g, v)
    })
}

/// Files the generated writer built (the stride field set to the record size, the fixed count
/// of slots) and their mutants: the generated validator and the interpreter agree on each.
#[test]
fn strided_writer_built_files_and_their_mutants_agree() {
    use strided::{ItemSpec, SlotSpec, StridedWriter};
    assert_eq!(interp(STRIDED).sites(), &strided::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let slots = [
        SlotSpec { base: 1, limit: 2 },
        SlotSpec { base: 0, limit: 0 },
        SlotSpec { base: 5, limit: 9 },
    ];
    for n in [3usize, 0] {
        let items: Vec<ItemSpec> = (0..n as u32)
            .map(|i| ItemSpec {
                id: i,
                weight: 7 * i,
            })
            .collect();
        let good = StridedWriter::new()
            .items(&items)
            .slots(&slots)
            .to_vec()
            .unwrap();
        let pairs: Vec<(u32, u32)> = items.iter().map(|i| (i.id, i.weight)).collect();
        assert_eq!(
            good,
            npuschema_tests::construct_blobs::strided_file(&pairs, [(1, 2), (0, 0), (5, 9)])
        );
        assert_eq!(strided_agree(&good), "ok");
        for (k, c) in sweep(&good, &strided_agree, &|_| {}, 0..0, 3_000, 0xD1A4) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("strided verdicts: {verdicts:?}");
    assert_reached(
        "strided",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-total",
            "bad-stride",
            "items-out-of-bounds",
            "slots-out-of-bounds",
            "bad-slot",
            "ok",
        ],
    );
}

// ----- the plain writer's located records (plainloc.yaml) ------------------------------------

fn plainloc_agree(b: &[u8]) -> &'static str {
    let g = plainloc::PlainLoc::validate(b);
    let gb = plainloc::PlainLoc::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(PLAINLOC, b, g, gb, |g, v| {
        npuschema_tests::compare::plainloc(b, g, v)
    })
}

/// Files the generated plain writer built with located records (`info`, and `extra` in each
/// layout of its version), the same bytes as laid out by hand: the generated validator and
/// the interpreter accept them, read the same values, and agree on their mutants.
#[test]
fn plainloc_writer_built_files_and_their_mutants_agree() {
    use npuschema_tests::construct_blobs::{plainloc_file, plainloc_reseal};
    use plainloc::{ItemSpec, PlainLocWriter};
    assert_eq!(interp(PLAINLOC).sites(), &plainloc::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for n in [2usize, 0, 1, 3] {
        let items: Vec<ItemSpec> = (0..n)
            .map(|i| ItemSpec {
                id: i as u32 * 3,
                value: -(i as i32),
            })
            .collect();
        let body = &b"body bytes"[..n * 3];
        // `extra`'s layout: everything (2), without `added` (1), without `old` (3).
        // (The gate is `version & 0xFFFF`.)
        let version = [2u32, 0x0007_0001, 3, 0xFFFF_0000][n];
        let good = PlainLocWriter::new()
            .flags(n as u16)
            .level(9)
            .info_version(version)
            .extra_base(0x0102_0304)
            .extra_added(0x0506_0708)
            .extra_old(0x090A)
            .extra_tail(0x0B)
            .items(&items)
            .body(body)
            .to_vec()
            .unwrap();
        let pairs: Vec<(u32, i32)> = items.iter().map(|i| (i.id, i.value)).collect();
        assert_eq!(
            good,
            plainloc_file(
                (n as u16, 9),
                version,
                &pairs,
                body,
                (0x0102_0304, 0x0506_0708, 0x090A, 0x0B)
            )
        );
        assert_eq!(plainloc_agree(&good), "ok");
        for (k, c) in sweep(
            &good,
            &plainloc_agree,
            &plainloc_reseal,
            12..16,
            5_000,
            0x1C0C,
        ) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("plainloc verdicts: {verdicts:?}");
    assert_reached(
        "plainloc",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "info-out-of-bounds",
            "bad-kind",
            "extra-out-of-bounds",
            "bad-tail",
            "items-out-of-bounds",
            "body-out-of-bounds",
            "bad-crc",
            "ok",
        ],
    );
}

// ----- a directory writer with a computed version gate (dirgate.yaml) ------------------------

fn dirgate_agree(b: &[u8]) -> &'static str {
    let g = dirgate::DirGate::validate(b);
    let gb = dirgate::DirGate::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRGATE, b, g, gb, |g, v| {
        npuschema_tests::compare::dirgate(b, g, v)
    })
}

/// Files the generated directory writer built with a record laid out by a computed gate
/// (`(header.version >> 16) - 1`) and each section's name in a string table it builds, the
/// same bytes as laid out by hand: the generated
/// validator and the interpreter accept them, read the same values, and agree on their
/// mutants (a mutated version moves the gate, or makes it underflow).
#[test]
fn dirgate_writer_built_files_and_their_mutants_agree() {
    use dirgate::{DirGateSpec, Kind, SectionSpec};
    use npuschema_tests::construct_blobs::dirgate_file;
    assert_eq!(interp(DIRGATE).sites(), &dirgate::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for n in [2usize, 0, 3] {
        let names = ["text", "", "dätä"];
        let sections: Vec<SectionSpec> = (0..n)
            .map(|i| SectionSpec {
                kind: if i % 2 == 0 { Kind::Code } else { Kind::Data },
                entsize: i as u16,
                name: names[i % 3],
                payload: &b"payload bytes"[..i * 3],
            })
            .collect();
        let version = [0x0002_0000u32, 0x0001_0001, 0x0007_0000][n % 3];
        let good = DirGateSpec {
            version,
            fixed_base: 0x0102_0304,
            fixed_added: 0x0506,
            fixed_tail: 0x07,
            sections: &sections,
        }
        .to_vec()
        .unwrap();
        let triples: Vec<(u16, u16, &[u8], &[u8])> = sections
            .iter()
            .map(|s| (s.kind.raw(), s.entsize, s.name.as_bytes(), s.payload))
            .collect();
        assert_eq!(
            good,
            dirgate_file(version, &triples, (0x0102_0304, 0x0506, 0x07))
        );
        assert_eq!(dirgate_agree(&good), "ok");
        for (k, c) in sweep(&good, &dirgate_agree, &|_| {}, 0..0, 5_000, 0xD6A7) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("dirgate verdicts: {verdicts:?}");
    assert_reached(
        "dirgate",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "fixed-out-of-bounds",
            "sections-out-of-bounds",
            "names-out-of-bounds",
            "bad-kind",
            "section-out-of-bounds",
            "bad-name",
            "name-not-utf8",
            "ok",
        ],
    );
}

// ----- a directory's records' strings outside a string table (dirlabel.yaml) ----------------

fn dirlabel_agree(b: &[u8]) -> &'static str {
    let g = dirlabel::DirLabel::validate(b);
    let gb = dirlabel::DirLabel::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRLABEL, b, g, gb, |g, v| {
        npuschema_tests::compare::dirlabel(b, g, v)
    })
}

/// Files the directory writer built with a label per section outside any string table, and
/// their mutants: the generated validator and the interpreter agree on each.
#[test]
fn dirlabel_writer_built_files_and_their_mutants_agree() {
    use dirlabel::{DirLabelSpec, Kind, SectionSpec};
    assert_eq!(interp(DIRLABEL).sites(), &dirlabel::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let labels = ["main", "", "dätä", "x"];
    for n in [3usize, 1, 0] {
        let sections: Vec<SectionSpec> = (0..n)
            .map(|i| SectionSpec {
                kind: if i % 2 == 0 { Kind::Code } else { Kind::Data },
                entsize: 0,
                label: labels[i],
                payload: &b"payload bytes"[..i * 3],
            })
            .collect();
        let good = DirLabelSpec {
            sections: &sections,
        }
        .to_vec()
        .unwrap();
        let by_hand: Vec<(u16, &[u8], &str)> = sections
            .iter()
            .map(|s| (s.kind.raw(), s.payload, s.label))
            .collect();
        assert_eq!(
            good,
            npuschema_tests::construct_blobs::dirlabel_file(&by_hand)
        );
        assert_eq!(dirlabel_agree(&good), "ok");
        for (k, c) in sweep(&good, &dirlabel_agree, &|_| {}, 0..0, 3_000, 0xD1A5) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("dirlabel verdicts: {verdicts:?}");
    assert_reached(
        "dirlabel",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "sections-out-of-bounds",
            "section-out-of-bounds",
            "bad-label",
            "label-not-utf8",
            "ok",
        ],
    );
}

// ----- a table placed by a field of a located record (loctable.yaml) -------------------------

fn loctable_agree(b: &[u8]) -> &'static str {
    let g = loctable::LocTable::validate(b);
    let gb = loctable::LocTable::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(LOCTABLE, b, g, gb, |g, v| {
        npuschema_tests::compare::loctable(b, g, v)
    })
}

/// Files the plain writer built with a table placed by a field of a located record, and
/// their mutants: the generated validator and the interpreter agree on each.
#[test]
fn loctable_writer_built_files_and_their_mutants_agree() {
    use loctable::{EntrySpec, LocTableWriter, NoteSpec};
    assert_eq!(interp(LOCTABLE).sites(), &loctable::ERROR_SITES[..]);
    // A file shorter than the header whose `index` names entries inside it: the reseal has
    // nowhere to store the CRC, and leaves it (a fuzz finding in the harness, kept in
    // fuzz/regressions/interp_constructs).
    let mut short = *b"\x0f\0\0\0\0\0\0\0LTD9\0\0\0";
    npuschema_tests::construct_blobs::loctable_reseal(&mut short);
    assert_eq!(loctable_agree(&short), "truncated-header");
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for n in [3usize, 1, 0] {
        let entries: Vec<EntrySpec> = (0..n)
            .map(|i| EntrySpec {
                id: i as u32 + 1,
                value: -(i as i32),
            })
            .collect();
        let notes: Vec<NoteSpec> = (0..(3 - n))
            .map(|i| NoteSpec { word: i as u32 * 7 })
            .collect();
        let good = LocTableWriter::new()
            .level(n as u16)
            .index_owner(0xAB)
            .entries(&entries)
            .notes(&notes)
            .title(["", "tät", "a title"][n % 3])
            .to_vec()
            .unwrap();
        let pairs: Vec<(u32, i32)> = entries.iter().map(|e| (e.id, e.value)).collect();
        let words: Vec<u32> = notes.iter().map(|x| x.word).collect();
        assert_eq!(
            good,
            npuschema_tests::construct_blobs::loctable_file(
                n as u16,
                0xAB,
                &pairs,
                &words,
                ["", "tät", "a title"][n % 3]
            )
        );
        assert_eq!(loctable_agree(&good), "ok");
        for (k, c) in sweep(
            &good,
            &loctable_agree,
            &npuschema_tests::construct_blobs::loctable_reseal,
            16..20,
            3_000,
            0x10C7,
        ) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("loctable verdicts: {verdicts:?}");
    assert_reached(
        "loctable",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "index-out-of-bounds",
            "bad-entry-size",
            "entries-out-of-bounds",
            "notes-out-of-bounds",
            "bad-entry-id",
            "bad-title",
            "title-not-utf8",
            "bad-end-magic",
            "bad-total",
            "bad-entries-crc",
            "ok",
        ],
    );
}

// ----- a second per-record range of a directory table (dirrel.yaml) --------------------------

fn dirrel_agree(b: &[u8]) -> &'static str {
    let g = dirrel::DirRel::validate(b);
    let gb = dirrel::DirRel::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRREL, b, g, gb, |g, v| {
        npuschema_tests::compare::dirrel(b, g, v)
    })
}

/// Files the directory writer built with relocations beside some sections' payloads (the
/// same bytes as laid out by hand), and their mutants resealed: the generated validator and
/// the interpreter agree on each.
#[test]
fn dirrel_writer_built_files_and_their_mutants_agree() {
    use dirrel::{DirRelSpec, Kind, SectionFlags, SectionRelocs, SectionSpec};
    use npuschema_tests::construct_blobs::{DirRelSection, dirrel_file, dirrel_reseal};
    assert_eq!(interp(DIRREL).sites(), &dirrel::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let relocs = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";
    for n in [3usize, 1, 0] {
        let sections: Vec<SectionSpec> = (0..n)
            .map(|i| SectionSpec {
                kind: [Kind::Code, Kind::Data, Kind::Note][i],
                flags: [
                    SectionFlags::WRITABLE,
                    SectionFlags::WRITABLE.union(SectionFlags::HAS_RELOCS),
                    SectionFlags::empty(),
                ][i],
                entsize: 0,
                relocs: if i == 1 {
                    SectionRelocs::Absent(8)
                } else {
                    SectionRelocs::Present(&relocs[..8 * (i + 1)])
                },
                payload: &b"payload bytes"[..i * 3 + 1],
            })
            .collect();
        let title = ["", "rel", "t"][n % 3];
        let good = DirRelSpec {
            info_build: n as u32,
            title: title.as_bytes(),
            sections: &sections,
        }
        .to_vec()
        .unwrap();
        let by_hand: Vec<DirRelSection> = sections
            .iter()
            .map(|s| {
                let r = match s.relocs {
                    SectionRelocs::Present(b) => Ok(b),
                    SectionRelocs::Absent(n) => Err(n),
                };
                (s.kind.raw(), s.flags.bits(), s.entsize, s.payload, r)
            })
            .collect();
        assert_eq!(good, dirrel_file(n as u32, &by_hand, title));
        assert_eq!(dirrel_agree(&good), "ok");
        for (k, c) in sweep(&good, &dirrel_agree, &dirrel_reseal, 12..16, 4_000, 0xD1E1) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("dirrel verdicts: {verdicts:?}");
    assert_reached(
        "dirrel",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "info-out-of-bounds",
            "bad-title",
            "sections-out-of-bounds",
            "bad-kind",
            "bad-flags",
            "section-out-of-bounds",
            "relocs-out-of-bounds",
            "bad-relocs",
            "bad-crc",
            "ok",
        ],
    );
}

// ----- a directory writer's optional parts (dirwhen.yaml) -----------------------------------

fn dirwhen_agree(b: &[u8]) -> &'static str {
    let g = dirwhen::DirWhen::validate(b);
    let gb = dirwhen::DirWhen::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRWHEN, b, g, gb, |g, v| {
        npuschema_tests::compare::dirwhen(b, g, v)
    })
}

/// Files the directory writer wrote with every optional part and with none (payloads left
/// out by kind and by flag bit, optional ranges and tables), equal to the byte-by-byte files
/// of the fuzz seeds, and their mutants (the CRC recomputed unless its own bytes were hit):
/// the interpreter and the generated code agree on every one.
#[test]
fn dirwhen_writer_built_files_and_their_mutants_agree() {
    use dirwhen::{BFlags, BlobSpec, DirWhenSpec, HFlags, Kind, MarkSpec, SectionSpec, TagSpec};
    use npuschema_tests::construct_blobs::{dirwhen_file, dirwhen_reseal};
    assert_eq!(interp(DIRWHEN).sites(), &dirwhen::ERROR_SITES[..]);
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
    let blobs = [
        BlobSpec {
            id: 0x7000_0001,
            flags: BFlags::KEEP,
            entsize: 0,
            blob_bytes: Some(b"BLOB"),
        },
        BlobSpec {
            id: 5,
            flags: BFlags::HAS_DATA,
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
    }
    .to_vec()
    .unwrap();
    let none = DirWhenSpec {
        version: 1,
        flags: HFlags::HAS_TAGS,
        marks: None,
        tags: None,
        ext: None,
        notes: None,
        sections: &sections[1..2],
        blobs: &blobs[1..],
    }
    .to_vec()
    .unwrap();
    let v2 = DirWhenSpec {
        version: 2,
        flags: HFlags::empty(),
        marks: None,
        tags: Some(&[]),
        ext: Some(b""),
        notes: None,
        sections: &sections[..1],
        blobs: &[],
    }
    .to_vec()
    .unwrap();
    // The byte-by-byte files of the fuzz seeds are the writer's, byte for byte.
    assert_eq!(
        all,
        dirwhen_file(
            (3, 0),
            &[(1, 0, Some(b"abcde")), (8, 0, None), (2, 2, Some(b"xy"))],
            &[(0x7000_0001, 2, 0, Some(b"BLOB")), (5, 1, 0, None)],
            Some(&[0xA, 0xB]),
            Some(&[(7, 70)]),
            Some(b"ext"),
            Some(b"n")
        )
    );
    assert_eq!(
        none,
        dirwhen_file(
            (1, 2),
            &[(8, 0, None)],
            &[(5, 1, 0, None)],
            None,
            None,
            None,
            None
        )
    );
    assert_eq!(
        v2,
        dirwhen_file(
            (2, 0),
            &[(1, 0, Some(b"abcde"))],
            &[],
            None,
            Some(&[]),
            Some(b""),
            None
        )
    );
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let reseal = |m: &mut [u8]| dirwhen_reseal(m);
    for good in [all, none, v2] {
        assert_eq!(dirwhen_agree(&good), "ok");
        for (k, n) in sweep(&good, &dirwhen_agree, &reseal, 48..52, 5_000, 0xD3E7) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    eprintln!("dirwhen verdicts: {verdicts:?}");
    assert_reached(
        "dirwhen",
        &verdicts,
        &[
            "ok",
            "truncated-header",
            "bad-magic",
            "bad-flags",
            "sections-out-of-bounds",
            "blobs-out-of-bounds",
            "bad-kind",
            "data-out-of-bounds",
            "section-entry-size",
            "bad-blob-flags",
            "blob-out-of-bounds",
            "blob-entry-size",
            "marks-out-of-bounds",
            "tags-out-of-bounds",
            "ext-out-of-bounds",
            "notes-out-of-bounds",
            "bad-crc",
        ],
    );
}

// ----- places, counts, strides, offsets and lengths as linear forms (linforms.yaml) ---------

fn linforms_agree(b: &[u8]) -> &'static str {
    let g = linforms::LinForms::validate(b);
    let gb = linforms::LinForms::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(LINFORMS, b, g, gb, |g, v| {
        npuschema_tests::compare::linforms(b, g, v)
    })
}

/// Files the generated plain writer built with every place, count, stride, offset and length
/// solved for a field through a linear form, a fixed-length range, a range that ends before a
/// trailer and the trailer at `len - TAIL` (the same bytes as laid out by hand), and their
/// mutants: the generated validator and the interpreter agree on each.
#[test]
fn linforms_writer_built_files_and_their_mutants_agree() {
    use linforms::{ItemData, ItemSpec, LinFormsWriter, PairSpec};
    use npuschema_tests::construct_blobs::linforms_file;
    assert_eq!(interp(LINFORMS).sites(), &linforms::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let data = [0x5Au8; 12];
    for (items, pairs) in [
        (
            &[(1u16, &data[..8]), (2, &data[..4])][..],
            &[(1u16, 2u16), (3, 4)][..],
        ),
        (&[][..], &[][..]),
        (
            &[(3, &data[..12])][..],
            &[(5, 6), (7, 8), (9, 10), (11, 12)][..],
        ),
    ] {
        let specs: Vec<ItemSpec<'_>> = items
            .iter()
            .map(|&(id, d)| ItemSpec {
                id,
                data: ItemData::Present(d),
            })
            .collect();
        let ps: Vec<PairSpec> = pairs.iter().map(|&(a, b)| PairSpec { a, b }).collect();
        let good = LinFormsWriter::new()
            .items(&specs)
            .pairs(&ps)
            .blob(b"word")
            .note(b"note!")
            .stamp(b"STMP")
            .body(b"body")
            .tail(b"trailer!")
            .to_vec()
            .unwrap();
        let ends = (*b"STMP", &b"body"[..], *b"trailer!");
        assert_eq!(good, linforms_file(items, pairs, b"word", b"note!", ends));
        assert_eq!(linforms_agree(&good), "ok");
        for (k, c) in sweep(&good, &linforms_agree, &|_| {}, 0..0, 3_000, 0x11F0) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("linforms verdicts: {verdicts:?}");
    assert_reached(
        "linforms",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-item-size",
            "items-out-of-bounds",
            "pairs-out-of-bounds",
            "data-out-of-bounds",
            "blob-out-of-bounds",
            "note-out-of-bounds",
            "stamp-out-of-bounds",
            "body-out-of-bounds",
            // (Not `tail-out-of-bounds`: `len - 8` of 8 bytes is out of bounds only in a
            // file shorter than 8 bytes, which fails on its 32-byte header first.)
            "ok",
        ],
    );
}

// ----- a trailer whose length is a header field (sigtrail.yaml) ------------------------------

fn sigtrail_agree(b: &[u8]) -> &'static str {
    let g = sigtrail::SigTrail::validate(b);
    let gb = sigtrail::SigTrail::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(SIGTRAIL, b, g, gb, |g, v| {
        npuschema_tests::compare::sigtrail(b, g, v)
    })
}

/// Files the generated plain writer built with a body and, right after it, a signature of the
/// length `sig_len` gives at `len - sig_len` (the same bytes as laid out by hand), and their
/// mutants: the generated validator and the interpreter agree on each.
#[test]
fn sigtrail_writer_built_files_and_their_mutants_agree() {
    use npuschema_tests::construct_blobs::sigtrail_file;
    assert_eq!(interp(SIGTRAIL).sites(), &sigtrail::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (body, sig) in [
        (&b"the body"[..], &b"SIGNATURE"[..]),
        (b"", b""),
        (b"x", b"0123456789abcdef0123"),
    ] {
        let good = sigtrail::SigTrailWriter::new()
            .kind(7)
            .body(body)
            .sig(sig)
            .to_vec()
            .unwrap();
        assert_eq!(good, sigtrail_file(7, body, sig));
        assert_eq!(sigtrail_agree(&good), "ok");
        for (k, c) in sweep(&good, &sigtrail_agree, &|_| {}, 0..0, 2_000, 0x5176) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("sigtrail verdicts: {verdicts:?}");
    assert_reached(
        "sigtrail",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "sig-out-of-bounds",
            "body-out-of-bounds",
            "ok",
        ],
    );
}

// ----- a table at the end of the file (tailtab.yaml, tailfix.yaml) ---------------------------

fn tailtab_agree(b: &[u8]) -> &'static str {
    let g = tailtab::TailTab::validate(b);
    let gb = tailtab::TailTab::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(TAILTAB, b, g, gb, |g, v| {
        npuschema_tests::compare::tailtab(b, g, v)
    })
}

fn tailfix_agree(b: &[u8]) -> &'static str {
    let g = tailfix::TailFix::validate(b);
    let gb = tailfix::TailFix::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(TAILFIX, b, g, gb, |g, v| {
        npuschema_tests::compare::tailfix(b, g, v)
    })
}

/// Files the generated plain writer built with an index at the end of the file (`at: len -
/// header.count * 12`) and its records' blobs before it, or four slots `SLOT_BYTES` before the
/// end (the same bytes as laid out by hand), and their mutants: the generated validator and
/// the interpreter agree on each.
#[test]
fn table_at_the_end_writer_built_files_and_their_mutants_agree() {
    use npuschema_tests::construct_blobs::{tailfix_file, tailtab_file};
    assert_eq!(interp(TAILTAB).sites(), &tailtab::ERROR_SITES[..]);
    assert_eq!(interp(TAILFIX).sites(), &tailfix::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let sets: [&[(u32, &[u8])]; 3] = [
        &[(1, b"first"), (2, b""), (3, b"the third blob")],
        &[],
        &[(9, b"x")],
    ];
    for entries in sets {
        let specs: Vec<tailtab::EntrySpec<'_>> = entries
            .iter()
            .map(|(id, blob)| tailtab::EntrySpec {
                id: *id,
                blob: tailtab::EntryBlob::Present(blob),
            })
            .collect();
        let good = tailtab::TailTabWriter::new()
            .index(&specs)
            .to_vec()
            .unwrap();
        assert_eq!(good, tailtab_file(entries));
        assert_eq!(tailtab_agree(&good), "ok");
        for (k, c) in sweep(&good, &tailtab_agree, &|_| {}, 0..0, 2_000, 0x7A17) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("tailtab verdicts: {verdicts:?}");
    assert_reached(
        "tailtab",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "index-out-of-bounds",
            "blob-out-of-bounds",
            "ok",
        ],
    );
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let slots = |k: u32| {
        [(k, 1), (k + 1, 2), (k + 2, 3), (k + 3, 4)]
            .map(|(key, value)| tailfix::SlotSpec { key, value })
    };
    for (body, k) in [(&b"a body"[..], 10), (b"", 0), (b"0123456789abcdef", 7)] {
        let good = tailfix::TailFixWriter::new()
            .body(body)
            .slots(&slots(k))
            .to_vec()
            .unwrap();
        assert_eq!(
            good,
            tailfix_file(body, [(k, 1), (k + 1, 2), (k + 2, 3), (k + 3, 4)])
        );
        assert_eq!(tailfix_agree(&good), "ok");
        for (code, c) in sweep(&good, &tailfix_agree, &|_| {}, 0..0, 2_000, 0x7F1C) {
            *verdicts.entry(code).or_default() += c;
        }
    }
    eprintln!("tailfix verdicts: {verdicts:?}");
    assert_reached(
        "tailfix",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "bad-slot-count",
            "slots-out-of-bounds",
            "body-out-of-bounds",
            "ok",
        ],
    );
}

// ----- a version-gated record locating optional parts (gatedw.yaml) ---------------------------

fn gatedw_agree(b: &[u8]) -> &'static str {
    let g = gatedw::GatedW::validate(b);
    let gb = gatedw::GatedW::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(GATEDW, b, g, gb, |g, v| {
        npuschema_tests::compare::gatedw(b, g, v)
    })
}

/// Files the generated plain writer built in every layout of `meta` (versions 0 to 3), with
/// and without `notes` (the same bytes as laid out by hand), and their mutants, the body's
/// CRC-32 recomputed after each edit as well as not: the generated validator and the
/// interpreter agree on each.
#[test]
fn gatedw_writer_built_files_and_their_mutants_agree() {
    use npuschema_tests::construct_blobs::{GatedWParts, gatedw_file, gatedw_reseal};
    assert_eq!(interp(GATEDW).sites(), &gatedw::ERROR_SITES[..]);
    let log: &[u8] = &[1, 0, 3, 0, b'a', b'b', b'c', 0, 2, 0, 0, 0];
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (version, notes) in [
        (0u16, None),
        (1, None),
        (2, Some(&b"notes"[..])),
        (3, Some(b"")),
        (3, None),
    ] {
        let p = GatedWParts {
            version,
            flags: 2,
            legacy: 9,
            body: b"the body",
            notes,
            extra: (version >= 1).then_some(&b"EXTRA"[..]),
            log,
            marks: &[5, 6],
            stamp: 42,
            title: b"T",
        };
        let marks = [gatedw::MarkSpec { word: 5 }, gatedw::MarkSpec { word: 6 }];
        let mut w = gatedw::GatedWWriter::new()
            .version(version)
            .flags(gatedw::HeaderFlags::from_bits_retain(2))
            .meta_legacy(9)
            .stamp_when(42)
            .title(b"T")
            .marks(&marks)
            .body(p.body)
            .entries(&[
                gatedw::EntriesSpec {
                    kind: 1,
                    body: b"abc",
                },
                gatedw::EntriesSpec { kind: 2, body: b"" },
            ]);
        if let Some(n) = notes {
            w = w.notes(n);
        }
        if let Some(e) = p.extra {
            w = w.extra(e);
        }
        let good = w.to_vec().unwrap();
        assert_eq!(good, gatedw_file(&p));
        assert_eq!(gatedw_agree(&good), "ok");
        for (k, c) in sweep(&good, &gatedw_agree, &gatedw_reseal, 12..16, 2_000, 0x6A7E) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("gatedw verdicts: {verdicts:?}");
    assert_reached(
        "gatedw",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "meta-out-of-bounds",
            "body-out-of-bounds",
            "notes-out-of-bounds",
            "extra-out-of-bounds",
            "log-out-of-bounds",
            "bad-entry",
            "marks-out-of-bounds",
            "stamp-out-of-bounds",
            "bad-title",
            "bad-body-crc",
            "ok",
        ],
    );
}

// ----- a directory writer's parts placed without a field (dirtail, dirfoot, dirindex) ------

fn dirtail_agree(b: &[u8]) -> &'static str {
    let g = dirtail::DirTail::validate(b);
    let gb = dirtail::DirTail::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRTAIL, b, g, gb, |g, v| {
        npuschema_tests::compare::dirtail(b, g, v)
    })
}

fn dirfoot_agree(b: &[u8]) -> &'static str {
    let g = dirfoot::DirFoot::validate(b);
    let gb = dirfoot::DirFoot::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRFOOT, b, g, gb, |g, v| {
        npuschema_tests::compare::dirfoot(b, g, v)
    })
}

fn dirindex_agree(b: &[u8]) -> &'static str {
    let g = dirindex::DirIndex::validate(b);
    let gb = dirindex::DirIndex::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRINDEX, b, g, gb, |g, v| {
        npuschema_tests::compare::dirindex(b, g, v)
    })
}

/// Files the generated directory writers built with a constant-place note, a body up to a
/// trailer and the trailer (`dirtail`), a footer at the end (`dirfoot`) and an index at the
/// end (`dirindex`), the same bytes as laid out by hand, and their mutants: the generated
/// validator and the interpreter agree on each.
#[test]
fn directory_writer_end_of_file_parts_and_their_mutants_agree() {
    use npuschema_tests::construct_blobs::{dirfoot_file, dirindex_file, dirtail_file};
    assert_eq!(interp(DIRTAIL).sites(), &dirtail::ERROR_SITES[..]);
    assert_eq!(interp(DIRFOOT).sites(), &dirfoot::ERROR_SITES[..]);
    assert_eq!(interp(DIRINDEX).sites(), &dirindex::ERROR_SITES[..]);
    let sets: [&[(u32, u32, &[u8])]; 3] = [
        &[(1, 0, b"first"), (0x7000_0003, 4, b"abcdefgh"), (2, 0, b"")],
        &[],
        &[(5, 0, b"x")],
    ];
    let mut tail = std::collections::BTreeMap::<&str, usize>::new();
    let mut foot = std::collections::BTreeMap::<&str, usize>::new();
    let mut index = std::collections::BTreeMap::<&str, usize>::new();
    for secs in sets {
        let s1: Vec<dirtail::SectionSpec<'_>> = secs
            .iter()
            .map(|&(kind, entsize, payload)| dirtail::SectionSpec {
                kind,
                entsize,
                payload,
            })
            .collect();
        let good = dirtail::DirTailSpec {
            level: 2,
            note: b"12345678",
            body: b"a body",
            sig: b"SIG-OK",
            sections: &s1,
        }
        .to_vec()
        .unwrap();
        assert_eq!(
            good,
            dirtail_file(2, b"12345678", secs, b"a body", b"SIG-OK")
        );
        assert_eq!(dirtail_agree(&good), "ok");
        for (k, c) in sweep(&good, &dirtail_agree, &|_| {}, 0..0, 1_500, 0xD7A1) {
            *tail.entry(k).or_default() += c;
        }
        let s2: Vec<dirfoot::SectionSpec<'_>> = secs
            .iter()
            .map(|&(kind, entsize, payload)| dirfoot::SectionSpec {
                kind,
                entsize,
                payload,
            })
            .collect();
        let good = dirfoot::DirFootSpec {
            level: 4,
            footer_stamp: 77,
            sections: &s2,
        }
        .to_vec()
        .unwrap();
        assert_eq!(good, dirfoot_file(4, 77, secs));
        assert_eq!(dirfoot_agree(&good), "ok");
        for (k, c) in sweep(&good, &dirfoot_agree, &|_| {}, 0..0, 1_500, 0xD7F0) {
            *foot.entry(k).or_default() += c;
        }
        let s3: Vec<dirindex::SectionSpec<'_>> = secs
            .iter()
            .map(|&(kind, entsize, payload)| dirindex::SectionSpec {
                kind,
                entsize,
                payload,
            })
            .collect();
        let marks: Vec<dirindex::MarkSpec> = (0..secs.len())
            .map(|k| dirindex::MarkSpec {
                section: k as u32,
                value: 100 + k as u32,
            })
            .collect();
        let good = dirindex::DirIndexSpec {
            index: &marks,
            sections: &s3,
        }
        .to_vec()
        .unwrap();
        let by_hand: Vec<(u32, u32)> = marks.iter().map(|m| (m.section, m.value)).collect();
        assert_eq!(good, dirindex_file(secs, &by_hand));
        assert_eq!(dirindex_agree(&good), "ok");
        for (k, c) in sweep(&good, &dirindex_agree, &|_| {}, 0..0, 1_500, 0xD71C) {
            *index.entry(k).or_default() += c;
        }
    }
    eprintln!("dirtail verdicts: {tail:?}");
    eprintln!("dirfoot verdicts: {foot:?}");
    eprintln!("dirindex verdicts: {index:?}");
    let common = [
        "truncated-header",
        "bad-magic",
        "sections-out-of-bounds",
        "section-out-of-bounds",
        "bad-entry-size",
        "ok",
    ];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        common.iter().chain(extra).copied().collect()
    };
    assert_reached(
        "dirtail",
        &tail,
        // (`sig` at `len - SIG` fits any file the header fits: `sig-out-of-bounds` is for
        // a file shorter than SIG, which the header's check rejects first.)
        &with(&["note-out-of-bounds", "body-out-of-bounds"]),
    );
    assert_reached("dirfoot", &foot, &with(&["footer-out-of-bounds"]));
    assert_reached(
        "dirindex",
        &index,
        &with(&["index-out-of-bounds", "bad-mark"]),
    );
}

// ----- a directory writer's optional table with bytes and strings, a payload condition
// reading its size, a CRC whose start a located record gives (diropt.yaml) ----------------

fn diropt_agree(b: &[u8]) -> &'static str {
    let g = diropt::DirOpt::validate(b);
    let gb = diropt::DirOpt::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIROPT, b, g, gb, |g, v| {
        npuschema_tests::compare::diropt(b, g, v)
    })
}

/// Files the directory writer wrote with the optional tags (their bytes, names and labels)
/// and without, sections with and without payloads, the CRC's start given by `info`: equal
/// to the byte-by-byte files of the fuzz seeds; then their mutants (the CRC recomputed from
/// where `info` says, unless its own bytes were hit): the interpreter and the generated code
/// agree on every one.
#[test]
fn diropt_writer_built_files_and_their_mutants_agree() {
    use diropt::{DirOptSpec, HFlags, Kind, SFlags, SectionSpec, TagBlob, TagSpec};
    use npuschema_tests::construct_blobs::{diropt_file, diropt_reseal};
    assert_eq!(interp(DIROPT).sites(), &diropt::ERROR_SITES[..]);
    let sections = [
        SectionSpec {
            kind: Kind::Code,
            flags: SFlags::HAS_DATA.union(SFlags::KEEP),
            entsize: 0,
            data: Some(b"abcde"),
        },
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
    let none = DirOptSpec {
        flags: HFlags::HAS_TAGS,
        info_crc_from: 80,
        tags: None,
        title: "",
        sections: &sections[1..],
        ..all
    };
    let empty = DirOptSpec {
        flags: HFlags::empty(),
        tags: Some(&[]),
        sections: &[],
        ..all
    };
    let files = [
        all.to_vec().unwrap(),
        none.to_vec().unwrap(),
        empty.to_vec().unwrap(),
    ];
    // The byte-by-byte files of the fuzz seeds are the writer's, byte for byte.
    let secs: [(u16, u16, u32, Option<&[u8]>); 3] = [
        (1, 3, 0, Some(b"abcde")),
        (2, 1, 0, None),
        (2, 1, 2, Some(b"xy")),
    ];
    let tag_list: [(u32, &[u8], &[u8], &[u8]); 2] =
        [(7, b"first", b"L1", b"BLOB!"), (8, b"", b"", b"")];
    assert_eq!(
        files[0],
        diropt_file((2, 9, 40, 0x1234), b"diropt", &secs, Some(&tag_list))
    );
    assert_eq!(
        files[1],
        diropt_file((1, 9, 80, 0x1234), b"", &secs[1..], None)
    );
    assert_eq!(
        files[2],
        diropt_file((0, 9, 40, 0x1234), b"diropt", &[], Some(&[]))
    );
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let reseal = |m: &mut [u8]| diropt_reseal(m);
    for good in &files {
        assert_eq!(diropt_agree(good), "ok");
        for (k, n) in sweep(good, &diropt_agree, &reseal, 36..40, 5_000, 0xD0F7) {
            *verdicts.entry(k).or_default() += n;
        }
    }
    eprintln!("diropt verdicts: {verdicts:?}");
    assert_reached(
        "diropt",
        &verdicts,
        &[
            "ok",
            "truncated-header",
            "bad-magic",
            "bad-flags",
            "info-out-of-bounds",
            "bad-crc-start",
            "sections-out-of-bounds",
            "bad-kind",
            "bad-section-flags",
            "data-out-of-bounds",
            "section-entry-size",
            "tags-out-of-bounds",
            "names-out-of-bounds",
            "bad-title",
            "blob-out-of-bounds",
            "bad-name",
            "name-not-utf8",
            "title-not-utf8",
            "bad-label",
            "bad-crc",
        ],
    );
}

// ----- a directory writer's linear forms of one field (dirlin.yaml) --------------------------

fn dirlin_agree(b: &[u8]) -> &'static str {
    let g = dirlin::DirLin::validate(b);
    let gb = dirlin::DirLin::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRLIN, b, g, gb, |g, v| {
        npuschema_tests::compare::dirlin(b, g, v)
    })
}

/// Files the generated directory writer built with a located record's place, the directory's
/// place and count, each payload's offset and length, a file-level range's offset and length,
/// another table's place and count, its records' offsets and lengths and a string's offset
/// all solved for a field through a linear form (the same bytes as laid out by hand), and
/// their mutants: the generated validator and the interpreter agree on each.
#[test]
fn dirlin_writer_built_files_and_their_mutants_agree() {
    use dirlin::{DirLinSpec, Kind, MarkData, MarkSpec, SectionSpec};
    use npuschema_tests::construct_blobs::{DirLinSection, dirlin_file};
    assert_eq!(interp(DIRLIN).sites(), &dirlin::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    type Case<'a> = (
        &'a [DirLinSection<'a>],
        &'a [u8],
        &'a [(u32, &'a [u8])],
        &'a [u8],
    );
    let cases: [Case<'_>; 3] = [
        (
            &[(1, 0, b"CODE"), (8, 0, b""), (2, 2, b"data!!"), (2, 0, b"")],
            b"some notes",
            &[(7, b"mark"), (8, b"")],
            b"dirlin",
        ),
        (&[], b"", &[], b""),
        (&[(2, 4, b"12345678")], b"n", &[(1, b"abc")], b"x"),
    ];
    for (sections, notes, marks, name) in cases {
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
        let good = DirLinSpec {
            notes,
            marks: &ms,
            name,
            sections: &secs,
        }
        .to_vec()
        .unwrap();
        assert_eq!(good, dirlin_file(sections, notes, marks, name));
        assert_eq!(dirlin_agree(&good), "ok");
        for (k, c) in sweep(&good, &dirlin_agree, &|_| {}, 0..0, 3_000, 0xD11E) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("dirlin verdicts: {verdicts:?}");
    assert_reached(
        "dirlin",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "sub-out-of-bounds",
            "sections-out-of-bounds",
            "bad-kind",
            "section-out-of-bounds",
            "bad-entry-size",
            "marks-out-of-bounds",
            "data-out-of-bounds",
            "notes-out-of-bounds",
            "bad-name",
            "ok",
        ],
    );
}

// ----- the plain writer's linear forms of a located record's fields (loclin.yaml) -----------

fn loclin_agree(b: &[u8]) -> &'static str {
    let g = loclin::LocLin::validate(b);
    let gb = loclin::LocLin::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(LOCLIN, b, g, gb, |g, v| {
        npuschema_tests::compare::loclin(b, g, v)
    })
}

/// Files the generated plain writer built with a table's place and count and a range's
/// offset and length solved into a located record's fields (the same bytes as laid out by
/// hand), and their mutants: the generated validator and the interpreter agree on each.
#[test]
fn loclin_writer_built_files_and_their_mutants_agree() {
    use loclin::{ItemSpec, LocLinWriter};
    use npuschema_tests::construct_blobs::loclin_file;
    assert_eq!(interp(LOCLIN).sites(), &loclin::ERROR_SITES[..]);
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (items, blob) in [
        (&[(1u16, 10u32), (2, 20)][..], &b"blob"[..]),
        (&[][..], &b""[..]),
        (&[(3, 30), (4, 40), (5, 50)][..], &b"a longer blob."[..]),
    ] {
        let specs: Vec<ItemSpec> = items
            .iter()
            .map(|&(id, value)| ItemSpec { id, value })
            .collect();
        let good = LocLinWriter::new()
            .info_stamp(7)
            .items(&specs)
            .blob(blob)
            .to_vec()
            .unwrap();
        assert_eq!(good, loclin_file(items, blob, 7));
        assert_eq!(loclin_agree(&good), "ok");
        for (k, c) in sweep(&good, &loclin_agree, &|_| {}, 0..0, 3_000, 0x10C1) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("loclin verdicts: {verdicts:?}");
    assert_reached(
        "loclin",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "info-out-of-bounds",
            "items-out-of-bounds",
            "blob-out-of-bounds",
            "ok",
        ],
    );
}

// ----- a directory writer's version-gated record placing optional parts (dirgatew.yaml) ----

fn dirgatew_agree(b: &[u8]) -> &'static str {
    let g = dirgatew::DirGateW::validate(b);
    let gb = dirgatew::DirGateW::validate_as::<Brief>(b)
        .map(|_| ())
        .map_err(|e| e.id());
    agree_with(DIRGATEW, b, g, gb, |g, v| {
        npuschema_tests::compare::dirgatew(b, g, v)
    })
}

/// Files the generated directory writer built in every layout of `meta`, with and without
/// `extra` (the same bytes as laid out by hand), and their mutants: the generated validator
/// and the interpreter agree on each.
#[test]
fn dirgatew_writer_built_files_and_their_mutants_agree() {
    use npuschema_tests::construct_blobs::{dirgatew_file, dirgatew_reseal};
    assert_eq!(interp(DIRGATEW).sites(), &dirgatew::ERROR_SITES[..]);
    let sections = [
        dirgatew::SectionSpec {
            kind: 3,
            entsize: 4,
            payload: b"abcdefgh",
        },
        dirgatew::SectionSpec {
            kind: 1,
            entsize: 0,
            payload: b"",
        },
    ];
    let by_hand: Vec<(u32, u32, &[u8])> = sections
        .iter()
        .map(|s| (s.kind, s.entsize, s.payload))
        .collect();
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for (version, extra) in [
        (0u16, None),
        (1, None),
        (2, Some(&b"extra"[..])),
        (3, Some(b"")),
        (3, None),
    ] {
        let good = dirgatew::DirGateWSpec {
            version,
            flags: dirgatew::HeaderFlags::SIGNED,
            meta_legacy: 5,
            extra,
            title: b"t",
            sections: &sections,
        }
        .to_vec()
        .unwrap();
        assert_eq!(good, dirgatew_file(version, 2, 5, &by_hand, extra, b"t"));
        assert_eq!(dirgatew_agree(&good), "ok");
        for (k, c) in sweep(
            &good,
            &dirgatew_agree,
            &dirgatew_reseal,
            16..20,
            1_500,
            0xD6A7,
        ) {
            *verdicts.entry(k).or_default() += c;
        }
    }
    eprintln!("dirgatew verdicts: {verdicts:?}");
    assert_reached(
        "dirgatew",
        &verdicts,
        &[
            "truncated-header",
            "bad-magic",
            "meta-out-of-bounds",
            "sections-out-of-bounds",
            "extra-out-of-bounds",
            "bad-title",
            "bad-crc",
            "section-out-of-bounds",
            "bad-entry-size",
            "ok",
        ],
    );
}
