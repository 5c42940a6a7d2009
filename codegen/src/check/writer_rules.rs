//! What the writer's lowering (`lower/writer.rs`) asks of the checked schema: what a range
//! holds, which fields an expression names (`targets`), whether it is a constant, the
//! values the steps fix, a version-gated record's gate, a top-level checksum's field, and
//! the refusal of a derived value in a field that is no integer.

use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::{BinOp, Expr};
use crate::model::{Item, Part, RangeKind, Rule, What};
use crate::schema::IntTy;
use crate::schema::top::{Step, Struct};

/// What file-level range `k` holds, for a writer.
pub(crate) fn range_kind(c: &Checked, k: usize) -> RangeKind {
    let file = &c.schema.file;
    let Some(r) = file.ranges.get(k) else {
        return RangeKind::Bytes;
    };
    if let Some(si) = file
        .streams
        .iter()
        .position(|s| s.range.text == r.name.text)
    {
        RangeKind::Stream(si)
    } else if crate::check::strtab_writer::is_built(c, &r.name.text) {
        RangeKind::Built
    } else {
        RangeKind::Bytes
    }
}

pub(crate) fn struct_for<'a>(c: &'a Checked, o: Owner, scope: Scope<'_>) -> Option<&'a Struct> {
    match o {
        Owner::Header => c.header(),
        Owner::Located(k) => c.strukt(&c.schema.file.ext.records.get(k)?.strukt.text),
        Owner::Record => match scope {
            Scope::Record(t) | Scope::RecordOnly(t) => c.strukt(&t.record.text),
            Scope::Top => None,
        },
        Owner::Element(..) => None,
    }
}

/// The field(s) an expression names: their owner and (field, part) pairs.
pub(crate) type Target = (Owner, Vec<(usize, Part)>);

/// How a writer knows a version-gated record's gate: the input field that holds it, or the
/// expression over its inputs it computes ([`gate_plan`]).
pub(crate) type GatePlan = (Option<(Owner, usize)>, Option<Expr>);

/// The field(s) an expression names, when it is one field or one composed value.
pub(crate) fn targets(c: &Checked, e: &Expr, scope: Scope<'_>) -> Option<Target> {
    let Expr::Ref(p) = e else { return None };
    match c.resolve(p, scope).ok()? {
        Resolved::Field(o, i) => Some((o, vec![(i, Part::Whole)])),
        Resolved::Composed(o, ci) => {
            let st = struct_for(c, o, scope)?;
            let comp = st.composed.get(ci)?;
            let pos = |n: &str| st.fields.iter().position(|f| f.name.text == n);
            Some((
                o,
                vec![
                    (pos(&comp.low.text)?, Part::Low),
                    (pos(&comp.high.text)?, Part::High),
                ],
            ))
        }
        _ => None,
    }
}

/// Whether an expression reads only constants, enum values and (with `len_ok`) `len`.
pub(crate) fn const_only(c: &Checked, e: &Expr, len_ok: bool) -> bool {
    // (`count(s)`, `first(t)`, `end(r)` and `t[i].f` read the file: not constants.)
    fn no_reads(e: &Expr) -> bool {
        match e {
            Expr::Num(_) | Expr::Ref(_) => true,
            Expr::Bin(_, l, r) => no_reads(l) && no_reads(r),
            Expr::Not(x) => no_reads(x),
            Expr::Call(f, args) => (f == "if" || f == "end") && args.iter().all(no_reads),
            Expr::At(..) | Expr::Key(..) => false,
        }
    }
    no_reads(e)
        && e.refs().iter().all(|p| match c.resolve(p, Scope::Top) {
            Ok(Resolved::Const(_) | Resolved::EnumValue(..)) => true,
            Ok(Resolved::Len) => len_ok,
            _ => false,
        })
}

pub(crate) fn field_kind(c: &Checked, st: &Struct, i: usize) -> Option<FieldKind> {
    c.layouts.get(&st.name.text)?.fields.get(i).map(|f| f.1)
}

