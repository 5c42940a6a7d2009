//! Vela's compressed weight format (the Ethos-U55 weight decoder's input), decoded without
//! allocation.
//!
//! Derived from Vela 5.2.0's reference decoder, `ethosu/mlw_codec/mlw_decode.c`
//! (`mlw_decode`, the function behind `ethosu.mlw_codec.decode`), whose bit layout this
//! follows field by field:
//!
//! * bits are read LSB first from each byte;
//! * a stream is a sequence of slices; each slice header is `ZDIV` (3 bits; 7 = end of
//!   stream: byte-align, and the next slice must set a palette; 6 = no zero runs; 0..3 the
//!   zero-run Golomb-Rice divisor), `SLICELEN` (15 bits, values - 1), `WDIV` (3 bits; 7 =
//!   uncompressed, else the weight Golomb-Rice divisor, at most 5), `WTRUNC` (1), `NEWPAL`
//!   (1), and with a new palette `DIROFS` (5), `PALSIZE` (5, n - 1 or 0 for none), `PALBITS`
//!   (3, bits - 2) and the palette entries;
//! * the slice body is chunks: a weight chunk's 12-bit unary0 and its unary1 bits, a zero
//!   chunk's 12-bit (divisor < 3) or 8-bit unary, then the previous chunk's remainders; the
//!   two sequences are throttled against each other (`balance`);
//! * a decoded index below the palette size is a palette entry, else `index - palsize +
//!   DIROFS`; the value is sign-magnitude (bit 0 the sign): the weight, already corrected by
//!   the weight zero point;
//! * with zero runs, a new-palette slice starts with a run of zeros, and every weight is
//!   followed by its run.
//!
//! Where the C code asserts or reads past the end, this decoder returns a specific
//! [`MlwError`] with the bit offset. Work is bounded: every chunk either consumes at least
//! eight bits or advances a slice position, so the work is linear in the stream's length
//! and the number of values produced (which the consumer bounds by stopping).

/// The end of stream / padding value of `ZDIV`.
const ZDIV_EOS: u32 = 7;
/// `ZDIV`: no zero runs in this slice.
const ZDIV_DISABLE: u32 = 6;
/// `WDIV`: uncompressed weights.
const WDIV_UNCOMPRESSED: u32 = 7;

/// Pending decoded weights or zero runs: the flow control keeps the two sequences within
/// 8 + 2 chunks of 12 symbols of each other, so 64 is ample (an overflow is reported, never
/// wrapped: [`MlwErrorKind::Internal`]).
const RING: usize = 64;

/// Why a weight stream does not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MlwError {
    /// What is wrong.
    pub kind: MlwErrorKind,
    /// Bit offset in the stream where it was found.
    pub bit: u64,
}

/// The kinds of [`MlwError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MlwErrorKind {
    /// The stream ends inside a slice (the C decoder's "bitbuf_getbit: underrun").
    Truncated,
    /// `ZDIV` is 4 or 5 (reserved).
    BadZeroDivisor(u8),
    /// `WDIV` is 6 (reserved).
    BadWeightDivisor(u8),
    /// The first slice of a stream (or after an end-of-stream marker) sets no palette.
    NoPalette,
    /// A slice keeps the palette but switches zero runs on or off.
    ZeroRunModeChange,
    /// A decoded weight index is 512 or more (the hardware's weights are 9-bit).
    IndexTooLarge(u32),
    /// The decoder's pending-value ring overflowed (a stream the flow control cannot
    /// produce).
    Internal,
}

impl MlwErrorKind {
    /// A stable code for the error.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Truncated => "weights-truncated",
            Self::BadZeroDivisor(_) => "weights-bad-zdiv",
            Self::BadWeightDivisor(_) => "weights-bad-wdiv",
            Self::NoPalette => "weights-no-palette",
            Self::ZeroRunModeChange => "weights-zero-run-mode-change",
            Self::IndexTooLarge(_) => "weights-index-too-large",
            Self::Internal => "weights-internal",
        }
    }
}

impl core::fmt::Display for MlwError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} at bit {}", self.kind.code(), self.bit)?;
        match self.kind {
            MlwErrorKind::BadZeroDivisor(v) => write!(f, " (ZDIV {v})"),
            MlwErrorKind::BadWeightDivisor(v) => write!(f, " (WDIV {v})"),
            MlwErrorKind::IndexTooLarge(v) => write!(f, " (index {v})"),
            _ => Ok(()),
        }
    }
}

