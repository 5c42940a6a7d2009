//! PNG, a public format nobody here designed, as a record stream (`formats/png.yaml`):
//! big-endian fields, chunks sized by their own headers, a per-chunk CRC-32 over type and
//! data, the stream ending at IEND. Run on the real PNG files of this machine (`/usr/share`,
//! which Debian's packages fill; skipped with a message when there are none) and held to the
//! `png` crate field for field (IHDR width, height, bit depth and colour type; the list of
//! chunks with their lengths) and verdict for verdict, and to the schema interpreter error
//! for error; then chunk-level mutants of each file (a CRC, a length, a type byte, every
//! truncation) are rejected by both (the png crate told to check every chunk's CRC: by default
//! it skips an ancillary chunk whose CRC fails). Each file is also rebuilt by the generated
//! writer (`ChunksWriter`, which solves `size: length + 4` for `length` and computes every
//! CRC, then `PngWriter`) from the view's values, byte for byte, and with chunks edited.
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

use npuschema_core::Brief;

mod png_schema {
    npuschema_macro::include_schema!("../formats/png.yaml");
}
use png_schema::{ChunksSpec, ChunksWriter, Png, PngWriter};

/// Up to `max` `.png` files under `dir` smaller than 256 KiB, in path order.
fn pngs(dir: &Path, max: usize) -> Vec<PathBuf> {
    npuschema_tests::real_files(&[dir.to_path_buf()], &["png"], 256 * 1024, max)
}

/// IHDR (width, height, bit depth, colour type) and the chunks `(type, length)`.
type Seen = ((u32, u32, u8, u8), Vec<([u8; 4], u32)>);

/// What the `png` crate makes of a file: IHDR (width, height, bit depth, colour type) and
/// the chunks `(type, length)`, or its error.
fn reference(b: &[u8]) -> Result<Seen, String> {
    // The verdict: a full decode (header, every frame's data, up to IEND).
    // Strict: a bad CRC is an error in every chunk (by default the crate skips ancillary
    // chunks whose CRC fails).
    let mut options = png::DecodeOptions::default();
    options.set_skip_ancillary_crc_failures(false);
    let mut reader = png::Decoder::new_with_options(std::io::Cursor::new(b), options)
        .read_info()
        .map_err(|e| e.to_string())?;
    let info = reader.info();
    let ihdr = (
        info.width,
        info.height,
        info.bit_depth as u8,
        info.color_type as u8,
    );
    let mut frame = vec![0u8; reader.output_buffer_size()];
    reader.next_frame(&mut frame).map_err(|e| e.to_string())?;
    reader.finish().map_err(|e| e.to_string())?;
    // The chunk list, from its streaming decoder.
    let mut d = png::StreamingDecoder::new();
    d.set_skip_ancillary_crc_failures(false);
    let mut data = Vec::new();
    let mut chunks = Vec::new();
    let mut pos = 8.min(b.len());
    let (n, _) = d.update(&b[..pos], &mut data).map_err(|e| e.to_string())?;
    assert_eq!(n, pos);
    loop {
        let (n, ev) = d.update(&b[pos..], &mut data).map_err(|e| e.to_string())?;
        pos += n;
        match ev {
            png::Decoded::ChunkBegin(len, ty) => chunks.push((ty.0, len)),
            png::Decoded::ImageEnd => break,
            _ => {}
        }
        if n == 0 && pos >= b.len() {
            return Err("no IEND".into());
        }
    }
    Ok((ihdr, chunks))
}

