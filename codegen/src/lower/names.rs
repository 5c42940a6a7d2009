//! The names the writer's spec types give their members (`<File>Spec`, each directory's
//! `<Entry>Spec`, each other table's `<Record>Spec`), from the writer's plan: two of one
//! name are refused with both places (`check/writer_names.rs` holds the rest: the views',
//! the streams' and the generated types' names).

use crate::check::Checked;
use crate::check::writer_names::{Space, Src, record_spec};
use crate::check::writer_rules::range_kind;
use crate::diag::Diags;
use crate::lower::writer::analyse;
use crate::model::{Item, RangeKind, Rule};
use crate::schema::top::Struct;
use crate::yaml::Pos;

/// A file's (or one variant's) writer: `<File>Spec` (the header's and the
/// located records' inputs, the ranges and strings it places, the table) and the entry's
/// `<Entry>Spec` (its inputs and the payload).
pub(crate) fn check(c: &Checked, d: &mut Diags) {
    let Ok(Some(plan)) = analyse(c) else {
        return;
    };
    let file = &c.schema.file;
    // A file without a directory: the spec's fields are also its typestate builder's
    // setters (`emit/typestate.rs`), next to the builder's methods.
    let mut sp = if plan.dirs.is_empty() {
        Space::new(format!(
            "the writer's `{}Spec` (and `{}Writer`, a setter each)",
            file.name.text, file.name.text
        ))
        .fixed(
            &["new", "encoded_len", "write_into", "to_vec"],
            "the typestate builder's method",
        )
    } else {
        Space::new(format!("the writer's `{}Spec`", file.name.text))
    };
    // A header field named like a range or a string: `dir_writer.rs`.
    sp.skip = &[(Src::Field, Src::Range), (Src::Field, Src::Str)];
    let inputs = |st: &Struct, rules: &[Rule]| -> Vec<(String, Pos)> {
        st.fields
            .iter()
            .zip(rules)
            .filter(|(_, r)| matches!(r, Rule::Input))
            .map(|(f, _)| (f.name.text.clone(), f.name.pos))
            .collect()
    };
    if let Some(hs) = c.header() {
        for (n, p) in inputs(hs, &plan.header) {
            let what = format!("header field `{n}`");
            sp.add(n, p, what, Src::Field, d);
        }
    }
    for (k, r) in file.ext.records.iter().enumerate() {
        let (Some(st), Some(rules)) = (c.strukt(&r.strukt.text), plan.records.get(k)) else {
            continue;
        };
        for (n, p) in inputs(st, rules) {
            let what = format!("field `{n}` of record `{}`", r.name.text);
            sp.add(format!("{}_{n}", r.name.text), p, what, Src::Other, d);
        }
    }
    for (it, _) in &plan.items {
        match it {
            // A range's bytes are a field of its name; a stream's records one of the
            // stream's name; a string table's strings one each (below).
            Item::Range(k) => match (file.ranges.get(*k), range_kind(c, *k)) {
                (Some(r), RangeKind::Bytes) => {
                    let what = format!("range `{}`", r.name.text);
                    sp.add(r.name.text.clone(), r.name.pos, what, Src::Range, d);
                }
                (Some(_), RangeKind::Stream(si)) => {
                    if let Some(st) = file.streams.get(si) {
                        let what = format!("stream `{}`", st.name.text);
                        sp.add(st.name.text.clone(), st.name.pos, what, Src::Range, d);
                    }
                }
                (Some(r), RangeKind::Built) => {
                    for s in file.strings.iter().filter(|s| {
                        s.table.is_none() && s.range.as_ref().is_some_and(|x| x.text == r.name.text)
                    }) {
                        let what = format!("string `{}`", s.name.text);
                        sp.add(s.name.text.clone(), s.name.pos, what, Src::Str, d);
                    }
                }
                (None, _) => {}
            },
            Item::Str(k) => {
                if let Some(s) = file.strings.get(*k) {
                    let what = format!("string `{}`", s.name.text);
                    sp.add(s.name.text.clone(), s.name.pos, what, Src::Str, d);
                }
            }
            // Another table's records: a field of its name (a header field of that name is
            // `dir_writer.rs`'s to refuse), and its own `<Record>Spec`.
            Item::OtherTable(k) => {
                if let Some(t) = file.tables.get(*k) {
                    let what = format!("table `{}`", t.name.text);
                    sp.add(t.name.text.clone(), t.name.pos, what, Src::Range, d);
                    record_spec(c, t, d);
                }
            }
            Item::Record(_)
            | Item::Table(_)
            | Item::Payload(_)
            | Item::RecordRange(_)
            | Item::RecordStr(_) => {}
        }
    }
    for x in &plan.dirs {
        let t = x.table;
        sp.add(
            t.name.text.clone(),
            t.name.pos,
            format!("table `{}`", t.name.text),
            Src::Other,
            d,
        );
    }
    for x in &plan.dirs {
        let Some(entry) = c.strukt(&x.table.record.text) else {
            continue;
        };
        let mut sp = Space::new(format!("the writer's `{}Spec`", entry.name.text));
        // A field and a per-record range of one name clash in the record's view (`views`).
        sp.skip = &[(Src::Field, Src::Range)];
        for (n, p) in inputs(entry, &x.entry) {
            let what = format!("field `{n}`");
            sp.add(n, p, what, Src::Field, d);
        }
        let r = x.range;
        sp.add(
            r.name.text.clone(),
            r.name.pos,
            format!("payload range `{}`", r.name.text),
            Src::Range,
            d,
        );
        // Its other per-record ranges: a field each.
        for (_, r) in crate::lower::writer::extra_ranges(c, x) {
            sp.add(
                r.name.text.clone(),
                r.name.pos,
                format!("range `{}`", r.name.text),
                Src::Range,
                d,
            );
        }
        // The records' strings in a string table: a field each (a field of the same name is
        // reported by `strtab_writer::check`).
        for (st, _) in crate::check::strtab_writer::record_strings(c, x.table)
            .into_iter()
            .filter(|(s, _)| s.range.is_some())
        {
            sp.add(
                st.name.text.clone(),
                st.name.pos,
                format!("string `{}`", st.name.text),
                Src::Str,
                d,
            );
        }
    }
}
