//! Where a writer (the plain writer, `check/writer.rs`, or a directory writer,
//! `lower/writer.rs`) puts a file-level range whose offset or length is not one field: a constant offset is where the range goes (the writer places it
//! there, zeros before it, or fails when what precedes it ends later), and a range whose
//! length is `len - <its offset>` runs to the end of the file, so it is the last item the
//! writer places. The emitter's side: `emit/writer.rs` asks [`const_offset`].

use crate::check::{Checked, Resolved, Scope};
use crate::diag::Diags;
use crate::expr::{BinOp, Expr};
use crate::schema::Range;

/// Whether `e` reads constants only (numbers, constants, enum values; not `len`).
fn constant(c: &Checked, e: &Expr) -> bool {
    e.refs().iter().all(|p| {
        matches!(
            c.resolve(p, Scope::Top),
            Ok(Resolved::Const(_) | Resolved::EnumValue(..))
        )
    }) && !matches!(e, Expr::Call(..) | Expr::At(..))
}

/// Whether `e` reads `len`.
fn reads_len(c: &Checked, e: &Expr) -> bool {
    e.refs()
        .iter()
        .any(|p| matches!(c.resolve(p, Scope::Top), Ok(Resolved::Len)))
}

/// The offset of a file-level range when it is a constant expression (the plain writer
/// places the range there).
pub(crate) fn const_offset<'r>(c: &Checked, r: &'r Range) -> Option<&'r Expr> {
    (r.table.is_none() && constant(c, &r.offset.expr)).then_some(&r.offset.expr)
}

/// Whether a file-level range runs to the end of the file: its length is `len - <its
/// offset>`, written as the offset is.
pub(crate) fn runs_to_end(c: &Checked, r: &Range) -> bool {
    r.table.is_none()
        && matches!(&r.length.expr, Expr::Bin(BinOp::Sub, a, b)
            if matches!(&**a, Expr::Ref(p) if matches!(c.resolve(p, Scope::Top), Ok(Resolved::Len)))
                && **b == r.offset.expr)
}

/// In a file with a writer: a range that runs to the end of the file must be the
/// last item of `writer.order` (its length is what the file has after its offset), and no
/// other range's offset or length may read `len` (the writer cannot know it before it has
/// placed everything).
pub(crate) fn check(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    let Some(w) = &file.writer else { return };
    // A table at the end of the file (`at: len - E`), either writer's (`trailer.rs`).
    for t in &file.tables {
        crate::check::trailer::check_table(c, t, &w.order, d);
    }
    for r in file.ranges.iter().filter(|r| r.table.is_none()) {
        let n = &r.name.text;
        if runs_to_end(c, r) {
            if reads_len(c, &r.offset.expr) {
                d.error(
                    r.offset.pos,
                    format!("range `{n}`: the writer cannot place a range at an offset that reads `len` (`{}`); give it a constant offset or one header field", r.offset.text),
                );
            } else if let Some(last) = w.order.last()
                && let Some(at) = w.order.iter().find(|o| o.text == *n)
                && last.text != *n
            {
                d.error(
                    at.pos,
                    format!("range `{n}` runs to the end of the file (`length: {}`), so the writer places it last, and `writer.order` ends with `{}`; move `{n}` to the end", r.length.text, last.text),
                );
            }
            continue;
        }
        // A trailer at `len - E`, and a range that ends C bytes before the end (`trailer.rs`).
        let at = w.order.iter().position(|o| o.text == *n);
        let last = w.order.len().checked_sub(1);
        if crate::check::trailer::is_trailer(c, r) {
            if let (Some(i), Some(l)) = (at, last)
                && i != l
            {
                d.error(
                    w.order[i].pos,
                    format!("range `{n}` is a trailer (`offset: {}`), so the writer places it last, right after what precedes it, and `writer.order` ends with `{}`; move `{n}` to the end", r.offset.text, w.order[l].text),
                );
            }
            continue;
        }
        if let Some(k) = crate::check::trailer::before_trailer(c, r) {
            let next = at
                .and_then(|i| w.order.get(i + 1))
                .and_then(|o| file.ranges.iter().find(|x| x.name.text == o.text));
            let ok = at.is_some_and(|i| Some(i + 1) == last)
                && next.is_some_and(|t| crate::check::trailer::fits_trailer(c, k, t));
            if !ok && let Some(i) = at {
                d.error(
                    w.order[i].pos,
                    format!("range `{n}` ends before the end of the file (`length: {}`), so the writer needs the bytes it leaves right after it, last: `writer.order` must end with `{n}` and then a trailer of that many bytes (`offset: len - C`, `length: C`)", r.length.text),
                );
            }
            continue;
        }
        for (e, what) in [(&r.offset, "offset"), (&r.length, "length")] {
            if reads_len(c, &e.expr) {
                d.error(
                    e.pos,
                    format!("range `{n}`: the writer cannot write a range whose {what} reads `len` (`{}`), except one that runs to the end of the file (`length: len - <its offset>`, placed last), a trailer (`offset: len - C`, `length: C`, placed last) and a range that ends C bytes before the end (`length: len - <its offset> - C`, followed by such a trailer)", e.text),
                );
            }
        }
    }
}

/// Whether a file-level range's offset and length need no field: a constant offset or a
/// trailer's `len - E`; a constant length (the bytes given must have it), one that runs to
/// the end of the file, or one that ends right before a trailer ([`check`] checks the
/// order).
pub(crate) fn placed_without_field(c: &Checked, r: &Range) -> (bool, bool) {
    if r.table.is_some() || r.when.is_some() {
        return (false, false);
    }
    let offset = const_offset(c, r).is_some() || crate::check::trailer::is_trailer(c, r);
    let length = crate::check::trailer::fixed_length(c, r).is_some()
        || runs_to_end(c, r)
        || crate::check::trailer::before_trailer(c, r).is_some();
    (offset, length)
}
