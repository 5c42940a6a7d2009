//! Decoding a register command stream into [`Command`]s.
//!
//! A stream is a sequence of 32-bit little-endian words. Word 0 of a command holds the
//! 16-bit command code in bits 0..15 (opcode in [9:0], control in [15:14]) and the
//! parameter in bits 16..31. Bit 14 set means a 64-bit (cmd1) command whose second word is a
//! 32-bit payload. Bit 14 is looked at first, since cmd0 and cmd1 opcode numbers overlap.

use core::fmt;

use super::opcode::{Arch, CMD1_FLAG, Opcode, from_code_in};

/// One decoded command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Command {
    /// Byte offset of the command's first word in the stream.
    pub offset: u32,
    /// 16-bit command code: the 10-bit opcode, with `0x4000` set for 64-bit (cmd1) commands,
    /// e.g. `0x4000 | 0x020` for `NPU_SET_WEIGHT_BASE`.
    pub code: u16,
    /// Bits 16..31 of the first word.
    pub param: u16,
    /// The second word of a cmd1 command; `None` for cmd0.
    pub payload: Option<u32>,
}

impl Command {
    /// Vela's `NPU_*` name, e.g. `"NPU_SET_IFM_REGION"` (`"UNKNOWN"` for a code that is not
    /// a known opcode, which the decoder never produces).
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.opcode().map_or("UNKNOWN", Opcode::name)
    }

    /// The opcode, of any architecture; `None` for a code that is no command's (which the
    /// decoder never produces).
    #[must_use]
    pub fn opcode(&self) -> Option<Opcode> {
        Opcode::from_code(u32::from(self.code))
    }

    /// Size of the command in bytes: 8 with a payload, else 4.
    #[must_use]
    pub fn size(&self) -> u32 {
        if self.payload.is_some() { 8 } else { 4 }
    }

    /// The first command word as it appears in the stream.
    #[must_use]
    pub fn word(&self) -> u32 {
        u32::from(self.code) | (u32::from(self.param) << Opcode::PARAM_SHIFT)
    }
}

/// Why a stream could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecodeError {
    /// Stable kebab-case code: [`DecodeError::TRUNCATED_COMMAND`] or
    /// [`DecodeError::UNKNOWN_OPCODE`].
    pub code: &'static str,
    /// Byte offset of the offending command (or of the trailing partial word).
    pub offset: u32,
    /// The offending command word (for a trailing partial word: its bytes, little-endian,
    /// zero-extended).
    pub word: u32,
}

impl DecodeError {
    /// A 64-bit command with no payload word after it, or a stream whose length is not a
    /// multiple of 4.
    pub const TRUNCATED_COMMAND: &'static str = "truncated-command";
    /// A command code that is neither a known cmd0 nor a known cmd1 opcode of the stream's
    /// architecture (a U65-only command in a U55 stream is one).
    pub const UNKNOWN_OPCODE: &'static str = "unknown-opcode";
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            Self::UNKNOWN_OPCODE => write!(
                f,
                "{}: command word {:#010x} at byte {:#x} has code {:#06x}, not a known cmd0/cmd1 opcode",
                self.code,
                self.word,
                self.offset,
                self.word & !Opcode::PARAM_MASK
            ),
            _ if self.word & u32::from(CMD1_FLAG) != 0 => write!(
                f,
                "{}: 64-bit command word {:#010x} at byte {:#x} has no payload word",
                self.code, self.word, self.offset
            ),
            _ => write!(
                f,
                "{}: stream ends with a partial word at byte {:#x} (length not a multiple of 4)",
                self.code, self.offset
            ),
        }
    }
}

impl core::error::Error for DecodeError {}

/// Iterator over the commands of a stream; see [`decode`].
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    stream: &'a [u8],
    /// Byte offset of the next command (always `<= stream.len()`).
    pos: usize,
    done: bool,
    /// Whose commands are known.
    arch: Arch,
}

/// Decode `stream` (the register command stream itself, starting with its first command).
///
/// Yields every command in order; the first error ends the iteration. A stream whose length
/// is not a multiple of 4 yields its whole commands first, then `truncated-command` at the
/// partial word. Decoding does not stop at `NPU_OP_STOP`: every word of the stream is
/// decoded, as Vela's listing does. The stream is an Ethos-U55's: a command the U55 does
/// not have (a U65-only one) is an `unknown-opcode` error; see [`decode_for`].
#[must_use]
pub fn decode(stream: &[u8]) -> Decoder<'_> {
    decode_for(stream, Arch::U55)
}

