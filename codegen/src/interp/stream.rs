//! The interpreter's record streams (`streams.rs`), the emitter's rules restated: the
//! `stream_fits` walk (the same checks, in the same order, with the same error sites),
//! `for_each` over a stream or a stream's collection, `count()`, `first()`
//! (`positions.rs`), and the dynamic view's
//! records (each record's header fields and body range, each typed body's fields).

use super::compile::Comp;
use super::ir::*;
use super::prog::*;
use super::view_model::{Group, RangeView};
use crate::check::Scope;
use crate::check::lookup::{collection, stream, stream_table};
use crate::check::streams::{layout_value, type_field};
use crate::schema::top::Step;
use npuschema_core::Report;

/// One record found by the walk: its (absolute) offset, whole size and type.
#[derive(Clone, Copy, Debug)]
struct Rec {
    at: u64,
    total: u64,
    ty: u64,
}

/// Why the walk stopped early, and at which record (its offset and index).
#[derive(Clone, Copy, Debug)]
enum Stop {
    Header,
    Small(u64),
    Over(Option<u64>),
    Short(usize, u64),
    Open,
    Trailing(u64),
}

fn struct_index(c: &crate::check::Checked, name: &str) -> Option<usize> {
    c.schema.structs.iter().position(|s| s.name.text == name)
}

