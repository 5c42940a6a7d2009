//! Vela's default output: `<model>_vela.tflite`, where the whole network is one CUSTOM
//! operator "ethos-u".
//!
//! The file is read with [`super::fb`], a small safe FlatBuffers reader, at the field slots
//! of the TFLite schema subset in `tflite_subset.fbs`; every field is bounds-checked when it
//! is read, and a malformed buffer is `tflite-invalid-flatbuffer`.
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
use super::fb::{Invalid, Table, Vector};
use super::model::{PackError, Quantization, SourceKind, TensorPlacement, VelaModel};

/// TFLite's BuiltinOperator CUSTOM.
const BUILTIN_CUSTOM: i32 = 32;
/// The custom code of Vela's operator.
const ETHOS_U: &str = "ethos-u";
const OFFLINE_ALLOC: &str = "OfflineMemoryAllocation";

/// Field slots of the TFLite tables read here (`tflite_subset.fbs`: field `k` is slot `k`).
mod slot {
    pub const MODEL_OPERATOR_CODES: usize = 1;
    pub const MODEL_SUBGRAPHS: usize = 2;
    pub const MODEL_BUFFERS: usize = 4;
    pub const MODEL_METADATA: usize = 6;
    pub const SUBGRAPH_TENSORS: usize = 0;
    pub const SUBGRAPH_INPUTS: usize = 1;
    pub const SUBGRAPH_OPERATORS: usize = 3;
    pub const TENSOR_SHAPE: usize = 0;
    pub const TENSOR_TYPE: usize = 1;
    pub const TENSOR_BUFFER: usize = 2;
    pub const TENSOR_NAME: usize = 3;
    pub const TENSOR_QUANTIZATION: usize = 4;
    pub const QUANT_SCALE: usize = 2;
    pub const QUANT_ZERO_POINT: usize = 3;
    pub const OPCODE_DEPRECATED_BUILTIN: usize = 0;
    pub const OPCODE_CUSTOM_CODE: usize = 1;
    pub const OPCODE_BUILTIN: usize = 3;
    pub const OPERATOR_OPCODE_INDEX: usize = 0;
    pub const OPERATOR_INPUTS: usize = 1;
    pub const OPERATOR_OUTPUTS: usize = 2;
    pub const BUFFER_DATA: usize = 0;
    pub const BUFFER_OFFSET: usize = 1;
    pub const BUFFER_SIZE: usize = 2;
    pub const METADATA_NAME: usize = 0;
    pub const METADATA_BUFFER: usize = 1;
}

fn err(code: &'static str, field: impl Into<String>, detail: impl Into<String>) -> PackError {
    PackError::new(code, field, None, detail)
}

impl From<Invalid> for PackError {
    fn from(e: Invalid) -> Self {
        PackError::at("tflite-invalid-flatbuffer", e.what, e.at, e.to_string())
    }
}

/// Bytes per element of a TensorType (`tflite_subset.fbs`), `None` for types without a
/// fixed size (STRING, RESOURCE, VARIANT, INT4, unknown).
/// The NPU1 version 2 element type of a TFLite `TensorType`, when it has one.
fn tensor_type(t: i8) -> Option<super::model::TensorType> {
    use super::model::TensorType;
    Some(match t {
        9 => TensorType::Int8,
        3 => TensorType::Uint8,
        7 => TensorType::Int16,
        2 => TensorType::Int32,
        _ => return None,
    })
}

fn elem_size(t: i8) -> Option<u64> {
    Some(match t {
        3 | 9 | 6 => 1,       // UINT8, INT8, BOOL
        7 | 16 | 1 | 18 => 2, // INT16, UINT16, FLOAT16, BFLOAT16
        2 | 15 | 0 => 4,      // INT32, UINT32, FLOAT32
        4 | 12 | 10 | 8 => 8, // INT64, UINT64, FLOAT64, COMPLEX64
        11 => 16,             // COMPLEX128
        _ => return None,
    })
}