/// LSB-first bit reader.
#[derive(Clone, Debug)]
struct Bits<'a> {
    buf: &'a [u8],
    pos: u64,
}

impl Bits<'_> {
    fn total(&self) -> u64 {
        (self.buf.len() as u64).saturating_mul(8)
    }

    fn err(&self, kind: MlwErrorKind) -> MlwError {
        MlwError {
            kind,
            bit: self.pos,
        }
    }

    /// `len` (at most 32) bits, LSB first.
    fn get(&mut self, len: u32) -> Result<u32, MlwError> {
        let mut data = 0u32;
        for i in 0..len.min(32) {
            let byte = usize::try_from(self.pos >> 3)
                .ok()
                .and_then(|b| self.buf.get(b))
                .copied()
                .ok_or_else(|| self.err(MlwErrorKind::Truncated))?;
            let bit = u32::from((byte >> (self.pos & 7)) & 1);
            data |= bit << i;
            self.pos = self.pos.saturating_add(1);
        }
        Ok(data)
    }
}

/// A fixed ring of pending values indexed by absolute position.
#[derive(Clone, Debug)]
struct Ring {
    vals: [u32; RING],
}

impl Ring {
    const fn new() -> Self {
        Self { vals: [0; RING] }
    }
    fn slot(pos: u32) -> usize {
        (pos as usize) % RING
    }
    fn set(&mut self, pos: u32, v: u32) {
        if let Some(s) = self.vals.get_mut(Self::slot(pos)) {
            *s = v;
        }
    }
    fn get(&self, pos: u32) -> u32 {
        self.vals.get(Self::slot(pos)).copied().unwrap_or(0)
    }
}

/// The state of one slice being decoded.
#[derive(Clone, Debug)]
struct Slice {
    nvalues: u32,
    z_nvalues: u32,
    w_div: u32,
    w_trunc: bool,
    w_uncompressed: bool,
    use_zero_run: bool,
    new_palette: bool,
    z_div: u32,
    z_unary_len: u32,
    // Chunk state (names as in mlw_decode.c).
    w_pos: u32,
    z_pos: u32,
    w_prev_pos: u32,
    z_prev_pos: u32,
    w_q: [u32; 12],
    w_nsymbols: u32,
    w_carry: u32,
    z_q: [u32; 12],
    z_nsymbols: u32,
    z_carry: u32,
    w_prev_enable: bool,
    w_prev_nsymbols: u32,
    w_prev_q: [u32; 12],
    z_prev_enable: bool,
    z_prev_nsymbols: u32,
    z_prev_q: [u32; 12],
    started: bool,
    // Output state.
    /// Weights emitted so far.
    emitted: u32,
    /// Zeros still to emit before the next weight.
    zeros_pending: u32,
    /// The leading zero run (new palette with zero runs) has been taken.
    lead_taken: bool,
    /// Chunks are finished (both sequences complete).
    chunks_done: bool,
}

/// Decodes a weight stream value by value: an iterator of weights (9-bit signed, zero point
/// already applied), or one error after which it yields nothing.
#[derive(Clone, Debug)]
pub struct Decoder<'a> {
    bits: Bits<'a>,
    palette: [i16; 32],
    palsize: u32,
    palbits: u32,
    direct_offset: u32,
    first: bool,
    z_prev_div: u32,
    slice: Option<Slice>,
    w_ring: Ring,
    z_ring: Ring,
    failed: bool,
    done: bool,
}

impl<'a> Decoder<'a> {
    /// A decoder over one compressed weight stream.
    #[must_use]
    pub fn new(stream: &'a [u8]) -> Self {
        Self {
            bits: Bits {
                buf: stream,
                pos: 0,
            },
            palette: [0; 32],
            palsize: 0,
            palbits: 0,
            direct_offset: 0,
            first: true,
            z_prev_div: 0,
            slice: None,
            w_ring: Ring::new(),
            z_ring: Ring::new(),
            failed: false,
            done: false,
        }
    }

    /// Bits consumed so far.
    #[must_use]
    pub fn bit_position(&self) -> u64 {
        self.bits.pos
    }

