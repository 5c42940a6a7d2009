//! The checker's driver: [`check`] computes the layouts, checks the schema's definitions and
//! the file, and calls every construct's checks (`check/<construct>.rs`) in turn.

use std::collections::HashMap;

use crate::check::expr::{
    check_expr, field_kind, field_kind_of, lets, record_lets, resolves, single_field,
};
use crate::check::{Checked, FieldKind, Layout, Owner, Resolved, Scope, StepState};
use crate::diag::Diags;
use crate::expr::{Expr, ExprAt};
use crate::schema::top::{Schema, Step, Struct};
use crate::schema::{Enum, Flags, Name, Table, TypeRef};
use crate::yaml::Pos;

pub(crate) fn layout_of(
    schema: &Schema,
    layouts: &HashMap<String, Layout>,
    st: &Struct,
    d: &mut Diags,
) -> Layout {
    let mut unresolved = false;
    let mut cursor = 0u64;
    let mut fields = Vec::new();
    let mut spans: Vec<(u64, u64, &str)> = Vec::new();
    for (i, f) in st.fields.iter().enumerate() {
        let kind = field_kind(schema, layouts, f);
        // After a field left out for its type, or one of an undefined type, where the
        // layout stands is not known: a stated offset is taken as it is.
        unresolved |= st.broken.iter().any(|(before, _)| *before <= i);
        let known = !unresolved;
        unresolved |= kind.is_none();
        if kind.is_none()
            && let TypeRef::Named(n) | TypeRef::NamedArray(n, _) = &f.ty
            && !schema.structs.iter().any(|s| &s.name.text == n)
            && (matches!(f.ty, TypeRef::Named(_))
                || !schema.enums.iter().any(|e| &e.name.text == n)
                    && !schema.flags.iter().any(|e| &e.name.text == n)
                    && !schema.bitfields.iter().any(|e| &e.name.text == n))
        {
            // (A struct on a cycle is reported by `nested::order`; an array of an enum or
            // flags type by `nested::check_struct`.)
            d.error(
                f.ty_pos,
                format!(
                    "undefined enum or flags type `{n}` for field `{}`",
                    f.name.text
                ),
            );
        }
        let kind = kind.unwrap_or(FieldKind::Bytes(0));
        let width = kind.width(schema);
        let at = match f.offset {
            Some((stated, pos)) => {
                if known && stated < cursor {
                    let other = spans
                        .iter()
                        .find(|s| stated < s.1 && stated + width > s.0)
                        .map(|s| s.2)
                        .unwrap_or("the previous field");
                    d.error(
                        pos,
                        format!(
                            "field `{}` at offset {stated:#x} overlaps field `{other}` (the layout reaches {cursor:#x})",
                            f.name.text
                        ),
                    );
                } else if known && stated != cursor {
                    d.error(
                        pos,
                        format!(
                            "field `{}` states offset {stated:#x} but the layout puts it at {cursor:#x} (declare the {} bytes between as a reserved field)",
                            f.name.text,
                            stated - cursor
                        ),
                    );
                }
                stated
            }
            None => cursor,
        };
        spans.push((at, at.saturating_add(width), f.name.text.as_str()));
        fields.push((at, kind));
        cursor = cursor.max(at.saturating_add(width));
    }
    if let Some((stated, pos)) = st.size {
        // With an undefined type, or a field left out for its type, the layout is unknown:
        // the size would be a follow-on error.
        if stated != cursor && !unresolved && st.broken.is_empty() {
            d.error(
                pos,
                format!(
                    "struct `{}` states size {stated} but its fields take {cursor} bytes",
                    st.name.text
                ),
            );
        }
    }
    Layout {
        size: cursor,
        fields,
    }
}

pub(crate) fn dup_check<'a>(names: impl IntoIterator<Item = &'a Name>, what: &str, d: &mut Diags) {
    let mut seen: HashMap<&str, Pos> = HashMap::new();
    for n in names {
        if let Some(first) = seen.get(n.text.as_str()) {
            d.error(
                n.pos,
                format!(
                    "duplicate name `{}`: {what} (first defined at line {})",
                    n.text, first.line
                ),
            );
        } else {
            seen.insert(&n.text, n.pos);
        }
    }
}

pub(crate) fn check_enum(e: &Enum, d: &mut Diags) {
    dup_check(
        e.values.iter().map(|v| &v.name),
        &format!("a value of enum `{}`", e.name.text),
        d,
    );
    let mut seen: HashMap<u64, &str> = HashMap::new();
    for v in &e.values {
        if (e.repr.signed() || v.value > e.repr.max_unsigned()) && v.value > e.repr.max_unsigned() {
            d.error(
                v.value_pos,
                format!(
                    "value {} of `{}` does not fit the enum's repr {}",
                    v.value,
                    v.name.text,
                    e.repr.rust()
                ),
            );
        }
        if let Some(other) = seen.insert(v.value, &v.name.text) {
            d.error(
                v.value_pos,
                format!(
                    "value {} of `{}` is already used by `{other}`",
                    v.value, v.name.text
                ),
            );
        }
    }
}

pub(crate) fn check_flags(f: &Flags, d: &mut Diags) {
    dup_check(
        f.bits.iter().map(|b| &b.name),
        &format!("a bit of flags `{}`", f.name.text),
        d,
    );
    for b in &f.bits {
        if b.bit >= 8 * f.repr.bytes() {
            d.error(
                b.bit_pos,
                format!(
                    "bit {} of `{}` does not fit the flags' repr {}",
                    b.bit,
                    b.name.text,
                    f.repr.rust()
                ),
            );
        }
    }
}

