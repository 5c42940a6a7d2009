//! The instruction-set construct at run time, on `tests/schemas/isa.yaml`: decoding codes
//! and words (short and long commands sharing an opcode number, reserved bits refused),
//! architecture membership, the field table a listing reads, and the typed views.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

mod isa {
    npuschema_macro::include_schema!("schemas/isa.yaml");
}

use isa::{Arch, Cond, Insn, JumpCmd, LoadCmd, MoveWideCmd, Width};

#[test]
fn opcodes_are_dense_and_round_trip() {
    assert_eq!(Insn::COUNT, 5);
    assert_eq!(Insn::ALL.len(), Insn::COUNT);
    for (i, op) in Insn::ALL.iter().enumerate() {
        assert_eq!(op.index(), i);
        assert_eq!(Insn::from_code(op.code()), Some(*op), "{op}");
        assert_eq!(op.info().name, op.name());
    }
    assert_eq!(Insn::Jump.name(), "ISA_JUMP");
    assert_eq!(format!("{:>10}", Insn::Nop), "   ISA_NOP");
}

#[test]
fn the_long_bit_tells_commands_of_one_number_apart() {
    // 16-bit words: opcode 0..5, long bit 7, param 8..15.
    assert_eq!(Insn::from_code(0x0002), Some(Insn::Load));
    assert_eq!(Insn::from_code(0x0082), Some(Insn::Jump));
    assert_eq!(Insn::Jump.code(), 0x82);
    assert_eq!(Insn::Jump.opcode(), 2);
    assert!(Insn::Jump.has_payload() && !Insn::Load.has_payload());
    // A long 0 is no command; bit 6 is reserved.
    assert_eq!(Insn::from_code(0x0080), None);
    assert_eq!(Insn::from_code(0x0040), None);
    assert_eq!(Insn::from_code(0x0102), None, "param bits are not a code");
    assert_eq!(Insn::from_word(0xAB02), Some(Insn::Load));
    assert_eq!(Insn::param_of(0xAB02), 0xAB);
    assert_eq!(Insn::from_word(0xAB42), None);
    assert_eq!(Insn::from_code(0x00BF), Some(Insn::MoveWide));
}

#[test]
fn words_are_read_in_the_space_byte_order() {
    let bytes = [0x02, 0xAB, 0x00, 0x82];
    assert_eq!(Insn::word_at(&bytes, 0), Some(0x02AB));
    assert_eq!(Insn::word_at(&bytes, 2), Some(0x0082));
    assert_eq!(Insn::word_at(&bytes, 3), None);
    assert_eq!(Insn::word_at(&bytes, usize::MAX), None);
}

#[test]
fn architectures_have_their_commands() {
    assert_eq!(Arch::ALL, &[Arch::Base, Arch::Ext]);
    assert_eq!(Arch::from_name("ext"), Some(Arch::Ext));
    assert_eq!(Arch::Base.name(), "base");
    assert!(!Insn::MoveWide.in_arch(Arch::Base));
    assert!(Insn::MoveWide.in_arch(Arch::Ext));
    for op in Insn::ALL.iter().filter(|o| **o != Insn::MoveWide) {
        assert!(op.in_arch(Arch::Base) && op.in_arch(Arch::Ext), "{op}");
        assert_eq!(op.archs(), Arch::ALL);
    }
    assert_eq!(Insn::MoveWide.archs(), &[Arch::Ext]);
}

#[test]
fn the_field_table_describes_each_command() {
    assert!(Insn::Nop.fields().is_empty());
    let f = Insn::Jump.fields();
    assert_eq!(f.len(), 3);
    assert_eq!(
        (f[0].name, f[0].lsb, f[0].width, f[0].payload),
        ("cond", 0, 2, false)
    );
    assert_eq!(f[0].enum_name, "COND");
    assert_eq!(f[0].value_name(2), Some("carry"));
    assert_eq!(f[0].value_name(3), None);
    assert_eq!((f[1].name, f[1].lsb, f[1].width), ("bank", 2, 2));
    assert!(f[1].in_arch(Arch::Ext) && !f[1].in_arch(Arch::Base));
    assert!(f[0].in_arch(Arch::Ext) && f[0].in_arch(Arch::Base));
    assert_eq!((f[2].name, f[2].payload, f[2].hex), ("target", true, true));
    assert_eq!(f[0].get(0xFE, 0x1234), 2);
    assert_eq!(f[1].get(0xFE, 0x1234), 3);
    assert_eq!(f[2].get(0xFE, 0x1234), 0x1234);
    assert_eq!(Insn::Jump.zero_mask(), 0xF0);
    assert_eq!(Insn::Halt.zero_mask(), 0xFF);
    assert_eq!(Insn::Load.zero_mask(), 0);
    let w = Insn::Load.fields()[1];
    assert_eq!((w.lsb, w.width, w.get(0x30, 0)), (4, 1, 1));
}

#[test]
fn views_read_fields_and_check_zero_bits() {
    let j = JumpCmd::new(0x02, 0xBEEF);
    assert_eq!(JumpCmd::OPCODE, Insn::Jump);
    assert_eq!(j.cond(), Some(Cond::Carry));
    assert_eq!(j.target(), 0xBEEF);
    assert!(j.zero_ok());
    assert_eq!(JumpCmd::new(0x0E, 0).bank(), 3);
    let bad = JumpCmd::new(0x13, 0);
    assert!(!bad.zero_ok());
    assert_eq!(bad.cond(), None, "3 is no Cond");
    assert_eq!(bad.cond_raw(), 3);
    assert_eq!(bad.bank(), 0);
    let l = LoadCmd::new(0b0011_0101);
    assert_eq!(l.reg(), 5);
    assert_eq!(l.width(), Width::Half);
    assert!(l.signed());
    assert!(l.zero_ok());
    assert_eq!(LoadCmd::new(0).width(), Width::Byte);
    let m = MoveWideCmd::new(0x0F, 0x8001);
    assert_eq!(
        (m.reg(), m.imm(), m.param(), m.payload()),
        (15, 0x8001, 0x0F, 0x8001)
    );
}
