//! A `#![no_std]` staticlib with its own panic handler and no global allocator: the
//! firmware entry points `scripts/code-size` measures for `thumbv8m.main-none-eabihf`
//! (reachable `.text`, and that no panic entry point is reachable).
//!
//! Each entry point is a plain, safe Rust function taking what a firmware caller has
//! (slices, the job to fill, an [`Mmio`] its start-up code made), kept in the library by a
//! `#[used]` static that holds its address. Nothing here is exported or `unsafe`: the script
//! finds the function's symbol, makes it global in a copy of the archive and links from it
//! as the entry point with `--gc-sections`, so the image holds exactly the code it reaches.
//!
//! Built with `--cfg measure_only --cfg measure="NAME"`, the library keeps only that entry
//! point's root, so the compiler's inlining decisions (made across the whole library by
//! LTO) are those of a firmware image that calls just it: `scripts/code-size` builds it
//! once per measured entry point.
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(measure_only, allow(dead_code, unused_imports))]

use core::panic::PanicInfo;

use npuschema_core::{Brief, Error, Report};
use npuschema_generated::npu1::{Accel, Npu1, Npu1Writer, RegionData, RegionSpec, Role};
use npuschema_runtime::binder::{
    BoundRegion, Identity, Job, MAX_REGIONS, bind_each_as, load_each_as,
};
use npuschema_runtime::mmio::Mmio;

/// Status codes returned by the entry points besides a failing check's status.
pub mod status {
    /// Success.
    pub const OK: i32 = 0;
    /// The writer could not write (buffer too small, or a size over 32 bits).
    pub const WRITE: i32 = -2;
    /// The Ethos-U55 driver reported an error (probe, reset, configuration or the run).
    pub const DRIVER: i32 = -3;
    /// The command stream failed the check against its bound regions.
    pub const CHECK: i32 = -4;
}

/// Up to eight bound regions, laid out like the C peer's `npu1_job_t`.
#[repr(C)]
#[derive(Debug, Default)]
pub struct Npu1Job {
    /// The command stream's address (in the blob).
    pub cmd: usize,
    /// Its length.
    pub cmd_bytes: u32,
    /// Each region's address (`BASEP[n]`).
    pub base: [usize; MAX_REGIONS],
    /// Each region's size.
    pub size: [u32; MAX_REGIONS],
    /// Number of regions.
    pub count: u32,
}

/// A report as a positive status.
trait Status: Report {
    fn status(&self) -> i32;
}

impl Status for Error {
    /// 1 + the failing field's byte offset in the blob (capped).
    fn status(&self) -> i32 {
        i32::try_from(self.offset)
            .unwrap_or(i32::MAX - 1)
            .saturating_add(1)
    }
}

impl Status for Brief {
    /// The failing check's number (never 0): `npuschema_runtime::binder::error_site` on
    /// the host names the check.
    fn status(&self) -> i32 {
        i32::from(self.id())
    }
}

/// FNV-1a 32 of `data`, through `npuschema_core::fnv1a32`. Measured as "fnv1a32".
pub fn npuschema_fnv1a32(data: &[u8]) -> u32 {
    npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, data)
}

/// Validate an NPU1 blob (load steps 1-7 and the per-descriptor checks), failures reported
/// as [`Brief`]. Returns 0 or the failing check's number. Measured as "npu1 validate".
pub fn npu1_validate(blob: &[u8]) -> i32 {
    validate::<Brief>(blob)
}

/// As [`npu1_validate`], failures reported as the full [`Error`]: returns 1 + the failing
/// field's byte offset in the blob. Measured as "npu1 validate, full Error".
pub fn npu1_validate_full(blob: &[u8]) -> i32 {
    validate::<Error>(blob)
}

#[inline(always)]
fn validate<E: Status>(blob: &[u8]) -> i32 {
    match Npu1::validate_as::<E>(blob) {
        Ok(_) => status::OK,
        Err(e) => e.status(),
    }
}

/// Validate an NPU1 blob and bind its regions into `arena`, filling `out`: the equivalent
/// of the C peer's `npu1_load`, in one pass ([`load_each_as`]) with failures reported as
/// [`Brief`] (which check failed, not its run-time values): the size-first configuration
/// firmware would ship. Returns 0 or the failing check's number ([`Brief::id`], which
/// `npuschema_runtime::binder::error_site` names on the host). Measured as
/// "npu1 validate+bind".
pub fn npu1_validate_bind(blob: &[u8], arena: &mut [u8], out: &mut Npu1Job) -> i32 {
    validate_bind::<Brief, true>(blob, arena, out)
}

