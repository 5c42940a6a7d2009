//! A writer's top-level checksum whose span reads a located record's field
//! (`check/located_span.rs`): in `seal`, each such record is found where its `at` says over the
//! header as written (`header` bound before), read back from the bytes being sealed (a
//! copy, so `out` can be written after; a version-gated record in the layout of its gate)
//! and bound by its name, as the span's expression code reads it. A record not inside `out` is `WriteError::Layout` naming it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::{Checked, Scope};

/// The bindings of the located records checksum `k`'s span reads (empty for none).
pub(crate) fn bind(c: &Checked, k: &crate::schema::Checksum) -> TokenStream {
    let file = &c.schema.file;
    let mut out = Vec::new();
    for j in crate::check::located_span::span_records(c, k) {
        let Some(r) = file.ext.records.get(j) else {
            continue;
        };
        let at = crate::emit::value_tokens(c, &r.at.expr, Scope::Top);
        let item = r.name.text.as_str();
        match &r.gate {
            // In the layout of its gate, over the header as written.
            Some(g) => {
                let gv = crate::emit::value_tokens(c, &g.expr, Scope::Top);
                let gate = format_ident!("{}_gate", r.name.text);
                out.push(quote! {
                    let #gate: u64 = #gv.ok_or(__rt::WriteError::Layout { item: #item })?;
                });
                out.push(crate::emit::record_writer::read_back(
                    c,
                    r,
                    &at,
                    Some(&gate),
                ));
            }
            None => out.push(crate::emit::record_writer::read_back(c, r, &at, None)),
        }
    }
    quote!(#(#out)*)
}
