//! [`run_blob`]: validate an NPU1 blob, bind it into an arena of the size it needs, run it
//! on the simulated NPU through the real driver, and report.

use std::fmt::{self, Write as _};
use std::rc::Rc;

use npuschema_core::{Error, FNV1A32_OFFSET_BASIS, fnv1a32};
use npuschema_generated::npu1::{Npu1, Role};
use npuschema_runtime::binder::{ArenaSize, BoundRegion, Job, RegionKind, arena_size};
use npuschema_runtime::cmd::{CheckedJob, JobCheckError};
use npuschema_runtime::driver::{
    ConfigCheck, Driver, DriverError, DriverOptions, HwInfo, IrqLatch, PmuConfig, PmuCounters,
    PmuEvent, RunInfo,
};

use crate::{Budget, Faults, KeptBytes, RunRecord, Sim, SimConfig, SimStats};

/// How to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Wait through the interrupt path (the simulator's IRQ calls
    /// [`IrqLatch::on_irq`]) instead of polling `STATUS`.
    pub interrupt: bool,
    /// MACs/cycle of the simulated NPU; `None`: the blob's accel, or 128 when it is
    /// unspecified.
    pub macs: Option<u32>,
    /// Place the arena at an address `== arena_misalign (mod 16)` (taken mod 16), to
    /// exercise the binder's alignment.
    pub arena_misalign: usize,
    /// Bytes written at the start of runtime regions before the run: `(region index, bytes)`.
    pub inputs: Vec<(usize, Vec<u8>)>,
    /// Bytes written inside runtime regions before the run: `(region index, byte offset,
    /// bytes)` (a model's input tensors, where `pack` reports them).
    pub placed_inputs: Vec<(usize, u64, Vec<u8>)>,
    /// The work and data the simulated NPU may use ([`Budget::DEFAULT`]).
    pub budget: Budget,

    /// Faults to inject.
    pub faults: Faults,
    /// Simulated run time in ticks.
    pub run_latency: u32,
    /// Simulated ticks (the simulator's clock, [`crate::Sim::now`]) a run may take before
    /// `npu-timeout`.
    pub run_timeout: u64,
    /// Enable the PMU with this configuration for the run and report its counters.
    pub pmu: Option<PmuConfig>,
    /// The largest arena the run may allocate, in bytes ([`DEFAULT_MAX_ARENA`] by default):
    /// a blob whose runtime regions need more is refused with `arena-over-limit` before
    /// anything is allocated (the simulator holds a copy of what the NPU may touch, so a
    /// blob declaring a 4 GiB region would otherwise take several times that).
    pub max_arena: u64,
}

/// The default [`RunOptions::max_arena`]: 64 MiB, far above the arena of any model the
/// shared Vela outputs hold (under 100 KiB) and of the microcontrollers an Ethos-U55 sits in.
pub const DEFAULT_MAX_ARENA: u64 = 64 << 20;

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            interrupt: false,
            macs: None,
            arena_misalign: 0,
            inputs: Vec::new(),
            placed_inputs: Vec::new(),
            budget: Budget::DEFAULT,
            faults: Faults::default(),
            run_latency: SimConfig::default().run_latency,
            run_timeout: 100_000,
            pmu: None,
            max_arena: DEFAULT_MAX_ARENA,
        }
    }
}

/// Why a blob could not be run at all (a run that faults is a [`RunReport`] whose
/// `outcome` is an error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The blob is not a valid NPU1 file.
    Invalid(Error),
    /// The blob is valid but cannot be bound (too many regions, misaligned, ...).
    Bind(Error),
    /// An input names a region that is not a runtime region, or is too long for it.
    Input {
        /// The region index given.
        region: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// The command stream failed the check against its bound regions
    /// ([`CheckedJob::check`]), which the driver requires before a run.
    Check(JobCheckError),
    /// The driver could not bring the simulated NPU up.
    Init(DriverError),
    /// The host cannot allocate the memory the run needs (the arena, or the simulator's
    /// copy of the runtime regions).
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
    },
    /// The arena the blob needs is over [`RunOptions::max_arena`].
    OverLimit {
        /// Bytes the blob's regions need ([`ArenaSize::any_start`]).
        needed: u64,
        /// The limit in force.
        limit: u64,
    },
}

