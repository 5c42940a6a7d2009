//! ZIP, a public format nobody here designed (`formats/zip.yaml`): the end of central
//! directory record found by searching back over the archive comment's reach, the central
//! directory it locates, as a record stream, and for each entry the local header it points
//! to (a record per record: name, method, flags, time, CRC-32 and sizes agreeing with the
//! entry) and, for a stored entry, the CRC-32 of its data. Run on the ZIP files of this
//! machine (Python wheels, Java archives, test archives under `/usr/share`, `/usr/lib` and
//! the home directory's caches; skipped with a message when there are none) and held to the
//! `zip` crate verdict for verdict and name for name (every central directory entry's raw
//! name, in order; the crate opening the archive, checking every local header against its
//! entry, and reading every stored entry that is not encrypted, which checks its CRC-32),
//! and to the schema interpreter code for code. Then mutants of small archives (the first
//! local headers and data, the end record, its comment and the central directory flipped,
//! truncations): no panic, the generated code and the interpreter give the same error on
//! every mutant; each verdict that differs from the `zip` crate's is counted by its reason,
//! a rule one reader holds to and the other does not (below); any other difference fails.
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
use npuschema_tests::compare::schemas::zip::Zip;

fn roots() -> Vec<PathBuf> {
    let mut r = vec![PathBuf::from("/usr/share"), PathBuf::from("/usr/lib")];
    if let Some(home) = std::env::var_os("HOME") {
        let home = PathBuf::from(home);
        r.push(home.join(".cache/pip"));
        r.push(home.join(".pyenv"));
    }
    r
}

/// Up to `max` ZIP files (`.zip`, `.jar`, `.whl`) of this machine smaller than 8 MiB, in
/// path order.
fn zips(max: usize) -> Vec<PathBuf> {
    npuschema_tests::real_files(&roots(), &["zip", "jar", "whl"], 8 << 20, max)
}

/// The smallest archives (below 64 KiB, two entries or more) both readers accept, smallest
/// first.
fn small_archives() -> Vec<Vec<u8>> {
    let mut small: Vec<Vec<u8>> = zips(600)
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| b.len() < 64 << 10)
        .filter(|b| by_schema(b).is_ok_and(|n| n.len() >= 2) && by_zip(b).is_ok())
        .collect();
    small.sort_by_key(Vec::len);
    small
}

fn interp() -> &'static npuschema_codegen::interp::Interp<'static> {
    npuschema_tests::interp("../formats/zip.yaml")
}

/// The `zip` crate's verdict: every entry's raw name, in central directory order, once it
/// has checked every local header against its entry (`validate_header_consistency`) and
/// read every stored entry that is not encrypted (its CRC-32 checked at the end). Compressed
/// entries are not decompressed: their CRC-32 is of data the schema does not decode.
fn by_zip(b: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut a = zip::ZipArchive::new(std::io::Cursor::new(b)).map_err(|e| e.to_string())?;
    let names: Vec<Vec<u8>> = a.file_names_raw().map(<[u8]>::to_vec).collect();
    a.validate_header_consistency().map_err(|e| e.to_string())?;
    for i in 0..a.len() {
        let plain = {
            let f = a.by_index_raw(i).map_err(|e| e.to_string())?;
            f.compression() == zip::CompressionMethod::Stored && !f.encrypted()
        };
        if plain {
            let mut f = a.by_index(i).map_err(|e| e.to_string())?;
            std::io::copy(&mut f, &mut std::io::sink()).map_err(|e| e.to_string())?;
        }
    }
    Ok(names)
}

/// The generated validator's verdict and names; its `Brief` names the same check.
fn by_schema(b: &[u8]) -> Result<Vec<Vec<u8>>, &'static str> {
    let brief = Zip::validate_as::<Brief>(b).map(|_| ());
    match Zip::validate(b) {
        Ok(v) => {
            assert!(brief.is_ok());
            Ok(v.centrals()
                .map(|r| r.body()[..usize::from(r.header().name_len())].to_vec())
                .collect())
        }
        Err(e) => {
            assert!(brief.is_err(), "{}", e.code);
            Err(e.code)
        }
    }
}

