//! `commands:`: an instruction set (an "opcode space"). A stream of fixed-width words; the
//! first word of each command holds an opcode (a bit range), a parameter (another bit
//! range) and, optionally, a bit that makes the command long (one payload word follows).
//! Every other bit of the first word must be zero. The space declares its architectures;
//! each command its name, code, length, the architectures that have it, the bit fields of
//! its parameter and payload (optionally typed by an enum of the schema) and the parameter
//! bits that must be zero. Loaded here; checked in `check/commands.rs`; emitted by
//! [`crate::emit::commands::tokens`] as an opcode enum
//! (dense index, `ALL`, `COUNT`, `from_code`, `from_word`, `name`, `has_payload`,
//! `in_arch`), an `Arch` enum, a field table for listings, and one typed view per command
//! with fields. A schema may have only commands (no `file`): the interpreter has nothing to
//! read for it.

use crate::diag::Diags;
use crate::schema::ext::range_mask;
use crate::schema::{
    IntTy, MapReader, Name, boolean, doc, int_ty, name, named_entries, seq, string, uint,
};
use crate::yaml::{Kind, Node, Pos};

/// A bit range `lo..=hi` as written.
#[derive(Clone, Copy, Debug)]
pub struct Bits {
    /// Lowest bit.
    pub lo: u64,
    /// Highest bit (inclusive).
    pub hi: u64,
    /// Where it was written.
    pub pos: Pos,
}

impl Bits {
    pub(crate) fn width(self) -> u64 {
        self.hi.saturating_sub(self.lo).saturating_add(1)
    }
    pub(crate) fn mask(self) -> u64 {
        range_mask(self.lo, self.hi)
    }
}

/// One bit field of a command: in the parameter or in the payload word.
#[derive(Clone, Debug)]
pub struct Field {
    /// Name (lower_snake).
    pub name: Name,
    /// Bits, relative to the parameter's (or the payload's) lowest bit.
    pub bits: Bits,
    /// In the payload word rather than the parameter.
    pub payload: bool,
    /// Listed in hexadecimal.
    pub hex: bool,
    /// The enum giving the field's values.
    pub enumeration: Option<Name>,
    /// The architectures that have the field (empty: all that have the command).
    pub archs: Vec<Name>,
    /// Documentation.
    pub doc: String,
}

/// One command.
#[derive(Clone, Debug)]
pub struct Command {
    /// Name (UPPER_SNAKE, without the space's prefix).
    pub name: Name,
    /// The opcode number.
    pub code: u64,
    /// Where the code was written.
    pub code_pos: Pos,
    /// Long: one payload word follows.
    pub long: bool,
    /// Where `long` was written (the name when absent).
    pub long_pos: Pos,
    /// The architectures that have it (empty: all).
    pub archs: Vec<Name>,
    /// Parameter bits that must be zero.
    pub zero: Vec<Bits>,
    /// Bit fields.
    pub fields: Vec<Field>,
    /// Documentation.
    pub doc: String,
}

/// An opcode space.
#[derive(Clone, Debug)]
pub struct Space {
    /// The opcode enum's name (UpperCamel).
    pub name: Name,
    /// Width of every word.
    pub word: IntTy,
    /// Byte order of the words.
    pub big_endian: bool,
    /// The opcode's bits in the first word.
    pub opcode: Bits,
    /// The parameter's bits in the first word.
    pub param: Bits,
    /// The bit of the first word that makes a command long, if any.
    pub long_bit: Option<(u64, Pos)>,
    /// Prepended to each command's name by `name()`.
    pub prefix: String,
    /// The architectures, with their docs.
    pub archs: Vec<(Name, String)>,
    /// The commands.
    pub commands: Vec<Command>,
    /// Documentation.
    pub doc: String,
    /// Where the block was written.
    pub pos: Pos,
}

// ----- load ------------------------------------------------------------------------------

fn bits(node: &Node, what: &str, d: &mut Diags) -> Option<Bits> {
    let (text, parsed) = crate::schema::bit_span(node, what, d)?;
    match parsed {
        Some((lo, hi)) if lo <= hi && hi < 64 => Some(Bits {
            lo,
            hi,
            pos: node.pos,
        }),
        _ => {
            d.error(
                node.pos,
                format!("{what} `{text}` must be `N` or `LO..HI` with LO <= HI < 64"),
            );
            None
        }
    }
}