impl RunError {
    /// The stable code of the underlying error (`bad-input` for an input problem).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid(e) | Self::Bind(e) => e.code,
            Self::Input { .. } => "bad-input",
            Self::Check(e) => e.code(),
            Self::Init(e) => e.code,
            Self::OverLimit { .. } => "arena-over-limit",
            Self::OutOfMemory { .. } => "sim-out-of-memory",
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(e) => write!(f, "invalid NPU1 blob: {e}"),
            Self::Bind(e) => write!(f, "cannot bind: {e}"),
            Self::Input { region, reason } => write!(f, "bad-input: region {region}: {reason}"),
            Self::Check(e) => write!(f, "command stream refused: {e}"),
            Self::Init(e) => write!(f, "NPU init failed: {e}"),
            Self::OutOfMemory { bytes } => write!(
                f,
                "sim-out-of-memory: cannot allocate {bytes} bytes for the arena or the simulator's copy of the runtime regions (lower --max-arena, or free memory)"
            ),
            Self::OverLimit { needed, limit } => write!(
                f,
                "arena-over-limit: the blob's regions need a {needed}-byte arena, over the simulator's limit of {limit} bytes"
            ),
        }
    }
}

impl std::error::Error for RunError {}

/// One region after the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionReport {
    /// The binding (index, role, kind, addresses, size).
    pub bound: BoundRegion,
    /// The role's name (`"weights"`, ...), or `None` for an unknown role.
    pub role_name: Option<&'static str>,
    /// FNV-1a of the region's bytes as the CPU sees them after the run.
    pub fnv1a: u32,
    /// One past the highest byte the run read (0: not read).
    pub read_extent: u64,
    /// One past the highest byte the run wrote (0: not written).
    pub write_extent: u64,
}

/// What [`run_blob`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunReport {
    /// Blob length.
    pub blob_bytes: usize,
    /// MACs/cycle the blob was compiled for (0 = unspecified).
    pub accel_macs: u32,
    /// `ID` and `CONFIG` of the simulated NPU.
    pub hw: HwInfo,
    /// Completion came through the interrupt path.
    pub interrupt: bool,
    /// What the binder says the blob needs.
    pub arena_needed: ArenaSize,
    /// Bytes of arena given to the binder.
    pub arena_bytes: usize,
    /// Bytes of it in use (alignment padding included).
    pub arena_used: usize,
    /// Every region, in index order.
    pub regions: Vec<RegionReport>,
    /// The driver's result.
    pub outcome: Result<RunInfo, DriverError>,
    /// What the simulator executed (`None` if the run never started).
    pub record: Option<RunRecord>,
    /// Simulator counters.
    pub stats: SimStats,
    /// What the simulator kept for further runs after this one: nothing (all zero) for
    /// [`run_blob`] and [`run_with_io`], which decode as they run.
    pub kept: KeptBytes,
    /// The bytes of every runtime region after the run, `(index, bytes)`.
    pub outputs: Vec<(usize, Vec<u8>)>,
    /// The PMU's counters after the run, when [`RunOptions::pmu`] asked for them.
    pub pmu: Option<PmuCounters>,
    /// The event each of the four counters counted ([`RunOptions::pmu`]'s), for the
    /// report's names.
    pub pmu_events: Option<[PmuEvent; 4]>,
}

impl RunReport {
    /// The run succeeded.
    #[must_use]
    pub fn succeeded(&self) -> bool {
        self.outcome.is_ok()
    }

