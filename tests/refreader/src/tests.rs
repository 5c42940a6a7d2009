//! Tests of the reference readers themselves: NPU1 against the format document's worked
//! example and its failure table, VPMN v2 and v1 against the facts measured on the real
//! corpus and the v1 layout table (`spec/nbg-notes.md`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::npu1::{self, BuildRegion};
use super::vpmn::{self, section};
use super::vpmn_v1::{self, Build, BuildIo};

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

#[test]
fn vpmn_v1_layout_follows_the_notes_table() {
    // Entries: 12, +3 from 0x0001000C, +1 from 0x0001000E.
    assert_eq!(vpmn_v1::entry_count(0x0001_0000), 12);
    assert_eq!(vpmn_v1::entry_count(0x0001_000B), 12);
    assert_eq!(vpmn_v1::entry_count(0x0001_000C), 15);
    assert_eq!(vpmn_v1::entry_count(0x0001_000D), 15);
    assert_eq!(vpmn_v1::entry_count(0x0001_000E), 16);
    assert_eq!(vpmn_v1::entry_count(0x0001_FFFF), 16);
    // 92 prefix + 12 pool + 8 AXI + 96 entries; + 256 database from 0x00010003; + 8 VIP
    // from 0x00010008.
    assert_eq!(vpmn_v1::fixed_end(0x0001_0002), 208);
    assert_eq!(vpmn_v1::fixed_end(0x0001_0003), 464);
    assert_eq!(vpmn_v1::fixed_end(0x0001_0007), 464);
    assert_eq!(vpmn_v1::fixed_end(0x0001_0008), 472);
    // The notes' observed ends of the fixed part: exactly 472 for 0x00010009; later
    // versions end further on (further, unmapped entries), never before the known part.
    assert_eq!(vpmn_v1::fixed_end(0x0001_0009), 472);
    for (version, observed) in [
        (0x0001_000F, 512),
        (0x0001_0014, 520),
        (0x0001_0016, 520),
        (0x0001_001E, 592),
        (0x0001_0020, 920),
    ] {
        let known = vpmn_v1::fixed_end(version);
        assert_eq!(known, 504, "{version:#x}");
        assert!(known <= observed, "{version:#x}");
        assert_eq!((observed - known) % 8, 0, "{version:#x}: whole entries");
    }
    // Record sizes by version.
    assert_eq!(vpmn_v1::io_record_bytes(0x0001_0003), 44);
    assert_eq!(vpmn_v1::io_record_bytes(0x0001_0004), 108);
    assert_eq!(vpmn_v1::io_record_bytes(0x0001_000A), 108);
    assert_eq!(vpmn_v1::io_record_bytes(0x0001_000B), 116);
    assert_eq!(vpmn_v1::layer_record_bytes(0x0001_0007), 72);
    assert_eq!(vpmn_v1::layer_record_bytes(0x0001_0008), 76);
    assert_eq!(vpmn_v1::operation_record_bytes(0x0001_000F), Some(24));
    assert_eq!(vpmn_v1::operation_record_bytes(0x0001_0010), None);
    assert_eq!(vpmn_v1::operation_record_bytes(0x0001_0011), Some(28));
    assert_eq!(vpmn_v1::operation_record_bytes(0x0001_0016), Some(28));
    assert_eq!(vpmn_v1::operation_record_bytes(0x0001_0017), Some(32));
    // The shared enums.
    assert_eq!(vpmn_v1::buffer_format(2), Some("UINT8"));
    assert_eq!(vpmn_v1::buffer_format(15), None);
    assert_eq!(vpmn_v1::buffer_format(16), Some("BOOL8"));
    assert_eq!(vpmn_v1::buffer_format(17), None);
    assert_eq!(vpmn_v1::buffer_type(3), Some("SCALAR"));
    assert_eq!(vpmn_v1::quant_format(2), Some("AFFINE_ASYMMETRIC"));
    assert_eq!(vpmn_v1::quant_format(3), None);
}

