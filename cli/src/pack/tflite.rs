//! Vela's default output: `<model>_vela.tflite`, where the whole network is one CUSTOM
//! operator "ethos-u".
//!
//! The file is read with the `flatbuffers` crate through code flatc generated from a subset
//! of the TFLite schema (`tflite_subset.fbs`, `tflite_generated.rs`); the buffer is run
//! through the FlatBuffers verifier before any field is read.
//!
//! The operator's inputs, as Vela 5.2.0 writes them (and TFLite Micro's Ethos-U kernel reads
//! them): the COP payload (uint8 tensor with a buffer), the read-only data (region 0), the
//! scratch arena (region 1, a uint8 tensor without data whose shape is its size), the fast
//! scratch (region 2: a tensor of its own when it lives in a separate memory, otherwise the
//! scratch tensor a second time), then the model's inputs. Its outputs are the model's
//! outputs.
//!
//! TFLite does not record regions or offsets for the inputs and outputs. They come from:
//! * the offsets: the "OfflineMemoryAllocation" metadata Vela writes for TFLite Micro's
//!   planner, `[version 0, subgraph count, tensor count, one i32 offset per tensor]`, an
//!   offset into the arena (where the scratch tensor sits at its own offset, normally 0);
//! * the region: 1 (the arena), or with `--separate-io-regions` 3 for inputs and 4 for
//!   outputs. Separate IO regions are recognised by the command stream itself touching
//!   region 3 or 4 (as the static checker computes its accesses; Vela never uses those
//!   slots otherwise), and require a COP2 payload.

use super::cop;
use super::model::{PackError, Quantization, SourceKind, TensorPlacement, VelaModel};
use super::tflite_generated::tflite::{self as fb, TensorType};

/// TFLite's BuiltinOperator CUSTOM.
const BUILTIN_CUSTOM: i32 = 32;
/// The custom code of Vela's operator.
const ETHOS_U: &str = "ethos-u";
const OFFLINE_ALLOC: &str = "OfflineMemoryAllocation";

type FbVec<'a, T> = flatbuffers::Vector<'a, T>;

fn err(code: &'static str, field: impl Into<String>, detail: impl Into<String>) -> PackError {
    PackError::new(code, field, None, detail)
}

/// Element `i` of a verified vector, or `None` when out of range (`Vector::get` would panic).
fn vget<'a, T: flatbuffers::Follow<'a> + 'a>(v: &FbVec<'a, T>, i: usize) -> Option<T::Inner> {
    (i < v.len()).then(|| v.get(i))
}

/// Bytes per element of a tensor type, `None` for types without a fixed size.
fn elem_size(t: TensorType) -> Option<u64> {
    Some(match t {
        TensorType::UINT8 | TensorType::INT8 | TensorType::BOOL => 1,
        TensorType::INT16 | TensorType::UINT16 | TensorType::FLOAT16 | TensorType::BFLOAT16 => 2,
        TensorType::INT32 | TensorType::UINT32 | TensorType::FLOAT32 => 4,
        TensorType::INT64 | TensorType::UINT64 | TensorType::FLOAT64 | TensorType::COMPLEX64 => 8,
        TensorType::COMPLEX128 => 16,
        _ => return None,
    })
}

struct Reader<'a> {
    file: &'a [u8],
    model: fb::Model<'a>,
    tensors: FbVec<'a, flatbuffers::ForwardsUOffset<fb::Tensor<'a>>>,
}

