//! GNU gettext message catalogs (.mo), a public format nobody here designed
//! (`formats/mo.yaml`): the byte order chosen by the magic, two tables of string descriptors,
//! each string followed by its NUL, the original strings sorted as C strings, the hash
//! table's words. Held to GNU gettext's own reader, `msgunfmt` (Debian's gettext, which
//! `scripts/setup-formats` installs), on the catalogs of this machine (`.mo` files under
//! `/usr/share` and `/usr/lib`; skipped with a message when there are none or no
//! `msgunfmt`), on some of them compiled again big-endian by `msgfmt --endianness=big`, and
//! on mutants: no panic, the generated code and the interpreter give the same error (code,
//! field, offset, detail, site), every file the schema refuses `msgunfmt` refuses, and every
//! file `msgunfmt` alone refuses is refused for a rule the schema does not state, named and
//! counted (where a msgid sits in the hash table: a hash of the string; a string listed
//! twice in the hash table: a pair of words anywhere in it; a minor revision's
//! system-dependent strings, which this schema does not read).
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
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use npuschema_core::Brief;
use npuschema_tests::npu1_blobs::xorshift;

// The generated code, expanded once in npuschema_tests::compare (the fuzz target's too).
use npuschema_tests::compare::schemas::mo;

fn interp() -> &'static npuschema_codegen::interp::Interp<'static> {
    npuschema_tests::interp("../formats/mo.yaml")
}

/// The catalogs of this machine, smaller than 4 MiB, in path order.
fn catalogs() -> Vec<(PathBuf, Vec<u8>)> {
    npuschema_tests::real_files(
        &[PathBuf::from("/usr/share"), PathBuf::from("/usr/lib")],
        &["mo"],
        4 << 20,
        10_000,
    )
    .into_iter()
    .filter_map(|p| Some((p.clone(), std::fs::read(&p).ok()?)))
    .collect()
}

/// Whether `msgunfmt` is on this machine.
fn have_msgunfmt() -> bool {
    Command::new("msgunfmt")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `cmd args` with `input` on its standard input: its standard output, or its first line of
/// errors. A run past ten seconds is killed: `Err("did not finish")` (GNU's reader spins on
/// some mutants; ours is bounded by the file).
fn run(cmd: &str, args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
    let mut child = Command::new(cmd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    // Written from another thread: a child that stops reading early must not block us.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let (mut out, mut err) = (
        child.stdout.take().expect("stdout"),
        child.stderr.take().expect("stderr"),
    );
    let reader = std::thread::spawn(move || {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let _ = std::io::Read::read_to_end(&mut out, &mut o);
        let _ = std::io::Read::read_to_end(&mut err, &mut e);
        (o, e)
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    writer.join().expect("writer");
    let (o, e) = reader.join().expect("reader");
    match status {
        Some(s) if s.success() => Ok(o),
        Some(_) => Err(String::from_utf8_lossy(&e)
            .lines()
            .next()
            .unwrap_or("")
            .to_string()),
        None => Err("did not finish".to_string()),
    }
}

/// GNU's verdict on a catalog: its reason when it refuses one.
fn by_msgunfmt(b: &[u8]) -> Result<(), String> {
    run("msgunfmt", &["-"], b).map(|_| ())
}

/// The generated validator's verdict (its `Brief` names the same check) and, when it
/// accepts, the msgids in table order.
fn by_schema(b: &[u8]) -> Result<Vec<Vec<u8>>, &'static str> {
    let brief = mo::Mo::validate_as::<Brief>(b).map(|_| ());
    match mo::Mo::validate(b) {
        Ok(v) => {
            assert_eq!(brief, Ok(()));
            Ok(v.originals().map(|r| v.msgid(&r).to_vec()).collect())
        }
        Err(e) => {
            let site = mo::error_site(brief.expect_err("Brief rejects too").id()).unwrap();
            assert_eq!((site.code, site.name), (e.code, e.field.name));
            Err(e.code)
        }
    }
}

/// The generated code and the interpreter on one file: the same error (code, field,
/// offset, detail, site), or both accept.
fn same_verdict(b: &[u8]) {
    let i = interp();
    assert_eq!(
        i.check::<Brief>(b).map_err(|e| e.id()),
        mo::Mo::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id()),
        "Brief"
    );
    assert_eq!(
        i.check::<npuschema_core::Error>(b).err(),
        mo::Mo::validate(b).err(),
        "Error"
    );
}

/// As `same_verdict`, and when both accept, the interpreter's view reads what the
/// generated one does (every descriptor, string and hash word: the view's lists searched
/// per record, so not for every catalog of thousands of strings).
fn same_as_interpreter(b: &[u8]) {
    npuschema_tests::agree_with(
        "../formats/mo.yaml",
        b,
        mo::Mo::validate(b),
        mo::Mo::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id()),
        |g, v| npuschema_tests::compare::mo(b, g, v),
    );
}

