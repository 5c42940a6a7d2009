//! The functional part of the simulated NPU: the tensor values an operation computes, from
//! the command stream's register state and the bound memory alone.
//!
//! Modelled: `NPU_OP_CONV` and `NPU_OP_DEPTHWISE` (8- and 16-bit IFM, 8/16/32-bit OFM, NHWC
//! and NHCWB16, four tiles, stride, dilation, padding, per-channel and global scaling, the
//! three rounding modes, activation clamps); `NPU_OP_ELEMENTWISE` and `NPU_OP_POOL`
//! (`crate::elementwise`: ADD, SUB, MUL, MIN, MAX, ABS, CLZ, SHL, SHR with IFM2
//! broadcast and scalars; MAX, AVERAGE and REDUCE_SUM pools; LUT activations read from the
//! SHRAM the DMA loaded). DMA copies bytes (`crate::model`). What is not modelled is
//! refused with [`ComputeError::Unsupported`] (its outputs are left as they were, counted
//! in the run record's `not_computed`, the error kept), or for other operations
//! `Outcome::NotModelled`.
//!
//! Where each piece of arithmetic comes from (Vela 5.2.0, whose `regor` core produced the
//! streams the tests run; `ethosu/vela/*` is its Python reference of the same registers):
//!
//! * **Feature-map addresses**: `register_command_stream_util.get_address`: element
//!   `(y, x, c)` is in tile 1 or 3 when `x >= WIDTH0`, tile 2 or 3 when `y >= HEIGHT0`
//!   (left) or `y >= HEIGHT1` (right); at `BASE[t] + y*STRIDE_Y + x*SX + (c/16)*SC +
//!   (c%16)*E` with NHWC `SX = STRIDE_X, SC = 16*E` and NHCWB16 `SX = 16*E, SC = STRIDE_C`.
//! * **Kernel size**: `KERNEL_HEIGHT_M1`/`WIDTH_M1` hold the dilated extent less one
//!   (Vela's `register_command_stream_generator`: `dilation_y * (kernel.height - 1)`), so
//!   the kernel has `extent / dilation + 1` taps (`op_models.rs`' dilated convolution).
//! * **IFM window**: the IFM element under kernel tap `(ky, kx)` of output `(y, x)` is
//!   `(y*stride_y - PAD_TOP + ky*dilation_y, ...)`; rows and columns outside the IFM (whose
//!   size is the window the kernel covers less the padding, as the access checker computes
//!   it: `npuschema_runtime::cmd::state`) are padding and read as the IFM zero point, so
//!   they add nothing (TFLite's reference kernels skip them: the same sum). With
//!   `IFM_UPSCALE` the window runs over the IFM upscaled 2x: NEAREST repeats each element,
//!   ZEROS (a transposed convolution's) puts zeros between them (`op_models.rs`'
//!   `transpose_conv_stride2_same` pins it).
//! * **Weights**: the stream decoded by [`crate::mlw`], in the order regor's
//!   `EthosUWeightOrdering::GetNext` (`architecture/ethosu55/ethos_u55_weight_encoder.cpp`)
//!   writes it, given the OFM block depth (`OFM_BLK_DEPTH_M1`), the traversal
//!   (`KERNEL_STRIDE.weight_order`, depthwise from the operation), the dilation, the IFM
//!   precision and the micro-block depths of the configuration (`ethos_u55.cpp`: OFM 4 for
//!   U55-32 and 8 otherwise, IFM 8); the decoded values already have the weight zero point
//!   removed (`weight_compressor.py`: "Early zero-point correction"). A session (with
//!   `std`) keeps a stream's decoding and reuses it while its bytes and ordering are
//!   unchanged (`WeightCache`, bounded by [`KEPT_WEIGHT_BYTES_PER_STREAM_BYTE`]); a
//!   one-shot run and the `no_std` build decode it on every pass.
//! * **Bias and scale**: 10-byte records, one per OFM channel in channel order
//!   (`EncodeBias` in the same file, `weight_compressor.encode_bias`): 40-bit signed bias,
//!   32-bit scale, 6-bit shift.
//! * **Accumulator**: `sum((ifm - IFM_ZERO_POINT) * weight) + bias`, exact (64-bit).
//! * **Scaling** (`scaling.quantise_scale`: `scale = round(significand * 2^31)`, `shift =
//!   31 - exponent`, i.e. TFLite's quantized multiplier with its shift as `31 - shift`):
//!   `(acc * scale + round) >> shift` with the rounding of regor's `Scale`
//!   (`compiler/graphir_optimiser.cpp`, see `scale_value`): `ROUND_MODE_DBL` is
//!   gemmlowp's double rounding (`SaturatingRoundingDoublingHighMul` then
//!   `RoundingDivideByPOT`, checked equal on 160,000 cases in this module's tests),
//!   `NATURAL` rounds half up (TFLite's single rounding), `TRUNCATE` toward zero. The
//!   oracle test (`sim/tests/oracle.rs`) pins both against TFLite's reference kernels,
//!   whose `FULLY_CONNECTED` rounds once and `DEPTHWISE_CONV_2D` twice.
//! * **Output**: `+ OFM_ZERO_POINT`, clamped to `[ACTIVATION_MIN, ACTIVATION_MAX]` and to
//!   the OFM precision's range (TFLite: `+ output_offset`, clamp to the activation range).

use npuschema_generated::ethos_u55_cmd::{
    SetActivationCmd, SetIfmPrecisionCmd, SetKernelStrideCmd, SetOfmPrecisionCmd,
};
use npuschema_runtime::cmd::{AccessKind, Opcode, StreamState};

use crate::memory::Memory;
use crate::mlw::{Decoder, MlwError};

/// The work and data a run may use before it is stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Arithmetic operations (multiply-accumulates, decoded weights, output elements).
    pub ops: u64,
    /// Bytes moved (DMA and feature-map reads and writes).
    pub bytes: u64,
}

impl Budget {
    /// The default: 2^28 operations and 1 GiB moved, orders of magnitude above what the
    /// shared models need (each under a million operations as counted here: decoded
    /// weights per pass, multiply-accumulates, elements), and a few seconds of simulation
    /// at most.
    pub const DEFAULT: Self = Self {
        ops: 1 << 28,
        bytes: 1 << 30,
    };
}

impl Default for Budget {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Which part of the [`Budget`] ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetKind {
    /// [`Budget::ops`].
    Ops,
    /// [`Budget::bytes`].
    Bytes,
}

/// Work done so far in a run, against its budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Operations used.
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
}

impl Work {
    /// Take `n` operations from `budget`.
    pub(crate) fn ops(&mut self, n: u64, budget: &Budget) -> Result<(), ComputeError> {
        match self.ops.checked_add(n) {
            Some(t) if t <= budget.ops => {
                self.ops = t;
                Ok(())
            }
            _ => Err(ComputeError::Budget {
                kind: BudgetKind::Ops,
                limit: budget.ops,
            }),
        }
    }

    /// Take `n` bytes from `budget`.
    pub(crate) fn bytes(&mut self, n: u64, budget: &Budget) -> Result<(), ComputeError> {
        match self.bytes.checked_add(n) {
            Some(t) if t <= budget.bytes => {
                self.bytes = t;
                Ok(())
            }
            _ => Err(ComputeError::Budget {
                kind: BudgetKind::Bytes,
                limit: budget.bytes,
            }),
        }
    }
}

/// Why an operation's values could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputeError {
    /// The run's [`Budget`] ran out.
    Budget {
        /// Which part.
        kind: BudgetKind,
        /// Its limit.
        limit: u64,
    },
    /// The weight stream does not decode.
    Weights(MlwError),
    /// The weight stream holds fewer weights than the operation's kernel needs.
    WeightsShort {
        /// Weights the operation needs (micro-block padding included).
        needed: u64,
        /// Weights the stream holds.
        got: u64,
    },
    /// The weight stream holds more weights than the operation's kernel needs.
    WeightsLong {
        /// Weights the operation needs (micro-block padding included).
        needed: u64,
    },
    /// An element's address is not in simulated memory (or overflows).
    Unmapped {
        /// What the access was for.
        kind: AccessKind,
        /// Bus address (saturated on overflow).
        address: u64,
    },
    /// A register value the simulator does not model.
    Unsupported(&'static str),
}

impl ComputeError {
    /// A stable code.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Budget { .. } => "sim-budget-exceeded",
            Self::Weights(e) => e.kind.code(),
            Self::WeightsShort { .. } => "weights-short",
            Self::WeightsLong { .. } => "weights-long",
            Self::Unmapped { .. } => "element-unmapped",
            Self::Unsupported(_) => "unsupported-register-value",
        }
    }
}

