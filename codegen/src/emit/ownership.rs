//! Emission of the `owned_apart` step (`check/ownership.rs`): the part instances are
//! numbered in declaration order; `npuschema_core::laid_in_order` walks them once (a file
//! laid out in order is apart), and only when it says no does
//! `npuschema_core::first_overlap` compare them pairwise, within the declared bound; the
//! emitted code only says where each instance lies and which error a pair of parts gives.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::Scope;
use crate::check::expr::single_field;
use crate::check::ownership::{Part, ownership, pair_names, pairs_of, parts};
use crate::emit::{Blame, Det, Em, Env, Opd, lit_u64_suffixed as lit_u64};
use crate::schema::Name;

fn ident(s: &str) -> proc_macro2::Ident {
    format_ident!("{}", s)
}

/// Where the error for a pair whose later instance is of `part` points: the header, the
/// record or table (at its start), or the range's offset field in its record (`index` and
/// `rec_at` bound to that record).
pub(crate) fn part_blame(em: &Em<'_>, name: &str, part: Part<'_>) -> Blame {
    let file = &em.c.schema.file;
    match part {
        Part::Header => Blame::plain("header", 0),
        Part::Record(i) => {
            let r = file
                .ext
                .records
                .get(i)
                .map_or(name, |r| r.name.text.as_str());
            let at = format_ident!("{}_at", r);
            Blame::at(r, quote!(#at))
        }
        Part::Table(i) => {
            let t = file.tables.get(i).map_or(name, |t| t.name.text.as_str());
            let at = format_ident!("{}_at", t);
            Blame::at(t, quote!(#at))
        }
        Part::Range(r, _, t) => em.blame(&r.offset.expr, Scope::Record(t)),
    }
}

/// Where the error for too many part instances points: the count of the first per-record
/// range's table (its start when the count is no single field), else the header.
pub(crate) fn too_many_blame(em: &Em<'_>, ps: &[(&str, Part<'_>)]) -> Blame {
    let first_range = ps.iter().find_map(|(_, p)| match p {
        Part::Range(_, _, t) => Some(*t),
        _ => None,
    });
    match first_range {
        Some(t) if single_field(em.c, &t.count.expr, Scope::Top).is_some() => {
            em.blame(&t.count.expr, Scope::Top)
        }
        Some(t) => {
            let at = format_ident!("{}_at", t.name.text);
            Blame::at(t.name.text.as_str(), quote!(#at))
        }
        None => Blame::plain("header", 0),
    }
}

/// The instance numbering of an ownership's parts, over locals the caller binds: `header`,
/// `buf`, each record `R` and `R_at`, each table `T` (its records) and `T_at`: binds the
/// counts `__own_n<j>` and their sum `__parts`, and the closures `__extent(k) -> (start,
/// end)` and `__which(k) -> (part, index)` (`move` closures when `mv`).
/// Returned with them: the counts' bindings alone, and the part instances in the same
/// order as one iterator of extents, each part walked directly (a per-record range over its
/// table's records), for `npuschema_core::laid_in_order`, the pass that finds a file laid
/// out in order apart without a call of `__extent` per instance.
fn instances(
    em: &Em<'_>,
    ps: &[(&str, Part<'_>)],
    mv: bool,
) -> (TokenStream, TokenStream, TokenStream) {
    let c = em.c;
    let file = &c.schema.file;
    let renv = Env {
        header: quote!(header),
        record: quote!(rec),
        found: Vec::new(),
    };
    // Each part's instance count and the extent of its instance `i`.
    let mut counts = Vec::new();
    let mut extents = Vec::new();
    for (_, p) in ps {
        let (n, e) = match *p {
            Part::Header => (
                quote!(1u64),
                quote!((
                    0u64,
                    u64::try_from(header.as_bytes().len()).unwrap_or(u64::MAX)
                )),
            ),
            Part::Record(i) => {
                let r = file.ext.records.get(i).map_or("", |r| r.name.text.as_str());
                let (v, at) = (ident(r), format_ident!("{}_at", r));
                (
                    quote!(1u64),
                    quote!((#at, #at.saturating_add(u64::try_from(#v.as_bytes().len()).unwrap_or(u64::MAX)))),
                )
            }
            Part::Table(i) => {
                let Some(t) = file.tables.get(i) else {
                    continue;
                };
                let (v, at) = (ident(&t.name.text), format_ident!("{}_at", t.name.text));
                let extent = crate::emit::table::shape(c, t).extent(&v);
                (
                    quote!(1u64),
                    quote!((#at, #at.saturating_add(u64::try_from(#extent).unwrap_or(u64::MAX)))),
                )
            }
            Part::Range(r, _, t) => {
                let v = ident(&t.name.text);
                let rec_ty = ident(&t.record.text);
                let scope = Scope::RecordOnly(t);
                let side = |e: &crate::expr::Expr| match em.plain(e, scope, &renv) {
                    Some(p) => p,
                    None => {
                        let v = em.value(e, scope, &renv);
                        quote!({ let v: Option<u64> = #v; v.unwrap_or(0) })
                    }
                };
                let (s, l) = (side(&r.offset.expr), side(&r.length.expr));
                let span = quote! {
                    let start: u64 = #s;
                    let length: u64 = #l;
                    (start, start.saturating_add(length))
                };
                let span = match &r.when {
                    Some(w) => {
                        let guard = crate::emit::strip_parens(em.cond(&w.expr, scope, &renv));
                        quote!(if #guard { #span } else { (0, 0) })
                    }
                    None => span,
                };
                (
                    quote!(u64::try_from(#v.len()).unwrap_or(u64::MAX)),
                    quote! {
                        match #v.get(usize::try_from(i).unwrap_or(usize::MAX)) {
                            Some(raw) => {
                                let rec = #rec_ty { raw, buf, index: u32::try_from(i).unwrap_or(u32::MAX) };
                                let _ = &rec;
                                #span
                            }
                            None => (0, 0),
                        }
                    },
                )
            }
        };
        counts.push(n);
        extents.push(e);
    }
    let nvars: Vec<_> = (0..ps.len())
        .map(|j| format_ident!("__own_n{}", j))
        .collect();
    let uses_i: Vec<bool> = ps
        .iter()
        .map(|(_, p)| matches!(p, Part::Range(..)))
        .collect();
    // Part by part: instance `__k` of this part, or `__k` less its count for the next.
    let last = ps.len().saturating_sub(1);
    let step_on = |j: usize, n: &proc_macro2::Ident| {
        if j < last {
            quote!(__k = __k.saturating_sub(#n);)
        } else {
            quote!()
        }
    };
    let ext_arms = extents
        .iter()
        .zip(&nvars)
        .zip(&uses_i)
        .enumerate()
        .map(|(j, ((e, n), ui))| {
            let bind = if *ui { quote!(let i = __k;) } else { quote!() };
            let next = step_on(j, n);
            quote! {
                if __k < #n { #bind return #e; }
                #next
            }
        });
    let which_arms = nvars.iter().enumerate().map(|(j, n)| {
        let next = step_on(j, n);
        let j = crate::emit::lit_usize(u64::try_from(j).unwrap_or(u64::MAX));
        quote! {
            if __k < #n { return (#j, __k); }
            #next
        }
    });
    let sum = nvars.iter().skip(1).fold(
        nvars.first().map_or(quote!(0u64), |n| quote!(#n)),
        |acc, n| quote!(#acc.saturating_add(#n)),
    );
    // The walk: a part of one instance is its extent; a per-record range, its table's
    // records in order.
    let walk_parts = extents.iter().zip(&nvars).zip(&uses_i).map(|((e, n), ui)| {
        if *ui {
            quote!(.chain((0..#n).map(|i: u64| #e)))
        } else {
            quote!(.chain(core::iter::once(#e)))
        }
    });
    let walk = quote!(core::iter::empty()#(#walk_parts)*);
    let mv = if mv { quote!(move) } else { quote!() };
    let count_binds = quote! {
        #(let #nvars: u64 = #counts;)*
        let __parts: u64 = #sum;
    };
    let binds = quote! {
        #count_binds
        let __extent = #mv |k: u64| -> (u64, u64) {
            let mut __k = k;
            #(#ext_arms)*
            (0, 0)
        };
        let __which = #mv |k: u64| -> (usize, u64) {
            let mut __k = k;
            #(#which_arms)*
            (usize::MAX, 0)
        };
    };
    (binds, count_binds, walk)
}

/// The `owned_apart` step.
pub fn step(em: &Em<'_>, code: &Name, too_many: &Name, name: &Name) -> TokenStream {
    let c = em.c;
    let Some(o) = ownership(c, &name.text) else {
        return quote!();
    };
    let ps = parts(c, o);
    let (bind, counts, walk) = instances(em, &ps, false);
    // The sites, in this order: too many, then each pair (later part, earlier part).
    let max = lit_u64(o.max);
    let fail_many = em.fail(
        &too_many.text,
        &too_many_blame(em, &ps),
        Det::Compare(
            Opd::Val(quote!(__parts)),
            Opd::Val(quote!(#max)),
            ["parts".into(), ">".into(), String::new()],
        ),
    );
    let mut pair_arms = Vec::new();
    let mut rec_arms = Vec::new();
    let pairs = pairs_of(&ps);
    for (j2, (n2, p2)) in ps.iter().enumerate() {
        let mut b = part_blame(em, n2, *p2);
        if let Part::Range(_, _, t) = p2 {
            // The later instance's record: where its blamed field is, and its index.
            let at = format_ident!("{}_at", t.name.text);
            let v = ident(&t.name.text);
            let off = crate::emit::table::shape(c, t).offset(&v, &quote!(i2));
            let j = crate::emit::lit_usize(u64::try_from(j2).unwrap_or(u64::MAX));
            rec_arms.push(quote!(#j => #at.saturating_add(#off),));
            b.index = crate::emit::Idx::Usize(quote!(ix));
        }
        for (j1, (n1, _)) in ps.iter().enumerate().take(j2 + 1) {
            if !pairs.contains(&(j1, j2)) {
                continue;
            }
            let f = em.fail(
                &code.text,
                &b,
                Det::Compare(Opd::Val(quote!(at)), Opd::Val(quote!(s1)), pair_names(n1)),
            );
            let pat = if pairs.last() == Some(&(j1, j2)) {
                quote!(_)
            } else {
                let (a, b) = (
                    crate::emit::lit_usize(u64::try_from(j1).unwrap_or(u64::MAX)),
                    crate::emit::lit_usize(u64::try_from(j2).unwrap_or(u64::MAX)),
                );
                quote!((#a, #b))
            };
            pair_arms.push(quote!(#pat => #f,));
        }
    }
    let rec_bind = if rec_arms.is_empty() {
        quote!(let _ = i2;)
    } else {
        quote! {
            let rec_at: u64 = match p2 { #(#rec_arms)* _ => 0 };
            let ix = usize::try_from(i2).unwrap_or(usize::MAX);
        }
    };
    let names: Vec<String> = o.parts.iter().map(|p| format!("`{}`", p.text)).collect();
    let comment = format!(
        "@step {}: no two of {} share a byte; at most {} part instances ({} otherwise, before any comparison). {}",
        code.text,
        names.join(", "),
        o.max,
        too_many.text,
        crate::emit::doc::flow(&o.doc)
    );
    // The check is a function of the view, called from the validator with the parts it
    // bound: the header, each record and its offset, each table and its offset.
    let file = &c.schema.file;
    let hty = c.header().map(|h| ident(&h.name.text));
    let mut params = vec![quote!(buf: &'a [u8]), quote!(header: #hty<'a>)];
    let mut args = vec![quote!(buf), quote!(header)];
    for (_, p) in &ps {
        match *p {
            Part::Record(i) => {
                let Some(r) = file.ext.records.get(i) else {
                    continue;
                };
                let Some(st) = c.strukt(&r.strukt.text) else {
                    continue;
                };
                let (v, at, ty) = (
                    ident(&r.name.text),
                    format_ident!("{}_at", r.name.text),
                    ident(&st.name.text),
                );
                params.push(quote!(#v: #ty<'a>, #at: u64));
                args.push(quote!(#v, #at));
            }
            Part::Table(i) | Part::Range(_, i, _) => {
                let Some(t) = file.tables.get(i) else {
                    continue;
                };
                let (v, at) = (ident(&t.name.text), format_ident!("{}_at", t.name.text));
                let ty = crate::emit::table::shape(c, t).ty();
                let a = quote!(#v, #at);
                if !args.iter().any(|x| x.to_string() == a.to_string()) {
                    params.push(quote!(#v: #ty, #at: u64));
                    args.push(a);
                }
            }
            Part::Header => {}
        }
    }
    let fname = format_ident!("owned_apart_{}", o.name.text);
    let in_order = format_ident!("owned_apart_{}_in_order", o.name.text);
    let fdoc = crate::emit::doc::lines(&comment.replacen("@step ", "", 1));
    let odoc = format!(
        " Part of [`Self::{fname}`]: whether the parts are laid out in order, as files are written (each starting at or after the end of all before it, so apart), within the bound, in one pass; when not, `{fname}` compares them pairwise and names the pair."
    );
    em.sites.push_helper(quote! {
        #[doc = #odoc]
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        fn #in_order(#(#params),*) -> bool {
            let _ = (buf, &header);
            #counts
            __parts <= #max && __rt::laid_in_order(#walk)
        }
    });
    em.sites.push_helper(quote! {
        #fdoc
        #[allow(clippy::too_many_arguments)]
        fn #fname<E: __rt::Report>(#(#params),*) -> Result<(), E> {
            let _ = (buf, &header);
            if Self::#in_order(#(#args),*) {
                return Ok(());
            }
            #bind
            match __rt::first_overlap(__parts, #max, &__extent) {
                Ok(()) => Ok(()),
                Err(__rt::Shared::TooMany) => #fail_many,
                Err(__rt::Shared::Overlap { first, second, at }) => {
                    let (p1, _) = __which(first);
                    let (p2, i2) = __which(second);
                    #rec_bind
                    let (s1, _) = __extent(first);
                    match (p1, p2) {
                        #(#pair_arms)*
                    }
                }
            }
        }
    });
    quote! {
        #[doc = #comment]
        Self::#fname::<E>(#(#args),*)?;
    }
}

/// The view accessor `<name>_parts()` of each ownership declaration: its part instances as
/// the `owned_apart` step numbered and checked them (what `inspect --ledger` reports).
pub fn accessors(em: &Em<'_>) -> Vec<TokenStream> {
    let c = em.c;
    let file = &c.schema.file;
    let mut out = Vec::new();
    for o in &file.ext.ownership {
        let ps = parts(c, o);
        if ps.len() != o.parts.len() {
            continue;
        }
        // The locals the instance closures read, from the view.
        let mut binds =
            vec![quote!(let buf = self.buf; let header = self.header(); let _ = (&header, buf);)];
        for (_, p) in &ps {
            match *p {
                Part::Record(i) => {
                    let Some(r) = file.ext.records.get(i) else {
                        continue;
                    };
                    let (v, at) = (ident(&r.name.text), format_ident!("{}_at", r.name.text));
                    binds.push(
                        quote!(let #v = self.#v(); let #at = __rt::offset_in(buf, #v.as_bytes());),
                    );
                }
                Part::Table(i) | Part::Range(_, i, _) => {
                    let Some(t) = file.tables.get(i) else {
                        continue;
                    };
                    let (v, at) = (ident(&t.name.text), format_ident!("{}_at", t.name.text));
                    let bytes = crate::emit::table::shape(c, t).bytes(&v);
                    let b = quote!(let #v = self.#v; let #at = __rt::offset_in(buf, #bytes); let _ = #at;);
                    if !binds.iter().any(|x| x.to_string() == b.to_string()) {
                        binds.push(b);
                    }
                }
                Part::Header => {}
            }
        }
        let (inst, _, _) = instances(em, &ps, true);
        let fname = format_ident!("{}_parts", o.name.text);
        let names = ps.iter().map(|(n, _)| *n);
        let np = crate::emit::lit_usize(u64::try_from(ps.len()).unwrap_or(u64::MAX));
        let doc = format!(
            " The part instances of ownership `{}` ({}), as its `owned_apart` step numbers and checks them: each part's name, the record's index for a per-record range (0 otherwise) and its bytes `start..end` (empty: it owns nothing).",
            o.name.text,
            o.parts
                .iter()
                .map(|p| format!("`{}`", p.text))
                .collect::<Vec<_>>()
                .join(", ")
        );
        out.push(quote! {
            #[doc = #doc]
            pub fn #fname(&self) -> impl Iterator<Item = __rt::OwnedPart> + '_ {
                #(#binds)*
                #inst
                const NAMES: [&str; #np] = [#(#names),*];
                (0..__parts).map(move |k| {
                    let (p, index) = __which(k);
                    let (start, end) = __extent(k);
                    __rt::OwnedPart { part: NAMES.get(p).copied().unwrap_or(""), index, start, end }
                })
            }
        });
    }
    out
}
