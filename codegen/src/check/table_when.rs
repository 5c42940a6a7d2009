//! Which tables are optional: a table whose `table_fits` step (at the top of `validate`)
//! has `when`. A leaf of the check phase (importing no writer module), read by the writers'
//! plans (`when_writer.rs`, `optional_parts.rs`, `linform.rs`).

use crate::check::Checked;
use crate::expr::ExprAt;
use crate::schema::Table;
use crate::schema::top::Step;

/// The tables whose `table_fits` step (at the top of `validate`) has `when`, with the
/// condition.
pub(crate) fn when_tables(c: &Checked) -> Vec<(&Table, &ExprAt)> {
    c.schema
        .file
        .validate
        .iter()
        .filter_map(|s| match s {
            Step::When { when, step } => match &**step {
                Step::TableFits { table, .. } => c.table(&table.text).map(|t| (t, when)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The condition of table `t`'s `table_fits`, when it has one (the writer's part is
/// optional then).
pub(crate) fn table_when<'a>(c: &'a Checked, t: &Table) -> Option<&'a ExprAt> {
    when_tables(c)
        .into_iter()
        .find(|(x, _)| x.name.text == t.name.text)
        .map(|(_, w)| w)
}
