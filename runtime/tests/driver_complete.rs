//! The driver's soundness guards and the parts of a complete driver, against the simulated
//! NPU: a forgotten transfer, `npu-busy`, spurious interrupts, the sleep hook, the clock
//! timeout, the Q-channel bits and power requests, the PMU, the 32-bit address check, the
//! compiled-for check, caller-owned buffers, region alignment, the cache hooks' targets,
//! Arm's fault channels.
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::cell::RefCell;
use std::rc::Rc;

use npuschema_generated::npu1::{Accel, Npu1, Npu1Writer, RegionData, RegionSpec as WSpec, Role};
use npuschema_runtime::binder::{
    AddressMap, Buffers, CacheAligned, Identity, Job, RegionKind, RegionSource, RegionSpec,
    arena_size, arena_size_align,
};
use npuschema_runtime::cmd::CheckedJob;
use npuschema_runtime::driver::regs::{CMD, ID, QBASE};
use npuschema_runtime::driver::{
    CacheTarget, CompiledFor, Driver, DriverDetail, DriverOptions, IrqLatch, Platform, PmuConfig,
    PmuEvent,
};
use npuschema_sim::{CONFIG_U55_128, DEFAULT_ID, Faults, Sim, SimConfig, channel};

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

// ---- fixtures -------------------------------------------------------------------------

const OP_STOP: u16 = 0x000;
const OP_DMA_START: u16 = 0x010;
const OP_DMA_WAIT: u16 = 0x011;
const SET_DMA0_SRC_REGION: u16 = 0x130;
const SET_DMA0_DST_REGION: u16 = 0x131;
const SET_DMA0_SRC: u16 = 0x4030;
const SET_DMA0_DST: u16 = 0x4031;
const SET_DMA0_LEN: u16 = 0x4032;

fn cmd0(s: &mut Vec<u8>, code: u16, param: u16) {
    s.extend_from_slice(&(u32::from(code) | (u32::from(param) << 16)).to_le_bytes());
}

fn cmd1(s: &mut Vec<u8>, code: u16, payload: u32) {
    cmd0(s, code, 0);
    s.extend_from_slice(&payload.to_le_bytes());
}

/// DMA `len` bytes from region `src` offset 0 to region `dst` offset `dst_off`, then stop.
fn dma_stream(src: u16, dst: u16, dst_off: u32, len: u32) -> Vec<u8> {
    let mut s = Vec::new();
    cmd0(&mut s, SET_DMA0_SRC_REGION, src);
    cmd0(&mut s, SET_DMA0_DST_REGION, dst);
    cmd1(&mut s, SET_DMA0_SRC, 0);
    cmd1(&mut s, SET_DMA0_DST, dst_off);
    cmd1(&mut s, SET_DMA0_LEN, len);
    cmd0(&mut s, OP_DMA_START, 0);
    cmd0(&mut s, OP_DMA_WAIT, 0);
    cmd0(&mut s, OP_STOP, 0xFFFF);
    s
}

/// 16-byte aligned storage.
#[repr(C, align(16))]
struct Aligned<const N: usize>([u8; N]);

fn aligned<const N: usize>(prefix: &[u8]) -> Box<Aligned<N>> {
    let mut a = Box::new(Aligned([0u8; N]));
    a.0[..prefix.len()].copy_from_slice(prefix);
    a
}

fn pattern(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(7).wrapping_add(3))
        .collect()
}

/// Region 0 baked weights (64 bytes), region 1 runtime (128 bytes); the stream copies the
/// weights to offset 16 of region 1.
struct Fixture {
    cmd: Box<Aligned<256>>,
    cmd_len: usize,
    weights: Box<Aligned<64>>,
    arena: Vec<u8>,
    accel: u32,
}

impl Fixture {
    fn new() -> Self {
        Self::with_stream(&dma_stream(0, 1, 16, 64))
    }

    fn with_stream(stream: &[u8]) -> Self {
        Self {
            cmd_len: stream.len(),
            cmd: aligned(stream),
            weights: aligned(&pattern(64)),
            arena: vec![0u8; 512],
            accel: 128,
        }
    }

    fn leak(self) -> &'static mut Self {
        Box::leak(Box::new(self))
    }

    fn job_with<M: AddressMap>(&mut self, map: &M) -> CheckedJob<'_, '_> {
        checked(self.raw_job_with(map))
    }

    fn raw_job_with<M: AddressMap>(&mut self, map: &M) -> Job<'_, '_> {
        let regions = [
            RegionSpec {
                role: 0,
                source: RegionSource::Baked(&self.weights.0),
            },
            RegionSpec {
                role: 1,
                source: RegionSource::Runtime(128),
            },
        ];
        Job::bind_parts(
            &self.cmd.0[..self.cmd_len],
            self.accel,
            regions,
            &mut self.arena,
            map,
        )
        .unwrap()
    }

    fn job(&mut self) -> CheckedJob<'_, '_> {
        self.job_with(&Identity)
    }

    /// The job with a stream that fails the check on purpose.
    fn job_vouched(&mut self) -> CheckedJob<'_, '_> {
        vouched(self.raw_job_with(&Identity))
    }
}