impl core::fmt::Display for ComputeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Budget { kind, limit } => {
                let what = match kind {
                    BudgetKind::Ops => "operations",
                    BudgetKind::Bytes => "bytes moved",
                };
                write!(
                    f,
                    "sim-budget-exceeded: the stream needs more than the simulator's budget of {limit} {what}"
                )
            }
            Self::Weights(e) => write!(f, "weight stream: {e}"),
            Self::WeightsShort { needed, got } => write!(
                f,
                "weights-short: the kernel needs {needed} weights, the stream holds {got}"
            ),
            Self::WeightsLong { needed } => write!(
                f,
                "weights-long: the stream holds more than the {needed} weights the kernel needs"
            ),
            Self::Unmapped { kind, address } => write!(
                f,
                "element-unmapped: {} element at {address:#x} is not in memory",
                kind.name()
            ),
            Self::Unsupported(what) => write!(f, "unsupported-register-value: {what}"),
        }
    }
}

/// What the executor did with an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Its output values were computed and written.
    Computed,
    /// Its values are not modelled (its accesses were still checked).
    NotModelled,
}

/// One feature map (IFM, IFM2 or OFM) as the registers describe it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fm {
    kind: AccessKind,
    /// `BASEP` of its region plus each tile's base.
    bases: [u64; 4],
    h0: u64,
    h1: u64,
    w0: u64,
    stride_x: u64,
    stride_y: u64,
    stride_c: u64,
    /// Element size in bytes (1, 2 or 4; 8 is refused).
    pub(crate) elem: u64,
    pub(crate) signed: bool,
    nhcwb16: bool,
}

/// The registers of each feature map (region, bases, tile sizes, strides).
pub(crate) struct FmRegs {
    pub(crate) region: Opcode,
    pub(crate) bases: [Opcode; 4],
    pub(crate) h0: Opcode,
    pub(crate) h1: Opcode,
    pub(crate) w0: Opcode,
    pub(crate) sx: Opcode,
    pub(crate) sy: Opcode,
    pub(crate) sc: Opcode,
}

pub(crate) const IFM_REGS: FmRegs = FmRegs {
    region: Opcode::SetIfmRegion,
    bases: [
        Opcode::SetIfmBase0,
        Opcode::SetIfmBase1,
        Opcode::SetIfmBase2,
        Opcode::SetIfmBase3,
    ],
    h0: Opcode::SetIfmHeight0M1,
    h1: Opcode::SetIfmHeight1M1,
    w0: Opcode::SetIfmWidth0M1,
    sx: Opcode::SetIfmStrideX,
    sy: Opcode::SetIfmStrideY,
    sc: Opcode::SetIfmStrideC,
};

pub(crate) const OFM_REGS: FmRegs = FmRegs {
    region: Opcode::SetOfmRegion,
    bases: [
        Opcode::SetOfmBase0,
        Opcode::SetOfmBase1,
        Opcode::SetOfmBase2,
        Opcode::SetOfmBase3,
    ],
    h0: Opcode::SetOfmHeight0M1,
    h1: Opcode::SetOfmHeight1M1,
    w0: Opcode::SetOfmWidth0M1,
    sx: Opcode::SetOfmStrideX,
    sy: Opcode::SetOfmStrideY,
    sc: Opcode::SetOfmStrideC,
};

pub(crate) fn m1(st: &StreamState, op: Opcode) -> u64 {
    u64::from(st.param(op)).saturating_add(1)
}

impl Fm {
    /// The IFM, as its registers and `IFM_PRECISION` describe it.
    pub(crate) fn ifm(st: &StreamState, basep: &[u64; 8]) -> Result<Self, ComputeError> {
        let p = SetIfmPrecisionCmd::new(st.param(Opcode::SetIfmPrecision));
        let (e, f, s) = (
            p.activation_precision_raw(),
            p.activation_format_raw(),
            p.activation_type_raw(),
        );
        Self::new(st, &IFM_REGS, AccessKind::Ifm, basep, e, f, s != 0)
    }

    /// The OFM, as its registers and `OFM_PRECISION` describe it.
    pub(crate) fn ofm(st: &StreamState, basep: &[u64; 8]) -> Result<Self, ComputeError> {
        let p = SetOfmPrecisionCmd::new(st.param(Opcode::SetOfmPrecision));
        let (e, f, s) = (
            p.activation_precision_raw(),
            p.activation_format_raw(),
            p.activation_type_raw(),
        );
        Self::new(st, &OFM_REGS, AccessKind::Ofm, basep, e, f, s != 0)
    }

    /// From the registers; `elem_code` is the precision field (0: 8 bits, 1: 16, 2: 32).
    pub(crate) fn new(
        st: &StreamState,
        regs: &FmRegs,
        kind: AccessKind,
        basep: &[u64; 8],
        elem_code: u8,
        format: u8,
        signed: bool,
    ) -> Result<Self, ComputeError> {
        let region = usize::from(st.param(regs.region) & 7);
        let bp = basep.get(region).copied().unwrap_or(0);
        let mut bases = [0u64; 4];
        for (b, op) in bases.iter_mut().zip(regs.bases) {
            *b = bp.saturating_add(u64::from(st.payload(op)));
        }
        let elem = match elem_code {
            0 => 1,
            1 => 2,
            2 => 4,
            _ => return Err(ComputeError::Unsupported("64-bit feature map precision")),
        };
        let nhcwb16 = match format {
            0 => false,
            1 => true,
            _ => return Err(ComputeError::Unsupported("reserved feature map format")),
        };
        Ok(Self {
            kind,
            bases,
            h0: m1(st, regs.h0),
            h1: m1(st, regs.h1),
            w0: m1(st, regs.w0),
            stride_x: u64::from(st.payload(regs.sx)),
            stride_y: u64::from(st.payload(regs.sy)),
            stride_c: u64::from(st.payload(regs.sc)),
            elem,
            signed,
            nhcwb16,
        })
    }

    /// The bus address of element `(y, x, c)` (`get_address`).
    fn addr(&self, y: u64, x: u64, c: u64) -> Option<u64> {
        let (mut y, mut x, mut t) = (y, x, 0usize);
        if x >= self.w0 {
            x -= self.w0;
            t = 1;
            if y >= self.h1 {
                y -= self.h1;
                t = 3;
            }
        } else if y >= self.h0 {
            y -= self.h0;
            t = 2;
        }
        let brick = self.elem.checked_mul(16)?;
        let (sx, sc) = if self.nhcwb16 {
            (brick, self.stride_c)
        } else {
            (self.stride_x, brick)
        };
        self.bases
            .get(t)?
            .checked_add(y.checked_mul(self.stride_y)?)?
            .checked_add(x.checked_mul(sx)?)?
            .checked_add((c / 16).checked_mul(sc)?)?
            .checked_add((c % 16).checked_mul(self.elem)?)
    }

    fn unmapped(&self, address: Option<u64>) -> ComputeError {
        ComputeError::Unmapped {
            kind: self.kind,
            address: address.unwrap_or(u64::MAX),
        }
    }

    pub(crate) fn read(&self, mem: &Memory, y: u64, x: u64, c: u64) -> Result<i64, ComputeError> {
        let a = self.addr(y, x, c);
        let b = a
            .and_then(|a| mem.read(a, self.elem))
            .ok_or_else(|| self.unmapped(a))?;
        Ok(match (b, self.signed) {
            ([v], true) => i64::from(*v as i8),
            ([v], false) => i64::from(*v),
            ([a, b], true) => i64::from(i16::from_le_bytes([*a, *b])),
            ([a, b], false) => i64::from(u16::from_le_bytes([*a, *b])),
            ([a, b, c, d], true) => i64::from(i32::from_le_bytes([*a, *b, *c, *d])),
            ([a, b, c, d], false) => i64::from(u32::from_le_bytes([*a, *b, *c, *d])),
            _ => return Err(self.unmapped(a)),
        })
    }

    /// The range of this precision.
    pub(crate) fn range(&self) -> (i64, i64) {
        let bits = self.elem.saturating_mul(8).min(32) as u32;
        if self.signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        }
    }

    /// Write `v` (already in range) at `(y, x, c)`.
    pub(crate) fn write(
        &self,
        mem: &mut Memory,
        y: u64,
        x: u64,
        c: u64,
        v: i64,
    ) -> Result<(), ComputeError> {
        let a = self.addr(y, x, c);
        let bytes = (v as i32).to_le_bytes();
        let data = bytes
            .get(..self.elem as usize)
            .ok_or_else(|| self.unmapped(a))?;
        a.and_then(|a| mem.write(a, data))
            .ok_or_else(|| self.unmapped(a))
    }
}

/// Element reads of a feature map held in one borrowed slice: the elements of tile 0,
/// resolved once per pass instead of a memory lookup per element.
#[derive(Clone, Copy)]
pub(crate) struct FmView<'m> {
    fm: Fm,
    bytes: &'m [u8],
    base: u64,
}

impl Fm {
    /// A view of the `h x w x c` elements from `(0, 0, 0)`, if they all lie in tile 0 and
    /// in one memory window.
    pub(crate) fn view<'m>(&self, mem: &'m Memory, h: u64, w: u64, c: u64) -> Option<FmView<'m>> {
        let (base, len) = self.extent(h, w, c)?;
        let bytes = mem.read(base, len)?;
        Some(FmView {
            fm: *self,
            bytes,
            base,
        })
    }
}

