//! Record positions in a stream: `first(collection)` and `last(collection)`, the index in its
//! stream of the first and the last record of a stream collection (a layout's records), for
//! order rules across records of different types ("IHDR comes first": `first(ihdrs) == 0`;
//! "`fmt ` before `data`": `first(fmts) < first(datas)`; "IDAT chunks are consecutive":
//! `last(idats) - first(idats) + 1 == count(idats)`); and `first_body(collection)` and
//! `last_body(collection)`, where those records' bodies start in the file, to place a located
//! record there and read it anywhere after (WAVE's "the data length is a multiple of the
//! format chunk's `block_align`": `records: { fmt: { struct: Fmt, at: "first_body(fmts)" } }`).
//!
//! The `stream_fits` walk computes it in the pass that counts the records (no allocation,
//! no second walk): the emitter keeps one `Option<u64>` per collection that some step asks
//! about, the interpreter takes it from its own walk. A collection with no record has no
//! first record: the value is missing and the check that reads it fails closed with its own
//! code (as `table[expr].field` does for a record that is not there). It is a value of
//! validation steps only: the views and the writer compute without it, so it is refused in
//! the definitions of tables, ranges, checksums, records and streams.

use crate::check::{Checked, StepState};
use crate::diag::Diags;
use crate::expr::{Expr, ExprAt, POSITIONS};

/// Every `first(...)` and `last(...)` in `e`, as (function, collection), in order.
pub fn calls(e: &Expr, out: &mut Vec<(&'static str, String)>) {
    for (f, n) in e.named_calls() {
        if let Some(k) = POSITIONS.iter().find(|k| **k == f)
            && !out.iter().any(|(kk, nn)| kk == k && nn == n)
        {
            out.push((k, n.to_string()));
        }
    }
}

/// Check one `first(...)` or `last(...)` call (`f`): its argument names a collection of a
/// record stream.
pub(crate) fn check_call(
    c: &Checked,
    f: &str,
    args: &[Expr],
    what: &str,
    at: &ExprAt,
    d: &mut Diags,
) -> bool {
    let file = &c.schema.file;
    if let [Expr::Ref(p)] = args
        && let [n] = p.as_slice()
    {
        if crate::check::lookup::collection(file, n).is_some() {
            return true;
        }
        if crate::check::lookup::stream(file, n).is_some() {
            d.error(at.pos, format!("{what} `{}`: {f}({n}) names a stream (its first record is record 0, its last `count({n}) - 1`); {f}() takes one of its collections (a layout's name)", at.text));
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
            "{what} `{}`: {f}() takes one collection of a record stream (a layout's name: {})",
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

/// A `first(...)` or `last(...)` read before the `stream_fits` step that walks its stream (in a
/// validation step: in a definition it is refused by [`check_file`], and a name that is no
/// collection by [`check_call`]).
pub(crate) fn unwalked(c: &Checked, e: &ExprAt, st: &StepState, d: &mut Diags) {
    let mut names = Vec::new();
    calls(&e.expr, &mut names);
    // (Most expressions read no position: the definitions are listed only for those that
    // do, so checking a schema's steps stays linear in them.)
    if names.is_empty() || definitions(c).iter().any(|(x, _)| std::ptr::eq(*x, e)) {
        return;
    }
    for (f, n) in names {
        if crate::check::lookup::collection(&c.schema.file, &n).is_some()
            && !st.tables_fitted.contains(&n)
        {
            d.error(
                e.pos,
                format!(
                    "`{}` reads the {f} record of `{n}` before the stream_fits step that walks its stream",
                    e.text
                ),
            );
        }
    }
}

/// A position in the definition of a table, range, checksum, located record per record or
/// found by a search, string or stream: refused (the views and the writer compute those
/// without the walk's positions). A file-level located record's `at` may read one.
pub(crate) fn check_file(c: &Checked, d: &mut Diags) {
    for (e, what) in definitions(c) {
        let mut names = Vec::new();
        calls(&e.expr, &mut names);
        if let Some((f, _)) = names.first() {
            d.error(e.pos, format!("{what}: `{}` uses {f}(), a position the stream_fits step computes for validation steps (the views and the writer compute without it)", e.text));
        } else if reads_word(&e.expr) {
            d.error(e.pos, format!("{what}: `{}` reads a word of the file with word(), a value of validation steps (the views and the writer compute {what} from its fields, without reading the file elsewhere): check it in a step", e.text));
        }
    }
}

/// Whether `e` calls `word(..)` anywhere in it.
fn reads_word(e: &Expr) -> bool {
    match e {
        Expr::Call(f, args) => f == crate::expr::WORD || args.iter().any(reads_word),
        Expr::Bin(_, l, r) => reads_word(l) || reads_word(r),
        Expr::Not(x) | Expr::At(_, x, _) | Expr::Key(_, x) => reads_word(x),
        Expr::Num(_) | Expr::Ref(_) => false,
    }
}

/// The expressions that define the file's tables, ranges, checksums, located records,
/// strings and streams, each with what it defines.
pub(crate) fn definitions(c: &Checked) -> Vec<(&ExprAt, String)> {
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
    for k in file.checksums.iter().chain(&file.record_checksums) {
        for e in [&k.from, &k.to, &k.stored] {
            defs.push((e, format!("checksum `{}`", k.name.text)));
        }
    }
    for r in &file.ext.records {
        // A file-level record placed where it is (no search) is placed by its record_fits
        // step, after the walk, and the view keeps its bytes: its `at` may read a position
        // (`first_body(fmts)`: WAVE's format chunk). One per record of a collection is found
        // again by the view's accessor, without the walk.
        if r.table.is_some() || r.search.is_some() {
            defs.push((&r.at, format!("record `{}`", r.name.text)));
        }
        if let Some(s) = &r.search {
            defs.push((&s.cond, format!("record `{}`", r.name.text)));
        }
    }
    for s in &file.strings {
        defs.push((&s.offset, format!("string `{}`", s.name.text)));
    }
    for s in &file.streams {
        let what = format!("stream `{}`", s.name.text);
        defs.push((&s.size, what.clone()));
        defs.extend(s.end.iter().map(|e| (e, what.clone())));
        if let Some(ch) = &s.chain {
            defs.extend([&ch.first, &ch.next_at].map(|e| (e, what.clone())));
        }
        if let Some(w) = &s.within {
            defs.extend([&w.from, &w.to].map(|e| (e, what.clone())));
        }
        if let Some(k) = &s.checksum {
            defs.extend([&k.from, &k.to, &k.stored].map(|e| (e, what.clone())));
            defs.extend(k.when.iter().map(|e| (e, what.clone())));
        }
    }
    defs
}
