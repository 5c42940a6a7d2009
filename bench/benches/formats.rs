//! The public-format gallery's validators against the reference crates each is held to, on
//! the largest real file of each format on this machine (the same places the tests read):
//! ELF, 64- and 32-bit (`object`: header, program and section headers, every section's name
//! and bytes),
//! RIFF/WAVE (`hound`: the reader's header parse, up to the data chunk), ZIP (`zip`: the
//! archive's directory on opening, every local header against its entry, every stored
//! entry read for its CRC-32) and PNG (`png`: a decode, which also inflates the image:
//! the ratio says what the schema's chunk-level check costs beside a decode, not a like
//! for like) and TIFF (`tiff`: `Decoder::new`, then `next_image` to the chain's end: every
//! IFD read, a cycle check, and an image made of each, which reads its tags: more than the
//! schema's chain-level check) and OpenType (`ttf-parser`: `Face::parse`, the directory and
//! the tables every face needs; it checks no checksum, so a second row adds to it a plain
//! sum of every table's words, the `head` table's with its checkSumAdjustment as zero, and
//! the whole font's sum, the work the schema's checksums do: the like for like).
//! Measured as `ratios.rs` measures (`npuschema_bench::ratio`).
//!
//! `cargo bench -p npuschema-bench --bench formats` (`RATIO_ROUNDS`, default 15; without
//! `--bench`, as `cargo test --all-targets` runs it, one short round each);
//! `scripts/bench-formats` runs it.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    missing_docs
)]

use std::hint::black_box;
use std::path::{Path, PathBuf};

use npuschema_bench::ratio::{Outcome, compare, fmt_time, rounds};
use npuschema_tests::real_files;

#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod elf {
    npuschema_macro::include_schema!("../formats/elf.yaml");
}
#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod wav {
    npuschema_macro::include_schema!("../formats/wav.yaml");
}
#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod zipf {
    npuschema_macro::include_schema!("../formats/zip.yaml");
}
#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod pcapf {
    npuschema_macro::include_schema!("../formats/pcap.yaml");
}
#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod tiff_schema {
    npuschema_macro::include_schema!("../formats/tiff.yaml");
}
#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod opentype {
    npuschema_macro::include_schema!("../formats/opentype.yaml");
}
#[allow(dead_code, missing_docs, unused_parens, clippy::all)]
mod png_schema {
    npuschema_macro::include_schema!("../formats/png.yaml");
}

/// The largest of `paths` that `ok` accepts, read.
fn largest(paths: &[PathBuf], ok: impl Fn(&[u8]) -> bool) -> Option<(PathBuf, Vec<u8>)> {
    let mut sized: Vec<(u64, &PathBuf)> = paths
        .iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.len(), p)))
        .collect();
    sized.sort();
    sized.iter().rev().find_map(|(_, p)| {
        let b = std::fs::read(p).ok()?;
        ok(&b).then(|| ((*p).clone(), b))
    })
}

fn report(format: &str, path: &Path, bytes: usize, o: &Outcome, reference: &str) {
    println!(
        "| {format} | {} ({bytes} bytes) | {} | {} ({reference}) | {:.2}x | {:.2}x |",
        path.display(),
        fmt_time(o.a),
        fmt_time(o.b),
        o.speed,
        o.median_speed
    );
}

