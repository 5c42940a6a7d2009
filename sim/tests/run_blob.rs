//! `run_blob` end to end on hand-built NPU1 blobs: validate, bind, run through the driver
//! on the simulator (polling and interrupt), report.
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};
use npuschema_runtime::binder::RegionKind;
use npuschema_runtime::cmd::JobCheckError;
use npuschema_sim::{Faults, RunError, RunOptions, run_blob};

fn word(code: u16, param: u16) -> [u8; 4] {
    (u32::from(code) | (u32::from(param) << 16)).to_le_bytes()
}

/// DMA `len` bytes from region `src` offset 0 to region `dst` offset `dst_off`, then stop.
fn dma_stream(src: u16, dst: u16, dst_off: u32, len: u32) -> Vec<u8> {
    let mut s = Vec::new();
    s.extend(word(0x130, src));
    s.extend(word(0x131, dst));
    for (code, payload) in [(0x4030u16, 0u32), (0x4031, dst_off), (0x4032, len)] {
        s.extend(word(code, 0));
        s.extend(payload.to_le_bytes());
    }
    s.extend(word(0x010, 0)); // NPU_OP_DMA_START
    s.extend(word(0x011, 0)); // NPU_OP_DMA_WAIT
    s.extend(word(0x000, 0xFFFF)); // NPU_OP_STOP
    s
}

fn weights() -> Vec<u8> {
    (0..96u8).map(|i| i.wrapping_mul(13) ^ 0x5A).collect()
}

/// Region 0 baked weights (96 bytes), region 1 runtime scratch (256 bytes).
fn copy_blob(accel: Accel, len: u32) -> Vec<u8> {
    let w = weights();
    let regions = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&w),
        },
        RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(256),
        },
    ];
    let stream = dma_stream(0, 1, 32, len);
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(accel)
        .regions(&regions)
        .cmd_stream(&stream)
        .to_vec()
        .unwrap()
}

#[test]
fn polling_and_interrupt_runs_copy_the_weights_at_every_arena_alignment() {
    let blob = copy_blob(Accel::Macs128, 96);
    for interrupt in [false, true] {
        for misalign in 0..16 {
            let opts = RunOptions {
                interrupt,
                arena_misalign: misalign,
                ..RunOptions::default()
            };
            let report = run_blob(&blob, &opts).unwrap();
            assert!(report.succeeded(), "{}", report.to_text());
            assert_eq!(report.interrupt, interrupt);
            let (index, out) = &report.outputs[0];
            assert_eq!(*index, 1);
            assert_eq!(&out[32..128], &weights()[..], "misalign {misalign}");
            assert!(out[..32].iter().all(|&b| b == 0));
            assert_eq!(report.arena_needed.aligned_start, 256);
            assert_eq!(report.arena_needed.any_start, 271);
            assert_eq!(report.arena_used, 256 + (16 - misalign) % 16);
            let rec = report.record.as_ref().unwrap();
            assert_eq!(rec.dma_bytes, 96);
            assert_eq!(report.regions[0].read_extent, 96);
            assert_eq!(report.regions[1].write_extent, 128);
            assert_eq!(report.regions[0].bound.kind, RegionKind::Baked);
            assert_eq!(report.regions[1].role_name, Some("scratch"));
            if interrupt {
                assert_eq!(report.stats.irqs_delivered, 1);
            } else {
                assert_eq!(report.stats.irqs_delivered, 0);
            }
        }
    }
}

#[test]
fn inputs_are_written_before_the_run() {
    let regions = [
        RegionSpec {
            role: Role::Input,
            data: RegionData::Runtime(40),
        },
        RegionSpec {
            role: Role::Output,
            data: RegionData::Runtime(40),
        },
    ];
    let stream = dma_stream(0, 1, 0, 40);
    let blob = Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .regions(&regions)
        .cmd_stream(&stream)
        .to_vec()
        .unwrap();
    let input: Vec<u8> = (100..140).collect();
    let opts = RunOptions {
        inputs: vec![(0, input.clone())],
        ..RunOptions::default()
    };
    let report = run_blob(&blob, &opts).unwrap();
    assert!(report.succeeded(), "{}", report.to_text());
    assert_eq!(report.accel_macs, 0);
    assert_eq!(
        report.hw.config.macs(),
        128,
        "unspecified accel runs on a 128-MAC NPU"
    );
    assert_eq!(report.outputs[1], (1, input));

    let bad = RunOptions {
        inputs: vec![(1, vec![0; 41])],
        ..RunOptions::default()
    };
    assert_eq!(run_blob(&blob, &bad).unwrap_err().code(), "bad-input");
}

