//! VPMN: every real file of the corpus validates through the generated validator, and the
//! decoded fields equal the values measured in `spec/nbg-notes.md`. Reads the files from
//! `$NPUSCHEMA_CORPUS/corpus/vpmn` and skips (saying so) when the variable is not set.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod vpmn_util;

use npuschema_cli::vpmn::inspect;
use npuschema_generated::vpmn::{BufferFormat, QuantFormat, SectionType, Vpmn, VpmnV2};
use vpmn_util::{corpus, file};

const V2_FILES: [&str; 3] = [
    "a733_face_blendshapes_int16.nb",
    "a733_face_detector_fp16.nb",
    "a733_face_detector_int16.nb",
];

fn v2(b: &[u8]) -> VpmnV2<'_> {
    match Vpmn::validate(b).unwrap() {
        Vpmn::V2(v) => v,
        Vpmn::V1(_) => panic!("expected version 2"),
    }
}

#[test]
fn every_corpus_file_is_valid() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        let v = Vpmn::validate(b).unwrap_or_else(|e| panic!("{name}: {e}"));
        let v2 = V2_FILES.contains(&name.as_str());
        assert_eq!(matches!(v, Vpmn::V2(_)), v2, "{name}: family");
        assert_eq!(v.as_bytes().len(), b.len());
        // The CLI's check uses the same validator and agrees.
        assert_eq!(npuschema_cli::vpmn::check(b), Ok(()), "{name}");
    }
}

#[test]
fn v2_headers_match_the_notes() {
    let Some(files) = corpus() else { return };
    for (name, b) in files.iter().filter(|(n, _)| V2_FILES.contains(&n.as_str())) {
        let v = v2(b);
        let h = v.header();
        assert_eq!(&b[..4], b"VPMN");
        assert_eq!(h.version(), 0x0002_0000, "{name}");
        assert_eq!(h.target(), 0x1000_003B, "{name}");
        assert_eq!(h.total_size_low() as usize, b.len(), "{name}");
        assert_eq!(h.total_size_high(), 0, "{name}");
        assert_eq!(h.total_size(), b.len() as u64, "{name}");
        assert_eq!(
            (
                h.sub_header_offset(),
                h.sub_header_size(),
                h.sub_header_count()
            ),
            (48, 12, 1),
            "{name}"
        );
        assert_eq!(h.class_word().class(), 0, "{name}");
        assert_eq!(
            (h.class_word().reserved(), h.reserved2(), h.reserved3()),
            (0, 0, 0),
            "{name}"
        );
        let sub = v.sub_header();
        assert_eq!((sub.sh_offset(), sub.sh_size()), (60, 44), "{name}");
        let expected_count = if name.contains("blendshapes") { 18 } else { 17 };
        assert_eq!(sub.sh_count(), expected_count, "{name}");
        assert_eq!(v.sections().count(), expected_count as usize);
    }
}

fn entsize_of(t: SectionType) -> u32 {
    match t {
        SectionType::NetworkInfo => 220,
        SectionType::MemoryPool => 8,
        SectionType::VipSram => 4,
        SectionType::Checksum | SectionType::Sh => 8,
        SectionType::Input | SectionType::Output => 112,
        SectionType::Layer => 76,
        SectionType::Operations => 32,
        SectionType::Nn => 192,
        SectionType::Patch => 28,
        SectionType::CoefDataTable
        | SectionType::PpuInstrTable
        | SectionType::LoadstateTable
        | SectionType::DynaioTable => 8,
        SectionType::Dynaio
        | SectionType::CoefData
        | SectionType::PpuInstr
        | SectionType::Loadstate => 1,
        other => panic!("unexpected section {other:?}"),
    }
}

