//! TIFF, a public format nobody here designed (`formats/tiff.yaml`): the byte order chosen by
//! `II`/`MM` (one struct, read either way), and the image file directories as a chain of
//! records, each locating the next (`chain:` on a record stream), followed with a bound and a
//! cycle check. Held to the `tiff` crate's reader (`Decoder::new`, then `next_image` while
//! `more_images`: every IFD of the chain read, a cycle refused) verdict for verdict and IFD for
//! IFD, and to the schema interpreter error for error, on:
//!
//! - the TIFF files of this machine (`.tif`/`.tiff` under `/usr/share`, `/usr/lib` and pyenv's
//!   test data: Debian's checkit-tiff brings a conformance checker's own test files, which
//!   `scripts/setup-formats` installs; skipped with a message when there are none);
//! - multi-page files the `tiff` crate's encoder writes (one to five images), the same files
//!   with their byte order swapped (big-endian, every entry's values swapped by their type),
//!   and with the last IFD's link aimed back at each IFD (cycles);
//! - mutants of those (every byte of the header and the IFDs flipped, truncations, random
//!   bytes): no panic, generated code and interpreter give the same error, and the same verdict
//!   as the crate wherever it decides by a rule the schema states.
//!
//! The IFDs' entries are a stream within the IFDs' records (`within:`), and every entry's
//! values (of a type TIFF 6.0 names) must lie inside the file. What the crate checks and the
//! schema does not is named and counted: it makes an image of every IFD, so an IFD without
//! the tags of an image the schema does not require (its photometric interpretation, ...)
//! or with values it does not check (types and counts of the strips, ...) is refused by the
//! crate alone. The crate reads the values of the tags it makes an image of only, so
//! a file whose other values lie outside it is refused by the schema alone, counted by tag
//! (among real files, only checkit-tiff's files that should fail).
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
use std::io::Cursor;
use std::path::PathBuf;

use npuschema_core::Brief;
use npuschema_tests::npu1_blobs::xorshift;
use tiff::TiffError;
use tiff::TiffFormatError;

// The generated code, expanded once in npuschema_tests::compare.
use npuschema_tests::compare::schemas::tiff as schema;

fn interp() -> &'static npuschema_codegen::interp::Interp<'static> {
    npuschema_tests::interp("../formats/tiff.yaml")
}

/// Why the crate refused a file: by the chain (a rule the schema states) or by an image's tags.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Refusal {
    /// The header or the chain: a signature, an IFD that is not there, a cycle.
    Chain(String),
    /// What the schema does not describe: an IFD the crate cannot make an image of.
    Image(String),
    /// A read past the end of the file, which started here: an IFD's (the chain's) or a
    /// tag value's (an image's).
    PastEnd(u64),
}

/// A reader that remembers where its last read started and how long it was, so that a read
/// past the end can be told apart: an IFD's (the chain's) or a tag value's (an image's).
struct Logged<'a> {
    c: Cursor<&'a [u8]>,
    last: std::rc::Rc<std::cell::Cell<(u64, usize)>>,
}

impl std::io::Read for Logged<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.last.set((self.c.position(), buf.len()));
        self.c.read(buf)
    }
}

impl std::io::Seek for Logged<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.c.seek(to)
    }
}

/// The `tiff` crate's verdict: every IFD of the chain (where it starts), each made an image.
fn by_crate(b: &[u8]) -> Result<Vec<u64>, Refusal> {
    let last = std::rc::Rc::new(std::cell::Cell::new((0u64, 0usize)));
    let class = |e: TiffError| {
        let s = format!("{e:?}");
        match e {
            TiffError::FormatError(
                TiffFormatError::TiffSignatureNotFound
                | TiffFormatError::TiffSignatureInvalid
                | TiffFormatError::CycleInOffsets
                | TiffFormatError::ImageFileDirectoryNotFound,
            ) => Refusal::Chain(s),
            // Which one a read past the end is depends on where it was (`agree`).
            TiffError::IoError(_) => Refusal::PastEnd(last.get().0),
            _ => Refusal::Image(s),
        }
    };
    let reader = Logged {
        c: Cursor::new(b),
        last: last.clone(),
    };
    let mut d = tiff::decoder::Decoder::new(reader).map_err(class)?;
    let mut out = vec![d.ifd_pointer().map_or(0, |p| p.0)];
    while d.more_images() {
        d.next_image().map_err(class)?;
        out.push(d.ifd_pointer().map_or(0, |p| p.0));
    }
    Ok(out)
}