fn host_opts() -> DriverOptions {
    DriverOptions {
        address_bits: 64,
        ..DriverOptions::default()
    }
}

fn sim_driver(cfg: SimConfig) -> (Sim, Driver<Sim, Sim>) {
    let sim = Sim::new(cfg);
    let mut driver = Driver::new(sim.clone(), sim.clone(), host_opts());
    driver.init().unwrap();
    (sim, driver)
}

fn wire_irq(sim: &Sim) -> Rc<IrqLatch> {
    let latch = Rc::new(IrqLatch::new());
    let isr = Rc::clone(&latch);
    sim.set_irq_handler(move |regs| {
        isr.on_irq(regs);
    });
    latch
}

// ---- item 3: a sound API ---------------------------------------------------------------

#[test]
#[cfg_attr(miri, ignore = "leaks its 'static job on purpose, which Miri reports")]
fn forgotten_transfer_keeps_its_job_and_start_refuses_while_the_npu_runs() {
    let (sim, mut driver) = sim_driver(SimConfig {
        faults: Faults {
            hang: true,
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let fx = Fixture::new().leak();
    let job = fx.job();
    sim.bind_job(&job);
    let transfer = driver.start(job).unwrap();
    // Safe code may leak the transfer: the job (and its 'static arena) goes with it, so
    // nothing can reach the memory the NPU is using.
    core::mem::forget(transfer);
    assert_eq!(sim.stats().runs, 1);

    let mut other = Fixture::new();
    let mut job = other.job();
    let writes = sim.write_log().len();
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "npu-busy");
    assert_eq!(e.offset, npuschema_runtime::driver::regs::STATUS);
    let (status, _) = e.run_status().unwrap();
    assert!(status.running());
    assert_eq!(sim.write_log().len(), writes, "nothing written to the NPU");
    assert_eq!(sim.stats().runs, 1, "no second run started");

    // A soft reset stops the NPU; the driver works again.
    driver.soft_reset().unwrap();
    sim.set_faults(Faults::default());
    sim.bind_job(&job);
    driver.run(&mut job).expect("runs after the reset");
}

#[test]
#[cfg_attr(miri, ignore = "leaks its 'static job on purpose, which Miri reports")]
fn refused_start_gives_the_job_back() {
    let (sim, mut driver) = sim_driver(SimConfig::default());
    let fx = Fixture::new().leak();
    fx.accel = 256;
    let job = fx.job();
    let writes = sim.write_log().len();
    let refused = driver.start(job).map(|_| ()).unwrap_err();
    assert_eq!(refused.error.code, "config-mismatch");
    assert_eq!(sim.write_log().len(), writes);
    let mut job = refused.job;
    job.region_bytes_mut(1).unwrap()[0] = 7;
    assert_eq!(job.region_bytes(1).unwrap()[0], 7);
}

#[test]
#[cfg_attr(miri, ignore = "leaks its 'static job on purpose, which Miri reports")]
fn transfer_wait_gives_the_job_back_once_the_npu_stopped() {
    let (sim, mut driver) = sim_driver(SimConfig {
        run_latency: 4,
        ..SimConfig::default()
    });
    let latch = wire_irq(&sim);
    let fx = Fixture::new().leak();
    let job = fx.job();
    sim.bind_job(&job);
    let latch: &'static IrqLatch = Box::leak(Box::new(Rc::clone(&latch)));
    let mut key = latch.claim().unwrap();
    let transfer = driver.start_irq(job, &mut key).unwrap();
    let (job, result) = transfer.wait().unwrap();
    let info = result.unwrap();
    assert!(info.status.cmd_end_reached());
    assert!(!npuschema_runtime::driver::Status(sim.peek_status()).running());
    assert_eq!(&job.region_bytes(1).unwrap()[16..80], &pattern(64)[..]);
}

// ---- item 4: spurious interrupts, sleeping, the clock ---------------------------------

#[test]
fn spurious_interrupt_is_ignored_and_counted() {
    let (sim, mut driver) = sim_driver(SimConfig {
        faults: Faults {
            spurious_irq: true,
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let latch = wire_irq(&sim);
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    let info = driver
        .run_irq(&mut job, &mut latch.claim().unwrap())
        .expect("a spurious interrupt does not end the run");
    assert!(info.status.cmd_end_reached());
    assert_eq!(sim.stats().spurious_irqs, 1);
    assert_eq!(
        sim.stats().irqs_delivered,
        2,
        "the spurious one and the real one"
    );
    assert_eq!(latch.spurious(), 1);
    assert_eq!(latch.count(), 1);
    assert_eq!(
        sim.stats().resets,
        2,
        "no recovery reset: init and the power request"
    );
    assert_eq!(&job.region_bytes(1).unwrap()[16..80], &pattern(64)[..]);
}

/// A platform modelling a Cortex-M's sleep: an interrupt may arrive just before the core
/// would execute `WFI` (here: the tick the platform takes first). Executing `WFI` then
/// would sleep past the interrupt (a lost wake-up); the contract's re-check of `ready()`
/// is what avoids it.
struct WfiPlatform {
    sim: Sim,
    ready_before_wfi: u32,
    wfis: u32,
}

impl Platform for WfiPlatform {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        self.sim.clean(bytes, npu, target);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        self.sim.invalidate(bytes, npu, target);
    }
    fn idle(&mut self) {
        self.sim.tick();
    }
    fn sleep(&mut self, ready: &dyn Fn() -> bool) {
        // Interrupts masked: the NPU finishes now; its interrupt is pending.
        self.sim.tick();
        if ready() {
            self.ready_before_wfi += 1;
            return;
        }
        // WFI: wake on the next interrupt.
        self.wfis += 1;
        self.sim.tick();
    }
}

#[test]
fn sleep_hook_rechecks_readiness_so_no_wake_up_is_lost() {
    let sim = Sim::new(SimConfig {
        run_latency: 1,
        ..SimConfig::default()
    });
    let platform = WfiPlatform {
        sim: sim.clone(),
        ready_before_wfi: 0,
        wfis: 0,
    };
    let mut driver = Driver::new(sim.clone(), platform, host_opts());
    driver.init().unwrap();
    let latch = wire_irq(&sim);
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver
        .run_irq(&mut job, &mut latch.claim().unwrap())
        .unwrap();
    let p = driver.platform_mut();
    assert_eq!(
        p.ready_before_wfi, 1,
        "ready() saw the interrupt that came before the WFI"
    );
    assert_eq!(p.wfis, 0, "no WFI after the interrupt: no lost wake-up");
}

/// A platform whose every wait lasts `step` ticks of the simulator's clock.
struct SlowPlatform {
    sim: Sim,
    step: u32,
    waits: u32,
}

impl Platform for SlowPlatform {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        self.sim.clean(bytes, npu, target);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        self.sim.invalidate(bytes, npu, target);
    }
    fn now(&mut self) -> Option<u64> {
        Some(self.sim.now())
    }
    fn idle(&mut self) {
        self.waits += 1;
        for _ in 0..self.step {
            self.sim.tick();
        }
    }
    fn sleep(&mut self, ready: &dyn Fn() -> bool) {
        if !ready() {
            self.idle();
        }
    }
}

#[test]
fn run_timeout_is_time_on_the_platform_clock_not_a_count_of_checks() {
    let sim = Sim::new(SimConfig {
        faults: Faults {
            hang: true,
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let platform = SlowPlatform {
        sim: sim.clone(),
        step: 10,
        waits: 0,
    };
    let opts = DriverOptions {
        run_timeout: 50,
        ..host_opts()
    };
    let mut driver = Driver::new(sim.clone(), platform, opts);
    driver.init().unwrap();
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    // Hold power, so the run's start does not soft-reset (a reset's waits would count).
    driver.request_power().unwrap();
    driver.platform_mut().waits = 0;
    let before = sim.now();
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "npu-timeout");
    let waited = driver.platform_mut().waits;
    // 50 ticks at 10 per wait: about 5 waits (a count of checks would have made 50).
    assert!((4..=6).contains(&waited), "{waited} waits");
    assert!(sim.now() - before >= 50);

    // A run that takes 30 ticks finishes within the same 50.
    sim.set_faults(Faults::default());
    sim.set_run_latency(30);
    let info = driver.run(&mut job).unwrap();
    let elapsed = info.elapsed.unwrap();
    assert!((30..50).contains(&elapsed), "elapsed {elapsed}");
    assert!(info.polls <= 5, "{info:?}");
}

// ---- item 4: clock/power Q-channels and power requests --------------------------------

#[test]
fn q_channel_bits_are_cleared_for_a_run_and_set_after_it() {
    let sim = Sim::new(SimConfig::default());
    let mut driver = Driver::new(sim.clone(), sim.clone(), host_opts());
    assert_eq!(
        driver.read_register(CMD),
        0xC,
        "the simulator's CMD reset value"
    );
    driver.init().unwrap();
    assert_eq!(driver.read_register(CMD), 0xC, "gating allowed while idle");
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver.run(&mut job).unwrap();
    assert_eq!(
        sim.last_run().unwrap().cmd_q_at_start,
        0,
        "clock and power gating disabled while the run runs"
    );
    assert_eq!(driver.read_register(CMD), 0xC, "enabled again after it");
    assert_eq!(driver.power_requests(), 0);
    let log = sim.write_log();
    let run_at = log.iter().position(|&w| w == (CMD, 1)).unwrap();
    assert!(
        log[..run_at].contains(&(CMD, 0)),
        "the power request cleared CMD[3:2] before the start"
    );
}

#[test]
fn a_held_power_request_saves_the_reset_per_run() {
    let (sim, mut driver) = sim_driver(SimConfig::default());
    assert_eq!(sim.stats().resets, 1);
    driver.request_power().unwrap();
    assert_eq!(sim.stats().resets, 2, "the first request resets");
    assert_eq!(driver.read_register(CMD), 0);
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver.run(&mut job).unwrap();
    driver.run(&mut job).unwrap();
    assert_eq!(
        sim.stats().resets,
        2,
        "no reset per run while power is held"
    );
    assert_eq!(driver.read_register(CMD), 0, "still held");
    assert_eq!(driver.power_requests(), 1);
    driver.release_power();
    assert_eq!(driver.read_register(CMD), 0xC);
    driver.release_power();
    assert_eq!(driver.power_requests(), 0, "an extra release is ignored");
}

// ---- item 4: the PMU -------------------------------------------------------------------

#[test]
fn pmu_counts_the_runs_cycles_and_its_bus_events() {
    let (sim, mut driver) = sim_driver(SimConfig {
        run_latency: 7,
        ..SimConfig::default()
    });
    let cfg = PmuConfig {
        events: [
            PmuEvent::AXI1_RD_TRANS_ACCEPTED,
            PmuEvent::AXI0_WR_TRANS_ACCEPTED,
            PmuEvent::AXI0_WR_DATA_BEAT_WRITTEN,
            PmuEvent::NPU_ACTIVE,
        ],
        cycle_start: PmuEvent::NPU_ACTIVE,
        cycle_stop: PmuEvent::NPU_IDLE,
    };
    driver.pmu_enable(&cfg).unwrap();
    assert_eq!(driver.power_requests(), 1, "the PMU holds power");
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver.run(&mut job).unwrap();
    let c = driver.pmu_read();
    assert_eq!(
        c.cycles, 7,
        "the run's 7 ticks, between NPU_ACTIVE and NPU_IDLE"
    );
    // The command fetch (QCONFIG 2: AXI1) and the DMA source (region 0, attribute 3: AXI1).
    assert_eq!(c.events[0], 2);
    // The DMA destination (region 1, attribute 0: AXI0): one write of 64 bytes.
    assert_eq!(c.events[1], 1);
    assert_eq!(c.events[2], 8, "64 bytes in 8-byte beats");
    assert_eq!(c.events[3], 7);
    assert_eq!(c.overflow, 0);

    // A second run adds to the counters; a reset zeroes them.
    driver.run(&mut job).unwrap();
    assert_eq!(driver.pmu_read().cycles, 14);
    driver.pmu_reset_counters();
    assert_eq!(driver.pmu_read().events, [0; 4]);
    driver.pmu_disable();
    assert_eq!(driver.power_requests(), 0);
    assert_eq!(driver.read_register(CMD), 0xC);
}

#[test]
fn pmu_event_counter_overflow_sets_its_flag() {
    let (sim, mut driver) = sim_driver(SimConfig::default());
    let cfg = PmuConfig {
        events: [
            PmuEvent::AXI0_WR_DATA_BEAT_WRITTEN,
            PmuEvent::NO_EVENT,
            PmuEvent::NO_EVENT,
            PmuEvent::NO_EVENT,
        ],
        ..PmuConfig::default()
    };
    driver.pmu_enable(&cfg).unwrap();
    driver.pmu_set_event_counter(0, u32::MAX - 1);
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver.run(&mut job).unwrap();
    let c = driver.pmu_read();
    assert_eq!(c.events[0], 6, "u32::MAX - 1 + 8 wraps to 6");
    assert!(c.event_overflowed(0));
    assert!(!c.event_overflowed(1));
    assert!(!c.cycles_overflowed());
    assert!(c.cycles > 0, "no start event: counts from enable");
    driver.pmu_clear_overflow(1);
    assert_eq!(driver.pmu_read().overflow, 0);
}

// ---- item 4: the 32-bit address check -------------------------------------------------

/// The NPU sees memory 4 GiB above the CPU's addresses.
struct Above4G;

#[allow(unsafe_code)]
// SAFETY: test-only: jobs bound with it run only on the simulated NPU (which touches
// its own copies of the regions), or are refused before anything reaches an NPU.
unsafe impl AddressMap for Above4G {
    fn npu_address(&self, cpu: usize) -> u64 {
        (cpu as u64 & 0xFFFF_FFFF) | (1 << 32)
    }
}

#[test]
fn addresses_past_4_gib_are_refused_on_the_u55() {
    let sim = Sim::new(SimConfig::default());
    // Arm's default: 32-bit addresses.
    let mut driver = Driver::new(sim.clone(), sim.clone(), DriverOptions::default());
    driver.init().unwrap();
    let mut fx = Fixture::new();
    let mut job = fx.job_with(&Above4G);
    let writes = sim.write_log().len();
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "address-out-of-range");
    assert_eq!(e.offset, QBASE);
    assert!(matches!(e.detail, DriverDetail::Address { address, len: 44 } if address >= 1 << 32));
    assert_eq!(sim.write_log().len(), writes, "nothing written");
    assert!(e.to_string().contains("pass 4 GiB"), "{e}");
}

/// Maps one buffer so that its byte `ARENA_AT` is at 4 GiB - 64: the command stream and
/// the weights before it fit below 4 GiB, a 128-byte region there does not.
struct NearTop {
    base: usize,
}

const ARENA_AT: usize = 512;

#[allow(unsafe_code)]
// SAFETY: test-only: jobs bound with it run only on the simulated NPU (which touches
// its own copies of the regions), or are refused before anything reaches an NPU.
unsafe impl AddressMap for NearTop {
    fn npu_address(&self, cpu: usize) -> u64 {
        (cpu.wrapping_sub(self.base) as u64).wrapping_add((1 << 32) - 64 - ARENA_AT as u64)
    }
}

#[test]
fn a_region_ending_past_4_gib_is_refused() {
    let sim = Sim::new(SimConfig::default());
    let mut driver = Driver::new(sim.clone(), sim.clone(), DriverOptions::default());
    driver.init().unwrap();
    // One 16-aligned buffer: the stream at 0, the weights at 256, the arena at 512.
    let stream = dma_stream(0, 1, 16, 64);
    let mut all = aligned::<1024>(&stream);
    let base = all.0.as_ptr().addr();
    all.0[256..320].copy_from_slice(&pattern(64));
    let (head, arena) = all.0.split_at_mut(ARENA_AT);
    let regions = [
        RegionSpec {
            role: 0,
            source: RegionSource::Baked(&head[256..320]),
        },
        RegionSpec {
            role: 1,
            source: RegionSource::Runtime(128),
        },
    ];
    let mut job = checked(
        Job::bind_parts(
            &head[..stream.len()],
            128,
            regions,
            arena,
            &NearTop { base },
        )
        .unwrap(),
    );
    assert_eq!(job.region(1).unwrap().npu_address, (1 << 32) - 64);
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "address-out-of-range");
    assert_eq!(e.register, "BASEP");
    assert_eq!(e.offset, 0x088, "BASEP[1]");
    assert_eq!(
        e.detail,
        DriverDetail::Address {
            address: (1 << 32) - 64,
            len: 128
        }
    );
}

// ---- item 4: what the stream was compiled for ------------------------------------------

#[test]
fn compiled_for_checks_arch_and_command_stream_version() {
    let mut fx = Fixture::new();
    // Architecture major 2: not what Vela's U55 streams are for.
    let (sim, mut driver) = sim_driver(SimConfig {
        id: (DEFAULT_ID & 0x0FFF_FFFF) | (2 << 28),
        ..SimConfig::default()
    });
    let mut job = fx.job();
    sim.bind_job(&job);
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "arch-mismatch");
    assert_eq!(e.offset, ID);
    assert_eq!(
        e.detail,
        DriverDetail::Mismatch {
            found: 0x2010,
            expected: 0x1006
        }
    );

    // Command-stream version 1.
    let (_, driver) = sim_driver(SimConfig {
        config: CONFIG_U55_128 | (1 << 4),
        ..SimConfig::default()
    });
    let e = driver.check_config(128).unwrap_err();
    assert_eq!(e.code, "cmd-stream-version-mismatch");

    // The NPU's minor revision (1) is at least the stream's; a newer stream's is not.
    let (_, driver) = sim_driver(SimConfig::default());
    driver.check_config(128).unwrap();
    let newer = CompiledFor {
        arch_minor: 2,
        ..CompiledFor::npu1_v1(128)
    };
    assert_eq!(
        driver.check_compiled_for(&newer).unwrap_err().code,
        "arch-mismatch"
    );
    let u65 = CompiledFor {
        product: 1,
        ..CompiledFor::npu1_v1(128)
    };
    assert_eq!(
        driver.check_compiled_for(&u65).unwrap_err().code,
        "product-mismatch"
    );
}

// ---- item 4: caller-owned buffers, alignment, cache targets ---------------------------

fn io_blob(stream: &[u8]) -> Vec<u8> {
    let w = pattern(48);
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&[
            WSpec {
                role: Role::Weights,
                data: RegionData::Baked(&w),
            },
            WSpec {
                role: Role::Input,
                data: RegionData::Runtime(32),
            },
            WSpec {
                role: Role::Output,
                data: RegionData::Runtime(32),
            },
            WSpec {
                role: Role::Scratch,
                data: RegionData::Runtime(48),
            },
        ])
        .cmd_stream(stream)
        .to_vec()
        .unwrap()
}

/// `bytes` copied to a 16-byte aligned heap address.
fn placed(bytes: &[u8]) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; bytes.len() + 16];
    let at = (16 - buf.as_ptr().addr() % 16) % 16;
    buf[at..at + bytes.len()].copy_from_slice(bytes);
    (buf, at)
}

