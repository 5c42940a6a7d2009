//! A public format nobody here designed: `formats/elf.yaml` (ELF32 and ELF64, the layout
//! chosen by `EI_CLASS` and the byte order by `EI_DATA`, one struct each: header, program
//! and section header tables, section names in `.shstrtab` located by
//! `sections[header.e_shstrndx]`, an open `sh_type`, section bytes where not `nobits`),
//! expanded by the macro, held to the `object` crate's ELF readers (`FileHeader32` and
//! `FileHeader64`, either byte order) on the ELF files of this machine (`/usr/bin`,
//! `/usr/lib/x86_64-linux-gnu/*.so*`, and the C libraries of other targets that
//! `scripts/setup-formats` installs under `/usr/<triple>/lib`: ARM's (32-bit little-endian),
//! PowerPC's (32-bit big-endian), s390x's (64-bit big-endian); skipped with a message when
//! there are none): verdict for verdict, and field for field (each section's name, type,
//! offset and size). The interpreter gives the same verdicts and names on a sample.
//! Then mutation sweeps of small real files of each class and order (every byte of the
//! headers, the section and program header tables and `.shstrtab` flipped, truncations,
//! random mutants): no panic, every mutant accepted or rejected with a code, and the same
//! verdict as `object` wherever `object` decides by the checks the schema makes (one with
//! entries larger than their struct, which the schema reads as readelf does and `object`
//! refuses, is counted apart, and so is one with its loadable segments out of `p_vaddr`
//! order, a rule of the gABI `object` does not check). ELF's extended numbering (counts and the string table index
//! in section 0) is compared like the rest. Real files of each class rewritten with padded
//! section and program headers, and with extended numbering, read as the originals do.
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
use object::Endianness;
use object::elf::{FileHeader32, FileHeader64};
use object::read::elf::{FileHeader, SectionHeader};

#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod elf {
    npuschema_macro::include_schema!("../formats/elf.yaml");
}

/// A section as both readers give it: name, type, offset, size.
type Sec = (Vec<u8>, u32, u64, u64);

/// `object`'s verdict over the parts the schema checks (the header, the program headers,
/// the section headers and their string table, every section's name and every section's
/// bytes), with the reader of the file's class.
fn by_object(b: &[u8]) -> Result<Vec<Sec>, String> {
    fn read<H: FileHeader<Endian = Endianness>>(b: &[u8]) -> Result<Vec<Sec>, String> {
        let h = H::parse(b).map_err(|e| e.to_string())?;
        let e = h.endian().map_err(|e| e.to_string())?;
        h.program_headers(e, b).map_err(|e| e.to_string())?;
        let t = h.sections(e, b).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for s in t.iter() {
            let name = t.section_name(e, s).map_err(|e| e.to_string())?;
            s.data(e, b).map_err(|e| e.to_string())?;
            out.push((
                name.to_vec(),
                s.sh_type(e),
                s.sh_offset(e).into(),
                s.sh_size(e).into(),
            ));
        }
        Ok(out)
    }
    // `FileHeader64` refuses any class but 64-bit ones (a class of 3 too).
    if b.get(4) == Some(&1) {
        read::<FileHeader32<Endianness>>(b)
    } else {
        read::<FileHeader64<Endianness>>(b)
    }
}

/// The sections of a validated file of either class.
macro_rules! sections {
    ($v:expr) => {
        $v.sections()
            .map(|s| {
                (
                    $v.name(&s).to_vec(),
                    s.sh_type_raw(),
                    u64::from(s.sh_offset()),
                    u64::from(s.sh_size()),
                )
            })
            .collect()
    };
}

/// The generated validator's verdict and sections; its `Brief` names the same check.
fn by_schema(b: &[u8]) -> Result<Vec<Sec>, &'static str> {
    let brief = elf::Elf::validate_as::<Brief>(b).map(|_| ());
    match elf::Elf::validate(b) {
        Ok(v) => {
            assert_eq!(brief, Ok(()));
            Ok(match v {
                elf::Elf::Elf32(v) => sections!(v),
                elf::Elf::Elf64(v) => sections!(v),
            })
        }
        Err(e) => {
            let site = elf::error_site(brief.expect_err("Brief rejects too").id()).unwrap();
            assert_eq!((site.code, site.name), (e.code, e.field.name));
            assert!(!e.code.is_empty());
            Err(e.code)
        }
    }
}

