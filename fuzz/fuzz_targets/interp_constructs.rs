//! The schema interpreter against the generated code of the test schemas that carry the
//! schema-language constructs (record streams and `first()`, strings and string tables, `t[expr].field`,
//! open big-endian directories, floats, byte order, ordering constraints, `when`, `let`,
//! fill bytes and record positions (`padded`), object tables, structs inside structs and
//! arrays of structs), on arbitrary input: the same verdict, the same `Error`, the same `Brief`
//! number, and on success the same view as far as it is cheap to compare: header words,
//! record counts, each record's words and place, byte ranges, strings and checksums (a
//! subset of tests/tests/interp_differential.rs's comparisons). Never a panic in either
//! engine.
//!
//! Input: byte 0 picks the schema (`SCHEMAS[(byte 0 & 0x7F) % SCHEMAS.len()]`; bit 7:
//! recompute the checksums of bigend, ordered, opendir and png after the fuzzer's edits, so
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
use npuschema_tests::compare::{
    checksum, range, raw, record, record_count as records, span, string,
};
use npuschema_tests::same_fields;

macro_rules! schemas {
    ($($m:ident: $file:literal, $ty:ident;)*) => {
        $(
            #[allow(dead_code, missing_docs, unused_parens, clippy::all)]
            mod $m {
                npuschema_macro::include_schema!($file);
            }
        )*
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
    tlv: "../tests/schemas/tlv.yaml", Tlv;
    scoped: "../tests/schemas/scoped.yaml", Scoped;
    png: "../tests/schemas/png.yaml", Png;
    strtab: "../tests/schemas/strtab.yaml", StrTab;
    titled: "../tests/schemas/titled.yaml", Titled;
    elf64: "../tests/schemas/elf64.yaml", Elf64;
    opendir: "../tests/schemas/opendir.yaml", OpenDir;
    objtab: "../tests/schemas/objtab.yaml", ObjTab;
    conditional: "../tests/schemas/conditional.yaml", Conditional;
    floats: "../tests/schemas/floats.yaml", Floats;
    bigend: "../tests/schemas/bigend.yaml", BigEnd;
    ordered: "../tests/schemas/ordered.yaml", Ordered;
    padded: "../tests/schemas/padded.yaml", Padded;
    wav: "../tests/schemas/wav.yaml", Wav;
    nested: "../tests/schemas/nested.yaml", Nested;
}

use npuschema_tests::opendir_blobs;

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
        // Each chunk's CRC-32 over its type and data, stored after the data.
        "../tests/schemas/png.yaml" => {
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
        _ => {}
    }
}

fn verbose() -> bool {
    static V: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *V.get_or_init(|| std::env::var_os("NPUSCHEMA_FUZZ_VERDICTS").is_some())
}

