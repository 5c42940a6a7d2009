//! Emission for record streams (`schema/streams.rs`): the `stream_fits` walk in the validator
//! (every check, per-type counts computed in the same pass), `for_each` over a stream or one
//! of its collections, and the view's iterators (`records()` gives each record's offset,
//! header view, body bytes and typed body; `notes()` the typed bodies of one type).
//!
//! Everything emitted is `no_std`, allocation-free and panic-free: every record is at least
//! its header's size (checked: no zero-size step, so at most one record per byte of the
//! range), positions are checked `u64`s and bytes are reached through `chunk_at`/`range_at`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::Scope;
use crate::check::lookup::{collection, stream, stream_table};
use crate::check::streams::{layout_value, type_field};
use crate::emit::doc::doc_attr;
use crate::emit::sections::FileItems;
use crate::emit::{
    Blame, Det, Em, Env, Idx, Opd, lit_u64_suffixed as lit_u64, lit_usize, strip_parens,
};
use crate::names::camel;
use crate::schema::Table;
use crate::schema::streams::Stream;
use crate::schema::top::Step;

fn size_of(em: &Em<'_>, sname: &str) -> u64 {
    em.c.layouts.get(sname).map_or(0, |l| l.size)
}

/// `__at_<stream>`: the stream's range start, bound by its `stream_fits` step.
fn at_var(s: &Stream) -> proc_macro2::Ident {
    format_ident!("__at_{}", s.name.text)
}