/// The generated reader's view of a file, or its error code; its `Error` and `Brief` name
/// the same check, and the interpreter gives the same result.
fn ours(b: &[u8]) -> Result<Seen, &'static str> {
    let g = Png::validate(b);
    let brief = Png::validate_as::<Brief>(b).map(|_| ()).map_err(|e| e.id());
    let it = interp();
    assert_eq!(brief, it.check::<Brief>(b).map_err(|e| e.id()));
    match (&g, it.validate(b)) {
        (Err(ge), Err(ie)) => assert_eq!(*ge, ie),
        (Ok(_), Ok(v)) => {
            let n = v.group("chunks").map_or(0, |g| g.records.len());
            assert_eq!(n, g.as_ref().map_or(0, |v| v.chunks().count()));
        }
        (g, i) => panic!(
            "generated {:?}, interpreter {:?}",
            g.map(|_| ()),
            i.map(|_| ())
        ),
    }
    let v = g.map_err(|e| e.code)?;
    let ih = v.ihdrs().next().expect("one IHDR");
    let chunks = v
        .chunks()
        .map(|c| (c.header().chunk_type().to_be_bytes(), c.header().length()))
        .collect();
    Ok((
        (ih.width(), ih.height(), ih.bit_depth(), ih.color_type()),
        chunks,
    ))
}

fn interp() -> &'static npuschema_codegen::interp::Interp<'static> {
    npuschema_tests::interp("../formats/png.yaml")
}

/// Where each chunk starts: `(offset, data length)`.
fn chunk_offsets(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 8;
    while at + 8 <= b.len() {
        let n = u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        out.push((at, n));
        at += 12 + n;
    }
    out
}

#[test]
fn real_pngs_agree_with_the_png_crate() {
    let files = pngs(Path::new("/usr/share"), 300);
    if files.is_empty() {
        eprintln!("png_real: no .png files under /usr/share; skipped");
        return;
    }
    let (mut accepted, mut both_rejected) = (0usize, 0usize);
    for f in &files {
        let b = std::fs::read(f).unwrap();
        match (reference(&b), ours(&b)) {
            (Ok(r), Ok(o)) => {
                assert_eq!(r, o, "{}", f.display());
                accepted += 1;
            }
            (Err(_), Err(_)) => both_rejected += 1,
            (r, o) => panic!(
                "{}: png crate {:?}, schema {:?}",
                f.display(),
                r.map(|_| ()),
                o.map(|_| ())
            ),
        }
    }
    eprintln!(
        "png_real: {} files, {accepted} accepted by both, {both_rejected} rejected by both",
        files.len()
    );
    assert!(accepted > 0, "no real PNG was accepted");
}

#[test]
fn chunk_mutants_are_rejected_by_both() {
    let files = pngs(Path::new("/usr/share"), 20);
    if files.is_empty() {
        eprintln!("png_real: no .png files under /usr/share; skipped");
        return;
    }
    let mut codes = std::collections::BTreeMap::<&str, usize>::new();
    let mut lenient = 0usize;
    for f in &files {
        let b = std::fs::read(f).unwrap();
        if reference(&b).is_err() {
            continue;
        }
        let mut mutants = Vec::new();
        for (at, n) in chunk_offsets(&b) {
            // The CRC, the length, a type byte (a CRC mismatch, or the stream broken).
            for k in [at + 8 + n, at + 3, at + 5] {
                let mut m = b.clone();
                m[k] ^= 0x01;
                mutants.push(m);
            }
        }
        // Truncations: inside the signature, inside the first chunks, and near the end.
        let step = (b.len() / 16).max(1);
        for len in (0..b.len()).step_by(step).chain([b.len() - 1]) {
            mutants.push(b[..len].to_vec());
        }
        for m in &mutants {
            // Every mutant breaks a chunk: both readers reject it.
            let o = ours(m);
            let r = reference(m);
            if r.is_ok() {
                lenient += 1;
            }
            assert!(
                o.is_err(),
                "{}: a mutant accepted by the schema (png crate: {:?})",
                f.display(),
                r.map(|_| ())
            );
            *codes.entry(o.err().unwrap()).or_default() += 1;
        }
    }
    eprintln!("png_real mutants: {codes:?}; accepted by the png crate all the same: {lenient}");
    assert_eq!(
        lenient, 0,
        "the png crate accepted mutants the schema rejects"
    );
    assert!(codes.contains_key("bad-chunk-crc") && codes.contains_key("bad-chunk"));
}

