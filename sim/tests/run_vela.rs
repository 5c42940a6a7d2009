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
use npuschema_sim::{RunOptions, RunReport, run_blob};
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
