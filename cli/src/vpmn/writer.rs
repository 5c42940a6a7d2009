//! The VPMN version 2 writer on the host: owned specs ([`V2Spec`], [`Section`]) handed to the
//! generated writer (`vpmn::VpmnV2Spec`, from `schema/vpmn.yaml`'s `writer` block), which
//! lays the file out (format header, sub-header, directory, payloads in directory order each
//! at its alignment) and computes every CHECKSUM record and the header's file checksum; the
//! result is then validated with the generated validator.
//!
//! [`reseal`] recomputes the checksums of an existing image with the generated writer's
//! `seal` over the directory as read here (any bytes: it reads defensively), which is how
//! tests make files with exactly one fault. [`edit_dynaio_entry`] is the field map's
//! controlled A/B edit: the file decoded, one DYNAIO slot's bytes replaced, the file
//! re-written by the generated writer and validated.

use std::fmt;

use npuschema_core::Error;
use npuschema_generated::vpmn::{self, SectionHeader, Vpmn};

/// Section type of CHECKSUM.
pub const CHECKSUM: u32 = 40;
/// Section type of DYNAIO.
pub const DYNAIO: u32 = 20;
/// Section type of DYNAIO_TABLE.
pub const DYNAIO_TABLE: u32 = 26;

/// One section to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// `sd_type`.
    pub sd_type: u32,
    /// `sd_alignsize`: the payload's file offset is a multiple of it (0 and 1: none).
    pub alignment: u32,
    /// `sd_entsize`.
    pub entry_size: u32,
    /// `sd_addr_low/high`.
    pub load_address: u64,
    /// `reserved1`, `reserved2`.
    pub reserved: [u32; 2],
    /// The payload. For CHECKSUM, the records' value words are computed by the writer.
    pub payload: Vec<u8>,
}

impl Section {
    /// A section with no alignment, load address or reserved words.
    #[must_use]
    pub fn new(sd_type: u32, entry_size: u32, payload: Vec<u8>) -> Self {
        Self {
            sd_type,
            alignment: 0,
            entry_size,
            load_address: 0,
            reserved: [0; 2],
            payload,
        }
    }

    /// The same section aligned to `alignment`.
    #[must_use]
    pub fn aligned(mut self, alignment: u32) -> Self {
        self.alignment = alignment;
        self
    }
}

/// A whole version 2 file to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V2Spec {
    /// Header `target`.
    pub target: u32,
    /// Header word 0x24 (`class` and reserved bits).
    pub class_word: u32,
    /// Header `reserved2`, `reserved3`.
    pub reserved: [u32; 2],
    /// The sections, in directory (and file) order.
    pub sections: Vec<Section>,
}

/// Why the writer could not produce a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// The generated writer refused the spec (a size or offset its field cannot hold).
    Write(npuschema_core::WriteError),
    /// The bytes written do not validate (the spec breaks a format rule).
    Invalid(Error),
    /// The input is not a version 2 file.
    NotV2,
    /// The file has no DYNAIO region, or no such entry.
    NoSuchEntry(usize),
    /// The new bytes are not the entry's size (the edit is in place).
    SizeMismatch {
        /// The entry's size.
        entry: u64,
        /// The new bytes' length.
        given: u64,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Write(e) => write!(f, "{e}"),
            WriteError::Invalid(e) => write!(f, "writer output does not validate: {e}"),
            WriteError::NotV2 => f.write_str("not-v2: the writer edits version 2 files only"),
            WriteError::NoSuchEntry(k) => write!(f, "no-such-entry: no DYNAIO entry {k}"),
            WriteError::SizeMismatch { entry, given } => {
                write!(
                    f,
                    "size-mismatch: entry holds {entry} bytes, {given} given (edits are in place)"
                )
            }
        }
    }
}

impl std::error::Error for WriteError {}

fn put_u32(out: &mut [u8], at: usize, v: u32) {
    if let Some(d) = out.get_mut(at..).and_then(|t| t.first_chunk_mut::<4>()) {
        *d = v.to_le_bytes();
    }
}

fn get_u32(b: &[u8], at: u64) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    b.get(at..)?
        .first_chunk::<4>()
        .map(|w| u32::from_le_bytes(*w))
}

/// Lay the file out, compute every checksum, and validate the result.
///
/// # Errors
/// A size that does not fit, or a spec that breaks a format rule (the validator's error).
pub fn build_v2(spec: &V2Spec) -> Result<Vec<u8>, WriteError> {
    let out = assemble(spec)?;
    match Vpmn::validate(&out) {
        Ok(Vpmn::V2(_)) => Ok(out),
        Ok(Vpmn::V1(_)) => Err(WriteError::NotV2),
        Err(e) => Err(WriteError::Invalid(e)),
    }
}

/// The spec of a validated version 2 file: writing it back reproduces the file when its
/// payloads follow the directory in order at their alignments (as producers write them).
///
/// # Errors
/// [`WriteError::NotV2`] for anything but a valid version 2 file.
pub fn spec_of(bytes: &[u8]) -> Result<V2Spec, WriteError> {
    let Ok(Vpmn::V2(v)) = Vpmn::validate(bytes) else {
        return Err(WriteError::NotV2);
    };
    let h = v.header();
    let sections = v
        .sections()
        .map(|s| Section {
            sd_type: s.sd_type().raw(),
            alignment: s.sd_alignsize(),
            entry_size: s.sd_entsize(),
            load_address: s.load_address(),
            reserved: [s.reserved1(), s.reserved2()],
            payload: s.payload().unwrap_or_default().to_vec(),
        })
        .collect();
    Ok(V2Spec {
        target: h.target(),
        class_word: h.class_word().bits(),
        reserved: [h.reserved2(), h.reserved3()],
        sections,
    })
}

