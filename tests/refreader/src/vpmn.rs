//! VPMN (NBG) version 2 reference reader, written with `binrw` from
//! `spec/nbg-field-map.txt` and `spec/nbg-notes.md` and nothing else.
//!
//! [`read`] reads the 48-byte format header, the one 12-byte sub-header, the 44-byte section
//! directory, the 112-byte I/O records, the 220-byte NETWORK_INFO record, MEMORY_POOL,
//! VIP_SRAM, AXI_SRAM, the CHECKSUM records and the DYNAIO table, and checks the field map's
//! format rules (not its corpus invariants): bounds, entry sizes, dimension rules, the
//! metadata counts, the per-section CRC-32 records, the DYNAIO geometry and the header's
//! file checksum. All offset arithmetic is `u64`.

use binrw::io::Cursor;
use binrw::{BinRead, binread};

use super::RefError;

/// The only v2 version the field map defines.
pub const VERSION_V2: u32 = 0x0002_0000;
/// Size of the format header.
pub const FORMAT_HEADER_BYTES: u64 = 48;
/// Size of one sub-header.
pub const SUB_HEADER_BYTES: u32 = 12;
/// Size of one section-directory record.
pub const SECTION_HEADER_BYTES: u32 = 44;
/// Size of one I/O record.
pub const IO_RECORD_BYTES: u64 = 112;
/// Size of the NETWORK_INFO record.
pub const NETWORK_INFO_BYTES: u64 = 220;
/// Highest section type the public enum defines (CHECKSUM).
pub const MAX_SECTION_TYPE: u32 = 40;

/// Section type IDs used by the reader (public v2 enum).
pub mod section {
    /// NBG_SECTION_INPUT
    pub const INPUT: u32 = 1;
    /// NBG_SECTION_OUTPUT
    pub const OUTPUT: u32 = 2;
    /// NBG_SECTION_LAYER
    pub const LAYER: u32 = 3;
    /// NBG_SECTION_OPERATIONS
    pub const OPERATIONS: u32 = 4;
    /// NBG_SECTION_NN
    pub const NN: u32 = 7;
    /// NBG_SECTION_DYNAIO
    pub const DYNAIO: u32 = 20;
    /// NBG_SECTION_DYNAIO_TABLE
    pub const DYNAIO_TABLE: u32 = 26;
    /// NBG_SECTION_NETWORK_INFO
    pub const NETWORK_INFO: u32 = 35;
    /// NBG_SECTION_MEMORY_POOL
    pub const MEMORY_POOL: u32 = 37;
    /// NBG_SECTION_VIP_SRAM
    pub const VIP_SRAM: u32 = 38;
    /// NBG_SECTION_AXI_SRAM
    pub const AXI_SRAM: u32 = 39;
    /// NBG_SECTION_CHECKSUM
    pub const CHECKSUM: u32 = 40;
}

/// `nbg_format_header_t`, 48 bytes at offset 0.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatHeader {
    /// ASCII `VPMN`.
    pub magic: [u8; 4],
    /// NBG version.
    pub version: u32,
    /// Hardware target / CID.
    pub target: u32,
    /// File checksum (CRC-32 of section payloads, see [`file_crc`]).
    pub crc_sum: u32,
    /// Low half of the declared file size.
    pub total_size_low: u32,
    /// High half of the declared file size.
    pub total_size_high: u32,
    /// Offset of the sub-header.
    pub sub_header_offset: u32,
    /// Size of one sub-header.
    pub sub_header_size: u32,
    /// Number of sub-headers.
    pub sub_header_count: u32,
    /// Bit 0 `class`, bits 1-31 reserved.
    pub class_word: u32,
    /// Reserved.
    pub reserved2: u32,
    /// Reserved.
    pub reserved3: u32,
}

impl FormatHeader {
    /// The declared file size, both halves composed.
    #[must_use]
    pub fn total_size(&self) -> u64 {
        u64::from(self.total_size_low) | (u64::from(self.total_size_high) << 32)
    }
}

