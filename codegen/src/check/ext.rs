//! Checks of the directory-era constructs (loaded in `schema/ext.rs`): bit-field words,
//! composed values, located records, section directories, slots and their steps.

use crate::check::expr::{check_expr, single_field};
use crate::check::lookup::is_gated;
use crate::check::{Checked, FieldKind, Layout, Owner, Scope, StepState};
use crate::diag::Diags;
use crate::expr::{Expr, ExprAt};
use crate::schema::ext::{
    Bitfield, DirChecksum, DirChecksumKind, Directory, ExtStep, SectionLayout, range_mask,
};
use crate::schema::top::{File, Schema, Struct};
use crate::schema::{IntTy, Name, Table};
use crate::yaml::Pos;

/// Ranges inside the word, no overlap, unique names.
pub fn check_bitfield(b: &Bitfield, d: &mut Diags) {
    let bits = b.repr.bytes().saturating_mul(8);
    let mut used = 0u64;
    let mut names: Vec<&str> = Vec::new();
    for f in &b.fields {
        if names.contains(&f.name.text.as_str()) {
            d.error(
                f.name.pos,
                format!(
                    "duplicate range `{}` in bitfields `{}`",
                    f.name.text, b.name.text
                ),
            );
        }
        names.push(&f.name.text);
        if f.hi >= bits {
            d.error(
                f.pos,
                format!(
                    "bits {}..{} of `{}` do not fit the repr {}",
                    f.lo,
                    f.hi,
                    f.name.text,
                    b.repr.rust()
                ),
            );
            continue;
        }
        let mask = range_mask(f.lo, f.hi);
        if used & mask != 0 {
            d.error(
                f.pos,
                format!(
                    "bits {}..{} of `{}` overlap another range",
                    f.lo, f.hi, f.name.text
                ),
            );
        }
        used |= mask;
    }
}

/// Composed values name two `u32` fields; `since` fields only in a struct that is not at a
/// fixed offset of a table.
pub fn check_struct(schema: &Schema, st: &Struct, l: &Layout, d: &mut Diags) {
    let _ = schema;
    for c in &st.composed {
        for part in [&c.low, &c.high] {
            match st.fields.iter().position(|f| f.name.text == part.text) {
                None => d.error(
                    part.pos,
                    format!(
                        "composed `{}` names `{}`, which is not a field of `{}`",
                        c.name.text, part.text, st.name.text
                    ),
                ),
                Some(i) => {
                    if !matches!(
                        l.fields.get(i).map(|f| f.1),
                        Some(FieldKind::Int(IntTy::U32))
                    ) {
                        d.error(
                            part.pos,
                            format!(
                                "composed `{}`: `{}` must be a u32 field",
                                c.name.text, part.text
                            ),
                        );
                    }
                }
            }
        }
    }
    let mut gated = false;
    for f in &st.fields {
        if let (Some((s, _)), Some((u, pos))) = (f.since, f.until)
            && u <= s
        {
            d.error(pos, format!("field `{}`: `until` {u:#x} is not above `since` {s:#x}, so the field is never present", f.name.text));
        }
        match (f.is_gated(), f.offset) {
            (true, Some((_, pos))) => d.error(pos, format!("field `{}` has `since` or `until`, so its offset depends on the gate and cannot be stated", f.name.text)),
            (true, None) => gated = true,
            (false, Some((_, pos))) if gated => d.error(pos, format!("field `{}` follows a `since` or `until` field, so its offset depends on the gate and cannot be stated", f.name.text)),
            _ => {}
        }
    }
    if gated {
        if let Some((_, pos)) = st.size {
            d.error(pos, format!("struct `{}` has `since` or `until` fields, so its size depends on the gate and cannot be stated", st.name.text));
        }
        if !st.composed.is_empty() {
            d.error(
                st.name.pos,
                format!(
                    "struct `{}` has `since` or `until` fields and composed values: not supported together",
                    st.name.text
                ),
            );
        }
    }
}

/// The file's collections as tables (for `for_each` scopes and resolution).
pub fn collections(file: &File) -> Vec<Table> {
    let dummy = |pos| ExprAt {
        expr: Expr::Num(0),
        text: "0".to_string(),
        pos,
    };
    file.ext
        .directories
        .iter()
        .flat_map(|dir| dir.layouts.iter())
        .map(|l| Table {
            name: l.collection.clone(),
            doc: l.doc.clone(),
            record: l.record.clone(),
            at: dummy(l.collection.pos),
            count: dummy(l.collection.pos),
            stride: dummy(l.collection.pos),
            type_name: None,
        })
        .collect()
}

