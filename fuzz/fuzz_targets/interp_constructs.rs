//! The schema interpreter against the generated code of the test schemas that carry the
//! schema-language constructs (record streams and `first()`, strings and string tables, `t[expr].field`,
//! open big-endian directories, floats, byte order, ordering constraints, `when`, `let`,
//! fill bytes and record positions (`padded`), object tables, structs inside structs and
//! arrays of structs, string tables the writer builds (`namedtab`), a directory with ranges
//! around it (`dirnotes`), signed and 8/16/64-bit fields with `&& || !` (`blobpack`), a
//! version bump (`npu1_v2`), a directory writer's file with another table, a string table and
//! a record stream (`dirmix`), a CRC-32 in every record of a stream (`sumstream`), two section
//! directories in one file (`twodirs`), a per-record range flagged inside a struct-typed field
//! (`nestflag`), optional parts the writer checks (`whenw`), the plain
//! writer's located records (`plainloc`), a record laid out by a computed gate next to a
//! directory (`dirgate`), a stride field and a fixed count (`strided`), a directory's
//! records' labels outside a string table (`dirlabel`), a table placed by a located record's
//! field (`loctable`), a second per-record range of a directory table (`dirrel`), a directory
//! writer's optional parts (`dirwhen`), places, counts and lengths stored as linear forms
//! of one field (`linforms`), a trailer whose length is a header field (`sigtrail`), a table
//! at the end of the file (`tailtab`, `tailfix`), a version-gated record locating optional parts,
//! a stream's range and a checksum's span (`gatedw`), a directory writer's parts placed
//! without a field (`dirtail`, `dirfoot`, `dirindex`), an optional table with bytes and
//! strings next to a directory and a CRC whose start a located record gives (`diropt`), linear
//! forms solved by a directory writer (`dirlin`) and into a located record (`loclin`), a
//! directory writer's version-gated record placing optional parts (`dirgatew`)), on
//! arbitrary input: the same verdict, the same `Error`, the same `Brief` number, and on
//! success the same view, compared field by field by the per-schema
//! comparisons of `npuschema_tests::compare` (the ones tests/tests/interp_differential.rs
//! runs: header words, record counts, each record's words and place, enum names, floats,
//! byte ranges, strings and checksums). Never a panic in either engine.
//!
//! Input: byte 0 picks the schema (`SCHEMAS[(byte 0 & 0x7F) % SCHEMAS.len()]`; bit 7:
//! recompute the checksums of bigend, ordered, opendir, png, dirnotes, blobpack, npu1_v2 and
//! dirmix, plainloc, dirrel, loctable, dirwhen, gatedw, diropt and dirgatew, each record's of sumstream, and twodirs' after the fuzzer's edits, so
//! mutations reach the checks behind them), the rest is the file (fuzz/seeds writes each
//! seed with its schema's byte in front).
//!
//! With `NPUSCHEMA_FUZZ_VERDICTS` set, each input's schema and verdict (`ok` or the error
//! code) is printed to stderr: `cargo +nightly fuzz run interp_constructs DIR -- -runs=0`
//! then shows which seeds are valid files.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_codegen::interp::View;
use npuschema_core::Brief;
use npuschema_tests::compare;

macro_rules! schemas {
    ($($m:ident: $file:literal;)*) => {
        // The generated code: expanded once, in npuschema_tests::compare, whose per-schema
        // comparisons tests/tests/interp_differential.rs runs too.
        use npuschema_tests::compare::schemas::{$($m),*};
        /// The schemas in input-byte order (fuzz/seeds keeps the same order).
        const SCHEMAS: &[&str] = &[$($file),*];
        fn interps() -> &'static [npuschema_codegen::interp::Interp<'static>] {
            static I: std::sync::OnceLock<Vec<npuschema_codegen::interp::Interp<'static>>> =
                std::sync::OnceLock::new();
            I.get_or_init(|| {
                vec![$(npuschema_fuzz::interp_of(include_str!(concat!("../", $file)), $file)),*]
            })
        }
    };
}

