//! `table[expr].field`: a field of a table's record at a computed index.
//!
//! The reference resolves as the constant-index form `<table>.N.<field>` does (an
//! [`Owner::Element`]), with the index [`COMPUTED`] standing for "the value of the index
//! expression": the emitter binds it to `__at` before reading the record, the interpreter
//! substitutes it. A record that is not there (the index at or past the table's count, or
//! the index overflowing) makes the whole expression fail, so the check that uses it fails
//! closed with its own code, exactly as `<table>.N.<field>` does for a missing record.
//!
//! The index may be a key, `table[field == value].field` ([`Expr::Key`]): the first record
//! whose `field` equals `value`, found by a search ([`check_key`] says where one may be made).

use crate::check::{Checked, Owner, RecPos, Resolved, Scope, StepState};
use crate::diag::Diags;
use crate::expr::{Expr, ExprAt};

/// The element index that stands for the computed one.
pub const COMPUTED: u64 = u64::MAX;

/// The reference path `[table, COMPUTED, field...]` that [`Checked::resolve`] resolves to
/// an [`Owner::Element`] with the index [`COMPUTED`].
pub fn path(table: &str, field: &[String]) -> Vec<String> {
    let mut p = vec![table.to_string(), COMPUTED.to_string()];
    p.extend(field.iter().cloned());
    p
}

/// What `table[..].field` reads: a number (a field, a composed value or a bit range of a
/// record of a table of the file).
pub fn resolve(
    c: &Checked,
    table: &str,
    field: &[String],
    scope: Scope<'_>,
) -> Result<Resolved, String> {
    if let Some(sub) = walked(c, table, scope) {
        // A field of a record of a stream (within the current record, or at file level),
        // read in that stream's record scope (`Owner::Record` of `sub`).
        return match c.resolve(field, Scope::Record(sub)) {
            Ok(
                r @ (Resolved::Field(Owner::Record, _)
                | Resolved::Composed(Owner::Record, _)
                | Resolved::BitField(Owner::Record, _, _)),
            ) => Ok(r),
            // Where the found record lies (`entries[tag == 273].record.offset`: TIFF's values
            // inline in the entry, 8 bytes after its start).
            Ok(
                r @ Resolved::RecPos(
                    RecPos::Offset | RecPos::BodyOffset | RecPos::BodyLen | RecPos::End,
                ),
            ) => Ok(r),
            Ok(Resolved::RecPos(_)) => Err(format!(
                "`{table}[...].{}`: of a record found in a stream, `record.offset`, `record.body_offset`, `record.body_len` and `record.end` are read (not its index or depth)",
                field.join(".")
            )),
            Ok(Resolved::FlagBit(..)) => Err(format!(
                "`{table}[...].{}`: a record's flag bits cannot be tested this way (compare its value instead)",
                field.join(".")
            )),
            _ => Err(format!(
                "`{table}[...].{}` must name a field of the header of `{table}`'s records ({})",
                field.join("."),
                c.strukt(&sub.record.text).map_or(String::new(), |st| st
                    .fields
                    .iter()
                    .map(|f| format!("`{}`", f.name.text))
                    .collect::<Vec<_>>()
                    .join(", "))
            )),
        };
    }
    if matches!(scope, Scope::RecordOnly(_)) {
        return Err(format!(
            "`{table}[...]` reads another record, which a record's view cannot: write it in a validation step"
        ));
    }
    if !c.schema.file.tables.iter().any(|t| t.name.text == table) {
        let file = &c.schema.file;
        // A stream's records are where a walk finds them, not at an index's place.
        let walked = "whose records are found by walking it, not placed by an index (`table[index].field` reads a table's record)";
        if crate::check::lookup::collection(file, table).is_some() {
            return Err(format!(
                "`{table}[...]`: `{table}` is a record stream's collection, {walked}: read its first or last record as a located record at `first_body({table})` or `last_body({table})`, or compare positions in a `for_each` (`record.index == first({table})`)"
            ));
        }
        if let Some(st) = crate::check::lookup::stream(file, table) {
            // Read where it is evaluated once per file (a step outside `for_each`, a `let`
            // there), or, within another stream's records, once per holding record.
            if let Some(w) = &st.within {
                return Err(format!(
                    "`{table}[...]` walks stream `{table}`: at file level (a step outside `for_each`) for its whole, or inside `for_each: {h}` among the current record's, where `{table}[field == value].field` finds one; here it would walk it once per record (work growing with the square of the records)",
                    h = w.stream.text
                ));
            }
            if matches!(scope, Scope::Record(_)) {
                return Err(format!(
                    "`{table}[...]` walks stream `{table}` to its record, here once per record of a `for_each` (work growing with the square of the records): read it at file level (a `let` step outside the `for_each`) and compare with that"
                ));
            }
            let layouts: Vec<&str> = st
                .layouts
                .iter()
                .map(|l| l.collection.text.as_str())
                .collect();
            return Err(format!(
                "`{table}[...]`: `{table}` is a record stream, {walked}: read a record of one type through its collection ({}) with `first_body(..)` or `last_body(..)` (a located record's `at`), or compare positions with `first(..)`, `last(..)` and `record.index`",
                if layouts.is_empty() {
                    "it declares none: add `layouts`".to_string()
                } else {
                    layouts.join(", ")
                }
            ));
        }
        let tables: Vec<&str> = file.tables.iter().map(|t| t.name.text.as_str()).collect();
        return Err(if tables.is_empty() {
            format!("`{table}[...]`: `{table}` is not a table of the file (it has no tables)")
        } else {
            format!(
                "`{table}[...]`: `{table}` is not a table of the file (tables: {})",
                tables.join(", ")
            )
        });
    }
    match c.resolve(&path(table, field), scope)? {
        Resolved::FlagBit(..) => Err(format!(
            "`{table}[...].{}`: a table element's flag bits cannot be tested (compare its value instead)",
            field.join(".")
        )),
        r @ (Resolved::Field(Owner::Element(..), _)
        | Resolved::Composed(Owner::Element(..), _)
        | Resolved::BitField(Owner::Element(..), _, _)) => Ok(r),
        _ => Err(format!(
            "`{table}[...].{}` must name a field of the record",
            field.join(".")
        )),
    }
}