/// The generated validator's verdict and IFD offsets; its `Brief` names the same check.
fn by_schema(b: &[u8]) -> Result<Vec<u64>, &'static str> {
    let brief = schema::Tiff::validate_as::<Brief>(b).map(|_| ());
    match schema::Tiff::validate(b) {
        Ok(v) => {
            assert_eq!(brief, Ok(()));
            Ok(v.ifds().map(|r| r.offset()).collect())
        }
        Err(e) => {
            let site = schema::error_site(brief.expect_err("Brief rejects too").id()).unwrap();
            assert_eq!((site.code, site.name), (e.code, e.field.name));
            Err(e.code)
        }
    }
}

/// The generated code and the interpreter on one file: the same error, or both accept with
/// the same view.
fn same_as_interpreter(b: &[u8]) {
    npuschema_tests::agree_with(
        "../formats/tiff.yaml",
        b,
        schema::Tiff::validate(b),
        schema::Tiff::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id()),
        |g, v| npuschema_tests::compare::tiff(b, g, v),
    );
}

/// The verdicts of both readers on one file, held to each other: accepted by the crate means
/// accepted by the schema with the same IFDs; refused by the schema means refused by the
/// crate (or, for a value outside the file, by a rule of TIFF 6.0 the crate holds only for
/// the tags it reads); refused by the crate alone is allowed only for what the schema does
/// not describe (returned, to be counted). Every file: the interpreter's verdict too.
fn agree(b: &[u8], what: &str) -> Option<String> {
    let ours = by_schema(b);
    let theirs = by_crate(b);
    same_as_interpreter(b);
    match (&ours, &theirs) {
        (Ok(a), Ok(t)) => {
            assert_eq!(a, t, "{what}: the IFDs differ");
            None
        }
        (Err(_), Err(_)) => None,
        // Named by the crate's error kind (`FormatError::RequiredTagNotFound`, ...).
        (Ok(_), Err(Refusal::Image(why))) => Some(
            why.split(['(', ')'])
                .filter(|w| !w.is_empty())
                .take(2)
                .collect::<Vec<_>>()
                .join("::"),
        ),
        // The schema accepted: every IFD of its chain lies in the file, and the crate reads a
        // directory only where a link of the same chain says. A read past the end that began
        // outside the header and every one of those IFDs is a tag's value.
        (Ok(ifds), Err(Refusal::PastEnd(at))) => {
            let v = schema::Tiff::validate(b).unwrap();
            let inside = *at < 8
                || v.ifds()
                    .any(|r| (r.offset()..r.body_offset() + r.body().len() as u64).contains(at));
            assert!(
                !inside,
                "{what}: the crate read past the end at {at}, inside the chain {ifds:?} the schema accepts"
            );
            Some("a tag's value outside the file".to_string())
        }
        // TIFF 6.0 puts every entry's values in the file; the crate reads the values of the
        // tags it makes an image of, and takes a file whose other values lie outside.
        (Err("value-out-of-bounds"), Ok(_)) => {
            let e = schema::Tiff::validate(b).unwrap_err();
            let at = usize::try_from(e.offset).unwrap() - 8;
            let tag = if &b[0..2] == b"MM" {
                u16::from_be_bytes([b[at], b[at + 1]])
            } else {
                u16::from_le_bytes([b[at], b[at + 1]])
            };
            Some(format!(
                "{SCHEMA_ALONE}values of tag {tag} outside the file"
            ))
        }
        // The crate does not read an image's strips until it decodes them (this test
        // reads the directories): a strip outside the file is the schema's alone.
        (Err("strip-out-of-bounds"), Ok(_)) => {
            Some(format!("{SCHEMA_ALONE}a strip or tile outside the file"))
        }
        // TIFF 6.0 gives the strips' offsets and byte counts as SHORT or LONG; the crate
        // reads other unsigned types too (and does not read them until it decodes).
        (Err("bad-strip-type"), Ok(_)) => Some(format!(
            "{SCHEMA_ALONE}strip offsets or byte counts neither SHORT nor LONG"
        )),
        // The rules over one IFD's tags, which the crate holds too (`RequiredTagNotFound`,
        // `StripTileTagConflict`, `InconsistentSizesEncountered`), decided apart only when the
        // IFD names a tag twice or has an entry of a type TIFF does not name: the schema
        // reads a tag's first entry, the crate its last of a type it knows.
        (
            Err(
                code @ ("no-image-width" | "no-image-length" | "strips-or-tiles"
                | "byte-counts-differ"),
            ),
            Ok(_),
        ) => {
            let e = schema::Tiff::validate(b).unwrap_err();
            assert!(
                repeats_or_unknown(b, usize::try_from(e.offset).unwrap()),
                "{what}: schema {code}, the crate accepts, with no repeated tag or unknown type in the IFD at {}",
                e.offset
            );
            Some(format!(
                "{SCHEMA_ALONE}{code}: an IFD's tag repeated, or of an unknown type"
            ))
        }
        _ => panic!("{what}: schema {ours:?} / tiff {theirs:?}"),
    }
}