schemas! {
    tlv: "../tests/schemas/tlv.yaml";
    scoped: "../tests/schemas/scoped.yaml";
    png: "../formats/png.yaml";
    strtab: "../tests/schemas/strtab.yaml";
    titled: "../tests/schemas/titled.yaml";
    elf: "../formats/elf.yaml";
    opendir: "../tests/schemas/opendir.yaml";
    objtab: "../tests/schemas/objtab.yaml";
    conditional: "../tests/schemas/conditional.yaml";
    floats: "../tests/schemas/floats.yaml";
    bigend: "../tests/schemas/bigend.yaml";
    ordered: "../tests/schemas/ordered.yaml";
    padded: "../tests/schemas/padded.yaml";
    wav: "../formats/wav.yaml";
    nested: "../tests/schemas/nested.yaml";
    namedtab: "../tests/schemas/namedtab.yaml";
    dirnotes: "../tests/schemas/dirnotes.yaml";
    blobpack: "../tests/schemas/blobpack.yaml";
    npu1_v2: "../tests/schemas/npu1_v2.yaml";
    dirmix: "../tests/schemas/dirmix.yaml";
    sumstream: "../tests/schemas/sumstream.yaml";
    twodirs: "../tests/schemas/twodirs.yaml";
    nestflag: "../tests/schemas/nestflag.yaml";
    whenw: "../tests/schemas/whenw.yaml";
    plainloc: "../tests/schemas/plainloc.yaml";
    dirgate: "../tests/schemas/dirgate.yaml";
    strided: "../tests/schemas/strided.yaml";
    dirlabel: "../tests/schemas/dirlabel.yaml";
    loctable: "../tests/schemas/loctable.yaml";
    dirrel: "../tests/schemas/dirrel.yaml";
    dirwhen: "../tests/schemas/dirwhen.yaml";
    linforms: "../tests/schemas/linforms.yaml";
    sigtrail: "../tests/schemas/sigtrail.yaml";
    tailtab: "../tests/schemas/tailtab.yaml";
    tailfix: "../tests/schemas/tailfix.yaml";
    gatedw: "../tests/schemas/gatedw.yaml";
    dirtail: "../tests/schemas/dirtail.yaml";
    dirfoot: "../tests/schemas/dirfoot.yaml";
    dirindex: "../tests/schemas/dirindex.yaml";
    diropt: "../tests/schemas/diropt.yaml";
    dirlin: "../tests/schemas/dirlin.yaml";
    loclin: "../tests/schemas/loclin.yaml";
    dirgatew: "../tests/schemas/dirgatew.yaml";
    zip: "../formats/zip.yaml";
    pcap: "../formats/pcap.yaml";
    tiff: "../formats/tiff.yaml";
    mo: "../formats/mo.yaml";
    opentype: "../formats/opentype.yaml";
}

use npuschema_tests::{construct_blobs, opendir_blobs};

fn set_be(b: &mut [u8], at: usize, v: u32) {
    if let Some(w) = b.get_mut(at..at + 4) {
        w.copy_from_slice(&v.to_be_bytes());
    }
}

