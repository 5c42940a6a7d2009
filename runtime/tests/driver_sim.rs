//! The Ethos-U55 driver against the simulated NPU: success by polling and by interrupt,
//! and one test per fault path, each asserting the exact error code.
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::rc::Rc;

use npuschema_runtime::binder::{Identity, Job, RegionKind, RegionSource, RegionSpec};
use npuschema_runtime::cmd::CheckedJob;
use npuschema_runtime::driver::regs::{self, AXI_LIMIT_DEFAULT, CMD, QSIZE, RESET};
use npuschema_runtime::driver::{Driver, DriverDetail, DriverOptions, IrqLatch, NoCache, Status};
use npuschema_sim::{BusFault, Faults, Sim, SimConfig, channel};

/// `job`, its stream checked against its regions (as firmware runs it).
fn checked<'b, 'a>(job: Job<'b, 'a>) -> CheckedJob<'b, 'a> {
    match CheckedJob::check(job) {
        Ok(c) => c,
        Err(r) => panic!("the test's stream fails the check: {}", r.error),
    }
}

/// `job` with a stream that fails the check on purpose, to see what the simulated NPU and
/// the driver do with it.
#[allow(unsafe_code)]
fn vouched<'b, 'a>(job: Job<'b, 'a>) -> CheckedJob<'b, 'a> {
    // SAFETY: only ever run on the simulated NPU (`npuschema_sim::Sim`), which reads and
    // writes its own copies of the bound regions and reports an access outside them as a
    // bus fault: the stream cannot reach the test's memory.
    unsafe { CheckedJob::vouched(job) }
}

// ---- stream building ----------------------------------------------------------------

const OP_STOP: u16 = 0x000;
const OP_DMA_START: u16 = 0x010;
const OP_DMA_WAIT: u16 = 0x011;
const SET_DMA0_SRC_REGION: u16 = 0x130;
const SET_DMA0_DST_REGION: u16 = 0x131;
const SET_DMA0_SRC: u16 = 0x4030;
const SET_DMA0_DST: u16 = 0x4031;
const SET_DMA0_LEN: u16 = 0x4032;

#[derive(Default)]
struct Stream(Vec<u8>);

impl Stream {
    fn cmd0(mut self, code: u16, param: u16) -> Self {
        self.0
            .extend_from_slice(&(u32::from(code) | (u32::from(param) << 16)).to_le_bytes());
        self
    }
    fn cmd1(mut self, code: u16, param: u16, payload: u32) -> Self {
        self = self.cmd0(code, param);
        self.0.extend_from_slice(&payload.to_le_bytes());
        self
    }
    fn offset(&self) -> u32 {
        self.0.len() as u32
    }
    /// DMA `len` bytes from `src_region + src` to `dst_region + dst`.
    fn dma(self, src_region: u16, src: u32, dst_region: u16, dst: u32, len: u32) -> Self {
        self.cmd0(SET_DMA0_SRC_REGION, src_region)
            .cmd0(SET_DMA0_DST_REGION, dst_region)
            .cmd1(SET_DMA0_SRC, 0, src)
            .cmd1(SET_DMA0_DST, 0, dst)
            .cmd1(SET_DMA0_LEN, 0, len)
            .cmd0(OP_DMA_START, 0)
            .cmd0(OP_DMA_WAIT, 0)
    }
    fn stop(self) -> Self {
        self.cmd0(OP_STOP, 0xFFFF)
    }
}

/// 16-byte aligned storage standing in for a blob in flash.
#[repr(C, align(16))]
struct Aligned<const N: usize>([u8; N]);

impl<const N: usize> Aligned<N> {
    fn with(prefix: &[u8]) -> Box<Self> {
        let mut a = Box::new(Aligned([0u8; N]));
        a.0[..prefix.len()].copy_from_slice(prefix);
        a
    }
}

fn pattern(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(7).wrapping_add(3))
        .collect()
}

/// The usual test layout: region 0 baked weights (64 bytes), region 1 runtime 128 bytes.
struct Fixture {
    cmd: Box<Aligned<256>>,
    cmd_len: usize,
    weights: Box<Aligned<64>>,
    arena: Vec<u8>,
    accel: u32,
    runtime_size: u64,
}

impl Fixture {
    fn new(stream: Stream) -> Self {
        assert!(stream.0.len() <= 256);
        Self {
            cmd_len: stream.0.len(),
            cmd: Aligned::with(&stream.0),
            weights: Aligned::with(&pattern(64)),
            arena: vec![0u8; 512],
            accel: 128,
            runtime_size: 128,
        }
    }

