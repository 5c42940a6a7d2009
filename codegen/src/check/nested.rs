//! Structs inside structs and fixed arrays of structs (`inner: Inner`, `pairs: Pair[4]`):
//! loading is in `schema/mod.rs` (`TypeRef::NamedArray`); here are the checks (layouts in
//! dependency order, cycles refused) and the resolution of the paths that reach inside
//! (`header.inner.x`, `header.pairs[2].a`), which the emitter and the interpreter both use
//! through [`crate::check::Resolved::Nested`].

use std::collections::HashMap;

use crate::check::{FieldKind, Layout, Leaf, Owner, Resolved};
use crate::diag::Diags;
use crate::expr::Expr;
use crate::schema::top::{Schema, Step, Struct};
use crate::schema::{FieldDef, TypeRef};

/// The largest struct, in bytes: a view's array length must be a `usize` on every target
/// the generated code builds for (32-bit included).
pub const MAX_STRUCT: u64 = u32::MAX as u64;

/// `pairs[2]` as (`pairs`, `Some(2)`); `inner` as (`inner`, `None`).
#[must_use]
pub fn split_index(seg: &str) -> (&str, Option<u64>) {
    match seg.strip_suffix(']').and_then(|s| s.split_once('[')) {
        Some((name, k)) => (name, k.parse().ok()),
        None => (seg, None),
    }
}

/// The kind of a struct-typed field, when its type names a struct whose layout is known
/// (`None`: not a struct type; `Some(None)`: a struct whose layout is not known, as on a
/// cycle, already reported).
pub(crate) fn kind(
    schema: &Schema,
    layouts: &HashMap<String, Layout>,
    f: &FieldDef,
) -> Option<Option<FieldKind>> {
    let (name, count) = match &f.ty {
        TypeRef::Named(n) => (n, None),
        TypeRef::NamedArray(n, k) => (n, Some(*k)),
        _ => return None,
    };
    let si = schema.structs.iter().position(|s| &s.name.text == name)?;
    let size = layouts.get(name)?.size;
    Some(Some(match count {
        None => FieldKind::Struct(si, size),
        Some(n) => FieldKind::Structs(si, size, n),
    }))
}

/// The order in which struct layouts are computed: every struct after the structs it
/// contains. A struct that contains itself, directly or not, is reported at the field that
/// closes the cycle and left out (its layout is unknown).
pub(crate) fn order(schema: &Schema, d: &mut Diags) -> Vec<usize> {
    fn inner<'a>(schema: &'a Schema, st: &'a Struct) -> Vec<(usize, &'a FieldDef)> {
        st.fields
            .iter()
            .filter_map(|f| match &f.ty {
                TypeRef::Named(n) | TypeRef::NamedArray(n, _) => schema
                    .structs
                    .iter()
                    .position(|s| &s.name.text == n)
                    .map(|i| (i, f)),
                _ => None,
            })
            .collect()
    }
    // 0: not visited, 1: on the current path, 2: done.
    fn visit(
        schema: &Schema,
        i: usize,
        state: &mut [u8],
        path: &mut Vec<String>,
        out: &mut Vec<usize>,
        d: &mut Diags,
    ) -> bool {
        match state.get(i) {
            Some(2) => return true,
            Some(1) | None => return false,
            _ => {}
        }
        if let Some(s) = state.get_mut(i) {
            *s = 1;
        }
        let mut ok = true;
        let Some(st) = schema.structs.get(i) else {
            return false;
        };
        for (j, f) in inner(schema, st) {
            path.push(format!(
                "`{}.{}` is `{}`",
                st.name.text, f.name.text, schema.structs[j].name.text
            ));
            if state.get(j) == Some(&1) {
                let start = path
                    .iter()
                    .position(|p| p.starts_with(&format!("`{}.", schema.structs[j].name.text)))
                    .unwrap_or(0);
                d.error(
                    f.ty_pos,
                    format!(
                        "struct `{}` contains itself ({}): a struct cannot hold a struct that holds it",
                        schema.structs[j].name.text,
                        path.get(start..).unwrap_or(&[]).join(", ")
                    ),
                );
                ok = false;
            } else if !visit(schema, j, state, path, out, d) {
                ok = false;
            }
            path.pop();
        }
        if let Some(s) = state.get_mut(i) {
            *s = 2;
        }
        if ok {
            out.push(i);
        }
        ok
    }
    let mut state = vec![0u8; schema.structs.len()];
    let mut out = Vec::new();
    for i in 0..schema.structs.len() {
        if state.get(i) == Some(&0) {
            visit(schema, i, &mut state, &mut Vec::new(), &mut out, d);
        }
    }
    out
}