/// Element writes of a feature map held in one borrowed slice (tile 0), as [`FmView`]
/// reads.
pub(crate) struct FmViewMut<'m> {
    fm: Fm,
    bytes: &'m mut [u8],
    base: u64,
}

impl Fm {
    /// The byte range of the `h x w x c` elements from `(0, 0, 0)` (an upper bound for
    /// NHCWB16's last brick), if they all lie in tile 0.
    fn extent(&self, h: u64, w: u64, c: u64) -> Option<(u64, u64)> {
        if h == 0 || w == 0 || c == 0 || h > self.h0 || w > self.w0 {
            return None;
        }
        let base = *self.bases.first()?;
        let sc = if self.nhcwb16 {
            self.stride_c
        } else {
            self.elem.checked_mul(16)?
        };
        let end = self
            .addr(h - 1, w - 1, 0)?
            .checked_add(((c - 1) / 16).checked_mul(sc)?)?
            .checked_add(((c - 1).min(15) + 1).checked_mul(self.elem)?)?;
        Some((base, end.checked_sub(base)?))
    }

    /// A writable view of the `h x w x c` elements from `(0, 0, 0)`, if they all lie in
    /// tile 0 and in one memory window.
    pub(crate) fn view_mut<'m>(
        &self,
        mem: &'m mut Memory,
        h: u64,
        w: u64,
        c: u64,
    ) -> Option<FmViewMut<'m>> {
        let (base, len) = self.extent(h, w, c)?;
        let bytes = mem.read_mut(base, len)?;
        Some(FmViewMut {
            fm: *self,
            bytes,
            base,
        })
    }
}

impl FmViewMut<'_> {
    /// Write `v` (already in range) at `(y, x, c)`, as [`Fm::write`] does; `false` (nothing
    /// written) when the element is not in the view.
    #[inline]
    pub(crate) fn put(&mut self, y: u64, x: u64, c: u64, v: i64) -> bool {
        let elem = self.fm.elem as usize;
        let at = self
            .fm
            .addr(y, x, c)
            .and_then(|a| a.checked_sub(self.base))
            .and_then(|off| usize::try_from(off).ok());
        let bytes = (v as i32).to_le_bytes();
        let (Some(at), Some(src)) = (at, bytes.get(..elem)) else {
            return false;
        };
        match self.bytes.get_mut(at..at.saturating_add(elem)) {
            Some([b]) => {
                *b = v as u8;
                true
            }
            Some(dst) => {
                dst.copy_from_slice(src);
                true
            }
            None => false,
        }
    }
}

impl FmView<'_> {
    /// The byte offset of channel `c` within an element's row and column.
    #[inline]
    fn chan_offset(&self, c: u64) -> u64 {
        let sc = if self.fm.nhcwb16 {
            self.fm.stride_c
        } else {
            self.fm.elem.saturating_mul(16)
        };
        (c / 16)
            .saturating_mul(sc)
            .saturating_add((c % 16).saturating_mul(self.fm.elem))
    }

    /// The element at row `y`, column `x` (in tile 0) and channel offset `coff`
    /// ([`Self::chan_offset`]); `None` outside the view.
    #[inline]
    fn at(&self, y: u64, x: u64, coff: u64) -> Option<i64> {
        let sx = if self.fm.nhcwb16 {
            self.fm.elem.saturating_mul(16)
        } else {
            self.fm.stride_x
        };
        let off = y
            .saturating_mul(self.fm.stride_y)
            .saturating_add(x.saturating_mul(sx))
            .saturating_add(coff);
        let off = usize::try_from(off).ok()?;
        Some(match (self.fm.elem, self.fm.signed) {
            (1, true) => i64::from(*self.bytes.get(off)? as i8),
            (1, false) => i64::from(*self.bytes.get(off)?),
            _ => {
                let end = off.checked_add(usize::try_from(self.fm.elem).ok()?)?;
                match (self.bytes.get(off..end)?, self.fm.signed) {
                    ([a, b], true) => i64::from(i16::from_le_bytes([*a, *b])),
                    ([a, b], false) => i64::from(u16::from_le_bytes([*a, *b])),
                    ([a, b, c, d], true) => i64::from(i32::from_le_bytes([*a, *b, *c, *d])),
                    ([a, b, c, d], false) => i64::from(u32::from_le_bytes([*a, *b, *c, *d])),
                    _ => return None,
                }
            }
        })
    }

    /// Element `(y, x, c)` (inside the view's extent), as [`Fm::read`] reads it.
    #[inline]
    pub(crate) fn get(&self, y: u64, x: u64, c: u64) -> Result<i64, ComputeError> {
        let a = self.fm.addr(y, x, c);
        let b = a
            .and_then(|a| a.checked_sub(self.base))
            .and_then(|off| usize::try_from(off).ok())
            .and_then(|off| {
                self.bytes
                    .get(off..off.checked_add(usize::try_from(self.fm.elem).ok()?)?)
            })
            .ok_or_else(|| self.fm.unmapped(a))?;
        Ok(match (b, self.fm.signed) {
            ([v], true) => i64::from(*v as i8),
            ([v], false) => i64::from(*v),
            ([a, b], true) => i64::from(i16::from_le_bytes([*a, *b])),
            ([a, b], false) => i64::from(u16::from_le_bytes([*a, *b])),
            ([a, b, c, d], true) => i64::from(i32::from_le_bytes([*a, *b, *c, *d])),
            ([a, b, c, d], false) => i64::from(u32::from_le_bytes([*a, *b, *c, *d])),
            _ => return Err(self.fm.unmapped(a)),
        })
    }
}

/// `acc * scale / 2^shift` as the output stage rounds it: regor's model of the NPU's
/// output scaling, `Scale` in `compiler/graphir_optimiser.cpp` (the constant folder that
/// must agree with the hardware): `(acc * scale + round) >> shift` (an arithmetic shift,
/// i.e. floor) with `round`:
///
/// * `NATURAL` (2): `2^(shift-1)`, halves up;
/// * `DBL` (0): `2^(shift-1)`, plus `2^30` for a non-negative `acc` and minus `2^30` for a
///   negative one when `shift > 31` (the double rounding of TFLite's
///   `SaturatingRoundingDoublingHighMul` + `RoundingDivideByPOT`, folded into one shift);
/// * `TRUNCATE` (1): 0 for a non-negative product, `2^shift - 1` for a negative one
///   (toward zero).
pub(crate) fn scale_value(acc: i64, scale: u32, shift: u32, round_mode: u8) -> i64 {
    scale_value_dr(acc, scale, shift, round_mode, 0)
}

/// [`scale_value`] with `Scale`'s `doubleRound` offset `dr` (0..=30): under `DBL` the
/// double rounding's `2^(30-dr)` applies when `shift > 31 - dr`, the rounding of a value
/// that gemmlowp would have shifted left by `dr` first (TFLite's ADD shifts its inputs left
/// by 20 for 8 bits, 15 for 16, before scaling them: regor's `double_round.shift`).
pub(crate) fn scale_value_dr(acc: i64, scale: u32, shift: u32, round_mode: u8, dr: u32) -> i64 {
    let shift = shift.min(63);
    let dr = dr.min(30);
    let product = i128::from(acc) * i128::from(scale);
    let half: i128 = if shift == 0 { 0 } else { 1i128 << (shift - 1) };
    let round = match round_mode {
        0 => {
            let d: i128 = if shift > 31 - dr { 1 << (30 - dr) } else { 0 };
            if acc >= 0 { half + d } else { half - d }
        }
        1 => {
            if acc >= 0 {
                0
            } else {
                (1i128 << shift) - 1
            }
        }
        _ => half,
    };
    let v = (product + round) >> shift;
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// The nested loops of regor's `EthosUWeightOrdering::GetNext` (see the module
/// documentation): calls `f` once per weight slot of the stream, in stream order, with the
/// `(ofm channel, ky, kx, ifm channel)` it holds or `None` for a padding slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ordering {
    ofm_depth: u64,
    ifm_depth: u64,
    kh: u64,
    kw: u64,
    ofm_block_depth: u64,
    ifm_block_depth: u64,
    ofm_ublock: u64,
    ifm_ublock: u64,
    decomp_x: u64,
    decomp_y: u64,
    subkernel_round: u64,
    part_kernel: bool,
    depthwise: bool,
}

impl Ordering {
    /// How many weight slots [`Self::walk`] calls its function for.
    fn slots(&self) -> u64 {
        let mut n = 0u64;
        let _ = self.walk(|_| -> Result<(), ()> {
            n = n.saturating_add(1);
            Ok(())
        });
        n
    }

