//! `npuschema explain` on VPMN (.nb): every real file of `$NPUSCHEMA_CORPUS/corpus/vpmn`
//! (3 version 2, 2 version 1) is explained with every header field and every directory
//! record (v2) or table entry (v1) named at its bytes, the layout from the ledger, and the
//! cross-checks with the numbers of the generated view and the inspect JSON; colour only when
//! asked; a corrupted file is not decoded but shows the validator's error and the bytes
//! around its offset. Skips (saying so) when `NPUSCHEMA_CORPUS` is not set.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod vpmn_util;

use npuschema_cli::explain::{ExplainError, Format, Style, explain};
use npuschema_cli::vpmn::inspect;
use npuschema_generated::vpmn::{Vpmn, VpmnV1, VpmnV2};
use vpmn_util::corpus;

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn explained(name: &str, b: &[u8]) -> String {
    explain(b, name, Style::PLAIN).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

/// The table row of `field` at bytes `at..at+size`: the byte range, the hex (the first four
/// bytes for longer fields), the field name; returns the whole line.
fn row<'t>(text: &'t str, at: usize, size: usize, field: &str, bytes: &[u8]) -> &'t str {
    let range = format!("{at}-{}", at + size - 1);
    let shown = hex(&bytes[at..at + size.min(4)]);
    text.lines()
        .find(|l| {
            let mut w = l.split_whitespace();
            w.next() == Some(range.as_str())
                && l.contains(&shown)
                && l.split_whitespace().any(|x| x == field)
        })
        .unwrap_or_else(|| panic!("no row {range} {shown} {field} in\n{text}"))
}

/// The cross-check line containing `expr`, which must hold.
fn holds(text: &str, expr: &str) {
    let line = text
        .lines()
        .find(|l| l.contains(expr))
        .unwrap_or_else(|| panic!("no check {expr:?} in\n{text}"));
    assert!(line.trim_end().ends_with(" ok"), "{line}");
}

fn v2(b: &[u8]) -> Option<VpmnV2<'_>> {
    match Vpmn::validate(b).unwrap() {
        Vpmn::V2(v) => Some(v),
        Vpmn::V1(_) => None,
    }
}

fn v1(b: &[u8]) -> Option<VpmnV1<'_>> {
    match Vpmn::validate(b).unwrap() {
        Vpmn::V1(v) => Some(v),
        Vpmn::V2(_) => None,
    }
}

#[test]
fn every_corpus_file_is_explained_plainly() {
    let Some(files) = corpus() else { return };
    let (mut n2, mut n1) = (0, 0);
    for (name, b) in &files {
        assert_eq!(Format::detect(b), Some(Format::Vpmn), "{name}");
        let text = explained(name, b);
        assert!(
            !text.contains('\x1b'),
            "{name}: escape codes in plain output"
        );
        assert!(!text.contains("FAILS"), "{name}:\n{text}");
        let version = le32(b, 4);
        if version == 0x0002_0000 {
            n2 += 1;
            assert!(
                text.starts_with(&format!(
                    "{name}: VPMN version 2 file, {} bytes, valid",
                    b.len()
                )),
                "{text}"
            );
        } else {
            n1 += 1;
            assert!(
                text.starts_with(&format!(
                    "{name}: VPMN version 1 file ({version:#x}), {} bytes, valid",
                    b.len()
                )),
                "{text}"
            );
        }
        for part in ["Layout", "Load cross-checks"] {
            assert!(text.lines().any(|l| l.starts_with(part)), "{name}: {part}");
        }
    }
    assert_eq!((n2, n1), (3, 2));
}