/// Check the key of `table[key == value].field` (a lookup): the key is a field (or a
/// composed value or a bit range) of the table's record, and the lookup is made at file
/// level only. A search reads up to every record of the table; once per record of a
/// `for_each` (or of a per-record range, checksum or located record) that would be work
/// growing with the square of the records, so it is refused there: search once, at file
/// level, and compare with what it found.
pub(crate) fn check_key(
    c: &Checked,
    table: &str,
    key: &[String],
    scope: Scope<'_>,
) -> Result<(), String> {
    let k = key.join(".");
    if matches!(scope, Scope::RecordOnly(_)) {
        // A record's view reads no other record: said once, of the whole `table[...]`.
        return Ok(());
    }
    if walked(c, table, scope).is_some() {
        // Searched among the current record's own (the parts do not overlap, or the walk
        // bounded them), or once per file: each record is read once per step that asks.
        return resolve(c, table, key, scope).map(|_| ()).map_err(|msg| {
            format!("the key `{k}` of `{table}[{k} == ...]` must be a field of its record: {msg}")
        });
    }
    if crate::check::lookup::stream(&c.schema.file, table).is_some() {
        // Where a stream's record cannot be searched for: said once, of the whole
        // `table[...]`, by `resolve` (where it may be written instead).
        return Ok(());
    }
    if let Scope::Record(t) = scope {
        return Err(format!(
            "`{table}[{k} == ...]` searches `{table}` for its record, here once per record of `{}`: work growing with the square of the records. Search once at file level (a `let` step or a located record's `at`) and compare with what it found",
            t.name.text
        ));
    }
    resolve(c, table, key, scope).map(|_| ()).map_err(|msg| {
        // The field's own complaint, said of the key.
        let own = format!("`{table}[...].{k}`: ");
        format!(
            "the key `{k}` of `{table}[{k} == ...]` must be a field of its record: {}",
            msg.strip_prefix(&own).unwrap_or(&msg)
        )
    })
}

