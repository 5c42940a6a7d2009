//! The typed schema, built from the positioned YAML tree. Every structural mistake (unknown
//! key, missing key, wrong kind of value, bad expression) is collected, not just the first.
//!
//! This module holds the leaf types (names, integer types, enums, flags, fields, tables,
//! ranges, checksums) and the YAML readers every construct's loader uses; it imports no
//! other schema module. Above it: one module per construct and `top.rs` (the aggregate types
//! and [`top::from_tree`]).

pub(crate) mod commands;
pub(crate) mod ext;
pub(crate) mod fill;
pub(crate) mod regs;
pub(crate) mod streams;
pub(crate) mod strings;
pub(crate) mod top;

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
    /// by name, stored back to back (`check/nested.rs`).
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
    /// In the file's byte order, chosen when the file is read (the schema's `byte_order: {
    /// big_when: COND }`, and no `byte_order` on the field or its struct): `big` is then
    /// unused, and the views and the interpreter read the order the header chose.
    pub file_order: bool,
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
    /// The name of the type its accessor returns (`type_name: Segments32`), when not the
    /// table's name in UpperCamel: two variants' tables of one name need two.
    pub type_name: Option<Name>,
}

impl Table {
    /// The type its accessor returns: `type_name`, or the table's name in UpperCamel.
    #[must_use]
    pub fn type_name(&self) -> String {
        self.type_name
            .as_ref()
            .map_or_else(|| crate::names::camel(&self.name.text), |n| n.text.clone())
    }
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

/// Checksum algorithms built in. What each is lives here once: its name in a schema, what it
/// computes (the interpreter's [`Algorithm::compute`]) and the core function generated code
/// calls ([`Algorithm::core_fn`]); every checksum construct (file, per record, per stream
/// record, writers) takes it from here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// FNV-1a 32-bit (offset basis 0x811C9DC5, prime 0x01000193).
    Fnv1a32,
    /// CRC-32 (IEEE, reflected, as zlib).
    Crc32,
    /// The wrapping sum of big-endian 32-bit words, zero-padded (OpenType's table checksum).
    Sum32Be,
}