#[test]
fn v2_directories_match_the_notes() {
    use SectionType::*;
    let Some(files) = corpus() else { return };
    for (name, b) in files.iter().filter(|(n, _)| V2_FILES.contains(&n.as_str())) {
        let v = v2(b);
        let types: Vec<SectionType> = v.sections().map(|s| s.sd_type()).collect();
        let mut want = vec![NetworkInfo];
        if !name.contains("blendshapes") {
            want.push(MemoryPool);
        }
        want.extend([
            VipSram, Checksum, Input, Output, Layer, Operations, Nn, Sh, Patch,
        ]);
        if name.contains("blendshapes") {
            want.push(Dynaio);
        }
        want.extend([CoefDataTable, PpuInstrTable, LoadstateTable]);
        if name.contains("blendshapes") {
            want.push(DynaioTable);
        }
        want.extend([CoefData, PpuInstr, Loadstate]);
        assert_eq!(types, want, "{name}: directory order");
        assert!(!types.contains(&Tp), "{name}: no TP section");
        // Back to back in directory order; gaps only before COEF_DATA (64) and PPU_INSTR
        // (256), zero-filled; the last payload ends at the end of the file.
        let mut cursor = 60 + 44 * types.len() as u64;
        for s in v.sections() {
            assert_eq!(
                s.sd_entsize(),
                entsize_of(s.sd_type()),
                "{name}: entry size of {:?}",
                s.sd_type()
            );
            assert_eq!(s.size() % u64::from(s.sd_entsize()), 0);
            assert_eq!(s.load_address(), 0);
            let align = match s.sd_type() {
                CoefData => 64,
                PpuInstr => 256,
                _ => 0,
            };
            assert_eq!(
                s.sd_alignsize(),
                align,
                "{name}: alignment of {:?}",
                s.sd_type()
            );
            if align == 0 {
                assert_eq!(
                    s.offset(),
                    cursor,
                    "{name}: {:?} follows the previous payload",
                    s.sd_type()
                );
            } else {
                assert_eq!(
                    s.offset(),
                    cursor.next_multiple_of(u64::from(align)),
                    "{name}: {:?}",
                    s.sd_type()
                );
                assert!(
                    b[cursor as usize..s.offset() as usize]
                        .iter()
                        .all(|&x| x == 0),
                    "{name}: gap bytes are zero"
                );
            }
            cursor = s.offset() + s.size();
        }
        assert_eq!(
            cursor,
            b.len() as u64,
            "{name}: the last payload ends the file"
        );
        // CHECKSUM: 4 records for NN, COEF_DATA, PPU_INSTR, LOADSTATE, each the CRC-32 of
        // that payload.
        let ck: Vec<(u32, u32)> = v
            .checksums()
            .map(|c| (c.sd_type(), c.checksum_value()))
            .collect();
        assert_eq!(
            ck.iter().map(|c| c.0).collect::<Vec<_>>(),
            vec![7, 24, 19, 21],
            "{name}"
        );
        for (t, value) in ck {
            let p = v
                .sections()
                .find(|s| s.sd_type().raw() == t)
                .unwrap()
                .payload()
                .unwrap();
            assert_eq!(
                npuschema_core::crc32(0, p),
                value,
                "{name}: CRC of type {t}"
            );
        }
    }
}

