//! The invariant every checksum keeps, stated once: **a stored field never lies inside the
//! bytes it covers.** Storing the sum changes bytes it was computed over, so a file with
//! such a checksum passes its validator only by a 1-in-2^32 accident, and a writer would
//! write files its own validator rejects.
//!
//! Two halves, one rule:
//! - here, the checker refuses a checksum whose span covers its stored field in every file
//!   the validator could accept, with a diagnostic at the span: a top-level checksum
//!   (`checksums:`, stored in a header field) and a record stream's per-record checksum
//!   (offsets inside the record) both call [`check`];
//! - a span the checker cannot decide (it reads fields the writer derives or a located
//!   record's) is checked by every writer as it computes the sum, through
//!   `npuschema_core::covered_apart` (the plain writer, the directory writer's `seal`, the
//!   record-stream writer), which fails with `WriteError::Layout` instead.
//!
//! A directory's checksums keep it by construction: a payload checksum is stored in a
//! header field and hashes payloads (its `zero` fields, such as a records checksum's stored
//! words, are hashed as zero bytes).

use crate::check::expr::single_field;
use crate::check::{Checked, Owner, Resolved, Scope};
use crate::diag::Diags;
use crate::expr::{BinOp, Expr, ExprAt};
use crate::schema::top::Step;

/// What is known of the values an expression takes in every file that reaches the checksum.
struct Bounds<'a> {
    c: &'a Checked,
    scope: Scope<'a>,
    /// The least `len` can be: the stored field is read, so the file holds it.
    len_min: u64,
    /// Top-level `expect` steps (`field == value`, the value reading no field): a file the
    /// validator accepts has the field equal to the value.
    expects: Vec<(usize, &'a Expr)>,
}

impl Bounds<'_> {
    fn constant(&self, p: &[String]) -> Option<u64> {
        match self.c.resolve(p, self.scope) {
            Ok(Resolved::Const(i)) => {
                let k = self.c.schema.constants.get(i)?;
                (!k.ty.signed()).then_some(k.value)
            }
            _ => None,
        }
    }

    fn expected(&self, e: &Expr) -> Option<&Expr> {
        match single_field(self.c, e, self.scope) {
            Some((Owner::Header, i)) if matches!(self.scope, Scope::Top) => {
                self.expects.iter().find(|(f, _)| *f == i).map(|(_, v)| *v)
            }
            _ => None,
        }
    }

    /// The greatest value `e` takes, when known.
    fn upper(&self, e: &Expr) -> Option<u64> {
        match e {
            Expr::Num(v) => Some(*v),
            Expr::Ref(p) => self
                .constant(p)
                .or_else(|| self.expected(e).and_then(|v| self.upper(v))),
            Expr::Bin(BinOp::Add, a, b) => self.upper(a)?.checked_add(self.upper(b)?),
            Expr::Bin(BinOp::Sub, a, b) => self.upper(a)?.checked_sub(self.lower(b)),
            Expr::Bin(BinOp::Mul, a, b) => self.upper(a)?.checked_mul(self.upper(b)?),
            _ => None,
        }
    }

    /// The least value `e` takes (0 when nothing is known).
    fn lower(&self, e: &Expr) -> u64 {
        match e {
            Expr::Num(v) => *v,
            Expr::Ref(p) if matches!(self.c.resolve(p, self.scope), Ok(Resolved::Len)) => {
                self.len_min
            }
            Expr::Ref(p) => self
                .constant(p)
                .or_else(|| self.expected(e).map(|v| self.lower(v)))
                .unwrap_or(0),
            Expr::Bin(BinOp::Add, a, b) => self.lower(a).saturating_add(self.lower(b)),
            Expr::Bin(BinOp::Sub, a, b) => {
                self.upper(b).map_or(0, |u| self.lower(a).saturating_sub(u))
            }
            Expr::Bin(BinOp::Mul, a, b) => self.lower(a).saturating_mul(self.lower(b)),
            _ => 0,
        }
    }
}