/// Why the two readers decide a file apart, by a rule one of them holds to and the other
/// does not; `None` when they decide by the same rules (a difference then fails the test).
fn crate_only_rule(
    b: &[u8],
    ours: &Result<Vec<Vec<u8>>, &str>,
    theirs: &Result<Vec<Vec<u8>>, String>,
) -> Option<&'static str> {
    match (ours, theirs) {
        (Err(code), Ok(_)) => match *code {
            // The schema holds every local header and its data before the central directory
            // (APPNOTE 4.3.6); the crate reads them wherever the offsets point.
            "local-header-out-of-bounds" | "data-out-of-bounds" => {
                Some("local headers and data before the central directory")
            }
            // A central directory offset that does not match the end record's place: the
            // crate takes it for data prepended to the archive and shifts every offset.
            "central-out-of-bounds"
            | "bad-central-signature"
            | "bad-local-signature"
            | "local-name-length"
            | "local-name-differs" => Some("offsets shifted (prepended data)"),
            // The crate reads `entries` headers from the central directory's start and does
            // not hold the directory to its stated size.
            "bad-central-entry" | "entry-count" => Some("central directory size not held to"),
            "zip64" => Some("ZIP64"),
            // The schema holds each entry's data descriptor (APPNOTE 4.3.9) to the entry; the
            // crate reads an archive from its central directory and never reads a descriptor.
            "descriptor-out-of-bounds" | "descriptor-differs" => {
                Some("data descriptors (the crate does not read them)")
            }
            // The crate compares the times it can read as dates: two invalid DOS times that
            // differ compare equal.
            "local-time-differs" => Some("invalid DOS times compared as dates"),
            // The crate reads up to 3 bytes after an entry's last extra field as padding when
            // they do not begin a field it knows; APPNOTE 4.5.1 has only whole fields.
            // (Only a header cut by the extra field's end: a field whose data runs past it
            // is refused by the crate too.)
            "bad-extra-field"
                if Zip::validate(b)
                    .err()
                    .is_some_and(|e| e.field.name == "header") =>
            {
                Some("a partial extra field (the crate takes it for padding)")
            }
            _ => None,
        },
        (Ok(_), Err(why)) => {
            let why = why.as_str();
            if why.contains("duplicate file names") {
                Some("duplicate names")
            } else if why.contains("overlapping entries") {
                Some("entries overlap")
            } else if why.contains("missing from central directory") {
                Some("local headers the central directory does not list")
            } else if why.contains("UnicodePath") || why.contains("language encoding") {
                Some("Unicode path extra field")
            } else if why.contains("extra field") || why.contains("Extra field") {
                // (An extra field's records not filling it is the schema's `bad-extra-field`:
                // what is left is what a known field's data says.)
                Some("extra fields' contents")
            } else {
                None
            }
        }
        _ => None,
    }
}

