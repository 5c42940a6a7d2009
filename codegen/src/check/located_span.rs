//! A writer's top-level checksum whose span reads a field of a located record
//! (`from: info.body_at`): `seal` finds the record where its `at` says, over the header as
//! written, reads it back from the bytes it seals and evaluates the span over it, as the
//! reader's `<name>_computed()` does (emitted by `emit/located_span.rs`).
//!
//! Only a record whose `at` (and, version-gated, whose gate: it is read in its gate's layout)
//! reads constants, `len`, enum values and header fields is read this way (a record placed by
//! another record's field would need that one first); any other span is refused by
//! `lower/writer.rs`, saying what it reads.

use crate::check::{Checked, Owner, Resolved, Scope};
use crate::expr::Expr;

/// Whether `seal` can evaluate span expression `e`: every reference `readable`, and no
/// record at an index (`table[i].field`) or function call, which it has nothing to read
/// from.
pub(crate) fn span_readable(c: &Checked, e: &Expr) -> bool {
    match e {
        Expr::Num(_) => true,
        Expr::Ref(p) => readable(c, p),
        Expr::Bin(_, l, r) => span_readable(c, l) && span_readable(c, r),
        Expr::Not(x) => span_readable(c, x),
        Expr::Call(..) | Expr::At(..) | Expr::Key(..) => false,
    }
}

/// Whether `seal` can read path `p` of a top-level checksum's span: a constant, `len`, an
/// enum value, a header field, or a field of a located record it can find (`record`).
pub(crate) fn readable(c: &Checked, p: &[String]) -> bool {
    match c.resolve(p, Scope::Top) {
        Ok(Resolved::Const(_) | Resolved::Len | Resolved::EnumValue(..)) => true,
        Ok(Resolved::Field(Owner::Header, _)) => true,
        Ok(
            Resolved::Field(Owner::Located(j), _)
            | Resolved::Composed(Owner::Located(j), _)
            | Resolved::FlagBit(Owner::Located(j), ..),
        ) => record(c, j),
        _ => false,
    }
}

/// Whether located record `j` is one `seal` finds over the header as written: its `at`, and
/// a version-gated record's gate (which picks the layout it is read in), reading constants,
/// `len`, enum values and header fields only.
pub(crate) fn record(c: &Checked, j: usize) -> bool {
    let header_only = |e: &Expr| {
        e.refs().iter().all(|p| {
            matches!(
                c.resolve(p, Scope::Top),
                Ok(Resolved::Const(_)
                    | Resolved::Len
                    | Resolved::EnumValue(..)
                    | Resolved::Field(Owner::Header, _))
            )
        })
    };
    c.schema.file.ext.records.get(j).is_some_and(|r| {
        header_only(&r.at.expr) && r.gate.as_ref().is_none_or(|g| header_only(&g.expr))
    })
}

/// The located records (indexes) that checksum `k`'s span reads, added to `out` once
/// each.
pub(crate) fn span_records_into(c: &Checked, k: &crate::schema::Checksum, out: &mut Vec<usize>) {
    for e in [&k.from, &k.to] {
        for p in e.expr.refs() {
            if let Ok(
                Resolved::Field(Owner::Located(j), _)
                | Resolved::Composed(Owner::Located(j), _)
                | Resolved::Nested(Owner::Located(j), _)
                | Resolved::FlagBit(Owner::Located(j), ..),
            ) = c.resolve(p, Scope::Top)
                && !out.contains(&j)
            {
                out.push(j);
            }
        }
    }
}

/// The located records (indexes) that checksum `k`'s span reads.
pub(crate) fn span_records(c: &Checked, k: &crate::schema::Checksum) -> Vec<usize> {
    let mut out = Vec::new();
    span_records_into(c, k, &mut out);
    out
}
