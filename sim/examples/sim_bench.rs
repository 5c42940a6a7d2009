//! The functional simulator against TFLite's reference interpreter, in the same run: for
//! each shared model (its Vela output for U55-128, TFLite variant, packed as `pack` packs
//! it), the time per inference of ai-edge-litert's `invoke()` with
//! `OpResolverType.BUILTIN_REF` (its interpreter made and its tensors allocated once) and
//! of the simulator on the same 200 seeded inputs: a [`with_session`] inference (the blob
//! validated, bound, checked and the driver initialised once, as the interpreter is; per
//! inference: the inputs written, the driver's run with its cache maintenance, the
//! simulated NPU computing every operation, the outputs read), and a one-shot
//! `run_with_io` (all of that per inference, as `run --sim` does); their ratios, and the
//! simulator's peak memory: how far the model's first inference (one-shot, and a fresh
//! session's, with what the session keeps) raises the peak resident set (`VmHWM`, reset
//! before the run; Linux; page-grained) of a fresh process that did nothing else but load
//! and pack the model (this program, run again with `--peak MODEL one-shot|session`: in
//! the bench's own process, memory an earlier run freed would be reused unseen), against
//! the blob's size.
//!
//! Run: `cargo run --release -p npuschema-sim --example sim_bench` (needs `vela-out/`,
//! `.venv-litert` and the corpus; says what it skips).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use npuschema_cli::pack::{AccelChoice, load, pack_model};
use npuschema_sim::{RunOptions, run_with_io, with_session};
use npuschema_tests::vela::out_dir as vela_out;

/// A `/proc/self/status` field in KiB (Linux), `None` elsewhere.
fn status_kib(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Reset the peak resident set (`VmHWM`) to the current one (Linux: `clear_refs` 5).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

const SETS: usize = 200;

/// `model`'s Vela output for U55-128 (TFLite variant) packed, and `SETS` seeded inputs.
fn setup(dir: &Path, model: &str) -> (npuschema_cli::pack::Packed, Vec<Vec<u8>>) {
    let vela = dir.join(format!("{model}/ethos-u55-128/tflite/{model}_vela.tflite"));
    let m = load(&vela).expect("Vela output");
    let packed = pack_model(&m, AccelChoice::Auto).expect("pack");
    let r = &packed.report;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let sets: Vec<Vec<u8>> = (0..SETS)
        .map(|_| {
            let n = usize::try_from(r.inputs[0].bytes().unwrap_or(0)).unwrap_or(0);
            (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 56) as u8
                })
                .collect()
        })
        .collect();
    (packed, sets)
}

/// In this (fresh) process, how far one inference of `model` (`one-shot`, or a fresh
/// session's first) raises the peak resident set, in KiB.
fn peak(dir: &Path, model: &str, how: &str) -> Option<u64> {
    let (packed, sets) = setup(dir, model);
    let r = &packed.report;
    let (i, o) = (&r.inputs[0], &r.outputs[0]);
    let ins = [(i.region as usize, i.offset, sets[0].as_slice())];
    let outs = [(o.region as usize, o.offset, o.bytes().unwrap_or(0))];
    let before = status_kib("VmRSS:").filter(|_| reset_peak())?;
    if how == "session" {
        with_session(&packed.bytes, &RunOptions::default(), |s| {
            let inf = s.infer(&ins, &outs).expect("infer");
            assert!(inf.outcome.is_ok() && !inf.outputs.is_empty());
        })
        .expect("session");
    } else {
        let (run, got) =
            run_with_io(&packed.bytes, &RunOptions::default(), &ins, &outs).expect("run");
        assert!(run.succeeded() && !got.is_empty(), "{}", run.to_text());
    }
    Some(status_kib("VmHWM:")?.saturating_sub(before))
}

