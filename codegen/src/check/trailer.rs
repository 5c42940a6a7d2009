//! File-level ranges the plain writer places relative to the end of the file, and ranges of
//! a fixed length: a trailer at `len - E` whose length is E (`offset: len - 16, length: 16`,
//! or `offset: len - header.sig_len, length: header.sig_len`) is the last item of
//! `writer.order`, placed right after what precedes it (no alignment: the
//! file then ends E bytes later, so `len - E` is where it went); a range that ends C bytes
//! before the end (`length: len - <its offset> - C`) is followed, last, by a C-byte trailer,
//! so it ends where the trailer starts. A range whose length is a constant expression gets
//! exactly that many bytes (`WriteError::WrongLength` otherwise). A table at `len - E`, E its
//! byte size (a constant, or its count times its record size), is a trailer too: last, right
//! after what precedes it ([`table_end`]). The checks are in `range_place.rs` and here
//! ([`check_table`]), the emission in `emit/writer.rs` and `emit/trailer.rs`.

use crate::check::table_writer::{const_only, const_u64};
use crate::check::{Checked, Resolved, Scope};
use crate::expr::{BinOp, Expr};
use crate::schema::{Range, Table};

fn is_len(c: &Checked, e: &Expr) -> bool {
    matches!(e, Expr::Ref(p) if matches!(c.resolve(p, Scope::Top), Ok(Resolved::Len)))
}

/// A constant expression (constants, numbers and enum values; no `len`, no call).
fn constant(c: &Checked, e: &Expr) -> bool {
    const_only(c, e) && !has_call(e)
}

fn has_call(e: &Expr) -> bool {
    match e {
        Expr::Call(..) | Expr::At(..) | Expr::Key(..) => true,
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

/// Whether `l` is a length the plain writer sets to the bytes' length: one field (of the
/// header, a located record, a struct-typed header field) or a linear form of one header
/// field it solves.
fn writer_length(c: &Checked, l: &Expr) -> bool {
    crate::check::linform::one_top_field(c, l)
        || crate::check::linform::top_form(c, l)
            .is_some_and(|(o, ..)| o == crate::check::Owner::Header)
}

/// Whether `e`, what a trailer sits before the end of the file, is its length `l`: the same
/// constant, or the same field (or linear form of one) the writer sets to the bytes' length.
fn trailer_length(c: &Checked, e: &Expr, l: &Expr) -> bool {
    (constant(c, e) && constant(c, l) && same(c, e, l)) || (e == l && writer_length(c, l))
}

/// Whether file-level range `r` is a trailer: `offset: len - E`, its length E (a constant,
/// or one field the writer sets to the bytes' length: `length: header.sig_len`).
pub(crate) fn is_trailer(c: &Checked, r: &Range) -> bool {
    if r.table.is_some() || r.when.is_some() {
        return false;
    }
    matches!(&r.offset.expr, Expr::Bin(BinOp::Sub, a, e) if is_len(c, a) && trailer_length(c, e, &r.length.expr))
}

/// The C of a file-level range that ends C bytes before the end of the file: `length: len -
/// <its offset> - C` (C a constant expression, or the field that holds the trailer's length),
/// its offset not reading `len`.
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
    (is_len(c, l) && **o == r.offset.expr && (constant(c, k) || writer_length(c, k)) && !reads_len)
        .then_some(&**k)
}

/// Whether `r`'s C (of [`before_trailer`]) is the length of trailer `t`.
pub(crate) fn fits_trailer(c: &Checked, k: &Expr, t: &Range) -> bool {
    is_trailer(c, t) && trailer_length(c, k, &t.length.expr)
}

/// E of a table at the end of the file, `at: len - E`.
pub(crate) enum TableEnd<'t> {
    /// A constant expression: the records given must take exactly that many bytes.
    Const(&'t Expr),
    /// Its count times its record size (`header.n * 16`): whatever the records given.
    Count,
}

/// Whether table `t` (without `when`) sits at the end of the file: `at: len - E`, E a constant
/// expression or its `count` times its record size (either order).
pub(crate) fn table_end<'t>(c: &Checked, t: &'t Table) -> Option<TableEnd<'t>> {
    if crate::check::table_when::table_when(c, t).is_some() {
        return None;
    }
    let Expr::Bin(BinOp::Sub, l, e) = &t.at.expr else {
        return None;
    };
    if !is_len(c, l) {
        return None;
    }
    if constant(c, e) {
        return Some(TableEnd::Const(e));
    }
    let size = c.layouts.get(&t.record.text).map(|l| l.size)?;
    let Expr::Bin(BinOp::Mul, a, b) = &**e else {
        return None;
    };
    let times = |n: &Expr, k: &Expr| *n == t.count.expr && const_u64(c, k) == Some(size);
    (times(a, b) || times(b, a)).then_some(TableEnd::Count)
}

/// Diagnoses a table at the end of the file ([`table_end`]) that the plain writer cannot
/// write: one `writer.order` does not name last, and one whose constant count of records
/// cannot fill the constant E bytes it sits before the end.
pub(crate) fn check_table(
    c: &Checked,
    t: &Table,
    order: &[crate::schema::Name],
    d: &mut crate::diag::Diags,
) {
    let Some(end) = table_end(c, t) else { return };
    let n = &t.name.text;
    if order.last().is_none_or(|o| o.text != *n) {
        d.error(t.at.pos, format!("table `{n}`: `at: {}` puts it at the end of the file, so the writer places it last, right after what precedes it, and `writer.order` ends with `{}`; move `{n}` to the end", t.at.text, order.last().map_or("", |o| o.text.as_str())));
    }
    if let TableEnd::Const(e) = end
        && let (Some(k), Some(count), Some(l)) = (
            const_u64(c, e),
            crate::check::table_writer::fixed_count(c, t),
            c.layouts.get(&t.record.text),
        )
        && count.checked_mul(l.size) != Some(k)
    {
        d.error(t.at.pos, format!("table `{n}`: `at: {}` puts it {k} bytes before the end of the file, and its {count} records of {} bytes take {}: the writer could not say what fills the rest; make E its size (`len - {}`)", t.at.text, l.size, count.saturating_mul(l.size), count.saturating_mul(l.size)));
    }
}

/// Whether a located record sits at the end of the file: `at: len - <its size>`, no gate.
pub(crate) fn record_at_end(c: &Checked, r: &crate::schema::ext::Record) -> bool {
    let Expr::Bin(BinOp::Sub, l, k) = &r.at.expr else {
        return false;
    };
    let size = c.layouts.get(&r.strukt.text).map(|l| l.size);
    r.gate.is_none() && is_len(c, l) && size.is_some() && const_u64(c, k) == size
}
