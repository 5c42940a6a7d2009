//! Files for `tests/schemas/opendir.yaml` (a big-endian directory over an open 32-bit type
//! space), built byte by byte so the generated reader is not used to make its own input.
//! Shared by tests/tests/schema_constructs.rs and tests/tests/interp_differential.rs.

/// Byte size of the header and of one section record.
pub const HEADER: usize = 16;
/// Byte size of one section record.
pub const SECTION: usize = 20;

/// Section types (`SecType` in the schema, plus types it does not name).
pub mod ty {
    /// `SecType.empty`.
    pub const EMPTY: u32 = 0;
    /// `SecType.symbols`: `Symbol` records.
    pub const SYMBOLS: u32 = 2;
    /// `SecType.checksums`: `ChecksumRecord`s.
    pub const CHECKSUMS: u32 = 0x6FFF_FFF0;
    /// `SecType.arm_exidx`: named, no layout.
    pub const ARM_EXIDX: u32 = 0x7000_0001;
    /// The constant `ARM_ATTRIBUTES`: `Attribute` records; not a value of `SecType`.
    pub const ARM_ATTRIBUTES: u32 = 0x7000_0003;
    /// `Slot` records into the `BLOBS` region (a layout named by a number).
    pub const SLOT_TABLE: u32 = 0x7FFF_0001;
    /// The slot region (named only by the `slots` definition).
    pub const BLOBS: u32 = 0xFFFF_FFFE;
    /// A type the schema does not name at all.
    pub const UNNAMED: u32 = 0x1234_5678;
}

/// One section: its type, entry size and payload.
#[derive(Clone, Debug)]
pub struct Sec {
    /// `sh_type`.
    pub ty: u32,
    /// `entsize`.
    pub entsize: u32,
    /// The payload bytes.
    pub payload: Vec<u8>,
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// The sections of a valid file: every layout, a slot region, a named type without a
/// layout, a type nobody names (kept), and checksum records over three sections.
pub fn sections() -> Vec<Sec> {
    let mut blobs = vec![0u8; 16];
    blobs[..4].copy_from_slice(b"abcd");
    blobs[8..12].copy_from_slice(b"wxyz");
    vec![
        Sec {
            ty: ty::EMPTY,
            entsize: 0,
            payload: Vec::new(),
        },
        Sec {
            ty: ty::SYMBOLS,
            entsize: 8,
            payload: words(&[1, 16, 2, 40]),
        },
        Sec {
            ty: ty::ARM_ATTRIBUTES,
            entsize: 8,
            payload: words(&[5, 0x10, 6, 0]),
        },
        Sec {
            ty: ty::SLOT_TABLE,
            entsize: 8,
            payload: words(&[0, 4, 8, 4]),
        },
        Sec {
            ty: ty::BLOBS,
            entsize: 0,
            payload: blobs,
        },
        Sec {
            ty: ty::UNNAMED,
            entsize: 1,
            payload: vec![9, 8, 7],
        },
        Sec {
            ty: ty::ARM_EXIDX,
            entsize: 0,
            payload: vec![1, 2, 3, 4],
        },
        Sec {
            ty: ty::CHECKSUMS,
            entsize: 8,
            // The values are filled in by `seal`.
            payload: words(&[ty::SYMBOLS, 0, ty::ARM_ATTRIBUTES, 0, ty::BLOBS, 0]),
        },
    ]
}

/// The file for `secs`: header, directory at 16, payloads after it in order (each at a
/// 4-byte boundary), sealed.
pub fn file(secs: &[Sec]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0x4F44_4952u32.to_be_bytes());
    out.extend_from_slice(&1u16.to_be_bytes());
    out.extend_from_slice(&u16::try_from(secs.len()).unwrap_or(u16::MAX).to_be_bytes());
    out.extend_from_slice(&u32::try_from(HEADER).unwrap_or(0).to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes());
    let mut at = HEADER + SECTION * secs.len();
    let mut data = Vec::new();
    for s in secs {
        let pad = at.next_multiple_of(4) - at;
        data.extend(std::iter::repeat_n(0u8, pad));
        at += pad;
        let len = u32::try_from(s.payload.len()).unwrap_or(u32::MAX);
        let off = u32::try_from(at).unwrap_or(u32::MAX);
        out.extend_from_slice(&words(&[s.ty, off, len, s.entsize, 0]));
        data.extend_from_slice(&s.payload);
        at += s.payload.len();
    }
    out.extend_from_slice(&data);
    seal(&mut out);
    out
}

fn be(b: &[u8], at: usize) -> Option<u32> {
    let w = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes(w.try_into().ok()?))
}

fn set(b: &mut [u8], at: usize, v: u32) {
    if let Some(w) = at.checked_add(4).and_then(|e| b.get_mut(at..e)) {
        w.copy_from_slice(&v.to_be_bytes());
    }
}

/// Each section's `(type, payload offset, payload length)` as far as the bytes allow.
fn directory(b: &[u8]) -> Vec<(u32, usize, usize)> {
    let count = b
        .get(6..8)
        .map_or(0, |c| usize::from(u16::from_be_bytes([c[0], c[1]])));
    let Some(at) = be(b, 8) else {
        return Vec::new();
    };
    (0..count)
        .map_while(|i| {
            let r = usize::try_from(at)
                .ok()?
                .checked_add(i.checked_mul(SECTION)?)?;
            Some((
                be(b, r)?,
                usize::try_from(be(b, r + 4)?).ok()?,
                usize::try_from(be(b, r + 8)?).ok()?,
            ))
        })
        .collect()
}

/// Recompute the checksum records' values (the CRC-32 of the payload of the one section
/// of the type each names) and the header's `crc_sum` (CRC-32 over every payload in
/// directory order, checksum values as zero). Sections whose bytes are not in the file
/// are skipped, so a mutant is resealed as far as it can be.
pub fn seal(b: &mut [u8]) {
    let dir = directory(b);
    let payload = |b: &[u8], off: usize, len: usize| -> Option<Vec<u8>> {
        b.get(off..off.checked_add(len)?).map(<[u8]>::to_vec)
    };
    for &(t, off, len) in &dir {
        if t != ty::CHECKSUMS {
            continue;
        }
        // Only the records whose bytes are in the file (a mutant's length can be huge).
        for k in 0..len.min(b.len().saturating_sub(off)) / 8 {
            let rec = off + 8 * k;
            let Some(target) = be(b, rec) else { continue };
            let mut found = dir.iter().filter(|d| d.0 == target);
            if let (Some(&(_, o, l)), None) = (found.next(), found.next())
                && let Some(p) = payload(b, o, l)
            {
                set(b, rec + 4, npuschema_core::crc32(0, &p));
            }
        }
    }
    let mut crc = 0u32;
    for &(t, off, len) in &dir {
        let Some(mut p) = payload(b, off, len) else {
            continue;
        };
        if t == ty::CHECKSUMS {
            for k in 0..p.len() / 8 {
                p[8 * k + 4..8 * k + 8].fill(0);
            }
        }
        crc = npuschema_core::crc32(crc, &p);
    }
    set(b, 12, crc);
}
