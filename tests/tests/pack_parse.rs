//! `npuschema pack`'s readers against real Vela 5.2.0 outputs: every `*_vela.npz` and
//! `*_vela.tflite` under `<repo>/vela-out/` (made by `scripts/setup-vela`, not in git), for
//! both sample models, ethos-u55-128 and -256, default, raw and COP2 + separate IO regions.
//!
//! Expected numbers are Vela's own: the command-stream word count it prints in the listing
//! next to each output (`Register command stream: N words`), and the sizes in
//! `shared/models/SOURCES.md`. When `vela-out/` is missing each test prints
//! "skipping: ..." and returns.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(clippy::arithmetic_side_effects, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};

use npuschema_cli::pack::cop::CopFormat;
use npuschema_cli::pack::layout::{PlanRole, plan};
use npuschema_cli::pack::{SourceKind, VelaModel, load, parse};
use npuschema_tests::vela::out_dir as vela_out;

/// One Vela output with what its directory name says about it.
struct Case {
    path: PathBuf,
    model: String,
    macs: u64,
    variant: String,
}

fn cases(dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for model in fs::read_dir(dir).unwrap() {
        let model = model.unwrap().path();
        if !model.is_dir() {
            continue;
        }
        for accel in fs::read_dir(&model).unwrap() {
            let accel = accel.unwrap().path();
            let macs = match accel.file_name().unwrap().to_str().unwrap() {
                "ethos-u55-128" => 128,
                "ethos-u55-256" => 256,
                other => panic!("unexpected accelerator directory {other}"),
            };
            for variant in fs::read_dir(&accel).unwrap() {
                let variant = variant.unwrap().path();
                for f in fs::read_dir(&variant).unwrap() {
                    let f = f.unwrap().path();
                    let name = f.to_string_lossy().to_string();
                    if name.ends_with("_vela.npz") || name.ends_with("_vela.tflite") {
                        out.push(Case {
                            path: f,
                            model: model.file_name().unwrap().to_string_lossy().to_string(),
                            macs,
                            variant: variant.file_name().unwrap().to_string_lossy().to_string(),
                        });
                    }
                }
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Vela's "Register command stream: N words" from the listing next to `output`.
fn listed_words(output: &Path) -> u64 {
    let listing = fs::read_to_string(format!("{}.txt", output.display())).unwrap();
    let line = listing
        .lines()
        .find(|l| l.starts_with("Register command stream:"))
        .unwrap();
    line.split_whitespace().nth(3).unwrap().parse().unwrap()
}

/// (read-only bytes, scratch bytes, stream words) from shared/models/SOURCES.md, for the
/// default memory layout (IO inside the scratch arena).
fn sources_md(model: &str) -> (u64, u64, u64) {
    match model {
        "hello_world_int8" => (768, 32, 117),
        "micro_speech_quantized" => (20272, 5968, 611),
        other => panic!("no reference numbers for {other}"),
    }
}

fn input_bytes(m: &VelaModel) -> Vec<u64> {
    m.inputs.iter().map(|t| t.bytes().unwrap()).collect()
}

#[test]
fn every_vela_output_parses_with_vela_reported_sizes() {
    let Some(dir) = vela_out() else { return };
    let cases = cases(&dir);
    assert_eq!(
        cases.len(),
        16,
        "2 models x 2 accelerators x (tflite, raw, 2 x cop2io)"
    );
    for c in &cases {
        let m = load(&c.path).unwrap_or_else(|e| panic!("{}: {e}", c.path.display()));
        let what = c.path.display();
        let (ro, scratch, words) = sources_md(&c.model);
        let listed = listed_words(&c.path);
        if c.variant != "cop2io" {
            // SOURCES.md's numbers are for the default layout (IO inside the arena).
            assert_eq!(listed, words, "{what}: listing vs SOURCES.md");
        }
        assert_eq!(
            m.cmd_stream.len() as u64,
            listed * 4,
            "{what}: stream length vs Vela's listing"
        );
        assert_eq!(m.readonly.len() as u64, ro, "{what}: read-only size");
        assert_eq!(m.cop.macs(), c.macs, "{what}: MACs from CONFIG");
        assert_eq!(
            m.cop.config,
            if c.macs == 128 { 0x1807 } else { 0x3008 },
            "{what}"
        );
        assert_eq!(m.cop.product(), 0, "{what}: Ethos-U55");
        assert_eq!(
            m.fast_scratch_size, None,
            "{what}: Shared_Sram has no separate fast scratch"
        );
        // The stream ends with NPU_OP_STOP, param 0xFFFF.
        assert_eq!(
            m.cmd_stream[m.cmd_stream.len() - 4..],
            [0, 0, 0xff, 0xff],
            "{what}"
        );
        assert_eq!(m.inputs.len(), 1, "{what}");
        assert_eq!(m.outputs.len(), 1, "{what}");
        let expected_source = if c.path.extension().unwrap() == "npz" {
            SourceKind::Npz
        } else {
            SourceKind::Tflite
        };
        assert_eq!(m.source, expected_source, "{what}");
        let in_bytes = if c.model == "hello_world_int8" {
            1
        } else {
            49 * 40
        };
        let out_bytes = if c.model == "hello_world_int8" { 1 } else { 4 };
        assert_eq!(input_bytes(&m), vec![in_bytes], "{what}");
        assert_eq!(m.outputs[0].bytes(), Some(out_bytes), "{what}");
        match c.variant.as_str() {
            "cop2io" => {
                assert!(
                    matches!(
                        m.cop.format,
                        CopFormat::Cop2 {
                            major: 1,
                            minor: 0,
                            veum_version: 1
                        }
                    ),
                    "{what}"
                );
                assert_eq!(m.cop.stream_offset, 64, "{what}");
                assert!(m.separate_io, "{what}");
                assert_eq!((m.inputs[0].region, m.inputs[0].offset), (3, 0), "{what}");
                assert_eq!((m.outputs[0].region, m.outputs[0].offset), (4, 0), "{what}");
                // With the IO moved out, micro_speech's arena shrinks (Vela: 4016 bytes).
                let s = if c.model == "hello_world_int8" {
                    32
                } else {
                    4016
                };
                assert_eq!(m.scratch_size, s, "{what}");
            }
            "tflite" | "raw" => {
                assert!(
                    matches!(m.cop.format, CopFormat::Cop1 { rel: 0, patch: 1 }),
                    "{what}"
                );
                assert_eq!(m.cop.stream_offset, 32, "{what}");
                assert!(!m.separate_io, "{what}");
                assert_eq!(m.scratch_size, scratch, "{what}");
                // IO inside the arena, where Vela put them (its raw output's offsets).
                let in_off = if c.model == "hello_world_int8" {
                    16
                } else {
                    4000
                };
                assert_eq!(
                    (m.inputs[0].region, m.inputs[0].offset),
                    (1, in_off),
                    "{what}"
                );
                assert_eq!((m.outputs[0].region, m.outputs[0].offset), (1, 0), "{what}");
            }
            other => panic!("unexpected variant {other}"),
        }
        // Both formats record int8 per-tensor quantisation.
        for t in m.inputs.iter().chain(&m.outputs) {
            let q = t
                .quantization
                .as_ref()
                .unwrap_or_else(|| panic!("{what}: {} has no quantisation", t.name));
            assert_eq!((q.scale.len(), q.zero_point.len()), (1, 1), "{what}");
            assert!(
                q.scale[0] > 0.0 && q.scale[0] < 1.0,
                "{what}: scale {}",
                q.scale[0]
            );
            assert!((-128..=127).contains(&q.zero_point[0]), "{what}");
            assert_eq!(t.elem_size, 1, "{what}");
        }
    }
}

#[test]
fn npz_and_tflite_of_one_compilation_agree() {
    let Some(dir) = vela_out() else { return };
    for c in cases(&dir)
        .iter()
        .filter(|c| c.path.extension().unwrap() == "npz")
    {
        let tfl = c.path.with_extension("tflite");
        let tfl = if tfl.exists() {
            tfl
        } else {
            // raw/ has no .tflite: its twin is the default output in tflite/.
            c.path
                .parent()
                .unwrap()
                .parent()
                .unwrap()
                .join("tflite")
                .join(tfl.file_name().unwrap())
        };
        let a = load(&c.path).unwrap();
        let b = load(&tfl).unwrap();
        let what = format!("{} vs {}", c.path.display(), tfl.display());
        assert_eq!(a.cmd_stream, b.cmd_stream, "{what}");
        assert_eq!(a.readonly, b.readonly, "{what}");
        assert_eq!(a.cop, b.cop, "{what}");
        assert_eq!(a.scratch_size, b.scratch_size, "{what}");
        assert_eq!(a.separate_io, b.separate_io, "{what}");
        for (x, y) in a
            .inputs
            .iter()
            .chain(&a.outputs)
            .zip(b.inputs.iter().chain(&b.outputs))
        {
            assert_eq!(
                (x.region, x.offset, x.bytes()),
                (y.region, y.offset, y.bytes()),
                "{what}"
            );
            assert_eq!(x.quantization, y.quantization, "{what}");
        }
    }
}

#[test]
fn region_plans_match_vela_sizes() {
    let Some(dir) = vela_out() else { return };
    for c in cases(&dir) {
        let m = load(&c.path).unwrap();
        let p = plan(&m).unwrap();
        let what = c.path.display();
        let (ro, _, _) = sources_md(&c.model);
        let sizes: Vec<(PlanRole, bool, u32)> =
            p.iter().map(|r| (r.role, r.baked, r.size)).collect();
        if c.variant == "cop2io" {
            let (scratch, i, o) = if c.model == "hello_world_int8" {
                (32, 1, 1)
            } else {
                (4016, 1960, 4)
            };
            assert_eq!(
                sizes,
                vec![
                    (PlanRole::Weights, true, ro as u32),
                    (PlanRole::Scratch, false, scratch),
                    (PlanRole::Other, false, 0),
                    (PlanRole::Input, false, i),
                    (PlanRole::Output, false, o),
                ],
                "{what}"
            );
        } else {
            let (_, scratch, _) = sources_md(&c.model);
            assert_eq!(
                sizes,
                vec![
                    (PlanRole::Weights, true, ro as u32),
                    (PlanRole::Scratch, false, scratch as u32)
                ],
                "{what}"
            );
        }
        assert!(
            p.iter().enumerate().all(|(i, r)| r.slot as usize == i),
            "{what}: slot = index"
        );
    }
}

/// A truncated or altered output is refused with a specific code, never a panic.
#[test]
fn damaged_outputs_are_refused_with_codes() {
    let Some(dir) = vela_out() else { return };
    for c in cases(&dir) {
        let bytes = fs::read(&c.path).unwrap();
        for cut in [0, 3, 8, 64, bytes.len() / 2, bytes.len() - 1] {
            let e = parse(&bytes[..cut]).expect_err("truncated file parsed");
            assert!(
                !e.code.is_empty()
                    && e.code
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch == '-'),
                "{e}"
            );
        }
    }
    // The COP payload inside a TFLite: corrupt its magic in place.
    let tfl = dir.join("hello_world_int8/ethos-u55-128/tflite/hello_world_int8_vela.tflite");
    let mut bytes = fs::read(&tfl).unwrap();
    let at = bytes.windows(4).position(|w| w == b"COP1").unwrap();
    bytes[at + 3] = b'9';
    let e = parse(&bytes).unwrap_err();
    assert_eq!((e.code, e.offset), ("cop-bad-magic", Some(0)), "{e}");
    assert!(e.field.contains("ethos-u payload"), "{e}");
}

/// A payload whose COMMAND_STREAM length runs past its end is refused at the action's offset.
#[test]
fn a_stream_length_past_the_payload_is_refused() {
    let Some(dir) = vela_out() else { return };
    let tfl =
        dir.join("micro_speech_quantized/ethos-u55-256/tflite/micro_speech_quantized_vela.tflite");
    let mut bytes = fs::read(&tfl).unwrap();
    let at = bytes.windows(4).position(|w| w == b"COP1").unwrap();
    // Word 7 is the COMMAND_STREAM tag; its reserved byte is the length's high bits.
    bytes[at + 28 + 1] = 0x01;
    let e = parse(&bytes).unwrap_err();
    assert_eq!(
        (e.code, e.offset),
        ("cop-stream-out-of-bounds", Some(28)),
        "{e}"
    );
}

/// The TFLite reader (`cli/src/pack/fb.rs`, safe code, every position checked) on damaged
/// Vela files: every truncation of the first 4 KiB and a stride beyond, and every byte of
/// the first 4 KiB (and a stride beyond) set to 0x00, 0x7f and 0xff. Never a panic; a
/// refusal always carries a code.
#[test]
fn tflite_mutation_sweep_never_panics() {
    let Some(dir) = vela_out() else { return };
    let tfl = dir.join("hello_world_int8/ethos-u55-128/tflite/hello_world_int8_vela.tflite");
    let good = fs::read(&tfl).unwrap();
    let edges: Vec<usize> = (0..good.len().min(4096))
        .chain((4096..good.len()).step_by(61))
        .collect();
    let (mut refused, mut parsed) = (0usize, 0usize);
    let mut judge = |b: &[u8]| match parse(b) {
        Ok(_) => parsed += 1,
        Err(e) => {
            assert!(!e.code.is_empty(), "{e}");
            refused += 1;
        }
    };
    for &n in &edges {
        judge(&good[..n]);
    }
    for &at in &edges {
        for v in [0x00u8, 0x7f, 0xff] {
            let mut b = good.clone();
            b[at] = v;
            judge(&b);
        }
    }
    println!("tflite sweep: {refused} refused, {parsed} parsed");
    assert!(
        refused > 1000 && parsed > 100,
        "{refused} refused, {parsed} parsed"
    );
}
