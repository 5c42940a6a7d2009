//! The interrupt path: an [`IrqLatch`] the NPU interrupt handler fills and the thread that
//! started the run reads.

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
/// // thread: driver.run_irq(&mut job, &NPU_IRQ)?, or driver.start_irq(job, &NPU_IRQ)
/// ```
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
    #[cfg(feature = "async")]
    waker: atomic_waker::AtomicWaker,
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
            #[cfg(feature = "async")]
            waker: atomic_waker::AtomicWaker::new(),
        }
    }

    /// The interrupt handler's body: read `STATUS`; if `irq_raised` is clear, count a
    /// spurious interrupt and return; otherwise read `QREAD`, clear the IRQ with
    /// `CMD = (CMD & 0xC) | 2`, record the outcome for the waiting thread and wake it.
    /// Returns the `STATUS` read.
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

    /// Consume the recorded outcome: `STATUS` and `QREAD`.
    pub(crate) fn take(&self) -> Option<(Status, u32)> {
        if !self.pending.load(Ordering::Acquire) {
            return None;
        }
        let status = Status(self.status.load(Ordering::Relaxed));
        let qread = self.qread.load(Ordering::Relaxed);
        self.pending.store(false, Ordering::Relaxed);
        Some((status, qread))
    }

    /// Forget a stale outcome (before a run starts).
    pub(crate) fn clear(&self) {
        self.pending.store(false, Ordering::Relaxed);
    }
}
