//! Register state of a command stream, and the memory each operation touches.
//!
//! [`StreamState`] keeps the last value written to every register (params of cmd0 commands,
//! params and payloads of cmd1 commands; everything starts at 0, the reset value). At each
//! memory-touching operation (`NPU_OP_CONV`, `NPU_OP_DEPTHWISE`, `NPU_OP_POOL`,
//! `NPU_OP_ELEMENTWISE`, `NPU_OP_DMA_START`) [`StreamState::apply`] returns an
//! [`Operation`] listing the byte ranges it reads and writes, relative to a region's base.
//!
//! # Formulas
//!
//! All arithmetic is checked u64; on top of that an access whose end passes 2^32 is an
//! overflow, since the U55 forms addresses as 32-bit `base pointer + offset`. An access that
//! overflows is left out of [`Operation::accesses`] and flagged in
//! [`Operation::overflowed`].
//!
//! **Region index.** `*_REGION` params: bits [2:0] (one of the 8 BASEP slots); the other bits
//! are reserved and ignored, as the hardware does. In `NPU_SET_DMA0_SRC_REGION` /
//! `NPU_SET_DMA0_DST_REGION`, bit 8 (INTERNAL) means the NPU's internal SHRAM: that side of
//! the transfer is an access with [`Access::shram`] set, never a region access (Vela uses it
//! for lookup-table loads and prints "region 3"); bits [10:9] are the stride mode (only 1D,
//! 0, is understood; see [`Operation::dma_stride_mode`]).
//!
//! **Element size and layout.** From the precision registers (Vela's
//! `register_command_stream_generator.generate_ifm_precision` / `generate_ofm_precision`):
//! IFM/IFM2_PRECISION bit 0 signed, bits [3:2] size (0: 1 byte, 1: 2, 2: 4, 3: 8), bits
//! [7:6] format (0 NHWC, 1 NHCWB16). OFM_PRECISION: bits [2:1] size, bits [7:6] format. A
//! reserved format value (2, 3) is given the larger extent of the two layouts.
//!
//! **Feature-map extent.** As in Vela's `register_command_stream_util.get_address`, the
//! element (y, x, c) of a tile with base `B` (y, x relative to the tile's origin) is at
//! `B + y*STRIDE_Y + x*SX + (c / 16)*SC + (c % 16)*E`, where E is the element size and
//! NHWC: `SX = STRIDE_X`, `SC = 16*E` (so the channel term is `c*E`; STRIDE_C is unused);
//! NHCWB16: `SX = 16*E`, `SC = STRIDE_C`. Strides are unsigned, so the lowest byte of a
//! tile is `B` and the highest is at the last row, column and channel. Conservatively a
//! NHCWB16 tile's last 16-channel brick is counted whole (Vela allocates NHCWB16 depth
//! rounded up to 16), giving for a tile of h rows, w columns, C channels:
//!
//! * NHWC: `len = (h-1)*STRIDE_Y + (w-1)*STRIDE_X + C*E`
//! * NHCWB16: `len = (h-1)*STRIDE_Y + (w-1)*16*E + ((C-1)/16)*STRIDE_C + 16*E`
//!
//! Tiles, for a feature map of H x W with `h0 = HEIGHT0_M1+1`, `h1 = HEIGHT1_M1+1`,
//! `w0 = WIDTH0_M1+1`: tile 0 rows `[0, min(H,h0))` x cols `[0, min(W,w0))`; tile 1 (only
//! if `W > w0`) rows `[0, min(H,h1))` x cols `[w0, W)`; tile 2 (only if `H > h0`) rows
//! `[h0, H)` x cols `[0, min(W,w0))`; tile 3 (only if `W > w0` and `H > h1`) rows `[h1, H)`
//! x cols `[w0, W)` (the split of `get_address`: left of w0 the row split is h0, right of it
//! h1). Each used tile is one access starting at its BASEn.
//!
//! **Shapes.** OFM: `H = OFM_HEIGHT_M1+1`, `W = OFM_WIDTH_M1+1`, `C = OFM_DEPTH_M1+1`.
//! IFM of CONV / DEPTHWISE / POOL: the IFM size is not a register; the hardware reads the
//! rows and columns the kernel windows cover, less the padding:
//! `H = (OFM_H-1)*stride_y + KERNEL_HEIGHT_M1 + 1 - PAD_TOP - PAD_BOTTOM` (at least 1),
//! likewise W with PAD_LEFT/PAD_RIGHT, halved rounding up when IFM_UPSCALE is not NONE
//! (the IFM is upscaled 2x before the kernel). `KERNEL_HEIGHT_M1` already holds the
//! *dilated* extent less one (Vela's `register_command_stream_generator`:
//! `dilation_y * (kernel.height - 1)`), so the dilation is not applied again; stride from
//! KERNEL_STRIDE (`stride_x = (bit6 << 1 | bit0) + 1`, `stride_y = (bit7 << 1 | bit1) +
//! 1`; dilation bits 3 and 4 only space the taps within that extent). Channels:
//! CONV `IFM_DEPTH_M1+1`; DEPTHWISE and POOL `max(IFM_DEPTH_M1+1, OFM depth)`.
//! ELEMENTWISE: IFM is `OFM_H x OFM_W x max(IFM_DEPTH_M1+1, OFM depth)`; IFM2 the same
//! except that each broadcast axis of IFM2_BROADCAST (bits 0 H, 1 W, 2 C) is 1; there is no
//! IFM2 access for a scalar IFM2 (bit 7) or for the unary modes LRELU, ABS, CLZ.
//!
//! **Weights and scales** (CONV and DEPTHWISE only): `[WEIGHT_BASE, +WEIGHT_LENGTH)` in the
//! WEIGHT_REGION and `[SCALE_BASE, +SCALE_LENGTH)` in the SCALE_REGION.
//!
//! **DMA**: `[DMA0_SRC, +DMA0_LEN)` read, `[DMA0_DST, +DMA0_LEN)` written.
//!
//! Zero-length accesses (e.g. WEIGHT_LENGTH 0) are not listed.

