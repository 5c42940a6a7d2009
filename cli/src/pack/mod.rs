//! `npuschema pack`: Vela's output (`*_vela.npz` or `*_vela.tflite`) to an NPU1 `.npub`.
//!
//! Reading is split by source ([`npz`], [`tflite`]), both producing one format-independent
//! [`VelaModel`]; [`cop`] decodes the COP1/COP2 payload around the command stream;
//! [`layout`] assigns regions; [`pack_model`] writes the NPU1 blob with the generated writer
//! and proves it (re-validated with the generated validator, command stream checked against
//! the region sizes); [`pack_file`] does that through a temporary file that is renamed only
//! when everything passed; [`report`] describes the result as text or JSON.
//!
//! Host code. Arithmetic on offsets is done in `u64` on values bounded by the length of an
//! in-memory buffer or read as `u32` from it, so a handful of additions cannot overflow;
//! hence the module-wide allowance below.
#![allow(clippy::arithmetic_side_effects)]

pub mod cop;
mod fb;
pub mod layout;
pub mod model;
pub mod npz;
pub mod tflite;

mod blob;
mod cli;
pub mod report;

use std::path::Path;

pub use blob::{
    AccelChoice, FormatVersion, Packed, pack_file, pack_file_as, pack_model, pack_model_as,
};
pub use cli::{Args, run};
pub use model::{PackError, Quantization, SourceKind, TensorPlacement, VelaModel};

/// Read a Vela output file, telling npz from TFLite by content (zip signature or the
/// FlatBuffer identifier "TFL3"), not by name.
pub fn load(path: &Path) -> Result<VelaModel, PackError> {
    let bytes = crate::io::read_all(path, crate::io::max_input_bytes()).map_err(|e| {
        PackError::new(
            if matches!(e, crate::io::InputError::TooLarge { .. }) {
                "input-too-large"
            } else {
                "io-error"
            },
            path.display().to_string(),
            None,
            format!("cannot read: {e}"),
        )
    })?;
    let zip = bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06");
    let parsed = if !zip && bytes.get(4..8) == Some(b"TFL3") {
        // The weights taken out of the file's buffer in place: held once.
        tflite::read_owned(bytes)
    } else {
        parse(&bytes)
    };
    parsed.map_err(|e| PackError {
        field: format!("{}: {}", path.display(), e.field),
        ..e
    })
}

/// Parse the bytes of a Vela output (see [`load`]).
pub fn parse(bytes: &[u8]) -> Result<VelaModel, PackError> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        npz::read(bytes)
    } else if bytes.get(4..8) == Some(b"TFL3") {
        tflite::read(bytes)
    } else {
        let head = bytes.get(..8).unwrap_or(bytes);
        Err(PackError::at(
            "unknown-input-format",
            "input",
            0,
            format!(
                "first bytes {head:02x?}: neither a zip (.npz from vela --output-format raw) nor a TFLite FlatBuffer (\"TFL3\" at byte 4)"
            ),
        ))
    }
}