/// A chunk's type and data (its body without the CRC), as the view reads them.
type Chunk = (u32, Vec<u8>);

/// The chunks of a valid file, from the generated view.
fn chunks_of(v: &Png<'_>) -> Vec<Chunk> {
    v.chunks()
        .map(|c| {
            let body = c.body();
            assert_eq!(body.len(), c.header().length() as usize + 4);
            (c.header().chunk_type(), body[..body.len() - 4].to_vec())
        })
        .collect()
}

/// A PNG file from chunks, by the generated writers: each chunk's body is its data and four
/// zero bytes where the writer stores the CRC it computes; `length` is solved from
/// `size: length + 4`.
fn write_png(chunks: &[Chunk]) -> Result<Vec<u8>, npuschema_core::WriteError> {
    let bodies: Vec<Vec<u8>> = chunks
        .iter()
        .map(|(_, d)| d.iter().copied().chain([0u8; 4]).collect())
        .collect();
    let specs: Vec<ChunksSpec<'_>> = chunks
        .iter()
        .zip(&bodies)
        .map(|((ty, _), body)| ChunksSpec {
            chunk_type: *ty,
            body,
        })
        .collect();
    PngWriter::new().chunks(&specs).to_vec()
}

#[test]
fn real_pngs_are_rebuilt_byte_for_byte_by_the_generated_writer() {
    let files = pngs(Path::new("/usr/share"), 300);
    if files.is_empty() {
        eprintln!("png_real: no .png files under /usr/share; skipped");
        return;
    }
    let (mut rebuilt, mut edited, mut added) = (0usize, 0usize, 0usize);
    for f in &files {
        let b = std::fs::read(f).unwrap();
        let Ok(v) = Png::validate(&b) else { continue };
        let Ok(seen) = reference(&b) else { continue };
        let chunks = chunks_of(&v);
        // The same file, byte for byte: signature, lengths, types, data, CRCs.
        let out = write_png(&chunks).unwrap();
        assert!(out == b, "{}: the rebuilt file differs", f.display());
        assert_eq!(reference(&out), Ok(seen.clone()), "{}", f.display());
        assert_eq!(ours(&out), Ok(seen.clone()), "{}", f.display());
        rebuilt += 1;

        // A tEXt chunk's text changed (a byte flipped, and a byte added so its length
        // changes too): the writer's CRC and length are right, so both readers accept it,
        // with the same IHDR and chunk list (that chunk one byte longer).
        let text = u32::from_be_bytes(*b"tEXt");
        if let Some(k) = chunks
            .iter()
            .position(|(ty, d)| *ty == text && d.last().is_some_and(|&x| x != 0))
        {
            let mut c = chunks.clone();
            *c[k].1.last_mut().unwrap() ^= 0x01;
            c[k].1.push(b' ');
            let out = write_png(&c).unwrap();
            let mut want = seen.clone();
            want.1[k].1 += 1;
            assert_eq!(reference(&out), Ok(want.clone()), "{}", f.display());
            assert_eq!(ours(&out), Ok(want), "{}", f.display());
            edited += 1;
        }
        // A tEXt chunk added before IEND: checked by the png crate's strict CRC check.
        let note = b"Comment\0rebuilt by npuschema";
        let mut c = chunks.clone();
        let at = c.len() - 1;
        c.insert(at, (text, note.to_vec()));
        let out = write_png(&c).unwrap();
        let mut want = seen.clone();
        want.1.insert(at, (*b"tEXt", note.len() as u32));
        assert_eq!(reference(&out), Ok(want.clone()), "{}", f.display());
        assert_eq!(ours(&out), Ok(want), "{}", f.display());
        added += 1;

        // A critical chunk's data changed (the first IDAT's last byte): the CRC the
        // writer computed is right, so the schema accepts the file (whatever zlib makes
        // of the data, the png crate reports no CRC error).
        if let Some(k) = chunks
            .iter()
            .position(|(ty, d)| *ty == u32::from_be_bytes(*b"IDAT") && !d.is_empty())
        {
            let mut c = chunks.clone();
            *c[k].1.last_mut().unwrap() ^= 0x01;
            let out = write_png(&c).unwrap();
            assert!(ours(&out).is_ok(), "{}", f.display());
            if let Err(e) = reference(&out) {
                assert!(!e.to_lowercase().contains("crc"), "{}: {e}", f.display());
            }
        }
    }
    eprintln!(
        "png_real writer: {rebuilt} files rebuilt byte for byte, {edited} with a tEXt chunk edited, {added} with a tEXt chunk added"
    );
    assert!(rebuilt > 0, "no real PNG was rebuilt");
}