/// Located records named by an expression that no earlier `record_fits` bound, and table
/// elements read before their `table_fits` or tested as flag bits.
pub(crate) fn unbound_records(
    c: &Checked,
    e: &ExprAt,
    scope: Scope<'_>,
    st: &StepState,
    d: &mut Diags,
) {
    fn ends<'a>(e: &'a Expr, out: &mut Vec<&'a str>) {
        match e {
            Expr::Call(f, args) => {
                if let (true, [Expr::Ref(p)]) = (f == "end", args.as_slice()) {
                    out.extend(p.first().map(String::as_str));
                }
                args.iter().for_each(|a| ends(a, out));
            }
            Expr::Bin(_, l, r) => {
                ends(l, out);
                ends(r, out);
            }
            Expr::Not(x) | Expr::At(_, x, _) | Expr::Key(_, x) => ends(x, out),
            Expr::Num(_) | Expr::Ref(_) => {}
        }
    }
    fn counts<'a>(e: &'a Expr, out: &mut Vec<&'a str>) {
        match e {
            Expr::Call(f, args) => {
                if let (true, [Expr::Ref(p)]) = (f == "count", args.as_slice()) {
                    out.extend(p.first().map(String::as_str));
                }
                args.iter().for_each(|a| counts(a, out));
            }
            Expr::Bin(_, l, r) => {
                counts(l, out);
                counts(r, out);
            }
            Expr::Not(x) | Expr::At(_, x, _) | Expr::Key(_, x) => counts(x, out),
            Expr::Num(_) | Expr::Ref(_) => {}
        }
    }
    crate::check::index::unfitted(c, e, st, d);
    crate::check::positions::unwalked(c, e, st, d);
    crate::check::index::reserved_index(c, e, scope, d);
    let mut names = Vec::new();
    ends(&e.expr, &mut names);
    for n in names {
        if !st.records_bound.iter().any(|r| r == n) {
            d.error(
                e.pos,
                format!(
                    "`{}` reads the end of record `{n}` before the record_fits step that places it",
                    e.text
                ),
            );
        }
    }
    let mut names = Vec::new();
    counts(&e.expr, &mut names);
    for n in names {
        if !st.tables_fitted.iter().any(|r| r == n) {
            if crate::check::lookup::is_target(&c.schema.file, n) {
                d.error(
                    e.pos,
                    format!(
                        "`{}` counts `{n}` before the stream_fits step that walks its stream",
                        e.text
                    ),
                );
                continue;
            }
            d.error(e.pos, format!("`{}` counts collection `{n}` before its directory's entry_size step makes it readable", e.text));
        }
    }
    for p in e.expr.refs() {
        match c.resolve(p, scope) {
            Ok(Resolved::Let(i)) => {
                if let Some(n) = c.lets.name(i)
                    && !st.lets_bound.iter().any(|b| b == n)
                {
                    if let Some(r) = repeat_of(&c.schema.file.validate, n) {
                        d.error(e.pos, format!("`{}` uses `{n}`, the index of the assert at line {} (`for: {n}, below: {}`): it has a value in that assert's condition only", e.text, r.var.pos.line, r.below.text));
                        continue;
                    }
                    if let Some((_, t)) = record_lets(&c.schema.file)
                        .into_iter()
                        .find(|(x, _)| *x == n)
                    {
                        d.error(e.pos, format!("`{}` uses the named value `{n}`, which belongs to each record of the for_each over `{}` (line {}): use it after its `let`, inside that for_each", e.text, t.text, t.pos.line));
                        continue;
                    }
                    d.error(
                        e.pos,
                        format!(
                            "`{}` uses the named value `{n}` before the `let` step that computes it",
                            e.text
                        ),
                    );
                }
            }
            Ok(Resolved::FlagBit(Owner::Element(..), _, _)) => {
                d.error(e.pos, format!("`{}`: a table element's flag bits cannot be tested (compare its value instead)", e.text));
            }
            Ok(
                Resolved::Field(Owner::Element(ti, _), _)
                | Resolved::Composed(Owner::Element(ti, _), _)
                | Resolved::BitField(Owner::Element(ti, _), _, _),
            ) => {
                let Some(t) = c.schema.file.tables.get(ti) else {
                    continue;
                };
                if !st.tables_fitted.contains(&t.name.text) {
                    d.error(e.pos, format!("`{}` reads table `{}` before the table_fits step that makes it safe to read", e.text, t.name.text));
                }
            }
            _ => {}
        }
        if let Ok(
            Resolved::Field(Owner::Located(i), _)
            | Resolved::Nested(Owner::Located(i), _)
            | Resolved::Composed(Owner::Located(i), _)
            | Resolved::BitField(Owner::Located(i), _, _)
            | Resolved::FlagBit(Owner::Located(i), _, _),
        ) = c.resolve(p, scope)
        {
            let Some(r) = c.schema.file.ext.records.get(i) else {
                continue;
            };
            if !st.records_bound.contains(&r.name.text) {
                match &r.table {
                    Some(t) => d.error(e.pos, format!("`{}` reads record `{}`, one per record of `{}`: read it inside `for_each: {}`, after the record_fits step that places it", e.text, r.name.text, t.text, t.text)),
                    None => d.error(e.pos, format!("`{}` reads record `{}` before the record_fits step that makes it safe to read", e.text, r.name.text)),
                }
            }
        }
    }
}

/// A checksum with `table: T`, one per record of the table or stream T: `from`, `to` and
/// `stored` over T's records (read at its `checksum` step, inside `for_each: T`, where the
/// located records placed before it are readable too), `stored` one field of the record.
/// The writer refuses it (`lower/writer.rs`).
/// A checksum's `zero` fields: each one field of the header, of a located record or of the
/// checksum's own record (a field of another table's record, `t.N.f`, is not one), and no
/// writer (which computes checksums over the bytes as written).
fn zero_fields(c: &Checked, k: &crate::schema::Checksum, scope: Scope<'_>, d: &mut Diags) {
    for z in &k.zero {
        let before = d.items.len();
        check_expr(c, z, scope, false, "zero item", d);
        if d.items.len() > before {
            continue;
        }
        // A located record of the file, not one per record of a collection (whose place
        // is its holding record's, not the checksum's to name).
        let file_record = |j: usize| {
            c.schema
                .file
                .ext
                .records
                .get(j)
                .is_some_and(|r| r.table.is_none())
        };
        if !matches!(
            single_field(c, &z.expr, scope),
            Some((Owner::Header | Owner::Record, _))
        ) && !matches!(single_field(c, &z.expr, scope), Some((Owner::Located(j), _)) if file_record(j))
        {
            d.error(
                z.pos,
                format!(
                    "zero item `{}` must name one field (of the header, a located record of the file{}) whose bytes count as zero where they lie inside the span",
                    z.text,
                    if k.table.is_some() { " or the record" } else { "" }
                ),
            );
        }
    }
    // (A per-record checksum is refused with a writer as it is.)
    if let (Some(z), Some(_), None) = (k.zero.first(), &c.schema.file.writer, &k.table) {
        d.error(
            z.pos,
            format!(
                "checksum `{}` counts fields as zero, and the writer computes checksums over the bytes as written: leave out `writer`, or `zero`",
                k.name.text
            ),
        );
    }
}

/// A checksum whose sum must reach a value (`equals`): the value a constant, `field` one field
/// of the header or a located record (what an error names), and no writer (which stores sums
/// in fields).
fn reached(c: &Checked, k: &crate::schema::Checksum, d: &mut Diags) {
    if !crate::check::writer_rules::const_only(c, &k.stored.expr, false) {
        d.error(
            k.stored.pos,
            format!(
                "equals `{}` must be a constant (a number, a constant or an expression of them): the value checksum `{}` must reach",
                k.stored.text, k.name.text
            ),
        );
    }
    match &k.field {
        None => d.error(
            k.name.pos,
            format!(
                "checksum `{}` must reach a value (`equals`), so an error about it names a field: add `field:` (the one that makes the sum come out, such as a checksum adjustment)",
                k.name.text
            ),
        ),
        Some(f) => {
            let before = d.items.len();
            check_expr(c, f, Scope::Top, false, "field", d);
            if d.items.len() == before
                && !matches!(
                    single_field(c, &f.expr, Scope::Top),
                    Some((Owner::Header | Owner::Located(_), _))
                )
            {
                d.error(
                    f.pos,
                    format!(
                        "field `{}` must name one field (of the header or a located record)",
                        f.text
                    ),
                );
            }
        }
    }
    if c.schema.file.writer.is_some() {
        d.error(
            k.stored.pos,
            format!(
                "checksum `{}` must reach a value (`equals`), and the writer stores each sum in a field: leave out `writer`, or write `stored: FIELD`",
                k.name.text
            ),
        );
    }
}

