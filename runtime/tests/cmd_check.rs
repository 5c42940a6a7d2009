//! Hand-built command streams: every decode error, the listing layout, the memory accesses
//! `StreamState` derives, and every checker finding.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(clippy::arithmetic_side_effects, missing_docs)]

use npuschema_runtime::cmd::{
    Access, AccessKind, Command, DecodeError, Finding, FindingCode, Listing, Opcode, Operation,
    StreamState, check, decode,
};

/// A stream under construction.
#[derive(Default)]
struct S(Vec<u8>);

impl S {
    fn c0(mut self, op: Opcode, param: u16) -> Self {
        assert!(!op.has_payload());
        self.0
            .extend_from_slice(&(op.code() | (u32::from(param) << 16)).to_le_bytes());
        self
    }
    fn c1(self, op: Opcode, payload: u32) -> Self {
        self.c1p(op, 0, payload)
    }
    fn c1p(mut self, op: Opcode, param: u16, payload: u32) -> Self {
        assert!(op.has_payload());
        self.0
            .extend_from_slice(&(op.code() | (u32::from(param) << 16)).to_le_bytes());
        self.0.extend_from_slice(&payload.to_le_bytes());
        self
    }
    fn word(mut self, w: u32) -> Self {
        self.0.extend_from_slice(&w.to_le_bytes());
        self
    }
    /// The operations the stream performs, through `StreamState`.
    fn ops(&self) -> Vec<Operation> {
        let mut st = StreamState::new();
        decode(&self.0)
            .filter_map(|c| st.apply(&c.unwrap()))
            .collect()
    }
    fn findings(&self, sizes: &[u64]) -> Vec<Finding> {
        let mut out = Vec::new();
        check(&self.0, sizes, &mut |f| out.push(f)).unwrap();
        out
    }
}

use Opcode as O;

fn acc(kind: AccessKind, region: u8, start: u64, len: u64, write: bool) -> Access {
    Access {
        kind,
        region,
        start,
        len,
        write,
        shram: false,
    }
}

// ---------------------------------------------------------------------------------------
// Decoder
// ---------------------------------------------------------------------------------------

#[test]
fn cmd_decode_error_truncated_payload() {
    let s = S::default()
        .c0(O::SetIfmRegion, 1)
        .word(O::SetWeightBase.code());
    let all: Vec<_> = decode(&s.0).collect();
    assert_eq!(all.len(), 2);
    let err = all[1].unwrap_err();
    assert_eq!(
        err,
        DecodeError {
            code: "truncated-command",
            offset: 4,
            word: 0x4020
        }
    );
    assert!(err.to_string().contains("truncated-command"), "{err}");
    assert!(err.to_string().contains("no payload"), "{err}");
}

#[test]
fn cmd_decode_error_length_not_multiple_of_4() {
    let mut s = S::default().c0(O::OpStop, 0xFFFF);
    s.0.extend_from_slice(&[0x0F, 0x01]);
    let all: Vec<_> = decode(&s.0).collect();
    assert_eq!(all.len(), 2);
    assert!(all[0].is_ok());
    assert_eq!(
        all[1],
        Err(DecodeError {
            code: "truncated-command",
            offset: 4,
            word: 0x010F
        })
    );
    assert!(all[1].unwrap_err().to_string().contains("multiple of 4"));
}

#[test]
fn cmd_decode_error_unknown_opcodes_and_stop_after_first_error() {
    // cmd0 0x020 does not exist (cmd1 0x020 does), cmd1 0x07F does not, bit 15 is reserved,
    // bits 10..13 must be zero.
    for word in [0x0000_0020u32, 0x0000_407F, 0x0000_8000, 0x0000_0500] {
        let s = S::default().c0(O::OpStop, 0).word(word).c0(O::OpStop, 0);
        let all: Vec<_> = decode(&s.0).collect();
        assert_eq!(all.len(), 2, "{word:#x}: nothing after the error");
        assert_eq!(
            all[1],
            Err(DecodeError {
                code: "unknown-opcode",
                offset: 4,
                word
            })
        );
        let e: &dyn core::error::Error = &all[1].unwrap_err();
        assert!(e.to_string().starts_with("unknown-opcode"));
    }
}