#[test]
fn v2_metadata_matches_the_notes() {
    let Some(files) = corpus() else { return };
    let mut vip = Vec::new();
    for (name, b) in files.iter().filter(|(n, _)| V2_FILES.contains(&n.as_str())) {
        let v = v2(b);
        let ni = v.network_info().next().expect("NETWORK_INFO");
        let count = |t: SectionType, size: u64| {
            v.sections()
                .filter(|s| s.sd_type() == t)
                .map(|s| s.size() / size)
                .sum::<u64>()
        };
        assert_eq!(
            u64::from(ni.operation_count()),
            count(SectionType::Operations, 32) + 3,
            "{name}: three implicit run operations"
        );
        assert_eq!(
            u64::from(ni.layer_count()),
            count(SectionType::Layer, 76),
            "{name}"
        );
        assert_eq!(ni.input_count() as usize, v.inputs().count(), "{name}");
        assert_eq!(ni.output_count() as usize, v.outputs().count(), "{name}");
        assert_eq!(ni.core_count(), 1);
        assert_eq!(ni.address_width(), 32);
        assert_eq!(ni.attribute().bits(), 0x0a);
        assert_eq!(ni.attribute().nn_command_size(), 1);
        assert_eq!(ni.attribute().tp_command_size(), 1);
        vip.push(v.vip_sram().next().unwrap().used_bytes());
        assert_eq!(
            v.memory_pool().next().is_some(),
            !name.contains("blendshapes")
        );
        assert!(v.axi_sram().next().is_none());
        for r in v.inputs().chain(v.outputs()) {
            assert!((1..=6).contains(&r.dim_count()));
        }
        let first_in = v.inputs().next().unwrap();
        let want = "input/output[0]";
        assert_eq!(first_in.name_str(), Some(want), "{name}: generator names");
    }
    vip.sort_unstable();
    assert_eq!(
        vip,
        vec![304_384, 492_032, 494_080],
        "VIP SRAM sizes (not the field map's 262144)"
    );

    let b = file("a733_face_detector_int16.nb").unwrap();
    let v = v2(&b);
    let i = v.inputs().next().unwrap();
    assert_eq!(
        (i.dim_count(), i.dim_size()),
        (4, [3, 128, 128, 1, 1, 1]),
        "dimensions as stored, fastest-varying first"
    );
    assert_eq!(i.data_format(), BufferFormat::Int16);
    assert_eq!(i.data_type().raw(), 0);
    assert_eq!(i.quant_format(), QuantFormat::DynamicFixedPoint);
    assert_eq!(i.quant_data()[0], 15, "fixed_point_pos");

    let b = file("a733_face_blendshapes_int16.nb").unwrap();
    let v = v2(&b);
    let d = v
        .sections()
        .find(|s| s.sd_type() == SectionType::Dynaio)
        .unwrap();
    assert_eq!(d.size(), 192);
    let table: Vec<(u32, u32)> = v.dynaio_table().map(|e| (e.offset(), e.size())).collect();
    assert_eq!(table, vec![(0, 4), (64, 128)]);
    assert!(
        v.outputs()
            .any(|o| o.name_str().is_some_and(|n| n.starts_with("uid_")))
    );
}

#[test]
fn v1_files_match_the_notes() {
    let Some(_) = corpus() else { return };
    for (name, version, target, first_payload, inputs, outputs) in [
        (
            "radxa_lenet_v10016.nb",
            0x0001_0016u32,
            0x1000_0016u32,
            520u32,
            1u32,
            1u32,
        ),
        (
            "timvx_conv2d_relu_maxpool2d_fp32_v1001e.nbg",
            0x0001_001E,
            0xBA,
            592,
            1,
            1,
        ),
    ] {
        let b = file(name).unwrap();
        let Vpmn::V1(v) = Vpmn::validate(&b).unwrap() else {
            panic!("{name}: expected version 1")
        };
        let h = v.header();
        assert_eq!((h.version(), h.target()), (version, target), "{name}");
        assert_eq!(
            (h.input_count(), h.output_count()),
            (inputs, outputs),
            "{name}"
        );
        let f = v.fixed();
        assert_eq!(
            f.as_bytes().len(),
            284,
            "{name}: feature database, memory, AXI and VIP SRAM"
        );
        assert!(f.feature_bits().is_some() && f.vip_sram_size().is_some());
        let entries: Vec<(u32, u32)> = v.entries().map(|e| (e.offset(), e.size())).collect();
        assert_eq!(entries.len(), 16, "{name}: 12 + 3 + 1 located tables");
        // The first payload (= end of the fixed part in the notes) is the input table.
        let first = entries
            .iter()
            .filter(|e| e.1 > 0)
            .map(|e| e.0)
            .min()
            .unwrap();
        assert_eq!(
            (first, entries[0].0),
            (first_payload, first_payload),
            "{name}"
        );
        assert_eq!(entries[0].1 % 116, 0, "{name}: modern 116-byte I/O records");
        assert_eq!(v.inputs().count() as u32, inputs);
        assert_eq!(v.outputs().count() as u32, outputs);
        assert_eq!(v.inputs().next().unwrap().name_str(), Some("input[0]"));
    }
    let b = file("radxa_lenet_v10016.nb").unwrap();
    let Vpmn::V1(v) = Vpmn::validate(&b).unwrap() else {
        panic!()
    };
    assert_eq!(v.fixed().nbg_crc_sum(), Some(0), "zero up to 0x00010016");
    let i = v.inputs().next().unwrap();
    assert_eq!(i.data_format(), BufferFormat::Uint8);
    assert_eq!(i.quant_format(), QuantFormat::AffineAsymmetric);
    assert_eq!(f32::from_bits(i.tf_scale()), 1.0);
    assert_eq!(&i.dim_size()[..4], &[28, 28, 1, 1]);
}

