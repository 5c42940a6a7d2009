//! RIFF/WAVE, a public format nobody here designed, as a record stream
//! (`formats/wav.yaml`): a RIFF header, then chunks sized by their own headers and
//! padded to even lengths, layouts chosen by the chunk id (`fmt `, `data`; LIST and the
//! others kept as unknown records), one `fmt ` before one `data` (`count()` and `first()`).
//! Run on the real WAV files of this machine (`/usr/share`, which Debian's `sound-icons`
//! fills: scripts/setup-formats installs it; skipped with a message when there are none)
//! and held to the `hound` crate field for field (channels, sample rate, bits per sample,
//! integer or float samples, block align, byte rate, where the samples start, their length,
//! the sample and frame counts) and verdict for verdict (hound reads the header and every
//! sample), and to the schema interpreter error for error. Then mutants of the smallest
//! files (every byte of the RIFF header and the chunks before the samples flipped,
//! truncations, random mutants, chunks inserted, swapped, repeated and removed): no panic,
//! every mutant accepted or rejected with a code, and the same verdict as hound (the same
//! fields when both accept) unless hound does not decide by the checks the schema makes;
//! each such difference must have one of these reasons, and is counted by reason: hound
//! does not read the RIFF size, stops reading at the `data` chunk, keeps the last of two
//! `fmt ` chunks, does not skip the pad byte after an odd-sized chunk, refuses sample
//! formats it cannot decode (`Unsupported`, `TooWide`). The data length against the format
//! chunk's block size, a rule across two chunks, is the schema's too (`partial-frame`: the
//! format chunk's body is a located record at `first_body(fmts)`). The format chunk's
//! WAVEFORMATEX and WAVEFORMATEXTENSIBLE parts are records present only when its size and
//! tag call for them: real files rewritten with them read as the originals in both readers,
//! and are mutated with the rest (hound's own rules on the chunk's size per tag, its
//! ignoring PCM's `cbSize` and the valid bits, and its not skipping the rest of an
//! extensible chunk longer than 40 bytes are named reasons).
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
use std::path::{Path, PathBuf};

use npuschema_core::Brief;
use npuschema_tests::npu1_blobs::xorshift;

mod wav_schema {
    npuschema_macro::include_schema!("../formats/wav.yaml");
}
use wav_schema::Wav;

/// Up to `max` `.wav` files under `dir` smaller than 512 KiB (no symbolic links), in path
/// order.
fn wavs(dir: &Path, max: usize) -> Vec<PathBuf> {
    npuschema_tests::real_files(&[dir.to_path_buf()], &["wav"], 512 * 1024, max)
}

/// The contents of the `.wav` files under /usr/share that both readers accept, smallest
/// first (none when there are none: the caller says what it skips).
fn accepted_wavs() -> Vec<Vec<u8>> {
    let mut files: Vec<Vec<u8>> = wavs(Path::new("/usr/share"), 300)
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .filter(|b| matches!(reference(b), Hound::Ok(_)) && ours(b).is_ok())
        .collect();
    files.sort_by_key(Vec::len);
    files
}

/// What both readers say of a file: channels, sample rate, bits per sample, float samples,
/// block align, byte rate, where the samples start, their bytes, the sample count (every
/// channel's) and the frame count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    channels: u16,
    sample_rate: u32,
    bits: u16,
    float: bool,
    block_align: u64,
    byte_rate: u64,
    data_at: u64,
    data_len: u64,
    samples: u64,
    frames: u64,
}

/// hound's verdict: `Ok`, a rejection, or a sample format it cannot decode (not a verdict
/// on the container).
enum Hound {
    Ok(Seen),
    Rejected(String),
    Undecided,
}

/// What `hound` makes of a file: the header, then every sample read (as `i32` or `f32`);
/// the block align and byte rate follow from the bytes it read per sample (hound checks
/// `byte_rate == block_align * sample_rate` itself, and does not hand them out).
fn reference(b: &[u8]) -> Hound {
    fn run(b: &[u8]) -> Result<Seen, hound::Error> {
        let r = hound::WavReader::new(Cursor::new(b))?;
        let spec = r.spec();
        let (samples, frames) = (u64::from(r.len()), u64::from(r.duration()));
        let data_at = r.into_inner().position();
        let mut r = hound::WavReader::new(Cursor::new(b))?;
        let float = spec.sample_format == hound::SampleFormat::Float;
        if float {
            for s in r.samples::<f32>() {
                s?;
            }
        } else {
            for s in r.samples::<i32>() {
                s?;
            }
        }
        let data_len = r.into_inner().position() - data_at;
        let block_align = data_len
            .checked_div(samples)
            .map_or(0, |per_sample| per_sample * u64::from(spec.channels));
        Ok(Seen {
            channels: spec.channels,
            sample_rate: spec.sample_rate,
            bits: spec.bits_per_sample,
            float,
            block_align,
            byte_rate: block_align * u64::from(spec.sample_rate),
            data_at,
            data_len,
            samples,
            frames,
        })
    }
    match run(b) {
        Ok(s) => Hound::Ok(s),
        Err(hound::Error::Unsupported | hound::Error::TooWide) => Hound::Undecided,
        Err(e) => Hound::Rejected(e.to_string()),
    }
}

