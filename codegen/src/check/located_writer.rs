//! The plain writer's located records (`file.records` in a file without a section
//! directory): the same meaning as next to a directory (`dir_writer.rs`). Each record is
//! placed where `writer.order` names it (at the writer's `align`, or at its constant `at`),
//! its `at` field (one header field, or one field of another located record) set to the
//! place chosen; its other fields derived as the plain writer derives a header field (a
//! value an `expect` or `assert ==` fixes, a table's count or record size, a placed range's
//! offset and length, another located record's place) or given: the writer's setter
//! `<record>_<field>`, the name the directory writer's `<File>Spec` uses. A version-gated
//! record is laid out by its gate, an unsigned integer field the writer takes. What the
//! plain writer cannot derive into a located record is refused here; emitted by
//! `emit/located_writer.rs`.

use crate::check::dir_writer::range_kind;
use crate::check::dir_writer::{const_only, field_kind, targets};
use crate::check::plan::Plan;
use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::Expr;
use crate::model::{Item, Part, Placement, RangeKind, Rule, What};
use crate::yaml::Pos;

/// Place located record `k` as `p`.
fn set_placement(plan: &mut Plan<'_>, k: usize, p: Placement) {
    if let Some(x) = plan.items.iter_mut().find(|(it, _)| *it == Item::Record(k)) {
        x.1 = p;
    }
}

/// Set the rules of a located record's field(s); false when `o` is not a located record.
fn assign(
    records: &mut [Vec<Rule>],
    (o, fields): (Owner, Vec<(usize, Part)>),
    what: &What,
) -> bool {
    let Owner::Located(k) = o else { return false };
    let Some(rules) = records.get_mut(k) else {
        return false;
    };
    for (i, part) in fields {
        if let Some(r) = rules.get_mut(i) {
            *r = Rule::Derived(what.clone(), part);
        }
    }
    true
}

/// The header field a located record's `at` is, when it is one (the plain writer's header
/// plan sets it to the record's place).
pub(crate) fn header_at(c: &Checked, k: usize) -> Option<usize> {
    let r = c.schema.file.ext.records.get(k)?;
    match crate::check::expr::single_field(c, &r.at.expr, Scope::Top) {
        Some((Owner::Header, i)) => Some(i),
        _ => None,
    }
}

/// The located record's field a table's `at` is, when it is one field of a
/// located record (the plain writer places the table at the cursor and sets the field:
/// `writer::at_is_field`).
pub(crate) fn table_at_located(
    c: &Checked,
    t: &crate::schema::Table,
) -> Option<(Owner, Vec<(usize, Part)>)> {
    match targets(c, &t.at.expr, Scope::Top) {
        Some(x @ (Owner::Located(_), _)) if crate::check::writer::at_is_field(c, t) => Some(x),
        _ => None,
    }
}

