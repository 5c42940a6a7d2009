//! Text listing of commands in the layout of Vela's `--verbose-register-command-stream`:
//!
//! ```text
//! 0x000000:          0001 010f - NPU_SET_IFM_REGION                 1, region = 1
//! 0x000004: 00000010 0000 4000 - NPU_SET_IFM_BASE0                  0, addr = 0x10
//! ```
//!
//! Columns: byte offset (`{:#08x}`), payload (8 hex digits, blank for cmd0), param (4 hex),
//! code (4 hex), `-`, name padded to 30, param in decimal (width 5), then the decoded
//! fields of the parameter/payload. Field names and enum spellings follow what Vela 5.2.0
//! prints (they are those of Arm's `ethosu55_interface.h`); for commands Vela never emitted in
//! the reference outputs the field split follows that header and is not checked against Vela.

use core::fmt;

use super::decode::Command;
use super::opcode::Opcode;

/// The listing line for one command (no trailing newline): `format!("{}", cmd)` gives the
/// same text.
#[derive(Debug, Clone, Copy)]
pub struct Listing<'a>(pub &'a Command);

/// Only the decoded fields part of a listing line (`", region = 1"`), empty for commands
/// without fields (`NPU_OP_CONV`, `NPU_OP_DEPTHWISE`, `NPU_OP_DMA_START`).
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a>(pub &'a Command);

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Listing(self).fmt(f)
    }
}

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        write!(f, "{:#08x}:", c.offset)?;
        match c.payload {
            Some(p) => write!(f, " {p:08x}")?,
            None => f.write_str("         ")?,
        }
        write!(
            f,
            " {:04x} {:04x} - {:30} {:5}",
            c.param,
            c.code,
            c.name(),
            c.param
        )?;
        Fields(c).fmt(f)
    }
}

/// An enumerated field value: the name when the value is known, else the number.
struct EnumVal(&'static [(u16, &'static str)], u16);

impl fmt::Display for EnumVal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.iter().find(|(v, _)| *v == self.1) {
            Some((_, name)) => f.write_str(name),
            None => write!(f, "{}", self.1),
        }
    }
}