/// The directory a collection belongs to, and its layout.
pub fn collection_of<'a>(file: &'a File, name: &str) -> Option<(&'a Directory, &'a SectionLayout)> {
    file.ext.directories.iter().find_map(|dir| {
        dir.layouts
            .iter()
            .find(|l| l.collection.text == name)
            .map(|l| (dir, l))
    })
}

/// The field index of `name` in struct `sname` and its kind.
pub fn field_of(c: &Checked, sname: &str, name: &str) -> Option<(usize, u64, FieldKind)> {
    let st = c.strukt(sname)?;
    let i = st.fields.iter().position(|f| f.name.text == name)?;
    let (off, kind) = *c.layouts.get(sname)?.fields.get(i)?;
    Some((i, off, kind))
}

/// The directory's type field: its kind, the struct it is in, and its integer type.
pub fn type_field<'a>(c: &'a Checked, dir: &Directory) -> Option<(&'a Table, FieldKind, IntTy)> {
    let t = c
        .schema
        .file
        .tables
        .iter()
        .find(|t| t.name.text == dir.table.text)?;
    let (_, _, kind) = field_of(c, &t.record.text, &dir.type_field.text)?;
    let ty = match kind {
        FieldKind::Int(t) => t,
        FieldKind::Enum(e) => c.schema.enums.get(e)?.repr,
        _ => return None,
    };
    Some((t, kind, ty))
}

