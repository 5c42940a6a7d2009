//! What the writers write into the fields of a table's records besides the spec's inputs:
//! a per-record range's offset and length, the flag bit that says a record carries them,
//! a record string's offset (`strtab_writer.rs`). Shared by the plain writer (`writer.rs`)
//! and the directory writer's other tables and ranges (`dir_writer.rs`); a leaf of the
//! phase, importing no writer module.

use crate::check::expr::single_field;
use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::Expr;
use crate::model::{Part, Rule, What};
use crate::schema::Table;

/// Whether a per-record range's `when` is one flag bit of table `t`'s record (a flags
/// field's, or one inside a struct-typed field), which the writer sets when a record
/// carries the bytes and clears when not.
pub(crate) fn record_flag_when(c: &Checked, t: &Table, w: &crate::expr::ExprAt) -> bool {
    let Expr::Ref(p) = &w.expr else { return false };
    match c.resolve(p, Scope::RecordOnly(t)) {
        Ok(Resolved::FlagBit(Owner::Record, ..)) => true,
        Ok(Resolved::Nested(Owner::Record, l)) => l.bit.is_some(),
        _ => false,
    }
}

/// The plain writer's rules for the fields of table `t`'s records.
pub(crate) fn record_rules(c: &Checked, t: &Table) -> Vec<Rule> {
    let file = &c.schema.file;
    let st = c.strukt(&t.record.text);
    let n = st.map_or(0, |s| s.fields.len());
    let mut rules = vec![Rule::Input; n];
    for (ri, r) in file.ranges.iter().enumerate() {
        if r.table.as_ref().is_none_or(|x| x.text != t.name.text) {
            continue;
        }
        let scope = Scope::RecordOnly(t);
        if let Some((_, i)) = single_field(c, &r.offset.expr, scope)
            && let Some(x) = rules.get_mut(i)
        {
            *x = Rule::Derived(What::RecordOffset(ri), Part::Whole);
        }
        if let Some((_, i)) = single_field(c, &r.length.expr, scope)
            && let Some(x) = rules.get_mut(i)
        {
            *x = Rule::Derived(What::RecordLength(ri), Part::Whole);
        }
        // An offset or length stored as a linear form of one field (`linform.rs`).
        for (e, rule) in [
            (&r.offset.expr, What::RecordOffset(ri)),
            (&r.length.expr, What::RecordLength(ri)),
        ] {
            if let Some(f) = crate::check::linform::record_form(c, t, e)
                && let Some(x) = rules.get_mut(f.field)
            {
                *x = Rule::Derived(rule, Part::Lin(f.unnamed()));
            }
        }
        if let Some(w) = &r.when
            && let Expr::Ref(p) = &w.expr
            && let Ok(Resolved::FlagBit(_, fi, _)) = c.resolve(p, scope)
            && let Some(x) = rules.get_mut(fi)
        {
            *x = Rule::Derived(What::RecordFlag(ri), Part::Whole);
        }
    }
    // A flags field with a bit that gates no per-record range stays an input (its value
    // given, the gating bits set or cleared over it), so no bit of it is lost.
    if let Some(st) = st {
        for (fi, rule) in rules.iter_mut().enumerate() {
            if !matches!(rule.what(), Some(What::RecordFlag(_))) {
                continue;
            }
            let Some(FieldKind::Flags(fl)) =
                crate::check::expr::field_kind_of(c, Owner::Record, fi, Scope::RecordOnly(t))
            else {
                continue;
            };
            let gating: Vec<usize> = file
                .ranges
                .iter()
                .filter(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
                .filter_map(|r| match &r.when.as_ref()?.expr {
                    Expr::Ref(p) => match c.resolve(p, Scope::RecordOnly(t)) {
                        Ok(Resolved::FlagBit(_, f, b)) if f == fi => Some(b),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            let all = c
                .schema
                .flags
                .get(fl)
                .is_some_and(|f| (0..f.bits.len()).all(|b| gating.contains(&b)));
            if !all && st.fields.get(fi).is_some() {
                *rule = Rule::Input;
            }
        }
    }
    for (_, i) in crate::check::strtab_writer::record_strings(c, t) {
        if let Some(r) = rules.get_mut(i) {
            *r = Rule::Derived(What::RecordStr, Part::Whole);
        }
    }
    rules
}
