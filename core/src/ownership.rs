//! Byte ownership: no two parts of a file share a byte.
//!
//! A schema's `ownership` declaration names the parts of a file (its header, located
//! records, the extent of a table, each record's range) that must lie apart; the generated
//! validator numbers the part instances `0..count` in declaration order (every record of a
//! per-record range in table order), walks them once with [`laid_in_order`] (a file laid
//! out in order is apart), and otherwise hands [`first_overlap`] a function giving each
//! instance's extent. The interpreter calls [`first_overlap`] alone, whose first pass is
//! the same walk, so both report the same pair.

/// One part instance of a validated file, from a generated `<ownership>_parts()` accessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OwnedPart {
    /// The part's name in the schema (`header`, a record, a table or a range).
    pub part: &'static str,
    /// The record's index for a per-record range; 0 for a part with one instance.
    pub index: u64,
    /// The first byte.
    pub start: u64,
    /// One past the last byte (`end <= start`: the instance owns nothing).
    pub end: u64,
}

/// Where `part`, a subslice of `buf`, starts in it (0 when it is not one).
#[must_use]
pub fn offset_in(buf: &[u8], part: &[u8]) -> u64 {
    part.as_ptr()
        .addr()
        .checked_sub(buf.as_ptr().addr())
        .and_then(|d| u64::try_from(d).ok())
        .unwrap_or(0)
}

/// Why the parts of a file do not own their bytes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    /// More part instances than the schema's declared bound: the check would take more
    /// than the work the bound allows, so the file is refused before any pair is compared.
    TooMany,
    /// Instance `second` shares bytes with the earlier instance `first`, from byte `at`
    /// (the first shared byte) on.
    Overlap {
        /// The earlier instance.
        first: u64,
        /// The later instance, the one the error blames.
        second: u64,
        /// The first byte both hold.
        at: u64,
    },
}

/// Whether `extents` (each `(start, end)`, `end` exclusive; `end <= start` is empty and
/// owns nothing) are laid out in order: each non-empty one starts at or after the end of
/// every non-empty one before it. Such extents share no byte. One pass, stopping at the
/// first out of order; no allocation.
///
/// This is [`first_overlap`]'s first pass. A generated validator also calls it first with
/// the parts as iterators of their own (a table's records walked directly), the pairwise
/// [`first_overlap`] only when it says no, which finds and names the pair.
///
/// ```
/// use npuschema_core::laid_in_order;
///
/// assert!(laid_in_order([(0, 48), (48, 60), (70, 70), (60, 100)]));
/// assert!(!laid_in_order([(0, 48), (40, 60)]));
/// ```
#[inline]
pub fn laid_in_order(extents: impl IntoIterator<Item = (u64, u64)>) -> bool {
    extents
        .into_iter()
        .try_fold(0u64, |reach, (s, e)| match () {
            () if e <= s => Some(reach),
            () if s < reach => None,
            () => Some(e),
        })
        .is_some()
}