/// As [`npu1_validate_bind`], in two passes: [`Npu1::validate_as`], then [`bind_each_as`]
/// over the validated view. Measured as a reference point for what the one pass saves.
pub fn npu1_validate_bind_2pass(blob: &[u8], arena: &mut [u8], out: &mut Npu1Job) -> i32 {
    validate_bind::<Brief, false>(blob, arena, out)
}

/// As [`npu1_validate_bind`], with failures reported as the full [`Error`] (code, field path
/// with the record index, absolute offset, values): returns 1 + the failing field's byte
/// offset in the blob. In two passes: with `Error` that is smaller than the one pass,
/// which moves each error out through the validator. Measured as
/// "npu1 validate+bind, full Error".
pub fn npu1_validate_bind_full(blob: &[u8], arena: &mut [u8], out: &mut Npu1Job) -> i32 {
    validate_bind::<Error, false>(blob, arena, out)
}

/// The body of the three above: one pass ([`load_each_as`]) or two. Each region is written
/// into `out` as it is placed, as the C loader does; no [`Job`] is built and copied.
#[inline(always)]
fn validate_bind<E: Status, const ONE_PASS: bool>(
    blob: &[u8],
    arena: &mut [u8],
    out: &mut Npu1Job,
) -> i32 {
    let mut each = |r: BoundRegion| {
        let i = usize::from(r.index);
        if let (Some(base), Some(size)) = (out.base.get_mut(i), out.size.get_mut(i)) {
            // With the identity map the NPU address is the CPU address, a pointer-sized
            // value as in the C peer's job.
            *base = r.cpu_address;
            *size = u32::try_from(r.size).unwrap_or(u32::MAX);
        }
    };
    // Each result is matched where it is made, so that no error is moved.
    let bound = if ONE_PASS {
        match load_each_as::<E, _, _>(blob, arena, &Identity, &mut each) {
            Ok((_, b)) => b,
            Err(e) => return e.status(),
        }
    } else {
        let view = match Npu1::validate_as::<E>(blob) {
            Ok(v) => v,
            Err(e) => return e.status(),
        };
        match bind_each_as::<E, _, _>(view, arena, &Identity, &mut each) {
            Ok(b) => b,
            Err(e) => return e.status(),
        }
    };
    out.cmd = bound.cmd_stream.as_ptr().addr();
    out.cmd_bytes = u32::try_from(bound.cmd_stream.len()).unwrap_or(u32::MAX);
    out.count = u32::try_from(bound.region_count).unwrap_or(u32::MAX);
    status::OK
}

/// One inference the way firmware does it: validate the blob and bind it into the arena in
/// one pass ([`Job::load_as`] with [`Brief`] errors), check its command stream against the
/// bound regions (`CheckedJob::check`; [`status::CHECK`] if refused), initialise the Ethos-U55 behind
/// `regs` (probe, soft reset, PROT, AXI limits) and run the job to completion by polling
/// STATUS. `regs` is the register block the firmware's start-up code made (the one
/// `unsafe` step, in `npuschema_runtime::mmio`). Returns 0, the failing check's number, or
/// [`status::DRIVER`] when the driver reports an error. Measured as
/// "npu1 validate+bind+driver" (the check included).
pub fn npu1_run(blob: &[u8], arena: &mut [u8], regs: Mmio) -> i32 {
    use npuschema_runtime::cmd::CheckedJob;
    use npuschema_runtime::driver::{Driver, DriverOptions, NoCache};
    let job = match Job::load_as::<Brief>(blob, arena) {
        Ok(j) => j,
        Err(e) => return e.status(),
    };
    // The driver runs only a job whose stream was checked against its regions.
    let Ok(mut job) = CheckedJob::check(job) else {
        return status::CHECK;
    };
    let mut npu = Driver::new(regs, NoCache, DriverOptions::default());
    match npu.init().and_then(|_| npu.run(&mut job)) {
        Ok(_) => status::OK,
        Err(_) => status::DRIVER,
    }
}

