//! The schema interpreter against the generated NPU1 validator on arbitrary input: the same
//! verdict, the same `Error` (code, field, offset, detail), the same `Brief` number, and on
//! success the same header, regions and ranges. Never a panic in either engine.
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
        (Ok(g), Ok(v)) => {
            let h = g.header();
            let header = &v.groups[0].records[0];
            let raws: Vec<u64> = header.fields.iter().filter_map(|f| f.raw).collect();
            assert_eq!(
                raws,
                [
                    h.magic(),
                    h.version(),
                    h.total_bytes(),
                    h.region_count(),
                    h.cmd_offset(),
                    h.cmd_bytes(),
                    h.accel().raw(),
                    h.checksum()
                ]
                .map(u64::from)
            );
            let regions = v.group("regions").map_or(0, |g| g.records.len());
            assert_eq!(regions, g.regions().len());
            for (r, rv) in g.regions().zip(&v.group("regions").expect("regions").records) {
                let data = r.data().map(|d| {
                    (d.as_ptr() as u64 - blob.as_ptr() as u64, d.len() as u64)
                });
                assert_eq!(data, rv.ranges.first().map(|x| (x.offset, x.length)));
                assert_eq!(rv.fields[1].raw, Some(u64::from(r.flags().bits())));
            }
            assert_eq!(v.ranges[0].length, g.cmd_stream().len() as u64);
            assert_eq!(v.checksums[0].computed, u64::from(g.payload_computed()));
        }
        (g, i) => panic!("verdicts differ: {:?} / {:?}", g.map(|_| ()), i.map(|_| ())),
    }
});