#[test]
fn vpmn_v1_corpus_matches_the_measured_facts() {
    let Some(files) = corpus() else { return };
    let get = |n: &str| &files.iter().find(|(f, _)| f == n).unwrap().1;
    for (name, version, target, first_payload) in [
        ("radxa_lenet_v10016.nb", 0x0001_0016, 0x1000_0016, 520),
        (
            "timvx_conv2d_relu_maxpool2d_fp32_v1001e.nbg",
            0x0001_001E,
            0xBA,
            592,
        ),
    ] {
        let bytes = get(name);
        let f = vpmn_v1::read(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&f.prefix.magic, b"VPMN");
        assert_eq!(
            (f.version(), f.prefix.hw_target),
            (version, target),
            "{name}"
        );
        let db = f.fixed.features.expect("feature database");
        assert_eq!(db.num_pixel_pipes, 1, "{name}");
        assert_eq!(db.core_count, 1, "{name}");
        assert!(f.fixed.vip_sram.is_some(), "{name}");
        assert_eq!(f.entries().len(), 16, "{name}");
        // The input table starts where the notes observed the fixed part to end.
        assert_eq!(
            f.entries()[vpmn_v1::entry::INPUT].offset,
            first_payload,
            "{name}"
        );
        assert!(
            f.entries()
                .iter()
                .filter(|e| e.size > 0)
                .all(|e| u64::from(e.offset) >= u64::from(first_payload)),
            "{name}: no payload inside the fixed part"
        );
        assert!(f.nbg_crc_sum().is_some(), "{name}: 0x00010016 and later");
        // Measured, not checked by read(): the tables hold the prefix's counts at the
        // notes' record sizes.
        assert_eq!(
            f.layer_records(),
            Some(u64::from(f.prefix.layer_count)),
            "{name}"
        );
        assert_eq!(
            f.operation_records(),
            Some(u64::from(f.prefix.operation_count)),
            "{name}"
        );
        assert_eq!((f.inputs.len(), f.outputs.len()), (1, 1), "{name}");
        for r in f.inputs.iter().chain(&f.outputs) {
            assert!(vpmn_v1::buffer_format(r.data_format).is_some(), "{name}");
            assert!(vpmn_v1::buffer_type(r.data_type).is_some(), "{name}");
            assert!(vpmn_v1::quant_format(r.quant_format).is_some(), "{name}");
            assert_eq!(r.tf_scale, 1.0, "{name}");
        }
        assert_eq!(f.inputs[0].name_bytes(), b"input[0]", "{name}");
        // A v1 file is not v2, and the reverse.
        assert_eq!(vpmn::read(bytes).unwrap_err().rule(), "version");
    }
    // The sample with nbg_crc_sum zero (the notes: "zero in the samples up to 0x00010016").
    let lenet = vpmn_v1::read(get("radxa_lenet_v10016.nb")).unwrap();
    assert_eq!(lenet.nbg_crc_sum(), Some(0));
    assert_eq!(lenet.prefix.name_bytes(), b"lenet_20230410_NCHW");
    let input = lenet.inputs[0];
    assert_eq!(input.dims(), [28, 28, 1, 1]);
    assert_eq!(
        (
            vpmn_v1::buffer_format(input.data_format),
            vpmn_v1::buffer_type(input.data_type),
            vpmn_v1::quant_format(input.quant_format)
        ),
        (Some("UINT8"), Some("TENSOR"), Some("AFFINE_ASYMMETRIC"))
    );
    assert_eq!(lenet.outputs[0].dims(), [10, 1]);
    assert_eq!(lenet.outputs[0].name_bytes(), b"uid_8_sub_uid_1_out_0");
    for (name, bytes) in files.iter().filter(|(n, _)| n.starts_with("a733_")) {
        assert_eq!(
            vpmn_v1::read(bytes).unwrap_err().rule(),
            "version",
            "{name}"
        );
    }
}