impl Algorithm {
    /// Every built-in algorithm with its name in a schema.
    pub const ALL: [(&'static str, Algorithm); 3] = [
        ("fnv1a32", Algorithm::Fnv1a32),
        ("crc32", Algorithm::Crc32),
        ("sum32be", Algorithm::Sum32Be),
    ];

    /// The algorithm a schema names `s`.
    #[must_use]
    pub fn by_name(s: &str) -> Option<Algorithm> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|(_, a)| *a)
    }

    /// Its name in a schema.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, a)| *a == self)
            .map_or("", |(n, _)| n)
    }

    /// The names, for a diagnostic (`fnv1a32, crc32, ...`).
    #[must_use]
    pub fn names() -> String {
        Self::ALL.map(|(n, _)| n).join(", ")
    }

    /// The checksum of `d`, as generated code computes it (the interpreter's).
    #[must_use]
    pub fn compute(self, d: &[u8]) -> u32 {
        match self {
            Algorithm::Fnv1a32 => npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, d),
            Algorithm::Crc32 => npuschema_core::crc32(0, d),
            Algorithm::Sum32Be => npuschema_core::sum32_be(d),
        }
    }

    /// The `npuschema_core` call generated code makes for it, over the bytes `d` (a
    /// `&[u8]` expression): a `u32`.
    #[must_use]
    pub fn core_fn(self, d: &proc_macro2::TokenStream) -> proc_macro2::TokenStream {
        match self {
            Algorithm::Fnv1a32 => quote::quote!(__rt::fnv1a32(__rt::FNV1A32_OFFSET_BASIS, #d)),
            Algorithm::Crc32 => quote::quote!(__rt::crc32(0, #d)),
            Algorithm::Sum32Be => quote::quote!(__rt::sum32_be(#d)),
        }
    }

    /// The `npuschema_core` call over the bytes `d` at offset `start` of the file with the
    /// bytes of `zeros` (a `&[(u64, u64)]` of places and widths) as zero: a `u32`.
    #[must_use]
    pub fn core_zeroed_fn(
        self,
        d: &proc_macro2::TokenStream,
        start: &proc_macro2::TokenStream,
        zeros: &proc_macro2::TokenStream,
    ) -> proc_macro2::TokenStream {
        let f = match self {
            Algorithm::Fnv1a32 => quote::quote!(fnv1a32_zeroed),
            Algorithm::Crc32 => quote::quote!(crc32_zeroed),
            Algorithm::Sum32Be => quote::quote!(sum32_be_zeroed),
        };
        quote::quote!(__rt::#f(#d, #start, #zeros))
    }
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
    /// The field that stores the value (`header.checksum`), or, with `equals`, the value
    /// the sum must reach (`equals: 0xB1B0AFBA`).
    pub stored: ExprAt,
    /// `stored` is a value the sum must reach (`equals:`), not a field holding it.
    pub equals: bool,
    /// With `equals`: the field an error names (the one that makes the sum come out:
    /// OpenType's checkSumAdjustment).
    pub field: Option<ExprAt>,
    /// Fields whose bytes inside the span count as zero (`zero: [head.checksum_adjustment]`:
    /// OpenType's `head` table is summed with its checkSumAdjustment as zero).
    pub zero: Vec<ExprAt>,
    /// One per record of this table or stream (`table: centrals`): `from`, `to` and `stored`
    /// in that collection's record scope, checked by a `checksum` step in its `for_each`
    /// (ZIP's CRC-32 of a stored entry's data). Kept in `File::record_checksums`.
    pub table: Option<Name>,
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
    /// (`lower/writer.rs`).
    pub payload_align: Option<Name>,
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
    "back",
    "bit",
    "bitfields",
    "bits",
    "by",
    "byte",
    "byte_order",
    "big_when",
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
    "same_bytes",
    "as",
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
    "max",
    "min_len",
    "missing",
    "no_overlap",
    "name",
    "offset",
    "opcode",
    "open",
    "order",
    "owned_apart",
    "ownership",
    "param",
    "parts",
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
    "search",
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
    "too_many",
    "type",
    "type_name",
    "unique",
    "until",
    "validate",
    "value",
    "values",
    "variants",
    "when",
    "where",
    "within",
    "word",
    "writer",
    "zero",
];

/// The one of `names` that `typed` is a likely misspelling of (the first such), for a name
/// that does not resolve: "did you mean `it`?".
pub(crate) fn did_you_mean<'n>(
    typed: &str,
    names: impl IntoIterator<Item = &'n str>,
) -> Option<&'n str> {
    names
        .into_iter()
        .find(|n| *n != typed && near_miss(typed, n))
}

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
        match Algorithm::by_name(&s) {
            Some(a) => Some(a),
            None => {
                d.error(
                    n.pos,
                    format!(
                        "unknown checksum algorithm `{s}` (built in: {})",
                        Algorithm::names()
                    ),
                );
                None
            }
        }
    })
}

/// The schema's `byte_order`: `little`, `big`, or `{ big_when: COND }` (the file's order,
/// chosen by a condition over the header's fields when the file is read): `(big, Some(COND))`
/// for the last.
pub(crate) fn schema_byte_order(m: &mut MapReader<'_>, d: &mut Diags) -> (bool, Option<ExprAt>) {
    let Some(n) = m.opt("byte_order") else {
        return (false, None);
    };
    if let Kind::Map(_) = &n.kind {
        let Some(mut bm) = MapReader::new(n, "`byte_order`", d) else {
            return (false, None);
        };
        let cond = bm
            .req("big_when", d)
            .and_then(|x| expr_at(x, "big_when", d));
        bm.finish(&["big_when"], d);
        return (false, cond);
    }
    match string(n, "byte_order", d).as_deref() {
        Some("little") | None => (false, None),
        Some("big") => (true, None),
        Some(other) => {
            d.error(
                n.pos,
                format!("byte_order `{other}` is not `little`, `big` or `{{ big_when: COND }}`"),
            );
            (false, None)
        }
    }
}

fn byte_order(m: &mut MapReader<'_>, d: &mut Diags) -> Option<bool> {
    byte_order_value(m.opt("byte_order")?, d)
}

/// A `byte_order` key's value (a struct's, a string's, a stream checksum's, a chain link's,
/// a command set's): `Some(true)` for `big`, `Some(false)` for `little`, else a diagnostic
/// and `None`.
pub(crate) fn byte_order_value(n: &Node, d: &mut Diags) -> Option<bool> {
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

/// A bit span written `N` or `LO..HI` (instruction and register fields): its text and, when
/// it reads as one, `(lo, hi)` (the caller checks the bounds and says what they are); `None`
/// (with a diagnostic) when it is neither a number nor a string.
pub(crate) fn bit_span(
    node: &Node,
    what: &str,
    d: &mut Diags,
) -> Option<(String, Option<(u64, u64)>)> {
    let text = match &node.kind {
        Kind::Int(i) => i.to_string(),
        Kind::Str(s) => s.clone(),
        other => {
            d.error(
                node.pos,
                format!("{what} must be `N` or `LO..HI`, found {}", other.describe()),
            );
            return None;
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
    Some((text, parsed))
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
        // As written (`0x20`), when that reads as the same number.
        Kind::Int(i) => match expr::parse(&node.raw) {
            Ok(expr::Expr::Num(v)) if i128::from(v) == *i => node.raw.clone(),
            _ => i.to_string(),
        },
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

/// Each named definition of `node` (`what`: `tables`, ...), read by `one`. A definition
/// `one` cannot read (and says why) is named in `dropped`, and what it said becomes the
/// mistake every later use of the name follows from (`Diags::caused`): `for_each: t` after
/// a table `t` missing a key is not another mistake.
pub(crate) fn definitions<'a, T>(
    node: &'a Node,
    what: &str,
    d: &mut Diags,
    dropped: &mut Vec<Name>,
    mut one: impl FnMut(Name, &'a Node, &mut Diags) -> Option<T>,
) -> Vec<T> {
    let mut out = Vec::new();
    for (name, v) in named_entries(node, what, d) {
        let since = d.items.len();
        let kept = name.clone();
        match one(name, v, d) {
            Some(t) => out.push(t),
            None => left_out(kept, since, d, dropped),
        }
    }
    out
}

/// Definition `name` could not be read, as the diagnostics from `since` on say
/// (`definitions`).
pub(crate) fn left_out(name: Name, since: usize, d: &mut Diags, dropped: &mut Vec<Name>) {
    let unread = format!("`{}`", name.text);
    d.caused(since, &dropped_cause(&name.text), Some(&unread));
    dropped.push(name);
}

/// The key `Diags::caused` folds by for a definition that could not be read: the message
/// of a use of it.
#[must_use]
pub fn dropped_cause(name: &str) -> String {
    format!("`{name}` is left out: its definition could not be read")
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
