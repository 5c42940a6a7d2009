//! The typed schema, built from the positioned YAML tree. Every structural mistake (unknown
//! key, missing key, wrong kind of value, bad expression) is collected, not just the first.

pub(crate) mod commands;
pub(crate) mod ext;
pub(crate) mod fill;
pub(crate) mod regs;
pub(crate) mod streams;
pub(crate) mod strings;

use crate::diag::Diags;
use crate::expr::{self, ExprAt};
use crate::yaml::{Kind, Node, Pos};

/// A name with the position it was written at.
#[derive(Clone, Debug, Default)]
pub struct Name {
    /// The text.
    pub text: String,
    /// Where.
    pub pos: Pos,
}

/// Fixed-width little-endian integer types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum IntTy {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
}

impl IntTy {
    /// Parse `u32` and friends.
    pub fn parse(s: &str) -> Option<IntTy> {
        Some(match s {
            "u8" => IntTy::U8,
            "u16" => IntTy::U16,
            "u32" => IntTy::U32,
            "u64" => IntTy::U64,
            "i8" => IntTy::I8,
            "i16" => IntTy::I16,
            "i32" => IntTy::I32,
            "i64" => IntTy::I64,
            _ => return None,
        })
    }
    /// Width in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            IntTy::U8 | IntTy::I8 => 1,
            IntTy::U16 | IntTy::I16 => 2,
            IntTy::U32 | IntTy::I32 => 4,
            IntTy::U64 | IntTy::I64 => 8,
        }
    }
    /// Whether signed.
    pub fn signed(self) -> bool {
        matches!(self, IntTy::I8 | IntTy::I16 | IntTy::I32 | IntTy::I64)
    }
    /// The Rust type name.
    pub fn rust(self) -> &'static str {
        match self {
            IntTy::U8 => "u8",
            IntTy::U16 => "u16",
            IntTy::U32 => "u32",
            IntTy::U64 => "u64",
            IntTy::I8 => "i8",
            IntTy::I16 => "i16",
            IntTy::I32 => "i32",
            IntTy::I64 => "i64",
        }
    }
    /// The largest value the type holds, as u64 (for unsigned fit checks).
    pub fn max_unsigned(self) -> u64 {
        match self.bytes() {
            8 => u64::MAX,
            n => (1u64 << (8 * n)) - 1,
        }
    }
}

/// A named constant.
#[derive(Clone, Debug)]
pub struct Const {
    /// Name (SCREAMING_CASE by convention).
    pub name: Name,
    /// Its type (default `u32`).
    pub ty: IntTy,
    /// Its value.
    pub value: u64,
    /// Where the value was written.
    pub value_pos: Pos,
    /// Documentation.
    pub doc: String,
}

/// One value of an enumeration.
#[derive(Clone, Debug)]
pub struct EnumValue {
    /// Name (snake_case in the schema; the Rust variant is UpperCamel).
    pub name: Name,
    /// Its number.
    pub value: u64,
    /// Where the number was written.
    pub value_pos: Pos,
    /// Documentation.
    pub doc: String,
}

/// An enumeration. A closed one rejects unknown values; an open one keeps them.
#[derive(Clone, Debug)]
pub struct Enum {
    /// Name (UpperCamel).
    pub name: Name,
    /// Storage type.
    pub repr: IntTy,
    /// Whether unknown values are kept (`true`) or an error (`false`).
    pub open: bool,
    /// Documentation.
    pub doc: String,
    /// The values.
    pub values: Vec<EnumValue>,
}

/// One named bit of a flag set.
#[derive(Clone, Debug)]
pub struct FlagBit {
    /// Name (SCREAMING_CASE).
    pub name: Name,
    /// Bit number.
    pub bit: u64,
    /// Where the bit number was written.
    pub bit_pos: Pos,
    /// Documentation.
    pub doc: String,
}

/// A flag set: named bits; every other bit must be clear (checked by a `flags_known` step).
#[derive(Clone, Debug)]
pub struct Flags {
    /// Name (UpperCamel).
    pub name: Name,
    /// Storage type.
    pub repr: IntTy,
    /// Documentation.
    pub doc: String,
    /// The bits.
    pub bits: Vec<FlagBit>,
}

/// A field's type as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// A fixed-width integer.
    Int(IntTy),
    /// `bytes[N]`: N raw bytes.
    Bytes(u64),
    /// `str[N]`: an N-byte NUL-padded string.
    Str(u64),
    /// An enum, flag set or bit-field word by name.
    Named(String),
    /// `u32[6]`: a fixed number of integers, stored back to back.
    Array(IntTy, u64),
    /// `f32` (`false`) or `f64` (`true`): IEEE 754, compared bitwise.
    Float(bool),
    /// `Pair[4]`: a fixed number of structs (or, refused by the checker, enums or flags)
    /// by name, stored back to back (`nested.rs`).
    NamedArray(String, u64),
}

/// A struct field.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// Name (snake_case).
    pub name: Name,
    /// Type.
    pub ty: TypeRef,
    /// Where the type was written.
    pub ty_pos: Pos,
    /// The offset the schema states, if it does (checked against the layout).
    pub offset: Option<(u64, Pos)>,
    /// Version gate: the field is present only when the struct's gate value is at least this.
    pub since: Option<(u64, Pos)>,
    /// Version gate: the field is present only when the struct's gate value is below this.
    pub until: Option<(u64, Pos)>,
    /// Documentation.
    pub doc: String,
    /// Stored big-endian (the field's `byte_order`, else its struct's, else the schema's).
    pub big: bool,
    /// Where the field's own `byte_order` was written, if it was (a struct-typed field has
    /// its struct's byte order: the checker refuses one here).
    pub order_pos: Option<Pos>,
}

