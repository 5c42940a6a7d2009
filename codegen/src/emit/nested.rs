//! Emission for struct-typed fields (`check/nested.rs`): the view accessors (`inner()`,
//! `pairs()` and `pairs_at(i)`) and the reads of a field inside one in expressions.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::nested::{split_index, tail};
use crate::check::{FieldKind, Leaf, Owner};
use crate::emit::{Em, Env, widen};
use crate::schema::{FieldDef, IntTy};

fn lit(v: u64) -> Literal {
    Literal::usize_unsuffixed(usize::try_from(v).unwrap_or(usize::MAX))
}

/// The accessors of a struct-typed field and its `Debug` entry, or `None` for any other
/// field. The inner view borrows the field's bytes from the outer view's array (in bounds
/// by construction, so the fallback is never taken): nothing is copied, nothing can panic.
pub(crate) fn accessors(
    em: &Em<'_>,
    f: &FieldDef,
    kind: FieldKind,
    off: u64,
) -> Option<(Vec<TokenStream>, TokenStream)> {
    let (si, size, count) = match kind {
        FieldKind::Struct(si, size) => (si, size, None),
        FieldKind::Structs(si, size, n) => (si, size, Some(n)),
        _ => return None,
    };
    let st = em.c.schema.structs.get(si)?;
    let ty = format_ident!("{}", st.name.text);
    let name = format_ident!("{}", f.name.text);
    let fname = f.name.text.as_str();
    let n = lit(size);
    let doc = format!("{}\n\n", f.doc);
    let doc = doc.trim_start();
    Some(match count {
        None => {
            let o = lit(off);
            let d = crate::emit::doc::doc_attr(&format!(
                "{doc}The `{}` at byte {off:#x}, a view over its {size} bytes.",
                st.name.text
            ));
            (
                vec![quote! {
                    #d
                    #[inline]
                    #[must_use]
                    pub fn #name(&self) -> #ty<'a> {
                        #ty {
                            raw: match self.raw.get(#o..).and_then(|s| s.first_chunk::<#n>()) { Some(b) => b, None => &[0u8; #n] },
                            buf: self.buf,
                            index: self.index,
                        }
                    }
                }],
                quote!(.field(#fname, &self.#name())),
            )
        }
        Some(k) => {
            let at = format_ident!("{}_at", f.name.text);
            let o = Literal::u64_suffixed(off);
            let sz = Literal::u64_suffixed(size);
            let kk = Literal::u64_suffixed(k);
            let ku = lit(k);
            let d = crate::emit::doc::doc_attr(&format!(
                "{doc}The {k} `{}` elements from byte {off:#x}, {size} bytes each, in order.",
                st.name.text
            ));
            let da = crate::emit::doc::doc_attr(&format!(
                "Element `i` of `{fname}` (a view over its {size} bytes), `None` when `i` is {k} or more."
            ));
            (
                vec![
                    quote! {
                        #da
                        #[inline]
                        #[must_use]
                        pub fn #at(&self, i: usize) -> Option<#ty<'a>> {
                            let i = u64::try_from(i).ok()?;
                            if i >= #kk {
                                return None;
                            }
                            let start = usize::try_from(i.checked_mul(#sz)?.checked_add(#o)?).ok()?;
                            let raw = self.raw.get(start..)?.first_chunk::<#n>()?;
                            Some(#ty { raw, buf: self.buf, index: self.index })
                        }
                    },
                    quote! {
                        #d
                        #[inline]
                        pub fn #name(&self) -> impl Iterator<Item = #ty<'a>> + Clone + use<'a> {
                            let this = *self;
                            (0..#ku).filter_map(move |i| this.#at(i))
                        }
                    },
                ],
                quote!(.field(#fname, &__rt::DebugList(self.#name()))),
            )
        }
    })
}

/// `u64` tokens (with `?` where a step can fail) reading the leaf of a path through
/// struct-typed fields: `header.pairs_at(2)?.a()`.
pub(crate) fn leaf(em: &Em<'_>, path: &[String], owner: Owner, l: Leaf, env: &Env) -> TokenStream {
    let Some((_, f, kind)) = em.c.leaf(l) else {
        return quote!(0u64);
    };
    let segs = tail(path, owner);
    let acc = chain(
        em,
        owner,
        segs.get(..segs.len().saturating_sub(1)).unwrap_or(&[]),
        env,
    );
    let name = format_ident!("{}", f.name.text);
    match kind {
        FieldKind::Int(t) if t.signed() => quote!(u64::try_from(#acc.#name()).ok()?),
        FieldKind::Int(t) => widen(t, quote!(#acc.#name())),
        FieldKind::Float(w) => widen(
            if w { IntTy::U64 } else { IntTy::U32 },
            quote!(#acc.#name().to_bits()),
        ),
        FieldKind::Enum(e) => {
            let raw = format_ident!("{}_raw", f.name.text);
            widen(
                em.c.schema.enums.get(e).map_or(IntTy::U64, |x| x.repr),
                quote!(#acc.#raw()),
            )
        }
        k @ (FieldKind::Flags(_) | FieldKind::Bits(_)) => widen(
            k.int_ty(&em.c.schema).unwrap_or(IntTy::U64),
            quote!(#acc.#name().bits()),
        ),
        _ => quote!(0u64),
    }
}

/// `bool` tokens for a flag bit of a flags field inside struct-typed fields
/// (`header.stamp.flags.ON`): `false` when an element on the way is missing (never, the
/// index being checked against the array's length).
pub(crate) fn cond(em: &Em<'_>, path: &[String], owner: Owner, l: Leaf, env: &Env) -> TokenStream {
    let (Some(bi), Some((_, f, FieldKind::Flags(fl)))) = (l.bit, em.c.leaf(l)) else {
        return quote!(false);
    };
    let Some(flags) = em.c.schema.flags.get(fl) else {
        return quote!(false);
    };
    let Some(bit) = flags.bits.get(bi) else {
        return quote!(false);
    };
    let ty = format_ident!("{}", flags.name.text);
    let b = format_ident!("{}", bit.name.text);
    let name = format_ident!("{}", f.name.text);
    // The path without its bit: the chain of accessors to the flags field's struct.
    let segs = tail(path, owner);
    let acc = chain(
        em,
        owner,
        segs.get(..segs.len().saturating_sub(2)).unwrap_or(&[]),
        env,
    );
    let read = quote!(#acc.#name().contains(#ty::#b));
    if read.to_string().contains('?') {
        quote!(matches!((|| -> Option<bool> { Some(#read) })(), Some(true)))
    } else {
        read
    }
}

/// The accessor chain from the owner's view through `segs` (each a struct-typed field,
/// `inner` or `pairs[2]`); `?` after an element's accessor.
fn chain(em: &Em<'_>, owner: Owner, segs: &[String], env: &Env) -> TokenStream {
    let mut acc = em.base(owner, env);
    for seg in segs {
        acc = match split_index(seg) {
            (name, None) => {
                let n = format_ident!("{}", name);
                quote!(#acc.#n())
            }
            (name, Some(k)) => {
                let n = format_ident!("{}_at", name);
                let k = lit(k);
                quote!(#acc.#n(#k)?)
            }
        };
    }
    acc
}