/// Checks on one struct's struct-typed fields, once its layout is known: no byte order of
/// its own, no version gate, no closed enum inside (nothing could check it), a struct array
/// whose size fits.
pub(crate) fn check_struct(schema: &Schema, st: &Struct, l: &Layout, d: &mut Diags) {
    for (f, (_, kind)) in st.fields.iter().zip(&l.fields) {
        let inner = match (kind, &f.ty) {
            (FieldKind::Struct(i, _) | FieldKind::Structs(i, _, _), _) => *i,
            (_, TypeRef::NamedArray(n, _)) => {
                // An array of an enum, flags or bit-field type (an unknown name is reported
                // by the layout).
                if !schema.structs.iter().any(|s| &s.name.text == n) && field_known(schema, n) {
                    d.error(
                        f.ty_pos,
                        format!(
                            "field `{}`: an array holds integers (`u32[4]`) or structs (`Pair[4]`); `{n}` is an enum, flags or bitfields type",
                            f.name.text
                        ),
                    );
                }
                continue;
            }
            _ => continue,
        };
        let iname = schema
            .structs
            .get(inner)
            .map_or("", |s| s.name.text.as_str());
        if let Some(p) = f.order_pos {
            d.error(
                p,
                format!(
                    "field `{}` has the struct type `{iname}`, whose fields have their own byte order: set `byte_order` on struct `{iname}` (or its fields), not here",
                    f.name.text
                ),
            );
        }
        if let Some((_, p)) = f.since.or(f.until) {
            d.error(
                p,
                format!(
                    "field `{}` has the struct type `{iname}`: a struct-typed field cannot be version-gated yet",
                    f.name.text
                ),
            );
        }
        if crate::check::lookup::is_gated(st) {
            d.error(
                f.ty_pos,
                format!(
                    "field `{}` has the struct type `{iname}`: a version-gated struct cannot hold a struct yet",
                    f.name.text
                ),
            );
        }
        if let Some(ist) = schema.structs.get(inner) {
            if crate::check::lookup::is_gated(ist) {
                d.error(
                    f.ty_pos,
                    format!(
                        "field `{}` has the struct type `{iname}`, which is version-gated: a gated struct cannot be held by another yet",
                        f.name.text
                    ),
                );
            }
            for g in &ist.fields {
                if let TypeRef::Named(n) = &g.ty
                    && let Some(e) = schema.enums.iter().find(|e| &e.name.text == n)
                    && !e.open
                {
                    d.error(
                        f.ty_pos,
                        format!(
                            "field `{}` has the struct type `{iname}`, whose field `{}` has the closed enum `{n}`: an `enum_known` step cannot reach inside a struct-typed field yet, so its view could not say what an undefined value is; make the enum `open: true`",
                            f.name.text, g.name.text
                        ),
                    );
                }
            }
        }
        if matches!(kind, FieldKind::Structs(..))
            && let Some(g) = st
                .fields
                .iter()
                .find(|g| g.name.text == format!("{}_at", f.name.text))
        {
            d.error(
                g.name.pos,
                format!(
                    "field `{}` would collide with the accessor `{}_at` of the struct array `{}`; rename one",
                    g.name.text, f.name.text, f.name.text
                ),
            );
        }
        if let FieldKind::Structs(_, size, n) = kind
            && size.checked_mul(*n).is_none_or(|t| t > MAX_STRUCT)
        {
            d.error(
                f.ty_pos,
                format!(
                    "field `{}`: {n} × {size} bytes is more than a struct can hold ({MAX_STRUCT} bytes)",
                    f.name.text
                ),
            );
        }
    }
    if l.size > MAX_STRUCT && !d.is_empty() {
        return;
    }
    if l.size > MAX_STRUCT {
        d.error(
            st.name.pos,
            format!(
                "struct `{}` takes {} bytes, more than a struct can hold ({MAX_STRUCT} bytes)",
                st.name.text, l.size
            ),
        );
    }
}

