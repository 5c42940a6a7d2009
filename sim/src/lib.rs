//! Host-side simulated Ethos-U55 for testing the driver without silicon
//!
//! [`Sim`] is a cheap, cloneable handle on one simulated NPU. It is both the driver's
//! register block ([`Registers`]) and its platform ([`Platform`]):
//!
//! * **Registers.** `ID`, `CONFIG`, `STATUS`, `CMD`, `RESET`, `QBASE`/`QBASE_HI`, `QSIZE`,
//!   `QCONFIG`, `QREAD`, `PROT`, `REGIONCFG`, `AXI_LIMIT0..3`, `BASEP[0..8]`, and the PMU
//!   (`PMCR` .. `PMCCNTR_CFG`, `PMEVCNTR[0..4]`, `PMEVTYPER[0..4]`: cycles from its ticks,
//!   events from what it executes). A soft reset takes [`SimConfig::reset_latency`]
//!   `STATUS` reads, clears the registers (`CMD` to its reset value `0xC`, both Q-channels
//!   enabled) and sets `PROT` to the level asked for. `CMD` bit 0 starts a run, bit 1
//!   clears the IRQ; the Q-channel bits at each start are recorded
//!   ([`RunRecord::cmd_q_at_start`]).
//! * **Memory.** The simulator never dereferences an address. It holds its own copy of the
//!   memory the NPU may touch, as windows at NPU bus addresses; the driver's cache hooks
//!   are what move bytes in and out, exactly as a non-coherent cache would: `clean` copies
//!   the CPU's bytes into the simulated memory at the bus address the driver gave, and
//!   `invalidate` copies the simulated memory back into the CPU's buffer. A driver that
//!   forgets either gets stale data, as on hardware. [`Sim::map`] adds memory directly.
//! * **Regions.** Hardware does not know region sizes; the simulator is told them
//!   ([`Sim::set_region_size`], [`Sim::bind_job`]) so that any access outside its bound
//!   region raises `bus_status`, with `QREAD` at the faulting command.
//! * **Execution.** At `CMD` run the stream at `QBASE` (`QSIZE` bytes) is decoded with
//!   [`npuschema_runtime::cmd`]; every memory-touching operation's accesses are checked;
//!   `NPU_OP_DMA_START` copies bytes (a DMA into SHRAM's last 2 KiB loads the LUT memory the
//!   LUT activations read; other SHRAM transfers are checked on their external side only);
//!   compute operations produce their outputs ([`compute`]). The run completes
//!   [`SimConfig::run_latency`] ticks later (a tick is a `STATUS` read, a
//!   [`Platform::idle`] call, or a [`Platform::sleep`] call that finds the run not done;
//!   the ticks are its clock, [`Platform::now`]) with `cmd_end_reached` (when `NPU_OP_STOP` is the stream's
//!   last command, or the stream runs out) and `irq_raised`, and calls the handler set with
//!   [`Sim::set_irq_handler`], so the driver's interrupt path runs. A malformed stream sets
//!   `cmd_parse_error`; a bad access sets `bus_status` and the faulting channel/interface.
//!   After a fault, runs are ignored until a soft reset.
//! * **Memory bound.** A run decodes the stream and each weight stream as it runs and keeps
//!   nothing beyond the simulated memory, SHRAM and the registers. Only a session
//!   ([`with_session`], [`Sim::set_keep_decodings`]) keeps decodings for the next runs,
//!   each bounded by what the model needs ([`KeptBytes`], [`Session`]).
//! * **Faults** to inject: [`Faults`].
//!
//! **Without std.** With the default `std` feature off the crate is `no_std` and needs no
//! allocator: `StaticSim` is the same register model and executor over memory the caller
//! gives ([`StaticMemory`]: the blob mapped in place, runtime regions copied into caller
//! storage by the cache hooks), polled (no interrupt handler). Firmware links it to run the
//! real driver on a simulated NPU (firmware/ runs it under QEMU).
#![cfg_attr(not(feature = "std"), no_std)]

pub mod compute;
mod elementwise;
mod memory;
pub mod mlw;
mod model;
#[cfg(feature = "std")]
pub mod run;
mod static_memory;
#[cfg(not(feature = "std"))]
mod static_sim;
mod tanh_sigmoid;

#[cfg(feature = "std")]
use std::cell::RefCell;
#[cfg(feature = "std")]
use std::rc::Rc;

