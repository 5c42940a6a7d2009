//! The simulated NPU without std: [`StaticSim`] owns the register model and executor, its
//! memory is a [`crate::StaticMemory`] over caller-given storage, and [`SimRef`] (a `Copy`
//! handle) is both the driver's register block and its platform, as `Sim` is with std. Completion is found by polling `STATUS` (there is no interrupt handler to call).

use core::cell::RefCell;

use npuschema_runtime::binder::Job;
use npuschema_runtime::driver::regs::STATUS;
use npuschema_runtime::driver::{CacheTarget, Platform, Registers};

use crate::model::Core;
use crate::{RunRecord, SimConfig, SimStats};

/// One simulated NPU, for a `no_std` image. Lend it to a driver with [`StaticSim::handle`].
#[derive(Debug)]
pub struct StaticSim {
    core: RefCell<Core>,
}

impl StaticSim {
    /// A simulated NPU, powered up, whose writable memory (the runtime regions the driver's
    /// cache clean hands it) is carved from `backing`: give it at least the job's runtime
    /// region bytes.
    #[must_use]
    pub fn new(cfg: SimConfig, backing: &'static mut [u8]) -> Self {
        let mut core = Core::new(cfg);
        core.memory.give(backing);
        Self {
            core: RefCell::new(core),
        }
    }

    /// Make the read-only `bytes` (the blob: command stream and baked regions) visible to
    /// the NPU at bus address `npu`, in place. With the identity address map that is the
    /// blob's own address. `false` if it overlaps memory already mapped.
    pub fn map_static(&self, npu: u64, bytes: &'static [u8]) -> bool {
        self.core
            .try_borrow_mut()
            .is_ok_and(|mut c| c.memory.map_static(npu, bytes))
    }

    /// Region sizes from a bound job (regions past its last are unbound), so that an access
    /// outside its region faults.
    pub fn bind_job(&self, job: &Job<'_, '_>) {
        if let Ok(mut core) = self.core.try_borrow_mut() {
            core.region_sizes = [None; 8];
            for r in job.regions() {
                if let Some(slot) = core.region_sizes.get_mut(usize::from(r.index)) {
                    *slot = Some(r.size);
                }
            }
        }
    }

    /// The backing memory, back for the next simulated NPU.
    pub fn into_backing(self) -> &'static mut [u8] {
        self.core.into_inner().memory.take_backing()
    }

    /// The register block and platform for a driver.
    #[must_use]
    pub fn handle(&self) -> SimRef<'_> {
        SimRef { core: &self.core }
    }

    /// What the last run did.
    #[must_use]
    pub fn last_run(&self) -> Option<RunRecord> {
        self.core.try_borrow().ok()?.last_run.clone()
    }

    /// Counters.
    #[must_use]
    pub fn stats(&self) -> SimStats {
        self.core.try_borrow().map(|c| c.stats).unwrap_or_default()
    }

    /// `AXI_LIMIT0..3` as programmed.
    #[must_use]
    pub fn axi_limits(&self) -> [u32; 4] {
        self.core
            .try_borrow()
            .map(|c| c.axi_limits())
            .unwrap_or_default()
    }

    /// `REGIONCFG` as programmed.
    #[must_use]
    pub fn regioncfg(&self) -> u32 {
        self.core.try_borrow().map_or(0, |c| c.regioncfg())
    }

    /// `QCONFIG` as programmed.
    #[must_use]
    pub fn qconfig(&self) -> u32 {
        self.core.try_borrow().map_or(0, |c| c.qconfig())
    }

    /// `STATUS` without side effects (no tick).
    #[must_use]
    pub fn peek_status(&self) -> u32 {
        self.core.try_borrow().map_or(0, |c| c.read(STATUS))
    }
}

/// A handle on a [`StaticSim`]: the driver's register block and platform.
#[derive(Clone, Copy, Debug)]
pub struct SimRef<'s> {
    core: &'s RefCell<Core>,
}

impl SimRef<'_> {
    /// One tick of simulated time; an interrupt raised is consumed (nothing is wired to it).
    fn tick(&self) {
        if let Ok(mut core) = self.core.try_borrow_mut() {
            core.tick();
            core.take_irq_event();
        }
    }
}

impl Registers for SimRef<'_> {
    fn read(&mut self, offset: u32) -> u32 {
        if offset == STATUS {
            self.tick();
        }
        self.core.try_borrow().map_or(0, |c| c.read(offset))
    }

    fn write(&mut self, offset: u32, value: u32) {
        if let Ok(mut core) = self.core.try_borrow_mut() {
            core.write(offset, value);
            core.take_irq_event();
        }
    }
}

impl Platform for SimRef<'_> {
    fn clean(&mut self, bytes: &[u8], npu: u64, _target: CacheTarget) {
        if let Ok(mut core) = self.core.try_borrow_mut() {
            core.stats.cleans = core.stats.cleans.saturating_add(1);
            core.memory.store(npu, bytes);
        }
    }

    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, _target: CacheTarget) {
        if let Ok(mut core) = self.core.try_borrow_mut() {
            core.stats.invalidates = core.stats.invalidates.saturating_add(1);
            if let Some(src) = core.memory.read(npu, bytes.len() as u64) {
                bytes.copy_from_slice(src);
            }
        }
    }

    fn now(&mut self) -> Option<u64> {
        self.core.try_borrow().ok().map(|c| c.now())
    }

    fn idle(&mut self) {
        if let Ok(mut core) = self.core.try_borrow_mut() {
            core.stats.idles = core.stats.idles.saturating_add(1);
        }
        self.tick();
    }

    /// A tick, unless `ready()` already holds: the interrupt is delivered inside the tick,
    /// so no wake-up is lost.
    fn sleep(&mut self, ready: &dyn Fn() -> bool) {
        if let Ok(mut core) = self.core.try_borrow_mut() {
            core.stats.sleeps = core.stats.sleeps.saturating_add(1);
        }
        if !ready() {
            self.tick();
        }
    }
}
