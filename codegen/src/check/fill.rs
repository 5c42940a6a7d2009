//! Checks of the `fill` and `same_bytes` steps (loaded in `schema/fill.rs`): the span, and
//! the byte value or the other place.

use crate::check::{Checked, Resolved, Scope, StepState};
use crate::diag::Diags;
use crate::expr::{Expr, ExprAt};
use crate::schema::fill::{FillStep, Span, Value};

/// The byte value: a number or an unsigned constant (`None`: neither, above 0xFF, or a
/// `same_bytes` step).
#[must_use]
pub fn byte_value(c: &Checked, s: &FillStep) -> Option<u8> {
    let Value::Byte(byte) = &s.value else {
        return None;
    };
    let v = match &byte.expr {
        Expr::Num(v) => *v,
        Expr::Ref(p) => match c.resolve(p, Scope::Top) {
            Ok(Resolved::Const(i)) => {
                let k = c.schema.constants.get(i)?;
                if k.ty.signed() {
                    return None;
                }
                k.value
            }
            _ => return None,
        },
        _ => return None,
    };
    u8::try_from(v).ok()
}

/// The expressions a fill or same_bytes step evaluates.
pub(crate) fn step_exprs(s: &FillStep) -> Vec<&ExprAt> {
    let value = match &s.value {
        Value::Byte(e) | Value::Same(e) => e,
    };
    match &s.span {
        Span::Range(_) => vec![value],
        Span::FromTo { from, to } => vec![from, to, value],
    }
}

/// A fill step where it stands: its range checked before it, its offsets in scope, its
/// byte one byte.
pub(crate) fn check_step(
    c: &Checked,
    s: &FillStep,
    scope: Scope<'_>,
    st: &StepState,
    d: &mut Diags,
) {
    match &s.value {
        Value::Byte(b) if byte_value(c, s).is_none() => d.error(
            b.pos,
            format!(
                "fill byte `{}` must be a number or an unsigned constant from 0 to 0xFF",
                b.text
            ),
        ),
        Value::Byte(_) => {}
        Value::Same(e) => crate::check::expr::check_expr(c, e, scope, false, "as", d),
    }
    match &s.span {
        Span::FromTo { from, to } => {
            crate::check::expr::check_expr(c, from, scope, false, "from", d);
            crate::check::expr::check_expr(c, to, scope, false, "to", d);
        }
        Span::Range(r) => match c.schema.file.ranges.iter().find(|x| x.name.text == r.text) {
            None => c.not_found(d, r.pos, &r.text, format!(
                    "fill names `{}`, which is not a range (name a file-level range, or give `{{ from, to }}`)",
                    r.text
                )),
            Some(x) if x.table.is_some() => d.error(
                r.pos,
                format!(
                    "fill names `{}`, a per-record range; name a file-level range, or give the record's bytes as `{{ from, to }}`",
                    r.text
                ),
            ),
            Some(x) if x.when.is_some() => d.error(
                r.pos,
                format!(
                    "fill names `{}`, a range with `when`; name a range that is always there, or give `{{ from, to }}`",
                    r.text
                ),
            ),
            Some(_) if !st.ranges_fitted.contains(&r.text) => d.error(
                r.pos,
                format!(
                    "fill `{}` comes before the range_fits step that checks the range",
                    r.text
                ),
            ),
            Some(_) => {}
        },
    }
}
