//! Vela's raw output (`--output-format raw`): `<model>_vela.npz`, a zip of `.npy` members.
//!
//! Members, as `ethosu/vela/rawdata_writer.py` (Vela 5.2.0) writes them:
//!
//! | member | numpy value |
//! |---|---|
//! | `cmd_data` | the COP1/COP2 payload as a 0-d `bytes` value (`|S<n>`) |
//! | `weight_data` | the read-only region (0-d `|S<n>`, or a 1-d `uint8` array) |
//! | `weight_region`, `scratch_region`, `scratch_fast_region` | region slots (0-d int) |
//! | `scratch_size`, `scratch_fast_size` | byte sizes (0-d int) |
//! | `input_shape`, `output_shape` | one row per tensor (Vela pads to 6 dimensions) |
//! | `input_elem_size`, `_region`, `_offset` (and `output_*`) | one value per tensor |
//! | `input_quantization`, `output_quantization` | object arrays (pickled) of dicts |
//!
//! Headers are parsed by `npyz`. Two values need more than its typed readers:
//!
//! * `|S<n>` blobs: `npyz` reads `|S` into `Vec<u8>` with trailing NUL bytes stripped, which
//!   would cut a payload or weight blob that ends in zeros. So `npyz` parses the header and
//!   the `n` data bytes that follow it are read whole.
//! * Quantisation: object arrays are pickles. `serde-pickle` decodes them as plain data (it
//!   runs nothing); the ndarray state it yields for each `scale` / `zero_point` is
//!   `(1, shape, dtype state, fortran, raw bytes)`, which is read as float32 / int32 as
//!   `rawdata_writer.py` creates them, after checking the byte count and byte order. A
//!   quantisation entry that does not have that form is reported as unknown (with a note),
//!   not guessed.

use std::io::{Cursor, Read};

use npyz::{DType, NpyFile, TypeChar};
use serde_pickle::{HashableValue, Value};

use super::cop;
use super::model::{PackError, Quantization, SourceKind, TensorPlacement, TensorType, VelaModel};

/// Members whose declared (uncompressed) size is over the input limit
/// ([`crate::io::max_input_bytes`], 256 MiB by default) are refused before they are
/// inflated (a zip bomb guard; real payloads are megabytes), and no member is read past it.
fn max_member_bytes() -> u64 {
    crate::io::max_input_bytes()
}

/// The most containers (lists, tuples, dicts, objects) a quantisation pickle may create.
/// A value cannot nest deeper than the containers it has (a container cannot hold itself:
/// the decoder refuses recursive structures), so this bounds the depth to which decoding,
/// and dropping, the value recurses. Vela's pickles create about 20 per tensor.
pub const MAX_PICKLE_CONTAINERS: usize = 1000;

