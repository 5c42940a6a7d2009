//! The C reference NPU1 loader, `$NPUSCHEMA_CORPUS/peers/npu1_ref.c`: written straight from
//! the format document by a C firmware engineer, compiled here by `build.rs` with the `cc`
//! crate at -O2. The benches measure the Rust code against it in the same run and the fuzz
//! targets hold the Rust loaders against it.
//!
//! The C file is found through `NPUSCHEMA_CORPUS`, else `<repo>/../shared`. When it is absent
//! the build prints a cargo warning, [`available`] is `false` and [`fnv1a`] and [`load`]
//! return `None`, so callers skip their C comparisons instead of failing to link.
//!
//! Host-only. All the `unsafe` (the two foreign calls) is in the private `ffi` module; what
//! this crate exports is safe.

mod ffi;

pub use ffi::{Job, fnv1a, load, load_strict};

/// `MAX_REGIONS`: the most regions the C loader binds (the NPU's limit too).
pub const MAX_REGIONS: usize = 8;

/// `NPU1_OK`: [`load`] succeeded.
pub const OK: i32 = 0;
/// `E_SHORT`: shorter than the 32-byte header.
pub const E_SHORT: i32 = 1;
/// `E_MAGIC`: wrong magic.
pub const E_MAGIC: i32 = 2;
/// `E_VERSION`: unsupported version.
pub const E_VERSION: i32 = 3;
/// `E_TOTAL`: `total_bytes` is not the buffer's length.
pub const E_TOTAL: i32 = 4;
/// `E_TABLE`: the region table does not fit.
pub const E_TABLE: i32 = 5;
/// `E_CMD`: the command stream is empty or out of bounds.
pub const E_CMD: i32 = 6;
/// `E_CHECKSUM`: FNV-1a over the payload differs from the header's.
pub const E_CHECKSUM: i32 = 7;
/// `E_BAKED`: a baked region's bytes are out of bounds.
pub const E_BAKED: i32 = 8;
/// `E_ARENA`: a runtime region does not fit in the arena.
pub const E_ARENA: i32 = 9;
/// `E_TOO_MANY`: more than [`MAX_REGIONS`] regions.
pub const E_TOO_MANY: i32 = 10;

/// Whether `build.rs` found and compiled the C peer.
#[must_use]
pub const fn available() -> bool {
    cfg!(c_peer)
}

/// The rule a [`load`] code stands for, in the reference reader's vocabulary
/// (`npuschema_refreader::RefError::rule`), plus the C loader's own `"too-many"`;
/// `"ok"` for [`OK`], `"?"` for any other value.
#[must_use]
pub fn rule(code: i32) -> &'static str {
    match code {
        OK => "ok",
        E_SHORT => "short",
        E_MAGIC => "magic",
        E_VERSION => "version",
        E_TOTAL => "total-bytes",
        E_TABLE => "region-table",
        E_CMD => "cmd-stream",
        E_CHECKSUM => "checksum",
        E_BAKED => "baked-region",
        E_ARENA => "arena",
        E_TOO_MANY => "too-many",
        _ => "?",
    }
}

/// The codes of [`load_strict`], and the generated validator's or binder's code for each.
pub mod strict {
    /// Each `npu1_strict.c` error code with the code the generated validator or the binder
    /// reports for the same failure.
    pub const CODES: [(i32, &str); 14] = [
        (1, "truncated-header"),
        (2, "bad-magic"),
        (3, "unsupported-version"),
        (4, "total-bytes-mismatch"),
        (5, "region-table-out-of-bounds"),
        (6, "empty-command-stream"),
        (7, "command-stream-out-of-bounds"),
        (8, "checksum-mismatch"),
        (9, "unknown-region-flags"),
        (10, "baked-region-out-of-bounds"),
        (11, "too-many-regions"),
        (12, "misaligned-command-stream"),
        (13, "misaligned-baked-region"),
        (14, "arena-overflow"),
    ];

    /// The generated code for a [`load_strict`](crate::load_strict) result; `"ok"` for 0,
    /// `"?"` for a value it never returns.
    #[must_use]
    pub fn code(rc: i32) -> &'static str {
        if rc == 0 {
            return "ok";
        }
        CODES.iter().find(|(c, _)| *c == rc).map_or("?", |(_, s)| s)
    }
}

#[cfg(test)]
mod tests;