/// An unsigned number written as decimal or `0x` hex (with `_` separators).
pub(crate) fn number(text: &str) -> Option<u64> {
    let s = text.trim().replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None if s.starts_with(|ch: char| ch.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}

/// The number a section type is named by in a directory (`layouts` keys, a slot region):
/// a value of the type field's enum by name, else a constant, else a number (`0x70000003`).
pub fn type_value(c: &Checked, dir: &Directory, value: &str) -> Option<u64> {
    let (_, kind, _) = type_field(c, dir)?;
    if let FieldKind::Enum(e) = kind
        && let Some(v) = c
            .schema
            .enums
            .get(e)
            .and_then(|en| en.values.iter().find(|v| v.name.text == value))
    {
        return Some(v.value);
    }
    if let Some(k) = c.schema.constants.iter().find(|k| k.name.text == value) {
        return Some(k.value);
    }
    number(value)
}

/// The section types a directory keeps a count (and first index) for, ascending: the
/// values of its type field's enum, its layouts' and its slot regions' types. The
/// bookkeeping is one slot per type the schema names, found by matching (or, when they
/// are exactly `0..n`, by the value itself), never one per possible value.
pub fn type_slots(c: &Checked, dir: &Directory) -> Vec<u64> {
    let mut v: Vec<u64> = Vec::new();
    if let Some((_, FieldKind::Enum(e), _)) = type_field(c, dir)
        && let Some(en) = c.schema.enums.get(e)
    {
        v.extend(en.values.iter().map(|x| x.value));
    }
    v.extend(
        dir.layouts
            .iter()
            .filter_map(|l| type_value(c, dir, &l.value.text)),
    );
    v.extend(
        c.schema
            .file
            .ext
            .slots
            .iter()
            .filter(|s| s.directory.text == dir.name.text)
            .filter_map(|s| type_value(c, dir, &s.region.text)),
    );
    v.sort_unstable();
    v.dedup();
    v
}

/// Whether a directory's slot types are exactly `0..n`, so a type's slot is its value.
pub fn slots_dense(slots: &[u64]) -> bool {
    slots
        .iter()
        .enumerate()
        .all(|(i, v)| u64::try_from(i).is_ok_and(|i| i == *v))
}

pub(crate) fn int_field(c: &Checked, sname: &str, f: &Name, what: &str, d: &mut Diags) {
    match field_of(c, sname, &f.text) {
        Some((_, _, k)) if k.int_ty(&c.schema).is_some() && !matches!(k, FieldKind::Bits(_)) => {}
        Some(_) => d.error(
            f.pos,
            format!("{what} `{}` must be an integer field of `{sname}`", f.text),
        ),
        None => d.error(
            f.pos,
            format!("{what} `{}` is not a field of `{sname}`", f.text),
        ),
    }
}

/// A located record with `table: T`, one per record of the table or stream T: its `at` (and
/// `when`) over T's record fields, constants and the records one per record of T declared
/// before it; no `gate` or `search` (no format needs them per record yet). The writer
/// refuses it (`lower/writer.rs`).
fn per_record(c: &Checked, ri: usize, r: &crate::schema::ext::Record, tn: &Name, d: &mut Diags) {
    match c.table(&tn.text) {
        None => c.not_found(
            d,
            tn.pos,
            &tn.text,
            format!(
                "record `{}`: `table: {}` is not a table or stream of the file",
                r.name.text, tn.text
            ),
        ),
        Some(t) => {
            per_record_expr(c, ri, r, t, &r.at, false, "at", d);
            if let Some(w) = &r.when {
                per_record_expr(c, ri, r, t, w, true, "when", d);
            }
        }
    }
    let why = |what: &str| {
        format!(
            "record `{}` is one per record of `{}`, and {what}",
            r.name.text, tn.text
        )
    };
    if let Some(g) = &r.gate {
        d.error(
            g.pos,
            why("cannot have a `gate` (its layout would change from record to record)"),
        );
    }
    if let Some(s) = &r.search {
        d.error(
            s.pos,
            why("cannot be searched for (give its place with `at`)"),
        );
    }
}

/// What a record per record's `at` and `when` may read: the fields of its collection's
/// record, constants, and the records one per record of that collection declared before it
/// (ZIP's data descriptor after the data its local header locates). The view's accessor
/// finds the record from the record it is given, placing those before it, so nothing else
/// (`header.`, `len`, a file-level record, a position) is there to read.
#[allow(clippy::too_many_arguments)]
fn per_record_expr(
    c: &Checked,
    me: usize,
    r: &crate::schema::ext::Record,
    t: &Table,
    e: &ExprAt,
    cond: bool,
    what: &str,
    d: &mut Diags,
) {
    let mut scratch = Diags::new(d.file.clone());
    check_expr(c, e, Scope::Record(t), cond, what, &mut scratch);
    if !scratch.is_empty() {
        check_expr(c, e, Scope::Record(t), cond, what, d);
        return;
    }
    let records = &c.schema.file.ext.records;
    // Record `j` is one per record of the same collection, declared before this one.
    let earlier = |j: usize| {
        j < me
            && records
                .get(j)
                .and_then(|x| x.table.as_ref())
                .is_some_and(|x| x.text == t.name.text)
    };
    let mut bad: Option<String> = None;
    for p in e.expr.refs() {
        let ok = match c.resolve(p, Scope::Record(t)) {
            Ok(crate::check::Resolved::Const(_) | crate::check::Resolved::EnumValue(..)) => true,
            Ok(x) => match x.owner() {
                Some(Owner::Record) => true,
                Some(Owner::Located(j)) => earlier(j),
                _ => false,
            },
            Err(_) => false,
        };
        if !ok && bad.is_none() {
            bad = Some(format!("`{}`", p.join(".")));
        }
    }
    for (f, n) in e.expr.named_calls() {
        let ended = records.iter().position(|x| x.name.text == n);
        if !(f == "end" && ended.is_some_and(earlier)) && bad.is_none() {
            bad = Some(format!("`{f}({n})`"));
        }
    }
    if bad.is_none() && has_index(&e.expr) {
        bad = Some("a table's record at a computed index".to_string());
    }
    if let Some(b) = bad {
        // Wrong in itself: what else fails at this expression (the order check's "reads
        // record ... before" for a record it may not read) follows from this mistake.
        let before = d.items.len();
        d.error(
            e.pos,
            format!(
                "record `{}`: `{what}: {}` reads {b}; it may read only the fields of `{}`'s record, constants and the records one per record of `{}` declared before it (its view finds it from the record it is given)",
                r.name.text, e.text, t.name.text, t.name.text
            ),
        );
        d.poison(e.pos, before);
    }
}

/// The records one per record of a collection that record `ri` (one per record of it)
/// reads in its `at` and `when`, directly or through another: the ones its view's accessor
/// places before it, ascending (each reads only records declared before it,
/// `per_record_expr`).
pub(crate) fn per_record_reads(c: &Checked, ri: usize) -> Vec<usize> {
    let records = &c.schema.file.ext.records;
    let Some(t) = records
        .get(ri)
        .and_then(|r| r.table.as_ref())
        .and_then(|tn| c.table(&tn.text))
    else {
        return Vec::new();
    };
    let mut need = vec![false; records.len()];
    if let Some(x) = need.get_mut(ri) {
        *x = true;
    }
    for j in (0..=ri).rev() {
        if !need.get(j).copied().unwrap_or(false) {
            continue;
        }
        let Some(r) = records.get(j) else { continue };
        for e in std::iter::once(&r.at).chain(r.when.iter()) {
            for p in e.expr.refs() {
                if let Ok(Some(Owner::Located(k))) =
                    c.resolve(p, Scope::Record(t)).map(|x| x.owner())
                    && k < j
                    && let Some(x) = need.get_mut(k)
                {
                    *x = true;
                }
            }
            for (f, n) in e.expr.named_calls() {
                if f == "end"
                    && let Some(k) = records.iter().position(|x| x.name.text == n)
                    && k < j
                    && let Some(x) = need.get_mut(k)
                {
                    *x = true;
                }
            }
        }
    }
    (0..ri)
        .filter(|&j| need.get(j).copied().unwrap_or(false))
        .collect()
}

/// Whether an expression reads a table's record at a computed index (`sections[i].offset`).
fn has_index(e: &Expr) -> bool {
    match e {
        Expr::Num(_) | Expr::Ref(_) => false,
        Expr::At(..) => true,
        Expr::Not(x) | Expr::Key(_, x) => has_index(x),
        Expr::Bin(_, l, r) => has_index(l) || has_index(r),
        Expr::Call(_, args) => args.iter().any(has_index),
    }
}

/// A located record present only `when` a condition holds: the condition is over what is
/// read before its `record_fits` (the order check reads it with `at`); a searched or a
/// version-gated one cannot also be optional. One per record of a collection may be (ZIP's
/// data descriptor, by a flag bit of each entry): its condition is checked as its `at`.
fn check_when(c: &Checked, r: &crate::schema::ext::Record, w: &ExprAt, d: &mut Diags) {
    // One per record of a collection: over that record's scope (`per_record`).
    if r.table.is_none() {
        check_expr(c, w, Scope::Top, true, "when", d);
    }
    for (what, has) in [
        ("searched for (`search`)", r.search.is_some()),
        ("version-gated (`gate`)", r.gate.is_some()),
    ] {
        if has {
            d.error(
                w.pos,
                format!(
                    "record `{}` is {what} and cannot also be present only `when` a condition holds",
                    r.name.text
                ),
            );
        }
    }
}

/// A record present only `when` a condition holds is read by validation steps (a read of it
/// has no value when it is absent: the check fails) and by the view's `Option` accessor;
/// the definitions the views compute from located records (tables, ranges, checksums,
/// strings, streams, records found again by the view) cannot read it.
fn optional_reads(c: &Checked, d: &mut Diags) {
    let optional: Vec<&str> = c
        .schema
        .file
        .ext
        .records
        .iter()
        .filter(|r| r.when.is_some())
        .map(|r| r.name.text.as_str())
        .collect();
    if optional.is_empty() {
        return;
    }
    // A record per record's `at` may read an optional one of its collection declared before
    // it (`per_record_expr`): its accessor places that one first, and has no value without it.
    let per_record_at = |e: &ExprAt| {
        c.schema
            .file
            .ext
            .records
            .iter()
            .any(|r| r.table.is_some() && std::ptr::eq(&r.at, e))
    };
    for (e, what) in crate::check::positions::definitions(c) {
        if per_record_at(e) {
            continue;
        }
        let mut reads: Vec<String> = e
            .expr
            .refs()
            .into_iter()
            .filter(|p| p.len() >= 2 && optional.contains(&p[0].as_str()))
            .map(|p| p[0].clone())
            .collect();
        // `end(x)` names the record, not a value: not among the references.
        reads.extend(
            e.expr
                .named_calls()
                .into_iter()
                .filter(|(f, n)| *f == "end" && optional.contains(n))
                .map(|(_, n)| n.to_string()),
        );
        if let Some(r) = reads.first() {
            d.error(
                e.pos,
                format!(
                    "{what}: `{}` reads record `{r}`, which is present only `when` its condition holds; read it in validation steps (the views compute {what} without it)",
                    e.text
                ),
            );
        }
    }
}

/// The farthest a search may look back: 16 MiB, so that a search's work (one condition per
/// place) stays bounded by what a schema states, whatever the file holds.
pub const MAX_SEARCH_BACK: u64 = 1 << 24;

/// The names of a search miss's detail (`Compare { lhs: at - back, rhs: at }`), read as
/// "no `signature == END_SIGNATURE` from 0x.. to 0x..": the places searched.
pub(crate) fn search_names(s: &crate::schema::ext::Search) -> [String; 3] {
    [
        format!("no `{}` from", s.cond.text),
        "to".to_string(),
        String::new(),
    ]
}

/// A located record's `search`: a condition over the record's own fields, a constant
/// distance, and a record of one size (no `gate`).
fn check_search(
    c: &Checked,
    r: &crate::schema::ext::Record,
    s: &crate::schema::ext::Search,
    d: &mut Diags,
) {
    let t = crate::check::lookup::record_table(r);
    check_expr(c, &s.cond, Scope::RecordOnly(&t), true, "where", d);
    match crate::check::table_writer::const_u64(c, &s.back.expr) {
        None => d.error(
            s.back.pos,
            format!(
                "record `{}`: `back: {}` must be a number or constant (the search's bound)",
                r.name.text, s.back.text
            ),
        ),
        Some(b) if b > MAX_SEARCH_BACK => d.error(
            s.back.pos,
            format!(
                "record `{}`: `back: {}` is {b}, more than {MAX_SEARCH_BACK} bytes (a search tries every place in that distance)",
                r.name.text, s.back.text
            ),
        ),
        Some(_) => {}
    }
    if let Some(g) = &r.gate {
        d.error(
            g.pos,
            format!(
                "record `{}`: a version-gated record cannot be searched for (its size depends on the gate, read from the record the search has not found yet)",
                r.name.text
            ),
        );
    }
}

/// Check the records, directories and slots of one file layout.
pub fn check_file(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    for (ri, r) in file.ext.records.iter().enumerate() {
        match c.strukt(&r.strukt.text) {
            None => c.no_struct(
                d,
                r.strukt.pos,
                &r.strukt.text,
                format!(
                    "struct `{}` of record `{}` is not defined",
                    r.strukt.text, r.name.text
                ),
            ),
            Some(st) => match (is_gated(st), &r.gate) {
                (true, None) => d.error(
                    r.name.pos,
                    format!(
                        "record `{}`: struct `{}` has `since` or `until` fields, so the record needs a `gate`",
                        r.name.text, st.name.text
                    ),
                ),
                (false, Some(g)) => d.error(
                    g.pos,
                    format!(
                        "record `{}`: struct `{}` has no `since` or `until` field to gate",
                        r.name.text, st.name.text
                    ),
                ),
                (true, Some(g)) => check_expr(c, g, Scope::Top, false, "gate", d),
                (false, None) => {}
            },
        }
        match &r.table {
            None => check_expr(c, &r.at, Scope::Top, false, "at", d),
            Some(tn) => per_record(c, ri, r, tn, d),
        }
        if let Some(s) = &r.search {
            check_search(c, r, s, d);
        }
        if let Some(w) = &r.when {
            check_when(c, r, w, d);
        }
    }
    optional_reads(c, d);
    for st in &c.schema.structs {
        if !is_gated(st) {
            continue;
        }
        let misuse = file.header.text == st.name.text
            || file.tables.iter().any(|t| t.record.text == st.name.text)
            || c.collections.iter().any(|t| t.record.text == st.name.text);
        if misuse {
            d.error(st.name.pos, format!("struct `{}` has `since` or `until` fields: it can only be a located record (with a `gate`)", st.name.text));
        }
    }
    for dir in &file.ext.directories {
        let Some(t) = file.tables.iter().find(|t| t.name.text == dir.table.text) else {
            d.error(
                dir.table.pos,
                format!(
                    "directory `{}` names table `{}`, which is not defined",
                    dir.name.text, dir.table.text
                ),
            );
            continue;
        };
        let rec = t.record.text.as_str();
        match type_field(c, dir) {
            Some((_, kind, ty)) if !ty.signed() => {
                let en = match kind {
                    FieldKind::Enum(e) => c.schema.enums.get(e),
                    _ => None,
                };
                let max = if ty.bytes() >= 8 {
                    u64::MAX
                } else {
                    (1u64 << ty.bytes().saturating_mul(8)).wrapping_sub(1)
                };
                let mut seen: Vec<(u64, &str)> = Vec::new();
                for l in &dir.layouts {
                    let Some(v) = type_value(c, dir, &l.value.text) else {
                        d.error(
                            l.value.pos,
                            match en {
                                Some(en) => format!(
                                    "layout `{}` is not a value of enum `{}`, a constant or a number",
                                    l.value.text, en.name.text
                                ),
                                None => format!(
                                    "layout `{}` is not a constant or a number (type `{}` is a plain {})",
                                    l.value.text,
                                    dir.type_field.text,
                                    ty.rust()
                                ),
                            },
                        );
                        continue;
                    };
                    // YAML reads a number key as a number: show it in hex.
                    let shown = if number(&l.value.text).is_some() {
                        format!("{v:#x}")
                    } else {
                        format!("`{}` ({v:#x})", l.value.text)
                    };
                    if v > max {
                        d.error(
                            l.value.pos,
                            format!(
                                "layout {shown} does not fit type `{}` ({})",
                                dir.type_field.text,
                                ty.rust()
                            ),
                        );
                    }
                    if let Some((_, other)) = seen.iter().find(|(x, _)| *x == v) {
                        d.error(
                            l.value.pos,
                            format!(
                                "layout {shown} is the section type of layout `{other}` too: a type has one layout"
                            ),
                        );
                    }
                    seen.push((v, &l.value.text));
                }
            }
            _ => d.error(
                dir.type_field.pos,
                format!(
                    "type `{}` must be a field of `{rec}` with an unsigned integer or enum type",
                    dir.type_field.text
                ),
            ),
        }
        int_field(c, rec, &dir.entry_size, "entry_size", d);
        if !file.ranges.iter().any(|r| {
            r.name.text == dir.payload.text
                && r.table.as_ref().is_some_and(|x| x.text == t.name.text)
        }) {
            d.error(
                dir.payload.pos,
                format!(
                    "payload `{}` must be a per-record range of table `{}`",
                    dir.payload.text, t.name.text
                ),
            );
        }
        for l in &dir.layouts {
            match c.layouts.get(&l.record.text) {
                None => c.no_struct(
                    d,
                    l.record.pos,
                    &l.record.text,
                    format!("record struct `{}` is not defined", l.record.text),
                ),
                Some(lay) if lay.size == 0 => d.error(
                    l.record.pos,
                    format!("record struct `{}` is empty", l.record.text),
                ),
                Some(_) => {}
            }
        }
        for k in &dir.checksums {
            match &k.kind {
                DirChecksumKind::Records {
                    records,
                    target,
                    stored,
                } => match dir
                    .layouts
                    .iter()
                    .find(|l| l.collection.text == records.text)
                {
                    None => d.error(
                        records.pos,
                        format!(
                            "records `{}` is not a collection of directory `{}`",
                            records.text, dir.name.text
                        ),
                    ),
                    Some(l) => {
                        int_field(c, &l.record.text, target, "target", d);
                        int_field(c, &l.record.text, stored, "stored", d);
                    }
                },
                DirChecksumKind::Payloads { zero, stored } => {
                    for (col, f) in zero {
                        match dir.layouts.iter().find(|l| l.collection.text == col.text) {
                            None => d.error(
                                col.pos,
                                format!(
                                    "`{}` is not a collection of directory `{}`",
                                    col.text, dir.name.text
                                ),
                            ),
                            Some(l) => int_field(c, &l.record.text, f, "zero field", d),
                        }
                    }
                    check_expr(c, stored, Scope::Top, false, "stored", d);
                    if !matches!(
                        single_field(c, &stored.expr, Scope::Top),
                        Some((crate::check::Owner::Header, _))
                    ) {
                        d.error(
                            stored.pos,
                            format!("stored `{}` must name one header field", stored.text),
                        );
                    }
                }
            }
        }
    }
    let names = file
        .ext
        .directories
        .iter()
        .flat_map(|x| x.checksums.iter().map(|k| &k.name))
        .chain(file.checksums.iter().map(|k| &k.name));
    let mut seen: Vec<&str> = Vec::new();
    for n in names {
        if seen.contains(&n.text.as_str()) {
            d.error(n.pos, format!("duplicate checksum name `{}`", n.text));
        }
        seen.push(&n.text);
    }
    for s in &file.ext.slots {
        let Some(dir) = file
            .ext
            .directories
            .iter()
            .find(|x| x.name.text == s.directory.text)
        else {
            d.error(
                s.directory.pos,
                format!(
                    "slots `{}` names directory `{}`, which is not defined",
                    s.name.text, s.directory.text
                ),
            );
            continue;
        };
        if type_value(c, dir, &s.region.text).is_none() {
            d.error(
                s.region.pos,
                format!(
                    "region `{}` is not a section type of directory `{}`",
                    s.region.text, dir.name.text
                ),
            );
        }
        match dir
            .layouts
            .iter()
            .find(|l| l.collection.text == s.entries.text)
        {
            None => d.error(
                s.entries.pos,
                format!(
                    "entries `{}` is not a collection of directory `{}`",
                    s.entries.text, dir.name.text
                ),
            ),
            Some(l) => {
                int_field(c, &l.record.text, &s.offset, "offset", d);
                int_field(c, &l.record.text, &s.size, "size", d);
            }
        }
        if !s.align.is_power_of_two() {
            d.error(
                s.align_pos,
                format!("slot align {} is not a power of two", s.align),
            );
        }
    }
}

/// The directory checksum named `name`, with its directory.
pub fn dir_checksum<'a>(file: &'a File, name: &str) -> Option<(&'a Directory, &'a DirChecksum)> {
    file.ext.directories.iter().find_map(|dir| {
        dir.checksums
            .iter()
            .find(|k| k.name.text == name)
            .map(|k| (dir, k))
    })
}

