//! The simulator held to TFLite's reference kernels: each shared model's Vela outputs
//! (`vela-out/<model>/<accel>/<variant>/`, every accelerator and variant) packed to NPU1 and
//! run on the simulator, and the original `$NPUSCHEMA_CORPUS/models/<model>.tflite` run by
//! ai-edge-litert's interpreter with `OpResolverType.BUILTIN_REF` (`.venv-litert`, made by
//! `scripts/setup-litert`), on the same 100 seeded inputs, and on inputs shaped like the
//! models' real ones (`real_looking_inputs_are_bit_exact`: every value of hello_world's `x`,
//! spectrogram-like maps for micro_speech); every output byte must agree.
//! The inputs and outputs are placed where `pack` reports them. Skips, saying so, when
//! `vela-out/`, the corpus or the venv is missing.
//!
//! Beyond `vela-out/` (U55-128 and -256, `Shared_Sram`), the `*_every_configuration_*`
//! tests compile each shared model with the pinned Vela (`.venv-vela`, the system
//! configuration of `scripts/setup-vela`) for U55-32, -64, -128 and -256 in `Shared_Sram`
//! and `Sram_Only`, in both output formats (`raw` and `tflite`), into cargo's target tmp
//! dir, and hold each to TFLite the same way
//! (`Dedicated_Sram` is not a U55 memory mode Vela accepts: see `ACCELS`).
//!
//! The one documented difference is rounding. Vela programs `ROUND_MODE_DBL`, which the
//! NPU computes as gemmlowp's double rounding (regor's model of it, `Scale` in
//! `compiler/graphir_optimiser.cpp`, checked equal to TFLite's double-rounding
//! `MultiplyByQuantizedMultiplier` in `compute.rs`'s tests); ai-edge-litert's
//! `FULLY_CONNECTED` reference kernel rounds once (tensorflow/tensorflow#50290), while its
//! `DEPTHWISE_CONV_2D` still double-rounds (as google-ai-edge/LiteRT#7441 describes for
//! its builtin kernels). The two roundings differ by at most 1 per operation, on ties. So
//! each hello_world input (three fully-connected layers) runs twice: the stream as Vela wrote it (the NPU's answer; the differing
//! bytes and the largest difference are reported), and the stream with the
//! fully-connected operations' `OFM_PRECISION.round_mode` set to `NATURAL` (one rounding,
//! halves up: TFLite's single rounding), where every byte must equal TFLite's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use npuschema_cli::pack::{AccelChoice, VelaModel, load, pack_model};
use npuschema_runtime::cmd::{Opcode, StreamState, code16, decode};
use npuschema_sim::{RunOptions, run_with_io};
use npuschema_tests::vela::{out_dir as vela_out, outputs, venv_tool};

const SETS: usize = 100;

fn litert_python() -> Option<PathBuf> {
    venv_tool(".venv-litert/bin/python", "setup-litert")
}

fn corpus_model(name: &str) -> Option<PathBuf> {
    let corpus = std::env::var_os("NPUSCHEMA_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    let p = corpus.join("models").join(format!("{name}.tflite"));
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found (set NPUSCHEMA_CORPUS)", p.display());
        None
    }
}

/// `OFM_PRECISION.round_mode` (bits 15:14) NATURAL.
const ROUND_NATURAL: u16 = 2 << 14;

/// `stream` with every `NPU_SET_OFM_PRECISION` asking for `ROUND_MODE_NATURAL`.
fn every_op_natural(stream: &[u8]) -> Vec<u8> {
    let mut s = stream.to_vec();
    for c in decode(stream) {
        let c = c.unwrap();
        if c.opcode() == Some(Opcode::SetOfmPrecision) {
            let at = c.offset as usize + 2;
            let p = (c.param & 0x3fff) | ROUND_NATURAL;
            s[at..at + 2].copy_from_slice(&p.to_le_bytes());
        }
    }
    s
}

/// xorshift64*: the same inputs on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 56) as u8).collect()
    }
}