    /// A human-readable report.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let accel = match self.accel_macs {
            0 => "unspecified".to_string(),
            m => format!("{m} MACs/cycle"),
        };
        let _ = writeln!(s, "blob: {} bytes, compiled for {accel}", self.blob_bytes);
        let c = self.hw.config;
        let _ = writeln!(
            s,
            "npu: simulated Ethos-U55, ID {:#010x}, CONFIG {:#010x} ({} MACs/cycle, {} KiB SHRAM)",
            self.hw.id.0,
            c.0,
            c.macs(),
            c.shram_kib()
        );
        let _ = writeln!(
            s,
            "arena: {} bytes given (needs {} at a 16-aligned start, {} at any), {} used",
            self.arena_bytes,
            self.arena_needed.aligned_start,
            self.arena_needed.any_start,
            self.arena_used
        );
        let _ = writeln!(s, "regions:");
        for r in &self.regions {
            let b = &r.bound;
            let kind = match b.kind {
                RegionKind::Baked => "baked",
                RegionKind::Runtime => "runtime",
                RegionKind::Caller => "caller",
            };
            let role = r
                .role_name
                .map_or_else(|| format!("role {}", b.role), str::to_string);
            let _ = writeln!(
                s,
                "  {} {role:<8} {kind:<7} npu {:#012x} size {:#9x}  read {:#9x}  written {:#9x}  fnv1a {:#010x}",
                b.index, b.npu_address, b.size, r.read_extent, r.write_extent, r.fnv1a
            );
        }
        let mode = if self.interrupt {
            "interrupt"
        } else {
            "polling"
        };
        if let Some(rec) = &self.record {
            let _ = writeln!(
                s,
                "executed: {} commands, {} operations, {} DMA copies ({} bytes), {} SHRAM transfers",
                rec.commands, rec.operations, rec.dma_copies, rec.dma_bytes, rec.shram_transfers
            );
            let _ = writeln!(
                s,
                "computed: {} operations (values not modelled: {}); work {} operations, {} bytes moved",
                rec.computed, rec.not_computed, rec.work.ops, rec.work.bytes
            );
            if let Some(e) = &rec.compute_error {
                let _ = writeln!(s, "stopped: {e}");
            }
            if let Some(f) = &rec.bus_fault {
                let _ = writeln!(s, "bus fault: {f:?}");
            }
            if let Some(e) = &rec.parse_error {
                let _ = writeln!(s, "parse error: {e}");
            }
        }
        if let Some(p) = &self.pmu {
            let _ = write!(s, "pmu: {} cycles, events [", p.cycles);
            let names = self.pmu_events.unwrap_or_default();
            for (n, (count, event)) in p.events.iter().zip(names).enumerate() {
                let sep = if n == 0 { "" } else { ", " };
                let _ = write!(s, "{sep}{event} {count}");
            }
            let _ = writeln!(s, "], overflow {:#010x}", p.overflow);
        }
        match &self.outcome {
            Ok(info) => {
                let _ = writeln!(
                    s,
                    "result: ok ({mode}, {} checks): STATUS {}, QREAD {:#x}",
                    info.polls, info.status, info.qread
                );
                let _ = writeln!(
                    s,
                    "{}",
                    match info.compiled_for {
                        ConfigCheck::Matched => {
                            "compiled-for: npu_config and npu_id checked against the NPU's CONFIG and ID"
                        }
                        ConfigCheck::Skipped => {
                            "compiled-for: skipped (no npu_config/npu_id words: NPU1 version 1, or left zero); MACs/cycle compared"
                        }
                    }
                );
            }
            Err(e) => {
                let _ = writeln!(s, "result: FAILED ({mode}): {e}");
            }
        }
        s
    }
}

/// Ask the allocator for `bytes` and give them back: `Err(OutOfMemory)` when it refuses
/// (a later zeroed allocation of the same size then gets the same answer from the
/// system's overcommit policy, instead of aborting the process).
#[allow(
    clippy::result_large_err,
    reason = "RunError carries npuschema_core::Error, the project-wide Copy error"
)]
fn probe_allocation(bytes: u64) -> Result<(), RunError> {
    let n = usize::try_from(bytes).map_err(|_| RunError::OutOfMemory { bytes })?;
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(n)
        .map_err(|_| RunError::OutOfMemory { bytes })
}

/// MACs/cycle for a `CONFIG` that matches the blob.
fn sim_macs(accel: u32) -> u32 {
    if accel == 0 { 128 } else { accel }
}

