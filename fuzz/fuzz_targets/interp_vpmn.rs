//! The schema interpreter against the generated VPMN validator (v2 and v1) on arbitrary
//! input: the same verdict, the same `Error`, the same `Brief` number, and on success the
//! same variant, header words and record counts. Never a panic in either engine.
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
            let count = |n: &str| v.group(n).map_or(0, |g| g.records.len());
            assert_eq!(count("sections"), g.sections().len());
            assert_eq!(count("inputs"), g.inputs().count());
            assert_eq!(count("outputs"), g.outputs().count());
            assert_eq!(count("checksums"), g.checksums().count());
            assert_eq!(count("dynaio_table"), g.dynaio_table().count());
            let crc = v.checksums.iter().find(|k| k.name == "file_crc").expect("file_crc");
            assert_eq!((crc.stored, crc.computed), (u64::from(g.header().crc_sum()), crc.stored));
        }
        (Ok(Vpmn::V1(g)), Ok(v)) => {
            assert_eq!(v.variant.as_deref(), Some("v1"));
            let count = |n: &str| v.group(n).map_or(0, |g| g.records.len());
            assert_eq!(count("entries"), g.entries().len());
            assert_eq!(count("inputs"), g.inputs().len());
            assert_eq!(count("outputs"), g.outputs().len());
            let fixed = v.group("fixed").expect("fixed");
            assert_eq!(fixed.records[0].size, g.fixed().as_bytes().len() as u64);
        }
        (g, i) => panic!("verdicts differ: {:?} / {:?}", g.map(|_| ()), i.map(|_| ())),
    }
});