    fn walk<E>(
        &self,
        mut f: impl FnMut(Option<(u64, u64, u64, u64)>) -> Result<(), E>,
    ) -> Result<(), E> {
        let o = self;
        let ifm_loop = if o.depthwise { 1 } else { o.ifm_depth };
        let mut ofm_block_z = 0;
        while ofm_block_z < o.ofm_depth {
            let clipped_ofm = o.ofm_block_depth.min(o.ofm_depth - ofm_block_z);
            let mut ifm_block_z = 0;
            while ifm_block_z < ifm_loop {
                let clipped_ifm = if o.depthwise {
                    o.ifm_ublock
                } else if o.part_kernel {
                    o.ifm_block_depth.min(o.ifm_depth - ifm_block_z)
                } else {
                    o.ifm_block_depth
                };
                let mut sub_y = 0;
                while sub_y < o.kh {
                    let sub_h = (o.kh - sub_y).min(o.decomp_y);
                    let mut sub_x = 0;
                    while sub_x < o.kw {
                        let sub_w = (o.kw - sub_x).min(o.decomp_x);
                        let elements =
                            (sub_w * sub_h).div_ceil(o.subkernel_round) * o.subkernel_round;
                        let (outer, inner) = if o.part_kernel {
                            (clipped_ifm, 1)
                        } else {
                            (1, clipped_ifm)
                        };
                        let mut ub_outer = 0;
                        while ub_outer < outer {
                            let mut ofm_ub = 0;
                            while ofm_ub < clipped_ofm {
                                for element in 0..elements {
                                    let kx = element % sub_w;
                                    let ky = element / sub_w;
                                    let mut ub_inner = 0;
                                    while ub_inner < inner {
                                        let ifm_ub = ub_inner + ub_outer;
                                        for ofm_z_in in 0..o.ofm_ublock {
                                            let ifm_ub_depth =
                                                if o.depthwise { 1 } else { o.ifm_ublock };
                                            for ifm_z_in in 0..ifm_ub_depth {
                                                let ifm_z = ifm_block_z + ifm_ub + ifm_z_in;
                                                let ofm_z = ofm_block_z + ofm_ub + ofm_z_in;
                                                let valid_ifm = if o.depthwise {
                                                    ifm_z < 1
                                                } else {
                                                    ifm_z < o.ifm_depth
                                                };
                                                if valid_ifm && ofm_z < o.ofm_depth && ky < sub_h {
                                                    f(Some((
                                                        ofm_z,
                                                        sub_y + ky,
                                                        sub_x + kx,
                                                        ifm_z,
                                                    )))?;
                                                } else {
                                                    f(None)?;
                                                }
                                            }
                                        }
                                        ub_inner += o.ifm_ublock;
                                    }
                                }
                                ofm_ub += o.ofm_ublock;
                            }
                            ub_outer += o.ifm_ublock;
                        }
                        sub_x += o.decomp_x;
                    }
                    sub_y += o.decomp_y;
                }
                ifm_block_z += o.ifm_block_depth;
            }
            ofm_block_z += o.ofm_block_depth.max(1);
        }
        Ok(())
    }
}

/// Output positions accumulated per weight-stream pass.
const CHUNK: usize = 64;

/// Output channels accumulated per weight-stream pass (at the most positions, CHUNK).
const OB: usize = 8;

/// Accumulators of one pass: OB channels of CHUNK positions, or more channels of fewer.
const ACC: usize = OB * CHUNK;

/// The next weight of the stream; the stream was checked to hold `slots` weights.
fn next_weight(dec: &mut Decoder<'_>, slots: u64) -> Result<i64, ComputeError> {
    match dec.next() {
        Some(Ok(w)) => Ok(i64::from(w)),
        Some(Err(e)) => Err(ComputeError::Weights(e)),
        None => Err(ComputeError::WeightsShort {
            needed: slots,
            got: 0,
        }),
    }
}

/// One nonzero weight of a stream with the `(ofm channel, ky, kx, ifm channel)` it
/// applies to ([`Ordering::walk`]'s slot), in stream order. Each coordinate is below a
/// 16-bit register's value plus one (`OFM_DEPTH_M1`, `KERNEL_*_M1`, `IFM_DEPTH_M1`), so
/// 16 bits hold it: 10 bytes a weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tap {
    w: i16,
    oz: u16,
    ky: u16,
    kx: u16,
    iz: u16,
}

/// How many bytes a session keeps for its weight streams at most, per byte of the
/// distinct weight streams its operations read (and an entry's fixed bytes a stream:
/// `KeptBytes::weights_bound`): a kept decoding is the stream's copy (1 byte a byte)
/// and its nonzero weights with their slots, 10 bytes each (`WeightCache`). Vela's
/// int8 weight streams take about a byte a weight (its Golomb-Rice codes save little
/// on weights that fill the int8 range), so a model needs about 10: the shared models
/// 8.6 (hello_world) and 9.6 (micro_speech), as `sim/tests/run_vela.rs` prints, the
/// operator test models' convolutions 7.4 to 9.3 (`sim/tests/op_models.rs` prints
/// them). 16 leaves room for streams compressed to 5 bits a nonzero weight, and caps the
/// memory well below the 81 bytes a byte the format allows (a nonzero weight takes at
/// least one bit); a stream that does not fit is decoded on every pass instead, as a
/// one-shot run decodes every stream (the `mean_hw` operator model's, all its weights
/// equal at about a bit each, is).
pub const KEPT_WEIGHT_BYTES_PER_STREAM_BYTE: u64 = 16;

/// One kept decoding ([`WeightCache`]).
#[cfg(feature = "std")]
#[derive(Debug)]
pub(crate) struct Entry {
    stream: std::vec::Vec<u8>,
    order: Ordering,
    /// The weight slots `order` walks (the stream holds exactly that many weights).
    slots: u64,
    taps: std::vec::Vec<Tap>,
}

#[cfg(feature = "std")]
impl Entry {
    /// An entry's own bytes (beside the stream's copy and its taps).
    pub(crate) const BYTES: usize = core::mem::size_of::<Self>();

    /// Its bytes: the stream's copy and its taps (their allocations) and the entry itself.
    fn bytes(&self) -> usize {
        self.stream
            .capacity()
            .saturating_add(
                self.taps
                    .capacity()
                    .saturating_mul(core::mem::size_of::<Tap>()),
            )
            .saturating_add(Self::BYTES)
    }
}

/// Decoded weight streams a session keeps between passes and runs (with `std`, when
/// given a limit: [`WeightCache::set_limit`]; a one-shot run and the `no_std` build keep
/// nothing and decode each stream on every pass): each the stream's bytes, the
/// [`Ordering`] its operation's registers give, the weight slots that ordering walks, and
/// the nonzero weights [`crate::mlw`] decodes from the bytes with the slots the ordering
/// gives them, which depend on those two alone. A stream whose bytes and ordering equal a
/// kept one's is not decoded again: the same weights at the same slots, without the
/// decoder's cost per weight (nor the walk over padding and zero slots) on every pass and
/// every run. Only a stream that decodes to exactly the operation's weight slots is kept
/// (any other is decoded as it is read, with its error); at most the limit's bytes are
/// kept, allocations included (beyond, it starts over), and a decoding under way stops
/// (and is not kept) when it would grow past the limit by itself.
/// `sim/tests/run_vela.rs` checks a session's kept decodings compute what one-shot runs,
/// decoding every pass, compute, on every Vela output and configuration.
#[derive(Debug, Default)]
pub(crate) struct WeightCache {
    /// The most bytes kept (0: nothing).
    #[cfg(feature = "std")]
    limit: usize,
    #[cfg(feature = "std")]
    entries: std::vec::Vec<Entry>,
    /// What the entries take ([`Entry::bytes`], the list's spare room included).
    #[cfg(feature = "std")]
    bytes: usize,
}

impl WeightCache {
    /// The most bytes kept whatever the limit asked for: 64 MiB.
    #[cfg(feature = "std")]
    pub(crate) const MAX_BYTES: usize = 64 << 20;

    /// Keep at most `limit` bytes (at most [`Self::MAX_BYTES`]; 0: nothing); what is kept
    /// beyond it is dropped.
    #[cfg(feature = "std")]
    pub(crate) fn set_limit(&mut self, limit: usize) {
        self.limit = limit.min(Self::MAX_BYTES);
        if self.bytes > self.limit {
            self.clear();
        }
    }

    /// The limit in force.
    #[cfg(feature = "std")]
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The bytes kept.
    #[cfg(feature = "std")]
    pub(crate) fn kept_bytes(&self) -> usize {
        self.bytes
    }

    #[cfg(feature = "std")]
    fn clear(&mut self) {
        self.entries = std::vec::Vec::new();
        self.bytes = 0;
    }

    /// The kept decoding of `stream` under `order`: its index and weight slots.
    #[cfg(feature = "std")]
    fn find(&self, stream: &[u8], order: &Ordering) -> Option<(usize, u64)> {
        if self.limit == 0 {
            return None;
        }
        self.entries
            .iter()
            .position(|e| e.order == *order && e.stream.as_slice() == stream)
            .and_then(|at| Some((at, self.entries.get(at)?.slots)))
    }