/// Validate `blob` (copied first to a 16-byte aligned address, as a firmware image would
/// place it), bind it into a fresh arena of [`ArenaSize::any_start`] bytes, run it on a
/// simulated U55 through [`Driver`] (polling or interrupt), and report what happened.
/// The simulator decodes the command stream and each weight stream as it runs (on every
/// pass that reads it) and keeps no decoding: its memory is the bound regions, SHRAM and
/// its fixed-size state, as the `no_std` build's ([`RunReport::kept`] is zero).
///
/// # Errors
///
/// [`RunError`] when the blob cannot be run at all; a run that fails (a bus fault, a
/// configuration mismatch, a timeout, ...) is reported in [`RunReport::outcome`].
#[allow(
    clippy::result_large_err,
    reason = "carries npuschema_core::Error, the project-wide Copy error"
)]
pub fn run_blob(blob: &[u8], opts: &RunOptions) -> Result<RunReport, RunError> {
    prepare(blob, opts, false, |job, setup| {
        report(blob, opts, job, setup)
    })
}

/// What [`prepare`] hands on: the simulated NPU and its initialised driver.
struct Setup {
    sim: Sim,
    driver: Driver<Sim, Sim>,
    hw: HwInfo,
    accel_macs: u32,
    roles: Vec<Role>,
    needed: ArenaSize,
    arena_bytes: usize,
}

/// `bytes` written at `offset` of runtime region `region`.
#[allow(
    clippy::result_large_err,
    reason = "carries npuschema_core::Error, the project-wide Copy error"
)]
fn write_placed(
    job: &mut CheckedJob<'_, '_>,
    region: usize,
    offset: u64,
    bytes: &[u8],
) -> Result<(), RunError> {
    let Some(dst) = job.region_bytes_mut(region) else {
        return Err(RunError::Input {
            region,
            reason: "not a runtime region of this blob",
        });
    };
    let dst = usize::try_from(offset)
        .ok()
        .and_then(|at| dst.get_mut(at..at.checked_add(bytes.len())?));
    let Some(dst) = dst else {
        return Err(RunError::Input {
            region,
            reason: "input does not fit in the region at its offset",
        });
    };
    dst.copy_from_slice(bytes);
    Ok(())
}