/// `, __big` after the arguments of a stream iterator's `new` in a validator, when the file's
/// byte order is chosen when it is read (the iterator then carries it); nothing otherwise.
fn new_order(em: &Em<'_>, order: TokenStream) -> TokenStream {
    if em.c.schema.big_when.is_some() {
        quote!(, #order)
    } else {
        quote!()
    }
}

/// `__first_<stream>`: where a chain's first record is, bound by its `stream_fits` step.
fn first_var(s: &Stream) -> proc_macro2::Ident {
    format_ident!("__first_{}", s.name.text)
}

/// What a stream iterator's `new` takes after the range's start: for a chain, `, <where it
/// starts>`; for a stream within another's records, `, <that stream's iterator>` (`self.`
/// and its accessor in a view); nothing otherwise.
fn first_arg(em: &Em<'_>, s: &Stream, view: bool) -> TokenStream {
    if let Some(w) = &s.within {
        let Some(ps) = stream(&em.c.schema.file, &w.stream.text) else {
            return quote!();
        };
        if view {
            let acc = format_ident!("{}", ps.name.text);
            return quote!(, self.#acc());
        }
        let pit = iter_ty(&ps.name.text);
        let prange = format_ident!("{}", ps.range.text);
        let pat = at_var(ps);
        let pfirst = first_arg(em, ps, false);
        let order = new_order(em, quote!(__big));
        return quote!(, #pit::new(buf, #prange, #pat #pfirst #order));
    }
    if s.chain.is_none() {
        return quote!();
    }
    let v = first_var(s);
    if view {
        quote!(, self.#v)
    } else {
        quote!(, #v)
    }
}

/// `u64` tokens: a chain's link word read from `N`-byte array `b` (its type and order; the
/// file's order is `order`).
fn link_read(ch: &crate::schema::streams::Chain, order: TokenStream) -> TokenStream {
    let Some(t) = crate::check::streams::chain_ty(ch) else {
        return quote!(0u64);
    };
    let ty = format_ident!("{}", t.rust());
    let read = match ch.big {
        Some(big) => {
            let from = crate::emit::from_bytes(big);
            quote!(#ty::#from(*b))
        }
        None => quote!(if #order { #ty::from_be_bytes(*b) } else { #ty::from_le_bytes(*b) }),
    };
    crate::emit::widen(t, read)
}

fn iter_ty(name: &str) -> proc_macro2::Ident {
    format_ident!("{}Iter", camel(name))
}

fn item_ty(s: &Stream) -> proc_macro2::Ident {
    format_ident!("{}Item", camel(&s.name.text))
}

fn rec_env() -> Env {
    Env {
        header: quote!(header),
        record: quote!(rec),
        found: Vec::new(),
    }
}

/// `u64` tokens of the header's type field (`rec` is the header view).
fn type_tokens(em: &Em<'_>, s: &Stream) -> Option<TokenStream> {
    let tf = s.type_field.as_ref()?;
    let (_, t, _) = type_field(em.c, s)?;
    let is_enum = crate::check::ext::field_of(em.c, &s.header.text, &tf.text)
        .is_some_and(|(_, _, k)| matches!(k, crate::check::FieldKind::Enum(_)));
    let m = if is_enum {
        format_ident!("{}_raw", tf.text)
    } else {
        format_ident!("{}", tf.text)
    };
    Some(crate::emit::widen(t, quote!(rec.#m())))
}

/// `Option<u64>` tokens: the record's whole size (header included) from header `rec`;
/// `None` when it does not compute or is below the header's size.
fn total_tokens(em: &Em<'_>, s: &Stream, t: &Table) -> TokenStream {
    let hs = lit_u64(size_of(em, &s.header.text));
    if let Some(p) = em.plain(&s.size.expr, Scope::RecordOnly(t), &rec_env()) {
        return if s.includes_header {
            quote!({ let t: u64 = #p; (t >= #hs).then_some(t) })
        } else {
            quote!(#p.checked_add(#hs))
        };
    }
    let v = em.value(&s.size.expr, Scope::RecordOnly(t), &rec_env());
    if s.includes_header {
        quote!(#v.filter(|t| *t >= #hs))
    } else {
        quote!(#v.and_then(|b| b.checked_add(#hs)))
    }
}

/// `bool` tokens: whether header `rec` is the terminator.
fn end_tokens(em: &Em<'_>, s: &Stream, t: &Table) -> Option<TokenStream> {
    let e = s.end.as_ref()?;
    Some(strip_parens(em.cond(
        &e.expr,
        Scope::RecordOnly(t),
        &rec_env(),
    )))
}

/// `u64` tokens: the next record's position after a record ending at `rec_end` (relative to
/// the range's start), or `end` when the padding reaches or passes the range's end.
/// (In a stream that nests records, too: `align` counts from the range's start at every
/// depth, so a level left ends where its nesting record does, and the walk resumes after that
/// record's padding, cut at the enclosing level's end, `end` then.)
fn next_tokens(s: &Stream) -> TokenStream {
    if s.align <= 1 {
        return quote!(rec_end);
    }
    let m = lit_u64(s.align - 1);
    quote!(rec_end.checked_add(#m).map_or(end, |x| (x & !#m).min(end)))
}

/// How deep a stream's records may nest, when a layout holds records (`nested: true`).
fn depth(s: &Stream) -> Option<u64> {
    s.layouts
        .iter()
        .any(|l| l.nested.is_some())
        .then_some(s.max_depth.map_or(1, |m| m.0))
}

/// `Option<u64>` tokens: where the level a record of header `rec` opens starts, relative to
/// the range (its body after its layout's struct), when its layout is `nested`.
fn opens_tokens(em: &Em<'_>, s: &Stream) -> TokenStream {
    let ty = type_tokens(em, s);
    let arms: Vec<TokenStream> = s
        .layouts
        .iter()
        .filter(|l| l.nested.is_some())
        .filter_map(|l| {
            let v = lit_u64(layout_value(em.c, l)?);
            let n = lit_u64(em.c.layouts.get(&l.record.text)?.size);
            Some(quote!(#v => Some(#n),))
        })
        .collect();
    match ty {
        Some(ty) if !arms.is_empty() => quote! {
            match #ty {
                #(#arms)*
                _ => None,
            }
        },
        _ => quote!(None),
    }
}

/// The `stream_checksum` step: every record's stored checksum matches its bytes.
fn checksum_step(em: &Em<'_>, code: &str, target: &str) -> TokenStream {
    let file = &em.c.schema.file;
    let Some(s) = stream(file, target) else {
        return quote!();
    };
    let Some(k) = &s.checksum else {
        return quote!();
    };
    let t = stream_table(s);
    let env = rec_env();
    // Each bound as `Option<u64>` through a `u64` when it cannot fail (no literal `Some`).
    let bind = |e: &crate::expr::ExprAt, name: &str| {
        let id = format_ident!("{}", name);
        match em.plain(&e.expr, Scope::RecordOnly(&t), &env) {
            Some(p) => quote!(let #id: Option<u64> = u64::checked_add(#p, 0);),
            None => {
                let v = em.value(&e.expr, Scope::RecordOnly(&t), &env);
                quote!(let #id: Option<u64> = #v;)
            }
        }
    };
    let (from, to, stored) = (
        bind(&k.from, "from"),
        bind(&k.to, "to"),
        bind(&k.stored, "stored"),
    );
    let sn = s.name.text.as_str();
    let it = iter_ty(sn);
    let new_order = new_order(em, quote!(__big));
    let range = format_ident!("{}", s.range.text);
    let at = at_var(s);
    let f_place = em.fail(
        code,
        &Blame::record(sn, Idx::U64(quote!(index)), "checksum", quote!(rec_at), 0),
        Det::Range(
            quote!(rec_at.saturating_add(from.unwrap_or(0))),
            quote!(
                to.zip(from)
                    .and_then(|(t, f)| t.checked_sub(f))
                    .unwrap_or(u64::MAX)
            ),
            "record end".to_string(),
            quote!(rec_at.saturating_add(total)),
        ),
    );
    let first = first_arg(em, s, false);
    let f_sum = em.fail(
        code,
        &Blame::record(
            sn,
            Idx::U64(quote!(index)),
            "checksum",
            quote!(rec_at.saturating_add(so)),
            0,
        ),
        Det::Mismatch(quote!(found), quote!(computed)),
    );
    let from_b = crate::emit::from_bytes(k.big);
    let compute = k.algorithm.core_fn(&quote!(d));
    let (skip, only) = match &k.when {
        Some(w) => {
            let c = strip_parens(em.cond(&w.expr, Scope::RecordOnly(&t), &env));
            (
                quote! {
                    let carries: bool = #c;
                    if !carries {
                        continue;
                    }
                },
                format!(" (records where `{}`)", w.text),
            )
        }
        None => (TokenStream::new(), String::new()),
    };
    let comment = format!(
        "@step {code}: every record of stream `{sn}`{only} stores the {:?} of its bytes `{}`..`{}` at `{}`.",
        k.algorithm, k.from.text, k.to.text, k.stored.text
    );
    quote! {
        #[doc = #comment]
        for __item in #it::new(buf, #range, #at #first #new_order) {
            let rec = __item.header();
            let _ = &rec;
            #skip
            let rec_at: u64 = __item.offset();
            let index: u64 = u64::from(__item.index());
            let total: u64 = (__item.body().len() as u64).saturating_add(__item.body_offset().saturating_sub(rec_at));
            #from
            #to
            #stored
            let bytes = __rt::range_at(buf, rec_at, total);
            let covered = match (from, to, bytes) {
                (Some(f), Some(t), Some(b)) if f <= t => __rt::range_at(b, f, t - f),
                _ => None,
            };
            let place = stored.zip(bytes).and_then(|(so, b)| Some((so, __rt::chunk_at::<4>(b, so)?)));
            let (Some(d), Some((so, raw))) = (covered, place) else {
                return #f_place;
            };
            let found: u64 = u64::from(u32::#from_b(*raw));
            let computed: u64 = u64::from(#compute);
            if found != computed {
                return #f_sum;
            }
        }
    }
}

/// A stream step: the walk (`stream_fits`) or the per-record checksums.
pub fn step(
    em: &Em<'_>,
    code: &str,
    target: &str,
    kind: crate::schema::streams::StreamStep,
) -> TokenStream {
    if kind == crate::schema::streams::StreamStep::Checksum {
        return checksum_step(em, code, target);
    }
    walk_step(em, code, target, None)
}

/// Whether the `for_each` over stream `stream` can run inside its `stream_fits` walk
/// ([`fused_walk`]): its steps are checks of one record (`assert` not repeated, `expect`, `min_len`,
/// `flags_known`, `enum_known`, `let`, and those under `when`) that read no aggregate of a
/// walk (`count()`, `first()` and the other positions, which the walk has not finished).
#[must_use]
pub fn fusable_body(steps: &[Step]) -> bool {
    fn simple(s: &Step) -> bool {
        match s {
            // (A repeated one keeps a count over the whole for_each: not in the walk.)
            Step::Assert { repeat: None, .. }
            | Step::Expect { .. }
            | Step::MinLen { .. }
            | Step::FlagsKnown { .. }
            | Step::EnumKnown { .. }
            | Step::Let { .. } => true,
            Step::When { step, .. } => simple(step),
            _ => false,
        }
    }
    steps.iter().all(simple) && steps.len() <= 8
}

/// Whether expression `e` reads an aggregate of a walk (`count()`, `end()`, a position).
#[must_use]
pub fn reads_aggregate(e: &crate::expr::Expr) -> bool {
    use crate::expr::Expr;
    match e {
        Expr::Num(_) | Expr::Ref(_) => false,
        Expr::Not(x) | Expr::At(_, x, _) | Expr::Key(_, x) => reads_aggregate(x),
        Expr::Bin(_, l, r) => reads_aggregate(l) || reads_aggregate(r),
        Expr::Call(f, args) => {
            f == "count"
                || f == "end"
                || crate::expr::POSITIONS.contains(&f.as_str())
                || args.iter().any(reads_aggregate)
        }
    }
}

/// The `stream_fits` walk of stream `target` with the `for_each` over it that follows run
/// inside it, record by record, in one pass over the records instead of two (pcap's packet
/// checks). The errors are the ones the two passes give: a record's checks run once the walk
/// has checked that record, and the first that fails is held back (as a `Deferred`) while
/// the walk goes on, so that a failure of the walk itself, on any later record, is still the
/// one reported; the held failure is reported after the walk and the steps between
/// (`between`: `let`s that read no aggregate of the walk, emitted before it).
pub fn fused_walk(
    em: &Em<'_>,
    code: &str,
    target: &str,
    between: TokenStream,
    steps: &[Step],
) -> TokenStream {
    let walk = walk_step(em, code, target, Some(steps));
    quote! {
        #between
        #walk
    }
}

/// The `stream_fits` step: walk every record, checking it, counting records per type (and,
/// with `fused`, running a `for_each`'s steps on each record: [`fused_walk`]).
fn walk_step(em: &Em<'_>, code: &str, target: &str, fused: Option<&[Step]>) -> TokenStream {
    let file = &em.c.schema.file;
    let Some(s) = stream(file, target) else {
        return quote!();
    };
    let Some(r) = file.ranges.iter().find(|r| r.name.text == s.range.text) else {
        return quote!();
    };
    let t = stream_table(s);
    let rscope = Scope::Record(&t);
    let sn = s.name.text.as_str();
    let hty = format_ident!("{}", s.header.text);
    let walk_order = crate::emit::order_init(em.c, &s.header.text, quote!(__big));
    let hs = size_of(em, &s.header.text);
    let hs_u = lit_usize(hs);
    let hs64 = lit_u64(hs);
    let range = format_ident!("{}", r.name.text);
    let rname = r.name.text.clone();
    let at = at_var(s);
    let env = rec_env();
    let start = match em.plain(&r.offset.expr, Scope::Top, &env) {
        Some(p) => p,
        None => {
            let v = em.value(&r.offset.expr, Scope::Top, &env);
            quote!(#v.unwrap_or(0))
        }
    };
    let idx = || Idx::U64(quote!(index));
    let limit = quote!(#at.saturating_add(end));
    // The sites, numbered in this order.
    let f_header = em.fail(
        code,
        &Blame::record(sn, idx(), "header", quote!(rec_at), 0),
        Det::Range(quote!(rec_at), quote!(#hs64), rname.clone(), limit.clone()),
    );
    // A size that reads several header fields blames the record's header (its `size`), not
    // the file's first bytes (the interpreter does the same).
    let sb = match em.blame(&s.size.expr, rscope) {
        b if b.table.is_empty() && b.name == "header" => {
            Blame::record(sn, idx(), "size", quote!(rec_at), 0)
        }
        b => b,
    };
    let sname = Em::short_name(&s.size);
    let small = s.includes_header.then(|| {
        let f = em.fail(
            code,
            &sb,
            Det::Compare(
                Opd::Val(quote!(sz)),
                Opd::Val(quote!(#hs64)),
                [sname.clone(), "<".to_string(), "header bytes".to_string()],
            ),
        );
        quote! {
            if let Some(sz) = size && sz < #hs64 {
                return #f;
            }
        }
    });
    let f_over = em.fail(
        code,
        &sb,
        Det::Range(
            quote!(rec_at),
            quote!(total.unwrap_or(u64::MAX)),
            rname.clone(),
            limit.clone(),
        ),
    );
    let size_v = em.value(&s.size.expr, Scope::RecordOnly(&t), &env);
    let total = if s.includes_header {
        quote!(size)
    } else {
        quote!(size.and_then(|b| b.checked_add(#hs64)))
    };
    let ty = type_tokens(em, s);
    let mut counters = Vec::new();
    let mut firsts = Vec::new();
    // Each typed collection: its slot in the counts array, its type value and body size,
    // the site of a body too short for it, and what `first()`/`last()` of it keep.
    let mut rows = Vec::new();
    let kept = crate::check::streams::kept_layouts(em.c, s);
    for (k, (l, v, n)) in kept.iter().enumerate() {
        let f = em.fail_parts(
            code,
            &Blame::record(sn, idx(), l.collection.text.clone(), quote!(rec_at), hs),
            Det::Compare(
                Opd::Val(quote!(__body)),
                Opd::Val(quote!(__body_bytes)),
                [
                    "body bytes".to_string(),
                    "<".to_string(),
                    l.record.text.clone(),
                ],
            ),
        );
        // `first(collection)` and `last(collection)` (`check/positions.rs`): the index of its
        // first and last record, when asked.
        let sets: Vec<TokenStream> = crate::emit::positions::walk_tokens(em.c, &l.collection.text)
            .into_iter()
            .map(|(v, decl, set)| {
                counters.push(decl);
                firsts.push(v);
                set
            })
            .collect();
        rows.push((lit_usize(k as u64), lit_u64(*v), lit_u64(*n), f, sets));
    }
    let slots = lit_usize(kept.len() as u64);
    // The counts of the typed collections, kept when some step asks one (`count()`).
    let counted = crate::emit::positions::counted(em.c);
    let counting = kept
        .iter()
        .any(|(l, _, _)| counted.contains(&l.collection.text));
    // (Declared before the walk, in the function that reads it: an array is lent to the
    // helpers a long walk is cut into, so the walk itself may move into one.)
    let counts = crate::emit::positions::counts_var(s);
    let counts_decl = counting.then(|| quote!(let mut #counts: [u64; #slots] = [0; #slots];));
    // Nested records (`nested: true`): a record past `max_depth` fails; the ends of the
    // levels the walk is inside are on a fixed stack (the current level's is `end`).
    let nest = depth(s).map(|d| {
        let f = em.fail(
            code,
            &Blame::record(sn, idx(), "depth", quote!(rec_at), 0),
            Det::Compare(
                Opd::Val(quote!(
                    u64::try_from(__depth).unwrap_or(u64::MAX).saturating_add(1)
                )),
                Opd::Val({
                    let d = lit_u64(d);
                    quote!(#d)
                }),
                [
                    "depth".to_string(),
                    ">".to_string(),
                    "max_depth".to_string(),
                ],
            ),
        );
        (lit_usize(d), f)
    });
    let layout_check = match (&ty, rows.as_slice()) {
        (Some(_), []) | (None, _) => quote!(),
        // One layout: an `if`.
        (Some(ty), [(_, v, n, f, sets)]) => {
            // A layout of no bytes (`fields: []`) fits every body: its site stays (the
            // interpreter registers it too), its comparison would always pass.
            let f = f.tokens();
            let short = (kept.first().is_some_and(|x| x.2 > 0)).then(|| {
                quote! {
                    let __body: u64 = total.saturating_sub(#hs64);
                    let __body_bytes: u64 = #n;
                    if __body < __body_bytes {
                        return #f;
                    }
                }
            });
            let count = counting.then(|| quote!(#counts[0] = #counts[0].saturating_add(1);));
            // (Nothing to check, count or keep: no `if`.)
            if short.is_none() && count.is_none() && sets.is_empty() {
                quote!()
            } else {
                quote! {
                    if #ty == #v {
                        #short
                        #count
                        #(#sets)*
                    }
                }
            }
        }
        // Several: one constant table, looked up by the type value (the first row that has
        // it), whatever their number; a body shorter than its row's size fails at the row's
        // site.
        (Some(ty), _) => {
            let entries = rows.iter().map(|(_, v, n, f, _)| {
                let site = &f.id;
                quote!(__rt::TypedLayout { value: #v, body_bytes: #n, site: #site })
            });
            let marks = rows
                .iter()
                .filter(|r| !r.4.is_empty())
                .map(|(k, _, _, _, sets)| {
                    quote! {
                        if __k == #k {
                            #(#sets)*
                        }
                    }
                });
            // Every row's failure differs only in its site.
            let f = rows
                .first()
                .map(|r| r.3.tokens_by_number(&quote!(__row.site)))
                .unwrap_or_default();
            let doc = crate::emit::doc::lines(&format!(
                "The typed collections of stream `{sn}`, in the schema's order: the value of its\ntype field that selects each, the bytes its body's struct needs, and the number of the\ncheck a shorter body fails. A walk finds a record's row by its type\n(`__rt::typed_layout`), whatever the number of rows."
            ));
            let table = format_ident!("{}_LAYOUTS", sn.to_uppercase());
            em.sites.push_helper_once(quote! {
                #doc
                const #table: [__rt::TypedLayout; #slots] = [#(#entries),*];
            });
            let count = counting.then(|| {
                quote! {
                    if let Some(c) = #counts.get_mut(__k) {
                        *c = c.saturating_add(1);
                    }
                }
            });
            let k = if counting || rows.iter().any(|r| !r.4.is_empty()) {
                quote!(__k)
            } else {
                quote!(_)
            };
            quote! {
                if let Some((#k, __row)) = __rt::typed_layout(&Self::#table, #ty) {
                    let __body: u64 = total.saturating_sub(#hs64);
                    let __body_bytes: u64 = __row.body_bytes;
                    if __body < __body_bytes {
                        return #f;
                    }
                    #count
                    #(#marks)*
                }
            }
        }
    };
    let open_end = match &s.end {
        Some(_) => {
            let f = em.fail(
                code,
                &Blame::record(sn, idx(), "end", quote!(rec_at), 0),
                Det::None,
            );
            quote!(return #f;)
        }
        None => quote!(break;),
    };
    let next = next_tokens(s);
    // A nested level, or a holding record's part (`within`), ends before the range does: the
    // header must fit in it.
    let in_level = (nest.is_some() || s.within.is_some())
        .then(|| quote!(.filter(|_| end.saturating_sub(pos) >= #hs64)));
    let mask = lit_u64(s.align.saturating_sub(1));
    let (levels, pop, push, open, end_mut, item_depth) = match &nest {
        Some((d, f)) => {
            let opens = opens_tokens(em, s);
            (
                quote! {
                    let mut __depth: usize = 0;
                    let mut __ends: [u64; #d] = [0; #d];
                },
                // A level done: on after its nesting record (which ends where it does) and
                // that record's padding.
                quote! {
                    if let Some(p) = __rt::leave_level(&__ends, &mut __depth, &mut end, #mask) {
                        pos = p;
                        continue;
                    }
                },
                // The level it opens is kept before its `for_each` checks run (a record too
                // deep is the walk's error, as in the interpreter's first pass).
                quote! {
                    let __opens: Option<u64> = #opens;
                    if __opens.is_some() {
                        let Some(slot) = __ends.get_mut(__depth) else {
                            return #f;
                        };
                        *slot = end;
                    }
                },
                quote! {
                    if let Some(inner) = __opens {
                        __depth = __depth.saturating_add(1);
                        end = rec_end;
                        pos = pos.saturating_add(#hs64).saturating_add(inner);
                        continue;
                    }
                },
                quote!(mut),
                quote!(depth: u32::try_from(__depth).unwrap_or(u32::MAX),),
            )
        }
        None => (quote!(), quote!(), quote!(), quote!(), quote!(), quote!()),
    };
    let term = end_tokens(em, s, &t).map(|c| {
        if s.trailing.is_some() {
            // Bytes may follow the terminator: the walk ends at it (no site for them).
            return quote! {
                if #c {
                    break;
                }
            };
        }
        let f = em.fail(
            code,
            &Blame::record(sn, idx(), "end", quote!(#at.saturating_add(next)), 0),
            Det::Range(
                quote!(#at.saturating_add(next)),
                quote!(end.saturating_sub(next)),
                rname.clone(),
                limit.clone(),
            ),
        );
        quote! {
            if #c {
                if next < end {
                    return #f;
                }
                break;
            }
        }
    });
    // A chain (`chain:`): each record's link (inside the record) leads to the next; 0 ends
    // it. Past `max` records, the chain is either too long or a cycle: `chain_revisit` tells
    // which (the record whose link leads back, among the first `max`).
    // A stream within another's records: each holding record's part in turn (`within`),
    // the walk of that stream's records again (it was walked already).
    let within = s.within.as_ref().and_then(|w| {
        let ps = stream(file, &w.stream.text)?;
        let pt = stream_table(ps);
        let pit = iter_ty(&ps.name.text);
        let pfirst = first_arg(em, ps, false);
        let order = new_order(em, quote!(__big));
        let bound = |e: &crate::expr::ExprAt| match em.plain(&e.expr, Scope::RecordOnly(&pt), &env)
        {
            Some(p) => quote!(u64::checked_add(#p, 0)),
            None => em.value(&e.expr, Scope::RecordOnly(&pt), &env),
        };
        let (from, to) = (bound(&w.from), bound(&w.to));
        let f = em.fail(
            code,
            &Blame::record(sn, idx(), "within", quote!(__hat), 0),
            Det::Range(
                quote!(__hat.saturating_add(__from.unwrap_or(0))),
                quote!(
                    __to.zip(__from)
                        .and_then(|(t, f)| t.checked_sub(f))
                        .unwrap_or(u64::MAX)
                ),
                "record end".to_string(),
                quote!(__hat.saturating_add(__htotal)),
            ),
        );
        let crowded = em.fail(
            code,
            &Blame::record(sn, idx(), "within", quote!(rec_at), 0),
            Det::Compare(
                Opd::Val(quote!(index.saturating_add(1))),
                Opd::Val(quote!(__cap)),
                [
                    "records".to_string(),
                    ">".to_string(),
                    "range bytes / header bytes".to_string(),
                ],
            ),
        );
        Some((
            quote!(let mut __holders: #pit<'a> = #pit::new(buf, #range, #at #pfirst #order);),
            quote! {
                if pos >= end {
                    // (`&mut`, spelt out: the splitter sees the iterator change.)
                    let Some(__holder) = Iterator::next(&mut __holders) else {
                        break;
                    };
                    let __hat: u64 = __holder.offset();
                    let __htotal: u64 = (__holder.body().len() as u64)
                        .saturating_add(__holder.body_offset().saturating_sub(__hat));
                    let (__from, __to): (Option<u64>, Option<u64>) = {
                        let rec = __holder.header();
                        let _ = &rec;
                        (#from, #to)
                    };
                    match (__from, __to) {
                        (Some(f), Some(t)) if f <= t && t <= __htotal => {
                            let __base: u64 = __hat.saturating_sub(#at);
                            pos = __base.saturating_add(f);
                            end = __base.saturating_add(t);
                            continue;
                        }
                        _ => return #f,
                    }
                }
                // Parts that do not overlap hold at most one record per header's bytes of
                // the range: more, and the work would grow with the square of the file.
                let __cap: u64 = (bytes.len() as u64) / #hs64;
                if index >= __cap {
                    return #crowded;
                }
            },
        ))
    });
    let (first_bind, pos_init, top_check, link_block) = match &s.chain {
        None if within.is_some() => {
            let (holders, refill) = within.clone().unwrap_or_default();
            (
                holders,
                quote!(0),
                refill,
                quote! {
                    let rec_end: u64 = pos.saturating_add(total);
                    let next: u64 = #next;
                },
            )
        }
        None => (
            quote!(),
            quote!(0),
            quote! {
                if pos >= end {
                    #pop
                    #open_end
                }
            },
            quote! {
                let rec_end: u64 = pos.saturating_add(total);
                let next: u64 = #next;
            },
        ),
        Some(ch) => {
            let fv = first_var(s);
            let first = match em.plain(&ch.first.expr, Scope::Top, &env) {
                Some(p) => p,
                None => {
                    let v = em.value(&ch.first.expr, Scope::Top, &env);
                    quote!(#v.unwrap_or(u64::MAX))
                }
            };
            let w = crate::check::streams::chain_ty(ch).map_or(1, |t| t.bytes());
            let wu = lit_usize(w);
            let w64 = lit_u64(w);
            let max = lit_u64(ch.max);
            let place = em.value(&ch.next_at.expr, Scope::RecordOnly(&t), &env);
            let read = link_read(ch, quote!(__big));
            let f_link = em.fail(
                code,
                &Blame::record(sn, idx(), "next", quote!(rec_at), 0),
                Det::Range(
                    quote!(rec_at.saturating_add(__place.unwrap_or(0))),
                    quote!(#w64),
                    "record end".to_string(),
                    quote!(rec_at.saturating_add(total)),
                ),
            );
            let f_cycle = em.fail(
                code,
                &Blame::record(
                    sn,
                    Idx::U64(quote!(__ci)),
                    "next",
                    quote!(#at.saturating_add(__cx)),
                    0,
                ),
                Det::Compare(
                    Opd::Val(quote!(__cl)),
                    Opd::Val(quote!(__cl)),
                    [
                        "next".to_string(),
                        "==".to_string(),
                        "an earlier record".to_string(),
                    ],
                ),
            );
            let f_many = em.fail(
                code,
                &Blame::record(sn, idx(), "next", quote!(rec_at), 0),
                Det::Compare(
                    Opd::Val(quote!(#max.saturating_add(1))),
                    Opd::Val(quote!(#max)),
                    ["records".to_string(), ">".to_string(), "max".to_string()],
                ),
            );
            (
                quote!(let #fv: u64 = #first;),
                quote!(#fv),
                quote! {
                    if pos == 0 {
                        break;
                    }
                },
                quote! {
                    let __place: Option<u64> = #place;
                    let link: u64 = match __place
                        .filter(|x| x.checked_add(#w64).is_some_and(|e| e <= total))
                        .and_then(|x| __rt::chunk_at::<#wu>(bytes, pos.saturating_add(x)))
                    {
                        Some(b) => #read,
                        None => return #f_link,
                    };
                    if link != 0 && index.saturating_add(1) >= #max.min(end) {
                        // As many records as `max`, or as the range has bytes (more than
                        // places they could start): a link back to one of them, or too many
                        // (past `max`; past the range's bytes, the next record cannot fit).
                        let __link = |x: u64| -> Option<u64> {
                            let raw: &'a [u8; #hs_u] = __rt::chunk_at::<#hs_u>(bytes, x)?;
                            let rec: #hty<'a> = #hty { raw, buf, index: 0 #walk_order };
                            let _ = &rec;
                            let __place: u64 = #place?;
                            let b = __rt::chunk_at::<#wu>(bytes, x.checked_add(__place)?)?;
                            Some(#read)
                        };
                        if let Some((__ci, __cx, __cl)) = __rt::chain_revisit(#fv, index.saturating_add(1), __link) {
                            return #f_cycle;
                        }
                        if index.saturating_add(1) >= #max {
                            return #f_many;
                        }
                    }
                    let next: u64 = link;
                },
            )
        }
    };
    // The `for_each`'s steps, emitted after every site of the walk (so that the sites keep
    // the numbers two passes give them), on the record the walk has just checked; the first
    // failure held until the walk is done (in the walk's block, where the helper functions
    // the body may be cut into see it).
    let (held, report) = if fused.is_some() {
        (
            quote!(let mut __deferred: Option<__rt::Deferred> = None;),
            quote! {
                if let Some(d) = __deferred {
                    return Err(d.into_report());
                }
            },
        )
    } else {
        (quote!(), quote!())
    };
    let fused = fused.and_then(|steps| {
        let ct = em.c.collections.iter().find(|t| t.name.text == sn)?;
        let body = em.steps(steps, Scope::Record(ct));
        let ity = item_ty(s);
        let item_order = em
            .c
            .schema
            .big_when
            .is_some()
            .then(|| quote!(big: __big,));
        // The walk's `rec`, `rec_at` and `index` are the record's; steps that read where
        // its body is (`record.body_offset` and the like) also get the stream's item.
        let item = body.to_string().contains("__item").then(|| {
            quote! {
                let __item: #ity<'a> = #ity {
                    buf,
                    header: raw,
                    body: __rt::range_at(bytes, pos.saturating_add(#hs64), total.saturating_sub(#hs64)).unwrap_or(&[]),
                    offset: rec_at,
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                    #item_depth
                    #item_order
                };
            }
        });
        let checks = crate::emit::split::deferred_checks(body);
        Some(quote! {
            if __deferred.is_none() {
                #item
                let _ = (&rec, rec_at, index);
                if let Err(d) = #checks {
                    __deferred = Some(d);
                }
            }
        })
    });
    // The stream's count and each `first()` (its typed collections' counts are in the array
    // declared before the walk).
    let cnt_names: Vec<_> = std::iter::once(format_ident!("__count_{}", sn))
        .chain(firsts.iter().cloned())
        .collect();
    let cnt_vals: Vec<_> = std::iter::once(quote!(index))
        .chain(firsts.iter().map(|v| quote!(#v)))
        .collect();
    // One count alone (a stream without typed collections or `first()`): no parentheses
    // (`unused_parens`).
    // The counts are `u64`s, each `first()` an `Option<u64>` (declared, so that
    // `split.rs` may hand them to a helper).
    let cnt_tys: Vec<TokenStream> = std::iter::once(quote!(u64))
        .chain(firsts.iter().map(|_| quote!(Option<u64>)))
        .collect();
    let (cnt_pat, cnt_tuple) = match (cnt_names.as_slice(), cnt_vals.as_slice()) {
        ([n], [v]) => (quote!(#n: u64), quote!(#v)),
        _ => (
            quote!((#(#cnt_names),*): (#(#cnt_tys),*)),
            quote!((#(#cnt_vals),*)),
        ),
    };
    let comment = format!(
        "@step {code}: the records of stream `{sn}` fill range `{}`: each header and body inside it{}.{}",
        r.name.text,
        s.end.as_ref().map_or(String::new(), |e| format!(
            ", ending at a record where `{}`, with nothing after it",
            e.text
        )),
        if fused.is_some() {
            format!(
                " The checks of `for_each: {sn}` run on each record as the walk goes; the first that fails is reported once the walk has checked every record."
            )
        } else {
            String::new()
        }
    );
    // (Within another stream's records: no part yet.)
    let (end_mut, end_init) = if s.within.is_some() {
        (quote!(mut), quote!(0))
    } else {
        (
            end_mut,
            quote!(u64::try_from(bytes.len()).unwrap_or(u64::MAX)),
        )
    };
    let first_names = s.chain.as_ref().map(|_| {
        let v = first_var(s);
        quote!(#v,)
    });
    quote! {
        let #at: u64 = #start;
        #first_bind
        #counts_decl
        #[doc = #comment]
        let #cnt_pat = {
            // The record's bindings are typed (borrowing the buffer for as long as the view
            // does), so that the splitter (`split.rs`) may move the checks a long walk makes
            // (a `for_each`'s run in it among them) into helpers.
            let bytes: &'a [u8] = #range;
            let #end_mut end: u64 = #end_init;
            let mut pos: u64 = #pos_init;
            let mut index: u64 = 0;
            #levels
            #(#counters)*
            #held
            loop {
                let rec_at: u64 = #at.saturating_add(pos);
                #top_check
                let raw: &'a [u8; #hs_u] = match __rt::chunk_at::<#hs_u>(bytes, pos) #in_level {
                    Some(r) => r,
                    None => return #f_header,
                };
                let rec: #hty<'a> = #hty { raw, buf, index: u32::try_from(index).unwrap_or(u32::MAX) #walk_order };
                let _ = &rec;
                let size: Option<u64> = #size_v;
                #small
                let total: Option<u64> = #total;
                let total: u64 = match total.filter(|t| *t <= end.saturating_sub(pos)) {
                    Some(t) => t,
                    None => return #f_over,
                };
                #layout_check
                #link_block
                #push
                #fused
                index = index.saturating_add(1);
                #term
                #open
                pos = next;
            }
            #report
            #cnt_tuple
        };
        let _ = (#at, #first_names #(#cnt_names),*);
    }
}

/// `for_each` over a stream (record context: the header) or one of its collections
/// (record context: the typed body).
pub fn for_each(em: &Em<'_>, name: &str, steps: &[Step]) -> TokenStream {
    let file = &em.c.schema.file;
    let Some(t) = em.c.collections.iter().find(|t| t.name.text == name) else {
        return quote!();
    };
    let body = em.steps(steps, Scope::Record(t));
    if let Some(s) = stream(file, name) {
        let it = iter_ty(name);
        let new_order = new_order(em, quote!(__big));
        let range = format_ident!("{}", s.range.text);
        let at = at_var(s);
        let comment = format!("@step For every record of stream `{name}`.");
        let ity = item_ty(s);
        let hty = format_ident!("{}", s.header.text);
        let first = first_arg(em, s, false);
        let reps = crate::emit::reps_decls(steps);
        let memos = memo_decls(em, t, steps);
        return quote! {
            #reps
            #[doc = #comment]
            for __next in #it::new(buf, #range, #at #first #new_order) {
                let __item: #ity<'a> = __next;
                let rec: #hty<'a> = __item.header();
                let rec_at: u64 = __item.offset();
                let index: u64 = u64::from(__item.index());
                let _ = (&rec, rec_at, index);
                #memos
                #body
            }
        };
    }
    let Some((s, l)) = collection(file, name) else {
        return quote!();
    };
    let it = iter_ty(&s.name.text);
    let new_order = new_order(em, quote!(__big));
    let range = format_ident!("{}", s.range.text);
    let at = at_var(s);
    let as_m = format_ident!("as_{}", l.collection.text);
    let ity = item_ty(s);
    let bty = format_ident!("{}", l.record.text);
    let first = first_arg(em, s, false);
    let comment = format!(
        "@step For every record of collection `{name}` (the bodies of type `{}` of stream `{}`).",
        l.value.text, s.name.text
    );
    let reps = crate::emit::reps_decls(steps);
    quote! {
        #reps
        #[doc = #comment]
        {
            let mut __ci: u64 = 0;
            for __next in #it::new(buf, #range, #at #first #new_order) {
                let __item: #ity<'a> = __next;
                let Some(rec): Option<#bty<'a>> = __item.#as_m() else { continue; };
                let index: u64 = __ci;
                __ci = __ci.saturating_add(1);
                let rec_at: u64 = __item.body_offset();
                let _ = (&rec, rec_at, index);
                #body
            }
        }
    }
}

/// Whether a validation step looks up a record of stream `name` by its key within the
/// current record of the stream that holds it (`name[field == value].field` in `for_each`
/// over that stream): its iterator then has a constructor for one holding record's part
/// (a lookup at file level walks the whole stream with `new`).
fn looked_up(c: &crate::check::Checked, name: &str) -> bool {
    let Some(holder) = stream(&c.schema.file, name)
        .and_then(|s| s.within.as_ref())
        .map(|w| w.stream.text.as_str())
    else {
        return false;
    };
    fn in_holder(c: &crate::check::Checked, steps: &[Step], name: &str, holder: &str) -> bool {
        steps.iter().any(|s| match s {
            Step::ForEach { table, steps } if table.text == holder => {
                let mut exprs = Vec::new();
                crate::emit::positions::step_exprs(c, steps, &mut exprs);
                exprs.iter().any(|e| {
                    crate::check::index::all(&e.expr)
                        .iter()
                        .any(|(t, _, _)| *t == name)
                })
            }
            Step::When { step, .. } => in_holder(c, std::slice::from_ref(&**step), name, holder),
            _ => false,
        })
    }
    c.files()
        .into_iter()
        .any(|f| in_holder(c, &f.validate, name, holder))
}

/// `u64` tokens (with `?`) for `S[key == value].field` or `S[i].field`, a record of stream
/// S walked for (`check/index.rs`, `walked`): inside `for_each` over the stream S is within,
/// S's records in the current record's part (`SIter::part`), found once per record and
/// value (`npuschema_core::find_once`); at file level, all of S (`SIter::new`). From the
/// first until one's key is the value (`npuschema_core::find_item`; a key with no value,
/// or none that matches: `None`, the check fails closed), or to record `i`; its field then.
/// The work is one walk of the part, or of the stream, per lookup made.
pub(crate) fn sub_find(
    em: &Em<'_>,
    (table, index, field): (&str, &crate::expr::Expr, &[String]),
    scope: Scope<'_>,
    env: &Env,
) -> TokenStream {
    let file = &em.c.schema.file;
    let (Some(s), Some(sub)) = (
        stream(file, table),
        crate::check::index::walked(em.c, table, scope),
    ) else {
        return quote!(0u64);
    };
    let part = crate::check::index::sub_stream(em.c, table, scope).is_some();
    let it = iter_ty(table);
    let ity = item_ty(s);
    let hty = format_ident!("{}", s.header.text);
    let range = format_ident!("{}", s.range.text);
    let at = at_var(s);
    let order = new_order(em, quote!(__big));
    let env_of = |record: TokenStream| Env {
        header: env.header.clone(),
        record,
        found: Vec::new(),
    };
    let f = em.leaf(field, Scope::Record(sub), &env_of(quote!(__sub)));
    // `record.offset` and the rest of the found record's place: its item's.
    let place = matches!(
        em.c.resolve(field, Scope::Record(sub)),
        Ok(crate::check::Resolved::RecPos(_))
    )
    .then(|| quote!(let __item: #ity<'a> = __found;));
    let records = if part {
        quote!(#it::part(buf, #range, #at, &__item #order))
    } else {
        let first = first_arg(em, s, false);
        quote!(#it::new(buf, #range, #at #first #order))
    };
    let found = match index {
        crate::expr::Expr::Key(key, value) => {
            let v = em.inner(value, scope, env);
            let k = em.leaf(key, Scope::Record(sub), &env_of(quote!(__r.header())));
            let search = quote!(__rt::find_item(#records, |__r| Some(#k == __key)));
            let found = if part {
                let memo = memo_ident(table, key, value);
                quote! {
                    // Found once per record and value (`#memo`), for every check that reads it.
                    __rt::find_once(&mut #memo, __key, || #search)?
                }
            } else {
                quote!(#search?)
            };
            quote! {
                let __key: u64 = #v;
                let __found: #ity<'a> = #found;
            }
        }
        _ => {
            let i = em.inner(index, scope, env);
            quote! {
                let __i: usize = usize::try_from(#i).ok()?;
                let __found: #ity<'a> = Iterator::nth(&mut #records, __i)?;
            }
        }
    };
    quote!({
        #found
        let __sub: #hty<'a> = __found.header();
        #place
        #f
    })
}

/// The binding that keeps a lookup's result for the current record (`S[key == value]`, by
/// its stream, key and value expression): `(value, the record found)`, declared before the
/// steps of the `for_each` over the holding stream ([`memo_decls`]), so a record that
/// several steps read is searched for once per record of the holding stream.
fn memo_ident(table: &str, key: &[String], value: &crate::expr::Expr) -> proc_macro2::Ident {
    let text = format!("{value:?}");
    let h = text.bytes().fold(0x811C_9DC5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format_ident!("__find_{}_{}_{:08x}", table, key.join("_"), h)
}

/// The [`memo_ident`] bindings of the lookups among `steps`, in the `for_each` over stream
/// `holder` (none when they make none).
fn memo_decls(em: &Em<'_>, holder: &Table, steps: &[Step]) -> TokenStream {
    let mut exprs = Vec::new();
    crate::emit::positions::step_exprs(em.c, steps, &mut exprs);
    let mut ids: Vec<proc_macro2::Ident> = Vec::new();
    let mut decls = Vec::new();
    for e in exprs {
        for (t, index, _) in crate::check::index::all(&e.expr) {
            let crate::expr::Expr::Key(key, value) = index else {
                continue;
            };
            let (Some(s), Some(_)) = (
                stream(&em.c.schema.file, t),
                crate::check::index::sub_stream(em.c, t, Scope::Record(holder)),
            ) else {
                continue;
            };
            let id = memo_ident(t, key, value);
            if ids.contains(&id) {
                continue;
            }
            ids.push(id.clone());
            let ity = item_ty(s);
            decls.push(quote!(let mut #id: Option<(u64, Option<#ity<'a>>)> = None;));
        }
    }
    quote!(#(#decls)*)
}

/// The view's fields, accessors and the iterator types of every stream.
pub fn file_items(em: &Em<'_>) -> FileItems {
    let mut out = FileItems {
        fields: Vec::new(),
        inits: Vec::new(),
        accessors: Vec::new(),
        items: Vec::new(),
    };
    let file = &em.c.schema.file;
    for s in &file.streams {
        let t = stream_table(s);
        let sn = s.name.text.as_str();
        let at = at_var(s);
        let range = format_ident!("{}", s.range.text);
        let var = format_ident!("{}", sn);
        let it = iter_ty(sn);
        let item = item_ty(s);
        let hty = format_ident!("{}", s.header.text);
        let runtime = em.c.schema.big_when.is_some();
        let self_order = new_order(em, quote!(self.__big));
        let head_order = crate::emit::order_init(em.c, &s.header.text, quote!(self.big));
        let (order_field, new_param, new_init, item_init) = if runtime {
            (
                quote! {
                    /// Big-endian: the byte order the file's header chose.
                    big: bool,
                },
                quote!(, big: bool),
                quote!(, big),
                quote!(big: self.big,),
            )
        } else {
            (quote!(), quote!(), quote!(), quote!())
        };
        let hs = size_of(em, &s.header.text);
        let hs_u = lit_usize(hs);
        let hs64 = lit_u64(hs);
        let total = total_tokens(em, s, &t);
        let next = next_tokens(s);
        let not_end = s
            .end
            .as_ref()
            .map(|e| em.not_cond(&e.expr, Scope::RecordOnly(&t), &rec_env()));
        let advance = match not_end {
            Some(c) => quote!(#c && next > pos),
            None => quote!(next > pos),
        };
        let sdoc = doc_attr(&s.doc);
        out.fields.push(quote!(#at: u64,));
        out.inits.push(quote!(#at,));
        let first_self = first_arg(em, s, true);
        let acc_doc = format!(
            " The records of stream `{sn}`, in file order: offset, header, body{}.",
            if s.layouts.is_empty() {
                ""
            } else {
                " and typed body"
            }
        );
        out.accessors.push(quote! {
            #sdoc
            ///
            #[doc = #acc_doc]
            #[must_use]
            #[inline]
            pub fn #var(&self) -> #it<'a> { #it::new(self.buf, self.#range, self.#at #first_self #self_order) }
        });
        let ty = type_tokens(em, s);
        let mut as_methods = Vec::new();
        for l in &s.layouts {
            let (Some(v), Some(n)) = (
                layout_value(em.c, l),
                em.c.layouts.get(&l.record.text).map(|x| x.size),
            ) else {
                continue;
            };
            let Some(ty) = &ty else { continue };
            let as_m = format_ident!("as_{}", l.collection.text);
            let bty = format_ident!("{}", l.record.text);
            let body_order = crate::emit::order_init(em.c, &l.record.text, quote!(self.big));
            let v = lit_u64(v);
            let n = lit_usize(n);
            let cvar = format_ident!("{}", l.collection.text);
            let cit = iter_ty(&l.collection.text);
            let mdoc = format!(
                " The body as a `{}` when the record's type is `{}` (its index: the record's in the stream).",
                l.record.text, l.value.text
            );
            as_methods.push(quote! {
                #[doc = #mdoc]
                #[must_use]
                #[inline]
                pub fn #as_m(&self) -> Option<#bty<'a>> {
                    let rec = self.header();
                    if #ty != #v {
                        return None;
                    }
                    let raw = self.body.first_chunk::<#n>()?;
                    Some(#bty { raw, buf: self.buf, index: self.index #body_order })
                }
            });
            let cdoc = doc_attr(&l.doc);
            let adoc = format!(
                " The bodies of the records of type `{}` of stream `{sn}`, as `{}`, in file order.",
                l.value.text, l.record.text
            );
            out.accessors.push(quote! {
                #cdoc
                ///
                #[doc = #adoc]
                #[must_use]
                #[inline]
                pub fn #cvar(&self) -> #cit<'a> { #cit { inner: self.#var(), index: 0 } }
            });
            let idoc = format!(" Iterator over collection `{}`.", l.collection.text);
            out.items.push(quote! {
                #[doc = #idoc]
                #[derive(Clone)]
                pub struct #cit<'a> {
                    inner: #it<'a>,
                    index: u32,
                }
                impl<'a> Iterator for #cit<'a> {
                    type Item = #bty<'a>;
                    fn next(&mut self) -> Option<#bty<'a>> {
                        loop {
                            let item = self.inner.next()?;
                            if let Some(b) = item.#as_m() {
                                let index = self.index;
                                self.index = self.index.saturating_add(1);
                                return Some(#bty { index, ..b });
                            }
                        }
                    }
                }
                impl core::iter::FusedIterator for #cit<'_> {}
            });
        }
        // A nesting stream's `next` is larger than the optimiser inlines by itself, and a
        // call per record doubled the time of a WAVE file's `for_each` loops (measured with
        // callgrind: 853 instructions per validation, 651 inlined; 387 before nesting).
        let next_inline = depth(s).map(|_| quote!(#[inline(always)]));
        let idoc = format!(" Iterator over the records of stream `{sn}`.");
        let itemdoc = format!(" One record of stream `{sn}`.");
        // Nested records: each item has its depth; the iterator walks the records in file
        // order (a nesting record, then the records in its body), with a fixed stack of the
        // levels it is inside.
        let in_level = (depth(s).is_some() || s.within.is_some())
            .then(|| quote!(.filter(|t| *t <= end.saturating_sub(pos))));
        // A chain's iterator starts where the view's `first` says, and follows the links, at
        // most `max` records (validation proved there is no cycle among them).
        let chain_iter = s.chain.as_ref().map(|ch| {
            let w = crate::check::streams::chain_ty(ch).map_or(1, |t| t.bytes());
            let wu = lit_usize(w);
            let max = lit_u64(ch.max);
            let place = em.value(&ch.next_at.expr, Scope::RecordOnly(&t), &rec_env());
            let read = link_read(ch, quote!(self.big));
            (
                quote!(, first: u64),
                quote! {
                    let __place: Option<u64> = #place;
                    let link: u64 = match __place.and_then(|x| __rt::chunk_at::<#wu>(self.bytes, pos.checked_add(x)?)) {
                        Some(b) => #read,
                        None => 0,
                    };
                    if link != 0 && u64::from(self.index).saturating_add(1) < #max {
                        self.done = false;
                        self.pos = link;
                        self.index = self.index.saturating_add(1);
                    }
                    Some(item)
                },
            )
        });
        let (item_field, item_method, item_set, iter_fields, iter_init, pop, open) = match depth(s)
        {
            Some(d) => {
                let du = lit_usize(d);
                let opens = opens_tokens(em, s);
                let mask = lit_u64(s.align.saturating_sub(1));
                (
                    quote! { depth: u32, },
                    quote! {
                        /// How deep it is nested: 0 in the stream's range, 1 in the body of
                        /// a record there, and so on.
                        #[must_use]
                        #[inline]
                        pub fn depth(&self) -> u32 { self.depth }
                    },
                    quote! { depth: u32::try_from(self.depth).unwrap_or(u32::MAX), },
                    quote! {
                        end: u64,
                        depth: usize,
                        ends: [u64; #du],
                    },
                    quote! {
                        , end: u64::try_from(bytes.len()).unwrap_or(u64::MAX),
                        depth: 0,
                        ends: [0; #du]
                    },
                    // A level done: on after its nesting record (which ends where it does)
                    // and that record's padding, cut at the enclosing level's end.
                    quote! {
                        let mut pos = self.pos;
                        while pos >= self.end {
                            pos = __rt::leave_level(&self.ends, &mut self.depth, &mut self.end, #mask)?;
                        }
                        let end: u64 = self.end;
                    },
                    quote! {
                        let opens: Option<u64> = #opens;
                        if let Some(inner) = opens {
                            *self.ends.get_mut(self.depth)? = end;
                            self.depth = self.depth.saturating_add(1);
                            self.end = rec_end;
                            self.pos = pos.checked_add(#hs64)?.checked_add(inner)?;
                            self.done = false;
                            self.index = self.index.saturating_add(1);
                            return Some(item);
                        }
                    },
                )
            }
            None => (
                quote!(),
                quote!(),
                quote!(),
                quote!(),
                quote!(),
                quote! {
                    let end: u64 = u64::try_from(self.bytes.len()).unwrap_or(u64::MAX);
                    let pos = self.pos;
                    if pos >= end {
                        return None;
                    }
                },
                quote!(),
            ),
        };
        // Within another stream's records: the holding records' iterator, and the end of the
        // part being read (the next holding record's part read when it is done).
        let mut part_fn: Option<TokenStream> = None;
        let within_iter = s.within.as_ref().and_then(|w| {
            let ps = stream(file, &w.stream.text)?;
            let pt = stream_table(ps);
            let pit = iter_ty(&ps.name.text);
            let bound = |e: &crate::expr::ExprAt| match em.plain(
                &e.expr,
                Scope::RecordOnly(&pt),
                &rec_env(),
            ) {
                Some(p) => p,
                None => {
                    let v = em.value(&e.expr, Scope::RecordOnly(&pt), &rec_env());
                    quote!(#v?)
                }
            };
            let (from, to) = (bound(&w.from), bound(&w.to));
            let pitem = item_ty(ps);
            let doc = format!(
                "The records in one record of stream `{}` only (its part, `from..to`), for a lookup among them (`{}[field == value]` in `for_each: {}`).",
                ps.name.text, s.name.text, ps.name.text
            );
            let order_arg = if runtime { quote!(, big) } else { quote!() };
            // The holding stream's iterator, ended: the part is the holder's only.
            let no_first = ps.chain.is_some().then(|| quote!(, 0));
            let part = looked_up(em.c, &s.name.text).then(|| {
                quote! {
                    #[doc = #doc]
                    fn part(buf: &'a [u8], bytes: &'a [u8], at: u64, holder: &#pitem<'a> #new_param) -> Self {
                        let mut holders = #pit::new(buf, bytes, at #no_first #order_arg);
                        holders.done = true;
                        let mut it = Self::new(buf, bytes, at, holders #order_arg);
                        let span = (|| -> Option<(u64, u64)> {
                            let rec = holder.header();
                            let _ = &rec;
                            let from: u64 = #from;
                            let to: u64 = #to;
                            let base = holder.offset().checked_sub(at)?;
                            Some((base.checked_add(from)?, base.checked_add(to)?))
                        })();
                        match span {
                            Some((pos, end)) => {
                                it.pos = pos;
                                it.end = end;
                            }
                            None => it.done = true,
                        }
                        it
                    }
                }
            });
            part_fn = part;
            Some((
                quote!(, holders: #pit<'a>),
                quote! {
                    end: u64,
                    holders: #pit<'a>,
                },
                quote! {
                    let mut pos = self.pos;
                    while pos >= self.end {
                        let h = self.holders.next()?;
                        let rec = h.header();
                        let _ = &rec;
                        let from: u64 = #from;
                        let to: u64 = #to;
                        let base = h.offset().checked_sub(self.at)?;
                        pos = base.checked_add(from)?;
                        self.end = base.checked_add(to)?;
                    }
                    let end: u64 = self.end;
                },
            ))
        });
        let (first_param, start) = match (&chain_iter, &within_iter) {
            (Some((p, _)), _) => (p.clone(), quote!(pos: first, index: 0, done: first == 0)),
            (None, Some((p, _, _))) => (
                p.clone(),
                quote!(pos: 0, index: 0, done: false, end: 0, holders),
            ),
            (None, None) => (quote!(), quote!(pos: 0, index: 0, done: false)),
        };
        let (iter_fields, pop) = match within_iter {
            Some((_, fields, refill)) => (fields, refill),
            None => (iter_fields, pop),
        };
        let (pop, tail) = match chain_iter {
            Some((_, tail)) => (
                quote! {
                    let pos = self.pos;
                },
                tail,
            ),
            None => (
                pop,
                quote! {
                    let rec_end: u64 = pos.checked_add(total)?;
                    let next: u64 = #next;
                    #open
                    if #advance {
                        self.done = false;
                        self.pos = next;
                        self.index = self.index.saturating_add(1);
                    }
                    Some(item)
                },
            ),
        };
        if s.chain.is_some() {
            let fv = first_var(s);
            out.fields.push(quote!(#fv: u64,));
            out.inits.push(quote!(#fv,));
        }
        out.items.push(quote! {
            #[doc = #itemdoc]
            #[derive(Clone, Copy)]
            pub struct #item<'a> {
                buf: &'a [u8],
                header: &'a [u8; #hs_u],
                body: &'a [u8],
                offset: u64,
                index: u32,
                #item_field
                #order_field
            }
            impl<'a> #item<'a> {
                /// Where the record (its header) starts in the file.
                #[must_use]
                #[inline]
                pub fn offset(&self) -> u64 { self.offset }
                /// Where its body starts in the file.
                #[must_use]
                #[inline]
                pub fn body_offset(&self) -> u64 { self.offset.saturating_add(#hs64) }
                /// Its index in the stream.
                #[must_use]
                #[inline]
                pub fn index(&self) -> u32 { self.index }
                /// Its header.
                #[must_use]
                #[inline]
                pub fn header(&self) -> #hty<'a> { #hty { raw: self.header, buf: self.buf, index: self.index #head_order } }
                /// Its body: the bytes after the header, up to the record's size (padding
                /// excluded). Borrowed, never copied.
                #[must_use]
                #[inline]
                pub fn body(&self) -> &'a [u8] { self.body }
                #item_method
                #(#as_methods)*
            }
            impl core::fmt::Debug for #item<'_> {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.debug_struct(#sn)
                        .field("offset", &self.offset)
                        .field("header", &self.header())
                        .field("body_len", &self.body.len())
                        .finish()
                }
            }
            #[doc = #idoc]
            #[derive(Clone)]
            pub struct #it<'a> {
                buf: &'a [u8],
                bytes: &'a [u8],
                at: u64,
                pos: u64,
                index: u32,
                done: bool,
                #iter_fields
                #order_field
            }
            impl<'a> #it<'a> {
                fn new(buf: &'a [u8], bytes: &'a [u8], at: u64 #first_param #new_param) -> Self {
                    Self { buf, bytes, at, #start #iter_init #new_init }
                }
                #part_fn
            }
            impl<'a> Iterator for #it<'a> {
                type Item = #item<'a>;
                #next_inline
                fn next(&mut self) -> Option<#item<'a>> {
                    if self.done {
                        return None;
                    }
                    // Validation proved every record sound: a failure here cannot happen,
                    // and only ends the iteration.
                    self.done = true;
                    #pop
                    let raw = __rt::chunk_at::<#hs_u>(self.bytes, pos)?;
                    let rec = #hty { raw, buf: self.buf, index: self.index #head_order };
                    let _ = &rec;
                    let total: u64 = #total #in_level?;
                    let body = __rt::range_at(self.bytes, pos.checked_add(#hs64)?, total.saturating_sub(#hs64))?;
                    let item = #item {
                        buf: self.buf,
                        header: raw,
                        body,
                        offset: self.at.saturating_add(pos),
                        index: self.index,
                        #item_set
                        #item_init
                    };
                    #tail
                }
            }
            impl core::iter::FusedIterator for #it<'_> {}
        });
    }
    out
}

/// The header field a stream's size is stored in, when `size` is one field of an unsigned
/// integer type: (field index, offset, type, big-endian).
fn size_field(em: &Em<'_>, s: &Stream) -> Option<(usize, u64, crate::schema::IntTy, bool)> {
    // Which streams get a writer: `check/writer_names.rs` (which names its types).
    let fi = crate::check::writer_names::stream_size_field(em.c, s)?;
    let st = em.c.strukt(&s.header.text)?;
    let (off, kind) = *em.c.layouts.get(&s.header.text)?.fields.get(fi)?;
    match kind {
        crate::check::FieldKind::Int(it) if !it.signed() => {
            Some((fi, off, it, st.fields.get(fi)?.big))
        }
        _ => None,
    }
}

/// Per stream whose size is one header field: `<Stream>Spec` (the header fields the writer
/// cannot derive, and the body) and `<Stream>Writer` (`encoded_len` + `write_into`, the
/// records back to back with their sizes and the padding between them, no allocation).
pub fn writers(em: &Em<'_>) -> TokenStream {
    let mut out = Vec::new();
    for s in &em.c.schema.file.streams {
        let Some((size_i, size_off, size_ty, size_big)) = size_field(em, s) else {
            continue;
        };
        let Some(st) = em.c.strukt(&s.header.text) else {
            continue;
        };
        let Some(l) = em.c.layouts.get(&s.header.text) else {
            continue;
        };
        let t = stream_table(s);
        let sn = s.name.text.as_str();
        let spec = format_ident!("{}Spec", camel(sn));
        let wr = format_ident!("{}Writer", camel(sn));
        let hty = format_ident!("{}", s.header.text);
        let hs = l.size;
        let hs_u = lit_usize(hs);
        let hs64 = lit_u64(hs);
        let align = lit_u64(s.align.max(1));
        let align_u = lit_usize(s.align.max(1));
        let mut fields = Vec::new();
        let mut sets = Vec::new();
        let mut floats = false;
        for (i, f) in st.fields.iter().enumerate() {
            if i == size_i {
                continue;
            }
            let Some(&(off, kind)) = l.fields.get(i) else {
                continue;
            };
            floats |= crate::emit::nested_writer::value_has_floats(em.c, kind);
            let name = format_ident!("{}", f.name.text);
            let (ty, _) = crate::emit::writer::field_type(em.c, kind);
            let doc = format!(" `{}`. {}", f.name.text, crate::emit::doc::flow(&f.doc));
            fields.push(quote!(#[doc = #doc] pub #name: #ty,));
            // Written as every writer writes a record's input (`record_writer.rs`).
            sets.push(crate::emit::record_writer::write_input(
                kind,
                off,
                None,
                f.big,
                &quote!(r.#name),
            ));
        }
        let size_path = format!("{sn}[].{}", st.fields[size_i].name.text);
        let sty = format_ident!("{}", size_ty.rust());
        let so = lit_usize(size_off);
        let stob = crate::emit::to_bytes(size_big);
        // The size solved for the field (`check/streams.rs`'s `SizeForm`): `size - C`,
        // `size + C`, then divided by K; what the field cannot give is an error.
        let solve = crate::check::streams::size_form(em.c, s).map_or_else(TokenStream::new, |f| {
            crate::emit::linform::solve(&f, &size_path, &quote!(size))
        });
        let size_value = if s.includes_header {
            quote!((r.body.len() as u64).saturating_add(#hs64))
        } else {
            quote!(r.body.len() as u64)
        };
        // With a terminator: the last record must be one, and no other.
        let term_check = end_tokens(em, s, &t).map(|c| {
            quote! {
                let is_end: bool = {
                    let rec = #hty { raw: &rec, buf: &[], index: 0 };
                    #c
                };
                if is_end != (i + 1 == self.records.len()) {
                    return Err(__rt::WriteError::Layout { item: #sn });
                }
            }
        });
        // A per-record checksum: hashed over the record as written, then stored.
        let sum_patch = s.checksum.as_ref().map(|k| {
            let env = rec_env();
            let bind = |e: &crate::expr::ExprAt, name: &str| {
                let id = format_ident!("{}", name);
                match em.plain(&e.expr, Scope::RecordOnly(&t), &env) {
                    Some(p) => quote!(let #id: Option<u64> = u64::checked_add(#p, 0);),
                    None => {
                        let v = em.value(&e.expr, Scope::RecordOnly(&t), &env);
                        quote!(let #id: Option<u64> = #v;)
                    }
                }
            };
            let (from, to, stored) = (
                bind(&k.from, "from"),
                bind(&k.to, "to"),
                bind(&k.stored, "stored"),
            );
            let tob = crate::emit::to_bytes(k.big);
            let compute = k.algorithm.core_fn(&quote!(d));
            let item = format!("{sn}[].checksum");
            // A checksum only some records carry: the others keep what the spec gave.
            let (carries, skip) = match &k.when {
                Some(w) => {
                    let c = strip_parens(em.cond(&w.expr, Scope::RecordOnly(&t), &env));
                    (
                        quote! {
                            let carries: bool = {
                                let rec = #hty { raw: &rec, buf: &[], index: 0 };
                                #c
                            };
                        },
                        quote!(if carries),
                    )
                }
                None => (TokenStream::new(), TokenStream::new()),
            };
            quote! {
                #carries
                #skip {
                    let rec = #hty { raw: &rec, buf: &[], index: 0 };
                    let _ = &rec;
                    #from
                    #to
                    #stored
                    let total = cursor.saturating_sub(start);
                    // The covered bytes and the stored word inside the record, apart: a
                    // stored field never lies inside the bytes it covers (`check/sum_span.rs`).
                    let record = __rt::range_at(out, start, total);
                    let place = match (from, to, stored, record) {
                        (Some(f), Some(t), Some(so), Some(r)) => {
                            __rt::covered_apart(r, f, t, so, 4).map(|d| (so, d))
                        }
                        _ => None,
                    };
                    let Some((so, d)) = place else {
                        return Err(__rt::WriteError::Layout { item: #item });
                    };
                    let computed: u32 = #compute;
                    __rt::put(out, start.saturating_add(so), &computed.#tob())?;
                }
            }
        });
        // Where the record starts, for its checksum.
        let start_bind = sum_patch.as_ref().map(|_| quote!(let start = cursor;));
        let eq = if floats { quote!() } else { quote!(, Eq) };
        let body_doc = if s.checksum.is_some() {
            " The body: the bytes after the header. The writer computes the record's checksum and stores it at its place, over what the spec gives there (a header field, or body bytes when it lies in the body)."
        } else {
            " The body: the bytes after the header."
        };
        let sdoc = format!(
            " One record of stream `{sn}` for [`{wr}`]: the header fields the writer does not derive (it writes `{}` {}), and the body.",
            st.fields[size_i].name.text,
            match (
                s.size.text == st.fields[size_i].name.text,
                s.includes_header
            ) {
                (true, false) => "from the body's length".to_string(),
                (true, true) => "from the record's length, its header included".to_string(),
                (false, false) => format!("so that `{}` is the body's length", s.size.text),
                (false, true) => format!(
                    "so that `{}` is the record's length, its header included",
                    s.size.text
                ),
            }
        );
        let wdoc = format!(
            " Writes the records of stream `{sn}` back to back: each header (with its size), its body and zero padding to a multiple of {} before the next record. The bytes go into the file's `{}` range (its writer setter, or your own layout).",
            s.align.max(1),
            s.range.text
        );
        let term_doc = if s.end.is_some() {
            " The last record must be the terminator, and only the last (`Layout` error otherwise)."
        } else {
            ""
        };
        out.push(quote! {
            #[doc = #sdoc]
            #[derive(Clone, Copy, Debug, PartialEq #eq)]
            pub struct #spec<'a> {
                #(#fields)*
                #[doc = #body_doc]
                pub body: &'a [u8],
            }
            #[doc = #wdoc]
            #[doc = #term_doc]
            #[derive(Clone, Copy, Debug)]
            pub struct #wr<'a> {
                records: &'a [#spec<'a>],
            }
            impl<'a> #wr<'a> {
                /// A writer of these records, in order.
                #[must_use]
                pub const fn new(records: &'a [#spec<'a>]) -> Self {
                    Self { records }
                }
                /// The value of the size field for a record of `size` bytes (`size` as the
                /// schema states it), solved for the field.
                ///
                /// # Errors
                /// `TooLarge` when the field cannot hold it; `NotRepresentable` when no
                /// value of the field gives that size.
                fn stored_size(size: u64) -> Result<#sty, __rt::WriteError> {
                    let v = size;
                    #solve
                    #sty::try_from(v).map_err(|_| __rt::WriteError::TooLarge { field: #size_path, value: size })
                }
                /// The bytes the records take, padding between them included.
                ///
                /// # Errors
                /// A size its field cannot give (`TooLarge`, `NotRepresentable`); a length
                /// past `u64`.
                pub fn encoded_len(&self) -> Result<usize, __rt::WriteError> {
                    let mut cursor: u64 = 0;
                    for (i, r) in self.records.iter().enumerate() {
                        if i > 0 {
                            cursor = __rt::aligned(cursor, #align, #sn)?;
                        }
                        Self::stored_size(#size_value)?;
                        cursor = cursor.checked_add(#hs64).and_then(|c| c.checked_add(r.body.len() as u64))
                            .ok_or(__rt::WriteError::TooLarge { field: #sn, value: cursor })?;
                    }
                    usize::try_from(cursor).map_err(|_| __rt::WriteError::TooLarge { field: #sn, value: cursor })
                }
                /// Write the records into `out` (zeroing the padding); returns the bytes written.
                ///
                /// # Errors
                /// `out` too small, a size its field cannot give, or (with a
                /// terminator) a terminator that is not the last record.
                pub fn write_into(&self, out: &mut [u8]) -> Result<usize, __rt::WriteError> {
                    let n = self.encoded_len()?;
                    if out.len() < n {
                        return Err(__rt::WriteError::BufferTooSmall { needed: n as u64, available: out.len() as u64 });
                    }
                    let mut cursor: u64 = 0;
                    for (i, r) in self.records.iter().enumerate() {
                        if i > 0 {
                            let at = __rt::aligned(cursor, #align, #sn)?;
                            let pad = usize::try_from(at.saturating_sub(cursor)).unwrap_or(0);
                            __rt::put(out, cursor, [0u8; #align_u].get(..pad).unwrap_or(&[]))?;
                            cursor = at;
                        }
                        let mut rec = [0u8; #hs_u];
                        #(#sets)*
                        let v = Self::stored_size(#size_value)?;
                        __rt::set(&mut rec, #so, v.#stob());
                        #term_check
                        #start_bind
                        __rt::put(out, cursor, &rec)?;
                        cursor = cursor.saturating_add(#hs64);
                        __rt::put(out, cursor, r.body)?;
                        cursor = cursor.saturating_add(r.body.len() as u64);
                        #sum_patch
                    }
                    Ok(n)
                }
            }
        });
    }
    quote!(#(#out)*)
}
