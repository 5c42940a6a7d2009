//! What a writer's conditional parts are: a file-level range with `when`
//! (`ranges: { notes: { when: ... } }`) and a table whose `table_fits` step has `when`.
//! Each is an optional part of the writer (given or not). When a part's condition is one
//! flag bit of a header flags field, the writer sets the bit when the part is given and
//! clears it when not. Any other condition is one the writer cannot choose (it does not pick
//! the header's values), so it checks it: once the header is written, the generated writer
//! evaluates the condition over the header as written, with the validator's expression
//! code, and returns `WriteError::WhenDisagrees` when the part is given and the condition is
//! false, or left out and the condition true.
//! Emitted by `emit/when_writer.rs` (through hooks in `emit/file_writer.rs`); what the writer
//! cannot write of them is refused by `optional_parts.rs`.
//!
//! A condition the writer checks reads only constants, `len`, enum values and the header's
//! fields, and not the field that stores a checksum (patched after everything else is
//! written, over bytes that depend on which parts are there): `uncheckable` says why not.

use crate::check::expr::single_field;
use crate::check::{Checked, Owner, Resolved, Scope};
use crate::expr::{Expr, ExprAt};
use crate::schema::{Range, Table};

/// The header flags field (index) and its bit (index into the flags' bits) that a
/// condition is, when it is one such bit.
pub(crate) fn bit_of(c: &Checked, w: &ExprAt) -> Option<(usize, usize)> {
    let Expr::Ref(p) = &w.expr else { return None };
    match c.resolve(p, Scope::Top).ok()? {
        Resolved::FlagBit(Owner::Header, fi, bi) => Some((fi, bi)),
        _ => None,
    }
}

/// The header flags field (index) and its bit (index into the flags' bits) that a
/// file-level range's `when` is, when it is one such bit.
pub(crate) fn flag_bit(c: &Checked, r: &Range) -> Option<(usize, usize)> {
    bit_of(c, r.when.as_ref()?)
}

/// Why the writer cannot check condition `w` on the header it wrote, if it cannot.
pub(crate) fn uncheckable(c: &Checked, w: &ExprAt) -> Option<String> {
    uncheckable_in(c, w, Scope::Top, "the header it wrote")
}

/// Why the writer cannot check condition `w` (in `scope`) on `on` (what it wrote: "the
/// header it wrote", a directory's "record it writes", its payload's offset and length
/// set), if it cannot.
pub(crate) fn uncheckable_in(
    c: &Checked,
    w: &ExprAt,
    scope: Scope<'_>,
    on: &str,
) -> Option<String> {
    // The header fields (by index) and the fields inside struct-typed header fields (by
    // path) that store a checksum.
    let mut sums = Sums::default();
    for k in &c.schema.file.checksums {
        if let Some((Owner::Header, i)) = single_field(c, &k.stored.expr, Scope::Top) {
            sums.fields.push(i);
        } else if let Expr::Ref(p) = &k.stored.expr {
            sums.paths.push(p.join("."));
        }
    }
    let mut why = None;
    let cx = Cx {
        c,
        scope,
        on,
        sums: &sums,
    };
    walk(&cx, &w.expr, &mut why);
    why
}

/// What `walk` reads a condition with.
struct Cx<'a> {
    c: &'a Checked,
    scope: Scope<'a>,
    on: &'a str,
    sums: &'a Sums,
}

/// The places that store a checksum.
#[derive(Default)]
struct Sums {
    fields: Vec<usize>,
    paths: Vec<String>,
}

fn walk(cx: &Cx<'_>, e: &Expr, why: &mut Option<String>) {
    if why.is_some() {
        return;
    }
    let (c, plan, on) = (cx.c, cx.sums, cx.on);
    match e {
        Expr::Num(_) => {}
        Expr::Bin(_, l, r) => {
            walk(cx, l, why);
            walk(cx, r, why);
        }
        Expr::Not(x) | Expr::Key(_, x) => walk(cx, x, why),
        Expr::Call(f, _) => {
            *why = Some(format!(
                "it calls `{f}(...)`, and the writer checks a condition on {on} only"
            ));
        }
        Expr::At(t, ..) => {
            *why = Some(format!(
                "it reads a record of `{t}`, and the writer checks a condition on {on} only"
            ));
        }
        Expr::Ref(p) => {
            let name = p.join(".");
            let field = match c.resolve(p, cx.scope) {
                Ok(Resolved::Len | Resolved::Const(_) | Resolved::EnumValue(..)) => None,
                Ok(
                    Resolved::Field(Owner::Header, i)
                    | Resolved::FlagBit(Owner::Header, i, _)
                    | Resolved::BitField(Owner::Header, i, _),
                ) => Some(i),
                Ok(Resolved::Composed(Owner::Header, _)) => None,
                // The record's own fields (a directory's payload condition, checked on the
                // record as written: its payload's offset and length set).
                Ok(
                    Resolved::Field(Owner::Record, _)
                    | Resolved::FlagBit(Owner::Record, ..)
                    | Resolved::BitField(Owner::Record, ..)
                    | Resolved::Composed(Owner::Record, _)
                    | Resolved::Nested(Owner::Record, _),
                ) => None,
                Ok(Resolved::Nested(Owner::Header, _)) => {
                    if plan.paths.contains(&name) {
                        *why = Some(format!(
                            "`{name}` stores a checksum, which the writer patches in after the whole file is written"
                        ));
                    }
                    None
                }
                _ => {
                    *why = Some(format!(
                        "`{name}` is not a field, a constant, `len` or an enum value the writer knows when it checks the condition on {on}"
                    ));
                    None
                }
            };
            if let Some(i) = field
                && plan.fields.contains(&i)
            {
                *why = Some(format!(
                    "`{name}` stores a checksum, which the writer patches in after the whole file is written"
                ));
            }
        }
    }
}

pub(crate) use crate::check::table_when::{table_when, when_tables};

/// The header flags field and bit that table `t`'s `table_fits` condition is, when it is
/// one such bit (the writer sets it when the table is given).
pub(crate) fn table_bit(c: &Checked, t: &Table) -> Option<(usize, usize)> {
    bit_of(c, table_when(c, t)?)
}
