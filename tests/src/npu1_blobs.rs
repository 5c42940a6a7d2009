//! NPU1 blobs and buffers for the differential tests: a blob with a given number of regions
//! (baked, runtime, zero-size runtime), buffers at chosen alignments, and the word edits
//! and resealing that make faults.
#![allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::missing_panics_doc,
    clippy::unwrap_used,
    clippy::cast_possible_truncation
)]

use npuschema_core::{FNV1A32_OFFSET_BASIS, fnv1a32};
use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

/// A copy of `bytes` at an address `misalign` past a 16-byte boundary, inside `buf`.
pub fn placed<'a>(buf: &'a mut Vec<u8>, bytes: &[u8], misalign: usize) -> &'a mut [u8] {
    buf.clear();
    buf.resize(bytes.len() + 32, 0);
    let start = buf.as_ptr().align_offset(16) + misalign;
    let out = &mut buf[start..start + bytes.len()];
    out.copy_from_slice(bytes);
    out
}

/// A valid blob with `regions` regions: 64 baked bytes, runtime 100, runtime 0, runtime 40,
/// then runtime 16 for each further one; a 4-byte command stream.
pub fn blob(regions: usize) -> Vec<u8> {
    let weights: Vec<u8> = (0..64u8).collect();
    let stream = [0u8, 0, 0xff, 0xff];
    let mut specs = vec![
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&weights),
        },
        RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(100),
        },
        RegionSpec {
            role: Role::Input,
            data: RegionData::Runtime(0),
        },
        RegionSpec {
            role: Role::Output,
            data: RegionData::Runtime(40),
        },
    ];
    while specs.len() < regions {
        specs.push(RegionSpec {
            role: Role::Other,
            data: RegionData::Runtime(16),
        });
    }
    specs.truncate(regions);
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .unwrap()
}

/// Write the little-endian word `v` at `at`.
pub fn put(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The little-endian word at `at`.
#[must_use]
pub fn get(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Recompute the header checksum (FNV-1a 32 of the bytes after the header).
pub fn reseal(b: &mut [u8]) {
    if b.len() >= 32 {
        let sum = fnv1a32(FNV1A32_OFFSET_BASIS, &b[32..]);
        put(b, 28, sum);
    }
}

/// One to three bytes of the header and region table (`..table_end`) set to 0, 0xFF, one
/// more, or a random value; then, three times in four, the checksum resealed (so most
/// mutants get past it to the checks behind it).
pub fn mutate(b: &mut [u8], table_end: usize, next: &mut impl FnMut() -> u32) {
    for _ in 0..=(next() % 3) {
        let at = (next() as usize) % table_end;
        b[at] = match next() % 4 {
            0 => 0,
            1 => 0xFF,
            2 => b[at].wrapping_add(1),
            _ => next() as u8,
        };
    }
    if !next().is_multiple_of(4) {
        reseal(b);
    }
}

/// A small deterministic PRNG (xorshift32): reproducible, no dependency.
pub fn xorshift(mut s: u32) -> impl FnMut() -> u32 {
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    }
}
