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

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::{Checked, Resolved, Scope, StepState};
use crate::diag::Diags;
use crate::emit::{Blame, Det, Em, Env, Idx, fail};
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

/// The step in a validator: a range error when `from..to` is no span of the buffer, then
/// the first byte that differs, as a `Mismatch` at its offset.
pub(crate) fn emit_step(em: &Em<'_>, s: &FillStep, scope: Scope<'_>, env: &Env) -> TokenStream {
    let code = &s.code.text;
    let bv = byte_value(em.c, s).unwrap_or(0);
    let byte = Literal::u8_suffixed(bv);
    let fname = s.field_name();
    let blame = |base: TokenStream| match scope {
        Scope::Record(t) => Blame::record(&t.name.text, Idx::U64(quote!(index)), &fname, base, 0),
        _ => Blame::at(&fname, base),
    };
    let bad = fail(
        code,
        &blame(quote!(
            start.saturating_add(u64::try_from(i).unwrap_or(u64::MAX))
        )),
        Det::Mismatch(quote!(u64::from(b)), quote!(u64::from(#byte))),
    );
    let scan = quote! {
        if let Some((i, &b)) = bytes.iter().enumerate().find(|(_, b)| **b != #byte) {
            return #bad;
        }
    };
    match &s.span {
        Span::Range(r) => {
            let Some(rd) =
                em.c.schema
                    .file
                    .ranges
                    .iter()
                    .find(|x| x.name.text == r.text)
            else {
                return quote!();
            };
            let var = format_ident!("{}", r.text);
            // Its `range_fits` computed the offset: a plain value, or one that cannot fail now.
            let start = match em.infallible(&rd.offset.expr, Scope::Top, env) {
                Some(p) => p,
                None => {
                    let v = em.value(&rd.offset.expr, Scope::Top, env);
                    quote!(#v.unwrap_or(0))
                }
            };
            let comment = format!(
                "@step {code}: every byte of range `{}` must be {bv:#04x}.",
                r.text
            );
            quote! {
                #[doc = #comment]
                {
                    let bytes: &'a [u8] = #var;
                    let start: u64 = #start;
                    #scan
                }
            }
        }
        Span::FromTo { from, to } => {
            let f = em.value(&from.expr, scope, env);
            let t = em.value(&to.expr, scope, env);
            let out = fail(
                code,
                &blame(quote!(from.unwrap_or(0))),
                Det::Range(
                    quote!(from.unwrap_or(u64::MAX)),
                    quote!(
                        to.zip(from)
                            .and_then(|(t, f)| t.checked_sub(f))
                            .unwrap_or(u64::MAX)
                    ),
                    "len".to_string(),
                    quote!(len),
                ),
            );
            let comment = format!(
                "@step {code}: bytes `{}` to `{}` must lie in the buffer and each be {bv:#04x}.",
                from.text, to.text
            );
            quote! {
                #[doc = #comment]
                {
                    let from: Option<u64> = #f;
                    let to: Option<u64> = #t;
                    let bytes: Option<&'a [u8]> = match (from, to) {
                        (Some(f), Some(t)) => match (usize::try_from(f), usize::try_from(t)) {
                            (Ok(f), Ok(t)) => buf.get(f..t),
                            _ => None,
                        },
                        _ => None,
                    };
                    let Some(bytes) = bytes else {
                        return #out;
                    };
                    let start: u64 = from.unwrap_or(0);
                    #scan
                }
            }
        }
    }
}
