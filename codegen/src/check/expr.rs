//! Name resolution and the expression checker: what a name in an expression refers to
//! ([`resolve`], the `let` bindings, the methods of [`Checked`] that resolve), and whether an
//! expression is well formed and well typed ([`check_expr`], [`check_calls`]).

use std::collections::HashMap;

use crate::check::{Checked, FieldKind, Layout, Owner, Resolved, Scope};
use crate::diag::Diags;
use crate::expr::{BinOp, Expr, ExprAt};
use crate::schema::top::{File, Schema, Step, Struct};
use crate::schema::{FieldDef, Name, Table, TypeRef};

// The index construct's expression checks (`table[expr].field`, `check/index.rs`): here,
// because they and the general expression checker below call each other.

/// Whether `e` is a `table[..].field` of a float field (compared bitwise, like a float
/// field named directly).
pub fn is_float(c: &Checked, e: &Expr, scope: Scope<'_>) -> bool {
    let Expr::At(t, _, f) = e else { return false };
    // A record within the current one's is read in its own stream's scope.
    let own = crate::check::index::walked(c, t, scope).map_or(scope, Scope::Record);
    matches!(
        crate::check::index::resolve(c, t, f, scope),
        Ok(Resolved::Field(o, i)) if matches!(crate::check::expr::field_kind_of(c, o, i, own), Some(FieldKind::Float(_)))
    )
}

/// Check one `table[index].field`: the table, the field, and an index that is a number.
/// Returns whether it is sound (so that shape complaints are not piled on top).
pub(crate) fn check(
    c: &Checked,
    (table, index, field): (&str, &Expr, &[String]),
    scope: Scope<'_>,
    what: &str,
    at: &ExprAt,
    d: &mut Diags,
) -> bool {
    let mut ok = crate::check::expr::check_calls(c, index, scope, what, at, d);
    if crate::check::index::sub_stream(c, table, scope).is_some() && !matches!(index, Expr::Key(..))
    {
        d.error(at.pos, format!("{what} `{}`: a record of `{table}` within the current record is found by its key (`{table}[field == value].{}`), not by an index: its records are found by walking the current record's part", at.text, field.join(".")));
        ok = false;
    }
    if let Expr::Key(key, _) = index
        && let Err(msg) = crate::check::index::check_key(c, table, key, scope)
    {
        d.error(at.pos, format!("{what} `{}`: {msg}", at.text));
        ok = false;
    }
    if let Err(msg) = crate::check::index::resolve(c, table, field, scope) {
        let since = d.items.len();
        d.error(at.pos, format!("{what} `{}`: {msg}", at.text));
        d.caused(since, &msg, None);
        ok = false;
    }
    for p in index.refs() {
        if c.resolve(p, scope).is_err() {
            // Reported by `check_expr`, which resolves every reference.
            return false;
        }
    }
    if ok && crate::check::expr::is_bool(c, index, scope) {
        d.error(
            at.pos,
            format!(
                "{what} `{}`: the index of `{table}[...]` must be a number, not a condition",
                at.text
            ),
        );
        ok = false;
    }
    ok
}

pub use crate::schema::top::{Lets, lets};

