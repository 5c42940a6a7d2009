//! The one writer plan type: what every writer writes, in the lowered layout model's terms
//! (`model.rs`).

use crate::check::{Leaf, Owner};
use crate::expr::Expr;
use crate::model::{Item, Placement, Rule};
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
/// a [`Rule`] for every field it writes. `check/dir_writer.rs`'s `analyse` makes it for
/// every file with a writer (one without a section directory has no `dirs`), and
/// `emit/dir_writer.rs` writes it.
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