#[test]
fn real_zip_files_agree_with_the_zip_crate() {
    let files = zips(600);
    if files.is_empty() {
        eprintln!("zip_real: no .zip, .jar or .whl file here; skipped");
        return;
    }
    let interp = interp();
    let (mut accepted, mut entries) = (0usize, 0usize);
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    let mut apart: BTreeMap<&str, Vec<PathBuf>> = BTreeMap::new();
    for p in &files {
        let Ok(b) = std::fs::read(p) else { continue };
        let ours = by_schema(&b);
        let theirs = by_zip(&b);
        match (&ours, &theirs) {
            (Ok(a), Ok(t)) => {
                assert_eq!(a, t, "{}: the names differ", p.display());
                accepted += 1;
                entries += a.len();
            }
            (Err(code), Err(_)) => *refused.entry(code).or_default() += 1,
            _ => match crate_only_rule(&b, &ours, &theirs) {
                Some(why) => apart.entry(why).or_default().push(p.clone()),
                None => panic!(
                    "{}: schema {:?} / zip {:?}",
                    p.display(),
                    ours.as_ref().map(Vec::len),
                    theirs.as_ref().map(Vec::len)
                ),
            },
        }
        // The interpreter: the same verdict and code.
        match (interp.validate(&b), &ours) {
            (Ok(_), Ok(_)) => {}
            (Err(e), Err(code)) => assert_eq!(e.code, *code, "{}", p.display()),
            (v, o) => panic!(
                "{}: interpreter {:?} / generated {:?}",
                p.display(),
                v.map(|_| ()),
                o.as_ref().map(|_| ())
            ),
        }
    }
    eprintln!(
        "zip_real: {} files, {accepted} accepted by both ({entries} entries, names equal), refused by both {refused:?}, decided apart by rules the schema does not state {:?}",
        files.len(),
        apart
            .iter()
            .map(|(k, v)| (k, v.len()))
            .collect::<BTreeMap<_, _>>()
    );
    assert!(accepted > 0, "no ZIP file both readers accept");
}

/// Mutants of the smallest archives with a few entries: every byte of the end record and
/// its comment and of the central directory flipped with three masks, every truncation
/// from the end record on, and random multi-byte mutants. No panic; the generated code and
/// the interpreter give the same code on every mutant; and where the `zip` crate decides
/// otherwise, the reason is one the schema does not state (counted).
#[test]
fn mutants_of_real_zip_files() {
    let small = small_archives();
    if small.is_empty() {
        eprintln!("zip_real: no small ZIP file here; skipped");
        return;
    }
    let interp = interp();
    // One site table: the interpreter numbers nothing, it looks its sites up.
    assert_eq!(
        interp.sites(),
        &npuschema_tests::compare::schemas::zip::ERROR_SITES[..]
    );
    let mut verdicts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut apart: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut compared, mut same) = (0usize, 0usize);
    for (i, good) in small.iter().take(3).enumerate() {
        let v = Zip::validate(good).unwrap();
        let cd = v.end().central_offset() as usize;
        // The central directory, the end record and its comment.
        let span = cd..good.len();
        let mut check = |m: &[u8]| {
            let ours = by_schema(m);
            *verdicts
                .entry(ours.as_ref().err().copied().unwrap_or("ok"))
                .or_default() += 1;
            let mine = interp.validate(m);
            assert_eq!(
                interp.check::<Brief>(m).map_err(|e| e.id()),
                Zip::validate_as::<Brief>(m).map(|_| ()).map_err(|e| e.id()),
                "Brief"
            );
            match (&mine, Zip::validate(m)) {
                // The interpreter's view: the same fields, records and bytes.
                (Ok(iv), Ok(g)) => npuschema_tests::compare::zip(m, &g, iv),
                // The same error: code, field, offset, detail and site.
                (Err(e), Err(g)) => assert_eq!(*e, g, "interpreter `{e}`, generated `{g}`"),
                (i, g) => panic!(
                    "interpreter {:?} / generated {:?}",
                    i.as_ref().map(|_| ()),
                    g.map(|_| ())
                ),
            }
            compared += 1;
            let theirs = by_zip(m);
            match (&ours, &theirs) {
                (Ok(a), Ok(t)) if a == t => same += 1,
                (Err(_), Err(_)) => same += 1,
                _ => {
                    if std::env::var_os("ZIP_DEBUG").is_some() {
                        eprintln!(
                            "apart: ours {:?} / zip {:?}",
                            ours.as_ref().map(Vec::len),
                            theirs.as_ref().map(Vec::len)
                        );
                    }
                    *apart
                        .entry(crate_only_rule(m, &ours, &theirs).unwrap_or("undecided"))
                        .or_default() += 1
                }
            }
        };
        // The first local headers, their names and data: up to 256 bytes from the start.
        let locals = 0..cd.min(256);
        let mut m = good.clone();
        for at in locals.clone().chain(span.clone()) {
            for x in [0x01u8, 0x80, 0xFF] {
                m[at] ^= x;
                check(&m);
                m[at] = good[at];
            }
        }
        for len in cd..good.len() {
            check(&good[..len]);
        }
        let mut next = xorshift(0x21F0 + i as u32);
        let all: Vec<usize> = locals.chain(span).collect();
        for _ in 0..5_000 {
            for _ in 0..=(next() % 4) {
                let at = all[next() as usize % all.len()];
                m[at] = next() as u8;
            }
            check(&m);
            m.copy_from_slice(good);
        }
    }
    eprintln!(
        "zip_real mutants: {compared} (generated code and interpreter agree on each), {same} with the zip crate's verdict, the others by reason {apart:?}; verdicts {verdicts:?}"
    );
    assert_eq!(
        apart.get("undecided"),
        None,
        "a verdict differs from the zip crate's by a rule the schema states"
    );
    // (`crc-mismatch` is reached by `a_stored_entry_s_crc_is_checked`: these archives'
    // first entries are compressed. `central-range` is not reached: `central-out-of-bounds` before it holds the directory
    // to the end record's start, which lies inside the file.)
    for code in [
        "no-end-record",
        "comment-past-end",
        "split-archive",
        "central-out-of-bounds",
        "bad-central-entry",
        "entry-count",
        "bad-central-signature",
        "local-header-out-of-bounds",
        "bad-local-signature",
        "local-name-length",
        "local-name-differs",
        "local-method-differs",
        "local-flags-differ",
        "local-time-differs",
        "local-crc-differs",
        "local-size-differs",
        "data-out-of-bounds",
        "ok",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}