impl FieldDef {
    /// Whether the field is version-gated (`since` or `until`).
    #[must_use]
    pub fn is_gated(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Whether the field is present when the gate value is `g`.
    #[must_use]
    pub fn present_at(&self, g: u64) -> bool {
        self.since.is_none_or(|(s, _)| g >= s) && self.until.is_none_or(|(u, _)| g < u)
    }
}

/// A fixed-layout struct.
#[derive(Clone, Debug)]
pub struct Struct {
    /// Name (UpperCamel).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The size the schema states, if it does (checked against the layout).
    pub size: Option<(u64, Pos)>,
    /// Fields in layout order.
    pub fields: Vec<FieldDef>,
    /// Values composed from two stored words (`u64` from a low and a high `u32`).
    pub composed: Vec<ext::Composed>,
}

/// A table of records located by other fields.
#[derive(Clone, Debug)]
pub struct Table {
    /// Name (snake_case).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The record struct.
    pub record: Name,
    /// Byte offset of the first record.
    pub at: ExprAt,
    /// Number of records.
    pub count: ExprAt,
    /// Bytes from one record to the next (must equal the record's size).
    pub stride: ExprAt,
}

/// A byte range located by other fields: of the file, or of each record of a table.
#[derive(Clone, Debug)]
pub struct Range {
    /// Name (snake_case).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// For a per-record range, the table.
    pub table: Option<Name>,
    /// For a per-record range, the condition under which the record has the range.
    pub when: Option<ExprAt>,
    /// Start offset.
    pub offset: ExprAt,
    /// Length in bytes.
    pub length: ExprAt,
    /// Writer: the variant name for a record that carries the bytes (`Baked`).
    pub present: Option<Name>,
    /// Writer: the variant name for a record that only states a size (`Runtime`).
    pub absent: Option<Name>,
}

/// Checksum algorithms built in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// FNV-1a 32-bit (offset basis 0x811C9DC5, prime 0x01000193).
    Fnv1a32,
    /// CRC-32 (IEEE, reflected, as zlib).
    Crc32,
}

/// A checksum: the range it covers and the field that stores it.
#[derive(Clone, Debug)]
pub struct Checksum {
    /// Name.
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// Algorithm.
    pub algorithm: Algorithm,
    /// First byte covered.
    pub from: ExprAt,
    /// One past the last byte covered.
    pub to: ExprAt,
    /// The field that stores the value (`header.checksum`).
    pub stored: ExprAt,
}

/// A validation step. Steps run in the order written; the first failure is returned.
#[derive(Clone, Debug)]
pub enum Step {
    /// The buffer is at least `min` bytes long.
    MinLen {
        /// Error code.
        code: Name,
        /// Minimum length.
        min: ExprAt,
        /// Field to blame.
        field: Option<Name>,
    },
    /// A field equals a value.
    Expect {
        /// Error code.
        code: Name,
        /// The field.
        field: ExprAt,
        /// The value it must equal.
        equals: ExprAt,
    },
    /// A comparison holds.
    Assert {
        /// Error code.
        code: Name,
        /// The comparison.
        expr: ExprAt,
        /// Field to blame.
        field: ExprAt,
    },
    /// A table lies within a limit.
    TableFits {
        /// Error code.
        code: Name,
        /// The table.
        table: Name,
        /// The limit (usually `header.total_bytes` or `len`).
        within: ExprAt,
    },
    /// A range lies within a limit (for a per-record range: each record's, when present).
    RangeFits {
        /// Error code.
        code: Name,
        /// The range.
        range: Name,
        /// The limit.
        within: ExprAt,
    },
    /// A checksum matches.
    Checksum {
        /// Error code.
        code: Name,
        /// The checksum.
        checksum: Name,
    },
    /// A flags field has no undefined bit set.
    FlagsKnown {
        /// Error code.
        code: Name,
        /// The field.
        field: ExprAt,
    },
    /// A closed enum field holds a defined value.
    EnumKnown {
        /// Error code.
        code: Name,
        /// The field.
        field: ExprAt,
    },
    /// Run steps for every record of a table.
    ForEach {
        /// The table.
        table: Name,
        /// The steps, in record context.
        steps: Vec<Step>,
    },
    /// A step of the directory, located-record, slot and item constructs (`ext.rs`).
    Ext(ext::ExtStep),
    /// `string_fits` and `string_utf8` (`strings.rs`).
    Str(crate::schema::strings::StrStep),
    /// Every byte of a span equals one value (`{ code, fill: RANGE, byte: B }`, `fill.rs`).
    Fill(crate::schema::fill::FillStep),
    /// A named value, computed once here, for the steps after it (`{ let: NAME, value: EXPR }`).
    Let {
        /// The name.
        name: Name,
        /// The value.
        value: ExprAt,
    },
    /// The records of a table in order of a key, or their ranges apart (`sorted`, `unique`,
    /// `no_overlap`), checked in table order in one pass.
    Order {
        /// Error code.
        code: Name,
        /// Which relation.
        kind: OrderKind,
        /// The table (`sorted`, `unique`) or the per-record range (`no_overlap`).
        target: Name,
        /// The key, in record scope (`sorted`, `unique`).
        by: Option<ExprAt>,
    },
    /// A record stream is walked: every record's header and body inside its range
    /// (`{ code, stream_fits: STREAM }`, `streams.rs`).
    StreamFits {
        /// Error code.
        code: Name,
        /// The stream.
        stream: Name,
        /// The walk (`stream_fits`) or the per-record checksums (`stream_checksum`).
        kind: crate::schema::streams::StreamStep,
    },
    /// A checking step that runs only when a condition holds (`when:` on the step).
    When {
        /// The condition, in the step's scope.
        when: ExprAt,
        /// The step.
        step: Box<Step>,
    },
}

/// The relation `Step::Order` checks between each record and the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderKind {
    /// Keys never decrease.
    Sorted,
    /// Keys strictly increase (so no two are equal).
    Unique,
    /// Each present range starts at or after the previous present range's end.
    NoOverlap,
}

/// How the writer lays the file out.
#[derive(Clone, Debug)]
pub struct Writer {
    /// Items in file order after the header: table and range names.
    pub order: Vec<Name>,
    /// Alignment of every range's start.
    pub align: u64,
    /// Where the `align` value was written.
    pub align_pos: Pos,
    /// A directory writer: the directory record's field giving each payload's alignment
    /// (`dir_writer.rs`).
    pub payload_align: Option<Name>,
}

/// The file: what sits where, and the validation steps.
#[derive(Clone, Debug, Default)]
pub struct File {
    /// Name of the validated view type (UpperCamel).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The header struct, at offset 0.
    pub header: Name,
    /// Error code when the buffer is shorter than the header.
    pub header_code: Name,
    /// Tables.
    pub tables: Vec<Table>,
    /// Ranges.
    pub ranges: Vec<Range>,
    /// Checksums.
    pub checksums: Vec<Checksum>,
    /// Validation steps, in order.
    pub validate: Vec<Step>,
    /// Writer layout, if the schema wants a writer.
    pub writer: Option<Writer>,
    /// Located records, section directories, slot regions, variants (`ext.rs`).
    pub ext: ext::FileExt,
    /// Strings in byte ranges (`strings.rs`).
    pub strings: Vec<crate::schema::strings::StringDef>,
    /// Record streams (`streams.rs`).
    pub streams: Vec<crate::schema::streams::Stream>,
}

