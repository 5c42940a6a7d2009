//! The decoder and checker take an architecture (the generated opcode space of
//! `schema/ethos_u55_cmd.yaml` says which commands each has): a U65-only command in a U55
//! stream is `unknown-opcode`, the U55's `NPU_SET_USER_DEFINED0..7` are known, and the
//! listing names and lists them from the schema's field table.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use npuschema_runtime::cmd::{Arch, DecodeError, Opcode, check, check_for, decode, decode_for};

fn stream(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

const STOP: u32 = 0xFFFF_0000;

#[test]
fn a_u65_only_command_is_unknown_in_a_u55_stream() {
    for (name, words) in [
        ("NPU_SET_PARALLEL_MODE", vec![0x0001_0123, STOP]),
        ("NPU_SET_DMA0_SKIP0", vec![0x0000_4033, 0x10, STOP]),
        ("NPU_SET_WEIGHT1_BASE", vec![0x0000_4090, 0x20, STOP]),
        ("NPU_SET_SCALE1_LENGTH", vec![0x0000_4093, 0x20, STOP]),
    ] {
        let s = stream(&words);
        let e = check(&s, &[], &mut |_| {}).expect_err(name);
        assert_eq!(
            e,
            DecodeError {
                code: DecodeError::UNKNOWN_OPCODE,
                offset: 0,
                word: words[0]
            },
            "{name}"
        );
        assert!(decode(&s).next().unwrap().is_err(), "{name}");
        // The U65 has it.
        let cmds: Vec<_> = decode_for(&s, Arch::U65).map(Result::unwrap).collect();
        assert_eq!(cmds[0].name(), name);
        let summary = check_for(&s, Arch::U65, &[], &mut |_| {}).unwrap();
        assert_eq!(summary.commands, 2, "{name}");
    }
}

#[test]
fn user_defined_commands_are_the_u55s() {
    let mut words = Vec::new();
    for k in 0..8u32 {
        words.push(0x0000_40A0 + k);
        words.push(0xC0DE_0000 + k);
    }
    words.push(STOP);
    let s = stream(&words);
    let summary = check(&s, &[], &mut |_| panic!("no finding")).unwrap();
    assert_eq!(summary.commands, 9);
    let cmds: Vec<_> = decode(&s).map(Result::unwrap).collect();
    assert_eq!(cmds[3].opcode(), Some(Opcode::SetUserDefined3));
    assert_eq!(
        cmds[3].to_string(),
        "0x000018: c0de0003 0000 40a3 - NPU_SET_USER_DEFINED3              0, value = 0xc0de0003"
    );
    // Not the U65's.
    assert!(check_for(&s, Arch::U65, &[], &mut |_| {}).is_err());
}

#[test]
fn the_listing_reads_the_schema_field_table() {
    // NPU_SET_IFM_PRECISION param 0x4305: signed, 16-bit, NHWC, round_mode TRUNCATE, and an
    // enum value the schema does not name (scale_mode 3) is listed as its number.
    let s = stream(&[0x4305_0105, STOP]);
    let c = decode(&s).next().unwrap().unwrap();
    assert_eq!(
        c.to_string(),
        "0x000000:          4305 0105 - NPU_SET_IFM_PRECISION          17157, activation_type = ACTIVATION_TYPE_SIGNED, activation_precision = ACTIVATION_PRECISION_B16, activation_format = ACTIVATION_FORMAT_NHWC, scale_mode = 3, round_mode = ROUND_MODE_TRUNCATE"
    );
}
