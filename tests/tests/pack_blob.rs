//! `npuschema pack` end to end on real Vela 5.2.0 outputs (`<repo>/vela-out/`, made by
//! `scripts/setup-vela`): every output of both models, both accelerators, default, raw and
//! COP2 + separate IO regions, packed through `pack_file` (the function behind the
//! subcommand), then read back by both the generated validator and the independent binrw
//! reference reader (`npuschema_tests::refreader`).
//!
//! The stored command stream is compared with one rebuilt from Vela's own listing
//! (`--verbose-register-command-stream`, saved next to each output), word by word.
//! When `vela-out/` is missing each test prints "skipping: ..." and returns.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(clippy::arithmetic_side_effects, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};

use npuschema_cli::pack::layout::PlanRole;
// The reference reader and the C peer read NPU1 version 1: these tests pack version 1
// (version 2 is tests/tests/npu1_v2.rs).
use npuschema_cli::pack::{AccelChoice, FormatVersion, load, pack_file_as, pack_model_as};
use npuschema_generated::npu1::{Accel, Npu1, Role};
use npuschema_tests::refreader::npu1 as refnpu1;
use npuschema_tests::vela::{out_dir as vela_out, outputs};

/// A fresh directory for this test's files.
fn scratch_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// The register command stream rebuilt from Vela's listing lines
/// `0x000004: 00000010 0000 4000 - NPU_SET_IFM_BASE0 ...` (offset, payload, param, code).
fn stream_from_listing(output: &Path) -> Vec<u8> {
    let listing = fs::read_to_string(format!("{}.txt", output.display())).unwrap();
    let mut out = Vec::new();
    for line in listing.lines() {
        let Some((off, rest)) = line.trim_start().split_once(": ") else {
            continue;
        };
        let Some(off) = off.strip_prefix("0x") else {
            continue;
        };
        let Ok(off) = u64::from_str_radix(off, 16) else {
            continue;
        };
        let Some((fields, _name)) = rest.split_once(" - ") else {
            continue;
        };
        let f: Vec<&str> = fields.split_whitespace().collect();
        let (payload, param, code) = match f.as_slice() {
            [payload, param, code] => (Some(*payload), *param, *code),
            [param, code] => (None, *param, *code),
            _ => panic!("unexpected listing line {line:?}"),
        };
        assert_eq!(
            off,
            out.len() as u64,
            "listing offsets are contiguous: {line:?}"
        );
        let word = u32::from_str_radix(code, 16).unwrap()
            | (u32::from_str_radix(param, 16).unwrap() << 16);
        out.extend_from_slice(&word.to_le_bytes());
        if let Some(p) = payload {
            out.extend_from_slice(&u32::from_str_radix(p, 16).unwrap().to_le_bytes());
        }
    }
    assert!(
        !out.is_empty(),
        "no command lines in the listing of {}",
        output.display()
    );
    out
}