const IO_A: BuildIo<'static> = BuildIo {
    dims: &[3, 32, 32, 1],
    data_format: 2,
    data_type: 0,
    quant_format: 2,
    fixed_pos: 0,
    tf_scale: 0.5,
    tf_zero_point: 128,
    name: "input[0]",
};
const IO_B: BuildIo<'static> = BuildIo {
    dims: &[7],
    data_format: 5,
    data_type: 2,
    quant_format: 1,
    fixed_pos: -3,
    tf_scale: 0.0,
    tf_zero_point: 0,
    name: "aux",
};
const IO_C: BuildIo<'static> = BuildIo {
    dims: &[10, 1, 1, 1, 1, 2],
    data_format: 1,
    data_type: 0,
    quant_format: 0,
    fixed_pos: 0,
    tf_scale: 1.0,
    tf_zero_point: 0,
    name: "uid_1_out_0",
};

fn synthetic(version: u32) -> Vec<u8> {
    vpmn_v1::build(&Build {
        version,
        hw_target: 0x1000_0016,
        network_name: "synthetic",
        inputs: &[IO_A, IO_B],
        outputs: &[IO_C],
        layers: 3,
        operations: 4,
        nn_op_bytes: 40,
        further_entry_bytes: 0,
    })
}

#[test]
fn vpmn_v1_synthetic_files_read_back_by_version() {
    for version in [
        0x0001_0000,
        0x0001_0002,
        0x0001_0003,
        0x0001_0004,
        0x0001_0007,
        0x0001_0008,
        0x0001_000A,
        0x0001_000B,
        0x0001_000C,
        0x0001_000E,
        0x0001_0010,
        0x0001_0016,
        0x0001_FFFF,
    ] {
        let b = synthetic(version);
        let f = vpmn_v1::read(&b).unwrap_or_else(|e| panic!("{version:#x}: {e}"));
        assert_eq!(f.version(), version);
        assert_eq!(f.prefix.name_bytes(), b"synthetic");
        assert_eq!((f.prefix.input_count, f.prefix.output_count), (2, 1));
        assert_eq!(f.fixed.features.is_some(), version >= 0x0001_0003);
        assert_eq!(f.fixed.vip_sram.is_some(), version >= 0x0001_0008);
        assert_eq!(f.entries().len(), vpmn_v1::entry_count(version));
        let input = f.entries()[vpmn_v1::entry::INPUT];
        assert_eq!(u64::from(input.offset), vpmn_v1::fixed_end(version));
        assert_eq!(u64::from(input.size), 2 * vpmn_v1::io_record_bytes(version));
        assert_eq!(f.layer_records(), Some(3));
        assert_eq!(
            f.operation_records(),
            if version == 0x0001_0010 {
                None
            } else {
                Some(4)
            }
        );
        assert_eq!(
            f.entries()[vpmn_v1::entry::NN_OP].bytes(&b).unwrap().len(),
            40
        );
        assert_eq!(
            f.nbg_crc_sum(),
            if version >= 0x0001_0016 {
                Some(0)
            } else {
                None
            }
        );
        if version >= 0x0001_000B {
            assert_eq!((f.inputs.len(), f.outputs.len()), (2, 1));
            let a = f.inputs[0];
            assert_eq!(a.dims(), IO_A.dims);
            assert_eq!((a.tf_scale, a.tf_zero_point), (0.5, 128));
            assert_eq!(a.name_bytes(), b"input[0]");
            assert_eq!(f.inputs[1].fixed_pos, -3);
            assert_eq!(f.outputs[0].dim_size, [10, 1, 1, 1, 1, 2]);
        } else {
            assert!(f.inputs.is_empty() && f.outputs.is_empty());
        }
    }
    // Unmapped further entries between the known part and the first payload are skipped.
    let b = vpmn_v1::build(&Build {
        version: 0x0001_001E,
        hw_target: 0,
        network_name: "further",
        inputs: &[IO_A],
        outputs: &[IO_C],
        layers: 0,
        operations: 0,
        nn_op_bytes: 0,
        further_entry_bytes: 88,
    });
    let f = vpmn_v1::read(&b).unwrap();
    assert_eq!(f.entries()[0].offset, 592, "as in the 0x0001001E sample");
}

