//! The format-independent description of one Vela compilation, and the error every parser
//! in `pack` returns.

use std::fmt;

use serde::Serialize;

use super::cop::CopPayload;

/// Which Vela output a model was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// `--output-format raw`: `<model>_vela.npz`.
    Npz,
    /// The default output: `<model>_vela.tflite` with one `ethos-u` custom operator.
    Tflite,
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SourceKind::Npz => "npz (vela --output-format raw)",
            SourceKind::Tflite => "tflite (ethos-u custom operator)",
        })
    }
}

/// Per-tensor affine quantisation: `real = scale * (q - zero_point)`. One entry per tensor
/// (per-tensor quantisation) or one per channel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Quantization {
    /// Scales (float32 in both TFLite and Vela's npz).
    pub scale: Vec<f32>,
    /// Zero points.
    pub zero_point: Vec<i64>,
}

/// Where one model input or output lives: a BASEP region slot and a byte offset in it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TensorPlacement {
    /// The tensor's name (TFLite), or `input[i]` / `output[i]` (npz, which has no names).
    pub name: String,
    /// The BASEP slot the command stream addresses it through.
    pub region: u32,
    /// Byte offset inside that region.
    pub offset: u64,
    /// Shape as the source reports it (Vela's npz pads to 6 dimensions).
    pub shape: Vec<u64>,
    /// Bytes per element.
    pub elem_size: u64,
    /// Quantisation parameters, when the source records them.
    pub quantization: Option<Quantization>,
    /// The element type, when NPU1 version 2 can name it (int8, uint8, int16, int32).
    pub dtype: Option<TensorType>,
}

/// A tensor's element type, as NPU1 version 2's tensor table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TensorType {
    /// Signed 8-bit.
    Int8,
    /// Unsigned 8-bit.
    Uint8,
    /// Signed 16-bit.
    Int16,
    /// Signed 32-bit.
    Int32,
}

impl TensorType {
    /// Bytes per element.
    #[must_use]
    pub fn size(self) -> u64 {
        match self {
            Self::Int8 | Self::Uint8 => 1,
            Self::Int16 => 2,
            Self::Int32 => 4,
        }
    }

    /// The name `inspect` and `.npy` descriptors use.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Int8 => "int8",
            Self::Uint8 => "uint8",
            Self::Int16 => "int16",
            Self::Int32 => "int32",
        }
    }
}

impl TensorPlacement {
    /// Size in bytes, `None` when the product overflows 64 bits.
    #[must_use]
    pub fn bytes(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(self.elem_size, |acc, &d| acc.checked_mul(d))
    }

    /// `offset + bytes`, `None` on overflow.
    #[must_use]
    pub fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.bytes()?)
    }
}

/// Everything `pack` needs from a Vela compilation, whatever file it came from.
#[derive(Clone, Debug)]
pub struct VelaModel {
    /// Which kind of file this came from.
    pub source: SourceKind,
    /// The decoded driver-actions payload (COP1 or COP2) around the command stream.
    pub cop: CopPayload,
    /// The raw register command stream (the payload without its COP header).
    pub cmd_stream: Vec<u8>,
    /// The read-only data (region 0): weights, scales, constants.
    pub readonly: Vec<u8>,
    /// Size of the scratch arena (region 1) in bytes.
    pub scratch_size: u64,
    /// Size of the fast scratch (region 2) when Vela placed it in a separate memory.
    pub fast_scratch_size: Option<u64>,
    /// Inputs in region 3 and outputs in region 4 (`--separate-io-regions`).
    pub separate_io: bool,
    /// The model's inputs, in order.
    pub inputs: Vec<TensorPlacement>,
    /// The model's outputs, in order.
    pub outputs: Vec<TensorPlacement>,
    /// Things the reader noticed but that do not stop packing (shown as warnings).
    pub notes: Vec<String>,
}

/// A parse or pack failure: a stable kebab-case `code`, the thing it concerns (`field`,
/// such as `cmd_data.npy` or `COP1 action at word 7`), the byte offset in that thing when
/// there is one, and the values involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackError {
    /// Stable kebab-case code.
    pub code: &'static str,
    /// What the error is about.
    pub field: String,
    /// Byte offset in `field` (or in the file, as `field` says).
    pub offset: Option<u64>,
    /// The values involved.
    pub detail: String,
}

impl PackError {
    /// A new error.
    pub fn new(
        code: &'static str,
        field: impl Into<String>,
        offset: Option<u64>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            code,
            field: field.into(),
            offset,
            detail: detail.into(),
        }
    }

    /// An error at a byte offset.
    pub fn at(
        code: &'static str,
        field: impl Into<String>,
        offset: u64,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(code, field, Some(offset), detail)
    }
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.field)?;
        if let Some(o) = self.offset {
            write!(f, " at byte {o:#x}")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for PackError {}

/// Little-endian u32 at `at`, or a `truncated` error naming `field`.
pub(crate) fn le_u32(buf: &[u8], at: u64, field: &str) -> Result<u32, PackError> {
    npuschema_core::chunk_at::<4>(buf, at)
        .map(|b| u32::from_le_bytes(*b))
        .ok_or_else(|| {
            PackError::at(
                "truncated",
                field,
                at,
                format!(
                    "needs 4 bytes at {at:#x}, only {:#x} bytes in total",
                    buf.len()
                ),
            )
        })
}
