//! What a writer does with a table's `count` and `stride` (shared by the plain writer,
//! `writer.rs`, and the directory writer, `dir_writer.rs`): one field is derived (the number of
//! records given, the record's size), a number or constant is honoured (the records given must
//! match the count; a constant stride must be the record's size), anything else is refused.

use crate::check::{Checked, Resolved, Scope};
use crate::expr::Expr;
use crate::schema::Table;

/// Whether an expression reads only constants and enum values (not `len`, which the writer
/// does not know before it places everything).
pub(crate) fn const_only(c: &Checked, e: &Expr) -> bool {
    e.refs().iter().all(|p| {
        matches!(
            c.resolve(p, Scope::Top),
            Ok(Resolved::Const(_) | Resolved::EnumValue(..))
        )
    })
}

/// A number or an unsigned named constant's value.
pub(crate) fn const_u64(c: &Checked, e: &Expr) -> Option<u64> {
    match e {
        Expr::Num(v) => Some(*v),
        Expr::Ref(p) => match c.resolve(p, Scope::Top) {
            Ok(Resolved::Const(i)) => {
                let k = c.schema.constants.get(i)?;
                (!k.ty.signed()).then_some(k.value)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The record count a table's `count` fixes when it is a number or a constant (the writer
/// checks the records given against it).
pub(crate) fn fixed_count(c: &Checked, t: &Table) -> Option<u64> {
    const_u64(c, &t.count.expr)
}

/// The refusal of a constant `stride` larger than the record: the views read such a table
/// (padded records), the writer lays records out back to back, so it cannot honour it.
pub(crate) fn padded_const(c: &Checked, t: &Table) -> Option<String> {
    let s = const_u64(c, &t.stride.expr)?;
    let size = c.layouts.get(&t.record.text)?.size;
    (s > size).then(|| {
        format!(
            "table `{}`: the writer cannot write records {s} bytes apart (`stride: {}`, the record `{}` is {size} bytes): it lays a table's records out back to back; a stride field lets it write (it sets the field to the record's size), and the views read either",
            t.name.text, t.stride.text, t.record.text
        )
    })
}

/// Diagnoses a table's `count` and `stride` that a writer cannot derive or honour: each must
/// be one field the writer sets (`field_ok`) or a number or constant (a constant `stride`
/// equal to the record's size: the writer lays records out back to back, `padded_const`).
pub(crate) fn check_count_stride(
    c: &Checked,
    t: &Table,
    field_ok: &dyn Fn(&Expr) -> bool,
    d: &mut crate::diag::Diags,
) {
    if !field_ok(&t.count.expr) && const_u64(c, &t.count.expr).is_none() {
        d.error(
            t.count.pos,
            format!(
                "table `{}`: the writer cannot write its record count: `count: {}` is neither one field (which the writer sets to the number of records given) nor a number or constant (which the records given must match)",
                t.name.text, t.count.text
            ),
        );
    }
    // (A constant below the record's size: refused for every reader, `top.rs`.)
    if let Some(m) = padded_const(c, t) {
        d.error(t.stride.pos, m);
    }
    if const_u64(c, &t.stride.expr).is_none() && !field_ok(&t.stride.expr) {
        d.error(
            t.stride.pos,
            format!(
                "table `{}`: the writer cannot write its stride: `stride: {}` is neither one field (which the writer sets to the record's size) nor a number or constant",
                t.name.text, t.stride.text
            ),
        );
    }
}