/// `nbg_sub_header_t`, 12 bytes.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubHeader {
    /// Offset of the section directory.
    pub sh_offset: u32,
    /// Size of one directory record.
    pub sh_size: u32,
    /// Number of directory records.
    pub sh_count: u32,
}

/// `nbg_section_header_t`, 44 bytes.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionHeader {
    /// Section type ID.
    pub sd_type: u32,
    /// Offset, low half.
    pub sd_offset_low: u32,
    /// Offset, high half.
    pub sd_offset_high: u32,
    /// Size, low half.
    pub sd_size_low: u32,
    /// Size, high half.
    pub sd_size_high: u32,
    /// Load address, low half.
    pub sd_addr_low: u32,
    /// Load address, high half.
    pub sd_addr_high: u32,
    /// Alignment of the payload.
    pub sd_alignsize: u32,
    /// Entry size.
    pub sd_entsize: u32,
    /// Reserved.
    pub reserved1: u32,
    /// Reserved.
    pub reserved2: u32,
}

impl SectionHeader {
    /// Payload offset.
    #[must_use]
    pub fn offset(&self) -> u64 {
        u64::from(self.sd_offset_low) | (u64::from(self.sd_offset_high) << 32)
    }
    /// Payload size.
    #[must_use]
    pub fn size(&self) -> u64 {
        u64::from(self.sd_size_low) | (u64::from(self.sd_size_high) << 32)
    }
}

/// `nbg_section_input_output_t`, 112 bytes.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRecord {
    /// Number of dimensions (1-6).
    pub dim_count: u32,
    /// Dimensions, fastest-varying first.
    pub dim_size: [u32; 6],
    /// Buffer format (FP32 0, FP16 1, ...).
    pub data_format: u32,
    /// Buffer type (TENSOR 0, ...).
    pub data_type: u32,
    /// Quantisation (NONE 0, DFP 1, AFFINE 2).
    pub quant_format: u32,
    /// Quantisation words (fixed_point_pos, or scale + zero point).
    pub quant_data: [u32; 2],
    /// NUL-padded name.
    pub name: [u8; 64],
}

impl IoRecord {
    /// The name up to its first NUL.
    #[must_use]
    pub fn name(&self) -> String {
        let end = self
            .name
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.name.len());
        String::from_utf8_lossy(self.name.get(..end).unwrap_or_default()).into_owned()
    }
    /// The selected dimensions.
    #[must_use]
    pub fn dims(&self) -> &[u32] {
        self.dim_size
            .get(..self.dim_count as usize)
            .unwrap_or_default()
    }
}

/// `nbg_section_network_info_t`, 220 bytes.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetworkInfo {
    /// NUL-padded network name.
    pub name: [u8; 64],
    /// Number of inputs.
    pub input_count: u32,
    /// Number of outputs.
    pub output_count: u32,
    /// Number of layers.
    pub layer_count: u32,
    /// Absolute operation count.
    pub abs_op_count: u32,
    /// Operation count (OPERATIONS records + 3 on the corpus).
    pub operation_count: u32,
    /// Core count.
    pub core_count: u32,
    /// Address width.
    pub address_width: u32,
    /// Attribute bit field.
    pub attribute: u32,
    /// Vendor-reserved words.
    pub vsi_reserved: [u32; 31],
}

/// One CHECKSUM record.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChecksumRecord {
    /// Section type the checksum covers.
    pub sd_type: u32,
    /// CRC-32 of that section's payload.
    pub value: u32,
}

/// One DYNAIO_TABLE record.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynIoEntry {
    /// Offset relative to the DYNAIO section.
    pub offset: u32,
    /// Payload size.
    pub size: u32,
}

