//! A record found by searching backwards (ZIP's end of central directory record, which a
//! comment of up to 65,535 bytes may follow): the last place at or before a start where the
//! record fits and a condition over its bytes holds, looking back at most a stated distance.
//! The work is bounded by that distance, whatever the file holds. And a table's record found
//! by its key (`records[tag == HEAD]`): the first index where the key matches, looking at
//! each record once.

/// The last offset `p` with `from - back <= p <= from` (the lower end clamped at 0) where `N`
/// bytes lie within the first `within` bytes of `buf` and `wanted` holds for them, with
/// those bytes; `None` when there is none. At most `back + 1` places are tried, and none
/// past the end of `buf` or of `within`.
#[inline]
#[must_use]
pub fn search_back<const N: usize>(
    buf: &[u8],
    from: u64,
    back: u64,
    within: u64,
    mut wanted: impl FnMut(&[u8; N]) -> bool,
) -> Option<(&[u8; N], u64)> {
    let lo = from.saturating_sub(back);
    // The highest place where the record still fits: inside `within` and inside `buf`.
    let end = within.min(u64::try_from(buf.len()).unwrap_or(u64::MAX));
    let hi = from.min(end.checked_sub(u64::try_from(N).ok()?)?);
    let mut p = hi;
    while p >= lo {
        let at = usize::try_from(p).ok()?;
        if let Some(raw) = buf.get(at..).and_then(|s| s.first_chunk::<N>())
            && wanted(raw)
        {
            return Some((raw, p));
        }
        p = p.checked_sub(1)?;
    }
    None
}

/// The first index `i` from 0 up where `matches(i)` is `Some(true)`; `None` at the first
/// index where it is `None` (generated code returns `None` past the table's last record, or
/// for a key with no value). `matches` is called once per index tried, so the work is at
/// most one call per record and one more.
#[inline]
#[must_use]
pub fn find_first(mut matches: impl FnMut(u64) -> Option<bool>) -> Option<u64> {
    let mut i: u64 = 0;
    loop {
        if matches(i)? {
            return Some(i);
        }
        i = i.checked_add(1)?;
    }
}

/// The first of `items` for which `matches` is `Some(true)`; `None` when they end first or
/// at the first item where it is `None` (a key with no value), as [`find_first`] for records
/// that are walked rather than indexed (a stream's records within one record of another:
/// `entries[tag == 273]` in `for_each: ifds`). `matches` is called once per item tried, so
/// the work is at most one call per item.
#[inline]
#[must_use]
pub fn find_item<I: Iterator>(
    items: I,
    mut matches: impl FnMut(&I::Item) -> Option<bool>,
) -> Option<I::Item> {
    for item in items {
        if matches(&item)? {
            return Some(item);
        }
    }
    None
}

/// The item [`find_item`] found for `key` when `memo` holds it (the last search, made for
/// `key`), else `find()`'s, kept in `memo`: a record that several checks read by the same
/// key is searched for once (`entries[tag == 273].count` and `entries[tag == 273].value` in
/// one IFD's checks). `memo` is the caller's, reset for each record whose part is searched.
#[inline]
pub fn find_once<T: Copy>(
    memo: &mut Option<(u64, Option<T>)>,
    key: u64,
    find: impl FnOnce() -> Option<T>,
) -> Option<T> {
    if let Some((k, found)) = *memo
        && k == key
    {
        return found;
    }
    let found = find();
    *memo = Some((key, found));
    found
}

#[cfg(test)]
mod tests {
    use super::{find_first, find_item, find_once, search_back};

