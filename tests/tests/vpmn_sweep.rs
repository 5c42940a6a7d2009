//! VPMN robustness: single-byte mutations and truncations of every corpus file (and of a
//! writer-built file) never panic; every mutant is either rejected with one of the
//! documented codes or validates. For version 2, a mutation inside any section payload is
//! always rejected (the file checksum covers every payload byte, and CHECKSUM value words
//! are covered by their section's CRC), and one inside an alignment gap never is.
//!
//! What is swept (a full sweep of the 1 MB file is too slow on two cores in a debug
//! build): the writer-built file, every byte with two mutations; each corpus file, every
//! byte of the first 4096, the two bytes on each side of every section or table boundary,
//! and a stride through the rest (about 400 offsets per file); truncation at every length
//! below 4096 and at a stride through the rest, both as is and with the declared size
//! patched to the new length (so the section checks run). Version 1 declares no file size,
//! so a v1 file cut after the last byte its known tables locate may still validate.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod vpmn_util;

use npuschema_cli::vpmn::writer::{build_v2, directory};
use npuschema_core::Brief;
use npuschema_generated::vpmn::{self, Vpmn};
use vpmn_util::*;

fn outcome(b: &[u8]) -> Result<(), &'static str> {
    // `validate_as::<Brief>` must fail at the same check as `validate`.
    let brief = Vpmn::validate_as::<Brief>(b).map(|_| ()).map_err(|e| {
        let s = vpmn::error_site(e.id()).expect("a Brief names a site of the module");
        (s.code, s.table, s.name)
    });
    match Vpmn::validate(b) {
        Ok(_) => {
            assert_eq!(brief, Ok(()), "Brief rejects what Error accepts");
            Ok(())
        }
        Err(e) => {
            assert_eq!(brief, Err((e.code, e.field.table, e.field.name)), "{e}");
            assert!(CODES.contains(&e.code), "undocumented code {e}");
            // The reported offset is inside or at the end of the buffer, or names the place
            // a value points at (never garbage past 64 bits).
            Err(e.code)
        }
    }
}

/// Offsets to mutate (shared with the interpreter's differential test).
fn offsets(b: &[u8], stride: usize) -> Vec<usize> {
    sweep_offsets(b, stride)
}

/// Whether byte `at` lies in a v2 section payload; whether it lies in a gap between
/// payloads (after the directory).
fn place(b: &[u8], at: u64) -> (bool, bool) {
    let dir = directory(b);
    let in_payload = dir
        .iter()
        .any(|(_, off, size)| (*off..off + size).contains(&at));
    let dir_end = 60 + 44 * dir.len() as u64;
    (in_payload, !in_payload && at >= dir_end)
}

fn sweep_v2_mutants(name: &str, b: &[u8], offs: &[usize], values: &[u8]) -> usize {
    let mut n = 0;
    let mut m = b.to_vec();
    for &at in offs {
        for &x in values {
            let old = m[at];
            m[at] ^= x;
            let r = outcome(&m);
            let (in_payload, in_gap) = place(b, at as u64);
            if in_payload {
                assert!(
                    r.is_err(),
                    "{name}: payload byte {at:#x} ^ {x:#x} was accepted"
                );
            }
            if in_gap {
                assert_eq!(r, Ok(()), "{name}: gap byte {at:#x} is outside every rule");
            }
            m[at] = old;
            n += 1;
        }
    }
    n
}

#[test]
fn every_byte_of_a_writer_built_file() {
    let b = build_v2(&small_spec()).unwrap();
    let all: Vec<usize> = (0..b.len()).collect();
    let n = sweep_v2_mutants("small", &b, &all, &[0x01, 0xFF]);
    assert_eq!(n, 2 * b.len());
    for len in 0..b.len() {
        assert!(
            outcome(&b[..len]).is_err(),
            "a truncated file is never valid"
        );
    }
}

#[test]
fn corpus_mutations() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        let stride = (b.len() / 400).max(1) | 1;
        let offs = offsets(b, stride);
        if b[6] == 2 {
            let n = sweep_v2_mutants(name, b, &offs, &[0xFF]);
            assert!(n >= 4096, "{name}: {n} mutants");
        } else {
            let mut m = b.clone();
            let (mut ok, mut rejected) = (0, 0);
            for &at in &offs {
                m[at] ^= 0xFF;
                match outcome(&m) {
                    Ok(()) => ok += 1,
                    Err(_) => rejected += 1,
                }
                m[at] ^= 0xFF;
            }
            // v1 has no checksum: most opaque bytes validate; header and entry bytes do not.
            assert!(
                ok > 0 && rejected > 0,
                "{name}: {ok} valid, {rejected} rejected"
            );
        }
    }
}

#[test]
fn corpus_truncations() {
    let Some(files) = corpus() else { return };
    for (name, b) in &files {
        let stride = (b.len() / 500).max(1) | 1;
        let mut lens: Vec<usize> = (0..b.len().min(4096)).collect();
        lens.extend((4096..b.len()).step_by(stride));
        lens.push(b.len() - 1);
        // v1 declares no file size: a cut after the last byte its known tables locate
        // removes nothing the format describes, so only shorter cuts must fail.
        let known_end = if b[6] == 2 {
            b.len()
        } else {
            (0..16usize)
                .map(|k| (word(b, 376 + 8 * k) + word(b, 380 + 8 * k)) as usize)
                .max()
                .unwrap()
                .max(504)
        };
        for &len in &lens {
            let t = &b[..len];
            let r = outcome(t);
            if len < known_end {
                assert!(r.is_err(), "{name}: truncated to {len} must not validate");
            }
            if b[6] == 2 && len >= 48 {
                // Declared size patched: the checks behind the size check run too.
                let mut p = t.to_vec();
                set_word(&mut p, 0x10, len as u32);
                assert!(
                    outcome(&p).is_err(),
                    "{name}: truncated to {len} with its size patched"
                );
            }
        }
    }
}