    /// Start the next slice, or return `Ok(false)` at the end of the stream.
    fn start_slice(&mut self) -> Result<bool, MlwError> {
        let bits = &mut self.bits;
        let mut z_div = bits.get(3)?;
        while z_div == ZDIV_EOS {
            let align = (8 - (bits.pos & 7)) & 7;
            bits.get(align as u32)?;
            self.first = true;
            if bits.pos / 8 == bits.total() / 8 {
                return Ok(false);
            }
            z_div = bits.get(3)?;
        }
        if bits.pos / 8 == bits.total() / 8 {
            return Ok(false);
        }
        let header_at = bits.pos.saturating_sub(3);
        if !(z_div < 4 || z_div == ZDIV_DISABLE) {
            return Err(MlwError {
                kind: MlwErrorKind::BadZeroDivisor(z_div as u8),
                bit: header_at,
            });
        }
        let use_zero_run = z_div != ZDIV_DISABLE;
        let nvalues = bits.get(15)?.saturating_add(1);
        let mut w_div = bits.get(3)?;
        let w_trunc = bits.get(1)? != 0;
        let new_palette = bits.get(1)? != 0;
        if self.first {
            if !new_palette {
                return Err(MlwError {
                    kind: MlwErrorKind::NoPalette,
                    bit: header_at,
                });
            }
            self.first = false;
        }
        if !new_palette && use_zero_run != (self.z_prev_div != ZDIV_DISABLE) {
            return Err(MlwError {
                kind: MlwErrorKind::ZeroRunModeChange,
                bit: header_at,
            });
        }
        self.z_prev_div = z_div;
        if new_palette {
            self.direct_offset = bits.get(5)?;
            let p = bits.get(5)?;
            self.palsize = if p > 0 { p.saturating_add(1) } else { 0 };
            self.palbits = bits.get(3)?.saturating_add(2);
            for i in 0..self.palsize {
                let v = bits.get(self.palbits)?;
                if let Some(slot) = self.palette.get_mut(i as usize) {
                    // The C decoder stores the entry in an int16_t.
                    *slot = v as u16 as i16;
                }
            }
        }
        let w_uncompressed = w_div == WDIV_UNCOMPRESSED;
        if w_uncompressed {
            w_div = if self.palsize > 0 {
                let mut b = 0u32;
                while (1u32 << b) < self.palsize {
                    b = b.saturating_add(1);
                }
                b
            } else {
                self.palbits
            };
        } else if w_div >= 6 {
            return Err(MlwError {
                kind: MlwErrorKind::BadWeightDivisor(w_div as u8),
                bit: header_at,
            });
        }
        self.slice = Some(Slice {
            nvalues,
            z_nvalues: nvalues.saturating_add(u32::from(new_palette)),
            w_div,
            w_trunc,
            w_uncompressed,
            use_zero_run,
            new_palette,
            z_div,
            z_unary_len: if z_div < 3 { 12 } else { 8 },
            w_pos: 0,
            z_pos: 0,
            w_prev_pos: 0,
            z_prev_pos: 0,
            w_q: [0; 12],
            w_nsymbols: 0,
            w_carry: 0,
            z_q: [0; 12],
            z_nsymbols: 0,
            z_carry: 0,
            w_prev_enable: false,
            w_prev_nsymbols: 0,
            w_prev_q: [0; 12],
            z_prev_enable: false,
            z_prev_nsymbols: 0,
            z_prev_q: [0; 12],
            started: false,
            emitted: 0,
            zeros_pending: 0,
            lead_taken: !(new_palette && use_zero_run),
            chunks_done: false,
        });
        // z_value[0] = 0 before the first chunk, as in the C decoder.
        self.z_ring.set(0, 0);
        Ok(true)
    }

