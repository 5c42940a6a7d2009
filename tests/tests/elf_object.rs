//! A public format nobody here designed: `formats/elf64.yaml` (ELF64 in the byte order its
//! `EI_DATA` chooses: header, program and section header tables, section names in
//! `.shstrtab` located by `sections[header.e_shstrndx]`, an open `sh_type`, section bytes
//! where not `nobits`), expanded by the macro, held to the `object` crate's ELF reader (in
//! either byte order) on the ELF files of this machine (`/usr/bin`,
//! `/usr/lib/x86_64-linux-gnu/*.so*`, and the big-endian C library of s390x that
//! `scripts/setup-formats` installs, `/usr/s390x-linux-gnu/lib`; skipped with a message when
//! there are none): verdict for verdict, and field for field (each section's name, type,
//! offset and size). The interpreter gives the same verdicts and names on a sample.
//! Then a mutation sweep of small real files (every byte of the headers, the section and
//! program header tables and `.shstrtab` flipped, truncations, random mutants): no panic,
//! every mutant accepted or rejected with a code, and the same verdict as `object`
//! wherever `object` decides by the checks the schema makes (one with entries larger than
//! their struct, which the schema reads as readelf does and `object` refuses, is counted
//! apart). ELF's extended numbering (counts and the string table index in section 0) is
//! compared like the rest. A real file rewritten with padded section and program headers,
//! and one rewritten with extended numbering, read as the original does.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use std::path::PathBuf;

use npuschema_core::Brief;
use npuschema_tests::npu1_blobs::xorshift;
use object::Endianness;
use object::elf::FileHeader64;
use object::read::elf::{FileHeader, SectionHeader};

#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod elf64 {
    npuschema_macro::include_schema!("../formats/elf64.yaml");
}

/// A section as both readers give it: name, type, offset, size.
type Sec = (Vec<u8>, u32, u64, u64);

/// `object`'s verdict over the parts the schema checks: the header, the program headers,
/// the section headers and their string table, every section's name and every section's
/// bytes.
fn by_object(b: &[u8]) -> Result<Vec<Sec>, String> {
    let h = FileHeader64::<Endianness>::parse(b).map_err(|e| e.to_string())?;
    let e = h.endian().map_err(|e| e.to_string())?;
    h.program_headers(e, b).map_err(|e| e.to_string())?;
    let t = h.sections(e, b).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for s in t.iter() {
        let name = t.section_name(e, s).map_err(|e| e.to_string())?;
        s.data(e, b).map_err(|e| e.to_string())?;
        out.push((name.to_vec(), s.sh_type(e), s.sh_offset(e), s.sh_size(e)));
    }
    Ok(out)
}

/// The generated validator's verdict and sections; its `Brief` names the same check.
fn by_schema(b: &[u8]) -> Result<Vec<Sec>, &'static str> {
    let brief = elf64::Elf64::validate_as::<Brief>(b).map(|_| ());
    match elf64::Elf64::validate(b) {
        Ok(v) => {
            assert_eq!(brief, Ok(()));
            Ok(v.sections()
                .map(|s| {
                    (
                        v.name(&s).to_vec(),
                        s.sh_type_raw(),
                        s.sh_offset(),
                        s.sh_size(),
                    )
                })
                .collect())
        }
        Err(e) => {
            let site = elf64::error_site(brief.expect_err("Brief rejects too").id()).unwrap();
            assert_eq!((site.code, site.name), (e.code, e.field.name));
            assert!(!e.code.is_empty());
            Err(e.code)
        }
    }
}

/// Whether `b` is big-endian by its `EI_DATA` (2), as both readers take it.
fn big(b: &[u8]) -> bool {
    b.get(5) == Some(&2)
}

/// A `u16` in `b`'s byte order.
fn u16_in(b: &[u8], x: [u8; 2]) -> u16 {
    if big(b) {
        u16::from_be_bytes(x)
    } else {
        u16::from_le_bytes(x)
    }
}

/// A `u64` in `b`'s byte order.
fn u64_in(b: &[u8], x: [u8; 8]) -> u64 {
    if big(b) {
        u64::from_be_bytes(x)
    } else {
        u64::from_le_bytes(x)
    }
}

