//! Semantic checks over the typed schema, and name resolution shared with the emitter.
//!
//! This module is the checked model every check, emitter and the interpreter use (what a
//! field's type turned out to be, what a name resolves to, [`Checked`]); it imports no other
//! check module. Above it: `lookup.rs` (queries on the loaded file that resolution needs),
//! one module per construct, `expr.rs` (name resolution and the expression checker) and
//! `top.rs` ([`top::check`], the driver that calls every construct's check).

pub(crate) mod commands;
pub(crate) mod expr;
pub(crate) mod ext;
pub(crate) mod fill;
pub(crate) mod index;
pub(crate) mod linform;
pub(crate) mod located_span;
pub(crate) mod lookup;
pub(crate) mod nested;
pub(crate) mod nested_writer;
pub(crate) mod optional_parts;
pub(crate) mod order;
pub(crate) mod ownership;
pub(crate) mod positions;
pub(crate) mod range_place;
pub(crate) mod record_rules;
pub(crate) mod recpos;
pub(crate) mod regs;
pub(crate) mod streams;
pub(crate) mod strings;
pub(crate) mod strtab_writer;
pub(crate) mod sum_span;
pub(crate) mod table_when;
pub(crate) mod table_writer;
pub(crate) mod taken;
pub(crate) mod top;
pub(crate) mod trailer;
pub(crate) mod when_writer;
pub(crate) mod writer;
pub(crate) mod writer_names;
pub(crate) mod writer_rules;

use std::collections::HashMap;

use crate::schema::top::Schema;
use crate::schema::{IntTy, Table};

/// What a field's type turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Integer.
    Int(IntTy),
    /// Raw bytes.
    Bytes(u64),
    /// NUL-padded string.
    Str(u64),
    /// Enum (index into `Schema::enums`).
    Enum(usize),
    /// Flags (index into `Schema::flags`).
    Flags(usize),
    /// A fixed number of integers.
    Array(IntTy, u64),
    /// A bit-field word (index into `Schema::bitfields`).
    Bits(usize),
    /// `f32` (`false`) or `f64` (`true`); its value in expressions is its bits.
    Float(bool),
    /// A struct (index into `Schema::structs`, its size): `check/nested.rs`.
    Struct(usize, u64),
    /// A fixed array of structs (index into `Schema::structs`, its size, the count).
    Structs(usize, u64, u64),
}

/// A struct's computed layout.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Size in bytes.
    pub size: u64,
    /// Each field's offset and kind, in order.
    pub fields: Vec<(u64, FieldKind)>,
}

/// Whose field an expression names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// The file header.
    Header,
    /// The current record of a table (in `for_each` and per-record ranges).
    Record,
    /// A located record (index into the file's `records`).
    Located(usize),
    /// Record `.1` of a table (index into the file's `tables`): `entries.0.offset`.
    Element(usize, u64),
}

/// What a reference in an expression resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The buffer's length.
    Len,
    /// A constant (index).
    Const(usize),
    /// A field (index within its struct).
    Field(Owner, usize),
    /// One bit of a flags field: a truth value.
    FlagBit(Owner, usize, usize),
    /// A composed value (index into the struct's `composed`).
    Composed(Owner, usize),
    /// A bit range of a bit-field word: field index, range index.
    BitField(Owner, usize, usize),
    /// An enum's value by name (`SectionKind.nobits`): enum index, value index.
    EnumValue(usize, usize),
    /// A named value (`let`), by index among the file's top-level `let` steps.
    Let(usize),
    /// Where the current record of a stream lies (`record.offset`, `check/recpos.rs`).
    RecPos(crate::check::RecPos),
    /// A field inside a struct-typed field: `header.inner.x`, `header.pairs[2].a`.
    Nested(Owner, crate::check::Leaf),
}

impl Resolved {
    /// Whose field this reads (`None`: not a field: `len`, a constant, a position, ...).
    pub(crate) fn owner(&self) -> Option<Owner> {
        match self {
            Resolved::Field(o, _)
            | Resolved::FlagBit(o, ..)
            | Resolved::Composed(o, _)
            | Resolved::BitField(o, ..)
            | Resolved::Nested(o, _) => Some(*o),
            _ => None,
        }
    }
}