fn interp() -> &'static npuschema_codegen::interp::Interp<'static> {
    npuschema_tests::interp("../formats/wav.yaml")
}

/// The generated reader's view of a file, or its error; its `Error` and `Brief` name the
/// same check, and the interpreter gives the same result (the same error, the same
/// chunks).
fn ours(b: &[u8]) -> Result<Seen, npuschema_core::Error> {
    let g = Wav::validate(b);
    let brief = Wav::validate_as::<Brief>(b).map(|_| ()).map_err(|e| e.id());
    let it = interp();
    assert_eq!(brief, it.check::<Brief>(b).map_err(|e| e.id()));
    if let Err(id) = brief {
        let site = wav_schema::error_site(id).expect("a site");
        let e = g.as_ref().map(|_| ()).expect_err("Error rejects too");
        assert_eq!((site.code, site.name), (e.code, e.field.name));
    }
    match (&g, it.validate(b)) {
        (Err(ge), Err(ie)) => assert_eq!(*ge, ie),
        (Ok(v), Ok(iv)) => {
            let n = iv.group("chunks").map_or(0, |g| g.records.len());
            assert_eq!(n, v.chunks().count());
            let n = iv.group("fmts").map_or(0, |g| g.records.len());
            assert_eq!(n, v.fmts().count());
        }
        (g, i) => panic!(
            "generated {:?}, interpreter {:?}",
            g.as_ref().map(|_| ()),
            i.map(|_| ())
        ),
    }
    let v = g?;
    let f = v.fmts().next().expect("one fmt");
    let data = v
        .chunks()
        .find(|c| c.as_datas().is_some())
        .expect("one data");
    // WAVE_FORMAT_EXTENSIBLE: the sample format is the sub-format GUID's first word, and
    // the valid bits (when not 0) are the sample's bits (the format chunk's extension, a
    // located record present only in a chunk of that tag).
    let (tag, bits) = match v.fmt_ext() {
        Some(x) => (
            u16::try_from(x.sub_format1()).unwrap_or(0),
            match x.valid_bits_per_sample() {
                0 => f.bits_per_sample(),
                b => b,
            },
        ),
        None => (f.format_tag(), f.bits_per_sample()),
    };
    assert_eq!(v.fmt_ext().is_some(), f.format_tag() == 0xFFFE);
    assert_eq!(
        v.fmt_ex().is_some(),
        chunks(b).iter().any(|c| &c.1 == b"fmt " && c.2 >= 18)
    );
    let block_align = u64::from(f.block_align());
    let per_sample = block_align / u64::from(f.channels());
    let data_len = data.body().len() as u64;
    let samples = data_len / per_sample;
    Ok(Seen {
        channels: f.channels(),
        sample_rate: f.sample_rate(),
        bits,
        float: tag == 3,
        block_align: if samples == 0 { 0 } else { block_align },
        byte_rate: if samples == 0 {
            0
        } else {
            u64::from(f.byte_rate())
        },
        data_at: data.body_offset(),
        data_len,
        samples,
        frames: data_len / block_align,
    })
}

