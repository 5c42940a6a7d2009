//! Seeds for `interp_constructs`: one or more files per test schema, each written with the
//! schema's selector byte in front (the order of `SCHEMAS` in
//! fuzz/fuzz_targets/interp_constructs.rs; bit 7 asks the target to reseal checksums).
//! Small files are built byte by byte here (the generated readers are not used to make
//! their own input); the opendir files come from tests/src/opendir_blobs.rs (shared with
//! the tests); PNG, ELF and WAV seeds are real files of this machine.
use std::fs;
use std::path::{Path, PathBuf};

#[path = "../../../tests/src/opendir_blobs.rs"]
#[allow(dead_code)]
mod opendir_blobs;

#[path = "../../../tests/src/nested_blobs.rs"]
#[allow(dead_code)]
mod nested_blobs;

#[path = "../../../tests/src/construct_blobs.rs"]
#[allow(dead_code)]
mod construct_blobs;

/// Selector bytes (index in the target's `SCHEMAS`).
const TLV: u8 = 0;
const SCOPED: u8 = 1;
const PNG: u8 = 2;
const STRTAB: u8 = 3;
const TITLED: u8 = 4;
const ELF: u8 = 5;
const OPENDIR: u8 = 6;
const OBJTAB: u8 = 7;
const CONDITIONAL: u8 = 8;
const FLOATS: u8 = 9;
const BIGEND: u8 = 10;
const ORDERED: u8 = 11;
const PADDED: u8 = 12;
const WAV: u8 = 13;
const NESTED: u8 = 14;
const NAMEDTAB: u8 = 15;
const DIRNOTES: u8 = 16;
const BLOBPACK: u8 = 17;
const NPU1_V2: u8 = 18;
const DIRMIX: u8 = 19;
const SUMSTREAM: u8 = 20;
const TWODIRS: u8 = 21;
const NESTFLAG: u8 = 22;
const WHENW: u8 = 23;
const PLAINLOC: u8 = 24;
const DIRGATE: u8 = 25;
const STRIDED: u8 = 26;
const DIRLABEL: u8 = 27;
const LOCTABLE: u8 = 28;
const DIRREL: u8 = 29;
const DIRWHEN: u8 = 30;
const LINFORMS: u8 = 31;
const SIGTRAIL: u8 = 32;
const TAILTAB: u8 = 33;
const TAILFIX: u8 = 34;
const GATEDW: u8 = 35;
const DIRTAIL: u8 = 36;
const DIRFOOT: u8 = 37;
const DIRINDEX: u8 = 38;
const DIROPT: u8 = 39;
const DIRLIN: u8 = 40;
const LOCLIN: u8 = 41;
const DIRGATEW: u8 = 42;
const ZIP: u8 = 43;
const PCAP: u8 = 44;
const TIFF: u8 = 45;
const MO: u8 = 46;
const OPENTYPE: u8 = 47;

fn le32(out: &mut Vec<u8>, ws: &[u32]) {
    for w in ws {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// A `padded.yaml` file: `reserved` zero bytes, the records (`(kind, body)`), `tail` 0xEE
/// bytes.
fn padded(reserved: usize, records: &[(u16, Vec<u8>)], tail: usize) -> Vec<u8> {
    let mut body = Vec::new();
    for (kind, b) in records {
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&(b.len() as u16).to_le_bytes());
        body.extend_from_slice(b);
    }
    let mut out = Vec::new();
    le32(
        &mut out,
        &[0x5344_4150, reserved as u32, body.len() as u32, tail as u32],
    );
    out.resize(out.len() + reserved, 0);
    out.extend(body);
    out.resize(out.len() + tail, 0xEE);
    out
}

/// A `padded.yaml` blob body: `used`, the data, `pad` bytes of 0xFF.
fn padded_blob(data: &[u8], pad: usize) -> Vec<u8> {
    let mut b = (data.len() as u16).to_le_bytes().to_vec();
    b.extend_from_slice(data);
    b.resize(b.len() + pad, 0xFF);
    b
}

fn tlv(records: &[(u16, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, (kind, b)) in records.iter().enumerate() {
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&(b.len() as u16).to_le_bytes());
        body.extend_from_slice(b);
        if i + 1 < records.len() {
            while body.len() % 4 != 0 {
                body.push(0);
            }
        }
    }
    let mut out = Vec::new();
    le32(
        &mut out,
        &[0x3156_4C54, body.len() as u32, records.len() as u32],
    );
    out.extend(body);
    out
}

fn scoped(version: u32, flags: u32, entries: &[(u32, u32)], extras: &[(u16, u16)]) -> Vec<u8> {
    let extras_at = 24 + 8 * entries.len();
    let mut out = Vec::new();
    le32(
        &mut out,
        &[
            0x504F_4353,
            version,
            flags,
            entries.len() as u32,
            extras_at as u32,
            extras.len() as u32,
        ],
    );
    for (o, s) in entries {
        le32(&mut out, &[*o, *s]);
    }
    for (t, l) in extras {
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&l.to_le_bytes());
    }
    out.extend([0u8; 16]);
    out
}