/// A value either writer derives (`Rule::Derived`) goes into an integer field: each other
/// field of `st` with such a rule is an error at its name.
pub(crate) fn derived_need_integers(
    c: &Checked,
    st: Option<&Struct>,
    rules: &[Rule],
    errs: &mut Vec<(crate::yaml::Pos, String)>,
) {
    let Some(st) = st else { return };
    for (i, r) in rules.iter().enumerate() {
        if matches!(r, Rule::Derived(..))
            && field_kind(c, st, i)
                .and_then(|k| k.int_ty(&c.schema))
                .is_none()
            && let Some(f) = st.fields.get(i)
        {
            errs.push((f.name.pos, format!("field `{}` of `{}`: the writer derives its value, so it must be an integer field", f.name.text, st.name.text)));
        }
    }
}

/// Every located record's fields as inputs of the writer, before any rule derives one: both
/// writers' plans start from this.
pub(crate) fn located_inputs(c: &Checked) -> Vec<Vec<Rule>> {
    c.schema
        .file
        .ext
        .records
        .iter()
        .map(|r| vec![Rule::Input; c.strukt(&r.strukt.text).map_or(0, |s| s.fields.len())])
        .collect()
}

/// The fields the validation steps fix to a constant (`expect`, `assert: f == K`), with
/// their values: both writers set them (`What::Value`).
pub(crate) fn fixed_values(c: &Checked) -> Vec<(Target, &Expr)> {
    let mut out = Vec::new();
    for s in &c.schema.file.validate {
        let (target, value) = match s {
            Step::Expect { field, equals, .. } => (&field.expr, &equals.expr),
            Step::Assert { expr, .. } => match &expr.expr {
                Expr::Bin(BinOp::Eq, l, r) => {
                    if targets(c, l, Scope::Top).is_some() && const_only(c, r, true) {
                        (&**l, &**r)
                    } else {
                        (&**r, &**l)
                    }
                }
                _ => continue,
            },
            _ => continue,
        };
        if const_only(c, value, true)
            && let Some(t) = targets(c, target, Scope::Top)
        {
            out.push((t, value));
        }
    }
    out
}

/// Whether `o` is the header or a located record without a gate (whose fields are all
/// written, whatever the gate).
pub(crate) fn ungated(c: &Checked, o: Owner) -> bool {
    match o {
        Owner::Header => true,
        Owner::Located(j) => c
            .schema
            .file
            .ext
            .records
            .get(j)
            .is_some_and(|x| x.gate.is_none()),
        _ => false,
    }
}

/// How a writer knows version-gated record `rname`'s gate `g` before it places anything
/// (both writers lay such a record out by its gate): the one unsigned integer field it takes
/// that holds it (of the header or of an ungated located record; `is_input` says which
/// fields it takes), or else `g` itself, computed from such fields and constants. `from`
/// names those values in the diagnostic. `Err`: why it cannot.
pub(crate) fn gate_plan(
    c: &Checked,
    rname: &str,
    g: &crate::expr::ExprAt,
    is_input: &dyn Fn(Owner, usize) -> bool,
    from: &str,
) -> Result<GatePlan, (crate::yaml::Pos, String)> {
    let input = match targets(c, &g.expr, Scope::Top) {
        Some((o @ (Owner::Header | Owner::Located(_)), f)) if f.len() == 1 => {
            let i = f.first().map_or(usize::MAX, |x| x.0);
            let st = struct_for(c, o, Scope::Top);
            (ungated(c, o)
                && is_input(o, i)
                && st.is_some_and(
                    |st| matches!(field_kind(c, st, i), Some(FieldKind::Int(t)) if !t.signed()),
                ))
            .then_some((o, i))
        }
        _ => None,
    };
    match input {
        Some(x) => Ok((Some(x), None)),
        // A gate computed from the inputs (`header.version >> 16`).
        None => match computed_gate(c, &g.expr, is_input) {
            Ok(()) => Ok((None, Some(g.expr.clone()))),
            Err(why) => Err((
                g.pos,
                format!(
                    "record `{rname}`: the writer lays a version-gated record out by its gate, so it must compute `{}` from {from} before it places anything, and cannot: {why}",
                    g.text
                ),
            )),
        },
    }
}

