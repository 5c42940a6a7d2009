//! Checks of record streams (loaded in `schema/streams.rs`): the stream's header, size,
//! alignment, terminator, type field and layouts, and the `stream_fits` step.

use crate::check::expr::check_expr;
use crate::check::lookup::{stream, stream_table};
use crate::check::{Checked, FieldKind, Resolved, Scope, StepState};
use crate::diag::Diags;
use crate::expr::Expr;
use crate::schema::Name;
use crate::schema::streams::{Stream, StreamLayout, StreamStep};

/// The type field of a stream's header: (offset, integer type, byte order): `Some(big)` for
/// its fixed order, `None` when it is in the file's order, chosen when the file is read
/// (`big_when`), as a chain's link (`Chain::big`).
#[must_use]
pub fn type_field(c: &Checked, s: &Stream) -> Option<(u64, crate::schema::IntTy, Option<bool>)> {
    let tf = s.type_field.as_ref()?;
    let (i, off, kind) = crate::check::ext::field_of(c, &s.header.text, &tf.text)?;
    let big = c
        .strukt(&s.header.text)
        .and_then(|st| st.fields.get(i))
        .map_or(Some(false), |f| (!f.file_order).then_some(f.big));
    match kind {
        FieldKind::Int(t) if !t.signed() => Some((off, t, big)),
        FieldKind::Enum(e) => Some((off, c.schema.enums.get(e)?.repr, big)),
        _ => None,
    }
}

/// The typed collections of stream `s` a walk counts, in the schema's order: each with its
/// type value and the bytes its body's struct needs. `count(collection)` reads slot `k` of
/// the walk's counts array (`counts_var`).
#[must_use]
pub fn kept_layouts<'s>(c: &Checked, s: &'s Stream) -> Vec<(&'s StreamLayout, u64, u64)> {
    s.layouts
        .iter()
        .filter_map(|l| Some((l, layout_value(c, l)?, c.layouts.get(&l.record.text)?.size)))
        .collect()
}

/// A layout's type value: a number, a constant or an enum value by name.
#[must_use]
pub fn layout_value(c: &Checked, l: &StreamLayout) -> Option<u64> {
    match &l.value.expr {
        Expr::Num(v) => Some(*v),
        Expr::Ref(p) => match c.resolve(p, Scope::Top) {
            Ok(Resolved::Const(i)) => {
                let k = c.schema.constants.get(i)?;
                (!k.ty.signed()).then_some(k.value)
            }
            Ok(Resolved::EnumValue(e, v)) => Some(c.schema.enums.get(e)?.values.get(v)?.value),
            _ => None,
        },
        _ => None,
    }
}

/// A struct's size, when it has a fixed layout.
pub(crate) fn fixed_size(c: &Checked, sname: &str) -> Option<u64> {
    let st = c.strukt(sname)?;
    if crate::check::lookup::is_gated(st) {
        return None;
    }
    c.layouts.get(sname).map(|l| l.size)
}

/// How a stream's writer stores a record's size: `size = field * mul + plus - minus`, `field`
/// one unsigned integer field of the header (its index), a linear form of one field
/// (`check/linform.rs`, shared with the plain writer).
pub type SizeForm = crate::check::linform::LinForm<usize>;

/// The form of a stream's `size` that its writer solves for one header field, when it has
/// one of the forms written (see [`SizeForm`]).
#[must_use]
pub fn size_form(c: &Checked, s: &Stream) -> Option<SizeForm> {
    let t = stream_table(s);
    let field = |e: &Expr| {
        let (_, fi) = crate::check::expr::single_field(c, e, Scope::RecordOnly(&t))?;
        let (_, kind) = *c.layouts.get(&s.header.text)?.fields.get(fi)?;
        matches!(kind, FieldKind::Int(it) if !it.signed()).then_some(fi)
    };
    crate::check::linform::lin_form(c, &s.size.expr, &field)
}

/// Whether the stream's writer can solve its size for one header field ([`size_form`]).
#[must_use]
pub fn size_is_field(c: &Checked, s: &Stream) -> bool {
    size_form(c, s).is_some()
}

