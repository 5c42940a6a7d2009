//! The interpreter's lowered path (`codegen/src/interp/fast.rs`) held to its generic path:
//! the same verdict, the same `Error` and `Brief`, and the same view, on the shipped
//! formats' real files and fixtures and their mutants, on every test schema, and on a
//! schema written here that uses every expression and step kind the lowering knows (and
//! some it hands back to the generic path). Debug builds also compare the two paths inside
//! every run (`Interp::exec_file`), so every other interpreter test checks this too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

mod vpmn_util;

use std::path::Path;

use npuschema_codegen::interp::Interp;
use npuschema_core::{Brief, Error};
use npuschema_tests::npu1_blobs::{blob, mutate, xorshift};

/// Both paths on `b`: they must agree entirely. Returns the verdict's code.
fn agree(it: &Interp<'_>, b: &[u8]) -> &'static str {
    let fast = (it.check::<Error>(b), it.check::<Brief>(b), it.validate(b));
    let generic =
        Interp::on_generic_path(|| (it.check::<Error>(b), it.check::<Brief>(b), it.validate(b)));
    assert_eq!(fast.0, generic.0, "check::<Error> on {} bytes", b.len());
    assert_eq!(fast.1, generic.1, "check::<Brief> on {} bytes", b.len());
    assert_eq!(fast.2, generic.2, "validate on {} bytes", b.len());
    assert_eq!(fast.0.is_ok(), fast.2.is_ok());
    fast.0.err().map_or("ok", |e| e.code)
}

fn load(schema: &str) -> npuschema_codegen::Checked {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(schema);
    npuschema_codegen::load(&p).unwrap_or_else(|d| panic!("{d}"))
}

fn no_disagreement() {
    assert_eq!(
        Interp::fast_path_disagreements(),
        0,
        "a lowered check failed where the generic path passed"
    );
}

#[test]
fn npu1_fixtures_and_mutants_agree_on_both_paths() {
    let c = load("../schema/npu1.yaml");
    let it = Interp::new(&c);
    let mut codes = std::collections::BTreeSet::new();
    for regions in 0..=6 {
        let good = blob(regions);
        assert_eq!(agree(&it, &good), "ok");
        let table_end = (32 + 16 * regions).min(good.len());
        let mut next = xorshift(0x5EED ^ regions as u32);
        for _ in 0..400 {
            let mut m = good.clone();
            mutate(&mut m, table_end, &mut next);
            codes.insert(agree(&it, &m));
        }
        for len in 0..good.len().min(200) {
            codes.insert(agree(&it, &good[..len]));
        }
    }
    assert!(codes.len() > 6, "the sweep reaches many checks: {codes:?}");
    no_disagreement();
}

#[test]
fn vpmn_real_files_and_mutants_agree_on_both_paths() {
    let Some(files) = vpmn_util::corpus() else {
        return;
    };
    let c = load("../schema/vpmn.yaml");
    let it = Interp::new(&c);
    let mut codes = std::collections::BTreeSet::new();
    // The smallest of each version: v1 (both), and one v2.
    let mut picked: Vec<&(String, Vec<u8>)> = files.iter().filter(|(_, b)| b[6] == 1).collect();
    picked.extend(
        files
            .iter()
            .filter(|(_, b)| b[6] == 2)
            .min_by_key(|(_, b)| b.len()),
    );
    for (name, good) in picked {
        assert_eq!(agree(&it, good), "ok", "{name}");
        let v1 = good[6] == 1;
        // Every byte of the prefix, fixed part and directory (v1), or of the headers and
        // the directory's start (v2), set to three values.
        let span = if v1 { 700 } else { 200 };
        for at in 0..span.min(good.len()) {
            for v in [0x00, 0xFF, good[at].wrapping_add(1)] {
                let mut m = good.clone();
                m[at] = v;
                codes.insert(agree(&it, &m));
            }
        }
        for len in (0..good.len().min(span)).step_by(7) {
            codes.insert(agree(&it, &good[..len]));
        }
    }
    assert!(codes.len() > 6, "the sweep reaches many checks: {codes:?}");
    no_disagreement();
}

/// The lowered path specialises v1's steps by the version word (one body per interval of
/// versions on which every `header.version` comparison has one outcome): each v1 file with
/// its version set to every value around each boundary the schema names, and to values far
/// from them, gives the same verdict on both paths, and the versions reach several bodies'
/// different outcomes.
#[test]
fn vpmn_v1_versions_across_every_interval_agree_on_both_paths() {
    let Some(files) = vpmn_util::corpus() else {
        return;
    };
    let c = load("../schema/vpmn.yaml");
    let it = Interp::new(&c);
    let mut codes = std::collections::BTreeSet::new();
    let mut versions: Vec<u32> = (0x0001_0000..=0x0001_0020).collect();
    versions.extend([
        0x0001_00FF,
        0x0001_FFFF,
        0x0001_8000,
        0x0002_0000,
        0x0003_0000,
        0,
    ]);
    let mut accepted = std::collections::BTreeSet::new();
    for (name, good) in files.iter().filter(|(_, b)| b[6] == 1) {
        for &v in &versions {
            let mut m = good.clone();
            m[4..8].copy_from_slice(&v.to_le_bytes());
            let code = agree(&it, &m);
            if code == "ok" {
                accepted.insert(v);
            }
            codes.insert(code);
            // And the entries' sizes off by one: the version-dependent record size decides.
            let mut m2 = m.clone();
            let at = 92 + if v >= 0x0001_0008 { 284 } else { 276 } + 4;
            if at + 4 <= m2.len() {
                m2[at] ^= 1;
                codes.insert(agree(&it, &m2));
            }
        }
        assert!(
            accepted.contains(&u32::from_le_bytes(good[4..8].try_into().unwrap())),
            "{name}"
        );
    }
    assert!(
        codes.len() >= 3,
        "the versions reach several checks: {codes:?}"
    );
    no_disagreement();
}

#[test]
fn every_test_schema_agrees_on_both_paths() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    let entries = [root.join("schemas"), root.join("../formats")]
        .into_iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap());
    for e in entries {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "yaml") {
            continue;
        }
        let c = npuschema_codegen::load(&p).unwrap_or_else(|d| panic!("{d}"));
        let it = Interp::new(&c);
        let mut next = xorshift(0xC0FFEE);
        for len in [0usize, 4, 16, 24, 31, 32, 48, 64, 100, 256] {
            for _ in 0..40 {
                let b: Vec<u8> = (0..len).map(|_| (next() & 0xFF) as u8).collect();
                agree(&it, &b);
            }
        }
        n += 1;
    }
    assert!(n >= 7, "the test schemas were found ({n})");
    no_disagreement();
}

