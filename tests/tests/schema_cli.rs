//! `check`, `inspect` and `explain --schema`: a schema written from scratch in a temporary
//! directory (a small made-up archive format) is tried on files with no Rust build; a schema
//! mistake gives the generator's diagnostics with file:line:column and exit 2; and for the
//! shipped formats, `--schema schema/npu1.yaml` and `--schema schema/vpmn.yaml` give the
//! same verdicts (the same JSON lines) as the built-in path.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use std::path::{Path, PathBuf};

use npuschema_cli::schema_cmd::{check_output, explain_output, inspect_output};
use npuschema_tests::npu1_blobs::{blob, mutate, xorshift};

/// A fresh temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p =
            std::env::temp_dir().join(format!("npuschema-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }
    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A made-up format: "BLPK", a 16-byte header, a table of 12-byte entries, each locating a
/// typed, flagged blob; a CRC-32 over everything after the header.
const BLOBPACK: &str = r#"schema: blobpack
doc: A made-up archive of typed blobs.
constants:
  MAGIC: { value: 0x4B504C42, doc: "BLPK" }
  HEADER_BYTES: 16
  ENTRY_BYTES: 12
enums:
  Kind:
    repr: u16
    values: { text: 1, image: 2 }
flags:
  EntryFlags:
    repr: u16
    bits: { COMPRESSED: 0 }
structs:
  Header:
    fields:
      - { name: magic, type: u32 }
      - { name: count, type: u32 }
      - { name: total, type: u32 }
      - { name: crc, type: u32 }
  Entry:
    fields:
      - { name: kind, type: Kind }
      - { name: flags, type: EntryFlags }
      - { name: offset, type: u32 }
      - { name: length, type: u32 }
file:
  name: Blobpack
  header: { struct: Header, code: truncated-header }
  tables:
    entries: { record: Entry, at: HEADER_BYTES, count: header.count, stride: ENTRY_BYTES }
  ranges:
    data: { table: entries, offset: offset, length: length }
  checksums:
    body: { algorithm: crc32, from: HEADER_BYTES, to: header.total, stored: header.crc }
  validate:
    - { code: bad-magic, expect: header.magic, equals: MAGIC }
    - { code: size-mismatch, expect: header.total, equals: len }
    - { code: table-out-of-bounds, table_fits: entries, within: len }
    - { code: bad-crc, checksum: body }
    - for_each: entries
      validate:
        - { code: unknown-kind, enum_known: kind }
        - { code: unknown-flags, flags_known: flags }
        - { code: entry-out-of-bounds, range_fits: data, within: header.total }
"#;

fn blobpack(entries: &[(u16, u16, &[u8])]) -> Vec<u8> {
    let mut b = vec![0u8; 16 + 12 * entries.len()];
    let mut data = Vec::new();
    for (i, (kind, flags, bytes)) in entries.iter().enumerate() {
        let at = 16 + 12 * i;
        let off = (b.len() + data.len()) as u32;
        b[at..at + 2].copy_from_slice(&kind.to_le_bytes());
        b[at + 2..at + 4].copy_from_slice(&flags.to_le_bytes());
        b[at + 4..at + 8].copy_from_slice(&off.to_le_bytes());
        b[at + 8..at + 12].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
        data.extend_from_slice(bytes);
    }
    b.extend_from_slice(&data);
    let total = b.len() as u32;
    b[0..4].copy_from_slice(b"BLPK");
    b[4..8].copy_from_slice(&(entries.len() as u32).to_le_bytes());
    b[8..12].copy_from_slice(&total.to_le_bytes());
    let crc = npuschema_core::crc32(0, &b[16..]);
    b[12..16].copy_from_slice(&crc.to_le_bytes());
    b
}

fn reseal(b: &mut [u8]) {
    let crc = npuschema_core::crc32(0, &b[16..]);
    b[12..16].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn a_schema_written_from_scratch_checks_inspects_and_explains_files() {
    let dir = TempDir::new("blobpack");
    let schema = dir.file("blobpack.yaml", BLOBPACK.as_bytes());
    let good = blobpack(&[(1, 0, b"hello"), (2, 1, b"\x89PNG")]);
    let ok = dir.file("ok.blp", &good);
    let mut bad = good.clone();
    bad[16 + 12] = 9; // entries[1].kind
    reseal(&mut bad);
    let bad_kind = dir.file("bad_kind.blp", &bad);
    let mut past = good.clone();
    past[16 + 8] = 0xFF; // entries[0].length
    reseal(&mut past);
    let past_end = dir.file("past_end.blp", &past);
    std::fs::write(dir.0.join("notes.txt"), b"not a blobpack").unwrap();

    // check: one line per file, exit 1 when any is invalid; --ext picks the files a
    // directory walk checks.
    let o = check_output(&schema, std::slice::from_ref(&dir.0), &["blp".into()], true);
    assert_eq!(o.code, 1, "{o:?}");
    let lines: Vec<serde_json::Value> = o
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{}", o.stdout);
    let by_file = |p: &Path| {
        lines
            .iter()
            .find(|l| l["file"] == p.display().to_string())
            .unwrap_or_else(|| panic!("no line for {}", p.display()))
            .clone()
    };
    let l = by_file(&ok);
    assert_eq!(l["valid"], true);
    assert_eq!(l["format"], "blobpack");
    assert!(l["error"].is_null());
    let l = by_file(&bad_kind);
    assert_eq!(l["valid"], false);
    assert_eq!(l["error"]["code"], "unknown-kind");
    assert_eq!(l["error"]["field"], "entries[1].kind");
    assert_eq!(l["error"]["offset"], 28);
    assert_eq!(
        l["error"]["message"],
        "unknown-kind: entries[1].kind at 0x1c: 0x9 is not a defined value"
    );
    let l = by_file(&past_end);
    assert_eq!(l["error"]["code"], "entry-out-of-bounds");
    assert_eq!(l["error"]["field"], "entries[0].offset");
    let o = check_output(&schema, std::slice::from_ref(&ok), &[], false);
    assert_eq!(
        (o.code, o.stdout.trim_end()),
        (0, format!("{}: OK", ok.display()).as_str())
    );
    // Without --ext every file of the directory is checked: the text file is not a blobpack.
    let o = check_output(&schema, std::slice::from_ref(&dir.0), &[], false);
    assert!(
        o.stdout
            .contains("notes.txt: truncated-header: header at 0x0"),
        "{}",
        o.stdout
    );

    // inspect: every field decoded, with stable JSON keys.
    let o = inspect_output(&schema, &ok, true);
    assert_eq!(o.code, 0, "{o:?}");
    let v: serde_json::Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["schema"], "blobpack");
    // `file` is the path, as in every command's JSON; the view type is `view`.
    assert_eq!(v["file"], ok.display().to_string());
    assert_eq!(v["view"], "Blobpack");
    assert_eq!(v["len"], good.len());
    let entries = &v["groups"][1];
    assert_eq!(entries["kind"], "table");
    assert_eq!(entries["name"], "entries");
    let e1 = &entries["records"][1];
    assert_eq!(e1["path"], "entries[1]");
    assert_eq!(e1["fields"][0]["name"], "kind");
    assert_eq!(e1["fields"][0]["value"]["enum"], "image");
    assert_eq!(e1["fields"][1]["value"]["flags"][0], "COMPRESSED");
    assert_eq!(e1["ranges"][0]["path"], "entries[1].data");
    assert_eq!(e1["ranges"][0]["length"], 4);
    let crc = &v["checksums"][0];
    assert_eq!(
        (crc["name"].as_str(), crc["ok"].as_bool()),
        (Some("body"), Some(true))
    );
    let text = inspect_output(&schema, &ok, false).stdout;
    assert!(
        text.contains("kind") && text.contains("image (0x2)"),
        "{text}"
    );

    // explain: the bytes named by their field paths, the blobs by their ranges.
    let o = explain_output(&schema, &ok);
    assert_eq!(o.code, 0);
    for want in [
        "42 4c 50 4b",
        "header.magic = 0x4b504c42",
        "entries[0].kind = text (0x1)",
        "entries[1].flags = COMPRESSED",
        "entries[0].data (5 bytes)",
        "68 65 6c 6c 6f",
        "body",
    ] {
        assert!(
            o.stdout.contains(want),
            "explain lacks {want:?}:\n{}",
            o.stdout
        );
    }
    // An invalid file: the error and the bytes at its offset, exit 1.
    let o = explain_output(&schema, &bad_kind);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("unknown-kind: entries[1].kind at 0x1c"),
        "{}",
        o.stderr
    );
    let o = inspect_output(&schema, &bad_kind, true);
    assert_eq!((o.code, o.stdout.as_str()), (1, ""));
}

#[test]
fn a_schema_mistake_gives_the_generators_diagnostics_and_exit_2() {
    let dir = TempDir::new("blobpack-bad");
    let text = BLOBPACK
        .replace("{ name: length, type: u32 }", "{ name: length, type: u23 }")
        .replace("equals: MAGIC }", "equals: MAGIK }");
    let schema = dir.file("bad.yaml", text.as_bytes());
    let file = dir.file("x.blp", &blobpack(&[]));
    let want = npuschema_codegen::load(&schema).err().unwrap().to_string();
    for o in [
        check_output(&schema, std::slice::from_ref(&file), &[], true),
        inspect_output(&schema, &file, false),
        explain_output(&schema, &file),
    ] {
        assert_eq!(o.code, 2);
        assert!(o.stdout.is_empty());
        assert_eq!(o.stderr.trim_end(), want.trim_end());
        // Both mistakes, each at file:line:column.
        let line = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
        for (needle, what) in [("type: u23", "u23"), ("equals: MAGIK", "MAGIK")] {
            let at = format!("{}:{}:", schema.display(), line(needle));
            assert!(
                o.stderr
                    .lines()
                    .any(|l| l.starts_with(&at) && l.contains(what)),
                "no diagnostic for {what} at {at}:\n{}",
                o.stderr
            );
        }
    }
    // An unreadable schema is a usage error too.
    let o = check_output(&dir.0.join("missing.yaml"), &[file], &[], false);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("cannot read the schema"), "{}", o.stderr);
}