/// Check the file's streams.
pub fn check_file(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    for s in &file.streams {
        let sn = &s.name.text;
        let t = stream_table(s);
        let size_resolves = s
            .size
            .expr
            .refs()
            .iter()
            .all(|p| c.resolve(p, Scope::RecordOnly(&t)).is_ok());
        if file.writer.is_some()
            && c.layouts.contains_key(&s.header.text)
            && size_resolves
            && !size_is_field(c, s)
        {
            d.error(
                s.size.pos,
                format!("stream `{sn}`: the writer cannot write size `{}`: it solves a record's size for one unsigned header field F, so `size` must be `F`, `F + C`, `C + F`, `F - C`, `F * K`, `K * F` or `F * K` plus or minus `C` (C, K numbers or unsigned constants, K at least 1); make `size` one of those, or drop `writer`", s.size.text),
            );
        }
        // (A stream within another's records reads that stream's range: checked there.)
        match file.ranges.iter().find(|r| r.name.text == s.range.text) {
            _ if s.within.is_some() => {}
            None => c.not_found(d, s.range.pos, &s.range.text, format!(
                    "stream `{sn}`: range `{}` is not a range of the file",
                    s.range.text
                )),
            Some(r) if r.table.is_some() || r.when.is_some() => d.error(
                s.range.pos,
                format!(
                    "stream `{sn}`: range `{}` must be a file-level range without `when` (a stream fills one range of the file)",
                    s.range.text
                ),
            ),
            Some(_) => {}
        }
        match c.strukt(&s.header.text) {
            None => c.no_struct(
                d,
                s.header.pos,
                &s.header.text,
                format!(
                    "stream `{sn}`: header struct `{}` is not defined",
                    s.header.text
                ),
            ),
            Some(_) => match fixed_size(c, &s.header.text) {
                Some(0) => d.error(
                    s.header.pos,
                    format!("stream `{sn}`: header struct `{}` has no bytes (every record must make progress)", s.header.text),
                ),
                None => d.error(
                    s.header.pos,
                    format!("stream `{sn}`: header struct `{}` has version-gated fields; a stream's header has one layout", s.header.text),
                ),
                Some(_) => {
                    let t = stream_table(s);
                    check_expr(c, &s.size, Scope::RecordOnly(&t), false, "size", d);
                    if let Some(e) = &s.end {
                        check_expr(c, e, Scope::RecordOnly(&t), true, "end", d);
                    }
                    if let Some(k) = &s.checksum {
                        for (e, what) in [(&k.from, "from"), (&k.to, "to"), (&k.stored, "stored")] {
                            check_expr(c, e, Scope::RecordOnly(&t), false, what, d);
                        }
                        if let Some(w) = &k.when {
                            check_expr(c, w, Scope::RecordOnly(&t), true, "when", d);
                        }
                        // A stored field never lies inside the bytes it covers (`sum_span.rs`).
                        crate::check::sum_span::check_stream(c, Scope::RecordOnly(&t), sn, k, d);
                    }
                }
            },
        }
        if let Some(k) = &s.checksum {
            let checked = file.validate.iter().any(|x| {
                let x = match x {
                    crate::schema::top::Step::When { step, .. } => &**step,
                    x => x,
                };
                matches!(x, crate::schema::top::Step::StreamFits { stream, kind: StreamStep::Checksum, .. } if stream.text == *sn)
            });
            if !checked {
                d.error(
                    k.pos,
                    format!(
                        "the checksum of stream `{sn}` is never checked by a stream_checksum step"
                    ),
                );
            }
        }
        if let (Some(pos), None) = (s.trailing, &s.end) {
            d.error(
                pos,
                format!("stream `{sn}`: `trailing` lets bytes follow the terminator, and the stream has no `end`"),
            );
        }
        if s.align == 0 || !s.align.is_power_of_two() {
            d.error(
                s.align_pos,
                format!("stream `{sn}`: align {} is not a power of two", s.align),
            );
        }
        let tf = s.type_field.as_ref();
        if let Some(tf) = tf
            && c.strukt(&s.header.text).is_some()
        {
            match crate::check::ext::field_of(c, &s.header.text, &tf.text) {
                None => d.error(
                    tf.pos,
                    format!(
                        "stream `{sn}`: `{}` has no field `{}`",
                        s.header.text, tf.text
                    ),
                ),
                Some(_) if type_field(c, s).is_none() => d.error(
                    tf.pos,
                    format!(
                        "stream `{sn}`: type field `{}` must be an unsigned integer or an enum",
                        tf.text
                    ),
                ),
                Some(_) => {}
            }
        }
        if tf.is_none()
            && let Some(l) = s.layouts.first()
        {
            d.error(
                l.collection.pos,
                format!("stream `{sn}`: layouts need a `type` field in the stream to choose them"),
            );
        }
        check_nesting(s, d);
        check_chain(c, s, file.writer.is_some(), d);
        check_within(c, s, file.writer.is_some(), d);
        let mut seen: Vec<(u64, &str)> = Vec::new();
        for l in &s.layouts {
            match fixed_size(c, &l.record.text) {
                None if c.strukt(&l.record.text).is_none() => c.no_struct(
                    d,
                    l.record.pos,
                    &l.record.text,
                    format!(
                        "layout `{}`: struct `{}` is not defined",
                        l.collection.text, l.record.text
                    ),
                ),
                None => d.error(
                    l.record.pos,
                    format!("layout `{}`: struct `{}` has version-gated fields; a body layout has one size", l.collection.text, l.record.text),
                ),
                Some(_) => {}
            }
            match layout_value(c, l) {
                None => d.error(
                    l.value.pos,
                    format!(
                        "layout `{}`: type `{}` must be a number, an unsigned constant or an enum value (`Kind.note`)",
                        l.collection.text, l.value.text
                    ),
                ),
                Some(v) => {
                    if let Some((_, t, _)) = type_field(c, s)
                        && v > t.max_unsigned()
                    {
                        d.error(
                            l.value.pos,
                            format!(
                                "layout `{}`: type {v} does not fit the type field's {}",
                                l.collection.text,
                                t.rust()
                            ),
                        );
                    }
                    if let Some((_, other)) = seen.iter().find(|x| x.0 == v) {
                        d.error(
                            l.value.pos,
                            format!(
                                "layout `{}`: type {v} already has layout `{other}`",
                                l.collection.text
                            ),
                        );
                    }
                    seen.push((v, &l.collection.text));
                }
            }
        }
    }
}

