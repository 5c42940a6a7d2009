//! The four holes of issue 27, each closed: what safe code could do before, and what the
//! driver does now (the compile-time halves are the trybuild cases in tests/ui/fail:
//! `address_map_is_unsafe_to_implement`, `run_needs_a_checked_job`,
//! `run_irq_needs_the_latch_key`).
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::rc::Rc;

use npuschema_runtime::binder::{Identity, Job, RegionSource, RegionSpec};
use npuschema_runtime::cmd::{CheckedJob, FindingCode, JobCheckError};
use npuschema_runtime::driver::regs::STATUS;
use npuschema_runtime::driver::{
    CacheTarget, Driver, DriverError, DriverOptions, IrqLatch, Platform, Registers, Status,
};
use npuschema_sim::{Faults, Sim, SimConfig};

#[repr(C, align(16))]
struct Aligned<const N: usize>([u8; N]);

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
    cmd0(&mut s, 0x130, src);
    cmd0(&mut s, 0x131, dst);
    cmd1(&mut s, 0x4030, 0);
    cmd1(&mut s, 0x4031, dst_off);
    cmd1(&mut s, 0x4032, len);
    cmd0(&mut s, 0x010, 0);
    cmd0(&mut s, 0x011, 0);
    cmd0(&mut s, 0x000, 0xFFFF);
    s
}

/// Region 0 baked (64 bytes), region 1 runtime (128 bytes); `stream` as given.
struct Fixture {
    cmd: Box<Aligned<256>>,
    len: usize,
    weights: Box<Aligned<64>>,
    arena: Vec<u8>,
}

impl Fixture {
    fn new(stream: &[u8]) -> Self {
        let mut cmd = Box::new(Aligned([0; 256]));
        cmd.0[..stream.len()].copy_from_slice(stream);
        Self {
            cmd,
            len: stream.len(),
            weights: Box::new(Aligned([0x5A; 64])),
            arena: vec![0; 256],
        }
    }

    fn job(&mut self) -> Job<'_, '_> {
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
            &self.cmd.0[..self.len],
            128,
            regions,
            &mut self.arena,
            &Identity,
        )
        .unwrap()
    }
}

fn opts(run_timeout: u64) -> DriverOptions {
    DriverOptions {
        address_bits: 64,
        run_timeout,
        reset_polls: 20,
        ..DriverOptions::default()
    }
}

fn hang() -> Faults {
    Faults {
        hang: true,
        ..Faults::default()
    }
}

// ---- hole 1: the latch proves nothing alone ------------------------------------------

/// A register block that is not the NPU: it reads "stopped, command stream ended, IRQ
/// raised".
struct Fake;
impl Registers for Fake {
    fn read(&mut self, offset: u32) -> u32 {
        if offset == STATUS {
            Status::IRQ_RAISED | Status::CMD_END_REACHED
        } else {
            0
        }
    }
    fn write(&mut self, _: u32, _: u32) {}
}

/// A platform whose sleep fills the latch from a foreign register block.
struct Liar {
    sim: Sim,
    latch: Rc<IrqLatch>,
}
impl Platform for Liar {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        self.sim.clean(bytes, npu, target);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        self.sim.invalidate(bytes, npu, target);
    }
    fn sleep(&mut self, _ready: &dyn Fn() -> bool) {
        self.latch.on_irq(&mut Fake);
        self.sim.tick();
    }
}

#[test]
fn a_latch_filled_from_foreign_registers_does_not_end_the_run() {
    // Before: run_irq returned Ok(STATUS 0x22) here while the simulated NPU still ran.
    let sim = Sim::new(SimConfig {
        faults: hang(),
        ..SimConfig::default()
    });
    let latch = Rc::new(IrqLatch::new());
    let platform = Liar {
        sim: sim.clone(),
        latch: Rc::clone(&latch),
    };
    let mut driver = Driver::new(sim.clone(), platform, opts(50));
    driver.init().unwrap();
    let mut fx = Fixture::new(&dma_stream(0, 1, 16, 64));
    let mut job = CheckedJob::check(fx.job()).unwrap();
    sim.bind_job(&job);
    let mut key = latch.claim().unwrap();
    let e = driver.run_irq(&mut job, &mut key).unwrap_err();
    assert_eq!(e.code, "npu-timeout", "the driver read its own STATUS");
    assert!(
        latch.count() >= 2,
        "the fake fills were seen, and not believed"
    );
    assert!(!Status(sim.peek_status()).running(), "stopped by the reset");
}

#[test]
fn a_latch_hands_out_one_key() {
    let latch = IrqLatch::new();
    let key = latch.claim();
    assert!(key.is_some());
    assert!(latch.claim().is_none(), "a second driver cannot wait on it");
    assert!(std::ptr::eq(key.unwrap().latch(), &latch));
}

// ---- hole 3: the stream is checked on the device ---------------------------------------

