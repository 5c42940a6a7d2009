//! Platform hooks: data-cache maintenance and what to do while waiting.

/// What the platform does around a run. Every method has a no-op default, right for a
/// system without a data cache in front of the NPU's memory.
///
/// The driver hands the hooks the CPU's view of each buffer (`bytes`, whose
/// `as_ptr_range()` is the CPU address range to maintain) and the NPU bus address it gave
/// the NPU for it.
pub trait Platform {
    /// Before the NPU starts: write back (clean) the data cache over `bytes`, which the NPU
    /// will read at bus address `npu`. Called for the command stream and every region.
    fn clean(&mut self, bytes: &[u8], npu: u64) {
        let _ = (bytes, npu);
    }

    /// After the NPU stopped: invalidate the data cache over `bytes`, which the NPU may have
    /// written at bus address `npu`, so the CPU reads what the NPU wrote. Called for every
    /// runtime region, after success and after failure.
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64) {
        let _ = (bytes, npu);
    }

    /// Called between two checks of a bounded wait (for example `WFI` on a Cortex-M when
    /// waiting for the NPU interrupt). The default is a spin-loop hint.
    fn idle(&mut self) {
        core::hint::spin_loop();
    }
}

impl<T: Platform + ?Sized> Platform for &mut T {
    fn clean(&mut self, bytes: &[u8], npu: u64) {
        (**self).clean(bytes, npu);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64) {
        (**self).invalidate(bytes, npu);
    }
    fn idle(&mut self) {
        (**self).idle();
    }
}

/// The platform with no cache to maintain.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCache;

impl Platform for NoCache {}
