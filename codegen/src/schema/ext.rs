//! Schema-language constructs for directory-based containers (VPMN/NBG, and any format
//! whose header locates a table of typed sections): their typed form and their loader.
//! The checks are in `check/ext.rs` ([`crate::check::ext::check_file`]); the emission
//! is in `emit/sections.rs`; a file's variants are loaded with the file, in `schema/top.rs`.
//!
//! - `composed` (per struct): a `u64` value made of a low and a high `u32` field;
//! - `bitfields` (top level): a word cut into named bit ranges;
//! - `u32[N]` field types (in `schema/mod.rs`) and the `items` step;
//! - `records` (per file): single structs located by an expression (`record_fits`);
//! - `directories` (per file): a table whose records locate typed sections; each section
//!   type may have a record layout, which makes a *collection* (all records of all sections
//!   of that type) usable in `for_each` and `count(...)`; `entry_size` step; directory
//!   checksums (`record_checksums`, `payload_checksum`);
//! - `slots` (per file): a section's payload cut into slots by another section's records
//!   (`slots_paired`, `slots_valid`, `slots_padding_zero`);
//! - `ownership` (per file): parts of the file (header, located records, table extents,
//!   per-record ranges) that must not share a byte, with a bound on their number
//!   (`owned_apart`);
//! - `variants` (top-level file only): layouts chosen by a header field (versions).

use crate::diag::Diags;
use crate::expr::ExprAt;
use crate::schema::{
    Algorithm, IntTy, MapReader, Name, doc, expr_at, int_ty, name, named_entries, seq, string, uint,
};
use crate::yaml::{Kind, Node, Pos};

/// A `u64` composed of two `u32` fields: `low | high << 32`.
#[derive(Clone, Debug)]
pub struct Composed {
    /// Name of the value.
    pub name: Name,
    /// The field holding bits 0-31.
    pub low: Name,
    /// The field holding bits 32-63.
    pub high: Name,
    /// Documentation.
    pub doc: String,
}

/// One named bit range of a bit-field word.
#[derive(Clone, Debug)]
pub struct BitRange {
    /// Name (snake_case).
    pub name: Name,
    /// Lowest bit.
    pub lo: u64,
    /// Highest bit (inclusive).
    pub hi: u64,
    /// Where the range was written.
    pub pos: Pos,
    /// Documentation.
    pub doc: String,
}

/// A word cut into named bit ranges. Unlike `flags`, no bit is required to be clear: a
/// range that must be zero is checked with an ordinary `expect`.
#[derive(Clone, Debug)]
pub struct Bitfield {
    /// Name (UpperCamel).
    pub name: Name,
    /// Storage type.
    pub repr: IntTy,
    /// Documentation.
    pub doc: String,
    /// The ranges.
    pub fields: Vec<BitRange>,
}

/// A single struct located by an expression (a sub-header).
#[derive(Clone, Debug)]
pub struct Record {
    /// Name (snake_case), also how expressions reach its fields (`sub_header.sh_offset`).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The struct.
    pub strukt: Name,
    /// Byte offset.
    pub at: ExprAt,
    /// For a struct with `since` fields: the value its fields are gated on.
    pub gate: Option<ExprAt>,
    /// Found by searching back from `at` (ZIP's end record behind its comment).
    pub search: Option<Search>,
    /// One record per record of this table or stream (`table: centrals`): `at` is in that
    /// collection's record scope, and the record is placed and read inside its `for_each`
    /// (ZIP's local header, located by its central directory entry).
    pub table: Option<Name>,
    /// Present only when this holds (WAVE's WAVEFORMATEXTENSIBLE fields, by the format
    /// chunk's tag and size): placed by its `record_fits` then, absent otherwise; a read of
    /// it has no value when it is absent, and its view's accessor returns an `Option`.
    pub when: Option<ExprAt>,
}

/// A located record's search: the last place at or before the record's `at`, at most `back`
/// bytes before it, where the record fits and `cond` (over its fields) holds.
#[derive(Clone, Debug)]
pub struct Search {
    /// How far back to look: a number or constant.
    pub back: ExprAt,
    /// The condition a place must meet, over the record's fields (`where`).
    pub cond: ExprAt,
    /// Where `search` was written.
    pub pos: Pos,
}

/// A section type with a record layout: every section of that type is an array of records.
#[derive(Clone, Debug)]
pub struct SectionLayout {
    /// The type field's enum value name (`input`).
    pub value: Name,
    /// The record struct.
    pub record: Name,
    /// The collection's name (`inputs`): all records of all sections of that type.
    pub collection: Name,
    /// Documentation.
    pub doc: String,
}