    /// A fixture that lives for the rest of the test program, for a `Job<'static, 'static>`.
    fn leak(self) -> &'static mut Self {
        Box::leak(Box::new(self))
    }

    fn job(&mut self) -> CheckedJob<'_, '_> {
        checked(self.raw_job())
    }

    /// The job with a stream that fails the check on purpose.
    fn job_vouched(&mut self) -> CheckedJob<'_, '_> {
        vouched(self.raw_job())
    }

    fn raw_job(&mut self) -> Job<'_, '_> {
        let regions = [
            RegionSpec {
                role: 0,
                source: RegionSource::Baked(&self.weights.0),
            },
            RegionSpec {
                role: 1,
                source: RegionSource::Runtime(self.runtime_size),
            },
        ];
        Job::bind_parts(
            &self.cmd.0[..self.cmd_len],
            self.accel,
            regions,
            &mut self.arena,
            &Identity,
        )
        .expect("test layout binds")
    }
}

/// The copy stream: 64 weight bytes to offset 16 of region 1.
fn copy_stream() -> Stream {
    Stream::default().dma(0, 0, 1, 16, 64).stop()
}

/// Arm's defaults, with 64-bit bus addresses: the simulator's bus addresses are the host's.
fn host_opts() -> DriverOptions {
    DriverOptions {
        address_bits: 64,
        ..DriverOptions::default()
    }
}

fn sim_driver(cfg: SimConfig) -> (Sim, Driver<Sim, Sim>) {
    let sim = Sim::new(cfg);
    let driver = Driver::new(sim.clone(), sim.clone(), host_opts());
    (sim, driver)
}

// ---- success ------------------------------------------------------------------------

#[test]
fn polling_run_copies_weights_into_the_arena_and_programs_the_registers() {
    let mut fx = Fixture::new(copy_stream());
    let (sim, mut driver) = sim_driver(SimConfig::default());
    let hw = driver.init().expect("init");
    assert_eq!(hw.config.macs(), 128);
    let mut job = fx.job();
    sim.bind_job(&job);
    let info = driver.run(&mut job).expect("run succeeds");
    assert!(info.status.cmd_end_reached());
    // 3 ticks: poll (tick), idle (tick), poll (tick: done).
    assert_eq!(info.polls, 2, "{info:?}");

    // The NPU's output reached the CPU's view of the arena (clean + invalidate worked).
    let out = job.region_bytes(1).unwrap();
    assert_eq!(&out[16..80], &pattern(64)[..]);
    assert!(out[..16].iter().all(|&b| b == 0));

    // Register programming.
    let r0 = job.region(0).unwrap();
    let r1 = job.region(1).unwrap();
    assert_eq!(r0.kind, RegionKind::Baked);
    assert_eq!(sim.basep(0), r0.npu_address);
    assert_eq!(sim.basep(1), r1.npu_address);
    assert_eq!(sim.basep(2), 0, "unbound slots are zeroed");
    assert_eq!(sim.axi_limits(), [AXI_LIMIT_DEFAULT; 4]);
    assert_eq!(sim.regioncfg(), 0b01_01_01_01_01_01_00_11);
    assert_eq!(sim.qconfig(), 2);
    let log = sim.write_log();
    assert_eq!(log.first(), Some(&(RESET, 1)), "privileged + secure reset");
    assert!(log.contains(&(QSIZE, copy_stream().offset())));
    assert_eq!(
        &log[log.len() - 2..],
        &[(CMD, 0b10), (CMD, 0b1100)],
        "the IRQ is cleared, then the power request released (Q-channels enabled again)"
    );
    let run_at = log
        .iter()
        .position(|&w| w == (CMD, 1))
        .expect("CMD run written");
    let basep_at = log
        .iter()
        .position(|&(o, _)| o == regs::basep_lo(1))
        .unwrap();
    assert!(basep_at < run_at, "BASEP before CMD run");

    let stats = sim.stats();
    assert_eq!(stats.runs, 1);
    assert_eq!(stats.cleans, 3, "command stream and both regions");
    assert_eq!(stats.invalidates, 1, "the one runtime region");
    let rec = sim.last_run().unwrap();
    assert_eq!(rec.dma_bytes, 64);
    assert_eq!(rec.write_extent[1], 80);
    assert_eq!(info.qread, copy_stream().offset() - 4, "QREAD at the STOP");
}

