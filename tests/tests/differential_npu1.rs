//! Differential: the generated NPU1 validator and view (`npuschema_generated::npu1`) against
//! the independent binrw reference reader (`npuschema_tests::refreader::npu1`), written
//! from the format document. On valid blobs every field must be equal; on mutated blobs
//! both must reach the same verdict, rule for rule.
//!
//! Fixtures: blobs from the generated writer (the document's example shape and edge
//! shapes), the reference producer's blobs for the same specs (which must be byte-identical:
//! two independent writers, one layout), Vela outputs packed by `npuschema pack` when
//! `vela-out/` exists, and proptest-generated specs and mutations.
//!
//! One deliberate difference is modelled, not hidden: the schema fails closed on region
//! flag bits it does not define (`unknown-region-flags`), which the document does not ask
//! for; the reference reader ignores them as the document's loader would.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

use std::path::Path;

use npuschema_core::{FNV1A32_OFFSET_BASIS, fnv1a32};
use npuschema_generated::npu1::{Accel, Npu1, Npu1Writer, RegionData, RegionSpec, Role};
use npuschema_tests::refreader::npu1::{self as refnpu1, BuildRegion};
use proptest::prelude::*;

/// The generated validator's codes for a reference-reader rule (every rule has some).
fn expected_code(rule: &str) -> &'static [&'static str] {
    let codes = npuschema_tests::refreader::generated_codes::npu1(rule);
    assert!(
        !codes.is_empty(),
        "reference rule {rule} has no generated counterpart"
    );
    codes
}

fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Compare the two readers on `blob`; returns the common verdict (`"ok"` or a generated code).
fn compare(blob: &[u8]) -> &'static str {
    // The reference reader is the document's version 1 loader; a version 2 blob (NPU1 v2,
    // docs/npu1-v2.md) follows another layout, which tests/tests/npu1_v2.rs covers.
    if blob.get(4..8) == Some(&2u32.to_le_bytes()[..]) {
        return "version-2";
    }
    let generated = Npu1::validate(blob);
    let reference = refnpu1::read(blob);
    match (&generated, &reference) {
        (Ok(g), Ok(r)) => {
            compare_fields(blob, g, r);
            // The reference reader ignores undefined flag bits; the schema rejects them, so
            // an accepted blob has none.
            assert!(
                r.regions
                    .iter()
                    .all(|d| d.flags & !refnpu1::FLAG_BAKED == 0)
            );
            "ok"
        }
        (Err(g), Ok(r)) => {
            // Only the schema's extra rule may reject what the document's loader accepts.
            assert_eq!(
                g.code, "unknown-region-flags",
                "generated rejects ({g}), reference accepts"
            );
            let i = g.field.index as usize;
            assert!(r.regions[i].flags & !refnpu1::FLAG_BAKED != 0);
            assert!(
                r.regions[..i]
                    .iter()
                    .all(|d| d.flags & !refnpu1::FLAG_BAKED == 0)
            );
            g.code
        }
        (Ok(_), Err(e)) => panic!("generated accepts, reference rejects: {e}"),
        (Err(g), Err(e)) => {
            if e.rule() == "baked-region" && g.code == "unknown-region-flags" {
                // Per descriptor the schema checks flags first: an undefined flag on an
                // earlier (or the same) descriptor wins.
                let bad = g.field.index as usize;
                let flags = word(blob, 32 + 16 * bad + 4);
                assert!(flags & !refnpu1::FLAG_BAKED != 0);
            } else {
                assert!(
                    expected_code(e.rule()).contains(&g.code),
                    "generated {g} vs reference {e}"
                );
            }
            g.code
        }
    }
}

