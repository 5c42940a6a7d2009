//! VPMN (NBG) version 1 reference reader (every version `0x0001xxxx`), written with `binrw`
//! from `spec/nbg-notes.md`, sections "v1 (versions 0x0001xxxx)" and "Enums shared by v1
//! and v2", and nothing else.
//!
//! The layout (what sits where, from which version) is the notes' table: the 92-byte
//! prefix, the 256-byte feature database from 0x00010003, the memory pool, AXI SRAM, the
//! VIP SRAM pair from 0x00010008, then the `{offset, size}` entries (12, 15 from 0x0001000C,
//! 16 from 0x0001000E), and the record sizes by version (I/O 44 / 108 / 116 bytes, layer
//! 72 / 76, operation 24 / 28 / 32).
//!
//! The notes describe a layout, not a rejection policy: their only public reader (TIM-VX)
//! "checks only magic and a version upper bound". What [`read`] rejects beyond the layout
//! itself is therefore a set of decisions this reader shares with the schema
//! (`schema/vpmn.yaml`, `v1:`), each marked "decision shared with the schema, not from the
//! notes" where it is made. The rules, in the order [`read`] applies them (the order is
//! itself such a shared decision, so that a file breaking two rules is reported by the same
//! one on both sides):
//!
//! | rule | what fails |
//! |---|---|
//! | `short` | fewer than 12 bytes (the common envelope), or fewer than the 92-byte prefix |
//! | `magic` | the first four bytes are not `VPMN` |
//! | `version` | `version >> 16 != 1` |
//! | `fixed-short` | the file ends inside the version's fixed part (entries included) |
//! | `entry-bounds` | an entry's `offset + size` is past the end of the file |
//! | `io-table-size` | the input or output table is not a whole number of the version's I/O records |
//! | `io-dim-count` | a decoded I/O record's `dim_count` is not 1..=6 |
//! | `io-dim-zero` | one of a decoded I/O record's first `dim_count` dimensions is 0 |
//! | `io-count` | `input_count` / `output_count` differs from the records in its table |
//!
//! All offset arithmetic is `u64` (the operands are `u32`), reads go through `binrw` on a
//! bounds-checked cursor and slices through `get`: no input makes [`read`] panic.

use binrw::io::Cursor;
use binrw::{BinRead, binread};

use super::RefError;

/// `version >> 16` of every v1 file.
pub const FAMILY: u32 = 1;
/// The prefix every v1 version starts with: magic, version, hw_target (12), network_name
/// (64), four counts (16).
pub const PREFIX_BYTES: u64 = 92;
/// The feature database (from [`since::FEATURE_DATABASE`]).
pub const FEATURE_DATABASE_BYTES: u64 = 256;
/// The memory pool `{size, alignment, base}`.
pub const MEMORY_POOL_BYTES: u64 = 12;
/// One SRAM `{base, size}` pair (AXI always, VIP from [`since::VIP_SRAM`]).
pub const SRAM_BYTES: u64 = 8;
/// One `{offset, size}` entry.
pub const ENTRY_BYTES: u64 = 8;
/// The file offset of `nbg_crc_sum` (from [`since::NBG_CRC_SUM`]): inside the feature
/// database, 16 bytes after its start.
pub const NBG_CRC_SUM_AT: u64 = 108;
/// I/O record from [`since::IO_116`]: `dim_count`, `dims[6]`, three enums, three
/// quantisation words, `name[64]`.
pub const IO_RECORD_BYTES: u64 = 116;
/// I/O record [`since::IO_108`]..[`since::IO_116`]: four dims and a name.
pub const IO_NAMED_BYTES: u64 = 108;
/// I/O record before [`since::IO_108`]: four dims, no name.
pub const IO_OLD_BYTES: u64 = 44;
/// The most dimensions an I/O record holds.
pub const MAX_DIMS: u32 = 6;

