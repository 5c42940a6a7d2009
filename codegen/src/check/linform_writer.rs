//! What the plain writer refuses of a range's offset and length: each must be something it
//! derives (one field it sets, a linear form of one it solves, `linform.rs`, or a constant
//! offset), else the writer would leave a field it never reconciles with where it put the
//! bytes. (Kept apart from `linform.rs`, which `writer.rs` reads, so that no two modules
//! import each other.)

use crate::check::linform::{FORMS, one_top_field, record_form, top_form};
use crate::check::{Checked, Resolved, Scope};
use crate::expr::Expr;

/// Whether `e` reads a table's record at a computed index (`index.rs` refuses those in a
/// writer, once).
fn has_at(e: &Expr) -> bool {
    match e {
        Expr::At(..) => true,
        Expr::Bin(_, a, b) => has_at(a) || has_at(b),
        Expr::Not(a) => has_at(a),
        Expr::Call(_, args) => args.iter().any(has_at),
        Expr::Num(_) | Expr::Ref(_) => false,
    }
}

/// Whether `e` is one field of table `t`'s record (or one inside a struct-typed field of it).
fn one_record_field(c: &Checked, t: &crate::schema::Table, e: &Expr) -> bool {
    use crate::check::Owner;
    matches!(
        crate::check::expr::single_field(c, e, Scope::RecordOnly(t)),
        Some((Owner::Record, _))
    ) || matches!(e, Expr::Ref(p) if matches!(c.resolve(p, Scope::RecordOnly(t)), Ok(Resolved::Nested(Owner::Record, l)) if l.bit.is_none()))
}

/// In a file with the plain writer: a range's offset and length must each be something the
/// writer derives: one field it sets to the place it chose or to the bytes' length, a linear
/// form of one field it solves (not for an optional range, whose left-out bytes have no
/// place), or a constant offset (a file-level range's: it goes there). What reads `len` is
/// `range_place.rs`'s; a range built from strings is `strtab_writer.rs`'s. Anything else the
/// writer would leave as an input it never reconciles with where it put the bytes, so it is
/// refused, saying what is written.
pub(crate) fn check_ranges(c: &Checked, d: &mut crate::diag::Diags) {
    if !crate::check::writer::has_plain_writer(c) {
        return;
    }
    let reads_len = |e: &Expr| {
        e.refs()
            .iter()
            .any(|p| matches!(c.resolve(p, Scope::Top), Ok(Resolved::Len)))
    };
    for r in &c.schema.file.ranges {
        let n = &r.name.text;
        if crate::check::strtab_writer::is_built(c, n) {
            continue;
        }
        // (An expression that does not resolve, or reads `t[expr]`, has its diagnostic.)
        let resolves = |e: &Expr, scope: Scope<'_>| {
            !has_at(e) && e.refs().iter().all(|p| c.resolve(p, scope).is_ok())
        };
        match &r.table {
            None => {
                if reads_len(&r.offset.expr) || reads_len(&r.length.expr) {
                    continue;
                }
                let lin = |e: &Expr| r.when.is_none() && top_form(c, e).is_some();
                let offset_ok = one_top_field(c, &r.offset.expr)
                    || crate::check::range_place::const_offset(c, r).is_some() && r.when.is_none()
                    || lin(&r.offset.expr);
                let length_ok = one_top_field(c, &r.length.expr)
                    || lin(&r.length.expr)
                    || crate::check::trailer::fixed_length(c, r).is_some();
                for (ok, e, what) in [
                    (offset_ok, &r.offset, "offset"),
                    (length_ok, &r.length, "length"),
                ] {
                    if !ok && resolves(&e.expr, Scope::Top) {
                        let also = match (what, r.when.is_none()) {
                            ("offset", true) => ", a constant expression (the place)",
                            (_, true) => {
                                ", a constant expression (the bytes given must have that length)"
                            }
                            _ => "",
                        };
                        let lin = if r.when.is_none() {
                            format!(
                                ", or a linear form of one header field the writer solves: {FORMS}"
                            )
                        } else {
                            ": a range with `when` takes no linear form (left out, it has no place or length to solve)".to_string()
                        };
                        d.error(
                            e.pos,
                            format!("range `{n}`: the writer cannot derive its {what} `{}`: it must be one header field, set to the value the writer chose{also}{lin}", e.text),
                        );
                    }
                }
            }
            Some(tn) => {
                let Some(t) = c.table(&tn.text) else { continue };
                for (e, what) in [(&r.offset, "offset"), (&r.length, "length")] {
                    if one_record_field(c, t, &e.expr)
                        || record_form(c, t, &e.expr).is_some()
                        || !resolves(&e.expr, Scope::RecordOnly(t))
                    {
                        continue;
                    }
                    d.error(
                        e.pos,
                        format!("range `{n}`: the writer cannot derive its {what} `{}` in each record of `{}`: it must be one field of the record, set to the value the writer chose, or a linear form of one the writer solves: {FORMS}", e.text, tn.text),
                    );
                }
            }
        }
    }
}
