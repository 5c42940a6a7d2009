//! The schema interpreter against the generated NPU1 validator on arbitrary input: the same
//! verdict, the same `Error` (code, field, offset, detail), the same `Brief` number, and on
//! success the same view (`npuschema_tests::compare::npu1`, as tests/tests/interp_differential.rs:
//! every header word, enum names, each region's words, ranges and the checksum). Never a
//! panic in either engine.
//!
//! Input: `npuschema_fuzz::Npu1Input` (the NPU1 targets' prefix, then the blob).
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_core::Brief;
use npuschema_generated::npu1::Npu1;

fuzz_target!(|data: &[u8]| {
    let Some(input) = npuschema_fuzz::Npu1Input::parse(data) else {
        return;
    };
    let blob = input.blob();
    let it = npuschema_fuzz::interp_npu1();
    let brief = Npu1::validate_as::<Brief>(blob).map(|_| ()).map_err(|e| e.id());
    assert_eq!(brief, it.check::<Brief>(blob).map_err(|e| e.id()));
    match (Npu1::validate(blob), it.validate(blob)) {
        (Err(g), Err(i)) => assert_eq!(g, i),
        (Ok(g), Ok(v)) => npuschema_tests::compare::npu1(blob, &g, &v),
        (g, i) => panic!("verdicts differ: {:?} / {:?}", g.map(|_| ()), i.map(|_| ())),
    }
});