/// [`peak`] in a fresh process (this program with `--peak`).
fn peak_in_child(model: &str, how: &str) -> Option<u64> {
    let out = Command::new(std::env::current_exe().ok()?)
        .args(["--peak", model, how])
        .output()
        .ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let py = repo.join(".venv-litert/bin/python");
    let corpus =
        std::env::var_os("NPUSCHEMA_CORPUS").map_or_else(|| repo.join("../shared"), PathBuf::from);
    let Some(dir) = vela_out() else {
        eprintln!("sim_bench: skipped (no vela-out/: run scripts/setup-vela)");
        return;
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, model, how] = args.as_slice()
        && flag == "--peak"
    {
        if let Some(k) = peak(&dir, model, how) {
            println!("{k}");
        }
        return;
    }
    if !py.is_file() {
        eprintln!("sim_bench: skipped (no .venv-litert: run scripts/setup-litert)");
        return;
    }
    println!(
        "| model | TFLite reference us/inference | simulator session us/inference | ratio | one-shot run us/inference | ratio | one-shot peak memory (VmHWM over VmRSS, fresh process) | session peak memory (same) | blob |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for model in ["hello_world_int8", "micro_speech_quantized"] {
        let tflite = corpus.join("models").join(format!("{model}.tflite"));
        if !tflite.is_file() {
            eprintln!("sim_bench: {model} skipped (no {})", tflite.display());
            continue;
        }
        let (packed, sets) = setup(&dir, model);
        let r = &packed.report;
        // TFLite, in this run.
        let tmp = std::env::temp_dir().join(format!("npuschema-sim-bench-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).expect("temp dir");
        let (inp, out) = (tmp.join("in.bin"), tmp.join("out.bin"));
        std::fs::write(&inp, sets.concat()).expect("write inputs");
        let st = Command::new(&py)
            .arg(repo.join("sim/tests/support/tflite_reference.py"))
            .arg(&tflite)
            .arg(&inp)
            .arg(&out)
            .arg(SETS.to_string())
            .status()
            .expect("python");
        assert!(st.success(), "tflite_reference.py failed");
        let want = std::fs::read(&out).expect("reference outputs");
        let ref_secs: f64 = std::fs::read_to_string(tmp.join("out.bin.seconds"))
            .expect("seconds")
            .trim()
            .parse()
            .expect("seconds");
        std::fs::remove_dir_all(&tmp).ok();
        // The simulator.
        let (i, o) = (&r.inputs[0], &r.outputs[0]);
        let osize = o.bytes().unwrap_or(0);
        let mut got = Vec::new();
        let run_one = |set: &[u8]| {
            let (run, outs) = run_with_io(
                &packed.bytes,
                &RunOptions::default(),
                &[(i.region as usize, i.offset, set)],
                &[(o.region as usize, o.offset, osize)],
            )
            .expect("run");
            assert!(run.succeeded(), "{}", run.to_text());
            outs.concat()
        };
        // Peak memory, outside the timed loops, each in a fresh process.
        let peak = peak_in_child(model, "one-shot");
        let session_peak = peak_in_child(model, "session");
        let t = Instant::now();
        for set in &sets {
            got.extend(run_one(set));
        }
        let sim_secs = t.elapsed().as_secs_f64();
        // The same inputs through one session.
        let mut got_session = Vec::new();
        let session_secs = with_session(&packed.bytes, &RunOptions::default(), |s| {
            let t = Instant::now();
            for set in &sets {
                let inf = s
                    .infer(
                        &[(i.region as usize, i.offset, set)],
                        &[(o.region as usize, o.offset, osize)],
                    )
                    .expect("infer");
                assert!(inf.outcome.is_ok() && !inf.outputs.is_empty());
                got_session.extend(inf.outputs.concat());
            }
            t.elapsed().as_secs_f64()
        })
        .expect("session");
        assert_eq!(
            got_session, got,
            "{model}: a session and one-shot runs differ"
        );
        // hello_world's fully-connected layers round twice here and once in TFLite: a
        // byte may differ by 1 (sim/tests/oracle.rs); micro_speech is bit-exact.
        let differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        println!(
            "| {model} | {:.1} | {:.1} | {:.1}x | {:.1} | {:.1}x | {} | {} | {} B |",
            ref_secs * 1e6 / SETS as f64,
            session_secs * 1e6 / SETS as f64,
            session_secs / ref_secs,
            sim_secs * 1e6 / SETS as f64,
            sim_secs / ref_secs,
            peak.map_or_else(|| "n/a (not Linux)".into(), |k| format!("{k} KiB")),
            session_peak.map_or_else(|| "n/a (not Linux)".into(), |k| format!("{k} KiB")),
            packed.bytes.len(),
        );
        eprintln!(
            "{model}: {differ} of {} output bytes differ from TFLite",
            want.len()
        );
    }
}
