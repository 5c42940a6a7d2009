//! Files for `tests/schemas/nested.yaml` (structs inside structs and a fixed array of
//! structs), built byte by byte so the generated reader is not used to make its own input.
//! Shared by tests/tests/schema_constructs.rs, tests/tests/interp_differential.rs,
//! tests/tests/interp_fast.rs and the fuzz seeds (fuzz/seeds/src/constructs.rs).

/// Byte size of the header.
pub const HEADER: usize = 62;
/// Byte size of one entry.
pub const ENTRY: usize = 20;

fn le32(out: &mut Vec<u8>, ws: &[usize]) {
    for &w in ws {
        out.extend_from_slice(&u32::try_from(w).unwrap_or(u32::MAX).to_le_bytes());
    }
}

/// A valid file: the header (magic, `version` 1.3, `slices[0]` the 6-byte payload,
/// `slices[1]` one byte after it, `slices[2..4]` empty, a big-endian `stamp` of kind
/// `stamp_kind` whose `tool` version, in the schema's little-endian order, is 2.7), one
/// entry per point (an id from 10, the point, a slice locating its 2-byte blob, the
/// dimensions `[(1, 2), (3, 4)]`), the
/// payload `PAYLD!`, then the blobs.
#[must_use]
pub fn file(points: &[(i16, i16)], stamp_kind: u8) -> Vec<u8> {
    let payload_at = HEADER + ENTRY * points.len();
    let total = payload_at + 6 + 2 * points.len();
    let mut b = Vec::new();
    le32(&mut b, &[0x5453_454E]);
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&3u16.to_le_bytes());
    le32(&mut b, &[payload_at, 6, payload_at + 6, 1, 0, 0, 0, 0]);
    b.extend_from_slice(&0x0102_0304_0506_0708u64.to_be_bytes());
    b.extend_from_slice(&[stamp_kind, 0]);
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&7u16.to_le_bytes());
    le32(&mut b, &[points.len(), total]);
    for (i, &(x, y)) in points.iter().enumerate() {
        le32(&mut b, &[10 + i]);
        b.extend_from_slice(&x.to_le_bytes());
        b.extend_from_slice(&y.to_le_bytes());
        le32(&mut b, &[payload_at + 6 + 2 * i, 2]);
        b.extend_from_slice(&[1, 2, 3, 4]);
    }
    b.extend_from_slice(b"PAYLD!");
    for i in 0..points.len() {
        b.extend_from_slice(&[0xB0 | u8::try_from(i & 0xF).unwrap_or(0); 2]);
    }
    b
}