/// Whether the IFD at `at` names a tag twice or has an entry whose type TIFF does not name
/// (1 to 13, and BigTIFF's 16 to 18, which the crate knows and reads).
fn repeats_or_unknown(b: &[u8], at: usize) -> bool {
    let big = &b[0..2] == b"MM";
    let u16_at = |i: usize| {
        let w = [b[i], b[i + 1]];
        if big {
            u16::from_be_bytes(w)
        } else {
            u16::from_le_bytes(w)
        }
    };
    let n = usize::from(u16_at(at));
    let mut tags = std::collections::BTreeSet::new();
    (0..n).any(|k| {
        let e = at + 2 + 12 * k;
        let ty = u16_at(e + 2);
        !tags.insert(u16_at(e)) || !matches!(ty, 1..=13 | 16..=18)
    })
}

/// How [`agree`] starts a reason the schema refuses a file for and the crate does not.
const SCHEMA_ALONE: &str = "refused by the schema alone: ";

/// The TIFF files of this machine, smaller than 8 MiB, in path order.
fn real() -> Vec<(PathBuf, Vec<u8>)> {
    let mut roots = vec![PathBuf::from("/usr/share"), PathBuf::from("/usr/lib")];
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(PathBuf::from(home).join(".pyenv"));
    }
    npuschema_tests::real_files(&roots, &["tif", "tiff"], 8 << 20, 500)
        .into_iter()
        .filter_map(|p| Some((p.clone(), std::fs::read(&p).ok()?)))
        .collect()
}

/// A TIFF of `pages` grey images written by the `tiff` crate's encoder (little-endian), each
/// image `w` by `h` pixels of its own values.
fn written(pages: usize, w: u32, h: u32) -> Vec<u8> {
    use tiff::encoder::{TiffEncoder, colortype::Gray8};
    let mut out = Cursor::new(Vec::new());
    let mut e = TiffEncoder::new(&mut out).unwrap();
    for k in 0..pages {
        let px: Vec<u8> = (0..w * h)
            .map(|i| (i as usize * 7 + k * 31) as u8)
            .collect();
        e.write_image::<Gray8>(w, h, &px).unwrap();
    }
    out.into_inner()
}

/// The bytes of one value of TIFF type `ty` (6.0 section 2; 16-18 of TIFF 6.0's successors:
/// IFD and the 8-byte types), or `None` for a type the crate does not know.
fn type_bytes(ty: u16) -> Option<usize> {
    Some(match ty {
        1 | 2 | 6 | 7 => 1,
        3 | 8 => 2,
        4 | 9 | 11 | 13 => 4,
        5 | 10 => 8,
        12 | 16..=18 => 8,
        _ => return None,
    })
}

/// Swap the elements of `b` (each `n` bytes; a RATIONAL's two words each).
fn swap_values(b: &mut [u8], ty: u16) {
    let n = match ty {
        5 | 10 => 4,
        t => type_bytes(t).unwrap_or(1),
    };
    for c in b.chunks_exact_mut(n) {
        c.reverse();
    }
}

/// A little-endian TIFF (one the crate reads) rewritten big-endian: the header, every IFD's
/// count, entries and link, and every entry's values by their type (inline or where they
/// are). The image data (8-bit samples) is the same either way.
fn to_big(le: &[u8]) -> Vec<u8> {
    let mut b = le.to_vec();
    let r16 = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
    let r32 = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    b[0..2].copy_from_slice(b"MM");
    b[2..4].reverse();
    b[4..8].reverse();
    let mut ifd = r32(le, 4) as usize;
    while ifd != 0 {
        let n = r16(le, ifd) as usize;
        b[ifd..ifd + 2].reverse();
        for k in 0..n {
            let e = ifd + 2 + 12 * k;
            let (ty, count) = (r16(le, e + 2), r32(le, e + 4) as usize);
            for (at, len) in [(e, 2), (e + 2, 2), (e + 4, 4)] {
                b[at..at + len].reverse();
            }
            let bytes = type_bytes(ty).unwrap() * count;
            if bytes <= 4 {
                swap_values(&mut b[e + 8..e + 8 + bytes], ty);
            } else {
                let at = r32(le, e + 8) as usize;
                b[e + 8..e + 12].reverse();
                swap_values(&mut b[at..at + bytes], ty);
            }
        }
        let link = ifd + 2 + 12 * n;
        b[link..link + 4].reverse();
        ifd = r32(le, link) as usize;
    }
    b
}

