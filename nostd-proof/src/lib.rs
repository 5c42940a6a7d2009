//! A `#![no_std]` staticlib with its own panic handler and no global allocator, exporting
//! `extern "C"` entry points over the firmware crates. `scripts/code-size` builds it for
//! `thumbv8m.main-none-eabihf`, links each export into a minimal ELF with
//! `--gc-sections`, measures the reachable `.text` and fails if any panic entry point is
//! reachable.
//!
//! Built with `--cfg measure_only --cfg measure="SYMBOL"`, the library exports only that entry point, so that
//! the compiler's inlining decisions (made across the whole library by LTO) are those of a
//! firmware image that calls just it: `scripts/code-size` builds it once per measured
//! export.
#![no_std]
#![cfg_attr(measure_only, allow(dead_code, unused_imports))]

use core::panic::PanicInfo;

use npuschema_core::{Brief, Error, Report};
use npuschema_generated::npu1::{Accel, Npu1, Npu1Writer, RegionData, RegionSpec, Role};
use npuschema_runtime::binder::{
    BoundRegion, Identity, Job, MAX_REGIONS, bind_each_as, load_each_as,
};

/// Status codes returned by the exports.
pub mod status {
    /// Success.
    pub const OK: i32 = 0;
    /// A null pointer was passed.
    pub const NULL: i32 = -1;
    /// The writer could not write (buffer too small, or a size over 32 bits).
    pub const WRITE: i32 = -2;
    /// The Ethos-U55 driver reported an error (probe, reset, configuration or the run).
    pub const DRIVER: i32 = -3;
}

/// Up to eight bound regions, laid out like the C peer's `npu1_job_t`.
#[repr(C)]
pub struct Npu1Job {
    /// The command stream (in the blob).
    pub cmd: *const u8,
    /// Its length.
    pub cmd_bytes: u32,
    /// Each region's NPU address (`BASEP[n]`).
    pub base: [usize; MAX_REGIONS],
    /// Each region's size.
    pub size: [u32; MAX_REGIONS],
    /// Number of regions.
    pub count: u32,
}

/// An error as a positive status: 1 + the byte offset of the field that failed (capped),
/// so a C caller learns where without the error's strings being linked in.
fn error_status(e: &Error) -> i32 {
    i32::try_from(e.offset)
        .unwrap_or(i32::MAX - 1)
        .saturating_add(1)
}

/// Builds a byte slice from a C pointer and length; `None` for a null pointer.
///
/// # Safety
/// `ptr` must be null or point to `len` readable bytes that stay valid and unmodified for
/// `'a`.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Option<&'a [u8]> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null, and the caller guarantees `len` readable bytes for `'a`.
    Some(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// FNV-1a 32 of `len` bytes at `data`, through `npuschema_core::fnv1a32`, written to `*out`.
///
/// # Safety
/// `data` must point to `len` readable bytes; `out` must be null or writable.
#[cfg(any(not(measure_only), measure = "npuschema_fnv1a32"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npuschema_fnv1a32(data: *const u8, len: usize, out: *mut u32) -> i32 {
    // SAFETY: forwarded from this function's contract.
    let Some(data) = (unsafe { bytes(data, len) }) else {
        return status::NULL;
    };
    if out.is_null() {
        return status::NULL;
    }
    let h = npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, data);
    // SAFETY: `out` is non-null and writable by contract.
    unsafe { out.write(h) };
    status::OK
}

/// Validate an NPU1 blob (load steps 1-7 and the per-descriptor checks), failures reported
/// as [`Brief`]. Returns 0, [`status::NULL`], or the failing check's number
/// ([`Brief::id`]). Measured by `scripts/code-size` as "npu1 validate".
///
/// # Safety
/// `blob` must point to `len` readable bytes.
#[cfg(any(not(measure_only), measure = "npu1_validate"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_validate(blob: *const u8, len: usize) -> i32 {
    // SAFETY: forwarded from this function's contract.
    unsafe { validate::<Brief>(blob, len) }
}

/// As [`npu1_validate`], failures reported as the full [`Error`]: returns 1 + the failing
/// field's byte offset in the blob. Measured as "npu1 validate, full Error".
///
/// # Safety
/// `blob` must point to `len` readable bytes.
#[cfg(any(not(measure_only), measure = "npu1_validate_full"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_validate_full(blob: *const u8, len: usize) -> i32 {
    // SAFETY: forwarded from this function's contract.
    unsafe { validate::<Error>(blob, len) }
}