/// A platform recording what the cache hooks were given.
struct Recording {
    sim: Sim,
    cleaned: Rc<RefCell<Vec<CacheTarget>>>,
    invalidated: Rc<RefCell<Vec<CacheTarget>>>,
}

impl Platform for Recording {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        self.cleaned.borrow_mut().push(target);
        self.sim.clean(bytes, npu, target);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        self.invalidated.borrow_mut().push(target);
        self.sim.invalidate(bytes, npu, target);
    }
    fn now(&mut self) -> Option<u64> {
        Some(self.sim.now())
    }
    fn idle(&mut self) {
        self.sim.idle();
    }
}

#[test]
fn caller_buffers_are_bound_in_place_and_told_to_the_cache_hooks() {
    // Input (region 1) to output (region 2), 32 bytes.
    let bytes = io_blob(&dma_stream(1, 2, 0, 32));
    let (buf, at) = placed(&bytes);
    let blob = &buf[at..at + bytes.len()];
    let view = Npu1::validate(blob).unwrap();
    let mut input = Box::new(Aligned([0xA5u8; 48]));
    let mut output = Box::new(Aligned([0u8; 32]));
    let input_addr = input.0.as_ptr().addr();
    let output_addr = output.0.as_ptr().addr();
    // Only the scratch region is carved: the arena needs 48 bytes, not 112.
    let mut arena = vec![0u8; 48 + 15];
    let full = arena_size(&view).any_start;
    assert!(full > arena.len() as u64);
    let mut buffers = [const { None }; 8];
    buffers[1] = Some(&mut input.0[..]);
    buffers[2] = Some(&mut output.0[..]);
    let mut job = checked(Job::bind_with_buffers(view, &mut arena, &Identity, buffers).unwrap());
    let r1 = job.region(1).unwrap();
    let r2 = job.region(2).unwrap();
    let r3 = job.region(3).unwrap();
    assert_eq!(r1.kind, RegionKind::Caller);
    assert_eq!(r1.npu_address, input_addr as u64);
    assert_eq!(r1.size, 32, "the region's size, not the buffer's");
    assert_eq!(r1.arena_offset, None);
    assert_eq!(r2.kind, RegionKind::Caller);
    assert_eq!(r2.cpu_address, output_addr);
    assert_eq!(r3.kind, RegionKind::Runtime);
    assert_eq!(r3.arena_offset.map(|o| o < 16), Some(true));
    assert_eq!(job.region_bytes_mut(1).unwrap().len(), 32);

    let sim = Sim::new(SimConfig::default());
    let cleaned = Rc::new(RefCell::new(Vec::new()));
    let invalidated = Rc::new(RefCell::new(Vec::new()));
    let platform = Recording {
        sim: sim.clone(),
        cleaned: Rc::clone(&cleaned),
        invalidated: Rc::clone(&invalidated),
    };
    let mut driver = Driver::new(sim.clone(), platform, host_opts());
    driver.init().unwrap();
    sim.bind_job(&job);
    driver.run(&mut job).unwrap();
    // The job's borrow of the buffers ends with its last use.
    assert_eq!(output.0, [0xA5; 32], "the NPU wrote the caller's buffer");

    let region = |index, kind| CacheTarget::Region { index, kind };
    assert_eq!(
        *cleaned.borrow(),
        [
            CacheTarget::CommandStream,
            region(0, RegionKind::Baked),
            region(1, RegionKind::Caller),
            region(2, RegionKind::Caller),
            region(3, RegionKind::Runtime),
        ]
    );
    assert_eq!(
        *invalidated.borrow(),
        [
            region(1, RegionKind::Caller),
            region(2, RegionKind::Caller),
            region(3, RegionKind::Runtime),
        ],
        "every region the NPU may write, never the baked one"
    );
}