/// Whether the file uses ELF's extended numbering (or would make a reader use it): `e_shnum`
/// 0 with section headers, `e_shstrndx` 0xffff, `e_phnum` 0xffff.
fn extended_numbering(b: &[u8]) -> bool {
    let u16_at = |at: usize| b.get(at..at + 2).map(|x| u16_in(b, [x[0], x[1]]));
    let shoff = b.get(40..48).map(|x| u64_in(b, x.try_into().unwrap()));
    matches!((u16_at(60), shoff), (Some(0), Some(off)) if off != 0)
        || u16_at(62) == Some(0xFFFF)
        || u16_at(56) == Some(0xFFFF)
}

/// Whether the file's program or section headers are larger than their struct (with
/// entries): the schema reads them padded (its stride is the entry size, as readelf's),
/// `object` requires the exact size.
fn padded_entries(b: &[u8]) -> bool {
    let u16_at = |at: usize| b.get(at..at + 2).map(|x| u16_in(b, [x[0], x[1]]));
    let u64_at = |at: usize| b.get(at..at + 8).map(|x| u64_in(b, x.try_into().unwrap()));
    // `object` requires the exact section header size whenever there are section headers
    // (to read them, or section 0 for the count), the program header size when it reads
    // program headers.
    let ph = u64_at(32).is_some_and(|o| o != 0) && u16_at(56).is_some_and(|n| n != 0);
    let sh = u64_at(40).is_some_and(|o| o != 0);
    (ph && u16_at(54).is_some_and(|s| s > 56)) || (sh && u16_at(58).is_some_and(|s| s > 64))
}

/// `good` with its program and section headers copied to its end, each padded with
/// `extra` bytes of 0xA5 (`e_phentsize` 56 + extra, `e_shentsize` 64 + extra).
fn with_padded_entries(good: &[u8], extra: usize) -> Vec<u8> {
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([good[at], good[at + 1]]));
    let u64_at = |at: usize| u64::from_le_bytes(good[at..at + 8].try_into().unwrap()) as usize;
    let mut b = good.to_vec();
    for (off_at, num_at, size_at, size) in [(32, 56, 54, 56usize), (40, 60, 58, 64)] {
        let (off, n) = (u64_at(off_at), u16_at(num_at));
        if off == 0 || n == 0 {
            continue;
        }
        b.resize(b.len().next_multiple_of(8), 0);
        let at = b.len() as u64;
        for i in 0..n {
            b.extend_from_slice(&good[off + i * size..off + (i + 1) * size]);
            b.extend(std::iter::repeat_n(0xA5, extra));
        }
        b[off_at..off_at + 8].copy_from_slice(&at.to_le_bytes());
        b[size_at..size_at + 2].copy_from_slice(&((size + extra) as u16).to_le_bytes());
    }
    b
}

/// The ELF files of this machine (by canonical path, each once).
fn real_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for dir in ["/usr/bin", "/usr/lib/x86_64-linux-gnu"] {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = rd.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        for p in paths {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if dir.ends_with("gnu") && !name.contains(".so") {
                continue;
            }
            let Ok(c) = std::fs::canonicalize(&p) else {
                continue;
            };
            if c.is_file() && seen.insert(c.clone()) {
                out.push(c);
            }
        }
    }
    out
}

/// The interpreter on `b` (the file at `p`): the generated code's verdict `ours`, its code
/// when it refuses, the same section names when it accepts.
fn interpreter_agrees(
    interp: &npuschema_codegen::interp::Interp<'_>,
    b: &[u8],
    ours: &Result<Vec<Sec>, &'static str>,
    p: &std::path::Path,
) {
    match (interp.validate(b), ours) {
        (Ok(v), Ok(secs)) => {
            let names: Vec<&[u8]> = v.strings.iter().map(|s| s.bytes.as_slice()).collect();
            let want: Vec<&[u8]> = secs.iter().map(|s| s.0.as_slice()).collect();
            assert_eq!(names, want, "{}", p.display());
        }
        (Err(e), Err(code)) => assert_eq!(e.code, *code, "{}", p.display()),
        (v, o) => panic!(
            "{}: interpreter {:?} / generated {:?}",
            p.display(),
            v.map(|_| ()),
            o.as_ref().map(|_| ())
        ),
    }
}

fn is_elf(b: &[u8]) -> bool {
    b.starts_with(b"\x7fELF")
}

