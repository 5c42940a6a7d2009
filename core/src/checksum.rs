//! Checksum built-ins named by the schema language.

/// FNV-1a 32-bit offset basis.
pub const FNV1A32_OFFSET_BASIS: u32 = 0x811C_9DC5;
/// FNV-1a 32-bit prime.
pub const FNV1A32_PRIME: u32 = 0x0100_0193;

/// FNV-1a 32 over `bytes`, continuing from `state` (start with [`FNV1A32_OFFSET_BASIS`]).
///
/// FNV-1a is one serial dependency chain (`h = (h ^ b) * p`): each byte needs the previous
/// product, so neither unrolling nor splitting across lanes makes it faster (an 8-way
/// unrolled loop measured 1.001x on x86-64 and was 2.5x the code on Cortex-M).
///
/// The loop is written bottom-tested (the first byte is taken before it, the test for the
/// next at its end), because LLVM does not rotate loops when optimising for size: a plain
/// `for` over the slice, inlined into the validator at `opt-level = "z"`, became a
/// top-tested loop over an index, 7 instructions a byte on a Cortex-M55 (`cmp`, `beq`,
/// `ldrb [base, i]`, `adds`, `eors`, `mul`, `b`) against gcc's 6 for the C peer at `-Os`.
/// This one is 5 (`ldrb` with post-increment, `eors`, `subs`, `mul`, `bne`), inlined or
/// not, with no bounds check; the result is the same for every input.
#[inline]
#[must_use]
pub fn fnv1a32(mut state: u32, bytes: &[u8]) -> u32 {
    let mut it = bytes.iter();
    if let Some(mut b) = it.next() {
        loop {
            state = (state ^ u32::from(*b)).wrapping_mul(FNV1A32_PRIME);
            match it.next() {
                Some(next) => b = next,
                None => break,
            }
        }
    }
    state
}

/// Streaming CRC-32 (IEEE, reflected, polynomial 0xEDB88320, as zlib's `crc32`).
pub type Crc32 = crc32fast::Hasher;

/// CRC-32 (IEEE, as zlib) of `bytes`, continuing from `state` (start with 0).
#[inline]
#[must_use]
pub fn crc32(state: u32, bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(state);
    h.update(bytes);
    h.finalize()
}

/// The CRC-32 of `a ++ b` from `crc(a)`, `crc(b)` and `b`'s length, without reading either.
///
/// The same result as `crc32fast::Hasher::combine` (zlib's `crc32_combine`): `crc(a)` times
/// `x^(8 len_b)` modulo the polynomial, then xor `crc(b)`. The multiplications by
/// `x^(2^k)` go through a table of `x^(2^k)` by nibble, so each costs eight table reads instead of 32
/// dependent shift steps (the VPMN validator combines one CRC per checksummed section).
#[inline]
#[must_use]
pub fn crc32_combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    // An empty `b` has CRC 0 whatever `crc_b` says, as in crc32fast.
    if len_b == 0 {
        return crc_a;
    }
    let mut p = crc_a;
    let mut n = len_b;
    let mut tables = X2N_NIBBLES.iter().cycle();
    while n != 0 {
        let Some(t) = tables.next() else { break };
        if n & 1 != 0 {
            let [b0, b1, b2, b3] = p.to_be_bytes();
            let nibbles = [
                b0 >> 4,
                b0 & 0xF,
                b1 >> 4,
                b1 & 0xF,
                b2 >> 4,
                b2 & 0xF,
                b3 >> 4,
                b3 & 0xF,
            ];
            p = t.iter().zip(nibbles).fold(0, |acc, (row, v)| {
                acc ^ row.get(usize::from(v)).copied().unwrap_or(0)
            });
        }
        n >>= 1;
    }
    p ^ crc_b
}

const CRC32_POLY: u32 = 0xEDB8_8320;

/// `a(x) * b(x)` modulo the CRC-32 polynomial, reflected (bit 31 is `x^0`).
const fn gf2_multiply(mut a: u32, mut b: u32) -> u32 {
    let mut p = 0u32;
    let mut i = 0u32;
    while i < 32 {
        p ^= b & (a >> 31).wrapping_neg();
        a = a.wrapping_shl(1);
        b = (b >> 1) ^ ((b & 1).wrapping_neg() & CRC32_POLY);
        i = i.wrapping_add(1);
    }
    p
}