#[test]
fn caller_buffers_get_the_arena_regions_checks() {
    let bytes = io_blob(&dma_stream(1, 2, 0, 32));
    let (buf, at) = placed(&bytes);
    let blob = &buf[at..at + bytes.len()];
    let mut arena = vec![0u8; 256];
    let mut storage = Box::new(Aligned([0u8; 64]));

    fn bind<'a>(
        blob: &[u8],
        buffers: Buffers<'a>,
        arena: &'a mut [u8],
    ) -> Result<(), npuschema_core::Error> {
        let view = Npu1::validate(blob).unwrap();
        Job::bind_with_buffers(view, arena, &Identity, buffers).map(|_| ())
    }

    let mut b = [const { None }; 8];
    b[1] = Some(&mut storage.0[..31]);
    let e = bind(blob, b, &mut arena).unwrap_err();
    assert_eq!(e.code, "buffer-too-small");
    assert!(e.to_string().contains("0x20"), "{e}");

    let mut b = [const { None }; 8];
    b[2] = Some(&mut storage.0[8..48]);
    assert_eq!(
        bind(blob, b, &mut arena).unwrap_err().code,
        "misaligned-buffer"
    );

    let mut b = [const { None }; 8];
    b[0] = Some(&mut storage.0[..]);
    assert_eq!(
        bind(blob, b, &mut arena).unwrap_err().code,
        "buffer-not-for-runtime-region",
        "region 0 is baked"
    );

    let mut b = [const { None }; 8];
    b[5] = Some(&mut storage.0[..]);
    assert_eq!(
        bind(blob, b, &mut arena).unwrap_err().code,
        "buffer-not-for-runtime-region",
        "the blob has 4 regions"
    );

    // 32-byte alignment asked for: a 16-but-not-32-aligned buffer is refused.
    let view = Npu1::validate(blob).unwrap();
    let mut b = [const { None }; 8];
    let off = if storage.0.as_ptr().addr() % 32 == 0 {
        16
    } else {
        0
    };
    b[1] = Some(&mut storage.0[off..off + 32]);
    let e = Job::bind_with_buffers(view, &mut arena, &CacheAligned::new(Identity, 32), b)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.code, "misaligned-buffer");
}

