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
//! What could help in principle (not implemented): the multiply is by an odd constant, so
//! bit `k` of the next state is bit `k` of `h ^ b` xored with a function of the lower
//! bits only; and since `b` only touches the low byte, `h ^ b = h + e` with `e` a function
//! of the low byte alone, which makes the upper 24 bits a *linear* recurrence
//! (`h_N = p^N h_0 + sum e_n p^(N-n)`, parallel over `n`). Only the low byte's chain is
//! serial, and each of its bit planes is a prefix-XOR over positions given the planes
//! below it: a bit-sliced, throughput-bound formulation. It needs the bytes transposed to
//! bit planes and back (about 10 or more vector operations per byte with AVX2), so its
//! ceiling is perhaps 1.5x on a wide x86 core and a loss on a Cortex-M, where the
//! multiply is single-cycle and the byte loop is already about 2 cycles per byte.

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