#[test]
fn real_wavs_agree_with_hound() {
    let files = wavs(Path::new("/usr/share"), 300);
    if files.is_empty() {
        eprintln!(
            "wav_real: no .wav files under /usr/share (scripts/setup-formats installs some); skipped"
        );
        return;
    }
    let (mut accepted, mut rejected, mut undecided) = (0usize, 0usize, 0usize);
    for f in &files {
        let b = std::fs::read(f).unwrap();
        match (reference(&b), ours(&b)) {
            (Hound::Ok(r), Ok(o)) => {
                assert_eq!(r, o, "{}", f.display());
                accepted += 1;
            }
            (Hound::Rejected(_), Err(_)) => rejected += 1,
            (Hound::Undecided, _) => undecided += 1,
            (Hound::Ok(_), Err(e)) => panic!("{}: hound accepts, schema {e}", f.display()),
            (Hound::Rejected(r), Ok(_)) => {
                panic!("{}: hound rejects ({r}), schema accepts", f.display())
            }
        }
    }
    eprintln!(
        "wav_real: {} files, {accepted} accepted by both (every field equal), {rejected} rejected by both, {undecided} in a sample format hound does not decode",
        files.len()
    );
    assert!(accepted > 0, "no real WAV was accepted");
}

/// Where the chunks of a well-formed file start: `(offset, id, size)`.
fn chunks(b: &[u8]) -> Vec<(usize, [u8; 4], usize)> {
    let mut out = Vec::new();
    let mut at = 12;
    while at + 8 <= b.len() {
        let id: [u8; 4] = b[at..at + 4].try_into().unwrap();
        let n = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
        out.push((at, id, n));
        at += 8 + n + (n & 1);
    }
    out
}

/// A file of the chunks `cs` (each padded to an even length), with its RIFF size.
fn riff(cs: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let body = list(b"WAVE", cs);
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

/// The chunks of a well-formed file, as `(id, body)`.
fn parts(b: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
    chunks(b)
        .into_iter()
        .map(|(at, id, n)| (id, b[at + 8..(at + 8 + n).min(b.len())].to_vec()))
        .collect()
}

fn rebuild(ps: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let cs: Vec<(&[u8; 4], &[u8])> = ps.iter().map(|(id, d)| (id, d.as_slice())).collect();
    riff(&cs)
}

/// Why hound's verdict on a mutant differs from the schema's: the parts of the format
/// hound does not check the way the schema does. `None`: no such reason, so the verdicts
/// must agree.
fn why_they_differ(
    m: &[u8],
    h: &Hound,
    o: &Result<Seen, npuschema_core::Error>,
) -> Option<&'static str> {
    let riff_size = m
        .get(4..8)
        .map(|x| u32::from_le_bytes(x.try_into().unwrap()));
    let ids: Vec<[u8; 4]> = chunks(m).iter().map(|c| c.1).collect();
    let odd_before_data = chunks(m)
        .iter()
        .take_while(|c| &c.1 != b"data")
        .any(|c| c.2 % 2 == 1);
    // hound's own rules for the format chunk, beyond the format's: the sizes it takes per
    // tag (PCM 16, 18 or 40; IEEE float 16, or 18 with `cbSize` 0; extensible `cbSize`
    // exactly 22) and PCM in a WAVEFORMATEX of 8, 16 or 24 bits only.
    let fmt = chunks(m).into_iter().find(|c| &c.1 == b"fmt ");
    let u16_at = |k: usize| {
        m.get(k..k + 2)
            .map_or(0, |x| u16::from_le_bytes([x[0], x[1]]))
    };
    let fmt_tag = fmt.map(|(at, _, _)| u16_at(at + 8));
    let hound_fmt_rule = fmt.is_some_and(|(at, _, n)| {
        let (tag, bits, cb) = (u16_at(at + 8), u16_at(at + 22), u16_at(at + 24));
        match tag {
            1 => !matches!(n, 16 | 18 | 40) || (n != 16 && !matches!(bits, 8 | 16 | 24)),
            3 => !(n == 16 || (n == 18 && cb == 0)),
            0xFFFE => n >= 40 && cb != 22,
            _ => false,
        }
    });
    let in_list = |at: u64| {
        chunks(m).iter().any(|&(c, id, n)| {
            &id == b"LIST" && (c as u64 + 8..c as u64 + 8 + n as u64).contains(&at)
        })
    };
    match (h, o) {
        (Hound::Undecided, _) => Some("a sample format hound does not decode"),
        (Hound::Ok(_), Err(e))
            if matches!(e.code, "bad-chunk" | "nested-format-or-data") && in_list(e.offset) =>
        {
            Some("a LIST's sub-chunks (hound does not read them)")
        }
        (Hound::Ok(_), Err(_)) | (Hound::Rejected(_), Ok(_))
            if fmt.is_some_and(|(_, _, n)| n > 40) && fmt_tag == Some(0xFFFE) =>
        {
            Some("an extensible format chunk longer than 40 bytes (hound does not skip the rest)")
        }
        (Hound::Rejected(_), Ok(_)) if hound_fmt_rule => {
            Some("a format chunk size, cbSize or PCM width hound does not take for its tag")
        }
        (Hound::Ok(_), Err(e)) if e.code == "extension-past-chunk" && fmt_tag == Some(1) => {
            Some("WAVEFORMATEX's cbSize past the chunk (hound ignores PCM's)")
        }
        (_, Err(e)) if e.code == "bad-valid-bits" => {
            Some("valid bits beyond the sample's (hound does not check them)")
        }
        (_, _) if riff_size.is_some_and(|s| u64::from(s) != m.len() as u64 - 8) => {
            Some("the RIFF size (hound does not read it)")
        }
        (Hound::Ok(s), Err(e)) if e.offset >= s.data_at + s.data_len => {
            Some("after the data chunk (hound stops there)")
        }
        (Hound::Ok(_), Err(e))
            if e.code == "one-fmt" && ids.iter().filter(|i| *i == b"fmt ").count() > 1 =>
        {
            Some("a second fmt chunk (hound keeps the last)")
        }
        (Hound::Rejected(_), Ok(_)) if odd_before_data => {
            Some("a pad byte after an odd-sized chunk (hound does not skip it)")
        }
        _ => None,
    }
}

