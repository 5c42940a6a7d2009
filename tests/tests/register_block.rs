//! The register construct at run time, on `tests/schemas/regblock.yaml`: offsets, arrays,
//! reset values, the register table, and the typed values' readers and builders (bools,
//! integers, closed and open enums, full-width fields), all masking out-of-field bits.

mod regblock {
    npuschema_macro::include_schema!("schemas/regblock.yaml");
}

use regblock::{Access, Burst, Ctrl, Irq, Mode, REGISTERS, Wide};

#[test]
fn offsets_arrays_and_names() {
    assert_eq!(regblock::CTRL, 0x00);
    assert_eq!(regblock::IRQ, 0x04);
    assert_eq!(regblock::SRC, 0x10);
    assert_eq!((regblock::SRC_COUNT, regblock::SRC_STRIDE), (4, 8));
    assert_eq!(regblock::src(0), 0x10);
    assert_eq!(regblock::src(3), 0x28);
    assert_eq!(regblock::src(4), 0x10, "an index wraps into the array");
    assert_eq!(regblock::wide(1), 0x1C);
    assert_eq!(regblock::REGISTER_BLOCK_BYTES, 0x100);
    assert_eq!(regblock::register_name(0x00), Some("CTRL"));
    assert_eq!(regblock::register_name(0x18), Some("SRC"));
    assert_eq!(regblock::register_name(0x1C), Some("WIDE"));
    assert_eq!(regblock::register_name(0x30), None, "past the last element");
    assert_eq!(regblock::register_name(0x02), None, "unaligned");
    assert_eq!(regblock::register_name(0x08), None, "between registers");
    assert_eq!(regblock::CTRL_ACCESS, Access::ReadWrite);
    assert_eq!(regblock::IRQ_ACCESS, Access::Write1Clear);
    assert_eq!(regblock::WIDE_ACCESS, Access::Read);
}

#[test]
fn reset_values_and_the_table() {
    assert_eq!(regblock::CTRL_RESET, 0x104);
    let ctrl = Ctrl::from_bits(regblock::CTRL_RESET);
    assert_eq!(ctrl.mode(), Some(Mode::Fill));
    assert_eq!(ctrl.burst(), Burst::Incr4);
    assert!(!ctrl.enable());
    let names: Vec<&str> = REGISTERS.iter().map(|r| r.name).collect();
    assert_eq!(names, ["CTRL", "IRQ", "SRC", "WIDE"]);
    let c = &REGISTERS[0];
    assert_eq!((c.offset, c.count, c.reset), (0, 1, Some(0x104)));
    let f: Vec<(&str, u32, u32)> = c.fields.iter().map(|f| (f.name, f.lsb, f.width)).collect();
    assert_eq!(
        f,
        [
            ("enable", 0, 1),
            ("mode", 1, 2),
            ("burst", 8, 2),
            ("priority", 12, 4),
            ("length", 16, 16)
        ]
    );
    assert_eq!(REGISTERS[3].reset, None);
    assert_eq!(Ctrl::FIELDS, 0xFFFF_F307);
}

#[test]
fn builders_set_one_field_and_mask_the_rest() {
    let c = Ctrl::new()
        .with_enable(true)
        .with_mode(Mode::Copy)
        .with_burst(Burst::Incr8)
        .with_priority(0xF)
        .with_length(0x1234);
    assert_eq!(c.bits(), 0x1234_F203);
    assert_eq!(c.length(), 0x1234);
    assert_eq!(c.priority(), 0xF);
    // Bits beyond a field are dropped, not carried into the next one.
    let c2 = c.with_priority(0x1F);
    assert_eq!(c2.priority(), 0xF);
    assert_eq!(c2.length(), 0x1234);
    // Replacing a field clears its old bits.
    assert_eq!(c.with_enable(false).bits(), 0x1234_F202);
    assert_eq!(c.with_mode(Mode::Idle).mode(), Some(Mode::Idle));
    // Bits outside every field are kept.
    assert_eq!(Ctrl::from_bits(0x0000_0C00).bits(), 0x0C00);
    assert_eq!(
        Ctrl::from_bits(0x0000_0C00).with_enable(true).bits(),
        0x0C01
    );
}

#[test]
fn closed_and_open_enum_fields() {
    // Mode is closed: the reserved value 3 reads as None, its raw value stays readable.
    let c = Ctrl::from_bits(0b110);
    assert_eq!(c.mode(), None);
    assert_eq!(c.mode_raw(), 3);
    assert_eq!(Ctrl::new().with_mode_raw(3).bits(), 0b110);
    assert_eq!(
        Ctrl::new().with_mode_raw(0xFF).bits(),
        0b110,
        "masked to the field"
    );
    // Burst is open: the unknown value 3 is kept.
    let b = Ctrl::from_bits(0x300);
    assert_eq!(b.burst(), Burst::Unknown(3));
    assert_eq!(b.burst_raw(), 3);
}

#[test]
fn one_bit_and_full_width_fields() {
    let i = Irq::new().with_done(true).with_error(true);
    assert_eq!(i.bits(), 3);
    assert_eq!(Irq::DONE_MASK, 1);
    assert_eq!(Irq::ERROR_SHIFT, 1);
    assert!(Irq::from_bits(2).error() && !Irq::from_bits(2).done());
    let w = Wide::new().with_all(0xDEAD_BEEF);
    assert_eq!(w.all(), 0xDEAD_BEEF);
    assert_eq!(w.bits(), 0xDEAD_BEEF);
}
