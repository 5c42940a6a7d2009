//! One small int8 model per operator and parameter family (`scripts/make-op-models.py`,
//! made with TensorFlow's converter from `.venv-tf`, `scripts/setup-tf`), compiled with the
//! pinned Vela for U55-32, -128 and -256 (`Shared_Sram`, raw output) and held to TFLite's reference
//! kernels (`.venv-litert`) on 100 seeded inputs each, as `oracle.rs` holds the shared
//! models. Everything is generated into cargo's target tmp dir; nothing binary is
//! committed. Skips, saying so, without the venvs.
//!
//! The inputs are run one-shot (`run_with_io`: every weight stream decoded on every pass,
//! nothing kept, as the `no_std` build does); the first is also run in a session
//! (`with_session`, which keeps the stream's and the weights' decodings): the same
//! outputs.
//!
//! Each family's result is printed; `EXACT` lists the families that must be bit-exact,
//! `DIFFER` the ones that must not be (with the reason), so that a change either way is
//! seen.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use npuschema_cli::pack::{AccelChoice, load, pack_model};
use npuschema_runtime::cmd::{Opcode, decode};
use npuschema_sim::{KeptBytes, RunOptions, run_with_io, with_session};
use npuschema_tests::vela::venv_tool;

const SETS: usize = 100;

/// The configurations each family is compiled for.
const ACCELS: [&str; 3] = ["ethos-u55-32", "ethos-u55-128", "ethos-u55-256"];

/// What one family's model gave.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Every output byte equal to TFLite's on every input.
    Exact,
    /// Runs completed, some bytes differ: how many, and by at most how much.
    Differ(usize, i32),
    /// The simulator refused to compute an operation (the error's text).
    NotComputed(String),
    /// Vela did not put the whole model on the NPU (raw output needs it).
    NotOnNpu,
}

struct Rng(u64);
impl Rng {
    fn byte(&mut self) -> u8 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 56) as u8
    }
}

/// `stream` with every `NPU_SET_OFM_PRECISION` asking for `ROUND_MODE_NATURAL`.
fn every_op_natural(stream: &[u8]) -> Vec<u8> {
    let mut s = stream.to_vec();
    for c in decode(stream) {
        let c = c.unwrap();
        if c.opcode() == Some(Opcode::SetOfmPrecision) {
            let at = c.offset as usize + 2;
            let p = (c.param & 0x3fff) | (2 << 14);
            s[at..at + 2].copy_from_slice(&p.to_le_bytes());
        }
    }
    s
}

