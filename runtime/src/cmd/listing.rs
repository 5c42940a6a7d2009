//! Text listing of commands in the layout of Vela's `--verbose-register-command-stream`:
//!
//! ```text
//! 0x000000:          0001 010f - NPU_SET_IFM_REGION                 1, region = 1
//! 0x000004: 00000010 0000 4000 - NPU_SET_IFM_BASE0                  0, addr = 0x10
//! ```
//!
//! Columns: byte offset (`{:#08x}`), payload (8 hex digits, blank for cmd0), param (4 hex),
//! code (4 hex), `-`, name padded to 30, param in decimal (width 5), then the decoded
//! fields of the parameter/payload. The fields, their names, bit ranges and enums are the
//! schema's (`schema/ethos_u55_cmd.yaml`, through [`Opcode::fields`](super::Opcode::fields)):
//! no table here. Field names and enum spellings follow what Vela 5.2.0 prints (those of
//! Arm's `ethosu55_interface.h`); for commands Vela never emitted in the reference outputs
//! the field split follows that header and is not checked against Vela's listing.

use core::fmt;

use super::decode::Command;
use super::opcode::{Arch, CommandField};

/// The listing line for one command (no trailing newline): `format!("{}", cmd)` gives the
/// same text.
#[derive(Debug, Clone, Copy)]
pub struct Listing<'a>(pub &'a Command);

/// Only the decoded fields part of a listing line (`", region = 1"`), empty for commands
/// without fields (`NPU_OP_CONV`, `NPU_OP_DEPTHWISE`, `NPU_OP_DMA_START`).
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a>(pub &'a Command);

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Listing(self).fmt(f)
    }
}

/// [`Listing`] of a command of architecture `.1`: its fields are those of [`FieldsIn`] (the
/// U65's `addr_hi`, say). [`Listing`] is this for the U55.
#[derive(Debug, Clone, Copy)]
pub struct ListingIn<'a>(pub &'a Command, pub Arch);

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ListingIn(self.0, Arch::U55).fmt(f)
    }
}

impl fmt::Display for ListingIn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ListingIn(c, arch) = *self;
        write!(f, "{:#08x}:", c.offset)?;
        match c.payload {
            Some(p) => write!(f, " {p:08x}")?,
            None => f.write_str("         ")?,
        }
        write!(
            f,
            " {:04x} {:04x} - {:30} {:5}",
            c.param,
            c.code,
            c.name(),
            c.param
        )?;
        FieldsIn(c, arch).fmt(f)
    }
}

/// One field's value as Vela lists it: for an enum field `ENUM_VALUE` (the enum's and the
/// value's names in capitals, Arm's spelling) when the value is known, else the number; in
/// hex for a field the schema lists in hex, else in decimal.
struct FieldVal(CommandField, u64);

impl fmt::Display for FieldVal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let FieldVal(field, v) = *self;
        if let Some(name) = field.value_name(v) {
            f.write_str(field.enum_name)?;
            f.write_str("_")?;
            for c in name.chars() {
                fmt::Write::write_char(f, c.to_ascii_uppercase())?;
            }
            Ok(())
        } else if field.hex {
            write!(f, "{v:#x}")
        } else {
            write!(f, "{v}")
        }
    }
}

/// [`Fields`] of a command of architecture `.1`: only the fields that architecture has
/// (the U65's `addr_hi`, say). [`Fields`] and [`Listing`] list the U55's.
#[derive(Debug, Clone, Copy)]
pub struct FieldsIn<'a>(pub &'a Command, pub Arch);

impl fmt::Display for Fields<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        FieldsIn(self.0, Arch::U55).fmt(f)
    }
}

impl fmt::Display for FieldsIn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let FieldsIn(c, arch) = *self;
        let Some(op) = c.opcode() else {
            return Ok(());
        };
        let param = u64::from(c.param);
        let payload = u64::from(c.payload.unwrap_or(0));
        for field in op.fields().iter().filter(|x| x.in_arch(arch)) {
            write!(
                f,
                ", {} = {}",
                field.name,
                FieldVal(*field, field.get(param, payload))
            )?;
        }
        Ok(())
    }
}