#[test]
fn real_elf_files_agree_with_object() {
    let files = real_files();
    if files.is_empty() {
        eprintln!("elf_object: no /usr/bin or /usr/lib/x86_64-linux-gnu here; skipped");
        return;
    }
    let interp = npuschema_tests::interp("../formats/elf64.yaml");
    let (mut elf, mut accepted, mut sections, mut other_codes) = (0usize, 0, 0, Vec::new());
    for (i, p) in files.iter().enumerate() {
        let Ok(b) = std::fs::read(p) else {
            continue;
        };
        // A script or data file: both refuse it.
        elf += usize::from(is_elf(&b));
        let ours = by_schema(&b);
        let theirs = by_object(&b);
        match (&ours, &theirs) {
            (Ok(a), Ok(t)) => {
                assert_eq!(a, t, "{}: the sections differ", p.display());
                accepted += 1;
                sections += a.len();
            }
            (Err(code), Err(_)) => other_codes.push(*code),
            _ => panic!(
                "{}: schema {:?} / object {:?}",
                p.display(),
                ours.as_ref().map(Vec::len),
                theirs.as_ref().map(Vec::len)
            ),
        }
        // The interpreter, on every tenth file: the same verdict and the same names.
        if i % 10 == 0 {
            interpreter_agrees(interp, &b, &ours, p);
        }
    }
    other_codes.sort_unstable();
    other_codes.dedup();
    eprintln!(
        "elf_object: {} files, {elf} ELF, {accepted} accepted by both ({sections} sections: names, types, offsets and sizes equal); the others refused by both, with the codes {other_codes:?}",
        files.len()
    );
    assert!(accepted > 0, "no ELF64 file was found");
}

/// Mutants of `good`: every byte of `spans` with three masks, every truncation up to
/// `trunc`, and `random` random multi-byte mutants of those spans.
fn sweep(
    good: &[u8],
    spans: &[std::ops::Range<usize>],
    trunc: usize,
    random: usize,
    seed: u32,
    verdicts: &mut std::collections::BTreeMap<&'static str, usize>,
) -> (usize, usize) {
    let (mut compared, mut skipped) = (0usize, 0usize);
    let mut check = |m: &[u8], verdicts: &mut std::collections::BTreeMap<&'static str, usize>| {
        let ours = by_schema(m);
        *verdicts
            .entry(ours.as_ref().err().copied().unwrap_or("ok"))
            .or_default() += 1;
        if extended_numbering(m) {
            skipped += 1;
        }
        if padded_entries(m) {
            *verdicts.entry("padded (object refuses)").or_default() += 1;
            return;
        }
        let theirs = by_object(m);
        match (&ours, &theirs) {
            (Ok(a), Ok(t)) => assert_eq!(a, t),
            (Err(_), Err(_)) => {}
            _ => panic!(
                "verdicts differ: schema {:?} / object {:?}; header {:02x?}",
                ours.as_ref().map(Vec::len),
                theirs,
                &m[..64]
            ),
        }
        compared += 1;
    };
    let mut m = good.to_vec();
    for span in spans {
        for at in span.clone() {
            for x in [0x01u8, 0x80, 0xFF] {
                m[at] ^= x;
                check(&m, verdicts);
                m[at] = good[at];
            }
        }
    }
    for len in 0..trunc.min(good.len()) {
        check(&good[..len], verdicts);
    }
    let mut next = xorshift(seed);
    let all: Vec<usize> = spans.iter().flat_map(Clone::clone).collect();
    for _ in 0..random {
        for _ in 0..=(next() % 4) {
            let at = all[next() as usize % all.len()];
            m[at] = next() as u8;
        }
        check(&m, verdicts);
        m.copy_from_slice(good);
    }
    (compared, skipped)
}