#[test]
fn interrupt_run_completes_through_the_latch() {
    let mut fx = Fixture::new(copy_stream());
    let (sim, mut driver) = sim_driver(SimConfig::default());
    driver.init().unwrap();
    let latch = Rc::new(IrqLatch::new());
    let isr_latch = Rc::clone(&latch);
    sim.set_irq_handler(move |regs| {
        isr_latch.on_irq(regs);
    });
    let mut job = fx.job();
    sim.bind_job(&job);
    let info = driver
        .run_irq(&mut job, &mut latch.claim().unwrap())
        .expect("irq run succeeds");
    assert!(
        latch.last().0.irq_raised(),
        "the latch holds STATUS as the ISR read it"
    );
    assert!(
        !info.status.irq_raised() && info.status.cmd_end_reached(),
        "the driver's own STATUS, read after the ISR cleared the IRQ"
    );
    assert_eq!(latch.count(), 1);
    assert!(!latch.is_pending(), "consumed by the driver");
    assert_eq!(sim.stats().irqs_delivered, 1);
    assert!(sim.stats().sleeps >= 2, "the driver slept while waiting");
    assert!(
        !Status(sim.peek_status()).irq_raised(),
        "the ISR cleared the IRQ"
    );
    assert_eq!(&job.region_bytes(1).unwrap()[16..80], &pattern(64)[..]);
}

#[test]
#[cfg_attr(miri, ignore = "leaks its 'static job on purpose, which Miri reports")]
fn interrupt_raised_inside_the_start_write_is_not_lost() {
    let fx = Fixture::new(copy_stream()).leak();
    let (sim, mut driver) = sim_driver(SimConfig {
        run_latency: 0,
        ..SimConfig::default()
    });
    driver.init().unwrap();
    let latch = Rc::new(IrqLatch::new());
    let isr_latch = Rc::clone(&latch);
    sim.set_irq_handler(move |regs| {
        isr_latch.on_irq(regs);
    });
    let job = fx.job();
    sim.bind_job(&job);
    let mut key = latch.claim().unwrap();
    let mut running = driver.start_irq(job, &mut key).unwrap();
    assert!(latch.is_pending(), "the run finished during the CMD write");
    let first = running
        .poll_done()
        .expect("done on the first check")
        .unwrap();
    assert_eq!(running.polls(), 1);
    assert_eq!(running.poll_done(), Some(Ok(first)), "the outcome is kept");
    drop(running);
    assert_eq!(
        sim.stats().resets,
        2,
        "init and the power request; a finished run is not reset on drop"
    );
}

#[test]
#[cfg_attr(miri, ignore = "leaks its 'static job on purpose, which Miri reports")]
fn poll_done_reports_nothing_until_the_npu_finishes() {
    let fx = Fixture::new(copy_stream()).leak();
    let (sim, mut driver) = sim_driver(SimConfig {
        run_latency: 5,
        ..SimConfig::default()
    });
    driver.init().unwrap();
    let job = fx.job();
    sim.bind_job(&job);
    let mut running = driver.start(job).unwrap();
    for _ in 0..4 {
        assert_eq!(running.poll_done(), None);
        assert!(!running.is_done());
    }
    assert!(matches!(running.poll_done(), Some(Ok(_))));
    let (job, result) = running.wait().unwrap();
    assert!(
        result.is_ok(),
        "wait after completion gives the same outcome"
    );
    assert_eq!(&job.region_bytes(1).unwrap()[16..80], &pattern(64)[..]);
}

#[test]
fn inputs_written_through_the_job_reach_the_npu() {
    // Region 1 is an input, region 2 an output; the stream copies 32 bytes across.
    let stream = Stream::default().dma(1, 0, 2, 0, 32).stop();
    let cmd = Aligned::<64>::with(&stream.0);
    let mut arena = vec![0u8; 200];
    let regions = [
        RegionSpec {
            role: 2,
            source: RegionSource::Runtime(32),
        },
        RegionSpec {
            role: 3,
            source: RegionSource::Runtime(32),
        },
    ];
    // Put the regions at slots 1 and 2: slot 0 is an empty baked region.
    let empty = Aligned::<16>::with(&[]);
    let all = [
        RegionSpec {
            role: 0,
            source: RegionSource::Baked(&empty.0[..0]),
        },
        regions[0],
        regions[1],
    ];
    let mut job =
        checked(Job::bind_parts(&cmd.0[..stream.0.len()], 0, all, &mut arena, &Identity).unwrap());
    let input = job.find_role(2).unwrap();
    job.region_bytes_mut(input)
        .unwrap()
        .copy_from_slice(&[0xA5; 32]);
    let (sim, mut driver) = sim_driver(SimConfig::default());
    driver.init().unwrap();
    sim.bind_job(&job);
    driver.run(&mut job).expect("accel 0 is not checked");
    let output = job.find_role(3).unwrap();
    assert_eq!(job.region_bytes(output).unwrap(), &[0xA5; 32]);
}

