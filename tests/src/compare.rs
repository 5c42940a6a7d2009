//! The schema interpreter's view against generated views: one home for
//! tests/tests/interp_differential.rs and the `interp_constructs` fuzz target.
//!
//! - Lookups in the interpreter's dynamic view ([`record`], [`raw`], [`value`], ...), each
//!   panicking with the path when the view lacks what is asked (a test failure).
//! - [`schemas`]: the test schemas that carry the schema-language constructs, expanded by the
//!   macro once, here, so both users compare the same generated code.
//! - One comparison per schema ([`tlv`], [`opendir`], ..., [`namedtab`], [`dirnotes`], [`twodirs`], [`nestflag`],
//!   [`blobpack`], [`npu1_v2`], and the shipped [`npu1`],
//!   [`vpmn_v2`], [`vpmn_v1`]): given a file both engines
//!   accepted, the generated view and the interpreter's, assert that every value the generated
//!   view exposes equals the interpreter's (header words, record counts, each record's words
//!   and offset, enum names, floats, byte ranges, strings and checksums).

use npuschema_codegen::interp::{RecordView, Value, View};

/// The record at `path` (`regions[1]`, `header`) in any group of the view.
///
/// # Panics
/// When the view has no such record.
#[must_use]
pub fn record<'v>(v: &'v View, path: &str) -> &'v RecordView {
    v.groups
        .iter()
        .flat_map(|g| g.records.iter())
        .find(|r| r.path == path)
        .unwrap_or_else(|| panic!("the interpreter's view has no record {path}"))
}

/// A field's raw word (or a composed value) in the interpreter's view.
///
/// # Panics
/// When the record or the field is missing, or the field has no raw word.
#[must_use]
pub fn raw(v: &View, path: &str, field: &str) -> u64 {
    let r = record(v, path);
    if let Some(f) = r.fields.iter().find(|f| f.name == field) {
        return f
            .raw
            .unwrap_or_else(|| panic!("{path}.{field} has no raw word"));
    }
    match r.composed.iter().find(|(n, _)| n == field) {
        Some((_, x)) => *x,
        None => panic!("{path} has no field {field}"),
    }
}

/// A field's decoded value.
///
/// # Panics
/// When the record or the field is missing.
#[must_use]
pub fn value<'v>(v: &'v View, path: &str, field: &str) -> &'v Value {
    &record(v, path)
        .fields
        .iter()
        .find(|f| f.name == field)
        .unwrap_or_else(|| panic!("{path} has no field {field}"))
        .value
}

/// The number of records of a group (a table, collection or stream); 0 when absent.
#[must_use]
pub fn record_count(v: &View, group: &str) -> usize {
    v.group(group).map_or(0, |g| g.records.len())
}

/// `(offset, length)` of a range the interpreter found (file-level, or of a record).
#[must_use]
pub fn range(v: &View, path: &str) -> Option<(u64, u64)> {
    v.ranges
        .iter()
        .chain(
            v.groups
                .iter()
                .flat_map(|g| g.records.iter().flat_map(|r| r.ranges.iter())),
        )
        .find(|r| r.path == path)
        .map(|r| (r.offset, r.length))
}

/// Where `s`, a slice of `buf`, lies in it: `(offset, length)`.
#[must_use]
pub fn span(buf: &[u8], s: &[u8]) -> (u64, u64) {
    (
        (s.as_ptr() as usize).saturating_sub(buf.as_ptr() as usize) as u64,
        s.len() as u64,
    )
}

/// A checksum's `(stored, computed)`.
///
/// # Panics
/// When the view has no such checksum.
#[must_use]
pub fn checksum(v: &View, path: &str) -> (u64, u64) {
    let k = v
        .checksums
        .iter()
        .find(|k| k.path == path)
        .unwrap_or_else(|| panic!("no checksum {path}"));
    (k.stored, k.computed)
}

/// A string of the view (`title`, `sections[1].name`).
///
/// # Panics
/// When the view has no such string.
#[must_use]
pub fn string<'v>(v: &'v View, path: &str) -> &'v npuschema_codegen::interp::StringView {
    v.strings
        .iter()
        .find(|x| x.path == path)
        .unwrap_or_else(|| panic!("no string {path}"))
}

/// Each named field of a generated record view equals the interpreter's raw word:
/// `same_fields!(view, "regions[0]", region, [offset, size])`.
#[macro_export]
macro_rules! same_fields {
    ($view:expr, $path:expr, $rec:expr, [$($f:ident),* $(,)?]) => {
        $(assert_eq!(
            $crate::compare::raw($view, $path, stringify!($f)),
            u64::from($rec.$f()),
            "{}.{}",
            $path,
            stringify!($f)
        );)*
    };
}

/// An enum field's name in the interpreter's view (`None`: a value the enum does not name).
///
/// # Panics
/// When the record or the field is missing, or the field is not an enum.
#[must_use]
pub fn enum_name(v: &View, path: &str, field: &str) -> Option<String> {
    match value(v, path, field) {
        Value::Enum(_, n) => n.clone(),
        other => panic!("{path}.{field} is not an enum: {other:?}"),
    }
}

/// One part of a bit-field word in the interpreter's view.
///
/// # Panics
/// When the field is missing or not a bit-field word, or has no such part.
#[must_use]
pub fn bits(v: &View, path: &str, field: &str, part: &str) -> u64 {
    match value(v, path, field) {
        Value::Bits(parts) => {
            parts
                .iter()
                .find(|(n, _)| n == part)
                .unwrap_or_else(|| panic!("{path}.{field} has no part {part}"))
                .1
        }
        other => panic!("{path}.{field} is not a bit-field word: {other:?}"),
    }
}

/// An array field's items in the interpreter's view.
///
/// # Panics
/// When the field is missing or not an array of integers.
#[must_use]
pub fn array(v: &View, path: &str, field: &str) -> Vec<u64> {
    match value(v, path, field) {
        Value::Array(items) => items
            .iter()
            .map(|x| match x {
                Value::Uint(u) => *u,
                Value::Int(i) => *i as u64,
                other => panic!("array item {other:?}"),
            })
            .collect(),
        other => panic!("{path}.{field} is not an array: {other:?}"),
    }
}

/// A string or bytes field's bytes in the interpreter's view.
///
/// # Panics
/// When the field is missing or not bytes.
#[must_use]
pub fn text(v: &View, path: &str, field: &str) -> Vec<u8> {
    match value(v, path, field) {
        Value::Str(b, _) => b.clone(),
        Value::Bytes(b) => b.clone(),
        other => panic!("{path}.{field} is not bytes: {other:?}"),
    }
}

/// The test schemas with the schema-language constructs (those of
/// tests/tests/schema_constructs.rs), expanded by `npuschema_macro::include_schema!`.
pub mod schemas {
    macro_rules! expand {
        ($($m:ident: $file:literal;)*) => {
            $(
                #[doc = concat!("Generated from `tests/", $file, "`.")]
                #[allow(dead_code, missing_docs, unused_parens, clippy::all)]
                pub mod $m {
                    npuschema_macro::include_schema!($file);
                }
            )*
        };
    }
    expand! {
        tlv: "schemas/tlv.yaml";
        scoped: "schemas/scoped.yaml";
        png: "../formats/png.yaml";
        strtab: "schemas/strtab.yaml";
        titled: "schemas/titled.yaml";
        elf: "../formats/elf.yaml";
        opendir: "schemas/opendir.yaml";
        objtab: "schemas/objtab.yaml";
        conditional: "schemas/conditional.yaml";
        floats: "schemas/floats.yaml";
        bigend: "schemas/bigend.yaml";
        ordered: "schemas/ordered.yaml";
        padded: "schemas/padded.yaml";
        wav: "../formats/wav.yaml";
        nested: "schemas/nested.yaml";
        namedtab: "schemas/namedtab.yaml";
        dirnotes: "schemas/dirnotes.yaml";
        blobpack: "schemas/blobpack.yaml";
        npu1_v2: "schemas/npu1_v2.yaml";
        dirmix: "schemas/dirmix.yaml";
        sumstream: "schemas/sumstream.yaml";
        twodirs: "schemas/twodirs.yaml";
        nestflag: "schemas/nestflag.yaml";
        whenw: "schemas/whenw.yaml";
        strided: "schemas/strided.yaml";
        plainloc: "schemas/plainloc.yaml";
        dirgate: "schemas/dirgate.yaml";
        dirlabel: "schemas/dirlabel.yaml";
        loctable: "schemas/loctable.yaml";
        dirrel: "schemas/dirrel.yaml";
        dirwhen: "schemas/dirwhen.yaml";
        linforms: "schemas/linforms.yaml";
        sigtrail: "schemas/sigtrail.yaml";
        tailtab: "schemas/tailtab.yaml";
        tailfix: "schemas/tailfix.yaml";
        gatedw: "schemas/gatedw.yaml";
        dirtail: "schemas/dirtail.yaml";
        dirfoot: "schemas/dirfoot.yaml";
        dirindex: "schemas/dirindex.yaml";
        diropt: "schemas/diropt.yaml";
        dirlin: "schemas/dirlin.yaml";
        loclin: "schemas/loclin.yaml";
        dirgatew: "schemas/dirgatew.yaml";
        zip: "../formats/zip.yaml";
        pcap: "../formats/pcap.yaml";
        tiff: "../formats/tiff.yaml";
        mo: "../formats/mo.yaml";
        opentype: "../formats/opentype.yaml";
    }
}

