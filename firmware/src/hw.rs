//! What the image does that the compiler cannot check, in one place: the embedded blobs'
//! placement, the static arena and simulator memory, the NPU's register block, the call
//! into the C peer, and stack painting. Every `unsafe` block says why it is sound.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicBool, Ordering};

use npuschema_runtime::mmio::Mmio;
use npuschema_runtime::mmio::cortex_m::NpuInterrupt;

/// Bytes 16-byte aligned, as the binder requires of a blob and an arena.
#[repr(C, align(16))]
pub struct Aligned<const N: usize>(pub [u8; N]);

/// One embedded NPU1 blob.
pub struct Blob {
    /// The model's name (the `.npub`'s file stem), or `doc_example`.
    pub name: &'static str,
    /// The blob, 16-byte aligned, in the AN547's SRAM (section `.blobs`).
    pub bytes: &'static [u8],
    /// Packed from a Vela model (run on the NPU); `false` for the format document's
    /// example (measured only: its command stream is noise).
    pub model: bool,
}

// BLOBS, ARENA_BYTES, SIM_BYTES, PEER_STACK_USAGE (firmware/build.rs).
include!(concat!(env!("OUT_DIR"), "/blobs.rs"));

/// The Ethos-U55's register block on the AN547 (secure alias; `0x4010_2000` non-secure).
pub const NPU_BASE: usize = 0x4810_2000;

/// The AN547's Ethos-U55 interrupt (IRQ 56; QEMU does not model the NPU, so it never
/// fires, and the NVIC line is left disabled).
pub const NPU_IRQ: u16 = 56;

/// The NPU's interrupt binding: the latch the driver waits on and the register block its
/// handler reads.
// SAFETY: `NPU_BASE` is the Ethos-U55's register block (see `take_npu`), and
// `NpuInterrupt::on_interrupt` is called only from the handler below.
pub static NPU: NpuInterrupt = unsafe { NpuInterrupt::new(NPU_BASE) };

// The handler, under the symbol a device crate's vector table would name for IRQ 56. This
// image links no device crate (cortex-m-rt's table points every interrupt at its default
// handler) and leaves the line disabled: on a board, name the device crate's vector and
// enable it.
npuschema_runtime::bind_npu_interrupt!(ETHOS_U55 => NPU);

#[unsafe(link_section = ".isram")]
static mut ARENA: Aligned<ARENA_BYTES> = Aligned([0; ARENA_BYTES]);

#[unsafe(link_section = ".isram")]
static mut SIM_MEMORY: Aligned<SIM_BYTES> = Aligned([0; SIM_BYTES]);

static MEMORY_TAKEN: AtomicBool = AtomicBool::new(false);
static NPU_TAKEN: AtomicBool = AtomicBool::new(false);

/// The arena and the simulated NPU's memory, zeroed (section `.isram` is not loaded nor
/// zeroed by the start-up code). `None` after the first call.
pub fn take_memory() -> Option<(&'static mut [u8], &'static mut [u8])> {
    if MEMORY_TAKEN.swap(true, Ordering::AcqRel) {
        return None;
    }
    // SAFETY: `MEMORY_TAKEN` lets this run once, and nothing else names `ARENA` or
    // `SIM_MEMORY`, so these are the only references to them for the program's life; each
    // slice covers exactly its static's bytes.
    let (arena, sim) = unsafe {
        (
            core::slice::from_raw_parts_mut((&raw mut ARENA).cast::<u8>(), ARENA_BYTES),
            core::slice::from_raw_parts_mut((&raw mut SIM_MEMORY).cast::<u8>(), SIM_BYTES),
        )
    };
    arena.fill(0);
    sim.fill(0);
    Some((arena, sim))
}

