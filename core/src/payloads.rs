//! The CRC-32 over a directory's section payloads, as a directory checksum with `zero:`
//! fields and per-section checksum records states it (VPMN's `crc_sum`): one function,
//! driven by the constant table and the lookup the generated validator passes, so the
//! algorithm is audited here once instead of in every generated validator.

use crate::{crc32, crc32_combine, range_at};

/// A section type whose records are hashed as if some of their fields were zero (VPMN's
/// CHECKSUM section, whose value words the file CRC cannot cover).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroedFields {
    /// The section type.
    pub kind: u64,
    /// The size of one record of its payload.
    pub record: usize,
    /// The fields hashed as zero: `(offset in the record, width)`, in increasing offset.
    pub fields: &'static [(usize, usize)],
}

/// Why [`crc32_payloads`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadsError {
    /// Section `section`'s payload does not lie inside the buffer.
    Unreadable {
        /// The section's index in the directory.
        section: usize,
    },
    /// A section's own CRC differs from the value its checksum record stores.
    Mismatch {
        /// The stored value.
        stored: u64,
        /// The CRC of the payload.
        computed: u32,
        /// The checksum record's index in its collection.
        record: u64,
        /// Where the stored value is.
        at: u64,
    },
}

/// The CRC-32 (initial 0) over every section payload, in directory order, gaps excluded.
///
/// `sections` yields each directory record's `(type, payload offset, payload length)`.
/// A payload is hashed:
///
/// - as is, when its type is in neither `zeroed` nor `want`: with the payloads right
///   before it in the file in one update (one call for a run of adjacent payloads);
/// - when `want(type)` gives `(stored, record, at)` (a checksum record names the type): its
///   own CRC is computed once, checked against `stored` ([`PayloadsError::Mismatch`]), and
///   combined into the running CRC with `crc32_combine`, so no byte is read twice;
/// - with its records' listed fields as zero bytes, when its type is in `zeroed` (a
///   trailing part shorter than one record is hashed as is).
///
/// No allocation; the work is one pass over the payloads plus one `crc32_combine` per
/// checked section.
///
/// # Errors
/// The first payload outside `buf`, or the first section whose CRC differs from its record.
///
/// ```
/// use npuschema_core::{crc32, crc32_payloads, ZeroedFields};
///
/// let buf = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10];
/// // Two adjacent payloads and one whose record's bytes 1..3 count as zero.
/// const Z: &[ZeroedFields] = &[ZeroedFields { kind: 9, record: 4, fields: &[(1, 2)] }];
/// let crc = crc32_payloads(&buf, [(1, 0, 2), (1, 2, 2), (9, 6, 4)].into_iter(), Z, |_| None);
/// assert_eq!(crc, Ok(crc32(0, &[1, 2, 3, 4, 7, 0, 0, 10])));
/// ```
pub fn crc32_payloads(
    buf: &[u8],
    sections: impl Iterator<Item = (u64, u64, u64)>,
    zeroed: &[ZeroedFields],
    mut want: impl FnMut(u64) -> Option<(u64, u64, u64)>,
) -> Result<u32, PayloadsError> {
    let mut crc = 0u32;
    // A run of adjacent ordinary payloads not hashed yet: `(start, end)`.
    let mut pending: Option<(u64, u64)> = None;
    let flush = |crc: u32, pending: &mut Option<(u64, u64)>| match pending.take() {
        Some((s, e)) => crc32(crc, range_at(buf, s, e.saturating_sub(s)).unwrap_or(&[])),
        None => crc,
    };
    for (section, (kind, at, len)) in sections.enumerate() {
        let Some(p) = range_at(buf, at, len) else {
            return Err(PayloadsError::Unreadable { section });
        };
        let end = at.saturating_add(len);
        let zero = zeroed.iter().find(|z| z.kind == kind);
        let checked = want(kind);
        if zero.is_none() && checked.is_none() {
            pending = match pending {
                Some((s, e)) if e == at => Some((s, end)),
                _ => {
                    crc = flush(crc, &mut pending);
                    Some((at, end))
                }
            };
            continue;
        }
        crc = flush(crc, &mut pending);
        if let Some((stored, record, at)) = checked {
            let own = crc32(0, p);
            if u64::from(own) != stored {
                return Err(PayloadsError::Mismatch {
                    stored,
                    computed: own,
                    record,
                    at,
                });
            }
            if zero.is_none() {
                crc = crc32_combine(crc, own, len);
                continue;
            }
        }
        if let Some(z) = zero {
            crc = crc32_zeroed(crc, p, z);
        }
    }
    Ok(flush(crc, &mut pending))
}