fn record_checksum(c: &Checked, k: &crate::schema::Checksum, d: &mut Diags) {
    let Some(tn) = &k.table else { return };
    if k.equals || k.field.is_some() {
        d.error(
            k.stored.pos,
            format!(
                "checksum `{}` is one per record of `{}`: each record stores its sum (`stored:`); `equals` and `field` are a file-level checksum's",
                k.name.text, tn.text
            ),
        );
        return;
    }
    let Some(t) = c.table(&tn.text) else {
        c.not_found(
            d,
            tn.pos,
            &tn.text,
            format!(
                "checksum `{}`: `table: {}` is not a table or stream of the file",
                k.name.text, tn.text
            ),
        );
        return;
    };
    let scope = Scope::Record(t);
    check_expr(c, &k.from, scope, false, "from", d);
    check_expr(c, &k.to, scope, false, "to", d);
    check_expr(c, &k.stored, scope, false, "stored", d);
    zero_fields(c, k, scope, d);
    if !matches!(
        single_field(c, &k.stored.expr, scope),
        Some((Owner::Record, _))
    ) {
        d.error(
            k.stored.pos,
            format!(
                "stored `{}` must name one field of `{}`'s record",
                k.stored.text, tn.text
            ),
        );
    }
}

pub(crate) fn check_steps(
    c: &Checked,
    steps: &[Step],
    scope: Scope<'_>,
    st: &mut StepState,
    d: &mut Diags,
) {
    let file = &c.schema.file;
    for s in steps {
        // A repeated assert's index is a named value of its condition (not of `below`).
        let index = match s {
            Step::Assert {
                repeat: Some(r), ..
            } => Some(&r.var.text),
            _ => None,
        };
        for e in step_exprs(c, s) {
            let own = index.filter(
                |_| !matches!(s, Step::Assert { repeat: Some(r), .. } if std::ptr::eq(e, &r.below)),
            );
            if let Some(k) = own {
                st.lets_bound.push(k.clone());
            }
            unbound_records(c, e, scope, st, d);
            if own.is_some() {
                st.lets_bound.pop();
            }
        }
        match s {
            Step::MinLen { min, .. } => check_expr(c, min, scope, false, "min_len", d),
            Step::Expect { field, equals, .. } => {
                check_expr(c, field, scope, false, "expect", d);
                check_expr(c, equals, scope, false, "equals", d);
                let composed = matches!(&field.expr, Expr::Ref(p) if matches!(c.resolve(p, scope), Ok(Resolved::Composed(..))) || matches!(c.resolve(p, scope), Ok(Resolved::Nested(_, l)) if l.bit.is_none()));
                if single_field(c, &field.expr, scope).is_none()
                    && !composed
                    && resolves(c, &field.expr, scope)
                {
                    d.error(
                        field.pos,
                        format!("expect `{}` must name one field", field.text),
                    );
                }
            }
            Step::Assert {
                expr,
                field,
                repeat,
                ..
            } => {
                // `for: k, below: N`: N first (without `k`), then the condition with `k`,
                // a named value of this step alone.
                let bound = st.lets_bound.len();
                if let Some(r) = repeat {
                    check_expr(c, &r.below, scope, false, "below", d);
                    if c.schema.constants.iter().any(|k| k.name.text == r.var.text)
                        || ["len", "header", "record"].contains(&r.var.text.as_str())
                    {
                        d.error(r.var.pos, format!("for `{}`: the name is taken (a constant, `len`, `header` or `record`)", r.var.text));
                    }
                    if !expr.expr.refs().iter().any(|p| p.len() == 1 && p[0] == r.var.text) {
                        d.error(expr.pos, format!("assert `{}` does not read its index `{}`: it would check the same thing {} times (write it without `for` and `below`)", expr.text, r.var.text, r.below.text));
                    }
                    st.lets_bound.push(r.var.text.clone());
                }
                check_expr(c, expr, scope, true, "assert", d);
                let nested = matches!(&field.expr, Expr::Ref(p) if matches!(c.resolve(p, scope), Ok(Resolved::Nested(_, l)) if l.bit.is_none()));
                if single_field(c, &field.expr, scope).is_none()
                    && !nested
                    && resolves(c, &field.expr, scope)
                {
                    d.error(
                        field.pos,
                        format!("field `{}` must name one field", field.text),
                    );
                }
                st.lets_bound.truncate(bound);
            }
            Step::TableFits { table, within, .. } => {
                check_expr(c, within, scope, false, "within", d);
                if !file.tables.iter().any(|t| t.name.text == table.text) {
                    c.not_found(d, table.pos, &table.text, format!("table_fits names `{}`, which is not a table", table.text));
                }
                st.tables_fitted.push(table.text.clone());
            }
            Step::RangeFits { range, within, .. } => {
                check_expr(c, within, scope, false, "within", d);
                st.ranges_fitted.push(range.text.clone());
                match file.ranges.iter().find(|r| r.name.text == range.text) {
                    None => c.not_found(d, range.pos, &range.text, format!("range_fits names `{}`, which is not a range", range.text)),
                    Some(r) => {
                        let here = match scope {
                            Scope::Record(t) => Some(t.name.text.as_str()),
                            _ => None,
                        };
                        if r.table.as_ref().map(|t| t.text.as_str()) != here {
                            d.error(
                                range.pos,
                                format!(
                                    "range `{}` belongs to {}; check it {}",
                                    range.text,
                                    r.table.as_ref().map_or("the file".to_string(), |t| format!(
                                        "table `{}`",
                                        t.text
                                    )),
                                    if r.table.is_some() {
                                        "inside that table's for_each"
                                    } else {
                                        "at file level"
                                    }
                                ),
                            );
                        }
                    }
                }
            }
            Step::Checksum { checksum, .. } => match file.checksum(&checksum.text) {
                None => d.error(
                    checksum.pos,
                    format!("checksum `{}` is not defined", checksum.text),
                ),
                Some(k) => match (&k.table, scope) {
                    (None, _) => {}
                    (Some(t), Scope::Record(s)) if s.name.text == t.text => {}
                    (Some(t), _) => d.error(
                        checksum.pos,
                        format!(
                            "checksum `{}` is one per record of `{}`: its checksum step belongs inside `for_each: {}`",
                            checksum.text, t.text, t.text
                        ),
                    ),
                },
            },
            Step::FlagsKnown { field, .. } | Step::EnumKnown { field, .. } => {
                let want_flags = matches!(s, Step::FlagsKnown { .. });
                if matches!(
                    single_field(c, &field.expr, scope),
                    Some((Owner::Element(..), _))
                ) {
                    d.error(
                        field.pos,
                        format!(
                            "`{}`: check a table element's field inside the table's for_each",
                            field.text
                        ),
                    );
                }
                check_expr(c, field, scope, false, "field", d);
                let kind = single_field(c, &field.expr, scope)
                    .and_then(|(o, i)| field_kind_of(c, o, i, scope));
                let ok = match kind {
                    Some(FieldKind::Flags(_)) => want_flags,
                    Some(FieldKind::Enum(e)) => !want_flags && !c.schema.enums[e].open,
                    // A field whose type is undefined is reported at the field alone.
                    Some(FieldKind::Bytes(0)) => true,
                    _ => false,
                };
                if !ok
                    && let Expr::Ref(p) = &field.expr
                    && let Ok(Resolved::Nested(..)) = c.resolve(p, scope)
                {
                    d.error(
                        field.pos,
                        format!(
                            "`{}` is inside a struct-typed field: `{}` cannot check a field there yet (compare its value in an `assert`)",
                            field.text,
                            if want_flags { "flags_known" } else { "enum_known" }
                        ),
                    );
                } else if !ok {
                    let want = if want_flags {
                        "a flags field"
                    } else {
                        "a field of a closed enum"
                    };
                    d.error(field.pos, format!("`{}` must be {want}", field.text));
                }
            }
            Step::ForEach { table, steps } => match c.table(&table.text) {
                None => c.not_found(d, table.pos, &table.text, format!("for_each names `{}`, which is not a table", table.text)),
                Some(t) => {
                    if !st.tables_fitted.contains(&table.text) {
                        if crate::check::lookup::is_target(file, &table.text) {
                            d.error(table.pos, format!("for_each `{}` comes before the stream_fits step that walks its stream", table.text));
                        } else {
                            d.error(table.pos, format!("for_each `{}` comes before the table_fits step that makes its records safe to read", table.text));
                        }
                    }
                    // Named values and per-record located records placed inside are the
                    // record's: gone after the loop.
                    let bound = st.lets_bound.len();
                    let records = st.records_bound.len();
                    check_steps(c, steps, Scope::Record(t), st, d);
                    st.lets_bound.truncate(bound);
                    let placed: Vec<String> = st.records_bound.drain(records..).collect();
                    st.records_per_record.extend(placed);
                }
            },
            Step::Ext(x) => crate::check::ext::check_step(c, x, scope, st, d),
            Step::Str(x) => crate::check::strings::check_step(c, x, scope, st, d),
            Step::Fill(x) => crate::check::fill::check_step(c, x, scope, st, d),
            Step::StreamFits { code, stream, kind } => {
                crate::check::streams::check_step(c, code, stream, *kind, scope, st, d);
            }
            Step::Order {
                code,
                kind,
                target,
                by,
            } => {
                if let Scope::Record(t) = scope {
                    // Inside a for_each: over that for_each's own table only.
                    let own = match kind {
                        crate::schema::OrderKind::NoOverlap => file.ranges.iter().any(|r| {
                            r.name.text == target.text
                                && r.table.as_ref().is_some_and(|x| x.text == t.name.text)
                        }),
                        _ => target.text == t.name.text,
                    };
                    // A target that is no such thing at all is reported below, once.
                    let exists = match kind {
                        crate::schema::OrderKind::NoOverlap => file
                            .ranges
                            .iter()
                            .any(|r| r.name.text == target.text && r.table.is_some()),
                        _ => file.tables.iter().any(|y| y.name.text == target.text),
                    };
                    if exists && (!own || !file.tables.iter().any(|y| y.name.text == t.name.text)) {
                        d.error(target.pos, format!("`{}`: inside a for_each an order check is over that for_each's table `{}` (it compares each record with the one before)", target.text, t.name.text));
                    }
                    if st.orders.contains(&code.text) {
                        d.error(
                            code.pos,
                            format!(
                                "two order checks with the code `{}` in one for_each",
                                code.text
                            ),
                        );
                    }
                    st.orders.push(code.text.clone());
                }
                let table = match kind {
                    crate::schema::OrderKind::NoOverlap => {
                        match file.ranges.iter().find(|r| r.name.text == target.text) {
                            Some(r) if r.table.is_some() => {
                                if !st.ranges_fitted.contains(&r.name.text) {
                                    d.error(target.pos, format!("no_overlap `{}` comes before the range_fits step that checks the range", target.text));
                                }
                                r.table.as_ref().map(|t| t.text.clone())
                            }
                            _ => {
                                c.not_found(d, target.pos, &target.text, format!("no_overlap names `{}`, which is not a per-record range (one with `table`)", target.text));
                                None
                            }
                        }
                    }
                    _ => Some(target.text.clone()),
                };
                if let Some(tn) = table {
                    match file.tables.iter().find(|t| t.name.text == tn) {
                        None => c.not_found(d, target.pos, &tn, format!("`{tn}` is not a table of the file (sorted and unique walk a table's records)")),
                        Some(t) => {
                            if !st.tables_fitted.contains(&tn) {
                                d.error(target.pos, format!("`{}` comes before the table_fits step that makes `{tn}`'s records safe to read", target.text));
                            }
                            // A string of the table's records is a key too (compared
                            // bytewise, `check/strings.rs`'s `order_key`).
                            if let Some(by) = by.as_ref().filter(|b| {
                                crate::check::strings::order_key(c, &tn, &b.expr).is_none()
                            }) {
                                check_expr(c, by, Scope::Record(t), false, "by", d);
                                unbound_records(c, by, Scope::Record(t), st, d);
                            }
                        }
                    }
                }
            }
            Step::Let { name, value } => {
                check_expr(c, value, scope, false, "value", d);
                if c.schema.constants.iter().any(|k| k.name.text == name.text)
                    || ["len", "header"].contains(&name.text.as_str())
                {
                    d.error(
                        name.pos,
                        format!(
                            "let `{}`: the name is taken (a constant, `len` or `header`)",
                            name.text
                        ),
                    );
                }
                st.lets_bound.push(name.text.clone());
            }
            Step::When { when, step } => {
                check_expr(c, when, scope, true, "when", d);
                if matches!(
                    **step,
                    Step::StreamFits {
                        kind: crate::schema::streams::StreamStep::Checksum,
                        ..
                    }
                ) {
                    d.error(when.pos, "`when` on a stream_checksum step is refused: a checksum only some records carry has the condition in the stream's `checksum` (`when`, over each record's header)");
                } else if !matches!(
                    **step,
                    Step::MinLen { .. }
                        | Step::Expect { .. }
                        | Step::Assert { .. }
                        | Step::Checksum { .. }
                        | Step::FlagsKnown { .. }
                        | Step::ForEach { .. }
                        | Step::TableFits { .. }
                        | Step::Order { .. }
                        | Step::Fill(_)
                        | Step::Str(crate::schema::strings::StrStep::Utf8 { .. })
                        | Step::Ext(
                            crate::schema::ext::ExtStep::Items { .. }
                                | crate::schema::ext::ExtStep::PayloadChecksum { .. }
                        )
                ) {
                    d.error(when.pos, "`when` applies to the steps that check (min_len, expect, assert, checksum, flags_known, sorted, unique, no_overlap, fill, string_utf8, items, payload_checksum), to table_fits and to for_each: a step that makes something else safe to read (range_fits, enum_known, record_fits, stream_fits, string_fits, entry_size) must hold for every file; put the condition in a range's own `when` (a record's), or on the steps inside a for_each");
                }
                if let Step::TableFits { table, .. } = &**step {
                    if !matches!(scope, Scope::Top) {
                        d.error(
                            when.pos,
                            format!(
                                "table_fits `{}` with `when` stands at the top level of `validate`",
                                table.text
                            ),
                        );
                    }
                    // The writer's part is optional, checked against the condition.
                    crate::check::optional_parts::check_table(c, table, when, d);
                }
                check_steps(c, std::slice::from_ref(&**step), scope, st, d);
            }
        }
    }
}

