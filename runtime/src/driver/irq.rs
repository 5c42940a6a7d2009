//! The interrupt path: an [`IrqLatch`] the NPU interrupt handler fills, and the one
//! [`IrqKey`] that lets a driver wait on it.
//!
//! The latch is only a wake-up hint: the driver that was woken confirms completion from its
//! own `STATUS` (and reads its own `QREAD`), so a latch filled from some other register
//! block, or by another NPU's handler, cannot end a run while the NPU still runs. A latch
//! hands out one key ([`IrqLatch::claim`]), and the driver takes it by `&mut` for the whole
//! run, so no two drivers wait on one latch at the same time (the second would consume the
//! first one's wake-up and sleep past it).

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::regs::{CMD, CMD_CLEAR_IRQ, CMD_PWR_CLK_MASK, QREAD, Registers, STATUS, Status};

/// The outcome of the last NPU interrupt, shared between the interrupt handler and the
/// thread waiting for the run. Lock-free with plain atomic loads and stores only, so it
/// works on cores without compare-and-swap (Cortex-M0).
///
/// ```ignore
/// static NPU_IRQ: IrqLatch = IrqLatch::new();
/// #[interrupt]
/// fn NPU() {
///     // SAFETY (in the application): NPU_BASE is the NPU's register block.
///     let mut regs = unsafe { Mmio::new(NPU_BASE) };
///     NPU_IRQ.on_irq(&mut regs);
/// }
/// // thread, once: let mut key = NPU_IRQ.claim().ok_or(...)?;
/// // then: driver.run_irq(&mut job, &mut key)?, or driver.start_irq(job, &mut key)
/// ```
///
/// With the runtime's `cortex-m` feature, `npuschema_runtime::bind_npu_interrupt!` writes
/// the static latch and the handler for you.
///
/// An entry with `STATUS.irq_raised` clear (a spurious interrupt: a shared line, a glitch,
/// an interrupt left pending across a reset) is ignored and counted ([`IrqLatch::spurious`]):
/// it neither completes the run nor touches `CMD`.
///
/// With the `async` feature the latch also wakes the task that awaits the run
/// (`Transfer::wait_async`), through an allocation-free atomic waker.
#[derive(Debug, Default)]
pub struct IrqLatch {
    pending: AtomicBool,
    status: AtomicU32,
    qread: AtomicU32,
    count: AtomicU32,
    spurious: AtomicU32,
    claimed: AtomicBool,
    #[cfg(feature = "async")]
    waker: atomic_waker::AtomicWaker,
}

/// The right to wait on an [`IrqLatch`]: [`IrqLatch::claim`] hands out one per latch, and
/// [`super::Driver::run_irq`] / [`super::Driver::start_irq`] take it by `&mut` for the
/// run, so one latch serves one driver at a time. Neither `Clone` nor `Copy`.
#[derive(Debug)]
pub struct IrqKey<'l> {
    latch: &'l IrqLatch,
}

impl<'l> IrqKey<'l> {
    /// The latch this key waits on.
    #[must_use]
    pub fn latch(&self) -> &'l IrqLatch {
        self.latch
    }
}

impl IrqLatch {
    /// An empty latch.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            pending: AtomicBool::new(false),
            status: AtomicU32::new(0),
            qread: AtomicU32::new(0),
            count: AtomicU32::new(0),
            spurious: AtomicU32::new(0),
            claimed: AtomicBool::new(false),
            #[cfg(feature = "async")]
            waker: atomic_waker::AtomicWaker::new(),
        }
    }

    /// The one key of this latch; `None` once it has been claimed.
    ///
    /// Where the core has compare-and-swap this is an atomic swap. On a core without it
    /// (Cortex-M0) it is a load then a store: claim from one thread context only, not from
    /// an interrupt handler racing it.
    pub fn claim(&self) -> Option<IrqKey<'_>> {
        #[cfg(target_has_atomic = "8")]
        let taken = self.claimed.swap(true, Ordering::AcqRel);
        #[cfg(not(target_has_atomic = "8"))]
        let taken = {
            let t = self.claimed.load(Ordering::Acquire);
            self.claimed.store(true, Ordering::Release);
            t
        };
        if taken {
            None
        } else {
            Some(IrqKey { latch: self })
        }
    }

    /// The interrupt handler's body: read `STATUS`; if `irq_raised` is clear, count a
    /// spurious interrupt and return; otherwise read `QREAD`, clear the IRQ with
    /// `CMD = (CMD & 0xC) | 2`, record the outcome for the waiting thread and wake it.
    /// Returns the `STATUS` read.
    ///
    /// What it records is a hint: the driver woken by it reads its own `STATUS` before it
    /// believes the run is over.
    pub fn on_irq<R: Registers + ?Sized>(&self, regs: &mut R) -> Status {
        let status = Status(regs.read(STATUS));
        if !status.irq_raised() {
            // Only the handler writes `spurious`, so a load/store pair is enough.
            self.spurious.store(
                self.spurious.load(Ordering::Relaxed).wrapping_add(1),
                Ordering::Relaxed,
            );
            return status;
        }
        let qread = regs.read(QREAD);
        let cmd = regs.read(CMD);
        regs.write(CMD, (cmd & CMD_PWR_CLK_MASK) | CMD_CLEAR_IRQ);
        self.status.store(status.0, Ordering::Relaxed);
        self.qread.store(qread, Ordering::Relaxed);
        // Only the handler writes `count`, so a load/store pair is enough.
        self.count.store(
            self.count.load(Ordering::Relaxed).wrapping_add(1),
            Ordering::Relaxed,
        );
        self.pending.store(true, Ordering::Release);
        #[cfg(feature = "async")]
        self.waker.wake();
        status
    }

    /// An interrupt was recorded and not yet consumed by the driver.
    #[must_use]
    pub fn is_pending(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// Number of NPU interrupts recorded since the latch was created (wrapping); spurious
    /// ones are not counted here but in [`IrqLatch::spurious`].
    #[must_use]
    pub fn count(&self) -> u32 {
        self.count.load(Ordering::Relaxed)
    }

    /// Number of spurious interrupts (`irq_raised` clear) ignored since the latch was
    /// created (wrapping).
    #[must_use]
    pub fn spurious(&self) -> u32 {
        self.spurious.load(Ordering::Relaxed)
    }

    /// Register the waker of the task awaiting the run.
    #[cfg(feature = "async")]
    pub(crate) fn register(&self, waker: &core::task::Waker) {
        self.waker.register(waker);
    }

    /// `STATUS` and `QREAD` as the handler last read them (diagnostics only: the driver
    /// reads its own).
    #[must_use]
    pub fn last(&self) -> (Status, u32) {
        (
            Status(self.status.load(Ordering::Relaxed)),
            self.qread.load(Ordering::Relaxed),
        )
    }

    /// Consume the wake-up: `true` if the handler recorded an interrupt since the last take.
    pub(crate) fn take(&self) -> bool {
        if !self.pending.load(Ordering::Acquire) {
            return false;
        }
        self.pending.store(false, Ordering::Relaxed);
        true
    }

    /// Forget a stale outcome (before a run starts).
    pub(crate) fn clear(&self) {
        self.pending.store(false, Ordering::Relaxed);
    }
}