/// Recompute schema `k`'s checksums in `b` as far as its bytes allow.
fn reseal(k: usize, b: &mut [u8]) {
    match SCHEMAS[k] {
        "../tests/schemas/bigend.yaml" if b.len() >= 24 => {
            let crc = npuschema_core::crc32(0, &b[24..]);
            set_be(b, 12, crc);
        }
        "../tests/schemas/ordered.yaml" if b.len() >= 20 => {
            let sum = npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, &b[20..]);
            set_be(b, 16, sum);
        }
        "../tests/schemas/opendir.yaml" => opendir_blobs::seal(b),
        // Each record's CRC-32 over its body (records of an 8-byte header, 4-aligned).
        "../tests/schemas/sumstream.yaml" => {
            let mut at = 8usize;
            while let Some(h) = b.get(at..at + 8) {
                let n = usize::from(u16::from_le_bytes([h[2], h[3]]));
                let Some(body) = b.get(at + 8..at + 8 + n) else { break };
                let crc = npuschema_core::crc32(0, body);
                b[at + 4..at + 8].copy_from_slice(&crc.to_le_bytes());
                at = (at + 8 + n + 3) & !3;
            }
        }
        "../tests/schemas/dirmix.yaml" if b.len() >= 40 => {
            let crc = npuschema_core::crc32(0, &b[40..]);
            b[36..40].copy_from_slice(&crc.to_le_bytes());
        }
        "../tests/schemas/dirnotes.yaml" => construct_blobs::dirnotes_reseal(b),
        "../tests/schemas/twodirs.yaml" => construct_blobs::twodirs_reseal(b),
        "../tests/schemas/plainloc.yaml" => construct_blobs::plainloc_reseal(b),
        "../tests/schemas/dirrel.yaml" => construct_blobs::dirrel_reseal(b),
        "../tests/schemas/loctable.yaml" => construct_blobs::loctable_reseal(b),
        "../tests/schemas/gatedw.yaml" => construct_blobs::gatedw_reseal(b),
        "../tests/schemas/dirgatew.yaml" => construct_blobs::dirgatew_reseal(b),
        "../tests/schemas/blobpack.yaml" => construct_blobs::blobpack_reseal(b),
        "../tests/schemas/npu1_v2.yaml" => construct_blobs::npu1_v2_reseal(b),
        "../tests/schemas/dirwhen.yaml" => construct_blobs::dirwhen_reseal(b),
        "../tests/schemas/diropt.yaml" => construct_blobs::diropt_reseal(b),
        // Each chunk's CRC-32 over its type and data, stored after the data.
        "../formats/png.yaml" => {
            let mut at = 8usize;
            while let Some(l) = b.get(at..at + 4) {
                let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
                let Some(end) = len.checked_add(at + 8).filter(|&e| e + 4 <= b.len()) else {
                    break;
                };
                let crc = npuschema_core::crc32(0, &b[at + 4..end]);
                set_be(b, end, crc);
                at = end + 4;
            }
        }
        // Each table's checksum, then `head`'s checkSumAdjustment (the whole font's sum).
        "../formats/opentype.yaml" => construct_blobs::opentype_reseal(b),
        _ => {}
    }
}

fn verbose() -> bool {
    static V: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *V.get_or_init(|| std::env::var_os("NPUSCHEMA_FUZZ_VERDICTS").is_some())
}

/// Both engines on `b`: Brief, then the full verdict; on success `fields` compares views.
fn agree<V>(
    k: usize,
    b: &[u8],
    g: Result<V, npuschema_core::Error>,
    gb: Result<(), u16>,
    fields: impl FnOnce(&V, &View),
) {
    let it = &interps()[k];
    let name = SCHEMAS[k];
    assert_eq!(
        gb,
        it.check::<Brief>(b).map_err(|e| e.id()),
        "{name}: Brief"
    );
    if verbose() {
        eprintln!(
            "verdict {name}: {:?}",
            it.validate(b).map(|_| "ok").map_err(|e| e.code)
        );
    }
    match (g, it.validate(b)) {
        (Err(ge), Err(ie)) => assert_eq!(ge, ie, "{name}: generated `{ge}`, interpreter `{ie}`"),
        (Ok(g), Ok(v)) => fields(&g, &v),
        (g, i) => panic!(
            "{name}: verdicts differ: {:?} / {:?}",
            g.map(|_| ()),
            i.map(|_| ())
        ),
    }
}

