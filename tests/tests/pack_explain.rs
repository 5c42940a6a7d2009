//! `npuschema explain`: the annotated hexdump of NPU1 blobs, on a blob built here with the
//! generated writer (always runs) and on every blob `pack` makes from `<repo>/vela-out/`
//! (skipped with a message when `scripts/setup-vela` has not been run).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(clippy::arithmetic_side_effects, missing_docs)]

use std::fs;

use npuschema_cli::explain::{ExplainError, Format, Style, explain};
// The reference reader reads NPU1 version 1: this test packs version 1 (version 2 is
// tests/tests/npu1_v2.rs).
use npuschema_cli::pack::{AccelChoice, FormatVersion, load, pack_model_as};
use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};
use npuschema_tests::refreader::npu1 as refnpu1;
use npuschema_tests::vela::out_dir as vela_out;

fn sample_blob() -> Vec<u8> {
    let weights: Vec<u8> = (0..40u8).collect();
    let stream = [0x0001_010Fu32, 0xFFFF_0000]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect::<Vec<_>>();
    let regions = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&weights),
        },
        RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(100),
        },
        RegionSpec {
            role: Role::Input,
            data: RegionData::Runtime(7),
        },
    ];
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&regions)
        .cmd_stream(&stream)
        .to_vec()
        .unwrap()
}

