//! `Npu1::validate` on arbitrary input: never panics, its error names a field inside the
//! header or the region table, and its verdict and every field agree with the binrw
//! reference reader (`npuschema_fuzz::npu1_differential`); `validate_as::<Brief>` fails at
//! the same check.
//!
//! Input: `npuschema_fuzz::Npu1Input` (4-byte prefix: reseal flag, alignment), then the blob.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_core::Brief;
use npuschema_fuzz::{Npu1Input, npu1_differential};
use npuschema_generated::npu1::Npu1;

fuzz_target!(|data: &[u8]| {
    let Some(input) = Npu1Input::parse(data) else {
        return;
    };
    let blob = input.blob();
    npu1_differential(blob);
    // The size-first report fails at the same check (same code, table and field).
    let brief = Npu1::validate_as::<Brief>(blob).map(|_| ()).map_err(|e| {
        let s = npuschema_generated::npu1::error_site(e.id()).expect("a Brief names a site");
        (s.code, s.table, s.name)
    });
    let full = Npu1::validate(blob);
    assert_eq!(
        brief,
        full.map(|_| ())
            .map_err(|e| (e.code, e.field.table, e.field.name))
    );
    match full {
        Ok(v) => {
            assert_eq!(v.as_bytes().len(), blob.len());
            for r in v.regions() {
                if let Some(d) = r.data() {
                    assert_eq!(d.len(), r.size() as usize);
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
            // Version 2's header extension, region table at 48, tensor table and names lie
            // anywhere in the blob (a part cut off by the blob's end is refused where it would
            // start: at most the blob's length); version 1's errors point into the header or
            // the table.
            let in_table = e.field.table == "regions" && e.offset < 32 + 16 * (e.field.index + 1);
            assert!(
                e.offset < 32
                    || in_table
                    || (npuschema_fuzz::is_npu1_v2(blob) && e.offset <= blob.len() as u64),
                "error offset {} outside header and table: {e}",
                e.offset
            );
        }
    }
});