/// The named values defined inside a `for_each` (record-scoped): the `for_each`'s target
/// for each.
pub(crate) fn record_lets(file: &crate::schema::top::File) -> Vec<(&str, &Name)> {
    fn walk<'a>(steps: &'a [Step], inside: Option<&'a Name>, out: &mut Vec<(&'a str, &'a Name)>) {
        for s in steps {
            match s {
                Step::Let { name, .. } => {
                    if let Some(t) = inside {
                        out.push((name.text.as_str(), t));
                    }
                }
                Step::ForEach { table, steps } => walk(steps, Some(table), out),
                Step::When { step, .. } => walk(std::slice::from_ref(&**step), inside, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.validate, None, &mut out);
    out
}

impl Checked {
    /// Report that `name` names nothing of the kind wanted (`message`, at `pos`): when it
    /// names a definition that could not be read, that is the mistake (`schema::definitions`).
    pub(crate) fn not_found(
        &self,
        d: &mut Diags,
        pos: crate::yaml::Pos,
        name: &str,
        message: String,
    ) {
        let since = d.items.len();
        d.error(pos, message);
        if self.schema.file.dropped.iter().any(|n| n.text == name) {
            d.caused(since, &crate::schema::dropped_cause(name), None);
        }
    }
    /// Report that struct `name` is not defined where `pos` names it (`message` says what
    /// named it, and a struct it may be a misspelling of is named): the checks that read its
    /// fields fail for that alone (`Diags::caused`).
    pub(crate) fn no_struct(
        &self,
        d: &mut Diags,
        pos: crate::yaml::Pos,
        name: &str,
        message: String,
    ) {
        let since = d.items.len();
        let names = self.schema.structs.iter().map(|s| s.name.text.as_str());
        let guess = crate::schema::did_you_mean(name, names)
            .map_or(String::new(), |g| format!(" (did you mean `{g}`?)"));
        d.error(pos, format!("{message}{guess}"));
        let unread = format!("`{name}`");
        d.caused(
            since,
            &format!("struct `{name}` is not defined"),
            Some(&unread),
        );
    }
    /// The struct named `name`.
    pub fn strukt(&self, name: &str) -> Option<&Struct> {
        self.schema.structs.iter().find(|s| s.name.text == name)
    }
    /// The header struct.
    pub fn header(&self) -> Option<&Struct> {
        self.strukt(&self.schema.file.header.text)
    }
    /// The table (or collection) named `name`.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.schema
            .file
            .tables
            .iter()
            .find(|t| t.name.text == name)
            .or_else(|| self.collections.iter().find(|t| t.name.text == name))
    }
    /// The name an item is declared with (a located record's, a table's, a range's, a
    /// string's; a directory's table's for its table and payloads).
    pub(crate) fn item_name(&self, it: crate::model::Item) -> Option<&str> {
        use crate::model::Item;
        let file = &self.schema.file;
        match it {
            Item::Record(j) => file.ext.records.get(j).map(|r| r.name.text.as_str()),
            Item::Table(d) => file.ext.directories.get(d).map(|x| x.table.text.as_str()),
            Item::Payload(d) => file.ext.directories.get(d).map(|x| x.payload.text.as_str()),
            Item::Range(k) | Item::RecordRange(k) => {
                file.ranges.get(k).map(|r| r.name.text.as_str())
            }
            Item::Str(k) | Item::RecordStr(k) => file.strings.get(k).map(|s| s.name.text.as_str()),
            Item::OtherTable(t) => file.tables.get(t).map(|t| t.name.text.as_str()),
        }
    }
    /// The file's layouts: the file itself and each variant's.
    pub fn files(&self) -> Vec<&File> {
        let mut v = vec![&self.schema.file];
        v.extend(self.variants.iter().map(|c| &c.schema.file));
        v
    }
    /// Resolve a reference.
    pub fn resolve(&self, path: &[String], scope: Scope<'_>) -> Result<Resolved, String> {
        resolve(&self.schema, &self.layouts, &self.lets, path, scope)
    }
    /// The struct, field and kind of a field inside a struct-typed field.
    pub fn leaf(&self, l: crate::check::Leaf) -> Option<(&Struct, &FieldDef, FieldKind)> {
        let st = self.schema.structs.get(l.strukt)?;
        let f = st.fields.get(l.field)?;
        let k = self.layouts.get(&st.name.text)?.fields.get(l.field)?.1;
        Some((st, f, k))
    }
}

pub(crate) fn field_kind(
    schema: &Schema,
    layouts: &HashMap<String, Layout>,
    f: &FieldDef,
) -> Option<FieldKind> {
    if let Some(k) = crate::check::nested::kind(schema, layouts, f) {
        return k;
    }
    Some(match &f.ty {
        TypeRef::Int(t) => FieldKind::Int(*t),
        TypeRef::Bytes(n) => FieldKind::Bytes(*n),
        TypeRef::Str(n) => FieldKind::Str(*n),
        TypeRef::Array(t, n) => FieldKind::Array(*t, *n),
        TypeRef::Float(w) => FieldKind::Float(*w),
        TypeRef::NamedArray(..) => return None,
        TypeRef::Named(n) => {
            if let Some(i) = schema.enums.iter().position(|e| &e.name.text == n) {
                FieldKind::Enum(i)
            } else if let Some(i) = schema.flags.iter().position(|e| &e.name.text == n) {
                FieldKind::Flags(i)
            } else if let Some(i) = schema.bitfields.iter().position(|e| &e.name.text == n) {
                FieldKind::Bits(i)
            } else {
                return None;
            }
        }
    })
}

pub(crate) fn resolve(
    schema: &Schema,
    layouts: &HashMap<String, Layout>,
    lets: &Lets,
    path: &[String],
    scope: Scope<'_>,
) -> Result<Resolved, String> {
    let field_in = |owner: Owner, sname: &str, rest: &[String]| -> Result<Resolved, String> {
        if let Some(r) = crate::check::nested::resolve(schema, layouts, owner, sname, rest) {
            return r;
        }
        let st = schema
            .structs
            .iter()
            .find(|s| s.name.text == sname)
            .ok_or_else(|| format!("struct `{sname}` is not defined"))?;
        let Some((fname, bit)) = rest.split_first() else {
            return Err("a reference needs a field name".to_string());
        };
        let Some(fi) = st.fields.iter().position(|f| &f.name.text == fname) else {
            if let (Some(ci), []) = (st.composed.iter().position(|c| &c.name.text == fname), bit) {
                return Ok(Resolved::Composed(owner, ci));
            }
            if let Some(cause) = st.broken_read(fname) {
                return Err(cause);
            }
            let known: Vec<&str> = st
                .fields
                .iter()
                .map(|f| f.name.text.as_str())
                .chain(st.composed.iter().map(|c| c.name.text.as_str()))
                .collect();
            return Err(format!(
                "`{sname}` has no field `{fname}` ({}fields: {})",
                hint(crate::schema::did_you_mean(fname, known.iter().copied())),
                known.join(", ")
            ));
        };
        let kind = layouts
            .get(sname)
            .and_then(|l| l.fields.get(fi))
            .map(|f| f.1);
        match bit {
            [] => {
                // `Bytes(0)` stands for a field whose type is undefined (reported at the
                // field): nothing more is said about it.
                if kind.is_some_and(|k| !k.numeric() && k != FieldKind::Bytes(0)) {
                    return Err(format!("field `{fname}` holds bytes, not a number"));
                }
                Ok(Resolved::Field(owner, fi))
            }
            [b] => match kind {
                Some(FieldKind::Flags(i)) => {
                    let fl = &schema.flags[i];
                    let bi = fl
                        .bits
                        .iter()
                        .position(|x| &x.name.text == b)
                        .ok_or_else(|| format!("flags `{}` has no bit `{b}`", fl.name.text))?;
                    Ok(Resolved::FlagBit(owner, fi, bi))
                }
                Some(FieldKind::Bits(i)) => {
                    let bf = schema.bitfields.get(i).ok_or("undefined bitfields type")?;
                    let bi = bf
                        .fields
                        .iter()
                        .position(|x| &x.name.text == b)
                        .ok_or_else(|| {
                            format!("bitfields `{}` has no range `{b}`", bf.name.text)
                        })?;
                    Ok(Resolved::BitField(owner, fi, bi))
                }
                _ => Err(format!(
                    "`{fname}.{b}`: only a flags or bitfields field has named parts"
                )),
            },
            _ => Err(format!("`{}` has too many parts", path.join("."))),
        }
    };
    match path {
        [one] if one == "len" && !matches!(scope, Scope::RecordOnly(_)) => {
            return Ok(Resolved::Len);
        }
        [one] => {
            if let Some(i) = schema.constants.iter().position(|c| &c.name.text == one) {
                return Ok(Resolved::Const(i));
            }
            if let Some(i) = lets.position(one) {
                if matches!(scope, Scope::RecordOnly(_)) {
                    return Err(format!(
                        "named value `{one}` exists only while validating, not in a record's view"
                    ));
                }
                return Ok(Resolved::Let(i));
            }
        }
        _ => {}
    }
    if let ([_, value], Some(ei)) = (
        path,
        schema
            .enums
            .iter()
            .position(|e| path.first() == Some(&e.name.text)),
    ) {
        let e = &schema.enums[ei];
        return match e.values.iter().position(|v| &v.name.text == value) {
            Some(vi) => Ok(Resolved::EnumValue(ei, vi)),
            None => Err(format!(
                "enum `{}` has no value `{value}` (values: {})",
                e.name.text,
                e.values
                    .iter()
                    .map(|v| v.name.text.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        };
    }
    if let Some(r) = crate::check::recpos::resolve(schema, path, scope) {
        return r;
    }
    if let Some((first, rest)) = path.split_first() {
        if first == "header" && matches!(scope, Scope::Top | Scope::Record(_)) {
            return field_in(Owner::Header, &schema.file.header.text, rest);
        }
        if let (Some(ti), Some((k, rest))) = (
            schema
                .file
                .tables
                .iter()
                .position(|t| &t.name.text == first),
            rest.split_first(),
        ) && let (Ok(k), true) = (
            k.parse::<u64>(),
            matches!(scope, Scope::Top | Scope::Record(_)),
        ) {
            let rec = schema
                .file
                .tables
                .get(ti)
                .map_or("", |t| t.record.text.as_str());
            return field_in(Owner::Element(ti, k), rec, rest);
        }
        if let Some(ri) = schema
            .file
            .ext
            .records
            .iter()
            .position(|r| &r.name.text == first)
            && matches!(scope, Scope::Top | Scope::Record(_))
        {
            let st = schema
                .file
                .ext
                .records
                .get(ri)
                .map_or("", |r| r.strukt.text.as_str());
            return field_in(Owner::Located(ri), st, rest);
        }
    }
    // A read through a definition that could not be read (`local.method`) is that mistake.
    if let [first, _, ..] = path
        && schema.file.dropped.iter().any(|n| &n.text == first)
    {
        return Err(crate::schema::dropped_cause(first));
    }
    match scope {
        Scope::Record(t) | Scope::RecordOnly(t) => field_in(Owner::Record, &t.record.text, path),
        Scope::Top => {
            // What the first name may have been meant as: a constant or `len` alone, else
            // `header` or a record.
            let file = &schema.file;
            let names: Vec<&str> = match path {
                [_] => std::iter::once("len")
                    .chain(schema.constants.iter().map(|k| k.name.text.as_str()))
                    .collect(),
                _ => std::iter::once("header")
                    .chain(file.ext.records.iter().map(|r| r.name.text.as_str()))
                    .collect(),
            };
            let first = path.first().map_or("", String::as_str);
            Err(format!(
                "unknown field reference `{}` ({}use `len`, a constant, `header.<field>` or `<record>.<field>`)",
                path.join("."),
                hint(crate::schema::did_you_mean(first, names))
            ))
        }
    }
}

/// The start of a parenthesis after a name that does not resolve: "did you mean `it`? ",
/// or nothing.
fn hint(guess: Option<&str>) -> String {
    guess.map_or(String::new(), |g| format!("did you mean `{g}`? "))
}

/// Whether an expression is a truth value (a comparison, logic, or a flag bit).
pub fn is_bool(c: &Checked, e: &Expr, scope: Scope<'_>) -> bool {
    match e {
        Expr::Num(_) => false,
        Expr::Ref(p) => matches!(
            c.resolve(p, scope),
            Ok(Resolved::FlagBit(..))
                | Ok(Resolved::Nested(_, crate::check::Leaf { bit: Some(_), .. }))
        ),
        Expr::Bin(op, _, _) => op.is_comparison() || op.is_logical(),
        Expr::Not(_) => true,
        Expr::Call(..) | Expr::At(..) | Expr::Key(..) => false,
    }
}

/// Whether every reference in `e` resolves (so that a shape complaint is not piled on top
/// of an unknown-reference one).
pub(crate) fn resolves(c: &Checked, e: &Expr, scope: Scope<'_>) -> bool {
    e.refs().iter().all(|p| c.resolve(p, scope).is_ok())
}

pub(crate) fn check_calls(
    c: &Checked,
    e: &Expr,
    scope: Scope<'_>,
    what: &str,
    at: &ExprAt,
    d: &mut Diags,
) -> bool {
    match e {
        Expr::Num(_) | Expr::Ref(_) => true,
        Expr::At(t, i, f) => crate::check::expr::check(c, (t, i, f), scope, what, at, d),
        Expr::Not(x) | Expr::Key(_, x) => check_calls(c, x, scope, what, at, d),
        Expr::Bin(_, l, r) => {
            check_calls(c, l, scope, what, at, d) & check_calls(c, r, scope, what, at, d)
        }
        Expr::Call(f, args) => match (f.as_str(), args.as_slice()) {
            ("count", [Expr::Ref(p)])
                if p.len() == 1
                    && c.collections
                        .iter()
                        .any(|t| p.first() == Some(&t.name.text)) =>
            {
                true
            }
            ("count", _) => {
                d.error(
                    at.pos,
                    format!("{what} `{}`: count() takes one collection name", at.text),
                );
                false
            }
            (
                crate::expr::NAME
                | crate::expr::LAST
                | crate::expr::FIRST_BODY
                | crate::expr::LAST_BODY,
                _,
            ) => crate::check::positions::check_call(c, f, args, what, at, d),
            ("end", [Expr::Ref(p)])
                if p.len() == 1
                    && c.schema
                        .file
                        .ext
                        .records
                        .iter()
                        .any(|r| p.first() == Some(&r.name.text)) =>
            {
                true
            }
            ("end", _) => {
                d.error(
                    at.pos,
                    format!("{what} `{}`: end() takes one located record name", at.text),
                );
                false
            }
            (crate::expr::WORD, [a, w]) => {
                let ok =
                    check_calls(c, a, scope, what, at, d) & check_calls(c, w, scope, what, at, d);
                if ok && (is_bool(c, a, scope) || is_bool(c, w, scope)) {
                    d.error(
                        at.pos,
                        format!("{what} `{}`: word(offset, width) takes two numbers (the width in bytes: 1, 2, 4 or 8)", at.text),
                    );
                    return false;
                }
                ok
            }
            (crate::expr::WORD, _) => {
                d.error(
                    at.pos,
                    format!("{what} `{}`: word(offset, width) takes two numbers: where the word is in the file, and its width in bytes (1, 2, 4 or 8)", at.text),
                );
                false
            }
            ("if", [cond, a, b]) => {
                let ok = check_calls(c, cond, scope, what, at, d)
                    & check_calls(c, a, scope, what, at, d)
                    & check_calls(c, b, scope, what, at, d);
                if ok && (!is_bool(c, cond, scope) || is_bool(c, a, scope) || is_bool(c, b, scope))
                {
                    d.error(
                        at.pos,
                        format!("{what} `{}`: if(condition, number, number)", at.text),
                    );
                    return false;
                }
                ok
            }
            _ => {
                d.error(at.pos, format!("{what} `{}`: unknown function `{f}` with {} arguments (built in: count(collection), first(collection), end(record), if(c, a, b), word(offset, width))", at.text, args.len()));
                false
            }
        },
    }
}

pub(crate) fn check_expr(
    c: &Checked,
    e: &ExprAt,
    scope: Scope<'_>,
    want_bool: bool,
    what: &str,
    d: &mut Diags,
) {
    let before = d.items.len();
    let mut ok = check_calls(c, &e.expr, scope, what, e, d);
    for p in e.expr.refs() {
        if let Err(msg) = c.resolve(p, scope) {
            // The same name met elsewhere is the same mistake: one diagnostic for all.
            let since = d.items.len();
            d.error(e.pos, format!("{what} `{}`: {msg}", e.text));
            d.caused(since, &msg, None);
            ok = false;
        }
    }
    if ok && is_bool(c, &e.expr, scope) != want_bool {
        let want = if want_bool {
            "a condition (a comparison or a flag bit)"
        } else {
            "a number"
        };
        d.error(e.pos, format!("{what} `{}` must be {want}", e.text));
    } else if ok && let Some(msg) = mistyped(c, &e.expr, scope) {
        d.error(e.pos, format!("{what} `{}`: {msg}", e.text));
    }
    // Wrong in itself: what else fails at this expression (a writer's plan, a place the
    // checker works out) follows from this mistake.
    if d.items.len() > before {
        d.poison(e.pos, before);
    }
}

/// The first operand of the wrong kind inside `e`: `&&`, `||` and `!` take conditions,
/// comparisons and arithmetic take numbers.
pub(crate) fn mistyped(c: &Checked, e: &Expr, scope: Scope<'_>) -> Option<String> {
    match e {
        Expr::Bin(op, l, r) => {
            if !matches!(op, BinOp::Eq | BinOp::Ne) {
                for x in [l, r] {
                    if let Expr::Ref(p) = &**x
                        && (matches!(c.resolve(p, scope), Ok(Resolved::Field(o, i)) if matches!(field_kind_of(c, o, i, scope), Some(FieldKind::Float(_))))
                            || matches!(c.resolve(p, scope), Ok(Resolved::Nested(_, l)) if matches!(c.leaf(l), Some((_, _, FieldKind::Float(_))))))
                    {
                        return Some(format!(
                            "`{}` is a float, compared bitwise: only `==` and `!=` apply to it, not `{}`",
                            p.join("."),
                            op.symbol()
                        ));
                    }
                    if let Expr::At(t, _, f) = &**x
                        && crate::check::expr::is_float(c, x, scope)
                    {
                        return Some(format!(
                            "`{t}[...].{}` is a float, compared bitwise: only `==` and `!=` apply to it, not `{}`",
                            f.join("."),
                            op.symbol()
                        ));
                    }
                }
            }
            let want_bool = op.is_logical();
            for x in [l, r] {
                if is_bool(c, x, scope) != want_bool {
                    return Some(format!(
                        "`{}` takes {} on both sides",
                        op.symbol(),
                        if want_bool {
                            "conditions (comparisons or flag bits)"
                        } else {
                            "numbers"
                        }
                    ));
                }
            }
            mistyped(c, l, scope).or_else(|| mistyped(c, r, scope))
        }
        Expr::Not(x) => {
            if is_bool(c, x, scope) {
                mistyped(c, x, scope)
            } else {
                Some("`!` takes a condition (a comparison or a flag bit)".to_string())
            }
        }
        Expr::Call(_, args) => args.iter().find_map(|a| mistyped(c, a, scope)),
        Expr::At(_, i, _) => mistyped(c, i, scope),
        Expr::Key(k, v) => {
            if is_bool(c, v, scope) {
                Some(format!(
                    "`{} == ...` looks a record up by a number: the value must be a number, not a condition",
                    k.join(".")
                ))
            } else {
                mistyped(c, v, scope)
            }
        }
        Expr::Num(_) | Expr::Ref(_) => None,
    }
}

/// Whether `e` is a single field reference.
pub fn single_field(c: &Checked, e: &Expr, scope: Scope<'_>) -> Option<(Owner, usize)> {
    match e {
        Expr::Ref(p) => match c.resolve(p, scope) {
            Ok(Resolved::Field(o, i)) => Some((o, i)),
            _ => None,
        },
        _ => None,
    }
}

/// The kind of a resolved field.
pub fn field_kind_of(c: &Checked, owner: Owner, idx: usize, scope: Scope<'_>) -> Option<FieldKind> {
    let sname = match (owner, scope) {
        (Owner::Header, _) => c.schema.file.header.text.clone(),
        (Owner::Located(i), _) => c.schema.file.ext.records.get(i)?.strukt.text.clone(),
        (Owner::Element(t, _), _) => c.schema.file.tables.get(t)?.record.text.clone(),
        (Owner::Record, Scope::Record(t) | Scope::RecordOnly(t)) => t.record.text.clone(),
        (Owner::Record, Scope::Top) => return None,
    };
    c.layouts
        .get(&sname)
        .and_then(|l| l.fields.get(idx))
        .map(|f| f.1)
}
