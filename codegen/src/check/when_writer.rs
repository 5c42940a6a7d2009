//! The writer of a file-level range with `when` (`ranges: { notes: { when: ... } }`): the
//! writer can leave such a range out only when its condition is one flag bit of a header
//! flags field, which it then sets when the range is given and clears when it is not.
//! Emitted by `emit/writer.rs` (the range is an optional part of the writer).

use crate::check::{Checked, Owner, Resolved, Scope};
use crate::diag::Diags;
use crate::expr::Expr;
use crate::schema::Range;

/// The header flags field (index) and its bit (index into the flags' bits) that a
/// file-level range's `when` is, when it is one such bit.
pub(crate) fn flag_bit(c: &Checked, r: &Range) -> Option<(usize, usize)> {
    let w = r.when.as_ref()?;
    let Expr::Ref(p) = &w.expr else { return None };
    match c.resolve(p, Scope::Top).ok()? {
        Resolved::FlagBit(Owner::Header, fi, bi) => Some((fi, bi)),
        _ => None,
    }
}

/// Diagnoses a file-level range with `when` in a file with a `writer` that cannot write it.
pub(crate) fn check_range(c: &Checked, r: &Range, d: &mut Diags) {
    let file = &c.schema.file;
    let Some(w) = &r.when else { return };
    if file.writer.is_none() || r.table.is_some() {
        return;
    }
    if !file.ext.directories.is_empty() {
        d.error(w.pos, format!("range `{}`: a directory writer writes every file-level range it places, so it cannot write one that is there only `when: {}`; drop the `writer` or the `when`", r.name.text, w.text));
    } else if crate::check::strtab_writer::is_built(c, &r.name.text) {
        d.error(w.pos, format!("range `{}`: the writer builds it from the strings that lie in it, so it cannot leave it out `when: {}`; drop the `writer` or the `when`", r.name.text, w.text));
    } else if flag_bit(c, r).is_none() {
        d.error(w.pos, format!("range `{}`: the writer can leave out a file-level range only when its `when` is one flag bit of a header flags field (`header.flags.HAS_{}`), which it sets when the range is given; `{}` is not; drop the `writer` or make the condition such a bit", r.name.text, r.name.text.to_uppercase(), w.text));
    }
}