#[test]
fn mutants_are_rejected_alike() {
    let mut files = accepted_wavs();
    if files.is_empty() {
        eprintln!("wav_real: no .wav file under /usr/share that both accept; skipped");
        return;
    }
    files.truncate(6);
    // The two smallest rewritten with WAVEFORMATEX and WAVEFORMATEXTENSIBLE format chunks
    // (no real file here has one): their extensions mutated too.
    let rewritten: Vec<Vec<u8>> = files
        .iter()
        .take(2)
        .flat_map(|g| [with_format(g, false), with_format(g, true)])
        .collect();
    files.extend(rewritten);
    // The smallest with LIST chunks before its data: INFO sub-chunks, and LISTs nested
    // two deep (their sub-chunks mutated too).
    let info = list(b"INFO", &[(b"INAM", b"title"), (b"ISFT", b"npuschema\0")]);
    let nested = list(b"adtl", &[(b"LIST", &info), (b"note", b"x")]);
    let listed: Vec<Vec<u8>> = [info, nested]
        .iter()
        .map(|l| with_list(&files[0], l))
        .collect();
    files.extend(listed);
    let mut codes = BTreeMap::<&str, usize>::new();
    let mut skipped = BTreeMap::<&str, usize>::new();
    let mut compared = 0usize;
    for (i, good) in files.iter().enumerate() {
        let mut mutants = Vec::new();
        // Every byte of the RIFF header and of the first chunks' headers and the format
        // chunk's body, with four masks.
        let head = chunks(good)
            .iter()
            .take_while(|(_, id, _)| id != b"data")
            .map(|(at, _, n)| at + 8 + n)
            .max()
            .unwrap_or(12)
            + 8;
        for at in 0..head.min(good.len()) {
            for x in [0x01u8, 0x02, 0x80, 0xFF] {
                let mut m = good.clone();
                m[at] ^= x;
                mutants.push(m);
            }
        }
        // Truncations: inside the headers, then through the file.
        let step = (good.len() / 24).max(1);
        for len in (0..head + 4).chain((head..good.len()).step_by(step)) {
            mutants.push(good[..len.min(good.len())].to_vec());
        }
        let mut next = xorshift(0x3A7E + i as u32);
        for _ in 0..1500 {
            let mut m = good.clone();
            for _ in 0..=(next() % 3) {
                let at = next() as usize % head;
                m[at] = next() as u8;
            }
            mutants.push(m);
        }
        // Chunks added, moved and repeated (the file rebuilt with its RIFF size).
        let ps = parts(good);
        let list = (*b"LIST", b"INFOISFT\x06\x00\x00\x00hello\x00".to_vec());
        let mut with = ps.clone();
        with.insert(0, list.clone());
        mutants.push(rebuild(&with));
        let mut with = ps.clone();
        with.push(list.clone());
        mutants.push(rebuild(&with));
        let mut swapped = ps.clone();
        swapped.reverse();
        mutants.push(rebuild(&swapped));
        let mut twice = ps.clone();
        twice.insert(1, ps[0].clone());
        mutants.push(rebuild(&twice));
        let mut no_fmt = ps.clone();
        no_fmt.retain(|(id, _)| id != b"fmt ");
        mutants.push(rebuild(&no_fmt));
        // The data one byte short of a whole number of frames (a block of more than a byte).
        let mut short = ps.clone();
        if let Some(d) = short.iter_mut().find(|(id, _)| id == b"data")
            && !d.1.is_empty()
        {
            d.1.pop();
        }
        let short = rebuild(&short);
        mutants.push(short.clone());
        for m in &mutants {
            let o = ours(m);
            let h = reference(m);
            *codes
                .entry(o.as_ref().err().map_or("ok", |e| e.code))
                .or_default() += 1;
            if o.is_ok() {
                // Every chunk and sub-chunk where the `riff` crate has it.
                assert_eq!(our_tree(m), riff_tree(m).unwrap());
            }
            match (&h, &o) {
                (Hound::Ok(r), Ok(s)) => {
                    assert_eq!(r, s);
                    compared += 1;
                }
                (Hound::Rejected(_), Err(_)) => compared += 1,
                _ => {
                    let Some(why) = why_they_differ(m, &h, &o) else {
                        match (&h, &o) {
                            (Hound::Rejected(r), _) => {
                                panic!("hound rejects a mutant ({r}) the schema accepts")
                            }
                            (_, Err(e)) => panic!("hound accepts a mutant the schema rejects: {e}"),
                            _ => unreachable!(),
                        }
                    };
                    *skipped.entry(why).or_default() += 1;
                }
            }
        }
        // The construct `first()` decides the swapped file, and `count()` the others.
        assert_eq!(ours(&rebuild(&swapped)).unwrap_err().code, "fmt-after-data");
        assert_eq!(ours(&rebuild(&twice)).unwrap_err().code, "one-fmt");
        assert_eq!(ours(&rebuild(&no_fmt)).unwrap_err().code, "one-fmt");
        assert!(matches!(reference(&rebuild(&swapped)), Hound::Rejected(_)));
        // A rule across two chunks: the data against the format chunk's block size.
        if ours(good).is_ok_and(|s| s.block_align > 1) {
            assert_eq!(ours(&short).unwrap_err().code, "partial-frame");
            assert!(matches!(reference(&short), Hound::Rejected(_)));
        }
    }
    eprintln!(
        "wav_real mutants: {compared} with the same verdict as hound (the same fields when accepted); different, for a reason above: {skipped:?}; verdicts {codes:?}"
    );
    for code in [
        "truncated-header",
        "not-riff",
        "not-wave",
        "chunks-out-of-bounds",
        "bad-chunk",
        "one-fmt",
        "one-data",
        "fmt-after-data",
        "no-channels",
        "bad-bits-per-sample",
        "bad-block-align",
        "bad-byte-rate",
        "bad-float-width",
        "partial-frame",
        "extension-past-chunk",
        "bad-extensible-size",
        "bad-valid-bits",
        "ok",
    ] {
        assert!(
            codes.contains_key(code),
            "no mutant reached {code}: {codes:?}"
        );
    }
}