/// Structs inside structs and a fixed array of structs (tests/schemas/nested.yaml): the reads
/// of fields inside them, on a valid file, every byte flipped and every truncation.
#[test]
fn nested_structs_agree_on_both_paths() {
    let c = load("schemas/nested.yaml");
    let it = Interp::new(&c);
    let mut codes = std::collections::BTreeSet::new();
    for good in [
        npuschema_tests::nested_blobs::file(&[(5, 3), (1000, 7)], 2),
        npuschema_tests::nested_blobs::file(&[], 1),
    ] {
        assert_eq!(agree(&it, &good), "ok");
        let mut m = good.clone();
        for at in 0..good.len() {
            for x in [0x01u8, 0x80, 0xFF] {
                m[at] ^= x;
                codes.insert(agree(&it, &m));
                m[at] = good[at];
            }
        }
        for len in 0..good.len() {
            codes.insert(agree(&it, &good[..len]));
        }
    }
    assert!(codes.len() > 8, "the sweep reaches many checks: {codes:?}");
    no_disagreement();
}

/// Every expression and step kind the lowering knows (header, record, element and located
/// reads of each width and byte order; signed, composed, bit-range and flag-bit values;
/// `if`; `let`; `when`; `||` and `&&`; per-record ranges with and without a condition;
/// items; an enum with values past 127), and an order check it leaves to the generic path.
const LOWERED: &str = r#"
schema: lowered
doc: The interpreter's lowered path, kind by kind.
constants:
  MAGIC: 0x4C4F5752
  HEADER_BYTES: 32
  ENTRY_BYTES: 12
enums:
  Kind:
    repr: u16
    values: { small: 1, large: 200, huge: 4000 }
flags:
  HeaderFlags:
    repr: u32
    bits:
      HAS_EXTRA: { bit: 0, doc: "Extra." }
      STRICT: { bit: 3, doc: "Strict." }
bitfields:
  Packed:
    repr: u32
    fields:
      lo: { bits: "0..7", doc: "Low." }
      hi: { bits: "8..15", doc: "High." }
structs:
  Header:
    size: 32
    fields:
      - { name: magic, type: u32 }
      - { name: version, type: u16 }
      - { name: kind, type: Kind }
      - { name: flags, type: HeaderFlags }
      - { name: delta, type: i32 }
      - { name: packed, type: Packed }
      - { name: count, type: u32 }
      - { name: size_low, type: u32 }
      - { name: size_high, type: u32 }
    composed:
      size: { low: size_low, high: size_high, doc: "The file size." }
  Entry:
    size: 12
    fields:
      - { name: offset, type: u32, byte_order: big }
      - { name: length, type: u16 }
      - { name: tag, type: u8 }
      - { name: pad, type: u8 }
      - { name: dims, type: "u16[2]" }
