//! Record streams whose records nest (a layout with `nested: true`, RIFF's `LIST` chunks):
//! leaving a level. The generated walk and iterator keep the end of every level they are
//! inside in a fixed array (`max_depth` entries, on the stack); this is the one step they
//! share, audited and tested here once.
//!
//! Record streams whose records carry a type (`type:` and `layouts:`): the row of a
//! record's type in the stream's constant table of layouts.
//!
//! And record streams whose records form a chain (`chain:`, TIFF's image file directories):
//! finding the record whose link closes a cycle, without allocating.

use crate::ErrorSite;

/// One typed collection of a record stream (`layouts:`), a row of the constant table the
/// generated walk looks each record's type up in.
#[derive(Debug, Clone, Copy)]
pub struct TypedLayout {
    /// The value of the record header's type field that selects it.
    pub value: u64,
    /// The bytes its body's struct needs: a shorter body fails at `site`.
    pub body_bytes: u64,
    /// The number ([`ErrorSite::id`]) of the check a record of this type whose body is too
    /// short fails. A number, not the site: a firmware image that reports [`crate::Brief`]s
    /// then links no site table through this one (the failing path alone looks the site up,
    /// with [`numbered_site`], and a `Brief` never reads it).
    pub site: u16,
}

/// The site numbered `id` in a module's `sites` (its `ERROR_SITES`, numbered from 1 in
/// order), or `or` when it has none of that number, which a generated table never holds
/// (its rows are numbered from the same table). No panic path; for a row of
/// [`TypedLayout`], in the failing path only.
#[inline(always)]
#[must_use]
pub fn numbered_site(
    sites: &'static [ErrorSite],
    id: u16,
    or: &'static ErrorSite,
) -> &'static ErrorSite {
    usize::from(id)
        .checked_sub(1)
        .and_then(|k| sites.get(k))
        .unwrap_or(or)
}

/// The first row of `rows` whose `value` is `ty`, with its index (the collection's slot in
/// the walk's counts): `None` for a type no layout names (a record kept, not typed). At most
/// `rows.len()` comparisons, a number the schema fixes.
#[inline]
#[must_use]
pub fn typed_layout(
    rows: &'static [TypedLayout],
    ty: u64,
) -> Option<(usize, &'static TypedLayout)> {
    rows.iter().enumerate().find(|(_, r)| r.value == ty)
}

/// Leave the innermost level of a nesting record stream, once the walk has reached its end.
///
/// `ends[..depth]` holds the ends of the levels around the current one, outermost first;
/// `end` is the current level's end, which is where its nesting record ends. On return the
/// enclosing level is current (`depth` one less, `end` its end), and the result is where the
/// walk resumes in it: after the nesting record and its padding (to a multiple of
/// `align_mask + 1` from the range's start), cut at the enclosing level's end. `None` at
/// depth 0 (the range itself ends there), or when `depth` is past `ends`; nothing changes
/// then.
#[inline]
#[must_use]
pub fn leave_level(ends: &[u64], depth: &mut usize, end: &mut u64, align_mask: u64) -> Option<u64> {
    let d = depth.checked_sub(1)?;
    let outer = *ends.get(d)?;
    let inner_end = *end;
    *depth = d;
    *end = outer;
    if align_mask == 0 {
        return Some(inner_end.min(outer));
    }
    Some(
        inner_end
            .checked_add(align_mask)
            .map_or(outer, |x| (x & !align_mask).min(outer)),
    )
}