/// Where the last IFD's link is, in a file the schema accepts (its order: `big`).
fn last_link(b: &[u8]) -> usize {
    let v = schema::Tiff::validate(b).unwrap();
    let last = v.ifds().last().unwrap();
    last.body_offset() as usize + 12 * usize::from(last.header().count())
}

fn put32(b: &mut [u8], at: usize, v: u32) {
    let big = &b[0..2] == b"MM";
    b[at..at + 4].copy_from_slice(&if big {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    });
}

/// The written files: one to five pages, little- and big-endian.
fn written_files() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (pages, w, h) in [(1, 3, 2), (2, 4, 4), (3, 1, 1), (5, 16, 3)] {
        let le = written(pages, w, h);
        out.push(to_big(&le));
        out.push(le);
    }
    out
}

#[test]
fn real_files_agree_with_the_tiff_crate() {
    assert_eq!(interp().sites(), &schema::ERROR_SITES[..]);
    let files = real();
    if files.is_empty() {
        eprintln!(
            "tiff_real: no .tif or .tiff file under /usr/share, /usr/lib or ~/.pyenv (scripts/setup-formats installs checkit-tiff); skipped"
        );
        return;
    }
    let (mut accepted, mut refused, mut ifds, mut strips) = (0usize, 0usize, 0usize, 0usize);
    let mut alone = BTreeMap::<String, usize>::new();
    for (p, b) in &files {
        match agree(b, &p.display().to_string()) {
            Some(why) => {
                // A real file the crate takes and the schema refuses breaks a rule of TIFF
                // 6.0: only checkit-tiff's files that should fail (its conformance suite).
                assert!(
                    !why.starts_with(SCHEMA_ALONE)
                        || p.to_string_lossy().contains("tiffs_should_fail"),
                    "{}: {why}",
                    p.display()
                );
                *alone.entry(why).or_default() += 1;
            }
            None => match by_schema(b) {
                Ok(v) => {
                    accepted += 1;
                    ifds += v.len();
                    // Every strip or tile of every image: the schema held each inside the file.
                    let view = schema::Tiff::validate(b).unwrap();
                    strips += view
                        .entries()
                        .filter(|e| matches!(e.header().tag(), 273 | 324))
                        .map(|e| e.header().count() as usize)
                        .sum::<usize>();
                }
                Err(_) => refused += 1,
            },
        }
    }
    eprintln!(
        "tiff_real: {} files, {accepted} accepted by both ({ifds} IFDs, the same chain; {strips} strips and tiles, each held inside the file), {refused} refused by both; decided apart (the crate alone: for an image's tags the schema does not describe): {alone:?}",
        files.len()
    );
    assert!(accepted > 0, "no TIFF both readers accept");
}

