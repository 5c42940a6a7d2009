//! Shared by the `vpmn_*` tests: the corpus (from `NPUSCHEMA_CORPUS`), and small writer-built
//! version 2 files.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use npuschema_cli::vpmn::writer::{Section, V2Spec, directory};

/// Every error code the VPMN validator may return.
pub const CODES: &[&str] = &[
    "truncated-header",
    "bad-magic",
    "unsupported-version",
    "file-size-mismatch",
    "sub-header-count",
    "sub-header-size",
    "sub-header-out-of-bounds",
    "section-header-size",
    "section-table-out-of-bounds",
    "unknown-section-type",
    "section-out-of-bounds",
    "section-entry-size",
    "bad-io-record",
    "metadata-count-mismatch",
    "section-checksum-missing",
    "section-checksum-duplicate",
    "section-checksum-mismatch",
    "file-checksum-mismatch",
    "dynaio-unpaired",
    "dynaio-entry-invalid",
    "dynaio-padding-nonzero",
    "ownership-overlap",
    "too-many-sections",
];

/// The corpus files `(name, bytes)`, sorted, or `None` (after saying so) when there is no
/// shared data (`NPUSCHEMA_CORPUS`, else `../shared`: [`refreader::corpus_dir`]).
pub fn corpus() -> Option<Vec<(String, Vec<u8>)>> {
    let root = npuschema_tests::refreader::corpus_dir("the real VPMN files")?;
    let dir = std::path::Path::new(&root).join("corpus/vpmn");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".nb") || name.ends_with(".nbg") {
            out.push((name, std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    assert_eq!(
        out.len(),
        5,
        "expected the five VPMN corpus files in {}",
        dir.display()
    );
    Some(out)
}

/// One corpus file by name.
pub fn file(name: &str) -> Option<Vec<u8>> {
    corpus().map(|c| {
        c.into_iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} not in corpus"))
            .1
    })
}

pub fn u32s(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A 112-byte I/O record.
pub fn io_record(dims: &[u32], format: u32, name: &str) -> Vec<u8> {
    let mut d = [1u32; 6];
    d[..dims.len()].copy_from_slice(dims);
    let mut r = u32s(&[dims.len() as u32]);
    r.extend(u32s(&d));
    r.extend(u32s(&[format, 0, 0, 0, 0]));
    let mut n = [0u8; 64];
    n[..name.len()].copy_from_slice(name.as_bytes());
    r.extend(n);
    assert_eq!(r.len(), 112);
    r
}

/// A 220-byte NETWORK_INFO record.
pub fn network_info(inputs: u32, outputs: u32) -> Vec<u8> {
    let mut n = [0u8; 64];
    n[..4].copy_from_slice(b"test");
    let mut r = n.to_vec();
    r.extend(u32s(&[inputs, outputs, 1, 1, 4, 1, 32, 0x0a]));
    r.extend([0u8; 124]);
    assert_eq!(r.len(), 220);
    r
}

/// A small valid version 2 file's spec: NETWORK_INFO, VIP_SRAM, CHECKSUM (for NN and
/// COEF_DATA), INPUT, OUTPUT, NN, DYNAIO (two slots), DYNAIO_TABLE, COEF_DATA (64-aligned).
pub fn small_spec() -> V2Spec {
    let mut dynaio = vec![0u8; 192];
    dynaio[..4].copy_from_slice(&[0, 1, 2, 3]);
    for (i, b) in dynaio[64..192].iter_mut().enumerate() {
        *b = i as u8;
    }
    V2Spec {
        target: 0x1000_003B,
        class_word: 0,
        reserved: [0, 0],
        sections: vec![
            Section::new(35, 220, network_info(1, 1)),
            Section::new(38, 4, u32s(&[262_144])),
            Section::new(40, 8, u32s(&[7, 0, 24, 0])),
            Section::new(1, 112, io_record(&[3, 8, 8, 1], 1, "input[0]")),
            Section::new(2, 112, io_record(&[10], 5, "out")),
            Section::new(7, 192, (0..192u32).map(|i| (i * 7) as u8).collect()),
            Section::new(20, 1, dynaio),
            Section::new(26, 8, u32s(&[0, 4, 64, 128])),
            Section::new(24, 1, (0..1000u32).map(|i| (i * 13 + 5) as u8).collect()).aligned(64),
        ],
    }
}

/// Little-endian word at `at`.
pub fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Set the little-endian word at `at`.
pub fn set_word(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// File offset of directory record `i` of a writer-built file (directory at 60).
pub fn dir_rec(i: usize) -> usize {
    60 + 44 * i
}

/// Payload offset of section `i` (reads the directory).
pub fn payload_at(b: &[u8], i: usize) -> usize {
    word(b, dir_rec(i) + 4) as usize
}

/// Offsets to mutate in a sweep: the first 4096, both sides of every section (v2) or table
/// (v1) boundary, and a stride through the rest.
pub fn sweep_offsets(b: &[u8], stride: usize) -> Vec<usize> {
    let len = b.len();
    let mut v: Vec<usize> = (0..len.min(4096)).collect();
    let mut bounds: Vec<u64> = Vec::new();
    if b[6] == 2 {
        for (_, off, size) in directory(b) {
            bounds.extend([off, off + size]);
        }
    } else {
        for k in 0..16usize {
            let e = 376 + 8 * k;
            let (off, size) = (u64::from(word(b, e)), u64::from(word(b, e + 4)));
            bounds.extend([off, off + size]);
        }
    }
    for x in bounds {
        for d in [-2i64, -1, 0, 1] {
            let p = x as i64 + d;
            if p >= 0 && (p as usize) < len {
                v.push(p as usize);
            }
        }
    }
    v.extend((4096..len).step_by(stride));
    v.push(len - 1);
    v.sort_unstable();
    v.dedup();
    v
}
