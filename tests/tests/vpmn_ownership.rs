//! The field map's byte ownership in the generated validator (`schema/vpmn.yaml`'s
//! `ownership` and its `owned_apart` step): a VPMN file whose headers, directory or section
//! payloads share a byte is refused by `Vpmn::validate` (what firmware links), with the
//! same code, field, offset and site as the interpreter, and `check --json` says stage
//! `validator`. Every file is resealed after its edit (checksums recomputed), so the overlap
//! is the only fault.

mod vpmn_util;

use npuschema_cli::vpmn::writer::{build_v2, directory, reseal};
use npuschema_codegen::interp::Interp;
use npuschema_core::Brief;
use npuschema_generated::vpmn::Vpmn;
use vpmn_util::*;

fn interp() -> Interp<'static> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/vpmn.yaml");
    let c = npuschema_codegen::load(&path).unwrap_or_else(|d| panic!("{d}"));
    Interp::new(Box::leak(Box::new(c)))
}

/// Section `i`'s payload moved to `to` (its size kept), resealed.
fn moved(base: &[u8], i: usize, to: u32) -> Vec<u8> {
    let mut b = base.to_vec();
    set_word(&mut b, dir_rec(i) + 4, to);
    set_word(&mut b, dir_rec(i) + 8, 0);
    reseal(&mut b);
    b
}

#[test]
fn overlapping_parts_are_refused_by_the_generated_validator_and_the_interpreter() {
    let it = interp();
    let base = build_v2(&small_spec()).unwrap();
    assert!(matches!(Vpmn::validate(&base), Ok(Vpmn::V2(_))));
    assert!(it.validate(&base).is_ok());
    let dir = directory(&base);
    let sub_header = u64::from(word(&base, 24));
    let sh_offset = u64::from(word(&base, sub_header as usize));
    // Opaque sections (no record layout, no slots): NN (7) and COEF_DATA (24).
    let movable: Vec<usize> = (0..dir.len())
        .filter(|&i| matches!(dir[i].0, 7 | 24))
        .collect();
    assert_eq!(movable.len(), 2);
    let mut refused = 0;
    for &i in &movable {
        let size = dir[i].2;
        // Onto the header (after its crc_sum: a payload holding the stored file CRC cannot
        // be resealed), the sub-header, the directory and every other section but CHECKSUM
        // (whose values cannot be resealed over themselves).
        let mut targets = vec![
            (16u64, "header at"),
            (sub_header, "sub_header at"),
            (sh_offset, "sections at"),
        ];
        for (j, d) in dir.iter().enumerate() {
            if j != i && d.2 > 0 && d.0 != 40 {
                targets.push((d.1, "payload at"));
            }
        }
        for (to, names) in targets {
            let end = to.saturating_add(size);
            let sums = dir
                .iter()
                .find(|d| d.0 == 40)
                .map_or((0, 0), |d| (d.1, d.1 + d.2));
            if end > base.len() as u64 || (to < sums.1 && sums.0 < end) {
                continue;
            }
            let b = moved(&base, i, to as u32);
            let g = Vpmn::validate(&b).expect_err("an overlap is refused");
            assert_eq!(g.code, "ownership-overlap", "section {i} at {to:#x}: {g}");
            let e = it.validate(&b).expect_err("the interpreter refuses it too");
            assert_eq!(
                (e.code, e.field.to_string(), e.offset, e.detail),
                (g.code, g.field.to_string(), g.offset, g.detail),
                "section {i} at {to:#x}"
            );
            let gb = Vpmn::validate_as::<Brief>(&b).unwrap_err();
            let ib = it.validate_as::<Brief>(&b).unwrap_err();
            assert_eq!(gb.id(), ib.id());
            let site = npuschema_generated::vpmn::error_site(gb.id()).unwrap();
            assert_eq!(site.code, "ownership-overlap");
            // The later part is blamed; the detail names the earlier one (the moved section
            // is compared with every part before it in declaration order).
            let msg = g.to_string();
            assert!(msg.contains("is also in"), "{msg}");
            if to == 16 {
                assert!(msg.contains("header at"), "{msg}");
            } else {
                assert!(msg.contains(names) || msg.contains("payload at"), "{msg}");
            }
            refused += 1;
        }
    }
    assert!(refused >= 8, "{refused} overlaps tried");
}

#[test]
fn check_json_gives_stage_validator_for_an_overlap() {
    let base = build_v2(&small_spec()).unwrap();
    let dir = directory(&base);
    let i = dir.iter().position(|d| d.0 == 7).unwrap();
    let j = dir.iter().position(|d| d.0 == 24).unwrap();
    let b = moved(&base, i, dir[j].1 as u32);
    let r = npuschema_cli::format::vpmn_verdict(&b).unwrap_err();
    assert_eq!((r.code, r.stage), ("ownership-overlap", "validator"));
}

#[test]
fn the_corpus_owns_its_bytes_apart() {
    let Some(files) = corpus() else {
        eprintln!("vpmn_ownership: no shared corpus (NPUSCHEMA_CORPUS); skipped");
        return;
    };
    let it = interp();
    for (name, b) in files {
        assert!(it.validate(&b).is_ok(), "{name}");
        // The parts the generated accessor lists (what `inspect --ledger` reports) are the
        // ones the validator checked: every part, none sharing a byte.
        let parts: Vec<_> = match Vpmn::validate(&b).expect(&name) {
            Vpmn::V2(v) => {
                let p: Vec<_> = v.layout_parts().collect();
                assert_eq!(p.len(), 3 + v.sections().len(), "{name}");
                p
            }
            Vpmn::V1(v) => {
                let p: Vec<_> = v.layout_parts().collect();
                assert_eq!(p.len(), 3 + v.entries().len(), "{name}");
                p
            }
        };
        assert_eq!(parts[0].part, "header");
        for (j, q) in parts.iter().enumerate() {
            assert!(q.end as usize <= b.len(), "{name}: {q:?}");
            for p in &parts[..j] {
                let apart =
                    p.end <= p.start || q.end <= q.start || p.end <= q.start || q.end <= p.start;
                assert!(apart, "{name}: {p:?} and {q:?}");
            }
        }
    }
}
