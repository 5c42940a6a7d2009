//! The plain writer's side of `check/trailer.rs`: a trailer at `len - E` goes right after what
//! precedes it (the file ends E bytes later), and a range of a fixed length gets exactly that
//! many bytes (`WriteError::WrongLength` otherwise); a table at `len - E` goes right after what
//! precedes it too, its records taking E bytes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::{Checked, Scope};
use crate::schema::{Range, Table};

/// The plan's check that a range of a fixed length was given that many bytes (nothing for
/// another range).
pub(crate) fn length_check(c: &Checked, r: &Range) -> TokenStream {
    let Some(e) = crate::check::trailer::fixed_length(c, r) else {
        return quote!();
    };
    let name = format_ident!("{}", r.name.text);
    let item = r.name.text.as_str();
    if let Some(v) = crate::emit::plain_tokens(c, e, Scope::Top) {
        return quote! {{
            let want: u64 = #v;
            if self.#name.len() as u64 != want {
                return Err(__rt::WriteError::WrongLength { range: #item, expected: want, given: self.#name.len() as u64 });
            }
        }};
    }
    let v = crate::emit::value_tokens(c, e, Scope::Top);
    quote! {
        match #v {
            Some(n) if n == self.#name.len() as u64 => {}
            n => return Err(__rt::WriteError::WrongLength { range: #item, expected: n.unwrap_or(u64::MAX), given: self.#name.len() as u64 }),
        }
    }
}

/// The plan's check that the records given to a table at `len - E` take E bytes when E is a
/// constant (`WriteError::WrongLength`; nothing when E is its count times its record size).
pub(crate) fn table_check(
    c: &Checked,
    t: &Table,
    end: &crate::check::trailer::TableEnd<'_>,
) -> TokenStream {
    let crate::check::trailer::TableEnd::Const(e) = end else {
        return quote!();
    };
    let recs = crate::emit::when_writer::records(c, t);
    let size =
        proc_macro2::Literal::u64_suffixed(c.layouts.get(&t.record.text).map_or(0, |l| l.size));
    let item = t.name.text.as_str();
    let want = match crate::emit::plain_tokens(c, e, Scope::Top) {
        Some(v) => quote!(let want: u64 = #v;),
        None => {
            let v = crate::emit::value_tokens(c, e, Scope::Top);
            quote!(let want: u64 = #v.unwrap_or(u64::MAX);)
        }
    };
    quote! {
        #want
        match (#recs.len() as u64).checked_mul(#size) {
            Some(given) if given == want => {}
            given => return Err(__rt::WriteError::WrongLength { range: #item, expected: want, given: given.unwrap_or(u64::MAX) }),
        }
    }
}