/// A VPMN v2 file that passed every rule.
#[derive(Clone, Debug, PartialEq)]
pub struct VpmnV2 {
    /// Format header.
    pub header: FormatHeader,
    /// The one sub-header.
    pub sub_header: SubHeader,
    /// Section directory, in file order.
    pub sections: Vec<SectionHeader>,
    /// INPUT records.
    pub inputs: Vec<IoRecord>,
    /// OUTPUT records.
    pub outputs: Vec<IoRecord>,
    /// NETWORK_INFO, when present.
    pub network_info: Option<NetworkInfo>,
    /// MEMORY_POOL used size, when present.
    pub memory_pool_bytes: Option<u64>,
    /// VIP_SRAM used size, when present.
    pub vip_sram_bytes: Option<u32>,
    /// AXI_SRAM used size, when present.
    pub axi_sram_bytes: Option<u32>,
    /// CHECKSUM records.
    pub checksums: Vec<ChecksumRecord>,
    /// DYNAIO_TABLE records.
    pub dynio_table: Vec<DynIoEntry>,
    /// The file checksum computed by [`file_crc`] (equals `header.crc_sum`).
    pub computed_crc: u32,
}

impl VpmnV2 {
    /// The first section of type `ty`.
    #[must_use]
    pub fn section(&self, ty: u32) -> Option<&SectionHeader> {
        self.sections.iter().find(|s| s.sd_type == ty)
    }
    /// Number of records in the first section of type `ty` (size / entry size).
    #[must_use]
    pub fn records(&self, ty: u32) -> Option<u64> {
        let s = self.section(ty)?;
        s.size().checked_div(u64::from(s.sd_entsize))
    }
}

/// The record size of a section type that has a record layout (the public structs).
#[must_use]
pub fn record_size(sd_type: u32) -> Option<u64> {
    match sd_type {
        section::INPUT | section::OUTPUT => Some(IO_RECORD_BYTES),
        section::NETWORK_INFO => Some(NETWORK_INFO_BYTES),
        section::MEMORY_POOL | section::CHECKSUM | section::DYNAIO_TABLE => Some(8),
        section::VIP_SRAM | section::AXI_SRAM => Some(4),
        _ => None,
    }
}

fn fail(rule: &'static str, detail: String) -> RefError {
    RefError::Check { rule, detail }
}

fn read_at<T>(buf: &[u8], at: u64) -> Result<T, RefError>
where
    T: for<'a> BinRead<Args<'a> = ()>,
{
    let mut cur = Cursor::new(buf);
    cur.set_position(at);
    Ok(T::read_le(&mut cur)?)
}

fn read_table<T>(buf: &[u8], s: &SectionHeader, entry: u64) -> Result<Vec<T>, RefError>
where
    T: for<'a> BinRead<Args<'a> = ()>,
{
    let n = s.size() / entry;
    let mut cur = Cursor::new(buf);
    cur.set_position(s.offset());
    (0..n)
        .map(|_| T::read_le(&mut cur).map_err(RefError::from))
        .collect()
}

fn payload<'a>(buf: &'a [u8], s: &SectionHeader) -> &'a [u8] {
    let start = usize::try_from(s.offset()).unwrap_or(usize::MAX);
    let end = usize::try_from(s.offset() + s.size()).unwrap_or(usize::MAX);
    buf.get(start..end).unwrap_or_default()
}

/// The header's file checksum by the field map's rule: CRC-32 (zlib) over the section
/// payloads in directory order, alignment gaps excluded, the CHECKSUM section included with
/// its value words replaced by zero. `sections` must be in bounds.
#[must_use]
pub fn file_crc(buf: &[u8], sections: &[SectionHeader]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for s in sections {
        let p = payload(buf, s);
        if s.sd_type == section::CHECKSUM {
            for rec in p.chunks(8) {
                let (ty, value) = rec.split_at(rec.len().min(4));
                h.update(ty);
                h.update(&vec![0u8; value.len()]);
            }
        } else {
            h.update(p);
        }
    }
    h.finalize()
}