/// A whole schema.
#[derive(Clone, Debug)]
pub struct Schema {
    /// Schema name (used for the module and in the generated header).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// Constants.
    pub constants: Vec<Const>,
    /// Enumerations.
    pub enums: Vec<Enum>,
    /// Flag sets.
    pub flags: Vec<Flags>,
    /// Bit-field words.
    pub bitfields: Vec<ext::Bitfield>,
    /// Structs.
    pub structs: Vec<Struct>,
    /// The file layout (empty when `has_file` is false).
    pub file: File,
    /// Whether the schema has a `file`: only a schema with `registers` may have none, and
    /// then there are no bytes to read (`regs.rs`).
    pub has_file: bool,
    /// The register block (`regs.rs`).
    pub registers: Option<crate::schema::regs::Block>,
    /// The opcode space (`commands.rs`).
    pub commands: Option<crate::schema::commands::Space>,
}

/// Reads a mapping node's keys, remembering which were used, so that unknown keys can be
/// reported once everything known was taken.
pub(crate) struct MapReader<'a> {
    what: String,
    pos: Pos,
    pub(crate) entries: Vec<(Pos, &'a str, &'a Node, bool)>,
    /// Misspelt keys read as the key they are close to: (where, as written, read as).
    guessed: Vec<(Pos, String, String)>,
}

/// Every key the language has. A key that is none of these but is close to a key being
/// looked up (`recrod` for `record`) is read as that key and reported once, so that one
/// typo gives one diagnostic, not a missing key and every reference to what it defined.
const LANGUAGE_KEYS: &[&str] = &[
    "absent",
    "access",
    "algorithm",
    "align",
    "arch",
    "archs",
    "assert",
    "at",
    "bit",
    "bitfields",
    "bits",
    "by",
    "byte",
    "byte_order",
    "check",
    "checksum",
    "checksums",
    "code",
    "collection",
    "commands",
    "composed",
    "constants",
    "count",
    "directories",
    "directory",
    "doc",
    "duplicate",
    "end",
    "entries",
    "entry_size",
    "enum",
    "enum_known",
    "enums",
    "equals",
    "expect",
    "field",
    "fields",
    "file",
    "fill",
    "first",
    "flags",
    "flags_known",
    "for_each",
    "from",
    "gate",
    "hex",
    "includes_header",
    "header",
    "high",
    "in",
    "items",
    "layouts",
    "length",
    "let",
    "list",
    "long",
    "long_bit",
    "low",
    "map",
    "min_len",
    "missing",
    "no_overlap",
    "name",
    "offset",
    "opcode",
    "open",
    "order",
    "param",
    "payload",
    "payload_checksum",
    "prefix",
    "present",
    "range_fits",
    "range",
    "ranges",
    "record",
    "record_checksums",
    "record_fits",
    "records",
    "region",
    "registers",
    "repr",
    "reset",
    "schema",
    "since",
    "size",
    "slots",
    "slots_padding_zero",
    "slots_paired",
    "slots_valid",
    "sorted",
    "stored",
    "stream_checksum",
    "stream_fits",
    "streams",
    "stride",
    "string_fits",
    "string_utf8",
    "strings",
    "struct",
    "structs",
    "table",
    "table_fits",
    "tables",
    "target",
    "to",
    "type",
    "unique",
    "until",
    "validate",
    "value",
    "values",
    "variants",
    "when",
    "within",
    "word",
    "writer",
    "zero",
];

/// Whether `typed` is a likely misspelling of `key`: at most one edit for short keys, two
/// for longer ones (a swap of neighbours counts as one).
fn near_miss(typed: &str, key: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (typed.chars().collect(), key.chars().collect());
    if b.len() < 3 || a.len() < 2 {
        return false;
    }
    let mut dist = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in dist.iter_mut().enumerate() {
        row[0] = i;
    }
    if let Some(first) = dist.first_mut() {
        for (j, v) in first.iter_mut().enumerate() {
            *v = j;
        }
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (dist[i - 1][j] + 1)
                .min(dist[i][j - 1] + 1)
                .min(dist[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(dist[i - 2][j - 2] + 1);
            }
            dist[i][j] = v;
        }
    }
    let limit = if b.len() <= 4 { 1 } else { 2 };
    dist[a.len()][b.len()] <= limit
}

impl<'a> MapReader<'a> {
    pub(crate) fn new(node: &'a Node, what: &str, d: &mut Diags) -> Option<Self> {
        match &node.kind {
            Kind::Map(m) => Some(Self {
                what: what.to_string(),
                pos: node.pos,
                entries: m
                    .iter()
                    .map(|(p, k, v)| (*p, null_key(*p, k, what, d), v, false))
                    .collect(),
                guessed: Vec::new(),
            }),
            other => {
                d.error(
                    node.pos,
                    format!("{what} must be a mapping, found {}", other.describe()),
                );
                None
            }
        }
    }