/// The repeated assert whose index is named `name` (`for: name`), among `steps` and the
/// steps of their `for_each`es.
fn repeat_of<'s>(steps: &'s [Step], name: &str) -> Option<&'s crate::schema::top::Repeat> {
    steps.iter().find_map(|s| match s {
        Step::Assert {
            repeat: Some(r), ..
        } if r.var.text == name => Some(r),
        Step::ForEach { steps, .. } => repeat_of(steps, name),
        Step::When { step, .. } => repeat_of(std::slice::from_ref(&**step), name),
        _ => None,
    })
}

/// Whether `name` is where a repeated assert names its index (`for: name`).
fn is_repeat_index(steps: &[Step], name: &Name) -> bool {
    steps.iter().any(|s| match s {
        Step::Assert {
            repeat: Some(r), ..
        } => r.var.pos == name.pos && r.var.text == name.text,
        Step::ForEach { steps, .. } => is_repeat_index(steps, name),
        Step::When { step, .. } => is_repeat_index(std::slice::from_ref(&**step), name),
        _ => false,
    })
}

/// The expressions a step evaluates, including those of the table or range it checks.
pub(crate) fn step_exprs<'a>(c: &'a Checked, s: &'a Step) -> Vec<&'a ExprAt> {
    let file = &c.schema.file;
    match s {
        Step::MinLen { min, .. } => vec![min],
        Step::Expect { field, equals, .. } => vec![field, equals],
        Step::Assert {
            expr,
            field,
            repeat,
            ..
        } => {
            let mut v = vec![expr, field];
            v.extend(repeat.as_ref().map(|r| &r.below));
            v
        }
        Step::TableFits { table, within, .. } => {
            let mut v = vec![within];
            if let Some(t) = file.tables.iter().find(|t| t.name.text == table.text) {
                v.extend([&t.at, &t.count, &t.stride]);
            }
            v
        }
        Step::RangeFits { range, within, .. } => {
            let mut v = vec![within];
            if let Some(r) = file
                .ranges
                .iter()
                .find(|r| r.name.text == range.text && r.table.is_none())
            {
                v.extend([&r.offset, &r.length]);
                v.extend(r.when.iter());
            }
            v
        }
        Step::Checksum { checksum, .. } => file
            .checksum(&checksum.text)
            .map(|k| {
                let mut v = vec![&k.from, &k.to, &k.stored];
                v.extend(&k.zero);
                v.extend(&k.field);
                v
            })
            .unwrap_or_default(),
        Step::FlagsKnown { field, .. } | Step::EnumKnown { field, .. } => vec![field],
        Step::ForEach { .. } => Vec::new(),
        Step::Ext(x) => crate::check::ext::step_exprs(c, x),
        Step::Str(x) => crate::check::strings::step_exprs(c, x),
        Step::Fill(x) => crate::check::fill::step_exprs(x),
        Step::When { when, .. } => vec![when],
        Step::Let { value, .. } => vec![value],
        // Its expressions are in the stream header's scope; checked by `check/streams.rs`,
        // but a chain's `first` is the file's, read by the step.
        Step::StreamFits { stream, .. } => file
            .streams
            .iter()
            .find(|s| s.name.text == stream.text)
            .and_then(|s| s.chain.as_ref())
            .map(|ch| vec![&ch.first])
            .unwrap_or_default(),
        // Its key is in record scope; checked with that scope by `check_steps`.
        Step::Order { .. } => Vec::new(),
    }
}