#[test]
fn runtime_regions_can_be_aligned_to_cache_lines() {
    let bytes = io_blob(&dma_stream(1, 2, 0, 32));
    let (buf, at) = placed(&bytes);
    let blob = &buf[at..at + bytes.len()];
    let view = Npu1::validate(blob).unwrap();
    let size16 = arena_size(&view);
    let size32 = arena_size_align(&view, 32);
    assert_eq!(size16.aligned_start, 32 + 32 + 48);
    // On 32-byte lines the last region (48 bytes) is sized to whole lines too.
    assert_eq!(size32.aligned_start, 32 + 32 + 64);
    assert_eq!(size32.any_start, size32.aligned_start + 31);
    let mut storage = vec![0u8; 512];
    for misalign in 0..32 {
        let base = storage.as_ptr().addr();
        let start = (32 - base % 32 + misalign) % 32;
        let arena = &mut storage[start..start + size32.any_start as usize];
        let map = CacheAligned::new(Identity, 32);
        let job = Job::bind_with(view, arena, &map).expect("any_start suffices at any address");
        for r in job.regions().filter(|r| r.kind == RegionKind::Runtime) {
            assert_eq!(r.npu_address % 32, 0, "misalign {misalign}: {r:?}");
        }
    }
    // An alignment that is not a power of two of at least 16 is taken as 16.
    let job = Job::bind_with(view, &mut storage, &CacheAligned::new(Identity, 24)).unwrap();
    assert!(job.regions().all(|r| r.npu_address % 16 == 0));
}

