//! The checks of the writers of string tables (`check/strings.rs`): what a writer builds
//! (a range that strings lie in, each record's string) and what it cannot. Emitted by
//! `emit/strtab_writer.rs`, which says what is written.

use crate::check::expr::single_field;
use crate::check::{Checked, FieldKind, Owner, Scope};
use crate::diag::Diags;
use crate::schema::Table;
use crate::schema::strings::{StrStep, StringDef};
use crate::schema::top::Step;

/// Whether the writer builds file-level range `name`: some string of a schema with a
/// `writer` lies in it.
pub(crate) fn is_built(c: &Checked, name: &str) -> bool {
    c.schema.file.writer.is_some()
        && c.schema
            .file
            .strings
            .iter()
            .any(|s| s.range.as_ref().is_some_and(|r| r.text == name))
}

/// The record field (index) a record's string's offset is, when it is one integer field
/// of the record.
pub(crate) fn record_offset_field(c: &Checked, s: &StringDef) -> Result<usize, &'static str> {
    let t = s
        .table
        .as_ref()
        .and_then(|t| c.table(&t.text))
        .ok_or("its table is not a table of the file")?;
    match single_field(c, &s.offset.expr, Scope::RecordOnly(t)) {
        Some((Owner::Record, i))
            if c.layouts
                .get(&t.record.text)
                .and_then(|l| l.fields.get(i))
                .is_some_and(|f| matches!(f.1, FieldKind::Int(_))) =>
        {
            Ok(i)
        }
        _ => Err("its offset is not one integer field of the record the writer could set"),
    }
}

/// Whether a `string_utf8` step checks string `name` anywhere (the writer then takes `&str`).
pub(crate) fn utf8_checked(steps: &[Step], name: &str) -> bool {
    steps.iter().any(|s| match s {
        Step::Str(StrStep::Utf8 { string, .. }) => string.text == name,
        Step::ForEach { steps, .. } => utf8_checked(steps, name),
        Step::When { step, .. } => utf8_checked(std::slice::from_ref(&**step), name),
        _ => false,
    })
}

/// The record strings of table `t` the writer writes, with their offset field.
pub(crate) fn record_strings<'c>(c: &'c Checked, t: &Table) -> Vec<(&'c StringDef, usize)> {
    if c.schema.file.writer.is_none() {
        return Vec::new();
    }
    c.schema
        .file
        .strings
        .iter()
        .filter(|s| s.table.as_ref().is_some_and(|x| x.text == t.name.text))
        .filter_map(|s| record_offset_field(c, s).ok().map(|i| (s, i)))
        .collect()
}

/// A built range's or a record string's own checks (the string's own are in
/// `strings::check_defs`): a built range is placed by `writer.order` and its offset and
/// length are header fields the writer sets; a record's string does not take the name of
/// an input field of the record's spec.
pub(crate) fn check(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    let Some(w) = &file.writer else { return };
    for r in file.ranges.iter().filter(|r| r.table.is_none()) {
        if !is_built(c, &r.name.text) {
            continue;
        }
        let n = &r.name.text;
        if !w.order.iter().any(|x| &x.text == n) {
            d.error(
                r.name.pos,
                format!("range `{n}` holds strings, so the writer builds it and places it: `writer.order` must name it"),
            );
        }
        for (what, e) in [("offset", &r.offset), ("length", &r.length)] {
            if !matches!(
                single_field(c, &e.expr, Scope::Top),
                Some((Owner::Header, _))
            ) {
                d.error(
                    e.pos,
                    format!("range `{n}` holds strings, which the writer builds into it: its {what} must be one header field, for the writer to set (`{}` is not)", e.text),
                );
            }
        }
    }
    for s in &file.strings {
        let Some(t) = s.table.as_ref().and_then(|t| c.table(&t.text)) else {
            continue;
        };
        let Some(st) = c.strukt(&t.record.text) else {
            continue;
        };
        // A record string's own offset field is derived, so not in the spec.
        let offsets: Vec<usize> = record_strings(c, t).iter().map(|x| x.1).collect();
        if record_offset_field(c, s).is_ok()
            && st
                .fields
                .iter()
                .enumerate()
                .any(|(i, f)| f.name.text == s.name.text && !offsets.contains(&i))
        {
            d.error(
                s.name.pos,
                format!(
                    "string `{}`: the writer's `{}Spec` takes the string as its field `{}`, which `{}` already has; rename the string",
                    s.name.text, t.record.text, s.name.text, t.record.text
                ),
            );
        }
    }
}