pub use compute::{Budget, BudgetKind, ComputeError, KEPT_WEIGHT_BYTES_PER_STREAM_BYTE, Work};
pub use memory::Memory;
#[cfg(feature = "std")]
pub use model::KeptBytes;
pub use model::{
    BusFault, CONFIG_U55_128, CONFIG_U55_256, DEFAULT_ID, Faults, RunRecord, SimConfig, SimStats,
    channel, register_name,
};
#[cfg(feature = "std")]
pub use run::{
    Inference, Place, RegionReport, RunError, RunOptions, RunReport, Session, run_blob,
    run_with_io, with_session,
};
pub use static_memory::{MAX_WINDOWS, StaticMemory};
#[cfg(not(feature = "std"))]
pub use static_sim::{SimRef, StaticSim};

#[cfg(feature = "std")]
use npuschema_runtime::binder::Job;
#[cfg(feature = "std")]
use npuschema_runtime::driver::regs::STATUS;
#[cfg(feature = "std")]
use npuschema_runtime::driver::{CacheTarget, Platform, Registers};

#[cfg(feature = "std")]
use model::Core;

#[cfg(feature = "std")]
type IrqHandler = Box<dyn FnMut(&mut Sim)>;

/// A handle on one simulated NPU; clones share it.
#[cfg(feature = "std")]
#[derive(Clone)]
pub struct Sim {
    core: Rc<RefCell<Core>>,
    irq: Rc<RefCell<Option<IrqHandler>>>,
}

#[cfg(feature = "std")]
impl std::fmt::Debug for Sim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sim")
            .field("core", &self.core)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl Default for Sim {
    fn default() -> Self {
        Self::new(SimConfig::default())
    }
}

#[cfg(feature = "std")]
impl Sim {
    /// A simulated NPU, powered up (no reset needed before the first run, as after a
    /// hardware reset).
    #[must_use]
    pub fn new(cfg: SimConfig) -> Self {
        Self {
            core: Rc::new(RefCell::new(Core::new(cfg))),
            irq: Rc::new(RefCell::new(None)),
        }
    }

    /// The configuration (faults included).
    #[must_use]
    pub fn config(&self) -> SimConfig {
        self.core.borrow().cfg
    }

    /// Change the injected faults.
    pub fn set_faults(&self, faults: Faults) {
        self.core.borrow_mut().cfg.faults = faults;
    }

    /// Keep decodings for the next runs, as a session does ([`with_session`]): the
    /// command stream's (while its bytes are unchanged; bounded by its commands and
    /// operations, [`KeptBytes::stream_bound`]) and its weight streams' (at most
    /// [`compute::KEPT_WEIGHT_BYTES_PER_STREAM_BYTE`] bytes per byte of the weight streams
    /// its operations read and [`KeptBytes::WEIGHT_ENTRY_BYTES`] a stream,
    /// [`KeptBytes::weights_bound`]). Off by default: every run decodes as it runs and keeps nothing
    /// beyond the simulated memory, SHRAM and the registers, as the `no_std` build; turning
    /// it off drops what was kept.
    pub fn set_keep_decodings(&self, keep: bool) {
        self.core.borrow_mut().set_keep(keep);
    }

    /// What is kept for the next runs ([`Self::set_keep_decodings`]).
    #[must_use]
    pub fn kept(&self) -> KeptBytes {
        self.core.borrow().kept()
    }

    /// Change the run latency in ticks.
    pub fn set_run_latency(&self, ticks: u32) {
        self.core.borrow_mut().cfg.run_latency = ticks;
    }

    /// Tell the simulator the size of region `index` (`None`: unbound, any access faults).
    pub fn set_region_size(&self, index: usize, size: Option<u64>) {
        if let Some(slot) = self.core.borrow_mut().region_sizes.get_mut(index) {
            *slot = size;
        }
    }

    /// Region sizes from a bound job (regions past its last are unbound).
    pub fn bind_job(&self, job: &Job<'_, '_>) {
        let mut core = self.core.borrow_mut();
        core.region_sizes = [None; 8];
        for r in job.regions() {
            if let Some(slot) = core.region_sizes.get_mut(usize::from(r.index)) {
                *slot = Some(r.size);
            }
        }
    }

    /// Make `data` visible to the NPU at bus address `npu`.
    pub fn map(&self, npu: u64, data: &[u8]) -> bool {
        self.core.borrow_mut().memory.store(npu, data)
    }

    /// A copy of simulated memory `npu .. npu + len`, if it is all in one window.
    #[must_use]
    pub fn memory(&self, npu: u64, len: u64) -> Option<Vec<u8>> {
        self.core.borrow().memory.read(npu, len).map(<[u8]>::to_vec)
    }

    /// Every window of simulated memory as `(bus address, length)`.
    #[must_use]
    pub fn windows(&self) -> Vec<(u64, u64)> {
        self.core.borrow().memory.windows().collect()
    }