/// One family: compiled, packed (with `natural`, every operation rounding once), run on
/// `SETS` inputs and compared with TFLite.
fn run_family(
    vela: &Path,
    litert: &Path,
    model: &Path,
    accel: &str,
    out: &Path,
    natural: bool,
) -> Outcome {
    let name = model.file_stem().unwrap().to_string_lossy().to_string();
    std::fs::create_dir_all(out).unwrap();
    let o = Command::new(vela)
        .arg(model)
        .args(["--config", "Arm/vela.ini"])
        .args(["--system-config", "Ethos_U55_High_End_Embedded"])
        .args(["--memory-mode", "Shared_Sram"])
        .args(["--accelerator-config", accel])
        .args(["--output-format", "raw"])
        .arg("--output-dir")
        .arg(out)
        .output()
        .unwrap();
    let npz = out.join(format!("{name}_vela.npz"));
    if !o.status.success() || !npz.is_file() {
        return Outcome::NotOnNpu;
    }
    let mut m = load(&npz).unwrap();
    if let Some((_, what, want)) = USES.iter().find(|u| u.0 == name) {
        assert!(
            decode(&m.cmd_stream).any(|c| {
                let c = c.unwrap();
                c.opcode() == Some(want.0) && c.param == want.1
            }),
            "{name} ({accel}): Vela's stream has no {what}"
        );
    }
    if natural {
        m.cmd_stream = every_op_natural(&m.cmd_stream);
    }
    let packed = pack_model(&m, AccelChoice::Auto).unwrap();
    let r = &packed.report;
    let mut rng = Rng(0x5eed_0f0e_1234_5678);
    let sets: Vec<Vec<Vec<u8>>> = (0..SETS)
        .map(|_| {
            r.inputs
                .iter()
                .map(|t| (0..t.bytes().unwrap()).map(|_| rng.byte()).collect())
                .collect()
        })
        .collect();
    let (inp, outp) = (out.join("in.bin"), out.join("out.bin"));
    std::fs::write(
        &inp,
        sets.iter().map(|s| s.concat()).collect::<Vec<_>>().concat(),
    )
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/tflite_reference.py");
    let st = Command::new(litert)
        .arg(script)
        .arg(model)
        .arg(&inp)
        .arg(&outp)
        .arg(SETS.to_string())
        .status()
        .unwrap();
    assert!(st.success(), "tflite_reference.py failed on {name}");
    let want = std::fs::read(&outp).unwrap();
    let places: Vec<(usize, u64, u64)> = r
        .outputs
        .iter()
        .map(|t| (t.region as usize, t.offset, t.bytes().unwrap()))
        .collect();
    let per_set: usize = places.iter().map(|p| p.2 as usize).sum();
    assert_eq!(want.len(), per_set * SETS, "{name}");
    // The inputs exercise the model: its outputs take many values.
    let values: std::collections::BTreeSet<u8> = want.iter().copied().collect();
    assert!(
        values.len() >= 8,
        "{name}: outputs take {} values",
        values.len()
    );
    let (mut differ, mut max) = (0, 0i32);
    for (k, set) in sets.iter().enumerate() {
        let inputs: Vec<(usize, u64, &[u8])> = r
            .inputs
            .iter()
            .zip(set)
            .map(|(t, b)| (t.region as usize, t.offset, b.as_slice()))
            .collect();
        let (run, got) =
            run_with_io(&packed.bytes, &RunOptions::default(), &inputs, &places).unwrap();
        assert!(run.succeeded(), "{name}:\n{}", run.to_text());
        if k == 0 {
            // A session's kept decodings compute what decoding every weight stream on
            // every pass (a one-shot run's way, and the no_std build's) computes.
            let (inf, kept) = with_session(&packed.bytes, &RunOptions::default(), |s| {
                (s.infer(&inputs, &places).unwrap(), s.sim().kept())
            })
            .unwrap();
            assert!(inf.outcome.is_ok(), "{name}: {:?}", inf.outcome);
            assert_eq!(
                inf.outputs, got,
                "{name}: a session and a one-shot run differ"
            );
            // What the session keeps for the weights stays within its limit (and nothing
            // for a one-shot run).
            assert!(kept.weights <= kept.weights_limit, "{name}: {kept:?}");
            assert_eq!(run.kept, KeptBytes::default(), "{name}");
            if kept.weight_stream_bytes > 0 {
                eprintln!(
                    "{name} ({accel}): a session keeps {} B of weight decodings, {:.2} per byte of {} B in {} weight streams (limit {} B)",
                    kept.weights,
                    kept.weights as f64 / kept.weight_stream_bytes as f64,
                    kept.weight_stream_bytes,
                    kept.weight_streams,
                    kept.weights_limit
                );
            }
        }
        let rec = run.record.as_ref().unwrap();
        if let Some(e) = rec.compute_error {
            return Outcome::NotComputed(e.to_string());
        }
        assert_eq!(rec.not_computed, 0, "{name}");
        // int16 families (`i16_*`) compare 16-bit elements.
        let elem = if name.starts_with("i16_") { 2 } else { 1 };
        let got = got.concat();
        let value = |b: &[u8]| match b {
            [a] => i32::from(*a as i8),
            [a, b] => i32::from(i16::from_le_bytes([*a, *b])),
            _ => 0,
        };
        for (g, w) in got
            .chunks(elem)
            .zip(want[k * per_set..(k + 1) * per_set].chunks(elem))
        {
            let d = (value(g) - value(w)).abs();
            differ += usize::from(d != 0);
            max = max.max(d);
        }
    }
    if differ == 0 {
        Outcome::Exact
    } else {
        Outcome::Differ(differ, max)
    }
}

/// Families that must be bit-exact with TFLite, as Vela compiled them.
const EXACT: &[&str] = &[
    "abs",
    "add_broadcast",
    "add_same_scales",
    "avgpool_2x2_valid",
    "avgpool_3x3_stride2_same",
    "concatenation",
    "conv_3x3_dilation2_valid",
    "conv_3x3_stride2_same",
    "conv_5x3_stride1x2_same",
    "depthwise_3x3_dilation2_same",
    "depthwise_3x3_multiplier2_same",
    "depthwise_3x3_stride2_valid",
    "hard_swish",
    "i16_add",
    "i16_add_sigmoid",
    "i16_avgpool",
    "i16_conv",
    "i16_conv_tanh",
    "i16_leaky_relu",
    "i16_leaky_relu_big",
    "i16_leaky_relu_eq",
    "i16_maxpool",
    "i16_mul",
    "i16_sigmoid",
    "i16_sigmoid_pot",
    "i16_softmax",
    "i16_tanh",
    "i16_tanh_pot",
    "leaky_relu",
    "maximum",
    "maxpool_2x2_valid",
    "maxpool_3x3_stride2_same",
    "mean_hw",
    "minimum",
    "mul",
    "mul_broadcast",
    "pad",
    "relu6_conv",
    "resize_bilinear",
    "resize_nearest",
    "sigmoid",
    "softmax",
    "softmax_beta",
    "squared_difference",
    "strided_slice",
    "sub_broadcast",
    "tanh",
    "transpose_conv_stride2_same",
];

/// Families that differ, within a documented bound: ai-edge-litert's `FULLY_CONNECTED`
/// rounds once where the NPU (`ROUND_MODE_DBL`) double-rounds (see `oracle.rs`), so its
/// output may be 1 off on ties; with the stream rounding once (`NATURAL`) it must be
/// bit-exact.
const ROUNDS_ONCE: &[&str] = &["fully_connected"];

