//! Emission of the `fill` step (`check/fill.rs`): every byte of the span equals the value.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::Scope;
use crate::check::fill::byte_value;
use crate::emit::{Blame, Det, Em, Env, Idx};
use crate::schema::fill::{FillStep, Span};

/// The step in a validator: a range error when `from..to` is no span of the buffer, then
/// the first byte that differs, as a `Mismatch` at its offset.
pub(crate) fn emit_step(em: &Em<'_>, s: &FillStep, scope: Scope<'_>, env: &Env) -> TokenStream {
    let code = &s.code.text;
    let bv = byte_value(em.c, s).unwrap_or(0);
    let byte = Literal::u8_suffixed(bv);
    let fname = s.field_name();
    let blame = |base: TokenStream| match scope {
        Scope::Record(t) => Blame::record(&t.name.text, Idx::U64(quote!(index)), &fname, base, 0),
        _ => Blame::at(&fname, base),
    };
    let bad = em.fail(
        code,
        &blame(quote!(
            start.saturating_add(u64::try_from(i).unwrap_or(u64::MAX))
        )),
        Det::Mismatch(quote!(u64::from(b)), quote!(u64::from(#byte))),
    );
    let scan = quote! {
        if let Some((i, &b)) = bytes.iter().enumerate().find(|(_, b)| **b != #byte) {
            return #bad;
        }
    };
    match &s.span {
        Span::Range(r) => {
            let Some(rd) =
                em.c.schema
                    .file
                    .ranges
                    .iter()
                    .find(|x| x.name.text == r.text)
            else {
                return quote!();
            };
            let var = format_ident!("{}", r.text);
            // Its `range_fits` computed the offset: a plain value, or one that cannot fail now.
            let start = match em.infallible(&rd.offset.expr, Scope::Top, env) {
                Some(p) => p,
                None => {
                    let v = em.value(&rd.offset.expr, Scope::Top, env);
                    quote!(#v.unwrap_or(0))
                }
            };
            let comment = format!(
                "@step {code}: every byte of range `{}` must be {bv:#04x}.",
                r.text
            );
            quote! {
                #[doc = #comment]
                {
                    let bytes: &'a [u8] = #var;
                    let start: u64 = #start;
                    #scan
                }
            }
        }
        Span::FromTo { from, to } => {
            let f = em.value(&from.expr, scope, env);
            let t = em.value(&to.expr, scope, env);
            let out = em.fail(
                code,
                &blame(quote!(from.unwrap_or(0))),
                Det::Range(
                    quote!(from.unwrap_or(u64::MAX)),
                    quote!(
                        to.zip(from)
                            .and_then(|(t, f)| t.checked_sub(f))
                            .unwrap_or(u64::MAX)
                    ),
                    "len".to_string(),
                    quote!(len),
                ),
            );
            let comment = format!(
                "@step {code}: bytes `{}` to `{}` must lie in the buffer and each be {bv:#04x}.",
                from.text, to.text
            );
            quote! {
                #[doc = #comment]
                {
                    let from: Option<u64> = #f;
                    let to: Option<u64> = #t;
                    let bytes: Option<&'a [u8]> = match (from, to) {
                        (Some(f), Some(t)) => match (usize::try_from(f), usize::try_from(t)) {
                            (Ok(f), Ok(t)) => buf.get(f..t),
                            _ => None,
                        },
                        _ => None,
                    };
                    let Some(bytes) = bytes else {
                        return #out;
                    };
                    let start: u64 = from.unwrap_or(0);
                    #scan
                }
            }
        }
    }
}
