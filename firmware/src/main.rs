//! npuschema on a Cortex-M55: an image for Arm's MPS3 AN547 (Corstone-300), run under
//! `qemu-system-arm -machine mps3-an547` by `scripts/firmware`.
//!
//! 1. **Measured**: for every embedded blob, validate + bind with the generated validator
//!    and the binder (`load_each_as::<Brief>`, the C peer's shape: regions written to a
//!    table) and with the C peer's `npu1_load`, on the same bytes and the same arena:
//!    instructions (SysTick; see [`instructions`]) and stack high-water mark (painting).
//!    Both must accept and bind the regions at the same addresses.
//! 2. **The board's NPU**: each Vela model is loaded and the driver brought up on the
//!    Ethos-U55's register address. QEMU does not model the NPU (the block reads as zero),
//!    so the probe must fail with `not-u55`, and a run must then be refused.
//! 3. **The simulated NPU** linked into the image (`npuschema_sim::StaticSim`, no std, no
//!    allocator): the same load and run as `npuschema run --sim` on the host, printed in
//!    its format between `--- run --sim NAME` and `--- end`; `scripts/firmware` compares
//!    the two. The run must succeed.
//!
//! Output goes through semihosting; the exit status (semihosting exit) is 0 when every
//! check above holds.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

mod hw;

use core::fmt::{self, Write as _};

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprint, hprintln};
use npuschema_core::{Brief, FNV1A32_OFFSET_BASIS, fnv1a32};
use npuschema_generated::npu1::{Npu1, Role};
use npuschema_runtime::binder::{
    ArenaSize, BoundRegion, Identity, Job, MAX_REGIONS, RegionKind, arena_size, load_each_as,
};
use npuschema_runtime::binder::{CACHE_LINE, CacheAligned};
use npuschema_runtime::cmd::{CheckedJob, JobCheckError};
use npuschema_runtime::driver::{
    ConfigCheck, Driver, DriverError, DriverOptions, HwInfo, IrqKey, RunInfo,
};
use npuschema_runtime::mmio::Mmio;
use npuschema_runtime::mmio::cortex_m::CortexM;
use npuschema_sim::{RunRecord, SimConfig, StaticSim};

use hw::{BLOBS, Blob, Npu1Job};

/// SysTick ticks to instructions. Under `-icount shift=5` QEMU advances virtual time 32 ns
/// per instruction, and SysTick (processor clock) counts the AN547's 32 MHz clock, a tick
/// every 31.25 ns: 1.024 ticks per instruction.
fn instructions(ticks: u32) -> u32 {
    u32::try_from(u64::from(ticks) * 125 / 128).unwrap_or(u32::MAX)
}

/// SysTick ticks `f` takes (the 24-bit counter counts down; `f` must take less than 2^24).
#[inline(never)]
fn ticks<R>(f: impl FnOnce() -> R) -> (R, u32) {
    let t0 = SYST::get_current();
    let r = f();
    let t1 = SYST::get_current();
    (r, t0.wrapping_sub(t1) & 0x00FF_FFFF)
}

/// Rust's validate + bind in the C peer's shape (as `nostd-proof`'s `npu1_validate_bind`):
/// one pass, failures as [`Brief`], each region written into `out` as it is placed.
#[inline(never)]
fn rust_load(blob: &[u8], arena: &mut [u8], out: &mut Npu1Job) -> i32 {
    let each = |r: BoundRegion| {
        let i = usize::from(r.index);
        if let (Some(base), Some(size)) = (out.base.get_mut(i), out.size.get_mut(i)) {
            *base = r.cpu_address;
            *size = u32::try_from(r.size).unwrap_or(u32::MAX);
        }
    };
    match load_each_as::<Brief, _, _>(blob, arena, &Identity, each) {
        Ok((_, bound)) => {
            out.cmd = bound.cmd_stream.as_ptr().addr();
            out.cmd_bytes = u32::try_from(bound.cmd_stream.len()).unwrap_or(u32::MAX);
            out.count = u32::try_from(bound.region_count).unwrap_or(u32::MAX);
            0
        }
        Err(e) => i32::from(e.id()),
    }
}