/// Check every field of every table of the schema subset, as the FlatBuffers verifier does
/// before any field is used: a truncated or corrupted file fails here even where `pack`
/// would not read the damaged field.
fn verify(model: &Table<'_>) -> Result<(), Invalid> {
    fn each<'a>(t: &Table<'a>, slot: usize, what: &'static str) -> Result<Vec<Table<'a>>, Invalid> {
        t.vector(slot, what)?.map_or(Ok(Vec::new()), |v| v.tables())
    }
    fn ints_ok(t: &Table<'_>, slot: usize, what: &'static str) -> Result<(), Invalid> {
        ints(t, slot, what).map(drop)
    }
    model.u32(0, 0, "model.version")?;
    for c in each(model, slot::MODEL_OPERATOR_CODES, "model.operator_codes")? {
        c.i8(0, 0, "operator_code.deprecated_builtin_code")?;
        c.str(1, "operator_code.custom_code")?;
        c.i32(2, 1, "operator_code.version")?;
        c.i32(3, 0, "operator_code.builtin_code")?;
    }
    for sg in each(model, slot::MODEL_SUBGRAPHS, "model.subgraphs")? {
        for t in each(&sg, 0, "subgraph.tensors")? {
            ints_ok(&t, 0, "tensor.shape")?;
            t.i8(1, 0, "tensor.type")?;
            t.u32(2, 0, "tensor.buffer")?;
            t.str(3, "tensor.name")?;
            if let Some(q) = t.table(4, "tensor.quantization")? {
                for (k, what) in [
                    (0, "quantization.min"),
                    (1, "quantization.max"),
                    (2, "quantization.scale"),
                ] {
                    if let Some(v) = q.vector(k, what)? {
                        v.f32s()?;
                    }
                }
                if let Some(v) = q.vector(3, "quantization.zero_point")? {
                    v.i64s()?;
                }
            }
        }
        ints_ok(&sg, 1, "subgraph.inputs")?;
        ints_ok(&sg, 2, "subgraph.outputs")?;
        for op in each(&sg, 3, "subgraph.operators")? {
            op.u32(0, 0, "operator.opcode_index")?;
            ints_ok(&op, 1, "operator.inputs")?;
            ints_ok(&op, 2, "operator.outputs")?;
        }
        sg.str(4, "subgraph.name")?;
    }
    model.str(3, "model.description")?;
    for b in each(model, slot::MODEL_BUFFERS, "model.buffers")? {
        if let Some(d) = b.vector(0, "buffer.data")? {
            d.bytes()?;
        }
        b.u64(1, 0, "buffer.offset")?;
        b.u64(2, 0, "buffer.size")?;
    }
    ints_ok(model, 5, "model.metadata_buffer")?;
    for m in each(model, slot::MODEL_METADATA, "model.metadata")? {
        m.str(0, "metadata.name")?;
        m.u32(1, 0, "metadata.buffer")?;
    }
    Ok(())
}

/// An `[int]` vector field, empty when absent.
fn ints(t: &Table<'_>, slot: usize, what: &'static str) -> Result<Vec<i32>, Invalid> {
    t.vector(slot, what)?.map_or(Ok(Vec::new()), |v| v.i32s())
}

struct Reader<'a> {
    file: &'a [u8],
    model: Table<'a>,
    tensors: Vector<'a>,
}

