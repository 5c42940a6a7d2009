//! Linear forms of one field in the directory writer (`dir_writer.rs`): a place, count,
//! stride, offset or length written `F`, `F ± C`, `C + F`, `F * K`, `K * F` or `F * K ± C`
//! (`linform.rs`, the one solver the plain writer and the record stream use). The directory
//! writer solves such a form for `F` when `F` is one unsigned integer field of the header or
//! of an ungated located record (a located record's place, a directory's or another table's
//! place, count and stride, a file-level range's offset and length, a file string's offset),
//! or one of the record (a section payload's offset and length, another per-record range's).
//! An optional part (`when`) takes a form only when it stores zero (no `+ C`, `C` a multiple
//! of `K`): zero is what a part left out records (`dir_when.rs`).
//!
//! A leaf module (it imports neither `dir_writer.rs` nor `dir_when.rs`, which call it), so no
//! two modules import each other; the emitter's side is `emit/dir_linform.rs`.

use crate::check::linform::{LinForm, lin_form};
use crate::check::{Checked, FieldKind, Owner, Scope};
use crate::expr::Expr;

/// The form without its field (which the caller's rule names).
fn bare<F>(f: &LinForm<F>) -> LinForm<()> {
    LinForm {
        field: (),
        mul: f.mul,
        plus: f.plus,
        minus: f.minus,
    }
}

/// The linear form of `e` over one unsigned integer field of the header or of an ungated
/// located record (its owner and index), when it is not written as that field itself (one
/// field: the directory writer's older path, `dir_writer::targets`; `F + 0` is a form).
pub(crate) fn top_form(c: &Checked, e: &Expr) -> Option<(Owner, usize, LinForm<()>)> {
    let field = |e: &Expr| match crate::check::expr::single_field(c, e, Scope::Top)? {
        (o @ Owner::Header, i) => unsigned(c, o, i).then_some((o, i)),
        (o @ Owner::Located(k), i) => {
            let ungated = c.schema.file.ext.records.get(k)?.gate.is_none();
            (ungated && unsigned(c, o, i)).then_some((o, i))
        }
        _ => None,
    };
    let f = lin_form(c, e, &field).filter(|_| crate::check::linform::not_one_name(e))?;
    Some((f.field.0, f.field.1, bare(&f)))
}

/// Whether field `i` of `o` (header or located record) is an unsigned integer.
fn unsigned(c: &Checked, o: Owner, i: usize) -> bool {
    matches!(
        crate::check::expr::field_kind_of(c, o, i, Scope::Top),
        Some(FieldKind::Int(t)) if !t.signed()
    )
}

/// The linear form of `e` over one unsigned integer field of table `t`'s record (its index),
/// when it is not that field itself: a payload's or another per-record range's offset or
/// length (`offset: data_at + 64`, `length: size * 1`).
pub(crate) fn record_form(
    c: &Checked,
    t: &crate::schema::Table,
    e: &Expr,
) -> Option<(usize, LinForm<()>)> {
    let f = crate::check::linform::record_form(c, t, e)?;
    Some((f.field, bare(&f)))
}

/// Whether the form stores zero (no `+ C`, and `C` of `- C` a multiple of `K`): what an
/// optional part left out records as its place, length or count, so only such a form is
/// taken by one.
pub(crate) fn stores_zero(f: &LinForm<()>) -> bool {
    f.plus == 0 && f.mul != 0 && f.minus.is_multiple_of(f.mul)
}

/// The words a diagnostic adds for an optional part whose form does not store zero.
pub(crate) const ZERO: &str = "an optional part (`when`) takes a linear form only when it stores zero (no `+ C`, and `C` of `- C` a multiple of `K`), zero being what a part left out records";