#[test]
fn v2_header_sub_header_and_every_directory_record_are_named_at_their_bytes() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        let Some(v) = v2(b) else { continue };
        let text = explained(name, b);
        let j = inspect::json(b).unwrap();
        let h = v.header();
        // The three header rows of the hexdump, byte for byte.
        for at in [0usize, 16, 32] {
            assert!(
                text.contains(&format!("{at:08x}  {}", hex(&b[at..at + 16]))),
                "{name}: header row {at}"
            );
        }
        let fields = [
            "magic",
            "version",
            "target",
            "crc_sum",
            "total_size_low",
            "total_size_high",
            "sub_header_offset",
            "sub_header_size",
            "sub_header_count",
            "class_word",
            "reserved2",
            "reserved3",
        ];
        for (k, f) in fields.iter().enumerate() {
            row(&text, 4 * k, 4, f, b);
        }
        assert!(row(&text, 0, 4, "magic", b).contains("bytes read \"VPMN\" forwards"));
        assert!(row(&text, 20, 4, "total_size_high", b).contains(&format!(
            "total_size = {} bytes (the file has {})",
            j["header"]["declared_file_size"],
            b.len()
        )));
        assert!(
            row(&text, 12, 4, "crc_sum", b).contains(&format!("{:#010x}", le32(b, 12))),
            "{name}"
        );
        assert!(
            row(&text, 36, 4, "class_word", b).contains(&format!("class (bit 0) = {}", j["class"])),
            "{name}"
        );
        assert_eq!(u64::from(h.total_size_low()), b.len() as u64);

        // Sub-header.
        let sh = j["sub_header_offset"].as_u64().unwrap() as usize;
        assert!(text.contains(&format!("Sub-header (12 bytes at offset {sh}")));
        assert!(text.contains(&format!("{sh:08x}  {}", hex(&b[sh..sh + 12]))));
        for (k, f) in ["sh_offset", "sh_size", "sh_count"].iter().enumerate() {
            row(&text, sh + 4 * k, 4, f, b);
        }
        assert!(
            row(&text, sh + 8, 4, "sh_count", b)
                .contains(&format!("{}: directory records", j["section_header_count"]))
        );

        // Every directory record: heading with its NBG_SECTION_* name, its three hexdump rows,
        // and a row per field, decoded as inspect reports it.
        let dir = j["section_headers_offset"].as_u64().unwrap() as usize;
        let sections = j["sections"].as_array().unwrap();
        assert_eq!(sections.len(), v.sections().len());
        let record_fields = [
            "sd_type",
            "sd_offset_low",
            "sd_offset_high",
            "sd_size_low",
            "sd_size_high",
            "sd_addr_low",
            "sd_addr_high",
            "sd_alignsize",
            "sd_entsize",
            "reserved1",
            "reserved2",
        ];
        for (i, s) in sections.iter().enumerate() {
            let at = dir + 44 * i;
            let tn = s["type_name"].as_str().unwrap();
            assert!(
                text.contains(&format!(
                    "record {i} at {at}: {tn} ({})",
                    s["handling"].as_str().unwrap()
                )),
                "{name}: record {i} heading"
            );
            for r in [0, 16, 32] {
                let end = (r + 16).min(44);
                assert!(
                    text.contains(&format!("{:08x}  {}", at + r, hex(&b[at + r..at + end]))),
                    "{name}: record {i} row {r}"
                );
            }
            for (k, f) in record_fields.iter().enumerate() {
                row(&text, at + 4 * k, 4, f, b);
            }
            assert!(row(&text, at, 4, "sd_type", b).contains(&format!("{} = {tn}", s["type"])));
            assert!(
                row(&text, at + 8, 4, "sd_offset_high", b)
                    .contains(&format!("offset = {} ", s["offset"]))
            );
            assert!(
                row(&text, at + 16, 4, "sd_size_high", b)
                    .contains(&format!("size = {} bytes", s["size"]))
            );
            assert!(
                row(&text, at + 28, 4, "sd_alignsize", b)
                    .contains(&format!("{}: ", s["alignment"]))
            );
            if let Some(n) = s["entries"]
                .as_u64()
                .filter(|_| s["entry_size"].as_u64() > Some(1))
            {
                let noun = if n == 1 { "entry" } else { "entries" };
                assert!(
                    row(&text, at + 32, 4, "sd_entsize", b)
                        .contains(&format!("{n} {noun} of {} bytes", s["entry_size"])),
                    "{name}: record {i}"
                );
            }
        }
        // The directory ends where the first payload begins: nothing between is unexplained.
        assert_eq!(
            dir + 44 * sections.len(),
            sections[0]["offset"].as_u64().unwrap() as usize
        );
    }
}

