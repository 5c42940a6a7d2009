//! `NPU_OP_ELEMENTWISE` and `NPU_OP_POOL`, and the output stage they share with the
//! lookup table (LUT) in SHRAM. See [`crate::compute`]'s module documentation for where
//! each rule comes from; the rules specific to these operations are:
//!
//! * **Shapes.** The OFM is `OFM_HEIGHT x OFM_WIDTH x OFM_DEPTH`; an elementwise IFM has
//!   the OFM's shape (the access checker's rule, `npuschema_runtime::cmd::state`), IFM2
//!   too except along each axis `IFM2_BROADCAST` broadcasts (bits 0 H, 1 W, 2 C: element 0
//!   of that axis is read), or a scalar (bit 7: the 16-bit `IFM2_SCALAR`), and bit 6
//!   (`operand_order`) swaps the operands. A pool's IFM window is a convolution's
//!   (stride, padding, kernel; no dilation) over the IFM upscaled 2x when `IFM_UPSCALE`
//!   says (NEAREST repeats each element: TFLite's nearest-neighbour resize, which
//!   `op_models.rs`' `resize_nearest` pins; ZEROS puts the zero point between them),
//!   `REDUCE_SUM` summing the window over every IFM channel into a one-channel OFM.
//! * **Inputs**: each element less its zero point (`IFM_ZERO_POINT`, `IFM2_ZERO_POINT`),
//!   as in Vela's `register_command_stream_generator` (zero points of 32-bit tensors are 0).
//! * **Operations** (Vela 5.2.0's `regor`, `ethos_u55_register_cs_generator.cpp`
//!   `GenerateScalingForElementwise`, and `ethos_u55_scaling.cpp` `RescaleElementwise`):
//!   `ADD`/`SUB` with `IFM_SCALE_MODE_OPA_OPB_16` scale each operand by the low 16 bits
//!   of `OPA_SCALE`/`OPB_SCALE` (regor writes the operands' scales there, their shifts
//!   folded in) and add or subtract; with `OPA_32` (`OPB_32`) the IFM (IFM2) is scaled by
//!   `OPA_SCALE`'s scale and shift, rounding as TFLite's `MultiplyByQuantizedMultiplier`
//!   of the operand shifted left by 20 (8 bits; 15 for 16) would (regor's `Scale` with
//!   `doubleRound` 20, `AdvancedElementwiseAddSubScale`), and the other operand is
//!   shifted left by 19 (14): TFLite's multiplier of the larger-scale input is exactly
//!   1/2 (`op_models.rs`' `add_broadcast`, `sub_broadcast` pin it); `MUL` multiplies; `MIN`/`MAX` compare; `ABS`;
//!   `LRELU` scales the negative values by `OFM_SCALE` with the round mode and leaves the
//!   others (regor writes the leaky ReLU's alpha there, `GenerateScalingForElementwise`,
//!   and emits `LRELU` for int16 leaky ReLU with equal IFM and OFM scaling and any
//!   non-negative alpha, larger than 1 too, `ConvertLeakyRelu`: so the scale cannot apply to the
//!   non-negative values, nor can the mode be a maximum of `x` and `alpha * x`; TFLite's
//!   `QuantizeLeakyRelu` with an identity multiplier of 1; `op_models.rs`'
//!   `i16_leaky_relu_eq` (alpha 0.3) and `i16_leaky_relu_big` (1.5) pin it); `CLZ`
//!   counts leading zeros of the 32-bit value; `SHL` shifts left and `SHR` right by the
//!   IFM2 value (0..=31), `SHR` rounding as the round mode says (regor's `Asr` with
//!   `round`, `RoundMode::NATURAL`: half up, TFLite's `RoundingDivideByPOT` on the
//!   non-negative values softmax shifts). Pools: `MAX` of the window (padding excluded,
//!   as TFLite's `MaxPool`), `AVERAGE` and `REDUCE_SUM` its sum; a padded `AVERAGE`
//!   divides by the taps inside the IFM ([`div_round_away`]).
//! * **Output scaling**: with `OFM_SCALE_MODE_GLOBAL` the result is scaled by
//!   `OFM_SCALE` with the round mode ([`crate::compute`]'s `scale_value`, regor's
//!   `Scale`); `OFM_SCALE_MODE_PER_CHANNEL` (which Vela and regor set for every
//!   elementwise mode but ADD, SUB, MUL, ABS and LRELU, whose `useGlobalScale` list this
//!   is) leaves it unscaled. A `MUL` of 32-bit IFMs applies the shift of `OFM_SCALE`
//!   alone: regor lowers softmax's fixed-point products (gemmlowp's
//!   `SaturatingRoundingDoublingHighMul`, `F0 * F2` and `F2 * F2`) to 32-bit MULs with
//!   `OFM_SCALE` (2^30, 31), its `F0 * F0` to (2^30, 30), and its `Rescale<2>` to a MUL
//!   by 4 with (1, 0); its int16 softmax multiplies by a constant holding the multiplier
//!   of a quantised scale with `OFM_SCALE` that same scale (`GetGraphInt16`'s
//!   `mul2_scale`): only `(a * b) >> shift` (rounded) agrees with TFLite for all of them,
//!   which `sim/tests/oracle.rs` (micro_speech) and `op_models.rs` (`softmax`,
//!   `i16_softmax`) pin bit-exact.
//! * **Output stage**: `+ OFM_ZERO_POINT`; `ACTIVATION_MIN`/`MAX` (16-bit registers,
//!   regor clamps them to the int16 range) apply to 8- and 16-bit OFMs and to a LUT's
//!   index, not to a 32-bit OFM; then `ACTIVATION.clip_range` (OFM precision, or forced
//!   uint8, int8, int16); then the LUT (`ACTIVATION_FUNCTION_TABLE_n`): the value, offset
//!   by 128 when the clip range is int8, indexes a table of 256 entries of the OFM's
//!   element size at SHRAM `LUT base + n * 256` (regor's `lutSlotSize`), the LUT base
//!   being the last 2 KiB of SHRAM (the DMA destination regor writes, 0x3800 for 16 KiB,
//!   0x5800 for 24 KiB, 0xB800 for 48 KiB); the entry is the output. With the int16 clip
//!   range the table is 512 interpolated entries filling the LUT memory (TFLite's
//!   `generic_int16_table_lookup`, `op_models.rs`' `i16_softmax` pins it).
//!   `ACTIVATION_FUNCTION_TANH`/`SIGMOID` (Vela's int16 tanh and logistic) apply to the
//!   scaled value, before the zero point and the clamps ([`crate::tanh_sigmoid`], where
//!   the rule comes from; `op_models.rs`' `i16_tanh` and `i16_sigmoid` pin it).
//!
//! Not modelled (refused with [`ComputeError::Unsupported`], the run going on): advanced
//! ADD/SUB scaling of 32-bit operands (regor's `SupportsAdvancedAddSubIFMScaling` allows
//! it for 8- and 16-bit IFMs only: Vela 5.2.0 does not emit it), TANH/SIGMOID to an 8-bit
//! OFM (Vela lowers 8-bit tanh and sigmoid to a LUT), `LRELU` without a global OFM scale
//! (regor always writes alpha there), IFM upscaling in elementwise operations (regor's
//! `scheduler_decompose.cpp` sets IFM resampling on the average pools of a resize and on
//! transposed convolutions only), per-channel pool scaling (regor's `GeneratePoolingOp`
//! uses it for a pool with a scale tensor; no model tried here has one).
//!
//! Held to TFLite's reference kernels by `sim/tests/oracle.rs` (the shared models) and
//! `sim/tests/op_models.rs` (one model per operator family: convolution with stride,
//! dilation, padding and a fused ReLU6, transposed convolution, depthwise with a
//! multiplier, a stride or a dilation, max and average pools with and without padding,
//! mean, ADD/SUB/MUL with and without broadcast and of different scales, squared
//! difference, MIN, MAX, ABS, softmax, tanh, sigmoid (int8 and int16), leaky ReLU (int8
//! and int16, lowered or `LRELU`) and hard swish,
//! concatenation, pad, strided slice, nearest-neighbour and bilinear resize, fully
//! connected).

