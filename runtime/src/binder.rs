//! The arena binder: turns a validated NPU1 blob and a caller's arena into a [`Job`] — one
//! NPU address and size per region slot (`BASEP[n]`), plus the command stream.
//!
//! This is step 8 of the NPU1 loading algorithm:
//!
//! * a BAKED region is the blob's own bytes, used in place (never copied);
//! * a RUNTIME region is carved out of the arena at the next 16-byte aligned *address*
//!   (not offset: an arena that starts at an odd address still yields aligned regions),
//!   in region-index order, and must fit in what is left of the arena.
//!
//! A [`Job`] borrows both the blob (`'b`) and the arena (`'a`, mutably), so neither can be
//! freed, moved or reused while the job lives; the runtime regions' bytes are reached only
//! through the job ([`Job::region_bytes_mut`] hands out sub-slices of the arena borrow).
//! [`bind_each`] runs the same binder but hands each region to the caller as it is placed
//! and keeps nothing (for a C ABI or the caller's own table), at the price of that borrow.
//!
//! Two ways in, one placement (the private `Carver`):
//!
//! * [`Job::bind`] / [`bind_each`] take a validated [`Npu1`] view: validation has walked
//!   the region table, and binding walks it again;
//! * [`Job::load`] / [`load_each_as`] take the blob's bytes and bind each descriptor inside
//!   the generated validator's own walk (its `regions` hook, [`Npu1Visit`]), as soon as the
//!   descriptor's checks pass: the document's step 8, and the smallest code.
//!
//! Each descriptor is placed once and written once into its slot; every error is built by
//! `npuschema_core`'s one out-of-line constructor from a static site (or, for
//! [`npuschema_core::Brief`], is just the site's number), so the binder's own code has no
//! inline `Error`s.
//!
//! Addresses: the binder works with the CPU address of each byte (`<*const u8>::addr`)
//! and maps it to an NPU bus address with an [`AddressMap`] (identity by default). The
//! 16-byte alignment is applied to, and checked on, the NPU address. The map must be
//! linear over one buffer (the arena's byte `k` is at `npu(arena) + k`), which holds for the
//! usual TCM/SRAM alias windows.
//!
//! # Arena size
//!
//! Let `s_0 .. s_{k-1}` be the sizes of the runtime regions with a non-zero size, in index
//! order, and `F = align16(s_0) + ... + align16(s_{k-2}) + s_{k-1}` (0 when `k = 0`). For an
//! arena whose NPU start address is `A`, binding needs exactly
//! `F + ((16 - A % 16) % 16)` bytes when `k > 0`, and 0 bytes when `k = 0`:
//!
//! * [`ArenaSize::aligned_start`] is `F`: exact when `A % 16 == 0`;
//! * [`ArenaSize::any_start`] is `F + 15` when `k > 0`: enough for *every* start address,
//!   and tight (an arena at `A % 16 == 1` needs all of it);
//! * [`arena_size_at`] / [`arena_bytes_at`] give the exact figure for a known `A`.
//!
//! A zero-size runtime region takes no room: it is given the next 16-byte aligned address
//! (which may lie up to 15 bytes past the arena's end; the NPU never dereferences it) and
//! [`Job::region_bytes`] returns an empty slice for it.

use npuschema_core::{DetailKind, Error, ErrorSite, Report, align_up, fail};
use npuschema_generated::npu1::{Ext, HEADER_BYTES, Header, Npu1, Npu1Visit, Region, RegionFlags};

/// Alignment of every address handed to the NPU (command stream, baked and runtime regions).
pub const ARENA_ALIGN: u64 = 16;

/// Number of region slots the Ethos-U55 has (`BASEP[0..8]`).
pub const MAX_REGIONS: usize = 8;

/// NPU1 byte offsets used in error reports: header fields, the region table and the fields
/// of a descriptor.
const HEADER_REGION_COUNT: u32 = 12;
const HEADER_CMD_OFFSET: u32 = 16;
/// Where the region table of a blob of no version (a [`RegionSpec`] list) is said to be.
const REGION_TABLE: u64 = 32;
const REGION_DESC_BYTES: u64 = 16;
const DESC_FLAGS: u32 = 4;
const DESC_SIZE: u32 = 8;
const DESC_DATA_OFFSET: u32 = 12;

/// Platform hook: the NPU bus address of a CPU address (for example when the NPU sees a
/// TCM through an alias window), and the alignment of runtime regions. The default is the
/// identity with 16-byte alignment.
///
/// # Safety
///
/// The addresses it produces are where the NPU's DMA reads and writes, so a wrong one
/// aims the NPU at memory the program uses (another live buffer, the stack). An
/// implementation vouches that, for every buffer the binder maps with it (a blob, an
/// arena, a caller's buffer):
///
/// * it is linear over the buffer: byte `k` of a buffer starting at CPU address `cpu` is
///   at NPU address `npu_address(cpu) + k`, and that NPU address reaches that very byte
///   (and no other memory) from the NPU's bus;
/// * the addresses are ones the NPU may use: mapped on its bus with the access the
///   region needs, and (with a data cache) covered by the platform's cache hooks.
///
/// [`Identity`] (the NPU sees memory at the CPU's addresses) and [`CacheAligned`] over a
/// sound map are provided; their `unsafe impl`s are in [`crate::mmio`].
#[allow(
    unsafe_code,
    reason = "declares the unsafe trait; its implementations are in crate::mmio"
)]
pub unsafe trait AddressMap {
    /// The NPU bus address of the byte at CPU address `cpu`.
    fn npu_address(&self, cpu: usize) -> u64 {
        cpu as u64
    }

    /// Alignment of runtime regions' NPU addresses in the arena, and of caller-owned
    /// buffers ([`Job::bind_with_buffers`]): a power of two from 16 to 4096 (anything
    /// else is taken as 16). The default is [`ARENA_ALIGN`] (16, the NPU's requirement).
    ///
    /// More than 16 is a data-cache line size: each region the NPU writes (runtime and
    /// caller-owned) is then also *sized* to whole lines: a runtime region's last line is
    /// the arena's (the arena must hold it: [`arena_size_for_align`] counts it), a
    /// caller's buffer must hold the region's size rounded up to the line. Invalidating a
    /// region's lines then never discards a neighbour's writes. 32
    /// ([`CacheAligned::lines`]) is the Cortex-M55's and M85's line. See [`CacheAligned`].
    fn region_align(&self) -> u64 {
        ARENA_ALIGN
    }
}

/// [`AddressMap::region_align`] sanitised: a power of two in `16..=4096`, else 16.
#[inline(always)]
fn region_align_of<M: AddressMap + ?Sized>(map: &M) -> usize {
    let a = map.region_align();
    if a.is_power_of_two() && (ARENA_ALIGN..=4096).contains(&a) {
        a as usize
    } else {
        ALIGN
    }
}

/// An [`AddressMap`] with another runtime-region alignment: `CacheAligned::new(Identity,
/// 32)` for 32-byte D-cache lines.
#[derive(Clone, Copy, Debug)]
pub struct CacheAligned<M = Identity> {
    /// The address map.
    pub map: M,
    /// The alignment (see [`AddressMap::region_align`]).
    pub align: u64,
}

