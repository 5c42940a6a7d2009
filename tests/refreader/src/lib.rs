//! Independent reference readers, written with `binrw` straight from the format documents
//! (`spec/npu1-format.txt`, `spec/nbg-field-map.txt`, `spec/nbg-notes.md`), never from the
//! generated code: [`npu1`] for NPU1 blobs, [`vpmn`] for VPMN v2 (0x00020000) and
//! [`vpmn_v1`] for the VPMN v1 family (0x0001xxxx, the notes' version-gated layout).
//! Differential tests and fuzz targets hold the generated validators against them field by
//! field; [`generated_codes`] names the generated error codes each reader rule stands for.
//!
//! Host-only: allocates, uses `std`, and reports errors as strings. Arithmetic on offsets
//! read from a file is done in `u64`/`u128`, so it cannot wrap.
//!
//! Its own small crate (binrw and crc32fast only) so that benches and fuzz targets can use
//! it without the integration-test crate's build; `npuschema_tests::refreader` re-exports it.

// The reader is test infrastructure: its arithmetic is on widened values that cannot
// overflow, and indexing goes through `get`.
#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

pub mod generated_codes;
pub mod npu1;
pub mod vpmn;
pub mod vpmn_v1;

use std::fmt;

/// Why a reference reader rejected a buffer.
#[derive(Debug)]
pub enum RefError {
    /// `binrw` could not read a structure (the buffer ended inside it).
    Read(String),
    /// A rule of the format failed: `rule` is a short stable name, `detail` the values.
    Check {
        /// Which rule.
        rule: &'static str,
        /// The values involved.
        detail: String,
    },
}

impl RefError {
    /// The failed rule's name, or `"read"` for a structure that could not be read.
    #[must_use]
    pub fn rule(&self) -> &'static str {
        match self {
            RefError::Read(_) => "read",
            RefError::Check { rule, .. } => rule,
        }
    }
}

impl fmt::Display for RefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefError::Read(e) => write!(f, "read: {e}"),
            RefError::Check { rule, detail } => write!(f, "{rule}: {detail}"),
        }
    }
}

impl std::error::Error for RefError {}

impl From<binrw::Error> for RefError {
    fn from(e: binrw::Error) -> Self {
        RefError::Read(e.to_string())
    }
}

/// The shared data folder (`corpus/vpmn`, `models`, `peers`): `NPUSCHEMA_CORPUS` when set,
/// else `../shared` beside the repository (as the README and `scripts/test` say), or
/// `None` after printing "SKIPPED: {what}: ..." naming where it looked.
#[must_use]
pub fn corpus_dir(what: &str) -> Option<std::path::PathBuf> {
    match std::env::var_os("NPUSCHEMA_CORPUS") {
        Some(v) if !v.is_empty() => Some(std::path::PathBuf::from(v)),
        _ => {
            let fallback = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
            if fallback.is_dir() {
                Some(fallback)
            } else {
                eprintln!(
                    "SKIPPED: {what}: NPUSCHEMA_CORPUS not set and no {} (the shared data)",
                    fallback.display()
                );
                None
            }
        }
    }
}

/// Every real VPMN file in `$NPUSCHEMA_CORPUS/corpus/vpmn`, sorted by name, as
/// `(file name, bytes)`; `None` (after a skip note) when the variable is unset.
///
/// # Panics
/// When the variable is set but the folder cannot be read: a misconfigured corpus must fail
/// loudly, not skip.
#[must_use]
#[allow(clippy::expect_used)]
pub fn vpmn_corpus(what: &str) -> Option<Vec<(String, Vec<u8>)>> {
    let dir = corpus_dir(what)?.join("corpus").join("vpmn");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("NPUSCHEMA_CORPUS/corpus/vpmn must be readable") {
        let path = entry.expect("readable directory entry").path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".nb") || name.ends_with(".nbg") {
            out.push((name, std::fs::read(&path).expect("readable corpus file")));
        }
    }
    out.sort();
    Some(out)
}

#[cfg(test)]
mod tests;
