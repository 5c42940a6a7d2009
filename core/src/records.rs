//! The iterator over one table's records that every generated table accessor returns: the
//! records are `N`-byte arrays of a validated buffer (back to back, a slice of arrays; or a
//! stride apart, a [`Table`]), each handed out as its view with its index in the table. One
//! generic type, audited and tested here once, instead of a copy per table in every
//! generated module.

use core::fmt;
use core::iter::{Enumerate, FusedIterator};
use core::marker::PhantomData;
use core::slice;

/// A view of one `N`-byte record of a validated buffer: what [`Records`] hands out.
/// Generated record views implement it.
pub trait RecordView<'a, const N: usize>: Sized {
    /// The view of `raw`, record `index` of its table, inside the validated buffer `buf`.
    fn view(raw: &'a [u8; N], buf: &'a [u8], index: u32) -> Self;
    /// As [`Self::view`], in the byte order the file's header chose (`big`: big-endian),
    /// for a record whose fields are in the file's order; a record of a fixed order ignores
    /// it (the default).
    #[inline]
    fn view_in(raw: &'a [u8; N], buf: &'a [u8], index: u32, big: bool) -> Self {
        let _ = big;
        Self::view(raw, buf, index)
    }
}

/// The records of one table, in order, each as its view `V` (double-ended, exact size).
/// `I` walks the table's records: back to back (a slice of arrays, the default) or a stride
/// apart ([`crate::TableIter`]). A record's index saturates at `u32::MAX` (a validated table
/// never has that many).
pub struct Records<'a, const N: usize, V, I = slice::Iter<'a, [u8; N]>> {
    iter: Enumerate<I>,
    buf: &'a [u8],
    /// The file's byte order, for records in it ([`RecordView::view_in`]).
    big: bool,
    view: PhantomData<fn() -> V>,
}

impl<'a, const N: usize, V, I> Records<'a, N, V, I>
where
    I: Iterator<Item = &'a [u8; N]>,
{
    /// The records `records` (a table of the validated buffer `buf`: `&[[u8; N]]` or
    /// [`crate::Table`]).
    #[must_use]
    #[inline]
    pub fn new(records: impl IntoIterator<IntoIter = I>, buf: &'a [u8]) -> Self {
        Self::new_in(records, buf, false)
    }

    /// As [`Self::new`], for records in the byte order the file's header chose (`big`:
    /// big-endian), handed to each view ([`RecordView::view_in`]).
    #[must_use]
    #[inline]
    pub fn new_in(records: impl IntoIterator<IntoIter = I>, buf: &'a [u8], big: bool) -> Self {
        Self {
            iter: records.into_iter().enumerate(),
            buf,
            big,
            view: PhantomData,
        }
    }
}

impl<'a, const N: usize, V: RecordView<'a, N>, I> Records<'a, N, V, I> {
    #[inline]
    fn make(&self, (i, raw): (usize, &'a [u8; N])) -> V {
        V::view_in(
            raw,
            self.buf,
            u32::try_from(i).unwrap_or(u32::MAX),
            self.big,
        )
    }
}

impl<const N: usize, V, I: Clone> Clone for Records<'_, N, V, I> {
    fn clone(&self) -> Self {
        Self {
            iter: self.iter.clone(),
            buf: self.buf,
            big: self.big,
            view: PhantomData,
        }
    }
}

impl<const N: usize, V, I: ExactSizeIterator> fmt::Debug for Records<'_, N, V, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Records")
            .field("record_bytes", &N)
            .field("left", &self.iter.len())
            .finish()
    }
}