use npuschema_generated::ethos_u55_cmd::{
    SetActivationCmd, SetIfm2BroadcastCmd, SetIfm2PrecisionCmd, SetIfmPrecisionCmd,
    SetKernelStrideCmd, SetOfmPrecisionCmd,
};
use npuschema_runtime::cmd::{AccessKind, Opcode, StreamState};

use crate::compute::{Budget, ComputeError, Fm, FmRegs, Work, m1, scale_value, scale_value_dr};
use crate::memory::Memory;
use crate::tanh_sigmoid;

/// The SHRAM the LUTs live in: its last 2 KiB, eight 256-byte slots.
pub(crate) const LUT_BYTES: usize = 2048;

/// The IFM2's registers.
const IFM2_REGS: FmRegs = FmRegs {
    region: Opcode::SetIfm2Region,
    bases: [
        Opcode::SetIfm2Base0,
        Opcode::SetIfm2Base1,
        Opcode::SetIfm2Base2,
        Opcode::SetIfm2Base3,
    ],
    h0: Opcode::SetIfm2Height0M1,
    h1: Opcode::SetIfm2Height1M1,
    w0: Opcode::SetIfm2Width0M1,
    sx: Opcode::SetIfm2StrideX,
    sy: Opcode::SetIfm2StrideY,
    sc: Opcode::SetIfm2StrideC,
};