/// The end record behind an archive comment: a real archive given a comment of 1, 1,000 and
/// 65,535 bytes (its length in the end record) is read by both readers as the original. The
/// search looks back at most 65,535 bytes from `len - 22`, the longest comment: one more
/// byte after the longest comment puts the record out of reach (`no-end-record`), and a
/// signature inside the comment is found first (it is the last one).
#[test]
fn the_end_record_is_found_behind_a_comment() {
    let Some(good) = small_archives()
        .into_iter()
        .find(|b| Zip::validate(b).is_ok_and(|v| v.end().comment_len() == 0))
    else {
        eprintln!("zip_real: no small ZIP file without a comment here; skipped");
        return;
    };
    let interp = interp();
    let names = by_schema(&good).unwrap();
    let end_at = good.len() - 22;
    let with_comment = |n: usize, extra: usize| {
        let mut b = good.clone();
        b[end_at + 20..end_at + 22].copy_from_slice(&(n as u16).to_le_bytes());
        b.extend(std::iter::repeat_n(b'c', n + extra));
        b
    };
    for n in [1usize, 1_000, 65_535] {
        let b = with_comment(n, 0);
        assert_eq!(by_schema(&b), Ok(names.clone()), "comment of {n}");
        assert_eq!(
            by_zip(&b),
            Ok(names.clone()),
            "the zip crate, comment of {n}"
        );
        let v = Zip::validate(&b).unwrap();
        assert_eq!(v.end().comment_len() as usize, n);
        assert!(
            interp.validate(&b).is_ok(),
            "the interpreter, comment of {n}"
        );
    }
    // Out of reach: the record starts 65,536 bytes before `len - 22`.
    let far = with_comment(65_535, 1);
    assert_eq!(by_schema(&far), Err("no-end-record"));
    let miss = Zip::validate(&far).map(|_| ()).unwrap_err();
    assert_eq!(interp.validate(&far).map(|_| ()), Err(miss));
    // The detail names the places searched: 65,535 bytes before `len - 22`, up to it.
    let at = far.len() as u64 - 22;
    assert_eq!(
        miss.to_string().split(": ").last(),
        Some(
            format!(
                "no `signature == END_SIGNATURE` from {:#x} to {at:#x}",
                at - 65_535
            )
            .as_str()
        )
    );
    // A signature in the comment is the last one: its record is read (and here it says
    // nothing sensible, so a later check fails).
    let mut sig = with_comment(100, 0);
    let at = sig.len() - 50;
    sig[at..at + 4].copy_from_slice(&0x0605_4B50u32.to_le_bytes());
    let ours = by_schema(&sig);
    assert!(ours.is_err(), "{ours:?}");
    assert_eq!(
        interp.validate(&sig).map(|_| ()).map_err(|e| e.code),
        ours.map(|_| ())
    );
}