const ACTIVATION_TYPE: &[(u16, &str)] = &[
    (0, "ACTIVATION_TYPE_UNSIGNED"),
    (1, "ACTIVATION_TYPE_SIGNED"),
];
const ACTIVATION_PRECISION: &[(u16, &str)] = &[
    (0, "ACTIVATION_PRECISION_B8"),
    (1, "ACTIVATION_PRECISION_B16"),
    (2, "ACTIVATION_PRECISION_B32"),
    (3, "ACTIVATION_PRECISION_B64"),
];
const ACTIVATION_FORMAT: &[(u16, &str)] = &[
    (0, "ACTIVATION_FORMAT_NHWC"),
    (1, "ACTIVATION_FORMAT_NHCWB16"),
];
const IFM_SCALE_MODE: &[(u16, &str)] = &[
    (0, "IFM_SCALE_MODE_OPA_OPB_16"),
    (1, "IFM_SCALE_MODE_OPA_32"),
    (2, "IFM_SCALE_MODE_OPB_32"),
];
const OFM_SCALE_MODE: &[(u16, &str)] = &[
    (0, "OFM_SCALE_MODE_PER_CHANNEL"),
    (1, "OFM_SCALE_MODE_GLOBAL"),
];
const ROUND_MODE: &[(u16, &str)] = &[
    (0, "ROUND_MODE_DBL"),
    (1, "ROUND_MODE_TRUNCATE"),
    (2, "ROUND_MODE_NATURAL"),
];
const UPSCALE_MODE: &[(u16, &str)] = &[
    (0, "IFM_UPSCALE_MODE_NONE"),
    (1, "IFM_UPSCALE_MODE_NEAREST"),
    (2, "IFM_UPSCALE_MODE_ZEROS"),
];
const POOLING_MODE: &[(u16, &str)] = &[
    (0, "POOLING_MODE_MAX"),
    (1, "POOLING_MODE_AVERAGE"),
    (2, "POOLING_MODE_REDUCE_SUM"),
];
const ELEMENTWISE_MODE: &[(u16, &str)] = &[
    (0, "ELEMENTWISE_MODE_MUL"),
    (1, "ELEMENTWISE_MODE_ADD"),
    (2, "ELEMENTWISE_MODE_SUB"),
    (3, "ELEMENTWISE_MODE_MIN"),
    (4, "ELEMENTWISE_MODE_MAX"),
    (5, "ELEMENTWISE_MODE_LRELU"),
    (6, "ELEMENTWISE_MODE_ABS"),
    (7, "ELEMENTWISE_MODE_CLZ"),
    (8, "ELEMENTWISE_MODE_SHR"),
    (9, "ELEMENTWISE_MODE_SHL"),
];
const WEIGHT_ORDER: &[(u16, &str)] = &[
    (0, "WEIGHT_ORDER_DEPTH_FIRST"),
    (1, "WEIGHT_ORDER_PART_KERNEL_FIRST"),
];
const KERNEL_DILATION: &[(u16, &str)] = &[(0, "KERNEL_DILATION_NONE"), (1, "KERNEL_DILATION_X2")];
const KERNEL_DECOMPOSITION: &[(u16, &str)] = &[
    (0, "KERNEL_DECOMPOSITION_D8X8"),
    (1, "KERNEL_DECOMPOSITION_D4X4"),
];
const PARALLEL_MODE: &[(u16, &str)] = &[
    (0, "PARALLEL_MODE_SINGLE_CORE"),
    (1, "PARALLEL_MODE_DUAL_CORE_DEPTH"),
];
const ACC_FORMAT: &[(u16, &str)] = &[
    (0, "ACC_FORMAT_I32"),
    (1, "ACC_FORMAT_I40"),
    (2, "ACC_FORMAT_F16"),
];
const ACTIVATION_FUNCTION: &[(u16, &str)] = &[
    (0, "ACTIVATION_FUNCTION_RELU"),
    (3, "ACTIVATION_FUNCTION_TANH"),
    (4, "ACTIVATION_FUNCTION_SIGMOID"),
    (16, "ACTIVATION_FUNCTION_TABLE_0"),
    (17, "ACTIVATION_FUNCTION_TABLE_1"),
    (18, "ACTIVATION_FUNCTION_TABLE_2"),
    (19, "ACTIVATION_FUNCTION_TABLE_3"),
    (20, "ACTIVATION_FUNCTION_TABLE_4"),
    (21, "ACTIVATION_FUNCTION_TABLE_5"),
    (22, "ACTIVATION_FUNCTION_TABLE_6"),
    (23, "ACTIVATION_FUNCTION_TABLE_7"),
];
const CLIP_RANGE: &[(u16, &str)] = &[
    (0, "ACTIVATION_CLIP_RANGE_OFM_PRECISION"),
    (2, "ACTIVATION_CLIP_RANGE_FORCE_UINT8"),
    (3, "ACTIVATION_CLIP_RANGE_FORCE_INT8"),
    (5, "ACTIVATION_CLIP_RANGE_FORCE_INT16"),
];
const DMA_REGION_MODE: &[(u16, &str)] = &[
    (0, "DMA_REGION_MODE_EXTERNAL"),
    (1, "DMA_REGION_MODE_INTERNAL"),
];
const DMA_STRIDE_MODE: &[(u16, &str)] = &[
    (0, "DMA_STRIDE_MODE_D1"),
    (1, "DMA_STRIDE_MODE_D2"),
    (2, "DMA_STRIDE_MODE_D3"),
];
const BROADCAST_MODE: &[(u16, &str)] =
    &[(0, "BROADCAST_MODE_DISABLE"), (1, "BROADCAST_MODE_ENABLE")];
const OPERAND_ORDER: &[(u16, &str)] = &[
    (0, "IFM2_OPERAND_ORDER_ORDER_B"),
    (1, "IFM2_OPERAND_ORDER_ORDER_A"),
];

/// `(v >> shift) & mask`.
const fn bits(v: u16, shift: u32, mask: u16) -> u16 {
    (v >> shift) & mask
}

