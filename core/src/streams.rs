//! Record streams whose records nest (a layout with `nested: true`, RIFF's `LIST` chunks):
//! leaving a level. The generated walk and iterator keep the end of every level they are
//! inside in a fixed array (`max_depth` entries, on the stack); this is the one step they
//! share, audited and tested here once.

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

#[cfg(test)]
mod tests {
    use super::leave_level;

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
}