/// The number of containers the pickle program `p` creates, read opcode by opcode without
/// running it; `Err` for a program that is not well formed (the decoder would refuse it
/// too) or that creates more than `limit` (then `Ok(limit + 1)`).
pub fn pickle_containers(p: &[u8], limit: usize) -> Result<usize, String> {
    let mut at = 0usize;
    let mut containers = 0usize;
    let le = |b: &[u8]| b.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x));
    while let Some(&op) = p.get(at) {
        at += 1;
        // Argument bytes: fixed, a length prefix (`n` bytes then that many), or lines.
        let (fixed, prefixed, lines) = match op {
            b'(' | b'.' | b'0' | b'1' | b'2' | b'N' | b'R' | b'a' | b'b' | b'd' | b'}' | b'e'
            | b'l' | b']' | b'o' | b's' | b't' | b')' | b'u' | b'Q' | 0x81 | 0x85 | 0x86 | 0x87
            | 0x88 | 0x89 | 0x8f | 0x90 | 0x91 | 0x92 | 0x93 | 0x94 | 0x97 | 0x98 => (0, 0, 0),
            b'K' | b'h' | b'q' | 0x80 | 0x82 => (1, 0, 0),
            b'M' | 0x83 => (2, 0, 0),
            b'J' | b'j' | b'r' | 0x84 => (4, 0, 0),
            b'G' | 0x95 => (8, 0, 0),
            b'U' | b'C' | 0x8c | 0x8a => (0, 1, 0),
            b'T' | b'X' | b'B' | 0x8b => (0, 4, 0),
            0x8d | 0x8e | 0x96 => (0, 8, 0),
            b'I' | b'L' | b'S' | b'V' | b'F' | b'g' | b'p' | b'P' => (0, 0, 1),
            b'c' | b'i' => (0, 0, 2),
            other => {
                return Err(format!(
                    "unknown pickle opcode {other:#04x} at byte {}",
                    at - 1
                ));
            }
        };
        if matches!(
            op,
            b'd' | b'}'
                | b'l'
                | b']'
                | b't'
                | b')'
                | b'o'
                | b'R'
                | b'b'
                | b'i'
                | 0x81
                | 0x85
                | 0x86
                | 0x87
                | 0x8f
                | 0x91
                | 0x92
        ) {
            containers += 1;
            if containers > limit {
                return Ok(containers);
            }
        }
        let short = || format!("pickle ends inside the argument of opcode {op:#04x}");
        if prefixed > 0 {
            let n = p.get(at..at + prefixed).map(le).ok_or_else(short)?;
            at += prefixed;
            let n = usize::try_from(n).map_err(|_| short())?;
            at = at
                .checked_add(n)
                .filter(|&e| e <= p.len())
                .ok_or_else(short)?;
        } else if lines > 0 {
            for _ in 0..lines {
                let nl = p.get(at..).and_then(|r| r.iter().position(|&b| b == b'\n'));
                at += nl.ok_or_else(short)? + 1;
            }
        } else {
            at = at
                .checked_add(fixed)
                .filter(|&e| e <= p.len())
                .ok_or_else(short)?;
        }
        if op == b'.' {
            break;
        }
    }
    Ok(containers)
}

/// The bytes after a `.npy` header (whose header `NpyFile::new` already parsed): version 1
/// has a 2-byte header length at byte 8, versions 2 and 3 a 4-byte one.
fn npy_data_len(bytes: &[u8]) -> u64 {
    let at = match bytes.get(6) {
        Some(1) => bytes
            .get(8..10)
            .map(|b| 10 + u64::from(u16::from_le_bytes([b[0], b[1]]))),
        Some(_) => bytes
            .get(8..12)
            .map(|b| 12 + u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
        None => None,
    };
    (bytes.len() as u64).saturating_sub(at.unwrap_or(bytes.len() as u64))
}

/// The shape a `.npy` header declares, read from its header text (`'shape': (a, b, ...)`)
/// without trusting it; `None` when it is not found (the npy reader then says why).
fn npy_declared_shape(bytes: &[u8]) -> Option<Vec<u64>> {
    let text = bytes.get(..bytes.len().min(1 << 16))?;
    let text = String::from_utf8_lossy(text);
    let after = &text[text.find("'shape'")? + "'shape'".len()..];
    let open = after.find('(')?;
    let close = after[open..].find(')')? + open;
    after[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.trim_end_matches('L').parse::<u64>().ok())
        .collect()
}

/// The element count of an array of `shape`, if it does not overflow 64 bits.
fn element_count(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d))
}

/// Check that an array's declared shape fits the bytes that follow its header: a count that
/// overflows (`(2^62, 2^62)` must not wrap to 0) or needs more bytes than there are is
/// refused before anything is allocated for it.
fn check_shape(name: &str, shape: &[u64], elem: u64, avail: u64) -> Result<u64, PackError> {
    let count = element_count(shape);
    match count.and_then(|c| c.checked_mul(elem)) {
        Some(need) if need <= avail => Ok(count.unwrap_or(0)),
        need => Err(PackError::new(
            "npz-bad-shape",
            name.to_string(),
            None,
            match need {
                Some(n) => format!("shape {shape:?} needs {n} bytes, {avail} follow the header"),
                None => format!("shape {shape:?}: the element count overflows 64 bits"),
            },
        )),
    }
}

/// The zip file, with its name for messages.
struct Npz<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    /// Bytes inflated so far: all members together stay within the input limit too
    /// (`npz-too-large`), so a pack holds at most that much inflated, whatever the npz.
    inflated: u64,
}

