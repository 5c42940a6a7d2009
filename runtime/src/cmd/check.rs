//! Static checker: every memory access a stream makes, against the sizes of the regions it
//! will be bound to.

use core::fmt;
use core::ops::Deref;

use crate::binder::{Job, MAX_REGIONS, RegionKind};

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
    /// `baked-region-written`: an OFM or DMA destination in a region the NPU may only read
    /// (a baked region, the blob's bytes, which the program holds as `&[u8]`). Only
    /// [`CheckedJob::check`] knows which regions those are.
    BakedRegionWritten,
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
            FindingCode::BakedRegionWritten => "baked-region-written",
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
            FindingCode::BakedRegionWritten => write!(
                f,
                "{} access [{:#x}, +{}) writes region {}, which the NPU may only read (baked)",
                self.kind, self.start, self.len, self.region
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
    check_inner(stream, arch, region_sizes, 0, report)
}

/// [`check_for`], with bit `i` of `read_only` marking region `i` as one the NPU must not
/// write.
fn check_inner(
    stream: &[u8],
    arch: Arch,
    region_sizes: &[u64],
    read_only: u8,
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
            let writes = matches!(a.kind, AccessKind::Ofm | AccessKind::DmaDst);
            if writes
                && u32::from(read_only)
                    .checked_shr(u32::from(a.region))
                    .unwrap_or(0)
                    & 1
                    != 0
            {
                emit(Finding {
                    code: FindingCode::BakedRegionWritten,
                    ..found
                });
            }
        }
    }
    Ok(summary)
}

/// Why [`CheckedJob::check`] refused a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobCheckError {
    /// The stream does not decode (findings before the error are counted in `findings`).
    Decode {
        /// The decode error.
        error: DecodeError,
        /// Findings before it.
        findings: u32,
    },
    /// The stream decodes, but some access leaves its region, uses an unbound one or writes
    /// a baked one: the first such finding, and how many there are.
    Finding {
        /// The first finding, in stream order.
        first: Finding,
        /// Findings in all.
        findings: u32,
    },
}

impl JobCheckError {
    /// The stable code: the decode error's, or the first finding's.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Decode { error, .. } => error.code,
            Self::Finding { first, .. } => first.code.as_str(),
        }
    }
}

impl fmt::Display for JobCheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Decode { error, .. } => write!(f, "{error}"),
            Self::Finding { first, findings } => {
                write!(f, "{first}")?;
                if *findings > 1 {
                    write!(f, " (and {} more)", findings.saturating_sub(1))?;
                }
                Ok(())
            }
        }
    }
}

/// A job the checker refused: the error, and the job, given back.
#[derive(Debug)]
pub struct JobRefused<'b, 'a> {
    /// Why.
    pub error: JobCheckError,
    /// The job, untouched.
    pub job: Job<'b, 'a>,
}

/// A [`Job`] whose command stream has been checked, on the device, against the regions it
/// is bound to: every memory access of every operation lies inside a bound region, no
/// extent overflows, no 2D/3D DMA mode, no `STOP` before the end, and nothing is written
/// to a baked region. [`crate::driver::Driver`] runs only these.
///
/// Made only by [`CheckedJob::check`], or by [`CheckedJob::vouched`] where the caller
/// vouches for the stream (`unsafe`). It gives read access to the job ([`Deref`]) and
/// the bytes of its writable regions ([`CheckedJob::region_bytes_mut`]), but no way to
/// swap the job inside for another one.
#[derive(Debug)]
pub struct CheckedJob<'b, 'a> {
    job: Job<'b, 'a>,
    summary: CheckSummary,
}

impl<'b, 'a> CheckedJob<'b, 'a> {
    /// Check `job`'s command stream (Ethos-U55 commands) against its bound regions: region
    /// `i` is `job.region(i)`'s size; baked regions are read-only. No allocation; time
    /// linear in the stream's length.
    ///
    /// # Errors
    ///
    /// [`JobRefused`], with the job back, on the first decode error or if there is any
    /// finding (all of [`FindingCode`] are refusals).
    #[allow(
        clippy::result_large_err,
        reason = "the refused job comes back by value, as it went in"
    )]
    pub fn check(job: Job<'b, 'a>) -> Result<Self, JobRefused<'b, 'a>> {
        let mut sizes = [0u64; MAX_REGIONS];
        let mut read_only = 0u8;
        let mut count = 0usize;
        for (r, slot) in job.regions().zip(sizes.iter_mut()) {
            *slot = r.size;
            if r.kind == RegionKind::Baked {
                read_only |= 1u8.checked_shl(u32::from(r.index)).unwrap_or(0);
            }
            count = count.saturating_add(1);
        }
        let mut first = None;
        let mut findings = 0u32;
        let result = check_inner(
            job.cmd_stream(),
            Arch::U55,
            sizes.get(..count).unwrap_or(&[]),
            read_only,
            &mut |f| {
                findings = findings.saturating_add(1);
                if first.is_none() {
                    first = Some(f);
                }
            },
        );
        let error = match (result, first) {
            (Ok(summary), None) => return Ok(Self { job, summary }),
            (Ok(_), Some(first)) => JobCheckError::Finding { first, findings },
            (Err(error), _) => JobCheckError::Decode { error, findings },
        };
        Err(JobRefused { error, job })
    }

    /// Take `job` as checked without checking it.
    ///
    /// # Safety
    ///
    /// The caller vouches for the stream: run on this job's bound regions, every memory
    /// access it makes stays inside the region it names (`BASEP[i] .. BASEP[i] + size`),
    /// names only bound regions, and writes no baked region; that is, it would pass
    /// [`CheckedJob::check`] (which is how to vouch for it without `unsafe`). A stream that
    /// does not is a DMA engine aimed at arbitrary memory.
    #[must_use]
    #[allow(
        unsafe_code,
        reason = "declares the escape hatch; it performs no unsafe operation"
    )]
    pub const unsafe fn vouched(job: Job<'b, 'a>) -> Self {
        Self {
            job,
            summary: CheckSummary {
                commands: 0,
                operations: 0,
                findings: 0,
                extents: [0; 8],
            },
        }
    }

    /// What the check went through (all zero for a [`CheckedJob::vouched`] job).
    #[must_use]
    pub fn summary(&self) -> &CheckSummary {
        &self.summary
    }

    /// The bytes of runtime or caller-owned region `index` ([`Job::region_bytes_mut`]):
    /// changing them does not change what was checked.
    #[must_use]
    pub fn region_bytes_mut(&mut self, index: usize) -> Option<&mut [u8]> {
        self.job.region_bytes_mut(index)
    }

    /// The bytes of one of the job's input tensors ([`Job::tensor_bytes_mut`], NPU1 version
    /// 2: `job.tensor("name")` or `job.input(0)` finds it): changing them does not change
    /// what was checked.
    #[must_use]
    pub fn tensor_bytes_mut(&mut self, t: &crate::tensors::TensorInfo<'_>) -> Option<&mut [u8]> {
        self.job.tensor_bytes_mut(t)
    }

    /// Give back the job (to check again after rebinding, say).
    #[must_use]
    pub fn into_job(self) -> Job<'b, 'a> {
        self.job
    }

    /// The job, for the driver's cache hooks (which write only region bytes).
    pub(crate) fn job_mut(&mut self) -> &mut Job<'b, 'a> {
        &mut self.job
    }
}

impl<'b, 'a> Deref for CheckedJob<'b, 'a> {
    type Target = Job<'b, 'a>;
    fn deref(&self) -> &Job<'b, 'a> {
        &self.job
    }
}