/// Validate, bind, check, write `opts`' inputs, make the simulated NPU (keeping decodings
/// for the next runs when `keep`: [`Sim::set_keep_decodings`]) and initialise its driver;
/// then `f`.
#[allow(
    clippy::result_large_err,
    reason = "carries npuschema_core::Error, the project-wide Copy error"
)]
fn prepare<R>(
    blob: &[u8],
    opts: &RunOptions,
    keep: bool,
    f: impl FnOnce(&mut CheckedJob<'_, '_>, Setup) -> Result<R, RunError>,
) -> Result<R, RunError> {
    // A firmware image places the blob at a 16-byte aligned address; a `Vec<u8>` or a file
    // read promises no alignment, so run a copy that sits at one.
    let mut placed = vec![0u8; blob.len().saturating_add(15)];
    let skew = 0usize.wrapping_sub(placed.as_ptr().addr()) & 15;
    let copy = placed
        .get_mut(skew..skew.saturating_add(blob.len()))
        .unwrap_or_default();
    copy.copy_from_slice(blob);
    let blob: &[u8] = copy;
    let view = Npu1::validate(blob).map_err(RunError::Invalid)?;
    let accel_macs = view.header().accel().raw();
    let roles: Vec<Role> = view.regions().map(|r| r.role()).collect();
    let needed = arena_size(&view);
    if needed.any_start > opts.max_arena {
        return Err(RunError::OverLimit {
            needed: needed.any_start,
            limit: opts.max_arena,
        });
    }
    let arena_bytes = usize::try_from(needed.any_start).map_err(|_| {
        RunError::Bind(Error::new(
            "arena-overflow",
            npuschema_core::Field::plain("regions"),
            32,
            npuschema_core::Detail::Short {
                needed: needed.any_start,
                available: usize::MAX as u64,
            },
        ))
    })?;
    // The arena, and the simulator's copy of its runtime regions: both fallible, so that
    // a large `--max-arena` meets a clear error rather than an allocation abort.
    // (The runtime regions lie in the arena, so the arena's size bounds the copy's.)
    probe_allocation(arena_bytes.saturating_add(16) as u64)?;
    probe_allocation(needed.any_start)?;
    let mut storage = vec![0u8; arena_bytes.saturating_add(16)];
    let base = storage.as_ptr().addr();
    // base + at == arena_misalign (mod 16).
    let at = opts.arena_misalign.wrapping_sub(base) & 15;
    let arena = storage
        .get_mut(at..at.saturating_add(arena_bytes))
        .unwrap_or_default();
    let job = Job::bind(view, arena).map_err(RunError::Bind)?;
    let mut job = CheckedJob::check(job).map_err(|r| RunError::Check(r.error))?;

    for (region, bytes) in &opts.inputs {
        let Some(dst) = job.region_bytes_mut(*region) else {
            return Err(RunError::Input {
                region: *region,
                reason: "not a runtime region of this blob",
            });
        };
        let Some(dst) = dst.get_mut(..bytes.len()) else {
            return Err(RunError::Input {
                region: *region,
                reason: "input longer than the region",
            });
        };
        dst.copy_from_slice(bytes);
    }

    for (region, offset, bytes) in &opts.placed_inputs {
        write_placed(&mut job, *region, *offset, bytes)?;
    }

    let macs = opts.macs.unwrap_or_else(|| sim_macs(accel_macs));
    let cfg = SimConfig {
        run_latency: opts.run_latency,
        faults: opts.faults,
        budget: opts.budget,
        ..SimConfig::u55(macs)
    };
    let sim = Sim::new(cfg);
    sim.set_keep_decodings(keep);
    sim.bind_job(&job);
    let dopts = DriverOptions {
        run_timeout: opts.run_timeout,
        // The bus addresses are the host's (64-bit) addresses of the blob and the arena.
        address_bits: 64,
        ..DriverOptions::default()
    };
    let mut driver = Driver::new(sim.clone(), sim.clone(), dopts);
    let hw = driver.init().map_err(RunError::Init)?;
    if let Some(cfg) = &opts.pmu {
        driver.pmu_enable(cfg).map_err(RunError::Init)?;
    }
    f(
        &mut job,
        Setup {
            sim,
            driver,
            hw,
            accel_macs,
            roles,
            needed,
            arena_bytes,
        },
    )
}

/// One run of the prepared job, reported.
#[allow(
    clippy::result_large_err,
    reason = "carries npuschema_core::Error, the project-wide Copy error"
)]
fn report(
    blob: &[u8],
    opts: &RunOptions,
    job: &mut CheckedJob<'_, '_>,
    setup: Setup,
) -> Result<RunReport, RunError> {
    let Setup {
        sim,
        mut driver,
        hw,
        accel_macs,
        roles,
        needed,
        arena_bytes,
    } = setup;
    let outcome = if opts.interrupt {
        let latch = Rc::new(IrqLatch::new());
        let isr = Rc::clone(&latch);
        sim.set_irq_handler(move |regs| {
            isr.on_irq(regs);
        });
        // A fresh latch always hands out its key.
        let outcome = match latch.claim() {
            Some(mut key) => driver.run_irq(job, &mut key),
            None => driver.run(job),
        };
        sim.clear_irq_handler();
        outcome
    } else {
        driver.run(job)
    };
    let pmu = opts.pmu.map(|_| {
        let counters = driver.pmu_read();
        driver.pmu_disable();
        counters
    });

    let record = sim.last_run();
    let mut regions = Vec::new();
    let mut outputs = Vec::new();
    for bound in job.regions() {
        let i = usize::from(bound.index);
        let bytes = job.region_bytes(i).unwrap_or_default();
        let (read_extent, write_extent) = record.as_ref().map_or((0, 0), |r| {
            (
                r.read_extent.get(i).copied().unwrap_or(0),
                r.write_extent.get(i).copied().unwrap_or(0),
            )
        });
        regions.push(RegionReport {
            bound,
            role_name: roles.get(i).and_then(|r| r.name()),
            fnv1a: fnv1a32(FNV1A32_OFFSET_BASIS, bytes),
            read_extent,
            write_extent,
        });
        if bound.kind != RegionKind::Baked {
            // As large as the arena: fallible, as the arena is (a clear error, not an
            // allocation abort, when a large `--max-arena` leaves no room for the copy).
            let mut copy = Vec::new();
            copy.try_reserve_exact(bytes.len())
                .map_err(|_| RunError::OutOfMemory {
                    bytes: bytes.len() as u64,
                })?;
            copy.extend_from_slice(bytes);
            outputs.push((i, copy));
        }
    }
    Ok(RunReport {
        blob_bytes: blob.len(),
        accel_macs,
        hw,
        interrupt: opts.interrupt,
        arena_needed: needed,
        arena_bytes,
        arena_used: job.arena_used(),
        regions,
        outcome,
        record,
        stats: sim.stats(),
        kept: sim.kept(),
        outputs,
        pmu,
        pmu_events: opts.pmu.map(|c| c.events),
    })
}

