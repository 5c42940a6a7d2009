//! Static checker: every memory access a stream makes, against the sizes of the regions it
//! will be bound to.

use core::fmt;

use super::decode::{DecodeError, decode_for};
use super::opcode::{Arch, Opcode};
use super::state::{AccessKind, StreamState};

/// Stable kebab-case codes of the findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FindingCode {
    /// `unbound-region`: an access to a region index `>= region_sizes.len()`.
    UnboundRegion,
    /// `region-overflow`: an access past the end of its region.
    RegionOverflow,
    /// `arithmetic-overflow`: computing an access's extent overflowed u64, or its end passes
    /// 2^32 (the U55's 32-bit `base + offset`).
    ArithmeticOverflow,
    /// `unsupported-dma-mode`: a DMA with a 2D/3D stride mode (bits `[10:9]` of a DMA region
    /// param), which the U55 does not implement; its accesses are checked as 1D.
    UnsupportedDmaMode,
    /// `stop-before-end`: an `NPU_OP_STOP` that is not the stream's last command. The NPU
    /// stops there, so what follows never runs and the driver reports `cmd-end-not-reached`
    /// (`QREAD` short of `QSIZE`); the checker stops there too.
    StopBeforeEnd,
}

impl FindingCode {
    /// The kebab-case code.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingCode::UnboundRegion => "unbound-region",
            FindingCode::RegionOverflow => "region-overflow",
            FindingCode::ArithmeticOverflow => "arithmetic-overflow",
            FindingCode::UnsupportedDmaMode => "unsupported-dma-mode",
            FindingCode::StopBeforeEnd => "stop-before-end",
        }
    }
}