/// Read and check a VPMN v2 file.
///
/// # Errors
/// The first rule that fails (magic, version, sizes, bounds, records, checksums).
pub fn read(buf: &[u8]) -> Result<VpmnV2, RefError> {
    let len = buf.len() as u64;
    // The common envelope (magic, version, target: 12 bytes) decides the layout before the
    // v2 header's 48 bytes are required: a short file of another version is that version's.
    if len < 12 {
        return Err(fail("short", format!("{len} < 12")));
    }
    let (magic, version): ([u8; 4], u32) = read_at(buf, 0)?;
    if &magic != b"VPMN" {
        return Err(fail("magic", format!("{magic:02x?}")));
    }
    if version != VERSION_V2 {
        return Err(fail("version", format!("{version:#x}")));
    }
    if len < FORMAT_HEADER_BYTES {
        return Err(fail("short", format!("{len} < 48")));
    }
    let header: FormatHeader = read_at(buf, 0)?;
    if header.total_size() != len {
        return Err(fail(
            "total-size",
            format!("{} != {len}", header.total_size()),
        ));
    }
    if header.sub_header_count != 1 {
        return Err(fail(
            "sub-header-count",
            format!("{}", header.sub_header_count),
        ));
    }
    if header.sub_header_size != SUB_HEADER_BYTES {
        return Err(fail(
            "sub-header-size",
            format!("{}", header.sub_header_size),
        ));
    }
    let sh_end = u64::from(header.sub_header_offset) + u64::from(SUB_HEADER_BYTES);
    if sh_end > len {
        return Err(fail("sub-header-bounds", format!("{sh_end} > {len}")));
    }
    let sub_header: SubHeader = read_at(buf, u64::from(header.sub_header_offset))?;
    if sub_header.sh_size != SECTION_HEADER_BYTES {
        return Err(fail(
            "section-header-size",
            format!("{}", sub_header.sh_size),
        ));
    }
    let dir_end = u64::from(sub_header.sh_offset)
        + u64::from(sub_header.sh_count) * u64::from(SECTION_HEADER_BYTES);
    if dir_end > len {
        return Err(fail("directory-bounds", format!("{dir_end} > {len}")));
    }
    let mut cur = Cursor::new(buf);
    cur.set_position(u64::from(sub_header.sh_offset));
    let mut sections = Vec::with_capacity(sub_header.sh_count as usize);
    for _ in 0..sub_header.sh_count {
        sections.push(SectionHeader::read_le(&mut cur)?);
    }
    for (i, s) in sections.iter().enumerate() {
        if s.sd_type > MAX_SECTION_TYPE {
            return Err(fail(
                "section-type",
                format!("sections[{i}]: {}", s.sd_type),
            ));
        }
        // Offsets and sizes are 64-bit on the wire: add in u128 so nothing wraps.
        let end = u128::from(s.offset()) + u128::from(s.size());
        if end > u128::from(len) {
            return Err(fail(
                "section-bounds",
                format!("sections[{i}]: {} + {} > {len}", s.offset(), s.size()),
            ));
        }
        // A section with a record layout has entries of exactly that record's size (the
        // public structs are fixed-size); any other section a whole number of entries.
        if let Some(rs) = record_size(s.sd_type)
            && u64::from(s.sd_entsize) != rs
        {
            return Err(fail(
                "section-entsize",
                format!(
                    "sections[{i}]: entry size {} for a {rs}-byte record",
                    s.sd_entsize
                ),
            ));
        }
        if s.sd_entsize != 0 && s.size() % u64::from(s.sd_entsize) != 0 {
            return Err(fail(
                "section-entsize",
                format!("sections[{i}]: {} % {}", s.size(), s.sd_entsize),
            ));
        }
    }

    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let mut network_infos: Vec<NetworkInfo> = Vec::new();
    let mut memory_pool_bytes = None;
    let mut vip_sram_bytes = None;
    let mut axi_sram_bytes = None;
    let mut checksums = Vec::new();
    let mut dynio_table = Vec::new();
    for s in &sections {
        match s.sd_type {
            section::INPUT => inputs.extend(read_table::<IoRecord>(buf, s, IO_RECORD_BYTES)?),
            section::OUTPUT => outputs.extend(read_table::<IoRecord>(buf, s, IO_RECORD_BYTES)?),
            section::NETWORK_INFO => {
                network_infos.extend(read_table::<NetworkInfo>(buf, s, NETWORK_INFO_BYTES)?)
            }
            section::MEMORY_POOL => {
                if let Some(w) = read_table::<[u32; 2]>(buf, s, 8)?.first() {
                    memory_pool_bytes.get_or_insert(u64::from(w[0]) | (u64::from(w[1]) << 32));
                }
            }
            section::VIP_SRAM => {
                if let Some(&v) = read_table::<u32>(buf, s, 4)?.first() {
                    vip_sram_bytes.get_or_insert(v);
                }
            }
            section::AXI_SRAM => {
                if let Some(&v) = read_table::<u32>(buf, s, 4)?.first() {
                    axi_sram_bytes.get_or_insert(v);
                }
            }
            section::CHECKSUM => checksums.extend(read_table::<ChecksumRecord>(buf, s, 8)?),
            section::DYNAIO_TABLE => dynio_table.extend(read_table::<DynIoEntry>(buf, s, 8)?),
            _ => {}
        }
    }
    // I/O records: 1 to 6 dimensions, each selected one positive.
    for (which, recs) in [("inputs", &inputs), ("outputs", &outputs)] {
        for (j, r) in recs.iter().enumerate() {
            if !(1..=6).contains(&r.dim_count) {
                return Err(fail(
                    "io-dim-count",
                    format!("{which}[{j}]: {}", r.dim_count),
                ));
            }
            if r.dims().contains(&0) {
                return Err(fail("io-dim-zero", format!("{which}[{j}]: {:?}", r.dims())));
            }
        }
    }
    // NETWORK_INFO's counts equal the records actually present.
    for ni in &network_infos {
        if u64::from(ni.input_count) != inputs.len() as u64
            || u64::from(ni.output_count) != outputs.len() as u64
        {
            return Err(fail(
                "metadata-count",
                format!(
                    "network_info {}/{} vs records {}/{}",
                    ni.input_count,
                    ni.output_count,
                    inputs.len(),
                    outputs.len()
                ),
            ));
        }
    }

    // Each CHECKSUM record names exactly one section (all records checked for that first,
    // then that no two records name the same type), whose CRC-32 it must equal.
    for (j, c) in checksums.iter().enumerate() {
        let hits = sections.iter().filter(|s| s.sd_type == c.sd_type).count();
        if hits != 1 {
            return Err(fail(
                "checksum-target",
                format!(
                    "checksums[{j}]: type {} in {hits} sections, not exactly one",
                    c.sd_type
                ),
            ));
        }
    }
    for (j, c) in checksums.iter().enumerate() {
        if checksums.iter().filter(|o| o.sd_type == c.sd_type).count() != 1 {
            return Err(fail(
                "checksum-duplicate",
                format!("checksums[{j}]: type {}", c.sd_type),
            ));
        }
    }
    for c in &checksums {
        if let Some(target) = sections.iter().find(|s| s.sd_type == c.sd_type) {
            let crc = crc32fast::hash(payload(buf, target));
            if crc != c.value {
                return Err(fail(
                    "section-checksum",
                    format!("type {}: {crc:#x} != {:#x}", c.sd_type, c.value),
                ));
            }
        }
    }

    let computed_crc = file_crc(buf, &sections);
    if computed_crc != header.crc_sum {
        return Err(fail(
            "file-checksum",
            format!("{computed_crc:#x} != {:#x}", header.crc_sum),
        ));
    }

    check_dynio(buf, &sections, &dynio_table)?;

    let network_info = network_infos.first().copied();
    Ok(VpmnV2 {
        header,
        sub_header,
        sections,
        inputs,
        outputs,
        network_info,
        memory_pool_bytes,
        vip_sram_bytes,
        axi_sram_bytes,
        checksums,
        dynio_table,
        computed_crc,
    })
}