/// The body of [`npu1_validate`] and [`npu1_validate_full`].
///
/// # Safety
/// `blob` must point to `len` readable bytes.
#[inline(always)]
unsafe fn validate<E: Status>(blob: *const u8, len: usize) -> i32 {
    // SAFETY: forwarded from this function's contract.
    let Some(blob) = (unsafe { bytes(blob, len) }) else {
        return status::NULL;
    };
    match Npu1::validate_as::<E>(blob) {
        Ok(_) => status::OK,
        Err(e) => e.status(),
    }
}

/// Validate an NPU1 blob and bind its regions (step 8) into `arena`: the equivalent of the
/// C peer's `npu1_load`, with failures reported as [`Brief`] (which check failed, not its
/// run-time values): the size-first configuration firmware would ship. Fills `*out` on
/// success. Returns 0, [`status::NULL`], or the failing check's number ([`Brief::id`], which
/// `npuschema_runtime::binder::error_site` names on the host). Measured by
/// `scripts/code-size` as "npu1 validate+bind".
///
/// Binds with [`bind_each_as`], which writes each region into `*out` as it is placed, as the
/// C loader does: no [`Job`] is built and copied into `*out` (see [`npu1_validate_job`]).
///
/// # Safety
/// `blob` must point to `len` readable bytes and `arena` to `arena_len` writable bytes,
/// neither aliasing the other nor `*out`; `out` must be valid for writes (its contents may be
/// uninitialised). The arena is not written, only carved up: the NPU will write it.
#[cfg(any(not(measure_only), measure = "npu1_validate_bind"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_validate_bind(
    blob: *const u8,
    len: usize,
    arena: *mut u8,
    arena_len: usize,
    out: *mut Npu1Job,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    unsafe { validate_bind::<Brief, true>(blob, len, arena, arena_len, out) }
}

/// As [`npu1_validate_bind`], in two passes: [`Npu1::validate_as`], then
/// [`bind_each_as`] over the validated view. Measured by `scripts/code-size` as a reference
/// point for what the one pass saves.
///
/// # Safety
/// As [`npu1_validate_bind`].
#[cfg(any(not(measure_only), measure = "npu1_validate_bind_2pass"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_validate_bind_2pass(
    blob: *const u8,
    len: usize,
    arena: *mut u8,
    arena_len: usize,
    out: *mut Npu1Job,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    unsafe { validate_bind::<Brief, false>(blob, len, arena, arena_len, out) }
}

/// As [`npu1_validate_bind`], with failures reported as the full [`Error`] (code, field path
/// with the record index, absolute offset, values): returns 1 + the failing field's byte
/// offset in the blob. In two passes ([`Npu1::validate_as`], then [`bind_each_as`]): with
/// `Error` that is smaller than the one pass, which moves each error out through the
/// validator. Measured by `scripts/code-size` as "npu1 validate+bind, full Error".
///
/// # Safety
/// As [`npu1_validate_bind`].
#[cfg(any(not(measure_only), measure = "npu1_validate_bind_full"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_validate_bind_full(
    blob: *const u8,
    len: usize,
    arena: *mut u8,
    arena_len: usize,
    out: *mut Npu1Job,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    unsafe { validate_bind::<Error, false>(blob, len, arena, arena_len, out) }
}

/// A report as a positive status.
trait Status: Report {
    fn status(&self) -> i32;
}

impl Status for Error {
    fn status(&self) -> i32 {
        error_status(self)
    }
}

impl Status for Brief {
    /// The failing check's number (never 0): `npuschema_runtime::binder::error_site` on
    /// the host names the check.
    fn status(&self) -> i32 {
        i32::from(self.id())
    }
}