/// The versions from which the notes' layout changes.
pub mod since {
    /// The 256-byte feature database appears.
    pub const FEATURE_DATABASE: u32 = 0x0001_0003;
    /// I/O records grow from 44 to 108 bytes (a name is added).
    pub const IO_108: u32 = 0x0001_0004;
    /// The VIP SRAM pair appears; layer records grow from 72 to 76 bytes.
    pub const VIP_SRAM: u32 = 0x0001_0008;
    /// I/O records grow to 116 bytes (`dim_count`, six dims, three quantisation words).
    pub const IO_116: u32 = 0x0001_000B;
    /// Three more entries: hw_init_op, ICD table, ICD.
    pub const ICD_ENTRIES: u32 = 0x0001_000C;
    /// One more entry: ppu_param.
    pub const PPU_PARAM_ENTRY: u32 = 0x0001_000E;
    /// Operation records are 28 bytes from here (24 up to 0x0001000F).
    pub const OPERATION_28: u32 = 0x0001_0011;
    /// `nbg_crc_sum` sits at file offset 108.
    pub const NBG_CRC_SUM: u32 = 0x0001_0016;
    /// Operation records are 32 bytes from here.
    pub const OPERATION_32: u32 = 0x0001_0017;
}

/// The notes' names of the entries, in file order (the first [`entry_count`] of them are
/// present in a given version).
pub const ENTRY_NAMES: [&str; 16] = [
    "input",
    "output",
    "layer",
    "operation",
    "lcd_table",
    "lcd",
    "nn_op",
    "tp_op",
    "sh_op",
    "patch",
    "layer_param",
    "sw_op",
    "hw_init_op",
    "icd_table",
    "icd",
    "ppu_param",
];

/// Indices into [`V1File::entries`].
pub mod entry {
    /// The input I/O table.
    pub const INPUT: usize = 0;
    /// The output I/O table.
    pub const OUTPUT: usize = 1;
    /// The layer table.
    pub const LAYER: usize = 2;
    /// The operation table.
    pub const OPERATION: usize = 3;
    /// The NN operation payload.
    pub const NN_OP: usize = 6;
}

/// Number of `{offset, size}` entries the notes map for `version`: 12, +3 from
/// 0x0001000C, +1 from 0x0001000E.
///
/// Later versions have further entries that no public reader maps to file positions (the
/// notes' "further entries | ? |" row): they are neither read nor required to be in the
/// file. Decision shared with the schema, not from the notes: a version past 0x0001000E is
/// read with the 16 known entries and nothing else (the notes only say the further ones are
/// unmapped).
#[must_use]
pub fn entry_count(version: u32) -> usize {
    12 + if version >= since::ICD_ENTRIES { 3 } else { 0 }
        + if version >= since::PPU_PARAM_ENTRY {
            1
        } else {
            0
        }
}

/// Bytes of the fixed part after the prefix for `version`, entries included: feature
/// database, memory pool, AXI SRAM, VIP SRAM, entries (the notes' table).
#[must_use]
pub fn fixed_part_bytes(version: u32) -> u64 {
    let features = if version >= since::FEATURE_DATABASE {
        FEATURE_DATABASE_BYTES
    } else {
        0
    };
    let vip = if version >= since::VIP_SRAM {
        SRAM_BYTES
    } else {
        0
    };
    features + MEMORY_POOL_BYTES + SRAM_BYTES + vip + ENTRY_BYTES * entry_count(version) as u64
}

/// File offset where the known fixed part ends (prefix + [`fixed_part_bytes`]): 472 for
/// 0x00010009, as the notes observed. Later versions' files start their payloads further on
/// (512, 520, 592, 920 observed), past entries no public reader maps.
#[must_use]
pub fn fixed_end(version: u32) -> u64 {
    PREFIX_BYTES + fixed_part_bytes(version)
}

/// Size of one I/O record in `version`: 44 before 0x00010004, 108 up to 0x0001000A, 116
/// from 0x0001000B.
#[must_use]
pub fn io_record_bytes(version: u32) -> u64 {
    if version < since::IO_108 {
        IO_OLD_BYTES
    } else if version < since::IO_116 {
        IO_NAMED_BYTES
    } else {
        IO_RECORD_BYTES
    }
}

/// Size of one layer record in `version`: 72 before 0x00010008, 76 from it.
#[must_use]
pub fn layer_record_bytes(version: u32) -> u64 {
    if version < since::VIP_SRAM { 72 } else { 76 }
}

/// Size of one operation record in `version`: 24 up to 0x0001000F, 28 from 0x00010011, 32
/// from 0x00010017. `None` for 0x00010010, which the notes leave out.
#[must_use]
pub fn operation_record_bytes(version: u32) -> Option<u64> {
    match version {
        v if v <= 0x0001_000F => Some(24),
        0x0001_0010 => None,
        v if v < since::OPERATION_32 => Some(28),
        _ => Some(32),
    }
}

