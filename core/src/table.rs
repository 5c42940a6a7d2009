//! A table of a validated buffer: `len` records of `N` bytes, each `stride` bytes after the
//! one before (`stride >= N`; the bytes between two records belong to neither). Every
//! generated validator holds its tables this way, and every generated table accessor reads
//! them through it: one placement rule, audited and tested here once. A format whose records
//! are further apart than their size (ELF's `e_shentsize`) and one whose are back to back
//! (`stride == N`) are the same type.

use core::fmt;
use core::iter::FusedIterator;

/// `len` records of `N` bytes, `stride` bytes apart, inside a validated buffer.
///
/// Made by [`table_strided`] (which checks that every record lies inside the buffer) or
/// [`Table::EMPTY`]; so every index below [`Table::len`] has a record.
#[derive(Clone, Copy)]
pub struct Table<'a, const N: usize> {
    /// From the first record's first byte to the last record's last byte.
    bytes: &'a [u8],
    stride: usize,
    len: usize,
}

impl<'a, const N: usize> Table<'a, N> {
    /// A table with no records.
    pub const EMPTY: Self = Table {
        bytes: &[],
        stride: N,
        len: 0,
    };

    /// How many records.
    #[must_use]
    #[inline]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no record.
    #[must_use]
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes from one record's start to the next one's.
    #[must_use]
    #[inline]
    pub const fn stride(&self) -> usize {
        self.stride
    }

    /// Where record `i` starts, from the first record's start: `i * stride` (saturating).
    #[must_use]
    #[inline]
    pub const fn record_offset(&self, i: u64) -> u64 {
        // A `usize` stride always fits in a `u64` on the targets Rust supports.
        i.saturating_mul(self.stride as u64)
    }

    /// The bytes from the first record's start to the last one's end (the padding between
    /// records included; empty without records).
    #[must_use]
    #[inline]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Record `i`, or `None` past the last.
    #[must_use]
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a [u8; N]> {
        if i >= self.len {
            return None;
        }
        // `i < len`: `i * stride + N <= bytes.len()`, which `table_strided` checked, so the
        // product does not wrap (and a wrong one could only miss, not read elsewhere).
        self.bytes
            .get(i.wrapping_mul(self.stride)..)?
            .first_chunk::<N>()
    }

    /// The first record, or `None` without records.
    #[must_use]
    #[inline]
    pub fn first(&self) -> Option<&'a [u8; N]> {
        self.bytes.first_chunk::<N>()
    }

    /// The last record, or `None` without records.
    #[must_use]
    #[inline]
    pub fn last(&self) -> Option<&'a [u8; N]> {
        self.bytes.last_chunk::<N>()
    }

    /// The records in order (double-ended, exact size).
    #[must_use]
    #[inline]
    pub fn iter(&self) -> TableIter<'a, N> {
        TableIter {
            bytes: self.bytes,
            stride: self.stride,
            len: self.len,
        }
    }
}

impl<const N: usize> fmt::Debug for Table<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("record_bytes", &N)
            .field("stride", &self.stride)
            .field("len", &self.len)
            .finish()
    }
}

impl<'a, const N: usize> IntoIterator for Table<'a, N> {
    type Item = &'a [u8; N];
    type IntoIter = TableIter<'a, N>;
    #[inline]
    fn into_iter(self) -> TableIter<'a, N> {
        self.iter()
    }
}

/// The records of a [`Table`], in order.
#[derive(Clone)]
pub struct TableIter<'a, const N: usize> {
    /// From the next record's first byte to the last one's last byte.
    bytes: &'a [u8],
    stride: usize,
    len: usize,
}

impl<const N: usize> fmt::Debug for TableIter<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableIter")
            .field("record_bytes", &N)
            .field("left", &self.len)
            .finish()
    }
}

impl<'a, const N: usize> Iterator for TableIter<'a, N> {
    type Item = &'a [u8; N];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8; N]> {
        self.len = self.len.checked_sub(1)?;
        let (rec, _) = self.bytes.split_first_chunk::<N>()?;
        // After the last record fewer than `stride` bytes may be left: then none.
        self.bytes = self.bytes.get(self.stride..).unwrap_or(&[]);
        Some(rec)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<&'a [u8; N]> {
        if n >= self.len {
            self.len = 0;
            self.bytes = &[];
            return None;
        }
        self.len = self.len.saturating_sub(n);
        self.bytes = self.bytes.get(n.checked_mul(self.stride)?..).unwrap_or(&[]);
        self.next()
    }
}

impl<'a, const N: usize> DoubleEndedIterator for TableIter<'a, N> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a [u8; N]> {
        let last = self.len.checked_sub(1)?;
        // The bytes ahead stay: `len` alone says how many records are left.
        let rec = self
            .bytes
            .get(last.checked_mul(self.stride)?..)?
            .first_chunk::<N>()?;
        self.len = last;
        Some(rec)
    }
}

impl<const N: usize> ExactSizeIterator for TableIter<'_, N> {}
impl<const N: usize> FusedIterator for TableIter<'_, N> {}