/// `sections`: (name offset, kind, link); kind 3 is a string table (the names), 1 data.
/// A `sumstream` file: records of (kind, body), 4-aligned, each with the CRC-32 of its body
/// (what its stream writer writes; tests/tests/schema_constructs.rs).
fn sumstream(records: &[(u16, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, (kind, b)) in records.iter().enumerate() {
        if i > 0 {
            while body.len() % 4 != 0 {
                body.push(0);
            }
        }
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&(b.len() as u16).to_le_bytes());
        body.extend_from_slice(&npuschema_core::crc32(0, b).to_le_bytes());
        body.extend_from_slice(b);
    }
    let mut out = Vec::new();
    le32(&mut out, &[0x4D55_5353, body.len() as u32]);
    out.extend_from_slice(&body);
    out
}

/// The `dirmix` file tests/tests/schema_constructs.rs has its directory writer write
/// (`the_directory_writer_places_tables_streams_and_string_tables`), laid out by hand: the
/// header, `info`, two sections, two symbols, the string table, two log entries, the
/// payloads, the symbols' bytes and labels, `extra`, and the CRC-32 of everything after the
/// header.
fn dirmix() -> Vec<u8> {
    let mut out = Vec::new();
    le32(&mut out, &[0x5849_4D44]);
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&0x11u16.to_le_bytes());
    // section_offset, info_offset, log_offset, log_size, names_offset, names_size,
    // title_offset, crc (below).
    le32(&mut out, &[60, 40, 132, 12, 124, 8, 6, 0]);
    le32(&mut out, &[84, 2, 20, 2, 164]);
    for (kind, entsize, offset, size) in [(1u16, 0u16, 144u32, 5u32), (2, 4, 152, 2)] {
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&entsize.to_le_bytes());
        le32(&mut out, &[offset, size]);
    }
    le32(&mut out, &[0, 160, (-5i32) as u32, 156, 2]);
    le32(&mut out, &[2, 163, 9, 160, 0]);
    out.extend_from_slice("f\0gé\0T\0".as_bytes());
    out.extend_from_slice(b"\x01\x00\x03\x00xyz\0\x02\x00\x00\x00");
    out.extend_from_slice(b"CODE!\0\0\0dd\0\0AB\0\0\x02L1\x00");
    // `extra` in its version-2 layout: base, added, old, tail.
    out.extend_from_slice(b"\xB3\xB2\xB1\xB0\xA3\xA2\xA1\xA0\xC1\xC0\x50");
    let crc = npuschema_core::crc32(0, &out[40..]);
    out[36..40].copy_from_slice(&crc.to_le_bytes());
    out
}

fn strtab(sections: &[(u32, u16, u16)], names: &[u8], title: &[u8]) -> Vec<u8> {
    let names_at = 16 + 16 * sections.len();
    let data_at = names_at + names.len();
    let mut out = Vec::new();
    out.extend_from_slice(&0x3152_5453u32.to_le_bytes());
    out.extend_from_slice(&(sections.len() as u16).to_le_bytes());
    let names_index = sections.iter().position(|s| s.1 == 3).unwrap_or(0);
    out.extend_from_slice(&(names_index as u16).to_le_bytes());
    le32(&mut out, &[16, (data_at + 4) as u32]);
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
        le32(&mut out, &[offset, size]);
    }
    out.extend_from_slice(names);
    out.extend_from_slice(&[1, 2, 3, 4]);
    out.extend_from_slice(&(title.len() as u16).to_le_bytes());
    out.extend_from_slice(title);
    out
}

