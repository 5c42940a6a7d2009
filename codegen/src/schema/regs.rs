//! `registers:`: a memory-mapped register block (svd2rust is the model). Each register has
//! a name, an offset, an access, an optional reset value, a doc, and bit fields (the bit
//! ranges of `bitfields:`, optionally typed by an enum of the schema); a register may be an
//! array (`count`, `stride`). Loaded here; checked in `check/regs.rs`; emitted by
//! [`crate::emit::regs::tokens`] as offset and
//! reset constants, a register table, and one typed value per register with fields (field
//! readers, `with_*` builders, masks). A schema may have only registers (no `file`): then
//! there are no bytes to read, and the interpreter has nothing to do for it.

use crate::diag::Diags;
use crate::schema::ext::BitRange;
use crate::schema::{IntTy, MapReader, Name, doc, int_ty, name, named_entries, uint};
use crate::yaml::{Kind, Node, Pos};

/// How software may access a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only: writes are ignored.
    Read,
    /// Write only: reads return nothing meaningful.
    Write,
    /// Read and write.
    ReadWrite,
    /// Readable; writing 1 to a bit clears it, 0 leaves it.
    Write1Clear,
    /// Readable; writing 1 to a bit sets it, 0 leaves it.
    Write1Set,
}

/// The spellings of [`Access`] in a schema, in order.
pub(crate) const ACCESS: &[(&str, Access, &str)] = &[
    ("read", Access::Read, "Read"),
    ("write", Access::Write, "Write"),
    ("read-write", Access::ReadWrite, "ReadWrite"),
    ("write-1-to-clear", Access::Write1Clear, "Write1Clear"),
    ("write-1-to-set", Access::Write1Set, "Write1Set"),
];

/// One bit field of a register: a bit range, optionally typed by an enum.
#[derive(Clone, Debug)]
pub struct RegField {
    /// The range (name, bits, doc).
    pub range: BitRange,
    /// The enum giving the field's values.
    pub enumeration: Option<Name>,
}

/// One register (or array of registers).
#[derive(Clone, Debug)]
pub struct Register {
    /// Name (UPPER_SNAKE): the offset constant's name.
    pub name: Name,
    /// Byte offset from the block's base (of the first element for an array).
    pub offset: u64,
    /// Where the offset was written.
    pub offset_pos: Pos,
    /// Access.
    pub access: Access,
    /// Value after a reset, when defined.
    pub reset: Option<(u64, Pos)>,
    /// Number of elements (1 for a single register).
    pub count: u64,
    /// Bytes between elements.
    pub stride: u64,
    /// Where `count`/`stride` were written.
    pub count_pos: Pos,
    /// Documentation.
    pub doc: String,
    /// Bit fields.
    pub fields: Vec<RegField>,
}

/// A register block.
#[derive(Clone, Debug)]
pub struct Block {
    /// Width of every register.
    pub repr: IntTy,
    /// Size of the block in bytes: every register lies inside it.
    pub size: u64,
    /// Where the block was written.
    pub pos: Pos,
    /// The registers.
    pub registers: Vec<Register>,
}

// ----- load ------------------------------------------------------------------------------

fn bit_range(fname: Name, fv: &Node, d: &mut Diags) -> Option<RegField> {
    let (bits_node, fdoc, enumeration) = match &fv.kind {
        Kind::Map(_) => {
            let mut fm = MapReader::new(fv, &format!("bit field `{}`", fname.text), d)?;
            let b = fm.req("bits", d);
            let e = fm.opt("enum").and_then(|n| name(n, "enum", d));
            let fdoc = doc(&mut fm, d);
            fm.finish(&["bits", "enum", "doc"], d);
            (b, fdoc, e)
        }
        _ => (Some(fv), String::new(), None),
    };
    let bn = bits_node?;
    let (text, parsed) = crate::schema::bit_span(bn, "bits", d)?;
    match parsed {
        Some((lo, hi)) if lo <= hi => Some(RegField {
            range: BitRange {
                name: fname,
                lo,
                hi,
                pos: bn.pos,
                doc: fdoc,
            },
            enumeration,
        }),
        _ => {
            d.error(
                bn.pos,
                format!("bits `{text}` must be `N` or `LO..HI` with LO <= HI"),
            );
            None
        }
    }
}

/// `registers:` at the top level.
pub fn block(node: &Node, d: &mut Diags) -> Option<Block> {
    let mut m = MapReader::new(node, "`registers`", d)?;
    let repr = m
        .opt("repr")
        .and_then(|n| int_ty(n, "repr", d))
        .unwrap_or(IntTy::U32);
    let size = m.req("size", d).and_then(|n| uint(n, "size", d));
    let mut registers = Vec::new();
    if let Some(map) = m.req("map", d) {
        for (rname, v) in named_entries(map, "map", d) {
            let Some(mut rm) = MapReader::new(v, &format!("register `{}`", rname.text), d) else {
                continue;
            };
            let off_node = rm.req("offset", d);
            let offset = off_node.and_then(|n| uint(n, "offset", d));
            let access_node = rm.req("access", d);
            let access = access_node.and_then(|n| {
                let s = crate::schema::string(n, "access", d)?;
                let found = ACCESS.iter().find(|(k, _, _)| *k == s).map(|a| a.1);
                if found.is_none() {
                    let known: Vec<&str> = ACCESS.iter().map(|a| a.0).collect();
                    d.error(
                        n.pos,
                        format!("access `{s}` is not one of {}", known.join(", ")),
                    );
                }
                found
            });
            let reset = rm
                .opt("reset")
                .and_then(|n| uint(n, "reset", d).map(|v| (v, n.pos)));
            let count_node = rm.opt("count");
            let count = count_node.and_then(|n| uint(n, "count", d));
            let stride_node = rm.opt("stride");
            let stride = stride_node.and_then(|n| uint(n, "stride", d));
            let count_pos = count_node.or(stride_node).map_or(rname.pos, |n| n.pos);
            let rdoc = doc(&mut rm, d);
            let mut fields = Vec::new();
            if let Some(fs) = rm.opt("fields") {
                for (fname, fv) in named_entries(fs, "fields", d) {
                    fields.extend(bit_range(fname, fv, d));
                }
            }
            rm.finish(
                &[
                    "offset", "access", "reset", "count", "stride", "doc", "fields",
                ],
                d,
            );
            let (count, stride) = match (count, stride) {
                (None, None) => (1, repr.bytes()),
                (Some(c), Some(s)) => (c, s),
                _ => {
                    d.error(
                        count_pos,
                        format!(
                            "register `{}`: an array needs both `count` and `stride`",
                            rname.text
                        ),
                    );
                    continue;
                }
            };
            if let (Some(offset), Some(access), Some(on)) = (offset, access, off_node) {
                registers.push(Register {
                    name: rname,
                    offset,
                    offset_pos: on.pos,
                    access,
                    reset,
                    count,
                    stride,
                    count_pos,
                    doc: rdoc,
                    fields,
                });
            }
        }
    }
    m.finish(&["repr", "size", "map"], d);
    Some(Block {
        repr,
        size: size?,
        pos: node.pos,
        registers,
    })
}

// ----- check -----------------------------------------------------------------------------

// ----- emit ------------------------------------------------------------------------------
