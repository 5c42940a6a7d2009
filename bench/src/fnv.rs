//! The FNV-1a question: can FNV-1a 32 over a byte slice run faster than the plain byte loop
//! without changing the result?
//!
//! The loop is one dependency chain, `h = (h ^ b) * p`: each step needs the previous
//! product, so its speed is the latency of one xor (1 cycle) plus one 32-bit multiply
//! (3 cycles on current x86-64 cores), about 4 cycles per byte, whatever the unrolling.
//! [`imul_chain`] measures the multiply's share directly: a chain of the same number of
//! dependent multiplies, with nothing else. If the FNV loop takes 4/3 of that chain's time,
//! it is exactly latency-bound and no reordering of the same operations can help.
//!
//! What cannot help, and why:
//! * unrolling (what `npuschema_core::fnv1a32` does with 8-byte chunks): removes loop
//!   overhead that already hides under the chain's latency;
//! * splitting the input into lanes: changes the result (the state of lane 2 would need
//!   the final state of lane 1);
//! * reassociating: `(h ^ b) * p` does not distribute over xor.
//!
//! What removes the chain, but does not pay in safe portable code
//! ([`fnv1a32_bitsliced`], exact, equality-tested): the multiply is by an odd constant, so
//! bit `k` of the next state is bit `k` of `h ^ b` xored with a function of the lower bits
//! only; and since `b` only touches the low byte, `h ^ b = h + e` with `e = b - 2 (b & l)`
//! a function of the low byte `l` alone, which makes the whole state a *linear* recurrence
//! given the low bytes (`h_64 = p^64 h_0 + sum e_n p^(64-n)` over a 64-byte block, parallel
//! over `n`). Only the low byte's chain is serial, and each of its 8 bit planes is one
//! prefix XOR over the 64 positions once the planes below it are known: a bit-sliced,
//! throughput-bound formulation. Its cost is the work, not a chain: moving 64 bytes into
//! bit planes, 8 prefix XORs of six shift-xor steps, and the weighted sums. With SSE2
//! `movemask` planes and a PCLMULQDQ prefix XOR (unsafe intrinsics, since removed) it ran
//! about 1.1x the byte loop on the x86-64 machine measured; in the safe integer code here
//! (planes by delta-swap transposes, which the compiler vectorises) it runs below it, about
//! 0.9x. On a Cortex-M, where the multiply is single-cycle and the byte loop already about
//! 2 cycles per byte, it would be a larger loss. `scripts/bench-summary` prints both.

use core::hint::black_box;

/// `n` dependent 32-bit multiplies by the FNV prime, each on the previous result, with
/// nothing else in the chain. Returns the last product.
///
/// The multiplier goes through [`black_box`] on every step, so the compiler can neither fold
/// `(h * p) * p` into `h * p^2` nor turn the loop into a vectorised product reduction. That
/// costs a store and a load of the constant per step, off the chain (they do not depend on
/// `h`), so the chain's speed is still the multiply's latency alone.
#[must_use]
pub fn imul_chain(n: usize) -> u32 {
    let mut h = 0x811C_9DC5_u32;
    for _ in 0..n {
        h = h.wrapping_mul(black_box(P));
    }
    h
}

const P: u32 = 0x0100_0193;

/// `p^e` (mod 2^32).
const fn pow_p(e: u32) -> u32 {
    let mut r = 1u32;
    let mut i = 0;
    while i < e {
        r = r.wrapping_mul(P);
        i += 1;
    }
    r
}

/// `p^64`: the multiplier that carries a state across one 64-byte block.
const P64: u32 = pow_p(64);

/// `WEIGHT[j][v]` = sum of `p^(64 - (8j + i))` over the set bits `i` of `v`: the weight of
/// the positions `8j..8j+8` of a 64-byte block that a byte of a position mask selects.
static WEIGHT: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut j = 0;
    while j < 8 {
        let mut v = 0;
        while v < 256 {
            let mut s = 0u32;
            let mut i = 0;
            while i < 8 {
                if v >> i & 1 == 1 {
                    s = s.wrapping_add(pow_p(64 - (8 * j as u32 + i)));
                }
                i += 1;
            }
            t[j][v] = s;
            v += 1;
        }
        j += 1;
    }
    t
};

