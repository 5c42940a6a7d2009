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

use npuschema_core::{Detail, Error, Field, align_up};
use npuschema_generated::npu1::{Npu1, Region, RegionFlags};

/// Alignment of every address handed to the NPU (command stream, baked and runtime regions).
pub const ARENA_ALIGN: u64 = 16;

/// Number of region slots the Ethos-U55 has (`BASEP[0..8]`).
pub const MAX_REGIONS: usize = 8;

/// NPU1 byte offsets used in error reports.
const HEADER_REGION_COUNT: u64 = 12;
const HEADER_CMD_OFFSET: u64 = 16;
const REGION_TABLE: u64 = 32;
const REGION_DESC_BYTES: u64 = 16;
const DESC_SIZE: u64 = 8;
const DESC_DATA_OFFSET: u64 = 12;

/// Platform hook: the NPU bus address of a CPU address (for example when the NPU sees a
/// TCM through an alias window). The default is the identity.
pub trait AddressMap {
    /// The NPU bus address of the byte at CPU address `cpu`.
    fn npu_address(&self, cpu: usize) -> u64 {
        cpu as u64
    }
}

/// The identity address map: the NPU sees memory at the CPU's addresses.
#[derive(Clone, Copy, Debug, Default)]
pub struct Identity;

impl AddressMap for Identity {}

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

/// Whether a bound region lives in the blob or in the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegionKind {
    /// The blob's own bytes, read-only to the NPU.
    Baked,
    /// Carved from the arena; the NPU may write it.
    Runtime,
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
    /// For a runtime region, its byte offset inside the arena.
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

/// Exact arena bytes a validated blob needs when the arena's NPU start address is `start`
/// (saturating at `u64::MAX`).
#[must_use]
pub fn arena_size_at(blob: &Npu1<'_>, start: u64) -> u64 {
    arena_bytes_at(blob.regions().filter_map(|r| spec_of(&r)), start).unwrap_or(u64::MAX)
}

#[derive(Clone, Copy, Debug)]
enum Place<'b> {
    Baked(&'b [u8]),
    Runtime { offset: usize, len: usize },
}

#[derive(Clone, Copy, Debug)]
struct Slot<'b> {
    role: u32,
    place: Place<'b>,
    npu: u64,
    cpu: usize,
}

const EMPTY_SLOT: Slot<'static> = Slot {
    role: 0,
    place: Place::Runtime { offset: 0, len: 0 },
    npu: 0,
    cpu: 0,
};