    /// One iteration of the chunk loop of `mlw_decode` (the body of its inner `do while`).
    fn chunk(&mut self) -> Result<(), MlwError> {
        let Some(s) = self.slice.as_mut() else {
            return Ok(());
        };
        if s.started && !(s.w_prev_enable || s.z_prev_enable) {
            s.chunks_done = true;
            return Ok(());
        }
        s.started = true;
        let bits = &mut self.bits;
        let balance: i64 = if s.use_zero_run {
            i64::from(s.w_pos) - i64::from(s.z_pos)
        } else {
            0
        };
        let w_enable = (balance < 8 || !s.use_zero_run) && s.w_pos < s.nvalues;
        let z_enable = balance >= 0 && s.use_zero_run && s.z_pos < s.z_nvalues;
        let mut w_unary0 = 0u32;
        if w_enable && !s.w_uncompressed {
            w_unary0 = bits.get(12)?;
        }
        if z_enable {
            let z_unary = bits.get(s.z_unary_len)?;
            s.z_nsymbols = 0;
            let mut cnt = s.z_carry;
            for i in 0..s.z_unary_len {
                if z_unary & (1 << i) != 0 {
                    cnt = cnt.saturating_add(1);
                } else {
                    if let Some(q) = s.z_q.get_mut(s.z_nsymbols as usize) {
                        *q = cnt;
                    }
                    s.z_nsymbols = s.z_nsymbols.saturating_add(1);
                    cnt = 0;
                }
            }
            s.z_carry = cnt;
            s.z_pos = s.z_pos.saturating_add(s.z_nsymbols);
        }
        if w_enable {
            let max_symbols = if s.w_uncompressed && s.w_div > 5 {
                8
            } else {
                12
            };
            let unary1_len = (0..max_symbols)
                .filter(|i| w_unary0 & (1 << i) != 0)
                .count() as u32;
            let mut w_unary1 = bits.get(unary1_len)?;
            s.w_nsymbols = 0;
            let mut cnt = s.w_carry;
            for i in 0..max_symbols {
                let mut code = 0u32;
                if w_unary0 & (1 << i) != 0 {
                    code += 1;
                    if w_unary1 & 1 != 0 {
                        code += 1;
                    }
                    w_unary1 >>= 1;
                }
                cnt = cnt.saturating_add(code);
                if code < 2 || s.w_trunc {
                    if let Some(q) = s.w_q.get_mut(s.w_nsymbols as usize) {
                        *q = cnt;
                    }
                    s.w_nsymbols = s.w_nsymbols.saturating_add(1);
                    cnt = 0;
                }
            }
            s.w_carry = cnt;
            s.w_pos = s.w_pos.saturating_add(s.w_nsymbols);
        }
        if s.w_prev_enable {
            let mut i = 0;
            while i < s.w_prev_nsymbols && s.w_prev_pos < s.nvalues {
                let remain = bits.get(s.w_div)?;
                let q = s.w_prev_q.get(i as usize).copied().unwrap_or(0);
                let v = q
                    .checked_shl(s.w_div)
                    .unwrap_or(u32::MAX)
                    .saturating_add(remain);
                if s.w_prev_pos.saturating_sub(s.emitted) >= RING as u32 {
                    return Err(bits.err(MlwErrorKind::Internal));
                }
                self.w_ring.set(s.w_prev_pos, v);
                i += 1;
                s.w_prev_pos = s.w_prev_pos.saturating_add(1);
            }
        }
        if s.z_prev_enable {
            let mut i = 0;
            while i < s.z_prev_nsymbols && s.z_prev_pos < s.z_nvalues {
                let remain = bits.get(s.z_div)?;
                let q = s.z_prev_q.get(i as usize).copied().unwrap_or(0);
                let v = q
                    .checked_shl(s.z_div)
                    .unwrap_or(u32::MAX)
                    .saturating_add(remain);
                // z_value[k] is needed when weight k - new_palette is emitted.
                let needed_from = s.emitted;
                if s.z_prev_pos.saturating_sub(needed_from) >= RING as u32 {
                    return Err(bits.err(MlwErrorKind::Internal));
                }
                self.z_ring.set(s.z_prev_pos, v);
                i += 1;
                s.z_prev_pos = s.z_prev_pos.saturating_add(1);
            }
        }
        s.w_prev_enable = w_enable;
        s.w_prev_nsymbols = s.w_nsymbols;
        s.w_prev_q = s.w_q;
        s.z_prev_enable = z_enable;
        s.z_prev_nsymbols = s.z_nsymbols;
        s.z_prev_q = s.z_q;
        Ok(())
    }

    /// The next value, if it is ready without decoding another chunk.
    fn ready(&mut self) -> Result<Option<i16>, MlwError> {
        let Some(s) = self.slice.as_mut() else {
            return Ok(None);
        };
        if s.zeros_pending > 0 {
            s.zeros_pending -= 1;
            return Ok(Some(0));
        }
        if !s.lead_taken {
            if s.z_prev_pos > 0 || s.chunks_done {
                s.lead_taken = true;
                s.zeros_pending = self.z_ring.get(0);
                if s.zeros_pending > 0 {
                    s.zeros_pending -= 1;
                    return Ok(Some(0));
                }
            } else {
                return Ok(None);
            }
        }
        if s.emitted >= s.nvalues {
            return Ok(None);
        }
        let i = s.emitted;
        let w_ready = s.w_prev_pos > i;
        let z_index = i.saturating_add(u32::from(s.new_palette));
        let z_ready = !s.use_zero_run || s.z_prev_pos > z_index;
        if !(w_ready && z_ready) {
            return Ok(None);
        }
        let w = self.w_ring.get(i);
        if w >= 512 {
            return Err(self.bits.err(MlwErrorKind::IndexTooLarge(w)));
        }
        let val: i32 = if w < self.palsize {
            i32::from(self.palette.get(w as usize).copied().unwrap_or(0))
        } else {
            (w as i32) - (self.palsize as i32) + (self.direct_offset as i32)
        };
        let sign = val & 1;
        let mag = val >> 1;
        let out = if sign != 0 { -mag } else { mag };
        s.emitted = s.emitted.saturating_add(1);
        if s.use_zero_run {
            s.zeros_pending = self.z_ring.get(z_index);
        }
        Ok(Some(out as i16))
    }