/// What a directory checksum covers.
#[derive(Clone, Debug)]
pub enum DirChecksumKind {
    /// Each record of a collection names a section (by type) and stores its payload's sum.
    Records {
        /// The collection of checksum records.
        records: Name,
        /// The record field naming the section type.
        target: Name,
        /// The record field storing the sum.
        stored: Name,
    },
    /// One sum over every payload in directory order (gaps excluded), with the listed
    /// record fields hashed as zero; stored in a header field.
    Payloads {
        /// `collection.field`s counted as zero bytes.
        zero: Vec<(Name, Name)>,
        /// Where the sum is stored (`header.crc_sum`).
        stored: ExprAt,
    },
}

/// A checksum defined over a directory's sections.
#[derive(Clone, Debug)]
pub struct DirChecksum {
    /// Name.
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// Algorithm (only `crc32` can be combined, so only `crc32` is accepted).
    pub algorithm: Algorithm,
    /// What it covers.
    pub kind: DirChecksumKind,
}

/// A table whose records locate typed sections.
#[derive(Clone, Debug)]
pub struct Directory {
    /// Name.
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The table of section records.
    pub table: Name,
    /// The record field holding the section type (a closed enum).
    pub type_field: Name,
    /// The per-record range holding each section's payload.
    pub payload: Name,
    /// The record field holding the size of one entry of the payload.
    pub entry_size: Name,
    /// Section types with a record layout.
    pub layouts: Vec<SectionLayout>,
    /// Checksums over the sections.
    pub checksums: Vec<DirChecksum>,
}

/// A section payload cut into slots by the `(offset, size)` records of a collection.
#[derive(Clone, Debug)]
pub struct Slots {
    /// Name.
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The directory.
    pub directory: Name,
    /// The section type (enum value name) whose payload is the region.
    pub region: Name,
    /// The collection whose records locate the slots.
    pub entries: Name,
    /// Entry field: slot offset relative to the region.
    pub offset: Name,
    /// Entry field: slot size.
    pub size: Name,
    /// Every slot offset must be a multiple of this.
    pub align: u64,
    /// Where `align` was written.
    pub align_pos: Pos,
}

/// Parts of a file that must not share a byte: each part is the file's header, a located
/// record, a table's extent, or a per-record range (one part instance per record).
#[derive(Clone, Debug)]
pub struct Ownership {
    /// Name.
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The parts, in the order their instances are numbered.
    pub parts: Vec<Name>,
    /// The most part instances a valid file has (the check's work is at most
    /// `max * (max - 1) / 2` comparisons).
    pub max: u64,
    /// Where `max` was written.
    pub max_pos: Pos,
}

/// The extra step kinds.
#[derive(Clone, Debug)]
pub enum ExtStep {
    /// A located record lies within a limit; binds it for the steps after.
    RecordFits {
        /// Error code.
        code: Name,
        /// The record.
        record: Name,
        /// The limit.
        within: ExprAt,
    },
    /// In a directory table's `for_each`: the payload size is a multiple of the entry size,
    /// and a section type with a layout has entry size = record size.
    EntrySize {
        /// Error code.
        code: Name,
        /// The directory.
        directory: Name,
    },
    /// The first `first` items of an array field satisfy `item <op> expr`.
    Items {
        /// Error code.
        code: Name,
        /// The array field.
        array: ExprAt,
        /// How many items count (all when absent).
        first: Option<ExprAt>,
        /// `item <op> expr`.
        check: ExprAt,
    },
    /// A `Records` directory checksum: every record names a section present exactly once
    /// (`missing`), no section is named twice (`duplicate`), the sums match (`code`).
    RecordChecksums {
        /// Code for a mismatching sum.
        code: Name,
        /// Code for a record naming a section type not present exactly once.
        missing: Name,
        /// Code for a section type named by two records.
        duplicate: Name,
        /// The checksum.
        checksum: Name,
    },
    /// A `Payloads` directory checksum matches. Right after a `record_checksums` step over
    /// the same directory, both share one pass: every byte is hashed once.
    PayloadChecksum {
        /// Error code.
        code: Name,
        /// The checksum.
        checksum: Name,
    },
    /// The region section and the entries' section are both present once, or both absent.
    SlotsPaired {
        /// Error code.
        code: Name,
        /// The slots.
        slots: Name,
    },
    /// Every entry: nonzero size, aligned offset, inside the region, after the previous one.
    SlotsValid {
        /// Error code.
        code: Name,
        /// The slots.
        slots: Name,
    },
    /// Every region byte outside the slots is zero.
    SlotsPaddingZero {
        /// Error code.
        code: Name,
        /// The slots.
        slots: Name,
    },
    /// No two part instances of an `ownership` share a byte (`code`), and there are no more
    /// of them than its `max` (`too_many`).
    OwnedApart {
        /// Code for two parts sharing a byte.
        code: Name,
        /// Code for more part instances than `max`.
        too_many: Name,
        /// The ownership declaration.
        ownership: Name,
    },
}

