//! Checks of strings in byte ranges (loaded in `schema/strings.rs`) and of the
//! `string_fits`/`string_utf8` steps.

use crate::check::{Checked, Scope, StepState};
use crate::diag::Diags;
use crate::expr::ExprAt;
use crate::schema::Name;
use crate::schema::strings::{StrStep, StringDef};
use crate::schema::top::Step;

pub(crate) fn def<'c>(c: &'c Checked, n: &str) -> Option<&'c StringDef> {
    c.schema.file.strings.iter().find(|s| s.name.text == n)
}

/// The scope a string's `offset` is read in by its view accessor: the record alone for a
/// per-record string (`None`: its table is no table of the file).
pub(crate) fn view_scope<'c>(c: &'c Checked, s: &StringDef) -> Option<Scope<'c>> {
    match &s.table {
        None => Some(Scope::Top),
        Some(t) => c
            .schema
            .file
            .tables
            .iter()
            .find(|x| x.name.text == t.text)
            .map(Scope::RecordOnly),
    }
}

/// The definitions: names, tables, ranges, offsets, and one `string_fits` for each.
pub(crate) fn check_defs(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    let mut seen: Vec<&str> = Vec::new();
    for s in &file.strings {
        let n = s.name.text.as_str();
        if seen.contains(&n) {
            d.error(s.name.pos, format!("two strings named `{n}`"));
        }
        seen.push(n);
        let taken = file
            .tables
            .iter()
            .map(|t| &t.name.text)
            .chain(file.ranges.iter().map(|r| &r.name.text))
            .chain(file.checksums.iter().map(|k| &k.name.text))
            .chain(file.ext.records.iter().map(|r| &r.name.text))
            .chain(c.collections.iter().map(|t| &t.name.text))
            .any(|x| x == n || format!("{x}_str") == n || format!("{n}_str") == *x);
        if taken || matches!(n, "header" | "validate" | "validate_as" | "validate_with") {
            d.error(
                s.name.pos,
                format!("string `{n}`: the view already has a method of that name (a table, range, checksum or record); rename the string"),
            );
        }
        if let Some(t) = &s.table
            && !file.tables.iter().any(|x| x.name.text == t.text)
        {
            c.not_found(
                d,
                t.pos,
                &t.text,
                format!("string `{n}`: `{}` is not a table of the file", t.text),
            );
            continue;
        }
        if let Some(r) = &s.range {
            match file.ranges.iter().find(|x| x.name.text == r.text) {
                None => c.not_found(d, r.pos, &r.text, format!("string `{n}`: `in` names `{}`, which is not a range", r.text)),
                Some(x) if x.table.is_some() => d.error(r.pos, format!("string `{n}`: `in` names `{}`, a per-record range; a string lies in a file-level range", r.text)),
                Some(x) if x.when.is_some() => d.error(r.pos, format!("string `{n}`: `in` names `{}`, a range with `when`; a string lies in a range that is always there", r.text)),
                Some(_) => {}
            }
        }
        match view_scope(c, s) {
            Some(scope @ Scope::RecordOnly(_)) => crate::check::expr::check_expr(
                c,
                &s.offset,
                scope,
                false,
                "offset (read by the file view's accessor from the record alone: its fields and constants)",
                d,
            ),
            Some(scope) => crate::check::expr::check_expr(c, &s.offset, scope, false, "offset", d),
            None => {}
        }
        // (What a writer cannot write of a string: the lowering says, `lower/writer.rs`.)
        if !fitted_somewhere(&file.validate, n, s.table.as_ref().map(|t| t.text.as_str())) {
            d.error(
                s.name.pos,
                format!(
                    "string `{n}` has no string_fits step {}: its accessor could not be infallible",
                    match &s.table {
                        Some(t) => format!("in `for_each: {}`", t.text),
                        None => "at the top level of `validate`".to_string(),
                    }
                ),
            );
        }
    }
}

/// Whether a `string_fits` for `name` stands where it must: at the top level for a file's
/// string, in the table's `for_each` for a per-record one.
pub(crate) fn fitted_somewhere(steps: &[Step], name: &str, table: Option<&str>) -> bool {
    steps.iter().any(|s| match (s, table) {
        (Step::Str(StrStep::Fits { string, .. }), None) => string.text == name,
        (Step::ForEach { table: t, steps }, Some(want)) if t.text == want => steps
            .iter()
            .any(|x| matches!(x, Step::Str(StrStep::Fits { string, .. }) if string.text == name)),
        _ => false,
    })
}