#[test]
fn multi_page_files_in_both_orders_and_their_cycles() {
    let mut cycles = 0usize;
    for good in written_files() {
        let ifds = by_crate(&good).unwrap();
        assert_eq!(by_schema(&good), Ok(ifds.clone()));
        same_as_interpreter(&good);
        let big = &good[0..2] == b"MM";
        let v = schema::Tiff::validate(&good).unwrap();
        assert_eq!(
            v.header().magic(),
            42,
            "read in the file's order (big: {big})"
        );
        // The last IFD's link aimed back at each IFD: a cycle, refused at that link by both.
        let at = last_link(&good);
        for (k, back) in ifds.iter().enumerate() {
            let mut b = good.clone();
            put32(&mut b, at, *back as u32);
            assert!(
                matches!(by_crate(&b), Err(Refusal::Chain(ref e)) if e.contains("Cycle")),
                "page {k}: {:?}",
                by_crate(&b)
            );
            let e = schema::Tiff::validate(&b).unwrap_err();
            assert_eq!(
                (e.code, e.field.table, e.field.name, e.field.index),
                ("bad-ifd", "ifds", "next", ifds.len() as u64 - 1),
                "{e}"
            );
            assert_eq!(e.offset, ifds[ifds.len() - 1], "{e}");
            same_as_interpreter(&b);
            cycles += 1;
        }
        // Aimed past the end, and at the header (an IFD of 0x4949 or 0x4D4D entries).
        for wrong in [good.len() as u32, good.len() as u32 - 1, 2] {
            let mut b = good.clone();
            put32(&mut b, at, wrong);
            assert!(by_crate(&b).is_err());
            assert_eq!(by_schema(&b), Err("bad-ifd"));
            same_as_interpreter(&b);
        }
    }
    // One IFD more than the chain's bound (65,535), each of one entry, none visited twice:
    // refused at the last one's link, by the generated code and the interpreter alike.
    let n = 65_536usize;
    let mut b = b"II\x2a\0\x08\0\0\0".to_vec();
    for k in 0..n {
        let at = b.len();
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&[0; 12]);
        let next = if k + 1 < n { at as u32 + 18 } else { 0 };
        b.extend_from_slice(&next.to_le_bytes());
    }
    let e = schema::Tiff::validate(&b).unwrap_err();
    assert_eq!(
        (e.code, e.field.table, e.field.name, e.field.index),
        ("bad-ifd", "ifds", "next", 65_534),
        "{e}"
    );
    assert!(
        e.to_string().contains("records 0x10000 > max 0xffff"),
        "{e}"
    );
    same_as_interpreter(&b);
    // Two IFDs that overlap (the second starts inside the first's entries: its count is the
    // first entry's tag), so their entries are counted twice: more entries than the file
    // has room for, refused before the work grows with the square of the file.
    let c = 3u16;
    let mut b = b"II\x2a\0\x08\0\0\0".to_vec();
    b.extend_from_slice(&c.to_le_bytes());
    b.extend_from_slice(&c.to_le_bytes()); // entry 0's tag: the second IFD's count
    b.resize(8 + 2 + 12 * usize::from(c), 0);
    b.extend_from_slice(&10u32.to_le_bytes()); // the first IFD's link: 10
    b.extend_from_slice(&[0, 0]); // with its high half, the second's link: 0
    let e = schema::Tiff::validate(&b).unwrap_err();
    assert_eq!(
        (e.code, e.field.table, e.field.name, e.field.index),
        ("bad-entry", "entries", "within", 4),
        "{e}"
    );
    same_as_interpreter(&b);
    assert!(by_crate(&b).is_err());
    eprintln!(
        "tiff_real: written files in both orders read alike; {cycles} cycles refused at the link that closes them by both readers; a chain of 65,536 IFDs refused at the bound; overlapping IFDs refused once their entries outnumber the file's room"
    );
}

/// A little-endian TIFF of `ifds` IFDs of one-pixel images, each of `strips` strips of 0
/// bytes at offset 0, every IFD's StripOffsets and StripByteCounts the same array of `strips`
/// zero LONGs after the IFDs: valid, and each IFD walks the whole array.
fn shared_strips(ifds: usize, strips: usize) -> Vec<u8> {
    const IFD_BYTES: usize = 2 + 4 * 12 + 4;
    let array = 8 + IFD_BYTES * ifds;
    let mut b = vec![0u8; array + 4 * strips];
    b[0..4].copy_from_slice(b"II\x2a\x00");
    put32(&mut b, 4, 8);
    for i in 0..ifds {
        let at = 8 + IFD_BYTES * i;
        b[at..at + 2].copy_from_slice(&4u16.to_le_bytes());
        let entries: [(u16, u16, u32, u32); 4] = [
            (256, 3, 1, 1),
            (257, 3, 1, 1),
            (273, 4, strips as u32, array as u32),
            (279, 4, strips as u32, array as u32),
        ];
        for (k, (tag, ty, count, value)) in entries.into_iter().enumerate() {
            let e = at + 2 + 12 * k;
            b[e..e + 2].copy_from_slice(&tag.to_le_bytes());
            b[e + 2..e + 4].copy_from_slice(&ty.to_le_bytes());
            put32(&mut b, e + 4, count);
            put32(&mut b, e + 8, value);
        }
        let next = if i + 1 == ifds { 0 } else { at + IFD_BYTES };
        put32(&mut b, at + 2 + 4 * 12, next as u32);
    }
    b
}