/// A LIST chunk of odd size keeps its pad byte (RIFF); hound does not skip the pad, so it
/// loses its place in the file, while both readers agree when the size is even. (The last
/// sub-chunk of the odd LIST ends at the LIST's end without its pad byte.)
#[test]
fn pad_byte_after_an_odd_chunk() {
    let fmt: &[u8] = &[1, 0, 1, 0, 0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0];
    let data: &[u8] = &[1, 0, 2, 0, 3, 0, 4, 0];
    let even = riff(&[
        (b"LIST", b"INFOISFT\x02\0\0\0ab"),
        (b"fmt ", fmt),
        (b"data", data),
    ]);
    let odd = riff(&[
        (b"LIST", b"INFOISFT\x03\0\0\0abc"),
        (b"fmt ", fmt),
        (b"data", data),
    ]);
    let seen = ours(&even).unwrap();
    assert!(matches!(reference(&even), Hound::Ok(s) if s == seen));
    assert_eq!((seen.samples, seen.data_at), (4, 12 + 22 + 24 + 8));
    let seen = ours(&odd).unwrap();
    assert_eq!(seen.data_at, 12 + 24 + 24 + 8);
    assert!(!matches!(reference(&odd), Hound::Ok(s) if s == seen));
    // The last chunk may end at the RIFF chunk's end without its pad byte (8-bit mono: three
    // bytes are three frames).
    let fmt8: &[u8] = &[1, 0, 1, 0, 0x40, 0x1F, 0, 0, 0x40, 0x1F, 0, 0, 1, 0, 8, 0];
    let mut short = riff(&[(b"fmt ", fmt8), (b"data", &[1, 2, 3])]);
    short.pop();
    let riff_size = (short.len() - 8) as u32;
    short[4..8].copy_from_slice(&riff_size.to_le_bytes());
    assert!(ours(&short).is_ok());
}

