//! Tests of the reference readers themselves: NPU1 against the format document's worked
//! example and its failure table, VPMN against the facts measured on the real corpus
//! (`spec/nbg-notes.md`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::npu1::{self, BuildRegion};
use super::vpmn::{self, section};

/// The document's section 6 example: 1,179,648 bytes of weights baked at 0x380, a 256 KiB
/// runtime scratch region, an 800-byte command stream at 0x60.
fn doc_example() -> Vec<u8> {
    let weights: Vec<u8> = (0..0x12_0000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let cmd: Vec<u8> = (0..800u32).map(|i| (i * 7) as u8).collect();
    npu1::build(
        0,
        &[
            BuildRegion::Baked(0, &weights),
            BuildRegion::Runtime(1, 0x4_0000),
        ],
        &cmd,
        Some(0x60),
    )
    .unwrap()
}

#[test]
fn npu1_doc_example_reads_with_the_documented_numbers() {
    let blob = doc_example();
    // The document's header says total_bytes 0x124000, but its own cross-checks end the
    // weights at 896 + 1179648 = 1180544 = 0x120380: its producer padded the tail. This
    // builder writes no trailing padding.
    assert_eq!(blob.len(), 0x12_0380);
    assert_eq!(&blob[..4], b"NPU1");
    let r = npu1::read(&blob).unwrap();
    assert_eq!(r.header.magic, npu1::MAGIC);
    assert_eq!(r.header.region_count, 2);
    assert_eq!((r.header.cmd_offset, r.header.cmd_bytes), (0x60, 0x320));
    assert_eq!(
        r.regions[0],
        npu1::RegionDesc {
            role: 0,
            flags: 1,
            size: 0x12_0000,
            data_offset: 0x380
        }
    );
    assert_eq!(
        r.regions[1],
        npu1::RegionDesc {
            role: 1,
            flags: 0,
            size: 0x4_0000,
            data_offset: 0
        }
    );
    assert_eq!(r.cmd_stream(&blob).unwrap().len(), 800);
    assert_eq!(r.region_data(&blob, 0).unwrap().len(), 0x12_0000);
    assert!(r.region_data(&blob, 1).is_none());
    // The published FNV-1a vector, through the reference loop.
    assert_eq!(npu1::fnv1a(b"foobar"), 0xbf9c_f968);
}

#[test]
fn npu1_failure_table_is_rejected_rule_by_rule() {
    let good = doc_example();
    let set = |at: usize, v: u32| {
        let mut b = good.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    assert_eq!(npu1::read(&good[..31]).unwrap_err().rule(), "short");
    assert_eq!(
        npu1::read(&set(0, 0x3155_504F)).unwrap_err().rule(),
        "magic"
    );
    assert_eq!(npu1::read(&set(4, 2)).unwrap_err().rule(), "version");
    assert_eq!(
        npu1::read(&good[..good.len() - 1]).unwrap_err().rule(),
        "total-bytes"
    );
    assert_eq!(
        npu1::read(&set(12, 0x1000_0000)).unwrap_err().rule(),
        "region-table"
    );
    assert_eq!(npu1::read(&set(20, 0)).unwrap_err().rule(), "cmd-stream");
    assert_eq!(
        npu1::read(&set(16, u32::MAX)).unwrap_err().rule(),
        "cmd-stream"
    );
    let mut rot = good.clone();
    rot[5000] ^= 0x10;
    assert_eq!(npu1::read(&rot).unwrap_err().rule(), "checksum");
    // A baked data_offset past the end, with the checksum recomputed so only that rule fails.
    let mut bad = set(32 + 12, 0xffff_fff0);
    let sum = npu1::fnv1a(&bad[32..]);
    bad[28..32].copy_from_slice(&sum.to_le_bytes());
    assert_eq!(npu1::read(&bad).unwrap_err().rule(), "baked-region");
}

#[test]
fn npu1_bind_aligns_runtime_regions_to_16_and_checks_the_arena() {
    let blob = npu1::build(
        0,
        &[
            BuildRegion::Runtime(1, 10),
            BuildRegion::Baked(0, &[1, 2, 3]),
            BuildRegion::Runtime(2, 20),
        ],
        &[0xAA; 8],
        None,
    )
    .unwrap();
    let r = npu1::read(&blob).unwrap();
    // Arena at an address 8 past a 16-byte boundary: the first region starts 8 bytes in.
    let b = npu1::bind(&r, 0x1008, 64).unwrap();
    assert_eq!(
        b[0],
        npu1::Binding::Arena {
            offset: 8,
            size: 10
        }
    );
    assert!(matches!(b[1], npu1::Binding::Blob { size: 3, .. }));
    assert_eq!(
        b[2],
        npu1::Binding::Arena {
            offset: 24,
            size: 20
        }
    );
    // 0x1010 + 10 = 0x101a, aligned up to 0x1020 = arena + 24; 24 + 20 = 44 bytes needed.
    assert!(npu1::bind(&r, 0x1008, 44).is_ok());
    assert_eq!(npu1::bind(&r, 0x1008, 43).unwrap_err().rule(), "arena");
    // From an aligned arena the same regions need 0 + 10 -> 16 + 20 = 36 bytes.
    assert_eq!(
        npu1::bind(&r, 0x1000, 36).unwrap()[2],
        npu1::Binding::Arena {
            offset: 16,
            size: 20
        }
    );
    assert!(npu1::bind(&r, 0x1000, 35).is_err());
}

fn corpus() -> Option<Vec<(String, Vec<u8>)>> {
    super::vpmn_corpus("VPMN reference-reader corpus test")
}

#[test]
fn vpmn_v2_corpus_matches_the_measured_facts() {
    let Some(files) = corpus() else { return };
    let v2: Vec<_> = files
        .iter()
        .filter(|(n, _)| n.starts_with("a733_"))
        .collect();
    assert_eq!(v2.len(), 3, "the three A733 v2 files");
    for (name, bytes) in v2 {
        let f = vpmn::read(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let h = &f.header;
        assert_eq!(h.version, 0x0002_0000, "{name}");
        assert_eq!(h.target, 0x1000_003B, "{name}");
        assert_eq!(h.total_size(), bytes.len() as u64, "{name}");
        assert_eq!(
            (h.total_size_high, h.class_word, h.reserved2, h.reserved3),
            (0, 0, 0, 0),
            "{name}"
        );
        assert_eq!(
            (h.sub_header_offset, h.sub_header_size, h.sub_header_count),
            (48, 12, 1),
            "{name}"
        );
        assert_eq!(
            (f.sub_header.sh_offset, f.sub_header.sh_size),
            (60, 44),
            "{name}"
        );
        assert!(
            matches!(f.sub_header.sh_count, 17 | 18),
            "{name}: sh_count {}",
            f.sub_header.sh_count
        );
        assert_eq!(f.computed_crc, h.crc_sum, "{name}");

        // Entry sizes by section type.
        for s in &f.sections {
            let want = match s.sd_type {
                35 => 220,
                37 => 8,
                38 => 4,
                40 => 8,
                1 | 2 => 112,
                3 => 76,
                4 => 32,
                7 => 192,
                9 => 8,
                10 => 28,
                23 | 25 | 26 | 27 => 8,
                20 | 24 | 19 | 21 => 1,
                t => panic!("{name}: unexpected section type {t}"),
            };
            assert_eq!(s.sd_entsize, want, "{name}: type {}", s.sd_type);
            assert_eq!(s.size() % u64::from(s.sd_entsize), 0);
        }
        assert!(f.section(8).is_none(), "{name}: no TP section");

        // Payloads back to back in directory order; gaps only before 64/256-aligned
        // sections, all zero; the last payload ends at end of file.
        let mut end = 60 + 44 * u64::from(f.sub_header.sh_count);
        for s in &f.sections {
            if s.offset() != end {
                assert!(
                    matches!(s.sd_alignsize, 64 | 256),
                    "{name}: gap before type {}",
                    s.sd_type
                );
                assert_eq!(s.offset() % u64::from(s.sd_alignsize), 0);
                assert!(s.offset() - end < u64::from(s.sd_alignsize));
                assert!(
                    bytes[end as usize..s.offset() as usize]
                        .iter()
                        .all(|&b| b == 0),
                    "{name}: gap bytes zero"
                );
            }
            end = s.offset() + s.size();
        }
        assert_eq!(end, bytes.len() as u64, "{name}: last payload ends at EOF");

        // CHECKSUM covers NN, COEF_DATA, PPU_INSTR, LOADSTATE (each verified by read()).
        let mut covered: Vec<u32> = f.checksums.iter().map(|c| c.sd_type).collect();
        covered.sort_unstable();
        assert_eq!(covered, [7, 19, 21, 24], "{name}");

        // NETWORK_INFO relations.
        let ni = f.network_info.expect("NETWORK_INFO");
        assert_eq!(
            u64::from(ni.operation_count),
            f.records(section::OPERATIONS).unwrap() + 3,
            "{name}"
        );
        assert_eq!(
            u64::from(ni.layer_count),
            f.records(section::LAYER).unwrap(),
            "{name}"
        );
        assert_eq!(ni.input_count as usize, f.inputs.len());
        assert_eq!(ni.output_count as usize, f.outputs.len());
        assert!(
            f.vip_sram_bytes
                .is_some_and(|v| [304_384, 492_032, 494_080].contains(&v)),
            "{name}"
        );
    }
}

#[test]
fn vpmn_v2_corpus_named_records() {
    let Some(files) = corpus() else { return };
    let get = |n: &str| vpmn::read(&files.iter().find(|(f, _)| f == n).unwrap().1).unwrap();

    let det = get("a733_face_detector_int16.nb");
    let input = det.inputs[0];
    assert_eq!(input.dims(), [3, 128, 128, 1]);
    assert_eq!(
        (input.data_format, input.data_type, input.quant_format),
        (5, 0, 1)
    );
    assert_eq!(input.quant_data[0] as i32, 15, "fixed_point_pos");
    assert!(det.memory_pool_bytes.is_some());

    let bs = get("a733_face_blendshapes_int16.nb");
    assert_eq!(bs.section(section::DYNAIO).unwrap().size(), 192);
    let table: Vec<(u32, u32)> = bs.dynio_table.iter().map(|e| (e.offset, e.size)).collect();
    assert_eq!(table, [(0, 4), (64, 128)]);
    assert!(bs.section(section::MEMORY_POOL).is_none());
    assert!(
        bs.inputs
            .iter()
            .chain(&bs.outputs)
            .all(|r| !r.name().is_empty())
    );
}

#[test]
fn vpmn_v1_files_are_not_read_as_v2() {
    let Some(files) = corpus() else { return };
    let v1: Vec<_> = files.iter().filter(|(_, b)| b[6..8] == [1, 0]).collect();
    assert_eq!(v1.len(), 2);
    for (name, bytes) in v1 {
        assert_eq!(vpmn::read(bytes).unwrap_err().rule(), "version", "{name}");
    }
}

#[test]
fn vpmn_corruption_is_caught_by_the_right_rule() {
    let Some(files) = corpus() else { return };
    let (_, good) = files
        .iter()
        .find(|(n, _)| n == "a733_face_detector_int16.nb")
        .unwrap();
    let f = vpmn::read(good).unwrap();
    // A byte of NN (CRC-recorded section): the section checksum catches it.
    let nn = f.section(section::NN).unwrap();
    let mut b = good.clone();
    b[nn.offset() as usize + 5] ^= 1;
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "section-checksum");
    // A byte of LAYER (no section CRC): only the file checksum catches it.
    let layer = f.section(section::LAYER).unwrap();
    let mut b = good.clone();
    b[layer.offset() as usize + 5] ^= 1;
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "file-checksum");
    // A zero gap byte before an aligned section is outside both checksums.
    let mut b = good.clone();
    let aligned = f
        .sections
        .iter()
        .zip(&f.sections[1..])
        .find(|(p, n)| p.offset() + p.size() < n.offset())
        .unwrap();
    b[(aligned.0.offset() + aligned.0.size()) as usize] = 0x5a;
    assert!(
        vpmn::read(&b).is_ok(),
        "gap bytes are not covered by the file checksum"
    );
    // Truncation and size fields.
    assert_eq!(
        vpmn::read(&good[..good.len() - 1]).unwrap_err().rule(),
        "total-size"
    );
    assert_eq!(vpmn::read(&good[..40]).unwrap_err().rule(), "short");
    let mut b = good.clone();
    b[0x20] = 2;
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "sub-header-count");
    let mut b = good.clone();
    b[0x38..0x3c].copy_from_slice(&0x0100_0000u32.to_le_bytes());
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "directory-bounds");
}