/// Items every generated module defines at its top level, next to the schema's constants.
pub(crate) const RESERVED_ITEMS: [&str; 4] =
    ["SCHEMA_NAME", "SCHEMA_SHA256", "ERROR_SITES", "error_site"];

/// The file's collections (directory layouts) and streams with theirs, as tables.
pub(crate) fn collections_of(file: &crate::schema::top::File) -> Vec<Table> {
    let mut v = crate::check::ext::collections(file);
    v.extend(crate::check::lookup::tables(file));
    v
}

/// Check a schema: the checked model (its layouts attached) whenever one could be built, its
/// mistakes in `d`. It is the schema's only when `d` stays empty; the crate root runs the
/// lowering's checks over it first (`lower/top.rs`).
pub fn check(mut schema: Schema, sha256: String, d: &mut Diags) -> Option<Checked> {
    // `pairs[2].a` in a record's scope: a path into the record's struct array (`check/nested.rs`).
    crate::check::nested::bare_elements(&mut schema);
    dup_check(schema.constants.iter().map(|c| &c.name), "a constant", d);
    for c in &schema.constants {
        if RESERVED_ITEMS.contains(&c.name.text.as_str()) {
            d.error(
                c.name.pos,
                format!(
                    "constant `{}`: the generated module defines an item of that name; rename the constant",
                    c.name.text
                ),
            );
        }
    }
    let types = schema
        .enums
        .iter()
        .map(|e| &e.name)
        .chain(schema.flags.iter().map(|f| &f.name))
        .chain(schema.bitfields.iter().map(|f| &f.name))
        .chain(schema.structs.iter().map(|s| &s.name));
    dup_check(types, "a type", d);
    for c in &schema.constants {
        if c.value > c.ty.max_unsigned() {
            d.error(
                c.value_pos,
                format!(
                    "constant `{}` = {} does not fit its type {}",
                    c.name.text,
                    c.value,
                    c.ty.rust()
                ),
            );
        }
    }
    schema.enums.iter().for_each(|e| check_enum(e, d));
    schema.flags.iter().for_each(|f| check_flags(f, d));
    schema
        .bitfields
        .iter()
        .for_each(|b| crate::check::ext::check_bitfield(b, d));
    let mut layouts = HashMap::new();
    // Contained structs first (`check/nested.rs`); a struct on a cycle last, its cycle reported.
    let mut order = crate::check::nested::order(&schema, d);
    order.extend(
        (0..schema.structs.len())
            .filter(|i| !order.contains(i))
            .collect::<Vec<_>>(),
    );
    for st in order.iter().filter_map(|&i| schema.structs.get(i)) {
        // An enum field `x` also has the accessor `x_raw`.
        let raws: Vec<Name> = st
            .fields
            .iter()
            .filter(|f| matches!(&f.ty, TypeRef::Named(n) if schema.enums.iter().any(|e| &e.name.text == n)))
            .map(|f| Name { text: format!("{}_raw", f.name.text), pos: f.name.pos })
            .collect();
        dup_check(
            st.fields
                .iter()
                .map(|f| &f.name)
                .chain(st.composed.iter().map(|c| &c.name))
                .chain(raws.iter()),
            &format!("a field of struct `{}`", st.name.text),
            d,
        );
        let l = layout_of(&schema, &layouts, st, d);
        crate::check::ext::check_struct(&schema, st, &l, d);
        crate::check::nested::check_struct(&schema, st, &l, d);
        layouts.insert(st.name.text.clone(), l);
    }
    if let Some(b) = &schema.registers {
        crate::check::regs::check(&schema, b, d);
    }
    if let Some(s) = &schema.commands {
        crate::check::commands::check(&schema, s, d);
    }
    let has_file = schema.has_file;
    let mut c = Checked {
        collections: collections_of(&schema.file),
        lets: crate::check::expr::Lets::of(&schema.file),
        schema,
        layouts,
        sha256,
        variants: Vec::new(),
    };
    if !has_file {
        // Registers only: no file layout to check.
        return Some(c);
    }
    check_file(&c, d);
    if let Some(vs) = c.schema.file.ext.variants.clone() {
        if !c.schema.file.tables.is_empty()
            || !c.schema.file.ranges.is_empty()
            || !c.schema.file.checksums.is_empty()
            || c.schema.file.writer.is_some()
        {
            d.error(c.schema.file.name.pos, "a file with variants keeps its tables, ranges, checksums and writer in the variants");
        }
        dup_check(vs.list.iter().map(|v| &v.key), "a variant", d);
        for v in &vs.list {
            let mut file = v.file.clone();
            let mut steps = c.schema.file.validate.clone();
            steps.push(Step::Assert {
                code: vs.code.clone(),
                expr: v.when.clone(),
                field: vs.field.clone(),
                repeat: None,
            });
            steps.append(&mut file.validate);
            file.validate = steps;
            let schema = Schema {
                file,
                ..c.schema.clone()
            };
            let vc = Checked {
                collections: collections_of(&schema.file),
                lets: crate::check::expr::Lets::of(&schema.file),
                schema,
                layouts: c.layouts.clone(),
                sha256: c.sha256.clone(),
                variants: Vec::new(),
            };
            check_expr(&vc, &vs.field, Scope::Top, false, "field", d);
            if single_field(&vc, &vs.field.expr, Scope::Top).is_none() {
                d.error(
                    vs.field.pos,
                    format!("field `{}` must name one header field", vs.field.text),
                );
            }
            check_file(&vc, d);
            c.variants.push(vc);
        }
    }
    generated_names(&c, d);
    crate::check::writer_names::check(&c, d);
    // (With mistakes too: the lowering's diagnostics run over it; the caller keeps it only
    // when `d` is empty.)
    Some(c)
}

