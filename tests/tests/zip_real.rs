//! ZIP, a public format nobody here designed (`formats/zip.yaml`): the end of central
//! directory record found by searching back over the archive comment's reach, and the central
//! directory it locates, as a record stream. Run on the ZIP files of this machine (Python
//! wheels, Java archives, test archives under `/usr/share`, `/usr/lib` and the home
//! directory's caches; skipped with a message when there are none) and held to the `zip`
//! crate verdict for verdict and name for name (every central directory entry's raw name, in
//! order), and to the schema interpreter code for code. Then mutants of small archives (the
//! end record, its comment and the central directory flipped, truncations): no panic, the
//! generated code and the interpreter agree on every one; each verdict that differs from
//! the `zip` crate's is counted by its reason, a rule the crate does not hold to on opening
//! an archive (it reads local headers only when an entry is read, shifts every offset when
//! the central directory's does not match the end record's place, and reads `entries`
//! headers whatever the directory's stated size); any other difference fails.
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

/// The `zip` crate's verdict: every entry's raw name, in central directory order.
fn by_zip(b: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let a = zip::ZipArchive::new(std::io::Cursor::new(b)).map_err(|e| e.to_string())?;
    Ok(a.file_names_raw().map(<[u8]>::to_vec).collect())
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

/// Why the `zip` crate may accept a file the schema refuses, by a rule it does not hold to
/// when it opens an archive; `None` when the two decide by the same rules.
fn crate_only_rule(
    ours: &Result<Vec<Vec<u8>>, &str>,
    theirs: &Result<Vec<Vec<u8>>, String>,
) -> Option<&'static str> {
    if theirs.is_err() {
        return None;
    }
    match ours {
        // The crate reads an entry's local header only when the entry is read.
        Err("local-header-out-of-bounds") => {
            Some("local header offsets (checked when an entry is read)")
        }
        // A central directory offset that does not match the end record's place: the crate
        // takes it for data prepended to the archive and shifts every offset.
        Err("central-out-of-bounds" | "bad-central-signature") => {
            Some("central directory offsets shifted (prepended data)")
        }
        // The crate reads `entries` headers from the central directory's start and does not
        // hold the directory to its stated size.
        Err("bad-central-entry" | "entry-count") => Some("central directory size not held to"),
        Err("zip64") => Some("ZIP64"),
        // Duplicate names: the crate keeps one entry per name.
        Ok(names) => {
            let mut u = names.clone();
            u.sort();
            u.dedup();
            (u.len() != names.len()).then_some("duplicate names")
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
            _ => match crate_only_rule(&ours, &theirs) {
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
                        .entry(crate_only_rule(&ours, &theirs).unwrap_or("undecided"))
                        .or_default() += 1
                }
            }
        };
        let mut m = good.clone();
        for at in span.clone() {
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
        let all: Vec<usize> = span.collect();
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
    // (`central-range` is not reached: `central-out-of-bounds` before it holds the directory
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