/// Write a two-region NPU1 blob (baked `weights`, a runtime scratch region of
/// `scratch_bytes`, the command stream `cmd`) into `out` with the generated writer.
/// Returns the length written, or [`status::WRITE`]. Measured as "npu1 write_into".
pub fn npu1_write(cmd: &[u8], weights: &[u8], scratch_bytes: u32, out: &mut [u8]) -> i32 {
    let specs = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(weights),
        },
        RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(scratch_bytes),
        },
    ];
    match Npu1Writer::new().version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(cmd)
        .write_into(out)
    {
        Ok(n) => i32::try_from(n).unwrap_or(status::WRITE),
        Err(_) => status::WRITE,
    }
}

/// Write a VPMN version 2 file (NETWORK_INFO `info`, a CHECKSUM record covering COEF_DATA,
/// COEF_DATA `coef` at a 64-byte boundary) into `out` with the generated directory writer:
/// layout, every derived field, the section CRC and the file CRC (`npuschema_core::crc32`,
/// which on this target is the panic-free `crc32_table`). Returns the length written, or
/// [`status::WRITE`]. Measured as "vpmn v2 write_into".
pub fn vpmn_write(info: &[u8], coef: &[u8], out: &mut [u8]) -> i32 {
    use npuschema_generated::vpmn::{ClassWord, SectionHeaderSpec, SectionType, VpmnV2Spec};
    let sums = [24u8, 0, 0, 0, 0, 0, 0, 0];
    let section = |sd_type, sd_entsize, sd_alignsize, payload| SectionHeaderSpec {
        sd_type,
        sd_addr_low: 0,
        sd_addr_high: 0,
        sd_alignsize,
        sd_entsize,
        reserved1: 0,
        reserved2: 0,
        payload,
    };
    let sections = [
        section(SectionType::NetworkInfo, 220, 0, info),
        section(SectionType::Checksum, 8, 0, &sums),
        section(SectionType::CoefData, 1, 64, coef),
    ];
    let spec = VpmnV2Spec {
        target: 0,
        class_word: ClassWord::from_bits(0),
        reserved2: 0,
        reserved3: 0,
        sections: &sections,
    };
    match spec.write_into(out) {
        Ok(n) => i32::try_from(n).unwrap_or(status::WRITE),
        Err(_) => status::WRITE,
    }
}

/// Validate a VPMN file (either version) with the generated validator, failures reported as
/// [`Brief`]: every section CRC and the file CRC (`crc32` and `crc32_combine`). Returns 0 or
/// the failing check's number. Measured as "vpmn validate".
pub fn vpmn_validate(blob: &[u8]) -> i32 {
    match npuschema_generated::vpmn::Vpmn::validate_as::<Brief>(blob) {
        Ok(_) => status::OK,
        Err(e) => e.status(),
    }
}

/// Validate the driver-actions payload of a Vela command stream (COP1: a record stream of
/// two typed layouts, looked up in its constant table of layouts), failures reported as
/// [`Brief`]. Returns 0 or the failing check's number. Measured as "cop1 validate":
/// `scripts/code-size` checks that, as every entry point reporting `Brief`s, it links no
/// site table (`ERROR_SITES`) and no string.
pub fn cop1_validate(payload: &[u8]) -> i32 {
    match npuschema_generated::ethos_u_cop1::Cop1::validate_as::<Brief>(payload) {
        Ok(_) => status::OK,
        Err(e) => e.status(),
    }
}

/// Deliberately reachable panic (an out-of-bounds index): the positive control that shows
/// `scripts/code-size`'s panic detector finds a panic path when there is one. Never called
/// by the measured entry points.
#[allow(clippy::indexing_slicing)]
pub fn npuschema_panic_canary(data: &[u8], at: usize) -> u8 {
    data[at]
}