#[test]
fn without_cache_maintenance_the_npu_sees_no_memory() {
    // A driver whose platform does no cache maintenance never puts the stream where the
    // (non-coherent) simulated NPU can read it: the command fetch faults.
    let mut fx = Fixture::new(copy_stream());
    let sim = Sim::new(SimConfig::default());
    let mut driver = Driver::new(sim.clone(), NoCache, host_opts());
    driver.init().unwrap();
    let mut job = fx.job();
    sim.bind_job(&job);
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "bus-fault");
    assert!(matches!(
        sim.last_run().unwrap().bus_fault,
        Some(BusFault::CommandFetch { .. })
    ));
    let (status, _) = e.run_status().unwrap();
    assert_eq!(status.faulting_channel(), channel::CMD);
    assert_eq!(
        status.faulting_interface(),
        1,
        "QCONFIG 2 is an AXI1 attribute"
    );
}

// ---- init faults --------------------------------------------------------------------

#[test]
fn wrong_product_is_not_u55() {
    let faults = Faults {
        product: Some(1),
        ..Faults::default()
    };
    let (sim, mut driver) = sim_driver(SimConfig {
        faults,
        ..SimConfig::default()
    });
    let e = driver.init().unwrap_err();
    assert_eq!(e.code, "not-u55");
    assert_eq!(e.offset, regs::CONFIG);
    assert_eq!(
        e.detail,
        DriverDetail::Mismatch {
            found: 1,
            expected: 0
        }
    );
    assert_eq!(sim.stats().resets, 0, "nothing is reset on a foreign NPU");
    assert!(!driver.is_ready());
}

#[test]
fn reset_that_never_completes_times_out() {
    let faults = Faults {
        reset_hangs: true,
        ..Faults::default()
    };
    let sim = Sim::new(SimConfig {
        faults,
        ..SimConfig::default()
    });
    let opts = DriverOptions {
        reset_polls: 50,
        ..host_opts()
    };
    let mut driver = Driver::new(sim.clone(), sim.clone(), opts);
    let e = driver.init().unwrap_err();
    assert_eq!(e.code, "reset-timeout");
    match e.detail {
        DriverDetail::Polls { status, polls } => {
            assert_eq!(polls, 50);
            assert!(status.reset_status());
        }
        other => panic!("unexpected detail {other:?}"),
    }
    let mut fx = Fixture::new(copy_stream());
    let mut job = fx.job();
    assert_eq!(driver.run(&mut job).unwrap_err().code, "not-initialised");
}

#[test]
fn prot_mismatch_after_reset() {
    let faults = Faults {
        prot_mismatch: true,
        ..Faults::default()
    };
    let (_sim, mut driver) = sim_driver(SimConfig {
        faults,
        ..SimConfig::default()
    });
    let e = driver.init().unwrap_err();
    assert_eq!(e.code, "prot-mismatch");
    assert_eq!(e.offset, regs::PROT);
    assert_eq!(
        e.detail,
        DriverDetail::Mismatch {
            found: 0,
            expected: 1
        }
    );
}

#[test]
fn user_non_secure_reset_word_is_honoured() {
    let sim = Sim::new(SimConfig::default());
    let opts = DriverOptions {
        privileged: false,
        secure: false,
        ..host_opts()
    };
    let mut driver = Driver::new(sim.clone(), sim.clone(), opts);
    driver.init().unwrap();
    assert_eq!(sim.write_log().first(), Some(&(RESET, 0b10)));
}

#[test]
fn start_before_init_is_refused() {
    let mut fx = Fixture::new(copy_stream());
    let (sim, mut driver) = sim_driver(SimConfig::default());
    let mut job = fx.job();
    assert_eq!(driver.run(&mut job).unwrap_err().code, "not-initialised");
    assert!(sim.write_log().is_empty());
}

// ---- start checks -------------------------------------------------------------------

