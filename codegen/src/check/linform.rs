//! A value a writer derives, stored as a linear form of one field: `value = F * K + C` or
//! `value = F * K - C` (`F` one unsigned integer field, `K` and `C` numbers or unsigned
//! constants, `K` at least 1). The writers solve such a form for `F` (`F = (value - C) / K`,
//! `F = (value + C) / K`) with checked arithmetic, failing with `TooLarge` past `F`'s width and
//! `NotRepresentable` below `C` or off a multiple of `K`. Used by the record stream's `size`
//! (`streams.rs`) and by the writer's places, counts, strides, offsets and lengths: over one
//! field of the header or of an ungated located record (`top_form`), or of a table's record
//! (`record_form`: a per-record range's offset or length, a section payload's). An optional
//! part (`when`) takes a form only when it stores zero (`stores_zero`). The emitter's side is
//! `emit/linform.rs`.
//!
//! The forms: `F`, `F + C`, `C + F`, `F - C`, `F * K`, `K * F`, and `F * K` (or `K * F`) plus
//! or minus `C`.

use crate::check::table_writer::const_u64;
use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::{BinOp, Expr};
pub use crate::model::LinForm;

/// Whether `e` is written as something other than one name: one field itself (`F`) is the
/// writers' older, direct path; `F + 0` or `F * 1` is a form like any other.
pub(crate) fn not_one_name(e: &Expr) -> bool {
    !matches!(e, Expr::Ref(_))
}

/// `F` or `F * K`/`K * F`: (field, K), K at least 1.
fn scaled<F>(c: &Checked, e: &Expr, field: &dyn Fn(&Expr) -> Option<F>) -> Option<(F, u64)> {
    match e {
        Expr::Bin(BinOp::Mul, a, b) => match (field(a), field(b)) {
            (Some(f), None) => Some((f, const_u64(c, b)?)),
            (None, Some(f)) => Some((f, const_u64(c, a)?)),
            _ => None,
        },
        e => Some((field(e)?, 1)),
    }
    .filter(|&(_, k)| k >= 1)
}

/// The linear form of `e` over one field that `field` recognises (it returns the field when
/// the expression is one unsigned integer field the caller's writer can set), or `None` when
/// `e` has none of the forms above.
pub(crate) fn lin_form<F>(
    c: &Checked,
    e: &Expr,
    field: &dyn Fn(&Expr) -> Option<F>,
) -> Option<LinForm<F>> {
    let form = |(field, mul): (F, u64), plus, minus| LinForm {
        field,
        mul,
        plus,
        minus,
    };
    match e {
        Expr::Bin(BinOp::Add, a, b) => match (scaled(c, a, field), scaled(c, b, field)) {
            (Some(f), None) => Some(form(f, const_u64(c, b)?, 0)),
            (None, Some(f)) => Some(form(f, const_u64(c, a)?, 0)),
            _ => None,
        },
        Expr::Bin(BinOp::Sub, a, b) => Some(form(scaled(c, a, field)?, 0, const_u64(c, b)?)),
        e => Some(form(scaled(c, e, field)?, 0, 0)),
    }
}

/// The words a diagnostic uses to list the forms written.
pub(crate) const FORMS: &str = "`F`, `F + C`, `C + F`, `F - C`, `F * K`, `K * F` or `F * K` plus or minus `C` (F one unsigned integer field, C and K numbers or unsigned constants, K at least 1)";

/// The linear form of `e` over one unsigned integer field of the header or of an ungated
/// located record (its owner and index), when it is not written as that field itself (one
/// field: the writer's direct path, `writer_rules::targets`; `F + 0` is a form).
pub(crate) fn top_form(c: &Checked, e: &Expr) -> Option<(Owner, usize, LinForm<()>)> {
    let field = |e: &Expr| match crate::check::expr::single_field(c, e, Scope::Top)? {
        (o @ Owner::Header, i) => unsigned(c, o, i).then_some((o, i)),
        (o @ Owner::Located(k), i) => {
            let ungated = c.schema.file.ext.records.get(k)?.gate.is_none();
            (ungated && unsigned(c, o, i)).then_some((o, i))
        }
        _ => None,
    };
    let f = lin_form(c, e, &field).filter(|_| not_one_name(e))?;
    Some((f.field.0, f.field.1, f.unnamed()))
}

/// Whether field `i` of `o` (header or located record) is an unsigned integer.
fn unsigned(c: &Checked, o: Owner, i: usize) -> bool {
    matches!(
        crate::check::expr::field_kind_of(c, o, i, Scope::Top),
        Some(FieldKind::Int(t)) if !t.signed()
    )
}

/// Whether the form stores zero (no `+ C`, and `C` of `- C` a multiple of `K`): what an
/// optional part left out records as its place, length or count, so only such a form is
/// taken by one.
pub(crate) fn stores_zero(f: &LinForm<()>) -> bool {
    f.plus == 0 && f.mul != 0 && f.minus.is_multiple_of(f.mul)
}

/// The words a diagnostic adds for an optional part whose form does not store zero.
pub(crate) const ZERO: &str = "an optional part (`when`) takes a linear form only when it stores zero (no `+ C`, and `C` of `- C` a multiple of `K`), zero being what a part left out records";

/// The linear form of `e` over one unsigned integer field of table `t`'s record, when it is
/// not the field itself: a per-record range's offset or length (`entry.off + 64`).
pub(crate) fn record_form(
    c: &Checked,
    t: &crate::schema::Table,
    e: &Expr,
) -> Option<LinForm<usize>> {
    let field = |e: &Expr| match crate::check::expr::single_field(c, e, Scope::RecordOnly(t)) {
        Some((crate::check::Owner::Record, i)) => {
            let (_, kind) = *c.layouts.get(&t.record.text)?.fields.get(i)?;
            matches!(kind, crate::check::FieldKind::Int(t) if !t.signed()).then_some(i)
        }
        _ => None,
    };
    lin_form(c, e, &field).filter(|_| not_one_name(e))
}

/// The linear form of per-record range `r`'s offset, when the plain writer solves it for a
/// field of the record (the writer then places the bytes where the form can store).
pub(crate) fn record_place_form(c: &Checked, r: &crate::schema::Range) -> Option<LinForm<usize>> {
    let t = c.table(&r.table.as_ref()?.text)?;
    record_form(c, t, &r.offset.expr)
}

/// Whether `e` is one field the plain writer sets: a field of the header or of a located
/// record, or a field inside a struct-typed header field.
pub(crate) fn one_top_field(c: &Checked, e: &Expr) -> bool {
    use crate::check::Owner;
    matches!(
        crate::check::expr::single_field(c, e, Scope::Top),
        Some((Owner::Header | Owner::Located(_), _))
    ) || matches!(e, Expr::Ref(p) if matches!(c.resolve(p, Scope::Top), Ok(Resolved::Nested(Owner::Header, l)) if l.bit.is_none()))
}
