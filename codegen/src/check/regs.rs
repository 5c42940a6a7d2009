//! Checks of a register block (`registers:`, loaded in `schema/regs.rs`): offsets, arrays,
//! access, reset values, bit ranges and the generated names.

use crate::check::taken::Taken;
use crate::diag::Diags;
use crate::names::{KEYWORDS, lower_snake, upper_snake};
use crate::schema::ext::range_mask;
use crate::schema::regs::{Block, Register};
use crate::schema::top::Schema;
use crate::yaml::Pos;

/// Names the register emitter defines at module level whatever the registers are.
pub const RESERVED: &[&str] = &[
    "Access",
    "FieldInfo",
    "RegisterInfo",
    "REGISTERS",
    "REGISTER_BLOCK_BYTES",
    "register_name",
];

/// Most elements a register array may have (the checker compares every element's bytes
/// with every other's).
pub const MAX_COUNT: u64 = 4096;

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
pub(crate) fn module_names(r: &Register) -> Vec<String> {
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
    let mut taken = Taken::module(schema, RESERVED, "the register emitter");
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
            taken.claim(n, r.name.pos, format!("register `{}`", r.name.text), d);
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