    pub(crate) fn opt(&mut self, key: &str) -> Option<&'a Node> {
        if let Some(e) = self.entries.iter_mut().find(|e| e.1 == key) {
            e.3 = true;
            return Some(e.2);
        }
        let e = self
            .entries
            .iter_mut()
            .find(|e| !e.3 && !LANGUAGE_KEYS.contains(&e.1) && near_miss(e.1, key))?;
        e.3 = true;
        self.guessed.push((e.0, e.1.to_string(), key.to_string()));
        Some(e.2)
    }

    /// The one of `kinds` this mapping has, or, when it has none, a misspelling of one
    /// (then read as that kind and reported by `finish`).
    pub(crate) fn kind_of(&mut self, kinds: &[&'static str]) -> Option<&'static str> {
        if let Some(k) = kinds
            .iter()
            .find(|k| self.entries.iter().any(|e| e.1 == **k))
        {
            return Some(k);
        }
        for e in &mut self.entries {
            if LANGUAGE_KEYS.contains(&e.1) {
                continue;
            }
            if let Some(k) = kinds.iter().find(|k| near_miss(e.1, k)) {
                self.guessed.push((e.0, e.1.to_string(), (*k).to_string()));
                e.1 = *k;
                return Some(*k);
            }
        }
        None
    }

    pub(crate) fn req(&mut self, key: &str, d: &mut Diags) -> Option<&'a Node> {
        let v = self.opt(key);
        if v.is_none() {
            d.error(
                self.pos,
                format!("{} is missing the key `{key}`", self.what),
            );
        }
        v
    }

    pub(crate) fn finish(self, known: &[&str], d: &mut Diags) {
        for (pos, typed, key) in &self.guessed {
            d.error(
                *pos,
                format!(
                    "unknown key `{typed}` in {}: did you mean `{key}`? (read as `{key}` so that nothing else is reported for it)",
                    self.what
                ),
            );
        }
        let mut seen: Vec<&str> = Vec::new();
        for (pos, key, _, used) in &self.entries {
            if seen.contains(key) {
                d.error(*pos, format!("duplicate key `{key}` in {}", self.what));
            }
            seen.push(key);
            if !used {
                d.error(
                    *pos,
                    format!(
                        "unknown key `{key}` in {} (expected one of: {})",
                        self.what,
                        known.join(", ")
                    ),
                );
            }
        }
    }
}

/// A key YAML read as null: reported, then read as written (so nothing else is reported
/// for it).
fn null_key<'k>(pos: Pos, key: &'k str, what: &str, d: &mut Diags) -> &'k str {
    let Some(raw) = key.strip_prefix(crate::yaml::NULL_KEY) else {
        return key;
    };
    d.error(
        pos,
        format!("a key in {what}: `{raw}` is read by YAML as null (nothing), not a name; quote it: \"{raw}\""),
    );
    raw
}

/// `byte_order: little | big`, when the mapping has one (`true`: big-endian).
/// A checksum's `algorithm` key: one of the built-in algorithms.
pub(crate) fn algorithm(m: &mut MapReader<'_>, d: &mut Diags) -> Option<Algorithm> {
    m.req("algorithm", d).and_then(|n| {
        let s = string(n, "algorithm", d)?;
        match s.as_str() {
            "fnv1a32" => Some(Algorithm::Fnv1a32),
            "crc32" => Some(Algorithm::Crc32),
            _ => {
                d.error(
                    n.pos,
                    format!("unknown checksum algorithm `{s}` (built in: fnv1a32, crc32)"),
                );
                None
            }
        }
    })
}

fn byte_order(m: &mut MapReader<'_>, d: &mut Diags) -> Option<bool> {
    let n = m.opt("byte_order")?;
    match string(n, "byte_order", d)?.as_str() {
        "little" => Some(false),
        "big" => Some(true),
        other => {
            d.error(
                n.pos,
                format!("byte_order `{other}` is not `little` or `big`"),
            );
            None
        }
    }
}

pub(crate) fn string(node: &Node, what: &str, d: &mut Diags) -> Option<String> {
    match &node.kind {
        Kind::Str(s) => Some(s.clone()),
        Kind::Int(i) => Some(i.to_string()),
        _ if node.trap().is_some() => {
            // Reported, then read as written, so that nothing else is reported for it.
            d.error(
                node.pos,
                format!("{what}: {}", node.trap().unwrap_or_default()),
            );
            Some(node.raw.clone())
        }
        other => {
            d.error(
                node.pos,
                format!("{what} must be a string, found {}", other.describe()),
            );
            None
        }
    }
}

pub(crate) fn name(node: &Node, what: &str, d: &mut Diags) -> Option<Name> {
    let text = string(node, what, d)?;
    let ok = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !text.starts_with(|c: char| c.is_ascii_digit());
    if !ok {
        d.error(
            node.pos,
            format!("{what} `{text}` is not a valid name (letters, digits, `_`)"),
        );
        return None;
    }
    Some(Name {
        text,
        pos: node.pos,
    })
}

pub(crate) fn uint(node: &Node, what: &str, d: &mut Diags) -> Option<u64> {
    let v = match &node.kind {
        Kind::Int(i) => u64::try_from(*i).ok(),
        Kind::Str(s) => {
            let s = s.trim().replace('_', "");
            if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                u64::from_str_radix(h, 16).ok()
            } else {
                s.parse().ok()
            }
        }
        _ => None,
    };
    if v.is_none() {
        d.error(
            node.pos,
            format!("{what} must be an unsigned integer that fits 64 bits"),
        );
    }
    v
}

pub(crate) fn boolean(node: &Node, what: &str, d: &mut Diags) -> Option<bool> {
    match node.kind {
        Kind::Bool(b) => Some(b),
        _ => {
            d.error(node.pos, format!("{what} must be true or false"));
            None
        }
    }
}

pub(crate) fn doc(m: &mut MapReader<'_>, d: &mut Diags) -> String {
    m.opt("doc")
        .and_then(|n| string(n, "doc", d))
        .unwrap_or_default()
        .trim()
        .to_string()
}

pub(crate) fn expr_at(node: &Node, what: &str, d: &mut Diags) -> Option<ExprAt> {
    let text = match &node.kind {
        Kind::Int(i) => i.to_string(),
        Kind::Str(s) => s.clone(),
        _ if node.trap().is_some() => {
            d.error(
                node.pos,
                format!("{what}: {}", node.trap().unwrap_or_default()),
            );
            node.raw.clone()
        }
        other => {
            d.error(
                node.pos,
                format!("{what} must be an expression, found {}", other.describe()),
            );
            return None;
        }
    };
    match expr::parse(&text) {
        Ok(expr) => Some(ExprAt {
            expr,
            text,
            pos: node.pos,
        }),
        Err(msg) => {
            d.error(node.pos, format!("{what}: cannot parse `{text}`: {msg}"));
            None
        }
    }
}

pub(crate) fn seq<'a>(node: &'a Node, what: &str, d: &mut Diags) -> &'a [Node] {
    match &node.kind {
        Kind::Seq(items) => items,
        Kind::Null => &[],
        other => {
            d.error(
                node.pos,
                format!("{what} must be a sequence, found {}", other.describe()),
            );
            &[]
        }
    }
}