/// The prefix: magic, version, hw_target, network_name and the four counts, 92 bytes at
/// offset 0 in every v1 version.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix {
    /// ASCII `VPMN`.
    pub magic: [u8; 4],
    /// `0x0001xxxx`.
    pub version: u32,
    /// Hardware target.
    pub hw_target: u32,
    /// NUL-padded network name.
    pub network_name: [u8; 64],
    /// Number of layers.
    pub layer_count: u32,
    /// Number of operations.
    pub operation_count: u32,
    /// Number of inputs.
    pub input_count: u32,
    /// Number of outputs.
    pub output_count: u32,
}

impl Prefix {
    /// The network name up to its first NUL (all 64 bytes when there is none).
    #[must_use]
    pub fn name_bytes(&self) -> &[u8] {
        until_nul(&self.network_name)
    }
}

/// The 256-byte feature database (from 0x00010003): word 0's bits, `num_pixel_pipes`,
/// `core_count`, and 247 bytes the notes do not map, except `nbg_crc_sum` at file offset
/// 108 from 0x00010016 (see [`V1File::nbg_crc_sum`]).
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureDatabase {
    /// Word 0: [0] hi_reorder_fix, [1] ocb_counter, [3:2] nn_command_size,
    /// [4] change_ppu_param.
    pub word0: u32,
    /// Number of pixel pipes.
    pub num_pixel_pipes: u32,
    /// Core count.
    pub core_count: u8,
    /// The rest of the database, file offsets 101..348.
    pub rest: [u8; 247],
}

impl FeatureDatabase {
    /// Word 0 bit 0.
    #[must_use]
    pub fn hi_reorder_fix(&self) -> u32 {
        self.word0 & 1
    }
    /// Word 0 bit 1.
    #[must_use]
    pub fn ocb_counter(&self) -> u32 {
        (self.word0 >> 1) & 1
    }
    /// Word 0 bits 3:2.
    #[must_use]
    pub fn nn_command_size(&self) -> u32 {
        (self.word0 >> 2) & 3
    }
    /// Word 0 bit 4.
    #[must_use]
    pub fn change_ppu_param(&self) -> u32 {
        (self.word0 >> 4) & 1
    }
    /// The little-endian word at `file_offset` (inside the database, 92..=344), whatever
    /// the version calls it.
    #[must_use]
    pub fn word_at(&self, file_offset: u64) -> Option<u32> {
        let start = usize::try_from(file_offset.checked_sub(PREFIX_BYTES + 9)?).ok()?;
        let w = self.rest.get(start..)?.first_chunk::<4>()?;
        Some(u32::from_le_bytes(*w))
    }
}

/// The memory pool.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryPool {
    /// Pool size.
    pub size: u32,
    /// Pool alignment.
    pub alignment: u32,
    /// Pool base.
    pub base: u32,
}

/// An SRAM `{base, size}` pair.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sram {
    /// Base address.
    pub base: u32,
    /// Size.
    pub size: u32,
}

/// One `{offset, size}` entry locating a table or payload.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// File offset.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

impl Entry {
    /// The file offset one past the located bytes (cannot wrap: `u64` of two `u32`).
    #[must_use]
    pub fn end(&self) -> u64 {
        u64::from(self.offset) + u64::from(self.size)
    }
    /// The located bytes of `buf`, `None` when they are not all inside it.
    #[must_use]
    pub fn bytes<'a>(&self, buf: &'a [u8]) -> Option<&'a [u8]> {
        let start = usize::try_from(self.offset).ok()?;
        let end = usize::try_from(self.end()).ok()?;
        buf.get(start..end)
    }
}

/// The version-gated fixed part after the prefix, at file offset 92, in the notes' order.
/// Read with the version as its argument.
#[binread]
#[br(little, import(version: u32))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedPart {
    /// The feature database, from 0x00010003.
    #[br(if(version >= since::FEATURE_DATABASE))]
    pub features: Option<FeatureDatabase>,
    /// The memory pool.
    pub memory_pool: MemoryPool,
    /// AXI SRAM.
    pub axi_sram: Sram,
    /// VIP SRAM, from 0x00010008.
    #[br(if(version >= since::VIP_SRAM))]
    pub vip_sram: Option<Sram>,
    /// The [`entry_count`] entries, names in [`ENTRY_NAMES`].
    #[br(count = entry_count(version))]
    pub entries: Vec<Entry>,
}

