//! The errors generated validators return: [`Error`] (everything), [`Brief`] (the failing
//! check's site), or any [`Report`] the caller chooses.

use core::fmt;

/// Which field an error is about: a plain path (`header.magic`), or a field of one record of
/// a table (`regions[1].data_offset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Field {
    /// The table's name when the field belongs to a table record, else `""`.
    pub table: &'static str,
    /// The record's index in that table (meaningful only when `table` is not empty).
    pub index: u64,
    /// The field's name or dotted path inside its record or struct.
    pub name: &'static str,
}

impl Field {
    /// A field outside any table.
    #[must_use]
    pub const fn plain(name: &'static str) -> Self {
        Self {
            table: "",
            index: 0,
            name,
        }
    }

    /// Field `name` of record `index` of `table`.
    #[must_use]
    pub const fn indexed(table: &'static str, index: u64, name: &'static str) -> Self {
        Self { table, index, name }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.table.is_empty() {
            f.write_str(self.name)
        } else if self.name.is_empty() {
            write!(f, "{}[{}]", self.table, self.index)
        } else {
            write!(f, "{}[{}].{}", self.table, self.index, self.name)
        }
    }
}

/// The values behind an error, for the message. Numbers print in hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Detail {
    /// Nothing more to say than the code and the field.
    None,
    /// The buffer is shorter than needed.
    Short {
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// A field does not hold the value it must.
    Mismatch {
        /// What the file holds.
        found: u64,
        /// What it must hold.
        expected: u64,
    },
    /// A relation between two values does not hold. A `None` value is one whose computation
    /// overflowed 64 bits.
    Compare {
        /// The left value, `None` on overflow.
        lhs: Option<u64>,
        /// The right value, `None` on overflow.
        rhs: Option<u64>,
        /// `[left name, relation found, right name]`: the relation is the negation of the
        /// rule (`">"` for a failed `<=`); a name may be `""`. One static reference, so the
        /// error stays small.
        names: &'static [&'static str; 3],
    },
    /// A byte range `start + len` does not lie within `limit`.
    Range {
        /// Start of the range.
        start: u64,
        /// Length of the range.
        len: u64,
        /// Name of the limit (such as `total_bytes`).
        limit_name: &'static str,
        /// The limit.
        limit: u64,
    },
    /// A flag word has bits set that the schema does not define.
    UnknownBits {
        /// The whole word.
        value: u64,
        /// The bits that must be clear but are not.
        unknown: u64,
    },
    /// A value is not one of an enumeration's (closed) values.
    UnknownValue {
        /// The value found.
        value: u64,
    },
}

/// A validation failure: a stable `code`, the `field` it concerns, that field's byte
/// `offset` in the buffer, and the values involved. `Copy`, allocation-free.
///
/// `Display` reads like
/// `baked-region-out-of-bounds: regions[1].data_offset at 0x2c: 0xfffffff0 + 0x20 > total_bytes 0x4a0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Error {
    /// Stable, kebab-case error code from the schema (such as `bad-magic`).
    pub code: &'static str,
    /// The field the check reads.
    pub field: Field,
    /// Byte offset of that field in the buffer.
    pub offset: u64,
    /// The values involved.
    pub detail: Detail,
}

impl Error {
    /// An error with no detail.
    #[must_use]
    pub const fn new(code: &'static str, field: Field, offset: u64, detail: Detail) -> Self {
        Self {
            code,
            field,
            offset,
            detail,
        }
    }

    /// The stable code.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        self.code
    }
}

/// The shape of an error's [`Detail`] with its static parts (names); the numbers come at
/// run time, as the `a`, `b`, `c` of [`ErrorSite::error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DetailKind {
    /// [`Detail::None`].
    None,
    /// [`Detail::Short`]: `needed`, `available`.
    Short,
    /// [`Detail::Mismatch`]: `found`, `expected`.
    Mismatch,
    /// [`Detail::Compare`] with these names: `lhs`, `rhs`, then a mask (bit 0: `lhs` is
    /// `None`, bit 1: `rhs` is `None`).
    Compare(&'static [&'static str; 3]),
    /// [`Detail::Range`] with this limit name: `start`, `len`, `limit`.
    Range(&'static str),
    /// [`Detail::UnknownBits`]: `value`, `unknown`.
    UnknownBits,
    /// [`Detail::UnknownValue`]: `value`.
    UnknownValue,
}

