//! Shared pieces of the benchmarks in `benches/`: the fixtures, the bare loops the
//! validators are held against, and the C peer (`peers/npu1_ref.c`, compiled by `build.rs`
//! at -O2 when it is found).
//!
//! Every comparison is a ratio between two functions measured in the same run;
//! `scripts/bench-summary` prints them.

use std::path::PathBuf;

/// The `shared/` folder: `NPUSCHEMA_CORPUS`, else `<workspace>/../shared` when it exists.
#[must_use]
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("NPUSCHEMA_CORPUS").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(v));
    }
    let guess = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("..")
        .join("shared");
    guess.is_dir().then_some(guess)
}

/// The real VPMN files, `(name, bytes)`, or `None` with a skip note.
#[must_use]
pub fn vpmn_files() -> Option<Vec<(String, Vec<u8>)>> {
    let Some(dir) = shared_dir() else {
        eprintln!("skipping VPMN benches: NPUSCHEMA_CORPUS not set and ../shared not found");
        return None;
    };
    let dir = dir.join("corpus").join("vpmn");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_name()?.to_string_lossy().into_owned();
            (name.ends_with(".nb") || name.ends_with(".nbg"))
                .then(|| Some((name, std::fs::read(&p).ok()?)))?
        })
        .collect();
    out.sort();
    Some(out)
}

/// The document's worked-example blob (section 6): 1,179,648 bytes of weights baked, a
/// 256 KiB runtime scratch region, an 800-byte command stream, made by the independent
/// reference producer. Weights and commands are deterministic pseudo-random bytes.
#[must_use]
pub fn doc_example_parts() -> (Vec<u8>, Vec<u8>) {
    let mut x = 0x2545_F491_4F6C_DD1D_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 32) as u8
    };
    let weights: Vec<u8> = (0..1_179_648).map(|_| next()).collect();
    let cmd: Vec<u8> = (0..800).map(|_| next()).collect();
    (weights, cmd)
}

/// Size of the example's runtime scratch region.
pub const DOC_SCRATCH_BYTES: u32 = 256 * 1024;

/// A small blob for per-call costs: `n` regions alternating baked (64 bytes) and runtime
/// (1 KiB), a 16-byte command stream. Made by the reference producer.
#[must_use]
pub fn small_blob_parts(n: usize) -> (Vec<Vec<u8>>, Vec<u8>) {
    let baked = (0..n).map(|i| vec![i as u8; 64]).collect();
    (baked, vec![0x5a; 16])
}

/// The plain FNV-1a byte loop the validator is held against: the definition, nothing else.
#[inline(never)]
#[must_use]
pub fn bare_fnv1a(bytes: &[u8]) -> u32 {
    let mut h = 0x811C_9DC5_u32;
    for &b in bytes {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

/// The C peer, when `build.rs` found and compiled it.
#[cfg(c_peer)]
#[allow(unsafe_code)]
pub mod peer {
    /// `MAX_REGIONS` of the C peer.
    pub const MAX_REGIONS: usize = 8;

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
        fn npu1_fnv1a(p: *const u8, n: usize) -> u32;
        fn npu1_load(
            blob: *const u8,
            len: usize,
            arena: *mut u8,
            arena_len: usize,
            job: *mut Job,
        ) -> i32;
    }

    /// The C peer's FNV-1a loop.
    #[must_use]
    pub fn fnv1a(bytes: &[u8]) -> u32 {
        // SAFETY: the pointer and length describe one live slice, read-only.
        unsafe { npu1_fnv1a(bytes.as_ptr(), bytes.len()) }
    }

    /// The C peer's loader: validation (steps 1-7) and binding (step 8). 0 is success.
    pub fn load(blob: &[u8], arena: &mut [u8], job: &mut Job) -> i32 {
        // SAFETY: both slices are live for the call; the C code reads `blob` and writes
        // only `*job` (it computes addresses in `arena` but never dereferences them).
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
}

/// Whether the C peer was compiled in.
#[must_use]
pub const fn have_c_peer() -> bool {
    cfg!(c_peer)
}