/// `good` (a PCM file with a 16-byte format chunk) with its format chunk written as
/// WAVEFORMATEX (`cbSize` 0) or as WAVEFORMATEXTENSIBLE (`cbSize` 22, the valid bits the
/// sample's, no channel mask, the PCM sub-format GUID), the samples as they were.
fn with_format(good: &[u8], extensible: bool) -> Vec<u8> {
    let mut ps = parts(good);
    let f = ps.iter_mut().find(|(id, _)| id == b"fmt ").unwrap();
    assert_eq!(f.1.len(), 16);
    let bits = [f.1[14], f.1[15]];
    if extensible {
        f.1[0..2].copy_from_slice(&0xFFFEu16.to_le_bytes());
        f.1.extend_from_slice(&22u16.to_le_bytes());
        f.1.extend_from_slice(&bits);
        f.1.extend_from_slice(&0u32.to_le_bytes());
        f.1.extend_from_slice(&[
            1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71,
        ]);
    } else {
        f.1.extend_from_slice(&0u16.to_le_bytes());
    }
    rebuild(&ps)
}

/// The format chunk by its size and tag: real PCM files rewritten with WAVEFORMATEX and
/// WAVEFORMATEXTENSIBLE format chunks read as the originals (hound and the schema, every
/// field; the samples 2 and 24 bytes later), the view's `fmt_ex()` and `fmt_ext()` present
/// where the chunk has them; and each rule over the extension refuses what it states, in
/// both engines (`ours` holds the interpreter to the generated code).
#[test]
fn extended_format_chunks_read_as_the_original() {
    let mut files = accepted_wavs();
    files.retain(|b| chunks(b).iter().any(|c| &c.1 == b"fmt " && c.2 == 16));
    if files.is_empty() {
        eprintln!("wav_real: no PCM .wav file under /usr/share that both accept; skipped");
        return;
    }
    for good in files.iter().take(3) {
        let plain = rebuild(&parts(good));
        let want = ours(&plain).unwrap();
        for (extensible, shift) in [(false, 2u64), (true, 24)] {
            let b = with_format(good, extensible);
            let seen = ours(&b).unwrap();
            assert!(matches!(reference(&b), Hound::Ok(s) if s == seen));
            assert_eq!(
                seen,
                Seen {
                    data_at: want.data_at + shift,
                    ..want
                }
            );
            let v = Wav::validate(&b).unwrap();
            assert_eq!(
                v.fmt_ex().map(|x| x.cb_size()),
                Some(if extensible { 22 } else { 0 })
            );
            match v.fmt_ext() {
                Some(x) => {
                    assert!(extensible);
                    assert_eq!(x.valid_bits_per_sample(), v.fmt().bits_per_sample());
                    assert_eq!(
                        (
                            x.sub_format1(),
                            x.sub_format2(),
                            x.sub_format3(),
                            x.sub_format4()
                        ),
                        (1, 0, 0x10, 0x8000_00AA_0038_9B71)
                    );
                }
                None => assert!(!extensible),
            }
            let v = Wav::validate(&plain).unwrap();
            assert!(v.fmt_ex().is_none() && v.fmt_ext().is_none());
        }
        // Each rule over the extension: the chunk's bytes changed, the file rebuilt.
        let ext = parts(&with_format(good, true));
        let edit = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut ps = ext.clone();
            f(&mut ps.iter_mut().find(|(id, _)| id == b"fmt ").unwrap().1);
            ours(&rebuild(&ps)).map(|_| ()).map_err(|e| e.code)
        };
        // cbSize past the chunk; an extensible chunk shorter than 40 bytes; cbSize below
        // 22; valid bits beyond the sample's.
        assert_eq!(edit(&|f| f[16] = 23), Err("extension-past-chunk"));
        assert_eq!(
            edit(&|f| {
                f.truncate(38);
                f[16] = 20;
            }),
            Err("extensible-too-short")
        );
        assert_eq!(edit(&|f| f[16] = 20), Err("bad-extensible-size"));
        assert_eq!(edit(&|f| f[18] = f[14] + 8), Err("bad-valid-bits"));
        // A tag the schema does not know keeps its bytes (not decoded): accepted.
        assert_eq!(edit(&|f| f[0] = 0x55), Ok(()));
    }
}