#[test]
fn cmd_decode_bit14_selects_the_table() {
    let s = S::default()
        .c1(O::SetIfmBase0, 0x10)
        .c0(O::OpStop, 0xFFFF)
        .c1p(O::SetOfmScale, 30, 1 << 30);
    let cmds: Vec<Command> = decode(&s.0).map(Result::unwrap).collect();
    assert_eq!(
        cmds[0],
        Command {
            offset: 0,
            code: 0x4000,
            param: 0,
            payload: Some(0x10)
        }
    );
    assert_eq!(cmds[0].opcode(), Some(O::SetIfmBase0));
    assert_eq!(
        cmds[1],
        Command {
            offset: 8,
            code: 0x0000,
            param: 0xFFFF,
            payload: None
        }
    );
    assert_eq!(cmds[1].name(), "NPU_OP_STOP");
    assert_eq!(cmds[2].name(), "NPU_SET_OFM_SCALE");
    assert_eq!(cmds[2].offset, 12);
    let hand = Command {
        offset: 0,
        code: 0x0020,
        param: 0,
        payload: None,
    };
    assert_eq!(hand.opcode(), None);
    assert_eq!(hand.name(), "UNKNOWN");
}

#[test]
fn cmd_listing_layout() {
    let s = S::default()
        .c0(O::SetIfmRegion, 1)
        .c1(O::SetIfmBase0, 0x10)
        .c0(O::SetOfmPrecision, 0x41)
        .c0(O::SetDma0DstRegion, 0x103)
        .c0(O::OpElementwise, 42)
        .c1p(O::SetOfmScale, 30, 1 << 30)
        .c0(O::OpConv, 0);
    let lines: Vec<String> = decode(&s.0)
        .map(|c| Listing(&c.unwrap()).to_string())
        .collect();
    assert_eq!(
        lines[0],
        "0x000000:          0001 010f - NPU_SET_IFM_REGION                 1, region = 1"
    );
    assert_eq!(
        lines[1],
        "0x000004: 00000010 0000 4000 - NPU_SET_IFM_BASE0                  0, addr = 0x10"
    );
    assert_eq!(
        lines[2],
        "0x00000c:          0041 0114 - NPU_SET_OFM_PRECISION             65, activation_type = ACTIVATION_TYPE_SIGNED, \
         activation_precision = ACTIVATION_PRECISION_B8, activation_format = ACTIVATION_FORMAT_NHCWB16, \
         scale_mode = OFM_SCALE_MODE_PER_CHANNEL, round_mode = ROUND_MODE_DBL"
    );
    assert_eq!(
        lines[3],
        "0x000010:          0103 0131 - NPU_SET_DMA0_DST_REGION          259, region = 3, \
         region_mode = DMA_REGION_MODE_INTERNAL, stride_mode = DMA_STRIDE_MODE_D1"
    );
    // An enum value with no name prints as a number.
    assert!(
        lines[4].ends_with("NPU_OP_ELEMENTWISE                42, elementwise_mode = 42"),
        "{}",
        lines[4]
    );
    assert!(
        lines[5].ends_with("30, shift = 30, scale = 1073741824"),
        "{}",
        lines[5]
    );
    assert!(
        lines[6].ends_with("NPU_OP_CONV                        0"),
        "{}",
        lines[6]
    );
    // Display on Command is the same line.
    let c = decode(&s.0).next().unwrap().unwrap();
    assert_eq!(c.to_string(), lines[0]);
}

// ---------------------------------------------------------------------------------------
// Memory accesses
// ---------------------------------------------------------------------------------------