/// The 116-byte I/O record (from 0x0001000B).
///
/// Equality is bitwise (`tf_scale` compared by its bits), so a record holding a NaN scale
/// equals itself: the reader is an oracle and `==` must mean "read the same bytes" (the
/// `vpmn_refreader` fuzz target's determinism check first met a NaN scale).
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug)]
pub struct IoRecord {
    /// Number of dimensions.
    pub dim_count: u32,
    /// Dimensions (fastest-varying first, as in v2).
    pub dim_size: [u32; 6],
    /// Buffer format ([`buffer_format`] names it).
    pub data_format: u32,
    /// Buffer type ([`buffer_type`] names it).
    pub data_type: u32,
    /// Quantisation ([`quant_format`] names it).
    pub quant_format: u32,
    /// Dynamic fixed point position.
    pub fixed_pos: i32,
    /// Affine scale.
    pub tf_scale: f32,
    /// Affine zero point.
    pub tf_zero_point: i32,
    /// NUL-padded tensor name.
    pub name: [u8; 64],
}

impl PartialEq for IoRecord {
    fn eq(&self, o: &Self) -> bool {
        (
            self.dim_count,
            self.dim_size,
            self.data_format,
            self.data_type,
            self.quant_format,
            self.fixed_pos,
            self.tf_scale.to_bits(),
            self.tf_zero_point,
            self.name,
        ) == (
            o.dim_count,
            o.dim_size,
            o.data_format,
            o.data_type,
            o.quant_format,
            o.fixed_pos,
            o.tf_scale.to_bits(),
            o.tf_zero_point,
            o.name,
        )
    }
}

impl IoRecord {
    /// The name up to its first NUL (all 64 bytes when there is none).
    #[must_use]
    pub fn name_bytes(&self) -> &[u8] {
        until_nul(&self.name)
    }
    /// The first `dim_count` dimensions (all six when `dim_count` is larger).
    #[must_use]
    pub fn dims(&self) -> &[u32] {
        let n = usize::try_from(self.dim_count).unwrap_or(usize::MAX).min(6);
        self.dim_size.get(..n).unwrap_or_default()
    }
}

/// The notes' buffer-format name for a raw value (`None` for 15 and above 16).
#[must_use]
pub fn buffer_format(raw: u32) -> Option<&'static str> {
    const NAMES: [&str; 17] = [
        "FP32", "FP16", "UINT8", "INT8", "UINT16", "INT16", "CHAR", "BFP16", "INT32", "UINT32",
        "INT64", "UINT64", "FP64", "INT4", "UINT4", "", "BOOL8",
    ];
    NAMES
        .get(usize::try_from(raw).ok()?)
        .copied()
        .filter(|n| !n.is_empty())
}

/// The notes' buffer-type name for a raw value.
#[must_use]
pub fn buffer_type(raw: u32) -> Option<&'static str> {
    ["TENSOR", "IMAGE", "ARRAY", "SCALAR"]
        .get(usize::try_from(raw).ok()?)
        .copied()
}

/// The notes' quantisation name for a raw value.
#[must_use]
pub fn quant_format(raw: u32) -> Option<&'static str> {
    ["NONE", "DYNAMIC_FIXED_POINT", "AFFINE_ASYMMETRIC"]
        .get(usize::try_from(raw).ok()?)
        .copied()
}

/// A v1 file that passed every rule.
#[derive(Clone, Debug, PartialEq)]
pub struct V1File {
    /// The prefix.
    pub prefix: Prefix,
    /// The fixed part and its entries.
    pub fixed: FixedPart,
    /// The input records (decoded from 0x0001000B; empty before).
    pub inputs: Vec<IoRecord>,
    /// The output records (decoded from 0x0001000B; empty before).
    pub outputs: Vec<IoRecord>,
}