/// Nothing, called as the measured functions are: what measuring itself costs.
#[inline(never)]
fn nothing(blob: &[u8], arena: &mut [u8], out: &mut Npu1Job) -> i32 {
    // No stack of its own: a leaf that reads its arguments' lengths.
    i32::try_from(blob.len() ^ arena.len()).unwrap_or(0) ^ i32::from(out.count == 0)
}

/// What the harness itself costs (a call through [`ticks`] and [`hw::stack_peak`] to a
/// function that does nothing), taken off every figure.
#[derive(Clone, Copy)]
struct Overhead {
    ticks: u32,
    stack: usize,
}

/// `Job::load_as::<Brief>`: validate + bind into a [`Job`] (what the driver takes).
#[inline(never)]
fn rust_job_load(blob: &[u8], arena: &mut [u8]) -> i32 {
    match Job::load_as::<Brief>(blob, arena) {
        Ok(job) => i32::try_from(job.region_count()).unwrap_or(-1),
        Err(e) => -i32::from(e.id()),
    }
}

/// `println!` over semihosting (with inline format arguments, which `hprintln!`'s
/// `concat!` does not allow).
macro_rules! say {
    () => {
        hprintln!("")
    };
    ($($t:tt)*) => {
        hprintln!("{}", format_args!($($t)*))
    };
}

/// A fixed-size string for a padded field (`role 7`).
struct Small {
    buf: [u8; 24],
    len: usize,
}

impl Small {
    fn new() -> Self {
        Self {
            buf: [0; 24],
            len: 0,
        }
    }
    fn as_str(&self) -> &str {
        self.buf
            .get(..self.len)
            .and_then(|b| core::str::from_utf8(b).ok())
            .unwrap_or("")
    }
}

impl fmt::Write for Small {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// One blob's measurement.
struct Measured {
    rust: u32,
    rust_stack: Option<usize>,
    job: u32,
    job_stack: Option<usize>,
    peer: u32,
    peer_stack: Option<usize>,
}

/// Measure validate + bind of `blob` three ways; `None` (after saying why) when Rust and
/// the peer disagree or either rejects it.
fn measure(blob: &Blob, arena: &mut [u8], overhead: Overhead) -> Option<Measured> {
    let mut rj = Npu1Job::default();
    let mut cj = Npu1Job::default();
    let ((rs, rt), rust_stack) = hw::stack_peak(|| ticks(|| rust_load(blob.bytes, arena, &mut rj)));
    if is_v2(blob.bytes) {
        // NPU1 version 2: the C peer reads version 1 only; its row compares with the
        // version 1 blob of the same compilation instead (`measurements`).
        let ((js, jt), job_stack) = hw::stack_peak(|| ticks(|| rust_job_load(blob.bytes, arena)));
        if rs != 0 || js < 0 {
            say!("{}: rejected: Rust {rs}, Job::load_as {js}", blob.name);
            return None;
        }
        return Some(Measured {
            rust: instructions(rt.saturating_sub(overhead.ticks)),
            rust_stack: rust_stack.map(|n| n.saturating_sub(overhead.stack)),
            job: instructions(jt.saturating_sub(overhead.ticks)),
            job_stack: job_stack.map(|n| n.saturating_sub(overhead.stack)),
            peer: 0,
            peer_stack: None,
        });
    }
    let ((cs, ct), peer_stack) =
        hw::stack_peak(|| ticks(|| hw::peer_load(blob.bytes, arena, &mut cj)));
    let ((js, jt), job_stack) = hw::stack_peak(|| ticks(|| rust_job_load(blob.bytes, arena)));
    if rs != 0 || cs != 0 || js < 0 {
        say!(
            "{}: rejected: Rust {rs}, C peer {cs}, Job::load_as {js}",
            blob.name
        );
        return None;
    }
    if rj != cj {
        say!(
            "{}: Rust and the C peer bound differently: {rj:?} / {cj:?}",
            blob.name
        );
        return None;
    }
    Some(Measured {
        rust: instructions(rt.saturating_sub(overhead.ticks)),
        rust_stack: rust_stack.map(|n| n.saturating_sub(overhead.stack)),
        job: instructions(jt.saturating_sub(overhead.ticks)),
        job_stack: job_stack.map(|n| n.saturating_sub(overhead.stack)),
        peer: instructions(ct.saturating_sub(overhead.ticks)),
        peer_stack: peer_stack.map(|n| n.saturating_sub(overhead.stack)),
    })
}

/// `n` as `1,234,567`.
struct Thousands(u32);

impl fmt::Display for Thousands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n >= 1_000_000 {
            write!(
                f,
                "{},{:03},{:03}",
                n / 1_000_000,
                n / 1000 % 1000,
                n % 1000
            )
        } else if n >= 1000 {
            write!(f, "{},{:03}", n / 1000, n % 1000)
        } else {
            write!(f, "{n}")
        }
    }
}