#[test]
fn v2_layout_is_the_ledger() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        if v2(b).is_none() {
            continue;
        }
        let text = explained(name, b);
        let j = inspect::json(b).unwrap();
        let owners = j["ledger"]["owners"].as_array().unwrap();
        for o in owners {
            let (s, e) = (o["start"].as_u64().unwrap(), o["end"].as_u64().unwrap());
            let line = format!(
                "{s:#08x} .. {e:#08x}  {:>8} bytes  {:<16} {}",
                e - s,
                o["class"].as_str().unwrap(),
                o["what"].as_str().unwrap()
            );
            assert!(text.contains(&line), "{name}: missing layout line {line:?}");
        }
        // Header, sub-header, directory, every payload, and the alignment gaps are named.
        for what in ["format-header", "sub-header", "section-directory"] {
            assert!(
                text.contains(&format!("decoded-record   {what}")),
                "{name}: {what}"
            );
        }
        for (i, s) in j["sections"].as_array().unwrap().iter().enumerate() {
            assert!(
                text.contains(&format!(
                    "section[{i}] {}",
                    s["type_name"].as_str().unwrap()
                )),
                "{name}: section {i} in the layout"
            );
        }
        let gaps = owners.iter().filter(|o| o["class"] == "alignment").count();
        assert_eq!(
            text.matches("alignment        alignment before section[")
                .count(),
            gaps,
            "{name}"
        );
        assert!(gaps >= 2, "{name}: COEF_DATA and PPU_INSTR are aligned");
    }
}