/// The static half of one place in a validator that can fail: its number, its code, the
/// field it blames, that field's offset and the shape of the detail. Generated code keeps
/// its sites in one table in read-only memory (`ERROR_SITES` in each generated module,
/// indexed by `id - 1`) and hands a site to [`fail`] with the few numbers only known at run
/// time, so a failing check costs a call with a few arguments, not an [`Error`] (112 bytes
/// on 64-bit targets, 80 on 32-bit ones) built inline; every error is built by the one
/// out-of-line [`ErrorSite::error`].
///
/// ```
/// use npuschema_core::{Detail, DetailKind, ErrorSite, Field};
///
/// static BAKED: ErrorSite = ErrorSite {
///     id: 10,
///     code: "baked-region-out-of-bounds",
///     table: "regions",
///     name: "data_offset",
///     offset: 12,
///     detail: DetailKind::Range("total_bytes"),
/// };
/// // Record 1 of the table, whose descriptor starts at 0x30.
/// let e = BAKED.error(0x30, 0xffff_fff0, 0x20, 0x4a0, 1);
/// assert_eq!(e.field, Field::indexed("regions", 1, "data_offset"));
/// assert_eq!(e.offset, 0x3c);
/// assert_eq!(
///     e.detail,
///     Detail::Range { start: 0xffff_fff0, len: 0x20, limit_name: "total_bytes", limit: 0x4a0 }
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorSite {
    /// The site's number, what a [`Brief`] holds: unique among the sites one validator (or
    /// the binder) can report, never 0. Generated code numbers its sites 1, 2, ... in the
    /// order of the schema's checks, so the numbers are fixed by the schema file (its
    /// SHA-256 heads the generated code); the NPU1 binder's sites are `0x101..`.
    pub id: u16,
    /// The stable code ([`Error::code`]).
    pub code: &'static str,
    /// The table's name for a field of a table record, else `""` ([`Field::table`]).
    pub table: &'static str,
    /// The field's name or path ([`Field::name`]).
    pub name: &'static str,
    /// Added (saturating) to the run-time base to give [`Error::offset`]: the field's
    /// offset in its struct, or its whole offset when the base is 0 (32 bits keep the site
    /// small in read-only memory).
    pub offset: u32,
    /// The detail's shape.
    pub detail: DetailKind,
}

impl ErrorSite {
    /// The error this site reports, given the run-time `base` of the field's struct (0 for
    /// a fixed offset), the detail's numbers `a`, `b`, `c` in the order [`DetailKind`] lists
    /// them (unused ones are 0), and the record `index` (0 outside a table).
    ///
    /// Out of line and cold: the one place generated validators build an [`Error`].
    #[cold]
    #[inline(never)]
    #[must_use]
    pub fn error(&self, base: u64, a: u64, b: u64, c: u64, index: usize) -> Error {
        let detail = match self.detail {
            DetailKind::None => Detail::None,
            DetailKind::Short => Detail::Short {
                needed: a,
                available: b,
            },
            DetailKind::Mismatch => Detail::Mismatch {
                found: a,
                expected: b,
            },
            DetailKind::Compare(names) => Detail::Compare {
                lhs: if c & 1 == 0 { Some(a) } else { None },
                rhs: if c & 2 == 0 { Some(b) } else { None },
                names,
            },
            DetailKind::Range(limit_name) => Detail::Range {
                start: a,
                len: b,
                limit_name,
                limit: c,
            },
            DetailKind::UnknownBits => Detail::UnknownBits {
                value: a,
                unknown: b,
            },
            DetailKind::UnknownValue => Detail::UnknownValue { value: a },
        };
        Error {
            code: self.code,
            field: Field {
                table: self.table,
                index: index as u64,
                name: self.name,
            },
            offset: base.saturating_add(u64::from(self.offset)),
            detail,
        }
    }
}