/// What the sweeps and rewrites read from a validated file of either class, through its
/// view (each in the file's byte order).
struct Facts<'a> {
    phoff: usize,
    phnum: usize,
    shoff: usize,
    shnum: usize,
    ehsize: u16,
    shentsize: u16,
    segments: usize,
    shstrtab: &'a [u8],
}

fn facts<'a>(v: &elf::Elf<'a>) -> Facts<'a> {
    macro_rules! of {
        ($v:expr) => {{
            let h = $v.header();
            Facts {
                phoff: h.e_phoff() as usize,
                phnum: usize::from(h.e_phnum()),
                shoff: h.e_shoff() as usize,
                shnum: usize::from(h.e_shnum()),
                ehsize: h.e_ehsize(),
                shentsize: h.e_shentsize(),
                segments: $v.segments().len(),
                shstrtab: $v.shstrtab(),
            }
        }};
    }
    match v {
        elf::Elf::Elf32(v) => of!(v),
        elf::Elf::Elf64(v) => of!(v),
    }
}

/// Where a class keeps what the rewrites and the mutation filters read (gABI, *ELF Header*
/// and *Sections*): header fields, sizes, and section 0's words.
struct Class {
    bits: u8,
    phoff: usize,
    shoff: usize,
    /// The width of an address or offset word.
    word: usize,
    phentsize: usize,
    phnum: usize,
    shentsize: usize,
    shnum: usize,
    shstrndx: usize,
    header: usize,
    segment: usize,
    section: usize,
    sh_size: usize,
    sh_link: usize,
    sh_info: usize,
}

const ELF32: Class = Class {
    bits: 32,
    phoff: 28,
    shoff: 32,
    word: 4,
    phentsize: 42,
    phnum: 44,
    shentsize: 46,
    shnum: 48,
    shstrndx: 50,
    header: 52,
    segment: 32,
    section: 40,
    sh_size: 20,
    sh_link: 24,
    sh_info: 28,
};

const ELF64: Class = Class {
    bits: 64,
    phoff: 32,
    shoff: 40,
    word: 8,
    phentsize: 54,
    phnum: 56,
    shentsize: 58,
    shnum: 60,
    shstrndx: 62,
    header: 64,
    segment: 56,
    section: 64,
    sh_size: 32,
    sh_link: 40,
    sh_info: 44,
};

/// `b`'s class by its `EI_CLASS` (1: 32-bit; anything else is read as 64-bit, which both
/// readers then refuse unless it is 2).
fn class(b: &[u8]) -> &'static Class {
    if b.get(4) == Some(&1) { &ELF32 } else { &ELF64 }
}

/// Whether `b` is big-endian by its `EI_DATA` (2), as both readers take it.
fn big(b: &[u8]) -> bool {
    b.get(5) == Some(&2)
}

/// The `width`-byte word at `at` in `b`'s byte order.
fn get(b: &[u8], at: usize, width: usize) -> Option<u64> {
    let x = b.get(at..at + width)?;
    let mut w = [0u8; 8];
    if big(b) {
        w[8 - width..].copy_from_slice(x);
        Some(u64::from_be_bytes(w))
    } else {
        w[..width].copy_from_slice(x);
        Some(u64::from_le_bytes(w))
    }
}

/// Write `v` as the `width`-byte word at `at` in `b`'s byte order.
fn put(b: &mut [u8], at: usize, width: usize, v: u64) {
    let bytes = if big(b) {
        v.to_be_bytes()[8 - width..].to_vec()
    } else {
        v.to_le_bytes()[..width].to_vec()
    };
    b[at..at + width].copy_from_slice(&bytes);
}

/// Whether the file uses ELF's extended numbering (or would make a reader use it): `e_shnum`
/// 0 with section headers, `e_shstrndx` 0xffff, `e_phnum` 0xffff.
fn extended_numbering(b: &[u8]) -> bool {
    let c = class(b);
    matches!((get(b, c.shnum, 2), get(b, c.shoff, c.word)), (Some(0), Some(off)) if off != 0)
        || get(b, c.shstrndx, 2) == Some(0xFFFF)
        || get(b, c.phnum, 2) == Some(0xFFFF)
}

