//! Record positions in a stream: `first(collection)`, the index in its stream of the first
//! record of a stream collection (a layout's records), for order rules across records of
//! different types ("IHDR comes first": `first(ihdrs) == 0`; "`fmt ` before `data`":
//! `first(fmts) < first(datas)`).
//!
//! The `stream_fits` walk computes it in the pass that counts the records (no allocation,
//! no second walk): the emitter keeps one `Option<u64>` per collection that some step asks
//! about, the interpreter takes it from its own walk. A collection with no record has no
//! first record: the value is missing and the check that reads it fails closed with its own
//! code (as `table[expr].field` does for a record that is not there). It is a value of
//! validation steps only: the views and the writer compute without it, so it is refused in
//! the definitions of tables, ranges, checksums, records and streams.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::{Checked, StepState};
use crate::diag::Diags;
use crate::expr::NAME;
use crate::expr::{Expr, ExprAt};
use crate::schema::Step;

/// Every collection named by a `first(...)` in `e`, in order.
pub fn calls(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Num(_) | Expr::Ref(_) => {}
        Expr::Not(x) | Expr::At(_, x, _) => calls(x, out),
        Expr::Bin(_, l, r) => {
            calls(l, out);
            calls(r, out);
        }
        Expr::Call(f, args) => {
            if let (true, [Expr::Ref(p)]) = (f == NAME, args.as_slice())
                && let Some(n) = p.first()
                && !out.contains(n)
            {
                out.push(n.clone());
            }
            args.iter().for_each(|a| calls(a, out));
        }
    }
}

