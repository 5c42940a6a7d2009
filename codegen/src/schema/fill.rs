//! Fill bytes: a validation step asserting that every byte of a span equals one value
//! (zero padding after a payload, 0xFF padding up to an aligned start), or the byte at the
//! same distance from another place (`same_bytes`: ZIP's local header repeats its central
//! entry's name). Loaded here; checked in `check/fill.rs`, emitted in `emit/fill.rs`; the
//! interpreter's side is `interp/fill.rs`.
//!
//! ```yaml
//! validate:
//!   - { code: bad-trailer, fill: trailer, byte: 0 }                  # a file-level range
//!   - for_each: records
//!     validate:
//!       - { code: bad-padding, fill: { from: "record.body_offset + used", to: record.end }, byte: 0xFF, field: padding }
//!       - { code: name-differs, same_bytes: { from: name_at, to: "name_at + name_len" }, as: record.body_offset, field: name }
//! ```

use crate::diag::Diags;
use crate::expr::ExprAt;
use crate::schema::{MapReader, Name, expr_at, name};
use crate::yaml::Kind;

/// The step kind handled here.
pub const STEP_KIND: &str = "fill";

/// Its other kind: the bytes equal the bytes at another place.
pub const SAME_KIND: &str = "same_bytes";

/// What every byte of the span must equal.
#[derive(Clone, Debug)]
pub enum Value {
    /// One value (`byte: B`): a number or an unsigned constant, at most 0xFF.
    Byte(ExprAt),
    /// The byte at the same distance from this place (`as: EXPR`, `same_bytes`), in the
    /// step's scope: those bytes must lie in the buffer too.
    Same(ExprAt),
}

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

/// `{ code, fill: SPAN, byte: BYTE, field? }` or `{ code, same_bytes: SPAN, as: EXPR, field? }`,
/// SPAN being `RANGE | { from: EXPR, to: EXPR }`.
#[derive(Clone, Debug)]
pub struct FillStep {
    /// Error code.
    pub code: Name,
    /// The bytes.
    pub span: Span,
    /// What every byte must equal.
    pub value: Value,
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
            (None, Span::FromTo { .. }) => match self.value {
                Value::Byte(_) => STEP_KIND.to_string(),
                Value::Same(_) => SAME_KIND.to_string(),
            },
        }
    }
}

/// Read a `fill` or `same_bytes` step (the step's mapping, its kind `kind`).
pub(crate) fn step(kind: &str, mut sm: MapReader<'_>, d: &mut Diags) -> Option<FillStep> {
    let code = sm.req("code", d).and_then(|n| name(n, "code", d));
    let node = sm.opt(kind)?;
    let span = match &node.kind {
        Kind::Map(_) => {
            let mut m = MapReader::new(node, &format!("a {kind} span"), d)?;
            let from = m.req("from", d).and_then(|n| expr_at(n, "from", d));
            let to = m.req("to", d).and_then(|n| expr_at(n, "to", d));
            m.finish(&["from", "to"], d);
            Some(Span::FromTo {
                from: from?,
                to: to?,
            })
        }
        _ => name(node, kind, d).map(Span::Range),
    };
    let (key, value) = if kind == SAME_KIND {
        (
            "as",
            sm.req("as", d)
                .and_then(|n| expr_at(n, "as", d))
                .map(Value::Same),
        )
    } else {
        (
            "byte",
            sm.req("byte", d)
                .and_then(|n| expr_at(n, "byte", d))
                .map(Value::Byte),
        )
    };
    let field = sm.opt("field").and_then(|n| name(n, "field", d));
    sm.finish(&[kind, "code", key, "field"], d);
    Some(FillStep {
        code: code?,
        span: span?,
        value: value?,
        field,
    })
}