#[test]
fn every_vela_output_packs_validates_and_matches_vela() {
    let Some(dir) = vela_out() else { return };
    let tmp = scratch_dir("pack_blob_all");
    let outs = outputs(&dir);
    assert_eq!(outs.len(), 16);
    for (i, input) in outs.iter().enumerate() {
        let what = input.display();
        let out = tmp.join(format!("{i}.npub"));
        let report = pack_file_as(input, &out, AccelChoice::Auto, FormatVersion::V1)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            !tmp.join(format!("{i}.npub.tmp")).exists(),
            "{what}: temporary file left behind"
        );
        let bytes = fs::read(&out).unwrap();
        let model = load(input).unwrap();

        // The generated validator accepts it, and it says what the report says.
        let blob = Npu1::validate(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        let h = blob.header();
        assert_eq!(h.total_bytes() as usize, bytes.len(), "{what}");
        assert_eq!(report.blob_bytes as usize, bytes.len(), "{what}");
        let macs = if input.to_string_lossy().contains("ethos-u55-128") {
            128
        } else {
            256
        };
        assert_eq!(
            h.accel(),
            if macs == 128 {
                Accel::Macs128
            } else {
                Accel::Macs256
            },
            "{what}"
        );

        // The stream, byte for byte, as Vela listed it.
        assert_eq!(
            blob.cmd_stream(),
            stream_from_listing(input).as_slice(),
            "{what}: stream vs Vela's listing"
        );

        // The independent reference reader agrees on everything.
        let r = refnpu1::read(&bytes).unwrap_or_else(|e| panic!("{what}: reference reader: {e:?}"));
        assert_eq!(r.header.checksum, refnpu1::fnv1a(&bytes[32..]), "{what}");
        assert_eq!(r.cmd_stream(&bytes).unwrap(), blob.cmd_stream(), "{what}");
        assert_eq!(r.regions.len(), blob.regions().len(), "{what}");
        for (i, (rr, gr)) in r.regions.iter().zip(blob.regions()).enumerate() {
            assert_eq!(
                (rr.role, rr.size, rr.baked()),
                (gr.role().raw(), gr.size(), gr.data().is_some()),
                "{what}"
            );
            if rr.baked() {
                assert_eq!(
                    r.region_data(&bytes, i).unwrap(),
                    model.readonly.as_slice(),
                    "{what}"
                );
                assert_eq!(rr.data_offset % 16, 0, "{what}: baked data 16-byte aligned");
            }
        }
        assert_eq!(h.cmd_offset() % 16, 0, "{what}: stream 16-byte aligned");

        // Regions: Vela's sizes, in BASEP order.
        let roles: Vec<(Role, u32)> = blob.regions().map(|r| (r.role(), r.size())).collect();
        let ro = model.readonly.len() as u32;
        let scratch = model.scratch_size as u32;
        if model.separate_io {
            let i = model.inputs[0].bytes().unwrap() as u32;
            let o = model.outputs[0].bytes().unwrap() as u32;
            assert_eq!(
                roles,
                vec![
                    (Role::Weights, ro),
                    (Role::Scratch, scratch),
                    (Role::Other, 0),
                    (Role::Input, i),
                    (Role::Output, o)
                ],
                "{what}"
            );
        } else {
            assert_eq!(
                roles,
                vec![(Role::Weights, ro), (Role::Scratch, scratch)],
                "{what}"
            );
        }
        // SOURCES.md: hello_world 768 / 32, micro_speech 20272 / 5968 (default layout).
        let (ro_md, scratch_md) = if input.to_string_lossy().contains("hello_world") {
            (768, 32)
        } else {
            (20272, 5968)
        };
        assert_eq!(ro, ro_md, "{what}");
        if !model.separate_io {
            assert_eq!(scratch, scratch_md, "{what}");
        }

        // The checker found nothing and the stream touches every region it declares, up to
        // (not past) its size.
        assert_eq!(report.check.findings, 0, "{what}");
        for (slot, extent) in &report.check.extents {
            let size = blob.regions().nth(*slot as usize).unwrap().size();
            assert!(
                *extent <= u64::from(size),
                "{what}: region {slot} touched to {extent} > {size}"
            );
        }
        // The report says where the IO lives.
        assert_eq!(report.inputs, model.inputs, "{what}");
        assert_eq!(report.outputs, model.outputs, "{what}");
        assert!(
            report
                .to_json()
                .contains(&format!("\"blob_bytes\": {}", bytes.len())),
            "{what}"
        );
        assert!(
            report.to_text().contains(&format!(
                "region {} offset {:#x}",
                model.inputs[0].region, model.inputs[0].offset
            )),
            "{what}"
        );
    }
}

/// The same compilation in its two file formats packs to the same blob.
#[test]
fn npz_and_tflite_pack_to_identical_blobs() {
    let Some(dir) = vela_out() else { return };
    for accel in ["ethos-u55-128", "ethos-u55-256"] {
        for model in ["hello_world_int8", "micro_speech_quantized"] {
            let base = dir.join(model).join(accel);
            let pairs = [
                (
                    base.join(format!("raw/{model}_vela.npz")),
                    base.join(format!("tflite/{model}_vela.tflite")),
                ),
                (
                    base.join(format!("cop2io/{model}_vela.npz")),
                    base.join(format!("cop2io/{model}_vela.tflite")),
                ),
            ];
            for (a, b) in pairs {
                let pa = pack_model_as(&load(&a).unwrap(), AccelChoice::Auto, FormatVersion::V1)
                    .unwrap();
                let pb = pack_model_as(&load(&b).unwrap(), AccelChoice::Auto, FormatVersion::V1)
                    .unwrap();
                assert_eq!(pa.bytes, pb.bytes, "{} vs {}", a.display(), b.display());
            }
        }
    }
}