    /// Entry `at`'s taps.
    #[cfg(feature = "std")]
    fn taps(&self, at: usize) -> Option<&[Tap]> {
        self.entries.get(at).map(|e| e.taps.as_slice())
    }

    /// Decode `stream` under `order` and keep it, if it decodes to exactly `slots`
    /// weights and fits the limit; its taps.
    #[cfg(feature = "std")]
    fn insert(&mut self, stream: &[u8], order: &Ordering, slots: u64) -> Option<&[Tap]> {
        if self.limit == 0 {
            return None;
        }
        let n = usize::try_from(slots).ok()?;
        let fixed = stream.len().checked_add(Entry::BYTES)?;
        let limit = self.limit;
        let mut dec = Decoder::new(stream);
        let mut taps = std::vec::Vec::new();
        let mut taken = 0usize;
        let walked = order.walk(|slot| -> Result<(), ()> {
            let w = match dec.next() {
                Some(Ok(w)) => w,
                _ => return Err(()),
            };
            taken += 1;
            let Some((oz, ky, kx, iz)) = slot else {
                return Ok(());
            };
            if w != 0 {
                let c = |v: u64| u16::try_from(v).map_err(|_| ());
                if taps.len() == taps.capacity() {
                    // Never past the limit, even while building.
                    let more = taps.len().max(64);
                    let bytes = taps
                        .len()
                        .saturating_add(more)
                        .saturating_mul(core::mem::size_of::<Tap>())
                        .saturating_add(fixed);
                    if bytes > limit {
                        return Err(());
                    }
                    taps.try_reserve_exact(more).map_err(|_| ())?;
                }
                taps.push(Tap {
                    w,
                    oz: c(oz)?,
                    ky: c(ky)?,
                    kx: c(kx)?,
                    iz: c(iz)?,
                });
            }
            Ok(())
        });
        if walked.is_err() || taken != n || dec.next().is_some() {
            return None;
        }
        taps.shrink_to_fit();
        let mut copy = std::vec::Vec::new();
        copy.try_reserve_exact(stream.len()).ok()?;
        copy.extend_from_slice(stream);
        let entry = Entry {
            stream: copy,
            order: *order,
            slots,
            taps,
        };
        let size = entry.bytes();
        if size > limit {
            return None;
        }
        if self.bytes.saturating_add(size) > limit {
            self.clear();
        }
        // One more entry, its list grown by exactly one (so the bytes counted are the
        // bytes taken).
        self.entries.try_reserve_exact(1).ok()?;
        self.entries.push(entry);
        self.bytes = self.bytes.saturating_add(size);
        self.entries.last().map(|e| e.taps.as_slice())
    }

    #[cfg(not(feature = "std"))]
    #[allow(clippy::unused_self)]
    fn find(&self, _stream: &[u8], _order: &Ordering) -> Option<(usize, u64)> {
        None
    }

    #[cfg(not(feature = "std"))]
    #[allow(clippy::unused_self)]
    fn taps(&self, _at: usize) -> Option<&[Tap]> {
        None
    }

    #[cfg(not(feature = "std"))]
    #[allow(clippy::unused_self)]
    fn insert(&mut self, _stream: &[u8], _order: &Ordering, _slots: u64) -> Option<&[Tap]> {
        None
    }
}

/// Execute `op` with the registers in `st`. `basep` holds each region's base address;
/// `macs` the configuration's MACs/cycle (for its micro-block sizes); `lut` the LUT memory
/// (the last 2 KiB of SHRAM, as the DMA left it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn execute(
    op: Opcode,
    st: &StreamState,
    mem: &mut Memory,
    basep: &[u64; 8],
    macs: u32,
    lut: &[u8; crate::elementwise::LUT_BYTES],
    cache: &mut WeightCache,
    work: &mut Work,
    budget: &Budget,
) -> Result<Outcome, ComputeError> {
    match op {
        Opcode::OpConv | Opcode::OpDepthwise => {
            let depthwise = op == Opcode::OpDepthwise;
            conv(depthwise, st, mem, basep, macs, cache, work, budget)?;
            Ok(Outcome::Computed)
        }
        Opcode::OpElementwise => {
            crate::elementwise::elementwise(st, mem, basep, lut, work, budget)?;
            Ok(Outcome::Computed)
        }
        Opcode::OpPool => {
            crate::elementwise::pool(st, mem, basep, lut, work, budget)?;
            Ok(Outcome::Computed)
        }
        _ => Ok(Outcome::NotModelled),
    }
}

/// The weight stream `[addr, addr + len)`, borrowed anew for each pass (the memory is
/// written between passes).
fn weights_in(mem: &Memory, addr: u64, len: u64) -> Result<&[u8], ComputeError> {
    mem.read(addr, len).ok_or(ComputeError::Unmapped {
        kind: AccessKind::Weights,
        address: addr,
    })
}

/// What [`direct_taps`] needs of its pass: the block's first channel and channel count,
/// the accumulators' position stride, the traversal, the IFM's byte strides of a tap's row
/// (`dilation_y * stride_y`), column and channel brick, and the IFM zero point.
struct DirectPass {
    ob: u64,
    nb: u64,
    pstride: usize,
    depthwise: bool,
    ysy: u64,
    xsx: u64,
    sc: u64,
    zp: i64,
}

/// Accumulate the kept `taps` of a one-position pass over a signed 8-bit IFM whose
/// position's bytes start `bytes` (each tap's byte at its row, column and channel offset),
/// into `acc`; a run of taps of one channel (the stream's innermost loop is the IFM's
/// channels) is summed in a local first. `false` when a byte or an accumulator is out of
/// reach (the caller checked neither can be, and then takes the checked path).
fn direct_taps(taps: &[Tap], bytes: &[u8], acc: &mut [i64], p: &DirectPass) -> bool {
    let (mut cur, mut sum) = (usize::MAX, 0i64);
    for t in taps {
        let j = u64::from(t.oz).wrapping_sub(p.ob);
        if j >= p.nb {
            continue;
        }
        let c = u64::from(if p.depthwise { t.oz } else { t.iz });
        let off = u64::from(t.ky) * p.ysy + u64::from(t.kx) * p.xsx + (c >> 4) * p.sc + (c & 15);
        let Some(&b) = usize::try_from(off).ok().and_then(|o| bytes.get(o)) else {
            return false;
        };
        let j = j as usize;
        if j != cur {
            if cur != usize::MAX {
                let Some(a) = acc.get_mut(cur.saturating_mul(p.pstride)) else {
                    return false;
                };
                *a += sum;
            }
            (cur, sum) = (j, 0);
        }
        sum += (i64::from(b as i8) - p.zp) * i64::from(t.w);
    }
    if cur != usize::MAX {
        let Some(a) = acc.get_mut(cur.saturating_mul(p.pstride)) else {
            return false;
        };
        *a += sum;
    }
    true
}