/// Whether a version-gated record's gate `e` can be computed by the writer before it places
/// anything: integers, constants, and unsigned integer fields the spec gives (`is_input`:
/// the field's rule is `Input`) of the header or of a located record without a gate,
/// combined by `+ - * / % & | << >>` (evaluated as the views do, checked). `Err`: why not.
pub(crate) fn computed_gate(
    c: &Checked,
    e: &Expr,
    is_input: &dyn Fn(Owner, usize) -> bool,
) -> Result<(), String> {
    match e {
        Expr::Num(_) => Ok(()),
        Expr::Ref(p) => match c.resolve(p, Scope::Top) {
            Ok(Resolved::Const(_) | Resolved::EnumValue(..)) => Ok(()),
            Ok(Resolved::Field(o @ (Owner::Header | Owner::Located(_)), i)) => {
                let ungated = match o {
                    Owner::Located(j) => c
                        .schema
                        .file
                        .ext
                        .records
                        .get(j)
                        .is_some_and(|x| x.gate.is_none()),
                    _ => true,
                };
                let unsigned = struct_for(c, o, Scope::Top).is_some_and(
                    |st| matches!(field_kind(c, st, i), Some(FieldKind::Int(t)) if !t.signed()),
                );
                let name = p.join(".");
                if !ungated {
                    Err(format!("`{name}` is a field of a version-gated record"))
                } else if !unsigned {
                    Err(format!("`{name}` is not an unsigned integer field"))
                } else if !is_input(o, i) {
                    Err(format!(
                        "`{name}` is a value the writer derives (a place, count, length, size or checksum it computes, or a value a step fixes), not one the spec gives"
                    ))
                } else {
                    Ok(())
                }
            }
            Ok(Resolved::Len) => Err(
                "`len` is the file's length, which the writer knows only once everything is placed"
                    .to_string(),
            ),
            _ => Err(format!(
                "`{}` is not a field of the header or of a located record",
                p.join(".")
            )),
        },
        Expr::Bin(op, l, r) => {
            if op.is_comparison() || op.is_logical() {
                return Err(format!("`{}` is a condition, not a value", op.symbol()));
            }
            computed_gate(c, l, is_input)?;
            computed_gate(c, r, is_input)
        }
        _ => Err("it reads something other than integers, constants and fields".to_string()),
    }
}

/// The header field (index) a top-level checksum is stored in: one `u32` or `u64` field.
pub(crate) fn top_checksum_field(
    c: &Checked,
    k: &crate::schema::Checksum,
) -> Result<usize, String> {
    match targets(c, &k.stored.expr, Scope::Top) {
        Some((Owner::Header, f))
            if f.len() == 1
                && f.first()
                    .and_then(|(i, _)| c.header().and_then(|h| field_kind(c, h, *i)))
                    .is_some_and(|k| matches!(k, FieldKind::Int(IntTy::U32 | IntTy::U64))) =>
        {
            f.first().map(|x| x.0).ok_or_else(String::new)
        }
        _ => Err(format!(
            "a directory writer stores a checksum in one `u32` or `u64` header field, and `{}` is not one",
            k.stored.text
        )),
    }
}

/// Whether `w`, a value a writer derives into a located record's field, is the place, length,
/// count or record size of an optional part (a file-level range of bytes or a table, not a
/// directory's, with `when`; one the writer cannot write is refused on its own): a field
/// only some layouts of a version-gated record have may hold it, the part then given only in
/// those layouts (`WriteError::NotInLayout`).
pub(crate) fn optional_part(c: &Checked, w: &What) -> bool {
    let file = &c.schema.file;
    let range = |k: usize| {
        file.ranges.get(k).is_some_and(|r| {
            r.table.is_none() && r.when.is_some() && range_kind(c, k) == RangeKind::Bytes
        })
    };
    let table = |k: usize| {
        file.tables.get(k).is_some_and(|t| {
            crate::check::table_when::table_when(c, t).is_some()
                && !file
                    .ext
                    .directories
                    .iter()
                    .any(|d| d.table.text == t.name.text)
        })
    };
    match *w {
        What::Place(Item::Range(k)) | What::RangeLength(k) => range(k),
        What::Place(Item::OtherTable(k)) | What::TableCount(k) | What::RecordSize(k) => table(k),
        _ => false,
    }
}