/// A file's chunks in file order (a LIST, then its sub-chunks): `(offset, id, size, depth)`.
type Tree = Vec<(u64, [u8; 4], u32, u32)>;

/// Every chunk of a file the schema accepts, as the generated view walks them.
fn our_tree(b: &[u8]) -> Tree {
    let v = Wav::validate(b).unwrap();
    v.chunks()
        .map(|c| {
            let h = c.header();
            (c.offset(), h.id().to_le_bytes(), h.size(), c.depth())
        })
        .collect()
}

/// The same from the `riff` crate: the RIFF chunk's children, and each LIST's, recursively.
fn riff_tree(b: &[u8]) -> std::io::Result<Tree> {
    fn walk(
        c: &riff::Chunk,
        cur: &mut Cursor<&[u8]>,
        depth: u32,
        out: &mut Tree,
    ) -> std::io::Result<()> {
        let kids = c.iter(cur).collect::<std::io::Result<Vec<_>>>()?;
        for k in kids {
            out.push((k.offset(), k.id().value, k.len(), depth));
            if k.id() == riff::LIST_ID {
                walk(&k, cur, depth + 1, out)?;
            }
        }
        Ok(())
    }
    let mut cur = Cursor::new(b);
    let root = riff::Chunk::read(&mut cur, 0)?;
    let mut out = Vec::new();
    walk(&root, &mut cur, 0, &mut out)?;
    Ok(out)
}

/// A form or list type, then chunks (each padded to an even length): the body of a LIST
/// chunk, or of the RIFF chunk ([`riff`]).
fn list(ty: &[u8; 4], subs: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let mut out = ty.to_vec();
    for (id, data) in subs {
        out.extend_from_slice(*id);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
        if data.len() % 2 == 1 {
            out.push(0);
        }
    }
    out
}

/// `good` with a LIST chunk (body `body`) before its data chunk.
fn with_list(good: &[u8], body: &[u8]) -> Vec<u8> {
    let mut ps = parts(good);
    let at = ps.iter().position(|(id, _)| id == b"data").unwrap();
    ps.insert(at, (*b"LIST", body.to_vec()));
    rebuild(&ps)
}