/// The most a stream's records may nest (`max_depth`): the walks and iterators keep the end of
/// each level they are inside, a `u64` per level, on the stack.
pub const MAX_DEPTH: u64 = 32;

/// Nested layouts (`nested: true`) and `max_depth` go together; a nesting stream has no
/// terminator (each level ends where its record's body does).
fn check_nesting(s: &Stream, d: &mut Diags) {
    let sn = &s.name.text;
    let nested = s.layouts.iter().find(|l| l.nested.is_some());
    match (nested, s.max_depth) {
        (Some(l), None) => d.error(
            l.nested.unwrap_or(l.collection.pos),
            format!("stream `{sn}`: layout `{}` holds nested records; say how deep they may nest with `max_depth` on the stream (1: records inside a record, no deeper)", l.collection.text),
        ),
        (None, Some((_, pos))) => d.error(
            pos,
            format!("stream `{sn}`: `max_depth` bounds nested records, and no layout is `nested: true`"),
        ),
        (Some(_), Some((n, pos))) if n == 0 || n > MAX_DEPTH => d.error(
            pos,
            format!("stream `{sn}`: max_depth {n} is not between 1 and {MAX_DEPTH}"),
        ),
        _ => {}
    }
    if let (Some(l), Some(e)) = (nested, &s.end) {
        d.error(
            l.nested.unwrap_or(l.collection.pos),
            format!("stream `{sn}`: layout `{}` holds nested records, and the stream ends at a terminator (`end: {}`); nested records end with their record's body, so a nesting stream has no `end`", l.collection.text, e.text),
        );
    }
}