/// The data-cache line of a Cortex-M55 or M85, in bytes: [`CacheAligned::lines`].
pub const CACHE_LINE: u64 = 32;

impl<M> CacheAligned<M> {
    /// `map` with runtime regions aligned to `align` bytes.
    pub const fn new(map: M, align: u64) -> Self {
        Self { map, align }
    }

    /// `map` with the regions the NPU writes on whole [`CACHE_LINE`] (32-byte) lines.
    pub const fn lines(map: M) -> Self {
        Self {
            map,
            align: CACHE_LINE,
        }
    }
}

/// The identity address map: the NPU sees memory at the CPU's addresses.
#[derive(Clone, Copy, Debug, Default)]
pub struct Identity;

/// Where one region's bytes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionSource<'b> {
    /// The bytes are in the blob and are used in place.
    Baked(&'b [u8]),
    /// This many bytes are carved out of the arena.
    Runtime(u64),
}

/// One region to bind: its (informational) role and where its bytes come from. The
/// position in the list is the region index, i.e. its `BASEP` slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionSpec<'b> {
    /// The NPU1 role (0 weights, 1 scratch, 2 input, 3 output, 4 other); not acted on.
    pub role: u32,
    /// Baked bytes or a runtime size.
    pub source: RegionSource<'b>,
}

/// Whether a bound region lives in the blob, in the arena, or in a caller's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RegionKind {
    /// The blob's own bytes, read-only to the NPU.
    Baked,
    /// Carved from the arena; the NPU may write it.
    Runtime,
    /// A runtime region bound to a caller-owned buffer ([`Job::bind_with_buffers`]): a
    /// camera's or a microphone's DMA buffer used in place; the NPU may write it.
    Caller,
}

/// One bound region, as the driver programs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoundRegion {
    /// Region index, i.e. the `BASEP` slot.
    pub index: u8,
    /// The NPU1 role (informational).
    pub role: u32,
    /// Baked or runtime.
    pub kind: RegionKind,
    /// The address the NPU is given (`BASEP[index]`).
    pub npu_address: u64,
    /// The CPU address of the region's first byte.
    pub cpu_address: usize,
    /// Size in bytes.
    pub size: u64,
    /// For a runtime region carved from the arena, its byte offset inside the arena.
    pub arena_offset: Option<usize>,
}

/// How big an arena a blob needs (see the [module docs](self) for the exact rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArenaSize {
    /// Bytes needed when the arena's NPU start address is 16-byte aligned (exact).
    pub aligned_start: u64,
    /// Bytes that suffice for any start address (`aligned_start + 15` when there is at
    /// least one non-empty runtime region, else 0). Tight: a start at `16k + 1` needs all
    /// of it.
    pub any_start: u64,
}

/// The arena size for the given regions; `None` only if the sum overflows 64 bits.
#[must_use]
pub fn arena_size_for<'b, I>(regions: I) -> Option<ArenaSize>
where
    I: IntoIterator<Item = RegionSpec<'b>>,
{
    let mut cursor: u64 = 0;
    let mut any_runtime = false;
    for r in regions {
        if let RegionSource::Runtime(size @ 1..) = r.source {
            any_runtime = true;
            cursor = align_up(cursor, ARENA_ALIGN)?.checked_add(size)?;
        }
    }
    let any_start = if any_runtime {
        cursor.checked_add(ARENA_ALIGN - 1)?
    } else {
        0
    };
    Some(ArenaSize {
        aligned_start: cursor,
        any_start,
    })
}

/// As [`arena_size_for`], with runtime regions aligned to `align` bytes (a power of two,
/// at least 16, as [`AddressMap::region_align`]; anything else is taken as 16):
/// `any_start` is then `aligned_start + align - 1`.
#[must_use]
pub fn arena_size_for_align<'b, I>(regions: I, align: u64) -> Option<ArenaSize>
where
    I: IntoIterator<Item = RegionSpec<'b>>,
{
    let align = region_align_of(&CacheAligned::new(Identity, align)) as u64;
    let mut cursor: u64 = 0;
    let mut any_runtime = false;
    for r in regions {
        if let RegionSource::Runtime(size @ 1..) = r.source {
            any_runtime = true;
            cursor = align_up(cursor, align)?.checked_add(line_size(size, align)?)?;
        }
    }
    let any_start = if any_runtime {
        cursor.checked_add(align.checked_sub(1)?)?
    } else {
        0
    };
    Some(ArenaSize {
        aligned_start: cursor,
        any_start,
    })
}

/// A region's size as carved: rounded up to whole lines when `align` is a cache line
/// (more than [`ARENA_ALIGN`]), else as is.
#[inline(always)]
fn line_size(size: u64, align: u64) -> Option<u64> {
    if align > ARENA_ALIGN {
        align_up(size, align)
    } else {
        Some(size)
    }
}

/// Exact arena bytes needed when the arena's NPU start address is `start`; `None` if the
/// computation overflows 64 bits.
#[must_use]
pub fn arena_bytes_at<'b, I>(regions: I, start: u64) -> Option<u64>
where
    I: IntoIterator<Item = RegionSpec<'b>>,
{
    let mut cursor = start;
    for r in regions {
        if let RegionSource::Runtime(size @ 1..) = r.source {
            cursor = align_up(cursor, ARENA_ALIGN)?.checked_add(size)?;
        }
    }
    cursor.checked_sub(start)
}

/// The [`RegionSpec`] of an NPU1 region descriptor; `None` for a BAKED region whose bytes
/// are not in the blob (which [`Npu1::validate`] rules out).
#[inline(always)]
fn spec_of<'b>(r: &Region<'b>) -> Option<RegionSpec<'b>> {
    let source = if r.flags().contains(RegionFlags::BAKED) {
        RegionSource::Baked(r.data()?)
    } else {
        RegionSource::Runtime(u64::from(r.size()))
    };
    Some(RegionSpec {
        role: r.role().raw(),
        source,
    })
}

/// The arena size a validated blob needs (see the [module docs](self)). Saturates at
/// `u64::MAX`, which no blob under 4 GiB can reach.
#[must_use]
pub fn arena_size(blob: &Npu1<'_>) -> ArenaSize {
    arena_size_for(blob.regions().filter_map(|r| spec_of(&r))).unwrap_or(ArenaSize {
        aligned_start: u64::MAX,
        any_start: u64::MAX,
    })
}

/// The arena size a validated blob needs with runtime regions aligned to `align`
/// ([`arena_size_for_align`]); saturates at `u64::MAX`.
#[must_use]
pub fn arena_size_align(blob: &Npu1<'_>, align: u64) -> ArenaSize {
    arena_size_for_align(blob.regions().filter_map(|r| spec_of(&r)), align).unwrap_or(ArenaSize {
        aligned_start: u64::MAX,
        any_start: u64::MAX,
    })
}

