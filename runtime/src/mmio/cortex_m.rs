//! A ready [`Platform`] for Cortex-M cores with a data cache (feature `cortex-m`), and the
//! typed interrupt binding.
//!
//! * [`CortexM`]: `clean` and `invalidate` by address through the SCB (whole 32-byte
//!   lines: [`Platform::cache_line`] is [`CACHE_LINE`], so the driver runs only jobs bound
//!   with [`crate::binder::CacheAligned::lines`]); `now()` from DWT's cycle counter, or from
//!   SysTick where the core has no cycle counter (or it does not count, as under QEMU),
//!   extended to 64 bits; `sleep` with `WFE` after the readiness check (the NPU
//!   interrupt's entry sets the event register, so a `WFE` after it returns at once: no
//!   lost wake-up); `idle` a spin hint. Timeouts are then in core clock cycles:
//!   [`CortexM::cycles`] turns microseconds into them.
//! * [`NpuInterrupt`]: a `static` that owns the NPU's [`IrqLatch`] and knows its register
//!   block; [`bind_npu_interrupt!`](crate::bind_npu_interrupt) writes the handler that
//!   fills it, in the spirit of embassy's `bind_interrupts!`; the driver waits on it with
//!   its one key ([`NpuInterrupt::key`]).

use ::cortex_m::peripheral::syst::SystClkSource;
use ::cortex_m::peripheral::{DCB, DWT, SCB, SYST};

use super::Mmio;
use crate::binder::CACHE_LINE;
use crate::driver::{CacheTarget, IrqKey, IrqLatch, Platform, Status};

/// Where [`CortexM::now`](Platform::now) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// DWT's 32-bit cycle counter (`CYCCNT`), extended to 64 bits.
    Dwt,
    /// SysTick, free-running over 24 bits on the core clock, extended to 64 bits.
    SysTick,
}

/// A Cortex-M platform for the driver: D-cache maintenance through the SCB, a cycle clock,
/// `WFE` sleep. See the [module docs](self).
pub struct CortexM {
    scb: SCB,
    source: ClockSource,
    last: u32,
    total: u64,
}

impl core::fmt::Debug for CortexM {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CortexM")
            .field("source", &self.source)
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

impl CortexM {
    /// Take the SCB (for cache maintenance) and start a clock: DWT's cycle counter if the
    /// core has one and it counts (trace enabled through `DCB`), else SysTick, which is
    /// then set free-running over 24 bits on the core clock (its interrupt untouched; a
    /// SysTick already running keeps its reload).
    pub fn new(scb: SCB, dcb: &mut DCB, dwt: &mut DWT, syst: &mut SYST) -> Self {
        let mut source = ClockSource::SysTick;
        if DWT::has_cycle_counter() {
            dcb.enable_trace();
            dwt.enable_cycle_counter();
            let a = DWT::cycle_count();
            for _ in 0..8 {
                core::hint::spin_loop();
            }
            if DWT::cycle_count() != a {
                source = ClockSource::Dwt;
            }
        }
        if source == ClockSource::SysTick && !syst.is_counter_enabled() {
            syst.set_clock_source(SystClkSource::Core);
            syst.set_reload(0x00FF_FFFF);
            syst.clear_current();
            syst.enable_counter();
        }
        let last = Self::raw(source);
        Self {
            scb,
            source,
            last,
            total: 0,
        }
    }

    /// The clock in use.
    #[must_use]
    pub fn clock_source(&self) -> ClockSource {
        self.source
    }

    /// `micros` microseconds in core clock cycles at `core_hz` (for
    /// [`crate::driver::DriverOptions::run_timeout`]); saturating.
    #[must_use]
    pub const fn cycles(micros: u64, core_hz: u32) -> u64 {
        micros.saturating_mul(core_hz as u64) / 1_000_000
    }

    /// Give the SCB back.
    pub fn free(self) -> SCB {
        self.scb
    }

    fn raw(source: ClockSource) -> u32 {
        match source {
            ClockSource::Dwt => DWT::cycle_count(),
            ClockSource::SysTick => SYST::get_current(),
        }
    }

    /// Cycles since the last call: CYCCNT counts up over 32 bits, SysTick down from its
    /// reload. Called at least once per wrap (the driver checks often), it never misses
    /// one.
    fn advance(&mut self) -> u64 {
        let now = Self::raw(self.source);
        let delta = match self.source {
            ClockSource::Dwt => now.wrapping_sub(self.last),
            ClockSource::SysTick => {
                let period = SYST::get_reload().wrapping_add(1);
                if now <= self.last {
                    self.last.wrapping_sub(now)
                } else {
                    self.last.wrapping_add(period).wrapping_sub(now)
                }
            }
        };
        self.last = now;
        self.total = self.total.wrapping_add(u64::from(delta));
        self.total
    }
}

impl Platform for CortexM {
    fn clean(&mut self, bytes: &[u8], _npu: u64, _target: CacheTarget) {
        // Cleaning writes dirty lines back; it loses nothing, whole lines or not.
        self.scb.clean_dcache_by_slice(bytes);
    }

