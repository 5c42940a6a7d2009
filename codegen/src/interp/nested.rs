//! The interpreter's side of struct-typed fields (`nested.rs`): a field inside one, read
//! from the checked layout (no emitter code), and the dynamic view's rows for every field
//! inside, each with its path (`header.pairs[2].a`).

use super::{Comp, FRef, FieldView, FileProg, State};
use crate::check::Leaf;
use crate::check::{FieldKind, Owner, Scope};

impl Comp<'_> {
    /// The read of a field inside a struct-typed field of `owner`'s struct: at the leaf's
    /// offset within that struct, with the leaf's own kind and byte order.
    pub(super) fn nested_ref(&self, owner: Owner, l: Leaf, scope: Scope<'_>) -> Option<FRef> {
        // The owner's struct must be the one the path was resolved in.
        self.owner_struct(owner, scope)?;
        let (_, f, kind) = self.c.leaf(l)?;
        Some(FRef {
            own: Self::own(owner),
            st: l.strukt,
            fi: l.field,
            off: l.at,
            kind,
            big: f.big,
        })
    }
}

/// The rows of a struct-typed field at `at` (absolute) of the record at `path`: one per
/// field inside, arrays element by element.
pub(super) fn rows(
    p: &FileProg<'_>,
    st: &State<'_>,
    path: &str,
    name: &str,
    at: u64,
    kind: FieldKind,
) -> Vec<FieldView> {
    let c = p.c;
    crate::check::nested::leaves(&c.schema, &c.layouts, at, kind, name)
        .into_iter()
        .filter_map(|(rel, fat, si, fi)| {
            let s = c.schema.structs.get(si)?;
            let f = s.fields.get(fi)?;
            let k = c.layouts.get(&s.name.text)?.fields.get(fi)?.1;
            let (raw, value) = super::view::decode(p, st.buf, fat, k, f.big);
            Some(FieldView {
                path: format!("{path}.{rel}"),
                name: rel,
                offset: fat,
                size: k.width(&c.schema),
                raw,
                value,
            })
        })
        .collect()
}