/// A table or collection: the count, then each record's named words and its offset.
macro_rules! table {
    ($v:expr, $b:expr, $name:expr, $recs:expr, [$($f:ident),*]) => {
        assert_eq!($recs.count(), record_count($v, $name), "{}", $name);
        for (k, r) in $recs.enumerate() {
            let p = format!("{}[{k}]", $name);
            same_fields!($v, &p, r, [$($f),*]);
            assert_eq!(record($v, &p).offset, span($b, r.as_bytes()).0, "{p}");
        }
    };
}

/// `tlv.yaml` (record streams, `first()`): `g` is the generated view of `b`, `v` the
/// interpreter's.
///
/// # Panics
/// When the two views differ.
pub fn tlv(b: &[u8], g: &schemas::tlv::Tlv<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, body_bytes, record_count]);
    assert_eq!(g.records().count(), record_count(v, "records"));
    for r in g.records() {
        let p = format!("records[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [length]);
        assert_eq!(raw(v, &p, "kind"), u64::from(r.header().kind_raw()));
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
    }
    table!(v, b, "notes", g.notes(), [lang, text_len]);
    for (k, n) in g.notes().enumerate() {
        assert_eq!(n.index() as usize, k, "notes[{k}]");
    }
    table!(v, b, "points", g.points(), []);
    for (k, pt) in g.points().enumerate() {
        let p = format!("points[{k}]");
        assert_eq!(value(v, &p, "x"), &Value::Int(i64::from(pt.x())));
        assert_eq!(value(v, &p, "y"), &Value::Int(i64::from(pt.y())));
    }
}

/// `scoped.yaml` (conditional tables, record `let`s): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn scoped(b: &[u8], g: &schemas::scoped::Scoped<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [magic, version, entry_count, extras_offset, extras_count]
    );
    table!(v, b, "entries", g.entries(), [offset, size]);
    // A table whose condition does not hold has no records, in both.
    table!(v, b, "extras", g.extras(), [tag, level]);
}

/// `png.yaml` (a big-endian record stream with per-chunk CRCs): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn png(b: &[u8], g: &schemas::png::Png<'_>, v: &View) {
    assert_eq!(g.chunks().count(), record_count(v, "chunks"));
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
}

/// `strtab.yaml` (strings and string tables): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn strtab(b: &[u8], g: &schemas::strtab::StrTab<'_>, v: &View) {
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
    // The strings: the generated accessors' bytes, and the interpreter's (where they start
    // in the file, and the text when UTF-8).
    let t = string(v, "title");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.title(), span(b, g.title()).0)
    );
    assert_eq!(t.text.as_deref(), g.title_str().ok());
    assert_eq!(v.strings.len(), 1 + g.sections().len());
    assert_eq!(g.sections().len(), record_count(v, "sections"));
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
}

/// `titled.yaml` (strings located by offsets): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn titled(b: &[u8], g: &schemas::titled::Titled<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, count, title_offset, comment_offset]);
    let got: Vec<(&str, &[u8], u64)> = v
        .strings
        .iter()
        .map(|s| (s.path.as_str(), s.bytes.as_slice(), s.offset))
        .collect();
    assert_eq!(
        got,
        [
            ("title", g.title(), span(b, g.title()).0),
            ("comment", g.comment(), span(b, g.comment()).0)
        ]
    );
}

/// `elf.yaml` (variants by `EI_CLASS` in the byte order `EI_DATA` chooses,
/// `t[expr].field`, section names from a string table): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn elf(b: &[u8], g: &schemas::elf::Elf<'_>, v: &View) {
    macro_rules! same {
        ($g:expr) => {{
            let g = $g;
            assert_eq!(g.segments().len(), record_count(v, "segments"));
            assert_eq!(g.sections().len(), record_count(v, "sections"));
            assert_eq!(range(v, "shstrtab"), Some(span(b, g.shstrtab())));
            for s in g.sections() {
                let p = format!("sections[{}]", s.index());
                same_fields!(v, &p, s, [sh_name, sh_offset, sh_size]);
                assert_eq!(raw(v, &p, "sh_type"), u64::from(s.sh_type_raw()));
                assert_eq!(string(v, &format!("{p}.name")).bytes.as_slice(), g.name(&s));
                assert_eq!(range(v, &format!("{p}.data")), s.data().map(|d| span(b, d)));
            }
        }};
    }
    match g {
        schemas::elf::Elf::Elf32(g) => same!(g),
        schemas::elf::Elf::Elf64(g) => same!(g),
    }
}

/// `opendir.yaml` (open big-endian directories, section and file CRCs): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn opendir(b: &[u8], g: &schemas::opendir::OpenDir<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [magic, version, section_count, section_offset, crc_sum]
    );
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [offset, size, entsize, info]);
        assert_eq!(raw(v, &p, "sh_type"), u64::from(s.sh_type().raw()));
        assert_eq!(enum_name(v, &p, "sh_type").as_deref(), s.sh_type().name());
        assert_eq!(
            range(v, &format!("{p}.payload")),
            s.payload().map(|d| span(b, d))
        );
    }
    table!(v, b, "symbols", g.symbols(), [name, value]);
    table!(v, b, "attributes", g.attributes(), [tag, value]);
    table!(v, b, "slot_table", g.slot_table(), [offset, size]);
    table!(v, b, "crcs", g.crcs(), [target, value]);
    for r in g.crcs() {
        let (stored, computed) = checksum(v, &format!("section_crcs[{}]", r.index()));
        assert_eq!((stored, computed), (u64::from(r.value()), stored));
    }
    assert_eq!(
        checksum(v, "file_crc"),
        (u64::from(h.crc_sum()), u64::from(h.crc_sum()))
    );
}

/// `dirmix.yaml` (a directory writer's file with another table, a string table, a
/// record's strings and bytes, and a record stream): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirmix(b: &[u8], g: &schemas::dirmix::DirMix<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            section_count,
            flags,
            section_offset,
            info_offset,
            log_offset,
            log_size,
            names_offset,
            names_size,
            title_offset,
            crc
        ]
    );
    let info = g.info();
    same_fields!(
        v,
        "info",
        info,
        [
            symbol_offset,
            symbol_count,
            symbol_stride,
            version,
            extra_offset
        ]
    );
    // The version-gated record: its fields present at its version, and its size.
    let x = g.extra();
    same_fields!(v, "extra", x, [base, tail]);
    let gated = |name: &str, got: Option<u64>| {
        let present = record(v, "extra")
            .fields
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| f.raw);
        assert_eq!(present, got, "extra.{name}");
    };
    gated("added", x.added().map(u64::from));
    gated("old", x.old().map(u64::from));
    assert_eq!(record(v, "extra").size, x.as_bytes().len() as u64);
    assert_eq!(range(v, "log"), Some(span(b, g.log())));
    assert_eq!(range(v, "names"), Some(span(b, g.names())));
    let t = string(v, "title");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.title(), span(b, g.title()).0)
    );
    assert_eq!(t.text.as_deref(), g.title_str().ok());
    assert_eq!(
        checksum(v, "file_crc"),
        (u64::from(h.crc()), u64::from(h.crc()))
    );
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [entsize, offset, size]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(
            range(v, &format!("{p}.payload")),
            s.payload().map(|d| span(b, d))
        );
    }
    assert_eq!(g.symbols().count(), record_count(v, "symbols"));
    for (k, s) in g.symbols().enumerate() {
        let p = format!("symbols[{k}]");
        assert_eq!(record(v, &p).offset, span(b, s.as_bytes()).0, "{p}");
        same_fields!(
            v,
            &p,
            s,
            [name_offset, label_offset, blob_offset, blob_size]
        );
        assert_eq!(value(v, &p, "value"), &Value::Int(i64::from(s.value())));
        assert_eq!(range(v, &format!("{p}.blob")), s.blob().map(|d| span(b, d)));
        for (n, bytes, text) in [
            ("name", g.name(&s), g.name_str(&s).ok()),
            ("label", g.label(&s), g.label_str(&s).ok()),
        ] {
            let x = string(v, &format!("{p}.{n}"));
            assert_eq!(
                (x.bytes.as_slice(), x.offset),
                (bytes, span(b, bytes).0),
                "{p}.{n}"
            );
            if n == "name" {
                assert_eq!(x.text.as_deref(), text, "{p}.{n}");
            }
        }
    }
    assert_eq!(g.entries().count(), record_count(v, "entries"));
    for r in g.entries() {
        let p = format!("entries[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [tag, length]);
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
    }
}

/// `objtab.yaml` (object tables): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn objtab(b: &[u8], g: &schemas::objtab::ObjTab<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [magic, version, section_offset, section_count]
    );
    assert_eq!(raw(v, "header", "machine"), u64::from(h.machine_raw()));
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [name_offset, offset, size, align]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind_raw()));
        assert_eq!(raw(v, &p, "flags"), u64::from(s.flags().bits()));
        assert_eq!(range(v, &format!("{p}.data")), s.data().map(|d| span(b, d)));
    }
}