/// A tensor's place in a runtime region: `(region index, byte offset, length)`.
pub type Place = (usize, u64, u64);

/// Run `blob` with `inputs` (`(region, offset, bytes)`) written into its runtime regions,
/// and return the report with the bytes at each of `outputs` after the run: empty when the
/// run failed or any operation's values were not computed (not modelled, or a weight
/// stream that does not decode: the report's record says which). The places are what `npuschema pack` reports for the model's inputs and
/// outputs; NPU1 v2's tensor table will name them.
///
/// # Errors
///
/// [`RunError`] as [`run_blob`], and [`RunError::Input`] for a place outside a runtime
/// region.
#[allow(
    clippy::result_large_err,
    reason = "carries npuschema_core::Error, the project-wide Copy error"
)]
pub fn run_with_io(
    blob: &[u8],
    opts: &RunOptions,
    inputs: &[(usize, u64, &[u8])],
    outputs: &[Place],
) -> Result<(RunReport, Vec<Vec<u8>>), RunError> {
    let mut opts = opts.clone();
    opts.placed_inputs = inputs
        .iter()
        .map(|(r, o, b)| (*r, *o, b.to_vec()))
        .collect();
    let report = run_blob(blob, &opts)?;
    let mut out = Vec::new();
    let computed = report
        .record
        .as_ref()
        .is_some_and(|r| r.not_computed == 0 && r.compute_error.is_none());
    if report.succeeded() && computed {
        for &(region, offset, len) in outputs {
            let bytes = report
                .outputs
                .iter()
                .find(|(i, _)| *i == region)
                .and_then(|(_, b)| {
                    let at = usize::try_from(offset).ok()?;
                    b.get(at..at.checked_add(usize::try_from(len).ok()?)?)
                })
                .ok_or(RunError::Input {
                    region,
                    reason: "output does not fit in the region at its offset",
                })?;
            out.push(bytes.to_vec());
        }
    }
    Ok((report, out))
}

/// A blob validated, bound, checked and on a simulated NPU whose driver is initialised,
/// for many inferences: as TFLite's interpreter is made and its tensors allocated once,
/// then invoked per input. Made by [`with_session`].
///
/// A session is the explicit opt-in to memory beyond the bound regions and SHRAM, for the
/// speed of repeated inference: its simulator keeps the command stream's decoding (while
/// the stream's bytes are unchanged, compared on every run) and the weight streams'
/// decodings, each reused by the next passes and inferences, and bounded by what the model
/// needs ([`Sim::kept`], [`KeptBytes`]): the stream's at most its bytes plus
/// [`KeptBytes::STEP_BYTES`] a command and [`KeptBytes::OPERATION_BYTES`] more an
/// operation (24 and 984 on a 64-bit host; a stream of more than 16K operations keeps
/// nothing), the weights' at most [`crate::KEPT_WEIGHT_BYTES_PER_STREAM_BYTE`] (16) bytes
/// per byte of the distinct weight streams the stream's operations read, plus
/// [`KeptBytes::WEIGHT_ENTRY_BYTES`] (152) a stream, and 64 MiB in all; a weight stream
/// beyond is decoded on every pass. For micro_speech that is 42 KB for the stream and
/// 183 KB for its 19 KB of weight streams. A one-shot run ([`run_blob`],
/// [`run_with_io`]) keeps none of it.
pub struct Session<'j, 'b, 'a> {
    job: &'j mut CheckedJob<'b, 'a>,
    setup: Setup,
}

