//! Vela's driver-actions payload around the register command stream: COP1 (the default) and
//! COP2 (`--cop-format COP2`, required by `--separate-io-regions`).
//!
//! COP1, as `ethosu/vela/driver_actions.py` (Vela 5.2.0) writes it: little-endian 32-bit
//! words, "COP1" (0x31504F43), then actions, each a tag word `id | reserved << 8 | param << 16`:
//!
//! | id | action | words |
//! |---|---|---|
//! | 0x01 | OPTIMIZER_CONFIG, param = patch << 4 \| rel | tag, CONFIG, ID |
//! | 0x02 | COMMAND_STREAM, length in words = reserved << 16 \| param | tag, then the stream |
//! | 0x03 | READ_APB (register read-back, debug) | tag |
//! | 0x04 | DUMP_SHRAM (debug) | tag |
//! | 0x05 | NOP (pads the stream start to 16 bytes) | tag |
//!
//! Vela emits "COP1", CONFIG, three NOPs and COMMAND_STREAM, so the stream starts at byte 32.
//!
//! COP1 is read through the view generated from `schema/ethos_u_cop1.yaml` (a record stream
//! of actions; its validation steps are the checks and their error codes); zero words after
//! the actions are padding. COP2 is read through `schema/ethos_u_cop2.yaml`'s view, whose
//! steps are all of its checks too (fill bytes with `fill`, the stream's place after the
//! metadata with `record.body_offset` and `record.end`).
//!
//! COP2 is written by Vela's C++ back end (regor) and has no Python source; its layout here
//! is read off Vela 5.2.0's output for both sample models, both accelerators, with and
//! without `--separate-io-regions`:
//!
//! ```text
//!  0  "COP2"   4  u16 major = 1   6  u16 minor = 0   8  u64 length of the actions that follow
//! 16  action: u32 type (1 = command stream), u32 length of its body
//! 24  body:   u32 metadata size (36), "VEUM", u32 version (1), u32 n = bytes of words (20),
//!             n bytes of words: CONFIG, ID, then feature words (seen: 1 or 2, the scratch
//!             size, 0 -- 2 with --separate-io-regions, 1 without)
//! 60          0xFF padding up to the next 16-byte boundary
//! 64          the register command stream, to the end of the body
//! ```
//!
//! Anything else (unknown magic, version, action, truncation, a stream that is not whole
//! words) is an error with a code and the byte offset in the payload.

use serde::Serialize;

use super::model::{PackError, le_u32};

const COP1_MAGIC: u32 = u32::from_le_bytes(*b"COP1");
const COP2_MAGIC: u32 = u32::from_le_bytes(*b"COP2");
#[cfg(test)]
const VEUM_MAGIC: u32 = u32::from_le_bytes(*b"VEUM");

/// Bytes of the COP2 header before the actions.
const HEADER_BYTES: u64 = 16;
/// Bytes of the "VEUM" block's size, magic, version and words-length fields.
const META_FIXED: u64 = 16;

/// Which driver-actions format the payload uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "format")]
pub enum CopFormat {
    /// "COP1": a word stream of tagged actions.
    #[serde(rename = "COP1")]
    Cop1 {
        /// OPTIMIZER_CONFIG's `rel` (param bits [3:0]).
        rel: u8,
        /// OPTIMIZER_CONFIG's `patch` (param bits [15:4]).
        patch: u16,
    },
    /// "COP2": a versioned header with typed, length-prefixed actions.
    #[serde(rename = "COP2")]
    Cop2 {
        /// Major version (1).
        major: u16,
        /// Minor version (0).
        minor: u16,
        /// Version of the "VEUM" metadata block (1).
        veum_version: u32,
    },
}

impl CopFormat {
    /// "COP1" or "COP2".
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            CopFormat::Cop1 { .. } => "COP1",
            CopFormat::Cop2 { .. } => "COP2",
        }
    }
}

/// The decoded header of a COP1/COP2 payload. The stream itself is `payload[stream_offset ..
/// stream_offset + stream_len]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CopPayload {
    /// Format and version.
    pub format: CopFormat,
    /// The NPU CONFIG register value the stream was compiled for.
    pub config: u32,
    /// The NPU ID register value the stream was compiled for.
    pub id: u32,
    /// COP2's feature words after CONFIG and ID (empty for COP1).
    pub features: Vec<u32>,
    /// Byte offset of the register command stream in the payload.
    pub stream_offset: u64,
    /// Length of the register command stream in bytes.
    pub stream_len: u64,
    /// Length of the whole payload in bytes.
    pub payload_len: u64,
}