fn builtin_lines(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|p| {
            npuschema_cli::check::json_line(p, &npuschema_cli::check::check_file(p)).to_string()
        })
        .collect()
}

fn schema_lines(schema: &str, files: &[PathBuf]) -> Vec<String> {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join(schema);
    let o = check_output(&schema, files, &[], true);
    assert!(o.stderr.is_empty(), "{}", o.stderr);
    let mut sorted = files.to_vec();
    sorted.sort();
    assert_eq!(sorted, files, "files are listed in path order");
    o.stdout.lines().map(str::to_string).collect()
}

#[test]
fn shipped_schemas_give_the_built_in_verdicts() {
    let dir = TempDir::new("parity");
    let mut npu1_files = Vec::new();
    let good = blob(4);
    let mut next = xorshift(0xA5A5_5A5A);
    for k in 0..300 {
        let mut m = good.clone();
        if k > 0 {
            mutate(&mut m, 32 + 16 * 4, &mut next);
        }
        npu1_files.push(dir.file(&format!("n{k:04}.npub"), &m));
    }
    let built_in = builtin_lines(&npu1_files);
    same_verdicts(&schema_lines("../schema/npu1.yaml", &npu1_files), &built_in);
    assert!(built_in.iter().any(|l| l.contains("\"valid\":true")));
    assert!(
        built_in
            .iter()
            .filter(|l| l.contains("\"valid\":false"))
            .count()
            > 100
    );

    let Some(corpus) = npuschema_tests::refreader::vpmn_corpus("schema CLI parity") else {
        return;
    };
    let mut vpmn_files = Vec::new();
    for (i, (name, b)) in corpus.iter().enumerate() {
        vpmn_files.push(dir.file(&format!("v{i}_{name}"), b));
        for (j, at) in [5usize, 40, 70, 130, 300, 2000, b.len() / 2, b.len() - 1]
            .into_iter()
            .enumerate()
        {
            let mut m = b.clone();
            m[at] ^= 0x41;
            vpmn_files.push(dir.file(&format!("v{i}_m{j}_{name}"), &m));
        }
    }
    vpmn_files.sort();
    same_verdicts(
        &schema_lines("../schema/vpmn.yaml", &vpmn_files),
        &builtin_lines(&vpmn_files),
    );
}