/// A 16-bit register value as the signedness of its tensor reads it.
fn zp(v: u16, signed: bool) -> i64 {
    if signed {
        i64::from(v as i16)
    } else {
        i64::from(v)
    }
}

/// The output stage: scaling, zero point, clamps, LUT.
#[derive(Clone, Copy)]
struct OutStage<'a> {
    /// `Some((scale, shift))` under `OFM_SCALE_MODE_GLOBAL`.
    scale: Option<(u32, u32)>,
    round_mode: u8,
    ofm_zp: i64,
    /// `ACTIVATION_MIN`/`MAX`, when they apply.
    act: Option<(i64, i64)>,
    clip: (i64, i64),
    /// The table and its entry size in bytes.
    lut: Option<(&'a [u8], usize)>,
    /// Offset added to the clipped value to index the table.
    lut_offset: i64,
    /// `ACTIVATION_FUNCTION_TANH`/`SIGMOID`.
    tanh_sigmoid: Option<fn(i64) -> i64>,
    ofm_range: (i64, i64),
}

impl<'a> OutStage<'a> {
    fn new(st: &StreamState, ofm: &Fm, lut_ram: &'a [u8; LUT_BYTES]) -> Result<Self, ComputeError> {
        let ofm_p = SetOfmPrecisionCmd::new(st.param(Opcode::SetOfmPrecision));
        let scale = (ofm_p.scale_mode_raw() == 1).then(|| {
            (
                st.payload(Opcode::SetOfmScale),
                u32::from(st.param(Opcode::SetOfmScale) & 0x3f),
            )
        });
        let act = SetActivationCmd::new(st.param(Opcode::SetActivation));
        let ofm_range = ofm.range();
        let clip = match act.activation_clip_range_raw() {
            0 => ofm_range,
            2 => (0, 255),
            3 => (-128, 127),
            5 => (-32768, 32767),
            _ => return Err(ComputeError::Unsupported("reserved activation clip range")),
        };
        let func = act.activation_function_raw();
        let lut = match func {
            0 => None,
            16..=23 => {
                // An 8-bit index (the clip range spans 256 values): 256 entries of the OFM's
                // element size. A 16-bit one: 512 interpolated entries of 4 bytes, the
                // whole LUT memory (`Lut::Interpolated`).
                let wide = clip.1.saturating_sub(clip.0) > 255;
                if wide && clip != (-32768, 32767) {
                    return Err(ComputeError::Unsupported(
                        "a lookup table indexed by more than 16 bits",
                    ));
                }
                let esize = if wide {
                    0
                } else {
                    usize::try_from(ofm.elem).unwrap_or(usize::MAX)
                };
                if esize == 2 {
                    return Err(ComputeError::Unsupported(
                        "an 8-bit-indexed lookup table of 16-bit entries",
                    ));
                }
                let slot = usize::from(func.saturating_sub(16)).saturating_mul(256);
                let len = if wide {
                    LUT_BYTES
                } else {
                    esize.saturating_mul(256)
                };
                let table = lut_ram.get(slot..).and_then(|t| t.get(..len)).ok_or(
                    ComputeError::Unsupported("a lookup table past the end of the LUT memory"),
                )?;
                Some((table, esize))
            }
            3 | 4 if ofm.elem == 2 => None,
            3 | 4 => {
                return Err(ComputeError::Unsupported(
                    "the TANH/SIGMOID activation functions to a non-16-bit OFM",
                ));
            }
            _ => {
                return Err(ComputeError::Unsupported("a reserved activation function"));
            }
        };
        // TANH (3) and SIGMOID (4), on the scaled value, before the zero point and the
        // clamps ([`crate::tanh_sigmoid`]).
        let tanh_sigmoid = match func {
            3 => Some(tanh_sigmoid::tanh as fn(i64) -> i64),
            4 => Some(tanh_sigmoid::sigmoid as fn(i64) -> i64),
            _ => None,
        };
        let act_range = (ofm.elem <= 2 || lut.is_some()).then(|| {
            let signed = ofm.signed || clip.0 < 0;
            (
                zp(st.param(Opcode::SetActivationMin), signed),
                zp(st.param(Opcode::SetActivationMax), signed),
            )
        });
        Ok(Self {
            scale,
            round_mode: ofm_p.round_mode_raw(),
            ofm_zp: zp(st.param(Opcode::SetOfmZeroPoint), ofm.signed),
            act: act_range,
            clip,
            lut,
            lut_offset: if clip.0 < 0 { 128 } else { 0 },
            tanh_sigmoid,
            ofm_range,
        })
    }