impl CopPayload {
    /// CONFIG bits [3:0]: log2 of the MACs per cycle.
    #[must_use]
    pub fn macs_per_cc_log2(&self) -> u32 {
        self.config & 0xF
    }

    /// CONFIG bits [7:4]: command-stream version.
    #[must_use]
    pub fn cmd_stream_version(&self) -> u32 {
        (self.config >> 4) & 0xF
    }

    /// CONFIG bits [15:8]: SHRAM size in KiB.
    #[must_use]
    pub fn shram_kib(&self) -> u32 {
        (self.config >> 8) & 0xFF
    }

    /// CONFIG bits [31:28]: product (0 = Ethos-U55, 1 = Ethos-U65).
    #[must_use]
    pub fn product(&self) -> u32 {
        self.config >> 28
    }

    /// MACs per cycle, `1 << macs_per_cc`.
    #[must_use]
    pub fn macs(&self) -> u64 {
        1u64 << self.macs_per_cc_log2()
    }

    /// The register command stream inside `payload` (the buffer this was parsed from).
    #[must_use]
    pub fn stream<'a>(&self, payload: &'a [u8]) -> Option<&'a [u8]> {
        npuschema_core::range_at(payload, self.stream_offset, self.stream_len)
    }
}

/// Decode a COP1 or COP2 payload.
pub fn parse(payload: &[u8]) -> Result<CopPayload, PackError> {
    let magic = le_u32(payload, 0, "COP payload magic")?;
    match magic {
        COP1_MAGIC => parse_cop1(payload),
        COP2_MAGIC => parse_cop2(payload),
        other => Err(PackError::at(
            "cop-bad-magic",
            "COP payload magic",
            0,
            format!(
                "found {other:#010x} ({:?}), expected \"COP1\" ({COP1_MAGIC:#010x}) or \"COP2\" ({COP2_MAGIC:#010x})",
                String::from_utf8_lossy(&other.to_le_bytes())
            ),
        )),
    }
}

fn total(payload: &[u8]) -> u64 {
    payload.len() as u64
}

/// COP1 is read through the view generated from `schema/ethos_u_cop1.yaml`: the schema's
/// validation steps are the checks (magic, every action's size inside the payload, known
/// action ids, one OPTIMIZER_CONFIG and one non-empty COMMAND_STREAM, zero padding words).
fn parse_cop1(payload: &[u8]) -> Result<CopPayload, PackError> {
    use npuschema_generated::ethos_u_cop1::Cop1;
    let view = Cop1::validate(payload).map_err(|e| {
        PackError::at(
            e.code,
            format!("COP1 {}", e.field),
            e.offset,
            e.detail.to_string(),
        )
    })?;
    let missing = |code, what| PackError::at(code, "COP1 payload", 4, what);
    // The schema's count checks make both exactly one; the reads below cannot miss.
    let config_action = view
        .records()
        .find(|r| r.as_configs().is_some())
        .ok_or_else(|| missing("cop-missing-config", "no OPTIMIZER_CONFIG action"))?;
    let cfg = config_action
        .as_configs()
        .ok_or_else(|| missing("cop-missing-config", "no OPTIMIZER_CONFIG action"))?;
    let param = config_action.header().param();
    let stream = view
        .records()
        .find(|r| r.as_streams().is_some())
        .ok_or_else(|| missing("cop-missing-stream", "no COMMAND_STREAM action"))?;
    // rel is 4 bits, patch the 12 bits above it: both fit their types.
    let rel = u8::try_from(param & 0xF).unwrap_or(0);
    let patch = param >> 4;
    Ok(CopPayload {
        format: CopFormat::Cop1 { rel, patch },
        config: cfg.config(),
        id: cfg.id(),
        features: Vec::new(),
        stream_offset: stream.body_offset(),
        stream_len: stream.body().len() as u64,
        payload_len: total(payload),
    })
}