/// The same JSON line for every file, except where the built-in path found no known magic
/// (`unknown-format`, format `null`): the schema names one format, so that is its
/// `bad-magic`; and where the built-in `check` failed a stage after the validator (`host`,
/// `stream-checker`, `ledger`: rules no schema states), the file passed the validator, so
/// the schema accepts it; and the built-in line's `warnings`, which no schema states either.
fn same_verdicts(schema: &[String], built_in: &[String]) {
    assert_eq!(schema.len(), built_in.len());
    let mut unknown = 0;
    for (s, b) in schema.iter().zip(built_in) {
        let bv: serde_json::Value = serde_json::from_str(b).unwrap();
        let stage = &bv["error"]["stage"];
        if stage.is_string() && stage != "validator" {
            let sv: serde_json::Value = serde_json::from_str(s).unwrap();
            assert_eq!(sv["valid"], true, "{s} / {b}");
            assert_eq!((&sv["file"], &sv["format"]), (&bv["file"], &bv["format"]));
        } else if bv["format"].is_null() {
            let sv: serde_json::Value = serde_json::from_str(s).unwrap();
            assert_eq!(bv["error"]["code"], "unknown-format");
            assert_eq!(sv["error"]["code"], "bad-magic", "{s}");
            assert_eq!(sv["file"], bv["file"]);
            unknown += 1;
        } else {
            // The built-in check's `warnings` (the arena `run --sim` allocates, a host
            // limit no schema states) aside, the lines are the same.
            let sv: serde_json::Value = serde_json::from_str(s).unwrap();
            let mut bv = bv;
            if let Some(m) = bv.as_object_mut() {
                m.remove("warnings");
            }
            assert_eq!(sv, bv, "{s} / {b}");
        }
    }
    assert!(unknown < schema.len() / 4, "most mutants keep their magic");
}

