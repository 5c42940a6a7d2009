//! `Vpmn::validate` (generated, v2 and v1) on arbitrary input: never panics, its error
//! names an offset inside the file (or 0 for a short one), and its verdict and every decoded
//! field agree with the binrw reference readers (`vpmn` for v2 files, `vpmn_v1` for the
//! 0x0001xxxx family); `validate_as::<Brief>` fails at the same check.
//!
//! Input: `npuschema_fuzz::vpmn_input` (byte 0 bit 0: reseal the checksums; then the file).
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_core::Brief;
use npuschema_generated::vpmn::{Vpmn, VpmnV1};
use npuschema_refreader::vpmn as refvpmn;
use npuschema_refreader::vpmn_v1 as refv1;

fuzz_target!(|data: &[u8]| {
    let Some(file) = npuschema_fuzz::vpmn_input(data) else {
        return;
    };
    let generated = Vpmn::validate(&file);
    // The size-first report fails at the same check (same code, table and field).
    let brief = Vpmn::validate_as::<Brief>(&file).map(|_| ()).map_err(|e| {
        let s = npuschema_generated::vpmn::error_site(e.id()).expect("a Brief names a site");
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
        match (&generated, refv1::read(&file)) {
            (Ok(Vpmn::V1(g)), Ok(r)) => compare_v1(g, &r, &file),
            (Err(g), Err(e)) => {
                let ok = npuschema_refreader::generated_codes::vpmn_v1(e.rule()).contains(&g.code);
                assert!(ok, "v1: generated {g} vs reference {e}");
            }
            (Ok(_), Err(e)) => panic!("v1: generated accepts, reference rejects: {e}"),
            (Err(g), Ok(_)) => panic!("v1: generated rejects ({g}), reference accepts"),
            (Ok(Vpmn::V2(_)), Ok(_)) => panic!("a file the v1 reference reads validated as v2"),
        }
        return;
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

/// Every field the generated v1 view decodes, against the v1 reference reader.
fn compare_v1(g: &VpmnV1<'_>, r: &refv1::V1File, file: &[u8]) {
    let h = g.header();
    let p = &r.prefix;
    assert_eq!(
        (
            h.magic().to_le_bytes(),
            h.version(),
            h.target(),
            h.network_name()
        ),
        (p.magic, p.version, p.hw_target, p.name_bytes())
    );
    assert_eq!(
        (
            h.layer_count(),
            h.operation_count(),
            h.input_count(),
            h.output_count()
        ),
        (
            p.layer_count,
            p.operation_count,
            p.input_count,
            p.output_count
        )
    );
    let x = g.fixed();
    let db = r.fixed.features.as_ref();
    assert_eq!(x.gate(), u64::from(p.version));
    assert_eq!(x.feature_bits().map(|b| b.bits()), db.map(|d| d.word0));
    assert_eq!(
        (x.num_pixel_pipes(), x.core_count()),
        (db.map(|d| d.num_pixel_pipes), db.map(|d| d.core_count))
    );
    assert_eq!(
        x.feature_reserved().map(|b| &b[..]),
        db.map(|d| &d.rest[..7])
    );
    assert_eq!(x.feature_rest().map(|b| &b[..]), db.map(|d| &d.rest[11..]));
    // The word at 108: nbg_crc_sum from 0x00010016 (the notes), the unmapped
    // `feature_word4` from 0x00010003 to 0x00010015.
    assert_eq!(x.nbg_crc_sum(), r.nbg_crc_sum());
    let word4 = db
        .and_then(|d| d.word_at(refv1::NBG_CRC_SUM_AT))
        .filter(|_| p.version < refv1::since::NBG_CRC_SUM);
    assert_eq!(x.feature_word4().map(|b| u32::from_le_bytes(*b)), word4);
    let m = &r.fixed.memory_pool;
    assert_eq!(
        (x.pool_size(), x.pool_alignment(), x.pool_base()),
        (m.size, m.alignment, m.base)
    );
    assert_eq!(
        (x.axi_sram_base(), x.axi_sram_size()),
        (r.fixed.axi_sram.base, r.fixed.axi_sram.size)
    );
    assert_eq!(
        (x.vip_sram_base(), x.vip_sram_size()),
        (
            r.fixed.vip_sram.map(|s| s.base),
            r.fixed.vip_sram.map(|s| s.size)
        )
    );
    assert_eq!(g.entries().len(), r.entries().len());
    for (a, b) in g.entries().zip(r.entries()) {
        assert_eq!(
            (a.offset(), a.size(), a.bytes()),
            (b.offset, b.size, b.bytes(file))
        );
    }
    assert_eq!(g.inputs().len(), r.inputs.len());
    assert_eq!(g.outputs().len(), r.outputs.len());
    for (a, b) in g.inputs().zip(&r.inputs).chain(g.outputs().zip(&r.outputs)) {
        assert_eq!((a.dim_count(), a.dim_size()), (b.dim_count, b.dim_size));
        assert_eq!(
            (
                a.data_format().raw(),
                a.data_type().raw(),
                a.quant_format().raw()
            ),
            (b.data_format, b.data_type, b.quant_format)
        );
        assert_eq!(
            (
                a.fixed_point_pos(),
                a.tf_scale(),
                a.tf_zero_point(),
                a.name()
            ),
            (
                b.fixed_pos,
                b.tf_scale.to_bits(),
                b.tf_zero_point,
                b.name_bytes()
            )
        );
    }
}