use npuschema_generated::ethos_u55_cmd::{
    DmaRegionMode, SetDma0DstRegionCmd, SetDma0SrcRegionCmd, SetIfm2PrecisionCmd, SetIfm2RegionCmd,
    SetIfmPrecisionCmd, SetIfmRegionCmd, SetIfmUpscaleCmd, SetKernelStrideCmd, SetOfmPrecisionCmd,
    SetOfmRegionCmd, SetScaleRegionCmd, SetWeightRegionCmd,
};

use super::decode::Command;
use super::opcode::Opcode;

/// What an access is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessKind {
    /// Input feature map (read).
    Ifm,
    /// Second input feature map of a binary elementwise operation (read).
    Ifm2,
    /// Output feature map (written).
    Ofm,
    /// Encoded weights (read).
    Weights,
    /// Scale and bias data (read).
    Scales,
    /// DMA source (read).
    DmaSrc,
    /// DMA destination (written).
    DmaDst,
}

impl AccessKind {
    /// Every kind, in declaration order.
    pub const ALL: [AccessKind; 7] = [
        AccessKind::Ifm,
        AccessKind::Ifm2,
        AccessKind::Ofm,
        AccessKind::Weights,
        AccessKind::Scales,
        AccessKind::DmaSrc,
        AccessKind::DmaDst,
    ];

    /// Stable lower-case name: `ifm`, `ifm2`, `ofm`, `weights`, `scales`, `dma-src`,
    /// `dma-dst`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AccessKind::Ifm => "ifm",
            AccessKind::Ifm2 => "ifm2",
            AccessKind::Ofm => "ofm",
            AccessKind::Weights => "weights",
            AccessKind::Scales => "scales",
            AccessKind::DmaSrc => "dma-src",
            AccessKind::DmaDst => "dma-dst",
        }
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl core::fmt::Display for AccessKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.pad(self.name())
    }
}

/// One byte range an operation touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Access {
    /// What the range is for.
    pub kind: AccessKind,
    /// Region index (BASEP slot, 0..=7). When [`Access::shram`] is set this is the raw
    /// region field of the DMA command and means nothing.
    pub region: u8,
    /// First byte, relative to the region's base (or SHRAM offset when `shram`).
    pub start: u64,
    /// Length in bytes (never 0).
    pub len: u64,
    /// True for writes (OFM, DMA destination).
    pub write: bool,
    /// True when the range is in the NPU's internal SHRAM (DMA INTERNAL mode, bit 8 of the
    /// DMA region param): not a region access; never checked against, or bound to, a region.
    pub shram: bool,
}

impl Access {
    /// One past the last byte (`start + len`; accesses are built so this cannot overflow and
    /// stays within 2^32).
    #[must_use]
    pub const fn end(&self) -> u64 {
        self.start.saturating_add(self.len)
    }
}

/// The most accesses one operation makes: 4 tiles each of IFM, IFM2 and OFM, plus weights
/// and scales.
pub const MAX_ACCESSES: usize = 14;