/// Whether the file's program or section headers are larger than their struct (with
/// entries): the schema reads them padded (its stride is the entry size, as readelf's),
/// `object` requires the exact size.
fn padded_entries(b: &[u8]) -> bool {
    let c = class(b);
    // `object` requires the exact section header size whenever there are section headers
    // (to read them, or section 0 for the count), the program header size when it reads
    // program headers.
    let ph = get(b, c.phoff, c.word).is_some_and(|o| o != 0)
        && get(b, c.phnum, 2).is_some_and(|n| n != 0);
    let sh = get(b, c.shoff, c.word).is_some_and(|o| o != 0);
    (ph && get(b, c.phentsize, 2).is_some_and(|s| s > c.segment as u64))
        || (sh && get(b, c.shentsize, 2).is_some_and(|s| s > c.section as u64))
}

/// `good` with its program and section headers copied to its end, each padded with
/// `extra` bytes of 0xA5 (the entry sizes saying so), in its class and byte order.
fn with_padded_entries(good: &[u8], extra: usize) -> Vec<u8> {
    let c = class(good);
    let mut b = good.to_vec();
    for (off_at, num_at, size_at, size) in [
        (c.phoff, c.phnum, c.phentsize, c.segment),
        (c.shoff, c.shnum, c.shentsize, c.section),
    ] {
        let off = get(good, off_at, c.word).unwrap() as usize;
        let n = get(good, num_at, 2).unwrap() as usize;
        if off == 0 || n == 0 {
            continue;
        }
        b.resize(b.len().next_multiple_of(8), 0);
        let at = b.len() as u64;
        for i in 0..n {
            b.extend_from_slice(&good[off + i * size..off + (i + 1) * size]);
            b.extend(std::iter::repeat_n(0xA5, extra));
        }
        put(&mut b, off_at, c.word, at);
        put(&mut b, size_at, 2, (size + extra) as u64);
    }
    b
}

/// `good` (with section headers) with its counts and string table index moved into section
/// 0, as ELF's extended numbering keeps them: `e_phnum` PN_XNUM with the count in `sh_info`,
/// `e_shnum` 0 with the count in `sh_size`, `e_shstrndx` SHN_XINDEX with the index in
/// `sh_link`.
fn with_extended_numbering(good: &[u8]) -> Vec<u8> {
    let c = class(good);
    let shoff = get(good, c.shoff, c.word).unwrap() as usize;
    let (phnum, shnum, shstrndx) = (
        get(good, c.phnum, 2).unwrap(),
        get(good, c.shnum, 2).unwrap(),
        get(good, c.shstrndx, 2).unwrap(),
    );
    let mut ext = good.to_vec();
    put(&mut ext, c.phnum, 2, 0xFFFF);
    put(&mut ext, c.shnum, 2, 0);
    put(&mut ext, c.shstrndx, 2, 0xFFFF);
    put(&mut ext, shoff + c.sh_size, c.word, shnum);
    put(&mut ext, shoff + c.sh_link, 4, shstrndx);
    put(&mut ext, shoff + c.sh_info, 4, phnum);
    ext
}

/// The ELF files of this machine's own architecture (by canonical path, each once).
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

/// "ELF32 little-endian" and the like.
fn kind(b: &[u8]) -> String {
    format!(
        "ELF{} {}",
        class(b).bits,
        if big(b) {
            "big-endian"
        } else {
            "little-endian"
        }
    )
}

#[test]
fn real_elf_files_agree_with_object() {
    let files = real_files();
    if files.is_empty() {
        eprintln!("elf_object: no /usr/bin or /usr/lib/x86_64-linux-gnu here; skipped");
        return;
    }
    let interp = npuschema_tests::interp("../formats/elf.yaml");
    let (mut elf, mut sections, mut other_codes) = (0usize, 0, Vec::new());
    let mut accepted = BTreeMap::<String, usize>::new();
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
                *accepted.entry(kind(&b)).or_default() += 1;
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
        "elf_object: {} files, {elf} ELF, accepted by both: {accepted:?} ({sections} sections: names, types, offsets and sizes equal); the others refused by both, with the codes {other_codes:?}",
        files.len()
    );
    assert!(!accepted.is_empty(), "no ELF file was found");
}