fn field_known(schema: &Schema, n: &str) -> bool {
    schema.enums.iter().any(|e| e.name.text == n)
        || schema.flags.iter().any(|e| e.name.text == n)
        || schema.bitfields.iter().any(|e| e.name.text == n)
}

/// Resolve `rest` (the path after the owner) when it reaches inside a struct-typed field:
/// `None` when its first part is an ordinary field (resolved as before).
pub(crate) fn resolve(
    schema: &Schema,
    layouts: &HashMap<String, Layout>,
    owner: Owner,
    sname: &str,
    rest: &[String],
) -> Option<Result<Resolved, String>> {
    let (first, _) = rest.split_first()?;
    let (fname, _) = split_index(first);
    let st = schema.structs.iter().find(|s| s.name.text == sname)?;
    let outer = st.fields.iter().position(|f| f.name.text == fname)?;
    let kind = layouts.get(sname)?.fields.get(outer)?.1;
    if !matches!(kind, FieldKind::Struct(..) | FieldKind::Structs(..)) && fname == first {
        return None;
    }
    if matches!(owner, Owner::Element(..)) {
        return Some(Err(format!(
            "`{}`: a table element's struct-typed field cannot be read by a constant element yet; use a for_each over the table",
            rest.join(".")
        )));
    }
    Some(
        walk(schema, layouts, sname, rest).map(|(at, strukt, field, bit)| {
            Resolved::Nested(
                owner,
                Leaf {
                    outer,
                    at,
                    strukt,
                    field,
                    bit,
                },
            )
        }),
    )
}