/// One inference of a [`Session`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inference {
    /// What the driver's run returned.
    pub outcome: Result<RunInfo, DriverError>,
    /// What the simulated NPU did.
    pub record: Option<RunRecord>,
    /// The bytes at each requested output place; empty unless the run succeeded and every
    /// operation's values were computed (as [`run_with_io`]).
    pub outputs: Vec<Vec<u8>>,
}

impl Session<'_, '_, '_> {
    /// The simulated NPU (its counters, its last run, the register writes of the last
    /// inference).
    #[must_use]
    pub fn sim(&self) -> &Sim {
        &self.setup.sim
    }

    /// Write `inputs` (`(region, offset, bytes)`), run the stream through the driver (its
    /// cache maintenance hands the NPU the runtime regions, as on a board), and read
    /// `outputs`.
    ///
    /// # Errors
    ///
    /// [`RunError::Input`] for an input or output that is not inside a runtime region.
    #[allow(
        clippy::result_large_err,
        reason = "carries npuschema_core::Error, the project-wide Copy error"
    )]
    pub fn infer(
        &mut self,
        inputs: &[(usize, u64, &[u8])],
        outputs: &[Place],
    ) -> Result<Inference, RunError> {
        for &(region, offset, bytes) in inputs {
            write_placed(self.job, region, offset, bytes)?;
        }
        // The register write log holds this inference's writes only: a session's memory
        // does not grow with the number of inferences.
        self.setup.sim.clear_write_log();
        let outcome = self.setup.driver.run(self.job);
        let record = self.setup.sim.last_run();
        let computed = record
            .as_ref()
            .is_some_and(|r| r.not_computed == 0 && r.compute_error.is_none());
        let mut out = Vec::new();
        if outcome.is_ok() && computed {
            for &(region, offset, len) in outputs {
                let bytes = self
                    .job
                    .region_bytes(region)
                    .and_then(|b| {
                        let at = usize::try_from(offset).ok()?;
                        b.get(at..at.checked_add(usize::try_from(len).ok()?)?)
                    })
                    .ok_or(RunError::Input {
                        region,
                        reason: "output does not fit in the region at its offset",
                    })?;
                out.push(bytes.to_vec());
            }
        }
        Ok(Inference {
            outcome,
            record,
            outputs: out,
        })
    }
}

/// Prepare `blob` as [`run_blob`] does (`opts`' inputs written once, polling; `opts.pmu`
/// and `opts.interrupt` are not used) and hand `f` a [`Session`] to run it many times.
///
/// # Errors
///
/// [`RunError`] when the blob cannot be run at all.
#[allow(
    clippy::result_large_err,
    reason = "carries npuschema_core::Error, the project-wide Copy error"
)]
pub fn with_session<R>(
    blob: &[u8],
    opts: &RunOptions,
    f: impl FnOnce(&mut Session<'_, '_, '_>) -> R,
) -> Result<R, RunError> {
    let opts = RunOptions {
        pmu: None,
        ..opts.clone()
    };
    prepare(blob, &opts, true, |job, setup| {
        let mut session = Session { job, setup };
        Ok(f(&mut session))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allocation_the_host_refuses_is_a_clear_error() {
        // 2^62 bytes: refused by every allocator (capacity overflow or out of memory).
        let e = probe_allocation(1 << 62).unwrap_err();
        assert_eq!(e.code(), "sim-out-of-memory");
        assert!(
            e.to_string()
                .contains("cannot allocate 4611686018427387904 bytes")
        );
        assert!(probe_allocation(4096).is_ok());
    }
}