    #[test]
    fn searches_once_per_key_and_again_for_another() {
        let mut memo: Option<(u64, Option<u32>)> = None;
        let mut searches = 0;
        let mut find = |key: u64, memo: &mut Option<(u64, Option<u32>)>| {
            find_once(memo, key, || {
                searches += 1;
                (key < 10).then_some(u32::try_from(key).unwrap_or(0) * 2)
            })
        };
        assert_eq!(find(3, &mut memo), Some(6));
        assert_eq!(find(3, &mut memo), Some(6));
        // Not found is kept too.
        assert_eq!(find(12, &mut memo), None);
        assert_eq!(find(12, &mut memo), None);
        // Another key: a new search, which replaces the kept one.
        assert_eq!(find(3, &mut memo), Some(6));
        assert_eq!(searches, 3);
    }

    #[test]
    fn finds_the_first_item_and_stops_at_a_key_without_value() {
        let tags = [3u64, 7, 5, 7];
        let tried = core::cell::Cell::new(0);
        let find = |want: u64| {
            tried.set(0);
            find_item(tags.iter().enumerate(), |(_, t)| {
                tried.set(tried.get() + 1);
                Some(**t == want)
            })
            .map(|(i, _)| i)
        };
        // The first of two sevens, after trying two.
        assert_eq!(find(7), Some(1));
        assert_eq!(tried.get(), 2);
        // None has key 9: every item tried once.
        assert_eq!(find(9), None);
        assert_eq!(tried.get(), 4);
        // A key with no value ends the search there, a match after it not reached.
        assert_eq!(
            find_item(tags.iter(), |t| (**t != 7).then_some(**t == 5)),
            None
        );
        assert_eq!(find_item(core::iter::empty::<u64>(), |_| Some(true)), None);
    }

    #[test]
    fn finds_the_first_key_and_stops_past_the_end() {
        let tags = [3u64, 7, 5, 7];
        let mut tried = 0;
        let mut at = |want: u64| {
            tried = 0;
            find_first(|i| {
                tried += 1;
                Some(*tags.get(usize::try_from(i).ok()?)? == want)
            })
        };
        // The first of two sevens.
        assert_eq!(at(7), Some(1));
        assert_eq!(at(3), Some(0));
        // None has key 9: every record tried, and the one past the end.
        assert_eq!(at(9), None);
        assert_eq!(tried, 5);
        // A key with no value ends the search there.
        assert_eq!(find_first(|i| (i < 2).then_some(false)), None);
    }

    #[test]
    fn finds_the_last_match_within_the_distance() {
        // "PK" records at 2 and 6; the buffer ends at 10.
        let buf = *b"..PK..PK..";
        let pk = |r: &[u8; 2]| r == b"PK";
        assert_eq!(search_back::<2>(&buf, 8, 8, 10, pk), Some((b"PK", 6)));
        // From 5 back: 2.
        assert_eq!(search_back::<2>(&buf, 5, 8, 10, pk).map(|x| x.1), Some(2));
        // Not far enough back.
        assert_eq!(search_back::<2>(&buf, 5, 2, 10, pk), None);
        // `back` reaching past 0 is clamped; a `from` past the end starts where it fits.
        assert_eq!(
            search_back::<2>(&buf, 1_000, u64::MAX, 10, pk).map(|x| x.1),
            Some(6)
        );
        // `within` cuts the last one off.
        assert_eq!(search_back::<2>(&buf, 8, 8, 7, pk).map(|x| x.1), Some(2));
        // Too short for one record.
        assert_eq!(search_back::<2>(&buf[..1], 0, 0, 10, pk), None);
        assert_eq!(search_back::<2>(&buf, 0, 0, 1, pk), None);
    }

    #[test]
    fn tries_at_most_back_plus_one_places() {
        let buf = [0u8; 100];
        let mut tried = 0;
        let found = search_back::<4>(&buf, 90, 10, 100, |_| {
            tried += 1;
            false
        });
        assert_eq!((found, tried), (None, 11));
        // At 0 the walk stops without wrapping.
        tried = 0;
        let _ = search_back::<4>(&buf, 3, 100, 100, |_| {
            tried += 1;
            false
        });
        assert_eq!(tried, 4);
    }
}