#[test]
fn explicit_accel_must_agree_with_the_payload() {
    let Some(dir) = vela_out() else { return };
    let m =
        load(&dir.join("hello_world_int8/ethos-u55-256/raw/hello_world_int8_vela.npz")).unwrap();
    let ok = pack_model_as(&m, AccelChoice::Macs(256), FormatVersion::V1).unwrap();
    assert_eq!(
        Npu1::validate(&ok.bytes).unwrap().header().accel(),
        Accel::Macs256
    );
    let e = pack_model_as(&m, AccelChoice::Macs(128), FormatVersion::V1).unwrap_err();
    assert_eq!(e.code, "accel-mismatch", "{e}");
    assert!("512".parse::<AccelChoice>().is_err());
    assert_eq!("auto".parse::<AccelChoice>(), Ok(AccelChoice::Auto));
}

/// A scratch arena smaller than what the stream touches is caught by the static checker, and
/// an input placed past its region by the layout check.
#[test]
fn undersized_regions_are_refused() {
    let Some(dir) = vela_out() else { return };
    let mut m =
        load(&dir.join("hello_world_int8/ethos-u55-128/tflite/hello_world_int8_vela.tflite"))
            .unwrap();
    assert_eq!((m.scratch_size, m.inputs[0].offset), (32, 16));
    m.scratch_size = 24; // the input (16..17) still fits, the stream's OFM/IFM accesses do not
    let e = pack_model_as(&m, AccelChoice::Auto, FormatVersion::V1).unwrap_err();
    assert_eq!(e.code, "cmd-check-failed", "{e}");
    assert!(e.detail.contains("region-overflow"), "{e}");
    m.scratch_size = 16;
    let e = pack_model_as(&m, AccelChoice::Auto, FormatVersion::V1).unwrap_err();
    assert_eq!(e.code, "io-tensor-outside-region", "{e}");
}

/// On any failure nothing is written: no output, no temporary file, and an existing output
/// is left as it was.
#[test]
fn failures_leave_nothing_behind() {
    let Some(dir) = vela_out() else { return };
    let tmp = scratch_dir("pack_blob_fail");
    let input =
        dir.join("micro_speech_quantized/ethos-u55-128/raw/micro_speech_quantized_vela.npz");
    let out = tmp.join("m.npub");
    let e = pack_file_as(&input, &out, AccelChoice::Macs(64), FormatVersion::V1).unwrap_err();
    assert_eq!(e.code, "accel-mismatch");
    assert!(
        fs::read_dir(&tmp).unwrap().next().is_none(),
        "files left behind after a failure"
    );

    // A damaged input (payload magic broken) fails the same way and keeps an old output.
    fs::write(&out, b"previous").unwrap();
    let mut bytes = fs::read(
        dir.join("micro_speech_quantized/ethos-u55-128/tflite/micro_speech_quantized_vela.tflite"),
    )
    .unwrap();
    let at = bytes.windows(4).position(|w| w == b"COP1").unwrap();
    bytes[at] = b'X';
    let damaged = tmp.join("damaged_vela.tflite");
    fs::write(&damaged, &bytes).unwrap();
    let e = pack_file_as(&damaged, &out, AccelChoice::Auto, FormatVersion::V1).unwrap_err();
    assert_eq!(e.code, "cop-bad-magic", "{e}");
    assert_eq!(fs::read(&out).unwrap(), b"previous");
    assert!(!tmp.join("m.npub.tmp").exists());
}

/// Region roles in the plan follow the NPU1 role numbers the generated code uses.
#[test]
fn plan_roles_map_to_npu1_roles() {
    let Some(dir) = vela_out() else { return };
    let m =
        load(&dir.join("hello_world_int8/ethos-u55-128/cop2io/hello_world_int8_vela.npz")).unwrap();
    let p = pack_model_as(&m, AccelChoice::Auto, FormatVersion::V1).unwrap();
    let roles: Vec<PlanRole> = p.report.regions.iter().map(|r| r.role).collect();
    assert_eq!(
        roles,
        [
            PlanRole::Weights,
            PlanRole::Scratch,
            PlanRole::Other,
            PlanRole::Input,
            PlanRole::Output
        ]
    );
    let blob = Npu1::validate(&p.bytes).unwrap();
    let raw: Vec<u32> = blob.regions().map(|r| r.role().raw()).collect();
    assert_eq!(raw, [0, 1, 4, 2, 3]);
}

