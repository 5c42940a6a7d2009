//! The weight decoder ([`npuschema_sim::mlw`]) held to Vela's own decoder,
//! `ethosu.mlw_codec.decode` (run through `.venv-vela/bin/python`), on every weight stream
//! every `NPU_OP_CONV` / `NPU_OP_DEPTHWISE` of every Vela output in `vela-out/` reads.
//! Skips, saying so, when `vela-out/` or the venv is missing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use npuschema_cli::pack::load;
use npuschema_runtime::cmd::{Opcode, StreamState, decode};
use npuschema_sim::mlw::{Decoder, MlwErrorKind};
use npuschema_tests::vela::{out_dir as vela_out, outputs};

fn python() -> Option<std::path::PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv-vela/bin/python");
    if p.is_file() {
        Some(p)
    } else {
        eprintln!(
            "skipping: {} not found (run scripts/setup-vela)",
            p.display()
        );
        None
    }
}

/// Every distinct weight stream the conv/depthwise operations of every Vela output read
/// (from the read-only region, where Vela places them).
fn weight_streams(dir: &Path) -> Vec<Vec<u8>> {
    let mut set = BTreeSet::new();
    for path in outputs(dir) {
        let model = load(&path).unwrap();
        let mut state = StreamState::new();
        for cmd in decode(&model.cmd_stream) {
            let cmd = cmd.unwrap();
            if state.apply(&cmd).is_some()
                && matches!(cmd.opcode(), Some(Opcode::OpConv | Opcode::OpDepthwise))
            {
                let region = state.param(Opcode::SetWeightRegion) & 7;
                let base = state.payload(Opcode::SetWeightBase) as usize;
                let len = state.payload(Opcode::SetWeightLength) as usize;
                assert_eq!(region, 0, "{}: weights outside region 0", path.display());
                set.insert(model.readonly[base..base + len].to_vec());
            }
        }
    }
    set.into_iter().collect()
}

#[test]
fn the_decoder_matches_mlw_codec_on_every_vela_weight_stream() {
    let (Some(dir), Some(py)) = (vela_out(), python()) else {
        return;
    };
    let streams = weight_streams(&dir);
    assert!(streams.len() >= 4, "only {} weight streams", streams.len());
    let tmp = std::env::temp_dir().join(format!("npuschema-mlw-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (inp, out) = (tmp.join("streams.bin"), tmp.join("decoded.bin"));
    let mut buf = Vec::new();
    for s in &streams {
        buf.extend_from_slice(&(s.len() as u32).to_le_bytes());
        buf.extend_from_slice(s);
    }
    std::fs::write(&inp, &buf).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/mlw_reference.py");
    let status = Command::new(&py)
        .arg(&script)
        .arg(&inp)
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "mlw_reference.py failed");
    let reference = std::fs::read(&out).unwrap();
    std::fs::remove_dir_all(&tmp).ok();

    let mut pos = 0;
    let mut values = 0;
    for (i, s) in streams.iter().enumerate() {
        let n = u32::from_le_bytes(reference[pos..pos + 4].try_into().unwrap()) as usize;
        pos += 4;
        let want: Vec<i16> = reference[pos..pos + 2 * n]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        pos += 2 * n;
        let got: Vec<i16> = Decoder::new(s).collect::<Result<_, _>>().unwrap();
        assert_eq!(got, want, "stream {i} ({} bytes)", s.len());
        values += n;
    }
    assert_eq!(pos, reference.len());
    eprintln!("{} streams, {values} weights: identical", streams.len());
}

#[test]
fn a_cut_or_damaged_stream_gets_a_specific_error_never_a_panic() {
    let Some(dir) = vela_out() else { return };
    let streams = weight_streams(&dir);
    let mut errors = 0;
    for s in &streams {
        // Every cut: the values produced are a prefix of the whole, then an error or the end.
        let whole: Vec<i16> = Decoder::new(s).collect::<Result<_, _>>().unwrap();
        // Every cut of a short stream, 97 spread over a long one.
        let step = (s.len() / 97).max(1);
        for cut in (0..s.len()).step_by(step) {
            let mut got = Vec::new();
            for v in Decoder::new(&s[..cut]) {
                match v {
                    Ok(v) => got.push(v),
                    Err(e) => {
                        assert!(e.bit <= 8 * cut as u64);
                        errors += 1;
                        break;
                    }
                }
            }
            assert!(whole.starts_with(&got));
        }
        // Flipped bytes: whatever comes out, bounded by the stream's bits.
        for at in (0..s.len()).step_by(step).take(32) {
            let mut d = s.clone();
            d[at] ^= 0xa5;
            let n = Decoder::new(&d).take(1 << 22).count();
            assert!(n < 1 << 22, "unbounded output");
        }
    }
    assert!(errors > 0);
    // A reserved ZDIV right at the start.
    let e = Decoder::new(&[0x05, 0, 0, 0]).next().unwrap().unwrap_err();
    assert_eq!(e.kind, MlwErrorKind::BadZeroDivisor(5));
}