/// The top-level `expect` steps whose value reads no field: `(header field, value)`.
fn expects(c: &Checked) -> Vec<(usize, &Expr)> {
    let reads_field = |e: &Expr| {
        e.refs().iter().any(|p| {
            !matches!(
                c.resolve(p, Scope::Top),
                Ok(Resolved::Const(_) | Resolved::Len | Resolved::EnumValue(..))
            )
        })
    };
    c.schema
        .file
        .validate
        .iter()
        .filter_map(|s| match s {
            Step::Expect { field, equals, .. } if !reads_field(&equals.expr) => {
                match single_field(c, &field.expr, Scope::Top) {
                    Some((Owner::Header, i)) => Some((i, &equals.expr)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// Refuses checksum `what` whose span `from..to` covers its stored bytes
/// `stored .. stored + width` in every file that reaches it (`stored_text` names them).
fn check(
    c: &Checked,
    scope: Scope<'_>,
    what: &str,
    (from, to): (&ExprAt, &ExprAt),
    (stored, width, stored_text): (u64, u64, &str),
    len_min: u64,
    d: &mut Diags,
) {
    let b = Bounds {
        c,
        scope,
        len_min,
        expects: if matches!(scope, Scope::Top) {
            expects(c)
        } else {
            Vec::new()
        },
    };
    let Some(end) = stored.checked_add(width) else {
        return;
    };
    let Some(f) = b.upper(&from.expr) else {
        return;
    };
    let t = b.lower(&to.expr);
    if f < end && t > stored {
        d.error(
            from.pos,
            format!(
                "{what}: its span `{}`..`{}` covers its own stored field `{stored_text}` (bytes {stored}..{end}) in every file: a stored field never lies inside the bytes it covers (storing the sum changes what it was computed over, so the validator rejects every file and a writer would write files it rejects); start the span at or after {end} or end it at or before {stored}",
                from.text, to.text
            ),
        );
    }
}

/// The rule for every top-level checksum (stored in one header field of a fixed layout).
pub(crate) fn check_top(c: &Checked, d: &mut Diags) {
    let Some(h) = c.header() else {
        return;
    };
    if crate::check::lookup::is_gated(h) {
        return;
    }
    let Some(layout) = c.layouts.get(&h.name.text) else {
        return;
    };
    // (A sum that must reach a value, `equals`, stores nothing.)
    for k in c.schema.file.checksums.iter().filter(|k| !k.equals) {
        let Some((Owner::Header, i)) = single_field(c, &k.stored.expr, Scope::Top) else {
            continue;
        };
        // A stored field the sum counts as zero (`zero:`) may lie inside its span: the sum
        // does not read it (and a schema with `zero:` has no writer).
        if k.zero
            .iter()
            .any(|z| single_field(c, &z.expr, Scope::Top) == Some((Owner::Header, i)))
        {
            continue;
        }
        let Some(&(off, kind)) = layout.fields.get(i) else {
            continue;
        };
        let width = kind.width(&c.schema);
        check(
            c,
            Scope::Top,
            &format!("checksum `{}`", k.name.text),
            (&k.from, &k.to),
            (off, width, &k.stored.text),
            off.saturating_add(width),
            d,
        );
    }
}

/// The rule for a record stream's per-record checksum (a `u32` at `stored` inside the
/// record, offsets from its start; `scope` reads the record's header).
pub(crate) fn check_stream(
    c: &Checked,
    scope: Scope<'_>,
    sn: &str,
    k: &crate::schema::streams::RecordSum,
    d: &mut Diags,
) {
    let b = Bounds {
        c,
        scope,
        len_min: 0,
        expects: Vec::new(),
    };
    // Only a stored place the same in every record is decided here.
    let (Some(at), lo) = (b.upper(&k.stored.expr), b.lower(&k.stored.expr)) else {
        return;
    };
    if at != lo {
        return;
    }
    check(
        c,
        scope,
        &format!("the checksum of stream `{sn}`"),
        (&k.from, &k.to),
        (at, 4, &k.stored.text),
        0,
        d,
    );
}
