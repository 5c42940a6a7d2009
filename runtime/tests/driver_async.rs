//! `Transfer::wait_async` (feature `async`) on the host: a future woken from the simulated
//! NPU's interrupt handler through the `IrqLatch`'s atomic waker, driven by a minimal
//! executor written here (no executor crate): it parks the thread until a waker fires, and
//! counts the wake-ups, so a test can see that the interrupt, not busy polling, woke it.
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use npuschema_runtime::binder::{Identity, Job, RegionSource, RegionSpec};
use npuschema_runtime::cmd::CheckedJob;
use npuschema_runtime::driver::{Driver, DriverOptions, IrqLatch, Status};
use npuschema_sim::{Faults, Sim, SimConfig};

/// Counts its wake-ups.
struct CountingWaker(AtomicU32);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Poll `fut` to completion. Between two polls, when nothing has woken the task, "time
/// passes": `tick()` advances the simulated NPU (whose interrupt handler may wake the
/// task). Returns the output, the number of polls and the number of wake-ups.
fn block_on<F: Future>(fut: F, mut tick: impl FnMut()) -> (F::Output, u32, u32) {
    let counter = Arc::new(CountingWaker(AtomicU32::new(0)));
    let waker = Waker::from(Arc::clone(&counter));
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return (out, polls, counter.0.load(Ordering::SeqCst));
        }
        let woken = counter.0.load(Ordering::SeqCst);
        let mut ticks = 0;
        while counter.0.load(Ordering::SeqCst) == woken {
            tick();
            ticks += 1;
            assert!(ticks < 10_000, "never woken");
        }
    }
}

/// `job`, its stream checked against its regions (as firmware runs it).
fn checked<'b, 'a>(job: Job<'b, 'a>) -> CheckedJob<'b, 'a> {
    match CheckedJob::check(job) {
        Ok(c) => c,
        Err(r) => panic!("the test's stream fails the check: {}", r.error),
    }
}

#[repr(C, align(16))]
struct Aligned<const N: usize>([u8; N]);

/// A 'static job: region 0 baked 64 bytes, region 1 runtime 128; the stream copies the
/// weights to region 1 offset 16.
fn static_job() -> CheckedJob<'static, 'static> {
    let mut s: Vec<u8> = Vec::new();
    let mut cmd0 = |code: u16, param: u16| {
        s.extend_from_slice(&(u32::from(code) | (u32::from(param) << 16)).to_le_bytes())
    };
    cmd0(0x130, 0);
    cmd0(0x131, 1);
    let mut stream = s;
    for (code, payload) in [(0x4030u16, 0u32), (0x4031, 16), (0x4032, 64)] {
        stream.extend_from_slice(&u32::from(code).to_le_bytes());
        stream.extend_from_slice(&payload.to_le_bytes());
    }
    for code in [0x010u32, 0x011, 0xFFFF_0000] {
        stream.extend_from_slice(&code.to_le_bytes());
    }
    let cmd: &'static mut Aligned<256> = Box::leak(Box::new(Aligned([0; 256])));
    cmd.0[..stream.len()].copy_from_slice(&stream);
    let weights: &'static mut Aligned<64> = Box::leak(Box::new(Aligned([0x5A; 64])));
    let arena: &'static mut [u8] = Box::leak(vec![0u8; 256].into_boxed_slice());
    let regions = [
        RegionSpec {
            role: 0,
            source: RegionSource::Baked(&weights.0),
        },
        RegionSpec {
            role: 1,
            source: RegionSource::Runtime(128),
        },
    ];
    checked(Job::bind_parts(&cmd.0[..stream.len()], 128, regions, arena, &Identity).unwrap())
}

fn opts() -> DriverOptions {
    DriverOptions {
        address_bits: 64,
        ..DriverOptions::default()
    }
}

#[test]
fn wait_async_is_woken_by_the_interrupt_handler() {
    let sim = Sim::new(SimConfig {
        run_latency: 20,
        ..SimConfig::default()
    });
    let mut driver = Driver::new(sim.clone(), sim.clone(), opts());
    driver.init().unwrap();
    let latch: &'static IrqLatch = Box::leak(Box::new(IrqLatch::new()));
    sim.set_irq_handler(move |regs| {
        latch.on_irq(regs);
    });
    let job = static_job();
    sim.bind_job(&job);
    let mut key = latch.claim().unwrap();
    let transfer = driver.start_irq(job, &mut key).unwrap();
    let ticker = sim.clone();
    let (done, polls, wakes) = block_on(transfer.wait_async(), || ticker.tick());
    let (job, result) = done.unwrap();
    let info = result.unwrap();
    assert!(info.status.cmd_end_reached());
    assert_eq!(polls, 2, "polled once, woken once by the interrupt, done");
    assert_eq!(wakes, 1);
    assert_eq!(latch.count(), 1);
    assert_eq!(&job.region_bytes(1).unwrap()[16..80], &[0x5A; 64]);
    assert_eq!(driver.power_requests(), 0);
}

#[test]
fn dropping_the_future_stops_the_npu() {
    let sim = Sim::new(SimConfig {
        faults: Faults {
            hang: true,
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let mut driver = Driver::new(sim.clone(), sim.clone(), opts());
    driver.init().unwrap();
    let latch: &'static IrqLatch = Box::leak(Box::new(IrqLatch::new()));
    let job = static_job();
    sim.bind_job(&job);
    let mut key = latch.claim().unwrap();
    let transfer = driver.start_irq(job, &mut key).unwrap();
    {
        let fut = pin!(transfer.wait_async());
        let waker = Waker::from(Arc::new(CountingWaker(AtomicU32::new(0))));
        let mut cx = Context::from_waker(&waker);
        assert!(fut.poll(&mut cx).is_pending());
        assert!(Status(sim.peek_status()).running());
    }
    assert!(
        !Status(sim.peek_status()).running(),
        "the dropped future's transfer reset the NPU"
    );
    assert_eq!(driver.power_requests(), 0);
}