/// `conditional.yaml` (`when` on ranges and steps): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn conditional(b: &[u8], g: &schemas::conditional::Conditional<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [magic, version, notes_offset, notes_size, count]
    );
    assert_eq!(raw(v, "header", "flags"), u64::from(h.flags().bits()));
    assert_eq!(range(v, "notes"), g.notes().map(|d| span(b, d)));
}

/// `floats.yaml` (floats compare bitwise: the raw word is the bit pattern): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn floats(_b: &[u8], g: &schemas::floats::Floats<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, sample_count, reserved]);
    assert_eq!(
        value(v, "header", "scale"),
        &Value::Float(u64::from(h.scale().to_bits()), false)
    );
    assert_eq!(raw(v, "header", "scale"), u64::from(h.scale().to_bits()));
    assert_eq!(
        value(v, "header", "bias"),
        &Value::Float(h.bias().to_bits(), true)
    );
    assert_eq!(raw(v, "header", "bias"), h.bias().to_bits());
    assert_eq!(g.samples().len(), record_count(v, "samples"));
    for s in g.samples() {
        let p = format!("samples[{}]", s.index());
        assert_eq!(
            value(v, &p, "value"),
            &Value::Float(u64::from(s.value().to_bits()), false)
        );
        assert_eq!(raw(v, &p, "value"), u64::from(s.value().to_bits()));
        assert_eq!(
            value(v, &p, "weight"),
            &Value::Float(s.weight().to_bits(), true)
        );
        assert_eq!(raw(v, &p, "weight"), s.weight().to_bits());
    }
}

/// `bigend.yaml` (big-endian fields, a CRC-32 over the body): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn bigend(b: &[u8], g: &schemas::bigend::BigEnd<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [magic, total_bytes, chunk_count, host_word, checksum]
    );
    assert_eq!(
        value(v, "header", "gain"),
        &Value::Float(h.gain().to_bits(), true)
    );
    assert_eq!(raw(v, "header", "gain"), h.gain().to_bits());
    assert_eq!(g.chunks().len(), record_count(v, "chunks"));
    for c in g.chunks() {
        let p = format!("chunks[{}]", c.index());
        same_fields!(v, &p, c, [offset, size, tag]);
        assert_eq!(raw(v, &p, "kind"), u64::from(c.kind_raw()));
        assert_eq!(raw(v, &p, "flags"), u64::from(c.flags().bits()));
        assert_eq!(range(v, &format!("{p}.data")), c.data().map(|d| span(b, d)));
    }
    assert_eq!(
        checksum(v, "body"),
        (u64::from(h.checksum()), u64::from(g.body_computed()))
    );
}

/// `ordered.yaml` (ordering constraints, an FNV-1a over the body): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn ordered(b: &[u8], g: &schemas::ordered::Ordered<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [magic, span_count, limit, reserve, checksum]
    );
    assert_eq!(raw(v, "header", "flags"), u64::from(h.flags().bits()));
    assert_eq!(g.spans().len(), record_count(v, "spans"));
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
}

/// `padded.yaml` (fill bytes, record positions): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn padded(b: &[u8], g: &schemas::padded::Padded<'_>, v: &View) {
    same_fields!(
        v,
        "header",
        g.header(),
        [magic, reserved_bytes, body_bytes, tail_bytes]
    );
    assert_eq!(range(v, "reserved"), Some(span(b, g.reserved())));
    assert_eq!(range(v, "body"), Some(span(b, g.body())));
    assert_eq!(g.records().count(), record_count(v, "records"));
    for r in g.records() {
        let p = format!("records[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [kind, length]);
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
    }
    table!(v, b, "blobs", g.blobs(), [used]);
}

/// `wav.yaml` (RIFF chunks): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn wav(b: &[u8], g: &schemas::wav::Wav<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [riff, riff_size, wave]);
    assert_eq!(g.chunks().count(), record_count(v, "chunks"));
    for c in g.chunks() {
        let p = format!("chunks[{}]", c.index());
        assert_eq!(record(v, &p).offset, c.offset());
        // LIST sub-chunks: the depth the interpreter's walk gives each record.
        let depth = record(v, &p).composed.iter().find(|x| x.0 == "depth");
        assert_eq!(depth.map(|x| x.1), Some(u64::from(c.depth())));
        same_fields!(v, &p, c.header(), [id, size]);
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, c.body())));
    }
    table!(
        v,
        b,
        "fmts",
        g.fmts(),
        [
            format_tag,
            channels,
            sample_rate,
            byte_rate,
            block_align,
            bits_per_sample
        ]
    );
    assert_eq!(g.datas().count(), record_count(v, "datas"));
    // The format chunk's parts: located records, two present only `when` the chunk has them.
    same_fields!(v, "fmt", g.fmt(), [format_tag, channels, block_align]);
    assert_eq!(g.fmt_ex().is_some(), v.group("fmt_ex").is_some());
    if let Some(x) = g.fmt_ex() {
        same_fields!(v, "fmt_ex", x, [cb_size]);
    }
    assert_eq!(g.fmt_ext().is_some(), v.group("fmt_ext").is_some());
    if let Some(x) = g.fmt_ext() {
        same_fields!(
            v,
            "fmt_ext",
            x,
            [
                valid_bits_per_sample,
                channel_mask,
                sub_format1,
                sub_format4
            ]
        );
    }
}

/// `nested.yaml` (structs inside structs, arrays of structs): every field inside, by its
/// path, at its offset; as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn nested(b: &[u8], g: &schemas::nested::Nested<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, entry_count, total_bytes]);
    let ver = h.version();
    assert_eq!(raw(v, "header", "version.major"), u64::from(ver.major()));
    assert_eq!(raw(v, "header", "version.minor"), u64::from(ver.minor()));
    assert_eq!(h.slices().count(), 4);
    for (k, s) in h.slices().enumerate() {
        assert_eq!(
            raw(v, "header", &format!("slices[{k}].offset")),
            u64::from(s.offset())
        );
        assert_eq!(
            raw(v, "header", &format!("slices[{k}].length")),
            u64::from(s.length())
        );
        let f = record(v, "header")
            .fields
            .iter()
            .find(|f| f.path == format!("header.slices[{k}].length"))
            .unwrap_or_else(|| panic!("no row for header.slices[{k}].length"));
        assert_eq!(f.offset, 12 + 8 * k as u64);
    }
    let st = h.stamp();
    assert_eq!(raw(v, "header", "stamp.time"), st.time());
    assert_eq!(raw(v, "header", "stamp.kind"), u64::from(st.kind_raw()));
    assert_eq!(
        raw(v, "header", "stamp.level"),
        u64::from(st.level().bits())
    );
    assert_eq!(
        raw(v, "header", "stamp.tool.major"),
        u64::from(st.tool().major())
    );
    assert_eq!(
        raw(v, "header", "stamp.tool.minor"),
        u64::from(st.tool().minor())
    );
    assert_eq!(range(v, "payload"), Some(span(b, g.payload())));
    assert_eq!(g.entries().len(), record_count(v, "entries"));
    for e in g.entries() {
        let p = format!("entries[{}]", e.index());
        same_fields!(v, &p, e, [id]);
        assert_eq!(value(v, &p, "at.x"), &Value::Int(i64::from(e.at().x())));
        assert_eq!(value(v, &p, "at.y"), &Value::Int(i64::from(e.at().y())));
        assert_eq!(raw(v, &p, "at.x"), u64::from(e.at().x() as u16));
        assert_eq!(raw(v, &p, "span.offset"), u64::from(e.span().offset()));
        assert_eq!(raw(v, &p, "span.length"), u64::from(e.span().length()));
        assert_eq!(range(v, &format!("{p}.blob")), e.blob().map(|d| span(b, d)));
        for (k, d) in e.dims().enumerate() {
            assert_eq!(raw(v, &p, &format!("dims[{k}].lo")), u64::from(d.lo()));
            assert_eq!(raw(v, &p, &format!("dims[{k}].hi")), u64::from(d.hi()));
        }
    }
}

/// `namedtab.yaml` (string tables the writer builds): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn namedtab(b: &[u8], g: &schemas::namedtab::NamedTab<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [magic, count, names_offset, names_size, label_offset, flags]
    );
    assert_eq!(range(v, "names"), Some(span(b, g.names())));
    let l = string(v, "label");
    assert_eq!(
        (l.bytes.as_slice(), l.offset),
        (g.label(), span(b, g.label()).0)
    );
    assert_eq!(l.text.as_deref(), g.label_str().ok());
    assert_eq!(v.strings.len(), 1 + 2 * g.items().len());
    assert_eq!(g.items().len(), record_count(v, "items"));
    for it in g.items() {
        let p = format!("items[{}]", it.index());
        same_fields!(v, &p, it, [name_offset, note_offset, value]);
        assert_eq!(record(v, &p).offset, span(b, it.as_bytes()).0, "{p}");
        let n = string(v, &format!("{p}.name"));
        assert_eq!(
            (n.bytes.as_slice(), n.offset),
            (g.name(&it), span(b, g.name(&it)).0)
        );
        assert_eq!(n.text.as_deref(), g.name_str(&it).ok());
        let t = string(v, &format!("{p}.note"));
        assert_eq!(
            (t.bytes.as_slice(), t.offset),
            (g.note(&it), span(b, g.note(&it)).0)
        );
        assert_eq!(t.text.as_deref(), g.note_str(&it).ok());
    }
}