/// The first record of a chain whose link leads back to a record already visited, among the
/// first `n` records: its index, its offset and its link (the offset of the record it leads
/// back to).
///
/// The chain starts at `first`; `next(x)` is the link of the record at `x` (`Some(0)` or
/// `None`: the chain ends there, or the link cannot be read). Records `x0 = first`,
/// `x1 = next(x0)`, ...; the result is the smallest `i < n` whose link `x(i+1)` is one of
/// `x0..=xi`, when there is one. Brent's cycle detection, then the cycle's start: no
/// allocation, and `next` called at most about `6 * n` times (the generated walk calls this
/// once, when its chain has more than `n` records, to tell a cycle from a chain too long).
#[must_use]
pub fn chain_revisit(
    first: u64,
    n: u64,
    next: impl Fn(u64) -> Option<u64>,
) -> Option<(u64, u64, u64)> {
    let step = |x: u64| next(x).filter(|l| *l != 0);
    if first == 0 || n == 0 {
        return None;
    }
    // Brent: `lam` is the cycle's length once the hare meets the tortoise. A cycle closed by
    // record `i < n` has its start `mu` and length `lam` with `mu + lam <= n`: the hare meets
    // the tortoise within `3 * n` steps (the tortoise rests at `2^k - 1 >= mu` with
    // `2^k >= lam`), so a longer search finds no such cycle.
    let bound = n.saturating_mul(4).saturating_add(4);
    let (mut power, mut lam, mut steps) = (1u64, 1u64, 1u64);
    let mut tortoise = first;
    let mut hare = step(first)?;
    while tortoise != hare {
        if power == lam {
            tortoise = hare;
            power = power.saturating_mul(2);
            lam = 0;
        }
        hare = step(hare)?;
        lam = lam.saturating_add(1);
        steps = steps.saturating_add(1);
        if steps > bound {
            return None;
        }
    }
    // The cycle's start: two walkers `lam` apart meet there, after `mu` steps.
    let mut ahead = first;
    for _ in 0..lam {
        ahead = step(ahead)?;
    }
    let (mut behind, mut mu) = (first, 0u64);
    while behind != ahead {
        behind = step(behind)?;
        ahead = step(ahead)?;
        mu = mu.saturating_add(1);
        if mu > n {
            return None;
        }
    }
    // Record `mu + lam - 1` links back to record `mu`.
    let i = mu.saturating_add(lam).checked_sub(1)?;
    if i >= n {
        return None;
    }
    let mut x = first;
    for _ in 0..i {
        x = step(x)?;
    }
    Some((i, x, step(x)?))
}

#[cfg(test)]
mod tests {
    use super::{TypedLayout, chain_revisit, leave_level, numbered_site, typed_layout};
    use crate::{DetailKind, ErrorSite};

    /// The first revisit, by keeping every record seen (what the interpreter does).
    #[allow(clippy::indexing_slicing, clippy::cast_possible_truncation)] // Test data: n < 16.
    fn brute(first: u64, n: u64, next: &dyn Fn(u64) -> Option<u64>) -> Option<(u64, u64, u64)> {
        let mut seen = [0u64; 16];
        let mut x = first;
        if x == 0 {
            return None;
        }
        for i in 0..n {
            seen[i as usize] = x;
            let l = next(x).filter(|l| *l != 0)?;
            if seen[..=i as usize].contains(&l) {
                return Some((i, x, l));
            }
            x = l;
        }
        None
    }

    #[test]
    fn a_cycle_is_found_at_the_record_that_closes_it() {
        // 8 -> 20 -> 40 -> 20: record 2 (at 40) links back to record 1.
        let link = |x: u64| match x {
            8 => Some(20),
            20 => Some(40),
            40 => Some(20),
            _ => None,
        };
        assert_eq!(chain_revisit(8, 10, link), Some((2, 40, 20)));
        assert_eq!(chain_revisit(8, 3, link), Some((2, 40, 20)));
        // Only two records counted: the link of record 1 goes forward.
        assert_eq!(chain_revisit(8, 2, link), None);
        // A record linking to itself, and a chain that ends.
        assert_eq!(chain_revisit(8, 5, |_| Some(8)), Some((0, 8, 8)));
        assert_eq!(chain_revisit(8, 5, |x| (x < 64).then_some(x + 8)), None);
        assert_eq!(chain_revisit(0, 5, |_| Some(8)), None);
    }