    /// The output value of result `r`.
    fn apply(&self, r: i64) -> i64 {
        let mut v = match self.scale {
            Some((scale, shift)) => scale_value(r, scale, shift, self.round_mode),
            None => r,
        };
        if let Some(f) = self.tanh_sigmoid {
            v = f(v);
        }
        v = v.saturating_add(self.ofm_zp);
        if let Some((lo, hi)) = self.act {
            v = v.max(lo).min(hi);
        }
        v = v.clamp(self.clip.0, self.clip.1);
        if let Some((table, 0)) = self.lut {
            // 16-bit: TFLite's `generic_int16_table_lookup`, the table Vela and regor
            // write (`EXP_LUT` in `softmax.cpp`: each entry the slope in its high half,
            // the base in its low half): index 256 + (v >> 7), base + (slope *
            // (v & 0x7f) + 64) >> 7.
            let idx = usize::try_from((v >> 7).saturating_add(256)).unwrap_or(0);
            let at = idx.saturating_mul(4);
            let entry = match table.get(at..at.saturating_add(4)) {
                Some([a, b, c, d]) => u32::from_le_bytes([*a, *b, *c, *d]),
                _ => 0,
            };
            let base = i64::from(entry as u16 as i16);
            let slope = i64::from((entry >> 16) as u16 as i16);
            v = base + ((slope * (v & 0x7f) + 64) >> 7);
        } else if let Some((table, esize)) = self.lut {
            let idx = usize::try_from(v.saturating_add(self.lut_offset)).unwrap_or(0);
            let at = idx.saturating_mul(esize);
            v = match table.get(at..at.saturating_add(esize)) {
                Some([b]) => i64::from(*b as i8),
                Some([a, b, c, d]) => i64::from(i32::from_le_bytes([*a, *b, *c, *d])),
                _ => 0,
            };
        }
        v.clamp(self.ofm_range.0, self.ofm_range.1)
    }
}