/// `dirnotes.yaml` (a directory writer that also places file-level ranges): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirnotes(b: &[u8], g: &schemas::dirnotes::DirNotes<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            section_count,
            flags,
            section_offset,
            notes_offset,
            notes_size,
            trailer_offset,
            trailer_size,
            crc,
            title_offset
        ]
    );
    let t = string(v, "title");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.title(), span(b, g.title()).0)
    );
    assert_eq!(t.text.as_deref(), g.title_str().ok());
    assert_eq!(v.strings.len(), 1);
    assert_eq!(
        checksum(v, "file_crc"),
        (u64::from(h.crc()), u64::from(g.file_crc_computed()))
    );
    assert_eq!(range(v, "notes"), Some(span(b, g.notes())));
    assert_eq!(range(v, "trailer"), Some(span(b, g.trailer())));
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [entsize, offset, size]);
        assert_eq!(record(v, &p).offset, span(b, s.as_bytes()).0, "{p}");
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(enum_name(v, &p, "kind").as_deref(), s.kind().name());
        assert_eq!(
            range(v, &format!("{p}.payload")),
            s.payload().map(|d| span(b, d))
        );
    }
}

/// `blobpack.yaml` (u8/u16/u64 and signed fields, `&& || !` conditions, bytes and strings):
/// as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn blobpack(b: &[u8], g: &schemas::blobpack::Blobpack<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, count, pad, total, crc]);
    assert_eq!(raw(v, "header", "level"), u64::from(h.level().raw()));
    assert_eq!(enum_name(v, "header", "level").as_deref(), h.level().name());
    assert_eq!(
        value(v, "header", "delta"),
        &Value::Int(i64::from(h.delta()))
    );
    assert_eq!(text(v, "header", "label"), h.label());
    assert_eq!(text(v, "header", "stamp"), h.stamp());
    assert_eq!(array(v, "header", "scale"), h.scale().map(u64::from));
    assert_eq!(g.entries().len(), record_count(v, "entries"));
    for e in g.entries() {
        let p = format!("entries[{}]", e.index());
        same_fields!(v, &p, e, [offset, length, tag]);
        assert_eq!(record(v, &p).offset, span(b, e.as_bytes()).0, "{p}");
        assert_eq!(raw(v, &p, "kind"), u64::from(e.kind().raw()));
        assert_eq!(enum_name(v, &p, "kind").as_deref(), e.kind().name());
        assert_eq!(raw(v, &p, "flags"), u64::from(e.flags().bits()));
        assert_eq!(value(v, &p, "skew"), &Value::Int(i64::from(e.skew())));
        assert_eq!(array(v, &p, "weights"), e.weights().map(u64::from));
        assert_eq!(range(v, &format!("{p}.data")), e.data().map(|d| span(b, d)));
    }
    assert_eq!(
        checksum(v, "body"),
        (u64::from(h.crc()), u64::from(g.body_computed()))
    );
}

/// `npu1_v2.yaml` (NPU1 after a version bump: `model_id` in a 36-byte header): as [`npu1`].
///
/// # Panics
/// When the two views differ.
pub fn npu1_v2(b: &[u8], g: &schemas::npu1_v2::Npu1<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            version,
            total_bytes,
            region_count,
            cmd_offset,
            cmd_bytes,
            checksum,
            model_id
        ]
    );
    assert_eq!(raw(v, "header", "accel"), u64::from(h.accel().raw()));
    assert_eq!(enum_name(v, "header", "accel").as_deref(), h.accel().name());
    assert_eq!(g.regions().len(), record_count(v, "regions"));
    for r in g.regions() {
        let p = format!("regions[{}]", r.index());
        same_fields!(v, &p, r, [size, data_offset]);
        assert_eq!(record(v, &p).offset, span(b, r.as_bytes()).0, "{p}");
        assert_eq!(raw(v, &p, "role"), u64::from(r.role().raw()));
        assert_eq!(enum_name(v, &p, "role").as_deref(), r.role().name());
        assert_eq!(raw(v, &p, "flags"), u64::from(r.flags().bits()));
        assert_eq!(range(v, &format!("{p}.data")), r.data().map(|d| span(b, d)));
    }
    assert_eq!(range(v, "cmd_stream"), Some(span(b, g.cmd_stream())));
    assert_eq!(
        checksum(v, "payload"),
        (u64::from(h.checksum()), u64::from(g.payload_computed()))
    );
}

/// The shipped `schema/npu1.yaml`: as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn npu1(b: &[u8], g: &npuschema_generated::npu1::Npu1<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            version,
            total_bytes,
            region_count,
            cmd_offset,
            cmd_bytes,
            checksum
        ]
    );
    assert_eq!(raw(v, "header", "accel"), u64::from(h.accel().raw()));
    assert_eq!(enum_name(v, "header", "accel").as_deref(), h.accel().name());
    assert_eq!(g.regions().len(), record_count(v, "regions"));
    for r in g.regions() {
        let p = format!("regions[{}]", r.index());
        same_fields!(v, &p, r, [size, data_offset]);
        assert_eq!(raw(v, &p, "role"), u64::from(r.role().raw()));
        assert_eq!(enum_name(v, &p, "role").as_deref(), r.role().name());
        assert_eq!(raw(v, &p, "flags"), u64::from(r.flags().bits()));
        assert_eq!(range(v, &format!("{p}.data")), r.data().map(|d| span(b, d)));
    }
    assert_eq!(range(v, "cmd_stream"), Some(span(b, g.cmd_stream())));
    assert_eq!(
        checksum(v, "payload"),
        (u64::from(h.checksum()), u64::from(g.payload_computed()))
    );
}

/// The shipped `schema/vpmn.yaml`, version 2: as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn vpmn_v2(b: &[u8], g: &npuschema_generated::vpmn::VpmnV2<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            version,
            target,
            crc_sum,
            total_size_low,
            total_size_high,
            sub_header_offset,
            sub_header_size,
            sub_header_count,
            reserved2,
            reserved3,
            total_size
        ]
    );
    assert_eq!(
        raw(v, "header", "class_word"),
        u64::from(h.class_word().bits())
    );
    assert_eq!(
        bits(v, "header", "class_word", "class"),
        u64::from(h.class_word().class())
    );
    assert_eq!(
        bits(v, "header", "class_word", "reserved"),
        u64::from(h.class_word().reserved())
    );
    let sh = g.sub_header();
    same_fields!(v, "sub_header", sh, [sh_offset, sh_size, sh_count]);
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(
            v,
            &p,
            s,
            [
                sd_offset_low,
                sd_offset_high,
                sd_size_low,
                sd_size_high,
                sd_addr_low,
                sd_addr_high,
                sd_alignsize,
                sd_entsize,
                reserved1,
                reserved2,
                offset,
                size,
                load_address
            ]
        );
        assert_eq!(raw(v, &p, "sd_type"), u64::from(s.sd_type().raw()));
        assert_eq!(enum_name(v, &p, "sd_type").as_deref(), s.sd_type().name());
        assert_eq!(
            range(v, &format!("{p}.payload")),
            s.payload().map(|d| span(b, d))
        );
    }
    macro_rules! io {
        ($name:expr, $recs:expr) => {
            assert_eq!($recs.count(), record_count(v, $name));
            for r in $recs {
                let p = format!("{}[{}]", $name, r.index());
                same_fields!(v, &p, r, [dim_count]);
                assert_eq!(array(v, &p, "dim_size"), r.dim_size().map(u64::from));
                assert_eq!(array(v, &p, "quant_data"), r.quant_data().map(u64::from));
                assert_eq!(raw(v, &p, "data_format"), u64::from(r.data_format().raw()));
                assert_eq!(
                    enum_name(v, &p, "data_format").as_deref(),
                    r.data_format().name()
                );
                assert_eq!(raw(v, &p, "data_type"), u64::from(r.data_type().raw()));
                assert_eq!(
                    raw(v, &p, "quant_format"),
                    u64::from(r.quant_format().raw())
                );
                assert_eq!(text(v, &p, "name"), r.name());
                assert_eq!(record(v, &p).offset, span(b, r.as_bytes()).0);
            }
        };
    }
    io!("inputs", g.inputs());
    io!("outputs", g.outputs());
    assert_eq!(g.network_info().count(), record_count(v, "network_info"));
    for r in g.network_info() {
        let p = format!("network_info[{}]", r.index());
        same_fields!(
            v,
            &p,
            r,
            [
                input_count,
                output_count,
                layer_count,
                abs_op_count,
                operation_count,
                core_count,
                address_width
            ]
        );
        assert_eq!(raw(v, &p, "attribute"), u64::from(r.attribute().bits()));
        assert_eq!(
            bits(v, &p, "attribute", "nn_command_size"),
            u64::from(r.attribute().nn_command_size())
        );
        assert_eq!(text(v, &p, "name"), r.name());
        assert_eq!(text(v, &p, "vsi_reserved"), r.vsi_reserved());
    }
    for r in g.memory_pool() {
        let p = format!("memory_pool[{}]", r.index());
        same_fields!(v, &p, r, [used_low, used_high, used_bytes]);
    }
    macro_rules! sram {
        ($name:expr, $recs:expr) => {
            assert_eq!($recs.count(), record_count(v, $name));
            for r in $recs {
                let p = format!("{}[{}]", $name, r.index());
                same_fields!(v, &p, r, [used_bytes]);
            }
        };
    }
    sram!("vip_sram", g.vip_sram());
    sram!("axi_sram", g.axi_sram());
    assert_eq!(g.checksums().count(), record_count(v, "checksums"));
    for r in g.checksums() {
        let p = format!("checksums[{}]", r.index());
        same_fields!(v, &p, r, [sd_type, checksum_value]);
        // Validation proved each stored CRC; the interpreter shows it computed.
        let (stored, computed) = checksum(v, &format!("section_crcs[{}]", r.index()));
        assert_eq!((stored, computed), (u64::from(r.checksum_value()), stored));
    }
    assert_eq!(g.dynaio_table().count(), record_count(v, "dynaio_table"));
    for r in g.dynaio_table() {
        let p = format!("dynaio_table[{}]", r.index());
        same_fields!(v, &p, r, [offset, size]);
    }
    let (stored, computed) = checksum(v, "file_crc");
    assert_eq!(
        (stored, computed),
        (u64::from(h.crc_sum()), u64::from(h.crc_sum()))
    );
}