// ---- item 4: Arm's fault channel encoding ----------------------------------------------

#[test]
fn bus_faults_report_arms_channel_numbers() {
    // A DMA whose source is an unbound region: a memory-to-memory read, channel 4.
    let mut fx = Fixture::with_stream(&dma_stream(5, 1, 0, 16));
    let (sim, mut driver) = sim_driver(SimConfig::default());
    // The checker refuses it; vouched for, the simulated NPU faults.
    assert_eq!(
        CheckedJob::check(fx.raw_job_with(&Identity))
            .unwrap_err()
            .error
            .code(),
        "unbound-region"
    );
    let mut job = fx.job_vouched();
    sim.bind_job(&job);
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "bus-fault");
    let (status, _) = e.run_status().unwrap();
    assert_eq!(status.faulting_channel(), 4);
    assert_eq!(channel::MEM2MEM_READ, 4);
    assert_eq!(
        [
            channel::CMD,
            channel::IFM,
            channel::WEIGHTS,
            channel::SCALES,
            channel::OFM,
            channel::MEM2MEM_WRITE
        ],
        [0, 1, 2, 3, 8, 9]
    );
}

/// A platform whose `idle` panics once, when armed.
struct Panicky {
    sim: Sim,
    armed: bool,
}

impl Platform for Panicky {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        self.sim.clean(bytes, npu, target);
    }
    fn idle(&mut self) {
        if std::mem::take(&mut self.armed) {
            panic!("platform hook failed");
        }
        self.sim.tick();
    }
}

