//! The generated VPMN v2 writer (`VpmnV2Spec`, behind `cli::vpmn::writer`) reproduces the
//! bytes of the hand-written writer it replaced: before that one was deleted both were run
//! on these specs and compared byte for byte (and their reseal and file CRC on 3,000
//! mutants); the SHA-256 of each file it wrote is recorded here. Real files are re-written
//! from their parsed sections byte for byte, and `seal` restores what it computes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod vpmn_util;

use npuschema_cli::vpmn::sha256_hex;
use npuschema_cli::vpmn::writer::{
    Section, V2Spec, assemble, build_v2, directory, file_crc, reseal, spec_of,
};
use npuschema_generated::vpmn::Vpmn;
use vpmn_util::*;

fn specs() -> Vec<V2Spec> {
    let mut out = vec![small_spec()];
    let mut s = small_spec();
    s.sections.push(Section::new(41, 1, vec![1, 2, 3]));
    out.push(s);
    let mut s = small_spec();
    s.sections.push(Section::new(0, 1, vec![9]));
    out.push(s);
    let mut s = small_spec();
    s.sections.push(Section::new(7, 192, vec![0; 192]));
    out.push(s);
    let mut s = small_spec();
    s.sections.push(Section::new(20, 1, vec![0; 64]));
    out.push(s);
    let mut s = small_spec();
    s.sections
        .push(Section::new(40, 8, vec![40, 0, 0, 0, 0, 0, 0, 0]));
    out.push(s);
    for a in [0u32, 1, 2, 3, 7, 64, 256, 1000] {
        let mut s = small_spec();
        for (i, x) in s.sections.iter_mut().enumerate() {
            x.alignment = if i % 2 == 0 { a } else { a / 2 };
            x.load_address = u64::from(a) << 33 | 5;
            x.reserved = [a, !a];
        }
        s.target = a;
        s.class_word = a.wrapping_mul(3);
        s.reserved = [a + 1, a + 2];
        out.push(s);
    }
    let mut s = small_spec();
    s.sections.clear();
    out.push(s);
    if let Some(files) = corpus() {
        for (_, b) in files {
            if let Ok(s) = spec_of(&b) {
                out.push(s);
            }
        }
    }
    out
}

/// `(length, SHA-256)` of the hand-written writer's output for each of [`specs`] (the
/// synthetic ones; the corpus files are their own expectation).
const HAND_WRITTEN: [(usize, &str); 15] = [
    (
        2344,
        "2e250e3286fe8725000f321960c889a72b85e22dc71114f9aeee8fa3540fe8df",
    ),
    (
        2411,
        "59234d0126dcd66237aeef6d6d014ef445dda912e60a0365c14c2f6972c23922",
    ),
    (
        2409,
        "fb3f3381847f76c636d0485bcecbf7edcddf22161a598ad215ff3ebbac2a47d6",
    ),
    (
        2600,
        "037a5cbce3d79689d58274a8883c3e256c7908b2628cb20915060dd6e528beef",
    ),
    (
        2472,
        "31b8c79e254e73b7d781ae9ca7bcb230844521943a918c222228743a2dccf410",
    ),
    (
        2416,
        "43df2d0075df6dc421a7bc5ecf1495a70d55f7efc33167f91d9b784959c81ae2",
    ),
    (
        2320,
        "0e9887b63e978108d4d81e75539a0ccebd431a5d10a424395350b60079f24159",
    ),
    (
        2320,
        "61511690ef652406294090e6df27fd1998be4d417588aa460b8192e32e628bdd",
    ),
    (
        2320,
        "b08fe8423e73acc5987b85c2e5f7269eeceecfcd1a2a102f27c072a21e3b19a7",
    ),
    (
        2326,
        "b22a53548fa2f2d79b12b2eacf902a3314f12ce70dd9415a09002d4e69dd27d7",
    ),
    (
        2344,
        "e8824200804007a09bf3cda555afb93e87ceb1643a848251800ef556759a63ed",
    ),
    (
        2536,
        "872813794b81af1a34afd4e3ecb5a7baa524847a807741257f78ab4e7bdcf42e",
    ),
    (
        3304,
        "959f6ca57aa69e976faeaf504aa95bb06626a6d62201e085251799f670054f7d",
    ),
    (
        6000,
        "3d7ebe1ba5af28ae68ad9f3d34a210b88bb4ee3df8e019e26c491f88ac7d5e9b",
    ),
    (
        60,
        "90b5bcbc6d5d33a79bcfcffd07413f509a7c8350a2c36cf597371e6b0c4b2654",
    ),
];