/// `a / b` with two decimals (`-` when `b` is 0).
struct Hundredths(u32, u32);

impl fmt::Display for Hundredths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 == 0 {
            return f.write_str("-");
        }
        let h = (u64::from(self.0) * 100 + u64::from(self.1) / 2) / u64::from(self.1);
        write!(f, "{}.{:02}", h / 100, h % 100)
    }
}

/// A stack figure, or `?` when painting could not tell.
struct Stack(Option<usize>);

impl fmt::Display for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n} B"),
            None => f.write_str("?"),
        }
    }
}

/// Whether `blob` says NPU1 version 2.
fn is_v2(blob: &[u8]) -> bool {
    blob.get(4..8) == Some(&[2, 0, 0, 0][..])
}

/// The name of the version 1 blob of the same compilation as version 2 blob `name`
/// (`scripts/firmware` packs `NAME` and `NAME_v2`).
fn v1_sibling(name: &str) -> Option<&'static Blob> {
    let base = name.strip_suffix("_v2")?;
    BLOBS.iter().find(|b| b.name == base)
}

/// `rust / peer` as `1.00x`.
struct Ratio(u32, u32);

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 == 0 {
            return f.write_str("-");
        }
        let hundredths = (u64::from(self.0) * 100 + u64::from(self.1) / 2) / u64::from(self.1);
        write!(f, "{}.{:02}x", hundredths / 100, hundredths % 100)
    }
}

/// Step 1: the measurement table. `false` if any blob failed.
fn measurements(arena: &mut [u8]) -> bool {
    let mut job = Npu1Job::default();
    let blob = BLOBS.first().map_or(&[][..], |b| b.bytes);
    let ((r, t), stack) = hw::stack_peak(|| ticks(|| nothing(blob, arena, &mut job)));
    core::hint::black_box(r);
    let overhead = Overhead {
        ticks: t,
        stack: stack.unwrap_or(0),
    };
    let (rust_opt, peer_opt) = hw::OPT_LEVELS;
    say!(
        "## validate + bind on the Cortex-M55 (QEMU mps3-an547, -icount shift=5): instructions; Rust opt-level {rust_opt}, C peer arm-none-eabi-gcc {peer_opt}"
    );
    say!("");
    say!(
        "| blob | bytes | Rust `load_each_as::<Brief>` | C peer `npu1_load` | Rust / C | Rust `Job::load_as::<Brief>` | stack: Rust / C / `Job::load_as` |"
    );
    say!("|---|---|---|---|---|---|---|");
    let mut ok = true;
    // The version 1 figures, by blob index, for the version 2 rows' ratios.
    let mut v1_rust = [0u32; hw::BLOBS.len()];
    let mut v2_rows = [None; hw::BLOBS.len()];
    for (i, blob) in BLOBS.iter().enumerate() {
        let Some(m) = measure(blob, arena, overhead) else {
            ok = false;
            continue;
        };
        if is_v2(blob.bytes) {
            if let Some(slot) = v2_rows.get_mut(i) {
                *slot = Some((m.rust, m.job));
            }
            say!(
                "| {} | {} | {} | - (version 2) | - | {} | {} / - / {} |",
                blob.name,
                Thousands(u32::try_from(blob.bytes.len()).unwrap_or(u32::MAX)),
                Thousands(m.rust),
                Thousands(m.job),
                Stack(m.rust_stack),
                Stack(m.job_stack),
            );
            continue;
        }
        if let Some(slot) = v1_rust.get_mut(i) {
            *slot = m.rust;
        }
        say!(
            "| {} | {} | {} | {} | {} | {} ({}) | {} / {} / {} |",
            blob.name,
            Thousands(u32::try_from(blob.bytes.len()).unwrap_or(u32::MAX)),
            Thousands(m.rust),
            Thousands(m.peer),
            Ratio(m.rust, m.peer),
            Thousands(m.job),
            Ratio(m.job, m.peer),
            Stack(m.rust_stack),
            Stack(m.peer_stack),
            Stack(m.job_stack),
        );
    }
    say!("");
    // NPU1 version 2 against version 1 of the same compilation: the tensor table's checks
    // (names in order, each tensor inside a runtime region, shape and size) on top.
    for (blob, row) in BLOBS.iter().zip(v2_rows) {
        let (Some((rust, _)), Some(v1)) = (row, v1_sibling(blob.name)) else {
            continue;
        };
        let base = BLOBS
            .iter()
            .position(|b| core::ptr::eq(b, v1))
            .and_then(|k| v1_rust.get(k).copied())
            .unwrap_or(0);
        say!(
            "{}: validate + bind of version 2 against version 1 ({}): {} / {} instructions = {}",
            blob.name,
            v1.name,
            Thousands(rust),
            Thousands(base),
            Ratio(rust, base)
        );
    }
    say!("");
    say!(
        "Instructions and stack (painted: the deepest byte written below the caller's frame) less the harness's own ({} ticks, {} B: a call through it to a function that does nothing).",
        overhead.ticks,
        overhead.stack
    );
    hprint!("{}", format_args!("C peer -fstack-usage ({peer_opt}):"));
    for (func, bytes, kind) in hw::PEER_STACK_USAGE {
        hprint!("{}", format_args!(" {func} {bytes} B ({kind});"));
    }
    say!("");
    ok
}

