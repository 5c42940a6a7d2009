//! The binrw VPMN v2 and v1 reference readers on arbitrary input: never panic (it is the oracle
//! the VPMN validator will be held against), and what it accepts is self-consistent: every
//! section inside the file, the header checksum recomputed equal, counts and records in
//! agreement.
//!
//! Input: `npuschema_fuzz::vpmn_input` (byte 0 bit 0: reseal the checksums; then the file).
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_refreader::{vpmn, vpmn_v1};

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
    // The v1 reader likewise: never panics; what it accepts is self-consistent.
    match vpmn_v1::read(&file) {
        Ok(f) => {
            assert_eq!(f.version() >> 16, 1);
            assert_eq!(f.entries().len(), vpmn_v1::entry_count(f.version()));
            for e in f.entries() {
                assert!(e.end() <= file.len() as u64);
                assert!(e.bytes(&file).is_some());
            }
            if f.version() >= vpmn_v1::since::IO_116 {
                assert_eq!(f.prefix.input_count as usize, f.inputs.len());
                assert_eq!(f.prefix.output_count as usize, f.outputs.len());
            } else {
                assert!(f.inputs.is_empty() && f.outputs.is_empty());
            }
            for r in f.inputs.iter().chain(&f.outputs) {
                assert!((1..=6).contains(&r.dim_count) && !r.dims().contains(&0));
            }
            assert_eq!(vpmn_v1::read(&file).ok(), Some(f));
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