pub(crate) fn need_top(scope: Scope<'_>, what: &Name, d: &mut Diags) {
    if !matches!(scope, Scope::Top) {
        d.error(
            what.pos,
            format!(
                "`{}`: this step runs at file level, not inside a for_each",
                what.text
            ),
        );
    }
}

pub(crate) fn need_collection(st: &StepState, name: &str, pos: Pos, d: &mut Diags) {
    if !st.tables_fitted.iter().any(|t| t == name) {
        d.error(pos, format!("collection `{name}` is used before its directory's entry_size step makes it readable"));
    }
}

/// Check one step of this module.
pub fn check_step(c: &Checked, x: &ExtStep, scope: Scope<'_>, st: &mut StepState, d: &mut Diags) {
    let file = &c.schema.file;
    match x {
        ExtStep::RecordFits { record, within, .. } => {
            let per = file
                .ext
                .records
                .iter()
                .find(|r| r.name.text == record.text)
                .and_then(|r| r.table.as_ref());
            match (per, scope) {
                (None, _) => need_top(scope, record, d),
                (Some(t), Scope::Record(s)) if s.name.text == t.text => {}
                // A collection that does not exist is reported at the record, once.
                (Some(t), _) if c.table(&t.text).is_none() => {}
                (Some(t), _) => d.error(
                    record.pos,
                    format!(
                        "`{}` is one record per record of `{}`: its record_fits step belongs inside `for_each: {}`",
                        record.text, t.text, t.text
                    ),
                ),
            }
            check_expr(c, within, scope, false, "within", d);
            if !file.ext.records.iter().any(|r| r.name.text == record.text) {
                c.not_found(
                    d,
                    record.pos,
                    &record.text,
                    format!("record_fits names `{}`, which is not a record", record.text),
                );
            }
            st.records_bound.push(record.text.clone());
        }
        ExtStep::EntrySize { directory, .. } => {
            let Some(dir) = file
                .ext
                .directories
                .iter()
                .find(|x| x.name.text == directory.text)
            else {
                c.not_found(
                    d,
                    directory.pos,
                    &directory.text,
                    format!(
                        "entry_size names `{}`, which is not a directory",
                        directory.text
                    ),
                );
                return;
            };
            if !matches!(scope, Scope::Record(t) if t.name.text == dir.table.text) {
                d.error(
                    directory.pos,
                    format!(
                        "entry_size `{}` belongs inside `for_each: {}`",
                        directory.text, dir.table.text
                    ),
                );
            }
            if !st.ranges_fitted.contains(&dir.payload.text) {
                d.error(
                    directory.pos,
                    format!(
                        "entry_size `{}` comes before the range_fits step of its payload `{}`",
                        directory.text, dir.payload.text
                    ),
                );
            }
            st.tables_fitted
                .extend(dir.layouts.iter().map(|l| l.collection.text.clone()));
        }
        ExtStep::Items {
            array,
            first,
            check,
            ..
        } => {
            let Scope::Record(t) = scope else {
                d.error(array.pos, "items runs inside a for_each");
                return;
            };
            if !matches!(
                field_of(c, &t.record.text, &array.text),
                Some((_, _, FieldKind::Array(..)))
            ) {
                d.error(
                    array.pos,
                    format!(
                        "items `{}` must be an array field of `{}`",
                        array.text, t.record.text
                    ),
                );
            }
            if let Some(f) = first {
                check_expr(c, f, scope, false, "first", d);
            }
            match &check.expr {
                Expr::Bin(op, l, r)
                    if op.is_comparison()
                        && matches!(&**l, Expr::Ref(p) if p.len() == 1 && p.first().is_some_and(|x| x == "item")) =>
                {
                    let rhs = ExprAt {
                        expr: (**r).clone(),
                        text: check.text.clone(),
                        pos: check.pos,
                    };
                    check_expr(c, &rhs, scope, false, "check", d);
                }
                _ => d.error(
                    check.pos,
                    format!(
                        "check `{}` must be `item <comparison> <number>`",
                        check.text
                    ),
                ),
            }
        }
        ExtStep::RecordChecksums { checksum, .. } => {
            need_top(scope, checksum, d);
            match dir_checksum(file, &checksum.text) {
                Some((_, DirChecksum { kind: DirChecksumKind::Records { records, .. }, .. })) => need_collection(st, &records.text, checksum.pos, d),
                _ => c.not_found(d, checksum.pos, &checksum.text, format!("record_checksums names `{}`, which is not a directory checksum with `records`", checksum.text)),
            }
        }
        ExtStep::PayloadChecksum { checksum, .. } => {
            need_top(scope, checksum, d);
            match dir_checksum(file, &checksum.text) {
                Some((dir, DirChecksum { kind: DirChecksumKind::Payloads { .. }, .. })) => {
                    for l in &dir.layouts {
                        need_collection(st, &l.collection.text, checksum.pos, d);
                    }
                }
                _ => c.not_found(d, checksum.pos, &checksum.text, format!("payload_checksum names `{}`, which is not a directory checksum over payloads", checksum.text)),
            }
        }
        ExtStep::OwnedApart { ownership, .. } => {
            need_top(scope, ownership, d);
            crate::check::ownership::check_step(c, ownership, st, d);
        }
        ExtStep::SlotsPaired { slots, .. }
        | ExtStep::SlotsValid { slots, .. }
        | ExtStep::SlotsPaddingZero { slots, .. } => {
            need_top(scope, slots, d);
            match file.ext.slots.iter().find(|s| s.name.text == slots.text) {
                None => d.error(
                    slots.pos,
                    format!("`{}` is not a slots definition", slots.text),
                ),
                Some(s) => need_collection(st, &s.entries.text, slots.pos, d),
            }
        }
    }
}

/// The expressions a step evaluates (for the located-record order check).
pub fn step_exprs<'a>(c: &'a Checked, x: &'a ExtStep) -> Vec<&'a ExprAt> {
    let file = &c.schema.file;
    match x {
        ExtStep::RecordFits { record, within, .. } => {
            let mut v = vec![within];
            if let Some(r) = file.ext.records.iter().find(|r| r.name.text == record.text) {
                v.push(&r.at);
                v.extend(r.gate.as_ref());
                v.extend(r.when.as_ref());
            }
            v
        }
        ExtStep::Items { first, .. } => first.iter().collect(),
        ExtStep::PayloadChecksum { checksum, .. } => match dir_checksum(file, &checksum.text) {
            Some((
                _,
                DirChecksum {
                    kind: DirChecksumKind::Payloads { stored, .. },
                    ..
                },
            )) => vec![stored],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}