    fn step(&mut self) -> Result<Option<i16>, MlwError> {
        loop {
            if let Some(v) = self.ready()? {
                return Ok(Some(v));
            }
            match self.slice.as_ref() {
                None => {
                    if !self.start_slice()? {
                        return Ok(None);
                    }
                }
                Some(s) if s.emitted >= s.nvalues && s.zeros_pending == 0 && s.lead_taken => {
                    // Finish the slice's chunk loop (the C decoder reads every chunk before
                    // interleaving), then go on to the next slice.
                    while !self.slice.as_ref().is_none_or(|s| s.chunks_done) {
                        self.chunk()?;
                    }
                    self.slice = None;
                }
                Some(s) if s.chunks_done => {
                    // Chunks finished but values missing: cannot happen for a well-formed
                    // slice (the C decoder would read uninitialised memory).
                    let _ = s;
                    return Err(self.bits.err(MlwErrorKind::Internal));
                }
                Some(_) => self.chunk()?,
            }
        }
    }
}

impl Iterator for Decoder<'_> {
    type Item = Result<i16, MlwError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.done {
            return None;
        }
        match self.step() {
            Ok(Some(v)) => Some(Ok(v)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-built stream: one slice, no zero runs, uncompressed, no palette, 2-bit
    /// direct values.
    #[test]
    fn uncompressed_direct_values() {
        // ZDIV=6 (3b) SLICELEN=3 (15b: 4 values) WDIV=7 WTRUNC=0 NEWPAL=1 DIROFS=0 PALSIZE=0
        // PALBITS=0 (2 bits) then four 2-bit remainders: 0b00, 0b01, 0b10, 0b11 -> values
        // 0, -0, 1, -1 (sign-magnitude), then ZDIV=7 and padding.
        let mut bits: Vec<(u32, u32)> = vec![(6, 3), (3, 15), (7, 3), (0, 1), (1, 1)];
        bits.extend([(0, 5), (0, 5), (0, 3)]);
        bits.extend([(0, 2), (1, 2), (2, 2), (3, 2)]);
        bits.push((7, 3));
        let mut out = Vec::new();
        let mut acc = 0u64;
        let mut n = 0u32;
        for (v, len) in bits {
            for i in 0..len {
                acc |= u64::from((v >> i) & 1) << n;
                n += 1;
                if n == 8 {
                    out.push(acc as u8);
                    acc = 0;
                    n = 0;
                }
            }
        }
        if n > 0 {
            out.push(acc as u8);
        }
        let got: Result<Vec<i16>, _> = Decoder::new(&out).collect();
        assert_eq!(got.unwrap(), vec![0, 0, 1, -1]);
    }

    #[test]
    fn truncation_and_reserved_fields_are_errors() {
        // ZDIV = 4: reserved.
        let e = Decoder::new(&[0x04, 0, 0, 0]).next().unwrap().unwrap_err();
        assert_eq!(e.kind, MlwErrorKind::BadZeroDivisor(4));
        // A header cut short.
        let e = Decoder::new(&[0x06]).next().unwrap().unwrap_err();
        assert_eq!(e.kind, MlwErrorKind::Truncated);
        // No palette in the first slice: ZDIV=6, SLICELEN=0, WDIV=7, WTRUNC=0, NEWPAL=0.
        let v: u32 = 6 | (7 << 18);
        let b = v.to_le_bytes();
        let e = Decoder::new(&b).next().unwrap().unwrap_err();
        assert_eq!(e.kind, MlwErrorKind::NoPalette);
        // An empty stream has no header: truncated, as the C decoder's underrun.
        let e = Decoder::new(&[]).next().unwrap().unwrap_err();
        assert_eq!(e.kind, MlwErrorKind::Truncated);
    }
}
