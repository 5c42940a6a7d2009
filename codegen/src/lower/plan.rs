//! The one writer plan type: what every writer writes, in the lowered layout model's terms
//! (`model.rs`).

use crate::check::{Leaf, Owner};
use crate::expr::Expr;
use crate::model::{Item, Part, Placement, Rule, What};
use crate::schema::ext::Directory;
use crate::schema::{Range, Table, Writer};

/// One section directory the writer writes: its table, its payload range, what each field
/// of its records is derived from.
pub(crate) struct DirPlan<'a> {
    pub(crate) dir: &'a Directory,
    pub(crate) table: &'a Table,
    pub(crate) range: &'a Range,
    /// The field `payload_align` names in its record.
    pub(crate) align_field: Option<usize>,
    pub(crate) entry: Vec<Rule>,
}

/// Everything a writer's emitter needs: the items in the order the writer places them, and
/// a [`Rule`] for every field it writes. `lower/writer.rs`'s `analyse` makes it for
/// every file with a writer (one without a section directory has no `dirs`), and
/// `emit/file_writer.rs` writes it.
pub(crate) struct Plan<'a> {
    pub(crate) w: &'a Writer,
    /// Every directory of the file, in `directories` order.
    pub(crate) dirs: Vec<DirPlan<'a>>,
    pub(crate) items: Vec<(Item, Placement)>,
    /// The header's fields.
    pub(crate) header: Vec<Rule>,
    /// The fields inside struct-typed header fields that are derived, with the path that
    /// names them (`nested_writer.rs`; the plain writer's only).
    pub(crate) leaves: Vec<(Leaf, String, Rule)>,
    /// Per located record (index into `file.ext.records`): its fields.
    pub(crate) records: Vec<Vec<Rule>>,
    /// Per located record with a `gate`: the input field the gate value is (the header's
    /// or an ungated located record's, by index).
    pub(crate) gates: Vec<Option<(Owner, usize)>>,
    /// Per located record whose gate is computed from the spec's values (an expression
    /// `dir_writer::computed_gate` accepts): the expression.
    pub(crate) computed_gates: Vec<Option<Expr>>,
}

impl Plan<'_> {
    /// The rules of `o`'s fields (`Owner::Record`: the records of directory `d`).
    pub(crate) fn rules_mut(&mut self, o: Owner, d: usize) -> Option<&mut Vec<Rule>> {
        match o {
            Owner::Header => Some(&mut self.header),
            Owner::Located(k) => self.records.get_mut(k),
            Owner::Record => self.dirs.get_mut(d).map(|x| &mut x.entry),
            Owner::Element(..) => None,
        }
    }
    /// Derive `what` into the fields named (a record's: of directory 0).
    pub(crate) fn assign(&mut self, t: (Owner, Vec<(usize, Part)>), what: &What) {
        self.assign_in(0, t, what);
    }
    /// Derive `what` into the fields named (a record's: of directory `d`).
    pub(crate) fn assign_in(
        &mut self,
        d: usize,
        (o, fields): (Owner, Vec<(usize, Part)>),
        what: &What,
    ) {
        if let Some(rules) = self.rules_mut(o, d) {
            for (i, part) in fields {
                if let Some(r) = rules.get_mut(i) {
                    *r = Rule::Derived(what.clone(), part);
                }
            }
        }
    }
}