/// The chunks of a small valid PNG (a 1x1 grey image), written by the generated writer.
fn tiny() -> Vec<Chunk> {
    // zlib of one filter byte and one pixel: 0x00 0x00.
    let idat = vec![0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01];
    vec![
        (
            u32::from_be_bytes(*b"IHDR"),
            vec![0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0],
        ),
        (u32::from_be_bytes(*b"IDAT"), idat),
        (u32::from_be_bytes(*b"IEND"), Vec::new()),
    ]
}

#[test]
fn the_writer_builds_a_png_the_png_crate_decodes() {
    let out = write_png(&tiny()).unwrap();
    assert_eq!(&out[..8], b"\x89PNG\r\n\x1a\n");
    let want = (
        (1, 1, 8, 0),
        vec![(*b"IHDR", 13), (*b"IDAT", 10), (*b"IEND", 0)],
    );
    assert_eq!(reference(&out), Ok(want.clone()));
    assert_eq!(ours(&out), Ok(want));
}

#[test]
fn the_writer_refuses_chunks_it_cannot_write() {
    use npuschema_core::WriteError;
    // The last chunk must be the terminator (IEND), and only the last: the writer appends
    // nothing of its own.
    let mut c = tiny();
    c.pop();
    assert_eq!(write_png(&c), Err(WriteError::Layout { item: "chunks" }));
    let mut c = tiny();
    c.insert(1, (u32::from_be_bytes(*b"IEND"), Vec::new()));
    assert_eq!(write_png(&c), Err(WriteError::Layout { item: "chunks" }));
    // A body shorter than the CRC: no `length` gives `length + 4` = 3.
    let specs = [ChunksSpec {
        chunk_type: u32::from_be_bytes(*b"IEND"),
        body: &[0u8; 3],
    }];
    let w = ChunksWriter::new(&specs);
    let want = Err(WriteError::NotRepresentable {
        field: "chunks[].length",
        value: 3,
    });
    assert_eq!(w.encoded_len(), want);
    assert_eq!(w.write_into(&mut [0u8; 64]), want);
    // The CRC's place must lie in the record: an empty body has none.
    let specs = [ChunksSpec {
        chunk_type: u32::from_be_bytes(*b"IEND"),
        body: &[],
    }];
    assert_eq!(
        ChunksWriter::new(&specs).encoded_len(),
        Err(WriteError::NotRepresentable {
            field: "chunks[].length",
            value: 0,
        })
    );
    // Too small a buffer.
    let specs = [ChunksSpec {
        chunk_type: u32::from_be_bytes(*b"IEND"),
        body: &[0u8; 4],
    }];
    assert_eq!(
        ChunksWriter::new(&specs).write_into(&mut [0u8; 11]),
        Err(WriteError::BufferTooSmall {
            needed: 12,
            available: 11
        })
    );
    // No chunks at all: no terminator, nothing written is a PNG; the writer writes the
    // empty stream, and the validator rejects the file (the range ends before IEND).
    assert_eq!(write_png(&[]).map(|v| v.len()), Ok(8));
    assert_eq!(ours(&write_png(&[]).unwrap()), Err("bad-chunk"));
}