macro_rules! run {
    ($k:expr, $b:expr, $m:ident::$ty:ident, |$g:ident, $v:ident| $body:expr) => {{
        let g = $m::$ty::validate($b);
        let gb = $m::$ty::validate_as::<Brief>($b)
            .map(|_| ())
            .map_err(|e| e.id());
        agree($k, $b, g, gb, |$g, $v| $body)
    }};
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, b)) = data.split_first() else {
        return;
    };
    let k = usize::from(pick & 0x7F) % SCHEMAS.len();
    let mut owned;
    let b = if pick & 0x80 != 0 {
        owned = b.to_vec();
        reseal(k, &mut owned);
        &owned[..]
    } else {
        b
    };
    match k {
        0 => run!(k, b, tlv::Tlv, |g, v| compare::tlv(b, g, v)),
        1 => run!(k, b, scoped::Scoped, |g, v| compare::scoped(b, g, v)),
        2 => run!(k, b, png::Png, |g, v| compare::png(b, g, v)),
        3 => run!(k, b, strtab::StrTab, |g, v| compare::strtab(b, g, v)),
        4 => run!(k, b, titled::Titled, |g, v| compare::titled(b, g, v)),
        5 => run!(k, b, elf::Elf, |g, v| compare::elf(b, g, v)),
        6 => run!(k, b, opendir::OpenDir, |g, v| compare::opendir(b, g, v)),
        7 => run!(k, b, objtab::ObjTab, |g, v| compare::objtab(b, g, v)),
        8 => run!(k, b, conditional::Conditional, |g, v| compare::conditional(
            b, g, v
        )),
        9 => run!(k, b, floats::Floats, |g, v| compare::floats(b, g, v)),
        10 => run!(k, b, bigend::BigEnd, |g, v| compare::bigend(b, g, v)),
        11 => run!(k, b, ordered::Ordered, |g, v| compare::ordered(b, g, v)),
        12 => run!(k, b, padded::Padded, |g, v| compare::padded(b, g, v)),
        13 => run!(k, b, wav::Wav, |g, v| compare::wav(b, g, v)),
        14 => run!(k, b, nested::Nested, |g, v| compare::nested(b, g, v)),
        15 => run!(k, b, namedtab::NamedTab, |g, v| compare::namedtab(b, g, v)),
        16 => run!(k, b, dirnotes::DirNotes, |g, v| compare::dirnotes(b, g, v)),
        17 => run!(k, b, blobpack::Blobpack, |g, v| compare::blobpack(b, g, v)),
        18 => run!(k, b, npu1_v2::Npu1, |g, v| compare::npu1_v2(b, g, v)),
        19 => run!(k, b, dirmix::DirMix, |g, v| compare::dirmix(b, g, v)),
        20 => run!(k, b, sumstream::SumStream, |g, v| compare::sumstream(b, g, v)),
        21 => run!(k, b, twodirs::TwoDirs, |g, v| compare::twodirs(b, g, v)),
        22 => run!(k, b, nestflag::NestFlag, |g, v| compare::nestflag(b, g, v)),
        23 => run!(k, b, whenw::WhenW, |g, v| compare::whenw(b, g, v)),
        24 => run!(k, b, plainloc::PlainLoc, |g, v| compare::plainloc(b, g, v)),
        25 => run!(k, b, dirgate::DirGate, |g, v| compare::dirgate(b, g, v)),
        26 => run!(k, b, strided::Strided, |g, v| compare::strided(b, g, v)),
        27 => run!(k, b, dirlabel::DirLabel, |g, v| compare::dirlabel(b, g, v)),
        28 => run!(k, b, loctable::LocTable, |g, v| compare::loctable(b, g, v)),
        29 => run!(k, b, dirrel::DirRel, |g, v| compare::dirrel(b, g, v)),
        30 => run!(k, b, dirwhen::DirWhen, |g, v| compare::dirwhen(b, g, v)),
        31 => run!(k, b, linforms::LinForms, |g, v| compare::linforms(b, g, v)),
        32 => run!(k, b, sigtrail::SigTrail, |g, v| compare::sigtrail(b, g, v)),
        33 => run!(k, b, tailtab::TailTab, |g, v| compare::tailtab(b, g, v)),
        34 => run!(k, b, tailfix::TailFix, |g, v| compare::tailfix(b, g, v)),
        35 => run!(k, b, gatedw::GatedW, |g, v| compare::gatedw(b, g, v)),
        36 => run!(k, b, dirtail::DirTail, |g, v| compare::dirtail(b, g, v)),
        37 => run!(k, b, dirfoot::DirFoot, |g, v| compare::dirfoot(b, g, v)),
        38 => run!(k, b, dirindex::DirIndex, |g, v| compare::dirindex(b, g, v)),
        39 => run!(k, b, diropt::DirOpt, |g, v| compare::diropt(b, g, v)),
        40 => run!(k, b, dirlin::DirLin, |g, v| compare::dirlin(b, g, v)),
        41 => run!(k, b, loclin::LocLin, |g, v| compare::loclin(b, g, v)),
        42 => run!(k, b, dirgatew::DirGateW, |g, v| compare::dirgatew(b, g, v)),
        43 => run!(k, b, zip::Zip, |g, v| compare::zip(b, g, v)),
        44 => run!(k, b, pcap::Pcap, |g, v| compare::pcap(b, g, v)),
        45 => run!(k, b, tiff::Tiff, |g, v| compare::tiff(b, g, v)),
        46 => run!(k, b, mo::Mo, |g, v| compare::mo(b, g, v)),
        _ => run!(k, b, opentype::OpenType, |g, v| compare::opentype(b, g, v)),
    }
});