/// The shipped `schema/vpmn.yaml`, version 1: as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn vpmn_v1(b: &[u8], g: &npuschema_generated::vpmn::VpmnV1<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            version,
            target,
            layer_count,
            operation_count,
            input_count,
            output_count
        ]
    );
    assert_eq!(text(v, "header", "network_name"), h.network_name());
    let f = g.fixed();
    same_fields!(
        v,
        "fixed",
        f,
        [
            pool_size,
            pool_alignment,
            pool_base,
            axi_sram_base,
            axi_sram_size
        ]
    );
    let gated = |name: &str, x: Option<u64>| {
        let present = record(v, "fixed")
            .fields
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| f.raw);
        assert_eq!(present, x, "fixed.{name}");
    };
    gated("num_pixel_pipes", f.num_pixel_pipes().map(u64::from));
    gated("core_count", f.core_count().map(u64::from));
    gated("nbg_crc_sum", f.nbg_crc_sum().map(u64::from));
    gated("vip_sram_base", f.vip_sram_base().map(u64::from));
    gated("vip_sram_size", f.vip_sram_size().map(u64::from));
    gated(
        "feature_bits",
        f.feature_bits().map(|x| u64::from(x.bits())),
    );
    assert_eq!(record(v, "fixed").size, f.as_bytes().len() as u64);
    assert_eq!(g.entries().len(), record_count(v, "entries"));
    for e in g.entries() {
        let p = format!("entries[{}]", e.index());
        same_fields!(v, &p, e, [offset, size]);
        assert_eq!(
            range(v, &format!("{p}.bytes")),
            e.bytes().map(|d| span(b, d))
        );
    }
    macro_rules! io1 {
        ($name:expr, $recs:expr) => {
            assert_eq!($recs.count(), record_count(v, $name));
            for r in $recs {
                let p = format!("{}[{}]", $name, r.index());
                same_fields!(v, &p, r, [dim_count, tf_scale]);
                assert_eq!(array(v, &p, "dim_size"), r.dim_size().map(u64::from));
                assert_eq!(
                    value(v, &p, "fixed_point_pos"),
                    &Value::Int(i64::from(r.fixed_point_pos()))
                );
                assert_eq!(
                    value(v, &p, "tf_zero_point"),
                    &Value::Int(i64::from(r.tf_zero_point()))
                );
                assert_eq!(text(v, &p, "name"), r.name());
            }
        };
    }
    io1!("inputs", g.inputs());
    io1!("outputs", g.outputs());
}

/// `sumstream.yaml` (a record stream with a CRC-32 in every record): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn sumstream(b: &[u8], g: &schemas::sumstream::SumStream<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, body_bytes]);
    assert_eq!(g.records().count(), record_count(v, "records"));
    for r in g.records() {
        let p = format!("records[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [kind, length, crc]);
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
    }
}

/// `twodirs.yaml` (two section directories, one with a closed and one with an open type,
/// each with its collection and checksums): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn twodirs(b: &[u8], g: &schemas::twodirs::TwoDirs<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            code_count,
            asset_count,
            code_at,
            asset_at,
            code_crc,
            asset_sum
        ]
    );
    assert_eq!(g.code().len(), record_count(v, "code"));
    for s in g.code() {
        let p = format!("code[{}]", s.index());
        same_fields!(v, &p, s, [entsize, offset, size, align]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(
            range(v, &format!("{p}.code_bytes")),
            s.code_bytes().map(|d| span(b, d))
        );
    }
    assert_eq!(g.assets().len(), record_count(v, "assets"));
    for s in g.assets() {
        let p = format!("assets[{}]", s.index());
        same_fields!(v, &p, s, [align, offset, size, entsize]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(enum_name(v, &p, "kind").as_deref(), s.kind().name());
        assert_eq!(
            range(v, &format!("{p}.asset_bytes")),
            s.asset_bytes().map(|d| span(b, d))
        );
    }
    table!(v, b, "sums", g.sums(), [target, reserved, crc]);
    for r in g.sums() {
        let (stored, computed) = checksum(v, &format!("section_crcs[{}]", r.index()));
        assert_eq!((stored, computed), (u64::from(r.crc()), stored));
    }
    table!(v, b, "glyphs", g.glyphs(), [code_point, width, height]);
    assert_eq!(
        checksum(v, "code_crc"),
        (u64::from(h.code_crc()), u64::from(h.code_crc()))
    );
    assert_eq!(
        checksum(v, "asset_sum"),
        (u64::from(h.asset_sum()), u64::from(h.asset_sum()))
    );
}

/// `nestflag.yaml` (a per-record range flagged by a bit inside a struct-typed field): as
/// [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn nestflag(b: &[u8], g: &schemas::nestflag::NestFlag<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [magic, count, entries_at]);
    table!(v, b, "entries", g.entries(), [value]);
    for e in g.entries() {
        let p = format!("entries[{}]", e.index());
        let (tag, at) = (e.tag(), e.span());
        assert_eq!(raw(v, &p, "tag.kind"), u64::from(tag.kind()));
        assert_eq!(raw(v, &p, "tag.marks"), u64::from(tag.marks().bits()));
        assert_eq!(raw(v, &p, "tag.level"), u64::from(tag.level()));
        assert_eq!(raw(v, &p, "span.offset"), u64::from(at.offset()));
        assert_eq!(raw(v, &p, "span.length"), u64::from(at.length()));
        assert_eq!(range(v, &format!("{p}.data")), e.data().map(|d| span(b, d)));
    }
}

/// `whenw.yaml` (optional parts of the writer: a version-gated range, a range gated by an
/// enum value and a flag bit, tables whose table_fits has `when`): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn whenw(b: &[u8], g: &schemas::whenw::WhenW<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            version,
            mark_count,
            tag_count,
            ext_offset,
            ext_size,
            extra_offset,
            extra_size,
            notes_offset,
            notes_size
        ]
    );
    assert_eq!(raw(v, "header", "kind"), u64::from(h.kind_raw()));
    assert_eq!(raw(v, "header", "flags"), u64::from(h.flags().bits()));
    table!(v, b, "tags", g.tags(), [id, value]);
    table!(v, b, "marks", g.marks(), [code]);
    assert_eq!(range(v, "ext"), g.ext().map(|d| span(b, d)));
    assert_eq!(range(v, "extra"), g.extra().map(|d| span(b, d)));
    assert_eq!(range(v, "notes"), g.notes().map(|d| span(b, d)));
}

/// `strided.yaml` (a stride field, a fixed count): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn strided(b: &[u8], g: &schemas::strided::Strided<'_>, v: &View) {
    same_fields!(
        v,
        "header",
        g.header(),
        [magic, item_count, item_stride, items_at, slots_at, total]
    );
    table!(v, b, "items", g.items(), [id, weight]);
    table!(v, b, "slots", g.slots(), [base, limit]);
}

/// `plainloc.yaml` (the plain writer's located records: `info`, and `extra` laid out by its
/// version): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn plainloc(b: &[u8], g: &schemas::plainloc::PlainLoc<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, info_offset, flags, level, crc]);
    let info = g.info();
    same_fields!(
        v,
        "info",
        info,
        [
            kind,
            item_count,
            version,
            extra_offset,
            body_offset,
            body_size
        ]
    );
    assert_eq!(record(v, "info").offset, span(b, info.as_bytes()).0);
    // The version-gated record: its fields present at its version, its place and size.
    let x = g.extra();
    same_fields!(v, "extra", x, [base, tail]);
    let gated = |name: &str, got: Option<u64>| {
        let present = record(v, "extra")
            .fields
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| f.raw);
        assert_eq!(present, got, "extra.{name}");
    };
    gated("added", x.added().map(u64::from));
    gated("old", x.old().map(u64::from));
    assert_eq!(record(v, "extra").offset, span(b, x.as_bytes()).0);
    assert_eq!(record(v, "extra").size, x.as_bytes().len() as u64);
    assert_eq!(g.items().count(), record_count(v, "items"));
    for (k, r) in g.items().enumerate() {
        let p = format!("items[{k}]");
        assert_eq!(record(v, &p).offset, span(b, r.as_bytes()).0, "{p}");
        same_fields!(v, &p, r, [id]);
        assert_eq!(value(v, &p, "value"), &Value::Int(i64::from(r.value())));
    }
    assert_eq!(range(v, "body"), Some(span(b, g.body())));
    assert_eq!(
        checksum(v, "file_crc"),
        (u64::from(h.crc()), u64::from(h.crc()))
    );
}

