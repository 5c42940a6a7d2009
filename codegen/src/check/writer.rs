//! What the writer's lowering (`dir_writer.rs`'s `analyse`) takes from the header's
//! struct-typed fields: the fields inside them it derives; and whether a file's writer has
//! no section directory (and so a typestate builder, `emit/typestate.rs`).

use crate::check::{Checked, Leaf, Owner, Resolved, Scope};
use crate::expr::Expr;
use crate::model::{Item, Part, Rule, What};
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

/// Whether the file's writer has no section directory (and a header struct): its
/// `<File>Spec` also gets the typestate builder `<File>Writer`.
pub(crate) fn has_builder(c: &Checked) -> bool {
    let file = &c.schema.file;
    file.writer.is_some() && file.ext.directories.is_empty() && c.header().is_some()
}

/// A field inside a struct-typed header field that the writer derives, with the path that
/// names it, and its rule (`nested_writer.rs`).
pub(crate) type LeafRule = (Leaf, String, Rule);

/// The fields inside struct-typed header fields that the writer derives (`nested_writer.rs`),
/// with the path that names each: a value an `expect` fixes, a table's count, stride or
/// place, a range's offset or length, a checksum, a located record's place. The rest of the
/// plan: `dir_writer.rs`'s `analyse`.
pub(crate) fn header_leaves(c: &Checked) -> Vec<LeafRule> {
    let file = &c.schema.file;
    let mut leaves: Vec<LeafRule> = Vec::new();
    let mut ex = Vec::new();
    expects(&file.validate, &mut ex);
    let mut derive = |e: &Expr, what: What| {
        if let Expr::Ref(p) = e
            && let Ok(Resolved::Nested(Owner::Header, l)) = c.resolve(p, Scope::Top)
            && l.bit.is_none()
        {
            leaves.push((l, p.join("."), Rule::Derived(what, Part::Whole)));
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
    for (j, r) in file.ext.records.iter().enumerate() {
        derive(&r.at.expr, What::Place(Item::Record(j)));
    }
    leaves
}
