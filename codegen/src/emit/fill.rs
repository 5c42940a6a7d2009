//! Emission of the `fill` and `same_bytes` steps (`check/fill.rs`): every byte of the span
//! equals the value, or the byte at the same distance from the other place.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::Scope;
use crate::check::fill::byte_value;
use crate::emit::{Blame, Det, Em, Env, Idx};
use crate::schema::fill::{FillStep, Span, Value};

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
    let at_i = blame(quote!(
        start.saturating_add(u64::try_from(i).unwrap_or(u64::MAX))
    ));
    let (what, scan) = match &s.value {
        Value::Byte(_) => {
            let bad = em.fail(
                code,
                &at_i,
                Det::Mismatch(quote!(u64::from(b)), quote!(u64::from(#byte))),
            );
            (
                format!("each be {bv:#04x}"),
                quote! {
                    if let Some((i, &b)) = bytes.iter().enumerate().find(|(_, b)| **b != #byte) {
                        return #bad;
                    }
                },
            )
        }
        Value::Same(other) => {
            let bad = em.fail(
                code,
                &at_i,
                Det::Mismatch(quote!(u64::from(b)), quote!(u64::from(e))),
            );
            (
                format!("equal the bytes at `{}`", other.text),
                quote! {
                    if let Some((i, (&b, &e))) = bytes.iter().zip(same).enumerate().find(|(_, (b, e))| b != e) {
                        return #bad;
                    }
                },
            )
        }
    };
    // `same_bytes`: the other bytes, as many, in the buffer (a range error at that place).
    let same = match &s.value {
        Value::Byte(_) => quote!(),
        Value::Same(other) => {
            // A place that cannot fail to compute is a plain `u64`.
            let (bind, base, start, find) = match em.infallible(&other.expr, scope, env) {
                Some(p) => (
                    quote!(let at: u64 = #p;),
                    quote!(at),
                    quote!(at),
                    quote!(__rt::range_at(buf, at, n)),
                ),
                None => {
                    let v = em.value(&other.expr, scope, env);
                    (
                        quote!(let at: Option<u64> = #v;),
                        quote!(at.unwrap_or(0)),
                        quote!(at.unwrap_or(u64::MAX)),
                        quote!(at.and_then(|a| __rt::range_at(buf, a, n))),
                    )
                }
            };
            let out = em.fail(
                code,
                &blame(base),
                Det::Range(start, quote!(n), "len".to_string(), quote!(len)),
            );
            quote! {
                #bind
                let n: u64 = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
                let Some(same) = #find else {
                    return #out;
                };
            }
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
            let comment = format!("@step {code}: the bytes of range `{}` must {what}.", r.text);
            quote! {
                #[doc = #comment]
                {
                    let bytes: &'a [u8] = #var;
                    let start: u64 = #start;
                    #same
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
                "@step {code}: bytes `{}` to `{}` must lie in the buffer and {what}.",
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
                    #same
                    #scan
                }
            }
        }
    }
}
