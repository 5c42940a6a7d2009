//! Checksum built-ins named by the schema language.

/// FNV-1a 32-bit offset basis.
pub const FNV1A32_OFFSET_BASIS: u32 = 0x811C_9DC5;
/// FNV-1a 32-bit prime.
pub const FNV1A32_PRIME: u32 = 0x0100_0193;

/// FNV-1a 32 over `bytes`, continuing from `state` (start with [`FNV1A32_OFFSET_BASIS`]).
///
/// FNV-1a is one serial dependency chain (`h = (h ^ b) * p`): each byte needs the previous
/// product, so it cannot be split across lanes without changing the result. The loop is
/// unrolled by eight over fixed-size chunks so that the only work per byte is the xor and
/// the multiply, with no bounds checks.
#[inline]
#[must_use]
pub fn fnv1a32(mut state: u32, bytes: &[u8]) -> u32 {
    let (chunks, rest) = bytes.as_chunks::<8>();
    for c in chunks {
        for &b in c {
            state = (state ^ u32::from(b)).wrapping_mul(FNV1A32_PRIME);
        }
    }
    for &b in rest {
        state = (state ^ u32::from(b)).wrapping_mul(FNV1A32_PRIME);
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
#[inline]
#[must_use]
pub fn crc32_combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial_len(crc_a, 0);
    h.combine(&crc32fast::Hasher::new_with_initial_len(crc_b, len_b));
    h.finalize()
}

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
    fn crc32_matches_zlib_and_combines() {
        assert_eq!(crc32(0, b"123456789"), 0xcbf4_3926);
        let a = crc32(0, b"12345");
        let b = crc32(0, b"6789");
        assert_eq!(crc32_combine(a, b, 4), 0xcbf4_3926);
        assert_eq!(crc32(a, b"6789"), 0xcbf4_3926);
    }
}