/// Where an expression is evaluated.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// File level: `len`, constants, `header.*`.
    Top,
    /// Inside a table's record: also the record's own fields, bare.
    Record(&'a Table),
    /// Inside a record view's accessor: only the record's fields, constants and nothing else.
    RecordOnly(&'a Table),
}

/// A schema that passed every check, with layouts computed.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The schema.
    pub schema: Schema,
    /// Layouts by struct name.
    pub layouts: HashMap<String, Layout>,
    /// SHA-256 of the schema text, hex.
    pub sha256: String,
    /// The file's collections (one per directory layout), as tables for `for_each` scopes.
    pub collections: Vec<Table>,
    /// One checked copy per variant, whose `schema.file` is the variant's layout.
    pub variants: Vec<Checked>,
    /// The file's named values (`let` steps), by name.
    pub lets: crate::schema::top::Lets,
}

impl FieldKind {
    /// Width in bytes.
    pub fn width(self, schema: &Schema) -> u64 {
        match self {
            FieldKind::Int(t) => t.bytes(),
            FieldKind::Bytes(n) | FieldKind::Str(n) => n,
            FieldKind::Float(w) => 4 << u64::from(w),
            FieldKind::Enum(i) => schema.enums.get(i).map_or(0, |e| e.repr.bytes()),
            FieldKind::Flags(i) => schema.flags.get(i).map_or(0, |f| f.repr.bytes()),
            FieldKind::Array(t, n) => t.bytes().saturating_mul(n),
            FieldKind::Bits(i) => schema.bitfields.get(i).map_or(0, |f| f.repr.bytes()),
            FieldKind::Struct(_, size) => size,
            FieldKind::Structs(_, size, n) => size.saturating_mul(n),
        }
    }
    /// Whether it can be used as a number in expressions.
    pub fn numeric(self) -> bool {
        !matches!(
            self,
            FieldKind::Bytes(_)
                | FieldKind::Str(_)
                | FieldKind::Array(..)
                | FieldKind::Struct(..)
                | FieldKind::Structs(..)
        )
    }
    /// The integer type it is stored as, when it is one word.
    pub fn int_ty(self, schema: &Schema) -> Option<IntTy> {
        match self {
            FieldKind::Int(t) => Some(t),
            FieldKind::Enum(i) => schema.enums.get(i).map(|e| e.repr),
            FieldKind::Flags(i) => schema.flags.get(i).map(|f| f.repr),
            FieldKind::Bits(i) => schema.bitfields.get(i).map(|f| f.repr),
            FieldKind::Bytes(_)
            | FieldKind::Str(_)
            | FieldKind::Array(..)
            | FieldKind::Float(_)
            | FieldKind::Struct(..)
            | FieldKind::Structs(..) => None,
        }
    }
}

/// What earlier steps made safe to use.
pub(crate) struct StepState {
    /// Codes of order checks inside for_each bodies (each needs its own state variable).
    pub orders: Vec<String>,
    /// Named values defined so far.
    pub lets_bound: Vec<String>,
    /// Tables (and collections) whose records can be read.
    pub tables_fitted: Vec<String>,
    /// Located records bound.
    pub records_bound: Vec<String>,
    /// Per-record located records placed inside a `for_each` (out of scope after it).
    pub records_per_record: Vec<String>,
    /// Ranges checked so far.
    pub ranges_fitted: Vec<String>,
    /// Strings found so far (`string_fits`).
    pub strings_fitted: Vec<String>,
}

/// A field of a struct reached through struct-typed fields: where it is and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// The outermost field's index in the owner's struct (the one the path starts with).
    pub outer: usize,
    /// The leaf's byte offset within the owner's struct.
    pub at: u64,
    /// The struct that declares the leaf (index into `Schema::structs`).
    pub strukt: usize,
    /// The leaf's index among that struct's fields.
    pub field: usize,
    /// For a flags leaf named with one of its bits (`stamp.flags.ON`), the bit's index: the
    /// reference is then a truth value.
    pub bit: Option<usize>,
}

/// Which position of the current record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecPos {
    /// Where the record (its header) starts in the file.
    Offset,
    /// Where its body starts (after the header).
    BodyOffset,
    /// The body's bytes (padding excluded).
    BodyLen,
    /// Where the body ends (`body_offset + body_len`, padding excluded).
    End,
    /// How deep the record is nested (0 in the stream's range; streams with `nested`
    /// layouts).
    Depth,
    /// Its index in the stream (every record counted, as `first()` and `last()` count).
    Index,
}