/// Big-endian header (magic, count, title offset, comment offset), `count` words, a
/// u16-prefixed title, then a NUL-terminated comment at a 4-aligned offset.
fn titled(values: &[u32], title: &[u8], comment: &[u8]) -> Vec<u8> {
    let title_at = 16 + 4 * values.len();
    let comment_at = (title_at + 2 + title.len()).div_ceil(4) * 4;
    let mut out = Vec::new();
    for w in [
        0x5454_4C31,
        values.len() as u32,
        title_at as u32,
        comment_at as u32,
    ] {
        out.extend_from_slice(&w.to_be_bytes());
    }
    for v in values {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(&(title.len() as u16).to_be_bytes());
    out.extend_from_slice(title);
    out.resize(comment_at, 0);
    out.extend_from_slice(comment);
    out.push(0);
    out
}

fn objtab(kinds: &[u32]) -> Vec<u8> {
    let data_at = 16 + 24 * kinds.len();
    let mut out = Vec::new();
    le32(&mut out, &[0x4A42_4F7F]);
    out.extend_from_slice(&40u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    le32(&mut out, &[16, kinds.len() as u32]);
    for (i, &kind) in kinds.iter().enumerate() {
        let i = i as u32;
        let offset = if kind == 8 {
            0xFFFF_FFF0
        } else {
            data_at as u32 + 4 * i
        };
        le32(&mut out, &[i, kind, 0b010, offset, 4, 4]);
    }
    out.extend(std::iter::repeat_n(0xAB, 4 * kinds.len()));
    out
}

fn conditional(version: u32, flags: u32, notes: (u32, u32), count: u32, body: usize) -> Vec<u8> {
    let mut out = Vec::new();
    le32(
        &mut out,
        &[0x444E_4F43, version, flags, notes.0, notes.1, count],
    );
    out.extend(std::iter::repeat_n(0x11, body));
    out
}

fn floats(scale: f32, bias: f64, samples: &[(f32, f64)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0x5441_4C46u32.to_le_bytes());
    b.extend_from_slice(&scale.to_le_bytes());
    b.extend_from_slice(&bias.to_le_bytes());
    le32(&mut b, &[samples.len() as u32, 0]);
    for (v, w) in samples {
        b.extend_from_slice(&v.to_le_bytes());
        b.extend_from_slice(&w.to_le_bytes());
    }
    b
}

/// Big-endian header, little-endian chunks (tag big-endian): a stored text chunk and a
/// reserved blob; the CRC is left to the target (selector bit 7).
fn bigend() -> Vec<u8> {
    let total = 24 + 2 * 16 + 5;
    let mut b = Vec::new();
    for w in [0x4245_3031u32, total as u32] {
        b.extend_from_slice(&w.to_be_bytes());
    }
    b.extend_from_slice(&2u16.to_be_bytes());
    b.extend_from_slice(&0x1234u16.to_le_bytes());
    b.extend_from_slice(&0u32.to_be_bytes());
    b.extend_from_slice(&(-2.5f64).to_be_bytes());
    for (kind, flags, offset, size, tag) in
        [(1u16, 1u16, 56u32, 5u32, 0x0102_0304u32), (2, 0, 0, 9, 7)]
    {
        b.extend_from_slice(&kind.to_le_bytes());
        b.extend_from_slice(&flags.to_le_bytes());
        b.extend_from_slice(&offset.to_le_bytes());
        b.extend_from_slice(&size.to_le_bytes());
        b.extend_from_slice(&tag.to_be_bytes());
    }
    b.extend_from_slice(b"hello");
    b
}

fn ordered(
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
    b
}

/// Up to `max` files under `dir` (recursively, path order) smaller than `limit` bytes whose
/// name or first bytes `want` accepts.
fn real_files(
    dir: &Path,
    limit: u64,
    max: usize,
    want: &dyn Fn(&Path, &[u8]) -> bool,
) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let Ok(m) = fs::symlink_metadata(&p) else {
                continue;
            };
            if m.is_dir() {
                stack.push(p);
            } else if m.is_file() && m.len() < limit {
                let head = fs::read(&p)
                    .map(|b| b[..b.len().min(16)].to_vec())
                    .unwrap_or_default();
                if want(&p, &head) {
                    found.push(p);
                }
            }
        }
        if found.len() >= max {
            break;
        }
    }
    found.sort();
    found.truncate(max);
    found
}