fn hex_row(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks every explanation must pass, with numbers from the reference reader.
fn assert_explains(bytes: &[u8], text: &str) {
    let r = refnpu1::read(bytes).unwrap();
    let h = r.header;
    let total = u64::from(h.total_bytes);
    assert!(
        text.contains(&format!("NPU1 blob, {} bytes, valid", bytes.len())),
        "{text}"
    );
    // The two header rows and every descriptor row, byte for byte.
    assert!(
        text.contains(&format!("00000000  {}", hex_row(&bytes[..16]))),
        "{text}"
    );
    assert!(
        text.contains(&format!("00000010  {}", hex_row(&bytes[16..32]))),
        "{text}"
    );
    for i in 0..r.regions.len() {
        let at = 32 + i * 16;
        assert!(
            text.contains(&format!("{at:08x}  {}", hex_row(&bytes[at..at + 16]))),
            "{text}"
        );
    }
    // Decoded header fields.
    assert!(
        text.contains(&format!(
            "total_bytes    {:#x} = {} bytes",
            h.total_bytes, h.total_bytes
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "cmd_offset     {:#x} = {}",
            h.cmd_offset, h.cmd_offset
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("checksum       {:#010x}", h.checksum)),
        "{text}"
    );
    // Decoded descriptors.
    for (i, d) in r.regions.iter().enumerate() {
        let at = 32 + i * 16;
        assert!(text.contains(&format!("{}-{}", at + 8, at + 11)), "{text}");
        assert!(
            text.contains(&format!("size           {:#x} = {} bytes", d.size, d.size)),
            "{text}"
        );
    }
    // The load cross-checks, with their numbers, all holding.
    let n = r.regions.len() as u64;
    let lines = [
        format!("32 + {n}*16 = {} <= total {total}", 32 + n * 16),
        format!(
            "cmd_offset {} + cmd_bytes {} = {} <= total {total}",
            h.cmd_offset,
            h.cmd_bytes,
            u64::from(h.cmd_offset) + u64::from(h.cmd_bytes)
        ),
        format!(
            "FNV-1a(bytes 32..{total}) = {:#010x} == checksum {:#010x}",
            refnpu1::fnv1a(&bytes[32..]),
            h.checksum
        ),
    ];
    for l in &lines {
        let line = text
            .lines()
            .find(|x| x.contains(l.as_str()))
            .unwrap_or_else(|| panic!("missing {l:?} in\n{text}"));
        assert!(line.trim_end().ends_with("ok"), "{line}");
    }
    for (i, d) in r.regions.iter().enumerate().filter(|(_, d)| d.baked()) {
        let l = format!(
            "region {i}: data_offset {} + size {} = {} <= total {total}",
            d.data_offset,
            d.size,
            u64::from(d.data_offset) + u64::from(d.size)
        );
        assert!(
            text.lines()
                .any(|x| x.contains(&l) && x.trim_end().ends_with("ok")),
            "missing {l:?}\n{text}"
        );
    }
    assert!(!text.contains("FAILS"), "{text}");
}

#[test]
fn a_written_blob_is_explained_field_by_field() {
    let bytes = sample_blob();
    let text = explain(&bytes, "sample.npub", Style::PLAIN).unwrap();
    assert_explains(&bytes, &text);
    assert!(!text.contains('\x1b'), "plain output has no escape codes");
    assert!(
        text.contains("0x3155504e: bytes read \"NPU1\" forwards"),
        "{text}"
    );
    assert!(text.contains("128 = ethos-u55-128"), "{text}");
    assert!(text.contains("flags          0x1 = BAKED"), "{text}");
    assert!(text.contains("role           2 = input"), "{text}");
    // Layout: stream at 0x50 (after 32 + 3*16 = 80), 8 bytes, then padding to the
    // 16-aligned weights; runtime regions from the arena at aligned offsets.
    assert!(
        text.contains("0x000050 .. 0x000058         8 bytes  command stream"),
        "{text}"
    );
    assert!(
        text.contains("0x000058 .. 0x000060         8 bytes  padding"),
        "{text}"
    );
    assert!(
        text.contains("0x000060 .. 0x000088        40 bytes  region 0 data (weights)"),
        "{text}"
    );
    assert!(
        text.contains("region 1 scratch 100 bytes at arena +0x0"),
        "{text}"
    );
    assert!(
        text.contains("region 2 input 7 bytes at arena +0x70"),
        "{text}"
    );
    assert!(text.contains("arena needed: 119 bytes"), "{text}");
}

#[test]
fn colour_is_only_emitted_when_asked() {
    let bytes = sample_blob();
    let coloured = explain(&bytes, "x", Style { color: true }).unwrap();
    assert!(
        coloured.contains("\x1b[36mmagic"),
        "field names are coloured"
    );
    assert!(
        coloured.contains("\x1b[32mok\x1b[0m"),
        "passing checks are green"
    );
    let plain = explain(&bytes, "x", Style::PLAIN).unwrap();
    let stripped: String = {
        let mut out = String::new();
        let mut it = coloured.chars();
        while let Some(c) = it.next() {
            if c == '\x1b' {
                for d in it.by_ref() {
                    if d == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    // Same content once the escapes are removed (modulo the label padding inside them).
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(squash(&stripped), squash(&plain));
}

#[test]
fn invalid_and_foreign_files_are_not_decoded() {
    let mut bytes = sample_blob();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55; // payload bit rot: checksum mismatch, reported at the checksum field
    match explain(&bytes, "rot.npub", Style::PLAIN) {
        Err(ExplainError::Invalid(text)) => {
            assert!(
                text.contains("checksum-mismatch: header.checksum at 0x1c"),
                "{text}"
            );
            assert!(
                text.contains(&format!("00000010  {}", hex_row(&bytes[16..32]))),
                "{text}"
            );
            assert!(!text.contains("Load cross-checks"), "{text}");
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
    match explain(&bytes[..20], "short.npub", Style::PLAIN) {
        Err(ExplainError::Invalid(text)) => assert!(text.contains("truncated-header"), "{text}"),
        other => panic!("expected Invalid, got {other:?}"),
    }
    // VPMN is a known format now: eight bytes are a truncated VPMN header, not a foreign file.
    assert!(matches!(
        explain(b"VPMN....", "x.nb", Style::PLAIN),
        Err(ExplainError::Invalid(t)) if t.contains("truncated-header")
    ));
    assert!(matches!(
        explain(b"ABCD....", "x.bin", Style::PLAIN),
        Err(ExplainError::UnknownFormat)
    ));
    assert_eq!(Format::detect(&sample_blob()), Some(Format::Npu1));
}

#[test]
fn every_packed_vela_output_is_explained() {
    let Some(dir) = vela_out() else { return };
    let mut stack = vec![dir];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.to_string_lossy().to_string();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with("_vela.npz") || name.ends_with("_vela.tflite") {
                let packed =
                    pack_model_as(&load(&p).unwrap(), AccelChoice::Auto, FormatVersion::V1)
                        .unwrap();
                let text = explain(&packed.bytes, &name, Style::PLAIN).unwrap();
                assert_explains(&packed.bytes, &text);
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 16);
}
