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
/// // thread: driver.start_irq(&mut job, &NPU_IRQ)?.wait()
/// ```
#[derive(Debug, Default)]
pub struct IrqLatch {
    pending: AtomicBool,
    status: AtomicU32,
    qread: AtomicU32,
    count: AtomicU32,
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
        }
    }

    /// The interrupt handler's body: read `STATUS` and `QREAD`, clear the IRQ with
    /// `CMD = (CMD & 0xC) | 2`, and record the outcome for the waiting thread. Returns the
    /// `STATUS` read.
    pub fn on_irq<R: Registers + ?Sized>(&self, regs: &mut R) -> Status {
        let status = Status(regs.read(STATUS));
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
        status
    }

    /// An interrupt was recorded and not yet consumed by the driver.
    #[must_use]
    pub fn is_pending(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// Number of interrupts handled since the latch was created (wrapping).
    #[must_use]
    pub fn count(&self) -> u32 {
        self.count.load(Ordering::Relaxed)
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
