//! Real Vela 5.2.0 outputs (`<repo>/vela-out/`, made by `scripts/setup-vela` from the models
//! in `$NPUSCHEMA_CORPUS/models`), packed to NPU1 in memory with `npuschema pack`'s library,
//! run on the simulator through the driver by polling and by interrupt, with the arena at
//! an aligned and at an odd address. When `vela-out/` is missing the test prints
//! "skipping: ..." and returns.
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use npuschema_cli::pack::{AccelChoice, load, pack_model};
use npuschema_runtime::binder::RegionKind;
use npuschema_runtime::cmd::{AccessKind, Opcode, StreamState, decode};
use npuschema_sim::{
    KEPT_WEIGHT_BYTES_PER_STREAM_BYTE, KeptBytes, Place, RunOptions, RunReport, run_blob,
    run_with_io, with_session,
};
use npuschema_tests::vela::{out_dir as vela_out, outputs};

fn runtime_digests(r: &RunReport) -> Vec<(u8, u32)> {
    r.regions
        .iter()
        .filter(|x| x.bound.kind == RegionKind::Runtime)
        .map(|x| (x.bound.index, x.fnv1a))
        .collect()
}

#[test]
fn every_vela_output_runs_on_the_simulator() {
    let Some(dir) = vela_out() else { return };
    let files = outputs(&dir);
    assert!(!files.is_empty(), "vela-out has no outputs");
    let mut total_ops = 0;
    for path in &files {
        let model = load(path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let packed = pack_model(&model, AccelChoice::Auto).unwrap();
        let blob = &packed.bytes;

        // Commands up to and including NPU_OP_STOP, from the decoder.
        let stream_cmds = decode(&model.cmd_stream)
            .map(Result::unwrap)
            .position(|c| c.opcode() == Some(Opcode::OpStop))
            .map(|i| i as u64 + 1)
            .unwrap();

        let poll = run_blob(blob, &RunOptions::default()).unwrap();
        assert!(poll.succeeded(), "{}:\n{}", path.display(), poll.to_text());
        let rec = poll.record.as_ref().unwrap();
        assert_eq!(rec.commands, stream_cmds, "{}", path.display());
        assert!(rec.operations > 0);
        assert_eq!(
            poll.hw.config.macs(),
            poll.accel_macs,
            "the sim matches the blob's accel"
        );
        for r in &poll.regions {
            assert!(
                r.read_extent <= r.bound.size,
                "{}: region {}",
                path.display(),
                r.bound.index
            );
            assert!(
                r.write_extent <= r.bound.size,
                "{}: region {}",
                path.display(),
                r.bound.index
            );
            assert_eq!(r.bound.npu_address % 16, 0);
        }
        total_ops += rec.operations;

        // Same result through the interrupt path and from an arena at an odd address.
        let irq = run_blob(
            blob,
            &RunOptions {
                interrupt: true,
                ..RunOptions::default()
            },
        )
        .unwrap();
        assert!(irq.succeeded(), "{}:\n{}", path.display(), irq.to_text());
        assert_eq!(irq.stats.irqs_delivered, 1);
        let odd = run_blob(
            blob,
            &RunOptions {
                arena_misalign: 1,
                ..RunOptions::default()
            },
        )
        .unwrap();
        assert!(odd.succeeded());
        assert_eq!(
            runtime_digests(&poll),
            runtime_digests(&irq),
            "{}",
            path.display()
        );
        assert_eq!(
            runtime_digests(&poll),
            runtime_digests(&odd),
            "{}",
            path.display()
        );
        assert_eq!(
            poll.record.as_ref().unwrap().dma_bytes,
            odd.record.as_ref().unwrap().dma_bytes
        );

        eprintln!(
            "{}: {} commands, {} operations, {} DMA bytes, arena {} bytes",
            path.strip_prefix(&dir).unwrap().display(),
            rec.commands,
            rec.operations,
            rec.dma_bytes,
            poll.arena_used
        );
    }
    assert!(total_ops > 0);
}

/// A [`with_session`] run many times gives, input for input, what one-shot [`run_with_io`]
/// gives (the session keeps no state between inferences that changes outputs), on every
/// Vela output, with seeded inputs in changing order.
#[test]
fn a_session_infers_as_one_shot_runs_do() {
    let Some(dir) = vela_out() else { return };
    let files = outputs(&dir);
    assert!(!files.is_empty(), "vela-out has no outputs");
    let mut x = 0x1234_5678_9abc_def1u64;
    for path in &files {
        let model = load(path).unwrap();
        let packed = pack_model(&model, AccelChoice::Auto).unwrap();
        let r = &packed.report;
        let sets: Vec<Vec<Vec<u8>>> = (0..6)
            .map(|_| {
                r.inputs
                    .iter()
                    .map(|t| {
                        (0..t.bytes().unwrap())
                            .map(|_| {
                                x ^= x << 13;
                                x ^= x >> 7;
                                x ^= x << 17;
                                (x >> 56) as u8
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let places: Vec<Place> = r
            .outputs
            .iter()
            .map(|t| (t.region as usize, t.offset, t.bytes().unwrap()))
            .collect();
        let inputs = |set: &[Vec<u8>]| -> Vec<(usize, u64, Vec<u8>)> {
            r.inputs
                .iter()
                .zip(set)
                .map(|(t, b)| (t.region as usize, t.offset, b.clone()))
                .collect()
        };
        let one_shot: Vec<Vec<Vec<u8>>> = sets
            .iter()
            .map(|set| {
                let ins = inputs(set);
                let ins: Vec<(usize, u64, &[u8])> =
                    ins.iter().map(|(a, b, c)| (*a, *b, c.as_slice())).collect();
                let (run, out) =
                    run_with_io(&packed.bytes, &RunOptions::default(), &ins, &places).unwrap();
                assert!(run.succeeded(), "{}", path.display());
                out
            })
            .collect();
        // Forward, then backward, then forward again: 18 inferences in one session.
        let order: Vec<usize> = (0..6).chain((0..6).rev()).chain(0..6).collect();
        with_session(&packed.bytes, &RunOptions::default(), |s| {
            let mut logged = None;
            for &k in &order {
                let ins = inputs(&sets[k]);
                let ins: Vec<(usize, u64, &[u8])> =
                    ins.iter().map(|(a, b, c)| (*a, *b, c.as_slice())).collect();
                let inf = s.infer(&ins, &places).unwrap();
                assert!(inf.outcome.is_ok(), "{}", path.display());
                assert!(!inf.outputs.is_empty());
                assert_eq!(inf.outputs, one_shot[k], "{} input {k}", path.display());
                // Each inference's register writes, not all of them so far: the same
                // number every time (a session does not grow).
                let n = s.sim().write_log().len();
                assert!(n > 0);
                assert_eq!(*logged.get_or_insert(n), n, "{}", path.display());
            }
        })
        .unwrap();
        // The outputs depend on the inputs (else the comparison shows nothing).
        assert!(
            one_shot.windows(2).any(|w| w[0] != w[1]),
            "{}: every input gave the same outputs",
            path.display()
        );
    }
}

/// `set`'s inputs as `infer` and `run_with_io` take them.
fn refs(set: &[(usize, u64, Vec<u8>)]) -> Vec<(usize, u64, &[u8])> {
    set.iter().map(|(a, b, c)| (*a, *b, c.as_slice())).collect()
}

/// The distinct weight streams `(region, offset, length)` the operations of `stream` read,
/// from the stream's decoding: their bytes, and how many.
fn weight_streams(stream: &[u8]) -> (u64, u64) {
    let mut state = StreamState::new();
    let mut seen = std::collections::BTreeSet::new();
    for c in decode(stream) {
        if let Some(op) = state.apply(&c.unwrap()) {
            for a in op.accesses() {
                if a.kind == AccessKind::Weights && !a.shram {
                    seen.insert((a.region, a.start, a.len));
                }
            }
        }
    }
    (seen.iter().map(|w| w.2).sum(), seen.len() as u64)
}

/// A one-shot run keeps no decoding (its memory is the bound regions, SHRAM and the
/// simulator's fixed-size state); a session keeps the stream's and the weight streams'
/// decodings within the bounds its documentation states (the stream's: its bytes plus
/// `STEP_BYTES` a command and `OPERATION_BYTES` an operation; the weights':
/// `KEPT_WEIGHT_BYTES_PER_STREAM_BYTE` per byte of the weight streams its operations
/// read), and computes with them what one-shot runs (decoding every weight stream on
/// every pass) compute, with the same work counted: on every Vela output and
/// configuration.
#[test]
fn one_shot_runs_keep_nothing_and_a_sessions_decodings_are_bounded() {
    let Some(dir) = vela_out() else { return };
    let files = outputs(&dir);
    assert!(!files.is_empty(), "vela-out has no outputs");
    let mut x = 0x0dd_ba11_cafe_f00du64;
    for path in &files {
        let model = load(path).unwrap();
        let packed = pack_model(&model, AccelChoice::Auto).unwrap();
        let r = &packed.report;
        let places: Vec<Place> = r
            .outputs
            .iter()
            .map(|t| (t.region as usize, t.offset, t.bytes().unwrap()))
            .collect();
        let sets: Vec<Vec<(usize, u64, Vec<u8>)>> = (0..3)
            .map(|_| {
                r.inputs
                    .iter()
                    .map(|t| {
                        let b = (0..t.bytes().unwrap())
                            .map(|_| {
                                x ^= x << 13;
                                x ^= x >> 7;
                                x ^= x << 17;
                                (x >> 56) as u8
                            })
                            .collect();
                        (t.region as usize, t.offset, b)
                    })
                    .collect()
            })
            .collect();
        let one_shot: Vec<_> = sets
            .iter()
            .map(|set| {
                let (run, out) =
                    run_with_io(&packed.bytes, &RunOptions::default(), &refs(set), &places)
                        .unwrap();
                assert!(run.succeeded(), "{}", path.display());
                assert!(!out.is_empty(), "{}", path.display());
                assert_eq!(run.kept, KeptBytes::default(), "{}: kept", path.display());
                (out, run.record.unwrap())
            })
            .collect();
        // The bounds, from the stream's bytes.
        let stream_len = model.cmd_stream.len() as u64;
        let commands = decode(&model.cmd_stream).count() as u64;
        let (weight_bytes, streams) = weight_streams(&model.cmd_stream);
        assert!(weight_bytes > 0, "{}: no weight streams", path.display());
        let kept = with_session(&packed.bytes, &RunOptions::default(), |s| {
            // Twice over the inputs: the second time with every decoding kept.
            for _ in 0..2 {
                for (set, (out, rec)) in sets.iter().zip(&one_shot) {
                    let inf = s.infer(&refs(set), &places).unwrap();
                    assert!(inf.outcome.is_ok(), "{}", path.display());
                    assert_eq!(&inf.outputs, out, "{}", path.display());
                    let got = inf.record.unwrap();
                    assert_eq!(got.work, rec.work, "{}", path.display());
                    assert_eq!(got.computed, rec.computed);
                }
            }
            s.sim().kept()
        })
        .unwrap();
        let ops = one_shot[0].1.operations;
        assert_eq!(kept.commands, commands, "{}", path.display());
        assert_eq!(kept.operations, ops, "{}", path.display());
        let stream_bound = stream_len
            + commands * KeptBytes::STEP_BYTES as u64
            + ops * KeptBytes::OPERATION_BYTES as u64;
        // On top, the decoding's own fields: a few dozen bytes.
        let fields = KeptBytes::stream_bound(0, 0, 0);
        assert!(fields < 256);
        assert_eq!(
            KeptBytes::stream_bound(stream_len, commands, ops),
            stream_bound + fields
        );
        assert!(
            kept.stream > stream_len && kept.stream <= stream_bound + fields,
            "{}: {kept:?}, bound {stream_bound}",
            path.display()
        );
        assert_eq!(
            (kept.weight_stream_bytes, kept.weight_streams),
            (weight_bytes, streams),
            "{}",
            path.display()
        );
        assert_eq!(
            kept.weights_limit,
            (weight_bytes * KEPT_WEIGHT_BYTES_PER_STREAM_BYTE
                + streams * KeptBytes::WEIGHT_ENTRY_BYTES as u64)
                .min(64 << 20)
        );
        assert!(
            kept.weights > 0 && kept.weights <= kept.weights_limit,
            "{}: {kept:?}",
            path.display()
        );
        eprintln!(
            "{}: kept {} B: stream {} B ({} commands, {} operations, {} B of stream), weights {} B ({:.2} per byte of {} B in {} weight streams; limit {} B)",
            path.strip_prefix(&dir).unwrap().display(),
            kept.total(),
            kept.stream,
            kept.commands,
            kept.operations,
            stream_len,
            kept.weights,
            kept.weights as f64 / weight_bytes as f64,
            weight_bytes,
            streams,
            kept.weights_limit,
        );
    }
}