/// A stored entry's CRC-32 is checked over its data, by both readers and by the interpreter:
/// every byte of a real stored entry's data flipped fails `crc-mismatch` (the `zip` crate
/// fails reading it), and the data of a compressed entry flipped is accepted by the schema,
/// whose CRC rule is for stored entries only (its CRC is of data the schema does not decode).
#[test]
fn a_stored_entry_s_crc_is_checked() {
    let interp = interp();
    let stored = |b: &[u8]| -> Option<(usize, usize)> {
        let v = Zip::validate(b).ok()?;
        v.centrals().find_map(|c| {
            let h = c.header();
            let local = v.local(&h)?;
            let from = h.local_offset() as usize
                + 30
                + usize::from(local.name_len())
                + usize::from(local.extra_len());
            (h.method() == 0 && h.flags() & 1 == 0 && h.compressed_size() > 0)
                .then_some((from, from + h.compressed_size() as usize))
        })
    };
    let Some((good, (from, to))) = zips(600)
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| b.len() < 1 << 20)
        .find_map(|b| stored(&b).map(|x| (b, x)))
    else {
        eprintln!("zip_real: no ZIP file with a stored entry here; skipped");
        return;
    };
    let mut flipped = 0usize;
    for at in (from..to).take(4096) {
        let mut m = good.clone();
        m[at] ^= 0x5A;
        assert_eq!(by_schema(&m), Err("crc-mismatch"), "byte {at:#x}");
        assert!(
            by_zip(&m).is_err(),
            "the zip crate accepts byte {at:#x} flipped"
        );
        let ours = Zip::validate(&m).map(|_| ()).unwrap_err();
        assert_eq!(interp.validate(&m).map(|_| ()), Err(ours));
        flipped += 1;
    }
    eprintln!("zip_real: {flipped} bytes of a stored entry's data flipped, each `crc-mismatch`");
    // A compressed entry's data: not decoded, so not checked.
    let compressed = zips(600)
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| b.len() < 1 << 20)
        .find_map(|b| {
            let v = Zip::validate(&b).ok()?;
            let at = v.centrals().find_map(|c| {
                let h = c.header();
                let local = v.local(&h)?;
                (h.method() == 8 && h.compressed_size() > 0).then(|| {
                    h.local_offset() as usize
                        + 30
                        + usize::from(local.name_len())
                        + usize::from(local.extra_len())
                })
            })?;
            Some((b, at))
        });
    if let Some((mut b, at)) = compressed {
        b[at] ^= 0x5A;
        assert!(by_schema(&b).is_ok());
        assert!(interp.validate(&b).is_ok());
    }
}

