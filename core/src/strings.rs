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
        let n = first_nul(rest)?;
        return rest.get(..n);
    }
    let w = usize::from(prefix);
    let len = word(rest.get(..w)?, big);
    rest.get(w..)?.get(..usize::try_from(len).ok()?)
}

/// The index of the first NUL of `s`. On 64-bit hosts eight bytes at a time (a word with a
/// zero byte has a borrow into that byte's top bit: `(w - 0x01..01) & !w & 0x80..80`, whose
/// lowest set bit marks the first zero), as `memchr` does: an ELF file's section names are
/// a thousand bytes, and a byte loop made their check half of the validator's time. On
/// other targets (a Cortex-M's firmware, whose names are short) the byte loop: less code.
#[inline]
#[must_use]
fn first_nul(s: &[u8]) -> Option<usize> {
    #[cfg(target_pointer_width = "64")]
    {
        const LO: u64 = 0x0101_0101_0101_0101;
        const HI: u64 = 0x8080_8080_8080_8080;
        let (words, tail) = s.as_chunks::<8>();
        let mut at = 0usize;
        for w in words {
            let w = u64::from_le_bytes(*w);
            let z = w.wrapping_sub(LO) & !w & HI;
            if z != 0 {
                // `trailing_zeros() / 8` is below 8.
                return Some(at.wrapping_add((z.trailing_zeros() / 8) as usize));
            }
            at = at.wrapping_add(8);
        }
        tail.iter()
            .position(|&b| b == 0)
            .map(|i| at.wrapping_add(i))
    }
    #[cfg(not(target_pointer_width = "64"))]
    {
        s.iter().position(|&b| b == 0)
    }
}

/// Where UTF-8 breaks in `s`: `None` when all of it is UTF-8, else the index of the first
/// byte that does not start a complete, well-formed sequence (what
/// `core::str::from_utf8(s).err().map(|e| e.valid_up_to())` says). A plain byte loop with no
/// table and no word-at-a-time path: a validator's `string_utf8` step runs it over short
/// names, where code size matters more than speed (`from_utf8` inlined cost about 500 bytes
/// of Cortex-M `.text` and its 256-byte width table).
#[must_use]
pub fn utf8_invalid_at(s: &[u8]) -> Option<usize> {
    let mut i = 0usize;
    while let Some(&b) = s.get(i) {
        // The sequence's continuation bytes after the first, and the first one's range
        // (RFC 3629's table: no overlong forms, no surrogates, nothing past U+10FFFF).
        let (more, lo, hi): (usize, u8, u8) = match b {
            0x00..=0x7F => {
                i = i.wrapping_add(1);
                continue;
            }
            0xC2..=0xDF => (0, 0x80, 0xBF),
            0xE0 => (1, 0xA0, 0xBF),
            0xE1..=0xEC | 0xEE..=0xEF => (1, 0x80, 0xBF),
            0xED => (1, 0x80, 0x9F),
            0xF0 => (2, 0x90, 0xBF),
            0xF1..=0xF3 => (2, 0x80, 0xBF),
            0xF4 => (2, 0x80, 0x8F),
            _ => return Some(i),
        };
        let first = i.wrapping_add(1);
        if !s.get(first).is_some_and(|c| (lo..=hi).contains(c)) {
            return Some(i);
        }
        let rest = first.wrapping_add(1);
        let end = rest.wrapping_add(more);
        if !s
            .get(rest..end)
            .is_some_and(|t| t.iter().all(|c| (0x80..=0xBF).contains(c)))
        {
            return Some(i);
        }
        i = end;
    }
    None
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
        let n = first_nul(rest).map_or(rest.len(), |i| i.saturating_add(1));
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

    /// The word-at-a-time search finds what a byte loop finds: a NUL at every place of
    /// every length up to 40, after any bytes (0x80 and 0x01 next to it too, which a
    /// careless zero-byte test mistakes for a zero), and none.
    #[test]
    #[allow(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        reason = "test code: a panic is a failure"
    )]
    fn first_nul_is_the_byte_loop() {
        for len in 0..40usize {
            for fill in [0x01u8, 0x80, 0xFF, 0x7F, b'a'] {
                let mut buf = [fill; 40];
                let s = &mut buf[..len];
                assert_eq!(first_nul(s), None);
                for at in 0..len {
                    s[at] = 0;
                    for (after, b) in s.iter_mut().enumerate().skip(at + 1) {
                        *b = if after % 2 == 0 { 0 } else { 0x01 };
                    }
                    assert_eq!(first_nul(s), s.iter().position(|&b| b == 0), "{s:?}");
                    s.iter_mut().for_each(|b| *b = fill);
                }
            }
        }
    }

    /// `utf8_invalid_at` says what `core::str::from_utf8` says, on every sequence of up to
    /// four bytes over the bytes where UTF-8's rules change (fewer under Miri).
    #[test]
    #[allow(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        reason = "test code: a panic is a failure"
    )]
    fn utf8_invalid_at_agrees_with_core() {
        let edges: &[u8] = if cfg!(miri) {
            &[0x41, 0x80, 0xBF, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xFF]
        } else {
            &[
                0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
                0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
            ]
        };
        let n = edges.len();
        let mut buf = [0u8; 4];
        for len in 0..=4u32 {
            for k in 0..n.pow(len) {
                let mut x = k;
                for slot in buf.iter_mut().take(len as usize) {
                    *slot = edges[x % n];
                    x /= n;
                }
                let s = &buf[..len as usize];
                let want = core::str::from_utf8(s).err().map(|e| e.valid_up_to());
                assert_eq!(super::utf8_invalid_at(s), want, "{s:02x?}");
            }
        }
        let text = "größe ✓ 𝄞".as_bytes();
        assert_eq!(super::utf8_invalid_at(text), None);
        assert_eq!(
            super::utf8_invalid_at(&text[..text.len() - 1]),
            Some(text.len() - 4)
        );
    }

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