#[test]
fn mutants_of_real_elf_files_agree_with_object() {
    // The three smallest ELF64 files of /usr/bin with sections that both readers accept.
    let mut small: Vec<(usize, Vec<u8>)> = real_files()
        .iter()
        .filter(|p| p.starts_with("/usr/bin"))
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| is_elf(b) && by_schema(b).is_ok_and(|s| s.len() > 4))
        .map(|b| (b.len(), b))
        .collect();
    if small.is_empty() {
        eprintln!("elf_object: no ELF64 file in /usr/bin here; skipped");
        return;
    }
    small.sort();
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let (mut compared, mut skipped) = (0, 0);
    for (i, (_, good)) in small.iter().take(3).enumerate() {
        assert!(by_object(good).is_ok());
        let v = elf64::Elf64::validate(good).unwrap();
        let h = v.header();
        let shoff = h.e_shoff() as usize;
        let phoff = h.e_phoff() as usize;
        let shstrtab = v.shstrtab();
        let names_at = shstrtab.as_ptr() as usize - good.as_ptr() as usize;
        let spans = [
            0..64,
            phoff..phoff + 56 * usize::from(h.e_phnum()),
            shoff..shoff + 64 * usize::from(h.e_shnum()),
            names_at..names_at + shstrtab.len(),
        ];
        let (c, s) = sweep(good, &spans, 4096, 20_000, 0xE1F0 + i as u32, &mut verdicts);
        compared += c;
        skipped += s;
        // The same file with extended numbering: the header and section 0 mutated.
        let ext = with_extended_numbering(good);
        let ext_spans = [0..64, shoff..shoff + 64];
        let (c, s) = sweep(&ext, &ext_spans, 0, 5_000, 0xE7F0 + i as u32, &mut verdicts);
        compared += c;
        skipped += s;
        // Truncations around the end of the section header table too.
        let end = shoff + 64 * usize::from(h.e_shnum());
        for len in end.saturating_sub(130)..good.len().min(end + 2) {
            let ours = by_schema(&good[..len]);
            assert_eq!(
                ours.is_ok(),
                by_object(&good[..len]).is_ok(),
                "truncated at {len}"
            );
        }
    }
    eprintln!(
        "elf_object mutants: {compared} compared with object ({skipped} of them with extended numbering); verdicts {verdicts:?}"
    );
    for code in [
        "truncated-header",
        "bad-magic",
        "not-64-bit",
        "bad-data",
        "bad-ident-version",
        "section0-out-of-bounds",
        "bad-phentsize",
        "segments-out-of-bounds",
        "bad-shentsize",
        "sections-out-of-bounds",
        "bad-shstrndx",
        "shstrtab-out-of-bounds",
        "section-out-of-bounds",
        "bad-section-name",
        "ok",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}

/// `good` (with section headers) with its counts and string table index moved into section
/// 0, as ELF's extended numbering keeps them: `e_phnum` PN_XNUM with the count in `sh_info`,
/// `e_shnum` 0 with the count in `sh_size`, `e_shstrndx` SHN_XINDEX with the index in
/// `sh_link`.
fn with_extended_numbering(good: &[u8]) -> Vec<u8> {
    let u16_at = |at: usize| u16::from_le_bytes([good[at], good[at + 1]]);
    let shoff = u64::from_le_bytes(good[40..48].try_into().unwrap()) as usize;
    let (phnum, shnum, shstrndx) = (u16_at(56), u16_at(60), u16_at(62));
    let mut ext = good.to_vec();
    ext[56..58].copy_from_slice(&0xFFFFu16.to_le_bytes());
    ext[60..62].copy_from_slice(&0u16.to_le_bytes());
    ext[62..64].copy_from_slice(&0xFFFFu16.to_le_bytes());
    // Section 0: sh_size at 32, sh_link at 40, sh_info at 44.
    ext[shoff + 32..shoff + 40].copy_from_slice(&u64::from(shnum).to_le_bytes());
    ext[shoff + 40..shoff + 44].copy_from_slice(&u32::from(shstrndx).to_le_bytes());
    ext[shoff + 44..shoff + 48].copy_from_slice(&u32::from(phnum).to_le_bytes());
    ext
}

/// The smallest ELF64 file of /usr/bin with more than four sections that the schema
/// accepts (a file the rewrites below start from).
fn smallest_elf() -> Option<Vec<u8>> {
    real_files()
        .iter()
        .filter(|p| p.starts_with("/usr/bin"))
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| is_elf(b) && by_schema(b).is_ok_and(|s| s.len() > 4))
        .min_by_key(Vec::len)
}