/// Step kinds handled here.
pub const STEP_KINDS: &[&str] = &[
    "record_fits",
    "entry_size",
    "items",
    "record_checksums",
    "payload_checksum",
    "slots_paired",
    "slots_valid",
    "slots_padding_zero",
    "owned_apart",
];

/// `bitfields:` at the top level.
pub fn bitfields(node: &Node, d: &mut Diags) -> Vec<Bitfield> {
    let mut out = Vec::new();
    for (bname, v) in named_entries(node, "bitfields", d) {
        let Some(mut m) = MapReader::new(v, &format!("bitfields `{}`", bname.text), d) else {
            continue;
        };
        let repr = m.req("repr", d).and_then(|n| int_ty(n, "repr", d));
        let bdoc = doc(&mut m, d);
        let mut fields = Vec::new();
        if let Some(fs) = m.req("fields", d) {
            for (fname, fv) in named_entries(fs, "fields", d) {
                let (bits_node, fdoc) = match &fv.kind {
                    Kind::Map(_) => {
                        let Some(mut fm) =
                            MapReader::new(fv, &format!("bit range `{}`", fname.text), d)
                        else {
                            continue;
                        };
                        let b = fm.req("bits", d);
                        let fdoc = doc(&mut fm, d);
                        fm.finish(&["bits", "doc"], d);
                        (b, fdoc)
                    }
                    _ => (Some(fv), String::new()),
                };
                let Some(bn) = bits_node else { continue };
                let text = match &bn.kind {
                    Kind::Int(i) => i.to_string(),
                    Kind::Str(s) => s.clone(),
                    other => {
                        d.error(
                            bn.pos,
                            format!("bits must be `N` or `LO..HI`, found {}", other.describe()),
                        );
                        continue;
                    }
                };
                let parsed = match text.split_once("..") {
                    Some((a, b)) => a
                        .trim()
                        .parse::<u64>()
                        .ok()
                        .zip(b.trim().parse::<u64>().ok()),
                    None => text.trim().parse::<u64>().ok().map(|x| (x, x)),
                };
                match parsed {
                    Some((lo, hi)) if lo <= hi => {
                        fields.push(BitRange {
                            name: fname,
                            lo,
                            hi,
                            pos: bn.pos,
                            doc: fdoc,
                        });
                    }
                    _ => d.error(
                        bn.pos,
                        format!("bits `{text}` must be `N` or `LO..HI` with LO <= HI"),
                    ),
                }
            }
        }
        m.finish(&["repr", "doc", "fields"], d);
        if let Some(repr) = repr {
            out.push(Bitfield {
                name: bname,
                repr,
                doc: bdoc,
                fields,
            });
        }
    }
    out
}

/// `composed:` in a struct.
pub fn composed(node: &Node, d: &mut Diags) -> Vec<Composed> {
    let mut out = Vec::new();
    for (cname, v) in named_entries(node, "composed", d) {
        let Some(mut m) = MapReader::new(v, &format!("composed value `{}`", cname.text), d) else {
            continue;
        };
        let low = m.req("low", d).and_then(|n| name(n, "low", d));
        let high = m.req("high", d).and_then(|n| name(n, "high", d));
        let cdoc = doc(&mut m, d);
        m.finish(&["low", "high", "doc"], d);
        if let (Some(low), Some(high)) = (low, high) {
            out.push(Composed {
                name: cname,
                low,
                high,
                doc: cdoc,
            });
        }
    }
    out
}

fn algorithm(node: &Node, d: &mut Diags) -> Option<Algorithm> {
    let s = string(node, "algorithm", d)?;
    match s.as_str() {
        "crc32" => Some(Algorithm::Crc32),
        _ => {
            d.error(node.pos, format!("directory checksum algorithm `{s}` cannot be combined per section (built in: crc32)"));
            None
        }
    }
}

fn dotted(node: &Node, what: &str, d: &mut Diags) -> Option<(Name, Name)> {
    let s = string(node, what, d)?;
    match s.split_once('.') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() && !b.contains('.') => Some((
            Name {
                text: a.to_string(),
                pos: node.pos,
            },
            Name {
                text: b.to_string(),
                pos: node.pos,
            },
        )),
        _ => {
            d.error(node.pos, format!("{what} `{s}` must be `collection.field`"));
            None
        }
    }
}