/// Iterate a mapping whose keys are names (`constants:`, `enums:`...).
pub(crate) fn named_entries<'a>(
    node: &'a Node,
    what: &str,
    d: &mut Diags,
) -> Vec<(Name, &'a Node)> {
    match &node.kind {
        Kind::Map(m) => m
            .iter()
            .map(|(p, k, v)| {
                (
                    Name {
                        text: null_key(*p, k, what, d).to_string(),
                        pos: *p,
                    },
                    v,
                )
            })
            .collect(),
        Kind::Null => Vec::new(),
        other => {
            d.error(
                node.pos,
                format!(
                    "{what} must be a mapping of names, found {}",
                    other.describe()
                ),
            );
            Vec::new()
        }
    }
}

pub(crate) fn int_ty(node: &Node, what: &str, d: &mut Diags) -> Option<IntTy> {
    let s = string(node, what, d)?;
    let t = IntTy::parse(&s);
    if t.is_none() {
        d.error(
            node.pos,
            format!("{what} `{s}` is not an integer type (u8, u16, u32, u64, i8, i16, i32, i64)"),
        );
    }
    t
}

pub(crate) fn type_ref(node: &Node, d: &mut Diags) -> Option<TypeRef> {
    let s = string(node, "type", d)?;
    if let Some(t) = IntTy::parse(&s) {
        return Some(TypeRef::Int(t));
    }
    match s.as_str() {
        "f32" => return Some(TypeRef::Float(false)),
        "f64" => return Some(TypeRef::Float(true)),
        _ => {}
    }
    for (prefix, make) in [
        ("bytes[", TypeRef::Bytes as fn(u64) -> TypeRef),
        ("str[", TypeRef::Str),
    ] {
        if let Some(rest) = s.strip_prefix(prefix) {
            let n = rest
                .strip_suffix(']')
                .and_then(|n| n.trim().parse::<u64>().ok());
            return match n {
                Some(n) if n > 0 => Some(make(n)),
                _ => {
                    d.error(
                        node.pos,
                        format!("type `{s}` needs a positive byte count, as `{prefix}16]`"),
                    );
                    None
                }
            };
        }
    }
    if let Some((elem, n)) = s.strip_suffix(']').and_then(|x| x.split_once('['))
        && let Some(t) = IntTy::parse(elem)
    {
        return match n.trim().parse::<u64>() {
            Ok(n) if n > 0 => Some(TypeRef::Array(t, n)),
            _ => {
                d.error(
                    node.pos,
                    format!("type `{s}` needs a positive element count, as `{elem}[4]`"),
                );
                None
            }
        };
    }
    if s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Some(TypeRef::Named(s));
    }
    if let Some((elem, n)) = s.strip_suffix(']').and_then(|x| x.split_once('['))
        && elem.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && elem.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return match n.trim().parse::<u64>() {
            Ok(n) if n > 0 => Some(TypeRef::NamedArray(elem.to_string(), n)),
            _ => {
                d.error(
                    node.pos,
                    format!("type `{s}` needs a positive element count, as `{elem}[4]`"),
                );
                None
            }
        };
    }
    d.error(
        node.pos,
        format!("type `{s}` is not a type (u8..u64, i8..i64, bytes[N], str[N], u32[N], or an enum, flags or bitfields name)"),
    );
    None
}

