//! Fill bytes: a validation step asserting that every byte of a span equals one value
//! (zero padding after a payload, 0xFF padding up to an aligned start). Load, check and
//! emit; the interpreter's side is `interp/fill.rs`.
//!
//! ```yaml
//! validate:
//!   - { code: bad-trailer, fill: trailer, byte: 0 }                  # a file-level range
//!   - for_each: records
//!     validate:
//!       - { code: bad-padding, fill: { from: "record.body_offset + used", to: record.end }, byte: 0xFF, field: padding }
//! ```

use crate::check::{Checked, Resolved, Scope, StepState};
use crate::diag::Diags;
use crate::expr::{Expr, ExprAt};
use crate::schema::{MapReader, Name, expr_at, name};
use crate::yaml::Kind;

/// The step kind handled here.
pub const STEP_KIND: &str = "fill";

/// The bytes a `fill` step covers.
#[derive(Clone, Debug)]
pub enum Span {
    /// A file-level range (always there), after its `range_fits`.
    Range(Name),
    /// Absolute offsets `from..to`, expressions in the step's scope.
    FromTo {
        /// First byte.
        from: ExprAt,
        /// One past the last byte.
        to: ExprAt,
    },
}

/// `{ code, fill: RANGE | { from: EXPR, to: EXPR }, byte: BYTE, field? }`.
#[derive(Clone, Debug)]
pub struct FillStep {
    /// Error code.
    pub code: Name,
    /// The bytes.
    pub span: Span,
    /// The value every byte must hold: a number or an unsigned constant, at most 0xFF.
    pub byte: ExprAt,
    /// The name the error gives the bytes (default: the range's name, or `fill`).
    pub field: Option<Name>,
}

impl FillStep {
    /// The name the error gives the bytes.
    #[must_use]
    pub fn field_name(&self) -> String {
        match (&self.field, &self.span) {
            (Some(f), _) => f.text.clone(),
            (None, Span::Range(r)) => r.text.clone(),
            (None, Span::FromTo { .. }) => "fill".to_string(),
        }
    }
}

/// Read a `fill` step (the step's mapping, its kind already known).
pub(crate) fn step(mut sm: MapReader<'_>, d: &mut Diags) -> Option<FillStep> {
    let code = sm.req("code", d).and_then(|n| name(n, "code", d));
    let node = sm.opt(STEP_KIND)?;
    let span = match &node.kind {
        Kind::Map(_) => {
            let mut m = MapReader::new(node, "a fill span", d)?;
            let from = m.req("from", d).and_then(|n| expr_at(n, "from", d));
            let to = m.req("to", d).and_then(|n| expr_at(n, "to", d));
            m.finish(&["from", "to"], d);
            Some(Span::FromTo {
                from: from?,
                to: to?,
            })
        }
        _ => name(node, "fill", d).map(Span::Range),
    };
    let byte = sm.req("byte", d).and_then(|n| expr_at(n, "byte", d));
    let field = sm.opt("field").and_then(|n| name(n, "field", d));
    sm.finish(&[STEP_KIND, "code", "byte", "field"], d);
    Some(FillStep {
        code: code?,
        span: span?,
        byte: byte?,
        field,
    })
}

// ----- check -------------------------------------------------------------------------------

/// The byte value: a number or an unsigned constant (`None`: neither, or above 0xFF).
#[must_use]
pub fn byte_value(c: &Checked, s: &FillStep) -> Option<u8> {
    let v = match &s.byte.expr {
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

/// The expressions a fill step evaluates.
pub(crate) fn step_exprs(s: &FillStep) -> Vec<&ExprAt> {
    match &s.span {
        Span::Range(_) => vec![&s.byte],
        Span::FromTo { from, to } => vec![from, to, &s.byte],
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
    if byte_value(c, s).is_none() {
        d.error(
            s.byte.pos,
            format!(
                "fill byte `{}` must be a number or an unsigned constant from 0 to 0xFF",
                s.byte.text
            ),
        );
    }
    match &s.span {
        Span::FromTo { from, to } => {
            crate::check::check_expr(c, from, scope, false, "from", d);
            crate::check::check_expr(c, to, scope, false, "to", d);
        }
        Span::Range(r) => match c.schema.file.ranges.iter().find(|x| x.name.text == r.text) {
            None => d.error(
                r.pos,
                format!(
                    "fill names `{}`, which is not a range (name a file-level range, or give `{{ from, to }}`)",
                    r.text
                ),
            ),
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

// ----- emit --------------------------------------------------------------------------------
