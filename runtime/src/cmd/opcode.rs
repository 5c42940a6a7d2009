//! The Ethos-U55 command opcodes, with Vela's `NPU_*` names.
//!
//! The table is the union of the opcodes listed in `shared/spec/ethos-u55.md` and the ones in
//! Vela 5.2.0's `ethos_u55_regs.py` (`cmd0` and `cmd1` enums), which adds
//! `NPU_SET_PARALLEL_MODE`, `NPU_SET_DMA0_SKIP0/1` and `NPU_SET_WEIGHT1_*`/`NPU_SET_SCALE1_*`.

/// Bit 14 of a command word's low half: set for 64-bit (cmd1) commands, whose second word is a
/// 32-bit payload.
pub const CMD1_FLAG: u16 = 0x4000;

/// Mask of the 10-bit opcode inside the 16-bit command code.
pub const OPCODE_MASK: u16 = 0x03FF;

macro_rules! opcodes {
    (
        cmd0 { $( $v0:ident = $c0:literal, $n0:literal; )* }
        cmd1 { $( $v1:ident = $c1:literal, $n1:literal; )* }
    ) => {
        /// Every known command. The discriminant is a dense index (see [`Opcode::index`]);
        /// [`Opcode::code`] gives the 16-bit command code (`0x4000 | op` for cmd1).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode {
            $(
                #[doc = $n0]
                $v0,
            )*
            $(
                #[doc = $n1]
                $v1,
            )*
            /// A code that is neither a known cmd0 nor a known cmd1 opcode (only reachable
            /// through a hand-made [`Command`](super::Command); the decoder rejects these).
            Unknown,
        }

        impl Opcode {
            /// Every known opcode, in index order (without [`Opcode::Unknown`]).
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$v0, )* $( Opcode::$v1, )* ];

            /// Number of known opcodes: valid indices are `0..COUNT`.
            pub const COUNT: usize = Self::ALL.len();

            /// The opcode for a 16-bit command code (bits 0..15 of the first command word),
            /// or `None`. Bit 14 picks the table first, since cmd0 and cmd1 numbers overlap;
            /// bits 10..13 and 15 must be zero.
            #[must_use]
            pub const fn from_code(code: u16) -> Option<Opcode> {
                if code & !(CMD1_FLAG | OPCODE_MASK) != 0 {
                    return None;
                }
                let op = code & OPCODE_MASK;
                if code & CMD1_FLAG == 0 {
                    match op {
                        $( $c0 => Some(Opcode::$v0), )*
                        _ => None,
                    }
                } else {
                    match op {
                        $( $c1 => Some(Opcode::$v1), )*
                        _ => None,
                    }
                }
            }

            /// The 16-bit command code: the 10-bit opcode, with `0x4000` set for cmd1.
            /// [`Opcode::Unknown`] gives `0xFFFF`.
            #[must_use]
            pub const fn code(self) -> u16 {
                match self {
                    $( Opcode::$v0 => $c0, )*
                    $( Opcode::$v1 => CMD1_FLAG | $c1, )*
                    Opcode::Unknown => 0xFFFF,
                }
            }

            /// Vela's name, e.g. `"NPU_SET_IFM_REGION"`; `"UNKNOWN"` for [`Opcode::Unknown`].
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $( Opcode::$v0 => $n0, )*
                    $( Opcode::$v1 => $n1, )*
                    Opcode::Unknown => "UNKNOWN",
                }
            }
        }
    };
}