impl Npz<'_> {
    fn has(&self, member: &str) -> bool {
        self.zip.index_for_name(&format!("{member}.npy")).is_some()
    }

    /// The bytes of `<member>.npy`.
    fn member(&mut self, member: &str) -> Result<Vec<u8>, PackError> {
        let name = format!("{member}.npy");
        let mut f = self.zip.by_name(&name).map_err(|e| {
            PackError::new(
                "npz-missing-member",
                name.clone(),
                None,
                format!("not readable in the npz: {e}"),
            )
        })?;
        let limit = max_member_bytes();
        if f.size() > limit {
            return Err(PackError::new(
                "npz-member-too-large",
                name,
                None,
                format!(
                    "{} bytes uncompressed (limit {limit}; set {} to raise it)",
                    f.size(),
                    crate::io::MAX_INPUT_ENV
                ),
            ));
        }
        if self.inflated.saturating_add(f.size()) > limit {
            return Err(PackError::new(
                "npz-too-large",
                name,
                None,
                format!(
                    "the members read inflate to more than {limit} bytes in all ({} before this one of {}; set {} to raise it)",
                    self.inflated,
                    f.size(),
                    crate::io::MAX_INPUT_ENV
                ),
            ));
        }
        let mut out = Vec::new();
        // The declared size (within the limit) up front: read_to_end then fills it without
        // reallocating when the size is true.
        out.try_reserve_exact(usize::try_from(f.size()).unwrap_or(0))
            .map_err(|e| {
                PackError::new(
                    "npz-member-too-large",
                    name.clone(),
                    None,
                    format!("cannot allocate {} bytes: {e}", f.size()),
                )
            })?;
        // One byte past the limit tells a member whose declared size lies.
        f.by_ref()
            .take(limit.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| {
                PackError::new(
                    "npz-bad-member",
                    name.clone(),
                    None,
                    format!("cannot be read: {e}"),
                )
            })?;
        if out.len() as u64 > limit {
            return Err(PackError::new(
                "npz-member-too-large",
                name,
                None,
                format!("more than {limit} bytes uncompressed"),
            ));
        }
        self.inflated = self.inflated.saturating_add(out.len() as u64);
        Ok(out)
    }

    fn npy<'b>(&mut self, member: &str, bytes: &'b [u8]) -> Result<NpyFile<&'b [u8]>, PackError> {
        let _ = self;
        // npyz multiplies the dimensions unchecked (a panic, or a wrapped length).
        if let Some(shape) = npy_declared_shape(bytes)
            && shape
                .iter()
                .filter(|&&d| d != 0)
                .try_fold(1u64, |a, &d| a.checked_mul(d))
                .is_none()
        {
            return Err(PackError::at(
                "npz-bad-shape",
                format!("{member}.npy"),
                0,
                format!("shape {shape:?}: the element count overflows 64 bits"),
            ));
        }
        NpyFile::new(bytes).map_err(|e| {
            PackError::at(
                "npz-bad-npy-header",
                format!("{member}.npy"),
                0,
                format!("not a .npy file: {e}"),
            )
        })
    }

    /// A byte blob: a 0-d `|S<n>` value read whole (trailing zeros included), or a 1-d
    /// `uint8` array. The member's bytes become the blob in place (its header moved out),
    /// so a large weight member is held once, not twice.
    fn blob(&mut self, member: &str) -> Result<Vec<u8>, PackError> {
        let mut bytes = self.member(member)?;
        let name = format!("{member}.npy");
        let (data_at, n) = {
            let npy = self.npy(member, &bytes)?;
            let dtype = npy.dtype();
            let shape = npy.shape().to_vec();
            // What follows the header npyz parsed.
            let avail = npy.into_inner().len() as u64;
            let data_at = (bytes.len() as u64).saturating_sub(avail);
            match &dtype {
                DType::Plain(ts) if ts.type_char() == TypeChar::ByteStr && shape.is_empty() => {
                    let n = ts.size_field();
                    if n > avail {
                        return Err(PackError::at(
                            "npz-truncated-member",
                            name,
                            data_at,
                            format!("|S{n} value needs {n} bytes, {avail} follow the header"),
                        ));
                    }
                    (data_at, n)
                }
                DType::Plain(ts)
                    if ts.type_char() == TypeChar::Uint
                        && ts.size_field() == 1
                        && shape.len() == 1 =>
                {
                    (data_at, check_shape(&name, &shape, 1, avail)?)
                }
                other => {
                    return Err(PackError::at(
                        "npz-unexpected-dtype",
                        name,
                        0,
                        format!(
                            "dtype {} with shape {shape:?}; expected a 0-d byte string (|S<n>) or 1-d uint8",
                            other.descr()
                        ),
                    ));
                }
            }
        };
        // Both are at most the member's length (checked above).
        let (Ok(data_at), Ok(end)) = (usize::try_from(data_at), usize::try_from(data_at + n))
        else {
            return Err(PackError::new(
                "npz-member-too-large",
                name,
                None,
                "over the address space",
            ));
        };
        bytes.truncate(end);
        bytes.drain(..data_at);
        Ok(bytes)
    }

    /// All values of an integer array of any integer dtype, flattened, with its shape. An
    /// empty array of any dtype (numpy saves `[]` as float64) reads as no values.
    fn ints(&mut self, member: &str) -> Result<(Vec<i64>, Vec<u64>), PackError> {
        let bytes = self.member(member)?;
        let npy = self.npy(member, &bytes)?;
        let name = format!("{member}.npy");
        let shape = npy.shape().to_vec();
        let elem = match npy.dtype() {
            DType::Plain(ts) => ts.size_field(),
            _ => 1,
        };
        let avail = npy_data_len(&bytes);
        if check_shape(&name, &shape, elem, avail)? == 0 {
            return Ok((Vec::new(), shape));
        }
        let bad = |e: std::io::Error| {
            PackError::at("npz-truncated-member", name.clone(), 0, e.to_string())
        };
        let DType::Plain(ts) = npy.dtype() else {
            return Err(PackError::at(
                "npz-unexpected-dtype",
                name.clone(),
                0,
                "a structured dtype; expected integers",
            ));
        };
        let values: Vec<i64> = match (ts.type_char(), ts.size_field()) {
            (TypeChar::Int, 8) => npy.into_vec::<i64>().map_err(bad)?,
            (TypeChar::Int, 4) => npy
                .into_vec::<i32>()
                .map_err(bad)?
                .into_iter()
                .map(i64::from)
                .collect(),
            (TypeChar::Int, 2) => npy
                .into_vec::<i16>()
                .map_err(bad)?
                .into_iter()
                .map(i64::from)
                .collect(),
            (TypeChar::Int, 1) => npy
                .into_vec::<i8>()
                .map_err(bad)?
                .into_iter()
                .map(i64::from)
                .collect(),
            (TypeChar::Uint, 4) => npy
                .into_vec::<u32>()
                .map_err(bad)?
                .into_iter()
                .map(i64::from)
                .collect(),
            (TypeChar::Uint, 2) => npy
                .into_vec::<u16>()
                .map_err(bad)?
                .into_iter()
                .map(i64::from)
                .collect(),
            (TypeChar::Uint, 1) => npy
                .into_vec::<u8>()
                .map_err(bad)?
                .into_iter()
                .map(i64::from)
                .collect(),
            (TypeChar::Uint, 8) => npy
                .into_vec::<u64>()
                .map_err(bad)?
                .into_iter()
                .map(|v| i64::try_from(v).unwrap_or(i64::MAX))
                .collect(),
            _ => {
                return Err(PackError::at(
                    "npz-unexpected-dtype",
                    name.clone(),
                    0,
                    format!("dtype {}; expected integers", ts),
                ));
            }
        };
        Ok((values, shape))
    }

    /// A 0-d (or one-element) integer as u64.
    fn scalar(&mut self, member: &str) -> Result<u64, PackError> {
        let (v, shape) = self.ints(member)?;
        match v.as_slice() {
            [x] => u64::try_from(*x).map_err(|_| {
                PackError::new(
                    "npz-bad-value",
                    format!("{member}.npy"),
                    None,
                    format!("{x} is negative"),
                )
            }),
            _ => Err(PackError::new(
                "npz-bad-value",
                format!("{member}.npy"),
                None,
                format!("shape {shape:?}: expected a single integer"),
            )),
        }
    }

    /// Non-negative integers, one per tensor.
    fn per_tensor(&mut self, member: &str, n: usize) -> Result<Vec<u64>, PackError> {
        let (v, shape) = self.ints(member)?;
        if v.len() != n {
            return Err(PackError::new(
                "npz-inconsistent-tensors",
                format!("{member}.npy"),
                None,
                format!("{} values (shape {shape:?}) for {n} tensors", v.len()),
            ));
        }
        v.into_iter()
            .map(|x| {
                u64::try_from(x).map_err(|_| {
                    PackError::new(
                        "npz-bad-value",
                        format!("{member}.npy"),
                        None,
                        format!("{x} is negative"),
                    )
                })
            })
            .collect()
    }

    /// Shapes, one row per tensor: returns the number of tensors and their shapes.
    fn shapes(&mut self, member: &str) -> Result<Vec<Vec<u64>>, PackError> {
        let (v, shape) = self.ints(member)?;
        let name = format!("{member}.npy");
        if v.is_empty() {
            return Ok(Vec::new());
        }
        let [rows, cols] = shape.as_slice() else {
            return Err(PackError::new(
                "npz-bad-value",
                name,
                None,
                format!("shape {shape:?}: expected (tensors, dims)"),
            ));
        };
        let (rows, cols) = (
            usize::try_from(*rows).unwrap_or(0),
            usize::try_from(*cols).unwrap_or(0),
        );
        if cols == 0 || rows.checked_mul(cols) != Some(v.len()) {
            return Err(PackError::new(
                "npz-bad-value",
                name,
                None,
                format!("shape {shape:?} does not match {} values", v.len()),
            ));
        }
        v.chunks(cols)
            .map(|row| {
                row.iter()
                    .map(|&d| {
                        u64::try_from(d).map_err(|_| {
                            PackError::new(
                                "npz-bad-value",
                                name.clone(),
                                None,
                                format!("dimension {d} is negative"),
                            )
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// Quantisation per tensor (`None` entries when unknown), plus notes on why.
    fn quantization(
        &mut self,
        member: &str,
        n: usize,
        notes: &mut Vec<String>,
    ) -> Vec<Option<Quantization>> {
        let unknown = vec![None; n];
        if !self.has(member) {
            notes.push(format!("{member}.npy is absent: quantisation unknown"));
            return unknown;
        }
        let bytes = match self.member(member) {
            Ok(b) => b,
            Err(e) => {
                notes.push(format!("quantisation unknown: {e}"));
                return unknown;
            }
        };
        let npy = match self.npy(member, &bytes) {
            Ok(n) => n,
            Err(e) => {
                notes.push(format!("quantisation unknown: {e}"));
                return unknown;
            }
        };
        if !npy.uses_pickled_array() {
            notes.push(format!(
                "{member}.npy is not an object array: quantisation unknown"
            ));
            return unknown;
        }
        let pickle = npy.into_inner();
        match pickle_containers(pickle, MAX_PICKLE_CONTAINERS) {
            Ok(n) if n > MAX_PICKLE_CONTAINERS => {
                notes.push(format!(
                    "{member}.npy: the pickle creates more than {MAX_PICKLE_CONTAINERS} containers (it may nest that deep; not decoded): quantisation unknown"
                ));
                return unknown;
            }
            Ok(_) => {}
            Err(e) => {
                notes.push(format!(
                    "{member}.npy: pickle not decodable ({e}): quantisation unknown"
                ));
                return unknown;
            }
        }
        let value = match serde_pickle::value_from_reader(pickle, serde_pickle::DeOptions::new()) {
            Ok(v) => v,
            Err(e) => {
                notes.push(format!(
                    "{member}.npy: pickle not decodable ({e}): quantisation unknown"
                ));
                return unknown;
            }
        };
        let Some(items) = ndarray_state(&value).and_then(|(_, data)| match data {
            Value::List(items) => Some(items),
            _ => None,
        }) else {
            notes.push(format!(
                "{member}.npy: not a pickled object array: quantisation unknown"
            ));
            return unknown;
        };
        if items.len() != n {
            notes.push(format!(
                "{member}.npy: {} entries for {n} tensors: quantisation unknown",
                items.len()
            ));
            return unknown;
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match quant_entry(item) {
                Ok(q) => q,
                Err(why) => {
                    notes.push(format!("{member}[{i}]: {why}: quantisation unknown"));
                    None
                }
            })
            .collect()
    }
}

/// An ndarray's pickled state, `(version, shape, dtype state, fortran, data)`: returns the
/// shape and the data.
fn ndarray_state(v: &Value) -> Option<(Vec<i64>, &Value)> {
    let Value::Tuple(t) = v else { return None };
    let [_, Value::Tuple(shape), _, _, data] = t.as_slice() else {
        return None;
    };
    let shape = shape
        .iter()
        .map(|d| match d {
            Value::I64(x) => Some(*x),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((shape, data))
}

/// The byte-order character of a pickled dtype state `(3, '<', ...)`.
fn dtype_order(v: &Value) -> Option<&str> {
    let Value::Tuple(t) = v else { return None };
    match t.get(1) {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    }
}

/// Raw little-endian element bytes of a pickled ndarray of `elem`-byte elements.
fn ndarray_le_bytes(v: &Value, elem: usize) -> Result<Vec<u8>, String> {
    let Value::Tuple(t) = v else {
        return Err("array is not a pickled ndarray".into());
    };
    let [_, Value::Tuple(shape), dtype, _, Value::Bytes(raw)] = t.as_slice() else {
        return Err("array is not a pickled ndarray with raw data".into());
    };
    if !matches!(dtype_order(dtype), Some("<" | "=" | "|")) {
        return Err(format!(
            "array byte order {:?} is not little-endian",
            dtype_order(dtype)
        ));
    }
    let count = shape.iter().try_fold(1usize, |acc, d| match d {
        Value::I64(x) => usize::try_from(*x).ok().and_then(|x| acc.checked_mul(x)),
        _ => None,
    });
    match count.and_then(|c| c.checked_mul(elem)) {
        Some(b) if b == raw.len() => Ok(raw.clone()),
        _ => Err(format!(
            "{} data bytes do not match shape {shape:?} of {elem}-byte elements",
            raw.len()
        )),
    }
}

/// One `{"quant_type", "scale", "zero_point"}` dict.
fn quant_entry(item: &Value) -> Result<Option<Quantization>, String> {
    let Value::Dict(d) = item else {
        return Err("entry is not a dict".into());
    };
    let get = |k: &str| d.get(&HashableValue::String(k.to_string()));
    match get("quant_type") {
        Some(Value::String(t)) if t == "none" => return Ok(None),
        Some(Value::String(_)) => {}
        _ => return Err("no quant_type".into()),
    }
    let (Some(scale), Some(zp)) = (get("scale"), get("zero_point")) else {
        return Err("no scale or zero_point".into());
    };
    // rawdata_writer.py makes these float32 and int32 arrays.
    let scale = ndarray_le_bytes(scale, 4)?
        .as_chunks::<4>()
        .0
        .iter()
        .map(|c| f32::from_le_bytes(*c))
        .collect::<Vec<_>>();
    let zero_point = ndarray_le_bytes(zp, 4)?
        .as_chunks::<4>()
        .0
        .iter()
        .map(|c| i64::from(i32::from_le_bytes(*c)))
        .collect::<Vec<_>>();
    Ok(Some(Quantization { scale, zero_point }))
}

/// Read a Vela `.npz`.
pub fn read(bytes: &[u8]) -> Result<VelaModel, PackError> {
    let zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        PackError::new(
            "npz-bad-zip",
            "npz archive",
            None,
            format!("not a readable zip file: {e}"),
        )
    })?;
    let mut z = Npz { zip, inflated: 0 };
    let mut notes = Vec::new();

    let payload = z.blob("cmd_data")?;
    let cop = cop::parse(&payload).map_err(|e| PackError {
        field: format!("cmd_data.npy payload: {}", e.field),
        ..e
    })?;
    let cmd_stream = cop
        .stream(&payload)
        .ok_or_else(|| {
            PackError::new("cop-stream-out-of-bounds", "cmd_data.npy payload", None, "")
        })?
        .to_vec();
    let readonly = z.blob("weight_data")?;

    let weight_region = z.scalar("weight_region")?;
    let scratch_region = z.scalar("scratch_region")?;
    let scratch_size = z.scalar("scratch_size")?;
    let fast_region = z.scalar("scratch_fast_region")?;
    let fast_size = z.scalar("scratch_fast_size")?;
    if weight_region != 0 {
        return Err(layout_error(
            "weight_region.npy",
            format!("read-only data in region {weight_region}, expected 0"),
        ));
    }
    if scratch_region != 1 {
        return Err(layout_error(
            "scratch_region.npy",
            format!("scratch in region {scratch_region}, expected 1"),
        ));
    }
    let fast_scratch_size = match (fast_size, fast_region) {
        (0, _) => None,
        (n, 2) => Some(n),
        (n, r) => {
            return Err(layout_error(
                "scratch_fast_region.npy",
                format!(
                    "{n}-byte fast scratch in region {r}; only a separate region 2 is supported"
                ),
            ));
        }
    };

    let mut inputs = tensors(&mut z, "input", &mut notes)?;
    let mut outputs = tensors(&mut z, "output", &mut notes)?;
    let separate_io = inputs.iter().any(|t| t.region == 3) || outputs.iter().any(|t| t.region == 4);
    for (list, kind, io_region) in [(&mut inputs, "input", 3), (&mut outputs, "output", 4)] {
        for t in list.iter() {
            let ok = if separate_io {
                t.region == io_region
            } else {
                t.region == 1 || (t.region == 2 && fast_scratch_size.is_some())
            };
            if !ok {
                return Err(layout_error(
                    &format!("{kind}_region.npy"),
                    format!(
                        "{} in region {}: expected {}",
                        t.name,
                        t.region,
                        if separate_io {
                            format!("{io_region} (separate IO regions)")
                        } else {
                            "1 (the scratch arena)".to_string()
                        }
                    ),
                ));
            }
        }
    }

    Ok(VelaModel {
        source: SourceKind::Npz,
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

fn layout_error(field: &str, detail: String) -> PackError {
    PackError::new("unsupported-region-layout", field, None, detail)
}

fn tensors(
    z: &mut Npz<'_>,
    kind: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<TensorPlacement>, PackError> {
    let shapes = z.shapes(&format!("{kind}_shape"))?;
    let n = shapes.len();
    let elem = z.per_tensor(&format!("{kind}_elem_size"), n)?;
    let region = z.per_tensor(&format!("{kind}_region"), n)?;
    let offset = z.per_tensor(&format!("{kind}_offset"), n)?;
    let quant = z.quantization(&format!("{kind}_quantization"), n, notes);
    shapes
        .into_iter()
        .zip(elem)
        .zip(region)
        .zip(offset)
        .zip(quant)
        .enumerate()
        .map(
            |(i, ((((shape, elem_size), region), offset), quantization))| {
                let region = u32::try_from(region)
                    .ok()
                    .filter(|&r| r < 8)
                    .ok_or_else(|| {
                        layout_error(
                            &format!("{kind}_region.npy"),
                            format!("{kind}[{i}] in region {region}, not a BASEP slot 0..7"),
                        )
                    })?;
                // Vela's npz records an element size, not a type: 1 byte is int8 (the
                // Ethos-U55's activations; a uint8 model's npz cannot be told apart), 2 int16,
                // 4 int32.
                let dtype = match elem_size {
                    1 => Some(TensorType::Int8),
                    2 => Some(TensorType::Int16),
                    4 => Some(TensorType::Int32),
                    _ => None,
                };
                Ok(TensorPlacement {
                    name: format!("{kind}[{i}]"),
                    region,
                    offset,
                    shape,
                    elem_size,
                    quantization,
                    dtype,
                })
            },
        )
        .collect()
}
