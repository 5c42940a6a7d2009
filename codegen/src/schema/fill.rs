//! Fill bytes: a validation step asserting that every byte of a span equals one value
//! (zero padding after a payload, 0xFF padding up to an aligned start). Loaded here; checked in
//! `check/fill.rs`, emitted in `emit/fill.rs`; the interpreter's side is `interp/fill.rs`.
//!
//! ```yaml
//! validate:
//!   - { code: bad-trailer, fill: trailer, byte: 0 }                  # a file-level range
//!   - for_each: records
//!     validate:
//!       - { code: bad-padding, fill: { from: "record.body_offset + used", to: record.end }, byte: 0xFF, field: padding }
//! ```

use crate::diag::Diags;
use crate::expr::ExprAt;
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

// ----- emit --------------------------------------------------------------------------------