/// A line-by-line Rust port of the C peer's `npu1_load` (integer error codes, the job
/// written in place), measured as a reference point: it shows how much of the size is the
/// generated validator's and the binder's design rather than the language. Not used by
/// anything else.
pub fn npu1_load_port(b: &[u8], arena: &mut [u8], job: &mut Npu1Job) -> i32 {
    let rd = |at: usize| {
        b.get(at..)
            .and_then(|s| s.first_chunk::<4>())
            .map_or(0, |w| u32::from_le_bytes(*w))
    };
    if b.len() < 32 {
        return 1;
    }
    if rd(0) != 0x3155_504E {
        return 2;
    }
    if rd(4) != 1 {
        return 3;
    }
    let total = rd(8);
    if total as usize != b.len() {
        return 4;
    }
    let count = rd(12);
    if 32 + u64::from(count) * 16 > u64::from(total) {
        return 5;
    }
    if count > 8 {
        return 10;
    }
    let (cmd_off, cmd_bytes) = (rd(16), rd(20));
    if cmd_bytes == 0 || u64::from(cmd_off) + u64::from(cmd_bytes) > u64::from(total) {
        return 6;
    }
    if npuschema_core::fnv1a32(
        npuschema_core::FNV1A32_OFFSET_BASIS,
        b.get(32..).unwrap_or_default(),
    ) != rd(28)
    {
        return 7;
    }
    let blob = b.as_ptr().addr();
    let (mut cursor, end) = (
        arena.as_ptr().addr(),
        arena.as_ptr().addr().wrapping_add(arena.len()),
    );
    for i in 0..count as usize {
        let d = 32 + i * 16;
        let (flags, size, off) = (rd(d + 4), rd(d + 8), rd(d + 12));
        let (Some(base), Some(sz)) = (job.base.get_mut(i), job.size.get_mut(i)) else {
            return 10;
        };
        if flags & 1 != 0 {
            if u64::from(off) + u64::from(size) > u64::from(total) {
                return 8;
            }
            *base = blob.wrapping_add(off as usize);
        } else {
            let a = cursor.wrapping_add(15) & !15;
            if a < cursor || a > end || end - a < size as usize {
                return 9;
            }
            *base = a;
            cursor = a + size as usize;
        }
        *sz = size;
    }
    job.count = count;
    job.cmd = blob.wrapping_add(cmd_off as usize);
    job.cmd_bytes = cmd_bytes;
    status::OK
}

// The roots: one `#[used]` static per entry point, holding its address, so that the
// function stays in the library without being exported. With `--cfg measure_only` only
// the measured one is kept.

#[cfg(any(not(measure_only), measure = "npuschema_fnv1a32"))]
#[used]
static ROOT_NPUSCHEMA_FNV1A32: fn(&[u8]) -> u32 = npuschema_fnv1a32;

#[cfg(any(not(measure_only), measure = "npu1_validate"))]
#[used]
static ROOT_NPU1_VALIDATE: fn(&[u8]) -> i32 = npu1_validate;

#[cfg(any(not(measure_only), measure = "npu1_validate_full"))]
#[used]
static ROOT_NPU1_VALIDATE_FULL: fn(&[u8]) -> i32 = npu1_validate_full;

/// The shape of the validate+bind entry points.
type Load = fn(&[u8], &mut [u8], &mut Npu1Job) -> i32;

#[cfg(any(not(measure_only), measure = "npu1_validate_bind"))]
#[used]
static ROOT_NPU1_VALIDATE_BIND: Load = npu1_validate_bind;

#[cfg(any(not(measure_only), measure = "npu1_validate_bind_2pass"))]
#[used]
static ROOT_NPU1_VALIDATE_BIND_2PASS: Load = npu1_validate_bind_2pass;

#[cfg(any(not(measure_only), measure = "npu1_validate_bind_full"))]
#[used]
static ROOT_NPU1_VALIDATE_BIND_FULL: Load = npu1_validate_bind_full;

#[cfg(any(not(measure_only), measure = "npu1_load_port"))]
#[used]
static ROOT_NPU1_LOAD_PORT: Load = npu1_load_port;

#[cfg(any(not(measure_only), measure = "npu1_run"))]
#[used]
static ROOT_NPU1_RUN: fn(&[u8], &mut [u8], Mmio) -> i32 = npu1_run;

#[cfg(any(not(measure_only), measure = "npu1_write"))]
#[used]
static ROOT_NPU1_WRITE: fn(&[u8], &[u8], u32, &mut [u8]) -> i32 = npu1_write;

#[cfg(any(not(measure_only), measure = "vpmn_write"))]
#[used]
static ROOT_VPMN_WRITE: fn(&[u8], &[u8], &mut [u8]) -> i32 = vpmn_write;

#[cfg(any(not(measure_only), measure = "vpmn_validate"))]
#[used]
static ROOT_VPMN_VALIDATE: fn(&[u8]) -> i32 = vpmn_validate;

#[cfg(any(not(measure_only), measure = "cop1_validate"))]
#[used]
static ROOT_COP1_VALIDATE: fn(&[u8]) -> i32 = cop1_validate;

#[cfg(any(not(measure_only), measure = "npuschema_panic_canary"))]
#[used]
static ROOT_NPUSCHEMA_PANIC_CANARY: fn(&[u8], usize) -> u8 = npuschema_panic_canary;

#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
