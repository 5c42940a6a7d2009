//! The binrw VPMN v2 reference reader on arbitrary input: never panics (it is the oracle
//! the VPMN validator will be held against), and what it accepts is self-consistent: every
//! section inside the file, the header checksum recomputed equal, counts and records in
//! agreement.
//!
//! Input: `npuschema_fuzz::vpmn_input` (byte 0 bit 0: reseal the checksums; then the file).
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_refreader::vpmn;

fuzz_target!(|data: &[u8]| {
    let Some(file) = npuschema_fuzz::vpmn_input(data) else {
        return;
    };
    match vpmn::read(&file) {
        Ok(f) => {
            assert_eq!(f.header.total_size(), file.len() as u64);
            assert_eq!(vpmn::file_crc(&file, &f.sections), f.header.crc_sum);
            for s in &f.sections {
                assert!(u128::from(s.offset()) + u128::from(s.size()) <= file.len() as u128);
            }
            if let Some(ni) = f.network_info {
                assert_eq!(ni.input_count as usize, f.inputs.len());
                assert_eq!(ni.output_count as usize, f.outputs.len());
            }
            for r in f.inputs.iter().chain(&f.outputs) {
                assert!((1..=6).contains(&r.dim_count) && !r.dims().contains(&0));
            }
            // Reading is deterministic.
            assert_eq!(vpmn::read(&file).ok(), Some(f));
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