/// The field map's DYNAIO rules: both sections or neither; the data region a multiple of 64;
/// each entry a positive size at a 64-aligned offset, in bounds, in nondecreasing
/// non-overlapping order; every unmapped byte zero.
fn check_dynio(
    buf: &[u8],
    sections: &[SectionHeader],
    table: &[DynIoEntry],
) -> Result<(), RefError> {
    let data = sections.iter().find(|s| s.sd_type == section::DYNAIO);
    let has_table = sections.iter().any(|s| s.sd_type == section::DYNAIO_TABLE);
    let data = match (data, has_table) {
        (None, false) => return Ok(()),
        (Some(d), true) => d,
        _ => {
            return Err(fail(
                "dynio-pair",
                "DYNAIO and DYNAIO_TABLE must both be present".into(),
            ));
        }
    };
    if data.size() % 64 != 0 {
        return Err(fail("dynio-size", format!("{}", data.size())));
    }
    // The geometry of every entry first, then the padding between and after them.
    let mut cursor = 0u64;
    for (j, e) in table.iter().enumerate() {
        let (off, size) = (u64::from(e.offset), u64::from(e.size));
        if size == 0 || off % 64 != 0 || off < cursor || off + size > data.size() {
            return Err(fail(
                "dynio-entry",
                format!("[{j}] ({off}, {size}) after {cursor} in {}", data.size()),
            ));
        }
        cursor = off + size;
    }
    let bytes = payload(buf, data);
    let mut cursor = 0u64;
    for (j, e) in table.iter().enumerate() {
        let gap = bytes
            .get(cursor as usize..e.offset as usize)
            .unwrap_or_default();
        if gap.iter().any(|&b| b != 0) {
            return Err(fail("dynio-padding", format!("nonzero gap before [{j}]")));
        }
        cursor = u64::from(e.offset) + u64::from(e.size);
    }
    if bytes
        .get(cursor as usize..)
        .unwrap_or_default()
        .iter()
        .any(|&b| b != 0)
    {
        return Err(fail("dynio-padding", "nonzero trailing padding".into()));
    }
    Ok(())
}