/// The plain writer's plan (the one [`Plan`] type, without directories): the header's rules
/// (`writer.rs`'s `header_rules`) and its located records' (placed, gated and derived
/// here), or the reasons it cannot write the located records. `Ok(None)`: not a plain
/// writer.
pub(crate) fn analyse(c: &Checked) -> Result<Option<Plan<'_>>, Vec<(Pos, String)>> {
    let file = &c.schema.file;
    if !crate::check::writer::has_plain_writer(c) {
        return Ok(None);
    }
    let Some(w) = &file.writer else {
        return Ok(None);
    };
    let (header, leaves) = crate::check::writer::header_rules(c);
    let mut errs: Vec<(Pos, String)> = Vec::new();
    let mut plan = Plan {
        w,
        dirs: Vec::new(),
        items: (0..file.ext.records.len())
            .map(|k| (Item::Record(k), Placement::Derived))
            .collect(),
        header,
        leaves,
        records: crate::check::dir_writer::located_inputs(c),
        gates: vec![None; file.ext.records.len()],
        computed_gates: vec![None; file.ext.records.len()],
    };
    // Placed where the order names it, once.
    for r in &file.ext.records {
        let n = w.order.iter().filter(|o| o.text == r.name.text).count();
        if n == 0 {
            errs.push((r.name.pos, format!("record `{}`: the writer writes it where `writer.order` names it, and `writer.order` does not; add it", r.name.text)));
        }
        if let Some(o) = w.order.iter().filter(|o| o.text == r.name.text).nth(1) {
            errs.push((o.pos, format!("writer order names `{}` twice", o.text)));
        }
    }
    // Where each goes: one header field (`header_plan` sets it), one field of another
    // located record, or a constant.
    for (k, r) in file.ext.records.iter().enumerate() {
        if header_at(c, k).is_some() {
            continue;
        }
        // At the end of the file: the last item, so the file ends with it.
        if r.gate.is_none() && crate::check::trailer::record_at_end(c, r) {
            if w.order.last().is_some_and(|o| o.text == r.name.text) {
                set_placement(&mut plan, k, Placement::End);
            } else {
                errs.push((r.at.pos, format!("record `{}`: `at: {}` puts it at the end of the file, so the writer places it last, and `writer.order` ends with `{}`; move `{}` to the end", r.name.text, r.at.text, w.order.last().map_or("", |o| o.text.as_str()), r.name.text)));
            }
            continue;
        }
        match targets(c, &r.at.expr, Scope::Top) {
            // (A version-gated record's field too, as for a table's place.)
            Some(t @ (Owner::Located(j), _)) if j != k && t.1.len() == 1 => {
                assign(&mut plan.records, t, &What::Place(Item::Record(k)));
            }
            _ if const_only(c, &r.at.expr, false) => {
                set_placement(&mut plan, k, Placement::Fixed(r.at.expr.clone()));
            }
            _ => errs.push((r.at.pos, format!("record `{}`: the writer cannot derive where it goes: `at: {}` is neither one field of the header or of another located record (which the writer would set to the place it chose), a constant expression, nor `len - <its size>` (at the end of the file)", r.name.text, r.at.text))),
        }
    }
    // Values the steps fix (constants only).
    for (t, value) in crate::check::dir_writer::fixed_values(c) {
        assign(&mut plan.records, t, &What::Value(value.clone()));
    }
    // What else the plain writer derives into a located record's field: a table's count
    // and record size; a placed range's offset and length. A table's place (the plain
    // writer places tables at a constant `at`), a string's offset or a checksum read from a
    // located record is refused.
    // (A linear form of a located record's field: solved into it, `Part::Lin`.)
    let lin = |k: usize, f: &crate::check::linform::LinForm<usize>| {
        (Owner::Located(k), vec![(f.field, Part::Lin(f.unnamed()))])
    };
    let located = |e: &Expr| {
        e.refs().iter().any(|p| {
            matches!(
                c.resolve(p, Scope::Top),
                Ok(Resolved::Field(Owner::Located(_), _)
                    | Resolved::Composed(Owner::Located(_), _)
                    | Resolved::Nested(Owner::Located(_), _)
                    | Resolved::FlagBit(Owner::Located(_), ..))
            )
        })
    };
    for (ti, t) in file.tables.iter().enumerate() {
        // Placed at the cursor like a table at a header field, the record's field set to
        // the place (`table_at_located`).
        if let Some(x) = table_at_located(c, t) {
            assign(&mut plan.records, x, &What::Place(Item::OtherTable(ti)));
        } else if let Some((k, f)) = crate::check::linform::located_place(c, &t.name.text) {
            // A linear form of one field: solved into it (`linform.rs`).
            assign(
                &mut plan.records,
                lin(k, &f),
                &What::Place(Item::OtherTable(ti)),
            );
        } else if located(&t.at.expr) {
            errs.push((t.at.pos, format!("table `{}`: the writer cannot derive where it goes: `at: {}` reads a located record but is not one of its fields (the writer places a table at a constant, or at the cursor and sets the field `at` is: one field of the header or of a located record)", t.name.text, t.at.text)));
        }
        for (e, what) in [
            (&t.count, What::TableCount(ti)),
            (&t.stride, What::RecordSize(ti)),
        ] {
            if let Some(x) = targets(c, &e.expr, Scope::Top)
                && matches!(x.0, Owner::Located(_))
            {
                assign(&mut plan.records, x, &what);
            } else if crate::check::table_when::table_when(c, t).is_none()
                && let Some((k, f)) = crate::check::linform::located_form(c, &e.expr)
            {
                assign(&mut plan.records, lin(k, &f), &what);
            }
        }
    }
    for (ri, r) in file.ranges.iter().enumerate() {
        if r.table.is_some() {
            continue;
        }
        // (A range with `when` the writer writes: its fields zero when it is left out; a
        // stream's range: the bytes given, as any other.)
        let ok = r.when.is_none() || crate::check::when_writer::writes_range(c, r);
        for (e, what, name) in [
            (&r.offset, What::Place(Item::Range(ri)), "offset"),
            (&r.length, What::RangeLength(ri), "length"),
        ] {
            // (A range with `when` takes no form: left out, it has no place or length to
            // solve, `linform_writer.rs`.)
            let form = crate::check::linform::located_form(c, &e.expr)
                .filter(|_| r.when.is_none() && range_kind(c, ri) == RangeKind::Bytes);
            match targets(c, &e.expr, Scope::Top) {
                Some(x) if matches!(x.0, Owner::Located(_)) && ok => {
                    assign(&mut plan.records, x, &what);
                }
                // A linear form of one field: solved into it (`linform.rs`).
                _ if form.is_some() => {
                    if let Some((k, f)) = form {
                        assign(&mut plan.records, lin(k, &f), &what);
                    }
                }
                _ if located(&e.expr) => errs.push((e.pos, format!("range `{}`: the plain writer cannot write its {name} into a located record: `{}` is not one of its fields (or a linear form of one), or the range has a `when` the writer cannot write; keep it in the header", r.name.text, e.text))),
                _ => {}
            }
        }
    }
    // A file string's offset in a located record: where the writer placed it, or its
    // offset in the string table it lies in (`strings::writable` refuses the rest).
    for (k, s) in file.strings.iter().enumerate() {
        if s.table.is_some() || crate::check::strings::writable(c, s).is_err() {
            continue;
        }
        if let Some(x @ (Owner::Located(_), _)) = targets(c, &s.offset.expr, Scope::Top) {
            let what = if s.range.is_some() {
                What::StrOffset(k)
            } else {
                What::Place(Item::Str(k))
            };
            assign(&mut plan.records, x, &what);
        }
    }
    // A checksum's span may read located records, version-gated ones included: the writer
    // reads them as written, each in the layout of its gate (`emit/located_writer.rs`'s
    // `span_views`).
    // A version-gated record: laid out by its gate, one unsigned integer field the writer
    // takes (of the header or of an ungated located record).
    for (k, r) in file.ext.records.iter().enumerate() {
        let Some(g) = &r.gate else { continue };
        let is_input = |o: Owner, i: usize| match o {
            Owner::Header => plan.header.get(i).is_some_and(Rule::is_input),
            Owner::Located(j) => matches!(
                plan.records.get(j).and_then(|x| x.get(i)),
                Some(Rule::Input)
            ),
            _ => false,
        };
        match crate::check::dir_writer::gate_plan(
            c,
            &r.name.text,
            g,
            &is_input,
            "the values it takes",
        ) {
            Ok((input, computed)) => {
                if let Some(slot) = plan.gates.get_mut(k) {
                    *slot = input;
                }
                if let Some(slot) = plan.computed_gates.get_mut(k) {
                    *slot = computed;
                }
            }
            Err(e) => errs.push(e),
        }
        if let Some(st) = c.strukt(&r.strukt.text) {
            for (i, f) in st.fields.iter().enumerate() {
                if matches!(
                    field_kind(c, st, i),
                    Some(FieldKind::Struct(..) | FieldKind::Structs(..))
                ) {
                    errs.push((f.name.pos, format!("field `{}` of `{}`: the writer cannot write a struct-typed field of a version-gated record", f.name.text, st.name.text)));
                } else if (f.since.is_some() || f.until.is_some())
                    && !matches!(
                        plan.records.get(k).and_then(|x| x.get(i)),
                        Some(Rule::Input) | None
                    )
                    && !plan.records.get(k).and_then(|x| x.get(i)).is_some_and(
                        |rule| matches!(rule, Rule::Derived(w, _) if crate::check::dir_writer::optional_part(c, w)),
                    )
                {
                    errs.push((f.name.pos, format!("field `{}` of `{}`: the writer derives its value, so it must be in every layout of the version-gated record (no `since` or `until`), unless it locates or sizes an optional part (a range or table with `when`), which the writer then refuses to write in a layout without the field", f.name.text, st.name.text)));
                }
            }
        }
    }
    // A derived value needs an integer field (the header's, as the directory writer's).
    crate::check::dir_writer::derived_need_integers(c, c.header(), &plan.header, &mut errs);
    for (k, r) in file.ext.records.iter().enumerate() {
        if let Some(rules) = plan.records.get(k) {
            crate::check::dir_writer::derived_need_integers(
                c,
                c.strukt(&r.strukt.text),
                rules,
                &mut errs,
            );
        }
    }
    if errs.is_empty() {
        Ok(Some(plan))
    } else {
        Err(errs)
    }
}

/// Refuse a plain writer's located records it cannot write.
pub(crate) fn check(c: &Checked, d: &mut crate::diag::Diags) {
    if let Err(errs) = analyse(c) {
        for (pos, msg) in errs {
            d.error(pos, msg);
        }
    }
}