    /// Counters.
    #[must_use]
    pub fn stats(&self) -> SimStats {
        self.core.borrow().stats
    }

    /// What the last run did.
    #[must_use]
    pub fn last_run(&self) -> Option<RunRecord> {
        self.core.borrow().last_run.clone()
    }

    /// Every register write so far, as `(offset, value)`, in order.
    #[must_use]
    pub fn write_log(&self) -> Vec<(u32, u32)> {
        self.core.borrow().writes.clone()
    }

    /// Forget the register writes logged so far ([`Self::write_log`]).
    pub fn clear_write_log(&self) {
        self.core.borrow_mut().writes.clear();
    }

    /// `BASEP[n]` as programmed.
    #[must_use]
    pub fn basep(&self, n: usize) -> u64 {
        self.core.borrow().basep(n)
    }

    /// `AXI_LIMIT0..3` as programmed.
    #[must_use]
    pub fn axi_limits(&self) -> [u32; 4] {
        self.core.borrow().axi_limits()
    }

    /// `REGIONCFG` as programmed.
    #[must_use]
    pub fn regioncfg(&self) -> u32 {
        self.core.borrow().regioncfg()
    }

    /// `QCONFIG` as programmed.
    #[must_use]
    pub fn qconfig(&self) -> u32 {
        self.core.borrow().qconfig()
    }

    /// `STATUS` without side effects (no tick).
    #[must_use]
    pub fn peek_status(&self) -> u32 {
        self.core.borrow().read(STATUS)
    }

    /// Call `handler` whenever the NPU raises its interrupt (the "interrupt controller").
    /// It gets the simulator as its register block, as an ISR gets the NPU's registers.
    pub fn set_irq_handler(&self, handler: impl FnMut(&mut Sim) + 'static) {
        *self.irq.borrow_mut() = Some(Box::new(handler));
    }

    /// Remove the interrupt handler.
    pub fn clear_irq_handler(&self) {
        *self.irq.borrow_mut() = None;
    }

    /// The simulated clock: ticks so far (what [`Platform::now`] returns).
    #[must_use]
    pub fn now(&self) -> u64 {
        self.core.borrow().now()
    }

    /// Advance simulated time by one tick.
    pub fn tick(&self) {
        self.core.borrow_mut().tick();
        self.deliver_irq();
    }

    /// If an IRQ was raised since the last delivery and a handler is registered (and not
    /// already running: interrupts do not nest), call it.
    fn deliver_irq(&self) {
        if !self.core.borrow_mut().take_irq_event() {
            return;
        }
        // Take the handler out while it runs, so a nested delivery finds none.
        let Some(mut handler) = self.irq.borrow_mut().take() else {
            return;
        };
        {
            let mut core = self.core.borrow_mut();
            core.stats.irqs_delivered = core.stats.irqs_delivered.saturating_add(1);
        }
        let mut regs = self.clone();
        handler(&mut regs);
        let mut slot = self.irq.borrow_mut();
        if slot.is_none() {
            *slot = Some(handler);
        }
    }
}

#[cfg(feature = "std")]
impl Registers for Sim {
    fn read(&mut self, offset: u32) -> u32 {
        if offset == STATUS {
            self.core.borrow_mut().tick();
            self.deliver_irq();
        }
        self.core.borrow().read(offset)
    }

    fn write(&mut self, offset: u32, value: u32) {
        self.core.borrow_mut().write(offset, value);
        self.deliver_irq();
    }
}

#[cfg(feature = "std")]
impl Platform for Sim {
    fn clean(&mut self, bytes: &[u8], npu: u64, _target: CacheTarget) {
        let mut core = self.core.borrow_mut();
        core.stats.cleans = core.stats.cleans.saturating_add(1);
        core.memory.store(npu, bytes);
    }

    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, _target: CacheTarget) {
        let mut core = self.core.borrow_mut();
        core.stats.invalidates = core.stats.invalidates.saturating_add(1);
        if let Some(src) = core.memory.read(npu, bytes.len() as u64) {
            bytes.copy_from_slice(src);
        }
    }

    fn now(&mut self) -> Option<u64> {
        Some(self.core.borrow().now())
    }

    fn idle(&mut self) {
        {
            let mut core = self.core.borrow_mut();
            core.stats.idles = core.stats.idles.saturating_add(1);
        }
        self.tick();
    }

    /// A tick, unless `ready()` already holds: the interrupt is delivered inside the tick,
    /// so no wake-up is lost.
    fn sleep(&mut self, ready: &dyn Fn() -> bool) {
        {
            let mut core = self.core.borrow_mut();
            core.stats.sleeps = core.stats.sleeps.saturating_add(1);
        }
        if !ready() {
            self.tick();
        }
    }
}