/// The most records a chain may declare (`max`): its iterators number records with a `u32`.
pub const MAX_CHAIN: u64 = u32::MAX as u64;

/// The link word's integer type of a chain, when it is an unsigned integer type.
#[must_use]
pub fn chain_ty(ch: &crate::schema::streams::Chain) -> Option<crate::schema::IntTy> {
    crate::schema::IntTy::parse(&ch.next_ty.text).filter(|t| !t.signed())
}

/// A chain (`chain:`): records linked by their own words, not laid out one after another,
/// so no `align`, `end`, `trailing` or nested records (each of those is about records that
/// follow one another), and no writer (the writer lays records out in order).
fn check_chain(c: &Checked, s: &Stream, writer: bool, d: &mut Diags) {
    let Some(ch) = &s.chain else {
        return;
    };
    let sn = &s.name.text;
    let t = stream_table(s);
    check_expr(c, &ch.first, Scope::Top, false, "first", d);
    if c.strukt(&s.header.text).is_some() {
        check_expr(c, &ch.next_at, Scope::RecordOnly(&t), false, "at", d);
    }
    if chain_ty(ch).is_none() {
        d.error(
            ch.next_ty.pos,
            format!(
                "stream `{sn}`: the chain's link type `{}` is not an unsigned integer type (u8, u16, u32, u64)",
                ch.next_ty.text
            ),
        );
    }
    if ch.max == 0 || ch.max > MAX_CHAIN {
        d.error(
            ch.pos,
            format!(
                "stream `{sn}`: the chain's max {} is not between 1 and {MAX_CHAIN}",
                ch.max
            ),
        );
    }
    let why = "a chain's records are where their links say, not one after another";
    if s.align != 1 {
        d.error(
            s.align_pos,
            format!("stream `{sn}`: `align` places records after one another, and {why}"),
        );
    }
    if let Some(e) = &s.end {
        d.error(e.pos, format!("stream `{sn}`: a chain ends at a link of 0, not at a terminator (`end: {}`): {why}", e.text));
    }
    if let Some(l) = s.layouts.iter().find(|l| l.nested.is_some()) {
        d.error(
            l.nested.unwrap_or(l.collection.pos),
            format!(
                "stream `{sn}`: layout `{}` nests records in its body, and {why}",
                l.collection.text
            ),
        );
    }
    if writer {
        d.error(
            ch.pos,
            format!("stream `{sn}`: the writer lays records out one after another and cannot place a chain's records where their links say; drop `writer`, or the `chain`"),
        );
    }
}

/// A stream within another's records (`within:`): that stream is a stream of the file that is
/// not itself within another, `from` and `to` are over its header's fields, and the records
/// neither nest, nor end at a terminator (each part ends where `to` says), nor form a chain;
/// no writer (it writes one stream into one range).
fn check_within(c: &Checked, s: &Stream, writer: bool, d: &mut Diags) {
    let Some(w) = &s.within else {
        return;
    };
    let sn = &s.name.text;
    let file = &c.schema.file;
    match stream(file, &w.stream.text) {
        None => c.not_found(d, w.stream.pos, &w.stream.text, format!("stream `{sn}`: `within` names `{}`, which is not a stream", w.stream.text)),
        Some(p) if p.name.text == *sn => d.error(
            w.stream.pos,
            format!("stream `{sn}`: `within` names the stream itself (records inside records of the same stream: a layout with `nested: true`)"),
        ),
        Some(p) if p.within.is_some() => d.error(
            w.stream.pos,
            format!("stream `{sn}`: stream `{}` is itself within another stream's records; one level of `within`", p.name.text),
        ),
        Some(p) => {
            if c.strukt(&p.header.text).is_some() {
                let t = stream_table(p);
                check_expr(c, &w.from, Scope::RecordOnly(&t), false, "from", d);
                check_expr(c, &w.to, Scope::RecordOnly(&t), false, "to", d);
            }
        }
    }
    let why = "each record of the holding stream holds a part that ends where `to` says";
    if let Some(e) = &s.end {
        d.error(e.pos, format!("stream `{sn}`: a stream within another's records ends with each part, not at a terminator (`end: {}`): {why}", e.text));
    }
    if let Some(l) = s.layouts.iter().find(|l| l.nested.is_some()) {
        d.error(
            l.nested.unwrap_or(l.collection.pos),
            format!("stream `{sn}`: layout `{}` nests records, and the stream is within stream `{}`'s records; one of the two", l.collection.text, w.stream.text),
        );
    }
    if let Some(ch) = &s.chain {
        d.error(
            ch.pos,
            format!("stream `{sn}`: a chain's records are where their links say, and the stream is within stream `{}`'s records; one of the two", w.stream.text),
        );
    }
    if writer {
        d.error(
            w.pos,
            format!("stream `{sn}`: the writer writes a stream into one range of the file, and this one is within stream `{}`'s records; drop `writer`, or `within`", w.stream.text),
        );
    }
}

