//! VPMN (NBG `.nb`) on the host: the JSON of `inspect`, the byte-ownership ledger, and the
//! version 2 writer (build from sections, reseal checksums, the DYNAIO A/B edit).
//!
//! Validation is the generated `npuschema_generated::vpmn::Vpmn::validate` (from
//! `schema/vpmn.yaml`); nothing here re-implements a format rule. What this module adds is
//! presentation (names, derived sizes, fingerprints) and byte bookkeeping, computed from
//! validated views, plus an independent recomputation of the file checksum for the report.

// The error types carry the validator's `Error` and names: host-side, off the fast path.
#![allow(clippy::result_large_err)]

pub mod inspect;
pub mod ledger;
pub mod writer;

use npuschema_core::Error;
use npuschema_generated::vpmn::{
    BufferFormat, SectionType, V1_IO_NAMED_BYTES, V1_IO_OLD_BYTES, V1_IO_RECORD_BYTES, Vpmn, VpmnV2,
};
use sha2::{Digest, Sha256};

/// Validate `bytes` as VPMN (either version).
///
/// # Errors
/// The generated validator's first failed check.
pub fn check(bytes: &[u8]) -> Result<(), Error> {
    Vpmn::validate(bytes).map(|_| ())
}

/// SHA-256 of `bytes`, lowercase hex.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The public name of a section type (`NBG_SECTION_INPUT`), `None` above 40.
#[must_use]
pub fn section_type_name(t: u32) -> Option<String> {
    let v = SectionType::from_raw(t)?;
    v.name()
        .map(|n| format!("NBG_SECTION_{}", n.to_uppercase()))
}

/// The CRC-32 (`crc32fast`) of the payload of the first section of type `sd_type`: the value
/// a CHECKSUM record naming that type must hold. `None` when there is no such section.
#[must_use]
pub fn section_crc(v: &VpmnV2<'_>, sd_type: u32) -> Option<u32> {
    v.sections()
        .find(|s| s.sd_type().raw() == sd_type)
        .and_then(|s| s.payload())
        .map(crc32fast::hash)
}

/// The header's file checksum recomputed by the field map's rule ([`writer::file_crc`], the
/// generated writer's, over the directory as read from `bytes`), independently of the
/// validator's single-pass check, and the section payload bytes it covers.
#[must_use]
pub fn computed_file_crc(bytes: &[u8]) -> (u32, u64) {
    let dir = writer::directory(bytes);
    (writer::file_crc(bytes, &dir), dir.iter().map(|s| s.2).sum())
}

/// Size of a v1 I/O record for `version`: 44 before 0x00010004, 108 up to 0x0001000A, 116
/// from 0x0001000B (the schema's record-size rule, the generated constants).
#[must_use]
pub fn v1_io_record_bytes(version: u32) -> u32 {
    if version < 0x0001_0004 {
        V1_IO_OLD_BYTES
    } else if version < 0x0001_000B {
        V1_IO_NAMED_BYTES
    } else {
        V1_IO_RECORD_BYTES
    }
}

/// Element width in bits of a public buffer format, `None` for an unknown format.
#[must_use]
pub fn element_bits(format: u32) -> Option<u64> {
    match BufferFormat::from_raw(format) {
        BufferFormat::Fp32 | BufferFormat::Int32 | BufferFormat::Uint32 => Some(32),
        BufferFormat::Fp16 | BufferFormat::Uint16 | BufferFormat::Int16 | BufferFormat::Bfp16 => {
            Some(16)
        }
        BufferFormat::Uint8 | BufferFormat::Int8 | BufferFormat::Char | BufferFormat::Bool8 => {
            Some(8)
        }
        BufferFormat::Int64 | BufferFormat::Uint64 | BufferFormat::Fp64 => Some(64),
        BufferFormat::Int4 | BufferFormat::Uint4 => Some(4),
        BufferFormat::Unknown(_) => None,
    }
}

/// Bytes a tensor needs: the product of its dimensions times the element width, sub-byte
/// formats rounded up. `None` for an unknown format or on overflow.
#[must_use]
pub fn storage_bytes(format: u32, dims: &[u32]) -> Option<u64> {
    let bits = element_bits(format)?;
    let elements = dims
        .iter()
        .try_fold(1u64, |a, d| a.checked_mul(u64::from(*d)))?;
    elements.checked_mul(bits)?.checked_add(7).map(|b| b / 8)
}

/// The first four bytes as text when they are printable ASCII.
#[must_use]
pub fn magic_text(bytes: &[u8]) -> String {
    bytes
        .get(..4)
        .map(|m| {
            m.iter()
                .map(|&c| if c.is_ascii_graphic() { c as char } else { '.' })
                .collect()
        })
        .unwrap_or_default()
}
