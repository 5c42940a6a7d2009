//! Strings inside a byte range, for the schema language's `strings`: NUL-terminated (the
//! NUL must lie inside the range) or length-prefixed (the length word and every byte it
//! counts inside the range). No allocation, no panic path.

/// The string at `offset` of `range`, without its terminator or length word.
///
/// `prefix` 0: the bytes from `offset` up to the first NUL, which must lie inside `range`.
/// `prefix` 1, 2, 4 or 8: a length word of that many bytes at `offset` (big-endian when
/// `big`), then that many bytes, all inside `range`. `None` when the string does not lie
/// inside `range`.
#[inline]
#[must_use]
pub fn string_at(range: &[u8], offset: u64, prefix: u8, big: bool) -> Option<&[u8]> {
    let rest = range.get(usize::try_from(offset).ok()?..)?;
    if prefix == 0 {
        let n = rest.iter().position(|&b| b == 0)?;
        return rest.get(..n);
    }
    let w = usize::from(prefix);
    let len = word(rest.get(..w)?, big);
    rest.get(w..)?.get(..usize::try_from(len).ok()?)
}

/// How many bytes of `range` from `offset` the string at `offset` claims, for an error
/// about one that does not fit: NUL-terminated, the bytes up to and including the NUL, or
/// up to the end of the range when there is none (0 when `offset` is past the range);
/// length-prefixed, the length word plus the length it states (the word's width alone
/// when the word itself is not inside the range).
#[must_use]
pub fn string_extent(range: &[u8], offset: u64, prefix: u8, big: bool) -> u64 {
    let rest = usize::try_from(offset).ok().and_then(|o| range.get(o..));
    if prefix == 0 {
        let Some(rest) = rest else { return 0 };
        let n = rest
            .iter()
            .position(|&b| b == 0)
            .map_or(rest.len(), |i| i.saturating_add(1));
        return u64::try_from(n).unwrap_or(u64::MAX);
    }
    match rest.and_then(|r| r.get(..usize::from(prefix))) {
        Some(bytes) => word(bytes, big).saturating_add(u64::from(prefix)),
        None => u64::from(prefix),
    }
}

/// An unsigned word of up to 8 bytes.
fn word(bytes: &[u8], big: bool) -> u64 {
    let push = |a: u64, b: &u8| a.wrapping_shl(8) | u64::from(*b);
    if big {
        bytes.iter().fold(0, push)
    } else {
        bytes.iter().rev().fold(0, push)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_terminated_inside_the_range() {
        let r = b"\0.text\0.data";
        assert_eq!(string_at(r, 0, 0, false), Some(&b""[..]));
        assert_eq!(string_at(r, 1, 0, false), Some(&b".text"[..]));
        assert_eq!(string_at(r, 3, 0, false), Some(&b"ext"[..]));
        // No NUL before the end of the range: not a string.
        assert_eq!(string_at(r, 7, 0, false), None);
        assert_eq!(string_extent(r, 7, 0, false), 5);
        assert_eq!(string_extent(r, 1, 0, false), 6);
        assert_eq!(string_at(r, 12, 0, false), None);
        assert_eq!(string_extent(r, 12, 0, false), 0);
        assert_eq!(string_at(r, u64::MAX, 0, false), None);
        assert_eq!(string_extent(r, u64::MAX, 0, false), 0);
    }

    #[test]
    fn length_prefixed_inside_the_range() {
        let r = [0u8, 3, b'a', b'b', b'c', 2];
        assert_eq!(string_at(&r, 0, 2, true), Some(&b"abc"[..]));
        assert_eq!(string_at(&r, 1, 1, false), Some(&b"abc"[..]));
        assert_eq!(string_at(&r, 0, 2, false), None);
        assert_eq!(string_extent(&r, 0, 2, false), 0x0300 + 2);
        // The length word itself past the end.
        assert_eq!(string_at(&r, 5, 2, false), None);
        assert_eq!(string_extent(&r, 5, 2, false), 2);
        assert_eq!(string_at(&r, 6, 1, false), None);
        assert_eq!(string_extent(&r, 6, 1, false), 1);
        let big = [0xFFu8; 8];
        assert_eq!(string_at(&big, 0, 8, false), None);
        assert_eq!(string_extent(&big, 0, 8, false), u64::MAX);
    }
}