#[test]
fn a_stream_past_its_region_or_into_a_baked_one_is_refused_before_the_driver() {
    // Past the end of region 1 (128 bytes): offset 100 + 64.
    let mut fx = Fixture::new(&dma_stream(0, 1, 100, 64));
    let refused = CheckedJob::check(fx.job()).unwrap_err();
    assert_eq!(refused.error.code(), "region-overflow");
    // The job comes back untouched.
    assert_eq!(refused.job.region_count(), 2);

    // Into the baked region 0 (the blob's bytes, held as &[u8]).
    let mut fx = Fixture::new(&dma_stream(1, 0, 0, 16));
    let refused = CheckedJob::check(fx.job()).unwrap_err();
    match refused.error {
        JobCheckError::Finding { first, findings } => {
            assert_eq!(first.code, FindingCode::BakedRegionWritten);
            assert_eq!(first.region, 0);
            assert_eq!(findings, 1);
        }
        other => panic!("{other:?}"),
    }
    assert!(refused.error.to_string().contains("baked"));

    // A good stream passes, and the summary says what was checked.
    let mut fx = Fixture::new(&dma_stream(0, 1, 16, 64));
    let job = CheckedJob::check(fx.job()).unwrap();
    assert_eq!(job.summary().commands, 8);
    assert_eq!(job.summary().operations, 1);
    assert_eq!(job.summary().extents[1], 80);
}

// ---- hole 4: a job whose NPU did not reset is not returned ------------------------------

#[test]
#[cfg_attr(miri, ignore = "leaks its 'static job on purpose, which Miri reports")]
fn a_transfer_whose_reset_fails_keeps_its_job_and_poisons_the_driver() {
    let sim = Sim::new(SimConfig {
        faults: hang(),
        ..SimConfig::default()
    });
    let mut driver = Driver::new(sim.clone(), sim.clone(), opts(20));
    driver.init().unwrap();
    let fx: &'static mut Fixture = Box::leak(Box::new(Fixture::new(&dma_stream(0, 1, 16, 64))));
    let job = CheckedJob::check(fx.job()).unwrap();
    sim.bind_job(&job);
    let transfer = driver.start(job).unwrap();
    // The NPU hangs, and now will not reset either.
    sim.set_faults(Faults {
        hang: true,
        reset_hangs: true,
        ..Faults::default()
    });
    let stuck = transfer.wait().unwrap_err();
    assert_eq!(stuck.run.code, "npu-timeout");
    assert_eq!(stuck.reset.code, "reset-timeout");
    assert_eq!(
        driver.last_reset_error().map(|e| e.code),
        Some("reset-timeout")
    );

    // Poisoned: nothing starts until a reset succeeds.
    let mut other = Fixture::new(&dma_stream(0, 1, 16, 64));
    let mut job = CheckedJob::check(other.job()).unwrap();
    assert_eq!(driver.run(&mut job).unwrap_err().code, "npu-not-reset");
    assert_eq!(driver.soft_reset().unwrap_err().code, "reset-timeout");
    assert_eq!(driver.run(&mut job).unwrap_err().code, "npu-not-reset");
    sim.set_faults(Faults::default());
    driver.soft_reset().unwrap();
    assert_eq!(driver.last_reset_error(), None);
    sim.bind_job(&job);
    driver.run(&mut job).expect("runs after a successful reset");
}

/// A platform that counts failed resets and lets the NPU reset after `heal_after` of them.
struct Healing {
    sim: Sim,
    failed: Vec<DriverError>,
    heal_after: usize,
}
impl Platform for Healing {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        self.sim.clean(bytes, npu, target);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        self.sim.invalidate(bytes, npu, target);
    }
    fn idle(&mut self) {
        self.sim.tick();
    }
    fn reset_failed(&mut self, error: &DriverError) {
        self.failed.push(*error);
        if self.failed.len() >= self.heal_after {
            self.sim.set_faults(Faults::default());
        }
    }
}

#[test]
fn a_blocking_run_whose_reset_fails_returns_only_once_a_reset_succeeds() {
    // Before: run returned npu-timeout at once, the NPU still running, the arena free.
    let sim = Sim::new(SimConfig::default());
    let platform = Healing {
        sim: sim.clone(),
        failed: Vec::new(),
        heal_after: 3,
    };
    let mut driver = Driver::new(sim.clone(), platform, opts(20));
    driver.init().unwrap();
    driver.request_power().unwrap();
    sim.set_faults(Faults {
        hang: true,
        reset_hangs: true,
        ..Faults::default()
    });
    let mut fx = Fixture::new(&dma_stream(0, 1, 16, 64));
    let mut job = CheckedJob::check(fx.job()).unwrap();
    sim.bind_job(&job);
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "npu-timeout");
    let failed = &driver.platform_mut().failed;
    assert_eq!(
        failed.len(),
        3,
        "three failed resets reported; the reset after the third succeeded"
    );
    assert!(failed.iter().all(|f| f.code == "reset-timeout"));
    assert!(
        !Status(sim.peek_status()).running(),
        "returned with the NPU stopped"
    );
    assert_eq!(
        driver.last_reset_error(),
        None,
        "not poisoned: the reset succeeded"
    );
    assert!(driver.is_ready());
}