#[test]
fn vpmn_v1_rules_fire_one_by_one() {
    let good = synthetic(0x0001_000B);
    let f = vpmn_v1::read(&good).unwrap();
    let end = vpmn_v1::fixed_end(0x0001_000B) as usize;
    let entries_at = end - 8 * 12;
    let input_at = f.entries()[0].offset as usize;
    let output_at = f.entries()[1].offset as usize;
    let set = |at: usize, v: u32| {
        let mut b = good.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    let rule = |b: &[u8]| vpmn_v1::read(b).unwrap_err().rule();
    assert_eq!(rule(&good[..11]), "short");
    assert_eq!(rule(&good[..91]), "short");
    assert_eq!(rule(&set(0, 0x4e4d_5057)), "magic");
    assert_eq!(rule(&set(4, 0x0002_0000)), "version");
    assert_eq!(rule(&set(4, 0x0000_FFFF)), "version");
    assert_eq!(rule(&good[..92]), "fixed-short");
    assert_eq!(rule(&good[..end - 1]), "fixed-short");
    // Cut right after the fixed part: the tables are gone.
    assert_eq!(rule(&good[..end]), "entry-bounds");
    // An unused entry, empty but past the end.
    let len = good.len() as u32;
    assert!(vpmn_v1::read(&set(entries_at + 8 * 11, len)).is_ok());
    assert_eq!(rule(&set(entries_at + 8 * 11, len + 1)), "entry-bounds");
    assert_eq!(
        rule(&set(entries_at + 8 * 11 + 4, u32::MAX)),
        "entry-bounds"
    );
    assert_eq!(rule(&set(entries_at + 4, 116 * 2 - 1)), "io-table-size");
    assert_eq!(rule(&set(entries_at + 12, 0)), "io-count");
    assert_eq!(rule(&set(entries_at + 4, 116)), "io-count");
    assert_eq!(rule(&set(input_at, 0)), "io-dim-count");
    assert_eq!(rule(&set(output_at, 7)), "io-dim-count");
    assert_eq!(rule(&set(input_at + 4 + 8, 0)), "io-dim-zero");
    // A zero past dim_count is not selected.
    assert!(vpmn_v1::read(&set(input_at + 116 + 8, 0)).is_ok());
    assert_eq!(rule(&set(input_at + 116 + 4, 0)), "io-dim-zero");
    assert_eq!(rule(&set(84, 3)), "io-count");
    // Before 0x0001000B nothing is decoded, but tables are still sized and counted.
    let old = synthetic(0x0001_0007);
    let entries_at = vpmn_v1::fixed_end(0x0001_0007) as usize - 96;
    let mut b = old.clone();
    b[entries_at + 4..entries_at + 8].copy_from_slice(&108u32.to_le_bytes());
    assert_eq!(rule(&b), "io-count");
    b[entries_at + 4..entries_at + 8].copy_from_slice(&116u32.to_le_bytes());
    assert_eq!(rule(&b), "io-table-size");
    let io = u32::from_le_bytes(old[entries_at..entries_at + 4].try_into().unwrap()) as usize;
    let mut b = old.clone();
    b[io..io + 4].copy_from_slice(&0u32.to_le_bytes());
    assert!(
        vpmn_v1::read(&b).is_ok(),
        "44/108-byte records are not decoded"
    );
    // Fields the notes record but no rule reads: layer/operation counts, nbg_crc_sum.
    for at in [76, 80, 108] {
        assert!(vpmn_v1::read(&set(at, 0xdead_beef)).is_ok(), "word at {at}");
    }
}

#[test]
fn vpmn_v1_never_panics() {
    // Deterministic xorshift: words overwritten with random and boundary values, random
    // truncations, random versions across the gates.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let bases: Vec<Vec<u8>> = [0x0001_0002, 0x0001_0007, 0x0001_000B, 0x0001_0016]
        .into_iter()
        .map(synthetic)
        .collect();
    let (mut ok, mut rejected) = (0u32, 0u32);
    for i in 0..20_000u64 {
        let mut b = bases[(i % 4) as usize].clone();
        for _ in 0..1 + next() % 4 {
            let at = (next() as usize % b.len()) & !3;
            let v = match next() % 4 {
                0 => next() as u32,
                1 => b.len() as u32 + (next() % 3) as u32,
                2 => 0x0001_0000 | (next() % 0x20) as u32,
                _ => u32::MAX,
            };
            if let Some(w) = b.get_mut(at..at + 4) {
                w.copy_from_slice(&v.to_le_bytes());
            }
        }
        if next() % 4 == 0 {
            b.truncate(next() as usize % (b.len() + 1));
        }
        match vpmn_v1::read(&b) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert_ne!(e.rule(), "read", "binrw failed inside a checked range: {e}");
                assert!(
                    !crate::generated_codes::vpmn_v1(e.rule()).is_empty(),
                    "rule {} unmapped",
                    e.rule()
                );
                rejected += 1;
            }
        }
    }
    assert!(
        ok > 100 && rejected > 100,
        "{ok} accepted, {rejected} rejected"
    );
}

