//! Emission of `table[expr].field` (`check/index.rs`): the index bound to `__at`, then the
//! record's field read; a key's index (`table[field == value]`) found by a search first.

use proc_macro2::TokenStream;
use quote::quote;

use crate::check::Scope;
use crate::check::index::path;
use crate::emit::{Em, Env};
use crate::expr::Expr;

/// `u64` tokens (with `?`) for `table[index].field`: the index is computed once into
/// `__at`, then the record is read as `<table>.N.<field>` reads record `N`.
pub(crate) fn emit(
    em: &Em<'_>,
    (table, index, field): (&str, &Expr, &[String]),
    scope: Scope<'_>,
    env: &Env,
) -> TokenStream {
    let i = match index {
        Expr::Key(key, value) => search(em, (table, key, value), scope, env),
        _ => em.inner(index, scope, env),
    };
    let leaf = em.leaf(&path(table, field), scope, env);
    quote!({
        let __at: u64 = #i;
        #leaf
    })
}

/// `u64` tokens (with `?`) for the index of `table[key == value]`: the value computed once
/// into `__key`, then the records' keys read in order from the first until one equals it
/// (`npuschema_core::find_first`). The first index past the table's count (or a key with no
/// value) ends the search with `None`, so the work is at most one key read per record.
fn search(
    em: &Em<'_>,
    (table, key, value): (&str, &[String], &Expr),
    scope: Scope<'_>,
    env: &Env,
) -> TokenStream {
    let v = em.inner(value, scope, env);
    let k = em.leaf(&path(table, key), scope, env);
    quote!({
        let __key: u64 = #v;
        __rt::find_first(|__at| Some(#k == __key))?
    })
}

/// The record view at the computed index `__at` of the table in `var` (a slice of
/// records, `order` its view's byte order when in the file's): `None` (the check fails)
/// when there is no such record.
pub(crate) fn element_base(
    rec: &proc_macro2::Ident,
    var: &proc_macro2::Ident,
    order: &TokenStream,
) -> TokenStream {
    quote!((#rec {
        raw: #var.get(usize::try_from(__at).ok()?)?,
        buf,
        index: u32::try_from(__at).unwrap_or(u32::MAX)
        #order
    }))
}
