//! Tensors of an NPU1 version 2 blob as files: `run --sim --input NAME=PATH --output
//! NAME=PATH`. A tensor is named by its name, or by its index among the model's inputs (for
//! `--input`) or outputs (for `--output`); a file is a `.npy` of the tensor's shape and type,
//! or its raw bytes (exactly its size). Everything is checked before the run: a wrong shape,
//! type or size is an error naming the tensor.

use npuschema_generated::npu1::{DType, Direction, Npu1, TensorFlags};

/// One tensor of the blob's table, owned.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorDesc {
    /// The model's name.
    pub name: String,
    /// Input or output.
    pub direction: Direction,
    /// Its position among the inputs (or outputs).
    pub index: u32,
    /// Its runtime region.
    pub region: usize,
    /// Its offset in the region.
    pub offset: usize,
    /// Its byte size.
    pub size: usize,
    /// Its element type.
    pub dtype: DType,
    /// Its dimensions (`rank` of them).
    pub shape: Vec<u64>,
    /// `(scale, zero_point)`, when quantised.
    pub quantization: Option<(f32, i32)>,
}

/// The blob's tensors (empty for version 1).
#[must_use]
pub fn tensors(v: &Npu1<'_>) -> Vec<TensorDesc> {
    v.io()
        .map(|t| {
            let dims = [t.dim0(), t.dim1(), t.dim2(), t.dim3()];
            let rank = usize::try_from(t.rank()).unwrap_or(0).min(4);
            TensorDesc {
                name: String::from_utf8_lossy(v.name(&t)).into_owned(),
                direction: t.direction(),
                index: t.io_index(),
                region: usize::try_from(t.region()).unwrap_or(usize::MAX),
                offset: usize::try_from(t.offset()).unwrap_or(usize::MAX),
                size: usize::try_from(t.size()).unwrap_or(usize::MAX),
                dtype: t.dtype(),
                shape: dims.iter().take(rank).map(|&d| u64::from(d)).collect(),
                quantization: t
                    .flags()
                    .contains(TensorFlags::QUANTIZED)
                    .then(|| (t.scale(), t.zero_point())),
            }
        })
        .collect()
}

/// The tensor `key` names for `--input` (`want` = input) or `--output`: its name, or its
/// index among the tensors of that direction.
///
/// # Errors
///
/// A message naming what was asked for and what the blob has.
pub fn find<'t>(
    list: &'t [TensorDesc],
    key: &str,
    want: Direction,
) -> Result<&'t TensorDesc, String> {
    let kind = if want == Direction::Input {
        "input"
    } else {
        "output"
    };
    let of_kind = || list.iter().filter(|t| t.direction == want);
    let found = match list.iter().find(|t| t.name == key) {
        Some(t) => Some(t),
        None => key
            .parse::<u32>()
            .ok()
            .and_then(|i| of_kind().find(|t| t.index == i)),
    };
    match found {
        Some(t) if t.direction == want => Ok(t),
        Some(t) => Err(format!(
            "{key:?} is the model's {} {}, not an {kind}",
            if t.direction == Direction::Input {
                "input"
            } else {
                "output"
            },
            t.index
        )),
        None => {
            let names: Vec<String> = of_kind()
                .map(|t| format!("{} ({:?})", t.index, t.name))
                .collect();
            Err(format!(
                "the blob has no {kind} {key:?}; its {kind}s: {}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        }
    }
}

/// The `.npy` type descriptor of a tensor type.
#[must_use]
pub fn descr(d: DType) -> &'static str {
    match d {
        DType::Int8 => "|i1",
        DType::Uint8 => "|u1",
        DType::Int16 => "<i2",
        DType::Int32 => "<i4",
    }
}

/// The bytes of `t` from a file's contents: a `.npy` (by its magic) of the tensor's type
/// and element count (a shape that differs only by 1s is accepted: `(1, 1)` for `(1,)`),
/// else raw bytes of exactly the tensor's size.
///
/// # Errors
///
/// What does not fit, naming the tensor.
pub fn tensor_bytes(t: &TensorDesc, file: &[u8]) -> Result<Vec<u8>, String> {
    if !file.starts_with(b"\x93NUMPY") {
        if file.len() != t.size {
            return Err(format!(
                "tensor {:?}: the file has {} bytes, the tensor {} ({} x {}, shape {:?}); give its raw bytes or a .npy",
                t.name,
                file.len(),
                t.size,
                descr(t.dtype),
                t.shape.iter().product::<u64>(),
                t.shape
            ));
        }
        return Ok(file.to_vec());
    }
    let npy = npyz::NpyFile::new(file)
        .map_err(|e| format!("tensor {:?}: not a readable .npy: {e}", t.name))?;
    let shape = npy.shape().to_vec();
    let got = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => format!("{other:?}"),
    };
    if got != descr(t.dtype) {
        return Err(format!(
            "tensor {:?}: the .npy holds {got}, the tensor is {} ({})",
            t.name,
            descr(t.dtype),
            t.dtype.name().unwrap_or("?")
        ));
    }
    let squeeze = |s: &[u64]| s.iter().copied().filter(|&d| d != 1).collect::<Vec<u64>>();
    if squeeze(&shape) != squeeze(&t.shape) {
        return Err(format!(
            "tensor {:?}: the .npy's shape is {shape:?}, the tensor's {:?}",
            t.name, t.shape
        ));
    }
    if npy.header().order() != npyz::Order::C && shape.iter().filter(|&&d| d != 1).count() > 1 {
        return Err(format!(
            "tensor {:?}: the .npy is in Fortran order; save it in C order",
            t.name
        ));
    }
    let data_at = file.len().checked_sub(t.size).ok_or_else(|| {
        format!(
            "tensor {:?}: the .npy holds fewer than {} bytes",
            t.name, t.size
        )
    })?;
    // The data is the last `size` bytes; the header before it must end where they begin.
    let header_len = npy_header_len(file)
        .ok_or_else(|| format!("tensor {:?}: a .npy header that does not parse", t.name))?;
    if header_len != data_at {
        return Err(format!(
            "tensor {:?}: the .npy holds {} data bytes, the tensor {}",
            t.name,
            file.len().saturating_sub(header_len),
            t.size
        ));
    }
    Ok(file.get(data_at..).unwrap_or_default().to_vec())
}