#[test]
fn the_generated_writer_writes_the_hand_written_bytes() {
    let specs = specs();
    for (k, (s, (n, sha))) in specs.iter().zip(HAND_WRITTEN).enumerate() {
        let b = assemble(s).unwrap();
        assert_eq!((b.len(), sha256_hex(&b).as_str()), (n, sha), "spec {k}");
    }
    // The real v2 files: re-written from their parsed sections, byte for byte.
    let mut real = 0;
    if let Some(files) = corpus() {
        for (name, b) in files {
            let Ok(s) = spec_of(&b) else { continue };
            assert!(build_v2(&s).unwrap() == b, "{name}");
            real += 1;
        }
        assert_eq!(real, 3);
    }
    // The valid ones validate; the others are the faults they were made with.
    assert!(matches!(
        Vpmn::validate(&assemble(&specs[0]).unwrap()),
        Ok(Vpmn::V2(_))
    ));
    let e = Vpmn::validate(&assemble(&specs[1]).unwrap()).unwrap_err();
    assert_eq!(e.code, "unknown-section-type");
}

#[test]
fn seal_restores_what_it_computes_on_mutants() {
    let base = build_v2(&small_spec()).unwrap();
    let mut x: u64 = 0x5EED;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut skipped = 0;
    for _ in 0..3000 {
        let mut b = base.clone();
        for _ in 0..(1 + next() % 3) {
            let at = (next() as usize) % b.len();
            b[at] ^= (next() as u8) | 1;
        }
        if next() % 4 == 0 {
            let n = (next() as usize) % b.len();
            b.truncate(n);
        }
        let dir = directory(&b);
        // Storing a value changes no hashed byte unless a CHECKSUM payload overlaps another
        // payload, or a payload covers the header's crc_sum (a mutant's): then a second pass
        // may differ.
        let overlaps = dir.iter().any(|&(t, o, s)| {
            (o < 16 && o.saturating_add(s) > 12)
                || t == 40
                    && dir.iter().any(|&(u, p, q)| {
                        (u, p, q) != (t, o, s) && p < o.saturating_add(s) && o < p.saturating_add(q)
                    })
        });
        if overlaps {
            skipped += 1;
            continue;
        }
        let mut once = b.clone();
        reseal(&mut once);
        let mut twice = once.clone();
        reseal(&mut twice);
        assert!(once == twice, "reseal is idempotent");
        // Every sum seal computes cleared, then resealed: the same bytes.
        let mut cleared = once.clone();
        if let Some(w) = cleared.get_mut(12..16) {
            w.fill(0);
        }
        let inside = |o: u64, s: u64| o.checked_add(s).is_some_and(|e| e <= once.len() as u64);
        for &(t, o, s) in &dir {
            if t != 40 || !inside(o, s) {
                continue;
            }
            for k in 0..(s / 8) {
                let at = (o + 8 * k) as usize;
                let target = u32::from_le_bytes(once[at..at + 4].try_into().unwrap());
                let hits: Vec<_> = dir.iter().filter(|d| d.0 == target).collect();
                if hits.len() == 1 && inside(hits[0].1, hits[0].2) {
                    cleared[at + 4..at + 8].fill(0);
                }
            }
        }
        reseal(&mut cleared);
        assert!(cleared == once, "resealed from zero");
        if let Some(w) = once.get(12..16) {
            let stored = u32::from_le_bytes(w.try_into().unwrap());
            assert_eq!(file_crc(&once, &dir), stored);
        }
    }
    assert!(skipped < 300, "{skipped} overlapping mutants");
}