/// The stream `table` when it is within the records of the stream the scope is a record
/// of (`for_each: H`, `table` declared `within: { stream: H }`): `table[key == value]`
/// then finds a record among the current record's part, as its stream's table scope.
pub fn sub_stream<'c>(
    c: &'c Checked,
    table: &str,
    scope: Scope<'_>,
) -> Option<&'c crate::schema::Table> {
    let Scope::Record(h) = scope else {
        return None;
    };
    let file = &c.schema.file;
    let s = crate::check::lookup::stream(file, table)?;
    let w = s.within.as_ref()?;
    // The holding stream's own `for_each` (not one of its collections'), where the
    // current record is a record of the holding stream.
    if w.stream.text != h.name.text || crate::check::lookup::stream(file, &h.name.text).is_none() {
        return None;
    }
    c.collections.iter().find(|t| t.name.text == table)
}

/// The stream `table` when `table[..]` walks it here: within the current record
/// ([`sub_stream`]), or all of it where an expression is evaluated once per file (a step
/// or a `let` outside `for_each`: `chunks[0].chunk_type`, `chunks[chunk_type == IEND]`).
pub fn walked<'c>(
    c: &'c Checked,
    table: &str,
    scope: Scope<'_>,
) -> Option<&'c crate::schema::Table> {
    if let Some(t) = sub_stream(c, table, scope) {
        return Some(t);
    }
    if !matches!(scope, Scope::Top) {
        return None;
    }
    crate::check::lookup::stream(&c.schema.file, table)?;
    c.collections.iter().find(|t| t.name.text == table)
}

/// Every `table[..].field` in `e`, outermost first.
pub fn all(e: &Expr) -> Vec<(&str, &Expr, &[String])> {
    fn walk<'a>(e: &'a Expr, out: &mut Vec<(&'a str, &'a Expr, &'a [String])>) {
        match e {
            Expr::Num(_) | Expr::Ref(_) => {}
            Expr::Not(x) => walk(x, out),
            Expr::Bin(_, l, r) => {
                walk(l, out);
                walk(r, out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| walk(a, out)),
            Expr::At(t, i, f) => {
                out.push((t, i, f));
                walk(i, out);
            }
            Expr::Key(_, v) => walk(v, out),
        }
    }
    let mut out = Vec::new();
    walk(e, &mut out);
    out
}

/// A `table[..]` read before the table's `table_fits` step (what `<table>.N.<field>` gets).
pub(crate) fn unfitted(c: &Checked, e: &ExprAt, st: &StepState, d: &mut Diags) {
    let mut seen: Vec<&str> = Vec::new();
    for (t, _, _) in all(&e.expr) {
        if seen.contains(&t) {
            continue;
        }
        // A stream is walked for its records after its walk checked every one.
        let within = crate::check::lookup::stream(&c.schema.file, t).is_some();
        if within && !st.tables_fitted.iter().any(|x| x == t) {
            seen.push(t);
            d.error(
                e.pos,
                format!(
                    "`{}` searches stream `{t}` before the stream_fits step that walks it",
                    e.text
                ),
            );
            continue;
        }
        if !c.schema.file.tables.iter().any(|x| x.name.text == t) {
            continue;
        }
        seen.push(t);
        if !st.tables_fitted.iter().any(|x| x == t) {
            d.error(
                e.pos,
                format!(
                    "`{}` reads table `{t}` before the table_fits step that makes it safe to read",
                    e.text
                ),
            );
        }
    }
}

/// A written `<table>.<COMPUTED>.<field>`: the index that stands for a computed one is
/// not a record anyone can name.
pub(crate) fn reserved_index(c: &Checked, e: &ExprAt, scope: Scope<'_>, d: &mut Diags) {
    for p in e.expr.refs() {
        if let Ok(
            Resolved::Field(Owner::Element(_, COMPUTED), _)
            | Resolved::Composed(Owner::Element(_, COMPUTED), _)
            | Resolved::BitField(Owner::Element(_, COMPUTED), _, _)
            | Resolved::FlagBit(Owner::Element(_, COMPUTED), _, _),
        ) = c.resolve(p, scope)
        {
            d.error(
                e.pos,
                format!(
                    "`{}`: record index {COMPUTED} is too large (write `table[index].field`)",
                    e.text
                ),
            );
        }
    }
}

/// A writer computes the places of tables, ranges and checksums and the values of `expect`
/// steps before it has written any table, so it cannot read `table[...]` in them: refused
/// (the validator and the view do not need the writer).
pub(crate) fn check_writer(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    if file.writer.is_none() {
        return;
    }
    let mut exprs: Vec<&ExprAt> = Vec::new();
    for t in &file.tables {
        exprs.extend([&t.at, &t.count, &t.stride]);
    }
    for r in file.ranges.iter().filter(|r| r.table.is_none()) {
        exprs.extend([&r.offset, &r.length]);
    }
    for k in &file.checksums {
        exprs.extend([&k.from, &k.to, &k.stored]);
    }
    fn expects<'s>(steps: &'s [crate::schema::top::Step], out: &mut Vec<&'s ExprAt>) {
        for s in steps {
            match s {
                crate::schema::top::Step::Expect { equals, .. } => out.push(equals),
                crate::schema::top::Step::ForEach { steps, .. } => expects(steps, out),
                _ => {}
            }
        }
    }
    expects(&file.validate, &mut exprs);
    for e in exprs {
        if let Some((t, _, _)) = all(&e.expr).first() {
            d.error(
                e.pos,
                format!(
                    "`{}`: the writer computes this before it writes any table, so it cannot read `{t}[...]`; remove `writer:` (the validator and the view do not need it)",
                    e.text
                ),
            );
        }
    }
}