#[test]
fn a_256_mac_blob_runs_on_a_256_mac_npu_and_not_on_a_128() {
    let blob = copy_blob(Accel::Macs256, 16);
    let report = run_blob(&blob, &RunOptions::default()).unwrap();
    assert!(report.succeeded());
    assert_eq!(report.hw.config.macs(), 256);

    let opts = RunOptions {
        macs: Some(128),
        ..RunOptions::default()
    };
    let report = run_blob(&blob, &opts).unwrap();
    assert_eq!(report.outcome.unwrap_err().code, "config-mismatch");
    assert!(report.record.is_none(), "nothing ran");
    assert!(
        report
            .to_text()
            .contains("result: FAILED (polling): config-mismatch")
    );
}

#[test]
fn an_out_of_bounds_dma_is_refused_by_the_stream_check() {
    // 300 bytes do not fit the 96-byte weights region: the driver runs only a checked
    // stream, so the run never starts (the simulated NPU's bus fault for such a stream is
    // tested in runtime/tests/driver_sim.rs, through CheckedJob::vouched).
    let blob = copy_blob(Accel::Macs128, 300);
    let e = run_blob(&blob, &RunOptions::default()).unwrap_err();
    assert_eq!(e.code(), "region-overflow");
    match e {
        RunError::Check(JobCheckError::Finding { first, .. }) => {
            assert_eq!(first.region, 0);
            assert_eq!(first.len, 300);
            assert_eq!(first.size, Some(96));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn injected_faults_surface_with_their_codes() {
    let blob = copy_blob(Accel::Macs128, 16);
    let cases = [
        (
            Faults {
                ecc_fault: true,
                ..Faults::default()
            },
            "ecc-fault",
        ),
        (
            Faults {
                watchdog_fault: true,
                ..Faults::default()
            },
            "watchdog-fault",
        ),
        (
            Faults {
                hang: true,
                ..Faults::default()
            },
            "npu-timeout",
        ),
    ];
    for interrupt in [false, true] {
        for (faults, code) in cases {
            let opts = RunOptions {
                faults,
                interrupt,
                run_timeout: 500,
                ..RunOptions::default()
            };
            let report = run_blob(&blob, &opts).unwrap();
            assert_eq!(
                report.outcome.unwrap_err().code,
                code,
                "interrupt {interrupt}"
            );
        }
    }
    let opts = RunOptions {
        faults: Faults {
            product: Some(2),
            ..Faults::default()
        },
        ..RunOptions::default()
    };
    assert_eq!(run_blob(&blob, &opts).unwrap_err().code(), "not-u55");
}

#[test]
fn invalid_and_unbindable_blobs_are_run_errors() {
    let mut blob = copy_blob(Accel::Macs128, 16);
    blob[0] ^= 1;
    let e = run_blob(&blob, &RunOptions::default()).unwrap_err();
    assert!(matches!(e, RunError::Invalid(_)));
    assert_eq!(e.code(), "bad-magic");

    let regions: Vec<_> = (0..9)
        .map(|_| RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(16),
        })
        .collect();
    let stream = dma_stream(0, 1, 0, 16);
    let blob = Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .regions(&regions)
        .cmd_stream(&stream)
        .to_vec()
        .unwrap();
    let e = run_blob(&blob, &RunOptions::default()).unwrap_err();
    assert!(matches!(e, RunError::Bind(_)));
    assert_eq!(e.code(), "too-many-regions");
    assert!(
        e.to_string()
            .starts_with("cannot bind: too-many-regions: header.region_count at 0xc")
    );
}

#[test]
fn the_pmu_profiles_a_run_and_a_spurious_interrupt_is_ignored() {
    use npuschema_runtime::driver::{PmuConfig, PmuEvent};
    let blob = copy_blob(Accel::Macs128, 96);
    let cfg = PmuConfig {
        events: [
            PmuEvent::NPU_ACTIVE,
            PmuEvent::AXI1_RD_TRANS_ACCEPTED,
            PmuEvent::NO_EVENT,
            PmuEvent::NO_EVENT,
        ],
        cycle_start: PmuEvent::NPU_ACTIVE,
        cycle_stop: PmuEvent::NPU_IDLE,
    };
    for interrupt in [false, true] {
        let opts = RunOptions {
            interrupt,
            run_latency: 9,
            pmu: Some(cfg),
            faults: Faults {
                spurious_irq: interrupt,
                ..Faults::default()
            },
            ..RunOptions::default()
        };
        let report = run_blob(&blob, &opts).unwrap();
        assert!(report.succeeded(), "{}", report.to_text());
        let pmu = report.pmu.unwrap();
        assert_eq!(pmu.cycles, 9, "the run's ticks");
        assert_eq!(pmu.events[0], 9);
        assert!(pmu.events[1] >= 1, "at least the command fetch");
        assert!(
            report.to_text().contains(&format!(
                "pmu: 9 cycles, events [NPU_ACTIVE 9, AXI1_RD_TRANS_ACCEPTED {}, NO_EVENT 0, NO_EVENT 0]",
                pmu.events[1]
            )),
            "event names in the report: {}",
            report.to_text()
        );
        assert_eq!(
            report.stats.resets, 2,
            "init and the PMU's power request only"
        );
    }
}