/// fuzz/regressions/vpmn_refreader/v1-nan-tf-scale-determinism: a NaN scale must not make a
/// record unequal to itself (`==` on the reader's output means "read the same bytes").
#[test]
fn vpmn_v1_records_with_a_nan_scale_equal_themselves() {
    let nan = BuildIo {
        tf_scale: f32::NAN,
        ..IO_C
    };
    let file = vpmn_v1::build(&Build {
        version: 0x0001_001E,
        hw_target: 1,
        network_name: "nan",
        inputs: &[IO_A],
        outputs: &[nan],
        layers: 1,
        operations: 1,
        nn_op_bytes: 0,
        further_entry_bytes: 0,
    });
    let a = vpmn_v1::read(&file).unwrap();
    assert!(a.outputs[0].tf_scale.is_nan());
    assert_eq!(vpmn_v1::read(&file).unwrap(), a);
    let mut other = a.clone();
    other.outputs[0].tf_scale = f32::from_bits(a.outputs[0].tf_scale.to_bits() ^ 1);
    assert_ne!(other, a, "a different NaN payload is different bytes");
}

/// fuzz/regressions/vpmn_validate/v2-duplicate-checksum-before-missing-target: every CHECKSUM
/// record's target is checked before any duplicate, so a duplicate in an early record and a
/// missing target in a later one is reported as the missing target (as the generated
/// validator does; the reader used to check both per record).
#[test]
fn vpmn_checksum_targets_are_all_checked_before_duplicates() {
    let Some(files) = corpus() else { return };
    let (_, good) = files
        .iter()
        .find(|(n, _)| n == "a733_face_detector_int16.nb")
        .unwrap();
    let f = vpmn::read(good).unwrap();
    let cs = f.section(section::CHECKSUM).unwrap();
    assert!(f.checksums.len() >= 3);
    let rec = |k: usize| cs.offset() as usize + 8 * k;
    let first_type = f.checksums[0].sd_type.to_le_bytes();
    // Record 1 names record 0's section again; the last record names a type no section has.
    let mut b = good.clone();
    b[rec(1)..rec(1) + 4].copy_from_slice(&first_type);
    let last = rec(f.checksums.len() - 1);
    b[last..last + 4].copy_from_slice(&33u32.to_le_bytes());
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "checksum-target");
    // With the duplicate alone, it is the duplicate.
    let mut b = good.clone();
    b[rec(1)..rec(1) + 4].copy_from_slice(&first_type);
    assert_eq!(vpmn::read(&b).unwrap_err().rule(), "checksum-duplicate");
}