/// hound's own test files (real WAVs from its repository, two with a LIST chunk of INFO
/// sub-chunks), where cargo unpacked hound, a dev-dependency of these tests.
fn hound_samples() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = std::fs::read_dir(src)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .filter(|d| d.file_name().to_string_lossy().starts_with("hound-3."))
        .flat_map(|d| {
            std::fs::read_dir(d.path().join("testsamples"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wav"))
        .collect();
    out.sort();
    out
}

/// LIST chunks hold sub-chunks (a stream nested in the records of its `lists` layout, to
/// `max_depth` 4): the chunk tree of every file the schema accepts is the `riff` crate's,
/// record for record and depth for depth, on hound's own test files (two with LIST INFO)
/// and on real files rewritten with LISTs (INFO sub-chunks of odd and even sizes, an empty
/// LIST, LISTs nested four deep), and hound reads them as the originals. A LIST nested five
/// deep, a sub-chunk past its LIST's end, a sub-chunk header cut by it and a format chunk
/// inside a LIST are refused with their sites; the interpreter agrees on each (`ours`).
#[test]
fn list_sub_chunks_agree_with_riff() {
    let samples = hound_samples();
    let mut with_lists = 0usize;
    for p in &samples {
        let b = std::fs::read(p).unwrap();
        if let (Ok(_), Ok(tree)) = (Wav::validate(&b), riff_tree(&b)) {
            assert_eq!(our_tree(&b), tree, "{}", p.display());
            with_lists += usize::from(tree.iter().any(|c| c.3 > 0));
        }
    }
    if samples.is_empty() {
        eprintln!("wav_real: hound's test files not found in cargo's registry; that part skipped");
    } else {
        assert!(with_lists >= 1, "no sample of hound's with a LIST read");
    }
    let files = accepted_wavs();
    if files.is_empty() {
        eprintln!("wav_real: no .wav file under /usr/share that both accept; skipped");
        return;
    }
    let info = list(
        b"INFO",
        &[
            (b"INAM", b"a title\0"),
            (b"IART", b"someone\0"),
            (b"ISFT", b"npuschema"),
        ],
    );
    let mut nested = list(b"INFO", &[(b"ISFT", b"deep")]);
    for ty in [b"adtl", b"lvl3", b"lvl2"] {
        nested = list(ty, &[(b"LIST", &nested), (b"note", b"x")]);
    }
    let too_deep = list(b"lvl1", &[(b"LIST", &nested)]);
    for good in files.iter().take(3) {
        let want = ours(good).unwrap();
        for (body, depth, extra) in [
            (info.clone(), 1, 3),
            (list(b"INFO", &[]), 0, 0),
            (nested.clone(), 4, 7),
        ] {
            let b = with_list(good, &body);
            let tree = our_tree(&b);
            assert_eq!(tree, riff_tree(&b).unwrap());
            assert_eq!(tree.iter().map(|c| c.3).max(), Some(depth));
            assert_eq!(tree.len(), parts(good).len() + 1 + extra);
            let seen = ours(&b).unwrap();
            assert!(matches!(reference(&b), Hound::Ok(s) if s == seen));
            assert_eq!(seen.data_len, want.data_len);
            // The interpreter's view lists the same records.
            let iv = interp().validate(&b).unwrap();
            assert_eq!(iv.group("chunks").unwrap().records.len(), tree.len());
        }
        // Five deep: the LIST at depth 4 has no level left.
        let e = ours(&with_list(good, &too_deep)).unwrap_err();
        assert_eq!((e.code, e.field.name), ("bad-chunk", "depth"));
        // A sub-chunk past its LIST (the LIST a byte short of it, its pad byte gone too),
        // and a header cut.
        let mut over = info.clone();
        over.truncate(info.len() - 2);
        let e = ours(&with_list(good, &over)).unwrap_err();
        assert_eq!((e.code, e.field.name), ("bad-chunk", "size"));
        let e = ours(&with_list(good, &info[..info.len() - 13])).unwrap_err();
        assert_eq!((e.code, e.field.name), ("bad-chunk", "header"));
        // The format chunk is the WAVE form's own, not a list's.
        let fmt = parts(good)
            .into_iter()
            .find(|(id, _)| id == b"fmt ")
            .unwrap()
            .1;
        let e = ours(&with_list(good, &list(b"INFO", &[(b"fmt ", &fmt)]))).unwrap_err();
        assert_eq!(e.code, "nested-format-or-data");
    }
}

/// The stream writer writes a LIST's sub-chunks into the LIST's body, and the file's chunks
/// around it: the bytes are the RIFF layout's (every odd chunk padded but the range's last),
/// and both readers read them back.
#[test]
fn lists_written_by_the_stream_writer() {
    use wav_schema::{ChunksSpec, ChunksWriter};
    let fmt: &[u8] = &[1, 0, 1, 0, 0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0];
    let data: &[u8] = &[1, 0, 2, 0, 3, 0, 4, 0];
    let id = |x: &[u8; 4]| u32::from_le_bytes(*x);
    let subs = [
        ChunksSpec {
            id: id(b"INAM"),
            body: b"odd",
        },
        ChunksSpec {
            id: id(b"ISFT"),
            body: b"npuschema!",
        },
    ];
    let w = ChunksWriter::new(&subs);
    let mut body = b"INFO".to_vec();
    let n = w.encoded_len().unwrap();
    body.resize(4 + n, 0xEE);
    assert_eq!(w.write_into(&mut body[4..]).unwrap(), n);
    assert_eq!(
        body,
        list(b"INFO", &[(b"INAM", b"odd"), (b"ISFT", b"npuschema!")])
    );
    let top = [
        ChunksSpec {
            id: id(b"fmt "),
            body: fmt,
        },
        ChunksSpec {
            id: id(b"LIST"),
            body: &body,
        },
        ChunksSpec {
            id: id(b"data"),
            body: data,
        },
    ];
    let w = ChunksWriter::new(&top);
    let mut file = b"RIFF\0\0\0\0WAVE".to_vec();
    let n = w.encoded_len().unwrap();
    file.resize(12 + n, 0xEE);
    w.write_into(&mut file[12..]).unwrap();
    let riff_size = (file.len() - 8) as u32;
    file[4..8].copy_from_slice(&riff_size.to_le_bytes());
    assert_eq!(
        file,
        riff(&[(b"fmt ", fmt), (b"LIST", &body), (b"data", data)])
    );
    assert_eq!(our_tree(&file), riff_tree(&file).unwrap());
    assert_eq!(our_tree(&file)[2].3, 1);
    let seen = ours(&file).unwrap();
    assert!(matches!(reference(&file), Hound::Ok(s) if s == seen));
}