/// The body of [`npu1_validate_bind`], [`npu1_validate_bind_2pass`] and
/// [`npu1_validate_bind_full`]: one pass ([`load_each_as`]) or two.
///
/// # Safety
/// As [`npu1_validate_bind`].
#[inline(always)]
unsafe fn validate_bind<E: Status, const ONE_PASS: bool>(
    blob: *const u8,
    len: usize,
    arena: *mut u8,
    arena_len: usize,
    out: *mut Npu1Job,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    let Some(blob) = (unsafe { bytes(blob, len) }) else {
        return status::NULL;
    };
    if arena.is_null() || out.is_null() {
        return status::NULL;
    }
    // SAFETY: non-null; the caller guarantees `arena_len` writable, unaliased bytes.
    let arena = unsafe { core::slice::from_raw_parts_mut(arena, arena_len) };
    let each = |r: BoundRegion| {
        let i = usize::from(r.index);
        if i < MAX_REGIONS {
            // SAFETY: `out` is valid for writes (contract) and `i` is inside both arrays;
            // the fields are written through raw pointers, as `*out` may be uninitialised.
            unsafe {
                // With the identity map the NPU address is the CPU address, a pointer-sized
                // value as in the C peer's job.
                (&raw mut (*out).base)
                    .cast::<usize>()
                    .add(i)
                    .write(r.cpu_address);
                (&raw mut (*out).size)
                    .cast::<u32>()
                    .add(i)
                    .write(u32::try_from(r.size).unwrap_or(u32::MAX));
            }
        }
    };
    // Each result is matched where it is made, so that no error is moved.
    let bound = if ONE_PASS {
        match load_each_as::<E, _, _>(blob, arena, &Identity, each) {
            Ok((_, b)) => b,
            Err(e) => return e.status(),
        }
    } else {
        let view = match Npu1::validate_as::<E>(blob) {
            Ok(v) => v,
            Err(e) => return e.status(),
        };
        match bind_each_as::<E, _, _>(view, arena, &Identity, each) {
            Ok(b) => b,
            Err(e) => return e.status(),
        }
    };
    // SAFETY: as above.
    unsafe {
        (&raw mut (*out).cmd).write(bound.cmd_stream.as_ptr());
        (&raw mut (*out).cmd_bytes)
            .write(u32::try_from(bound.cmd_stream.len()).unwrap_or(u32::MAX));
        (&raw mut (*out).count).write(u32::try_from(bound.region_count).unwrap_or(u32::MAX));
    }
    status::OK
}

/// As [`npu1_validate_bind`], through [`Job::bind`] (the safe handle the driver takes): the
/// job is built, then copied into `*out`. Not measured by `scripts/code-size`; kept so the
/// cost of building and copying a [`Job`] on this target can be measured the same way
/// (link it with `-e npu1_validate_job`).
///
/// # Safety
/// As [`npu1_validate_bind`].
#[cfg(any(not(measure_only), measure = "npu1_validate_job"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_validate_job(
    blob: *const u8,
    len: usize,
    arena: *mut u8,
    arena_len: usize,
    out: *mut Npu1Job,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    let Some(blob) = (unsafe { bytes(blob, len) }) else {
        return status::NULL;
    };
    if arena.is_null() || out.is_null() {
        return status::NULL;
    }
    // SAFETY: non-null; the caller guarantees `arena_len` writable, unaliased bytes.
    let arena = unsafe { core::slice::from_raw_parts_mut(arena, arena_len) };
    let job = match Npu1::validate(blob).and_then(|v| Job::bind(v, arena)) {
        Ok(j) => j,
        Err(e) => return error_status(&e),
    };
    let mut o = Npu1Job {
        cmd: job.cmd_stream().as_ptr(),
        cmd_bytes: u32::try_from(job.cmd_stream().len()).unwrap_or(u32::MAX),
        base: [0; MAX_REGIONS],
        size: [0; MAX_REGIONS],
        count: 0,
    };
    for (r, (base, size)) in job.regions().zip(o.base.iter_mut().zip(o.size.iter_mut())) {
        *base = usize::try_from(r.npu_address).unwrap_or(usize::MAX);
        *size = u32::try_from(r.size).unwrap_or(u32::MAX);
        o.count = o.count.saturating_add(1);
    }
    // SAFETY: `out` is non-null and valid for writes by contract.
    unsafe { out.write(o) };
    status::OK
}