/// `crc` continued over `p`, its `z.record`-byte records with `z.fields` as zero bytes:
/// records are copied into a 256-byte stack buffer as many at a time as fit, their fields
/// cleared, and hashed in one update per buffer (a record longer than the buffer is hashed
/// piece by piece, the fields as zero bytes).
fn crc32_zeroed(mut crc: u32, p: &[u8], z: &ZeroedFields) -> u32 {
    const ZEROS: [u8; 64] = [0; 64];
    let mut records = p.chunks_exact(z.record.max(1));
    if z.record == 0 {
        return crc32(crc, p);
    }
    let per = 256usize.checked_div(z.record).unwrap_or(0);
    if per > 0 {
        let mut tmp = [0u8; 256];
        let whole = p.len().saturating_sub(records.remainder().len());
        // As many whole records as fit, copied at once (element by element: `copy_from_slice`
        // keeps a length-mismatch panic; the loop compiles to a block copy), then their
        // fields cleared.
        let step = per.saturating_mul(z.record);
        let mut at = 0usize;
        while at < whole {
            let end = at.saturating_add(step).min(whole);
            let (Some(batch), Some(d)) = (p.get(at..end), tmp.get_mut(..end.saturating_sub(at)))
            else {
                break;
            };
            at = end;
            for (x, y) in d.iter_mut().zip(batch) {
                *x = *y;
            }
            for r in d.chunks_exact_mut(z.record.max(1)) {
                for &(off, width) in z.fields {
                    let end = off.saturating_add(width).min(r.len());
                    if let Some(f) = r.get_mut(off..end) {
                        f.fill(0);
                    }
                }
            }
            crc = crc32(crc, d);
        }
        return crc32(crc, records.remainder());
    }
    for r in &mut records {
        let mut cursor = 0usize;
        for &(off, width) in z.fields {
            let end = off.saturating_add(width).min(r.len());
            if off < cursor || off >= end {
                continue;
            }
            crc = crc32(crc, r.get(cursor..off).unwrap_or(&[]));
            let mut left = end.saturating_sub(off);
            while left > 0 {
                let n = left.min(ZEROS.len());
                crc = crc32(crc, ZEROS.get(..n).unwrap_or(&[]));
                left = left.saturating_sub(n);
            }
            cursor = end;
        }
        crc = crc32(crc, r.get(cursor..).unwrap_or(&[]));
    }
    crc32(crc, records.remainder())
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    /// The definition: concatenate the payloads (zeroed fields cleared) and hash once.
    fn plain(buf: &[u8], secs: &[(u64, u64, u64)], zeroed: &[ZeroedFields]) -> u32 {
        let mut all = Vec::new();
        for &(kind, at, len) in secs {
            let mut p = buf[at as usize..(at + len) as usize].to_vec();
            if let Some(z) = zeroed.iter().find(|z| z.kind == kind) {
                let whole = p.len() / z.record * z.record;
                for r in p[..whole].chunks_exact_mut(z.record) {
                    for &(o, w) in z.fields {
                        r[o..o + w].fill(0);
                    }
                }
            }
            all.extend_from_slice(&p);
        }
        crc32(0, &all)
    }

    const Z: &[ZeroedFields] = &[ZeroedFields {
        kind: 40,
        record: 8,
        fields: &[(4, 4)],
    }];

    #[test]
    fn equals_one_pass_over_the_concatenation() {
        let buf: Vec<u8> = (0..400u32).map(|i| (i * 37 + 11) as u8).collect();
        let layouts: [&[(u64, u64, u64)]; 4] = [
            &[
                (1, 0, 10),
                (2, 10, 30),
                (40, 40, 36),
                (3, 100, 0),
                (5, 100, 50),
            ],
            &[(40, 0, 16), (1, 16, 16), (6, 64, 8), (2, 32, 32)],
            &[(7, 390, 10), (8, 0, 390)],
            &[],
        ];
        for secs in layouts {
            // Each type checked by a record holding its right CRC (a checked type is present
            // once, as `record_checksums` requires).
            let own = |kind: u64| {
                secs.iter()
                    .find(|s| s.0 == kind)
                    .map(|&(_, at, len)| crc32(0, &buf[at as usize..(at + len) as usize]))
            };
            for checked in [None, Some(1u64), Some(40), Some(7)] {
                let got = crc32_payloads(&buf, secs.iter().copied(), Z, |k| {
                    (Some(k) == checked).then(|| (u64::from(own(k).unwrap()), 0, 0))
                });
                assert_eq!(got, Ok(plain(&buf, secs, Z)), "{secs:?} {checked:?}");
            }
        }
    }

    /// Zeroed payloads longer than the stack buffer, in several batches (a batch holds the
    /// whole records that fit: 32 of 8 bytes, 21 of 12), with a trailing part.
    #[test]
    fn zeroed_records_in_batches() {
        const Z2: &[ZeroedFields] = &[
            ZeroedFields {
                kind: 40,
                record: 8,
                fields: &[(4, 4)],
            },
            ZeroedFields {
                kind: 9,
                record: 12,
                fields: &[(0, 2), (8, 3)],
            },
        ];
        let buf: Vec<u8> = (0..2000u32).map(|i| (i * 29 + 7) as u8).collect();
        let layouts: [&[(u64, u64, u64)]; 2] = [
            &[(1, 0, 5), (40, 5, 8 * 70 + 3), (2, 568, 30)],
            &[
                (9, 0, 12 * 50),
                (40, 600, 256),
                (9, 856, 12 * 21 + 11),
                (3, 1119, 1),
            ],
        ];
        for secs in layouts {
            assert_eq!(
                crc32_payloads(&buf, secs.iter().copied(), Z2, |_| None),
                Ok(plain(&buf, secs, Z2)),
                "{secs:?}"
            );
        }
    }

    #[test]
    fn records_longer_than_the_stack_buffer() {
        const BIG: &[ZeroedFields] = &[ZeroedFields {
            kind: 3,
            record: 300,
            fields: &[(10, 4), (100, 80), (290, 10)],
        }];
        let buf: Vec<u8> = (0..1000u32).map(|i| (i * 13 + 1) as u8).collect();
        let secs = [(3u64, 0u64, 950u64), (1, 950, 50)];
        assert_eq!(
            crc32_payloads(&buf, secs.iter().copied(), BIG, |_| None),
            Ok(plain(&buf, &secs, BIG))
        );
    }

    #[test]
    fn errors_name_the_section_and_the_record() {
        let buf = [0u8; 32];
        assert_eq!(
            crc32_payloads(&buf, [(1, 0, 8), (2, 30, 8)].into_iter(), Z, |_| None),
            Err(PayloadsError::Unreadable { section: 1 })
        );
        assert_eq!(
            crc32_payloads(&buf, [(1, 0, 8)].into_iter(), Z, |_| Some((5, 3, 100))),
            Err(PayloadsError::Mismatch {
                stored: 5,
                computed: crc32(0, &[0; 8]),
                record: 3,
                at: 100
            })
        );
    }
}