/// `inspect --schema` on a file with strings (`tests/schemas/strtab.yaml`): the text and
/// the JSON view show each section's name and the title, decoded.
#[test]
fn inspect_shows_the_strings() {
    let dir = TempDir::new("strtab");
    let names = b"\0.names\0.data\0";
    let title_at = 16 + 32 + names.len() as u32 + 4;
    let file_with = |title: &[u8]| {
        let mut b = Vec::new();
        b.extend_from_slice(&0x3152_5453u32.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&16u32.to_le_bytes());
        b.extend_from_slice(&title_at.to_le_bytes());
        for (name, kind, offset, size) in [
            (1u32, 3u16, 48u32, names.len() as u32),
            (8, 1, 48 + names.len() as u32, 4),
        ] {
            b.extend_from_slice(&name.to_le_bytes());
            b.extend_from_slice(&kind.to_le_bytes());
            b.extend_from_slice(&0u16.to_le_bytes());
            b.extend_from_slice(&offset.to_le_bytes());
            b.extend_from_slice(&size.to_le_bytes());
        }
        b.extend_from_slice(names);
        b.extend_from_slice(&[9; 4]);
        b.extend_from_slice(&(title.len() as u16).to_le_bytes());
        b.extend_from_slice(title);
        b
    };
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/strtab.yaml");
    // A title cut inside a UTF-8 sequence: rejected by `string_utf8`.
    let bad = dir.file("bad.str", &file_with(&"né".as_bytes()[..2]));
    assert_eq!(inspect_output(&schema, &bad, true).code, 1);
    let file = dir.file("ok.str", &file_with("né!".as_bytes()));
    let text = inspect_output(&schema, &file, false);
    assert_eq!(text.code, 0, "{text:?}");
    for want in [
        "strings",
        "sections[0].name",
        "\".names\"",
        "sections[1].name",
        "\".data\"",
        "title",
        "\"né!\"",
    ] {
        assert!(text.stdout.contains(want), "{want} in {}", text.stdout);
    }
    let o = inspect_output(&schema, &file, true);
    let v: serde_json::Value = serde_json::from_str(o.stdout.trim()).unwrap();
    let strings = v["strings"].as_array().unwrap();
    assert_eq!(strings.len(), 3);
    assert_eq!(strings[0]["path"], "title");
    assert_eq!(strings[0]["str"], "né!");
    assert_eq!(strings[0]["offset"], title_at + 2);
    assert_eq!(strings[2]["path"], "sections[1].name");
    assert_eq!(strings[2]["str"], ".data");
    assert_eq!(strings[2]["bytes"], "2e64617461");
}