/// Write the seeds into `dir`; returns how many.
pub fn write_seeds(dir: &Path) -> usize {
    let mut point = Vec::new();
    point.extend_from_slice(&(-3i32).to_le_bytes());
    point.extend_from_slice(&9i32.to_le_bytes());
    let note: &[u8] = &[7, 0, 5, 0, b'h', b'e', b'l', b'l', b'o'];
    // The spans of tests/tests/interp_differential.rs: after the 20-byte header and three
    // 12-byte records, the body at 56.
    let spans = [(1, 1, 56, 4), (2, 1, 60, 2), (1, 3, 60, 4)];
    let mut seeds: Vec<(String, u8, Vec<u8>)> = vec![
        (
            "tlv-mixed".into(),
            TLV,
            tlv(&[
                (1, note),
                (2, &point),
                (0x7003, &[1, 2, 3]),
                (0x7FFF, &[]),
                (0, &[]),
            ]),
        ),
        ("tlv-end".into(), TLV, tlv(&[(0, &[])])),
        (
            "scoped-v2".into(),
            SCOPED,
            scoped(2, 1, &[(0, 4), (10, 20)], &[(1, 3), (2, 32)]),
        ),
        (
            "scoped-v1".into(),
            SCOPED,
            scoped(1, 1, &[(4, 4)], &[(0, 40)]),
        ),
        (
            "strtab".into(),
            STRTAB,
            strtab(
                &[(0, 0, 0), (1, 3, 0), (8, 1, 1), (14, 8, 0)],
                b"\0.names\0.data\0.bss\0",
                b"title",
            ),
        ),
        (
            "titled".into(),
            TITLED,
            titled(&[1, 2, 3], b"a title", b"a comment"),
        ),
        ("objtab".into(), OBJTAB, objtab(&[1, 2, 8, 3])),
        (
            "conditional-v1".into(),
            CONDITIONAL,
            conditional(1, 1, (24, 3), 0, 4),
        ),
        (
            "conditional-v2".into(),
            CONDITIONAL,
            conditional(2, 0b11, (26, 2), 4, 4),
        ),
        (
            "floats".into(),
            FLOATS,
            floats(1.5, -0.25, &[(0.5, 2.0), (-1.0, 8.0)]),
        ),
        ("bigend".into(), BIGEND | 0x80, bigend()),
        (
            "ordered".into(),
            ORDERED | 0x80,
            ordered(1, 64, 0, &spans, 8),
        ),
        (
            "ordered-reserve".into(),
            ORDERED | 0x80,
            ordered(0, 100, 32, &spans, 8),
        ),
        (
            "nested".into(),
            NESTED,
            nested_blobs::file(&[(5, 3), (1000, 7)], 2),
        ),
        ("dirmix".into(), DIRMIX | 0x80, dirmix()),
        (
            "sumstream".into(),
            SUMSTREAM | 0x80,
            sumstream(&[(1, b"hello"), (2, b""), (3, b"a longer body")]),
        ),
    ];
    seeds.push((
        "padded".into(),
        PADDED,
        padded(
            4,
            &[
                (1, padded_blob(b"abc", 3)),
                (2, vec![9, 9]),
                (1, padded_blob(&[], 0)),
            ],
            2,
        ),
    ));
    seeds.push((
        "namedtab".into(),
        NAMEDTAB,
        construct_blobs::namedtab_file(
            b"label",
            &[
                (b"alpha", b"a note", 1),
                (b"", b"", 2),
                ("größe".as_bytes(), b"x", 3),
            ],
        ),
    ));
    seeds.push((
        "namedtab-empty".into(),
        NAMEDTAB,
        construct_blobs::namedtab_file(b"", &[]),
    ));
    seeds.push((
        "dirnotes".into(),
        DIRNOTES | 0x80,
        construct_blobs::dirnotes_file(
            &[(2, 0, b"data"), (1, 4, b"code bytes"), (3, 0, b"")],
            b"notes!",
            b"tail",
            "ünïcode".as_bytes(),
        ),
    ));
    seeds.push((
        "dirnotes-empty".into(),
        DIRNOTES | 0x80,
        construct_blobs::dirnotes_file(&[], b"", b"", b""),
    ));
    seeds.push((
        "blobpack".into(),
        BLOBPACK | 0x80,
        construct_blobs::blobpack_file(),
    ));
    seeds.push((
        "npu1_v2".into(),
        NPU1_V2 | 0x80,
        construct_blobs::npu1_v2_file(&[(0, Ok(&[5; 40])), (1, Err(64))], &[1, 2, 3, 4], 0xC0FFEE),
    ));
    seeds.push((
        "twodirs".into(),
        TWODIRS | 0x80,
        construct_blobs::twodirs_file(
            &[
                (1, 0, 16, &[1, 2, 3, 4, 5]),
                (2, 0, 0, b"hello world"),
                (3, 8, 4, &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]),
            ],
            &[
                (2, 0, 8, &[0x41, 0, 0, 0, 8, 0, 12, 0]),
                (0x7000_0001, 4, 0, b"VB"),
                (0x7FFF_0000, 0, 0, b"??"),
            ],
        ),
    ));
    seeds.push((
        "nestflag".into(),
        NESTFLAG,
        construct_blobs::nestflag_file(&[
            (0, 9, 7, 100, b"first"),
            (1, 0, 7, 101, b""),
            (2, 1, 0, 102, b"xy"),
        ]),
    ));
    seeds.push((
        "whenw".into(),
        WHENW,
        construct_blobs::whenw_file(
            (3, 1, 0b10),
            &[(7, 70), (8, 80)],
            Some(&[0xA, 0xB, 0xC]),
            Some(b"ext!!"),
            Some(b"xy"),
            Some(b"n"),
        ),
    ));
    seeds.push((
        "whenw-v1".into(),
        WHENW,
        construct_blobs::whenw_file((1, 0, 0b10), &[], None, None, None, None),
    ));
    seeds.push((
        "plainloc".into(),
        PLAINLOC | 0x80,
        construct_blobs::plainloc_file(
            (0x11, 3),
            2,
            &[(1, -2), (3, 4)],
            b"hello",
            (0xB0B1_B2B3, 0xA0A1_A2A3, 0xC0C1, 0x50),
        ),
    ));
    seeds.push((
        "dirgate".into(),
        DIRGATE,
        construct_blobs::dirgate_file(
            0x0002_0005,
            &[(1, 0, b"text", b"CODE!"), (2, 4, b"dat", b"dd")],
            (0xB0B1_B2B3, 0xC0C1, 0x50),
        ),
    ));
    seeds.push((
        "dirgate-v1".into(),
        DIRGATE,
        construct_blobs::dirgate_file(0x0001_0000, &[(2, 0, b"", b"x")], (1, 2, 3)),
    ));
    seeds.push((
        "dirwhen".into(),
        DIRWHEN | 0x80,
        construct_blobs::dirwhen_file(
            (3, 0),
            &[(1, 0, Some(b"abcde")), (8, 0, None), (2, 2, Some(b"xy"))],
            &[(0x7000_0001, 2, 0, Some(b"BLOB")), (5, 1, 0, None)],
            Some(&[0xA, 0xB]),
            Some(&[(7, 70)]),
            Some(b"ext"),
            Some(b"n"),
        ),
    ));
    seeds.push((
        "dirwhen-v1".into(),
        DIRWHEN | 0x80,
        construct_blobs::dirwhen_file(
            (1, 2),
            &[(8, 0, None)],
            &[(5, 1, 0, None)],
            None,
            None,
            None,
            None,
        ),
    ));
    seeds.push((
        "plainloc-v3".into(),
        PLAINLOC | 0x80,
        construct_blobs::plainloc_file((0, 0), 3, &[], b"", (1, 2, 3, 4)),
    ));
    seeds.push((
        "strided".into(),
        STRIDED,
        construct_blobs::strided_file(&[(0, 0), (1, 7), (2, 14)], [(1, 2), (0, 0), (5, 9)]),
    ));
    seeds.push((
        "strided-empty".into(),
        STRIDED,
        construct_blobs::strided_file(&[], [(0, 1), (2, 3), (4, 5)]),
    ));
    seeds.push((
        "dirlabel".into(),
        DIRLABEL,
        construct_blobs::dirlabel_file(&[(1, b"CODE!", "text"), (9, b"", ""), (2, b"dd", "d\u{e4}t\u{e4}")]),
    ));
    seeds.push((
        "loctable".into(),
        LOCTABLE | 0x80,
        construct_blobs::loctable_file(5, 0xDEAD_BEEF, &[(1, -2), (3, 4)], &[0x0102_0304], "Tafel"),
    ));
    seeds.push((
        "loctable-empty".into(),
        LOCTABLE | 0x80,
        construct_blobs::loctable_file(0, 0, &[], &[7, 8], ""),
    ));
    seeds.push((
        "dirrel".into(),
        DIRREL | 0x80,
        construct_blobs::dirrel_file(
            0xB1D,
            &[
                (1, 0x10, 0, b"CODE!", Ok(b"RELOC001RELOC002")),
                (2, 0x10, 0, b"dd", Err(0)),
                (3, 0, 0, b"", Ok(b"RELOC003")),
            ],
            "rel",
        ),
    ));
    seeds.push((
        "linforms".into(),
        LINFORMS,
        construct_blobs::linforms_file(
            &[(1, &[7u8; 8]), (2, &[8u8; 4])],
            &[(1, 2), (3, 4)],
            b"word",
            b"note!",
            (*b"STMP", b"body", *b"trailer!"),
        ),
    ));
    seeds.push((
        "sigtrail".into(),
        SIGTRAIL,
        construct_blobs::sigtrail_file(7, b"the body", b"SIGNATURE"),
    ));
    // `diropt`: the tags given (their bytes, names, labels) and left out; the CRC resealed
    // from where `info` says.
    let diropt_secs: [construct_blobs::DirOptSection<'_>; 3] = [
        (1, 3, 0, Some(b"abcde")),
        (2, 1, 0, None),
        (2, 1, 2, Some(b"xy")),
    ];
    seeds.push((
        "diropt".into(),
        DIROPT | 0x80,
        construct_blobs::diropt_file(
            (2, 9, 40, 0x1234),
            b"diropt",
            &diropt_secs,
            Some(&[(7, b"first", b"L1", b"BLOB!"), (8, b"", b"", b"")]),
        ),
    ));
    seeds.push((
        "diropt-none".into(),
        DIROPT | 0x80,
        construct_blobs::diropt_file((1, 9, 80, 0x1234), b"", &diropt_secs[1..], None),
    ));
    seeds.push((
        "tailtab".into(),
        TAILTAB,
        construct_blobs::tailtab_file(&[(1, b"first"), (2, b""), (3, b"the third blob")]),
    ));
    seeds.push((
        "tailfix".into(),
        TAILFIX,
        construct_blobs::tailfix_file(b"a body", [(10, 1), (11, 2), (12, 3), (13, 4)]),
    ));
    for version in [1u16, 2] {
        seeds.push((
            format!("gatedw-v{version}"),
            GATEDW | 0x80,
            construct_blobs::gatedw_file(&construct_blobs::GatedWParts {
                version,
                flags: 2,
                legacy: 9,
                body: b"the body",
                notes: (version >= 2).then_some(&b"notes"[..]),
                extra: Some(b"EXTRA"),
                log: &[1, 0, 3, 0, b'a', b'b', b'c', 0, 2, 0, 0, 0],
                marks: &[1, 2],
                stamp: 0x1122_3344_5566_7788,
                title: b"gated",
            }),
        ));
    }
    let secs: &[(u32, u32, &[u8])] = &[(1, 0, b"first"), (0x7000_0003, 4, b"abcdefgh")];
    seeds.push((
        "dirtail".into(),
        DIRTAIL,
        construct_blobs::dirtail_file(2, b"12345678", secs, b"a body", b"SIG-OK"),
    ));
    seeds.push(("dirfoot".into(), DIRFOOT, construct_blobs::dirfoot_file(4, 77, secs)));
    seeds.push((
        "dirindex".into(),
        DIRINDEX,
        construct_blobs::dirindex_file(secs, &[(0, 100), (1, 101)]),
    ));
    seeds.push((
        "dirlin".into(),
        DIRLIN,
        construct_blobs::dirlin_file(
            &[(1, 0, b"CODE"), (2, 2, b"data!!"), (2, 0, b"")],
            b"some notes",
            &[(7, b"mark"), (8, b"")],
            b"dirlin",
        ),
    ));
    seeds.push((
        "loclin".into(),
        LOCLIN,
        construct_blobs::loclin_file(&[(1, 10), (2, 20)], b"blob", 7),
    ));
    for (version, extra) in [(1u16, None), (2, Some(&b"extra"[..]))] {
        seeds.push((
            format!("dirgatew-v{version}"),
            DIRGATEW | 0x80,
            construct_blobs::dirgatew_file(
                version,
                2,
                5,
                &[(3, 4, b"abcdefgh"), (1, 0, b"")],
                extra,
                b"t",
            ),
        ));
    }
    seeds.push((
        "opendir".into(),
        OPENDIR | 0x80,
        opendir_blobs::file(&opendir_blobs::sections()),
    ));
    for p in real_files(Path::new("/usr/share"), 8 << 10, 8, &|p, h| {
        p.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) && h.starts_with(b"\x89PNG")
    }) {
        seeds.push((
            format!("png-{}", p.display()).replace('/', "_"),
            PNG | 0x80,
            fs::read(&p).unwrap_or_default(),
        ));
    }
    for p in real_files(Path::new("/usr/share"), 8 << 10, 8, &|p, h| {
        p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wav")) && h.starts_with(b"RIFF")
    }) {
        seeds.push((
            format!("wav-{}", p.display()).replace('/', "_"),
            WAV,
            fs::read(&p).unwrap_or_default(),
        ));
    }
    // A format chunk as WAVEFORMATEXTENSIBLE (no real file here has one): the records
    // present only when the chunk has them.
    let mut ext = b"RIFF\x44\0\0\0WAVEfmt \x28\0\0\0\xfe\xff\x02\0\x44\xac\0\0\x10\xb1\x02\0\x04\0\x10\0\x16\0\x10\0\x03\0\0\0".to_vec();
    ext.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]);
    ext.extend_from_slice(b"data\x08\0\0\0\x01\0\x02\0\x03\0\x04\0");
    seeds.push(("wav-extensible".to_string(), WAV, ext));
    // LIST chunks nested two deep (records nested in the stream's records), odd sub-chunks
    // at their LIST's end without a pad byte.
    let mut lists = b"RIFF\x5e\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0".to_vec();
    lists.extend_from_slice(b"LIST\x29\0\0\0adtlLIST\x13\0\0\0INFOISFT\x07\0\0\0deeper!\0note\x01\0\0\0x\0");
    lists.extend_from_slice(b"data\x08\0\0\0\x01\0\x02\0\x03\0\x04\0");
    seeds.push(("wav-lists".to_string(), WAV, lists));
    // Small ZIP archives (Python wheels and the like): the end record found by its search.
    for root in ["/usr/share", "/usr/lib"] {
        for p in real_files(Path::new(root), 64 << 10, 4, &|p, h| {
            p.extension().is_some_and(|e| e == "zip" || e == "whl" || e == "jar")
                && h.starts_with(b"PK")
        }) {
            seeds.push((
                format!("zip-{}", p.display()).replace('/', "_"),
                ZIP,
                fs::read(&p).unwrap_or_default(),
            ));
        }
    }
    // A streamed archive (APPNOTE 4.3.9): entries whose flag bit 3 puts a data descriptor
    // after their data, with its signature and without it, and a plain entry after them.
    seeds.push(("zip-descriptors".to_string(), ZIP, streamed_zip()));
    // Captures (python3-dpkt's examples): a byte order and resolution from the magic.
    for p in real_files(Path::new("/usr/share"), 32 << 10, 4, &|p, h| {
        p.extension().is_some_and(|e| e == "pcap" || e == "cap")
            && (h.starts_with(&[0xD4, 0xC3, 0xB2, 0xA1]) || h.starts_with(&[0xA1, 0xB2, 0xC3, 0xD4]))
    }) {
        seeds.push((
            format!("pcap-{}", p.display()).replace('/', "_"),
            PCAP,
            fs::read(&p).unwrap_or_default(),
        ));
    }
    // TIFF files (checkit-tiff's test files): the byte order from II/MM, the IFD chain.
    for p in real_files(Path::new("/usr/share"), 16 << 10, 6, &|p, h| {
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("tif") || e.eq_ignore_ascii_case("tiff"))
            && (h.starts_with(b"II") || h.starts_with(b"MM"))
    }) {
        seeds.push((
            format!("tiff-{}", p.display()).replace('/', "_"),
            TIFF,
            fs::read(&p).unwrap_or_default(),
        ));
    }
    // A chain of three IFDs in each byte order (one entry each), and the same with the last
    // IFD's link back to the second (a cycle).
    for big in [false, true] {
        let w16 = |v: u16| if big { v.to_be_bytes() } else { v.to_le_bytes() };
        let w32 = |v: u32| if big { v.to_be_bytes() } else { v.to_le_bytes() };
        let mut t = if big { b"MM".to_vec() } else { b"II".to_vec() };
        t.extend_from_slice(&w16(42));
        t.extend_from_slice(&w32(8));
        for (k, next) in [26u32, 44, 0].into_iter().enumerate() {
            t.extend_from_slice(&w16(1));
            t.extend_from_slice(&w16(256 + k as u16));
            t.extend_from_slice(&w16(3));
            t.extend_from_slice(&w32(1));
            t.extend_from_slice(&w32(7));
            t.extend_from_slice(&w32(next));
        }
        let order = if big { "be" } else { "le" };
        seeds.push((format!("tiff-chain-{order}"), TIFF, t.clone()));
        let n = t.len();
        t[n - 4..].copy_from_slice(&w32(26));
        seeds.push((format!("tiff-cycle-{order}"), TIFF, t));
    }
    // GNU gettext catalogs (every package's translations): the byte order from the magic,
    // two string tables, the sorted msgids, the hash table.
    for p in real_files(Path::new("/usr/share/locale"), 4 << 10, 4, &|p, h| {
        p.extension().is_some_and(|e| e == "mo") && h.starts_with(&[0xDE, 0x12, 0x04, 0x95])
    }) {
        seeds.push((
            format!("mo-{}", p.display()).replace('/', "_"),
            MO,
            fs::read(&p).unwrap_or_default(),
        ));
    }
    // A catalog of two messages in each byte order (as tests/tests/mo_real.rs writes it).
    for big in [false, true] {
        let w = |v: u32| if big { v.to_be_bytes() } else { v.to_le_bytes() };
        let mut c = Vec::new();
        for v in [0x9504_12de_u32, 0, 2, 28, 44, 0, 60] {
            c.extend_from_slice(&w(v));
        }
        for (len, at) in [(1u32, 60u32), (1, 62), (1, 64), (2, 66)] {
            c.extend_from_slice(&w(len));
            c.extend_from_slice(&w(at));
        }
        c.extend_from_slice(b"a\0b\0x\0yz\0");
        let order = if big { "be" } else { "le" };
        seeds.push((format!("mo-two-{order}"), MO, c));
    }
    // A font of two tables: the table directory (sorted tags, the binary search fields),
    // each table 4-aligned with its checksum; and the same with the tables overlapping.
    seeds.push(("opentype-four".to_string(), OPENTYPE, small_font(false)));
    seeds.push(("opentype-overlap".to_string(), OPENTYPE, small_font(true)));
    // Other targets' shared objects (s390x's, PowerPC's and ARM's C libraries): the layout
    // from EI_CLASS, the byte order from EI_DATA.
    let cross = [
        "/usr/s390x-linux-gnu/lib",
        "/usr/powerpc-linux-gnu/lib",
        "/usr/arm-linux-gnueabihf/lib",
    ];
    for p in cross.iter().flat_map(|d| {
        real_files(Path::new(d), 64 << 10, 2, &|_, h| h.starts_with(b"\x7fELF"))
    }) {
        seeds.push((
            format!("elfbe-{}", p.display()).replace('/', "_"),
            ELF,
            fs::read(&p).unwrap_or_default(),
        ));
    }
    // Small relocatable objects (the C runtime's crt*.o) and executables.
    let elf = |_: &Path, h: &[u8]| h.starts_with(b"\x7fELF\x02\x01");
    let objects = real_files(
        Path::new("/usr/lib/x86_64-linux-gnu"),
        8 << 10,
        4,
        &|p, h| p.extension().is_some_and(|e| e == "o") && elf(p, h),
    );
    for p in objects
        .into_iter()
        .chain(real_files(Path::new("/usr/bin"), 40 << 10, 4, &elf))
    {
        seeds.push((
            format!("elf-{}", p.display()).replace('/', "_"),
            ELF,
            fs::read(&p).unwrap_or_default(),
        ));
    }
    let out = dir.join("interp_constructs");
    fs::create_dir_all(&out).expect("create corpus dir");
    for (name, pick, bytes) in &seeds {
        let mut seed = vec![*pick];
        seed.extend_from_slice(bytes);
        fs::write(out.join(name), seed).expect("write seed");
    }
    seeds.len()
}