impl<'a> Reader<'a> {
    fn tensor(&self, index: i32, what: &str) -> Result<fb::Tensor<'a>, PackError> {
        usize::try_from(index)
            .ok()
            .and_then(|i| vget(&self.tensors, i))
            .ok_or_else(|| {
                err(
                    "tflite-bad-tensor-index",
                    format!("ethos-u operator {what}"),
                    format!(
                        "tensor index {index}, subgraph has {} tensors",
                        self.tensors.len()
                    ),
                )
            })
    }

    fn tensor_name(t: &fb::Tensor<'_>, index: i32) -> String {
        t.name()
            .map_or_else(|| format!("tensor[{index}]"), str::to_string)
    }

    /// The data of buffer `index`: inline, or at `offset .. offset + size` of the file for
    /// buffers stored outside the FlatBuffer.
    fn buffer(&self, index: u32, what: &str) -> Result<&'a [u8], PackError> {
        let buffers = self
            .model
            .buffers()
            .ok_or_else(|| err("tflite-no-buffers", "model.buffers", "absent"))?;
        let b = usize::try_from(index)
            .ok()
            .and_then(|i| vget(&buffers, i))
            .ok_or_else(|| {
                err(
                    "tflite-bad-buffer-index",
                    what,
                    format!("buffer {index}, model has {}", buffers.len()),
                )
            })?;
        if b.offset() > 1 {
            return npuschema_core::range_at(self.file, b.offset(), b.size()).ok_or_else(|| {
                PackError::at(
                    "tflite-buffer-out-of-bounds",
                    format!("{what} (buffer {index})"),
                    b.offset(),
                    format!(
                        "{:#x} + {:#x} > file size {:#x}",
                        b.offset(),
                        b.size(),
                        self.file.len()
                    ),
                )
            });
        }
        Ok(b.data().map_or(&[][..], |d| d.bytes()))
    }

    /// Shape (all dimensions non-negative) and element size.
    fn shape(&self, t: &fb::Tensor<'_>, index: i32) -> Result<(Vec<u64>, u64), PackError> {
        let name = Self::tensor_name(t, index);
        let shape = t
            .shape()
            .map(|s| {
                s.iter()
                    .map(|d| u64::try_from(d).ok())
                    .collect::<Option<Vec<_>>>()
            })
            .unwrap_or(Some(Vec::new()))
            .ok_or_else(|| {
                err(
                    "tflite-dynamic-shape",
                    name.clone(),
                    "a negative (dynamic) dimension",
                )
            })?;
        let elem = elem_size(t.type_()).ok_or_else(|| {
            err(
                "tflite-unsupported-tensor-type",
                name,
                format!("type {:?} has no fixed element size", t.type_()),
            )
        })?;
        Ok((shape, elem))
    }

    fn bytes(&self, t: &fb::Tensor<'_>, index: i32) -> Result<u64, PackError> {
        let (shape, elem) = self.shape(t, index)?;
        shape
            .iter()
            .try_fold(elem, |a, &d| a.checked_mul(d))
            .ok_or_else(|| {
                err(
                    "tflite-tensor-too-large",
                    Self::tensor_name(t, index),
                    "size overflows 64 bits",
                )
            })
    }

    /// The OfflineMemoryAllocation offsets of subgraph 0's tensors.
    fn offline_offsets(&self, n_tensors: usize) -> Result<Vec<i32>, PackError> {
        let field = format!("metadata \"{OFFLINE_ALLOC}\"");
        let meta = self
            .model
            .metadata()
            .into_iter()
            .flatten()
            .find(|m| m.name() == Some(OFFLINE_ALLOC));
        let Some(meta) = meta else {
            return Err(err(
                "tflite-no-offline-allocation",
                field,
                "absent: the arena offsets of the inputs and outputs are unknown",
            ));
        };
        let data = self.buffer(meta.buffer(), &field)?;
        let words: Vec<i32> = data
            .as_chunks::<4>()
            .0
            .iter()
            .map(|c| i32::from_le_bytes(*c))
            .collect();
        let bad = |why: String| err("tflite-bad-offline-allocation", field.clone(), why);
        match words.as_slice() {
            [0, _, count, rest @ ..] if data.len().is_multiple_of(4) => {
                let count =
                    usize::try_from(*count).map_err(|_| bad(format!("tensor count {count}")))?;
                if count != rest.len() || count < n_tensors {
                    return Err(bad(format!(
                        "{} offsets for a tensor count of {count}; subgraph 0 has {n_tensors} tensors",
                        rest.len()
                    )));
                }
                Ok(rest.iter().take(n_tensors).copied().collect())
            }
            [v, ..] if *v != 0 => Err(bad(format!("version {v}, expected 0"))),
            _ => Err(bad(format!(
                "{} bytes: not [version, subgraphs, count, offsets...]",
                data.len()
            ))),
        }
    }
}

fn quantization(t: &fb::Tensor<'_>) -> Option<Quantization> {
    let q = t.quantization()?;
    let scale: Vec<f32> = q.scale()?.iter().collect();
    let zero_point: Vec<i64> = q
        .zero_point()
        .map(|z| z.iter().collect())
        .unwrap_or_default();
    (!scale.is_empty()).then_some(Quantization { scale, zero_point })
}