/// Step 2: the driver on the board's NPU address (with the shipped Cortex-M platform and
/// the interrupt binding) must fail the probe with `not-u55` (`init`, made once), and then
/// refuse to run each blob, loaded on 32-byte cache lines and checked.
fn board_npu(
    blob: &Blob,
    arena: &mut [u8],
    npu: &mut Driver<Mmio, CortexM>,
    irq: &mut IrqKey<'_>,
    init: &Result<HwInfo, DriverError>,
) -> bool {
    let lines = CacheAligned::lines(Identity);
    let job = match Job::load_with_as::<npuschema_core::Error, _>(blob.bytes, arena, &lines) {
        Ok(j) => j,
        Err(e) => {
            say!("{}: cannot load: {e}", blob.name);
            return false;
        }
    };
    let mut job = match CheckedJob::check(job) {
        Ok(j) => j,
        Err(r) => {
            say!("{}: command stream refused: {}", blob.name, r.error);
            return false;
        }
    };
    let run = npu.run_irq(&mut job, irq);
    match (init, &run) {
        (Err(e), Err(r)) if e.code == "not-u55" && r.code == "not-initialised" => {
            say!(
                "{}: Ethos-U55 at {:#010x}: init: {e}; run: refused ({})",
                blob.name,
                hw::NPU_BASE,
                r.code
            );
            true
        }
        _ => {
            say!(
                "{}: Ethos-U55 at {:#010x}: expected not-u55 then not-initialised, got init {init:?}, run {run:?}",
                blob.name,
                hw::NPU_BASE
            );
            false
        }
    }
}