/// Three stored entries of 4 bytes: the first two streamed (flag bit 3, zeros in the local
/// header), their data descriptors with and without the signature, the third plain.
fn streamed_zip() -> Vec<u8> {
    let data = b"abcd";
    // CRC-32 (IEEE) of "abcd".
    let crc = 0xED82_CD11u32;
    let mut b = Vec::new();
    let mut locals = Vec::new();
    for (i, kind) in [Some(true), Some(false), None].into_iter().enumerate() {
        locals.push(b.len() as u32);
        let flags: u16 = if kind.is_some() { 8 } else { 0 };
        let sums = if kind.is_some() { [0, 0, 0] } else { [crc, 4, 4] };
        b.extend_from_slice(&0x0403_4B50u32.to_le_bytes());
        for x in [20u16, flags, 0, 0, 0x21] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        for x in sums {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&6u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(format!("a{i}.txt").as_bytes());
        b.extend_from_slice(data);
        let words: &[u32] = match kind {
            Some(true) => &[0x0807_4B50, crc, 4, 4],
            Some(false) => &[crc, 4, 4],
            None => &[],
        };
        for x in words {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    let cd = b.len() as u32;
    for (i, at) in locals.iter().enumerate() {
        let flags: u16 = if i < 2 { 8 } else { 0 };
        b.extend_from_slice(&0x0201_4B50u32.to_le_bytes());
        for x in [20u16, 20, flags, 0, 0, 0x21] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        for x in [crc, 4, 4] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        for x in [6u16, 0, 0, 0, 0] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&at.to_le_bytes());
        b.extend_from_slice(format!("a{i}.txt").as_bytes());
    }
    let cd_len = b.len() as u32 - cd;
    b.extend_from_slice(&0x0605_4B50u32.to_le_bytes());
    for x in [0u16, 0, 3, 3] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.extend_from_slice(&cd_len.to_le_bytes());
    b.extend_from_slice(&cd.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b
}

/// A TrueType font of four tables (`cmap`, 5 bytes, and the three every font has: `head`,
/// `hhea` and `maxp`, as long as their fields, `head`'s version, magic number, unitsPerEm and
/// indexToLocFormat right) as `formats/opentype.yaml` reads it: the directory, then each
/// table 4-aligned and zero-padded, each record's checksum the sum of its table's big-endian
/// words, `head`'s checkSumAdjustment making the whole font sum to 0xB1B0AFBA. With
/// `overlap`, the `hhea` record points at the first table (its checksum over the bytes
/// there), so the tables share bytes and every other rule holds.
fn small_font(overlap: bool) -> Vec<u8> {
    let mut head = [0u8; 54];
    head[0..2].copy_from_slice(&1u16.to_be_bytes()); // majorVersion
    head[12..16].copy_from_slice(&0x5F0F_3CF5u32.to_be_bytes()); // magicNumber
    head[18..20].copy_from_slice(&1000u16.to_be_bytes()); // unitsPerEm
    let mut maxp = [0u8; 6];
    maxp[0..4].copy_from_slice(&0x0000_5000u32.to_be_bytes());
    maxp[4..6].copy_from_slice(&3u16.to_be_bytes()); // numGlyphs
    let tables: [(u32, &[u8]); 4] = [
        (0x636D_6170, b"\x00\x01\x02\x03\x04"),
        (0x6865_6164, &head),
        (0x6868_6561, &[0; 36]),
        (0x6D61_7870, &maxp),
    ];
    let mut f = Vec::new();
    // sfntVersion, numTables, searchRange, entrySelector, rangeShift.
    for v in [0x0001u16, 0x0000, 4, 64, 2, 0] {
        f.extend_from_slice(&v.to_be_bytes());
    }
    let mut at = 12 + 16 * tables.len();
    let mut data = Vec::new();
    for (k, (tag, body)) in tables.iter().enumerate() {
        let place = if overlap && k == 2 { 12 + 16 * tables.len() } else { at };
        for v in [*tag, 0, place as u32, body.len() as u32] {
            f.extend_from_slice(&v.to_be_bytes());
        }
        data.extend_from_slice(body);
        while data.len() % 4 != 0 {
            data.push(0);
        }
        at = 12 + 16 * tables.len() + data.len();
    }
    f.extend_from_slice(&data);
    // Each record's checksum over the bytes it points at, then the adjustment.
    construct_blobs::opentype_reseal(&mut f);
    f
}
