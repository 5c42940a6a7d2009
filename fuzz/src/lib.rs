//! Helpers shared by the fuzz targets. The C peer is the `npuschema-cpeer` crate.

use npuschema_generated::npu1::Npu1;
use npuschema_refreader::generated_codes as refcodes;
use npuschema_refreader::npu1 as refnpu1;

/// The common input of the NPU1 targets: a 4-byte prefix, then the blob.
///
/// * byte 0 bit 0: recompute the FNV-1a checksum after the fuzzer's edits, so mutations
///   reach the checks behind it; bits 4-7: the blob's misalignment from 16 (0-15);
/// * bytes 1-2: arena length / 16 (LE);
/// * byte 3: the arena's misalignment from 16 (low 4 bits).
pub struct Npu1Input {
    blob_buf: Vec<u8>,
    blob_at: usize,
    blob_len: usize,
    arena_buf: Vec<u8>,
    arena_at: usize,
    arena_len: usize,
}

fn aligned(len: usize, misalign: usize) -> (Vec<u8>, usize) {
    let buf = vec![0u8; len + 32];
    let at = buf.as_ptr().align_offset(16) + misalign;
    (buf, at)
}

impl Npu1Input {
    /// Parse the prefix and copy the blob to a buffer at the requested alignment.
    #[must_use]
    pub fn parse(data: &[u8]) -> Option<Self> {
        let (&[flags, l0, l1, am], blob) = data.split_first_chunk::<4>()?;
        let mut blob = blob.to_vec();
        if flags & 1 != 0 && blob.len() >= 32 {
            let sum = npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, &blob[32..]);
            blob[28..32].copy_from_slice(&sum.to_le_bytes());
        }
        let (mut blob_buf, blob_at) = aligned(blob.len(), usize::from(flags >> 4));
        blob_buf[blob_at..blob_at + blob.len()].copy_from_slice(&blob);
        let arena_len = usize::from(u16::from_le_bytes([l0, l1])) * 16;
        let (arena_buf, arena_at) = aligned(arena_len, usize::from(am & 15));
        Some(Self {
            blob_buf,
            blob_at,
            blob_len: blob.len(),
            arena_buf,
            arena_at,
            arena_len,
        })
    }

    /// The blob.
    #[must_use]
    pub fn blob(&self) -> &[u8] {
        &self.blob_buf[self.blob_at..self.blob_at + self.blob_len]
    }

    /// The blob and the arena, together.
    pub fn parts(&mut self) -> (&[u8], &mut [u8]) {
        (
            &self.blob_buf[self.blob_at..self.blob_at + self.blob_len],
            &mut self.arena_buf[self.arena_at..self.arena_at + self.arena_len],
        )
    }

    /// Make the 4-byte prefix for a seed blob: checksum kept, blob and arena aligned,
    /// `arena_len` bytes of arena (rounded up to 16).
    #[must_use]
    pub fn seed(blob: &[u8], arena_len: usize) -> Vec<u8> {
        let n = u16::try_from(arena_len.div_ceil(16))
            .unwrap_or(u16::MAX)
            .to_le_bytes();
        let mut out = vec![0, n[0], n[1], 0];
        out.extend_from_slice(blob);
        out
    }
}

/// Whether `blob` says NPU1 version 2, which the version 1 reference readers (binrw, the C
/// peer) do not read: the targets that compare with them compare version 1 only.
#[must_use]
pub fn is_npu1_v2(blob: &[u8]) -> bool {
    blob.get(4..8) == Some(&2u32.to_le_bytes()[..])
}