/// `inspect --schema` on a record stream (`tests/schemas/tlv.yaml`): every record with its
/// header fields and body range, and each typed body in its collection.
#[test]
fn inspect_lists_each_record_of_a_stream() {
    let dir = TempDir::new("tlv");
    let mut body = Vec::new();
    for (i, (kind, b)) in [
        (1u16, &b"\x07\x00\x05\x00hello"[..]),
        (0x7003, b"\x01"),
        (0, b""),
    ]
    .iter()
    .enumerate()
    {
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&(b.len() as u16).to_le_bytes());
        body.extend_from_slice(b);
        if i < 2 {
            while body.len() % 4 != 0 {
                body.push(0);
            }
        }
    }
    let mut file = Vec::new();
    for w in [0x3156_4C54u32, body.len() as u32, 3] {
        file.extend_from_slice(&w.to_le_bytes());
    }
    file.extend(body);
    let f = dir.file("s.tlv", &file);
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/tlv.yaml");
    let o = inspect_output(&schema, &f, false);
    assert_eq!(o.code, 0, "{o:?}");
    for want in [
        "stream records (RecordHeader, 3 record(s))",
        "records[0] @ 0xc (13 bytes)",
        "= note (0x1)",
        "records[1] @ 0x1c (5 bytes)",
        "= blob (0x7003)",
        "records[2] @ 0x24 (4 bytes)",
        "collection notes (Note, 1 record(s))",
        "notes[0] @ 0x10 (4 bytes)",
    ] {
        assert!(o.stdout.contains(want), "no `{want}` in\n{}", o.stdout);
    }
    let j: serde_json::Value =
        serde_json::from_str(inspect_output(&schema, &f, true).stdout.trim()).unwrap();
    assert!(j.to_string().contains("records[1].body"), "{j}");
}

/// `check` and `inspect --schema schema/ethos_u_cop1.yaml` on a COP1 payload laid out as
/// Vela writes it, and `check` on one whose COMMAND_STREAM length runs past its end.
#[test]
fn check_and_inspect_read_a_cop1_payload() {
    let dir = TempDir::new("cop1");
    let words = [
        0x3150_4F43u32,
        0x0010_0001,
        0x1807,
        0x1006_6001,
        5,
        5,
        5,
        2 | (2 << 16),
        0x0001_010f,
        0xffff_0000,
    ];
    let mut file: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/ethos_u_cop1.yaml");
    let f = dir.file("good.cop1", &file);
    let o = inspect_output(&schema, &f, false);
    assert_eq!(o.code, 0, "{o:?}");
    for want in [
        "stream records (Action, 5 record(s))",
        "records[4] @ 0x1c (12 bytes)",
        "body                     range 0x20 + 0x8",
        "configs[0] @ 0x8 (8 bytes)",
        "= 0x1807",
        "streams[0] @ 0x20 (4 bytes)",
    ] {
        assert!(o.stdout.contains(want), "no `{want}` in\n{}", o.stdout);
    }
    let o = check_output(&schema, &[f], &[], true);
    assert_eq!(o.code, 0, "{o:?}");
    file[29] = 1;
    let bad = dir.file("bad.cop1", &file);
    let o = check_output(&schema, &[bad], &[], true);
    assert_ne!(o.code, 0, "{o:?}");
    for want in [
        "\"code\":\"cop-stream-out-of-bounds\"",
        "\"field\":\"records[4].size\"",
        "\"offset\":28",
    ] {
        assert!(o.stdout.contains(want), "no `{want}` in\n{}", o.stdout);
    }
}

/// A real COP2 payload (`--cop-format COP2`), cut out of a Vela output in vela-out/ as
/// `pack` finds it (the payload's length is the word before "COP2").
fn real_cop2_payload() -> Option<Vec<u8>> {
    let dir = npuschema_tests::vela::out_dir()?;
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with("_vela.tflite") {
                let b = std::fs::read(&p).unwrap();
                if let Some(at) = b.windows(4).position(|w| w == b"COP2")
                    && at >= 4
                {
                    let n = u32::from_le_bytes(b[at - 4..at].try_into().unwrap()) as usize;
                    return Some(b[at..at + n].to_vec());
                }
            }
        }
    }
    eprintln!("skipping: no COP2 payload in vela-out/ (scripts/setup-vela)");
    None
}