fn field(fname: Name, fv: &Node, d: &mut Diags) -> Option<Field> {
    match &fv.kind {
        Kind::Map(_) => {
            let mut fm = MapReader::new(fv, &format!("command field `{}`", fname.text), d)?;
            let b = fm.req("bits", d).and_then(|n| bits(n, "bits", d));
            let place = fm.opt("in").and_then(|n| {
                let s = string(n, "in", d)?;
                match s.as_str() {
                    "param" => Some(false),
                    "payload" => Some(true),
                    _ => {
                        d.error(n.pos, format!("in `{s}` must be `param` or `payload`"));
                        None
                    }
                }
            });
            let hex = fm.opt("hex").and_then(|n| boolean(n, "hex", d));
            let e = fm.opt("enum").and_then(|n| name(n, "enum", d));
            let mut archs = Vec::new();
            if let Some(a) = fm.opt("arch") {
                for n in seq(a, "arch", d) {
                    archs.extend(name(n, "architecture", d));
                }
            }
            let fdoc = doc(&mut fm, d);
            fm.finish(&["bits", "in", "hex", "enum", "arch", "doc"], d);
            Some(Field {
                name: fname,
                bits: b?,
                payload: place.unwrap_or(false),
                hex: hex.unwrap_or(false),
                enumeration: e,
                archs,
                doc: fdoc,
            })
        }
        _ => Some(Field {
            bits: bits(fv, "bits", d)?,
            name: fname,
            payload: false,
            hex: false,
            enumeration: None,
            archs: Vec::new(),
            doc: String::new(),
        }),
    }
}

fn command(cname: Name, v: &Node, d: &mut Diags) -> Option<Command> {
    let mut cm = MapReader::new(v, &format!("command `{}`", cname.text), d)?;
    let code_node = cm.req("code", d);
    let code = code_node.and_then(|n| uint(n, "code", d));
    let long_node = cm.opt("long");
    let long = long_node
        .and_then(|n| boolean(n, "long", d))
        .unwrap_or(false);
    let mut archs = Vec::new();
    if let Some(a) = cm.opt("arch") {
        for n in seq(a, "arch", d) {
            archs.extend(name(n, "architecture", d));
        }
        if archs.is_empty() && matches!(a.kind, Kind::Seq(_) | Kind::Null) {
            d.error(
                a.pos,
                format!(
                    "command `{}`: `arch` lists no architecture (leave it out for all)",
                    cname.text
                ),
            );
        }
    }
    let mut zero = Vec::new();
    if let Some(z) = cm.opt("zero") {
        for n in seq(z, "zero", d) {
            zero.extend(bits(n, "zero", d));
        }
    }
    let cdoc = doc(&mut cm, d);
    let mut fields = Vec::new();
    if let Some(fs) = cm.opt("fields") {
        for (fname, fv) in named_entries(fs, "fields", d) {
            fields.extend(field(fname, fv, d));
        }
    }
    cm.finish(&["code", "long", "arch", "zero", "doc", "fields"], d);
    Some(Command {
        long_pos: long_node.map_or(cname.pos, |n| n.pos),
        name: cname,
        code: code?,
        code_pos: code_node?.pos,
        long,
        archs,
        zero,
        fields,
        doc: cdoc,
    })
}

/// `commands:` at the top level. `big` is the schema's default byte order.
pub fn space(node: &Node, big: bool, d: &mut Diags) -> Option<Space> {
    let mut m = MapReader::new(node, "`commands`", d)?;
    let ename = m
        .req("name", d)
        .and_then(|n| name(n, "the opcode enum's name", d));
    let word = m
        .opt("word")
        .and_then(|n| int_ty(n, "word", d))
        .unwrap_or(IntTy::U32);
    let big_endian = m
        .opt("byte_order")
        .and_then(|n| super::byte_order_value(n, d))
        .unwrap_or(big);
    let opcode = m.req("opcode", d).and_then(|n| bits(n, "opcode", d));
    let param = m.req("param", d).and_then(|n| bits(n, "param", d));
    let long_bit = m
        .opt("long_bit")
        .and_then(|n| uint(n, "long_bit", d).map(|v| (v, n.pos)));
    let prefix = m
        .opt("prefix")
        .and_then(|n| {
            let s = string(n, "prefix", d)?;
            if s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
            {
                Some(s)
            } else {
                d.error(
                    n.pos,
                    format!("prefix `{s}` may hold only letters, digits, `_`, `.` and `-`"),
                );
                None
            }
        })
        .unwrap_or_default();
    let mut archs = Vec::new();
    if let Some(a) = m.opt("archs") {
        for (an, av) in named_entries(a, "archs", d) {
            let adoc = match &av.kind {
                Kind::Null => String::new(),
                _ => string(av, "an architecture's doc", d).unwrap_or_default(),
            };
            archs.push((an, adoc.trim().to_string()));
        }
    }
    let mut commands = Vec::new();
    if let Some(l) = m.req("list", d) {
        for (cname, v) in named_entries(l, "list", d) {
            commands.extend(command(cname, v, d));
        }
    }
    let sdoc = doc(&mut m, d);
    m.finish(
        &[
            "name",
            "word",
            "byte_order",
            "opcode",
            "param",
            "long_bit",
            "prefix",
            "archs",
            "list",
            "doc",
        ],
        d,
    );
    Some(Space {
        name: ename?,
        word,
        big_endian,
        opcode: opcode?,
        param: param?,
        long_bit,
        prefix,
        archs,
        commands,
        doc: sdoc,
        pos: node.pos,
    })
}

// ----- check -----------------------------------------------------------------------------

// ----- emit ------------------------------------------------------------------------------