file:
  name: Lowered
  header: { struct: Header, code: truncated-header }
  tables:
    entries: { record: Entry, at: HEADER_BYTES, count: header.count, stride: ENTRY_BYTES }
  ranges:
    body: { table: entries, offset: offset, length: length }
    extra: { table: entries, when: "tag != 0", offset: offset, length: tag }
  validate:
    - { code: bad-magic, expect: header.magic, equals: MAGIC }
    - { code: bad-size, expect: header.size, equals: len }
    - { code: bad-kind, enum_known: header.kind }
    - { code: bad-flags, flags_known: header.flags }
    - { code: bad-delta, assert: "header.delta <= 100", field: header.delta }
    - { code: bad-packed, assert: "header.packed.lo <= header.packed.hi", field: header.packed }
    - { let: room, value: "len - HEADER_BYTES" }
    - { code: strict, assert: "header.count <= room / 8", field: header.count, when: "header.flags.STRICT && header.version >= 3" }
    - { code: table-out-of-bounds, table_fits: entries, within: len }
    - { code: first-entry, assert: "if(entries.0.tag > 3, entries.0.length, 1) > 0", field: entries.0.length }
    - { code: either, assert: "header.version == 1 || header.flags.HAS_EXTRA", field: header.version }
    - for_each: entries
      validate:
        - { code: body-out-of-bounds, range_fits: body, within: len }
        - { code: extra-out-of-bounds, range_fits: extra, within: len }
        - { code: bad-dims, items: dims, first: tag, check: "item >= 1" }
        - { code: unsorted, sorted: entries, by: offset }
"#;

/// A valid file of the schema above: `n` entries, each pointing into the data after the
/// table, the last ending at the end of the file.
fn lowered_file(n: usize) -> Vec<u8> {
    let data = 32 + 12 * n;
    let len = data + 8 * n;
    let mut b = vec![0u8; len];
    b[0..4].copy_from_slice(&0x4C4F_5752u32.to_le_bytes());
    b[4..6].copy_from_slice(&3u16.to_le_bytes());
    b[6..8].copy_from_slice(&200u16.to_le_bytes());
    b[8..12].copy_from_slice(&0b1001u32.to_le_bytes());
    b[12..16].copy_from_slice(&(-7i32).to_le_bytes());
    b[16..20].copy_from_slice(&0x0503u32.to_le_bytes());
    b[20..24].copy_from_slice(&(n as u32).to_le_bytes());
    b[24..28].copy_from_slice(&(len as u32).to_le_bytes());
    for i in 0..n {
        let e = 32 + 12 * i;
        b[e..e + 4].copy_from_slice(&((data + 8 * i) as u32).to_be_bytes());
        b[e + 4..e + 6].copy_from_slice(&8u16.to_le_bytes());
        b[e + 6] = (i % 3) as u8;
        b[e + 8..e + 10].copy_from_slice(&1u16.to_le_bytes());
        b[e + 10..e + 12].copy_from_slice(&2u16.to_le_bytes());
    }
    b
}

#[test]
fn a_schema_of_every_lowered_kind_agrees_on_both_paths() {
    let c = npuschema_codegen::load_str(LOWERED, "lowered.yaml").unwrap_or_else(|d| panic!("{d}"));
    let it = Interp::new(&c);
    let mut codes = std::collections::BTreeMap::<&str, usize>::new();
    for n in [0, 1, 3, 5] {
        let good = lowered_file(n);
        // The delta is negative: `header.delta <= 100` does not compute, and fails.
        assert_eq!(agree(&it, &good), "bad-delta", "{n} entries");
        let mut good = good;
        good[12..16].copy_from_slice(&7i32.to_le_bytes());
        assert_eq!(agree(&it, &good), "ok", "{n} entries");
        for at in 0..good.len() {
            for v in [0x00, 0x01, 0x80, 0xFF, good[at] ^ 0x04] {
                let mut m = good.clone();
                m[at] = v;
                *codes.entry(agree(&it, &m)).or_default() += 1;
            }
        }
        for len in 0..good.len() {
            *codes.entry(agree(&it, &good[..len])).or_default() += 1;
        }
    }
    for code in [
        "ok",
        "truncated-header",
        "bad-magic",
        "bad-size",
        "bad-kind",
        "bad-flags",
        "bad-delta",
        "bad-packed",
        "strict",
        "table-out-of-bounds",
        "either",
        "body-out-of-bounds",
        "extra-out-of-bounds",
        "bad-dims",
        "unsorted",
    ] {
        assert!(codes.contains_key(code), "{code} is reached: {codes:?}");
    }
    no_disagreement();
}

