//! The lowered layout model's equations: what every stored field of a written file
//! equals, for every writer.
//!
//! A writer's plan is, per field of the header, of each located record and of each table's
//! record, a [`Rule`]: an input (a setter, a field of a `<Record>Spec`), or derived from a
//! [`What`] (a constant an `expect` fixes, where the writer put an [`Item`], a count, a
//! length, a checksum) and stored as a [`Part`] of it (the whole value, one half, or through
//! a linear form solved for the field). The writer's lowering (`lower/writer.rs`'s
//! `analyse`, with the table records' rules of `check/record_rules.rs` and the header's
//! struct-typed fields' of `check/writer.rs`) states every file's plan in these types, so a
//! source of a value is named once and the one emitter reads one type.
//!
//! This module holds the model's types only (it imports no phase).

use crate::expr::Expr;

/// One item the writer places after the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    /// A located record (index into `file.ext.records`).
    Record(usize),
    /// A directory's table (index into `file.ext.directories` and `Plan::dirs`).
    Table(usize),
    /// A directory's payloads, in directory order (index as for `Table`).
    Payload(usize),
    /// Another file-level range, given as bytes (index into `file.ranges`).
    Range(usize),
    /// A file's string in the whole file (index into `file.strings`).
    Str(usize),
    /// Another file-level table (index into `file.tables`), its records given as
    /// `<Record>Spec` as for the plain writer.
    OtherTable(usize),
    /// A per-record range of another table (index into `file.ranges`): the bytes of the
    /// records that carry them, back to back.
    RecordRange(usize),
    /// The strings of a table's records outside any range (index into `file.strings`),
    /// back to back.
    RecordStr(usize),
}

/// What a placed file-level range (`Item::Range`) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RangeKind {
    /// Bytes the spec gives.
    Bytes,
    /// The records of a stream (index into `file.streams`), written by its `<Stream>Writer`.
    Stream(usize),
    /// Strings, which the writer builds into it (a string table, `strtab_writer.rs`).
    Built,
}

/// Which bits of a derived value a field holds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Part {
    Whole,
    Low,
    High,
    /// The field `F` of a linear form the value is stored as, solved for it
    /// (`check/linform.rs`, `check/linform.rs`).
    Lin(LinForm<()>),
}

/// What a derived field equals: the source side of an equation `field = form(source)`.
#[derive(Clone, Debug)]
pub(crate) enum What {
    /// The value an `expect` or `assert ==` fixes (constants and `len` only).
    Value(Expr),
    /// Where the writer put an item.
    Place(Item),
    /// The number of records of a directory (index into `file.ext.directories`).
    Count(usize),
    /// The record size of a directory (index into `file.ext.directories`).
    Stride(usize),
    /// The payload's offset (in a directory record).
    PayloadOffset,
    /// The payload's length (in a directory record).
    PayloadLength,
    /// A checksum's stored value (a file's or a directory's), computed by `seal` once the
    /// bytes it covers are written.
    Checksum,
    /// The length of a file-level range the writer places (index into `file.ranges`).
    RangeLength(usize),
    /// The number of records of a table that is no directory (index into `file.tables`).
    TableCount(usize),
    /// The record size of a table that is no directory (its `stride` field; index into
    /// `file.tables`).
    RecordSize(usize),
    /// The offset of a file's string inside the string table it lies in (index into
    /// `file.strings`).
    StrOffset(usize),
    /// In a table's record: where the writer put the record's bytes of a per-record range
    /// (index into `file.ranges`).
    RecordOffset(usize),
    /// In a table's record: the length of those bytes.
    RecordLength(usize),
    /// In a table's record: the flag bit that says the record carries them.
    RecordFlag(usize),
    /// In a table's record: the offset of the record's string in the string table it lies
    /// in (`strtab_writer.rs`).
    RecordStr,
}

impl What {
    /// Whether this is a per-record range's or string's field of a table's record, set
    /// with the record's bytes rather than from a value of the plan.
    pub(crate) fn per_record(&self) -> bool {
        matches!(
            self,
            What::RecordOffset(_) | What::RecordLength(_) | What::RecordFlag(_) | What::RecordStr
        )
    }
}

/// One stored field's equation: an input the writer's caller gives, or derived from `What`
/// and stored as `Part` of it.
#[derive(Clone, Debug)]
pub(crate) enum Rule {
    Input,
    Derived(What, Part),
}

impl Rule {
    pub(crate) fn is_input(&self) -> bool {
        matches!(self, Rule::Input)
    }

    /// What the field's value comes from, whatever part of it the field stores.
    pub(crate) fn what(&self) -> Option<&What> {
        match self {
            Rule::Input => None,
            Rule::Derived(w, _) => Some(w),
        }
    }
}

/// How an item's place is found.
#[derive(Clone, Debug)]
pub(crate) enum Placement {
    /// At the cursor, aligned; a field records it.
    Derived,
    /// At a constant expression (which must not lie before the cursor).
    Fixed(Expr),
    /// Right after what precedes it, unaligned, the last item: the file ends with it (a
    /// trailer at `len - C`, a table at `len - <its size>`, a record at `len - <its size>`;
    /// `check/trailer.rs`).
    End,
}

/// `value = field * mul + plus - minus`, at most one of `plus` and `minus` not zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinForm<F> {
    /// The field the value is stored in (how the caller names it).
    pub field: F,
    /// The factor K (1 without one).
    pub mul: u64,
    /// The constant added to the scaled field (`F + C`).
    pub plus: u64,
    /// The constant subtracted from the scaled field (`F - C`).
    pub minus: u64,
}

impl<F> LinForm<F> {
    /// The form without its field's name (where the field is known by its place).
    pub(crate) fn unnamed(&self) -> LinForm<()> {
        LinForm {
            field: (),
            mul: self.mul,
            plus: self.plus,
            minus: self.minus,
        }
    }
}
