//! The interpreter's side of struct-typed fields (`nested.rs`): a field inside one, read
//! from the checked layout (no emitter code), and the dynamic view's rows for every field
//! inside, each with its path (`header.pairs[2].a`).

use super::compile::Comp;
use super::ir::*;
use crate::check::Leaf;
use crate::check::{Owner, Scope};

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
            file_order: f.file_order,
        })
    }
}
