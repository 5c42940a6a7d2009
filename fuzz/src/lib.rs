//! Helpers shared by the fuzz targets: the C peer (compiled by `build.rs` when found).

/// The C peer `peers/npu1_ref.c`, when `build.rs` found and compiled it.
#[cfg(c_peer)]
pub mod peer {
    /// `MAX_REGIONS` of the C peer.
    pub const MAX_REGIONS: usize = 8;
    /// `NPU1_OK`.
    pub const OK: i32 = 0;
    /// `E_ARENA`.
    pub const E_ARENA: i32 = 9;
    /// `E_TOO_MANY`.
    pub const E_TOO_MANY: i32 = 10;

    /// `npu1_job_t`.
    #[repr(C)]
    #[derive(Debug)]
    pub struct Job {
        /// Command stream.
        pub cmd: *const u8,
        /// Its length.
        pub cmd_bytes: u32,
        /// Region base addresses.
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

    unsafe extern "C" {
        fn npu1_load(
            blob: *const u8,
            len: usize,
            arena: *mut u8,
            arena_len: usize,
            job: *mut Job,
        ) -> i32;
    }

    /// The C loader: 0 on success, else its `E_*` code.
    pub fn load(blob: &[u8], arena: &mut [u8], job: &mut Job) -> i32 {
        // SAFETY: both slices are live for the call; the C code reads `blob` and writes only
        // `*job` (arena addresses are computed, never dereferenced).
        unsafe {
            npu1_load(
                blob.as_ptr(),
                blob.len(),
                arena.as_mut_ptr(),
                arena.len(),
                job,
            )
        }
    }

    /// The C peer's rule names for its error codes, in the reference reader's vocabulary.
    #[must_use]
    pub fn rule(code: i32) -> &'static str {
        match code {
            1 => "short",
            2 => "magic",
            3 => "version",
            4 => "total-bytes",
            5 => "region-table",
            6 => "cmd-stream",
            7 => "checksum",
            8 => "baked-region",
            9 => "arena",
            10 => "too-many",
            _ => "?",
        }
    }
}