/// A table or collection: the count, then each record's words and its offset.
macro_rules! table {
    ($v:expr, $b:expr, $name:expr, $recs:expr, [$($f:ident),*]) => {
        assert_eq!($recs.count(), records($v, $name), "{}", $name);
        for (k, r) in $recs.enumerate() {
            let p = format!("{}[{k}]", $name);
            same_fields!($v, &p, r, [$($f),*]);
            assert_eq!(record($v, &p).offset, span($b, r.as_bytes()).0, "{p}");
        }
    };
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
    ($k:expr, $b:expr, $m:ident::$ty:ident, |$g:ident, $v:ident| $body:block) => {{
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
        0 => run!(k, b, tlv::Tlv, |g, v| {
            same_fields!(v, "header", g.header(), [magic, body_bytes, record_count]);
            assert_eq!(g.records().count(), records(v, "records"));
            for r in g.records() {
                let p = format!("records[{}]", r.index());
                assert_eq!(record(v, &p).offset, r.offset());
                same_fields!(v, &p, r.header(), [length]);
                assert_eq!(raw(v, &p, "kind"), u64::from(r.header().kind_raw()));
                assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
            }
            table!(v, b, "notes", g.notes(), [lang, text_len]);
            table!(v, b, "points", g.points(), []);
        }),
        1 => run!(k, b, scoped::Scoped, |g, v| {
            let h = g.header();
            same_fields!(
                v,
                "header",
                h,
                [magic, version, entry_count, extras_offset, extras_count]
            );
            table!(v, b, "entries", g.entries(), [offset, size]);
            table!(v, b, "extras", g.extras(), [tag, level]);
        }),
        2 => run!(k, b, png::Png, |g, v| {
            assert_eq!(g.chunks().count(), records(v, "chunks"));
            for c in g.chunks() {
                let p = format!("chunks[{}]", c.index());
                assert_eq!(record(v, &p).offset, c.offset());
                same_fields!(v, &p, c.header(), [length, chunk_type]);
            }
            table!(
                v,
                b,
                "ihdrs",
                g.ihdrs(),
                [width, height, bit_depth, color_type]
            );
        }),
        3 => run!(k, b, strtab::StrTab, |g, v| {
            let h = g.header();
            same_fields!(
                v,
                "header",
                h,
                [
                    magic,
                    section_count,
                    names_index,
                    section_offset,
                    title_offset
                ]
            );
            assert_eq!(range(v, "names"), Some(span(b, g.names())));
            let t = string(v, "title");
            assert_eq!(
                (t.bytes.as_slice(), t.offset),
                (g.title(), span(b, g.title()).0)
            );
            assert_eq!(t.text.as_deref(), g.title_str().ok());
            assert_eq!(v.strings.len(), 1 + g.sections().len());
            assert_eq!(g.sections().len(), records(v, "sections"));
            for s in g.sections() {
                let p = format!("sections[{}]", s.index());
                let n = string(v, &format!("{p}.name"));
                assert_eq!(
                    (n.bytes.as_slice(), n.offset),
                    (g.name(&s), span(b, g.name(&s)).0)
                );
                assert_eq!(n.text.as_deref(), g.name_str(&s).ok());
                same_fields!(v, &p, s, [name_offset, link, offset, size]);
                assert_eq!(raw(v, &p, "kind"), u64::from(s.kind_raw()));
                assert_eq!(range(v, &format!("{p}.data")), s.data().map(|d| span(b, d)));
            }
        }),
        4 => run!(k, b, titled::Titled, |g, v| {
            same_fields!(
                v,
                "header",
                g.header(),
                [magic, count, title_offset, comment_offset]
            );
            let got: Vec<(&str, &[u8], u64)> = v
                .strings
                .iter()
                .map(|s| (s.path.as_str(), s.bytes.as_slice(), s.offset))
                .collect();
            let want = [
                ("title", g.title(), span(b, g.title()).0),
                ("comment", g.comment(), span(b, g.comment()).0),
            ];
            assert_eq!(got, want);
        }),
        5 => run!(k, b, elf64::Elf64, |g, v| {
            assert_eq!(g.segments().len(), records(v, "segments"));
            assert_eq!(g.sections().len(), records(v, "sections"));
            assert_eq!(range(v, "shstrtab"), Some(span(b, g.shstrtab())));
            for s in g.sections() {
                let p = format!("sections[{}]", s.index());
                same_fields!(v, &p, s, [sh_name, sh_offset, sh_size]);
                assert_eq!(raw(v, &p, "sh_type"), u64::from(s.sh_type_raw()));
                assert_eq!(string(v, &format!("{p}.name")).bytes.as_slice(), g.name(&s));
                assert_eq!(range(v, &format!("{p}.data")), s.data().map(|d| span(b, d)));
            }
        }),
        6 => run!(k, b, opendir::OpenDir, |g, v| {
            let h = g.header();
            same_fields!(
                v,
                "header",
                h,
                [magic, version, section_count, section_offset, crc_sum]
            );
            assert_eq!(g.sections().len(), records(v, "sections"));
            for s in g.sections() {
                let p = format!("sections[{}]", s.index());
                same_fields!(v, &p, s, [offset, size, entsize, info]);
                assert_eq!(raw(v, &p, "sh_type"), u64::from(s.sh_type().raw()));
                assert_eq!(
                    range(v, &format!("{p}.payload")),
                    s.payload().map(|d| span(b, d))
                );
            }
            table!(v, b, "symbols", g.symbols(), [name, value]);
            table!(v, b, "attributes", g.attributes(), [tag, value]);
            table!(v, b, "slot_table", g.slot_table(), [offset, size]);
            table!(v, b, "crcs", g.crcs(), [target, value]);
            assert_eq!(
                checksum(v, "file_crc"),
                (u64::from(h.crc_sum()), u64::from(h.crc_sum()))
            );
        }),
        7 => run!(k, b, objtab::ObjTab, |g, v| {
            let h = g.header();
            same_fields!(
                v,
                "header",
                h,
                [magic, version, section_offset, section_count]
            );
            assert_eq!(g.sections().len(), records(v, "sections"));
            for s in g.sections() {
                let p = format!("sections[{}]", s.index());
                same_fields!(v, &p, s, [name_offset, offset, size, align]);
                assert_eq!(raw(v, &p, "kind"), u64::from(s.kind_raw()));
                assert_eq!(range(v, &format!("{p}.data")), s.data().map(|d| span(b, d)));
            }
        }),
        8 => run!(k, b, conditional::Conditional, |g, v| {
            let h = g.header();
            same_fields!(
                v,
                "header",
                h,
                [magic, version, notes_offset, notes_size, count]
            );
            assert_eq!(raw(v, "header", "flags"), u64::from(h.flags().bits()));
            assert_eq!(range(v, "notes"), g.notes().map(|d| span(b, d)));
        }),
        9 => run!(k, b, floats::Floats, |g, v| {
            let h = g.header();
            same_fields!(v, "header", h, [magic, sample_count, reserved]);
            // Floats compare bitwise (the raw word is the bit pattern).
            assert_eq!(raw(v, "header", "scale"), u64::from(h.scale().to_bits()));
            assert_eq!(raw(v, "header", "bias"), h.bias().to_bits());
            assert_eq!(g.samples().len(), records(v, "samples"));
            for s in g.samples() {
                let p = format!("samples[{}]", s.index());
                assert_eq!(raw(v, &p, "value"), u64::from(s.value().to_bits()));
                assert_eq!(raw(v, &p, "weight"), s.weight().to_bits());
            }
        }),
        10 => run!(k, b, bigend::BigEnd, |g, v| {
            let h = g.header();
            same_fields!(
                v,
                "header",
                h,
                [magic, total_bytes, chunk_count, host_word, checksum]
            );
            assert_eq!(raw(v, "header", "gain"), h.gain().to_bits());
            assert_eq!(g.chunks().len(), records(v, "chunks"));
            for c in g.chunks() {
                let p = format!("chunks[{}]", c.index());
                same_fields!(v, &p, c, [offset, size, tag]);
                assert_eq!(raw(v, &p, "kind"), u64::from(c.kind_raw()));
                assert_eq!(range(v, &format!("{p}.data")), c.data().map(|d| span(b, d)));
            }
            assert_eq!(
                checksum(v, "body"),
                (u64::from(h.checksum()), u64::from(g.body_computed()))
            );
        }),
        11 => run!(k, b, ordered::Ordered, |g, v| {
            let h = g.header();
            same_fields!(
                v,
                "header",
                h,
                [magic, span_count, limit, reserve, checksum]
            );
            assert_eq!(g.spans().len(), records(v, "spans"));
            for s in g.spans() {
                let p = format!("spans[{}]", s.index());
                same_fields!(v, &p, s, [rank, offset, size]);
                assert_eq!(raw(v, &p, "kind"), u64::from(s.kind_raw()));
                assert_eq!(
                    range(v, &format!("{p}.bytes")),
                    s.bytes().map(|d| span(b, d))
                );
            }
            assert_eq!(
                checksum(v, "body"),
                (u64::from(h.checksum()), u64::from(g.body_computed()))
            );
        }),
        12 => run!(k, b, padded::Padded, |g, v| {
            same_fields!(
                v,
                "header",
                g.header(),
                [magic, reserved_bytes, body_bytes, tail_bytes]
            );
            assert_eq!(range(v, "reserved"), Some(span(b, g.reserved())));
            assert_eq!(range(v, "body"), Some(span(b, g.body())));
            assert_eq!(g.records().count(), records(v, "records"));
            for r in g.records() {
                let p = format!("records[{}]", r.index());
                assert_eq!(record(v, &p).offset, r.offset());
                same_fields!(v, &p, r.header(), [kind, length]);
                assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
            }
            table!(v, b, "blobs", g.blobs(), [used]);
        }),
        13 => run!(k, b, wav::Wav, |g, v| {
            same_fields!(v, "header", g.header(), [riff, riff_size, wave]);
            assert_eq!(g.chunks().count(), records(v, "chunks"));
            for c in g.chunks() {
                let p = format!("chunks[{}]", c.index());
                assert_eq!(record(v, &p).offset, c.offset());
                same_fields!(v, &p, c.header(), [id, size]);
                assert_eq!(range(v, &format!("{p}.body")), Some(span(b, c.body())));
            }
            table!(
                v,
                b,
                "fmts",
                g.fmts(),
                [format_tag, channels, sample_rate, byte_rate, block_align, bits_per_sample]
            );
            assert_eq!(g.datas().count(), records(v, "datas"));
        }),
        _ => run!(k, b, nested::Nested, |g, v| {
            let h = g.header();
            same_fields!(v, "header", h, [magic, entry_count, total_bytes]);
            // The fields inside struct-typed fields, by path.
            assert_eq!(
                raw(v, "header", "version.major"),
                u64::from(h.version().major())
            );
            assert_eq!(
                raw(v, "header", "version.minor"),
                u64::from(h.version().minor())
            );
            for (k, s) in h.slices().enumerate() {
                assert_eq!(
                    raw(v, "header", &format!("slices[{k}].offset")),
                    u64::from(s.offset())
                );
                assert_eq!(
                    raw(v, "header", &format!("slices[{k}].length")),
                    u64::from(s.length())
                );
            }
            assert_eq!(raw(v, "header", "stamp.time"), h.stamp().time());
            assert_eq!(
                raw(v, "header", "stamp.kind"),
                u64::from(h.stamp().kind_raw())
            );
            assert_eq!(
                raw(v, "header", "stamp.tool.major"),
                u64::from(h.stamp().tool().major())
            );
            assert_eq!(range(v, "payload"), Some(span(b, g.payload())));
            assert_eq!(g.entries().len(), records(v, "entries"));
            for e in g.entries() {
                let p = format!("entries[{}]", e.index());
                same_fields!(v, &p, e, [id]);
                assert_eq!(raw(v, &p, "at.x"), u64::from(e.at().x() as u16));
                assert_eq!(raw(v, &p, "span.offset"), u64::from(e.span().offset()));
                assert_eq!(range(v, &format!("{p}.blob")), e.blob().map(|d| span(b, d)));
                for (k, d) in e.dims().enumerate() {
                    assert_eq!(raw(v, &p, &format!("dims[{k}].hi")), u64::from(d.hi()));
                }
            }
            assert_eq!(
                raw(v, "header", "stamp.level"),
                u64::from(h.stamp().level().bits())
            );
        }),
    }
});