/// The expressions a string step evaluates.
pub(crate) fn step_exprs<'c>(c: &'c Checked, s: &StrStep) -> Vec<&'c ExprAt> {
    def(c, &s.string().text)
        .map(|d| vec![&d.offset])
        .unwrap_or_default()
}

/// A string step where it stands: its string, its scope, its range checked before it, and
/// (for `string_utf8`) its `string_fits` before it.
pub(crate) fn check_step(
    c: &Checked,
    s: &StrStep,
    scope: Scope<'_>,
    st: &mut StepState,
    d: &mut Diags,
) {
    let n = s.string();
    let Some(sd) = def(c, &n.text) else {
        d.error(
            n.pos,
            format!(
                "`{}` is not a string (strings: {})",
                n.text,
                c.schema
                    .file
                    .strings
                    .iter()
                    .map(|x| x.name.text.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        return;
    };
    let here = match scope {
        Scope::Record(t) => Some(t.name.text.as_str()),
        _ => None,
    };
    let want = sd.table.as_ref().map(|t| t.text.as_str());
    if here != want {
        d.error(
            n.pos,
            format!(
                "string `{}` belongs to {}; check it {}",
                n.text,
                want.map_or("the file".to_string(), |t| format!("table `{t}`")),
                if want.is_some() {
                    "inside that table's for_each"
                } else {
                    "at file level"
                }
            ),
        );
        return;
    }
    crate::check::expr::check_expr(c, &sd.offset, scope, false, "offset", d);
    match s {
        StrStep::Fits { .. } => {
            let file_range = |r: &Name| {
                c.schema
                    .file
                    .ranges
                    .iter()
                    .any(|x| x.name.text == r.text && x.table.is_none() && x.when.is_none())
            };
            // A range that is no file-level range is reported with the string.
            if let Some(r) = &sd.range
                && file_range(r)
                && !st.ranges_fitted.contains(&r.text)
            {
                d.error(
                    n.pos,
                    format!("string_fits `{}` comes before the range_fits step that checks its range `{}`", n.text, r.text),
                );
            }
            st.strings_fitted.push(n.text.clone());
        }
        StrStep::Utf8 { .. } => {
            if !st.strings_fitted.contains(&n.text) {
                d.error(
                    n.pos,
                    format!(
                        "string_utf8 `{}` comes before the string_fits step that finds the string",
                        n.text
                    ),
                );
            }
        }
    }
}

/// The field (index) that holds a string's offset, when a writer can write the string: for
/// a file's string (in the whole file or in a range, which the writer then builds) one
/// field of the header or of a located record (`single_field` says which), which
/// the writer sets to where it placed the string; for a record's
/// string one integer field of the record (`strtab_writer.rs`).
pub(crate) fn writable(c: &Checked, s: &StringDef) -> Result<usize, &'static str> {
    if s.table.is_some() {
        // The record's offset field (`strtab_writer.rs`).
        return crate::check::strtab_writer::record_offset_field(c, s);
    }
    match crate::check::expr::single_field(c, &s.offset.expr, Scope::Top) {
        Some((crate::check::Owner::Header, i)) => Ok(i),
        // One field of a located record, version-gated or not: set in its gate's layout
        // (both writers refuse a field only some layouts have).
        Some((crate::check::Owner::Located(k), i))
            if c.schema.file.ext.records.get(k).is_some() =>
        {
            Ok(i)
        }
        _ => Err(
            "its offset is not one field of the header or of a located record that the writer could set",
        ),
    }
}

/// The names an order check over string key `by` gives its failure's operands: a `Compare`
/// carries the two strings' offsets, so each is told as where it is (`name at 0x5c <=
/// previous at 0x48`), not as a value. Both engines name them so.
pub(crate) fn order_key_names(by: &ExprAt, strict: bool) -> [String; 3] {
    [
        format!("{} at", by.text),
        if strict { "<=" } else { "<" }.to_string(),
        "previous at".to_string(),
    ]
}

/// The string an order step's key names (`unique: items, by: name`), when it is one of the
/// table's strings: a string key, compared bytewise (shorter first when one is a prefix of
/// the other). `None` for a numeric key.
pub(crate) fn order_key<'c>(
    c: &'c Checked,
    table: &str,
    by: &crate::expr::Expr,
) -> Option<&'c StringDef> {
    let crate::expr::Expr::Ref(p) = by else {
        return None;
    };
    let [n] = p.as_slice() else { return None };
    def(c, n).filter(|s| s.table.as_ref().is_some_and(|t| t.text == table))
}