/// TFLite's outputs for `sets` (each the inputs' bytes, concatenated in input order), or
/// with `op` the output of the model's first operator of that builtin name; and the
/// seconds its `invoke()` calls took.
fn reference(py: &Path, model: &Path, sets: &[Vec<u8>], op: Option<&str>) -> (Vec<u8>, f64) {
    // Unique per call: tests run in parallel on the same model.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = std::env::temp_dir().join(format!(
        "npuschema-oracle-{}-{call}-{}",
        std::process::id(),
        model.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&tmp).unwrap();
    let (inp, out) = (tmp.join("in.bin"), tmp.join("out.bin"));
    std::fs::write(&inp, sets.concat()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/tflite_reference.py");
    let st = Command::new(py)
        .arg(script)
        .arg(model)
        .arg(&inp)
        .arg(&out)
        .arg(sets.len().to_string())
        .args(op)
        .status()
        .unwrap();
    assert!(
        st.success(),
        "tflite_reference.py failed on {}",
        model.display()
    );
    let r = std::fs::read(&out).unwrap();
    let secs = std::fs::read_to_string(tmp.join("out.bin.seconds"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    std::fs::remove_dir_all(&tmp).ok();
    (r, secs)
}

/// Every Vela output of `model`: packed, run on `SETS` seeded inputs, compared with TFLite.
/// Returns how many outputs were compared.
fn model_is_bit_exact(model: &str) -> usize {
    let (Some(dir), Some(py), Some(tflite)) = (vela_out(), litert_python(), corpus_model(model))
    else {
        return 0;
    };
    let files: Vec<PathBuf> = outputs(&dir)
        .into_iter()
        .filter(|p| p.starts_with(dir.join(model)))
        .collect();
    assert!(files.len() >= 4, "{model}: {} Vela outputs", files.len());
    let mut compared = 0;
    let mut hardware_diffs = 0;
    let (mut sim_secs, mut tflite_secs) = (0f64, 0f64);
    let mut max_diff = 0i16;
    for path in &files {
        let m = load(path).unwrap();
        let packed = pack_model(&m, AccelChoice::Auto).unwrap();
        // hello_world is three fully-connected layers: all round once in TFLite.
        let natural = pack_model(
            &VelaModel {
                cmd_stream: every_op_natural(&m.cmd_stream),
                ..m.clone()
            },
            AccelChoice::Auto,
        )
        .unwrap();
        let report = &packed.report;
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ SETS as u64);
        let sets: Vec<Vec<Vec<u8>>> = (0..SETS)
            .map(|_| {
                report
                    .inputs
                    .iter()
                    .map(|t| rng.bytes(t.bytes().unwrap() as usize))
                    .collect()
            })
            .collect();
        let (want, ref_secs) = reference(
            &py,
            &tflite,
            &sets.iter().map(|s| s.concat()).collect::<Vec<_>>(),
            None,
        );
        let out_places: Vec<(usize, u64, u64)> = report
            .outputs
            .iter()
            .map(|t| (t.region as usize, t.offset, t.bytes().unwrap()))
            .collect();
        let per_set: usize = out_places.iter().map(|p| p.2 as usize).sum();
        assert_eq!(want.len(), per_set * SETS, "{}", path.display());
        for (k, set) in sets.iter().enumerate() {
            let inputs: Vec<(usize, u64, &[u8])> = report
                .inputs
                .iter()
                .zip(set)
                .map(|(t, b)| (t.region as usize, t.offset, b.as_slice()))
                .collect();
            let want = &want[k * per_set..(k + 1) * per_set];
            // The NPU (ROUND_MODE_DBL double-rounds): runs, and how far it lands from TFLite
            // (one rounding step per operation, carried through the later layers) is
            // reported ...
            let t = Instant::now();
            let (run, got) =
                run_with_io(&packed.bytes, &RunOptions::default(), &inputs, &out_places).unwrap();
            sim_secs += t.elapsed().as_secs_f64();
            assert!(run.succeeded(), "{}:\n{}", path.display(), run.to_text());
            let rec = run.record.as_ref().unwrap();
            assert_eq!(
                rec.not_computed,
                0,
                "{}: operations not modelled",
                path.display()
            );
            for (g, w) in got.concat().iter().zip(want) {
                let d = (i16::from(*g as i8) - i16::from(*w as i8)).abs();
                hardware_diffs += usize::from(d != 0);
                max_diff = max_diff.max(d);
            }
            // ... and with one rounding, TFLite's FULLY_CONNECTED: bit-exact.
            let (run, got) =
                run_with_io(&natural.bytes, &RunOptions::default(), &inputs, &out_places).unwrap();
            assert!(run.succeeded(), "{}:\n{}", path.display(), run.to_text());
            assert_eq!(
                got.concat(),
                want,
                "{}: input set {k} ({set:?}): simulator vs TFLite reference",
                path.display()
            );
            compared += 1;
        }
        tflite_secs += ref_secs;
    }
    eprintln!(
        "{model}: simulator (validate, bind, driver, run) {:.1} us per inference, TFLite \
         reference invoke() {:.1} us: ratio {:.2}",
        sim_secs * 1e6 / compared as f64,
        tflite_secs * 1e6 / compared as f64,
        sim_secs / tflite_secs
    );
    eprintln!(
        "{model}: {} Vela outputs x {SETS} inputs bit-exact with the fully-connected layers \
         rounding once; as Vela wrote them (double rounding) {hardware_diffs} output bytes \
         differ, by at most {max_diff}",
        files.len()
    );
    compared
}

#[test]
fn hello_world_is_bit_exact_with_tflite_reference_kernels() {
    let n = model_is_bit_exact("hello_world_int8");
    assert!(n == 0 || n >= 8 * SETS, "{n} runs compared");
}

/// micro_speech's NPU part up to its fully-connected layer (TFLite's DEPTHWISE_CONV_2D with
/// depth multiplier 8, which Vela makes a strided, padded, part-kernel-first NPU_OP_CONV,
/// then FULLY_CONNECTED over 4,000 inputs): the stream cut after its second NPU_OP_CONV, the
/// OFM read where that operation's registers put it, against TFLite's FULLY_CONNECTED output
/// tensor, on 100 seeded inputs, in every Vela output, with the stream's own rounding
/// (`ROUND_MODE_DBL`; with the convolution rounding once instead, input set 49 of the
/// U55-128 outputs is 1 off, as TFLite's `DEPTHWISE_CONV_2D` double-rounds). The softmax
/// that follows: `micro_speech_is_bit_exact_end_to_end`.
#[test]
fn micro_speech_up_to_its_fully_connected_layer_is_bit_exact() {
    let (Some(dir), Some(py), Some(tflite)) = (
        vela_out(),
        litert_python(),
        corpus_model("micro_speech_quantized"),
    ) else {
        return;
    };
    let files: Vec<PathBuf> = outputs(&dir)
        .into_iter()
        .filter(|p| p.starts_with(dir.join("micro_speech_quantized")))
        .collect();
    assert!(files.len() >= 4);
    let mut compared = 0;
    for path in &files {
        let mut m = load(path).unwrap();
        // Cut after the second NPU_OP_CONV; note its OFM.
        let mut st = StreamState::new();
        let mut convs = 0;
        let mut cut = None;
        for c in decode(&m.cmd_stream) {
            let c = c.unwrap();
            if st.apply(&c).is_some() && c.opcode() == Some(Opcode::OpConv) {
                convs += 1;
                if convs == 2 {
                    cut = Some((c.offset + c.size()) as usize);
                    break;
                }
            }
        }
        let cut = cut.unwrap();
        assert_eq!(st.param(Opcode::SetOfmDepthM1), 3, "4 classes");
        let ofm_region = usize::from(st.param(Opcode::SetOfmRegion) & 7);
        let ofm_base = u64::from(st.payload(Opcode::SetOfmBase0));
        m.cmd_stream.truncate(cut);
        m.cmd_stream
            .extend_from_slice(&code16(Opcode::OpStop).to_le_bytes());
        m.cmd_stream.extend_from_slice(&0xffffu16.to_le_bytes());
        let packed = pack_model(&m, AccelChoice::Auto).unwrap();
        let report = &packed.report;
        let mut rng = Rng(0x51ed_270b_9e37_79b9);
        let sets: Vec<Vec<u8>> = (0..SETS)
            .map(|_| rng.bytes(report.inputs[0].bytes().unwrap() as usize))
            .collect();
        let (want, _) = reference(&py, &tflite, &sets, Some("FULLY_CONNECTED"));
        assert_eq!(want.len(), 4 * SETS);
        for (k, set) in sets.iter().enumerate() {
            let i = &report.inputs[0];
            let (run, got) = run_with_io(
                &packed.bytes,
                &RunOptions::default(),
                &[(i.region as usize, i.offset, set.as_slice())],
                &[(ofm_region, ofm_base, 4)],
            )
            .unwrap();
            assert!(run.succeeded(), "{}:\n{}", path.display(), run.to_text());
            assert_eq!(run.record.as_ref().unwrap().computed, 2);
            assert_eq!(
                got.concat(),
                want[4 * k..4 * k + 4],
                "{}: input set {k}",
                path.display()
            );
            compared += 1;
        }
    }
    eprintln!(
        "micro_speech conv + FC: {} Vela outputs x {SETS} inputs bit-exact",
        files.len()
    );
    assert_eq!(compared, files.len() * SETS);
}

/// micro_speech end to end, softmax included (MAX pool, SUB with the exp LUT loaded into
/// SHRAM by DMA, SHR, REDUCE_SUM, CLZ, SUB/SHL/MUL/ADD of the Newton-Raphson reciprocal,
/// the final rounding SHR): every Vela output, 100 seeded inputs each, the stream as Vela
/// wrote it, every output byte equal to TFLite's reference kernels.
#[test]
fn micro_speech_is_bit_exact_end_to_end() {
    let (Some(dir), Some(py), Some(tflite)) = (
        vela_out(),
        litert_python(),
        corpus_model("micro_speech_quantized"),
    ) else {
        return;
    };
    let files: Vec<PathBuf> = outputs(&dir)
        .into_iter()
        .filter(|p| p.starts_with(dir.join("micro_speech_quantized")))
        .collect();
    assert!(files.len() >= 4);
    let n = stream_is_bit_exact(&py, &tflite, &files, &seeded(0x51ed_270b_9e37_79b9), false);
    assert_eq!(n, files.len() * SETS);
}

/// Inputs shaped like each model's real ones, beside the seeded random ones:
///
/// - hello_world's one int8 input is `x`, quantised, whose sine the model predicts: every
///   one of its 256 values, the training range [0, 2*pi] included;
/// - micro_speech's input is 49 frames of 40 int8 spectrogram features (its audio
///   frontend's output): silence (every feature at the floor), and 39 utterance-like maps,
///   each a word of 12 to 41 frames between quiet frames, three formant bands per frame
///   whose centres drift over the word, energy rising and falling, and a little seeded
///   noise; the levels span the features' range.
fn real_looking(sizes: &[usize]) -> InputSets {
    match sizes {
        [1] => (0..=255u8).map(|x| vec![vec![x]]).collect(),
        [n] if n % 40 == 0 => {
            let frames = n / 40;
            let mut rng = Rng(0x5eed_0f5b_eec4);
            let mut sets = vec![vec![vec![0x80u8; *n]]];
            for k in 0..39usize {
                let start = 2 + k % 7;
                let len = (12 + (k * 7) % 30).min(frames - start - 1);
                let mut map = vec![0u8; *n];
                for f in 0..frames {
                    let in_word = f >= start && f < start + len;
                    let t = if in_word {
                        (f - start) as f64 / len as f64
                    } else {
                        0.0
                    };
                    // Rises and falls over the word.
                    let energy = if in_word {
                        (std::f64::consts::PI * t).sin()
                    } else {
                        0.0
                    };
                    let formants = [
                        4.0 + 6.0 * t + (k % 3) as f64,
                        14.0 + 8.0 * (1.0 - t) + (k % 5) as f64,
                        27.0 + 5.0 * t,
                    ];
                    for b in 0..40usize {
                        let shape: f64 = formants
                            .iter()
                            .map(|c| (-((b as f64 - c) / 2.5).powi(2)).exp())
                            .sum();
                        let noise = (rng.next() >> 61) as f64;
                        let level = -128.0 + 6.0 + noise + energy * 230.0 * shape.min(1.0);
                        map[f * 40 + b] = (level.clamp(-128.0, 127.0) as i8) as u8;
                    }
                }
                sets.push(vec![map]);
            }
            sets
        }
        _ => panic!("no real-looking inputs for input sizes {sizes:?}"),
    }
}

/// Both shared models, every Vela output, on inputs shaped like their real ones
/// ([`real_looking`]): every output byte equal to TFLite's (hello_world with its
/// fully-connected layers rounding once, as `hello_world_is_bit_exact_...` explains).
#[test]
fn real_looking_inputs_are_bit_exact() {
    let (Some(dir), Some(py)) = (vela_out(), litert_python()) else {
        return;
    };
    for (model, natural, sets) in [
        ("hello_world_int8", true, 256),
        ("micro_speech_quantized", false, 40),
    ] {
        let Some(tflite) = corpus_model(model) else {
            return;
        };
        let files: Vec<PathBuf> = outputs(&dir)
            .into_iter()
            .filter(|p| p.starts_with(dir.join(model)))
            .collect();
        assert!(files.len() >= 4, "{model}: {} Vela outputs", files.len());
        let n = stream_is_bit_exact(&py, &tflite, &files, &real_looking, natural);
        assert_eq!(n, files.len() * sets, "{model}");
    }
}

/// Input sets for a model: for its inputs' sizes, each set one byte string per input.
type InputSets = Vec<Vec<Vec<u8>>>;

/// `SETS` input sets from `seed`, each one random byte string per input of these sizes.
fn seeded(seed: u64) -> impl Fn(&[usize]) -> InputSets {
    move |sizes| {
        let mut rng = Rng(seed);
        (0..SETS)
            .map(|_| sizes.iter().map(|&n| rng.bytes(n)).collect())
            .collect()
    }
}

/// Each of `files` (Vela outputs of `tflite`) packed and run on the input sets `sets_for`
/// makes for its inputs' sizes, as Vela wrote it (or with `natural`, every operation
/// rounding once: hello_world's fully-connected layers, see the module documentation);
/// every output byte must equal TFLite's. Returns the runs compared.
fn stream_is_bit_exact(
    py: &Path,
    tflite: &Path,
    files: &[PathBuf],
    sets_for: &dyn Fn(&[usize]) -> InputSets,
    natural: bool,
) -> usize {
    let mut compared = 0;
    let (mut sim_secs, mut tflite_secs) = (0f64, 0f64);
    for path in files {
        let mut m = load(path).unwrap();
        if natural {
            m.cmd_stream = every_op_natural(&m.cmd_stream);
        }
        let packed = pack_model(&m, AccelChoice::Auto).unwrap();
        let report = &packed.report;
        let sizes: Vec<usize> = report
            .inputs
            .iter()
            .map(|t| t.bytes().unwrap() as usize)
            .collect();
        let sets = sets_for(&sizes);
        let n_sets = sets.len();
        let (want, ref_secs) = reference(
            py,
            tflite,
            &sets.iter().map(|s| s.concat()).collect::<Vec<_>>(),
            None,
        );
        tflite_secs += ref_secs;
        let out_places: Vec<(usize, u64, u64)> = report
            .outputs
            .iter()
            .map(|t| (t.region as usize, t.offset, t.bytes().unwrap()))
            .collect();
        let per_set: usize = out_places.iter().map(|p| p.2 as usize).sum();
        assert_eq!(want.len(), per_set * n_sets, "{}", path.display());
        // The inputs must exercise the model: many different outputs, not one saturated one.
        let distinct: std::collections::BTreeSet<&[u8]> = want.chunks(per_set).collect();
        eprintln!(
            "{}: {} distinct reference outputs of {n_sets}",
            path.display(),
            distinct.len()
        );
        assert!(
            distinct.len() >= n_sets / 4,
            "{}: {} distinct outputs",
            path.display(),
            distinct.len()
        );
        let mut bad = Vec::new();
        for (k, set) in sets.iter().enumerate() {
            let inputs: Vec<(usize, u64, &[u8])> = report
                .inputs
                .iter()
                .zip(set)
                .map(|(t, b)| (t.region as usize, t.offset, b.as_slice()))
                .collect();
            let t = Instant::now();
            let (run, got) =
                run_with_io(&packed.bytes, &RunOptions::default(), &inputs, &out_places).unwrap();
            sim_secs += t.elapsed().as_secs_f64();
            assert!(run.succeeded(), "{}:\n{}", path.display(), run.to_text());
            let rec = run.record.as_ref().unwrap();
            assert_eq!(
                (rec.not_computed, rec.compute_error),
                (0, None),
                "{}: operations not computed",
                path.display()
            );
            let want = &want[k * per_set..(k + 1) * per_set];
            if got.concat() != want {
                bad.push((k, got.concat(), want.to_vec()));
            }
            compared += 1;
        }
        assert!(
            bad.is_empty(),
            "{}: {} of {n_sets} input sets differ from TFLite, first: {:?}",
            path.display(),
            bad.len(),
            &bad[..bad.len().min(3)]
        );
    }
    eprintln!(
        "{}: {} Vela outputs, {compared} runs bit-exact; simulator {:.1} us per inference, \
         TFLite reference invoke() {:.1} us: ratio {:.2}",
        tflite.display(),
        files.len(),
        sim_secs * 1e6 / compared as f64,
        tflite_secs * 1e6 / compared as f64,
        sim_secs / tflite_secs
    );
    compared
}

/// The Vela configurations the oracle compiles itself (into cargo's target tmp dir, never
/// the repository): every U55 size, in the memory modes a U55 system has. `Dedicated_Sram`
/// needs a DRAM for the arena, which neither of Vela's U55 system configurations has
/// (Vela 5.2.0: "Invalid configuration of arena_mem_area=OffChipFlash (must be Sram or
/// Dram)"): `vela_refuses_dedicated_sram_on_the_u55_systems` checks that it still does.
const ACCELS: [&str; 4] = [
    "ethos-u55-32",
    "ethos-u55-64",
    "ethos-u55-128",
    "ethos-u55-256",
];
const MODES: [&str; 2] = ["Shared_Sram", "Sram_Only"];

fn vela() -> Option<PathBuf> {
    venv_tool(".venv-vela/bin/vela", "setup-vela")
}

/// `vela MODEL` for `accel` and `mode` in output format `format` (`raw` or `tflite`), into
/// `out`; Vela's status and output.
fn compile(
    vela: &Path,
    model: &Path,
    accel: &str,
    mode: &str,
    format: &str,
    out: &Path,
) -> (bool, String) {
    std::fs::create_dir_all(out).unwrap();
    let o = Command::new(vela)
        .arg(model)
        .args(["--config", "Arm/vela.ini"])
        .args(["--system-config", "Ethos_U55_High_End_Embedded"])
        .args(["--memory-mode", mode])
        .args(["--accelerator-config", accel])
        .args(["--output-format", format])
        .arg("--output-dir")
        .arg(out)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success(), text)
}

