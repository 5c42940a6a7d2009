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

/// Streaming CRC-32 (IEEE, reflected, polynomial 0xEDB88320, as zlib's `crc32`): [`crc32`]
/// over each piece in turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Crc32 {
    state: u32,
}

impl Crc32 {
    /// A CRC of nothing (0).
    #[must_use]
    pub const fn new() -> Self {
        Self { state: 0 }
    }

    /// Continuing from the CRC `state` of what came before.
    #[must_use]
    pub const fn new_with_initial(state: u32) -> Self {
        Self { state }
    }

    /// Hash `bytes` next.
    #[inline]
    pub fn update(&mut self, bytes: &[u8]) {
        self.state = crc32(self.state, bytes);
    }

    /// The CRC of everything hashed so far.
    #[must_use]
    pub const fn finalize(self) -> u32 {
        self.state
    }
}

/// CRC-32 (IEEE, as zlib) of `bytes`, continuing from `state` (start with 0).
///
/// On x86-64 and AArch64 hosts this is `crc32fast` (carry-less multiply or the CRC
/// instructions, when the host has them and `crc32fast`'s `std` feature detects them: the CLI
/// and the benches enable it); everywhere else, the firmware targets included, it is
/// [`crc32_table`], which has no panic path. Both give the same result for every input
/// (`crc32_table_equals_crc32fast` below).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline]
#[must_use]
pub fn crc32(state: u32, bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(state);
    h.update(bytes);
    h.finalize()
}

/// CRC-32 (IEEE, as zlib) of `bytes`, continuing from `state` (start with 0): on this target,
/// [`crc32_table`] (on x86-64 and AArch64 hosts, `crc32fast`).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline]
#[must_use]
pub fn crc32(state: u32, bytes: &[u8]) -> u32 {
    crc32_table(state, bytes)
}

/// CRC-32 (IEEE, reflected, polynomial 0xEDB88320, as zlib's `crc32`) of `bytes`, continuing
/// from `state` (start with 0), by slicing-by-8 over eight 256-entry tables (`CRC32_TABLES`), with no panic path:
/// whole 8-byte blocks come from `as_chunks` (no index), every table read is a `u8` index into
/// a 256-entry row (in range by its type, read with `get`, whose `None` arm the compiler drops),
/// and the tail goes a byte at a time through row 0. [`crc32`] on the firmware targets.
#[must_use]
pub fn crc32_table(state: u32, bytes: &[u8]) -> u32 {
    let [t0, t1, t2, t3, t4, t5, t6, t7] = &CRC32_TABLES;
    let mut crc = !state;
    let (blocks, tail) = bytes.as_chunks::<8>();
    for &[b0, b1, b2, b3, b4, b5, b6, b7] in blocks {
        let [c0, c1, c2, c3] = (crc ^ u32::from_le_bytes([b0, b1, b2, b3])).to_le_bytes();
        crc = row(t7, c0)
            ^ row(t6, c1)
            ^ row(t5, c2)
            ^ row(t4, c3)
            ^ row(t3, b4)
            ^ row(t2, b5)
            ^ row(t1, b6)
            ^ row(t0, b7);
    }
    for &b in tail {
        let [c0, ..] = crc.to_le_bytes();
        crc = (crc >> 8) ^ row(t0, c0 ^ b);
    }
    !crc
}

/// Entry `i` of a 256-entry table row: a `u8` is always in range, so the `None` arm is dead
/// and the compiler removes it (no bounds check, no panic).
#[inline(always)]
fn row(t: &[u32; 256], i: u8) -> u32 {
    t.get(usize::from(i)).copied().unwrap_or(0)
}

/// The slicing-by-8 tables: `CRC32_TABLES[0][b]` is the CRC register after shifting byte `b`
/// through it (zlib's `crc_table[0]`), and `CRC32_TABLES[k][b]` the same followed by `k` zero
/// bytes. 8 KiB, built at compile time.
static CRC32_TABLES: [[u32; 256]; 8] = crc32_tables();

#[allow(clippy::indexing_slicing)] // Evaluated at compile time: a bad index fails the build.
const fn crc32_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0usize;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0u32;
        while k < 8 {
            c = (c >> 1) ^ ((c & 1).wrapping_neg() & CRC32_POLY);
            k = k.wrapping_add(1);
        }
        t[0][i] = c;
        i = i.wrapping_add(1);
    }
    let mut s = 1usize;
    while s < 8 {
        let mut i = 0usize;
        while i < 256 {
            let p = t[s.wrapping_sub(1)][i];
            t[s][i] = (p >> 8) ^ t[0][(p & 0xFF) as usize];
            i = i.wrapping_add(1);
        }
        s = s.wrapping_add(1);
    }
    t
}