#[test]
fn v2_cross_checks_carry_the_numbers_of_the_view_and_of_inspect() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        let Some(v) = v2(b) else { continue };
        let text = explained(name, b);
        let j = inspect::json(b).unwrap();
        let len = b.len() as u64;
        let h = v.header();
        let sub = v.sub_header();

        holds(
            &text,
            &format!(
                "total_size {} (high {:#x}, low {:#x}) == file length {len}",
                h.total_size(),
                h.total_size_high(),
                h.total_size_low()
            ),
        );
        assert_eq!(j["header"]["declared_file_size"].as_u64(), Some(len));
        holds(&text, "sub_header_count 1 == 1");
        holds(&text, "sub_header_size 12 == 12");
        let sho = j["sub_header_offset"].as_u64().unwrap();
        holds(
            &text,
            &format!(
                "sub_header_offset {sho} + 12 = {} <= file size {len}",
                sho + 12
            ),
        );
        holds(
            &text,
            &format!("sh_size {} == 44", j["section_header_size"]),
        );
        let (so, sc) = (
            j["section_headers_offset"].as_u64().unwrap(),
            j["section_header_count"].as_u64().unwrap(),
        );
        assert_eq!(
            (u64::from(sub.sh_offset()), u64::from(sub.sh_count())),
            (so, sc)
        );
        holds(
            &text,
            &format!(
                "sh_offset {so} + sh_count {sc} * sh_size 44 = {} <= file size {len}",
                so + sc * 44
            ),
        );
        for (i, s) in j["sections"].as_array().unwrap().iter().enumerate() {
            let (o, z) = (s["offset"].as_u64().unwrap(), s["size"].as_u64().unwrap());
            holds(
                &text,
                &format!(
                    "section[{i}] {}: offset {o} + size {z} = {} <= file size {len}",
                    s["type_name"].as_str().unwrap(),
                    o + z
                ),
            );
        }
        // Each CHECKSUM record: stored and computed CRC, equal, as inspect reports them.
        let records = j["section_checksums"].as_array().unwrap();
        assert!(!records.is_empty(), "{name}");
        for (k, c) in records.iter().enumerate() {
            let (rec, comp) = (
                c["recorded_crc32"].as_u64().unwrap(),
                c["computed_crc32"].as_u64().unwrap(),
            );
            assert_eq!(rec, comp, "{name}");
            holds(
                &text,
                &format!(
                    "CHECKSUM record {k} at {}: {} CRC-32 stored {rec:#010x} == computed {comp:#010x}",
                    v.sections()
                        .find(|s| s.sd_type().raw() == 40)
                        .unwrap()
                        .offset()
                        + 8 * k as u64,
                    c["type_name"].as_str().unwrap()
                ),
            );
        }
        // The file CRC: recorded (the header bytes themselves) and computed, equal.
        let fc = &j["file_checksum"];
        let (rec, comp) = (
            fc["recorded_crc32"].as_u64().unwrap(),
            fc["computed_crc32"].as_u64().unwrap(),
        );
        assert_eq!(rec, u64::from(le32(b, 12)));
        assert_eq!(rec, comp);
        holds(
            &text,
            &format!(
                "file CRC-32 over {} payload bytes: recorded crc_sum {rec:#010x} == computed {comp:#010x}",
                fc["covered_section_bytes"]
            ),
        );
        // DYNAIO slots (blendshapes), with the numbers inspect reports.
        if let Some(region) = j["dynaio_region"].as_object() {
            let rs = region["size"].as_u64().unwrap();
            for (k, e) in j["dynaio"].as_array().unwrap().iter().enumerate() {
                let (o, z) = (e["offset"].as_u64().unwrap(), e["size"].as_u64().unwrap());
                holds(
                    &text,
                    &format!(
                        "DYNAIO slot {k}: offset {o} % 64 == 0, size {z} > 0, {o} + {z} = {} <= region size {rs}",
                        o + z
                    ),
                );
            }
        }
    }
}

/// Field positions of the v1 fixed part from 0x00010008 on (spec/nbg-notes.md: the prefix is
/// 92 bytes, the feature database 256, then the pool, AXI and VIP SRAM words).
const V1_FIXED: [(&str, usize, usize); 13] = [
    ("feature_bits", 92, 4),
    ("num_pixel_pipes", 96, 4),
    ("core_count", 100, 1),
    ("feature_reserved", 101, 7),
    ("nbg_crc_sum", 108, 4),
    ("feature_rest", 112, 236),
    ("pool_size", 348, 4),
    ("pool_alignment", 352, 4),
    ("pool_base", 356, 4),
    ("axi_sram_base", 360, 4),
    ("axi_sram_size", 364, 4),
    ("vip_sram_base", 368, 4),
    ("vip_sram_size", 372, 4),
];