/// The register block at [`NPU_BASE`]. `None` after the first call.
pub fn take_npu() -> Option<Mmio> {
    if NPU_TAKEN.swap(true, Ordering::AcqRel) {
        return None;
    }
    // SAFETY: `NPU_BASE` is 4-byte aligned and is where the AN547 maps the Ethos-U55's
    // 4 KiB register block as device memory (under QEMU, which does not model the NPU, an
    // unimplemented device there reads as zero and ignores writes: no bus fault, no other
    // effect); nothing else in the image uses that range; `NPU_TAKEN` makes this the only
    // thread-context `Mmio` for it; the other is `NPU`'s, for its interrupt handler.
    Some(unsafe { Mmio::new(NPU_BASE) })
}

/// The C peer's `npu1_job_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Npu1Job {
    /// The command stream's address.
    pub cmd: usize,
    /// Its length.
    pub cmd_bytes: u32,
    /// Each region's address.
    pub base: [usize; 8],
    /// Each region's size.
    pub size: [u32; 8],
    /// Number of regions.
    pub count: u32,
}

unsafe extern "C" {
    /// `int npu1_load(const uint8_t *blob, size_t len, uint8_t *arena, size_t arena_len,
    /// npu1_job_t *job)` from `peers/npu1_ref.c`.
    fn npu1_load(
        blob: *const u8,
        len: usize,
        arena: *mut u8,
        arena_len: usize,
        job: *mut Npu1Job,
    ) -> i32;
}

/// The C peer's validate + bind of `blob` into `arena`, filling `job`: 0 or its error code.
#[inline(never)]
pub fn peer_load(blob: &[u8], arena: &mut [u8], job: &mut Npu1Job) -> i32 {
    // SAFETY: the peer reads `blob[..len]` and, by its own bounds checks, writes only inside
    // `arena[..arena_len]` (it computes addresses there but does not write them) and `*job`,
    // a `#[repr(C)]` struct laid out as its `npu1_job_t`; it keeps no pointer after
    // returning.
    unsafe {
        npu1_load(
            blob.as_ptr(),
            blob.len(),
            arena.as_mut_ptr(),
            arena.len(),
            job,
        )
    }
}

/// The word stack painting fills free stack with.
const PAINT: u32 = 0x5AA5_C33C;
/// Bytes of free stack painted below the caller's frame.
const PAINT_BYTES: usize = 48 * 1024;

unsafe extern "C" {
    /// cortex-m-rt's linker script: the end of `.bss`/`.uninit`, where the stack must
    /// never reach.
    static __sheap: u32;
}

/// Run `f` and return, with its result, the most stack it used: the free stack below this
/// function's frame is painted with [`PAINT`] first, and afterwards the lowest word that no
/// longer holds it marks the high-water mark (`None` if the painted area was not enough or
/// does not fit above the static data).
#[inline(never)]
pub fn stack_peak<R>(f: impl FnOnce() -> R) -> (R, Option<usize>) {
    let sp = (cortex_m::register::msp::read() as usize) & !3;
    let floor = (&raw const __sheap).addr();
    let Some(bottom) = sp.checked_sub(PAINT_BYTES).filter(|&b| b >= floor) else {
        return (f(), None);
    };
    for at in (bottom..sp).step_by(4) {
        // SAFETY: `bottom .. sp` is free stack (below the current stack pointer, above the
        // static data), word aligned: no Rust object lives there, and nothing else (no
        // interrupt handler is enabled) uses it while this loop runs.
        unsafe { core::ptr::with_exposed_provenance_mut::<u32>(at).write_volatile(PAINT) };
    }
    let r = f();
    let used = (bottom..sp)
        .step_by(4)
        .find(|&at| {
            // SAFETY: as above: the words below this frame's stack pointer, which `f` has
            // returned from, are free stack again.
            unsafe { core::ptr::with_exposed_provenance::<u32>(at).read_volatile() != PAINT }
        })
        .map_or(0, |low| sp - low);
    // The bottom word overwritten: the painted area was not deep enough to tell.
    (r, (used < PAINT_BYTES).then_some(used))
}