pub(crate) fn directory(dname: Name, v: &Node, d: &mut Diags) -> Option<Directory> {
    let mut m = MapReader::new(v, &format!("directory `{}`", dname.text), d)?;
    let ddoc = doc(&mut m, d);
    let table = m.req("table", d).and_then(|n| name(n, "table", d));
    let type_field = m.req("type", d).and_then(|n| name(n, "type", d));
    let payload = m.req("payload", d).and_then(|n| name(n, "payload", d));
    let entry_size = m
        .req("entry_size", d)
        .and_then(|n| name(n, "entry_size", d));
    let mut layouts = Vec::new();
    if let Some(ls) = m.opt("layouts") {
        for (value, lv) in named_entries(ls, "layouts", d) {
            let Some(mut lm) = MapReader::new(lv, &format!("layout `{}`", value.text), d) else {
                continue;
            };
            let record = lm.req("record", d).and_then(|n| name(n, "record", d));
            let collection = lm
                .req("collection", d)
                .and_then(|n| name(n, "collection", d));
            let ldoc = doc(&mut lm, d);
            lm.finish(&["record", "collection", "doc"], d);
            if let (Some(record), Some(collection)) = (record, collection) {
                layouts.push(SectionLayout {
                    value,
                    record,
                    collection,
                    doc: ldoc,
                });
            }
        }
    }
    let mut checksums = Vec::new();
    if let Some(cs) = m.opt("checksums") {
        for (cname, cv) in named_entries(cs, "checksums", d) {
            let Some(mut cm) = MapReader::new(cv, &format!("checksum `{}`", cname.text), d) else {
                continue;
            };
            let cdoc = doc(&mut cm, d);
            let alg = cm.req("algorithm", d).and_then(|n| algorithm(n, d));
            let kind = if cm.entries.iter().any(|e| e.1 == "records") {
                let records = cm.req("records", d).and_then(|n| name(n, "records", d));
                let target = cm.req("target", d).and_then(|n| name(n, "target", d));
                let stored = cm.req("stored", d).and_then(|n| name(n, "stored", d));
                cm.finish(&["doc", "algorithm", "records", "target", "stored"], d);
                match (records, target, stored) {
                    (Some(records), Some(target), Some(stored)) => Some(DirChecksumKind::Records {
                        records,
                        target,
                        stored,
                    }),
                    _ => None,
                }
            } else {
                let zero = cm
                    .opt("zero")
                    .map(|z| {
                        seq(z, "zero", d)
                            .iter()
                            .filter_map(|n| dotted(n, "zero item", d))
                            .collect()
                    })
                    .unwrap_or_default();
                let stored = cm.req("stored", d).and_then(|n| expr_at(n, "stored", d));
                cm.finish(&["doc", "algorithm", "zero", "stored"], d);
                stored.map(|stored| DirChecksumKind::Payloads { zero, stored })
            };
            if let (Some(algorithm), Some(kind)) = (alg, kind) {
                checksums.push(DirChecksum {
                    name: cname,
                    doc: cdoc,
                    algorithm,
                    kind,
                });
            }
        }
    }
    m.finish(
        &[
            "doc",
            "table",
            "type",
            "payload",
            "entry_size",
            "layouts",
            "checksums",
        ],
        d,
    );
    Some(Directory {
        name: dname,
        doc: ddoc,
        table: table?,
        type_field: type_field?,
        payload: payload?,
        entry_size: entry_size?,
        layouts,
        checksums,
    })
}

/// A section type: a name (an enum value or a constant) or a number (`0x70000003`).
fn type_name(node: &Node, what: &str, d: &mut Diags) -> Option<Name> {
    if let Kind::Int(i) = node.kind {
        return match u64::try_from(i) {
            Ok(v) => Some(Name {
                text: format!("{v:#x}"),
                pos: node.pos,
            }),
            Err(_) => {
                d.error(node.pos, format!("{what} {i} is not an unsigned number"));
                None
            }
        };
    }
    name(node, what, d)
}

