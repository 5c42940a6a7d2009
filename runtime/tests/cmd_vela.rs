//! The command-stream decoder and checker against real Vela 5.2.0 outputs.
//!
//! Reads `<repo>/vela-out/`, made by `scripts/setup-vela` (not in git). When it is missing
//! each test prints "skipping: run scripts/setup-vela" and returns.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(clippy::arithmetic_side_effects, missing_docs)]

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use npuschema_runtime::cmd::{Finding, FindingCode, Listing, check, decode};
use npuschema_tests::vela::out_dir as vela_out;

/// Number of models compiled (one directory each under vela-out/).
fn model_count(dir: &Path) -> usize {
    let n = fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert!(n > 0, "no models in {}", dir.display());
    n
}

/// Every file under `dir` (recursively) whose name ends with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The entries of an .npz (numpy's zip of .npy files): name without ".npy" -> raw data bytes
/// after the .npy header, with the header's descr and shape.
struct Npy {
    descr: String,
    shape: Vec<usize>,
    data: Vec<u8>,
}

fn read_npz(path: &Path) -> BTreeMap<String, Npy> {
    let mut zip = zip::ZipArchive::new(fs::File::open(path).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let name = entry.name().unwrap().trim_end_matches(".npy").to_string();
        let mut raw = Vec::new();
        entry.read_to_end(&mut raw).unwrap();
        assert_eq!(&raw[..6], b"\x93NUMPY", "{name} is not .npy");
        let (hlen, hstart) = match raw[6] {
            1 => (usize::from(u16::from_le_bytes([raw[8], raw[9]])), 10),
            _ => (
                u32::from_le_bytes(raw[8..12].try_into().unwrap()) as usize,
                12,
            ),
        };
        let header = std::str::from_utf8(&raw[hstart..hstart + hlen]).unwrap();
        let field = |key: &str| -> String {
            let at = header.find(key).unwrap() + key.len();
            header[at..].trim_start_matches([' ', ':']).to_string()
        };
        let descr = field("'descr'");
        let descr = descr
            .trim_start_matches('\'')
            .split('\'')
            .next()
            .unwrap()
            .to_string();
        let shape_text = field("'shape'");
        let shape_text = &shape_text[1..shape_text.find(')').unwrap()];
        let shape = shape_text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        out.insert(
            name,
            Npy {
                descr,
                shape,
                data: raw[hstart + hlen..].to_vec(),
            },
        );
    }
    out
}