/// `X2N_NIBBLES[k][j][v]` is `x^(2^(k+3))` times nibble `v` placed at bits `28 - 4j`:
/// multiplying a CRC state by `x^(2^(k+3))` (appending `2^k` zero bytes) is the xor of one
/// entry per nibble of the state. `x^(2^(k+3))` repeats with period 32 in `k` (as zlib's
/// `x2n_table`), so 32 tables serve every 64-bit length. 16 KiB, built at compile time.
#[allow(clippy::indexing_slicing)] // Evaluated at compile time: a bad index fails the build.
static X2N_NIBBLES: [[[u32; 16]; 8]; 32] = {
    let mut t = [[[0u32; 16]; 8]; 32];
    let mut x2n = 0x0080_0000u32; // x^8
    let mut k = 0usize;
    while k < 32 {
        let mut j = 0usize;
        let mut shift = 28u32;
        while j < 8 {
            let mut v = 0u32;
            while v < 16 {
                t[k][j][v as usize] = gf2_multiply(x2n, v.wrapping_shl(shift));
                v = v.wrapping_add(1);
            }
            j = j.wrapping_add(1);
            shift = shift.wrapping_sub(4);
        }
        x2n = gf2_multiply(x2n, x2n);
        k = k.wrapping_add(1);
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a32_known_vectors() {
        // Published FNV-1a 32 test vectors.
        assert_eq!(fnv1a32(FNV1A32_OFFSET_BASIS, b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(FNV1A32_OFFSET_BASIS, b"a"), 0xe40c_292c);
        assert_eq!(fnv1a32(FNV1A32_OFFSET_BASIS, b"foobar"), 0xbf9c_f968);
        let split = fnv1a32(fnv1a32(FNV1A32_OFFSET_BASIS, b"foo"), b"bar");
        assert_eq!(split, 0xbf9c_f968);
    }

    #[test]
    fn fnv1a32_bottom_tested_loop_is_the_definition() {
        // The definition, one byte at a time, against the loop, at every length and
        // split point up to 64 bytes of noise, from several states.
        let mut x = 0x9E37_79B9_u32;
        let data: [u8; 64] = core::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x.to_le_bytes()[0]
        });
        for state in [FNV1A32_OFFSET_BASIS, 0, u32::MAX] {
            for len in 0..=data.len() {
                let bytes = data.get(..len).unwrap_or_default();
                let want = bytes.iter().fold(state, |h, &b| {
                    (h ^ u32::from(b)).wrapping_mul(FNV1A32_PRIME)
                });
                assert_eq!(fnv1a32(state, bytes), want, "len {len}");
                for at in 0..=len {
                    let (a, b) = bytes.split_at(at);
                    assert_eq!(fnv1a32(fnv1a32(state, a), b), want, "len {len} split {at}");
                }
            }
        }
    }

    #[test]
    fn crc32_matches_zlib_and_combines() {
        assert_eq!(crc32(0, b"123456789"), 0xcbf4_3926);
        let a = crc32(0, b"12345");
        let b = crc32(0, b"6789");
        assert_eq!(crc32_combine(a, b, 4), 0xcbf4_3926);
        assert_eq!(crc32(a, b"6789"), 0xcbf4_3926);
    }

    #[test]
    fn crc32_combine_equals_crc32fast_for_many_lengths() {
        let mut x = 0x1234_5678u32;
        for len in [
            0u64,
            1,
            2,
            3,
            7,
            8,
            63,
            64,
            65,
            969_280,
            1 << 20,
            (1 << 32) + 5,
            u64::MAX,
        ] {
            x = x.wrapping_mul(0x9E37_79B9).wrapping_add(1);
            let (a, b) = (x, x.rotate_left(13));
            let mut h = crc32fast::Hasher::new_with_initial_len(a, 0);
            h.combine(&crc32fast::Hasher::new_with_initial_len(b, len));
            assert_eq!(crc32_combine(a, b, len), h.finalize(), "len {len}");
        }
    }
}