impl V1File {
    /// The version word.
    #[must_use]
    pub fn version(&self) -> u32 {
        self.prefix.version
    }
    /// The entries, names in [`ENTRY_NAMES`].
    #[must_use]
    pub fn entries(&self) -> &[Entry] {
        &self.fixed.entries
    }
    /// The `nbg_crc_sum` word at file offset 108, which the notes place there from
    /// 0x00010016 on (`None` before, where that word is an unmapped byte range of the
    /// feature database). Recorded, not checked: its rule differs between producers.
    #[must_use]
    pub fn nbg_crc_sum(&self) -> Option<u32> {
        if self.version() < since::NBG_CRC_SUM {
            return None;
        }
        self.fixed.features.as_ref()?.word_at(NBG_CRC_SUM_AT)
    }
    /// Records of the layer table by the version's layer record size (`None` when the
    /// table is not a whole number of records). Not checked against `layer_count`.
    #[must_use]
    pub fn layer_records(&self) -> Option<u64> {
        whole_records(
            self.entries().get(entry::LAYER)?,
            layer_record_bytes(self.version()),
        )
    }
    /// Records of the operation table by the version's operation record size (`None` when
    /// the size is unknown or the table is not a whole number of records). Not checked
    /// against `operation_count`.
    #[must_use]
    pub fn operation_records(&self) -> Option<u64> {
        whole_records(
            self.entries().get(entry::OPERATION)?,
            operation_record_bytes(self.version())?,
        )
    }
}

fn whole_records(e: &Entry, record: u64) -> Option<u64> {
    let size = u64::from(e.size);
    (size % record == 0).then_some(size / record)
}

fn until_nul(b: &[u8]) -> &[u8] {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    b.get(..end).unwrap_or_default()
}

fn fail(rule: &'static str, detail: String) -> RefError {
    RefError::Check { rule, detail }
}

/// Read and check a VPMN v1 file.
///
/// # Errors
/// The first rule (see the [module documentation](self)) that fails, or `"read"` should
/// `binrw` fail on a range already checked to be inside the buffer (a reader bug).
pub fn read(buf: &[u8]) -> Result<V1File, RefError> {
    let len = buf.len() as u64;
    // The common 12-byte envelope (magic, version, hw_target) decides the layout before
    // the v1 prefix's 92 bytes are required.
    if len < 12 {
        return Err(fail("short", format!("{len} < 12")));
    }
    let mut cur = Cursor::new(buf);
    let (magic, version) = <([u8; 4], u32)>::read_le(&mut cur)?;
    if &magic != b"VPMN" {
        return Err(fail("magic", format!("{magic:02x?}")));
    }
    if version >> 16 != FAMILY {
        return Err(fail("version", format!("{version:#x}")));
    }
    if len < PREFIX_BYTES {
        return Err(fail("short", format!("{len} < {PREFIX_BYTES}")));
    }
    cur.set_position(0);
    let prefix = Prefix::read_le(&mut cur)?;

    // Decision shared with the schema, not from the notes: a file too short for its
    // version's fixed part and entries is refused as a whole (the notes' TIM-VX reads past
    // the end), before any entry is looked at.
    let end = fixed_end(version);
    if end > len {
        return Err(fail(
            "fixed-short",
            format!("version {version:#x}: fixed part ends at {end} > {len}"),
        ));
    }
    let fixed = FixedPart::read_le_args(&mut cur, (version,))?;

    // Decision shared with the schema, not from the notes: every entry, used or not,
    // locates bytes inside the file (`offset + size <= len`, so an empty entry may sit at
    // the very end but not past it).
    for (i, e) in fixed.entries.iter().enumerate() {
        if e.end() > len {
            let name = ENTRY_NAMES.get(i).copied().unwrap_or("?");
            return Err(fail(
                "entry-bounds",
                format!("entries[{i}] ({name}): {} + {} > {len}", e.offset, e.size),
            ));
        }
    }

    // The notes give I/O record sizes as "entry size = table size / count". Decision
    // shared with the schema, not from the notes: the input and output tables must be a
    // whole number of the version's records (input first, then output).
    let io_bytes = io_record_bytes(version);
    let io_entries = [
        ("input", fixed.entries.get(entry::INPUT).copied()),
        ("output", fixed.entries.get(entry::OUTPUT).copied()),
    ];
    for (which, e) in io_entries {
        let size = e.map_or(0, |e| u64::from(e.size));
        if size % io_bytes != 0 {
            return Err(fail(
                "io-table-size",
                format!("{which} table: {size} % {io_bytes} != 0 (version {version:#x})"),
            ));
        }
    }

    // Decision shared with the schema, not from the notes: only the 116-byte records
    // (0x0001000B on) are decoded; the 44- and 108-byte ones, whose field layout the notes
    // do not give, are only sized.
    let (inputs, outputs) = if version >= since::IO_116 {
        (
            read_records(buf, io_entries[0].1)?,
            read_records(buf, io_entries[1].1)?,
        )
    } else {
        (Vec::new(), Vec::new())
    };

    // Decision shared with the schema, not from the notes (the v2 field map's rule, which
    // the notes' "dims[6]" bounds): a decoded record has 1 to 6 dimensions, each selected
    // one non-zero. Inputs first, record by record, then outputs.
    for (which, recs) in [("inputs", &inputs), ("outputs", &outputs)] {
        for (j, r) in recs.iter().enumerate() {
            if !(1..=MAX_DIMS).contains(&r.dim_count) {
                return Err(fail(
                    "io-dim-count",
                    format!("{which}[{j}]: dim_count {}", r.dim_count),
                ));
            }
            if r.dims().contains(&0) {
                return Err(fail(
                    "io-dim-zero",
                    format!("{which}[{j}]: dims {:?}", r.dims()),
                ));
            }
        }
    }

    // Decision shared with the schema, not from the notes: the prefix's input and output
    // counts equal the records their tables hold at the version's record size (so also for
    // the older, undecoded layouts). layer_count and operation_count are not checked.
    for (which, count, e) in [
        ("input_count", prefix.input_count, io_entries[0].1),
        ("output_count", prefix.output_count, io_entries[1].1),
    ] {
        let records = e.map_or(0, |e| u64::from(e.size) / io_bytes);
        if u64::from(count) != records {
            return Err(fail(
                "io-count",
                format!("{which} {count} != {records} records"),
            ));
        }
    }

    Ok(V1File {
        prefix,
        fixed,
        inputs,
        outputs,
    })
}