impl<'a> Reader<'a> {
    fn tensor(&self, index: i32, what: &str) -> Result<Table<'a>, PackError> {
        let t = match usize::try_from(index) {
            Ok(i) => self.tensors.table(i)?,
            Err(_) => None,
        };
        t.ok_or_else(|| {
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

    fn tensor_name(t: &Table<'_>, index: i32) -> Result<String, PackError> {
        Ok(t.str(slot::TENSOR_NAME, "tensor.name")?
            .map_or_else(|| format!("tensor[{index}]"), str::to_string))
    }

    fn tensor_buffer(t: &Table<'_>) -> Result<u32, PackError> {
        Ok(t.u32(slot::TENSOR_BUFFER, 0, "tensor.buffer")?)
    }

    /// The data of buffer `index`: inline, or at `offset .. offset + size` of the file for
    /// buffers stored outside the FlatBuffer.
    fn buffer(&self, index: u32, what: &str) -> Result<&'a [u8], PackError> {
        let buffers = self
            .model
            .vector(slot::MODEL_BUFFERS, "model.buffers")?
            .ok_or_else(|| err("tflite-no-buffers", "model.buffers", "absent"))?;
        let b = match usize::try_from(index) {
            Ok(i) => buffers.table(i)?,
            Err(_) => None,
        }
        .ok_or_else(|| {
            err(
                "tflite-bad-buffer-index",
                what,
                format!("buffer {index}, model has {}", buffers.len()),
            )
        })?;
        let offset = b.u64(slot::BUFFER_OFFSET, 0, "buffer.offset")?;
        if offset > 1 {
            let size = b.u64(slot::BUFFER_SIZE, 0, "buffer.size")?;
            return npuschema_core::range_at(self.file, offset, size).ok_or_else(|| {
                PackError::at(
                    "tflite-buffer-out-of-bounds",
                    format!("{what} (buffer {index})"),
                    offset,
                    format!("{offset:#x} + {size:#x} > file size {:#x}", self.file.len()),
                )
            });
        }
        Ok(b.vector(slot::BUFFER_DATA, "buffer.data")?
            .map_or(Ok(&[][..]), |d| d.bytes())?)
    }

    /// Shape (all dimensions non-negative) and element size.
    fn shape(&self, t: &Table<'_>, index: i32) -> Result<(Vec<u64>, u64), PackError> {
        let name = Self::tensor_name(t, index)?;
        let shape = ints(t, slot::TENSOR_SHAPE, "tensor.shape")?
            .into_iter()
            .map(|d| u64::try_from(d).ok())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                err(
                    "tflite-dynamic-shape",
                    name.clone(),
                    "a negative (dynamic) dimension",
                )
            })?;
        let ty = t.i8(slot::TENSOR_TYPE, 0, "tensor.type")?;
        let elem = elem_size(ty).ok_or_else(|| {
            err(
                "tflite-unsupported-tensor-type",
                name,
                format!("TensorType {ty} has no fixed element size"),
            )
        })?;
        Ok((shape, elem))
    }

    fn bytes(&self, t: &Table<'_>, index: i32) -> Result<u64, PackError> {
        let (shape, elem) = self.shape(t, index)?;
        let name = Self::tensor_name(t, index)?;
        shape
            .iter()
            .try_fold(elem, |a, &d| a.checked_mul(d))
            .ok_or_else(|| err("tflite-tensor-too-large", name, "size overflows 64 bits"))
    }

    /// The OfflineMemoryAllocation offsets of subgraph 0's tensors.
    fn offline_offsets(&self, n_tensors: usize) -> Result<Vec<i32>, PackError> {
        let field = format!("metadata \"{OFFLINE_ALLOC}\"");
        let mut meta = None;
        if let Some(v) = self.model.vector(slot::MODEL_METADATA, "model.metadata")? {
            for m in v.tables()? {
                if m.str(slot::METADATA_NAME, "metadata.name")? == Some(OFFLINE_ALLOC) {
                    meta = Some(m);
                    break;
                }
            }
        }
        let Some(meta) = meta else {
            return Err(err(
                "tflite-no-offline-allocation",
                field,
                "absent: the arena offsets of the inputs and outputs are unknown",
            ));
        };
        let data = self.buffer(
            meta.u32(slot::METADATA_BUFFER, 0, "metadata.buffer")?,
            &field,
        )?;
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

fn quantization(t: &Table<'_>) -> Result<Option<Quantization>, Invalid> {
    let Some(q) = t.table(slot::TENSOR_QUANTIZATION, "tensor.quantization")? else {
        return Ok(None);
    };
    let Some(scale) = q.vector(slot::QUANT_SCALE, "quantization.scale")? else {
        return Ok(None);
    };
    let scale = scale.f32s()?;
    let zero_point = q
        .vector(slot::QUANT_ZERO_POINT, "quantization.zero_point")?
        .map_or(Ok(Vec::new()), |z| z.i64s())?;
    Ok((!scale.is_empty()).then_some(Quantization { scale, zero_point }))
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
    read_with(file, true).map(|(m, _)| m)
}

/// [`read`] taking the file: the read-only data (the weights, most of the file) becomes the
/// model's in place, its bytes moved to the front of the file's buffer, so a `.tflite` is
/// held once, not as the file and a copy of its weights.
pub fn read_owned(mut file: Vec<u8>) -> Result<VelaModel, PackError> {
    let (mut m, at) = read_with(&file, false)?;
    if let Some(at) = at {
        file.truncate(at.end);
        file.drain(..at.start);
        m.readonly = file;
    }
    Ok(m)
}

/// The model, and where its read-only data lies in `file` when the caller is to take it
/// from there (`copy` false and the data found in `file`); else the model holds a copy.
fn read_with(
    file: &[u8],
    copy: bool,
) -> Result<(VelaModel, Option<std::ops::Range<usize>>), PackError> {
    if file.get(4..8) != Some(b"TFL3".as_slice()) {
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
    let model = Table::root(file)?;
    verify(&model)?;
    let subgraphs = model
        .vector(slot::MODEL_SUBGRAPHS, "model.subgraphs")?
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
    let sg = subgraphs
        .table(0)?
        .ok_or_else(|| err("tflite-no-subgraph", "model.subgraphs", "empty"))?;
    let tensors = sg
        .vector(slot::SUBGRAPH_TENSORS, "subgraph.tensors")?
        .ok_or_else(|| err("tflite-no-tensors", "subgraphs[0].tensors", "absent"))?;
    let operators = sg
        .vector(slot::SUBGRAPH_OPERATORS, "subgraph.operators")?
        .ok_or_else(|| err("tflite-no-ethos-u-op", "subgraphs[0].operators", "absent"))?
        .tables()?;
    let codes = model.vector(slot::MODEL_OPERATOR_CODES, "model.operator_codes")?;
    let is_ethos_u = |op: &Table<'_>| -> Result<bool, Invalid> {
        let index = op.u32(slot::OPERATOR_OPCODE_INDEX, 0, "operator.opcode_index")?;
        let code = match (codes, usize::try_from(index)) {
            (Some(c), Ok(i)) => c.table(i)?,
            _ => None,
        };
        let Some(c) = code else { return Ok(false) };
        let builtin = c.i32(slot::OPCODE_BUILTIN, 0, "operator_code.builtin_code")?;
        let deprecated = c.i8(
            slot::OPCODE_DEPRECATED_BUILTIN,
            0,
            "operator_code.deprecated_builtin_code",
        )?;
        Ok(
            (builtin == BUILTIN_CUSTOM || i32::from(deprecated) == BUILTIN_CUSTOM)
                && c.str(slot::OPCODE_CUSTOM_CODE, "operator_code.custom_code")? == Some(ETHOS_U),
        )
    };
    let mut npu_ops = 0usize;
    for o in &operators {
        if is_ethos_u(o)? {
            npu_ops += 1;
        }
    }
    if npu_ops == 0 {
        return Err(err(
            "tflite-no-ethos-u-op",
            "subgraphs[0].operators",
            "no \"ethos-u\" custom operator: not a Vela output, or nothing was mapped to the NPU",
        ));
    }
    let [op] = operators.as_slice() else {
        return Err(err(
            "tflite-cpu-operators",
            "subgraphs[0].operators",
            format!(
                "{} operators, {npu_ops} of them \"ethos-u\": NPU1 holds one command stream, so the whole network must run on the NPU",
                operators.len()
            ),
        ));
    };
    let r = Reader {
        file,
        model,
        tensors,
    };
    let inputs = ints(op, slot::OPERATOR_INPUTS, "operator.inputs")?;
    let outputs = ints(op, slot::OPERATOR_OUTPUTS, "operator.outputs")?;
    let model_inputs = ints(&sg, slot::SUBGRAPH_INPUTS, "subgraph.inputs")?;
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
        Reader::tensor_buffer(&r.tensor(*cmd_idx, "input 0 (payload)")?)?,
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
    let ro = r.buffer(
        Reader::tensor_buffer(&r.tensor(*ro_idx, "input 1 (read-only)")?)?,
        "ethos-u read-only data",
    )?;
    // Where it lies in the file (it is a slice of it; an empty one may point anywhere).
    let at = ro
        .as_ptr()
        .addr()
        .checked_sub(file.as_ptr().addr())
        .filter(|&a| {
            !copy && !ro.is_empty() && a.checked_add(ro.len()).is_some_and(|e| e <= file.len())
        })
        .map(|a| a..a + ro.len());
    let readonly = if at.is_some() {
        Vec::new()
    } else {
        ro.to_vec()
    };
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
        let name = Reader::tensor_name(&t, idx)?;
        let (shape, elem_size) = r.shape(&t, idx)?;
        let offset = u64::try_from(offset_of(idx, &name)? - arena_base).map_err(|_| {
            err(
                "tflite-io-not-planned",
                name.clone(),
                "arena offset lies before the scratch tensor",
            )
        })?;
        let quantization = quantization(&t)?;
        if quantization.is_none() {
            notes.push(format!("{name}: no quantisation parameters in the model"));
        }
        let dtype = tensor_type(t.i8(slot::TENSOR_TYPE, 0, "tensor.type")?);
        Ok(TensorPlacement {
            name,
            region,
            offset,
            shape,
            elem_size,
            quantization,
            dtype,
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

    Ok((
        VelaModel {
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
        },
        at,
    ))
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
