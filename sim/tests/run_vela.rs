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
use npuschema_runtime::cmd::{Opcode, decode};
use npuschema_sim::{Place, RunOptions, RunReport, run_blob, run_with_io, with_session};
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

/// Kept weight decodings (the default with `std`) compute what decoding every stream on
/// every pass computes (the `no_std` build's way, `keep_weights: false`), on every Vela
/// output and configuration, with the same work counted.
#[test]
fn kept_weight_decodings_compute_what_decoding_every_pass_does() {
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
        for _ in 0..3 {
            let ins: Vec<(usize, u64, Vec<u8>)> = r
                .inputs
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
                .collect();
            let ins: Vec<(usize, u64, &[u8])> =
                ins.iter().map(|(a, b, c)| (*a, *b, c.as_slice())).collect();
            let every_pass = RunOptions {
                keep_weights: false,
                ..RunOptions::default()
            };
            let (a, out_a) =
                run_with_io(&packed.bytes, &RunOptions::default(), &ins, &places).unwrap();
            let (b, out_b) = run_with_io(&packed.bytes, &every_pass, &ins, &places).unwrap();
            assert!(a.succeeded() && b.succeeded(), "{}", path.display());
            assert!(!out_a.is_empty(), "{}", path.display());
            assert_eq!(out_a, out_b, "{}", path.display());
            assert_eq!(runtime_digests(&a), runtime_digests(&b));
            let (ra, rb) = (a.record.unwrap(), b.record.unwrap());
            assert_eq!(ra.work, rb.work, "{}", path.display());
            assert_eq!(ra.computed, rb.computed);
        }
    }
}