/// A 3x3 stride-2 NHWC int8 convolution with padding: OFM 4x5x8 from an IFM read as
/// H = (4-1)*2 + 2 + 1 - 1 - 1 = 7 rows, W = (5-1)*2 + 2 + 1 - 1 - 0 = 10 columns, 3 channels.
fn conv_nhwc() -> S {
    S::default()
        .c0(O::SetIfmRegion, 1)
        .c1(O::SetIfmBase0, 0x100)
        .c0(O::SetIfmHeight0M1, 6)
        .c0(O::SetIfmHeight1M1, 6)
        .c0(O::SetIfmWidth0M1, 9)
        .c0(O::SetIfmDepthM1, 2)
        .c1(O::SetIfmStrideC, 1)
        .c1(O::SetIfmStrideX, 3)
        .c1(O::SetIfmStrideY, 30)
        .c0(O::SetIfmPrecision, 0x01)
        .c0(O::SetIfmPadTop, 1)
        .c0(O::SetIfmPadBottom, 1)
        .c0(O::SetIfmPadLeft, 1)
        .c0(O::SetIfmPadRight, 0)
        .c0(O::SetOfmRegion, 2)
        .c1(O::SetOfmBase0, 0x40)
        .c0(O::SetOfmHeightM1, 3)
        .c0(O::SetOfmWidthM1, 4)
        .c0(O::SetOfmDepthM1, 7)
        .c0(O::SetOfmHeight0M1, 3)
        .c0(O::SetOfmHeight1M1, 3)
        .c0(O::SetOfmWidth0M1, 4)
        .c1(O::SetOfmStrideC, 1)
        .c1(O::SetOfmStrideX, 8)
        .c1(O::SetOfmStrideY, 40)
        .c0(O::SetOfmPrecision, 0x01)
        .c0(O::SetKernelHeightM1, 2)
        .c0(O::SetKernelWidthM1, 2)
        .c0(O::SetKernelStride, 0b11) // stride_x_lsb, stride_y_lsb: stride 2 both ways
        .c0(O::SetWeightRegion, 0)
        .c1(O::SetWeightBase, 0x20)
        .c1(O::SetWeightLength, 300)
        .c0(O::SetScaleRegion, 0)
        .c1(O::SetScaleBase, 0x200)
        .c1(O::SetScaleLength, 80)
}

#[test]
fn cmd_conv_nhwc_accesses() {
    let s = conv_nhwc().c0(O::OpConv, 0);
    let ops = s.ops();
    assert_eq!(ops.len(), 1);
    let op = &ops[0];
    assert_eq!(op.opcode, O::OpConv);
    assert_eq!(op.offset as usize, s.0.len() - 4);
    assert!(!op.has_overflow());
    assert_eq!(
        op.accesses(),
        &[
            // (7-1)*30 + (10-1)*3 + 3*1
            acc(AccessKind::Ifm, 1, 0x100, 180 + 27 + 3, false),
            // (4-1)*40 + (5-1)*8 + 8*1
            acc(AccessKind::Ofm, 2, 0x40, 120 + 32 + 8, true),
            acc(AccessKind::Weights, 0, 0x20, 300, false),
            acc(AccessKind::Scales, 0, 0x200, 80, false),
        ]
    );
}

