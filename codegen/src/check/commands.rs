//! Checks of an instruction set (`commands:`, loaded in `schema/commands.rs`): codes, bit
//! ranges, lengths, architectures and the generated names.

use crate::check::taken::Taken;
use crate::diag::Diags;
use crate::names::{lower_snake, upper_snake};
use crate::schema::Name;
use crate::schema::commands::{Bits, Command, Space};
use crate::schema::ext::range_mask;
use crate::schema::top::Schema;

/// Names the command emitter defines at module level whatever the commands are.
pub const RESERVED: &[&str] = &["Arch", "CommandField", "CommandInfo"];

/// Methods every command view has.
pub(crate) const VIEW_METHODS: &[&str] = &["new", "param", "payload", "zero_ok", "OPCODE", "ZERO"];

/// Most commands a space may have (the opcode enum is `repr(u16)`).
pub const MAX_COMMANDS: usize = 65_535;

pub(crate) fn upper_camel(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The variant of command `NAME` (`SET_IFM_BASE0` -> `SetIfmBase0`).
pub fn variant(cmd: &str) -> String {
    crate::check::regs::type_name(cmd)
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
    let mut taken = Taken::module(schema, RESERVED, "the command emitter");
    if !upper_camel(&s.name.text) || s.name.text == "Self" {
        d.error(
            s.name.pos,
            format!(
                "commands: the opcode enum's name `{}` is UpperCamel (`Opcode`)",
                s.name.text
            ),
        );
    } else {
        taken.claim(
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
            taken.claim(
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
            } else if crate::names::KEYWORDS.contains(&fname.as_str()) {
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