/// Which BASEP slots the stream's operations touch: one past the highest byte per slot,
/// from the static checker's summary (SHRAM transfers excluded).
pub fn touched_extents(stream: &[u8]) -> Result<[u64; 8], PackError> {
    npuschema_runtime::cmd::check(stream, &[], &mut |_| {})
        .map(|summary| summary.extents)
        .map_err(|e| PackError::at(e.code, "command stream", u64::from(e.offset), e.to_string()))
}

/// Read a Vela `.tflite`.
pub fn read(file: &[u8]) -> Result<VelaModel, PackError> {
    if !fb::model_buffer_has_identifier(file) {
        let found = file
            .get(4..8)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        return Err(PackError::at(
            "tflite-bad-identifier",
            "FlatBuffer file identifier",
            4,
            format!("found {found:?}, expected \"TFL3\""),
        ));
    }
    let model = fb::root_as_model(file).map_err(|e| {
        err(
            "tflite-invalid-flatbuffer",
            "model",
            format!("FlatBuffers verifier: {e}"),
        )
    })?;
    let subgraphs = model
        .subgraphs()
        .ok_or_else(|| err("tflite-no-subgraph", "model.subgraphs", "absent"))?;
    if subgraphs.len() != 1 {
        return Err(err(
            "tflite-not-single-subgraph",
            "model.subgraphs",
            format!(
                "{} subgraphs; a fully NPU-compiled model has one",
                subgraphs.len()
            ),
        ));
    }
    let sg = subgraphs.get(0);
    let tensors = sg
        .tensors()
        .ok_or_else(|| err("tflite-no-tensors", "subgraphs[0].tensors", "absent"))?;
    let operators = sg
        .operators()
        .ok_or_else(|| err("tflite-no-ethos-u-op", "subgraphs[0].operators", "absent"))?;
    let codes = model.operator_codes();
    let is_ethos_u = |op: &fb::Operator<'_>| {
        let code = codes.as_ref().and_then(|c| {
            usize::try_from(op.opcode_index())
                .ok()
                .and_then(|i| vget(c, i))
        });
        code.is_some_and(|c| {
            (c.builtin_code() == BUILTIN_CUSTOM
                || i32::from(c.deprecated_builtin_code()) == BUILTIN_CUSTOM)
                && c.custom_code() == Some(ETHOS_U)
        })
    };
    let npu_ops = operators.iter().filter(|o| is_ethos_u(o)).count();
    if npu_ops == 0 {
        return Err(err(
            "tflite-no-ethos-u-op",
            "subgraphs[0].operators",
            "no \"ethos-u\" custom operator: not a Vela output, or nothing was mapped to the NPU",
        ));
    }
    if operators.len() != 1 {
        return Err(err(
            "tflite-cpu-operators",
            "subgraphs[0].operators",
            format!(
                "{} operators, {npu_ops} of them \"ethos-u\": NPU1 holds one command stream, so the whole network must run on the NPU",
                operators.len()
            ),
        ));
    }
    let op = operators.get(0);
    let r = Reader {
        file,
        model,
        tensors,
    };
    let inputs: Vec<i32> = op.inputs().map(|v| v.iter().collect()).unwrap_or_default();
    let outputs: Vec<i32> = op.outputs().map(|v| v.iter().collect()).unwrap_or_default();
    let model_inputs: Vec<i32> = sg.inputs().map(|v| v.iter().collect()).unwrap_or_default();
    let [cmd_idx, ro_idx, scratch_idx, rest @ ..] = inputs.as_slice() else {
        return Err(err(
            "tflite-bad-ethos-u-op",
            "ethos-u operator inputs",
            format!(
                "{} inputs; needs at least the payload, read-only data and scratch",
                inputs.len()
            ),
        ));
    };

    let payload = r.buffer(
        r.tensor(*cmd_idx, "input 0 (payload)")?.buffer(),
        "ethos-u payload",
    )?;
    if payload.is_empty() {
        return Err(err(
            "tflite-bad-ethos-u-op",
            "ethos-u operator input 0",
            "the payload tensor has no data",
        ));
    }
    let cop = cop::parse(payload).map_err(|e| PackError {
        field: format!("ethos-u payload: {}", e.field),
        ..e
    })?;
    let cmd_stream = cop
        .stream(payload)
        .ok_or_else(|| err("cop-stream-out-of-bounds", "ethos-u payload", ""))?
        .to_vec();
    let readonly = r
        .buffer(
            r.tensor(*ro_idx, "input 1 (read-only)")?.buffer(),
            "ethos-u read-only data",
        )?
        .to_vec();
    let scratch_t = r.tensor(*scratch_idx, "input 2 (scratch)")?;
    let scratch_size = r.bytes(&scratch_t, *scratch_idx)?;

    // Input 3 is the fast scratch slot unless it is already a model input (older layouts
    // without the slot).
    let (fast_scratch_size, ifms) = match rest {
        [fast, ifms @ ..] if !model_inputs.contains(fast) => {
            let size = if fast == scratch_idx {
                0
            } else {
                r.bytes(&r.tensor(*fast, "input 3 (fast scratch)")?, *fast)?
            };
            ((size > 0).then_some(size), ifms)
        }
        ifms => (None, ifms),
    };

    let extents = touched_extents(&cmd_stream)?;
    let separate_io = extents.get(3..5).is_some_and(|e| e.iter().any(|&x| x > 0));
    if separate_io && !matches!(cop.format, cop::CopFormat::Cop2 { .. }) {
        return Err(err(
            "unsupported-region-layout",
            "command stream",
            "the stream addresses region 3 or 4 (separate IO regions) but the payload is COP1",
        ));
    }

    let offsets = r.offline_offsets(r.tensors.len())?;
    let offset_of = |idx: i32, name: &str| -> Result<i64, PackError> {
        let o = usize::try_from(idx)
            .ok()
            .and_then(|i| offsets.get(i))
            .copied()
            .unwrap_or(-1);
        if o < 0 {
            return Err(err(
                "tflite-io-not-planned",
                name.to_string(),
                format!(
                    "{OFFLINE_ALLOC} gives offset {o} (planned online): its place in the arena is unknown"
                ),
            ));
        }
        Ok(i64::from(o))
    };
    // Arena offsets are relative to the arena; the scratch tensor (region 1) starts at its
    // own offset in it.
    let arena_base = if separate_io {
        0
    } else {
        offset_of(*scratch_idx, "scratch")?
    };

    let mut notes = Vec::new();
    let mut place = |idx: i32, region: u32, what: &str| -> Result<TensorPlacement, PackError> {
        let t = r.tensor(idx, what)?;
        let name = Reader::tensor_name(&t, idx);
        let (shape, elem_size) = r.shape(&t, idx)?;
        let offset = u64::try_from(offset_of(idx, &name)? - arena_base).map_err(|_| {
            err(
                "tflite-io-not-planned",
                name.clone(),
                "arena offset lies before the scratch tensor",
            )
        })?;
        let quantization = quantization(&t);
        if quantization.is_none() {
            notes.push(format!("{name}: no quantisation parameters in the model"));
        }
        Ok(TensorPlacement {
            name,
            region,
            offset,
            shape,
            elem_size,
            quantization,
        })
    };
    let in_region = if separate_io { 3 } else { 1 };
    let out_region = if separate_io { 4 } else { 1 };
    let inputs = ifms
        .iter()
        .map(|&i| place(i, in_region, "input"))
        .collect::<Result<Vec<_>, _>>()?;
    let outputs = outputs
        .iter()
        .map(|&i| place(i, out_region, "output"))
        .collect::<Result<Vec<_>, _>>()?;

    Ok(VelaModel {
        source: SourceKind::Tflite,
        cop,
        cmd_stream,
        readonly,
        scratch_size,
        fast_scratch_size,
        separate_io,
        inputs,
        outputs,
        notes,
    })
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code"
)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn touched_extents_follow_the_stream_and_report_decode_errors() {
        // Selecting region 4 and setting a base touches nothing without an operation.
        let s = words(&[0x0004_011F, 0x0000_4010, 0x10, 0xFFFF_0000]);
        assert_eq!(touched_extents(&s).unwrap(), [0; 8]);
        let e = touched_extents(&words(&[0x0000_4010])).unwrap_err();
        assert_eq!((e.code, e.offset), ("truncated-command", Some(0)));
    }

    #[test]
    fn not_a_tflite_is_rejected_with_the_identifier_offset() {
        let e = read(b"\x10\0\0\0NOPE\0\0\0\0\0\0\0\0").unwrap_err();
        assert_eq!((e.code, e.offset), ("tflite-bad-identifier", Some(4)));
    }

    #[test]
    fn a_truncated_flatbuffer_fails_verification() {
        let e = read(b"\xf0\0\0\0TFL3\0\0").unwrap_err();
        assert_eq!(e.code, "tflite-invalid-flatbuffer");
    }
}