/// A bound job: the command stream and up to eight regions, each with an NPU address and a
/// size, ready for [`crate::driver::Driver::start`].
///
/// Borrows the blob for `'b` and the arena mutably for `'a`: while the job lives, the arena
/// can be reached only through it, and neither buffer can be dropped.
#[derive(Debug)]
pub struct Job<'b, 'a> {
    cmd: &'b [u8],
    cmd_npu: u64,
    accel_macs: u32,
    slots: [Slot<'b>; MAX_REGIONS],
    count: usize,
    arena: &'a mut [u8],
    arena_used: usize,
}

fn desc_offset(index: usize, field: u64) -> u64 {
    REGION_TABLE
        .saturating_add(REGION_DESC_BYTES.saturating_mul(index as u64))
        .saturating_add(field)
}

fn misaligned(address: u64) -> Detail {
    Detail::Compare {
        lhs: Some(address),
        rhs: Some(address % ARENA_ALIGN),
        names: &["npu address", "% 0x10 =", ""],
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
        if let Some(bad) = blob.regions().find(|r| spec_of(r).is_none()) {
            let index = bad.index() as usize;
            return Err(Error::new(
                "baked-region-out-of-bounds",
                Field::indexed("regions", u64::from(bad.index()), "data_offset"),
                desc_offset(index, DESC_DATA_OFFSET),
                Detail::Range {
                    start: u64::from(bad.data_offset()),
                    len: u64::from(bad.size()),
                    limit_name: "total_bytes",
                    limit: blob.as_bytes().len() as u64,
                },
            ));
        }
        let specs = blob.regions().map(|r| {
            spec_of(&r).unwrap_or(RegionSpec {
                role: 0,
                source: RegionSource::Runtime(0),
            })
        });
        Self::bind_parts(
            blob.cmd_stream(),
            blob.header().accel().raw(),
            specs,
            arena,
            map,
        )
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
        let regions = regions.into_iter();
        let count = regions.len();
        if count > MAX_REGIONS {
            return Err(Error::new(
                "too-many-regions",
                Field::plain("header.region_count"),
                HEADER_REGION_COUNT,
                Detail::Compare {
                    lhs: Some(count as u64),
                    rhs: Some(MAX_REGIONS as u64),
                    names: &["region_count", ">", "BASEP slots"],
                },
            ));
        }

        let cmd_npu = map.npu_address(cmd_stream.as_ptr().addr());
        if !cmd_npu.is_multiple_of(ARENA_ALIGN) {
            return Err(Error::new(
                "misaligned-command-stream",
                Field::plain("header.cmd_offset"),
                HEADER_CMD_OFFSET,
                misaligned(cmd_npu),
            ));
        }

        let arena_cpu = arena.as_ptr().addr();
        let arena_npu = map.npu_address(arena_cpu);
        let arena_len = arena.len() as u64;
        let mut cursor: u64 = 0;
        let mut slots = [EMPTY_SLOT; MAX_REGIONS];
        for ((index, spec), slot) in regions.enumerate().zip(slots.iter_mut()) {
            *slot = match spec.source {
                RegionSource::Baked(data) => {
                    let cpu = data.as_ptr().addr();
                    let npu = map.npu_address(cpu);
                    if !npu.is_multiple_of(ARENA_ALIGN) {
                        return Err(Error::new(
                            "misaligned-baked-region",
                            Field::indexed("regions", index as u64, "data_offset"),
                            desc_offset(index, DESC_DATA_OFFSET),
                            misaligned(npu),
                        ));
                    }
                    Slot {
                        role: spec.role,
                        place: Place::Baked(data),
                        npu,
                        cpu,
                    }
                }
                RegionSource::Runtime(size) => {
                    let overflow = |available: u64| {
                        Error::new(
                            "arena-overflow",
                            Field::indexed("regions", index as u64, "size"),
                            desc_offset(index, DESC_SIZE),
                            Detail::Short {
                                needed: size,
                                available,
                            },
                        )
                    };
                    // The NPU address of the cursor, rounded up; the padding is added to
                    // the offset so that the *address* is aligned.
                    let here = arena_npu.checked_add(cursor).ok_or_else(|| overflow(0))?;
                    let aligned = align_up(here, ARENA_ALIGN).ok_or_else(|| overflow(0))?;
                    let offset = cursor
                        .checked_add(aligned.wrapping_sub(here))
                        .ok_or_else(|| overflow(0))?;
                    let available = arena_len.saturating_sub(offset);
                    if size > available {
                        return Err(overflow(available));
                    }
                    // A zero-size region takes no room: it gets the next aligned address
                    // (at most 15 bytes past the arena's end, never dereferenced) and leaves
                    // the cursor alone. Otherwise offset + size <= arena_len, a usize.
                    if size > 0 {
                        cursor = offset.saturating_add(size);
                    }
                    let (Ok(offset), Ok(len)) = (usize::try_from(offset), usize::try_from(size))
                    else {
                        return Err(overflow(available));
                    };
                    Slot {
                        role: spec.role,
                        place: Place::Runtime { offset, len },
                        npu: aligned,
                        cpu: arena_cpu.saturating_add(offset),
                    }
                }
            };
        }
        let arena_used = usize::try_from(cursor).unwrap_or(arena.len());
        Ok(Self {
            cmd: cmd_stream,
            cmd_npu,
            accel_macs,
            slots,
            count,
            arena,
            arena_used,
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

    /// Number of bound regions (at most 8).
    #[must_use]
    pub fn region_count(&self) -> usize {
        self.count
    }

    /// Bytes of the arena in use, from its start to the end of the last runtime region
    /// (alignment padding included).
    #[must_use]
    pub fn arena_used(&self) -> usize {
        self.arena_used
    }

    fn slot(&self, index: usize) -> Option<&Slot<'b>> {
        self.slots.get(..self.count)?.get(index)
    }

    /// Region `index` as bound, or `None` past the last region.
    #[must_use]
    pub fn region(&self, index: usize) -> Option<BoundRegion> {
        let s = self.slot(index)?;
        let (kind, size, arena_offset) = match s.place {
            Place::Baked(d) => (RegionKind::Baked, d.len() as u64, None),
            Place::Runtime { offset, len } => (RegionKind::Runtime, len as u64, Some(offset)),
        };
        Some(BoundRegion {
            index: u8::try_from(index).ok()?,
            role: s.role,
            kind,
            npu_address: s.npu,
            cpu_address: s.cpu,
            size,
            arena_offset,
        })
    }

    /// Every bound region, in index order.
    pub fn regions(&self) -> impl Iterator<Item = BoundRegion> + '_ {
        (0..self.count).filter_map(|i| self.region(i))
    }

    /// The index of the first region with `role`.
    #[must_use]
    pub fn find_role(&self, role: u32) -> Option<usize> {
        self.slots
            .get(..self.count)?
            .iter()
            .position(|s| s.role == role)
    }

    /// The bytes of region `index`: the blob's bytes for a baked region, the arena's for a
    /// runtime one.
    #[must_use]
    pub fn region_bytes(&self, index: usize) -> Option<&[u8]> {
        match self.slot(index)?.place {
            Place::Baked(d) => Some(d),
            Place::Runtime { len: 0, .. } => Some(&[]),
            Place::Runtime { offset, len } => self.arena.get(offset..offset.checked_add(len)?),
        }
    }

    /// The arena bytes of runtime region `index`, to write inputs or read outputs; `None`
    /// for a baked region (read-only blob bytes) or an index past the last region.
    #[must_use]
    pub fn region_bytes_mut(&mut self, index: usize) -> Option<&mut [u8]> {
        match self.slot(index)?.place {
            Place::Baked(_) => None,
            Place::Runtime { len: 0, .. } => Some(&mut []),
            Place::Runtime { offset, len } => self.arena.get_mut(offset..offset.checked_add(len)?),
        }
    }
}