/// Why `msgunfmt` refuses a catalog the schema accepts: a rule the schema does not state.
/// Panics on any other reason.
fn reason_schema_leaves_out(b: &[u8], why: &str) -> &'static str {
    if why.contains("wrong index in the hash table") {
        return "where a msgid sits in the hash table (a hash of the string)";
    }
    if why.contains("not present in the hash table") {
        return "a string missing from the hash table";
    }
    if why.contains("hash table contains invalid entries") {
        // Each word is 0 or at most the count (the schema's rule); GNU also refuses a
        // string listed twice.
        let v = mo::Mo::validate(b).expect("accepted");
        let mut seen = std::collections::HashSet::new();
        let twice = v
            .slots()
            .map(|s| s.entry())
            .filter(|&e| e != 0)
            .any(|e| !seen.insert(e));
        assert!(twice, "msgunfmt: {why}, and no string is listed twice");
        return "a string listed twice in the hash table";
    }
    // GNU's reader compares each msgid with the first only (it never moves on from it), and
    // wants each strictly above it: a sorted table with another msgid equal to the first.
    if why.contains("array of messages is not sorted") {
        let v = mo::Mo::validate(b).expect("accepted");
        let ids: Vec<&[u8]> = v.originals().map(|r| v.msgid(&r)).collect();
        assert!(
            ids.iter().skip(1).any(|m| Some(m) == ids.first()),
            "msgunfmt: {why}, and no msgid equals the first"
        );
        return "a msgid equal to the first (GNU's reader wants each above the first)";
    }
    // A minor revision (1) adds system-dependent strings, located by five more header
    // words, which GNU reads and this schema does not.
    let v = mo::Mo::validate(b).expect("accepted");
    if v.header().revision() & 0xFFFF != 0 {
        return "a minor revision's system-dependent strings (not read here)";
    }
    panic!("msgunfmt refuses a catalog the schema accepts: {why}")
}