/// A record within the current one's found by its key is a value of validation steps (the
/// `for_each` over the holding stream walks the current record's part): the views find a
/// record per record, and the writer computes, without that walk. So it is refused where
/// the scope is a holding stream's record but the expression defines something: a located
/// record per record and a checksum per record.
pub(crate) fn sub_in_definitions(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    let mut defs: Vec<(&ExprAt, &str, String)> = Vec::new();
    for r in &file.ext.records {
        if let Some(t) = &r.table {
            for e in std::iter::once(&r.at).chain(r.when.iter()) {
                defs.push((e, &t.text, format!("record `{}`", r.name.text)));
            }
        }
    }
    for k in &file.record_checksums {
        if let Some(t) = &k.table {
            for e in [&k.from, &k.to, &k.stored] {
                defs.push((e, &t.text, format!("checksum `{}`", k.name.text)));
            }
        }
    }
    let mut said: Vec<crate::yaml::Pos> = Vec::new();
    for (e, holder, what) in defs {
        let Some(h) = c.table(holder) else { continue };
        if let Some((t, _, _)) = all(&e.expr)
            .into_iter()
            .find(|(t, _, _)| sub_stream(c, t, Scope::Record(h)).is_some())
        {
            said.push(e.pos);
            d.error(
                e.pos,
                format!(
                    "{what}: `{}` finds a record of `{t}` by walking the current record's part, which only the validation steps inside `for_each: {holder}` do: the views and the writer compute {what} without that walk",
                    e.text
                ),
            );
        }
    }
    // At file level: the definitions the views compute (a stream's record is found by a
    // walk, which only validation steps make).
    for (e, what) in crate::check::positions::definitions(c) {
        if said.contains(&e.pos) {
            continue;
        }
        if let Some((t, _, _)) = all(&e.expr)
            .into_iter()
            .find(|(t, _, _)| walked(c, t, Scope::Top).is_some())
        {
            d.error(
                e.pos,
                format!(
                    "{what}: `{}` walks stream `{t}` for its record, which only validation steps do (at file level, or inside `for_each` over the stream it is within): the views and the writer compute {what} without that walk",
                    e.text
                ),
            );
        }
    }
}
