//! NPU1 (`.npub`) reference reader, written with `binrw` from the format document
//! (`spec/npu1-format.txt`, sections 3 and 4.2) and nothing else.
//!
//! [`read`] performs the load algorithm's structural steps 1-8 (without binding runtime
//! regions to an arena; [`bind`] does that, as step 8's RUNTIME half). Every offset check
//! is done in `u64` so nothing can wrap.

use binrw::io::Cursor;
use binrw::{BinRead, binread};

use super::RefError;

/// `k_ra8_npu_blob_magic`: little-endian bytes `4e 50 55 31` ("NPU1").
pub const MAGIC: u32 = 0x3155_504E;
/// `k_ra8_npu_blob_version`.
pub const VERSION: u32 = 1;
/// `k_ra8_npu_blob_header_bytes`.
pub const HEADER_BYTES: u64 = 32;
/// `k_ra8_npu_blob_region_desc_bytes`.
pub const DESC_BYTES: u64 = 16;
/// `k_ra8_npu_blob_arena_align`.
pub const ARENA_ALIGN: u64 = 16;
/// `k_ra8_npu_blob_rflag_baked`.
pub const FLAG_BAKED: u32 = 1;

/// The 32-byte header, eight little-endian words (section 3.1). The magic is read as a
/// plain word so that a wrong magic is reported by [`read`] with the value found.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Word 0: must be [`MAGIC`].
    pub magic: u32,
    /// Word 1: must be [`VERSION`].
    pub version: u32,
    /// Word 2: whole blob length.
    pub total_bytes: u32,
    /// Word 3: number of region descriptors.
    pub region_count: u32,
    /// Word 4: byte offset of the command stream.
    pub cmd_offset: u32,
    /// Word 5: command-stream length, > 0.
    pub cmd_bytes: u32,
    /// Word 6: Vela accelerator configuration (informational).
    pub accel: u32,
    /// Word 7: FNV-1a over every byte at or beyond offset 32.
    pub checksum: u32,
}

/// One 16-byte region descriptor (section 3.2).
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionDesc {
    /// 0 weights, 1 scratch, 2 input, 3 output, 4 other (informational).
    pub role: u32,
    /// Bit 0: BAKED.
    pub flags: u32,
    /// Region size in bytes.
    pub size: u32,
    /// Offset of the baked bytes when BAKED; unused otherwise.
    pub data_offset: u32,
}

impl RegionDesc {
    /// Whether the region's bytes are in the blob.
    #[must_use]
    pub fn baked(&self) -> bool {
        self.flags & FLAG_BAKED != 0
    }
}

/// A blob that passed load steps 1-8 (baked half).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Npu1 {
    /// The header.
    pub header: Header,
    /// The region table, in BASEPn order.
    pub regions: Vec<RegionDesc>,
    /// FNV-1a computed over the payload (equals `header.checksum`).
    pub computed_checksum: u32,
}

/// The reference FNV-1a 32 (the plain byte loop of the definition).
#[must_use]
pub fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811C_9DC5_u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Read and check a blob by the document's load algorithm, steps 1-8 (BAKED bounds; the
/// arena half of step 8 is [`bind`]).
///
/// # Errors
/// The first rule that fails, in the document's order.
pub fn read(buf: &[u8]) -> Result<Npu1, RefError> {
    let len = buf.len() as u64;
    // Step 1.
    if len < HEADER_BYTES {
        return Err(RefError::Check {
            rule: "short",
            detail: format!("{len} < 32"),
        });
    }
    let mut cur = Cursor::new(buf);
    let header = Header::read(&mut cur)?;
    // Step 2-4.
    if header.magic != MAGIC {
        return Err(RefError::Check {
            rule: "magic",
            detail: format!("{:#x}", header.magic),
        });
    }
    if header.version != VERSION {
        return Err(RefError::Check {
            rule: "version",
            detail: format!("{}", header.version),
        });
    }
    let total = u64::from(header.total_bytes);
    if total != len {
        return Err(RefError::Check {
            rule: "total-bytes",
            detail: format!("{total} != {len}"),
        });
    }
    // Step 5.
    let table_end = HEADER_BYTES + u64::from(header.region_count) * DESC_BYTES;
    if table_end > total {
        return Err(RefError::Check {
            rule: "region-table",
            detail: format!("{table_end} > {total}"),
        });
    }
    // Step 6.
    let cmd_end = u64::from(header.cmd_offset) + u64::from(header.cmd_bytes);
    if header.cmd_bytes == 0 || cmd_end > total {
        return Err(RefError::Check {
            rule: "cmd-stream",
            detail: format!("{} + {} vs {total}", header.cmd_offset, header.cmd_bytes),
        });
    }
    // Step 7. `buf.get(32..)` exists: len >= 32 was checked.
    let computed_checksum = fnv1a(buf.get(32..).unwrap_or_default());
    if computed_checksum != header.checksum {
        return Err(RefError::Check {
            rule: "checksum",
            detail: format!("{computed_checksum:#x} != {:#x}", header.checksum),
        });
    }
    // Step 8, BAKED half. The table fits (step 5), so the count is bounded by the buffer.
    let mut regions = Vec::with_capacity(header.region_count as usize);
    for _ in 0..header.region_count {
        regions.push(RegionDesc::read(&mut cur)?);
    }
    for (i, r) in regions.iter().enumerate() {
        let end = u64::from(r.data_offset) + u64::from(r.size);
        if r.baked() && end > total {
            return Err(RefError::Check {
                rule: "baked-region",
                detail: format!("regions[{i}]: {} + {} > {total}", r.data_offset, r.size),
            });
        }
    }
    Ok(Npu1 {
        header,
        regions,
        computed_checksum,
    })
}

