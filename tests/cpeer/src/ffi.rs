//! The one place that calls C: `npu1_fnv1a` and `npu1_load`, each behind a safe function
//! that returns `None` when the C peer was not compiled, and `npu1_load_strict`.
#![allow(unsafe_code)]

use crate::MAX_REGIONS;

/// `npu1_job_t`: what [`load`] fills in on success.
#[repr(C)]
#[derive(Debug)]
pub struct Job {
    /// Command stream (an address inside the blob; never dereferenced on the Rust side).
    pub cmd: *const u8,
    /// Its length.
    pub cmd_bytes: u32,
    /// Region base addresses (inside the blob for baked regions, the arena for runtime).
    pub base: [usize; MAX_REGIONS],
    /// Region sizes.
    pub size: [u32; MAX_REGIONS],
    /// Number of regions.
    pub count: u32,
}

impl Default for Job {
    fn default() -> Self {
        Self {
            cmd: core::ptr::null(),
            cmd_bytes: 0,
            base: [0; MAX_REGIONS],
            size: [0; MAX_REGIONS],
            count: 0,
        }
    }
}

// SAFETY: the declarations match the definitions in `npu1_ref.c` (`size_t` is `usize`,
// `int` is `i32` and `uint32_t` is `u32` on the hosts this builds for, and `Job` is
// `npu1_job_t` field for field).
#[cfg(c_peer)]
unsafe extern "C" {
    fn npu1_fnv1a(p: *const u8, n: usize) -> u32;
    fn npu1_load(
        blob: *const u8,
        len: usize,
        arena: *mut u8,
        arena_len: usize,
        job: *mut Job,
    ) -> i32;
}

/// The C peer's FNV-1a 32 loop over `bytes` (from the offset basis); `None` when the C peer
/// was not compiled.
#[inline]
#[must_use]
pub fn fnv1a(bytes: &[u8]) -> Option<u32> {
    #[cfg(c_peer)]
    {
        // SAFETY: the pointer and length describe one live slice, which the C code only
        // reads, `n` bytes from `p`.
        Some(unsafe { npu1_fnv1a(bytes.as_ptr(), bytes.len()) })
    }
    #[cfg(not(c_peer))]
    {
        let _ = bytes;
        None
    }
}

/// The C peer's loader on `blob` with runtime regions placed in `arena`: validation (the
/// document's steps 1-7) and binding (step 8) into `job`. `Some(OK)` on success, else
/// `Some` of its `E_*` code (see [`crate::rule`]); `None` when the C peer was not compiled.
#[inline]
pub fn load(blob: &[u8], arena: &mut [u8], job: &mut Job) -> Option<i32> {
    #[cfg(c_peer)]
    {
        // SAFETY: both slices are live for the call and the pointer-length pairs describe
        // them exactly; `job` is an exclusive reference to a `#[repr(C)]` struct with the C
        // `npu1_job_t` layout. The C code reads at most `len` bytes of `blob` (every offset
        // is checked against `total_bytes == len` before it is read), writes only `*job`
        // (at most `MAX_REGIONS` entries, after checking `count`), and computes addresses in
        // `arena` without dereferencing them.
        Some(unsafe {
            npu1_load(
                blob.as_ptr(),
                blob.len(),
                arena.as_mut_ptr(),
                arena.len(),
                job,
            )
        })
    }
    #[cfg(not(c_peer))]
    {
        let _ = (blob, arena, job);
        None
    }
}

// SAFETY: the declaration matches the definition in `nostd-proof/peer/npu1_strict.c`
// (same types as `npu1_load`; its `npu1_job_t` is the peer's).
unsafe extern "C" {
    fn npu1_load_strict(
        blob: *const u8,
        len: usize,
        arena: *mut u8,
        arena_len: usize,
        job: *mut Job,
    ) -> i32;
}

/// `nostd-proof/peer/npu1_strict.c`: the C peer's loader extended with the checks the
/// generated validator and the binder make and the peer does not (see the file). Returns
/// [`crate::OK`] or one of the `S_*` codes of [`crate::strict`].
#[inline]
pub fn load_strict(blob: &[u8], arena: &mut [u8], job: &mut Job) -> i32 {
    // SAFETY: as for [`load`]: both slices are live and described exactly, `job` is an
    // exclusive reference to the `#[repr(C)]` `npu1_job_t`; the C code checks every offset
    // against `total_bytes == len` before reading, writes only `*job` (at most
    // `MAX_REGIONS` entries, after checking `count`) and never dereferences the arena.
    unsafe {
        npu1_load_strict(
            blob.as_ptr(),
            blob.len(),
            arena.as_mut_ptr(),
            arena.len(),
            job,
        )
    }
}
