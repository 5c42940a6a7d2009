//! What the writers write into the fields of a table's records besides the spec's inputs:
//! a per-record range's offset and length, the flag bit that says a record carries them,
//! a record string's offset (`strtab_writer.rs`). Shared by the plain writer (`writer.rs`)
//! and the directory writer's other tables and ranges (`dir_writer.rs`); a leaf of the
//! phase, importing no writer module.

use crate::check::expr::single_field;
use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::Expr;
use crate::schema::Table;

/// What the writer writes into a field of a table's record.
#[derive(Clone, Debug)]
pub(crate) enum RecordRule {
    /// Where the record's bytes of a per-record range (index into `file.ranges`) went.
    Offset(usize),
    /// Their length.
    Length(usize),
    /// The flag bit that says the record carries them.
    Flag(usize),
    /// The offset of the record's string (`strtab_writer.rs`).
    Str,
    /// An input: a field of the record's `<Record>Spec`.
    Input,
    /// The value of the other rule (an offset or a length), stored through a linear form of
    /// this field (solved for it, `linform.rs`).
    Solved(Box<RecordRule>, crate::check::linform::LinForm<usize>),
}

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
pub(crate) fn record_rules(c: &Checked, t: &Table) -> Vec<RecordRule> {
    let file = &c.schema.file;
    let st = c.strukt(&t.record.text);
    let n = st.map_or(0, |s| s.fields.len());
    let mut rules = vec![RecordRule::Input; n];
    for (ri, r) in file.ranges.iter().enumerate() {
        if r.table.as_ref().is_none_or(|x| x.text != t.name.text) {
            continue;
        }
        let scope = Scope::RecordOnly(t);
        if let Some((_, i)) = single_field(c, &r.offset.expr, scope)
            && let Some(x) = rules.get_mut(i)
        {
            *x = RecordRule::Offset(ri);
        }
        if let Some((_, i)) = single_field(c, &r.length.expr, scope)
            && let Some(x) = rules.get_mut(i)
        {
            *x = RecordRule::Length(ri);
        }
        // An offset or length stored as a linear form of one field (`linform.rs`).
        for (e, rule) in [
            (&r.offset.expr, RecordRule::Offset(ri)),
            (&r.length.expr, RecordRule::Length(ri)),
        ] {
            if let Some(f) = crate::check::linform::record_form(c, t, e)
                && let Some(x) = rules.get_mut(f.field)
            {
                *x = RecordRule::Solved(Box::new(rule), f);
            }
        }
        if let Some(w) = &r.when
            && let Expr::Ref(p) = &w.expr
            && let Ok(Resolved::FlagBit(_, fi, _)) = c.resolve(p, scope)
            && let Some(x) = rules.get_mut(fi)
        {
            *x = RecordRule::Flag(ri);
        }
    }
    // A flags field with a bit that gates no per-record range stays an input (its value
    // given, the gating bits set or cleared over it), so no bit of it is lost.
    if let Some(st) = st {
        for (fi, rule) in rules.iter_mut().enumerate() {
            if !matches!(rule, RecordRule::Flag(_)) {
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
                *rule = RecordRule::Input;
            }
        }
    }
    for (_, i) in crate::check::strtab_writer::record_strings(c, t) {
        if let Some(r) = rules.get_mut(i) {
            *r = RecordRule::Str;
        }
    }
    rules
}
