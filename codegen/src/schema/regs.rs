//! `registers:`: a memory-mapped register block (svd2rust is the model). Each register has
//! a name, an offset, an access, an optional reset value, a doc, and bit fields (the bit
//! ranges of `bitfields:`, optionally typed by an enum of the schema); a register may be an
//! array (`count`, `stride`). Loaded and checked here; emitted by [`tokens`] as offset and
//! reset constants, a register table, and one typed value per register with fields (field
//! readers, `with_*` builders, masks). A schema may have only registers (no `file`): then
//! there are no bytes to read, and the interpreter has nothing to do for it.

use crate::diag::Diags;
use crate::schema::ext::{BitRange, range_mask};
use crate::schema::{IntTy, MapReader, Name, Schema, doc, int_ty, name, named_entries, uint};
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
    let text = match &bn.kind {
        Kind::Int(i) => i.to_string(),
        Kind::Str(s) => s.clone(),
        other => {
            d.error(
                bn.pos,
                format!("bits must be `N` or `LO..HI`, found {}", other.describe()),
            );
            return None;
        }
    };
    let parsed = match text.split_once("..") {
        Some((a, b)) => a
            .trim()
            .parse::<u64>()
            .ok()
            .zip(b.trim().parse::<u64>().ok()),
        None => text.trim().parse::<u64>().ok().map(|x| (x, x)),
    };
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

/// Names the register emitter defines at module level whatever the registers are.
pub const RESERVED: &[&str] = &[
    "Access",
    "FieldInfo",
    "RegisterInfo",
    "REGISTERS",
    "REGISTER_BLOCK_BYTES",
    "register_name",
];