/// Resolve every stream of the file (no sites).
pub(super) fn infos(comp: &Comp<'_>) -> Vec<SInfo> {
    let c = comp.c;
    let file = &c.schema.file;
    file.streams
        .iter()
        .map(|s| {
            let t = stream_table(s);
            let scope = Scope::RecordOnly(&t);
            SInfo {
                name: s.name.text.clone(),
                range: file
                    .ranges
                    .iter()
                    .position(|r| r.name.text == s.range.text)
                    .unwrap_or(usize::MAX),
                header_st: struct_index(c, &s.header.text).unwrap_or(usize::MAX),
                hs: c.layouts.get(&s.header.text).map_or(0, |l| l.size),
                size: comp.expr(&s.size.expr, scope),
                includes_header: s.includes_header,
                align: s.align.max(1),
                end: s.end.as_ref().map(|e| comp.expr(&e.expr, scope)),
                ty: type_field(c, s),
                layouts: s
                    .layouts
                    .iter()
                    .filter_map(|l| {
                        Some((
                            l.collection.text.clone(),
                            layout_value(c, l)?,
                            c.layouts.get(&l.record.text)?.size,
                            struct_index(c, &l.record.text)?,
                        ))
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Compile a stream step: its sites, in the emitter's order.
pub(super) fn compile_fits(
    comp: &mut Comp<'_>,
    code: &str,
    target: &str,
    kind: crate::schema::streams::StreamStep,
) -> Option<CStep> {
    let c = comp.c;
    if kind == crate::schema::streams::StreamStep::Checksum {
        let file = &c.schema.file;
        let si = file.streams.iter().position(|s| s.name.text == target)?;
        let s = &file.streams[si];
        let k = s.checksum.as_ref()?;
        let t = stream_table(s);
        let scope = Scope::RecordOnly(&t);
        let rec = |name: &str| CBlame::record(&s.name.text, name, 0, BaseK::RecAt, IdxK::Index);
        let place = comp.fail(code, rec("checksum"), Shape::Range("record end".into()));
        let sum = comp.fail(code, rec("checksum"), Shape::Mismatch);
        return Some(CStep::StreamChecksum(Box::new(Sums {
            stream: si,
            place,
            sum,
            alg: k.algorithm,
            from: comp.expr(&k.from.expr, scope),
            to: comp.expr(&k.to.expr, scope),
            stored: comp.expr(&k.stored.expr, scope),
            big: k.big,
        })));
    }
    let file = &c.schema.file;
    let si = file.streams.iter().position(|s| s.name.text == target)?;
    let s = &file.streams[si];
    let r = file.ranges.iter().find(|r| r.name.text == s.range.text)?;
    let rname = r.name.text.clone();
    let t = stream_table(s);
    let sn = s.name.text.as_str();
    let hs = c.layouts.get(&s.header.text).map_or(0, |l| l.size);
    let rec = |name: &str, off: u64| CBlame::record(sn, name, off, BaseK::RecAt, IdxK::Index);
    let header = comp.fail(code, rec("header", 0), Shape::Range(rname.clone()));
    // A size that reads several header fields blames the record's header (its `size`), as
    // the emitter does.
    let sb = match comp.blame(&s.size.expr, Scope::Record(&t)) {
        b if b.table.is_empty() && b.name == "header" => rec("size", 0),
        b => b,
    };
    let sname = match &s.size.expr {
        crate::expr::Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
        _ => String::new(),
    };
    let small = s.includes_header.then(|| {
        comp.fail(
            code,
            sb.clone(),
            Shape::Compare([sname.clone(), "<".into(), "header bytes".into()]),
        )
    });
    let over = comp.fail(code, sb, Shape::Range(rname.clone()));
    let mut short = Vec::new();
    for l in &s.layouts {
        if layout_value(c, l).is_none() || !c.layouts.contains_key(&l.record.text) {
            continue;
        }
        short.push(comp.fail(
            code,
            rec(&l.collection.text, hs),
            Shape::Compare(["body bytes".into(), "<".into(), l.record.text.clone()]),
        ));
    }
    let open = s
        .end
        .as_ref()
        .map(|_| comp.fail(code, rec("end", 0), Shape::None));
    let trailing = s
        .end
        .as_ref()
        .map(|_| comp.fail(code, rec("end", 0), Shape::Range(rname.clone())));
    Some(CStep::StreamFits(Box::new(Fits {
        stream: si,
        header,
        small,
        over,
        short,
        open,
        trailing,
    })))
}

/// Compile a `for_each` over a stream or one of its collections.
pub(super) fn compile_each(comp: &mut Comp<'_>, name: &str, steps: &[Step]) -> Option<CStep> {
    let c = comp.c;
    let file = &c.schema.file;
    let t = c.collections.iter().find(|t| t.name.text == name)?;
    let body = comp.steps(steps, Scope::Record(t));
    if let Some(s) = stream(file, name) {
        let si = file
            .streams
            .iter()
            .position(|x| x.name.text == s.name.text)?;
        return Some(CStep::StreamEach(Box::new(Each {
            stream: si,
            layout: None,
            steps: body,
        })));
    }
    let (s, l) = collection(file, name)?;
    let si = file
        .streams
        .iter()
        .position(|x| x.name.text == s.name.text)?;
    // The layout's index among those that resolve (as `SInfo::layouts` keeps them).
    let li = s
        .layouts
        .iter()
        .filter(|x| layout_value(c, x).is_some() && c.layouts.contains_key(&x.record.text))
        .position(|x| x.collection.text == l.collection.text)?;
    Some(CStep::StreamEach(Box::new(Each {
        stream: si,
        layout: Some(li),
        steps: body,
    })))
}

fn read(buf: &[u8], at: u64, (off, t, big): RecField) -> u64 {
    widen(read_int(buf, at.saturating_add(off), t, big), t)
}

/// Walk stream `s`: its records, and why it stopped early (the record's offset and index).
fn walk(st: &State<'_>, p: &FileProg<'_>, s: &SInfo) -> (Vec<Rec>, Option<(Stop, u64, u64)>) {
    let mut out = Vec::new();
    let Some((start, len)) = st.ranges.get(s.range).copied().flatten() else {
        return (out, None);
    };
    let end = len;
    let mut pos = 0u64;
    let mut index = 0u64;
    let m = s.align.saturating_sub(1);
    loop {
        let at = start.saturating_add(pos);
        if pos >= end {
            return (out, s.end.as_ref().map(|_| (Stop::Open, at, index)));
        }
        if end - pos < s.hs {
            return (out, Some((Stop::Header, at, index)));
        }
        let size = st.eval_rec(p, &s.size, at);
        if s.includes_header
            && let Some(sz) = size
            && sz < s.hs
        {
            return (out, Some((Stop::Small(sz), at, index)));
        }
        let total = if s.includes_header {
            size
        } else {
            size.and_then(|b| b.checked_add(s.hs))
        };
        let Some(total) = total.filter(|t| *t <= end - pos) else {
            return (out, Some((Stop::Over(total), at, index)));
        };
        let ty = s.ty.map_or(0, |f| read(st.buf, at, f));
        if s.ty.is_some() {
            let body = total - s.hs;
            if let Some(li) = s.layouts.iter().position(|l| l.1 == ty)
                && body < s.layouts[li].2
            {
                return (out, Some((Stop::Short(li, body), at, index)));
            }
        }
        out.push(Rec { at, total, ty });
        let rec_end = pos + total;
        let next = if m == 0 {
            rec_end
        } else {
            rec_end.checked_add(m).map_or(end, |x| (x & !m).min(end))
        };
        index = index.saturating_add(1);
        if let Some(e) = &s.end
            && st.cond_rec(p, e, at)
        {
            if next < end {
                return (out, Some((Stop::Trailing(next), at, index)));
            }
            return (out, None);
        }
        pos = next;
    }
}

/// Run a `stream_fits` step.
pub(super) fn exec_fits<E: Report>(
    it: &Interp<'_>,
    p: &FileProg<'_>,
    f: &Fits,
    st: &mut State<'_>,
) -> Result<(), E> {
    let Some(s) = p.streams.get(f.stream) else {
        return Ok(());
    };
    let (_, stop) = walk(st, p, s);
    let Some((stop, at, index)) = stop else {
        return Ok(());
    };
    let (start, end) = st.ranges.get(s.range).copied().flatten().unwrap_or((0, 0));
    let limit = start.saturating_add(end);
    let saved = (st.rec_at, st.rec_index);
    st.rec_at = at;
    st.rec_index = index;
    let e = match stop {
        Stop::Header => it.err(st, &f.header, [at, s.hs, limit]),
        Stop::Small(sz) => match &f.small {
            Some(fs) => it.err(st, fs, [sz, s.hs, 0]),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Over(total) => it.err(st, &f.over, [at, total.unwrap_or(u64::MAX), limit]),
        Stop::Short(li, body) => {
            let n = s.layouts.get(li).map_or(0, |l| l.2);
            match f.short.get(li) {
                Some(fs) => it.err(st, fs, [body, n, 0]),
                None => it.err(st, &f.over, [at, u64::MAX, limit]),
            }
        }
        Stop::Open => match &f.open {
            Some(fo) => it.err(st, fo, [0, 0, 0]),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Trailing(next) => {
            let base = start.saturating_add(next);
            match &f.trailing {
                Some(ft) => it.err_at(
                    st,
                    ft,
                    [base, end.saturating_sub(next), limit],
                    Some(base),
                    Some(index),
                ),
                None => it.err(st, &f.over, [at, u64::MAX, limit]),
            }
        }
    };
    (st.rec_at, st.rec_index) = saved;
    Err(e)
}

/// Run a `stream_checksum` step.
pub(super) fn exec_sums<E: Report>(
    it: &Interp<'_>,
    p: &FileProg<'_>,
    k: &Sums,
    st: &mut State<'_>,
) -> Result<(), E> {
    let Some(s) = p.streams.get(k.stream) else {
        return Ok(());
    };
    let (recs, _) = walk(st, p, s);
    for (i, r) in recs.iter().enumerate() {
        let from = st.eval_rec(p, &k.from, r.at);
        let to = st.eval_rec(p, &k.to, r.at);
        let stored = st.eval_rec(p, &k.stored, r.at);
        let bytes = npuschema_core::range_at(st.buf, r.at, r.total);
        let covered = match (from, to, bytes) {
            (Some(f), Some(t), Some(b)) if f <= t => npuschema_core::range_at(b, f, t - f),
            _ => None,
        };
        let place = stored
            .zip(bytes)
            .and_then(|(so, b)| Some((so, npuschema_core::chunk_at::<4>(b, so)?)));
        let saved = (st.rec_at, st.rec_index);
        st.rec_at = r.at;
        st.rec_index = i as u64;
        let (Some(d), Some((so, raw))) = (covered, place) else {
            let start = r.at.saturating_add(from.unwrap_or(0));
            let len = to
                .zip(from)
                .and_then(|(t, f)| t.checked_sub(f))
                .unwrap_or(u64::MAX);
            let e = it.err(st, &k.place, [start, len, r.at.saturating_add(r.total)]);
            (st.rec_at, st.rec_index) = saved;
            return Err(e);
        };
        let found = u64::from(if k.big {
            u32::from_be_bytes(*raw)
        } else {
            u32::from_le_bytes(*raw)
        });
        let computed = u64::from(checksum(k.alg, d));
        if found != computed {
            let e = it.err_at(
                st,
                &k.sum,
                [found, computed, 0],
                Some(r.at.saturating_add(so)),
                None,
            );
            (st.rec_at, st.rec_index) = saved;
            return Err(e);
        }
        (st.rec_at, st.rec_index) = saved;
    }
    Ok(())
}

/// Run a `for_each` over a stream or a collection.
pub(super) fn exec_each<E: Report>(
    it: &Interp<'_>,
    p: &FileProg<'_>,
    e: &Each,
    st: &mut State<'_>,
) -> Result<(), E> {
    let Some(s) = p.streams.get(e.stream) else {
        return Ok(());
    };
    let (recs, _) = walk(st, p, s);
    let saved = (st.rec_at, st.rec_index, st.rec_span);
    let mut ci = 0u64;
    for (i, r) in recs.iter().enumerate() {
        st.rec_span = (
            r.at,
            r.at.saturating_add(s.hs),
            r.at.saturating_add(r.total),
        );
        match e.layout {
            None => {
                st.rec_at = r.at;
                st.rec_index = i as u64;
            }
            Some(li) => {
                if s.layouts.get(li).is_none_or(|l| l.1 != r.ty) {
                    continue;
                }
                st.rec_at = r.at.saturating_add(s.hs);
                st.rec_index = ci;
                ci += 1;
            }
        }
        if let Err(x) = it.exec::<E>(p, &e.steps, st) {
            (st.rec_at, st.rec_index, st.rec_span) = saved;
            return Err(x);
        }
    }
    (st.rec_at, st.rec_index, st.rec_span) = saved;
    Ok(())
}

/// `count()` of a stream or a stream's collection (`None`: `ci` is neither).
pub(super) fn count(st: &State<'_>, p: &FileProg<'_>, ci: usize) -> Option<u64> {
    let name = &p.c.collections.get(ci)?.name.text;
    for s in &p.streams {
        if &s.name == name {
            return Some(walk(st, p, s).0.len() as u64);
        }
        if let Some(l) = s.layouts.iter().find(|l| &l.0 == name) {
            let n = walk(st, p, s).0.iter().filter(|r| r.ty == l.1).count();
            return Some(n as u64);
        }
    }
    None
}

/// `first()` of a stream's collection: the index in the stream of its first record (`None`
/// when it has none, or `ci` is not a stream's collection).
pub(super) fn first(st: &State<'_>, p: &FileProg<'_>, ci: usize) -> Option<u64> {
    let name = &p.c.collections.get(ci)?.name.text;
    for s in &p.streams {
        if let Some(l) = s.layouts.iter().find(|l| &l.0 == name) {
            let i = walk(st, p, s).0.iter().position(|r| r.ty == l.1)?;
            return Some(i as u64);
        }
    }
    None
}

/// The dynamic view's groups: each stream's records (header fields, body range) and each
/// collection's typed bodies.
pub(super) fn groups(p: &FileProg<'_>, st: &State<'_>) -> Vec<Group> {
    let c = p.c;
    let mut out = Vec::new();
    for s in &p.streams {
        let Some(h) = c.schema.structs.get(s.header_st) else {
            continue;
        };
        let (recs, _) = walk(st, p, s);
        let mut records = Vec::new();
        for (i, r) in recs.iter().enumerate() {
            let path = format!("{}[{i}]", s.name);
            let mut rv = super::decode::record(p, st, h, r.at, None, path.clone(), Some(i as u64));
            rv.size = r.total;
            rv.ranges.push(RangeView {
                name: "body".into(),
                path: format!("{path}.body"),
                offset: r.at.saturating_add(s.hs),
                length: r.total - s.hs,
            });
            records.push(rv);
        }
        out.push(Group {
            kind: "stream",
            name: s.name.clone(),
            struct_name: h.name.text.clone(),
            records,
        });
        for l in &s.layouts {
            let Some(b) = c.schema.structs.get(l.3) else {
                continue;
            };
            let records = recs
                .iter()
                .filter(|r| r.ty == l.1)
                .enumerate()
                .map(|(k, r)| {
                    super::decode::record(
                        p,
                        st,
                        b,
                        r.at.saturating_add(s.hs),
                        None,
                        format!("{}[{k}]", l.0),
                        Some(k as u64),
                    )
                })
                .collect();
            out.push(Group {
                kind: "collection",
                name: l.0.clone(),
                struct_name: b.name.text.clone(),
                records,
            });
        }
    }
    out
}

// The entry points the lower parts call, as methods on their types (`compile.rs` compiles
// stream steps, `prog.rs` evaluates `first()` and `count()`).
impl Comp<'_> {
    /// The file's streams, resolved ([`infos`]).
    pub(super) fn stream_infos(&self) -> Vec<SInfo> {
        infos(self)
    }

    /// [`compile_fits`].
    pub(super) fn stream_fits(
        &mut self,
        code: &str,
        target: &str,
        kind: crate::schema::streams::StreamStep,
    ) -> Option<CStep> {
        compile_fits(self, code, target, kind)
    }

    /// [`compile_each`].
    pub(super) fn stream_each(&mut self, name: &str, steps: &[Step]) -> Option<CStep> {
        compile_each(self, name, steps)
    }
}

impl State<'_> {
    /// [`first`].
    pub(super) fn stream_first(&self, p: &FileProg<'_>, ci: usize) -> Option<u64> {
        first(self, p, ci)
    }

    /// [`count`].
    pub(super) fn stream_count(&self, p: &FileProg<'_>, ci: usize) -> Option<u64> {
        count(self, p, ci)
    }
}