fn main() {
    let (rounds, smoke) = rounds(15);
    if smoke {
        println!("(smoke run: use `cargo bench -p npuschema-bench --bench formats` for figures)");
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    println!(
        "ratio = (reference time) / (our time), each side's fastest of {rounds} interleaved rounds; median = the median of the per-round ratios."
    );
    println!();
    println!("| format | largest real file | generated validator | reference | ratio | median |");
    println!("|---|---|---|---|---|---|");

    // ELF: both walk the header, the program and section headers, every name and range;
    // the largest 64-bit file of the machine, and the largest 32-bit one of the other
    // targets' libraries (`scripts/setup-formats`).
    fn by_object<H: object::read::elf::FileHeader<Endian = object::Endianness>>(
        b: &[u8],
    ) -> Option<u64> {
        use object::read::elf::SectionHeader;
        let h = H::parse(b).ok()?;
        let e = h.endian().ok()?;
        h.program_headers(e, b).ok()?;
        let t = h.sections(e, b).ok()?;
        let mut n = 0u64;
        for s in t.iter() {
            n = n.wrapping_add(t.section_name(e, s).ok()?.len() as u64);
            n = n.wrapping_add(s.data(e, b).ok()?.len() as u64);
        }
        Some(n)
    }
    let by_object = |b: &[u8]| {
        if b.get(4) == Some(&1) {
            by_object::<object::elf::FileHeader32<object::Endianness>>(b)
        } else {
            by_object::<object::elf::FileHeader64<object::Endianness>>(b)
        }
    };
    let sections = |v: elf::Elf<'_>| match v {
        elf::Elf::Elf32(v) => v.sections().len() as u64,
        elf::Elf::Elf64(v) => v.sections().len() as u64,
    };
    for (name, dirs) in [
        ("ELF64", ["/usr/bin", "/usr/lib/x86_64-linux-gnu"]),
        (
            "ELF32",
            ["/usr/arm-linux-gnueabihf/lib", "/usr/powerpc-linux-gnu/lib"],
        ),
    ] {
        let dirs = dirs.map(PathBuf::from);
        let files = real_files(&dirs, &[], 64 << 20, usize::MAX);
        if let Some((p, b)) = largest(&files, |b| {
            elf::Elf::validate(b).is_ok() && by_object(b).is_some()
        }) {
            let r = compare(
                || elf::Elf::validate(black_box(&b)).map_or(0, sections),
                || by_object(black_box(&b)).unwrap_or(0),
                rounds,
            );
            report(name, &p, b.len(), &r, "object");
        }
    }

    // RIFF/WAVE: ours walks every chunk; hound parses the header up to the data chunk.
    let wavs = real_files(
        &[PathBuf::from("/usr/share")],
        &["wav"],
        64 << 20,
        usize::MAX,
    );
    let by_hound = |b: &[u8]| -> Option<u64> {
        let r = hound::WavReader::new(std::io::Cursor::new(b)).ok()?;
        Some(u64::from(r.spec().sample_rate) + u64::from(r.len()))
    };
    if let Some((p, b)) = largest(&wavs, |b| {
        wav::Wav::validate(b).is_ok() && by_hound(b).is_some()
    }) {
        let r = compare(
            || wav::Wav::validate(black_box(&b)).map_or(0, |v| v.chunks().count() as u64),
            || by_hound(black_box(&b)).unwrap_or(0),
            rounds,
        );
        report("RIFF/WAVE", &p, b.len(), &r, "hound");
    }

    // ZIP: both find the end record, read the central directory, check every entry's local
    // header against it, and the CRC-32 of every stored entry that is not encrypted (the
    // crate reads those entries; it also looks for overlaps and unlisted local headers).
    let zips = real_files(
        &[
            PathBuf::from("/usr/share"),
            PathBuf::from("/usr/lib"),
            home.join(".cache/pip"),
            home.join(".pyenv"),
        ],
        &["zip", "jar", "whl"],
        64 << 20,
        usize::MAX,
    );
    let by_zip = |b: &[u8]| -> Option<u64> {
        let mut a = zip::ZipArchive::new(std::io::Cursor::new(b)).ok()?;
        a.validate_header_consistency().ok()?;
        for i in 0..a.len() {
            let plain = {
                let f = a.by_index_raw(i).ok()?;
                f.compression() == zip::CompressionMethod::Stored && !f.encrypted()
            };
            if plain {
                let mut f = a.by_index(i).ok()?;
                std::io::copy(&mut f, &mut std::io::sink()).ok()?;
            }
        }
        Some(a.len() as u64)
    };
    if let Some((p, b)) = largest(&zips, |b| {
        zipf::Zip::validate(b).is_ok() && by_zip(b).is_some()
    }) {
        let r = compare(
            || zipf::Zip::validate(black_box(&b)).map_or(0, |v| v.centrals().count() as u64),
            || by_zip(black_box(&b)).unwrap_or(0),
            rounds,
        );
        report("ZIP", &p, b.len(), &r, "zip");
    }

    // pcap: both read the header and every packet record, with the same rules; the capture
    // rewritten big-endian with nanosecond timestamps by pcap-file's writer is timed too (the
    // file's byte order read at run time, and the reference's other path).
    let pcaps = real_files(
        &[PathBuf::from("/usr/share"), PathBuf::from("/usr/lib")],
        &["pcap", "cap"],
        64 << 20,
        usize::MAX,
    );
    let by_pcap = |b: &[u8]| -> Option<u64> {
        let (mut rest, parser) = pcap_file::pcap::PcapParser::new(b).ok()?;
        let mut n = 0u64;
        while !rest.is_empty() {
            let (r, _) = parser.next_packet(rest).ok()?;
            rest = r;
            n += 1;
        }
        Some(n)
    };
    if let Some((p, b)) = largest(&pcaps, |b| {
        pcapf::Pcap::validate(b).is_ok() && by_pcap(b).is_some()
    }) {
        // Ours hands back a header word: validation walked every record already, and a
        // count would be a second walk through the view (the validator's count is not in
        // it); the reference's count comes from its one pass.
        let r = compare(
            || pcapf::Pcap::validate(black_box(&b)).map_or(0, |v| u64::from(v.header().snaplen())),
            || by_pcap(black_box(&b)).unwrap_or(0),
            rounds,
        );
        report("pcap", &p, b.len(), &r, "pcap-file");
        // Big-endian, nanoseconds: the same packets, written by the reference's writer.
        let be =
            npuschema_tests::pcap_rewritten(&b, true, true).expect("a capture pcap-file reads");
        let r = compare(
            || pcapf::Pcap::validate(black_box(&be)).map_or(0, |v| u64::from(v.header().snaplen())),
            || by_pcap(black_box(&be)).unwrap_or(0),
            rounds,
        );
        report("pcap (big-endian, ns)", &p, be.len(), &r, "pcap-file");
    }

    // TIFF: ours follows the IFD chain (every IFD inside the file, a cycle check); the tiff
    // crate reads every IFD of the chain and makes an image of each (its tags read). On the
    // largest real file, and on a 64-page file the crate's encoder writes (a longer chain).
    let mut troots = vec![PathBuf::from("/usr/share"), PathBuf::from("/usr/lib")];
    if let Some(home) = std::env::var_os("HOME") {
        troots.push(PathBuf::from(home).join(".pyenv"));
    }
    let tiffs = real_files(&troots, &["tif", "tiff"], 64 << 20, usize::MAX);
    let by_tiff = |b: &[u8]| -> Option<u64> {
        let mut d = tiff::decoder::Decoder::new(std::io::Cursor::new(b)).ok()?;
        let mut n = 1u64;
        while d.more_images() {
            d.next_image().ok()?;
            n += 1;
        }
        Some(n)
    };
    let ours = |b: &[u8]| tiff_schema::Tiff::validate(b).map_or(0, |v| v.ifds().count() as u64);
    if let Some((p, b)) = largest(&tiffs, |b| {
        tiff_schema::Tiff::validate(b).is_ok() && by_tiff(b).is_some()
    }) {
        let r = compare(
            || ours(black_box(&b)),
            || by_tiff(black_box(&b)).unwrap_or(0),
            rounds,
        );
        report("TIFF", &p, b.len(), &r, "tiff");
    }
    let pages = {
        use tiff::encoder::{TiffEncoder, colortype::Gray8};
        let mut out = std::io::Cursor::new(Vec::new());
        let mut e = TiffEncoder::new(&mut out).unwrap();
        for k in 0..64u8 {
            e.write_image::<Gray8>(8, 8, &[k; 64]).unwrap();
        }
        out.into_inner()
    };
    assert_eq!(ours(&pages), 64);
    let r = compare(
        || ours(black_box(&pages)),
        || by_tiff(black_box(&pages)).unwrap_or(0),
        rounds,
    );
    report(
        "TIFF (64 pages)",
        Path::new("written by tiff's encoder"),
        pages.len(),
        &r,
        "tiff",
    );

    // PNG: ours checks every chunk and its CRC-32; the png crate decodes (and inflates).
    let pngs = real_files(
        &[PathBuf::from("/usr/share")],
        &["png"],
        16 << 20,
        usize::MAX,
    );
    let by_png = |b: &[u8]| -> Option<u64> {
        let mut r = png::Decoder::new(std::io::Cursor::new(b))
            .read_info()
            .ok()?;
        let mut out = vec![0u8; r.output_buffer_size()];
        let info = r.next_frame(&mut out).ok()?;
        Some(info.buffer_size() as u64)
    };
    if let Some((p, b)) = largest(&pngs, |b| {
        png_schema::Png::validate(b).is_ok() && by_png(b).is_some()
    }) {
        let r = compare(
            || png_schema::Png::validate(black_box(&b)).map_or(0, |v| v.chunks().count() as u64),
            || by_png(black_box(&b)).unwrap_or(0),
            rounds,
        );
        report("PNG", &p, b.len(), &r, "png, a decode");
    }

    // OpenType: ours checks the directory, every table's place and checksum (a sum over
    // nearly every byte), that no two tables overlap, the head, hhea and maxp tables, and
    // the whole font's sum (a second pass); ttf-parser parses the face (the directory and
    // the head, hhea and maxp tables) and sums nothing.
    let fonts = real_files(
        &[PathBuf::from("/usr/share/fonts")],
        &["ttf", "otf"],
        64 << 20,
        usize::MAX,
    );
    let by_face = |b: &[u8]| -> Option<u64> {
        let f = ttf_parser::Face::parse(b, 0).ok()?;
        Some(u64::from(f.raw_face().table_records.len()))
    };
    // The same, then the checksums of OpenType's "Calculating Checksums": every table's
    // (the `head` table's less its checkSumAdjustment, the word at 8) and the whole font's,
    // which the adjustment makes 0xB1B0AFBA.
    let word_sum = |t: &[u8]| -> u32 {
        let mut sum = 0u32;
        let mut words = t.chunks_exact(4);
        for w in words.by_ref() {
            sum = sum.wrapping_add(u32::from_be_bytes([w[0], w[1], w[2], w[3]]));
        }
        let mut last = [0u8; 4];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        sum.wrapping_add(u32::from_be_bytes(last))
    };
    let by_face_sums = |b: &[u8]| -> Option<u64> {
        let f = ttf_parser::Face::parse(b, 0).ok()?;
        let mut ok = 0u64;
        for r in f.raw_face().table_records {
            let t =
                b.get(r.offset as usize..(r.offset as usize).checked_add(r.length as usize)?)?;
            let mut sum = word_sum(t);
            if r.tag.0 == u32::from_be_bytes(*b"head") {
                sum = sum.wrapping_sub(u32::from_be_bytes(t.get(8..12)?.try_into().ok()?));
            }
            ok += u64::from(sum == r.check_sum);
        }
        Some(ok + u64::from(word_sum(b) == 0xB1B0_AFBA))
    };
    if let Some((p, b)) = largest(&fonts, |b| {
        opentype::OpenType::validate(b).is_ok() && by_face(b).is_some()
    }) {
        let ours =
            || opentype::OpenType::validate(black_box(&b)).map_or(0, |v| v.records().len() as u64);
        let r = compare(ours, || by_face(black_box(&b)).unwrap_or(0), rounds);
        report("OpenType", &p, b.len(), &r, "ttf-parser, no checksum");
        let r = compare(ours, || by_face_sums(black_box(&b)).unwrap_or(0), rounds);
        report(
            "OpenType",
            &p,
            b.len(),
            &r,
            "ttf-parser, a sum per table and the font's",
        );
    }
}