/// One inference the way firmware does it: validate the blob and bind it into the arena in
/// one pass ([`Job::load_as`] with [`Brief`] errors), initialise the Ethos-U55 at
/// `npu_base` (probe, soft reset, PROT, AXI limits) and run the job to completion by
/// polling STATUS. Returns 0, the failing check's number ([`Brief::id`]), or
/// [`status::DRIVER`] when the driver reports an error. Measured by `scripts/code-size` as
/// "npu1 validate+bind+driver".
///
/// # Safety
/// As [`npu1_validate_bind`] for `blob` and `arena`; `npu_base` must satisfy the contract of
/// [`npuschema_runtime::mmio::Mmio::new`] (the address of an Ethos-U55 register block).
#[cfg(any(not(measure_only), measure = "npu1_run"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_run(
    blob: *const u8,
    len: usize,
    arena: *mut u8,
    arena_len: usize,
    npu_base: usize,
) -> i32 {
    use npuschema_runtime::driver::{Driver, DriverOptions, NoCache};
    use npuschema_runtime::mmio::Mmio;
    // SAFETY: forwarded from this function's contract.
    let Some(blob) = (unsafe { bytes(blob, len) }) else {
        return status::NULL;
    };
    if arena.is_null() {
        return status::NULL;
    }
    // SAFETY: non-null; the caller guarantees `arena_len` writable, unaliased bytes.
    let arena = unsafe { core::slice::from_raw_parts_mut(arena, arena_len) };
    let mut job = match Job::load_as::<Brief>(blob, arena) {
        Ok(j) => j,
        Err(e) => return e.status(),
    };
    // SAFETY: `npu_base` is an Ethos-U55 register block by this function's contract, and
    // this is the only `Mmio` driving it.
    let regs = unsafe { Mmio::new(npu_base) };
    let mut npu = Driver::new(regs, NoCache, DriverOptions::default());
    match npu.init().and_then(|_| npu.run(&mut job)) {
        Ok(_) => status::OK,
        Err(_) => status::DRIVER,
    }
}

/// Write a two-region NPU1 blob (baked `weights`, a runtime scratch region of
/// `scratch_bytes`, the command stream `cmd`) into `out` with the generated writer; the
/// length written goes to `*written`. Returns 0, [`status::NULL`] or [`status::WRITE`].
///
/// # Safety
/// `cmd` and `weights` must point to `cmd_len` / `weights_len` readable bytes, `out` to
/// `out_len` writable bytes not aliasing them, and `written` must be writable.
#[cfg(any(not(measure_only), measure = "npu1_write"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_write(
    cmd: *const u8,
    cmd_len: usize,
    weights: *const u8,
    weights_len: usize,
    scratch_bytes: u32,
    out: *mut u8,
    out_len: usize,
    written: *mut usize,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    let (Some(cmd), Some(weights)) = (unsafe { bytes(cmd, cmd_len) }, unsafe {
        bytes(weights, weights_len)
    }) else {
        return status::NULL;
    };
    if out.is_null() || written.is_null() {
        return status::NULL;
    }
    // SAFETY: non-null; the caller guarantees `out_len` writable, unaliased bytes.
    let out = unsafe { core::slice::from_raw_parts_mut(out, out_len) };
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
    match Npu1Writer::new()
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(cmd)
        .write_into(out)
    {
        Ok(n) => {
            // SAFETY: `written` is non-null and writable by contract.
            unsafe { written.write(n) };
            status::OK
        }
        Err(_) => status::WRITE,
    }
}

/// Deliberately reachable panic (an out-of-bounds index): the positive control that shows
/// `scripts/code-size`'s panic detector finds a panic path when there is one. Never called
/// by the measured entry points.
///
/// # Safety
/// `data` must point to `len` readable bytes.
#[cfg(any(not(measure_only), measure = "npuschema_panic_canary"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npuschema_panic_canary(data: *const u8, len: usize, at: usize) -> u8 {
    // SAFETY: forwarded from this function's contract.
    let Some(data) = (unsafe { bytes(data, len) }) else {
        return 0;
    };
    #[allow(clippy::indexing_slicing)]
    data[at]
}

#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}

/// A line-by-line Rust port of the C peer's `npu1_load` (integer error codes, the job
/// written in place), measured by `scripts/code-size` as a reference point: it shows how
/// much of the generated validator's and the binder's size is their richer error values
/// and by-value `Job`, rather than the language. Not used by anything else.
///
/// # Safety
/// As [`npu1_validate_bind`].
#[cfg(any(not(measure_only), measure = "npu1_load_port"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npu1_load_port(
    blob: *const u8,
    len: usize,
    arena: *mut u8,
    arena_len: usize,
    job: *mut Npu1Job,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    let Some(b) = (unsafe { bytes(blob, len) }) else {
        return status::NULL;
    };
    if job.is_null() {
        return status::NULL;
    }
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
    // SAFETY: non-null and writable by contract.
    let job = unsafe { &mut *job };
    let (mut cursor, end) = (arena as usize, (arena as usize).wrapping_add(arena_len));
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
            *base = (blob as usize).wrapping_add(off as usize);
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
    job.cmd = (blob as usize).wrapping_add(cmd_off as usize) as *const u8;
    job.cmd_bytes = cmd_bytes;
    status::OK
}
