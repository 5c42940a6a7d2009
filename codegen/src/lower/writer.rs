//! The writer's lowering: for every file (or variant) with a `writer`, the one [`Plan`] the
//! writer emitter (`emit/file_writer.rs`) writes, or the diagnostics that say why there is
//! none. It places the items `writer.order` names (located records, each directory's table
//! and payloads, other file-level ranges and strings, other tables and their per-record
//! ranges, a stream's range, a string table, records' strings) and states each stored
//! field's equation (`model.rs`): an input, or derived from where an item went, a count, a
//! length, a checksum, a constant the steps fix. A file without a section directory is a
//! plan with no `dirs`. The checks it reads per construct live in the check phase
//! (`check/writer_rules.rs` and the construct modules it names).

use crate::check::writer_rules::{
    const_only, derived_need_integers, field_kind, fixed_values, gate_plan, located_inputs,
    optional_part, range_kind, targets, top_checksum_field,
};
use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::diag::Diags;
use crate::expr::Expr;
use crate::lower::plan::{DirPlan, Plan};
use crate::model::{Item, Part, Placement, RangeKind, Rule, What};
use crate::schema::ext::DirChecksumKind;
use crate::schema::top::Struct;
use crate::schema::{IntTy, Range};
use crate::yaml::Pos;

/// The per-record ranges of directory `x`'s table other than its payloads (index into
/// `file.ranges`), which the writer writes as another table's (`emit/record_ranges.rs`).
pub(crate) fn extra_ranges<'a>(c: &'a Checked, x: &DirPlan<'_>) -> Vec<(usize, &'a Range)> {
    c.schema
        .file
        .ranges
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.table
                .as_ref()
                .is_some_and(|t| t.text == x.table.name.text)
                && r.name.text != x.range.name.text
        })
        .collect()
}