#[allow(clippy::too_many_arguments)]
fn conv(
    depthwise: bool,
    st: &StreamState,
    mem: &mut Memory,
    basep: &[u64; 8],
    macs: u32,
    cache: &mut WeightCache,
    work: &mut Work,
    budget: &Budget,
) -> Result<(), ComputeError> {
    let ofm_p = SetOfmPrecisionCmd::new(st.param(Opcode::SetOfmPrecision));
    let ifm = Fm::ifm(st, basep)?;
    let ofm = Fm::ofm(st, basep)?;
    if ifm.elem > 2 {
        return Err(ComputeError::Unsupported("32-bit IFM in a convolution"));
    }
    // IFM_UPSCALE: the kernel runs over the IFM upscaled 2x (NEAREST repeats each element;
    // ZEROS, a transposed convolution's, puts zeros between them), as in a pool.
    let upscale = st.param(Opcode::SetIfmUpscale) & 3;
    if upscale == 3 {
        return Err(ComputeError::Unsupported("a reserved IFM upscale mode"));
    }
    let act = SetActivationCmd::new(st.param(Opcode::SetActivation));
    if act.activation_function_raw() != 0 {
        return Err(ComputeError::Unsupported(
            "activation function other than clamp in a convolution",
        ));
    }
    let (oh, ow, oc) = (
        m1(st, Opcode::SetOfmHeightM1),
        m1(st, Opcode::SetOfmWidthM1),
        m1(st, Opcode::SetOfmDepthM1),
    );
    let ic = if depthwise {
        1
    } else {
        m1(st, Opcode::SetIfmDepthM1)
    };
    let ks = SetKernelStrideCmd::new(st.param(Opcode::SetKernelStride));
    let sx = ((u64::from(ks.stride_x_msb()) << 1) | u64::from(ks.stride_x_lsb())) + 1;
    let sy = ((u64::from(ks.stride_y_msb()) << 1) | u64::from(ks.stride_y_lsb())) + 1;
    let dx = u64::from(ks.dilation_x_raw()) + 1;
    let dy = u64::from(ks.dilation_y_raw()) + 1;
    // KERNEL_HEIGHT_M1/WIDTH_M1 hold the dilated extent less one (Vela's
    // `register_command_stream_generator`: `dilation_y * (kernel.height - 1)`): the kernel
    // has `extent / dilation + 1` taps (`op_models.rs`' dilated convolution pins it).
    let (kh, kw) = (
        (m1(st, Opcode::SetKernelHeightM1) - 1) / dy + 1,
        (m1(st, Opcode::SetKernelWidthM1) - 1) / dx + 1,
    );
    let (pt, pl, pb, pr) = (
        i64::from(st.param(Opcode::SetIfmPadTop)),
        i64::from(st.param(Opcode::SetIfmPadLeft)),
        i64::from(st.param(Opcode::SetIfmPadBottom)),
        i64::from(st.param(Opcode::SetIfmPadRight)),
    );
    // The IFM's size: the window the kernel covers, less the padding (the access checker's
    // formula). Inputs are at most 16 bits each, so i64 cannot overflow.
    let span = |o: u64, s: u64, k: u64, d: u64| ((o - 1) * s + (k - 1) * d + 1) as i64;
    let ifm_h = (span(oh, sy, kh, dy) - pt - pb).max(1);
    let ifm_w = (span(ow, sx, kw, dx) - pl - pr).max(1);
    let zp = |v: u16, signed: bool| {
        if signed {
            i64::from(v as i16)
        } else {
            i64::from(v)
        }
    };
    let ifm_zp = zp(st.param(Opcode::SetIfmZeroPoint), ifm.signed);
    let ofm_zp = zp(st.param(Opcode::SetOfmZeroPoint), ofm.signed);
    let (lo, hi) = ofm.range();
    let act_min = zp(st.param(Opcode::SetActivationMin), ofm.signed).max(lo);
    let act_max = zp(st.param(Opcode::SetActivationMax), ofm.signed).min(hi);
    let round_mode = ofm_p.round_mode_raw();
    let per_channel = ofm_p.scale_mode_raw() == 0;

    let order = Ordering {
        ofm_depth: oc,
        ifm_depth: ic,
        kh,
        kw,
        ofm_block_depth: m1(st, Opcode::SetOfmBlkDepthM1),
        ifm_block_depth: if ks.weight_order_raw() == 1 || ifm.elem == 2 {
            16
        } else {
            32
        },
        ofm_ublock: if macs <= 32 { 4 } else { 8 },
        ifm_ublock: 8,
        decomp_x: 8 / dx,
        decomp_y: 8 / dy,
        subkernel_round: if depthwise {
            4
        } else if ks.weight_order_raw() == 1 {
            if ifm.elem == 2 { 2 } else { 4 }
        } else {
            1
        },
        part_kernel: !depthwise && ks.weight_order_raw() == 1,
        depthwise,
    };
    let w_region = usize::from(st.param(Opcode::SetWeightRegion) & 7);
    let w_addr = basep
        .get(w_region)
        .copied()
        .unwrap_or(0)
        .saturating_add(u64::from(st.payload(Opcode::SetWeightBase)));
    let w_len = u64::from(st.payload(Opcode::SetWeightLength));
    let s_region = usize::from(st.param(Opcode::SetScaleRegion) & 7);
    let s_addr = basep
        .get(s_region)
        .copied()
        .unwrap_or(0)
        .saturating_add(u64::from(st.payload(Opcode::SetScaleBase)));

    // Output channels in blocks, positions in chunks of at most CHUNK: a pass holds
    // `pstride` positions of each of `cb` channels in the ACC accumulators, so a layer of
    // few positions (a fully connected layer's one) takes many channels per pass.
    let positions = oh.saturating_mul(ow);
    let pstride = usize::try_from(positions.clamp(1, CHUNK as u64)).unwrap_or(CHUNK);
    let cb = (ACC / pstride) as u64;
    // Budget: the stream is decoded once per pass; every output element takes a kernel's
    // worth of multiply-accumulates.
    let passes = positions
        .div_ceil(pstride as u64)
        .saturating_mul(oc.div_ceil(cb));
    // A kept decoding of this stream (with its slot count), or the count walked.
    let found = weights_in(mem, w_addr, w_len)
        .ok()
        .and_then(|stream| cache.find(stream, &order));
    let slots = found.map_or_else(|| order.slots(), |(_, n)| n);
    work.ops(
        passes.saturating_mul(slots).saturating_add(
            positions
                .saturating_mul(oc)
                .saturating_mul(kh.saturating_mul(kw).saturating_mul(ic)),
        ),
        budget,
    )?;
    work.bytes(
        w_len
            .saturating_add(oc.saturating_mul(10))
            .saturating_add(positions.saturating_mul(oc).saturating_mul(ofm.elem)),
        budget,
    )?;

    // Each pass decodes the weight stream once (or walks its kept decoding), each weight
    // accumulated where it belongs.
    let ifm_c = if depthwise { oc } else { ic };
    // The stored IFM element under upscaled position (iy, ix), or None for an inserted
    // zero (the zero point: it adds nothing).
    let source = |iy: i64, ix: i64| match upscale {
        0 => Some((iy, ix)),
        1 => Some((iy / 2, ix / 2)),
        _ if iy % 2 == 0 && ix % 2 == 0 => Some((iy / 2, ix / 2)),
        _ => None,
    };
    // A kept decoding of this stream (checked to hold exactly `slots` weights), copied
    // out of the cache's borrow of `mem`'s bytes: the OFM is written between passes.
    let kept = match found {
        Some((at, _)) => cache.taps(at),
        None => {
            let stream = weights_in(mem, w_addr, w_len)?;
            cache.insert(stream, &order, slots)
        }
    };
    let mut first = kept.is_none();
    // Channel `j` of the pass, position `p` of the chunk: `acc[j * pstride + p]`.
    let mut acc = [0i64; ACC];
    // Each position's top-left IFM row and column: below 2^19 in magnitude (16-bit
    // coordinates and padding, strides of at most 4), so 32 bits hold them (half the
    // stack of the no_std build's arrays).
    let (mut rows, mut cols) = ([0i32; CHUNK], [0i32; CHUNK]);
    let mut ob = 0u64;
    while ob < oc {
        let nb = (oc - ob).min(cb) as usize;
        let mut start = 0u64;
        while start < positions {
            let n = (positions - start).min(pstride as u64) as usize;
            // The accumulators this pass uses, zeroed (the array is made once per op).
            acc.iter_mut()
                .take(nb.saturating_mul(pstride))
                .for_each(|v| *v = 0);
            let (mut y, mut x) = (start / ow, start % ow);
            for (r, c) in rows.iter_mut().zip(cols.iter_mut()).take(n) {
                *r = ((y * sy) as i64 - pt) as i32;
                *c = ((x * sx) as i64 - pl) as i32;
                x += 1;
                if x == ow {
                    (y, x) = (y + 1, 0);
                }
            }
            {
                let mem_ref: &Memory = mem;
                let (vh, vw) = if upscale == 0 {
                    (ifm_h as u64, ifm_w as u64)
                } else {
                    ((ifm_h as u64).div_ceil(2), (ifm_w as u64).div_ceil(2))
                };
                let view = ifm.view(mem_ref, vh, vw, ifm_c);
                // Each position's top-left byte offset in the view (the 8-bit path).
                let view_strides = view.as_ref().map_or((0, 0), |v| {
                    let sx = if v.fm.nhcwb16 { 16 } else { v.fm.stride_x };
                    (sx as i64, v.fm.stride_y as i64)
                });
                let mut pos_off = [0i64; CHUNK];
                for ((o, &r), &c) in pos_off.iter_mut().zip(&rows).zip(&cols).take(n) {
                    *o = i64::from(r) * view_strides.1 + i64::from(c) * view_strides.0;
                }
                // The chunk's extent of top-left rows and columns.
                let (rmin, rmax) = rows
                    .iter()
                    .take(n)
                    .fold((i64::MAX, i64::MIN), |(lo, hi), &r| {
                        (lo.min(i64::from(r)), hi.max(i64::from(r)))
                    });
                let (cmin, cmax) = cols
                    .iter()
                    .take(n)
                    .fold((i64::MAX, i64::MIN), |(lo, hi), &c| {
                        (lo.min(i64::from(c)), hi.max(i64::from(c)))
                    });
                let single8 = view
                    .as_ref()
                    .filter(|v| n == 1 && upscale == 0 && v.fm.elem == 1 && v.fm.signed);
                // The kept taps of a one-position pass, when the kernel's whole reach lies
                // inside the IFM and its view: one byte read per weight at an offset from
                // the tap alone (`mac`'s 8-bit path without its per-tap checks).
                let (reach_y, reach_x) = ((kh - 1) * dy, (kw - 1) * dx);
                let direct = match (kept, single8) {
                    (Some(taps), Some(v))
                        if rows[0] >= 0
                            && cols[0] >= 0
                            && i64::from(rows[0]).saturating_add_unsigned(reach_y) < ifm_h
                            && i64::from(cols[0]).saturating_add_unsigned(reach_x) < ifm_w =>
                    {
                        let (sx, sy) = (view_strides.0 as u64, view_strides.1 as u64);
                        let sc = if v.fm.nhcwb16 { v.fm.stride_c } else { 16 };
                        let (ysy, xsx) = (dy.saturating_mul(sy), dx.saturating_mul(sx));
                        // The largest offset a tap can have (NHWC: the last channel's; NHCWB16:
                        // at most the last brick's plus the largest channel within a brick).
                        let last = ifm_c - 1;
                        let chan = if v.fm.nhcwb16 {
                            (last / 16).saturating_mul(sc).saturating_add(last.min(15))
                        } else {
                            last
                        };
                        let reach = reach_y
                            .saturating_mul(sy)
                            .saturating_add(reach_x.saturating_mul(sx))
                            .saturating_add(chan);
                        let bytes = usize::try_from(pos_off[0])
                            .ok()
                            .and_then(|p0| v.bytes.get(p0..))
                            .filter(|b| (b.len() as u64) > reach);
                        match bytes {
                            Some(bytes) => direct_taps(
                                taps,
                                bytes,
                                &mut acc,
                                &DirectPass {
                                    ob,
                                    nb: nb as u64,
                                    pstride,
                                    depthwise,
                                    ysy,
                                    xsx,
                                    sc,
                                    zp: ifm_zp,
                                },
                            ),
                            None => false,
                        }
                    }
                    _ => false,
                };
                // Weight `w` of slot `(oz, ky, kx, iz)`, accumulated where it belongs.
                let mut mac =
                    |w: i64, oz: u64, ky: u64, kx: u64, iz: u64| -> Result<(), ComputeError> {
                        if w == 0 || oz < ob || oz >= ob + nb as u64 {
                            return Ok(());
                        }
                        let at = ((oz - ob) as usize).saturating_mul(pstride);
                        let Some(acc) = acc.get_mut(at..at.saturating_add(n)) else {
                            return Ok(());
                        };
                        let c = if depthwise { oz } else { iz };
                        let (oy, ox) = ((ky * dy) as i64, (kx * dx) as i64);
                        match &view {
                            // The common case, a signed 8-bit IFM without upscaling: one byte
                            // at a precomputed offset.
                            Some(v) if upscale == 0 && v.fm.elem == 1 && v.fm.signed => {
                                // The tap's byte offset from each position's top-left
                                // (`pos_off`); unsigned compares reject rows and columns
                                // outside the IFM (negative ones wrap past its size). Offsets
                                // are below 2^50 (16-bit coordinates, 32-bit strides).
                                let (sx, sy) = view_strides;
                                let d = oy * sy + ox * sx + v.chan_offset(c) as i64;
                                let (h, wd) = (ifm_h as u64, ifm_w as u64);
                                if rmin.saturating_add(oy) >= 0
                                    && rmax.saturating_add(oy) < ifm_h
                                    && cmin.saturating_add(ox) >= 0
                                    && cmax.saturating_add(ox) < ifm_w
                                {
                                    // Every position of the chunk reads inside the IFM.
                                    // (`(val - zp) * w` as `val * w - zp * w`, the same exact sum; locals, so
                                    // the loop keeps them in registers.)
                                    let (bytes, zw) = (v.bytes, ifm_zp * w);
                                    for (p, (a, &po)) in acc.iter_mut().zip(&pos_off).enumerate() {
                                        let val = match usize::try_from(po + d)
                                            .ok()
                                            .and_then(|o| bytes.get(o))
                                        {
                                            Some(b) => i64::from(*b as i8),
                                            None => {
                                                let (ry, rx) =
                                                    (i64::from(rows[p]), i64::from(cols[p]));
                                                v.get((ry + oy) as u64, (rx + ox) as u64, c)?
                                            }
                                        };
                                        *a += val * w - zw;
                                    }
                                    return Ok(());
                                }
                                for (((a, &ry), &rx), &po) in
                                    acc.iter_mut().zip(&rows).zip(&cols).zip(&pos_off)
                                {
                                    let (iy, ix) = (i64::from(ry) + oy, i64::from(rx) + ox);
                                    if iy as u64 >= h || ix as u64 >= wd {
                                        continue;
                                    }
                                    let val = match usize::try_from(po + d)
                                        .ok()
                                        .and_then(|o| v.bytes.get(o))
                                    {
                                        Some(b) => i64::from(*b as i8),
                                        None => v.get(iy as u64, ix as u64, c)?,
                                    };
                                    *a += (val - ifm_zp) * w;
                                }
                            }
                            Some(v) => {
                                let coff = v.chan_offset(c);
                                for ((a, &ry), &rx) in acc.iter_mut().zip(&rows).zip(&cols) {
                                    let (iy, ix) = (i64::from(ry) + oy, i64::from(rx) + ox);
                                    if iy < 0 || ix < 0 || iy >= ifm_h || ix >= ifm_w {
                                        continue;
                                    }
                                    let Some((iy, ix)) = source(iy, ix) else {
                                        continue;
                                    };
                                    let val = match v.at(iy as u64, ix as u64, coff) {
                                        Some(val) => val,
                                        None => v.get(iy as u64, ix as u64, c)?,
                                    };
                                    *a += (val - ifm_zp) * w;
                                }
                            }
                            None => {
                                for ((a, &ry), &rx) in acc.iter_mut().zip(&rows).zip(&cols) {
                                    let (iy, ix) = (i64::from(ry) + oy, i64::from(rx) + ox);
                                    if iy < 0 || ix < 0 || iy >= ifm_h || ix >= ifm_w {
                                        continue;
                                    }
                                    let Some((iy, ix)) = source(iy, ix) else {
                                        continue;
                                    };
                                    let val = ifm.read(mem_ref, iy as u64, ix as u64, c)?;
                                    *a += (val - ifm_zp) * w;
                                }
                            }
                        }
                        Ok(())
                    };
                if direct {
                    // Done above.
                } else if let (Some(taps), Some(v)) = (kept, single8) {
                    // One output position (a fully connected layer's) and a signed 8-bit
                    // IFM: `mac`'s 8-bit path, per tap, without its per-call setup (the
                    // accumulators zeroed again: the direct path may have stopped midway).
                    acc.iter_mut()
                        .take(nb.saturating_mul(pstride))
                        .for_each(|v| *v = 0);
                    let (sx, sy) = view_strides;
                    let (r0, c0, p0) = (i64::from(rows[0]), i64::from(cols[0]), pos_off[0]);
                    let (h, wd) = (ifm_h as u64, ifm_w as u64);
                    for t in taps {
                        let oz = u64::from(t.oz);
                        let Some(a) = oz
                            .checked_sub(ob)
                            .and_then(|j| usize::try_from(j).ok())
                            .filter(|&j| j < nb)
                            .and_then(|j| acc.get_mut(j.saturating_mul(pstride)))
                        else {
                            continue;
                        };
                        let c = if depthwise { oz } else { u64::from(t.iz) };
                        let (oy, ox) = (i64::from(t.ky) * dy as i64, i64::from(t.kx) * dx as i64);
                        let (iy, ix) = (r0 + oy, c0 + ox);
                        if iy as u64 >= h || ix as u64 >= wd {
                            continue;
                        }
                        let off = p0 + oy * sy + ox * sx + v.chan_offset(c) as i64;
                        let val = match usize::try_from(off).ok().and_then(|o| v.bytes.get(o)) {
                            Some(b) => i64::from(*b as i8),
                            None => v.get(iy as u64, ix as u64, c)?,
                        };
                        *a += (val - ifm_zp) * i64::from(t.w);
                    }
                } else if let Some(taps) = kept {
                    for t in taps {
                        mac(
                            i64::from(t.w),
                            u64::from(t.oz),
                            u64::from(t.ky),
                            u64::from(t.kx),
                            u64::from(t.iz),
                        )?;
                    }
                } else {
                    let mut dec = Decoder::new(weights_in(mem_ref, w_addr, w_len)?);
                    let walked = order.walk(|slot| -> Result<(), ComputeError> {
                        let w = next_weight(&mut dec, slots)?;
                        match slot {
                            Some((oz, ky, kx, iz)) => mac(w, oz, ky, kx, iz),
                            None => Ok(()),
                        }
                    });
                    match walked {
                        Err(ComputeError::WeightsShort { needed, .. }) => {
                            let got =
                                Decoder::new(weights_in(mem_ref, w_addr, w_len)?).count() as u64;
                            return Err(ComputeError::WeightsShort { needed, got });
                        }
                        Err(e) => return Err(e),
                        Ok(()) => {}
                    }
                    // The first pass checks the stream holds no more than the kernel's
                    // slots (before any output is written).
                    if first {
                        first = false;
                        match dec.next() {
                            None => {}
                            Some(Err(e)) => return Err(ComputeError::Weights(e)),
                            Some(Ok(_)) => {
                                return Err(ComputeError::WeightsLong { needed: slots });
                            }
                        }
                    }
                }
            }
            // Each accumulator scaled into its output value, in place (the bias, scale and
            // shift records read first), then written.
            let block = s_addr.saturating_add(ob.saturating_mul(10));
            let block_recs = mem.read(block, (nb as u64).saturating_mul(10));
            for (j, acc) in acc.chunks_mut(pstride).enumerate().take(nb) {
                let o = ob + j as u64;
                let rec = match block_recs {
                    Some(b) => b.get(j.saturating_mul(10)..).and_then(|r| r.get(..10)),
                    None => None,
                };
                let at = s_addr.saturating_add(o.saturating_mul(10));
                let rec = rec
                    .or_else(|| mem.read(at, 10))
                    .ok_or(ComputeError::Unmapped {
                        kind: AccessKind::Scales,
                        address: at,
                    })?;
                let mut raw = [0u8; 10];
                raw.copy_from_slice(rec);
                // 40-bit signed bias, 32-bit scale, 6-bit shift (EncodeBias).
                let bias = i64::from_le_bytes([raw[0], raw[1], raw[2], raw[3], raw[4], 0, 0, 0])
                    << 24
                    >> 24;
                let (scale, shift) = if per_channel {
                    (
                        u32::from_le_bytes([raw[5], raw[6], raw[7], raw[8]]),
                        u32::from(raw[9] & 0x3f),
                    )
                } else {
                    (
                        st.payload(Opcode::SetOfmScale),
                        u32::from(st.param(Opcode::SetOfmScale) & 0x3f),
                    )
                };
                for a in acc.iter_mut().take(n) {
                    let v = scale_value(*a + bias, scale, shift, round_mode).saturating_add(ofm_zp);
                    *a = v.clamp(act_min, act_max).clamp(lo, hi);
                }
            }
            // The OFM's bytes borrowed once for the chunk when it lies in one window and
            // tile 0; else (or should an element fall outside them) element by element,
            // the same values again.
            let (y0, x0) = (start / ow, start % ow);
            let mut viewed = false;
            if let Some(mut out) = ofm.view_mut(mem, oh, ow, oc) {
                viewed = true;
                'put: for (j, a) in acc.chunks(pstride).enumerate().take(nb) {
                    let (mut y, mut x) = (y0, x0);
                    for &v in a.iter().take(n) {
                        if !out.put(y, x, ob + j as u64, v) {
                            viewed = false;
                            break 'put;
                        }
                        x += 1;
                        if x == ow {
                            (y, x) = (y + 1, 0);
                        }
                    }
                }
            }
            if !viewed {
                for (j, a) in acc.chunks(pstride).enumerate().take(nb) {
                    let (mut y, mut x) = (y0, x0);
                    for &v in a.iter().take(n) {
                        ofm.write(mem, y, x, ob + j as u64, v)?;
                        x += 1;
                        if x == ow {
                            (y, x) = (y + 1, 0);
                        }
                    }
                }
            }
            start += n as u64;
        }
        ob += nb as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gemmlowp's `SaturatingRoundingDoublingHighMul` then `RoundingDivideByPOT` (TFLite's
    /// double-rounding `MultiplyByQuantizedMultiplier`), written out as TFLite has it.
    fn tflite_double(x: i64, m: i64, exponent: i64) -> i64 {
        let (left, right) = (exponent.max(0), (-exponent).max(0));
        let a = x * (1 << left);
        let ab = i128::from(a) * i128::from(m);
        let nudge: i128 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
        let high = ((ab + nudge) / (1i128 << 31)) as i64;
        if right == 0 {
            return high;
        }
        let mask = (1i64 << right) - 1;
        let rem = high & mask;
        let threshold = (mask >> 1) + i64::from(high < 0);
        (high >> right) + i64::from(rem > threshold)
    }

    #[test]
    fn dbl_is_tflites_double_rounding() {
        let mut n = 0;
        for shift in [20u32, 30, 31, 32, 33, 36, 40, 45] {
            for scale in [
                1u32 << 30,
                1_073_741_825,
                1_500_000_001,
                2_147_483_647,
                1_234_567_890,
            ] {
                for acc in (-70_000i64..70_000).step_by(7) {
                    let want = tflite_double(acc, i64::from(scale), 31 - i64::from(shift));
                    assert_eq!(
                        scale_value(acc, scale, shift, 0),
                        want,
                        "{acc} {scale} {shift}"
                    );
                    n += 1;
                }
            }
        }
        assert!(n > 100_000);
        // The example of the oracle: ties break differently with one rounding.
        assert_eq!(scale_value(5, 1 << 30, 32, 0), 2);
        assert_eq!(scale_value(5, 1 << 30, 32, 2), 1);
    }

    /// The stream of `mlw.rs`' `uncompressed_direct_values`: values 0, 0, 1, -1.
    #[cfg(feature = "std")]
    fn four_values() -> Vec<u8> {
        let mut bits: Vec<(u32, u32)> = vec![(6, 3), (3, 15), (7, 3), (0, 1), (1, 1)];
        bits.extend([(0, 5), (0, 5), (0, 3)]);
        bits.extend([(0, 2), (1, 2), (2, 2), (3, 2)]);
        bits.push((7, 3));
        let (mut out, mut acc, mut n) = (Vec::new(), 0u64, 0u32);
        for (v, len) in bits {
            for i in 0..len {
                acc |= u64::from((v >> i) & 1) << n;
                n += 1;
                if n == 8 {
                    out.push(acc as u8);
                    (acc, n) = (0, 0);
                }
            }
        }
        if n > 0 {
            out.push(acc as u8);
        }
        out
    }

    /// 2 OFM x 2 IFM channels, 1x1 kernel, micro-blocks of 2: four slots, OFM channel
    /// outer.
    #[cfg(feature = "std")]
    fn two_by_two(ofm_depth: u64) -> Ordering {
        Ordering {
            ofm_depth,
            ifm_depth: 2,
            kh: 1,
            kw: 1,
            ofm_block_depth: ofm_depth,
            ifm_block_depth: 2,
            ofm_ublock: 2,
            ifm_ublock: 2,
            decomp_x: 8,
            decomp_y: 8,
            subkernel_round: 1,
            part_kernel: false,
            depthwise: false,
        }
    }

    #[test]
    #[cfg(feature = "std")]
    fn a_kept_decoding_is_the_streams_nonzero_weights_at_their_slots() {
        let stream = four_values();
        let order = two_by_two(2);
        assert_eq!(order.slots(), 4);
        let mut cache = WeightCache::default();
        cache.set_limit(1 << 20);
        let want = [
            Tap {
                w: 1,
                oz: 1,
                ky: 0,
                kx: 0,
                iz: 0,
            },
            Tap {
                w: -1,
                oz: 1,
                ky: 0,
                kx: 0,
                iz: 1,
            },
        ];
        assert_eq!(cache.find(&stream, &order), None);
        assert_eq!(cache.insert(&stream, &order, 4), Some(&want[..]));
        // Kept: found again, with its slots.
        assert_eq!(cache.find(&stream, &order), Some((0, 4)));
        assert_eq!(cache.taps(0), Some(&want[..]));
        assert_eq!(cache.entries.len(), 1);
        let one = cache.kept_bytes();
        assert_eq!(
            one,
            stream.len() + 2 * core::mem::size_of::<Tap>() + core::mem::size_of::<Entry>()
        );
        // A stream shorter than the ordering's slots, or one byte different, is not
        // taken for the kept one; a short one is not kept (the pass decodes it and
        // reports its error).
        let long = two_by_two(4);
        assert_eq!(long.slots(), 8);
        assert_eq!(cache.find(&stream, &long), None);
        assert_eq!(cache.insert(&stream, &long, 8), None);
        let mut other = stream.clone();
        other[3] ^= 0x10;
        assert_eq!(cache.find(&other, &order), None);
        assert_eq!(cache.kept_bytes(), one);
        // Nothing is kept without a limit (a one-shot run's cache), nor past it.
        let mut off = WeightCache::default();
        assert_eq!(off.insert(&stream, &order, 4), None);
        assert_eq!(off.find(&stream, &order), None);
        assert!(off.entries.is_empty() && off.kept_bytes() == 0);
        let mut small = WeightCache::default();
        small.set_limit(one - 1);
        assert_eq!(small.insert(&stream, &order, 4), None);
        assert_eq!(small.kept_bytes(), 0);
        // A lower limit drops what is over it.
        cache.set_limit(one - 1);
        assert_eq!((cache.kept_bytes(), cache.entries.len()), (0, 0));
    }

    #[test]
    fn natural_and_truncate() {
        assert_eq!(scale_value(-3, 1, 1, 2), -1);
        assert_eq!(scale_value(3, 1, 1, 2), 2);
        assert_eq!(scale_value(-3, 1, 1, 1), -1);
        assert_eq!(scale_value(3, 1, 1, 1), 1);
        assert_eq!(scale_value(7, 3, 0, 2), 21);
    }
}
