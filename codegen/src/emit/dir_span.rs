//! A directory writer's top-level checksum whose span reads a located record's field
//! (`check/dir_span.rs`): in `seal`, each such record is found where its `at` says over the
//! header as written (`header` bound before), read back from the bytes being sealed (a
//! copy, so `out` can be written after; a version-gated record in the layout of its gate)
//! and bound by its name, as the span's expression code reads it. A record not inside `out` is `WriteError::Layout` naming it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::{Checked, Scope};
use crate::emit::lit_usize;

/// The bindings of the located records checksum `k`'s span reads (empty for none).
pub(crate) fn bind(c: &Checked, k: &crate::schema::Checksum) -> TokenStream {
    let file = &c.schema.file;
    let mut out = Vec::new();
    for j in crate::check::dir_span::span_records(c, k) {
        let Some(r) = file.ext.records.get(j) else {
            continue;
        };
        let n = lit_usize(c.layouts.get(&r.strukt.text).map_or(0, |l| l.size));
        let ty = format_ident!("{}", r.strukt.text);
        let v = format_ident!("{}", r.name.text);
        let bytes = format_ident!("{}_bytes", r.name.text);
        let at = crate::emit::value_tokens(c, &r.at.expr, Scope::Top);
        let item = r.name.text.as_str();
        if let Some(g) = &r.gate {
            // In the layout of its gate, over the header as written: the bytes its size for
            // that gate takes, the rest of the copy zero.
            let gv = crate::emit::value_tokens(c, &g.expr, Scope::Top);
            let gate = format_ident!("{}_gate", r.name.text);
            out.push(quote! {
                let #gate: u64 = #gv.ok_or(__rt::WriteError::Layout { item: #item })?;
                let m = usize::try_from(#ty::size_for(#gate)).unwrap_or(usize::MAX).min(#n);
                let #bytes: [u8; #n] = {
                    let src = #at
                        .and_then(|a| usize::try_from(a).ok())
                        .and_then(|a| out.get(a..))
                        .and_then(|s| s.get(..m))
                        .ok_or(__rt::WriteError::Layout { item: #item })?;
                    let mut b = [0u8; #n];
                    if let Some(d) = b.get_mut(..m) {
                        d.copy_from_slice(src);
                    }
                    b
                };
                let #v = #ty { raw: #bytes.get(..m).unwrap_or(&[]), buf: &#bytes, index: 0, gate: #gate };
                let _ = &#v;
            });
            continue;
        }
        out.push(quote! {
            let #bytes: [u8; #n] = #at
                .and_then(|a| usize::try_from(a).ok())
                .and_then(|a| out.get(a..))
                .and_then(<[u8]>::first_chunk::<#n>)
                .copied()
                .ok_or(__rt::WriteError::Layout { item: #item })?;
            let #v = #ty { raw: &#bytes, buf: &#bytes, index: 0 };
            let _ = &#v;
        });
    }
    quote!(#(#out)*)
}