/// `dirgate.yaml` (a directory writer's file with a record laid out by a computed gate): as
/// [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirgate(b: &[u8], g: &schemas::dirgate::DirGate<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            version,
            section_count,
            section_offset,
            fixed_offset,
            names_offset,
            names_size
        ]
    );
    assert_eq!(range(v, "names"), Some(span(b, g.names())));
    let x = g.fixed();
    same_fields!(v, "fixed", x, [base, tail]);
    let present = record(v, "fixed")
        .fields
        .iter()
        .find(|f| f.name == "added")
        .and_then(|f| f.raw);
    assert_eq!(present, x.added().map(u64::from), "fixed.added");
    assert_eq!(record(v, "fixed").offset, span(b, x.as_bytes()).0);
    assert_eq!(record(v, "fixed").size, x.as_bytes().len() as u64);
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [entsize, offset, size, name_offset]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(
            range(v, &format!("{p}.payload")),
            s.payload().map(|d| span(b, d))
        );
        let x = string(v, &format!("{p}.name"));
        assert_eq!(
            (x.bytes.as_slice(), x.offset),
            (g.name(&s), span(b, g.name(&s)).0)
        );
        assert_eq!(x.text.as_deref(), g.name_str(&s).ok());
    }
}

/// `dirlabel.yaml` (a directory's records' strings outside a string table): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirlabel(b: &[u8], g: &schemas::dirlabel::DirLabel<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [magic, count, dir_at]);
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [entsize, offset, size, label_at]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(
            range(v, &format!("{p}.payload")),
            s.payload().map(|d| span(b, d))
        );
        let x = string(v, &format!("{p}.label"));
        assert_eq!(
            (x.bytes.as_slice(), x.offset),
            (g.label(&s), span(b, g.label(&s)).0)
        );
        assert_eq!(x.text.as_deref(), g.label_str(&s).ok());
    }
}

/// `loctable.yaml` (a table placed by a field of a located record): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn loctable(b: &[u8], g: &schemas::loctable::LocTable<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [magic, index_at, notes_at, note_count, level, entries_crc]
    );
    let x = g.index();
    same_fields!(
        v,
        "index",
        x,
        [entries_at, entry_count, entry_size, owner, title_at]
    );
    let t = string(v, "title");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.title(), span(b, g.title()).0)
    );
    assert_eq!(t.text.as_deref(), g.title_str().ok());
    assert_eq!(record(v, "index").offset, span(b, x.as_bytes()).0);
    let f = g.footer();
    same_fields!(v, "footer", f, [end_magic, total]);
    assert_eq!(record(v, "footer").offset, span(b, f.as_bytes()).0);
    assert_eq!(
        checksum(v, "entries_crc"),
        (u64::from(h.entries_crc()), u64::from(h.entries_crc()))
    );
    assert_eq!(g.entries().count(), record_count(v, "entries"));
    for (k, r) in g.entries().enumerate() {
        let p = format!("entries[{k}]");
        assert_eq!(record(v, &p).offset, span(b, r.as_bytes()).0, "{p}");
        same_fields!(v, &p, r, [id]);
        assert_eq!(value(v, &p, "value"), &Value::Int(i64::from(r.value())));
    }
    assert_eq!(g.notes().count(), record_count(v, "notes"));
    for (k, r) in g.notes().enumerate() {
        let p = format!("notes[{k}]");
        assert_eq!(record(v, &p).offset, span(b, r.as_bytes()).0, "{p}");
        same_fields!(v, &p, r, [word]);
    }
}

/// `dirrel.yaml` (a directory table with a second per-record range): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirrel(b: &[u8], g: &schemas::dirrel::DirRel<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, count, dir_at, payload_crc, info_at]);
    let x = g.info();
    same_fields!(v, "info", x, [build, title_at]);
    assert_eq!(record(v, "info").offset, span(b, x.as_bytes()).0);
    let t = string(v, "title");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.title(), span(b, g.title()).0)
    );
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [offset, size, rel_offset, rel_size, entsize]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(raw(v, &p, "flags"), u64::from(s.flags().bits()));
        assert_eq!(
            range(v, &format!("{p}.payload")),
            s.payload().map(|d| span(b, d))
        );
        assert_eq!(
            range(v, &format!("{p}.relocs")),
            s.relocs().map(|d| span(b, d))
        );
    }
    assert_eq!(
        checksum(v, "payload_crc"),
        (u64::from(h.payload_crc()), u64::from(h.payload_crc()))
    );
}

/// `dirwhen.yaml` (a directory writer's optional parts: payloads there only when their
/// records say so, optional ranges and tables): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirwhen(b: &[u8], g: &schemas::dirwhen::DirWhen<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            version,
            section_count,
            blob_count,
            section_at,
            blob_at,
            ext_offset,
            ext_size,
            notes_offset,
            notes_size,
            mark_count,
            tag_count,
            marks_at,
            tags_at,
            crc
        ]
    );
    assert_eq!(raw(v, "header", "flags"), u64::from(h.flags().bits()));
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [entsize, offset, size]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(range(v, &format!("{p}.data")), s.data().map(|d| span(b, d)));
    }
    assert_eq!(g.blobs().len(), record_count(v, "blobs"));
    for s in g.blobs() {
        let p = format!("blobs[{}]", s.index());
        same_fields!(v, &p, s, [id, entsize, offset, size]);
        assert_eq!(raw(v, &p, "flags"), u64::from(s.flags().bits()));
        assert_eq!(
            range(v, &format!("{p}.blob_bytes")),
            s.blob_bytes().map(|d| span(b, d))
        );
    }
    table!(v, b, "marks", g.marks(), [code]);
    table!(v, b, "tags", g.tags(), [id, value]);
    assert_eq!(range(v, "ext"), g.ext().map(|d| span(b, d)));
    assert_eq!(range(v, "notes"), g.notes().map(|d| span(b, d)));
    assert_eq!(
        checksum(v, "file_crc"),
        (u64::from(h.crc()), u64::from(h.crc()))
    );
}

/// `linforms.yaml` (places, counts, strides, offsets and lengths as linear forms of one
/// field; a fixed-length range, a range that ends before a trailer, the trailer): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn linforms(b: &[u8], g: &schemas::linforms::LinForms<'_>, v: &View) {
    same_fields!(
        v,
        "header",
        g.header(),
        [
            magic,
            items_at,
            items_n,
            item_halves,
            pairs_at8,
            pair_half,
            blob_at,
            blob_words,
            note_len,
            note_at,
            stamp_at,
            body_at
        ]
    );
    table!(v, b, "items", g.items(), [id, data_at, data_words]);
    for (k, r) in g.items().enumerate() {
        assert_eq!(
            range(v, &format!("items[{k}].data")),
            r.data().map(|d| span(b, d))
        );
    }
    table!(v, b, "pairs", g.pairs(), [a, b]);
    assert_eq!(range(v, "blob"), Some(span(b, g.blob())));
    assert_eq!(range(v, "note"), Some(span(b, g.note())));
    assert_eq!(range(v, "stamp"), Some(span(b, g.stamp())));
    assert_eq!(range(v, "body"), Some(span(b, g.body())));
    assert_eq!(range(v, "tail"), Some(span(b, g.tail())));
}

/// `sigtrail.yaml` (a trailer whose length is a header field, after a range that ends before
/// it): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn sigtrail(b: &[u8], g: &schemas::sigtrail::SigTrail<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [magic, body_at, sig_len, kind]);
    assert_eq!(range(v, "body"), Some(span(b, g.body())));
    assert_eq!(range(v, "sig"), Some(span(b, g.sig())));
}

/// `tailtab.yaml` (a table at the end of the file, `at: len - header.count * 12`, its records'
/// blobs before it): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn tailtab(b: &[u8], g: &schemas::tailtab::TailTab<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [magic, count]);
    table!(v, b, "index", g.index(), [id, at, size]);
    for (k, r) in g.index().enumerate() {
        assert_eq!(
            range(v, &format!("index[{k}].blob")),
            r.blob().map(|d| span(b, d))
        );
    }
}

/// `tailfix.yaml` (a table a constant distance from the end of the file, `at: len -
/// SLOT_BYTES`): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn tailfix(b: &[u8], g: &schemas::tailfix::TailFix<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [magic, body_len, slots_n]);
    table!(v, b, "slots", g.slots(), [key, value]);
    assert_eq!(range(v, "body"), Some(span(b, g.body())));
}