/// `p^(64 - n)` split into 16-bit halves: `p^(64-n) = hi * 65536 + lo` with `lo` read as a
/// signed 16-bit value (and `hi` adjusted for it), so that `b * lo + (b * hi) << 16` is the
/// product modulo 2^32. Index `[0]` holds the `lo` halves, `[1]` the `hi` halves.
static SPLIT_POWERS: [[i16; 64]; 2] = {
    let mut t = [[0i16; 64]; 2];
    let mut n = 0;
    while n < 64 {
        let w = pow_p(64 - n as u32);
        let lo = (w & 0xffff) as u16 as i16;
        let hi = (w.wrapping_sub(lo as i32 as u32) >> 16) as u16 as i16;
        t[0][n] = lo;
        t[1][n] = hi;
        n += 1;
    }
    t
};

/// Sum of `b_n p^(64 - n)` over the 64 bytes of a block, modulo 2^32, as two wrapping sums
/// of 16-bit by 16-bit products in `i32` (a byte times a 16-bit half never overflows): the
/// shape the compiler turns into SIMD multiply-adds (`pmaddwd` on x86-64).
#[inline(always)]
fn byte_weighted_sum(block: &[u8; 64]) -> u32 {
    let dot = |w: &[i16; 64]| {
        block.iter().zip(w).fold(0i32, |s, (&b, &w)| {
            s.wrapping_add(i32::from(i16::from(b)) * i32::from(w))
        })
    };
    let [lo, hi] = &SPLIT_POWERS;
    (dot(lo) as u32).wrapping_add((dot(hi) as u32) << 16)
}

/// Sum of `p^(64 - n)` over the positions `n` set in `mask`.
#[inline(always)]
fn weight(mask: u64) -> u32 {
    let b = mask.to_le_bytes();
    let mut s = 0u32;
    for (t, &v) in WEIGHT.iter().zip(&b) {
        s = s.wrapping_add(t[usize::from(v)]);
    }
    s
}

/// Inclusive prefix XOR over bit positions: bit `n` of the result is the XOR of bits `0..=n`.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

#[inline(always)]
fn maj(a: u64, b: u64, c: u64) -> u64 {
    (a & b) | (c & (a ^ b))
}

/// Swap the bits of `x` selected by `mask` with the bits `shift` places above them.
#[inline(always)]
fn delta_swap(x: u64, mask: u64, shift: u32) -> u64 {
    let t = (x ^ (x >> shift)) & mask;
    x ^ t ^ (t << shift)
}

/// The 8 bit planes of a 64-byte block: bit `n` of `planes[k]` is bit `k` of byte `n`.
///
/// Each 8-byte word is an 8x8 bit matrix (row `i` = byte `i`, column `k` = bit `k`); three
/// delta swaps transpose it, so byte `k` of the result holds bit `k` of the word's 8 bytes.
/// Then the 8 words, as an 8x8 byte matrix, are transposed by swapping 4-, 2- and 1-byte
/// blocks between words, so word `k` gathers byte `k` of every word: plane `k`. Both are
/// written as the same operation on every word (or pair of words), which the compiler
/// vectorises.
#[inline(always)]
fn bit_planes(block: &[u8; 64]) -> [u64; 8] {
    let (words, _) = block.as_chunks::<8>();
    let mut p = [0u64; 8];
    for (x, w) in p.iter_mut().zip(words) {
        *x = u64::from_le_bytes(*w);
    }
    for (mask, shift) in [
        (0x00AA_00AA_00AA_00AA_u64, 7),
        (0x0000_CCCC_0000_CCCC, 14),
        (0x0000_0000_F0F0_F0F0, 28),
    ] {
        for x in &mut p {
            *x = delta_swap(*x, mask, shift);
        }
    }
    for (step, mask) in [
        (4, 0x0000_0000_FFFF_FFFF_u64),
        (2, 0x0000_FFFF_0000_FFFF),
        (1, 0x00FF_00FF_00FF_00FF),
    ] {
        let shift = 8 * step as u32;
        for group in p.chunks_exact_mut(2 * step) {
            let (lo, hi) = group.split_at_mut(step);
            for (a, b) in lo.iter_mut().zip(hi) {
                let t = ((*a >> shift) ^ *b) & mask;
                *b ^= t;
                *a ^= t << shift;
            }
        }
    }
    p
}