/// Where a `.npy`'s data starts: version 1 has a 2-byte header length at byte 8, versions 2
/// and 3 a 4-byte one.
fn npy_header_len(file: &[u8]) -> Option<usize> {
    match file.get(6)? {
        1 => Some(10 + usize::from(u16::from_le_bytes(file.get(8..10)?.try_into().ok()?))),
        _ => 12usize.checked_add(
            usize::try_from(u32::from_le_bytes(file.get(8..12)?.try_into().ok()?)).ok()?,
        ),
    }
}

/// `bytes` as a version 1.0 `.npy` of the tensor's type and shape.
#[must_use]
pub fn to_npy(t: &TensorDesc, bytes: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = t.shape.iter().map(u64::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        descr(t.dtype)
    );
    // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + bytes.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(
        &u16::try_from(header.len())
            .unwrap_or(u16::MAX)
            .to_le_bytes(),
    );
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(dtype: DType, shape: &[u64]) -> TensorDesc {
        let elem = match dtype {
            DType::Int32 => 4,
            DType::Int16 => 2,
            _ => 1,
        };
        TensorDesc {
            name: "t".into(),
            direction: Direction::Input,
            index: 0,
            region: 1,
            offset: 0,
            size: usize::try_from(shape.iter().product::<u64>()).unwrap() * elem,
            dtype,
            shape: shape.to_vec(),
            quantization: None,
        }
    }

    #[test]
    fn npy_round_trips_and_wrong_files_are_named() {
        for (dtype, shape) in [
            (DType::Int8, vec![1u64, 1]),
            (DType::Int16, vec![1, 3, 2, 1]),
            (DType::Int32, vec![5]),
            (DType::Uint8, vec![2, 2]),
        ] {
            let t = desc(dtype, &shape);
            let data: Vec<u8> = (0..t.size).map(|i| i as u8).collect();
            let npy = to_npy(&t, &data);
            assert_eq!((npy.len() - data.len()) % 64, 0, "header padded to 64");
            assert_eq!(tensor_bytes(&t, &npy).unwrap(), data);
            assert_eq!(tensor_bytes(&t, &data).unwrap(), data, "raw bytes");
            let short = &data[..data.len() - 1];
            assert!(tensor_bytes(&t, short).unwrap_err().contains("\"t\""));
        }
        let t = desc(DType::Int8, &[1, 4]);
        let other = desc(DType::Int16, &[1, 4]);
        let wrong_type = to_npy(&other, &[0u8; 8]);
        assert!(tensor_bytes(&t, &wrong_type).unwrap_err().contains("<i2"));
        let wrong_shape = to_npy(&desc(DType::Int8, &[2, 2]), &[0u8; 4]);
        assert!(
            tensor_bytes(&t, &wrong_shape)
                .unwrap_err()
                .contains("shape")
        );
    }

    #[test]
    fn tensors_are_found_by_name_or_index() {
        let mut a = desc(DType::Int8, &[1]);
        a.name = "in".into();
        let mut b = desc(DType::Int8, &[1]);
        b.name = "out".into();
        b.direction = Direction::Output;
        let list = [a, b];
        assert_eq!(find(&list, "in", Direction::Input).unwrap().name, "in");
        assert_eq!(find(&list, "0", Direction::Output).unwrap().name, "out");
        assert!(
            find(&list, "out", Direction::Input)
                .unwrap_err()
                .contains("not an input")
        );
        assert!(
            find(&list, "nope", Direction::Output)
                .unwrap_err()
                .contains("\"out\"")
        );
    }
}