/// `gatedw.yaml` (a version-gated record holding the places of optional ranges, of a stream's
/// range and of a checksum's span): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn gatedw(b: &[u8], g: &schemas::gatedw::GatedW<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, version, meta_at, body_crc]);
    assert_eq!(raw(v, "header", "flags"), u64::from(h.flags().bits()));
    let m = g.meta();
    same_fields!(
        v,
        "meta",
        m,
        [
            body_at, body_len, extra_at, extra_len, log_at, log_len, marks_at, marks_n, stamp_at,
            title_at
        ]
    );
    let st = g.stamp();
    same_fields!(v, "stamp", st, [when]);
    assert_eq!(record(v, "stamp").offset, span(b, st.as_bytes()).0);
    table!(v, b, "marks", g.marks(), [word]);
    let t = string(v, "title");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.title(), span(b, g.title()).0)
    );
    let gated = |name: &str, got: Option<u64>| {
        let present = record(v, "meta")
            .fields
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| f.raw);
        assert_eq!(present, got, "meta.{name}");
    };
    gated("notes_at", m.notes_at().map(u64::from));
    gated("notes_len", m.notes_len().map(u64::from));
    gated("legacy", m.legacy().map(u64::from));
    assert_eq!(record(v, "meta").offset, span(b, m.as_bytes()).0);
    assert_eq!(record(v, "meta").size, m.as_bytes().len() as u64);
    assert_eq!(range(v, "body"), Some(span(b, g.body())));
    assert_eq!(range(v, "notes"), g.notes().map(|d| span(b, d)));
    assert_eq!(range(v, "extra"), g.extra().map(|d| span(b, d)));
    assert_eq!(range(v, "log"), Some(span(b, g.log())));
    assert_eq!(g.entries().count(), record_count(v, "entries"));
    for r in g.entries() {
        let p = format!("entries[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [kind, length]);
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
    }
}

/// `dirtail.yaml` (a directory writer's ranges placed without a field: a constant place and
/// length, a body up to a trailer, the trailer): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirtail(b: &[u8], g: &schemas::dirtail::DirTail<'_>, v: &View) {
    same_fields!(
        v,
        "header",
        g.header(),
        [magic, count, level, dir_at, body_at]
    );
    table!(
        v,
        b,
        "sections",
        g.sections(),
        [kind, offset, size, entsize]
    );
    for (k, r) in g.sections().enumerate() {
        assert_eq!(
            range(v, &format!("sections[{k}].payload")),
            r.payload().map(|d| span(b, d))
        );
    }
    assert_eq!(range(v, "note"), Some(span(b, g.note())));
    assert_eq!(range(v, "body"), Some(span(b, g.body())));
    assert_eq!(range(v, "sig"), Some(span(b, g.sig())));
}

/// `dirfoot.yaml` (a directory writer's located record at the end of the file): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirfoot(b: &[u8], g: &schemas::dirfoot::DirFoot<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [magic, level]);
    let f = g.footer();
    same_fields!(v, "footer", f, [dir_at, count, stamp]);
    assert_eq!(record(v, "footer").offset, span(b, f.as_bytes()).0);
    table!(
        v,
        b,
        "sections",
        g.sections(),
        [kind, offset, size, entsize]
    );
    for (k, r) in g.sections().enumerate() {
        assert_eq!(
            range(v, &format!("sections[{k}].payload")),
            r.payload().map(|d| span(b, d))
        );
    }
}

/// `dirindex.yaml` (a directory writer's other table at the end of the file): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirindex(b: &[u8], g: &schemas::dirindex::DirIndex<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [magic, count, dir_at, index_n]);
    table!(
        v,
        b,
        "sections",
        g.sections(),
        [kind, offset, size, entsize]
    );
    for (k, r) in g.sections().enumerate() {
        assert_eq!(
            range(v, &format!("sections[{k}].payload")),
            r.payload().map(|d| span(b, d))
        );
    }
    table!(v, b, "index", g.index(), [section, value]);
}

/// `diropt.yaml` (a directory writer's optional table with per-record bytes and strings, a
/// payload condition reading the payload's size, a CRC whose start a located record
/// gives): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn diropt(b: &[u8], g: &schemas::diropt::DirOpt<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            section_count,
            section_at,
            tag_count,
            version,
            tags_at,
            info_at,
            names_offset,
            names_size,
            title_offset,
            crc
        ]
    );
    assert_eq!(raw(v, "header", "flags"), u64::from(h.flags().bits()));
    same_fields!(v, "info", g.info(), [crc_from, note]);
    assert_eq!(range(v, "names"), Some(span(b, g.names())));
    let t = string(v, "title");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.title(), span(b, g.title()).0)
    );
    assert_eq!(t.text.as_deref(), g.title_str().ok());
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [entsize, offset, size]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind().raw()));
        assert_eq!(raw(v, &p, "flags"), u64::from(s.flags().bits()));
        assert_eq!(range(v, &format!("{p}.data")), s.data().map(|d| span(b, d)));
    }
    assert_eq!(g.tags().count(), record_count(v, "tags"));
    for (k, s) in g.tags().enumerate() {
        let p = format!("tags[{k}]");
        assert_eq!(record(v, &p).offset, span(b, s.as_bytes()).0, "{p}");
        same_fields!(
            v,
            &p,
            s,
            [id, name_offset, label_offset, blob_offset, blob_size]
        );
        assert_eq!(range(v, &format!("{p}.blob")), s.blob().map(|d| span(b, d)));
        for (n, bytes, text) in [
            ("name", g.name(&s), g.name_str(&s).ok()),
            ("label", g.label(&s), None),
        ] {
            let x = string(v, &format!("{p}.{n}"));
            assert_eq!(
                (x.bytes.as_slice(), x.offset),
                (bytes, span(b, bytes).0),
                "{p}.{n}"
            );
            if n == "name" {
                assert_eq!(x.text.as_deref(), text, "{p}.{n}");
            }
        }
    }
    assert_eq!(
        checksum(v, "body_crc"),
        (u64::from(h.crc()), u64::from(g.body_crc_computed()))
    );
}

/// `dirlin.yaml` (a directory writer's places, counts, offsets and lengths as linear forms of
/// one field): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirlin(b: &[u8], g: &schemas::dirlin::DirLin<'_>, v: &View) {
    let h = g.header();
    same_fields!(
        v,
        "header",
        h,
        [
            magic,
            sub_at,
            notes_words,
            notes_len,
            name_at,
            marks_at,
            marks_n
        ]
    );
    let x = g.sub();
    same_fields!(v, "sub", x, [dir_at16, count1]);
    assert_eq!(record(v, "sub").offset, span(b, x.as_bytes()).0);
    assert_eq!(g.sections().len(), record_count(v, "sections"));
    for s in g.sections() {
        let p = format!("sections[{}]", s.index());
        same_fields!(v, &p, s, [entsize, offset, size2]);
        assert_eq!(raw(v, &p, "kind"), u64::from(s.kind_raw()));
        assert_eq!(
            range(v, &format!("{p}.payload")),
            s.payload().map(|d| span(b, d))
        );
    }
    assert_eq!(g.marks().len(), record_count(v, "marks"));
    for m in g.marks() {
        let p = format!("marks[{}]", m.index());
        same_fields!(v, &p, m, [id, data_at, data_len]);
        assert_eq!(range(v, &format!("{p}.data")), m.data().map(|d| span(b, d)));
    }
    assert_eq!(range(v, "notes"), Some(span(b, g.notes())));
    let t = string(v, "name");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.name(), span(b, g.name()).0)
    );
}

/// `loclin.yaml` (the plain writer's linear forms of a located record's fields): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn loclin(b: &[u8], g: &schemas::loclin::LocLin<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [magic, info_at]);
    let x = g.info();
    same_fields!(
        v,
        "info",
        x,
        [items_at4, items_n1, blob_len2, blob_at, stamp]
    );
    assert_eq!(record(v, "info").offset, span(b, x.as_bytes()).0);
    table!(v, b, "items", g.items(), [id, value]);
    assert_eq!(range(v, "blob"), Some(span(b, g.blob())));
}

/// `dirgatew.yaml` (a directory writer's version-gated record placing an optional range and a
/// title): as [`tlv`].
///
/// # Panics
/// When the two views differ.
pub fn dirgatew(b: &[u8], g: &schemas::dirgatew::DirGateW<'_>, v: &View) {
    let h = g.header();
    same_fields!(v, "header", h, [magic, version, dir_at, meta_at]);
    assert_eq!(raw(v, "header", "flags"), u64::from(h.flags().bits()));
    let m = g.meta();
    same_fields!(v, "meta", m, [count, title_at]);
    let gated = |name: &str, got: Option<u64>| {
        let present = record(v, "meta")
            .fields
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| f.raw);
        assert_eq!(present, got, "meta.{name}");
    };
    gated("extra_at", m.extra_at().map(u64::from));
    gated("extra_len", m.extra_len().map(u64::from));
    gated("legacy", m.legacy().map(u64::from));
    assert_eq!(record(v, "meta").offset, span(b, m.as_bytes()).0);
    assert_eq!(record(v, "meta").size, m.as_bytes().len() as u64);
    table!(
        v,
        b,
        "sections",
        g.sections(),
        [kind, offset, size, entsize]
    );
    for (k, r) in g.sections().enumerate() {
        assert_eq!(
            range(v, &format!("sections[{k}].payload")),
            r.payload().map(|d| span(b, d))
        );
    }
    assert_eq!(range(v, "extra"), g.extra().map(|d| span(b, d)));
    let t = string(v, "title");
    assert_eq!(
        (t.bytes.as_slice(), t.offset),
        (g.title(), span(b, g.title()).0)
    );
}