#[test]
fn accel_mismatch_is_config_mismatch() {
    let mut fx = Fixture::new(copy_stream());
    fx.accel = 256;
    let (sim, mut driver) = sim_driver(SimConfig::default());
    driver.init().unwrap();
    let writes = sim.write_log().len();
    let mut job = fx.job();
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "config-mismatch");
    assert_eq!(
        e.detail,
        DriverDetail::Mismatch {
            found: 128,
            expected: 256
        }
    );
    assert_eq!(sim.write_log().len(), writes, "nothing written to the NPU");
}

#[test]
fn accel_matching_a_256_mac_npu_runs() {
    let mut fx = Fixture::new(copy_stream());
    fx.accel = 256;
    let (sim, mut driver) = sim_driver(SimConfig::u55(256));
    driver.init().unwrap();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver.run(&mut job).unwrap();
}

// ---- run faults ---------------------------------------------------------------------

/// Run a fixture on a fresh, initialised sim, return the error; then check that the driver
/// reset the NPU and a good job runs after it.
fn run_failing(stream: Stream, cfg: SimConfig) -> (Sim, npuschema_runtime::driver::DriverError) {
    let mut fx = Fixture::new(stream);
    let (sim, mut driver) = sim_driver(cfg);
    driver.init().unwrap();
    let e = {
        let mut job = fx.job_vouched();
        sim.bind_job(&job);
        driver.run(&mut job).unwrap_err()
    };
    assert_eq!(
        sim.stats().resets,
        3,
        "{}: init reset + the run's power request + recovery reset",
        e.code
    );
    assert!(driver.is_ready());

    sim.set_faults(Faults::default());
    let mut good = Fixture::new(copy_stream());
    let mut job = good.job();
    sim.bind_job(&job);
    driver
        .run(&mut job)
        .expect("the NPU works again after the recovery reset");
    (sim, e)
}

#[test]
fn access_past_the_region_is_a_bus_fault() {
    // 64 bytes at offset 100 of a 128-byte region.
    let stream = Stream::default().cmd0(0x100, 0); // a harmless register write first
    let dma_at = stream.offset() + 4 * 2 + 8 * 3;
    let stream = stream.dma(0, 0, 1, 100, 64).stop();
    let (sim, e) = run_failing(stream, SimConfig::default());
    assert_eq!(e.code, "bus-fault");
    assert_eq!(e.offset, regs::STATUS);
    let (status, qread) = e.run_status().unwrap();
    assert!(status.bus_status());
    assert_eq!(qread, dma_at, "QREAD points at NPU_OP_DMA_START");
    assert_eq!(status.faulting_channel(), channel::DMA_DST);
    assert_eq!(
        status.faulting_channel(),
        9,
        "Arm's encoding: memory-to-memory write"
    );
    assert_eq!(
        status.faulting_interface(),
        0,
        "region 1 attribute 0 is AXI0"
    );
    let _ = sim;
}

#[test]
fn access_to_an_unbound_region_is_a_bus_fault() {
    let stream = Stream::default().dma(0, 0, 5, 0, 16).stop();
    let mut fx = Fixture::new(stream);
    let (sim, mut driver) = sim_driver(SimConfig::default());
    driver.init().unwrap();
    let mut job = fx.job_vouched();
    sim.bind_job(&job);
    assert_eq!(driver.run(&mut job).unwrap_err().code, "bus-fault");
    assert_eq!(
        sim.last_run().unwrap().bus_fault,
        Some(BusFault::UnboundRegion {
            kind: npuschema_runtime::cmd::AccessKind::DmaDst,
            region: 5
        })
    );
}

#[test]
fn malformed_stream_is_a_cmd_parse_error() {
    // 0x0300 is neither a cmd0 nor a cmd1 opcode.
    let stream = Stream::default().cmd0(0x100, 1);
    let bad_at = stream.offset();
    let stream = stream.cmd0(0x0300, 0).stop();
    let (_, e) = run_failing(stream, SimConfig::default());
    assert_eq!(e.code, "cmd-parse-error");
    let (status, qread) = e.run_status().unwrap();
    assert!(status.cmd_parse_error());
    assert_eq!(qread, bad_at);
}

#[test]
fn watchdog_fault() {
    let faults = Faults {
        watchdog_fault: true,
        ..Faults::default()
    };
    let (_, e) = run_failing(
        copy_stream(),
        SimConfig {
            faults,
            ..SimConfig::default()
        },
    );
    assert_eq!(e.code, "watchdog-fault");
    assert!(e.run_status().unwrap().0.wd_fault());
}

