//! Emission of `first(collection)`, `last(collection)`, `first_body(collection)` and
//! `last_body(collection)` (`check/positions.rs`): the walk's per-collection `Option<u64>`s
//! and the reads of them in expressions; and `count(collection)` of a stream's typed
//! collection, a slot of the counts array its walk fills.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::Checked;
use crate::check::positions::calls;
use crate::expr::{Expr, ExprAt, FIRST_BODY, LAST, NAME, POSITIONS};
use crate::schema::top::Step;

/// Every expression of validation steps (`for_each` bodies, `when` conditions, order keys,
/// limits and the steps of the other constructs included).
pub(crate) fn step_exprs<'s>(c: &'s Checked, steps: &'s [Step], out: &mut Vec<&'s ExprAt>) {
    for s in steps {
        match s {
            Step::MinLen { min, .. } => out.push(min),
            Step::Expect { field, equals, .. } => out.extend([field, equals]),
            Step::Assert { expr, repeat, .. } => {
                out.push(expr);
                out.extend(repeat.as_ref().map(|r| &r.below));
            }
            Step::Let { value, .. } => out.push(value),
            Step::TableFits { within, .. } | Step::RangeFits { within, .. } => out.push(within),
            Step::Order { by, .. } => out.extend(by.iter()),
            Step::Ext(x) => out.extend(crate::check::ext::step_exprs(c, x)),
            Step::Fill(f) => out.extend(crate::check::fill::step_exprs(f)),
            Step::ForEach { steps, .. } => step_exprs(c, steps, out),
            Step::When { when, step } => {
                out.push(when);
                step_exprs(c, std::slice::from_ref(&**step), out);
            }
            Step::Checksum { .. }
            | Step::FlagsKnown { .. }
            | Step::EnumKnown { .. }
            | Step::Str(_)
            | Step::StreamFits { .. } => {}
        }
    }
}

/// The (function, collection) pairs some validation step asks about (the emitter keeps a
/// position for these only).
#[must_use]
pub fn used(c: &Checked) -> Vec<(&'static str, String)> {
    let mut es = Vec::new();
    step_exprs(c, &c.schema.file.validate, &mut es);
    let mut out = Vec::new();
    for e in es {
        calls(&e.expr, &mut out);
    }
    out
}

/// The collections whose `count()` some validation step asks (a walk hands on the counts of
/// these only).
#[must_use]
pub fn counted(c: &Checked) -> Vec<String> {
    let mut es = Vec::new();
    step_exprs(c, &c.schema.file.validate, &mut es);
    let mut out: Vec<String> = Vec::new();
    for e in es {
        expr_counts(&e.expr, &mut out);
    }
    out
}

/// The collections whose `count()` expression `e` asks, each once, added to `out`.
pub(crate) fn expr_counts(e: &Expr, out: &mut Vec<String>) {
    for (f, n) in e.named_calls() {
        if f == "count" && !out.iter().any(|x| x == n) {
            out.push(n.to_string());
        }
    }
}

/// The variable that holds the first (`f`: `first`) or last (`last`) record's index of
/// collection `name` (an `Option<u64>` bound by the `stream_fits` step).
pub(crate) fn var(f: &str, name: &str) -> proc_macro2::Ident {
    format_ident!("__{}_{}", f, name)
}

/// `u64` tokens (with `?`: the check fails when the collection has no record) for
/// `first(name)` or `last(name)` (`f`).
#[must_use]
pub fn emit_call(f: &str, args: &[Expr]) -> TokenStream {
    let name = match args {
        [Expr::Ref(p)] => p.first().map_or("missing", String::as_str),
        _ => "missing",
    };
    let v = var(f, name);
    quote!(#v?)
}

/// For the walk of a stream: for each of `first(name)` and `last(name)` some step asks
/// about, its variable, its declaration before the walk, and the statement that records the
/// current record's `index` (the first time a record of the collection is met; every time).
#[must_use]
pub fn walk_tokens(c: &Checked, name: &str) -> Vec<(proc_macro2::Ident, TokenStream, TokenStream)> {
    let used = used(c);
    // A body starts after its record's header (`rec_at` in the walk: where the record starts).
    let hs = c
        .schema
        .file
        .streams
        .iter()
        .find(|s| s.layouts.iter().any(|l| l.collection.text == name))
        .and_then(|s| c.layouts.get(&s.header.text))
        .map_or(0, |l| l.size);
    let hs = crate::emit::lit_u64_suffixed(hs);
    POSITIONS
        .iter()
        .filter(|f| used.iter().any(|(uf, n)| uf == *f && n == name))
        .map(|f| {
            let v = var(f, name);
            let value = if *f == NAME || *f == LAST {
                quote!(index)
            } else {
                quote!(rec_at.saturating_add(#hs))
            };
            let set = if *f == NAME || *f == FIRST_BODY {
                quote!(#v = #v.or(Some(#value));)
            } else {
                quote!(#v = Some(#value);)
            };
            (v.clone(), quote!(let mut #v: Option<u64> = None;), set)
        })
        .collect()
}

/// The array of stream `s`'s typed collections' counts, declared before its walk: slot `k`
/// is its `k`-th kept layout's (`check::streams::kept_layouts`).
pub(crate) fn counts_var(s: &crate::schema::streams::Stream) -> proc_macro2::Ident {
    format_ident!("__counts_{}", s.name.text)
}

/// `count(collection)` of a typed collection of a stream: its slot of the walk's counts.
pub(crate) fn layout_count(c: &Checked, name: &str) -> Option<TokenStream> {
    c.schema.file.streams.iter().find_map(|s| {
        let k = crate::check::streams::kept_layouts(c, s)
            .iter()
            .position(|(l, _, _)| l.collection.text == name)?;
        let (v, k) = (counts_var(s), crate::emit::lit_usize(k as u64));
        Some(quote!(#v[#k]))
    })
}
