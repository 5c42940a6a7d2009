//! Volatile access to the NPU's memory-mapped registers: the only `unsafe` in the crate.
#![allow(unsafe_code)]

use crate::driver::Registers;
use crate::driver::regs::BLOCK_BYTES;

/// The Ethos-U55 register block at a fixed address, accessed with volatile 32-bit loads
/// and stores.
///
/// Offsets outside the 4 KiB block or not 4-byte aligned are never dereferenced: such a
/// read returns 0 and such a write is dropped.
#[derive(Debug)]
pub struct Mmio {
    base: usize,
}

impl Mmio {
    /// The register block at `base`.
    ///
    /// # Safety
    ///
    /// For as long as the value (or any value created from the same `base`) is used:
    ///
    /// * `base` is 4-byte aligned and is the address of an Ethos-U55 register block: the
    ///   4 KiB `base .. base + 0x1000` is mapped as device memory where 32-bit volatile loads
    ///   and stores are valid and have only the NPU's documented effects;
    /// * nothing else in the program treats that range as ordinary memory;
    /// * at most one `Mmio` drives the NPU from thread context (the one owned by
    ///   [`crate::driver::Driver`]); a second one may be created for the NPU's interrupt
    ///   handler, which touches only `STATUS`, `QREAD` and `CMD` through
    ///   [`crate::driver::IrqLatch::on_irq`].
    ///
    /// The NPU itself reads and writes the memory whose addresses the driver programs; the
    /// driver only takes those addresses from a [`crate::binder::Job`], which borrows that
    /// memory for the run.
    #[must_use]
    pub const unsafe fn new(base: usize) -> Self {
        Self { base }
    }

    /// The base address.
    #[must_use]
    pub const fn base(&self) -> usize {
        self.base
    }

    fn address(&self, offset: u32) -> Option<usize> {
        if offset >= BLOCK_BYTES || !offset.is_multiple_of(4) {
            return None;
        }
        self.base.checked_add(offset as usize)
    }
}

impl Registers for Mmio {
    fn read(&mut self, offset: u32) -> u32 {
        let Some(addr) = self.address(offset) else {
            return 0;
        };
        let ptr = core::ptr::with_exposed_provenance::<u32>(addr);
        // SAFETY: `Mmio::new`'s contract makes `base .. base + 0x1000` a 4-byte aligned,
        // mapped register block; `address` keeps `offset` inside it and 4-byte aligned, so
        // `ptr` is a valid, aligned register for a volatile 32-bit load.
        unsafe { ptr.read_volatile() }
    }

    fn write(&mut self, offset: u32, value: u32) {
        let Some(addr) = self.address(offset) else {
            return;
        };
        let ptr = core::ptr::with_exposed_provenance_mut::<u32>(addr);
        // SAFETY: as in `read`: an aligned register inside the block `Mmio::new`'s contract
        // guarantees; a volatile store is how the register is meant to be written.
        unsafe { ptr.write_volatile(value) }
    }
}
