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

/// What the U65 changes, as a schema edit: its extra commands, and its 40-bit addresses
/// (`addr_hi`, parameter bits 0..7 of each address command), which the U55 reserves.
#[test]
fn the_u65_differs_from_the_u55_as_the_schema_says() {
    use npuschema_runtime::cmd::FieldsIn;
    let mut extra_fields = Vec::new();
    for op in Opcode::ALL {
        for f in op.fields() {
            match (f.in_arch(Arch::U55), f.in_arch(Arch::U65)) {
                (true, true) => {}
                (false, true) => extra_fields.push((op.name(), f.name, f.lsb, f.width)),
                other => panic!("{}.{}: {other:?}", op.name(), f.name),
            }
        }
    }
    assert_eq!(extra_fields.len(), 18, "{extra_fields:#?}");
    for (cmd, name, lsb, width) in &extra_fields {
        assert_eq!((*name, *lsb, *width), ("addr_hi", 0, 8), "{cmd}");
        assert!(
            cmd.contains("BASE") || cmd.ends_with("_SRC") || cmd.ends_with("_DST"),
            "{cmd}"
        );
    }
    // The same NPU_SET_IFM_BASE0 word: a U55 lists the offset, a U65 the high bits too.
    let s = stream(&[0x0012_4000, 0x0000_1000, STOP]);
    let c = decode(&s).next().unwrap().unwrap();
    assert_eq!(
        c.to_string()
            .rsplit(" - ")
            .next()
            .unwrap()
            .split(", ")
            .nth(1),
        Some("addr = 0x1000")
    );
    assert_eq!(FieldsIn(&c, Arch::U55).to_string(), ", addr = 0x1000");
    assert_eq!(
        FieldsIn(&c, Arch::U65).to_string(),
        ", addr_hi = 0x12, addr = 0x1000"
    );
}