/// The CRC-32 of `a ++ b` from `crc(a)`, `crc(b)` and `b`'s length, without reading either.
///
/// The same result as `crc32fast::Hasher::combine` (zlib's `crc32_combine`): `crc(a)` times
/// `x^(8 len_b)` modulo the polynomial, then xor `crc(b)`. The multiplications by
/// `x^(2^k)` go through a table of `x^(2^k)` by nibble, so each costs eight table reads instead of 32
/// dependent shift steps, and there is one per set bit of `len_b` (the VPMN validator combines
/// one CRC per checksummed section).
#[inline]
#[must_use]
pub fn crc32_combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    // An empty `b` has CRC 0 whatever `crc_b` says, as in crc32fast.
    if len_b == 0 {
        return crc_a;
    }
    let mut p = crc_a;
    let mut n = len_b;
    // One multiplication per set bit of `len_b`, lowest first: bit `k` multiplies by
    // `x^(2^(k+3))`, table `k mod 32`.
    while n != 0 {
        let k = usize::try_from(n.trailing_zeros() % 32).unwrap_or(0);
        let Some(t) = X2N_NIBBLES.get(k) else { break };
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
        n &= n.wrapping_sub(1);
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

/// The wrapping sum of `bytes` read as big-endian 32-bit words, a last partial word completed
/// with zero bytes: OpenType's table checksum (`CalcTableChecksum` in *The OpenType Font
/// File*: "the sum of all uint32 units of a table", the table "zero-padded to a multiple of
/// four bytes"). No panic path: whole words come from `as_chunks`, the tail is copied into
/// a zeroed word.
#[must_use]
pub fn sum32_be(bytes: &[u8]) -> u32 {
    let (words, tail) = bytes.as_chunks::<4>();
    let sum = words
        .iter()
        .fold(0u32, |s, w| s.wrapping_add(u32::from_be_bytes(*w)));
    sum.wrapping_add(u32::from_be_bytes(padded(tail)))
}

/// `tail` (at most 3 bytes) followed by zero bytes, as a word's bytes.
fn padded(tail: &[u8]) -> [u8; 4] {
    let mut w = [0u8; 4];
    for (x, y) in w.iter_mut().zip(tail) {
        *x = *y;
    }
    w
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

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
    fn the_word_sum_is_the_definition_at_every_length() {
        // OpenType's rule, a word at a time over the bytes zero-padded to whole words,
        // against the functions, at every length up to 64 bytes of noise.
        let mut x = 0x2545_F491_u32;
        let data: [u8; 64] = core::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x.to_le_bytes()[1]
        });
        for len in 0..=data.len() {
            let mut padded: Vec<u8> = data.get(..len).unwrap_or_default().to_vec();
            while !padded.len().is_multiple_of(4) {
                padded.push(0);
            }
            let be = padded.chunks(4).fold(0u32, |b, w| {
                let w: [u8; 4] = w.try_into().unwrap_or_default();
                b.wrapping_add(u32::from_be_bytes(w))
            });
            let bytes = data.get(..len).unwrap_or_default();
            assert_eq!(sum32_be(bytes), be, "len {len}");
        }
        // Known values: a wrap, and a partial last word.
        assert_eq!(sum32_be(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2]), 1);
        assert_eq!(sum32_be(&[0, 0, 0, 1, 0xab]), 0xab00_0001);
        assert_eq!(sum32_be(&[]), 0);
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

    /// Deterministic noise.
    fn noise(n: usize, mut x: u32) -> Vec<u8> {
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x.to_le_bytes()[0]
            })
            .collect()
    }

    #[test]
    fn crc32_table_known_vectors() {
        assert_eq!(crc32_table(0, b""), 0);
        assert_eq!(crc32_table(0, b"a"), 0xe8b7_be43);
        assert_eq!(crc32_table(0, b"123456789"), 0xcbf4_3926);
        assert_eq!(
            crc32_table(0, b"The quick brown fox jumps over the lazy dog"),
            0x414f_a339
        );
        assert_eq!(crc32_table(crc32_table(0, b"12345"), b"6789"), 0xcbf4_3926);
        let mut h = Crc32::new();
        h.update(b"1234");
        h.update(b"");
        h.update(b"56789");
        assert_eq!(h.finalize(), 0xcbf4_3926);
        assert_eq!(Crc32::new_with_initial(0xcbf4_3926).finalize(), 0xcbf4_3926);
    }

    #[test]
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // Test data, in range.
    fn crc32_table_equals_crc32fast() {
        // Every length to 300 and some long ones, at every start offset 0..8 in the buffer
        // (so each length is seen with the 8-byte blocks at every alignment), from several
        // states; and every split point of one buffer, chained.
        // Under Miri (the test command's 32-bit step, some 10^4 times slower) the same
        // sweep, shorter: lengths to 24 (three whole blocks and every tail) plus two long
        // ones, two states, 40 split points and 4 KiB instead of 1 MiB.
        let miri = cfg!(miri);
        let data = noise(4096 + 8, 0x9E37_79B9);
        let (short, long): (usize, &[usize]) = if miri {
            (24, &[64, 65])
        } else {
            (300, &[511, 512, 513, 1023, 1024, 1025, 4095, 4096])
        };
        let states: &[u32] = if miri {
            &[0, u32::MAX]
        } else {
            &[0, 1, 0xcbf4_3926, u32::MAX]
        };
        for len in (0..=short).chain(long.iter().copied()) {
            for start in 0..8 {
                let bytes = &data[start..start + len];
                for &state in states {
                    let mut h = crc32fast::Hasher::new_with_initial(state);
                    h.update(bytes);
                    let want = h.finalize();
                    assert_eq!(
                        crc32_table(state, bytes),
                        want,
                        "len {len} start {start} state {state:#x}"
                    );
                    assert_eq!(crc32(state, bytes), want, "len {len} start {start}");
                }
            }
        }
        let bytes = &data[3..if miri { 43 } else { 200 }];
        let want = crc32fast::hash(bytes);
        for at in 0..=bytes.len() {
            let (a, b) = bytes.split_at(at);
            assert_eq!(crc32_table(crc32_table(0, a), b), want, "split {at}");
        }
        // One MiB (4 KiB under Miri), unaligned.
        let big = noise(if miri { 4096 } else { 1 << 20 } + 3, 7);
        assert_eq!(crc32_table(0, &big[3..]), crc32fast::hash(&big[3..]));
    }
}
