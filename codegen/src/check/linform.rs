//! A value a writer derives, stored as a linear form of one field: `value = F * K + C` or
//! `value = F * K - C` (`F` one unsigned integer field, `K` and `C` numbers or unsigned
//! constants, `K` at least 1). The writers solve such a form for `F` (`F = (value - C) / K`,
//! `F = (value + C) / K`) with checked arithmetic, failing with `TooLarge` past `F`'s width and
//! `NotRepresentable` below `C` or off a multiple of `K`. Used by the record stream's `size`
//! (`streams.rs`) and by the plain writer's places, counts, strides, offsets and lengths
//! (`writer.rs`); the emitter's side is `emit/linform.rs`.
//!
//! The forms: `F`, `F + C`, `C + F`, `F - C`, `F * K`, `K * F`, and `F * K` (or `K * F`) plus
//! or minus `C`.

use crate::check::table_writer::const_u64;
use crate::check::{Checked, Resolved, Scope};
use crate::expr::{BinOp, Expr};
pub use crate::model::LinForm;
use crate::model::{Item, What};

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

/// The linear form of `e` over one unsigned integer field of the header, when it is not
/// written as the field itself (the plain writer's older path sets one field directly).
pub(crate) fn header_form(c: &Checked, e: &Expr) -> Option<LinForm<usize>> {
    let field = |e: &Expr| match crate::check::expr::single_field(c, e, Scope::Top) {
        Some((crate::check::Owner::Header, i)) => {
            let (_, kind) = *c.layouts.get(&c.schema.file.header.text)?.fields.get(i)?;
            matches!(kind, crate::check::FieldKind::Int(t) if !t.signed()).then_some(i)
        }
        _ => None,
    };
    lin_form(c, e, &field).filter(|_| not_one_name(e))
}

/// What the plain writer derives through a linear form of one header field: a table's
/// place (`at`), its count and stride, a file-level range's offset and length (not an
/// optional part's, one left out having no place to solve; not a range the writer builds
/// from strings). Each with its expression.
pub(crate) fn plain_solved(c: &Checked) -> Vec<(&Expr, What)> {
    let file = &c.schema.file;
    let mut out = Vec::new();
    for (ti, t) in file.tables.iter().enumerate() {
        if crate::check::table_when::table_when(c, t).is_some() {
            continue;
        }
        out.push((&t.at.expr, What::Place(Item::OtherTable(ti))));
        out.push((&t.count.expr, What::TableCount(ti)));
        out.push((&t.stride.expr, What::RecordSize(ti)));
    }
    for (k, r) in file.ranges.iter().enumerate() {
        if r.table.is_some()
            || r.when.is_some()
            || crate::check::strtab_writer::is_built(c, &r.name.text)
        {
            continue;
        }
        out.push((&r.offset.expr, What::Place(Item::Range(k))));
        out.push((&r.length.expr, What::RangeLength(k)));
    }
    out.retain(|(e, _)| header_form(c, e).is_some());
    out
}

/// The linear form of a table's or file-level range's place, when the plain writer solves
/// it for a header field (see [`plain_solved`]) or for a field of an ungated located record
/// (see [`located_form`]).
pub(crate) fn place_form(c: &Checked, name: &str) -> Option<LinForm<usize>> {
    plain_solved(c)
        .into_iter()
        .find(|(_, w)| matches!(w, What::Place(it) if c.item_name(*it) == Some(name)))
        .and_then(|(e, _)| header_form(c, e))
        .or_else(|| located_place(c, name).map(|(_, f)| f))
}

/// The linear form of `e` over one unsigned integer field of a located record without a
/// `gate` (the record's index, and the form over the field's), when it is not written as
/// that field itself: the plain writer solves it into the record (`located_writer.rs`).
pub(crate) fn located_form(c: &Checked, e: &Expr) -> Option<(usize, LinForm<usize>)> {
    use crate::check::Owner;
    let field = |e: &Expr| match crate::check::expr::single_field(c, e, Scope::Top)? {
        (Owner::Located(k), i) => {
            let r = c.schema.file.ext.records.get(k)?;
            let (_, kind) = *c.layouts.get(&r.strukt.text)?.fields.get(i)?;
            (r.gate.is_none() && matches!(kind, crate::check::FieldKind::Int(t) if !t.signed()))
                .then_some((k, i))
        }
        _ => None,
    };
    let f = lin_form(c, e, &field).filter(|_| not_one_name(e))?;
    Some((
        f.field.0,
        LinForm {
            field: f.field.1,
            mul: f.mul,
            plus: f.plus,
            minus: f.minus,
        },
    ))
}

/// The plain writer's place of table or file-level range `name` solved through a linear form
/// of a located record's field ([`located_form`]): not an optional part's (left out, it has
/// no place), a string table's or a stream's (placed by their own code).
pub(crate) fn located_place(c: &Checked, name: &str) -> Option<(usize, LinForm<usize>)> {
    let file = &c.schema.file;
    if let Some(t) = file.tables.iter().find(|t| t.name.text == name) {
        if crate::check::table_when::table_when(c, t).is_some() {
            return None;
        }
        return located_form(c, &t.at.expr);
    }
    let r = file
        .ranges
        .iter()
        .find(|r| r.name.text == name && r.table.is_none() && r.when.is_none())?;
    if crate::check::strtab_writer::is_built(c, name)
        || file.streams.iter().any(|s| s.range.text == name)
    {
        return None;
    }
    located_form(c, &r.offset.expr)
}

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
/// record (`located_writer.rs`), or a field inside a struct-typed header field.
pub(crate) fn one_top_field(c: &Checked, e: &Expr) -> bool {
    use crate::check::Owner;
    matches!(
        crate::check::expr::single_field(c, e, Scope::Top),
        Some((Owner::Header | Owner::Located(_), _))
    ) || matches!(e, Expr::Ref(p) if matches!(c.resolve(p, Scope::Top), Ok(Resolved::Nested(Owner::Header, l)) if l.bit.is_none()))
}