pub(crate) fn slots(sname: Name, v: &Node, d: &mut Diags) -> Option<Slots> {
    let mut m = MapReader::new(v, &format!("slots `{}`", sname.text), d)?;
    let sdoc = doc(&mut m, d);
    let directory = m.req("directory", d).and_then(|n| name(n, "directory", d));
    let region = m.req("region", d).and_then(|n| type_name(n, "region", d));
    let entries = m.req("entries", d).and_then(|n| name(n, "entries", d));
    let offset = m.req("offset", d).and_then(|n| name(n, "offset", d));
    let size = m.req("size", d).and_then(|n| name(n, "size", d));
    let align_node = m.req("align", d);
    let align = align_node.and_then(|n| uint(n, "align", d));
    m.finish(
        &[
            "doc",
            "directory",
            "region",
            "entries",
            "offset",
            "size",
            "align",
        ],
        d,
    );
    Some(Slots {
        name: sname,
        doc: sdoc,
        directory: directory?,
        region: region?,
        entries: entries?,
        offset: offset?,
        size: size?,
        align: align?,
        align_pos: align_node?.pos,
    })
}

pub(crate) fn ownership(oname: Name, v: &Node, d: &mut Diags) -> Option<Ownership> {
    let mut m = MapReader::new(v, &format!("ownership `{}`", oname.text), d)?;
    let odoc = doc(&mut m, d);
    let parts = m
        .req("parts", d)
        .map(|n| {
            seq(n, "parts", d)
                .iter()
                .filter_map(|p| name(p, "part", d))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let max_node = m.req("max", d);
    let max = max_node.and_then(|n| uint(n, "max", d));
    m.finish(&["doc", "parts", "max"], d);
    Some(Ownership {
        name: oname,
        doc: odoc,
        parts,
        max: max?,
        max_pos: max_node?.pos,
    })
}

/// One step of a kind in [`STEP_KINDS`].
pub fn step(kind: &str, mut sm: MapReader<'_>, d: &mut Diags) -> Option<ExtStep> {
    let code = sm.req("code", d).and_then(|n| name(n, "code", d));
    let target = sm.opt(kind).and_then(|n| name(n, kind, d));
    let step = match kind {
        "record_fits" => {
            let within = sm.req("within", d).and_then(|n| expr_at(n, "within", d));
            sm.finish(&["record_fits", "within", "code"], d);
            ExtStep::RecordFits {
                code: code?,
                record: target?,
                within: within?,
            }
        }
        "entry_size" => {
            sm.finish(&["entry_size", "code"], d);
            ExtStep::EntrySize {
                code: code?,
                directory: target?,
            }
        }
        "items" => {
            let first = sm.opt("first").and_then(|n| expr_at(n, "first", d));
            let check = sm.req("check", d).and_then(|n| expr_at(n, "check", d));
            sm.finish(&["items", "first", "check", "code"], d);
            let array = target.map(|t| ExprAt {
                expr: crate::expr::Expr::Ref(vec![t.text.clone()]),
                text: t.text,
                pos: t.pos,
            });
            ExtStep::Items {
                code: code?,
                array: array?,
                first,
                check: check?,
            }
        }
        "record_checksums" => {
            let missing = sm.req("missing", d).and_then(|n| name(n, "missing", d));
            let duplicate = sm.req("duplicate", d).and_then(|n| name(n, "duplicate", d));
            sm.finish(&["record_checksums", "missing", "duplicate", "code"], d);
            ExtStep::RecordChecksums {
                code: code?,
                missing: missing?,
                duplicate: duplicate?,
                checksum: target?,
            }
        }
        "owned_apart" => {
            let too_many = sm.req("too_many", d).and_then(|n| name(n, "too_many", d));
            sm.finish(&["owned_apart", "too_many", "code"], d);
            ExtStep::OwnedApart {
                code: code?,
                too_many: too_many?,
                ownership: target?,
            }
        }
        "payload_checksum" => {
            sm.finish(&["payload_checksum", "code"], d);
            ExtStep::PayloadChecksum {
                code: code?,
                checksum: target?,
            }
        }
        _ => {
            sm.finish(&[kind, "code"], d);
            let (code, slots) = (code?, target?);
            match kind {
                "slots_paired" => ExtStep::SlotsPaired { code, slots },
                "slots_valid" => ExtStep::SlotsValid { code, slots },
                _ => ExtStep::SlotsPaddingZero { code, slots },
            }
        }
    };
    Some(step)
}

// ----- checks ----------------------------------------------------------------------------

/// The mask of bits `lo..=hi` (`hi` < 64, `lo` <= `hi`).
pub fn range_mask(lo: u64, hi: u64) -> u64 {
    let top = if hi >= 63 {
        u64::MAX
    } else {
        (1u64 << hi.saturating_add(1)).wrapping_sub(1)
    };
    let bottom = if lo >= 64 {
        u64::MAX
    } else {
        (1u64 << lo).wrapping_sub(1)
    };
    top & !bottom
}