/// The extra fields of every entry (APPNOTE 4.5.1: a header of id and size, then the data)
/// are a record stream within the entries' records (`within:`): on the real archives whose
/// entries have some, the records tile each entry's extra field exactly, as many per entry as
/// the `zip` crate parses (`ZipFile::extra_data_fields`), and mutants of their sizes are
/// decided alike by both readers (but for a partial field at the end, which the crate takes
/// for padding: named), with the same error from the generated code and the interpreter.
#[test]
fn extra_fields_are_records_within_each_entry() {
    let mut with = 0usize;
    let mut fields = 0usize;
    let mut refused = BTreeMap::<String, usize>::new();
    for p in zips(600) {
        let Ok(b) = std::fs::read(&p) else { continue };
        let Ok(v) = Zip::validate(&b) else { continue };
        if !v.centrals().any(|c| c.header().extra_len() > 0) || by_zip(&b).is_err() {
            continue;
        }
        with += 1;
        // Tiled: each entry's records start at its extra field and end at its end.
        let mut a = zip::ZipArchive::new(std::io::Cursor::new(&b[..])).unwrap();
        let mut extras = v.extras().peekable();
        for (i, c) in v.centrals().enumerate() {
            let h = c.header();
            let start = c.body_offset() + u64::from(h.name_len());
            let end = start + u64::from(h.extra_len());
            let (mut at, mut mine) = (start, 0usize);
            while let Some(r) = extras.next_if(|r| r.offset() < end) {
                assert_eq!(r.offset(), at, "{}: entry {i}", p.display());
                at = r.body_offset() + r.body().len() as u64;
                fields += 1;
                mine += 1;
            }
            assert_eq!(at, end, "{}: entry {i}", p.display());
            // As many fields as the crate parsed from the entry.
            let f = a.by_index_raw(i).unwrap();
            assert_eq!(
                f.extra_data_fields().count(),
                mine,
                "{}: entry {i}: the crate's extra fields",
                p.display()
            );
        }
        assert!(extras.next().is_none());
        if with > 3 {
            continue;
        }
        // Each extra field's size one more and one less, and its id turned to an unknown
        // one: both refuse what does not tile, or accept what does.
        let sizes: Vec<usize> = v
            .extras()
            .map(|r| r.offset() as usize + 2)
            .take(40)
            .collect();
        let ids: Vec<usize> = v.extras().map(|r| r.offset() as usize).take(40).collect();
        for at in sizes {
            for delta in [1i32, -1] {
                let mut m = b.clone();
                let s = u16::from_le_bytes([m[at], m[at + 1]]);
                m[at..at + 2]
                    .copy_from_slice(&(s as i32 + delta).clamp(0, 0xFFFF).to_le_bytes()[..2]);
                let (ours, theirs) = (by_schema(&m), by_zip(&m));
                let why = match (&ours, &theirs) {
                    (Err(_), Err(_)) | (Ok(_), Ok(_)) => None,
                    _ => Some(crate_only_rule(&m, &ours, &theirs).unwrap_or_else(|| {
                        panic!(
                            "{}: size at {at} {delta:+}: schema {ours:?} / zip {theirs:?}",
                            p.display()
                        )
                    })),
                };
                *refused
                    .entry(format!(
                        "{}{}",
                        ours.err().unwrap_or("ok"),
                        why.map_or(String::new(), |w| format!(" ({w})"))
                    ))
                    .or_default() += 1;
                let i = interp();
                match (i.validate(&m), Zip::validate(&m)) {
                    (Ok(iv), Ok(g)) => npuschema_tests::compare::zip(&m, &g, &iv),
                    (Err(e), Err(g)) => assert_eq!(e, g),
                    (x, y) => panic!(
                        "interpreter {:?} / generated {:?}",
                        x.map(|_| ()),
                        y.map(|_| ())
                    ),
                }
            }
        }
        for at in ids {
            let mut m = b.clone();
            m[at..at + 2].copy_from_slice(&0xBEEFu16.to_le_bytes());
            assert!(by_schema(&m).is_ok(), "an unknown id is kept");
        }
    }
    eprintln!(
        "zip_real: {with} archives with extra fields, {fields} fields tiling their entries' extra fields, as many per entry as the crate parses; size mutants {refused:?}"
    );
    if with == 0 {
        eprintln!("zip_real: no archive here has extra fields; the tiling was not checked");
    }
}

/// How `archive` writes an entry: as a streaming writer leaves it (APPNOTE 4.3.9: flag bit 3
/// set, the local header's CRC-32 and sizes zero, and after the data a data descriptor with
/// its signature, without it (4.3.9.3), or none at all), or plainly (`Plain`).
#[derive(Clone, Copy)]
enum Entry {
    Plain,
    Streamed(Option<bool>),
}