/// Build the typed schema from the tree. Returns `None` only when the root is unusable;
/// otherwise whatever could be read, with every problem recorded in `d`.
pub fn from_tree(root: &Node, d: &mut Diags) -> Option<Schema> {
    let mut m = MapReader::new(root, "the schema", d)?;
    let sname = m.req("schema", d).and_then(|n| name(n, "schema", d));
    let sdoc = doc(&mut m, d);

    let mut constants = Vec::new();
    if let Some(n) = m.opt("constants") {
        for (cname, v) in named_entries(n, "constants", d) {
            let (value, value_pos, ty, cdoc) = match &v.kind {
                Kind::Map(_) => {
                    let Some(mut cm) = MapReader::new(v, &format!("constant `{}`", cname.text), d)
                    else {
                        continue;
                    };
                    let value = cm.req("value", d);
                    let vp = value.map(|n| n.pos).unwrap_or(v.pos);
                    let value = value.and_then(|n| uint(n, "value", d));
                    let ty = cm
                        .opt("type")
                        .and_then(|n| int_ty(n, "type", d))
                        .unwrap_or(IntTy::U32);
                    let cdoc = doc(&mut cm, d);
                    cm.finish(&["value", "type", "doc"], d);
                    (value, vp, ty, cdoc)
                }
                _ => (
                    uint(v, "constant value", d),
                    v.pos,
                    IntTy::U32,
                    String::new(),
                ),
            };
            if let Some(value) = value {
                constants.push(Const {
                    name: cname,
                    ty,
                    value,
                    value_pos,
                    doc: cdoc,
                });
            }
        }
    }

    let mut enums = Vec::new();
    if let Some(n) = m.opt("enums") {
        for (ename, v) in named_entries(n, "enums", d) {
            let Some(mut em) = MapReader::new(v, &format!("enum `{}`", ename.text), d) else {
                continue;
            };
            let repr = em.req("repr", d).and_then(|n| int_ty(n, "repr", d));
            let open = em
                .opt("open")
                .and_then(|n| boolean(n, "open", d))
                .unwrap_or(false);
            let edoc = doc(&mut em, d);
            let mut values = Vec::new();
            if let Some(vs) = em.req("values", d) {
                for (vname, vv) in named_entries(vs, "values", d) {
                    let (value, vp, vdoc) = match &vv.kind {
                        Kind::Map(_) => {
                            let Some(mut vm) =
                                MapReader::new(vv, &format!("value `{}`", vname.text), d)
                            else {
                                continue;
                            };
                            let value = vm.req("value", d);
                            let vp = value.map(|n| n.pos).unwrap_or(vv.pos);
                            let value = value.and_then(|n| uint(n, "value", d));
                            let vdoc = doc(&mut vm, d);
                            vm.finish(&["value", "doc"], d);
                            (value, vp, vdoc)
                        }
                        _ => (uint(vv, "enum value", d), vv.pos, String::new()),
                    };
                    if let Some(value) = value {
                        values.push(EnumValue {
                            name: vname,
                            value,
                            value_pos: vp,
                            doc: vdoc,
                        });
                    }
                }
            }
            em.finish(&["repr", "open", "doc", "values"], d);
            if let Some(repr) = repr {
                enums.push(Enum {
                    name: ename,
                    repr,
                    open,
                    doc: edoc,
                    values,
                });
            }
        }
    }

    let mut flags = Vec::new();
    if let Some(n) = m.opt("flags") {
        for (fname, v) in named_entries(n, "flags", d) {
            let Some(mut fm) = MapReader::new(v, &format!("flags `{}`", fname.text), d) else {
                continue;
            };
            let repr = fm.req("repr", d).and_then(|n| int_ty(n, "repr", d));
            let fdoc = doc(&mut fm, d);
            let mut bits = Vec::new();
            if let Some(bs) = fm.req("bits", d) {
                for (bname, bv) in named_entries(bs, "bits", d) {
                    let (bit, bp, bdoc) = match &bv.kind {
                        Kind::Map(_) => {
                            let Some(mut bm) =
                                MapReader::new(bv, &format!("bit `{}`", bname.text), d)
                            else {
                                continue;
                            };
                            let bit = bm.req("bit", d);
                            let bp = bit.map(|n| n.pos).unwrap_or(bv.pos);
                            let bit = bit.and_then(|n| uint(n, "bit", d));
                            let bdoc = doc(&mut bm, d);
                            bm.finish(&["bit", "doc"], d);
                            (bit, bp, bdoc)
                        }
                        _ => (uint(bv, "bit number", d), bv.pos, String::new()),
                    };
                    if let Some(bit) = bit {
                        bits.push(FlagBit {
                            name: bname,
                            bit,
                            bit_pos: bp,
                            doc: bdoc,
                        });
                    }
                }
            }
            fm.finish(&["repr", "doc", "bits"], d);
            if let Some(repr) = repr {
                flags.push(Flags {
                    name: fname,
                    repr,
                    doc: fdoc,
                    bits,
                });
            }
        }
    }

    let bitfields = m
        .opt("bitfields")
        .map(|n| ext::bitfields(n, d))
        .unwrap_or_default();

    let schema_big = byte_order(&mut m, d).unwrap_or(false);
    let mut structs = Vec::new();
    if let Some(n) = m.opt("structs") {
        for (stname, v) in named_entries(n, "structs", d) {
            let Some(mut sm) = MapReader::new(v, &format!("struct `{}`", stname.text), d) else {
                continue;
            };
            let sdoc = doc(&mut sm, d);
            let struct_big = byte_order(&mut sm, d).unwrap_or(schema_big);
            let size = sm
                .opt("size")
                .and_then(|n| uint(n, "size", d).map(|v| (v, n.pos)));
            let mut fields = Vec::new();
            if let Some(fs) = sm.req("fields", d) {
                for f in seq(fs, "fields", d) {
                    let Some(mut fm) = MapReader::new(f, "a field", d) else {
                        continue;
                    };
                    let fname = fm.req("name", d).and_then(|n| name(n, "field name", d));
                    let ty_node = fm.req("type", d);
                    let ty = ty_node.and_then(|n| type_ref(n, d));
                    let offset = fm
                        .opt("offset")
                        .and_then(|n| uint(n, "offset", d).map(|v| (v, n.pos)));
                    let since = fm
                        .opt("since")
                        .and_then(|n| uint(n, "since", d).map(|v| (v, n.pos)));
                    let until = fm
                        .opt("until")
                        .and_then(|n| uint(n, "until", d).map(|v| (v, n.pos)));
                    let fdoc = doc(&mut fm, d);
                    let order_pos = fm.entries.iter().find(|e| e.1 == "byte_order").map(|e| e.0);
                    let big = byte_order(&mut fm, d).unwrap_or(struct_big);
                    fm.finish(
                        &[
                            "name",
                            "type",
                            "offset",
                            "since",
                            "until",
                            "doc",
                            "byte_order",
                        ],
                        d,
                    );
                    if let (Some(fname), Some(ty), Some(tn)) = (fname, ty, ty_node) {
                        fields.push(FieldDef {
                            name: fname,
                            ty,
                            ty_pos: tn.pos,
                            offset,
                            since,
                            until,
                            doc: fdoc,
                            big,
                            order_pos,
                        });
                    }
                }
            }
            let composed = sm
                .opt("composed")
                .map(|n| ext::composed(n, d))
                .unwrap_or_default();
            sm.finish(&["doc", "size", "fields", "composed", "byte_order"], d);
            structs.push(Struct {
                name: stname,
                doc: sdoc,
                size,
                fields,
                composed,
            });
        }
    }

    let registers = m
        .opt("registers")
        .and_then(|n| crate::schema::regs::block(n, d));
    let commands = m
        .opt("commands")
        .and_then(|n| crate::schema::commands::space(n, schema_big, d));
    // A schema with only registers (or commands) describes a device, not bytes: it needs
    // no `file`.
    let device = registers.is_some() || commands.is_some();
    let file_node = if device {
        m.opt("file")
    } else {
        m.req("file", d)
    };
    let has_file = file_node.is_some() || !device;
    let mut file = match file_node {
        Some(n) => file_def(n, d),
        None => device.then(File::default),
    };
    if let Some(f) = &mut file {
        crate::schema::strings::default_order(&mut f.strings, schema_big);
    }
    m.finish(
        &[
            "schema",
            "doc",
            "constants",
            "enums",
            "flags",
            "bitfields",
            "structs",
            "file",
            "byte_order",
            "registers",
            "commands",
        ],
        d,
    );
    Some(Schema {
        name: sname?,
        doc: sdoc,
        constants,
        enums,
        flags,
        bitfields,
        structs,
        file: file?,
        has_file,
        registers,
        commands,
    })
}

fn file_def(node: &Node, d: &mut Diags) -> Option<File> {
    file_body(node, "`file`", false, d)
}

