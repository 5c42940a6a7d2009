//! Shared pieces of the benchmarks in `benches/`: the fixtures and the bare loops the
//! validators are held against. The C peer (`peers/npu1_ref.c` at -O2) is the
//! `npuschema-cpeer` crate.
//!
//! Every comparison is a ratio between two functions measured in the same run;
//! `scripts/bench-summary` prints them.

// Host-side fixture code on small constant sizes.
#![allow(clippy::arithmetic_side_effects)]

pub mod fnv;
pub mod ratio;

use std::path::PathBuf;

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role, Set};

/// The `shared/` folder: `NPUSCHEMA_CORPUS`, else `<workspace>/../shared` when it exists.
#[must_use]
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("NPUSCHEMA_CORPUS").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(v));
    }
    let guess = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("..")
        .join("shared");
    guess.is_dir().then_some(guess)
}

/// The real VPMN files, `(name, bytes)`, or `None` with a skip note.
#[must_use]
pub fn vpmn_files() -> Option<Vec<(String, Vec<u8>)>> {
    let Some(dir) = shared_dir() else {
        eprintln!("skipping VPMN benches: NPUSCHEMA_CORPUS not set and ../shared not found");
        return None;
    };
    let dir = dir.join("corpus").join("vpmn");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_name()?.to_string_lossy().into_owned();
            (name.ends_with(".nb") || name.ends_with(".nbg"))
                .then(|| Some((name, std::fs::read(&p).ok()?)))?
        })
        .collect();
    out.sort();
    Some(out)
}

/// Deterministic pseudo-random bytes (xorshift64), for weights and command streams.
#[must_use]
pub fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

/// Size of the worked example's baked weights (section 6).
pub const DOC_WEIGHT_BYTES: usize = 1_179_648;
/// Size of the worked example's runtime scratch region.
pub const DOC_SCRATCH_BYTES: u32 = 256 * 1024;
/// Size of the worked example's command stream.
pub const DOC_CMD_BYTES: usize = 800;

/// A blob in a buffer whose first byte is 16-byte aligned (the binder hands the NPU
/// addresses inside the blob, which must be 16-byte aligned).
pub struct AlignedBlob {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBlob {
    /// Write `w` into a fresh 16-byte aligned buffer.
    ///
    /// # Panics
    /// When the writer fails (the fixtures are valid by construction).
    #[must_use]
    #[allow(clippy::expect_used)]
    pub fn write(w: &Npu1Writer<'_, Set>) -> Self {
        let len = w.encoded_len().expect("fixture layout fits");
        let mut buf = vec![0u8; len + 15];
        let start = buf.as_ptr().align_offset(16);
        let n = w
            .write_into(buf.get_mut(start..).unwrap_or_default())
            .expect("fixture writes");
        assert_eq!(n, len);
        Self { buf, start, len }
    }

    /// The blob's bytes.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        self.buf
            .get(self.start..self.start + self.len)
            .unwrap_or_default()
    }
}

/// The document's worked-example blob (section 6) made by the generated writer:
/// 1,179,648 bytes of weights baked, a 256 KiB runtime scratch region, an 800-byte
/// command stream, accel 0. Weights and stream are deterministic pseudo-random bytes.
#[must_use]
pub fn doc_example_blob() -> AlignedBlob {
    let weights = noise(DOC_WEIGHT_BYTES, 0x2545_F491_4F6C_DD1D);
    let cmd = noise(DOC_CMD_BYTES, 0x9E37_79B9_7F4A_7C15);
    let specs = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&weights),
        },
        RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(DOC_SCRATCH_BYTES),
        },
    ];
    AlignedBlob::write(
        &Npu1Writer::new()
            .version(npuschema_generated::npu1::VERSION_V1)
            .accel(Accel::from_raw(0))
            .regions(&specs)
            .cmd_stream(&cmd),
    )
}

/// A small blob for per-call costs: eight regions (the C peer's and the NPU's maximum),
/// alternating 64 baked bytes and 1 KiB runtime, a 16-byte command stream.
#[must_use]
pub fn small_blob() -> AlignedBlob {
    let baked: Vec<Vec<u8>> = (0..4).map(|i| noise(64, 77 + i)).collect();
    let cmd = noise(16, 5);
    let specs: Vec<RegionSpec<'_>> = (0..8)
        .map(|i| {
            if i % 2 == 0 {
                RegionSpec {
                    role: Role::Weights,
                    data: RegionData::Baked(baked.get(i / 2).map_or(&[][..], |b| b)),
                }
            } else {
                RegionSpec {
                    role: Role::Scratch,
                    data: RegionData::Runtime(1024),
                }
            }
        })
        .collect();
    AlignedBlob::write(
        &Npu1Writer::new()
            .version(npuschema_generated::npu1::VERSION_V1)
            .accel(Accel::Macs128)
            .regions(&specs)
            .cmd_stream(&cmd),
    )
}

/// Arena bytes the small blob's four runtime regions need at an aligned start.
pub const SMALL_ARENA_BYTES: usize = 4 * 1024;

/// The plain FNV-1a byte loop the validator is held against: the definition, nothing else.
#[inline(never)]
#[must_use]
pub fn bare_fnv1a(bytes: &[u8]) -> u32 {
    let mut h = 0x811C_9DC5_u32;
    for &b in bytes {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

/// Which VPMN validator [`vpmn_validate`] runs (the one place to switch).
pub const VPMN_VALIDATOR: &str = "Vpmn::validate";

/// Validate one VPMN file with [`VPMN_VALIDATOR`] (the generated validator: every bound,
/// record rule, section CRC and the file CRC); `true` when accepted.
#[must_use]
pub fn vpmn_validate(bytes: &[u8]) -> bool {
    npuschema_generated::vpmn::Vpmn::validate(bytes).is_ok()
}