/// The first pair of part instances that share a byte, or `Ok` when all lie apart.
///
/// `extent(k)` is instance `k`'s bytes as `(start, end)`, `end` exclusive; an instance with
/// `end <= start` is empty and owns nothing. Instances are compared pairwise, with no
/// allocation and no sorting: instance `j` against every earlier instance, `j` from `1`, so
/// the pair reported is the one with the smallest `second`, then the smallest `first`.
///
/// **Bounded work**: `count` must not exceed `max`, else [`Shared::TooMany`] before any
/// comparison. Instances laid out in order (each non-empty one starting at or after the
/// end of every one before it, as files are written) are found apart in one pass of
/// `count` calls of `extent`; otherwise at most `max * (max - 1) / 2` pairs are compared
/// and `extent` is called at most `max * (max + 1) / 2` more times (a bound of 1,024 parts
/// is 523,776 comparisons).
///
/// # Errors
/// [`Shared::TooMany`] or the first [`Shared::Overlap`].
///
/// ```
/// use npuschema_core::{Shared, first_overlap};
///
/// let parts = [(0, 48), (48, 60), (200, 300), (250, 260)];
/// let extent = |k: u64| parts.get(k as usize).copied().unwrap_or((0, 0));
/// assert_eq!(
///     first_overlap(4, 16, extent),
///     Err(Shared::Overlap { first: 2, second: 3, at: 250 })
/// );
/// assert_eq!(first_overlap(3, 16, extent), Ok(()));
/// assert_eq!(first_overlap(4, 3, extent), Err(Shared::TooMany));
/// ```
pub fn first_overlap(
    count: u64,
    max: u64,
    mut extent: impl FnMut(u64) -> (u64, u64),
) -> Result<(), Shared> {
    if count > max {
        return Err(Shared::TooMany);
    }
    // Files lay their parts out in order: when every instance starts at or after the end
    // of all before it, none overlaps, found in one pass. Otherwise the pairwise walk below
    // finds the pair to report.
    if laid_in_order((0..count).map(&mut extent)) {
        return Ok(());
    }
    for second in 1..count {
        let (s2, e2) = extent(second);
        if e2 <= s2 {
            continue;
        }
        for first in 0..second {
            let (s1, e1) = extent(first);
            if e1 > s1 && s1 < e2 && s2 < e1 {
                return Err(Shared::Overlap {
                    first,
                    second,
                    at: s1.max(s2),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn run(parts: &[(u64, u64)], max: u64) -> Result<(), Shared> {
        let n = parts.len() as u64;
        first_overlap(n, max, |k| {
            parts
                .get(usize::try_from(k).unwrap_or(usize::MAX))
                .copied()
                .unwrap_or((0, 0))
        })
    }

    /// Every arrangement of three spans `(start, end)` over a 6-byte file, empty and
    /// reversed ones included.
    fn three_spans() -> impl Iterator<Item = [(u64, u64); 3]> {
        let spans = || (0..6u64).flat_map(|s| (0..=6u64).map(move |e| (s, e)));
        spans().flat_map(move |a| spans().flat_map(move |b| spans().map(move |c| [a, b, c])))
    }

    /// Held to a brute-force definition (some byte in both) on every arrangement of three
    /// parts over a 6-byte file.
    #[test]
    fn agrees_with_the_byte_definition() {
        for parts in three_spans() {
            let mut want = Ok(());
            'outer: for j in 1..3usize {
                for i in 0..j {
                    let (p, q) = (parts[i], parts[j]);
                    if let Some(x) =
                        (0..6u64).find(|x| (p.0..p.1).contains(x) && (q.0..q.1).contains(x))
                    {
                        want = Err(Shared::Overlap {
                            first: i as u64,
                            second: j as u64,
                            at: x,
                        });
                        break 'outer;
                    }
                }
            }
            assert_eq!(run(&parts, 3), want, "{parts:?}");
        }
    }

    /// `laid_in_order` holds exactly when each non-empty span starts at or after the end of
    /// every non-empty span before it, and then no two share a byte (every arrangement of
    /// three spans over a 6-byte file).
    #[test]
    fn laid_in_order_is_the_first_pass() {
        for parts in three_spans() {
            // The end of the last non-empty span so far, and whether each started at or
            // after it.
            let (mut reach, mut want) = (0u64, true);
            for &(s, e) in parts.iter().filter(|p| p.1 > p.0) {
                want &= s >= reach;
                reach = reach.max(e);
            }
            assert_eq!(laid_in_order(parts), want, "{parts:?}");
            if want {
                assert_eq!(run(&parts, 3), Ok(()), "{parts:?}");
            }
        }
    }

    #[test]
    fn the_bound_is_checked_first() {
        assert_eq!(run(&[(0, 1), (0, 1)], 1), Err(Shared::TooMany));
        assert_eq!(run(&[], 0), Ok(()));
        assert_eq!(run(&[(0, 1)], 1), Ok(()));
    }

    #[test]
    fn work_is_bounded_by_the_pairs() {
        // In order: one pass.
        let mut calls = 0u64;
        let r = first_overlap(100, 100, |k| {
            calls += 1;
            (k * 10, k * 10 + 10)
        });
        assert_eq!(r, Ok(()));
        assert_eq!(calls, 100);
        // Apart but out of order: the pass stops at the first step back, then every pair.
        let mut calls = 0u64;
        let r = first_overlap(100, 100, |k| {
            calls += 1;
            let k = 99 - k;
            (k * 10, k * 10 + 10)
        });
        assert_eq!(r, Ok(()));
        assert_eq!(calls, 2 + 99 + 99 * 100 / 2);
    }
}