/// Exact arena bytes a validated blob needs when the arena's NPU start address is `start`
/// (saturating at `u64::MAX`).
#[must_use]
pub fn arena_size_at(blob: &Npu1<'_>, start: u64) -> u64 {
    arena_bytes_at(blob.regions().filter_map(|r| spec_of(&r)), start).unwrap_or(u64::MAX)
}

/// Where a bound region's bytes are: the blob's own (kept as the slice, so the job can hand
/// it back), or a span of the arena.
#[derive(Clone, Copy, Debug)]
enum Place<'b> {
    Baked(&'b [u8]),
    Runtime { offset: usize, len: usize },
}

/// One bound region: its NPU address, where its bytes are and its role. The CPU address is
/// derived (the baked slice's, or the arena's plus the offset), not stored.
#[derive(Clone, Copy, Debug)]
struct Slot<'b> {
    npu: u64,
    place: Place<'b>,
    role: u32,
}

/// Where a region of a [`Job`] is: as [`Place`], or a caller-owned buffer.
#[derive(Debug)]
enum JobPlace<'b, 'a> {
    Baked(&'b [u8]),
    Runtime { offset: usize, len: usize },
    Caller(&'a mut [u8]),
}

/// A region of a [`Job`].
#[derive(Debug)]
struct JobSlot<'b, 'a> {
    npu: u64,
    place: JobPlace<'b, 'a>,
    role: u32,
}

impl<'b> From<Slot<'b>> for JobSlot<'b, '_> {
    #[inline(always)]
    fn from(s: Slot<'b>) -> Self {
        Self {
            npu: s.npu,
            place: match s.place {
                Place::Baked(d) => JobPlace::Baked(d),
                Place::Runtime { offset, len } => JobPlace::Runtime { offset, len },
            },
            role: s.role,
        }
    }
}

/// A bound job: the command stream and up to eight regions, each with an NPU address and a
/// size, ready for [`crate::driver::Driver::run`].
///
/// Borrows the blob for `'b` and the arena (and any caller-owned buffers) mutably for
/// `'a`: while the job lives, they can be reached only through it, and none can be
/// dropped. A `Job<'static, 'static>`, once checked ([`crate::cmd::CheckedJob`]), can be
/// handed to [`crate::driver::Driver::start`], which owns it while the NPU runs.
#[derive(Debug)]
pub struct Job<'b, 'a> {
    cmd: &'b [u8],
    cmd_npu: u64,
    arena: &'a mut [u8],
    arena_used: usize,
    accel_macs: u32,
    count: u8,
    /// The regions' alignment and, above 16, the cache line they are sized to
    /// ([`AddressMap::region_align`], sanitised).
    align: u16,
    /// `Some` for the first `count` slots only: an unused slot is a tag, not zeroed bytes.
    slots: [Option<JobSlot<'b, 'a>>; MAX_REGIONS],
    /// The validated blob, when the job was bound from one: its tensor table and
    /// compiled-for words (`tensors.rs`).
    view: Option<Npu1<'b>>,
}

/// The binder's own error sites, numbered from [`BINDER_SITE_BASE`]` + 1`: above every
/// site of the generated NPU1 validator (`npuschema_generated::npu1::ERROR_SITES`, numbered
/// from 1), so that one [`Brief`](npuschema_core::Brief) number names one check of a whole
/// load (validation, then binding). [`error_site`] looks up both.
pub static ERROR_SITES: [ErrorSite; 5] = [
    ErrorSite {
        id: BINDER_SITE_BASE + 1,
        code: "too-many-regions",
        table: "",
        name: "header.region_count",
        offset: HEADER_REGION_COUNT,
        detail: DetailKind::Compare(&["region_count", ">", "BASEP slots"]),
    },
    ErrorSite {
        id: BINDER_SITE_BASE + 2,
        code: "misaligned-command-stream",
        table: "",
        name: "header.cmd_offset",
        offset: HEADER_CMD_OFFSET,
        detail: MISALIGNED,
    },
    ErrorSite {
        id: BINDER_SITE_BASE + 3,
        code: "misaligned-baked-region",
        table: "regions",
        name: "data_offset",
        offset: DESC_DATA_OFFSET,
        detail: MISALIGNED,
    },
    ErrorSite {
        id: BINDER_SITE_BASE + 4,
        code: "baked-region-out-of-bounds",
        table: "regions",
        name: "data_offset",
        offset: DESC_DATA_OFFSET,
        detail: DetailKind::Range("total_bytes"),
    },
    ErrorSite {
        id: BINDER_SITE_BASE + 5,
        code: "arena-overflow",
        table: "regions",
        name: "size",
        offset: DESC_SIZE,
        detail: DetailKind::Short,
    },
];

/// The error sites of [`Job::bind_with_buffers`] (caller-owned buffers), numbered on from
/// [`ERROR_SITES`] (`BINDER_SITE_BASE + 6..`). A table of their own, so that a load that
/// binds no buffer (and reports full [`Error`]s) links only [`ERROR_SITES`].
pub static BUFFER_ERROR_SITES: [ErrorSite; 3] = [
    ErrorSite {
        id: BINDER_SITE_BASE + 6,
        code: "buffer-not-for-runtime-region",
        table: "regions",
        name: "flags",
        offset: DESC_FLAGS,
        detail: DetailKind::Compare(&["buffer for region", ">= runtime regions", ""]),
    },
    ErrorSite {
        id: BINDER_SITE_BASE + 7,
        code: "buffer-too-small",
        table: "regions",
        name: "size",
        offset: DESC_SIZE,
        detail: DetailKind::Short,
    },
    ErrorSite {
        id: BINDER_SITE_BASE + 8,
        code: "misaligned-buffer",
        table: "regions",
        name: "size",
        offset: DESC_SIZE,
        detail: DetailKind::Compare(&["buffer npu address", "% alignment =", ""]),
    },
];

/// The binder's site numbers start above this one ([`ERROR_SITES`]); the NPU1 validator's
/// are all below it (a test holds it). Every number of a load stays below 0x100, so that
/// returning it takes one 2-byte Thumb `movs` on each failure path rather than a 4-byte
/// `movw` (8 bytes of the Cortex-M55 figure for the binder's sites).
pub const BINDER_SITE_BASE: u16 = 0x80;

/// One of the binder's sites with its number, which [`fail_at`] passes to [`fail`] as a
/// constant.
#[derive(Clone, Copy)]
struct Site {
    id: u16,
    site: &'static ErrorSite,
}

impl Site {
    /// Entry `k` of [`ERROR_SITES`], its number read at compile time.
    #[allow(
        clippy::indexing_slicing,
        reason = "only called in const items: an index out of range fails the build"
    )]
    const fn at(k: usize) -> Self {
        Self {
            id: ERROR_SITES[k].id,
            site: &ERROR_SITES[k],
        }
    }

    /// Entry `k` of [`BUFFER_ERROR_SITES`].
    #[allow(
        clippy::indexing_slicing,
        reason = "only called in const items: an index out of range fails the build"
    )]
    const fn buffer_at(k: usize) -> Self {
        Self {
            id: BUFFER_ERROR_SITES[k].id,
            site: &BUFFER_ERROR_SITES[k],
        }
    }
}