fn compare_fields(blob: &[u8], g: &Npu1<'_>, r: &refnpu1::Npu1) {
    let h = g.header();
    let rh = &r.header;
    assert_eq!(h.magic(), rh.magic);
    assert_eq!(h.version(), rh.version);
    assert_eq!(h.total_bytes(), rh.total_bytes);
    assert_eq!(h.region_count(), rh.region_count);
    assert_eq!(h.cmd_offset(), rh.cmd_offset);
    assert_eq!(h.cmd_bytes(), rh.cmd_bytes);
    assert_eq!(h.accel().raw(), rh.accel);
    assert_eq!(h.checksum(), rh.checksum);
    assert_eq!(h.checksum(), r.computed_checksum);
    assert_eq!(g.cmd_stream(), r.cmd_stream(blob).unwrap());
    assert_eq!(g.regions().len(), r.regions.len());
    for (i, (gr, rr)) in g.regions().zip(&r.regions).enumerate() {
        assert_eq!(gr.index() as usize, i);
        assert_eq!(gr.role().raw(), rr.role, "regions[{i}].role");
        assert_eq!(gr.flags().bits(), rr.flags, "regions[{i}].flags");
        assert_eq!(gr.size(), rr.size, "regions[{i}].size");
        assert_eq!(gr.data_offset(), rr.data_offset, "regions[{i}].data_offset");
        assert_eq!(gr.data(), r.region_data(blob, i), "regions[{i}].data");
    }
}

/// A region for both writers: role, and baked bytes or a runtime size.
#[derive(Clone, Debug)]
enum Spec {
    Baked(u32, Vec<u8>),
    Runtime(u32, u32),
}

/// Write with the generated writer and with the reference producer; both blobs must be
/// byte-identical (same layout rule: table, command stream and each baked region 16-aligned).
fn write_both(accel: u32, specs: &[Spec], cmd: &[u8]) -> Vec<u8> {
    let gen_specs: Vec<RegionSpec<'_>> = specs
        .iter()
        .map(|s| match s {
            Spec::Baked(role, b) => RegionSpec {
                role: Role::from_raw(*role),
                data: RegionData::Baked(b),
            },
            Spec::Runtime(role, n) => RegionSpec {
                role: Role::from_raw(*role),
                data: RegionData::Runtime(*n),
            },
        })
        .collect();
    let w = Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::from_raw(accel))
        .regions(&gen_specs)
        .cmd_stream(cmd);
    let generated = w.to_vec().expect("generated writer");
    assert_eq!(w.encoded_len().unwrap(), generated.len());
    let ref_specs: Vec<BuildRegion<'_>> = specs
        .iter()
        .map(|s| match s {
            Spec::Baked(role, b) => BuildRegion::Baked(*role, b),
            Spec::Runtime(role, n) => BuildRegion::Runtime(*role, *n),
        })
        .collect();
    let reference = refnpu1::build(accel, &ref_specs, cmd, None).expect("reference producer");
    assert_eq!(
        generated, reference,
        "the two writers lay the blob out differently"
    );
    generated
}

