//! The schema interpreter against the generated VPMN validator (v2 and v1) on arbitrary
//! input: the same verdict, the same `Error`, the same `Brief` number, and on success the
//! same variant and the same view (`npuschema_tests::compare::vpmn_v2`/`vpmn_v1`, as
//! tests/tests/interp_differential.rs). Never a panic in either engine.
//!
//! Input: `npuschema_fuzz::vpmn_input` (byte 0 bit 0: reseal the checksums; then the file).
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_core::Brief;
use npuschema_generated::vpmn::Vpmn;

fuzz_target!(|data: &[u8]| {
    let Some(file) = npuschema_fuzz::vpmn_input(data) else {
        return;
    };
    let it = npuschema_fuzz::interp_vpmn();
    let brief = Vpmn::validate_as::<Brief>(&file).map(|_| ()).map_err(|e| e.id());
    assert_eq!(brief, it.check::<Brief>(&file).map_err(|e| e.id()));
    match (Vpmn::validate(&file), it.validate(&file)) {
        (Err(g), Err(i)) => assert_eq!(g, i),
        (Ok(Vpmn::V2(g)), Ok(v)) => {
            assert_eq!(v.variant.as_deref(), Some("v2"));
            npuschema_tests::compare::vpmn_v2(&file, &g, &v);
        }
        (Ok(Vpmn::V1(g)), Ok(v)) => {
            assert_eq!(v.variant.as_deref(), Some("v1"));
            npuschema_tests::compare::vpmn_v1(&file, &g, &v);
        }
        (g, i) => panic!("verdicts differ: {:?} / {:?}", g.map(|_| ()), i.map(|_| ())),
    }
});