const TOO_MANY_REGIONS: Site = Site::at(0);
const MISALIGNED_COMMAND_STREAM: Site = Site::at(1);
const MISALIGNED_BAKED_REGION: Site = Site::at(2);
const BAKED_REGION_OUT_OF_BOUNDS: Site = Site::at(3);
const ARENA_OVERFLOW: Site = Site::at(4);
const BUFFER_NOT_FOR_RUNTIME_REGION: Site = Site::buffer_at(0);
const BUFFER_TOO_SMALL: Site = Site::buffer_at(1);
const MISALIGNED_BUFFER: Site = Site::buffer_at(2);

/// [`fail`] at one of the binder's sites.
#[inline(always)]
fn fail_at<T, E: Report>(s: Site, base: u64, a: u64, b: u64, c: u64, index: usize) -> Result<T, E> {
    fail(s.id, s.site, base, a, b, c, index)
}

/// The site a [`Brief`](npuschema_core::Brief) number from an NPU1 load names: a check of
/// the generated validator ([`Npu1::validate_as`]) or of the binder ([`Job::bind_as`],
/// [`bind_each_as`]). `None` for a number neither has.
///
/// ```
/// use npuschema_core::Brief;
/// use npuschema_generated::npu1::Npu1;
/// use npuschema_runtime::binder::error_site;
///
/// let e = Npu1::validate_as::<Brief>(&[0u8; 8]).unwrap_err();
/// assert_eq!(error_site(e.id()).map(|s| s.code), Some("truncated-header"));
/// ```
#[must_use]
pub fn error_site(id: u16) -> Option<&'static ErrorSite> {
    match id.checked_sub(BINDER_SITE_BASE + 1) {
        Some(k) => ERROR_SITES
            .get(usize::from(k))
            .or_else(|| BUFFER_ERROR_SITES.get(usize::from(k).checked_sub(ERROR_SITES.len())?)),
        None => npuschema_generated::npu1::error_site(id),
    }
}

/// The names of a misaligned blob part's detail (`misaligned-baked-region`,
/// `misaligned-command-stream`): `Detail::Compare { lhs: address, rhs: address % 16 }`, read
/// "npu address % 0x10 = k". A host tool that bound a copy of the blob can recognise it and
/// say the address as an offset in the blob (`npuschema check` does).
pub const MISALIGNED_NAMES: [&str; 3] = ["npu address", "% 0x10 =", ""];

/// [`MISALIGNED_NAMES`]' detail.
const MISALIGNED: DetailKind = DetailKind::Compare(&MISALIGNED_NAMES);

/// The byte offset of descriptor `index` (< 8) in a region table at `table` (its fields'
/// offsets are added by the error site).
#[inline]
fn desc_base(table: u64, index: usize) -> u64 {
    table.wrapping_add(REGION_DESC_BYTES.wrapping_mul(index as u64))
}

/// Where the region table of an NPU1 blob of `version` starts: right after the header and
/// its extension (empty in version 1), the schema's `end(ext)`.
#[inline]
fn region_table_at(version: u32) -> u64 {
    u64::from(HEADER_BYTES).wrapping_add(Ext::size_for(u64::from(version)))
}

/// [`ARENA_ALIGN`] as a usize.
const ALIGN: usize = ARENA_ALIGN as usize;

/// A region as the binder takes it: a [`RegionSpec`], or a descriptor of a validated NPU1
/// blob (read where it lies, in the same pass that binds it).
trait Bindable<'b> {
    /// Its role and source; `None` for a BAKED descriptor whose bytes are not in the blob.
    fn spec(&self) -> Option<RegionSpec<'b>>;
    /// `(data_offset, size)`, for the error when [`Self::spec`] is `None`.
    fn bounds(&self) -> (u64, u64);
}

impl<'b> Bindable<'b> for RegionSpec<'b> {
    #[inline]
    fn spec(&self) -> Option<RegionSpec<'b>> {
        Some(*self)
    }
    #[inline]
    fn bounds(&self) -> (u64, u64) {
        (0, 0)
    }
}

impl<'b> Bindable<'b> for Region<'b> {
    #[inline(always)]
    fn spec(&self) -> Option<RegionSpec<'b>> {
        spec_of(self)
    }
    #[inline]
    fn bounds(&self) -> (u64, u64) {
        (u64::from(self.data_offset()), u64::from(self.size()))
    }
}

/// A descriptor whose runtime region is bound to a caller's buffer: it takes no arena room
/// (it is placed as a zero-size runtime region, then given the buffer).
struct Buffered<'b> {
    region: Region<'b>,
    caller: bool,
}

impl<'b> Bindable<'b> for Buffered<'b> {
    #[inline]
    fn spec(&self) -> Option<RegionSpec<'b>> {
        let spec = spec_of(&self.region)?;
        Some(match spec.source {
            RegionSource::Runtime(_) if self.caller => RegionSpec {
                source: RegionSource::Runtime(0),
                ..spec
            },
            _ => spec,
        })
    }
    #[inline]
    fn bounds(&self) -> (u64, u64) {
        self.region.bounds()
    }
}

/// Caller-owned buffers for [`Job::bind_with_buffers`], by region index.
pub type Buffers<'a> = [Option<&'a mut [u8]>; MAX_REGIONS];

/// What binding found besides the regions: the stream's NPU address, the region count and
/// the arena bytes used.
#[derive(Clone, Copy, Debug)]
struct Head {
    cmd_npu: u64,
    count: u8,
    arena_used: usize,
}

/// The region count checked against the eight `BASEP` slots.
#[inline(always)]
fn check_count<E: Report>(count: usize) -> Result<u8, E> {
    match u8::try_from(count).ok().filter(|_| count <= MAX_REGIONS) {
        Some(c) => Ok(c),
        None => fail_at(TOO_MANY_REGIONS, 0, count as u64, MAX_REGIONS as u64, 0, 0),
    }
}

/// The command stream's NPU address, checked for 16-byte alignment.
#[inline(always)]
fn check_cmd<E: Report, M: AddressMap + ?Sized>(cmd_stream: &[u8], map: &M) -> Result<u64, E> {
    let cmd_npu = map.npu_address(cmd_stream.as_ptr().addr());
    if cmd_npu.is_multiple_of(ARENA_ALIGN) {
        Ok(cmd_npu)
    } else {
        fail_at(
            MISALIGNED_COMMAND_STREAM,
            0,
            cmd_npu,
            cmd_npu % ARENA_ALIGN,
            0,
            0,
        )
    }
}

/// Places regions one by one, in index order: baked ones where they lie, runtime ones at
/// the arena's next 16-byte aligned NPU address.
struct Carver<'m, M: ?Sized> {
    map: &'m M,
    arena_npu: u64,
    arena_len: usize,
    /// Bytes from the arena's start to the end of the last non-empty runtime region: at most
    /// the arena's length, so a usize, as is every offset below (the padding is < 16).
    cursor: usize,
    /// The blob's length, for a baked region outside it.
    total: u64,
    /// The runtime regions' alignment ([`AddressMap::region_align`], sanitised).
    align: usize,
    /// Where the region table is in the blob, for the errors' offsets.
    table: u64,
}