#[test]
fn real_catalogs_agree_with_msgunfmt() {
    let files = catalogs();
    if files.is_empty() || !have_msgunfmt() {
        eprintln!(
            "mo_real: no .mo file under /usr/share or /usr/lib, or no msgunfmt (scripts/setup-formats installs gettext); skipped"
        );
        return;
    }
    assert_eq!(interp().sites(), &mo::ERROR_SITES[..]);
    let (mut accepted, mut strings, mut asked, mut big) = (0usize, 0usize, 0usize, 0usize);
    let mut apart = BTreeMap::<&str, usize>::new();
    for (k, (p, b)) in files.iter().enumerate() {
        // (The view comparison searches the interpreter's lists per record: small catalogs.)
        if k.is_multiple_of(16) && b.len() < 16 << 10 {
            same_as_interpreter(b);
        } else {
            same_verdict(b);
        }
        let ours = by_schema(b);
        // Every catalog msgfmt wrote: accepted, its strings read.
        let ids = ours.unwrap_or_else(|e| panic!("{}: refused, {e}", p.display()));
        accepted += 1;
        strings += ids.len();
        // GNU's reader on one catalog in eight (a process each).
        if k.is_multiple_of(8) {
            asked += 1;
            if let Err(why) = by_msgunfmt(b) {
                *apart.entry(reason_schema_leaves_out(b, &why)).or_default() += 1;
            }
        }
        // One in sixty-four compiled again big-endian: the same msgids, read in that order
        // (a catalog of its header entry alone gives msgfmt nothing to write).
        if k.is_multiple_of(64)
            && let Ok(po) = run("msgunfmt", &["-"], b)
            && !po.is_empty()
        {
            let be = run("msgfmt", &["--endianness=big", "-o", "-", "-"], &po)
                .unwrap_or_else(|e| panic!("{}: msgfmt: {e}", p.display()));
            assert_eq!(
                be.get(..4),
                Some(&[0x95, 0x04, 0x12, 0xde][..]),
                "{}: big-endian magic",
                p.display()
            );
            let be_ids =
                by_schema(&be).unwrap_or_else(|e| panic!("{}: big-endian: {e}", p.display()));
            assert_eq!(be_ids, ids, "{}: big-endian msgids", p.display());
            assert_eq!(by_msgunfmt(&be), Ok(()));
            same_as_interpreter(&be);
            big += 1;
        }
    }
    eprintln!(
        "mo_real: {} catalogs, {accepted} accepted ({strings} msgids read, sorted); msgunfmt on {asked}, refusing for rules the schema does not state {apart:?}; {big} compiled again big-endian, read alike",
        files.len()
    );
    assert!(big > 0, "no catalog compiled again big-endian");
}