/// Bytes after IEND: the stream ends at its terminator and the schema says `trailing: true`,
/// so a real file with 16 bytes of garbage, or a whole extra chunk, after IEND reads as the
/// original by the generated code, the interpreter and the png crate (which stops at IEND).
#[test]
fn bytes_after_iend_are_not_read() {
    let files = pngs(Path::new("/usr/share"), 20);
    if files.is_empty() {
        eprintln!("png_real: no .png files under /usr/share; skipped");
        return;
    }
    let mut n = 0;
    for f in &files {
        let b = std::fs::read(f).unwrap();
        let Ok(want) = reference(&b) else { continue };
        let mut extra_chunk = b.clone();
        extra_chunk.extend_from_slice(&[0, 0, 0, 0, b't', b'E', b'X', b't', 0, 0, 0, 0]);
        let mut garbage = b.clone();
        garbage.extend((0..16u8).map(|k| k.wrapping_mul(37)));
        for m in [extra_chunk, garbage] {
            assert_eq!(ours(&m), Ok(want.clone()), "{}", f.display());
            assert_eq!(
                reference(&m),
                Ok(want.clone()),
                "{}: the png crate",
                f.display()
            );
        }
        n += 1;
    }
    assert!(n > 0, "no PNG file the png crate decodes");
}

/// The chunks of `b` as (type, data), and `b` rebuilt from such a list (signature, each
/// chunk with its length and CRC-32).
fn split_chunks(b: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
    chunk_offsets(b)
        .into_iter()
        .map(|(at, n)| {
            (
                b[at + 4..at + 8].try_into().unwrap(),
                b[at + 8..at + 8 + n].to_vec(),
            )
        })
        .collect()
}