/// What a generated validator (or the binder) returns when a check fails: the type is the
/// caller's choice, through the `E` of `validate_as::<E>`.
///
/// * [`Error`]: everything (code, field path with the record index, absolute byte offset,
///   the values involved), built by the one cold [`ErrorSite::error`]. The default of
///   `validate`, and what the host tools print.
/// * [`Brief`]: only the failing check's number ([`ErrorSite::id`]), two bytes. Its
///   [`Report::at`] ignores the run-time numbers and reads the id from a site the compiler
///   knows, so each failing check costs a branch and a small constant, and no site, string
///   or error constructor is linked: the size-first choice for firmware. The host decodes
///   the number with the generated module's `error_site` (or
///   `npuschema_runtime::binder::error_site` for a whole NPU1 load), and
///   `npuschema check` tells the rest about the same file.
///
/// Implement it for your own type to keep what you need (for example a code and the
/// absolute offset).
pub trait Report: Sized {
    /// The report for `site`, whose number `id` (always `site.id`) is also passed on its
    /// own, as a constant: a report that keeps only the number then reads nothing from the
    /// site table (the compiler merges the failing paths into one load before it would
    /// fold a load from the table, which would keep the table and its strings linked).
    /// Then the run-time `base` of the field's struct (0 for a fixed offset), the detail's
    /// numbers `a`, `b`, `c` in the order [`DetailKind`] lists them (unused ones are 0), and
    /// the record `index` (0 outside a table).
    #[must_use]
    fn at(
        id: u16,
        site: &'static ErrorSite,
        base: u64,
        a: u64,
        b: u64,
        c: u64,
        index: usize,
    ) -> Self;
}

impl Report for Error {
    #[inline(always)]
    fn at(
        _: u16,
        site: &'static ErrorSite,
        base: u64,
        a: u64,
        b: u64,
        c: u64,
        index: usize,
    ) -> Self {
        site.error(base, a, b, c, index)
    }
}

/// The smallest [`Report`]: which check failed, as its site's number ([`ErrorSite::id`]),
/// and nothing that is only known at run time (no record index, no absolute offset, no
/// values). Two bytes, `Copy`; never 0, so firmware can pass it on as a non-zero status.
///
/// A firmware image that reports failures as `Brief` links no error site and no string:
/// the number is a constant in the code. The host turns it back into the check with the
/// generated module's `error_site(id)` (for NPU1 validation plus binding,
/// `npuschema_runtime::binder::error_site`, whose numbers cover both).
///
/// `Display` prints `check #id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Brief {
    id: u16,
}

impl Brief {
    /// The failing check's number: the [`ErrorSite::id`] of its site.
    #[must_use]
    #[inline]
    pub const fn id(&self) -> u16 {
        self.id
    }

    /// The site in `sites` (a generated module's `ERROR_SITES`, or the binder's) that this
    /// report names, if it is there.
    #[must_use]
    pub fn site_in(&self, sites: &'static [ErrorSite]) -> Option<&'static ErrorSite> {
        sites.iter().find(|s| s.id == self.id)
    }
}

impl Report for Brief {
    #[inline(always)]
    fn at(id: u16, _: &'static ErrorSite, _: u64, _: u64, _: u64, _: u64, _: usize) -> Self {
        Self { id }
    }
}

impl fmt::Display for Brief {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "check #{}", self.id)
    }
}

impl core::error::Error for Brief {}

/// A failed check whose report is not made yet: what most helper functions of a generated
/// validator (the parts a long validator is cut into) fail with. The validator makes its
/// report with [`Deferred::into_report`] where the helpers' failing paths meet, so an image
/// makes it once, as an uncut validator does: a report made in each helper and moved out of
/// it costs an `E::at` and a copy per helper (for [`Error`], 80 bytes and a `memcpy`).
/// A helper that calls a visitor hook (whose error is an `E` already) fails with `E`.
#[derive(Clone, Copy, Debug)]
pub struct Deferred {
    id: u16,
    site: &'static ErrorSite,
    base: u64,
    a: u64,
    b: u64,
    c: u64,
    index: usize,
}

impl Report for Deferred {
    #[inline(always)]
    fn at(
        id: u16,
        site: &'static ErrorSite,
        base: u64,
        a: u64,
        b: u64,
        c: u64,
        index: usize,
    ) -> Self {
        Self {
            id,
            site,
            base,
            a,
            b,
            c,
            index,
        }
    }
}

impl Deferred {
    /// The report: `E::at` with the check's arguments.
    #[inline(always)]
    #[must_use]
    pub fn into_report<E: Report>(self) -> E {
        E::at(
            self.id, self.site, self.base, self.a, self.b, self.c, self.index,
        )
    }
}