/// `NPU_OP_ELEMENTWISE`.
pub(crate) fn elementwise(
    st: &StreamState,
    mem: &mut Memory,
    basep: &[u64; 8],
    lut: &[u8; LUT_BYTES],
    work: &mut Work,
    budget: &Budget,
) -> Result<(), ComputeError> {
    let mode = st.param(Opcode::OpElementwise);
    let ifm_p = SetIfmPrecisionCmd::new(st.param(Opcode::SetIfmPrecision));
    let ifm2_p = SetIfm2PrecisionCmd::new(st.param(Opcode::SetIfm2Precision));
    let ofm_p = SetOfmPrecisionCmd::new(st.param(Opcode::SetOfmPrecision));
    let ifm = Fm::ifm(st, basep)?;
    let ofm = Fm::ofm(st, basep)?;
    let unary = matches!(mode, 5..=7);
    let bc = SetIfm2BroadcastCmd::new(st.param(Opcode::SetIfm2Broadcast));
    let scalar = bc.broadcast_constant_raw() != 0;
    let ifm2 = if unary || scalar {
        None
    } else {
        Some(Fm::new(
            st,
            &IFM2_REGS,
            AccessKind::Ifm2,
            basep,
            ifm2_p.activation_precision_raw(),
            ifm2_p.activation_format_raw(),
            ifm2_p.activation_type_raw() != 0,
        )?)
    };
    if st.param(Opcode::SetIfmUpscale) & 3 != 0 {
        return Err(ComputeError::Unsupported(
            "IFM upscale in an elementwise operation",
        ));
    }
    let ifm2_signed = ifm2_p.activation_type_raw() != 0;
    let ifm_zp = zp(st.param(Opcode::SetIfmZeroPoint), ifm.signed);
    let ifm2_zp = zp(st.param(Opcode::SetIfm2ZeroPoint), ifm2_signed);
    let scalar_value = zp(st.param(Opcode::SetIfm2Scalar), ifm2_signed).saturating_sub(ifm2_zp);
    let out = OutStage::new(st, &ofm, lut)?;
    let round_mode = ofm_p.round_mode_raw();
    let (opa, opb) = (
        i64::from(st.payload(Opcode::SetOpaScale) & 0xffff),
        i64::from(st.payload(Opcode::SetOpbScale) & 0xffff),
    );
    // Advanced ADD/SUB scaling: OPA_SCALE scales one operand (IFM for OPA_32, IFM2 for
    // OPB_32), with the double rounding of TFLite's input shift; the other is shifted
    // left by that shift less one (its TFLite multiplier is exactly 1/2).
    let advanced = match (mode, ifm_p.scale_mode_raw()) {
        (1 | 2, 0) | (0 | 3..=9, _) => None,
        (1 | 2, m @ (1 | 2)) => {
            let dr: u32 = match ifm.elem {
                1 => 20,
                2 => 15,
                _ => {
                    return Err(ComputeError::Unsupported(
                        "advanced ADD/SUB scaling of 32-bit operands",
                    ));
                }
            };
            Some((
                m == 2,
                st.payload(Opcode::SetOpaScale),
                u32::from(st.param(Opcode::SetOpaScale) & 0x3f),
                dr,
            ))
        }
        _ => {
            return Err(ComputeError::Unsupported(
                "a reserved IFM scale mode (IFM_PRECISION.scale_mode 3)",
            ));
        }
    };
    let ifm_round = ifm_p.round_mode_raw();
    // A 32-bit MUL applies the shift alone (see the module documentation).
    let mul32 = mode == 0 && ifm.elem == 4;
    let (oh, ow, oc) = (
        m1(st, Opcode::SetOfmHeightM1),
        m1(st, Opcode::SetOfmWidthM1),
        m1(st, Opcode::SetOfmDepthM1),
    );
    let elements = oh.saturating_mul(ow).saturating_mul(oc);
    work.ops(elements, budget)?;
    work.bytes(
        elements.saturating_mul(
            ifm.elem
                .saturating_add(ifm2.as_ref().map_or(0, |f| f.elem))
                .saturating_add(ofm.elem),
        ),
        budget,
    )?;
    let unscaled = OutStage { scale: None, ..out };
    let swap = bc.operand_order_raw() != 0;
    let (bh, bw, bcc) = (
        bc.broadcast_h_raw() != 0,
        bc.broadcast_w_raw() != 0,
        bc.broadcast_c_raw() != 0,
    );
    for y in 0..oh {
        for x in 0..ow {
            for c in 0..oc {
                let a = ifm.read(mem, y, x, c)?.saturating_sub(ifm_zp);
                let b = match &ifm2 {
                    Some(f) => f
                        .read(
                            mem,
                            if bh { 0 } else { y },
                            if bw { 0 } else { x },
                            if bcc { 0 } else { c },
                        )?
                        .saturating_sub(ifm2_zp),
                    None => scalar_value,
                };
                let (a, b) = if swap && !unary { (b, a) } else { (a, b) };
                let (a, b) = match advanced {
                    None if matches!(mode, 1 | 2) => (a.saturating_mul(opa), b.saturating_mul(opb)),
                    None => (a, b),
                    Some((scale_b, s, sh, dr)) => {
                        let scaled = |v: i64| scale_value_dr(v, s, sh, ifm_round, dr);
                        let shifted = |v: i64| v.saturating_mul(1 << (dr - 1));
                        if scale_b {
                            (shifted(a), scaled(b))
                        } else {
                            (scaled(a), shifted(b))
                        }
                    }
                };
                let r = match mode {
                    0 if mul32 => {
                        let shift = out.scale.map_or(0, |s| s.1);
                        let v = scale_value(a.saturating_mul(b), 1, shift, round_mode);
                        ofm.write(mem, y, x, c, unscaled.apply(v))?;
                        continue;
                    }
                    0 => a.saturating_mul(b),
                    1 => a.saturating_add(b),
                    2 => a.saturating_sub(b),
                    3 => a.min(b),
                    4 => a.max(b),
                    6 => a.saturating_abs(),
                    7 => i64::from((a as i32 as u32).leading_zeros()),
                    8 => scale_value(a, 1, b.clamp(0, 31) as u32, round_mode),
                    9 => a.checked_shl(b.clamp(0, 31) as u32).unwrap_or(0),
                    5 => {
                        // LRELU: the negative values scaled by OFM_SCALE (alpha), the
                        // others unchanged; no further scaling (see the module docs).
                        let Some((scale, shift)) = out.scale else {
                            return Err(ComputeError::Unsupported(
                                "the LRELU elementwise mode without a global OFM scale",
                            ));
                        };
                        let v = if a < 0 {
                            scale_value(a, scale, shift, round_mode)
                        } else {
                            a
                        };
                        ofm.write(mem, y, x, c, unscaled.apply(v))?;
                        continue;
                    }
                    _ => return Err(ComputeError::Unsupported("a reserved elementwise mode")),
                };
                ofm.write(mem, y, x, c, out.apply(r))?;
            }
        }
    }
    Ok(())
}