/// An archive of stored entries (`a0.txt`, `a1.txt`, ...), each of `data`, written as
/// `entries` say.
fn archive(data: &[u8], entries: &[Entry]) -> Vec<u8> {
    let crc = npuschema_core::crc32(0, data);
    let n = data.len() as u32;
    let mut b = Vec::new();
    let u16s = |b: &mut Vec<u8>, xs: &[u16]| xs.iter().for_each(|x| b.extend(x.to_le_bytes()));
    let u32s = |b: &mut Vec<u8>, xs: &[u32]| xs.iter().for_each(|x| b.extend(x.to_le_bytes()));
    let mut locals = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let name = format!("a{i}.txt");
        locals.push(b.len() as u32);
        // The local header (version 20, stored, a DOS date of 1980-01-01).
        let (flags, sums) = match e {
            Entry::Plain => (0, [crc, n, n]),
            Entry::Streamed(_) => (8, [0, 0, 0]),
        };
        u32s(&mut b, &[0x0403_4B50]);
        u16s(&mut b, &[20, flags, 0, 0, 0x21]);
        u32s(&mut b, &sums);
        u16s(&mut b, &[name.len() as u16, 0]);
        b.extend(name.as_bytes());
        b.extend(data);
        match e {
            Entry::Streamed(Some(true)) => u32s(&mut b, &[0x0807_4B50, crc, n, n]),
            Entry::Streamed(Some(false)) => u32s(&mut b, &[crc, n, n]),
            _ => {}
        }
    }
    let cd = b.len() as u32;
    for (i, e) in entries.iter().enumerate() {
        let name = format!("a{i}.txt");
        let flags = if matches!(e, Entry::Plain) { 0 } else { 8 };
        u32s(&mut b, &[0x0201_4B50]);
        u16s(&mut b, &[20, 20, flags, 0, 0, 0x21]);
        u32s(&mut b, &[crc, n, n]);
        u16s(&mut b, &[name.len() as u16, 0, 0, 0, 0]);
        u32s(&mut b, &[0, locals[i]]);
        b.extend(name.as_bytes());
    }
    let cd_len = b.len() as u32 - cd;
    let count = entries.len() as u16;
    u32s(&mut b, &[0x0605_4B50]);
    u16s(&mut b, &[0, 0, count, count]);
    u32s(&mut b, &[cd_len, cd]);
    u16s(&mut b, &[0]);
    b
}