/// `Err(E::at(id, site, base, a, b, c, index))`: each failing check in generated code is
/// this call with its site's number and entry (`fail(3, &ERROR_SITES[2], ..)`) and a few
/// numbers; for [`Error`] the error is built by [`ErrorSite::error`] straight into the
/// caller's result, for [`Brief`] it is the number `id`, which must be `site.id`.
///
/// # Errors
/// Always: that is its purpose.
#[inline(always)]
pub fn fail<T, E: Report>(
    id: u16,
    site: &'static ErrorSite,
    base: u64,
    a: u64,
    b: u64,
    c: u64,
    index: usize,
) -> Result<T, E> {
    Err(E::at(id, site, base, a, b, c, index))
}

struct Hex(Option<u64>);

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{v:#x}"),
            None => f.write_str("overflow"),
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Detail::None => Ok(()),
            Detail::Short { needed, available } => {
                write!(f, "needs {needed:#x} bytes, buffer has {available:#x}")
            }
            Detail::Mismatch { found, expected } => {
                write!(f, "found {found:#x}, expected {expected:#x}")
            }
            Detail::Compare {
                lhs,
                rhs,
                names: &[lhs_name, op, rhs_name],
            } => {
                if !lhs_name.is_empty() {
                    write!(f, "{lhs_name} ")?;
                }
                write!(f, "{} {op} ", Hex(lhs))?;
                if !rhs_name.is_empty() {
                    write!(f, "{rhs_name} ")?;
                }
                write!(f, "{}", Hex(rhs))
            }
            Detail::Range {
                start,
                len,
                limit_name,
                limit,
            } => {
                write!(f, "{start:#x} + {len:#x} > ")?;
                if !limit_name.is_empty() {
                    write!(f, "{limit_name} ")?;
                }
                write!(f, "{limit:#x}")
            }
            Detail::UnknownBits { value, unknown } => {
                write!(f, "{value:#x} has undefined bits {unknown:#x} set")
            }
            Detail::UnknownValue { value } => write!(f, "{value:#x} is not a defined value"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} at {:#x}", self.code, self.field, self.offset)?;
        if self.detail != Detail::None {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl core::error::Error for Error {}

/// Why a generated writer could not write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WriteError {
    /// The output buffer is too small.
    BufferTooSmall {
        /// Bytes the file needs.
        needed: u64,
        /// Bytes the buffer has.
        available: u64,
    },
    /// A value does not fit the field that must store it (a file over 4 GiB, say).
    TooLarge {
        /// The field.
        field: &'static str,
        /// The value.
        value: u64,
    },
    /// The layout is impossible (a table placed before the end of what precedes it).
    Layout {
        /// What could not be placed.
        item: &'static str,
    },
    /// No value of the field gives this value through the schema's form for it (a record's
    /// size, a count or a length below the constant added to its field, or not a multiple
    /// of its factor).
    NotRepresentable {
        /// The field.
        field: &'static str,
        /// The value (a record's size, a count, a length).
        value: u64,
    },
    /// An optional part (a range or table with `when`) was given while its condition is
    /// false on the header written, or left out while it is true.
    WhenDisagrees {
        /// The range or table.
        part: &'static str,
        /// Whether it was given.
        given: bool,
    },
    /// A record was given the bytes of a per-record range whose `when` is false on the
    /// record as written, or left without them while it is true.
    RecordWhenDisagrees {
        /// The range, as `table[].range`.
        part: &'static str,
        /// The record (its index in the table).
        index: u64,
        /// Whether the bytes were given.
        given: bool,
    },
    /// A table whose record count the schema fixes (`count: 4`) was given another number
    /// of records.
    WrongCount {
        /// The table.
        table: &'static str,
        /// The count the schema fixes.
        expected: u64,
        /// The records given.
        given: u64,
    },
    /// A section of a directory whose payload range has `when` was given a payload while
    /// the condition is false on its record as written, or none while it is true.
    SectionWhenDisagrees {
        /// The directory's table.
        table: &'static str,
        /// The section (its index in the table).
        index: u64,
        /// Whether its payload was given.
        given: bool,
    },
    /// A range whose length the schema fixes (`length: 16`, a trailer at `len - 16`) was
    /// given another number of bytes, or a table a constant distance from the end of the file
    /// (`at: len - 32`) records that do not take exactly those bytes.
    WrongLength {
        /// The range.
        range: &'static str,
        /// The length the schema fixes.
        expected: u64,
        /// The bytes given.
        given: u64,
    },
    /// A version-gated record's field that holds a place, length or count of an optional
    /// part (`since`/`until`) is not in the layout the record's gate chooses, and the part
    /// was given: a reader of that layout could not find it.
    NotInLayout {
        /// The field, as `record.field`.
        field: &'static str,
        /// The record's gate.
        gate: u64,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WriteError::BufferTooSmall { needed, available } => {
                write!(f, "buffer-too-small: needs {needed} bytes, has {available}")
            }
            WriteError::TooLarge { field, value } => {
                write!(f, "value-too-large: {field} cannot hold {value:#x}")
            }
            WriteError::Layout { item } => write!(f, "impossible-layout: {item}"),
            WriteError::NotRepresentable { field, value } => {
                write!(f, "value-not-representable: no {field} gives {value:#x}")
            }
            WriteError::WhenDisagrees { part, given: true } => {
                write!(
                    f,
                    "when-disagrees: {part} is given but its condition is false"
                )
            }
            WriteError::WhenDisagrees { part, given: false } => {
                write!(
                    f,
                    "when-disagrees: {part} is left out but its condition is true"
                )
            }
            WriteError::RecordWhenDisagrees {
                part,
                index,
                given: true,
            } => write!(
                f,
                "when-disagrees: record {index} is given {part} but its condition is false"
            ),
            WriteError::RecordWhenDisagrees {
                part,
                index,
                given: false,
            } => write!(
                f,
                "when-disagrees: record {index} is left without {part} but its condition is true"
            ),
            WriteError::WrongCount {
                table,
                expected,
                given,
            } => write!(
                f,
                "wrong-count: {table} has {expected} records, {given} given"
            ),
            WriteError::SectionWhenDisagrees {
                table,
                index,
                given: true,
            } => write!(
                f,
                "when-disagrees: {table}[{index}] is given a payload but its condition is false"
            ),
            WriteError::SectionWhenDisagrees {
                table,
                index,
                given: false,
            } => write!(
                f,
                "when-disagrees: {table}[{index}] has no payload but its condition is true"
            ),
            WriteError::WrongLength {
                range,
                expected,
                given,
            } => write!(
                f,
                "wrong-length: {range} has {expected} bytes, {given} given"
            ),
            WriteError::NotInLayout { field, gate } => write!(
                f,
                "not-in-layout: {field} is not in the layout of gate {gate:#x}, and the part it locates was given"
            ),
        }
    }
}

impl core::error::Error for WriteError {}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    static SITES: [ErrorSite; 2] = [
        ErrorSite {
            id: 1,
            code: "bad-magic",
            table: "",
            name: "header.magic",
            offset: 0,
            detail: DetailKind::Mismatch,
        },
        ErrorSite {
            id: 2,
            code: "baked-region-out-of-bounds",
            table: "regions",
            name: "data_offset",
            offset: 12,
            detail: DetailKind::Range("total_bytes"),
        },
    ];

    #[test]
    fn brief_keeps_the_site_number_and_error_builds_the_whole_error() {
        let baked = &SITES[1];
        let b: Result<(), Brief> = fail(2, baked, 48, 0xffff_fff0, 0x20, 0x4a0, 1);
        let b = b.unwrap_err();
        assert_eq!(b.id(), 2);
        assert!(core::ptr::eq(b.site_in(&SITES).unwrap(), baked));
        assert_eq!(b.to_string(), "check #2");
        assert_eq!(core::mem::size_of::<Brief>(), 2);
        let e: Result<(), Error> = fail(2, baked, 48, 0xffff_fff0, 0x20, 0x4a0, 1);
        let e = e.unwrap_err();
        assert_eq!(
            (e.code, e.field, e.offset),
            (
                "baked-region-out-of-bounds",
                Field::indexed("regions", 1, "data_offset"),
                60
            )
        );
        assert_eq!(
            e.detail,
            Detail::Range {
                start: 0xffff_fff0,
                len: 0x20,
                limit_name: "total_bytes",
                limit: 0x4a0
            }
        );
        // A number no site has is not found.
        let m: Result<(), Brief> = fail(1, &SITES[0], 0, 0, 0, 0, 0);
        assert_eq!(m.unwrap_err().site_in(&SITES[1..]), None);
    }

    #[test]
    fn display_matches_the_documented_form() {
        let e = Error::new(
            "baked-region-out-of-bounds",
            Field::indexed("regions", 1, "data_offset"),
            0x2c,
            Detail::Range {
                start: 0xffff_fff0,
                len: 0x20,
                limit_name: "total_bytes",
                limit: 0x4a0,
            },
        );
        assert_eq!(
            e.to_string(),
            "baked-region-out-of-bounds: regions[1].data_offset at 0x2c: 0xfffffff0 + 0x20 > total_bytes 0x4a0"
        );
    }

    #[test]
    fn the_error_stays_small() {
        // Returned by value from every validator: keep it well under clippy's 128-byte
        // `result_large_err` limit.
        assert!(
            core::mem::size_of::<Error>() <= 112,
            "{}",
            core::mem::size_of::<Error>()
        );
    }

    #[test]
    fn a_site_builds_each_detail_shape() {
        const fn site(detail: DetailKind) -> ErrorSite {
            ErrorSite {
                id: 1,
                code: "c",
                table: "",
                name: "header.f",
                offset: 8,
                detail,
            }
        }
        static NONE: ErrorSite = site(DetailKind::None);
        static SHORT: ErrorSite = site(DetailKind::Short);
        static MISMATCH: ErrorSite = site(DetailKind::Mismatch);
        static COMPARE: ErrorSite = site(DetailKind::Compare(&["a", ">", "b"]));
        static RANGE: ErrorSite = site(DetailKind::Range("total_bytes"));
        static BITS: ErrorSite = site(DetailKind::UnknownBits);
        static VALUE: ErrorSite = site(DetailKind::UnknownValue);
        let e = |s: &'static ErrorSite, c: u64| s.error(0, 5, 7, c, 0);
        assert_eq!(e(&NONE, 0).detail, Detail::None);
        assert_eq!(
            e(&SHORT, 0).detail,
            Detail::Short {
                needed: 5,
                available: 7
            }
        );
        assert_eq!(
            e(&MISMATCH, 0).detail,
            Detail::Mismatch {
                found: 5,
                expected: 7
            }
        );
        let names = &["a", ">", "b"];
        assert_eq!(
            e(&COMPARE, 0).detail,
            Detail::Compare {
                lhs: Some(5),
                rhs: Some(7),
                names
            }
        );
        assert_eq!(
            e(&COMPARE, 1).detail,
            Detail::Compare {
                lhs: None,
                rhs: Some(7),
                names
            }
        );
        assert_eq!(
            e(&COMPARE, 2).detail,
            Detail::Compare {
                lhs: Some(5),
                rhs: None,
                names
            }
        );
        assert_eq!(
            e(&COMPARE, 3).detail,
            Detail::Compare {
                lhs: None,
                rhs: None,
                names
            }
        );
        assert_eq!(
            e(&RANGE, 9).detail,
            Detail::Range {
                start: 5,
                len: 7,
                limit_name: "total_bytes",
                limit: 9
            }
        );
        assert_eq!(
            e(&BITS, 0).detail,
            Detail::UnknownBits {
                value: 5,
                unknown: 7
            }
        );
        assert_eq!(e(&VALUE, 0).detail, Detail::UnknownValue { value: 5 });
        // A fixed offset, a plain field; a saturating base.
        let plain = NONE.error(0, 0, 0, 0, 0);
        assert_eq!(
            (plain.code, plain.field, plain.offset),
            ("c", Field::plain("header.f"), 8)
        );
        assert_eq!(NONE.error(u64::MAX - 1, 0, 0, 0, 0).offset, u64::MAX);
        let r: Result<(), Error> = fail(1, &SHORT, 0x100, 1, 2, 0, 0);
        assert_eq!(r.map_err(|e| e.offset), Err(0x108));
    }

    #[test]
    fn overflowed_values_say_so() {
        let d = Detail::Compare {
            lhs: None,
            rhs: Some(64),
            names: &["", ">", "total_bytes"],
        };
        assert_eq!(d.to_string(), "overflow > total_bytes 0x40");
    }
}