/// Check a `stream_fits` step; it makes the stream and its collections readable.
pub fn check_step(
    c: &Checked,
    code: &Name,
    target: &Name,
    kind: StreamStep,
    scope: Scope<'_>,
    st: &mut StepState,
    d: &mut Diags,
) {
    let _ = code;
    if kind == StreamStep::Checksum {
        if !matches!(scope, Scope::Top) {
            d.error(target.pos, format!("`{}`: stream_checksum stands at the top level of `validate` (it walks the stream itself)", target.text));
        }
        match stream(&c.schema.file, &target.text) {
            None => c.not_found(
                d,
                target.pos,
                &target.text,
                format!(
                    "stream_checksum names `{}`, which is not a stream",
                    target.text
                ),
            ),
            Some(s) if s.checksum.is_none() => d.error(
                target.pos,
                format!(
                    "stream_checksum: stream `{}` has no `checksum`",
                    target.text
                ),
            ),
            Some(_) if !st.tables_fitted.contains(&target.text) => d.error(
                target.pos,
                format!(
                    "stream_checksum `{}` comes before the stream_fits step that walks the stream",
                    target.text
                ),
            ),
            Some(_) => {}
        }
        return;
    }
    if !matches!(scope, Scope::Top) {
        d.error(
            target.pos,
            format!(
                "`{}`: stream_fits stands at the top level of `validate` (it walks the stream itself)",
                target.text
            ),
        );
    }
    let Some(s) = stream(&c.schema.file, &target.text) else {
        c.not_found(
            d,
            target.pos,
            &target.text,
            format!("stream_fits names `{}`, which is not a stream", target.text),
        );
        return;
    };
    if let Some(w) = &s.within
        && stream(&c.schema.file, &w.stream.text).is_some()
        && !st.tables_fitted.contains(&w.stream.text)
    {
        d.error(
            target.pos,
            format!(
                "stream_fits `{}` comes before the stream_fits step that walks stream `{}`, whose records hold its records",
                target.text, w.stream.text
            ),
        );
    }
    // (Within another stream's records: that stream's walk came first, after its range's.)
    if s.within.is_none() && !st.ranges_fitted.contains(&s.range.text) {
        d.error(
            target.pos,
            format!(
                "stream_fits `{}` comes before the range_fits step that checks its range `{}`",
                target.text, s.range.text
            ),
        );
    }
    st.tables_fitted.push(s.name.text.clone());
    st.tables_fitted
        .extend(s.layouts.iter().map(|l| l.collection.text.clone()));
}

/// Every stream is walked by a `stream_fits` step (else its view cannot be built).
pub fn check_walked(c: &Checked, walked: &[String], d: &mut Diags) {
    for s in &c.schema.file.streams {
        if !walked.contains(&s.name.text) {
            d.error(
                s.name.pos,
                format!(
                    "stream `{}` is never walked by a stream_fits step, so its view cannot be built",
                    s.name.text
                ),
            );
        }
    }
}