#[test]
fn vpmn_reseal_restores_checksums_after_an_edit() {
    let Some(files) = corpus() else { return };
    let (_, good) = files
        .iter()
        .find(|(n, _)| n == "a733_face_detector_int16.nb")
        .unwrap();
    let f = vpmn::read(good).unwrap();
    let mut b = good.clone();
    assert!(vpmn::reseal(&mut b));
    assert_eq!(&b, good, "resealing an intact file changes nothing");
    let nn = f.section(section::NN).unwrap();
    b[nn.offset() as usize + 9] ^= 0x40;
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "section-checksum");
    assert!(vpmn::reseal(&mut b));
    let g = vpmn::read(&b).unwrap();
    assert_ne!(g.header.crc_sum, f.header.crc_sum);
}

/// fuzz/regressions/vpmn_validate/short-file-of-unknown-version: the 12-byte envelope
/// decides the layout before the v2 header's 48 bytes are required.
#[test]
fn vpmn_short_files_are_judged_by_their_envelope_first() {
    let mut b = b"VPMN".to_vec();
    b.extend_from_slice(&0x000a_0026u32.to_le_bytes());
    b.extend_from_slice(&[0u8; 35]);
    assert_eq!(b.len(), 43);
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "version");
    b[4..8].copy_from_slice(&0x0002_0000u32.to_le_bytes());
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "short");
    assert_eq!(vpmn::read(&b[..11]).unwrap_err().rule(), "short");
    assert_eq!(
        vpmn::read(b"VPMX\0\0\x02\0\0\0\0\0").unwrap_err().rule(),
        "magic"
    );
}