/// Families that differ by at most a bound, with either rounding mode, and why.
const BOUNDED: &[(&str, i32, &str)] = &[(
    "i16_fully_connected",
    1,
    "TFLite and Vela scale it differently: regor encodes the int16 scale as TFLite's \
     16-bit reduced multiplier (what TFLite's int16 convolution uses: that family is \
     bit-exact), while ai-edge-litert's int16 FULLY_CONNECTED scales with the full \
     32-bit multiplier, rounding once (checked on the model's accumulators for 200 \
     inputs: that rule gives all 2,000 of TFLite's outputs, the reduced multiplier \
     1,851); the simulator computes the stream's scale",
)];

/// Families whose stream must use a hardware feature (what the family is there to pin):
/// the command with that opcode and parameter.
const USES: &[(&str, &str, (Opcode, u16))] = &[
    (
        "i16_tanh",
        "ACTIVATION_FUNCTION_TANH",
        (Opcode::SetActivation, 3),
    ),
    (
        "i16_tanh_pot",
        "ACTIVATION_FUNCTION_TANH",
        (Opcode::SetActivation, 3),
    ),
    (
        "i16_sigmoid",
        "ACTIVATION_FUNCTION_SIGMOID",
        (Opcode::SetActivation, 4),
    ),
    (
        "i16_sigmoid_pot",
        "ACTIVATION_FUNCTION_SIGMOID",
        (Opcode::SetActivation, 4),
    ),
    (
        "i16_conv_tanh",
        "ACTIVATION_FUNCTION_TANH",
        (Opcode::SetActivation, 3),
    ),
    (
        "i16_add_sigmoid",
        "ACTIVATION_FUNCTION_SIGMOID",
        (Opcode::SetActivation, 4),
    ),
    (
        "i16_leaky_relu",
        "ELEMENTWISE_MODE_MAX",
        (Opcode::OpElementwise, 4),
    ),
    (
        "i16_leaky_relu_eq",
        "ELEMENTWISE_MODE_LRELU",
        (Opcode::OpElementwise, 5),
    ),
    (
        "i16_leaky_relu_big",
        "ELEMENTWISE_MODE_LRELU",
        (Opcode::OpElementwise, 5),
    ),
];

#[test]
fn every_operator_family_against_tflite_reference_kernels() {
    let (Some(tf), Some(litert)) = (
        venv_tool(".venv-tf/bin/python", "setup-tf"),
        venv_tool(".venv-litert/bin/python", "setup-litert"),
    ) else {
        return;
    };
    let Some(vela) = venv_tool(".venv-vela/bin/vela", "setup-vela") else {
        return;
    };
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("op-models");
    let models = base.join("tflite");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/make-op-models.py");
    let o = Command::new(&tf).arg(script).arg(&models).output().unwrap();
    assert!(
        o.status.success(),
        "make-op-models.py:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut results = BTreeMap::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&models)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    paths.sort();
    // NPUSCHEMA_OP_MODELS=a,b runs only those families (for working on one; the check
    // that every family was made and listed is then skipped, and said so).
    let only: Option<Vec<String>> = std::env::var("NPUSCHEMA_OP_MODELS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    for p in &paths {
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        // Every size of U55: the weight streams' orderings differ (micro-block depths).
        let mut outcomes = Vec::new();
        for accel in ACCELS {
            let out = base.join("vela").join(accel).join(&name);
            let outcome = run_family(&vela, &litert, p, accel, &out, false);
            eprintln!("{name} ({accel}): {outcome:?}");
            if ROUNDS_ONCE.contains(&name.as_str()) {
                let once = run_family(&vela, &litert, p, accel, &out, true);
                eprintln!("{name} ({accel}), every operation rounding once: {once:?}");
                assert_eq!(once, Outcome::Exact, "{name} ({accel}) rounding once");
                assert!(
                    matches!(outcome, Outcome::Exact | Outcome::Differ(_, 1)),
                    "{name} ({accel}): {outcome:?}"
                );
            } else if let Some((_, bound, why)) = BOUNDED.iter().find(|b| b.0 == name) {
                eprintln!("{name} ({accel}): within {bound}: {why}");
                assert!(
                    match outcome {
                        Outcome::Exact => true,
                        Outcome::Differ(_, d) => d <= *bound,
                        _ => false,
                    },
                    "{name} ({accel}): {outcome:?}"
                );
            } else {
                assert!(
                    EXACT.contains(&name.as_str()),
                    "{name}: a family of no list"
                );
                assert_eq!(outcome, Outcome::Exact, "{name} ({accel})");
            }
            outcomes.push(outcome);
        }
        results.insert(name, outcomes);
    }
    if let Some(o) = only {
        eprintln!("NPUSCHEMA_OP_MODELS: only {o:?} run; not every family checked");
        assert_eq!(
            results.len(),
            o.len(),
            "a family of NPUSCHEMA_OP_MODELS not made"
        );
        return;
    }
    assert_eq!(
        results.len(),
        EXACT.len() + ROUNDS_ONCE.len() + BOUNDED.len()
    );
    for name in EXACT {
        assert!(results.contains_key(*name), "{name} not made");
    }
}
