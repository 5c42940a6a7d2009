//! Which container a file is, by its magic, and validation of any of them. Every
//! subcommand that takes a container file (check, inspect, explain) chooses the format here.

use npuschema_core::Error;
use npuschema_generated::npu1::Npu1;

/// A container format this tool knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// NPU1 `.npub` (magic `NPU1`).
    Npu1,
    /// VPMN `.nb` (magic `VPMN`).
    Vpmn,
}

impl Format {
    /// The name used in JSON (`"npu1"`, `"vpmn"`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Npu1 => "npu1",
            Format::Vpmn => "vpmn",
        }
    }
}

/// The format named by the first four bytes, if any.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    match bytes.get(..4) {
        Some(b"NPU1") => Some(Format::Npu1),
        Some(b"VPMN") => Some(Format::Vpmn),
        _ => None,
    }
}

/// The error for a file whose magic names no known format.
pub fn unknown_format(bytes: &[u8]) -> Error {
    let found = bytes
        .iter()
        .take(4)
        .enumerate()
        .fold(0u64, |a, (i, b)| a | (u64::from(*b) << (8 * i)));
    Error::new(
        "unknown-format",
        npuschema_core::Field::plain("magic"),
        0,
        npuschema_core::Detail::Mismatch {
            found,
            expected: u64::from(npuschema_generated::npu1::MAGIC),
        },
    )
}

/// Validate `bytes` as whatever format its magic names.
pub fn validate(bytes: &[u8]) -> (Option<Format>, Result<(), Error>) {
    match detect(bytes) {
        Some(Format::Npu1) => (Some(Format::Npu1), Npu1::validate(bytes).map(|_| ())),
        Some(Format::Vpmn) => (Some(Format::Vpmn), validate_vpmn(bytes)),
        None => (None, Err(unknown_format(bytes))),
    }
}

fn validate_vpmn(bytes: &[u8]) -> Result<(), Error> {
    crate::vpmn_check(bytes)
}