impl fmt::Display for FindingCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One problem found by [`check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finding {
    /// What is wrong.
    pub code: FindingCode,
    /// Byte offset of the operation command in the stream.
    pub offset: u32,
    /// The operation (`NPU_OP_CONV`, ...).
    pub operation: Opcode,
    /// The access concerned (for `stop-before-end`, which concerns no access: `dma-src`,
    /// not meaningful).
    pub kind: AccessKind,
    /// Region index of the access (0 for `arithmetic-overflow`, whose access was not formed,
    /// and for `unsupported-dma-mode`).
    pub region: u8,
    /// First byte of the access, relative to the region base (0 when not formed); for
    /// `stop-before-end`, the stream offset just after the STOP.
    pub start: u64,
    /// Length of the access in bytes (0 when not formed); for `stop-before-end`, the bytes
    /// of stream after the STOP.
    pub len: u64,
    /// The region's size, for `region-overflow`.
    pub size: Option<u64>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {:#x} ({}): ",
            self.code, self.offset, self.operation
        )?;
        match self.code {
            FindingCode::UnboundRegion => write!(
                f,
                "{} access [{:#x}, +{}) uses region {}, which is not bound",
                self.kind, self.start, self.len, self.region
            ),
            FindingCode::RegionOverflow => write!(
                f,
                "{} access [{:#x}, +{}) in region {} ends at {:#x}, past the region size {:#x}",
                self.kind,
                self.start,
                self.len,
                self.region,
                self.start.saturating_add(self.len),
                self.size.unwrap_or(0)
            ),
            FindingCode::ArithmeticOverflow => write!(
                f,
                "{} extent overflows (u64, or past the 32-bit address space)",
                self.kind
            ),
            FindingCode::UnsupportedDmaMode => write!(
                f,
                "{} uses a 2D/3D DMA stride mode the U55 does not support; checked as 1D",
                self.kind
            ),
            FindingCode::StopBeforeEnd => write!(
                f,
                "the stream stops here, {} bytes before its end: the rest never runs and the driver reports cmd-end-not-reached",
                self.len
            ),
        }
    }
}

/// What [`check`] went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CheckSummary {
    /// Commands decoded.
    pub commands: u32,
    /// Memory-touching operations checked.
    pub operations: u32,
    /// Findings reported.
    pub findings: u32,
    /// Per region index 0..=7: one past the highest byte any access touches (0 when none),
    /// bound or not. SHRAM (DMA INTERNAL) accesses are not counted.
    pub extents: [u64; 8],
}

impl CheckSummary {
    /// Regions touched by at least one access.
    pub fn touched(&self) -> impl Iterator<Item = (u8, u64)> + '_ {
        (0u8..).zip(self.extents).filter(|(_, e)| *e != 0)
    }
}

/// Check every memory access of `stream` against the region sizes: region `i` is bound iff
/// `i < region_sizes.len()`, with `region_sizes[i]` bytes. Calls `report` once per finding,
/// in stream order. Returns the summary, or the first decode error (findings before it have
/// been reported). The stream is an Ethos-U55's: a command the U55 does not have is an
/// `unknown-opcode` error ([`check_for`] takes the architecture).
pub fn check(
    stream: &[u8],
    region_sizes: &[u64],
    report: &mut impl FnMut(Finding),
) -> Result<CheckSummary, DecodeError> {
    check_for(stream, Arch::U55, region_sizes, report)
}

/// [`check`] for a stream of architecture `arch`.
pub fn check_for(
    stream: &[u8],
    arch: Arch,
    region_sizes: &[u64],
    report: &mut impl FnMut(Finding),
) -> Result<CheckSummary, DecodeError> {
    let mut state = StreamState::new();
    let mut summary = CheckSummary::default();
    for cmd in decode_for(stream, arch) {
        let cmd = cmd?;
        summary.commands = summary.commands.saturating_add(1);
        if cmd.opcode() == Some(Opcode::OpStop) {
            // The NPU stops at the first STOP; anything after it is never run (or parsed).
            let next = u64::from(cmd.offset).saturating_add(u64::from(cmd.size()));
            let rest = (stream.len() as u64).saturating_sub(next);
            if rest > 0 {
                summary.findings = summary.findings.saturating_add(1);
                report(Finding {
                    code: FindingCode::StopBeforeEnd,
                    offset: cmd.offset,
                    operation: Opcode::OpStop,
                    kind: AccessKind::DmaSrc,
                    region: 0,
                    start: next,
                    len: rest,
                    size: None,
                });
            }
            break;
        }
        let Some(op) = state.apply(&cmd) else {
            continue;
        };
        summary.operations = summary.operations.saturating_add(1);
        let mut emit = |finding: Finding| {
            summary.findings = summary.findings.saturating_add(1);
            report(finding);
        };
        let blank = Finding {
            code: FindingCode::ArithmeticOverflow,
            offset: op.offset,
            operation: op.opcode,
            kind: AccessKind::Ifm,
            region: 0,
            start: 0,
            len: 0,
            size: None,
        };
        for kind in op.overflowed() {
            emit(Finding { kind, ..blank });
        }
        let (src_mode, dst_mode) = op.dma_stride_mode;
        for (mode, kind) in [
            (src_mode, AccessKind::DmaSrc),
            (dst_mode, AccessKind::DmaDst),
        ] {
            if mode != 0 {
                emit(Finding {
                    code: FindingCode::UnsupportedDmaMode,
                    kind,
                    ..blank
                });
            }
        }
        for a in op.accesses() {
            if a.shram {
                continue;
            }
            let end = a.end();
            if let Some(slot) = summary.extents.get_mut(usize::from(a.region)) {
                *slot = (*slot).max(end);
            }
            let found = Finding {
                kind: a.kind,
                region: a.region,
                start: a.start,
                len: a.len,
                ..blank
            };
            match region_sizes.get(usize::from(a.region)) {
                None => emit(Finding {
                    code: FindingCode::UnboundRegion,
                    ..found
                }),
                Some(&size) if end > size => emit(Finding {
                    code: FindingCode::RegionOverflow,
                    size: Some(size),
                    ..found
                }),
                Some(_) => {}
            }
        }
    }
    Ok(summary)
}
