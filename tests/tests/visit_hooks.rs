//! The generated `validate_with` hooks on a schema other than NPU1's: VPMN v2's `sections`
//! hook sees every section record, in order, only after the record's checks passed, and an
//! error it returns stops validation with that error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod vpmn_util;

use npuschema_cli::vpmn::writer::build_v2;
use npuschema_core::Brief;
use npuschema_generated::vpmn::{FormatHeader, SectionHeader, Vpmn, VpmnV2, VpmnV2Visit};
use vpmn_util::*;

/// Keeps each section record's bytes; refuses record `stop_at`, if any, with `refusal`.
struct Seen<'a> {
    records: Vec<(usize, &'a [u8; 44])>,
    stop_at: Option<usize>,
    refusal: Brief,
}

impl<'a> VpmnV2Visit<'a, Brief> for Seen<'a> {
    fn sections(
        &mut self,
        _: &FormatHeader<'a>,
        index: usize,
        record: &SectionHeader<'a>,
    ) -> Result<(), Brief> {
        if self.stop_at == Some(index) {
            return Err(self.refusal);
        }
        self.records.push((index, record.as_bytes()));
        Ok(())
    }
}

fn seen(stop_at: Option<usize>) -> Seen<'static> {
    Seen {
        records: Vec::new(),
        stop_at,
        // Some Brief to stand for "the caller refused": a short buffer's.
        refusal: Vpmn::validate_as::<Brief>(&[]).unwrap_err(),
    }
}

#[test]
fn the_sections_hook_sees_each_checked_record_once() {
    let b = build_v2(&small_spec()).unwrap();
    let Vpmn::V2(full) = Vpmn::validate(&b).unwrap() else {
        panic!("a v2 file");
    };
    let expected: Vec<_> = full
        .sections()
        .enumerate()
        .map(|(i, s)| (i, s.as_bytes()))
        .collect();
    assert!(expected.len() >= 3, "{}", expected.len());

    let mut all = seen(None);
    let view = VpmnV2::validate_with(&b, &mut all).unwrap();
    assert_eq!(all.records, expected);
    assert_eq!(view.sections().len(), expected.len());

    // A hook's error stops validation with it, after the records before it.
    let mut stop = seen(Some(1));
    let e = VpmnV2::validate_with(&b, &mut stop).unwrap_err();
    assert_eq!(e, stop.refusal);
    assert_eq!(stop.records, expected[..1]);

    // A record that fails its own checks is never handed to the hook.
    let mut bad = b.clone();
    set_word(&mut bad, dir_rec(0), 0xFFFF_FFFF); // sections[0].sd_type
    let mut none = seen(None);
    let e = VpmnV2::validate_with(&bad, &mut none).unwrap_err();
    let site = npuschema_generated::vpmn::error_site(e.id()).unwrap();
    assert_eq!(
        (site.code, site.table),
        ("unknown-section-type", "sections")
    );
    assert!(none.records.is_empty());
}
