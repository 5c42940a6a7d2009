//! The plan of the plain writer (`writer` without a section `directory`): what each field
//! of the header and of a table's records is derived from, the rest being inputs (the
//! writer's setters, the fields of a record's `<Record>Spec`). The emitter
//! (`emit/writer.rs`) writes what this decides, and the checker's list of the names the
//! writers generate (`check/writer_names.rs`) takes its inputs from here, so the two cannot
//! disagree on which fields the writer takes.

use crate::check::expr::single_field;
use crate::check::{Checked, Leaf, Owner, Resolved, Scope};
use crate::expr::Expr;
use crate::model::{Item, Part, Rule, What};
use crate::schema::Table;
use crate::schema::top::Step;

pub(crate) use crate::check::record_rules::{record_flag_when, record_rules};

fn expects(steps: &[Step], out: &mut Vec<(Expr, Expr)>) {
    for s in steps {
        if let Step::Expect { field, equals, .. } = s {
            out.push((field.expr.clone(), equals.expr.clone()));
        }
    }
}

fn const_only(c: &Checked, e: &Expr) -> bool {
    e.refs().iter().all(|p| {
        matches!(
            c.resolve(p, Scope::Top),
            Ok(Resolved::Const(_) | Resolved::Len | Resolved::EnumValue(..))
        )
    })
}

/// Whether the file gets the plain writer: a `writer`, no section directory (whose writer
/// is `dir_writer.rs`'s), a header struct.
pub(crate) fn has_plain_writer(c: &Checked) -> bool {
    let file = &c.schema.file;
    file.writer.is_some() && file.ext.directories.is_empty() && c.header().is_some()
}

/// A field inside a struct-typed header field that the writer derives, with the path that
/// names it, and its rule (`nested_writer.rs`).
pub(crate) type LeafRule = (Leaf, String, Rule);

/// The plain writer's header rules (every field an input when the header is undefined),
/// and those of fields inside struct-typed header fields. The rest of its plan:
/// `located_writer.rs`'s `analyse`.
pub(crate) fn header_rules(c: &Checked) -> (Vec<Rule>, Vec<LeafRule>) {
    let file = &c.schema.file;
    let n = c.header().map_or(0, |h| h.fields.len());
    let mut fields = vec![Rule::Input; n];
    let mut leaves: Vec<LeafRule> = Vec::new();
    let mut ex = Vec::new();
    expects(&file.validate, &mut ex);
    let mut derive = |e: &Expr, what: What| {
        let rule = Rule::Derived(what, Part::Whole);
        if let Some((Owner::Header, i)) = single_field(c, e, Scope::Top) {
            if let Some(r) = fields.get_mut(i) {
                *r = rule;
            }
        } else if let Expr::Ref(p) = e
            // A field inside a struct-typed header field (`nested_writer.rs`).
            && let Ok(Resolved::Nested(Owner::Header, l)) = c.resolve(p, Scope::Top)
            && l.bit.is_none()
        {
            leaves.push((l, p.join("."), rule));
        }
    };
    for (f, v) in &ex {
        if const_only(c, v) {
            derive(f, What::Value(v.clone()));
        }
    }
    for (ti, t) in file.tables.iter().enumerate() {
        derive(&t.count.expr, What::TableCount(ti));
        derive(&t.stride.expr, What::RecordSize(ti));
        // A table at one header field: where the writer placed it (`at_is_field`).
        derive(&t.at.expr, What::Place(Item::OtherTable(ti)));
    }
    for (k, r) in file.ranges.iter().enumerate() {
        if r.table.is_none() {
            derive(&r.offset.expr, What::Place(Item::Range(k)));
            derive(&r.length.expr, What::RangeLength(k));
        }
    }
    for k in &file.checksums {
        derive(&k.stored.expr, What::Checksum);
    }
    // A located record's `at` (`located_writer.rs`): where the writer placed it.
    for (j, r) in file.ext.records.iter().enumerate() {
        derive(&r.at.expr, What::Place(Item::Record(j)));
    }
    // A file string's offset field: where the writer placed the string (`strings.rs`).
    for (si, s) in file.strings.iter().enumerate() {
        if s.table.is_none()
            && let Ok(i) = crate::check::strings::writable(c, s)
            && matches!(
                single_field(c, &s.offset.expr, Scope::Top),
                Some((Owner::Header, _))
            )
            && let Some(r) = fields.get_mut(i)
        {
            *r = Rule::Derived(What::Place(Item::Str(si)), Part::Whole);
        }
    }
    // A place, count, stride, offset or length stored as a linear form of one header field
    // (`header.n - 1`, `header.words * 4`): solved for the field (`linform.rs`).
    for (e, what) in crate::check::linform::plain_solved(c) {
        if let Some(f) = crate::check::linform::header_form(c, e)
            && let Some(r) = fields.get_mut(f.field)
        {
            *r = Rule::Derived(what, Part::Lin(f.unnamed()));
        }
    }
    (fields, leaves)
}