/// COP2 is read through the view generated from `schema/ethos_u_cop2.yaml`: its validation
/// steps are every check (magic, major version, the actions inside the payload, every
/// action's length, one command-stream action, its "VEUM" metadata block inside the action,
/// the 0xFF padding to the 16-byte stream start, a non-empty stream of whole words, zeros
/// after the actions). What is left here is reading: the feature words and where the stream
/// starts, which the checks made safe.
fn parse_cop2(payload: &[u8]) -> Result<CopPayload, PackError> {
    use npuschema_generated::ethos_u_cop2::{Cop2, STREAM_ALIGN};
    let view = Cop2::validate(payload).map_err(|e| {
        PackError::at(
            e.code,
            format!("COP2 {}", e.field),
            e.offset,
            e.detail.to_string(),
        )
    })?;
    let h = view.header();
    let missing = || {
        PackError::at(
            "cop-missing-stream",
            "COP2 payload",
            HEADER_BYTES,
            "no command-stream action",
        )
    };
    // The schema's count checks make it exactly one.
    let action = view
        .records()
        .find(|r| r.as_streams().is_some())
        .ok_or_else(missing)?;
    let meta = action.as_streams().ok_or_else(missing)?;
    let body = action.body_offset();
    let body_end = body + action.body().len() as u64;
    // Feature words: the words after CONFIG and ID (the schema checked they lie in the block,
    // and the block in the action).
    let words_end = body + META_FIXED + u64::from(meta.words_len());
    let mut features = Vec::new();
    let mut at = body + META_FIXED + 8;
    while at < words_end {
        features.push(le_u32(payload, at, "COP2 feature word")?);
        at += 4;
    }
    // The stream starts at the first 16-byte boundary after the metadata block, as the
    // schema's `stream_start` computes it; the schema checked it lies before the action's end.
    let align = u64::from(STREAM_ALIGN);
    let stream_offset = (body + u64::from(meta.meta_size())).div_ceil(align) * align;
    Ok(CopPayload {
        format: CopFormat::Cop2 {
            major: h.major(),
            minor: h.minor(),
            veum_version: meta.version(),
        },
        config: meta.config(),
        id: meta.id(),
        features,
        stream_offset,
        stream_len: body_end - stream_offset,
        payload_len: total(payload),
    })
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code"
)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn cop1(stream: &[u32]) -> Vec<u8> {
        let n = u32::try_from(stream.len()).unwrap_or(0);
        let mut w = vec![
            COP1_MAGIC,
            0x0010_0001,
            0x0000_1807,
            0x1006_6001,
            5,
            5,
            5,
            2 | (n << 16),
        ];
        w.extend_from_slice(stream);
        words(&w)
    }

    fn cop2(stream: &[u32], pad: u32) -> Vec<u8> {
        let body = 40 + 4 * stream.len();
        let mut w = vec![COP2_MAGIC, 1, u32::try_from(body + 8).unwrap_or(0), 0, 1];
        w.push(u32::try_from(body).unwrap_or(0));
        w.extend_from_slice(&[36, VEUM_MAGIC, 1, 20, 0x3008, 0x1006_6001, 2, 0x20, 0, pad]);
        w.extend_from_slice(stream);
        words(&w)
    }

    #[test]
    fn cop1_stream_starts_at_32() {
        let p = cop1(&[0x0001_010f, 0xffff_0000]);
        let c = parse(&p).unwrap();
        assert_eq!((c.stream_offset, c.stream_len), (32, 8));
        assert_eq!(c.config, 0x1807);
        assert_eq!(c.macs(), 128);
        assert_eq!(c.format, CopFormat::Cop1 { rel: 0, patch: 1 });
        assert_eq!(c.stream(&p).unwrap(), &p[32..]);
    }

    #[test]
    fn cop1_length_uses_the_reserved_byte_as_high_bits() {
        // reserved = 1 -> 65536 + 2 words: far more than the payload holds.
        let mut p = cop1(&[0, 0]);
        p[29] = 1;
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-stream-out-of-bounds", Some(28)));
        assert_eq!(e.field, "COP1 records[4].size");
    }

    #[test]
    fn cop1_trailing_zero_words_are_accepted_and_other_bytes_are_not() {
        let base = cop1(&[0xffff_0000]);
        let mut p = base.clone();
        p.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(parse(&p).unwrap().stream_len, 4);

        // Not a whole word: the action header does not fit.
        let mut p = base.clone();
        p.push(7);
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-stream-out-of-bounds", Some(36)));
        assert_eq!(e.field, "COP1 records[5].header");

        let mut p = base.clone();
        p.extend_from_slice(&[0, 0, 0, 0, 9, 0, 0, 0]);
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-unknown-action", Some(40)));
        assert_eq!(e.field, "COP1 records[6].id");

        // A zero id with a non-zero parameter is not padding.
        let mut p = base;
        p.extend_from_slice(&[0, 0, 1, 0]);
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-bad-padding", Some(36)));
    }

    #[test]
    fn cop1_second_config_or_stream_is_rejected() {
        let p = words(&[
            COP1_MAGIC,
            0x0010_0001,
            0x1807,
            0,
            0x0010_0001,
            0x1807,
            0,
            2 | (1 << 16),
            0,
        ]);
        assert_eq!(parse(&p).unwrap_err().code, "cop-duplicate-action");
        let mut p = cop1(&[0xffff_0000]);
        p.extend_from_slice(&words(&[2 | (1 << 16), 0]));
        assert_eq!(parse(&p).unwrap_err().code, "cop-duplicate-action");
    }

    #[test]
    fn cop1_empty_stream_is_rejected_at_its_action() {
        let p = cop1(&[]);
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-stream-out-of-bounds", Some(32)));
        assert_eq!(e.field, "COP1 records[4].streams");
    }

    #[test]
    fn cop1_without_config_or_stream_is_rejected() {
        let e = parse(&words(&[COP1_MAGIC, 2 | (1 << 16), 0xffff_0000])).unwrap_err();
        assert_eq!(e.code, "cop-missing-config");
        let e = parse(&words(&[COP1_MAGIC, 0x0010_0001, 0x1807, 0])).unwrap_err();
        assert_eq!(e.code, "cop-missing-stream");
    }

    #[test]
    fn bad_magic_is_rejected_at_offset_0() {
        let e = parse(b"COP3\0\0\0\0").unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-bad-magic", Some(0)));
        let e = parse(b"CO").unwrap_err();
        assert_eq!(e.code, "truncated");
    }

    #[test]
    fn cop2_stream_starts_at_64() {
        let p = cop2(&[0x0001_010f, 0xffff_0000], 0xffff_ffff);
        let c = parse(&p).unwrap();
        assert_eq!((c.stream_offset, c.stream_len), (64, 8));
        assert_eq!(c.config, 0x3008);
        assert_eq!(c.macs(), 256);
        assert_eq!(c.features, vec![2, 0x20, 0]);
        assert_eq!(
            c.format,
            CopFormat::Cop2 {
                major: 1,
                minor: 0,
                veum_version: 1
            }
        );
    }

    #[test]
    fn cop2_checks_padding_version_and_lengths() {
        let e = parse(&cop2(&[0xffff_0000], 0)).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop2-bad-padding", Some(60)));

        let mut p = cop2(&[0xffff_0000], 0xffff_ffff);
        p[4] = 2;
        assert_eq!(parse(&p).unwrap_err().code, "cop2-unsupported-version");

        let mut p = cop2(&[0xffff_0000], 0xffff_ffff);
        p[8] = 0xff;
        assert_eq!(parse(&p).unwrap_err().code, "cop2-actions-out-of-bounds");

        let mut p = cop2(&[0xffff_0000], 0xffff_ffff);
        p[16] = 9;
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-unknown-action", Some(16)));

        let mut p = cop2(&[0xffff_0000], 0xffff_ffff);
        p[28] = b'X';
        assert_eq!(parse(&p).unwrap_err().code, "cop2-bad-metadata");
    }

    #[test]
    fn cop2_zero_bytes_may_follow_the_actions_and_nothing_else() {
        let mut p = cop2(&[0xffff_0000], 0xffff_ffff);
        p.extend_from_slice(&[0, 0, 0, 0, 0]);
        assert_eq!(parse(&p).unwrap().stream_len, 4);
        p.extend_from_slice(&[0, 5]);
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-trailing-data", Some(74)));
        assert_eq!(e.field, "COP2 trailing");
    }

    #[test]
    fn cop2_metadata_lies_inside_its_action_before_a_stream_of_words() {
        // The block runs past the action's end.
        let mut p = cop2(&[0xffff_0000], 0xffff_ffff);
        p[24] = 0x40;
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop2-bad-metadata", Some(24)));
        assert_eq!(e.field, "COP2 streams[0].meta_size");
        // The block ends inside the action, the 16-byte stream start after it.
        let mut p = cop2(&[0xffff_0000], 0xffff_ffff);
        p[24] = 41;
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-missing-stream", Some(24)));
        // The padding byte after the block is checked from the block's end.
        let mut p = cop2(&[0xffff_0000], 0xffff_00ff);
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop2-bad-padding", Some(61)));
        assert_eq!(e.field, "COP2 streams[0].padding");
        p[61] = 0xff;
        assert!(parse(&p).is_ok());
        // No stream after the padding.
        let e = parse(&cop2(&[], 0xffff_ffff)).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-empty-stream", Some(24)));
        // A stream that is not whole words.
        let mut p = cop2(&[0xffff_0000], 0xffff_ffff);
        p.extend_from_slice(&[0, 0]);
        p[8] += 2;
        p[20] += 2;
        let e = parse(&p).unwrap_err();
        assert_eq!((e.code, e.offset), ("cop-stream-not-words", Some(24)));
    }
}