/// Every expression of validation steps (`for_each` bodies, `when` conditions, order keys,
/// limits and the steps of the other constructs included).
fn step_exprs<'s>(c: &'s Checked, steps: &'s [Step], out: &mut Vec<&'s ExprAt>) {
    for s in steps {
        match s {
            Step::MinLen { min, .. } => out.push(min),
            Step::Expect { field, equals, .. } => out.extend([field, equals]),
            Step::Assert { expr, .. } => out.push(expr),
            Step::Let { value, .. } => out.push(value),
            Step::TableFits { within, .. } | Step::RangeFits { within, .. } => out.push(within),
            Step::Order { by, .. } => out.extend(by.iter()),
            Step::Ext(x) => out.extend(crate::ext::step_exprs(c, x)),
            Step::Fill(f) => out.extend(crate::fill::step_exprs(f)),
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

/// The collections whose first record some validation step asks about (the emitter keeps a
/// position for these only).
#[must_use]
pub fn used(c: &Checked) -> Vec<String> {
    let mut es = Vec::new();
    step_exprs(c, &c.schema.file.validate, &mut es);
    let mut out = Vec::new();
    for e in es {
        calls(&e.expr, &mut out);
    }
    out
}

/// Check one `first(...)` call: its argument names a collection of a record stream.
pub(crate) fn check_call(
    c: &Checked,
    args: &[Expr],
    what: &str,
    at: &ExprAt,
    d: &mut Diags,
) -> bool {
    let file = &c.schema.file;
    if let [Expr::Ref(p)] = args
        && let [n] = p.as_slice()
    {
        if crate::streams::collection(file, n).is_some() {
            return true;
        }
        if crate::streams::stream(file, n).is_some() {
            d.error(at.pos, format!("{what} `{}`: first({n}) names a stream, whose first record is record 0; first() takes one of its collections (a layout's name)", at.text));
            return false;
        }
    }
    let names: Vec<&str> = file
        .streams
        .iter()
        .flat_map(|s| s.layouts.iter().map(|l| l.collection.text.as_str()))
        .collect();
    d.error(
        at.pos,
        format!(
            "{what} `{}`: first() takes one collection of a record stream (a layout's name: {})",
            at.text,
            if names.is_empty() {
                "this file has none".to_string()
            } else {
                names.join(", ")
            }
        ),
    );
    false
}

/// A `first(...)` read before the `stream_fits` step that walks its stream (in a
/// validation step: in a definition it is refused by [`check_file`], and a name that is no
/// collection by [`check_call`]).
pub(crate) fn unwalked(c: &Checked, e: &ExprAt, st: &StepState, d: &mut Diags) {
    if definitions(c).iter().any(|(x, _)| std::ptr::eq(*x, e)) {
        return;
    }
    let mut names = Vec::new();
    calls(&e.expr, &mut names);
    for n in names {
        if crate::streams::collection(&c.schema.file, &n).is_some()
            && !st.tables_fitted.contains(&n)
        {
            d.error(
                e.pos,
                format!(
                    "`{}` reads the first record of `{n}` before the stream_fits step that walks its stream",
                    e.text
                ),
            );
        }
    }
}

/// `first(...)` in the definition of a table, range, checksum, located record, string or
/// stream: refused (the views and the writer compute those without the walk's positions).
pub(crate) fn check_file(c: &Checked, d: &mut Diags) {
    for (e, what) in definitions(c) {
        let mut names = Vec::new();
        calls(&e.expr, &mut names);
        if !names.is_empty() {
            d.error(e.pos, format!("{what}: `{}` uses first(), a position the stream_fits step computes for validation steps (the views and the writer compute without it)", e.text));
        }
    }
}

/// The expressions that define the file's tables, ranges, checksums, located records,
/// strings and streams, each with what it defines.
fn definitions(c: &Checked) -> Vec<(&ExprAt, String)> {
    let file = &c.schema.file;
    let mut defs: Vec<(&ExprAt, String)> = Vec::new();
    for t in &file.tables {
        for e in [&t.at, &t.count, &t.stride] {
            defs.push((e, format!("table `{}`", t.name.text)));
        }
    }
    for r in &file.ranges {
        for e in [&r.offset, &r.length].into_iter().chain(r.when.iter()) {
            defs.push((e, format!("range `{}`", r.name.text)));
        }
    }
    for k in &file.checksums {
        for e in [&k.from, &k.to, &k.stored] {
            defs.push((e, format!("checksum `{}`", k.name.text)));
        }
    }
    for r in &file.ext.records {
        defs.push((&r.at, format!("record `{}`", r.name.text)));
    }
    for s in &file.strings {
        defs.push((&s.offset, format!("string `{}`", s.name.text)));
    }
    for s in &file.streams {
        let what = format!("stream `{}`", s.name.text);
        defs.push((&s.size, what.clone()));
        defs.extend(s.end.iter().map(|e| (e, what.clone())));
        if let Some(k) = &s.checksum {
            defs.extend([&k.from, &k.to, &k.stored].map(|e| (e, what.clone())));
        }
    }
    defs
}

/// The variable that holds the first record's index of collection `name` (an `Option<u64>`
/// bound by the `stream_fits` step).
fn var(name: &str) -> proc_macro2::Ident {
    format_ident!("__first_{}", name)
}

/// `u64` tokens (with `?`: the check fails when the collection has no record) for
/// `first(name)`.
#[must_use]
pub fn emit_call(args: &[Expr]) -> TokenStream {
    let name = match args {
        [Expr::Ref(p)] => p.first().map_or("missing", String::as_str),
        _ => "missing",
    };
    let v = var(name);
    quote!(#v?)
}

/// For the walk of a stream: when collection `name` is asked about, its variable, its
/// declaration before the walk, and the statement that records the current record's
/// `index` the first time a record of the collection is met.
#[must_use]
pub fn walk_tokens(
    c: &Checked,
    name: &str,
) -> Option<(proc_macro2::Ident, TokenStream, TokenStream)> {
    if !used(c).iter().any(|n| n == name) {
        return None;
    }
    let v = var(name);
    Some((
        v.clone(),
        quote!(let mut #v: Option<u64> = None;),
        quote! {
            if #v.is_none() {
                #v = Some(index);
            }
        },
    ))
}

/// The name a comparison's error gives an operand that is a `first(...)`
/// (`first(fmts)`); empty for any other expression.
#[must_use]
pub fn operand_name(e: &Expr) -> String {
    match e {
        Expr::Call(f, args) if f == NAME => match args.as_slice() {
            [Expr::Ref(p)] => format!("{f}({})", p.join(".")),
            _ => String::new(),
        },
        _ => String::new(),
    }
}