impl<'a, const N: usize, V: RecordView<'a, N>, I: Iterator<Item = &'a [u8; N]>> Iterator
    for Records<'a, N, V, I>
{
    type Item = V;
    #[inline]
    fn next(&mut self) -> Option<V> {
        let x = self.iter.next()?;
        Some(self.make(x))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<V> {
        let x = self.iter.nth(n)?;
        Some(self.make(x))
    }
}

impl<'a, const N: usize, V, I> DoubleEndedIterator for Records<'a, N, V, I>
where
    V: RecordView<'a, N>,
    I: DoubleEndedIterator<Item = &'a [u8; N]> + ExactSizeIterator,
{
    #[inline]
    fn next_back(&mut self) -> Option<V> {
        let x = self.iter.next_back()?;
        Some(self.make(x))
    }
}

impl<'a, const N: usize, V, I> ExactSizeIterator for Records<'a, N, V, I>
where
    V: RecordView<'a, N>,
    I: ExactSizeIterator<Item = &'a [u8; N]>,
{
}
impl<'a, const N: usize, V, I> FusedIterator for Records<'a, N, V, I>
where
    V: RecordView<'a, N>,
    I: FusedIterator<Item = &'a [u8; N]>,
{
}

#[cfg(test)]
#[allow(clippy::expect_used, reason = "tests")]
mod tests {
    use super::{RecordView, Records};
    use crate::table::{TableIter, table_strided};

    /// A view that keeps what it was given.
    #[derive(Debug, PartialEq, Eq)]
    struct Pair<'a> {
        raw: &'a [u8; 2],
        index: u32,
        buf_len: usize,
    }

    impl<'a> RecordView<'a, 2> for Pair<'a> {
        fn view(raw: &'a [u8; 2], buf: &'a [u8], index: u32) -> Self {
            Pair {
                raw,
                index,
                buf_len: buf.len(),
            }
        }
    }

    #[test]
    fn hands_out_each_record_with_its_index_from_both_ends() {
        let buf = [9u8; 7];
        let recs = [[1u8, 2], [3, 4], [5, 6]];
        let mut it: Records<'_, 2, Pair<'_>> = Records::new(&recs, &buf);
        assert_eq!(it.len(), 3);
        let first = it.next().expect("first");
        assert_eq!((first.raw, first.index, first.buf_len), (&[1, 2], 0, 7));
        let last = it.next_back().expect("last");
        assert_eq!((last.raw, last.index), (&[5, 6], 2));
        assert_eq!(it.len(), 1);
        let mut copy = it.clone();
        assert_eq!(it.next().map(|p| p.index), Some(1));
        assert_eq!(it.next(), None);
        assert_eq!(it.next_back(), None);
        // The clone walks on its own.
        assert_eq!(copy.next().map(|p| (p.raw, p.index)), Some((&[3, 4], 1)));
        assert_eq!(copy.next(), None);
    }

    #[test]
    fn nth_skips_and_keeps_the_indexes() {
        let recs = [[0u8, 0], [1, 1], [2, 2], [3, 3]];
        let mut it: Records<'_, 2, Pair<'_>> = Records::new(&recs, &[]);
        assert_eq!(it.nth(2).map(|p| p.index), Some(2));
        assert_eq!(it.size_hint(), (1, Some(1)));
        assert_eq!(it.nth(5), None);
        let mut empty: Records<'_, 2, Pair<'_>> = Records::new(&[], &[]);
        assert_eq!((empty.len(), empty.next()), (0, None));
    }

    #[test]
    fn padded_records_keep_their_indexes() {
        let bytes = [1u8, 2, 0xEE, 3, 4, 0xEE, 5, 6];
        let recs = table_strided::<2>(&bytes, 0, 3, 3, 8).expect("fits");
        let mut it: Records<'_, 2, Pair<'_>, TableIter<'_, 2>> = Records::new(recs, &bytes);
        assert_eq!(it.len(), 3);
        assert_eq!(it.next_back().map(|p| (p.raw, p.index)), Some((&[5, 6], 2)));
        assert_eq!(it.next().map(|p| (p.raw, p.index)), Some((&[1, 2], 0)));
        assert_eq!(it.next().map(|p| (p.raw, p.index)), Some((&[3, 4], 1)));
        assert_eq!(it.next(), None);
    }

    /// A view in the file's byte order: keeps the order it was handed.
    struct Word {
        value: u16,
    }

    impl<'a> RecordView<'a, 2> for Word {
        fn view(raw: &'a [u8; 2], _: &'a [u8], _: u32) -> Self {
            Word {
                value: u16::from_le_bytes(*raw),
            }
        }
        fn view_in(raw: &'a [u8; 2], _: &'a [u8], _: u32, big: bool) -> Self {
            Word {
                value: if big {
                    u16::from_be_bytes(*raw)
                } else {
                    u16::from_le_bytes(*raw)
                },
            }
        }
    }

    #[test]
    fn records_in_the_file_s_order_get_it() {
        let recs = [[1u8, 2], [3, 4]];
        let mut big: Records<'_, 2, Word> = Records::new_in(&recs, &[], true);
        assert_eq!(big.next().map(|w| w.value), Some(0x0102));
        assert_eq!(big.next_back().map(|w| w.value), Some(0x0304));
        let mut little: Records<'_, 2, Word> = Records::new(&recs, &[]);
        assert_eq!(little.nth(1).map(|w| w.value), Some(0x0403));
        // A view of a fixed order ignores it; a clone keeps it.
        let mut fixed: Records<'_, 2, Pair<'_>> = Records::new_in(&recs, &[], true);
        assert_eq!(fixed.next().map(|p| p.raw[0]), Some(1));
        let mut again: Records<'_, 2, Word> = Records::new_in(&recs, &[], true);
        let mut copy = again.clone();
        assert_eq!(again.next().map(|w| w.value), Some(0x0102));
        assert_eq!(copy.next_back().map(|w| w.value), Some(0x0304));
    }
}