    #[test]
    fn every_small_chain_agrees_with_keeping_every_record() {
        // Every function from 6 offsets (1..=6, 0: the end) to links, from every start, every
        // bound up to 9 (3 offsets and bounds up to 5 under Miri, where the full sweep would
        // take an hour).
        let (nodes, bounds) = if cfg!(miri) { (3, 6) } else { (6, 10) };
        let mut table = [0u64; 7];
        for code in 0..(nodes + 1u64).pow(nodes as u32) {
            let mut c = code;
            for slot in table.iter_mut().skip(1).take(nodes as usize) {
                *slot = c % (nodes + 1);
                c /= nodes + 1;
            }
            let link = |x: u64| table.get(usize::try_from(x).ok()?).copied();
            for first in 1..=nodes {
                for n in 0..bounds {
                    assert_eq!(
                        chain_revisit(first, n, link),
                        brute(first, n, &link),
                        "links {table:?}, first {first}, n {n}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_level_is_left_after_its_nesting_record_and_padding() {
        // A LIST at 12 of 0x15 bytes in a range of 100: its body ends at 12 + 8 + 0x15 = 41,
        // odd, so the next chunk is at 42.
        let ends = [100, 0, 0, 0];
        let (mut depth, mut end) = (1, 41);
        assert_eq!(leave_level(&ends, &mut depth, &mut end, 1), Some(42));
        assert_eq!((depth, end), (0, 100));
        // At depth 0 the range is done: nothing moves.
        assert_eq!(leave_level(&ends, &mut depth, &mut end, 1), None);
        assert_eq!((depth, end), (0, 100));
    }

    #[test]
    fn the_padding_is_cut_at_the_enclosing_level_end() {
        // Two levels end together but for the pad byte the outer one does not have.
        let ends = [64, 41, 0];
        let (mut depth, mut end) = (2, 41);
        assert_eq!(leave_level(&ends, &mut depth, &mut end, 1), Some(41));
        assert_eq!((depth, end), (1, 41));
        assert_eq!(leave_level(&ends, &mut depth, &mut end, 1), Some(42));
        assert_eq!((depth, end), (0, 64));
        // Unaligned streams resume where the record ends; a depth past the stack is None.
        let (mut depth, mut end) = (1, 33);
        assert_eq!(leave_level(&[50], &mut depth, &mut end, 0), Some(33));
        let (mut depth, mut end) = (5, 33);
        assert_eq!(leave_level(&[50], &mut depth, &mut end, 0), None);
        assert_eq!((depth, end), (5, 33));
        // A padding that would overflow stops at the enclosing end.
        let (mut depth, mut end) = (1, u64::MAX);
        assert_eq!(
            leave_level(&[u64::MAX], &mut depth, &mut end, 3),
            Some(u64::MAX)
        );
    }

    static SITES: [ErrorSite; 3] = [
        ErrorSite {
            id: 1,
            code: "short",
            table: "records",
            name: "notes",
            offset: 4,
            detail: DetailKind::None,
        },
        ErrorSite {
            id: 2,
            code: "short",
            table: "records",
            name: "points",
            offset: 4,
            detail: DetailKind::None,
        },
        ErrorSite {
            id: 3,
            code: "short",
            table: "records",
            name: "again",
            offset: 4,
            detail: DetailKind::None,
        },
    ];
    static ROWS: [TypedLayout; 3] = [
        TypedLayout {
            value: 1,
            body_bytes: 4,
            site: 1,
        },
        TypedLayout {
            value: 7,
            body_bytes: 8,
            site: 2,
        },
        TypedLayout {
            value: 1,
            body_bytes: 16,
            site: 3,
        },
    ];

    #[test]
    fn a_type_finds_its_first_row_and_an_unknown_one_none() {
        let found = typed_layout(&ROWS, 7).map(|(k, r)| (k, r.body_bytes, r.site));
        assert_eq!(found, Some((1, 8, 2)));
        // Two rows of one value: the first, as a `match` takes its first arm.
        let found = typed_layout(&ROWS, 1).map(|(k, r)| (k, r.site));
        assert_eq!(found, Some((0, 1)));
        assert!(typed_layout(&ROWS, 2).is_none());
        assert!(typed_layout(&[], 1).is_none());
    }

    #[test]
    fn a_row_number_finds_its_site_and_no_number_the_fallback() {
        for row in &ROWS {
            let site = numbered_site(&SITES, row.site, &SITES[0]);
            assert_eq!(site.id, row.site);
        }
        assert_eq!(numbered_site(&SITES, 3, &SITES[0]).name, "again");
        // 0 is no site's number, nor is one past the table: the fallback, no panic.
        assert_eq!(numbered_site(&SITES, 0, &SITES[1]).id, 2);
        assert_eq!(numbered_site(&SITES, 4, &SITES[1]).id, 2);
        assert_eq!(numbered_site(&[], u16::MAX, &SITES[2]).id, 3);
    }
}