#[test]
fn cmd_dilation_upscale_and_stride_msb() {
    // Dilation x2 in Y (bit 4) and stride_y msb (bit 7): stride_y = (1<<1 | 0) + 1 = 3.
    // KERNEL_HEIGHT_M1 = 2 is the dilated extent less one (Vela writes
    // `dilation_y * (kernel.height - 1)`: two taps two rows apart), so the dilation does
    // not stretch it again: H = (4-1)*3 + 2 + 1 - 2 = 10 rows (the checker used to count
    // (3-1)*2 + 1 = 5 rows for the kernel, 12 in all, and could refuse a valid stream whose
    // IFM ends at its region's end).
    let s = conv_nhwc()
        .c0(O::SetKernelStride, 0b1001_0001)
        .c0(O::SetIfmHeight0M1, 11)
        .c0(O::SetIfmHeight1M1, 11)
        .c0(O::OpConv, 0);
    let ifm = s.ops()[0].accesses()[0];
    assert_eq!(ifm.len, (10 - 1) * 30 + 27 + 3);
    // The same without dilation: the same 10 rows (the extent is the register's).
    let s = conv_nhwc()
        .c0(O::SetKernelStride, 0b1000_0001)
        .c0(O::SetIfmHeight0M1, 11)
        .c0(O::SetIfmHeight1M1, 11)
        .c0(O::OpConv, 0);
    assert_eq!(s.ops()[0].accesses()[0].len, (10 - 1) * 30 + 27 + 3);
    // With the tile registers left at 7 rows, rows 7..10 fall in tile 2 (BASE2 = 0).
    let s = conv_nhwc()
        .c0(O::SetKernelStride, 0b1001_0001)
        .c0(O::OpConv, 0);
    let a = s.ops()[0].accesses().to_vec();
    assert_eq!(a[0], acc(AccessKind::Ifm, 1, 0x100, 210, false));
    assert_eq!(a[1], acc(AccessKind::Ifm, 1, 0, 2 * 30 + 27 + 3, false));
    // IFM_UPSCALE (nearest): the IFM is half the size, rounding up: H = ceil(7/2) = 4,
    // W = ceil(10/2) = 5.
    let s = conv_nhwc().c0(O::SetIfmUpscale, 1).c0(O::OpConv, 0);
    let ifm = s.ops()[0].accesses()[0];
    assert_eq!(ifm.len, 3 * 30 + 4 * 3 + 3);
}

#[test]
fn cmd_nhcwb16_and_element_size() {
    // OFM NHCWB16 (format bits [7:6] = 1), int16 (OFM size bits [2:1] = 1): E = 2,
    // C = 20 -> 2 bricks; len = (h-1)*SY + (w-1)*16*E + ((C-1)/16)*SC + 16*E.
    let s = conv_nhwc()
        .c0(O::SetOfmPrecision, 0x40 | 0x02 | 0x01)
        .c0(O::SetOfmDepthM1, 19)
        .c1(O::SetOfmStrideY, 1000)
        .c1(O::SetOfmStrideC, 300)
        .c0(O::OpConv, 0);
    let ofm = s.ops()[0].accesses()[1];
    assert_eq!(ofm.kind, AccessKind::Ofm);
    assert_eq!(ofm.len, 3 * 1000 + 4 * 32 + 300 + 32);
    // IFM int32 (IFM size bits [3:2] = 2): channel term 3 * 4.
    let s = conv_nhwc().c0(O::SetIfmPrecision, 0x09).c0(O::OpConv, 0);
    assert_eq!(s.ops()[0].accesses()[0].len, 180 + 27 + 12);
}

#[test]
fn cmd_feature_map_tiles() {
    // OFM 4x5, tiles split at width0 = 3, height0 = 1, height1 = 2:
    // tile 0: 1 row x 3 cols, tile 1: 2 rows x 2 cols, tile 2: 3 rows x 3 cols,
    // tile 3: 2 rows x 2 cols. NHWC, SY = 40, SX = 8, C = 8.
    let s = conv_nhwc()
        .c0(O::SetOfmWidth0M1, 2)
        .c0(O::SetOfmHeight0M1, 0)
        .c0(O::SetOfmHeight1M1, 1)
        .c1(O::SetOfmBase1, 0x1000)
        .c1(O::SetOfmBase2, 0x2000)
        .c1(O::SetOfmBase3, 0x3000)
        .c0(O::OpConv, 0);
    let ofm: Vec<Access> = s.ops()[0]
        .accesses()
        .iter()
        .copied()
        .filter(|a| a.kind == AccessKind::Ofm)
        .collect();
    let len = |rows: u64, cols: u64| (rows - 1) * 40 + (cols - 1) * 8 + 8;
    assert_eq!(
        ofm,
        vec![
            acc(AccessKind::Ofm, 2, 0x40, len(1, 3), true),
            acc(AccessKind::Ofm, 2, 0x1000, len(2, 2), true),
            acc(AccessKind::Ofm, 2, 0x2000, len(3, 3), true),
            acc(AccessKind::Ofm, 2, 0x3000, len(2, 2), true),
        ]
    );
}