impl<'m, M: AddressMap + ?Sized> Carver<'m, M> {
    #[inline(always)]
    fn new(arena: &[u8], map: &'m M, total: u64, table: u64) -> Self {
        Self {
            map,
            arena_npu: map.npu_address(arena.as_ptr().addr()),
            arena_len: arena.len(),
            cursor: 0,
            total,
            align: region_align_of(map),
            table,
        }
    }

    /// Place region `index`. A failure comes back as a [`Fault`], which the caller turns
    /// into its error straight in its own result, so nothing large is moved.
    #[inline(always)]
    fn place<'b, T: Bindable<'b>>(&mut self, index: usize, item: &T) -> Result<Slot<'b>, Fault> {
        let base = desc_base(self.table, index);
        let Some(spec) = item.spec() else {
            let (start, len) = item.bounds();
            return Err(Fault::new(
                BAKED_REGION_OUT_OF_BOUNDS,
                base,
                start,
                len,
                self.total,
                index,
            ));
        };
        let (npu, place) = match spec.source {
            RegionSource::Baked(data) => {
                let npu = self.map.npu_address(data.as_ptr().addr());
                if !npu.is_multiple_of(ARENA_ALIGN) {
                    let rem = npu % ARENA_ALIGN;
                    return Err(Fault::new(
                        MISALIGNED_BAKED_REGION,
                        base,
                        npu,
                        rem,
                        0,
                        index,
                    ));
                }
                (npu, Place::Baked(data))
            }
            RegionSource::Runtime(size) => {
                // Pad the cursor so that its NPU address is aligned: the padding depends only
                // on the address's low bits. The region's NPU address is then
                // `align16(npu(arena) + cursor)`, which must not pass 2^64.
                let pad = (self.arena_npu as usize)
                    .wrapping_add(self.cursor)
                    .wrapping_neg()
                    & self.align.wrapping_sub(1);
                let offset = self.cursor.wrapping_add(pad);
                let available = self.arena_len.saturating_sub(offset);
                let Some(npu) = self.arena_npu.checked_add(offset as u64) else {
                    return Err(Fault::new(ARENA_OVERFLOW, base, size, 0, 0, index));
                };
                // With cache lines (align > 16), the region's last line is the arena's too.
                let Some(room) = line_size(size, self.align as u64) else {
                    return Err(Fault::new(ARENA_OVERFLOW, base, size, 0, 0, index));
                };
                // It fits when `offset + room <= arena.len()`.
                let Some((len, room)) = usize::try_from(size)
                    .ok()
                    .zip(usize::try_from(room).ok())
                    .filter(|&(_, r)| r <= available)
                else {
                    return Err(Fault::new(
                        ARENA_OVERFLOW,
                        base,
                        room,
                        available as u64,
                        0,
                        index,
                    ));
                };
                // A zero-size region takes no room: it gets the next aligned address (at most
                // 15 bytes past the arena's end, never dereferenced) and leaves the cursor
                // alone.
                if len > 0 {
                    self.cursor = offset.wrapping_add(room);
                }
                (npu, Place::Runtime { offset, len })
            }
        };
        Ok(Slot {
            npu,
            place,
            role: spec.role,
        })
    }
}

/// A failed placement: the site and the numbers [`fail_at`] takes.
#[derive(Clone, Copy)]
struct Fault {
    site: Site,
    base: u64,
    a: u64,
    b: u64,
    c: u64,
    index: usize,
}

impl Fault {
    #[inline(always)]
    fn new(site: Site, base: u64, a: u64, b: u64, c: u64, index: usize) -> Self {
        Self {
            site,
            base,
            a,
            b,
            c,
            index,
        }
    }

    /// The caller's error for this fault.
    #[inline(always)]
    fn fail<T, E: Report>(self) -> Result<T, E> {
        fail_at(self.site, self.base, self.a, self.b, self.c, self.index)
    }
}

/// The binder: the region count and the stream first, then each region in index order,
/// handed to `each` as soon as it is placed; `finish` makes the result from the [`Head`].
/// Every error is built straight into the caller's `Result<R, E>`, so nothing large is
/// moved. `total` is the blob length, for a baked region outside it.
#[allow(
    clippy::result_large_err,
    reason = "npuschema_core::Error is the project-wide, Copy error type"
)]
#[inline(always)]
fn carve<'b, E, T, I, M, R>(
    cmd_stream: &'b [u8],
    items: I,
    (total, table): (u64, u64),
    arena: &[u8],
    map: &M,
    mut each: impl FnMut(usize, Slot<'b>),
    finish: impl FnOnce(Head) -> R,
) -> Result<R, E>
where
    E: Report,
    T: Bindable<'b>,
    I: ExactSizeIterator<Item = T>,
    M: AddressMap + ?Sized,
{
    let count = check_count(items.len())?;
    let cmd_npu = check_cmd(cmd_stream, map)?;
    let mut carver = Carver::new(arena, map, total, table);
    for (index, item) in items.enumerate() {
        match carver.place(index, &item) {
            Ok(slot) => each(index, slot),
            Err(f) => return f.fail(),
        }
    }
    Ok(finish(Head {
        cmd_npu,
        count,
        arena_used: carver.cursor,
    }))
}

/// What [`bind_each`] returns besides the regions it handed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound<'b> {
    /// The command stream (in the blob).
    pub cmd_stream: &'b [u8],
    /// Its NPU address (`QBASE`).
    pub cmd_npu_address: u64,
    /// MACs per cycle the stream was compiled for; 0 = unspecified.
    pub accel_macs: u32,
    /// Number of regions bound (at most 8).
    pub region_count: usize,
    /// Bytes of the arena in use, as [`Job::arena_used`].
    pub arena_used: usize,
}

/// Bind a validated NPU1 blob into `arena` exactly as [`Job::bind_with`] does (same checks,
/// addresses and errors), handing each region to `each` as it is placed, in index order,
/// instead of keeping it.
///
/// For callers that pass the addresses on themselves and keep no [`Job`] (a C ABI, a table
/// in the caller's memory): nothing stays borrowed after the call, so keeping the blob and
/// the arena alive and untouched while the NPU uses them is up to the caller. Otherwise use
/// [`Job`], which makes the borrow checker do that. No job is built or copied, so this is
/// also the smallest binder on a microcontroller.
///
/// # Errors
///
/// As [`Job::bind_with`]. Regions before the failing one have been handed to `each`.
#[allow(
    clippy::result_large_err,
    reason = "npuschema_core::Error is the project-wide, Copy error type"
)]
pub fn bind_each<'b, M, F>(
    blob: Npu1<'b>,
    arena: &mut [u8],
    map: &M,
    each: F,
) -> Result<Bound<'b>, Error>
where
    M: AddressMap + ?Sized,
    F: FnMut(BoundRegion),
{
    bind_each_as(blob, arena, map, each)
}