/// Vela with a dedicated SRAM puts a fast scratch in a separate memory: region 2. Not among
/// setup-vela's outputs, so this compiles micro_speech here with the pinned Vela venv
/// (`.venv-vela`, from `scripts/setup-vela`) and the model from `$NPUSCHEMA_CORPUS/models`.
#[test]
fn dedicated_sram_fast_scratch_becomes_region_2() {
    let vela = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv-vela/bin/vela");
    let Some(corpus) =
        npuschema_tests::refreader::corpus_dir("dedicated_sram_fast_scratch_becomes_region_2")
    else {
        return;
    };
    if !vela.is_file() {
        eprintln!(
            "skipping: run scripts/setup-vela ({} not found)",
            vela.display()
        );
        return;
    }
    let model = Path::new(&corpus).join("models/micro_speech_quantized.tflite");
    let tmp = scratch_dir("pack_blob_dedicated");
    let mut blobs = Vec::new();
    for format in ["raw", "tflite"] {
        let status = std::process::Command::new(&vela)
            .arg(&model)
            .args([
                "--config",
                "Arm/vela.ini",
                "--system-config",
                "Ethos_U65_High_End",
            ])
            .args([
                "--memory-mode",
                "Dedicated_Sram_384KB",
                "--accelerator-config",
                "ethos-u55-128",
            ])
            .args(["--output-format", format, "--output-dir"])
            .arg(&tmp)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "vela failed for {format}");
        let ext = if format == "raw" { "npz" } else { "tflite" };
        let m = load(&tmp.join(format!("micro_speech_quantized_vela.{ext}"))).unwrap();
        let fast = m.fast_scratch_size.expect("a separate fast scratch");
        assert!(fast > 0 && !m.separate_io);
        let p = pack_model_as(&m, AccelChoice::Auto, FormatVersion::V1).unwrap();
        let blob = Npu1::validate(&p.bytes).unwrap();
        let regions: Vec<(Role, u32)> = blob.regions().map(|r| (r.role(), r.size())).collect();
        assert_eq!(
            regions,
            vec![
                (Role::Weights, 20272),
                (Role::Scratch, m.scratch_size as u32),
                (Role::Scratch, fast as u32)
            ],
            "{format}"
        );
        // The stream really uses region 2, up to its size.
        let e = p
            .report
            .check
            .extents
            .iter()
            .find(|(slot, _)| *slot == 2)
            .unwrap()
            .1;
        assert!(
            e > 0 && e <= fast,
            "{format}: region 2 touched to {e} of {fast}"
        );
        blobs.push(p.bytes);
    }
    assert_eq!(blobs[0], blobs[1], "npz and tflite of the same compilation");
}

/// End to end, as `pack` then `run --sim`: every packed file runs on the simulated Ethos-U55
/// through the firmware driver, and the NPU reads the inputs and writes the outputs where
/// the pack report says they are.
#[test]
fn packed_files_run_on_the_simulator_with_io_where_reported() {
    let Some(dir) = vela_out() else { return };
    let tmp = scratch_dir("pack_blob_sim");
    for (i, input) in outputs(&dir).iter().enumerate() {
        let what = input.display();
        let out = tmp.join(format!("{i}.npub"));
        let report = pack_file_as(input, &out, AccelChoice::Auto, FormatVersion::V1).unwrap();
        let bytes = fs::read(&out).unwrap();
        let run = npuschema_sim::run_blob(&bytes, &npuschema_sim::RunOptions::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(run.succeeded(), "{what}: {:?}", run.outcome);
        assert_eq!(run.accel_macs, report.accel_macs, "{what}");
        for t in &report.inputs {
            let r = &run.regions[t.region as usize];
            assert!(
                r.read_extent >= t.end().unwrap(),
                "{what}: {} not read up to its end",
                t.name
            );
            assert!(
                r.read_extent <= u64::from(report.regions[t.region as usize].size),
                "{what}"
            );
        }
        for t in &report.outputs {
            let r = &run.regions[t.region as usize];
            assert!(
                r.write_extent >= t.end().unwrap(),
                "{what}: {} not written up to its end",
                t.name
            );
        }
        if report.separate_io {
            // Regions 3 and 4 hold exactly the IO: read and written to the byte.
            assert_eq!(
                run.regions[3].read_extent,
                report.inputs[0].end().unwrap(),
                "{what}"
            );
            assert_eq!(
                run.regions[3].write_extent, 0,
                "{what}: inputs are not written"
            );
            assert_eq!(
                run.regions[4].write_extent,
                report.outputs[0].end().unwrap(),
                "{what}"
            );
        }
    }
}
