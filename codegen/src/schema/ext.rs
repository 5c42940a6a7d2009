//! Schema-language constructs for directory-based containers (VPMN/NBG, and any format
//! whose header locates a table of typed sections): their typed form and their loader.
//! The checks are in `check.rs` (name resolution) and here ([`check_file`]); the emission
//! is in `sections.rs`.
//!
//! - `composed` (per struct): a `u64` value made of a low and a high `u32` field;
//! - `bitfields` (top level): a word cut into named bit ranges;
//! - `u32[N]` field types (in `schema.rs`) and the `items` step;
//! - `records` (per file): single structs located by an expression (`record_fits`);
//! - `directories` (per file): a table whose records locate typed sections; each section
//!   type may have a record layout, which makes a *collection* (all records of all sections
//!   of that type) usable in `for_each` and `count(...)`; `entry_size` step; directory
//!   checksums (`record_checksums`, `payload_checksum`);
//! - `slots` (per file): a section's payload cut into slots by another section's records
//!   (`slots_paired`, `slots_valid`, `slots_padding_zero`);
//! - `variants` (top-level file only): layouts chosen by a header field (versions).

use crate::diag::Diags;
use crate::expr::ExprAt;
use crate::schema::{
    Algorithm, FieldDef, File, IntTy, MapReader, Name, doc, expr_at, file_body, int_ty, name,
    named_entries, seq, string, uint,
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

/// One layout of a file, chosen by a condition on the common header.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The variant's key (`v2`), the name of the dispatch enum's variant (`V2`).
    pub key: Name,
    /// The condition that selects it (a comparison on the common header).
    pub when: ExprAt,
    /// Its layout: header, tables, steps...
    pub file: File,
}

/// Layouts chosen by the common header.
#[derive(Clone, Debug)]
pub struct Variants {
    /// Code when no variant's condition holds.
    pub code: Name,
    /// The field to blame then (`header.version`).
    pub field: ExprAt,
    /// The variants, tried in order.
    pub list: Vec<Variant>,
}

/// The extra parts of a `file` (or a variant).
#[derive(Clone, Debug, Default)]
pub struct FileExt {
    /// Located records.
    pub records: Vec<Record>,
    /// Section directories.
    pub directories: Vec<Directory>,
    /// Slot regions.
    pub slots: Vec<Slots>,
    /// Variants (top-level file only).
    pub variants: Option<Box<Variants>>,
    /// A variant's selecting condition.
    pub when: Option<ExprAt>,
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
}

/// Keys of `file` handled here.
pub const FILE_KEYS: &[&str] = &["records", "directories", "slots", "variants"];

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

