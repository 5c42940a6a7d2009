//! Emission of `record.<part>` (`check/recpos.rs`): the current record's position.

use proc_macro2::TokenStream;
use quote::quote;

use crate::check::RecPos;

/// `u64` tokens for a part, in a stream's `for_each` (where `__item` is the record).
pub(crate) fn emit(k: RecPos) -> TokenStream {
    let body_len = quote!(u64::try_from(__item.body().len()).unwrap_or(u64::MAX));
    match k {
        RecPos::Offset => quote!(__item.offset()),
        RecPos::BodyOffset => quote!(__item.body_offset()),
        RecPos::BodyLen => body_len,
        RecPos::End => quote!(__item.body_offset().saturating_add(#body_len)),
        RecPos::Depth => quote!(u64::from(__item.depth())),
        RecPos::Index => quote!(u64::from(__item.index())),
    }
}