/// Data descriptors (APPNOTE 4.3.9): one per entry whose flag bit 3 is set (a record per
/// record present only `when` the entry's flag says), its CRC-32 and compressed size after
/// its signature when it has one (the place read from the word before it) held to the
/// entry's. On the real archives: every flagged entry has one, found alike by the generated
/// view and the interpreter (`compare::zip`, in `real_zip_files_agree_with_the_zip_crate`).
/// On a streamed archive written here, signed and unsigned: both readers accept it; every
/// byte of the descriptor's CRC-32 and size flipped is `descriptor-differs`, its uncompressed
/// size (not read: 4 or 8 bytes by ZIP64) accepted, and a flagged entry without a descriptor
/// before the central directory is `descriptor-out-of-bounds`; the `zip` crate, which reads
/// an archive from its central directory and never reads a descriptor, accepts all of these
/// (a rule the schema states and the crate does not), and the interpreter gives the
/// generated code's error on each. A descriptor is its entry's own: an unflagged entry after
/// a flagged one has none, in both engines (the rule's `when` taken away, the second of two
/// entries of the same data fails it rather than pass on the first one's descriptor).
#[test]
fn data_descriptors_are_checked() {
    let interp = interp();
    let (mut archives, mut flagged, mut signed) = (0usize, 0usize, 0usize);
    for p in zips(600) {
        let Ok(b) = std::fs::read(&p) else { continue };
        let Ok(v) = Zip::validate(&b) else { continue };
        let before = flagged;
        for c in v.centrals() {
            let h = c.header();
            let (lead, desc) = (v.descriptor_lead(&h), v.descriptor(&h));
            if h.flags() & 8 == 0 {
                assert!(lead.is_none() && desc.is_none(), "{}", p.display());
                continue;
            }
            let (lead, desc) = (lead.unwrap(), desc.unwrap());
            assert_eq!(
                (desc.crc32(), desc.compressed_size()),
                (h.crc32(), h.compressed_size())
            );
            flagged += 1;
            signed += usize::from(lead.signature() == 0x0807_4B50);
        }
        archives += usize::from(flagged > before);
    }
    eprintln!(
        "zip_real: {archives} real archives with data descriptors, {flagged} descriptors ({signed} with the signature), each the entry's CRC-32 and size"
    );
    let same = |m: &[u8]| {
        let ours = Zip::validate(m).map(|_| ());
        assert_eq!(interp.validate(m).map(|_| ()), ours.clone());
        assert!(
            by_zip(m).is_ok(),
            "the zip crate refuses a streamed archive"
        );
        ours.err().map(|e| e.code)
    };
    let data = b"data descriptors, signed and not";
    for (sig, lead) in [(true, 4usize), (false, 0)] {
        let good = archive(data, &[Entry::Streamed(Some(sig))]);
        assert_eq!(same(&good), None, "signed: {sig}");
        let v = Zip::validate(&good).unwrap();
        let h = v.centrals().next().unwrap().header();
        let at = 30 + 6 + data.len();
        let d = v.descriptor(&h).unwrap();
        assert_eq!(span_of(&good, d.as_bytes()), at + lead);
        // The signature (when there is one), the CRC-32 and the compressed size.
        for i in at..at + lead + 8 {
            let mut m = good.clone();
            m[i] ^= 0x10;
            assert_eq!(
                same(&m),
                Some("descriptor-differs"),
                "signed {sig}, byte {i:#x}"
            );
        }
        // The uncompressed size: not read.
        for i in at + lead + 8..at + lead + 12 {
            let mut m = good.clone();
            m[i] ^= 0x10;
            assert_eq!(same(&m), None, "signed {sig}, byte {i:#x}");
        }
    }
    assert_eq!(
        same(&archive(data, &[Entry::Streamed(None)])),
        Some("descriptor-out-of-bounds")
    );
    // A descriptor is the entry's own: after an entry that has one, an entry whose flag says
    // it has none has none (its accessor `None`, its reads without a value), in the generated
    // code and in the interpreter alike. Two entries of the same data, so that a descriptor
    // left over from the first would pass the second's rule: with the rule's `when` taken
    // away, the second entry fails it, at the second entry.
    let two = archive(data, &[Entry::Streamed(Some(true)), Entry::Plain]);
    assert_eq!(same(&two), None);
    let v = Zip::validate(&two).unwrap();
    let second = v.centrals().nth(1).unwrap().header();
    assert!(v.descriptor(&second).is_none() && v.descriptor_lead(&second).is_none());
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../formats/zip.yaml"),
    )
    .unwrap();
    let rule = r#"field: descriptor.crc32, when: "(flags & DESCRIPTOR) != 0" }"#;
    assert!(text.contains(rule));
    let dir = std::env::temp_dir().join(format!("npuschema-zip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zip_always.yaml");
    std::fs::write(&path, text.replace(rule, "field: descriptor.crc32 }")).unwrap();
    let always = npuschema_codegen::load(&path).unwrap_or_else(|d| panic!("{d}"));
    let always = npuschema_codegen::interp::Interp::new(&always);
    let e = always.validate(&two).map(|_| ()).unwrap_err();
    assert_eq!(
        (e.code, e.to_string().contains("centrals[1].descriptor")),
        ("descriptor-differs", true),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Where `part`, a slice of `b`, starts in it.
fn span_of(b: &[u8], part: &[u8]) -> usize {
    part.as_ptr() as usize - b.as_ptr() as usize
}
