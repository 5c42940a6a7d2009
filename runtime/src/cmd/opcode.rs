//! The Ethos-U command opcodes: the generated opcode space of `schema/ethos_u55_cmd.yaml`
//! (`npuschema_generated::ethos_u55_cmd`), with Vela's `NPU_*` names. Nothing here is a
//! table: codes, lengths, names, architectures and field layouts all come from the schema.

pub use npuschema_generated::ethos_u55_cmd::{Arch, CommandField, Opcode};

/// Bit 14 of a command word's low half: set for 64-bit (cmd1) commands, whose second word is a
/// 32-bit payload (the schema's `long_bit`).
pub const CMD1_FLAG: u16 = low16(Opcode::LONG_FLAG);

/// Mask of the 10-bit opcode inside the 16-bit command code (the schema's `opcode` bits).
pub const OPCODE_MASK: u16 = low16(Opcode::OPCODE_MASK);

/// The command code's half of a word: what is not the parameter (the schema puts the
/// parameter above it).
const fn low16(w: u32) -> u16 {
    (w & !Opcode::PARAM_MASK) as u16
}

/// The opcode of 16-bit command code `code` (bits 0..15 of the first command word) on
/// architecture `arch`, or `None`: unknown, reserved bits set, or a command `arch` lacks.
#[must_use]
pub const fn from_code_in(code: u16, arch: Arch) -> Option<Opcode> {
    match Opcode::from_code(code as u32) {
        Some(op) if op.in_arch(arch) => Some(op),
        _ => None,
    }
}

/// The 16-bit command code of `op`: the 10-bit opcode, with `0x4000` set for cmd1.
#[must_use]
pub const fn code16(op: Opcode) -> u16 {
    low16(op.code())
}

/// True for the operations that touch memory: CONV, DEPTHWISE, POOL, ELEMENTWISE and
/// DMA_START (what the NPU does with its registers, not a layout: not in the schema).
#[must_use]
pub const fn touches_memory(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::OpConv
            | Opcode::OpDepthwise
            | Opcode::OpPool
            | Opcode::OpElementwise
            | Opcode::OpDmaStart
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_indices_are_dense() {
        for (i, op) in Opcode::ALL.iter().enumerate() {
            assert_eq!(op.index(), i);
            assert_eq!(
                Opcode::from_code(u32::from(code16(*op))),
                Some(*op),
                "{}",
                op.name()
            );
        }
    }

    #[test]
    fn cmd0_and_cmd1_overlap_is_resolved_by_bit_14() {
        assert_eq!((CMD1_FLAG, OPCODE_MASK), (0x4000, 0x03FF));
        assert_eq!(from_code_in(0x0000, Arch::U55), Some(Opcode::OpStop));
        assert_eq!(from_code_in(0x4000, Arch::U55), Some(Opcode::SetIfmBase0));
        assert_eq!(from_code_in(0x0020, Arch::U55), None);
        assert_eq!(from_code_in(0x4020, Arch::U55), Some(Opcode::SetWeightBase));
        // Reserved control / must-be-zero bits.
        assert_eq!(from_code_in(0x8000, Arch::U55), None);
        assert_eq!(from_code_in(0x0400, Arch::U55), None);
        assert_eq!(Opcode::SetIfmRegion.name(), "NPU_SET_IFM_REGION");
        assert!(Opcode::SetDma0Len.has_payload());
        assert!(!Opcode::SetDma0SrcRegion.has_payload());
    }

    #[test]
    fn each_architecture_has_its_own_commands() {
        // U65 only.
        assert_eq!(from_code_in(0x0123, Arch::U55), None);
        assert_eq!(
            from_code_in(0x0123, Arch::U65),
            Some(Opcode::SetParallelMode)
        );
        assert_eq!(from_code_in(0x4090, Arch::U55), None);
        // U55 only: NPU_SET_USER_DEFINED0..7.
        assert_eq!(
            from_code_in(0x40A7, Arch::U55),
            Some(Opcode::SetUserDefined7)
        );
        assert_eq!(from_code_in(0x40A7, Arch::U65), None);
        assert!(touches_memory(Opcode::OpDmaStart) && !touches_memory(Opcode::OpStop));
    }
}
