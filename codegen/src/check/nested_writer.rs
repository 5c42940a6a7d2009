//! The checks of writers for struct-typed fields (`inner: Inner`, `pairs: "Pair[4]"`,
//! `check/nested.rs`): the names of the value types every struct held by a field gets
//! (`<Struct>Value`). Emitted by `emit/nested_writer.rs` (which also sets a flag bit inside
//! one that says a record carries a per-record range's bytes).

use crate::check::{Checked, FieldKind};
use crate::yaml::Pos;

/// The structs some field has as its type (index into `Schema::structs`), in schema order.
pub(crate) fn used(c: &Checked) -> Vec<usize> {
    let mut out = Vec::new();
    for st in &c.schema.structs {
        let Some(l) = c.layouts.get(&st.name.text) else {
            continue;
        };
        for (_, k) in &l.fields {
            if let FieldKind::Struct(i, _) | FieldKind::Structs(i, _, _) = k
                && !out.contains(i)
            {
                out.push(*i);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The names of the value types, with where the struct is named, for the checker's list of
/// generated types (two of one name would not compile).
pub(crate) fn generated_names(c: &Checked) -> Vec<(String, Pos, String)> {
    used(c)
        .into_iter()
        .filter_map(|si| c.schema.structs.get(si))
        .map(|st| {
            (
                format!("{}Value", st.name.text),
                st.name.pos,
                format!("the writer's value of struct `{}`", st.name.text),
            )
        })
        .collect()
}
