//! `commands:`: an instruction set (an "opcode space"). A stream of fixed-width words; the
//! first word of each command holds an opcode (a bit range), a parameter (another bit
//! range) and, optionally, a bit that makes the command long (one payload word follows).
//! Every other bit of the first word must be zero. The space declares its architectures;
//! each command its name, code, length, the architectures that have it, the bit fields of
//! its parameter and payload (optionally typed by an enum of the schema) and the parameter
//! bits that must be zero. Loaded and checked here; emitted by [`tokens`] as an opcode enum
//! (dense index, `ALL`, `COUNT`, `from_code`, `from_word`, `name`, `has_payload`,
//! `in_arch`), an `Arch` enum, a field table for listings, and one typed view per command
//! with fields. A schema may have only commands (no `file`): the interpreter has nothing to
//! read for it.

use crate::diag::Diags;
use crate::schema::ext::range_mask;
use crate::schema::{
    IntTy, MapReader, Name, Schema, boolean, doc, int_ty, name, named_entries, seq, string, uint,
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
    let text = match &node.kind {
        Kind::Int(i) => i.to_string(),
        Kind::Str(s) => s.clone(),
        other => {
            d.error(
                node.pos,
                format!("{what} must be `N` or `LO..HI`, found {}", other.describe()),
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
    let big_endian = match m.opt("byte_order") {
        Some(n) => match string(n, "byte_order", d).as_deref() {
            Some("little") => false,
            Some("big") => true,
            Some(other) => {
                d.error(
                    n.pos,
                    format!("byte_order `{other}` must be `little` or `big`"),
                );
                big
            }
            None => big,
        },
        None => big,
    };
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

/// Names the command emitter defines at module level whatever the commands are.
pub const RESERVED: &[&str] = &["Arch", "CommandField", "CommandInfo"];

/// Methods every command view has.
const VIEW_METHODS: &[&str] = &["new", "param", "payload", "zero_ok", "OPCODE", "ZERO"];

/// Most commands a space may have (the opcode enum is `repr(u16)`).
pub const MAX_COMMANDS: usize = 65_535;

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

fn upper_camel(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The variant of command `NAME` (`SET_IFM_BASE0` -> `SetIfmBase0`).
pub fn variant(cmd: &str) -> String {
    crate::schema::regs::type_name(cmd)
}

/// The typed view of command `NAME` (`SetIfmBase0Cmd`).
pub(crate) fn view_name(cmd: &str) -> String {
    format!("{}Cmd", variant(cmd))
}

pub(crate) fn bits_text(b: Bits) -> String {
    if b.lo == b.hi {
        format!("bit {}", b.lo)
    } else {
        format!("bits {}..{}", b.lo, b.hi)
    }
}

/// Check the space against the schema (enums, names already defined).
#[allow(clippy::too_many_lines)]
pub fn check(schema: &Schema, s: &Space, d: &mut Diags) {
    let wbits = s.word.bytes().saturating_mul(8);
    if s.word.signed() {
        d.error(
            s.pos,
            format!("commands: word {} must be unsigned", s.word.rust()),
        );
    }
    // The first word's layout.
    for (what, b) in [("opcode", s.opcode), ("param", s.param)] {
        if b.hi >= wbits {
            d.error(
                b.pos,
                format!(
                    "commands: {what} {} does not fit the {wbits}-bit word",
                    bits_text(b)
                ),
            );
        }
    }
    if s.opcode.mask() & s.param.mask() != 0 {
        d.error(s.param.pos, "commands: param overlaps the opcode's bits");
    }
    if s.opcode.width() > 16 {
        d.error(
            s.opcode.pos,
            "commands: an opcode is at most 16 bits wide (the generated code matches on it)",
        );
    }
    if let Some((lb, pos)) = s.long_bit {
        if lb >= wbits {
            d.error(
                pos,
                format!("commands: long_bit {lb} does not fit the {wbits}-bit word"),
            );
        } else if range_mask(lb, lb) & (s.opcode.mask() | s.param.mask()) != 0 {
            d.error(
                pos,
                format!("commands: long_bit {lb} is one of the opcode's or the param's bits"),
            );
        }
    }
    // Module-level names.
    let mut taken: Vec<(String, Pos, String)> = RESERVED
        .iter()
        .map(|n| {
            (
                (*n).to_string(),
                Pos::default(),
                "the command emitter".to_string(),
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
    let mut claim = |n: String, pos: Pos, who: String, d: &mut Diags| {
        if let Some((_, p, w)) = taken.iter().find(|(t, _, _)| *t == n) {
            let at = if p.line == 0 {
                String::new()
            } else {
                format!(" (line {})", p.line)
            };
            d.error(
                pos,
                format!("{who} generates `{n}`, which {w}{at} also defines; rename one"),
            );
        } else {
            taken.push((n, pos, who));
        }
    };
    if !upper_camel(&s.name.text) || s.name.text == "Self" {
        d.error(
            s.name.pos,
            format!(
                "commands: the opcode enum's name `{}` is UpperCamel (`Opcode`)",
                s.name.text
            ),
        );
    } else {
        claim(
            s.name.text.clone(),
            s.name.pos,
            "the opcode enum".to_string(),
            d,
        );
    }
    // Architectures.
    let mut arch_seen: Vec<&Name> = Vec::new();
    for (a, _) in &s.archs {
        if !lower_snake(&a.text) {
            d.error(
                a.pos,
                format!(
                    "architecture `{}`: an architecture's name is lower_snake (`u55`)",
                    a.text
                ),
            );
        }
        if let Some(p) = arch_seen.iter().find(|p| p.text == a.text) {
            d.error(
                a.pos,
                format!(
                    "architecture `{}` is declared twice (first at line {})",
                    a.text, p.pos.line
                ),
            );
        }
        arch_seen.push(a);
    }
    if s.archs.len() > 64 {
        d.error(s.pos, "commands: more than 64 architectures");
    }
    if s.commands.len() > MAX_COMMANDS {
        d.error(
            s.pos,
            format!("commands: more than {MAX_COMMANDS} commands"),
        );
    }
    let pwidth = s.param.width();
    let max_code = range_mask(0, s.opcode.width().saturating_sub(1));
    let mut seen: Vec<&Command> = Vec::new();
    for c in &s.commands {
        if !upper_snake(&c.name.text) || variant(&c.name.text) == "Self" {
            d.error(
                c.name.pos,
                format!(
                    "command `{}`: a command's name is UPPER_SNAKE (`OP_STOP`)",
                    c.name.text
                ),
            );
        }
        if let Some(p) = seen.iter().find(|p| p.name.text == c.name.text) {
            d.error(
                c.name.pos,
                format!(
                    "command `{}` is declared twice (first at line {})",
                    c.name.text, p.name.pos.line
                ),
            );
        } else if let Some(p) = seen
            .iter()
            .find(|p| variant(&p.name.text) == variant(&c.name.text))
        {
            d.error(
                c.name.pos,
                format!(
                    "command `{}` and command `{}` (line {}) both give the variant `{}`; rename one",
                    c.name.text,
                    p.name.text,
                    p.name.pos.line,
                    variant(&c.name.text)
                ),
            );
        }
        if c.code > max_code {
            d.error(
                c.code_pos,
                format!(
                    "command `{}`: code {:#x} does not fit the {}-bit opcode",
                    c.name.text,
                    c.code,
                    s.opcode.width()
                ),
            );
        }
        if c.long && s.long_bit.is_none() {
            d.error(
                c.long_pos,
                format!(
                    "command `{}` is long, but the space has no `long_bit` to mark it",
                    c.name.text
                ),
            );
        }
        if let Some(p) = seen
            .iter()
            .find(|p| p.code == c.code && p.long == c.long && p.name.text != c.name.text)
        {
            d.error(
                c.code_pos,
                format!(
                    "command `{}`: code {:#x} ({}) is already command `{}` (line {})",
                    c.name.text,
                    c.code,
                    if c.long { "long" } else { "short" },
                    p.name.text,
                    p.name.pos.line
                ),
            );
        }
        seen.push(c);
        let mut own_archs: Vec<&str> = Vec::new();
        for a in &c.archs {
            if !s.archs.iter().any(|(n, _)| n.text == a.text) {
                let known: Vec<&str> = s.archs.iter().map(|(n, _)| n.text.as_str()).collect();
                d.error(
                    a.pos,
                    if known.is_empty() {
                        format!(
                            "command `{}`: unknown architecture `{}` (the space declares no `archs`)",
                            c.name.text, a.text
                        )
                    } else {
                        format!(
                            "command `{}`: unknown architecture `{}` (declared: {})",
                            c.name.text,
                            a.text,
                            known.join(", ")
                        )
                    },
                );
            } else if own_archs.contains(&a.text.as_str()) {
                d.error(
                    a.pos,
                    format!(
                        "command `{}`: architecture `{}` is listed twice",
                        c.name.text, a.text
                    ),
                );
            }
            own_archs.push(&a.text);
        }
        // Fields and must-be-zero bits.
        if !c.fields.is_empty() {
            claim(
                view_name(&c.name.text),
                c.name.pos,
                format!("command `{}`", c.name.text),
                d,
            );
        }
        let mut used_param = 0u64;
        let mut used_payload = 0u64;
        let mut methods: Vec<String> = Vec::new();
        for f in &c.fields {
            let fname = &f.name.text;
            if !lower_snake(fname) {
                d.error(
                    f.name.pos,
                    format!(
                        "field `{fname}` of command `{}`: a field's name is lower_snake",
                        c.name.text
                    ),
                );
            } else if crate::schema::regs::KEYWORDS.contains(&fname.as_str()) {
                d.error(
                    f.name.pos,
                    format!(
                        "field `{fname}` of command `{}`: a Rust keyword cannot name a field's reader; rename it",
                        c.name.text
                    ),
                );
            }
            let mut own = vec![fname.clone()];
            if f.enumeration.is_some() {
                own.push(format!("{fname}_raw"));
            }
            for m in own {
                if VIEW_METHODS.contains(&m.as_str()) || methods.contains(&m) {
                    d.error(
                        f.name.pos,
                        format!(
                            "field `{fname}` of command `{}` generates `{m}`, which the command's view already has; rename the field",
                            c.name.text
                        ),
                    );
                    break;
                }
                methods.push(m);
            }
            let mut field_archs: Vec<&str> = Vec::new();
            for a in &f.archs {
                if !s.archs.iter().any(|(n, _)| n.text == a.text) {
                    d.error(
                        a.pos,
                        format!(
                            "field `{fname}` of command `{}`: unknown architecture `{}`",
                            c.name.text, a.text
                        ),
                    );
                } else if !c.archs.is_empty() && !c.archs.iter().any(|x| x.text == a.text) {
                    d.error(
                        a.pos,
                        format!(
                            "field `{fname}` of command `{}`: architecture `{}` does not have the command",
                            c.name.text, a.text
                        ),
                    );
                } else if field_archs.contains(&a.text.as_str()) {
                    d.error(
                        a.pos,
                        format!(
                            "field `{fname}` of command `{}`: architecture `{}` is listed twice",
                            c.name.text, a.text
                        ),
                    );
                }
                field_archs.push(&a.text);
            }
            let (place, width, used) = if f.payload {
                if !c.long {
                    d.error(
                        f.bits.pos,
                        format!(
                            "field `{fname}` is in the payload, but command `{}` is short (no payload word)",
                            c.name.text
                        ),
                    );
                    continue;
                }
                ("payload", wbits, &mut used_payload)
            } else {
                ("param", pwidth, &mut used_param)
            };
            if f.bits.hi >= width {
                d.error(
                    f.bits.pos,
                    format!(
                        "{} of field `{fname}` {} not fit the {width}-bit {place} of command `{}`",
                        bits_text(f.bits),
                        if f.bits.lo == f.bits.hi { "does" } else { "do" },
                        c.name.text
                    ),
                );
                continue;
            }
            if *used & f.bits.mask() != 0 {
                d.error(
                    f.bits.pos,
                    format!(
                        "{} of field `{fname}` {} another field of command `{}`",
                        bits_text(f.bits),
                        if f.bits.lo == f.bits.hi {
                            "overlaps"
                        } else {
                            "overlap"
                        },
                        c.name.text
                    ),
                );
            }
            *used |= f.bits.mask();
            if let Some(en) = &f.enumeration {
                match schema.enums.iter().find(|e| e.name.text == en.text) {
                    None => d.error(
                        en.pos,
                        format!(
                            "field `{fname}` of command `{}`: undefined enum `{}`",
                            c.name.text, en.text
                        ),
                    ),
                    Some(e) => {
                        let fw = f.bits.width();
                        if e.repr.signed() || e.repr.bytes().saturating_mul(8) < fw {
                            d.error(
                                en.pos,
                                format!(
                                    "field `{fname}` is {fw} bit(s) wide; enum `{}` (repr {}) must be unsigned and at least as wide",
                                    e.name.text,
                                    e.repr.rust()
                                ),
                            );
                        }
                        for v in &e.values {
                            if v.value > range_mask(0, fw.saturating_sub(1)) {
                                d.error(
                                    en.pos,
                                    format!(
                                        "value `{}` = {} of enum `{}` does not fit the {fw}-bit field `{fname}` of command `{}`",
                                        v.name.text, v.value, e.name.text, c.name.text
                                    ),
                                );
                            }
                        }
                    }
                }
            }
        }
        for z in &c.zero {
            if z.hi >= pwidth {
                d.error(
                    z.pos,
                    format!(
                        "must-be-zero {} {} not fit the {pwidth}-bit param of command `{}`",
                        bits_text(*z),
                        if z.lo == z.hi { "does" } else { "do" },
                        c.name.text
                    ),
                );
            } else if z.mask() & used_param != 0 {
                d.error(
                    z.pos,
                    format!(
                        "must-be-zero {} of command `{}` {} one of its fields",
                        bits_text(*z),
                        c.name.text,
                        if z.lo == z.hi { "overlaps" } else { "overlap" }
                    ),
                );
            }
        }
    }
}

// ----- emit ------------------------------------------------------------------------------