/// Exclusive upper bound of an access's end: the U55 forms addresses as 32-bit
/// `base + offset`.
pub const ADDRESS_LIMIT: u64 = 1 << 32;

/// A memory-touching operation and what it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    /// Byte offset of the operation command in the stream.
    pub offset: u32,
    /// The operation (`NPU_OP_CONV`, ... `NPU_OP_DMA_START`).
    pub opcode: Opcode,
    accesses: [Access; MAX_ACCESSES],
    count: u8,
    overflow_mask: u8,
    /// For `NPU_OP_DMA_START`: the stride mode of the source and destination region params
    /// (bits `[10:9]`; 0 = 1D). Anything else is a 2D/3D transfer the U55 does not support; its
    /// accesses are still computed as 1D `DMA0_LEN` bytes. `(0, 0)` for other operations.
    pub dma_stride_mode: (u8, u8),
}

impl Operation {
    fn new(offset: u32, opcode: Opcode) -> Self {
        const NONE: Access = Access {
            kind: AccessKind::Ifm,
            region: 0,
            start: 0,
            len: 0,
            write: false,
            shram: false,
        };
        Operation {
            offset,
            opcode,
            accesses: [NONE; MAX_ACCESSES],
            count: 0,
            overflow_mask: 0,
            dma_stride_mode: (0, 0),
        }
    }

    /// The accesses, in a fixed order (IFM tiles, IFM2 tiles, OFM tiles, weights, scales;
    /// or DMA source, destination).
    #[must_use]
    pub fn accesses(&self) -> &[Access] {
        self.accesses
            .get(..usize::from(self.count))
            .unwrap_or_default()
    }

    /// The kinds whose extent computation overflowed (u64, or past 2^32); those accesses are
    /// not in [`Operation::accesses`].
    pub fn overflowed(&self) -> impl Iterator<Item = AccessKind> + '_ {
        AccessKind::ALL
            .into_iter()
            .filter(|k| self.overflow_mask & k.bit() != 0)
    }

    /// True if any extent computation overflowed.
    #[must_use]
    pub fn has_overflow(&self) -> bool {
        self.overflow_mask != 0
    }

    fn push(
        &mut self,
        kind: AccessKind,
        region: u8,
        start: u64,
        len: Option<u64>,
        write: bool,
        shram: bool,
    ) {
        let Some(len) = len else {
            self.overflow_mask |= kind.bit();
            return;
        };
        if len == 0 {
            return;
        }
        match start.checked_add(len) {
            Some(end) if end <= ADDRESS_LIMIT => {}
            _ => {
                self.overflow_mask |= kind.bit();
                return;
            }
        }
        if let Some(slot) = self.accesses.get_mut(usize::from(self.count)) {
            *slot = Access {
                kind,
                region,
                start,
                len,
                write,
                shram,
            };
            self.count = self.count.saturating_add(1);
        }
    }
}

/// Layout of a feature map in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Channels innermost.
    Nhwc,
    /// Bricks of 16 channels.
    Nhcwb16,
    /// A reserved format value (2 or 3).
    Reserved(u8),
}

/// The registers of one feature map (IFM, IFM2 or OFM).
#[derive(Debug, Clone, Copy)]
struct FmRegs {
    region: Opcode,
    bases: [Opcode; 4],
    stride_x: Opcode,
    stride_y: Opcode,
    stride_c: Opcode,
    height0_m1: Opcode,
    height1_m1: Opcode,
    width0_m1: Opcode,
    precision: Opcode,
    kind: AccessKind,
}

const IFM: FmRegs = FmRegs {
    region: Opcode::SetIfmRegion,
    bases: [
        Opcode::SetIfmBase0,
        Opcode::SetIfmBase1,
        Opcode::SetIfmBase2,
        Opcode::SetIfmBase3,
    ],
    stride_x: Opcode::SetIfmStrideX,
    stride_y: Opcode::SetIfmStrideY,
    stride_c: Opcode::SetIfmStrideC,
    height0_m1: Opcode::SetIfmHeight0M1,
    height1_m1: Opcode::SetIfmHeight1M1,
    width0_m1: Opcode::SetIfmWidth0M1,
    precision: Opcode::SetIfmPrecision,
    kind: AccessKind::Ifm,
};