    fn invalidate(&mut self, bytes: &mut [u8], _npu: u64, _target: CacheTarget) {
        // SAFETY: invalidating discards whatever the lines covering `bytes` hold in the
        // cache. The driver calls this only for a region the NPU may write, of a job it
        // ran; it runs a job only if `cache_line()` (32, `CACHE_LINE`, the line size the
        // SCB's by-address operations use) is at most the job's `region_align()`, and the
        // binder then aligns each such region to 32 bytes and sizes it to whole lines that
        // are its own: a runtime region's last line lies in the arena (which the job
        // borrows whole), a caller's buffer holds the rounded size (which the job
        // borrows). So the discarded lines hold only bytes the job owns, which the CPU has
        // not written since the driver cleaned them before the run, and which the NPU
        // wrote in memory: nothing of anyone else's is lost.
        unsafe { self.scb.invalidate_dcache_by_slice(bytes) };
    }

    fn cache_line(&self) -> u32 {
        CACHE_LINE as u32
    }

    fn now(&mut self) -> Option<u64> {
        Some(self.advance())
    }

    fn idle(&mut self) {
        core::hint::spin_loop();
    }

    fn sleep(&mut self, ready: &dyn Fn() -> bool) {
        // The check, then WFE: an interrupt that came after the check has set the event
        // register on its entry (Armv7-M and Armv8-M), so WFE returns at once.
        if !ready() {
            ::cortex_m::asm::wfe();
        }
        self.advance();
    }
}

/// The NPU's interrupt, bound: its latch and its register block. A `static`, filled by the
/// handler [`bind_npu_interrupt!`](crate::bind_npu_interrupt) writes, and waited on by the
/// driver with [`NpuInterrupt::key`].
#[derive(Debug)]
pub struct NpuInterrupt {
    latch: IrqLatch,
    base: usize,
}

impl NpuInterrupt {
    /// The binding of the NPU whose register block is at `base`.
    ///
    /// # Safety
    ///
    /// `base` satisfies [`Mmio::new`]'s contract (an Ethos-U55 register block), and
    /// [`NpuInterrupt::on_interrupt`] is called only from that NPU's interrupt handler
    /// (which is what [`bind_npu_interrupt!`](crate::bind_npu_interrupt) writes), where it
    /// touches only `STATUS`, `QREAD` and `CMD`'s clear-IRQ bit.
    #[must_use]
    pub const unsafe fn new(base: usize) -> Self {
        Self {
            latch: IrqLatch::new(),
            base,
        }
    }

    /// The handler's body: [`IrqLatch::on_irq`] on this NPU's registers.
    pub fn on_interrupt(&self) -> Status {
        // SAFETY: `NpuInterrupt::new`'s contract: `base` is the NPU's register block and
        // this runs in its interrupt handler, which `Mmio::new` allows beside the driver's
        // own `Mmio` (used only for `on_irq`).
        let mut regs = unsafe { Mmio::new(self.base) };
        self.latch.on_irq(&mut regs)
    }

    /// The latch's one key, for [`crate::driver::Driver::run_irq`] and
    /// [`crate::driver::Driver::start_irq`]; `None` once taken.
    pub fn key(&self) -> Option<IrqKey<'_>> {
        self.latch.claim()
    }

    /// The latch (counts, spurious interrupts).
    #[must_use]
    pub fn latch(&self) -> &IrqLatch {
        &self.latch
    }
}

/// Write the NPU's interrupt handler: the function named `$vector` (the interrupt's symbol
/// in the device's vector table, as a cortex-m-rt device crate names it) calls
/// [`NpuInterrupt::on_interrupt`] on the `static` `$binding`.
///
/// ```ignore
/// // SAFETY: NPU_BASE is the Ethos-U55's register block; only NPU_IRQ's handler fills it.
/// static NPU: NpuInterrupt = unsafe { NpuInterrupt::new(NPU_BASE) };
/// npuschema_runtime::bind_npu_interrupt!(NPU_IRQ => NPU);
/// // thread: let mut key = NPU.key().unwrap(); npu.run_irq(&mut job, &mut key)?;
/// ```
///
/// The handler is `#[unsafe(no_mangle)]` (it overrides the vector table's weak default), so
/// invoke this in your board glue, where `unsafe` is allowed, and enable the NVIC line.
#[macro_export]
macro_rules! bind_npu_interrupt {
    ($vector:ident => $binding:path) => {
        #[allow(non_snake_case, unsafe_code)]
        #[unsafe(no_mangle)]
        extern "C" fn $vector() {
            let _ = $binding.on_interrupt();
        }
    };
}