#[test]
fn cmd_pool_has_no_weights_and_zero_length_is_dropped() {
    let s = conv_nhwc().c0(O::OpPool, 0);
    let kinds: Vec<AccessKind> = s.ops()[0].accesses().iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AccessKind::Ifm, AccessKind::Ofm]);
    // Depthwise reads weights, but not a zero-length scale range.
    let s = conv_nhwc().c1(O::SetScaleLength, 0).c0(O::OpDepthwise, 0);
    let kinds: Vec<AccessKind> = s.ops()[0].accesses().iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [AccessKind::Ifm, AccessKind::Ofm, AccessKind::Weights]
    );
    // Depthwise and pool read max(IFM depth, OFM depth) channels: 8 here, not 3.
    let s = conv_nhwc().c0(O::OpDepthwise, 0);
    assert_eq!(s.ops()[0].accesses()[0].len, 180 + 27 + 8);
}

fn elementwise(mode: u16, broadcast: u16) -> S {
    conv_nhwc()
        .c0(O::SetIfm2Region, 3)
        .c1(O::SetIfm2Base0, 0x80)
        .c0(O::SetIfm2Height0M1, 3)
        .c0(O::SetIfm2Height1M1, 3)
        .c0(O::SetIfm2Width0M1, 4)
        .c1(O::SetIfm2StrideX, 8)
        .c1(O::SetIfm2StrideY, 40)
        .c0(O::SetIfm2Precision, 0x01)
        .c0(O::SetIfm2Broadcast, broadcast)
        .c0(O::OpElementwise, mode)
}

#[test]
fn cmd_elementwise_ifm2_broadcast_scalar_and_unary() {
    // ADD: IFM and IFM2 are OFM-sized (4x5, 8 channels); kernel and padding do not apply.
    let ops = elementwise(1, 0).ops();
    let a = ops[0].accesses();
    assert_eq!(a.len(), 3);
    assert_eq!(
        a[0],
        acc(AccessKind::Ifm, 1, 0x100, 3 * 30 + 4 * 3 + 8, false)
    );
    assert_eq!(
        a[1],
        acc(AccessKind::Ifm2, 3, 0x80, 3 * 40 + 4 * 8 + 8, false)
    );
    assert_eq!(a[2].kind, AccessKind::Ofm);
    // Broadcast H and C: IFM2 is 1 x 5 x 1.
    let ops = elementwise(1, 0b101).ops();
    assert_eq!(
        ops[0].accesses()[1],
        acc(AccessKind::Ifm2, 3, 0x80, 4 * 8 + 1, false)
    );
    // Scalar IFM2 (bit 7): no IFM2 access.
    let ops = elementwise(1, 0x80).ops();
    assert!(ops[0].accesses().iter().all(|a| a.kind != AccessKind::Ifm2));
    // Unary ABS (6): no IFM2 access either.
    let ops = elementwise(6, 0).ops();
    assert!(ops[0].accesses().iter().all(|a| a.kind != AccessKind::Ifm2));
}

fn dma(src_region: u16, dst_region: u16, src: u32, dst: u32, len: u32) -> S {
    S::default()
        .c0(O::SetDma0SrcRegion, src_region)
        .c1(O::SetDma0Src, src)
        .c0(O::SetDma0DstRegion, dst_region)
        .c1(O::SetDma0Dst, dst)
        .c1(O::SetDma0Len, len)
        .c0(O::OpDmaStart, 0)
}

