//! A `#![no_std]` staticlib with its own panic handler and no global allocator, exporting
//! `extern "C"` entry points over the firmware crates. `scripts/code-size` builds it for
//! `thumbv8m.main-none-eabihf`, links each export into a minimal ELF with
//! `--gc-sections`, measures the reachable `.text` and fails if any panic entry point is
//! reachable.
#![no_std]

use core::panic::PanicInfo;

/// Status codes returned by the exports.
pub mod status {
    /// Success.
    pub const OK: i32 = 0;
    /// A null pointer was passed.
    pub const NULL: i32 = -1;
}

/// Builds a byte slice from a C pointer and length; `None` for a null pointer.
///
/// # Safety
/// `ptr` must be null or point to `len` readable bytes that stay valid and unmodified for
/// `'a`.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Option<&'a [u8]> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null, and the caller guarantees `len` readable bytes for `'a`.
    Some(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// FNV-1a 32 of `len` bytes at `data`, through `npuschema_core::fnv1a32`, written to `*out`.
///
/// # Safety
/// `data` must point to `len` readable bytes; `out` must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npuschema_fnv1a32(data: *const u8, len: usize, out: *mut u32) -> i32 {
    // SAFETY: forwarded from this function's contract.
    let Some(data) = (unsafe { bytes(data, len) }) else {
        return status::NULL;
    };
    if out.is_null() {
        return status::NULL;
    }
    let h = npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, data);
    // SAFETY: `out` is non-null and writable by contract.
    unsafe { out.write(h) };
    status::OK
}

/// Deliberately reachable panic (an out-of-bounds index): the positive control that shows
/// `scripts/code-size`'s panic detector finds a panic path when there is one. Never called
/// by the measured entry points.
///
/// # Safety
/// `data` must point to `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npuschema_panic_canary(data: *const u8, len: usize, at: usize) -> u8 {
    // SAFETY: forwarded from this function's contract.
    let Some(data) = (unsafe { bytes(data, len) }) else {
        return 0;
    };
    #[allow(clippy::indexing_slicing)]
    data[at]
}

#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