/// What [`sim_run`] found, for printing.
struct SimReport {
    blob_bytes: usize,
    accel_macs: u32,
    hw: HwInfo,
    needed: ArenaSize,
    arena_bytes: usize,
    arena_used: usize,
    /// Per region: the binding, its role's name, FNV-1a of its bytes after the run.
    regions: [Option<(BoundRegion, Option<&'static str>, u32)>; MAX_REGIONS],
    outcome: Result<RunInfo, DriverError>,
    record: Option<RunRecord>,
    /// The on-device stream check: commands checked, SysTick ticks it took.
    check_commands: u32,
    check_ticks: u32,
    /// NPU1 version 2: the input written and the output read by name.
    tensors: Option<TensorIo>,
}

/// What a version 2 run did with its tensors, by name.
struct TensorIo {
    input: &'static str,
    input_bytes: u32,
    output: &'static str,
    output_fnv: u32,
    output_bytes: u32,
}

/// The input bytes `scripts/firmware` gives the host's `run --sim` too: byte `i` is
/// `(37 i + 11) mod 256`.
fn input_pattern(i: usize) -> u8 {
    (i.wrapping_mul(37).wrapping_add(11) & 0xFF) as u8
}

/// Write input 0 of a version 2 job by its name (found by number, then looked up by name,
/// as firmware would): its name and size.
fn write_input_by_name(job: &mut Job<'static, '_>) -> Option<(&'static str, u32)> {
    let name = job.input(0)?.name;
    let t = job.tensor(name)?;
    for (i, b) in job.tensor_bytes_mut(&t)?.iter_mut().enumerate() {
        *b = input_pattern(i);
    }
    Some((name, t.size))
}

/// Step 3: `npuschema run --sim`'s load and run, on the simulated NPU in this image:
/// validate, bind into an arena of `any_start` bytes at a 16-aligned address, a U55 with the
/// blob's MACs/cycle (128 when unspecified), init, start, poll to completion.
#[inline(never)]
fn sim_run(
    blob: &'static [u8],
    arena: &mut [u8],
    memory: &'static mut [u8],
    macs_override: Option<u32>,
) -> (Result<SimReport, SimFail>, &'static mut [u8]) {
    let view = match Npu1::validate(blob) {
        Ok(v) => v,
        Err(e) => return (Err(SimFail::Invalid(e)), memory),
    };
    let accel_macs = view.header().accel().raw();
    let mut roles: [Option<Role>; MAX_REGIONS] = [None; MAX_REGIONS];
    for (slot, r) in roles.iter_mut().zip(view.regions()) {
        *slot = Some(r.role());
    }
    let needed = arena_size(&view);
    let arena_bytes = usize::try_from(needed.any_start).unwrap_or(usize::MAX);
    let Some(arena) = arena.get_mut(..arena_bytes) else {
        return (Err(SimFail::ArenaTooSmall), memory);
    };
    let mut job = match Job::bind(view, arena) {
        Ok(j) => j,
        Err(e) => return (Err(SimFail::Bind(e)), memory),
    };
    let input = write_input_by_name(&mut job);
    // The driver runs only a checked job: the stream against the bound regions, here on
    // the core (measured).
    #[allow(
        clippy::result_large_err,
        reason = "the refused job comes back by value, as CheckedJob::check returns it"
    )]
    let (checked, check_ticks) = ticks(|| CheckedJob::check(job));
    let mut job = match checked {
        Ok(j) => j,
        Err(r) => return (Err(SimFail::Check(r.error)), memory),
    };
    let check_commands = job.summary().commands;
    let macs = macs_override.unwrap_or(if accel_macs == 0 { 128 } else { accel_macs });
    let sim = StaticSim::new(SimConfig::u55(macs), memory);
    let mapped = sim.map_static(blob.as_ptr().addr() as u64, blob);
    sim.bind_job(&job);
    let opts = DriverOptions {
        run_timeout: 100_000,
        ..DriverOptions::default()
    };
    let mut npu = Driver::new(sim.handle(), sim.handle(), opts);
    let result = match npu.init() {
        Err(e) => Err(SimFail::Init(e)),
        Ok(_) if !mapped => Err(SimFail::NotMapped),
        Ok(hw) => {
            let outcome = npu.run(&mut job);
            let mut regions = [None; MAX_REGIONS];
            for (slot, b) in regions.iter_mut().zip(job.regions()) {
                let i = usize::from(b.index);
                let bytes = job.region_bytes(i).unwrap_or_default();
                let role = roles.get(i).copied().flatten().and_then(Role::name);
                *slot = Some((b, role, fnv1a32(FNV1A32_OFFSET_BASIS, bytes)));
            }
            // The output, read by its name.
            let tensors = input.and_then(|(input, input_bytes)| {
                let name = job.output(0)?.name;
                let t = job.tensor(name)?;
                let bytes = job.tensor_bytes(&t)?;
                Some(TensorIo {
                    input,
                    input_bytes,
                    output: name,
                    output_fnv: fnv1a32(FNV1A32_OFFSET_BASIS, bytes),
                    output_bytes: t.size,
                })
            });
            Ok(SimReport {
                tensors,
                blob_bytes: blob.len(),
                accel_macs,
                hw,
                needed,
                arena_bytes,
                arena_used: job.arena_used(),
                regions,
                outcome,
                record: sim.last_run(),
                check_commands,
                check_ticks,
            })
        }
    };
    // `npu` (which borrows `sim`) is not used past here.
    (result, sim.into_backing())
}