/// As [`bind_each`], reporting a failure as `E` ([`npuschema_core::Brief`] for the smallest
/// code; see [`Report`]).
///
/// # Errors
///
/// As [`bind_each`], as `E`.
pub fn bind_each_as<'b, E, M, F>(
    blob: Npu1<'b>,
    arena: &mut [u8],
    map: &M,
    mut each: F,
) -> Result<Bound<'b>, E>
where
    E: Report,
    M: AddressMap + ?Sized,
    F: FnMut(BoundRegion),
{
    let arena_cpu = arena.as_ptr().addr();
    let cmd_stream = blob.cmd_stream();
    carve(
        cmd_stream,
        blob.regions(),
        (
            blob.as_bytes().len() as u64,
            region_table_at(blob.header().version()),
        ),
        arena,
        map,
        |index, slot| {
            if let Some(r) = slot.bound(index, arena_cpu) {
                each(r);
            }
        },
        |head| Bound {
            cmd_stream,
            cmd_npu_address: head.cmd_npu,
            accel_macs: blob.header().accel().raw(),
            region_count: usize::from(head.count),
            arena_used: head.arena_used,
        },
    )
}

/// Validate `blob` as NPU1 and bind it into `arena` in one pass, the loading algorithm of
/// the format document step by step: the file's checks (steps 1-7), then for each
/// descriptor its checks and its binding (step 8), handing each region to `each` as it is
/// placed, then the command stream's alignment. The same checks, addresses and errors as
/// [`Npu1::validate_as`] followed by [`bind_each_as`], which walk the descriptors twice;
/// only a blob with several faults may be reported at a different one of them (a region
/// that does not fit the arena, say, before a later descriptor's unknown flags). Returns
/// the validated view with what binding found.
///
/// The smallest loader on a microcontroller with [`npuschema_core::Brief`] errors; with
/// the full [`Error`], each error is moved out through the validator, which links
/// `memcpy`. As with [`bind_each`], keeping the blob and the arena alive and untouched while
/// the NPU uses them is up to the caller ([`Job::load_as`] makes the borrow checker do it).
///
/// # Errors
///
/// The first failed check, as `E`. Regions before the failing one have been handed to
/// `each`.
pub fn load_each_as<'b, E, M, F>(
    blob: &'b [u8],
    arena: &mut [u8],
    map: &M,
    mut each: F,
) -> Result<(Npu1<'b>, Bound<'b>), E>
where
    E: Report,
    M: AddressMap + ?Sized,
    F: FnMut(BoundRegion),
{
    let arena_cpu = arena.as_ptr().addr();
    let (view, loaded) = load(blob, arena, map, |index, slot| {
        if let Some(r) = slot.bound(index, arena_cpu) {
            each(r);
        }
    })?;
    let bound = Bound {
        cmd_stream: view.cmd_stream(),
        cmd_npu_address: loaded.cmd_npu,
        accel_macs: view.header().accel().raw(),
        region_count: view.regions().len(),
        arena_used: loaded.arena_used,
    };
    Ok((view, bound))
}

/// What the one-pass loader found besides the view (whose region count is at most
/// [`MAX_REGIONS`]: the hook fails any record past the eighth).
#[derive(Clone, Copy, Debug)]
struct Loaded {
    cmd_npu: u64,
    arena_used: usize,
}

/// The one-pass loader behind [`load_each_as`] and [`Job::load_with_as`]: the generated
/// validator walks the descriptors, and its `regions` hook places each one as soon as its
/// checks pass and hands it to `each` (index < 8).
#[inline(always)]
fn load<'b, E, M>(
    blob: &'b [u8],
    arena: &[u8],
    map: &M,
    each: impl FnMut(usize, Slot<'b>),
) -> Result<(Npu1<'b>, Loaded), E>
where
    E: Report,
    M: AddressMap + ?Sized,
{
    /// The binder as the validator's `regions` hook.
    struct Load<'m, M: ?Sized, F> {
        carver: Carver<'m, M>,
        each: F,
    }
    impl<'b, E, M, F> Npu1Visit<'b, E> for Load<'_, M, F>
    where
        E: Report,
        M: AddressMap + ?Sized,
        F: FnMut(usize, Slot<'b>),
    {
        #[inline(always)]
        fn regions(
            &mut self,
            header: &Header<'b>,
            index: usize,
            record: &Region<'b>,
        ) -> Result<(), E> {
            self.carver.table = region_table_at(header.version());
            if index >= MAX_REGIONS {
                let count = u64::from(header.region_count());
                return fail_at(TOO_MANY_REGIONS, 0, count, MAX_REGIONS as u64, 0, 0);
            }
            match self.carver.place(index, record) {
                Ok(slot) => {
                    (self.each)(index, slot);
                    Ok(())
                }
                Err(f) => f.fail(),
            }
        }
    }
    let mut load = Load {
        carver: Carver::new(arena, map, blob.len() as u64, REGION_TABLE),
        each,
    };
    let view = Npu1::validate_with(blob, &mut load)?;
    let cmd_npu = check_cmd(view.cmd_stream(), map)?;
    Ok((
        view,
        Loaded {
            cmd_npu,
            arena_used: load.carver.cursor,
        },
    ))
}

impl Slot<'_> {
    /// The public view of this slot as region `index` of an arena starting at CPU address
    /// `arena_cpu`.
    #[inline]
    fn bound(&self, index: usize, arena_cpu: usize) -> Option<BoundRegion> {
        let (kind, cpu_address, size, arena_offset) = match self.place {
            Place::Baked(d) => (RegionKind::Baked, d.as_ptr().addr(), d.len(), None),
            Place::Runtime { offset, len } => (
                RegionKind::Runtime,
                arena_cpu.saturating_add(offset),
                len,
                Some(offset),
            ),
        };
        Some(BoundRegion {
            index: u8::try_from(index).ok()?,
            role: self.role,
            kind,
            npu_address: self.npu,
            cpu_address,
            size: size as u64,
            arena_offset,
        })
    }
}