const IFM2: FmRegs = FmRegs {
    region: Opcode::SetIfm2Region,
    bases: [
        Opcode::SetIfm2Base0,
        Opcode::SetIfm2Base1,
        Opcode::SetIfm2Base2,
        Opcode::SetIfm2Base3,
    ],
    stride_x: Opcode::SetIfm2StrideX,
    stride_y: Opcode::SetIfm2StrideY,
    stride_c: Opcode::SetIfm2StrideC,
    height0_m1: Opcode::SetIfm2Height0M1,
    height1_m1: Opcode::SetIfm2Height1M1,
    width0_m1: Opcode::SetIfm2Width0M1,
    precision: Opcode::SetIfm2Precision,
    kind: AccessKind::Ifm2,
};

const OFM: FmRegs = FmRegs {
    region: Opcode::SetOfmRegion,
    bases: [
        Opcode::SetOfmBase0,
        Opcode::SetOfmBase1,
        Opcode::SetOfmBase2,
        Opcode::SetOfmBase3,
    ],
    stride_x: Opcode::SetOfmStrideX,
    stride_y: Opcode::SetOfmStrideY,
    stride_c: Opcode::SetOfmStrideC,
    height0_m1: Opcode::SetOfmHeight0M1,
    height1_m1: Opcode::SetOfmHeight1M1,
    width0_m1: Opcode::SetOfmWidth0M1,
    precision: Opcode::SetOfmPrecision,
    kind: AccessKind::Ofm,
};

/// A feature map's logical size (u64 so products never overflow before the checked maths).
#[derive(Debug, Clone, Copy)]
struct Shape {
    h: u64,
    w: u64,
    c: u64,
}

/// Elementwise modes with one input (Vela's `UNARY_ELEMWISE_OPS`): LRELU, ABS, CLZ.
const UNARY_ELEMENTWISE: [u16; 3] = [5, 6, 7];

/// Register file of a command stream; see the module documentation.
#[derive(Debug, Clone)]
pub struct StreamState {
    params: [u16; Opcode::COUNT],
    payloads: [u32; Opcode::COUNT],
}

impl Default for StreamState {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamState {
    /// All registers at their reset value, 0.
    #[must_use]
    pub const fn new() -> Self {
        StreamState {
            params: [0; Opcode::COUNT],
            payloads: [0; Opcode::COUNT],
        }
    }

    /// The last param written by command `op` (0 if never written).
    #[must_use]
    pub fn param(&self, op: Opcode) -> u16 {
        self.params.get(op.index()).copied().unwrap_or(0)
    }

    /// The last payload written by cmd1 command `op` (0 if never written, or for cmd0).
    #[must_use]
    pub fn payload(&self, op: Opcode) -> u32 {
        self.payloads.get(op.index()).copied().unwrap_or(0)
    }

    /// Take one command: record its register write, and for a memory-touching operation
    /// return what it touches (computed from the registers as they are now).
    pub fn apply(&mut self, cmd: &Command) -> Option<Operation> {
        let op = cmd.opcode()?;
        if let Some(slot) = self.params.get_mut(op.index()) {
            *slot = cmd.param;
        }
        if let (Some(p), Some(slot)) = (cmd.payload, self.payloads.get_mut(op.index())) {
            *slot = p;
        }
        if super::opcode::touches_memory(op) {
            Some(self.operation(cmd.offset, op))
        } else {
            None
        }
    }