/// Rust's keywords: a field of one of these names would generate `fn type(self)` (register
/// fields here, command fields in `commands.rs`).
pub(crate) const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Most elements a register array may have (the checker compares every element's bytes
/// with every other's).
pub const MAX_COUNT: u64 = 4096;

fn upper_snake(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn lower_snake(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The value type's name of register `NAME` (`STATUS` -> `Status`, `AXI_LIMIT` -> `AxiLimit`).
pub fn type_name(reg: &str) -> String {
    reg.split('_')
        .map(|p| {
            let lower = p.to_ascii_lowercase();
            let mut c = lower.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The module-level names register `r` generates.
fn module_names(r: &Register) -> Vec<String> {
    let n = &r.name.text;
    let mut v = vec![n.clone(), format!("{n}_ACCESS")];
    if r.reset.is_some() {
        v.push(format!("{n}_RESET"));
    }
    if r.count > 1 {
        v.push(format!("{n}_COUNT"));
        v.push(format!("{n}_STRIDE"));
        v.push(n.to_ascii_lowercase());
    }
    if !r.fields.is_empty() {
        v.push(type_name(n));
    }
    v
}

/// Check the block against the schema (enums, names already defined).
pub fn check(schema: &Schema, b: &Block, d: &mut Diags) {
    let width = b.repr.bytes().saturating_mul(8);
    if b.repr.signed() {
        d.error(
            b.pos,
            format!("registers: repr {} must be unsigned", b.repr.rust()),
        );
    }
    if b.size == 0 || b.size > u64::from(u32::MAX) {
        d.error(
            b.pos,
            format!(
                "registers: size {:#x} must be between 1 and 0xFFFFFFFF",
                b.size
            ),
        );
    }
    // Module-level names: registers against each other, the schema's items and the fixed
    // items of the emitter.
    let mut taken: Vec<(String, Pos, String)> = RESERVED
        .iter()
        .map(|s| {
            (
                (*s).to_string(),
                Pos::default(),
                "the register emitter".to_string(),
            )
        })
        .collect();
    for c in &schema.constants {
        taken.push((
            c.name.text.clone(),
            c.name.pos,
            format!("constant `{}`", c.name.text),
        ));
    }
    for (n, what) in schema
        .enums
        .iter()
        .map(|e| (&e.name, "enum"))
        .chain(schema.flags.iter().map(|f| (&f.name, "flags")))
        .chain(schema.bitfields.iter().map(|f| (&f.name, "bitfields")))
        .chain(schema.structs.iter().map(|s| (&s.name, "struct")))
    {
        taken.push((n.text.clone(), n.pos, format!("{what} `{}`", n.text)));
    }
    // Every byte each register element occupies: (start, end, register name).
    let mut spans: Vec<(u64, u64, String)> = Vec::new();
    for r in &b.registers {
        if !upper_snake(&r.name.text) || type_name(&r.name.text) == "Self" {
            d.error(
                r.name.pos,
                format!(
                    "register `{}`: a register's name is UPPER_SNAKE (`STATUS`, `AXI_LIMIT`)",
                    r.name.text
                ),
            );
        }
        for n in module_names(r) {
            if let Some((_, p, w)) = taken.iter().find(|(t, _, _)| *t == n) {
                let at = if p.line == 0 {
                    String::new()
                } else {
                    format!(" (line {})", p.line)
                };
                d.error(
                    r.name.pos,
                    format!(
                        "register `{}` generates `{n}`, which {w}{at} also defines; rename one",
                        r.name.text
                    ),
                );
            } else {
                taken.push((n, r.name.pos, format!("register `{}`", r.name.text)));
            }
        }
        // Placement.
        let bytes = b.repr.bytes();
        if r.offset % bytes != 0 {
            d.error(
                r.offset_pos,
                format!(
                    "register `{}`: offset {:#x} is not a multiple of the register width ({bytes} bytes)",
                    r.name.text, r.offset
                ),
            );
        }
        if r.count == 0 || r.count > MAX_COUNT {
            d.error(
                r.count_pos,
                format!(
                    "register `{}`: count {} must be between 1 and {MAX_COUNT}",
                    r.name.text, r.count
                ),
            );
            continue;
        }
        if r.count > 1 && (r.stride < bytes || r.stride % bytes != 0) {
            d.error(
                r.count_pos,
                format!(
                    "register `{}`: stride {} must be a nonzero multiple of the register width ({bytes} bytes)",
                    r.name.text, r.stride
                ),
            );
            continue;
        }
        let last = (r.count - 1)
            .checked_mul(r.stride)
            .and_then(|x| x.checked_add(r.offset))
            .and_then(|x| x.checked_add(bytes));
        match last {
            Some(end) if end <= b.size => {
                for k in 0..r.count {
                    let start = r.offset.saturating_add(k.saturating_mul(r.stride));
                    let end = start.saturating_add(bytes);
                    if let Some((_, _, other)) =
                        spans.iter().find(|(s, e, _)| start < *e && *s < end)
                    {
                        let what = if *other == r.name.text {
                            "another of its own elements".to_string()
                        } else {
                            format!("register `{other}`")
                        };
                        d.error(
                            r.offset_pos,
                            format!(
                                "register `{}`{}: offset {start:#x} overlaps {what}",
                                r.name.text,
                                if r.count > 1 {
                                    format!("[{k}]")
                                } else {
                                    String::new()
                                }
                            ),
                        );
                        break;
                    }
                    spans.push((start, end, r.name.text.clone()));
                }
            }
            _ => d.error(
                r.offset_pos,
                format!(
                    "register `{}` does not fit the block of {:#x} bytes",
                    r.name.text, b.size
                ),
            ),
        }
        // Fields.
        let mut used = 0u64;
        let mut methods: Vec<(String, Pos)> = Vec::new();
        for f in &r.fields {
            let fr = &f.range;
            if !lower_snake(&fr.name.text) {
                d.error(
                    fr.name.pos,
                    format!(
                        "bit field `{}` of register `{}`: a field's name is lower_snake",
                        fr.name.text, r.name.text
                    ),
                );
            } else if KEYWORDS.contains(&fr.name.text.as_str()) {
                d.error(
                    fr.name.pos,
                    format!(
                        "bit field `{}` of register `{}`: a Rust keyword cannot name a field's reader; rename it",
                        fr.name.text, r.name.text
                    ),
                );
            }
            let mut own = vec![
                fr.name.text.clone(),
                format!("with_{}", fr.name.text),
                format!("{}_MASK", fr.name.text.to_ascii_uppercase()),
                format!("{}_SHIFT", fr.name.text.to_ascii_uppercase()),
            ];
            if f.enumeration.is_some() {
                own.push(format!("{}_raw", fr.name.text));
                own.push(format!("with_{}_raw", fr.name.text));
            }
            for m in own {
                let fixed = ["bits", "from_bits", "new", "FIELDS"];
                if fixed.contains(&m.as_str()) || methods.iter().any(|(x, _)| *x == m) {
                    d.error(
                        fr.name.pos,
                        format!(
                            "bit field `{}` of register `{}` generates `{m}`, which the register's type already has; rename the field",
                            fr.name.text, r.name.text
                        ),
                    );
                    break;
                }
                methods.push((m, fr.name.pos));
            }
            if fr.hi >= width {
                d.error(
                    fr.pos,
                    format!(
                        "bits {}..{} of `{}` do not fit the {width}-bit register `{}`",
                        fr.lo, fr.hi, fr.name.text, r.name.text
                    ),
                );
                continue;
            }
            let mask = range_mask(fr.lo, fr.hi);
            if used & mask != 0 {
                d.error(
                    fr.pos,
                    format!(
                        "bits {}..{} of `{}` overlap another field of register `{}`",
                        fr.lo, fr.hi, fr.name.text, r.name.text
                    ),
                );
            }
            used |= mask;
            if let Some(en) = &f.enumeration {
                match schema.enums.iter().find(|e| e.name.text == en.text) {
                    None => d.error(
                        en.pos,
                        format!("bit field `{}`: undefined enum `{}`", fr.name.text, en.text),
                    ),
                    Some(e) => {
                        let fw = fr.hi - fr.lo + 1;
                        if e.repr.signed() || e.repr.bytes().saturating_mul(8) < fw {
                            d.error(
                                en.pos,
                                format!(
                                    "bit field `{}` is {fw} bits wide; enum `{}` (repr {}) must be unsigned and at least as wide",
                                    fr.name.text,
                                    e.name.text,
                                    e.repr.rust()
                                ),
                            );
                        }
                        for v in &e.values {
                            if v.value > range_mask(0, fw - 1) {
                                d.error(
                                    v.value_pos,
                                    format!(
                                        "value `{}` = {} of enum `{}` does not fit the {fw}-bit field `{}` of register `{}`",
                                        v.name.text, v.value, e.name.text, fr.name.text, r.name.text
                                    ),
                                );
                            }
                        }
                    }
                }
            }
        }
        if let Some((reset, pos)) = r.reset {
            if reset > b.repr.max_unsigned() {
                d.error(
                    pos,
                    format!(
                        "register `{}`: reset value {reset:#x} does not fit {}",
                        r.name.text,
                        b.repr.rust()
                    ),
                );
            } else if !r.fields.is_empty() && reset & !used != 0 {
                d.error(
                    pos,
                    format!(
                        "register `{}`: reset value {reset:#x} sets bits {:#x}, which are in no field",
                        r.name.text,
                        reset & !used
                    ),
                );
            }
        }
    }
}

// ----- emit ------------------------------------------------------------------------------