impl<'b, 'a> Job<'b, 'a> {
    /// Bind a validated NPU1 blob into `arena`, with the identity address map.
    ///
    /// # Errors
    ///
    /// As [`Job::bind_parts`].
    #[allow(
        clippy::result_large_err,
        reason = "npuschema_core::Error is the project-wide, Copy error type"
    )]
    pub fn bind(blob: Npu1<'b>, arena: &'a mut [u8]) -> Result<Self, Error> {
        Self::bind_with(blob, arena, &Identity)
    }

    /// As [`Job::bind`], reporting a failure as `E` ([`npuschema_core::Brief`] for the
    /// smallest code; see [`Report`]).
    ///
    /// # Errors
    ///
    /// As [`Job::bind`], as `E`.
    pub fn bind_as<E: Report>(blob: Npu1<'b>, arena: &'a mut [u8]) -> Result<Self, E> {
        Self::bind_with_as(blob, arena, &Identity)
    }

    /// Bind a validated NPU1 blob into `arena`, mapping CPU to NPU addresses with `map`:
    /// baked regions are the blob's bytes in place, runtime regions are carved from the
    /// arena in index order at 16-byte aligned NPU addresses.
    ///
    /// # Errors
    ///
    /// As [`Job::bind_parts`], plus `baked-region-out-of-bounds` for a BAKED region whose
    /// bytes are not in the blob (only reachable with an unvalidated view, so never).
    #[allow(
        clippy::result_large_err,
        reason = "npuschema_core::Error is the project-wide, Copy error type"
    )]
    pub fn bind_with<M: AddressMap + ?Sized>(
        blob: Npu1<'b>,
        arena: &'a mut [u8],
        map: &M,
    ) -> Result<Self, Error> {
        Self::bind_with_as(blob, arena, map)
    }

    /// As [`Job::bind_with`], reporting a failure as `E` ([`npuschema_core::Brief`] for the
    /// smallest code; see [`Report`]).
    ///
    /// # Errors
    ///
    /// As [`Job::bind_with`], as `E`.
    pub fn bind_with_as<E: Report, M: AddressMap + ?Sized>(
        blob: Npu1<'b>,
        arena: &'a mut [u8],
        map: &M,
    ) -> Result<Self, E> {
        let mut job: Self = Self::bind_items(
            blob.cmd_stream(),
            blob.header().accel().raw(),
            blob.regions(),
            (
                blob.as_bytes().len() as u64,
                region_table_at(blob.header().version()),
            ),
            arena,
            map,
        )?;
        job.view = Some(blob);
        Ok(job)
    }

    /// As [`Job::bind_with`], binding each runtime region `i` for which `buffers[i]` is
    /// `Some` to that caller-owned buffer, used in place, instead of carving it from the
    /// arena: a camera's frame buffer as the input, say, or a DMA buffer an audio driver
    /// reads as the output. Such a region is [`RegionKind::Caller`]; it takes no arena room,
    /// so `arena` may be smaller than [`arena_size`] says by that region's share.
    ///
    /// The same checks as for a carved region: the buffer must hold the region's size
    /// (its first `size` bytes are the region; the rest is not given to the NPU) and its NPU
    /// address must be aligned to [`AddressMap::region_align`] (16 by default).
    ///
    /// # Errors
    ///
    /// Those of [`Job::bind_with`], and, at the region's descriptor,
    /// `buffer-not-for-runtime-region` (a buffer for a baked region or past the last one),
    /// `buffer-too-small` (`Detail::Short`: the region's size, the buffer's length),
    /// `misaligned-buffer` (the buffer's NPU address and its remainder).
    #[allow(
        clippy::result_large_err,
        reason = "npuschema_core::Error is the project-wide, Copy error type"
    )]
    pub fn bind_with_buffers<M: AddressMap + ?Sized>(
        blob: Npu1<'b>,
        arena: &'a mut [u8],
        map: &M,
        buffers: Buffers<'a>,
    ) -> Result<Self, Error> {
        Self::bind_with_buffers_as(blob, arena, map, buffers)
    }

    /// As [`Job::bind_with_buffers`], reporting a failure as `E`.
    ///
    /// # Errors
    ///
    /// As [`Job::bind_with_buffers`], as `E`.
    pub fn bind_with_buffers_as<E: Report, M: AddressMap + ?Sized>(
        blob: Npu1<'b>,
        arena: &'a mut [u8],
        map: &M,
        buffers: Buffers<'a>,
    ) -> Result<Self, E> {
        let count = blob.regions().len();
        // A buffer past the last region has no descriptor to bind to.
        if let Some(index) =
            (count..MAX_REGIONS).find(|&i| buffers.get(i).is_some_and(Option::is_some))
        {
            return fail_at(
                BUFFER_NOT_FOR_RUNTIME_REGION,
                desc_base(region_table_at(blob.header().version()), index),
                index as u64,
                count as u64,
                0,
                index,
            );
        }
        let items = blob.regions().enumerate().map(|(i, region)| Buffered {
            region,
            caller: buffers.get(i).is_some_and(Option::is_some),
        });
        let mut job: Self = Self::bind_items(
            blob.cmd_stream(),
            blob.header().accel().raw(),
            items,
            (
                blob.as_bytes().len() as u64,
                region_table_at(blob.header().version()),
            ),
            arena,
            map,
        )?;
        let align = region_align_of(map);
        for ((index, buffer), region) in buffers.into_iter().enumerate().zip(blob.regions()) {
            let Some(buffer) = buffer else { continue };
            let base = desc_base(region_table_at(blob.header().version()), index);
            let Some(slot) = job.slots.get_mut(index).and_then(Option::as_mut) else {
                continue;
            };
            if !matches!(slot.place, JobPlace::Runtime { .. }) {
                return fail_at(
                    BUFFER_NOT_FOR_RUNTIME_REGION,
                    base,
                    index as u64,
                    count as u64,
                    0,
                    index,
                );
            }
            let size = u64::from(region.size());
            let available = buffer.len() as u64;
            // With cache lines, the buffer holds the region's last line whole.
            let room = line_size(size, align as u64).unwrap_or(u64::MAX);
            if room > available {
                return fail_at(BUFFER_TOO_SMALL, base, room, available, 0, index);
            }
            let Some(bytes) = usize::try_from(size).ok().and_then(|n| buffer.get_mut(..n)) else {
                return fail_at(BUFFER_TOO_SMALL, base, room, available, 0, index);
            };
            let npu = map.npu_address(bytes.as_ptr().addr());
            let rem = npu & (align as u64).wrapping_sub(1);
            if rem != 0 {
                return fail_at(MISALIGNED_BUFFER, base, npu, rem, 0, index);
            }
            slot.npu = npu;
            slot.place = JobPlace::Caller(bytes);
        }
        job.view = Some(blob);
        Ok(job)
    }

    /// Validate `blob` as NPU1 and bind it into `arena` in one pass, with the identity
    /// address map: [`Npu1::validate`] then [`Job::bind`] in one walk over the descriptors
    /// (see [`load_each_as`] for the order of the checks).
    ///
    /// # Errors
    ///
    /// The first failed check of validation or binding.
    #[allow(
        clippy::result_large_err,
        reason = "npuschema_core::Error is the project-wide, Copy error type"
    )]
    pub fn load(blob: &'b [u8], arena: &'a mut [u8]) -> Result<Self, Error> {
        Self::load_with_as(blob, arena, &Identity)
    }

    /// As [`Job::load`], reporting a failure as `E` ([`npuschema_core::Brief`] for the
    /// smallest code: with it, this is the smallest loader that keeps a [`Job`]).
    ///
    /// # Errors
    ///
    /// As [`Job::load`], as `E`.
    pub fn load_as<E: Report>(blob: &'b [u8], arena: &'a mut [u8]) -> Result<Self, E> {
        Self::load_with_as(blob, arena, &Identity)
    }

    /// As [`Job::load_as`], mapping CPU to NPU addresses with `map` (see
    /// [`Job::bind_with`]).
    ///
    /// # Errors
    ///
    /// As [`Job::load`], as `E`.
    pub fn load_with_as<E: Report, M: AddressMap + ?Sized>(
        blob: &'b [u8],
        arena: &'a mut [u8],
        map: &M,
    ) -> Result<Self, E> {
        // Unused slots are only a tag: nothing else of them is written.
        let mut slots = [const { None }; MAX_REGIONS];
        let (view, loaded) = load(blob, arena, map, |index, slot| {
            if let Some(s) = slots.get_mut(index) {
                *s = Some(slot.into());
            }
        })?;
        Ok(Self {
            cmd: view.cmd_stream(),
            cmd_npu: loaded.cmd_npu,
            arena,
            arena_used: loaded.arena_used,
            accel_macs: view.header().accel().raw(),
            // At most MAX_REGIONS: the hook failed any record past the eighth.
            count: u8::try_from(view.regions().len()).unwrap_or(u8::MAX),
            align: region_align_of(map) as u16,
            slots,
            view: Some(view),
        })
    }

    /// The validated blob the job was bound from (`None` for [`Job::bind_regions`]).
    #[inline]
    pub(crate) fn view(&self) -> Option<&Npu1<'b>> {
        self.view.as_ref()
    }

    /// Bind a command stream and a list of regions (index order = `BASEP` slot) into
    /// `arena`, mapping CPU addresses to NPU addresses with `map`.
    ///
    /// `accel_macs` is the MACs/cycle the stream was compiled for (0 = unspecified). Error
    /// offsets and field names are those of the NPU1 header and region table.
    ///
    /// # Errors
    ///
    /// `too-many-regions` (more than 8), `misaligned-command-stream`,
    /// `misaligned-baked-region` (by the NPU address of the bytes where they sit), and
    /// `arena-overflow` (a runtime region does not fit what is left of the arena after
    /// alignment; `Detail::Short` gives the region's size and the bytes available).
    #[allow(
        clippy::result_large_err,
        reason = "npuschema_core::Error is the project-wide, Copy error type"
    )]
    pub fn bind_parts<I, M>(
        cmd_stream: &'b [u8],
        accel_macs: u32,
        regions: I,
        arena: &'a mut [u8],
        map: &M,
    ) -> Result<Self, Error>
    where
        I: IntoIterator<Item = RegionSpec<'b>>,
        I::IntoIter: ExactSizeIterator,
        M: AddressMap + ?Sized,
    {
        Self::bind_items(
            cmd_stream,
            accel_macs,
            regions.into_iter(),
            (0, REGION_TABLE),
            arena,
            map,
        )
    }

    #[allow(
        clippy::result_large_err,
        reason = "npuschema_core::Error is the project-wide, Copy error type"
    )]
    #[inline]
    fn bind_items<E, T, I, M>(
        cmd: &'b [u8],
        accel_macs: u32,
        items: I,
        total: (u64, u64),
        arena: &'a mut [u8],
        map: &M,
    ) -> Result<Self, E>
    where
        E: Report,
        T: Bindable<'b>,
        I: ExactSizeIterator<Item = T>,
        M: AddressMap + ?Sized,
    {
        // Unused slots are only a tag: nothing else of them is written.
        let mut slots = [const { None }; MAX_REGIONS];
        let head = carve(
            cmd,
            items,
            total,
            arena,
            map,
            |index, slot| {
                if let Some(s) = slots.get_mut(index) {
                    *s = Some(slot.into());
                }
            },
            |head| head,
        )?;
        Ok(Self {
            cmd,
            cmd_npu: head.cmd_npu,
            arena,
            arena_used: head.arena_used,
            accel_macs,
            count: head.count,
            align: region_align_of(map) as u16,
            slots,
            view: None,
        })
    }

    /// The command stream (in the blob).
    #[must_use]
    pub fn cmd_stream(&self) -> &'b [u8] {
        self.cmd
    }

    /// The command stream's NPU address (`QBASE`).
    #[must_use]
    pub fn cmd_npu_address(&self) -> u64 {
        self.cmd_npu
    }

    /// MACs per cycle the stream was compiled for; 0 = unspecified.
    #[must_use]
    pub fn accel_macs(&self) -> u32 {
        self.accel_macs
    }

    /// The alignment of the regions the NPU writes (16, or the cache line they are sized
    /// to: [`AddressMap::region_align`]).
    #[must_use]
    pub fn region_align(&self) -> u64 {
        u64::from(self.align)
    }

    /// Number of bound regions (at most 8).
    #[must_use]
    pub fn region_count(&self) -> usize {
        usize::from(self.count)
    }

    /// Bytes of the arena in use, from its start to the end of the last runtime region
    /// (alignment padding included).
    #[must_use]
    pub fn arena_used(&self) -> usize {
        self.arena_used
    }

    fn slot(&self, index: usize) -> Option<&JobSlot<'b, 'a>> {
        self.slots.get(index)?.as_ref()
    }

    /// Region `index` as bound, or `None` past the last region.
    #[must_use]
    pub fn region(&self, index: usize) -> Option<BoundRegion> {
        let s = self.slot(index)?;
        let (kind, cpu_address, size, arena_offset) = match &s.place {
            JobPlace::Baked(d) => (RegionKind::Baked, d.as_ptr().addr(), d.len(), None),
            JobPlace::Runtime { offset, len } => (
                RegionKind::Runtime,
                self.arena.as_ptr().addr().saturating_add(*offset),
                *len,
                Some(*offset),
            ),
            JobPlace::Caller(b) => (RegionKind::Caller, b.as_ptr().addr(), b.len(), None),
        };
        Some(BoundRegion {
            index: u8::try_from(index).ok()?,
            role: s.role,
            kind,
            npu_address: s.npu,
            cpu_address,
            size: size as u64,
            arena_offset,
        })
    }

    /// Every bound region, in index order.
    pub fn regions(&self) -> impl Iterator<Item = BoundRegion> + '_ {
        (0..self.region_count()).filter_map(|i| self.region(i))
    }

    /// The index of the first region with `role`.
    #[must_use]
    pub fn find_role(&self, role: u32) -> Option<usize> {
        self.slots
            .iter()
            .map_while(Option::as_ref)
            .position(|s| s.role == role)
    }

    /// The bytes of region `index`: the blob's bytes for a baked region, the arena's for a
    /// runtime one.
    #[must_use]
    pub fn region_bytes(&self, index: usize) -> Option<&[u8]> {
        match &self.slot(index)?.place {
            JobPlace::Baked(d) => Some(d),
            JobPlace::Runtime { len: 0, .. } => Some(&[]),
            &JobPlace::Runtime { offset, len } => self.arena.get(offset..offset.checked_add(len)?),
            JobPlace::Caller(b) => Some(b),
        }
    }

    /// The bytes of runtime or caller-owned region `index`, to write inputs or read
    /// outputs; `None` for a baked region (read-only blob bytes) or an index past the last
    /// region.
    #[must_use]
    pub fn region_bytes_mut(&mut self, index: usize) -> Option<&mut [u8]> {
        let Self { slots, arena, .. } = self;
        match &mut slots.get_mut(index)?.as_mut()?.place {
            JobPlace::Baked(_) => None,
            JobPlace::Runtime { len: 0, .. } => Some(&mut []),
            &mut JobPlace::Runtime { offset, len } => {
                arena.get_mut(offset..offset.checked_add(len)?)
            }
            JobPlace::Caller(b) => Some(b),
        }
    }
}