/// Every closed-enum field that the file hands out through a view must be checked by an
/// `enum_known` step: a closed enum has no value for an undefined raw value, so an
/// accessor over an unchecked field would have to invent one. (The alternative, an
/// accessor returning `Option`, would make every checked field pay for the unchecked
/// ones; the schema already says what an unknown value is: an error, or an open enum.)
pub(crate) fn closed_enums_checked(c: &Checked, d: &mut Diags) {
    /// Where a checked field lives: `None` for the header, `Some(("@", i))` for located
    /// record `i`, `Some((table, 0))` for a table's records.
    type Key = (Option<(String, usize)>, usize);
    fn walk(c: &Checked, steps: &[Step], scope: Scope<'_>, out: &mut Vec<Key>) {
        for s in steps {
            match s {
                Step::EnumKnown { field, .. } => match (single_field(c, &field.expr, scope), scope)
                {
                    (Some((Owner::Header, i)), _) => out.push((None, i)),
                    (Some((Owner::Located(r), i)), _) => out.push((Some(("@".into(), r)), i)),
                    (Some((Owner::Record, i)), Scope::Record(t)) => {
                        out.push((Some((t.name.text.clone(), 0)), i));
                    }
                    _ => {}
                },
                Step::ForEach { table, steps } => {
                    if let Some(t) = c.table(&table.text) {
                        walk(c, steps, Scope::Record(t), out);
                    }
                }
                _ => {}
            }
        }
    }
    let file = &c.schema.file;
    let mut checked = Vec::new();
    walk(c, &file.validate, Scope::Top, &mut checked);
    let mut need = |key: Option<(String, usize)>,
                    sname: &str,
                    what: String,
                    at: Pos,
                    how: &dyn Fn(&str) -> String| {
        let (Some(st), Some(l)) = (c.strukt(sname), c.layouts.get(sname)) else {
            return;
        };
        for (i, (f, (_, kind))) in st.fields.iter().zip(&l.fields).enumerate() {
            let FieldKind::Enum(e) = kind else { continue };
            let Some(en) = c.schema.enums.get(*e) else {
                continue;
            };
            if en.open || checked.contains(&(key.clone(), i)) {
                continue;
            }
            d.error(
                at,
                format!(
                    "field `{}` of {what} has the closed enum `{}`, but no `enum_known` step checks it, so its view could not say what an undefined value is; add `{{ code: ..., enum_known: {} }}`{}, or make the enum `open: true`",
                    f.name.text,
                    en.name.text,
                    how(&f.name.text),
                    if key.as_ref().is_some_and(|k| k.0 != "@") { " to that table's for_each" } else { "" },
                ),
            );
        }
    };
    need(
        None,
        &file.header.text,
        "the header".into(),
        file.header.pos,
        &|f| format!("header.{f}"),
    );
    for (r, rec) in file.ext.records.iter().enumerate() {
        let n = rec.name.text.clone();
        need(
            Some(("@".into(), r)),
            &rec.strukt.text,
            format!("record `{n}`"),
            rec.strukt.pos,
            &|f| format!("{n}.{f}"),
        );
    }
    for t in file.tables.iter().chain(&c.collections) {
        need(
            Some((t.name.text.clone(), 0)),
            &t.record.text,
            format!("the records of `{}`", t.name.text),
            t.record.pos,
            &|f| f.to_string(),
        );
    }
}