#[test]
fn inspect_json_reports_the_field_map_keys() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        let j = inspect::json(b).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(j["format"], "vpmn");
        assert_eq!(j["magic"], "VPMN");
        assert_eq!(j["target"], j["product"]);
        assert_eq!(j["ledger"]["exclusive"], true, "{name}");
        assert_eq!(j["ledger"]["reemits_exactly"], true, "{name}");
        assert_eq!(j["connection_tail"]["size"], 512);
        if !V2_FILES.contains(&name.as_str()) {
            assert_eq!(j["family"], "v1");
            continue;
        }
        for k in [
            "version",
            "sub_header_offset",
            "sub_header_size",
            "sub_header_count",
            "class",
            "section_headers_offset",
            "section_header_size",
            "section_header_count",
            "sections",
            "inputs",
            "outputs",
            "network_info",
            "memory_pool_bytes",
            "vip_sram_bytes",
            "axi_sram_bytes",
            "file_checksum",
            "dynaio",
            "connection_tail",
        ] {
            assert!(j.get(k).is_some(), "{name}: key {k}");
        }
        assert_eq!(j["version"], 0x0002_0000);
        assert_eq!(
            j["sections"].as_array().unwrap().len() as u64,
            j["section_header_count"].as_u64().unwrap()
        );
        for s in j["sections"].as_array().unwrap() {
            assert_eq!(s["sha256"].as_str().unwrap().len(), 64);
            assert!(s["type_name"].as_str().unwrap().starts_with("NBG_SECTION_"));
            let want = match s["type"].as_u64().unwrap() {
                7 | 19 | 21 | 24 => "named, CRC-verified, fingerprinted",
                40 => "decoded and enforced",
                1 | 2 => "decoded I/O records",
                _ => "",
            };
            if !want.is_empty() {
                assert_eq!(s["handling"], want, "{name}");
            }
        }
        let fc = &j["file_checksum"];
        assert_eq!(fc["algorithm"], "crc32-ieee");
        assert_eq!(fc["scope"], "section-payloads-in-directory-order");
        assert_eq!(fc["matches"], true);
        assert_eq!(fc["recorded_crc32"], fc["computed_crc32"]);
        assert_eq!(fc["normalized_checksum_value_words"], 4);
        let sizes: u64 = j["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["size"].as_u64().unwrap())
            .sum();
        assert_eq!(fc["covered_section_bytes"].as_u64().unwrap(), sizes);
        let gaps = fc["excluded_alignment_gap_bytes"].as_u64().unwrap();
        assert_eq!(
            60 + 44 * j["section_header_count"].as_u64().unwrap() + sizes + gaps,
            b.len() as u64,
            "{name}: header, directory, payloads and gaps make the file"
        );
        assert_eq!(
            j["connection_tail"]["ownership"], "section-covered-view",
            "{name}: LOADSTATE reaches the end"
        );
        assert_eq!(
            j["network_info"]["input_count"].as_u64().unwrap() as usize,
            j["inputs"].as_array().unwrap().len()
        );
        let input = &j["inputs"][0];
        assert_eq!(
            input["dimension_count"].as_u64().unwrap() as usize,
            input["dimensions"].as_array().unwrap().len()
        );
        assert!(input["name"].as_str().unwrap().ends_with("[0]"), "{name}");
    }
    let b = file("a733_face_detector_int16.nb").unwrap();
    let j = inspect::json(&b).unwrap();
    let i = &j["inputs"][0];
    assert_eq!(
        i["dimensions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![3, 128, 128, 1]
    );
    assert_eq!(i["data_format_name"], "INT16");
    assert_eq!(i["quantization"]["format_name"], "DYNAMIC_FIXED_POINT");
    assert_eq!(i["quantization"]["fixed_point_position"], 15);
    assert_eq!(i["storage_bytes"], 3 * 128 * 128 * 2);
    let b = file("a733_face_blendshapes_int16.nb").unwrap();
    let j = inspect::json(&b).unwrap();
    assert_eq!(j["dynaio"].as_array().unwrap().len(), 2);
    assert_eq!(j["dynaio"][1]["offset"], 64);
    assert_eq!(j["dynaio_region"]["padding_bytes"], 60);
    assert!(j["memory_pool_bytes"].is_null());
}