#[test]
fn mutants_agree_with_msgunfmt() {
    if !have_msgunfmt() {
        eprintln!("mo_real: no msgunfmt (scripts/setup-formats installs gettext); skipped");
        return;
    }
    // The three smallest catalogs with a hash table and at least four strings.
    let mut small: Vec<(PathBuf, Vec<u8>)> = catalogs()
        .into_iter()
        .filter(|(_, b)| {
            mo::Mo::validate(b).is_ok_and(|v| v.header().count() >= 4 && v.header().hash_size() > 0)
        })
        .collect();
    small.sort_by_key(|(_, b)| b.len());
    small.truncate(3);
    if small.is_empty() {
        eprintln!("mo_real: no catalog with a hash table and four strings here; skipped");
        return;
    }
    let mut verdicts = BTreeMap::<&str, usize>::new();
    let (mut apart, mut ours_alone) = (
        BTreeMap::<&str, usize>::new(),
        BTreeMap::<&str, usize>::new(),
    );
    let mut compared = 0usize;
    for (k, (p, good)) in small.iter().enumerate() {
        let mut check = |m: &[u8]| {
            same_as_interpreter(m);
            let ours = by_schema(m);
            *verdicts
                .entry(ours.as_ref().err().copied().unwrap_or("ok"))
                .or_default() += 1;
            match (&ours, by_msgunfmt(m)) {
                // GNU's lookups step through the hash table by a stride below its size: with
                // a size that is not prime they may cycle without meeting an empty word.
                (_, Err(why)) if why == "did not finish" => {
                    let size = u32::from_le_bytes(m[20..24].try_into().unwrap());
                    let size = if m[0] == 0xde {
                        size
                    } else {
                        size.swap_bytes()
                    };
                    assert!(
                        !(2..size)
                            .take_while(|d| d * d <= size)
                            .all(|d| size % d != 0),
                        "msgunfmt did not finish on a catalog whose hash table size {size} is prime"
                    );
                    *apart
                        .entry(
                            "a hash table size that is not prime (msgunfmt did not finish in 10 s)",
                        )
                        .or_default() += 1;
                }
                (Ok(_), Ok(())) | (Err(_), Err(_)) => {}
                // GNU's reader does not see a msgid below the one before it, past the first.
                (Err("not-sorted"), Ok(())) => {
                    *ours_alone
                        .entry("unsorted past the first msgid (GNU's reader compares each with the first only)")
                        .or_default() += 1;
                }
                (Err(e), Ok(())) => panic!(
                    "{}: the schema refuses ({e}), msgunfmt accepts",
                    p.display()
                ),
                (Ok(_), Err(why)) => {
                    *apart.entry(reason_schema_leaves_out(m, &why)).or_default() += 1
                }
            }
            compared += 1;
        };
        // The header and the string tables: each byte flipped three ways.
        let v = mo::Mo::validate(good).unwrap();
        let h = v.header();
        let tables = [
            (h.originals(), h.count().saturating_mul(8)),
            (h.translations(), h.count().saturating_mul(8)),
            (h.hash_offset(), h.hash_size().saturating_mul(4)),
        ];
        let mut spots: Vec<usize> = (0..28).collect();
        for (at, n) in tables {
            spots.extend((at as usize..).take((n as usize).min(48)));
        }
        let mut m = good.clone();
        for &at in &spots {
            for x in [0x01u8, 0x80, 0xFF] {
                m[at] ^= x;
                check(&m);
                m[at] = good[at];
            }
        }
        // Truncations, and random bytes anywhere.
        for len in (0..good.len()).step_by((good.len() / 60).max(1)) {
            check(&good[..len]);
        }
        let mut next = xorshift(0x6D6F + k as u32);
        for _ in 0..300 {
            for _ in 0..=(next() % 3) {
                let at = if next().is_multiple_of(4) {
                    next() as usize % good.len()
                } else {
                    spots[next() as usize % spots.len()]
                };
                m[at] = next() as u8;
            }
            check(&m);
            m.copy_from_slice(good);
        }
    }
    eprintln!(
        "mo_real mutants: {compared} of {} catalogs, each with msgunfmt's verdict and the interpreter's error; verdicts {verdicts:?}; refused by msgunfmt alone, for rules the schema does not state: {apart:?}; by the schema alone, for a rule GNU's reader does not hold to: {ours_alone:?}",
        small.len()
    );
    for code in [
        "bad-magic",
        "originals-out-of-bounds",
        "string-out-of-bounds",
        "not-sorted",
        "bad-hash-entry",
        "ok",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}

#[test]
fn a_big_endian_catalog_reads_in_its_order() {
    // A catalog of two messages written by hand in both orders: the same view.
    fn catalog(big: bool) -> Vec<u8> {
        let w = |v: u32| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let mut b = Vec::new();
        for v in [0x9504_12de, 0, 2, 28, 44, 0, 60] {
            b.extend(w(v));
        }
        // Originals "a" and "b" at 60 and 62; translations "x" and "yz" at 64 and 66.
        for (len, at) in [(1, 60), (1, 62), (1, 64), (2, 66)] {
            b.extend(w(len));
            b.extend(w(at));
        }
        b.extend(b"a\0b\0x\0yz\0");
        b
    }
    for big in [false, true] {
        let b = catalog(big);
        let v = mo::Mo::validate(&b).unwrap_or_else(|e| panic!("big {big}: {e}"));
        assert_eq!(v.header().count(), 2);
        let ids: Vec<&[u8]> = v.originals().map(|r| v.msgid(&r)).collect();
        assert_eq!(ids, [b"a".as_slice(), b"b"]);
        let strs: Vec<Option<&[u8]>> = v.translations().map(|r| r.msgstr_bytes()).collect();
        assert_eq!(strs, [Some(b"x\0".as_slice()), Some(b"yz\0")]);
        same_as_interpreter(&b);
        if have_msgunfmt() {
            assert_eq!(by_msgunfmt(&b), Ok(()), "big {big}");
        }
        // "b" before "a": not sorted, at the second original's offset field.
        let mut swapped = b.clone();
        let (a, c) = (28 + 4, 28 + 12);
        let (x, y) = (swapped[a..a + 4].to_vec(), swapped[c..c + 4].to_vec());
        swapped[a..a + 4].copy_from_slice(&y);
        swapped[c..c + 4].copy_from_slice(&x);
        let e = mo::Mo::validate(&swapped).expect_err("unsorted");
        assert_eq!(
            (e.code, e.field.name, e.field.index),
            ("not-sorted", "offset", 1)
        );
        same_as_interpreter(&swapped);
    }
}