fn read_records(buf: &[u8], e: Option<Entry>) -> Result<Vec<IoRecord>, RefError> {
    let Some(e) = e else {
        return Ok(Vec::new());
    };
    let n = u64::from(e.size) / IO_RECORD_BYTES;
    let mut cur = Cursor::new(buf);
    cur.set_position(u64::from(e.offset));
    (0..n)
        .map(|_| IoRecord::read_le(&mut cur).map_err(RefError::from))
        .collect()
}

/// One I/O record for [`build`].
#[derive(Clone, Copy, Debug)]
pub struct BuildIo<'a> {
    /// Dimensions (1 to 6 for a valid file; more are cut to six, `dim_count` keeps the
    /// length).
    pub dims: &'a [u32],
    /// Buffer format.
    pub data_format: u32,
    /// Buffer type.
    pub data_type: u32,
    /// Quantisation.
    pub quant_format: u32,
    /// Dynamic fixed point position.
    pub fixed_pos: i32,
    /// Affine scale.
    pub tf_scale: f32,
    /// Affine zero point.
    pub tf_zero_point: i32,
    /// Name (cut to 64 bytes).
    pub name: &'a str,
}

/// What [`build`] lays out.
#[derive(Clone, Copy, Debug)]
pub struct Build<'a> {
    /// Version word (a `0x0001xxxx`).
    pub version: u32,
    /// Hardware target.
    pub hw_target: u32,
    /// Network name (cut to 64 bytes).
    pub network_name: &'a str,
    /// Input records.
    pub inputs: &'a [BuildIo<'a>],
    /// Output records.
    pub outputs: &'a [BuildIo<'a>],
    /// Layer records (zero-filled, at the version's layer record size).
    pub layers: u32,
    /// Operation records (zero-filled, at the version's operation record size; 28 bytes
    /// for 0x00010010, which the notes leave out).
    pub operations: u32,
    /// Bytes of an opaque nn_op payload.
    pub nn_op_bytes: u32,
    /// Bytes of unmapped "further entries" between the known fixed part and the first
    /// payload (as in the real files past 0x0001000E).
    pub further_entry_bytes: u32,
}