/// The strips' check reads each strip's offset and byte count with `word()`, `for: k,
/// below: N`: a step repeated more than the file's length in bytes, over every IFD
/// together, fails. IFDs that share one array walk it once each; when that is more than
/// the file's length the file is refused, so the work is bounded by the file's length, not
/// its square (5,000 IFDs of 2,000 strips would be ten million reads in a 278 kB file).
#[test]
fn strips_shared_by_many_ifds_are_read_at_most_the_files_length_times() {
    // Within the bound: 5 IFDs of 100 strips, 500 reads in a file of 678 bytes. Over it:
    // 20 IFDs of 200 (4,000 reads in 1,888 bytes), 5,000 of 2,000 (10,000,000 in 278,008).
    let ok = shared_strips(5, 100);
    assert!(ok.len() > 500, "{}", ok.len());
    assert_eq!(by_schema(&ok).map(|v| v.len()), Ok(5));
    same_as_interpreter(&ok);
    for (ifds, strips) in [(20, 200), (5_000, 2_000)] {
        let over = shared_strips(ifds, strips);
        assert!(ifds * strips > over.len());
        let t = std::time::Instant::now();
        let e = schema::Tiff::validate(&over).unwrap_err();
        assert_eq!((e.code, e.field.name), ("strip-out-of-bounds", "count"));
        eprintln!(
            "tiff_real: {ifds} IFDs sharing {strips} strips ({} bytes): refused at IFD {:?} after {} reads, in {:?}",
            over.len(),
            e.field.index,
            over.len(),
            t.elapsed()
        );
        same_as_interpreter(&over);
    }
}

#[test]
fn mutants_agree_with_the_tiff_crate() {
    let mut goods = written_files();
    goods.extend(
        real()
            .into_iter()
            .map(|(_, b)| b)
            .filter(|b| by_crate(b).is_ok() && b.len() < 16 << 10)
            .take(4),
    );
    let mut verdicts = BTreeMap::<&str, usize>::new();
    let mut alone = BTreeMap::<String, usize>::new();
    let mut compared = 0usize;
    for (k, good) in goods.iter().enumerate() {
        // The header and every IFD (its count, entries and link).
        let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
        spans.push(0..8);
        if let Ok(v) = schema::Tiff::validate(good) {
            for r in v.ifds() {
                let s = r.offset() as usize;
                spans.push(s..s + 2 + r.body().len());
            }
        }
        let mut check = |m: &[u8]| {
            *verdicts
                .entry(by_schema(m).err().unwrap_or("ok"))
                .or_default() += 1;
            if let Some(why) = agree(m, "mutant") {
                // (By tag in the real files' summary; here one count.)
                let why = if why.starts_with(SCHEMA_ALONE) && why.contains("values of tag") {
                    format!("{SCHEMA_ALONE}values outside the file")
                } else {
                    why
                };
                *alone.entry(why).or_default() += 1;
            }
            compared += 1;
        };
        let mut m = good.clone();
        for span in &spans {
            for at in span.clone() {
                for x in [0x01u8, 0x80, 0xFF] {
                    m[at] ^= x;
                    check(&m);
                    m[at] = good[at];
                }
            }
        }
        // No IFD at all (TIFF 6.0: at least one).
        let mut none = good.clone();
        put32(&mut none, 4, 0);
        check(&none);
        for len in (0..good.len()).step_by(1 + good.len() / 300) {
            check(&good[..len]);
        }
        let mut next = xorshift(0x71FF + k as u32);
        let all: Vec<usize> = spans.iter().flat_map(Clone::clone).collect();
        for _ in 0..1_500 {
            for _ in 0..=(next() % 4) {
                let at = all[next() as usize % all.len()];
                m[at] = next() as u8;
            }
            check(&m);
            m.copy_from_slice(good);
        }
    }
    eprintln!(
        "tiff_real mutants: {compared} of {} files, each with the crate's verdict and the interpreter's error; verdicts {verdicts:?}; decided apart (the crate alone: an image's tags; the schema alone: values of tags the crate does not read): {alone:?}",
        goods.len()
    );
    for code in [
        "too-short",
        "bad-byte-order",
        "bad-magic",
        "no-ifd",
        "bad-ifd",
        "empty-ifd",
        "value-out-of-bounds",
        "no-image-width",
        "no-image-length",
        "strips-or-tiles",
        "byte-counts-differ",
        "bad-strip-type",
        "strip-out-of-bounds",
        "ok",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}