#[test]
fn a_panicking_platform_hook_does_not_leave_the_npu_running() {
    let sim = Sim::new(SimConfig {
        faults: Faults {
            hang: true,
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let platform = Panicky {
        sim: sim.clone(),
        armed: false,
    };
    let mut driver = Driver::new(sim.clone(), platform, host_opts());
    driver.init().unwrap();
    driver.request_power().unwrap();
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver.platform_mut().armed = true;
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = driver.run(&mut job);
    }));
    assert!(unwound.is_err(), "the hook's panic unwound out of run");
    assert!(
        !npuschema_runtime::driver::Status(sim.peek_status()).running(),
        "the guard reset the NPU before the job's borrow ended"
    );
    assert_eq!(sim.stats().runs, 1);
}

// ---- item 4: Vela's OPTIMIZER_CONFIG words ---------------------------------------------

#[test]
fn optimizer_config_words_are_checked_as_arms_driver_does() {
    use npuschema_runtime::driver::{ConfigCheck, OptimizerConfig};
    // The simulated NPU is a 128-MAC U55, and reports Vela's own CONFIG word for it.
    assert_eq!(CONFIG_U55_128, 0x0000_1807);
    let (_sim, driver) = sim_driver(SimConfig::default());
    // Vela's ID word for the U55: architecture 1.0.6.
    let id = 0x1006_0000;
    assert_eq!(
        driver.check_optimizer_config(Some(OptimizerConfig {
            config: 0x0000_1807,
            id
        })),
        Ok(ConfigCheck::Matched)
    );
    // A 256-MAC word is refused, with the NPU's and the stream's log2(MACs/cycle).
    let e = driver
        .check_optimizer_config(Some(OptimizerConfig {
            config: 0x0000_3008,
            id,
        }))
        .unwrap_err();
    assert_eq!(e.code, "optimizer-config-mismatch");
    assert_eq!(e.register, "CONFIG");
    assert_eq!(
        e.detail,
        DriverDetail::Mismatch {
            found: 7,
            expected: 8
        }
    );
    // Only the SHRAM size differs: not compared.
    assert_eq!(
        driver.check_optimizer_config(Some(OptimizerConfig {
            config: 0x0000_3007,
            id
        })),
        Ok(ConfigCheck::Matched)
    );
    // Custom DMA asked for, and this NPU has none.
    let e = driver
        .check_optimizer_config(Some(OptimizerConfig {
            config: 0x0800_1807,
            id,
        }))
        .unwrap_err();
    assert_eq!(e.register, "CONFIG");
    // A newer minor architecture than the NPU's (1.1): refused at ID.
    let e = driver
        .check_optimizer_config(Some(OptimizerConfig {
            config: 0x0000_1807,
            id: 0x1026_0000,
        }))
        .unwrap_err();
    assert_eq!((e.code, e.register), ("optimizer-config-mismatch", "ID"));
    // No words (an NPU1 v1 file): a reported skip.
    assert_eq!(
        driver.check_optimizer_config(None),
        Ok(ConfigCheck::Skipped)
    );
}