#[test]
fn v1_prefix_fixed_part_and_entries_are_named_and_the_opaque_rest_said_so() {
    let Some(files) = corpus() else { return };
    let mut seen = 0;
    for (name, b) in &files {
        let Some(v) = v1(b) else { continue };
        seen += 1;
        let text = explained(name, b);
        let j = inspect::json(b).unwrap();
        let h = v.header();
        let f = v.fixed();
        assert!(h.version() >= 0x0001_0008, "{name}: layout of V1_FIXED");
        // Prefix.
        assert!(text.contains(&format!("00000000  {}", hex(&b[..16]))));
        let prefix = [
            ("magic", 0, 4),
            ("version", 4, 4),
            ("target", 8, 4),
            ("network_name", 12, 64),
            ("layer_count", 76, 4),
            ("operation_count", 80, 4),
            ("input_count", 84, 4),
            ("output_count", 88, 4),
        ];
        for (field, at, size) in prefix {
            row(&text, at, size, field, b);
        }
        assert!(
            row(&text, 12, 64, "network_name", b)
                .contains(&format!("\"{}\"", j["network_name"].as_str().unwrap()))
        );
        assert!(row(&text, 76, 4, "layer_count", b).ends_with(&format!(" {}", j["layer_count"])));
        // Fixed part: every field at its bytes, the values of the generated view.
        assert_eq!(92 + f.as_bytes().len(), 376, "{name}");
        for (field, at, size) in V1_FIXED {
            row(&text, at, size, field, b);
        }
        let dec = |x: u32| format!("{x:#x} = {x}");
        assert!(row(&text, 348, 4, "pool_size", b).contains(&dec(f.pool_size())));
        assert_eq!(
            j["memory_pool"]["size"].as_u64(),
            Some(u64::from(f.pool_size()))
        );
        assert!(row(&text, 352, 4, "pool_alignment", b).contains(&dec(f.pool_alignment())));
        assert!(row(&text, 372, 4, "vip_sram_size", b).contains(&dec(f.vip_sram_size().unwrap())));
        assert_eq!(
            j["vip_sram_bytes"].as_u64(),
            f.vip_sram_size().map(u64::from)
        );
        assert!(
            row(&text, 108, 4, "nbg_crc_sum", b)
                .contains(&format!("{:#010x}: recorded, not checked", le32(b, 108)))
        );
        assert!(row(&text, 101, 7, "feature_reserved", b).contains("OPAQUE"));
        assert!(row(&text, 112, 236, "feature_rest", b).contains("OPAQUE"));
        assert!(
            row(&text, 92, 4, "feature_bits", b)
                .contains(&format!("{:#x}: hi_reorder_fix", le32(b, 92)))
        );
        // Entries: every table, named, at its bytes, with inspect's offset and size.
        let tables = j["tables"].as_array().unwrap();
        assert_eq!(tables.len(), v.entries().len());
        for (k, t) in tables.iter().enumerate() {
            let at = 376 + 8 * k;
            let tn = t["name"].as_str().unwrap();
            assert!(
                text.contains(&format!("entry {k}: {tn}")),
                "{name}: entry {k}"
            );
            assert!(row(&text, at, 4, "offset", b).contains(&format!("= {}", t["offset"])));
            assert!(row(&text, at + 4, 4, "size", b).contains(&format!("{}", t["size"])));
            let (o, z) = (t["offset"].as_u64().unwrap(), t["size"].as_u64().unwrap());
            holds(
                &text,
                &format!(
                    "entry {k} {tn}: offset {o} + size {z} = {} <= file size {}",
                    o + z,
                    b.len()
                ),
            );
        }
        // The unmapped words after the entries: said to be opaque, and dumped.
        let ext = &j["opaque_fixed_extension"];
        let (eo, es) = (
            ext["offset"].as_u64().unwrap(),
            ext["size"].as_u64().unwrap(),
        );
        assert!(
            text.contains(&format!(
                "bytes {eo}..{} ({es} bytes) after the entries, before the first table: OPAQUE",
                eo + es
            )),
            "{name}"
        );
        let eo = eo as usize;
        assert!(text.contains(&format!("{eo:08x}  {}", hex(&b[eo..eo + 16]))));
        // What stays opaque: every preserved-opaque range of the ledger, and the v1 CRC.
        let opaque = text.split("What stays opaque").nth(1).unwrap();
        for o in j["ledger"]["owners"].as_array().unwrap() {
            if o["class"] == "preserved-opaque" {
                assert!(
                    opaque.contains(&format!(
                        "{}: {} bytes at {}",
                        o["what"].as_str().unwrap(),
                        o["size"],
                        o["start"]
                    )),
                    "{name}: {o}"
                );
            }
        }
        assert!(opaque.contains("version 1 has no checked file checksum"));
        // Decoded I/O records and the count checks, with inspect's numbers.
        for (kind, count) in [("input", "input_count"), ("output", "output_count")] {
            let n = j[count].as_u64().unwrap();
            let size = tables[usize::from(kind == "output")]["size"]
                .as_u64()
                .unwrap();
            holds(
                &text,
                &format!("{kind}_count {n} == {kind} table size {size} / 116 = {n}"),
            );
            holds(
                &text,
                &format!("{kind} table size {size} % I/O record size 116 == 0"),
            );
            for (i, r) in j[format!("{kind}s").as_str()]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
            {
                assert!(
                    text.contains(&format!("{kind}[{i}] at "))
                        && text.contains(&format!("\"{}\"", r["name"].as_str().unwrap())),
                    "{name}: {kind}[{i}]"
                );
            }
        }
        holds(&text, "prefix 92 + fixed part 284 = 376 <= file size");
    }
    if seen > 0 {
        assert_eq!(seen, 2);
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\x1b' {
            for d in it.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn colour_is_only_emitted_when_asked() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        let coloured = explain(b, name, Style { color: true }).unwrap();
        let plain = explained(name, b);
        assert!(
            coloured.contains("\x1b[36mmagic"),
            "{name}: field names coloured"
        );
        assert!(
            coloured.contains("\x1b[32mok\x1b[0m"),
            "{name}: checks green"
        );
        assert!(!plain.contains('\x1b'));
        let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(squash(&strip_ansi(&coloured)), squash(&plain), "{name}");
    }
}

