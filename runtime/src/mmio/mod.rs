//! Volatile access to the NPU's memory-mapped registers, and the crate's other `unsafe`
//! promises (the address maps it ships): the only `unsafe` in the crate.
#![allow(unsafe_code)]

#[cfg(feature = "cortex-m")]
pub mod cortex_m;

use crate::binder::{AddressMap, CacheAligned, Identity};
use crate::driver::Registers;

// SAFETY: the identity is linear over every buffer (byte `k` of a buffer at `cpu` is at
// `cpu + k`), and on a system where the NPU sees memory at the CPU's addresses (which is
// what choosing `Identity` states) that address reaches that byte. Whether the NPU may use
// it is the buffer's placement, which the driver checks against the NPU's 32-bit reach
// (`DriverOptions::address_bits`).
unsafe impl AddressMap for Identity {}

// SAFETY: the addresses are the inner map's, which is an `AddressMap` and so vouches for
// them; only the runtime regions' alignment changes, which moves where regions are
// carved inside the arena, not how an address is mapped.
unsafe impl<M: AddressMap> AddressMap for CacheAligned<M> {
    fn npu_address(&self, cpu: usize) -> u64 {
        self.map.npu_address(cpu)
    }
    fn region_align(&self) -> u64 {
        self.align
    }
}
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
    /// * at most one `Mmio` drives the NPU from thread context, and it is used only as a
    ///   [`crate::driver::Driver`]'s register block (moved, or lent as `&mut`, into
    ///   [`crate::driver::Driver::new`]; the driver never gives it back); a second one may
    ///   be created for the NPU's interrupt handler, and used only with
    ///   [`crate::driver::IrqLatch::on_irq`] (which touches only `STATUS`, `QREAD` and
    ///   `CMD`'s clear-IRQ bit);
    /// * in particular, [`Registers::write`] is never called on it directly: a write to
    ///   `QBASE`, `BASEPn` and `CMD` could start the NPU on any memory, which is what the
    ///   driver's safe API rules out (see [`crate::driver`]).
    ///
    /// The NPU itself reads and writes the memory whose addresses the driver programs; the
    /// driver only takes those addresses from a [`crate::binder::Job`], which it holds (or
    /// borrows) until the NPU has stopped.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_stores_hit_the_right_word_and_stay_in_the_block() {
        let mut block = [0u32; 1024];
        let base = block.as_mut_ptr().expose_provenance();
        {
            // SAFETY: `block` is a 4-byte aligned 4 KiB array that outlives `m` and is
            // accessed only through `m` while `m` is in use.
            let mut m = unsafe { Mmio::new(base) };
            m.write(0x010, 0xDEAD_BEEF);
            m.write(0xFFC, 7);
            assert_eq!(m.read(0x010), 0xDEAD_BEEF);
            // Outside the block or misaligned: not dereferenced.
            m.write(0x1000, 1);
            m.write(0x011, 2);
            assert_eq!(m.read(0x1000), 0);
            assert_eq!(m.read(0x013), 0);
            assert_eq!(m.base(), base);
        }
        assert_eq!(block.get(4), Some(&0xDEAD_BEEF));
        assert_eq!(block.get(1023), Some(&7));
        assert_eq!(block.iter().filter(|&&w| w != 0).count(), 2);
    }
}