// ---- item 4: the rest of Arm's PMU, event names, inference hooks ----------------------

#[test]
fn pmu_event_names_are_arms() {
    assert_eq!(PmuEvent::NPU_ACTIVE.name(), Some("NPU_ACTIVE"));
    assert_eq!(
        PmuEvent::AXI1_WR_STALL_LIMIT.name(),
        Some("AXI1_WR_STALL_LIMIT")
    );
    assert_eq!(PmuEvent(1000).name(), None);
    assert_eq!(PmuEvent::CYCLE.to_string(), "CYCLE");
    assert_eq!(PmuEvent(1000).to_string(), "event 1000");
}

#[test]
fn pmu_counter_masks_cycle_preset_and_interrupt_enable() {
    let (sim, mut driver) = sim_driver(SimConfig {
        run_latency: 6,
        ..SimConfig::default()
    });
    let cfg = PmuConfig {
        events: [PmuEvent::NPU_ACTIVE; 4],
        cycle_start: PmuEvent::NO_EVENT,
        cycle_stop: PmuEvent::NO_EVENT,
    };
    driver.pmu_enable(&cfg).unwrap();
    // Counters 1 and 3 off, the others on.
    driver.pmu_disable_counters(0b1010);
    assert_eq!(
        driver.read_register(npuschema_runtime::driver::regs::PMCNTENSET) & 0b1111,
        0b0101
    );
    driver.pmu_set_cycle_counter((1 << 40) + 5);
    let c = driver.pmu_read();
    assert_eq!(c.cycles, (1 << 40) + 5, "preset, 48 bits over LO/HI");
    driver.pmu_enable_irq(1 << 31 | 1);
    assert_eq!(
        driver.read_register(npuschema_runtime::driver::regs::PMINTSET),
        1 << 31 | 1
    );
    driver.pmu_disable_irq(1);
    assert_eq!(
        driver.read_register(npuschema_runtime::driver::regs::PMINTSET),
        1 << 31
    );
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver.run(&mut job).unwrap();
    let c = driver.pmu_read();
    assert!(c.events[0] > 0 && c.events[2] > 0, "{c:?}");
    assert_eq!([c.events[1], c.events[3]], [0, 0], "disabled by the mask");
    driver.pmu_enable_counters(0b1000);
    driver.run(&mut job).unwrap();
    let d = driver.pmu_read();
    assert!(d.events[3] > 0 && d.events[1] == 0, "{d:?}");
}

/// A platform counting the inference hooks.
struct Hooks {
    sim: Sim,
    log: Vec<&'static str>,
}

impl Platform for Hooks {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        self.sim.clean(bytes, npu, target);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        self.log.push("invalidate");
        self.sim.invalidate(bytes, npu, target);
    }
    fn inference_begin(&mut self) {
        self.log.push("begin");
    }
    fn inference_end(&mut self, ok: bool) {
        self.log.push(if ok { "end ok" } else { "end failed" });
    }
}

#[test]
fn inference_begin_and_end_hooks_frame_every_run() {
    let sim = Sim::new(SimConfig::default());
    let platform = Hooks {
        sim: sim.clone(),
        log: Vec::new(),
    };
    // A short timeout (checks, without a clock): the second run hangs.
    let opts = DriverOptions {
        run_timeout: 50,
        ..host_opts()
    };
    let mut driver = Driver::new(sim.clone(), platform, opts);
    driver.init().unwrap();
    let mut fx = Fixture::new();
    let mut job = fx.job();
    sim.bind_job(&job);
    driver.run(&mut job).unwrap();
    sim.set_faults(Faults {
        hang: true,
        ..Faults::default()
    });
    let opts_timeout = driver.run(&mut job).unwrap_err();
    assert_eq!(opts_timeout.code, "npu-timeout");
    assert_eq!(
        driver.platform_mut().log,
        [
            "begin",
            "invalidate",
            "end ok",
            "begin",
            "invalidate",
            "end failed"
        ]
    );
}