/// Hold the generated validator against the binrw reference reader on `blob` (panics on
/// any disagreement; the one modelled difference is the schema's `unknown-region-flags`,
/// checked per descriptor before the baked bounds). On success every field is compared.
/// A version 2 blob is not compared (the reference reader knows version 1).
pub fn npu1_differential(blob: &[u8]) {
    if is_npu1_v2(blob) {
        return;
    }
    let unknown_flags = |i: usize| {
        blob.get(32 + 16 * i + 4..32 + 16 * i + 8).is_some_and(|w| {
            u32::from_le_bytes([w[0], w[1], w[2], w[3]]) & !refnpu1::FLAG_BAKED != 0
        })
    };
    match (Npu1::validate(blob), refnpu1::read(blob)) {
        (Ok(g), Ok(r)) => {
            let h = g.header();
            let rh = &r.header;
            assert_eq!(
                (h.magic(), h.version(), h.total_bytes(), h.region_count()),
                (rh.magic, rh.version, rh.total_bytes, rh.region_count)
            );
            assert_eq!(
                (h.cmd_offset(), h.cmd_bytes(), h.accel().raw(), h.checksum()),
                (rh.cmd_offset, rh.cmd_bytes, rh.accel, rh.checksum)
            );
            assert_eq!(Some(g.cmd_stream()), r.cmd_stream(blob));
            assert_eq!(g.regions().len(), r.regions.len());
            for (i, (gr, rr)) in g.regions().zip(&r.regions).enumerate() {
                assert_eq!(gr.index() as usize, i);
                assert_eq!(
                    (
                        gr.role().raw(),
                        gr.flags().bits(),
                        gr.size(),
                        gr.data_offset()
                    ),
                    (rr.role, rr.flags, rr.size, rr.data_offset)
                );
                assert_eq!(gr.data(), r.region_data(blob, i));
            }
        }
        (Err(g), Ok(r)) => {
            assert_eq!(
                g.code, "unknown-region-flags",
                "generated rejects ({g}), reference accepts"
            );
            let i = g.field.index as usize;
            assert!(unknown_flags(i) && (0..i).all(|j| !unknown_flags(j)));
            assert!(i < r.regions.len());
        }
        (Ok(_), Err(e)) => panic!("generated accepts, reference rejects: {e}"),
        (Err(g), Err(e)) => {
            if g.code == "unknown-region-flags" && e.rule() == "baked-region" {
                assert!(unknown_flags(g.field.index as usize));
            } else {
                assert!(
                    refcodes::npu1(e.rule()).contains(&g.code),
                    "generated {g} vs reference {e}"
                );
            }
        }
    }
}

/// The common input of the VPMN targets: byte 0 bit 0 = recompute the section and file
/// checksums after the fuzzer's edits (`refreader::vpmn::reseal`), so mutations reach the
/// rules behind them; then the file. `None` for an empty input.
#[must_use]
pub fn vpmn_input(data: &[u8]) -> Option<Vec<u8>> {
    let (&flags, file) = data.split_first()?;
    let mut file = file.to_vec();
    if flags & 1 != 0 {
        let _ = npuschema_refreader::vpmn::reseal(&mut file);
    }
    Some(file)
}

/// The schema interpreter over `schema/npu1.yaml`, built once (the interpreter targets).
#[must_use]
pub fn interp_npu1() -> &'static npuschema_codegen::interp::Interp<'static> {
    static I: std::sync::OnceLock<npuschema_codegen::interp::Interp<'static>> =
        std::sync::OnceLock::new();
    I.get_or_init(|| interp(include_str!("../../schema/npu1.yaml"), "schema/npu1.yaml"))
}

/// The schema interpreter over `schema/vpmn.yaml`, built once.
#[must_use]
pub fn interp_vpmn() -> &'static npuschema_codegen::interp::Interp<'static> {
    static I: std::sync::OnceLock<npuschema_codegen::interp::Interp<'static>> =
        std::sync::OnceLock::new();
    I.get_or_init(|| interp(include_str!("../../schema/vpmn.yaml"), "schema/vpmn.yaml"))
}

fn interp(text: &str, name: &str) -> npuschema_codegen::interp::Interp<'static> {
    let c = npuschema_codegen::load_str(text, name).unwrap_or_else(|d| panic!("{d}"));
    npuschema_codegen::interp::Interp::new(Box::leak(Box::new(c)))
}

/// The schema interpreter over a schema's text (`name` in its diagnostics), leaked so the
/// fuzz targets can keep it for the process (`interp_constructs`).
#[must_use]
pub fn interp_of(text: &str, name: &str) -> npuschema_codegen::interp::Interp<'static> {
    interp(text, name)
}