/// [`decode`] for architecture `arch`: only its commands are known.
#[must_use]
pub fn decode_for(stream: &[u8], arch: Arch) -> Decoder<'_> {
    Decoder {
        stream,
        pos: 0,
        done: false,
        arch,
    }
}

impl Decoder<'_> {
    /// Byte offset of the next command to decode.
    #[must_use]
    pub fn position(&self) -> usize {
        self.pos
    }

    fn word_at(&self, at: usize) -> Option<u32> {
        Opcode::word_at(self.stream, at)
    }

    /// Offsets are reported as u32; streams are far below 4 GiB (QSIZE is 32-bit), and a
    /// larger one saturates rather than wraps.
    fn offset32(at: usize) -> u32 {
        u32::try_from(at).unwrap_or(u32::MAX)
    }

    fn fail(
        &mut self,
        code: &'static str,
        at: usize,
        word: u32,
    ) -> Option<Result<Command, DecodeError>> {
        self.done = true;
        Some(Err(DecodeError {
            code,
            offset: Self::offset32(at),
            word,
        }))
    }
}

impl Iterator for Decoder<'_> {
    type Item = Result<Command, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let at = self.pos;
        let rest = self.stream.get(at..).unwrap_or_default();
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        let Some(word) = self.word_at(at) else {
            let mut bytes = [0u8; 4];
            for (dst, src) in bytes.iter_mut().zip(rest) {
                *dst = *src;
            }
            return self.fail(
                DecodeError::TRUNCATED_COMMAND,
                at,
                u32::from_le_bytes(bytes),
            );
        };
        let code = (word & !Opcode::PARAM_MASK) as u16;
        let param = Opcode::param_of(word);
        let Some(op) = from_code_in(code, self.arch) else {
            return self.fail(DecodeError::UNKNOWN_OPCODE, at, word);
        };
        let payload = if op.has_payload() {
            let next = at.saturating_add(4);
            match self.word_at(next) {
                Some(p) => Some(p),
                None => return self.fail(DecodeError::TRUNCATED_COMMAND, at, word),
            }
        } else {
            None
        };
        let cmd = Command {
            offset: Self::offset32(at),
            code,
            param,
            payload,
        };
        // `at + size <= stream.len()` was just checked by the successful reads.
        self.pos = at.saturating_add(cmd.size() as usize);
        Some(Ok(cmd))
    }
}

impl core::iter::FusedIterator for Decoder<'_> {}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> [u8; 64] {
        let mut out = [0u8; 64];
        for (chunk, w) in out.chunks_exact_mut(4).zip(ws) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    #[test]
    fn decodes_cmd0_and_cmd1() {
        let buf = words(&[0x0001_010F, 0x0000_4000, 0x10, 0xFFFF_0000]);
        let mut it = decode(&buf[..16]);
        assert_eq!(
            it.next(),
            Some(Ok(Command {
                offset: 0,
                code: 0x010F,
                param: 1,
                payload: None
            }))
        );
        assert_eq!(
            it.next(),
            Some(Ok(Command {
                offset: 4,
                code: 0x4000,
                param: 0,
                payload: Some(0x10)
            }))
        );
        assert_eq!(
            it.next(),
            Some(Ok(Command {
                offset: 12,
                code: 0x0000,
                param: 0xFFFF,
                payload: None
            }))
        );
        assert_eq!(it.next(), None);
        assert_eq!(decode(&buf[..16]).count(), 3);
    }

    #[test]
    fn missing_payload_is_truncated() {
        let buf = words(&[0x0000_0000, 0x0000_4020]);
        let mut it = decode(&buf[..8]);
        assert!(matches!(it.next(), Some(Ok(_))));
        assert_eq!(
            it.next(),
            Some(Err(DecodeError {
                code: "truncated-command",
                offset: 4,
                word: 0x4020
            }))
        );
        assert_eq!(it.next(), None);
    }

    #[test]
    fn partial_word_is_truncated_after_whole_commands() {
        let buf = words(&[0x0000_0000, 0x0000_0BAD]);
        let mut it = decode(&buf[..6]);
        assert!(matches!(it.next(), Some(Ok(_))));
        assert_eq!(
            it.next(),
            Some(Err(DecodeError {
                code: "truncated-command",
                offset: 4,
                word: 0x0BAD
            }))
        );
        assert_eq!(it.next(), None);
    }

    #[test]
    fn unknown_opcode_stops_decoding() {
        let buf = words(&[0x0000_0020, 0x0000_0000]);
        let mut it = decode(&buf[..8]);
        assert_eq!(
            it.next(),
            Some(Err(DecodeError {
                code: "unknown-opcode",
                offset: 0,
                word: 0x20
            }))
        );
        assert_eq!(it.next(), None);
    }
}