/// `formats/zip.yaml` (a located record found by searching back from the end, a record
/// stream in the range it locates): the end record's fields, then each central directory
/// entry's offset, fields and bytes.
pub fn zip(b: &[u8], g: &schemas::zip::Zip<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [signature]);
    same_fields!(
        v,
        "end",
        g.end(),
        [
            signature,
            disk,
            central_disk,
            disk_entries,
            entries,
            central_size,
            central_offset,
            comment_len
        ]
    );
    assert_eq!(g.centrals().count(), record_count(v, "centrals"));
    for c in g.centrals() {
        let p = format!("centrals[{}]", c.index());
        assert_eq!(record(v, &p).offset, c.offset());
        same_fields!(
            v,
            &p,
            c.header(),
            [signature, name_len, extra_len, comment_len, local_offset]
        );
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, c.body())));
        // The local header found from the entry: by the generated accessor, and by the
        // interpreter's view, at one place with the same fields (the records it lists).
        let local = g
            .local(&c.header())
            .expect("a validated entry has its local header");
        if u64::from(c.index()) < npuschema_codegen::interp::LIST_LIMIT {
            let lp = format!("{p}.local");
            assert_eq!(record(v, &lp).offset, span(b, local.as_bytes()).0);
            same_fields!(
                v,
                &lp,
                local,
                [
                    signature,
                    method,
                    flags,
                    crc32,
                    compressed_size,
                    name_len,
                    extra_len
                ]
            );
        }
        // The data descriptor, when the entry's flag bit 3 says one follows its data: its
        // first word and, after the signature when that word is one, its CRC-32 and size.
        let lead = g.descriptor_lead(&c.header());
        let desc = g.descriptor(&c.header());
        let flagged = c.header().flags() & 0x0008 != 0;
        assert_eq!((lead.is_some(), desc.is_some()), (flagged, flagged));
        for (name, at) in [
            ("descriptor_lead", lead.map(|x| span(b, x.as_bytes()).0)),
            ("descriptor", desc.map(|x| span(b, x.as_bytes()).0)),
        ] {
            let path = format!("{p}.{name}");
            let listed = v
                .group(name)
                .is_some_and(|g| g.records.len() as u64 == g.total);
            let theirs = v
                .groups
                .iter()
                .flat_map(|g| g.records.iter())
                .find(|r| r.path == path)
                .map(|r| r.offset);
            if listed || theirs.is_some() {
                assert_eq!(theirs, at, "{path}");
            }
        }
        if let (Some(d), true) = (
            desc,
            v.group("descriptor")
                .is_some_and(|g| g.records.len() as u64 == g.total),
        ) {
            same_fields!(v, &format!("{p}.descriptor"), d, [crc32, compressed_size]);
        }
    }
    // Every entry's extra fields, entry by entry (a stream within the entries' records).
    let listed = usize::try_from(npuschema_codegen::interp::LIST_LIMIT).unwrap_or(usize::MAX);
    assert_eq!(g.extras().count().min(listed), record_count(v, "extras"));
    for r in g.extras().take(listed) {
        let p = format!("extras[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [id, size]);
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
    }
}

/// `formats/pcap.yaml` (the file's byte order chosen by the magic, a record stream to the end
/// of the file): the header's words read in that order, and every packet record's place,
/// header and data.
///
/// # Panics
/// When the interpreter's view differs from the generated one.
pub fn pcap(b: &[u8], g: &schemas::pcap::Pcap<'_>, v: &View) {
    same_fields!(
        v,
        "header",
        g.header(),
        [
            magic,
            version_major,
            version_minor,
            sigfigs,
            snaplen,
            network
        ]
    );
    let listed = usize::try_from(npuschema_codegen::interp::LIST_LIMIT).unwrap_or(usize::MAX);
    assert_eq!(g.packets().count().min(listed), record_count(v, "packets"));
    for r in g.packets().take(listed) {
        let p = format!("packets[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [ts_sec, ts_frac, incl_len, orig_len]);
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
    }
}

/// `formats/mo.yaml` (GNU gettext catalogs: the byte order chosen by the magic, two tables of
/// string descriptors, the original strings as C strings): the header's words read in that
/// order, every descriptor and hash word, each string's bytes with its NUL, each msgid.
///
/// # Panics
/// When the interpreter's view differs from the generated one.
pub fn mo(b: &[u8], g: &schemas::mo::Mo<'_>, v: &View) {
    same_fields!(
        v,
        "header",
        g.header(),
        [
            magic_le,
            revision,
            count,
            originals,
            translations,
            hash_size,
            hash_offset
        ]
    );
    let listed = usize::try_from(npuschema_codegen::interp::LIST_LIMIT).unwrap_or(usize::MAX);
    for (name, recs, part) in [
        ("originals", g.originals(), "msgid_bytes"),
        ("translations", g.translations(), "msgstr_bytes"),
    ] {
        assert_eq!(recs.len().min(listed), record_count(v, name), "{name}");
        for r in recs.take(listed) {
            let p = format!("{name}[{}]", r.index());
            same_fields!(v, &p, r, [length, offset]);
            assert_eq!(record(v, &p).offset, span(b, r.as_bytes()).0, "{p}");
            let bytes = if name == "originals" {
                r.msgid_bytes()
            } else {
                r.msgstr_bytes()
            };
            assert_eq!(
                range(v, &format!("{p}.{part}")),
                bytes.map(|x| span(b, x)),
                "{p}.{part}"
            );
        }
    }
    for r in g.originals().take(listed) {
        let p = format!("originals[{}].msgid", r.index());
        let s = string(v, &p);
        assert_eq!(
            (s.bytes.as_slice(), s.offset),
            (g.msgid(&r), span(b, g.msgid(&r)).0),
            "{p}"
        );
    }
    assert_eq!(g.slots().len().min(listed), record_count(v, "slots"));
    for r in g.slots().take(listed) {
        same_fields!(v, &format!("slots[{}]", r.index()), r, [entry]);
    }
}

/// `formats/opentype.yaml` (a font's table directory and the tables it locates): the
/// directory's header, every table record with its place, each table's bytes, and the
/// `head` and `maxp` tables found by their tags.
///
/// # Panics
/// When the interpreter's view differs from the generated one.
pub fn opentype(b: &[u8], g: &schemas::opentype::OpenType<'_>, v: &View) {
    same_fields!(
        v,
        "header",
        g.header(),
        [
            sfnt_version,
            num_tables,
            search_range,
            entry_selector,
            range_shift
        ]
    );
    let listed = usize::try_from(npuschema_codegen::interp::LIST_LIMIT).unwrap_or(usize::MAX);
    assert_eq!(g.records().len().min(listed), record_count(v, "records"));
    for r in g.records().take(listed) {
        let p = format!("records[{}]", r.index());
        same_fields!(v, &p, r, [tag, checksum, offset, length]);
        assert_eq!(record(v, &p).offset, span(b, r.as_bytes()).0, "{p}");
        assert_eq!(
            range(v, &format!("{p}.table_bytes")),
            r.table_bytes().map(|x| span(b, x)),
            "{p}.table_bytes"
        );
    }
    same_fields!(
        v,
        "head",
        g.head(),
        [
            major_version,
            minor_version,
            font_revision,
            checksum_adjustment,
            magic_number,
            flags,
            units_per_em,
            created,
            modified,
            mac_style,
            lowest_rec_ppem
        ]
    );
    let head = g.head();
    for (f, x) in [
        ("x_min", head.x_min()),
        ("y_min", head.y_min()),
        ("x_max", head.x_max()),
        ("y_max", head.y_max()),
        ("font_direction_hint", head.font_direction_hint()),
        ("index_to_loc_format", head.index_to_loc_format()),
        ("glyph_data_format", head.glyph_data_format()),
    ] {
        // A signed field's raw bits.
        assert_eq!(raw(v, "head", f), u64::from(x.cast_unsigned()), "head.{f}");
    }
    assert_eq!(record(v, "head").offset, span(b, g.head().as_bytes()).0);
    same_fields!(v, "maxp", g.maxp(), [version, num_glyphs]);
    assert_eq!(record(v, "maxp").offset, span(b, g.maxp().as_bytes()).0);
}

/// `formats/tiff.yaml` (the byte order chosen by `II`/`MM`, image file directories as a chain
/// of records, each locating the next): the header's words read in that order, and every
/// IFD's place, entry count and entries.
///
/// # Panics
/// When the interpreter's view differs from the generated one.
pub fn tiff(b: &[u8], g: &schemas::tiff::Tiff<'_>, v: &View) {
    same_fields!(v, "header", g.header(), [order, magic, first_ifd]);
    let listed = usize::try_from(npuschema_codegen::interp::LIST_LIMIT).unwrap_or(usize::MAX);
    assert_eq!(g.ifds().count().min(listed), record_count(v, "ifds"));
    for r in g.ifds().take(listed) {
        let p = format!("ifds[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [count]);
        assert_eq!(range(v, &format!("{p}.body")), Some(span(b, r.body())));
    }
    // Every IFD's entries, IFD by IFD (a stream within the IFDs' records).
    assert_eq!(g.entries().count().min(listed), record_count(v, "entries"));
    for r in g.entries().take(listed) {
        let p = format!("entries[{}]", r.index());
        assert_eq!(record(v, &p).offset, r.offset());
        same_fields!(v, &p, r.header(), [tag, kind, count, value]);
    }
}