fn doc_example() -> Vec<u8> {
    let weights: Vec<u8> = (0..1_179_648u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let cmd: Vec<u8> = (0..800u32).map(|i| (i * 13) as u8).collect();
    write_both(
        0,
        &[Spec::Baked(0, weights), Spec::Runtime(1, 256 * 1024)],
        &cmd,
    )
}

fn fixtures() -> Vec<Vec<u8>> {
    let mut out = vec![doc_example()];
    let cmd = [0x01u8, 0x01, 0x0f, 0x00, 0x00, 0x00, 0xff, 0xff];
    out.push(write_both(128, &[], &cmd));
    out.push(write_both(256, &[Spec::Runtime(1, 0)], &cmd[..1]));
    out.push(write_both(32, &[Spec::Baked(0, vec![])], &cmd));
    out.push(write_both(
        64,
        &(0..8u32)
            .map(|i| {
                if i % 2 == 0 {
                    Spec::Baked(i % 5, vec![i as u8; i as usize * 7 + 1])
                } else {
                    Spec::Runtime(i, 1000 * i)
                }
            })
            .collect::<Vec<_>>(),
        &cmd,
    ));
    // Unknown role and accel values are informational: accepted by both, kept as read.
    out.push(write_both(
        999,
        &[Spec::Baked(77, vec![9; 33]), Spec::Runtime(u32::MAX, 5)],
        &cmd,
    ));
    out
}

#[test]
fn writers_agree_and_readers_agree_on_valid_fixtures() {
    for blob in fixtures() {
        assert_eq!(compare(&blob), "ok");
    }
}

/// Values that sit on or around every boundary a rule checks.
fn interesting(total: u32) -> Vec<u32> {
    let mut v = vec![
        0,
        1,
        2,
        15,
        16,
        31,
        32,
        33,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fff0,
        u32::MAX - 1,
        u32::MAX,
    ];
    for d in [0u32, 1, 16, 32] {
        v.push(total.wrapping_sub(d));
        v.push(total.wrapping_add(d));
        v.push(total / 2 + d);
    }
    v
}

fn reseal(b: &mut [u8]) {
    let sum = fnv1a32(FNV1A32_OFFSET_BASIS, &b[32..]);
    b[28..32].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn every_header_and_descriptor_word_mutated_gives_the_same_verdict() {
    let mut verdicts = std::collections::BTreeMap::<&str, u32>::new();
    for blob in fixtures() {
        let total = blob.len() as u32;
        let words = (32 + 16 * word(&blob, 12) as usize) / 4;
        for w in 0..words {
            for v in interesting(total) {
                for resealed in [false, true] {
                    let mut b = blob.clone();
                    b[4 * w..4 * w + 4].copy_from_slice(&v.to_le_bytes());
                    if resealed && w != 7 {
                        reseal(&mut b);
                    }
                    *verdicts.entry(compare(&b)).or_default() += 1;
                }
            }
        }
        // Truncations and extensions.
        for n in [0, 1, 31, 32, 33, blob.len() / 2, blob.len() - 1] {
            *verdicts.entry(compare(&blob[..n])).or_default() += 1;
        }
        let mut longer = blob.clone();
        longer.push(0);
        assert_eq!(compare(&longer), "total-bytes-mismatch");
    }
    // The mutations must have reached every rule, or the comparison proved little.
    for code in [
        "ok",
        "truncated-header",
        "bad-magic",
        "unsupported-version",
        "total-bytes-mismatch",
        "region-table-out-of-bounds",
        "empty-command-stream",
        "command-stream-out-of-bounds",
        "checksum-mismatch",
        "unknown-region-flags",
        "baked-region-out-of-bounds",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutation reached {code}: {verdicts:?}"
        );
    }
}

#[test]
fn vela_packed_blobs_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vela-out");
    if !dir.join(".stamp").is_file() {
        eprintln!("skipping: vela-out/ not built (scripts/setup-vela)");
        return;
    }
    let mut stack = vec![dir];
    let mut n = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.to_string_lossy().to_string();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with("_vela.npz") || name.ends_with("_vela.tflite") {
                let m = npuschema_cli::pack::load(&p).unwrap();
                // The reference reader knows version 1: compare pack's version 1 output.
                let packed = npuschema_cli::pack::pack_model_as(
                    &m,
                    npuschema_cli::pack::AccelChoice::Auto,
                    npuschema_cli::pack::FormatVersion::V1,
                )
                .unwrap();
                assert_eq!(compare(&packed.bytes), "ok", "{name}");
                n += 1;
            }
        }
    }
    assert!(n > 0, "vela-out/ has a stamp but no outputs");
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    prop_oneof![
        (0u32..6, prop::collection::vec(any::<u8>(), 0..70)).prop_map(|(r, b)| Spec::Baked(r, b)),
        (0u32..6, any::<u32>()).prop_map(|(r, n)| Spec::Runtime(r, n)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_specs_written_by_both_writers_read_the_same(
        accel in prop_oneof![Just(0u32), Just(32), Just(64), Just(128), Just(256), any::<u32>()],
        specs in prop::collection::vec(spec_strategy(), 0..10),
        cmd in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let blob = write_both(accel, &specs, &cmd);
        prop_assert_eq!(compare(&blob), "ok");
    }

    #[test]
    fn random_mutations_give_the_same_verdict(
        specs in prop::collection::vec(spec_strategy(), 0..6),
        cmd in prop::collection::vec(any::<u8>(), 1..32),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        resealed in any::<bool>(),
    ) {
        let mut blob = write_both(0, &specs, &cmd);
        for (at, v) in edits {
            let i = at.index(blob.len());
            blob[i] = v;
        }
        if resealed && blob.len() >= 32 {
            reseal(&mut blob);
        }
        compare(&blob);
    }
}
