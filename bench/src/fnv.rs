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
//! What does help, a little ([`fnv1a32_bitsliced`], exact, equality-tested): the multiply
//! is by an odd constant, so bit `k` of the next state is bit `k` of `h ^ b` xored with a
//! function of the lower bits only; and since `b` only touches the low byte,
//! `h ^ b = h + e` with `e = b - 2 (b & l)` a function of the low byte `l` alone, which
//! makes the whole state a *linear* recurrence given the low bytes
//! (`h_64 = p^64 h_0 + sum e_n p^(64-n)` over a 64-byte block, parallel over `n`). Only the
//! low byte's chain is serial, and each of its 8 bit planes is one prefix XOR over the 64
//! positions once the planes below it are known: a bit-sliced, throughput-bound
//! formulation. On the x86-64 machine measured it runs about 1.1x the byte loop's
//! throughput (the planes, the prefix XORs and the weighted sums cost nearly what the
//! 4-cycle chain did); on a Cortex-M, where the multiply is single-cycle and the byte loop
//! already about 2 cycles per byte, it would be a loss. `scripts/bench-summary` prints both.

/// `n` dependent 32-bit multiplies by the FNV prime, each on the previous result, with
/// nothing else in the chain (the multiply is in an `asm!` block so the compiler cannot
/// fold `(h * p) * p` into `h * p^2`). Returns the last product.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[must_use]
pub fn imul_chain(n: usize) -> u32 {
    let mut h = 0x811C_9DC5_u32;
    let p = 0x0100_0193_u32;
    for _ in 0..n {
        // SAFETY: a register-only multiply; no memory, no stack, no flags relied on.
        unsafe {
            core::arch::asm!("imul {h:e}, {p:e}", h = inout(reg) h, p = in(reg) p, options(pure, nomem, nostack));
        }
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

/// `p^(64 - n)` split for `pmaddwd`: `p^(64-n) = hi * 65536 + lo` with `lo` read as a
/// signed 16-bit value (and `hi` adjusted for it), so that byte * lo + (byte * hi) << 16
/// is the product modulo 2^32. Index `[0]` holds the `lo` halves, `[1]` the `hi` halves.
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

/// Sum of `b_n p^(64 - n)` over the 64 bytes of a block, modulo 2^32, with SSE2
/// multiply-adds on 16-bit halves of the weights (bytes are below 256, so no pair of
/// products can overflow `pmaddwd`'s 32-bit sums).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn byte_weighted_sum(block: &[u8; 64]) -> u32 {
    use core::arch::x86_64::{
        _mm_add_epi32, _mm_cvtsi128_si32, _mm_madd_epi16, _mm_set_epi64x, _mm_setzero_si128,
        _mm_shuffle_epi32, _mm_slli_epi32, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };
    let (words, _) = block.as_chunks::<8>();
    let w = |i: usize| words.get(i).map_or(0, |c| i64::from_le_bytes(*c));
    let (lo_w, _) = SPLIT_POWERS[0].as_chunks::<4>();
    let (hi_w, _) = SPLIT_POWERS[1].as_chunks::<4>();
    let q = |t: &[[i16; 4]], i: usize| {
        t.get(i).map_or(0, |c| {
            i64::from(c[0] as u16)
                | i64::from(c[1] as u16) << 16
                | i64::from(c[2] as u16) << 32
                | i64::from(c[3] as u16) << 48
        })
    };
    // SAFETY: SSE2 is part of the x86-64 baseline; register-only intrinsics.
    unsafe {
        let zero = _mm_setzero_si128();
        let (mut acc_lo, mut acc_hi) = (_mm_setzero_si128(), _mm_setzero_si128());
        for i in 0..4 {
            let v = _mm_set_epi64x(w(2 * i + 1), w(2 * i));
            let halves = [_mm_unpacklo_epi8(v, zero), _mm_unpackhi_epi8(v, zero)];
            for (j, x) in halves.into_iter().enumerate() {
                let k = 4 * i + 2 * j;
                let lo = _mm_set_epi64x(q(lo_w, k + 1), q(lo_w, k));
                let hi = _mm_set_epi64x(q(hi_w, k + 1), q(hi_w, k));
                acc_lo = _mm_add_epi32(acc_lo, _mm_madd_epi16(x, lo));
                acc_hi = _mm_add_epi32(acc_hi, _mm_madd_epi16(x, hi));
            }
        }
        let acc = _mm_add_epi32(acc_lo, _mm_slli_epi32(acc_hi, 16));
        let acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0b01_00_11_10));
        let acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0b10_11_00_01));
        _mm_cvtsi128_si32(acc) as u32
    }
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