#[test]
fn ecc_fault() {
    let faults = Faults {
        ecc_fault: true,
        ..Faults::default()
    };
    let (_, e) = run_failing(
        copy_stream(),
        SimConfig {
            faults,
            ..SimConfig::default()
        },
    );
    assert_eq!(e.code, "ecc-fault");
    assert!(e.run_status().unwrap().0.ecc_fault());
}

#[test]
fn stop_before_the_end_is_cmd_end_not_reached() {
    let stream = Stream::default().stop();
    let stop_at = 0;
    let stream = stream.dma(0, 0, 1, 0, 16).stop();
    let (sim, e) = run_failing(stream, SimConfig::default());
    assert_eq!(e.code, "cmd-end-not-reached");
    let (status, qread) = e.run_status().unwrap();
    assert!(!status.cmd_end_reached());
    assert!(status.irq_raised());
    assert_eq!(qread, stop_at);
    let _ = sim;
}

#[test]
fn never_finishing_run_times_out_and_is_reset() {
    let faults = Faults {
        hang: true,
        ..Faults::default()
    };
    let mut fx = Fixture::new(copy_stream());
    let sim = Sim::new(SimConfig {
        faults,
        ..SimConfig::default()
    });
    let opts = DriverOptions {
        run_timeout: 200,
        ..host_opts()
    };
    let mut driver = Driver::new(sim.clone(), sim.clone(), opts);
    driver.init().unwrap();
    let mut job = fx.job();
    sim.bind_job(&job);
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "npu-timeout");
    let (status, _) = e.run_status().unwrap();
    assert!(status.running());
    assert_eq!(sim.stats().resets, 3);
    assert!(
        !Status(sim.peek_status()).running(),
        "the reset stopped the NPU"
    );
    sim.set_faults(Faults::default());
    driver.run(&mut job).expect("runs after the reset");
}

#[test]
fn never_finishing_run_times_out_on_the_interrupt_path() {
    let faults = Faults {
        hang: true,
        ..Faults::default()
    };
    let mut fx = Fixture::new(copy_stream());
    let sim = Sim::new(SimConfig {
        faults,
        ..SimConfig::default()
    });
    let opts = DriverOptions {
        run_timeout: 100,
        ..host_opts()
    };
    let mut driver = Driver::new(sim.clone(), sim.clone(), opts);
    driver.init().unwrap();
    let latch = Rc::new(IrqLatch::new());
    let isr_latch = Rc::clone(&latch);
    sim.set_irq_handler(move |regs| {
        isr_latch.on_irq(regs);
    });
    let mut job = fx.job();
    sim.bind_job(&job);
    let e = driver
        .run_irq(&mut job, &mut latch.claim().unwrap())
        .unwrap_err();
    assert_eq!(e.code, "npu-timeout");
    assert_eq!(latch.count(), 0);
    assert!(sim.stats().sleeps >= 99, "{:?}", sim.stats());
}

#[test]
#[cfg_attr(miri, ignore = "leaks its 'static job on purpose, which Miri reports")]
fn dropping_an_unfinished_run_resets_the_npu() {
    let faults = Faults {
        hang: true,
        ..Faults::default()
    };
    let fx = Fixture::new(copy_stream()).leak();
    let (sim, mut driver) = sim_driver(SimConfig {
        faults,
        ..SimConfig::default()
    });
    driver.init().unwrap();
    let job = fx.job();
    sim.bind_job(&job);
    let running = driver.start(job).unwrap();
    assert!(Status(sim.peek_status()).running());
    drop(running);
    assert!(!Status(sim.peek_status()).running());
    assert_eq!(sim.stats().resets, 3, "init, power request, the stop");
    assert!(driver.is_ready());
    assert_eq!(driver.power_requests(), 0, "the run's request was released");
}

#[test]
fn driver_error_display_names_code_register_and_values() {
    let faults = Faults {
        ecc_fault: true,
        ..Faults::default()
    };
    let (_, e) = run_failing(
        copy_stream(),
        SimConfig {
            faults,
            ..SimConfig::default()
        },
    );
    let text = e.to_string();
    assert!(
        text.starts_with("ecc-fault: STATUS at 0x004: STATUS 0x"),
        "{text}"
    );
    assert!(text.contains("ecc_fault"), "{text}");
    assert!(text.contains("QREAD 0x"), "{text}");
}