fn directory(dname: Name, v: &Node, d: &mut Diags) -> Option<Directory> {
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

fn slots(sname: Name, v: &Node, d: &mut Diags) -> Option<Slots> {
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

/// The `file` keys of this module, read from `m`.
pub fn file_ext(m: &mut MapReader<'_>, variant: bool, d: &mut Diags) -> FileExt {
    let mut out = FileExt::default();
    if let Some(rs) = m.opt("records") {
        for (rname, v) in named_entries(rs, "records", d) {
            let Some(mut rm) = MapReader::new(v, &format!("record `{}`", rname.text), d) else {
                continue;
            };
            let rdoc = doc(&mut rm, d);
            let strukt = rm.req("struct", d).and_then(|n| name(n, "struct", d));
            let at = rm.req("at", d).and_then(|n| expr_at(n, "at", d));
            let gate = rm.opt("gate").and_then(|n| expr_at(n, "gate", d));
            rm.finish(&["doc", "struct", "at", "gate"], d);
            if let (Some(strukt), Some(at)) = (strukt, at) {
                out.records.push(Record {
                    name: rname,
                    doc: rdoc,
                    strukt,
                    at,
                    gate,
                });
            }
        }
    }
    if let Some(ds) = m.opt("directories") {
        for (dname, v) in named_entries(ds, "directories", d) {
            if let Some(x) = directory(dname, v, d) {
                out.directories.push(x);
            }
        }
    }
    if let Some(ss) = m.opt("slots") {
        for (sname, v) in named_entries(ss, "slots", d) {
            if let Some(x) = slots(sname, v, d) {
                out.slots.push(x);
            }
        }
    }
    if variant {
        out.when = m.req("when", d).and_then(|n| expr_at(n, "when", d));
    }
    if let Some(vs) = m.opt("variants") {
        if variant {
            d.error(vs.pos, "a variant cannot have variants of its own");
        } else if let Some(mut vm) = MapReader::new(vs, "`variants`", d) {
            let code = vm.req("code", d).and_then(|n| name(n, "code", d));
            let field = vm.req("field", d).and_then(|n| expr_at(n, "field", d));
            let mut list = Vec::new();
            if let Some(l) = vm.req("list", d) {
                for (key, v) in named_entries(l, "list", d) {
                    let what = format!("variant `{}`", key.text);
                    if let Some(file) = file_body(v, &what, true, d)
                        && let Some(when) = file.ext.when.clone()
                    {
                        list.push(Variant { key, when, file });
                    }
                }
            }
            vm.finish(&["code", "field", "list"], d);
            if let (Some(code), Some(field)) = (code, field) {
                out.variants = Some(Box::new(Variants { code, field, list }));
            }
        }
    }
    out
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

use crate::check::{Checked, FieldKind, Layout, Scope, StepState, check_expr, single_field};
use crate::expr::Expr;
use crate::schema::{Schema, Struct, Table};

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

/// Ranges inside the word, no overlap, unique names.
pub fn check_bitfield(b: &Bitfield, d: &mut Diags) {
    let bits = b.repr.bytes().saturating_mul(8);
    let mut used = 0u64;
    let mut names: Vec<&str> = Vec::new();
    for f in &b.fields {
        if names.contains(&f.name.text.as_str()) {
            d.error(
                f.name.pos,
                format!(
                    "duplicate range `{}` in bitfields `{}`",
                    f.name.text, b.name.text
                ),
            );
        }
        names.push(&f.name.text);
        if f.hi >= bits {
            d.error(
                f.pos,
                format!(
                    "bits {}..{} of `{}` do not fit the repr {}",
                    f.lo,
                    f.hi,
                    f.name.text,
                    b.repr.rust()
                ),
            );
            continue;
        }
        let mask = range_mask(f.lo, f.hi);
        if used & mask != 0 {
            d.error(
                f.pos,
                format!(
                    "bits {}..{} of `{}` overlap another range",
                    f.lo, f.hi, f.name.text
                ),
            );
        }
        used |= mask;
    }
}

/// Composed values name two `u32` fields; `since` fields only in a struct that is not at a
/// fixed offset of a table.
pub fn check_struct(schema: &Schema, st: &Struct, l: &Layout, d: &mut Diags) {
    let _ = schema;
    for c in &st.composed {
        for part in [&c.low, &c.high] {
            match st.fields.iter().position(|f| f.name.text == part.text) {
                None => d.error(
                    part.pos,
                    format!(
                        "composed `{}` names `{}`, which is not a field of `{}`",
                        c.name.text, part.text, st.name.text
                    ),
                ),
                Some(i) => {
                    if !matches!(
                        l.fields.get(i).map(|f| f.1),
                        Some(FieldKind::Int(IntTy::U32))
                    ) {
                        d.error(
                            part.pos,
                            format!(
                                "composed `{}`: `{}` must be a u32 field",
                                c.name.text, part.text
                            ),
                        );
                    }
                }
            }
        }
    }
    let mut gated = false;
    for f in &st.fields {
        if let (Some((s, _)), Some((u, pos))) = (f.since, f.until)
            && u <= s
        {
            d.error(pos, format!("field `{}`: `until` {u:#x} is not above `since` {s:#x}, so the field is never present", f.name.text));
        }
        match (f.is_gated(), f.offset) {
            (true, Some((_, pos))) => d.error(pos, format!("field `{}` has `since` or `until`, so its offset depends on the gate and cannot be stated", f.name.text)),
            (true, None) => gated = true,
            (false, Some((_, pos))) if gated => d.error(pos, format!("field `{}` follows a `since` or `until` field, so its offset depends on the gate and cannot be stated", f.name.text)),
            _ => {}
        }
    }
    if gated {
        if let Some((_, pos)) = st.size {
            d.error(pos, format!("struct `{}` has `since` or `until` fields, so its size depends on the gate and cannot be stated", st.name.text));
        }
        if !st.composed.is_empty() {
            d.error(
                st.name.pos,
                format!(
                    "struct `{}` has `since` or `until` fields and composed values: not supported together",
                    st.name.text
                ),
            );
        }
    }
}

/// Whether a struct has version-gated fields.
pub fn is_gated(st: &Struct) -> bool {
    st.fields.iter().any(FieldDef::is_gated)
}

/// The file's collections as tables (for `for_each` scopes and resolution).
pub fn collections(file: &File) -> Vec<Table> {
    let dummy = |pos| ExprAt {
        expr: Expr::Num(0),
        text: "0".to_string(),
        pos,
    };
    file.ext
        .directories
        .iter()
        .flat_map(|dir| dir.layouts.iter())
        .map(|l| Table {
            name: l.collection.clone(),
            doc: l.doc.clone(),
            record: l.record.clone(),
            at: dummy(l.collection.pos),
            count: dummy(l.collection.pos),
            stride: dummy(l.collection.pos),
        })
        .collect()
}

/// The directory a collection belongs to, and its layout.
pub fn collection_of<'a>(file: &'a File, name: &str) -> Option<(&'a Directory, &'a SectionLayout)> {
    file.ext.directories.iter().find_map(|dir| {
        dir.layouts
            .iter()
            .find(|l| l.collection.text == name)
            .map(|l| (dir, l))
    })
}

/// The field index of `name` in struct `sname` and its kind.
pub fn field_of(c: &Checked, sname: &str, name: &str) -> Option<(usize, u64, FieldKind)> {
    let st = c.strukt(sname)?;
    let i = st.fields.iter().position(|f| f.name.text == name)?;
    let (off, kind) = *c.layouts.get(sname)?.fields.get(i)?;
    Some((i, off, kind))
}

/// The directory's type field: its kind, the struct it is in, and its integer type.
pub fn type_field<'a>(c: &'a Checked, dir: &Directory) -> Option<(&'a Table, FieldKind, IntTy)> {
    let t = c
        .schema
        .file
        .tables
        .iter()
        .find(|t| t.name.text == dir.table.text)?;
    let (_, _, kind) = field_of(c, &t.record.text, &dir.type_field.text)?;
    let ty = match kind {
        FieldKind::Int(t) => t,
        FieldKind::Enum(e) => c.schema.enums.get(e)?.repr,
        _ => return None,
    };
    Some((t, kind, ty))
}

/// An unsigned number written as decimal or `0x` hex (with `_` separators).
fn number(text: &str) -> Option<u64> {
    let s = text.trim().replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None if s.starts_with(|ch: char| ch.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}

/// The number a section type is named by in a directory (`layouts` keys, a slot region):
/// a value of the type field's enum by name, else a constant, else a number (`0x70000003`).
pub fn type_value(c: &Checked, dir: &Directory, value: &str) -> Option<u64> {
    let (_, kind, _) = type_field(c, dir)?;
    if let FieldKind::Enum(e) = kind
        && let Some(v) = c
            .schema
            .enums
            .get(e)
            .and_then(|en| en.values.iter().find(|v| v.name.text == value))
    {
        return Some(v.value);
    }
    if let Some(k) = c.schema.constants.iter().find(|k| k.name.text == value) {
        return Some(k.value);
    }
    number(value)
}

/// The section types a directory keeps a count (and first index) for, ascending: the
/// values of its type field's enum, its layouts' and its slot regions' types. The
/// bookkeeping is one slot per type the schema names, found by matching (or, when they
/// are exactly `0..n`, by the value itself), never one per possible value.
pub fn type_slots(c: &Checked, dir: &Directory) -> Vec<u64> {
    let mut v: Vec<u64> = Vec::new();
    if let Some((_, FieldKind::Enum(e), _)) = type_field(c, dir)
        && let Some(en) = c.schema.enums.get(e)
    {
        v.extend(en.values.iter().map(|x| x.value));
    }
    v.extend(
        dir.layouts
            .iter()
            .filter_map(|l| type_value(c, dir, &l.value.text)),
    );
    v.extend(
        c.schema
            .file
            .ext
            .slots
            .iter()
            .filter(|s| s.directory.text == dir.name.text)
            .filter_map(|s| type_value(c, dir, &s.region.text)),
    );
    v.sort_unstable();
    v.dedup();
    v
}

/// Whether a directory's slot types are exactly `0..n`, so a type's slot is its value.
pub fn slots_dense(slots: &[u64]) -> bool {
    slots
        .iter()
        .enumerate()
        .all(|(i, v)| u64::try_from(i).is_ok_and(|i| i == *v))
}

fn int_field(c: &Checked, sname: &str, f: &Name, what: &str, d: &mut Diags) {
    match field_of(c, sname, &f.text) {
        Some((_, _, k)) if k.int_ty(&c.schema).is_some() && !matches!(k, FieldKind::Bits(_)) => {}
        Some(_) => d.error(
            f.pos,
            format!("{what} `{}` must be an integer field of `{sname}`", f.text),
        ),
        None => d.error(
            f.pos,
            format!("{what} `{}` is not a field of `{sname}`", f.text),
        ),
    }
}

/// Check the records, directories and slots of one file layout.
pub fn check_file(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    for r in &file.ext.records {
        match c.strukt(&r.strukt.text) {
            None => d.error(
                r.strukt.pos,
                format!(
                    "struct `{}` of record `{}` is not defined",
                    r.strukt.text, r.name.text
                ),
            ),
            Some(st) => match (is_gated(st), &r.gate) {
                (true, None) => d.error(
                    r.name.pos,
                    format!(
                        "record `{}`: struct `{}` has `since` or `until` fields, so the record needs a `gate`",
                        r.name.text, st.name.text
                    ),
                ),
                (false, Some(g)) => d.error(
                    g.pos,
                    format!(
                        "record `{}`: struct `{}` has no `since` or `until` field to gate",
                        r.name.text, st.name.text
                    ),
                ),
                (true, Some(g)) => check_expr(c, g, Scope::Top, false, "gate", d),
                (false, None) => {}
            },
        }
        check_expr(c, &r.at, Scope::Top, false, "at", d);
    }
    for st in &c.schema.structs {
        if !is_gated(st) {
            continue;
        }
        let misuse = file.header.text == st.name.text
            || file.tables.iter().any(|t| t.record.text == st.name.text)
            || c.collections.iter().any(|t| t.record.text == st.name.text);
        if misuse {
            d.error(st.name.pos, format!("struct `{}` has `since` or `until` fields: it can only be a located record (with a `gate`)", st.name.text));
        }
    }
    for dir in &file.ext.directories {
        let Some(t) = file.tables.iter().find(|t| t.name.text == dir.table.text) else {
            d.error(
                dir.table.pos,
                format!(
                    "directory `{}` names table `{}`, which is not defined",
                    dir.name.text, dir.table.text
                ),
            );
            continue;
        };
        let rec = t.record.text.as_str();
        match type_field(c, dir) {
            Some((_, kind, ty)) if !ty.signed() => {
                let en = match kind {
                    FieldKind::Enum(e) => c.schema.enums.get(e),
                    _ => None,
                };
                let max = if ty.bytes() >= 8 {
                    u64::MAX
                } else {
                    (1u64 << ty.bytes().saturating_mul(8)).wrapping_sub(1)
                };
                let mut seen: Vec<(u64, &str)> = Vec::new();
                for l in &dir.layouts {
                    let Some(v) = type_value(c, dir, &l.value.text) else {
                        d.error(
                            l.value.pos,
                            match en {
                                Some(en) => format!(
                                    "layout `{}` is not a value of enum `{}`, a constant or a number",
                                    l.value.text, en.name.text
                                ),
                                None => format!(
                                    "layout `{}` is not a constant or a number (type `{}` is a plain {})",
                                    l.value.text,
                                    dir.type_field.text,
                                    ty.rust()
                                ),
                            },
                        );
                        continue;
                    };
                    // YAML reads a number key as a number: show it in hex.
                    let shown = if number(&l.value.text).is_some() {
                        format!("{v:#x}")
                    } else {
                        format!("`{}` ({v:#x})", l.value.text)
                    };
                    if v > max {
                        d.error(
                            l.value.pos,
                            format!(
                                "layout {shown} does not fit type `{}` ({})",
                                dir.type_field.text,
                                ty.rust()
                            ),
                        );
                    }
                    if let Some((_, other)) = seen.iter().find(|(x, _)| *x == v) {
                        d.error(
                            l.value.pos,
                            format!(
                                "layout {shown} is the section type of layout `{other}` too: a type has one layout"
                            ),
                        );
                    }
                    seen.push((v, &l.value.text));
                }
            }
            _ => d.error(
                dir.type_field.pos,
                format!(
                    "type `{}` must be a field of `{rec}` with an unsigned integer or enum type",
                    dir.type_field.text
                ),
            ),
        }
        int_field(c, rec, &dir.entry_size, "entry_size", d);
        if !file.ranges.iter().any(|r| {
            r.name.text == dir.payload.text
                && r.table.as_ref().is_some_and(|x| x.text == t.name.text)
        }) {
            d.error(
                dir.payload.pos,
                format!(
                    "payload `{}` must be a per-record range of table `{}`",
                    dir.payload.text, t.name.text
                ),
            );
        }
        for l in &dir.layouts {
            match c.layouts.get(&l.record.text) {
                None => d.error(
                    l.record.pos,
                    format!("record struct `{}` is not defined", l.record.text),
                ),
                Some(lay) if lay.size == 0 => d.error(
                    l.record.pos,
                    format!("record struct `{}` is empty", l.record.text),
                ),
                Some(_) => {}
            }
        }
        for k in &dir.checksums {
            match &k.kind {
                DirChecksumKind::Records {
                    records,
                    target,
                    stored,
                } => match dir
                    .layouts
                    .iter()
                    .find(|l| l.collection.text == records.text)
                {
                    None => d.error(
                        records.pos,
                        format!(
                            "records `{}` is not a collection of directory `{}`",
                            records.text, dir.name.text
                        ),
                    ),
                    Some(l) => {
                        int_field(c, &l.record.text, target, "target", d);
                        int_field(c, &l.record.text, stored, "stored", d);
                    }
                },
                DirChecksumKind::Payloads { zero, stored } => {
                    for (col, f) in zero {
                        match dir.layouts.iter().find(|l| l.collection.text == col.text) {
                            None => d.error(
                                col.pos,
                                format!(
                                    "`{}` is not a collection of directory `{}`",
                                    col.text, dir.name.text
                                ),
                            ),
                            Some(l) => int_field(c, &l.record.text, f, "zero field", d),
                        }
                    }
                    check_expr(c, stored, Scope::Top, false, "stored", d);
                    if !matches!(
                        single_field(c, &stored.expr, Scope::Top),
                        Some((crate::check::Owner::Header, _))
                    ) {
                        d.error(
                            stored.pos,
                            format!("stored `{}` must name one header field", stored.text),
                        );
                    }
                }
            }
        }
    }
    let names = file
        .ext
        .directories
        .iter()
        .flat_map(|x| x.checksums.iter().map(|k| &k.name))
        .chain(file.checksums.iter().map(|k| &k.name));
    let mut seen: Vec<&str> = Vec::new();
    for n in names {
        if seen.contains(&n.text.as_str()) {
            d.error(n.pos, format!("duplicate checksum name `{}`", n.text));
        }
        seen.push(&n.text);
    }
    for s in &file.ext.slots {
        let Some(dir) = file
            .ext
            .directories
            .iter()
            .find(|x| x.name.text == s.directory.text)
        else {
            d.error(
                s.directory.pos,
                format!(
                    "slots `{}` names directory `{}`, which is not defined",
                    s.name.text, s.directory.text
                ),
            );
            continue;
        };
        if type_value(c, dir, &s.region.text).is_none() {
            d.error(
                s.region.pos,
                format!(
                    "region `{}` is not a section type of directory `{}`",
                    s.region.text, dir.name.text
                ),
            );
        }
        match dir
            .layouts
            .iter()
            .find(|l| l.collection.text == s.entries.text)
        {
            None => d.error(
                s.entries.pos,
                format!(
                    "entries `{}` is not a collection of directory `{}`",
                    s.entries.text, dir.name.text
                ),
            ),
            Some(l) => {
                int_field(c, &l.record.text, &s.offset, "offset", d);
                int_field(c, &l.record.text, &s.size, "size", d);
            }
        }
        if !s.align.is_power_of_two() {
            d.error(
                s.align_pos,
                format!("slot align {} is not a power of two", s.align),
            );
        }
    }
}

/// The directory checksum named `name`, with its directory.
pub fn dir_checksum<'a>(file: &'a File, name: &str) -> Option<(&'a Directory, &'a DirChecksum)> {
    file.ext.directories.iter().find_map(|dir| {
        dir.checksums
            .iter()
            .find(|k| k.name.text == name)
            .map(|k| (dir, k))
    })
}

fn need_top(scope: Scope<'_>, what: &Name, d: &mut Diags) {
    if !matches!(scope, Scope::Top) {
        d.error(
            what.pos,
            format!(
                "`{}`: this step runs at file level, not inside a for_each",
                what.text
            ),
        );
    }
}

fn need_collection(st: &StepState, name: &str, pos: Pos, d: &mut Diags) {
    if !st.tables_fitted.iter().any(|t| t == name) {
        d.error(pos, format!("collection `{name}` is used before its directory's entry_size step makes it readable"));
    }
}

/// Check one step of this module.
pub fn check_step(c: &Checked, x: &ExtStep, scope: Scope<'_>, st: &mut StepState, d: &mut Diags) {
    let file = &c.schema.file;
    match x {
        ExtStep::RecordFits { record, within, .. } => {
            need_top(scope, record, d);
            check_expr(c, within, scope, false, "within", d);
            if !file.ext.records.iter().any(|r| r.name.text == record.text) {
                d.error(
                    record.pos,
                    format!("record_fits names `{}`, which is not a record", record.text),
                );
            }
            st.records_bound.push(record.text.clone());
        }
        ExtStep::EntrySize { directory, .. } => {
            let Some(dir) = file
                .ext
                .directories
                .iter()
                .find(|x| x.name.text == directory.text)
            else {
                d.error(
                    directory.pos,
                    format!(
                        "entry_size names `{}`, which is not a directory",
                        directory.text
                    ),
                );
                return;
            };
            if !matches!(scope, Scope::Record(t) if t.name.text == dir.table.text) {
                d.error(
                    directory.pos,
                    format!(
                        "entry_size `{}` belongs inside `for_each: {}`",
                        directory.text, dir.table.text
                    ),
                );
            }
            if !st.ranges_fitted.contains(&dir.payload.text) {
                d.error(
                    directory.pos,
                    format!(
                        "entry_size `{}` comes before the range_fits step of its payload `{}`",
                        directory.text, dir.payload.text
                    ),
                );
            }
            st.tables_fitted
                .extend(dir.layouts.iter().map(|l| l.collection.text.clone()));
        }
        ExtStep::Items {
            array,
            first,
            check,
            ..
        } => {
            let Scope::Record(t) = scope else {
                d.error(array.pos, "items runs inside a for_each");
                return;
            };
            if !matches!(
                field_of(c, &t.record.text, &array.text),
                Some((_, _, FieldKind::Array(..)))
            ) {
                d.error(
                    array.pos,
                    format!(
                        "items `{}` must be an array field of `{}`",
                        array.text, t.record.text
                    ),
                );
            }
            if let Some(f) = first {
                check_expr(c, f, scope, false, "first", d);
            }
            match &check.expr {
                Expr::Bin(op, l, r)
                    if op.is_comparison()
                        && matches!(&**l, Expr::Ref(p) if p.len() == 1 && p.first().is_some_and(|x| x == "item")) =>
                {
                    let rhs = ExprAt {
                        expr: (**r).clone(),
                        text: check.text.clone(),
                        pos: check.pos,
                    };
                    check_expr(c, &rhs, scope, false, "check", d);
                }
                _ => d.error(
                    check.pos,
                    format!(
                        "check `{}` must be `item <comparison> <number>`",
                        check.text
                    ),
                ),
            }
        }
        ExtStep::RecordChecksums { checksum, .. } => {
            need_top(scope, checksum, d);
            match dir_checksum(file, &checksum.text) {
                Some((_, DirChecksum { kind: DirChecksumKind::Records { records, .. }, .. })) => need_collection(st, &records.text, checksum.pos, d),
                _ => d.error(checksum.pos, format!("record_checksums names `{}`, which is not a directory checksum with `records`", checksum.text)),
            }
        }
        ExtStep::PayloadChecksum { checksum, .. } => {
            need_top(scope, checksum, d);
            match dir_checksum(file, &checksum.text) {
                Some((dir, DirChecksum { kind: DirChecksumKind::Payloads { .. }, .. })) => {
                    for l in &dir.layouts {
                        need_collection(st, &l.collection.text, checksum.pos, d);
                    }
                }
                _ => d.error(checksum.pos, format!("payload_checksum names `{}`, which is not a directory checksum over payloads", checksum.text)),
            }
        }
        ExtStep::SlotsPaired { slots, .. }
        | ExtStep::SlotsValid { slots, .. }
        | ExtStep::SlotsPaddingZero { slots, .. } => {
            need_top(scope, slots, d);
            match file.ext.slots.iter().find(|s| s.name.text == slots.text) {
                None => d.error(
                    slots.pos,
                    format!("`{}` is not a slots definition", slots.text),
                ),
                Some(s) => need_collection(st, &s.entries.text, slots.pos, d),
            }
        }
    }
}

/// The expressions a step evaluates (for the located-record order check).
pub fn step_exprs<'a>(c: &'a Checked, x: &'a ExtStep) -> Vec<&'a ExprAt> {
    let file = &c.schema.file;
    match x {
        ExtStep::RecordFits { record, within, .. } => {
            let mut v = vec![within];
            if let Some(r) = file.ext.records.iter().find(|r| r.name.text == record.text) {
                v.push(&r.at);
                v.extend(r.gate.as_ref());
            }
            v
        }
        ExtStep::Items { first, .. } => first.iter().collect(),
        ExtStep::PayloadChecksum { checksum, .. } => match dir_checksum(file, &checksum.text) {
            Some((
                _,
                DirChecksum {
                    kind: DirChecksumKind::Payloads { stored, .. },
                    ..
                },
            )) => vec![stored],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    /// The constructs are not VPMN's: a toy container with a directory of typed sections, a
    /// composed size, per-section and whole-payload CRCs, and two versions loads and emits.
    #[test]
    fn a_second_format_uses_the_same_constructs() {
        let text = r#"
schema: toy
constants: { MAGIC: 0x594F5400 }
enums:
  Kind: { repr: u16, values: { none: 0, names: 1, blob: 2, sums: 3 } }
structs:
  Head: { fields: [ { name: magic, type: u32 }, { name: version, type: u32 } ] }
  HeadV1:
    fields:
      - { name: magic, type: u32 }
      - { name: version, type: u32 }
      - { name: crc, type: u32 }
      - { name: count, type: u32 }
  Entry:
    fields:
      - { name: kind, type: Kind }
      - { name: pad, type: u16 }
      - { name: at_lo, type: u32 }
      - { name: at_hi, type: u32 }
      - { name: len, type: u32 }
      - { name: each, type: u32 }
    composed: { at: { low: at_lo, high: at_hi } }
  Name: { fields: [ { name: text, type: "str[16]" } ] }
  Sum: { fields: [ { name: kind, type: u32 }, { name: value, type: u32 } ] }
file:
  name: Toy
  header: { struct: Head, code: short }
  validate: [ { code: magic, expect: header.magic, equals: MAGIC } ]
  variants:
    code: version
    field: header.version
    list:
      one:
        name: ToyV1
        when: "header.version == 1"
        header: { struct: HeadV1, code: short }
        tables: { dir: { record: Entry, at: 16, count: header.count, stride: 20 } }
        ranges: { body: { table: dir, offset: at, length: len } }
        directories:
          d:
            table: dir
            type: kind
            payload: body
            entry_size: each
            layouts:
              names: { record: Name, collection: names }
              sums: { record: Sum, collection: sums }
            checksums:
              each_crc: { algorithm: crc32, records: sums, target: kind, stored: value }
              all_crc: { algorithm: crc32, zero: [sums.value], stored: header.crc }
        validate:
          - { code: dir-oob, table_fits: dir, within: len }
          - for_each: dir
            validate:
              - { code: kind, enum_known: kind }
              - { code: oob, range_fits: body, within: len }
              - { code: each, entry_size: d }
          - { code: few-names, assert: "count(names) >= 1", field: header.count }
          - { code: crc, record_checksums: each_crc, missing: no-target, duplicate: twice }
          - { code: file-crc, payload_checksum: all_crc }
"#;
        let c = crate::load_str(text, "toy.yaml").unwrap_or_else(|d| panic!("{d}"));
        let code = crate::generate(&c);
        for want in [
            "pub enum Toy<'a>",
            "One(ToyV1<'a>)",
            "pub fn names(&self) -> NamesIter<'a>",
            "crc32_combine",
            "\"no-target\"",
        ] {
            assert!(code.contains(want), "generated code lacks {want}");
        }
        syn::parse_file(&code).unwrap_or_else(|e| panic!("generated code does not parse: {e}"));
    }
}