fn join_chunks(chunks: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (ty, data) in chunks {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let from = out.len();
        out.extend_from_slice(ty);
        out.extend_from_slice(data);
        let crc = npuschema_core::crc32(0, &out[from..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    out
}

/// IDAT chunks are consecutive (11.2.4: `last(idats) - first(idats) + 1 == count(idats)`):
/// a real file's image data split into two IDAT chunks reads as the original; with a tEXt
/// chunk between the two, both the schema (`idat-not-consecutive`, generated code and
/// interpreter) and the png crate refuse it.
#[test]
fn idat_chunks_are_consecutive() {
    let files = pngs(Path::new("/usr/share"), 20);
    let mut n = 0;
    for f in &files {
        let b = std::fs::read(f).unwrap();
        let Ok(want) = reference(&b) else { continue };
        let chunks = split_chunks(&b);
        let Some(i) = chunks
            .iter()
            .position(|c| &c.0 == b"IDAT" && c.1.len() >= 2)
        else {
            continue;
        };
        let (head, tail) = chunks[i].1.split_at(chunks[i].1.len() / 2);
        let idat = |d: &[u8]| (*b"IDAT", d.to_vec());
        let mut two = chunks.clone();
        two.splice(i..=i, [idat(head), idat(tail)]);
        let two = join_chunks(&two);
        let (ihdr, _) = want.clone();
        assert_eq!(
            ours(&two).map(|s| s.0),
            Ok(ihdr),
            "{}: split IDAT",
            f.display()
        );
        assert_eq!(
            reference(&two).map(|s| s.0),
            Ok(ihdr),
            "{}: the png crate",
            f.display()
        );
        let mut apart = chunks.clone();
        apart.splice(
            i..=i,
            [idat(head), (*b"tEXt", b"k\0v".to_vec()), idat(tail)],
        );
        let apart = join_chunks(&apart);
        assert_eq!(ours(&apart), Err("idat-not-consecutive"), "{}", f.display());
        assert!(reference(&apart).is_err(), "{}: the png crate", f.display());
        n += 1;
    }
    if n == 0 {
        eprintln!("png_real: no PNG file with an IDAT chunk here; skipped");
    }
}

/// PNG 5.6: the chunks that say how to read the image data (cHRM, gAMA, iCCP, sBIT, sRGB,
/// tRNS, pHYs) come before the first IDAT; the schema refuses each one after it where it
/// stands (`record.index < first(idats)`, the error at that chunk's type), as the png crate
/// does for cHRM, gAMA, iCCP, sRGB and pHYs (it drops sBIT's errors, and checks tRNS's place
/// in indexed colour only: named and counted). Real files whose own such chunks are moved
/// after their IDATs, and a pHYs added before (accepted by both) and after (refused by
/// both) the image data.
#[test]
fn image_chunks_after_idat_are_refused_where_they_stand() {
    let files = pngs(Path::new("/usr/share"), 300);
    if files.is_empty() {
        eprintln!("png_real: no .png files under /usr/share; skipped");
        return;
    }
    let idat = u32::from_be_bytes(*b"IDAT");
    let kinds: Vec<u32> = [
        b"cHRM", b"gAMA", b"iCCP", b"sBIT", b"sRGB", b"tRNS", b"pHYs",
    ]
    .iter()
    .map(|t| u32::from_be_bytes(**t))
    .collect();
    let (mut moved, mut added, mut lenient) = (0usize, 0usize, 0usize);
    for f in files.iter().take(60) {
        let b = std::fs::read(f).unwrap();
        let Ok(v) = Png::validate(&b) else { continue };
        if reference(&b).is_err() {
            continue;
        }
        let chunks = chunks_of(&v);
        let last_idat = chunks.iter().rposition(|c| c.0 == idat).unwrap();
        let own: Vec<usize> = (0..last_idat)
            .filter(|&k| kinds.contains(&chunks[k].0))
            .collect();
        if let Some(&k) = own.first() {
            // The first such chunk moved to just after the last IDAT.
            let mut c = chunks.clone();
            let x = c.remove(k);
            c.insert(last_idat, x.clone());
            let out = write_png(&c).unwrap();
            let e = Png::validate(&out).unwrap_err();
            assert_eq!(
                (e.code, e.field.table, e.field.index, e.field.name),
                ("chunk-after-idat", "chunks", last_idat as u64, "chunk_type")
            );
            let at = 8 + c[..last_idat].iter().map(|c| 12 + c.1.len()).sum::<usize>();
            assert_eq!(e.offset, at as u64 + 4);
            assert_eq!(ours(&out), Err("chunk-after-idat"));
            // The png crate drops sBIT's errors, and places tRNS in indexed colour only.
            if [*b"sBIT", *b"tRNS"].contains(&x.0.to_be_bytes()) {
                lenient += usize::from(reference(&out).is_ok());
            } else {
                assert!(reference(&out).is_err(), "{}", f.display());
            }
            moved += 1;
        }
        if chunks.iter().any(|c| c.0 == kinds[6]) {
            continue;
        }
        // A pHYs (3780 pixels per metre, the unit the metre) before the first IDAT, then
        // after the last one.
        let phys = (kinds[6], vec![0, 0, 0x0E, 0xC4, 0, 0, 0x0E, 0xC4, 1]);
        let first_idat = chunks.iter().position(|c| c.0 == idat).unwrap();
        let mut before = chunks.clone();
        before.insert(first_idat, phys.clone());
        let out = write_png(&before).unwrap();
        assert!(
            ours(&out).is_ok() && reference(&out).is_ok(),
            "{}",
            f.display()
        );
        let mut after = chunks.clone();
        after.insert(last_idat + 1, phys);
        let out = write_png(&after).unwrap();
        assert_eq!(ours(&out), Err("chunk-after-idat"));
        assert!(reference(&out).is_err(), "{}", f.display());
        added += 1;
    }
    eprintln!(
        "png_real: {moved} files with their own cHRM/gAMA/iCCP/sBIT/sRGB/tRNS/pHYs moved after the image data ({lenient} of them sBIT or tRNS the png crate accepts there), {added} with a pHYs added before and after it"
    );
    assert!(added > 0, "no real PNG took a pHYs");
}

/// The colour types and the bit depths each allows (11.2.2, Table 11.1), and one PLTE at most
/// (11.2.3). A real file's IHDR rewritten with every colour type 0 to 7 and bit depth 0 to 17
/// (its CRC-32 made anew) is refused with `bad-bit-depth` exactly when the `png` crate's
/// header reading (`read_info`) refuses the pair: 15 pairs are allowed and 129 refused. (The
/// image data no longer fits the new pixel format, so the crate's decode is not asked.) A
/// second PLTE before the image data is `two-palettes`, and a duplicate chunk to the crate.
/// The generated code and the interpreter agree on each (`ours`).
#[test]
fn colour_types_bit_depths_and_one_palette() {
    let Some(chunks) = pngs(Path::new("/usr/share"), 40).iter().find_map(|f| {
        let b = std::fs::read(f).ok()?;
        reference(&b).ok()?;
        let chunks = split_chunks(&b);
        // Only IHDR, IDAT and IEND (and text): no chunk whose meaning a colour type changes.
        chunks
            .iter()
            .all(|c| {
                matches!(
                    &c.0,
                    b"IHDR" | b"IDAT" | b"IEND" | b"tEXt" | b"zTXt" | b"iTXt"
                )
            })
            .then_some(chunks)
    }) else {
        eprintln!("png_real: no PNG of IHDR, IDAT and IEND only here; skipped");
        return;
    };
    let header_ok = |b: &[u8]| {
        png::Decoder::new(std::io::Cursor::new(b))
            .read_info()
            .is_ok()
    };
    let (mut allowed, mut refused) = (0, 0);
    for color in 0u8..=7 {
        for depth in 0u8..=17 {
            let mut m = chunks.clone();
            m[0].1[8] = depth;
            m[0].1[9] = color;
            let m = join_chunks(&m);
            match ours(&m) {
                Ok(_) => {
                    assert!(header_ok(&m), "colour type {color}, bit depth {depth}");
                    allowed += 1;
                }
                Err(code) => {
                    assert_eq!(
                        code, "bad-bit-depth",
                        "colour type {color}, bit depth {depth}"
                    );
                    assert!(!header_ok(&m), "colour type {color}, bit depth {depth}");
                    refused += 1;
                }
            }
        }
    }
    assert_eq!((allowed, refused), (15, 129));
    let plte = (*b"PLTE", vec![0u8; 6]);
    let one = chunks.iter().position(|c| &c.0 == b"IDAT").unwrap();
    let mut m = chunks.clone();
    m[0].1[8] = 8;
    m[0].1[9] = 3;
    m.insert(one, plte.clone());
    assert!(ours(&join_chunks(&m)).is_ok(), "one PLTE");
    m.insert(one, plte);
    let two = join_chunks(&m);
    assert_eq!(ours(&two).map(|_| ()), Err("two-palettes"));
    assert!(!header_ok(&two), "the png crate takes two PLTE chunks");
}

/// IEND's data field is empty (11.2.5), a rule the schema states with the chunk found by its
/// type at file level (`chunks[chunk_type == CHUNK_IEND].length`); the png crate reads an
/// IEND's data and takes the file, so a non-empty one is refused by the schema alone.
#[test]
fn an_iend_with_data_is_refused() {
    let Some(chunks) = pngs(Path::new("/usr/share"), 5).iter().find_map(|f| {
        let b = std::fs::read(f).ok()?;
        reference(&b).ok()?;
        Some(split_chunks(&b))
    }) else {
        eprintln!("png_real: no PNG here; skipped");
        return;
    };
    let mut m = chunks.clone();
    let end = m.iter().position(|c| &c.0 == b"IEND").unwrap();
    assert!(ours(&join_chunks(&m)).is_ok());
    m[end].1 = b"not empty".to_vec();
    let b = join_chunks(&m);
    assert_eq!(ours(&b).map(|_| ()), Err("iend-not-empty"));
    assert!(
        reference(&b).is_ok(),
        "the png crate takes a non-empty IEND"
    );
}