/// The plan of a directory writer, or the reasons there is none (`Err` with diagnostics;
/// `Ok(None)`: the file has no directory writer).
pub(crate) fn analyse(c: &Checked) -> Result<Option<Plan<'_>>, Vec<(Pos, String)>> {
    let file = &c.schema.file;
    let Some(w) = &file.writer else {
        return Ok(None);
    };
    let mut errs: Vec<(Pos, String)> = Vec::new();
    // A record found by a search: the validator looks for it, the writer would have to make
    // its condition hold at the place it picks and nowhere after it.
    for r in &file.ext.records {
        if let Some(s) = &r.search {
            errs.push((s.pos, format!("record `{}`: the writer cannot write a record found by a search (it would have to make `{}` hold where it puts the record and nowhere after it); drop the `writer`, or place the record by `at` alone", r.name.text, s.cond.text)));
        }
        // One per record of a table or stream (ZIP's local headers): the writer places
        // the file's parts once each, not one per record.
        if let Some(t) = &r.table {
            errs.push((r.name.pos, format!("record `{}` is one per record of `{}`, and the writer does not place records per record: leave out `writer`, or the record", r.name.text, t.text)));
        }
        // Present only when its condition holds: the writer would have to write the
        // condition's fields from whether the record is given.
        if let Some(w) = &r.when {
            errs.push((w.pos, format!("record `{}` is present only `when: {}`, and the writer does not write optional records: leave out `writer`, or the `when`", r.name.text, w.text)));
        }
    }
    // The file's byte order chosen when it is read: the writer writes one order.
    if let Some(b) = &c.schema.big_when {
        errs.push((b.pos, format!("the writer does not write a file whose byte order is chosen when it is read (`big_when: {}`): leave out `writer`, or give the schema one `byte_order`", b.text)));
    }
    for k in &file.record_checksums {
        if let Some(t) = &k.table {
            errs.push((k.name.pos, format!("checksum `{}` is one per record of `{}`, and the writer does not compute checksums per record: leave out `writer`, or the checksum", k.name.text, t.text)));
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    if file.ext.directories.is_empty() {
        if file.ext.when.is_some() {
            errs.push((file.name.pos, format!("variant `{}`: a variant's writer writes a section directory (`directories`), and this variant has none; drop its `writer`", file.name.text)));
            return Err(errs);
        }
        if let Some(p) = &w.payload_align {
            errs.push((
                p.pos,
                "`payload_align` is for a writer of a section directory, and this file has none"
                    .to_string(),
            ));
        }
        // Without a header struct: refused on its own.
        if c.header().is_none() {
            return if errs.is_empty() { Ok(None) } else { Err(errs) };
        }
    }
    // Each directory: its table and payload range (the writer writes them all, each where
    // the order names it).
    let mut found = Vec::new();
    for dir in &file.ext.directories {
        let (Some(table), Some(range)) = (
            file.tables.iter().find(|t| t.name.text == dir.table.text),
            file.ranges.iter().find(|r| r.name.text == dir.payload.text),
        ) else {
            // Diagnosed by the directory checks.
            return Err(errs);
        };
        found.push((dir, table, range));
    }
    let is_dir_table = |n: &str| found.iter().any(|(_, t, _)| t.name.text == n);
    let is_payload = |n: &str| found.iter().any(|(_, _, r)| r.name.text == n);
    let named = |n: &str| w.order.iter().any(|o| o.text == n);
    let must_name = |what: &str, n: &str| {
        format!("{what} `{n}`: the writer places it, so `writer.order` must name it")
    };
    // Other file-level tables: their records given as `<Record>Spec` (as for the plain
    // writer), placed where the order names them.
    let others: Vec<usize> = (0..file.tables.len())
        .filter(|&i| {
            file.tables
                .get(i)
                .is_some_and(|t| !is_dir_table(&t.name.text))
        })
        .collect();
    // (One with a directory's record struct: its `<Record>Spec` clashes, which the
    // generated-names check reports.)
    for t in others.iter().filter_map(|&i| file.tables.get(i)) {
        if !named(&t.name.text) {
            errs.push((t.name.pos, must_name("table", &t.name.text)));
        }
    }
    // Per-record ranges: the directory's payload, or another table's (placed where the
    // order names them, each record's offset and length fields derived).
    for r in &file.ranges {
        let Some(tn) = &r.table else { continue };
        if is_payload(&r.name.text) {
            continue;
        }
        if !named(&r.name.text) {
            errs.push((r.name.pos, must_name("range", &r.name.text)));
        }
        if let Some(t) = c.table(&tn.text) {
            for (e, what) in [(&r.offset, "offset"), (&r.length, "length")] {
                let scope = Scope::RecordOnly(t);
                let one = crate::check::expr::single_field(c, &e.expr, scope)
                    .is_some_and(|x| x.0 == Owner::Record)
                    || matches!(&e.expr, Expr::Ref(p) if matches!(c.resolve(p, scope), Ok(Resolved::Nested(Owner::Record, l)) if l.bit.is_none()));
                // A linear form of one field of the record: solved (`linform.rs`).
                let lin = crate::check::linform::record_form(c, t, &e.expr).is_some();
                if !one && !lin {
                    errs.push((e.pos, format!("range `{}`: the writer cannot write its {what}: `{}` is neither one field of `{}` nor a linear form of one: {}", r.name.text, e.text, t.record.text, crate::check::linform::FORMS)));
                }
            }
        }
    }
    // Another file-level range that the order names: placed; its bytes an input, a
    // stream's records, or the strings that lie in it (its offset and length fields are
    // checked below; a `when`: `optional_parts.rs`).
    let placed = |r: &Range| r.table.is_none() && named(&r.name.text);
    for (k, r) in file.ranges.iter().enumerate() {
        if r.table.is_some() || placed(r) {
            continue;
        }
        // A range with strings: `strtab_writer::check` asks for it.
        if range_kind(c, k) != RangeKind::Built {
            errs.push((r.name.pos, must_name("range", &r.name.text)));
        }
    }
    // The file's strings: outside ranges (one header field, placed where the order names
    // it), in a range (a string table the writer builds) or a record's (each record of
    // another table gives its string; its offset field derived).
    let str_placed = |s: &crate::schema::strings::StringDef| {
        s.table.is_none() && s.range.is_none() && named(&s.name.text)
    };
    for s in &file.strings {
        if s.table.as_ref().is_some_and(|t| is_dir_table(&t.text)) {
            // Its offset one integer field of the record: the writer builds it, each section's
            // string given in its `<Entry>Spec`, in a string table (`in:`) or, outside any
            // range, every record's back to back where the order names the string.
            if crate::check::strtab_writer::record_offset_field(c, s).is_err() {
                errs.push((
                    s.name.pos,
                    format!(
                        "string `{}`: a directory writer writes a string of the directory's records when its offset is one integer field of the record, and this one is not; drop the `writer` or make the offset such a field",
                        s.name.text
                    ),
                ));
            } else if s.range.is_none() && !named(&s.name.text) {
                errs.push((s.name.pos, must_name("string", &s.name.text)));
            }
        } else if s.table.is_some() || s.range.is_some() {
            if let Err(why) = crate::check::strings::writable(c, s) {
                errs.push((
                    s.name.pos,
                    format!(
                        "string `{}`: the writer cannot write it ({why})",
                        s.name.text
                    ),
                ));
            } else if s.range.is_none() && !named(&s.name.text) {
                errs.push((s.name.pos, must_name("string", &s.name.text)));
            }
        } else if crate::check::strings::writable(c, s).is_err()
            && crate::check::linform::top_form(c, &s.offset.expr).is_none()
        {
            // (Before whether the order names it: naming it would not help.)
            errs.push((
                s.offset.pos,
                format!(
                    "string `{}`: the writer cannot write its offset: `{}` is neither one field of the header or of a located record nor a linear form of one: {}",
                    s.name.text, s.offset.text, crate::check::linform::FORMS
                ),
            ));
        } else if !str_placed(s) {
            errs.push((s.name.pos, must_name("string", &s.name.text)));
        }
    }
    // Streams: written by their `<Stream>Writer` into their range (placed like another).
    for s in &file.streams {
        if crate::check::strtab_writer::is_built(c, &s.range.text) {
            errs.push((
                s.range.pos,
                format!(
                    "stream `{}`: range `{}` also holds strings; the writer fills a range with a stream's records or with strings, not both",
                    s.name.text, s.range.text
                ),
            ));
        }
    }
    // A top-level checksum: computed by `seal`, after the directory's (`top_checksum`).
    let mut top_sums = Vec::new();
    for k in &file.checksums {
        match top_checksum_field(c, k) {
            Ok(i) => top_sums.push(i),
            Err(why) => errs.push((
                k.stored.pos,
                format!(
                    "checksum `{}`: {why}; drop the `writer` or make it a directory checksum",
                    k.name.text
                ),
            )),
        }
        for e in [&k.from, &k.to] {
            // Constants, `len`, header fields, a located record's (`located_span.rs`).
            let header_only = crate::check::located_span::span_readable(c, &e.expr);
            if !header_only {
                errs.push((e.pos, format!("checksum `{}`: the writer computes it from the bytes it wrote, reading its span from constants, `len`, header fields and fields of a located record placed by those (gated by those too, when gated), and `{}` reads something else", k.name.text, e.text)));
            }
        }
    }
    let n_of = |s: Option<&Struct>| s.map_or(0, |s| s.fields.len());
    // The fields inside struct-typed header fields the writer derives, as the header's
    // rules find them (`writer.rs`).
    let leaves = crate::check::writer::header_leaves(c);
    let mut plan = Plan {
        w,
        dirs: found
            .iter()
            .map(|&(dir, table, range)| DirPlan {
                dir,
                table,
                range,
                align_field: None,
                entry: vec![Rule::Input; n_of(c.strukt(&table.record.text))],
            })
            .collect(),
        items: Vec::new(),
        header: vec![Rule::Input; n_of(c.header())],
        leaves,
        records: located_inputs(c),
        gates: vec![None; file.ext.records.len()],
        computed_gates: vec![None; file.ext.records.len()],
    };
    // The order: every located record, each directory's table and payloads, once each.
    for item in &w.order {
        let it = if let Some(d) = found.iter().position(|(_, t, _)| t.name.text == item.text) {
            Item::Table(d)
        } else if let Some(d) = found.iter().position(|(_, _, r)| r.name.text == item.text) {
            Item::Payload(d)
        } else if let Some(k) = file
            .ext
            .records
            .iter()
            .position(|r| r.name.text == item.text)
        {
            Item::Record(k)
        } else if let Some(k) = file
            .ranges
            .iter()
            .position(|r| r.name.text == item.text && placed(r))
        {
            Item::Range(k)
        } else if let Some(k) = file
            .strings
            .iter()
            .position(|s| s.name.text == item.text && str_placed(s))
        {
            Item::Str(k)
        } else if let Some(&k) = others
            .iter()
            .find(|&&k| file.tables.get(k).is_some_and(|t| t.name.text == item.text))
        {
            Item::OtherTable(k)
        } else if let Some(k) = file.ranges.iter().position(|r| {
            r.name.text == item.text && r.table.is_some() && !is_payload(&r.name.text)
        }) {
            Item::RecordRange(k)
        } else if let Some(k) = file
            .strings
            .iter()
            .position(|s| s.name.text == item.text && s.range.is_none() && s.table.is_some())
        {
            Item::RecordStr(k)
        } else {
            // Refused above; an unknown name: by the order check.
            continue;
        };
        if plan.items.iter().any(|(x, _)| *x == it) {
            errs.push((
                item.pos,
                format!("writer order names `{}` twice", item.text),
            ));
            continue;
        }
        plan.items.push((it, Placement::Derived));
    }
    let mut wanted: Vec<(Item, String)> = file
        .ext
        .records
        .iter()
        .enumerate()
        .map(|(k, r)| (Item::Record(k), r.name.text.clone()))
        .collect();
    for (d, (_, table, range)) in found.iter().enumerate() {
        wanted.push((Item::Table(d), table.name.text.clone()));
        wanted.push((Item::Payload(d), range.name.text.clone()));
    }

    for (it, n) in wanted {
        if plan.items.iter().any(|(x, _)| *x == it) {
            continue;
        }
        match it {
            // At the record, as for a table or a range the order leaves out.
            Item::Record(k) => {
                if let Some(r) = file.ext.records.get(k) {
                    errs.push((r.name.pos, must_name("record", &n)));
                }
            }
            _ => {
                let at = w.order.first().map_or(w.align_pos, |o| o.pos);
                errs.push((at, format!("writer order must name `{n}`: a directory writer places every located record, each directory table and its payloads")));
            }
        }
    }
    // Values the steps fix.
    for (t, value) in fixed_values(c) {
        plan.assign(t, &What::Value(value.clone()));
    }
    // Places, counts, strides.
    let mut places: Vec<(Item, &crate::expr::ExprAt, String)> = file
        .ext
        .records
        .iter()
        .enumerate()
        .map(|(k, r)| (Item::Record(k), &r.at, format!("record `{}`", r.name.text)))
        .collect();
    for (d, (_, table, _)) in found.iter().enumerate() {
        places.push((
            Item::Table(d),
            &table.at,
            format!("table `{}`", table.name.text),
        ));
    }
    for &k in &others {
        if let Some(t) = file.tables.get(k) {
            places.push((
                Item::OtherTable(k),
                &t.at,
                format!("table `{}`", t.name.text),
            ));
        }
    }
    for (it, at, what) in places {
        // (An optional table, left out, records place zero: `linform.rs`.)
        let optional = match it {
            Item::OtherTable(k) => file
                .tables
                .get(k)
                .is_some_and(|t| crate::check::table_when::table_when(c, t).is_some()),
            _ => false,
        };
        if let Some(t) = targets(c, &at.expr, Scope::Top) {
            plan.assign(t, &What::Place(it));
        } else if let Some((o, i, f)) = crate::check::linform::top_form(c, &at.expr) {
            // A linear form of one field: the first place at or after the cursor it can
            // store (`emit/linform.rs`), solved for the field.
            if optional && !crate::check::linform::stores_zero(&f) {
                errs.push((
                    at.pos,
                    format!(
                        "{what}: the writer cannot solve `at: {}`: {}",
                        at.text,
                        crate::check::linform::ZERO
                    ),
                ));
            }
            plan.assign((o, vec![(i, Part::Lin(f))]), &What::Place(it));
        } else if const_only(c, &at.expr, false) {
            if let Some(p) = plan.items.iter_mut().find(|(x, _)| *x == it) {
                p.1 = Placement::Fixed(at.expr.clone());
            }
        } else if item_at_end(c, it) {
            // At the end of the file, last (`trailer.rs`).
            if let Some(p) = plan.items.iter_mut().find(|(x, _)| *x == it) {
                p.1 = Placement::End;
            }
        } else {
            errs.push((at.pos, format!("{what}: the writer cannot derive where it goes: `at: {}` is neither one field (which the writer would set to the place it chose), a linear form of one field of the header or of an ungated located record ({}) nor a constant expression", at.text, crate::check::linform::FORMS)));
        }
    }
    // A located record at the end of the file goes last (a range's or a table's order:
    // `range_place.rs`).
    for (k, r) in file.ext.records.iter().enumerate() {
        let last = w.order.last().map_or("", |o| o.text.as_str());
        if crate::check::trailer::record_at_end(c, r)
            && plan
                .items
                .last()
                .is_some_and(|(x, _)| *x != Item::Record(k))
        {
            errs.push((r.at.pos, format!("record `{}`: `at: {}` puts it at the end of the file, so the writer places it last, and `writer.order` ends with `{last}`; move `{}` to the end", r.name.text, r.at.text, r.name.text)));
        }
    }
    for (k, r) in file.ranges.iter().enumerate() {
        if is_payload(&r.name.text) || !placed(r) {
            continue;
        }
        // A constant offset, a trailer at `len - C`; a constant length, one to the end of the
        // file or to a trailer (`check/range_place.rs` and `trailer.rs` check the order).
        let (offset_ok, length_ok) = crate::check::range_place::placed_without_field(c, r);
        if let Some(p) = plan.items.iter_mut().find(|(x, _)| *x == Item::Range(k)) {
            if let Some(e) = crate::check::range_place::const_offset(c, r) {
                p.1 = Placement::Fixed(e.clone());
            } else if crate::check::trailer::is_trailer(c, r) {
                p.1 = Placement::End;
            }
        }
        for (e, what, name) in [
            (&r.offset, What::Place(Item::Range(k)), "offset"),
            (&r.length, What::RangeLength(k), "length"),
        ] {
            let lin = crate::check::linform::top_form(c, &e.expr);
            match targets(c, &e.expr, Scope::Top) {
                Some(t) if matches!(t.0, Owner::Header | Owner::Located(_)) => {
                    plan.assign(t, &what);
                }
                _ if (name == "offset" && offset_ok) || (name == "length" && length_ok) => {}
                // Another use of `len`: `range_place::check` says what is written.
                _ if e.expr.refs().iter().any(|p| matches!(c.resolve(p, Scope::Top), Ok(Resolved::Len))) => {}
                // A string table's: `strtab_writer::check` says so.
                _ if range_kind(c, k) == RangeKind::Built => {}
                // A field inside a struct-typed header field: one of `plan.leaves`.
                _ if header_leaf(c, &e.expr) => {}
                // A linear form of one field, solved (`linform.rs`).
                _ if lin.is_some() => {
                    let Some((o, i, f)) = lin else { continue };
                    if r.when.is_some() && !crate::check::linform::stores_zero(&f) {
                        errs.push((e.pos, format!("range `{}`: the writer cannot solve its {name} `{}`: {}", r.name.text, e.text, crate::check::linform::ZERO)));
                    }
                    plan.assign((o, vec![(i, Part::Lin(f))]), &what);
                }
                _ => errs.push((e.pos, format!("range `{}`: the writer cannot write its {name}: `{}` is neither one field (or composed value) of the header or a located record nor a linear form of one: {}", r.name.text, e.text, crate::check::linform::FORMS))),
            }
        }
        if let Some(f) = c
            .header()
            .and_then(|h| h.fields.iter().find(|f| f.name.text == r.name.text))
        {
            errs.push((f.name.pos, format!("header field `{}`: `{}Spec` takes range `{}` as its field of that name; rename one", f.name.text, file.name.text, r.name.text)));
        }
    }
    for (k, s) in file.strings.iter().enumerate() {
        if s.table.is_none()
            && s.range.is_some()
            && crate::check::strings::writable(c, s).is_ok()
            && let Some(t @ (Owner::Header | Owner::Located(_), _)) =
                targets(c, &s.offset.expr, Scope::Top)
        {
            // In a string table: its offset there.
            plan.assign(t, &What::StrOffset(k));
            continue;
        }
        if !str_placed(s) {
            continue;
        }
        if crate::check::strings::writable(c, s).is_ok()
            && let Some(t @ (Owner::Header | Owner::Located(_), _)) =
                targets(c, &s.offset.expr, Scope::Top)
        {
            plan.assign(t, &What::Place(Item::Str(k)));
        } else if let Some((o, i, f)) = crate::check::linform::top_form(c, &s.offset.expr) {
            // A linear form of one field, solved (`linform.rs`).
            plan.assign((o, vec![(i, Part::Lin(f))]), &What::Place(Item::Str(k)));
        }
        if let Some(f) = c
            .header()
            .and_then(|h| h.fields.iter().find(|f| f.name.text == s.name.text))
        {
            errs.push((f.name.pos, format!("header field `{}`: `{}Spec` takes string `{}` as its field of that name; rename one", f.name.text, file.name.text, s.name.text)));
        }
    }
    // The other spec fields of the items: another table's records, a stream's records, a
    // string table's file strings.
    let mut spec_names: Vec<(&crate::schema::Name, &str)> = Vec::new();
    for (it, _) in &plan.items {
        match *it {
            Item::OtherTable(k) => {
                if let Some(t) = file.tables.get(k) {
                    spec_names.push((&t.name, "table"));
                }
            }
            Item::Range(k) => {
                if let RangeKind::Stream(si) = range_kind(c, k)
                    && let Some(st) = file.streams.get(si)
                {
                    spec_names.push((&st.name, "stream"));
                }
            }
            _ => {}
        }
    }
    for s in file
        .strings
        .iter()
        .filter(|s| s.table.is_none() && s.range.is_some())
    {
        spec_names.push((&s.name, "string"));
    }
    for (n, what) in spec_names {
        if let Some(f) = c
            .header()
            .and_then(|h| h.fields.iter().find(|f| f.name.text == n.text))
        {
            errs.push((f.name.pos, format!("header field `{}`: `{}Spec` takes {what} `{}` as its field of that name; rename one", f.name.text, file.name.text, n.text)));
        }
    }
    // The directory records' strings: each record's offset field.
    for s in &file.strings {
        if let Some(d) = found
            .iter()
            .position(|(_, t, _)| s.table.as_ref().is_some_and(|x| x.text == t.name.text))
            && let Ok(i) = crate::check::strtab_writer::record_offset_field(c, s)
            && let Some(r) = plan.dirs.get_mut(d).and_then(|x| x.entry.get_mut(i))
        {
            *r = Rule::Derived(What::RecordStr, Part::Whole);
        }
    }
    // Another per-record range of a directory table: its offset, length and flag fields
    // set per section with its bytes.
    for (ri, r) in file.ranges.iter().enumerate() {
        let Some(d) = found
            .iter()
            .position(|(_, t, _)| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
        else {
            continue;
        };
        if is_payload(&r.name.text) {
            continue;
        }
        let Some(dp) = plan.dirs.get(d) else { continue };
        let table = dp.table;
        let rules = crate::check::record_rules::record_rules(c, table);
        for (i, rule) in rules.iter().enumerate() {
            // (Solved through a linear form: set with the bytes too, `range_sets`.)
            let mine = matches!(rule.what(), Some(What::RecordOffset(x)
                | What::RecordLength(x)
                | What::RecordFlag(x)) if *x == ri);
            if mine
                && let Some(w) = rule.what()
                && let Some(e) = plan.dirs.get_mut(d).and_then(|x| x.entry.get_mut(i))
            {
                *e = Rule::Derived(w.clone(), Part::Whole);
            }
        }
    }
    for i in top_sums {
        plan.assign((Owner::Header, vec![(i, Part::Whole)]), &What::Checksum);
    }
    for (d, (_, table, _)) in found.iter().enumerate() {
        let lin = |e: &Expr| {
            crate::check::linform::top_form(c, e).map(|(o, i, f)| (o, vec![(i, Part::Lin(f))]))
        };
        match targets(c, &table.count.expr, Scope::Top).or_else(|| lin(&table.count.expr)) {
            Some(t) => plan.assign(t, &What::Count(d)),
            None => errs.push((table.count.pos, format!("table `{}`: the writer cannot write its record count: `count: {}` is neither one field nor a linear form of one field of the header or of an ungated located record: {}", table.name.text, table.count.text, crate::check::linform::FORMS))),
        }
        if let Some(t) =
            targets(c, &table.stride.expr, Scope::Top).or_else(|| lin(&table.stride.expr))
        {
            plan.assign(t, &What::Stride(d));
        } else {
            // A number or constant: the record's size (the writer lays records out back to
            // back; a smaller one is refused for every reader, `top.rs`).
            match crate::check::table_writer::const_u64(c, &table.stride.expr) {
                Some(_) => {
                    if let Some(m) = crate::check::table_writer::padded_const(c, table) {
                        errs.push((table.stride.pos, m));
                    }
                }
                None => errs.push((table.stride.pos, format!("table `{}`: the writer cannot write its stride: `stride: {}` is neither one field (which the writer sets to the record's size) nor a number or constant", table.name.text, table.stride.text))),
            }
        }
    }
    for &k in &others {
        let Some(t) = file.tables.get(k) else {
            continue;
        };
        // A count or stride that is one field: derived; a number or constant: honoured (the
        // records given must match the count; each record at the stride); else refused.
        // (Or a linear form of one field, solved: `linform.rs`; an optional table's
        // count one that stores zero.)
        let optional = crate::check::table_when::table_when(c, t).is_some();
        let lin = |e: &Expr| {
            crate::check::linform::top_form(c, e).map(|(o, i, f)| (o, vec![(i, Part::Lin(f))]))
        };
        if let Some(x) = targets(c, &t.count.expr, Scope::Top).or_else(|| lin(&t.count.expr)) {
            plan.assign(x, &What::TableCount(k));
        }
        if let Some(x) = targets(c, &t.stride.expr, Scope::Top).or_else(|| lin(&t.stride.expr)) {
            plan.assign(x, &What::RecordSize(k));
        }
        if optional
            && let Some((_, _, f)) = crate::check::linform::top_form(c, &t.count.expr)
            && !crate::check::linform::stores_zero(&f)
        {
            errs.push((
                t.count.pos,
                format!(
                    "table `{}`: the writer cannot solve `count: {}`: {}",
                    t.name.text,
                    t.count.text,
                    crate::check::linform::ZERO
                ),
            ));
        }
        let mut ds = crate::diag::Diags::default();
        crate::check::table_writer::check_count_stride(
            c,
            t,
            &|e: &Expr| {
                targets(c, e, Scope::Top).is_some()
                    || crate::check::linform::top_form(c, e).is_some()
                    || header_leaf(c, e)
            },
            &mut ds,
        );
        errs.extend(ds.items.into_iter().map(|x| (x.pos, x.message)));
    }
    for (d, &(dir, table, range)) in found.iter().enumerate() {
        // A payload with `when`: optional per section (`optional_parts.rs`).
        let rscope = Scope::RecordOnly(table);
        for (e, what, name) in [
            (&range.offset, What::PayloadOffset, "offset"),
            (&range.length, What::PayloadLength, "length"),
        ] {
            match targets(c, &e.expr, rscope) {
                Some(t) if t.0 == Owner::Record => plan.assign_in(d, t, &what),
                // A linear form of one field of the record, solved (`linform.rs`).
                _ if crate::check::linform::record_form(c, table, &e.expr).is_some() => {
                    let Some(f) = crate::check::linform::record_form(c, table, &e.expr) else { continue };
                    let (i, f) = (f.field, f.unnamed());
                    if range.when.is_some() && !crate::check::linform::stores_zero(&f) {
                        errs.push((e.pos, format!("range `{}`: the writer cannot solve its {name} `{}`: {}", range.name.text, e.text, crate::check::linform::ZERO)));
                    }
                    plan.assign_in(d, (Owner::Record, vec![(i, Part::Lin(f))]), &what);
                }
                _ => errs.push((e.pos, format!("range `{}`: the writer cannot write its {name}: `{}` is neither one field (or composed value) of `{}` nor a linear form of one: {}", range.name.text, e.text, table.record.text, crate::check::linform::FORMS))),
            }
        }
        // Checksums.
        for k in &dir.checksums {
            if let DirChecksumKind::Payloads { stored, .. } = &k.kind {
                match targets(c, &stored.expr, Scope::Top) {
                    Some((Owner::Header, f))
                        if f.len() == 1
                            && f.first().and_then(|(i, _)| c.header().and_then(|h| field_kind(c, h, *i))).is_some_and(|k| matches!(k, FieldKind::Int(IntTy::U32 | IntTy::U64))) =>
                    {
                        plan.assign((Owner::Header, f), &What::Checksum);
                    }
                    _ => errs.push((stored.pos, format!("checksum `{}`: the writer stores a payload checksum in one `u32` or `u64` header field, and `{}` is not one", k.name.text, stored.text))),
                }
            }
            if let DirChecksumKind::Records {
                records,
                target,
                stored,
            } = &k.kind
            {
                let rec = crate::check::ext::collection_of(file, &records.text)
                    .and_then(|(_, l)| c.strukt(&l.record.text));
                let kind = |n: &str| {
                    rec.and_then(|st| {
                        let i = st.fields.iter().position(|f| f.name.text == n)?;
                        field_kind(c, st, i)
                    })
                };
                if !matches!(
                    kind(&stored.text),
                    Some(FieldKind::Int(IntTy::U32 | IntTy::U64))
                ) {
                    errs.push((stored.pos, format!("checksum `{}`: the writer stores a section's checksum in a `u32` or `u64` field, and `{}` is not one", k.name.text, stored.text)));
                }
                let target_ok = match kind(&target.text) {
                    Some(FieldKind::Int(t)) => !t.signed(),
                    Some(FieldKind::Enum(e)) => {
                        c.schema.enums.get(e).is_some_and(|x| !x.repr.signed())
                    }
                    _ => false,
                };
                if !target_ok {
                    errs.push((target.pos, format!("checksum `{}`: the writer reads the section type a record names from an unsigned integer or enum field, and `{}` is not one", k.name.text, target.text)));
                }
            }
        }
        // The payload alignment field, and the directory type field (an input).
        if let Some(entry) = c.strukt(&table.record.text) {
            if let Some(p) = &w.payload_align {
                match entry.fields.iter().position(|f| f.name.text == p.text) {
                    Some(i)
                        if matches!(field_kind(c, entry, i), Some(FieldKind::Int(t)) if !t.signed())
                            && matches!(plan.dirs.get(d).and_then(|x| x.entry.get(i)), Some(Rule::Input)) =>
                    {
                        if let Some(x) = plan.dirs.get_mut(d) {
                            x.align_field = Some(i);
                        }
                    }
                    _ => errs.push((p.pos, format!("`payload_align` must name an unsigned integer field of `{}` that the writer does not derive{}", table.record.text, if found.len() > 1 { format!(" (it aligns the payloads of every directory, `{}`'s too)", dir.name.text) } else { String::new() }))),
                }
            }
            if let Some(i) = entry
                .fields
                .iter()
                .position(|f| f.name.text == dir.type_field.text)
                && !matches!(
                    plan.dirs.get(d).and_then(|x| x.entry.get(i)),
                    Some(Rule::Input)
                )
            {
                errs.push((dir.type_field.pos, format!("directory `{}`: the type field `{}` is an input of the writer, so no rule may fix it", dir.name.text, dir.type_field.text)));
            }
        }
    }
    // A version-gated record: its layout (which fields, where, its size) follows its gate,
    // which must be an unsigned integer field the spec gives (of the header or of an
    // ungated located record), or computed from such fields and constants, so the writer
    // knows it before it places anything.
    for (k, r) in file.ext.records.iter().enumerate() {
        let Some(g) = &r.gate else { continue };
        let is_input = |o: Owner, i: usize| {
            let rules = match o {
                Owner::Header => Some(&plan.header),
                Owner::Located(j) => plan.records.get(j),
                _ => None,
            };
            matches!(rules.and_then(|x| x.get(i)), Some(Rule::Input))
        };
        match gate_plan(c, &r.name.text, g, &is_input, "the values the spec gives") {
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
        if let Some(st) = c.strukt(&r.strukt.text)
            && let Some(f) = st.fields.iter().enumerate().find(|(i, _)| {
                matches!(
                    field_kind(c, st, *i),
                    Some(FieldKind::Struct(..) | FieldKind::Structs(..))
                )
            })
        {
            errs.push((f.1.name.pos, format!("field `{}` of `{}`: the writer cannot write a struct-typed field of a version-gated record", f.1.name.text, st.name.text)));
        }
        // A value the writer derives (a place, a count, a length) into a field only some
        // layouts have would be lost in the others, and the file unreadable there; an
        // optional part's is written, the part refused in a layout without the field.
        if let (Some(st), Some(rules)) = (c.strukt(&r.strukt.text), plan.records.get(k)) {
            for (f, rule) in st.fields.iter().zip(rules) {
                if (f.since.is_some() || f.until.is_some())
                    && matches!(rule, Rule::Derived(w, _) if !optional_part(c, w))
                {
                    errs.push((f.name.pos, format!("field `{}` of `{}`: the writer derives its value, so it must be in every layout of the version-gated record (no `since` or `until`): in a layout without it, what it locates or counts could not be found; unless it locates or sizes an optional part (a range or table with `when`), which the writer then refuses to write in a layout without the field", f.name.text, st.name.text)));
                }
            }
        }
    }
    // A derived value needs an integer field.
    let mut owners: Vec<(Option<&Struct>, &Vec<Rule>)> = vec![(c.header(), &plan.header)];
    for (k, r) in file.ext.records.iter().enumerate() {
        if let Some(rules) = plan.records.get(k) {
            owners.push((c.strukt(&r.strukt.text), rules));
        }
    }
    for x in &plan.dirs {
        owners.push((c.strukt(&x.table.record.text), &x.entry));
    }
    for (st, rules) in owners {
        derived_need_integers(c, st, rules, &mut errs);
    }
    if errs.is_empty() {
        Ok(Some(plan))
    } else {
        Err(errs)
    }
}

/// Whether `e` names a field inside a struct-typed header field (not a bit of one): the
/// writer derives it as one of `Plan::leaves`.
fn header_leaf(c: &Checked, e: &Expr) -> bool {
    matches!(e, Expr::Ref(p) if matches!(c.resolve(p, Scope::Top), Ok(Resolved::Nested(Owner::Header, l)) if l.bit.is_none()))
}

/// Refuse a directory writer the schema does not give enough to write.
pub(crate) fn check(c: &Checked, d: &mut Diags) {
    if let Err(errs) = analyse(c) {
        // (A place another check has diagnosed already: the same mistake, said once.)
        let said: Vec<Pos> = d.items.iter().map(|x| x.pos).collect();
        for (pos, msg) in errs {
            if !said.contains(&pos) {
                d.error(pos, msg);
            }
        }
    }
}

/// Whether a directory writer's item sits at the end of the file, so it goes last, right
/// after what precedes it: a located record at `len - <its size>`, another table at `len -
/// E` (`trailer::table_end`).
fn item_at_end(c: &Checked, it: Item) -> bool {
    let file = &c.schema.file;
    match it {
        Item::Record(k) => file
            .ext
            .records
            .get(k)
            .is_some_and(|r| crate::check::trailer::record_at_end(c, r)),
        Item::OtherTable(k) => file
            .tables
            .get(k)
            .is_some_and(|t| crate::check::trailer::table_end(c, t).is_some()),
        _ => false,
    }
}