impl fmt::Display for Fields<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Opcode as O;
        let c = self.0;
        let v = c.param;
        let p = c.payload.unwrap_or(0);
        match c.opcode() {
            O::OpStop | O::OpIrq => write!(f, ", mask = {v}"),
            O::OpConv | O::OpDepthwise | O::OpDmaStart | O::Unknown => Ok(()),
            O::OpPool => write!(f, ", pooling_mode = {}", EnumVal(POOLING_MODE, v)),
            O::OpElementwise => write!(f, ", elementwise_mode = {}", EnumVal(ELEMENTWISE_MODE, v)),
            O::OpDmaWait => write!(f, ", k = {v}"),
            O::OpKernelWait => write!(f, ", n = {v}"),
            O::OpPmuMask => write!(f, ", enable = {v}"),
            O::SetIfmPadTop | O::SetIfmPadLeft | O::SetIfmPadRight | O::SetIfmPadBottom => {
                write!(f, ", pad = {v}")
            }
            O::SetIfmDepthM1 | O::SetOfmDepthM1 | O::SetOfmBlkDepthM1 => {
                write!(f, ", depth_m1 = {v}")
            }
            O::SetIfmWidth0M1
            | O::SetIfm2Width0M1
            | O::SetOfmWidthM1
            | O::SetOfmWidth0M1
            | O::SetOfmBlkWidthM1
            | O::SetKernelWidthM1 => write!(f, ", width_m1 = {v}"),
            O::SetIfmHeight0M1
            | O::SetIfmHeight1M1
            | O::SetIfm2Height0M1
            | O::SetIfm2Height1M1
            | O::SetOfmHeightM1
            | O::SetOfmHeight0M1
            | O::SetOfmHeight1M1
            | O::SetOfmBlkHeightM1
            | O::SetKernelHeightM1 => write!(f, ", height_m1 = {v}"),
            O::SetIfmPrecision => write!(
                f,
                ", activation_type = {}, activation_precision = {}, activation_format = {}, scale_mode = {}, round_mode = {}",
                EnumVal(ACTIVATION_TYPE, bits(v, 0, 1)),
                EnumVal(ACTIVATION_PRECISION, bits(v, 2, 3)),
                EnumVal(ACTIVATION_FORMAT, bits(v, 6, 3)),
                EnumVal(IFM_SCALE_MODE, bits(v, 8, 3)),
                EnumVal(ROUND_MODE, bits(v, 14, 3)),
            ),
            O::SetIfm2Precision => write!(
                f,
                ", activation_type = {}, activation_precision = {}, activation_format = {}",
                EnumVal(ACTIVATION_TYPE, bits(v, 0, 1)),
                EnumVal(ACTIVATION_PRECISION, bits(v, 2, 3)),
                EnumVal(ACTIVATION_FORMAT, bits(v, 6, 3)),
            ),
            O::SetOfmPrecision => write!(
                f,
                ", activation_type = {}, activation_precision = {}, activation_format = {}, scale_mode = {}, round_mode = {}",
                EnumVal(ACTIVATION_TYPE, bits(v, 0, 1)),
                EnumVal(ACTIVATION_PRECISION, bits(v, 1, 3)),
                EnumVal(ACTIVATION_FORMAT, bits(v, 6, 3)),
                EnumVal(OFM_SCALE_MODE, bits(v, 8, 1)),
                EnumVal(ROUND_MODE, bits(v, 14, 3)),
            ),
            O::SetIfmUpscale => write!(f, ", mode = {}", EnumVal(UPSCALE_MODE, bits(v, 0, 3))),
            O::SetIfmZeroPoint | O::SetIfm2ZeroPoint | O::SetOfmZeroPoint => {
                write!(f, ", zero_point = {v}")
            }
            O::SetIfmIbEnd => write!(f, ", ib_end = {v}"),
            O::SetIfm2IbStart => write!(f, ", ib_start = {v}"),
            O::SetAbStart => write!(f, ", ab_start = {v}"),
            O::SetBlockdep => write!(f, ", blockdep = {v}"),
            O::SetIfmRegion
            | O::SetIfm2Region
            | O::SetOfmRegion
            | O::SetWeightRegion
            | O::SetScaleRegion => {
                write!(f, ", region = {}", bits(v, 0, 7))
            }
            O::SetKernelStride => write!(
                f,
                ", stride_x_lsb = {}, stride_y_lsb = {}, weight_order = {}, dilation_x = {}, dilation_y = {}, decomposition = {}, stride_x_msb = {}, stride_y_msb = {}",
                bits(v, 0, 1),
                bits(v, 1, 1),
                EnumVal(WEIGHT_ORDER, bits(v, 2, 1)),
                EnumVal(KERNEL_DILATION, bits(v, 3, 1)),
                EnumVal(KERNEL_DILATION, bits(v, 4, 1)),
                EnumVal(KERNEL_DECOMPOSITION, bits(v, 5, 1)),
                bits(v, 6, 1),
                bits(v, 7, 1),
            ),
            O::SetParallelMode => write!(f, ", parallel_mode = {}", EnumVal(PARALLEL_MODE, v)),
            O::SetAccFormat => write!(f, ", acc_format = {}", EnumVal(ACC_FORMAT, v)),
            O::SetActivation => write!(
                f,
                ", activation_function = {}, activation_clip_range = {}",
                EnumVal(ACTIVATION_FUNCTION, bits(v, 0, 0x1F)),
                EnumVal(CLIP_RANGE, bits(v, 12, 7)),
            ),
            O::SetActivationMin | O::SetActivationMax => write!(f, ", clip_boundary = {v}"),
            O::SetDma0SrcRegion | O::SetDma0DstRegion => write!(
                f,
                ", region = {}, region_mode = {}, stride_mode = {}",
                bits(v, 0, 7),
                EnumVal(DMA_REGION_MODE, bits(v, 8, 1)),
                EnumVal(DMA_STRIDE_MODE, bits(v, 9, 3)),
            ),
            O::SetDma0Size0 | O::SetDma0Size1 => write!(f, ", size = {v}"),
            O::SetIfm2Broadcast => write!(
                f,
                ", broadcast_h = {}, broadcast_w = {}, broadcast_c = {}, operand_order = {}, broadcast_constant = {}",
                EnumVal(BROADCAST_MODE, bits(v, 0, 1)),
                EnumVal(BROADCAST_MODE, bits(v, 1, 1)),
                EnumVal(BROADCAST_MODE, bits(v, 2, 1)),
                EnumVal(OPERAND_ORDER, bits(v, 6, 1)),
                EnumVal(BROADCAST_MODE, bits(v, 7, 1)),
            ),
            O::SetIfm2Scalar => write!(f, ", scalar = {v}"),
            O::SetIfmBase0
            | O::SetIfmBase1
            | O::SetIfmBase2
            | O::SetIfmBase3
            | O::SetIfmStrideX
            | O::SetIfmStrideY
            | O::SetIfmStrideC
            | O::SetOfmBase0
            | O::SetOfmBase1
            | O::SetOfmBase2
            | O::SetOfmBase3
            | O::SetOfmStrideX
            | O::SetOfmStrideY
            | O::SetOfmStrideC
            | O::SetWeightBase
            | O::SetScaleBase
            | O::SetDma0Src
            | O::SetDma0Dst
            | O::SetDma0Len
            | O::SetDma0Skip0
            | O::SetDma0Skip1
            | O::SetIfm2Base0
            | O::SetIfm2Base1
            | O::SetIfm2Base2
            | O::SetIfm2Base3
            | O::SetIfm2StrideX
            | O::SetIfm2StrideY
            | O::SetIfm2StrideC
            | O::SetWeight1Base
            | O::SetScale1Base => write!(f, ", addr = {p:#x}"),
            O::SetWeightLength | O::SetScaleLength | O::SetWeight1Length | O::SetScale1Length => {
                write!(f, ", length = {p}")
            }
            O::SetOfmScale | O::SetOpaScale => write!(f, ", shift = {v}, scale = {p}"),
            O::SetOpbScale => write!(f, ", scale = {p}"),
        }
    }
}