impl Npu1 {
    /// The command-stream bytes of `buf` (which must be the buffer this was read from).
    #[must_use]
    pub fn cmd_stream<'a>(&self, buf: &'a [u8]) -> Option<&'a [u8]> {
        let start = usize::try_from(self.header.cmd_offset).ok()?;
        let end = start.checked_add(usize::try_from(self.header.cmd_bytes).ok()?)?;
        buf.get(start..end)
    }

    /// A baked region's bytes in `buf`, or `None` for a runtime region.
    #[must_use]
    pub fn region_data<'a>(&self, buf: &'a [u8], index: usize) -> Option<&'a [u8]> {
        let r = self.regions.get(index)?;
        if !r.baked() {
            return None;
        }
        let start = usize::try_from(r.data_offset).ok()?;
        let end = start.checked_add(usize::try_from(r.size).ok()?)?;
        buf.get(start..end)
    }
}

/// Where one region is bound: in the blob (baked) or in the arena (runtime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// `blob + offset`, `size` bytes.
    Blob {
        /// Offset in the blob.
        offset: u64,
        /// Size in bytes.
        size: u64,
    },
    /// `arena + offset`, `size` bytes.
    Arena {
        /// Offset from the arena's first byte.
        offset: u64,
        /// Size in bytes.
        size: u64,
    },
}

/// Step 8, RUNTIME half: bind every region of `blob` given an arena that starts at address
/// `arena_addr` and is `arena_len` bytes long. Runtime regions take the arena cursor aligned
/// up to 16 (an *address* alignment, as the document and the C peer do it).
///
/// # Errors
/// `arena` when a runtime region does not fit the remaining arena.
pub fn bind(blob: &Npu1, arena_addr: u64, arena_len: u64) -> Result<Vec<Binding>, RefError> {
    let mut cursor = arena_addr;
    let end = arena_addr + arena_len;
    let mut out = Vec::with_capacity(blob.regions.len());
    for (i, r) in blob.regions.iter().enumerate() {
        let size = u64::from(r.size);
        if r.baked() {
            out.push(Binding::Blob {
                offset: u64::from(r.data_offset),
                size,
            });
        } else {
            let a = cursor.div_ceil(ARENA_ALIGN) * ARENA_ALIGN;
            if a > end || end - a < size {
                return Err(RefError::Check {
                    rule: "arena",
                    detail: format!(
                        "regions[{i}]: {size} bytes at arena +{} of {arena_len}",
                        a - arena_addr
                    ),
                });
            }
            out.push(Binding::Arena {
                offset: a - arena_addr,
                size,
            });
            cursor = a + size;
        }
    }
    Ok(out)
}

/// One region for [`build`]: its role, and its bytes when baked or its size when runtime.
#[derive(Clone, Copy, Debug)]
pub enum BuildRegion<'a> {
    /// A BAKED region holding these bytes.
    Baked(u32, &'a [u8]),
    /// A RUNTIME region of this many arena bytes.
    Runtime(u32, u32),
}

/// An independent producer (section 4.1 steps 3-5), for fixtures that do not come from the
/// generated writer: header, region table, the command stream at `cmd_offset` (or right
/// after the table, 16-aligned), then each baked region's bytes 16-aligned, then the
/// checksum. Returns `None` when something does not fit 32-bit offsets.
#[must_use]
pub fn build(
    accel: u32,
    regions: &[BuildRegion<'_>],
    cmd: &[u8],
    cmd_offset: Option<u32>,
) -> Option<Vec<u8>> {
    let table_end = HEADER_BYTES + regions.len() as u64 * DESC_BYTES;
    let cmd_at = match cmd_offset {
        Some(c) => u64::from(c),
        None => table_end.div_ceil(16) * 16,
    };
    let mut cursor = cmd_at + cmd.len() as u64;
    let mut descs = Vec::with_capacity(regions.len());
    for r in regions {
        match *r {
            BuildRegion::Baked(role, bytes) => {
                let at = cursor.div_ceil(16) * 16;
                descs.push((
                    role,
                    FLAG_BAKED,
                    u32::try_from(bytes.len()).ok()?,
                    u32::try_from(at).ok()?,
                    bytes,
                ));
                cursor = at + bytes.len() as u64;
            }
            BuildRegion::Runtime(role, size) => descs.push((role, 0, size, 0, &[][..])),
        }
    }
    let total = u32::try_from(cursor).ok()?;
    let mut out = vec![0u8; total as usize];
    fn put(out: &mut [u8], at: u64, bytes: &[u8]) {
        let at = at as usize;
        if let Some(dst) = out.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
    }
    for (i, w) in [
        MAGIC,
        VERSION,
        total,
        u32::try_from(regions.len()).ok()?,
        u32::try_from(cmd_at).ok()?,
        u32::try_from(cmd.len()).ok()?,
        accel,
    ]
    .iter()
    .enumerate()
    {
        put(&mut out, 4 * i as u64, &w.to_le_bytes());
    }
    for (i, (role, flags, size, off, bytes)) in descs.iter().enumerate() {
        let at = HEADER_BYTES + i as u64 * DESC_BYTES;
        for (k, w) in [role, flags, size, off].iter().enumerate() {
            put(&mut out, at + 4 * k as u64, &w.to_le_bytes());
        }
        if *flags == FLAG_BAKED {
            put(&mut out, u64::from(*off), bytes);
        }
    }
    put(&mut out, cmd_at, cmd);
    let sum = fnv1a(out.get(32..).unwrap_or_default());
    put(&mut out, 28, &sum.to_le_bytes());
    Some(out)
}