/// A synthetic v1 file laid out by the notes' table, for tests: the prefix (counts from the
/// tables), the feature database (word 0 `0x25`, one pixel pipe, one core, the rest zero)
/// from 0x00010003, a memory pool, AXI SRAM, VIP SRAM from 0x00010008, the entries, then
/// the payloads back to back in the order input, output, layer, operation, nn_op. Unused
/// entries are empty at the first payload's offset.
///
/// I/O records are written at the version's size. The 44- and 108-byte layouts are not
/// given by the notes beyond "4 dims" and "+ name": they are written as `dim_count`,
/// `dims[4]`, the three enums, the three quantisation words (44), then the name (108).
#[must_use]
pub fn build(spec: &Build<'_>) -> Vec<u8> {
    let v = spec.version;
    let mut out = Vec::new();
    let word = |out: &mut Vec<u8>, w: u32| out.extend_from_slice(&w.to_le_bytes());
    let name64 = |out: &mut Vec<u8>, s: &str| {
        let mut n = [0u8; 64];
        for (d, b) in n.iter_mut().zip(s.bytes()) {
            *d = b;
        }
        out.extend_from_slice(&n);
    };
    let count32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);

    out.extend_from_slice(b"VPMN");
    word(&mut out, v);
    word(&mut out, spec.hw_target);
    name64(&mut out, spec.network_name);
    for w in [
        spec.layers,
        spec.operations,
        count32(spec.inputs.len()),
        count32(spec.outputs.len()),
    ] {
        word(&mut out, w);
    }
    if v >= since::FEATURE_DATABASE {
        word(&mut out, 0x25);
        word(&mut out, 1);
        out.push(1);
        out.resize(out.len() + 247, 0);
    }
    for w in [0x1_0000, 64, 0, 0, 0] {
        word(&mut out, w); // pool {size, alignment, base}, axi_sram {base, size}
    }
    if v >= since::VIP_SRAM {
        word(&mut out, 0);
        word(&mut out, 0x4_0000);
    }
    let entries_at = out.len();
    let entries = entry_count(v);
    out.resize(entries_at + 8 * entries, 0);
    out.resize(out.len() + spec.further_entry_bytes as usize, 0);

    let io_bytes = io_record_bytes(v) as usize;
    let io_table = |recs: &[BuildIo<'_>]| {
        let mut t = Vec::new();
        for r in recs {
            let start = t.len();
            word(&mut t, count32(r.dims.len()));
            let slots = if io_bytes == IO_RECORD_BYTES as usize {
                6
            } else {
                4
            };
            for k in 0..slots {
                word(&mut t, r.dims.get(k).copied().unwrap_or(0));
            }
            for w in [
                r.data_format,
                r.data_type,
                r.quant_format,
                r.fixed_pos as u32,
                r.tf_scale.to_bits(),
                r.tf_zero_point as u32,
            ] {
                word(&mut t, w);
            }
            if io_bytes != IO_OLD_BYTES as usize {
                name64(&mut t, r.name);
            }
            t.resize(start + io_bytes, 0);
        }
        t
    };
    let op_bytes = operation_record_bytes(v).unwrap_or(28);
    let tables: [Vec<u8>; 5] = [
        io_table(spec.inputs),
        io_table(spec.outputs),
        vec![0u8; (u64::from(spec.layers) * layer_record_bytes(v)) as usize],
        vec![0u8; (u64::from(spec.operations) * op_bytes) as usize],
        (0..spec.nn_op_bytes).map(|i| (i * 13 + 7) as u8).collect(),
    ];
    let first_payload = count32(out.len());
    let mut located = [(first_payload, 0u32); 16];
    for (slot, table) in [
        entry::INPUT,
        entry::OUTPUT,
        entry::LAYER,
        entry::OPERATION,
        entry::NN_OP,
    ]
    .into_iter()
    .zip(&tables)
    {
        if let Some(e) = located.get_mut(slot) {
            *e = (count32(out.len()), count32(table.len()));
        }
        out.extend_from_slice(table);
    }
    for (i, (off, size)) in located.iter().take(entries).enumerate() {
        let at = entries_at + 8 * i;
        if let Some(dst) = out.get_mut(at..at + 8) {
            dst[..4].copy_from_slice(&off.to_le_bytes());
            dst[4..].copy_from_slice(&size.to_le_bytes());
        }
    }
    out
}