/// A file layout: the top-level `file`, or (`variant` true) one of its `variants`, which
/// may also have `when`.
pub(crate) fn file_body(node: &Node, what: &str, variant: bool, d: &mut Diags) -> Option<File> {
    let mut m = MapReader::new(node, what, d)?;
    let fname = m.req("name", d).and_then(|n| name(n, "file name", d));
    let fdoc = doc(&mut m, d);
    let (header, header_code) = match m.req("header", d) {
        Some(h) => {
            let mut hm = MapReader::new(h, "`header`", d)?;
            let s = hm
                .req("struct", d)
                .and_then(|n| name(n, "header struct", d));
            let c = hm.req("code", d).and_then(|n| name(n, "header code", d));
            hm.finish(&["struct", "code"], d);
            (s, c)
        }
        None => (None, None),
    };
    let mut tables = Vec::new();
    if let Some(ts) = m.opt("tables") {
        for (tname, v) in named_entries(ts, "tables", d) {
            let Some(mut tm) = MapReader::new(v, &format!("table `{}`", tname.text), d) else {
                continue;
            };
            let tdoc = doc(&mut tm, d);
            let record = tm.req("record", d).and_then(|n| name(n, "record", d));
            let at = tm.req("at", d).and_then(|n| expr_at(n, "at", d));
            let count = tm.req("count", d).and_then(|n| expr_at(n, "count", d));
            let stride = tm.req("stride", d).and_then(|n| expr_at(n, "stride", d));
            tm.finish(&["doc", "record", "at", "count", "stride"], d);
            if let (Some(record), Some(at), Some(count), Some(stride)) = (record, at, count, stride)
            {
                tables.push(Table {
                    name: tname,
                    doc: tdoc,
                    record,
                    at,
                    count,
                    stride,
                });
            }
        }
    }
    let mut ranges = Vec::new();
    if let Some(rs) = m.opt("ranges") {
        for (rname, v) in named_entries(rs, "ranges", d) {
            let Some(mut rm) = MapReader::new(v, &format!("range `{}`", rname.text), d) else {
                continue;
            };
            let rdoc = doc(&mut rm, d);
            let table = rm.opt("table").and_then(|n| name(n, "table", d));
            let when = rm.opt("when").and_then(|n| expr_at(n, "when", d));
            let offset = rm.req("offset", d).and_then(|n| expr_at(n, "offset", d));
            let length = rm.req("length", d).and_then(|n| expr_at(n, "length", d));
            let present = rm.opt("present").and_then(|n| name(n, "present", d));
            let absent = rm.opt("absent").and_then(|n| name(n, "absent", d));
            rm.finish(
                &[
                    "doc", "table", "when", "offset", "length", "present", "absent",
                ],
                d,
            );
            if let (Some(offset), Some(length)) = (offset, length) {
                ranges.push(Range {
                    name: rname,
                    doc: rdoc,
                    table,
                    when,
                    offset,
                    length,
                    present,
                    absent,
                });
            }
        }
    }
    let mut checksums = Vec::new();
    if let Some(cs) = m.opt("checksums") {
        for (cname, v) in named_entries(cs, "checksums", d) {
            let Some(mut cm) = MapReader::new(v, &format!("checksum `{}`", cname.text), d) else {
                continue;
            };
            let cdoc = doc(&mut cm, d);
            let algorithm = algorithm(&mut cm, d);
            let from = cm.req("from", d).and_then(|n| expr_at(n, "from", d));
            let to = cm.req("to", d).and_then(|n| expr_at(n, "to", d));
            let stored = cm.req("stored", d).and_then(|n| expr_at(n, "stored", d));
            cm.finish(&["doc", "algorithm", "from", "to", "stored"], d);
            if let (Some(algorithm), Some(from), Some(to), Some(stored)) =
                (algorithm, from, to, stored)
            {
                checksums.push(Checksum {
                    name: cname,
                    doc: cdoc,
                    algorithm,
                    from,
                    to,
                    stored,
                });
            }
        }
    }
    let validate = m.opt("validate").map(|n| steps(n, d)).unwrap_or_default();
    let writer = m.opt("writer").and_then(|n| {
        let mut wm = MapReader::new(n, "`writer`", d)?;
        let order = wm
            .req("order", d)
            .map(|o| {
                seq(o, "order", d)
                    .iter()
                    .filter_map(|n| name(n, "order item", d))
                    .collect()
            })
            .unwrap_or_default();
        let align_node = wm.req("align", d);
        let align = align_node.and_then(|n| uint(n, "align", d));
        let payload_align = wm
            .opt("payload_align")
            .and_then(|n| name(n, "payload_align", d));
        wm.finish(&["order", "align", "payload_align"], d);
        Some(Writer {
            order,
            align: align?,
            align_pos: align_node?.pos,
            payload_align,
        })
    });
    let ext = ext::file_ext(&mut m, variant, d);
    let strings = crate::schema::strings::load(m.opt("strings"), d);
    let streams = crate::schema::streams::load(&mut m, d);
    let mut known = vec![
        "strings",
        crate::schema::streams::FILE_KEY,
        "name",
        "doc",
        "header",
        "tables",
        "ranges",
        "checksums",
        "validate",
        "writer",
    ];
    known.extend(ext::FILE_KEYS);
    if variant {
        known.push("when");
    }
    m.finish(&known, d);
    Some(File {
        name: fname?,
        doc: fdoc,
        header: header?,
        header_code: header_code?,
        tables,
        ranges,
        checksums,
        validate,
        writer,
        ext,
        strings,
        streams,
    })
}

const STEP_KINDS: &[&str] = &[
    "let",
    "sorted",
    "unique",
    "no_overlap",
    "stream_fits",
    "stream_checksum",
    "min_len",
    "expect",
    "assert",
    "table_fits",
    "range_fits",
    "checksum",
    "flags_known",
    "enum_known",
    "for_each",
];