/// The 8 bit planes of a 64-byte block: bit `n` of `planes[k]` is bit `k` of byte `n`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn bit_planes(block: &[u8; 64]) -> [u64; 8] {
    use core::arch::x86_64::{__m128i, _mm_add_epi8, _mm_movemask_epi8, _mm_set_epi64x};
    let (words, _) = block.as_chunks::<8>();
    let w = |i: usize| words.get(i).map_or(0, |c| i64::from_le_bytes(*c));
    let mut planes = [0u64; 8];
    // SAFETY: SSE2 is part of the x86-64 baseline (every x86_64 target enables it); the
    // intrinsics used are register-only.
    unsafe {
        let mut v: [__m128i; 4] = [
            _mm_set_epi64x(w(1), w(0)),
            _mm_set_epi64x(w(3), w(2)),
            _mm_set_epi64x(w(5), w(4)),
            _mm_set_epi64x(w(7), w(6)),
        ];
        for k in (0..8).rev() {
            let mut m = 0u64;
            for (i, x) in v.iter_mut().enumerate() {
                m |= u64::from(_mm_movemask_epi8(*x) as u16) << (16 * i);
                *x = _mm_add_epi8(*x, *x);
            }
            planes[k] = m;
        }
    }
    planes
}

/// FNV-1a 32 over `bytes` from `state`, exactly, computed 64 bytes at a time without the
/// byte-serial dependency chain (x86-64; the SSE2 it uses is part of the baseline).
///
/// For `b` a byte, `h ^ b = h + e` with `e = b - 2 (b & l)`, `l` the low byte of `h`; so
/// `h_{n+1} = (h_n + e_n) p` and over a block `h_64 = h_0 p^64 + sum e_n p^(64 - n)`, a
/// sum that needs only the 64 low bytes `l_n`. Those follow `l_{n+1} = ((l_n ^ b_n) * 0x93)
/// mod 256`; because the multiplier is odd, bit `k` of `l_{n+1}` is bit `k` of `l_n ^ b_n`
/// xored with a function of its lower bits (the adder's sum and carry), so bit plane `k`
/// of all 64 `l_n` is one prefix XOR over positions once the planes below it are known.
/// The planes are computed bit-sliced (8 planes x 64 positions in `u64`s), and the sum by
/// table lookups over the planes of `b` and `b & l`.
///
/// The prefix XOR is one carry-less multiply by all-ones where the CPU has PCLMULQDQ
/// (checked at run time), else six shift-xor steps.
#[cfg(target_arch = "x86_64")]
#[must_use]
#[allow(unsafe_code)]
pub fn fnv1a32_bitsliced(h: u32, bytes: &[u8]) -> u32 {
    if std::arch::is_x86_feature_detected!("pclmulqdq") {
        // SAFETY: the CPU has PCLMULQDQ, checked just above.
        unsafe { bitsliced_clmul(h, bytes) }
    } else {
        bitsliced_with(h, bytes, prefix_xor)
    }
}

/// [`fnv1a32_bitsliced`] with the prefix XOR as a carry-less multiply.
///
/// # Safety
/// The CPU must support PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
#[allow(unsafe_code)]
unsafe fn bitsliced_clmul(h: u32, bytes: &[u8]) -> u32 {
    use core::arch::x86_64::{_mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x};
    // The closure inherits this function's target features, so the intrinsics are safe.
    bitsliced_with(h, bytes, |x| {
        _mm_cvtsi128_si64(_mm_clmulepi64_si128(
            _mm_set_epi64x(0, x as i64),
            _mm_set_epi64x(0, -1),
            0,
        )) as u64
    })
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn bitsliced_with(mut h: u32, bytes: &[u8], prefix: impl Fn(u64) -> u64) -> u32 {
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
            let l = (prefix(g) << 1) ^ seed;
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

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

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