/// Padded entries: a real file's program and section headers copied to its end, each
/// followed by 8 (then 40) bytes that belong to no entry, `e_phentsize` and `e_shentsize`
/// saying so. The generated validator and the interpreter read the same sections (names,
/// types, offsets, sizes) as `object` reads from the original; `object` refuses the padded
/// file (it requires the exact entry sizes). An entry size below the struct's is refused.
#[test]
fn padded_entries_read_as_the_original() {
    let Some(good) = smallest_elf() else {
        eprintln!("elf_object: no ELF64 file in /usr/bin here; skipped");
        return;
    };
    let interp = npuschema_tests::interp("../formats/elf64.yaml");
    let want = by_object(&good).unwrap();
    for extra in [8usize, 40] {
        let padded = with_padded_entries(&good, extra);
        assert!(padded_entries(&padded));
        assert_eq!(by_schema(&padded), Ok(want.clone()), "padded by {extra}");
        let v = elf64::Elf64::validate(&padded).unwrap();
        assert_eq!(v.header().e_shentsize(), 64 + extra as u16);
        assert_eq!(v.segments().len(), usize::from(v.header().e_phnum()));
        let iv = interp.validate(&padded).unwrap_or_else(|e| panic!("{e:?}"));
        let names: Vec<&[u8]> = iv.strings.iter().map(|s| s.bytes.as_slice()).collect();
        let want_names: Vec<&[u8]> = want.iter().map(|s| s.0.as_slice()).collect();
        assert_eq!(names, want_names, "the interpreter, padded by {extra}");
        assert!(
            by_object(&padded).is_err(),
            "object requires the exact size"
        );
    }
    // Entries shorter than their struct: refused, by both engines, naming the field.
    let mut short = with_padded_entries(&good, 8);
    short[58..60].copy_from_slice(&63u16.to_le_bytes());
    assert_eq!(by_schema(&short), Err("bad-shentsize"));
    assert_eq!(
        interp.validate(&short).map(|_| ()).map_err(|e| e.code),
        Err("bad-shentsize")
    );
}

/// Extended numbering: a real file's `e_shnum` moved into section 0's `sh_size`, its
/// `e_shstrndx` into `sh_link` (SHN_XINDEX in the header), its `e_phnum` into `sh_info`
/// (PN_XNUM): both readers read what they read from the original (section 0's size now the
/// count), and the generated code and the interpreter agree. A mutant of each (section 0's
/// word changed) too; PN_XNUM without section headers is `bad-phnum`.
#[test]
fn extended_numbering_reads_as_the_original() {
    let Some(good) = smallest_elf() else {
        eprintln!("elf_object: no ELF64 file in /usr/bin here; skipped");
        return;
    };
    let interp = npuschema_tests::interp("../formats/elf64.yaml");
    let want = by_object(&good).unwrap();
    let u16_at = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
    let shoff = u64::from_le_bytes(good[40..48].try_into().unwrap()) as usize;
    let (phnum, shnum) = (u16_at(&good, 56), u16_at(&good, 60));
    let ext = with_extended_numbering(&good);
    assert!(extended_numbering(&ext));
    // What the original's section 0 says, but for the count it now holds.
    let mut want = want;
    want[0].3 = u64::from(shnum);
    assert_eq!(by_object(&ext).as_ref(), Ok(&want), "object reads it");
    assert_eq!(
        by_schema(&ext),
        Ok(want.clone()),
        "the generated code reads it"
    );
    let v = elf64::Elf64::validate(&ext).unwrap();
    assert_eq!(v.segments().len(), usize::from(phnum));
    let iv = interp.validate(&ext).unwrap_or_else(|e| panic!("{e:?}"));
    let names: Vec<&[u8]> = iv.strings.iter().map(|s| s.bytes.as_slice()).collect();
    let want_names: Vec<&[u8]> = want.iter().map(|s| s.0.as_slice()).collect();
    assert_eq!(names, want_names, "the interpreter reads it");
    // Each word of section 0 wrong: the two readers agree on the verdict, and the two
    // engines on the code.
    for (at, bad) in [
        (32usize, 0xFFFF_FFFFu64),
        (40, 0),
        (40, u64::from(shnum)),
        (44, 0xFFFF),
    ] {
        let mut m = ext.clone();
        let width = if at == 32 { 8 } else { 4 };
        m[shoff + at..shoff + at + width].copy_from_slice(&bad.to_le_bytes()[..width]);
        let ours = by_schema(&m);
        assert_eq!(
            ours.is_ok(),
            by_object(&m).is_ok(),
            "section 0 +{at} = {bad:#x}"
        );
        assert_eq!(
            interp.validate(&m).map(|_| ()).map_err(|e| e.code),
            ours.map(|_| ()),
            "the interpreter, section 0 +{at} = {bad:#x}"
        );
    }
    // PN_XNUM without section headers: there is no section 0 to hold the count.
    let mut no_sec = good.clone();
    no_sec[56..58].copy_from_slice(&0xFFFFu16.to_le_bytes());
    no_sec[40..48].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(by_schema(&no_sec), Err("bad-phnum"));
    assert!(by_object(&no_sec).is_err());
}