/// Recompute the checksums of a (possibly edited) v2 file in place, the way a producer
/// would: every CHECKSUM record's value from its section's payload, then the header's
/// `crc_sum`. For mutation tests and fuzzing, so that edits reach the rules behind the
/// checksums. Returns `false` (leaving `buf` untouched past what was already fixed) when
/// the directory cannot be read or a referenced range is out of bounds.
pub fn reseal(buf: &mut [u8]) -> bool {
    let Ok(header) = read_at::<FormatHeader>(buf, 0) else {
        return false;
    };
    let Ok(sub) = read_at::<SubHeader>(buf, u64::from(header.sub_header_offset)) else {
        return false;
    };
    let mut cur = Cursor::new(&*buf);
    cur.set_position(u64::from(sub.sh_offset));
    let mut sections = Vec::new();
    for _ in 0..sub.sh_count.min(4096) {
        let Ok(s) = SectionHeader::read_le(&mut cur) else {
            return false;
        };
        let end = u128::from(s.offset()) + u128::from(s.size());
        if end > buf.len() as u128 {
            return false;
        }
        sections.push(s);
    }
    for s in sections.iter().filter(|s| s.sd_type == section::CHECKSUM) {
        for rec in 0..s.size() / 8 {
            let at = (s.offset() + rec * 8) as usize;
            let Some(ty) = buf
                .get(at..)
                .and_then(|b| b.first_chunk::<4>())
                .map(|w| u32::from_le_bytes(*w))
            else {
                return false;
            };
            if let Some(target) = sections.iter().find(|t| t.sd_type == ty) {
                let crc = crc32fast::hash(payload(buf, target));
                if let Some(dst) = buf.get_mut(at + 4..at + 8) {
                    dst.copy_from_slice(&crc.to_le_bytes());
                }
            }
        }
    }
    let crc = file_crc(buf, &sections);
    match buf.get_mut(12..16) {
        Some(dst) => {
            dst.copy_from_slice(&crc.to_le_bytes());
            true
        }
        None => false,
    }
}