    /// What operation `op` would touch with the current registers (for `op` not a
    /// memory-touching operation: an empty list).
    #[must_use]
    pub fn operation(&self, offset: u32, op: Opcode) -> Operation {
        let mut out = Operation::new(offset, op);
        match op {
            Opcode::OpConv | Opcode::OpDepthwise | Opcode::OpPool => {
                let ofm = self.ofm_shape();
                let ifm_c = if op == Opcode::OpConv {
                    self.ifm_depth()
                } else {
                    self.ifm_depth().max(ofm.c)
                };
                let ifm = Shape {
                    h: self.ifm_extent(ofm.h, Axis::Y),
                    w: self.ifm_extent(ofm.w, Axis::X),
                    c: ifm_c,
                };
                self.push_fm(&mut out, &IFM, ifm, false);
                self.push_fm(&mut out, &OFM, ofm, true);
                if op != Opcode::OpPool {
                    self.push_linear(
                        &mut out,
                        AccessKind::Weights,
                        Opcode::SetWeightRegion,
                        Opcode::SetWeightBase,
                        Opcode::SetWeightLength,
                    );
                    self.push_linear(
                        &mut out,
                        AccessKind::Scales,
                        Opcode::SetScaleRegion,
                        Opcode::SetScaleBase,
                        Opcode::SetScaleLength,
                    );
                }
            }
            Opcode::OpElementwise => {
                let ofm = self.ofm_shape();
                let ifm = Shape {
                    c: self.ifm_depth().max(ofm.c),
                    ..ofm
                };
                self.push_fm(&mut out, &IFM, ifm, false);
                let mode = self.param(Opcode::OpElementwise);
                let bcast = self.param(Opcode::SetIfm2Broadcast);
                let scalar = bcast & 0x80 != 0;
                if !scalar && !UNARY_ELEMENTWISE.contains(&mode) {
                    let one_if = |bit: u16, v: u64| if bcast & bit != 0 { 1 } else { v };
                    let ifm2 = Shape {
                        h: one_if(1, ifm.h),
                        w: one_if(2, ifm.w),
                        c: one_if(4, ifm.c),
                    };
                    self.push_fm(&mut out, &IFM2, ifm2, false);
                }
                self.push_fm(&mut out, &OFM, ofm, true);
            }
            Opcode::OpDmaStart => {
                let src = self.param(Opcode::SetDma0SrcRegion);
                let dst = self.param(Opcode::SetDma0DstRegion);
                let len = u64::from(self.payload(Opcode::SetDma0Len));
                let (src, dst) = (SetDma0SrcRegionCmd::new(src), SetDma0DstRegionCmd::new(dst));
                out.dma_stride_mode = (src.stride_mode_raw(), dst.stride_mode_raw());
                out.push(
                    AccessKind::DmaSrc,
                    src.region(),
                    u64::from(self.payload(Opcode::SetDma0Src)),
                    Some(len),
                    false,
                    src.region_mode_raw() == DmaRegionMode::Internal.raw(),
                );
                out.push(
                    AccessKind::DmaDst,
                    dst.region(),
                    u64::from(self.payload(Opcode::SetDma0Dst)),
                    Some(len),
                    true,
                    dst.region_mode_raw() == DmaRegionMode::Internal.raw(),
                );
            }
            _ => {}
        }
        out
    }

    fn m1(&self, op: Opcode) -> u64 {
        u64::from(self.param(op)).saturating_add(1)
    }

    fn ofm_shape(&self) -> Shape {
        Shape {
            h: self.m1(Opcode::SetOfmHeightM1),
            w: self.m1(Opcode::SetOfmWidthM1),
            c: self.m1(Opcode::SetOfmDepthM1),
        }
    }

    fn ifm_depth(&self) -> u64 {
        self.m1(Opcode::SetIfmDepthM1)
    }

    /// IFM rows (Axis::Y) or columns (Axis::X) read for `ofm_len` output rows/columns; see
    /// the module documentation. Inputs are at most 16 bits each, so u64 cannot overflow;
    /// saturating operations keep that obviously panic-free.
    fn ifm_extent(&self, ofm_len: u64, axis: Axis) -> u64 {
        let ks = SetKernelStrideCmd::new(self.param(Opcode::SetKernelStride));
        // `extent`: the kernel's dilated extent (KERNEL_*_M1 + 1, see the module doc).
        let (extent, lsb, msb, pad_a, pad_b) = match axis {
            Axis::Y => (
                self.m1(Opcode::SetKernelHeightM1),
                ks.stride_y_lsb(),
                ks.stride_y_msb(),
                Opcode::SetIfmPadTop,
                Opcode::SetIfmPadBottom,
            ),
            Axis::X => (
                self.m1(Opcode::SetKernelWidthM1),
                ks.stride_x_lsb(),
                ks.stride_x_msb(),
                Opcode::SetIfmPadLeft,
                Opcode::SetIfmPadRight,
            ),
        };
        let stride = ((u64::from(msb) << 1) | u64::from(lsb)).saturating_add(1);
        let span = ofm_len
            .saturating_sub(1)
            .saturating_mul(stride)
            .saturating_add(extent);
        let pads = u64::from(self.param(pad_a)).saturating_add(u64::from(self.param(pad_b)));
        let mut len = span.saturating_sub(pads).max(1);
        if SetIfmUpscaleCmd::new(self.param(Opcode::SetIfmUpscale)).mode_raw() != 0 {
            len = len.div_ceil(2);
        }
        len
    }

