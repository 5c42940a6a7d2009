//! The writer's optional parts, and what it refuses of them (`when_writer.rs` says which
//! parts are optional and how their conditions are set or checked):
//!
//! - a file-level range with `when` and a table (not a directory's own) whose `table_fits`
//!   has `when`: optional in `<File>Spec` (`Option`); a condition that is one header flag
//!   bit is set when the part is given and cleared when not, any other condition is
//!   evaluated on the header as written and checked against whether the part was given
//!   (`WriteError::WhenDisagrees`);
//! - a section payload range with `when`: optional per section (`<Record>Spec`'s payload is
//!   an `Option`); a condition that is one flag bit of the record is set or cleared from
//!   whether the payload is given, any other condition over the record's own fields is
//!   evaluated on the record as written, its payload's offset and length set
//!   (`WriteError::SectionWhenDisagrees`, naming the section). A section without a payload
//!   gets zero in its offset and length fields.
//! - an optional table's per-record ranges and record strings: left out, they take no
//!   bytes; given, they are placed as for an ungated table (the emitters read the records
//!   through `emit/when_writer.rs::records`).
//!
//! What the writer cannot check is refused here, saying why. Emitted by `emit/optional_parts.rs`.

use crate::check::when_writer::{bit_of, uncheckable, uncheckable_in};
use crate::check::writer_rules::range_kind;
use crate::check::{Checked, Owner, Resolved, Scope};
use crate::diag::Diags;
use crate::expr::{Expr, ExprAt};
use crate::model::RangeKind;
use crate::schema::ext::{DirChecksumKind, Directory};
use crate::schema::{Name, Range, Table};

/// Whether the file has a directory writer.
fn dir_writer(c: &Checked) -> bool {
    c.schema.file.writer.is_some() && !c.schema.file.ext.directories.is_empty()
}

/// The directory whose payload range is `r`.
pub(crate) fn payload_dir<'a>(c: &'a Checked, r: &Range) -> Option<&'a Directory> {
    c.schema
        .file
        .ext
        .directories
        .iter()
        .find(|d| d.payload.text == r.name.text)
}

/// The field of `t`'s record (index) and the bit (index into its flags' bits) that payload
/// range `r`'s `when` is, when it is one flag bit of a flags field of the record.
pub(crate) fn payload_bit(c: &Checked, t: &Table, r: &Range) -> Option<(usize, usize)> {
    let Expr::Ref(p) = &r.when.as_ref()?.expr else {
        return None;
    };
    match c.resolve(p, Scope::RecordOnly(t)).ok()? {
        Resolved::FlagBit(Owner::Record, fi, bi) => Some((fi, bi)),
        _ => None,
    }
}

/// Whether table `t` is an optional part of a directory writer (its `table_fits` has
/// `when`; not a directory's table).
pub(crate) fn optional_table(c: &Checked, t: &Table) -> bool {
    c.schema.file.writer.is_some()
        && !is_dir_table(c, &t.name.text)
        && crate::check::when_writer::table_when(c, t).is_some()
}

fn is_dir_table(c: &Checked, n: &str) -> bool {
    c.schema
        .file
        .ext
        .directories
        .iter()
        .any(|d| d.table.text == n)
}

/// Diagnoses section payload range `r` (of table `t`) with `when` that a directory writer
/// cannot leave out of a section.
pub(crate) fn check_payload(c: &Checked, r: &Range, t: &Table, d: &mut Diags) {
    let (Some(w), Some(dir)) = (&r.when, payload_dir(c, r)) else {
        return;
    };
    if !dir_writer(c) {
        return;
    }
    if let Some(k) = dir
        .checksums
        .iter()
        .find(|k| matches!(k.kind, DirChecksumKind::Payloads { .. }))
    {
        d.error(w.pos, format!("range `{}`: the writer cannot leave a section's payload out `when: {}`: checksum `{}` hashes every section's payload of `{}`, and the validator rejects a section without one; drop the `writer`, the `when` or the checksum", r.name.text, w.text, k.name.text, dir.name.text));
    } else if payload_bit(c, t, r).is_none()
        && let Some(why) = uncheckable_in(c, w, Scope::RecordOnly(t), "the record it writes")
    {
        d.error(w.pos, format!("range `{}`: the writer checks `when: {}` against each section's record as written (it writes the section's payload only if it holds), but cannot: {why}; drop the `writer` or rewrite the condition", r.name.text, w.text));
    }
}

/// Diagnoses a file-level range `r` with `when` that a directory writer cannot write
/// (given or not, checked against the condition).
pub(crate) fn check_range(c: &Checked, r: &Range, d: &mut Diags) {
    let file = &c.schema.file;
    let (Some(w), Some(wr)) = (&r.when, &file.writer) else {
        return;
    };
    if r.table.is_some() || !wr.order.iter().any(|o| o.text == r.name.text) {
        return;
    }
    let Some(k) = file.ranges.iter().position(|x| x.name.text == r.name.text) else {
        return;
    };
    match range_kind(c, k) {
        RangeKind::Built => d.error(w.pos, format!("range `{}`: the writer builds it from the strings that lie in it, so it cannot leave it out `when: {}`; drop the `writer` or the `when`", r.name.text, w.text)),
        RangeKind::Stream(_) => d.error(w.pos, format!("range `{}`: the writer writes a stream's range always (from its records), and does not leave it out `when: {}`; drop the `writer` or the `when`", r.name.text, w.text)),
        RangeKind::Bytes => {
            if crate::check::when_writer::flag_bit(c, r).is_none()
                && let Some(why) = uncheckable(c, w)
            {
                d.error(w.pos, format!("range `{}`: the writer checks `when: {}` against the header it writes (it writes the range only if it holds), but cannot: {why}; drop the `writer` or rewrite the condition", r.name.text, w.text));
            }
        }
    }
}

/// Diagnoses table `table` whose `table_fits` has `when` that a directory writer cannot
/// write (given or not, checked against the condition).
pub(crate) fn check_table(c: &Checked, table: &Name, w: &ExprAt, d: &mut Diags) {
    let file = &c.schema.file;
    let Some(wr) = &file.writer else { return };
    if !wr.order.iter().any(|o| o.text == table.text) {
        return;
    }
    if c.table(&table.text).is_none() {
        return;
    }
    if is_dir_table(c, &table.text) {
        d.error(w.pos, format!("table `{}`: a directory writer writes every directory's table, so it cannot write one whose table_fits has `when: {}`; drop the `writer` or the `when`", table.text, w.text));
    } else if bit_of(c, w).is_none()
        && let Some(why) = uncheckable(c, w)
    {
        d.error(w.pos, format!("table `{}`: the writer checks `when: {}` against the header it writes (it writes the table's records only if it holds), but cannot: {why}; drop the `writer` or rewrite the condition", table.text, w.text));
    }
}