/// Why [`sim_run`] could not run the blob (`npuschema_sim::RunError`'s cases).
enum SimFail {
    Invalid(npuschema_core::Error),
    Bind(npuschema_core::Error),
    Check(JobCheckError),
    ArenaTooSmall,
    NotMapped,
    Init(DriverError),
}

impl fmt::Display for SimFail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(e) => write!(f, "invalid NPU1 blob: {e}"),
            Self::Bind(e) => write!(f, "cannot bind: {e}"),
            Self::Check(e) => write!(f, "command stream refused: {e}"),
            Self::ArenaTooSmall => f.write_str("the image's arena is too small"),
            Self::NotMapped => f.write_str("the blob could not be mapped into the simulator"),
            Self::Init(e) => write!(f, "NPU init failed: {e}"),
        }
    }
}

/// `run --sim`'s text report (`npuschema_sim::RunReport::to_text`), line for line.
fn print_report(r: &SimReport) {
    let mut accel = Small::new();
    let _ = match r.accel_macs {
        0 => accel.write_str("unspecified"),
        m => write!(accel, "{m} MACs/cycle"),
    };
    say!(
        "blob: {} bytes, compiled for {}",
        r.blob_bytes,
        accel.as_str()
    );
    let c = r.hw.config;
    say!(
        "npu: simulated Ethos-U55, ID {:#010x}, CONFIG {:#010x} ({} MACs/cycle, {} KiB SHRAM)",
        r.hw.id.0,
        c.0,
        c.macs(),
        c.shram_kib()
    );
    say!(
        "arena: {} bytes given (needs {} at a 16-aligned start, {} at any), {} used",
        r.arena_bytes,
        r.needed.aligned_start,
        r.needed.any_start,
        r.arena_used
    );
    say!("regions:");
    for (b, name, fnv) in r.regions.iter().flatten() {
        let kind = match b.kind {
            RegionKind::Baked => "baked",
            RegionKind::Runtime => "runtime",
            RegionKind::Caller => "caller",
        };
        let mut role = Small::new();
        let _ = match name {
            Some(n) => role.write_str(n),
            None => write!(role, "role {}", b.role),
        };
        let (read, written) = r.record.as_ref().map_or((0, 0), |rec| {
            let i = usize::from(b.index);
            (
                rec.read_extent.get(i).copied().unwrap_or(0),
                rec.write_extent.get(i).copied().unwrap_or(0),
            )
        });
        say!(
            "  {} {:<8} {kind:<7} npu {:#012x} size {:#9x}  read {:#9x}  written {:#9x}  fnv1a {:#010x}",
            b.index,
            role.as_str(),
            b.npu_address,
            b.size,
            read,
            written,
            fnv
        );
    }
    if let Some(rec) = &r.record {
        say!(
            "executed: {} commands, {} operations, {} DMA copies ({} bytes), {} SHRAM transfers",
            rec.commands,
            rec.operations,
            rec.dma_copies,
            rec.dma_bytes,
            rec.shram_transfers
        );
        say!(
            "computed: {} operations (values not modelled: {}); work {} operations, {} bytes moved",
            rec.computed,
            rec.not_computed,
            rec.work.ops,
            rec.work.bytes
        );
        if let Some(e) = &rec.compute_error {
            say!("stopped: {e}");
        }
        if let Some(f) = &rec.bus_fault {
            say!("bus fault: {f:?}");
        }
        if let Some(e) = &rec.parse_error {
            say!("parse error: {e}");
        }
    }
    match &r.outcome {
        Ok(info) => {
            say!(
                "result: ok (polling, {} checks): STATUS {}, QREAD {:#x}",
                info.polls,
                info.status,
                info.qread
            );
            say!("{}", compiled_for_line(info.compiled_for));
        }
        Err(e) => say!("result: FAILED (polling): {e}"),
    }
}

/// `run --sim`'s line on the compiled-for check (`npuschema_sim::run`'s `to_text`).
fn compiled_for_line(c: ConfigCheck) -> &'static str {
    match c {
        ConfigCheck::Matched => {
            "compiled-for: npu_config and npu_id checked against the NPU's CONFIG and ID"
        }
        ConfigCheck::Skipped => {
            "compiled-for: skipped (no npu_config/npu_id words: NPU1 version 1, or left zero); MACs/cycle compared"
        }
    }
}