/// `NPU_OP_POOL`.
pub(crate) fn pool(
    st: &StreamState,
    mem: &mut Memory,
    basep: &[u64; 8],
    lut: &[u8; LUT_BYTES],
    work: &mut Work,
    budget: &Budget,
) -> Result<(), ComputeError> {
    let mode = st.param(Opcode::OpPool);
    let ofm_p = SetOfmPrecisionCmd::new(st.param(Opcode::SetOfmPrecision));
    let ifm = Fm::ifm(st, basep)?;
    let ofm = Fm::ofm(st, basep)?;
    // IFM_UPSCALE: the window runs over the IFM upscaled 2x, NEAREST repeating each
    // element, ZEROS putting zeros (the zero point) between them.
    let upscale = st.param(Opcode::SetIfmUpscale) & 3;
    if upscale == 3 {
        return Err(ComputeError::Unsupported("a reserved IFM upscale mode"));
    }
    if ofm_p.scale_mode_raw() != 1 {
        return Err(ComputeError::Unsupported("per-channel scaling in a pool"));
    }
    let out = OutStage::new(st, &ofm, lut)?;
    let (oh, ow, oc) = (
        m1(st, Opcode::SetOfmHeightM1),
        m1(st, Opcode::SetOfmWidthM1),
        m1(st, Opcode::SetOfmDepthM1),
    );
    let ks = SetKernelStrideCmd::new(st.param(Opcode::SetKernelStride));
    let (kh, kw) = (
        m1(st, Opcode::SetKernelHeightM1),
        m1(st, Opcode::SetKernelWidthM1),
    );
    let sx = ((u64::from(ks.stride_x_msb()) << 1) | u64::from(ks.stride_x_lsb())) + 1;
    let sy = ((u64::from(ks.stride_y_msb()) << 1) | u64::from(ks.stride_y_lsb())) + 1;
    let (pt, pl, pb, pr) = (
        i64::from(st.param(Opcode::SetIfmPadTop)),
        i64::from(st.param(Opcode::SetIfmPadLeft)),
        i64::from(st.param(Opcode::SetIfmPadBottom)),
        i64::from(st.param(Opcode::SetIfmPadRight)),
    );
    // An AVERAGE pool with padding averages the taps inside the IFM (TFLite's count);
    // regor leaves its OFM scale at 1 then ("padded average-pools use HW-scaling",
    // `GenerateOFMScalingForPooling`): the hardware divides by that count
    // ([`div_round_away`]).
    let padded_average = mode == 1 && (pt | pl | pb | pr) != 0;
    if mode > 2 {
        return Err(ComputeError::Unsupported("a reserved pooling mode"));
    }
    let reduce = mode == 2;
    if reduce && oc != 1 {
        return Err(ComputeError::Unsupported(
            "a REDUCE_SUM pool to more than one channel",
        ));
    }
    let ic = if reduce {
        m1(st, Opcode::SetIfmDepthM1)
    } else {
        1
    };
    // Every value is at most 16 bits (registers) or a product of two: no overflow in i64.
    let span = |o: u64, s: u64, k: u64| ((o - 1) * s + k) as i64;
    let ifm_h = (span(oh, sy, kh) - pt - pb).max(1);
    let ifm_w = (span(ow, sx, kw) - pl - pr).max(1);
    let ifm_zp = zp(st.param(Opcode::SetIfmZeroPoint), ifm.signed);
    let taps = kh.saturating_mul(kw).saturating_mul(ic);
    let elements = oh.saturating_mul(ow).saturating_mul(oc);
    work.ops(elements.saturating_mul(taps), budget)?;
    work.bytes(
        elements
            .saturating_mul(taps)
            .saturating_mul(ifm.elem)
            .saturating_add(elements.saturating_mul(ofm.elem)),
        budget,
    )?;
    for y in 0..oh {
        for x in 0..ow {
            for c in 0..oc {
                let mut acc: Option<i64> = None;
                let mut count = 0i64;
                for ky in 0..kh {
                    for kx in 0..kw {
                        let iy = (y * sy + ky) as i64 - pt;
                        let ix = (x * sx + kx) as i64 - pl;
                        if iy < 0 || ix < 0 || iy >= ifm_h || ix >= ifm_w {
                            continue;
                        }
                        count += 1;
                        for z in 0..ic {
                            let ch = if reduce { z } else { c };
                            let (ry, rx) = (iy as u64, ix as u64);
                            let v = match upscale {
                                0 => ifm.read(mem, ry, rx, ch)?,
                                1 => ifm.read(mem, ry / 2, rx / 2, ch)?,
                                _ if ry % 2 == 0 && rx % 2 == 0 => {
                                    ifm.read(mem, ry / 2, rx / 2, ch)?
                                }
                                _ => ifm_zp,
                            }
                            .saturating_sub(ifm_zp);
                            acc = Some(match (acc, mode) {
                                (None, _) => v,
                                (Some(a), 0) => a.max(v),
                                (Some(a), _) => a.saturating_add(v),
                            });
                        }
                    }
                }
                let mut r = acc.unwrap_or(0);
                if padded_average && count > 0 {
                    r = div_round_away(r, count);
                }
                ofm.write(mem, y, x, c, out.apply(r))?;
            }
        }
    }
    Ok(())
}

/// `n / d` (`d > 0`) rounded half away from zero: TFLite's average pool (`(acc +- count/2)
/// / count`). The hardware's division of a padded AVERAGE pool (regor programs
/// `ROUND_MODE_NATURAL` and an OFM scale of 1 for it) agrees with TFLite this way, not
/// rounding half up: `op_models.rs`' `avgpool_3x3_stride2_same` is bit-exact, and with
/// half up 804 of its 2,000 output bytes are 1 off.
fn div_round_away(n: i64, d: i64) -> i64 {
    let half = d / 2;
    if n >= 0 {
        n.saturating_add(half) / d
    } else {
        n.saturating_sub(half) / d
    }
}