/// FNV-1a 32 over `bytes` from `state`, exactly, computed 64 bytes at a time without the
/// byte-serial dependency chain, in portable integer code.
///
/// For `b` a byte, `h ^ b = h + e` with `e = b - 2 (b & l)`, `l` the low byte of `h`; so
/// `h_{n+1} = (h_n + e_n) p` and over a block `h_64 = h_0 p^64 + sum e_n p^(64 - n)`, a
/// sum that needs only the 64 low bytes `l_n`. Those follow `l_{n+1} = ((l_n ^ b_n) * 0x93)
/// mod 256`; because the multiplier is odd, bit `k` of `l_{n+1}` is bit `k` of `l_n ^ b_n`
/// xored with a function of its lower bits (the adder's sum and carry), so bit plane `k`
/// of all 64 `l_n` is one prefix XOR over positions once the planes below it are known.
/// The planes are computed bit-sliced (8 planes x 64 positions in `u64`s), `sum b_n p^(64-n)`
/// by independent multiply-adds and `sum (b & l)_n p^(64-n)` by table lookups over the planes.
/// Everything is safe, portable integer code; on x86-64 the compiler vectorises the
/// transposes and the multiply-adds with the SSE2 baseline.
#[must_use]
pub fn fnv1a32_bitsliced(mut h: u32, bytes: &[u8]) -> u32 {
    let (blocks, rest) = bytes.as_chunks::<64>();
    for block in blocks {
        let b = bit_planes(block);
        let l0 = h & 0xff;
        let mut y = [0u64; 8];
        let (mut c1, mut c2) = (0u64, 0u64);
        let sum_b = byte_weighted_sum(block);
        let mut sum_bl = 0u32;
        let mut l_next = 0u32;
        for k in 0..8 {
            // z = (y << 1) + (y << 4) + (y << 7) mod 256, bit k; then l' = y + z.
            let a = if k >= 1 { y[k - 1] } else { 0 };
            let bb = if k >= 4 { y[k - 4] } else { 0 };
            let s = a ^ bb ^ c1;
            c1 = maj(a, bb, c1);
            let z = if k == 7 { s ^ y[0] } else { s };
            let f = z ^ c2;
            let g = b[k] ^ f;
            let seed = if l0 >> k & 1 == 1 { u64::MAX } else { 0 };
            let l = (prefix_xor(g) << 1) ^ seed;
            y[k] = l ^ b[k];
            c2 = maj(y[k], z, c2);
            l_next |= ((g.count_ones() & 1) ^ (l0 >> k & 1)) << k;
            sum_bl = sum_bl.wrapping_add(weight(b[k] & l) << k);
        }
        let e_sum = sum_b.wrapping_sub(sum_bl.wrapping_mul(2));
        h = h.wrapping_mul(P64).wrapping_add(e_sum);
        debug_assert_eq!(h & 0xff, l_next);
    }
    for &b in rest {
        h = (h ^ u32::from(b)).wrapping_mul(P);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_planes_are_the_bits_of_each_byte() {
        let block: [u8; 64] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5A);
        let planes = bit_planes(&block);
        for (k, plane) in planes.iter().enumerate() {
            for (n, &byte) in block.iter().enumerate() {
                assert_eq!(
                    plane >> n & 1,
                    u64::from(byte >> k & 1),
                    "plane {k} byte {n}"
                );
            }
        }
    }

    #[test]
    fn imul_chain_is_the_power_of_p() {
        assert_eq!(imul_chain(64), 0x811C_9DC5_u32.wrapping_mul(P64));
    }

    #[test]
    fn bitsliced_equals_the_byte_loop() {
        let naive = |h: u32, b: &[u8]| b.iter().fold(h, |h, &x| (h ^ u32::from(x)).wrapping_mul(P));
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        let mut data = vec![0u8; 5000];
        for v in &mut data {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *v = (x >> 24) as u8;
        }
        for len in (0..300).chain([511, 512, 513, 4096, 5000]) {
            for start in [0x811C_9DC5, 0, 0xffff_ffff, 0x1234_5678] {
                assert_eq!(
                    fnv1a32_bitsliced(start, &data[..len]),
                    naive(start, &data[..len]),
                    "len {len}"
                );
            }
        }
        assert_eq!(
            fnv1a32_bitsliced(0x811C_9DC5, &[0u8; 4096]),
            naive(0x811C_9DC5, &[0u8; 4096])
        );
        assert_eq!(
            fnv1a32_bitsliced(0x811C_9DC5, &[0xffu8; 4096]),
            naive(0x811C_9DC5, &[0xffu8; 4096])
        );
        assert_eq!(fnv1a32_bitsliced(0x811C_9DC5, b"foobar"), 0xbf9c_f968);
    }
}