#[entry]
fn main() -> ! {
    let ok = run();
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::wfi();
    }
}

fn run() -> bool {
    let Some(mut p) = cortex_m::Peripherals::take() else {
        return false;
    };
    p.SYST.set_clock_source(SystClkSource::Core);
    p.SYST.set_reload(0x00FF_FFFF);
    p.SYST.clear_current();
    p.SYST.enable_counter();
    let (Some((arena, mut memory)), Some(regs)) = (hw::take_memory(), hw::take_npu()) else {
        return false;
    };
    say!(
        "npuschema firmware: MPS3 AN547, Cortex-M55; Ethos-U55 registers at {:#010x}, IRQ {}",
        hw::NPU_BASE,
        hw::NPU_IRQ
    );
    say!("");
    let mut ok = measurements(arena);
    say!("");
    let check_overhead = {
        let (r, t) = ticks(|| core::hint::black_box(0u32));
        core::hint::black_box(r);
        t
    };
    // The shipped Cortex-M platform: SCB cache maintenance on 32-byte lines, a clock (DWT's
    // cycle counter, or SysTick: QEMU's DWT does not count), WFE sleep.
    let platform = CortexM::new(p.SCB, &mut p.DCB, &mut p.DWT, &mut p.SYST);
    say!(
        "platform: CortexM ({CACHE_LINE}-byte lines), clock {:?}",
        platform.clock_source()
    );
    let Some(mut irq) = hw::NPU.key() else {
        return false;
    };
    let opts = DriverOptions {
        // One second of the AN547's 32 MHz core clock.
        run_timeout: CortexM::cycles(1_000_000, 32_000_000),
        ..DriverOptions::default()
    };
    let mut npu = Driver::new(regs, platform, opts);
    let init = npu.init();
    for blob in BLOBS.iter().filter(|b| b.model) {
        ok &= board_npu(blob, arena, &mut npu, &mut irq, &init);
        say!("--- run --sim {}", blob.name);
        let ((result, back), stack) = hw::stack_peak(|| sim_run(blob.bytes, arena, memory, None));
        memory = back;
        match result {
            Ok(report) => {
                print_report(&report);
                say!("--- end");
                if let Some(t) = &report.tensors {
                    say!(
                        "{}: tensors by name: input {:?} ({} bytes) written, output {:?} ({} bytes) read, fnv1a {:#010x}",
                        blob.name,
                        t.input,
                        t.input_bytes,
                        t.output,
                        t.output_bytes,
                        t.output_fnv
                    );
                }
                if blob.name.contains("_u256") {
                    // Compiled for 256 MACs/cycle: a 128-MAC NPU must refuse it on its
                    // compiled-for words, before anything runs.
                    let (again, back) = sim_run(blob.bytes, arena, memory, Some(128));
                    memory = back;
                    let refused = matches!(
                        &again,
                        Ok(r) if matches!(&r.outcome, Err(e) if e.code == "optimizer-config-mismatch")
                    );
                    match &again {
                        Ok(r) => match &r.outcome {
                            Err(e) => say!("{}: on a 128-MAC NPU: refused: {e}", blob.name),
                            Ok(_) => say!("{}: on a 128-MAC NPU: ran (it must not)", blob.name),
                        },
                        Err(e) => say!("{}: on a 128-MAC NPU: cannot run: {e}", blob.name),
                    }
                    ok &= refused;
                }
                say!(
                    "{}: whole run on the simulated NPU (validate, bind, check, init, run, simulator included): stack {}",
                    blob.name,
                    Stack(stack)
                );
                let instr = instructions(report.check_ticks.saturating_sub(check_overhead));
                let per = Hundredths(instr, report.check_commands);
                say!(
                    "{}: on-device stream check (CheckedJob::check): {} commands, {} instructions, {per} per command",
                    blob.name,
                    report.check_commands,
                    Thousands(instr)
                );
                ok &= report.outcome.is_ok();
            }
            Err(e) => {
                say!("cannot run: {e}");
                say!("--- end");
                ok = false;
            }
        }
    }
    say!("firmware: {}", if ok { "ok" } else { "FAILED" });
    ok
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    say!("panic: {info}");
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