pub(crate) fn steps(node: &Node, d: &mut Diags) -> Vec<Step> {
    let mut out = Vec::new();
    for s in seq(node, "validate", d) {
        let Some(mut sm) = MapReader::new(s, "a validation step", d) else {
            continue;
        };
        let when = sm.opt("when").and_then(|n| expr_at(n, "when", d));
        let mut all_kinds = STEP_KINDS.to_vec();
        all_kinds.extend(ext::STEP_KINDS);
        all_kinds.extend(crate::schema::strings::STEP_KINDS);
        all_kinds.push(crate::schema::fill::STEP_KIND);
        let kind = sm.kind_of(&all_kinds).filter(|k| STEP_KINDS.contains(k));
        let Some(kind) = kind else {
            if sm
                .entries
                .iter()
                .any(|e| e.1 == crate::schema::fill::STEP_KIND)
            {
                if let Some(w) = &when {
                    d.error(w.pos, "`when` applies to min_len, expect, assert, checksum and flags_known steps, not to fill");
                }
                if let Some(step) = crate::schema::fill::step(sm, d) {
                    out.push(Step::Fill(step));
                }
                continue;
            }
            if let Some(sk) = crate::schema::strings::STEP_KINDS
                .iter()
                .find(|k| sm.entries.iter().any(|e| e.1 == **k))
                .copied()
            {
                if let Some(w) = &when {
                    d.error(w.pos, format!("`when` applies to min_len, expect, assert, checksum and flags_known steps, not to {sk}"));
                }
                if let Some(step) = crate::schema::strings::step(sk, sm, d) {
                    out.push(Step::Str(step));
                }
                continue;
            }
            if let Some(ek) = ext::STEP_KINDS
                .iter()
                .find(|k| sm.entries.iter().any(|e| e.1 == **k))
                .copied()
            {
                if let Some(w) = &when {
                    d.error(w.pos, format!("`when` applies to min_len, expect, assert, checksum and flags_known steps, not to {ek}"));
                }
                if let Some(step) = ext::step(ek, sm, d) {
                    out.push(Step::Ext(step));
                }
                continue;
            }
            let mut all = STEP_KINDS.to_vec();
            all.extend(ext::STEP_KINDS);
            all.extend(crate::schema::strings::STEP_KINDS);
            all.push(crate::schema::fill::STEP_KIND);
            d.error(
                s.pos,
                format!("a validation step needs one of: {}", all.join(", ")),
            );
            continue;
        };
        let code = if kind == "for_each" || kind == "let" {
            None
        } else {
            sm.req("code", d).and_then(|n| name(n, "code", d))
        };
        let step = match kind {
            "sorted" | "unique" | "no_overlap" => {
                let target = sm.opt(kind).and_then(|n| name(n, kind, d));
                let by = if kind == "no_overlap" {
                    None
                } else {
                    sm.req("by", d).and_then(|n| expr_at(n, "by", d))
                };
                let okind = match kind {
                    "sorted" => OrderKind::Sorted,
                    "unique" => OrderKind::Unique,
                    _ => OrderKind::NoOverlap,
                };
                match (code, target) {
                    (Some(code), Some(target)) if kind == "no_overlap" || by.is_some() => {
                        Some(Step::Order {
                            code,
                            kind: okind,
                            target,
                            by,
                        })
                    }
                    _ => None,
                }
            }
            "stream_fits" | "stream_checksum" => {
                let target = sm.opt(kind).and_then(|n| name(n, kind, d));
                let skind = if kind == "stream_fits" {
                    crate::schema::streams::StreamStep::Fits
                } else {
                    crate::schema::streams::StreamStep::Checksum
                };
                code.zip(target).map(|(code, stream)| Step::StreamFits {
                    code,
                    stream,
                    kind: skind,
                })
            }
            "let" => {
                let name = sm.opt("let").and_then(|n| name(n, "let", d));
                let value = sm.req("value", d).and_then(|n| expr_at(n, "value", d));
                name.zip(value)
                    .map(|(name, value)| Step::Let { name, value })
            }
            "min_len" => {
                let min = sm.opt("min_len").and_then(|n| expr_at(n, "min_len", d));
                let field = sm.opt("field").and_then(|n| name(n, "field", d));
                min.zip(code)
                    .map(|(min, code)| Step::MinLen { code, min, field })
            }
            "expect" => {
                let field = sm.opt("expect").and_then(|n| expr_at(n, "expect", d));
                let equals = sm.req("equals", d).and_then(|n| expr_at(n, "equals", d));
                match (code, field, equals) {
                    (Some(code), Some(field), Some(equals)) => Some(Step::Expect {
                        code,
                        field,
                        equals,
                    }),
                    _ => None,
                }
            }
            "assert" => {
                let expr = sm.opt("assert").and_then(|n| expr_at(n, "assert", d));
                let field = sm.req("field", d).and_then(|n| expr_at(n, "field", d));
                match (code, expr, field) {
                    (Some(code), Some(expr), Some(field)) => {
                        Some(Step::Assert { code, expr, field })
                    }
                    _ => None,
                }
            }
            "table_fits" | "range_fits" => {
                let target = sm.opt(kind).and_then(|n| name(n, kind, d));
                let within = sm.req("within", d).and_then(|n| expr_at(n, "within", d));
                match (code, target, within) {
                    (Some(code), Some(t), Some(within)) if kind == "table_fits" => {
                        Some(Step::TableFits {
                            code,
                            table: t,
                            within,
                        })
                    }
                    (Some(code), Some(t), Some(within)) => Some(Step::RangeFits {
                        code,
                        range: t,
                        within,
                    }),
                    _ => None,
                }
            }
            "checksum" => {
                let c = sm.opt("checksum").and_then(|n| name(n, "checksum", d));
                code.zip(c)
                    .map(|(code, checksum)| Step::Checksum { code, checksum })
            }
            "flags_known" | "enum_known" => {
                let field = sm.opt(kind).and_then(|n| expr_at(n, kind, d));
                code.zip(field).map(|(code, field)| {
                    if kind == "flags_known" {
                        Step::FlagsKnown { code, field }
                    } else {
                        Step::EnumKnown { code, field }
                    }
                })
            }
            _ => {
                let table = sm.opt("for_each").and_then(|n| name(n, "for_each", d));
                let inner = sm
                    .req("validate", d)
                    .map(|n| steps(n, d))
                    .unwrap_or_default();
                table.map(|table| Step::ForEach {
                    table,
                    steps: inner,
                })
            }
        };
        let known: &[&str] = match kind {
            "let" => &["let", "value"],
            "sorted" => &["sorted", "by", "code"],
            "unique" => &["unique", "by", "code"],
            "no_overlap" => &["no_overlap", "code"],
            "stream_fits" => &["stream_fits", "code"],
            "stream_checksum" => &["stream_checksum", "code"],
            "min_len" => &["min_len", "code", "field"],
            "expect" => &["expect", "equals", "code"],
            "assert" => &["assert", "field", "code"],
            "table_fits" => &["table_fits", "within", "code"],
            "range_fits" => &["range_fits", "within", "code"],
            "checksum" => &["checksum", "code"],
            "flags_known" => &["flags_known", "code"],
            "enum_known" => &["enum_known", "code"],
            _ => &["for_each", "validate"],
        };
        sm.finish(known, d);
        if let Some(step) = step {
            out.push(match when {
                Some(when) => Step::When {
                    when,
                    step: Box::new(step),
                },
                None => step,
            });
        }
    }
    out
}
