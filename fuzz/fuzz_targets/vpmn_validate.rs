//! `Vpmn::validate` (generated, v2 and v1) on arbitrary input: never panics, its error
//! names an offset inside the file (or 0 for a short one), and on v2 files its verdict and
//! every decoded field agree with the binrw reference reader; `validate_as::<Brief>` fails at
//! the same check.
//!
//! Input: `npuschema_fuzz::vpmn_input` (byte 0 bit 0: reseal the checksums; then the file).
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_core::Brief;
use npuschema_generated::vpmn::Vpmn;
use npuschema_refreader::vpmn as refvpmn;

fuzz_target!(|data: &[u8]| {
    let Some(file) = npuschema_fuzz::vpmn_input(data) else {
        return;
    };
    let generated = Vpmn::validate(&file);
    // The size-first report fails at the same check (same code, table and field).
    let brief = Vpmn::validate_as::<Brief>(&file).map(|_| ()).map_err(|e| {
        let s = e.site();
        (s.code, s.table, s.name)
    });
    let full = generated
        .as_ref()
        .map(|_| ())
        .map_err(|e| (e.code, e.field.table, e.field.name));
    assert_eq!(brief, full);
    if let Err(e) = &generated {
        let _ = e.to_string();
        assert!(
            e.offset <= file.len() as u64 || e.code == "truncated-header",
            "error offset past the file: {e}"
        );
    }
    let v1 = file
        .get(4..8)
        .is_some_and(|v| u32::from_le_bytes([v[0], v[1], v[2], v[3]]) >> 16 == 1);
    if v1 {
        return; // The reference reads v2 only.
    }
    match (&generated, refvpmn::read(&file)) {
        (Ok(Vpmn::V2(g)), Ok(r)) => {
            assert_eq!(g.header().crc_sum(), r.computed_crc);
            assert_eq!(g.sections().len(), r.sections.len());
            for (gs, rs) in g.sections().zip(&r.sections) {
                assert_eq!(
                    (gs.sd_type().raw(), gs.offset(), gs.size(), gs.sd_entsize()),
                    (rs.sd_type, rs.offset(), rs.size(), rs.sd_entsize)
                );
            }
            assert_eq!(g.inputs().count(), r.inputs.len());
            assert_eq!(g.outputs().count(), r.outputs.len());
            for (a, b) in g.inputs().zip(&r.inputs).chain(g.outputs().zip(&r.outputs)) {
                assert_eq!(
                    (a.dim_count(), a.dim_size(), a.quant_data()),
                    (b.dim_count, b.dim_size, b.quant_data)
                );
            }
            let cs: Vec<(u32, u32)> = g
                .checksums()
                .map(|c| (c.sd_type(), c.checksum_value()))
                .collect();
            let rcs: Vec<(u32, u32)> = r.checksums.iter().map(|c| (c.sd_type, c.value)).collect();
            assert_eq!(cs, rcs);
            let dt: Vec<(u32, u32)> = g.dynaio_table().map(|e| (e.offset(), e.size())).collect();
            let rdt: Vec<(u32, u32)> = r.dynio_table.iter().map(|e| (e.offset, e.size)).collect();
            assert_eq!(dt, rdt);
        }
        (Err(g), Err(e)) => {
            let ok = npuschema_refreader::generated_codes::vpmn(e.rule()).contains(&g.code);
            assert!(ok, "generated {g} vs reference {e}");
        }
        (Ok(_), Err(e)) => panic!("generated accepts, reference rejects: {e}"),
        (Ok(Vpmn::V1(_)), Ok(_)) => panic!("a file the reference reads as v2 validated as v1"),
        (Err(g), Ok(_)) => panic!("generated rejects ({g}), reference accepts"),
    }
});