/// A directory record read defensively: `(type, offset, size)`.
fn raw_sections(b: &[u8]) -> Vec<(u32, u64, u64)> {
    let Some(sh) = get_u32(b, 0x18) else {
        return Vec::new();
    };
    let (Some(dir), Some(count)) = (get_u32(b, u64::from(sh)), get_u32(b, u64::from(sh) + 8))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for i in 0..u64::from(count) {
        let r = u64::from(dir) + i * SectionHeader::SIZE as u64;
        let w = |k: u64| get_u32(b, r + 4 * k);
        let (Some(t), Some(ol), Some(oh), Some(sl), Some(shi)) = (w(0), w(1), w(2), w(3), w(4))
        else {
            break;
        };
        out.push((
            t,
            u64::from(ol) | u64::from(oh) << 32,
            u64::from(sl) | u64::from(shi) << 32,
        ));
    }
    out
}

/// The directory of a file as `(type, offset, size)`, read defensively.
#[must_use]
pub fn directory(b: &[u8]) -> Vec<(u32, u64, u64)> {
    raw_sections(b)
}

/// The controlled A/B edit: decode the file, replace the bytes of DYNAIO slot `entry` (same
/// length), re-write it with the generated writer (every checksum recomputed) and validate.
///
/// # Errors
/// Not a valid version 2 file, no such slot, a length change, or an invalid result.
pub fn edit_dynaio_entry(file: &[u8], entry: usize, bytes: &[u8]) -> Result<Vec<u8>, WriteError> {
    let Ok(Vpmn::V2(v)) = Vpmn::validate(file) else {
        return Err(WriteError::NotV2);
    };
    let region = v
        .sections()
        .position(|s| s.sd_type().raw() == DYNAIO)
        .ok_or(WriteError::NoSuchEntry(entry))?;
    let slot = v
        .dynaio_table()
        .nth(entry)
        .ok_or(WriteError::NoSuchEntry(entry))?;
    let size = u64::from(slot.size());
    if size != bytes.len() as u64 {
        return Err(WriteError::SizeMismatch {
            entry: size,
            given: bytes.len() as u64,
        });
    }
    let mut spec = spec_of(file)?;
    let at = usize::try_from(slot.offset()).map_err(|_| WriteError::NoSuchEntry(entry))?;
    spec.sections
        .get_mut(region)
        .and_then(|s| s.payload.get_mut(at..at.checked_add(bytes.len())?))
        .ok_or(WriteError::NoSuchEntry(entry))?
        .copy_from_slice(bytes);
    build_v2(&spec)
}

fn gen_sections(spec: &V2Spec) -> Vec<vpmn::SectionHeaderSpec<'_>> {
    spec.sections
        .iter()
        .map(|s| vpmn::SectionHeaderSpec {
            // A type the closed enum does not name is written as NONE and patched after.
            sd_type: vpmn::SectionType::from_raw(s.sd_type).unwrap_or(vpmn::SectionType::None),
            sd_addr_low: s.load_address as u32,
            sd_addr_high: (s.load_address >> 32) as u32,
            sd_alignsize: s.alignment,
            sd_entsize: s.entry_size,
            reserved1: s.reserved[0],
            reserved2: s.reserved[1],
            payload: &s.payload,
        })
        .collect()
}

/// Lay the file out with the generated writer, every derived field and checksum filled in,
/// without validating. A section type the closed enum does not name (a file with that
/// fault) is written as NONE, then its raw word is stored and the file resealed.
///
/// # Errors
/// A size that does not fit its field.
pub fn assemble(spec: &V2Spec) -> Result<Vec<u8>, WriteError> {
    let sections = gen_sections(spec);
    let g = vpmn::VpmnV2Spec {
        target: spec.target,
        class_word: vpmn::ClassWord::from_bits(spec.class_word),
        reserved2: spec.reserved[0],
        reserved3: spec.reserved[1],
        sections: &sections,
    };
    let n = g.encoded_len().map_err(WriteError::Write)?;
    let mut out = vec![0u8; n];
    g.write_into(&mut out).map_err(WriteError::Write)?;
    // Types the closed enum does not name (files with that fault): the raw word, resealed.
    if spec
        .sections
        .iter()
        .any(|s| vpmn::SectionType::from_raw(s.sd_type).is_none())
    {
        let dir = get_u32(&out, u64::from(get_u32(&out, 0x18).unwrap_or(0))).unwrap_or(0);
        for (i, s) in spec.sections.iter().enumerate() {
            put_u32(&mut out, dir as usize + i * SectionHeader::SIZE, s.sd_type);
        }
        reseal(&mut out);
    }
    Ok(out)
}

/// Recompute, in place, every CHECKSUM record value (CRC-32 of the payload of the one
/// section of the type it names; records naming no single section are left alone) and then
/// the header's `crc_sum`: the generated writer's `seal` over the directory as [`directory`]
/// reads it. Any bytes are accepted: what lies outside them is skipped.
pub fn reseal(b: &mut [u8]) {
    let dir = raw_sections(b);
    let _ = vpmn::VpmnV2Spec::seal(b, dir.iter().map(|&(t, o, s)| (u64::from(t), o, s)));
}

/// The field map's file checksum over `sections` (in directory order): CRC-32 over each
/// payload, gaps excluded, CHECKSUM payloads with their value words taken as zero. The
/// generated writer's `file_crc`: `npuschema_core::crc32_payloads`, as the validator's
/// check (which also checks each CHECKSUM-covered section's own CRC in the same pass).
#[must_use]
pub fn file_crc(b: &[u8], sections: &[(u32, u64, u64)]) -> u32 {
    vpmn::VpmnV2Spec::file_crc(b, sections.iter().map(|&(t, o, s)| (u64::from(t), o, s)))
}
