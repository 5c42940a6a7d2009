//! A loaded job's input and output tensors (NPU1 version 2's I/O tensor table), by index and
//! by name, and their bytes: an input's in the caller's arena (writable), an output's to read
//! after the run. No allocation; every place was checked by the generated validator (each
//! tensor inside its runtime region), and is checked again here with `get`, so a lookup that
//! does not hold is `None`, never a panic.
//!
//! A version 1 blob has no tensor table: [`Job::tensors`] is empty, every lookup `None`, and
//! [`Job::compiled_for`] `None` (the driver then says it skipped the compiled-for check).
//!
//! ```ignore
//! let mut job = Job::load(&blob, &mut arena)?;
//! let input = job.tensor("serving_default_dense_input:0").ok_or(MyError::NoInput)?;
//! job.tensor_bytes_mut(&input).ok_or(MyError::NoInput)?.copy_from_slice(&samples);
//! // ... run ...
//! let out = job.output(0).and_then(|t| job.tensor_bytes(&t));
//! ```

use npuschema_generated::npu1::{DType, Direction, Tensor, TensorFlags};

use crate::binder::Job;

/// One input or output tensor of a loaded job: what the blob's tensor table says of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensorInfo<'b> {
    /// The model's name for it (UTF-8, checked by the validator).
    pub name: &'b str,
    /// Input or output.
    pub direction: Direction,
    /// Its position among the model's inputs (or outputs).
    pub index: u32,
    /// The runtime region (`BASEP` slot) holding it.
    pub region: u32,
    /// Its byte offset in that region.
    pub offset: u32,
    /// Its byte size.
    pub size: u32,
    /// The element type.
    pub dtype: DType,
    /// The dimensions (`rank` of them are meaningful, the rest are 1).
    pub shape: [u32; 4],
    /// How many dimensions it has (0 to 4).
    pub rank: u32,
    /// `(scale, zero_point)` when the tensor is quantised per tensor.
    pub quantization: Option<(f32, i32)>,
}

impl<'b> TensorInfo<'b> {
    /// The meaningful dimensions.
    #[must_use]
    pub fn dims(&self) -> &[u32] {
        let n = usize::try_from(self.rank).unwrap_or(0);
        self.shape.get(..n).unwrap_or(&self.shape)
    }
}

impl<'b> Job<'b, '_> {
    fn info(&self, t: &Tensor<'b>) -> Option<TensorInfo<'b>> {
        let view = self.view()?;
        Some(TensorInfo {
            // The validator checked every name as UTF-8; `ok()?` keeps this panic-free.
            name: view.name_str(t).ok()?,
            direction: t.direction(),
            index: t.io_index(),
            region: t.region(),
            offset: t.offset(),
            size: t.size(),
            dtype: t.dtype(),
            shape: [t.dim0(), t.dim1(), t.dim2(), t.dim3()],
            rank: t.rank(),
            quantization: t
                .flags()
                .contains(TensorFlags::QUANTIZED)
                .then(|| (t.scale(), t.zero_point())),
        })
    }

    /// The job's input and output tensors, in the table's order (by name); empty for a
    /// version 1 blob or a job bound from a list of regions.
    pub fn tensors(&self) -> impl Iterator<Item = TensorInfo<'b>> + '_ {
        self.view()
            .into_iter()
            .flat_map(|v| v.io())
            .filter_map(|t| self.info(&t))
    }

    /// The tensor called `name`.
    #[must_use]
    pub fn tensor(&self, name: &str) -> Option<TensorInfo<'b>> {
        self.tensors().find(|t| t.name == name)
    }

    /// The model's input number `index`.
    #[must_use]
    pub fn input(&self, index: u32) -> Option<TensorInfo<'b>> {
        self.tensors()
            .find(|t| t.direction == Direction::Input && t.index == index)
    }

    /// The model's output number `index`.
    #[must_use]
    pub fn output(&self, index: u32) -> Option<TensorInfo<'b>> {
        self.tensors()
            .find(|t| t.direction == Direction::Output && t.index == index)
    }

    /// The bytes of tensor `t` (one of this job's), to read an output after a run.
    #[must_use]
    pub fn tensor_bytes(&self, t: &TensorInfo<'_>) -> Option<&[u8]> {
        let (start, end) = span(t)?;
        self.region_bytes(usize::try_from(t.region).ok()?)?
            .get(start..end)
    }

    /// The bytes of tensor `t`, writable (in the caller's arena or buffer), to write an
    /// input before a run.
    #[must_use]
    pub fn tensor_bytes_mut(&mut self, t: &TensorInfo<'_>) -> Option<&mut [u8]> {
        let (start, end) = span(t)?;
        self.region_bytes_mut(usize::try_from(t.region).ok()?)?
            .get_mut(start..end)
    }

    /// The words the stream was compiled for, `(npu_config, npu_id)` as Vela's
    /// OPTIMIZER_CONFIG gave them: `None` for a version 1 blob (which does not record them)
    /// or a job bound from a list of regions; `Some` with zeros when the producer did not
    /// know them.
    #[must_use]
    pub fn compiled_for(&self) -> Option<(u32, u32)> {
        let ext = self.view()?.ext();
        Some((ext.npu_config()?, ext.npu_id()?))
    }
}

/// `offset .. offset + size` of a tensor in its region, `None` when it does not compute.
fn span(t: &TensorInfo<'_>) -> Option<(usize, usize)> {
    let start = usize::try_from(t.offset).ok()?;
    let end = start.checked_add(usize::try_from(t.size).ok()?)?;
    Some((start, end))
}