/// Whether a table's `at` is one header field or one field of a located record,
/// which the plain writer sets to the place it chose (at the cursor, aligned); otherwise it
/// must be a constant expression, the place.
pub(crate) fn at_is_field(c: &Checked, t: &Table) -> bool {
    match single_field(c, &t.at.expr, Scope::Top) {
        Some((Owner::Header, _)) => true,
        // (A version-gated record's field too: written in its gate's layout; one only some
        // layouts have is refused by `located_writer.rs`.)
        Some((Owner::Located(j), _)) => c.schema.file.ext.records.get(j).is_some(),
        _ => false,
    }
}

/// The plain writer places every table and range it writes where `writer.order` names it
/// (its plan has no place for one it does not name): a table, a file-level range (one with
/// a `when` it cannot write is refused on its own, `when_writer.rs`) or a per-record range
/// that the order leaves out is refused. (A string or a string table: `strings.rs`, `strtab_writer.rs`.)
pub(crate) fn check(c: &Checked, d: &mut crate::diag::Diags) {
    if !has_plain_writer(c) {
        return;
    }
    let file = &c.schema.file;
    let Some(w) = &file.writer else { return };
    let named = |n: &str| w.order.iter().any(|o| o.text == n);
    for t in file.tables.iter().filter(|t| !named(&t.name.text)) {
        d.error(
            t.name.pos,
            format!(
                "table `{}`: the writer writes it where `writer.order` names it, and `writer.order` does not; add it",
                t.name.text
            ),
        );
    }
    for t in &file.tables {
        // One field of the header or of a located record (`located_writer.rs` derives those).
        let header_field = |e: &Expr| {
            matches!(
                single_field(c, e, Scope::Top),
                Some((Owner::Header | Owner::Located(_), _))
            ) || matches!(e, Expr::Ref(p) if matches!(c.resolve(p, Scope::Top), Ok(Resolved::Nested(Owner::Header, l)) if l.bit.is_none()))
                // A linear form of one header field, solved for it (`linform.rs`).
                || (crate::check::when_writer::table_when(c, t).is_none()
                    && (crate::check::linform::header_form(c, e).is_some()
                        || crate::check::linform::located_form(c, e).is_some()))
        };
        crate::check::table_writer::check_count_stride(c, t, &header_field, d);
        // (A place read from a located record: `located_writer.rs` says so.)
        // (At the end of the file, `at: len - E`: `range_place.rs` checks the order.)
        let located = matches!(
            single_field(c, &t.at.expr, Scope::Top),
            Some((Owner::Located(_), _))
        );
        if !located
            && !at_is_field(c, t)
            && !crate::check::table_writer::const_only(c, &t.at.expr)
            && crate::check::linform::place_form(c, &t.name.text).is_none()
            && crate::check::trailer::table_end(c, t).is_none()
        {
            d.error(
                t.at.pos,
                format!(
                    "table `{}`: the writer cannot derive where it goes: `at: {}` is neither one header field (which the writer sets to the place it chose), a linear form of one that it solves ({}), nor a constant expression (of constants only: the writer does not know `len` before it places the table), nor `len - E` with E its size (a constant, or its count times its record size: at the end of the file, placed last)",
                    t.name.text, t.at.text, crate::check::linform::FORMS
                ),
            );
        }
    }
    for r in &file.ranges {
        if named(&r.name.text)
            || (r.table.is_none()
                && r.when.is_some()
                && !crate::check::when_writer::writes_range(c, r))
            || crate::check::strtab_writer::is_built(c, &r.name.text)
        {
            continue;
        }
        d.error(
            r.name.pos,
            format!(
                "range `{}`: the writer writes its bytes where `writer.order` names it, and `writer.order` does not; add it",
                r.name.text
            ),
        );
    }
}