/// `check` and `inspect --schema schema/ethos_u_cop2.yaml` on a real COP2 payload: valid,
/// its action and metadata block listed; then the checks that moved from the packer into
/// the schema (`fill` and `record.<part>`) reject a wrong padding byte, a non-zero byte
/// after the actions and a metadata block that runs past its action, each at its offset.
#[test]
fn check_and_inspect_read_a_real_cop2_payload() {
    let Some(file) = real_cop2_payload() else {
        return;
    };
    let dir = TempDir::new("cop2");
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/ethos_u_cop2.yaml");
    let f = dir.file("good.cop2", &file);
    let o = inspect_output(&schema, &f, false);
    assert_eq!(o.code, 0, "{o:?}");
    for want in [
        ": valid",
        "stream records (ActionHeader, 1 record(s))",
        "records[0] @ 0x10",
        "collection streams (StreamMeta, 1 record(s))",
        "streams[0] @ 0x18 (24 bytes)",
        "meta_size                @ 0x000018 [  4] = 0x24",
    ] {
        assert!(o.stdout.contains(want), "no `{want}` in\n{}", o.stdout);
    }
    let o = check_output(&schema, std::slice::from_ref(&f), &[], true);
    assert_eq!(o.code, 0, "{o:?}");

    // The metadata block ends at 0x3c; 0xFF up to the stream at 0x40.
    let mut m = file.clone();
    assert_eq!(&m[0x3c..0x40], &[0xFF; 4]);
    m[0x3e] = 0;
    let mut trailing = file.clone();
    trailing.extend_from_slice(&[0, 0, 0, 7]);
    let mut past = file.clone();
    past[0x18..0x1c].copy_from_slice(&0x1000u32.to_le_bytes());
    let end = file.len();
    for (name, bytes, wants) in [
        (
            "padding.cop2",
            m,
            vec![
                "\"code\":\"cop2-bad-padding\"".to_string(),
                "\"field\":\"streams[0].padding\"".to_string(),
                "\"offset\":62".to_string(),
            ],
        ),
        (
            "trailing.cop2",
            trailing,
            vec![
                "\"code\":\"cop-trailing-data\"".to_string(),
                "\"field\":\"trailing\"".to_string(),
                format!("\"offset\":{}", end + 3),
            ],
        ),
        (
            "past.cop2",
            past,
            vec![
                "\"code\":\"cop2-bad-metadata\"".to_string(),
                "\"field\":\"streams[0].meta_size\"".to_string(),
                "\"offset\":24".to_string(),
            ],
        ),
    ] {
        let bad = dir.file(name, &bytes);
        let o = check_output(&schema, &[bad], &[], true);
        assert_ne!(o.code, 0, "{name}: {o:?}");
        for want in &wants {
            assert!(
                o.stdout.contains(want.as_str()),
                "{name}: no `{want}` in\n{}",
                o.stdout
            );
        }
    }
}

/// `inspect --schema` and `explain --schema` on structs inside structs and a fixed array of
/// structs (`tests/schemas/nested.yaml`): every field inside named by its path
/// (`header.slices[1].offset`, `header.stamp.tool.major`, `entries[0].at.x`), at its offset,
/// with its value (the big-endian stamp's time read big-endian, its version little-endian).
#[test]
fn inspect_and_explain_name_fields_inside_structs() {
    let dir = TempDir::new("nested");
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/nested.yaml");
    let file = dir.file(
        "ok.nest",
        &npuschema_tests::nested_blobs::file(&[(5, 3), (1000, 7)], 2),
    );
    let o = inspect_output(&schema, &file, true);
    assert_eq!(o.code, 0, "{o:?}");
    let v: serde_json::Value = serde_json::from_str(o.stdout.trim()).unwrap();
    let header = &v["groups"][0]["records"][0]["fields"];
    let field = |fields: &serde_json::Value, path: &str| {
        fields
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("no field {path} in {fields}"))
            .clone()
    };
    let f = field(header, "header.slices[1].offset");
    assert_eq!(
        (f["name"].as_str(), f["offset"].as_u64()),
        (Some("slices[1].offset"), Some(16))
    );
    assert_eq!(f["raw"], 102 + 6);
    let f = field(header, "header.stamp.time");
    assert_eq!(
        (f["offset"].as_u64(), f["raw"].as_u64()),
        (Some(40), Some(0x0102_0304_0506_0708))
    );
    let f = field(header, "header.stamp.tool.major");
    assert_eq!(
        (f["offset"].as_u64(), f["raw"].as_u64()),
        (Some(50), Some(2))
    );
    let entry = &v["groups"][1]["records"][1]["fields"];
    let f = field(entry, "entries[1].at.x");
    assert_eq!(
        (f["offset"].as_u64(), f["raw"].as_u64()),
        (Some(62 + 20 + 4), Some(1000))
    );
    let x = explain_output(&schema, &file);
    assert_eq!(x.code, 0, "{x:?}");
    for want in [
        "header.version.minor = 0x3",
        "header.slices[3].length = 0x0",
        "header.stamp.kind = tooled (0x2)",
        "header.stamp.tool.minor = 0x7",
        "entries[0].span.offset = 0x6c",
        "entries[1].dims[1].hi = 0x4",
        "entries[1].at.y = 7",
    ] {
        assert!(x.stdout.contains(want), "{want} in {}", x.stdout);
    }
}