/// The types a module defines at its top level, each with where the schema named it: two
/// of one name would not compile (E0428), so they are refused here, both places named.
/// Names are not made distinct silently: a variant's types would then change name when
/// another variant is added.
pub(crate) fn generated_names(c: &Checked, d: &mut Diags) {
    let mut seen: Vec<(String, Pos, String)> = Vec::new();
    // Two generators that clash once clash on every type both make (a writer's `<X>Spec`
    // and `<X>Writer`): one diagnostic for the pair, one rename mends it.
    let reported: std::cell::RefCell<Vec<(Pos, Pos)>> = std::cell::RefCell::new(Vec::new());
    let add = |seen: &mut Vec<(String, Pos, String)>,
               name: String,
               pos: Pos,
               what: String,
               d: &mut Diags| {
        if let Some((_, p, w)) = seen.iter().find(|(n, _, _)| *n == name) {
            if reported.borrow().contains(&(pos, *p)) {
                return;
            }
            reported.borrow_mut().push((pos, *p));
            d.error(
                pos,
                format!(
                    "{what} generates the type `{name}`, which {w} (line {}) also generates; rename one{}",
                    p.line,
                    if what.starts_with("table ") { " (a table's type: give it a `type_name`)" } else { "" }
                ),
            );
        } else {
            seen.push((name, pos, what));
        }
    };
    for (n, kind) in c
        .schema
        .enums
        .iter()
        .map(|e| (&e.name, "enum"))
        .chain(c.schema.flags.iter().map(|f| (&f.name, "flags")))
        .chain(c.schema.bitfields.iter().map(|f| (&f.name, "bitfields")))
        .chain(c.schema.structs.iter().map(|s| (&s.name, "struct")))
    {
        // Duplicates among these are reported by `dup_check` already.
        if !seen.iter().any(|(x, _, _)| *x == n.text) {
            seen.push((n.text.clone(), n.pos, format!("{kind} `{}`", n.text)));
        }
    }
    for (name, pos, what) in crate::check::nested_writer::generated_names(c) {
        add(&mut seen, name, pos, what, d);
    }
    for (name, pos, what) in crate::check::writer_names::types(c) {
        add(&mut seen, name, pos, what, d);
    }
    let top_name = &c.schema.file.name;
    add(
        &mut seen,
        top_name.text.clone(),
        top_name.pos,
        format!("file `{}`", top_name.text),
        d,
    );
    let files: Vec<(&Checked, String)> = if c.variants.is_empty() {
        vec![(c, String::new())]
    } else {
        c.variants
            .iter()
            .map(|v| (v, format!(" of variant `{}`", v.schema.file.name.text)))
            .collect()
    };
    for (vc, of) in files {
        let f = &vc.schema.file;
        if !c.variants.is_empty() {
            add(
                &mut seen,
                f.name.text.clone(),
                f.name.pos,
                format!("variant `{}`", f.name.text),
                d,
            );
        }
        if !f.tables.is_empty() || !vc.collections.is_empty() {
            add(
                &mut seen,
                format!("{}Visit", f.name.text),
                f.name.pos,
                format!("file `{}`", f.name.text),
                d,
            );
        }
        for t in &f.tables {
            if let Some(n) = &t.type_name
                && !crate::check::commands::upper_camel(&n.text)
            {
                d.error(
                    n.pos,
                    format!(
                        "table `{}`: `type_name: {}` is a type's name, UpperCamel (`Segments32`)",
                        t.name.text, n.text
                    ),
                );
            }
            add(
                &mut seen,
                t.type_name(),
                t.type_name.as_ref().map_or(t.name.pos, |n| n.pos),
                format!("table `{}`{of}", t.name.text),
                d,
            );
        }
        for t in &vc.collections {
            add(
                &mut seen,
                format!("{}Iter", crate::names::camel(&t.name.text)),
                t.name.pos,
                format!("collection `{}`{of}", t.name.text),
                d,
            );
        }
        if f.writer.is_some() {
            add(
                &mut seen,
                format!("{}Writer", f.name.text),
                f.name.pos,
                format!("the writer of `{}`", f.name.text),
                d,
            );
            add(
                &mut seen,
                format!("{}Plan", f.name.text),
                f.name.pos,
                format!("the writer of `{}`", f.name.text),
                d,
            );
            add(
                &mut seen,
                format!("{}Spec", f.name.text),
                f.name.pos,
                format!("the writer of `{}`", f.name.text),
                d,
            );
            for t in &f.tables {
                add(
                    &mut seen,
                    format!("{}Spec", t.record.text),
                    t.record.pos,
                    format!("the writer's records of table `{}`{of}", t.name.text),
                    d,
                );
                for r in f
                    .ranges
                    .iter()
                    .filter(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
                {
                    add(
                        &mut seen,
                        format!("{}{}", t.record.text, crate::names::camel(&r.name.text)),
                        r.name.pos,
                        format!("the writer's data of range `{}`{of}", r.name.text),
                        d,
                    );
                }
            }
        }
    }
}

/// Check one file layout (the top-level file, or a variant's).
pub(crate) fn check_file(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    let accessors = file
        .tables
        .iter()
        .map(|t| &t.name)
        .chain(file.ranges.iter().map(|r| &r.name))
        .chain(file.checksums.iter().map(|c| &c.name))
        .chain(file.record_checksums.iter().map(|c| &c.name))
        .chain(file.ext.records.iter().map(|r| &r.name))
        .chain(c.collections.iter().map(|t| &t.name));
    dup_check(
        accessors,
        "a table, range, checksum, record or collection",
        d,
    );
    if !c.layouts.contains_key(&file.header.text) {
        c.no_struct(
            d,
            file.header.pos,
            &file.header.text,
            format!("header struct `{}` is not defined", file.header.text),
        );
    }
    crate::check::ext::check_file(c, d);
    crate::check::strings::check_defs(c, d);
    crate::check::strtab_writer::check(c, d);
    crate::check::order::check(c, d);
    crate::check::range_place::check(c, d);
    crate::check::index::check_writer(c, d);
    crate::check::streams::check_file(c, d);
    crate::check::positions::check_file(c, d);
    crate::check::index::sub_in_definitions(c, d);
    for t in &file.tables {
        if !c.layouts.contains_key(&t.record.text) {
            c.no_struct(
                d,
                t.record.pos,
                &t.record.text,
                format!(
                    "record struct `{}` of table `{}` is not defined",
                    t.record.text, t.name.text
                ),
            );
        }
        for (e, w) in [(&t.at, "at"), (&t.count, "count"), (&t.stride, "stride")] {
            check_expr(c, e, Scope::Top, false, w, d);
        }
        // Records lie `stride` bytes apart, at least their size (`table_fits` rejects a
        // shorter stride): a constant one below the record's size would reject every file.
        if let (Some(s), Some(l)) = (
            crate::check::table_writer::const_u64(c, &t.stride.expr),
            c.layouts.get(&t.record.text),
        ) && s < l.size
        {
            d.error(
                t.stride.pos,
                format!(
                    "table `{}`: `stride: {}` is {s}, less than the {} bytes of `{}`: records would overlap (`table_fits` rejects a stride shorter than the record), so every file would be rejected; make the stride at least the record's size",
                    t.name.text, t.stride.text, l.size, t.record.text
                ),
            );
        }
    }
    for r in &file.ranges {
        match &r.table {
            Some(tn) => match c.table(&tn.text) {
                None => d.error(
                    tn.pos,
                    format!(
                        "range `{}` names table `{}`, which is not defined",
                        r.name.text, tn.text
                    ),
                ),
                Some(t) => {
                    check_expr(c, &r.offset, Scope::RecordOnly(t), false, "offset", d);
                    check_expr(c, &r.length, Scope::RecordOnly(t), false, "length", d);
                    if let Some(w) = &r.when {
                        let before = d.items.len();
                        check_expr(c, w, Scope::RecordOnly(t), true, "when", d);
                        // A directory writer's payload with `when` (`optional_parts.rs`).
                        if d.items.len() == before {
                            crate::check::optional_parts::check_payload(c, r, t, d);
                        }
                    }
                }
            },
            None => {
                check_expr(c, &r.offset, Scope::Top, false, "offset", d);
                check_expr(c, &r.length, Scope::Top, false, "length", d);
                if let Some(w) = &r.when {
                    let before = d.items.len();
                    check_expr(c, w, Scope::Top, true, "when", d);
                    // A condition that is wrong in itself gets that one diagnostic.
                    if d.items.len() == before {
                        crate::check::optional_parts::check_range(c, r, d);
                    }
                }
            }
        }
    }
    for k in &file.checksums {
        check_expr(c, &k.from, Scope::Top, false, "from", d);
        check_expr(c, &k.to, Scope::Top, false, "to", d);
        check_expr(c, &k.stored, Scope::Top, false, "stored", d);
        zero_fields(c, k, Scope::Top, d);
        if k.equals {
            reached(c, k, d);
        } else if single_field(c, &k.stored.expr, Scope::Top).is_none() {
            d.error(
                k.stored.pos,
                format!(
                    "stored `{}` must name one field (of the header or a located record), or write `equals: VALUE` for a value the sum must reach",
                    k.stored.text
                ),
            );
        }
        if let (Some(f), false) = (&k.field, k.equals) {
            d.error(
                f.pos,
                format!(
                    "checksum `{}`: `field` names what an error blames when the sum must reach a value (`equals`); with `stored`, the error names the stored field",
                    k.name.text
                ),
            );
        }
    }
    for k in &file.record_checksums {
        record_checksum(c, k, d);
    }
    // A stored field never lies inside the bytes it covers (`sum_span.rs`).
    crate::check::sum_span::check_top(c, d);
    // Repeated asserts may each call their index `k` (it has a value in its own condition
    // only); a `let` may not share a name with one, nor with another `let`.
    let mut repeats: Vec<&str> = Vec::new();
    let names = lets(file).into_iter().filter(|n| {
        if !is_repeat_index(&file.validate, n) {
            return true;
        }
        let first = !repeats.contains(&n.text.as_str());
        repeats.push(&n.text);
        first
    });
    dup_check(names, "a named value (let)", d);
    let mut defs: Vec<(&ExprAt, String)> = Vec::new();
    for t in &file.tables {
        for (e, w) in [(&t.at, "at"), (&t.count, "count"), (&t.stride, "stride")] {
            defs.push((e, format!("table `{}`'s `{w}`", t.name.text)));
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
    for s in &file.streams {
        if let Some(ch) = &s.chain {
            defs.push((&ch.first, format!("stream `{}`'s chain", s.name.text)));
        }
    }
    for (e, what) in defs {
        if e.expr
            .refs()
            .iter()
            .any(|p| matches!(c.resolve(p, Scope::Top), Ok(Resolved::Let(_))))
        {
            d.error(e.pos, format!("{what} `{}` uses a named value: named values are for validation steps (the views and the writer compute without them); write the expression out", e.text));
        }
    }
    let mut st = StepState {
        orders: Vec::new(),
        lets_bound: Vec::new(),
        tables_fitted: Vec::new(),
        records_bound: Vec::new(),
        records_per_record: Vec::new(),
        ranges_fitted: Vec::new(),
        strings_fitted: Vec::new(),
    };
    check_steps(c, &file.validate, Scope::Top, &mut st, d);
    closed_enums_checked(c, d);
    for r in &file.ext.records {
        if !st.records_bound.contains(&r.name.text) && !st.records_per_record.contains(&r.name.text)
        {
            d.error(r.name.pos, format!("record `{}` is never checked by a record_fits step, so its view cannot be built", r.name.text));
        }
    }
    for t in &file.tables {
        if !st.tables_fitted.contains(&t.name.text) {
            d.error(
                t.name.pos,
                format!(
                    "table `{}` is never checked by a table_fits step, so its view cannot be built",
                    t.name.text
                ),
            );
        }
    }
    crate::check::streams::check_walked(c, &st.tables_fitted, d);
    for t in &c.collections {
        if crate::check::lookup::is_target(file, &t.name.text) {
            continue;
        }
        if !st.tables_fitted.contains(&t.name.text) {
            d.error(
                t.name.pos,
                format!(
                    "collection `{}` is never made readable by its directory's entry_size step",
                    t.name.text
                ),
            );
        }
    }
    let fitted = collect_range_fits(&file.validate);
    for r in &file.ranges {
        if !fitted.contains(&r.name.text) {
            d.error(r.name.pos, format!("range `{}` is never checked by a range_fits step, so its bytes cannot be handed out", r.name.text));
        }
    }
    if let Some(w) = &file.writer {
        if !w.align.is_power_of_two() {
            d.error(
                w.align_pos,
                format!("writer align {} is not a power of two", w.align),
            );
        }
        for item in &w.order {
            let known = file.tables.iter().any(|t| t.name.text == item.text)
                || file.ranges.iter().any(|r| r.name.text == item.text)
                || file.strings.iter().any(|s| s.name.text == item.text)
                || file.ext.records.iter().any(|r| r.name.text == item.text);
            if !known {
                c.not_found(
                    d,
                    item.pos,
                    &item.text,
                    format!(
                        "writer order names `{}`, which is not a table, range, string or record",
                        item.text
                    ),
                );
            }
        }
    }
}

pub(crate) fn collect_range_fits(steps: &[Step]) -> Vec<String> {
    let mut out = Vec::new();
    for s in steps {
        match s {
            Step::RangeFits { range, .. } => out.push(range.text.clone()),
            Step::ForEach { steps, .. } => out.extend(collect_range_fits(steps)),
            // Refused on its own; counted so that nothing else is reported for it.
            Step::When { step, .. } => {
                out.extend(collect_range_fits(std::slice::from_ref(&**step)))
            }
            _ => {}
        }
    }
    out
}
