//! NPU1 version 2's compiled-for words through the real driver on the simulated NPU (a
//! U55 whose CONFIG and ID are those of Vela's ethos-u55-N): a blob compiled for 256 MACs is
//! refused on the 128-MAC NPU with `optimizer-config-mismatch` before anything runs, one
//! compiled for it runs with the words checked, and a version 1 blob (no words) runs with
//! the check reported skipped.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use npuschema_generated::npu1::{
    Accel, Npu1Writer, RegionData, RegionSpec, Role, VERSION_V1, VERSION_V2,
};
use npuschema_runtime::driver::ConfigCheck;
use npuschema_sim::{RunOptions, run_blob};

/// NPU_OP_STOP: the smallest stream.
const STOP: [u8; 4] = [0x00, 0x00, 0xFF, 0xFF];

/// Vela's OPTIMIZER_CONFIG words for ethos-u55-128 and -256 (vela-out's listings:
/// CONFIG 0x00001807 / 0x00001808, ID 0x10066001): macs_per_cc 7 or 8, SHRAM 24 KiB.
const CONFIG_128: u32 = 0x0000_1807;
const CONFIG_256: u32 = 0x0000_1808;
const ID: u32 = 0x1006_6001;

fn blob(version: u32, accel: Accel, config: u32) -> Vec<u8> {
    let regions = [RegionSpec {
        role: Role::Scratch,
        data: RegionData::Runtime(64),
    }];
    let w = Npu1Writer::new()
        .version(version)
        .accel(accel)
        .regions(&regions);
    let w = if version == VERSION_V2 {
        w.ext_npu_config(config)
            .ext_npu_id(if config == 0 { 0 } else { ID })
            .io(&[])
    } else {
        w
    };
    w.cmd_stream(&STOP).to_vec().unwrap()
}

fn run(b: &[u8], macs: u32) -> Result<ConfigCheck, &'static str> {
    let opts = RunOptions {
        macs: Some(macs),
        ..RunOptions::default()
    };
    let report = run_blob(b, &opts).unwrap();
    report
        .outcome
        .map(|info| info.compiled_for)
        .map_err(|e| e.code)
}

#[test]
fn the_compiled_for_words_are_checked_and_a_v1_blob_says_it_skipped() {
    // Compiled for 256, on a 128-MAC NPU: the words' own error, before the MACs check.
    assert_eq!(
        run(&blob(VERSION_V2, Accel::Macs256, CONFIG_256), 128),
        Err("optimizer-config-mismatch")
    );
    // The same accel word but the words of a 128 compilation: the words agree, the accel
    // word does not (a producer's inconsistency still refused).
    assert_eq!(
        run(&blob(VERSION_V2, Accel::Macs256, CONFIG_128), 128),
        Err("config-mismatch")
    );
    assert_eq!(
        run(&blob(VERSION_V2, Accel::Macs128, CONFIG_128), 128),
        Ok(ConfigCheck::Matched)
    );
    assert_eq!(
        run(&blob(VERSION_V2, Accel::Macs256, CONFIG_256), 256),
        Ok(ConfigCheck::Matched)
    );
    // Words the producer did not know (zero): skipped, as for version 1.
    assert_eq!(
        run(&blob(VERSION_V2, Accel::Macs128, 0), 128),
        Ok(ConfigCheck::Skipped)
    );
    assert_eq!(
        run(&blob(VERSION_V1, Accel::Macs128, 0), 128),
        Ok(ConfigCheck::Skipped)
    );
    assert_eq!(
        run(&blob(VERSION_V1, Accel::Macs256, 0), 128),
        Err("config-mismatch")
    );
}