/// The `count` records of `N` bytes, `stride` bytes apart, from byte offset `at` of `buf`,
/// when `stride >= N` (and not 0) and they all lie within the first `within` bytes (and
/// inside `buf`), else `None`. Without records, `at` must lie within them and the stride is
/// not read.
///
/// The generated form of a table placement check. The last record ends at
/// `at + (count - 1) * stride + N`; the check is made without an intermediate that can
/// overflow, and for `count == 0` nothing needs to lie anywhere (but `at` must be a place).
#[inline]
#[must_use]
pub fn table_strided<const N: usize>(
    buf: &[u8],
    at: u64,
    count: u64,
    stride: u64,
    within: u64,
) -> Option<Table<'_, N>> {
    let within = usize::try_from(within).unwrap_or(usize::MAX);
    let at = usize::try_from(at).ok()?;
    let len = usize::try_from(count).ok()?;
    let room = within.checked_sub(at)?;
    // Without records the stride is never used (a file without sections may store 0 there).
    let (span, stride) = match len.checked_sub(1) {
        None => (0, N),
        Some(last) => {
            let stride = usize::try_from(stride).ok().filter(|&s| s >= N && s > 0)?;
            (last.checked_mul(stride)?.checked_add(N)?, stride)
        }
    };
    if span > room {
        return None;
    }
    let bytes = buf.get(at..)?.get(..span)?;
    Some(Table { bytes, stride, len })
}

#[cfg(test)]
#[allow(clippy::expect_used, reason = "tests")]
mod tests {
    use super::{Table, table_strided};

    fn buf() -> [u8; 12] {
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    }

    #[test]
    fn back_to_back_records() {
        let b = buf();
        let t = table_strided::<2>(&b, 1, 3, 2, 12).expect("fits");
        let mut it = t.iter();
        assert_eq!(it.len(), 3);
        assert_eq!(it.next(), Some(&[1, 2]));
        assert_eq!(it.next_back(), Some(&[5, 6]));
        assert_eq!(it.next(), Some(&[3, 4]));
        assert_eq!((it.next(), it.next_back()), (None, None));
        assert_eq!((t.get(2), t.get(3)), (Some(&[5, 6]), None));
    }

    #[test]
    fn padded_records_skip_the_bytes_between() {
        let b = buf();
        // Records at 1, 5 and 9; the last ends at 11, inside `within: 11`.
        let t = table_strided::<2>(&b, 1, 3, 4, 11).expect("fits");
        assert_eq!((t.len(), t.stride(), t.record_offset(2)), (3, 4, 8));
        assert_eq!(t.record_offset(u64::MAX), u64::MAX);
        assert_eq!(
            (t.get(0), t.get(1), t.get(2)),
            (Some(&[1, 2]), Some(&[5, 6]), Some(&[9, 10]))
        );
        assert_eq!(
            (t.first(), t.last(), t.as_bytes().len()),
            (Some(&[1, 2]), Some(&[9, 10]), 10)
        );
        let mut it = t.into_iter();
        assert_eq!(it.next_back(), Some(&[9, 10]));
        assert_eq!(it.next(), Some(&[1, 2]));
        assert_eq!(it.next_back(), Some(&[5, 6]));
        assert_eq!(it.next(), None);
        let mut it = t.iter();
        assert_eq!(it.nth(1), Some(&[5, 6]));
        assert_eq!(it.len(), 1);
        assert_eq!(it.nth(1), None);
        assert_eq!(it.next(), None);
    }

    #[test]
    fn placement_refuses_what_does_not_fit() {
        let b = buf();
        // One byte short: the last record would end at 12 > 11.
        assert!(table_strided::<2>(&b, 2, 3, 4, 11).is_none());
        // Inside the buffer when `within` is larger (records at 2, 6, 10, the last ends at
        // 12); past it, even when `within` allows it.
        assert_eq!(
            table_strided::<2>(&b, 2, 3, 4, 100).map(|t| t.len()),
            Some(3)
        );
        assert!(table_strided::<2>(&b, 4, 3, 4, 100).is_none());
        // A stride shorter than the record, or 0.
        assert!(table_strided::<2>(&b, 0, 2, 1, 12).is_none());
        assert!(table_strided::<2>(&b, 0, 1, 0, 12).is_none());
        assert!(table_strided::<0>(&b, 0, 1_000_000, 0, 12).is_none());
        // Without records the stride is not read.
        assert_eq!(
            table_strided::<2>(&b, 3, 0, 0, 12).map(|t| t.len()),
            Some(0)
        );
        // Overflowing counts and strides.
        assert!(table_strided::<2>(&b, 0, u64::MAX, 2, u64::MAX).is_none());
        assert!(table_strided::<2>(&b, 0, 2, u64::MAX, u64::MAX).is_none());
        // No record: nothing needs room, but the place must lie inside `within`.
        assert_eq!(
            table_strided::<2>(&b, 12, 0, 7, 12).map(|t| t.len()),
            Some(0)
        );
        assert!(table_strided::<2>(&b, 13, 0, 2, 12).is_none());
        assert_eq!(Table::<2>::EMPTY.iter().next(), None);
        assert_eq!(
            (Table::<2>::EMPTY.first(), Table::<2>::EMPTY.last()),
            (None, None)
        );
    }
}