/// Mutants of `good`: every byte of `spans` with three masks, every truncation up to
/// `trunc`, and `random` random multi-byte mutants of those spans.
fn sweep(
    good: &[u8],
    spans: &[std::ops::Range<usize>],
    trunc: usize,
    random: usize,
    seed: u32,
    verdicts: &mut BTreeMap<&'static str, usize>,
) -> (usize, usize) {
    let (mut compared, mut skipped) = (0usize, 0usize);
    let mut check = |m: &[u8], verdicts: &mut BTreeMap<&'static str, usize>| {
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
            // A rule of the gABI that `object` does not check.
            (Err("load-out-of-order"), Ok(_)) => {
                *verdicts
                    .entry("loadable segments out of order (object does not check)")
                    .or_default() += 1;
                return;
            }
            _ => panic!(
                "verdicts differ: schema {:?} / object {:?}; header {:02x?}",
                ours.as_ref().map(Vec::len),
                theirs,
                &m[..m.len().min(64)]
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

/// The spans of `good` a sweep mutates: the header, both header tables, `.shstrtab`.
fn spans_of(good: &[u8]) -> [std::ops::Range<usize>; 4] {
    let c = class(good);
    let f = facts(&elf::Elf::validate(good).unwrap());
    let names_at = f.shstrtab.as_ptr() as usize - good.as_ptr() as usize;
    [
        0..c.header,
        f.phoff..f.phoff + c.segment * f.phnum,
        f.shoff..f.shoff + c.section * f.shnum,
        names_at..names_at + f.shstrtab.len(),
    ]
}

/// Every check of the schema a sweep of one file of each class reaches.
const CODES: &[&str] = &[
    "truncated-header",
    "bad-magic",
    "bad-class",
    "bad-data",
    "bad-ident-version",
    "section0-out-of-bounds",
    "bad-phentsize",
    "segments-out-of-bounds",
    "load-out-of-order",
    "bad-shentsize",
    "sections-out-of-bounds",
    "bad-shstrndx",
    "shstrtab-out-of-bounds",
    "section-out-of-bounds",
    "bad-section-name",
    "ok",
];

/// Mutants of `good` and of `good` with extended numbering (the header and section 0
/// mutated), and truncations around the end of its section header table: `object`'s
/// verdict. Returns the mutants compared and those of them with extended numbering.
fn sweep_file(
    good: &[u8],
    seed: u32,
    random: usize,
    verdicts: &mut BTreeMap<&'static str, usize>,
) -> (usize, usize) {
    assert!(by_object(good).is_ok());
    let c = class(good);
    let spans = spans_of(good);
    let (mut compared, mut skipped) = sweep(good, &spans, 4096, random, seed, verdicts);
    let ext = with_extended_numbering(good);
    let shoff = spans[2].start;
    let (x, s) = sweep(
        &ext,
        &[0..c.header, shoff..shoff + c.section],
        0,
        random / 4,
        seed ^ 0x0600,
        verdicts,
    );
    compared += x;
    skipped += s;
    let end = spans[2].end;
    for len in end.saturating_sub(130)..good.len().min(end + 2) {
        let ours = by_schema(&good[..len]);
        assert_eq!(
            ours.is_ok(),
            by_object(&good[..len]).is_ok(),
            "truncated at {len}"
        );
    }
    (compared, skipped)
}

#[test]
fn mutants_of_real_elf_files_agree_with_object() {
    // The three smallest ELF files of /usr/bin with sections that both readers accept.
    let mut small: Vec<(usize, Vec<u8>)> = real_files()
        .iter()
        .filter(|p| p.starts_with("/usr/bin"))
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| is_elf(b) && by_schema(b).is_ok_and(|s| s.len() > 4))
        .map(|b| (b.len(), b))
        .collect();
    if small.is_empty() {
        eprintln!("elf_object: no ELF file in /usr/bin here; skipped");
        return;
    }
    small.sort();
    let mut verdicts = BTreeMap::<&str, usize>::new();
    let (mut compared, mut skipped) = (0, 0);
    for (i, (_, good)) in small.iter().take(3).enumerate() {
        let (c, s) = sweep_file(good, 0xE1F0 + i as u32, 20_000, &mut verdicts);
        compared += c;
        skipped += s;
    }
    eprintln!(
        "elf_object mutants: {compared} compared with object ({skipped} of them with extended numbering); verdicts {verdicts:?}"
    );
    for code in CODES {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}

/// Padded entries: a real file's program and section headers copied to its end, each
/// followed by 8 (then 40) bytes that belong to no entry, `e_phentsize` and `e_shentsize`
/// saying so. The generated validator and the interpreter read the same sections (names,
/// types, offsets, sizes) as `object` reads from the original; `object` refuses the padded
/// file (it requires the exact entry sizes). An entry size below the struct's is refused.
fn padded_reads_as_the_original(good: &[u8], interp: &npuschema_codegen::interp::Interp<'_>) {
    let c = class(good);
    let want = by_object(good).unwrap();
    for extra in [8usize, 40] {
        let padded = with_padded_entries(good, extra);
        assert!(padded_entries(&padded));
        assert_eq!(by_schema(&padded), Ok(want.clone()), "padded by {extra}");
        let f = facts(&elf::Elf::validate(&padded).unwrap());
        assert_eq!(usize::from(f.shentsize), c.section + extra);
        assert_eq!(f.segments, f.phnum);
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
    let mut short = with_padded_entries(good, 8);
    put(&mut short, c.shentsize, 2, c.section as u64 - 1);
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
fn extended_reads_as_the_original(good: &[u8], interp: &npuschema_codegen::interp::Interp<'_>) {
    let c = class(good);
    let want = by_object(good).unwrap();
    let shoff = get(good, c.shoff, c.word).unwrap() as usize;
    let (phnum, shnum) = (
        get(good, c.phnum, 2).unwrap(),
        get(good, c.shnum, 2).unwrap(),
    );
    let ext = with_extended_numbering(good);
    assert!(extended_numbering(&ext));
    // What the original's section 0 says, but for the count it now holds.
    let mut want = want;
    want[0].3 = shnum;
    assert_eq!(by_object(&ext).as_ref(), Ok(&want), "object reads it");
    assert_eq!(
        by_schema(&ext),
        Ok(want.clone()),
        "the generated code reads it"
    );
    let f = facts(&elf::Elf::validate(&ext).unwrap());
    assert_eq!(f.segments as u64, phnum);
    let iv = interp.validate(&ext).unwrap_or_else(|e| panic!("{e:?}"));
    let names: Vec<&[u8]> = iv.strings.iter().map(|s| s.bytes.as_slice()).collect();
    let want_names: Vec<&[u8]> = want.iter().map(|s| s.0.as_slice()).collect();
    assert_eq!(names, want_names, "the interpreter reads it");
    // Each word of section 0 wrong: the two readers agree on the verdict, and the two
    // engines on the code.
    for (at, width, bad) in [
        (c.sh_size, c.word, 0xFFFF_FFFFu64),
        (c.sh_link, 4, 0),
        (c.sh_link, 4, shnum),
        (c.sh_info, 4, 0xFFFF),
    ] {
        let mut m = ext.clone();
        put(&mut m, shoff + at, width, bad);
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
    let mut no_sec = good.to_vec();
    put(&mut no_sec, c.phnum, 2, 0xFFFF);
    put(&mut no_sec, c.shoff, c.word, 0);
    assert_eq!(by_schema(&no_sec), Err("bad-phnum"));
    assert!(by_object(&no_sec).is_err());
}

/// The ELF files of other targets on this machine: the C libraries Debian's cross packages
/// install under `/usr/<triple>/lib` (`scripts/setup-formats` installs ARM's, PowerPC's and
/// s390x's), each once by canonical path.
fn cross_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let Ok(usr) = std::fs::read_dir("/usr") else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = usr
        .filter_map(|e| Some(e.ok()?.path().join("lib")))
        .filter(|p| {
            p.parent()
                .is_some_and(|d| d.to_string_lossy().contains("-linux-gnu"))
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
            if is_elf(&b) {
                out.push((c, b));
            }
        }
    }
    out
}

/// One struct per class, either byte order: the other targets' files of this machine
/// (ELF32 little- and big-endian, ELF64 big-endian) read by the generated validator as
/// `object` reads them (every section's name, type, offset and size), and by the
/// interpreter with the same names; then, for the smallest of each class and order, a
/// mutation sweep with `object`'s verdicts, the interpreter's errors on a sample of
/// mutants, and the padded and extended-numbering rewrites.
#[test]
fn cross_files_agree_with_object() {
    let files = cross_files();
    if files.is_empty() {
        eprintln!(
            "elf_object: no ELF file under /usr/*-linux-gnu*/lib here (scripts/setup-formats installs libc6-armhf-cross, libc6-powerpc-cross and libc6-s390x-cross); skipped"
        );
        return;
    }
    let interp = npuschema_tests::interp("../formats/elf.yaml");
    let mut accepted = BTreeMap::<String, (usize, usize)>::new();
    let mut smallest = BTreeMap::<String, &[u8]>::new();
    for (p, b) in &files {
        let ours = by_schema(b);
        let theirs = by_object(b);
        match (&ours, &theirs) {
            (Ok(a), Ok(t)) => {
                assert_eq!(a, t, "{}: the sections differ", p.display());
                let e = accepted.entry(kind(b)).or_default();
                e.0 += 1;
                e.1 += a.len();
                if a.len() > 4 {
                    let s = smallest.entry(kind(b)).or_insert(b);
                    if b.len() < s.len() {
                        *s = b;
                    }
                }
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{}: schema {ours:?} / object {theirs:?}", p.display()),
        }
        interpreter_agrees(interp, b, &ours, p);
    }
    assert!(
        !accepted.is_empty(),
        "no cross-target file both readers accept"
    );
    for (k, good) in &smallest {
        let c = class(good);
        let f = facts(&elf::Elf::validate(good).unwrap());
        // Read in the file's class and order: a little-endian read of a big-endian file
        // would be byte-swapped, an ELF64 read of an ELF32 one misplaced.
        assert_eq!(usize::from(f.ehsize), c.header, "{k}");
        assert_eq!(usize::from(f.shentsize), c.section, "{k}");
        let mut verdicts = BTreeMap::<&str, usize>::new();
        let (compared, _) = sweep_file(good, 0xBE64 ^ u32::from(c.bits), 10_000, &mut verdicts);
        // The interpreter on a sample of the same mutants: the same error, field and offset.
        let spans = spans_of(good);
        let mut m = good.to_vec();
        let mut next = xorshift(0xBE65);
        let all: Vec<usize> = spans.iter().flat_map(Clone::clone).collect();
        for _ in 0..2_000 {
            let at = all[next() as usize % all.len()];
            m[at] = next() as u8;
            let g = elf::Elf::validate(&m).map(|_| ());
            assert_eq!(interp.validate(&m).map(|_| ()), g, "{k}");
            m.copy_from_slice(good);
        }
        padded_reads_as_the_original(good, interp);
        extended_reads_as_the_original(good, interp);
        eprintln!(
            "elf_object {k}: the smallest file ({} bytes) mutated: {compared} compared with object, verdicts {verdicts:?}",
            good.len()
        );
        for code in CODES {
            assert!(
                verdicts.contains_key(code),
                "{k}: no mutant reached {code}: {verdicts:?}"
            );
        }
    }
    eprintln!(
        "elf_object cross targets: {} files; accepted by both (files, sections equal): {accepted:?}",
        files.len()
    );
}

/// The rewrites of the smallest ELF file of /usr/bin (the machine's class and order; the
/// other classes and orders in `cross_files_agree_with_object`).
#[test]
fn rewrites_read_as_the_original() {
    let Some(good) = real_files()
        .iter()
        .filter(|p| p.starts_with("/usr/bin"))
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| is_elf(b) && by_schema(b).is_ok_and(|s| s.len() > 4))
        .min_by_key(Vec::len)
    else {
        eprintln!("elf_object: no ELF file in /usr/bin here; skipped");
        return;
    };
    let interp = npuschema_tests::interp("../formats/elf.yaml");
    padded_reads_as_the_original(&good, interp);
    extended_reads_as_the_original(&good, interp);
}