/// `explain` on a corrupted file: the validator's error (it must be `code`), the bytes around
/// its offset, and nothing decoded.
fn rejected(name: &str, bad: &[u8], code: &str) {
    let err = Vpmn::validate(bad).unwrap_err();
    assert_eq!(err.code, code, "{name}: {err}");
    let text = match explain(bad, name, Style::PLAIN) {
        Err(ExplainError::Invalid(t)) => t,
        other => panic!("{name}: expected Invalid, got {other:?}"),
    };
    assert!(
        text.starts_with(&format!("{name}: not a valid VPMN file: {err}")),
        "{text}"
    );
    assert!(text.contains(&format!("bytes around offset {:#x}:", err.offset)));
    let r = (err.offset / 16 * 16) as usize;
    assert!(
        text.contains(&format!(
            "{r:08x}  {}",
            hex(&bad[r..(r + 16).min(bad.len())])
        )),
        "{text}"
    );
    for part in [
        "Section directory",
        "Layout",
        "Load cross-checks",
        "Fixed part",
    ] {
        assert!(
            !text.contains(part),
            "{name}: decoded despite the error:\n{text}"
        );
    }
}

#[test]
fn a_corrupted_file_is_not_decoded() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        if let Some(v) = v2(b) {
            let payload = |t: u32| {
                let s = v.sections().find(|s| s.sd_type().raw() == t).unwrap();
                (s.offset() + s.size() / 2) as usize
            };
            // A byte of COEF_DATA (24), which a CHECKSUM record covers.
            let mut bad = b.clone();
            bad[payload(24)] ^= 0x01;
            rejected(name, &bad, "section-checksum-mismatch");
            // A byte of LAYER (3), covered only by the file CRC.
            let mut bad = b.clone();
            bad[payload(3)] ^= 0x80;
            rejected(name, &bad, "file-checksum-mismatch");
        } else {
            let v = v1(b).unwrap();
            // Version 1 has no checked checksum: a flipped payload byte still validates, and
            // explain says the CRC word is not checked.
            let lcd = v.entries().max_by_key(|e| e.size()).unwrap();
            let mut flipped = b.clone();
            flipped[(lcd.offset() + lcd.size() / 2) as usize] ^= 0x01;
            let text = explained(name, &flipped);
            assert!(text.contains("version 1 has no checked file checksum"));
            // A size that is not a whole number of I/O records is refused.
            let mut bad = b.clone();
            bad[380] ^= 0x01; // entry 0 (input) size: 116 -> 117
            rejected(name, &bad, "section-entry-size");
        }
        // A truncated file: the header is refused.
        rejected(name, &b[..20], "truncated-header");
    }
}