/// RIFF/WAVE (`formats/wav.yaml`: a record stream, `count()` and `first()`) on the
/// real `.wav` files under /usr/share/sounds and their mutants.
#[test]
fn wav_real_files_and_mutants_agree_on_both_paths() {
    let mut files = Vec::new();
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
            } else if md.is_file() && p.extension().is_some_and(|e| e == "wav") {
                files.push(std::fs::read(&p).unwrap());
            }
        }
    }
    if files.is_empty() {
        eprintln!("interp_fast: no .wav under /usr/share/sounds; skipped");
        return;
    }
    files.sort_by_key(Vec::len);
    let c = load("../formats/wav.yaml");
    let it = Interp::new(&c);
    let mut codes = std::collections::BTreeSet::new();
    for good in files.iter().take(3) {
        assert_eq!(agree(&it, good), "ok");
        for at in 0..64.min(good.len()) {
            for v in [0x00, 0xFF, good[at].wrapping_add(1)] {
                let mut m = good.clone();
                m[at] = v;
                codes.insert(agree(&it, &m));
            }
        }
        for len in (0..good.len()).step_by(97) {
            codes.insert(agree(&it, &good[..len]));
        }
    }
    assert!(codes.len() > 6, "the sweep reaches many checks: {codes:?}");
    no_disagreement();
}

/// Files whose header chooses their byte order (`byte_order: { big_when }`): the lowering
/// is made once per order, and both paths agree on the ELF64 files of either order here
/// (x86-64 binaries, s390x's C library when `scripts/setup-formats` installed it) and on
/// every capture in the four byte order and resolution combinations, each with every byte
/// of its first 128 flipped.
#[test]
fn files_in_either_byte_order_agree_on_both_paths() {
    let sweep = |it: &Interp<'_>, good: &[u8], codes: &mut std::collections::BTreeSet<&str>| {
        codes.insert(agree(it, good));
        let mut m = good.to_vec();
        for at in 0..good.len().min(128) {
            for x in [0x01u8, 0x80, 0xFF] {
                m[at] ^= x;
                codes.insert(agree(it, &m));
                m[at] = good[at];
            }
        }
    };
    // ELF: the smallest objects of each class and order.
    let elf_schema = load("../formats/elf.yaml");
    let elf = Interp::new(&elf_schema);
    let mut files: Vec<Vec<u8>> = Vec::new();
    for dir in [
        "/usr/s390x-linux-gnu/lib",
        "/usr/powerpc-linux-gnu/lib",
        "/usr/arm-linux-gnueabihf/lib",
        "/usr/lib/x86_64-linux-gnu",
    ] {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut these: Vec<Vec<u8>> = rd
            .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
            .filter(|b| b.starts_with(b"\x7fELF") && b.len() < 64 << 10)
            .collect();
        these.sort_by_key(Vec::len);
        files.extend(these.into_iter().take(2));
    }
    let mut codes = std::collections::BTreeSet::new();
    for b in &files {
        sweep(&elf, b, &mut codes);
    }
    if files.iter().any(|b| b.get(5) == Some(&2)) && files.iter().any(|b| b.get(4) == Some(&1)) {
        assert!(codes.contains("ok") && codes.len() > 4, "ELF: {codes:?}");
    } else {
        eprintln!(
            "interp_fast: no big-endian or no 32-bit ELF file here (scripts/setup-formats installs libc6-s390x-cross, libc6-powerpc-cross and libc6-armhf-cross); the others only"
        );
    }
    // pcap: each capture in the four combinations.
    let pcap_schema = load("../formats/pcap.yaml");
    let pcap = Interp::new(&pcap_schema);
    let captures = npuschema_tests::real_files(
        &[Path::new("/usr/share").to_path_buf()],
        &["pcap"],
        64 << 10,
        4,
    );
    let mut codes = std::collections::BTreeSet::new();
    for p in &captures {
        let Ok(good) = std::fs::read(p) else { continue };
        for (big, nanos) in [(false, false), (true, true)] {
            if let Some(b) = npuschema_tests::pcap_rewritten(&good, big, nanos) {
                sweep(&pcap, &b, &mut codes);
            }
        }
    }
    if captures.is_empty() {
        eprintln!(
            "interp_fast: no capture here (scripts/setup-formats installs python3-dpkt); pcap skipped"
        );
    } else {
        assert!(codes.contains("ok") && codes.len() > 3, "pcap: {codes:?}");
    }
    no_disagreement();
}
