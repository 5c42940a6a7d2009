//! Emission of a linear form of one field (`check/linform.rs`): the statements that solve a
//! value for the field, and the first place at or after a cursor that the field can store.
//! Shared by the record stream's writer (`stream.rs`) and the file's (`file_writer.rs`): an
//! item whose place a field stores as `F * K ± C` goes to the first place at or after the
//! (aligned) cursor that the form can store (`place`, over the plan); a section's payload
//! likewise, inside its placing function (`payload_place`). The field itself is solved where
//! its record is written (`record_writer.rs`, `Part::Lin`).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::check::linform::LinForm;
use crate::lower::plan::{DirPlan, Plan};
use crate::model::{Item, Part, Rule, What};

/// Statements that turn `v` (a `u64`, the value the writer needs) into the field's value:
/// `v - C` then divided by K, or `v + C` then divided by K; a value no field value gives is
/// `WriteError::NotRepresentable { field: path, value }`, one past `u64` `TooLarge` (`value`:
/// tokens of the value as stated, for the error).
pub(crate) fn solve<F>(f: &LinForm<F>, path: &str, value: &TokenStream) -> TokenStream {
    let mut t = TokenStream::new();
    if f.plus > 0 {
        let p = Literal::u64_suffixed(f.plus);
        t.extend(quote! {
            let v = v.checked_sub(#p).ok_or(__rt::WriteError::NotRepresentable { field: #path, value: #value })?;
        });
    }
    if f.minus > 0 {
        let m = Literal::u64_suffixed(f.minus);
        t.extend(quote! {
            let v = v.checked_add(#m).ok_or(__rt::WriteError::TooLarge { field: #path, value: #value })?;
        });
    }
    if f.mul > 1 {
        let k = Literal::u64_suffixed(f.mul);
        t.extend(quote! {
            let v = match (v.checked_rem(#k), v.checked_div(#k)) {
                (Some(0), Some(q)) => q,
                _ => return Err(__rt::WriteError::NotRepresentable { field: #path, value: #value }),
            };
        });
    }
    t
}

/// A `u64` expression (it may return `TooLarge { field: item }` with `?`): the first place at
/// or after `start` (a `u64` variable) that the form can store: at least C for `F + C`, and
/// one whose value plus the form's `- C` (minus its `+ C`) is a multiple of K. With K = 1 and
/// no `+ C`, `start` itself.
pub(crate) fn place<F>(f: &LinForm<F>, start: &TokenStream, item: &str) -> TokenStream {
    if f.mul <= 1 {
        return match f.plus {
            0 => start.clone(),
            p => {
                let p = Literal::u64_suffixed(p);
                quote!(#start.max(#p))
            }
        };
    }
    let (at_least, chain) = rounded(f);
    quote! {
        {
            let p: u64 = #start;
            #at_least
            #chain.ok_or(__rt::WriteError::TooLarge { field: #item, value: p })?
        }
    }
}

/// Where the writer puts a record's bytes of per-record range `r`, the cursor being `cur`
/// (a `u64` variable): the cursor aligned to `align`, then, when the range's offset is a
/// linear form of a record field, the first place the form can store ([`place`]). Every
/// writer places a per-record range so (the plain writer's tables, the directory writer's
/// other tables and its directory's other per-record ranges).
pub(crate) fn record_range_at(
    c: &crate::check::Checked,
    r: &crate::schema::Range,
    cur: &TokenStream,
    align: &proc_macro2::Literal,
    item: &str,
) -> TokenStream {
    let at = quote!(__rt::aligned(#cur, #align, #item)?);
    match crate::check::linform::record_place_form(c, r) {
        Some(f) => place(&f, &at, item),
        None => at,
    }
}

/// [`place`] as an `Option<u64>` expression (`None` past `u64`), for code that returns an
/// `Option` (the directory writer's payload placing function).
pub(crate) fn place_opt<F>(f: &LinForm<F>, start: &TokenStream) -> TokenStream {
    if f.mul <= 1 {
        return match f.plus {
            0 => quote!(Some(#start)),
            p => {
                let p = Literal::u64_suffixed(p);
                quote!(Some(#start.max(#p)))
            }
        };
    }
    let (at_least, chain) = rounded(f);
    quote! {
        {
            let p: u64 = #start;
            #at_least
            #chain
        }
    }
}

/// For K > 1: the statement raising `p` to at least C (`F + C`), and the `Option<u64>` chain
/// over `p` that rounds it to the next place the form stores: o = p + minus - plus (p >=
/// plus), rounded up to a multiple of K, back to a place.
fn rounded<F>(f: &LinForm<F>) -> (Option<TokenStream>, TokenStream) {
    let at_least = (f.plus > 0).then(|| {
        let p = Literal::u64_suffixed(f.plus);
        quote!(let p = p.max(#p);)
    });
    let k = Literal::u64_suffixed(f.mul);
    let k1 = Literal::u64_suffixed(f.mul - 1);
    let pl = Literal::u64_suffixed(f.plus);
    let m = Literal::u64_suffixed(f.minus);
    let mut ops = Vec::new();
    if f.minus > 0 {
        ops.push(quote!(checked_add(#m)));
    }
    if f.plus > 0 {
        ops.push(quote!(checked_sub(#pl)));
    }
    ops.push(quote!(checked_add(#k1)));
    ops.push(quote!(checked_div(#k)));
    ops.push(quote!(checked_mul(#k)));
    if f.plus > 0 {
        ops.push(quote!(checked_add(#pl)));
    }
    if f.minus > 0 {
        ops.push(quote!(checked_sub(#m)));
    }
    let mut chain = TokenStream::new();
    for (i, op) in ops.iter().enumerate() {
        if i == 0 {
            chain = quote!(p.#op);
        } else {
            chain = quote!(#chain.and_then(|o| o.#op));
        }
    }
    (at_least, chain)
}

/// Statements that solve `want` (a `u64` expression) through the form and store the field's
/// value as `ity` at `off` of `buf` (an array variable) in byte order `big`: `TooLarge` when
/// the field cannot hold it. Also used for a table record's fields (`writer.rs`'s
/// `table_code`), with `buf` the record.
pub(crate) fn solved_store<F>(
    f: &LinForm<F>,
    want: &TokenStream,
    (off, ity, big): (u64, crate::schema::IntTy, bool),
    path: &str,
    buf: &TokenStream,
) -> TokenStream {
    let o = Literal::usize_unsuffixed(usize::try_from(off).unwrap_or(0));
    let solve = solve(f, path, &quote!(want));
    let store = crate::emit::store(&quote!(#o), ity, big, path, &quote!(&mut #buf));
    quote! {{
        let want: u64 = #want;
        let v = want;
        #solve
        #store
    }}
}

/// The linear form a field of the header or of a located record stores item `it`'s place
/// through, if one does.
pub(crate) fn place_form(plan: &Plan<'_>, it: Item) -> Option<LinForm<()>> {
    std::iter::once(&plan.header)
        .chain(&plan.records)
        .flatten()
        .find_map(|r| match r {
            Rule::Derived(What::Place(x), Part::Lin(f)) if *x == it => Some(*f),
            _ => None,
        })
}

/// `at` (a `u64` expression, the aligned cursor or a fixed place), moved to the first place
/// the form of item `it` can store when its place is stored through one.
pub(crate) fn item_place(plan: &Plan<'_>, it: Item, at: TokenStream, name: &str) -> TokenStream {
    match place_form(plan, it) {
        Some(f) => crate::emit::linform::place(&f, &at, name),
        None => at,
    }
}

/// The body of directory `x`'s payload placing function (an `Option<u64>`): `body` (the
/// aligned place), then, when the payload's offset is stored as a linear form of a record
/// field, the first place at or after it that the form can store.
pub(crate) fn payload_place(x: &DirPlan<'_>, body: TokenStream) -> TokenStream {
    let form = x.entry.iter().find_map(|r| match r {
        Rule::Derived(What::PayloadOffset, Part::Lin(f)) => Some(*f),
        _ => None,
    });
    match form {
        Some(f) => {
            let place = crate::emit::linform::place_opt(&f, &quote::quote!(at));
            quote::quote! {
                let at: u64 = { #body }?;
                #place
            }
        }
        None => body,
    }
}
