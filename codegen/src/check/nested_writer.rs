//! The checks of writers for struct-typed fields (`inner: Inner`, `pairs: "Pair[4]"`,
//! `check/nested.rs`): the names of the value types every struct held by a field gets
//! (`<Struct>Value`), and what a writer still cannot write inside one. Emitted by
//! `emit/nested_writer.rs`.

use crate::check::{Checked, FieldKind, Resolved, Scope};
use crate::diag::Diags;
use crate::expr::Expr;
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

/// The writer cannot set a flag bit inside a struct-typed field when a record carries a
/// range's bytes (it sets a flags field of the record itself): refused at the `when`.
pub(crate) fn check(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    if file.writer.is_none() {
        return;
    }
    for r in &file.ranges {
        let (Some(t), Some(w)) = (&r.table, &r.when) else {
            continue;
        };
        let Some(t) = file.tables.iter().find(|x| x.name.text == t.text) else {
            continue;
        };
        if let Expr::Ref(p) = &w.expr
            && let Ok(Resolved::Nested(_, l)) = c.resolve(p, Scope::RecordOnly(t))
            && l.bit.is_some()
        {
            d.error(
                w.pos,
                format!(
                    "range `{}`: its `when` is a flag bit inside a struct-typed field (`{}`), which the writer cannot set for a record that carries the bytes yet; use a flags field of the record itself, or drop `writer`",
                    r.name.text, w.text
                ),
            );
        }
    }
}