/// Follow `rest` from struct `sname`: the leaf's offset, struct and field index, and the
/// flag bit it names, if it names one.
fn walk(
    schema: &Schema,
    layouts: &HashMap<String, Layout>,
    sname: &str,
    rest: &[String],
) -> Result<(u64, usize, usize, Option<usize>), String> {
    let mut at = 0u64;
    let mut si = schema
        .structs
        .iter()
        .position(|s| s.name.text == sname)
        .ok_or_else(|| format!("struct `{sname}` is not defined"))?;
    let mut parts = rest.iter().peekable();
    while let Some(seg) = parts.next() {
        let st = &schema.structs[si];
        let (fname, index) = split_index(seg);
        if seg.ends_with("[]") {
            return Err(format!(
                "`{fname}[...]`: an array of structs is indexed by a constant (`{fname}[0].field`); only a table is indexed by an expression"
            ));
        }
        let fi = st
            .fields
            .iter()
            .position(|f| f.name.text == fname)
            .ok_or_else(|| {
                format!(
                    "`{}` has no field `{fname}` (fields: {})",
                    st.name.text,
                    st.fields
                        .iter()
                        .map(|f| f.name.text.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
        let (off, kind) = layouts
            .get(&st.name.text)
            .and_then(|l| l.fields.get(fi))
            .copied()
            .ok_or_else(|| format!("struct `{}` has no layout", st.name.text))?;
        at = at.checked_add(off).ok_or("offset overflows")?;
        let last = parts.peek().is_none();
        match (kind, index) {
            (FieldKind::Struct(..), Some(_)) => {
                return Err(format!(
                    "`{seg}`: field `{fname}` is one struct, not an array: write `{fname}.field`"
                ));
            }
            (FieldKind::Structs(_, _, n), None) => {
                return Err(format!(
                    "`{fname}` is an array of {n} structs: name an element, as `{fname}[0].field`"
                ));
            }
            (FieldKind::Structs(_, _, n), Some(k)) if k >= n => {
                return Err(format!(
                    "`{seg}`: index {k} is past the end of `{fname}` ({n} elements, 0 to {})",
                    n - 1
                ));
            }
            (FieldKind::Struct(i, _), None) | (FieldKind::Structs(i, _, _), Some(_)) if last => {
                return Err(format!(
                    "`{seg}` is a struct, not a number: name one of its fields (`{seg}.{}`)",
                    schema
                        .structs
                        .get(i)
                        .and_then(|s| s.fields.first())
                        .map_or("field", |f| f.name.text.as_str())
                ));
            }
            (FieldKind::Struct(i, _), None) => si = i,
            (FieldKind::Structs(i, size, _), Some(k)) => {
                at = size
                    .checked_mul(k)
                    .and_then(|x| at.checked_add(x))
                    .ok_or("offset overflows")?;
                si = i;
            }
            (_, Some(_)) => {
                return Err(format!(
                    "`{seg}`: `{fname}` is not an array of structs, the only field indexed in a path (a table is indexed by its name alone: `table[i].field`)"
                ));
            }
            (k, None) if last => {
                if !k.numeric() {
                    return Err(format!("field `{fname}` holds bytes, not a number"));
                }
                return Ok((at, si, fi, None));
            }
            (FieldKind::Flags(fl), None) if parts.len() == 1 => {
                let b = parts.next().map_or("", String::as_str);
                let flags = schema.flags.get(fl).ok_or("undefined flags type")?;
                let bi = flags
                    .bits
                    .iter()
                    .position(|x| x.name.text == b)
                    .ok_or_else(|| format!("flags `{}` has no bit `{b}`", flags.name.text))?;
                return Ok((at, si, fi, Some(bi)));
            }
            (FieldKind::Flags(_) | FieldKind::Bits(_), None) => {
                return Err(format!(
                    "`{}`: the bit ranges of a bitfields field inside a struct-typed field cannot be read yet; compare its value",
                    rest.join(".")
                ));
            }
            (_, None) => {
                return Err(format!(
                    "`{}` has too many parts: `{fname}` is not a struct",
                    rest.join(".")
                ));
            }
        }
    }
    Err("a reference needs a field name".to_string())
}

/// The struct-typed fields' leaves, for the interpreter's dynamic view and `explain`: each
/// with its path below the field (`pairs[2].a`), offset within the owner and kind, in
/// layout order. Every element of every array is listed.
#[must_use]
pub fn leaves(
    schema: &Schema,
    layouts: &HashMap<String, Layout>,
    base: u64,
    kind: FieldKind,
    prefix: &str,
) -> Vec<(String, u64, usize, usize)> {
    let mut out = Vec::new();
    let push_struct = |si: usize, at: u64, prefix: String, out: &mut Vec<_>| {
        let Some(st) = schema.structs.get(si) else {
            return;
        };
        let Some(l) = layouts.get(&st.name.text) else {
            return;
        };
        for (fi, (f, (off, k))) in st.fields.iter().zip(&l.fields).enumerate() {
            let p = format!("{prefix}.{}", f.name.text);
            let a = at.saturating_add(*off);
            match k {
                FieldKind::Struct(..) | FieldKind::Structs(..) => {
                    out.extend(leaves(schema, layouts, a, *k, &p));
                }
                _ => out.push((p, a, si, fi)),
            }
        }
    };
    match kind {
        FieldKind::Struct(si, _) => push_struct(si, base, prefix.to_string(), &mut out),
        FieldKind::Structs(si, size, n) => {
            for k in 0..n {
                push_struct(
                    si,
                    base.saturating_add(size.saturating_mul(k)),
                    format!("{prefix}[{k}]"),
                    &mut out,
                );
            }
        }
        _ => {}
    }
    out
}

/// The part of a resolved path below its owner: `inner.x` of `header.inner.x` (a record's
/// own fields are named bare in its scope; the header and a located record by name first).
#[must_use]
pub fn tail(path: &[String], owner: Owner) -> &[String] {
    match owner {
        Owner::Record => path,
        _ => path.get(1..).unwrap_or(&[]),
    }
}

/// In a table record's scope, `pairs[2].a` names a field of element 2 of the record's own
/// struct array `pairs`; the expression parser, which knows no schema, reads it as a table
/// element (`table[index].field`). Before checking, such an expression whose name is not a
/// table of the file but a struct-array field of the record, with a constant index, is
/// rewritten to the path `pairs[2].a` (a table of that name keeps it). Covered: the steps
/// of a `for_each` over a table (`assert`, `expect`, `let`, `when`, `min_len`, order keys)
/// and a per-record range's `offset`, `length` and `when`.
pub(crate) fn bare_elements(schema: &mut Schema) {
    let structs = schema.structs.clone();
    fix_file(&mut schema.file, &structs);
    if let Some(v) = schema.file.ext.variants.as_mut() {
        for v in &mut v.list {
            fix_file(&mut v.file, &structs);
        }
    }
}

fn fix_file(file: &mut crate::schema::top::File, structs: &[Struct]) {
    {
        let tables: Vec<(String, String)> = file
            .tables
            .iter()
            .map(|t| (t.name.text.clone(), t.record.text.clone()))
            .collect();
        let arrays_of = |table: &str| -> Vec<String> {
            let rec = tables.iter().find(|t| t.0 == table).map(|t| t.1.clone());
            structs
                .iter()
                .find(|s| Some(&s.name.text) == rec.as_ref())
                .map(|s| {
                    s.fields
                        .iter()
                        .filter(|f| matches!(f.ty, TypeRef::NamedArray(..)))
                        .map(|f| f.name.text.clone())
                        .filter(|n| !tables.iter().any(|t| &t.0 == n))
                        .collect()
                })
                .unwrap_or_default()
        };
        for r in &mut file.ranges {
            let Some(t) = r.table.as_ref().map(|t| t.text.clone()) else {
                continue;
            };
            let arrays = arrays_of(&t);
            for e in [Some(&mut r.offset), Some(&mut r.length), r.when.as_mut()]
                .into_iter()
                .flatten()
            {
                fix(&mut e.expr, &arrays);
            }
        }
        for s in &mut file.validate {
            if let Step::ForEach { table, steps } = s {
                let arrays = arrays_of(&table.text);
                if !arrays.is_empty() {
                    steps.iter_mut().for_each(|s| fix_step(s, &arrays));
                }
            }
        }
    }
}

fn fix_step(s: &mut Step, arrays: &[String]) {
    match s {
        Step::MinLen { min, .. } => fix(&mut min.expr, arrays),
        Step::Expect { field, equals, .. } => {
            fix(&mut field.expr, arrays);
            fix(&mut equals.expr, arrays);
        }
        Step::Assert { expr, field, .. } => {
            fix(&mut expr.expr, arrays);
            fix(&mut field.expr, arrays);
        }
        Step::Let { value, .. } => fix(&mut value.expr, arrays),
        Step::Order { by: Some(by), .. } => fix(&mut by.expr, arrays),
        Step::When { when, step } => {
            fix(&mut when.expr, arrays);
            fix_step(step, arrays);
        }
        _ => {}
    }
}

fn fix(e: &mut Expr, arrays: &[String]) {
    match e {
        Expr::At(name, index, f) => {
            if arrays.contains(name) {
                // A computed index becomes `pairs[]`, refused by `walk` as such.
                let k = match &**index {
                    Expr::Num(k) => k.to_string(),
                    _ => String::new(),
                };
                let mut path = vec![format!("{name}[{k}]")];
                path.append(f);
                *e = Expr::Ref(path);
            } else {
                fix(index, arrays);
            }
        }
        Expr::Bin(_, l, r) => {
            fix(l, arrays);
            fix(r, arrays);
        }
        Expr::Not(x) | Expr::Key(_, x) => fix(x, arrays),
        Expr::Call(_, args) => args.iter_mut().for_each(|a| fix(a, arrays)),
        Expr::Num(_) | Expr::Ref(_) => {}
    }
}
