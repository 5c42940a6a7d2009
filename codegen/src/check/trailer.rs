//! File-level ranges the plain writer places relative to the end of the file, and ranges of
//! a fixed length: a trailer at `len - E` whose length is E (`offset: len - 16, length: 16`)
//! is the last item of `writer.order`, placed right after what precedes it (no alignment: the
//! file then ends E bytes later, so `len - E` is where it went); a range that ends C bytes
//! before the end (`length: len - <its offset> - C`) is followed, last, by a C-byte trailer,
//! so it ends where the trailer starts. A range whose length is a constant expression gets
//! exactly that many bytes (`WriteError::WrongLength` otherwise). The checks are in
//! `range_place.rs`, the emission in `emit/writer.rs`.

use crate::check::table_writer::{const_only, const_u64};
use crate::check::{Checked, Resolved, Scope};
use crate::expr::{BinOp, Expr};
use crate::schema::Range;

fn is_len(c: &Checked, e: &Expr) -> bool {
    matches!(e, Expr::Ref(p) if matches!(c.resolve(p, Scope::Top), Ok(Resolved::Len)))
}

/// A constant expression (constants, numbers and enum values; no `len`, no call).
fn constant(c: &Checked, e: &Expr) -> bool {
    const_only(c, e) && !has_call(e)
}

fn has_call(e: &Expr) -> bool {
    match e {
        Expr::Call(..) | Expr::At(..) => true,
        Expr::Bin(_, a, b) => has_call(a) || has_call(b),
        Expr::Not(a) => has_call(a),
        Expr::Num(_) | Expr::Ref(_) => false,
    }
}

/// Whether two constant expressions are the same (written alike, or of one value).
fn same(c: &Checked, a: &Expr, b: &Expr) -> bool {
    a == b || matches!((const_u64(c, a), const_u64(c, b)), (Some(x), Some(y)) if x == y)
}

/// The constant length of a file-level range without `when` (`length: 16`), which the writer
/// checks the bytes given against.
pub(crate) fn fixed_length<'r>(c: &Checked, r: &'r Range) -> Option<&'r Expr> {
    (r.table.is_none() && r.when.is_none() && constant(c, &r.length.expr)).then_some(&r.length.expr)
}

/// Whether file-level range `r` is a trailer: `offset: len - E`, its length the constant E.
pub(crate) fn is_trailer(c: &Checked, r: &Range) -> bool {
    fixed_length(c, r).is_some_and(|l| {
        matches!(&r.offset.expr, Expr::Bin(BinOp::Sub, a, e) if is_len(c, a) && constant(c, e) && same(c, e, l))
    })
}

/// The C of a file-level range that ends C bytes before the end of the file: `length: len -
/// <its offset> - C` (C a constant expression), its offset not reading `len`.
pub(crate) fn before_trailer<'r>(c: &Checked, r: &'r Range) -> Option<&'r Expr> {
    if r.table.is_some() || r.when.is_some() {
        return None;
    }
    let Expr::Bin(BinOp::Sub, rest, k) = &r.length.expr else {
        return None;
    };
    let Expr::Bin(BinOp::Sub, l, o) = &**rest else {
        return None;
    };
    let reads_len = r
        .offset
        .expr
        .refs()
        .iter()
        .any(|p| matches!(c.resolve(p, Scope::Top), Ok(Resolved::Len)));
    (is_len(c, l) && **o == r.offset.expr && constant(c, k) && !reads_len).then_some(&**k)
}

/// Whether `r`'s C (of [`before_trailer`]) is the length of trailer `t`.
pub(crate) fn fits_trailer(c: &Checked, k: &Expr, t: &Range) -> bool {
    is_trailer(c, t) && same(c, k, &t.length.expr)
}