#[test]
fn cmd_dma_accesses_and_shram() {
    let ops = dma(0, 1, 0x4AB0, 0x100, 1024).ops();
    assert_eq!(
        ops[0].accesses(),
        &[
            acc(AccessKind::DmaSrc, 0, 0x4AB0, 1024, false),
            acc(AccessKind::DmaDst, 1, 0x100, 1024, true)
        ]
    );
    // INTERNAL destination (bit 8): a SHRAM access, not region 3.
    let ops = dma(0, 0x103, 0x4AB0, 0x5800, 1024).ops();
    let dst = ops[0].accesses()[1];
    assert!(dst.shram);
    assert_eq!(
        (dst.kind, dst.start, dst.len, dst.write),
        (AccessKind::DmaDst, 0x5800, 1024, true)
    );
    assert_eq!(ops[0].dma_stride_mode, (0, 0));
}

#[test]
fn cmd_state_keeps_registers() {
    let s = S::default()
        .c0(O::SetIfmZeroPoint, 0xFF80)
        .c1p(O::SetOfmScale, 30, 1 << 30)
        .c0(O::SetIfmZeroPoint, 5);
    let mut st = StreamState::new();
    for c in decode(&s.0) {
        assert!(st.apply(&c.unwrap()).is_none());
    }
    assert_eq!(st.param(O::SetIfmZeroPoint), 5);
    assert_eq!(st.param(O::SetOfmScale), 30);
    assert_eq!(st.payload(O::SetOfmScale), 1 << 30);
    assert_eq!(st.payload(O::SetIfmBase0), 0);
}

// ---------------------------------------------------------------------------------------
// Checker findings
// ---------------------------------------------------------------------------------------

#[test]
fn cmd_check_clean_stream_and_summary() {
    let s = conv_nhwc().c0(O::OpConv, 0).c0(O::OpStop, 0xFFFF);
    let mut findings = Vec::new();
    let summary = check(&s.0, &[0x250, 0x100 + 210, 0x40 + 160], &mut |f| {
        findings.push(f)
    })
    .unwrap();
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(summary.commands as usize, decode(&s.0).count());
    assert_eq!(summary.operations, 1);
    assert_eq!(summary.findings, 0);
    assert_eq!(summary.extents[..3], [0x250, 0x100 + 210, 0x40 + 160]);
    assert_eq!(summary.touched().count(), 3);
}

#[test]
fn cmd_check_region_overflow() {
    let s = conv_nhwc().c0(O::OpConv, 0);
    let op_offset = (s.0.len() - 4) as u32;
    // Region 1 one byte short of the IFM's end.
    let f = s.findings(&[0x250, 0x100 + 209, 0x40 + 160]);
    assert_eq!(
        f,
        vec![Finding {
            code: FindingCode::RegionOverflow,
            offset: op_offset,
            operation: O::OpConv,
            kind: AccessKind::Ifm,
            region: 1,
            start: 0x100,
            len: 210,
            size: Some(0x100 + 209),
        }]
    );
    let text = f[0].to_string();
    assert!(text.starts_with("region-overflow at byte"), "{text}");
    assert!(
        text.contains("NPU_OP_CONV") && text.contains("region 1"),
        "{text}"
    );
}

#[test]
fn cmd_check_unbound_region() {
    let s = conv_nhwc().c0(O::OpConv, 0);
    // Only regions 0 and 1 are bound: the OFM in region 2 is unbound.
    let f = s.findings(&[0x250, 0x1000]);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].code, f[0].kind, f[0].region, f[0].size),
        (FindingCode::UnboundRegion, AccessKind::Ofm, 2, None)
    );
    assert_eq!(f[0].code.as_str(), "unbound-region");
}