opcodes! {
    cmd0 {
        OpStop = 0x000, "NPU_OP_STOP";
        OpIrq = 0x001, "NPU_OP_IRQ";
        OpConv = 0x002, "NPU_OP_CONV";
        OpDepthwise = 0x003, "NPU_OP_DEPTHWISE";
        OpPool = 0x005, "NPU_OP_POOL";
        OpElementwise = 0x006, "NPU_OP_ELEMENTWISE";
        OpDmaStart = 0x010, "NPU_OP_DMA_START";
        OpDmaWait = 0x011, "NPU_OP_DMA_WAIT";
        OpKernelWait = 0x012, "NPU_OP_KERNEL_WAIT";
        OpPmuMask = 0x013, "NPU_OP_PMU_MASK";
        SetIfmPadTop = 0x100, "NPU_SET_IFM_PAD_TOP";
        SetIfmPadLeft = 0x101, "NPU_SET_IFM_PAD_LEFT";
        SetIfmPadRight = 0x102, "NPU_SET_IFM_PAD_RIGHT";
        SetIfmPadBottom = 0x103, "NPU_SET_IFM_PAD_BOTTOM";
        SetIfmDepthM1 = 0x104, "NPU_SET_IFM_DEPTH_M1";
        SetIfmPrecision = 0x105, "NPU_SET_IFM_PRECISION";
        SetIfmUpscale = 0x107, "NPU_SET_IFM_UPSCALE";
        SetIfmZeroPoint = 0x109, "NPU_SET_IFM_ZERO_POINT";
        SetIfmWidth0M1 = 0x10A, "NPU_SET_IFM_WIDTH0_M1";
        SetIfmHeight0M1 = 0x10B, "NPU_SET_IFM_HEIGHT0_M1";
        SetIfmHeight1M1 = 0x10C, "NPU_SET_IFM_HEIGHT1_M1";
        SetIfmIbEnd = 0x10D, "NPU_SET_IFM_IB_END";
        SetIfmRegion = 0x10F, "NPU_SET_IFM_REGION";
        SetOfmWidthM1 = 0x111, "NPU_SET_OFM_WIDTH_M1";
        SetOfmHeightM1 = 0x112, "NPU_SET_OFM_HEIGHT_M1";
        SetOfmDepthM1 = 0x113, "NPU_SET_OFM_DEPTH_M1";
        SetOfmPrecision = 0x114, "NPU_SET_OFM_PRECISION";
        SetOfmBlkWidthM1 = 0x115, "NPU_SET_OFM_BLK_WIDTH_M1";
        SetOfmBlkHeightM1 = 0x116, "NPU_SET_OFM_BLK_HEIGHT_M1";
        SetOfmBlkDepthM1 = 0x117, "NPU_SET_OFM_BLK_DEPTH_M1";
        SetOfmZeroPoint = 0x118, "NPU_SET_OFM_ZERO_POINT";
        SetOfmWidth0M1 = 0x11A, "NPU_SET_OFM_WIDTH0_M1";
        SetOfmHeight0M1 = 0x11B, "NPU_SET_OFM_HEIGHT0_M1";
        SetOfmHeight1M1 = 0x11C, "NPU_SET_OFM_HEIGHT1_M1";
        SetOfmRegion = 0x11F, "NPU_SET_OFM_REGION";
        SetKernelWidthM1 = 0x120, "NPU_SET_KERNEL_WIDTH_M1";
        SetKernelHeightM1 = 0x121, "NPU_SET_KERNEL_HEIGHT_M1";
        SetKernelStride = 0x122, "NPU_SET_KERNEL_STRIDE";
        SetParallelMode = 0x123, "NPU_SET_PARALLEL_MODE";
        SetAccFormat = 0x124, "NPU_SET_ACC_FORMAT";
        SetActivation = 0x125, "NPU_SET_ACTIVATION";
        SetActivationMin = 0x126, "NPU_SET_ACTIVATION_MIN";
        SetActivationMax = 0x127, "NPU_SET_ACTIVATION_MAX";
        SetWeightRegion = 0x128, "NPU_SET_WEIGHT_REGION";
        SetScaleRegion = 0x129, "NPU_SET_SCALE_REGION";
        SetAbStart = 0x12D, "NPU_SET_AB_START";
        SetBlockdep = 0x12F, "NPU_SET_BLOCKDEP";
        SetDma0SrcRegion = 0x130, "NPU_SET_DMA0_SRC_REGION";
        SetDma0DstRegion = 0x131, "NPU_SET_DMA0_DST_REGION";
        SetDma0Size0 = 0x132, "NPU_SET_DMA0_SIZE0";
        SetDma0Size1 = 0x133, "NPU_SET_DMA0_SIZE1";
        SetIfm2Broadcast = 0x180, "NPU_SET_IFM2_BROADCAST";
        SetIfm2Scalar = 0x181, "NPU_SET_IFM2_SCALAR";
        SetIfm2Precision = 0x185, "NPU_SET_IFM2_PRECISION";
        SetIfm2ZeroPoint = 0x189, "NPU_SET_IFM2_ZERO_POINT";
        SetIfm2Width0M1 = 0x18A, "NPU_SET_IFM2_WIDTH0_M1";
        SetIfm2Height0M1 = 0x18B, "NPU_SET_IFM2_HEIGHT0_M1";
        SetIfm2Height1M1 = 0x18C, "NPU_SET_IFM2_HEIGHT1_M1";
        SetIfm2IbStart = 0x18D, "NPU_SET_IFM2_IB_START";
        SetIfm2Region = 0x18F, "NPU_SET_IFM2_REGION";
    }
    cmd1 {
        SetIfmBase0 = 0x000, "NPU_SET_IFM_BASE0";
        SetIfmBase1 = 0x001, "NPU_SET_IFM_BASE1";
        SetIfmBase2 = 0x002, "NPU_SET_IFM_BASE2";
        SetIfmBase3 = 0x003, "NPU_SET_IFM_BASE3";
        SetIfmStrideX = 0x004, "NPU_SET_IFM_STRIDE_X";
        SetIfmStrideY = 0x005, "NPU_SET_IFM_STRIDE_Y";
        SetIfmStrideC = 0x006, "NPU_SET_IFM_STRIDE_C";
        SetOfmBase0 = 0x010, "NPU_SET_OFM_BASE0";
        SetOfmBase1 = 0x011, "NPU_SET_OFM_BASE1";
        SetOfmBase2 = 0x012, "NPU_SET_OFM_BASE2";
        SetOfmBase3 = 0x013, "NPU_SET_OFM_BASE3";
        SetOfmStrideX = 0x014, "NPU_SET_OFM_STRIDE_X";
        SetOfmStrideY = 0x015, "NPU_SET_OFM_STRIDE_Y";
        SetOfmStrideC = 0x016, "NPU_SET_OFM_STRIDE_C";
        SetWeightBase = 0x020, "NPU_SET_WEIGHT_BASE";
        SetWeightLength = 0x021, "NPU_SET_WEIGHT_LENGTH";
        SetScaleBase = 0x022, "NPU_SET_SCALE_BASE";
        SetScaleLength = 0x023, "NPU_SET_SCALE_LENGTH";
        SetOfmScale = 0x024, "NPU_SET_OFM_SCALE";
        SetOpaScale = 0x025, "NPU_SET_OPA_SCALE";
        SetOpbScale = 0x026, "NPU_SET_OPB_SCALE";
        SetDma0Src = 0x030, "NPU_SET_DMA0_SRC";
        SetDma0Dst = 0x031, "NPU_SET_DMA0_DST";
        SetDma0Len = 0x032, "NPU_SET_DMA0_LEN";
        SetDma0Skip0 = 0x033, "NPU_SET_DMA0_SKIP0";
        SetDma0Skip1 = 0x034, "NPU_SET_DMA0_SKIP1";
        SetIfm2Base0 = 0x080, "NPU_SET_IFM2_BASE0";
        SetIfm2Base1 = 0x081, "NPU_SET_IFM2_BASE1";
        SetIfm2Base2 = 0x082, "NPU_SET_IFM2_BASE2";
        SetIfm2Base3 = 0x083, "NPU_SET_IFM2_BASE3";
        SetIfm2StrideX = 0x084, "NPU_SET_IFM2_STRIDE_X";
        SetIfm2StrideY = 0x085, "NPU_SET_IFM2_STRIDE_Y";
        SetIfm2StrideC = 0x086, "NPU_SET_IFM2_STRIDE_C";
        SetWeight1Base = 0x090, "NPU_SET_WEIGHT1_BASE";
        SetWeight1Length = 0x091, "NPU_SET_WEIGHT1_LENGTH";
        SetScale1Base = 0x092, "NPU_SET_SCALE1_BASE";
        SetScale1Length = 0x093, "NPU_SET_SCALE1_LENGTH";
    }
}

