//! The error every generated validator returns.

use core::fmt;

/// Which field an error is about: a plain path (`header.magic`), or a field of one record of
/// a table (`regions[1].data_offset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
        }
    }
}

impl core::error::Error for WriteError {}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

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
    fn overflowed_values_say_so() {
        let d = Detail::Compare {
            lhs: None,
            rhs: Some(64),
            names: &["", ">", "total_bytes"],
        };
        assert_eq!(d.to_string(), "overflow > total_bytes 0x40");
    }
}
