//! The file's byte order chosen when it is read: `byte_order: { big_when: COND }` at the top
//! of a schema (ELF's `EI_DATA`, pcap's magic, TIFF's `II`/`MM`). Every field without a
//! `byte_order` of its own or of its struct is then in the file's order
//! (`FieldDef::file_order`): one struct, read either way, no copies.
//!
//! Checked here: the condition reads only what does not depend on the order (header fields
//! of one byte or of a fixed order, constants), and the schema uses the order only where the
//! views and the interpreter read it (integer, enum, flag and float fields of the header,
//! located records, tables and record streams, at file level or per record). The rest is
//! refused with its reason: a field of an array, bit-field or struct type in the file's
//! order, a composed value of two such words, a version-gated struct, a length-prefixed
//! string whose length word has no order of its own, directories, slots and ownership. A
//! file with variants (ELF's classes) reads the order from the common header and again from
//! each variant's header, which must have the fields the condition reads (like the
//! variants' `when`). The writer refuses the file in `lower/writer.rs`.

use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::diag::Diags;

/// Whether struct `name` has a field in the file's byte order (its view then carries the
/// order the file's header chose).
#[must_use]
pub fn runtime_struct(c: &Checked, name: &str) -> bool {
    c.schema.big_when.is_some()
        && c.strukt(name)
            .is_some_and(|s| s.fields.iter().any(|f| f.file_order))
}

/// Check the schema's `big_when` and where the file's order is used.
pub(crate) fn check(c: &Checked, d: &mut Diags) {
    let Some(cond) = &c.schema.big_when else {
        return;
    };
    let before = d.items.len();
    crate::check::expr::check_expr(c, cond, Scope::Top, true, "big_when", d);
    if d.items.len() == before {
        let header = c.header();
        for p in cond.expr.refs() {
            let fixed = match c.resolve(p, Scope::Top) {
                Ok(Resolved::Field(Owner::Header, i) | Resolved::FlagBit(Owner::Header, i, _)) => {
                    let f = header.and_then(|h| h.fields.get(i));
                    let one_byte = header
                        .and_then(|h| c.layouts.get(&h.name.text))
                        .and_then(|l| l.fields.get(i))
                        .is_some_and(|(_, k)| k.width(&c.schema) == 1);
                    f.is_some_and(|f| !f.file_order) || one_byte
                }
                Ok(Resolved::Const(_) | Resolved::EnumValue(..) | Resolved::Len) => true,
                _ => false,
            };
            if !fixed {
                d.error(
                    cond.pos,
                    format!(
                        "`big_when: {}` reads `{}`: the condition chooses the byte order, so it reads only header fields of one byte or with a `byte_order` of their own (or of their struct), and constants",
                        cond.text,
                        p.join(".")
                    ),
                );
            }
        }
    }
    let refused = |what: String| {
        format!(
            "{what} in a file whose byte order is chosen when it is read (`byte_order: {{ big_when }}`) is not read yet"
        )
    };
    for st in &c.schema.structs {
        let Some(l) = c.layouts.get(&st.name.text) else {
            continue;
        };
        let runtime = st.fields.iter().any(|f| f.file_order);
        for (f, (_, kind)) in st.fields.iter().zip(&l.fields) {
            // A struct inside a struct reads in the order of the view that holds it.
            let inner_runtime = match kind {
                FieldKind::Struct(i, _) | FieldKind::Structs(i, _, _) => c
                    .schema
                    .structs
                    .get(*i)
                    .is_some_and(|x| runtime_struct(c, &x.name.text)),
                _ => false,
            };
            if !f.file_order && !inner_runtime {
                continue;
            }
            let what = match kind {
                FieldKind::Array(..) => "an array field",
                FieldKind::Bits(_) => "a bit-field word",
                FieldKind::Struct(..) | FieldKind::Structs(..) => "a struct-typed field",
                _ => continue,
            };
            let fix = match kind {
                FieldKind::Struct(i, _) | FieldKind::Structs(i, _, _) if inner_runtime => {
                    let inner = c
                        .schema
                        .structs
                        .get(*i)
                        .map_or("", |x| x.name.text.as_str());
                    format!("give struct `{inner}` a `byte_order`")
                }
                _ => format!(
                    "give field `{}` (or struct `{}`) a `byte_order`",
                    f.name.text, st.name.text
                ),
            };
            d.error(f.ty_pos, format!("{}; {fix}", refused(what.to_string())));
        }
        if runtime && crate::check::lookup::is_gated(st) {
            d.error(
                st.name.pos,
                refused(format!("a version-gated struct (`{}`)", st.name.text)),
            );
        }
        if runtime && let Some(k) = st.composed.first() {
            d.error(
                k.name.pos,
                refused(format!("a composed value (`{}`)", k.name.text)),
            );
        }
    }
    let file = &c.schema.file;
    for s in &file.strings {
        if let (Some((_, pos)), None) = (&s.prefix, s.big) {
            d.error(
                *pos,
                format!(
                    "{}; give string `{}` a `byte_order`",
                    refused("a length word".to_string()),
                    s.name.text
                ),
            );
        }
    }
    let parts = [
        (
            "a section directory",
            file.ext.directories.first().map(|x| x.name.pos),
        ),
        ("a slot region", file.ext.slots.first().map(|x| x.name.pos)),
        (
            "an ownership declaration",
            file.ext.ownership.first().map(|x| x.name.pos),
        ),
    ];
    for (what, pos) in parts {
        if let Some(pos) = pos {
            d.error(pos, refused(what.to_string()));
        }
    }
}