/// `model` compiled for every configuration of `ACCELS` x `MODES` x output format, each
/// bit-exact on `SETS` seeded inputs.
fn every_configuration_is_bit_exact(model: &str, natural: bool) {
    let (Some(vela), Some(py), Some(tflite)) = (vela(), litert_python(), corpus_model(model))
    else {
        return;
    };
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("oracle-vela")
        .join(model);
    let mut files = Vec::new();
    for accel in ACCELS {
        for mode in MODES {
            for (format, ext) in [("raw", "npz"), ("tflite", "tflite")] {
                let out = base.join(accel).join(mode).join(format);
                let (ok, text) = compile(&vela, &tflite, accel, mode, format, &out);
                assert!(ok, "vela {model} {accel} {mode} {format}:\n{text}");
                files.push(out.join(format!("{model}_vela.{ext}")));
            }
        }
    }
    let n = stream_is_bit_exact(&py, &tflite, &files, &seeded(0x0dd_ba11_cafe_f00d), natural);
    assert_eq!(n, ACCELS.len() * MODES.len() * 2 * SETS);
}

#[test]
fn hello_world_every_configuration_is_bit_exact() {
    every_configuration_is_bit_exact("hello_world_int8", true);
}

#[test]
fn micro_speech_every_configuration_is_bit_exact() {
    every_configuration_is_bit_exact("micro_speech_quantized", false);
}

#[test]
fn vela_refuses_dedicated_sram_on_the_u55_systems() {
    let (Some(vela), Some(tflite)) = (vela(), corpus_model("hello_world_int8")) else {
        return;
    };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-vela-dedicated");
    let (ok, text) = compile(
        &vela,
        &tflite,
        "ethos-u55-128",
        "Dedicated_Sram",
        "raw",
        &out,
    );
    assert!(!ok && text.contains("arena_mem_area"), "{text}");
}
