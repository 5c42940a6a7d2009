//! A checksum over bytes some of which count as zero: a field inside the span it covers
//! that holds a value the span's sum cannot include (OpenType's `head` table is summed with
//! its checkSumAdjustment as zero), as a schema's checksum `zero:` says. One function per
//! algorithm, over one walk ([`zeroed_pieces`]) that hands the algorithm the span's bytes in
//! order, the zeroed ones as zero bytes, without copying the span.

use crate::checksum::{FNV1A32_OFFSET_BASIS, crc32, fnv1a32, sum32_be};

/// Zero bytes handed out for a zeroed stretch, this many at a time.
const ZEROS: [u8; 64] = [0; 64];

/// Hands `update` the bytes of `data`, which starts at offset `start` of the file, in order
/// and all of them, those inside any of `zeros` (each `(offset in the file, width)`, in any
/// order, overlapping or not, inside the span or not) as zero bytes. A zeroed stretch is
/// handed out as pieces of at most 64 zero bytes. The work is the span's bytes plus, per
/// piece, one look at each of `zeros` (at most `2 * zeros.len() + 1` pieces of data).
pub fn zeroed_pieces(data: &[u8], start: u64, zeros: &[(u64, u64)], mut update: impl FnMut(&[u8])) {
    let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
    let mut p: u64 = 0;
    while p < len {
        // The end of the zeroed stretch over `p`, and the start of the next one after it.
        let (mut zero_end, mut next) = (p, len);
        for &(at, width) in zeros {
            let s = at.saturating_sub(start);
            let e = at.saturating_add(width).saturating_sub(start).min(len);
            if s <= p && p < e {
                zero_end = zero_end.max(e);
            } else if s > p {
                next = next.min(s);
            }
        }
        if zero_end > p {
            let mut left = zero_end.saturating_sub(p);
            while left > 0 {
                let n = left.min(64);
                update(
                    ZEROS
                        .get(..usize::try_from(n).unwrap_or(0))
                        .unwrap_or_default(),
                );
                left = left.saturating_sub(n);
            }
            p = zero_end;
        } else {
            let (Ok(a), Ok(b)) = (usize::try_from(p), usize::try_from(next)) else {
                return;
            };
            update(data.get(a..b).unwrap_or_default());
            p = next;
        }
    }
}

/// CRC-32 (IEEE, initial 0, as [`crc32`]) of `data` (at `start` in the file) with the bytes
/// of `zeros` as zero ([`zeroed_pieces`]).
#[must_use]
pub fn crc32_zeroed(data: &[u8], start: u64, zeros: &[(u64, u64)]) -> u32 {
    let mut state = 0;
    zeroed_pieces(data, start, zeros, |b| state = crc32(state, b));
    state
}

/// FNV-1a 32 (as [`fnv1a32`] from its offset basis) of `data` (at `start` in the file) with
/// the bytes of `zeros` as zero ([`zeroed_pieces`]).
#[must_use]
pub fn fnv1a32_zeroed(data: &[u8], start: u64, zeros: &[(u64, u64)]) -> u32 {
    let mut state = FNV1A32_OFFSET_BASIS;
    zeroed_pieces(data, start, zeros, |b| state = fnv1a32(state, b));
    state
}

/// The sum of big-endian words (as [`sum32_be`], words counted from the span's start) of
/// `data` (at `start` in the file) with the bytes of `zeros` as zero ([`zeroed_pieces`]).
#[must_use]
pub fn sum32_be_zeroed(data: &[u8], start: u64, zeros: &[(u64, u64)]) -> u32 {
    let (mut sum, mut pos) = (0u32, 0usize);
    zeroed_pieces(data, start, zeros, |b| {
        sum = sum32_be_at(sum, pos, b);
        pos = pos.wrapping_add(b.len());
    });
    sum
}

/// `sum` plus the words `bytes` adds when its first byte is at `pos` in the summed span: the
/// bytes up to the next word boundary each in its place of its word, then [`sum32_be`].
fn sum32_be_at(mut sum: u32, pos: usize, bytes: &[u8]) -> u32 {
    // Each byte's shift by its place in a big-endian word.
    const SHIFT: [u32; 4] = [24, 16, 8, 0];
    let lead = pos.wrapping_neg() % 4;
    let (head, rest) = bytes
        .split_at_checked(lead.min(bytes.len()))
        .unwrap_or((bytes, &[]));
    for (i, b) in head.iter().enumerate() {
        let shift = SHIFT.get(pos.wrapping_add(i) % 4).copied().unwrap_or(0);
        sum = sum.wrapping_add(u32::from(*b) << shift);
    }
    sum.wrapping_add(sum32_be(rest))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // Test data, in range.
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The definition: the span copied, the zeroed bytes cleared, then the algorithm.
    fn copied(data: &[u8], start: u64, zeros: &[(u64, u64)]) -> Vec<u8> {
        let mut v = data.to_vec();
        for (i, b) in v.iter_mut().enumerate() {
            let at = start + i as u64;
            if zeros
                .iter()
                .any(|&(z, w)| z <= at && at < z.saturating_add(w))
            {
                *b = 0;
            }
        }
        v
    }

    #[test]
    fn every_algorithm_is_the_copy_with_the_fields_cleared() {
        let mut x = 0x2545_F491_u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let data: Vec<u8> = (0..300).map(|_| next() as u8).collect();
        // Fewer under Miri, which runs the core's tests on a 32-bit target.
        for _ in 0..if cfg!(miri) { 40 } else { 2_000 } {
            let len = (next() % 300) as usize;
            let start = u64::from(next() % 1_000);
            let zeros: Vec<(u64, u64)> = (0..next() % 4)
                .map(|_| {
                    let at = start.saturating_sub(8) + u64::from(next() % 320);
                    (at, u64::from(next() % 140))
                })
                .collect();
            let d = &data[..len];
            let want = copied(d, start, &zeros);
            assert_eq!(crc32_zeroed(d, start, &zeros), crc32(0, &want));
            assert_eq!(
                fnv1a32_zeroed(d, start, &zeros),
                fnv1a32(FNV1A32_OFFSET_BASIS, &want)
            );
            assert_eq!(sum32_be_zeroed(d, start, &zeros), sum32_be(&want));
        }
    }

    #[test]
    fn a_field_outside_the_span_or_empty_changes_nothing() {
        let d = [1u8, 2, 3, 4, 5, 6, 7];
        for zeros in [&[][..], &[(0, 10)], &[(17, 4)], &[(13, 0)]] {
            assert_eq!(sum32_be_zeroed(&d, 10, zeros), sum32_be(&d), "{zeros:?}");
        }
        // The word at 4 (bytes 5, 6, 7 and a pad byte) as zero: only the first word counts.
        assert_eq!(sum32_be_zeroed(&d, 10, &[(14, 4)]), 0x0102_0304);
        // Zeroed stretches longer than the 64 zero bytes handed out at once.
        let long = [0xFFu8; 200];
        assert_eq!(
            crc32_zeroed(&long, 0, &[(3, 190)]),
            crc32(0, &copied(&long, 0, &[(3, 190)]))
        );
    }
}
