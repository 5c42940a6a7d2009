//! Platform hooks: data-cache maintenance, a clock, and what to do while waiting.

use crate::binder::RegionKind;

/// What a buffer handed to a cache hook is, so that a platform can treat each kind its own
/// way (skip the baked weights in a non-cacheable flash window, say, or invalidate a
/// camera's DMA buffer differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CacheTarget {
    /// The command stream (`QBASE`), read by the NPU.
    CommandStream,
    /// Region `index` (`BASEP[index]`) of the given kind.
    Region {
        /// The region index.
        index: u8,
        /// Baked (the blob's bytes), runtime (carved from the arena) or caller (a
        /// caller-owned buffer bound in place).
        kind: RegionKind,
    },
}

/// What the platform does around a run. Every method has a default, right for a system
/// without a data cache in front of the NPU's memory and without a clock.
///
/// The driver hands the cache hooks the CPU's view of each buffer (`bytes`, whose
/// `as_ptr_range()` is the CPU address range to maintain), the NPU bus address it gave the
/// NPU for it, and what the buffer is.
pub trait Platform {
    /// Before the NPU starts: write back (clean) the data cache over `bytes`, which the NPU
    /// will read at bus address `npu`. Called for the command stream and every region.
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        let _ = (bytes, npu, target);
    }

    /// After the NPU stopped: invalidate the data cache over `bytes`, which the NPU may have
    /// written at bus address `npu`, so the CPU reads what the NPU wrote. Called for every
    /// region the NPU may write (runtime and caller-owned), after success and after failure.
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        let _ = (bytes, npu, target);
    }

    /// The data-cache line, in bytes, that [`Platform::invalidate`] maintains whole lines
    /// of (32 on a Cortex-M55 or M85); 0 (the default): no cache to maintain. The driver
    /// refuses a job whose writable regions are not aligned and sized to it (bind it with
    /// [`crate::binder::CacheAligned::lines`]), so invalidating a region's lines never
    /// discards a neighbour's writes.
    fn cache_line(&self) -> u32 {
        0
    }

    /// A monotonic clock in any unit the caller chooses (microseconds, SysTick ticks, ...):
    /// the unit of [`super::DriverOptions::run_timeout`]. `None` (the default): no clock,
    /// and the run timeout counts completion checks instead.
    fn now(&mut self) -> Option<u64> {
        None
    }

    /// Called between two `STATUS` polls of a busy wait (a soft reset, or a run waited for
    /// by polling). Must return: the NPU raises no interrupt the core could wait for. The
    /// default is a spin-loop hint.
    fn idle(&mut self) {
        core::hint::spin_loop();
    }

    /// An inference is about to start: called once the run's registers are programmed,
    /// just before `CMD` starts the NPU (Arm's `ethosu_inference_begin`: start a trace,
    /// take a timestamp, raise a clock).
    fn inference_begin(&mut self) {}

    /// The inference has ended (`ok`: it succeeded), the NPU stopped: called after the
    /// outputs are invalidated, for a failure after the reset too (Arm's
    /// `ethosu_inference_end`).
    fn inference_end(&mut self, ok: bool) {
        let _ = ok;
    }

    /// The soft reset after a failed run failed too (`error`), during a blocking run
    /// ([`super::Driver::run`], [`super::Driver::run_irq`]): the NPU may still use the
    /// job's memory, which that call borrows, so the driver tries the reset again after
    /// this returns, for as long as it takes. Log it, count it, or reset the system (and
    /// never return). The default calls [`Platform::idle`].
    fn reset_failed(&mut self, error: &super::DriverError) {
        let _ = error;
        self.idle();
    }

    /// Sleep until the NPU interrupt may have come, when waiting for a run through an
    /// [`super::IrqLatch`]. `ready()` is true once the interrupt handler has recorded the
    /// outcome.
    ///
    /// # Contract
    ///
    /// The implementation must not sleep past an interrupt that arrived after the driver's
    /// last check and before the sleep (the lost wake-up of "check, then `WFI`"). Either:
    ///
    /// * mask interrupts, call `ready()`, execute `WFI` only if it is false, unmask (`WFI`
    ///   wakes on a pending interrupt even while it is masked, and the handler runs at the
    ///   unmask); or
    /// * call `ready()` and, if it is false, execute `WFE`, when the NPU interrupt's entry
    ///   or return sets the event register (it does on Armv7-M and Armv8-M; or have the
    ///   handler execute `SEV`), so a `WFE` after it returns at once.
    ///
    /// Returning early is always allowed (the driver checks again and calls it again). The
    /// default does not sleep: it calls [`Platform::idle`] if `ready()` is false.
    fn sleep(&mut self, ready: &dyn Fn() -> bool) {
        if !ready() {
            self.idle();
        }
    }
}

impl<T: Platform + ?Sized> Platform for &mut T {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        (**self).clean(bytes, npu, target);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        (**self).invalidate(bytes, npu, target);
    }
    fn now(&mut self) -> Option<u64> {
        (**self).now()
    }
    fn cache_line(&self) -> u32 {
        (**self).cache_line()
    }
    fn idle(&mut self) {
        (**self).idle();
    }
    fn sleep(&mut self, ready: &dyn Fn() -> bool) {
        (**self).sleep(ready);
    }
    fn reset_failed(&mut self, error: &super::DriverError) {
        (**self).reset_failed(error);
    }
    fn inference_begin(&mut self) {
        (**self).inference_begin();
    }
    fn inference_end(&mut self, ok: bool) {
        (**self).inference_end(ok);
    }
}

/// The platform with no cache to maintain and no clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCache;

impl Platform for NoCache {}