/// The big-endian ELF64 files of this machine: the C libraries of big-endian targets that
/// Debian's cross packages install under `/usr/<triple>/lib` (`scripts/setup-formats`
/// installs s390x's), each once by canonical path.
fn big_endian_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let Ok(usr) = std::fs::read_dir("/usr") else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = usr
        .filter_map(|e| Some(e.ok()?.path().join("lib")))
        .filter(|p| {
            p.parent()
                .is_some_and(|d| d.to_string_lossy().ends_with("-linux-gnu"))
        })
        .collect();
    dirs.sort();
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = rd.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        for p in paths {
            let Ok(c) = std::fs::canonicalize(&p) else {
                continue;
            };
            if !c.is_file() || !seen.insert(c.clone()) {
                continue;
            }
            let Ok(b) = std::fs::read(&c) else { continue };
            if is_elf(&b) && b.get(4) == Some(&2) && big(&b) {
                out.push((c, b));
            }
        }
    }
    out
}

/// One struct, either byte order: the big-endian ELF64 files of this machine (s390x's C
/// library) read by the generated validator as `object` reads them (every section's name,
/// type, offset and size), and by the interpreter with the same names; then mutants of the
/// smallest (every byte of its headers, tables and `.shstrtab` flipped, truncations, random
/// mutants) with the same verdicts as `object`.
#[test]
fn big_endian_files_agree_with_object() {
    let files = big_endian_files();
    if files.is_empty() {
        eprintln!(
            "elf_object: no big-endian ELF64 file under /usr/*-linux-gnu/lib here (scripts/setup-formats installs libc6-s390x-cross); skipped"
        );
        return;
    }
    let interp = npuschema_tests::interp("../formats/elf64.yaml");
    let (mut accepted, mut sections) = (0usize, 0usize);
    for (p, b) in &files {
        let ours = by_schema(b);
        let theirs = by_object(b);
        match (&ours, &theirs) {
            (Ok(a), Ok(t)) => {
                assert_eq!(a, t, "{}: the sections differ", p.display());
                accepted += 1;
                sections += a.len();
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{}: schema {ours:?} / object {theirs:?}", p.display()),
        }
        interpreter_agrees(interp, b, &ours, p);
    }
    assert!(accepted > 0, "no big-endian ELF64 file both readers accept");
    // The smallest one, mutated.
    let (_, good) = files
        .iter()
        .filter(|(_, b)| by_schema(b).is_ok_and(|s| s.len() > 4))
        .min_by_key(|(_, b)| b.len())
        .expect("a big-endian file with sections");
    let v = elf64::Elf64::validate(good).unwrap();
    let h = v.header();
    // Read in the file's order: a little-endian read of these would be byte-swapped.
    assert_eq!(h.e_ehsize(), 64);
    assert_eq!(h.e_shentsize(), 64);
    let (shoff, phoff) = (h.e_shoff() as usize, h.e_phoff() as usize);
    let shstrtab = v.shstrtab();
    let names_at = shstrtab.as_ptr() as usize - good.as_ptr() as usize;
    let spans = [
        0..64,
        phoff..phoff + 56 * usize::from(h.e_phnum()),
        shoff..shoff + 64 * usize::from(h.e_shnum()),
        names_at..names_at + shstrtab.len(),
    ];
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let (compared, _) = sweep(good, &spans, 4096, 20_000, 0xBE64, &mut verdicts);
    // The interpreter on a sample of the same mutants: the same error, field and offset.
    let mut m = good.clone();
    let mut next = xorshift(0xBE65);
    let all: Vec<usize> = spans.iter().flat_map(Clone::clone).collect();
    for _ in 0..2_000 {
        let at = all[next() as usize % all.len()];
        m[at] = next() as u8;
        let g = elf64::Elf64::validate(&m).map(|_| ());
        assert_eq!(interp.validate(&m).map(|_| ()), g);
        m.copy_from_slice(good);
    }
    eprintln!(
        "elf_object big-endian: {} files, {accepted} accepted by both ({sections} sections equal); mutants of the smallest: {compared} compared with object, verdicts {verdicts:?}",
        files.len()
    );
    for code in [
        "bad-magic",
        "bad-data",
        "sections-out-of-bounds",
        "bad-section-name",
        "ok",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}