    /// Element size in bytes and layout from a precision register.
    fn precision(&self, fm: &FmRegs) -> (u64, Layout) {
        let p = self.param(fm.precision);
        let (size_code, format) = match fm.precision {
            Opcode::SetOfmPrecision => {
                let v = SetOfmPrecisionCmd::new(p);
                (v.activation_precision_raw(), v.activation_format_raw())
            }
            Opcode::SetIfm2Precision => {
                let v = SetIfm2PrecisionCmd::new(p);
                (v.activation_precision_raw(), v.activation_format_raw())
            }
            _ => {
                let v = SetIfmPrecisionCmd::new(p);
                (v.activation_precision_raw(), v.activation_format_raw())
            }
        };
        let elem = 1u64 << size_code;
        let layout = match format {
            0 => Layout::Nhwc,
            1 => Layout::Nhcwb16,
            r => Layout::Reserved(r),
        };
        (elem, layout)
    }

    /// Push one access per used tile of a feature map of logical size `shape`.
    fn push_fm(&self, out: &mut Operation, fm: &FmRegs, shape: Shape, write: bool) {
        let region = region_index(fm.region, self.param(fm.region));
        let h0 = self.m1(fm.height0_m1);
        let h1 = self.m1(fm.height1_m1);
        let w0 = self.m1(fm.width0_m1);
        let (elem, layout) = self.precision(fm);
        let strides = (
            u64::from(self.payload(fm.stride_y)),
            u64::from(self.payload(fm.stride_x)),
            u64::from(self.payload(fm.stride_c)),
        );
        let Shape { h, w, c } = shape;
        // (tile index, rows, columns) of each tile in use.
        let right = w > w0;
        let below = h > h0;
        let tiles = [
            (0usize, true, h.min(h0), w.min(w0)),
            (1, right, h.min(h1), w.saturating_sub(w0)),
            (2, below, h.saturating_sub(h0), w.min(w0)),
            (
                3,
                right && h > h1,
                h.saturating_sub(h1),
                w.saturating_sub(w0),
            ),
        ];
        for (t, used, rows, cols) in tiles {
            if !used || rows == 0 || cols == 0 {
                continue;
            }
            let Some(base_op) = fm.bases.get(t) else {
                continue;
            };
            let base = u64::from(self.payload(*base_op));
            let len = tile_len(rows, cols, c, elem, layout, strides);
            out.push(fm.kind, region, base, len, write, false);
        }
    }

    fn push_linear(
        &self,
        out: &mut Operation,
        kind: AccessKind,
        region: Opcode,
        base: Opcode,
        len: Opcode,
    ) {
        out.push(
            kind,
            region_index(region, self.param(region)),
            u64::from(self.payload(base)),
            Some(u64::from(self.payload(len))),
            false,
            false,
        );
    }
}

#[derive(Debug, Clone, Copy)]
enum Axis {
    X,
    Y,
}

/// Bytes from a tile's base to one past its last byte; see the module documentation.
/// `None` on u64 overflow. `rows`, `cols`, `c` are at least 1.
fn tile_len(
    rows: u64,
    cols: u64,
    c: u64,
    elem: u64,
    layout: Layout,
    strides: (u64, u64, u64),
) -> Option<u64> {
    let (stride_y, stride_x, stride_c) = strides;
    let rows_part = rows.checked_sub(1)?.checked_mul(stride_y)?;
    match layout {
        Layout::Nhwc => rows_part
            .checked_add(cols.checked_sub(1)?.checked_mul(stride_x)?)?
            .checked_add(c.checked_mul(elem)?),
        Layout::Nhcwb16 => {
            let brick = elem.checked_mul(16)?;
            rows_part
                .checked_add(cols.checked_sub(1)?.checked_mul(brick)?)?
                .checked_add(c.checked_sub(1)?.checked_div(16)?.checked_mul(stride_c)?)?
                .checked_add(brick)
        }
        Layout::Reserved(_) => {
            let a = tile_len(rows, cols, c, elem, Layout::Nhwc, strides)?;
            let b = tile_len(rows, cols, c, elem, Layout::Nhcwb16, strides)?;
            Some(a.max(b))
        }
    }
}

/// The region index (a BASEP slot) of the param of `*_REGION` command `op`, through the
/// command's generated view.
fn region_index(op: Opcode, param: u16) -> u8 {
    match op {
        Opcode::SetIfmRegion => SetIfmRegionCmd::new(param).region(),
        Opcode::SetIfm2Region => SetIfm2RegionCmd::new(param).region(),
        Opcode::SetOfmRegion => SetOfmRegionCmd::new(param).region(),
        Opcode::SetWeightRegion => SetWeightRegionCmd::new(param).region(),
        Opcode::SetScaleRegion => SetScaleRegionCmd::new(param).region(),
        _ => 0,
    }
}