impl Opcode {
    /// Dense index `0..Opcode::COUNT` (`COUNT` for [`Opcode::Unknown`]), for register files.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// True for 64-bit (cmd1) commands, which carry a payload word.
    #[must_use]
    pub const fn has_payload(self) -> bool {
        !matches!(self, Opcode::Unknown) && self.code() & CMD1_FLAG != 0
    }

    /// True for the operations that touch memory: CONV, DEPTHWISE, POOL, ELEMENTWISE and
    /// DMA_START.
    #[must_use]
    pub const fn touches_memory(self) -> bool {
        matches!(
            self,
            Opcode::OpConv
                | Opcode::OpDepthwise
                | Opcode::OpPool
                | Opcode::OpElementwise
                | Opcode::OpDmaStart
        )
    }
}

impl core::fmt::Display for Opcode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_indices_are_dense() {
        for (i, op) in Opcode::ALL.iter().enumerate() {
            assert_eq!(op.index(), i);
            assert_eq!(Opcode::from_code(op.code()), Some(*op), "{}", op.name());
        }
        assert_eq!(Opcode::Unknown.index(), Opcode::COUNT);
    }

    #[test]
    fn cmd0_and_cmd1_overlap_is_resolved_by_bit_14() {
        assert_eq!(Opcode::from_code(0x0000), Some(Opcode::OpStop));
        assert_eq!(Opcode::from_code(0x4000), Some(Opcode::SetIfmBase0));
        assert_eq!(Opcode::from_code(0x0020), None);
        assert_eq!(Opcode::from_code(0x4020), Some(Opcode::SetWeightBase));
        // Reserved control / must-be-zero bits.
        assert_eq!(Opcode::from_code(0x8000), None);
        assert_eq!(Opcode::from_code(0x0400), None);
        assert_eq!(Opcode::SetIfmRegion.name(), "NPU_SET_IFM_REGION");
        assert!(Opcode::SetDma0Len.has_payload());
        assert!(!Opcode::SetDma0SrcRegion.has_payload());
    }
}