impl Npy {
    /// All values of an `<i8` array.
    fn ints(&self) -> Vec<i64> {
        assert_eq!(self.descr, "<i8");
        self.data
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    fn int(&self) -> u64 {
        assert!(self.shape.is_empty());
        u64::try_from(self.ints()[0]).unwrap()
    }
    /// Size in bytes of a `|S<n>` value: the whole value, trailing zero bytes included.
    fn bytes(&self) -> &[u8] {
        let n: usize = self.descr.trim_start_matches("|S").parse().unwrap();
        &self.data[..n]
    }
}

/// The register command stream inside a COP1 or COP2 driver payload found in `file` (an
/// .npz's `cmd_data`, or anywhere in a .tflite).
fn stream_of(payload: &[u8]) -> Vec<u8> {
    let word = |at: usize| u32::from_le_bytes(payload[at..at + 4].try_into().unwrap());
    if let Some(at) = find(payload, b"COP1") {
        // Stream at byte 32; the COMMAND_STREAM action (byte 28) gives its length in words:
        // (byte[1] << 16) | param.
        let action = word(at + 28);
        assert_eq!(action & 0xFF, 2, "COMMAND_STREAM action");
        let words = (((action >> 8) & 0xFF) << 16) | (action >> 16);
        payload[at + 32..at + 32 + 4 * words as usize].to_vec()
    } else if let Some(at) = find(payload, b"COP2") {
        // "COP2", u16 major, u16 minor, u64 actions length, then entries {u32 type, u32 len}:
        // the type-1 entry's bytes (from byte 24) are a VEUM block, a 0xFFFFFFFF word and the
        // stream, which starts at byte 64 and runs to the end of the entry.
        assert_eq!(word(at + 16), 1, "first COP2 entry is a command stream");
        let entry_end = at + 24 + word(at + 20) as usize;
        assert_eq!(&payload[at + 28..at + 32], b"VEUM");
        payload[at + 64..entry_end].to_vec()
    } else {
        panic!("no COP1/COP2 payload found");
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Vela's listing lines ("0x000004: 00000010 0000 4000 - NPU_SET_IFM_BASE0 ...") and the
/// stream length it announces, in words.
fn vela_listing(path: &Path) -> (Vec<String>, usize) {
    let text = fs::read_to_string(path).unwrap();
    let words = text
        .lines()
        .find_map(|l| l.strip_prefix("Register command stream: "))
        .and_then(|l| l.strip_suffix(" words"))
        .unwrap_or_else(|| panic!("{}: no stream length line", path.display()))
        .parse()
        .unwrap();
    let lines = text
        .lines()
        .filter(|l| l.len() > 9 && l.starts_with("0x") && l.as_bytes()[8] == b':')
        .map(str::to_string)
        .collect();
    (lines, words)
}

fn output_stream(output: &Path) -> Vec<u8> {
    if output.extension().is_some_and(|e| e == "npz") {
        stream_of(read_npz(output)["cmd_data"].bytes())
    } else {
        stream_of(&fs::read(output).unwrap())
    }
}

#[test]
fn cmd_decoder_listing_equals_vela_listing() {
    let Some(dir) = vela_out() else { return };
    let mut outputs = files(&dir, ".tflite");
    outputs.extend(files(&dir, ".npz"));
    assert_eq!(
        outputs.len(),
        8 * model_count(&dir),
        "per model: 2 accelerators x 4 outputs"
    );
    for output in outputs {
        let listing = PathBuf::from(format!("{}.txt", output.display()));
        let (expected, words) = vela_listing(&listing);
        let stream = output_stream(&output);
        assert_eq!(
            stream.len(),
            4 * words,
            "{}: stream length",
            output.display()
        );
        let mut got = Vec::new();
        for cmd in decode(&stream) {
            let cmd = cmd.unwrap_or_else(|e| panic!("{}: {e}", output.display()));
            got.push(Listing(&cmd).to_string());
        }
        assert_eq!(
            got.len(),
            expected.len(),
            "{}: command count",
            output.display()
        );
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g, e, "{}", output.display());
        }
        assert!(
            got.last().unwrap().contains("NPU_OP_STOP"),
            "{}",
            output.display()
        );
    }
}

#[test]
fn cmd_tflite_and_raw_outputs_hold_the_same_stream() {
    let Some(dir) = vela_out() else { return };
    let tflites = files(&dir, ".tflite");
    assert!(!tflites.is_empty());
    for tflite in tflites {
        let variant_dir = tflite.parent().unwrap();
        let npz_dir = if variant_dir.ends_with("tflite") {
            variant_dir.with_file_name("raw")
        } else {
            variant_dir.to_path_buf()
        };
        let npz = npz_dir.join(tflite.with_extension("npz").file_name().unwrap());
        assert_eq!(
            output_stream(&tflite),
            output_stream(&npz),
            "{}",
            tflite.display()
        );
    }
}

/// Region sizes from a raw output: read-only data, scratch, fast scratch, and (with
/// --separate-io-regions) the input and output regions, each sized to cover its tensors.
fn region_sizes(npz: &BTreeMap<String, Npy>) -> (Vec<u64>, BTreeMap<usize, u64>) {
    let mut sizes: BTreeMap<usize, u64> = BTreeMap::new();
    let mut grow = |region: u64, size: u64| {
        let e = sizes.entry(region as usize).or_default();
        *e = (*e).max(size);
    };
    grow(
        npz["weight_region"].int(),
        npz["weight_data"].bytes().len() as u64,
    );
    grow(npz["scratch_region"].int(), npz["scratch_size"].int());
    if npz["scratch_fast_size"].int() > 0 {
        grow(
            npz["scratch_fast_region"].int(),
            npz["scratch_fast_size"].int(),
        );
    }
    let mut io = BTreeMap::new();
    for dir in ["input", "output"] {
        let regions = npz[&format!("{dir}_region")].ints();
        let offsets = npz[&format!("{dir}_offset")].ints();
        let elems = npz[&format!("{dir}_elem_size")].ints();
        let shapes = npz[&format!("{dir}_shape")].ints();
        let rank = npz[&format!("{dir}_shape")].shape[1];
        for (i, region) in regions.iter().enumerate() {
            let count: i64 = shapes[i * rank..(i + 1) * rank].iter().product();
            let end = (offsets[i] + count * elems[i]) as u64;
            grow(*region as u64, end);
            io.insert(*region as usize, end);
        }
    }
    let len = sizes.keys().max().unwrap() + 1;
    let list = (0..len)
        .map(|r| sizes.get(&r).copied().unwrap_or(0))
        .collect();
    (list, io)
}

#[test]
fn cmd_checker_is_clean_on_vela_streams_and_extents_are_tight() {
    let Some(dir) = vela_out() else { return };
    let npzs = files(&dir, ".npz");
    assert_eq!(
        npzs.len(),
        4 * model_count(&dir),
        "per model: 2 accelerators x 2 .npz"
    );
    for path in npzs {
        let npz = read_npz(&path);
        let stream = stream_of(npz["cmd_data"].bytes());
        let (sizes, io) = region_sizes(&npz);
        let mut findings: Vec<Finding> = Vec::new();
        let summary = check(&stream, &sizes, &mut |f| findings.push(f)).unwrap();
        let name = path.display();
        assert!(
            findings.is_empty(),
            "{name}: {}",
            findings
                .iter()
                .map(|f| f.to_string() + "\n")
                .collect::<String>()
        );
        assert_eq!(summary.findings, 0);
        assert_eq!(summary.commands as usize, decode(&stream).count());
        assert!(summary.operations > 0, "{name}");
        eprintln!(
            "{name}: sizes {sizes:?} extents {:?} ops {}",
            summary.extents, summary.operations
        );
        for (region, size) in sizes.iter().enumerate() {
            assert!(summary.extents[region] <= *size, "{name}: region {region}");
        }
        // Read-only data and the I/O regions are touched right to their last byte: the model's
        // whole input is read and its whole output written.
        let weight_region = npz["weight_region"].int() as usize;
        assert_eq!(
            summary.extents[weight_region], sizes[weight_region],
            "{name}: weights"
        );
        for (region, end) in &io {
            if sizes[*region] == *end {
                assert_eq!(
                    summary.extents[*region], *end,
                    "{name}: I/O region {region}"
                );
            }
        }
        // Shrinking any touched region below its extent is caught, naming that region.
        for (region, extent) in summary.touched() {
            let mut smaller = sizes.clone();
            smaller[usize::from(region)] = extent - 1;
            let mut found = Vec::new();
            check(&stream, &smaller, &mut |f| found.push(f)).unwrap();
            assert!(!found.is_empty(), "{name}: region {region} shrunk");
            assert!(found.iter().all(|f| f.code == FindingCode::RegionOverflow
                && f.region == region
                && f.size == Some(extent - 1)));
        }
        // And a region left unbound is reported as such.
        let mut found = Vec::new();
        check(&stream, &sizes[..1], &mut |f| found.push(f)).unwrap();
        assert!(
            found
                .iter()
                .any(|f| f.code == FindingCode::UnboundRegion && f.region == 1),
            "{name}"
        );
    }
}