#[test]
fn cmd_check_arithmetic_overflow() {
    // Weights ending past 2^32.
    let s = conv_nhwc()
        .c1(O::SetWeightBase, 0xFFFF_FF00)
        .c1(O::SetWeightLength, 0x200)
        .c0(O::OpConv, 0);
    let ops = s.ops();
    assert_eq!(
        ops[0].overflowed().collect::<Vec<_>>(),
        [AccessKind::Weights]
    );
    assert!(
        ops[0]
            .accesses()
            .iter()
            .all(|a| a.kind != AccessKind::Weights)
    );
    let f = s.findings(&[u64::MAX, u64::MAX, u64::MAX]);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].code, f[0].kind, f[0].operation),
        (
            FindingCode::ArithmeticOverflow,
            AccessKind::Weights,
            O::OpConv
        )
    );
    assert_eq!(f[0].code.to_string(), "arithmetic-overflow");
    // A feature map whose last byte passes 2^32 through its strides.
    let s = conv_nhwc()
        .c1(O::SetOfmStrideY, 0xFFFF_FFFF)
        .c0(O::SetOfmHeightM1, 0xFFFF)
        .c0(O::OpConv, 0);
    let f = s.findings(&[u64::MAX, u64::MAX, u64::MAX]);
    assert!(
        f.iter()
            .any(|f| f.code == FindingCode::ArithmeticOverflow && f.kind == AccessKind::Ofm),
        "{f:?}"
    );
}

#[test]
fn cmd_check_dma_internal_is_not_region_3_and_dma_modes() {
    // Only region 0 bound: the INTERNAL destination (region field 3) is not an access to
    // region 3, so nothing is found.
    let s = dma(0, 0x103, 0x10, 0x5800, 64);
    assert_eq!(s.findings(&[0x100]), vec![]);
    let summary = check(&s.0, &[0x100], &mut |_| {}).unwrap();
    assert_eq!(summary.extents[3], 0);
    assert_eq!(summary.extents[0], 0x10 + 64);
    // The same DMA to external region 3 is unbound.
    let f = dma(0, 3, 0x10, 0x5800, 64).findings(&[0x100]);
    assert_eq!(
        (f[0].code, f[0].kind, f[0].region),
        (FindingCode::UnboundRegion, AccessKind::DmaDst, 3)
    );
    // Source overflow in region 0.
    let f = dma(0, 1, 0xF0, 0, 0x20).findings(&[0x100, 0x100]);
    assert_eq!(
        (f[0].code, f[0].kind, f[0].start, f[0].len),
        (FindingCode::RegionOverflow, AccessKind::DmaSrc, 0xF0, 0x20)
    );
    // A 2D stride mode (bits [10:9] = 1) is reported.
    let f = dma(1 << 9, 1, 0, 0, 0x20).findings(&[0x100, 0x100]);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].code, f[0].kind),
        (FindingCode::UnsupportedDmaMode, AccessKind::DmaSrc)
    );
}

#[test]
fn cmd_check_returns_decode_error_after_reporting_earlier_findings() {
    let s = conv_nhwc().c0(O::OpConv, 0).word(0x0000_0020);
    let mut findings = Vec::new();
    let err = check(&s.0, &[0x250], &mut |f| findings.push(f)).unwrap_err();
    assert_eq!(err.code, "unknown-opcode");
    assert_eq!(err.offset as usize, s.0.len() - 4);
    assert!(
        !findings.is_empty(),
        "findings before the bad word are reported"
    );
}

#[test]
fn cmd_check_reports_a_stop_before_the_end_and_stops_there() {
    // STOP last: nothing to report.
    let s = dma(0, 1, 0, 0, 0x20).c0(O::OpStop, 0xFFFF);
    assert_eq!(s.findings(&[0x100, 0x100]), vec![]);
    // STOP in the middle: the NPU ends there (cmd-end-not-reached at run time); what follows,
    // an overflowing DMA here, never runs and is not reported.
    let s = dma(0, 1, 0, 0, 0x20)
        .c0(O::OpStop, 0xFFFF)
        .c1(O::SetDma0Len, 0x1000)
        .c0(O::OpDmaStart, 0);
    let stop_at = 6 * 4 + 3 * 4;
    let f = s.findings(&[0x100, 0x100]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].code, f[0].offset, f[0].start, f[0].len),
        (
            FindingCode::StopBeforeEnd,
            stop_at,
            u64::from(stop_at) + 4,
            12
        )
    );
    assert_eq!(f[0].code.as_str(), "stop-before-end");
    assert!(f[0].to_string().contains("cmd-end-not-reached"), "{}", f[0]);
}
